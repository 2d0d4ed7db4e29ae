r"""Privacy accounting of a synthetic-data release, next to the model release it replaces.

The mechanism (``docs/math/index.md#the-mechanism``): a model parameter :math:`v \in \mathbb R^{d \times k}` with
:math:`\|v\|_F \le C`, trained on a dataset so that neighbouring datasets give
:math:`\|v - w\|_F \le \Delta` (the sensitivity), is perturbed, :math:`V = v + \sigma N`, and only
synthetic records :math:`ZV`, :math:`Z \in \mathbb R^{n_\mathrm{syn} \times d}` with i.i.d.
:math:`\mathcal N(0, \sigma_z^2)` entries, are released (:math:`n_\mathrm{syn} = \infty`: the Gram
matrix :math:`V^\top V`). Everything is scale invariant: the divergences depend on
:math:`C/\sigma` and :math:`\Delta/\sigma` only, and not at all on :math:`\sigma_z` (a common
scale of both laws).

* :class:`SyntheticReleaseMechanism`: RDP curve, privacy profile and :math:`\varepsilon(\delta)`
  of the synthetic release, and the model-release (Gaussian mechanism) baseline.

  - :math:`k = 1` (**exact**): the release depends on :math:`v` only through
    :math:`a = \|v\|/\sigma`, so :math:`\varepsilon(\alpha) = \sup D_\alpha(\chi^2_d(a^2) \|
    \chi^2_d(b^2))` over :math:`a, b \in [0, C/\sigma]`, :math:`|a - b| \le \Delta/\sigma`, both
    orders (for finite :math:`n_\mathrm{syn}`, the law of :math:`\|ZV\|^2`, ``docs/math/release.md#sufficiency-of-t``). The
    supremum is found by :func:`fisherrdp._src.accounting.worst_case.sup_over_pairs` (a boundary
    scan with zoom plus an interior evidence grid); the divergences are
    :func:`fisherrdp.divergences.renyi_ncx2` (1e-9 relative or better) and the exact hockey-stick
    divergence, so the curve is exact to the accuracy of those functions.
  - :math:`k > 1` (**rigorous upper bound**): per order, the smaller of the Gaussian
    post-processing bound :math:`\alpha\Delta^2/(2\sigma^2)` and the Fisher path bound
    (Proposition 3.2 along the straight path with Theorem 5.3's Fisher bound
    :math:`2C^2/(2C^2 + (m - 3)\sigma^2)`, :math:`m = \lfloor d/k \rfloor`, and the post-processing
    envelope), whose integral :math:`\int_0^\Delta e^{s t^2}dt = e^{s\Delta^2}F(\Delta\sqrt s)/\sqrt s`
    (Dawson's :math:`F`, :math:`s = (\alpha-1)(2\alpha-1)/2`) is evaluated exactly — never above
    Theorem 5.4's closed form, which bounds that integral. The privacy profile and
    :math:`\varepsilon(\delta)` then follow by the RDP conversion of Balle et al. (2020).
    The result names the bound used (``details=True``; for :math:`k \ge 2` it also carries the
    bracket's lower end, the exact divergence at the worst pair a search finds,
    :meth:`SyntheticReleaseMechanism.worst_pair_search`, labelled as attained; for
    :math:`k \ge 3` among the pairs whose means lie in two columns, where the divergence is the
    :math:`k = 2` one exactly). Finite
    :math:`n_\mathrm{syn}` uses the same bound: :math:`ZV` given :math:`V` depends on
    :math:`V^\top V` only, so it is post-processing.

* :func:`calibrate_sigma`: the smallest σ meeting a target :math:`(\varepsilon, \delta)` for the
  synthetic release, next to the σ the model release needs.

Natural logarithms; NumPy in and out (these functions drive jitted kernels, they are not meant
to be jitted themselves).
"""

from __future__ import annotations

import dataclasses
import math

import jax.numpy as jnp
import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from fisherrdp._src.accounting.conversions import (
    HOST_ONLY,
    as_output,
    gaussian_epsilon,
    gaussian_privacy_profile,
    gaussian_rdp,
    rdp_to_dp,
)
from fisherrdp._src.accounting.wishart_search import PairSearch, search_worst_pair
from fisherrdp._src.accounting.worst_case import CHUNK, WorstCase, sup_over_pairs
from fisherrdp._src.core.engine import map_points
from fisherrdp._src.core.validation import check_concrete, require_concrete
from fisherrdp._src.divergences.hockey_stick import privacy_profile_jit
from fisherrdp._src.divergences.release_k1 import release_finite_vec
from fisherrdp._src.divergences.renyi import renyi_vec

__all__ = ["Calibration", "SyntheticReleaseMechanism", "calibrate_sigma"]

#: Orders used by the :math:`k > 1` conversions from RDP to :math:`(\varepsilon, \delta)`.
CONVERSION_ALPHAS = np.concatenate([1.0 + np.geomspace(1e-3, 1.0, 60), np.geomspace(2.0, 1e4, 240)])
#: Points per compiled call of a finite-n_syn kernel (the profile's inversion and the
#: worst-case scans alike, so that one compiled program serves both): a release-law point costs
#: ~10 ms on a CPU core, and small batches waste less on the longest Poisson window of a batch.
FINITE_CHUNK = 4
#: Relative accuracy of the inversions (ε from δ, σ from a target).
RTOL = 1e-12
#: ε(δ) is searched in [0, 2^EPS_MAX_LOG2], for at most INVERT_ROUNDS narrowing rounds.
EPS_MAX_LOG2 = 12
INVERT_ROUNDS = 64
#: After the first round, the inversion's window about its estimate of ε(δ) is this many times
#: the estimate's last correction (a margin for the interpolation's error).
WINDOW_SCALE = 4.0
#: calibrate_sigma's search for log σ stays within this of its start (σ within e^±200).
SIGMA_BRACKET = 200.0


# ----------------------------------------------------------------------------------------------
# Pair divergences of k = 1 (kernels of map_points): (x, a, b) in units of σ, then the
# mechanism's d (and n_syn) as broadcast arrays, so that one compiled program serves every
# mechanism. renyi_pair on CHUNK points is also the figures' Rényi kernel.


def renyi_pair(alpha, a, b, d):
    """D_α(χ²_d(a²) ‖ χ²_d(b²)) (``renyi_ncx2``; n_syn = ∞)."""
    return renyi_vec(alpha, d, a, b)


def _profile_pair(eps, a, b, d):
    """max(E(P_a‖P_b), E(P_b‖P_a)) at e^ε (``privacy_profile_ncx2``; n_syn = ∞)."""
    return privacy_profile_jit(eps, d, a, b)


def release_renyi_pair(alpha, a, b, d, n_syn):
    """D_α(ZV‖ZW) of a release of finite n_syn records (``renyi_release_k1``)."""
    return release_finite_vec(alpha, d, n_syn, a, b, False)


def _release_profile_pair(eps, a, b, d, n_syn):
    """max over both orders of ``hockey_stick_release_k1`` (finite n_syn), in one call."""
    both = release_finite_vec(
        eps[:, None], d[:, None], n_syn[:, None], jnp.stack([a, b], -1), jnp.stack([b, a], -1), True
    )
    return jnp.max(both, axis=-1)


def _check_probability(name: str, value) -> None:
    require_concrete(HOST_ONLY, **{name: value})
    check_concrete(
        name,
        value,
        lower=0,
        upper=1,
        lower_inclusive=False,
        upper_inclusive=False,
        allow_nan=False,
    )


@dataclasses.dataclass(frozen=True)
class SyntheticReleaseMechanism:
    r"""The synthetic-data release of a Gaussian-perturbed linear model (``docs/math/accountant.md#the-mechanism-object``).

    Args:
        d: Model width :math:`d \ge k` (the number of rows of :math:`v`).
        k: Record dimension, an integer :math:`k \ge 1`.
        C: Frobenius-norm bound :math:`C > 0` of the model parameter.
        sensitivity: :math:`\Delta \in (0, 2C]`, the bound on :math:`\|v - w\|_F` between
            neighbouring datasets (more than :math:`2C` is impossible for two parameters of norm
            :math:`\le C`).
        sigma: Noise scale :math:`\sigma > 0` of :math:`V = v + \sigma N`.
        sigma_z: Scale :math:`\sigma_z > 0` of the generator's latent :math:`Z`; the accounting
            does not depend on it (kept so that the mechanism is described in full).
        n_syn: Number of synthetic records, :math:`\ge 1`, or ``inf`` (the default: the Gram
            matrix, i.e. arbitrarily many records).

    Raises:
        ValueError: For arguments outside these ranges.

    Examples:
        The worked example of ``docs/explanation/accounting.md`` (d = 100, k = 1, C = 1,
        Δ = 0.1, σ = 1):

        >>> from fisherrdp.accounting import SyntheticReleaseMechanism
        >>> mech = SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1)
        >>> print(f"{mech.rdp(2.0):.6e} vs model release {mech.model_release_rdp(2.0):.6e}")
        1.776175e-04 vs model release 1.000000e-02
        >>> res = mech.rdp([2.0, 8.0], details=True)
        >>> res.method, res.a.tolist(), res.b.tolist()
        ('exact', [1.0, 1.0], [0.9, 0.9])
    """

    d: float
    k: int
    C: float
    sensitivity: float
    sigma: float = 1.0
    sigma_z: float = 1.0
    n_syn: float = math.inf
    #: Results already computed, per (quantity, argument): see :meth:`_memoized`.
    _memo: dict = dataclasses.field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self):
        require_concrete(HOST_ONLY, **{f.name: getattr(self, f.name)
                                       for f in dataclasses.fields(self) if f.init})
        check_concrete("k", self.k, lower=1, integer=True)
        check_concrete("d", self.d, lower=self.k, allow_nan=False)
        if math.isinf(self.d):
            raise ValueError("argument 'd' must be finite")
        check_concrete("C", self.C, lower=0, lower_inclusive=False, allow_nan=False)
        check_concrete(
            "sensitivity",
            self.sensitivity,
            lower=0,
            lower_inclusive=False,
            upper=2 * self.C,
            allow_nan=False,
        )
        check_concrete("sigma", self.sigma, lower=0, lower_inclusive=False, allow_nan=False)
        check_concrete("sigma_z", self.sigma_z, lower=0, lower_inclusive=False, allow_nan=False)
        check_concrete("n_syn", self.n_syn, lower=1, allow_nan=False)
        for name in ("d", "C", "sensitivity", "sigma", "sigma_z", "n_syn"):
            object.__setattr__(self, name, float(getattr(self, name)))
        object.__setattr__(self, "k", int(self.k))

    # -- derived quantities -------------------------------------------------------------------

    @property
    def norm_bound(self) -> float:
        """:math:`C/\\sigma`, the norm bound in units of the noise."""
        return self.C / self.sigma

    @property
    def scaled_sensitivity(self) -> float:
        """:math:`\\Delta/\\sigma`, the sensitivity in units of the noise."""
        return self.sensitivity / self.sigma

    @property
    def exact(self) -> bool:
        """Whether the accounting is exact (``k == 1``) rather than an upper bound."""
        return self.k == 1

    @property
    def _searchable(self) -> bool:
        """Whether :meth:`worst_pair_search` applies (k ≥ 2, the Gram-matrix release)."""
        return self.k >= 2 and math.isinf(self.n_syn)

    @property
    def _constants(self) -> tuple[float, ...]:
        """The mechanism's arguments of the pair kernels after (x, a, b): d, and finite n_syn."""
        return (self.d,) if math.isinf(self.n_syn) else (self.d, self.n_syn)

    @property
    def _chunk(self) -> int:
        """Points per compiled call of the pair kernels: n_syn = inf, the cheap kernel's
        ``CHUNK``; finite n_syn, ``FINITE_CHUNK``."""
        return CHUNK if math.isinf(self.n_syn) else FINITE_CHUNK

    @property
    def _corner(self) -> tuple[float, float]:
        """The corner pair (C, C − Δ) in units of σ (C − Δ clipped at 0): an admissible pair."""
        return self.norm_bound, self.norm_bound - min(self.scaled_sensitivity, self.norm_bound)

    @property
    def _pair_renyi(self):
        """The Rényi pair kernel ``fn(alpha, a, b, *self._constants)``."""
        return renyi_pair if math.isinf(self.n_syn) else release_renyi_pair

    @property
    def _pair_profile(self):
        """The privacy-profile pair kernel ``fn(eps, a, b, *self._constants)`` (both orders)."""
        return _profile_pair if math.isinf(self.n_syn) else _release_profile_pair

    def _worst_case(self, fn, argument, *, symmetric, method, evidence=True, host=False):
        """sup_over_pairs of a pair kernel, or (``host``) of a host function of (x, a, b)."""
        res = sup_over_pairs(
            fn,
            argument,
            self.norm_bound,
            self.scaled_sensitivity,
            constants=() if host else self._constants,
            symmetric=symmetric,
            evidence=evidence,
            chunk=None if host else self._chunk,
        )
        return dataclasses.replace(res, a=res.a * self.sigma, b=res.b * self.sigma, method=method)

    def _pair_epsilon(self, delta, a, b):
        """Smallest ε with the pair's profile ≤ δ (:func:`_invert_profile` on the chunked
        profile, which shares its compiled kernel with :meth:`privacy_profile`): each round
        fills one chunk with ε's of every δ's bracket."""
        chunk, fn, constants = self._chunk, self._pair_profile, self._constants

        def profile(eps, a, b):
            return map_points(fn, [eps, a, b, *constants], chunk=chunk)[0]

        return _invert_profile(profile, delta, a, b, points=max(1, chunk // np.size(delta)))

    def _exact_epsilon(self, delta: np.ndarray) -> WorstCase:
        """k = 1: invert the corner pair's profile, then confirm with the supremum profile.

        ε(δ) = max over pairs of ε_pair(δ) ≥ ε_corner(δ); if the supremum profile at
        ε_corner(δ) is ≤ δ, every pair meets δ there and equality holds. Otherwise (never seen)
        every pair's profile is inverted on the boundary scan.
        """
        a, b = (np.full(len(delta), x) for x in self._corner)
        eps = self._pair_epsilon(delta, a, b)
        check = self._worst_case(self._pair_profile, eps, symmetric=True, method="exact")
        if np.all(check.values <= delta * (1.0 + 1e-9)):
            return dataclasses.replace(check, argument=delta, values=eps)
        return self._worst_case(
            self._pair_epsilon, delta, symmetric=True, method="exact", host=True
        )

    def _memoized(self, kind: tuple, grid: np.ndarray, compute) -> WorstCase:
        """``compute(grid)``, reusing the rows of earlier calls on this mechanism.

        k = 1: every argument's supremum (value, maximising pair, evidence) is independent of
        the other arguments, so a second :meth:`rdp`, :meth:`privacy_profile` or :meth:`epsilon`
        call computes only the arguments it has not seen and costs a dictionary lookup
        otherwise. k > 1: the closed-form bounds are recomputed (microseconds).
        """
        if not self.exact:
            return compute(grid)
        missing = np.unique([x for x in grid.tolist() if (kind, x) not in self._memo])
        if missing.size:
            res = compute(missing)
            for i, x in enumerate(missing.tolist()):
                self._memo[kind, x] = (
                    res.method, res.values[i], res.a[i], res.b[i], res.at_corner[i],
                    res.interior_max[i],
                )
        rows = [self._memo[kind, x] for x in grid.tolist()]
        columns = [np.array([row[j] for row in rows]) for j in range(1, 6)]
        return WorstCase(grid, columns[0], columns[1], columns[2], rows[0][0], *columns[3:])

    def _bound_rdp(self, alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(bound, which) for k > 1: min of the Fisher path bound and post-processing."""
        path = _fisher_path_bound(alphas, self.d / self.k, self.norm_bound, self.scaled_sensitivity)
        post = 0.5 * alphas * self.scaled_sensitivity**2
        which = {"fisher_path_bound" if p <= q else "postprocessing" for p, q in zip(path, post)}
        label = which.pop() if len(which) == 1 else "min(fisher_path_bound, postprocessing)"
        return np.minimum(path, post), label

    # -- the synthetic release ----------------------------------------------------------------

    def rdp(
        self, alphas: ArrayLike, *, details: bool = False, evidence: bool = True,
        search: bool = True,
    ):
        r"""RDP curve of the synthetic release, :math:`\varepsilon(\alpha) = \sup D_\alpha`.

        .. math::

            \varepsilon(\alpha) = \sup_{\|v\|_F, \|w\|_F \le C,\ \|v - w\|_F \le \Delta}
            \max\bigl(D_\alpha(P_v \| P_w), D_\alpha(P_w \| P_v)\bigr),

        exact for :math:`k = 1` (see the module docstring), a rigorous upper bound for
        :math:`k > 1`. For :math:`k \ge 2` (:math:`n_\mathrm{syn} = \infty`) ``details=True``
        reports the bracket: ``values`` the rigorous upper end, ``attained`` the exact divergence
        at the worst pair found by :meth:`worst_pair_search` (a value attained, not a
        guarantee), and ``method`` labels both ends.

        Args:
            alphas: Orders :math:`\alpha > 1` (scalar or 1-D).
            details: Return a :class:`~fisherrdp._src.accounting.worst_case.WorstCase` with the
                maximising pair (:math:`k = 1`), the evidence for it, and the method.
            evidence: Also evaluate the interior evidence grid (:math:`k = 1`; about half the
                cost; ``interior_max`` is NaN without it).
            search: :math:`k \ge 2` with ``details``: run the search for the bracket's lower end
                (about 10 s per order on 2 CPU cores, memoized; False: the upper end only).

        Returns:
            The RDP values (a float for a scalar order), or the details.

        Raises:
            ValueError: For an order :math:`\le 1`.
        """
        require_concrete(HOST_ONLY, alphas=alphas)
        check_concrete("alphas", alphas, lower=1, lower_inclusive=False, allow_nan=False)
        grid = np.atleast_1d(np.asarray(alphas, np.float64))

        def compute(grid):
            if self.exact:
                return self._worst_case(
                    self._pair_renyi, grid, symmetric=False, method="exact", evidence=evidence
                )
            values, label = self._bound_rdp(grid)
            return _bound_result(grid, values, values, label=label)

        res = self._memoized(("rdp", evidence), grid, compute)
        if details and search and self._searchable:
            found = self.worst_pair_search(grid)
            res = dataclasses.replace(
                res,
                attained=found.values,
                method=f"bracket: [search (attained), {res.method} (rigorous upper)]",
            )
        return res if details else _shaped(res.values, alphas)

    def privacy_profile(self, eps: ArrayLike, *, details: bool = False):
        r"""Privacy profile :math:`\delta(\varepsilon)` of the synthetic release.

        For :math:`k = 1` the exact supremum over admissible pairs of
        :math:`\max(E_{e^\varepsilon}(P_v\|P_w), E_{e^\varepsilon}(P_w\|P_v))`; for :math:`k > 1`
        the smaller of the δ that the RDP bound implies (Balle et al. 2020, Thm. 21, minimised
        over ``CONVERSION_ALPHAS``) and the model release's exact profile (post-processing).

        Args:
            eps: :math:`\varepsilon \ge 0` (scalar or 1-D).
            details: Return the :class:`WorstCase` (see :meth:`rdp`).

        Returns:
            δ(ε) (a float for a scalar ε), or the details.
        """
        require_concrete(HOST_ONLY, eps=eps)
        check_concrete("eps", eps, lower=0, allow_nan=False)
        grid = np.atleast_1d(np.asarray(eps, np.float64))

        def compute(grid):
            if self.exact:
                return self._worst_case(self._pair_profile, grid, symmetric=True, method="exact")
            rdp, _ = self._bound_rdp(CONVERSION_ALPHAS)
            a = CONVERSION_ALPHAS[None, :]
            log_delta = (a - 1) * (rdp[None, :] - grid[:, None] + np.log1p(-1 / a)) - np.log(a)
            converted = np.exp(np.minimum(log_delta.min(axis=1), 0.0))
            model = np.atleast_1d(self.model_release_privacy_profile(grid))
            return _bound_result(grid, converted, model)

        res = self._memoized(("privacy_profile",), grid, compute)
        return res if details else _shaped(res.values, eps)

    def epsilon(self, delta: ArrayLike, *, details: bool = False):
        r"""Smallest ε for which the synthetic release is :math:`(\varepsilon, \delta)`-DP.

        For :math:`k = 1`, :math:`\varepsilon(\delta) = \sup_{\text{pairs}} \varepsilon_{a,b}(\delta)`
        (every profile is non-increasing): the corner pair's profile is inverted exactly and the
        supremum profile at that ε is confirmed to be :math:`\le \delta`, which proves the
        equality (otherwise every pair is inverted). For :math:`k > 1`, the smaller of
        :func:`rdp_to_dp` of the RDP bound on ``CONVERSION_ALPHAS`` and the model release's
        exact ε (post-processing).

        Args:
            delta: :math:`\delta \in (0, 1)` (scalar or 1-D).
            details: Return the :class:`WorstCase` (see :meth:`rdp`).

        Returns:
            ε (a float for a scalar δ), or the details.
        """
        _check_probability("delta", delta)
        grid = np.atleast_1d(np.asarray(delta, np.float64))

        def compute(grid):
            if self.exact:
                return self._exact_epsilon(grid)
            rdp, _ = self._bound_rdp(CONVERSION_ALPHAS)
            converted = np.array([rdp_to_dp(CONVERSION_ALPHAS, rdp, x)[0] for x in grid])
            model = np.atleast_1d(self.model_release_epsilon(grid))
            return _bound_result(grid, converted, model)

        res = self._memoized(("epsilon",), grid, compute)
        return res if details else _shaped(res.values, delta)

    def epsilon_via_rdp(
        self, delta: float, alphas: ArrayLike, *, method: str = "balle2020"
    ) -> tuple[float, float]:
        r"""The (ε, δ) guarantee that the RDP curve implies on a grid of orders.

        .. math::

            \varepsilon = \min_{\alpha} \varepsilon_{\mathrm{conv}}\bigl(\alpha,
            \varepsilon_R(\alpha)\bigr), \qquad \varepsilon_R = \text{:meth:`rdp`},

        equal to ``rdp_to_dp(alphas, self.rdp(alphas), delta, method=method)``
        (:func:`~fisherrdp.accounting.rdp_to_dp`) and never below :meth:`epsilon`, the exact
        ε. For k = 1 it evaluates fewer divergences: the corner pair
        :math:`\{C, C - \Delta\}` is admissible, so its divergence is a lower bound of
        :math:`\varepsilon_R(\alpha)`, and the conversion increases with
        :math:`\varepsilon_R`; the supremum over pairs is computed only at the orders whose
        corner conversion is below the best ε found so far, taken in increasing order of it
        (one order where the corner is the worst pair), the others cannot attain the minimum.

        Args:
            delta: :math:`\delta \in (0, 1)`, a scalar.
            alphas: Orders :math:`\alpha > 1`, 1-D (the grid of the conversion).
            method: The conversion, as in :func:`~fisherrdp.accounting.rdp_to_dp`.

        Returns:
            ``(epsilon, optimal_alpha)``, as :func:`~fisherrdp.accounting.rdp_to_dp` returns.

        Raises:
            ValueError: For an order :math:`\le 1`, δ outside (0, 1) or an unknown ``method``.

        Examples:
            >>> import numpy as np
            >>> from fisherrdp.accounting import SyntheticReleaseMechanism, rdp_to_dp
            >>> mech = SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1)
            >>> alphas = 1.0 + np.geomspace(0.05, 4095.0, 64)
            >>> eps, alpha = mech.epsilon_via_rdp(1e-5, alphas)
            >>> print(f"{eps:.6f} at alpha = {alpha:.1f}")
            0.049915 at alpha = 194.4
            >>> bool(eps >= mech.epsilon(1e-5))
            True
        """
        require_concrete(HOST_ONLY, alphas=alphas)
        check_concrete("alphas", alphas, lower=1, lower_inclusive=False, allow_nan=False)
        _check_probability("delta", delta)
        grid = np.atleast_1d(np.asarray(alphas, np.float64))
        delta = float(delta)
        if not self.exact:
            return rdp_to_dp(grid, np.asarray(self.rdp(grid)), delta, method=method)

        def convert(x, r):
            return rdp_to_dp(x, r, delta, method=method)[0]

        (c, low), n = self._corner, len(grid)
        (both,) = map_points(
            self._pair_renyi,
            [np.tile(grid, 2), np.repeat([c, low], n), np.repeat([low, c], n), *self._constants],
            chunk=self._chunk,
        )
        values = np.maximum(both[:n], both[n:])  # the corner: a lower bound of the supremum
        lower = np.array([convert(x, r) for x, r in zip(grid, values)])
        best = np.inf
        for i in np.argsort(lower, kind="stable"):
            if lower[i] > best:
                break
            values[i] = self.rdp(grid[i], evidence=False)
            best = min(best, convert(grid[i], values[i]))
        return rdp_to_dp(grid, values, delta, method=method)

    def worst_pair_search(self, alphas: ArrayLike) -> PairSearch:
        r"""k ≥ 2: the exact divergence at the worst admissible pair a search finds.

        A **lower** bound on the RDP curve (the true :math:`\varepsilon(\alpha)` lies between it
        and :meth:`rdp`, the rigorous upper bound): the exact
        :func:`fisherrdp.divergences.renyi_ncwishart` at the worst pair found by
        :func:`fisherrdp._src.accounting.wishart_search.search_worst_pair` in the reduced
        coordinates ``(A, B) = (vᵀv, wᵀw)`` (``docs/math/worst_pair.md``): starts from every
        family (the collinear corner and the exact k = 1 maximiser, rotated equal-norm rank-one
        pairs, orthogonal pairs, rank-two pairs) and gradient climbs (``jax.grad`` of the exact
        divergence) from the best of each. The pair is reported as matrices (``v``, ``w``) and
        reduced (``gram_v`` diagonal, ``gram_w``), with the family that won. A value found is
        not a guarantee. Results are memoized per order.

        For :math:`k \ge 3` the search runs over the pairs whose means lie in the first two
        columns (``v``, ``w``, ``gram_v`` and ``gram_w`` zero-padded to :math:`k \times k`): they
        are admissible, and their divergence is the :math:`k = 2` one exactly — the density
        ratio of two non-central Wishart laws whose non-centralities vanish outside the leading
        2 × 2 block depends on :math:`Y` only through that block of :math:`Y`
        (``docs/math/worst_pair.md#k-of-3-or-more-the-pairs-in-two-columns``). Pairs of rank 3
        or more are not searched: a lower end, still.

        Args:
            alphas: Orders :math:`\alpha > 1` (scalar or 1-D).

        Returns:
            A :class:`~fisherrdp._src.accounting.wishart_search.PairSearch`.

        Raises:
            ValueError: For :math:`k = 1` (exact: :meth:`rdp`), finite ``n_syn``, or an order
                :math:`\le 1`.
        """
        if self.k < 2:
            raise ValueError(
                f"worst_pair_search needs k >= 2 (k = 1 is exact: use rdp), got k = {self.k}"
            )
        if not math.isinf(self.n_syn):
            raise ValueError("worst_pair_search needs n_syn = inf (the Gram-matrix release)")
        require_concrete(HOST_ONLY, alphas=alphas)
        check_concrete("alphas", alphas, lower=1, lower_inclusive=False, allow_nan=False)
        grid = np.atleast_1d(np.asarray(alphas, np.float64))
        missing = np.unique([x for x in grid.tolist() if ("search", x) not in self._memo])
        if missing.size:
            rank_one = SyntheticReleaseMechanism(
                self.d, 1, self.C, self.sensitivity, self.sigma, self.sigma_z
            ).rdp(missing, details=True, evidence=False)
            found = search_worst_pair(
                missing,
                self.d,
                self.norm_bound,
                self.scaled_sensitivity,
                collinear=sorted(set(zip(rank_one.a / self.sigma, rank_one.b / self.sigma))),
                sigma=self.sigma,
            )
            for i, x in enumerate(missing.tolist()):
                self._memo["search", x] = found, i
        parts = [self._memo["search", x] for x in grid.tolist()]
        scalars = ("evaluations", "climb_steps")
        fields = {
            f.name: np.stack([getattr(res, f.name)[i] for res, i in parts])
            for f in dataclasses.fields(PairSearch)
            if f.name not in scalars
        }
        if self.k > 2:  # the pair in two columns, zero-padded to k × k
            pad = ((0, 0), (0, self.k - 2), (0, self.k - 2))
            for name in ("v", "w", "gram_v", "gram_w"):
                fields[name] = np.pad(fields[name], pad)
        return PairSearch(
            **fields, **{name: max(getattr(res, name) for res, _ in parts) for name in scalars}
        )

    # -- the model release (Gaussian mechanism) ------------------------------------------------

    def model_release_rdp(self, alphas: ArrayLike):
        r"""RDP of releasing :math:`V` itself: :math:`\alpha\Delta^2/(2\sigma^2)`."""
        return gaussian_rdp(alphas, self.sensitivity, self.sigma)

    def model_release_privacy_profile(self, eps: ArrayLike):
        r"""Exact privacy profile of releasing :math:`V` (Balle and Wang 2018)."""
        return gaussian_privacy_profile(eps, self.sensitivity, self.sigma)

    def model_release_epsilon(self, delta: ArrayLike):
        r"""Exact ε(δ) of releasing :math:`V` (analytic Gaussian mechanism)."""
        return gaussian_epsilon(delta, self.sensitivity, self.sigma)


def _bound_result(grid, converted, model, *, label: str | None = None) -> WorstCase:
    """k > 1: the smaller of the RDP-converted and the model-release values, without a pair."""
    if label is None:
        wins = converted <= model
        if wins.all():
            label = "rdp_conversion"
        elif not wins.any():
            label = "model_release_profile"
        else:
            label = "min(rdp_conversion, model_release_profile)"
    nan = np.full(len(grid), np.nan)
    values = np.minimum(converted, model)
    return WorstCase(grid, values, nan, nan, label, np.zeros(len(grid), bool), nan)


def _shaped(values: np.ndarray, like) -> float | np.ndarray:
    return as_output(values.reshape(np.shape(like)))


def _fisher_path_bound(alphas, m, c, gap):
    r"""Prop. 3.2 with √I ≤ √min(1, 2c²/(2c² + ⌊m⌋ − 3)) and D_{2α−1} ≤ (2α−1)t²/2, exactly.

    :math:`\frac{1}{\alpha-1}\log(1 + \alpha\sqrt{F}\int_0^{\Delta} e^{s t^2} dt)`, the integral
    as :math:`e^{s\Delta^2} F_D(\Delta\sqrt s)/\sqrt s` (Dawson's function), in log space.
    """
    alphas = np.asarray(alphas, np.float64)
    m = math.floor(m)
    fisher = 1.0 if m <= 3 else min(1.0, 2 * c * c / (2 * c * c + m - 3))
    s = 0.5 * (alphas - 1.0) * (2.0 * alphas - 1.0)
    root = np.sqrt(s)
    log_integral = s * gap * gap + np.log(special.dawsn(gap * root)) - np.log(root)
    log_y = np.log(alphas) + 0.5 * math.log(fisher) + log_integral
    return np.logaddexp(0.0, log_y) / (alphas - 1.0)


def _invert_profile(profile, delta, a, b, *, points):
    """Smallest ε ≥ 0 with profile(ε, a, b) ≤ δ, elementwise (the profile is non-increasing).

    One call of ``profile`` per round, on ``points`` values of ε per element: first ε = 0 and
    2^0 … 2^``EPS_MAX_LOG2``, which bracket ε(δ) by a power of two; then, each round, ``points``
    equispaced ε in a window about the estimate of ε(δ) by linear interpolation of log profile
    across the bracket (of the profile where a log is infinite) — the whole bracket in the first
    round, then ``WINDOW_SCALE`` times the last correction of the estimate, within the bracket
    — until the bracket is within ``RTOL`` (at most ``INVERT_ROUNDS`` rounds). Each round keeps
    the cell where the profile falls to δ, so the bracket shrinks every round (where ε(δ) was
    outside the window, the next window is the whole bracket), and the window makes it shrink
    superlinearly once the estimate converges. Returns the bracket's upper end, where
    profile ≤ δ was evaluated.

    Raises:
        ValueError: Where even ε = 2^``EPS_MAX_LOG2`` leaves the profile above δ.
    """
    delta, a, b = (np.asarray(x, np.float64) for x in np.broadcast_arrays(delta, a, b))
    n = delta.size
    rows = np.arange(n)

    def values(eps):  # (n, m) ε → profile(ε)
        m = eps.shape[1]
        return np.asarray(profile(eps.ravel(), np.repeat(a, m), np.repeat(b, m))).reshape(n, m)

    def cell(eps, f, lo, hi, f_lo, f_hi):
        """The cell of [lo, eps…, hi] where the profile falls to δ, and its end values."""
        eps = np.concatenate([lo[:, None], eps, hi[:, None]], axis=1)
        f = np.concatenate([f_lo[:, None], f, f_hi[:, None]], axis=1)
        ok = f <= delta[:, None]
        ok[:, -1] = True
        first = np.maximum(np.argmax(ok, axis=1), 1)
        return eps[rows, first - 1], eps[rows, first], f[rows, first - 1], f[rows, first]

    grid = np.concatenate([[0.0], 2.0 ** np.arange(EPS_MAX_LOG2 + 1)])
    f = values(np.broadcast_to(grid, (n, grid.size)))
    meets = f[:, -1] <= delta
    if not meets.all():
        raise ValueError(
            f"argument 'delta': no ε ≤ 2^{EPS_MAX_LOG2} meets delta = "
            f"{delta[~meets].tolist()} (the release is not (ε, δ)-DP for any such ε)"
        )
    lo, hi, f_lo, f_hi = cell(np.broadcast_to(grid[1:-1], (n, grid.size - 2)), f[:, 1:-1],
                              np.zeros(n), np.full(n, grid[-1]), f[:, 0], f[:, -1])
    estimate, half = np.full(n, np.nan), 0.5 * (hi - lo)
    steps = np.linspace(-1.0, 1.0, points) if points > 1 else np.zeros(1)
    for _ in range(INVERT_ROUNDS):
        if np.all(hi - lo <= RTOL * hi):
            return hi
        with np.errstate(divide="ignore", invalid="ignore"):
            g_lo, g_hi, g = np.log(f_lo), np.log(f_hi), np.log(delta)
            by_log = (g_lo - g) / (g_lo - g_hi)
            by_value = (f_lo - delta) / (f_lo - f_hi)
        fraction = np.where((f_hi > 0.0) & np.isfinite(by_log), by_log, by_value)
        fraction = np.where(np.isfinite(fraction), np.clip(fraction, 0.0, 1.0), 0.5)
        new = lo + fraction * (hi - lo)
        window = np.clip(WINDOW_SCALE * np.abs(new - estimate), 0.25 * RTOL * hi, half)
        half = np.where(np.isnan(estimate), half, window)
        estimate = new
        centre = np.clip(estimate, lo + half, hi - half)
        eps = np.clip(centre[:, None] + half[:, None] * steps, lo[:, None], hi[:, None])
        lo, hi, f_lo, f_hi = cell(eps, values(eps), lo, hi, f_lo, f_hi)
        # ε(δ) outside the window: the interpolation failed; the next window is the bracket.
        missed = (lo < eps[:, 0]) | (hi > eps[:, -1])
        estimate = np.where(missed, np.nan, estimate)
        half = np.where(missed, 0.5 * (hi - lo), np.minimum(half, 0.5 * (hi - lo)))
    raise RuntimeError(f"_invert_profile: not within {RTOL} after {INVERT_ROUNDS} rounds")


# ----------------------------------------------------------------------------------------------
# Noise calibration


@dataclasses.dataclass(frozen=True)
class Calibration:
    """Noise needed for a target :math:`(\\varepsilon, \\delta)`.

    Attributes:
        epsilon: Target ε.
        delta: Target δ.
        sigma: Smallest σ for which the synthetic release is (ε, δ)-DP.
        sigma_model: Smallest σ for which the model release is (ε, δ)-DP.
        mechanism: The synthetic-release mechanism at ``sigma``.
    """

    epsilon: float
    delta: float
    sigma: float
    sigma_model: float
    mechanism: SyntheticReleaseMechanism

    @property
    def ratio(self) -> float:
        """``sigma / sigma_model``: the fraction of the model release's noise that suffices."""
        return self.sigma / self.sigma_model


def calibrate_sigma(
    target_epsilon: float,
    target_delta: float,
    d: float,
    k: int,
    C: float,
    sensitivity: float,
    *,
    sigma_z: float = 1.0,
    n_syn: float = math.inf,
) -> Calibration:
    r"""Smallest noise σ for which the synthetic release meets :math:`(\varepsilon, \delta)`.

    Solves :math:`\delta_\sigma(\varepsilon) = \delta` in :math:`\log\sigma` by Brent's method
    (to ~1e-12 relative), where :math:`\delta_\sigma` is the privacy profile of
    :class:`SyntheticReleaseMechanism` at noise σ, non-increasing in σ (for
    :math:`n_\mathrm{syn} = \infty` because :math:`\|v + \sigma' N\|^2`, :math:`\sigma' > \sigma`, is
    a randomised function of :math:`\|v + \sigma N\|^2`; for finite :math:`n_\mathrm{syn}` it is
    checked at the bracket's ends). The model release's σ (exact Gaussian profile) is found
    the same way and bounds the answer from above: the synthetic release is post-processing of
    the model release. For :math:`k = 1` the worst pair is searched at every step.

    Args:
        target_epsilon: ε ≥ 0.
        target_delta: δ ∈ (0, 1).
        d, k, C, sensitivity, sigma_z, n_syn: As :class:`SyntheticReleaseMechanism`.

    Returns:
        A :class:`Calibration`.

    Raises:
        ValueError: For arguments out of range.

    Examples:
        >>> from fisherrdp.accounting import calibrate_sigma
        >>> cal = calibrate_sigma(1.0, 1e-5, d=100, k=1, C=1.0, sensitivity=0.1)
        >>> print(f"sigma = {cal.sigma:.4f} (model release {cal.sigma_model:.4f})")
        sigma = 0.2166 (model release 0.3731)
    """
    require_concrete(HOST_ONLY, target_epsilon=target_epsilon)
    check_concrete("target_epsilon", target_epsilon, lower=0, allow_nan=False)
    _check_probability("target_delta", target_delta)
    mech0 = SyntheticReleaseMechanism(d, k, C, sensitivity, 1.0, sigma_z, n_syn)
    eps, log_delta = float(target_epsilon), math.log(target_delta)

    def mechanism(sigma: float) -> SyntheticReleaseMechanism:
        return dataclasses.replace(mech0, sigma=sigma)

    def excess_model(log_sigma: float) -> float:
        return (
            math.log(
                max(
                    gaussian_privacy_profile(eps, sensitivity, math.exp(log_sigma)),
                    1e-300,
                )
            )
            - log_delta
        )

    def excess(log_sigma: float) -> float:
        value = float(mechanism(math.exp(log_sigma)).privacy_profile(eps))
        return math.log(max(value, 1e-300)) - log_delta

    log_model = _solve_decreasing(excess_model, math.log(sensitivity))
    sigma_model = math.exp(log_model)
    if excess(log_model) <= 0.0:
        log_sigma = _solve_decreasing(excess, log_model, upper=log_model)
    else:  # cannot happen for a valid bound; kept as a safeguard against rounding
        log_sigma = log_model
    sigma = math.exp(log_sigma)
    return Calibration(eps, float(target_delta), sigma, sigma_model, mechanism(sigma))


def _solve_decreasing(f, start: float, *, upper: float | None = None) -> float:
    """Root of a non-increasing function of log σ: bracket by steps of log 2 (at most
    ``SIGMA_BRACKET`` from ``start``: σ within a factor e^200), then Brent."""
    lo = hi = start
    if upper is None:
        while f(hi) > 0.0:
            hi += math.log(4.0)
            if hi > start + SIGMA_BRACKET:
                raise ValueError(
                    "calibrate_sigma: no noise scale up to e^200 times the sensitivity meets the "
                    "target (a target_delta below 1e-300 cannot be resolved)"
                )
    lo = hi - math.log(2.0)
    while f(lo) <= 0.0:
        lo -= math.log(2.0)
        if lo < hi - SIGMA_BRACKET:
            raise RuntimeError("calibrate_sigma: the target is met for every noise scale tried")
    return optimize.brentq(f, lo, hi, xtol=1e-14, rtol=RTOL)

r"""Variational estimates against the paper's bounds, for ``fisherrdp verify --variational``.

The rows of kind ``variational`` in :mod:`fisherrdp._src.checks.statements` compare estimates that use
**samples only** (:func:`fisherrdp.variational.estimate_fisher`,
:func:`fisherrdp.variational.estimate_renyi`: trained test functions, 95% intervals) with the
closed-form bounds and, for k = 1, with the exact values. Both estimators are lower values up
to sampling error (a fixed test function gives at most the supremum), so an interval lying
entirely above a bound (its lower end ``ci_low`` above the bound) contradicts the bound; an
interval below a bound or an exact value is what an unconverged estimate gives and is no
contradiction. The rows:

* k = 1, Fisher information of :math:`\theta \mapsto \chi^2_d(\theta^2)`, the law of the
  sufficient statistic :math:`\|V\|^2` of the model release at :math:`n_{\mathrm{syn}} = \infty`
  (:math:`V = \theta e_1 + N` in :math:`\mathbb R^d`): :math:`\hat I` against Prop 5.1's
  :math:`2\theta^2/(2\theta^2 + d - 3)` (:func:`fisherrdp.bounds.fisher_upper_prop51`) and the
  exact :math:`I` (:func:`fisherrdp.fisher.ncx2_amplitude_fisher`). Draws:
  :math:`\|V\|^2 = (\theta + N_1)^2 + 2\,\Gamma((d-1)/2)` (the gamma term is 0 for d = 1),
  feature :math:`\log\|V\|^2` (:func:`ncx2_path_sample`).
* k = 1, :math:`\hat D_\alpha(\chi^2_d(a^2)\,\|\,\chi^2_d(b^2))` for the pairs
  :math:`(a, b) = (C, \max(C - \Delta, 0))` and the reverse (as the exact rows): against the
  Prop 3.2 path bound with the exact :math:`\sqrt I`, Theorem 5.2 re-derived
  (:func:`fisherrdp.bounds.theorem52_bound`) and the exact value
  (:func:`fisherrdp.divergences.renyi_ncx2`). Same draws and feature
  (:func:`ncx2_sample_p`, :func:`ncx2_sample_q`).
* k = 2, 3: the law of :math:`V^\top V`, :math:`V = \mu + N` (:math:`d \times k`), for the pairs
  :math:`(v, w)` of :func:`fisherrdp._src.checks.wishart.wishart_pairs`. Fisher information
  along :math:`\mu(\theta) = (1-\theta)v + \theta Uw` (:math:`U` the Procrustes rotation)
  against Theorem 5.3 re-derived (:func:`fisherrdp.bounds.theorem53_fisher_bound`, with
  :math:`\|Uw - v\|_F^2`, :math:`\rho = \|\mu(\theta)\|_F`, :math:`m = \lfloor d/k\rfloor`);
  :math:`\hat D_\alpha(\operatorname{law} V^\top V\,\|\,\operatorname{law} W^\top W)` in both
  orders against Theorem 5.4 re-derived (:func:`fisherrdp.bounds.theorem54_bound`) and
  post-processing :math:`\alpha\Delta^2/2` (:func:`fisherrdp.bounds.gaussian_renyi`).

**Reduced Wishart draws.** With :math:`B` (:math:`d \times r`) orthonormal columns spanning
the columns of both means (:func:`reduced_means`; :math:`r \le 2k`),
:math:`V^\top V = (c + N_r)^\top (c + N_r) + S` in law, :math:`c = B^\top\mu` (:math:`r \times
k`) and :math:`S = N_{d-r}^\top N_{d-r} \sim W_k(d - r, I)` independent of :math:`\mu`, drawn
as :math:`AA^\top` with the Bartlett factor :math:`A` (:func:`gram_draws`). So a draw costs
:math:`O(rk^2)`, not :math:`O(dk^2)`, and :math:`d` enters only through the traced degrees of
freedom. :math:`r` is raised to at least :math:`k`, and to :math:`d` where :math:`d - r < k`
(then :math:`S = 0`), so that the Bartlett factor is defined; points with the same
:math:`(k, r)` train together whatever :math:`d`. Features: the log-Cholesky coordinates of
:math:`V^\top V` (:math:`\log D_i`, :math:`L_{ij}` of :math:`LDL^\top`, an injective smooth
map to :math:`\mathbb R^{k(k+1)/2}`; :func:`fisherrdp._src.release.samplers.log_cholesky`).

**Batching.** Each family (k = 1 Fisher, k = 1 Rényi, and per :math:`(k, r)` group the Wishart
Fisher and Rényi points) is one estimator call: its points train together, vmapped over
networks. The samplers are module-level functions, so repeated runs reuse compiled code.
Keys: ``jax.random.fold_in(jax.random.key(seed), family)``, and per group; a run is
deterministic.

**Constants.** The default grid is the issue's (k = 1 Fisher: d ∈ {2, 10, 100}, θ ∈ {0.3, 1,
3}; k = 1 Rényi: d ∈ {2, 10}, C ∈ {1, 3}, Δ = 0.5, α ∈ {2, 4}; k > 1: scaled and rank-two
pairs with C = 1, Δ = 0.75, (k, d) ∈ {(2, 4), (2, 48), (3, 48)}, θ ∈ {0, 0.5, 1},
α ∈ {2, 4}); the estimator knobs (500 steps, 3 members, hidden (32,), batches of 512,
100 000 held-out draws) were chosen to keep ``fisherrdp verify --variational --only
variational`` within 10 minutes on 2 CPU cores (1000 steps with batches of 1024 took about
16 min). Default grid: 493 s on 2 cores (measured 2026-12-02, cold compilation cache, the cores shared
with other jobs at load 3–4, which inflates times about 2×; 237 s with a warm cache; about half
of the cold time is compilation, six estimator calls). Result at seed 0: no violations, 5 of
67 estimates flagged unreliable, 9 of 9 Fisher and 13 of 16 Rényi intervals covering the
exact value (the other three lie below it: estimates low, as variational values can be).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from fisherrdp._src.checks.wishart import WishartGrid, wishart_pairs
from fisherrdp._src.numerics.linalg import procrustes
from fisherrdp._src.release.samplers import bartlett, log_cholesky

__all__ = [
    "WISHART_GRID",
    "VariationalGrid",
    "gram_draws",
    "gram_path_sample",
    "gram_sample_p",
    "gram_sample_q",
    "k1_fisher_estimates",
    "k1_renyi_estimates",
    "ncx2_path_sample",
    "ncx2_sample_p",
    "ncx2_sample_q",
    "reduced_means",
    "wishart_fisher_rows",
    "wishart_renyi_rows",
]

#: Draws per call of the Rényi samplers (``estimate_renyi`` calls them as often as it needs).
DRAWS_PER_CALL = 1024
#: Singular values of the stacked means below this fraction of the largest span no direction.
RANK_RTOL = 1e-10


#: The default k > 1 pairs, path points and orders (module docstring).
WISHART_GRID = WishartGrid(
    dims=((2, 4), (2, 48), (3, 48)),
    delta=(0.75,),
    pairs=("scaled", "rank_two"),
    theta=(0.0, 0.5, 1.0),
    alpha=(2.0, 4.0),
)


@dataclasses.dataclass(frozen=True)
class VariationalGrid:
    """The grid and estimator knobs of the ``variational`` rows (module docstring).

    Attributes:
        fisher_d: Dimensions of the k = 1 Fisher points, ``>= 1``.
        fisher_theta: θ of the k = 1 Fisher points, ``> 0``.
        renyi_d: Dimensions of the k = 1 Rényi pairs, ``>= 1``.
        renyi_C: Norm bounds C of the k = 1 pairs (C, max(C − Δ, 0)), ``> 0``.
        renyi_delta: Sensitivities Δ of the k = 1 pairs, ``> 0``.
        alpha: Rényi orders of the k = 1 rows, ``> 1``.
        wishart: The k > 1 pairs (``dims``, ``C``, ``delta``, ``pairs``), path points
            (``theta``) and orders (``alpha``); its ``n_samples`` is not used.
        steps: Training steps per estimator call, ``>= 1``.
        members: Networks per point, ``>= 1``.
        hidden: Hidden-layer widths, each ``>= 1``.
        batch_size: Draws per point per training step, ``>= 2``.
        n_eval: Held-out draws per point, ``>= 2``.
        seed: Seed of the estimator keys, ``>= 0``.
    """

    fisher_d: tuple[float, ...] = (2.0, 10.0, 100.0)
    fisher_theta: tuple[float, ...] = (0.3, 1.0, 3.0)
    renyi_d: tuple[float, ...] = (2.0, 10.0)
    renyi_C: tuple[float, ...] = (1.0, 3.0)
    renyi_delta: tuple[float, ...] = (0.5,)
    alpha: tuple[float, ...] = (2.0, 4.0)
    wishart: WishartGrid = WISHART_GRID
    steps: int = 500
    members: int = 3
    hidden: tuple[int, ...] = (32,)
    batch_size: int = 512
    n_eval: int = 100_000
    seed: int = 0

    def __post_init__(self):
        for name, lower, strict in (
            ("fisher_d", 1.0, False),
            ("fisher_theta", 0.0, True),
            ("renyi_d", 1.0, False),
            ("renyi_C", 0.0, True),
            ("renyi_delta", 0.0, True),
            ("alpha", 1.0, True),
        ):
            values = getattr(self, name)
            if len(values) == 0:
                raise ValueError(f"variational grid {name!r} is empty")
            if not all(math.isfinite(v) and (v > lower if strict else v >= lower) for v in values):
                op = ">" if strict else ">="
                raise ValueError(
                    f"variational grid {name!r} values must be finite and {op} {lower:g}, "
                    f"got {values}"
                )
        for name, lower in (
            ("steps", 1),
            ("members", 1),
            ("batch_size", 2),
            ("n_eval", 2),
            ("seed", 0),
        ):
            value = getattr(self, name)
            if int(value) != value or value < lower:
                raise ValueError(
                    f"variational grid {name!r} must be an integer >= {lower}, got {value}"
                )
        if any(int(h) != h or h < 1 for h in self.hidden):
            raise ValueError(
                f"variational grid 'hidden' must be positive integer widths, got {self.hidden}"
            )

    @property
    def knobs(self) -> dict:
        """The estimator keyword arguments."""
        return {
            "steps": int(self.steps),
            "members": int(self.members),
            "hidden": tuple(int(h) for h in self.hidden),
            "batch_size": int(self.batch_size),
            "n_eval": int(self.n_eval),
        }

    def key(self, family: int) -> jax.Array:
        """The key of one estimator family (0: k = 1 Fisher, 1: k = 1 Rényi, 2, 3: k > 1)."""
        return jax.random.fold_in(jax.random.key(self.seed), family)


# ----------------------------------------------------------------------------------------------
# Samplers: reparameterised, their parameters traced (points with different d train together).


def _log_ncx2(key: jax.Array, d: jax.Array, amplitude: jax.Array, n: int) -> jax.Array:
    """(n, 1) draws of log χ²_d(amplitude²) = log((amplitude + N₁)² + 2Γ((d − 1)/2))."""
    dtype = jnp.result_type(float)
    k_normal, k_gamma = jax.random.split(key)
    shape = 0.5 * (d - 1.0)
    rest = 2.0 * jax.random.gamma(k_gamma, jnp.where(shape > 0, shape, 1.0), (n,), dtype)
    x = amplitude + jax.random.normal(k_normal, (n,), dtype)
    return jnp.log(x * x + jnp.where(shape > 0, rest, 0.0))[:, None]


def ncx2_path_sample(key: jax.Array, theta: jax.Array, n: int, d: jax.Array) -> jax.Array:
    r"""``n`` features :math:`\log\|V\|^2`, :math:`\|V\|^2 \sim \chi^2_d(\theta^2)`, shape (n, 1).

    The sampler of the k = 1 Fisher rows: :math:`\|V\|^2 = (\theta + N_1)^2 + 2\,\Gamma((d -
    1)/2)`, differentiable in θ for a fixed key; ``d >= 1`` may be traced (real values give
    the non-central χ² law with real degrees of freedom).

    Args:
        key: A ``jax.random`` key.
        theta: The amplitude θ (a scalar).
        n: Number of draws (static).
        d: The dimension (a scalar).

    Returns:
        Array of shape ``(n, 1)``.
    """
    return _log_ncx2(key, d, theta, n)


def ncx2_sample_p(key: jax.Array, d: jax.Array, a: jax.Array, b: jax.Array) -> jax.Array:
    """``DRAWS_PER_CALL`` features of χ²_d(a²) (the P law of the k = 1 Rényi rows)."""
    return _log_ncx2(key, d, a, DRAWS_PER_CALL)


def ncx2_sample_q(key: jax.Array, d: jax.Array, a: jax.Array, b: jax.Array) -> jax.Array:
    """``DRAWS_PER_CALL`` features of χ²_d(b²) (the Q law of the k = 1 Rényi rows)."""
    return _log_ncx2(key, d, b, DRAWS_PER_CALL)


def reduced_means(*means: np.ndarray) -> tuple[list[np.ndarray], float]:
    r"""Coordinates :math:`B^\top m` of ``d × k`` means in an orthonormal basis of their span.

    :math:`B` holds the leading left singular vectors of the stacked means, :math:`r` of them
    with :math:`\max(\operatorname{rank}, k) \le r \le d`: raised to :math:`k`, and to
    :math:`d` where fewer than :math:`k` directions would remain for the Wishart part
    (module docstring).

    Args:
        *means: Arrays of shape ``(d, k)``, not all zero.

    Returns:
        ``(coordinates, dof)``: the ``(r, k)`` arrays :math:`B^\top m` and ``dof`` = d − r, the
        degrees of freedom of the independent :math:`W_k(d - r, I)` part (0 or ``>= k``).

    Raises:
        ValueError: If the means' shapes differ or all means are zero.
    """
    shapes = {np.shape(m) for m in means}
    if len(shapes) != 1 or len(next(iter(shapes))) != 2:
        raise ValueError(f"argument 'means' must be arrays of one shape (d, k), got {shapes}")
    d, k = next(iter(shapes))
    u, s, _ = np.linalg.svd(np.concatenate(means, axis=1), full_matrices=True)
    if not s[0] > 0:
        raise ValueError("argument 'means' must not all be zero")
    r = max(int(np.sum(s > RANK_RTOL * s[0])), k)
    if d - r < k:
        r = d
    basis = u[:, :r]
    return [basis.T @ np.asarray(m, float) for m in means], float(d - r)


def gram_draws(key: jax.Array, c: jax.Array, dof: jax.Array, n: int) -> jax.Array:
    r"""``n`` draws of :math:`(c + N)^\top (c + N) + S`, :math:`S \sim W_k(\mathrm{dof}, I)`.

    The law of :math:`V^\top V`, :math:`V = \mu + N`, for :math:`c = B^\top\mu` and
    ``dof`` = d − r (:func:`reduced_means`); :math:`S = AA^\top` with the Bartlett factor
    :math:`A`, and :math:`S = 0` where ``dof < k`` (``dof = 0``). Differentiable in ``c``.

    Args:
        key: A ``jax.random`` key.
        c: The reduced mean, shape ``(r, k)``.
        dof: Degrees of freedom of the Wishart part, 0 or ``>= k`` (a scalar, may be traced).
        n: Number of draws (static).

    Returns:
        Array of shape ``(n, k, k)``.
    """
    r, k = c.shape
    k_normal, k_wishart = jax.random.split(key)
    x = c + jax.random.normal(k_normal, (n, r, k), c.dtype)
    full = dof >= k
    a = bartlett(k_wishart, jnp.where(full, dof, k).astype(c.dtype), k, (n,))
    s = jnp.where(full, 1.0, 0.0) * jnp.matmul(a, jnp.swapaxes(a, -1, -2))
    return jnp.matmul(jnp.swapaxes(x, -1, -2), x) + s


def gram_path_sample(
    key: jax.Array, theta: jax.Array, n: int, c0: jax.Array, c1: jax.Array, dof: jax.Array
) -> jax.Array:
    r"""Log-Cholesky features of ``n`` draws of :math:`V^\top V` along :math:`c(\theta) =
    (1 - \theta)c_0 + \theta c_1` (:func:`gram_draws`), shape ``(n, k(k+1)/2)``.

    The sampler of the k > 1 Fisher rows, with :math:`c_0 = B^\top v` and
    :math:`c_1 = B^\top Uw`; differentiable in θ for a fixed key.

    Args:
        key: A ``jax.random`` key.
        theta: The path parameter (a scalar).
        n: Number of draws (static).
        c0: The reduced start of the path, shape ``(r, k)``.
        c1: The reduced end of the path, shape ``(r, k)``.
        dof: Degrees of freedom of the Wishart part (:func:`reduced_means`).

    Returns:
        Array of shape ``(n, k(k+1)/2)``.
    """
    return log_cholesky(gram_draws(key, (1.0 - theta) * c0 + theta * c1, dof, n))


def gram_sample_p(key: jax.Array, cp: jax.Array, cq: jax.Array, dof: jax.Array) -> jax.Array:
    """``DRAWS_PER_CALL`` features of the P law of the k > 1 Rényi rows (mean ``cp``)."""
    return log_cholesky(gram_draws(key, cp, dof, DRAWS_PER_CALL))


def gram_sample_q(key: jax.Array, cp: jax.Array, cq: jax.Array, dof: jax.Array) -> jax.Array:
    """``DRAWS_PER_CALL`` features of the Q law of the k > 1 Rényi rows (mean ``cq``)."""
    return log_cholesky(gram_draws(key, cq, dof, DRAWS_PER_CALL))


# ----------------------------------------------------------------------------------------------
# Estimates.

#: The fields of an estimate that the rows keep.
ESTIMATE_FIELDS = ("estimate", "ci_low", "ci_high", "stderr", "reliable")


def _fields(result) -> dict[str, np.ndarray]:
    return {name: np.ravel(getattr(result, name)) for name in ESTIMATE_FIELDS}


def k1_fisher_estimates(grid: VariationalGrid, d: np.ndarray, theta: np.ndarray) -> dict:
    """Variational Fisher information of θ ↦ χ²_d(θ²) at the points ``(d, theta)``.

    One :func:`~fisherrdp.variational.estimate_fisher` call over all points, key
    ``grid.key(0)``.

    Args:
        grid: The grid (knobs and seed are used).
        d: Dimensions, a 1-D array.
        theta: θ, a 1-D array of the same length.

    Returns:
        Flat arrays ``estimate``, ``ci_low``, ``ci_high``, ``stderr`` and ``reliable``.
    """
    d, theta = np.asarray(d, float), np.asarray(theta, float)
    from fisherrdp._src.variational import estimate_fisher  # only with --variational

    result = estimate_fisher(ncx2_path_sample, theta, key=grid.key(0), args=(d,), **grid.knobs)
    return _fields(result)


def k1_renyi_estimates(
    grid: VariationalGrid, d: np.ndarray, a: np.ndarray, b: np.ndarray, alpha: np.ndarray
) -> dict:
    """Variational D_α(χ²_d(a²) ‖ χ²_d(b²)) at the points ``(d, a, b, alpha)``.

    One :func:`~fisherrdp.variational.estimate_renyi` call over all points, key
    ``grid.key(1)``.

    Args:
        grid: The grid (knobs and seed are used).
        d: Dimensions, a 1-D array.
        a: Amplitudes of P, same length.
        b: Amplitudes of Q, same length.
        alpha: Orders, same length.

    Returns:
        Flat arrays ``estimate``, ``ci_low``, ``ci_high``, ``stderr`` and ``reliable``.
    """
    d, a, b, alpha = (np.asarray(x, float) for x in (d, a, b, alpha))
    from fisherrdp._src.variational import estimate_renyi  # only with --variational

    result = estimate_renyi(
        ncx2_sample_p, ncx2_sample_q, alpha, key=grid.key(1), args=(d, a, b), **grid.knobs
    )
    return _fields(result)


class _Point(NamedTuple):
    """A k > 1 point: its row's coordinates and its sampler's arguments (reduced means, dof)."""

    coords: dict[str, float]
    args: tuple[np.ndarray | float, ...]


def _by_shape(points: list[_Point], parameter: str, run: Callable) -> dict:
    """``run(values, args, group)`` once per group of points whose sampler arguments have one
    shape (``values``: their ``coords[parameter]``; ``args``: their arguments, stacked); the
    coordinates and estimate fields of every point, as flat arrays in the order of ``points``."""
    groups: dict[tuple, list[int]] = {}
    for i, p in enumerate(points):
        groups.setdefault(tuple(np.shape(a) for a in p.args), []).append(i)
    fields = {name: np.empty(len(points), float) for name in ESTIMATE_FIELDS}
    fields["reliable"] = np.empty(len(points), bool)
    for group, members in enumerate(groups.values()):
        values = np.array([points[i].coords[parameter] for i in members], float)
        args = tuple(np.stack(a).astype(float) for a in zip(*(points[i].args for i in members)))
        result = run(values, args, group)
        for name in ESTIMATE_FIELDS:
            fields[name][members] = result[name]
    coords = {name: np.array([p.coords[name] for p in points], float) for name in points[0].coords}
    return coords | fields


def _pair_coords(p: dict, w_grid: WishartGrid) -> dict:
    """The coordinates every Wishart row reports for a pair of ``wishart_pairs``."""
    return {"k": p["k"], "d": p["d"], "C": w_grid.C, "Delta": p["delta"], "pair": p["kind"]}


def wishart_fisher_rows(grid: VariationalGrid) -> dict:
    r"""Variational Fisher information along each pair's Procrustes-aligned path, k > 1.

    One :func:`~fisherrdp.variational.estimate_fisher` call per ``(r, k)`` group
    (:func:`reduced_means`), key ``fold_in(grid.key(2), group)``, with the Theorem 5.3 inputs.

    Args:
        grid: The grid (``wishart``, knobs and seed are used).

    Returns:
        Flat arrays over (pair, θ): ``k``, ``d``, ``C``, ``Delta``, ``pair`` (index in
        ``PAIR_KINDS``), ``theta``, ``L2`` (:math:`\|Uw - v\|_F^2`), ``rho``
        (:math:`\|\mu(\theta)\|_F`), ``m`` (:math:`\lfloor d/k \rfloor`), ``estimate``,
        ``ci_low``, ``ci_high``, ``stderr`` and ``reliable``.
    """
    w_grid = grid.wishart
    points = []
    for p in wishart_pairs(w_grid):
        v, uw = p["v"], procrustes(p["v"], p["w"])
        (c0, c1), dof = reduced_means(v, uw)
        for theta in w_grid.theta:
            coords = _pair_coords(p, w_grid) | {
                "theta": theta,
                "L2": float(np.sum((uw - v) ** 2)),
                "rho": float(np.linalg.norm((1.0 - theta) * v + theta * uw)),
                "m": p["d"] // p["k"],
            }
            points.append(_Point(coords, (c0, c1, dof)))

    from fisherrdp._src.variational import estimate_fisher  # only with --variational

    def run(theta, args, group):
        key = jax.random.fold_in(grid.key(2), group)
        return _fields(estimate_fisher(gram_path_sample, theta, key=key, args=args, **grid.knobs))

    return _by_shape(points, "theta", run)


def wishart_renyi_rows(grid: VariationalGrid) -> dict:
    r"""Variational D_α(law VᵀV ‖ law WᵀW) for each pair in both orders and each α, k > 1.

    ``order = 0`` is :math:`D_\alpha(P_v\|P_w)`, ``order = 1`` the reverse; α varies fastest.
    One :func:`~fisherrdp.variational.estimate_renyi` call per ``(r, k)`` group
    (:func:`reduced_means`), key ``fold_in(grid.key(3), group)``.

    Args:
        grid: The grid (``wishart``, knobs and seed are used).

    Returns:
        Flat arrays: ``k``, ``d``, ``C``, ``Delta``, ``pair``, ``order``, ``alpha``,
        ``estimate``, ``ci_low``, ``ci_high``, ``stderr`` and ``reliable``.
    """
    w_grid = grid.wishart
    points = []
    for p in wishart_pairs(w_grid):
        (cv, cw), dof = reduced_means(p["v"], p["w"])
        for order, (cp, cq) in enumerate(((cv, cw), (cw, cv))):
            for alpha in w_grid.alpha:
                coords = _pair_coords(p, w_grid) | {"order": order, "alpha": alpha}
                points.append(_Point(coords, (cp, cq, dof)))

    from fisherrdp._src.variational import estimate_renyi  # only with --variational

    def run(alpha, args, group):
        key = jax.random.fold_in(grid.key(3), group)
        return _fields(
            estimate_renyi(gram_sample_p, gram_sample_q, alpha, key=key, args=args, **grid.knobs)
        )

    return _by_shape(points, "alpha", run)

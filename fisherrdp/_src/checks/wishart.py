r"""Checks of Theorems 5.3 and 5.4 (k > 1) for ``fisherrdp verify``: exact for k = 2, Monte Carlo
for k ≥ 3.

For k = 2 the Fisher information along the non-central Wishart path and the Rényi divergence
between two non-central Wishart laws are computed exactly, by cubature
(:func:`fisherrdp.fisher.wishart_path_fisher_exact`, :func:`fisherrdp.divergences.renyi_ncwishart`,
relative error ≤ 1e-8 with error estimates), so their rows are exact ``inequality`` rows in
:mod:`fisherrdp._src.checks.statements`. For k ≥ 3 neither has a closed form or a cubature here, so the
statements are checked against **Monte Carlo estimates** with their standard errors (kind
``statistical``):

* Theorem 5.3 (``docs/math/paper.md#theorem-53``): along :math:`\mu(\theta) = (1-\theta)v + \theta Uw`
  (:math:`U` the Procrustes rotation, :math:`\rho = \|\mu(\theta)\|_F`, :math:`m = \lfloor d/k
  \rfloor`)

  .. math::

      I(\theta) \le \|Uw - v\|_F^2\,\frac{2\rho^2}{2\rho^2 + m - 3}
      \quad\text{(re-derived; printed: } \rho^2/(\rho^2 + m - 3)\text{)},

  with :math:`I(\theta)` from :func:`fisherrdp.fisher.wishart_path_fisher` (unbiased, exact
  score) and the bound from :func:`fisherrdp.bounds.theorem53_fisher_bound`.
* Theorem 5.4: :math:`D_\alpha(\operatorname{law} V^\top V\,\|\,\operatorname{law} W^\top W)
  \le \frac{1}{\alpha-1}\log f(\alpha, C, \lfloor d/k\rfloor, \Delta)`
  (:func:`fisherrdp.bounds.theorem54_bound`, both readings) for
  :math:`\|v\|_F, \|w\|_F \le C`, :math:`\|v - w\|_F \le \Delta`, with the divergence from
  :func:`fisherrdp.divergences.renyi_ncwishart_mc` in both orders of each pair; and the
  post-processing bound :math:`D_\alpha \le \alpha\|v - w\|_F^2/2`, which holds for every pair.

**Margin.** A point is a violation only if the estimate exceeds the bound by more than
``Z_MARGIN`` = 3 standard errors: the compared "small" side is
:math:`\hat I - 3\,\mathrm{se}` (or :math:`\hat D - 3\,\mathrm{se}`), the "large" side the bound,
and the reported slack is :math:`(\text{bound} - (\text{estimate} - 3\,\mathrm{se}))/\text{bound}`.
Were the truth exactly at the bound, a single point would be flagged with probability ≈ 0.13%
(normal approximation). The Rényi estimate is biased low (Jensen, heavy-tailed likelihood
ratios; see :mod:`fisherrdp._src.divergences.renyi_wishart_mc`), so its check can miss a
violation but does not invent one; the Fisher estimate is unbiased.

**Pairs.** For each (k, d) and Δ < C (grid :class:`WishartGrid`), :math:`v = C\,x/\|x\|_F`
with :math:`x` a standard normal :math:`d\times k` matrix, and five kinds of pairs, each with
:math:`\|v\|_F = C`, :math:`\|w\|_F \le C`, :math:`\|v - w\|_F = \Delta`:

* ``scaled``: :math:`w = (1 - \Delta/C)\,v`, the k > 1 analogue of the k = 1 pairs
  :math:`(C, C - \Delta)`: the Procrustes rotation is the identity and the path length
  :math:`\|Uw - v\|_F = \Delta` is the largest the hypothesis allows;
* ``random``: :math:`w = v + \Delta(-c\,\hat v + \sqrt{1-c^2}\,z)`, :math:`c = \Delta/C`,
  :math:`z` a normal direction orthogonal to :math:`v` (Frobenius), so
  :math:`\|w\|_F^2 = C^2 - \Delta^2`; the rotation then shortens the path
  (:math:`\|Uw - v\|_F < \Delta`);
* ``rotated``: :math:`w = vR`, :math:`R` the rotation of the first two coordinates of
  :math:`\mathbb R^k` by φ with :math:`2(1 - \cos\varphi)(\Omega_{11} + \Omega_{22}) = \Delta^2`
  (the same Gram eigenvalues, turned);
* ``rank_one``: :math:`v = C\,q_1 e_1^\top`, :math:`w = (1 - \Delta/C)\,v` (a k = 1 pair inside
  k > 1: its values equal the k = 1 ones, ``docs/math/wishart_k2.md#the-rank-one-reduction``);
* ``rank_two``: :math:`v = (C/\sqrt2)(q_1 e_1^\top + q_2 e_2^\top)`, :math:`w = v - \Delta\,q_1
  e_1^\top` (one of two equal columns shrunk), with :math:`q_1, q_2` orthonormal.

All draws come from a fixed seed (NumPy for the pairs, ``jax.random.fold_in`` for the keys), so
a run is reproducible.

**Cost.** k = 2: about 0.1–0.3 s per exact value after a compilation shared by every (d, pair);
k ≥ 3: compilation dominates, one compiled score (and one Wishart log-density) per
(d, k, n_samples, truncation). Default grid: see :mod:`fisherrdp._src.commands.verify` for the
measured time.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

__all__ = ["Z_MARGIN", "WishartGrid", "fisher_rows", "renyi_rows", "wishart_pairs"]

#: The kinds of pairs (see the module docstring).
PAIR_KINDS = ("scaled", "random", "rotated", "rank_one", "rank_two")
#: Standard errors by which a Monte Carlo estimate may exceed a bound before it counts.
Z_MARGIN = 3.0


@dataclasses.dataclass(frozen=True)
class WishartGrid:
    """The grid of the k > 1 checks (Theorems 5.3, 5.4): exact for k = 2, Monte Carlo for k ≥ 3.

    Attributes:
        dims: The ``(k, d)`` pairs: record dimension ``k >= 2`` and model width ``d >= k``
            (integers). Each k ≥ 3 pair compiles its own score and log-density (~10-30 s), so
            the default leaves out k = 3, d = 12, where m = 4 makes the Theorem 5.3 ratio
            2ρ²/(2ρ² + 1) nearly trivial.
        C: Frobenius-norm bound of the pairs, ``> 0``.
        delta: Sensitivities ``‖v − w‖_F = Δ`` of the pairs, in ``(0, C)`` (Δ = C would make
            the scaled ``w`` zero and its path end at the degenerate ρ = 0).
        pairs: Kinds of pairs, a subset of ``PAIR_KINDS`` (module docstring).
        theta: Path parameters of the Fisher check, in ``[0, 1]``.
        alpha: Rényi orders of the divergence check, ``> 1``.
        n_samples: Monte Carlo draws (k ≥ 3) per θ (Fisher) and per pair and order (Rényi), ``>= 2``.
        seed: Seed of the pairs and of the Monte Carlo keys.
    """

    dims: tuple[tuple[int, int], ...] = ((2, 4), (2, 48), (3, 48))
    C: float = 1.0
    delta: tuple[float, ...] = (0.25, 0.75)
    pairs: tuple[str, ...] = PAIR_KINDS
    theta: tuple[float, ...] = (0.0, 0.5, 1.0)
    alpha: tuple[float, ...] = (1.5, 2.0, 4.0, 8.0, 16.0)
    n_samples: int = 2000
    seed: int = 0

    def __post_init__(self):
        for name in ("dims", "delta", "pairs", "theta", "alpha"):
            if len(getattr(self, name)) == 0:
                raise ValueError(f"wishart grid {name!r} is empty")
        for dim in self.dims:
            if len(dim) != 2 or any(int(x) != x for x in dim) or not 2 <= dim[0] <= dim[1]:
                raise ValueError(
                    f"wishart grid 'dims' must be integer pairs (k, d) with 2 <= k <= d, got {dim}"
                )
        if not (math.isfinite(self.C) and self.C > 0):
            raise ValueError(f"wishart grid 'C' must be finite and > 0, got {self.C}")
        if any(not 0 < x < self.C for x in self.delta):
            raise ValueError(f"wishart grid 'delta' values must be in (0, C), got {self.delta}")
        if any(kind not in PAIR_KINDS for kind in self.pairs):
            raise ValueError(f"wishart grid 'pairs' must be in {PAIR_KINDS}, got {self.pairs}")
        if any(not 0 <= t <= 1 for t in self.theta):
            raise ValueError(f"wishart grid 'theta' values must be in [0, 1], got {self.theta}")
        if any(not (a > 1 and math.isfinite(a)) for a in self.alpha):
            raise ValueError(
                f"wishart grid 'alpha' values must be finite and > 1, got {self.alpha}"
            )
        if int(self.n_samples) != self.n_samples or self.n_samples < 2:
            raise ValueError(
                f"wishart grid 'n_samples' must be an integer >= 2, got {self.n_samples}"
            )


def wishart_pairs(grid: WishartGrid) -> list[dict]:
    r"""The pairs ``(v, w)``: one per ((k, d), Δ, kind), ``‖v − w‖_F = Δ``, norms ≤ C.

    They satisfy the hypotheses of Theorem 5.4, :math:`\|v\|_F, \|w\|_F \le C` and
    :math:`\|v - w\|_F \le \Delta` (with equality), and are deterministic given ``grid.seed``.

    Args:
        grid: The grid (``dims``, ``C``, ``delta``, ``pairs``, ``seed`` are used).

    Returns:
        A list of dicts with keys ``k``, ``d``, ``delta``, ``kind`` (its index in
        ``PAIR_KINDS``), ``v``, ``w`` and ``index`` (the position, which seeds the Monte Carlo
        keys).
    """
    pairs = []
    for (k, d), delta, kind in itertools.product(grid.dims, grid.delta, grid.pairs):
        index = len(pairs)
        rng = np.random.default_rng([grid.seed, int(k), int(d), index])
        x = rng.normal(size=(int(d), int(k)))
        v_hat = x / np.linalg.norm(x)
        v = grid.C * v_hat
        if kind in ("rank_one", "rank_two"):
            q, _ = np.linalg.qr(x)  # orthonormal columns
            v = np.zeros_like(x)
            if kind == "rank_one":
                v[:, 0] = grid.C * q[:, 0]
            else:
                v[:, :2] = grid.C / math.sqrt(2.0) * q[:, :2]
        if kind in ("scaled", "rank_one"):
            w = (1.0 - delta / grid.C) * v
        elif kind == "rank_two":
            w = v.copy()
            w[:, 0] -= delta * q[:, 0]
        elif kind == "rotated":
            # v R with R the rotation of the first two coordinates by φ:
            # ‖v − vR‖_F² = 2(1 − cos φ)(Ω₁₁ + Ω₂₂), Ω = vᵀv.
            cos = max(1.0 - delta**2 / (2.0 * np.sum(v[:, :2] ** 2)), -1.0)
            sin = math.sqrt(max(1.0 - cos * cos, 0.0))
            rot = np.eye(int(k))
            rot[:2, :2] = [[cos, -sin], [sin, cos]]
            w = v @ rot
        else:
            z = rng.normal(size=x.shape)
            z -= np.sum(z * v_hat) * v_hat
            z /= np.linalg.norm(z)
            c = delta / grid.C
            w = v + delta * (-c * v_hat + math.sqrt(max(1.0 - c * c, 0.0)) * z)
        pairs.append(
            {
                "k": int(k),
                "d": int(d),
                "delta": float(delta),
                "kind": PAIR_KINDS.index(kind),
                "v": v,
                "w": w,
                "index": index,
            }
        )
    return pairs


class RenyiRow(NamedTuple):
    """An exact divergence and its error estimate, as the Monte Carlo result names them."""

    estimate: np.ndarray
    stderr: np.ndarray


def _key(grid: WishartGrid, index: int, purpose: int):
    import jax

    return jax.random.fold_in(jax.random.key(grid.seed), 4 * index + purpose)


def fisher_rows(
    grid: WishartGrid, on_call: Callable[[], None] = lambda: None, *, exact: bool = False
) -> dict:
    """Fisher information along each pair's path, with the Theorem 5.3 inputs.

    ``exact=True``: the k = 2 pairs, by :func:`fisherrdp.fisher.wishart_path_fisher_exact`
    (cubature; ``estimate`` is the value and ``stderr`` its error estimate). Otherwise the
    k ≥ 3 pairs, by one :func:`fisherrdp.fisher.wishart_path_fisher` call per pair (Monte
    Carlo, all θ of the grid, key ``fold_in(key(seed), 4·index)``). Procrustes-aligned as in
    Theorem 5.3.

    Args:
        grid: The grid.
        on_call: Called after each call (progress).
        exact: The exact k = 2 rows, or the Monte Carlo k ≥ 3 rows.

    Returns:
        Flat arrays over (pair, θ): ``k``, ``d``, ``C``, ``Delta``, ``pair`` (index in
        ``PAIR_KINDS``), ``theta``, ``estimate``,
        ``stderr``, ``L2`` (:math:`\\|Uw - v\\|_F^2`), ``rho`` (:math:`\\|\\mu(\\theta)\\|_F`)
        and ``m`` (:math:`\\lfloor d/k\\rfloor`).
    """
    from fisherrdp._src.fisher.wishart import wishart_path_fisher
    from fisherrdp._src.fisher.wishart_exact import wishart_path_fisher_exact
    from fisherrdp._src.numerics.linalg import procrustes

    theta = np.asarray(grid.theta, float)
    out: dict[str, list] = {
        name: []
        for name in ("k", "d", "C", "Delta", "pair", "theta", "estimate", "stderr", "L2", "rho")
    }
    for p in wishart_pairs(grid):
        if (p["k"] == 2) != exact:
            continue
        v, w = p["v"], p["w"]
        if exact:
            fisher, stderr = wishart_path_fisher_exact(v, w, theta, return_error=True)
        else:
            fisher, stderr = wishart_path_fisher(
                v, w, theta, key=_key(grid, p["index"], 0), n_samples=grid.n_samples
            )
        on_call()
        uw = procrustes(v, w)
        mu = (1.0 - theta)[:, None, None] * v + theta[:, None, None] * uw
        out["k"] += [p["k"]] * theta.size
        out["d"] += [p["d"]] * theta.size
        out["C"] += [grid.C] * theta.size
        out["Delta"] += [p["delta"]] * theta.size
        out["pair"] += [p["kind"]] * theta.size
        out["theta"] += list(theta)
        out["estimate"] += list(np.asarray(fisher, float))
        out["stderr"] += list(np.asarray(stderr, float))
        out["L2"] += [float(np.sum((uw - v) ** 2))] * theta.size
        out["rho"] += list(np.sqrt(np.sum(mu**2, axis=(1, 2))))
    rows = {name: np.asarray(values, float) for name, values in out.items()}
    rows["m"] = np.floor(rows["d"] / np.where(rows["k"] > 0, rows["k"], 1.0))
    return rows


def renyi_rows(
    grid: WishartGrid, on_call: Callable[[], None] = lambda: None, *, exact: bool = False
) -> dict:
    """D_α(law VᵀV ‖ law WᵀW) for each pair in both orders and each α.

    ``order = 0`` is :math:`D_\\alpha(P_v\\|P_w)`, ``order = 1`` the reverse; α varies fastest.
    ``exact=True``: the k = 2 pairs, by :func:`fisherrdp.divergences.renyi_ncwishart`
    (cubature; ``estimate`` is the value and ``stderr`` its error estimate). Otherwise the
    k ≥ 3 pairs, by one :func:`fisherrdp.divergences.renyi_ncwishart_mc` call per pair and
    order (all α share the draws). The quantity Theorem 5.4 bounds.

    Args:
        grid: The grid.
        on_call: Called after each call (progress).
        exact: The exact k = 2 rows, or the Monte Carlo k ≥ 3 rows.

    Returns:
        Flat arrays: ``k``, ``d``, ``C``, ``Delta``, ``pair``, ``order``, ``alpha``,
        ``estimate`` and ``stderr``.
    """
    from fisherrdp._src.divergences.renyi_wishart import renyi_ncwishart
    from fisherrdp._src.divergences.renyi_wishart_mc import renyi_ncwishart_mc

    alpha = np.asarray(grid.alpha, float)
    out: dict[str, list] = {
        name: []
        for name in ("k", "d", "C", "Delta", "pair", "order", "alpha", "estimate", "stderr")
    }
    for p in wishart_pairs(grid):
        if (p["k"] == 2) != exact:
            continue
        for order, (a, b) in enumerate(((p["v"], p["w"]), (p["w"], p["v"]))):
            if exact:
                value, error = renyi_ncwishart(
                    alpha, float(p["d"]), a, b, return_error=True
                )
                r = RenyiRow(value, error)
            else:
                r = renyi_ncwishart_mc(
                    alpha,
                    p["d"],
                    a,
                    b,
                    key=_key(grid, p["index"], 1 + order),
                    n_samples=grid.n_samples,
                )
            on_call()
            out["k"] += [p["k"]] * alpha.size
            out["d"] += [p["d"]] * alpha.size
            out["C"] += [grid.C] * alpha.size
            out["Delta"] += [p["delta"]] * alpha.size
            out["pair"] += [p["kind"]] * alpha.size
            out["order"] += [order] * alpha.size
            out["alpha"] += list(alpha)
            out["estimate"] += list(np.asarray(r.estimate, float))
            out["stderr"] += list(np.asarray(r.stderr, float))
    return {name: np.asarray(values, float) for name, values in out.items()}

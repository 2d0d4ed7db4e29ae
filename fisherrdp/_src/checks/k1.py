r"""The statements for k = 1, checked against exact values: the Fisher bounds (Prop 5.1, App. E.1,
F.3), post-processing, the path bound (Prop 3.2), Theorems 5.1 and 5.2, monotonicity in α, and
the limits of Props 3.1 and 4.3.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from fisherrdp._src.bounds.fisher_information import (
    fisher_lower_prop51,
    fisher_upper_idier_collewet,
    fisher_upper_poincare,
    fisher_upper_prop51,
    fisher_upper_quadratic,
    fisher_upper_trivial,
)
from fisherrdp._src.bounds.renyi_envelopes import gaussian_renyi, theorem51_envelope
from fisherrdp._src.bounds.theorems import theorem52_bound
from fisherrdp._src.checks.framework import (
    CLOSED_FORM_TOL,
    FISHER_TOL,
    PATH_BOUND_TOL,
    RENYI_TOL,
    Approach,
    Comparison,
    Evaluator,
    Grid,
    Statement,
)

__all__ = [
    "K1_STATEMENTS",
]


def fisher_points(d: Sequence[float], theta: Sequence[float]) -> dict[str, np.ndarray]:
    d, theta = np.meshgrid(np.array(d), np.array(theta), indexing="ij")
    return {"d": d.ravel(), "theta": theta.ravel()}


def pair_points(
    d: Sequence[float], c: Sequence[float], delta: Sequence[float]
) -> dict[str, np.ndarray]:
    """(d, C, Δ, a, b) for both orders of the pair (C, max(C − Δ, 0))."""
    d, c, delta = (x.ravel() for x in np.meshgrid(d, c, delta, indexing="ij"))
    low = np.maximum(c - delta, 0.0)
    return {
        "d": np.concatenate([d, d]),
        "C": np.concatenate([c, c]),
        "Delta": np.concatenate([delta, delta]),
        "a": np.concatenate([c, low]),
        "b": np.concatenate([low, c]),
    }


def with_alpha(points: dict[str, np.ndarray], alphas: Sequence[float]) -> dict[str, np.ndarray]:
    """The points repeated for each order; α varies fastest."""
    n, m = len(next(iter(points.values()))), len(alphas)
    out = {k: np.repeat(v, m) for k, v in points.items()}
    out["alpha"] = np.tile(np.array(alphas, dtype=float), n)
    return out


def _fisher(grid: Grid, ev: Evaluator):
    def compute():
        p = fisher_points(grid.d, grid.theta)
        return (p, *ev.fisher(p["d"], p["theta"]))

    return ev.shared("fisher", compute)


def _renyi(grid: Grid, ev: Evaluator):
    def compute():
        p = with_alpha(pair_points(grid.d, grid.theta, grid.delta), grid.alpha)
        return p, ev.renyi(p["alpha"], p["d"], p["a"], p["b"])

    return ev.shared("renyi", compute)


def _path_bound(grid: Grid, ev: Evaluator):
    def compute():
        p = pair_points(grid.d, grid.theta, grid.delta)
        return ev.path_bounds(grid.alpha, p["d"], p["a"], p["b"]).ravel()  # α fastest

    return ev.shared("path_bound", compute)


def _fisher_bound_statement(name, source, description, bound_fn, *, lower=False):
    def evaluate(grid, ev):
        p, fisher, error = _fisher(grid, ev)
        bound = np.asarray(bound_fn(p["d"], p["theta"]))
        tol = error + FISHER_TOL * fisher + CLOSED_FORM_TOL * np.abs(bound)
        small, large = (bound, fisher) if lower else (fisher, bound)
        return Comparison(small, large, tol, p)

    return Statement(name, source, "inequality", description, evaluate,
                     bound=f"fisherrdp.bounds.{bound_fn.__name__}",
                     against="fisherrdp.fisher.ncx2_amplitude_fisher")


def _divergence_bound_statement(name, source, kind, description, bound_fn, bound):
    """``D_α(P_a ‖ P_b) <= bound_fn(points, grid, ev)`` over the pairs and orders."""

    def evaluate(grid, ev):
        p, renyi = _renyi(grid, ev)
        bound, bound_tol = bound_fn(p, grid, ev)
        bound = np.asarray(bound)
        tol = RENYI_TOL * np.abs(renyi) + bound_tol * np.abs(bound)
        return Comparison(renyi, bound, tol, p)

    return Statement(name, source, kind, description, evaluate, bound=bound,
                     against="fisherrdp.divergences.renyi_ncx2")


def _postprocessing(p, grid, ev):
    return gaussian_renyi(p["alpha"], np.abs(p["a"] - p["b"])), CLOSED_FORM_TOL


def _theorem52(variant):
    def bound(p, grid, ev):
        value = theorem52_bound(p["alpha"], p["d"], p["C"], p["Delta"], variant=variant)
        return value, CLOSED_FORM_TOL

    return bound


def _path(p, grid, ev):
    return _path_bound(grid, ev), PATH_BOUND_TOL


def _path_below_theorem52(grid, ev):
    p, _ = _renyi(grid, ev)
    path = _path_bound(grid, ev)
    thm = np.asarray(theorem52_bound(p["alpha"], p["d"], p["C"], p["Delta"]))
    return Comparison(path, thm, PATH_BOUND_TOL * path + CLOSED_FORM_TOL * thm, p)


def _monotone_in_alpha(grid, ev):
    p, renyi = _renyi(grid, ev)
    by_alpha = renyi.reshape(-1, len(grid.alpha))
    small, large = by_alpha[:, :-1].ravel(), by_alpha[:, 1:].ravel()
    keep = np.ones(by_alpha.shape, bool)
    keep[:, -1] = False
    coords = {k: v[keep.ravel()] for k, v in p.items()}
    return Comparison(small, large, RENYI_TOL * (np.abs(small) + np.abs(large)), coords)


#: Step of the local-expansion check, relative to min(θ, 1)/α.
LOCAL_STEP = 1e-4


def _local_expansion_pairs(grid):
    p = with_alpha(fisher_points(grid.d, grid.theta), grid.alpha)
    step = LOCAL_STEP * np.minimum(p["theta"], 1.0) / p["alpha"]
    return p | {"step": step, "a": p["theta"] + step, "b": p["theta"]}


def _limit_renyi(grid, ev):
    """The divergences of the two limit rows (Prop 3.1, Prop 4.3) in one evaluation: each
    alone is smaller than a chunk."""

    def compute():
        local, prop43 = _local_expansion_pairs(grid), _proposition43_pairs(grid)
        both = [np.concatenate([local[k], prop43[k]]) for k in ("alpha", "d", "a", "b")]
        renyi = ev.renyi(*both)
        n = len(local["alpha"])
        return (local, renyi[:n]), (prop43, renyi[n:])

    return ev.shared("limit_renyi", compute)


def _local_expansion(grid, ev):
    """Prop 3.1: D_α(P_{θ+δ} ‖ P_θ)/(α I(θ) δ²/2) → 1 as δ → 0, at δ = 1e-4·min(θ, 1)/α.

    The next term is of relative size O(αδ·|∂ log I|) = O(αδ/min(θ, 1)), hence ``level``.
    """
    (p, renyi), _ = _limit_renyi(grid, ev)
    step = p["step"]
    p = {k: p[k] for k in ("d", "theta", "alpha")}
    _, fisher, _ = _fisher(grid, ev)
    fisher = np.repeat(fisher, len(grid.alpha))
    ratio = renyi / (0.5 * p["alpha"] * fisher * step**2)
    return Approach(ratio, 10 * LOCAL_STEP, p | {"step": step})


def _theorem51(grid, ev):
    """η = D_α(P_a‖P_b)/(α(a−b)²/2) against the Thm 5.1 upper end 2C²/(2C²+d−3), finite Δ."""
    p, renyi = _renyi(grid, ev)
    moved = p["a"] != p["b"]
    coords = {k: v[moved] for k, v in p.items()}
    eta = renyi[moved] / np.asarray(
        gaussian_renyi(coords["alpha"], np.abs(coords["a"] - coords["b"]))
    )
    _, upper = theorem51_envelope(coords["d"], coords["b"], coords["C"])
    return Comparison(eta, np.asarray(upper), RENYI_TOL * eta, coords)


#: Where Prop 4.3's limit t → ∞ is sampled (the top of renyi_ncx2's validated range).
PROP43_T = 100.0


def _proposition43_pairs(grid):
    small_d = [d for d in grid.d if d <= 10.0] or [min(grid.d)]
    d, delta, alpha = (
        x.ravel() for x in np.meshgrid(small_d, grid.delta, grid.alpha, indexing="ij")
    )
    t = np.full_like(d, PROP43_T)
    return {"d": d, "Delta": delta, "alpha": alpha, "t": t, "a": t, "b": t + delta}


def _proposition43(grid, ev):
    """Prop 4.3: D_α(χ²_d(t²)‖χ²_d((t+Δ)²))/(αΔ²/2) → 1 as t → ∞, sampled at t = 100, d ≤ 10.

    For fixed d the Fisher information is 1 − O(d/t²), so the ratio is within O(d/t²) of 1 plus
    an O(αΔ/t) correction; larger d need larger t (I(d, t) ≈ 2t²/(2t²+d)), hence d ≤ 10.
    """
    _, (p, renyi) = _limit_renyi(grid, ev)
    ratio = renyi / (0.5 * p["alpha"] * p["Delta"] ** 2)
    return Approach(ratio, 0.1, {k: p[k] for k in ("d", "Delta", "alpha", "t")})


K1_STATEMENTS: tuple[Statement, ...] = (
    _fisher_bound_statement(
        "Fisher lower bound",
        "Prop 5.1",
        "I(d,θ) >= 2θ²/(2θ²+d)",
        fisher_lower_prop51,
        lower=True,
    ),
    _fisher_bound_statement(
        "Fisher upper bound",
        "Prop 5.1",
        "I(d,θ) <= 2θ²/(2θ²+d−3) (1 for d <= 3)",
        fisher_upper_prop51,
    ),
    _fisher_bound_statement(
        "Fisher quadratic bound",
        "App. E.1",
        "I <= (√(a²+4θ²) − a)/2, a = θ² + (d−3)/2",
        fisher_upper_quadratic,
    ),
    _fisher_bound_statement(
        "Fisher Idier–Collewet bound",
        "App. E.1",
        "I <= min(1, 2θ²/d)",
        fisher_upper_idier_collewet,
    ),
    _fisher_bound_statement(
        "Fisher Poincaré bound",
        "App. F.3",
        "I <= 2θ²(θ²+2d)/(2d²+θ²(θ²+2d))",
        fisher_upper_poincare,
    ),
    _fisher_bound_statement(
        "Fisher post-processing bound",
        "Sec. 5",
        "I <= 1",
        fisher_upper_trivial,
    ),
    _divergence_bound_statement(
        "Post-processing",
        "Sec. 2",
        "inequality",
        "D_α(P_a‖P_b) <= α(a−b)²/2",
        _postprocessing,
        "fisherrdp.bounds.gaussian_renyi",
    ),
    _divergence_bound_statement(
        "Path bound, exact √I",
        "Prop 3.2",
        "inequality",
        "D_α <= log(1 + α∫√I(z) e^{(α−1)(2α−1)(z−b)²/2} dz)/(α−1)",
        _path,
        "fisherrdp.bounds.path_bound_ncx2",
    ),
    _divergence_bound_statement(
        "Theorem 5.2 (re-derived)",
        "Thm 5.2, docs/math/paper.md",
        "inequality",
        "D_α <= log(1 + α√(2C²/(2C²+d−3))·2(e^{sΔ²}−1)/((α−1)(2α−1)Δ))/(α−1)",
        _theorem52("rederived"),
        "fisherrdp.bounds.theorem52_bound",
    ),
    _divergence_bound_statement(
        "Theorem 5.2 (as printed)",
        "Thm 5.2, main text",
        "as printed",
        "D_α <= log(1 + α(2C²/(2C²+d−3))(e^{sΔ²}−1)/((α−1)(2α−1)Δ))/(α−1)",
        _theorem52("printed"),
        "fisherrdp.bounds.theorem52_bound",
    ),
    Statement(
        "Path bound <= Theorem 5.2",
        "Prop 3.2 vs Thm 5.2",
        "inequality",
        "the exact-√I path bound never exceeds its closed form",
        _path_below_theorem52,
        bound="fisherrdp.bounds.theorem52_bound",
        against="fisherrdp.bounds.path_bound_ncx2",
    ),
    Statement(
        "Monotone in α",
        "Rényi divergence",
        "inequality",
        "D_α <= D_α' for α < α' (consecutive grid orders)",
        _monotone_in_alpha,
        bound="",
        against="fisherrdp.divergences.renyi_ncx2",
    ),
    Statement(
        "Local expansion (limit)",
        "Prop 3.1",
        "limit",
        "D_α(P_{θ+δ}‖P_θ)/(αIδ²/2) → 1 as δ → 0; shown at δ = 1e-4·min(θ,1)/α",
        _local_expansion,
        bound="fisherrdp.bounds.local_expansion_prop31",
        against="fisherrdp.divergences.renyi_ncx2",
    ),
    Statement(
        "Theorem 5.1 upper end (leading order)",
        "Thm 5.1",
        "leading order",
        "η = D_α/(α(a−b)²/2) <= 2C²/(2C²+d−3) to leading order in Δ; finite Δ shown",
        _theorem51,
        bound="fisherrdp.bounds.theorem51_envelope",
        against="fisherrdp.divergences.renyi_ncx2",
    ),
    Statement(
        "No amplification without C (limit)",
        "Prop 4.3",
        "limit",
        "D_α(χ²_d(t²)‖χ²_d((t+Δ)²))/(αΔ²/2) → 1 as t → ∞; shown at t = 100 against 1",
        _proposition43,
        bound="fisherrdp.bounds.gaussian_renyi",
        against="fisherrdp.divergences.renyi_ncx2",
    ),
)

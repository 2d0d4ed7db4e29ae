r"""The statements checked against variational estimates from samples only (rows from
:mod:`fisherrdp._src.checks.variational`), run by ``fisherrdp verify --variational``.
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.bounds.fisher_information import (
    fisher_upper_prop51,
)
from fisherrdp._src.bounds.path_bound import path_bound_ncx2
from fisherrdp._src.bounds.renyi_envelopes import gaussian_renyi
from fisherrdp._src.bounds.theorems import theorem52_bound, theorem53_fisher_bound, theorem54_bound
from fisherrdp._src.checks.framework import (
    CLOSED_FORM_TOL,
    FISHER_TOL,
    PATH_BOUND_TOL,
    RENYI_TOL,
    Comparison,
    Evaluator,
    Grid,
    Statement,
)
from fisherrdp._src.checks.k1 import fisher_points, pair_points, with_alpha
from fisherrdp._src.checks.variational import (
    k1_fisher_estimates,
    k1_renyi_estimates,
    wishart_fisher_rows,
    wishart_renyi_rows,
)
from fisherrdp._src.divergences.renyi import renyi_ncx2
from fisherrdp._src.fisher.ncx2 import ncx2_amplitude_fisher

__all__ = [
    "VARIATIONAL_STATEMENTS",
]


def _variational_fisher(grid: Grid, ev: Evaluator):
    """k = 1: the estimates at the Fisher points, with the exact I and its error estimate."""

    def compute():
        vg = grid.variational
        p = fisher_points(vg.fisher_d, vg.fisher_theta)
        exact = ncx2_amplitude_fisher(p["d"], p["theta"], return_error=True)
        rows = p | k1_fisher_estimates(vg, p["d"], p["theta"])
        return rows, *(np.asarray(x, dtype=float) for x in exact)

    return ev.shared("variational_fisher", compute)


def _variational_renyi(grid: Grid, ev: Evaluator):
    """k = 1: the estimates at the pairs and orders (α fastest), with the exact D_α."""

    def compute():
        vg = grid.variational
        p = with_alpha(pair_points(vg.renyi_d, vg.renyi_C, vg.renyi_delta), vg.alpha)
        rows = p | k1_renyi_estimates(vg, p["d"], p["a"], p["b"], p["alpha"])
        return rows, np.asarray(renyi_ncx2(p["alpha"], p["d"], p["a"], p["b"]), dtype=float)

    return ev.shared("variational_renyi", compute)


def _variational(rows: dict, bound, tol, covered=None) -> Comparison:
    """``ci_low <= bound`` (allowed ``tol``), the estimator's verdicts alongside."""
    coords = {k: v for k, v in rows.items() if k not in ("ci_low", "reliable")}
    return Comparison(rows["ci_low"], bound, tol, coords, rows["reliable"], covered)


def _against_exact(rows: dict, exact, tol) -> Comparison:
    """``ci_low <= exact`` (allowed ``tol``), and which intervals contain the exact value."""
    exact = np.asarray(exact, dtype=float)
    covered = (rows["ci_low"] - exact <= tol) & (exact - rows["ci_high"] <= tol)
    return _variational(rows, exact, tol, covered)


def _variational_prop51(grid, ev):
    rows, _, _ = _variational_fisher(grid, ev)
    bound = np.asarray(fisher_upper_prop51(rows["d"], rows["theta"]))
    return _variational(rows, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_fisher_exact(grid, ev):
    rows, fisher, error = _variational_fisher(grid, ev)
    return _against_exact(rows, fisher, error + FISHER_TOL * fisher)


def _variational_path_bound(grid, ev):
    rows, _ = _variational_renyi(grid, ev)
    bound = np.asarray(path_bound_ncx2(rows["alpha"], rows["d"], rows["a"], rows["b"]))
    return _variational(rows, bound, PATH_BOUND_TOL * np.abs(bound))


def _variational_theorem52(grid, ev):
    rows, _ = _variational_renyi(grid, ev)
    bound = np.asarray(theorem52_bound(rows["alpha"], rows["d"], rows["C"], rows["Delta"]))
    return _variational(rows, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_renyi_exact(grid, ev):
    rows, renyi = _variational_renyi(grid, ev)
    return _against_exact(rows, renyi, RENYI_TOL * np.abs(renyi))


def _variational_wishart(grid: Grid, ev: Evaluator, key: str, rows_fn) -> dict:
    """k > 1: the Fisher (``wishart_fisher_rows``) or Rényi (``wishart_renyi_rows``) rows."""
    return ev.shared(key, lambda: rows_fn(grid.variational))


def _variational_theorem53(grid, ev):
    r = _variational_wishart(grid, ev, "variational_wishart_fisher", wishart_fisher_rows)
    bound = np.asarray(theorem53_fisher_bound(r["L2"], r["rho"], r["m"]))
    return _variational(r, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_theorem54(grid, ev):
    r = _variational_wishart(grid, ev, "variational_wishart_renyi", wishart_renyi_rows)
    bound = np.asarray(theorem54_bound(r["alpha"], r["d"], r["k"], r["C"], r["Delta"]))
    return _variational(r, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_postprocessing(grid, ev):
    r = _variational_wishart(grid, ev, "variational_wishart_renyi", wishart_renyi_rows)
    bound = np.asarray(gaussian_renyi(r["alpha"], r["Delta"]))
    return _variational(r, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_statement(name, source, description, evaluate, bound, against,
                           kind="variational"):
    return Statement(name + ", variational", source, kind, description, evaluate,
                     variational=True, bound=bound, against="fisherrdp.variational." + against)


_CI = "95% CI low of"


VARIATIONAL_STATEMENTS: tuple[Statement, ...] = (
    _variational_statement(
        "Fisher upper bound",
        "Prop 5.1",
        f"{_CI} Î(d,θ) <= 2θ²/(2θ²+d−3) (1 for d <= 3)",
        _variational_prop51,
        "fisherrdp.bounds.fisher_upper_prop51",
        "estimate_fisher",
    ),
    _variational_statement(
        "Fisher information (exact)",
        "ncx2_amplitude_fisher",
        f"{_CI} Î(d,θ) <= exact I(d,θ)",
        _variational_fisher_exact,
        "fisherrdp.fisher.ncx2_amplitude_fisher",
        "estimate_fisher",
        kind="variational exact",
    ),
    _variational_statement(
        "Path bound, exact √I",
        "Prop 3.2",
        f"{_CI} D̂_α(P_a‖P_b) <= the path bound with the exact √I",
        _variational_path_bound,
        "fisherrdp.bounds.path_bound_ncx2",
        "estimate_renyi",
    ),
    _variational_statement(
        "Theorem 5.2 (re-derived)",
        "Thm 5.2, docs/math/paper.md",
        f"{_CI} D̂_α(P_a‖P_b) <= Theorem 5.2 re-derived",
        _variational_theorem52,
        "fisherrdp.bounds.theorem52_bound",
        "estimate_renyi",
    ),
    _variational_statement(
        "Rényi divergence (exact)",
        "renyi_ncx2",
        f"{_CI} D̂_α(P_a‖P_b) <= exact D_α",
        _variational_renyi_exact,
        "fisherrdp.divergences.renyi_ncx2",
        "estimate_renyi",
        kind="variational exact",
    ),
    _variational_statement(
        "Theorem 5.3 (re-derived), k > 1",
        "Thm 5.3, docs/math/paper.md",
        f"{_CI} Î(θ) <= ‖Uw−v‖²·2ρ²/(2ρ²+m−3), m = ⌊d/k⌋, ρ = ‖μ(θ)‖",
        _variational_theorem53,
        "fisherrdp.bounds.theorem53_fisher_bound",
        "estimate_fisher",
    ),
    _variational_statement(
        "Theorem 5.4 (re-derived), k > 1",
        "Thm 5.4, docs/math/paper.md",
        f"{_CI} D̂_α(VᵀV‖WᵀW) <= Theorem 5.2 form with d → ⌊d/k⌋, ‖v−w‖ = Δ",
        _variational_theorem54,
        "fisherrdp.bounds.theorem54_bound",
        "estimate_renyi",
    ),
    _variational_statement(
        "Post-processing, k > 1",
        "Sec. 2",
        f"{_CI} D̂_α(VᵀV‖WᵀW) <= α‖v−w‖²/2",
        _variational_postprocessing,
        "fisherrdp.bounds.gaussian_renyi",
        "estimate_renyi",
    ),
)

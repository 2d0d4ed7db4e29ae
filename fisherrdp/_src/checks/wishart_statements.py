r"""The statements for k > 1: Theorems 5.3, 5.4 and post-processing, exact for k = 2 and against
Monte Carlo estimates for k ≥ 3 (rows from :mod:`fisherrdp._src.checks.wishart`).
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.bounds.renyi_envelopes import gaussian_renyi
from fisherrdp._src.bounds.theorems import theorem53_fisher_bound, theorem54_bound
from fisherrdp._src.checks.framework import (
    CLOSED_FORM_TOL,
    FISHER_TOL,
    WISHART_RENYI_TOL,
    Comparison,
    Evaluator,
    Grid,
    Statement,
)
from fisherrdp._src.checks.wishart import Z_MARGIN, fisher_rows, renyi_rows

__all__ = [
    "WISHART_STATEMENTS",
]


def _wishart_fisher(grid: Grid, ev: Evaluator, exact: bool) -> dict:
    key = "wishart_fisher_exact" if exact else "wishart_fisher"
    return ev.shared(key, lambda: fisher_rows(grid.wishart, ev.on_chunk, exact=exact))


def _wishart_renyi(grid: Grid, ev: Evaluator, exact: bool) -> dict:
    key = "wishart_renyi_exact" if exact else "wishart_renyi"
    return ev.shared(key, lambda: renyi_rows(grid.wishart, ev.on_chunk, exact=exact))


def _statistical(rows: dict, bound, coords: dict) -> Comparison:
    """``estimate − Z_MARGIN·stderr <= bound`` with the closed-form allowance on the bound."""
    bound = np.asarray(bound, dtype=float)
    small = rows["estimate"] - Z_MARGIN * rows["stderr"]
    return Comparison(small, bound, CLOSED_FORM_TOL * np.abs(bound), coords)


def _exact(rows: dict, bound, coords: dict, rtol: float) -> Comparison:
    """``value <= bound``, allowed the value's error estimate, ``rtol`` and the closed form's."""
    bound = np.asarray(bound, dtype=float)
    value = rows["estimate"]
    tol = rows["stderr"] + rtol * np.abs(value) + CLOSED_FORM_TOL * np.abs(bound)
    return Comparison(value, bound, tol, coords)


def _compare(rows: dict, bound, exact: bool, rtol: float) -> Comparison:
    return _exact(rows, bound, rows, rtol) if exact else _statistical(rows, bound, rows)


def _theorem53(variant, exact):
    def evaluate(grid, ev):
        r = _wishart_fisher(grid, ev, exact)
        bound = theorem53_fisher_bound(r["L2"], r["rho"], r["m"], variant=variant)
        return _compare(r, bound, exact, FISHER_TOL)

    return evaluate


def _theorem54(variant, exact):
    def evaluate(grid, ev):
        r = _wishart_renyi(grid, ev, exact)
        bound = theorem54_bound(
            r["alpha"], r["d"], r["k"], r["C"], r["Delta"], variant=variant
        )
        return _compare(r, bound, exact, WISHART_RENYI_TOL)

    return evaluate


def _wishart_postprocessing(exact):
    def evaluate(grid, ev):
        r = _wishart_renyi(grid, ev, exact)
        return _compare(r, gaussian_renyi(r["alpha"], r["Delta"]), exact, WISHART_RENYI_TOL)

    return evaluate


_MC = "MC est − 3se"


def _wishart_statements(exact: bool) -> tuple[Statement, ...]:
    """Theorems 5.3, 5.4 and post-processing for k > 1: exact (k = 2) or Monte Carlo (k ≥ 3)."""
    tag, kind = (", k = 2", "inequality") if exact else (", k ≥ 3", "statistical")
    fisher = "I(θ)" if exact else f"{_MC} of I(θ)"
    renyi = "D_α(VᵀV‖WᵀW)" if exact else f"{_MC} of D_α(VᵀV‖WᵀW)"
    fisher_values = "fisherrdp.fisher." + (
        "wishart_path_fisher_exact" if exact else "wishart_path_fisher")
    renyi_values = "fisherrdp.divergences." + (
        "renyi_ncwishart" if exact else "renyi_ncwishart_mc")
    return (
        Statement(
            "Theorem 5.3 (re-derived)" + tag,
            "Thm 5.3, docs/math/paper.md",
            kind,
            f"{fisher} <= ‖Uw−v‖²·2ρ²/(2ρ²+m−3), m = ⌊d/k⌋, ρ = ‖μ(θ)‖",
            _theorem53("rederived", exact),
            wishart=True,
            bound="fisherrdp.bounds.theorem53_fisher_bound",
            against=fisher_values,
        ),
        Statement(
            "Theorem 5.3 (as printed)" + tag,
            "Thm 5.3, App. F.1",
            "as printed",
            f"{fisher} <= ‖Uw−v‖²·ρ²/(ρ²+m−3)",
            _theorem53("printed", exact),
            wishart=True,
            bound="fisherrdp.bounds.theorem53_fisher_bound",
            against=fisher_values,
        ),
        Statement(
            "Theorem 5.4 (re-derived)" + tag,
            "Thm 5.4, docs/math/paper.md",
            kind,
            f"{renyi} <= Theorem 5.2 form with d → ⌊d/k⌋, ‖v−w‖ = Δ",
            _theorem54("rederived", exact),
            wishart=True,
            bound="fisherrdp.bounds.theorem54_bound",
            against=renyi_values,
        ),
        Statement(
            "Theorem 5.4 (as printed)" + tag,
            "Thm 5.4, main text",
            "as printed",
            f"{renyi} <= printed Theorem 5.2 form with d → ⌊d/k⌋",
            _theorem54("printed", exact),
            wishart=True,
            bound="fisherrdp.bounds.theorem54_bound",
            against=renyi_values,
        ),
        Statement(
            "Post-processing" + tag,
            "Sec. 2",
            kind,
            f"{renyi} <= α‖v−w‖²/2",
            _wishart_postprocessing(exact),
            wishart=True,
            bound="fisherrdp.bounds.gaussian_renyi",
            against=renyi_values,
        ),
    )


WISHART_STATEMENTS: tuple[Statement, ...] = _wishart_statements(True) + _wishart_statements(False)

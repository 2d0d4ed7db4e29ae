r"""Numerical checks of the paper's statements: exact for k ≤ 2, Monte Carlo for k ≥ 3.

Every statement fisherrdp can evaluate exactly becomes a :class:`Statement`: a name, the
paper's reference, a kind, and a function of a :class:`Grid` that returns either the two sides
of an inequality ``small <= large`` at every grid point with an allowance for numerical error
(:class:`Comparison`), or a ratio that tends to 1 in a limit (:class:`Approach`).
:func:`run_checks` evaluates them (``fisherrdp verify`` is its command line) and reports, per
statement, the number of points, the violations beyond the allowance, and the smallest relative
slack ``(large - small)/|large|`` (or the largest ``|ratio - 1|``) with where it occurs.

Kinds of rows:

* ``inequality`` — a proven statement of the paper (or of ``MATH.md``'s re-derivation), or a
  property of Rényi divergences; a violation beyond numerical error is a failure.
* ``as printed`` — a statement in the form the extracted paper text prints it, where
  ``MATH.md`` finds the text garbled (Theorem 5.2 without the square root and factor 2);
  violations are reported as evidence about the misprint, not as failures.
* ``leading order`` — an inequality the paper states to leading order in Δ (Theorem 5.1),
  evaluated at finite Δ; violations show where the leading order stops describing it.
* ``limit`` — a limit (Prop 3.1's local expansion, Prop 4.3's "no amplification without the
  bound C"), shown as the largest ``|ratio - 1|`` at a sampled distance from the limit.
* ``statistical`` — a proven statement for :math:`k \ge 3` (Theorem 5.3 re-derived, Theorem 5.4
  re-derived, post-processing) checked against a **Monte Carlo estimate** ``est`` with standard
  error ``se`` (:mod:`fisherrdp._src.wishart_checks`). The compared side is ``est - 3 se``
  (``Z_MARGIN = 3``): a point is a violation only if ``est - 3 se > bound`` (beyond the
  closed-form allowance), and the slack is ``(bound - (est - 3 se))/|bound|``. A violation is a
  failure, like an ``inequality`` row's (at most ≈ 0.13% per point if the truth sat exactly at
  the bound). The printed readings of Theorems 5.3 and 5.4 use the same margin with kind
  ``as printed`` (evidence, never a failure).
* ``variational`` — a proven statement checked against a **variational estimate** from samples
  only (:mod:`fisherrdp._src.variational_checks`: trained test functions, 95% intervals; k = 1
  Prop 5.1, the Prop 3.2 path bound and Theorem 5.2 re-derived, k = 2, 3 Theorems 5.3 and 5.4
  re-derived and post-processing), or against the exact value (k = 1 Fisher information and
  Rényi divergence). The compared side is the interval's lower end ``ci_low``: a point is a
  violation only if the whole interval lies above the bound (``ci_low > bound`` beyond the
  closed-form allowance). The estimates are lower values (a trained test function reaches at
  most the supremum) and the keys are fixed, so a violation is a failure, like an
  ``inequality`` row's. The rows also count the ``unreliable`` estimates (flagged by the
  estimators' diagnostics) and, against exact values, the intervals that cover the exact value
  (``covered``; an interval below it is an unconverged estimate, not a violation). The rows
  against exact values have kind ``variational exact`` and cannot fail: there an interval lies
  entirely above the truth by chance in about 2.5% of points (one-sided 95%), so over a grid of
  25 points a failure would come about every other seed; they report coverage. They are
  marked ``Statement.variational`` (``fisherrdp verify`` runs them only with
  ``--variational``) and use ``Grid.variational``
  (:class:`~fisherrdp._src.variational_checks.VariationalGrid`).

The exact quantities are evaluated by :class:`Evaluator` in padded chunks of fixed size
(:func:`fisherrdp._src.scan.engine.map_points`: one compilation per function, whatever the grid,
sharded over the local devices) and shared between statements.

Grids (defaults of ``fisherrdp verify``, from the issue), k = 1: ``d`` log-spaced on
:math:`[1, 10^4]`, ``theta`` (θ for Fisher statements, the norm bound C for divergence
statements) log-spaced on :math:`[0.01, 100]`, ``delta`` on :math:`(0, 2]`, and
:math:`\alpha \in \{1.25, 1.5, 2, 4, 8, 16, 32, 64\}`. Divergence statements use the pairs
:math:`(a, b) = (C, \max(C - \Delta, 0))` and the reverse order, so :math:`a, b \le C` and
:math:`|a - b| \le \Delta`. The k > 1 rows use ``Grid.wishart``
(:class:`~fisherrdp._src.wishart_checks.WishartGrid`: (k, d) ∈ {(2, 4), (2, 48), (3, 48)},
C = 1, Δ ∈ {0.25, 0.75} with scaled, random, rotated, rank-one and rank-two pairs,
θ ∈ {0, 0.5, 1}, α ∈ {1.5, 2, 4, 8, 16}, 2000 samples for k ≥ 3, seed 0); they are marked
``Statement.wishart`` (``fisherrdp verify --no-wishart`` skips them). For k = 2 they are exact
``inequality`` rows (allowance: the cubature's error estimate plus 1e-8 relative for divergences,
1e-10 for Fisher information).

Numerical allowances: Fisher information from ``return_error`` (below 1e-10 relative), exact
Rényi divergences 1e-9 relative (``renyi_ncx2``'s accuracy target), the path bound 1e-9
relative, closed forms 1e-13 relative.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from fisherrdp import bounds
from fisherrdp._src.divergences.renyi import _renyi_vec, renyi_ncx2
from fisherrdp._src.fisher import _fisher_with_error_vec, ncx2_amplitude_fisher
from fisherrdp._src.path_bound import _path_bounds_over_alphas
from fisherrdp._src.scan.engine import map_points
from fisherrdp._src.variational_checks import (
    VariationalGrid,
    k1_fisher_estimates,
    k1_renyi_estimates,
    wishart_fisher_rows,
    wishart_renyi_rows,
)
from fisherrdp._src.wishart_checks import Z_MARGIN, WishartGrid, fisher_rows, renyi_rows

__all__ = [
    "STATEMENTS",
    "Grid",
    "Statement",
    "StatementResult",
    "VariationalGrid",
    "WishartGrid",
    "run_checks",
]

#: Relative allowances for numerical error (see the module docstring).
FISHER_TOL = 1e-10
RENYI_TOL = 1e-9
PATH_BOUND_TOL = 1e-9
CLOSED_FORM_TOL = 1e-13
#: Exact k = 2 divergences (renyi_ncwishart's documented accuracy), besides their estimate.
WISHART_RENYI_TOL = 1e-8
#: Kinds of rows whose violations are failures.
FAILING_KINDS = ("inequality", "statistical", "variational")


@dataclasses.dataclass(frozen=True)
class Grid:
    """The parameter grid of the checks (1-D tuples of floats; ``wishart`` for k > 1,
    ``variational`` for the variational estimates)."""

    d: tuple[float, ...] = tuple(np.geomspace(1.0, 1e4, 13).tolist())
    theta: tuple[float, ...] = tuple(np.geomspace(0.01, 100.0, 13).tolist())
    delta: tuple[float, ...] = (0.01, 0.1, 0.25, 0.5, 1.0, 2.0)
    alpha: tuple[float, ...] = (1.25, 1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0)
    wishart: WishartGrid = dataclasses.field(default_factory=WishartGrid)
    variational: VariationalGrid = dataclasses.field(default_factory=VariationalGrid)

    def __post_init__(self):
        for name, lower, strict in (
            ("d", 1.0, False),
            ("theta", 0.0, True),
            ("delta", 0.0, True),
            ("alpha", 1.0, True),
        ):
            values = getattr(self, name)
            if len(values) == 0:
                raise ValueError(f"grid {name!r} is empty")
            bad = [v for v in values if not (v > lower if strict else v >= lower)]
            if bad or any(not math.isfinite(v) for v in values):
                op = ">" if strict else ">="
                raise ValueError(
                    f"grid {name!r} values must be finite and {op} {lower:g}, got {bad}"
                )


@dataclasses.dataclass(frozen=True)
class Comparison:
    """``small <= large`` at each point, allowed to fail by ``tol``; ``coords`` name the points.

    For estimates (``variational`` rows), ``reliable`` flags the points the estimator trusts and
    ``covered`` (against an exact value) the points whose interval contains it.
    """

    small: np.ndarray
    large: np.ndarray
    tol: np.ndarray
    coords: dict[str, np.ndarray]
    reliable: np.ndarray | None = None
    covered: np.ndarray | None = None


@dataclasses.dataclass(frozen=True)
class Approach:
    """A ratio that tends to 1 in a limit, sampled at ``coords``; ``level`` is the expected size
    of ``|ratio - 1|`` at the sampled distance from the limit."""

    ratio: np.ndarray
    level: float
    coords: dict[str, np.ndarray]


@dataclasses.dataclass(frozen=True)
class Statement:
    """One checked statement: ``evaluate(grid, evaluator)`` returns a :class:`Comparison` (or an
    :class:`Approach` for ``kind == "limit"``); ``wishart`` marks the k > 1 rows on
    ``Grid.wishart``, ``variational`` the rows of variational estimates."""

    name: str
    source: str
    kind: str  # "inequality", "as printed", "leading order", "limit", "statistical",
    # "variational" or "variational exact"
    description: str
    evaluate: Callable[[Grid, Evaluator], Comparison | Approach]
    wishart: bool = False
    variational: bool = False


@dataclasses.dataclass(frozen=True)
class StatementResult:
    """The outcome of one statement on the grid (``to_dict`` gives the JSON row).

    For inequality-form rows ``metric`` is the smallest relative slack
    ``(large - small)/|large|`` and ``violations`` counts points beyond the numerical allowance;
    for ``limit`` rows ``metric`` is the largest ``|ratio - 1|`` and ``violations`` counts the
    points where it exceeds the stated level. ``where`` holds the coordinates of the extreme
    point. ``unreliable`` counts the estimates their estimator flags (``variational`` rows);
    ``covered`` counts the intervals that contain the exact value (rows against exact values,
    else ``None``). Only ``inequality``, ``statistical`` and ``variational`` rows can fail.
    """

    name: str
    source: str
    kind: str
    description: str
    points: int
    violations: int
    metric_name: str
    metric: float
    where: dict[str, float]
    unreliable: int = 0
    covered: int | None = None

    @property
    def failed(self) -> bool:
        return self.kind in FAILING_KINDS and self.violations > 0

    def to_dict(self) -> dict:
        return dataclasses.asdict(self) | {"failed": self.failed}


# ----------------------------------------------------------------------------------------------
# Evaluation in fixed-size chunks: one compilation per function, whatever the grid, and progress.


def _path_bounds(d, a, b, *alphas):
    """Prop 3.2 path bounds, shape ``(len(d), len(alphas))``; the orders are static floats."""
    # The barrier keeps XLA from folding the orders into the kernel as constants, which moves
    # some values by an ulp: with it, the bounds are those of the orders passed as an array.
    alphas = jax.lax.optimization_barrier(jnp.asarray(alphas))
    return _path_bounds_over_alphas(alphas, d, a, b)


class Evaluator:
    """Evaluates the exact quantities in padded chunks of fixed size and caches shared results.

    Args:
        chunk: Points per compiled call (paths per call for the path bound is ``chunk // 16``).
        on_chunk: Called after every chunk (drives the progress bar).
    """

    def __init__(self, chunk: int = 2048, on_chunk: Callable[[], None] | None = None):
        self.chunk = chunk
        self.on_chunk = on_chunk or (lambda: None)
        self.cache: dict = {}

    def _map(self, fn, arrays, chunk, static=()):
        return map_points(fn, arrays, chunk=chunk, static=static, on_chunk=self.on_chunk)

    def fisher(self, d, theta):
        """Fisher information and its error estimate (``ncx2_amplitude_fisher``)."""
        return self._map(_fisher_with_error_vec, [d, theta], self.chunk)

    def renyi(self, alpha, d, a, b):
        """Exact D_α(χ²_d(a²) ‖ χ²_d(b²)) (``renyi_ncx2``)."""
        return self._map(_renyi_vec, [alpha, d, a, b], self.chunk)[0]

    def path_bounds(self, alphas, d, a, b):
        """Prop 3.2 path bounds, shape ``(len(d), len(alphas))``."""
        static = tuple(float(x) for x in alphas)
        return self._map(_path_bounds, [d, a, b], max(1, self.chunk // 16), static)[0]

    def shared(self, key: str, compute: Callable[[], object]):
        """``compute()`` once per key (quantities used by several statements)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


# ----------------------------------------------------------------------------------------------
# Grids of points, and the exact quantities shared between statements.


def _fisher_points(d: Sequence[float], theta: Sequence[float]) -> dict[str, np.ndarray]:
    d, theta = np.meshgrid(np.array(d), np.array(theta), indexing="ij")
    return {"d": d.ravel(), "theta": theta.ravel()}


def _pair_points(
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


def _with_alpha(points: dict[str, np.ndarray], alphas: Sequence[float]) -> dict[str, np.ndarray]:
    """The points repeated for each order; α varies fastest."""
    n, m = len(next(iter(points.values()))), len(alphas)
    out = {k: np.repeat(v, m) for k, v in points.items()}
    out["alpha"] = np.tile(np.array(alphas, dtype=float), n)
    return out


def _fisher(grid: Grid, ev: Evaluator):
    def compute():
        p = _fisher_points(grid.d, grid.theta)
        return (p, *ev.fisher(p["d"], p["theta"]))

    return ev.shared("fisher", compute)


def _renyi(grid: Grid, ev: Evaluator):
    def compute():
        p = _with_alpha(_pair_points(grid.d, grid.theta, grid.delta), grid.alpha)
        return p, ev.renyi(p["alpha"], p["d"], p["a"], p["b"])

    return ev.shared("renyi", compute)


def _path_bound(grid: Grid, ev: Evaluator):
    def compute():
        p = _pair_points(grid.d, grid.theta, grid.delta)
        return ev.path_bounds(grid.alpha, p["d"], p["a"], p["b"]).ravel()  # α fastest

    return ev.shared("path_bound", compute)


# ----------------------------------------------------------------------------------------------
# The statements.


def _fisher_bound_statement(name, source, description, bound_fn, *, lower=False):
    def evaluate(grid, ev):
        p, fisher, error = _fisher(grid, ev)
        bound = np.asarray(bound_fn(p["d"], p["theta"]))
        tol = error + FISHER_TOL * fisher + CLOSED_FORM_TOL * np.abs(bound)
        small, large = (bound, fisher) if lower else (fisher, bound)
        return Comparison(small, large, tol, p)

    return Statement(name, source, "inequality", description, evaluate)


def _divergence_bound_statement(name, source, kind, description, bound_fn):
    """``D_α(P_a ‖ P_b) <= bound_fn(points, grid, ev)`` over the pairs and orders."""

    def evaluate(grid, ev):
        p, renyi = _renyi(grid, ev)
        bound, bound_tol = bound_fn(p, grid, ev)
        bound = np.asarray(bound)
        tol = RENYI_TOL * np.abs(renyi) + bound_tol * np.abs(bound)
        return Comparison(renyi, bound, tol, p)

    return Statement(name, source, kind, description, evaluate)


def _postprocessing(p, grid, ev):
    return bounds.gaussian_renyi(p["alpha"], np.abs(p["a"] - p["b"])), CLOSED_FORM_TOL


def _theorem52(variant):
    def bound(p, grid, ev):
        value = bounds.theorem52_bound(p["alpha"], p["d"], p["C"], p["Delta"], variant=variant)
        return value, CLOSED_FORM_TOL

    return bound


def _path(p, grid, ev):
    return _path_bound(grid, ev), PATH_BOUND_TOL


def _path_below_theorem52(grid, ev):
    p, _ = _renyi(grid, ev)
    path = _path_bound(grid, ev)
    thm = np.asarray(bounds.theorem52_bound(p["alpha"], p["d"], p["C"], p["Delta"]))
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


def _local_expansion(grid, ev):
    """Prop 3.1: D_α(P_{θ+δ} ‖ P_θ)/(α I(θ) δ²/2) → 1 as δ → 0, at δ = 1e-4·min(θ, 1)/α.

    The next term is of relative size O(αδ·|∂ log I|) = O(αδ/min(θ, 1)), hence ``level``.
    """
    p = _with_alpha(_fisher_points(grid.d, grid.theta), grid.alpha)
    step = LOCAL_STEP * np.minimum(p["theta"], 1.0) / p["alpha"]
    renyi = ev.renyi(p["alpha"], p["d"], p["theta"] + step, p["theta"])
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
        bounds.gaussian_renyi(coords["alpha"], np.abs(coords["a"] - coords["b"]))
    )
    _, upper = bounds.theorem51_envelope(coords["d"], coords["b"], coords["C"])
    return Comparison(eta, np.asarray(upper), RENYI_TOL * eta, coords)


#: Where Prop 4.3's limit t → ∞ is sampled (the top of renyi_ncx2's validated range).
PROP43_T = 100.0


def _proposition43(grid, ev):
    """Prop 4.3: D_α(χ²_d(t²)‖χ²_d((t+Δ)²))/(αΔ²/2) → 1 as t → ∞, sampled at t = 100, d ≤ 10.

    For fixed d the Fisher information is 1 − O(d/t²), so the ratio is within O(d/t²) of 1 plus
    an O(αΔ/t) correction; larger d need larger t (I(d, t) ≈ 2t²/(2t²+d)), hence d ≤ 10.
    """
    small_d = [d for d in grid.d if d <= 10.0] or [min(grid.d)]
    d, delta, alpha = (
        x.ravel() for x in np.meshgrid(small_d, grid.delta, grid.alpha, indexing="ij")
    )
    t = np.full_like(d, PROP43_T)
    renyi = ev.renyi(alpha, d, t, t + delta)
    ratio = renyi / (0.5 * alpha * delta**2)
    return Approach(ratio, 0.1, {"d": d, "Delta": delta, "alpha": alpha, "t": t})


# ----------------------------------------------------------------------------------------------
# k > 1: Monte Carlo estimates against Theorems 5.3 and 5.4 (kind "statistical").


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
        bound = bounds.theorem53_fisher_bound(r["L2"], r["rho"], r["m"], variant=variant)
        return _compare(r, bound, exact, FISHER_TOL)

    return evaluate


def _theorem54(variant, exact):
    def evaluate(grid, ev):
        r = _wishart_renyi(grid, ev, exact)
        bound = bounds.theorem54_bound(
            r["alpha"], r["d"], r["k"], r["C"], r["Delta"], variant=variant
        )
        return _compare(r, bound, exact, WISHART_RENYI_TOL)

    return evaluate


def _wishart_postprocessing(exact):
    def evaluate(grid, ev):
        r = _wishart_renyi(grid, ev, exact)
        return _compare(r, bounds.gaussian_renyi(r["alpha"], r["Delta"]), exact, WISHART_RENYI_TOL)

    return evaluate


_MC = "MC est − 3se"


def _wishart_statements(exact: bool) -> tuple[Statement, ...]:
    """Theorems 5.3, 5.4 and post-processing for k > 1: exact (k = 2) or Monte Carlo (k ≥ 3)."""
    tag, kind = (", k = 2", "inequality") if exact else (", k ≥ 3", "statistical")
    fisher = "I(θ)" if exact else f"{_MC} of I(θ)"
    renyi = "D_α(VᵀV‖WᵀW)" if exact else f"{_MC} of D_α(VᵀV‖WᵀW)"
    return (
        Statement(
            "Theorem 5.3 (re-derived)" + tag,
            "Thm 5.3 / MATH.md §4",
            kind,
            f"{fisher} <= ‖Uw−v‖²·2ρ²/(2ρ²+m−3), m = ⌊d/k⌋, ρ = ‖μ(θ)‖",
            _theorem53("rederived", exact),
            wishart=True,
        ),
        Statement(
            "Theorem 5.3 (as printed)" + tag,
            "Thm 5.3, App. F.1",
            "as printed",
            f"{fisher} <= ‖Uw−v‖²·ρ²/(ρ²+m−3)",
            _theorem53("printed", exact),
            wishart=True,
        ),
        Statement(
            "Theorem 5.4 (re-derived)" + tag,
            "Thm 5.4 / MATH.md §4",
            kind,
            f"{renyi} <= Theorem 5.2 form with d → ⌊d/k⌋, ‖v−w‖ = Δ",
            _theorem54("rederived", exact),
            wishart=True,
        ),
        Statement(
            "Theorem 5.4 (as printed)" + tag,
            "Thm 5.4, main text",
            "as printed",
            f"{renyi} <= printed Theorem 5.2 form with d → ⌊d/k⌋",
            _theorem54("printed", exact),
            wishart=True,
        ),
        Statement(
            "Post-processing" + tag,
            "Sec. 2",
            kind,
            f"{renyi} <= α‖v−w‖²/2",
            _wishart_postprocessing(exact),
            wishart=True,
        ),
    )


WISHART_STATEMENTS: tuple[Statement, ...] = _wishart_statements(True) + _wishart_statements(False)


# ----------------------------------------------------------------------------------------------
# Variational estimates (kind "variational"): the interval's lower end against bounds and exact
# values. Each estimator family runs once (Evaluator.shared) for all its rows.


# The exact values and the path bound at these tens of points come from the public functions
# (shape buckets of a few points), not from the Evaluator's chunks of thousands.


def _variational_fisher(grid: Grid, ev: Evaluator):
    """k = 1: the estimates at the Fisher points, with the exact I and its error estimate."""

    def compute():
        vg = grid.variational
        p = _fisher_points(vg.fisher_d, vg.fisher_theta)
        exact = ncx2_amplitude_fisher(p["d"], p["theta"], return_error=True)
        rows = p | k1_fisher_estimates(vg, p["d"], p["theta"])
        return rows, *(np.asarray(x, dtype=float) for x in exact)

    return ev.shared("variational_fisher", compute)


def _variational_renyi(grid: Grid, ev: Evaluator):
    """k = 1: the estimates at the pairs and orders (α fastest), with the exact D_α."""

    def compute():
        vg = grid.variational
        p = _with_alpha(_pair_points(vg.renyi_d, vg.renyi_C, vg.renyi_delta), vg.alpha)
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
    bound = np.asarray(bounds.fisher_upper_prop51(rows["d"], rows["theta"]))
    return _variational(rows, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_fisher_exact(grid, ev):
    rows, fisher, error = _variational_fisher(grid, ev)
    return _against_exact(rows, fisher, error + FISHER_TOL * fisher)


def _variational_path_bound(grid, ev):
    rows, _ = _variational_renyi(grid, ev)
    bound = np.asarray(bounds.path_bound_ncx2(rows["alpha"], rows["d"], rows["a"], rows["b"]))
    return _variational(rows, bound, PATH_BOUND_TOL * np.abs(bound))


def _variational_theorem52(grid, ev):
    rows, _ = _variational_renyi(grid, ev)
    bound = np.asarray(bounds.theorem52_bound(rows["alpha"], rows["d"], rows["C"], rows["Delta"]))
    return _variational(rows, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_renyi_exact(grid, ev):
    rows, renyi = _variational_renyi(grid, ev)
    return _against_exact(rows, renyi, RENYI_TOL * np.abs(renyi))


def _variational_wishart(grid: Grid, ev: Evaluator, key: str, rows_fn) -> dict:
    """k > 1: the Fisher (``wishart_fisher_rows``) or Rényi (``wishart_renyi_rows``) rows."""
    return ev.shared(key, lambda: rows_fn(grid.variational))


def _variational_theorem53(grid, ev):
    r = _variational_wishart(grid, ev, "variational_wishart_fisher", wishart_fisher_rows)
    bound = np.asarray(bounds.theorem53_fisher_bound(r["L2"], r["rho"], r["m"]))
    return _variational(r, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_theorem54(grid, ev):
    r = _variational_wishart(grid, ev, "variational_wishart_renyi", wishart_renyi_rows)
    bound = np.asarray(bounds.theorem54_bound(r["alpha"], r["d"], r["k"], r["C"], r["Delta"]))
    return _variational(r, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_postprocessing(grid, ev):
    r = _variational_wishart(grid, ev, "variational_wishart_renyi", wishart_renyi_rows)
    bound = np.asarray(bounds.gaussian_renyi(r["alpha"], r["Delta"]))
    return _variational(r, bound, CLOSED_FORM_TOL * np.abs(bound))


def _variational_statement(name, source, description, evaluate, kind="variational"):
    return Statement(name + ", variational", source, kind, description, evaluate, variational=True)


_CI = "95% CI low of"

VARIATIONAL_STATEMENTS: tuple[Statement, ...] = (
    _variational_statement(
        "Fisher upper bound",
        "Prop 5.1",
        f"{_CI} Î(d,θ) <= 2θ²/(2θ²+d−3) (1 for d <= 3)",
        _variational_prop51,
    ),
    _variational_statement(
        "Fisher information (exact)",
        "ncx2_amplitude_fisher",
        f"{_CI} Î(d,θ) <= exact I(d,θ)",
        _variational_fisher_exact,
        kind="variational exact",
    ),
    _variational_statement(
        "Path bound, exact √I",
        "Prop 3.2",
        f"{_CI} D̂_α(P_a‖P_b) <= the path bound with the exact √I",
        _variational_path_bound,
    ),
    _variational_statement(
        "Theorem 5.2 (re-derived)",
        "Thm 5.2 / MATH.md §2",
        f"{_CI} D̂_α(P_a‖P_b) <= Theorem 5.2 re-derived",
        _variational_theorem52,
    ),
    _variational_statement(
        "Rényi divergence (exact)",
        "renyi_ncx2",
        f"{_CI} D̂_α(P_a‖P_b) <= exact D_α",
        _variational_renyi_exact,
        kind="variational exact",
    ),
    _variational_statement(
        "Theorem 5.3 (re-derived), k > 1",
        "Thm 5.3 / MATH.md §4",
        f"{_CI} Î(θ) <= ‖Uw−v‖²·2ρ²/(2ρ²+m−3), m = ⌊d/k⌋, ρ = ‖μ(θ)‖",
        _variational_theorem53,
    ),
    _variational_statement(
        "Theorem 5.4 (re-derived), k > 1",
        "Thm 5.4 / MATH.md §4",
        f"{_CI} D̂_α(VᵀV‖WᵀW) <= Theorem 5.2 form with d → ⌊d/k⌋, ‖v−w‖ = Δ",
        _variational_theorem54,
    ),
    _variational_statement(
        "Post-processing, k > 1",
        "Sec. 2",
        f"{_CI} D̂_α(VᵀV‖WᵀW) <= α‖v−w‖²/2",
        _variational_postprocessing,
    ),
)


STATEMENTS: tuple[Statement, ...] = (
    _fisher_bound_statement(
        "Fisher lower bound",
        "Prop 5.1",
        "I(d,θ) >= 2θ²/(2θ²+d)",
        bounds.fisher_lower_prop51,
        lower=True,
    ),
    _fisher_bound_statement(
        "Fisher upper bound",
        "Prop 5.1",
        "I(d,θ) <= 2θ²/(2θ²+d−3) (1 for d <= 3)",
        bounds.fisher_upper_prop51,
    ),
    _fisher_bound_statement(
        "Fisher quadratic bound",
        "App. E.1",
        "I <= (√(a²+4θ²) − a)/2, a = θ² + (d−3)/2",
        bounds.fisher_upper_quadratic,
    ),
    _fisher_bound_statement(
        "Fisher Idier–Collewet bound",
        "App. E.1",
        "I <= min(1, 2θ²/d)",
        bounds.fisher_upper_idier_collewet,
    ),
    _fisher_bound_statement(
        "Fisher Poincaré bound",
        "App. F.3",
        "I <= 2θ²(θ²+2d)/(2d²+θ²(θ²+2d))",
        bounds.fisher_upper_poincare,
    ),
    _fisher_bound_statement(
        "Fisher post-processing bound",
        "Sec. 5",
        "I <= 1",
        bounds.fisher_upper_trivial,
    ),
    _divergence_bound_statement(
        "Post-processing",
        "Sec. 2",
        "inequality",
        "D_α(P_a‖P_b) <= α(a−b)²/2",
        _postprocessing,
    ),
    _divergence_bound_statement(
        "Path bound, exact √I",
        "Prop 3.2",
        "inequality",
        "D_α <= log(1 + α∫√I(z) e^{(α−1)(2α−1)(z−b)²/2} dz)/(α−1)",
        _path,
    ),
    _divergence_bound_statement(
        "Theorem 5.2 (re-derived)",
        "Thm 5.2 / MATH.md §2",
        "inequality",
        "D_α <= log(1 + α√(2C²/(2C²+d−3))·2(e^{sΔ²}−1)/((α−1)(2α−1)Δ))/(α−1)",
        _theorem52("rederived"),
    ),
    _divergence_bound_statement(
        "Theorem 5.2 (as printed)",
        "Thm 5.2, main text",
        "as printed",
        "D_α <= log(1 + α(2C²/(2C²+d−3))(e^{sΔ²}−1)/((α−1)(2α−1)Δ))/(α−1)",
        _theorem52("printed"),
    ),
    Statement(
        "Path bound <= Theorem 5.2",
        "Prop 3.2 vs Thm 5.2",
        "inequality",
        "the exact-√I path bound never exceeds its closed form",
        _path_below_theorem52,
    ),
    Statement(
        "Monotone in α",
        "Rényi divergence",
        "inequality",
        "D_α <= D_α' for α < α' (consecutive grid orders)",
        _monotone_in_alpha,
    ),
    Statement(
        "Local expansion (limit)",
        "Prop 3.1",
        "limit",
        "D_α(P_{θ+δ}‖P_θ)/(αIδ²/2) → 1 as δ → 0; shown at δ = 1e-4·min(θ,1)/α",
        _local_expansion,
    ),
    Statement(
        "Theorem 5.1 upper end (leading order)",
        "Thm 5.1",
        "leading order",
        "η = D_α/(α(a−b)²/2) <= 2C²/(2C²+d−3) to leading order in Δ; finite Δ shown",
        _theorem51,
    ),
    Statement(
        "No amplification without C (limit)",
        "Prop 4.3",
        "limit",
        "D_α(χ²_d(t²)‖χ²_d((t+Δ)²))/(αΔ²/2) → 1 as t → ∞; shown at t = 100 against 1",
        _proposition43,
    ),
    *WISHART_STATEMENTS,
    *VARIATIONAL_STATEMENTS,
)


def _summarize(statement: Statement, outcome: Comparison | Approach) -> StatementResult:
    points = int(np.size(outcome.ratio if isinstance(outcome, Approach) else outcome.small))
    if points == 0:  # e.g. k ≥ 3 rows on a grid with k = 2 only
        return StatementResult(
            statement.name,
            statement.source,
            statement.kind,
            statement.description,
            0,
            0,
            "no points",
            math.nan,
            {},
        )
    if isinstance(outcome, Approach):
        deviation = np.abs(np.asarray(outcome.ratio, dtype=float) - 1.0)
        deviation = np.where(np.isnan(deviation), np.inf, deviation)
        i = int(np.argmax(deviation))
        violations = int(np.sum(deviation > outcome.level))
        metric_name, metric, extra = "max |ratio - 1|", deviation[i], {"ratio": outcome.ratio[i]}
    else:
        small, large, tol = (
            np.asarray(x, dtype=float) for x in (outcome.small, outcome.large, outcome.tol)
        )
        excess = small - large
        violations = int(np.sum(~(excess <= tol)))  # NaN counts as a violation
        scale = np.where(np.abs(large) > 0, np.abs(large), 1.0)
        slack = np.where(np.isfinite(excess), -excess / scale, -np.inf)
        i = int(np.argmin(slack))
        metric_name, metric, extra = (
            "min relative slack",
            slack[i],
            {"small": small[i], "large": large[i]},
        )
    where = {k: float(v[i]) for k, v in outcome.coords.items()}
    where |= {k: float(v) for k, v in extra.items()}
    reliable = getattr(outcome, "reliable", None)
    covered = getattr(outcome, "covered", None)
    return StatementResult(
        statement.name,
        statement.source,
        statement.kind,
        statement.description,
        int(np.size(outcome.ratio if isinstance(outcome, Approach) else outcome.small)),
        violations,
        metric_name,
        float(metric),
        where,
        0 if reliable is None else int(np.sum(~np.asarray(reliable, bool))),
        None if covered is None else int(np.sum(covered)),
    )


def run_checks(
    grid: Grid | None = None,
    *,
    statements: Sequence[Statement] = STATEMENTS,
    progress: Callable[[str | None], None] | None = None,
    chunk: int = 2048,
) -> list[StatementResult]:
    """Evaluate ``statements`` on ``grid`` (default :class:`Grid`); one result per statement.

    Args:
        grid: The parameter grid.
        statements: The statements to check (default: all of :data:`STATEMENTS`).
        progress: Called with ``None`` after every evaluated chunk of points and with the
            statement's name after each statement (drives ``fisherrdp verify``'s progress bar).
        chunk: Points per compiled call.

    Returns:
        A list of :class:`StatementResult`, in the order of ``statements``.

    Examples:
        >>> from fisherrdp._src.checks import Grid, STATEMENTS, run_checks
        >>> grid = Grid(d=(1.0, 10.0), theta=(0.5, 2.0), delta=(0.5,), alpha=(2.0,))
        >>> [r.violations for r in run_checks(grid, statements=STATEMENTS[:2], chunk=128)]
        [0, 0]
    """
    grid = Grid() if grid is None else grid
    report = progress or (lambda name: None)
    evaluator = Evaluator(chunk, on_chunk=lambda: report(None))
    results = []
    for statement in statements:
        results.append(_summarize(statement, statement.evaluate(grid, evaluator)))
        report(statement.name)
    return results

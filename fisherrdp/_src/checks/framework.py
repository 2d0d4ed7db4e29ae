r"""The machinery of the checks: statements, their outcomes, the grid, and the evaluator of exact
quantities in fixed-size chunks (one compilation per function, whatever the grid).

The kinds of rows and the allowances are described in :mod:`fisherrdp._src.checks.statements`.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from fisherrdp._src.bounds.path_bound import path_bounds_over_alphas
from fisherrdp._src.checks.variational import (
    VariationalGrid,
)
from fisherrdp._src.checks.wishart import WishartGrid
from fisherrdp._src.core.engine import map_points
from fisherrdp._src.divergences.renyi import renyi_vec
from fisherrdp._src.fisher.ncx2 import fisher_with_error_vec

__all__ = [
    "CLOSED_FORM_TOL",
    "FAILING_KINDS",
    "FISHER_TOL",
    "PATH_BOUND_TOL",
    "RENYI_TOL",
    "WISHART_RENYI_TOL",
    "Approach",
    "Comparison",
    "Evaluator",
    "Grid",
    "Statement",
    "StatementResult",
    "summarize",
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
    ``Grid.wishart``, ``variational`` the rows of variational estimates; ``bound`` and ``against``
    name the public functions compared (the theorem index, ``docs/theorems.md``, lists them)."""

    name: str
    source: str
    kind: str  # "inequality", "as printed", "leading order", "limit", "statistical",
    # "variational" or "variational exact"
    description: str
    evaluate: Callable[[Grid, Evaluator], Comparison | Approach]
    wishart: bool = False
    variational: bool = False
    #: The public function of the bound (``fisherrdp.<module>.<name>``; "" for a property).
    bound: str = ""
    #: The public function whose values the bound is checked against (exact, Monte Carlo or
    #: variational).
    against: str = ""


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


def _path_bounds(d, a, b, *alphas):
    """Prop 3.2 path bounds, shape ``(len(d), len(alphas))``; the orders are static floats."""
    # The barrier keeps XLA from folding the orders into the kernel as constants, which moves
    # some values by an ulp: with it, the bounds are those of the orders passed as an array.
    alphas = jax.lax.optimization_barrier(jnp.asarray(alphas))
    return path_bounds_over_alphas(alphas, d, a, b)


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
        """``fn`` at each distinct point once: grids repeat points (the pair (C, 0) comes back
        for every Δ ≥ C, 29% of the default k = 1 pairs)."""
        points = np.stack(np.broadcast_arrays(*(np.asarray(a, float) for a in arrays)), axis=1)
        distinct, where = np.unique(points, axis=0, return_inverse=True)
        outputs = map_points(fn, list(distinct.T), chunk=chunk, static=static,
                             on_chunk=self.on_chunk)
        return tuple(out[where.reshape(-1)] for out in outputs)

    def fisher(self, d, theta):
        """Fisher information and its error estimate (``ncx2_amplitude_fisher``)."""
        return self._map(fisher_with_error_vec, [d, theta], self.chunk)

    def renyi(self, alpha, d, a, b):
        """Exact D_α(χ²_d(a²) ‖ χ²_d(b²)) (``renyi_ncx2``)."""
        return self._map(renyi_vec, [alpha, d, a, b], self.chunk)[0]

    def path_bounds(self, alphas, d, a, b):
        """Prop 3.2 path bounds, shape ``(len(d), len(alphas))``."""
        static = tuple(float(x) for x in alphas)
        return self._map(_path_bounds, [d, a, b], max(1, self.chunk // 16), static)[0]

    def shared(self, key: str, compute: Callable[[], object]):
        """``compute()`` once per key (quantities used by several statements)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]


def summarize(statement: Statement, outcome: Comparison | Approach) -> StatementResult:
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

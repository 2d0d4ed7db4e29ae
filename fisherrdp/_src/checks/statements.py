r"""Numerical checks of the paper's statements: exact for k ≤ 2, Monte Carlo for k ≥ 3.

Every statement fisherrdp can evaluate exactly becomes a :class:`Statement`: a name, the
paper's reference, a kind, and a function of a :class:`Grid` that returns either the two sides
of an inequality ``small <= large`` at every grid point with an allowance for numerical error
(:class:`Comparison`), or a ratio that tends to 1 in a limit (:class:`Approach`).
:func:`run_checks` evaluates them (``fisherrdp verify`` is its command line) and reports, per
statement, the number of points, the violations beyond the allowance, and the smallest relative
slack ``(large - small)/|large|`` (or the largest ``|ratio - 1|``) with where it occurs.

Kinds of rows:

* ``inequality`` — a proven statement of the paper (or of ``docs/math/paper.md``'s re-derivation), or a
  property of Rényi divergences; a violation beyond numerical error is a failure.
* ``as printed`` — a statement in the form the extracted paper text prints it, where
  ``docs/math/paper.md#theorem-52`` finds the text garbled (Theorem 5.2 without the square root and factor 2);
  violations are reported as evidence about the misprint, not as failures.
* ``leading order`` — an inequality the paper states to leading order in Δ (Theorem 5.1),
  evaluated at finite Δ; violations show where the leading order stops describing it.
* ``limit`` — a limit (Prop 3.1's local expansion, Prop 4.3's "no amplification without the
  bound C"), shown as the largest ``|ratio - 1|`` at a sampled distance from the limit.
* ``statistical`` — a proven statement for :math:`k \ge 3` (Theorem 5.3 re-derived, Theorem 5.4
  re-derived, post-processing) checked against a **Monte Carlo estimate** ``est`` with standard
  error ``se`` (:mod:`fisherrdp._src.checks.wishart`). The compared side is ``est - 3 se``
  (``Z_MARGIN = 3``): a point is a violation only if ``est - 3 se > bound`` (beyond the
  closed-form allowance), and the slack is ``(bound - (est - 3 se))/|bound|``. A violation is a
  failure, like an ``inequality`` row's (at most ≈ 0.13% per point if the truth sat exactly at
  the bound). The printed readings of Theorems 5.3 and 5.4 use the same margin with kind
  ``as printed`` (evidence, never a failure).
* ``variational`` — a proven statement checked against a **variational estimate** from samples
  only (:mod:`fisherrdp._src.checks.variational`: trained test functions, 95% intervals; k = 1
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
  (:class:`~fisherrdp._src.checks.variational.VariationalGrid`).

The exact quantities are evaluated by :class:`Evaluator` in padded chunks of fixed size
(:func:`fisherrdp._src.core.engine.map_points`: one compilation per function, whatever the grid,
sharded over the local devices) and shared between statements.

Grids (defaults of ``fisherrdp verify``, from the issue), k = 1: ``d`` log-spaced on
:math:`[1, 10^4]`, ``theta`` (θ for Fisher statements, the norm bound C for divergence
statements) log-spaced on :math:`[0.01, 100]`, ``delta`` on :math:`(0, 2]`, and
:math:`\alpha \in \{1.25, 1.5, 2, 4, 8, 16, 32, 64\}`. Divergence statements use the pairs
:math:`(a, b) = (C, \max(C - \Delta, 0))` and the reverse order, so :math:`a, b \le C` and
:math:`|a - b| \le \Delta`. The k > 1 rows use ``Grid.wishart``
(:class:`~fisherrdp._src.checks.wishart.WishartGrid`: (k, d) ∈ {(2, 4), (2, 48), (3, 48)},
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

from collections.abc import Callable, Sequence

from fisherrdp._src.checks.framework import Evaluator, Grid, Statement, StatementResult, summarize
from fisherrdp._src.checks.k1 import K1_STATEMENTS
from fisherrdp._src.checks.variational import VariationalGrid
from fisherrdp._src.checks.variational_statements import VARIATIONAL_STATEMENTS
from fisherrdp._src.checks.wishart import WishartGrid
from fisherrdp._src.checks.wishart_statements import WISHART_STATEMENTS

__all__ = [
    "STATEMENTS",
    "Grid",
    "Statement",
    "StatementResult",
    "VariationalGrid",
    "WishartGrid",
    "run_checks",
]


STATEMENTS: tuple[Statement, ...] = (*K1_STATEMENTS, *WISHART_STATEMENTS, *VARIATIONAL_STATEMENTS)


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
        >>> from fisherrdp._src.checks.statements import Grid, STATEMENTS, run_checks
        >>> grid = Grid(d=(1.0, 10.0), theta=(0.5, 2.0), delta=(0.5,), alpha=(2.0,))
        >>> [r.violations for r in run_checks(grid, statements=STATEMENTS[:2], chunk=128)]
        [0, 0]
    """
    grid = Grid() if grid is None else grid
    report = progress or (lambda name: None)
    evaluator = Evaluator(chunk, on_chunk=lambda: report(None))
    results = []
    for statement in statements:
        results.append(summarize(statement, statement.evaluate(grid, evaluator)))
        report(statement.name)
    return results

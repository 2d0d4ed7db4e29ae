"""Numerical checks of the paper's statements on grids: the engine of ``fisherrdp verify``.

``run_checks(grid)`` evaluates every statement in ``STATEMENTS`` on a ``Grid`` and returns one
``StatementResult`` per statement (points, violations beyond numerical error, tightest slack and
where). k = 1 statements are exact; Theorems 5.3 and 5.4 (k > 1) are checked against Monte
Carlo estimates on ``Grid.wishart`` (a ``WishartGrid``). Implementation, the statements and
their numerical allowances: :mod:`fisherrdp._src.checks.statements`.
"""

from fisherrdp._src.checks.statements import (
    STATEMENTS,
    Grid,
    Statement,
    StatementResult,
    WishartGrid,
    run_checks,
)

__all__ = ["STATEMENTS", "Grid", "Statement", "StatementResult", "WishartGrid", "run_checks"]

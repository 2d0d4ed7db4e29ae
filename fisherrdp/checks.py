"""Numerical checks of the paper's statements (k = 1) on grids: the engine of ``fisherrdp verify``.

``run_checks(grid)`` evaluates every statement in ``STATEMENTS`` on a ``Grid`` and returns one
``StatementResult`` per statement (points, violations beyond numerical error, tightest slack and
where). Implementation, the statements and their numerical allowances:
:mod:`fisherrdp._src.checks`.
"""

from fisherrdp._src.checks import STATEMENTS, Grid, Statement, StatementResult, run_checks

__all__ = ["Grid", "Statement", "StatementResult", "STATEMENTS", "run_checks"]

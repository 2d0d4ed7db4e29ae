"""The command line: subcommand registry, default subcommand, and the demo table."""

import math
import re

import pytest

from fisherrdp._src.commands import cli


def test_registry_has_demo():
    registry = cli.load_subcommands()
    assert "demo" in registry
    assert cli.DEFAULT_SUBCOMMAND in registry


@pytest.mark.parametrize("argv", [[], ["demo"], ["demo", "--point", "999,50"]])
def test_demo_runs(argv, capsys):
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "log I_v(x)" in out
    assert "999" in out


def test_version(capsys):
    """``fisherrdp --version`` prints the package's version (pyproject.toml reads the same one)."""
    from fisherrdp._src.core.version import VERSION

    with pytest.raises(SystemExit) as e:
        cli.main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out == f"fisherrdp {VERSION}\n"
    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION), "semantic versioning: MAJOR.MINOR.PATCH"


def test_demo_table_finite_where_scipy_fails():
    pytest.importorskip("mpmath")
    from fisherrdp._src.commands import demo

    rows = demo.reference_table([(999.0, 50.0), (0.5, 1e5)])
    for r in rows:
        assert math.isfinite(r["fisherrdp"])
        assert abs(r["fisherrdp"] - r["mpmath"]) <= 1e-14 * max(1.0, abs(r["mpmath"]))
    assert rows[0]["scipy_log_iv"] == -math.inf  # SciPy underflows here

"""``fisherrdp verify`` and the check engine behind it (fisherrdp._src.checks)."""

import json

import numpy as np
import pytest

from fisherrdp._src import checks, cli

SMALL = ["--nd", "2", "--ntheta", "2", "--delta", "0.5,2", "--alpha", "2,16", "--chunk", "128"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "report.json"
    status = cli.main(["verify", *SMALL, "--json", str(path), "--no-progress"])
    return status, json.loads(path.read_text())


def test_verify_passes_on_a_small_grid_and_writes_every_statement(report):
    status, data = report
    assert status == 0 and data["failed"] == []
    assert [row["name"] for row in data["statements"]] == [s.name for s in checks.STATEMENTS]
    for row in data["statements"]:
        assert row["points"] > 0, row["name"]
        assert np.isfinite(row["metric"]), row["name"]
        if row["kind"] == "inequality":
            assert row["violations"] == 0, row


def test_verify_rows_have_the_expected_content(report):
    _, data = report
    rows = {row["name"]: row for row in data["statements"]}
    # 2 d × 2 C × 2 Δ pairs in both orders, at 2 orders each.
    assert rows["Post-processing"]["points"] == 2 * 2 * 2 * 2 * 2
    assert rows["Monotone in α"]["points"] == 2 * 2 * 2 * 2
    # Fisher bounds are tight somewhere (slack close to 0) and the path bound has real slack.
    assert abs(rows["Fisher lower bound"]["metric"]) < 1e-3
    assert rows["Path bound, exact √I"]["metric"] > 0
    # The local expansion is close to its limit; Prop 4.3's ratio is below 1 at t = 100.
    assert rows["Local expansion (limit)"]["metric"] < 1e-3
    assert 0 < rows["No amplification without C (limit)"]["where"]["ratio"] < 1
    assert data["grid"]["alpha"] == [2.0, 16.0]


def test_verify_table_is_printed(capsys, tmp_path):
    status = cli.main(["verify", *SMALL, "--only", "Fisher lower", "--no-progress"])
    out = capsys.readouterr().out
    assert status == 0
    assert "Fisher lower bound" in out and "Prop 5.1" in out and "all inequalities hold" in out


def _failing_statement():
    def evaluate(grid, evaluator):
        small = np.array([1.0, 2.0, 3.0])
        large = np.array([2.0, 2.0, 2.5])
        coords = {"x": np.array([0.0, 1.0, 2.0])}
        return checks.Comparison(small, large, np.zeros(3), coords)

    return checks.Statement("Deliberately false", "test", "inequality", "x <= y", evaluate)


def test_a_violated_inequality_is_reported_and_sets_exit_status_1(monkeypatch, capsys):
    result = checks.run_checks(checks.Grid(), statements=[_failing_statement()])[0]
    assert result.failed and result.violations == 1
    assert result.where["x"] == 2.0 and result.metric == pytest.approx(-0.2)
    monkeypatch.setattr(checks, "STATEMENTS", (_failing_statement(),))
    assert cli.main(["verify", "--no-progress"]) == 1
    assert "FAIL" in capsys.readouterr().out


def test_limit_and_printed_rows_never_fail():
    row = checks.StatementResult("x", "s", "as printed", "", 3, 2, "min relative slack", -1.0, {})
    assert not row.failed
    assert not checks.StatementResult(
        "x", "s", "limit", "", 3, 2, "max |ratio - 1|", 1.0, {}
    ).failed


@pytest.mark.parametrize(
    "argv",
    [
        ["--nd", "0"],
        ["--d-range", "0,10"],
        ["--alpha", "1,2"],
        ["--delta", "-1"],
        ["--chunk", "4"],
        ["--only", "no such statement"],
    ],
)
def test_bad_options_give_exit_status_2(argv, capsys):
    assert cli.main(["verify", *argv, "--no-progress"]) == 2
    assert "error" in capsys.readouterr().err


def test_grid_rejects_bad_values():
    with pytest.raises(ValueError, match="'alpha'"):
        checks.Grid(alpha=(1.0,))
    with pytest.raises(ValueError, match="'d'"):
        checks.Grid(d=(0.5,))

"""``fisherrdp verify`` and the check engine behind it (fisherrdp._src.checks)."""

import json

import numpy as np
import pytest

from fisherrdp._src.checks import framework, wishart_statements
from fisherrdp._src.checks import statements as checks
from fisherrdp._src.commands import cli

SMALL = ["--nd", "2", "--ntheta", "2", "--delta", "0.5,2", "--alpha", "2,16", "--chunk", "128"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "report.json"
    status = cli.main(["verify", *SMALL, "--no-wishart", "--json", str(path), "--no-progress"])
    return status, json.loads(path.read_text())


def test_verify_passes_on_a_small_grid_and_writes_every_statement(report):
    status, data = report
    assert status == 0 and data["failed"] == []
    k1 = [s.name for s in checks.STATEMENTS if not s.wishart and not s.variational]
    assert [row["name"] for row in data["statements"]] == k1
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
        return framework.Comparison(small, large, np.zeros(3), coords)

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
        ["--wishart-samples", "1"],
        ["--wishart-k", "1"],
        ["--wishart-d", "2"],  # d < max(k) = 3
        ["--wishart-C", "0"],
        ["--wishart-delta", "1.5"],  # Δ >= C = 1
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


# ----------------------------------------------------------------------------------------------
# k > 1: Theorems 5.3 and 5.4, exact for k = 2 (kind "inequality"), against Monte Carlo
# estimates for k = 3 (kind "statistical").

WISHART_SMALL = [
    "--wishart-k",
    "2,3",
    "--wishart-d",
    "6",
    "--wishart-delta",
    "0.5",
    "--wishart-samples",
    "500",
]


@pytest.fixture(scope="module")
def wishart_report(tmp_path_factory):
    path = tmp_path_factory.mktemp("verify") / "wishart.json"
    argv = [
        "verify",
        "--only",
        "k = 2",
        "--only",
        "k ≥ 3",
        *WISHART_SMALL,
        "--json",
        str(path),
        "--no-progress",
    ]
    status = cli.main(argv)
    return status, json.loads(path.read_text())


def test_wishart_rows_hold_and_have_the_expected_content(wishart_report):
    status, data = wishart_report
    assert status == 0 and data["failed"] == []
    assert [row["name"] for row in data["statements"]] == [
        s.name for s in checks.STATEMENTS if s.wishart
    ]
    assert data["grid"]["wishart"]["dims"] == [[2, 6], [3, 6]]
    assert data["grid"]["wishart"]["n_samples"] == 500
    rows = {row["name"]: row for row in data["statements"]}
    for tag, k in ((", k = 2", 2), (", k ≥ 3", 3)):
        fisher = ("Theorem 5.3 (re-derived)" + tag, "Theorem 5.3 (as printed)" + tag)
        renyi = (
            "Theorem 5.4 (re-derived)" + tag,
            "Theorem 5.4 (as printed)" + tag,
            "Post-processing" + tag,
        )
        for name in fisher:  # 1 (k, d) × 1 Δ × 5 kinds of pairs × 3 θ
            assert rows[name]["points"] == 15, name
        for name in renyi:  # 5 pairs × 2 orders × 5 α
            assert rows[name]["points"] == 50, name
        for name in fisher + renyi:
            row = rows[name]
            exact = k == 2
            assert row["kind"] == (
                "as printed" if "printed" in name else "inequality" if exact else "statistical"
            ), name
            where = row["where"]
            assert where["k"] == k and where["d"] == 6 and where["stderr"] > 0, name
            if exact:  # the exact value, its error estimate far below it
                assert where["small"] == where["estimate"]
                assert where["stderr"] <= 1e-8 * where["estimate"]
            else:  # the compared side is the estimate minus three standard errors
                assert where["small"] == pytest.approx(
                    where["estimate"] - 3 * where["stderr"], rel=1e-12
                )
            assert row["violations"] == 0 and 0 < row["metric"] < 1, row
        # The printed Theorem 5.3 is never the larger bound (here equal: d = 6 gives m = ⌊d/k⌋
        # ≤ 3, where both readings are the trivial ‖Uw − v‖²; the default grid's d = 48 separates
        # them, see docs/explanation/paper_vs_exact.md).
        assert rows[fisher[1]]["metric"] <= rows[fisher[0]]["metric"]


def test_exact_k2_rows_are_the_exact_functions(wishart_report):
    """The k = 2 rows hold the exact values: the tightest Theorem 5.4 point, recomputed."""
    from fisherrdp._src.checks.wishart import WishartGrid, wishart_pairs
    from fisherrdp.divergences import renyi_ncwishart

    _, data = wishart_report
    where = {row["name"]: row for row in data["statements"]}["Post-processing, k = 2"]["where"]
    grid = WishartGrid(dims=((2, 6), (3, 6)), delta=(0.5,))
    pair = [p for p in wishart_pairs(grid) if p["k"] == 2][int(where["pair"])]
    v, w = (pair["v"], pair["w"]) if where["order"] == 0 else (pair["w"], pair["v"])
    assert float(renyi_ncwishart(where["alpha"], 6.0, v, w)) == pytest.approx(
        where["estimate"], rel=1e-12
    )


def test_statistical_margin_is_three_standard_errors():
    rows = {"estimate": np.array([1.0, 1.0]), "stderr": np.array([0.1, 0.1])}
    comparison = wishart_statements._statistical(rows, np.array([0.75, 0.65]), {"x": np.array([0.0, 1.0])})
    np.testing.assert_allclose(comparison.small, [0.7, 0.7])

    def evaluate(grid, evaluator):
        return comparison

    statement = checks.Statement("MC", "test", "statistical", "est − 3se <= b", evaluate)
    result = checks.run_checks(checks.Grid(), statements=[statement])[0]
    assert result.failed and result.violations == 1 and result.where["x"] == 1.0
    assert result.metric == pytest.approx((0.65 - 0.7) / 0.65)


def test_wishart_pairs_meet_the_theorem_hypotheses():
    from fisherrdp._src.checks.wishart import PAIR_KINDS, WishartGrid, wishart_pairs
    from fisherrdp._src.numerics.linalg import procrustes

    grid = WishartGrid(dims=((2, 6), (2, 12), (3, 6), (3, 12)), C=1.5, delta=(0.3, 1.2))
    pairs = wishart_pairs(grid)
    assert len(pairs) == 2 * 2 * 2 * 5
    kinds = dict(enumerate(PAIR_KINDS))
    for p in pairs:
        v, w, kind = p["v"], p["w"], kinds[p["kind"]]
        assert v.shape == w.shape == (p["d"], p["k"])
        assert np.linalg.norm(v) == pytest.approx(1.5, rel=1e-14)
        assert np.linalg.norm(w) <= 1.5 * (1 + 1e-14)
        assert np.linalg.norm(v - w) == pytest.approx(p["delta"], rel=1e-12)
        rank_v, rank_w = np.linalg.matrix_rank(v), np.linalg.matrix_rank(w)
        assert (rank_v, rank_w) == {"rank_one": (1, 1), "rank_two": (2, 2)}.get(
            kind, (p["k"], p["k"])
        ), kind
        if kind == "rotated":  # same Gram eigenvalues, rotated
            np.testing.assert_allclose(np.linalg.svd(v)[1], np.linalg.svd(w)[1], rtol=1e-12)
        length = np.linalg.norm(procrustes(v, w) - v)
        if kind in ("scaled", "rank_one"):  # the rotation cannot shorten the path
            assert length == pytest.approx(p["delta"], rel=1e-10)
        elif kind in ("random", "rotated"):
            assert length < p["delta"]
        else:
            assert length <= p["delta"] * (1 + 1e-10)
    # deterministic
    again = wishart_pairs(grid)
    assert all(np.array_equal(p["w"], q["w"]) for p, q in zip(pairs, again))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"dims": ((1, 4),)}, "'dims'"),
        ({"dims": ((3, 2),)}, "'dims'"),
        ({"dims": ((2, 4.5),)}, "'dims'"),
        ({"dims": ()}, "'dims'"),
        ({"delta": (2.0,)}, "'delta'"),
        ({"pairs": ("other",)}, "'pairs'"),
        ({"theta": (1.5,)}, "'theta'"),
        ({"alpha": (1.0,)}, "'alpha'"),
        ({"n_samples": 1}, "'n_samples'"),
        ({"C": 0.0}, "'C'"),
    ],
)
def test_wishart_grid_rejects_bad_values(kwargs, match):
    from fisherrdp._src.checks.wishart import WishartGrid

    with pytest.raises(ValueError, match=match):
        WishartGrid(**kwargs)


def test_the_evaluator_computes_each_distinct_point_once():
    chunks = []
    ev = framework.Evaluator(chunk=2, on_chunk=lambda: chunks.append(1))
    x = np.array([3.0, 1.0, 3.0, 2.0, 1.0, 3.0])
    y = np.array([1.0, 2.0, 1.0, 2.0, 2.0, 5.0])
    (out,) = ev._map(lambda x, y: (x * y,), [x, y], chunk=2)
    np.testing.assert_array_equal(out, x * y)
    assert len(chunks) == 2  # 4 distinct points of 6, 2 per chunk

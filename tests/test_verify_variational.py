"""``fisherrdp verify --variational``: the variational rows and their samplers
(fisherrdp._src.checks.variational, the ``variational`` statements of fisherrdp._src.checks.statements)."""

import argparse
import json

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats
from jax.test_util import check_grads

from fisherrdp._src.checks import statements as checks
from fisherrdp._src.checks import variational as variational_checks
from fisherrdp._src.checks import variational_statements
from fisherrdp._src.checks.variational import (
    VariationalGrid,
    gram_draws,
    gram_path_sample,
    ncx2_path_sample,
    reduced_means,
)
from fisherrdp._src.checks.wishart import PAIR_KINDS, WishartGrid, wishart_pairs
from fisherrdp._src.commands import cli, verify
from fisherrdp._src.numerics.linalg import procrustes

#: A tiny grid: one estimator call per family (one (r, k) group each), few steps and draws.
TINY = {
    "fisher_d": (2.0, 10.0),
    "fisher_theta": (1.0,),
    "renyi_d": (2.0,),
    "renyi_C": (1.0,),
    "renyi_delta": (0.5,),
    "alpha": (2.0,),
    "wishart": WishartGrid(
        dims=((2, 4),), delta=(0.75,), pairs=("scaled",), theta=(0.5,), alpha=(2.0,)
    ),
    "hidden": (16,),
    "batch_size": 256,
}
TINY_KNOBS = {"steps": 100, "members": 2, "n_eval": 4000}
VARIATIONAL = [s for s in checks.STATEMENTS if s.variational]


@pytest.fixture(scope="module")
def results():
    grid = checks.Grid(variational=VariationalGrid(**TINY, **TINY_KNOBS))
    return checks.run_checks(grid, statements=VARIATIONAL, chunk=16)


def test_every_variational_row_holds_on_a_tiny_grid(results):
    assert [r.name for r in results] == [s.name for s in VARIATIONAL]
    assert len(results) == 8
    for r in results:
        exact = "(exact)" in r.name
        assert r.kind == ("variational exact" if exact else "variational"), r
        assert r.name.endswith(", variational") and r.failed is False, r.name
        assert r.points > 0 and np.isfinite(r.metric), r
        assert r.violations == 0 and not r.failed, r
        assert all(np.isfinite(v) for v in r.where.values()), r
        assert 0 <= r.unreliable <= r.points
        # the compared side is the lower end of the estimate's interval
        assert r.where["small"] < r.where["estimate"] < r.where["ci_high"], r
    rows = {r.name: r for r in results}
    # 2 d × 1 θ; 1 d × 1 C × 1 Δ in both orders × 1 α; 1 pair × 1 θ; 1 pair × 2 orders × 1 α
    assert rows["Fisher upper bound, variational"].points == 2
    assert rows["Path bound, exact √I, variational"].points == 2
    assert rows["Theorem 5.3 (re-derived), k > 1, variational"].points == 1
    assert rows["Post-processing, k > 1, variational"].points == 2
    # coverage only on the rows against exact values
    for name, row in rows.items():
        assert (row.covered is not None) == ("(exact)" in name), name
        if row.covered is not None:
            assert 0 <= row.covered <= row.points
    assert set(rows["Fisher upper bound, variational"].to_dict()) >= {"unreliable", "covered"}


def test_an_interval_above_its_bound_fails():
    def evaluate(grid, evaluator):
        rows = {
            "ci_low": np.array([0.5, 1.2]),
            "ci_high": np.array([0.9, 1.4]),
            "reliable": np.array([True, False]),
            "x": np.array([0.0, 1.0]),
        }
        return variational_statements._against_exact(rows, np.array([1.0, 1.0]), np.zeros(2))

    statement = checks.Statement("V", "test", "variational", "ci_low <= exact", evaluate)
    result = checks.run_checks(checks.Grid(), statements=[statement])[0]
    assert result.failed and result.violations == 1 and result.where["x"] == 1.0
    assert result.unreliable == 1 and result.covered == 0


def test_cli_runs_the_variational_rows(monkeypatch, capsys, tmp_path):
    # The tiny grid (the CLI sets only the knobs): the same shapes as above, no recompilation.
    monkeypatch.setattr(
        variational_checks,
        "VariationalGrid",
        lambda **knobs: VariationalGrid(**(TINY | knobs)),
    )
    path = tmp_path / "report.json"
    argv = [
        "verify",
        "--variational",
        "--only",
        "variational",
        "--no-progress",
        "--chunk",
        "16",
        "--json",
        str(path),
        "--variational-steps",
        "100",
        "--variational-members",
        "2",
        "--variational-n-eval",
        "4000",
    ]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "variational (95% intervals)" in out and "100 steps, 2 members" in out
    for s in VARIATIONAL:
        assert s.name in out
    assert "unreliable" in out and "cover the exact value" in out
    data = json.loads(path.read_text())
    assert [row["name"] for row in data["statements"]] == [s.name for s in VARIATIONAL]
    assert data["grid"]["variational"]["steps"] == 100


def test_variational_rows_need_the_flag(capsys):
    assert cli.main(["verify", "--only", "variational", "--no-progress"]) == 2
    assert "--variational" in capsys.readouterr().err


def test_cli_help_states_the_grid_defaults():
    parser = argparse.ArgumentParser()
    verify.add_arguments(parser)
    helps = {a.dest: a.help for a in parser._actions}
    defaults = VariationalGrid()
    for dest, value in (
        ("variational_steps", defaults.steps),
        ("variational_members", defaults.members),
        ("variational_n_eval", defaults.n_eval),
    ):
        assert f"the grid's, {value})" in helps[dest], dest


# ----------------------------------------------------------------------------------------------
# Samplers.


@pytest.mark.parametrize("d", [1.0, 3.0, 10.0])
def test_k1_sampler_draws_the_noncentral_chi2(d):
    theta = 1.5
    draws = np.exp(np.asarray(ncx2_path_sample(jax.random.key(1), theta, 20_000, d)))[:, 0]
    assert scipy.stats.kstest(draws, scipy.stats.ncx2(d, theta**2).cdf).pvalue > 1e-3


@pytest.mark.parametrize(
    "k,d,kind",
    [(2, 3, "random"), (2, 48, "scaled"), (3, 7, "rank_two"), (3, 8, "random")],
)
def test_wishart_sampler_has_the_gram_mean(k, d, kind):
    grid = WishartGrid(dims=((k, d),), delta=(0.75,), pairs=(kind,))
    (pair,) = wishart_pairs(grid)
    v, uw = pair["v"], procrustes(pair["v"], pair["w"])
    (c0, c1), dof = reduced_means(v, uw)
    r = c0.shape[0]
    assert dof == d - r and (dof == 0 or dof >= k) and r >= k
    theta = 0.3
    mu = (1 - theta) * v + theta * uw
    n = 40_000
    c = jnp.asarray((1 - theta) * c0 + theta * c1)
    g = np.asarray(gram_draws(jax.random.key(2), c, jnp.asarray(dof), n))
    se = g.std(axis=0) / np.sqrt(n)
    expected = mu.T @ mu + d * np.eye(k)
    assert np.all(np.abs(g.mean(axis=0) - expected) < 4.5 * se), (g.mean(axis=0), expected)


def test_samplers_are_differentiable_in_theta():
    key = jax.random.key(3)
    check_grads(lambda t: ncx2_path_sample(key, t, 64, 5.0), (0.7,), order=1, modes=("fwd",))
    grid = WishartGrid(dims=((3, 12),), delta=(0.75,), pairs=("random",))
    (pair,) = wishart_pairs(grid)
    (c0, c1), dof = reduced_means(pair["v"], procrustes(pair["v"], pair["w"]))
    check_grads(
        lambda t: gram_path_sample(key, t, 64, jnp.asarray(c0), jnp.asarray(c1), dof),
        (0.4,),
        order=1,
        modes=("fwd",),
    )


def test_reduced_means_keep_the_gram_matrices():
    grid = WishartGrid(dims=((2, 9), (3, 5)), delta=(0.5,), pairs=PAIR_KINDS)
    for p in wishart_pairs(grid):
        (cv, cw), dof = reduced_means(p["v"], p["w"])
        np.testing.assert_allclose(cv.T @ cv, p["v"].T @ p["v"], atol=1e-13)
        np.testing.assert_allclose(cw.T @ cw, p["w"].T @ p["w"], atol=1e-13)
        np.testing.assert_allclose(cv.T @ cw, p["v"].T @ p["w"], atol=1e-13)
        assert dof == p["d"] - cv.shape[0]


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"fisher_d": (0.5,)}, "'fisher_d'"),
        ({"fisher_theta": (0.0,)}, "'fisher_theta'"),
        ({"renyi_d": ()}, "'renyi_d'"),
        ({"renyi_C": (float("inf"),)}, "'renyi_C'"),
        ({"renyi_delta": (-1.0,)}, "'renyi_delta'"),
        ({"alpha": (1.0,)}, "'alpha'"),
        ({"steps": 0}, "'steps'"),
        ({"members": 1.5}, "'members'"),
        ({"batch_size": 1}, "'batch_size'"),
        ({"n_eval": 1}, "'n_eval'"),
        ({"seed": -1}, "'seed'"),
        ({"hidden": (0,)}, "'hidden'"),
    ],
)
def test_variational_grid_rejects_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        VariationalGrid(**kwargs)


def test_bad_knobs_give_exit_status_2(capsys):
    argv = ["verify", "--variational", "--variational-steps", "0", "--no-progress"]
    assert cli.main(argv) == 2
    assert "'steps'" in capsys.readouterr().err


def test_reduced_means_reject_bad_input():
    with pytest.raises(ValueError, match="'means'"):
        reduced_means(np.zeros((4, 2)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match="'means'"):
        reduced_means(np.ones((4, 2)), np.ones((5, 2)))

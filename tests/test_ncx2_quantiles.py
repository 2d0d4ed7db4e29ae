"""fisherrdp.stats.ncx2.ppf / isf against 40-digit mpmath roots of the Poisson-mixture CDF/SF
(tests/fixtures/ncx2_quantiles.json), by tail; against scipy inside its reliable range; round
trips through logcdf/logsf; edges, input checks, jit; gradients (implicit-function rule)
against central differences of the fixture-checked values.

Compile time dominates: the quantiles come from one ppf and one isf call of equal length (one
compiled program), the round trips from one logcdf and one logsf call."""

import functools
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats
from helpers.stored import stored_jit

from fisherrdp.stats import ncx2

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "ncx2_quantiles.json")) as fh:
    ROWS = json.load(fh)


def regime(row):
    if row["q"] > 1e-3:
        return "bulk"
    return "left_tail" if row["kind"] == "ppf" else "right_tail"


REGIMES = ["left_tail", "bulk", "right_tail"]
# scipy (Boost) is reliable away from the extreme tails: a grid off the fixture's laws.
SCIPY_POINTS = [(q, df, nc) for q in (1e-6, 0.1, 0.7, 0.999) for df, nc in
                ((1.5, 3.0), (7.0, 0.5), (30.0, 200.0), (3000.0, 50.0))]
# Round trips x → F(x) → ppf (where F ≤ ½) and x → S(x) → isf (where S ≤ ½), from the left
# tail to the right.
ROUND_TRIP = [(1e-6, 3.0, 2.0), (0.5, 1.0, 0.0), (4.0, 4.0, 2.0), (150.0, 10.0, 100.0),
              (900.0, 5.0, 10.0), (9000.0, 1e4, 1e-3), (1.3e4, 1e4, 1e3)]
# (q, df, nc): gradients of ppf in q, df and nc, on both sides of the solver (q ≤ ½: log F,
# q > ½: log S), by central differences with relative steps FD_STEP (error ~1e-10; the q step
# relative to min(q, 1 − q)).
GRAD_POINTS = [(0.3, 4.0, 2.0), (1e-20, 10.0, 10.0), (0.999, 10.0, 10.0),
               (0.9, 1.5, 100.0), (0.01, 1e3, 1e3)]
FD_STEP = 1e-6


def fd_points():
    """GRAD_POINTS shifted by ±FD_STEP (relative) in q, df, nc: (6, points, 3)."""
    base = np.array(GRAD_POINTS)
    out = []
    for k in range(3):
        for sign in (1.0, -1.0):
            shifted = base.copy()
            shifted[:, k] += sign * fd_steps()[k]
            out.append(shifted)
    return np.array(out)


def fd_steps():
    """(3, points): FD_STEP relative to min(q, 1 − q), df and nc."""
    q, df, nc = np.array(GRAD_POINTS).T
    return FD_STEP * np.stack([np.minimum(q, 1.0 - q), df, nc])


@functools.cache
def batch():
    """(points, ppf, isf) at the fixture rows, the scipy grid and the shifted gradient points:
    ppf where a row is a ppf row or the point is not a fixture row, isf at isf rows and the
    scipy grid (NaN elsewhere). Two calls that fall in one shape bucket: one program."""
    pts = [(r["q"], r["df"], r["nc"]) for r in ROWS] + SCIPY_POINTS
    pts += [tuple(p) for p in fd_points().reshape(-1, 3)]
    n = len(ROWS)
    is_isf = np.array([r["kind"] == "isf" for r in ROWS] + [False] * (len(pts) - n))
    on_isf = is_isf.copy()
    on_isf[n : n + len(SCIPY_POINTS)] = True
    on_ppf = ~is_isf
    arr = np.array(pts)
    ppf = np.full(len(pts), np.nan)
    isf = np.full(len(pts), np.nan)
    ppf[on_ppf] = np.asarray(ncx2.ppf(*arr[on_ppf].T))
    isf[on_isf] = np.asarray(ncx2.isf(*arr[on_isf].T))
    return pts, ppf, isf


def test_fixture_covers_the_tails():
    assert len(ROWS) >= 100
    assert min(r["q"] for r in ROWS) == 1e-300
    assert {r["df"] for r in ROWS} >= {1.0, 1e4} and max(r["nc"] for r in ROWS) == 1e4
    for name in REGIMES:
        assert any(regime(r) == name for r in ROWS)


@pytest.mark.parametrize("name", REGIMES)
def test_against_mpmath_by_regime(name, accuracy):
    _, ppf, isf = batch()
    idx = [i for i, r in enumerate(ROWS) if regime(r) == name]
    values = np.array([(ppf if ROWS[i]["kind"] == "ppf" else isf)[i] for i in idx])
    ref = np.array([ROWS[i]["x"] for i in idx])
    accuracy.check(f"ncx2_quantiles/{name}", np.abs(values / ref - 1),
                   where=[(ROWS[i]["kind"], ROWS[i]["q"], ROWS[i]["df"], ROWS[i]["nc"])
                          for i in idx])


def test_against_scipy_in_its_reliable_range():
    pts, ppf, isf = batch()
    grid = slice(len(ROWS), len(ROWS) + len(SCIPY_POINTS))
    q, df, nc = np.array(pts[grid]).T
    np.testing.assert_allclose(ppf[grid], scipy.stats.ncx2.ppf(q, df, nc), rtol=1e-11)
    np.testing.assert_allclose(isf[grid], scipy.stats.ncx2.isf(q, df, nc), rtol=1e-11)


def test_scipy_is_wrong_in_the_far_tails():
    """At q = 1e-300 scipy's quantiles are off by up to ~40% (mpmath reference); ours are not."""
    _, ppf, isf = batch()
    far = [i for i, r in enumerate(ROWS) if r["q"] == 1e-300 and r["nc"] >= 100]
    ours = np.array([(ppf if ROWS[i]["kind"] == "ppf" else isf)[i] for i in far])
    ref = np.array([ROWS[i]["x"] for i in far])
    theirs = np.array([ROWS[i]["scipy"] for i in far])
    assert np.max(np.abs(theirs / ref - 1)) > 0.1
    assert np.max(np.abs(ours / ref - 1)) < 1e-12


def test_round_trips_and_edges():
    """ppf(F(x)) = x and isf(S(x)) = x on the side whose probability is ≤ ½, with F, S from
    logcdf/logsf (the x error is the quantile's, times the conditioning q/(x p) of x in the
    double q); and the edges q = 0, 1 and an underflowing quantile, in the same call."""
    x, df, nc = np.array(ROUND_TRIP).T
    log_cdf = np.asarray(ncx2.logcdf(x, df, nc))
    log_sf = np.asarray(ncx2.logsf(x, df, nc))
    left = log_cdf <= np.log(0.5)
    assert 0 < left.sum() < len(x)
    q = np.exp(np.where(left, log_cdf, log_sf))
    # ppf(1e-300) at df = 1 is 1.57e-600: it underflows to 0.
    edge_q, edge_df, edge_nc = np.array([0.0, 1.0, 1e-300]), np.array([4.0, 4.0, 1.0]), 0.0
    args = (np.concatenate([q, edge_q]), np.concatenate([df, edge_df]),
            np.concatenate([nc, np.full(3, edge_nc)]))
    ppf, isf = np.asarray(ncx2.ppf(*args)), np.asarray(ncx2.isf(*args))
    back = np.where(left, ppf[:-3], isf[:-3])
    cond = q / np.exp(np.log(x) + np.asarray(ncx2.logpdf(x, df, nc)))
    assert np.all(np.abs(back / x - 1) <= 1e-13 * np.maximum(cond, 1.0)), back / x - 1
    np.testing.assert_array_equal(ppf[-3:], [0.0, np.inf, 0.0])
    np.testing.assert_array_equal(isf[-3:-1], [np.inf, 0.0])


def test_invalid_inputs_raise():
    for q, df, nc, name in ((-0.1, 4.0, 2.0, "'q'"), (1.5, 4.0, 2.0, "'q'"),
                            (0.5, 0.5, 2.0, "'df'"), (0.5, 4.0, -1.0, "'nc'")):
        for fn in (ncx2.ppf, ncx2.isf):
            with pytest.raises(ValueError, match=name):
                fn(q, df, nc)


def central_differences():
    """(3, points): the derivatives of ppf in q, df, nc at GRAD_POINTS, by central
    differences of the batch values."""
    pts, ppf, _ = batch()
    n = len(GRAD_POINTS)
    values = ppf[len(pts) - 6 * n :].reshape(3, 2, n)
    return (values[:, 0] - values[:, 1]) / (2 * fd_steps())


def test_q_gradient_matches_central_differences():
    """∂ppf/∂q = 1/p(x) (implicit-function rule, one vmapped reverse-mode program) against
    central differences of the fixture-checked values."""
    q, df, nc = np.array(GRAD_POINTS).T
    grads = stored_jit(jax.vmap(jax.grad(ncx2.ppf)), q, df, nc, name="ppf_grad_q")(q, df, nc)
    np.testing.assert_allclose(np.asarray(grads), central_differences()[0], rtol=1e-7)


@pytest.mark.slow
def test_df_nc_gradients_match_central_differences():
    """∂ppf/∂(q, df, nc): the df, nc tangents differentiate the logcdf/logsf quadrature
    (a larger program: about a minute to compile)."""
    q, df, nc = np.array(GRAD_POINTS).T
    grads = np.asarray(jax.jit(jax.vmap(jax.grad(ncx2.ppf, argnums=(0, 1, 2))))(q, df, nc))
    np.testing.assert_allclose(grads, central_differences(), rtol=1e-7)


@pytest.mark.slow
def test_jit_isf_gradient_and_invalid_entries():
    """isf under jit: NaN for invalid entries; its q-derivative is −1/p(x)."""
    bad = np.asarray(jax.jit(ncx2.isf)(jnp.array([1.5, 0.5, 0.5, 1e-20]),
                                       jnp.array([4.0, 0.5, 4.0, 10.0]),
                                       jnp.array([2.0, 2.0, -1.0, 10.0])))
    assert np.all(np.isnan(bad[:3])) and bad[3] > 0
    dq = float(jax.grad(ncx2.isf)(1e-20, 10.0, 10.0))
    x = float(ncx2.isf(1e-20, 10.0, 10.0))
    assert dq == pytest.approx(-1.0 / float(ncx2.pdf(x, 10.0, 10.0)), rel=1e-12)

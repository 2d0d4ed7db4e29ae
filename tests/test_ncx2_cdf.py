"""fisherrdp.stats.ncx2 logcdf / logsf / cdf / sf and their derivatives against mpmath
(tests/fixtures/ncx2_cdf.json), SciPy and their own properties.

Accuracy against the fixture is asserted through the claims of
tests/fixtures/accuracy/ncx2_cdf.json (``accuracy.check``), per regime of x: the left and right
tails (the fixture's x = mean ± 5, 10, 40 sd) and the bulk (mean, mean ± 2 sd), and the
cross-sections x ≤ 1e-6, df = 1, df = 1e4, nc = 0, nc = 1e6.

Compilation dominates the runtime, so every value check shares one batch (one call, one
compiled program), the df/nc derivative checks another, the x-derivatives (jax.grad) a third,
and float32 a fourth.
"""

import json
import math
import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.stats
from helpers.stored import stored_jit

from fisherrdp.stats import ncx2

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "ncx2_cdf.json")

with open(FIXTURE) as fh:
    DATA = json.load(fh)


def _columns(rows, *keys):
    return tuple(np.array([r[k] for r in rows], dtype=np.float64) for k in keys)


def _errors(got, want):
    got = np.asarray(got, dtype=np.float64)
    return np.where(np.isfinite(got), np.abs(got - want) / np.maximum(1.0, np.abs(want)), np.inf)


def _scipy_grid():
    df, nc, q = np.meshgrid([1.5, 4.0, 10.0, 30.0], [0.5, 5.0, 40.0],
                            [0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99], indexing="ij")
    return scipy.stats.ncx2.ppf(q, df, nc).ravel(), df.ravel(), nc.ravel()


PROPERTY_SHAPE = (4, 43)


def _property_grid():
    """x from mean − 12 sd (clipped at 1e-3) to mean + 30 sd, per (df, nc) row."""
    df = np.array([1.0, 3.5, 100.0, 1e4])[:, None]
    nc = np.array([0.0, 2.0, 1e3, 1e6])[:, None]
    mean, sd = df + nc, np.sqrt(2 * (df + 2 * nc))
    x = np.maximum(mean + sd * np.linspace(-12.0, 30.0, PROPERTY_SHAPE[1])[None, :], 1e-3)
    return tuple(v.ravel() for v in np.broadcast_arrays(x, df, nc))


def _large_df_grid():
    """Large df and nc at float32-representable points, 2–3 sd from the mean on both sides:
    where the quadrature's nodes exp(log x − 2u) and (√x + t)² once cost float32 1e-4."""
    df, nc, k = np.meshgrid([1e3, 8387.66, 1e4], [0.0, 2145.67, 7027.6], [-3.0, -1.0, 2.0],
                            indexing="ij")
    x = df + nc + k * np.sqrt(2 * (df + 2 * nc))
    return tuple(np.asarray(np.asarray(v, np.float32), np.float64).ravel() for v in (x, df, nc))


EDGE_X = np.array([0.0, -1.0, np.inf, 1e-300, 1e5])
EDGE_DF = np.array([3.0, 3.0, 3.0, 3.0, 10.0])
EDGE_NC = np.array([2.0, 2.0, 2.0, 2.0, 100.0])


@pytest.fixture(scope="module")
def batch():
    """All value checks in one call: fixture rows, SciPy grid, property grid, edges."""
    parts = {
        "fixture": _columns(DATA["rows"], "x", "df", "nc"),
        "scipy": _scipy_grid(),
        "property": _property_grid(),
        "edge": (EDGE_X, EDGE_DF, EDGE_NC),
        "large_df": _large_df_grid(),
    }
    x, df, nc = (np.concatenate([p[i] for p in parts.values()]) for i in range(3))
    log_cdf, log_sf = np.asarray(ncx2.logcdf(x, df, nc)), np.asarray(ncx2.logsf(x, df, nc))
    cdf, sf = np.asarray(ncx2.cdf(x, df, nc)), np.asarray(ncx2.sf(x, df, nc))
    out, start = {}, 0
    for name, p in parts.items():
        stop = start + len(p[0])
        out[name] = p + (log_cdf[start:stop], log_sf[start:stop], cdf[start:stop], sf[start:stop])
        start = stop
    return out


# Position regimes, by k = (x − mean)/sd: the grid's k = ±5, ±10, ±40 are the tails, k = 0, ±2
# the bulk (the cut at 3.5 sd places the other points: x = 1e-8, mean/100 and the extras). Then
# cross-sections: x ≤ 1e-6, df = 1, df = 1e4, nc = 0, nc = 1e6.
POSITIONS = ["left_tail", "bulk", "right_tail"]
REGIMES = POSITIONS + ["tiny_x", "df1", "df1e4", "nc0", "nc1e6"]


def _regime_mask(regime, x, df, nc):
    k = (x - (df + nc)) / np.sqrt(2 * (df + 2 * nc))
    return {
        "left_tail": k <= -3.5,
        "bulk": np.abs(k) < 3.5,
        "right_tail": k >= 3.5,
        "tiny_x": x <= 1e-6,
        "df1": df == 1.0,
        "df1e4": df == 1e4,
        "nc0": nc == 0.0,
        "nc1e6": nc == 1e6,
    }[regime]


def _where(x, df, nc):
    return np.array([f"x={a!r}, df={b}, nc={c}" for a, b, c in zip(x, df, nc)])


def test_regimes_cover_every_row():
    x, df, nc = _columns(DATA["rows"], "x", "df", "nc")
    position = [_regime_mask(r, x, df, nc) for r in POSITIONS]
    assert np.all(np.sum(position, axis=0) == 1)


@pytest.mark.parametrize("regime", REGIMES)
def test_log_tails_match_mpmath(batch, accuracy, regime):
    """logcdf and logsf, error relative to max(1, |value|) (the larger of the two per point)."""
    x, df, nc, log_cdf, log_sf, _, _ = batch["fixture"]
    _, _, _, want_cdf, want_sf = _columns(DATA["rows"], "x", "df", "nc", "logcdf", "logsf")
    err = np.maximum(_errors(log_cdf, want_cdf), _errors(log_sf, want_sf))
    mask = _regime_mask(regime, x, df, nc)
    accuracy.check(f"ncx2_cdf/log_tails/{regime}", err[mask], where=_where(x, df, nc)[mask])


@pytest.mark.parametrize("regime", POSITIONS)
def test_cdf_sf_match_mpmath(batch, accuracy, regime):
    """cdf and sf against the fixture's F = exp(log F), S = exp(log S), where the value is a
    normal float64 (≥ 1e-300; elsewhere the result must be below 1e-300 too). The error is the
    relative one over max(1, |log value|): the relative error of exp(v) is the absolute error
    of v, so its target is that of logcdf / logsf."""
    x, df, nc, _, _, cdf, sf = batch["fixture"]
    _, _, _, log_f, log_s = _columns(DATA["rows"], "x", "df", "nc", "logcdf", "logsf")
    mask = _regime_mask(regime, x, df, nc)
    errors, where = [], []
    for got, log_want in ((cdf, log_f), (sf, log_s)):
        want = np.exp(log_want)
        normal = mask & (want >= 1e-300)
        assert np.all(got[mask & ~normal] < 1e-300)
        relative = np.abs(got - want)[normal] / want[normal]
        errors.append(relative / np.maximum(1.0, np.abs(log_want[normal])))
        where.append(_where(x, df, nc)[normal])
    accuracy.check(f"ncx2_cdf/cdf_sf/{regime}", np.concatenate(errors),
                   where=np.concatenate(where))


def test_matches_scipy_in_the_bulk(batch):
    x, df, nc, log_cdf, log_sf, _, _ = batch["scipy"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want_cdf, want_sf = scipy.stats.ncx2.logcdf(x, df, nc), scipy.stats.ncx2.logsf(x, df, nc)
    assert _errors(log_cdf, want_cdf).max() <= 1e-11
    assert _errors(log_sf, want_sf).max() <= 1e-11


def test_cdf_plus_sf_is_one_and_monotone(batch):
    _, _, _, log_cdf, log_sf, cdf, sf = batch["property"]
    np.testing.assert_allclose(cdf + sf, 1.0, rtol=0, atol=4e-16)
    log_cdf, log_sf = log_cdf.reshape(PROPERTY_SHAPE), log_sf.reshape(PROPERTY_SHAPE)
    assert np.all(np.diff(log_cdf, axis=1) >= 0) and np.all(np.diff(log_sf, axis=1) <= 0)
    assert np.all(np.isfinite(log_cdf)) and np.all(np.isfinite(log_sf))


def test_edges(batch):
    _, _, _, log_cdf, log_sf, cdf, sf = batch["edge"]
    assert list(log_cdf[:3]) == [-np.inf, -np.inf, 0.0] and list(log_sf[:3]) == [0.0, 0.0, -np.inf]
    assert list(cdf[:3]) == [0.0, 0.0, 1.0] and list(sf[:3]) == [1.0, 1.0, 0.0]
    assert np.isfinite(log_cdf[3]) and log_sf[3] == 0.0
    # Far right tail, where SciPy gives -inf: finite, and matches the mpmath mixture.
    assert math.isfinite(log_sf[4]) and log_sf[4] == pytest.approx(-46878.825613001443, rel=1e-13)


# Derivative rows: the mpmath ones, then an invalid df and nc (NaN under jit) and the edges.
BAD_X, BAD_DF, BAD_NC = np.array([1.0, 1.0]), np.array([0.5, 3.0]), np.array([1.0, -1.0])


def test_gradients_and_jit(batch, accuracy):
    """Under jit: d/d df and d/d nc against mpmath central differences (relative error, where the
    reference is a normal float64, else below 1e-300 too); values equal the eager ones; NaN for
    invalid parameters; zero tangents at the edges."""
    x, df, nc = _columns(DATA["grads"], "x", "df", "nc")
    want = _columns(DATA["grads"], "logcdf_d_df", "logcdf_d_nc", "logsf_d_df", "logsf_d_nc")
    n = len(x)
    xs = np.concatenate([x, BAD_X, EDGE_X[:3]])
    dfs = np.concatenate([df, BAD_DF, EDGE_DF[:3]])
    ncs = np.concatenate([nc, BAD_NC, EDGE_NC[:3]])

    def derivatives(x, df, nc):
        def tails(x, df, nc):
            return ncx2.logcdf(x, df, nc), ncx2.logsf(x, df, nc)

        basis = jnp.eye(3, dtype=x.dtype)[:, :, None] * jnp.ones_like(x)
        jvp = jax.vmap(lambda t: jax.jvp(tails, (x, df, nc), tuple(t))[1])(basis)
        return tails(x, df, nc), jvp

    derivatives = stored_jit(derivatives, xs, dfs, ncs, name="ncx2_tails_jvp")
    (log_cdf, log_sf), (d_cdf, d_sf) = jax.tree_util.tree_map(np.asarray,
                                                              derivatives(xs, dfs, ncs))
    got = {"d_df": (d_cdf[1, :n], d_sf[1, :n]), "d_nc": (d_cdf[2, :n], d_sf[2, :n])}
    refs = {"d_df": (want[0], want[2]), "d_nc": (want[1], want[3])}
    where = _where(x, df, nc)
    for name in ("d_df", "d_nc"):
        errors, at = [], []
        for g, ref in zip(got[name], refs[name]):
            normal = np.abs(ref) >= 1e-300
            assert np.all(np.abs(g[~normal]) < 1e-300), (name, g[~normal])
            errors.append(np.abs(g - ref)[normal] / np.abs(ref[normal]))
            at.append(where[normal])
        accuracy.check(f"ncx2_cdf/{name}", np.concatenate(errors), where=np.concatenate(at))
    # Same values as the eager calls.
    eager = ncx2.logcdf(x, df, nc), ncx2.logsf(x, df, nc)
    np.testing.assert_allclose(log_cdf[:n], eager[0], rtol=1e-15, atol=1e-300)
    np.testing.assert_allclose(log_sf[:n], eager[1], rtol=1e-15, atol=1e-300)
    assert np.all(np.isnan(log_cdf[n:n + 2])) and np.all(np.isnan(log_sf[n:n + 2]))
    assert np.all(d_cdf[:, n + 2:] == 0.0) and np.all(d_sf[:, n + 2:] == 0.0)


@pytest.fixture(scope="module")
def x_gradients():
    """jax.grad in x of logcdf and logsf at every fixture row (one jitted program)."""
    x, df, nc = (jnp.asarray(c) for c in _columns(DATA["rows"], "x", "df", "nc"))

    def grads(x, df, nc):
        return tuple(jax.vmap(jax.grad(f))(x, df, nc) for f in (ncx2.logcdf, ncx2.logsf))

    grads = stored_jit(grads, x, df, nc, name="ncx2_tails_grad_x")
    return tuple(np.asarray(g) for g in grads(x, df, nc))


@pytest.mark.parametrize("regime", POSITIONS)
def test_x_derivative_matches_mpmath(x_gradients, accuracy, regime):
    """∂ₓ log F and ∂ₓ log S by jax.grad against the fixture's p/F and −p/S (40-digit mpmath:
    density in Bessel form, tails by the Poisson mixture), where the reference is a normal
    float64 (elsewhere the result must be below 1e-300 too). The error is the relative one over
    max(1, |log p|) + max(1, |log T|) (T = F or S), the condition number of exp(log p − log T):
    its target is that of logpdf and logcdf / logsf (1e-12 · max(1, |value|) each)."""
    x, df, nc, log_f, log_s, d_cdf, d_sf = _columns(
        DATA["rows"], "x", "df", "nc", "logcdf", "logsf", "logcdf_d_x", "logsf_d_x")
    mask = _regime_mask(regime, x, df, nc)
    errors, where = [], []
    for got, want, log_tail in zip(x_gradients, (d_cdf, d_sf), (log_f, log_s)):
        normal = mask & (np.abs(want) >= 1e-300)
        assert np.all(np.abs(got[mask & ~normal]) < 1e-300)
        log_p = np.log(np.abs(want[normal])) + log_tail[normal]
        condition = np.maximum(1.0, np.abs(log_p)) + np.maximum(1.0, np.abs(log_tail[normal]))
        errors.append(np.abs(got - want)[normal] / np.abs(want[normal]) / condition)
        where.append(_where(x, df, nc)[normal])
    accuracy.check(f"ncx2_cdf/d_x/{regime}", np.concatenate(errors),
                   where=np.concatenate(where))


def test_bad_inputs():
    with pytest.raises(ValueError, match="'df'"):
        ncx2.logcdf(1.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="'nc'"):
        ncx2.logsf(1.0, 3.0, -1.0)
    with pytest.raises(ValueError, match="'df'"):
        ncx2.cdf(1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="'nc'"):
        ncx2.sf(1.0, 3.0, -2.0)


def test_float32(batch):
    x, df, nc, log_cdf, log_sf, _, _ = batch["scipy"]
    as32 = [jnp.asarray(v, jnp.float32) for v in (x, df, nc)]
    got_cdf, got_sf = ncx2.logcdf(*as32), ncx2.logsf(*as32)
    assert got_cdf.dtype == jnp.float32 and got_sf.dtype == jnp.float32
    np.testing.assert_allclose(got_cdf, log_cdf, rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(got_sf, log_sf, rtol=2e-5, atol=2e-6)
    # Large df, against float64 at the same (float32) points: measured 6.3e-7 (logcdf) and
    # 2.4e-7 (logsf), relative to max(1, |value|); 2.3e-5 before the nodes were formed as
    # x e^{−2u} and x + t(2√x + t).
    x, df, nc, log_cdf, log_sf, _, _ = batch["large_df"]
    as32 = [jnp.asarray(v, jnp.float32) for v in (x, df, nc)]
    for got, want in ((ncx2.logcdf(*as32), log_cdf), (ncx2.logsf(*as32), log_sf)):
        assert got.dtype == jnp.float32
        assert _errors(got, want).max() <= 5e-6

"""fisherrdp.stats.ncx2 against mpmath (tests/fixtures/ncx2_logpdf.json), SciPy and itself."""

import json
import math
import os
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.integrate
import scipy.stats

from fisherrdp._src.distributions.ncx2.density import SINGLE_DEBYE_MIN_ORDER, large_order_logpdf
from fisherrdp.stats import ncx2

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "ncx2_logpdf.json")
SHARED_REFS = os.path.join(HERE, "fixtures", "refs", "ncx2_logpdf.json")

with open(FIXTURE) as fh:
    DATA = json.load(fh)

_logpdf_jit = jax.jit(ncx2.logpdf)


def _columns(rows, *keys):
    return tuple(np.array([r[k] for r in rows], dtype=np.float64) for k in keys)


def _errors(got, want):
    got = np.asarray(got, dtype=np.float64)
    return np.where(np.isfinite(got), np.abs(got - want) / np.maximum(1.0, np.abs(want)), np.inf)


@pytest.fixture(scope="module")
def fixture_errors():
    x, df, nc, want = _columns(DATA["rows"], "x", "df", "nc", "logpdf")
    return x, df, nc, _errors(_logpdf_jit(x, df, nc), want)


@pytest.mark.parametrize(
    "regime",
    ["all", "small_z", "large_z", "left_tail", "right_tail", "tiny_x", "df1", "df1e4", "nc0", "nc1e6"],
)
def test_logpdf_matches_mpmath(fixture_errors, regime, accuracy):
    x, df, nc, err = fixture_errors
    z = np.sqrt(nc * x)
    mean, sd = df + nc, np.sqrt(2 * (df + 2 * nc))
    mask = {
        "all": np.ones_like(x, bool),
        "small_z": z <= np.maximum(30.0, df / 2),
        "large_z": z > np.maximum(30.0, df / 2),
        "left_tail": x < mean - 5 * sd,
        "right_tail": x > mean + 5 * sd,
        "tiny_x": x <= 1e-6,
        "df1": df == 1.0,
        "df1e4": df == 1e4,
        "nc0": nc == 0.0,
        "nc1e6": nc == 1e6,
    }[regime]
    assert mask.any()
    where = [f"x={a!r}, df={b!r}, nc={c!r}" for a, b, c in zip(x[mask], df[mask], nc[mask])]
    accuracy.check(f"ncx2_logpdf/{regime}", err[mask], where=where)


def test_logpdf_matches_shared_refs(accuracy):
    with open(SHARED_REFS) as fh:
        rows = json.load(fh)
    x, df, nc, want = _columns(rows, "x", "df", "nc", "logpdf")
    accuracy.check("ncx2_logpdf/public_refs", _errors(_logpdf_jit(x, df, nc), want))


def test_logpdf_matches_scipy():
    df, nc, q = np.meshgrid([1.5, 4.0, 10.0, 30.0], [0.5, 5.0, 40.0],
                            [1e-3, 0.05, 0.3, 0.5, 0.7, 0.95, 0.999], indexing="ij")
    x = scipy.stats.ncx2.ppf(q, df, nc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = scipy.stats.ncx2.logpdf(x, df, nc)
    ok = np.isfinite(want)
    assert ok.mean() > 0.9
    assert _errors(_logpdf_jit(x, df, nc), want)[ok].max() <= 1e-12


def test_central_case_is_chi2():
    x = np.array([1e-8, 0.3, 2.0, 17.0, 400.0])[None, :]
    df = np.array([1.0, 2.0, 7.5, 100.0])[:, None]
    x, df = np.broadcast_arrays(x, df)
    np.testing.assert_allclose(_logpdf_jit(x, df, np.zeros_like(x)),
                               scipy.stats.chi2.logpdf(x, df), rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("df,nc", [(1.0, 0.0), (3.0, 2.5), (12.5, 40.0), (400.0, 900.0)])
def test_pdf_integrates_to_one(df, nc):
    f = jax.jit(ncx2.pdf)
    mean, sd = df + nc, math.sqrt(2 * (df + 2 * nc))
    lo, hi = max(0.0, mean - 40 * sd), mean + 40 * sd
    points = [p for p in (mean - sd, mean, mean + sd) if lo < p < hi]
    total, _ = scipy.integrate.quad(lambda t: float(f(t, df, nc)), lo, hi, points=points,
                                    limit=200, epsabs=1e-13, epsrel=1e-11)
    assert abs(total - 1.0) < 1e-9


# Edge points for the gradients: nc = 0, tiny x, df = 1, both sides of the switch between the
# two forms (√(nc·x) = max(30, df/2)); evaluated in the same jitted call as the mpmath points.
EDGE_X = np.array([3.0, 1e-8, 0.5, 29.0, 31.0, 5000.0, 5001.0, 2.0e6])
EDGE_DF = np.array([4.0, 3.0, 1.0, 2.0, 2.0, 1e4, 1e4, 1e4])
EDGE_NC = np.array([0.0, 2.0, 7.0, 29.0, 31.0, 4999.0, 5001.0, 2.0e6])


def test_gradients_match_mpmath_and_are_finite_at_edges():
    x, df, nc, dx, ddf, dnc = _columns(DATA["grads"], "x", "df", "nc", "d_x", "d_df", "d_nc")
    n = len(x)
    grads = jax.jit(jax.vmap(jax.grad(ncx2.logpdf, argnums=(0, 1, 2))))(
        np.concatenate([x, EDGE_X]), np.concatenate([df, EDGE_DF]), np.concatenate([nc, EDGE_NC]))
    for got, want in zip(grads, (dx, ddf, dnc)):
        got = np.asarray(got)
        assert np.all(np.isfinite(got[n:])), got[n:]
        got = got[:n]
        assert np.all(np.abs(got - want) <= 1e-12 * np.maximum(1.0, np.abs(want))), (got, want)


def test_support_edges():
    x = jnp.array([0.0, 0.0, 0.0, -1.0, -1e-300])
    df = jnp.array([1.5, 2.0, 3.0, 4.0, 1.0])
    out = np.asarray(ncx2.logpdf(x, df, 3.0))
    assert out[0] == np.inf and out[2] == -np.inf and out[3] == -np.inf and out[4] == -np.inf
    assert out[1] == pytest.approx(math.log(0.5) - 1.5, rel=1e-15)
    assert float(ncx2.pdf(-2.0, 3.0, 1.0)) == 0.0


def test_bad_inputs():
    with pytest.raises(ValueError, match="'df'"):
        ncx2.logpdf(1.0, 0.5, 1.0)
    with pytest.raises(ValueError, match="'nc'"):
        ncx2.logpdf(1.0, 3.0, -1.0)
    with pytest.raises(ValueError, match="'df'"):
        ncx2.sample(jax.random.key(0), 0.0, 1.0)
    with pytest.raises(ValueError, match="'nc'"):
        ncx2.mean(2.0, -0.1)
    out = np.asarray(_logpdf_jit(jnp.array([1.0, 1.0, 1.0]), jnp.array([0.5, 3.0, 3.0]),
                                 jnp.array([1.0, -1.0, 1.0])))
    assert np.isnan(out[0]) and np.isnan(out[1]) and np.isfinite(out[2])


def test_jit_matches_eager():
    rows = DATA["rows"][::7]
    x, df, nc = _columns(rows, "x", "df", "nc")
    # XLA may fuse differently under jit: equal to a few ulps.
    np.testing.assert_allclose(np.asarray(_logpdf_jit(x, df, nc)),
                               np.asarray(ncx2.logpdf(x, df, nc)), rtol=1e-14, atol=1e-14)


def test_large_order_form_matches_mpmath():
    # float32's form at orders ν ≥ 10 (Debye's expansion with its exponent in closed form,
    # docs/math/ncx2.md), checked in float64 so that its mathematics, not float32's rounding, is
    # what is measured: at most 7.5e-15 (relative to max(1, |log p|)) on the fixture's 214 points
    # with ν ≥ 10, x > 0 (all have ν ≥ 49: there the 8 terms of Debye's sum are exact to float64;
    # at ν = 10 they truncate at 4e-10, far below float32's resolution); float64's own two
    # forms reach 8.8e-14 there.
    x, df, nc, want = _columns(DATA["rows"], "x", "df", "nc", "logpdf")
    keep = (df / 2 - 1 >= SINGLE_DEBYE_MIN_ORDER) & (x > 0)
    got = jax.jit(large_order_logpdf)(x[keep], df[keep], nc[keep])
    assert _errors(got, want[keep]).max() <= 5e-14


def test_float32():
    # Every fixture point with x >= 1e-3 and |log p| < 1e3 (df up to 1e4, λ up to 1e6): at most
    # 5.3 eps32 (6.3e-7) from float64 at the same rounded inputs.
    x, df, nc, want = _columns(DATA["rows"], "x", "df", "nc", "logpdf")
    keep = (x >= 1e-3) & (np.abs(want) < 1e3)
    x, df, nc, want = (a[keep].astype(np.float32) if i < 3 else a[keep]
                       for i, a in enumerate((x, df, nc, want)))
    got = jax.jit(ncx2.logpdf)(x, df, nc)
    assert got.dtype == jnp.float32
    # The inputs are rounded to float32, so compare with float64 at the same rounded inputs.
    ref = np.asarray(_logpdf_jit(x.astype(np.float64), df.astype(np.float64),
                                 nc.astype(np.float64)))
    assert _errors(got, ref).max() <= 32 * np.finfo(np.float32).eps


def test_moments_and_sampling():
    np.testing.assert_allclose(ncx2.mean(jnp.array([1.0, 3.0]), 2.0), [3.0, 5.0])
    np.testing.assert_allclose(ncx2.var(jnp.array([1.0, 3.0]), 2.0), [10.0, 14.0])
    n = 100_000
    cases = [(1.0, 0.0), (1.0, 3.5), (2.7, 10.0), (50.0, 200.0)]
    df = jnp.array([c[0] for c in cases])[:, None]
    nc = jnp.array([c[1] for c in cases])[:, None]
    y = np.asarray(jax.jit(ncx2.sample, static_argnums=3)(jax.random.key(1), df, nc, (len(cases), n)))
    assert np.all(y >= 0)
    for row, (d, lam) in zip(y, cases):
        m, v = d + lam, 2 * (d + 2 * lam)
        assert abs(row.mean() - m) <= 5 * math.sqrt(v / n)
        m4 = np.mean((row - row.mean()) ** 4)
        assert abs(row.var() - v) <= 5 * math.sqrt((m4 - row.var() ** 2) / n)

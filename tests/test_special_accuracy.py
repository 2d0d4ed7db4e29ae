"""Table-driven accuracy tests of :mod:`fisherrdp.special` against mpmath reference fixtures.

The fixtures in ``tests/fixtures/*.json`` are written by ``tests/fixtures/make_special_fixtures.py``
(mpmath at 50 significant digits, every value rounded once to float64). Each row carries a
``regime`` label; the tests are parametrized by regime so a failure says where the algorithm is
weak. Every function is evaluated once on the whole array of a regime (gradients through
``jax.jit(jax.vmap(jax.grad(...)))``), and a failing assertion prints the worst points.

Errors are measured as the targets are stated, and checked with the ``accuracy`` fixture against
the claims in ``tests/fixtures/accuracy/special.json`` (worst error measured per quantity and
regime, the numbers of docs/explanation/special_functions.md; a test fails above 10 x the
measured value or above the target):

* log I, log ive, log 0F1:  |error| / max(1, |value|), target 2e-14;
* I_{v+1}/I_v:              relative error, target 1e-13;
* first derivatives:        |error| / max(|derivative|, 1e-2), target 1e-10 (relative, absolute
                            1e-12 where |derivative| < 1e-2);
* second derivatives:       |error| / max(|derivative|, 1e-2), target 1e-8;
* log 0F1 for tiny x (and log I_0 for tiny x, the same function): relative error, target 1e-13;
* float32:                  50 * eps(float32) * max(1, |value|) (ratio: relative), float32 output.
"""

from __future__ import annotations

import functools
import json
import math
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
import scipy.special as sps
from helpers.stored import stored_jit

from fisherrdp import special

FIXTURES = pathlib.Path(__file__).parent / "fixtures"

DERIV_SMALL = 1e-2  # derivatives below this in magnitude are measured absolutely
F32_TOL = 50 * float(np.finfo(np.float32).eps)


# ----------------------------------------------------------------------------------------------
# fixtures
# ----------------------------------------------------------------------------------------------
@functools.cache
def _load(name: str) -> dict:
    with open(FIXTURES / f"{name}.json") as fh:
        return json.load(fh)


@functools.cache
def _table(name: str, section: str = "rows") -> dict[str, np.ndarray]:
    """Columns of a fixture section as float64 arrays (``regime`` as an object array)."""
    rows = _load(name)[section]
    keys = rows[0].keys()
    out = {}
    for k in keys:
        col = [r[k] for r in rows]
        out[k] = np.asarray(col, dtype=object if k == "regime" else np.float64)
    return out


def _regimes(name: str, section: str = "rows") -> list[str]:
    seen: list[str] = []
    for r in _load(name)[section]:
        if r["regime"] not in seen:
            seen.append(r["regime"])
    return seen


def _select(name: str, section: str, regime: str | None) -> dict[str, np.ndarray]:
    t = _table(name, section)
    if regime is None:
        return t
    m = t["regime"] == regime
    return {k: v[m] for k, v in t.items()}


# ----------------------------------------------------------------------------------------------
# comparison with a readable failure report
# ----------------------------------------------------------------------------------------------
def _assert_close(what, inputs: dict, got, want, tol, *, relative_to=None, n_worst=8):
    """Assert |got - want| <= tol elementwise; NaN/inf in ``got`` where ``want`` is finite fails.

    ``inputs`` maps argument names to arrays (printed for the worst points).
    """
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    tol = np.broadcast_to(np.asarray(tol, dtype=np.float64), want.shape)
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    err = np.abs(got - want)
    finite_bad = np.isfinite(want) & ~np.isfinite(got)
    ok = (err <= tol) | (got == want)
    ok &= ~finite_bad
    if ok.all():
        return
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(ok, 0.0, np.where(np.isfinite(err), err / tol, np.inf))
    order = np.argsort(-ratio, kind="stable")[: min(n_worst, int((~ok).sum()))]
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = err / np.abs(want)
    lines = [
        (f"{what}: {int((~ok).sum())} of {ok.size} points out of tolerance"
        f" ({int(finite_bad.sum())} non-finite where the reference is finite);"
        f" max err/tol = {np.max(ratio):.3g}; worst points:")
    ]
    for i in order:
        args = ", ".join(f"{k}={float(v[i])!r}" for k, v in inputs.items())
        lines.append(
            f"  {args}: got={got[i]!r} want={want[i]!r} abs_err={err[i]:.3e} rel_err={rel[i]:.3e}"
            f" tol={tol[i]:.3e}"
        )
    pytest.fail("\n".join(lines), pytrace=False)


def _value_error(got, want):
    """|got − want| / max(1, |want|), the measure of log-values."""
    return _error(got, want, np.maximum(1.0, np.abs(want)))


def _relative_error(got, want):
    return _error(got, want, np.abs(want))


def _deriv_error(got, want):
    """Relative error, absolute where |want| < DERIV_SMALL (scaled so one target covers both)."""
    return _error(got, want, np.maximum(np.abs(want), DERIV_SMALL))


def _error(got, want, scale):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    assert got.shape == want.shape, f"shape {got.shape} != {want.shape}"
    err = np.abs(got - want) / scale
    return np.where(got == want, 0.0, np.where(np.isfinite(got), err, np.inf))


def _points(**columns):
    keys = list(columns)
    return [", ".join(f"{k}={float(columns[k][i])!r}" for k in keys)
            for i in range(len(columns[keys[0]]))]


def _f64(a):
    return jnp.asarray(np.asarray(a, dtype=np.float64))


# Every function (and derivative) is evaluated once on a whole fixture table and cached; the
# per-regime tests slice the result. (Compiling a vmapped gradient costs seconds, a second
# derivative tens of seconds, so one compilation per table keeps the suite quick.)
def _mask(name: str, section: str, regime: str | None) -> np.ndarray:
    t = _table(name, section)
    return np.ones(t["x"].shape, bool) if regime is None else t["regime"] == regime


@functools.cache
def _bessel_values() -> dict[str, np.ndarray]:
    t = _table("log_bessel_i")
    v, x = _f64(t["v"]), _f64(t["x"])
    out = {
        "log_i": special.log_bessel_i(v, x),
        "log_ive": special.log_bessel_ive(v, x),
        "ratio": special.bessel_ratio(v, x),
    }
    for k, a in out.items():
        assert a.dtype == jnp.float64, f"{k}: dtype {a.dtype} for float64 inputs"
    return {k: np.asarray(a) for k, a in out.items()}


@functools.cache
def _bessel_first() -> dict[str, np.ndarray]:
    t = _table("log_bessel_i_derivs", "first")
    v, x = _f64(t["v"]), _f64(t["x"])
    def grads(v, x):
        dv, dx = jax.vmap(jax.grad(special.log_bessel_i, argnums=(0, 1)))(v, x)
        return dv, dx, jax.vmap(jax.grad(special.log_bessel_ive, argnums=0))(v, x)

    dv, dx, ive_dv = stored_jit(grads, v, x, name="log_bessel_grads")(v, x)
    return {"dv": np.asarray(dv), "dx": np.asarray(dx), "ive_dv": np.asarray(ive_dv)}


@functools.cache
def _bessel_second() -> dict[str, np.ndarray]:
    t = _table("log_bessel_i_derivs", "second")
    v, x = _f64(t["v"]), _f64(t["x"])

    def hessian(v, x):  # forward-over-reverse, one direction at a time: compiles ~6x faster
        grad = jax.grad(special.log_bessel_i, argnums=(0, 1))  # than jax.hessian here
        _, (hvv, hvx) = jax.jvp(grad, (v, x), (jnp.ones_like(v), jnp.zeros_like(x)))
        _, (hxv, hxx) = jax.jvp(grad, (v, x), (jnp.zeros_like(v), jnp.ones_like(x)))
        return hvv, hvx, hxv, hxx

    hvv, hvx, hxv, hxx = stored_jit(jax.vmap(hessian), v, x, name="log_bessel_i_hessian")(v, x)
    return {"vv": np.asarray(hvv), "vx": np.asarray(hvx), "xv": np.asarray(hxv), "xx": np.asarray(hxx)}


@functools.cache
def _hyp_values() -> np.ndarray:
    t = _table("log_hyp0f1")
    got = special.log_hyp0f1(_f64(t["b"]), _f64(t["x"]))
    assert got.dtype == jnp.float64
    return np.asarray(got)


@functools.cache
def _hyp_first() -> dict[str, np.ndarray]:
    t = _table("log_hyp0f1_derivs")
    b, x = _f64(t["b"]), _f64(t["x"])
    db, dx = stored_jit(jax.vmap(jax.grad(special.log_hyp0f1, argnums=(0, 1))), b, x,
                        name="log_hyp0f1_grads")(b, x)
    return {"db": np.asarray(db), "dx": np.asarray(dx)}


# ----------------------------------------------------------------------------------------------
# values: log I, log ive, ratio
# ----------------------------------------------------------------------------------------------
BESSEL_REGIMES = _regimes("log_bessel_i")


@pytest.mark.parametrize("col", ["log_i", "log_ive"])
@pytest.mark.parametrize("regime", BESSEL_REGIMES)
def test_log_bessel_i(regime, col, accuracy):
    m = _mask("log_bessel_i", "rows", regime)
    t = _table("log_bessel_i")
    accuracy.check(f"special/{col}/{regime}", _value_error(_bessel_values()[col][m], t[col][m]),
                   where=_points(v=t["v"][m], x=t["x"][m]))


@pytest.mark.parametrize("regime", BESSEL_REGIMES)
def test_bessel_ratio(regime, accuracy):
    m = _mask("log_bessel_i", "rows", regime)
    t = _table("log_bessel_i")
    accuracy.check(f"special/ratio/{regime}",
                   _relative_error(_bessel_values()["ratio"][m], t["ratio"][m]),
                   where=_points(v=t["v"][m], x=t["x"][m]))


def test_log_bessel_i0_tiny_x_relative(accuracy):
    """log I_0(x) = log 0F1(;1;x^2/4) ~ x^2/4 for tiny x must be relatively accurate.

    Stricter than the 2e-14 * max(1, |log I|) of test_log_bessel_i: the same requirement as
    test_log_hyp0f1_tiny_x_relative, for the same function at b = 1.
    """
    t = _table("log_bessel_i")
    idx = np.flatnonzero((t["v"] == 0.0) & (t["x"] <= 1e-2))
    m = idx[np.unique(t["x"][idx], return_index=True)[1]]  # a point can sit in two regimes
    assert m.size >= 10
    v, x, want = t["v"][m], t["x"][m], t["log_i"][m]
    got = _bessel_values()["log_i"][m]
    accuracy.check("special/log_i0_tiny_x", _relative_error(got, want), where=_points(v=v, x=x))


# ----------------------------------------------------------------------------------------------
# derivatives of log I
# ----------------------------------------------------------------------------------------------
FIRST_REGIMES = _regimes("log_bessel_i_derivs", "first")
SECOND_REGIMES = _regimes("log_bessel_i_derivs", "second")


@pytest.mark.parametrize("wrt", ["v", "x"])
@pytest.mark.parametrize("regime", FIRST_REGIMES)
def test_log_bessel_i_grad(regime, wrt, accuracy):
    m = _mask("log_bessel_i_derivs", "first", regime)
    t = _table("log_bessel_i_derivs", "first")
    accuracy.check(f"special/d{wrt}_log_i/{regime}",
                   _deriv_error(_bessel_first()["d" + wrt][m], t["d" + wrt][m]),
                   where=_points(v=t["v"][m], x=t["x"][m]))


@pytest.mark.parametrize("regime", FIRST_REGIMES)
def test_log_bessel_ive_grad_v(regime, accuracy):
    """d/dv log ive = d/dv log I (the e^-x factor does not depend on v)."""
    m = _mask("log_bessel_i_derivs", "first", regime)
    t = _table("log_bessel_i_derivs", "first")
    accuracy.check(f"special/dv_log_ive/{regime}",
                   _deriv_error(_bessel_first()["ive_dv"][m], t["dv"][m]),
                   where=_points(v=t["v"][m], x=t["x"][m]))


@pytest.mark.parametrize("which", ["vv", "xx", "vx", "xv"])
@pytest.mark.parametrize("regime", SECOND_REGIMES)
def test_log_bessel_i_hessian(regime, which, accuracy):
    m = _mask("log_bessel_i_derivs", "second", regime)
    t = _table("log_bessel_i_derivs", "second")
    want = t["dvx" if which == "xv" else "d" + which][m]
    accuracy.check(f"special/d{which}_log_i/{regime}",
                   _deriv_error(_bessel_second()[which][m], want),
                   where=_points(v=t["v"][m], x=t["x"][m]))


# ----------------------------------------------------------------------------------------------
# log 0F1
# ----------------------------------------------------------------------------------------------
HYP_REGIMES = _regimes("log_hyp0f1")
HYP_D_REGIMES = _regimes("log_hyp0f1_derivs")


@pytest.mark.parametrize("regime", HYP_REGIMES)
def test_log_hyp0f1(regime, accuracy):
    m = _mask("log_hyp0f1", "rows", regime)
    t = _table("log_hyp0f1")
    accuracy.check(f"special/log_hyp0f1/{regime}", _value_error(_hyp_values()[m], t["log_hyp0f1"][m]),
                   where=_points(b=t["b"][m], x=t["x"][m]))


def test_log_hyp0f1_tiny_x_relative(accuracy):
    """log 0F1(;b;x) ~ x/b for tiny x must be relatively accurate (not just absolutely)."""
    t = _table("log_hyp0f1")
    m = (t["x"] > 0) & (t["x"] <= 1e-3)
    assert m.sum() >= 50
    b, x, want = t["b"][m], t["x"][m], t["log_hyp0f1"][m]
    got = _hyp_values()[m]
    accuracy.check("special/log_hyp0f1_tiny_x", _relative_error(got, want), where=_points(b=b, x=x))


@pytest.mark.parametrize("wrt", ["b", "x"])
@pytest.mark.parametrize("regime", HYP_D_REGIMES)
def test_log_hyp0f1_grad(regime, wrt, accuracy):
    m = _mask("log_hyp0f1_derivs", "rows", regime)
    t = _table("log_hyp0f1_derivs")
    accuracy.check(f"special/d{wrt}_log_hyp0f1/{regime}",
                   _deriv_error(_hyp_first()["d" + wrt][m], t["d" + wrt][m]),
                   where=_points(b=t["b"][m], x=t["x"][m]))


# ----------------------------------------------------------------------------------------------
# float32
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fname,col,rel", [
    ("log_bessel_i", "log_i", False),
    ("log_bessel_ive", "log_ive", False),
    ("bessel_ratio", "ratio", True),
])
def test_float32_bessel(fname, col, rel):
    """The "f32" regime has float32-representable (v, x), so the float64 reference applies."""
    t = _select("log_bessel_i", "rows", "f32")
    v32, x32 = t["v"].astype(np.float32), t["x"].astype(np.float32)
    assert np.array_equal(v32.astype(np.float64), t["v"]) and np.array_equal(x32.astype(np.float64), t["x"])
    got = getattr(special, fname)(jnp.asarray(v32), jnp.asarray(x32))
    assert got.dtype == jnp.float32, f"{fname} returned {got.dtype} for float32 inputs"
    want = t[col]
    tol = F32_TOL * np.abs(want) if rel else F32_TOL * np.maximum(1.0, np.abs(want))
    _assert_close(f"{fname} float32", {"v": t["v"], "x": t["x"]}, got, want, tol)


def test_float32_log_hyp0f1():
    """Inputs rounded to float32; the reference is moved to the rounded point to first order
    with the fixture's own derivatives (the second-order remainder is far below float32 eps)."""
    t = _table("log_hyp0f1_derivs")
    b32, x32 = t["b"].astype(np.float32), t["x"].astype(np.float32)
    want = (t["log_hyp0f1"] + t["db"] * (b32.astype(np.float64) - t["b"])
            + t["dx"] * (x32.astype(np.float64) - t["x"]))
    got = special.log_hyp0f1(jnp.asarray(b32), jnp.asarray(x32))
    assert got.dtype == jnp.float32
    _assert_close("log_hyp0f1 float32", {"b": b32, "x": x32}, got, want,
                  F32_TOL * np.maximum(1.0, np.abs(want)))


def test_float32_grad_finite():
    """float32 gradients of log I exist (finite, float32) wherever the float64 ones do."""
    t = _select("log_bessel_i", "rows", "f32")
    v32, x32 = jnp.asarray(t["v"].astype(np.float32)), jnp.asarray(t["x"].astype(np.float32))
    grads = jax.jit(jax.vmap(jax.grad(special.log_bessel_i, argnums=(0, 1))))(v32, x32)
    msgs = []
    for name, g in zip(("d/dv", "d/dx"), grads):
        assert g.dtype == jnp.float32
        bad = ~np.isfinite(np.asarray(g))
        if bad.any():
            pts = ", ".join(f"(v={a!r}, x={b!r}): {c}" for a, b, c in
                            zip(t["v"][bad][:8], t["x"][bad][:8], np.asarray(g)[bad][:8]))
            msgs.append(f"{name} log_bessel_i float32: {int(bad.sum())} of {bad.size} non-finite: {pts}")
    if msgs:
        pytest.fail("\n".join(msgs), pytrace=False)


# ----------------------------------------------------------------------------------------------
# x = 0 limits (outside the fixtures' x range)
# ----------------------------------------------------------------------------------------------
def test_x_zero_limits():
    v = jnp.asarray([-0.5, 0.0, 1e-3, 0.5, 3.0, 5000.0])
    x = jnp.zeros_like(v)
    li = np.asarray(special.log_bessel_i(v, x))
    np.testing.assert_array_equal(li, [np.inf, 0.0, -np.inf, -np.inf, -np.inf, -np.inf])
    np.testing.assert_array_equal(np.asarray(special.log_bessel_ive(v, x)), li)
    b = jnp.asarray([0.5, 1.0, 2.5, 2500.0])
    np.testing.assert_array_equal(np.asarray(special.log_hyp0f1(b, jnp.zeros_like(b))), 0.0)


# ----------------------------------------------------------------------------------------------
# cross-checks of the fixtures themselves (independent of fisherrdp)
# ----------------------------------------------------------------------------------------------
def test_fixture_metadata():
    for name in ("log_bessel_i", "log_bessel_i_derivs", "log_hyp0f1", "log_hyp0f1_derivs"):
        meta = _load(name)["meta"]
        assert meta["mp_dps"] >= 30
        for sec, counts in meta["counts"].items():
            assert sum(counts.values()) == len(_load(name)[sec])


def test_fixtures_against_scipy():
    """Where scipy's ive is accurate (moderate v and x), the fixtures must agree with it."""
    t = _table("log_bessel_i")
    m = (t["v"] <= 50) & (t["x"] >= 1e-3) & (t["x"] <= 1e4)
    assert m.sum() > 300
    v, x = t["v"][m], t["x"][m]
    ive = sps.ive(v, x)
    ok = ive > 1e-280
    _assert_close("scipy log(ive) vs fixture log_ive", {"v": v[ok], "x": x[ok]},
                  np.log(ive[ok]), t["log_ive"][m][ok], 1e-13 * np.maximum(1.0, np.abs(t["log_ive"][m][ok])))
    r = sps.ive(v + 1, x) / ive
    ok &= sps.ive(v + 1, x) > 1e-280
    _assert_close("scipy ive(v+1)/ive(v) vs fixture ratio", {"v": v[ok], "x": x[ok]},
                  r[ok], t["ratio"][m][ok], 1e-12 * np.abs(t["ratio"][m][ok]))


def test_fixtures_against_scipy_hyp0f1():
    t = _table("log_hyp0f1")
    m = (t["b"] <= 50) & (t["x"] <= 100)
    assert m.sum() > 100
    b, x = t["b"][m], t["x"][m]
    want = t["log_hyp0f1"][m]
    _assert_close("scipy log(hyp0f1) vs fixture", {"b": b, "x": x}, np.log(sps.hyp0f1(b, x)), want,
                  1e-13 * np.maximum(1.0, np.abs(want)))


def test_fixtures_closed_forms():
    """v = -1/2: I = sqrt(2/(pi x)) cosh x, ratio tanh x; v = 1/2: I = sqrt(2/(pi x)) sinh x;
    b = 1/2: 0F1(;1/2;x) = cosh(2 sqrt x)."""
    t = _table("log_bessel_i")
    m = t["v"] == -0.5
    x = t["x"][m]
    logcosh = x + np.log1p(np.exp(-2 * x)) - math.log(2)
    want = 0.5 * np.log(2 / (math.pi * x)) + logcosh
    _assert_close("fixture log I_-1/2 vs closed form", {"x": x}, t["log_i"][m], want,
                  1e-14 * np.maximum(1.0, np.abs(want)))
    _assert_close("fixture ratio_-1/2 vs tanh", {"x": x}, t["ratio"][m], np.tanh(x), 1e-15 * np.tanh(x))
    m = (t["v"] == 0.5) & (t["x"] > 1e-3)
    x = t["x"][m]
    assert x.size >= 3
    want = 0.5 * np.log(2 / (math.pi * x)) + x + np.log(-np.expm1(-2 * x)) - math.log(2)
    _assert_close("fixture log I_1/2 vs closed form", {"x": x}, t["log_i"][m], want,
                  1e-14 * np.maximum(1.0, np.abs(want)))
    h = _table("log_hyp0f1")
    m = (h["b"] == 0.5) & (h["x"] > 1e-6)
    z = 2 * np.sqrt(h["x"][m])
    want = z + np.log1p(np.exp(-2 * z)) - math.log(2)
    _assert_close("fixture log 0F1(;1/2;x) vs log cosh", {"x": h["x"][m]}, h["log_hyp0f1"][m], want,
                  1e-14 * np.maximum(1.0, np.abs(want)))


# ----------------------------------------------------------------------------------------------
# log Γ (the one behind log I_ν's series and the central χ² density)
# ----------------------------------------------------------------------------------------------
#: Measured worst relative errors against ``log_gamma.json`` (424 points, 40-digit mpmath):
#: float32 (the series) 4.0e-7 = 3.4 eps, exactly 0 at x = 1 and 2 (XLA's float32 lgamma:
#: 1.37, near the zeros); float64 (XLA's lgamma) 2.0e-9, at x = 1 ± 1e-9.
LOG_GAMMA_TOL = {np.float32: 4e-6, np.float64: 2e-8}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_log_gamma_relative_also_near_its_zeros(dtype):
    from fisherrdp._src.special.gamma import log_gamma

    t = _table("log_gamma")
    got = np.asarray(log_gamma(jnp.asarray(t["x"], dtype)))
    assert got.dtype == dtype
    zero = t["log_gamma"] == 0.0
    assert np.all(got[zero] == 0.0)
    err = np.abs(got[~zero] - t["log_gamma"][~zero]) / np.abs(t["log_gamma"][~zero])
    assert err.max() <= LOG_GAMMA_TOL[dtype], t["x"][~zero][np.argmax(err)]


# ----------------------------------------------------------------------------------------------
# The ratio's distances to its limits (the float32 score of the Fisher information)
# ----------------------------------------------------------------------------------------------
#: Orders, and where in each helper's region (from its edge outwards) they are checked.
DISTANCE_ORDERS = np.array([-0.4, 0.0, 0.3, 1.0, 2.5, 5.0, 9.7, 19.9, 37.0, 60.0])
HANKEL_FROM_EDGE = np.array([1.0, 1.5, 4.0, 30.0])
SERIES_FROM_EDGE = np.array([0.999, 0.3, 0.1, 0.02])  # 1: rounding may cross the edge
#: Against the Bessel core in float64, whose 1 − R and 2(ν+1)R/x − 1 carry its absolute
#: rounding (~eps64, up to 3e-12 relative at these points, hence the absolute term): measured
#: float32 1.9e-7 relative (1.6 eps32; the reference's error is far below); float64 within
#: that absolute term (against mpmath: 6.7e-16 relative, docs/math/bessel.md). Tolerances: 10×
#: the float32 measurement; float64, 2e-12 relative plus 4 eps64 (the reference's).
DISTANCE_TOL = {np.float32: 2e-6, np.float64: 2e-12}
EPS64 = float(np.finfo(np.float64).eps)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_the_ratios_distances_to_its_limits(dtype):
    """1 − R_ν(x) at large x and 2(ν+1)R_ν(x)/x − 1 at small x, without forming R_ν."""
    from fisherrdp._src.special.bessel import ratio_complement_large_x, ratio_over_x_deviation

    v = np.repeat(DISTANCE_ORDERS, len(HANKEL_FROM_EDGE))
    x_large = (2.0 * v * v + 32.0) * np.tile(HANKEL_FROM_EDGE, len(DISTANCE_ORDERS))
    x_small = 2.0 * np.sqrt((v + 1.0) / 4.0 * np.tile(SERIES_FROM_EDGE, len(DISTANCE_ORDERS)))
    # Inputs rounded to the dtype first: the reference is taken at the same points.
    v, x_large, x_small = (np.asarray(np.asarray(a, dtype), np.float64)
                           for a in (v, x_large, x_small))
    ratio = np.asarray(special.bessel_ratio(np.concatenate([v, v]),
                                            np.concatenate([x_large, x_small])))
    ref_complement = 1.0 - ratio[: v.size]
    ref_deviation = 2.0 * (v + 1.0) * ratio[v.size:] / x_small - 1.0

    @jax.jit
    def both(v, x_large, x_small):
        return (*ratio_complement_large_x(v, x_large),
                *ratio_over_x_deviation(v, 0.25 * x_small * x_small))

    complement, in_hankel, deviation, in_series = both(
        *(jnp.asarray(a, dtype) for a in (v, x_large, x_small)))
    assert complement.dtype == dtype and deviation.dtype == dtype
    assert np.all(in_hankel) and np.all(in_series)
    for name, got, ref in (("complement", complement, ref_complement),
                           ("deviation", deviation, ref_deviation)):
        err = np.abs(np.asarray(got, np.float64) - ref) / (DISTANCE_TOL[dtype] * np.abs(ref)
                                                           + 4.0 * EPS64)
        worst = int(np.argmax(err))
        assert err[worst] <= 1.0, (name, err[worst], v[worst])
    # ν = −½: R = tanh x, 1 − R < 1e-27 over the region; the expansion gives 0. Outside the
    # regions, finite values (taken at the edge, for a where), also where a_k(ν) alone
    # overflows float32 (ν = 500), and finite derivatives.
    assert float(ratio_complement_large_x(jnp.asarray(-0.5, dtype), jnp.asarray(32.5, dtype))[0]) == 0.0
    v_out, x_out = jnp.asarray([500.0, 500.0, 3.0], dtype), jnp.asarray([10.0, 1e7, 5.0], dtype)
    for fn, arg, inside in ((ratio_complement_large_x, x_out, [False, True, False]),
                            (ratio_over_x_deviation, x_out**2, [True, False, False])):
        value, applies = fn(v_out, arg)
        assert np.array_equal(applies, inside)
        grads = jax.grad(lambda v, x, fn=fn: jnp.sum(fn(v, x)[0]), argnums=(0, 1))(v_out, arg)
        assert np.all(np.isfinite(value)) and all(np.all(np.isfinite(g)) for g in grads)


#: r R_ν(κ r)/κ − 1 at large orders (float32's Fisher score and log-likelihood ratio): slopes κ
#: from 0 (the limit r²/(2ν + 2) − 1) to 100, r across the bulk r² ≈ 2ν + κ², where the value
#: is small, and far left (r = 0.01, 0.5), where it is ≈ −1. Orders from float32's switch
#: (ν = 10, with its 8 Debye terms) and from float64's Debye range (ν = 20, all 16 terms).
OFFSET_ORDERS = {np.float32: [10.0, 19.9, 60.0, 500.0, 4000.0], np.float64: [20.0, 60.0, 500.0, 4000.0]}
OFFSET_SLOPES = [0.0, 0.3, 5.0, 40.0, 100.0]
OFFSET_BULK_STEPS = [-3.0, -0.7, 0.0, 0.4, 2.5]
OFFSET_FAR_LEFT = [0.01, 0.5]
#: Against r R/κ − 1 from the Bessel core in float64, whose absolute rounding (~eps64 · r R/κ)
#: is the absolute term: measured float32 3.0e-7 relative (2.6 eps32), float64 2.5e-12 (the
#: reference's own rounding where the value is small; median 8e-16). Tolerances 10× those.
OFFSET_TOL = {np.float32: 3e-6, np.float64: 2.5e-11}


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_ratio_relative_offset_at_large_orders(dtype):
    """r R_ν(κ r)/κ − 1 from Debye's R_ν, given r² − 2ν − κ², without the cancellation."""
    from fisherrdp._src.distributions.ncx2.density import SINGLE_DEBYE_TERMS
    from fisherrdp._src.special.bessel import ratio_relative_offset
    from fisherrdp._src.special.debye import DEBYE_TERMS

    places = OFFSET_BULK_STEPS + OFFSET_FAR_LEFT
    v, kappa, place = (a.ravel() for a in np.meshgrid(
        OFFSET_ORDERS[dtype], OFFSET_SLOPES, np.arange(len(places)), indexing="ij"))
    bulk = np.sqrt(2.0 * v + kappa * kappa)
    far_left = place >= len(OFFSET_BULK_STEPS)
    r = np.where(far_left, np.asarray(places)[place], bulk + np.asarray(places)[place])
    v, kappa, r = (np.asarray(np.asarray(a, dtype), np.float64) for a in (v, kappa, r))
    excess = r * r - 2.0 * v - kappa * kappa
    positive = kappa > 0.0
    ratio = np.asarray(special.bessel_ratio(v, kappa * r))
    ref = np.where(positive, r * ratio / np.where(positive, kappa, 1.0),
                   r * r / (2.0 * v + 2.0)) - 1.0
    terms = SINGLE_DEBYE_TERMS if dtype == np.float32 else DEBYE_TERMS
    offset = jax.jit(lambda *a: ratio_relative_offset(*a, terms=terms))
    args = [jnp.asarray(a, dtype) for a in (v, r, kappa, excess)]
    got = offset(*args)
    assert got.dtype == dtype
    err = np.abs(np.asarray(got, np.float64) - ref) / (
        OFFSET_TOL[dtype] * np.abs(ref) + 4.0 * EPS64 * (ref + 1.0))
    worst = int(np.argmax(err))
    assert err[worst] <= 1.0, (err[worst], v[worst], kappa[worst], r[worst])
    # Finite derivatives, also at κ = 0.
    grads = jax.grad(lambda *a: jnp.sum(offset(*a)), argnums=(0, 1, 2, 3))(*args)
    assert all(np.all(np.isfinite(g)) for g in grads)

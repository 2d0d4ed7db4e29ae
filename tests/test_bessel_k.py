"""log K_ν: ``fisherrdp.special.log_bessel_k`` and ``log_bessel_kve`` against mpmath, by regime.

The reference is ``tests/fixtures/bessel_k.json`` (mpmath at 40 digits, made by
``tests/fixtures/make_bessel_k_fixtures.py``; its points are float32-representable, except
arguments below float32's range). Errors are checked with the ``accuracy`` fixture against
the claims of ``tests/fixtures/accuracy/bessel_k.json`` (the numbers of
``docs/math/bessel.md#the-second-kind``; a test fails above 10 × the measured number or above
the target):

* values, float64 and float32: |error| / max(1, |value|) per regime, targets 5e-14 (float64)
  and 1e-5 (float32; float32 arguments, the exact reference at them);
* first derivatives (∂ₓ log K, ∂ₓ log(K e^x), ∂_ν log K): |error| / max(|value|, 1e-300),
  target 1e-12 (float64); float32's, target 1e-4.

Properties on grids across the regimes' edges (x = 2, R = 32): symmetry in ν, decrease in x,
increase in |ν|, the recurrence K_{ν+1} = K_{ν−1} + (2ν/x) K_ν; edge values; the ValueError;
``jax.test_util.check_grads`` in both modes.

Programs: every value of the file is computed by one call per function and dtype on one batch
(the fixture's rows, the property grids and the edges: one bucket of ``map_bucketed``), the
derivatives by one ``jit(vmap(jacfwd))`` per dtype (traced once, ``helpers.stored``), and
``check_grads`` on one jitted function of 6-point vectors.
"""

from __future__ import annotations

import functools
import json
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers.stored import stored_jit
from jax.test_util import check_grads

from fisherrdp import special as fs

FIXTURE = json.loads((pathlib.Path(__file__).parent / "fixtures" / "bessel_k.json").read_text())
ROWS = {k: np.array([r[k] for r in FIXTURE["rows"]]) for k in FIXTURE["rows"][0]}
DERIVS = {k: np.array([r[k] for r in FIXTURE["derivs"]]) for k in FIXTURE["derivs"][0]}
REGIMES = list(dict.fromkeys(ROWS["regime"]))
F32_TINY = float(np.finfo(np.float32).tiny)

# Property grids, across the regimes' edges.
_X_GRID = np.concatenate([[1e-300, 1e-30, 1e-5, 0.1, 1.0, 1.999, 2.0, 2.001, 5.0, 20.0],
                          [31.0, 31.99, 32.01, 40.0, 300.0, 1e4, 1e6, 1e8]])
_V_FOR_X = np.array([0.0, 0.5, 7.3, 31.5, 40.0, 1e3, 1e6])
_V_GRID = np.array([0.0, 0.25, 0.5, 0.75, 1.0, 2.5, 10.0, 30.0, 31.0, 31.5, 31.9, 32.0, 32.1,
                    33.0, 100.0, 1e4, 1e7])
_X_FOR_V = np.array([1e-300, 0.5, 2.5, 10.0, 31.0, 1e3])
_RECURRENCE = [(v, x) for v in (1.0, 1.5, 3.3, 15.0, 30.8, 31.2, 32.0, 45.0, 1e3)
               for x in (1e-3, 0.8, 2.0, 7.0, 25.0, 31.5, 150.0)]
_EDGES = np.array([(0.0, 0.0), (-3.0, 0.0), (2.5, np.inf), (0.0, np.inf), (-7.25, 3.0),
                   (7.25, 3.0), (-40.0, 1.0), (40.0, 1.0), (1.0, 5e-324)])


def _batch():
    """(name, v, x) blocks of the one batch every value of the file comes from."""
    vx, xx = np.meshgrid(_V_FOR_X, _X_GRID, indexing="ij")
    vv, xv = np.meshgrid(_V_GRID, _X_FOR_V, indexing="ij")
    rec = np.array(_RECURRENCE)
    return [
        ("rows", ROWS["v"], ROWS["x"]),
        ("in_x", vx.ravel(), xx.ravel()),
        ("in_v", vv.ravel(), xv.ravel()),
        ("rec_minus", rec[:, 0] - 1.0, rec[:, 1]),
        ("rec", rec[:, 0], rec[:, 1]),
        ("rec_plus", rec[:, 0] + 1.0, rec[:, 1]),
        ("edges", _EDGES[:, 0], _EDGES[:, 1]),
    ]


@functools.cache
def values(function: str, dtype: str) -> dict[str, np.ndarray]:
    """``fs.<function>`` on the whole batch in ``dtype`` (one call), by block, as float64."""
    blocks = _batch()
    v = np.concatenate([b[1] for b in blocks]).astype(dtype)
    x = np.concatenate([b[2] for b in blocks]).astype(dtype)
    out = getattr(fs, function)(v, x)
    assert out.dtype == dtype
    out = np.asarray(out, np.float64)
    split = np.cumsum([len(b[1]) for b in blocks])[:-1]
    return dict(zip([b[0] for b in blocks], np.split(out, split)))


def _value_errors(got, want):
    return np.abs(got - want) / np.maximum(1.0, np.abs(want))


# ----------------------------------------------------------------------------------------------
# Against mpmath


@pytest.mark.parametrize("regime", REGIMES)
@pytest.mark.parametrize("function, column", [("log_bessel_k", "log_k"),
                                              ("log_bessel_kve", "log_kve")])
def test_values_float64(function, column, regime, accuracy):
    m = ROWS["regime"] == regime
    got = values(function, "float64")["rows"][m]
    assert np.isfinite(got).all()
    accuracy.check(f"bessel_k/{column}/{regime}", _value_errors(got, ROWS[column][m]),
                   where=list(zip(ROWS["v"][m], ROWS["x"][m])))


@pytest.mark.parametrize("regime", REGIMES)
@pytest.mark.parametrize("function, column", [("log_bessel_k", "log_k"),
                                              ("log_bessel_kve", "log_kve")])
def test_values_float32(function, column, regime, accuracy):
    """float32 at the fixture's (float32) points; x below float32's range is 0 there: +inf."""
    m = ROWS["regime"] == regime
    got = values(function, "float32")["rows"][m]
    inside = ROWS["x"][m] >= F32_TINY
    assert np.all(got[~inside] == np.inf)
    if inside.any():
        assert np.isfinite(got[inside]).all()
        accuracy.check(f"bessel_k/{column}_f32/{regime}",
                       _value_errors(got[inside], ROWS[column][m][inside]),
                       where=list(zip(ROWS["v"][m][inside], ROWS["x"][m][inside])))


def _both(v, x):
    return jnp.stack([fs.log_bessel_k(v, x), fs.log_bessel_kve(v, x)])


@functools.cache
def derivatives(dtype: str):
    """(∂_ν, ∂ₓ) of (log K, log(K e^x)) at the derivative rows, then at the edges."""
    v = np.concatenate([DERIVS["v"], _EDGES[:, 0]]).astype(dtype)
    x = np.concatenate([DERIVS["x"], _EDGES[:, 1]]).astype(dtype)
    jacobian = stored_jit(jax.vmap(jax.jacfwd(_both, argnums=(0, 1))), v, x,
                          name=f"bessel_k_jacobian_{dtype}")
    dv, dx = (np.asarray(a, np.float64) for a in jacobian(v, x))
    n = len(DERIVS["v"])
    return (dv[:n], dx[:n]), (dv[n:], dx[n:])


def _derivative_errors(got, want):
    return np.where(want == 0.0, np.abs(got), np.abs(got - want) / np.maximum(np.abs(want),
                                                                             1e-300))


@pytest.mark.parametrize("name, column, argument, output", [
    ("dx_log_k", "dx_log_k", 1, 0), ("dx_log_kve", "dx_log_kve", 1, 1),
    ("dv_log_k", "dv_log_k", 0, 0), ("dv_log_kve", "dv_log_k", 0, 1)])
def test_derivatives_float64(name, column, argument, output, accuracy):
    got = derivatives("float64")[0][argument][:, output]
    accuracy.check(f"bessel_k/{name}", _derivative_errors(got, DERIVS[column]),
                   where=list(zip(DERIVS["v"], DERIVS["x"])))


def test_derivatives_float32(accuracy):
    """float32 derivatives where float32 holds the argument and the derivative (∂ₓ at
    x = 1e-300 is −ν/x, beyond float32's range)."""
    (dv, dx), _ = derivatives("float32")
    inside = DERIVS["x"] >= 1e-30
    errors = [_derivative_errors(got[inside], DERIVS[col][inside]) for got, col in
              [(dx[:, 0], "dx_log_k"), (dx[:, 1], "dx_log_kve"), (dv[:, 0], "dv_log_k")]]
    accuracy.check("bessel_k/derivatives_f32", np.concatenate(errors))


_BOTH = jax.jit(_both)
_GRAD_V = jnp.array([0.3, 2.6, 40.0, -1.2, 1e3, 15.5])
_GRAD_X = jnp.array([0.7, 3.1, 5.0, 50.0, 700.0, 1.9])


def test_check_grads_both_modes():
    check_grads(_BOTH, (_GRAD_V, _GRAD_X), order=1, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


def test_derivatives_at_the_edges():
    """No NaN: x = 0 (+inf; derivatives 0, not values), x = +inf (the limits: ∂ₓ log K = −1,
    else 0), negative orders (∂_ν log K_ν is odd in ν), x subnormal (counts as 0)."""
    _, (dv, dx) = derivatives("float64")
    assert not np.isnan(dv).any() and not np.isnan(dx).any()
    np.testing.assert_array_equal(dx[2:4, 0], -1.0)
    np.testing.assert_array_equal(dx[2:4, 1], 0.0)
    np.testing.assert_array_equal(dv[2:4], 0.0)
    np.testing.assert_array_equal(dv[4], -dv[5])  # v = ∓7.25
    np.testing.assert_array_equal(dx[4], dx[5])


# ----------------------------------------------------------------------------------------------
# Properties and edges


def test_symmetric_in_the_order():
    k = values("log_bessel_k", "float64")["edges"]
    assert k[4] == k[5] and k[6] == k[7]  # v = ∓7.25, ∓40


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_decreasing_in_x(dtype):
    k = values("log_bessel_k", dtype)["in_x"].reshape(len(_V_FOR_X), len(_X_GRID))
    if dtype == "float32":  # x = 1e-300 is 0 there
        k = k[:, 1:]
    assert (np.diff(k, axis=1) < 0).all(), np.argwhere(np.diff(k, axis=1) >= 0)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_increasing_in_the_order(dtype):
    k = values("log_bessel_k", dtype)["in_v"].reshape(len(_V_GRID), len(_X_FOR_V))
    if dtype == "float32":
        k = k[:, 1:]
    assert (np.diff(k, axis=0) > 0).all(), np.argwhere(np.diff(k, axis=0) <= 0)


def test_recurrence():
    """K_{ν+1} = K_{ν−1} + (2ν/x) K_ν, in logarithms (every term positive), across x = 2 and
    R = 32: 1e-14 of max(1, |log K_{ν+1}|) (measured: 2.9e-15)."""
    got = values("log_bessel_k", "float64")
    v, x = np.array(_RECURRENCE).T
    right = np.logaddexp(got["rec_minus"], np.log(2.0 * v / x) + got["rec"])
    err = _value_errors(right, got["rec_plus"])
    assert err.max() <= 1e-14, (err.max(), _RECURRENCE[int(np.argmax(err))])


def test_edge_values():
    for function, at_inf in (("log_bessel_k", -np.inf), ("log_bessel_kve", -np.inf)):
        for dtype in ("float64", "float32"):
            e = values(function, dtype)["edges"]
            assert e[0] == e[1] == e[8] == np.inf  # x = 0 (and subnormal): +inf
            assert e[2] == e[3] == at_inf  # x = +inf
    # log K_½(x) = ½ log(π/(2x)) − x, exactly representable inputs
    np.testing.assert_allclose(float(fs.log_bessel_k(0.5, 3.0)), 0.5 * np.log(np.pi / 6.0) - 3.0,
                               rtol=1e-15)


def test_negative_argument():
    with pytest.raises(ValueError, match="argument 'x' must be >= 0, got -0.001"):
        fs.log_bessel_k(1.0, -1e-3)
    with pytest.raises(ValueError, match="argument 'x' must be >= 0"):
        fs.log_bessel_kve([1.0, 2.0], [1.0, -2.0])
    # Under jit: NaN (the program of test_check_grads_both_modes).
    out = np.asarray(_BOTH(_GRAD_V, _GRAD_X.at[1].set(-1.0)))
    assert np.isnan(out[:, 1]).all() and np.isfinite(np.delete(out, 1, axis=1)).all()

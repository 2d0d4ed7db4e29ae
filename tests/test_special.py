"""Identities, limits, transformations and bad input for fisherrdp.special.

Accuracy against mpmath lives in test_special_accuracy.py (committed fixtures); here the
functions are checked against each other and against closed forms, regime by regime.
"""

import math

import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
from helpers.stored import stored_jit
from jax.test_util import check_grads

import fisherrdp.special as fs
from fisherrdp._src.special import bessel as bessel_module

# Grids that cover each regime of the implementation (see fisherrdp/_src/special/bessel.py).
REGIMES = {
    "series_small_x": (np.array([-0.5, -0.2, 0.0, 0.5, 3.0, 12.5, 19.9]), np.array([1e-8, 0.3, 2.0, 7.9])),
    "recurrence": (np.array([-0.5, 0.0, 0.7, 5.0, 19.9]), np.array([8.1, 30.0, 700.0, 5e4, 1e6])),
    "debye": (np.array([20.0, 35.5, 400.0, 5000.0]), np.array([1e-6, 1.0, 60.0, 2e3, 1e6])),
    "boundaries": (np.array([19.999, 20.0, 20.001]), np.array([7.999, 8.0, 8.001, 4.47, 4.59])),
}


def grid(name):
    v, x = REGIMES[name]
    vv, xx = np.meshgrid(v, x, indexing="ij")
    return vv.ravel(), xx.ravel()


def rel_err(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    return np.abs(got - want) / np.maximum(1.0, np.abs(want))


@pytest.mark.parametrize("regime", REGIMES)
def test_three_term_recurrence_of_ratios(regime):
    # I_{v-1} - I_{v+1} = (2v/x) I_v  <=>  1/R_{v-1} - R_v = 2v/x, for v - 1 >= -1/2.
    v, x = grid(regime)
    v = v + 1.0
    inverse, ratio = 1.0 / fs.bessel_ratio(v - 1.0, x), fs.bessel_ratio(v, x)
    # The difference cancels where both are near 1: measure the error against the summands.
    np.testing.assert_array_less(np.abs(inverse - ratio - 2.0 * v / x) / (inverse + ratio), 2e-15 * 50)


@pytest.mark.parametrize("regime", REGIMES)
def test_log_bessel_i_consecutive_orders_match_ratio(regime):
    v, x = grid(regime)
    diff = fs.log_bessel_i(v + 1.0, x) - fs.log_bessel_i(v, x)
    scale = np.maximum(1.0, np.abs(np.asarray(fs.log_bessel_i(v, x))))
    np.testing.assert_array_less(np.abs(diff - np.log(fs.bessel_ratio(v, x))) / scale, 4e-14)


@pytest.mark.parametrize("regime", REGIMES)
def test_x_derivative_matches_lower_order_identity(regime):
    # d/dx log I_v = I_{v-1}/I_v - v/x = 1/R_{v-1} - v/x: independent of the custom_jvp rule.
    v, x = grid(regime)
    v = v + 1.0
    got = jax.vmap(jax.grad(fs.log_bessel_i, argnums=1))(v, x)
    inverse = 1.0 / fs.bessel_ratio(v - 1.0, x)
    # Same cancellation as above where x >> v: scale by the summands.
    np.testing.assert_array_less(np.abs(got - (inverse - v / x)) / (inverse + v / x), 1e-13)


@pytest.mark.parametrize("x", [1e-9, 0.4, 7.5, 8.5, 40.0, 709.0, 3e4, 1e6])
def test_half_integer_closed_forms(x):
    # I_{-1/2}(x) = sqrt(2/(pi x)) cosh x, I_{1/2}(x) = sqrt(2/(pi x)) sinh x.
    log_pre = 0.5 * math.log(2.0 / (math.pi * x))
    log_cosh = x + math.log1p(math.exp(-2 * x)) - math.log(2.0)
    log_sinh = x + math.log(-math.expm1(-2 * x)) - math.log(2.0)
    assert rel_err(fs.log_bessel_i(-0.5, x), log_pre + log_cosh) < 2e-14
    assert rel_err(fs.log_bessel_i(0.5, x), log_pre + log_sinh) < 2e-14
    assert abs(float(fs.bessel_ratio(-0.5, x)) / math.tanh(x) - 1.0) < 1e-13


@pytest.mark.parametrize("b,closed_form", [
    (0.5, lambda x: math.log(math.cosh(2 * math.sqrt(x)))),
    (1.5, lambda x: math.log(math.sinh(2 * math.sqrt(x)) / (2 * math.sqrt(x)))),
])
@pytest.mark.parametrize("x", [1e-3, 0.7, 15.0, 17.0, 300.0, 5e4])
def test_hyp0f1_closed_forms(b, closed_form, x):
    assert rel_err(fs.log_hyp0f1(b, x), closed_form(x)) < 2e-14


@pytest.mark.parametrize("b", [0.5, 1.0, 7.3, 60.0, 2500.0])
def test_hyp0f1_tiny_argument_is_relatively_accurate(b):
    # log 0F1(;b;x) ~ x/b as x -> 0: the accuracy must be relative, not absolute.
    x = np.array([1e-300, 1e-30, 1e-12, 1e-6, 1e-3])
    with mpmath.workdps(340):  # enough digits to resolve 1 + 1e-300
        want = np.array([float(mpmath.log(mpmath.hyp0f1(b, mpmath.mpf(xi)))) for xi in x])
    np.testing.assert_allclose(fs.log_hyp0f1(b, x), want, rtol=1e-14)


def test_hyp0f1_matches_bessel_form_where_that_is_stable():
    b = np.array([0.5, 2.0, 11.0, 30.0])[:, None]  # small b: log Γ(b) small, no cancellation
    x = np.array([20.0, 400.0, 1e5, 2.5e11])[None, :]
    via_bessel = (jax.scipy.special.gammaln(b) + 0.5 * (1 - b) * np.log(x)
                  + fs.log_bessel_i(b - 1.0, 2.0 * np.sqrt(x)))
    np.testing.assert_allclose(fs.log_hyp0f1(b, x), via_bessel, rtol=1e-13)


def test_limits_at_zero():
    assert float(fs.log_bessel_i(0.0, 0.0)) == 0.0
    assert float(fs.log_bessel_i(2.0, 0.0)) == -np.inf
    assert float(fs.log_bessel_i(-0.25, 0.0)) == np.inf
    assert float(fs.log_bessel_ive(0.0, 0.0)) == 0.0
    assert float(fs.bessel_ratio(3.0, 0.0)) == 0.0
    assert float(fs.log_hyp0f1(4.0, 0.0)) == 0.0
    # Gradients where the value is finite at x = 0.
    assert float(jax.grad(fs.log_bessel_i, argnums=1)(0.0, 0.0)) == 0.0
    assert float(jax.grad(fs.log_hyp0f1, argnums=1)(4.0, 0.0)) == pytest.approx(0.25, rel=1e-15)
    assert float(jax.grad(fs.bessel_ratio, argnums=1)(3.0, 0.0)) == pytest.approx(0.125, rel=1e-15)


def test_no_nan_in_values_or_gradients_across_the_domain():
    v, x = np.meshgrid(np.array([-0.5, -0.1, 0.0, 1.0, 19.99, 20.0, 150.0, 5000.0]),
                       np.array([1e-300, 1e-10, 1.0, 7.99, 8.0, 8.01, 1e3, 1e6, 1e30]), indexing="ij")
    v, x = v.ravel(), x.ravel()
    cases = [(fs.log_bessel_i, v), (fs.log_bessel_ive, v), (fs.bessel_ratio, v), (fs.log_hyp0f1, v + 1.0)]
    for f, first in cases:
        assert np.all(np.isfinite(f(first, x))), f
        grads = stored_jit(jax.vmap(jax.grad(f, argnums=(0, 1))), first, x,
                           name=f"{f.__name__}_grads_over_the_domain")(first, x)
        assert all(np.all(np.isfinite(g)) for g in grads), f


# One point per regime, checked in one vectorized call (each call compiles new programs).
GRAD_POINTS = (np.array([0.3, -0.4, 4.0, 35.0, 19.5]), np.array([2.0, 9.0, 25.0, 12.0, 300.0]))


@pytest.mark.parametrize("f", [fs.log_bessel_ive, fs.log_bessel_i, fs.bessel_ratio])
def test_check_grads_first_order(f):
    check_grads(f, GRAD_POINTS, order=1, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


def test_check_grads_hyp0f1():
    v, x = GRAD_POINTS
    check_grads(fs.log_hyp0f1, (v + 1.0, x), order=1, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


@pytest.mark.slow
def test_check_grads_second_order():
    check_grads(fs.log_bessel_ive, GRAD_POINTS, order=2, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


def _loops(jaxpr) -> int:
    """Loops (``scan``, ``while``) in a jaxpr, nested ones included."""
    n = 0
    for eqn in jaxpr.eqns:
        n += eqn.primitive.name in ("scan", "while")
        for param in eqn.params.values():
            for sub in param if isinstance(param, (list, tuple)) else (param,):
                inner = getattr(sub, "jaxpr", sub)
                n += _loops(inner) if hasattr(inner, "eqns") else 0
    return n


@pytest.mark.parametrize("rule", ["log_ive_and_0f1", "log_ive_0f1_and_ratio"])
def test_shared_core_rules_differentiate_one_core(rule):
    """The derivative rules of the functions that serve several outputs from one Bessel core
    differentiate that one core (its two rolled loops), not one per output: each copy of the
    core in a derivative program is seconds of XLA compilation (docs/math/bessel.md)."""
    v = jnp.array([0.0, 3.0, 30.0, 3.0, 0.5])
    x = jnp.array([0.0, 2.0, 50.0, 80.0, 1e-3])
    use_0f1 = x < 10.0
    fn = getattr(bessel_module, rule)
    if rule == "log_ive_and_0f1":
        outputs = lambda v, x: fn(v, x, 0.25 * x * x, use_0f1)
    else:
        outputs = lambda v, x: fn(v, x, use_0f1)
    core = _loops(jax.make_jaxpr(bessel_module.bessel_core)(v, x, 0.25 * x * x).jaxpr)
    jvp = jax.make_jaxpr(lambda v, x: jax.jvp(outputs, (v, x), (v, x)))(v, x)
    assert core == 2 and _loops(jvp.jaxpr) == core
    # And the outputs an element uses carry no NaN into either mode, at x = 0 too.
    used = lambda v, x: jnp.sum(jnp.where(use_0f1, outputs(v, x)[1], outputs(v, x)[0]))
    for grad in (jax.grad(used, argnums=(0, 1)), jax.jacfwd(used, argnums=(0, 1))):
        dv, dx = grad(v, x)
        assert np.all(np.isfinite(dv)) and np.all(np.isfinite(dx)), (dv, dx)


def test_jit_matches_eager_and_vmap_jacfwd_work():
    v, x = grid("recurrence")
    eager = fs.log_bessel_i(v, x)
    jitted = jax.jit(fs.log_bessel_i)(v, x)
    np.testing.assert_array_equal(eager, jitted)
    mapped = jax.vmap(fs.log_bessel_i)(v, x)
    np.testing.assert_allclose(mapped, eager, rtol=1e-15)
    jac = jax.jacfwd(fs.log_bessel_i, argnums=1)(v, x)
    np.testing.assert_allclose(np.diag(jac), jax.vmap(jax.grad(fs.log_bessel_i, argnums=1))(v, x), rtol=1e-14)


def test_broadcasting():
    v = np.array([[0.0], [2.5], [40.0]])
    x = np.array([0.5, 9.0, 100.0, 1e4])
    out = fs.log_bessel_i(v, x)
    assert out.shape == (3, 4)
    np.testing.assert_array_equal(out[1], fs.log_bessel_i(np.full(4, 2.5), x))
    assert fs.log_hyp0f1(3.0, x).shape == (4,)
    assert fs.bessel_ratio(2.0, 3.0).shape == ()


def test_integer_inputs_promote_to_default_float():
    assert fs.log_bessel_i(1, 2).dtype == jnp.float64


def test_float32_inputs_stay_float32_with_float32_accuracy():
    v, x = np.concatenate([grid(r) for r in REGIMES], axis=1)
    v32, x32 = v.astype(np.float32), x.astype(np.float32)
    v64, x64 = v32.astype(np.float64), x32.astype(np.float64)  # the same points in float64
    eps32 = np.finfo(np.float32).eps
    got = fs.log_bessel_i(v32, x32)
    assert got.dtype == jnp.float32
    assert np.max(rel_err(got, fs.log_bessel_i(v64, x64))) < 16 * eps32
    ratio32 = fs.bessel_ratio(v32, x32)
    assert ratio32.dtype == jnp.float32
    np.testing.assert_allclose(ratio32, fs.bessel_ratio(v64, x64), rtol=16 * eps32)
    hyp32 = fs.log_hyp0f1(v32 + 1, x32)
    assert hyp32.dtype == jnp.float32
    assert np.max(rel_err(hyp32, fs.log_hyp0f1(v64 + 1, x64))) < 16 * eps32
    grads = jax.jit(jax.vmap(jax.grad(fs.log_bessel_i, argnums=(0, 1))))
    grad32, grad64 = grads(v32, x32), grads(v64, x64)
    for g32, g64 in zip(grad32, grad64):
        assert g32.dtype == jnp.float32
        assert np.max(rel_err(g32, g64)) < 1e3 * eps32


@pytest.mark.parametrize("f,args,name", [
    (fs.log_bessel_i, (-0.6, 1.0), "'v'"),
    (fs.log_bessel_ive, (1.0, -1e-3), "'x'"),
    (fs.bessel_ratio, (np.array([0.0, -2.0]), 1.0), "'v'"),
    (fs.log_hyp0f1, (0.25, 1.0), "'b'"),
    (fs.log_hyp0f1, (1.0, -3.0), "'x'"),
])
def test_bad_concrete_input_raises_value_error_naming_the_argument(f, args, name):
    with pytest.raises(ValueError, match=name):
        f(*args)


def test_nan_input_gives_nan():
    assert np.isnan(fs.log_bessel_i(np.nan, 1.0)) and np.isnan(fs.bessel_ratio(1.0, np.nan))


def test_bad_input_inside_jit_gives_nan():
    v = jnp.array([-0.6, 0.0, 1.0])
    x = jnp.array([1.0, -1.0, 2.0])
    out = jax.jit(fs.log_bessel_i)(v, x)
    assert np.isnan(out[0]) and np.isnan(out[1]) and np.isfinite(out[2])
    assert np.isnan(jax.jit(fs.log_hyp0f1)(0.25, 1.0))
    assert np.isnan(jax.jit(fs.bessel_ratio)(1.0, -1.0))


@pytest.mark.parametrize("v", [20.0, 33.3, 500.0, 5000.0])
def test_log_bessel_i_accurate_where_it_crosses_zero(v):
    # Near x = v z0 (z0 = 0.6627...) log I_v(x) crosses 0 while v·eta(x/v) is a difference of
    # two terms of size ~1.2 v: the target 2e-14 * max(1, |log I|) is absolute there.
    with mpmath.workdps(40):
        f = lambda x: mpmath.log(mpmath.besseli(v, x))
        root = float(mpmath.findroot(f, 0.66 * v))
        x = root * (1.0 + np.array([-0.04, -1e-3, -1e-7, 0.0, 1e-7, 1e-3, 0.04]))
        want = np.array([float(f(mpmath.mpf(xi))) for xi in x])
    assert np.max(rel_err(fs.log_bessel_i(v, x), want)) < 2e-14

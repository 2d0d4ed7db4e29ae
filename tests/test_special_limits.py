"""fisherrdp.special at x = +inf: the limits log I_v(∞) = +inf, log(I_v(∞) e^{−∞}) = −inf,
R_v(∞) = 1, log ₀F₁(; b; ∞) = +inf, and their derivatives there (the limits of the derivatives,
never NaN), next to large finite x where the large-argument expansions (DLMF 10.40.1,
10.41.1) give the approach to the limit."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import fisherrdp.special as fs

ORDERS = np.array([-0.5, 0.0, 2.5, 30.0, 1000.0])
INF = np.inf


@pytest.mark.parametrize(
    "fn, limit",
    [(fs.log_bessel_i, INF), (fs.log_bessel_ive, -INF), (fs.bessel_ratio, 1.0)],
)
def test_bessel_limits_at_infinity(fn, limit):
    values = np.asarray(fn(ORDERS, INF))
    np.testing.assert_array_equal(values, np.full(ORDERS.shape, limit))


def test_log_hyp0f1_limit_at_infinity():
    np.testing.assert_array_equal(np.asarray(fs.log_hyp0f1(ORDERS + 1.0, INF)), INF)


def test_approach_to_the_limits_at_large_finite_x():
    """log ive(v, x) = −½ log(2πx) − (4v² − 1)/(8x) + O(x⁻²) and
    R_v(x) = 1 − (2v + 1)/(2x) + O(x⁻²) (DLMF 10.40.1): at x = 1e12 the O(x⁻²) terms are
    below 1e-20, so the values are these expansions to rounding."""
    x = 1e12
    v = ORDERS
    log_ive = np.asarray(fs.log_bessel_ive(v, x))
    np.testing.assert_allclose(log_ive, -0.5 * np.log(2 * np.pi * x) - (4 * v**2 - 1) / (8 * x),
                               rtol=1e-15)
    ratio = np.asarray(fs.bessel_ratio(v, x))
    np.testing.assert_allclose(1.0 - ratio, (2 * v + 1) / (2 * x), rtol=1e-3, atol=3e-16)


def _log_i_and_ive(v, x):
    return jnp.stack([fs.log_bessel_i(v, x), fs.log_bessel_ive(v, x)])


def _all(v, x):
    return jnp.stack([fs.log_bessel_i(v, x), fs.log_bessel_ive(v, x), fs.bessel_ratio(v, x),
                      fs.log_hyp0f1(v + 1.0, x)])


V = jnp.asarray(ORDERS)
X = jnp.array([INF, INF, 3.0, INF, 40.0])
AT_INF = np.isinf(np.asarray(X))


def test_x_derivatives_of_log_bessel_at_infinity_are_the_limits():
    """∂ₓ log I_v → 1 (log I_v(x) = x − ½ log 2πx + …) and ∂ₓ log ive → 0, in one
    forward-mode program under jit and vmap, next to finite entries (no NaN leaks from the
    x = +inf lanes)."""
    dx = np.asarray(jax.jit(jax.vmap(jax.jacfwd(_log_i_and_ive, argnums=1)))(V, X)).T
    assert np.all(np.isfinite(dx))
    np.testing.assert_array_equal(dx[:, AT_INF], [[1.0] * 3, [0.0] * 3])
    # Finite lanes keep their derivatives: ∂ₓ log I_v = R_v + v/x, ∂ₓ log ive = that − 1.
    v, x = ORDERS[~AT_INF], np.asarray(X)[~AT_INF]
    expected = np.asarray(fs.bessel_ratio(v, x)) + v / x
    np.testing.assert_allclose(dx[0, ~AT_INF], expected, rtol=1e-14)
    np.testing.assert_allclose(dx[1, ~AT_INF], expected - 1.0, rtol=1e-14)


@pytest.mark.slow
def test_every_derivative_at_infinity_is_the_limit():
    """∂ₓ: of R_v → 0, of log ₀F₁ → 0 (∼ 1/√x). ∂_v of log I_v, log ive and R_v → 0
    (∂_v log I_v ≈ −v/x); ∂_b log ₀F₁ has no finite limit (∼ −½ log x) and is documented to
    come out 0. (Differentiating the regime formulas: larger programs.)"""
    dv, dx = (np.asarray(jax.jit(jax.vmap(jax.jacfwd(_all, argnums=k)))(V, X)).T for k in (0, 1))
    assert np.all(np.isfinite(dv)) and np.all(np.isfinite(dx))
    np.testing.assert_array_equal(dv[:, AT_INF], 0.0)
    np.testing.assert_array_equal(dx[:, AT_INF], [[1.0] * 3, [0.0] * 3, [0.0] * 3, [0.0] * 3])

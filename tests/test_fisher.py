"""fisherrdp.fisher.ncx2_amplitude_fisher against mpmath (tests/fixtures/fisher_ncx2.json),
the score identity, the information identity E[s²] = −E[∂²_θ log p], limits and bounds."""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers.stored import stored_jit

from fisherrdp import bounds
from fisherrdp.fisher import ncx2_amplitude_fisher
from fisherrdp.special import bessel_ratio
from fisherrdp.stats import ncx2

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "fisher_ncx2.json")
SHARED_REFS = os.path.join(HERE, "fixtures", "refs", "fisher_ncx2.json")

with open(FIXTURE) as fh:
    ROWS = json.load(fh)
# Spot values of ``docs/math/ncx2.md`` (mpmath, 10 digits: rounding is 5e-11 absolute).
SPOT = [(1.0, 0.3, 0.1535897204), (10.0, 1.5, 0.3121520503), (200.0, 20.0, 0.8005124495)]


def _references():
    rows = [(r["d"], r["theta"], r["fisher"]) for r in ROWS]
    with open(SHARED_REFS) as fh:
        rows += [(r["d"], r["theta"], r["fisher"]) for r in json.load(fh)]
    return tuple(np.array(c, dtype=np.float64) for c in zip(*rows))


@pytest.fixture(scope="module")
def fixture_results():
    d, theta, want = _references()
    d_all = np.concatenate([d, [s[0] for s in SPOT]])
    theta_all = np.concatenate([theta, [s[1] for s in SPOT]])
    value, error = ncx2_amplitude_fisher(d_all, theta_all, return_error=True)
    n = len(d)
    return (d, theta, want, np.asarray(value[:n]), np.asarray(error[:n]),
            np.asarray(value[n:]))


def test_fixture_covers_the_target_range():
    d, theta, _ = _references()
    assert len(d) >= 40
    assert d.min() == 1.0 and d.max() == 1e4
    assert theta.min() == 1e-4 and theta.max() == 1e3


def test_against_mpmath(fixture_results, accuracy):
    d, theta, want, value, _, _ = fixture_results
    accuracy.check("fisher/ncx2_amplitude", np.abs(value / want - 1.0),
                   where=[f"d={a!r}, theta={b!r}" for a, b in zip(d, theta)])


def test_spot_values(fixture_results):
    spot = fixture_results[5]
    for (d, theta, want), got in zip(SPOT, spot):
        assert abs(got - want) <= 6e-11, (d, theta, got, want)


def test_error_estimate_is_honest_and_tight(fixture_results):
    d, theta, want, value, error, _ = fixture_results
    actual = np.abs(value - want)
    assert np.all(actual <= error), np.c_[d, theta, actual, error][actual > error]
    # Not absurdly loose: it certifies the 1e-10 target everywhere, and is within 1e3 of the
    # actual error or of float64 resolution of the value.
    assert np.all(error <= 1e-11 * value)
    assert np.all(error <= 1e3 * np.maximum(actual, 1e-15 * value))


def test_score_is_the_theta_derivative_of_logpdf():
    d = jnp.array([1.0, 2.5, 6.0, 20.0, 500.0, 1e4])
    theta = jnp.array([0.3, 1e-3, 1.0, 4.0, 3.0, 50.0])
    y = jnp.array([0.7, 1.9, 9.0, 30.0, 480.0, 1.2e4])

    def both(d, theta, y):
        grad = jax.vmap(jax.grad(lambda t, d, y: ncx2.logpdf(y, d, t * t)))(theta, d, y)
        z = theta * jnp.sqrt(y)
        score = theta * (y * bessel_ratio(d / 2 - 1, z) / z - 1.0)
        return grad, score

    grad, score = stored_jit(both, d, theta, y, name="score_and_logpdf_grad")(d, theta, y)
    np.testing.assert_allclose(score, grad, rtol=1e-9, atol=0)
    # and the ``docs/math/index.md`` form √y R(θ√y) − θ
    np.testing.assert_allclose(
        jnp.sqrt(y) * bessel_ratio(d / 2 - 1, theta * jnp.sqrt(y)) - theta, grad,
        rtol=1e-9, atol=1e-12)


def test_information_identity_minus_expected_hessian():
    """E[s²] = −E[∂²_θ log p] = −E[∂_θ s], the right side by independent 400-node quadrature in r.

    ∂²_θ log p is taken as the forward-mode θ-derivative of the score, which equals ∂_θ logpdf
    (test above); differentiating the score rather than a Hessian of ``ncx2.logpdf`` keeps the
    compile short.
    """
    cases = [(6.0, 1.0), (20.0, 4.0), (500.0, 3.0), (1.0, 0.3)]
    x, w = np.polynomial.legendre.leggauss(400)

    def score(theta, d, y):
        z = theta * jnp.sqrt(y)
        return theta * (y * bessel_ratio(d / 2 - 1, z) / z - 1.0)

    @jax.jit
    def minus_expected_hessian(d, theta):
        m = jnp.sqrt(theta**2 + d)
        lo, hi = jnp.maximum(m - 15.0, 0.0), m + 15.0
        r = lo + (hi - lo) * (x + 1) / 2
        y = r * r
        ds = jax.jvp(lambda t: score(t, d, y), (theta,), (jnp.ones_like(theta),))[1]
        dens = 2 * r * jnp.exp(ncx2.logpdf(y, d, theta**2))
        return -jnp.sum(w * (hi - lo) / 2 * dens * ds)

    for d, theta in cases:
        want = float(minus_expected_hessian(d, theta))
        got = float(ncx2_amplitude_fisher(d, theta))
        assert abs(got / want - 1) <= 1e-9, (d, theta, got, want)


def test_bounds_limits_and_broadcasting():
    d = np.array([[4.0], [10.0], [100.0], [1e4]])
    theta = np.array([1e-3, 0.5, 2.0, 10.0, 100.0, 1e3])
    value = np.asarray(ncx2_amplitude_fisher(d, theta))
    assert value.shape == (4, 6)
    lower = np.asarray(bounds.fisher_lower_prop51(d, theta))
    upper = np.asarray(bounds.fisher_upper_prop51(d, theta))
    assert np.all(lower * (1 - 1e-12) <= value) and np.all(value <= upper * (1 + 1e-12))
    # small θ/d: the Prop 5.1 lower bound is tight, I = 2θ²/(2θ²+d) (1 + O(θ²/d))
    np.testing.assert_allclose(value[:, 0], lower[:, 0], rtol=1e-6)
    # θ → ∞: I → 1 (θ = 1e3: 1 − I ≈ d/(2θ²))
    assert np.all(np.abs(1 - value[:, -1]) <= d[:, 0] / 1e6)
    assert abs(value[0, -1] - 1) < 1e-5


def test_gradient_in_theta_under_jit():
    theta = jnp.array([1e-3, 0.3, 1.5, 4.0, 30.0])
    d = jnp.array([1.0, 3.0, 10.0, 60.0, 2000.0])
    f = lambda t: ncx2_amplitude_fisher(d, t)
    grad = stored_jit(lambda t: jax.jvp(f, (t,), (jnp.ones_like(t),))[1], theta,
                      name="fisher_theta_jvp")(theta)
    h = 1e-5 * theta
    fd = (f(theta + h) - f(theta - h)) / (2 * h)
    np.testing.assert_allclose(grad, fd, rtol=1e-6)
    # small θ: dI/dθ ≈ 4θ/d
    assert abs(float(grad[0]) / (4e-3 / 1.0) - 1) < 1e-5


def test_theta_zero():
    assert float(ncx2_amplitude_fisher(5.0, 0.0)) == 0.0


@pytest.mark.parametrize("d, theta, name", [(0.5, 1.0, "d"), (3.0, -0.1, "theta"),
                                            ([2.0, 0.9], 1.0, "d")])
def test_bad_input(d, theta, name):
    with pytest.raises(ValueError, match=name):
        ncx2_amplitude_fisher(d, theta)

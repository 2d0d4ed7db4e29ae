"""fisherrdp.variational.estimate_fisher: against exact Fisher information (the k = 1 amplitude
Fisher ``ncx2_amplitude_fisher`` on a grid of (d, θ) trained in one vmapped run, and the
Gaussian scale family I(θ) = 2/θ²), result fields and shapes, determinism, and clear errors for
samplers that are not differentiable in θ, have the wrong shape or give non-finite draws.

Compile time dominates (one compilation per sampler and knobs, ~10-20 s), so the runs are
short (300-600 steps): the allowance below the truth is the optimisation gap at that budget,
measured, plus 4 standard errors; above the truth only the standard errors (a trained test
function's ratio is below the supremum in expectation)."""

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from fisherrdp.fisher import ncx2_amplitude_fisher
from fisherrdp.variational import FisherEstimate, estimate_fisher

SMALL = {"steps": 300, "n_eval": 50_000, "members": 2, "hidden": (32,)}


def ncx2_norm_squared(key, theta, n, d):
    """‖θe₁ + N‖², N ~ N(0, I_d) (χ²_d(θ²)), reparameterised in θ; d traced."""
    from fisherrdp._src.core.random import chi2

    k1, k2 = jax.random.split(key)
    return (theta + jax.random.normal(k1, (n,))) ** 2 + chi2(k2, d - 1.0, (n,))


def ncx2_amplitude(key, theta, n, d):
    """Feature ‖V‖ (its θ-derivative (θ + N₁)/‖V‖ is bounded by 1)."""
    return jnp.sqrt(ncx2_norm_squared(key, theta, n, d))[:, None]


def ncx2_log_feature(key, theta, n, d):
    """Feature log‖V‖²: for d = 1 its θ-derivative 2/(θ + N₁) has a Cauchy tail."""
    return jnp.log(ncx2_norm_squared(key, theta, n, d))[:, None]


def scale_family(key, theta, n):
    """X = θ ε, ε ~ N(0, 1): I(θ) = 2/θ²."""
    return theta * jax.random.normal(key, (n, 1))


D = np.array([1.0, 2.0, 5.0, 20.0, 100.0, 2.0, 20.0])
THETA = np.array([1.0, 0.3, 3.0, 1.0, 10.0, 10.0, 0.1])


@pytest.fixture(scope="module")
def ncx2_run():
    return estimate_fisher(
        ncx2_amplitude, THETA, args=(D,), key=jax.random.key(0), **SMALL | {"steps": 600}
    )


def test_ncx2_amplitude_fisher_grid(ncx2_run):
    """Within 4 standard errors above, and 3% plus 4 standard errors below, of the exact value
    at every (d, θ); feature ‖V‖."""
    r = ncx2_run
    exact = np.asarray(ncx2_amplitude_fisher(D, THETA))
    assert r.estimate.shape == THETA.shape and r.members.shape == (THETA.size, 2)
    # Small enough to mean something: 5% relative, or 1e-4 absolute for the tiny I(20, 0.1).
    assert np.all(r.stderr > 0) and np.all(r.stderr < 0.05 * exact + 1e-4), r.stderr / exact
    assert np.all(r.estimate <= exact + 4.0 * r.stderr), (r.estimate, exact)
    assert np.all(r.estimate >= 0.97 * exact - 4.0 * r.stderr), (r.estimate, exact)
    assert np.all(r.ci_low < r.estimate) and np.all(r.estimate < r.ci_high)
    assert np.all(r.reliable) and np.all(r.khat < 0.5), (r.khat, r.reason)
    assert r.curve.shape == (6, THETA.size) and list(r.curve_steps[:2]) == [100, 200]


def test_heavy_tailed_derivative_is_flagged():
    """χ²_1(θ²) with the feature log‖V‖²: the influence function has an infinite variance
    (Pareto k̂ ≥ 0.5), so the estimate is flagged whatever its value."""
    r = estimate_fisher(
        ncx2_log_feature, 1.0, args=(1.0,), key=jax.random.key(3), **SMALL | {"steps": 100}
    )
    assert r.reliable is False and r.khat >= 0.5 and "Pareto" in r.reason, r


def test_scale_family_and_scalar_fields():
    r = estimate_fisher(scale_family, 2.0, key=jax.random.key(1), **SMALL)
    assert isinstance(r, FisherEstimate)
    assert isinstance(r.estimate, float) and isinstance(r.reliable, bool) and r.theta == 2.0
    assert abs(r.estimate - 0.5) <= 4.0 * r.stderr + 0.03 * 0.5, r
    assert r.settings["steps"] == 300 and r.settings["features"] == 1
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.estimate = 0.0  # type: ignore[misc]
    again = estimate_fisher(scale_family, 2.0, key=jax.random.key(1), **SMALL)
    assert again.estimate == r.estimate and np.array_equal(again.members, r.members)


def _numpy_sampler(key, theta, n):
    return np.asarray(theta) + np.zeros((n, 1))


@pytest.mark.parametrize(
    "sample, theta, kwargs, match",
    [
        (
            lambda k, t, n: jax.lax.stop_gradient(t) + jax.random.normal(k, (n,)),
            0.5,
            {},
            "not differentiable in theta",
        ),
        (
            lambda k, t, n: jnp.round(t) + jax.random.normal(k, (n,)),
            0.5,
            {},
            "not differentiable in theta",
        ),
        (_numpy_sampler, 0.5, {}, "differentiating it in theta failed"),
        (lambda k, t, n: t + jax.random.normal(k, (n + 1,)), 0.5, {}, r"shape \(n, \.\.\.\)"),
        (lambda k, t, n: jnp.log(t - 1.0 + jax.random.normal(k, (n,))), 0.5, {}, "non-finite"),
        (
            lambda k, t, n: jnp.sqrt(t) + jax.random.normal(k, (n,)),
            0.0,
            {},
            "non-finite derivatives",
        ),
        (lambda k, t, n: (t * jnp.ones((n,))).astype(jnp.int32), 0.5, {}, "floating-point"),
        ("not callable", 0.5, {}, "must be a callable"),
        (scale_family, np.inf, {}, "'theta' must be finite"),
        (scale_family, [1.0, 2.0], {"args": (np.ones(3),)}, "'args'"),
        (scale_family, 1.0, {"members": 0}, "'members'"),
        (scale_family, 1.0, {"hidden": (0,)}, "'hidden'"),
        (scale_family, 1.0, {"activation": "swish"}, "'activation'"),
    ],
)
def test_bad_input(sample, theta, kwargs, match):
    error = TypeError if sample == "not callable" else ValueError
    with pytest.raises(error, match=match):
        estimate_fisher(sample, theta, key=jax.random.key(0), **kwargs)

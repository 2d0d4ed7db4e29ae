"""The synthetic-release accountant: SyntheticReleaseMechanism, the worst-pair search, calibrate_sigma.

Reference values: ``tests/fixtures/accounting_k1.json`` (mpmath, made by
``tests/fixtures/make_accounting_fixtures.py``): the Rényi divergence and the privacy profile of
the corner pair of three configurations, and the Rényi divergence at the middle of the boundary.
"""

import dataclasses
import json
import math
import os
import warnings

import jax.numpy as jnp
import numpy as np
import pytest

from fisherrdp import bounds
from fisherrdp._src.accounting.synthetic import _fisher_path_bound
from fisherrdp._src.accounting.worst_case import sup_over_pairs
from fisherrdp.accounting import (
    SyntheticReleaseMechanism,
    calibrate_sigma,
    gaussian_privacy_profile,
    rdp_to_dp,
)

with open(os.path.join(os.path.dirname(__file__), "fixtures", "accounting_k1.json")) as fh:
    CONFIGS = json.load(fh)["configs"]

IDS = [f"d={c['d']}" for c in CONFIGS]


def _mechanism(config):
    return SyntheticReleaseMechanism(
        config["d"], 1, config["C"], config["sensitivity"], sigma=config["sigma"]
    )


@pytest.fixture(scope="module")
def rdp_results():
    """One exact RDP search per configuration, at the fixture's orders."""
    return [_mechanism(c).rdp([r["alpha"] for r in c["rdp"]], details=True) for c in CONFIGS]


@pytest.mark.parametrize("i", range(len(CONFIGS)), ids=IDS)
def test_rdp_matches_mpmath_at_the_worst_pair(i, rdp_results):
    config, res = CONFIGS[i], rdp_results[i]
    expected = np.array([max(r["forward"], r["reverse"]) for r in config["rdp"]])
    np.testing.assert_allclose(res.values, expected, rtol=1e-9, atol=0)
    # Measured worst relative error 6.4e-13 (d = 1000); README example 4.4e-14.
    assert res.method == "exact"
    assert np.all(res.at_corner)
    # The maximising pair, in raw units: (C, C - sensitivity), larger norm first.
    np.testing.assert_allclose(res.a, config["C"])
    np.testing.assert_allclose(res.b, config["C"] - config["sensitivity"])
    # Evidence: interior pairs stay below; the independent mpmath mid-boundary values too.
    assert np.all(res.interior_max <= res.values)
    for mid in config["rdp_mid"]:
        j = [r["alpha"] for r in config["rdp"]].index(mid["alpha"])
        assert max(mid["forward"], mid["reverse"]) < expected[j]


@pytest.mark.parametrize("i", range(len(CONFIGS)), ids=IDS)
def test_privacy_profile_matches_mpmath(i):
    config = CONFIGS[i]
    mech = _mechanism(config)
    eps = np.array([p["eps"] for p in config["profile"]])
    expected = np.array([p["delta"] for p in config["profile"]])
    res = mech.privacy_profile(eps, details=True)
    np.testing.assert_allclose(res.values, expected, rtol=1e-9, atol=1e-14)
    assert np.all(res.at_corner)


def test_scalar_and_array_outputs():
    mech = _mechanism(CONFIGS[0])
    assert isinstance(mech.rdp(2.0), float)
    assert mech.rdp([2.0, 4.0]).shape == (2,)
    np.testing.assert_allclose(np.asarray(mech.rdp([2.0, 4.0], details=True)), mech.rdp([2.0, 4.0]))


@pytest.fixture(scope="module")
def readme_mechanism():
    return SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1, sigma=1.0)


def test_epsilon_inverts_the_profile(readme_mechanism):
    mech = readme_mechanism
    deltas = np.array([1e-3, 1e-5, 1e-9])
    res = mech.epsilon(deltas, details=True)
    assert np.all(res.at_corner)
    np.testing.assert_allclose(mech.privacy_profile(res.values), deltas, rtol=1e-8)
    # Never worse than the model release, and the RDP conversion is never better than exact.
    model = np.array([mech.model_release_epsilon(x) for x in deltas])
    assert np.all(res.values < model)
    alphas = np.geomspace(1.05, 512.0, 16)
    rdp = mech.rdp(alphas)
    for delta, exact in zip(deltas, res.values):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            converted, _ = rdp_to_dp(alphas, rdp, delta)
        assert converted >= exact


def test_synthetic_release_is_post_processing(readme_mechanism):
    mech = readme_mechanism
    alphas = np.array([1.1, 2.0, 8.0, 64.0])
    assert np.all(mech.rdp(alphas) <= mech.model_release_rdp(alphas))
    eps = np.array([0.0, 0.01, 0.1])
    assert np.all(mech.privacy_profile(eps) <= mech.model_release_privacy_profile(eps))


def test_worked_example_numbers(readme_mechanism):
    """The README's worked example, with the values quoted there."""
    mech = readme_mechanism
    assert mech.rdp(2.0) == pytest.approx(1.7761745129959e-4, rel=1e-9)
    assert mech.epsilon(1e-5) == pytest.approx(0.0429258717, rel=1e-8)
    assert mech.model_release_epsilon(1e-5) == pytest.approx(0.3406693647, rel=1e-8)


# ------------------------------------------------------------------------------------------------
# k > 1: rigorous bounds


@pytest.mark.parametrize("k,d", [(2, 100), (3, 30), (2, 5)])
def test_k_above_one_is_the_best_available_bound(k, d):
    mech = SyntheticReleaseMechanism(d, k, 1.0, 0.3, sigma=0.5)
    alphas = np.array([1.5, 2.0, 8.0, 64.0])
    res = mech.rdp(alphas, details=True)
    post = mech.model_release_rdp(alphas)
    thm54 = np.asarray(bounds.theorem54_bound(alphas, d, k, 2.0, 0.6))
    assert np.all(res.values <= post * (1 + 1e-12))
    assert np.all(res.values <= thm54 * (1 + 1e-12))
    assert res.method in (
        "fisher_path_bound",
        "postprocessing",
        "min(fisher_path_bound, postprocessing)",
    )
    assert np.all(np.isnan(res.a))
    # Profile and ε through the RDP conversion, consistent with each other.
    eps = mech.epsilon(1e-5)
    assert mech.privacy_profile(eps) == pytest.approx(1e-5, rel=1e-2)
    assert eps <= mech.model_release_epsilon(1e-5) * 1.2  # conversion slack vs exact Gaussian


def test_fisher_path_bound_is_valid_and_tighter_than_theorem52():
    """For k = 1 the k > 1 bound must lie between the exact value and Theorem 5.2."""
    mech = SyntheticReleaseMechanism(50, 1, 1.0, 0.5)
    alphas = np.array([1.5, 2.0, 4.0, 16.0])
    path = _fisher_path_bound(alphas, 50, 1.0, 0.5)
    assert np.all(path >= mech.rdp(alphas))
    assert np.all(path <= np.asarray(bounds.theorem52_bound(alphas, 50, 1.0, 0.5)) * (1 + 1e-12))


# ------------------------------------------------------------------------------------------------
# The search itself


def test_search_finds_an_interior_maximum():
    """A pair function peaking at a + b = 1.3 on the boundary: the zoom locates it."""
    res = sup_over_pairs(
        lambda x, a, b: x - (a + b - 1.3) ** 2 + 0.01 * (a > b),
        np.array([1.0, 2.0]),
        2.0,
        0.2,
    )
    np.testing.assert_allclose(res.values, [1.01, 2.01], rtol=1e-14)
    np.testing.assert_allclose(res.a, 0.75, atol=1e-7)
    np.testing.assert_allclose(res.b, 0.55, atol=1e-7)
    assert not res.at_corner.any()


def test_search_warns_when_the_interior_wins():
    with pytest.warns(UserWarning, match="interior pair exceeds"):
        sup_over_pairs(lambda x, a, b: x - (jnp.abs(a - b) - 0.1) ** 2, np.array([1.0]), 1.0, 0.5)


def test_search_when_sensitivity_exceeds_the_norm_bound():
    """Δ ≥ C: the separation is limited by C, the pair is (C, 0)."""
    res = sup_over_pairs(lambda x, a, b: x * (a - b) ** 2, np.array([1.0]), 1.0, 1.5)
    assert res.values[0] == pytest.approx(1.0)
    assert (res.a[0], res.b[0]) == (1.0, 0.0)


# ------------------------------------------------------------------------------------------------
# Calibration


def test_calibrate_sigma():
    cal = calibrate_sigma(1.0, 1e-5, d=100, k=1, C=1.0, sensitivity=0.1)
    assert cal.sigma < cal.sigma_model
    assert cal.ratio == pytest.approx(cal.sigma / cal.sigma_model)
    assert cal.mechanism.sigma == cal.sigma
    assert cal.mechanism.privacy_profile(1.0) == pytest.approx(1e-5, rel=1e-9)
    assert gaussian_privacy_profile(1.0, 0.1, cal.sigma_model) == pytest.approx(1e-5, rel=1e-9)


def test_calibrate_sigma_k_above_one():
    cal = calibrate_sigma(1.0, 1e-5, d=100, k=2, C=1.0, sensitivity=0.1)
    assert cal.sigma <= cal.sigma_model * (1 + 1e-12)
    assert cal.mechanism.privacy_profile(1.0) <= 1e-5 * (1 + 1e-9)


# ------------------------------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"C": 0.0}, "C"),
        ({"C": -1.0}, "C"),
        ({"sensitivity": 2.5}, "sensitivity"),
        ({"sensitivity": 0.0}, "sensitivity"),
        ({"sigma": 0.0}, "sigma"),
        ({"sigma_z": -1.0}, "sigma_z"),
        ({"k": 1.5}, "k"),
        ({"k": 200}, "d"),
        ({"n_syn": 0.5}, "n_syn"),
        ({"d": math.nan}, "d"),
    ],
)
def test_bad_mechanism_arguments(kwargs, name):
    args = {"d": 100, "k": 1, "C": 1.0, "sensitivity": 0.1} | kwargs
    with pytest.raises(ValueError, match=name):
        SyntheticReleaseMechanism(**args)


def test_bad_call_arguments(readme_mechanism):
    with pytest.raises(ValueError, match="delta"):
        readme_mechanism.epsilon(1.0)
    with pytest.raises(ValueError, match="delta"):
        readme_mechanism.epsilon(0.0)
    with pytest.raises(ValueError, match="alphas"):
        readme_mechanism.rdp(1.0)
    with pytest.raises(ValueError, match="eps"):
        readme_mechanism.privacy_profile(-0.1)
    with pytest.raises(ValueError, match="target_delta"):
        calibrate_sigma(1.0, 2.0, 100, 1, 1.0, 0.1)


@pytest.mark.slow
def test_finite_release_is_below_the_infinite_release():
    """n_syn < inf: the exact finite-release law, never above the Gram-matrix release."""
    from fisherrdp.divergences import renyi_release_k1

    finite = SyntheticReleaseMechanism(d=10, k=1, C=2.0, sensitivity=0.5, sigma=0.5, n_syn=10)
    res = finite.rdp([2.0, 8.0], details=True)
    assert np.all(res.at_corner)
    corner = np.asarray(renyi_release_k1(np.array([2.0, 8.0]), 10, 10, 4.0, 3.0))
    reverse = np.asarray(renyi_release_k1(np.array([2.0, 8.0]), 10, 10, 3.0, 4.0))
    np.testing.assert_allclose(res.values, np.maximum(corner, reverse), rtol=1e-12)
    infinite = dataclasses.replace(finite, n_syn=math.inf)
    assert np.all(res.values < infinite.rdp([2.0, 8.0]))
    eps = finite.epsilon(1e-5)
    assert eps < infinite.epsilon(1e-5)
    assert finite.privacy_profile(eps) == pytest.approx(1e-5, rel=1e-8)

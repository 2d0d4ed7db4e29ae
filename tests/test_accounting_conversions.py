"""RDP → (ε, δ) conversions and the exact Gaussian privacy profile (fisherrdp.accounting)."""

import warnings

import mpmath
import numpy as np
import pytest

from fisherrdp._src.accounting.conversions import _log_profile
from fisherrdp.accounting import (
    gaussian_epsilon,
    gaussian_privacy_profile,
    gaussian_rdp,
    rdp_to_dp,
)

ALPHAS = np.concatenate([1.0 + np.geomspace(1e-3, 1.0, 60)[:-1], np.geomspace(2.0, 1e5, 400)])
RATIOS = [0.05, 0.2, 0.5, 1.0, 2.0, 5.0]  # Δ/σ
DELTAS = [1e-1, 1e-3, 1e-5, 1e-8, 1e-12]


def _convert(alphas, rdp, delta, method):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return rdp_to_dp(alphas, rdp, delta, method=method)


@pytest.mark.parametrize("ratio", RATIOS)
@pytest.mark.parametrize("delta", DELTAS)
def test_conversions_are_valid_for_gaussian(ratio, delta):
    """Both conversions upper-bound the exact ε of the Gaussian mechanism; balle2020 ≤ mironov."""
    exact = gaussian_epsilon(delta, ratio)
    rdp = gaussian_rdp(ALPHAS, ratio)
    eps_b, _ = _convert(ALPHAS, rdp, delta, "balle2020")
    eps_m, _ = _convert(ALPHAS, rdp, delta, "mironov")
    assert eps_b >= exact * (1 - 1e-12)
    assert eps_m >= exact * (1 - 1e-12)
    assert eps_b <= eps_m
    # balle2020 is strictly better pointwise in α
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        for a in (1.5, 4.0, 64.0):
            b = rdp_to_dp([a], [gaussian_rdp(a, ratio)], delta)[0]
            m = rdp_to_dp([a], [gaussian_rdp(a, ratio)], delta, method="mironov")[0]
            assert b <= m


def test_conversion_formulas():
    alpha, r, delta = 5.0, 0.3, 1e-6
    eps_m, a_m = rdp_to_dp([alpha], [r], delta, method="mironov")
    assert eps_m == pytest.approx(r + np.log(1 / delta) / (alpha - 1), rel=1e-14)
    assert a_m == alpha
    eps_b, _ = rdp_to_dp([alpha], [r], delta)
    expected = r + np.log(1 - 1 / alpha) - (np.log(delta) + np.log(alpha)) / (alpha - 1)
    assert eps_b == pytest.approx(expected, rel=1e-14)
    # clipping at zero: a large δ and a tiny RDP value
    eps, _ = rdp_to_dp([2.0], [0.0], 0.9)
    assert eps == 0.0


def test_optimum_inside_grid_no_warning():
    alphas = np.linspace(1.5, 200.0, 400)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _, alpha = rdp_to_dp(alphas, gaussian_rdp(alphas, 1.0, sigma=2.0), 1e-5)
    assert alphas[0] < alpha < alphas[-1]


def test_edge_warning():
    alphas = np.linspace(1.5, 3.0, 10)
    rdp = gaussian_rdp(alphas, 1.0, sigma=5.0)  # optimum near α ≈ 40: beyond the grid
    with pytest.warns(UserWarning, match="largest"):
        _, alpha = rdp_to_dp(alphas, rdp, 1e-6)
    assert alpha == 3.0
    alphas = np.linspace(20.0, 40.0, 10)
    rdp = gaussian_rdp(alphas, 1.0, sigma=0.5)  # optimum at small α
    with pytest.warns(UserWarning, match="smallest"):
        _, alpha = rdp_to_dp(alphas, rdp, 1e-3, method="mironov")
    assert alpha == 20.0


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"alphas": [1.0, 2.0], "rdp": [0.1, 0.2], "delta": 1e-5}, "alphas"),
        ({"alphas": [0.5], "rdp": [0.1], "delta": 1e-5}, "alphas"),
        ({"alphas": [2.0], "rdp": [-0.1], "delta": 1e-5}, "rdp"),
        ({"alphas": [2.0, 3.0], "rdp": [0.1], "delta": 1e-5}, "shape"),
        ({"alphas": [2.0], "rdp": [0.1], "delta": 0.0}, "delta"),
        ({"alphas": [2.0], "rdp": [0.1], "delta": 1.0}, "delta"),
        ({"alphas": [2.0], "rdp": [0.1], "delta": 1e-5, "method": "rdp"}, "method"),
    ],
)
def test_rdp_to_dp_bad_input(kwargs, match):
    with pytest.raises(ValueError, match=match):
        rdp_to_dp(**kwargs)


def _profile_mp(eps, a):
    mpmath.mp.dps = 50
    eps, a = mpmath.mpf(eps), mpmath.mpf(a)
    phi = mpmath.ncdf
    return phi(a / 2 - eps / a) - mpmath.exp(eps) * phi(-a / 2 - eps / a)


@pytest.mark.parametrize(
    "eps, a",
    [
        (0.0, 1.0),
        (0.1, 0.5),
        (1.0, 1.0),
        (0.5, 3.0),
        (3.0, 2.0),
        (10.0, 1.0),
        (20.0, 0.7),
        (50.0, 4.0),
        (2.0, 10.0),
        (0.01, 0.2),
    ],
)
def test_profile_against_mpmath(eps, a):
    got = gaussian_privacy_profile(eps, a)
    want = float(_profile_mp(eps, a))
    assert got == pytest.approx(want, rel=1e-12)
    # Δ and σ enter through Δ/σ only
    assert gaussian_privacy_profile(eps, 2.0 * a, sigma=2.0) == pytest.approx(got, rel=1e-14)


@pytest.mark.parametrize("a", [0.1, 1.0, 4.0])
def test_profile_monotone_decreasing(a):
    eps = np.linspace(0.0, 40.0, 2001)
    delta = gaussian_privacy_profile(eps, a)
    assert np.all(np.diff(delta) <= 0.0)
    positive = delta[1:] > 0.0
    assert np.all(np.diff(delta)[positive] < 0.0)
    # strictly decreasing in log space far into the tail (δ down to ~1e-10000)
    log_delta = _log_profile(np.linspace(0.0, 400.0, 4001), np.array(a))
    assert np.all(np.isfinite(log_delta))
    assert np.all(np.diff(log_delta) < 0.0)
    assert delta[0] <= 1.0
    assert gaussian_privacy_profile(np.inf, a) == 0.0


@pytest.mark.parametrize("a", [0.05, 0.3, 1.0, 3.0])
@pytest.mark.parametrize("delta", [1e-2, 1e-6, 1e-10, 1e-30])
def test_epsilon_round_trip(a, delta):
    eps = gaussian_epsilon(delta, a)
    if eps == 0.0:
        assert gaussian_privacy_profile(0.0, a) <= delta
    else:
        assert gaussian_privacy_profile(eps, a) == pytest.approx(delta, rel=1e-11)
        assert gaussian_epsilon(gaussian_privacy_profile(eps, a), a) == pytest.approx(
            eps, rel=1e-12
        )


def test_epsilon_zero_and_vectorised():
    assert gaussian_epsilon(0.5, 0.1) == 0.0  # δ(0) = erf(0.1/(2√2)) ≈ 0.04 < 0.5
    eps = gaussian_epsilon(np.array([1e-3, 1e-6]), 1.0)
    assert eps.shape == (2,) and eps[0] < eps[1]


def test_gaussian_bad_input():
    with pytest.raises(ValueError, match="eps"):
        gaussian_privacy_profile(-1.0, 1.0)
    with pytest.raises(ValueError, match="sensitivity"):
        gaussian_privacy_profile(1.0, 0.0)
    with pytest.raises(ValueError, match="sigma"):
        gaussian_epsilon(1e-5, 1.0, sigma=-1.0)
    with pytest.raises(ValueError, match="delta"):
        gaussian_epsilon(1.5, 1.0)
    with pytest.raises(ValueError, match="alphas"):
        gaussian_rdp(1.0, 1.0)


@pytest.mark.parametrize("eps, a", [(200.0, 1.0), (1000.0, 3.0), (60.0, 0.5), (5.0, 20.0)])
def test_log_profile_far_tail_against_mpmath(eps, a):
    """Where δ underflows, its logarithm is still accurate."""
    want = float(mpmath.log(_profile_mp(eps, a)))
    got = float(_log_profile(np.array(eps), np.array(a)))
    assert got == pytest.approx(want, rel=1e-12)

"""Tail and sample-size diagnostics of held-out exponential moments (NumPy only).

Tail shapes are checked on weights whose tail index is known exactly: generalized Pareto and
Pareto draws (exceedances over any threshold are exactly generalized Pareto), Gaussian likelihood
ratios ``exp(c X²)``, ``X ~ N(0, s²)`` (tail index ``2 c s²`` with a ``1/sqrt(log t)`` factor)
and lognormal weights (all moments finite). Each case averages ``R`` replicates of
``n = 200 000`` draws with fixed seeds; one replicate's k̂ has a standard deviation of about
``(1 + k)/sqrt(M)`` = 0.03–0.05 at ``M = 1342``, so single-seed checks at ±0.05 would be
fragile.
"""

import doctest
import math
import warnings

import numpy as np
import pytest
from scipy import special, stats

from fisherrdp._src.variational import diagnostics as dg
from fisherrdp._src.variational.diagnostics import (
    ESS_FLOOR,
    KHAT_RELIABLE,
    KHAT_USABLE,
    MIN_EXCEEDANCES,
    effective_sample_size,
    moment_reliability,
    pareto_khat,
    tail_size,
)

N = 200_000
M = tail_size(N)
R = 8  # replicates per tail case


def _top(log_w, n=N):
    """The tail_size(n) + 1 largest values along the last axis, unordered (what a top-k gives)."""
    k = tail_size(n) + 1
    return np.partition(log_w, -k, axis=-1)[..., -k:]


def _log_gpd(rng, k, shape):
    """Log of generalized Pareto draws, shape ``k``, scale 1, by inversion."""
    return np.log(np.expm1(-k * np.log(rng.random(shape))) / k)


def _ess(log_w):
    return effective_sample_size(special.logsumexp(log_w), special.logsumexp(2.0 * log_w))


# ----------------------------------------------------------------------------------------
# tail_size


@pytest.mark.parametrize(
    "n, m",
    [
        (1, 1),
        (5, 1),
        (6, 2),
        (15, 3),
        (20, 4),
        (21, 5),
        (25, 5),
        (225, 45),
        (226, 46),
        (10_000, 300),
        (200_000, 1342),
    ],
)
def test_tail_size_values(n, m):
    assert tail_size(n) == m


def test_tail_size_is_the_exact_ceiling():
    # m = ceil(min(n/5, 3 sqrt n)) iff m - 1 < min(n/5, 3 sqrt n) <= m, in integers.
    for n in range(1, 5000):
        m = tail_size(n)
        assert n <= 5 * m or 9 * n <= m * m
        assert 5 * (m - 1) < n and (m - 1) ** 2 < 9 * n
    assert tail_size(np.int64(100)) == 20


@pytest.mark.parametrize("n", [0, -3, 2.5, "10", True, None])
def test_tail_size_bad_input(n):
    with pytest.raises(ValueError, match="'n'"):
        tail_size(n)


# ----------------------------------------------------------------------------------------
# pareto_khat: recovery of known tail shapes


@pytest.mark.parametrize("family", ["gpd", "pareto"])
@pytest.mark.parametrize("k", [0.2, 0.5, 0.8])
def test_khat_recovers_pareto_shapes(family, k):
    # Pareto draws U^-k are an affine map of the generalized Pareto ones, (U^-k - 1)/k, with the
    # same k̂ on the same U (the fit is scale-invariant): the two families get their own seeds.
    rng = np.random.default_rng([20240, int(10 * k), family == "gpd"])
    shape = (R, N)
    log_w = _log_gpd(rng, k, shape) if family == "gpd" else -k * np.log(rng.random(shape))
    khat = pareto_khat(_top(log_w), N)
    assert khat.shape == (R,)
    assert abs(khat.mean() - k) < 0.03, khat
    assert np.all(np.abs(khat - k) < 4.0 * (1.0 + k) / math.sqrt(M)), khat


@pytest.mark.parametrize("c, s2", [(0.1, 1.0), (0.2041, 1.69), (0.408, 1.0)])
def test_khat_gaussian_likelihood_ratio(c, s2):
    # w = exp(c X²): P(w > t) ~ t^(-1/k) / sqrt(log t), k = 2 c s². The 1/sqrt(log t) factor
    # biases k̂ low at finite n (measured means -0.045 at k = 0.69, -0.055 at k = 0.816).
    k = 2.0 * c * s2
    rng = np.random.default_rng(7)
    x = math.sqrt(s2) * rng.standard_normal((R, N))
    khat = pareto_khat(_top(c * x * x), N)
    assert -0.08 < khat.mean() - k < 0.02, khat
    # The classification is right on every replicate.
    assert np.all((khat >= KHAT_RELIABLE) == (k >= KHAT_RELIABLE)), khat


def test_khat_lognormal_finite_variance():
    rng = np.random.default_rng(3)
    khat = pareto_khat(_top(0.5 * rng.standard_normal((R, N))), N)
    assert np.all(khat < 0.3), khat
    assert khat.mean() < 0.15, khat


@pytest.mark.parametrize("k", [0.2, 0.5, 0.8])
def test_khat_matches_scipy_maximum_likelihood(k):
    # Zhang-Stephens without the prior is close to the GPD maximum likelihood fit of the same
    # exceedances (measured differences below 0.003).
    rng = np.random.default_rng(11)
    top = np.sort(_top(_log_gpd(rng, k, N)))
    exceedances = np.exp(top[1:]) - np.exp(top[0])
    mle = stats.genpareto.fit(exceedances, floc=0.0)[0]
    assert abs(pareto_khat(top, N, weakly_informative_prior=False) - mle) < 0.01


def test_weakly_informative_prior_shrinks_towards_half():
    rng = np.random.default_rng(5)
    top = _top(_log_gpd(rng, 0.2, N))
    raw = pareto_khat(top, N, weakly_informative_prior=False)
    assert pareto_khat(top, N) == pytest.approx((M * raw + 5.0) / (M + 10.0), rel=1e-14)


# ----------------------------------------------------------------------------------------
# pareto_khat: invariances, batching, how the caller feeds it


def test_khat_order_shift_and_selection_invariance():
    rng = np.random.default_rng(1)
    log_w = -0.6 * np.log(rng.random(N))
    reference = pareto_khat(log_w, N)  # all n values
    top = _top(log_w)
    assert pareto_khat(top, N) == reference
    assert pareto_khat(rng.permutation(top), N) == reference
    assert pareto_khat(np.sort(top)[::-1], N) == reference
    # Per-chunk top-k, as the estimator collects them: 10 chunks of 20 000.
    chunks = np.concatenate([_top(c) for c in np.split(log_w, 10)])
    assert pareto_khat(chunks, N) == reference
    # Weights are only defined up to a constant factor; no overflow far from 0.
    for shift in (-5000.0, 700.0, 5000.0):
        assert pareto_khat(top + shift, N) == pytest.approx(reference, abs=1e-9)


def test_khat_close_weights():
    # Log-weights 3 + 1e-12 g within 1e-9 of each other: w ≈ e³(1 + 1e-12 g), so k̂ is that of
    # the weights g. Exceedances are formed from differences of logs (exact here), not of
    # weights that agree to 12 digits.
    rng = np.random.default_rng(2)
    g = np.exp(_top(_log_gpd(rng, 0.4, N)))
    assert pareto_khat(3.0 + 1e-12 * g, N) == pytest.approx(pareto_khat(np.log(g), N), abs=1e-3)


def test_khat_batch_matches_rows():
    rng = np.random.default_rng(4)
    log_w = _top(-np.log(rng.random((2, 3, N))) * np.array([0.2, 0.5, 0.9])[:, None])
    log_w[1, 2] = 0.0  # a constant row: nan, without disturbing the others
    khat = pareto_khat(log_w, N)
    assert khat.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            row = pareto_khat(log_w[i, j], N)
            assert isinstance(row, float)
            np.testing.assert_equal(khat[i, j], row)
    assert math.isnan(khat[1, 2]) and np.isfinite(khat).sum() == 5


def test_khat_nan_without_a_tail():
    assert math.isnan(pareto_khat(np.arange(20.0), 20))  # n <= 20: M < 5
    assert math.isfinite(pareto_khat(np.arange(21.0), 21))  # M = 5, all distinct
    assert math.isnan(pareto_khat(np.zeros(M + 1), N))  # equal weights
    # Only MIN_EXCEEDANCES - 1 values above the threshold.
    ties = np.concatenate([np.zeros(M + 2 - MIN_EXCEEDANCES), np.arange(1.0, MIN_EXCEEDANCES)])
    assert math.isnan(pareto_khat(ties, N))
    # Enough above the threshold, but ties fill the first quartile: the grid is undefined.
    ties = np.concatenate([np.zeros(M // 2), np.linspace(1.0, 2.0, M + 1 - M // 2)])
    assert math.isnan(pareto_khat(ties, N))


def test_khat_zero_weights_and_extreme_tails():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # n = 100, M = 20: -inf (zero weights, e.g. padding) below the tail or at its threshold.
        log_w = np.full(100, -np.inf)
        log_w[:18] = np.log(np.arange(1.0, 19.0))
        assert math.isfinite(pareto_khat(log_w, 100))
        log_w[10:] = -np.inf  # 10 positive exceedances, but a zero first quartile
        assert math.isnan(pareto_khat(log_w, 100))
        # Exceedances beyond the float64 range relative to the largest: k̂ = inf.
        rng = np.random.default_rng(0)
        assert pareto_khat(_top(-150.0 * np.log(rng.random(N))), N) == math.inf
        outlier = rng.standard_normal(N)
        outlier[0] = 1000.0
        assert pareto_khat(_top(outlier), N) == math.inf


@pytest.mark.parametrize(
    "values, n",
    [
        (1.0, N),  # a scalar
        (np.arange(float(M)), N),  # fewer than tail_size(n) + 1
        (np.arange(30.0), 25),  # more than n
        (np.append(np.arange(float(M)), np.nan), N),
        (np.append(np.arange(float(M)), np.inf), N),
    ],
)
def test_khat_bad_values(values, n):
    with pytest.raises(ValueError, match="'top_log_weights'"):
        pareto_khat(values, n)


@pytest.mark.parametrize("n", [0, 1.5, "n", False])
def test_khat_bad_n(n):
    with pytest.raises(ValueError, match="'n'"):
        pareto_khat(np.arange(M + 1.0), n)


# ----------------------------------------------------------------------------------------
# effective_sample_size


def test_ess_limits():
    assert _ess(np.zeros(N)) == pytest.approx(N, rel=1e-12)
    assert _ess(np.full(1000, -1234.5)) == pytest.approx(1000, rel=1e-12)
    dominant = np.zeros(N)
    dominant[17] = 800.0
    assert _ess(dominant) == pytest.approx(1.0, rel=1e-12)


def test_ess_matches_direct_formula_and_broadcasts():
    rng = np.random.default_rng(8)
    log_w = rng.standard_normal((3, 1000)) * np.array([[0.1], [1.0], [3.0]])
    w = np.exp(log_w)
    direct = w.sum(axis=1) ** 2 / (w**2).sum(axis=1)
    got = effective_sample_size(
        special.logsumexp(log_w, axis=1), special.logsumexp(2.0 * log_w, axis=1)
    )
    np.testing.assert_allclose(got, direct, rtol=1e-12)
    assert isinstance(_ess(log_w[0]), float)
    assert _ess(log_w[2] + 1e4) == pytest.approx(direct[2], rel=1e-10)  # no overflow


@pytest.mark.parametrize(
    "a, b, name",
    [
        (np.nan, 0.0, "'log_weights_sum'"),
        (0.0, np.inf, "'log_weights_sq_sum'"),
        (-np.inf, -np.inf, "'log_weights_sum'"),
        (0.0, 1e-6, "'log_weights_sq_sum'"),
    ],
)
def test_ess_bad_input(a, b, name):
    with pytest.raises(ValueError, match=name):
        effective_sample_size(a, b)


# ----------------------------------------------------------------------------------------
# moment_reliability


def test_constants():
    assert (KHAT_RELIABLE, KHAT_USABLE, ESS_FLOOR, MIN_EXCEEDANCES) == (0.5, 0.7, 100.0, 5)


@pytest.mark.parametrize(
    "khat, ess, reliable, fragments",
    [
        (0.3, 5000.0, True, ["Pareto k̂ = 0.300 < 0.5", "ESS = 5000 ≥ 100"]),
        (0.49, 100.0, True, ["0.490 < 0.5"]),
        (-0.2, 9000.0, True, ["-0.200 < 0.5"]),
        (0.5, 5000.0, False, ["Pareto k̂ = 0.500 ≥ 0.5", "infinite variance"]),
        (0.71, 5000.0, False, ["Pareto k̂ = 0.710 ≥ 0.7", "too heavy-tailed"]),
        (math.inf, 5000.0, False, ["Pareto k̂ = inf ≥ 0.7"]),
        (math.nan, 5000.0, False, ["Pareto k̂ is nan"]),
        (0.3, 99.5, False, ["ESS = 99.5 < 100 of n = 10000"]),
        (0.6, 20.0, False, ["Pareto k̂ = 0.600 ≥ 0.5", "; ESS = 20.0 < 100"]),
    ],
)
def test_moment_reliability(khat, ess, reliable, fragments):
    ok, reason = moment_reliability(khat, ess, 10_000)
    assert ok is reliable
    for fragment in fragments:
        assert fragment in reason, reason
    if not reliable and khat < KHAT_RELIABLE:
        assert "Pareto" not in reason


@pytest.mark.parametrize(
    "args, name",
    [
        ((0.3, 50.0, 0), "'n'"),
        ((0.3, 50.0, 2.0), "'n'"),
        (("x", 50.0, 100), "'khat'"),
        (([0.1, 0.2], 50.0, 100), "'khat'"),
        ((0.3, -1.0, 100), "'ess'"),
        ((0.3, 101.0, 100), "'ess'"),
        ((0.3, math.nan, 100), "'ess'"),
    ],
)
def test_moment_reliability_bad_input(args, name):
    with pytest.raises(ValueError, match=name):
        moment_reliability(*args)


def test_end_to_end_gaussian_likelihood_ratios():
    rng = np.random.default_rng(9)
    x = rng.standard_normal(N)
    verdicts = {}
    for c in (0.1, 0.408):
        log_w = c * x * x
        verdicts[c] = moment_reliability(pareto_khat(_top(log_w), N), _ess(log_w), N)
    assert verdicts[0.1][0] and "< 0.5" in verdicts[0.1][1]
    assert not verdicts[0.408][0] and "≥ 0.7" in verdicts[0.408][1]
    # One weight far above the rest: k̂ misses it, the ESS does not.
    log_w = rng.standard_normal(N)
    log_w[0] = 30.0
    ok, reason = moment_reliability(pareto_khat(_top(log_w), N), _ess(log_w), N)
    assert not ok and reason.startswith("ESS = 1.0 < 100"), reason


def test_docstring_examples():
    result = doctest.testmod(dg, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0

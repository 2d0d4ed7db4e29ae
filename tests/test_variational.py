"""fisherrdp.variational.estimate_renyi: result fields and interval ordering, determinism given
the key, a small run on N(1, 1) vs N(0, 1) (truth 1) checked against its reported stderr, the
argument order on an asymmetric Gaussian pair with a closed form (swapping the samplers
estimates D_α(Q‖P)), points batched with per-point args (the heavy-tailed Gaussian pair is
flagged), the poly-softplus output, and input checks. Ensembles of 2 members keep it cheap.

Compile time dominates: every run uses the same shapes and module-level samplers, so the
compiled training and evaluation steps are reused (they are cached on the samplers and knobs).
A short run on the k = 1 release at n_syn = inf (its own compile, ~15 s) checks the estimator's
lower-bound property against the exact value from SciPy quadrature; the run at the defaults
(the k = 1 release against renyi_ncx2, 2000 steps) and the RDV variant are ``slow``."""

import dataclasses
import math

import jax
import numpy as np
import pytest
from scipy import integrate, stats

from fisherrdp.variational import RenyiEstimate, estimate_renyi, poly_softplus_log

SMALL = {"steps": 300, "batch_size": 512, "n_eval": 20_000, "eval_chunk": 20_000, "members": 2}
M = 256  # samples per sampler call


def gauss_renyi(alpha, m1, s1, m2, s2):
    """D_α(N(m1, s1²) ‖ N(m2, s2²)) in closed form (needs α s2² + (1 − α) s1² > 0)."""
    var = alpha * s2**2 + (1.0 - alpha) * s1**2
    return (
        math.log(s2 / s1)
        + math.log(s2**2 / var) / (2.0 * (alpha - 1.0))
        + alpha * (m1 - m2) ** 2 / (2.0 * var)
    )


def p_shift(k):
    return 1.0 + jax.random.normal(k, (M,))


def q_std(k):
    return jax.random.normal(k, (M,))


# The asymmetric pair: P = N(0.5, 1), Q = N(0, 1.3²), α = 1.5 (finite both ways, with finite
# variance of the estimator: 2α s2² + (1 − 2α) s1² > 0 in both orders).
ASYM = (1.5, 0.5, 1.0, 0.0, 1.3)


def p_asym(k):
    return ASYM[1] + ASYM[2] * jax.random.normal(k, (M,))


def q_asym(k):
    return ASYM[3] + ASYM[4] * jax.random.normal(k, (M,))


@pytest.fixture(scope="module")
def gauss():
    return estimate_renyi(p_shift, q_std, 2.0, key=jax.random.key(0), **SMALL)


def test_closed_form_helper():
    """The closed form used below, against SciPy quadrature of ∫ p^α q^{1−α}."""
    alpha, m1, s1, m2, s2 = ASYM
    for args in ((m1, s1, m2, s2), (m2, s2, m1, s1)):
        a, b = stats.norm(args[0], args[1]), stats.norm(args[2], args[3])

        def integrand(x, a=a, b=b):
            return math.exp(alpha * a.logpdf(x) + (1 - alpha) * b.logpdf(x))

        integral = integrate.quad(integrand, -40, 40)[0]
        assert gauss_renyi(alpha, *args) == pytest.approx(math.log(integral) / (alpha - 1), 1e-9)
    assert gauss_renyi(2.0, 1.0, 1.0, 0.0, 1.0) == pytest.approx(1.0)


def test_fields_and_interval(gauss):
    r = gauss
    assert isinstance(r, RenyiEstimate)
    assert r.ci_low < r.estimate < r.ci_high
    assert r.stderr > 0
    assert r.ci_high - r.ci_low == pytest.approx(2 * 1.959963984540054 * r.stderr)
    assert r.curve.shape == (3,) and np.all(np.isfinite(r.curve))
    assert list(r.curve_steps) == [100, 200, 300]
    assert r.alpha == 2.0 and r.method == "convex_conjugate" and r.seconds > 0
    assert r.settings["steps"] == 300 and r.settings["n_eval"] == 20_000
    assert r.settings["features"] == 1 and r.settings["output"] == "exp"
    assert r.members.shape == (2,) and isinstance(r.reliable, bool)
    assert r.khat.shape == (2,) and r.ess.shape == (2,) and np.all(r.ess > 1)
    assert (r.reason == "") == r.reliable
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.estimate = 0.0  # type: ignore[misc]


def test_gaussian_shift_against_truth(gauss):
    """Truth α μ²/2 = 1. The estimate must lie within 3 of its reported standard errors of the
    truth (the optimisation bias at these 300 steps, about −3% measured, is below that), and
    the standard error must be small enough for this to mean something."""
    r = gauss
    assert r.stderr < 0.08
    assert abs(r.estimate - 1.0) <= 3.0 * r.stderr, r


def test_determinism(gauss):
    again = estimate_renyi(p_shift, q_std, 2.0, key=jax.random.key(0), progress=True, **SMALL)
    assert again.estimate == gauss.estimate and again.stderr == gauss.stderr
    assert np.array_equal(again.curve, gauss.curve)
    other = estimate_renyi(p_shift, q_std, 2.0, key=jax.random.key(1), **SMALL)
    assert other.estimate != gauss.estimate


def test_argument_order():
    """estimate_renyi(p, q) estimates D_α(P‖Q); swapped, D_α(Q‖P) (2.6 times larger here).
    Each estimate is within 3 standard errors plus 10% (the optimisation bias allowed at 300
    steps) of its own truth, and nearer to it than to the other order's value."""
    alpha = ASYM[0]
    forward = gauss_renyi(*ASYM)
    reverse = gauss_renyi(alpha, *ASYM[3:], *ASYM[1:3])
    assert reverse / forward > 2.5
    for sp, sq, truth, other in (
        (p_asym, q_asym, forward, reverse),
        (q_asym, p_asym, reverse, forward),
    ):
        r = estimate_renyi(sp, sq, alpha, key=jax.random.key(2), **SMALL)
        assert abs(r.estimate - truth) <= 3.0 * r.stderr + 0.1 * truth, (r, truth)
        assert abs(r.estimate - truth) < abs(r.estimate - other)


def gauss_p(key, m1, s1, m2, s2):
    return m1 + s1 * jax.random.normal(key, (M,))


def gauss_q(key, m1, s1, m2, s2):
    return m2 + s2 * jax.random.normal(key, (M,))


def test_points_batched_with_args():
    """Three Gaussian pairs (per-point args) and orders train in one vmapped run; each estimate
    within 3 standard errors plus 10% (the optimisation gap at 300 steps) of its closed form,
    and the heavy-tailed pair N(0, 1.3²) ‖ N(0, 1) at α = 2 (its estimator moments have infinite
    variance) is flagged."""
    pairs = np.array([(1.0, 1.0, 0.0, 1.0), (0.5, 1.0, 0.0, 1.3), (0.0, 1.3, 0.0, 1.0)])
    alpha = np.array([2.0, 1.5, 2.0])
    truth = np.array([gauss_renyi(a, *p) for a, p in zip(alpha, pairs, strict=True)])
    r = estimate_renyi(gauss_p, gauss_q, alpha, args=tuple(pairs.T), key=jax.random.key(5), **SMALL)
    assert r.estimate.shape == (3,) and r.members.shape == (3, 2) and r.khat.shape == (3, 2)
    assert r.curve.shape == (3, 3)
    assert np.all(np.abs(r.estimate - truth) <= 3.0 * r.stderr + 0.1 * truth), (r.estimate, truth)
    assert not r.reliable[2] and "Pareto" in r.reason[2], r.reason


def test_poly_softplus():
    y = np.array([-1e6, -2.0, -1e-12, 0.0, 1e-12, 3.0, 1e6])
    expected = np.where(y >= 0, np.log1p(np.maximum(y, 0)), -np.log1p(-np.minimum(y, 0)))
    np.testing.assert_allclose(poly_softplus_log(y), expected, rtol=1e-15)
    grads = jax.jit(jax.vmap(jax.grad(poly_softplus_log)))(y)
    assert np.all(np.isfinite(grads))
    np.testing.assert_allclose(grads, np.where(y >= 0, 1 / (1 + np.abs(y)), 1 / (1 + np.abs(y))))


@pytest.mark.parametrize(
    "args, kwargs, error, match",
    [
        ((p_shift, q_std, 1.0), {}, ValueError, "'alpha' must be > 1"),
        ((p_shift, q_std, 0.5), {}, ValueError, "'alpha' must be > 1"),
        ((p_shift, q_std, math.inf), {}, ValueError, "'alpha'"),
        ((np.zeros(3), q_std, 2.0), {}, TypeError, "'sample_p' must be a callable"),
        ((p_shift, "q", 2.0), {}, TypeError, "'sample_q' must be a callable"),
        ((p_shift, q_std, 2.0), {"method": "dv"}, ValueError, "'method'"),
        ((p_shift, q_std, 2.0), {"output": "softplus"}, ValueError, "'output'"),
        ((p_shift, q_std, 2.0), {"steps": 0}, ValueError, "'steps'"),
        ((p_shift, q_std, 2.0), {"hidden": (0,)}, ValueError, "'hidden'"),
        ((lambda k: jax.random.normal(k, (M, 2)), q_std, 2.0), {}, ValueError, "features"),
        ((lambda k: jax.random.normal(k, ()), q_std, 2.0), {}, ValueError, "shape \\(batch"),
        ((p_shift, q_std, [2.0, 3.0]), {"args": (np.ones(3),)}, ValueError, "'args'"),
        ((p_shift, q_std, 2.0), {"members": 0}, ValueError, "'members'"),
        ((p_shift, lambda k: jax.numpy.log(q_std(k)), 2.0), {}, ValueError, "non-finite"),
    ],
)
def test_bad_input(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        estimate_renyi(*args, key=jax.random.key(0), **kwargs)


# The k = 1 release at n_syn = inf: α = 2, d = 5, ‖v‖ = 2, ‖w‖ = 1.5 (features log ‖V‖²).
RELEASE = (2.0, 5, 2.0, 1.5)
RELEASE_SMALL = {
    "steps": 300,
    "batch_size": 512,
    "n_eval": 200_000,
    "eval_chunk": 20_000,
    "members": 2,
}


def release_inf_exact():
    """D_2(χ²_5(4) ‖ χ²_5(2.25)) = log ∫ p_a² / p_b, by SciPy quadrature of SciPy's densities
    (independent of fisherrdp); ``docs/math/release.md`` gives 0.1512947."""
    alpha, d, a, b = RELEASE
    pa, pb = stats.ncx2(d, a * a), stats.ncx2(d, b * b)

    def integrand(y):
        return math.exp(alpha * pa.logpdf(y) + (1.0 - alpha) * pb.logpdf(y))

    integral = integrate.quad(integrand, 0.0, np.inf, epsabs=0.0, epsrel=1e-12, limit=200)[0]
    return math.log(integral) / (alpha - 1.0)


def test_release_k1_infinite_short_runs_lower_bound():
    """Short runs (300 steps, batch 512, 2e5 held-out samples; four keys) on the k = 1 release
    at n_syn = inf against its exact value. The held-out estimate is a lower bound in
    expectation (the objective at a trained h is below the supremum D_α, and the log of a
    sample mean is low-biased), so each estimate lies below exact + 4 stderr and their mean
    below exact + 4 stderr/2 (the four held-out evaluations are independent). Below: the
    optimisation gap at this budget, measured −5.2% … +0.9% (−3.0 … +0.5 stderr; mean −2.1%)
    over keys 0–11, is allowed up to 10% plus 4 stderr."""
    from fisherrdp.release import release_samplers

    exact = release_inf_exact()
    assert exact == pytest.approx(0.1512947, abs=1e-7)  # ``docs/math/release.md``
    alpha, d, a, b = RELEASE
    p, q = release_samplers(1, d, math.inf, a, b, batch=RELEASE_SMALL["batch_size"])
    runs = [estimate_renyi(p, q, alpha, key=jax.random.key(k), **RELEASE_SMALL) for k in range(4)]
    est = np.array([r.estimate for r in runs])
    se = np.array([r.stderr for r in runs])
    assert np.all(se < 0.025 * exact), se  # small enough for the checks to mean something
    assert np.all(est <= exact + 4.0 * se), (est, exact)
    assert est.mean() <= exact + 4.0 * np.sqrt(np.sum(se**2)) / len(se), (est, exact)
    assert np.all(est >= 0.9 * exact - 4.0 * se), (est, exact)


@pytest.mark.slow
def test_release_k1_infinite_against_renyi_ncx2():
    """k = 1, n_syn = inf (features log ‖V‖²), α = 2, d = 5, ‖v‖ = 2, ‖w‖ = 1.5: the exact
    value is renyi_ncx2 = 0.15129; defaults (2000 steps, 2e5 held-out samples). Measured: within
    3 stderr + 5%."""
    from fisherrdp.divergences import renyi_ncx2
    from fisherrdp.release import release_samplers

    p, q = release_samplers(1, 5, math.inf, 2.0, 1.5)
    r = estimate_renyi(p, q, 2.0, key=jax.random.key(3))
    exact = float(renyi_ncx2(2.0, 5.0, 2.0, 1.5))
    assert abs(r.estimate - exact) <= 3.0 * r.stderr + 0.05 * exact, (r, exact)


@pytest.mark.slow
def test_gaussian_defaults_and_rdv():
    """Defaults on N(1, 1) vs N(0, 1): within 5% of 1. The RDV objective on the same problem
    runs (finite fields), but it is not asserted to be accurate: it is unbounded on samples."""
    r = estimate_renyi(p_shift, q_std, 2.0, key=jax.random.key(4))
    assert abs(r.estimate - 1.0) <= 0.05 + 3.0 * r.stderr and abs(r.estimate - 1.0) < 0.08
    rdv = estimate_renyi(p_shift, q_std, 2.0, key=jax.random.key(4), method="rdv", **SMALL)
    assert rdv.method == "rdv" and math.isfinite(rdv.estimate) and rdv.settings["output"] is None

"""Monte Carlo Fisher information and Rényi divergence along the non-central Wishart path.

Exact references: for k = 1, and for k = 2 with a rank-one path (second columns zero: then
‖V₁‖² is sufficient for the law of VᵀV), the Fisher information is I_d(ρ) ρ'² (mpmath values in
``fixtures/wishart_fisher_k1.json``) and the Rényi divergence is that of χ²_d(a²) and χ²_d(b²)
(mpmath values in ``fixtures/wishart_renyi.json``, made by ``make_wishart_mc_fixtures.py``).
Monte Carlo estimates must agree within 4 standard errors (Fisher; Rényi in the default run) or
their 95% interval (Rényi, slow, fixed keys). One (d, k, n_samples) per compiled function,
batched θ and α: compilation dominates.
"""

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from fisherrdp.bounds import theorem53_fisher_bound, theorem54_bound
from fisherrdp.divergences import renyi_ncwishart_mc
from fisherrdp.fisher import wishart_path_fisher, wishart_path_fisher_integral

N_SAMPLES = 4000
D1 = 6  # k = 1 Fisher tests
D2 = 10  # k = 2 Fisher tests (m = 5)
THETA = np.array([0.1, 0.5, 0.9])
# ``docs/math/ncx2.md`` spot value (mpmath): D_2(χ²_50(1) ‖ χ²_50(0.25)) = renyi_ncx2(2, 50, 1, 0.5).
SPOT_D, SPOT_A, SPOT_B, SPOT_VALUE = 50, 1.0, 0.5, 0.0055679342


def _collinear(d, k, a, b):
    """v = a e₁, w = b e₁ in the first column, zero elsewhere."""
    v, w = np.zeros((d, k)), np.zeros((d, k))
    v[0, 0], w[0, 0] = a, b
    return v, w


# Exact k = 1 references I_d(ρ(θ))·ρ'(θ)², computed with mpmath (independently of fisherrdp)
# by tests/fixtures/make_wishart_fisher_fixtures.py, with the inputs they belong to.
FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "wishart_fisher_k1.json").read_text())
K1_V = np.array(FIXTURE["inputs"]["k1_v"])[:, None]
K1_W = np.array(FIXTURE["inputs"]["k1_w"])[:, None]
NODES4 = (np.polynomial.legendre.leggauss(4)[0] + 1) / 2  # path-integral nodes, n_theta = 4


def test_fixture_matches_the_test_inputs():
    cases = FIXTURE["cases"]
    np.testing.assert_array_equal(FIXTURE["inputs"]["theta"], THETA)
    for name in ("aligned", "unaligned", "rank_one_k2"):
        np.testing.assert_array_equal(cases[name]["theta"], THETA, err_msg=name)
    np.testing.assert_allclose(cases["nodes_fisher"]["theta"], NODES4, rtol=1e-15)
    assert cases["aligned"]["d"] == D1 and cases["rank_one_k2"]["d"] == D2
    assert FIXTURE["inputs"]["rank_one"] == [1.5, 0.8]  # the rank-one path of k2_results


@pytest.fixture(scope="module")
def k1_case():
    ref = {name: np.array(case["fisher"]) for name, case in FIXTURE["cases"].items()}
    nv, nw = np.linalg.norm(K1_V), np.linalg.norm(K1_W)
    return {"v": K1_V, "w": K1_W, "delta": abs(nw - nv), **ref}


def _assert_within(est, se, exact, label):
    est, se = np.asarray(est), np.asarray(se)
    z = (est - exact) / se
    print(f"{label}: estimate {est}, exact {exact}, z = {z}")
    assert np.all(se < 0.1 * exact), "Monte Carlo error too large for the test to mean anything"
    assert np.all(np.abs(z) < 4.0)


def test_k1_fisher_matches_ncx2(k1_case):
    v, w = k1_case["v"], k1_case["w"]
    est, se = wishart_path_fisher(v, w, THETA, key=jax.random.key(1), n_samples=N_SAMPLES)
    assert est.shape == se.shape == THETA.shape
    _assert_within(est, se, k1_case["aligned"], "k=1 aligned")
    est, se = wishart_path_fisher(
        v, w, THETA, key=jax.random.key(2), n_samples=N_SAMPLES, align=False
    )
    _assert_within(est, se, k1_case["unaligned"], "k=1 unaligned")


def test_k1_path_integral_matches_exact_nodes(k1_case):
    alpha = 2.0
    r = wishart_path_fisher_integral(
        k1_case["v"], k1_case["w"], alpha, key=jax.random.key(3), n_samples=N_SAMPLES, n_theta=4
    )
    nodes, weights = np.polynomial.legendre.leggauss(4)
    nodes, weights = (nodes + 1) / 2, weights / 2
    np.testing.assert_allclose(r.theta, nodes, rtol=1e-15)
    growth = np.exp((alpha - 1) * (2 * alpha - 1) * nodes**2 * k1_case["delta"] ** 2 / 2)
    exact = np.sum(weights * np.sqrt(k1_case["nodes_fisher"]) * growth)
    z = (float(r.integral) - exact) / float(r.stderr)
    print(f"k=1 path integral {float(r.integral):.6f} ± {float(r.stderr):.1e}, exact {exact:.6f}")
    assert float(r.stderr) < 0.05 * exact and abs(z) < 4.0
    assert float(r.bound) == pytest.approx(np.log1p(alpha * float(r.integral)) / (alpha - 1))
    assert float(r.bound) < float(r.bound_high)


@pytest.fixture(scope="module")
def k2_results():
    rng = np.random.default_rng(7)
    v = rng.normal(size=(D2, 2)) * 0.6
    w = v + rng.normal(size=(D2, 2)) * 0.3
    generic = wishart_path_fisher(v, w, THETA, key=jax.random.key(4), n_samples=N_SAMPLES)
    rv, rw = _collinear(D2, 2, 1.5, 0.8)
    rank_one = wishart_path_fisher(
        rv, rw, THETA, key=jax.random.key(5), n_samples=N_SAMPLES, align=False
    )
    return v, w, generic, rank_one


def test_k2_rank_one_fisher_matches_ncx2(k1_case, k2_results):
    *_, (est, se) = k2_results
    _assert_within(est, se, k1_case["rank_one_k2"], "k=2 rank one")


def test_k2_fisher_below_theorem53(k2_results):
    v, w, (est, se), _ = k2_results
    a, _, bt = np.linalg.svd(v @ w.T)
    uw = a @ bt @ w
    length_sq = np.sum((uw - v) ** 2)
    rho = np.array([np.linalg.norm((1 - t) * v + t * uw) for t in THETA])
    bound = np.asarray(theorem53_fisher_bound(length_sq, rho, D2 // 2))
    est, se = np.asarray(est), np.asarray(se)
    print(f"k=2: Fisher {est} ± {se}, Theorem 5.3 bound {bound}, ratio {est / bound}")
    assert np.all(se < 0.1 * est)
    assert np.all(est - 4.0 * se <= bound)


def _check_spot(k, key):
    v, w = _collinear(SPOT_D, k, SPOT_A, SPOT_B)
    r = renyi_ncwishart_mc(
        np.array([2.0]), SPOT_D, v, w, key=jax.random.key(key), n_samples=N_SAMPLES
    )
    print(f"k={k}: {r}, exact {SPOT_VALUE}")
    assert float(r.stderr[0]) < 0.1 * SPOT_VALUE
    assert float(r.ci_low[0]) <= SPOT_VALUE <= float(r.ci_high[0])


# Exact Rényi divergences (60-digit mpmath, fixtures/make_wishart_mc_fixtures.py) of the pairs
# below: k = 1 v = a e₁, w = b e₁, and the rank-one k = 2 pair (the same, second columns zero).
RENYI_ROWS = json.loads((Path(__file__).parent / "fixtures" / "wishart_renyi.json").read_text())
RENYI_EXACT = {(r["alpha"], r["d"], r["a"], r["b"]): r["renyi"] for r in RENYI_ROWS["rows"]}


# Default run: the rank-one k = 2 pair at the ``docs/math/index.md`` spot (d = 50, a = 1, b = 0.5), α = 2 and 4,
# 4000 samples, within 4 standard errors; the d, n_samples and α shape of
# test_renyi_k2_below_theorem54_and_postprocessing, so no new compilation. k = 1 at this pair is
# renyi_ncwishart_mc's doctest (default run, α = 2, 95% interval); k = 1 at three orders and both
# k at 95% intervals: the slow tests below (a k = 1 case here would add ~5 s of compilation).
def test_renyi_rank_one_k2_matches_exact():
    alpha = (2.0, 4.0)
    v, w = _collinear(SPOT_D, 2, SPOT_A, SPOT_B)
    r = renyi_ncwishart_mc(
        np.array(alpha), SPOT_D, v, w, key=jax.random.key(13), n_samples=N_SAMPLES
    )
    exact = np.array([RENYI_EXACT[(al, SPOT_D, SPOT_A, SPOT_B)] for al in alpha])
    assert exact[0] == pytest.approx(SPOT_VALUE, abs=1e-10)
    _assert_within(r.estimate, r.stderr, exact, f"Rényi rank-one k = 2, α = {alpha}")


# The k = 1 spot value is also the doctest of renyi_ncwishart_mc (run by test_docstrings.py in the
# default suite).
@pytest.mark.slow
@pytest.mark.parametrize("k,key", [(1, 6), (2, 7)])
def test_renyi_k1_and_rank_one_k2_match_spot_value(k, key):
    _check_spot(k, key)


def test_renyi_k2_below_theorem54_and_postprocessing():
    rng = np.random.default_rng(11)
    v = rng.normal(size=(SPOT_D, 2)) * 0.15
    w = v + rng.normal(size=(SPOT_D, 2)) * 0.06
    alpha = np.array([2.0, 4.0])
    r = renyi_ncwishart_mc(alpha, SPOT_D, v, w, key=jax.random.key(8), n_samples=N_SAMPLES)
    C = max(np.linalg.norm(v), np.linalg.norm(w))
    delta = np.linalg.norm(v - w)
    thm54 = np.asarray(theorem54_bound(alpha, SPOT_D, 2, C, delta))
    post = alpha * delta**2 / 2
    print(f"k=2 Rényi {r}, Theorem 5.4 {thm54}, post-processing {post}")
    assert np.all(np.asarray(r.estimate) > 4 * np.asarray(r.stderr))  # resolved, not noise
    assert np.all(np.asarray(r.ci_low) <= thm54)
    assert np.all(np.asarray(r.ci_low) <= post)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"w": np.ones((5, 1))}, "'w' must have the shape of 'v'"),
        ({"v": np.ones(6), "w": np.ones(6)}, "'v' must have shape \\(d, k\\)"),
        ({"n_samples": 1}, "'n_samples' must be an integer >= 2"),
        ({"n_samples": 10.5}, "'n_samples' must be an integer >= 2"),
        ({"theta": np.array([0.5, np.nan])}, "'theta' must be a real number \\(not NaN\\)"),
    ],
)
def test_fisher_bad_input_raises(kwargs, match):
    args = {"v": np.ones((6, 1)), "w": np.zeros((6, 1)), "theta": 0.5, "n_samples": 100}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        wishart_path_fisher(
            args["v"], args["w"], args["theta"], key=jax.random.key(0), n_samples=args["n_samples"]
        )


@pytest.mark.parametrize(
    "alpha,n_theta,match",
    [(1.0, 4, "'alpha' must be > 1"), (2.0, 1, "'n_theta' must be an integer >= 2")],
)
def test_integral_bad_input_raises(alpha, n_theta, match):
    with pytest.raises(ValueError, match=match):
        wishart_path_fisher_integral(
            np.ones((6, 1)),
            np.zeros((6, 1)),
            alpha,
            key=jax.random.key(0),
            n_samples=10,
            n_theta=n_theta,
        )


@pytest.mark.parametrize(
    "args,match",
    [
        ((1.0, 4, np.ones((4, 2)), np.ones((4, 2))), "'alpha' must be > 1"),
        ((2.0, 1, np.ones((1, 2)), np.ones((1, 2))), "'d' must be an integer >= 2"),
        ((2.0, 4, np.ones((4, 2)), np.ones((4, 1))), "'w' must have k = 2 columns"),
        ((2.0, 4, np.ones((5, 2)), np.ones((4, 2))), "'v' must have at most d = 4 rows"),
        ((2.0, 4, np.ones((4, 2)), np.ones((4, 2)), 1), "'n_samples' must be an integer >= 2"),
    ],
)
def test_renyi_bad_input_raises(args, match):
    n_samples = args[4] if len(args) > 4 else 10
    with pytest.raises(ValueError, match=match):
        renyi_ncwishart_mc(*args[:4], key=jax.random.key(0), n_samples=n_samples)


def test_score_matches_finite_differences_of_logpdf():
    # The Fisher estimate is the mean of squared scores over its samples; recompute it from
    # central differences (fourth order) in θ of ncwishart.logpdf at the same samples (the
    # draws of wishart_path_fisher, reproduced by its key and sampler). The shapes are those of
    # k2_results and of the Rényi tests: no new compilation. test_score_equals_jvp_of_logpdf
    # (slow) compares the scores one by one.
    from fisherrdp._src.fisher.wishart import _draw
    from fisherrdp.stats import ncwishart

    rng = np.random.default_rng(3)
    v = rng.normal(size=(D2, 2)) * 0.6
    uw = v + rng.normal(size=(D2, 2)) * 0.3
    theta, key = 0.4, jax.random.key(14)
    est, se = wishart_path_fisher(v, uw, [theta], key=key, n_samples=N_SAMPLES, align=False)
    sub = jax.random.split(key, 1)[0]
    # (the argument types of wishart_path_fisher's call: no recompilation)
    y, _ = _draw(sub, jnp.asarray(v), jnp.asarray(uw), jnp.asarray(theta, v.dtype), D2, N_SAMPLES)

    def logpdf(t):
        m = (1 - t) * v + t * uw
        return np.asarray(ncwishart.logpdf(y, float(D2), m.T @ m))

    h = 1e-3
    score = (
        logpdf(theta - 2 * h)
        - 8 * logpdf(theta - h)
        + 8 * logpdf(theta + h)
        - logpdf(theta + 2 * h)
    ) / (12 * h)
    sq = score**2
    want_est, want_se = sq.mean(), sq.std(ddof=1) / np.sqrt(len(sq))
    print(f"Fisher {float(est[0])} ± {float(se[0])}, from differences {want_est} ± {want_se}")
    np.testing.assert_allclose([est[0], se[0]], [want_est, want_se], rtol=1e-8)


# ----------------------------------------------------------------------------------------------
# Slow: more compilations.


@pytest.mark.slow
def test_score_equals_jvp_of_logpdf():
    from fisherrdp._src.fisher.wishart import _scores
    from fisherrdp.stats import ncwishart

    rng = np.random.default_rng(3)
    v = rng.normal(size=(D2, 2)) * 0.6
    uw = v + rng.normal(size=(D2, 2)) * 0.3
    theta = 0.4
    mu = (1 - theta) * v + theta * uw
    y = ncwishart.sample(jax.random.key(9), D2, mu, shape=(16,))
    got, _ = _scores(y, v, uw, theta, float(D2), 16)

    def logpdf(t):
        m = (1 - t) * v + t * uw
        return ncwishart.logpdf(y, float(D2), m.T @ m)

    _, want = jax.jvp(logpdf, (theta,), (1.0,))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_renyi_k1_matches_renyi_ncx2(seed):
    # Exact values: mpmath (wishart_renyi.json), as renyi_ncx2 computes them (to 1e-9).
    alpha = np.array([1.5, 2.0, 3.0])
    d, a, b = 8, 1.3, 0.7
    r = renyi_ncwishart_mc(
        alpha, d, np.array([[a]]), np.array([[b]]), key=jax.random.key(seed), n_samples=20000
    )
    exact = np.array([RENYI_EXACT[(al, d, a, b)] for al in alpha])
    print(f"seed {seed}: {r}, exact {exact}")
    assert np.all(np.asarray(r.stderr) < 0.1 * exact)
    assert np.all((np.asarray(r.ci_low) <= exact) & (exact <= np.asarray(r.ci_high)))


@pytest.mark.slow
def test_k2_path_bound_above_renyi_estimate():
    rng = np.random.default_rng(5)
    v = rng.normal(size=(D2, 2)) * 0.6
    w = v + rng.normal(size=(D2, 2)) * 0.3
    alpha = 2.0
    path = wishart_path_fisher_integral(
        v, w, alpha, key=jax.random.key(10), n_samples=N_SAMPLES, n_theta=6
    )
    # the path runs from v (θ = 0) to Uw: it bounds D_α(law WᵀW ‖ law VᵀV).
    r = renyi_ncwishart_mc(np.array([alpha]), D2, w, v, key=jax.random.key(11), n_samples=20000)
    print(f"path bound {path.bound} (high {path.bound_high}), Rényi {r}")
    assert float(r.ci_low[0]) <= float(path.bound_high)

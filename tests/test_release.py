"""fisherrdp.release: shapes, moments of ZV and of the Gram matrix against the closed form
E[(ZV)ᵀZV] = n σ_z² (vᵀv + dσ² I), sample_gram (Bartlett) against the explicit ZᵀZ construction
in distribution, a Kolmogorov–Smirnov test of the k = 1 scalar against the law of Y·X, jit/vmap,
determinism given the key, the release_samplers features, input checks; differentiability of the
samplers at a fixed key (check_grads, continuity of the Gram matrix in v, the pathwise derivative
of its mean), and release_path_sampler (shapes, check_grads in θ, the k = 1 law along the path,
the log-Cholesky features inverted, the Procrustes alignment).

Moment checks use 4.5 standard errors (estimated from the same samples): with the ~50
comparisons below a false alarm has probability ~3e-4 per run, and every run is deterministic
(fixed keys).

Compile time dominates. The samplers draw their noise (N, Z, the χ² variates) in programs that
depend only on the shapes, not on the key, n_syn or the parameters, and the χ² sampler (~3 s to
compile) is the costly one; so the differentiability checks reuse the shapes of the moment
checks (batch N, v of shape (3, 2) or (5,)), and the others share v of shape (3, 3), batch B."""

import functools
import itertools
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads
from scipy import stats

from fisherrdp._src.release.samplers import _r_factor
from fisherrdp.release import (
    release_path_sampler,
    release_samplers,
    sample_gram,
    sample_model,
    sample_synthetic,
)

N = 40_000  # samples per moment check
Z_TOL = 4.5
SIGMA, SIGMA_Z = 1.3, 0.7
V_MAT = np.array([[1.0, -0.5], [0.3, 2.0], [0.0, 0.7]])  # d = 3, k = 2
N_SYN = 4


def expected_gram(v, n, sigma, sigma_z):
    d = v.shape[0]
    return n * sigma_z**2 * (v.T @ v + d * sigma**2 * np.eye(v.shape[1]))


def assert_mean(samples, expected, what):
    """Entrywise sample mean within Z_TOL standard errors of ``expected``."""
    samples = np.asarray(samples)
    mean = samples.mean(axis=0)
    se = samples.std(axis=0, ddof=1) / math.sqrt(samples.shape[0])
    z = np.abs(mean - expected) / se
    assert np.all(z < Z_TOL), f"{what}: mean {mean}, expected {expected}, z = {z}"


def assert_same_law_moments(x, y, what):
    """Two independent samples: equal means and variances, entrywise, within Z_TOL."""
    x, y = np.asarray(x), np.asarray(y)
    for f in (lambda s: s, lambda s: (s - s.mean(axis=0)) ** 2):
        fx, fy = f(x), f(y)
        se = np.sqrt(fx.var(axis=0, ddof=1) / fx.shape[0] + fy.var(axis=0, ddof=1) / fy.shape[0])
        z = np.abs(fx.mean(axis=0) - fy.mean(axis=0)) / se
        assert np.all(z < Z_TOL), f"{what}: z = {z}"


@pytest.fixture(scope="module")
def draws():
    key = jax.random.key(20261130)
    k1, k2, k3, k4 = jax.random.split(key, 4)
    v = jnp.asarray(V_MAT)
    zv = sample_synthetic(k1, v, N_SYN, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,))
    gram = sample_gram(k2, v, N_SYN, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,))
    gram_big = sample_gram(k3, v, 1e6, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,))
    gram_real = sample_gram(k4, v, 1.5, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,))
    return {
        "zv": np.asarray(zv),
        "gram": np.asarray(gram),
        "gram_big": np.asarray(gram_big),
        "gram_real": np.asarray(gram_real),
    }


def test_shapes():
    """Output shapes, by tracing only (no compilation)."""
    key = jax.random.key(0)
    vec, mat = jnp.ones(5), jnp.ones((5, 3))

    def shape_of(f, *args, **kw):
        return jax.eval_shape(lambda: f(key, *args, **kw)).shape

    assert shape_of(sample_model, vec) == (5,)
    assert shape_of(sample_model, mat, (2, 4)) == (2, 4, 5, 3)
    assert shape_of(sample_synthetic, vec, 7) == (7,)
    assert shape_of(sample_synthetic, vec, 7, shape=(2,)) == (2, 7)
    assert shape_of(sample_synthetic, mat, 7, shape=(2,)) == (2, 7, 3)
    assert shape_of(sample_gram, vec, 7) == ()
    assert shape_of(sample_gram, vec, 7, shape=(2, 3)) == (2, 3)
    assert shape_of(sample_gram, mat, 7.5, shape=(2,)) == (2, 3, 3)
    assert shape_of(sample_gram, jnp.ones((5, 1)), 7) == (1, 1)
    assert shape_of(sample_gram, jnp.ones((2, 3)), 7) == (3, 3)  # d < k: rank-deficient
    out = jax.eval_shape(lambda: sample_model(key, jnp.ones(5, jnp.float32)))
    assert out.dtype == jnp.float32


def test_model_moments():
    v = jnp.asarray(V_MAT)
    x = np.asarray(sample_model(jax.random.key(1), v, (N,), sigma=SIGMA))
    assert_mean(x.reshape(N, -1), V_MAT.ravel(), "E[V]")
    assert_mean(((x - V_MAT) ** 2).reshape(N, -1), SIGMA**2, "Var[V]")


def test_synthetic_moments(draws):
    zv = draws["zv"]  # (N, n, k)
    assert zv.shape == (N, N_SYN, 2)
    assert_mean(zv.reshape(N, -1), 0.0, "E[ZV]")
    gram = np.einsum("bnk,bnl->bkl", zv, zv)
    assert_mean(gram.reshape(N, -1), expected_gram(V_MAT, N_SYN, SIGMA, SIGMA_Z).ravel(), "ZV")


def test_gram_moments(draws):
    for name, n in (("gram", N_SYN), ("gram_big", 1e6), ("gram_real", 1.5)):
        g = draws[name]
        assert np.array_equal(g, np.swapaxes(g, -1, -2)), name
        assert np.all(np.linalg.eigvalsh(g) >= -1e-12 * np.abs(g).max()), name
        assert_mean(g.reshape(N, -1), expected_gram(V_MAT, n, SIGMA, SIGMA_Z).ravel(), name)


def test_gram_matches_explicit_construction(draws):
    explicit = np.einsum("bnk,bnl->bkl", draws["zv"], draws["zv"])
    assert_same_law_moments(draws["gram"].reshape(N, -1), explicit.reshape(N, -1), "Gram")


K1 = {"d": 5, "n": 10, "norm": 2.0, "key": 7}


@pytest.fixture(scope="module")
def k1_draws():
    v = jnp.zeros(K1["d"]).at[0].set(K1["norm"])
    key = jax.random.key(K1["key"])
    return v, key, sample_gram(key, v, K1["n"], sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,))


def test_gram_k1_ks_against_product_law(k1_draws):
    """k = 1: ‖ZV‖² = σ_z² σ² Y X, Y ~ χ²_d(‖v‖²/σ²), X ~ χ²_n; two-sample KS vs SciPy draws."""
    d, n, norm = K1["d"], K1["n"], K1["norm"]
    t = np.asarray(k1_draws[2])
    rng = np.random.default_rng(7)
    y = stats.ncx2.rvs(d, (norm / SIGMA) ** 2, size=N, random_state=rng)
    x = stats.chi2.rvs(n, size=N, random_state=rng)
    ref = SIGMA_Z**2 * SIGMA**2 * y * x
    result = stats.ks_2samp(t, ref)
    assert result.pvalue > 1e-3, result
    # The same test detects a wrong law (n off by one): the check has power.
    wrong = SIGMA_Z**2 * SIGMA**2 * y * stats.chi2.rvs(n + 1, size=N, random_state=rng)
    assert stats.ks_2samp(t, wrong).pvalue < 1e-6


def test_determinism_jit_vmap(draws, k1_draws):
    v = jnp.asarray(V_MAT)
    key = jax.random.key(3)
    # Same shapes as the fixture (compiled once): determinism given the key.
    a = np.asarray(sample_gram(key, v, 10.0, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,)))
    assert np.array_equal(a, sample_gram(key, v, 10.0, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,)))
    assert not np.array_equal(a, draws["gram"])
    # jit with a traced n_syn gives the eager draws; vmap over keys.
    vec, key1, eager = k1_draws
    jitted = jax.jit(lambda k, n: sample_gram(k, vec, n, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,)))(
        key1, float(K1["n"])
    )
    np.testing.assert_allclose(jitted, eager, rtol=1e-12)
    keys = jax.random.split(key, 3)
    batched = jax.vmap(lambda k: sample_synthetic(k, v, 5))(keys)
    assert batched.shape == (3, 5, 2)
    assert not np.array_equal(batched[0], batched[1])


def test_release_samplers_features():
    key = jax.random.key(5)
    for args, kw, shape in (
        ((1, 5, 100, 2.0, 1.5), {}, (16, 1)),
        ((3, 5, 10, 2.0, 1.5), {}, (16, 6)),
        ((2, 5, 10, 2.0, 1.5), {"gram": False}, (16, 20)),
    ):
        p, q = release_samplers(*args, batch=16, **kw)
        assert jax.eval_shape(p, key).shape == shape
        assert jax.eval_shape(q, key).shape == shape
    # k = 1, n_syn = inf: exp(feature) = ‖V‖² ~ χ²_5(4), mean d + a² = 9.
    p_inf, _ = release_samplers(1, 5, math.inf, 2.0, 1.5, batch=N)
    x = np.asarray(p_inf(key))
    assert x.shape == (N, 1) and np.array_equal(x, p_inf(key))
    assert_mean(np.exp(x), 9.0, "‖V‖²")
    # k > 1 at n_syn = inf: log-Cholesky features of VᵀV; log D₁ + log D₂ = log det.
    p_mat, _ = release_samplers(2, 5, math.inf, 2.0, 1.5, batch=4)
    feats = np.asarray(p_mat(key))
    big_v = np.asarray(sample_model(key, jnp.zeros((5, 2)).at[0, 0].set(2.0), (4,)))
    logdet = np.linalg.slogdet(np.swapaxes(big_v, -1, -2) @ big_v)[1]
    np.testing.assert_allclose(feats[:, 0] + feats[:, 2], logdet, rtol=1e-10)


@pytest.mark.parametrize(
    "call, match",
    [
        (lambda: sample_model(jax.random.key(0), jnp.ones((2, 2, 2))), "'v'"),
        (lambda: sample_model(jax.random.key(0), jnp.ones(3), sigma=-1.0), "'sigma' must be >= 0"),
        (lambda: sample_synthetic(jax.random.key(0), jnp.ones(3), 2.5), "'n_syn'"),
        (lambda: sample_synthetic(jax.random.key(0), jnp.ones(3), 0), "'n_syn'"),
        (
            lambda: sample_synthetic(jax.random.key(0), jnp.ones(3), 2, sigma_z=-1.0),
            "'sigma_z' must be >= 0",
        ),
        (lambda: sample_gram(jax.random.key(0), jnp.ones((3, 3)), 2.0), r"'n_syn' must be in \(2, inf\)"),
        (lambda: sample_gram(jax.random.key(0), jnp.ones(3), 0.0), r"'n_syn' must be in \(0, inf\)"),
        # The unbounded limit: a clear error, not chi2(inf) (which once hung).
        (lambda: sample_gram(jax.random.key(0), jnp.ones(3), math.inf), "got inf"),
        (lambda: release_samplers(3, 2, 10, 1.0, 1.0), "'d' must be an integer >= 3"),
        (lambda: release_samplers(1, 2, 10, -1.0, 1.0), "'v_norm'"),
        (lambda: release_samplers(2, 2, 1, 1.0, 1.0), "'n_syn' must be >= 2"),
        (lambda: release_samplers(1, 2, math.inf, 1.0, 1.0, gram=False), "'n_syn'"),
        (lambda: release_path_sampler(np.ones((2, 2, 2)), np.ones((2, 2, 2))), "'v'"),
        (lambda: release_path_sampler(np.ones(3), np.ones(4)), "'w' must have the shape"),
        (lambda: release_path_sampler(np.ones(3), np.ones(3), release="wishart"), "'release'"),
        (lambda: release_path_sampler(V_MAT, V_MAT, n_syn=1.5), "'n_syn' must be >= 2"),
        (lambda: release_path_sampler(V_MAT, V_MAT, n_syn=math.nan), "'n_syn'"),
        (lambda: release_path_sampler(V_MAT, V_MAT, release="synthetic"), "'n_syn'"),
        (lambda: release_path_sampler(V_MAT, V_MAT, sigma=0.0), "'sigma' must be > 0"),
        (lambda: release_path_sampler(V_MAT, V_MAT, sigma_z=0.0), "'sigma_z' must be > 0"),
        (lambda: release_path_sampler(V_MAT, V_MAT)(jax.random.key(0), 0.5, 0), "'n'"),
        (lambda: release_path_sampler(V_MAT, V_MAT)(jax.random.key(0), 0.5, 2.5), "'n'"),
        (
            lambda: jax.jit(
                lambda n: release_path_sampler(V_MAT, V_MAT)(jax.random.key(0), 0.5, n)
            )(3),
            "'n' must be a concrete integer",
        ),
        (
            lambda: release_path_sampler(V_MAT, V_MAT)(jax.random.key(0), jnp.ones(2), 3),
            "'theta' must be a scalar",
        ),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# ----------------------------------------------------------------------------------------------
# Differentiability: at a fixed key (which fixes the noise) every draw is a smooth function of
# the parameters, the reparameterisation that pathwise estimators differentiate through.

B = 2  # batch of the gradient checks on shapes that no moment check uses
#: Central-difference step of check_grads. Its default, 1e-4, leaves O(step²) errors above
#: check_grads' float64 tolerance (1e-5) in the summed inner products over the N-draw batches.
GRAD_EPS = 1e-6
V3 = np.array([[0.8, -0.4, 1.1], [0.2, 1.5, -0.3], [-0.6, 0.1, 0.9]])  # d = k = 3
W3 = np.array([[-0.2, 0.7, 0.4], [1.2, -0.5, 0.6], [0.3, 0.9, -1.0]])
PATH_W = np.array([[0.2, 1.1], [-0.8, 0.4], [1.5, 0.0]])  # an end point for V_MAT, not aligned


@pytest.mark.parametrize(
    "v, batch, n_syn",
    [
        (np.array([2.0, -1.0, 0.5, 0.3, 1.2]), N, N_SYN),  # k = 1, a vector (K1's shapes)
        (np.array([[1.0], [-0.5], [0.3]]), B, 3),  # k = 1, a matrix
        (V_MAT, N, N_SYN),  # k = 2 (the shapes of the moment checks)
        (V3, B, 3),  # k = 3; Z has the shape of N (n_syn = d = k), as for k = 1
    ],
    ids=["vector", "k1", "k2", "k3"],
)
def test_samplers_differentiable(v, batch, n_syn):
    """check_grads (forward and reverse) in v, sigma and sigma_z of the three samplers at one key;
    the Gram matrix with a real n_syn."""
    key = jax.random.key(11)

    def releases(v, sigma, sigma_z):
        kw = {"sigma": sigma, "sigma_z": sigma_z, "shape": (batch,)}
        return (
            sample_model(key, v, (batch,), sigma=sigma),
            sample_synthetic(key, v, n_syn, **kw),
            sample_gram(key, v, n_syn + 0.5, **kw),
        )

    check_grads(releases, (jnp.asarray(v), SIGMA, SIGMA_Z), 1, ("fwd", "rev"), eps=GRAD_EPS)


def test_gram_continuous_in_v():
    """At a fixed key the Gram matrix is continuous in v where an entry of V changes sign.

    Householder QR flips the sign of rows of R there (the raw R gave a jump of 7.5 in an entry
    of G at this v: the same law, but a pathwise derivative would miss the jump); R with
    R_ii >= 0 is the Cholesky factor of VᵀV, a smooth function of V."""
    key = jax.random.key(0)
    v = np.array([[0.0, -0.5], [0.3, 2.0], [1.0, 0.7]])
    grams = []
    for eps in (1e-12, -1e-12):
        v[0, 0] = eps
        grams.append(np.asarray(sample_gram(key, jnp.asarray(v), N_SYN, sigma=0.0, shape=(N,))))
    np.testing.assert_allclose(grams[0], grams[1], rtol=1e-9, atol=1e-9)


def test_gram_pathwise_derivative_of_mean():
    """d/dt E[G(v + tu)] = n σ_z² (uᵀv + vᵀu) for the mean of the pathwise derivatives.

    At a fixed key G is not linear in v (it goes through R(V) and the noise), so the identity
    holds only on average: a check that the reparameterisation is unbiased, within Z_TOL
    standard errors (the derivative of the model release V = v + σN is exactly u, no check)."""
    u = np.array([[0.4, 1.0], [-0.7, 0.2], [0.5, -0.3]])
    _, dg = jax.jvp(
        lambda v: sample_gram(
            jax.random.key(12), v, N_SYN, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,)
        ),
        (jnp.asarray(V_MAT),),
        (jnp.asarray(u),),
    )
    expected = N_SYN * SIGMA_Z**2 * (u.T @ V_MAT + V_MAT.T @ u)
    assert_mean(np.asarray(dg).reshape(N, -1), expected.ravel(), "pathwise dE[G]")


def test_path_sampler_shapes():
    """Every release × k ∈ {1 (a vector and a (d, 1) matrix), 2, 3} × n_syn ∈ {10, inf}, by
    tracing only; the synthetic release needs a finite n_syn."""
    key = jax.random.key(0)
    for shape in ((4,), (4, 1), (4, 2), (4, 3)):
        k = 1 if len(shape) == 1 else shape[1]
        expected = {"model": (7,) + shape, "synthetic": (7, 10 * k), "gram": (7, k * (k + 1) // 2)}
        for release, n_syn in itertools.product(expected, (10, math.inf)):
            if release == "synthetic" and n_syn == math.inf:
                with pytest.raises(ValueError, match="'n_syn'"):
                    release_path_sampler(np.ones(shape), np.zeros(shape), release=release)
                continue
            sample = release_path_sampler(
                np.ones(shape), np.zeros(shape), release=release, n_syn=n_syn
            )
            shape_out = jax.eval_shape(functools.partial(sample, n=7), key, 0.3).shape
            assert shape_out == expected[release]


@pytest.mark.parametrize(
    "release, n_syn",
    [("model", math.inf), ("synthetic", 3), ("gram", 3.5), ("gram", math.inf)],
)
def test_path_sampler_differentiable(release, n_syn):
    """check_grads in θ (forward and reverse) at one key, k = 3 (the shapes of the k3 check)."""
    sample = release_path_sampler(
        V3, W3, release=release, n_syn=n_syn, sigma=SIGMA, sigma_z=SIGMA_Z
    )
    key = jax.random.key(11)
    check_grads(lambda theta: sample(key, theta, B), (0.3,), 1, ("fwd", "rev"), eps=GRAD_EPS)


def test_path_sampler_gram_k1_law():
    """k = 1, n_syn = inf: exp(feature) = σ_z²‖V‖² ~ σ_z²σ² χ²_d(‖μ(θ)‖²/σ²), μ(θ) = (1−θ)v + θw
    (one-sample KS; N draws, the shape of release_samplers' n_syn = inf draws). The law at the
    path's start is rejected: the check has power."""
    d, theta = K1["d"], 0.3
    v, w = np.zeros(d), np.zeros(d)
    v[0], w[1] = K1["norm"], 1.5
    sample = release_path_sampler(v, w, sigma=SIGMA, sigma_z=SIGMA_Z)
    t = np.exp(np.asarray(sample(jax.random.key(13), theta, N))[:, 0])
    assert t.shape == (N,)

    def law(mu):
        return stats.ncx2(d, np.sum(mu**2) / SIGMA**2, scale=SIGMA_Z**2 * SIGMA**2).cdf

    assert stats.kstest(t, law((1 - theta) * v + theta * w)).pvalue > 1e-3
    assert stats.kstest(t, law(v)).pvalue < 1e-6


def test_path_sampler_gram_features_invert():
    """k = 2: G = U diag(exp(log D)) Uᵀ rebuilt from the log-Cholesky features (log D₁, U₂₁,
    log D₂) is the Gram matrix that sample_gram draws at μ(θ) with the same key, over n_syn."""
    theta, n_syn, key = 0.3, 10.0, jax.random.key(14)
    sample = release_path_sampler(V_MAT, PATH_W, n_syn=n_syn, sigma=SIGMA, sigma_z=SIGMA_Z)
    f = np.asarray(sample(key, theta, N))
    assert f.shape == (N, 3) and np.all(np.isfinite(f))
    unit = np.zeros((N, 2, 2))
    unit[:, 0, 0] = unit[:, 1, 1] = 1.0
    unit[:, 1, 0] = f[:, 1]
    rebuilt = unit @ (np.exp(f[:, [0, 2]])[:, :, None] * np.swapaxes(unit, 1, 2))
    mu = jnp.asarray((1 - theta) * V_MAT + theta * PATH_W)
    direct = sample_gram(key, mu, n_syn, sigma=SIGMA, sigma_z=SIGMA_Z, shape=(N,)) / n_syn
    np.testing.assert_allclose(rebuilt, direct, rtol=1e-9, atol=1e-9)


def test_path_sampler_align():
    """align=True ends the path at Uw, U orthogonal: ‖Uw − v‖ < ‖w − v‖, (Uw)ᵀUw = wᵀw. The
    model release at θ = 1 with one key differs between the two paths by Uw − w exactly."""
    key = jax.random.key(15)
    plain, aligned = (
        release_path_sampler(V_MAT, PATH_W, release="model", sigma=SIGMA, align=align)
        for align in (False, True)
    )
    uw = np.asarray(aligned(key, 1.0, N) - plain(key, 1.0, N))[0] + PATH_W
    assert np.linalg.norm(uw - V_MAT) < np.linalg.norm(PATH_W - V_MAT)
    np.testing.assert_allclose(uw.T @ uw, PATH_W.T @ PATH_W, rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(aligned(key, 0.0, N), plain(key, 0.0, N))


@pytest.mark.parametrize("d, k", [(3, 2), (40, 3), (2, 3), (1, 2)])
def test_r_factor_is_the_signed_qr_r(d, k):
    """R by modified Gram–Schmidt: VᵀV = RᵀR, upper triangular with R_ii >= 0, and for d >= k
    the R of LAPACK's QR with rows signed (the unique such factor); zero rows from d on."""
    big_v = jax.random.normal(jax.random.key(3), (500, d, k))
    r = np.asarray(_r_factor(big_v))
    vtv = np.swapaxes(np.asarray(big_v), -1, -2) @ np.asarray(big_v)
    np.testing.assert_allclose(np.swapaxes(r, -1, -2) @ r, vtv, rtol=0, atol=1e-13)
    assert np.all(np.tril(r, -1) == 0) and np.all(np.diagonal(r, axis1=-2, axis2=-1) >= 0)
    assert np.all(r[:, d:] == 0)
    if d >= k:
        qr_r = np.linalg.qr(np.asarray(big_v), mode="r")
        signs = np.where(np.diagonal(qr_r, axis1=-2, axis2=-1) < 0, -1.0, 1.0)
        np.testing.assert_allclose(r, signs[..., :, None] * qr_r, rtol=0, atol=1e-13)


def test_r_factor_of_a_dependent_column_is_a_zero_row():
    """sigma = 0 and a rank-one v: the second column is in the span of the first."""
    r = np.asarray(_r_factor(jnp.ones((6, 2))))
    np.testing.assert_allclose(r[0], [np.sqrt(6.0), np.sqrt(6.0)], rtol=1e-15)
    np.testing.assert_array_equal(r[1], [0.0, 0.0])


@pytest.mark.timeout(300)  # a deadlock fails in 5 minutes (the run here takes seconds)
def test_gram_forward_mode_on_a_large_batch_finishes():
    """Forward mode through sample_gram on 40 000 draws with a tangent broadcast over the batch.

    With jnp.linalg.qr this deadlocked the XLA CPU runtime (jax 0.10.2) on every run, which
    hung CI; the closed-form R has no LAPACK call."""
    key = jax.random.key(11)
    primal, tangent = jax.jvp(
        lambda v, s: sample_gram(key, v, N_SYN + 0.5, sigma=s, sigma_z=SIGMA_Z, shape=(N,)),
        (jnp.asarray(V_MAT), SIGMA),
        (jnp.ones_like(V_MAT), 0.5),
    )
    assert np.all(np.isfinite(np.asarray(tangent))) and primal.shape == (N, 2, 2)

"""fisherrdp.release: shapes, moments of ZV and of the Gram matrix against the closed form
E[(ZV)ᵀZV] = n σ_z² (vᵀv + dσ² I), sample_gram (Bartlett) against the explicit ZᵀZ construction
in distribution, a Kolmogorov–Smirnov test of the k = 1 scalar against the law of Y·X, jit/vmap,
determinism given the key, the release_samplers features, and input checks.

Moment checks use 4.5 standard errors (estimated from the same samples): with the ~40
comparisons below a false alarm has probability ~3e-4 per run, and every run is deterministic
(fixed keys)."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from fisherrdp.release import (
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
    # k > 1 at n_syn = inf: the matrix log of VᵀV; its trace is the log-determinant.
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
        (lambda: sample_gram(jax.random.key(0), jnp.ones((3, 3)), 2.0), "'n_syn' must be > 2"),
        (lambda: sample_gram(jax.random.key(0), jnp.ones(3), 0.0), "'n_syn' must be > 0"),
        (lambda: release_samplers(3, 2, 10, 1.0, 1.0), "'d' must be an integer >= 3"),
        (lambda: release_samplers(1, 2, 10, -1.0, 1.0), "'v_norm'"),
        (lambda: release_samplers(2, 2, 1, 1.0, 1.0), "'n_syn' must be >= 2"),
        (lambda: release_samplers(1, 2, math.inf, 1.0, 1.0, gram=False), "'n_syn'"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(ValueError, match=match):
        call()

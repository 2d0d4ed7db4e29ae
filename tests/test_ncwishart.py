"""The non-central Wishart law: k = 1 against ncx2, normalisation for k = 2, sampling, bad input;
k = 2 values and derivatives under jit against mpmath (``fixtures/wishart_logpdf.json``, made by
``fixtures/make_wishart_mc_fixtures.py``) and finite differences."""

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from fisherrdp.stats import ncwishart, ncx2

LOGPDF_FIXTURE = Path(__file__).parent / "fixtures" / "wishart_logpdf.json"
LOGPDF_ROWS = json.loads(LOGPDF_FIXTURE.read_text())["rows"]


def test_k1_agrees_with_ncx2():
    y = np.array([0.01, 0.7, 3.0, 12.0, 250.0, 3.0])
    df = np.array([1.0, 2.0, 4.0, 7.5, 100.0, 3.0])
    nc = np.array([0.3, 0.0, 2.0, 40.0, 150.0, 1e-3])
    got = ncwishart.logpdf(y[:, None, None], df, nc[:, None, None])
    np.testing.assert_allclose(got, ncx2.logpdf(y, df, nc), rtol=1e-13, atol=1e-13)


def test_k2_density_integrates_to_one():
    # Cholesky coordinates Y = L Lᵀ: dY = 2² l11² l22 dl11 dl21 dl22; Gauss–Legendre in each.
    df, omega = 4.0, np.array([[1.5, 0.4], [0.4, 0.8]])
    nodes, weights = np.polynomial.legendre.leggauss(36)
    upper = 10.0  # e^{-Y/2} at Y = 100 is ~1e-22
    pos, pos_w = 0.5 * upper * (nodes + 1.0), 0.5 * upper * weights
    sym, sym_w = upper * nodes, upper * weights
    l11, l21, l22 = np.meshgrid(pos, sym, pos, indexing="ij")
    w = (pos_w[:, None, None] * sym_w[None, :, None] * pos_w[None, None, :]).ravel()
    l11, l21, l22 = l11.ravel(), l21.ravel(), l22.ravel()
    Y = np.stack(
        [np.stack([l11**2, l11 * l21], -1), np.stack([l11 * l21, l21**2 + l22**2], -1)], -2
    )
    log_p = np.asarray(ncwishart.logpdf(Y, df, omega))
    total = np.sum(w * 4.0 * l11**2 * l22 * np.exp(log_p))
    print(f"k = 2 normalisation: {total!r} (|error| {abs(total - 1):.1e})")
    assert abs(total - 1.0) < 1e-9


def test_sample_mean_matches_df_identity_plus_omega():
    mu = np.array([[1.0, 0.0], [0.5, 2.0]])
    df = 5
    y = np.asarray(ncwishart.sample(jax.random.key(0), df, mu, shape=(20000,)))
    assert y.shape == (20000, 2, 2)
    np.testing.assert_allclose(y, np.swapaxes(y, -1, -2))
    want = np.asarray(ncwishart.mean(df, mu.T @ mu))
    se = y.std(axis=0) / np.sqrt(len(y))
    assert np.all(np.abs(y.mean(axis=0) - want) < 5 * se)


# ----------------------------------------------------------------------------------------------
# k = 2 under jit, in the default run: one jitted program gives the log-density and its
# directional derivative in (Y, Ω) (₀F₁ at its maximal truncation, as always under jit) at the
# fixture points: repeated eigenvalues (Y = 3I, Ω = 2I), generic, rank-one Ω (a zero eigenvalue
# of ¼ΩY, df = 2.5) and eigenvalues of ¼ΩY near 143. Each point twice: tangent in Y only, then
# in Ω only (PSD, so that Ω + tD stays PSD). The slow tests after this section check reverse mode
# (jax.grad) and jit against eager evaluation.

LOGPDF_JVP = jax.jit(
    lambda y, df, om, dy, dom: jax.jvp(
        lambda y, om: ncwishart.logpdf(y, df, om), (y, om), (dy, dom)
    )
)
STEP = 1e-4


@pytest.fixture(scope="module")
def k2_jvp():
    """Values and directional derivatives at X, X + hD, X + 2hD (X = (Y, Ω), D = (dY, dΩ))."""
    y = np.array([r["Y"] for r in LOGPDF_ROWS])
    df = np.array([r["df"] for r in LOGPDF_ROWS])
    om = np.array([r["omega"] for r in LOGPDF_ROWS])
    rng = np.random.default_rng(4)
    s = rng.normal(size=y.shape)
    g = rng.normal(size=y.shape)
    dy = 0.5 * (s + np.swapaxes(s, -1, -2))
    dom = g @ np.swapaxes(g, -1, -2)
    zero = np.zeros_like(y)
    Y, DF, OM = np.concatenate([y, y]), np.concatenate([df, df]), np.concatenate([om, om])
    DY, DOM = np.concatenate([dy, zero]), np.concatenate([zero, dom])
    value, tangent = LOGPDF_JVP(Y, DF, OM, DY, DOM)
    shifted = [
        np.asarray(LOGPDF_JVP(Y + t * DY, DF, OM + t * DOM, DY, DOM)[0]) for t in (STEP, 2 * STEP)
    ]
    return np.asarray(value), np.asarray(tangent), shifted


def test_logpdf_k2_under_jit_matches_mpmath(k2_jvp, accuracy):
    value, *_ = k2_jvp
    want = np.array([r["logpdf"] for r in LOGPDF_ROWS])
    n = len(want)
    np.testing.assert_array_equal(value[n:], value[:n])
    err = np.abs(value[:n] - want) / np.maximum(1.0, np.abs(want))
    print(f"k = 2 logpdf under jit: errors {err}")
    where = [f"df = {r['df']}, eigenvalues of ΩY/4 {r['eigenvalues']}" for r in LOGPDF_ROWS]
    accuracy.check("hyp0f1_matrix/ncwishart_logpdf_k2", err, where=where)


def test_gradients_k2_against_finite_differences(k2_jvp):
    value, tangent, (f1, f2) = k2_jvp
    assert np.all(np.isfinite(tangent))
    fd = (-3 * value + 4 * f1 - f2) / (2 * STEP)  # one-sided, second order
    print(
        f"k = 2 logpdf directional derivatives {tangent}, |autodiff - differences| "
        f"{np.abs(tangent - fd)}"
    )
    assert np.all(np.abs(tangent - fd) <= 1e-6 * np.maximum(1.0, np.abs(fd)))


@pytest.mark.slow
def test_gradients_finite_at_repeated_eigenvalues():
    omega = np.array([[2.0, 0.0], [0.0, 2.0]])
    g_y, g_om = jax.grad(lambda y, om: ncwishart.logpdf(y, 4.0, om), argnums=(0, 1))(
        3.0 * np.eye(2), omega
    )
    assert np.all(np.isfinite(g_y)) and np.all(np.isfinite(g_om))


@pytest.mark.parametrize(
    "args,match",
    [
        ((np.array([[1.0, 0.2], [0.0, 1.0]]), 3.0, np.eye(2)), "'Y' must be symmetric"),
        ((np.array([[1.0, 2.0], [2.0, 1.0]]), 3.0, np.eye(2)), "'Y' must be positive definite"),
        ((np.eye(2), 1.5, np.eye(2)), "'df' must be >= 2"),
        ((np.eye(2), 3.0, -np.eye(2)), "'noncentrality' must be positive semi-definite"),
        ((np.eye(2), 3.0, np.eye(3)), "k x k alike"),
    ],
)
def test_bad_input_raises(args, match):
    with pytest.raises(ValueError, match=match):
        ncwishart.logpdf(*args)


def test_bad_sample_input_raises():
    with pytest.raises(ValueError, match="'df' must be an integer >= 2"):
        ncwishart.sample(jax.random.key(0), 1, np.ones((1, 2)))
    with pytest.raises(ValueError, match="at most df = 2 rows"):
        ncwishart.sample(jax.random.key(0), 2, np.ones((3, 2)))


@pytest.mark.slow
def test_logpdf_under_jit():
    y = np.array([[3.0, 0.5], [0.5, 2.0]])
    om = np.array([[2.0, 0.3], [0.3, 1.0]])
    eager = ncwishart.logpdf(y, 5.0, om)
    jitted = jax.jit(ncwishart.logpdf)(jnp.asarray(y), 5.0, jnp.asarray(om))
    np.testing.assert_allclose(jitted, eager, rtol=1e-13)

"""log ₀F₁(; b; X) of a matrix argument: mpmath fixtures, invariances, gradients, bad input.

The fixture ``fixtures/hyp0f1_matrix.json`` is made by ``fixtures/make_hyp0f1_matrix_fixtures.py``
(40-digit mpmath, an independent Koev–Edelman implementation and the k = 2 closed series).
Evaluations are batched per k so that each shape compiles once. The worst relative errors per k
are accuracy claims (``fixtures/accuracy/hyp0f1_matrix.json``, the numbers of
docs/explanation/special_functions.md).
"""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import fisherrdp.special as fs
from fisherrdp._src.special.hyp0f1_matrix import _log_hyp0f1_eigs, log_hyp0f1_sym

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "hyp0f1_matrix.json")) as f:
    FIXTURE = json.load(f)


def fixture_points(k):
    rows = [p for p in FIXTURE["points"] if len(p["eigenvalues"]) == k]
    b = np.array([p["b"] for p in rows])
    x = np.array([p["eigenvalues"] for p in rows])
    want = np.array([p["log_value"] for p in rows])
    return b, x, want


def random_rotations(key, n, k):
    a = jax.random.normal(key, (n, k, k))
    q, r = np.linalg.qr(np.asarray(a))
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[:, None, :]


@pytest.fixture(scope="module", params=[1, 2, 3, 4])
def evaluated(request):
    """(k, b, x, reference, value, error) for every fixture point of one k, in one call."""
    k = request.param
    b, x, want = fixture_points(k)
    value, error = fs.log_hyp0f1_eigs(b, x, return_error=True)
    return k, b, x, want, np.asarray(value), np.asarray(error)


def test_fixture_self_checks_recorded():
    checks = FIXTURE["checks"]
    assert set(checks) == {
        "0F0_vs_etr",
        "1F0_vs_det",
        "rank_one_vs_scalar",
        "k2_closed_vs_recursion",
    }
    assert max(checks.values()) < 1e-25
    truncated = [p["last_level_rel"] for p in FIXTURE["points"] if p["last_level_rel"] is not None]
    assert max(truncated) < 1e-16  # the reference sums are converged far beyond 1e-10


def test_matches_mpmath_reference(evaluated, accuracy):
    k, b, x, want, value, error = evaluated
    # Relative error of ₀F₁ itself: |exp(log_got − log_want) − 1|.
    rel = np.abs(np.expm1(value - want))
    print(
        f"k = {k}: {len(b)} points, worst relative error of 0F1 {rel.max():.2e}, "
        f"largest reported bound {error.max():.2e}"
    )
    where = [f"b = {bb}, eigenvalues {list(xx)}" for bb, xx in zip(b, x)]
    # Claims hyp0f1_matrix/k1 … k4: worst relative error of ₀F₁ per k (the documented numbers).
    accuracy.check(f"hyp0f1_matrix/k{k}", rel, where=where)
    # The reported bound covers the error against the reference (up to the reference's own digits).
    assert np.all(np.abs(value - want) <= error + 1e-15 * np.maximum(1.0, np.abs(want)))


def test_k1_agrees_with_scalar_log_hyp0f1():
    b = np.array([0.5, 1.0, 2.5, 40.0, 500.0, 3.0])
    x = np.array([0.0, 0.3, 17.0, 900.0, 2.5e5, 1e-3])
    scalar = fs.log_hyp0f1(b, x)
    np.testing.assert_array_equal(fs.log_hyp0f1_eigs(b, x[:, None]), scalar)
    np.testing.assert_array_equal(fs.log_hyp0f1_matrix(b, x[:, None, None]), scalar)


def test_rotation_invariance_and_eigenvalue_permutation(evaluated):
    k, b, x, _, value, _ = evaluated
    if k == 1:
        pytest.skip("k = 1 has nothing to rotate or permute")
    q = random_rotations(jax.random.key(k), len(b), k)
    X = np.einsum("nij,nj,nlj->nil", q, x, q)
    # eigh of the rotated matrix errs by ~eps·max λ (≤ 1e-12 at λ = 5000), and ∂ log F/∂λ ≤ 1.
    got = fs.log_hyp0f1_matrix(b, X)
    assert np.all(np.abs(got - value) <= 1e-12 * np.maximum(1.0, np.abs(value)))
    permuted = fs.log_hyp0f1_eigs(b, x[:, ::-1])
    assert np.all(
        np.abs(permuted - value) <= 64 * np.finfo(float).eps * np.maximum(1.0, np.abs(value))
    )


def sym(a):
    return 0.5 * (a + jnp.swapaxes(a, -1, -2))


def rotated(key, eigs):
    eigs = np.asarray(eigs, float)
    q = random_rotations(key, len(eigs), eigs.shape[-1])
    X = np.einsum("nij,nj,nlj->nil", q, eigs, q)
    return 0.5 * (X + np.swapaxes(X, -1, -2))


#: One jitted k = 3 function for every matrix test below (one compilation; the cap |κ| ≤ 64).
LOG_HYP0F1_MATRIX_JIT = jax.jit(lambda b, s: fs.log_hyp0f1_matrix(b, sym(s), return_error=True))
B3 = np.array([2.5, 10.0, 1.5, 1.25])


def test_check_grads_generic_points_k3():
    X = rotated(
        jax.random.key(7), [[4.0, 1.5, 0.3], [9.0, 2.0, 0.5], [1.0, 0.7, 0.2], [6.0, 0.1, 0.01]]
    )
    f = lambda b, s: LOG_HYP0F1_MATRIX_JIT(b, s)[0]
    check_grads(f, (B3, X), order=1, modes=("rev",), atol=1e-6, rtol=1e-6)


@pytest.mark.slow
def test_check_grads_generic_points_k3_forward():
    X = rotated(
        jax.random.key(7), [[4.0, 1.5, 0.3], [9.0, 2.0, 0.5], [1.0, 0.7, 0.2], [6.0, 0.1, 0.01]]
    )
    f = lambda b, s: LOG_HYP0F1_MATRIX_JIT(b, s)[0]
    check_grads(f, (B3, X), order=1, modes=("fwd",), atol=1e-6, rtol=1e-6)


# ----------------------------------------------------------------------------------------------
# k = 2 in the default run: one jitted program of the function log_hyp0f1_matrix calls, with the
# series truncated at 16 terms (its choice for eigenvalues up to ~30; the reported bound shows
# that 16 terms are converged at every gradient point), gives value, error bound and directional
# X-derivative (the custom_jvp) on one batch: the gradient points below and every k = 2 fixture
# point (as a diagonal matrix, tangent 0) for the truncation bound. The b-derivative, reverse
# mode and the maximal truncation used under jit: the slow tests after this section.

K2_TERMS = 16
K2_JVP = jax.jit(lambda b, s, d: jax.jvp(lambda s: log_hyp0f1_sym(b, s, K2_TERMS), (s,), (d,)))
#: (b, eigenvalues): two generic points, then repeated, all-zero, one zero, repeated and large.
K2_GRAD_POINTS = [
    (1.5, [30.0, 2.0]),
    (7.0, [0.7, 0.2]),
    (1.5, [2.0, 2.0]),
    (1.5, [0.0, 0.0]),
    (0.75, [5.0, 0.0]),
    (3.0, [40.0, 40.0]),
]
K2_STEP = 1e-4


@pytest.fixture(scope="module")
def k2_batch():
    """K2_JVP at X, X + hD, X + 2hD: gradient points (rotated, PSD D), then the k = 2 fixture."""
    rng = np.random.default_rng(2)
    n = len(K2_GRAD_POINTS)
    angle = rng.uniform(0.0, np.pi, n)
    q = np.stack(
        [
            np.stack([np.cos(angle), -np.sin(angle)], -1),
            np.stack([np.sin(angle), np.cos(angle)], -1),
        ],
        -2,
    )
    lam = np.array([x for _, x in K2_GRAD_POINTS])
    X_grad = np.einsum("nij,nj,nlj->nil", q, lam, q)
    X_grad = 0.5 * (X_grad + np.swapaxes(X_grad, -1, -2))
    g = rng.normal(size=(n, 2, 2))
    D_grad = g @ np.swapaxes(g, -1, -2)  # PSD: X + tD stays in the domain at zero eigenvalues
    b_fix, x_fix, want = fixture_points(2)
    X_fix = x_fix[:, :, None] * np.eye(2)  # diagonal: eigh is exact
    b = np.concatenate([[b for b, _ in K2_GRAD_POINTS], b_fix])
    X = np.concatenate([X_grad, X_fix])
    D = np.concatenate([D_grad, np.zeros_like(X_fix)])
    (value, error), (tangent, _) = K2_JVP(b, X, D)
    shifted = [np.asarray(K2_JVP(b, X + t * D, D)[0][0]) for t in (K2_STEP, 2 * K2_STEP)]
    return {
        "n_grad": n,
        "b": b,
        "D": D,
        "value": np.asarray(value),
        "error": np.asarray(error),
        "tangent": np.asarray(tangent),
        "shifted": shifted,
        "want": want,
    }


def test_gradient_k2_against_finite_differences(k2_batch):
    n = k2_batch["n_grad"]
    value, error, tangent = (k2_batch[name][:n] for name in ("value", "error", "tangent"))
    f1, f2 = (f[:n] for f in k2_batch["shifted"])
    assert np.all(error < 1e-11)  # 16 terms are converged: the derivative is that of ₀F₁
    assert np.all(np.isfinite(tangent))
    # One-sided second-order differences along D (PSD: valid at zero eigenvalues), error O(h²).
    fd = (-3 * value + 4 * f1 - f2) / (2 * K2_STEP)
    print(f"k = 2 directional derivatives {tangent}, |autodiff - differences| {abs(tangent - fd)}")
    assert np.all(np.abs(tangent - fd) <= 1e-6 * np.maximum(1.0, np.abs(fd)))
    # At X = 0 the series is 1 + tr(X)/b + O(|X|²): the derivative along D is tr(D)/b.
    zero = [i for i, (_, x) in enumerate(K2_GRAD_POINTS) if max(x) == 0.0]
    b, D = k2_batch["b"][zero], k2_batch["D"][zero]
    np.testing.assert_allclose(tangent[zero], np.trace(D, axis1=-2, axis2=-1) / b, rtol=1e-14)


def test_reported_error_bounds_truncation_k2(k2_batch):
    # 16 terms against the mpmath fixture: the bound covers the error, also where 16 terms
    # truncate (at eigenvalues ~1000 and more the bound is infinite: ρ ≥ 1, no bound).
    n = k2_batch["n_grad"]
    value, error, want = k2_batch["value"][n:], k2_batch["error"][n:], k2_batch["want"]
    err = np.abs(value - want)
    assert np.all(err <= error + 1e-15 * np.maximum(1.0, np.abs(want)))
    finite = np.isfinite(error)
    print(f"k = 2, {K2_TERMS} terms: errors {err[finite]}, bounds {error[finite]}")
    assert np.max(err[finite]) > 1e-3  # really truncated where the bound is finite


@pytest.mark.slow
def test_check_grads_generic_points_k2():
    X = rotated(jax.random.key(8), [[30.0, 2.0], [0.7, 0.2]])
    f = jax.jit(lambda b, s: fs.log_hyp0f1_matrix(b, sym(s)))
    check_grads(f, (np.array([1.5, 7.0]), X), order=1, modes=("fwd", "rev"), atol=1e-6, rtol=1e-6)


def check_gradient_against_finite_differences(eigs, b, f):
    """Gradient at (batched) X vs one-sided second-order differences along PSD directions."""
    X = rotated(jax.random.key(len(eigs)), eigs)
    k = X.shape[-1]
    value, pullback = jax.vjp(lambda bb, s: f(bb, s)[0], b, X)
    grad = np.asarray(pullback(jnp.ones_like(value))[1])
    assert np.all(np.isfinite(grad))
    np.testing.assert_allclose(grad, np.swapaxes(grad, -1, -2), atol=1e-15)
    rng = np.random.default_rng(0)
    v = rng.normal(size=(len(X), k, 2))
    direction = v @ np.swapaxes(v, -1, -2)  # PSD: X + h D stays in the domain at zero eigenvalues
    h = 1e-4
    f0, f1, f2 = (np.asarray(f(b, X + t * direction)[0]) for t in (0.0, h, 2 * h))
    fd = (-3 * f0 + 4 * f1 - f2) / (2 * h)
    got = np.sum(grad * direction, axis=(-2, -1))
    assert np.all(np.abs(got - fd) <= 1e-6 * np.maximum(1.0, np.abs(fd))), (got, fd)


def test_gradient_at_repeated_and_zero_eigenvalues_k3():
    # repeated (3, 3) with a zero, X = 0, all three equal, a zero eigenvalue.
    eigs = [[3.0, 3.0, 0.0], [0.0, 0.0, 0.0], [2.0, 2.0, 2.0], [5.0, 1.0, 0.0]]
    check_gradient_against_finite_differences(eigs, B3, LOG_HYP0F1_MATRIX_JIT)


@pytest.mark.slow
def test_gradient_at_repeated_and_zero_eigenvalues_k2():
    check_gradient_against_finite_differences(
        [[2.0, 2.0], [0.0, 0.0], [5.0, 0.0], [40.0, 40.0]],
        np.array([1.5, 1.5, 0.75, 3.0]),
        jax.jit(lambda b, s: fs.log_hyp0f1_matrix(b, s, return_error=True)),
    )


def test_jit_matches_eager_and_out_of_range_b_is_nan_inside_jit():
    X = rotated(
        jax.random.key(3), [[4.0, 1.5, 0.3], [9.0, 2.0, 0.5], [1.0, 1.0, 0.0], [2.0, 1.0, 0.0]]
    )
    b = np.array([2.5, 10.0, 1.5, 1.0])  # b = 1 = (k - 1)/2 is out of range
    eager = fs.log_hyp0f1_matrix(b[:3], X[:3])
    jitted, error = LOG_HYP0F1_MATRIX_JIT(b, X)
    np.testing.assert_allclose(jitted[:3], eager, rtol=1e-13)
    assert np.all(error[:3] < 1e-10)
    assert np.isnan(jitted[3]) and np.isnan(error[3])


def test_float32_sanity():
    x = np.array([[4.0, 1.5, 0.3], [9.0, 2.0, 0.5], [30.0, 30.0, 0.0]])
    b = np.array([2.5, 10.0, 1.5])
    got = fs.log_hyp0f1_eigs(b.astype(np.float32), x.astype(np.float32))
    assert got.dtype == jnp.float32
    want = fs.log_hyp0f1_eigs(b, x)
    np.testing.assert_allclose(got, want, rtol=64 * np.finfo(np.float32).eps)


def test_reported_error_bounds_truncation_k3(evaluated):
    # |κ| ≤ 16 against the fixture batch evaluated at |κ| ≤ 64 (one more compilation only).
    k, b, x, _, value, error = evaluated
    if k != 3:
        pytest.skip("k = 3 only")
    small, bound = _log_hyp0f1_eigs(b, x, 16)
    assert np.all(np.abs(value - small) <= bound + error)
    assert np.max(np.abs(value - small)) > 1e-3  # really truncated


@pytest.mark.slow
def test_reported_error_bounds_truncation_k2_16_vs_80_terms():
    x2 = np.array([[300.0, 100.0], [60.0, 60.0], [5.0, 0.0]])
    b2 = np.array([1.5, 2.5, 0.75])
    small, bound = _log_hyp0f1_eigs(b2, x2, 16)
    large = _log_hyp0f1_eigs(b2, x2, 80)[0]
    assert np.all(np.abs(large - small) <= bound)
    assert bound.max() > 1e-8


@pytest.mark.parametrize(
    "f,args,match",
    [
        (fs.log_hyp0f1_matrix, (1.5, np.ones((2, 3))), "'X' must be a square"),
        (fs.log_hyp0f1_matrix, (1.5, np.array([[1.0, 0.5], [0.0, 1.0]])), "'X' must be symmetric"),
        (
            fs.log_hyp0f1_matrix,
            (1.5, np.array([[1.0, 2.0], [2.0, 1.0]])),
            "'X' must be positive semi-definite",
        ),
        (fs.log_hyp0f1_matrix, (0.5, np.eye(2)), "'b' must be > 0.5"),
        (fs.log_hyp0f1_matrix, (1.0, np.eye(3)), "'b' must be > 1"),
        (fs.log_hyp0f1_matrix, (0.25, np.eye(1)), "'b' must be >= 0.5"),
        (fs.log_hyp0f1_eigs, (2.5, [1.0, -0.1, 0.0]), "'eigenvalues' must be >= 0"),
        (fs.log_hyp0f1_eigs, (2.5, 3.0), "'eigenvalues' must have a last axis"),
    ],
)
def test_bad_concrete_input_raises(f, args, match):
    with pytest.raises(ValueError, match=match):
        f(*args)

"""log ₀F₁(; b; X) of a matrix argument: mpmath fixtures, invariances, gradients, bad input.

The fixture ``fixtures/hyp0f1_matrix.json`` is made by ``fixtures/make_hyp0f1_matrix_fixtures.py``
(40-digit mpmath, an independent Koev–Edelman implementation and the k = 2 closed series).
Evaluations are batched per k so that each shape compiles once.
"""

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.test_util import check_grads

import fisherrdp.special as fs
from fisherrdp._src.special.hyp0f1_matrix import _log_hyp0f1_eigs

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


def test_matches_mpmath_to_1e_10_relative(evaluated):
    k, b, _, want, value, error = evaluated
    # Relative error of ₀F₁ itself: |exp(log_got − log_want) − 1|.
    rel = np.abs(np.expm1(value - want))
    print(
        f"k = {k}: {len(b)} points, worst relative error of 0F1 {rel.max():.2e}, "
        f"largest reported bound {error.max():.2e}"
    )
    assert rel.max() <= 1e-10
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
def test_reported_error_bounds_truncation_k2():
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

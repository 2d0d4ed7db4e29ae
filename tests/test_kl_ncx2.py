"""kl_ncx2 (KL(χ²_d(a²) ‖ χ²_d(b²))) against 60-digit mpmath (tests/fixtures/kl_ncx2.json),
regime by regime, and its properties: KL = 0 at a = b, KL ≤ (a−b)²/2 (post-processing), the
local expansion I(d, b)(a−b)²/2, the limit α → 1 of renyi_ncx2, renyi_ncx2(1, ...) = kl_ncx2,
jit, gradients and input checks.

Compile time dominates: every kl value comes from ONE call (fixed shape), the renyi values
from scalar calls (the one-point program of renyi_ncx2's docstring)."""

import functools
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from fisherrdp.divergences import kl_ncx2, renyi_ncx2
from fisherrdp.fisher import ncx2_amplitude_fisher

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "kl_ncx2.json")) as fh:
    ROWS = [(r["d"], r["a"], r["b"], r["kl"]) for r in json.load(fh)]


def regime(d, a, b):
    if a != b and abs(a - b) <= 1e-5 * max(a, b):
        return "a_near_b"
    if a == 0 or b == 0:
        return "a_or_b_zero"
    return "moderate"


REGIMES = ["a_near_b", "a_or_b_zero", "moderate"]
EQUAL = [(5.0, 1.0, 1.0), (1.0, 0.0, 0.0), (1e4, 100.0, 100.0)]
# Prop. 3.1 at α → 1: KL(b + h ‖ b) = I(d, b) h²/2 (1 + c h + O(h²)).
LOCAL = [(5.0, 1.0), (50.0, 0.5), (1.0, 10.0), (1000.0, 20.0)]
LOCAL_DELTAS = (1e-5, 2e-5)
# (d, a, b): α → 1 limit of renyi_ncx2.
LIMIT = [(50.0, 1.0, 0.5), (5.0, 1.0 + 1e-6, 1.0), (1.0, 2.0, 10.0), (100.0, 10.0, 0.0)]


@functools.cache
def batch():
    """Fixture rows, a = b and the local expansion, in one call."""
    pts = [r[:3] for r in ROWS] + EQUAL
    pts += [(d, b + h, b) for h in LOCAL_DELTAS for d, b in LOCAL]
    pts += LIMIT
    arr = np.array(pts)
    values = np.asarray(kl_ncx2(arr[:, 0], arr[:, 1], arr[:, 2]))
    n = len(ROWS)
    k = n + len(EQUAL)
    return {
        "rows": values[:n],
        "equal": values[n:k],
        "local": values[k : k + 2 * len(LOCAL)].reshape(2, len(LOCAL)),
        "limit": values[k + 2 * len(LOCAL) :],
        "all": (arr, values),
    }


def test_fixture_covers_the_regimes():
    assert len(ROWS) >= 30
    for name in REGIMES:
        assert any(regime(*r[:3]) == name for r in ROWS)
    d = np.array([r[0] for r in ROWS])
    assert d.min() == 1 and d.max() == 1e4


@pytest.mark.parametrize("name", REGIMES)
def test_against_mpmath_by_regime(name, accuracy):
    values = batch()["rows"]
    idx = [i for i, r in enumerate(ROWS) if regime(*r[:3]) == name]
    ref = np.array([ROWS[i][3] for i in idx])
    accuracy.check(f"kl_ncx2/{name}", np.abs(values[idx] - ref) / ref,
                   where=[ROWS[i][:3] for i in idx])


def test_zero_at_equal_amplitudes_and_below_post_processing_bound():
    arr, values = batch()["all"]
    assert np.all(batch()["equal"] == 0.0)
    assert np.all(np.isfinite(values)) and np.all(values >= 0.0)
    bound = (arr[:, 1] - arr[:, 2]) ** 2 / 2
    assert np.all(values <= bound * (1 + 1e-12))
    # Far from the origin at d = 1 the law is nearly the folded Gaussian: KL is close to it.
    far = [i for i, r in enumerate(ROWS) if r[:3] == (1, 100.0, 10.0)]
    assert far and values[far[0]] == pytest.approx(bound[far[0]], rel=1e-6)


def test_local_expansion():
    """The ratio to I(d, b)h²/2 tends to 1 at rate h: its deviation doubles with h."""
    local = batch()["local"]
    d, b = np.array(LOCAL).T
    fisher = np.asarray(ncx2_amplitude_fisher(d, b))
    h = np.array(LOCAL_DELTAS)[:, None]
    deviation = local / (fisher * h**2 / 2) - 1
    assert np.all(np.abs(deviation) <= 10 * h), deviation
    resolved = np.abs(deviation[0]) > 1e-9
    assert resolved.sum() >= 3
    np.testing.assert_allclose(deviation[1][resolved] / deviation[0][resolved], 2.0, rtol=1e-3)


def test_renyi_tends_to_kl_and_alpha_one_gives_kl():
    """D_α = KL + (α − 1) Var_a(L)/2 + O((α−1)²): at α = 1 + 1e-6 above KL by ~1e-6·Var/KL
    relative; and renyi_ncx2(1, ...) is kl_ncx2, bit for bit (at α = 1 renyi_ncx2 computes the KL
    on its own nodes, which are kl_ncx2's)."""
    for (d, a, b), kl in zip(LIMIT, batch()["limit"]):
        near = float(renyi_ncx2(1.0 + 1e-6, d, a, b))
        assert near > kl and (near - kl) / kl < 1e-5, (d, a, b, kl, near)
    arr, values = batch()["all"]
    np.testing.assert_array_equal(np.asarray(renyi_ncx2(1.0, *arr.T)), values)


@pytest.mark.slow
def test_renyi_at_alpha_one_is_kl_elementwise_and_under_jit():
    alpha = np.array([1.0, 2.0, 1.0])
    d, a, b = np.array([5.0, 5.0, 50.0]), np.array([2.0, 2.0, 1.0]), np.array([1.0, 1.0, 0.5])
    out = np.asarray(renyi_ncx2(alpha, d, a, b))
    np.testing.assert_array_equal(out[[0, 2]], np.asarray(kl_ncx2(d, a, b))[[0, 2]])
    assert out[1] == float(renyi_ncx2(2.0, 5.0, 2.0, 1.0))
    assert float(jax.jit(renyi_ncx2)(1.0, 5.0, 2.0, 1.0)) == float(kl_ncx2(5.0, 2.0, 1.0))


def test_invalid_inputs_raise():
    with pytest.raises(ValueError, match="'d'"):
        kl_ncx2(0.5, 1.0, 1.0)
    with pytest.raises(ValueError, match="'a'"):
        kl_ncx2(5.0, -1.0, 1.0)
    with pytest.raises(ValueError, match="'b'"):
        kl_ncx2(5.0, 1.0, -1.0)
    with pytest.raises(ValueError, match="'alpha'"):
        renyi_ncx2(0.99, 5.0, 1.0, 1.0)


@pytest.mark.slow
def test_jit_and_gradients_match_finite_differences():
    """Reverse-mode gradients in a and b (one vmapped program) against central differences of
    the fixture-checked values; zero at a = b; NaN for invalid entries inside jit."""
    pts = np.array([(5.0, 2.0, 1.0), (50.0, 1.0, 0.5), (1.0, 2.0, 10.0), (10.0, 1.0 + 1e-6, 1.0),
                    (5.0, 1.0, 1.0)])
    grad = jax.jit(jax.vmap(jax.grad(kl_ncx2, argnums=(1, 2))))
    grads = np.asarray(grad(*jnp.asarray(pts.T)))
    assert np.all(grads[:, -1] == 0.0)
    d, a, b = pts[:-1].T
    h = np.minimum(1e-5 * a, 1e-2 * np.abs(a - b))  # FD error ~h²/|a − b| relative
    shifted = np.concatenate([np.stack([d, a + h, b]), np.stack([d, a - h, b]),
                              np.stack([d, a, b + h]), np.stack([d, a, b - h])], axis=1)
    v = np.asarray(kl_ncx2(*shifted)).reshape(4, -1)
    fd = np.stack([(v[0] - v[1]) / (2 * h), (v[2] - v[3]) / (2 * h)])
    np.testing.assert_allclose(grads[:, :-1], fd, rtol=1e-5)
    bad = np.asarray(jax.jit(kl_ncx2)(jnp.array([0.5, 5.0]), jnp.array([1.0, -1.0]), 1.0))
    assert np.all(np.isnan(bad))

"""The cancellation-free primitives of fisherrdp._src.numerics.cancellation, per dtype.

``log1p_minus_x`` against 40-digit mpmath (tests/fixtures/log1p_minus_x.json, made by
make_log1p_minus_x_fixtures.py: 346 points from |u| = 1e-8 to 1e6 and down to u = −1 + 1e-6);
``compensated_sum`` against exact rational sums of float32 and float64 terms.
"""

import json
from fractions import Fraction
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from fisherrdp._src.numerics.cancellation import compensated_sum, log1p_minus_x

ROWS = json.loads((Path(__file__).parent / "fixtures" / "log1p_minus_x.json").read_text())["rows"]

# Relative error in units of the dtype's eps: measured 1.7 (float32) and 1.3 (float64), across
# the series' edge |u| = 1/2 and near u = -1.
LOG1P_MINUS_X_EPS = 8.0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_log1p_minus_x_matches_mpmath(dtype):
    u = np.array([r["u"] for r in ROWS])
    want = np.array([r["value"] for r in ROWS])
    got = np.asarray(log1p_minus_x(jnp.asarray(u, dtype)), np.float64)
    rel = np.abs(got - want) / np.abs(want)
    assert rel.max() <= LOG1P_MINUS_X_EPS * np.finfo(dtype).eps, u[np.argmax(rel)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_compensated_sum_is_nearly_exact(dtype):
    # Four terms of mixed signs and magnitudes that cancel to a small result, as the χ²
    # log-density's x − df + 2 − λ does. Sum2's bound (Ogita, Rump, Oishi 2005):
    # |result − exact| <= eps |exact| + (3 eps)² Σ|terms|, in units of the unit roundoff eps.
    rng = np.random.default_rng(7)
    eps = float(np.finfo(dtype).eps) / 2
    x = rng.uniform(1.0, 1e4, 200).astype(dtype)
    df = (x * rng.uniform(0.3, 0.9, 200)).astype(dtype)
    nc = (x - df + 2.0 + rng.normal(0.0, 30.0, 200)).astype(dtype)
    two = np.full(200, 2.0, dtype)
    terms = (x, -df, two, -nc)
    got = np.asarray(compensated_sum(*(jnp.asarray(t) for t in terms)), np.float64)
    exact = np.array([float(sum(Fraction(float(t[i])) for t in terms)) for i in range(200)])
    bound = eps * np.abs(exact) + (3 * eps) ** 2 * sum(np.abs(t.astype(np.float64)) for t in terms)
    assert np.all(np.abs(got - exact) <= bound)
    # The plain sum of the same terms does not meet it (so the test can tell the two apart).
    naive = np.asarray(((x - df) + two) - nc, np.float64)
    assert np.any(np.abs(naive - exact) > bound)


def test_compensated_sum_derivative_is_the_sum_of_tangents():
    grads = jax.grad(lambda *t: compensated_sum(*t), argnums=(0, 1, 2))(1e4, -9876.5, 0.1)
    assert [float(g) for g in grads] == [1.0, 1.0, 1.0]

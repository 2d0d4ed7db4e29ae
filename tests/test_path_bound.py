"""The numerical path bound of Prop 3.2 (fisherrdp.bounds.path_bound_ncx2)."""

import json
import os

import jax
import numpy as np
import pytest
import scipy.integrate

from fisherrdp import bounds
from fisherrdp.fisher import ncx2_amplitude_fisher

HERE = os.path.dirname(os.path.abspath(__file__))

# Exact D_α(χ²_d(a²) ‖ χ²_d(b²)) at mpmath precision: tests/fixtures/refs/renyi_ncx2.json (a copy
# of the project's public reference set) and ``docs/math/ncx2.md``.
EXACT = [
    (2.0, 8.0, 1.5, 1.0, 0.07628727361294582),
    (10.0, 60.0, 2.0, 1.9, 0.005813801328168586),
    (3.0, 400.0, 4.0, 3.5, 0.024969419151179666),
    (2.0, 50.0, 1.0, 0.5, 0.005568),
]

# A grid over the regimes: small and large d, both directions, small to large κ = (α−1)(2α−1)δ²/2.
ALPHA, D, A, B = (
    np.array(col, dtype=float)
    for col in zip(
        *[
            (alpha, d, a, b)
            for alpha in (1.25, 2.0, 16.0, 256.0)
            for d in (1.0, 10.0, 1e4)
            for a, b in ((1.0, 0.5), (0.5, 1.0), (0.0, 2.0), (100.0, 98.0), (3.0, 3.0 + 1e-6))
        ]
    )
)

# Paths with known answers, evaluated together with the grid in one compiled call.
QUAD_CASES = [
    (2.0, 10.0, 1.0, 0.5),
    (16.0, 1.0, 0.0, 2.0),
    (1.25, 1e4, 100.0, 98.0),
    (4.0, 3.0, 0.5, 1.0),
]
STEPS = np.linspace(0.0, 2.0, 64)
SMALL_STEP = (3.0, 20.0, 2.0 + 1e-7, 2.0)


def _shared_rows():
    with open(os.path.join(HERE, "fixtures", "refs", "renyi_ncx2.json")) as fh:
        return [(r["alpha"], r["d"], r["a"], r["b"], r["renyi"]) for r in json.load(fh)]


SHARED = _shared_rows()
BATCHES = {
    "exact": [row[:4] for row in EXACT],
    "shared": [row[:4] for row in SHARED],
    "grid": list(zip(ALPHA, D, A, B)),
    "quad": QUAD_CASES,
    "steps": [(2.0, 10.0, 1.0 + s, 1.0) for s in STEPS],
    "small": [SMALL_STEP, SMALL_STEP[:2] + (2.0, 2.0)],
}


@pytest.fixture(scope="module")
def batch():
    """Value and error estimate of every path above, from one compiled call."""
    rows = [row for name in BATCHES for row in BATCHES[name]]
    value, error = bounds.path_bound_ncx2(
        *(np.array(c, dtype=float) for c in zip(*rows)), return_error=True
    )
    out, start = {}, 0
    for name, group in BATCHES.items():
        out[name] = (
            np.asarray(value[start : start + len(group)]),
            np.asarray(error[start : start + len(group)]),
        )
        start += len(group)
    return out


def test_path_bound_is_above_the_exact_divergence(batch):
    exact = np.array([row[4] for row in EXACT])
    value = batch["exact"][0]
    assert (value >= exact).all(), (value, exact)


def test_path_bound_is_above_the_shared_references(batch):
    assert (batch["shared"][0] >= np.array([row[4] for row in SHARED])).all()


def test_path_bound_never_exceeds_theorem52(batch):
    # Theorem 5.2 (re-derived) replaces √I(z) by its sup over ‖·‖ ≤ C = max(a, b) and bounds the
    # remaining integral from above, so it can only be larger.
    value, _ = batch["grid"]
    thm52 = np.asarray(bounds.theorem52_bound(ALPHA, D, np.maximum(A, B), np.abs(A - B)))
    assert (value <= thm52 * (1 + 1e-12)).all()
    assert np.isfinite(value).all() and (value >= 0).all()


_fisher_jit = jax.jit(ncx2_amplitude_fisher)


def _reference_bound(alpha, d, a, b):
    """The bound with J from scipy.integrate.quad over the exact Fisher information (~1e-13).

    The integrand is scaled by e^{-κ}, κ = (α−1)(2α−1)(a−b)²/2, so that it cannot overflow.
    """
    rate = 0.5 * (alpha - 1) * (2 * alpha - 1)
    kappa = rate * (a - b) ** 2

    def integrand(z):
        return np.sqrt(float(_fisher_jit(d, z))) * np.exp(rate * (z - b) ** 2 - kappa)

    lo, hi = min(a, b), max(a, b)
    scaled, _ = scipy.integrate.quad(integrand, lo, hi, epsabs=0, epsrel=1e-13, limit=200)
    return np.logaddexp(0.0, np.log(alpha) + np.log(scaled) + kappa) / (alpha - 1)


@pytest.mark.parametrize("case", range(len(QUAD_CASES)))
def test_path_bound_matches_quad_and_its_error_estimate_is_honest(batch, case):
    reference = _reference_bound(*QUAD_CASES[case])
    assert np.isfinite(reference)
    value, error = (float(v[case]) for v in batch["quad"])
    assert abs(value - reference) <= max(error, 1e-14 * reference)
    assert error <= 1e-9 * reference


def test_small_step_limit_is_the_fisher_slope(batch):
    # J ≈ √I(b) δ as δ → 0, so the bound → α √I(b) δ/(α − 1).
    alpha, d, a, b = SMALL_STEP
    value, at_zero = batch["small"][0]
    slope = alpha * np.sqrt(float(_fisher_jit(d, b))) * (a - b) / (alpha - 1)
    np.testing.assert_allclose(value, slope, rtol=1e-6)
    assert at_zero == 0.0


def test_path_bound_increases_with_the_step(batch):
    # Along a fixed start b the integrand is positive, so the bound grows with |a − b|. (It is not
    # monotone in α: log(1 + αJ)/(α − 1) blows up as α → 1.)
    value = batch["steps"][0]
    assert value[0] == 0.0 and (np.diff(value) > 0).all()


def test_path_bound_gradient_in_a_matches_finite_differences():
    f = jax.jit(lambda a: bounds.path_bound_ncx2(2.0, 10.0, a, 1.0))
    g = float(jax.grad(f)(1.5))
    h = 1e-5
    fd = (float(f(1.5 + h)) - float(f(1.5 - h))) / (2 * h)
    np.testing.assert_allclose(g, fd, rtol=1e-7)


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"alpha": 1.0, "d": 5.0, "a": 1.0, "b": 0.5}, "alpha"),
        ({"alpha": 2.0, "d": 0.5, "a": 1.0, "b": 0.5}, "d"),
        ({"alpha": 2.0, "d": 5.0, "a": -1.0, "b": 0.5}, "a"),
        ({"alpha": 2.0, "d": 5.0, "a": 1.0, "b": -0.5}, "b"),
    ],
)
def test_bad_input_raises(kwargs, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        bounds.path_bound_ncx2(kwargs["alpha"], kwargs["d"], kwargs["a"], kwargs["b"])

"""Tests for the paper's closed-form bounds (fisherrdp._src.bounds).

Reference values are computed independently: the closed forms are re-typed in mpmath (50
digits) straight from the formulas of the paper / MATH.md, and the exact Fisher information
I(d, θ) of θ ↦ χ²_d(θ²) is tabulated from a scipy quadrature of E[s²] with the score
s(y; θ) = √y·R_{d/2-1}(θ√y) − θ (see ``_fisher_exact_scipy``; it reproduces MATH.md's three
mpmath values to 1e-10).
"""

from __future__ import annotations


import jax
import jax.numpy as jnp
import mpmath
import numpy as np
import pytest
import scipy.integrate
import scipy.special
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from fisherrdp._src import bounds as B
from fisherrdp._src import validation

mpmath.mp.dps = 50
MPF = mpmath.mpf

# ----------------------------------------------------------------------------------------------
# Independent references.


def _mp_lower(d, t):
    d, t = MPF(d), MPF(t)
    return 2 * t**2 / (2 * t**2 + d)


def _mp_upper51(d, t):
    d, t = MPF(d), MPF(t)
    return 2 * t**2 / (2 * t**2 + d - 3) if d > 3 else MPF(1)


def _mp_quadratic(d, t):
    d, t = MPF(d), MPF(t)
    a = t**2 + (d - 3) / 2
    return (mpmath.sqrt(a**2 + 4 * t**2) - a) / 2


def _mp_idier(d, t):
    return min(MPF(1), 2 * MPF(t) ** 2 / MPF(d))


def _mp_poincare(d, t):
    d, t = MPF(d), MPF(t)
    return 2 * t**2 * (t**2 + 2 * d) / (2 * d**2 + t**2 * (t**2 + 2 * d))


def _mp_theorem52(alpha, d, C, delta, variant):
    alpha, C, delta = MPF(alpha), MPF(C), MPF(delta)
    ic = _mp_upper51(d, C)
    e = mpmath.exp((alpha - 1) * (2 * alpha - 1) * delta**2 / 2) - 1
    den = (alpha - 1) * (2 * alpha - 1) * delta
    if variant == "rederived":
        f = 1 + alpha * mpmath.sqrt(ic) * 2 * e / den
    else:
        f = 1 + alpha * ic * e / den
    return mpmath.log(f) / (alpha - 1)


def _mp_prop32_integral(alpha, fisher_sup, delta):
    """Prop. 3.2 with √I ≤ √fisher_sup, U = (2α−1)t²/2, integral done exactly (no exprel bound)."""
    alpha = MPF(alpha)
    s = (alpha - 1) * (2 * alpha - 1) / 2
    integral = mpmath.sqrt(fisher_sup) * mpmath.quad(lambda t: mpmath.exp(s * t**2), [0, delta])
    return mpmath.log(1 + alpha * integral) / (alpha - 1)


def _fisher_exact_scipy(d, theta):
    """I(d, θ) = E[s²] by scipy quadrature (used to build FISHER_TABLE; slow, ~0.2 s)."""
    dist = scipy.stats.ncx2(df=d, nc=theta**2)

    def integrand(y):
        z = theta * np.sqrt(y)
        ratio = scipy.special.ive(d / 2, z) / scipy.special.ive(d / 2 - 1, z)
        return (np.sqrt(y) * ratio - theta) ** 2 * dist.pdf(y)

    lo, hi, mid = dist.ppf(1e-15), dist.isf(1e-15), dist.mean()
    kw = dict(limit=400, epsabs=0, epsrel=1e-11)
    left = scipy.integrate.quad(integrand, lo, mid, **kw)[0]
    return left + scipy.integrate.quad(integrand, mid, hi, **kw)[0]


# (d, θ, I(d, θ)) from _fisher_exact_scipy, 12 significant digits.
FISHER_TABLE = [
    (4, 0.2, 0.0196090755106),
    (4, 1.0, 0.337913308183),
    (4, 2.0, 0.690053043206),
    (4, 5.0, 0.941253206803),
    (4, 20.0, 0.996254699285),
    (5, 0.2, 0.0157485807878),
    (5, 1.0, 0.288269030759),
    (5, 2.0, 0.632085539561),
    (5, 5.0, 0.923266800726),
    (5, 20.0, 0.995012515664),
    (10, 0.2, 0.00793654926647),
    (10, 1.0, 0.166993460754),
    (10, 2.0, 0.448908131266),
    (10, 5.0, 0.843168142352),
    (10, 20.0, 0.988847944863),
    (50, 0.2, 0.00159744416772),
    (50, 1.0, 0.0384625907828),
    (50, 2.0, 0.137974662766),
    (50, 5.0, 0.501234092687),
    (50, 20.0, 0.942159989855),
    (200, 0.2, 0.000399840064291),
    (200, 1.0, 0.00990099485636),
    (200, 2.0, 0.0384618093078),
    (200, 5.0, 0.200031730587),
    (200, 20.0, 0.800512449524),
    (1, 0.3, 0.153589720389),
    (2, 1.0, 0.521446920734),
    (3, 0.5, 0.143370049887),
    (3.5, 2.0, 0.723725018274),
    (10, 1.5, 0.312152050254),
]

FISHER_FUNCS = {
    "lower": (B.fisher_lower_prop51, _mp_lower),
    "upper51": (B.fisher_upper_prop51, _mp_upper51),
    "quadratic": (B.fisher_upper_quadratic, _mp_quadratic),
    "idier": (B.fisher_upper_idier_collewet, _mp_idier),
    "poincare": (B.fisher_upper_poincare, lambda d, t: min(MPF(1), _mp_poincare(d, t))),
}
UPPER_NAMES = ["upper51", "quadratic", "idier", "poincare"]

SPOT_POINTS = [(1, 0.3), (2, 0.0), (3, 1.5), (3.5, 0.7), (4, 0.2), (4, 20.0), (10, 1.5), (50, 1.0),
               (200, 20.0), (1e6, 3.0), (7, 1e-8), (7, 1e8)]


def _close(actual, expected, rtol=1e-13, atol=0.0):
    np.testing.assert_allclose(float(actual), float(expected), rtol=rtol, atol=atol)


# ----------------------------------------------------------------------------------------------
# Spot values.


@pytest.mark.parametrize("name", list(FISHER_FUNCS))
@pytest.mark.parametrize("d,theta", SPOT_POINTS)
def test_fisher_bound_spot_values(name, d, theta):
    func, ref = FISHER_FUNCS[name]
    _close(func(d, theta), ref(d, theta), atol=1e-300)


def test_fisher_bounds_by_hand():
    # d = 10, θ = 1.5: 4.5/14.5, 4.5/11.5, Idier 4.5/10.
    _close(B.fisher_lower_prop51(10, 1.5), 4.5 / 14.5)
    _close(B.fisher_upper_prop51(10, 1.5), 4.5 / 11.5)
    _close(B.fisher_upper_idier_collewet(10, 1.5), 0.45)
    # Quadratic with d = 3: a = θ², root = (√(θ⁴+4θ²) − θ²)/2; θ = 1: (√5 − 1)/2.
    _close(B.fisher_upper_quadratic(3, 1.0), (np.sqrt(5) - 1) / 2)
    # Poincaré, d = 1, θ = 1: 2·3/(2+3) = 1.2 raw, 1 clipped.
    _close(B.fisher_upper_poincare(1, 1.0, clip=False), 1.2)
    _close(B.fisher_upper_poincare(1, 1.0), 1.0)
    # d ≤ 3: trivial bound.
    assert float(B.fisher_upper_prop51(3, 0.0)) == 1.0
    assert float(B.fisher_upper_prop51(2.5, 5.0)) == 1.0
    assert B.fisher_upper_trivial(jnp.ones((2, 1)), jnp.ones(3)).shape == (2, 3)


def test_fisher_bounds_extremes():
    assert float(B.fisher_lower_prop51(5, 0.0)) == 0.0
    assert float(B.fisher_upper_quadratic(3, 0.0)) == 0.0  # a = 0 and θ = 0: no 0/0
    assert float(B.fisher_upper_quadratic(5, 0.0)) == 0.0
    for func in (B.fisher_lower_prop51, B.fisher_upper_prop51, B.fisher_upper_poincare):
        assert float(func(5, 1e200)) == 1.0  # θ² overflows: exact limit
    _close(B.fisher_upper_poincare(5, 1e200, clip=False), 2.0)


def test_fisher_exact_reference_reproduces_math_md():
    # MATH.md §2 (mpmath): I(1, 0.3), I(10, 1.5), I(200, 20).
    math_md = [(1, 0.3, 0.1535897204), (10, 1.5, 0.3121520503), (200, 20.0, 0.8005124495)]
    for d, theta, expected in math_md:
        _close(_fisher_exact_scipy(d, theta), expected, rtol=1e-9)


def test_renyi_spot_values():
    _close(B.gaussian_renyi(2.0, 0.5), 0.25)
    _close(B.gaussian_renyi(3.5, 2.0), 7.0)
    _close(B.local_expansion_prop31(2.0, 0.3, 0.1), 0.003)
    _close(B.path_bound_from_integral(2.0, 0.1), np.log(1.2))
    _close(B.path_bound_from_integral(3.0, 0.0), 0.0)
    _close(B.postprocessing_envelope(3.0, 1.5, 1.0), 0.375)
    _close(B.postprocessing_envelope(3.0, 1.0, 1.5), 0.375)
    lo, hi = B.theorem51_envelope(50, 1.0, 2.0)
    _close(lo, 2 / 52)
    _close(hi, 8 / 55)
    lo, hi = B.theorem51_envelope(jnp.array([3.0, 10.0]), 0.0, 1.0)
    np.testing.assert_array_equal(np.asarray(lo), [0.0, 0.0])
    np.testing.assert_allclose(np.asarray(hi), [1.0, 2 / 9], rtol=1e-15)


THEOREM52_POINTS = [
    (2.0, 50, 1.0, 0.5),
    (2.0, 50, 2.0, 1.0),
    (1.5, 10, 1.0, 0.3),
    (1.001, 100, 0.5, 0.01),
    (5.0, 1000, 2.0, 0.2),
    (10.0, 4, 20.0, 2.0),
    (32.0, 200, 1.0, 1e-6),
    (2.0, 3, 1.0, 0.5),  # d ≤ 3: I_C = 1
    (2.0, 1e6, 1.0, 3.0),
]


@pytest.mark.parametrize("variant", ["rederived", "printed"])
@pytest.mark.parametrize("alpha,d,C,delta", THEOREM52_POINTS)
def test_theorem52_spot_values(alpha, d, C, delta, variant):
    _close(B.theorem52_bound(alpha, d, C, delta, variant=variant),
           _mp_theorem52(alpha, d, C, delta, variant), rtol=1e-12)


def test_theorem52_large_arguments_do_not_overflow():
    # e^{(α−1)(2α−1)δ²/2} overflows float64 here; compare with mpmath.
    for variant in ("rederived", "printed"):
        value = B.theorem52_bound(100.0, 50, 1.0, 10.0, variant=variant)
        assert np.isfinite(float(value))
        _close(value, _mp_theorem52(100.0, 50, 1.0, 10.0, variant), rtol=1e-12)


def test_theorem52_zero_cases():
    assert float(B.theorem52_bound(2.0, 50, 1.0, 0.0)) == 0.0
    assert float(B.theorem52_bound(2.0, 50, 0.0, 1.0)) == 0.0
    assert float(B.theorem52_bound(2.0, 50, 0.0, 1.0, variant="printed")) == 0.0


def test_theorem52_closed_form_dominates_exact_integral():
    # The closed form uses ∫_0^x e^{st²}dt ≤ (e^{sx²}−1)/(sx); the exact integral must be smaller.
    for alpha, d, C, delta in THEOREM52_POINTS[:6]:
        exact = _mp_prop32_integral(alpha, _mp_upper51(d, C), MPF(delta))
        closed = float(B.theorem52_bound(alpha, d, C, delta))
        assert closed >= float(exact) * (1 - 1e-13)
        # and agree to leading order when sδ² is small
        if (alpha - 1) * (2 * alpha - 1) * delta**2 < 1e-3:
            _close(closed, exact, rtol=1e-3)


def test_theorem54_reduces_to_theorem52():
    for variant in ("rederived", "printed"):
        _close(B.theorem54_bound(2.0, 100, 2, 1.0, 0.5, variant=variant),
               B.theorem52_bound(2.0, 50, 1.0, 0.5, variant=variant), rtol=1e-15)
        # ⌊101/2⌋ = 50, ⌊7/3⌋ = 2 ≤ 3 (trivial Fisher bound), k = 1 equals Theorem 5.2.
        _close(B.theorem54_bound(2.0, 101, 2, 1.0, 0.5, variant=variant),
               B.theorem52_bound(2.0, 50, 1.0, 0.5, variant=variant), rtol=1e-15)
        _close(B.theorem54_bound(2.0, 7, 3, 1.0, 0.5, variant=variant),
               _mp_theorem52(2.0, 2, 1.0, 0.5, variant), rtol=1e-12)
        _close(B.theorem54_bound(3.0, 37, 1, 2.0, 0.4, variant=variant),
               B.theorem52_bound(3.0, 37, 2.0, 0.4, variant=variant), rtol=1e-15)


def test_theorem53_spot_values():
    _close(B.theorem53_fisher_bound(0.25, 1.0, 10), 0.25 * 2 / 9)
    _close(B.theorem53_fisher_bound(0.25, 1.0, 10, variant="printed"), 0.25 * 1 / 8)
    _close(B.theorem53_fisher_bound(0.25, 1.0, 3), 0.25)
    _close(B.theorem53_fisher_bound(0.25, 1.0, 3, variant="printed"), 0.25)
    _close(B.theorem53_fisher_bound(2.0, 0.0, 10), 0.0)
    # k = 1 consistency: the path bound with ‖Uw − v‖ = 1 is the Prop. 5.1 bound at ρ.
    _close(B.theorem53_fisher_bound(1.0, 1.7, 40), B.fisher_upper_prop51(40, 1.7), rtol=1e-15)


# ----------------------------------------------------------------------------------------------
# Properties.


@pytest.mark.parametrize("d,theta,fisher", FISHER_TABLE)
def test_bounds_bracket_exact_fisher_information(d, theta, fisher):
    # Lower bound is extremely tight for small θ/d (relative gap ~1e-9 at d = 200, θ = 0.2).
    assert float(B.fisher_lower_prop51(d, theta)) <= fisher * (1 + 1e-9)
    for name in UPPER_NAMES:
        assert float(FISHER_FUNCS[name][0](d, theta)) >= fisher * (1 - 1e-9), name
    assert float(B.fisher_upper_poincare(d, theta, clip=False)) >= fisher * (1 - 1e-9)


D_GRID = jnp.asarray(np.concatenate([np.arange(4, 21), np.geomspace(21, 200, 30)]))[:, None]
THETA_GRID = jnp.asarray(np.geomspace(0.2, 20, 60))[None, :]


def test_bound_orderings_on_grid():
    lower = B.fisher_lower_prop51(D_GRID, THETA_GRID)
    upper51 = B.fisher_upper_prop51(D_GRID, THETA_GRID)
    quadratic = B.fisher_upper_quadratic(D_GRID, THETA_GRID)
    idier = B.fisher_upper_idier_collewet(D_GRID, THETA_GRID)
    poincare = B.fisher_upper_poincare(D_GRID, THETA_GRID)
    trivial = B.fisher_upper_trivial(D_GRID, THETA_GRID)
    assert lower.shape == trivial.shape == (D_GRID.shape[0], THETA_GRID.shape[1])
    for upper in (upper51, quadratic, idier, poincare, trivial):
        assert bool(jnp.all(lower <= upper))
    assert bool(jnp.all(quadratic <= upper51 * (1 + 1e-15)))
    for bound in (lower, upper51, quadratic, idier, poincare, trivial):
        assert bool(jnp.all((bound >= 0) & (bound <= 1)))
    # App. F.3 calls the Poincaré bound worse than Prop. 5.1; that holds for θ ≳ 1.47 on this
    # grid, but for small θ it is the better one (≈ 2θ²/d against 2θ²/(d − 3)).
    assert bool(jnp.all(jnp.where(THETA_GRID >= 1.5, poincare >= upper51, True)))
    assert bool(jnp.any(poincare < quadratic))
    # Paper (App. E.1): Prop. 5.1 beats Idier–Collewet for θ > 3/2 (any d ≥ 4).
    # Exactly: Prop. 5.1 ≤ Idier–Collewet ⇔ θ² ≥ 3/2 (the paper's "θ > 3/2" is sufficient), and
    # quadratic ≤ Idier–Collewet ⇔ θ² ≥ 3d/(2d + 4). The paper's "for every θ > 0, d > 6" for
    # the quadratic form does not hold: for small θ it is ≈ 2θ²/(d − 3) > 2θ²/d.
    np.testing.assert_array_equal(
        np.asarray(upper51 <= idier), np.asarray(THETA_GRID**2 >= 1.5 + 0 * D_GRID)
    )
    threshold = 3 * D_GRID / (2 * D_GRID + 4)
    np.testing.assert_array_equal(
        np.asarray(quadratic <= idier), np.asarray(THETA_GRID**2 >= threshold)
    )


def test_poincare_raw_exceeds_one_exactly_beyond_threshold():
    raw = B.fisher_upper_poincare(D_GRID, THETA_GRID, clip=False)
    beyond = THETA_GRID**2 > (np.sqrt(3) - 1) * D_GRID
    assert bool(jnp.all((raw > 1) == beyond))


@settings(max_examples=40, deadline=None)
@given(
    d=st.floats(1.0, 1e6),
    theta=st.floats(0.0, 1e3),
)
def test_bounds_in_unit_interval_and_quadratic_below_prop51(d, theta):
    lower = float(B.fisher_lower_prop51(d, theta))
    upper51 = float(B.fisher_upper_prop51(d, theta))
    quadratic = float(B.fisher_upper_quadratic(d, theta))
    for value in (lower, upper51, quadratic, float(B.fisher_upper_idier_collewet(d, theta)),
                  float(B.fisher_upper_poincare(d, theta))):
        assert 0.0 <= value <= 1.0
    assert lower <= upper51
    assert quadratic <= upper51 * (1 + 1e-14) + 1e-300


@settings(max_examples=40, deadline=None)
@given(
    alpha=st.floats(1.01, 50.0),
    d=st.floats(1.0, 1e4),
    C=st.floats(0.0, 50.0),
    delta=st.floats(0.0, 5.0),
)
def test_theorem52_printed_below_rederived(alpha, d, C, delta):
    rederived = float(B.theorem52_bound(alpha, d, C, delta))
    printed = float(B.theorem52_bound(alpha, d, C, delta, variant="printed"))
    assert np.isfinite(rederived) and np.isfinite(printed)
    assert 0.0 <= printed <= rederived * (1 + 1e-14)


DELTA_GRID = jnp.geomspace(1e-4, 1e2, 1000)  # one shape for several tests: one compilation


def test_theorem52_increasing_in_delta():
    for variant in ("rederived", "printed"):
        values = B.theorem52_bound(2.0, 50, 1.0, DELTA_GRID, variant=variant)
        assert bool(jnp.all(jnp.diff(values) > 0))


@pytest.mark.parametrize("alpha,d,C", [(2.0, 50, 1.0), (1.5, 10, 2.0), (8.0, 1000, 0.5)])
def test_theorem52_small_delta_limit(alpha, d, C):
    """As δ → 0 the re-derived bound is ≈ α√I_C δ/(α−1): linear, so ≫ the local term αI_Cδ²/2."""
    fisher_c = float(B.fisher_upper_prop51(d, C))
    slope = alpha * np.sqrt(fisher_c) / (alpha - 1)
    for delta in (1e-3, 1e-5, 1e-8, 1e-12):
        bound = float(B.theorem52_bound(alpha, d, C, delta))
        local = float(B.local_expansion_prop31(alpha, fisher_c, delta))
        assert bound >= local
        _close(bound / delta, slope, rtol=max(10 * slope * delta, 1e-12))
        printed = float(B.theorem52_bound(alpha, d, C, delta, variant="printed"))
        _close(printed / delta, alpha * fisher_c / (2 * (alpha - 1)), rtol=max(10 * delta, 1e-12))


def test_theorem52_versus_postprocessing_is_not_uniform():
    """Finding (reported, not forced): the bound beats αδ²/2 only on a window of δ.

    Small δ: the bound is O(δ) while post-processing is O(δ²). Large δ: the bound grows like
    (2α−1)δ²/2 > αδ²/2 (the envelope is D_{2α−1}). For some (α, d, C) the window is empty.
    """
    delta = DELTA_GRID
    post = B.gaussian_renyi(2.0, delta)
    bound = B.theorem52_bound(2.0, 50, 1.0, delta)
    below = np.asarray(bound < post)
    assert not below[0] and not below[-1] and below.any()
    assert bool(jnp.all(B.theorem52_bound(2.0, 50, 2.0, delta) >= post))  # empty window
    # Large-δ growth rate (2α−1)/2 per δ² for α = 2.
    big = jnp.array([30.0, 60.0])
    values = B.theorem52_bound(2.0, 50, 1.0, big)
    _close((values[1] - values[0]) / (big[1] ** 2 - big[0] ** 2), 1.5, rtol=1e-3)


# ----------------------------------------------------------------------------------------------
# JAX transformations.

ALL_CALLS = [
    (B.fisher_lower_prop51, (jnp.array([4.0, 50.0]), jnp.array([[0.2], [3.0]])), {}),
    (B.fisher_upper_prop51, (jnp.array([2.0, 50.0]), jnp.array([[0.2], [3.0]])), {}),
    (B.fisher_upper_quadratic, (jnp.array([1.0, 3.0, 50.0]), jnp.array([[0.0], [0.2], [3.0]])), {}),
    (B.fisher_upper_idier_collewet, (jnp.array([4.0, 50.0]), jnp.array([[0.2], [30.0]])), {}),
    (B.fisher_upper_poincare, (jnp.array([4.0, 50.0]), jnp.array([[0.2], [30.0]])), {}),
    (B.fisher_upper_trivial, (jnp.array([4.0, 50.0]), jnp.array([[0.2], [30.0]])), {}),
    (B.gaussian_renyi, (jnp.array([1.5, 2.0]), jnp.array([[0.0], [3.0]])), {}),
    (B.local_expansion_prop31, (2.0, jnp.array([0.1, 0.9]), jnp.array([[0.0], [3.0]])), {}),
    (B.path_bound_from_integral, (jnp.array([1.5, 2.0]), jnp.array([[0.0], [3.0]])), {}),
    (B.postprocessing_envelope, (3.0, jnp.array([0.1, 0.9]), jnp.array([[0.0], [3.0]])), {}),
    (B.theorem52_bound, (jnp.array([1.5, 2.0]), 50.0, 1.0, jnp.array([[0.0], [0.3], [40.0]])), {}),
    (B.theorem52_bound, (jnp.array([1.5, 2.0]), 3.0, 1.0, jnp.array([[0.0], [0.3]])),
     {"variant": "printed"}),
    (B.theorem54_bound, (2.0, jnp.array([10.0, 101.0]), 2.0, 1.0, jnp.array([[0.1], [2.0]])), {}),
    (B.theorem53_fisher_bound, (0.5, jnp.array([0.0, 1.0]), jnp.array([[2.0], [10.0]])), {}),
    (B.theorem53_fisher_bound, (0.5, jnp.array([0.0, 1.0]), jnp.array([[2.0], [10.0]])),
     {"variant": "printed"}),
]


@pytest.mark.parametrize("func,args,kwargs", ALL_CALLS, ids=lambda x: getattr(x, "__name__", ""))
def test_jit_matches_eager_and_dtype(func, args, kwargs):
    eager = func(*args, **kwargs)
    jitted = jax.jit(lambda *a: func(*a, **kwargs))(*args)
    np.testing.assert_allclose(np.asarray(jitted), np.asarray(eager), rtol=1e-14, atol=0)
    assert eager.dtype == jnp.float64
    assert eager.shape == jnp.broadcast_shapes(*(jnp.shape(a) for a in args))
    assert bool(jnp.all(jnp.isfinite(eager)))


def test_theorem51_envelope_jit_and_shape():
    args = (jnp.array([3.0, 10.0, 50.0]), jnp.array([[0.5], [1.0]]), 2.0)
    eager = B.theorem51_envelope(*args)
    jitted = jax.jit(B.theorem51_envelope)(*args)
    for e, j in zip(eager, jitted):
        assert e.shape == (2, 3)
        np.testing.assert_allclose(np.asarray(j), np.asarray(e), rtol=1e-15)


def test_gradients_are_finite_at_edges():
    theta = jnp.array([0.0, 1e-9, 0.5, 1e3])

    @jax.jit
    def grads(theta, delta):
        out = {}
        for func in (B.fisher_lower_prop51, B.fisher_upper_prop51, B.fisher_upper_quadratic,
                     B.fisher_upper_poincare):
            for d in (3.0, 10.0):
                grad = jax.grad(lambda t, f=func, d=d: f(d, t))
                out[f"{func.__name__}_{d}"] = jax.vmap(grad)(theta)
        out["prop51_at_1.5"] = jax.grad(lambda t: B.fisher_upper_prop51(10.0, t))(1.5)
        out["thm52"] = jax.vmap(jax.grad(lambda x: B.theorem52_bound(2.0, 50.0, 1.0, x)))(delta)
        return out

    delta = jnp.array([0.0, 1e-9, 0.5, 40.0])
    out = grads(theta, delta)
    for key, value in out.items():
        assert bool(jnp.all(jnp.isfinite(value))), key
    assert float(out["fisher_lower_prop51_10.0"][0]) == 0.0
    # d/dθ of 2θ²/(2θ²+c) = 4θc/(2θ²+c)².
    _close(out["prop51_at_1.5"], 4 * 1.5 * 7 / (4.5 + 7) ** 2)
    h = 1e-6
    plus = _mp_theorem52(2.0, 50, 1.0, 0.5 + h, "rederived")
    minus = _mp_theorem52(2.0, 50, 1.0, 0.5 - h, "rederived")
    fd = (plus - minus) / (2 * h)
    _close(out["thm52"][2], fd, rtol=1e-9)


def test_float32_inputs_stay_float32():
    out = B.fisher_upper_quadratic(jnp.float32(10.0), jnp.float32(1.5))
    assert out.dtype == jnp.float32
    _close(out, _mp_quadratic(10, 1.5), rtol=1e-6)


# ----------------------------------------------------------------------------------------------
# Validation.

BAD_CALLS = [
    (lambda: B.fisher_lower_prop51(0.5, 1.0), "'d' must be >= 1"),
    (lambda: B.fisher_upper_prop51(4, -1.0), "'theta' must be >= 0"),
    (lambda: B.fisher_upper_quadratic(jnp.array([4.0, 0.0]), 1.0),
     r"'d' must be >= 1, got 0.0 at index \(1,\)"),
    (lambda: B.fisher_upper_idier_collewet(4, -0.1), "'theta'"),
    (lambda: B.fisher_upper_poincare(-4, 1.0), "'d'"),
    (lambda: B.fisher_upper_trivial(4, -1.0), "'theta'"),
    (lambda: B.gaussian_renyi(1.0, 1.0), "'alpha' must be > 1, got 1.0"),
    (lambda: B.gaussian_renyi(2.0, -1.0), "'delta' must be >= 0"),
    (lambda: B.local_expansion_prop31(0.5, 0.1, 0.1), "'alpha' must be > 1"),
    (lambda: B.local_expansion_prop31(2.0, -0.1, 0.1), "'fisher' must be >= 0"),
    (lambda: B.theorem51_envelope(50, 3.0, 2.0), "'w_norm' must be <= 'C'"),
    (lambda: B.theorem51_envelope(50, 1.0, -2.0), "'C' must be >= 0"),
    (lambda: B.theorem52_bound(1.0, 50, 1.0, 0.5), "'alpha' must be > 1"),
    (lambda: B.theorem52_bound(2.0, 0, 1.0, 0.5), "'d' must be >= 1"),
    (lambda: B.theorem52_bound(2.0, 50, -1.0, 0.5), "'C' must be >= 0"),
    (lambda: B.theorem52_bound(2.0, 50, 1.0, -0.5), "'delta' must be >= 0"),
    (lambda: B.theorem52_bound(2.0, 50, 1.0, 0.5, variant="paper"), "'variant' must be one of"),
    (lambda: B.theorem54_bound(2.0, 50, 1.5, 1.0, 0.5), "'k' must be an integer >= 1"),
    (lambda: B.theorem54_bound(2.0, 50, 0, 1.0, 0.5), "'k' must be an integer >= 1"),
    (lambda: B.theorem54_bound(2.0, 3, 4, 1.0, 0.5), "'k' must be <= 'd'"),
    (lambda: B.theorem53_fisher_bound(-1.0, 1.0, 10), "'path_length_sq' must be >= 0"),
    (lambda: B.theorem53_fisher_bound(1.0, 1.0, 0.5), "'m' must be >= 1"),
    (lambda: B.theorem53_fisher_bound(1.0, 1.0, 10, variant="x"), "'variant'"),
    (lambda: B.path_bound_from_integral(2.0, -1.0), "'integral' must be >= 0"),
    (lambda: B.postprocessing_envelope(1.0, 0.0, 1.0), "'alpha_prime' must be > 1"),
]


@pytest.mark.parametrize("call,match", BAD_CALLS)
def test_invalid_arguments_raise(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_no_check_under_jit():
    out = jax.jit(B.gaussian_renyi)(0.5, -1.0)  # invalid, but traced: no error
    assert np.isfinite(float(out))
    out = jax.jit(B.fisher_lower_prop51)(-1.0, 1.0)
    assert out.shape == ()


def test_check_concrete_helper():
    check = validation.check_concrete
    check("x", 2.0, lower=1, lower_inclusive=False)
    check("x", np.nan, lower=1)  # NaN passes by default
    with pytest.raises(ValueError, match=r"'x' must be a real number \(not NaN\), got nan"):
        check("x", np.nan, allow_nan=False)
    with pytest.raises(ValueError, match=r"'x' must be in \(0, 1\], got 0.0"):
        check("x", 0.0, lower=0, upper=1, lower_inclusive=False)
    with pytest.raises(ValueError, match=r"'x' must be < 1, got 1"):
        check("x", 1, upper=1, upper_inclusive=False)
    with pytest.raises(ValueError, match=r"'n' must be an integer >= 0, got inf"):
        check("n", np.inf, lower=0, integer=True)
    with pytest.raises(ValueError, match=r"at index \(1, 0\)"):
        check("x", np.array([[1.0], [-1.0]]), lower=0)
    with pytest.raises(TypeError, match="numeric"):
        check("x", "abc", lower=0)
    check("x", np.array([], float), lower=0)
    check("n", jnp.arange(3), lower=0, integer=True)
    # Tracers are skipped.
    jax.jit(lambda x: check("x", x, lower=10) or x)(1.0)
    jax.vmap(lambda x: check("x", x, lower=10) or x)(jnp.ones(2))
    validation.check_concrete_le("a", jnp.ones(3), "b", 2.0)
    with pytest.raises(ValueError, match="'a' must be <= 'b', got a=3.0, b=2.0"):
        validation.check_concrete_le("a", 3.0, "b", 2.0)


# ----------------------------------------------------------------------------------------------
# Docstring examples and public names.


def test_all_names_exist_and_are_documented():
    for name in B.__all__:
        func = getattr(B, name)
        doc = func.__doc__ or ""
        assert ".. math::" in doc, name
        assert "Examples:" in doc and ">>>" in doc, name



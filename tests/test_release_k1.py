"""renyi_release_k1 / hockey_stick_release_k1 (exact finite-release divergences, k = 1) against
mpmath references (tests/fixtures/release_k1.json, made by
tests/fixtures/make_release_k1_fixtures.py: the Bessel-K mixture summed term by term with
mpmath's K and an mpmath outer quadrature, independent of the library's recurrences, windows and
rules), the log-density against mpmath term by term (tests/fixtures/release_k1_density.json),
``docs/math/release.md`` spot values, monotonicity and the 1/n law in n_syn, a = b,
n_syn = inf (the χ² divergences themselves), jit (NaN for invalid entries), float32, input
checks, and a Monte Carlo check of the representation T = ‖ZV‖² = YX through the private
log-density ``_release_logpdf``.

Compile time dominates, so the fast tests share compiled programs: every float64 value comes
from an eager call on one point at a time (``map_bucketed``'s bucket of one: one program per
function and dtype, compiled once, reused for every point; per point it costs the same as in a
bucket of 32, and it compiles faster), and these are the very programs of the module's
docstring examples (tests/test_docstrings.py), so a run with the persistent compilation cache
compiles them once for both files. The log-density likewise, on scalars. Further programs of
the fast tests: the n_syn = inf limits (``renyi_ncx2`` / ``hockey_stick_ncx2`` on one point,
the programs of their docstring examples). jit (NaN for invalid entries, the n_syn = inf
branch) and float32 each need a compilation of their own (the cheapest form, both in one
jitted float32 program on scalars, costs ~22 s) and are slow, with the longer forms on other
shapes (mixed finite/inf entries eagerly, jit in float64 on five entries, float32 on vectors,
the hockey stick in float32)."""

import functools
import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import stats

from fisherrdp._src.divergences.release_k1 import _dispatch_in_dtype, _release_logpdf
from fisherrdp.divergences import (
    hockey_stick_ncx2,
    hockey_stick_release_k1,
    renyi_ncx2,
    renyi_release_k1,
)

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "fixtures", "release_k1.json")

with open(FIXTURE) as fh:
    _DATA = json.load(fh)
RENYI_ROWS = [(r["alpha"], r["d"], r["n_syn"], r["a"], r["b"], r["value"]) for r in _DATA["renyi"]]
HOCKEY_ROWS = [
    (r["eps"], r["d"], r["n_syn"], r["a"], r["b"], r["value"]) for r in _DATA["hockey_stick"]
]

# ``docs/math/release.md``: α = 2, d = 5, a = 2, b = 1.5 (5 significant digits; n = ∞: 0.1512947).
SPOT = [(1.0, 0.02009), (10.0, 0.09027), (100.0, 0.14009), (1000.0, 0.15003), (1e4, 0.15117)]
D_INF = 0.1512947
# n_syn grid for monotonicity and the 1/n law (pairs n, 2n).
NS = [1.0, 2.0, 10.0, 100.0, 1e3, 2e3, 1e4, 2e4, 1e5, 2e5, 1e6]  # includes the SPOT n_syn
EQUAL = [(2.0, 5.0, 10.0, 1.0, 1.0), (8.0, 100.0, 1e5, 3.0, 3.0), (1.5, 1.0, 1.0, 0.0, 0.0)]
HOCKEY_EQUAL = [(0.5, 5.0, 10.0, 1.0, 1.0)]
# Small d and n_syn, where the inner integrand is flat over a long range (d = n_syn) and an
# earlier inner rule returned NaN (first point); each row with its neighbours in n_syn.
SMALL_N = [1.0, 2.0, 10 ** (1 / 3) * 0.999, 10 ** (1 / 3), 10 ** (1 / 3) * 1.001, 3.0]
SMALL = [(2.0, d, n, 2.0, 1.5) for d in (1.0, 2.0, 3.0) for n in SMALL_N]
# float32 at n_syn ≈ 1 (a regression: NaN there, see test_float32_n_syn_one_...): Rényi and
# hockey-stick points.
F32_RENYI = [
    (2.0, 2.0, 1.0, 1.22, 0.5),
    (1.01, 10.0, 1.01, 1.22, 0.5),
    (2.0, 1000.0, 1.0, 1.22, 0.5),
    (2.0, 1.0, 1.0, 1.22, 0.0),
]
F32_HOCKEY = [
    (0.0, 2.0, 1.0, 1.22, 0.5),
    (0.0, 2.0, 1.0, 1.22, 0.0),
    (0.0, 1.0, 1.0, 1.22, 0.0),
    (0.0, 1.0, 1.0, 0.0, 1.22),
]
# n_syn = inf (the χ² divergences): (α or ε, d, a, b), the points of the slow test.
INF_RENYI = (2.0, 5.0, 2.0, 1.5)
INF_HOCKEY = (0.1, 5.0, 2.0, 1.0)
# The rows of the mpmath fixture with n_syn = 1 and d >= 100, where the outer integrand lies far
# in the left tail of law(X), err ~1e-10 relative against ≤ 1.3e-13 elsewhere: a regime of its
# own (docs/explanation/divergences.md: "Rényi ≤ 5.0e-11 relative over all 28 rows", the phrase
# of both regimes' accuracy claims in fixtures/accuracy/release_k1.json, which
# test_accuracy_claims.py finds on that page).


def _renyi_regime(row):
    return "n_syn_1_d_ge_100" if row[2] == 1 and row[1] >= 100 else "other"


@functools.cache
def _renyi_at(point):
    """renyi_release_k1 on one point (the bucket of one: one compiled program for all)."""
    return float(renyi_release_k1(*map(float, point)))


@functools.cache
def _hockey_at(point):
    return float(hockey_stick_release_k1(*map(float, point)))


@functools.cache
def batch():
    """Every float64 value of the fast tests, one point per call (repeated points once)."""

    def renyi(pts):
        return np.array([_renyi_at(tuple(p)) for p in pts])

    def hockey(pts):
        return np.array([_hockey_at(tuple(p)) for p in pts])

    ns = renyi([(2.0, 5.0, n, 2.0, 1.5) for n in NS])
    return {
        "renyi_rows": renyi([r[:5] for r in RENYI_ROWS]),
        "spot": np.array([ns[NS.index(n)] for n, _ in SPOT]),
        "ns": ns,
        "equal": renyi(EQUAL),
        "small": renyi(SMALL),
        "hockey_rows": hockey([r[:5] for r in HOCKEY_ROWS]),
        "hockey_equal": hockey(HOCKEY_EQUAL),
    }


def test_fixture_coverage():
    n = {r[2] for r in RENYI_ROWS}
    # n_syn > 1000 has no mpmath row (the mixing-integral reference timed out on the shared
    # machine); it is covered by the spot values, the monotone limit and the 1/n law below.
    assert len(RENYI_ROWS) == 28 and len(HOCKEY_ROWS) == 9
    assert {1.0, 2.0, 10.0, 1000.0} <= n
    assert any(r[3] < r[4] for r in RENYI_ROWS) and any(r[3] > r[4] for r in RENYI_ROWS)
    assert any(0 < abs(r[3] - r[4]) <= 1e-4 * max(r[3], r[4]) for r in RENYI_ROWS)
    assert any(r[3] == 0 or r[4] == 0 for r in RENYI_ROWS)
    assert sum(_renyi_regime(r) == "n_syn_1_d_ge_100" for r in RENYI_ROWS) == 2


def test_renyi_against_mpmath(accuracy):
    """Relative error on all 28 rows, per regime (claims in fixtures/accuracy/release_k1.json)."""
    ref = np.array([r[5] for r in RENYI_ROWS])
    rel = np.abs(batch()["renyi_rows"] - ref) / ref
    regime = np.array([_renyi_regime(r) for r in RENYI_ROWS])
    where = np.array([str(r[:5]) for r in RENYI_ROWS])
    for name in ("n_syn_1_d_ge_100", "other"):
        mask = regime == name
        accuracy.check(f"release_k1/renyi/{name}", rel[mask], where=where[mask])


def test_hockey_stick_against_mpmath(accuracy):
    ref = np.array([r[5] for r in HOCKEY_ROWS])
    err = np.abs(batch()["hockey_rows"] - ref)
    accuracy.check("release_k1/hockey_stick", err, where=[str(r[:5]) for r in HOCKEY_ROWS])


with open(os.path.join(HERE, "fixtures", "release_k1_bimodal.json")) as fh:
    BIMODAL_ROWS = json.load(fh)["rows"]


def test_renyi_where_the_tilted_integrand_has_a_far_left_mode():
    """a < b, d < n_syn: L(c) rises towards (b² − a²)/2 far left of the bulk, and
    p_a^α p_b^{1−α} peaks there a second time, or only there
    (``tests/fixtures/make_release_k1_bimodal.py``: a uniform grid over both modes, to
    ≤ 5e-12). Before the windows followed both inner modes, the kernel returned 18.30, 1.01,
    1.53, 25.63, 23.10, 11.412 and 12.81 against 18.27, 6.75, 18.50, 25.71, 23.15, 11.410 and
    12.82 (an RDP accountant built on them would mostly have under-stated ε); then 16.0170359
    for 16.0170386 (a far peak's flank cut) and, with d > n_syn, 4.657424e-4 for 4.657535e-4 (a
    long left tail cut); the ninth row guards d > n_syn, where a second inner Newton run once
    counted the one inner mode twice (2.3e-6 off). The mixture method (running maxima: the
    posterior of the Poisson index is bimodal there too) measured ≤ 4.2e-12 relative. And
    CORNER, where the far peak is a corner (a linear left tail, a steep right flank): 4.4e-6
    off before σ was capped there; measured 5.4e-11 against the fixture script's ``search``
    grid (20.1774214116; a SciPy nested quadrature gave 20.1774213733, 1.9e-9 away), asserted
    at the documented 1e-8."""
    got = np.array([_renyi_at(tuple(r[k] for k in ("alpha", "d", "n_syn", "a", "b")))
                    for r in BIMODAL_ROWS])
    np.testing.assert_allclose(got, [r["value"] for r in BIMODAL_ROWS], rtol=1.2e-11)
    assert _renyi_at(CORNER) == pytest.approx(20.1774214116, rel=1e-8)


#: A far-left peak shaped as a corner (``make_release_k1_bimodal.py search``, 2026-12-06).
CORNER = (32.0, 1.0, 10.0, 10.0, 12.0)

with open(os.path.join(HERE, "fixtures", "release_k1_tilted.json")) as fh:
    TILTED_ROWS = json.load(fh)


def test_renyi_where_the_tilted_integrand_peaks_far_right():
    """Large α(a − b): p_a^α p_b^{1−α} peaks near t^{1/4} = (αa − (α − 1)b)/2, far right of both
    bulks (``tests/fixtures/make_release_k1_tilted.py``, mpmath). The search's range once ended
    before the peak: 253.515 for 254.808 at the first row (and 24012 for 36145 at (145, 25, 1.3,
    36.8, 5.2), a point too long for mpmath). Measured within 1.1e-13 relative."""
    got = np.array([_renyi_at(tuple(r[k] for k in ("alpha", "d", "n_syn", "a", "b")))
                    for r in TILTED_ROWS])
    np.testing.assert_allclose(got, [r["value"] for r in TILTED_ROWS], rtol=6e-13)


def test_small_d_and_n_syn_finite_and_monotone_in_n_syn():
    """d, n_syn ∈ [1, 3]: finite, positive and increasing in n_syn."""
    values = batch()["small"].reshape(3, len(SMALL_N))
    assert np.all(np.isfinite(values)) and np.all(values > 0)
    assert np.all(np.diff(values, axis=1) > 0), values


def test_spot_values():
    np.testing.assert_allclose(batch()["spot"], [v for _, v in SPOT], atol=5e-6, rtol=0)


def test_monotone_in_n_syn_towards_the_infinite_release():
    d_n = batch()["ns"]
    assert np.all(np.diff(d_n) > 0.0)
    assert d_n[-1] < D_INF + 1e-7
    assert D_INF - d_n[-1] < 1e-5


def test_gap_shrinks_like_one_over_n():
    """Prop 7.1: D_∞ − D_n ≈ C/n, so n (D_{2n} − D_n) ≈ C/2 for large n."""
    d_n = dict(zip(NS, batch()["ns"]))
    scaled = np.array([n * (d_n[2 * n] - d_n[n]) for n in (1e3, 1e4, 1e5)])
    assert np.all(scaled > 0.0)
    np.testing.assert_allclose(scaled / scaled[-1], 1.0, rtol=0.05)
    # and consistent with the n = ∞ value: n (D_∞ − D_n) ≈ 2 · n (D_{2n} − D_n)
    np.testing.assert_allclose(1e5 * (D_INF - d_n[1e5]), 2 * scaled[-1], rtol=0.05)


def test_equal_amplitudes_give_zero():
    assert np.all(batch()["equal"] == 0.0)
    assert np.all(batch()["hockey_equal"] == 0.0)


@pytest.mark.parametrize(
    "fn, args, name",
    [
        (renyi_release_k1, (1.0, 5, 10, 1.0, 0.5), "alpha"),
        (renyi_release_k1, (2.0, 0.5, 10, 1.0, 0.5), "d"),
        (renyi_release_k1, (2.0, 5, 0.5, 1.0, 0.5), "n_syn"),
        (renyi_release_k1, (2.0, 5, 10, -1.0, 0.5), "a"),
        (renyi_release_k1, (2.0, 5, 10, 1.0, [0.5, -0.5]), "b"),
        (hockey_stick_release_k1, (-0.1, 5, 10, 1.0, 0.5), "eps"),
        (hockey_stick_release_k1, (0.1, 5, [10, 0], 1.0, 0.5), "n_syn"),
    ],
)
def test_bad_input_raises(fn, args, name):
    with pytest.raises(ValueError, match=f"argument '{name}'"):
        fn(*args)


def test_monte_carlo_law_of_the_release():
    """Simulate ‖ZV‖², Z ∈ R^{n×d} N(0,1), V = v + N(0, I_d), ‖v‖ = a, and compare bin counts
    with bin probabilities integrated from the exact log-density (chi-square test, fixed seed);
    the log-density also integrates to 1. The log-density is evaluated one scalar at a time:
    one compiled program, the docstring example's."""
    d, n, a, size = 3, 2, 1.5, 40_000
    rng = np.random.default_rng(20261130)
    v = rng.standard_normal((size, d))
    v[:, 0] += a
    z = rng.standard_normal((size, n, d))
    t = np.sum(np.einsum("snd,sd->sn", z, v) ** 2, axis=1)
    # bins in log t: two tails and 12 inner bins between the 0.5% and 99.5% sample quantiles
    lo, hi = np.log(np.quantile(t, [0.005, 0.995]))
    edges = np.concatenate([[-40.0], np.linspace(lo, hi, 13), [9.0]])
    x, w = np.polynomial.legendre.leggauss(16)
    half = np.diff(edges)[:, None] / 2
    log_t = edges[:-1, None] + half * (x + 1)
    log_p = np.array(
        [float(_release_logpdf(float(s), float(d), float(n), a)) for s in np.exp(log_t).ravel()]
    ).reshape(log_t.shape)
    probs = np.sum(half * w * np.exp(log_p + log_t), axis=1)
    assert abs(probs.sum() - 1.0) < 1e-10
    counts = np.histogram(np.log(t), bins=edges)[0]
    expected = size * probs
    chi2 = np.sum((counts - expected) ** 2 / expected)
    # 13 degrees of freedom; p < 1e-3 would flag a wrong law (a fixed seed: deterministic).
    assert stats.chi2.sf(chi2, len(counts) - 1) > 1e-3, f"chi2 = {chi2:.1f}"


def test_infinite_n_syn_is_the_chi_square_divergence_one_point():
    """n_syn = inf on one point: the χ² functions themselves, exactly (the programs of their
    docstring examples); the finite values below it (monotone in n_syn)."""
    r_inf = float(renyi_ncx2(*INF_RENYI))
    h_inf = float(hockey_stick_ncx2(*INF_HOCKEY))
    assert float(renyi_release_k1(*INF_RENYI[:2], np.inf, *INF_RENYI[2:])) == r_inf
    assert float(hockey_stick_release_k1(*INF_HOCKEY[:2], np.inf, *INF_HOCKEY[2:])) == h_inf
    # ``docs/math/release.md``'s n = ∞ value (7 digits), and the finite releases below it
    assert abs(r_inf - D_INF) < 1e-7 and batch()["ns"][-1] < r_inf
    assert batch()["hockey_rows"][0] < h_inf  # HOCKEY_ROWS[0] is INF_HOCKEY at n_syn = 1
    assert HOCKEY_ROWS[0][:5] == (*INF_HOCKEY[:2], 1, *INF_HOCKEY[2:])


# One jitted program, in float32, on one point at a time (scalars: it compiles faster than on a
# vector): the traced path (validity masks instead of checks, the n_syn = inf branch by a
# double where) and float32 together. Rows: the ``docs/math/index.md`` spot values at n_syn = 1, 10, 100, the
# float32 regression points F32_RENYI, n_syn = inf, and three invalid entries. The cheapest
# form of these guarantees, yet one more compilation (~22 s wall, 31 s CPU on 2 cores at load
# 1.5; the default run's budget for this file's additions is spent): slow, with the long forms.
JIT_ROWS = (
    [(2.0, 5.0, n, 2.0, 1.5) for n, _ in SPOT[:3]]
    + F32_RENYI
    + [(2.0, 5.0, np.inf, 2.0, 1.5)]
    + [(1.0, 5.0, 10.0, 2.0, 1.5), (2.0, 5.0, 0.5, 2.0, 1.5), (2.0, 5.0, 10.0, -1.0, 1.5)]
)


@functools.cache
def jitted_float32():
    fn = jax.jit(renyi_release_k1)
    out = [fn(*(jnp.float32(x) for x in row)) for row in JIT_ROWS]
    assert all(o.dtype == jnp.float32 and o.shape == () for o in out)
    return np.array([float(o) for o in out])


@pytest.mark.slow
def test_jit_float32_one_point_at_a_time():
    """Inside jit (no argument check possible): invalid entries are NaN, an n_syn = inf entry is
    renyi_ncx2; in float32: the ``docs/math/index.md`` spot values to 1e-3, and the n_syn ≈ 1 points (NaN
    before the fix of test_float32_n_syn_one_is_finite_and_matches_float64) finite and within
    that test's tolerance (1e-3 relative) of the eager float64 values. (jit against eager to
    1e-13 in float64, the hockey stick in float32, and float32 on vectors: the slow tests.)"""
    out = jitted_float32()
    spot, f32, inf, invalid = out[:3], out[3:7], out[7], out[8:]
    np.testing.assert_allclose(spot, [v for _, v in SPOT[:3]], rtol=1e-3)
    assert np.all(np.isfinite(f32)), f32
    np.testing.assert_allclose(f32, [_renyi_at(p) for p in F32_RENYI], rtol=1e-3)
    # renyi_ncx2 in float32 at this d = 5 point: 1e-4 relative (measured 2026-12-03)
    np.testing.assert_allclose(inf, float(renyi_ncx2(*INF_RENYI)), rtol=1e-4)
    assert np.all(np.isnan(invalid)), invalid


#: The float32 kernel (as a TPU runs it) at the F32_RENYI points against float64: largest
#: relative error measured (2026-12-06, the mixture method: 1.2e-5, at d = 1000 where
#: D = 7.6e-7; ≤ 1.7e-6 at the others), ×10.
KERNEL_FLOAT32_RTOL = 10 * 1.2e-5


def test_float32_is_the_float64_value_rounded_and_the_float32_kernel_is_close():
    """float32 inputs at n_syn ≈ 1, small d (the F32_RENYI points, where float32 once gave NaN).
    On a CPU (a device with float64) the result is the float64 value at the same inputs rounded
    once, bit for bit (the one-point float64 program of this file); the float32 kernel itself,
    as a TPU runs it, is finite and within KERNEL_FLOAT32_RTOL of it (one float32 program)."""
    points = np.array(F32_RENYI, np.float32)
    ref = np.array([_renyi_at(tuple(map(float, p))) for p in points])
    for point, value in zip(points, ref):
        got = renyi_release_k1(*(jnp.float32(x) for x in point))
        assert got.dtype == jnp.float32 and float(got) == float(np.float32(value)), point
    kernel = _dispatch_in_dtype(False, *jnp.asarray(points.T))
    assert kernel.dtype == jnp.float32
    kernel = np.asarray(kernel, np.float64)
    assert np.all(np.isfinite(kernel)), kernel
    np.testing.assert_allclose(kernel, ref, rtol=KERNEL_FLOAT32_RTOL)


with open(os.path.join(HERE, "fixtures", "release_k1_density.json")) as fh:
    DENSITY_ROWS = json.load(fh)["rows"]
#: The log-density's error over max(1, |log p|) against mpmath, measured 5.4e-15 (2026-12-06), ×10.
DENSITY_RTOL = 10 * 5.4e-15


def test_log_density_against_mpmath_term_by_term():
    """log p of S = log T against mpmath (``tests/fixtures/make_release_k1_density.py``: every
    Poisson term with ``mp.besselk``), from s = −100 (a power-law left tail) through the bulk
    to the right tail, at d = n_syn = 1 and 2, n_syn = 1 with d = 100, n_syn = 1000, a = 20,
    d ≫ n_syn and non-integer d, n_syn: the error over max(1, |log p|) (``DENSITY_RTOL``). One
    scalar at a time (the docstring example's program)."""
    got = np.array([float(_release_logpdf(np.exp(r["s"]), r["d"], r["n_syn"], r["a"])) + r["s"]
                    for r in DENSITY_ROWS])
    ref = np.array([r["log_p"] for r in DENSITY_ROWS])
    err = np.abs(got - ref) / np.maximum(1.0, np.abs(ref))
    assert err.max() < DENSITY_RTOL, (err.max(), DENSITY_ROWS[int(err.argmax())])


#: Where float32 lost δ (benchmarks/accuracy_scan_float32.py, seed 0, before float32 inputs were
#: computed in float64): δ = 4.4e-12, 672× the float32 criterion, and two more failing points.
F32_SMALL_DELTA = [(4.86181265, 489.127752, 61.3280136, 14.3808412, 11.7455244),
                   (1.46309823, 178.647323, 1.19830631, 19.5867346, 18.3064982),
                   (4.52164599, 7.63787307, 10.6743383, 22.0972079, 19.8412244)]


def test_float32_hockey_stick_is_the_float64_value_rounded():
    """float32 inputs: the hockey stick is computed in float64 where the device has it (a CPU
    here; docs/howto/float32.md), so it is the float64 value at the same inputs, rounded once,
    bit for bit, by the one-point float64 program of this file (no float32 program)."""
    for point in np.array(F32_SMALL_DELTA, np.float32):
        got = hockey_stick_release_k1(*(jnp.float32(x) for x in point))
        assert got.dtype == jnp.float32
        assert float(got) == float(np.float32(_hockey_at(tuple(map(float, point))))), point


@pytest.mark.slow
def test_infinite_n_syn_is_the_chi_square_divergence():
    """n_syn = inf: all entries (the χ² functions themselves, exactly) and mixed with finite
    entries (the double-where path, compiled in another kernel: to rounding)."""
    r_inf = float(renyi_ncx2(2.0, 5.0, 2.0, 1.5))
    h_inf = float(hockey_stick_ncx2(0.1, 5.0, 2.0, 1.0))
    assert float(renyi_release_k1(2.0, 5.0, np.inf, 2.0, 1.5)) == r_inf
    assert float(hockey_stick_release_k1(0.1, 5.0, np.inf, 2.0, 1.0)) == h_inf
    r = np.asarray(renyi_release_k1(2.0, 5.0, [10.0, np.inf], 2.0, 1.5))
    h = np.asarray(hockey_stick_release_k1(0.1, 5.0, [10.0, np.inf], 2.0, 1.0))
    np.testing.assert_allclose([r[1], h[1]], [r_inf, h_inf], rtol=1e-13)
    assert r[0] < r[1] and h[0] < h[1]


@pytest.mark.slow
def test_jit_agrees_and_invalid_inputs_give_nan_inside_jit():
    al = np.array([2.0, 2.0, 1.0, 2.0, 2.0])
    n = np.array([10.0, 100.0, 10.0, 0.5, 10.0])
    a = np.array([2.0, 2.0, 2.0, 2.0, -1.0])
    out = np.asarray(jax.jit(renyi_release_k1)(al, 5.0, n, a, 1.5))
    assert np.all(np.isnan(out[2:]))
    eager = np.asarray(renyi_release_k1(al[:2], 5.0, n[:2], a[:2], 1.5))
    np.testing.assert_allclose(out[:2], eager, rtol=1e-13)


@pytest.mark.slow
def test_float32():
    out = renyi_release_k1(
        jnp.float32(2.0),
        jnp.float32(5.0),
        jnp.asarray([1.0, 10.0, 100.0], jnp.float32),
        jnp.float32(2.0),
        jnp.float32(1.5),
    )
    assert out.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(out), [v for _, v in SPOT[:3]], rtol=1e-3)


@pytest.mark.slow
def test_float32_n_syn_one_is_finite_and_matches_float64():
    """Regression: n_syn ≈ 1 in float32 gave NaN (an earlier method's inner nodes reached
    u ≈ 120, where e^u overflows in float32). Rényi and hockey-stick points of one shape (one
    compile per dtype; float32 inputs are computed in float64 on a CPU, so these compare the
    rounding and the dispatch): finite, within 1e-3 relative and 1e-5 absolute."""
    out = {}
    for dtype in (jnp.float32, jnp.float64):
        for name, pts, fn in (
            ("renyi", F32_RENYI, renyi_release_k1),
            ("hockey", F32_HOCKEY, hockey_stick_release_k1),
        ):
            value = fn(*jnp.asarray(np.array(pts).T, dtype))
            assert value.dtype == dtype
            out[name, dtype] = np.asarray(value, np.float64)
    for name in ("renyi", "hockey"):
        assert np.all(np.isfinite(out[name, jnp.float32])), out[name, jnp.float32]
    np.testing.assert_allclose(out["renyi", jnp.float32], out["renyi", jnp.float64], rtol=1e-3)
    np.testing.assert_allclose(
        out["hockey", jnp.float32], out["hockey", jnp.float64], rtol=0, atol=1e-5
    )


def test_large_calls_run_in_slices(monkeypatch):
    """Above ``SLICE`` points a call runs its slices in sequence (the last padded): the same
    values as one ``vmap``, pytrees and derivatives included. A cheap stand-in for the kernel
    (a loop whose length depends on the point, as the release's chains), so no release program
    is compiled; the release's own memory at 1e5 points is measured by
    ``benchmarks/bench_release_k1.py``."""
    from fisherrdp._src.divergences import release_k1

    def fn(x, y):
        steps = jax.lax.while_loop(lambda c: c < x, lambda c: c + 1.0, 0.0)
        return y ** jax.lax.stop_gradient(steps) + x, jnp.sin(y) * x

    x = jnp.arange(1.0, 11.0)
    y = jnp.linspace(0.5, 1.5, 10)
    whole = jax.vmap(fn)(x, y)
    monkeypatch.setattr(release_k1, "SLICE", 4)  # 10 points: 3 slices, 2 padded points
    sliced = release_k1._in_slices(jax.vmap(fn), x, y)
    assert all(s.shape == (10,) and (s == w).all() for s, w in zip(sliced, whole))
    grad = jax.grad(lambda y: jnp.sum(release_k1._in_slices(jax.vmap(fn), x, y)[0]))(y)
    assert jnp.allclose(grad, jax.grad(lambda y: jnp.sum(jax.vmap(fn)(x, y)[0]))(y), rtol=1e-15)

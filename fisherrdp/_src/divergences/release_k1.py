r"""Exact divergences of the finite synthetic release for k = 1 (``docs/math/release.md``).

Given :math:`V`, the release :math:`ZV \sim \mathcal N(0, \|V\|^2 I_{n})`, so
:math:`T = \|ZV\|^2 = Y X` is sufficient, with :math:`Y = \|V\|^2 \sim \chi^2_d(a^2)` and
:math:`X \sim \chi^2_{n}` independent (:math:`n` = ``n_syn``). Hence

.. math::

    D_\alpha(ZV \,\|\, ZW) = D_\alpha\bigl(\mathrm{law}(Y_a X) \,\|\, \mathrm{law}(Y_b X)\bigr),

a one-dimensional problem. In :math:`C = \log(T/n) = U + W`, :math:`U = \log Y`,
:math:`W = \log(X/n)`, the density is a convolution,

.. math::

    p_C(c) = \int p_U(c - w)\, p_W(w)\, dw, \qquad
    \log p_W(w) = \tfrac n2\bigl(w - \operatorname{expm1}(w)\bigr)
    + \tfrac n2 \log\tfrac n2 - \tfrac n2 - \log\Gamma(\tfrac n2),

(the constant by Stirling's series for :math:`n \ge 40`, so that nothing of size :math:`n`
cancels), :math:`\log p_U(u) = u + \log p_{\chi^2_d(\theta^2)}(e^u)` in the two cancellation-free forms
of :func:`fisherrdp._src.distributions.ncx2.density.logpdf_kernel`, fed from one shared Bessel evaluation.

**Method.** *Outer windows* in :math:`c`: the peak of the tilted integrand
:math:`p_a^\beta p_b^{1-\beta}` (:math:`\beta = \alpha` for the direct form, 0 for the ψ form) and
its edges where it has dropped by :math:`e^{-T}`, :math:`T = -\log\epsilon + 8`, by safeguarded
Newton steps on the Laplace surrogate :math:`\log p_C(c) \approx \max_w h_c(w)`,
:math:`h_c(w) = \log p_U(c-w) + \log p_W(w)`, whose derivatives are exact at the inner maximiser
:math:`w^*(c)` (:math:`F' = P'(c - w^*)`, :math:`F'' = P''Q''/(P''+Q'')`, variances add);
:math:`w^*(c)` is found by nested Newton steps, at both inner modes (below). *Inner rules*,
two layouts with the same number of nodes, chosen per outer node by ``where``:

* at and above the bulk (:math:`c \ge` the mode of :math:`U`; the mode of :math:`W` is 0):
  the peak, scale and :math:`e^{-T}` edges of :math:`h_c` (Newton), for each law separately,
  and graded panels about the peak;
* below it, a *level layout*: panel edges at the modes of :math:`\log p_W(w)` and of
  :math:`\log p_U(c - w)` and where each has dropped by 1, 3, 8, 20 and 60 below its mode,
  on both sides (``LEVELS``; the points of :math:`U` found once per law by Newton, those of
  :math:`W` from :math:`t - 1 + e^{-t} = 2L/n` and :math:`e^r - 1 - r = 2L/n`). In the left
  tail both densities are power laws (:math:`p_U \sim e^{du/2}`, :math:`p_W \sim e^{nw/2}`),
  so :math:`h_c` is nearly linear, of slope :math:`(n - d)/2`, between the two modes, and
  flat for :math:`d = n`, with double-exponential walls at both ends: a peak-centred rule
  cannot resolve that (it erred by up to 1e-2 in :math:`\log p_C` at :math:`d = n = 1`, and
  its edge search diverged to NaN at :math:`d = n = 2`), the level layout puts edges at both
  walls and along the stretch (measured: :math:`\log p_C` within 3e-12 of the mpmath K series
  for :math:`d = n \in \{1, 2\}`, :math:`(d, n) = (5, 1), (100, 1)`, :math:`c` down to
  -100). Above the bulk the peak of :math:`h_c` lies between the two walls and away from the
  level points, where the graded rule is the accurate one.

Both integrals are composite Gauss–Legendre rules (graded: ``*_LINEAR`` panels of width
``*_STEP`` σ each side of the peak, then ``*_GEO`` geometrically growing ones to the edges),
summed in log space (``logsumexp``).

**Two forms, chosen elementwise** (as in :mod:`fisherrdp._src.divergences.renyi`):

1. *Direct*: :math:`(\alpha-1)D = \log\int p_{C,a}^\alpha p_{C,b}^{1-\alpha}`, with
   :math:`p_{C,a}` and :math:`p_{C,b}` each on its own inner windows.
2. *ψ form*, where the direct form gives :math:`(\alpha-1)D <` ``psi_max(dtype)`` (``renyi.py``):
   :math:`e^{(\alpha-1)D} - 1 = E_b[\psi(L)]`, :math:`L = \log p_{C,a}/p_{C,b}`, with
   :math:`L` formed without cancellation as the posterior mean
   :math:`e^{L(c)} = E[e^{\ell(c - W)} \mid C = c]` under law :math:`b`,
   :math:`\ell = \log p_{U,a}/p_{U,b}` from the cancellation-free ratio form of
   :mod:`~fisherrdp._src.divergences.renyi` (so :math:`L/\delta` is accurate also for
   :math:`\delta = a - b \to 0`); the inner window there covers both posteriors.

``n_syn = inf`` entries give :func:`~fisherrdp.divergences.renyi_ncx2` /
:func:`~fisherrdp.divergences.hockey_stick_ncx2` (double-``where``; called directly when every
entry is ``inf``, and not compiled at all when none is).

**Hockey stick.** :math:`E_{e^\varepsilon} = \int (p_{C,a} - e^\varepsilon p_{C,b})_+\,dc`.
The likelihood ratio :math:`L(c)` is monotone (the :math:`\chi^2_d(\theta^2)` family is TP2 in
:math:`\log y` and :math:`p_W` is log-concave), so the integrand is
:math:`p_{C,a}(1 - e^{\varepsilon - L})` on one side of the crossing :math:`L(c^*) = \varepsilon`
(``ROOT_STEPS`` safeguarded Newton steps on :math:`L` from inner quadratures, on the union of
both laws' windows), integrated on graded panels starting at :math:`c^*` (no kink inside a
panel). An error in :math:`c^*` enters only at second order.

**One kernel, two passes.** Both divergences run through one jitted kernel (a flag selects the
windows and the output), so that one compilation serves both. A first pass computes the hockey
stick and the direct form of the Rényi divergence; the ψ form (the log-densities at its own
nodes and ℓ/δ by its s-rule: more than half of the work) runs in a second pass, under a
``lax.cond`` on whether any point of the batch takes it ((α − 1) D < ``psi_max``, a ≠ b). Each
pass takes its Bessel functions from one call of the rolled-loop Bessel core.

**Both inner modes.** A small T comes from a small X (Y near its bulk: the inner mode
w_B ≈ c − log(d + θ²) of h_c) or, for d < n_syn, from a small Y (X near its mode:
w_A = log(1 − d/n)), whose density near 0 carries e^{−θ²/2}. The window search's surrogate
follows both: per law, log(e^{F_A} + e^{F_B}) of the Laplace approximations
F = h_c(w*) − ½ log(−h_c''(w*)) at the two inner modes, each found by Newton from its own
guess at every outer step (its curvature includes the spread of the two slopes;
:func:`_outer_windows`). The width term decides where the two explanations trade places
(their inner widths differ several-fold, and the tilted row weighs the difference by α):
without it the far peak of (α, d, n_syn, a, b) = (32, 2, 3, 10, 12) was placed 4.5 to the left
and its window cut its right flank (1.7e-7 off). Where d ≥ n_syn the small-Y side has no
maximum (log p_U rises there with slope at least d/2 ≥ n/2, steeper than log p_W can), h_c has
the one mode w_B, and the surrogate is F_B alone (A's Newton run, on its way to w_B, counted
it twice: 2.3e-6 off at (32, 2, 1.5, 10, 12)). Where d < n_syn the small-Y mode gives every
density of C a long left tail of slope d/2, and for a < b, L(c) rises towards (b² − a²)/2
there, so that p_a^α p_b^{1−α} = p_a e^{(α−1)L} can peak a second time far left of the bulk,
or only there, and hold most of the integral. For Rényi with a < b the tilted row is therefore
also searched from far left of where law b turns to the small-Y explanation,
c_b = (n u_b − b²)/(n − d): two distinct modes within e^{−T} of each other share the direct
form's nodes (half the panels each, the bulk's starting at the far window's upper edge),
otherwise the higher one takes them all; the windows' panels are no wider than
σ = ``TILTED_SIGMA_MAX`` (the surrogate's curvature is unreliable at the corner-like far peak),
and for a < b the tilted ones end at p_b's upper edge at most (p_a^α p_b^{1−α} = p_b e^{αL}
with L decreasing). Where d ≥ n_syn the left tail, of slope n_syn/2, comes from a small X.
The earlier surrogate carried one inner peak from step to step: it did not see the far mode
(1.01 instead of 6.75 at (α, d, n_syn, a, b) = (8, 5, 10, 10, 12), 1.53 instead of 18.50 at
α = 32, 23.10 instead of 23.15 at (2, 2, 10, 2, 8): mostly too small, which an RDP accountant
turns into too small an ε), and its peak could stay on the wrong side, cutting the left tail
short: 2.891e-4 instead of 3.476e-4 at (19.36, 2.764, 3.837, 9.010, 8.989) (d < n_syn), and
4.657424e-4 instead of 4.657535e-4 at (3.31325, 3.01029, 1.07414, 10.1299, 10.2551)
(d > n_syn). Now
within 2.9e-11 of the ten references of ``tests/fixtures/make_release_k1_bimodal.py`` (a
uniform grid over both modes, converged to 5e-12, its densities checked against the mpmath
K series to 6e-12; two rows also by an independent SciPy quadrature in
``tests/test_docs_math.py``), and within 1e-8 of such a grid at 407 points on both
sides of d = n_syn (its ``search`` mode); ``docs/math/release.md``.

**Accuracy** (float64), against mpmath references at 40 digits (``tests/fixtures/release_k1.json``,
made by ``tests/fixtures/make_release_k1_fixtures.py`` with a Poisson mixture of products of
central χ² laws, whose density is a Bessel-K function: a representation independent of this
one; ``tests/test_release_k1.py`` fails above 10 × the measured numbers, the claims of
``tests/fixtures/accuracy/release_k1.json``, and above the targets 1e-8 relative (Rényi) and
1e-10 absolute (hockey stick)); 28 Rényi and 9 hockey-stick rows, each computed twice (two
quadrature layouts) agreeing to ≤ 6e-14. Worst errors measured (Rényi, relative) over all 28 rows:
4.9e-11 (α = 1.01, d = 100, n_syn = 1, a = 10, b = 5) and 4.7e-11 (d = 1000, n_syn = 1,
b = 0); every other row ≤ 1.3e-13 — moderate α ∈ {1.01, 2, 8} with d ∈ {5, 100, 1000} and
n_syn ∈ {2, 10, 100, 1000}; n_syn = 1e5, 1e7 (a ≈ b, D = 7.8e-10); a ≈ b (relative step
1e-6); a or b = 0; α = 64 (a > b, values up to 15; a < b); a = 20, b = 15 or 19; non-integer
d or n_syn (2.5, 37.3; d = 1, n_syn = 1.5). Hockey stick (absolute): ≤ 1e-15 (ε ∈ [0, 3],
n_syn ∈ [1, 1000], d ∈ [1, 1000], a < b and a > b, a or b = 0).

Small :math:`d` and :math:`n_{syn}` (the level layout above): d = n_syn = 1 and 2 (Rényi
with α = 1.01, a ≈ b, and α = 8; hockey stick with a < b, where the integral runs over the
left tail) within 1.3e-13 relative and 1e-16 absolute; rows with d, n_syn ∈ [1, 3] around
``renyi_release_k1(2, 2, 10**(1/3), 2, 1.5)``, which returned NaN before the level layout,
are finite and increasing in n_syn (tests). Not measured against mpmath:
n_syn between 1e3 and 1e5 apart from the spot value at 1e4 (5 digits); the tests also check
monotone convergence to the n_syn = ∞ value, the 1/n_syn law of the gap
(n·(D_{2n} − D_n) constant to 5% for n = 1e3 … 1e5), that the density integrates to 1
(1e-10) and that it matches simulated ‖ZV‖² (chi-square test).

**Cost.** 2·(4+4)·12 = 192 outer nodes per form, 21·10 = 210 inner nodes each (one of the
graded rule's 21 panels empty), i.e. about 1.2e5 log-density evaluations per element plus
window searches: ~0.3 s per element on 2 CPU cores at load 2 (29 elements in 8–9 s);
compiling the kernel takes 20–25 s there, once per shape and dtype, shared by both public
functions. The window search that follows both inner modes, now the only one, costs what the
two searches it replaced cost together (compile 13.8–14.6 s against 14.2 s, and 6.1–6.6 s
against 6.1 s for 32 points, without the compilation cache, 2026-12-04). (The earlier 96-node inner rule without the level layout: 170 ms per element.)
Not for tight inner loops over millions of points; evaluate many points in one call (the
compiled kernel is reused for every call of the same shape, for both public functions).
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays, in_wide_dtype
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import (
    DIMENSION,
    NONNEG,
    ORDER,
    check_concrete,
    is_tracer,
    validated,
)
from fisherrdp._src.distributions.ncx2.density import SERIES_MAX_Z, central_logpdf
from fisherrdp._src.divergences.hockey_stick import hockey_stick_kernel, hockey_stick_ncx2
from fisherrdp._src.divergences.ncx2_quadrature import log_psi_sum, log_ratio_over_delta_args
from fisherrdp._src.divergences.renyi import psi_max, renyi_kernel, renyi_ncx2
from fisherrdp._src.numerics.quadrature import composite_gauss_legendre_on
from fisherrdp._src.numerics.roots import bracketed_newton
from fisherrdp._src.numerics.windows import held_fixed, window_search
from fisherrdp._src.numerics.windows import newton_peak as _newton_peak
from fisherrdp._src.special.bessel import HALF_LOG_2PI, bessel_core, stirling_correction

__all__ = ["hockey_stick_release_k1", "renyi_release_k1"]

#: Outer rule (in c = log(T/n)): Gauss–Legendre nodes per panel, graded panels per side.
OUTER_NODES = 12
OUTER_LINEAR = 4
OUTER_STEP = 1.5
OUTER_GEO = 4
#: Inner rule (in w = log(X/n)), per outer node and law: graded panels about the peak of h_c.
INNER_NODES = 10
INNER_LINEAR = 4
INNER_STEP = 1.5
INNER_GEO = 6
#: Level layout of the inner rule, for outer nodes left of the bulk (see the module docstring):
#: panel edges at both laws' modes and where log p_W and log p_U have dropped by these amounts
#: below them, both sides: 2·(2·5 + 1) = 22 edges, 21 panels (the graded rule's 20 panels are
#: padded with one empty panel, so that rows can switch between the two by ``where``).
LEVELS = (1.0, 3.0, 8.0, 20.0, 60.0)
#: Newton steps for the level points.
LEVEL_STEPS = 40
#: Newton steps: peaks, edges, and the nested inner peak per outer step.
PEAK_STEPS = 24
EDGE_STEPS = 12
NESTED_STEPS = 12
#: Outer windows (:func:`_outer_windows`): the far-left search of the tilted integrand starts
#: this far left of where law b turns to the small-Y explanation; outer Newton steps are capped
#: at ``FAR_CAP``; panels are no wider than σ = ``TILTED_SIGMA_MAX``.
FAR_START_MARGIN = 16.0
FAR_CAP = 4.0
TILTED_SIGMA_MAX = 1.0
#: Safeguarded Newton steps for the hockey-stick crossing L(c*) = ε.
ROOT_STEPS = 40
#: Curvature floor of the window search (σ ≤ 10 in log units: flat inner integrands at far
#: outer nodes, e.g. d = n_syn = 1, would otherwise send the edge guesses to overflow).
MIN_CURVATURE = 1e-2
#: Extra drop (beyond −log ε) of the window edges: the outer surrogate is approximate.
DROP_MARGIN = 8.0
#: Half degrees of freedom n/2 from which log p_W's constant uses Stirling's series.
STIRLING_MIN = 20.0
#: Largest chunk of an eager call (``map_bucketed``): each point holds ~1e5 inner nodes.
BUCKET_CAP = 32

_LOG2 = math.log(2.0)


def _log_pw_constant(n):
    """(n/2) log(n/2) − n/2 − log Γ(n/2), by Stirling's series for large n/2."""
    m = 0.5 * n
    large = m >= STIRLING_MIN
    m_s = jnp.where(large, m, STIRLING_MIN)
    stirling = 0.5 * jnp.log(m_s) - HALF_LOG_2PI - stirling_correction(m_s)
    m_d = jnp.where(large, 1.0, m)
    direct = m_d * jnp.log(m_d) - m_d - jax.lax.lgamma(m_d)
    return jnp.where(large, stirling, direct)


def _log_pw(w, n):
    """Normalised log-density of W = log(X/n), X ~ χ²_n."""
    return 0.5 * n * (w - jnp.expm1(w)) + _log_pw_constant(n)


def _q(w, n):
    """log p_W (up to its constant) and its two derivatives."""
    e = jnp.expm1(w)
    return 0.5 * n * (w - e), -0.5 * n * e, -0.5 * n * (e + 1.0)


def _bessel(nu, z):
    """Bessel parts at order ν, argument z (one call site for every Bessel evaluation).

    ν is one order per point, passed unbroadcast: the core's order-only terms stay at ν's shape
    (broadcasting it to every node made the release kernel ~20 % slower)."""
    return bessel_core(nu, z, 0.25 * z * z)


def _log_pu_from(u, d, nc, parts):
    """Normalised log p_U(u), U = log Y, Y ~ χ²_d(nc), from Bessel ``parts`` at z = √(nc·e^u).

    The two cancellation-free forms of :func:`fisherrdp._src.distributions.ncx2.density.logpdf_kernel`
    (₀F₁ form for z ≤ max(30, d/2), Bessel form above), from one shared Bessel evaluation.
    Far in the right tail, where y = e^u or y/θ² overflows (float32: from u ≈ 88, reached by
    the level layout's nodes at n_syn ≈ 1), it is −inf (the density is e^{−y/2} there); such
    nodes are evaluated at u = 0 (double ``where``: inf − inf and 0·inf would give NaN). log y
    is u, passed as such: where e^u underflows (float32 from u ≈ −103, reached at d = 1) the
    χ² log-density stays finite. (An earlier form relied on XLA simplifying log(exp(u)) to u;
    jax 0.11's XLA does not, and float32 at d = 1 came out NaN on CPU and GPU.)
    """
    half = 0.5 * d
    z = jnp.sqrt(nc * jnp.exp(u))
    use_series = z <= jnp.maximum(SERIES_MAX_Z, half)
    ncb = jnp.where(use_series, 1.0, nc)
    tail = jnp.isinf(jnp.exp(u) / ncb)
    u = jnp.where(tail, 0.0, u)
    y = jnp.exp(u)
    series = central_logpdf(y, half, log_x=u) - 0.5 * nc + parts.log_0f1
    diff = jnp.sqrt(y) - jnp.sqrt(ncb)
    bessel = -_LOG2 - 0.5 * diff * diff + 0.5 * (half - 1.0) * jnp.log(y / ncb) + parts.log_ive
    return jnp.where(tail, -jnp.inf, u + jnp.where(use_series, series, bessel))


def _p(u, d, theta):
    """log p_U(u) up to a constant, U = log Y, Y ~ χ²_d(θ²), and its two derivatives."""
    y = jnp.exp(u)
    z = theta * jnp.exp(0.5 * u)
    nu = 0.5 * d - 1.0
    parts = _bessel(nu, z)
    ratio, g = parts.ratio, parts.log_0f1
    value = 0.5 * d * u - 0.5 * y + g
    first = 0.5 * (d - y + z * ratio)
    second = 0.25 * (-2.0 * y + z * (z * (1.0 - ratio * ratio) - 2.0 * nu * ratio))
    return value, first, second


def _inner(w, c, d, n, theta):
    """h_c(w) = log p_U(c − w) + log p_W(w) (unnormalised) and its w-derivatives."""
    pv, p1, p2 = _p(c - w, d, theta)
    qv, q1, q2 = _q(w, n)
    return pv + qv, q1 - p1, p2 + q2, (p1, p2, q2)


def _window(fn, x0, drop, cap, aux0=None, with_value=False):
    """Windows (peak, σ, lo, hi) of :func:`~fisherrdp._src.numerics.windows.window_search`
    with this module's step counts and curvature floor."""
    return window_search(
        fn,
        x0,
        drop,
        cap=cap,
        min_curvature=MIN_CURVATURE,
        peak_steps=PEAK_STEPS,
        edge_steps=EDGE_STEPS,
        aux=aux0,
        with_value=with_value,
    )


def _inner_guess(c, d, n, theta):
    """Precision-weighted guess of argmax_w h_c(w) (Gaussian approximations of U and W)."""
    mean = d + theta * theta
    u0 = jnp.log(mean)
    tau_u = mean * mean / (2.0 * (d + 2.0 * theta * theta))
    tau_w = 0.5 * n
    return jnp.clip((c - u0) * tau_u / (tau_u + tau_w), -60.0, 10.0)


@held_fixed
def _inner_windows(c, d, n, theta, drop):
    """Inner windows (peak, σ, lo, hi) of h_c for rows c, theta (shape (B,))."""

    def fn(w, aux):
        value, first, second, _ = _inner(w, c[:, None], d, n, theta[:, None])
        return value, first, second, aux

    return _window(fn, _inner_guess(c, d, n, theta), drop, 2.0, jnp.zeros(()))


@held_fixed
def _outer_windows(alpha, d, n, a, b, drop):
    """Windows (peak, σ, lo, hi, value at the peak), rows (3,): the tilted
    p_{C,a}^α p_{C,b}^{1−α} (α = 1: p_{C,a}) searched from far left of the bulk (row 0) and
    from the bulk (row 1), and p_{C,b} from its bulk (row 2) (module docstring).

    The surrogate is, per law, log(e^{F_A} + e^{F_B}) of the Laplace approximations
    F = h_c(w*) − ½ log(−h_c''(w*)) at both inner modes of h_c: the small-Y one
    w_A = log(1 − d/n) (X near its mode; for d < n only), and the small-X one
    w_B ≈ c − log(d + θ²) (Y near its bulk). Its slope and curvature leave out the width
    term's derivatives (it varies slowly but where the modes trade places). Where d < n, row 0
    starts ``FAR_START_MARGIN`` left of c_b = (n u_b − b²)/(n − d), u_b = log(d + b²), where law b
    turns from the small-X to the small-Y explanation (for a < b, L(c) rises towards
    (b² − a²)/2 beyond it, so that p_a e^{(α−1)L} may peak again), and climbs (steps capped
    at ``FAR_CAP``) to the nearest mode; where d ≥ n it starts that margin left of row 1.
    """
    def bulk(beta):
        kappa = beta * a + (1.0 - beta) * b
        root = jnp.sqrt(kappa * kappa + 4.0 * d)
        r0 = jnp.where(kappa >= 0.0, 0.5 * (kappa + root), 2.0 * d / (root - kappa))
        return 2.0 * jnp.log(r0)

    u_b = jnp.log(d + b * b)
    # d ≥ n: the small-Y explanation never takes over on the left (its tail, of slope d/2, is
    # the steeper one), and row 0 starts where row 1 does, less the margin.
    below_bulk = d < n
    far = jnp.where(below_bulk, (n * u_b - b * b) / jnp.where(below_bulk, n - d, 1.0), jnp.inf)
    far = far - FAR_START_MARGIN
    starts = jnp.stack([jnp.minimum(far, bulk(alpha) - FAR_START_MARGIN), bulk(alpha),
                        bulk(0.0 * alpha)])
    thetas = jnp.stack([a, b])[:, None, None, None]  # (law, 1, 1, 1)
    betas = jnp.stack([alpha, alpha, 0.0 * alpha])
    weights = jnp.stack([betas, 1.0 - betas])[:, :, None]  # (law, row, 1)
    w_small_y = jnp.log(jnp.clip(1.0 - d / n, 1e-3, 1.0))

    log_typical = jnp.log(d + jnp.stack([a, b]) ** 2)[:, None, None]  # (law, 1, 1)

    def fn(c, w):
        # Inner peaks, shape (law, 3, 3, 2): modes A (small Y) and B (small X), each from its
        # own guess at every step (a warm start could let both fall into one basin).
        w = jnp.stack([jnp.broadcast_to(w_small_y, log_typical.shape[:1] + c.shape),
                       c[None] - log_typical], -1)

        def nested(_, state):
            w, _ = state
            value, first, second, parts = _inner(w, c[None, ..., None], d, n, thetas)
            return _newton_peak(w, first, second, 2.0), (value, second) + parts

        zeros = jnp.zeros_like(w)
        w, (value, second, p1, p2, q2) = jax.lax.fori_loop(
            0, NESTED_STEPS, nested, (w, (zeros,) * 5)
        )
        concave = second < 0.0
        f2 = jnp.where(concave, p2 * q2 / jnp.where(concave, second, -1.0), p2)
        # Per law, log(e^{F_A} + e^{F_B}) and its first two derivatives; F_B alone where both
        # Newton runs reached one peak, and where d ≥ n: h_c has one mode there (module
        # docstring), and A's run, still on its way to it, would count it twice (up to log 2
        # per law, times α in the tilted row).
        single = (jnp.abs(w[..., :1] - w[..., 1:]) < 1e-3) | ~below_bulk
        value = value - 0.5 * jnp.log(jnp.maximum(-second, MIN_CURVATURE))
        value = value.at[..., :1].set(jnp.where(single, -jnp.inf, value[..., :1]))
        total = jax.nn.logsumexp(value, -1)
        share = jnp.exp(value - total[..., None])
        first = jnp.sum(share * p1, -1)
        curvature = jnp.sum(share * (f2 + p1 * p1), -1) - first * first
        return (
            jnp.sum(weights * total, 0),
            jnp.sum(weights * first, 0),
            jnp.sum(weights * curvature, 0),
            w,
        )

    # fn starts its inner peaks from their guesses at every step: the carried ones are unused.
    unused = jnp.zeros((2, starts.shape[0], 3, 2), starts.dtype)
    return _window(fn, starts, drop, FAR_CAP, unused, with_value=True)


def _panels(centre, sigma, lo, hi, nodes, linear, step, geo):
    """Graded Gauss–Legendre panels from ``centre`` out to ``lo`` and ``hi``, rows (B,).

    Returns nodes and weights of shape (B, 2·(linear + geo)·nodes).
    """
    below = _side(sigma, centre - lo, nodes, linear, step, geo)
    above = _side(sigma, hi - centre, nodes, linear, step, geo)
    out_nodes = jnp.concatenate([centre[:, None] - below[0], centre[:, None] + above[0]], 1)
    return out_nodes, jnp.concatenate([below[1], above[1]], 1)


def _drop(dtype) -> float:
    return -math.log(float(jnp.finfo(dtype).eps)) + DROP_MARGIN


@held_fixed
def _w_levels(n, dtype):
    """Points where log p_W has dropped by ``LEVELS`` below its mode w = 0, both sides, and 0.

    Newton on the convex equations t − 1 + e^{−t} = 2L/n (left, w = −t) and
    e^r − 1 − r = 2L/n (right, w = r) from starting points above their roots (monotone).
    """
    s = 2.0 * jnp.asarray(LEVELS, dtype) / n

    def step(_, state):
        t, r = state
        t = t - (t + jnp.expm1(-t) - s) / -jnp.expm1(-t)
        r = r - (jnp.expm1(r) - r - s) / jnp.expm1(r)
        return t, r

    t, r = jax.lax.fori_loop(0, LEVEL_STEPS, step, (s + 1.0, jnp.log1p(s) + jnp.sqrt(2.0 * s)))
    return jnp.concatenate([-t, jnp.zeros(1, dtype), r])


@held_fixed
def _u_levels(d, thetas):
    """Mode, scale and level points of log p_U, U = log Y, Y ~ χ²_d(θ²), for laws ``thetas`` (K,).

    Returns (mode (K,), σ (K,), points (K, 2·len(LEVELS))): the points below the mode where
    log p_U has dropped by ``LEVELS``, then those above it (safeguarded Newton steps, each point
    kept on its own side of the mode, as in :func:`_window`).
    """
    levels = jnp.asarray(LEVELS, thetas.dtype)

    def peak_step(_, u):
        _, first, second = _p(u, d, thetas)
        return _newton_peak(u, first, second, 2.0)

    mode = jax.lax.fori_loop(0, PEAK_STEPS, peak_step, jnp.log(d + thetas * thetas))
    top, _, second = _p(mode, d, thetas)
    sigma = 1.0 / jnp.sqrt(jnp.maximum(-second, MIN_CURVATURE))
    side = jnp.concatenate([-jnp.ones_like(levels), jnp.ones_like(levels)])
    target = top[:, None] - jnp.concatenate([levels, levels])
    centre, width = mode[:, None], sigma[:, None]

    def level_step(_, x):
        value, first, _ = _p(x, d, thetas[:, None])
        ok = side * first < 0.0
        new = x - (value - target) / jnp.where(ok, first, 1.0)
        new = jnp.where(ok, new, x + side * width)
        return jnp.where(side * (new - centre) > 0.0, new, 0.5 * (x + centre))

    start = centre + side * width * jnp.sqrt(2.0 * jnp.concatenate([levels, levels]))
    points = jax.lax.fori_loop(0, LEVEL_STEPS, level_step, start)
    return mode, sigma, points


def _u_edges(laws):
    """Inner level-layout edges of each law (in u) from :func:`_u_levels`: (mode, [mode, points])."""
    mode, _, points = laws
    return mode, jnp.concatenate([mode[:, None], points], axis=1)


def _u_envelope(laws):
    """Level-layout edges (in u) covering both laws of ``laws`` (K = 2), in the format of
    :func:`_u_edges`: the lower level points of the law further down, both modes, and the upper
    points (but the first) of the law further up; the switch at the lower mode."""
    mode, _, points = laws
    half = len(LEVELS)
    edges = jnp.concatenate([points[:, :half].min(0), mode, points[:, half + 1 :].max(0)])
    return mode.min(0, keepdims=True), edges[None]


def _inner_nodes(c, d, n, theta, drop, law, union=None, offset=0):
    """Inner nodes w (B, K) and log(weight · p_W), at outer nodes c (B,), for laws theta (B,).

    ``law`` is (mode, level-layout edges in u) of log p_U for each row (:func:`_u_edges`). Rows with
    c below the bulk (c < the mode of U, the mode of W being 0) take the level layout; the
    others graded panels about the peak of h_c. Rows with ``union`` (B,) true take the graded edges
    from the union of their own window and that of the row ``offset`` further on (the ψ form's
    posterior mean covers both laws' posteriors; their ``law`` should cover both too, see
    :func:`_u_envelope`); one call finds every window (one call site).
    """
    peak, sigma, lo, hi = _inner_windows(c, d, n, theta, drop)
    if union is not None:
        lo_pair = jnp.minimum(lo, jnp.roll(lo, -offset))
        hi_pair = jnp.maximum(hi, jnp.roll(hi, -offset))
        lo = jnp.where(union, lo_pair, lo)
        hi = jnp.where(union, hi_pair, hi)
    w_g, wt_g = _panels(peak, sigma, lo, hi, INNER_NODES, INNER_LINEAR, INNER_STEP, INNER_GEO)
    pad = jnp.zeros((c.shape[0], INNER_NODES), c.dtype)
    w_g = jnp.concatenate([w_g, pad + peak[:, None]], axis=1)
    wt_g = jnp.concatenate([wt_g, pad], axis=1)
    mode, u_edges = law
    levels = _w_levels(n, c.dtype)
    w_points = jnp.broadcast_to(levels, (c.shape[0], 2 * len(LEVELS) + 1))
    edges = jnp.sort(jnp.concatenate([w_points, c[:, None] - u_edges], axis=1), axis=1)
    w_l, wt_l = composite_gauss_legendre_on(edges, INNER_NODES)
    use_levels = (c < mode)[:, None]
    w = jnp.where(use_levels, w_l, w_g)
    # The padding nodes have weight 0: log 0 = −inf by a double where (the tangent of log at
    # 0 is 0/0, NaN in forward mode).
    weight = jnp.where(use_levels, wt_l, wt_g)
    used = weight > 0.0
    log_weight = jnp.where(used, jnp.log(jnp.where(used, weight, 1.0)), -jnp.inf)
    return w, log_weight + _log_pw(w, n)


def _log_pu(u, d, theta):
    """Normalised log-density of U = log Y at u, Y ~ χ²_d(θ²) (u, theta broadcast)."""
    u, theta = jnp.broadcast_arrays(u, theta)
    z = theta * jnp.exp(0.5 * u)
    return _log_pu_from(u, d, theta * theta, _bessel(0.5 * d - 1.0, z))


def _log_p_at(c, d, n, theta, drop, law):
    """(log p_C(c) + θ²/2 up to a constant common to all θ, its c-derivative), rows c, θ.

    From :func:`_p` (one Bessel call per node); accurate enough to locate the hockey-stick
    crossing, whose error enters the divergence only at second order.
    """
    w, lw = _inner_nodes(c, d, n, theta, drop, law)
    value, first, _ = _p(c[:, None] - w, d, theta[:, None])
    terms = value + lw
    log_pc = jax.nn.logsumexp(terms, axis=1)
    slope = jnp.sum(jnp.exp(terms - log_pc[:, None]) * first, axis=1)
    return log_pc, slope


@held_fixed
def _crossing(eps, d, n, a, b, lo, hi, start, drop, laws):
    """c* with L(c*) = ε on [lo, hi] (L monotone): Newton on the quadrature L from ``start``,
    safeguarded by bisection (``ROOT_STEPS`` halvings alone would reach 1e-12 of the bracket).

    Where L − ε keeps one sign on [lo, hi], the end where it is closest to changing sign.
    """
    sign = jnp.where(a >= b, 1.0, -1.0)
    shift = -0.5 * (a - b) * (a + b)

    def f(c):
        log_pc, slope = _log_p_at(jnp.stack([c, c]), d, n, jnp.stack([a, b]), drop, _u_edges(laws))
        return sign * (log_pc[0] - log_pc[1] + shift - eps), sign * (slope[0] - slope[1])

    return bracketed_newton(f, start, lo, hi, ROOT_STEPS)


def _side(sigma, extent, nodes, linear, step, geo):
    """Offsets ≥ 0 and weights of graded panels covering [0, extent] (rows)."""
    dtype = sigma.dtype
    lin = step * sigma[:, None] * jnp.arange(1, linear + 1, dtype=dtype)
    frac = jnp.arange(1, geo + 1, dtype=dtype) / geo
    start = (step * linear * sigma)[:, None]
    extent = jnp.maximum(extent, 0.0)[:, None]
    far = start * jnp.exp(frac * jnp.log(jnp.maximum(extent / start, 1.0)))
    edges = jnp.concatenate(
        [jnp.zeros_like(start), jnp.minimum(lin, extent), jnp.where(extent > start, far, extent)],
        axis=1,
    )
    return composite_gauss_legendre_on(edges, nodes)


def _first_pass(x, d, n, a, b, hockey):
    """Rényi (``hockey`` false, x = α) or hockey-stick (true, x = ε) divergence, finite n, one
    point, but for the ψ form: ``(value, needs_psi, psi)``.

    ``value`` is the hockey stick, or the direct form's Rényi divergence; ``needs_psi`` where
    the Rényi divergence takes the ψ form instead ((α − 1) D below :func:`psi_max`, a ≠ b), which
    :func:`_psi_pass` computes from ``psi`` (its nodes; more than half of the kernel's work, so
    that :func:`_release_batch` runs it only where a point of the batch needs it). One function
    for both divergences, so that one compilation serves both public functions. Inputs are valid
    and finite.
    """
    alpha = jnp.where(hockey, 2.0, x)
    eps = jnp.where(hockey, x, 0.0)
    drop = _drop(x.dtype)
    a_psi = jnp.where(a != b, a, b + 1e-3)
    # Outer windows, from the surrogate that follows both inner modes (module docstring):
    # row 0 — tilted p_a^α p_b^{1−α} (Rényi) or p_a (hockey); row 1 — p_b. For Rényi with
    # a < b, the tilted integrand's also from far left of the bulk: two distinct modes within
    # ``drop`` of each other share the direct form's nodes, else the higher one takes them all.
    below = ~hockey & (a < b)
    peaks, sigmas, los, his, tops = _outer_windows(
        jnp.where(hockey, 1.0, alpha), d, n, a_psi, b, drop)
    # The surrogate's curvature is unreliable at the corner-like far peak (slope d/2 on its
    # left, a steep fall where L leaves its plateau): panels no wider than TILTED_SIGMA_MAX.
    sigmas = jnp.minimum(sigmas, TILTED_SIGMA_MAX)
    # For a < b, p_b^{1−α} p_a^α = p_b e^{αL} with L decreasing, so the tilted integrand has
    # dropped by at least ``drop`` where p_b has, above its mode, and falls on from there.
    his = his.at[:2].set(jnp.where(below, jnp.minimum(his[:2], his[2]), his[:2]))
    distinct = his[0] < peaks[1]
    bimodal = below & distinct & (jnp.abs(tops[0] - tops[1]) < drop)
    pick = jnp.where(below & (tops[0] > tops[1]), 0, 1)
    rows = jnp.stack([pick, 2])
    peak, sigma, lo, hi = peaks[rows], sigmas[rows], los[rows], his[rows]
    lo_u, hi_u = jnp.minimum(lo[0], lo[1]), jnp.maximum(hi[0], hi[1])
    # Hockey stick: integrate p_a − e^ε p_b from the crossing c* over the side where L > ε.
    laws = _u_levels(d, jnp.stack([a_psi, b]))
    c_star = _crossing(eps, d, n, a_psi, b, lo_u, hi_u, peak[0], drop, laws)
    up = a >= b
    extent_h = jnp.where(
        up, jnp.maximum(hi[0], c_star) - c_star, c_star - jnp.minimum(lo[0], c_star)
    )
    off_h, wh = _side(
        sigma[:1], extent_h[None], OUTER_NODES, 2 * OUTER_LINEAR, OUTER_STEP, 2 * OUTER_GEO
    )
    c_h = c_star + jnp.where(up, 1.0, -1.0) * off_h[0]
    c, wc = _panels(
        peak,
        sigma,
        jnp.stack([lo[0], lo_u]),
        jnp.stack([hi[0], hi_u]),
        OUTER_NODES,
        OUTER_LINEAR,
        OUTER_STEP,
        OUTER_GEO,
    )
    # The two modes, half of the panels each: the bulk's from the far window's upper edge up.
    half = (OUTER_NODES, OUTER_LINEAR // 2, OUTER_STEP, OUTER_GEO // 2)
    c_m, w_m = _panels(peaks[1:], sigmas[1:], jnp.maximum(los[1:], his[:1]), his[1:], *half)
    c_f, w_f = _panels(peaks[:1], sigmas[:1], los[:1], his[:1], *half)
    c_split = jnp.concatenate([c_m[0], c_f[0]])
    w_split = jnp.concatenate([w_m[0], w_f[0]])
    c_d = jnp.where(hockey, c_h, jnp.where(bimodal, c_split, c[0]))
    w_d_outer = jnp.where(hockey, wh[0], jnp.where(bimodal, w_split, wc[0]))
    c_p = c[1]
    m = c_d.shape[0]
    # Inner rules, found together: rows [a, b] at the direct-form / hockey-stick nodes, then
    # [b, a] at the ψ-form nodes, where law b's rule reaches a's window too.
    thetas = jnp.concatenate([jnp.full(m, a_psi), jnp.full(m, b)])
    c_all = jnp.concatenate([c_d, c_d, c_p, c_p])
    theta_all = jnp.concatenate([thetas, thetas[::-1]])
    block = jnp.arange(4 * m) // m
    union = block == 2
    # log p_U levels per row: law a, law b, both (ψ form: law b's rule covers a's too), law a.
    table = jax.tree.map(lambda x, e: jnp.concatenate([x, e]), _u_edges(laws), _u_envelope(laws))
    row_law = jax.tree.map(lambda x: x[jnp.array([0, 1, 2, 0])[block]], table)
    w, lw = _inner_nodes(c_all, d, n, theta_all, drop, row_law, union, m)
    # The direct form's and the hockey stick's log-densities (rows [a, b] at their nodes).
    u = c_all[: 2 * m, None] - w[: 2 * m]
    theta_u = theta_all[: 2 * m, None] + 0.0 * u
    z_pu = (theta_u * jnp.exp(0.5 * u)).ravel()
    pu_parts = jax.tree.map(lambda x: x.reshape(u.shape), _bessel(0.5 * d - 1.0, z_pu))
    log_q = _log_pu_from(u, d, theta_u * theta_u, pu_parts) + lw[: 2 * m]
    log_pc = jax.nn.logsumexp(log_q, axis=1)
    log_pa, log_pb = log_pc[:m], log_pc[m:]
    # Hockey stick.
    log_ratio = jnp.minimum(eps + log_pb - log_pa, 0.0)
    hockey_value = jnp.sum(w_d_outer * jnp.exp(log_pa) * -jnp.expm1(log_ratio))
    # Rényi, 1. direct form.
    log_int = jax.nn.logsumexp(alpha * log_pa + (1.0 - alpha) * log_pb, b=w_d_outer)
    needs_psi = (jax.lax.stop_gradient(log_int < psi_max(log_int.dtype)) & (a != b) & ~hockey)
    value = jnp.where(hockey, hockey_value, log_int / (alpha - 1.0))
    # Rényi, 2. ψ form (law b at the ψ form's nodes, row block 2), for _psi_pass.
    psi = (c_all[2 * m : 3 * m, None] - w[2 * m : 3 * m], lw[2 * m : 3 * m], wc[1], alpha, a_psi)
    return value, needs_psi, psi


def _psi_pass(psi, needs_psi, d, b):
    """The ψ form of the Rényi divergence at one point, from :func:`_first_pass`'s ``psi``:
    ``(value, used)``, ``used`` where ``needs_psi`` and the form is usable (its value finite;
    elsewhere ``value`` is finite and unused)."""
    u, lw, w_psi, alpha, a_psi = psi
    theta_u = b + 0.0 * u  # law b
    # One Bessel evaluation for the log-densities and for ℓ/δ at the ψ form's nodes.
    r = jnp.exp(0.5 * u).ravel()
    l_args, l_finish = log_ratio_over_delta_args(r, d, jnp.full(r.shape, a_psi), b)
    z_pu = (theta_u * jnp.exp(0.5 * u)).ravel()
    parts = _bessel(0.5 * d - 1.0, jnp.concatenate([z_pu, l_args]))
    k = z_pu.shape[0]
    pu_parts = jax.tree.map(lambda x: x[:k].reshape(u.shape), parts)
    l_over = l_finish(parts.ratio[k:], parts.log_0f1[k:], parts.log_ive[k:]).reshape(u.shape)
    # L/δ as a posterior mean of e^{ℓ} under law b.
    q_p = _log_pu_from(u, d, theta_u * theta_u, pu_parts) + lw
    log_pb_psi = jax.nn.logsumexp(q_p, axis=1)
    post = jnp.exp(q_p - log_pb_psi[:, None])
    delta = a_psi - b
    # (e^L − 1)/δ; nodes of zero posterior weight (far in a tail) may overflow: drop them, by
    # a double where (their ℓ/δ set to 0), or 0 · inf would reach the gradient as NaN.
    weighted = post > 0.0
    l_over = jnp.where(weighted, l_over, 0.0)
    z = delta * l_over
    z_safe = jnp.where(z == 0.0, 1.0, z)
    exprel = jnp.where(z == 0.0, 1.0, jnp.expm1(z_safe) / z_safe)
    mean = jnp.sum(jnp.where(weighted, post * l_over * exprel, 0.0), axis=1)
    y = delta * mean
    # y = E[e^L] − 1 > −1; where rounding (at far nodes, when the direct form is used) puts it
    # at or below −1, log1p is NaN: a double where, so that no NaN reaches a gradient.
    usable = y > -1.0
    y_safe = jnp.where(usable & (y != 0.0), y, 1.0)
    l_over_c = mean * jnp.where(usable & (y != 0.0), jnp.log1p(y_safe) / y_safe, 1.0)  # L/δ
    used = needs_psi & jnp.all(usable)
    log_e = jnp.where(used, log_psi_sum(alpha, log_pb_psi, l_over_c, delta, w_psi), -1.0)
    e = jnp.exp(log_e)
    return jnp.exp(log_e - jnp.log(alpha - 1.0)) * (jnp.log1p(e) / e), used


def _safe_point(x, d, n, a, b, hockey):
    """The arguments (elementwise) made valid and finite (a point outside the domain, or with
    n_syn = inf, is computed at safe values and its result replaced), and the two flags."""
    lower_ok = jnp.where(hockey, x >= 0.0, x > 1.0)
    valid = lower_ok & (d >= 1.0) & (n >= 1.0) & (a >= 0.0) & (b >= 0.0)
    infinite = n == jnp.inf
    x = jnp.where(valid, x, jnp.where(hockey, 0.0, 2.0))
    d = jnp.where(valid, d, 1.0)
    a = jnp.where(valid, a, 1.0)
    b = jnp.where(valid, b, 1.0)
    n_f = jnp.where(valid & ~infinite, n, 1.0)
    return (x, d, n_f, a, b), valid, infinite


def _release_batch(x, d, n, a, b, hockey, with_infinite):
    """Both divergences elementwise over broadcast arrays; ``hockey`` one flag for all.

    The first pass at every point; the ψ form (:func:`_psi_pass`) under a ``lax.cond`` on
    whether any point of the batch takes it: the hockey stick never does, the Rényi divergence
    only where (α − 1) D < :func:`psi_max` (a ≈ b). Where it is skipped the kernel costs ~45 %
    of its full run. (Under an outer ``vmap`` the condition is batched and both run, as before.)
    """
    shape = jnp.broadcast_shapes(*map(jnp.shape, (x, d, n, a, b)))
    flat = [jnp.broadcast_to(v, shape).ravel() for v in (x, d, n, a, b)]
    safe, valid, infinite = _safe_point(*flat, hockey)
    x, d, n_f, a, b = safe
    value, needs_psi, psi = jax.vmap(_first_pass, (0, 0, 0, 0, 0, None))(x, d, n_f, a, b, hockey)
    needs_psi = needs_psi & valid & ~infinite
    small, used = jax.lax.cond(
        jnp.any(needs_psi),
        lambda: jax.vmap(_psi_pass)(psi, needs_psi, d, b),
        lambda: (jnp.zeros_like(value), jnp.zeros_like(needs_psi)),
    )
    value = jnp.where(used, small, value)
    value = jnp.where(a == b, jnp.zeros_like(value), value)
    if with_infinite:
        limit = jnp.where(hockey, jax.vmap(hockey_stick_kernel)(x, d, a, b),
                          jax.vmap(renyi_kernel)(x, d, a, b))
        value = jnp.where(infinite, limit, value)
    else:
        value = jnp.where(infinite, jnp.nan, value)
    return jnp.where(valid, value, jnp.nan).reshape(shape)


@jax.jit
def _release_vec(x, d, n, a, b, hockey):
    """Both divergences elementwise over broadcast arrays (n_syn = inf entries included);
    ``hockey`` a scalar flag.

    A module-level function (not a ``jnp.vectorize`` object): the engine keeps the traced
    programs of named module functions on disk (:func:`~fisherrdp._src.core.engine.stored_kernel`).
    """
    return _release_batch(x, d, n, a, b, hockey, True)


@jax.jit
def release_finite_vec(x, d, n, a, b, hockey):
    """:func:`_release_vec` without the n_syn = inf branch (not compiled)."""
    return _release_batch(x, d, n, a, b, hockey, False)


def _release_logpdf_one(t, d, n, a):
    valid = (d >= 1.0) & (n >= 1.0) & (a >= 0.0)
    infinite = n == jnp.inf
    positive = (t > 0.0) & (t < jnp.inf)
    t_s = jnp.where(positive, t, 1.0)
    n_f = jnp.where(valid & ~infinite, n, 1.0)
    d_s = jnp.where(valid, d, 1.0)
    a_s = jnp.where(valid, a, 0.0)
    c = (jnp.log(t_s) - jnp.log(n_f))[None]
    law = _u_edges(_u_levels(d_s, a_s[None]))
    w, lw = _inner_nodes(c, d_s, n_f, a_s[None], _drop(c.dtype), law)
    u = jnp.concatenate([(c[:, None] - w).ravel(), jnp.log(t_s)[None]])
    log_pu = _log_pu(u, d_s, a_s)  # at the inner nodes, and at t itself (n_syn = inf)
    log_pc = jax.nn.logsumexp(log_pu[:-1] + lw.ravel())
    value = jnp.where(infinite, log_pu[-1], log_pc) - jnp.log(t_s)
    value = jnp.where(positive, value, -jnp.inf)
    return jnp.where(valid, value, jnp.nan)


_release_logpdf_vec = jax.jit(jnp.vectorize(_release_logpdf_one))


def _release_logpdf(t: ArrayLike, d: ArrayLike, n_syn: ArrayLike, a: ArrayLike) -> jax.Array:
    r"""Log-density of :math:`T = \|ZV\|^2 = YX`, :math:`Y \sim \chi^2_d(a^2)`,
    :math:`X \sim \chi^2_{n}` (private; for tests and other modules).

    .. math::

        \log p_T(t) = \log \int_0^\infty p_{\chi^2_d(a^2)}(t/x)\, p_{\chi^2_n}(x)\, \frac{dx}{x}.

    Computed by the inner quadrature of :mod:`fisherrdp._src.divergences.release_k1`
    (relative accuracy of the density ~1e-13 where it is not far in a tail).

    Args:
      t: point(s); ``t <= 0`` gives ``-inf``.
      d: degrees of freedom of :math:`Y`, ``d >= 1``.
      n_syn: degrees of freedom of :math:`X`, ``n_syn >= 1``; ``inf`` gives the
        :math:`\chi^2_d(a^2)` log-density.
      a: amplitude, ``a >= 0`` (non-centrality :math:`a^2`).

    Returns:
      Array of the broadcast shape of the arguments.

    Raises:
      ValueError: for concrete ``d < 1``, ``n_syn < 1`` or ``a < 0`` (NaN inside ``jit``).

    Examples:
      >>> from fisherrdp._src.divergences.release_k1 import _release_logpdf
      >>> print(f"{float(_release_logpdf(5.0, 5.0, 1.0, 2.0)):.6f}")
      -3.139887
    """
    check_concrete("d", d, lower=1.0)
    check_concrete("n_syn", n_syn, lower=1.0)
    check_concrete("a", a, lower=0.0)
    return _release_logpdf_vec(*as_float_arrays(*(jnp.asarray(v) for v in (t, d, n_syn, a))))


@validated(alpha=ORDER, d=DIMENSION, n_syn=DIMENSION, a=NONNEG, b=NONNEG)
def renyi_release_k1(
    alpha: ArrayLike, d: ArrayLike, n_syn: ArrayLike, a: ArrayLike, b: ArrayLike
) -> jax.Array:
    r"""Exact Rényi divergence of the synthetic release, k = 1: :math:`D_\alpha(ZV \,\|\, ZW)`.

    .. math::

        D_\alpha(ZV \,\|\, ZW) = \frac{1}{\alpha - 1}\log\int_0^\infty
        p_{T,a}(t)^\alpha\, p_{T,b}(t)^{1-\alpha}\, dt, \qquad
        p_{T,\theta} = \mathrm{law}(Y_\theta X),

    :math:`Y_\theta \sim \chi^2_d(\theta^2)`, :math:`X \sim \chi^2_{n}` independent,
    :math:`n` = ``n_syn``, with :math:`a = \|v\|`, :math:`b = \|w\|` (``docs/math/release.md#sufficiency-of-t``: given
    :math:`V`, :math:`\|ZV\|^2` is sufficient; the paper's Prop. 7.1 studies the gap to the
    :math:`n = \infty` value :func:`~fisherrdp.divergences.renyi_ncx2`, which this returns where
    ``n_syn`` is ``inf``). Increasing in ``n_syn``. Computed by nested Gauss–Legendre
    quadrature in log space, to 1e-8 relative or better (measured against mpmath: at most
    4.9e-11 for α ∈ [1.01, 64], d ∈ [1, 1000], n_syn ∈ [1, 1e7], a, b ∈ [0, 20], also
    a ≈ b and d = n_syn = 1, and where the tilted integrand has a second mode far in the left
    tail: see :mod:`fisherrdp._src.divergences.release_k1`).
    Elementwise with broadcasting; works under
    ``jit`` and ``vmap``. Differentiable in all five arguments, in forward and reverse mode
    (``jax.jacfwd``, ``jax.grad``; the quadrature's nodes are held fixed, the integrand is
    differentiated), to first order: equal to central differences to 1e-8 (table:
    ``docs/derivatives.md``).

    Args:
      alpha: Rényi order, ``alpha > 1``.
      d: dimension of the model, real, ``d >= 1``.
      n_syn: number of synthetic records, real, ``n_syn >= 1`` (``inf`` allowed).
      a: amplitude ``‖v‖ >= 0``.
      b: amplitude ``‖w‖ >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype (float32 inputs
      are computed in float64 where the device has it, the result rounded to float32:
      ``docs/howto/float32.md``).

    Raises:
      ValueError: if concrete ``alpha <= 1``, ``d < 1``, ``n_syn < 1``, ``a < 0`` or ``b < 0``.
        Inside ``jit`` no check is possible: such entries come out as NaN.

    Examples:
      >>> from fisherrdp.divergences import renyi_release_k1
      >>> print(f"{float(renyi_release_k1(2.0, 5.0, 10.0, 2.0, 1.5)):.5f}")  # ``docs/math/release.md#spot-values``
      0.09027
    """
    return _dispatch(False, alpha, d, n_syn, a, b)


@validated(eps=NONNEG, d=DIMENSION, n_syn=DIMENSION, a=NONNEG, b=NONNEG)
def hockey_stick_release_k1(
    eps: ArrayLike, d: ArrayLike, n_syn: ArrayLike, a: ArrayLike, b: ArrayLike
) -> jax.Array:
    r"""Hockey-stick divergence of the synthetic release, k = 1: :math:`E_{e^\varepsilon}(ZV \,\|\, ZW)`.

    .. math::

        E_{e^\varepsilon}(ZV \,\|\, ZW) = \int_0^\infty \bigl(p_{T,a}(t)
        - e^\varepsilon p_{T,b}(t)\bigr)_+\, dt, \qquad p_{T,\theta} = \mathrm{law}(Y_\theta X),

    :math:`Y_\theta \sim \chi^2_d(\theta^2)`, :math:`X \sim \chi^2_{n}` (``docs/math/release.md`` and §5;
    the finite-release counterpart of :func:`~fisherrdp.divergences.hockey_stick_ncx2`, which
    this returns where ``n_syn`` is ``inf``). One direction only: the privacy profile is the
    maximum over ``(a, b)`` and ``(b, a)``. The optimal set is a half-line in :math:`t` (the
    likelihood ratio is monotone); computed by quadrature from the crossing point (method and
    measured accuracy: :mod:`fisherrdp._src.divergences.release_k1`); float32 inputs in float64
    where the device has it, the result in float32 (``docs/howto/float32.md``). Elementwise with
    broadcasting; works under ``jit`` and ``vmap``. Differentiable in all five arguments, in
    forward and reverse mode, to first order, as :func:`renyi_release_k1`.

    Args:
      eps: :math:`\varepsilon \ge 0` (:math:`\gamma = e^\varepsilon`).
      d: dimension of the model, real, ``d >= 1``.
      n_syn: number of synthetic records, real, ``n_syn >= 1`` (``inf`` allowed).
      a: amplitude ``‖v‖ >= 0``.
      b: amplitude ``‖w‖ >= 0``.

    Returns:
      δ in [0, 1], with the broadcast shape of the arguments.

    Raises:
      ValueError: for concrete ``eps < 0``, ``d < 1``, ``n_syn < 1``, ``a < 0`` or ``b < 0``
        (NaN inside ``jit``).

    Examples:
      >>> from fisherrdp.divergences import hockey_stick_release_k1
      >>> print(f"{float(hockey_stick_release_k1(0.1, 5.0, 1.0, 2.0, 1.0)):.8f}")
      0.06687335
    """
    return _dispatch(True, eps, d, n_syn, a, b)


def _dispatch(hockey, x, d, n_syn, a, b):
    """The jitted kernel; without the n_syn = inf branch (not compiled) when none is inf.

    Both divergences of float32 inputs are computed in the wide dtype (float64 where the device
    has it, ``docs/howto/float32.md``), the result rounded to float32. The hockey stick:
    δ = ∫ p_a (1 − e^{ε − L}) is small against P_a(L > ε) as ε grows, and float32's
    ~eps32·|log p| in L reaches δ multiplied by that ratio. The Rényi divergence: float32 missed
    the float32 criterion at 7 of 512 points, by up to 3.9× (four at orders α = 22–30 with
    n_syn ≤ 4.2), and float32 gave only 1.23× float64's points/s on an H200
    (``docs/howto/accelerators.md``). On a TPU both stay float32.
    """
    args = as_float_arrays(x, d, n_syn, a, b)
    return in_wide_dtype(functools.partial(_dispatch_in_dtype, hockey), *args)


def _dispatch_in_dtype(hockey, x, d, n, a, b):
    if any(is_tracer(v) for v in (x, d, n, a, b)):
        return _release_vec(x, d, n, a, b, jnp.asarray(hockey))
    infinite = n == jnp.inf
    if bool(jnp.all(infinite)):  # the n_syn = inf limit alone
        limit = hockey_stick_ncx2 if hockey else renyi_ncx2
        return jnp.broadcast_to(
            limit(x, d, a, b), jnp.broadcast_shapes(*map(jnp.shape, (x, d, n, a, b)))
        )
    kernel = _release_vec if bool(jnp.any(infinite)) else release_finite_vec
    return map_bucketed(kernel, x, d, n, a, b, static=(bool(hockey),), cap=BUCKET_CAP)[0]

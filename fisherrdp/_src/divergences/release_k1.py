r"""Exact divergences of the finite synthetic release for k = 1 (``docs/math/release.md``).

Given :math:`V`, the release :math:`ZV \sim \mathcal N(0, \|V\|^2 I_{n})`, so
:math:`T = \|ZV\|^2 = Y X` is sufficient, with :math:`Y = \|V\|^2 \sim \chi^2_d(a^2)` and
:math:`X \sim \chi^2_{n}` independent (:math:`n` = ``n_syn``):
:math:`D_\alpha(ZV \,\|\, ZW) = D_\alpha(\mathrm{law}(Y_a X) \,\|\, \mathrm{law}(Y_b X))`.

**Density** (``docs/math/release.md#the-mixture-method``). :math:`Y` is the Poisson mixture
:math:`\sum_j \pi_\mu(j)\,\chi^2_{d+2j}`, :math:`\pi_\mu(j) = e^{-\mu}\mu^j/j!`,
:math:`\mu = \theta^2/2`, and the product of independent :math:`\chi^2_{2P}` and
:math:`\chi^2_{2Q}` variables has, in :math:`s = \log t`, the density

.. math::

    g_j(s) = \frac{2\,(t/4)^{(P+Q)/2} K_\nu(\sqrt t)}{\Gamma(P)\Gamma(Q)},
    \qquad P = d/2 + j,\ Q = n/2,\ \nu = |P - Q|,

so :math:`p_\theta(s) = \sum_j \pi_\mu(j) g_j(s)`: the terms :math:`g_j` are shared by the two
laws, which differ only in their Poisson weights. Per node :math:`s`
(:func:`_mixture`):

* *Window* (:func:`_posterior_window`). Where each law's posterior of :math:`j` lies, from a
  closed form of its approximate log (``∂_ν log K_ν(x) ≈ asinh(ν/x)``: no Bessel function) on
  zoomed grids of ``INDEX_GRID`` indices: all cells within ``INDEX_DROP`` = 60 of the maximum
  (the posterior can have two modes, one each side of :math:`P = Q`: :math:`\log K_\nu` is
  convex in :math:`\nu`). At most ``MAX_STEPS`` terms a chain.
* *Anchors.* Where the chains start and at each law's mode, the term is computed directly and
  without cancellation: for :math:`R = \sqrt{\nu^2 + t} \ge 32`, Debye's expansion of
  :math:`K_\nu` and Stirling's series of :math:`\Gamma` combine into
  :math:`-P\varphi(1 + \kappa/P) - Q\varphi(1 + \kappa/Q) + \tfrac12\log(PQ/R) - \tfrac12\log 2\pi
  - r(P) - r(Q) + \log U`, :math:`\varphi(x) = x - 1 - \log x`, :math:`\kappa` the saddle
  point (nothing of size :math:`n` or :math:`d` cancels), the K form of
  :func:`~fisherrdp._src.special.bessel_k.bessel_k_parts` below; the Poisson weights by
  Loader's deviance.
* *Recurrence.* From the anchors the terms follow in one ``while_loop`` (as long as the
  longest window of the batch) with one ``log`` a step for both laws:
  :math:`q_\nu = xK_{\nu+1}/(2K_\nu)` by :math:`q_\nu = \nu + t/(4q_{\nu-1})` (stable:
  :math:`K` is the dominant solution upward), the ratio of neighbouring terms times that of
  neighbouring weights being :math:`q\mu/(P(j+1))` up (chain U, :math:`P \ge Q`) and
  :math:`4q(P-1)j/(t\mu)` down (chain D): :math:`\nu` grows by one a step on both; where the
  window lies on one side of :math:`P = Q`, both chains step that way, one over each half of
  it. The sums
  are taken relative to each chain's running maximum, one ``exp`` a law a step (a sum relative
  to one mode's term overflowed at the other's, at :math:`(\alpha, d, n, a, b) =
  (8, 2, 10, 10, 12)`), and each law's sum is re-anchored at its mode, where the exact term is
  known: the increments' rounding drifts ~1e-15 a step (3.9e-12 in D at (2, 2, 10, 20, 19)
  without it; compensated sums did not help).

**One search, one copy of the density.** Each point runs one ``fori_loop`` over stages of
``GRID`` = 32 densities (:func:`_stages`), so that one compiled copy of the mixture serves every
search and quadrature node: a first zoom of a grid over an analytic range (the laws'
bulks; the left tail's slope :math:`\min(d, n)/2` and the tilt's gain there for
:math:`a < b`, which reaches the second mode far in the left tail:
``tests/fixtures/release_k1_bimodal.json``; no lower than ``S_FLOOR``; on the right, where the
tilt moves the peak for large :math:`\alpha(a - b)`: ``tests/fixtures/release_k1_tilted.json``)
from bounds on the log-densities without sums (the term at each law's reference index below,
plus the log of the window's length and ``BOUND_SLACK`` above: no loop runs where the windows
are longest), then ``ZOOMS`` = 2 zooms onto the cells within
:math:`e^{-45}` of the tilted log-integrand's maximum (:math:`\beta\log p_a + (1-\beta)\log p_b`,
β = α, or 1 for the hockey stick); the parabola at the grid's maximum, then a fine grid of
±``FINE_HALF_WIDTH`` σ and its parabola (peak and scale σ; where the two flanks' distances
to a drop of 2 differ more than ``FLANK_RATIO``-fold, a corner, σ ≤ ``TILTED_SIGMA_MAX``);
for the hockey stick three grids over the bracket of the crossing
:math:`L(s) = \varepsilon`: the peak's grid over the zoomed range, then ``CROSSING_STAGES`` = 2
more (:math:`L` is monotone: the family is TP2; each grid shrinks it 31-fold, then inverse cubic
interpolation); then the nodes, 32 at a time.

**Rényi divergence.** The trapezoid rule with ``NODES`` = 96 nodes in :math:`u`,
:math:`s = \text{peak} + \sigma\sinh u` (exponentially accurate for the analytic integrand,
spacing :math:`\sigma h` at the peak, growing into the tails). Where
:math:`(\alpha - 1)D <` ``psi_max`` the ψ form of :mod:`~fisherrdp._src.divergences.renyi` on
the same nodes, with :math:`L/\delta` from the posterior mean of :math:`\pi_a/\pi_b` under law
:math:`b` (cancellation-free in :math:`a - b`).

**Hockey stick.** ``HOCKEY_PANELS`` × ``HOCKEY_PANEL_NODES`` = 8 × 12 Gauss–Legendre nodes in
the same sinh variable on the side of the crossing where :math:`p_a > e^\varepsilon p_b` (no
kink inside a panel).

**Derivatives** (:func:`_points`: a ``custom_jvp`` over a batch of points). The nodes are held fixed (the
rules are accurate for any placement near theirs, and the hockey stick's integrand vanishes at
the crossing); the log-densities at them get tangents from identities, by the same recurrence
(:func:`_node_tangents`; no derivative through a search or a series): with posterior means
:math:`E` over :math:`j`, :math:`\partial_\theta\log p = 2E[j]/\theta - \theta`,
:math:`\partial_d \log p = \tfrac12 E[s/2 - \log 2 + \operatorname{sgn}(P-Q)\,\partial_\nu\log K_\nu - \psi(P)]`,
:math:`\partial_n\log p = \tfrac12 E[s/2 - \log 2 - \operatorname{sgn}(P-Q)\,\partial_\nu\log K_\nu - \psi(Q)]`,
where :math:`\partial_\nu \log K_\nu` follows the chain by
:math:`D_{\nu+1} = ((q_\nu - \nu)D_{\nu-1} + 1 + \nu D_\nu)/q_\nu` (:math:`K_{\nu+1} = K_{\nu-1} +
(2\nu/x)K_\nu` differentiated in :math:`\nu`) from the K core's derivative at the anchor, and
:math:`\psi(P + 1) = \psi(P) + 1/P`, :math:`\psi(P - 1) = \psi(P) - 1/(P - 1)`. The ψ form's
:math:`L/\delta` has the tangent :math:`(dL - (L/\delta)\,d\delta)/\delta` (relative error
~eps/|δ| as a → b). The outer formula is differentiated as it stands (``jax.jvp``), and
reverse mode transposes the linear rule. Measured against Richardson central differences at
the derivative matrix's points (``tests/fixtures/derivatives.json``): within 8.2e-11 of the
largest derivative (Rényi) and 6.3e-11 (hockey stick), forward and reverse mode within 2.2e-14
of each other. (With 4 crossing grids instead of 6 the hockey stick's were 2.2e-9 off: a
crossing off by Δ leaves a boundary term of order Δ.)

``n_syn = inf`` entries give :func:`~fisherrdp.divergences.renyi_ncx2` /
:func:`~fisherrdp.divergences.hockey_stick_ncx2` (double ``where``; called directly when every
entry is ``inf``, not compiled when none is). Rows whose Poisson window exceeds ``MAX_STEPS``
= 2^21 at a quadrature node come out NaN (the searches use the partial sums; 1420 steps at
(d, n_syn, a, b) = (1000, 1e7, 100, 99), the corner of the documented domain, at α = 2).

**Accuracy** (float64), against mpmath references at 40 digits (``tests/fixtures/release_k1.json``,
made by ``tests/fixtures/make_release_k1_fixtures.py``: the mixture summed term by term in
mpmath with an mpmath outer quadrature, independent of the recurrences, anchors, windows and
rules above; ``tests/test_release_k1.py`` fails above 10 × the measured numbers, the claims of
``tests/fixtures/accuracy/release_k1.json``): the 26 Rényi rows outside n_syn = 1 with
d ≥ 100 within 2.8e-13 relative (α ∈ [1.01, 64], d ∈ [1, 1000], n_syn ∈ [1, 1e7] and
non-integer, a, b ∈ [0, 20], a ≈ b, a or b = 0); the two rows with n_syn = 1, d ≥ 100 within
1.5e-12; the 10 bimodal references of ``tests/fixtures/make_release_k1_bimodal.py`` (a second
mode far in the left tail) within 4.2e-12, and its corner-shaped far peak at
(32, 1, 10, 10, 12) within 5.4e-11; the 3 references of
``tests/fixtures/make_release_k1_tilted.py`` (the tilted integrand's peak far right, α = 64 to
256) within 1.1e-13; the 9 hockey-stick rows within 2.6e-15 absolute. The
log-density against mpmath term by term (``tests/fixtures/make_release_k1_density.py``: s from
−100 to the right tail, d = n_syn = 1 and 2, n_syn = 1 with d = 100, n_syn = 1000, a = 20,
d ≫ n_syn, non-integer d and n_syn) within 5.4e-15 of max(1, |log p|).

**Cost.** Per point 5 search stages of 32 densities (the first without sums) and 96 nodes
(Rényi), or 6 search stages and 96 nodes (hockey stick), each node a recurrence over its
window (16–53 terms at (a, b) = (2, 1.5), about 15000 at (d, n_syn, a, b) = (1000, 1e7, 100,
99): ``docs/math/release.md``). A step of the recurrence takes one logarithm for both laws and
both chains (the ratio is selected before the log), and the Rényi divergence sums L/δ at every
stage instead of under a ``cond`` on the stage; the value's anchors run the K core's
small-order branch only where it is used, gathered across the chunk's points
(:func:`_small_orders_where_needed`; ``docs/math/release.md#cost``).
Eager calls order their points by max(a, b) and evaluate them in chunks of up to
``CPU_BUCKET_CAP`` points on a CPU, ``BUCKET_CAP`` on an accelerator. ``benchmarks/bench_release_k1.py`` measures it against the n_syn = ∞
functions, side by side.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.scipy.special import digamma, gammaln, logsumexp, polygamma
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays, for_device, in_wide_dtype
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import (
    DIMENSION,
    NONNEG,
    ORDER,
    check_concrete,
    is_tracer,
    validated,
)
from fisherrdp._src.distributions.ncx2.density import logpdf_kernel
from fisherrdp._src.divergences.hockey_stick import hockey_stick_kernel, hockey_stick_ncx2
from fisherrdp._src.divergences.ncx2_quadrature import log_psi_sum
from fisherrdp._src.divergences.renyi import psi_max, renyi_kernel, renyi_ncx2
from fisherrdp._src.numerics.cancellation import log1p_minus_x
from fisherrdp._src.special.bessel import HALF_LOG_2PI, stirling_correction
from fisherrdp._src.special.bessel_k import (
    DEBYE_MIN_RADIUS,
    KParts,
    bessel_k_parts,
    small_order_parts,
    uses_debye,
)

__all__ = ["hockey_stick_release_k1", "renyi_release_k1"]

_LOG2 = math.log(2.0)
#: The Poisson indices' search range reaches ``WINDOW_SD`` (√top + 1) past the bound ``top`` on
#: the posterior's modes (:func:`_posterior_window`); a margin of ``WINDOW_MARGIN`` indices is
#: added each side of the window.
WINDOW_SD = 16.0
WINDOW_MARGIN = 4.0
#: Most recurrence steps per chain (a guard: rows whose window at a quadrature node is longer
#: come out NaN; the window grows with a and b: 1420 steps at (d, n_syn, a, b) =
#: (1000, 1e7, 100, 99), 3753 at (5, 10, 200, 199), at α = 2; more than 2^16 where the tilted
#: integrand peaks far right, at (α, d, n_syn, a, b) = (91, 3.6, 3.8, 86, 24)).
MAX_STEPS = 1 << 21
#: The approximate posterior of the Poisson index: doublings of the grid's upper end, points
#: of the grid, zooms onto the cells within the drop below its maximum (50 and a margin for the
#: approximation).
TOP_DOUBLINGS = 4
INDEX_GRID = 8
INDEX_ZOOMS = 3
INDEX_DROP = 60.0
#: Outer rule: points of the search grid (also the batch of nodes evaluated at a time), zooms
#: onto the cells within e^{−``DROP``} of the maximum, parabolic refinements of the peak, and
#: the trapezoid rule's nodes in the sinh variable (Rényi).
GRID = 32
ZOOMS = 2
#: The hockey stick's zooms after the bound stage: one (β = 1, so the bound's slack is not
#: multiplied by α as in the Rényi divergence's tilt; the same values to 1e-16 on the mpmath rows,
#: ~10% of its time).
HOCKEY_ZOOMS = 1
DROP = 45.0
NODES = 96
#: The fine grid's test for a corner-like peak, and σ there at most TILTED_SIGMA_MAX.
FLANK_RATIO = 4.0
TILTED_SIGMA_MAX = 1.0
#: Hockey stick: Gauss–Legendre panels × nodes beyond the crossing.
HOCKEY_PANELS = 8
HOCKEY_PANEL_NODES = 12
#: Where the Debye/Stirling form of a term replaces its K form, and where Stirling's series
#: replaces log Γ (remainders of Γ and of the Poisson weights).
STIRLING_MIN = 20.0
#: Lowest s = log t searched (x = e^{s/2} stays a normal float64; the tilted integrand of
#: a < b peaks far left only where the tilt's gain outweighs the tail's slope).
S_FLOOR = -1400.0
#: Largest chunk of an eager call (``map_bucketed``; its points sorted by max(a, b)), by
#: platform: a chunk's loops run as long as its longest Poisson window, so chunks are as small
#: as keeps the device busy: on a CPU 32 points (2 × 32 × 32 chains, thousands of lanes; the
#: benchmark's 64 points ran 1.2× faster in two chunks than in one, 2 cores), on an accelerator
#: 256.
BUCKET_CAP = 256
CPU_BUCKET_CAP = 32
#: Points a call computes at once: larger calls (under ``jit``, or a scan's chunk) run slices
#: of this many points in sequence, so that their temporaries stay those of ``SLICE`` points
#: (``docs/math/release.md#memory``).
SLICE = 4096
#: The name of the points' ``vmap`` axis (:func:`_points`), across which the K core's
#: small-order branch runs on the anchors that need it only (:func:`_small_orders_where_needed`).
POINTS_AXIS = "release_points"
#: Each round of that branch takes 1/``SMALL_ORDER_SHARE`` of the chunk's anchors.
SMALL_ORDER_SHARE = 4


def _batched_like(x, value):
    """``value`` in ``x``'s shape, computed from ``x``: under ``vmap`` it is batched wherever
    ``x`` is, so that a loop's batching rule finds its carries batched from the start and
    traces the body once (a constant start became batched after the first pass and made it
    trace the body again: ~1.5 s of the first ``jax.grad`` call's tracing)."""
    value = jnp.asarray(value, x.dtype)
    return jnp.where(x == x, value, value)


def _posterior_window(s, d, n, lam):
    """The Poisson indices holding the posterior of j at s under Pois(λ/2), and its mode (no
    Bessel function). With ∂_ν log K_ν(x) ≈ asinh(ν/x) (Debye's leading term), the log-posterior
    of j is about

    A(j) = j (log(λ/2) + s/2 − log 2) − log Γ(j + 1) − log Γ(d/2 + j) + u asinh(u/x) − √(u² + t),

    u = P − Q = j + d/2 − n/2, whose derivative is the approximate score F(j). On
    ``INDEX_GRID`` points over [0, top] (top from a bound on F, doubled while F(top) ≥ 0, then
    ``WINDOW_SD`` (√top + 1) added for the last mode's tail), ``INDEX_ZOOMS`` times, the cells
    within ``INDEX_DROP`` of A's maximum are kept, one more each side: A can have two modes
    (log K_ν is convex in ν: one below P = Q, one above), and where x is small it has a corner
    at u = 0 (a rule integrating F smeared it: 45 units off in A at (s, d, n, a) = (−25, 2.5,
    4.5, 8.6), the second mode's mass cut, 4e-3 in log p; Newton steps on F from the prior
    mean could end far from the mass, at the clip, where F' ≥ 0). Measured: A within ~2.5 of the exact
    log-posterior over j ≤ 95 there. Returns (lo, hi, mode): the window and the grid point
    of A's maximum, all 0 where λ = 0."""
    x = jnp.exp(0.5 * s)
    half = 0.5 * (n - d)
    positive = lam > 0
    lam_safe = jnp.where(positive, lam, 1.0)
    drift = jnp.log(0.5 * lam_safe) + 0.5 * s - _LOG2

    def asinh_over_x(u):
        # asinh(u/x) = sgn(u) (log(|u| + √(u² + t)) − s/2): finite where x underflows.
        far = jnp.abs(u) > x
        radius = jnp.sqrt(u * u + x * x)
        log_form = jnp.sign(u) * (jnp.log(jnp.where(far, jnp.abs(u) + radius, 1.0)) - 0.5 * s)
        return jnp.where(far, log_form, jnp.arcsinh(u / x)), radius

    def log_weight(j):
        u = j - half
        asinh, radius = asinh_over_x(u)
        return j * drift - gammaln(j + 1.0) - gammaln(0.5 * d + j) + u * asinh - radius

    def score(j):
        return drift - digamma(j + 1.0) - digamma(0.5 * d + j) + asinh_over_x(j - half)[0]

    # F → −∞ as j → ∞ (like −log j). With ψ(y) > log(y − 1/2) and asinh(u/x) ≤ log(1 + 2|u|/x),
    # F(j) < log(λ/4) + log(x + 2j + d) − 2 log j, negative from the root of
    # j² = λ(x + 2j + d)/4 on, which is below λ/2 + √(λ(x + d)/4): every mode lies below top.
    # (Both loops rolled: the score's and the weight's digamma and log Γ are most of the
    # program's size where they are unrolled.)
    top = 0.5 * lam_safe + jnp.sqrt(0.25 * lam_safe * (x + d)) + 10.0
    top = jax.lax.fori_loop(0, TOP_DOUBLINGS,
                            lambda _, top: jnp.where(score(top) < 0.0, top, 2.0 * top), top)
    # Past the last mode, its tail: beyond top, F < G with G' ≈ −2/top, so log A falls by 60
    # within ~8 √top (the posterior can be far wider than the prior: curvature −2/j at j ≫ μ).
    hi = top + WINDOW_SD * (jnp.sqrt(top) + 1.0)
    shape = (INDEX_GRID,) + (1,) * jnp.ndim(s)
    fraction = jnp.linspace(0.0, 1.0, INDEX_GRID).astype(s.dtype).reshape(shape)
    idx = jnp.arange(INDEX_GRID).reshape(shape)

    def zoom(_, window):
        lo, hi, _ = window
        grid = lo + (hi - lo) * fraction
        log_w = log_weight(grid)
        keep = log_w >= jnp.max(log_w, axis=0) - INDEX_DROP
        first = jnp.maximum(jnp.min(jnp.where(keep, idx, INDEX_GRID), axis=0) - 1, 0)
        last = jnp.minimum(jnp.max(jnp.where(keep, idx, -1), axis=0) + 1, INDEX_GRID - 1)
        mode = jnp.take_along_axis(grid, jnp.argmax(log_w, axis=0)[None], axis=0)[0]
        return (jnp.take_along_axis(grid, first[None], axis=0)[0],
                jnp.take_along_axis(grid, last[None], axis=0)[0], mode)

    zero = _batched_like(top, 0.0)
    lo, hi, mode = jax.lax.fori_loop(0, INDEX_ZOOMS, zoom, (zero, hi, zero))
    return (jnp.where(positive, lo, zero), jnp.where(positive, hi, zero),
            jnp.where(positive, mode, zero))


def _small_orders_where_needed(needed, v, x):
    """:func:`~fisherrdp._src.special.bessel_k.small_order_parts` where ``needed``, across the
    points of the ``vmap`` over ``POINTS_AXIS``: the needed anchors of every point gathered
    (``all_gather``: unbatched, computed once), evaluated in rounds of 1/``SMALL_ORDER_SHARE``
    of them (as many as they fill: one where few need it, the common case), scattered back; each
    point takes its own. Elsewhere the values are 0 or the branch's at ``v``, ``x`` (the
    caller's ``where`` keeps Debye's there). Values bit for bit those of the elementwise
    branch; on the benchmark's points 15% of the anchors need it, and each call of the value ran
    1.2-1.3x faster. The value's stages and the tangent rule's alike (:func:`_points`)."""
    needed_all, v_all, x_all = (jax.lax.all_gather(a, POINTS_AXIS) for a in (needed, v, x))
    shape = v_all.shape
    flat_needed, flat_v, flat_x = needed_all.ravel(), v_all.ravel(), x_all.ravel()
    size = flat_v.size
    block = max(1, size // SMALL_ORDER_SHARE)
    rounds_max = -(-size // block)
    order = jnp.argsort(~flat_needed, stable=True)  # the needed ones first
    order = jnp.concatenate([order, jnp.zeros(rounds_max * block - size, order.dtype)])
    rounds = (jnp.sum(flat_needed) + block - 1) // block
    out = KParts(*(jnp.zeros_like(flat_x),) * len(KParts._fields))

    def one_round(r, out):
        idx = jax.lax.dynamic_slice(order, (r * block,), (block,))
        parts = small_order_parts(flat_v[idx], flat_x[idx])
        return jax.tree.map(lambda o, p: o.at[idx].set(p), out, parts)

    out = jax.lax.fori_loop(0, rounds, one_round, out)
    me = jax.lax.axis_index(POINTS_AXIS)
    return jax.tree.map(lambda o: o.reshape(shape)[me], out)


def _phi1p(e):
    """φ(1 + e) = e − log1p(e) ≥ 0, without cancellation near e = 0."""
    return -log1p_minus_x(e)


def _gamma_remainder(z):
    """log Γ(z) − (z − ½) log z + z − ½ log 2π (Stirling's series for z ≥ ``STIRLING_MIN``)."""
    big = z >= STIRLING_MIN
    zb = jnp.where(big, z, STIRLING_MIN)
    zs = jnp.where(big, 1.0, z)
    direct = gammaln(zs) - (zs - 0.5) * jnp.log(zs) + zs - HALF_LOG_2PI
    return jnp.where(big, stirling_correction(zb), direct)


def _log_poisson(j, mu):
    """log(e^{−μ} μ^j / j!) by Loader's deviance −j φ(μ/j) − ½ log 2πj − r(j) for
    j ≥ ``STIRLING_MIN`` (nothing of size j or μ cancels), directly below."""
    pos = (j > 0) & (mu > 0)
    big = pos & (j >= STIRLING_MIN)
    js = jnp.where(big, j, STIRLING_MIN)
    ms = jnp.where(big, mu, 1.0)
    loader = -js * _phi1p(ms / js - 1.0) - 0.5 * jnp.log(2.0 * math.pi * js) - _gamma_remainder(js)
    jd = jnp.where(big, 0.0, j)
    md = jnp.where(mu > 0, mu, 1.0)
    direct = -mu + jd * jnp.log(md) - gammaln(jd + 1.0)
    return jnp.where(big, loader, jnp.where(pos | (j == 0), direct, -jnp.inf))


def _log_term(P, Q, s, parts):
    r"""log g(s) of S = log(χ²_{2P} χ²_{2Q}) and the ratio q = x K_{ν+1}/(2K_ν) at
    x = e^{s/2}, ν = |P − Q|, from the K core's ``parts`` at (ν, x): Debye's expansion with
    Stirling's series (no cancellation of terms of size P or Q) where R = √(ν² + e^s) ≥ 32, the
    K form below."""
    x = jnp.exp(0.5 * s)
    nu = jnp.abs(P - Q)
    q = 0.5 * (x + nu + parts.excess)
    log_4pq = 2.0 * _LOG2 + jnp.log(P) + jnp.log(Q)
    gap = jnp.exp(log_4pq) * jnp.expm1(s - log_4pq)  # e^s − 4PQ
    big = nu >= x
    radius = jnp.where(big, nu, x) * jnp.sqrt(
        1.0 + (jnp.where(big, x, nu) / jnp.where(big, nu, x)) ** 2)
    kappa = gap / (2.0 * (radius + P + Q))  # the saddle point: e^u = P + κ, e^v = Q + κ
    # Debye's sum is the K core's (its criterion: the sum is 0 elsewhere).
    debye = uses_debye(nu, x)
    rs = jnp.where(debye, radius, 2.0 * DEBYE_MIN_RADIUS)

    def deviance(p, other):
        # φ(r), r = 1 + κ/p = (R + p − other)/(2p); where p < other, R − ν = e^s/(R + ν).
        e = kappa / p
        log_r = jnp.where(p >= other, jnp.log(radius + nu) - jnp.log(2.0 * p),
                          s - jnp.log(2.0 * p) - jnp.log(radius + nu))
        small = jnp.abs(e) < 0.1
        return jnp.where(small, _phi1p(jnp.where(small, e, 0.0)), jnp.expm1(log_r) - log_r)

    stirling_form = (-P * deviance(P, Q) - Q * deviance(Q, P)
                     + 0.5 * (jnp.log(P) + jnp.log(Q) - jnp.log(rs)) - HALF_LOG_2PI
                     - _gamma_remainder(P) - _gamma_remainder(Q) + parts.log_debye_sum)
    k_form = (_LOG2 + 0.5 * (P + Q) * (s - 2.0 * _LOG2) + parts.log_k
              - gammaln(P) - gammaln(Q))
    return jnp.where(debye, stirling_form, k_form), q


def _mixture(s, d, n, a, b, scores, with_y=True, summed=True, across_points=False):
    """log p_a(s), log p_b(s) of S = log T, y = L/δ (L = log p_a/p_b, δ = a − b, from the
    posterior mean of π_a/π_b under law b: the ψ form's), and unless ``scores`` is False each
    law's posterior means of (j, sgn(P − Q) ∂_ν log K_ν, ψ(P)) (the tangent rule's), computed
    where ``scores`` (a scalar, unbatched under ``vmap``: a real conditional) is true and 0
    where not. ``with_y`` (a Python bool) false: y is not summed (its value is then
    meaningless); the Rényi divergence's searches sum it too, unused (a ``cond`` on the stage
    in each step of the recurrence cost more than the sum). ``summed`` (a scalar, may be
    traced) false: no chain runs, and the values are each law's term at its reference index (a
    lower bound of log p_a, log p_b) and, in y's place, the log of the window's length (the
    first search stage's bounds, :func:`_stages`). ``across_points`` (a Python bool): the K
    core's small-order branch runs on the anchors that need it across the points' ``vmap``
    (:func:`_small_orders_where_needed`; :func:`_stages` under :func:`_points`).

    Two chains of one recurrence each, run together by one ``while_loop``: U up from the
    first j with P ≥ Q, D down from the one below (ν = |P − Q| grows by one a step in both);
    where the window lies on one side of that j, both chains go that way, from an end and the
    middle of the window.
    """
    s, d, n, a, b = jnp.broadcast_arrays(s, d, n, a, b)
    # Both laws' windows in one call (the two laws stacked on a leading axis).
    (lo_a, lo_b), (hi_a, hi_b), (mode_a, mode_b) = _posterior_window(
        s[None], d[None], n[None], jnp.stack([a * a, b * b]))
    # The hull of both laws' windows (a law with μ = 0 is its j = 0 term alone: none).
    jl = jnp.floor(jnp.minimum(jnp.where(a > 0, lo_a, jnp.inf), jnp.where(b > 0, lo_b, jnp.inf)))
    jh = jnp.ceil(jnp.maximum(hi_a, hi_b))
    jl = jnp.maximum(0.0, jnp.where(jl <= jh, jl, 0.0) - WINDOW_MARGIN)
    jh = jh + WINDOW_MARGIN
    Q = 0.5 * n
    # Two chains, each stepping away from the first j with P ≥ Q (ν = |P − Q| grows by one a
    # step: K is the dominant solution upward): where the window straddles it, U up from it and
    # D down from the j below; where the window lies on one side of it, both chains that way,
    # one over each half (half the steps: one chain idled there before).
    crossing = jnp.ceil(Q - 0.5 * d)
    mid = jnp.floor(0.5 * (jl + jh + 1.0))
    all_up, all_down = crossing <= jl, crossing > jh
    up = jnp.stack([jnp.where(all_down, -1.0, 1.0),
                    jnp.where(all_up, 1.0, -1.0)]).astype(s.dtype)
    first = jnp.stack([jnp.where(all_up, jl, jnp.where(all_down, mid, crossing)),
                       jnp.where(all_up, mid, jl)])
    last = jnp.stack([jnp.where(all_up, mid - 1.0, jh),
                      jnp.where(all_up, jh, jnp.where(all_down, mid - 1.0, crossing - 1.0))])
    needed = jnp.max(last - first, axis=0) + 1.0
    covered = needed <= MAX_STEPS
    n_steps = jnp.where(summed, jnp.max(jnp.clip(needed, 0.0, MAX_STEPS)), 0).astype(jnp.int32)
    # Each law's reference index, the integer nearest its posterior mode: the chains'
    # increments carry rounding that drifts with the distance from their anchor (~1e-15 a
    # step); each law's sums are re-anchored there, where term and weight are computed directly.
    # (A law with μ = 0 is its j = 0 term alone, at its reference: off the window.)
    ref_a = jnp.where(a > 0, jnp.clip(jnp.round(mode_a), jl, jh), 0.0)
    ref_b = jnp.where(b > 0, jnp.clip(jnp.round(mode_b), jl, jh), 0.0)
    start = jnp.where(up > 0, first, last)
    j_all = jnp.concatenate([start, jnp.stack([ref_a, ref_b])])
    j_all = jnp.where(j_all >= 0.0, j_all, 0.0)
    P_all = 0.5 * d + j_all
    Q_all = jnp.broadcast_to(Q, P_all.shape)
    s_all = jnp.broadcast_to(s, P_all.shape)
    x_all = jnp.exp(0.5 * s_all)
    nu_all = jnp.abs(P_all - Q_all)
    has_scores = scores is not False
    small_orders = _small_orders_where_needed if across_points else None
    k_parts = functools.partial(bessel_k_parts, small_orders=small_orders)
    if has_scores:
        # ∂_ν log K_ν at the anchors (where scores), and at ν + 1 from ∂_ν log q: the
        # recurrence's start.
        def derivative(nu):
            return jax.jvp(lambda v: k_parts(v, x_all), (nu,), (jnp.ones_like(nu),))

        def no_derivative(nu):
            parts = k_parts(nu, x_all)
            return parts, jax.tree.map(jnp.zeros_like, parts)

        parts, dparts = jax.lax.cond(scores, derivative, no_derivative, nu_all)
    else:
        parts = k_parts(nu_all, x_all)
    term_all, q_all = _log_term(P_all, Q_all, s_all, parts)
    mu_a, mu_b = 0.5 * a * a, 0.5 * b * b
    exact_a = term_all[2] + _log_poisson(j_all[2], mu_a)
    exact_b = term_all[3] + _log_poisson(j_all[3], mu_b)
    la0 = term_all[:2] + _log_poisson(j_all[:2], mu_a)
    lb0 = term_all[:2] + _log_poisson(j_all[:2], mu_b)
    pos_a, pos_b = mu_a > 0, mu_b > 0
    log_mu_a = jnp.log(jnp.where(pos_a, mu_a, 1.0))
    log_mu_b = jnp.log(jnp.where(pos_b, mu_b, 1.0))
    delta = a - b
    ok = (a > 0) & (b > 0) & (delta != 0)  # ℓ = log π_a/π_b finite
    bs = jnp.where(ok, b, 1.0)
    ds = jnp.where(ok, delta, 1.0)
    slope_ell = 2.0 * jnp.log1p(ds / bs) / ds  # ℓ(j)/δ = −(a + b)/2 + j·slope_ell
    t = jnp.exp(s)
    zero = _batched_like(la0, 0.0)
    smallest = float(jnp.finfo(s.dtype).tiny)
    sign = up  # sgn(P − Q): each chain steps away from P = Q
    if has_scores:
        dlog_k = dparts.log_k
        dlog_k_next = dlog_k + (1.0 + dparts.excess) / (2.0 * q_all)
        features0 = (dlog_k[:2], dlog_k_next[:2], digamma(P_all[:2]))
        features_ref = jnp.stack([j_all[2:], jnp.sign(P_all[2:] - Q_all[2:]) * dlog_k[2:],
                                  digamma(P_all[2:])])
        n_features = 3
    else:
        features0 = ()
        n_features = 0
    feature_zero = jnp.zeros((n_features,) + la0.shape, s.dtype) + zero

    def body(carry):
        i, j, nu, q, la, lb, ma, mb, sa, sb, sy, rec_a, rec_b, fa, fb, extra = carry
        valid = (j >= first) & (j <= last)
        rec_a = jnp.where(valid & (j == ref_a), la, rec_a)
        rec_b = jnp.where(valid & (j == ref_b), lb, rec_b)
        # Sums relative to each chain's running maximum m, one exp a law: e = e^{−|l − m|}
        # rescales the sums (l > m) or weighs the term (l ≤ m). (The posterior of j can have
        # two modes, one each side of P = Q, log K_ν being convex in ν: a sum relative to one
        # mode's term can overflow at the other's.) Off the window the chains run on
        # unchecked (past j = 0 in the far left tail they grow without bound): masked.
        gap_a = jnp.where(valid, la - ma, -jnp.inf)
        gap_b = jnp.where(valid, lb - mb, -jnp.inf)
        ea, eb = jnp.exp(-jnp.abs(gap_a)), jnp.exp(-jnp.abs(gap_b))
        new_a, new_b = gap_a > 0.0, gap_b > 0.0
        ma, mb = jnp.where(new_a, la, ma), jnp.where(new_b, lb, mb)

        def accumulate(total, value, e, new):
            return jnp.where(new, total * e + value, total + e * value)

        sa, sb = accumulate(sa, 1.0, ea, new_a), accumulate(sb, 1.0, eb, new_b)

        def y_terms(sy):
            ell = -0.5 * (a + b) + slope_ell * jnp.clip(j, jl, jh)  # finite off the window
            z = ds * ell
            near = jnp.abs(z) < 1e-8
            g = ell * jnp.where(near, 1.0 + 0.5 * z, jnp.expm1(z) / jnp.where(near, 1.0, z))
            return accumulate(sy, g, eb, new_b)

        if with_y:
            sy = y_terms(sy)
        P = 0.5 * d + j
        # One log per step for both laws and both chains: the ratio of neighbouring terms
        # times that of neighbouring Poisson weights, U: q/(P (j + 1)) (j → j + 1), D:
        # 4q(P − 1) j e^{−s} (j → j − 1; double where: chain D runs on past j = −1, where
        # P (j + 1) = 0). (A log per chain, selected after, was 12% of the call.)
        ratio = jnp.where(up > 0, q / jnp.where(up > 0, P * (j + 1.0), 1.0),
                          jnp.maximum(4.0 * q * (P - 1.0) * j, smallest))
        inc = jnp.log(ratio) - jnp.where(up > 0, 0.0, s)
        la = la + inc + up * log_mu_a
        lb = lb + inc + up * log_mu_b
        nu = nu + 1.0
        q = nu + t / (4.0 * q)  # q_ν = ν + t/(4 q_{ν−1}): K is the dominant solution upward
        if has_scores:

            def features(carry):
                fa, fb, (dk, dk_next, psi_p) = carry
                f = jnp.where(valid, jnp.stack([j, sign * dk, psi_p]), 0.0)
                fa, fb = accumulate(fa, f, ea, new_a), accumulate(fb, f, eb, new_b)
                # ∂_ν log K along ν: D_{ν+1} = ((q_ν − ν) D_{ν−1} + 1 + ν D_ν)/q_ν (from
                # K_{ν+1} = K_{ν−1} + (2ν/x) K_ν differentiated in ν); ψ(P ± 1) = ψ(P) ± 1/P.
                dk, dk_next = dk_next, ((q - nu) * dk + 1.0 + nu * dk_next) / q
                denominator = jnp.where(up > 0, P, P - 1.0)  # 0 only past j = 0 on chain D
                psi_p = psi_p + up / jnp.where(denominator != 0.0, denominator, 1.0)
                return fa, fb, (dk, dk_next, psi_p)

            fa, fb, extra = jax.lax.cond(scores, features, lambda carry: carry, (fa, fb, extra))
        return (i + 1, j + up, nu, q, la, lb, ma, mb, sa, sb, sy, rec_a, rec_b, fa, fb, extra)

    neg = _batched_like(la0, -jnp.inf)
    init = (jnp.int32(0), j_all[:2], nu_all[:2], q_all[:2], la0, lb0, neg, neg, zero, zero,
            zero, neg, neg, feature_zero, feature_zero, features0)
    (_, _, _, _, _, _, ma, mb, sa, sb, sy, rec_a, rec_b, fa, fb, _) = jax.lax.while_loop(
        lambda c: c[0] < n_steps, body, init)

    def corrected(total, top, exact, rec):
        """log of a law's sum over both chains (the chain holding the reference re-anchored
        there), and each chain's factor relative to the larger."""
        corr = jnp.where(jnp.isfinite(rec) & jnp.isfinite(exact), exact - rec, 0.0)
        level = jnp.where(total > 0.0, top + corr, -jnp.inf)
        peak = jnp.max(level, axis=0)
        peak = jnp.where(jnp.isfinite(peak), peak, 0.0)
        scale = jnp.exp(level - peak)
        return peak + jnp.log(jnp.sum(total * scale, axis=0)), scale

    log_sa, scale_a = corrected(sa, ma, exact_a, rec_a)
    log_sb, scale_b = corrected(sb, mb, exact_b, rec_b)
    log_pa = jnp.where(pos_a, log_sa, exact_a)
    log_pb = jnp.where(pos_b, log_sb, exact_b)
    total_b = jnp.sum(sb * scale_b, axis=0)
    mean = jnp.sum(sy * scale_b, axis=0) / jnp.where(pos_b, total_b, 1.0)
    yv = ds * mean
    # y = log(1 + yv)/δ, yv = E_b[π_a/π_b] − 1 > −1 (0 where ℓ is not finite or rounding
    # puts yv at −1: double where, for the tangent rule's products).
    usable = ok & (yv > -1.0) & jnp.isfinite(yv)
    yv = jnp.where(usable, yv, 0.0)
    small = jnp.abs(yv) < 1e-8
    y = jnp.where(usable, mean, 0.0) * jnp.where(
        small, 1.0 - 0.5 * yv, jnp.log1p(yv) / jnp.where(small, 1.0, yv))
    # Windows longer than MAX_STEPS: partial sums (lower bounds, enough for the searches far
    # in a tail); the flag makes a quadrature node there NaN.
    flag = jnp.where(covered, 0.0, jnp.nan).astype(s.dtype)
    # Not summed: the terms at the references, lower bounds of log p_a and log p_b, and the
    # log of the window's length.
    log_width = jnp.log(jh - jl + 1.0)
    values = (jnp.where(summed, log_pa, exact_a), jnp.where(summed, log_pb, exact_b),
              jnp.where(summed, y, log_width), flag)
    if not has_scores:
        return values, None
    total_a = jnp.sum(sa * scale_a, axis=0)

    def posterior_means(f, scale, total, pos, ref_features):
        mean = jnp.sum(f * scale, axis=1) / jnp.where(total > 0, total, 1.0)
        return jnp.where(pos, mean, ref_features)  # μ = 0: the j = 0 term alone (ref = 0)

    return values, (posterior_means(fa, scale_a, total_a, pos_a, features_ref[:, 0]),
                    posterior_means(fb, scale_b, total_b, pos_b, features_ref[:, 1]))


def _node_tangents(s, n, a, b, y, means, td, tn, ta, tb):
    """The tangents of log p_a, log p_b and y = L/δ at nodes s for the argument tangents
    (td, tn, ta, tb), from each law's posterior means at them (:func:`_mixture`'s; no
    derivative through a search or the recurrence): ∂_θ log p = 2E[j]/θ − θ,
    ∂_d log p = ½ E[s/2 − log 2 + sgn(P − Q) ∂_ν log K_ν − ψ(P)],
    ∂_n log p = ½ E[s/2 − log 2 − sgn(P − Q) ∂_ν log K_ν − ψ(n/2)]; the tangent of L/δ is
    (dL − (L/δ) dδ)/δ."""
    means_a, means_b = means
    half = 0.5 * s - _LOG2
    psi_q = digamma(0.5 * n)

    def tangent(means, theta, t_theta):
        e_j, e_dk, e_psi = means
        positive = theta > 0
        d_theta = jnp.where(positive, 2.0 * e_j / jnp.where(positive, theta, 1.0) - theta, 0.0)
        return (0.5 * (half + e_dk - e_psi) * td + 0.5 * (half - e_dk - psi_q) * tn
                + d_theta * t_theta)

    dpa = tangent(means_a, a, ta)
    dpb = tangent(means_b, b, tb)
    delta = a - b
    ok = (a > 0) & (b > 0) & (delta != 0)
    dy = jnp.where(ok, (dpa - dpb - y * (ta - tb)) / jnp.where(ok, delta, 1.0), 0.0)
    return dpa, dpb, dy


def _bulk(d, n, lam):
    """Mean and sd of S = log Y + log X (Y's by its moments)."""
    mean = jnp.log(d + lam) + digamma(0.5 * n) + _LOG2
    var = 2.0 * (d + 2.0 * lam) / (d + lam) ** 2 + polygamma(1, 0.5 * n)
    return mean, jnp.sqrt(var)


def _initial_range(beta, d, n, a, b):
    """A range in s holding the mass of p_a^β p_b^{1−β}: the laws' bulks, the left tail's slope
    min(d, n)/2 and the tilt's gain there for a < b."""
    (ma, mb), (sa, sb) = _bulk(d, n, jnp.stack([a * a, b * b]))
    slope = 0.5 * jnp.minimum(d, n)
    tilt = (beta - 1.0) * jnp.maximum(0.5 * (b * b - a * a), 0.0)
    lo = jnp.maximum(jnp.minimum(ma, mb) - 12.0 * jnp.maximum(sa, sb) - (DROP + tilt) / slope,
                     S_FLOOR)
    # The right tails fall double-exponentially in s: a few units beyond the bulks, unless the
    # tilt moves the peak right. There log p_θ ≈ θ√y − y/2, y = t/n, while t ≪ n² (X ≈ n), and
    # ≈ θ t^{1/4} − √t beyond (the K tail); the tilted integrand, with c = βa − (β − 1)b for
    # θ, peaks near √y = c or t^{1/4} = c/2 and has fallen by DROP + 10 below it by
    # √y = 2c + √(2(DROP + 10)), t^{1/4} = c + √(DROP + 10) (twice the peak: the lower orders
    # move it): the larger end of the two. (Without it the integrand was cut at its peak:
    # 36145 came out 24012 at (α, d, n, a, b) = (145, 25, 1.3, 36.8, 5.2).)
    gain = jnp.maximum(beta * a - (beta - 1.0) * b, 0.0)
    near = jnp.log(n) + 2.0 * jnp.log(2.0 * gain + math.sqrt(2.0 * (DROP + 10.0)))
    far = 4.0 * jnp.log(gain + math.sqrt(DROP + 10.0))
    bulks = (jnp.maximum(ma, mb) + jnp.minimum(12.0 * jnp.maximum(sa, sb), 8.0) + 8.0
             + jnp.log1p(beta))
    return lo, jnp.maximum(bulks, jnp.maximum(near, far))


#: Stage kinds of the search (:func:`_stages`), each evaluating the mixture at ``GRID`` points,
#: so that one compiled copy of it serves every search and quadrature node of a point.
_BOUND, _ZOOM, _PEAK, _FINE, _CROSS, _NODES = range(6)
#: The first zoom's bounds on log p (no sums: the term at each law's reference below it,
#: + log of the window's length + ``BOUND_SLACK`` above it; measured: log p − the lower bound
#: − log of the length ≤ 1.4 within 3000 of the tilted integrand's maximum on the first grid,
#: 2048 random points over the domain, α up to 256).
BOUND_SLACK = 8.0
#: Half-width, in units of the grid's σ, of the fine grid about the peak.
FINE_HALF_WIDTH = 3.0
#: Hockey stick: stages of the crossing search after the peak stage's grid, which is its first
#: (each shrinks the bracket by GRID − 1).
CROSSING_STAGES = 2
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(HOCKEY_PANEL_NODES)


def _grid_peak(s, v):
    """The parabola through the largest value of ``v`` on the uniform grid ``s`` and its two
    neighbours: (its vertex, σ = spacing/√(−second difference))."""
    i = jnp.clip(jnp.argmax(v), 1, GRID - 2)
    low, mid, high = v[i - 1], v[i], v[i + 1]
    spacing = s[1] - s[0]
    second = low - 2.0 * mid + high
    concave = second < 0.0
    curvature = jnp.where(concave, second, -1.0)
    shift = jnp.where(concave, jnp.clip(-0.5 * (high - low) / curvature, -1.0, 1.0), 0.0)
    sigma = jnp.where(concave, spacing / jnp.sqrt(-curvature), spacing)
    return s[i] + shift * spacing, sigma


def _nodes(state, hockey):
    """The quadrature's nodes and weights from the search's state: the trapezoid rule in u over
    the window, s = centre + σ sinh(u) (Rényi: log-weights), or ``HOCKEY_PANELS`` Gauss–Legendre
    panels in u from the crossing to the window's edge where p_a > e^ε p_b (weights)."""
    centre, sigma = state["centre"], state["sigma"]
    if hockey:
        crossing = state["crossing"]
        start = jnp.where(state["rising"], crossing, state["lo"])
        stop = jnp.where(state["rising"], state["hi"], crossing)
        edges = jnp.linspace(jnp.arcsinh((start - centre) / sigma),
                             jnp.arcsinh((stop - centre) / sigma), HOCKEY_PANELS + 1)
        half = 0.5 * (edges[1:] - edges[:-1])
        mid = 0.5 * (edges[1:] + edges[:-1])
        gl_nodes, gl_weights = (jnp.asarray(c, centre.dtype) for c in (_GL_NODES, _GL_WEIGHTS))
        u = (mid[:, None] + half[:, None] * gl_nodes[None, :]).ravel()
        weight = (half[:, None] * gl_weights[None, :]).ravel() * sigma * jnp.cosh(u)
        return centre + sigma * jnp.sinh(u), weight, stop <= start
    u_lo = jnp.arcsinh((state["lo"] - centre) / sigma)
    u_hi = jnp.arcsinh((state["hi"] - centre) / sigma)
    u = jnp.linspace(u_lo, u_hi, NODES)
    log_w = jnp.log((u_hi - u_lo) / (NODES - 1) * sigma * jnp.cosh(u))
    return centre + sigma * jnp.sinh(u), log_w, jnp.asarray(False)


def _stages(x, d, n, a, b, *, hockey, scores):
    """The search and the quadrature's log-densities (``scores``: and posterior means, for
    :func:`_node_tangents`) at one point, x = α (Rényi) or ε (hockey stick), in one
    ``fori_loop`` over stages of ``GRID`` points each: a zoom from bounds on the log-densities (no sums: ``_BOUND``), ``ZOOMS`` (hockey stick:
    ``HOCKEY_ZOOMS``) zooms onto the cells where the tilted log-integrand
    β log p_a + (1 − β) log p_b (β = α; 1 for the hockey stick) is within ``DROP`` of its
    maximum, the parabola at the grid's maximum, a fine grid of ±``FINE_HALF_WIDTH`` σ about it
    and its parabola (peak and scale σ), for the hockey stick ``CROSSING_STAGES`` more grids over
    the bracket of the crossing L(s) = ε (L is monotone; the peak's grid is its first), then
    the nodes in batches of ``GRID``."""
    beta = 1.0 if hockey else x
    kinds = ([_BOUND] + [_ZOOM] * (HOCKEY_ZOOMS if hockey else ZOOMS) + [_PEAK, _FINE]
             + [_CROSS] * (CROSSING_STAGES if hockey else 0))
    first_node_stage = len(kinds)
    kinds += [_NODES] * (NODES // GRID)
    kinds = jnp.asarray(kinds)
    lo, hi = _initial_range(beta, d, n, a, b)
    dtype = lo.dtype
    zero = _batched_like(lo, 0.0)
    buffer = jnp.zeros(NODES, dtype) + zero
    state = {"lo": lo, "hi": hi, "centre": 0.5 * (lo + hi), "sigma": hi - lo, "x": lo,
             "y": hi, "crossing": hi, "rising": a > b, "la": buffer, "lb": buffer, "ell": buffer,
             "flag": zero}
    if scores:
        state["means"] = jnp.zeros((2, 3, NODES), dtype) + zero
    idx = jnp.arange(GRID)
    fine = jnp.linspace(-FINE_HALF_WIDTH, FINE_HALF_WIDTH, GRID).astype(dtype)

    def stage(k, state):
        kind = kinds[k]
        batch = jnp.maximum(k - first_node_stage, 0) * GRID
        node_s = jax.lax.dynamic_slice(_nodes(state, hockey)[0], (batch,), (GRID,))
        s = jnp.select(
            [kind <= _PEAK, kind == _FINE, kind == _CROSS],
            [jnp.linspace(state["lo"], state["hi"], GRID),
             state["centre"] + state["sigma"] * fine,
             jnp.linspace(state["x"], state["y"], GRID)],
            node_s)
        # L/δ (the ψ form's) for the Rényi divergence only (used at its nodes, summed at every
        # stage: see _mixture's with_y).
        bound = kind == _BOUND
        store = kind == _NODES
        (la, lb, ell, flag), means = _mixture(s, d, n, a, b, store if scores else False,
                                              not hockey, ~bound, across_points=True)
        new = dict(state)
        # Zoom: the cells within DROP of the maximum, and one more each side; the first, from
        # bounds on log p_a and log p_b (the tilt's weight 1 − β ≤ 0): every cell whose upper
        # bound is within DROP of the largest lower bound.
        v = beta * la + (1.0 - beta) * lb
        slack = jnp.where(bound, ell + BOUND_SLACK, 0.0)
        v_upper = v + beta * jnp.where(a > 0, slack, 0.0)
        v_lower = v - (beta - 1.0) * jnp.where(b > 0, slack, 0.0)
        keep = v_upper >= jnp.max(v_lower) - DROP
        first = jnp.maximum(jnp.min(jnp.where(keep, idx, GRID)) - 1, 0)
        last = jnp.minimum(jnp.max(jnp.where(keep, idx, -1)) + 1, GRID - 1)
        zoom = (kind == _ZOOM) | bound
        new["lo"] = jnp.where(zoom, s[first], state["lo"])
        new["hi"] = jnp.where(zoom, s[last], state["hi"])
        if hockey:  # the crossing's first bracket: the window of p_a's mass
            new["x"] = jnp.where(zoom, new["lo"], state["x"])
            new["y"] = jnp.where(zoom, new["hi"], state["y"])
        # Peak and scale: on the window's grid, then on the fine grid about it. Where the two
        # flanks' distances to a drop of 2 differ more than FLANK_RATIO-fold, σ is at most
        # TILTED_SIGMA_MAX: a far-left peak of the tilted integrand is a corner (a linear left
        # tail, a steep right flank) where the parabola's σ is the tail's (4.4e-6 off at
        # (α, d, n, a, b) = (32, 1, 10, 10, 12) without the cap; capping every σ cost the
        # smooth rows two digits).
        centre, sigma = _grid_peak(s, v)
        low = v < jnp.max(v) - 2.0
        top = jnp.argmax(v)
        right = s[jnp.min(jnp.where(low & (idx > top), idx, GRID - 1))] - s[top]
        left = s[top] - s[jnp.max(jnp.where(low & (idx < top), idx, 0))]
        corner = (kind == _FINE) & (jnp.maximum(left, right) > FLANK_RATIO * jnp.minimum(left, right))
        sigma = jnp.where(corner, jnp.minimum(sigma, TILTED_SIGMA_MAX), sigma)
        peak = (kind == _PEAK) | (kind == _FINE)
        new["centre"] = jnp.where(peak, jnp.clip(centre, new["lo"], new["hi"]), state["centre"])
        new["sigma"] = jnp.where(peak, sigma, state["sigma"])
        if hockey:
            # The crossing: excess = ±(L − ε) increases along s; keep the grid cell where it
            # changes sign (none: the crossing at the end where it would be), and place the
            # crossing by inverse cubic interpolation of the four grid points about it (linear
            # in the cell where that leaves the cell).
            excess = jnp.where(state["rising"], la - lb - x, x - (la - lb))
            above = excess >= 0.0
            j = jnp.min(jnp.where(above, idx, GRID))
            inside = (j > 0) & (j < GRID)
            jl, jh = jnp.clip(j - 1, 0, GRID - 1), jnp.clip(j, 0, GRID - 1)
            end = jnp.where(j == 0, s[0], s[-1])
            cell_lo, cell_hi = jnp.where(inside, s[jl], end), jnp.where(inside, s[jh], end)
            e_lo, e_hi = excess[jl], excess[jh]
            slope = e_hi - e_lo
            linear = cell_lo - e_lo * (cell_hi - cell_lo) / jnp.where(slope > 0.0, slope, 1.0)
            first = jnp.clip(j - 2, 0, GRID - 4)
            ps = jax.lax.dynamic_slice(s, (first,), (4,))
            es = jax.lax.dynamic_slice(excess, (first,), (4,))
            gaps = es[:, None] - es[None, :]
            distinct = jnp.all((gaps != 0.0) | jnp.eye(4, dtype=bool))
            safe = jnp.where(jnp.eye(4, dtype=bool) | ~distinct, 1.0, gaps)
            factors = jnp.where(jnp.eye(4, dtype=bool), 1.0, -es[None, :] / safe)
            cubic = jnp.sum(ps * jnp.prod(factors, axis=1))
            cubic_ok = distinct & (cubic >= cell_lo) & (cubic <= cell_hi)
            crossing = jnp.where(inside & (slope > 0.0),
                                 jnp.where(cubic_ok, cubic, linear), cell_lo)
            # (The peak stage's grid is the crossing's first: the zoomed range, its bracket.)
            cross = (kind == _CROSS) | (kind == _PEAK)
            new["x"] = jnp.where(cross, cell_lo, new["x"])
            new["y"] = jnp.where(cross, cell_hi, new["y"])
            new["crossing"] = jnp.where(cross, crossing, state["crossing"])
        for key, value in (("la", la), ("lb", lb), ("ell", ell)):
            new[key] = jnp.where(store, jax.lax.dynamic_update_slice(state[key], value,
                                                                     (batch,)), state[key])
        new["flag"] = state["flag"] + jnp.where(store, jnp.sum(flag), 0.0)
        if scores:
            new["means"] = jnp.where(store, jax.lax.dynamic_update_slice(
                state["means"], jnp.stack(means), (0, 0, batch)), state["means"])
        return new

    state = jax.lax.fori_loop(0, len(kinds), stage, state)
    s, weight, empty = _nodes(state, hockey)
    logs = (state["la"], state["lb"], state["ell"], state["flag"])
    return s, weight, empty, logs, (tuple(state["means"]) if scores else None)


def _renyi_value(alpha, a, b, log_w, la, lb, y, flag):
    """D_α from the log-densities at the trapezoid rule's nodes: the direct form, or where
    (α − 1)D < ``psi_max`` the ψ form on the same nodes (p_b's mass is inside them where the
    laws are close; where it is not used, at a safe L = 1e-3: double where)."""
    direct = logsumexp(alpha * la + (1.0 - alpha) * lb + log_w) / (alpha - 1.0)
    use_psi = ((alpha - 1.0) * direct < psi_max(la.dtype)) & (a != b) & (a > 0) & (b > 0)
    delta = jnp.where(a != b, a - b, 1.0)
    y = jnp.where(use_psi, y, 1e-3 / delta)
    log_pb = jnp.where(use_psi, lb + log_w, 0.0)
    log_mean_psi = log_psi_sum(alpha, log_pb, y, delta, jnp.ones_like(log_pb))
    psi_value = jnp.log1p(jnp.exp(log_mean_psi)) / (alpha - 1.0)
    return jnp.where(use_psi, psi_value, direct) + flag


def _hockey_value(eps, weight, empty, la, lb, flag):
    """E_{e^ε} from the log-densities at the Gauss–Legendre nodes beyond the crossing."""
    gain = -jnp.expm1(jnp.minimum(eps - (la - lb), 0.0))
    return jnp.where(empty, 0.0, jnp.sum(weight * jnp.exp(la) * gain)) + flag


def _points(hockey):
    """The divergence at valid points with finite n (1-D arrays), a ``custom_jvp``: the nodes
    are held fixed (the rules are accurate for any placement near theirs, and the hockey stick's
    integrand vanishes at the crossing), the log-densities at them carry the tangents of
    :func:`_node_tangents`, and the outer formula is differentiated as it stands. The points'
    ``vmap`` (axis ``POINTS_AXIS``) is inside both the function and its rule, so both evaluate
    the K core's small-order branch on the anchors that need it across the points
    (:func:`_small_orders_where_needed`; a rule is traced without the axis names of a ``vmap``
    around the ``custom_jvp``)."""

    def value(x, a, b, weight, empty, la, lb, y, flag):
        if hockey:
            return _hockey_value(x, weight, empty, la, lb, flag)
        return _renyi_value(x, a, b, weight, la, lb, y, flag)

    def stages(scores):
        return jax.vmap(functools.partial(_stages, hockey=hockey, scores=scores),
                        axis_name=POINTS_AXIS)

    @jax.custom_jvp
    def points(x, d, n, a, b):
        _, weight, empty, logs, _ = stages(False)(x, d, n, a, b)
        return jax.vmap(value)(x, a, b, weight, empty, *logs)

    @points.defjvp
    def points_jvp(primals, tangents):
        x, d, n, a, b = primals
        tx, td, tn, ta, tb = tangents
        s, weight, empty, (la, lb, y, flag), means = stages(True)(x, d, n, a, b)
        dla, dlb, dy = jax.vmap(_node_tangents)(s, n, a, b, y, means, td, tn, ta, tb)
        value_at = lambda x, a, b, la, lb, y: jax.vmap(value)(x, a, b, weight, empty, la, lb, y,
                                                              flag)
        return jax.jvp(value_at, (x, a, b, la, lb, y), (tx, ta, tb, dla, dlb, dy))

    return points


_renyi_points = _points(hockey=False)
_hockey_points = _points(hockey=True)


def _safe_point(x, d, n, a, b, hockey):
    """The arguments made valid and finite (a point outside the domain, or with n_syn = inf, is
    computed at safe values and its result replaced), and the two flags."""
    valid = (x >= 0.0 if hockey else x > 1.0) & (d >= 1.0) & (n >= 1.0) & (a >= 0.0) & (b >= 0.0)
    infinite = n == jnp.inf
    x = jnp.where(valid, x, 0.0 if hockey else 2.0)
    d = jnp.where(valid, d, 1.0)
    a = jnp.where(valid, a, 1.0)
    b = jnp.where(valid, b, 1.0)
    n_f = jnp.where(valid & ~infinite, n, 1.0)
    return (x, d, n_f, a, b), valid, infinite


def _in_slices(fn, *flat):
    """``fn`` (a function of 1-D arrays of equal length, elementwise) on ``flat``; above
    ``SLICE`` points, on slices of ``SLICE`` points one after another (``lax.map``; the last
    slice padded with the first point), so the temporaries are those of ``SLICE`` points
    whatever the length. One copy of ``fn``."""
    size = flat[0].shape[0]
    if size <= SLICE:
        return fn(*flat)
    slices = -(-size // SLICE)
    pad = lambda v: jnp.concatenate([v, jnp.broadcast_to(v[:1], (slices * SLICE - size,))])
    out = jax.lax.map(lambda args: fn(*args), [pad(v).reshape(slices, SLICE) for v in flat])
    return jax.tree.map(lambda o: o.reshape(-1)[:size], out)


def _release_batch(x, d, n, a, b, hockey, with_infinite):
    """Either divergence elementwise over broadcast arrays (``hockey`` static)."""
    shape = jnp.broadcast_shapes(*map(jnp.shape, (x, d, n, a, b)))
    flat = [jnp.broadcast_to(v, shape).ravel() for v in (x, d, n, a, b)]
    (x, d, n_f, a, b), valid, infinite = _safe_point(*flat, hockey)
    finite_points = _hockey_points if hockey else _renyi_points
    limit = jax.vmap(hockey_stick_kernel if hockey else renyi_kernel)

    def batch(x, d, n_f, a, b, infinite):
        value = jnp.where(a == b, jnp.zeros_like(x), finite_points(x, d, n_f, a, b))
        if with_infinite:
            return jnp.where(infinite, limit(x, d, a, b), value)
        return jnp.where(infinite, jnp.nan, value)

    value = _in_slices(batch, x, d, n_f, a, b, infinite)
    return jnp.where(valid, value, jnp.nan).reshape(shape)


@functools.partial(jax.jit, static_argnums=5)
def _release_vec(x, d, n, a, b, hockey):
    """Either divergence elementwise over broadcast arrays (n_syn = inf entries included);
    ``hockey`` a static flag."""
    return _release_batch(x, d, n, a, b, hockey, True)


@functools.partial(jax.jit, static_argnums=5)
def release_finite_vec(x, d, n, a, b, hockey):
    """:func:`_release_vec` without the n_syn = inf branch (not compiled)."""
    return _release_batch(x, d, n, a, b, hockey, False)


@jax.jit
def _release_logpdf_vec(t, d, n, a):
    valid = (d >= 1.0) & (n >= 1.0) & (a >= 0.0)
    infinite = n == jnp.inf
    positive = (t > 0.0) & (t < jnp.inf)
    t_s = jnp.where(positive, t, 1.0)
    n_f = jnp.where(valid & ~infinite, n, 1.0)
    d_s = jnp.where(valid, d, 1.0)
    a_s = jnp.where(valid, a, 0.0)
    log_t = jnp.log(t_s)
    finite = _mixture(log_t, d_s, n_f, a_s, a_s, False, with_y=False)[0][0] - log_t
    value = jnp.where(infinite, logpdf_kernel(t_s, d_s, a_s * a_s), finite)
    value = jnp.where(positive, value, -jnp.inf)
    return jnp.where(valid, value, jnp.nan)


def _release_logpdf(t: ArrayLike, d: ArrayLike, n_syn: ArrayLike, a: ArrayLike) -> jax.Array:
    r"""Log-density of :math:`T = \|ZV\|^2 = YX`, :math:`Y \sim \chi^2_d(a^2)`,
    :math:`X \sim \chi^2_{n}` (private; for tests).

    .. math::

        p_T(t) = \sum_{j \ge 0} \pi_{a^2/2}(j)\,
        \frac{2\,(t/4)^{(P+Q)/2} K_{|P-Q|}(\sqrt t)}{t\,\Gamma(P)\Gamma(Q)},
        \qquad P = d/2 + j,\ Q = n/2,

    by the mixture of :mod:`fisherrdp._src.divergences.release_k1`.

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
    args = as_float_arrays(*(jnp.asarray(v) for v in (t, d, n_syn, a)))
    return in_wide_dtype(lambda *v: _release_logpdf_vec(*jnp.broadcast_arrays(*v)), *args)


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
    ``n_syn`` is ``inf``). Increasing in ``n_syn``. Computed from the Poisson mixture of
    Bessel-K densities (``docs/math/release.md#the-mixture-method``), by the trapezoid rule in
    log t, to 1e-8 relative or better (measured against mpmath: see
    :mod:`fisherrdp._src.divergences.release_k1`; a known exception: where a < b are both
    large and the integrand has two peaks, up to 7e-8, ``docs/math/release.md#accuracy``).
    Elementwise with broadcasting; works under ``jit`` and ``vmap``. Differentiable in all five arguments, in forward and reverse mode
    (``jax.jacfwd``, ``jax.grad``; the nodes are held fixed, the log-densities carry a
    ``custom_jvp`` from posterior means of the Poisson index), equal to central differences
    (table: ``docs/derivatives.md``).

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
    likelihood ratio is monotone); computed by Gauss–Legendre quadrature from the crossing
    point (method and measured accuracy: :mod:`fisherrdp._src.divergences.release_k1`); float32 inputs in float64
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
    """Float32 inputs are computed in the wide dtype (float64 where the device has it,
    ``docs/howto/float32.md``), the result rounded to float32: the hockey stick's
    δ = ∫ p_a (1 − e^{ε − L}) is small against P_a(L > ε) as ε grows, and float32's
    ~eps32·|log p| in L reaches δ multiplied by that ratio; on a TPU both stay float32."""
    args = as_float_arrays(x, d, n_syn, a, b)
    return in_wide_dtype(functools.partial(_dispatch_in_dtype, hockey), *args)


def _dispatch_in_dtype(hockey, x, d, n, a, b):
    """Under a transformation the jitted function; eager calls in chunks (``map_bucketed``),
    the points in the order of their Poisson windows (the recurrence runs as long as the
    longest window of a chunk), without the n_syn = inf branch where no entry is inf."""
    if any(is_tracer(v) for v in (x, d, n, a, b)):
        # n_syn's values are known under an eager jax.grad (not under jit or vmap): without an
        # inf entry the n_syn = inf branch is not compiled (18.6 s against 41.3 s for the first
        # jax.grad in all five arguments, 2 CPU cores).
        try:
            any_infinite = bool(jnp.any(n == jnp.inf))
        except jax.errors.ConcretizationTypeError:
            any_infinite = True
        return (_release_vec if any_infinite else release_finite_vec)(x, d, n, a, b, hockey)
    shape = jnp.broadcast_shapes(*map(jnp.shape, (x, d, n, a, b)))
    # On the host (NumPy): jnp's comparison and reductions would each load a program, ~0.07 s
    # of a warm first call.
    infinite = np.asarray(n) == np.inf
    if infinite.all():  # the n_syn = inf limit alone
        limit = hockey_stick_ncx2 if hockey else renyi_ncx2
        return jnp.broadcast_to(limit(x, d, a, b), shape)
    kernel = _release_vec if infinite.any() else release_finite_vec
    flat = [np.broadcast_to(np.asarray(v), shape).ravel() for v in (x, d, n, a, b)]
    order = np.argsort(np.maximum(flat[3], flat[4]), kind="stable")
    (value,) = map_bucketed(kernel, *(v[order] for v in flat), static=(hockey,),
                            cap=for_device(CPU_BUCKET_CAP, BUCKET_CAP))
    out = np.empty(order.shape, np.asarray(value).dtype)
    out[order] = np.asarray(value)
    return jax.device_put(out.reshape(shape))

r"""The quadrature core shared by the non-central χ² divergences (Rényi, KL, finite releases).

Composite Gauss–Legendre rules in :math:`u = \log r` over windows placed around the peak of
the integrand, the log-likelihood ratio :math:`L/\delta` by a rule along the segment from
:math:`b` to :math:`a` (no cancellation as :math:`a \to b`), and the ψ form
:math:`E_b[\psi(L)]` summed in scaled log space. The method, its constants and its accuracy
are described where it is used: :mod:`fisherrdp._src.divergences.renyi` (and
``docs/math/renyi.md``); :mod:`~fisherrdp._src.divergences.kl` and
:mod:`~fisherrdp._src.divergences.release_k1` take the nodes and sums from here.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from fisherrdp._src.core.config import for_precision, in_wide_dtype, needs_compensation
from fisherrdp._src.distributions.ncx2.density import (
    SINGLE_DEBYE_MIN_ORDER,
    SINGLE_DEBYE_TERMS,
    logpdf_kernel,
)
from fisherrdp._src.numerics.cancellation import compensated_sum
from fisherrdp._src.numerics.quadrature import composite_gauss_legendre_on, gauss_legendre_as
from fisherrdp._src.numerics.windows import held_fixed, window_search
from fisherrdp._src.special.bessel import (
    log_ive_0f1_and_ratio,
    ratio_and_log_0f1_of_x,
    ratio_complement_large_x,
    ratio_relative_offset,
)

#: Gauss–Legendre nodes per panel in u = log r, float64's and float32's. In float64 with 10
#: nodes the rule is within 4e-9 of 16 nodes' at 10⁴ points of ``renyi_ncx2``'s range (8: 3e-7),
#: far below float32's criterion (docs/howto/float32.md).
NODES = 16
NODES_FLOAT32 = 10
#: Per side of the peak: panels of width LINEAR_STEP·σ, then geometrically growing ones.
LINEAR_PANELS = 6
LINEAR_STEP = 1.5
GEOMETRIC_PANELS = 4
#: Newton steps for the peak u* and for each window edge.
NEWTON_STEPS = 24
EDGE_STEPS = 12
#: Nodes of the rule for L/δ = r ∫₀¹ R_ν(br + δ r s) ds − (a + b)/2 (float64's, float32's:
#: it converges like 8^{−2n}, so 5 nodes leave 1e-9), and its range of use.
Z_NODES = 8
Z_NODES_FLOAT32 = 5
RATIO_SPAN = 0.5
#: Terms of the series of ψ for |αL| < 1 (the 20th is below 1/20! of the leading term's scale).
PSI_TERMS = 20

_LOG2 = math.log(2.0)


def _bessel(nu, z):
    """R_ν(z) and g(z) = log ₀F₁(; ν + 1; z²/4), by one shared core (one call site to compile);
    ν unbroadcast (one order for every node, as in ``release_k1._bessel``)."""
    return ratio_and_log_0f1_of_x(nu, z)


def _log_shape(u, beta, d, a, b):
    """log of p_a^β p_b^{1−β}(r) · r in u = log r, up to a constant, and its two u-derivatives.

    S(z) = z R_ν(z) is the z-derivative of g(z) times z, and S'(z) = z (1 − R²) − 2ν R.
    """
    r = jnp.exp(u)
    nu = 0.5 * d - 1.0
    z = jnp.stack([a * r, b * r])
    ratio, g = _bessel(nu, z)
    s = z * ratio
    ds = z * (1.0 - ratio * ratio) - 2.0 * nu * ratio
    weight = jnp.stack([beta, 1.0 - beta])
    value = d * u - 0.5 * r * r + jnp.sum(weight * g, axis=0)
    first = d - r * r + jnp.sum(weight * s, axis=0)
    second = -2.0 * r * r + jnp.sum(weight * z * ds, axis=0)
    return value, first, second


@held_fixed
def _windows(beta, d, a, b, drop):
    """Peaks u*, scales σ and edges (u_lo, u_hi) where p_a^β p_b^{1−β} r has dropped by e^{−drop}.

    ``beta`` and ``a`` are arrays (one window each), solved together. One loop evaluates the
    log-integrand at (u*, u_lo, u_hi): ``NEWTON_STEPS`` safeguarded Newton steps for u* (the
    edges follow at the Gaussian guess u* ∓ σ√(2·drop)), then ``EDGE_STEPS`` Newton steps on
    value(u) − value(u*) + drop = 0 for the edges, each kept on its own side of the peak.
    """
    kappa = beta * a + (1.0 - beta) * b
    root = jnp.sqrt(kappa * kappa + 4.0 * d)
    r0 = jnp.where(kappa >= 0.0, 0.5 * (kappa + root), 2.0 * d / (root - kappa))
    weights = (beta[:, None], a[:, None])

    def fn(u, aux):
        value, first, second = _log_shape(u, weights[0], d, weights[1], b)
        return value, first, second, aux

    return window_search(
        fn,
        jnp.log(r0),
        drop,
        cap=1.0,
        min_curvature=1e-12,
        peak_steps=NEWTON_STEPS,
        edge_steps=EDGE_STEPS,
    )


def _panels(centre, sigma, lo, hi, nodes_per_panel):
    """Nodes and weights in u: graded panels from ``centre`` out to ``lo`` and ``hi``; the nodes
    as their offsets from ``centre`` (the node is ``centre + offset``)."""
    lin = LINEAR_STEP * sigma * jnp.arange(1, LINEAR_PANELS + 1, dtype=sigma.dtype)
    frac = jnp.arange(1, GEOMETRIC_PANELS + 1, dtype=sigma.dtype) / GEOMETRIC_PANELS
    start = LINEAR_STEP * LINEAR_PANELS * sigma
    nodes, weights = [], []
    for extent in (centre - lo, hi - centre):
        geo = start * jnp.exp(frac * jnp.log(jnp.maximum(extent / start, 1.0)))
        edges = jnp.concatenate(
            [
                jnp.zeros(1, sigma.dtype),
                jnp.minimum(lin, extent),
                jnp.where(extent > start, geo, extent),
            ]
        )
        side_nodes, side_weights = composite_gauss_legendre_on(edges, nodes_per_panel)
        nodes.append(side_nodes)
        weights.append(side_weights)
    return jnp.concatenate([-nodes[0], nodes[1]]), jnp.concatenate(weights)


def log_ratio_over_delta_args(r, d, a, b, *, r_excess=None):
    """The Bessel arguments of L(r)/δ, δ = a − b, and the function that finishes it from them.

    L/δ = r ∫₀¹ R_ν(br + δ r s) ds − (a + b)/2 by a ``Z_NODES``-point rule where δ r is small
    against the distance to the poles of R_ν, (g(ar) − g(br))/δ − (a + b)/2 elsewhere (see the
    module docstring); finite also at δ = 0. ``r`` and ``a`` have one entry per node (``d`` and
    ``b`` one too, or one for all).

    Returns:
      ``(args, finish)``: the arguments z (1-D) at which the caller evaluates R_ν(z),
      g(z) = log ₀F₁(; ν + 1; z²/4) and log(I_ν(z) e^{−z}), ν = d/2 − 1 (with other arguments
      in the same call, if it likes); ``finish(ratio, log_0f1, log_ive)``, on those values at
      ``args``, returns L/δ per node (``log_ive`` is used by float32's form only, and may be
      ``None`` in float64). ``r_excess``: r² − 2ν − b² per node, which float32's form at orders
      ν ≥ 10 needs without cancellation: a caller whose nodes are not exactly ``r`` (rounded
      from a wider dtype) gives it at the exact nodes; by default it is formed from ``r`` in the
      wide dtype.
    """
    nu = 0.5 * d - 1.0
    delta = a - b
    # Distance from [min(a, b) r, max(a, b) r] to the poles ±i j_{ν,1} of R_ν, from below.
    pole_distance = jnp.sqrt((nu + 0.5 * math.pi) ** 2 + (jnp.minimum(a, b) * r) ** 2)
    use_ratio = jnp.abs(delta) * r <= RATIO_SPAN * pole_distance
    z_nodes = for_precision(r.dtype, Z_NODES, Z_NODES_FLOAT32)
    s, ws = gauss_legendre_as(z_nodes, r.dtype)
    z = (b * r)[:, None] + jnp.where(use_ratio, delta * r, 0.0)[:, None] * s
    compensated = needs_compensation(r.dtype)
    # Unused g arguments: 0 (g(0) = 0); float32's form takes log I_ν e^{−z} there, finite at 1.
    unused = 1.0 if compensated else 0.0
    ra = jnp.where(use_ratio, unused, a * r)
    rb = jnp.where(use_ratio, unused, b * r)
    args = jnp.concatenate([z.ravel(), ra, rb])
    if compensated and r_excess is None:
        r_excess = in_wide_dtype(lambda r, d, b: r * r - (d - 2.0) - b * b, r, d, b)

    def finish(ratio, g, log_ive=None):
        n = r.shape[0]
        by_ratio = r * jnp.sum(ws * ratio[: n * z_nodes].reshape(n, z_nodes), axis=-1)
        g_a, g_b = g[n * z_nodes : n * z_nodes + n], g[n * z_nodes + n :]
        by_g = (g_a - g_b) / jnp.where(use_ratio, 1.0, delta)
        mean = jnp.where(use_ratio, by_ratio, by_g)
        if not compensated:
            return mean - 0.5 * (a + b)
        # float32: r R̄ − (a + b)/2 subtracts numbers of size ~a from each other
        # (docs/math/renyi.md#float32-the-log-likelihood-ratio-at-large-amplitudes): the sum
        # compensated, and where R_ν → 1 (z large), ((r − a) + (r − b))/2 − r (1 − R)‾ with
        # Hankel's complement (r − a, r − b exact where r is within a factor 2 of a and b).
        value = compensated_sum(mean, -0.5 * a, -0.5 * b)
        nu_z = jnp.reshape(nu, (-1, 1)) if jnp.ndim(nu) else nu
        complement, applies = ratio_complement_large_x(nu_z, z)
        hankel = use_ratio & jnp.all(applies, axis=-1)
        by_complement = 0.5 * ((r - a) + (r - b)) - r * jnp.sum(ws * complement, axis=-1)
        # And g(ar) − g(br), each ~ar, leaves eps32·ar where both arguments are large: there
        # g(z) = z + log(I_ν(z) e^{−z}) + log Γ(ν + 1) − ν log(z/2) gives
        # L/δ = r + (Δ log(I_ν e^{−z}) − ν log(a/b))/δ − (a + b)/2, terms of size ~r only.
        ive_a, ive_b = log_ive[n * z_nodes : n * z_nodes + n], log_ive[n * z_nodes + n :]
        by_ive = ~use_ratio & (jnp.minimum(ra, rb) >= jnp.maximum(2.0 * nu + 2.0, 1.0))
        rest = (ive_a - ive_b - nu * jnp.log(jnp.where(by_ive, ra / rb, 1.0))) / jnp.where(
            by_ive, delta, 1.0)
        value = jnp.where(by_ive, compensated_sum(r, rest, -0.5 * a, -0.5 * b), value)
        value = jnp.where(hankel, by_complement, value)
        # At orders ν ≥ 10 below Hankel's range, r R̄ and (a + b)/2 still agree to ~1/(a r):
        # L/δ = Σ_s w_s κ_s (r R_ν(κ_s r)/κ_s − 1), κ_s = b + δ s (the rule integrates κ_s
        # exactly), each term from Debye's R_ν without the cancellation, given
        # r² − 2ν − κ_s² = (r² − 2ν − b²) − δ s (2b + δ s)
        # (docs/math/renyi.md#float32-the-log-likelihood-ratio-at-large-amplitudes).
        large_order = use_ratio & ~hankel & (nu >= SINGLE_DEBYE_MIN_ORDER)
        b_z = jnp.reshape(b, (-1, 1)) if jnp.ndim(b) else b
        delta_s = delta[:, None] * s
        kappa = b_z + delta_s
        offset = ratio_relative_offset(
            jnp.maximum(nu_z, SINGLE_DEBYE_MIN_ORDER), r[:, None], kappa,
            r_excess[:, None] - delta_s * (2.0 * b_z + delta_s), terms=SINGLE_DEBYE_TERMS,
        )
        by_debye = jnp.sum(ws * kappa * offset, axis=-1)
        return jnp.where(large_order, by_debye, value)

    return args, finish


def log_ratio_over_delta(r, d, a, b, *, r_excess=None):
    """L(r)/δ with δ = a − b (see the module docstring); finite also at δ = 0. ``r`` and ``a``
    per node, ``d`` and ``b`` per node or one for all; ``r_excess`` as in
    :func:`log_ratio_over_delta_args`."""
    args, finish = log_ratio_over_delta_args(r, d, a, b, r_excess=r_excess)
    nu = 0.5 * d - 1.0
    z_nodes = for_precision(r.dtype, Z_NODES, Z_NODES_FLOAT32)
    if jnp.ndim(nu):  # an order per node, laid out as ``args``: z_nodes per node, then a r, b r
        nu = jnp.concatenate([jnp.repeat(nu, z_nodes), nu, nu])
    if not needs_compensation(r.dtype):
        return finish(*_bessel(nu, args))
    # float32 also takes log(I_ν e^{−z}) at a r and b r (one core; its derivative is taken
    # there only).
    at_ratio = jnp.arange(args.shape[0]) < r.shape[0] * z_nodes
    log_ive, log_0f1, ratio = log_ive_0f1_and_ratio(jnp.broadcast_to(nu, args.shape), args, at_ratio)
    return finish(ratio, log_0f1, log_ive)


def _psi_series(alpha, l):
    """ψ(L)/L² = α² Σ_{n≥2} (1 − α^{1−n}) (αL)^{n−2}/n!, Horner in αL (|αL| < 1; no overflow)."""
    log_alpha = jnp.log(alpha)
    y = alpha * l
    acc = jnp.zeros_like(l)
    for n in range(PSI_TERMS + 1, 1, -1):
        acc = acc * y - jnp.expm1((1 - n) * log_alpha) / float(math.factorial(n))
    return alpha * alpha * acc


def _log_psi_large(alpha, l):
    """log ψ(L) for |αL| ≥ 1 (cancellation at most a factor ~3 there)."""
    am1 = alpha - 1.0
    positive = l > 0.0
    lp = jnp.where(positive, l, 1.0)
    x = am1 * lp
    c = am1 * -jnp.expm1(-lp)
    big = x > 1.0
    x_small = jnp.where(big, 0.5, x)
    x_big = jnp.where(big, x, 2.0)
    log_pos = lp + jnp.where(
        big,
        x_big + jnp.log1p(-(1.0 + c) * jnp.exp(-x_big)),
        jnp.log(jnp.expm1(x_small) - c),
    )
    ln = jnp.where(positive, -1.0, l)
    log_neg = jnp.log(am1 * -jnp.expm1(ln) + jnp.exp(ln) * jnp.expm1(am1 * ln))
    return jnp.where(positive, log_pos, log_neg)


def log_scaled_mean(log_pb, l_over, delta, w, small, over_square, log_large):
    """log(Σ w p_b f(L) / Σ w p_b) for an f ≥ 0 given per node as f(L)/L² = ``over_square``
    where ``small`` and log f(L) = ``log_large`` elsewhere; L = δ · l_over, δ ≠ 0. Finite for
    every input.

    Sums are scaled by δ² (no underflow for tiny δ) and by their largest term (no overflow
    where the divergence is large and this form is not used).
    """
    shift = jax.lax.stop_gradient(jnp.max(log_pb))
    pb = jnp.exp(log_pb - shift)
    log_abs_delta = jnp.log(jnp.abs(delta))
    log_large = log_pb - shift + log_large - 2.0 * log_abs_delta
    top = jax.lax.stop_gradient(
        jnp.maximum(jnp.max(jnp.where(small, -jnp.inf, log_large)), 0.0)
    )
    terms = jnp.where(
        small,
        pb * l_over * l_over * over_square * jnp.exp(-top),
        jnp.exp(log_large - top),
    )
    return (
        2.0 * log_abs_delta
        + top
        + jnp.log(jnp.sum(w * terms))
        - jnp.log(jnp.sum(w * pb))
    )


def log_psi_sum(alpha, log_pb, l_over, delta, w):
    """log(Σ w p_b ψ(L) / Σ w p_b), L = δ · l_over, δ ≠ 0; finite for every input."""
    l = delta * l_over
    small = jnp.abs(alpha * l) < 1.0
    l_small = jnp.where(small, l, 0.0)
    l_large = jnp.where(small, 1.0 / alpha + 1.0, l)
    return log_scaled_mean(log_pb, l_over, delta, w, small, _psi_series(alpha, l_small),
                            _log_psi_large(alpha, l_large))


def two_window_nodes(beta, d, a, b):
    """The nodes of both forms, shared by :func:`renyi_ncx2` and :func:`kl_ncx2`.

    Window 0 is centred at the peak of p_a^β p_b^{1−β} (the direct form); window 1 at p_b's,
    reaching the edges of both (the cancellation-free form). The cancellation-free form needs
    δ ≠ 0: at a = b it runs at a slightly off ``a_off`` (and its result is discarded).

    Returns:
      ``(n, w_direct, w_small, log_pb, l_over, a_off)``: the first ``n`` entries of ``log_pb``
      (log p_b per node, in u = log r) and ``l_over`` (L/δ) belong to window 0 with weights
      ``w_direct``, the others (at ``a_off``) to window 1 with weights ``w_small``.
    """
    drop = -math.log(float(jnp.finfo(a.dtype).eps)) + 4.0
    a_off = jnp.where(a != b, a, b + 1e-3)
    # The windows and their nodes in the wide dtype: in float32, the tilted log-density's
    # curvature is a difference of α-weighted terms that loses every digit at large α (NaN
    # windows at α ≳ 100). Each node u = c + o is carried as its window's centre c and its
    # offset o, each rounded once, and the integrand is evaluated at c + o formed in the wide
    # dtype (exact): rounding u itself (≈ log √d, windows of width ~1/√d) moved each node by
    # up to half an ulp of u, a random displacement of ~eps32 √d log d window widths that cost
    # ~1e-5 of the divergence at d ≳ 1000; rounding c shifts a whole window, which the
    # quadrature does not see (docs/math/renyi.md#float32-the-nodes).
    per_panel = for_precision(a.dtype, NODES, NODES_FLOAT32)

    def nodes(beta, d, a_off, b):
        u_star, sigma, lo, hi = _windows(
            jnp.stack([beta, jnp.zeros_like(beta)]), d, jnp.stack([a_off, a_off]), b, drop)
        o_d, w_d = _panels(u_star[0], sigma[0], lo[0], hi[0], per_panel)
        o_p, w_p = _panels(
            u_star[1], sigma[1], jnp.minimum(lo[0], lo[1]), jnp.maximum(hi[0], hi[1]), per_panel
        )
        centre = jnp.concatenate(
            [jnp.broadcast_to(u_star[0], o_d.shape), jnp.broadcast_to(u_star[1], o_p.shape)]
        )
        return centre, jnp.concatenate([o_d, o_p]), w_d, w_p

    centre, offset, w_d, w_p = in_wide_dtype(nodes, beta, d, a_off, b)
    n = w_d.shape[0]

    # log p_b in the wide dtype too: in float32 its terms of size ~b² or ~d leave ~eps32 · b² per
    # node (one Bessel call in eleven per node; no measurable cost); r = e^u rounded once.
    def at_nodes(centre, offset, d, b):
        u = centre + offset
        y = jnp.exp(2.0 * u)
        return _LOG2 + 2.0 * u + logpdf_kernel(y, d, b * b), jnp.exp(u), y - (d - 2.0) - b * b

    log_pb, r, r_excess = in_wide_dtype(at_nodes, centre, offset, d, b)
    per_node_a = jnp.concatenate(
        [jnp.broadcast_to(a, (n,)), jnp.broadcast_to(a_off, (n,))]
    )
    l_over = log_ratio_over_delta(r, d, per_node_a, b, r_excess=r_excess)
    return n, w_d, w_p, log_pb, l_over, a_off

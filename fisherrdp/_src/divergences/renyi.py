r"""Exact Rényi divergence between non-central chi-square laws.

:func:`renyi_ncx2` computes :math:`D_\alpha(\chi^2_d(a^2) \,\|\, \chi^2_d(b^2))`, the
infinite-release loss of ``MATH.md`` §2 (the paper's Prop. 4.1/4.2: releasing infinitely many
synthetic records amounts to releasing :math:`\|V\|^2`).

**Variables.** With :math:`r = \sqrt y` (the law of :math:`\|\theta e_1 + N\|`),
:math:`\nu = d/2 - 1` and :math:`g(z) = \log{}_0F_1(;d/2;z^2/4)` (so :math:`g' = R_\nu
= I_{\nu+1}/I_\nu`), the log-likelihood ratio is

.. math::

    L(r) = \log\frac{p_a(r)}{p_b(r)} = -\frac{a^2 - b^2}{2} + g(ar) - g(br)
         = \delta\Bigl(r \int_0^1 R_\nu\bigl(br + \delta r s\bigr)\,ds - \frac{a+b}{2}\Bigr),
    \qquad \delta = a - b.

Per node, the second form (``Z_NODES``-point Gauss–Legendre in :math:`s`) is used where
:math:`|\delta| r \le` ``RATIO_SPAN`` :math:`\cdot\sqrt{(\nu + \pi/2)^2 + (\min(a,b)\,r)^2}`
(the poles of :math:`R_\nu` nearest the real axis are at :math:`\pm i j_{\nu,1}`,
:math:`j_{\nu,1} \ge \nu + \pi/2`, and the square root bounds their distance to the interval
:math:`[\min(a,b) r, \max(a,b) r]` from below, so the rule converges like :math:`8^{-2n}`); it has
no cancellation as :math:`a \to b` and gives :math:`\tilde L = L/\delta` directly. Elsewhere the
first form is used (:math:`|\delta|` is then not small relative to :math:`a`). Using the first
form where the second applies would cost accuracy: its two log-densities carry absolute errors
~1e-13·|log p| that become an error ~1e-13/((α−1)D) relative in D (1.8e-9 at d = 1, a = 100,
b = 99.99, α = 8 before the :math:`\min(a,b) r` term was added; now 1e-12).

**Two forms of the divergence, chosen elementwise.** Integrals are composite Gauss–Legendre
rules in :math:`u = \log r` (which turns the endpoint behaviour :math:`r^{d-1}` and the
power-law-like tilted integrands of :math:`a < b`, large :math:`\alpha` into smooth decay):

1. *Direct form*: :math:`(\alpha - 1) D = \log\int e^{\phi}`, :math:`\phi = \log p_b + \alpha L`,
   on panels centred at the maximiser :math:`u^*` of :math:`\phi + u` (``NEWTON_STEPS``
   safeguarded Newton steps from the root of :math:`r^2 - \kappa r - d`,
   :math:`\kappa = \alpha a + (1-\alpha) b`, the large-argument approximation), reaching out to
   where the integrand has dropped by :math:`e^{-T}`, :math:`T = -\log\epsilon + 4` (40 in
   float64; found by Newton steps on :math:`\phi + u` from the Gaussian guess). Panels are
   ``LINEAR_PANELS`` of width ``LINEAR_STEP`` :math:`\sigma` (:math:`\sigma` from the curvature
   at :math:`u^*`) on each side, then ``GEOMETRIC_PANELS`` geometrically growing ones. The peak
   can lie far outside both bulks: near :math:`m_b + \alpha(m_a - m_b)` for :math:`a > b`, at
   :math:`r \to 0` for :math:`a < b` and large :math:`\alpha`.
2. *ψ form*, cancellation-free when the divergence is small:
   :math:`\int p_a^\alpha p_b^{1-\alpha} - 1 = E_b[\psi(L)]`,
   :math:`\psi(L) = e^{\alpha L} - 1 - \alpha(e^L - 1) \ge 0`. Here :math:`\psi` is the series
   :math:`\sum_{n \ge 2} \alpha(\alpha^{n-1} - 1) L^n/n!` (``PSI_TERMS`` terms, summed in
   :math:`\alpha L` so that no coefficient overflows) for
   :math:`|\alpha L| < 1` and :math:`e^L\operatorname{expm1}((\alpha-1)L) -
   (\alpha-1)\operatorname{expm1}(L)` (in log space for :math:`L > 0`) elsewhere, the sum is
   scaled by :math:`\delta^2` (so values down to 1e-300 neither underflow nor lose digits), and
   divided by :math:`\int p_b` on the same nodes. The window is centred at :math:`p_b`'s peak
   and reaches the edges of both :math:`p_b`'s and the tilted integrand's windows.

The ψ form is used where the direct form gives :math:`(\alpha-1)D <` ``PSI_MAX`` (the direct
form's rounding error, :math:`\approx \epsilon/((\alpha-1)D)` relative, would be large there),
the direct form elsewhere. Both are evaluated: the ψ form in scaled log space, so that it stays
finite where it is not used (and at a slightly shifted ``a`` where a = b, where the result is
exactly 0), and its result is masked with ``where`` before it is exponentiated (the
double-``where`` trick), so neither values nor gradients pick up NaN from it.
:math:`\log p_b` is SciPy-convention ``ncx2.logpdf`` (accurate to ~1e-13·max(1, |log p|)).
The windows assume a unimodal integrand in :math:`u` (true on every case tested; not proved).

**Accuracy** (float64, against 60-digit mpmath, ``tests/fixtures/renyi_ncx2.json``, 60 points
plus the 3 shared references; asserted at 1e-9 by ``tests/test_renyi.py``). Worst relative
errors measured per regime: a ≈ b (|a − b| = 1e-6 and 1e-12 relative, values down to 1e-25):
1e-14; a = 0 or b = 0: 4e-13; d = 1: 1e-15; d = 1e4: 2e-15; large α with a < b (tilted peak
at r → 0) and with a > b (peak far beyond both bulks, values up to 4e3): 3e-16; moderate:
5e-12 (α = 1.0001, where the direct form carries (α − 1)D ≈ 2e-3). In float32 the relative
error is below 1e-3 where a and b are distinct in float32 (a ≈ b is limited by the rounding
of the inputs themselves).

**Cost.** 2 × 320 quadrature nodes per element, each with a log-density and ``Z_NODES`` + 2
Bessel evaluations: about 4 ms per element (1000 random points in 3.9 s on two shared CPU
cores); compiling takes ~20–30 s (the derivative ~100 s). Not for tight inner loops over millions of points.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.bounds import gaussian_renyi
from fisherrdp._src.config import as_float_arrays
from fisherrdp._src.distributions.ncx2 import _logpdf
from fisherrdp._src.divergences._windows import window_search
from fisherrdp._src.scan.engine import map_bucketed
from fisherrdp._src.special.bessel import _ratio_and_log_0f1
from fisherrdp._src.validation import check_concrete, is_tracer

__all__ = ["gaussian_renyi", "renyi_ncx2"]

#: Gauss–Legendre nodes per panel in u = log r.
NODES = 16
#: Per side of the peak: panels of width LINEAR_STEP·σ, then geometrically growing ones.
LINEAR_PANELS = 6
LINEAR_STEP = 1.5
GEOMETRIC_PANELS = 4
#: Newton steps for the peak u* and for each window edge.
NEWTON_STEPS = 24
EDGE_STEPS = 12
#: Nodes of the rule for L/δ = r ∫₀¹ R_ν(br + δ r s) ds − (a + b)/2, and its range of use.
Z_NODES = 8
RATIO_SPAN = 0.5
#: Terms of the series of ψ for |αL| < 1 (the 20th is below 1/20! of the leading term's scale).
PSI_TERMS = 20
#: The ψ form is used where (α − 1) D < PSI_MAX.
PSI_MAX = 1e-3

_LOG2 = math.log(2.0)


def _rule(n: int, dtype) -> tuple[jax.Array, jax.Array]:
    """Gauss–Legendre nodes and weights on [0, 1], in ``dtype``."""
    x, w = np.polynomial.legendre.leggauss(n)
    return jnp.asarray((x + 1.0) / 2.0, dtype), jnp.asarray(w / 2.0, dtype)


def _bessel(nu, z):
    """R_ν(z) and g(z) = log ₀F₁(; ν + 1; z²/4), by one shared core (one call site to compile)."""
    return _ratio_and_log_0f1(jnp.broadcast_to(nu, z.shape), z, 0.25 * z * z)


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


def _panels(centre, sigma, lo, hi):
    """Nodes and weights in u: graded panels from ``centre`` out to ``lo`` and ``hi``."""
    x, w = _rule(NODES, sigma.dtype)
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
        length = jnp.diff(edges)[:, None]
        nodes.append((edges[:-1, None] + length * x[None, :]).ravel())
        weights.append((length * w[None, :]).ravel())
    return jnp.concatenate([centre - nodes[0], centre + nodes[1]]), jnp.concatenate(
        weights
    )


def _log_ratio_over_delta(r, d, a, b):
    """L(r)/δ with δ = a − b (see the module docstring); finite also at δ = 0. ``a`` per node."""
    nu = 0.5 * d - 1.0
    delta = a - b
    # Distance from [min(a, b) r, max(a, b) r] to the poles ±i j_{ν,1} of R_ν, from below.
    pole_distance = jnp.sqrt((nu + 0.5 * math.pi) ** 2 + (jnp.minimum(a, b) * r) ** 2)
    use_ratio = jnp.abs(delta) * r <= RATIO_SPAN * pole_distance
    s, ws = _rule(Z_NODES, r.dtype)
    z = b * r[:, None] + jnp.where(use_ratio, delta * r, 0.0)[:, None] * s
    ra = jnp.where(use_ratio, 0.0, a * r)
    rb = jnp.where(use_ratio, 0.0, b * r)
    n = r.shape[0]
    ratio, g = _bessel(nu, jnp.concatenate([z.ravel(), ra, rb]))
    by_ratio = r * jnp.sum(ws * ratio[: n * Z_NODES].reshape(n, Z_NODES), axis=-1)
    g_a, g_b = g[n * Z_NODES : n * Z_NODES + n], g[n * Z_NODES + n :]
    by_g = (g_a - g_b) / jnp.where(use_ratio, 1.0, delta)
    return jnp.where(use_ratio, by_ratio, by_g) - 0.5 * (a + b)


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


def _log_scaled_mean(log_pb, l_over, delta, w, small, over_square, log_large):
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


def _log_psi_sum(alpha, log_pb, l_over, delta, w):
    """log(Σ w p_b ψ(L) / Σ w p_b), L = δ · l_over, δ ≠ 0; finite for every input."""
    l = delta * l_over
    small = jnp.abs(alpha * l) < 1.0
    l_small = jnp.where(small, l, 0.0)
    l_large = jnp.where(small, 1.0 / alpha + 1.0, l)
    return _log_scaled_mean(log_pb, l_over, delta, w, small, _psi_series(alpha, l_small),
                            _log_psi_large(alpha, l_large))


def _two_window_nodes(beta, d, a, b):
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
    u_star, sigma, lo, hi = jax.lax.stop_gradient(
        _windows(jnp.stack([beta, jnp.zeros_like(beta)]), d, jnp.stack([a_off, a_off]), b, drop)
    )
    u_d, w_d = _panels(u_star[0], sigma[0], lo[0], hi[0])
    u_p, w_p = _panels(
        u_star[1], sigma[1], jnp.minimum(lo[0], lo[1]), jnp.maximum(hi[0], hi[1])
    )
    n = u_d.shape[0]
    u = jnp.concatenate([u_d, u_p])
    log_pb = _LOG2 + 2.0 * u + _logpdf(jnp.exp(2.0 * u), d, b * b)
    per_node_a = jnp.concatenate(
        [jnp.broadcast_to(a, (n,)), jnp.broadcast_to(a_off, (n,))]
    )
    l_over = _log_ratio_over_delta(jnp.exp(u), d, per_node_a, b)
    return n, w_d, w_p, log_pb, l_over, a_off


def _renyi(alpha, d, a, b):
    valid = (alpha > 1.0) & (d >= 1.0) & (a >= 0.0) & (b >= 0.0)
    alpha = jnp.where(valid, alpha, 2.0)
    d = jnp.where(valid, d, 1.0)
    a = jnp.where(valid, a, 1.0)
    b = jnp.where(valid, b, 1.0)
    n, w_d, w_p, log_pb, l_over, a_psi = _two_window_nodes(alpha, d, a, b)
    # 1. Direct form: log ∫ p_b e^{αL} = (α − 1) D.
    log_int = jax.nn.logsumexp(log_pb[:n] + alpha * (a - b) * l_over[:n], b=w_d)
    # 2. ψ form: log E_b[ψ(L)], E = e^{(α−1)D} − 1; used where (α − 1) D < PSI_MAX.
    use_psi = jax.lax.stop_gradient(log_int < PSI_MAX) & (a != b)
    log_e = jnp.where(
        use_psi, _log_psi_sum(alpha, log_pb[n:], l_over[n:], a_psi - b, w_p), -1.0
    )
    e = jnp.exp(log_e)
    small_value = jnp.exp(log_e - jnp.log(alpha - 1.0)) * (jnp.log1p(e) / e)
    value = jnp.where(use_psi, small_value, log_int / (alpha - 1.0))
    value = jnp.where(a == b, jnp.zeros_like(value), value)
    return jnp.where(valid, value, jnp.nan)


_renyi_vec = jax.jit(jnp.vectorize(_renyi))


def renyi_ncx2(alpha: ArrayLike, d: ArrayLike, a: ArrayLike, b: ArrayLike) -> jax.Array:
    r"""Rényi divergence between two non-central chi-square laws with the same ``d``.

    .. math::

        D_\alpha\bigl(\chi^2_d(a^2) \,\big\|\, \chi^2_d(b^2)\bigr)
        = \frac{1}{\alpha - 1} \log \int_0^\infty p_{a}(y)^\alpha\, p_{b}(y)^{1-\alpha}\, dy,

    natural logarithm, where :math:`p_\theta` is the density of
    :math:`\|\theta e_1 + N\|^2`, :math:`N \sim \mathcal N(0, I_d)`. With :math:`a = \|v\|`,
    :math:`b = \|w\|` this is the infinite-release loss of ``MATH.md`` §2 (the paper's
    Prop. 4.1/4.2). It is at most the post-processing value :math:`\alpha (a-b)^2/2`
    (:func:`gaussian_renyi`) and equals :math:`\tfrac{\alpha}{2} I(d, b)(a-b)^2 + o((a-b)^2)`
    near :math:`a = b` (Prop. 3.1). Computed by quadrature in :math:`r = \sqrt y` (method:
    :mod:`fisherrdp._src.divergences.renyi`), to a relative error below 1e-9 (measured:
    below 5e-12, see the module docstring) for :math:`\alpha \in (1, 256]`,
    :math:`d \in [1, 10^4]`, :math:`a, b \in [0, 100]`, also where :math:`a \approx b` makes
    the value tiny. Elementwise with broadcasting; works under ``jit`` and ``vmap``;
    differentiable in ``alpha``, ``a`` and ``b``.

    Args:
      alpha: Rényi order, ``alpha >= 1``. Where a concrete ``alpha`` equals 1 the value is the
        Kullback–Leibler divergence, the limit α → 1 (:func:`kl_ncx2`, a separate compiled
        program); inside ``jit`` (``alpha`` a tracer) α = 1 gives NaN: call :func:`kl_ncx2`.
      d: degrees of freedom, real, ``d >= 1``.
      a: amplitude of the first law, ``a >= 0`` (non-centrality ``a**2``).
      b: amplitude of the second law, ``b >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``alpha < 1``, ``d < 1``, ``a < 0`` or ``b < 0``. Inside
        ``jit`` no check is possible: such entries (and α = 1) come out as NaN.

    Examples:
      >>> from fisherrdp.divergences import renyi_ncx2
      >>> round(float(renyi_ncx2(2.0, 50.0, 1.0, 0.5)), 10)  # MATH.md §2 spot value
      0.0055679342
      >>> float(renyi_ncx2(2.0, 50.0, 1.0, 1.0))
      0.0
      >>> print(f"{float(renyi_ncx2(1.0, 50.0, 1.0, 0.5)):.10f}")  # α = 1: kl_ncx2
      0.0027572836
      >>> print(f"{float(renyi_ncx2(2.0, 5.0, 1.0 + 1e-9, 1.0)):.4e}")  # ≈ α I(5, 1) δ²/2
      2.8827e-19
    """
    check_concrete("alpha", alpha, lower=1.0)
    check_concrete("d", d, lower=1.0)
    check_concrete("a", a, lower=0.0)
    check_concrete("b", b, lower=0.0)
    alpha, d, a, b = as_float_arrays(alpha, d, a, b)
    if is_tracer(alpha) or not np.any(np.asarray(alpha) == 1.0):
        return map_bucketed(_renyi_vec, alpha, d, a, b)[0]
    # Concrete α = 1: the Kullback–Leibler divergence, by its own program.
    from fisherrdp._src.divergences.kl import kl_ncx2

    at_one = np.asarray(alpha) == 1.0
    kl = kl_ncx2(d, a, b)
    if np.all(at_one):
        return jnp.broadcast_to(kl, jnp.broadcast_shapes(alpha.shape, kl.shape))
    renyi = map_bucketed(_renyi_vec, jnp.where(at_one, 2.0, alpha), d, a, b)[0]
    return jnp.where(at_one, kl, renyi)

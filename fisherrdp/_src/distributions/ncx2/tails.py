r"""The distribution and survival functions of the non-central χ² law, in log space
(``logcdf``, ``logsf``, ``cdf``, ``sf``).

**Distribution and survival functions** (``logcdf``, ``logsf``, ``cdf``, ``sf``). In
:math:`r = \sqrt y`, whose density is :math:`f(r) = 2 r\, p(r^2)`, the smaller side is
integrated directly in log space (``logsumexp`` of log-integrand plus log-weight): the left side
:math:`\int_0^x p` when :math:`x \le \mathrm{df} + \lambda` (the mean), else the right side;
the other follows as :math:`\log(1 - e^{\cdot})` (a stable ``log1mexp``), so neither tail
ever rounds to ``-inf`` while finite.

* Left: :math:`\int_0^x p = \int_0^\infty 2 y\, p(y)\, du` with :math:`y = x e^{-2u}`
  (:math:`\log y = \log x - 2u` exactly); smooth in :math:`u` even for non-integer df, decaying
  like :math:`e^{-\mathrm{df}\, u}` as :math:`y \to 0`.
* Right: :math:`\int_x^\infty p = \int_0^\infty f(\sqrt x + t)\, dt` (nodes formed as
  :math:`\sqrt x + t`).

The span :math:`U` of the :math:`t`/:math:`u` integral is the smallest of
:math:`U_{\max} 2^{-j}`, :math:`j = 0, \dots,` ``SPAN_HALVINGS``, reached by halving from the
largest while the log-integrand at the candidate lies at least
:math:`T = -\log\epsilon +` ``DROP_MARGIN`` (48 in float64, 28 in float32) below its value at
the start. :math:`U_{\max} = T/\mathrm{df} + 1/2` on the left: with
:math:`s(r) = 1 + r\,(\log f)'(r) = \mathrm{df} - r^2 + \theta r R_\nu(\theta r)` the decay
rate in :math:`u` and :math:`R_\nu(z)/z` decreasing, :math:`s \ge \mathrm{df} + (s_0 -
\mathrm{df}) e^{-2u}`, so the drop at :math:`U_{\max}` is at least :math:`T` whenever
:math:`s_0 \ge 0` (true left of the mean). On the right
:math:`U_{\max} = \sqrt{2T/\kappa}`, :math:`\kappa` = ``RIGHT_CURVATURE`` = 1/4, a lower
bound on the curvature of :math:`-\log f` right of :math:`\sqrt{\mathrm{mean}}` (it is
:math:`\ge 1 - \sup_\theta \theta^2 \operatorname{sech}^2(\theta\sqrt{1+\theta^2})
\approx 0.73` at df = 1 and larger otherwise). :math:`[0, U]` is covered by
``TAIL_NODES``-point Gauss–Legendre panels with edges ``TAIL_EDGES`` (graded towards 0, where a
narrow peak of width ~1/√x may start a long :math:`e^{-u}` tail, e.g. df = 1, large λ). The
probe at the candidate spans and the quadrature are two passes of one loop body, so that the
log-density is compiled once (compilation, not evaluation, dominates the cost).

Derivatives (``custom_jvp``): :math:`\partial_x \log F = p/F` and
:math:`\partial_x \log S = -p/S` exactly (with :math:`\log p(x)` taken from the probe at
:math:`t = 0`); the df and nc partials are the quadrature of the integrand's partials on the
same nodes, with the span held fixed (the integration limits do not depend on df and nc, so this
is exact up to quadrature error): :math:`\sum_i \mathrm{softmax}(\log h + \log w)_i\,
\partial\log h_i`, from the linearized integrand (:func:`log_cdf_sf_tangents`), so that no
derivative goes through the quadrature's loop (reverse mode transposes products only:
``jax.jacrev`` of ``cdf`` compiles in 5–6 s instead of 14–16 s).

Accuracy (float64) against 40-digit mpmath Poisson-mixture references
(``tests/fixtures/make_ncx2_cdf_fixtures.py``: 522 points, df ∈ {1, 1.5, 2, 5, 10, 100, 1e3,
1e4}, nc ∈ {0, 1e-3, 1, 10, 100, 1e4, 1e6}, x from 1e-8 and mean/100 to mean + 40 sd), error of
logcdf and logsf relative to max(1, |value|): worst 2.3e-14 in the left tail (x ≤ mean − 5 sd),
5.4e-15 in the right tail (x ≥ mean + 5 sd), 4.5e-14 in the bulk, 3.8e-16 at x ≤ 1e-6.
∂ₓ log F and ∂ₓ log S agree with 40-digit p/F and −p/S to 7.3e-14; df/nc derivatives with mpmath central differences to
3.0e-14 (claims in ``tests/fixtures/accuracy/ncx2_cdf.json``). In float32 all four
are within max(1e-5 relative, 10× the input-rounding error) of float64 at 10⁴ points of
df, nc ≤ 1e4 (``docs/howto/float32.md``). The nodes are formed as x e^{−2u} and
x + t(2√x + t), which are x itself at the start: exp(log x − 2u) and (√x + t)² would move y by
eps·|log x| (resp. eps) relatively, and log p by that times y ∂_y log p (~300 at df = 1e4).
Known limit: below x ≈ 1e-290 (float64) the left-side nodes underflow and lose accuracy.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, validated
from fisherrdp._src.distributions.ncx2.density import LOG2, logpdf_kernel
from fisherrdp._src.numerics.quadrature import composite_gauss_legendre

__all__ = [
    "cdf",
    "log_cdf_sf",
    "log_cdf_sf_tangents",
    "log_cdf_sf_values",
    "logcdf",
    "logsf",
    "sf",
]


TAIL_BUCKET_CAP = 1 << 12


#: Gauss–Legendre nodes per panel, and panel edges (fractions of the span, graded towards the
#: start, where a narrow peak may sit at the start of a long slowly decaying integrand), of the
#: tail integrals of ``logcdf``/``logsf``.
TAIL_NODES = 16


TAIL_EDGES = (0.0, 1 / 128, 1 / 64, 1 / 32, 1 / 16, 1 / 8, 1 / 4, 1 / 2, 3 / 4, 1.0)


#: The span of a tail integral is the smallest of U_max · 2^{-j}, j = 0..SPAN_HALVINGS, at
#: which the log-integrand has dropped by at least DROP_MARGIN + log(1/eps) below its start.
SPAN_HALVINGS = 40


DROP_MARGIN = 12.0


#: Lower bound on the curvature of −log f (density of r = √y) right of √mean, giving U_max.
RIGHT_CURVATURE = 0.25

_TAIL_NODES, _TAIL_WEIGHTS = composite_gauss_legendre(TAIL_NODES, TAIL_EDGES)


def _log1mexp(a: jax.Array) -> jax.Array:
    """log(1 − e^a) for a ≤ 0, accurate in both regimes (Mächler 2012)."""
    near = a > -LOG2
    a_near = jnp.where(near, a, -1.0)
    a_far = jnp.where(near, -1.0, a)
    return jnp.where(near, jnp.log(-jnp.expm1(a_near)), jnp.log1p(-jnp.exp(a_far)))


def _log_tail_integrand(t, left, x, df, nc):
    """log of the tail integrand at offsets t ≥ 0 (a trailing axis) from the point x > 0.

    Left: ∫_0^x p = ∫_0^∞ 2 y p(y) du with y = x e^{−2u}, integrand log 2 + log y + log p(y).
    Right: ∫_x^∞ p = ∫_0^∞ 2 r p(r²) dt with r = √x + t.
    """
    x, df, nc, left = x[..., None], df[..., None], nc[..., None], left[..., None]
    tiny = jnp.finfo(x.dtype).tiny
    log_y_left = jnp.log(x) - 2.0 * t
    # y as the product x e^{−2t}, not exp(log x − 2t): the rounding of log x would move y by
    # eps·|log x| relative, and the log-density by that times y ∂_y log p (~300 at df = 1e4).
    y_left = jnp.maximum(x * jnp.exp(-2.0 * t), tiny)
    # Likewise (√x + t)² as x + t(2√x + t), which is x itself at t = 0.
    root_x = jnp.sqrt(x)
    r_right = root_x + t
    y = jnp.where(left, y_left, x + t * (2.0 * root_x + t))
    log_jacobian = jnp.where(left, log_y_left, jnp.log(r_right))
    return LOG2 + log_jacobian + logpdf_kernel(y, df, nc)


def _log_cdf_sf_quadrature(x, df, nc, *, partials: bool = False):
    """(log P(Y ≤ x), log P(Y > x), log p(x)) by quadrature of the smaller side, finite x > 0;
    with ``partials``, also the (df, nc) partials of the first two (trailing axis of 2).

    Two passes of one loop body (so that the log-density is compiled once): pass 0 evaluates
    the integrand at t = 0 and at the candidate spans and picks the span, pass 1 at the nodes.
    The partials hold the span fixed (the integration limits do not depend on df and nc):
    ∂ log ∫ = Σ softmax(log h + log w) ∂ log h, with ∂ log h from the linearized integrand
    (one primal, both tangents batched), so that no derivative ever goes through the loop.
    """
    dtype = x.dtype
    drop = DROP_MARGIN - math.log(float(jnp.finfo(dtype).eps))
    left = x <= df + nc
    u_max = jnp.where(left, drop / df + 0.5, math.sqrt(2.0 * drop / RIGHT_CURVATURE))
    halvings = 2.0 ** -np.arange(SPAN_HALVINGS + 1)
    probe_unit = np.zeros(_TAIL_NODES.size)
    probe_unit[1 : halvings.size + 1] = halvings  # t = 0, then the candidates; zero padding
    probe = jax.lax.stop_gradient(u_max[..., None] * jnp.asarray(probe_unit, dtype))
    nodes = jnp.asarray(_TAIL_NODES, dtype)
    log_weights = jnp.log(jnp.asarray(_TAIL_WEIGHTS, dtype))

    def integrand(t):
        """log h at the offsets t, and with ``partials`` its (df, nc) partials (..., nodes, 2)
        (in both passes: one body, one compiled copy; pass 0's partials are not used)."""
        if not partials:
            return _log_tail_integrand(t, left, x, df, nc), None
        log_h, linear = jax.linearize(lambda df, nc: _log_tail_integrand(t, left, x, df, nc),
                                      df, nc)
        unit_df = jnp.stack([jnp.ones_like(df), jnp.zeros_like(df)])
        unit_nc = jnp.stack([jnp.zeros_like(nc), jnp.ones_like(nc)])
        d_log_h = jax.vmap(linear)(unit_df, unit_nc)  # ∂/∂df, then ∂/∂nc
        return log_h, jnp.moveaxis(d_log_h, 0, -1)

    def one_pass(i, state):
        span, log_h_start, _, _ = state
        log_h, d_log_h = integrand(jnp.where(i == 0, probe, span[..., None] * nodes))
        # Largest candidates first: keep halving while the drop is still reached.
        drops = jax.lax.stop_gradient(log_h[..., :1] - log_h[..., 1 : halvings.size + 1])
        kept = jnp.sum(jnp.cumprod(drops >= drop, axis=-1), axis=-1)
        chosen = u_max * jnp.exp2(-jnp.maximum(kept - 1, 0).astype(dtype))
        log_terms = log_h + log_weights
        log_integral = jax.nn.logsumexp(log_terms, -1) + jnp.log(span)
        d_integral = (jnp.zeros(x.shape + (2,), dtype) if d_log_h is None else
                      jnp.sum(jax.nn.softmax(log_terms, -1)[..., None] * d_log_h, -2))
        first = i == 0
        return (jnp.where(first, jax.lax.stop_gradient(chosen), span),
                jnp.where(first, log_h[..., 0], log_h_start),
                log_integral, d_integral)

    init = (u_max, jnp.zeros_like(x), jnp.zeros_like(x), jnp.zeros(x.shape + (2,), dtype))
    _, log_h_start, log_direct, d_direct = jax.lax.fori_loop(0, 2, one_pass, init)
    clipped = log_direct > 0.0
    log_direct = jnp.minimum(log_direct, 0.0)
    log_other = _log1mexp(log_direct)
    log_p = log_h_start - LOG2 - jnp.where(left, 1.0, 0.5) * jnp.log(x)
    log_cdf = jnp.where(left, log_direct, log_other)
    log_sf = jnp.where(left, log_other, log_direct)
    if not partials:
        return log_cdf, log_sf, log_p
    # log(1 − e^{D}) has the derivative −e^{D − log(1 − e^{D})} ∂D.
    d_direct = jnp.where(clipped[..., None], 0.0, d_direct)
    finite_other = log_other > -jnp.inf
    rate = jnp.exp(log_direct - jnp.where(finite_other, log_other, 0.0))
    d_other = jnp.where(finite_other[..., None], -rate[..., None] * d_direct, 0.0)
    side = left[..., None]
    return (log_cdf, log_sf, log_p, jnp.where(side, d_direct, d_other),
            jnp.where(side, d_other, d_direct))


def _with_edges(x, df, nc, partials: bool):
    """The quadrature's outputs on broadcast float arrays, with the edges x ≤ 0, x = inf and
    bad df/nc (log p(x) is only meaningful for finite x > 0; the partials are 0 at the edges)."""
    inside = (x > 0.0) & (x < jnp.inf)
    x_safe = jnp.where(inside, x, df + nc)
    valid = (df >= 1.0) & (nc >= 0.0)
    df_safe = jnp.where(valid, df, 1.0)
    nc_safe = jnp.where(valid, nc, 0.0)
    log_cdf, log_sf, log_p, *rest = _log_cdf_sf_quadrature(x_safe, df_safe, nc_safe,
                                                           partials=partials)
    log_cdf = jnp.where(inside, log_cdf, jnp.where(x > 0.0, 0.0, -jnp.inf))
    log_sf = jnp.where(inside, log_sf, jnp.where(x > 0.0, -jnp.inf, 0.0))
    nan = jnp.array(jnp.nan, x.dtype)
    values = (jnp.where(valid, log_cdf, nan), jnp.where(valid, log_sf, nan), log_p)
    keep = (inside & valid)[..., None]
    return values + tuple(jnp.where(keep, r, 0.0) for r in rest)


def log_cdf_sf_values(x, df, nc):
    """(logcdf, logsf, log p(x)) on broadcast float arrays, with the edges x ≤ 0, x = inf and
    bad df/nc (log p(x) is only meaningful for finite x > 0)."""
    return _with_edges(x, df, nc, partials=False)


def log_cdf_sf_tangents(x, df, nc, ddf, dnc):
    """:func:`log_cdf_sf_values` and the tangents of logcdf and logsf at fixed x for the df and
    nc tangents ``ddf``, ``dnc`` (0 at the edges), from the partials at the nodes (no
    derivative through the quadrature's loop): for the derivative rules of the distribution
    functions and the quantiles."""
    log_cdf, log_sf, log_p, cdf_partials, sf_partials = _with_edges(x, df, nc, partials=True)

    def tangent(partials):
        return partials[..., 0] * ddf + partials[..., 1] * dnc

    return log_cdf, log_sf, log_p, tangent(cdf_partials), tangent(sf_partials)


@jax.custom_jvp
def log_cdf_sf(x, df, nc):
    return log_cdf_sf_values(x, df, nc)[:2]


@log_cdf_sf.defjvp
def _log_cdf_sf_jvp(primals, tangents):
    """x-tangent exactly from the density; df, nc tangents from the partials at the nodes."""
    x, df, nc = primals
    dx, ddf, dnc = tangents
    log_cdf, log_sf, log_p, d_cdf, d_sf = log_cdf_sf_tangents(x, df, nc, ddf, dnc)
    inside = (x > 0.0) & (x < jnp.inf)
    cdf_rate = jnp.where(inside, jnp.exp(log_p - jnp.where(inside, log_cdf, 0.0)), 0.0)
    sf_rate = jnp.where(inside, jnp.exp(log_p - jnp.where(inside, log_sf, 0.0)), 0.0)
    return (log_cdf, log_sf), (d_cdf + cdf_rate * dx, d_sf - sf_rate * dx)


_log_cdf_sf_jit = jax.jit(log_cdf_sf)


def _log_cdf_sf_public(x, df, nc):
    return map_bucketed(_log_cdf_sf_jit, *as_float_arrays(x, df, nc), cap=TAIL_BUCKET_CAP)


@validated(df=DIMENSION, nc=NONNEG)
def logcdf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Log of the distribution function, SciPy's ``ncx2.logcdf(x, df, nc)``.

    .. math::

        \log F(x) = \log P(Y \le x) = \log \int_0^x p(y)\, dy,
        \qquad Y \sim \chi^2_{\mathrm{df}}(\lambda).

    The smaller of :math:`F(x)` and :math:`1 - F(x)` is integrated numerically in log space
    (see the module docstring), the other one follows as :math:`\log(1 - e^{\cdot})`; accurate
    to about 1e-13 · :math:`\max(1, |\log F|)` in float64 in both tails, for df ∈ [1, 1e4],
    nc ∈ [0, 1e6]. Elementwise with broadcasting; works under ``jit`` and ``vmap``,
    differentiable in ``x`` (:math:`\partial_x \log F = p/F`, exactly), ``df`` and ``nc``.

    Args:
      x: point(s). ``x <= 0`` gives ``-inf``, ``x = inf`` gives ``0``.
      df: degrees of freedom, real, ``df >= 1``.
      nc: non-centrality ``λ = θ² >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0`` (NaN inside ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.logcdf(3.0, 4.0, 2.0)), 12)
      -1.401315814501
      >>> round(float(ncx2.logcdf(1e-8, 10.0, 100.0)), 6)  # far left tail
      -150.356631
      >>> float(ncx2.logcdf(0.0, 4.0, 2.0))
      -inf
    """
    return _log_cdf_sf_public(x, df, nc)[0]


@validated(df=DIMENSION, nc=NONNEG)
def logsf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Log of the survival function, SciPy's ``ncx2.logsf(x, df, nc)``.

    .. math::

        \log S(x) = \log P(Y > x) = \log \int_x^\infty p(y)\, dy,
        \qquad Y \sim \chi^2_{\mathrm{df}}(\lambda).

    Same method and accuracy as :func:`logcdf` (about 1e-13 · :math:`\max(1, |\log S|)` in
    float64); finite far into the right tail, where SciPy returns ``-inf``.
    :math:`\partial_x \log S = -p/S` exactly; differentiable in ``df`` and ``nc``.

    Args:
      x: point(s). ``x <= 0`` gives ``0``, ``x = inf`` gives ``-inf``.
      df: degrees of freedom, real, ``df >= 1``.
      nc: non-centrality ``λ = θ² >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0`` (NaN inside ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.logsf(3.0, 4.0, 2.0)), 12)
      -0.28272464942
      >>> round(float(ncx2.logsf(1e5, 10.0, 100.0)), 6)  # far right tail
      -46878.825613
    """
    return _log_cdf_sf_public(x, df, nc)[1]


@validated(df=DIMENSION, nc=NONNEG)
def cdf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Distribution function :math:`F(x) = P(Y \le x)`, :math:`\exp(\mathrm{logcdf}(x))`.

    .. math::

        F(x) = \int_0^x p(y)\, dy.

    Args:
      x: point(s); ``0`` for ``x <= 0``, ``1`` for ``x = inf``.
      df: degrees of freedom, ``df >= 1``.
      nc: non-centrality ``λ >= 0``.

    Returns:
      Array of the broadcast shape of the arguments.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0`` (NaN inside ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.cdf(2.0, 2.0, 0.0)), 12)  # central: 1 - exp(-x/2)
      0.632120558829
    """
    return jnp.exp(logcdf(x, df, nc))


@validated(df=DIMENSION, nc=NONNEG)
def sf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Survival function :math:`S(x) = P(Y > x)`, :math:`\exp(\mathrm{logsf}(x))`.

    .. math::

        S(x) = \int_x^\infty p(y)\, dy = 1 - F(x).

    Args:
      x: point(s); ``1`` for ``x <= 0``, ``0`` for ``x = inf``.
      df: degrees of freedom, ``df >= 1``.
      nc: non-centrality ``λ >= 0``.

    Returns:
      Array of the broadcast shape of the arguments.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0`` (NaN inside ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.sf(2.0, 2.0, 0.0)), 12)  # central: exp(-x/2)
      0.367879441171
    """
    return jnp.exp(logsf(x, df, nc))

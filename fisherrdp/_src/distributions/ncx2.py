r"""The non-central chi-square law :math:`\chi^2_{\mathrm{df}}(\lambda)`, in JAX.

Conventions are SciPy's (``scipy.stats.ncx2(df, nc)``): ``df`` degrees of freedom (real,
``df >= 1``) and non-centrality ``nc`` :math:`= \lambda = \theta^2 \ge 0`, the law of
:math:`Y = \lVert \theta e_1 + N \rVert^2` with :math:`N \sim \mathcal N(0, I_{\mathrm{df}})`.
The density is

.. math::

    p(x) = \tfrac12\, e^{-(x+\lambda)/2} \Bigl(\frac{x}{\lambda}\Bigr)^{\mathrm{df}/4 - 1/2}
    I_{\mathrm{df}/2 - 1}\bigl(\sqrt{\lambda x}\bigr), \qquad x > 0.

**Log-density: two forms, chosen elementwise.** With :math:`\nu = \mathrm{df}/2 - 1`,
:math:`a = \mathrm{df}/2` and :math:`z = \sqrt{\lambda x}`:

1. *Bessel form* (large z), with :math:`\log\mathrm{ive} = \log(I_\nu(z) e^{-z})`:

   .. math::

       \log p = -\log 2 - \tfrac12(\sqrt x - \sqrt\lambda)^2
       + \tfrac{\nu}{2}\log\frac{x}{\lambda} + \log\mathrm{ive}_\nu(z).

   The Gaussian-like term :math:`(\sqrt x - \sqrt\lambda)^2` is formed directly, so the
   large terms :math:`-(x+\lambda)/2 + z` never cancel numerically.
2. *₀F₁ form* (small z, and λ = 0 exactly):

   .. math::

       \log p = \log p_{\chi^2_{\mathrm{df}}}(x) - \frac{\lambda}{2}
       + \log {}_0F_1\Bigl(;a;\frac{\lambda x}{4}\Bigr).

   The central log-density is :math:`(a-1)\log x - x/2 - a\log 2 - \log\Gamma(a)` for
   :math:`a < 20`; for :math:`a \ge 20` it is rewritten with Stirling's series
   :math:`\log\Gamma(a) = (a-\tfrac12)\log a - a + \tfrac12\log 2\pi + c(a)` as
   :math:`a(\log t - t + 1) - \log t - \tfrac12\log a - \log 2 - \tfrac12\log 2\pi - c(a)`,
   :math:`t = x/(2a)`, with :math:`\log t - t + 1 = \operatorname{log1p}(u) - u`,
   :math:`u = (x - 2a)/(2a)` when :math:`|u| < 1/2`. This avoids the cancellation of terms of
   size :math:`a \log x` (about 5e4 at df = 1e4) in the naive formula.

The ₀F₁ form is used where :math:`z \le \max(Z_0, \mathrm{df}/2)` (``SERIES_MAX_Z``
:math:`= Z_0`), the Bessel form elsewhere. In the Bessel form the term
:math:`\tfrac{\nu}{2}\log(x/\lambda)` cancels against :math:`\log\mathrm{ive}_\nu(z)` when
:math:`z \ll \nu` (e.g. λ → 0); in the ₀F₁ form :math:`-x/2 - \lambda/2` cancels against
:math:`\log{}_0F_1 \approx z` when :math:`z \gg \nu`. The switch is placed between the two and
was tuned against 40-digit mpmath (``tests/fixtures/make_ncx2_fixtures.py``): with
:math:`r = z/\max(30, a)`, the worst errors (relative to max(1, |log p|)) of the ₀F₁ / Bessel
forms were 9e-16 / 6e-13 for r < 0.01, 1e-15 / 8e-13 for r < 0.3, 2e-15 / 2e-15 for
0.7 ≤ r < 1.5, 2e-13 / 5e-15 for 10 ≤ r < 100 and 3e-11 / 4e-14 for r ≥ 100. Near
r ≈ 2 at df = 1e4 both forms sum terms of size ~ν to an O(1) result (6e-14 there). Both forms are
evaluated at safe arguments where not selected (the double-``where`` trick), so neither
values nor gradients pick up NaN from the branch not taken.

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
:math:`t = 0`); the df and nc tangents differentiate the quadrature with the span held fixed
(the integration limits do not depend on df and nc, so this is exact up to quadrature error).

Accuracy (float64) against 40-digit mpmath Poisson-mixture references
(``tests/fixtures/make_ncx2_cdf_fixtures.py``: 522 points, df ∈ {1, 1.5, 2, 5, 10, 100, 1e3,
1e4}, nc ∈ {0, 1e-3, 1, 10, 100, 1e4, 1e6}, x from 1e-8 and mean/100 to mean + 40 sd), error of
logcdf and logsf relative to max(1, |value|): worst 1.2e-13 in the left tail (x ≤ mean − 5 sd),
2.2e-14 in the right tail (x ≥ mean + 5 sd), 3.2e-13 in the bulk (at nc = 1e6, where the
log-density itself errs by ~1e-13), 3.8e-16 at x ≤ 1e-6. ∂ₓ log F and ∂ₓ log S agree with
40-digit p/F and −p/S to 1.1e-13; df/nc derivatives with mpmath central differences to
2.3e-14 (claims in ``tests/fixtures/accuracy/ncx2_cdf.json``). Float32 inputs work, with
float32 accuracy (~1e-6).
Known limit: below x ≈ 1e-290 (float64) the left-side nodes underflow and lose accuracy.

**Quantiles** (``ppf``, ``isf``). The smaller tail probability t (q or 1 − q) is solved for:
:math:`\log T(x) = \log t` with T = F (``logcdf``) or S (``logsf``), which never underflow, by
Newton steps in :math:`y = \log x` with the exact slope :math:`\pm x p/T`, safeguarded by a
bracket that every evaluation shrinks (a step leaving it is replaced by its midpoint; it starts
at the logarithms of the smallest normal and the largest float), in a ``lax.while_loop`` of at
most ``QUANTILE_STEPS`` steps that stops when a step is below ``QUANTILE_TOL``. First guess:
Patnaik's c·χ²_f with the Wilson–Hilferty cube, or in the far left tail the Poisson k = 0
term. A left-tail root below the smallest normal float underflows to 0 (ppf(1e-300) at
df = 1 is 1.6e-600). Derivatives (``custom_jvp``): the implicit-function rule,
:math:`\partial_q x = 1/p(x)`, :math:`\partial_\theta x = -\partial_\theta F/p` (from the
df, nc tangents of the quadrature above). Accuracy (float64) against 40-digit mpmath roots of
the Poisson-mixture F/S (``tests/fixtures/make_ncx2_quantile_fixtures.py``: 118 quantiles,
df ∈ [1, 1e4], nc ∈ [0, 1e4], q from 1e-300 to 0.99), relative error of x: worst 1.8e-14 in
the left tail (ppf, q ≤ 1e-8), 3.2e-15 in the bulk (0.01 ≤ q ≤ 0.99), 1.7e-15 in the right
tail (isf, q ≤ 1e-8) (claims in ``tests/fixtures/accuracy/ncx2_quantiles.json``); SciPy's
``ncx2.ppf``/``isf`` are off by up to 40 % at q = 1e-300. In the left tail the conditioning
is :math:`|\log F|/(\mathrm{df}/2)` times logcdf's relative error. Cost: typically 5–10
evaluations of the tail quadrature per point; compiling ``ppf``/``isf`` (one shared program)
takes ~10 s.

**Edges.** At ``x = 0`` the limit is returned: ``+inf`` for ``df < 2``,
:math:`\log(\tfrac12 e^{-\lambda/2})` for ``df = 2``, ``-inf`` for ``df > 2``. For ``x < 0``
(outside the support) the log-density is ``-inf``. Concrete ``df < 1`` or ``nc < 0`` raise
:class:`ValueError`; inside ``jit`` such entries come out as NaN.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero
from jax.typing import ArrayLike

from fisherrdp._src.config import as_float_arrays
from fisherrdp._src.scan.engine import map_bucketed
from fisherrdp._src.special.bessel import (
    _HALF_LOG_2PI,
    _log_ive_and_0f1,
    _stirling_correction,
)
from fisherrdp._src.validation import check_concrete

#: The ₀F₁ form is used where √(λx) ≤ max(SERIES_MAX_Z, df/2), the Bessel form elsewhere.
SERIES_MAX_Z = 30.0
#: Half degrees of freedom a = df/2 from which the central χ² log-density uses Stirling's series.
STIRLING_MIN_A = 20.0

_LOG2 = math.log(2.0)

#: Largest chunks of eager calls (``map_bucketed``): log-density, and the tail integrals.
BUCKET_CAP = 1 << 16
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

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "mean", "pdf", "ppf", "sample", "sf", "var"]


def _check(df, nc) -> None:
    check_concrete("df", df, lower=1.0)
    check_concrete("nc", nc, lower=0.0)


def _central_logpdf(x: jax.Array, a: jax.Array) -> jax.Array:
    """log of the χ²_{2a} density at x > 0 (x must already be positive)."""
    naive = (a - 1.0) * jnp.log(x) - 0.5 * x - a * _LOG2 - jax.lax.lgamma(a)
    large = a >= STIRLING_MIN_A
    a_s = jnp.where(large, a, STIRLING_MIN_A)
    t = x / (2.0 * a_s)
    log_t = jnp.log(t)
    u = (x - 2.0 * a_s) / (2.0 * a_s)
    near = jnp.abs(u) < 0.5
    u_near = jnp.where(near, u, 0.0)
    g = jnp.where(near, jnp.log1p(u_near) - u_near, log_t - u)  # log t − t + 1
    stirling = (
        a_s * g - log_t - 0.5 * jnp.log(a_s) - _LOG2 - _HALF_LOG_2PI - _stirling_correction(a_s)
    )
    return jnp.where(large, stirling, naive)


def _logpdf(x: jax.Array, df: jax.Array, nc: jax.Array) -> jax.Array:
    a = 0.5 * df
    nu = a - 1.0
    positive = x > 0.0
    xp = jnp.where(positive, x, 1.0)
    z = jnp.sqrt(nc * xp)
    use_series = z <= jnp.maximum(SERIES_MAX_Z, a)

    # Safe arguments of each form where the other is used.
    xs = jnp.where(use_series, xp, 1.0)
    ncs = jnp.where(use_series, nc, 0.0)
    xb = jnp.where(use_series, 1.0, xp)
    ncb = jnp.where(use_series, 1.0, nc)
    # One Bessel core for both forms: the ₀F₁ form's at (ν, 2√q, q) (as ``log_hyp0f1``), the
    # Bessel form's at (ν, √(λx)) (as ``log_bessel_ive``).
    q = 0.25 * ncs * xs
    q_positive = q > 0.0
    x_series = jnp.where(q_positive, 2.0 * jnp.sqrt(jnp.where(q_positive, q, 1.0)), 0.0)
    x_bessel = jnp.sqrt(ncb * xb)
    log_ive, log_0f1 = _log_ive_and_0f1(
        nu,
        jnp.where(use_series, x_series, x_bessel),
        jnp.where(use_series, q, 0.25 * x_bessel * x_bessel),
        use_series,
    )

    series = _central_logpdf(xs, a) - 0.5 * ncs + log_0f1
    diff = jnp.sqrt(xb) - jnp.sqrt(ncb)
    bessel = -_LOG2 - 0.5 * diff * diff + 0.5 * nu * jnp.log(xb / ncb) + log_ive

    inside = jnp.where(use_series, series, bessel)
    at_zero = jnp.where(df < 2.0, jnp.inf, jnp.where(df == 2.0, -_LOG2 - 0.5 * nc, -jnp.inf))
    out = jnp.where(positive, inside, jnp.where(x == 0.0, at_zero, -jnp.inf))
    valid = (df >= 1.0) & (nc >= 0.0)
    return jnp.where(valid, out, jnp.nan)


_logpdf_jit = jax.jit(_logpdf)


def logpdf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Log-density of the non-central chi-square law, SciPy's ``ncx2.logpdf(x, df, nc)``.

    .. math::

        \log p(x) = -\log 2 - \frac{x + \lambda}{2}
        + \Bigl(\frac{\mathrm{df}}{4} - \frac12\Bigr)\log\frac{x}{\lambda}
        + \log I_{\mathrm{df}/2-1}\bigl(\sqrt{\lambda x}\bigr), \qquad \lambda = \mathrm{nc}.

    Computed in one of two cancellation-free forms (see the module docstring), to about
    1e-13 · max(1, |log p|) in float64 for df ∈ [1, 1e4], nc ∈ [0, 1e6], from the far left
    tail to the far right tail. Elementwise with broadcasting; works under ``jit`` and
    ``vmap``, differentiable (``grad``) in ``x``, ``df`` and ``nc``.

    Args:
      x: point(s) at which to evaluate. ``x < 0`` gives ``-inf`` (zero density); ``x = 0``
        gives the limit (``+inf`` for ``df < 2``, ``log(exp(-nc/2)/2)`` for ``df = 2``,
        ``-inf`` for ``df > 2``).
      df: degrees of freedom, real, ``df >= 1``.
      nc: non-centrality ``λ = θ² >= 0``; ``nc = 0`` gives the central χ² law.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0`` (NaN inside ``jit``).

    Examples:
      >>> import numpy as np
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.logpdf(3.0, 4.0, 2.0)), 12)
      -2.113316961886
      >>> float(ncx2.logpdf(-1.0, 4.0, 2.0))
      -inf
      >>> round(float(ncx2.logpdf(2.5e6, 1e4, 2.4e6)), 9)  # far right tail, df = 1e4
      -422.291484192
      >>> float(ncx2.logpdf(0.0, 2.0, 0.0)) == float(np.log(0.5))  # limit at x = 0, df = 2
      True
    """
    _check(df, nc)
    return map_bucketed(_logpdf_jit, *as_float_arrays(x, df, nc), cap=BUCKET_CAP)[0]


def pdf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Density of the non-central chi-square law, :math:`\exp(\mathrm{logpdf}(x))`.

    .. math::

        p(x) = \tfrac12\, e^{-(x+\lambda)/2} (x/\lambda)^{\mathrm{df}/4 - 1/2}
        I_{\mathrm{df}/2-1}\bigl(\sqrt{\lambda x}\bigr).

    Args:
      x: point(s); ``0`` for ``x < 0``.
      df: degrees of freedom, ``df >= 1``.
      nc: non-centrality ``λ >= 0``.

    Returns:
      Array of the broadcast shape of the arguments.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0`` (NaN inside ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.pdf(2.0, 2.0, 0.0)), 12)  # central: exp(-x/2)/2
      0.183939720586
    """
    return jnp.exp(logpdf(x, df, nc))


def _panel_rule(n: int, edges) -> tuple[np.ndarray, np.ndarray]:
    """Composite Gauss–Legendre nodes and weights on [0, 1], n nodes on each panel."""
    x, w = np.polynomial.legendre.leggauss(n)
    edges = np.asarray(edges, float)
    lengths = np.diff(edges)[:, None]
    nodes = (edges[:-1, None] + lengths * (x[None, :] + 1.0) / 2.0).ravel()
    weights = (lengths * w[None, :] / 2.0).ravel()
    return nodes, weights


_TAIL_NODES, _TAIL_WEIGHTS = _panel_rule(TAIL_NODES, TAIL_EDGES)


def _log1mexp(a: jax.Array) -> jax.Array:
    """log(1 − e^a) for a ≤ 0, accurate in both regimes (Mächler 2012)."""
    near = a > -_LOG2
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
    y_left = jnp.maximum(jnp.exp(log_y_left), tiny)
    r_right = jnp.sqrt(x) + t
    y = jnp.where(left, y_left, r_right * r_right)
    log_jacobian = jnp.where(left, log_y_left, jnp.log(r_right))
    return _LOG2 + log_jacobian + _logpdf(y, df, nc)


def _log_cdf_sf_quadrature(x, df, nc):
    """(log P(Y ≤ x), log P(Y > x), log p(x)) by quadrature of the smaller side, finite x > 0.

    Two passes of one loop body (so that the log-density is compiled once): pass 0 evaluates
    the integrand at t = 0 and at the candidate spans and picks the span, pass 1 at the nodes.
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

    def one_pass(i, state):
        span, log_h_start, _ = state
        log_h = _log_tail_integrand(jnp.where(i == 0, probe, span[..., None] * nodes),
                                    left, x, df, nc)
        # Largest candidates first: keep halving while the drop is still reached.
        drops = jax.lax.stop_gradient(log_h[..., :1] - log_h[..., 1 : halvings.size + 1])
        kept = jnp.sum(jnp.cumprod(drops >= drop, axis=-1), axis=-1)
        chosen = u_max * jnp.exp2(-jnp.maximum(kept - 1, 0).astype(dtype))
        log_integral = jax.nn.logsumexp(log_h + log_weights, -1) + jnp.log(span)
        first = i == 0
        return (jnp.where(first, jax.lax.stop_gradient(chosen), span),
                jnp.where(first, log_h[..., 0], log_h_start),
                log_integral)

    init = (u_max, jnp.zeros_like(x), jnp.zeros_like(x))
    _, log_h_start, log_direct = jax.lax.fori_loop(0, 2, one_pass, init)
    log_direct = jnp.minimum(log_direct, 0.0)
    log_other = _log1mexp(log_direct)
    log_p = log_h_start - _LOG2 - jnp.where(left, 1.0, 0.5) * jnp.log(x)
    return (jnp.where(left, log_direct, log_other), jnp.where(left, log_other, log_direct),
            log_p)


def _log_cdf_sf_values(x, df, nc):
    """(logcdf, logsf, log p(x)) on broadcast float arrays, with the edges x ≤ 0, x = inf and
    bad df/nc (log p(x) is only meaningful for finite x > 0)."""
    inside = (x > 0.0) & (x < jnp.inf)
    x_safe = jnp.where(inside, x, df + nc)
    valid = (df >= 1.0) & (nc >= 0.0)
    df_safe = jnp.where(valid, df, 1.0)
    nc_safe = jnp.where(valid, nc, 0.0)
    log_cdf, log_sf, log_p = _log_cdf_sf_quadrature(x_safe, df_safe, nc_safe)
    log_cdf = jnp.where(inside, log_cdf, jnp.where(x > 0.0, 0.0, -jnp.inf))
    log_sf = jnp.where(inside, log_sf, jnp.where(x > 0.0, -jnp.inf, 0.0))
    nan = jnp.array(jnp.nan, x.dtype)
    return jnp.where(valid, log_cdf, nan), jnp.where(valid, log_sf, nan), log_p


@jax.custom_jvp
def _log_cdf_sf(x, df, nc):
    return _log_cdf_sf_values(x, df, nc)[:2]


@_log_cdf_sf.defjvp
def _log_cdf_sf_jvp(primals, tangents):
    """x-tangent exactly from the density; df, nc tangents through the quadrature."""
    x, df, nc = primals
    dx, ddf, dnc = tangents
    (log_cdf, log_sf, log_p), (d_cdf, d_sf, _) = jax.jvp(
        _log_cdf_sf_values, (x, df, nc), (jnp.zeros_like(x), ddf, dnc)
    )
    inside = (x > 0.0) & (x < jnp.inf)
    cdf_rate = jnp.where(inside, jnp.exp(log_p - jnp.where(inside, log_cdf, 0.0)), 0.0)
    sf_rate = jnp.where(inside, jnp.exp(log_p - jnp.where(inside, log_sf, 0.0)), 0.0)
    return (log_cdf, log_sf), (d_cdf + cdf_rate * dx, d_sf - sf_rate * dx)


_log_cdf_sf_jit = jax.jit(_log_cdf_sf)


def _log_cdf_sf_public(x, df, nc):
    _check(df, nc)
    return map_bucketed(_log_cdf_sf_jit, *as_float_arrays(x, df, nc), cap=TAIL_BUCKET_CAP)


def logcdf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Log of the distribution function, SciPy's ``ncx2.logcdf(x, df, nc)``.

    .. math::

        \log F(x) = \log P(Y \le x) = \log \int_0^x p(y)\, dy,
        \qquad Y \sim \chi^2_{\mathrm{df}}(\lambda).

    The smaller of :math:`F(x)` and :math:`1 - F(x)` is integrated numerically in log space
    (see the module docstring), the other one follows as :math:`\log(1 - e^{\cdot})`; accurate
    to about 1e-13 · max(1, |log F|) in float64 in both tails, for df ∈ [1, 1e4],
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


def logsf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Log of the survival function, SciPy's ``ncx2.logsf(x, df, nc)``.

    .. math::

        \log S(x) = \log P(Y > x) = \log \int_x^\infty p(y)\, dy,
        \qquad Y \sim \chi^2_{\mathrm{df}}(\lambda).

    Same method and accuracy as :func:`logcdf` (about 1e-13 · max(1, |log S|) in float64);
    finite far into the right tail, where SciPy returns ``-inf``.
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


#: Most safeguarded Newton steps of a quantile; the loop stops earlier once a step in
#: log x is below QUANTILE_TOL.
QUANTILE_STEPS = 100
QUANTILE_TOL = 1e-15


def _quantile_guess(log_p, lower, df, nc):
    """log x of a first guess at the point with log P(side) = log_p ≤ log ½.

    Patnaik's χ² approximation c·χ²_f (c = (df + 2λ)/(df + λ), f = (df + λ)²/(df + 2λ)) with the
    Wilson–Hilferty cube, and in the far left tail the Poisson k = 0 term,
    F(x) ≈ e^{−λ/2} (x/2)^{df/2} / Γ(df/2 + 1).
    """
    dtype = log_p.dtype
    h = df + nc
    f = h * h / (df + 2.0 * nc)
    c = h / f
    z = jax.scipy.special.ndtri(jnp.maximum(jnp.exp(log_p), jnp.finfo(dtype).tiny))
    z = jnp.where(lower, z, -z)
    scale = jnp.sqrt(2.0 / (9.0 * f))
    base = 1.0 - scale * scale + z * scale
    cube = base > 0.5
    log_wh = jnp.log(c * f) + 3.0 * jnp.log(jnp.where(cube, base, 0.5))
    log_left = _LOG2 + 2.0 / df * (log_p + 0.5 * nc + jax.lax.lgamma(0.5 * df + 1.0))
    return jnp.where(cube, log_wh, jnp.minimum(log_wh, log_left))


def _log_side(y, lower, df, nc):
    """(log P(side) at x = e^y, d/dy of it) — side: Y ≤ x where ``lower``, else Y > x."""
    x = jnp.exp(y)
    log_cdf, log_sf, log_p = _log_cdf_sf_values(x, df, nc)
    log_side = jnp.where(lower, log_cdf, log_sf)
    slope = jnp.exp(log_p + y - log_side)
    return log_side, jnp.where(lower, slope, -slope)


def _quantile_solve(log_p, lower, df, nc):
    """log x with log P(side)(x) = log_p, for finite log_p ≤ log ½ and valid df, nc.

    Newton steps in y = log x on log P(side)(e^y) − log_p (slope x p/P exactly), safeguarded by
    a bracket [lo, hi] that every evaluation shrinks: a step leaving it is replaced by its
    midpoint. The bracket starts at the logarithms of the smallest normal and the largest float.
    """
    dtype = log_p.dtype
    finfo = jnp.finfo(dtype)
    y0 = jnp.clip(_quantile_guess(log_p, lower, df, nc), math.log(finfo.tiny),
                  math.log(finfo.max) - 1.0)
    lo0 = jnp.full_like(y0, math.log(finfo.tiny))
    hi0 = jnp.full_like(y0, math.log(finfo.max))

    def cond(state):
        _, _, _, step, i = state
        return (i < QUANTILE_STEPS) & jnp.any(jnp.abs(step) > QUANTILE_TOL)

    def body(state):
        y, lo, hi, step, i = state
        value, slope = _log_side(y, lower, df, nc)
        g = value - log_p
        below = jnp.where(lower, g < 0.0, g > 0.0)  # the root lies above y
        lo = jnp.where(below, y, lo)
        hi = jnp.where(below, hi, y)
        newton = y - g / slope
        inside = (newton > lo) & (newton < hi) & jnp.isfinite(newton)
        new = jnp.where(inside, newton, 0.5 * (lo + hi))
        done = jnp.abs(step) <= QUANTILE_TOL
        new = jnp.where(done | (g == 0.0), y, new)
        return new, lo, hi, jnp.where(done, step, new - y), i + 1

    init = (y0, lo0, hi0, jnp.full_like(y0, jnp.inf), 0)
    return jax.lax.while_loop(cond, body, init)[0]


@jax.custom_jvp
def _quantile(log_p, lower, df, nc):
    """x with log P(side)(x) = log_p (side: Y ≤ x where ``lower`` = 1, Y > x where 0), on
    broadcast float arrays; log_p ≤ log ½ or NaN. log_p = −inf gives 0 (lower) or +inf."""
    valid = (df >= 1.0) & (nc >= 0.0) & (log_p <= 0.0)
    finite = valid & (log_p > -jnp.inf)
    is_lower = lower > 0.5
    y = _quantile_solve(jnp.where(finite, log_p, -1.0), is_lower, jnp.where(valid, df, 1.0),
                        jnp.where(valid, nc, 0.0))
    edge = jnp.where(is_lower, 0.0, jnp.inf)
    # A left-side root below the smallest normal float (e.g. ppf(1e-300) at df = 1, 1.6e-600)
    # ends at the bracket's lower end: it underflows to 0.
    x = jnp.where(is_lower & (y <= math.log(float(jnp.finfo(y.dtype).tiny))), 0.0, jnp.exp(y))
    return jnp.where(finite, x, jnp.where(valid, edge, jnp.nan))


def _quantile_jvp(primals, tangents):
    """Implicit function rule: d log P(side)(x; df, nc) = d log_p, with ∂ₓ log P = ±p/P. The
    quadrature is differentiated only where a df or nc tangent is nonzero."""
    log_p, lower, df, nc = primals
    d_log_p, _, ddf, dnc = tangents
    x = _quantile(log_p, lower, df, nc)
    inside = (x > 0.0) & (x < jnp.inf)
    x_in = jnp.where(inside, x, 1.0)
    if isinstance(ddf, SymbolicZero) and isinstance(dnc, SymbolicZero):
        log_cdf, log_sf, log_density = _log_cdf_sf_values(x_in, df, nc)
        dcdf = dsf = jnp.zeros_like(x)
    else:  # the df, nc tangents of log F, log S at fixed x, as in _log_cdf_sf_jvp
        zero = jnp.zeros_like(x)
        ddf = zero if isinstance(ddf, SymbolicZero) else ddf
        dnc = zero if isinstance(dnc, SymbolicZero) else dnc
        (log_cdf, log_sf, log_density), (dcdf, dsf, _) = jax.jvp(
            _log_cdf_sf_values, (x_in, df, nc), (zero, ddf, dnc)
        )
    if isinstance(d_log_p, SymbolicZero):
        d_log_p = jnp.zeros_like(x)
    is_lower = lower > 0.5
    log_side = jnp.where(is_lower, log_cdf, log_sf)
    d_side = jnp.where(is_lower, dcdf, dsf)
    rate = jnp.exp(log_density - log_side)
    dx = (d_log_p - d_side) / jnp.where(is_lower, rate, -rate)
    return x, jnp.where(inside, dx, 0.0)


_quantile.defjvp(_quantile_jvp, symbolic_zeros=True)


@jax.jit
def _quantile_from_q(q, df, nc, upper):
    """ppf (upper = 0) or isf (upper = 1): the smaller tail probability is solved for. One
    program for both (``upper`` is an array), so that the solver is compiled once."""
    small = q <= 0.5
    log_p = jnp.where(small, jnp.log(q), jnp.log1p(-q))
    # ppf: P(Y ≤ x) = q solved on the left where q ≤ ½; isf: P(Y > x) = q on the right.
    lower = jnp.where(small != (upper > 0.5), 1.0, 0.0)
    ok = (q >= 0.0) & (q <= 1.0)
    return jnp.where(ok, _quantile(jnp.where(ok, log_p, 0.0), lower, df, nc), jnp.nan)


def _quantile_public(q, df, nc, upper):
    check_concrete("q", q, lower=0.0, upper=1.0)
    _check(df, nc)
    q, df, nc = as_float_arrays(q, df, nc)
    upper = jnp.asarray(float(upper), q.dtype)
    return map_bucketed(_quantile_from_q, q, df, nc, upper, cap=TAIL_BUCKET_CAP)[0]


def ppf(q: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Quantile function (inverse of :func:`cdf`), SciPy's ``ncx2.ppf(q, df, nc)``.

    .. math::

        \operatorname{ppf}(q) = x \quad\text{with}\quad F(x) = P(Y \le x) = q.

    For :math:`q \le 1/2` the equation :math:`\log F(x) = \log q` is solved, else
    :math:`\log S(x) = \log(1 - q)` (:func:`logcdf`, :func:`logsf`, which never underflow), by
    safeguarded Newton steps in :math:`\log x` (see the module docstring). Relative accuracy
    about 1e-13 in the bulk and the right tail, down to :math:`q = 10^{-300}` in the left tail
    where :math:`x` is representable (the measured worst per regime is in the module docstring).
    Differentiable in ``q``, ``df`` and ``nc`` by the implicit-function rule,
    :math:`\partial_q x = 1/p(x)`, :math:`\partial_\theta x = -\partial_\theta F / p(x)`.
    Elementwise with broadcasting; works under ``jit`` and ``vmap``.

    Args:
      q: probability in ``[0, 1]``; ``q = 0`` gives ``0``, ``q = 1`` gives ``+inf``.
      df: degrees of freedom, real, ``df >= 1``.
      nc: non-centrality ``λ = θ² >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``q`` is outside ``[0, 1]``, ``df < 1`` or ``nc < 0`` (NaN inside
        ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.ppf(0.5, 2.0, 0.0)), 12)  # central, df = 2: 2 log 2
      1.38629436112
      >>> float(ncx2.ppf(1.0, 4.0, 2.0))
      inf
    """
    return _quantile_public(q, df, nc, False)


def isf(q: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Inverse survival function (inverse of :func:`sf`), SciPy's ``ncx2.isf(q, df, nc)``.

    .. math::

        \operatorname{isf}(q) = x \quad\text{with}\quad S(x) = P(Y > x) = q.

    Same method, accuracy and derivatives as :func:`ppf` (``isf(q) = ppf(1 - q)`` without the
    rounding of ``1 - q``): far right-tail quantiles down to :math:`q = 10^{-300}`.

    Args:
      q: probability in ``[0, 1]``; ``q = 0`` gives ``+inf``, ``q = 1`` gives ``0``.
      df: degrees of freedom, real, ``df >= 1``.
      nc: non-centrality ``λ = θ² >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``q`` is outside ``[0, 1]``, ``df < 1`` or ``nc < 0`` (NaN inside
        ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.isf(0.5, 2.0, 0.0)), 12)  # central, df = 2: 2 log 2
      1.38629436112
      >>> round(float(ncx2.isf(1e-300, 2.0, 0.0)), 9)  # central, df = 2: 600 log 10
      1381.551055796
    """
    return _quantile_public(q, df, nc, True)


def _moment(df: ArrayLike, nc: ArrayLike, formula) -> jax.Array:
    """``formula(df, nc)`` on float arrays, NaN where the parameters are invalid (under jit)."""
    df, nc = as_float_arrays(df, nc)
    return jnp.where((df >= 1.0) & (nc >= 0.0), formula(df, nc), jnp.nan)


def mean(df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Mean of the non-central chi-square law, :math:`\mathrm{df} + \lambda`.

    Args:
      df: degrees of freedom, ``df >= 1``.
      nc: non-centrality ``λ >= 0``.

    Returns:
      Array of the broadcast shape of the arguments.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0``.

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> float(ncx2.mean(3.0, 2.0))
      5.0
    """
    _check(df, nc)
    return _moment(df, nc, lambda df, nc: df + nc)


def var(df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Variance of the non-central chi-square law, :math:`2(\mathrm{df} + 2\lambda)`.

    Args:
      df: degrees of freedom, ``df >= 1``.
      nc: non-centrality ``λ >= 0``.

    Returns:
      Array of the broadcast shape of the arguments.

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0``.

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> float(ncx2.var(3.0, 2.0))
      14.0
    """
    _check(df, nc)
    return _moment(df, nc, lambda df, nc: 2.0 * (df + 2.0 * nc))


def sample(key: jax.Array, df: ArrayLike, nc: ArrayLike, shape: tuple[int, ...] = ()) -> jax.Array:
    r"""Draw from the non-central chi-square law.

    .. math::

        Y = (\sqrt{\lambda} + Z)^2 + X, \qquad Z \sim \mathcal N(0, 1),\quad
        X \sim \chi^2_{\mathrm{df}-1} = \mathrm{Gamma}\bigl(\tfrac{\mathrm{df}-1}{2}, 2\bigr),

    valid for real ``df >= 1``; for ``df = 1`` the χ² part is exactly ``0``.

    Args:
      key: a ``jax.random`` key.
      df: degrees of freedom, ``df >= 1`` (broadcast against ``shape``).
      nc: non-centrality ``λ >= 0`` (broadcast against ``shape``).
      shape: output shape; must be broadcast-compatible with ``df`` and ``nc``.

    Returns:
      Array of shape ``shape`` (broadcast with the shapes of ``df`` and ``nc``).

    Raises:
      ValueError: if concrete ``df < 1`` or ``nc < 0`` (NaN inside ``jit``).

    Examples:
      >>> import jax
      >>> from fisherrdp.stats import ncx2
      >>> y = ncx2.sample(jax.random.key(0), 3.0, 2.0, shape=(4,))
      >>> y.shape, bool((y > 0).all())
      ((4,), True)
    """
    _check(df, nc)
    df, nc = as_float_arrays(df, nc)
    shape = jnp.broadcast_shapes(tuple(shape), df.shape, nc.shape)
    df = jnp.broadcast_to(df, shape)
    nc = jnp.broadcast_to(nc, shape)
    k_normal, k_gamma = jax.random.split(key)
    z = jax.random.normal(k_normal, shape, df.dtype)
    half = 0.5 * (df - 1.0)
    has_rest = half > 0.0
    g = jax.random.gamma(k_gamma, jnp.where(has_rest, half, 1.0), shape, df.dtype)
    rest = jnp.where(has_rest, 2.0 * g, 0.0)
    lead = jnp.sqrt(jnp.maximum(nc, 0.0)) + z
    y = lead * lead + rest
    return jnp.where((df >= 1.0) & (nc >= 0.0), y, jnp.nan)

r"""The density of the non-central χ² law, in log space (``logpdf``, ``pdf``).

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

**float32.** Both forms sum terms of size ~df to an O(1) result, which costs eps32·df in
float32 (6e-4 at df = 1e4). For float32 inputs at orders ν ≥ ``SINGLE_DEBYE_MIN_ORDER`` (10),
:func:`large_order_logpdf` is used instead: Debye's expansion with the exponents summed in closed
form, −λu²/2 + ν(log(1 + u) − u), two terms of one sign (``docs/math/ncx2.md``); below, the
Bessel form takes √x − √λ as (x − λ)/(√x + √λ). float64 keeps the two forms above.

**Edges.** At ``x = 0`` the limit is returned: ``+inf`` for ``df < 2``,
:math:`\log(\tfrac12 e^{-\lambda/2})` for ``df = 2``, ``-inf`` for ``df > 2``. For ``x < 0``
(outside the support) the log-density is ``-inf``. Concrete ``df < 1`` or ``nc < 0`` raise
:class:`ValueError`; inside ``jit`` such entries come out as NaN.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays, in_wide_dtype, needs_compensation
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, validated
from fisherrdp._src.numerics.cancellation import (
    LOG1P_SERIES_MAX,
    compensated_sum,
    log1p_minus_x,
)
from fisherrdp._src.special.bessel import (
    HALF_LOG_2PI,
    debye_sums,
    log_ive_and_0f1,
    stirling_correction,
)
from fisherrdp._src.special.gamma import log_gamma

__all__ = [
    "BUCKET_CAP",
    "LOG2",
    "SERIES_MAX_Z",
    "SINGLE_DEBYE_MIN_ORDER",
    "SINGLE_DEBYE_TERMS",
    "STIRLING_MIN_A",
    "central_logpdf",
    "large_order_logpdf",
    "logpdf",
    "logpdf_kernel",
    "pdf",
]


#: The ₀F₁ form is used where √(λx) ≤ max(SERIES_MAX_Z, df/2), the Bessel form elsewhere.
SERIES_MAX_Z = 30.0


#: Half degrees of freedom a = df/2 from which the central χ² log-density uses Stirling's series.
STIRLING_MIN_A = 20.0


#: Orders ν = df/2 − 1 from which float32 uses :func:`large_order_logpdf` everywhere. Below,
#: float32's Horner sums of Debye's polynomials lose digits (1e-3 at ν = 6); from ν = 10 the
#: float32 form meets the float32 criterion at every one of 10⁴ points (docs/howto/float32.md).
SINGLE_DEBYE_MIN_ORDER = 10.0


#: Terms of Debye's sum in that form: at ν ≥ 10 the 9th is below 4e-10 (3e-3 eps32).
SINGLE_DEBYE_TERMS = 8


LOG2 = math.log(2.0)


#: Largest chunks of eager calls (``map_bucketed``): log-density, and the tail integrals.
BUCKET_CAP = 1 << 16


def central_logpdf(x: jax.Array, a: jax.Array, *, log_x: jax.Array | None = None) -> jax.Array:
    """log of the χ²_{2a} density at x > 0 (x must already be positive).

    ``log_x``, where the caller has it (x = exp(u)), is used for log x below a = 20 (the
    Stirling branch forms log(x/(2a)) itself): where exp(u) underflows, log x is then u and not
    −inf (float32 from u ≈ −103, which the k = 1 release reaches at d = 1). The Stirling branch
    sees x only where it is taken (double ``where``), so that such an x = 0 gives no NaN
    gradient through it either."""
    log_x = jnp.log(x) if log_x is None else log_x
    naive = (a - 1.0) * log_x - 0.5 * x - a * LOG2 - log_gamma(a)
    large = a >= STIRLING_MIN_A
    a_s = jnp.where(large, a, STIRLING_MIN_A)
    x_s = jnp.where(large, x, 2.0 * a_s)
    t = x_s / (2.0 * a_s)
    log_t = jnp.log(t)
    u = (x_s - 2.0 * a_s) / (2.0 * a_s)
    near = jnp.abs(u) < 0.5
    u_near = jnp.where(near, u, 0.0)
    g = jnp.where(near, jnp.log1p(u_near) - u_near, log_t - u)  # log t − t + 1
    stirling = (
        a_s * g - log_t - 0.5 * jnp.log(a_s) - LOG2 - HALF_LOG_2PI - stirling_correction(a_s)
    )
    return jnp.where(large, stirling, naive)


def _debye_exponent(x: jax.Array, df: jax.Array, nc: jax.Array) -> tuple[jax.Array, jax.Array]:
    """E − ½ log s, E = −λu²/2 + ν (log(1 + u) − u), and t = ν/s
    (see :func:`large_order_logpdf`)."""
    nu = 0.5 * df - 1.0
    s = jnp.sqrt(nu * nu + nc * x)
    denominator = nu + s + nc
    u = compensated_sum(x, -df, jnp.full_like(x, 2.0), -nc) / denominator
    # Near u = −1 (x → 0), 1 + u = x (1 + λ/(s + ν)) / (ν + s + λ) is formed directly.
    low = u <= -LOG1P_SERIES_MAX
    one_plus_u = jnp.where(low, x * (1.0 + nc / (s + nu)) / denominator, 1.0)
    g = jnp.where(low, jnp.log(one_plus_u) - u, log1p_minus_x(jnp.where(low, 0.0, u)))
    return -0.5 * nc * u * u + nu * g - 0.5 * jnp.log(s), nu / s


def large_order_logpdf(x: jax.Array, df: jax.Array, nc: jax.Array) -> jax.Array:
    r"""The log-density at orders ν = df/2 − 1 ≥ 10 and x > 0 by Debye's expansion, with the
    exponent in closed form (float32's form; ``docs/math/ncx2.md``).

    With :math:`s = \sqrt{\nu^2 + \lambda x}`, :math:`t = \nu/s` and
    :math:`u = (x - \mathrm{df} + 2 - \lambda)/(\nu + s + \lambda)`, Debye's
    :math:`\log I_\nu(\sqrt{\lambda x}) = \nu\eta + \tfrac12\log t - \tfrac12\log 2\pi\nu
    + \log S` combines with the other terms into

    .. math::

        \log p = -\log 2 - \frac{\lambda u^2}{2} + \nu\bigl(\log(1 + u) - u\bigr)
        + \tfrac12 \log t - \tfrac12\log(2\pi\nu) + \log S(t, 1/\nu),

    two exponent terms of one sign, where the direct forms sum terms of size ~df to an O(1)
    result; :math:`\tfrac12\log t - \tfrac12\log\nu = -\tfrac12\log s`, and
    ``SINGLE_DEBYE_TERMS`` terms of S suffice at ν ≥ 10. The numerator of u is a compensated sum
    of the four inputs; the exponent is computed in
    :func:`~fisherrdp._src.core.config.wide_dtype` (float64 where the platform has it).
    """
    exponent, t = in_wide_dtype(_debye_exponent, x, df, nc)
    s_sum, _ = debye_sums(t, 1.0 / (0.5 * df - 1.0), terms=SINGLE_DEBYE_TERMS)
    return exponent + jnp.log(s_sum) - (LOG2 + HALF_LOG_2PI)


def logpdf_kernel(x: jax.Array, df: jax.Array, nc: jax.Array) -> jax.Array:
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
    log_ive, log_0f1 = log_ive_and_0f1(
        nu,
        jnp.where(use_series, x_series, x_bessel),
        jnp.where(use_series, q, 0.25 * x_bessel * x_bessel),
        use_series,
    )

    series = central_logpdf(xs, a) - 0.5 * ncs + log_0f1
    single = needs_compensation(x.dtype)
    if single:  # √x − √λ from x − λ: no cancellation of two rounded square roots
        diff = (xb - ncb) / (jnp.sqrt(xb) + jnp.sqrt(ncb))
    else:
        diff = jnp.sqrt(xb) - jnp.sqrt(ncb)
    bessel = -LOG2 - 0.5 * diff * diff + 0.5 * nu * jnp.log(xb / ncb) + log_ive

    inside = jnp.where(use_series, series, bessel)
    if single:  # float32 at orders ν ≥ 10: Debye's form with its exponent in closed form
        use_debye = nu >= SINGLE_DEBYE_MIN_ORDER
        safe_df = jnp.where(use_debye, df, 2.0 * SINGLE_DEBYE_MIN_ORDER + 2.0)
        debye = large_order_logpdf(jnp.where(use_debye, xp, 1.0), safe_df, nc)
        inside = jnp.where(use_debye, debye, inside)
    at_zero = jnp.where(df < 2.0, jnp.inf, jnp.where(df == 2.0, -LOG2 - 0.5 * nc, -jnp.inf))
    out = jnp.where(positive, inside, jnp.where(x == 0.0, at_zero, -jnp.inf))
    valid = (df >= 1.0) & (nc >= 0.0)
    return jnp.where(valid, out, jnp.nan)


_logpdf_jit = jax.jit(logpdf_kernel)


@validated(df=DIMENSION, nc=NONNEG)
def logpdf(x: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Log-density of the non-central chi-square law, SciPy's ``ncx2.logpdf(x, df, nc)``.

    .. math::

        \log p(x) = -\log 2 - \frac{x + \lambda}{2}
        + \Bigl(\frac{\mathrm{df}}{4} - \frac12\Bigr)\log\frac{x}{\lambda}
        + \log I_{\mathrm{df}/2-1}\bigl(\sqrt{\lambda x}\bigr), \qquad \lambda = \mathrm{nc}.

    Computed in one of two cancellation-free forms (see the module docstring), to about
    1e-13 · :math:`\max(1, |\log p|)` in float64 for df ∈ [1, 1e4], nc ∈ [0, 1e6], from the
    far left tail to the far right tail. Elementwise with broadcasting; works under ``jit`` and
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
    return map_bucketed(_logpdf_jit, *as_float_arrays(x, df, nc), cap=BUCKET_CAP)[0]


@validated(df=DIMENSION, nc=NONNEG)
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

r"""log Γ(x) with a small relative error also near its zeros x = 1 and x = 2.

XLA's ``lgamma`` carries an absolute error of a few ulps of 1 near its zeros: in float32,
``lgamma(1.0)`` is 4.8e-7, not 0, and ``lgamma(0.999)`` is off by 1.5e-3 relative. Where the
result is itself small (log I_ν(x) = ν log(x/2) − log Γ(ν + 1) + … at ν = 0, small x; the log
density of χ²₂) that absolute error is the whole error. In float64 it is at most 2e-9 relative
(measured at x within 1e-9 of a zero, where the value is ~1e-9), within every float64 claim, and
:func:`log_gamma` is XLA's ``lgamma`` there. In float32, on :math:`x \in [\tfrac12, 8\tfrac12]`,
:func:`log_gamma` uses the Taylor series at 1 (DLMF 5.7.3),

.. math::

    \log\Gamma(1 + t) = -\gamma t + \sum_{k \ge 2} \frac{(-1)^k \zeta(k)}{k} t^k,
    \qquad |t| \le \tfrac12,

and the recurrence :math:`\log\Gamma(1 + n + t) = \log\prod_{j=1}^{n}(n + t + 1 - j) +
\log\Gamma(1 + t)`, :math:`n \le 7`; above, XLA's ``lgamma`` (whose absolute error of a few
ulps of the result is then a small relative error).
The number of terms follows from float32's ``eps`` (:math:`2^{-k}/k < \epsilon/8`: 22 terms).
The derivative is :math:`\psi(x)` (``jax.lax.digamma``), not that of the series.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from scipy.special import zeta

from fisherrdp._src.core.config import needs_compensation
from fisherrdp._src.numerics.polynomials import horner

__all__ = ["log_gamma"]

_EULER_GAMMA = 0.57721566490153286061
#: The series (with the recurrence) is used on [½, SERIES_MAX + ½], XLA's lgamma above, where
#: its absolute error of a few ulps of log Γ is a small relative one.
SERIES_MAX = 8.0
#: Coefficients c_k of log Γ(1 + t) = Σ_k c_k t^k, k = 1 … 30 (enough for float32).
_COEFFICIENTS = np.array(
    [-_EULER_GAMMA] + [(-1.0) ** k * zeta(k) / k for k in range(2, 31)], dtype=np.float64
)


def _terms(dtype) -> int:
    """Terms of the series for |t| ≤ ½ at the precision of ``dtype`` (2^{−k}/k < eps/8)."""
    eps = float(jnp.finfo(dtype).eps)
    return next(k for k in range(2, len(_COEFFICIENTS) + 1) if 0.5**k / k < eps / 8.0)


def _log_gamma_one_plus(t: jax.Array) -> jax.Array:
    """log Γ(1 + t) = t Σ_{k≥1} c_k t^{k−1} for |t| ≤ ½."""
    return t * horner(_COEFFICIENTS[: _terms(t.dtype)][::-1], t)


def log_gamma(x: jax.Array) -> jax.Array:
    """log Γ(x) for x > 0: the series near 1 and 2 in float32, XLA's ``lgamma`` in float64.

    In float64 XLA's error near the zeros (2e-9 relative at worst, where the value is ~1e-9) is
    within every float64 claim, and the series would add its Horner steps to every program that
    evaluates a Bessel function (their size, and the memory of compiling them, matter more
    there); in float32 it is the whole error (module docstring).
    """
    if not needs_compensation(x.dtype):
        return jax.lax.lgamma(x)
    return _log_gamma_series(x)


@jax.custom_jvp
def _log_gamma_series(x: jax.Array) -> jax.Array:
    """log Γ(x) by the series and the recurrence on [½, SERIES_MAX + ½], XLA's lgamma above."""
    use_series = (x >= 0.5) & (x <= SERIES_MAX + 0.5)
    shift = jnp.where(use_series, jnp.clip(jnp.round(x - 1.0), 0.0, SERIES_MAX - 1.0), 0.0)
    t = jnp.where(use_series, x - (1.0 + shift), 0.0)  # exact (Sterbenz)
    # log Γ(1 + n + t) = log[(x − 1)(x − 2)…(x − n)] + log Γ(1 + t).
    product = jnp.ones_like(x)
    for j in range(1, int(SERIES_MAX)):
        product = product * jnp.where(use_series & (j <= shift), x - j, 1.0)
    series = _log_gamma_one_plus(t) + jnp.log(product)
    return jnp.where(use_series, series, jax.lax.lgamma(jnp.where(use_series, 10.0, x)))


@_log_gamma_series.defjvp
def _log_gamma_series_jvp(primals, tangents):
    """The derivative is ψ(x) (``jax.lax.digamma``), not that of the series: reverse mode then
    stores no Horner step."""
    (x,), (x_dot,) = primals, tangents
    return _log_gamma_series(x), jax.lax.digamma(x) * x_dot

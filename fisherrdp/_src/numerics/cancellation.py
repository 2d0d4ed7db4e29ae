r"""Elementary forms that do not cancel: a compensated sum and :math:`\log(1 + u) - u`.

Both serve float32, where a sum of terms of size ~df that leaves an O(1) result loses
eps32·df (about 6e-4 at df = 1e4):

* :func:`compensated_sum` adds a few terms with Knuth's error-free two-sum and adds the rounding
  errors back at the end (Ogita, Rump and Oishi's *Sum2*): the result is as accurate as if it
  were computed in twice the working precision and then rounded, i.e. within about one ulp of
  the result, not of the largest term. Its derivative is the sum of the tangents (the error
  terms' tangents cancel exactly).
* :func:`log1p_minus_x` is :math:`\log(1 + u) - u` with a relative error of a few ulps for
  :math:`u > -\tfrac12` (for :math:`|u| < \tfrac12` by the series in :math:`y = u/(2 + u)`,
  :math:`\log(1 + u) - u = -u y + 2 y^3 \sum_{j \ge 0} y^{2j}/(2j + 3)`, with
  :math:`|y| \le \tfrac13`; the number of terms follows from ``finfo(dtype).eps``). Against
  40-digit mpmath (``tests/fixtures/log1p_minus_x.json``, 346 points from :math:`|u| = 10^{-8}`
  to :math:`10^6` and down to :math:`u = -1 + 10^{-6}`): 1.7 eps in float32, 1.3 eps in
  float64 (``tests/test_numerics_cancellation.py``).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from fisherrdp._src.numerics.polynomials import horner

__all__ = ["compensated_sum", "log1p_minus_x"]

#: |u| below which log1p_minus_x uses the series in y = u / (2 + u) (|y| ≤ 1/3 there).
LOG1P_SERIES_MAX = 0.5


def _two_sum(a: jax.Array, b: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(s, e) with s = fl(a + b) and a + b = s + e exactly (Knuth)."""
    s = a + b
    b_part = s - a
    a_part = s - b_part
    return s, (a - a_part) + (b - b_part)


def compensated_sum(*terms: jax.Array) -> jax.Array:
    """Σ terms, accurate to about one ulp of the result (Sum2), for arrays of one dtype.

    Example:
        >>> import jax.numpy as jnp
        >>> x = jnp.float32(12345.678)
        >>> float(compensated_sum(x, jnp.float32(-9876.5), jnp.float32(2.0), jnp.float32(-2471.0)))
        0.177734375
    """
    total, error = terms[0], jnp.zeros_like(terms[0])
    for term in terms[1:]:
        total, rounding = _two_sum(total, term)
        error = error + rounding
    return total + error


def _series_terms(dtype) -> int:
    """Terms of Σ_j y^{2j}/(2j + 3) for |y| ≤ 1/3: 9^{−n} < eps."""
    return math.ceil(math.log(float(jnp.finfo(dtype).eps)) / math.log(1.0 / 9.0))


def log1p_minus_x(u: jax.Array) -> jax.Array:
    """log(1 + u) − u for u > −1, without the cancellation of the two terms near u = 0.

    Example:
        >>> import jax.numpy as jnp
        >>> float(log1p_minus_x(jnp.float32(1e-3)))  # −u²/2 + u³/3 − …
        -4.996669531465159e-07
    """
    small = jnp.abs(u) < LOG1P_SERIES_MAX
    u_small = jnp.where(small, u, 0.0)
    y = u_small / (2.0 + u_small)
    y2 = y * y
    coefficients = [1.0 / (2 * j + 3) for j in range(_series_terms(u.dtype))]
    series = -u_small * y + 2.0 * y * y2 * horner(coefficients[::-1], y2)
    u_large = jnp.where(small, 1.0, u)
    return jnp.where(small, series, jnp.log1p(u_large) - u_large)

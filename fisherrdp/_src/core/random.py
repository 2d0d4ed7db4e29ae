r"""Fast exact Gamma and chi-square draws for the samplers (vectorised Marsaglia–Tsang).

``jax.random.gamma`` splits a key per element and runs a rejection loop per element; on CPU it
costs about 1.7 µs a draw (2026-12, jax 0.10.2, 1e6 draws of Gamma(2)), 45 times a normal
draw, and it dominated the variational estimators' training steps on release samplers. Here
the rejection method of Marsaglia & Tsang ("A simple method for generating gamma variables",
ACM TOMS 26(3), 363–372, 2000) runs on whole arrays: each round draws one normal and one
uniform for every element and keeps the first accepted proposal; a ``while_loop`` repeats the
round until every element has one (the acceptance probability is above 0.95 for shape ≥ 1, so a
million draws take about six rounds). The loop stops after :data:`MAX_ROUNDS` rounds whatever
happens: an element still without a draw then (probability below :math:`0.05^{64} < 10^{-83}`
per element) is NaN rather than a hang. The draws are exact. An infinite shape gives ``inf``
(the limit of :math:`G_a`, and what a proposal's acceptance test could never settle: it compares
``inf - inf``); before this guard ``chi2(key, inf)`` spun forever. Shapes below 1 use
:math:`G_a = G_{a+1} U^{1/a}` (their paper, §6), in log space so that tiny shapes do not
underflow to 0 before the logarithm a caller may take.

Not differentiable in the shape (the accepted proposal's law depends on it): the shape passes
through ``stop_gradient``, documented in :func:`gamma`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

__all__ = ["chi2", "gamma", "log_gamma"]

#: Most rejection rounds of one call (module docstring: the chance that an element needs more is
#: below 0.05 ** 64 ≈ 5e-84).
MAX_ROUNDS = 64


def _marsaglia_tsang(key: jax.Array, a: jax.Array, dtype) -> jax.Array:
    """Gamma(a) draws for finite ``a >= 1`` (elementwise array ``a``), exact; NaN for an element
    not accepted within :data:`MAX_ROUNDS` rounds."""
    d = a - 1.0 / 3.0
    c = jax.lax.rsqrt(9.0 * d)

    def round_(state):
        key, value, done, rounds = state
        key, kz, ku = jax.random.split(key, 3)
        z = jax.random.normal(kz, a.shape, dtype)
        u = jax.random.uniform(ku, a.shape, dtype)
        v = 1.0 + c * z
        v3 = v * v * v
        safe = jnp.where(v > 0.0, v3, 1.0)
        accept = (v > 0.0) & (jnp.log(u) < 0.5 * z * z + d - d * safe + d * jnp.log(safe))
        take = accept & ~done
        return key, jnp.where(take, d * safe, value), done | accept, rounds + 1

    def more(state):
        return ~jnp.all(state[2]) & (state[3] < MAX_ROUNDS)

    state = (key, jnp.full(a.shape, jnp.nan, dtype), jnp.zeros(a.shape, bool), 0)
    return jax.lax.while_loop(more, round_, state)[1]


def log_gamma(key: jax.Array, a: ArrayLike, shape: tuple[int, ...] = (), dtype=None) -> jax.Array:
    r"""Logarithms of Gamma(a, 1) draws, exact, vectorised (module docstring).

    .. math::

        \log G,\qquad G \sim \Gamma(a, 1),\quad a > 0,

    formed without underflow for tiny ``a`` (:math:`\log G_{a+1} + \log U / a`).

    Args:
      key: a ``jax.random`` key.
      a: shape parameter(s) ``> 0``, broadcast against ``shape`` (may be traced; not
        differentiated: ``stop_gradient``).
      shape: output shape (default: the shape of ``a``).
      dtype: floating dtype (default: the default float type).

    Returns:
      Array of shape ``shape``: ``inf`` where ``a = inf``. Inside ``jit``, ``a <= 0`` gives NaN.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> x = jnp.exp(log_gamma(jax.random.key(0), 3.0, (100_000,)))
      >>> bool(abs(x.mean() - 3.0) < 0.03)
      True
    """
    dtype = jnp.dtype(dtype or jnp.result_type(float))
    a = jax.lax.stop_gradient(jnp.asarray(a, dtype))
    shape = tuple(shape) or a.shape
    a = jnp.broadcast_to(a, shape)
    small = a < 1.0
    k_mt, k_u = jax.random.split(key)
    boosted = jnp.where(small, a + 1.0, a)
    proposable = (boosted > 0.0) & jnp.isfinite(boosted)
    log_g = jnp.log(_marsaglia_tsang(k_mt, jnp.where(proposable, boosted, 1.0), dtype))
    log_u = jnp.log(jax.random.uniform(k_u, shape, dtype, minval=jnp.finfo(dtype).tiny))
    out = jnp.where(small, log_g + log_u / jnp.where(small, a, 1.0), log_g)
    return jnp.where(a > 0.0, jnp.where(a == jnp.inf, jnp.inf, out), jnp.nan)


def gamma(key: jax.Array, a: ArrayLike, shape: tuple[int, ...] = (), dtype=None) -> jax.Array:
    r"""Gamma(a, 1) draws, exact, vectorised: :math:`e^{\log G}` of :func:`log_gamma`.

    Args:
      key: a ``jax.random`` key.
      a: shape parameter(s) ``> 0`` (may be traced; not differentiated: ``stop_gradient``).
      shape: output shape (default: the shape of ``a``).
      dtype: floating dtype (default: the default float type).

    Returns:
      Array of shape ``shape`` (``inf`` where ``a = inf``, NaN where ``a <= 0``).

    Examples:
      >>> import jax
      >>> gamma(jax.random.key(0), 2.0, (3,)).shape
      (3,)
    """
    return jnp.exp(log_gamma(key, a, shape, dtype))


def chi2(key: jax.Array, df: ArrayLike, shape: tuple[int, ...] = (), dtype=None) -> jax.Array:
    r"""Chi-square draws with ``df`` degrees of freedom (real ``df >= 0``): :math:`2\,G_{df/2}`,
    and exactly 0 where ``df == 0``.

    Args:
      key: a ``jax.random`` key.
      df: degrees of freedom ``>= 0`` (may be traced; not differentiated).
      shape: output shape (default: the shape of ``df``).
      dtype: floating dtype (default: the default float type).

    Returns:
      Array of shape ``shape`` (``inf`` where ``df = inf``, NaN where ``df < 0``).

    Examples:
      >>> import jax
      >>> float(chi2(jax.random.key(0), 0.0))
      0.0
    """
    dtype = jnp.dtype(dtype or jnp.result_type(float))
    df = jnp.asarray(df, dtype)
    positive = df > 0.0
    draw = 2.0 * gamma(key, jnp.where(positive, 0.5 * df, 1.0), shape or df.shape, dtype)
    return jnp.where(positive, draw, jnp.where(df == 0.0, 0.0, jnp.nan))

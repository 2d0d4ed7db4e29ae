r"""Mean, variance and sampler of the non-central χ² law (``mean``, ``var``, ``sample``).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.validation import DIMENSION, NONNEG, validated

__all__ = [
    "mean",
    "sample",
    "var",
]


def _moment(df: ArrayLike, nc: ArrayLike, formula) -> jax.Array:
    """``formula(df, nc)`` on float arrays, NaN where the parameters are invalid (under jit)."""
    df, nc = as_float_arrays(df, nc)
    return jnp.where((df >= 1.0) & (nc >= 0.0), formula(df, nc), jnp.nan)


@validated(df=DIMENSION, nc=NONNEG)
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
    return _moment(df, nc, lambda df, nc: df + nc)


@validated(df=DIMENSION, nc=NONNEG)
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
    return _moment(df, nc, lambda df, nc: 2.0 * (df + 2.0 * nc))


@validated(df=DIMENSION, nc=NONNEG)
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

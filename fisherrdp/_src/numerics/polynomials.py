"""Polynomials evaluated by Horner's rule, shared by the special functions."""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp

__all__ = ["horner"]


def horner(coefs: Sequence[float], x: jax.Array) -> jax.Array:
    """Σ_k coefs[k] x^{n−k}, n = len(coefs) − 1: the coefficients from the highest power down.

    The coefficients enter as Python floats (weakly typed), so the result has ``x``'s dtype.
    """
    acc = jnp.full_like(x, float(coefs[0]))
    for c in coefs[1:]:
        acc = acc * x + float(c)
    return acc

"""Polynomials evaluated by Horner's rule, shared by the special functions."""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

__all__ = ["horner", "horner_rows"]


def horner(coefs: Sequence[float], x: jax.Array) -> jax.Array:
    """Σ_k coefs[k] x^{n−k}, n = len(coefs) − 1: the coefficients from the highest power down.

    The coefficients enter as Python floats (weakly typed), so the result has ``x``'s dtype.
    """
    acc = jnp.full_like(x, float(coefs[0]))
    for c in coefs[1:]:
        acc = acc * x + float(c)
    return acc


def horner_rows(rows: Sequence[Sequence[float]], x: jax.Array) -> jax.Array:
    """Every polynomial of ``rows`` (each as :func:`horner`'s ``coefs``) at ``x``, by one
    Horner's rule over a trailing axis of ``len(rows)``: shape ``x.shape + (len(rows),)``.

    The rows are padded with leading zeros to one length; a zero leading coefficient leaves the
    sum 0 for finite ``x``, so entry ``i`` is :func:`horner` ``(rows[i], x)`` bit for bit, in a
    program of one row's length instead of the sum of every row's (Debye's 16 + 16
    polynomials: 17 steps, not 288).

    >>> import jax.numpy as jnp
    >>> print(horner_rows([(1.0, 2.0), (3.0,), (1.0, 0.0, -1.0)], jnp.array(2.0)))
    [4. 3. 3.]
    """
    width = max(map(len, rows))
    table = np.array([[0.0] * (width - len(r)) + [float(c) for c in r] for r in rows])
    x = x[..., None]
    acc = jnp.zeros(x.shape[:-1] + (len(rows),), x.dtype) + jnp.asarray(table[:, 0], x.dtype)
    for j in range(1, width):
        acc = acc * x + jnp.asarray(table[:, j], x.dtype)
    return acc

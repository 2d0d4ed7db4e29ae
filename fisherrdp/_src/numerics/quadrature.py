r"""Gauss–Legendre rules on :math:`[0, 1]`, shared by every quadrature of the package.

The :math:`n`-point rule of :func:`numpy.polynomial.legendre.leggauss` on :math:`[-1, 1]`
(nodes :math:`x_i`, weights :math:`w_i`) is mapped to :math:`[0, 1]` once, here:

.. math::

    \int_0^1 f(u)\,du \approx \sum_{i=1}^n \tfrac{w_i}{2}\, f\bigl(\tfrac{x_i + 1}{2}\bigr).

Composite rules put that rule on each panel :math:`[e_j, e_{j+1}]` (node
:math:`e_j + (e_{j+1} - e_j) u_i`, weight :math:`(e_{j+1} - e_j) w_i/2`). The halvings are
exact in floating point, so the order in which a caller used to apply them does not matter.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def gauss_legendre(n: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Gauss–Legendre nodes and weights on :math:`[0, 1]`.

    .. math::

        u_i = \frac{x_i + 1}{2}, \qquad v_i = \frac{w_i}{2},

    with :math:`(x_i, w_i)` the :math:`n`-point rule on :math:`[-1, 1]`.

    Args:
        n: Number of nodes, ``n >= 1``.

    Returns:
        ``(nodes, weights)``, float64 NumPy arrays of shape ``(n,)``; exact for polynomials of
        degree below ``2 n``.
    """
    x, w = np.polynomial.legendre.leggauss(n)
    return (x + 1.0) / 2.0, w / 2.0


def gauss_legendre_as(n: int, dtype) -> tuple[jax.Array, jax.Array]:
    r"""The rule of :func:`gauss_legendre` as JAX arrays in ``dtype``.

    .. math::

        \int_0^1 f(u)\,du \approx \sum_i v_i f(u_i).

    Formed in float64 and then rounded to ``dtype`` (a float64 NumPy array would promote
    float32 work to float64).

    Args:
        n: Number of nodes, ``n >= 1``.
        dtype: Floating dtype of the result.

    Returns:
        ``(nodes, weights)``, JAX arrays of shape ``(n,)`` in ``dtype``.
    """
    x, w = gauss_legendre(n)
    return jnp.asarray(x, dtype), jnp.asarray(w, dtype)


def graded_edges(panels: int) -> np.ndarray:
    r"""Panel edges on :math:`[0, 1]` graded geometrically towards 1.

    .. math::

        e_j = 1 - 2^{-j} \quad (j = 0, \dots, \mathrm{panels} - 1), \qquad
        e_{\mathrm{panels}} = 1,

    so each panel is half as wide as the one before, but the last, which is as wide as the
    one before it.

    Args:
        panels: Number of panels, ``panels >= 1``.

    Returns:
        Float64 NumPy array of the ``panels + 1`` increasing edges, from 0 to 1.
    """
    return np.concatenate([1.0 - 2.0 ** -np.arange(panels, dtype=float), [1.0]])


def composite_gauss_legendre(n: int, edges) -> tuple[np.ndarray, np.ndarray]:
    r"""Composite Gauss–Legendre rule: ``n`` nodes on each panel between ``edges``.

    .. math::

        \int_{e_0}^{e_P} f \approx \sum_{j=0}^{P-1} \sum_{i=1}^n
        (e_{j+1} - e_j)\, v_i\, f\bigl(e_j + (e_{j+1} - e_j) u_i\bigr),

    with :math:`(u_i, v_i)` from :func:`gauss_legendre`.

    Args:
        n: Nodes per panel, ``n >= 1``.
        edges: Increasing panel edges, shape ``(P + 1,)`` (e.g. :func:`graded_edges`).

    Returns:
        ``(nodes, weights)``, float64 NumPy arrays of shape ``(P · n,)``, panel by panel.
    """
    x, w = gauss_legendre(n)
    edges = np.asarray(edges, float)
    lengths = np.diff(edges)[:, None]
    return (edges[:-1, None] + lengths * x).ravel(), (lengths * w).ravel()


def composite_gauss_legendre_on(edges: jax.Array, n: int) -> tuple[jax.Array, jax.Array]:
    r"""Composite Gauss–Legendre rule on traced panel edges, one row of panels per leading index.

    .. math::

        t_{j,i} = e_j + (e_{j+1} - e_j)\, u_i, \qquad \omega_{j,i} = (e_{j+1} - e_j)\, v_i,

    with :math:`(u_i, v_i)` from :func:`gauss_legendre` in the dtype of ``edges``.

    Args:
        edges: Sorted panel edges along the last axis, shape ``(..., P + 1)``.
        n: Nodes per panel, ``n >= 1``.

    Returns:
        ``(nodes, weights)`` of shape ``(..., P · n)``, panel by panel.
    """
    x, w = gauss_legendre_as(n, edges.dtype)
    length = jnp.diff(edges, axis=-1)[..., None]
    shape = edges.shape[:-1] + (-1,)
    return (edges[..., :-1, None] + length * x).reshape(shape), (length * w).reshape(shape)


def legendre_coefficients(n: int) -> np.ndarray:
    r"""Matrix of discrete Legendre coefficients at the nodes of the ``n``-point rule.

    .. math::

        c_k = \frac{2k + 1}{2} \sum_{i=1}^n w_i P_k(x_i) f_i, \qquad k = 0, \dots, n - 1,

    the coefficients of the degree :math:`n - 1` interpolant
    :math:`\sum_k c_k P_k\bigl(2u - 1\bigr)` of values :math:`f_i` at the nodes
    :math:`u_i` of :func:`gauss_legendre` (:math:`(x_i, w_i)` the rule on :math:`[-1, 1]`,
    :math:`P_k` the Legendre polynomials); the highest ones measure the quadrature's error.

    Args:
        n: Number of nodes, ``n >= 1``.

    Returns:
        Float64 NumPy array of shape ``(n, n)`` (degree by node): ``c = coef @ f``.
    """
    x, w = np.polynomial.legendre.leggauss(n)
    vander = np.polynomial.legendre.legvander(x, n - 1)  # (n nodes, n degrees)
    return (vander * w[:, None]).T * ((2.0 * np.arange(n) + 1.0) / 2.0)[:, None]

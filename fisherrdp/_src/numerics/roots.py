r"""Bracketed Newton search for the root of an increasing function, shared by the crossing
searches of :mod:`~fisherrdp._src.divergences.hockey_stick` and
:mod:`~fisherrdp._src.divergences.release_k1`.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp


def bracketed_newton(
    fn: Callable[[jax.Array], tuple[jax.Array, jax.Array]],
    x0: jax.Array,
    lo: jax.Array,
    hi: jax.Array,
    steps: int,
) -> jax.Array:
    r"""Root of an increasing function by Newton steps safeguarded by bisection.

    .. math::

        x_{k+1} = x_k - \frac{g(x_k)}{g'(x_k)} \ \text{if that lies inside }
        (\ell_k, h_k) \text{ and } g'(x_k) > 0, \quad \text{else } \tfrac12(\ell_k + h_k),

    where each evaluation shrinks the bracket: :math:`x_k` replaces :math:`\ell_k` where
    :math:`g(x_k) < 0`, :math:`h_k` elsewhere. Exactly ``steps`` steps (a ``fori_loop``), no
    early stop; elementwise over batches.

    Args:
        fn: ``x ↦ (g(x), g'(x))``, with ``g`` increasing on the bracket (negate a decreasing
            one).
        x0: Starting points, inside the bracket.
        lo: Lower ends of the bracket.
        hi: Upper ends of the bracket.
        steps: Number of steps, a Python int (static: it sets the loop's length).

    Returns:
        The last iterate (where ``g`` keeps one sign on the bracket, it approaches the end
        where ``g`` is closest to changing sign).
    """

    def step(_, state):
        x, lo, hi = state
        g, g_slope = fn(x)
        lo = jnp.where(g < 0.0, x, lo)
        hi = jnp.where(g < 0.0, hi, x)
        newton = x - g / jnp.where(g_slope > 0.0, g_slope, 1.0)
        inside = (g_slope > 0.0) & (newton > lo) & (newton < hi)
        return jnp.where(inside, newton, 0.5 * (lo + hi)), lo, hi

    x, _, _ = jax.lax.fori_loop(0, steps, step, (x0, lo, hi))
    return x

"""Integration windows of unimodal log-integrands, shared by the quadratures of
:mod:`~fisherrdp._src.divergences.renyi` and :mod:`~fisherrdp._src.divergences.release_k1`.

A window is the peak :math:`x^*` of a log-integrand :math:`g`, its scale
:math:`\\sigma = (-g''(x^*))^{-1/2}` and the two points where :math:`g` has dropped by ``drop``
below :math:`g(x^*)`. Each caller supplies its own constants (step cap, curvature floor, step
counts); the Newton iteration is this one.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp


def held_fixed(fn):
    """``fn`` with its array arguments held fixed under differentiation (``stop_gradient``).

    For the searches that place a quadrature's windows and nodes: the quadrature is
    differentiated through its integrand, with the nodes held fixed, so the search needs no
    derivative. Holding its inputs, not only its outputs, keeps ``jvp`` and ``grad`` from
    tracing (and XLA from compiling) a tangent through its loops, to be discarded at the end.
    """

    @functools.wraps(fn)
    def held(*args):
        return fn(*(jax.lax.stop_gradient(x) if isinstance(x, jax.Array) else x for x in args))

    return held


def newton_peak(x, first, second, cap):
    """A safeguarded Newton step uphill: a step capped at ``cap``, a unit step where not concave."""
    concave = second < 0.0
    step = jnp.where(concave, -first / jnp.where(concave, second, -1.0), jnp.sign(first))
    return x + jnp.clip(step, -cap, cap)


def window_search(fn, x0, drop, *, cap, min_curvature, peak_steps, edge_steps, aux=None,
                  with_value=False):
    """Peaks, scales σ and e^{−drop} edges of a batch of unimodal log-integrands.

    ``fn(x, aux)`` evaluates on x of shape (B, 3) (peak, lower edge, upper edge) and returns
    (value, first, second, aux). ``peak_steps`` safeguarded Newton steps for the peak (capped
    at ``cap``; the edges follow at the Gaussian guess x* ∓ σ√(2·drop), σ from the curvature
    floored at ``min_curvature``), then ``edge_steps`` Newton steps on value − peak + drop = 0,
    each edge kept on its own side of the peak (a step of σ outward where the slope has the
    wrong sign, halfway back to the peak where a step would cross it).

    Returns:
        (peak, σ, lower edge, upper edge), each of shape (B,); with ``with_value``, also the
        log-integrand at the peak.
    """
    side = jnp.array([0.0, -1.0, 1.0], x0.dtype)
    root = math.sqrt(2.0 * drop)

    def step(i, carry):
        x, peak, sigma, aux = carry
        value, first, second, aux = fn(x, aux)
        centre = newton_peak(x[:, 0], first[:, 0], second[:, 0], cap)
        width = 1.0 / jnp.sqrt(jnp.maximum(-second[:, 0], min_curvature))
        guess = x[:, :1] + side * width[:, None] * root
        peak_phase = jnp.stack([centre, guess[:, 1], guess[:, 2]], axis=1)
        slope_ok = side * first < 0.0
        new = x - (value - peak[:, None] + drop) / jnp.where(slope_ok, first, -side)
        new = jnp.where(slope_ok, new, x + side * sigma[:, None])
        new = jnp.where(side * (new - x[:, :1]) > 0.0, new, 0.5 * (x + x[:, :1]))
        edge_phase = jnp.concatenate([x[:, :1], new[:, 1:]], axis=1)
        in_peak = i < peak_steps
        return (
            jnp.where(in_peak, peak_phase, edge_phase),
            jnp.where(in_peak, value[:, 0], peak),
            jnp.where(in_peak, width, sigma),
            aux,
        )

    x = x0[:, None] + 0.0 * side
    init = (x, jnp.zeros_like(x0), jnp.ones_like(x0), aux)
    x, value, sigma, _ = jax.lax.fori_loop(0, peak_steps + edge_steps, step, init)
    if with_value:
        return x[:, 0], sigma, x[:, 1], x[:, 2], value
    return x[:, 0], sigma, x[:, 1], x[:, 2]

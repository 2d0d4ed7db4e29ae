r"""Shared by the closed-form bounds: argument checks and numerically careful primitives
(safe under ``jnp.where`` for gradients).

Conventions (units, dtypes, argument checks): :mod:`fisherrdp._src.bounds`.
"""

from __future__ import annotations

from typing import Literal

import jax.numpy as jnp

__all__ = ["VARIANTS", "Variant", "check_variant", "upper_ratio", "x_over_x_plus_c"]


Variant = Literal["rederived", "printed"]


VARIANTS = ("rederived", "printed")


def check_variant(variant: str) -> None:
    if variant not in VARIANTS:
        raise ValueError(f"argument 'variant' must be one of {VARIANTS}, got {variant!r}")


def x_over_x_plus_c(x, c):
    """``x / (x + c)`` for ``x >= 0``, ``c > 0``; exact 1 for ``x = inf``, no NaN gradients."""
    big = x > c
    x_big = jnp.where(big, x, jnp.ones_like(x))
    x_small = jnp.where(big, jnp.zeros_like(x), x)
    return jnp.where(big, 1.0 / (1.0 + c / x_big), x_small / (x_small + c))


def upper_ratio(two_theta_sq, c):
    """``x / (x + c)`` where ``c > 0``, and the trivial bound 1 where ``c <= 0``."""
    informative = c > 0
    c_safe = jnp.where(informative, c, jnp.ones_like(c))
    return jnp.where(informative, x_over_x_plus_c(two_theta_sq, c_safe), 1.0)

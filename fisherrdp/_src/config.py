"""Working precision, decided in one place.

fisherrdp computes in float64 by default: importing :mod:`fisherrdp` turns on JAX's
``jax_enable_x64`` flag, unless the environment variable ``FISHERRDP_NO_X64`` is set to a
non-empty value other than ``0``. Arrays passed in as float32 are still computed in float32
(with float32 accuracy); Python scalars and integer arrays are promoted to the default float
type (float64 when x64 is on).
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np


def enable_x64_by_default() -> None:
    """Turn on float64 in JAX unless ``FISHERRDP_NO_X64`` asks otherwise."""
    flag = os.environ.get("FISHERRDP_NO_X64", "")
    if flag in ("", "0"):
        jax.config.update("jax_enable_x64", True)


def float_dtype(*args) -> np.dtype:
    """The floating dtype in which to compute on ``args`` (ints promote to the default float)."""
    return jnp.result_type(*args, float)


def as_float_arrays(*args):
    """Convert ``args`` to arrays of one common floating dtype."""
    dtype = float_dtype(*args)
    return tuple(jnp.asarray(a, dtype) for a in args)

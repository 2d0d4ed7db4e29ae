r"""Closed-form Rényi divergences and envelopes: the model release
:math:`\alpha\Delta^2/2` (the post-processing baseline), the local expansion of
Prop 3.1 and the envelope of Theorem 5.1.

Conventions (units, dtypes, argument checks): :mod:`fisherrdp._src.bounds`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.bounds.common import (
    upper_ratio,
    x_over_x_plus_c,
)
from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.validation import (
    DIMENSION,
    NONNEG,
    ORDER,
    check_concrete_le,
    validated,
)

__all__ = ['gaussian_renyi', 'local_expansion_prop31', 'theorem51_envelope']


@jax.jit
def _k_gaussian_renyi(alpha, delta):
    return 0.5 * alpha * delta**2


@jax.jit
def _k_local_expansion(alpha, fisher, delta):
    return 0.5 * alpha * fisher * delta**2


@jax.jit
def _k_theorem51(d, w_norm, C):
    shape = jnp.broadcast_shapes(d.shape, w_norm.shape, C.shape)
    lower = x_over_x_plus_c(2.0 * w_norm**2, d)
    upper = upper_ratio(2.0 * C**2, d - 3.0)
    return jnp.broadcast_to(lower, shape), jnp.broadcast_to(upper, shape)


@validated(alpha=ORDER, delta=NONNEG)
def gaussian_renyi(alpha: ArrayLike, delta: ArrayLike) -> jnp.ndarray:
    r"""Rényi divergence of model release, the post-processing baseline.

    .. math::

        D_\alpha\bigl(\mathcal N(v, I) \,\|\, \mathcal N(w, I)\bigr) = \frac{\alpha \Delta^2}{2},
        \qquad \Delta = \|v - w\|_F.

    By post-processing it upper-bounds the loss of any synthetic release, for every
    :math:`n_{\mathrm{syn}}` (Section 2); Proposition 4.3 shows that without a norm bound
    :math:`C` the infinite-release loss attains it.

    Args:
        alpha: Rényi order, ``alpha > 1``.
        delta: Distance (sensitivity) :math:`\Delta \ge 0`, in units of the noise scale.

    Returns:
        :math:`\alpha\Delta^2/2`, with the broadcast shape of the arguments.

    Raises:
        ValueError: For concrete ``alpha <= 1`` or ``delta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(float(bounds.gaussian_renyi(2.0, 0.5)))
        0.25
    """
    return _k_gaussian_renyi(*as_float_arrays(alpha, delta))


@validated(alpha=ORDER, fisher=NONNEG, delta=NONNEG)
def local_expansion_prop31(alpha: ArrayLike, fisher: ArrayLike, delta: ArrayLike) -> jnp.ndarray:
    r"""Leading term of the local expansion of Proposition 3.1.

    .. math::

        D_\alpha(P_{\theta+\delta} \,\|\, P_\theta)
        = \frac{\alpha}{2}\, I(\theta)\, \delta^2 + o(\delta^2).

    This is an approximation for small :math:`\delta`, not a bound. With ``fisher`` an upper
    (lower) Fisher bound it gives the upper (lower) end of the Theorem 5.1 envelope times
    :func:`gaussian_renyi`.

    Args:
        alpha: Rényi order, ``alpha > 1``.
        fisher: Fisher information :math:`I(\theta) \ge 0` (or a bound on it).
        delta: Parameter step :math:`\delta \ge 0`.

    Returns:
        :math:`\alpha I \delta^2 / 2`, with the broadcast shape of the arguments.

    Raises:
        ValueError: For concrete ``alpha <= 1``, ``fisher < 0`` or ``delta < 0``.

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.local_expansion_prop31(2.0, 0.3121520503, 0.1)):.6f}")
        0.003122
    """
    return _k_local_expansion(*as_float_arrays(alpha, fisher, delta))


@validated(d=DIMENSION, w_norm=NONNEG, C=NONNEG)
def theorem51_envelope(
    d: ArrayLike, w_norm: ArrayLike, C: ArrayLike
) -> tuple[jnp.ndarray, jnp.ndarray]:
    r"""Leading-order range of the amplification ratio :math:`\eta_d` (Theorem 5.1, :math:`k = 1`).

    .. math::

        \frac{2\|w\|^2}{2\|w\|^2 + d}
        \;\lesssim\; \eta_d = \frac{D_\alpha(V^\top V \,\|\, W^\top W)}{D_\alpha(V \,\|\, W)}
        \;\lesssim\; \frac{2C^2}{2C^2 + d - 3},

    to leading order as :math:`\Delta \to 0`, for :math:`\|v\|, \|w\| \le C`. The ends are
    :func:`fisher_lower_prop51` at :math:`\|w\|` and :func:`fisher_upper_prop51` at :math:`C`
    (so the upper end is 1 for :math:`d \le 3`). Being leading-order statements they are not
    certified bounds for finite :math:`\Delta`; use :func:`theorem52_bound` for that.

    Args:
        d: Dimension ``d >= 1``.
        w_norm: :math:`\|w\|_F`, with ``0 <= w_norm <= C``.
        C: Norm bound :math:`C \ge 0`.

    Returns:
        ``(lower, upper)``, each with the broadcast shape of the arguments.

    Raises:
        ValueError: For concrete ``d < 1``, ``w_norm < 0``, ``C < 0`` or ``w_norm > C``.

    Examples:
        >>> from fisherrdp import bounds
        >>> lo, hi = bounds.theorem51_envelope(50, 1.0, 2.0)
        >>> print(f"{float(lo):.6f} {float(hi):.6f}")
        0.038462 0.145455
    """
    check_concrete_le("w_norm", w_norm, "C", C)
    return _k_theorem51(*as_float_arrays(d, w_norm, C))

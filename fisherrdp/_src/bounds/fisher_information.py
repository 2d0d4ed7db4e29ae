r"""Closed-form bounds on the Fisher information :math:`I(d, \theta)` of
:math:`\theta \mapsto \chi^2_d(\theta^2)`: Prop 5.1 (lower and upper), App. E.1
(quadratic, Idier–Collewet), App. F.3 (Poincaré) and the trivial 1.

Conventions (units, dtypes, argument checks): :mod:`fisherrdp._src.bounds`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.bounds.common import (
    upper_ratio,
    x_over_x_plus_c,
)
from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.validation import DIMENSION, NONNEG, validated

__all__ = ['fisher_lower_prop51', 'fisher_upper_idier_collewet', 'fisher_upper_poincare', 'fisher_upper_prop51', 'fisher_upper_quadratic', 'fisher_upper_trivial']


@jax.jit
def _k_fisher_lower(d, theta):
    return x_over_x_plus_c(2.0 * theta**2, d)


@jax.jit
def _k_fisher_upper51(d, theta):
    return upper_ratio(2.0 * theta**2, d - 3.0)


@jax.jit
def _k_fisher_quadratic(d, theta):
    # Where θ² or the root would overflow, 1 − bound = O(d/θ²) is far below the precision: the
    # bound is 1 there (double where: the unused branch sees a safe θ).
    huge = theta > np.sqrt(np.finfo(theta.dtype).max) / 4
    theta = jnp.where(huge, 1.0, theta)
    theta_sq = theta**2
    a = theta_sq + 0.5 * (d - 3.0)
    # At a = θ = 0 (d = 3, θ = 0) the root is 0, and hypot's derivative there 0/0: NaN in
    # jax ≥ 0.11 (0.5 by jax 0.10's convention), which reverse mode would carry through the
    # where below. Double where: hypot sees a safe point there; the bound's gradient is 0.
    origin = (a == 0) & (theta == 0)
    root = jnp.where(origin, 0.0, jnp.hypot(jnp.where(origin, 1.0, a), 2.0 * theta))
    nonneg = a >= 0
    denominator = root + a
    denominator_safe = jnp.where(nonneg & (denominator > 0), denominator, 1.0)
    stable = 2.0 * theta_sq / denominator_safe  # no cancellation for a >= 0
    direct = 0.5 * (root - a)  # no cancellation for a < 0
    # The exact value is <= 1 for d >= 1; the min removes a possible rounding excess of 1 ulp.
    return jnp.where(huge, 1.0, jnp.minimum(1.0, jnp.where(nonneg, stable, direct)))


@jax.jit
def _k_fisher_idier(d, theta):
    return jnp.minimum(1.0, 2.0 * theta**2 / d)


@functools.partial(jax.jit, static_argnames=("clip",))
def _k_fisher_poincare(d, theta, *, clip):
    theta_sq = theta**2
    # 2y / (y + 2d²) with y = θ²(θ² + 2d), as 2·[y/(y + c)] to stay finite for huge θ.
    y = theta_sq * (theta_sq + 2.0 * d)
    raw = 2.0 * x_over_x_plus_c(y, 2.0 * d**2)
    return jnp.minimum(1.0, raw) if clip else raw


@validated(d=DIMENSION, theta=NONNEG)
def fisher_lower_prop51(d: ArrayLike, theta: ArrayLike) -> jnp.ndarray:
    r"""Lower bound of Proposition 5.1 on the Fisher information of :math:`\chi^2_d(\theta^2)`.

    .. math::

        I(d, \theta) \;\ge\; \frac{2\theta^2}{2\theta^2 + d},

    where :math:`I(d, \theta)` is the Fisher information of the amplitude :math:`\theta` in
    :math:`\chi^2_d(\theta^2)` (Proposition 5.1). The value lies in :math:`[0, 1)` and tends to 1
    as :math:`\theta \to \infty`.

    Args:
        d: Degrees of freedom, ``d >= 1`` (real values allowed).
        theta: Amplitude :math:`\theta = \|v\| \ge 0` (non-centrality :math:`\theta^2`).

    Returns:
        The bound, with the broadcast shape of ``d`` and ``theta``.

    Raises:
        ValueError: For concrete ``d < 1`` or ``theta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.fisher_lower_prop51(10, 1.5)):.6f}")
        0.310345
    """
    return _k_fisher_lower(*as_float_arrays(d, theta))


@validated(d=DIMENSION, theta=NONNEG)
def fisher_upper_prop51(d: ArrayLike, theta: ArrayLike) -> jnp.ndarray:
    r"""Upper bound of Proposition 5.1 on the Fisher information of :math:`\chi^2_d(\theta^2)`.

    .. math::

        I(d, \theta) \;\le\; \begin{cases}
            \dfrac{2\theta^2}{2\theta^2 + d - 3}, & d > 3,\\[1ex]
            1, & d \le 3.
        \end{cases}

    The formula is the paper's (Proposition 5.1, proved in App. E.1 by simplifying
    :func:`fisher_upper_quadratic`) and is informative for :math:`d > 3`. For :math:`d \le 3`
    the formula is at least 1 or not defined, so the trivial bound :math:`I \le 1` is returned
    instead; it is valid because :math:`\chi^2_d(\theta^2)` is a post-processing of
    :math:`\mathcal N(\theta e_1, I_d)`, whose Fisher information in :math:`\theta` is 1.
    For :math:`d > 3` the formula is below 1, so the result always lies in :math:`[0, 1]`.
    It is below :func:`fisher_upper_idier_collewet` exactly when :math:`\theta^2 \ge 3/2`
    (the paper states the sufficient condition :math:`\theta > 3/2`).

    Args:
        d: Degrees of freedom, ``d >= 1``.
        theta: Amplitude :math:`\theta \ge 0`.

    Returns:
        The bound, with the broadcast shape of ``d`` and ``theta``.

    Raises:
        ValueError: For concrete ``d < 1`` or ``theta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.fisher_upper_prop51(10, 1.5)):.6f}")
        0.391304
        >>> print(float(bounds.fisher_upper_prop51(3, 1.5)))
        1.0
    """
    return _k_fisher_upper51(*as_float_arrays(d, theta))


@validated(d=DIMENSION, theta=NONNEG)
def fisher_upper_quadratic(d: ArrayLike, theta: ArrayLike) -> jnp.ndarray:
    r"""Upper bound of App. E.1 before simplification (the root of a quadratic inequality).

    .. math::

        I(d, \theta) \;\le\; \tfrac12\Bigl(\sqrt{a^2 + 4\theta^2} - a\Bigr)
        = \frac{2\theta^2}{\sqrt{a^2 + 4\theta^2} + a},
        \qquad a = \theta^2 + \frac{d - 3}{2}.

    App. E.1 shows :math:`I \le (I + \theta^2)/(I + \theta^2 + (d-1)/2)`; the positive root of
    the resulting quadratic :math:`I^2 + aI - \theta^2 \le 0` is the bound. It is never larger
    than :func:`fisher_upper_prop51` (which follows from it via
    :math:`\sqrt{a^2+4\theta^2} \le a + 2\theta^2/a`), and lies in :math:`[0, 1]` for
    :math:`d \ge 1`. It is below :func:`fisher_upper_idier_collewet` exactly when
    :math:`\theta^2 \ge 3d/(2d + 4)` (App. E.1's "for every :math:`\theta > 0, d > 6`" does not
    hold for small :math:`\theta`). It is computed without cancellation: the second form for
    :math:`a \ge 0`,
    the first for :math:`a < 0` (only possible when :math:`d < 3`); a final min with 1 (valid, see
    :func:`fisher_upper_trivial`) removes a possible rounding excess of one ulp. Where
    :math:`\theta^2` would overflow (:math:`\theta > \sqrt{\mathrm{finfo.max}}/4`), the bound is
    1, its value to the working precision.

    Args:
        d: Degrees of freedom, ``d >= 1``.
        theta: Amplitude :math:`\theta \ge 0`.

    Returns:
        The bound, with the broadcast shape of ``d`` and ``theta``.

    Raises:
        ValueError: For concrete ``d < 1`` or ``theta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.fisher_upper_quadratic(10, 1.5)):.6f}")
        0.367780
    """
    return _k_fisher_quadratic(*as_float_arrays(d, theta))


@validated(d=DIMENSION, theta=NONNEG)
def fisher_upper_idier_collewet(d: ArrayLike, theta: ArrayLike) -> jnp.ndarray:
    r"""Upper bound of Idier and Collewet (2014), as quoted in App. E.1.

    .. math::

        I(d, \theta) \;\le\; \min\Bigl\{1, \frac{2\theta^2}{d}\Bigr\}.

    The min with 1 is the trivial post-processing bound (see :func:`fisher_upper_trivial`).

    Args:
        d: Degrees of freedom, ``d >= 1``.
        theta: Amplitude :math:`\theta \ge 0`.

    Returns:
        The bound, with the broadcast shape of ``d`` and ``theta``.

    Raises:
        ValueError: For concrete ``d < 1`` or ``theta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.fisher_upper_idier_collewet(10, 1.5)):.6f}")
        0.450000
    """
    return _k_fisher_idier(*as_float_arrays(d, theta))


@validated(d=DIMENSION, theta=NONNEG)
def fisher_upper_poincare(d: ArrayLike, theta: ArrayLike, *, clip: bool = True) -> jnp.ndarray:
    r"""Upper bound of App. F.3 (Poincaré-inequality proof), as printed in the paper.

    .. math::

        I(d, \theta) \;\le\; \min\Bigl\{1,\;
            \frac{2\theta^2(\theta^2 + 2d)}{2d^2 + \theta^2(\theta^2 + 2d)}\Bigr\}.

    The printed expression tends to 2 as :math:`\theta \to \infty` and exceeds 1 exactly when
    :math:`\theta^2(\theta^2 + 2d) > 2d^2`, i.e. :math:`\theta^2 > (\sqrt3 - 1)\,d`; there it is
    uninformative. By default the result is therefore clipped to the trivial post-processing
    bound 1 (valid, see :func:`fisher_upper_trivial`); pass ``clip=False`` for the raw formula.
    For small :math:`\theta` it behaves like :math:`2\theta^2/d`, the Idier–Collewet bound, and
    is then *tighter* than :func:`fisher_upper_prop51` (:math:`\approx 2\theta^2/(d-3)`): App. F.3
    calls it worse, which holds for :math:`\theta \gtrsim 1.47` on :math:`d \in [4, 200]`.
    Checked against the exact Fisher information for :math:`d \in [1, 200]`,
    :math:`\theta \in [0.05, 20]` (the proof is only outlined in the paper).

    Args:
        d: Degrees of freedom, ``d >= 1``.
        theta: Amplitude :math:`\theta \ge 0`.
        clip: Whether to take the minimum with 1.

    Returns:
        The bound, with the broadcast shape of ``d`` and ``theta``.

    Raises:
        ValueError: For concrete ``d < 1`` or ``theta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.fisher_upper_poincare(10, 1.5)):.6f}")
        0.400400
        >>> print(f"{float(bounds.fisher_upper_poincare(10, 10.0, clip=False)):.6f}")
        1.967213
    """
    return _k_fisher_poincare(*as_float_arrays(d, theta), clip=bool(clip))


@validated(d=DIMENSION, theta=NONNEG)
def fisher_upper_trivial(d: ArrayLike, theta: ArrayLike) -> jnp.ndarray:
    r"""The trivial post-processing bound :math:`I(d, \theta) \le 1`.

    .. math::

        I(d, \theta) \;\le\; 1.

    :math:`\|V\|^2 \sim \chi^2_d(\theta^2)` is a function of
    :math:`V \sim \mathcal N(\theta e_1, I_d)`,
    whose Fisher information in :math:`\theta` is 1, and Fisher information cannot increase under
    post-processing (App. E.1).

    Args:
        d: Degrees of freedom, ``d >= 1``.
        theta: Amplitude :math:`\theta \ge 0`.

    Returns:
        Ones, with the broadcast shape of ``d`` and ``theta``.

    Raises:
        ValueError: For concrete ``d < 1`` or ``theta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> import jax.numpy as jnp
        >>> bounds.fisher_upper_trivial(jnp.array([4.0, 10.0]), 1.5).tolist()
        [1.0, 1.0]
    """
    d, theta = as_float_arrays(d, theta)
    return jnp.ones(jnp.broadcast_shapes(d.shape, theta.shape), d.dtype)

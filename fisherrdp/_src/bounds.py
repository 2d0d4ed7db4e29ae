r"""Closed-form bounds of the paper, as pure elementwise JAX functions.

Units: the model noise and the latent noise have unit scale (:math:`\sigma = \sigma_z = 1`);
divide norms, bounds :math:`C` and sensitivities :math:`\Delta` by :math:`\sigma` first.
Rényi divergences use the natural logarithm and orders :math:`\alpha > 1`.

Contents (numbers refer to the paper; see ``shared/notes/MATH.md`` §2 for the re-derivations):

* Fisher information :math:`I(d, \theta)` of :math:`\theta \mapsto \chi^2_d(\theta^2)`:
  :func:`fisher_lower_prop51`, :func:`fisher_upper_prop51`, :func:`fisher_upper_quadratic`,
  :func:`fisher_upper_idier_collewet`, :func:`fisher_upper_poincare`, :func:`fisher_upper_trivial`.
* Rényi divergences: :func:`gaussian_renyi` (model release, the post-processing baseline),
  :func:`local_expansion_prop31` (Prop. 3.1), :func:`theorem51_envelope` (Thm. 5.1),
  :func:`theorem52_bound` (Thm. 5.2), :func:`theorem54_bound` (Thm. 5.4),
  :func:`theorem53_fisher_bound` (Thm. 5.3).
* Building blocks of the Fisher criterion (Prop. 3.2): :func:`path_bound_from_integral`,
  :func:`postprocessing_envelope`.

Every function broadcasts its array arguments, is compatible with :func:`jax.jit`,
:func:`jax.vmap` and :func:`jax.grad`, and computes in the common floating dtype of its inputs
(float64 when x64 is on, as after ``import fisherrdp``). Array arguments are scalars or arrays
(NumPy or JAX; as in JAX, Python lists are not accepted). Called eagerly with concrete values,
out-of-range arguments raise :class:`ValueError` naming the argument and its valid range; under
a JAX transformation no check is made and out-of-range arguments give NaN or meaningless values.
"""

from __future__ import annotations

import functools
from typing import Literal

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.config import as_float_arrays
from fisherrdp._src.validation import check_concrete, check_concrete_le

__all__ = [
    "fisher_lower_prop51",
    "fisher_upper_prop51",
    "fisher_upper_quadratic",
    "fisher_upper_idier_collewet",
    "fisher_upper_poincare",
    "fisher_upper_trivial",
    "gaussian_renyi",
    "local_expansion_prop31",
    "theorem51_envelope",
    "theorem52_bound",
    "theorem53_fisher_bound",
    "theorem54_bound",
    "path_bound_from_integral",
    "postprocessing_envelope",
]

Variant = Literal["rederived", "printed"]
_VARIANTS = ("rederived", "printed")


# ----------------------------------------------------------------------------------------------
# Argument checks (concrete values only; see fisherrdp._src.validation).


def _check_alpha(value, name: str = "alpha") -> None:
    check_concrete(name, value, lower=1, lower_inclusive=False)


def _check_dim(value, name: str = "d") -> None:
    check_concrete(name, value, lower=1)


def _check_nonneg(value, name: str) -> None:
    check_concrete(name, value, lower=0)


def _check_variant(variant: str) -> None:
    if variant not in _VARIANTS:
        raise ValueError(f"argument 'variant' must be one of {_VARIANTS}, got {variant!r}")


# ----------------------------------------------------------------------------------------------
# Numerically careful primitives (safe under jnp.where for gradients).


def _x_over_x_plus_c(x, c):
    """``x / (x + c)`` for ``x >= 0``, ``c > 0``; exact 1 for ``x = inf``, no NaN gradients."""
    big = x > c
    x_big = jnp.where(big, x, jnp.ones_like(x))
    x_small = jnp.where(big, jnp.zeros_like(x), x)
    return jnp.where(big, 1.0 / (1.0 + c / x_big), x_small / (x_small + c))


def _upper_ratio(two_theta_sq, c):
    """``x / (x + c)`` where ``c > 0``, and the trivial bound 1 where ``c <= 0``."""
    informative = c > 0
    c_safe = jnp.where(informative, c, jnp.ones_like(c))
    return jnp.where(informative, _x_over_x_plus_c(two_theta_sq, c_safe), 1.0)


def _log_exprel(x):
    """``log((e^x - 1) / x)`` for ``x >= 0`` (value 0 at ``x = 0``), without overflow."""
    small = x <= 1.0
    x_small = jnp.where(small, x, 1.0)
    x_pos = jnp.where(x_small > 0, x_small, 1.0)
    small_value = jnp.where(x_small > 0, jnp.log(jnp.expm1(x_pos) / x_pos), 0.0)
    # Exact 0-limit handled above; for tiny x > 0 expm1(x)/x is accurate to rounding.
    x_large = jnp.where(small, 2.0, x)
    large_value = x_large + jnp.log(-jnp.expm1(-x_large)) - jnp.log(x_large)
    return jnp.where(small, small_value, large_value)


def _fisher_criterion_closed_form(alpha, fisher_sup, delta, variant: str):
    r"""``1/(α-1) log(1 + α F δ exprel(s δ²) c)`` with ``s = (α-1)(2α-1)/2``.

    ``F = sqrt(fisher_sup)``, ``c = 1`` (re-derived) or ``F = fisher_sup``, ``c = 1/2`` (printed).
    Evaluated as ``softplus(log y)/(α-1)`` with ``log y`` assembled in log space, so that neither
    ``e^{sδ²}`` nor ``1 + y`` overflows; ``δ = 0`` or ``fisher_sup = 0`` gives exactly 0.
    """
    s = 0.5 * (alpha - 1.0) * (2.0 * alpha - 1.0)
    if variant == "rederived":
        log_factor = 0.5 * jnp.log(jnp.where(fisher_sup > 0, fisher_sup, 1.0))
        log_c = 0.0
    else:
        log_factor = jnp.log(jnp.where(fisher_sup > 0, fisher_sup, 1.0))
        log_c = -jnp.log(2.0)
    positive = (delta > 0) & (fisher_sup > 0)
    delta_safe = jnp.where(positive, delta, 1.0)
    log_y = (
        jnp.log(alpha) + log_factor + log_c + jnp.log(delta_safe) + _log_exprel(s * delta_safe**2)
    )
    # log1p(exp(log_y)) = softplus(log_y), stable for all log_y.
    value = jnp.logaddexp(0.0, log_y) / (alpha - 1.0)
    return jnp.where(positive, value, 0.0)


# ----------------------------------------------------------------------------------------------
# Jitted kernels: the public functions validate concrete arguments, convert them to one floating
# dtype, and call these (one compiled executable per shape and dtype instead of one per op).


@jax.jit
def _k_fisher_lower(d, theta):
    return _x_over_x_plus_c(2.0 * theta**2, d)


@jax.jit
def _k_fisher_upper51(d, theta):
    return _upper_ratio(2.0 * theta**2, d - 3.0)


@jax.jit
def _k_fisher_quadratic(d, theta):
    # Where θ² or the root would overflow, 1 − bound = O(d/θ²) is far below the precision: the
    # bound is 1 there (double where: the unused branch sees a safe θ).
    huge = theta > np.sqrt(np.finfo(theta.dtype).max) / 4
    theta = jnp.where(huge, 1.0, theta)
    theta_sq = theta**2
    a = theta_sq + 0.5 * (d - 3.0)
    root = jnp.hypot(a, 2.0 * theta)
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
    raw = 2.0 * _x_over_x_plus_c(y, 2.0 * d**2)
    return jnp.minimum(1.0, raw) if clip else raw


@jax.jit
def _k_gaussian_renyi(alpha, delta):
    return 0.5 * alpha * delta**2


@jax.jit
def _k_local_expansion(alpha, fisher, delta):
    return 0.5 * alpha * fisher * delta**2


@jax.jit
def _k_theorem51(d, w_norm, C):
    shape = jnp.broadcast_shapes(d.shape, w_norm.shape, C.shape)
    lower = _x_over_x_plus_c(2.0 * w_norm**2, d)
    upper = _upper_ratio(2.0 * C**2, d - 3.0)
    return jnp.broadcast_to(lower, shape), jnp.broadcast_to(upper, shape)


@jax.jit
def _k_path_bound(alpha, integral):
    return jnp.log1p(alpha * integral) / (alpha - 1.0)


@jax.jit
def _k_postprocessing_envelope(alpha_prime, z, theta):
    return 0.5 * alpha_prime * (z - theta) ** 2


@functools.partial(jax.jit, static_argnames=("variant",))
def _k_theorem52(alpha, d, C, delta, *, variant):
    fisher_sup = _upper_ratio(2.0 * C**2, d - 3.0)
    return _fisher_criterion_closed_form(alpha, fisher_sup, delta, variant)


@jax.jit
def _k_floor_div(d, k):
    return jnp.floor(d / k)


@functools.partial(jax.jit, static_argnames=("variant",))
def _k_theorem53(path_length_sq, rho, m, *, variant):
    scale = 2.0 if variant == "rederived" else 1.0
    return path_length_sq * _upper_ratio(scale * rho**2, m - 3.0)


# ----------------------------------------------------------------------------------------------
# Fisher information bounds for θ ↦ χ²_d(θ²).


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
    _check_dim(d)
    _check_nonneg(theta, "theta")
    return _k_fisher_lower(*as_float_arrays(d, theta))


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
    _check_dim(d)
    _check_nonneg(theta, "theta")
    return _k_fisher_upper51(*as_float_arrays(d, theta))


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
    _check_dim(d)
    _check_nonneg(theta, "theta")
    return _k_fisher_quadratic(*as_float_arrays(d, theta))


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
    _check_dim(d)
    _check_nonneg(theta, "theta")
    return _k_fisher_idier(*as_float_arrays(d, theta))


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
    _check_dim(d)
    _check_nonneg(theta, "theta")
    return _k_fisher_poincare(*as_float_arrays(d, theta), clip=bool(clip))


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
    _check_dim(d)
    _check_nonneg(theta, "theta")
    d, theta = as_float_arrays(d, theta)
    return jnp.ones(jnp.broadcast_shapes(d.shape, theta.shape), d.dtype)


# ----------------------------------------------------------------------------------------------
# Rényi divergences: baselines, local expansion, Theorem 5.1.


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
    _check_alpha(alpha)
    _check_nonneg(delta, "delta")
    return _k_gaussian_renyi(*as_float_arrays(alpha, delta))


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
    _check_alpha(alpha)
    _check_nonneg(fisher, "fisher")
    _check_nonneg(delta, "delta")
    return _k_local_expansion(*as_float_arrays(alpha, fisher, delta))


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
    _check_dim(d)
    _check_nonneg(w_norm, "w_norm")
    _check_nonneg(C, "C")
    check_concrete_le("w_norm", w_norm, "C", C)
    return _k_theorem51(*as_float_arrays(d, w_norm, C))


# ----------------------------------------------------------------------------------------------
# The Fisher criterion (Prop. 3.2) and Theorems 5.2–5.4.


def path_bound_from_integral(alpha: ArrayLike, integral: ArrayLike) -> jnp.ndarray:
    r"""Rényi bound of the Fisher criterion (Proposition 3.2) from the value of its integral.

    .. math::

        D_\alpha(P_{\theta'} \,\|\, P_\theta) \;\le\; \frac{1}{\alpha - 1}
        \log\Bigl(1 + \alpha \int_\theta^{\theta'}
        \sqrt{I(z)}\, e^{(\alpha-1)U(z, \theta)}\,dz\Bigr),

    for any envelope :math:`U(z, \theta) \ge D_{2\alpha-1}(P_z \,\|\, P_\theta)` along the path,
    e.g. :func:`postprocessing_envelope` with :math:`\alpha' = 2\alpha - 1`. This function takes
    the integral :math:`J = \int_\theta^{\theta'} \sqrt{I(z)}\, e^{(\alpha-1)U(z,\theta)} dz` and
    returns :math:`\log(1 + \alpha J)/(\alpha - 1)`.

    Derivation (MATH.md §2): with :math:`G(\theta') = \int p_{\theta'}^\alpha p_\theta^{1-\alpha}`,
    :math:`\partial_{\theta'} G = \alpha\, \mathbb E_{\theta'}[s\,(p_{\theta'}/p_\theta)^{\alpha-1}]
    \le \alpha \sqrt{I(\theta')}\, e^{(\alpha-1) D_{2\alpha-1}(P_{\theta'}\|P_\theta)}` by
    Cauchy–Schwarz, and :math:`G(\theta) = 1`. Note the square root on :math:`I`, which the
    extracted paper text lost (its App. C.4 remark that the bound "scales as" the root confirms it).

    Args:
        alpha: Rényi order, ``alpha > 1``.
        integral: The path integral :math:`J \ge 0`.

    Returns:
        The bound, with the broadcast shape of the arguments.

    Raises:
        ValueError: For concrete ``alpha <= 1`` or ``integral < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.path_bound_from_integral(2.0, 0.1)):.6f}")
        0.182322
    """
    _check_alpha(alpha)
    _check_nonneg(integral, "integral")
    return _k_path_bound(*as_float_arrays(alpha, integral))


def postprocessing_envelope(alpha_prime: ArrayLike, z: ArrayLike, theta: ArrayLike) -> jnp.ndarray:
    r"""Post-processing envelope :math:`U(z, \theta)` for the Fisher criterion (Prop. 3.2).

    .. math::

        D_{\alpha'}(P_z \,\|\, P_\theta) \;\le\; U(z, \theta) = \frac{\alpha' (z - \theta)^2}{2},

    because :math:`P_z` is a post-processing of a unit Gaussian with mean at distance
    :math:`|z - \theta|` (e.g. :math:`\chi^2_d(z^2)` from :math:`\mathcal N(z e_1, I_d)`). In
    Proposition 3.2 it is used with :math:`\alpha' = 2\alpha - 1`.

    Args:
        alpha_prime: Rényi order :math:`\alpha' > 1` (``2 * alpha - 1`` in Prop. 3.2).
        z: Point on the path (any real).
        theta: Start of the path (any real).

    Returns:
        :math:`\alpha'(z - \theta)^2/2`, with the broadcast shape of the arguments.

    Raises:
        ValueError: For concrete ``alpha_prime <= 1`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(float(bounds.postprocessing_envelope(3.0, 1.5, 1.0)))
        0.375
    """
    _check_alpha(alpha_prime, "alpha_prime")
    return _k_postprocessing_envelope(*as_float_arrays(alpha_prime, z, theta))


_THEOREM52_DOC = r"""
    Two labelled variants of the closed form are provided; with
    :math:`I_C = 2C^2/(2C^2 + d - 3)` (or 1 when :math:`d \le 3`, see
    :func:`fisher_upper_prop51`) and :math:`s = (\alpha-1)(2\alpha-1)/2`:

    * ``variant="rederived"`` (default; a proven bound):

      .. math::

          D_\alpha \le \frac{1}{\alpha-1}\log\Bigl(1 + \alpha \sqrt{I_C}\;
          \frac{2\bigl(e^{(\alpha-1)(2\alpha-1)\delta^2/2} - 1\bigr)}
               {(\alpha-1)(2\alpha-1)\,\delta}\Bigr)
          = \frac{1}{\alpha-1}\log\Bigl(1 + \alpha\sqrt{I_C}\;
            \frac{e^{s\delta^2}-1}{s\,\delta}\Bigr).

      It follows from Proposition 3.2 (:func:`path_bound_from_integral`) along the amplitude path
      from :math:`\|w\|` to :math:`\|v\|`, :math:`\delta = |\|v\| - \|w\||`, with
      :func:`postprocessing_envelope` :math:`U(z,\theta) = (2\alpha-1)(z-\theta)^2/2`, with
      :math:`\sqrt{I(z)} \le \sqrt{I_C}` on the path (norms at most :math:`C`) and with
      :math:`\int_0^x e^{s t^2}dt \le (e^{s x^2}-1)/(s x)` (termwise: the coefficients of
      :math:`s^{n-1}x^{2n-1}` are :math:`1/((n-1)!(2n-1)) \le 1/n!`). We re-derived it: the
      square root is right (Cauchy–Schwarz gives :math:`\sqrt I`, as the last display of the
      paper's App. E.2 also shows), and so is the factor 2, which comes from :math:`1/s` with
      :math:`s = (\alpha-1)(2\alpha-1)/2` (App. E.2 drops the :math:`/2` of the exponent in one
      intermediate step, which is where it gets lost; the paper's own Gaussian example in
      App. C.4 carries the 2). See MATH.md §2.
    * ``variant="printed"``: the expression of the paper's main text,

      .. math::

          D_\alpha \le \frac{1}{\alpha-1}\log f,\quad
          f = 1 + \alpha\, I_C\,
          \frac{e^{(\alpha-1)(2\alpha-1)\Delta^2/2} - 1}{(\alpha-1)(2\alpha-1)\,\Delta},

      with neither the square root nor the factor 2. Since :math:`I_C \le \sqrt{I_C}` it is
      always smaller than the re-derived bound, and it is *not* implied by the proof; it is
      provided so that numerical checks can report on it.

    Both are :math:`O(\delta)` as :math:`\delta \to 0` (re-derived
    :math:`\sim \alpha\sqrt{I_C}\,\delta/(\alpha-1)`, printed
    :math:`\sim \alpha I_C\,\delta/(2(\alpha-1))`), with value exactly 0 at :math:`\delta = 0`,
    and grow like :math:`(2\alpha-1)\delta^2/2` as :math:`\delta \to \infty`. Hence they exceed
    the post-processing baseline :math:`\alpha\delta^2/2` (:func:`gaussian_renyi`) for small and
    for large :math:`\delta`, and beat it only on a window of :math:`\delta` that can be empty
    (e.g. :math:`\alpha = 2, d = 50, C = 2`); one may take the minimum of the two. The bound
    increases with
    :math:`\delta`, so any :math:`\Delta \ge \delta` (the sensitivity) may be passed. Computed
    in log space (``expm1``, ``softplus``): no overflow for large :math:`\alpha\delta^2`.
"""


def theorem52_bound(
    alpha: ArrayLike,
    d: ArrayLike,
    C: ArrayLike,
    delta: ArrayLike,
    *,
    variant: Variant = "rederived",
) -> jnp.ndarray:
    r"""Global Rényi bound for infinite synthetic release, :math:`k = 1` (Theorem 5.2).

    Upper bound on :math:`D_\alpha(V^\top V \,\|\, W^\top W)
    = D_\alpha(\chi^2_d(\|v\|^2) \,\|\, \chi^2_d(\|w\|^2))` for :math:`\|v\|, \|w\| \le C`.
    {doc}
    Args:
        alpha: Rényi order, ``alpha > 1``.
        d: Dimension ``d >= 1``.
        C: Norm bound :math:`C \ge 0`.
        delta: :math:`\delta = |\|v\| - \|w\||`, or any larger value such as :math:`\Delta`.
        variant: ``"rederived"`` (proven) or ``"printed"`` (the paper's main text).

    Returns:
        The bound, with the broadcast shape of the array arguments.

    Raises:
        ValueError: For concrete ``alpha <= 1``, ``d < 1``, ``C < 0`` or ``delta < 0``, and for
            an unknown ``variant`` (no value checks under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{{float(bounds.theorem52_bound(2.0, 50, 1.0, 0.5)):.6f}}")
        0.219237
        >>> print(f"{{float(bounds.theorem52_bound(2.0, 50, 1.0, 0.5, variant='printed')):.6f}}")
        0.024460
    """
    _check_variant(variant)
    _check_alpha(alpha)
    _check_dim(d)
    _check_nonneg(C, "C")
    _check_nonneg(delta, "delta")
    return _k_theorem52(*as_float_arrays(alpha, d, C, delta), variant=variant)


if theorem52_bound.__doc__ is not None:  # docstrings are stripped under python -OO
    theorem52_bound.__doc__ = theorem52_bound.__doc__.format(doc=_THEOREM52_DOC)


def theorem54_bound(
    alpha: ArrayLike,
    d: ArrayLike,
    k: ArrayLike,
    C: ArrayLike,
    delta: ArrayLike,
    *,
    variant: Variant = "rederived",
) -> jnp.ndarray:
    r"""Global Rényi bound for infinite synthetic release, :math:`k \ge 1` (Theorem 5.4).

    .. math::

        D_\alpha(V^\top V \,\|\, W^\top W) \le \frac{1}{\alpha-1}\log f(\alpha, C, m, \Delta),
        \qquad m = \lfloor d/k \rfloor,

    i.e. :func:`theorem52_bound` with :math:`d` replaced by :math:`m`, for
    :math:`v, w \in \mathbb R^{d \times k}`, :math:`\|v\|_F, \|w\|_F \le C` and
    :math:`\|v - w\|_F \le \Delta`. It follows from Proposition 3.2 along the path
    :math:`\mu(\theta) = (1-\theta)v + \theta U w`, :math:`\theta \in [0, 1]`, with the Fisher
    bound of Theorem 5.3 (:func:`theorem53_fisher_bound`; :math:`\rho(\theta) \le C` by convexity)
    and the envelope :math:`D_{2\alpha-1} \le (2\alpha-1)\theta^2\|Uw - v\|_F^2/2`; the change of
    variable :math:`t = \theta\|Uw - v\|_F` reduces it to the :math:`k = 1` integral with
    :math:`\delta = \|Uw - v\|_F \le \Delta`. For :math:`k = 1` it coincides with Theorem 5.2.
    The two variants are those of :func:`theorem52_bound` (with :math:`d \to m`).

    Args:
        alpha: Rényi order, ``alpha > 1``.
        d: Model width, a real ``d >= k``.
        k: Record dimension, an integer ``k >= 1``.
        C: Frobenius-norm bound :math:`C \ge 0`.
        delta: Sensitivity :math:`\Delta \ge \|Uw - v\|_F` (``delta >= 0``).
        variant: ``"rederived"`` (proven) or ``"printed"`` (the paper's main text).

    Returns:
        The bound, with the broadcast shape of the array arguments.

    Raises:
        ValueError: For concrete ``alpha <= 1``, ``k`` not an integer ``>= 1``, ``d < k``,
            ``C < 0`` or ``delta < 0``, and for an unknown ``variant``.

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.theorem54_bound(2.0, 100, 2, 1.0, 0.5)):.6f}")
        0.219237
    """
    _check_variant(variant)
    _check_alpha(alpha)
    check_concrete("k", k, lower=1, integer=True)
    _check_dim(d)
    check_concrete_le("k", k, "d", d)
    _check_nonneg(C, "C")
    _check_nonneg(delta, "delta")
    alpha, d, k, C, delta = as_float_arrays(alpha, d, k, C, delta)
    return _k_theorem52(alpha, _k_floor_div(d, k), C, delta, variant=variant)


def theorem53_fisher_bound(
    path_length_sq: ArrayLike,
    rho: ArrayLike,
    m: ArrayLike,
    *,
    variant: Variant = "rederived",
) -> jnp.ndarray:
    r"""Fisher-information bound along the straight Wishart path (Theorem 5.3).

    For :math:`p_\theta = \mathcal W_k(d, I_k, \mu(\theta)^\top\mu(\theta))` with
    :math:`\mu(\theta) = (1-\theta)v + \theta U w`, :math:`U \in O(d)`,
    :math:`\rho = \|\mu(\theta)\|_F` and :math:`m = \lfloor d/k \rfloor`:

    * ``variant="rederived"`` (default):

      .. math::

          I(\theta) \le \|Uw - v\|_F^2 \, \frac{2\rho^2}{2\rho^2 + m - 3};

    * ``variant="printed"`` (the aggregated last line of the paper's proof, App. F.1):

      .. math::

          I(\theta) \le \|Uw - v\|_F^2 \, \frac{\rho^2}{\rho^2 + m - 3}.

    The per-block bounds of App. F.1 are :math:`\|\dot\mu_i\|^2\, 2\rho_i^2/(2\rho_i^2 + m - 3)`;
    aggregating them by concavity of :math:`x \mapsto 2x/(2x + m - 3)` and
    :math:`\rho_i \le \rho` yields the factor-2 form, so the printed one (smaller) drops a factor
    2 (MATH.md §4). Where :math:`m \le 3` the ratio is replaced by 1, i.e. the trivial
    post-processing bound :math:`I(\theta) \le \|\dot\mu\|_F^2 = \|Uw - v\|_F^2` (Fisher
    information of the Gaussian :math:`V` along the path).

    Args:
        path_length_sq: :math:`\|Uw - v\|_F^2 \ge 0`.
        rho: :math:`\rho(\theta) = \|\mu(\theta)\|_F \ge 0`.
        m: :math:`\lfloor d/k \rfloor`, ``m >= 1``.
        variant: ``"rederived"`` or ``"printed"``.

    Returns:
        The bound, with the broadcast shape of the array arguments.

    Raises:
        ValueError: For concrete negative ``path_length_sq`` or ``rho``, ``m < 1``, or an
            unknown ``variant`` (no value checks under ``jit``).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.theorem53_fisher_bound(0.25, 1.0, 10)):.6f}")
        0.055556
        >>> print(f"{float(bounds.theorem53_fisher_bound(0.25, 1.0, 10, variant='printed')):.6f}")
        0.031250
    """
    _check_variant(variant)
    _check_nonneg(path_length_sq, "path_length_sq")
    _check_nonneg(rho, "rho")
    _check_dim(m, "m")
    return _k_theorem53(*as_float_arrays(path_length_sq, rho, m), variant=variant)

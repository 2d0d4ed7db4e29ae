r"""The Fisher criterion (Prop 3.2) in closed form and the bounds of Theorems 5.2–5.4, as
printed and as re-derived (``docs/math/paper.md``), with the post-processing envelope.

Conventions (units, dtypes, argument checks): :mod:`fisherrdp._src.bounds`.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.bounds.common import (
    Variant,
    check_variant,
    upper_ratio,
)
from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.validation import (
    DIMENSION,
    NONNEG,
    ORDER,
    Domain,
    check_concrete_le,
    validated,
)

__all__ = ['path_bound_from_integral', 'postprocessing_envelope', 'theorem52_bound', 'theorem53_fisher_bound', 'theorem54_bound']


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


@jax.jit
def _k_path_bound(alpha, integral):
    return jnp.log1p(alpha * integral) / (alpha - 1.0)


@jax.jit
def _k_postprocessing_envelope(alpha_prime, z, theta):
    return 0.5 * alpha_prime * (z - theta) ** 2


@functools.partial(jax.jit, static_argnames=("variant",))
def _k_theorem52(alpha, d, C, delta, *, variant):
    fisher_sup = upper_ratio(2.0 * C**2, d - 3.0)
    return _fisher_criterion_closed_form(alpha, fisher_sup, delta, variant)


@jax.jit
def _k_floor_div(d, k):
    return jnp.floor(d / k)


@functools.partial(jax.jit, static_argnames=("variant",))
def _k_theorem53(path_length_sq, rho, m, *, variant):
    scale = 2.0 if variant == "rederived" else 1.0
    return path_length_sq * upper_ratio(scale * rho**2, m - 3.0)


@validated(alpha=ORDER, integral=NONNEG)
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

    Derivation (``docs/math/fisher.md#the-fisher-criterion``): with :math:`G(\theta') = \int p_{\theta'}^\alpha p_\theta^{1-\alpha}`,
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
    return _k_path_bound(*as_float_arrays(alpha, integral))


@validated(alpha_prime=ORDER)
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
      App. C.4 carries the 2). See ``docs/math/paper.md#theorem-52``.
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


@validated(alpha=ORDER, d=DIMENSION, C=NONNEG, delta=NONNEG)
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
    check_variant(variant)
    return _k_theorem52(*as_float_arrays(alpha, d, C, delta), variant=variant)


if theorem52_bound.__doc__ is not None:  # docstrings are stripped under python -OO
    theorem52_bound.__doc__ = theorem52_bound.__doc__.format(doc=_THEOREM52_DOC)


@validated(alpha=ORDER, k=Domain(lower=1.0, integer=True), d=DIMENSION, C=NONNEG, delta=NONNEG)
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
    check_variant(variant)
    check_concrete_le("k", k, "d", d)
    alpha, d, k, C, delta = as_float_arrays(alpha, d, k, C, delta)
    return _k_theorem52(alpha, _k_floor_div(d, k), C, delta, variant=variant)


@validated(path_length_sq=NONNEG, rho=NONNEG, m=DIMENSION)
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
    2 (``docs/math/paper.md#the-printed-aggregation-fails``). Where :math:`m \le 3` the ratio is replaced by 1, i.e. the trivial
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
    check_variant(variant)
    return _k_theorem53(*as_float_arrays(path_length_sq, rho, m), variant=variant)

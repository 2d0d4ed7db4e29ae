r"""Fisher information of the amplitude in the non-central chi-square family.

:func:`ncx2_amplitude_fisher` computes :math:`I(d, \theta)`, the Fisher information of
:math:`\theta \mapsto \chi^2_d(\theta^2)`, i.e. of the law of :math:`Y = \|\theta e_1 + N\|^2`,
:math:`N \sim \mathcal N(0, I_d)` (see ``docs/math/fisher.md#the-family-and-its-score``).

Method. With :math:`r = \sqrt{Y}` (the norm :math:`\|\theta e_1 + N\|`) and
:math:`\nu = d/2 - 1`, the density of :math:`r` is

.. math::

    p(r) \propto r^{d-1} e^{-r^2/2}\, {}_0F_1(; d/2; \theta^2 r^2/4)
         \propto r^{d/2} e^{-(r-\theta)^2/2}\, I_\nu(\theta r) e^{-\theta r},

and the score is :math:`s = \theta\,(r^2 R_\nu(z)/z - 1)`, :math:`z = \theta r`,
:math:`R_\nu = I_{\nu+1}/I_\nu` (this form has no cancellation for small :math:`\theta`).
Then :math:`I = \int s^2 p \,/ \int p`, both integrals taken with the same quadrature, so that
every factor of :math:`p` constant in :math:`r` cancels exactly and is never computed. Per
element the first form of :math:`\log p` is used when :math:`\theta m \le \nu + 1`
(:math:`m` below), the second otherwise; either way the terms of :math:`\log p` have magnitude
:math:`O(d + \theta m)` only where they must, and are centred at :math:`m` so that no large
terms cancel. Both forms and :math:`R_\nu` come from one evaluation of the Bessel core
(``log_ive_0f1_and_ratio``). In float32 at :math:`\nu \ge 10` the weights use instead the
χ² log-density's float32 form (:func:`~fisherrdp._src.distributions.ncx2.density.large_order_logpdf`
at :math:`y = r^2`, plus :math:`\log r`): inside the two forms (``log_hyp0f1``'s and
``log_bessel_ive``'s Debye exponents) terms of size ~d still cancel, which cost eps32·d
(``docs/howto/float32.md``); and the score, a difference of numbers near 1 where z is large or
small, is formed from the distance of R_ν to its limit (Hankel's complement
``ratio_complement_large_x``, the series ``ratio_over_x_deviation``;
``docs/math/fisher.md#the-score-in-float32``).

Quadrature. :math:`r` is a 1-Lipschitz function of a standard Gaussian vector, so
:math:`P(|r - E r| > t) \le 2 e^{-t^2/2}`; with :math:`m = \sqrt{\theta^2 + d - 1/2}` one has
:math:`|E r - m| \le 1` (:math:`\mathrm{Var}\, r \le 1`), and the interval
:math:`[m - T, m + T]` leaves a tail whose contribution to
:math:`E[s^2]` is, by Cauchy–Schwarz and assuming :math:`E s^4 \le 15 I^2` (the value at
:math:`d = 1`, :math:`\theta \to 0`; not proved in general), below
:math:`\sqrt{30}\, e^{-(T-1)^2/4} I`. The interval is covered by ``PANELS`` Gauss–Legendre
panels. :math:`T` and the nodes per panel come from the working dtype (``RULE``, ``RULE_FLOAT32``): float64
takes :math:`T = 14` (tail bound :math:`5\cdot 10^{-19}`) and 16 nodes, float32
:math:`T = 11` (:math:`8\cdot 10^{-11}`) and 8 nodes, each far below its own rounding and
float32 at half the cost. When :math:`m - T \le 0` the piece
:math:`[0, 1]` is instead integrated in :math:`u = -\log r` over :math:`[0, 42/d]`, which turns
the endpoint behaviour :math:`r^{d-1}` (non-integer powers for non-integer :math:`d`) into the
smooth decay :math:`e^{-d u}`, and the panels cover :math:`[1, m + T]`.

Error estimate (``return_error=True``): the difference from the same panels with the rule's
``coarse_nodes`` nodes, plus the tail bound above, plus a rounding term
:math:`\epsilon\,(64 + 4 M)\, I` with :math:`M` the largest magnitude among the terms of
:math:`\log p`. Its honesty is asserted by ``tests/test_fisher.py`` against mpmath references
(``tests/fixtures/fisher_ncx2.json``).
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.core.config import (
    as_float_arrays,
    for_precision,
    in_wide_dtype,
    needs_compensation,
)
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, validated
from fisherrdp._src.distributions.ncx2.density import (
    SINGLE_DEBYE_MIN_ORDER,
    SINGLE_DEBYE_TERMS,
    large_order_logpdf,
)
from fisherrdp._src.numerics.quadrature import composite_gauss_legendre
from fisherrdp._src.special.bessel import (
    log_ive_0f1_and_ratio,
    ratio_complement_large_x,
    ratio_over_x_deviation,
    ratio_relative_offset,
)


@dataclasses.dataclass(frozen=True)
class QuadratureRule:
    """The quadrature of one working precision: interval, panels and nodes.

    Attributes:
        half_width: Half-width T of the integration interval [m − T, m + T] in r = √y.
        nodes: Nodes per panel of the main rule (also on the u = −log r piece).
        coarse_nodes: Nodes per panel of the comparison rule of the error estimate.
    """

    half_width: float
    nodes: int
    coarse_nodes: int

    @property
    def tail_bound(self) -> float:
        """Relative tail bound √30 e^{−(T−1)²/4} (see the module docstring)."""
        return math.sqrt(30.0) * math.exp(-((self.half_width - 1.0) ** 2) / 4.0)


#: The rule of each working precision (float64's, float32's), each the smallest whose error is
#: far below that precision's rounding (measured against float64's rule, 2·10⁴ points over
#: d ∈ [1, 10⁴], θ ∈ [10⁻⁴, 10³] with the edges:
#: ``docs/math/fisher.md#the-integral-the-code-evaluates``). float64: tail bound 5e-19,
#: quadrature error ≲ 5e-13 relative with 12 nodes (so ≲ 1e-16 with 16). float32: tail bound
#: 8e-11, quadrature error 1.4e-9 relative (float32's own rounding is ~1e-6), its comparison
#: rule's 5e-7; half float64's nodes.
RULE = QuadratureRule(half_width=14.0, nodes=16, coarse_nodes=12)
RULE_FLOAT32 = QuadratureRule(half_width=11.0, nodes=8, coarse_nodes=6)
#: Gauss–Legendre panels covering the interval [m − T, m + T].
PANELS = 12
#: Extent 42/d in u of the u = −log r piece used near r = 0, and its panel edges (as fractions
#: of the extent: graded, since the integrand decays like e^{−d u}).
U_DECAY = 42.0
U_EDGES = (0.0, 1 / 84, 1 / 42, 2 / 42, 4 / 42, 8 / 42, 16 / 42, 1.0)


def _logpdf_at_node(t, m, d, theta):
    """log of the χ² density at y = (m + t)², in float32's form; in the wide dtype, m + t is
    exact (node and centre are float32), so the density sits at the node the rule assumes."""
    r = m + t
    y = jnp.where(r > 0, r * r, 1.0)
    return large_order_logpdf(y, d, theta * theta)


def _integrate(d, theta, n, half_width):
    """I(d, θ) by the n-node composite rule on [m − T, m + T], T = ``half_width``, with M
    (largest |term| of log p). Scalars in."""
    nu = d / 2.0 - 1.0
    m = jnp.sqrt(theta * theta + d - 0.5)
    clipped = m - half_width <= 1.0
    lo = jnp.where(clipped, 1.0, m - half_width)
    hi = m + half_width
    # Panels in r on [lo, hi]; t = r − m is formed directly.
    # Nodes and weights in the working dtype (float64 NumPy arrays would promote float32 input).
    rule_b = composite_gauss_legendre(n, np.linspace(0.0, 1.0, PANELS + 1))
    xb, wb = (jnp.asarray(v, d.dtype) for v in rule_b)
    t_b = (lo - m) + (hi - lo) * xb
    r_b = m + t_b
    log_rm_b = jnp.log1p(t_b / m)
    jac_b = (hi - lo) * wb
    log_jac_b = jnp.zeros_like(r_b)
    # Piece near 0 in u = −log r, r = e^{−u}, u ∈ [0, U]: dr = r du.
    xa, wa = (jnp.asarray(v, d.dtype) for v in composite_gauss_legendre(n, U_EDGES))
    big_u = U_DECAY / d
    u = big_u * xa
    r_a = jnp.exp(-u)
    log_rm_a = -u - jnp.log(m)
    jac_a = jnp.where(clipped, big_u * wa, 0.0)
    log_jac_a = -u
    r = jnp.concatenate([r_a, r_b])
    log_rm = jnp.concatenate([log_rm_a, log_rm_b])
    jac = jnp.concatenate([jac_a, jac_b])
    log_jac = jnp.concatenate([log_jac_a, log_jac_b])
    t = r - m  # only used in smooth, non-cancelling terms below
    t_node = jnp.concatenate([r_a - m, t_b])  # the node's offset as formed (float32's forms)
    # Two forms of log p(r), up to r-independent constants; both, and the score's ratio, from
    # one Bessel core at z = θ r.
    use_ive = theta * m > nu + 1.0
    z = theta * r
    log_ive, lf, ratio = log_ive_0f1_and_ratio(
        jnp.broadcast_to(nu, z.shape), z, jnp.broadcast_to(~use_ive, z.shape)
    )
    # (a) r^{d−1} e^{−r²/2} 0F1(d/2; θ²r²/4), centred at m.
    lf = jnp.where(use_ive, 0.0, lf)
    quad_f = t * (r + m) / 2.0
    main_f = (d - 1.0) * log_rm
    log_p_f = main_f - quad_f + lf
    size_f = jnp.abs(main_f) + jnp.abs(quad_f) + jnp.abs(lf)
    # (b) r^{d/2} e^{−(r−θ)²/2} I_ν(θr) e^{−θr}.
    th_i = jnp.where(use_ive, theta, 1.0)
    li = jnp.where(use_ive, log_ive, 0.0)
    main_i = (d / 2.0) * log_rm
    quad_i = (r - th_i) ** 2 / 2.0
    log_p_i = main_i - quad_i + li
    size_i = jnp.abs(main_i) + jnp.abs(quad_i) + jnp.abs(li)
    log_p = jnp.where(use_ive, log_p_i, log_p_f)
    if needs_compensation(d.dtype):
        # float32: the quadratic terms from the node's offset t as formed (r − θ = t + (m − θ)),
        # so that the density sits at the node the rule assumes, not at r rounded (an ulp of
        # r ≈ θ is 6e-5 at θ = 10³); at orders ν ≥ 10, the χ² log-density's float32 form (no
        # cancellation), at r = m + t formed in the wide dtype.
        quad_f = t_node * (m + 0.5 * t_node)
        quad_i = (t_node + jnp.where(use_ive, (d - 0.5) / (m + theta), m - 1.0)) ** 2 / 2.0
        log_p = jnp.where(use_ive, main_i - quad_i + li, main_f - quad_f + lf)
        use_debye = nu >= SINGLE_DEBYE_MIN_ORDER
        safe_d = jnp.where(use_debye, d, 2.0 * SINGLE_DEBYE_MIN_ORDER + 2.0)
        debye = jnp.log(r) + in_wide_dtype(_logpdf_at_node, t_node, m, safe_d, theta)
        log_p = jnp.where(use_debye, debye, log_p)
    log_p = log_p + log_jac
    size = jnp.where(use_ive, size_i, size_f)
    log_p = jnp.where(jac > 0, log_p, -jnp.inf)
    w = jac * jnp.exp(log_p - jax.lax.stop_gradient(jnp.max(log_p)))
    # Score / θ = r² R_ν(z)/z − 1, z = θ r; R_ν(z)/z → 1/d as z → 0.
    z_safe = jnp.where(z > 0, z, 1.0)
    r_over_z = jnp.where(z > 0, ratio / z_safe, 1.0 / d)
    s_over_theta = r * r * r_over_z - 1.0
    if needs_compensation(d.dtype):
        # r² R_ν(z)/z is close to 1 where z is large (R_ν → 1, r ≈ θ), where z is small
        # (R_ν/z → 1/d, r² ≈ d), and at large orders in between (r R_ν/θ → 1): there the
        # score's size is left to float32's absolute precision. Forms without the cancellation
        # (docs/math/fisher.md#the-score-in-float32): at orders ν ≥ 10, Debye's R_ν for every
        # z (below); else large z: s/θ = ((r − θ) − r (1 − R_ν))/θ with Hankel's complement and
        # r − θ = t + (m − θ); small z: s/θ = (r² − d)/d + (r²/d) δ, δ = d R_ν(z)/z − 1 from
        # its series, and r² − d = θ² − ½ + t (r + m) (m² = θ² + d − ½, t = r − m).
        complement, hankel = ratio_complement_large_x(nu, z)
        theta_safe = jnp.where(theta > 0, theta, 1.0)
        large = ((t_node + (d - 0.5) / (m + theta)) - r * complement) / theta_safe
        deviation, series = ratio_over_x_deviation(nu, 0.25 * z * z)
        r2_over_d = r * r / d
        small = ((theta * theta - 0.5) + t * (r + m)) / d + r2_over_d * deviation
        s_over_theta = jnp.where(hankel, large, jnp.where(series, small, s_over_theta))
        # Orders ν ≥ 10: s/θ = r R_ν(θ r)/θ − 1 by Debye's R_ν, with r² − 2ν − θ² =
        # ρ + t (2m + t) + 3/2 from the node's offset, ρ = m² − (θ² + d − ½) in the wide dtype.
        large_order = nu >= SINGLE_DEBYE_MIN_ORDER
        rho = in_wide_dtype(lambda m, theta, d: m * m - (theta * theta + d - 0.5), m, theta, d)
        by_debye = ratio_relative_offset(
            jnp.where(large_order, nu, SINGLE_DEBYE_MIN_ORDER), r, theta,
            rho + t_node * (2.0 * m + t_node) + 1.5, terms=SINGLE_DEBYE_TERMS,
        )
        s_over_theta = jnp.where(large_order, by_debye, s_over_theta)
    value = theta * theta * jnp.sum(w * s_over_theta**2) / jnp.sum(w)
    big_m = jnp.max(jnp.where(jac > 0, size, 0.0))
    return value, big_m


def _fisher_with_error(d, theta):
    rule = for_precision(d.dtype, RULE, RULE_FLOAT32)
    value, big_m = _integrate(d, theta, rule.nodes, rule.half_width)
    coarse, _ = _integrate(d, theta, rule.coarse_nodes, rule.half_width)
    eps = jnp.finfo(value.dtype).eps
    error = jnp.abs(value - coarse) + (rule.tail_bound + eps * (64.0 + 4.0 * big_m)) * value
    return value, jax.lax.stop_gradient(error)


def fisher_kernel(d, theta):
    rule = for_precision(d.dtype, RULE, RULE_FLOAT32)
    return _integrate(d, theta, rule.nodes, rule.half_width)[0]


_fisher_vec = jax.jit(jnp.vectorize(fisher_kernel))
fisher_with_error_vec = jax.jit(jnp.vectorize(_fisher_with_error))


@validated(d=DIMENSION, theta=NONNEG)
def ncx2_amplitude_fisher(d: ArrayLike, theta: ArrayLike, *, return_error: bool = False):
    r"""Fisher information of the amplitude :math:`\theta` in :math:`\chi^2_d(\theta^2)`.

    .. math::

        I(d, \theta) = E\big[s(Y; \theta)^2\big], \qquad
        s(y; \theta) = \partial_\theta \log p_{\chi^2_d(\theta^2)}(y)
                     = \sqrt{y}\, R_{d/2-1}(\theta\sqrt{y}) - \theta,

    where :math:`Y \sim \chi^2_d(\theta^2)` and :math:`R_\nu = I_{\nu+1}/I_\nu`. It lies in
    :math:`[0, 1)`, equals :math:`2\theta^2/d + O(\theta^4)` for small :math:`\theta` and tends
    to 1 as :math:`\theta \to \infty`. Computed as a one-dimensional integral over
    :math:`r = \sqrt{y}` by composite Gauss–Legendre quadrature (method and error analysis:
    :mod:`fisherrdp._src.fisher.ncx2`); relative error below 1e-10 (measured: ~1e-13 or better) for
    :math:`d \in [1, 10^4]`, :math:`\theta \in [10^{-4}, 10^3]`. Elementwise with broadcasting,
    jit-compatible and differentiable in ``theta`` (and ``d``).

    Args:
        d: Degrees of freedom, ``d >= 1`` (real values allowed).
        theta: Amplitude :math:`\theta = \|v\| \ge 0` (non-centrality :math:`\theta^2`).
        return_error: Also return an error estimate (not differentiated).

    Returns:
        The Fisher information with the broadcast shape of ``d`` and ``theta``; with
        ``return_error=True`` the pair ``(value, error_estimate)``, where ``error_estimate`` is an
        estimate of the absolute error (quadrature-rule difference, tail bound and rounding).

    Raises:
        ValueError: For concrete ``d < 1`` or ``theta < 0`` (no check under ``jit``).

    Examples:
        >>> from fisherrdp.fisher import ncx2_amplitude_fisher
        >>> print(f"{float(ncx2_amplitude_fisher(10, 1.5)):.10f}")
        0.3121520503
        >>> value, err = ncx2_amplitude_fisher([1, 200], [0.3, 20.0], return_error=True)
        >>> print([f"{v:.10f}" for v in value.tolist()])
        ['0.1535897204', '0.8005124495']
        >>> bool((err < 1e-10 * value).all())
        True
    """
    d, theta = as_float_arrays(d, theta)
    if return_error:
        return map_bucketed(fisher_with_error_vec, d, theta)
    return map_bucketed(_fisher_vec, d, theta)[0]

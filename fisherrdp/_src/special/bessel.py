r"""log I_ν(x), I_{ν+1}(x)/I_ν(x) and log ₀F₁(; b; x) in JAX, to near float64 precision.

All three are computed by one core, :func:`bessel_core`, which returns, for order ν ≥ −½ and
argument x ≥ 0 (with q = x²/4):

* ``log_i``    = log I_ν(x),
* ``log_ive``  = log(I_ν(x) e^{−x}),
* ``ratio``    = R_ν(x) = I_{ν+1}(x) / I_ν(x),
* ``log_0f1``  = log ₀F₁(; ν + 1; q) = log I_ν(x) − ν log(x/2) + log Γ(ν + 1).

Three regimes, chosen elementwise with the double-``where`` trick so that the branches not taken
are evaluated at safe arguments (no NaN in values or gradients):

1. **Power series** where q ≤ max(16, (ν + 1)/4): ₀F₁(; ν + 1; q) = Σ_k q^k / (k! (ν + 1)_k),
   ``SERIES_TERMS`` terms (the k-th term is below 1e-17 of the sum for all ν ≥ −½ there).
2. **Debye's uniform expansion** (DLMF 10.41.3, 10.41.4) where ν ≥ 20, with z = x/ν,
   t = 1/√(1 + z²):  log I_ν(νz) = ν η(z) − ½ log(2πν) + ½ log t + log Σ_k u_k(t)/ν^k, where
   η = √(1 + z²) − asinh(1/z). Every output is written so that no large terms cancel:
   ν η − x = ν/(√(1 + z²) + z) − ν asinh(1/z), and for ₀F₁ the Stirling series of log Γ(ν + 1)
   is combined analytically with ν η − ν log(x/2), leaving ν(s − log1p(s/2)) with
   s = √(1 + z²) − 1. Where log I_ν crosses 0 (z near the zero z₀ = 0.6627… of η), ν η is
   formed as (x − ν z₀) g(z − z₀) with x − ν z₀ computed exactly (split products) and g a
   Taylor series: there the target is absolute, and ν η alone has terms of size 1.2 ν. The ratio comes from the expansion of I_ν' (DLMF 10.41.4),
   R_ν = z t (1/(1 + t) − t W/S) with S = Σ u_k/ν^k and W = Σ w_k/ν^k (see ``debye.py``).
3. **Downward recurrence** where ν < 20 outside the series region: start at μ = ν + 21 with
   Debye's expansion, then run the stable backward recurrence of the ratio,
   R_{μ−1} = 1/(2μ/x + R_μ), down to R_ν (Gautschi 1967; errors are damped, not amplified).
   log I_ν = log I_{ν+21} − log Π_j R_{ν+j}, and for ₀F₁,
   log ₀F₁(ν + 1) = log ₀F₁(ν + 22) + Σ_j log1p(R_{ν+j+1} x / (2(ν + j + 1))), with no
   cancellation. In float64 the product of the 21 ratios stays above 1e-22 (R_μ(x) ≥ 0.09 for
   x > 8, μ ≤ 42), so one logarithm suffices.

Derivatives: ∂ₓ log I_ν = R_ν + ν/x (a ``custom_jvp``); ∂_ν, and every derivative of the ratio
and of ₀F₁, differentiate the regime formulas, their partials computed as values and then
multiplied by the tangents (:mod:`fisherrdp._src.numerics.partials`: reverse mode transposes
the products only, not the core's loops), except in :func:`log_ive_and_0f1` (the χ² density's
one evaluation a point) and :func:`ratio_and_log_0f1` (q independent of x: the k = 2 Wishart
series), along the tangents, measured faster there.

**x = +inf.** The public functions return the limits (log I = +inf, log ive = −inf, R = 1,
log ₀F₁ = +inf) from the core evaluated at x = 1 and a ``where``; their derivatives there are
the limits of the derivatives (∂ₓ log I → 1, every other → 0), except ∂_b log ₀F₁ → −∞, which
comes out 0.

Program size: the series and the recurrence are rolled loops (``lax.fori_loop``), which halves
the time XLA takes to compile the core (1.9 s → 1.0 s on 2 CPU cores; the core is inlined in
every kernel of fisherrdp) at no measurable run-time cost; rolled and unrolled loops agree to
≤ 6e-16 relative (the same operations, rounded after different fusions). Debye's polynomials
stay unrolled Horner loops: rolled, they ran twice as slowly.

The accuracy reached against 30+-digit mpmath references is asserted by
``tests/test_special_accuracy.py`` (claims in ``tests/fixtures/accuracy/special.json``) and
printed, regime by regime, by ``benchmarks/accuracy_report.py``; speed against SciPy by ``benchmarks/bench_special.py``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import NONNEG, Domain, validated
from fisherrdp._src.numerics.partials import jvp_by_partials, partials
from fisherrdp._src.numerics.polynomials import horner
from fisherrdp._src.special.debye import (
    DEBYE_MIN_ORDER,
    STIRLING,
    TURNING_POINT,
    TURNING_TAYLOR,
    U_EVEN,
    W_EVEN,
)
from fisherrdp._src.special.gamma import log_gamma

#: q = x²/4 below which (or below (ν + 1)/4) the power series is used.
SERIES_MAX_Q = 16.0
#: Terms of the power series; with q ≤ 16 and ν ≥ −½ the 30th term is < 1e-19 of the sum.
SERIES_TERMS = 30
#: Steps of the downward recurrence: orders ν < DEBYE_MIN_ORDER start at ν + RECURRENCE_STEPS.
RECURRENCE_STEPS = 21
#: The recurrence's excess Π(1 + t_j) − 1 is capped here; beyond, log Π(1 + t_j) is formed
#: from log x, log Γ and the ratios' product, where it is ≥ 69 and that form loses nothing.
EXCESS_CAP = 1e30

#: Largest chunk of an eager call (points per compiled call; see ``map_bucketed``).
BUCKET_CAP = 1 << 16

HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
#: Half-width of the window around the turning point z₀ where ν η is formed from x − ν z₀.
TURNING_WINDOW = 0.05


def _split_constant(value: Fraction, bits: int) -> tuple[float, float]:
    """value = hi + lo + O(2^-2·53 value), hi with at most ``bits`` significant bits."""
    exponent = math.frexp(float(value))[1]
    hi = Fraction(round(value * 2 ** (bits - exponent)), 2 ** (bits - exponent))
    return float(hi), float(value - hi)


#: z₀ split for exact products with an order whose mantissa is cut to half its bits.
_TURNING_SPLIT = {
    np.dtype(np.float64): _split_constant(TURNING_POINT, 26),
    np.dtype(np.float32): _split_constant(TURNING_POINT, 12),
}
_MANTISSA_MASK = {
    np.dtype(np.float64): (jnp.int64, ~((1 << 27) - 1)),
    np.dtype(np.float32): (jnp.int32, ~((1 << 12) - 1)),
}


def _high_half(a: jax.Array) -> jax.Array:
    """``a`` with the lower half of its mantissa bits cleared (so products with it are exact)."""
    int_type, mask = _MANTISSA_MASK[np.dtype(a.dtype)]
    bits = jax.lax.bitcast_convert_type(a, int_type)
    return jax.lax.bitcast_convert_type(bits & jnp.asarray(mask, int_type), a.dtype)


def _distance_to_turning_point(mu: jax.Array, x: jax.Array) -> jax.Array:
    """x − μ z₀ with an error of a few ulps of the result (not of x), for x ≈ μ z₀."""
    z0_hi, z0_lo = _TURNING_SPLIT[np.dtype(x.dtype)]
    mu_hi = jax.lax.stop_gradient(_high_half(mu))
    mu_lo = mu - mu_hi  # exact; the gradient flows through mu
    # μ_hi z0_hi and μ_lo z0_hi are exact products; in the window x ∈ μ z₀ (1 ± 0.08),
    # x − μ_hi z0_hi is exact too (Sterbenz).
    return ((x - mu_hi * z0_hi) - mu_lo * z0_hi) - mu * z0_lo


def nu_eta_near_turning_point(mu: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(μ η(x/μ), near): near the zero z₀ of η(z) = √(1 + z²) − asinh(1/z), where
    |x − μ z₀| ≤ ``TURNING_WINDOW`` μ (``near``), μ η = (x − μ z₀) g(x/μ − z₀) with the Taylor
    series g of ``debye.py`` and x − μ z₀ formed exactly: log I_μ(x) ≈ μ η and
    log K_μ(x) ≈ −μ η cross 0 there, where μ η alone is a difference of terms of size 1.2 μ.
    Elsewhere the value is finite, with finite derivatives (for a ``where``)."""
    distance = _distance_to_turning_point(mu, x)
    near = jnp.abs(distance) <= TURNING_WINDOW * mu
    h = jnp.where(near, distance / jnp.where(near, mu, 1.0), 0.0)
    return distance * horner(TURNING_TAYLOR[::-1], h), near


class BesselParts(NamedTuple):
    log_i: jax.Array
    log_ive: jax.Array
    ratio: jax.Array
    log_0f1: jax.Array


def stirling_correction(mu: jax.Array) -> jax.Array:
    """log Γ(μ + 1) − (μ + ½) log μ + μ − ½ log 2π, for μ ≥ 20 (Stirling series)."""
    r = 1.0 / mu
    r2 = r * r
    return r * horner(STIRLING[::-1], r2)


def _power_series(v: jax.Array, q: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Σ_{k≥1} q^k/(k!(v+1)_k) (the sum less its leading 1, for log1p) and Σ_{k≥0} q^k/(k!(v+2)_k).

    The second sum reuses the terms of the first with weights (v + 1)/(v + 1 + k).
    """

    def body(k, carry):
        term, tail, weighted = carry
        kf = k.astype(q.dtype)
        term = term * (q / ((v + kf) * kf))
        return term, tail + term, weighted + term / (v + (kf + 1.0))

    one = jnp.ones_like(q)
    init = (one, jnp.zeros_like(q), one / (v + 1.0))
    _, tail, weighted = jax.lax.fori_loop(1, SERIES_TERMS, body, init)
    return tail, weighted * (v + 1.0)


def _sqrt_one_plus_square(z: jax.Array) -> jax.Array:
    """√(1 + z²) for z ≥ 0 without overflow. (``jnp.hypot``'s second derivative is wrong in
    jax 0.10, so it is not used.)"""
    large = z > 1.0
    z_large = jnp.where(large, z, 1.0)
    z_small = jnp.where(large, 0.0, z)
    return jnp.where(large, z_large * jnp.sqrt(1.0 + (1.0 / z_large) ** 2), jnp.sqrt(1.0 + z_small**2))


def debye_sums(
    t: jax.Array, p: jax.Array, *, terms: int = len(U_EVEN) - 1
) -> tuple[jax.Array, jax.Array]:
    """Debye's sums S = Σ_k u_k(t) p^k and W = Σ_k w_k(t) p^k (DLMF 10.41.3, 10.41.4), p = 1/ν,
    k = 1 … ``terms`` (all of the table by default).

    u_k = t^k P_k(t²) and w_k = t^{k−1} Q_k(t²) (tables in ``debye.py``);
    I_ν(νz) ≈ e^{νη} √t S / √(2πν) with t = 1/√(1 + z²).
    """
    t2 = t * t
    tp = t * p
    s_sum = jnp.ones_like(t)
    w_sum = jnp.zeros_like(t)
    power = jnp.ones_like(t)  # (t p)^{k−1}
    for k in range(1, terms + 1):
        w_sum = w_sum + power * horner(W_EVEN[k - 1], t2)
        power = power * tp
        s_sum = s_sum + power * horner(U_EVEN[k], t2)
    return s_sum, w_sum * p


def _debye(mu: jax.Array, x: jax.Array) -> BesselParts:
    """Debye's uniform expansion at order mu ≥ 20 and argument x > 0."""
    z = x / mu
    hyp = _sqrt_one_plus_square(z)
    t = 1.0 / hyp
    p = 1.0 / mu
    s_sum, w_sum = debye_sums(t, p)
    common = 0.5 * jnp.log(t) + jnp.log(s_sum) - HALF_LOG_2PI - 0.5 * jnp.log(mu)
    log_ive = mu / (hyp + z) - mu * jnp.arcsinh(1.0 / z) + common
    # log I = ν η + …; near η's zero, ν η = (x − ν z₀) g(z − z₀) avoids the cancellation.
    nu_eta, near = nu_eta_near_turning_point(mu, x)
    log_i = jnp.where(near, nu_eta + common, log_ive + x)
    s = z * (z / (1.0 + hyp))  # √(1 + z²) − 1
    log_0f1 = mu * (s - jnp.log1p(0.5 * s)) + stirling_correction(mu) + 0.5 * jnp.log(t) + jnp.log(s_sum)
    ratio = z * t * (1.0 / (1.0 + t) - t * w_sum / s_sum)
    return BesselParts(log_i, log_ive, ratio, log_0f1)


#: Where Hankel's expansion in :func:`ratio_complement_large_x` is used: x ≥ 2ν² + 32. There
#: the k-th term is below max((1/4)^k / k!, k!/64^k) of the first (the ν² and the (2k − 1)² parts
#: of its factor); the series of :func:`ratio_over_x_deviation` (q ≤ (ν + 1)/4), below
#: (1/4)^k / k!.
HANKEL_MIN_X_SLOPE = 2.0
HANKEL_MIN_X = 32.0
#: At most this many terms (float64 reaches its eps by then).
DISTANCE_MAX_TERMS = 20


def distance_terms(dtype) -> int:
    """Terms of :func:`ratio_complement_large_x` and :func:`ratio_over_x_deviation` for
    ``dtype``: the first k whose bound above is below eps/16 (8 for float32, 19 for float64)."""
    eps = float(jnp.finfo(dtype).eps)
    for k in range(1, DISTANCE_MAX_TERMS):
        if max(0.25**k / math.factorial(k), math.factorial(k) / 64.0**k) <= eps / 16.0:
            return k
    return DISTANCE_MAX_TERMS


def ratio_complement_large_x(v: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    r"""1 − R_ν(x) = 1 − I_{ν+1}(x)/I_ν(x) at large x, without forming R_ν.

    .. math::

        1 - R_\nu(x) = \frac{S_\nu - S_{\nu+1}}{S_\nu}, \qquad
        S_\nu = \sum_{k\ge 0} (-1)^k \frac{a_k(\nu)}{x^k}, \quad
        a_k(\nu) = \prod_{j=1}^k \frac{4\nu^2 - (2j-1)^2}{8j}

    (Hankel's expansion of I_ν, DLMF 10.40.1; ``docs/math/bessel.md#the-ratios-complement``).
    The differences a_k(ν) − a_k(ν + 1) are carried by their own recurrence (the leading one is
    −(ν + ½)), so that no two terms of size ~1 cancel: 1 − R_ν ≈ (ν + ½)/x keeps its relative
    precision where R_ν → 1 has only its absolute one. Both sums are polynomials in
    t = (2ν² + 32)/x ∈ (0, 1], with coefficients a_k/(−2ν² − 32)^k formed once per order (a_k
    alone overflows float32 at ν ≳ 100), evaluated by Horner's rule.

    Returns:
      ``(complement, applies)``: ``applies`` where x ≥ 2ν² + 32, where
      :func:`distance_terms` terms give the complement to the working precision; elsewhere
      ``complement`` is the value at x = 2ν² + 32 (finite, with finite derivatives: for a
      ``where``).
    """
    edge = HANKEL_MIN_X_SLOPE * v * v + HANKEL_MIN_X
    applies = x >= edge
    t = edge / jnp.where(applies, x, edge)  # in (0, 1]
    # Coefficients in t = edge/x, per order (once per point where v is one per point, as in the
    # quadratures): a_k(ν)/(−edge)^k and the differences', bounded by the first's bound above.
    mu, mu_next = 4.0 * v * v, 4.0 * (v + 1.0) ** 2
    step = -1.0 / edge
    a, a_next, diff = jnp.ones_like(v), jnp.ones_like(v), jnp.zeros_like(v)
    a_coef, diff_coef = [a], [diff]
    for k in range(1, distance_terms(t.dtype) + 1):
        odd = float((2 * k - 1) ** 2)
        factor, factor_next = (mu - odd) / (8.0 * k), (mu_next - odd) / (8.0 * k)
        # factor − factor_next = −(ν + ½)/k
        diff = (diff * factor - a_next * ((v + 0.5) / k)) * step
        a, a_next = a * factor * step, a_next * factor_next * step
        a_coef.append(a)
        diff_coef.append(diff)
    s_sum, d_sum = jnp.zeros_like(t), jnp.zeros_like(t)
    for a_k, diff_k in zip(a_coef[::-1], diff_coef[::-1]):  # Horner in t, coefficients per order
        s_sum, d_sum = s_sum * t + a_k, d_sum * t + diff_k
    return d_sum / s_sum, applies


def ratio_relative_offset(
    v: jax.Array, r: jax.Array, kappa: jax.Array, excess: jax.Array, *, terms: int
) -> jax.Array:
    r"""r R_ν(κ r)/κ − 1 at large orders by Debye's expansion, without the cancellation.

    .. math::

        \frac{r R_\nu(\kappa r)}{\kappa} - 1
        = \frac{1}{D}\Bigl(\frac{r^2 e}{r^2 + z^2/D} - r^2 B\Bigr),
        \qquad z = \kappa r, \quad D = \nu + \sqrt{\nu^2 + z^2},

    from Debye's :math:`R_\nu(z) = (z/D)(1 - B)`, :math:`B = (1 + \tau)\tau W/S`,
    :math:`\tau = \nu/\sqrt{\nu^2 + z^2}` (``debye_sums``' sums, ``terms`` terms),
    :math:`r^2 - D = r^2 e/(r^2 - \nu + \sqrt{\nu^2 + z^2})` and
    :math:`\sqrt{\nu^2 + z^2} - \nu = z^2/D`, where the caller gives ``excess``
    :math:`e = r^2 - 2\nu - \kappa^2`, formed without cancellation (the χ² quadratures have it
    from their nodes' offsets; ``docs/math/bessel.md#the-ratios-complement``). Where
    r R_ν/κ → 1 (r² ≈ 2ν + κ², the bulk of a χ² law of non-centrality κ²), the direct form
    keeps only its absolute precision; here every term has one sign but the last difference,
    whose terms are of relative size ~1/√ν. Finite at κ = 0. At ν ≥ 10 with 8 terms, float32
    gives it to 3.0e-7 relative (``tests/test_special_accuracy.py``).
    """
    z = kappa * r
    root = jnp.sqrt(v * v + z * z)
    tau = v / root
    s_sum, w_sum = debye_sums(tau, 1.0 / v, terms=terms)
    r2 = r * r
    big_d = v + root
    # r² − ν + √(ν² + z²) = r² + z²/D: no cancellation where z ≪ ν.
    return (r2 * excess / (r2 + z * z / big_d) - r2 * ((1.0 + tau) * tau * w_sum / s_sum)) / big_d


def ratio_over_x_deviation(v: jax.Array, q: jax.Array) -> tuple[jax.Array, jax.Array]:
    r"""2(ν + 1) R_ν(x)/x − 1 at small q = x²/4, without forming R_ν.

    .. math::

        \frac{2(\nu+1) R_\nu(x)}{x} - 1
        = \frac{{}_0F_1(;\nu+2;q)}{{}_0F_1(;\nu+1;q)} - 1
        = -\frac{\sum_{k\ge1} q^k / \bigl((k-1)!\,(\nu+1)_{k+1}\bigr)}{{}_0F_1(;\nu+1;q)}

    (the two series differ termwise by :math:`-k q^k/(k!\,(\nu+1)_{k+1})`;
    ``docs/math/bessel.md#the-ratios-complement``). Every term has one sign, so the deviation
    (≈ −q/((ν+1)(ν+2))) keeps its relative precision where 2(ν + 1)R_ν/x → 1 has only its
    absolute one.

    Returns:
      ``(deviation, applies)``: ``applies`` where q ≤ (ν + 1)/4, where
      :func:`distance_terms` terms give it to the working precision; elsewhere ``deviation``
      is the value at q = 0.
    """
    applies = q <= 0.25 * (v + 1.0)
    q = jnp.where(applies, q, 0.0)
    term = q / ((v + 1.0) * (v + 2.0))  # k = 1 of the numerator
    power = q / (v + 1.0)  # k = 1 of ₀F₁(; ν + 1; q) − 1
    numerator, tail = term, power
    for k in range(1, distance_terms(q.dtype)):
        term = term * q / (k * (v + k + 2.0))
        power = power * q / ((k + 1) * (v + k + 1.0))
        numerator, tail = numerator + term, tail + power
    return -numerator / (1.0 + tail), applies


def bessel_core(v: jax.Array, x: jax.Array, q: jax.Array) -> BesselParts:
    """log ive, ratio and log ₀F₁(; v+1; q) for v ≥ −½, x ≥ 0, q = x²/4 (all one dtype)."""
    dtype = x.dtype
    use_series = q <= jnp.maximum(SERIES_MAX_Q, 0.25 * (v + 1.0))
    use_debye = v >= DEBYE_MIN_ORDER

    # 1. Power series (safe q where not used).
    q_s = jnp.where(use_series, q, 0.0)
    x_s = jnp.where(use_series, x, 1.0)
    tail, s1 = _power_series(v, q_s)
    log_s0 = jnp.log1p(tail)
    log_i_series = jnp.where(
        x_s > 0.0,
        v * jnp.log(0.5 * jnp.where(x_s > 0.0, x_s, 1.0)),
        jnp.where(v == 0.0, 0.0, jnp.where(v > 0.0, -jnp.inf, jnp.inf)),
    ) - log_gamma(v + 1.0) + log_s0
    series = BesselParts(log_i_series, log_i_series - x_s, 0.5 * x_s / (v + 1.0) * s1 / (1.0 + tail), log_s0)

    # 2./3. Debye's expansion at mu = v (large orders) or v + RECURRENCE_STEPS, then recurrence.
    x_a = jnp.where(use_series, jnp.asarray(2.0 * SERIES_MAX_Q, dtype), x)
    v_low = jnp.where(use_debye, 0.0, v)  # safe order for the recurrence where it is not used
    mu = jnp.where(use_debye, v, v_low + RECURRENCE_STEPS)
    start = _debye(mu, x_a)

    # log ₀F₁ gains Σ_j log(1 + t_j), t_j = R_order x/(2 order) > 0: one log1p of the excess
    # Π(1 + t_j) − 1, which grows by t + excess·t (positive terms, no cancellation), instead of
    # a log1p per step, which cost as much as the rest of the loop. Where the excess reaches
    # EXCESS_CAP (x ≫ order; capped, so that it never overflows), 1 + t_j = x/(2 order R_{order−1})
    # gives the sum as N log(x/2) − log Π order − log Π R.
    def step(i, carry):  # R_{order−1} = 1/(2 order/x + R_order), order = v_low + j + 1, j = N−1 … 0
        ratio, product, excess = carry
        order = v_low + (RECURRENCE_STEPS - i).astype(dtype)
        scaled = 2.0 * order / x_a
        t = ratio / scaled
        excess = jnp.minimum(excess + t + excess * t, EXCESS_CAP)
        ratio = 1.0 / (scaled + ratio)
        return ratio, product * ratio, excess

    init = (start.ratio, jnp.ones_like(x_a), jnp.zeros_like(x_a))
    ratio, ratio_product, excess = jax.lax.fori_loop(0, RECURRENCE_STEPS, step, init)
    log_orders = log_gamma(v_low + (RECURRENCE_STEPS + 1.0)) - log_gamma(v_low + 1.0)
    log_large = RECURRENCE_STEPS * jnp.log(0.5 * x_a) - log_orders - jnp.log(ratio_product)
    log1p_sum = jnp.where(excess < EXCESS_CAP, jnp.log1p(excess), log_large)
    log_ive = start.log_ive - jnp.log(ratio_product)
    recurrence = BesselParts(log_ive + x_a, log_ive, ratio, start.log_0f1 + log1p_sum)

    asymptotic = jax.tree.map(lambda a, b: jnp.where(use_debye, a, b), start, recurrence)
    return jax.tree.map(lambda a, b: jnp.where(use_series, a, b), series, asymptotic)


# ----------------------------------------------------------------------------------------------
# Public functions.


#: Orders v >= -1/2 (I_v is positive for x > 0 there), and b = v + 1 >= 1/2 for log ₀F₁.
ORDER_V = Domain(lower=-0.5)
PARAMETER_B = Domain(lower=0.5)


def _limit_at_zero(v: jax.Array, at_zero_order: float) -> jax.Array:
    """The x → 0 limit of v·(something → +inf): at_zero_order for v = 0, ±inf otherwise."""
    return jnp.where(v == 0.0, at_zero_order, jnp.where(v > 0.0, jnp.inf, -jnp.inf))


def _log_i_slope(v: jax.Array, x: jax.Array, ratio: jax.Array) -> jax.Array:
    """∂ₓ log I_v(x) = R_v(x) + v/x (its limit at x = 0)."""
    positive = x > 0.0
    return jnp.where(positive, ratio + v / jnp.where(positive, x, 1.0), _limit_at_zero(v, 0.0))


def _log_ive_slope_unless(use_0f1, v, x, ratio):
    """∂ₓ log(I_v(x) e^{−x}) by the identity where log ive is used (``use_0f1`` false), 0 where
    not: the shared-core rules' factor of the x tangent, finite where unused (x = 0 there gives
    no 0 · inf in a reverse pass)."""
    return jnp.where(use_0f1, jnp.zeros_like(x), _log_i_slope(v, x, ratio) - 1.0)


@jax.custom_jvp
def _log_i_and_ive(v: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    parts = bessel_core(v, x, 0.25 * x * x)
    return parts.log_i, parts.log_ive


def _log_i_and_ive_jvp(primals, tangents):
    v, x = primals
    v_dot, x_dot = tangents
    core = lambda order: bessel_core(order, x, 0.25 * x * x)
    if isinstance(v_dot, SymbolicZero):
        parts = core(v)
        dlog_i = jnp.zeros_like(x)
    else:  # ∂_v has no closed form: differentiate the regime formulas themselves.
        parts, parts_dot = jvp_by_partials(core, (v,), (v_dot,))
        dlog_i = parts_dot.log_i
    dlog_ive = dlog_i
    if not isinstance(x_dot, SymbolicZero):
        dlog_dx = _log_i_slope(v, x, parts.ratio)
        dlog_i = dlog_i + dlog_dx * x_dot
        dlog_ive = dlog_ive + (dlog_dx - 1.0) * x_dot
    return (parts.log_i, parts.log_ive), (dlog_i, dlog_ive)


_log_i_and_ive.defjvp(_log_i_and_ive_jvp, symbolic_zeros=True)


def _finite(x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(x = +inf, x with +inf replaced by 1): the core runs at the safe argument and the limit
    at +inf is put back with ``where``, so that no NaN reaches values or gradients."""
    at_inf = x == jnp.inf
    return at_inf, jnp.where(at_inf, 1.0, x)


@jax.jit
def _log_bessel_i(v: jax.Array, x: jax.Array) -> jax.Array:
    at_inf, x_finite = _finite(x)
    # At +inf the value is x itself: +inf, with ∂ₓ = 1 and ∂_v = 0 (the limits of R_v + v/x
    # and of ∂_v log I_v(x) ≈ −v/x).
    log_i = jnp.where(at_inf, x, _log_i_and_ive(v, x_finite)[0])
    return jnp.where((v < -0.5) | (x < 0.0), jnp.nan, log_i)


@jax.jit
def _log_bessel_ive(v: jax.Array, x: jax.Array) -> jax.Array:
    at_inf, x_finite = _finite(x)
    log_ive = jnp.where(at_inf, -jnp.inf, _log_i_and_ive(v, x_finite)[1])
    return jnp.where((v < -0.5) | (x < 0.0), jnp.nan, log_ive)


@jax.custom_jvp
def ratio_and_log_0f1(v: jax.Array, x: jax.Array, q: jax.Array) -> tuple[jax.Array, jax.Array]:
    parts = bessel_core(v, x, q)
    return parts.ratio, parts.log_0f1


@ratio_and_log_0f1.defjvp
def _ratio_and_log_0f1_jvp(primals, tangents):
    # No short identity without cancellation: differentiate the regime formulas, along the
    # tangents (q independent of x here: by partials, two or three directions; the k = 2
    # Wishart series' gradient, its one caller, 69.8 ms against 74.7 that way).
    core = lambda *args: bessel_core(*args)[2:]
    return jax.jvp(core, primals, tangents)


@jax.custom_jvp
def ratio_and_log_0f1_of_x(v: jax.Array, x: jax.Array) -> tuple[jax.Array, jax.Array]:
    """:func:`ratio_and_log_0f1` at q = x²/4: R_v(x) and log ₀F₁(; v + 1; x²/4), its tangent
    rule from the partials along v and x computed as values (one direction where v is held
    fixed; :mod:`fisherrdp._src.numerics.partials`): reverse mode then transposes no loop of
    the core (the Rényi and KL quadratures, the hockey stick, ``bessel_ratio``)."""
    parts = bessel_core(v, x, 0.25 * x * x)
    return parts.ratio, parts.log_0f1


def _ratio_and_log_0f1_of_x_jvp(primals, tangents):
    core = lambda v, x: bessel_core(v, x, 0.25 * x * x)[2:]
    return jvp_by_partials(core, primals, tangents)


ratio_and_log_0f1_of_x.defjvp(_ratio_and_log_0f1_of_x_jvp, symbolic_zeros=True)


@jax.custom_jvp
def log_ive_and_0f1(v: jax.Array, x: jax.Array, q: jax.Array, use_0f1: jax.Array):
    """log(I_v(x) e^{−x}) and log ₀F₁(; v + 1; q), q = x²/4, from one evaluation of the core.

    For callers that use one of the two per element (``use_0f1``: the second): one core in the
    compiled program instead of one per output, and one in its derivatives: the core is
    differentiated in v everywhere and in (x, q) where ``use_0f1`` (log ₀F₁'s derivatives
    differentiate the regime formulas); log ive's x-derivative is the identity
    ∂ₓ log I_v = R_v + v/x, taken where ``use_0f1`` is false only (elsewhere its factor is 0, so
    that x = 0 carries no inf into a gradient). The unused output of an element is the core's
    value there, finite for finite x ≥ 0.
    """
    parts = bessel_core(v, x, q)
    return parts.log_ive, parts.log_0f1


@log_ive_and_0f1.defjvp
def _log_ive_and_0f1_jvp(primals, tangents):
    # Along the tangents, not by partials (numerics/partials.py): the χ² log-density's one
    # evaluation a point is cheap to transpose, and its partials in (v, x, q) are three
    # directions (jax.vmap(jax.grad(ncx2.logpdf)): 996 000 points/s this way, 483 000 by them).
    v, x, q, use_0f1 = primals
    v_dot, x_dot, q_dot, _ = tangents
    zero = jnp.zeros_like(x)
    parts, parts_dot = jax.jvp(
        bessel_core, (v, x, q),
        (v_dot, jnp.where(use_0f1, x_dot, zero), jnp.where(use_0f1, q_dot, zero)),
    )
    slope = _log_ive_slope_unless(use_0f1, v, x, parts.ratio)
    return (parts.log_ive, parts.log_0f1), (parts_dot.log_ive + slope * x_dot, parts_dot.log_0f1)


@jax.custom_jvp
def log_ive_0f1_and_ratio(v: jax.Array, x: jax.Array, use_0f1: jax.Array):
    """log(I_v(x) e^{−x}), log ₀F₁(; v + 1; x²/4) and R_v(x), from one evaluation of the core.

    For callers that need the ratio and one of the two logarithms per element (``use_0f1``:
    the second), at finite x ≥ 0: one core in the compiled program instead of three, and one
    in its derivatives, differentiated along two directions at once (v, and x with q = x²/4):
    log ive's x-derivative is the identity ∂ₓ log I_v = R_v + v/x, taken where ``use_0f1`` is
    false only (as :func:`log_ive_and_0f1`), the others differentiate the regime formulas.
    """
    parts = bessel_core(v, x, 0.25 * x * x)
    return parts.log_ive, parts.log_0f1, parts.ratio


def _log_ive_0f1_and_ratio_jvp(primals, tangents):
    v, x, use_0f1 = primals
    dots = tangents[:2]
    live = tuple(i for i, t in enumerate(dots) if not isinstance(t, SymbolicZero))
    core = lambda v, x: bessel_core(v, x, 0.25 * x * x)
    if not live:
        parts = core(v, x)
        zero = jnp.zeros_like(parts.log_ive)
        return (parts.log_ive, parts.log_0f1, parts.ratio), (zero, zero, zero)
    parts, by_argument = partials(core, (v, x), live)
    along = dict(zip(live, by_argument))
    dlog_0f1 = sum(along[i].log_0f1 * dots[i] for i in live)
    dratio = sum(along[i].ratio * dots[i] for i in live)
    dlog_ive = along[0].log_ive * dots[0] if 0 in along else jnp.zeros_like(parts.log_ive)
    if 1 in along:
        dlog_ive = dlog_ive + _log_ive_slope_unless(use_0f1, v, x, parts.ratio) * dots[1]
    return (parts.log_ive, parts.log_0f1, parts.ratio), (dlog_ive, dlog_0f1, dratio)


log_ive_0f1_and_ratio.defjvp(_log_ive_0f1_and_ratio_jvp, symbolic_zeros=True)


@jax.jit
def _bessel_ratio(v: jax.Array, x: jax.Array) -> jax.Array:
    at_inf, x = _finite(x)
    ratio = jnp.where(at_inf, 1.0, ratio_and_log_0f1_of_x(v, x)[0])
    return jnp.where((v < -0.5) | (x < 0.0), jnp.nan, ratio)


@jax.jit
def log_hyp0f1_kernel(b: jax.Array, x: jax.Array) -> jax.Array:
    at_inf, x = _finite(x)
    positive = x > 0.0
    x_bessel = jnp.where(positive, 2.0 * jnp.sqrt(jnp.where(positive, x, 1.0)), 0.0)
    log_0f1 = jnp.where(at_inf, jnp.inf, ratio_and_log_0f1(b - 1.0, x_bessel, x)[1])
    return jnp.where((b < 0.5) | (x < 0.0), jnp.nan, log_0f1)


@validated(v=ORDER_V, x=NONNEG)
def log_bessel_ive(v: ArrayLike, x: ArrayLike) -> jax.Array:
    r"""Logarithm of the exponentially scaled modified Bessel function of the first kind.

    .. math::

        \operatorname{log\_bessel\_ive}(v, x) = \log\bigl(I_v(x)\, e^{-x}\bigr),
        \qquad I_v(x) = \sum_{k \ge 0} \frac{(x/2)^{2k+v}}{k!\,\Gamma(k+v+1)}.

    Never underflows: ``log_bessel_ive(999., 100.)`` is finite where ``log(scipy.special.ive)``
    is ``-inf``. Differentiable in both arguments (``∂_x`` from the identity
    :math:`\partial_x \log I_v = R_v + v/x`, ``∂_v`` by differentiating the regime formulas),
    to any order, under ``jit``, ``vmap``, ``grad`` and ``jacfwd``.

    Args:
      v: order, ``v >= -1/2`` (so that chi-square degrees of freedom ``d = 2v + 2 >= 1`` work).
      x: argument, ``x >= 0``. At ``x = 0`` the limit is returned: ``0`` for ``v = 0``,
        ``-inf`` for ``v > 0`` and ``+inf`` for ``v < 0``. At ``x = +inf`` the limit ``-inf``
        (:math:`\log(I_v(x) e^{-x}) \sim -\tfrac12 \log(2\pi x)`), with both derivatives
        ``0`` (their limits).

    Returns:
      Array of the broadcast shape of ``v`` and ``x``, in their floating dtype.

    Raises:
      ValueError: if concrete ``v < -1/2`` or ``x < 0``. Inside ``jit`` no check is possible:
        such entries come out as NaN.

    Examples:
      >>> import fisherrdp.special as fs
      >>> float(fs.log_bessel_ive(0.0, 40.0))  # doctest: +ELLIPSIS
      -2.7602131386476...
    """
    v, x = as_float_arrays(v, x)
    return map_bucketed(_log_bessel_ive, v, x, cap=BUCKET_CAP)[0]


@validated(v=ORDER_V, x=NONNEG)
def log_bessel_i(v: ArrayLike, x: ArrayLike) -> jax.Array:
    r"""Logarithm of the modified Bessel function of the first kind, :math:`\log I_v(x)`.

    .. math::

        I_v(x) = \sum_{k \ge 0} \frac{(x/2)^{2k+v}}{k!\,\Gamma(k+v+1)}.

    Same algorithm, domain, accuracy and derivatives as :func:`log_bessel_ive`; relatively
    accurate also where the value is tiny (``log I_0(x) ≈ x²/4`` as x → 0).

    Args:
      v: order, ``v >= -1/2``.
      x: argument, ``x >= 0`` (``x = 0`` gives the limit ``0``, ``-inf`` or ``+inf``;
        ``x = +inf`` gives ``+inf``, with the limits :math:`\partial_x = 1` and
        :math:`\partial_v = 0` of the derivatives).

    Returns:
      Array of the broadcast shape of ``v`` and ``x``.

    Raises:
      ValueError: if concrete ``v < -1/2`` or ``x < 0`` (NaN inside ``jit``).

    Examples:
      >>> import fisherrdp.special as fs
      >>> float(fs.log_bessel_i(2.0, float("inf")))
      inf
      >>> round(float(fs.log_bessel_i(1200.0, 700.0)), 10)  # scipy.special.iv underflows here
      -184.9420662352
    """
    v, x = as_float_arrays(v, x)
    return map_bucketed(_log_bessel_i, v, x, cap=BUCKET_CAP)[0]


@validated(v=ORDER_V, x=NONNEG)
def bessel_ratio(v: ArrayLike, x: ArrayLike) -> jax.Array:
    r"""Ratio of consecutive modified Bessel functions, :math:`R_v(x) = I_{v+1}(x)/I_v(x)`.

    .. math::

        R_v(x) = \frac{I_{v+1}(x)}{I_v(x)} \in [0, 1), \qquad
        \partial_x \log I_v(x) = R_v(x) + \frac{v}{x}.

    Relative accuracy near float64 precision for all ``v >= -1/2`` and ``x >= 0``, including
    ``x → ∞`` where :math:`R_v \to 1` and ``x → 0`` where :math:`R_v \approx x/(2v + 2)`.
    Differentiable in both arguments (by automatic differentiation of the regime formulas).

    Args:
      v: order, ``v >= -1/2``.
      x: argument, ``x >= 0`` (``R_v(0) = 0``; ``R_v(+inf) = 1``, with derivatives ``0``).

    Returns:
      Array of the broadcast shape of ``v`` and ``x``.

    Raises:
      ValueError: if concrete ``v < -1/2`` or ``x < 0`` (NaN inside ``jit``).

    Examples:
      >>> import fisherrdp.special as fs
      >>> float(fs.bessel_ratio(-0.5, 1.0))  # tanh(1)  # doctest: +ELLIPSIS
      0.76159415595576...
    """
    v, x = as_float_arrays(v, x)
    return map_bucketed(_bessel_ratio, v, x, cap=BUCKET_CAP)[0]


@validated(b=PARAMETER_B, x=NONNEG)
def log_hyp0f1(b: ArrayLike, x: ArrayLike) -> jax.Array:
    r"""Logarithm of the confluent hypergeometric limit function :math:`{}_0F_1(;b;x)`, x ≥ 0.

    .. math::

        {}_0F_1(;b;x) = \sum_{k \ge 0} \frac{x^k}{k!\,(b)_k}
        = \Gamma(b)\, x^{(1-b)/2}\, I_{b-1}(2\sqrt{x}).

    Accurate in relative terms also where the value is tiny (``log ₀F₁ ≈ x/b`` as x → 0) and
    where the Bessel form would cancel (large ``b`` with ``x ≈ b²``). This is the function in
    the non-central χ² and Wishart densities.

    Args:
      b: parameter, ``b >= 1/2``.
      x: argument, ``x >= 0``. ``x = +inf`` gives ``+inf`` with derivatives ``0``: the limit
        of :math:`\partial_x` (:math:`\sim 1/\sqrt x`); :math:`\partial_b` has no finite
        limit there (:math:`\sim -\tfrac12 \log x`), and its ``0`` is not a value of it.

    Returns:
      Array of the broadcast shape of ``b`` and ``x``.

    Raises:
      ValueError: if concrete ``b < 1/2`` or ``x < 0`` (NaN inside ``jit``).

    Examples:
      >>> import fisherrdp.special as fs
      >>> float(fs.log_hyp0f1(1.5, 0.0))
      0.0
    """
    b, x = as_float_arrays(b, x)
    return map_bucketed(log_hyp0f1_kernel, b, x, cap=BUCKET_CAP)[0]

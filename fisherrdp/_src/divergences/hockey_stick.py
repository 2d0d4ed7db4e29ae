r"""Hockey-stick divergence and privacy profile between non-central chi-square laws.

With :math:`P_t = \chi^2_d(t^2)` (the law of :math:`\|V\|^2`, ``docs/math/renyi.md#the-hockey-stick-divergence`` and §5) and
:math:`\gamma = e^\varepsilon`,

.. math::

    E_\gamma(P_a \,\|\, P_b) = \sup_S\, P_a(S) - \gamma P_b(S) = \int (p_a - \gamma p_b)_+ .

**Optimal set.** With :math:`r = \sqrt y`, :math:`\nu = d/2 - 1` and
:math:`g(z) = \log{}_0F_1(;d/2;z^2/4)` (so :math:`g' = R_\nu = I_{\nu+1}/I_\nu > 0`), the
log-likelihood ratio is

.. math::

    L(r) = \log\frac{p_a(r^2)}{p_b(r^2)} = -\frac{a^2 - b^2}{2} + g(ar) - g(br),
    \qquad L'(r) = a R_\nu(ar) - b R_\nu(br),

increasing in :math:`r` for :math:`a > b` (from :math:`-(a^2-b^2)/2` to :math:`+\infty`) and
decreasing for :math:`a < b`. So the optimal set is :math:`\{y > y^*\}` (:math:`a > b`) or
:math:`\{y < y^*\}` (:math:`a < b`) with :math:`L(\sqrt{y^*}) = \varepsilon`. For
:math:`a < b` there is no root when :math:`(b^2 - a^2)/2 \le \varepsilon` and then
:math:`E_\gamma = 0` exactly; :math:`a = b` gives 0.

**Root.** :math:`L(e^t) = \varepsilon` is solved in :math:`t = \log r` by ``ROOT_STEPS``
Newton steps safeguarded by bisection (a step leaving the current bracket is replaced by the
midpoint) on the bracket :math:`r \in [10^{-150}, \max(a, b) + \sqrt d + 40]`, from the
large-argument guess :math:`r = (a+b)/2 + \varepsilon/(a-b)`. Outside that bracket both laws
have mass below :math:`10^{-150}` (:math:`r < 10^{-150}`, since :math:`d \ge 1`) or
:math:`e^{-760}` (:math:`r > \max(a,b) + \sqrt d + 40`, by Gaussian concentration of
:math:`\|N\|`); a root there changes :math:`E_\gamma` by less than that.

**Value.** :math:`E_\gamma = P_a(S)\,\bigl(1 - e^{\varepsilon + \log P_b(S) - \log P_a(S)}\bigr)`
with the tail probabilities from :func:`fisherrdp.stats.ncx2.logsf` / ``logcdf`` (accurate to
~1e-13 relative in both tails) and ``-expm1``. The root is held fixed under differentiation:
by the envelope theorem (:math:`p_a = \gamma p_b` at :math:`y^*`) the derivatives in
:math:`\varepsilon, d, a, b` are those at fixed :math:`S`, e.g.
:math:`\partial_\varepsilon E_\gamma = -e^\varepsilon P_b(S)`; the position of the root
enters only at second order, so its accuracy (Newton to rounding) is not critical.

**Accuracy** (float64, against a 40-digit mpmath quadrature of :math:`\int (p_a - e^\varepsilon
p_b)_+`, ``tests/fixtures/hockey_stick_ncx2.json``, 66 cases, 62 with δ > 0, d ∈ [1, 1e4],
a, b ∈ [0, 100], ε ∈ [0, 20]): largest absolute error 4.0e-14 (d ≥ 1e3; 8.2e-16 below), at
most 4e-5 of the documented bound 1e-12 + 1e-9·δ, and 1.9e-11 relative where δ < 1e-3
(claims in ``tests/fixtures/accuracy/hockey_stick.json``); δ = 0 exactly where it should be.
The round trip ``epsilon_for_delta_ncx2(privacy_profile_ncx2(ε))`` returns ε to 1e-10 relative.
float32 inputs are computed in float64 where the device has it (not on a TPU) and the result
rounded to float32: δ ≪ P_a(S) is a cancellation of the two tail probabilities that float32
cannot carry (``docs/howto/float32.md``).

**Compile time.** Each new argument shape compiles the root finder and two tail quadratures
(about 10–40 s on a small CPU; the tail code dominates); evaluate many points in one call.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays, in_wide_dtype, needs_compensation
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, PROBABILITY, validated
from fisherrdp._src.distributions.ncx2.tails import log_cdf_sf
from fisherrdp._src.divergences.ncx2_quadrature import log_ratio_over_delta
from fisherrdp._src.numerics.roots import bracketed_newton
from fisherrdp._src.numerics.windows import held_fixed
from fisherrdp._src.special.bessel import ratio_and_log_0f1_of_x

#: Safeguarded Newton steps for the root of the log-likelihood ratio (in log r).
ROOT_STEPS = 64
#: Bracket of the root in r: [MIN_ROOT, max(a, b) + √d + TAIL_MARGIN].
MIN_ROOT = 1e-150
TAIL_MARGIN = 40.0
#: Steps ε = 0, 1, 2, 4, … that bracket the ε of a given δ (so ε < 2^(EPS_DOUBLINGS − 1)).
#: Every ε with δ(ε) > 0 satisfies ε ≤ |a² − b²|/2 + |a − b| R, R = max(a, b) + √d + 40 the
#: root bracket's end (|g'| = R_ν ≤ 1): below 2.9e4 < 2^15 for a, b ≤ 100, d ≤ 1e4.
EPS_DOUBLINGS = 16
#: Safeguarded Newton steps in ε for :func:`epsilon_for_delta_ncx2`.
EPS_STEPS = 48

__all__ = ["epsilon_for_delta_ncx2", "hockey_stick_ncx2", "privacy_profile_ncx2"]


def _log_ratio_by_integral(r, d, a, b):
    """L(r) = (a − b) · (L/δ) from the rule along the segment from b to a, without the
    cancellation of g(ar) − g(br) as a → b
    (:func:`~fisherrdp._src.divergences.ncx2_quadrature.log_ratio_over_delta`)."""
    shape = r.shape
    r, d, a, b = (jnp.ravel(jnp.broadcast_to(v, shape)) for v in (r, d, a, b))
    return ((a - b) * log_ratio_over_delta(r, d, a, b)).reshape(shape)


def log_likelihood_ratio(r, d, a, b):
    """(L(r), r L'(r)) with L = log p_a(r²) − log p_b(r²); a and b share one Bessel call.

    In float32 (on a TPU: elsewhere the hockey stick computes float32 inputs in float64),
    g(ar) − g(br) (terms of size ~ar) would leave L with an absolute error of ~eps32·ar (5e-4
    at a ≈ b ≈ 70), and the root L = ε that far off: L is then taken from the rule along the
    segment from b to a instead.
    """
    nu = 0.5 * d - 1.0
    z = r[..., None] * jnp.stack([a, b], -1)
    ratio, g = ratio_and_log_0f1_of_x(nu[..., None], z)
    if needs_compensation(r.dtype):
        value = _log_ratio_by_integral(r, d, a, b)
    else:
        value = -0.5 * (a - b) * (a + b) + g[..., 0] - g[..., 1]
    return value, z[..., 0] * ratio[..., 0] - z[..., 1] * ratio[..., 1]


@held_fixed
def _root(eps, d, a, b):
    """(r*, has_root): L(r*) = ε on the bracket (see the module docstring).

    For a > b, L rises from −(a² − b²)/2 < 0, so a root exists; for a < b, L falls from
    (b² − a²)/2, so one exists iff that exceeds ε (L(10^{-150}) differs from L(0) by ~1e-300).
    """
    sign = jnp.sign(a - b)
    has_root = (a > b) | ((a < b) & (0.5 * (b - a) * (b + a) > eps))
    t_lo = jnp.full_like(eps, math.log(MIN_ROOT))
    t_hi = jnp.log(jnp.maximum(a, b) + jnp.sqrt(d) + TAIL_MARGIN)
    gap = jnp.where(sign == 0.0, 1.0, a - b)
    guess = 0.5 * (a + b) + eps / gap
    t0 = jnp.clip(jnp.log(jnp.maximum(guess, MIN_ROOT)), t_lo, t_hi)

    def f(t):
        value, slope = log_likelihood_ratio(jnp.exp(t), d, a, b)
        return sign * (value - eps), sign * slope

    t = bracketed_newton(f, t0, t_lo, t_hi, ROOT_STEPS)
    return jnp.exp(t), has_root


def log_optimal_set_probabilities(eps, d, a, b):
    """(log P_a(S), log P_b(S), has_root) for S = {L > ε} (a half-line, see the module docs).

    ``log P_a(S)`` is the log of the tail of the privacy loss L = log(p_a/p_b) under P_a,
    P_a(L > ε), where L reaches ε; ``has_root`` is False where it never does (then S is empty
    for a < b).
    """
    eps, d, a, b = jnp.broadcast_arrays(eps, d, a, b)
    r, has_root = _root(eps, d, a, b)
    y = jnp.where(has_root, r * r, d + a * a)
    log_cdf, log_sf = log_cdf_sf(y[..., None], d[..., None], jnp.stack([a * a, b * b], -1))
    log_p = jnp.where((a > b)[..., None], log_sf, log_cdf)
    return log_p[..., 0], log_p[..., 1], has_root


def _hockey_stick_and_slope_in_dtype(eps, d, a, b):
    """(E_{e^ε}(χ²_d(a²) ‖ χ²_d(b²)), ∂_ε E = −e^ε P_b(S)) in the inputs' dtype, unchecked."""
    eps, d, a, b = jnp.broadcast_arrays(eps, d, a, b)
    log_pa, log_pb, has_root = log_optimal_set_probabilities(eps, d, a, b)
    usable = has_root & (log_pa > -jnp.inf)
    log_pa_safe = jnp.where(usable, log_pa, 0.0)
    log_ratio = jnp.where(usable, eps + log_pb - log_pa_safe, -1.0)
    value = jnp.exp(log_pa_safe) * -jnp.expm1(jnp.minimum(log_ratio, 0.0))
    slope = -jnp.exp(jnp.where(usable, eps + log_pb, -jnp.inf))
    valid = (eps >= 0.0) & (d >= 1.0) & (a >= 0.0) & (b >= 0.0)
    value = jnp.where(valid, jnp.where(usable, value, 0.0), jnp.nan)
    return value, jnp.where(valid, slope, jnp.nan)


def _hockey_stick_and_slope(eps, d, a, b):
    """(E_{e^ε}(χ²_d(a²) ‖ χ²_d(b²)), ∂_ε E = −e^ε P_b(S)) on float arrays, unchecked.

    Computed in :func:`~fisherrdp._src.core.config.wide_dtype` (float64 for float32 inputs
    where the device has it, not on a TPU): δ = P_a(S)(1 − e^{ε + log P_b(S) − log P_a(S)})
    is a cancellation where δ ≪ P_a(S), and float32's ~1e-6 in each log-probability would
    reach δ multiplied by P_a(S)/δ (up to ~400 on the measured range; ``docs/howto/float32.md``).
    """
    return in_wide_dtype(_hockey_stick_and_slope_in_dtype, eps, d, a, b)


def hockey_stick_kernel(eps, d, a, b):
    return _hockey_stick_and_slope(eps, d, a, b)[0]


def _profile_and_slope(eps, d, a, b):
    """max over both directions (a trailing axis of size 2, one call), with its ε-slope."""
    eps, d, a, b = jnp.broadcast_arrays(eps, d, a, b)
    both, slopes = _hockey_stick_and_slope(eps[..., None], d[..., None], jnp.stack([a, b], -1),
                                           jnp.stack([b, a], -1))
    larger = both[..., :1] >= both[..., 1:]
    return jnp.max(both, -1), jnp.where(larger[..., 0], slopes[..., 0], slopes[..., 1])


def _profile(eps, d, a, b):
    return _profile_and_slope(eps, d, a, b)[0]


_hockey_stick_jit = jax.jit(hockey_stick_kernel)
privacy_profile_jit = jax.jit(_profile)


@validated(eps=NONNEG, d=DIMENSION, a=NONNEG, b=NONNEG)
def hockey_stick_ncx2(eps: ArrayLike, d: ArrayLike, a: ArrayLike, b: ArrayLike) -> jax.Array:
    r"""Hockey-stick divergence :math:`E_{e^\varepsilon}(\chi^2_d(a^2) \,\|\, \chi^2_d(b^2))`.

    .. math::

        E_{e^\varepsilon}(P_a \,\|\, P_b) = \sup_S\, P_a(S) - e^\varepsilon P_b(S)
        = P_a(S^*) - e^\varepsilon P_b(S^*),

    :math:`S^* = \{y > y^*\}` for :math:`a > b`, :math:`\{y < y^*\}` for :math:`a < b`, with
    :math:`p_a(y^*) = e^\varepsilon p_b(y^*)` (method:
    :mod:`fisherrdp._src.divergences.hockey_stick`).
    One direction only; :func:`privacy_profile_ncx2` takes the maximum over both. Accurate to
    about 1e-12 + 1e-9·δ (measured against mpmath: see the module docstring) for
    :math:`d \in [1, 10^4]`, :math:`a, b \in [0, 100]`, :math:`\varepsilon \in [0, 20]`.
    Elementwise with broadcasting; works under ``jit``/``vmap``; differentiable in ``eps``
    (:math:`\partial_\varepsilon E = -e^\varepsilon P_b(S^*)`), ``d``, ``a`` and ``b``.

    Args:
      eps: :math:`\varepsilon \ge 0` (:math:`\gamma = e^\varepsilon`).
      d: degrees of freedom, ``d >= 1`` (real values allowed).
      a: amplitude of the first law (non-centrality :math:`a^2`), ``a >= 0``.
      b: amplitude of the second law, ``b >= 0``.

    Returns:
      δ in [0, 1], with the broadcast shape of the arguments.

    Raises:
      ValueError: for concrete ``eps < 0``, ``d < 1``, ``a < 0`` or ``b < 0`` (NaN inside
        ``jit``).

    Examples:
      >>> from fisherrdp.divergences import hockey_stick_ncx2
      >>> print(f"{float(hockey_stick_ncx2(0.1, 5, 2.0, 1.0)):.10f}")
      0.2389415745
      >>> print(f"{float(hockey_stick_ncx2(1.0, 10, 3.0, 2.0)):.10f}")
      0.0600640291
      >>> float(hockey_stick_ncx2(1.0, 10, 2.0, 2.0))
      0.0
    """
    return map_bucketed(_hockey_stick_jit, *as_float_arrays(eps, d, a, b))[0]


@validated(eps=NONNEG, d=DIMENSION, a=NONNEG, b=NONNEG)
def privacy_profile_ncx2(eps: ArrayLike, d: ArrayLike, a: ArrayLike, b: ArrayLike) -> jax.Array:
    r"""Privacy profile :math:`\delta(\varepsilon)` of :math:`\chi^2_d(a^2)` and :math:`\chi^2_d(b^2)`.

    .. math::

        \delta(\varepsilon) = \max\bigl(E_{e^\varepsilon}(P_a \,\|\, P_b),\,
        E_{e^\varepsilon}(P_b \,\|\, P_a)\bigr),

    the smallest δ for which releasing :math:`\|V\|^2` is :math:`(\varepsilon, \delta)`-
    indistinguishable for this pair in both directions (``docs/math/renyi.md#privacy-profile``). Non-increasing in
    ``eps``; :math:`\delta(0)` is the total variation distance. Same accuracy, broadcasting and
    differentiability as :func:`hockey_stick_ncx2`.

    Args:
      eps: :math:`\varepsilon \ge 0`, any shape.
      d: degrees of freedom, ``d >= 1``.
      a: first amplitude, ``a >= 0``.
      b: second amplitude, ``b >= 0``.

    Returns:
      δ(ε) with the broadcast shape of the arguments.

    Raises:
      ValueError: for concrete ``eps < 0``, ``d < 1``, ``a < 0`` or ``b < 0``.

    Examples:
      >>> from fisherrdp.divergences import privacy_profile_ncx2
      >>> print(f"{float(privacy_profile_ncx2(1.0, 10, 3.0, 2.0)):.10f}")  # ``docs/math/renyi.md#spot-values``
      0.0600640291
    """
    return map_bucketed(privacy_profile_jit, *as_float_arrays(eps, d, a, b))[0]


@jax.custom_jvp
def _epsilon_for_delta(delta, d, a, b):
    """Smallest ε ≥ 0 with profile(ε) ≤ δ: from ε = 0 (which ends it if profile(0) ≤ δ),
    up to EPS_DOUBLINGS steps ε = 1, 2, 4, … bracket it, then EPS_STEPS safeguarded Newton
    steps on log profile(ε) − log δ (slope
    −e^ε P_b(S)/profile, exact by the envelope theorem); one loop, one profile evaluation per
    step. Differentiated by the implicit-function rule (:func:`_epsilon_for_delta_jvp`), not
    through the loop."""
    log_delta = jnp.log(delta)

    def step(i, state):
        eps, lo, hi = state
        value, slope = _profile_and_slope(eps, d, a, b)
        g, g_slope = jnp.log(value) - log_delta, slope / value
        lo = jnp.where(g > 0.0, eps, lo)
        hi = jnp.where(g > 0.0, hi, eps)
        newton = eps - g / jnp.where(g_slope < 0.0, g_slope, -1.0)
        inside = (g_slope < 0.0) & (newton > lo) & (newton < hi)
        bracketing = i < EPS_DOUBLINGS
        found = hi < jnp.inf
        widen = jnp.where(eps > 0.0, 2.0 * eps, 1.0)
        refine = jnp.where(inside, newton, 0.5 * (lo + hi))
        return jnp.where(bracketing & ~found, widen, refine), lo, hi

    zeros = jnp.zeros_like(delta)
    init = (zeros, zeros, zeros + jnp.inf)
    eps, _, hi = jax.lax.fori_loop(0, EPS_DOUBLINGS + EPS_STEPS, step, init)
    return jnp.where(hi < jnp.inf, eps, jnp.nan)  # NaN: not bracketed (ε ≥ 2^(EPS_DOUBLINGS−1))


@_epsilon_for_delta.defjvp
def _epsilon_for_delta_jvp(primals, tangents):
    """Implicit-function rule: where ε > 0, profile(ε; d, a, b) = δ, so
    dε = (dδ − ∂_{d,a,b} profile · (dd, da, db)) / ∂_ε profile; where ε = 0 (profile(0) < δ,
    an open set of inputs) ε is locally constant and dε = 0."""
    delta, d, a, b = primals
    t_delta, t_d, t_a, t_b = tangents
    eps = _epsilon_for_delta(delta, d, a, b)
    (_, slope), (t_profile, _) = jax.jvp(
        lambda d, a, b: _profile_and_slope(eps, d, a, b), (d, a, b), (t_d, t_a, t_b)
    )
    moving = (eps > 0.0) & (slope < 0.0)
    t_eps = (t_delta - t_profile) / jnp.where(moving, slope, -1.0)
    return eps, jnp.where(moving, t_eps, 0.0)


_epsilon_for_delta_jit = jax.jit(_epsilon_for_delta)


@validated(delta=PROBABILITY, d=DIMENSION, a=NONNEG, b=NONNEG)
def epsilon_for_delta_ncx2(delta: ArrayLike, d: ArrayLike, a: ArrayLike, b: ArrayLike) -> jax.Array:
    r"""Smallest :math:`\varepsilon \ge 0` with :math:`\delta(\varepsilon) \le` ``delta``.

    .. math::

        \varepsilon(\delta) = \min\{\varepsilon \ge 0 : \delta_{a,b}(\varepsilon) \le \delta\},

    with :math:`\delta_{a,b}` the privacy profile :func:`privacy_profile_ncx2` (both
    directions). Solved by safeguarded Newton steps on :math:`\log\delta_{a,b}(\varepsilon)`
    (the slope :math:`-e^\varepsilon P_b(S^*)` is exact) inside a bracket found by trying
    :math:`\varepsilon = 0, 1, 2, 4, \dots`; relative accuracy ~1e-12 in ε, for
    :math:`\varepsilon < 2^{15}` (which holds for :math:`a, b \le 100`, :math:`d \le 10^4`;
    beyond, :class:`ValueError`, or NaN inside ``jit``). Returns 0 when
    :math:`\delta_{a,b}(0)` (the total variation distance) is already ``<= delta``. Elementwise, jit-compatible; differentiable
    in all four arguments, forward and reverse mode, to first order, by the implicit-function
    rule :math:`\partial\varepsilon = -\partial\delta_{a,b} / \partial_\varepsilon\delta_{a,b}`
    (0 where :math:`\varepsilon = 0`; the search loop itself is not differentiated).

    Args:
      delta: target δ in (0, 1).
      d: degrees of freedom, ``d >= 1``.
      a: first amplitude, ``a >= 0``.
      b: second amplitude, ``b >= 0``.

    Returns:
      ε with the broadcast shape of the arguments.

    Raises:
      ValueError: for concrete ``delta`` outside (0, 1), ``d < 1``, ``a < 0`` or ``b < 0``.

    Examples:
      >>> from fisherrdp.divergences import epsilon_for_delta_ncx2, privacy_profile_ncx2
      >>> eps = epsilon_for_delta_ncx2(1e-6, 10, 3.0, 2.0)
      >>> print(f"{float(eps):.8f}")
      4.08022806
      >>> print(f"{float(privacy_profile_ncx2(eps, 10, 3.0, 2.0)):.6e}")
      1.000000e-06
    """
    eps = map_bucketed(_epsilon_for_delta_jit, *as_float_arrays(delta, d, a, b))[0]
    if not isinstance(eps, jax.core.Tracer) and bool(jnp.isnan(eps).any()):
        bracket_end = 2.0 ** (EPS_DOUBLINGS - 1)
        raise ValueError(
            f"epsilon_for_delta_ncx2: ε exceeds the search's bracket [0, {bracket_end:g}] at some "
            "points (|a − b| (max(a, b) + √d) is too large; a, b <= 100, d <= 1e4 stay inside)"
        )
    return eps

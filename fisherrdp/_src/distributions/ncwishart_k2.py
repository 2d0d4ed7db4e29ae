r"""k = 2 non-central Wishart laws: the density ratio to the central law, and a cubature for
expectations of it, shared by the exact Rényi divergence and the exact path Fisher information.

**Density ratio.** For Y ~ W₂(d, I, Ω) the density relative to the central law is

.. math::

    r_\Omega(Y) = \frac{p_\Omega(Y)}{p_0(Y)} = \operatorname{etr}(-\Omega/2)\,
    {}_0F_1\bigl(\tfrac d2; \tfrac14\Omega Y\bigr),\qquad
    \log{}_0F_1(c; X) = \log G(\operatorname{tr} X, \det X),\quad
    G(s, q) = \sum_{j\ge0} \frac{q^j\,F_{c+2j}(s)}{j!\,(c)_{2j}\,(c-\tfrac12)_j},

the k = 2 closed series of :mod:`fisherrdp._src.special.hyp0f1_matrix` written in the two
invariants s = tr X and q = det X (so it is smooth at repeated and zero eigenvalues, with no
eigen-decomposition), :math:`F_c(s) = {}_0F_1(c; s)`. Instead of one Bessel evaluation per term
(the library series), :func:`_series` evaluates F only at c (its log, and the ratio
F_{c+1}/F_c) and at the top c + 2J (the ratio), and gets every ratio
:math:`\rho_c = F_{c+1}/F_c` in between by the backward recurrence
:math:`\rho_{c-1} = 1/(1 + s\rho_c/(c(c-1)))` of the contiguous relation
:math:`F_{c-1} - F_c = s F_{c+1}/(c(c-1))` (stable: F is the minimal solution as c → ∞).
The series is summed by a backward Horner rule in log space,
:math:`S_j = 1 + t_j S_{j+1}`, :math:`t_j = T_{j+1}/T_j`, together with the weighted averages that
give :math:`\partial_s \log G` (mean of :math:`\rho_{c+2j}/(c+2j)`) and
:math:`\partial_q \log G` (from the mean index), so values and first derivatives cost one pass
and two Bessel evaluations per point. The number of terms J = j* + 1.5√(20 j*) + 12,
j* = (q/4)^{1/4} (where the bound τ_j = q/((j+1)(c+2j)(c+2j+1)(c−½+j)) ≥ t_j crosses 1), is
the largest over the points of a call; the tail after J terms is bounded by
:math:`T_J\tau_J/((1-\tau_J) G)` (F_{c+2} ≤ F_c) and returned.

**Cubature.** Expectations :math:`\int p_0(Y)\, e^{h(Y)} g(Y)\,dY` under the central law use the
Bartlett coordinates Y = LLᵀ (l₁₁ ~ χ_d, l₂₁ ~ N(0, 1), l₂₂ ~ χ_{d−1}, independent), mapped as
:math:`l_{ii} = \lambda\,\mathrm{softplus}(x_i/\lambda)` (log-like near 0, linear far out, where
the tilted integrands of large Ω live), l₂₁ = x₂. The rule is centred at the peak x* of the
log-integrand (``NEWTON_STEPS`` safeguarded Newton steps, the Hessian by central differences of
the exact gradient) and scaled by it: x = x* + C m(z), CCᵀ = (−∇²)⁻¹, C lower triangular, with
:math:`m(z_i) = z_i - \gamma_i z_i^2\,\sigma(-z_i)` on the two diagonal axes, which turns the
exponential left tails :math:`e^{\kappa x/\lambda}` (κ = d, d − 1: the powers l^{κ−1} at 0)
into Gaussian ones (:math:`\gamma_i = \lambda/(2\kappa_i C_{ii})`, capped). In z the rule is
the trapezoidal rule of step ``STEP`` on the ball ‖z‖ ≤ ``RADIUS`` (exponentially convergent for
integrands analytic in a strip); the nodes of step 2·``STEP`` are a subset and give the error
estimate.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero

from fisherrdp._src.special.bessel import ratio_and_log_0f1

#: Trapezoidal step and radius of the ball of nodes in the whitened coordinates z.
STEP = 0.5
RADIUS = 9.5
#: Scale λ of the map l = λ softplus(x/λ) of the diagonal Cholesky entries.
SOFTPLUS_SCALE = 1.0
#: The tail map m(z) = z − γ z² σ(−βz) reaches e^{−TAIL_DROP} at z = −RADIUS; largest γ (the
#: map is monotone for γ < 1.38 at β = 1/2).
TAIL_DROP = 40.0
TAIL_SHARPNESS = 0.5
MAX_TAIL_BEND = 1.2
#: Newton steps for the peak, their largest step (in x), and the difference step of the Hessian.
NEWTON_STEPS = 40
NEWTON_CAP = 2.0
#: The small-argument guess of the peak (``_start``) needs I − 2T at least this definite.
SMALL_ARGUMENT_FLOOR = 1e-3
#: Points per diagonal coordinate of the start's grid between the two guesses (``_start``).
START_GRID = 16
HESSIAN_STEP = 1e-4


# ----------------------------------------------------------------------------------------------
# log ₀F₁(c; X) of a 2 × 2 argument from its invariants s = tr X, q = det X.


def _ratio_up(c, s, z):
    """F_{c+1}(s)/F_c(s) = c R_{c−1}(z)/(z/2), z = 2√s (1 at s = 0), and log F_c(s)."""
    positive = s > 0.0
    z_safe = jnp.where(positive, z, 1.0)
    ratio, log_f = ratio_and_log_0f1(c - 1.0, z_safe, jnp.where(positive, s, 0.25))
    rho = jnp.where(positive, 2.0 * c * ratio / z_safe, 1.0)
    return rho, jnp.where(positive, log_f, 0.0)


def series_terms(c, q):
    """Number of terms J(c, q) of the series (see the module docstring), elementwise."""
    jstar = jnp.sqrt(jnp.sqrt(jnp.maximum(q, 0.0) / 4.0))
    return jnp.ceil(jstar + 1.5 * jnp.sqrt(20.0 * jstar) + 12.0).astype(jnp.int32)


class Series(NamedTuple):
    """log G(s, q), its two partial derivatives and a bound on the relative truncation error."""

    log_g: jax.Array
    d_s: jax.Array
    d_q: jax.Array
    tail: jax.Array


@jax.custom_jvp
def series(c, s, q) -> Series:
    """log ₀F₁(c; X) and ∂/∂(tr X), ∂/∂(det X) for arrays s = tr X ≥ 0, q = det X ≥ 0.

    ``c`` is a scalar; the number of terms is the largest needed over the points, so the sum is
    a loop with a data-dependent trip count, which reverse mode cannot differentiate: the
    derivatives are a ``custom_jvp`` (:func:`_series_jvp`), in forward and reverse mode, in all
    three arguments (not of the error bound ``tail``).
    """
    return _series(c, s, q)


def _series_jvp(primals, tangents):
    """Tangents of :func:`series` as slopes times tangents (linear in them, so reverse mode
    transposes it). log G by the identity it evaluates, ∂_s log G = ``d_s``, ∂_q log G = ``d_q``;
    its ∂_c and the slopes of ``d_s`` and ``d_q`` by forward mode through the loop on the primal
    values with unit tangents, one per argument whose tangent is not zero (each point depends
    on its own s and q only), the loop run once for all of them. ``tail`` has tangent zero.
    """
    moving = [i for i, t in enumerate(tangents) if not isinstance(t, SymbolicZero)]

    def along_unit(unit):
        return jax.jvp(_series, primals, tuple(e * jnp.ones_like(p) for p, e in zip(primals, unit)))

    units = jnp.asarray(np.eye(3)[moving], primals[1].dtype)
    out, slopes = jax.vmap(along_unit, out_axes=(None, 0))(units)
    identity = {1: out.d_s, 2: out.d_q}

    def along(slope):
        return sum(slope[k] * tangents[i] for k, i in enumerate(moving))

    log_g_dot = sum(identity.get(i, slopes.log_g[k]) * tangents[i] for k, i in enumerate(moving))
    return out, Series(log_g_dot, along(slopes.d_s), along(slopes.d_q), jnp.zeros_like(out.tail))


series.defjvp(_series_jvp, symbolic_zeros=True)


def _series(c, s, q) -> Series:
    """:func:`series` itself (the loop)."""
    dtype = s.dtype
    s = jnp.maximum(s, 0.0)
    q = jnp.maximum(q, 0.0)
    n = jnp.maximum(jnp.max(series_terms(c, q)), 1)
    nf = n.astype(dtype)
    z = 2.0 * jnp.sqrt(s)
    # One Bessel evaluation site: the ratio at the top c + 2J, the log and ratio at c.
    both_c = jnp.stack([jnp.broadcast_to(c + 2.0 * nf, s.shape), jnp.broadcast_to(c, s.shape)])
    rho_both, log_both = _ratio_up(both_c, jnp.stack([s, s]), jnp.stack([z, z]))
    rho_top, rho_base, log_f = rho_both[0], rho_both[1], log_both[1]
    log_q = jnp.log(q)

    def body(i, state):
        rho, log_s, mean_ds, mean_j, log_prod, log_s1, mean_j1, rho_c1 = state
        j = (n - 1 - i).astype(dtype)
        c0 = c + 2.0 * j
        c1 = c0 + 1.0
        rho1 = 1.0 / (1.0 + s * rho / ((c1 + 1.0) * c1))
        rho0 = 1.0 / (1.0 + s * rho1 / (c1 * c0))
        log_t = (
            log_q - jnp.log((j + 1.0) * c0 * c1 * (c - 0.5 + j)) + jnp.log(rho0 * rho1)
        )
        last = j == 0.0
        log_s1 = jnp.where(last, log_s, log_s1)
        mean_j1 = jnp.where(last, mean_j, mean_j1)
        rho_c1 = jnp.where(last, rho1, rho_c1)
        share = jax.nn.sigmoid(log_t + log_s)
        v = rho0 / c0
        mean_ds = v + (mean_ds - v) * share
        mean_j = j + (mean_j - j) * share
        log_s = jnp.logaddexp(0.0, log_t + log_s)
        return rho0, log_s, mean_ds, mean_j, log_prod + log_t, log_s1, mean_j1, rho_c1

    zero = jnp.zeros_like(s)
    init = (rho_top, zero, rho_top / (c + 2.0 * nf), zero + nf, zero, zero, zero + 1.0, zero)
    rho_c, log_s0, mean_ds, _, log_prod, log_s1, mean_j1, rho_c1 = jax.lax.fori_loop(
        0, n, body, init
    )
    # ∂_q log G = (t₀/q) m₁ S₁/S₀, t₀/q = F_{c+2}/(F_c c(c+1)(c−½)) = ρ_c ρ_{c+1}/(…).
    log_t0_over_q = jnp.log(rho_c * rho_c1) - jnp.log(c * (c + 1.0) * (c - 0.5))
    d_q = jnp.exp(log_t0_over_q + jnp.log(mean_j1) + log_s1 - log_s0)
    tau = jnp.exp(log_q - jnp.log((nf + 1.0) * (c + 2 * nf) * (c + 2 * nf + 1.0) * (c - 0.5 + nf)))
    tail = jnp.where(
        tau < 0.5, jnp.exp(log_prod + jnp.log(tau) - jnp.log1p(-tau) - log_s0), jnp.inf
    )
    tail = jnp.where(q > 0.0, tail, 0.0)
    # The recurrence reproduces the base ratio (a check of the start value and of the rounding).
    drift = jnp.abs(rho_c / rho_base - 1.0)
    eps = jnp.finfo(dtype).eps
    error = tail + drift + 8.0 * eps * (nf + jnp.abs(log_f))
    return Series(log_f + log_s0, mean_ds, d_q, error)


# ----------------------------------------------------------------------------------------------
# Bartlett coordinates x = (x₁, l₂₁, x₃), l_ii = λ softplus(x_i/λ).


class Chol(NamedTuple):
    """Cholesky entries of Y at points x, their x-derivatives, and log dx-density of p₀."""

    l11: jax.Array
    l21: jax.Array
    l22: jax.Array
    dl11: jax.Array
    dl22: jax.Array
    log_base: jax.Array
    grad_base: jax.Array


def _log_chi(k, l):
    return (k - 1.0) * jnp.log(l) - 0.5 * l * l - (0.5 * k - 1.0) * math.log(2.0) - (
        jax.lax.lgamma(0.5 * k)
    )


def cholesky_coordinates(d, x) -> Chol:
    """Y = LLᵀ at points x (..., 3) and the log-density of the central law W₂(d, I) in x."""
    lam = SOFTPLUS_SCALE
    l11 = lam * jax.nn.softplus(x[..., 0] / lam)
    l22 = lam * jax.nn.softplus(x[..., 2] / lam)
    l21 = x[..., 1]
    dl11 = jax.nn.sigmoid(x[..., 0] / lam)
    dl22 = jax.nn.sigmoid(x[..., 2] / lam)
    log_base = (
        _log_chi(d, l11)
        + jnp.log(dl11)
        - 0.5 * l21 * l21
        - 0.5 * math.log(2.0 * math.pi)
        + _log_chi(d - 1.0, l22)
        + jnp.log(dl22)
    )
    grad_base = jnp.stack(
        [
            ((d - 1.0) / l11 - l11) * dl11 + jax.nn.sigmoid(-x[..., 0] / lam) / lam,
            -l21,
            ((d - 2.0) / l22 - l22) * dl22 + jax.nn.sigmoid(-x[..., 2] / lam) / lam,
        ],
        axis=-1,
    )
    return Chol(l11, l21, l22, dl11, dl22, log_base, grad_base)


def invariants(omega, ch: Chol):
    """s = tr(ΩY)/4 and q = det(Ω) det(Y)/16 of ¼ΩY, Ω = (ω₁₁, ω₁₂, ω₂₂) (..., 3)."""
    o11, o12, o22 = omega[..., 0], omega[..., 1], omega[..., 2]
    y11 = ch.l11 * ch.l11
    y12 = ch.l11 * ch.l21
    y22 = ch.l21 * ch.l21 + ch.l22 * ch.l22
    s = 0.25 * (o11 * y11 + 2.0 * o12 * y12 + o22 * y22)
    det_y = y11 * ch.l22 * ch.l22
    q = (o11 * o22 - o12 * o12) * det_y / 16.0
    return s, q, det_y


def log_ratio(c, omega, ch: Chol, *, grad: bool = False):
    """log r_Ω(Y) = −tr Ω/2 + log ₀F₁(c; ¼ΩY) at the points, its error bound and x-gradient."""
    s, q, _ = invariants(omega, ch)
    out = series(c, s, q)
    value = -0.5 * (omega[..., 0] + omega[..., 2]) + out.log_g
    if not grad:
        return value, out.tail
    o11, o12, o22 = omega[..., 0], omega[..., 1], omega[..., 2]
    det_o = o11 * o22 - o12 * o12
    ds = jnp.stack(
        [
            0.5 * (o11 * ch.l11 + o12 * ch.l21) * ch.dl11,
            0.5 * (o12 * ch.l11 + o22 * ch.l21),
            0.5 * o22 * ch.l22 * ch.dl22,
        ],
        axis=-1,
    )
    dq = jnp.stack(
        [
            det_o * ch.l11 * ch.l22 * ch.l22 * ch.dl11 / 8.0,
            jnp.zeros_like(s),
            det_o * ch.l11 * ch.l11 * ch.l22 * ch.dl22 / 8.0,
        ],
        axis=-1,
    )
    return value, out.tail, out.d_s[..., None] * ds + out.d_q[..., None] * dq


def log_ratio_and_derivative(c, omega, omega_dot, ch: Chol):
    """log r_Ω(Y), d/dt log r_{Ω + tΩ̇}(Y) at t = 0, and the series' error bound (one series
    call; Ω, Ω̇ as (..., 3) broadcast against the points)."""
    s, q, det_y = invariants(omega, ch)
    out = series(c, s, q)
    s_dot, _, _ = invariants(omega_dot, ch)
    o11, o12, o22 = omega[..., 0], omega[..., 1], omega[..., 2]
    p11, p12, p22 = omega_dot[..., 0], omega_dot[..., 1], omega_dot[..., 2]
    det_dot = o11 * p22 + p11 * o22 - 2.0 * o12 * p12
    q_dot = det_dot * det_y / 16.0
    value = -0.5 * (o11 + o22) + out.log_g
    slope = -0.5 * (p11 + p22) + out.d_s * s_dot + out.d_q * q_dot
    return value, slope, out.tail


# ----------------------------------------------------------------------------------------------
# The peak of a tilted integrand and the rule around it.


def sym3(m):
    """(ω₁₁, ω₁₂, ω₂₂) of a symmetric 2 × 2 matrix (..., 2, 2)."""
    return jnp.stack([m[..., 0, 0], 0.5 * (m[..., 0, 1] + m[..., 1, 0]), m[..., 1, 1]], -1)


def _tilted(c, d, betas, omegas, x):
    """Σ_k β_k log r_{Ω_k} + log p₀ at points x (B, 3), and its gradient."""
    ch = cholesky_coordinates(d, x)
    v, _, g = log_ratio(c, omegas[:, None, :], ch, grad=True)  # (K, B), (K, B, 3)
    return ch.log_base + betas @ v, ch.grad_base + jnp.einsum("k,kbi->bi", betas, g)


def _psd_root(o):
    lam, vec = jnp.linalg.eigh(jnp.array([[o[0], o[1]], [o[1], o[2]]]))
    return (vec * jnp.sqrt(jnp.maximum(lam, 0.0))) @ vec.T


def _start(d, betas, omegas):
    """The best (largest tilted integrand) of two guesses of the peak and a grid between them,
    as x:

    * large argument, Y = K₊² + (d − 1) I with K = Σ β_k Ω_k^{1/2} (K₊ its PSD part): the
      amplitude κ = αa + (1 − α)b of the k = 1 case, right where ΩY ≫ d²;
    * small argument, Y = (d − 1)(I − 2T)⁻¹ with T = Σ β_k Ω_k/(2d), where I − 2T is positive
      definite: ₀F₁(d/2; ΩY/4) ≈ etr(ΩY/(2d)) tilts the central law W₂(d, I) to
      W₂(d, (I − 2T)⁻¹). Where ΩY ≲ d² (large d, moderate αΩ) the first guess lies far out
      (d = 1000, α = 64, Ω = diag(9, 0): Y₁₁ ≈ 3.8e4 against the peak's 2.4e3), beyond what
      ``NEWTON_STEPS`` capped steps reach;
    * between the two, ``START_GRID``² points log-spaced in the diagonal Bartlett coordinates
      (l₂₁ = 0), from half the smaller to 1.5 times the larger guess.
    """
    eye = jnp.eye(2)  # float64 under x64: the cubature runs in float64 (tests/helpers/lowering.py)
    k = sum(betas[i] * _psd_root(omegas[i]) for i in range(omegas.shape[0]))
    lam, vec = jnp.linalg.eigh(k)
    y_large = (vec * jnp.maximum(lam, 0.0) ** 2) @ vec.T + jnp.maximum(d - 1.0, 1.0) * eye
    tilt = betas @ omegas / (2.0 * d)  # T as (t₁₁, t₁₂, t₂₂)
    lam_m, vec_m = jnp.linalg.eigh(eye - 2.0 * jnp.array([[tilt[0], tilt[1]],
                                                           [tilt[1], tilt[2]]]))
    definite = jnp.all(lam_m > SMALL_ARGUMENT_FLOOR)
    y_small = (vec_m / jnp.where(definite, lam_m, 1.0)) @ vec_m.T * jnp.maximum(d - 1.0, 1.0)
    lam_s = SOFTPLUS_SCALE
    inv = lambda l: l + lam_s * jnp.log(-jnp.expm1(-l / lam_s))

    def as_x(y):
        chol = jnp.linalg.cholesky(y)
        return jnp.array([inv(chol[0, 0]), chol[1, 0], inv(chol[1, 1])])

    guesses = jnp.stack([as_x(y_large), as_x(jnp.where(definite, y_small, y_large))])
    # Between them (ΩY ~ d²: d = 1000, α = 128, Ω = diag(9, 0) has its peak at Y₁₁ ≈ 3.5e4,
    # neither guess within reach): a log grid of the diagonal coordinates spanning both.
    low = jnp.maximum(jnp.minimum(guesses[0], guesses[1]) / 2.0, 0.1)
    high = jnp.maximum(guesses[0], guesses[1]) * 1.5
    steps = jnp.linspace(0.0, 1.0, START_GRID, dtype=eye.dtype)
    l11 = low[0] * (high[0] / low[0]) ** steps
    l22 = low[2] * (high[2] / low[2]) ** steps
    x11, x22 = jnp.meshgrid(l11, l22, indexing="ij")
    grid = jnp.stack([x11, jnp.zeros_like(x11), x22], -1).reshape(-1, 3)
    points = jnp.concatenate([guesses, grid])
    value, _ = _tilted(0.5 * d, d, betas, omegas, points)
    value = jnp.where(jnp.isnan(value), -jnp.inf, value)
    return points[jnp.argmax(value)]


def _grad_hessian(c, d, betas, omegas, x):
    eye = jnp.eye(3, dtype=x.dtype) * HESSIAN_STEP
    pts = jnp.concatenate([x[None], x + eye, x - eye])
    value, grad = _tilted(c, d, betas, omegas, pts)
    hess = (grad[1:4] - grad[4:7]).T / (2.0 * HESSIAN_STEP)
    return value[0], grad[0], 0.5 * (hess + hess.T)


class Window(NamedTuple):
    """Peak x*, lower-triangular scale C (CCᵀ = (−∇²)⁻¹), tail bends γ and the gradient left."""

    centre: jax.Array
    scale: jax.Array
    bend: jax.Array
    residual: jax.Array


def window(d, betas, omegas) -> Window:
    """Peak and scale of p₀ Π r_{Ω_k}^{β_k} in x (Newton), for one set (β (K,), Ω (K, 3))."""
    c = 0.5 * d

    def step(i, state):
        x, _, _ = state
        _, g, h = _grad_hessian(c, d, betas, omegas, x)
        lam, vec = jnp.linalg.eigh(h)
        concave = jnp.all(lam < 0.0)
        newton = -vec @ ((vec.T @ g) / jnp.where(concave, lam, -1.0))
        # Not concave: an ascent step along the gradient, scaled by the flattest curvature.
        ascent = g / jnp.maximum(jnp.max(jnp.abs(lam)), 1.0)
        move = jnp.where(concave, newton, ascent)
        norm = jnp.sqrt(jnp.sum(move * move))
        move = move * jnp.minimum(1.0, NEWTON_CAP / jnp.maximum(norm, 1e-300))
        # The last pass only evaluates (g, H) at the final point (one call site to compile).
        return jnp.where(i < NEWTON_STEPS, x + move, x), g, h

    x0 = _start(d, betas, omegas)
    init = (x0, jnp.zeros_like(x0), jnp.zeros((3, 3), x0.dtype))
    x, g, h = jax.lax.fori_loop(0, NEWTON_STEPS + 1, step, init)
    lam, vec = jnp.linalg.eigh(h)
    floor = 1e-6 * jnp.max(jnp.abs(lam))
    cov = (vec / jnp.maximum(-lam, floor)) @ vec.T
    scale = jnp.linalg.cholesky(0.5 * (cov + cov.T))
    kappa = jnp.array([d, d - 1.0])
    diag = jnp.array([scale[0, 0], scale[2, 2]])
    reach = TAIL_DROP * SOFTPLUS_SCALE / (kappa * diag) - RADIUS
    bend = jnp.maximum(reach, 0.0) / (RADIUS**2 * jax.nn.sigmoid(TAIL_SHARPNESS * RADIUS))
    bend = jnp.minimum(bend, MAX_TAIL_BEND)
    residual = jnp.sqrt(g @ cov @ g)  # Newton decrement: distance to the peak in σ units
    return Window(x, scale, bend, residual)


def _grid() -> tuple[np.ndarray, np.ndarray]:
    """Integer points k of the ball ‖k‖·STEP ≤ RADIUS, and which have all k_i even."""
    n = int(RADIUS / STEP)
    k = np.arange(-n, n + 1)
    pts = np.stack(np.meshgrid(k, k, k, indexing="ij"), -1).reshape(-1, 3)
    pts = pts[np.sum((pts * STEP) ** 2, axis=1) <= RADIUS**2]
    return pts, np.all(pts % 2 == 0, axis=1)


GRID, COARSE = _grid()


class Rule(NamedTuple):
    """Nodes x (N, 3), log weights (N,), mask of the coarse (2·STEP) subrule, outer shell."""

    x: jax.Array
    log_weight: jax.Array
    coarse: jax.Array
    shell: jax.Array


def rule(win: Window) -> Rule:
    """The trapezoidal rule of step STEP in z, mapped to x = x* + C m(z)."""
    dtype = win.centre.dtype
    z = jnp.asarray(GRID * STEP, dtype)
    beta = TAIL_SHARPNESS
    sig = jax.nn.sigmoid(-beta * z)
    m = z - z * z * sig * jnp.array([win.bend[0], 0.0, win.bend[1]])
    dm = 1.0 - (2.0 * z * sig - beta * z * z * sig * (1.0 - sig)) * jnp.array(
        [win.bend[0], 0.0, win.bend[1]]
    )
    x = win.centre + m @ win.scale.T
    log_det = jnp.sum(jnp.log(jnp.diagonal(win.scale)))
    log_weight = 3.0 * math.log(STEP) + log_det + jnp.sum(jnp.log(dm), axis=-1)
    radius = np.sqrt(np.sum((GRID * STEP) ** 2, axis=1))
    return Rule(x, log_weight, jnp.asarray(COARSE), jnp.asarray(radius > RADIUS - 1.0))


def rotate_to_tilt(betas, omegas, extra):
    """Rotate (Ω_k) and ``extra`` (…, 3) by the eigenvectors R of Σ β_k Ω_k (largest first).

    The laws are invariant under (Y, Ω) → (RᵀYR, RᵀΩR); in the eigenbasis of the tilt the
    tilted integrand is close to separable in the Bartlett coordinates (Y₁₁ = l₁₁²,
    Y₂₂ = l₂₁² + l₂₂²), which the product rule needs when a tilt pushes Y along an oblique
    direction (towards a singular matrix, or far out). The largest eigenvalue goes to Y₁₁:
    a tilt outwards along Y₂₂ would spread the integrand on a circle in (l₂₁, l₂₂).
    R is held constant under differentiation: by that invariance the derivative at fixed R is
    the derivative, and that of the eigenvectors is singular at a repeated eigenvalue.
    """
    m = jnp.einsum("k,ki->i", betas, omegas)
    _, r = jnp.linalg.eigh(jnp.array([[m[0], m[1]], [m[1], m[2]]]))
    r = jax.lax.stop_gradient(r[:, ::-1])

    def rot(o):
        mat = jnp.stack([jnp.stack([o[..., 0], o[..., 1]], -1),
                         jnp.stack([o[..., 1], o[..., 2]], -1)], -2)
        return sym3(jnp.swapaxes(r, -1, -2) @ mat @ r)

    return rot(omegas), rot(extra)

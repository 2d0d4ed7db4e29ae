r"""Exact Rényi divergence between k = 2 non-central Wishart laws, by cubature.

:func:`renyi_ncwishart_gram` computes

.. math::

    D_\alpha\bigl(\mathcal W_2(d, I, \Omega_v) \,\big\|\, \mathcal W_2(d, I, \Omega_w)\bigr)
    = \frac{1}{\alpha-1}\log \mathbb E_{Y\sim W_2(d, I)}\bigl[r_v^\alpha\, r_w^{1-\alpha}\bigr],
    \qquad r_\Omega(Y) = \operatorname{etr}(-\Omega/2)\,{}_0F_1\bigl(\tfrac d2; \tfrac14\Omega Y\bigr),

the infinite-release loss of the paper's Section 4 for k = 2 (Theorem 5.4 bounds it; ``docs/math/wishart_k2.md#renyi-divergence-of-two-wishart-laws``
"k = 2 exact"); :func:`renyi_ncwishart` takes the means v, w (Ω = vᵀv) and delegates k = 1 to
:func:`~fisherrdp.divergences.renyi_ncx2`.

**Method** (shared machinery: :mod:`fisherrdp._src.distributions.ncwishart_k2`). The
expectation under the central law is a 3-D integral in Bartlett coordinates Y = LLᵀ (a product
measure), computed by the trapezoidal rule in coordinates centred at the peak of the tilted
integrand p₀ r_v^α r_w^{1−α} (Newton) and whitened by its Hessian, with the powers l^{d−1},
l^{d−2} at the boundary turned into Gaussian tails; ₀F₁ by the closed k = 2 series in
(tr, det) summed with a ratio recurrence (two Bessel evaluations per point). Per pair,
elementwise:

1. the log-likelihood ratio :math:`L = \log r_v - \log r_w` is formed without cancellation
   where :math:`\|\Delta\Omega\|_F \le` ``CLOSE`` :math:`\max(\|\Omega_v\|_F, \|\Omega_w\|_F)`,
   :math:`\Delta\Omega = \Omega_v - \Omega_w` (for :func:`renyi_ncwishart` formed as
   :math:`((v-w)^\top(v+w) + (v+w)^\top(v-w))/2`): :math:`L = \int_0^1
   \langle\nabla_\Omega \log r_{\Omega_w + t\Delta\Omega}(Y), \Delta\Omega\rangle\,dt` by
   ``T_NODES``-point Gauss–Legendre in t (the derivative from the same series); elsewhere as the
   difference;
2. *direct form* :math:`(\alpha-1)D = \log\sum_i w_i\,p_w(Y_i)\,e^{\alpha L_i}`;
3. *ψ form*, used where the direct form gives :math:`(\alpha-1)D <` ``PSI_MAX``:
   :math:`e^{(\alpha-1)D} - 1 = E_w[\psi(L)]`, :math:`\psi(L) = e^{\alpha L} - 1 -
   \alpha(e^L - 1) \ge 0` (the helpers of :mod:`fisherrdp._src.divergences.renyi`, scaled by
   :math:`\|\Delta\Omega\|_F^2`), divided by :math:`\sum_i w_i p_w(Y_i)` on the same nodes, so the
   relative accuracy of tiny divergences is that of the rule; :math:`D = 0` exactly where
   :math:`\Omega_v = \Omega_w`.

**Error estimate** (``return_error=True``): the trapezoidal rule of twice the step is a subset
of the nodes; with e the difference of the two (relative), the rule's error is estimated as
:math:`4e^2` (exponential convergence squares the error when the step halves; measured margin
5–25×), plus the mass on the outer shell of the ball, the series' truncation bound and a
rounding allowance, propagated to D.

**Accuracy measured** (float64, ``tests/test_renyi_wishart.py``, claims in
``tests/fixtures/accuracy/wishart_exact.json``), worst relative errors: rank-one pairs against
:func:`renyi_ncx2` (d = 2 … 1e4, α up to 256, a < b and a > b, a or b = 0, oblique and
axis-aligned directions): 5.4e-11; ``benchmarks/wishart_k2_extremes.py`` (d up to 1e4, α up to
256; ``docs/math/wishart_k2.md#where-the-tilted-peak-is``): 320 rank-one pairs 3.6e-10, 125
orthogonal rank-one pairs (exact by ``docs/math/worst_pair.md``) 1.2e-9; the public reference values: 1.6e-12; the independent
eigen-coordinate integration (``tests/fixtures/renyi_wishart_exact.json``): see that claim;
O(2)/O(d) invariance: 7.6e-16; tiny divergences (‖v − w‖ ~ 1e-6 and 1e-12 relative, values
down to 1e-24) against α I h²/2: 1.8e-13. The error estimate covered the actual error at every
tested point. Not certified: at α = 64 with both eigenvalues of Ω ≈ 900 (D ≈ 6e4) the series
needs ~2e4 terms (50 s) and the estimate is infinite.

**Cost** (two shared CPU cores, after compilation): 28671 nodes per pair; 0.2–0.3 s per value
for moderate Ω, 1–2 s for rank-two Ω with eigenvalues ~1e3 (series of a few hundred terms);
compiling takes ~25 s (``benchmarks/bench_wishart_exact.py``).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import check_concrete, is_tracer
from fisherrdp._src.distributions import ncwishart_k2 as k2
from fisherrdp._src.divergences.ncx2_quadrature import log_psi_sum
from fisherrdp._src.divergences.renyi import renyi_ncx2
from fisherrdp._src.numerics.quadrature import gauss_legendre_as
from fisherrdp._src.special.hyp0f1_matrix import check_matrix

__all__ = ["renyi_ncwishart", "renyi_ncwishart_gram"]

#: L by the t-integral where ‖ΔΩ‖_F ≤ CLOSE · max ‖Ω‖_F, with T_NODES Gauss–Legendre nodes.
CLOSE = 0.05
T_NODES = 4
#: The ψ form is used where (α − 1) D < PSI_MAX.
PSI_MAX = 0.1
#: Relative error allowance where the rule and its subrule agree to rounding (the accuracy
#: floor measured on the rank-one cases, 3e-11, with a margin).
RULE_FLOOR = 1e-10


def _norm3(o):
    return jnp.sqrt(o[0] ** 2 + 2.0 * o[1] ** 2 + o[2] ** 2)


def _log_ratios(c, om_v, om_w, delta, scale, ch, close):
    """(log r_w, its error bound, L/‖ΔΩ‖, relative error allowance of L) at the nodes.

    One series call per branch: Ω_w with the t-nodes Ω_w + tΔΩ (close), or Ω_w with Ω_v.
    """
    eps = jnp.finfo(delta.dtype).eps

    def by_t(_):
        t, wt = gauss_legendre_as(T_NODES, delta.dtype)
        t = jnp.concatenate([jnp.zeros(1), t])
        omegas = om_w + t[:, None] * delta  # (1 + T, 3)
        value, slope, err = k2.log_ratio_and_derivative(
            c, omegas[:, None, :], delta / scale, ch
        )
        l_over = wt @ slope[1:]
        return value[0], err[0], l_over, jnp.max(err[1:], axis=0) + 64.0 * eps

    def direct(_):
        value, err = k2.log_ratio(c, jnp.stack([om_w, om_v])[:, None, :], ch)
        lw, lv = value[0], value[1]
        l = lv - lw
        cancel = 4.0 * eps * (jnp.abs(lv) + jnp.abs(lw)) + err[0] + err[1]
        rel = cancel / jnp.maximum(jnp.abs(l), jnp.finfo(l.dtype).tiny)
        return lw, err[0], l / scale, rel

    return jax.lax.cond(close, by_t, direct, None)


def _renyi_one(alpha, d, om_v, om_w, delta):
    """(D, error estimate) for one pair; Ω's and ΔΩ as (ω₁₁, ω₁₂, ω₂₂)."""
    dtype = alpha.dtype
    eps = jnp.finfo(dtype).eps
    det_v = om_v[0] * om_v[2] - om_v[1] ** 2
    det_w = om_w[0] * om_w[2] - om_w[1] ** 2
    tol = -64.0 * eps
    psd = (
        (om_v[0] >= 0) & (om_v[2] >= 0) & (om_w[0] >= 0) & (om_w[2] >= 0)
        & (det_v >= tol * jnp.maximum(om_v[0] * om_v[2], 1e-300))
        & (det_w >= tol * jnp.maximum(om_w[0] * om_w[2], 1e-300))
    )
    valid = (alpha > 1.0) & (d >= 2.0) & psd & jnp.all(jnp.isfinite(delta))
    alpha = jnp.where(valid, alpha, 2.0)
    d = jnp.where(valid, d, 4.0)
    safe = jnp.array([1.0, 0.0, 1.0], dtype)
    om_v = jnp.where(valid, om_v, safe)
    om_w = jnp.where(valid, om_w, safe)
    delta = jnp.where(valid, delta, 0.0)
    equal = jnp.all(delta == 0.0)
    # The ψ form needs ΔΩ ≠ 0: at Ω_v = Ω_w it runs at a slightly moved Ω_v and is discarded.
    delta = jnp.where(equal, jnp.array([1e-3, 0.0, 0.0], dtype), delta)
    om_v = jnp.where(equal, om_w + delta, om_v)
    c = 0.5 * d
    rotated, delta = k2.rotate_to_tilt(
        jnp.stack([alpha, 1.0 - alpha]), jnp.stack([om_v, om_w]), delta
    )
    om_v, om_w = rotated[0], rotated[1]
    scale = _norm3(delta)
    close = scale <= CLOSE * jnp.maximum(_norm3(om_v), _norm3(om_w))

    # The rule's placement is held constant under differentiation (the integral does not
    # depend on it; its Newton steps would be differentiated for nothing).
    win = jax.lax.stop_gradient(
        k2.window(d, jnp.stack([alpha, 1.0 - alpha]), jnp.stack([om_v, om_w]))
    )
    rule = k2.rule(win)
    ch = k2.cholesky_coordinates(d, rule.x)
    lw, err_w, l_over, l_rel = _log_ratios(c, om_v, om_w, delta, scale, ch, close)
    log_pw = ch.log_base + lw + rule.log_weight
    phi = log_pw + alpha * scale * l_over
    log_i = jax.nn.logsumexp(phi)
    coarse = jnp.where(rule.coarse, 0.0, -jnp.inf)
    log_i2 = jax.nn.logsumexp(phi + coarse) + 3.0 * math.log(2.0)
    shell = jnp.exp(jax.nn.logsumexp(jnp.where(rule.shell, phi, -jnp.inf)) - log_i)
    significant = phi > log_i - 60.0
    # Errors of log p_w + αL per node: series truncation and rounding, relative to I.
    node_err = (
        err_w * (1.0 + alpha)
        + alpha * scale * jnp.abs(l_over) * l_rel
        + 4.0 * eps * (jnp.abs(ch.log_base) + jnp.abs(lw) + alpha * scale * jnp.abs(l_over))
    )
    node_err = jnp.max(jnp.where(significant, node_err, 0.0))
    e_direct = jnp.abs(log_i - log_i2)
    err_direct = (jnp.minimum(e_direct, 4.0 * e_direct**2) + shell + node_err) / (alpha - 1.0)

    log_e, log_e2 = jax.vmap(log_psi_sum, in_axes=(None, 0, None, None, None))(
        alpha, jnp.stack([log_pw, log_pw + coarse]), l_over, scale, 1.0
    )
    use_psi = (log_i < PSI_MAX) & ~equal
    log_e = jnp.where(use_psi, log_e, -1.0)
    e = jnp.exp(log_e)
    small = jnp.exp(log_e - jnp.log(alpha - 1.0)) * (jnp.log1p(e) / e)
    e_psi = jnp.abs(jnp.where(use_psi, log_e - log_e2, 0.0))
    l_rel_max = jnp.max(jnp.where(significant, l_rel, 0.0))
    err_small = small * (
        jnp.minimum(e_psi, 4.0 * e_psi**2) + shell + 2.0 * l_rel_max + node_err
        + 64.0 * eps
    )
    value = jnp.where(use_psi, small, log_i / (alpha - 1.0))
    error = jnp.where(use_psi, err_small, err_direct) + RULE_FLOOR * jnp.abs(value)
    value = jnp.where(equal, 0.0, value)
    error = jnp.where(equal, 0.0, error)
    nan = jnp.asarray(jnp.nan, dtype)
    return jnp.where(valid, value, nan), jax.lax.stop_gradient(jnp.where(valid, error, nan))


@jax.jit
def _renyi_kernel(alpha, d, v11, v12, v22, w11, w12, w22, e11, e12, e22):
    """Elementwise over 1-D arrays (a sequential ``lax.map``, so each pair runs one branch)."""
    om_v = jnp.stack([v11, v12, v22], -1)
    om_w = jnp.stack([w11, w12, w22], -1)
    delta = jnp.stack([e11, e12, e22], -1)
    shape = alpha.shape
    flat = (alpha.reshape(-1), d.reshape(-1), om_v.reshape(-1, 3), om_w.reshape(-1, 3),
            delta.reshape(-1, 3))
    value, error = jax.lax.map(lambda args: _renyi_one(*args), flat)
    return value.reshape(shape), error.reshape(shape)


def _check_alpha_d(alpha, d) -> None:
    check_concrete("alpha", alpha, lower=1.0, lower_inclusive=False)
    check_concrete("d", d, lower=2.0)


def _sym_parts(m):
    return m[..., 0, 0], 0.5 * (m[..., 0, 1] + m[..., 1, 0]), m[..., 1, 1]


def _run(alpha, d, om_v, om_w, delta, return_error):
    arrays = as_float_arrays(alpha, d, *_sym_parts(om_v), *_sym_parts(om_w), *_sym_parts(delta))
    if any(is_tracer(a) for a in arrays):
        shape = jnp.broadcast_shapes(*(jnp.shape(a) for a in arrays))
        value, error = _renyi_kernel(*(jnp.broadcast_to(a, shape) for a in arrays))
    else:
        value, error = map_bucketed(_renyi_kernel, *arrays, cap=1)
    return (value, error) if return_error else value


def _check_gram(name: str, value) -> jax.Array:
    a = jnp.asarray(value)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"argument {name!r} must be a square matrix (..., k, k), got {a.shape}")
    if not is_tracer(value):
        try:
            check_matrix(value)
        except ValueError as err:
            raise ValueError(str(err).replace("'X'", repr(name))) from None
    return a


def renyi_ncwishart_gram(
    alpha: ArrayLike,
    d: ArrayLike,
    omega_v: ArrayLike,
    omega_w: ArrayLike,
    *,
    return_error: bool = False,
):
    r"""Exact Rényi divergence between W₂(d, I, Ω_v) and W₂(d, I, Ω_w) (k = 2, by cubature).

    .. math::

        D_\alpha\bigl(\mathcal W_2(d, I, \Omega_v)\,\big\|\,\mathcal W_2(d, I, \Omega_w)\bigr)
        = \frac{1}{\alpha-1}\log\int p_{\Omega_v}(Y)^\alpha\, p_{\Omega_w}(Y)^{1-\alpha}\,dY,

    the law of VᵀV for V = v + N ∈ R^{d×2}, Ω = vᵀv: the infinite-release loss of the paper's
    Section 4 (bounded by Theorem 5.4, :func:`fisherrdp.bounds.theorem54_bound`; ``docs/math/wishart_k2.md#renyi-divergence-of-two-wishart-laws``
    "k = 2 exact"). Not a Monte Carlo estimate (compare :func:`renyi_ncwishart_mc`): a 3-D
    cubature centred at the tilted peak, relative error below 1e-8 for d ∈ [2, 1000],
    α ∈ (1, 64], ‖Ω‖ up to ~1e3, singular Ω included, and for tiny divergences (Ω_v ≈ Ω_w);
    for rank-one pairs also up to d = 1e4 and α = 256 (rank two there: not measured);
    exactly 0 where Ω_v = Ω_w. Method: :mod:`fisherrdp._src.divergences.renyi_wishart`.
    Elementwise with broadcasting over the leading axes; works under ``jit`` and ``vmap``.
    Differentiable in ``alpha``, ``d``, ``omega_v`` and ``omega_w`` in forward and reverse mode
    (``jax.jacfwd``, ``jax.grad``; the error estimate is not differentiated).

    Args:
      alpha: Rényi order, ``alpha > 1``.
      d: degrees of freedom, real, ``d >= 2``.
      omega_v: Ω_v, symmetric PSD ``(..., 2, 2)`` (a ``(..., 1, 1)`` pair is the k = 1
        :func:`renyi_ncx2` of the square roots).
      omega_w: Ω_w, same shape rules.
      return_error: also return an estimate of the absolute error of D.

    Returns:
      D of the broadcast batch shape (and its error estimate).

    Raises:
      ValueError: if concrete ``alpha <= 1`` or ``d < 2``; if Ω is not square, not symmetric
        PSD, or the two have different k; if k >= 3 (use :func:`renyi_ncwishart_mc`). Inside
        ``jit`` invalid entries give NaN.

    Examples:
      >>> import numpy as np
      >>> from fisherrdp.divergences import renyi_ncwishart_gram
      >>> om_v, om_w = np.diag([4.0, 0.25]), np.diag([2.25, 0.25])
      >>> round(float(renyi_ncwishart_gram(2.0, 10.0, om_v, om_w)), 10)  # ``docs/math/wishart_k2.md#spot-values``
      0.1021935362
    """
    om_v = _check_gram("omega_v", omega_v)
    om_w = _check_gram("omega_w", omega_w)
    k = om_v.shape[-1]
    if om_w.shape[-1] != k:
        raise ValueError(
            f"arguments 'omega_v' and 'omega_w' must be k x k alike, got {om_v.shape} and "
            f"{om_w.shape}"
        )
    if k >= 3:
        raise ValueError(
            f"renyi_ncwishart_gram is exact for k <= 2, got k = {k}: use renyi_ncwishart_mc"
        )
    _check_alpha_d(alpha, d)
    if k == 1:
        a = jnp.sqrt(jnp.maximum(om_v[..., 0, 0], 0.0))
        b = jnp.sqrt(jnp.maximum(om_w[..., 0, 0], 0.0))
        return _k1(alpha, d, a, b, return_error)
    return _run(alpha, d, om_v, om_w, om_v - om_w, return_error)


def _k1(alpha, d, a, b, return_error):
    value = renyi_ncx2(alpha, d, a, b)
    # renyi_ncx2 is accurate to 1e-9 relative (its documented bound).
    return (value, 1e-9 * jnp.abs(value)) if return_error else value


def renyi_ncwishart(
    alpha: ArrayLike, d: ArrayLike, v: ArrayLike, w: ArrayLike, *, return_error: bool = False
):
    r"""Exact Rényi divergence between the laws of VᵀV and WᵀW, V = v + N, W = w + N (k ≤ 2).

    .. math::

        D_\alpha\bigl(\operatorname{law} V^\top V \,\big\|\, \operatorname{law} W^\top W\bigr)
        = D_\alpha\bigl(\mathcal W_k(d, I, v^\top v)\,\big\|\,\mathcal W_k(d, I, w^\top w)\bigr),

    the infinite-release loss of the paper's Section 4 (Theorem 5.4 bounds it). k = 1 is
    :func:`renyi_ncx2` ``(alpha, d, ‖v‖, ‖w‖)``; k = 2 is :func:`renyi_ncwishart_gram` with
    Ω = vᵀv and Ω_v − Ω_w formed from v − w without cancellation (relative accuracy kept as
    v → w). For k ≥ 3 use the Monte Carlo :func:`renyi_ncwishart_mc`. Differentiable in
    ``alpha``, ``d``, ``v`` and ``w`` in forward and reverse mode (``jax.jacfwd``, ``jax.grad``).

    Args:
      alpha: Rényi order, ``alpha > 1``.
      d: degrees of freedom (rows of V), real, ``d >= 2`` (k = 1: ``d >= 1``).
      v: mean of V, ``(..., r, k)`` with ``r <= d`` rows (missing rows are zero).
      w: mean of W, ``(..., r', k)``; leading axes broadcast with ``v``, ``alpha``, ``d``.
      return_error: also return an estimate of the absolute error.

    Returns:
      D of the broadcast batch shape (and its error estimate).

    Raises:
      ValueError: for ``alpha <= 1``, ``d`` out of range or below the number of rows, ``v``
        and ``w`` not ``(..., r, k)`` alike in k, non-finite entries, or k >= 3 (names
        :func:`renyi_ncwishart_mc`).

    Examples:
      >>> import numpy as np
      >>> from fisherrdp.divergences import renyi_ncwishart, renyi_ncx2
      >>> v, w = np.array([[2.0, 0.0]]), np.array([[1.5, 0.0]])  # rank one: the k = 1 value
      >>> bool(np.isclose(renyi_ncwishart(2.0, 10.0, v, w), renyi_ncx2(2.0, 10.0, 2.0, 1.5),
      ...                 rtol=1e-9))
      True
    """
    va, wa = jnp.asarray(v), jnp.asarray(w)
    for name, a in (("v", va), ("w", wa)):
        if a.ndim < 2 or a.shape[-1] < 1 or a.shape[-2] < 1:
            raise ValueError(f"argument {name!r} must have shape (..., r, k), got {a.shape}")
        check_concrete(name, a, allow_nan=False)
        if not is_tracer(a) and not np.all(np.isfinite(np.asarray(a))):
            raise ValueError(f"argument {name!r} must be finite")
    k = va.shape[-1]
    if wa.shape[-1] != k:
        raise ValueError(f"arguments 'v' and 'w' must have the same k, got {va.shape}, {wa.shape}")
    if k >= 3:
        raise ValueError(
            f"renyi_ncwishart is exact for k <= 2, got k = {k}: use renyi_ncwishart_mc"
        )
    r = max(va.shape[-2], wa.shape[-2])
    check_concrete("d", d, lower=max(r, 1 if k == 1 else 2))
    check_concrete("alpha", alpha, lower=1.0, lower_inclusive=False)
    pad = lambda a: jnp.pad(a, [(0, 0)] * (a.ndim - 2) + [(0, r - a.shape[-2]), (0, 0)])
    va, wa = pad(va), pad(wa)
    if k == 1:
        a = jnp.sqrt(jnp.sum(va[..., 0] ** 2, axis=-1))
        b = jnp.sqrt(jnp.sum(wa[..., 0] ** 2, axis=-1))
        return _k1(alpha, d, a, b, return_error)
    t = lambda a: jnp.swapaxes(a, -1, -2)
    om_v, om_w = t(va) @ va, t(wa) @ wa
    diff, total = va - wa, va + wa
    delta = 0.5 * (t(diff) @ total + t(total) @ diff)
    return _run(alpha, d, om_v, om_w, delta, return_error)

r"""Exact Fisher information along the k = 2 non-central Wishart path, and the exact path bound.

Along the paper's path (Section 5, Theorems 5.3/5.4; ``docs/math/wishart_k2.md#exact-fisher-information-along-the-path``)
:math:`\mu(\theta) = (1-\theta)v + \theta Uw`, U the Procrustes rotation (``align=True``, as in
:func:`fisherrdp.fisher.wishart_path_fisher`), :math:`P_\theta = \mathcal W_2(d, I,
\Omega(\theta))`, :math:`\Omega = \mu^\top\mu`, the score is
:math:`s(Y;\theta) = \partial_\theta \log r_{\Omega(\theta)}(Y)` (the central density does not
depend on θ) and

.. math::

    I(\theta) = \mathbb E_{Y\sim P_\theta}\bigl[s^2\bigr]
    = \frac{\int p_0\, r_{\Omega(\theta)}\, s^2}{\int p_0\, r_{\Omega(\theta)}},

computed by the cubature of :mod:`fisherrdp._src.distributions.ncwishart_k2` centred at the peak
of :math:`p_\theta` (trapezoidal rule in whitened Bartlett coordinates; the score from the
derivatives of the k = 2 ₀F₁ series in its invariants, :math:`\dot\Omega = \dot\mu^\top\mu +
\mu^\top\dot\mu`). Dividing by the rule's own integral of :math:`p_\theta` removes its
normalisation error. The error estimate is :math:`4e^2` with e the relative difference from the
subrule of twice the step (as for :func:`fisherrdp.divergences.renyi_ncwishart_gram`), plus the
outer-shell mass, the series bound and rounding. k = 1 is the exact
:func:`fisherrdp.fisher.ncx2_amplitude_fisher`: :math:`I(\theta) = \dot\rho^2 I(d, \rho)`,
:math:`\rho = \|\mu(\theta)\|`, :math:`\dot\rho = \langle\mu, \dot\mu\rangle/\rho`.

The path bound (Prop. 3.2, :func:`wishart_path_bound_exact`) integrates
:math:`\sqrt{I(\theta)}\,e^{\kappa\theta^2}`, :math:`\kappa = (\alpha-1)(2\alpha-1)
\|Uw - v\|_F^2/2`, by Gauss–Legendre on panels graded towards θ = 1 as
:func:`fisherrdp.bounds.path_bound_ncx2` does (edges 1 − 2^{−j}, as many panels as the layer
width 1/(2κ) needs, at most ``MAX_PANELS``), the error from a rule with two nodes fewer per
panel plus the Fisher information's own error estimates.

**Accuracy measured** (``tests/test_renyi_wishart.py``): rank-one paths against the k = 1
Fisher information: 1.7e-11 relative; rank-two points against the independent eigen-coordinate
integration (``tests/fixtures/renyi_wishart_exact.json``); the Monte Carlo
:func:`fisherrdp.fisher.wishart_path_fisher` agrees within 4 standard errors. **Cost**: as one
Rényi value (~0.1–0.3 s per θ after a ~15 s compilation); the path bound evaluates I at
2 × ``n_theta`` × panels nodes (4–7 s for moderate α‖Uw − v‖²).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike
from scipy.special import logsumexp

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import check_concrete
from fisherrdp._src.distributions import ncwishart_k2 as k2
from fisherrdp._src.fisher.ncx2 import ncx2_amplitude_fisher
from fisherrdp._src.fisher.wishart import check_pair, concrete_values
from fisherrdp._src.numerics.quadrature import composite_gauss_legendre, graded_edges

__all__ = ["wishart_path_bound_exact", "wishart_path_fisher_exact"]

#: Most panels of the graded θ rule of the path bound.
MAX_PANELS = 20


def _fisher_one(d, omega, omega_dot):
    """(I, error estimate) for one law W₂(d, I, Ω) and score direction Ω̇ ((ω₁₁, ω₁₂, ω₂₂))."""
    dtype = omega.dtype
    eps = jnp.finfo(dtype).eps
    c = 0.5 * d
    rotated, omega_dot = k2.rotate_to_tilt(jnp.ones(1, dtype), omega[None], omega_dot)
    omega = rotated[0]
    win = k2.window(d, jnp.ones(1, dtype), omega[None])
    rule = k2.rule(win)
    ch = k2.cholesky_coordinates(d, rule.x)
    log_r, score, err = k2.log_ratio_and_derivative(c, omega, omega_dot, ch)
    log_p = ch.log_base + log_r + rule.log_weight
    shift = jax.lax.stop_gradient(jnp.max(log_p))
    p = jnp.exp(log_p - shift)
    sq = score * score
    coarse = rule.coarse.astype(dtype)
    fine = jnp.sum(p * sq) / jnp.sum(p)
    rough = jnp.sum(coarse * p * sq) / jnp.sum(coarse * p)
    e = jnp.abs(fine - rough) / jnp.maximum(fine, jnp.finfo(dtype).tiny)
    shell = jnp.sum(jnp.where(rule.shell, p * (1.0 + sq / jnp.maximum(fine, 1e-300)), 0.0))
    shell = shell / jnp.sum(p)
    significant = log_p > jnp.max(log_p) - 60.0
    node = jnp.max(jnp.where(significant, err + 4.0 * eps * jnp.abs(log_r), 0.0))
    rel = jnp.minimum(e, 4.0 * e * e) + shell + 4.0 * node + 64.0 * eps
    return fine, fine * rel


@jax.jit
def _fisher_kernel(d, o11, o12, o22, p11, p12, p22):
    shape = d.shape
    flat = (
        d.reshape(-1),
        jnp.stack([o11, o12, o22], -1).reshape(-1, 3),
        jnp.stack([p11, p12, p22], -1).reshape(-1, 3),
    )
    value, error = jax.lax.map(lambda args: _fisher_one(*args), flat)
    return value.reshape(shape), error.reshape(shape)


def _reduced_path(v: np.ndarray, w: np.ndarray, align: bool):
    """(v', (Uw)') in R^{m×k}, m ≤ 2k, with the Gram matrices of (1 − θ)v + θUw for every θ.

    align: v = Q R_v (thin QR), w = Q_w R_w, and U acts as Q a bᵀ Q_wᵀ with R_v R_wᵀ = a s bᵀ
    (the SVD of the k × k core of v wᵀ): the same Procrustes maximiser of tr(vᵀUw) as
    ``procrustes`` of :mod:`fisherrdp._src.fisher.wishart` (where v or w has full column
    rank the Gram matrices agree; otherwise the minimiser is not unique), without its d × d
    SVD. Otherwise one QR of [v, w].
    """
    k = v.shape[1]
    if align:
        _, r_v = np.linalg.qr(v)
        _, r_w = np.linalg.qr(w)
        a, _, bt = np.linalg.svd(r_v @ r_w.T)
        return r_v, a @ (bt @ r_w)
    _, r = np.linalg.qr(np.concatenate([v, w], axis=1))
    return r[:, :k], r[:, k:]


def _fisher_at(d: int, v: np.ndarray, uw: np.ndarray, theta: np.ndarray):
    """(I, error) at the concrete θ values (any shape) along μ = (1 − θ)v + θ uw, d rows."""
    k = v.shape[1]
    mu_dot = uw - v
    mu = (1.0 - theta[..., None, None]) * v + theta[..., None, None] * uw
    if k == 1:
        rho = np.sqrt(np.sum(mu[..., 0] ** 2, axis=-1))
        rho_dot = np.sum(mu[..., 0] * mu_dot[:, 0], axis=-1) / np.where(rho > 0, rho, 1.0)
        fisher, error = ncx2_amplitude_fisher(float(d), rho, return_error=True)
        scale = np.where(rho > 0, rho_dot**2, 0.0)
        return jnp.asarray(scale) * fisher, jnp.asarray(scale) * error
    omega = np.swapaxes(mu, -1, -2) @ mu
    omega_dot = np.swapaxes(mu, -1, -2) @ mu_dot
    omega_dot = omega_dot + np.swapaxes(omega_dot, -1, -2)
    parts = [omega[..., 0, 0], omega[..., 0, 1], omega[..., 1, 1]]
    parts += [omega_dot[..., 0, 0], omega_dot[..., 0, 1], omega_dot[..., 1, 1]]
    arrays = as_float_arrays(np.full(theta.shape, float(d)), *parts)
    return map_bucketed(_fisher_kernel, *arrays, cap=1)


def _check_k(v: np.ndarray, name: str) -> None:
    if v.shape[1] > 2:
        raise ValueError(
            f"{name} is exact for k <= 2, got k = {v.shape[1]}: use "
            "wishart_path_fisher (Monte Carlo)"
        )


def wishart_path_fisher_exact(
    v: ArrayLike, w: ArrayLike, theta: ArrayLike, *, align: bool = True,
    return_error: bool = False,
):
    r"""Exact Fisher information along the Wishart path of Theorem 5.3 (k ≤ 2), by cubature.

    .. math::

        I(\theta) = \mathbb E_{Y \sim P_\theta}\bigl[(\partial_\theta \log p_\theta(Y))^2\bigr],
        \qquad P_\theta = \mathcal W_k\bigl(d, I_k, \mu(\theta)^\top\mu(\theta)\bigr),
        \quad \mu(\theta) = (1-\theta)v + \theta Uw,

    the quantity that :func:`wishart_path_fisher` estimates by Monte Carlo and Theorem 5.3
    bounds (paper Section 5; ``docs/math/wishart_k2.md#exact-fisher-information-along-the-path``), with the same path, Procrustes ``U`` and ``align``.
    k = 2: a 3-D cubature (method: :mod:`fisherrdp._src.fisher.wishart_exact`), relative error
    below 1e-8; k = 1: :math:`\dot\rho^2 I(d, \rho)`, :math:`\rho = \|\mu(\theta)\|`, from
    :func:`ncx2_amplitude_fisher`.

    Args:
      v: start of the path, ``(d, k)``, ``d >= k``, k ∈ {1, 2}.
      w: end of the path (before rotation), shape of ``v``.
      theta: path parameters (concrete, any shape; the path is θ ∈ [0, 1]).
      align: rotate ``w`` by the Procrustes ``U`` (else ``U = I``).
      return_error: also return an estimate of the absolute error.

    Returns:
      I(θ) shaped like ``theta`` (and its error estimate).

    Raises:
      ValueError: if ``v`` is not ``(d, k)`` with ``d >= k >= 1``, ``w`` has another shape,
        k >= 3 (use :func:`wishart_path_fisher`), or ``theta`` is not concrete and finite;
        k = 2 needs ``d >= 2``.

    Examples:
      >>> import numpy as np
      >>> from fisherrdp.fisher import ncx2_amplitude_fisher, wishart_path_fisher_exact
      >>> v, w = np.array([[2.0, 0.0], [0.0, 0.0]]), np.array([[1.5, 0.0], [0.0, 0.0]])
      >>> got = wishart_path_fisher_exact(v, w, 0.5)  # rank one: (a − b)² I(d, 1.75)
      >>> bool(np.isclose(got, 0.25 * ncx2_amplitude_fisher(2.0, 1.75), rtol=1e-9))
      True
    """
    v, w = check_pair(v, w)
    _check_k(v, "wishart_path_fisher_exact")
    theta = concrete_values("theta", theta, "the path reduction runs in NumPy")
    fisher, error = _fisher_at(v.shape[0], *_reduced_path(v, w, align), theta)
    fisher, error = jnp.reshape(fisher, theta.shape), jnp.reshape(error, theta.shape)
    return (fisher, error) if return_error else fisher


def wishart_path_bound_exact(
    v: ArrayLike, w: ArrayLike, alpha: ArrayLike, *, n_theta: int = 6, align: bool = True,
    return_error: bool = False,
):
    r"""Prop. 3.2 path bound along the Wishart path with the exact Fisher information (k ≤ 2).

    .. math::

        D_\alpha\bigl(\operatorname{law} W^\top W \,\big\|\, \operatorname{law} V^\top V\bigr)
        \le \frac{1}{\alpha-1}\log(1 + \alpha J),\qquad
        J = \int_0^1 \sqrt{I(\theta)}\;e^{(\alpha-1)(2\alpha-1)\theta^2\|Uw - v\|_F^2/2}\,d\theta,

    the Fisher criterion (Proposition 3.2 with the post-processing envelope) along
    :math:`\mu(\theta) = (1-\theta)v + \theta Uw`, with :math:`I(\theta)` from
    :func:`wishart_path_fisher_exact` (the k = 2 analogue of
    :func:`fisherrdp.bounds.path_bound_ncx2`; Theorem 5.4 replaces :math:`\sqrt I` by the
    Theorem 5.3 bound, :func:`wishart_path_fisher_integral` by a Monte Carlo estimate).
    Quadrature: ``n_theta`` Gauss–Legendre nodes on each of the panels graded towards θ = 1
    (method: :mod:`fisherrdp._src.fisher.wishart_exact`).

    Args:
      v: start of the path ``(d, k)``, k ∈ {1, 2}.
      w: end of the path ``(d, k)``.
      alpha: Rényi order(s) ``> 1`` (any shape; the Fisher values are shared).
      n_theta: Gauss–Legendre nodes per panel, an integer ``>= 4``.
      align: as in :func:`wishart_path_fisher_exact`.
      return_error: also return an estimate of the absolute error of the bound.

    Returns:
      The bound shaped like ``alpha`` (and its error estimate).

    Raises:
      ValueError: for bad ``v``, ``w`` (see :func:`wishart_path_fisher_exact`),
        ``alpha <= 1`` or not concrete (traced under ``jit`` or a derivative: the path
        reduction runs in NumPy, so the bound is not differentiable), or ``n_theta`` not an
        integer ``>= 4``.

    Examples:
      >>> import numpy as np
      >>> from fisherrdp.bounds import path_bound_ncx2
      >>> from fisherrdp.fisher import wishart_path_bound_exact
      >>> v, w = np.array([[1.0], [0.0]]), np.array([[0.5], [0.0]])  # k = 1
      >>> bool(np.isclose(wishart_path_bound_exact(v, w, 2.0), path_bound_ncx2(2.0, 2, 0.5, 1.0),
      ...                 rtol=1e-8))
      True
    """
    alpha = concrete_values("alpha", alpha, "the path reduction runs in NumPy")
    check_concrete("alpha", alpha, lower=1.0, lower_inclusive=False)
    check_concrete("n_theta", n_theta, lower=4, integer=True)
    if np.ndim(n_theta) != 0:
        raise ValueError(f"argument 'n_theta' must be an integer >= 4, got {n_theta!r}")
    v, w = check_pair(v, w)
    _check_k(v, "wishart_path_bound_exact")
    v_red, uw_red = _reduced_path(v, w, align)
    length_sq = float(np.sum((uw_red - v_red) ** 2))
    kappa_max = 0.5 * (np.max(alpha) - 1.0) * (2.0 * np.max(alpha) - 1.0) * length_sq
    panels = int(np.clip(math.ceil(math.log2(max(2.0 * kappa_max, 1.0))) + 1, 1, MAX_PANELS))
    n = int(n_theta)
    edges = graded_edges(panels)
    theta_f, wt_f = composite_gauss_legendre(n, edges)
    theta_c, wt_c = composite_gauss_legendre(n - 2, edges)
    theta = np.concatenate([theta_f, theta_c])
    fisher, fisher_err = _fisher_at(v.shape[0], v_red, uw_red, theta)
    fisher, fisher_err = np.asarray(fisher), np.asarray(fisher_err)
    root = np.sqrt(np.maximum(fisher, 0.0))
    # |δ√I| ≤ δI/(2√I): the Fisher errors carried into J.
    root_err = fisher_err / (2.0 * np.maximum(root, np.finfo(float).tiny))
    nf = len(theta_f)
    kappa = 0.5 * (alpha[..., None] - 1.0) * (2.0 * alpha[..., None] - 1.0) * length_sq

    def log_j(theta, wts, values):
        with np.errstate(divide="ignore"):
            return logsumexp(np.log(wts) + np.log(values) + kappa * theta**2, axis=-1)

    log_fine = log_j(theta_f, wt_f, root[:nf])
    log_coarse = log_j(theta_c, wt_c, root[nf:])
    log_root_err = log_j(theta_f, wt_f, root_err[:nf] + 0.0)
    log_alpha = np.log(alpha)
    bound = np.logaddexp(0.0, log_alpha + log_fine) / (alpha - 1.0)
    if not return_error:
        return jnp.asarray(bound)
    # dB/d log J = αJ/((1 + αJ)(α − 1)).
    share = 1.0 / (1.0 + np.exp(-(log_alpha + log_fine)))
    rel_j = np.abs(np.expm1(log_coarse - log_fine)) + np.exp(log_root_err - log_fine)
    return jnp.asarray(bound), jnp.asarray(share * rel_j / (alpha - 1.0))


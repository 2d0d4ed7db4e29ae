r"""Fisher information along the straight non-central Wishart path, by Monte Carlo.

For :math:`v, w \in \mathbb R^{d\times k}` the paper's path (Section 5, Theorems 5.3 and 5.4;
``docs/math/fisher.md#paths-of-wishart-laws``) is

.. math::

    \mu(\theta) = (1-\theta)\,v + \theta\,Uw, \qquad
    P_\theta = \mathcal W_k\bigl(d, I_k, \mu(\theta)^\top\mu(\theta)\bigr)
    = \operatorname{law}(V_\theta^\top V_\theta),\quad V_\theta = \mu(\theta) + N,

with :math:`U \in O(d)` the orthogonal Procrustes rotation minimising :math:`\|Uw - v\|_F`
(``align=True``; :math:`U = I` otherwise). :func:`wishart_path_fisher` estimates

.. math::

    I(\theta) = \mathbb E_{Y\sim P_\theta}\bigl[s(Y;\theta)^2\bigr],\qquad
    s(Y;\theta) = \partial_\theta \log p_\theta(Y),

and :func:`wishart_path_fisher_integral` the integral of the Fisher criterion (Prop. 3.2)
along the path, :math:`J = \int_0^1 \sqrt{I(\theta)}\,
e^{(\alpha-1)(2\alpha-1)\theta^2\|Uw-v\|_F^2/2}\,d\theta`, and the path bound
:math:`\log(1 + \alpha J)/(\alpha - 1)`.

**Score.** :math:`\log p_\theta(Y)` is :func:`fisherrdp.stats.ncwishart.logpdf` with
:math:`\Omega = \mu(\theta)^\top\mu(\theta)`; only two of its terms depend on :math:`\theta`,

.. math::

    s(Y;\theta) = \partial_\theta\Bigl[-\tfrac12\operatorname{tr}\Omega(\theta)
    + \log{}_0F_1\bigl(\tfrac d2; \tfrac14 L^\top\Omega(\theta) L\bigr)\Bigr],
    \qquad Y = LL^\top,

and the score is this expression differentiated exactly by forward-mode automatic
differentiation (``jax.jvp``, one tangent for the scalar :math:`\theta`) through the
``custom_jvp`` of the matrix ₀F₁ (:mod:`fisherrdp._src.special.hyp0f1_matrix`, accuracy
≤ 1e-13 relative for k = 2). The logpdf is written out here, not called, for one reason: the
series truncation. Under a JAX transformation ``logpdf`` uses the maximal truncation (256 terms
for k = 2), 16× the cost of the 16 terms the samples typically need; here the truncation is
chosen from the concrete samples (the eigenvalues of ¼ LᵀΩL; k = 2: only the samples on the
Pareto front of larger λ₁λ₂ / smaller λ₁ + λ₂, which need the most terms), and the series' own
error bound (truncation tail plus rounding) is then checked on every sample: at most
``TRUNCATION_TOL`` = 1e-10, otherwise the maximal truncation is used. For k = 1 the scalar
log ₀F₁ enters with its exact derivative ∂_s log ₀F₁(c; s) = ₀F₁(c+1; s)/(c ₀F₁(c; s)). A slow
test checks that the k = 2 score equals ``jax.jvp`` of ``ncwishart.logpdf`` to 1e-12; k ≥ 3
runs the Koev–Edelman recursion (measured: 33 s, mostly compilation, for one θ with 500
samples at k = 3, d = 9; estimate 0.034 ± 0.002 against the Theorem 5.3 bound 0.21).

**Monte Carlo.** For each θ, ``n_samples`` draws :math:`Y_i \sim P_\theta`
(:func:`fisherrdp.stats.ncwishart.sample`, a fresh key per θ from ``jax.random.split``),
:math:`\hat I = \overline{s^2}` and its standard error
:math:`\operatorname{sd}(s^2)/\sqrt n`. The estimate is unbiased; the error is statistical
only (the score is exact to rounding).

**Accuracy measured** (``tests/test_wishart_fisher.py``): for k = 1 the estimate agrees with
:func:`fisherrdp.fisher.ncx2_amplitude_fisher` :math:`(d, \rho)\,\dot\rho^2`,
:math:`\rho = \|\mu(\theta)\|`, within 4 standard errors; for k = 2 with a rank-one path
(second columns zero) the same identity holds exactly (:math:`\|V_{\cdot 1}\|^2` is sufficient)
and is checked the same way (4000 samples, θ ∈ {0.1, 0.5, 0.9}: |z| ≤ 1.8 over 9 values, relative
standard errors 1–3%); for a generic k = 2 path the estimate lies below the Theorem 5.3 bound
(:func:`fisherrdp.bounds.theorem53_fisher_bound`, re-derived variant) — measured at 29–43% of it
(d = 10) and 31% (d = 50, the benchmark case). The path integral agrees with the same
Gauss–Legendre sum of the exact k = 1 Fisher information within 1.2 standard errors; its
``quadrature_error`` heuristic is very conservative (k = 1, 4 nodes: 8e-3 and 2e-3 reported
where the Gauss–Legendre error is 9e-9 and 3e-13).

**Cost** (``benchmarks/bench_wishart.py``): k = 2, d = 50, 10⁵ samples per θ: about
1.5 s per θ value on two shared CPU cores after a ~10 s compilation (one compilation per
(d, k, n_samples)).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.core.validation import check_concrete, require_concrete
from fisherrdp._src.distributions.ncwishart import sample as _ncwishart_sample
from fisherrdp._src.numerics.linalg import procrustes
from fisherrdp._src.numerics.quadrature import gauss_legendre, legendre_coefficients
from fisherrdp._src.special.hyp0f1_matrix import (
    K2_MAX_TERMS,
    largest_partition_size,
    log_0f1_cheap_jvp,
    series_truncation,
)
from fisherrdp._src.special.hyp0f1_matrix import log_hyp0f1_sym as _log_0f1_sym

__all__ = ["PathIntegral", "wishart_path_fisher", "wishart_path_fisher_integral"]

#: Largest accepted error bound of log ₀F₁ (truncation + rounding) on any sample; above it the
#: maximal truncation is used instead.
TRUNCATION_TOL = 1e-10
#: Normal quantile of the reported two-sided 95% intervals.
Z95 = 1.959963984540054


class PathIntegral(NamedTuple):
    """Monte Carlo estimate of the Prop. 3.2 integral along the Wishart path.

    Attributes:
      integral: :math:`\\hat J`, the Gauss–Legendre sum of the estimated integrand.
      stderr: Monte Carlo standard error of :math:`\\hat J` (delta method, independent nodes).
      quadrature_error: size of the two highest Legendre coefficients of the interpolant of
        the integrand at the nodes (a heuristic, conservative for a smooth integrand; it also
        carries Monte Carlo noise).
      bound: :math:`\\log(1 + \\alpha\\hat J)/(\\alpha - 1)`.
      bound_high: the same at :math:`\\hat J + 1.96\\,\\mathrm{stderr} + \\mathrm{quadrature\\_error}`.
      fisher: the Fisher estimates at the nodes.
      fisher_stderr: their standard errors.
      theta: the nodes.
    """

    integral: jax.Array
    stderr: jax.Array
    quadrature_error: jax.Array
    bound: jax.Array
    bound_high: jax.Array
    fisher: jax.Array
    fisher_stderr: jax.Array
    theta: jax.Array


def check_pair(v, w) -> tuple[np.ndarray, np.ndarray]:
    require_concrete("they set shapes", v=v, w=w)
    v, w = np.asarray(v, np.float64), np.asarray(w, np.float64)
    if v.ndim != 2 or v.shape[0] < v.shape[1] or v.shape[1] < 1:
        raise ValueError(f"argument 'v' must have shape (d, k) with d >= k >= 1, got {v.shape}")
    if w.shape != v.shape:
        raise ValueError(f"argument 'w' must have the shape of 'v' {v.shape}, got {w.shape}")
    check_concrete("v", v, allow_nan=False)
    check_concrete("w", w, allow_nan=False)
    if not (np.all(np.isfinite(v)) and np.all(np.isfinite(w))):
        raise ValueError("arguments 'v' and 'w' must be finite")
    return v, w


def concrete_values(name: str, value, why: str) -> np.ndarray:
    """Concrete, finite values of argument ``name`` as a float64 array; a traced value (under
    ``jit`` or a derivative) raises a ValueError naming it and ``why`` it must be concrete."""
    require_concrete(why, **{name: value})
    value = np.asarray(value, np.float64)
    check_concrete(name, value, allow_nan=False)
    if not np.all(np.isfinite(value)):
        raise ValueError(f"argument {name!r} must be finite")
    return value


def _check_n_samples(n_samples) -> int:
    check_concrete("n_samples", n_samples, lower=2, integer=True)
    if np.ndim(n_samples) != 0:
        raise ValueError(f"argument 'n_samples' must be an integer >= 2, got {n_samples!r}")
    return int(n_samples)


def _eigenvalues(y, omega):
    """Eigenvalues of ¼ LᵀΩL, Y = LLᵀ (the argument of ₀F₁ in the density)."""
    chol = jnp.linalg.cholesky(0.5 * (y + jnp.swapaxes(y, -1, -2)))
    a = 0.25 * jnp.swapaxes(chol, -1, -2) @ omega @ chol
    return jnp.linalg.eigvalsh(0.5 * (a + jnp.swapaxes(a, -1, -2)))


@functools.partial(jax.jit, static_argnums=(4, 5))
def _draw(key, v, uw, theta, df: int, n_samples: int):
    """Y_i ~ P_θ (n_samples, k, k) and the eigenvalues of ¼ LᵀΩL (for the truncation)."""
    mu = (1.0 - theta) * v + theta * uw
    y = _ncwishart_sample(key, df, mu, shape=(n_samples,))
    return y, _eigenvalues(y, mu.T @ mu)


def _choose_truncation(df: float, eigs: np.ndarray) -> int:
    k = eigs.shape[-1]
    eigs = np.maximum(np.asarray(eigs, np.float64).reshape(-1, k), 0.0)
    if k == 1:
        return 0
    if k == 2:
        # The estimated terms grow with x₁x₂ and decay faster for larger x₁ + x₂: only rows not
        # dominated in (larger product, smaller sum) can need the most terms.
        prod, total = eigs[:, 0] * eigs[:, 1], eigs.sum(axis=1)
        order = np.argsort(total, kind="stable")
        running = np.maximum.accumulate(prod[order])
        front = np.concatenate([[True], running[1:] > running[:-1]])
        eigs = eigs[order[front]]
    return series_truncation(np.full(len(eigs), 0.5 * df), eigs, k, np.float64)


def _scores(y, v, uw, theta, df, n_terms: int):
    """Exact scores ∂_θ log p_θ(Y_i) for a batch Y (n, k, k), and the largest ₀F₁ error bound."""
    k = y.shape[-1]
    chol = jnp.linalg.cholesky(0.5 * (y + jnp.swapaxes(y, -1, -2)))
    b = jnp.full(y.shape[:-2], 0.5 * df, y.dtype)

    def theta_part(t):
        mu = (1.0 - t) * v + t * uw
        omega = mu.T @ mu
        a = 0.25 * jnp.swapaxes(chol, -1, -2) @ omega @ chol
        if k == 1:  # scalar ₀F₁, whose s-derivative is a ratio of values (cheap to compile)
            value = log_0f1_cheap_jvp(b, a[..., 0, 0])
            error = jnp.zeros(())
        else:
            a = 0.5 * (a + jnp.swapaxes(a, -1, -2))
            value, error = _log_0f1_sym(b, a, n_terms)
        return -0.5 * jnp.trace(omega) + value, error

    (_, error), (score, _) = jax.jvp(theta_part, (theta,), (jnp.ones_like(theta),))
    return score, jnp.max(error)


@functools.partial(jax.jit, static_argnums=(5,))
def _fisher_stats(y, v, uw, theta, df, n_terms: int):
    """(Î, stderr, largest truncation error bound) from the samples Y."""
    score, error = _scores(y, v, uw, theta, df, n_terms)
    sq = score * score
    return jnp.mean(sq), jnp.std(sq, ddof=1) / math.sqrt(sq.shape[0]), error


def _fisher_at(key, v, uw, theta: float, n_samples: int):
    """(Î, stderr) at one θ (Python float)."""
    d, k = v.shape
    v, uw, theta = jnp.asarray(v), jnp.asarray(uw), jnp.asarray(theta, v.dtype)
    y, eigs = _draw(key, v, uw, theta, d, n_samples)
    n_terms = _choose_truncation(d, np.asarray(eigs))
    fisher, stderr, error = _fisher_stats(y, v, uw, theta, float(d), n_terms)
    if k > 1 and not float(error) <= TRUNCATION_TOL:
        maximal = K2_MAX_TERMS if k == 2 else largest_partition_size(k)
        fisher, stderr, error = _fisher_stats(y, v, uw, theta, float(d), maximal)
    return fisher, stderr


def wishart_path_fisher(
    v: ArrayLike,
    w: ArrayLike,
    theta: ArrayLike,
    *,
    key: jax.Array,
    n_samples: int,
    align: bool = True,
) -> tuple[jax.Array, jax.Array]:
    r"""Fisher information along the Wishart path of Theorem 5.3, by Monte Carlo.

    .. math::

        I(\theta) = \mathbb E_{Y \sim P_\theta}\bigl[(\partial_\theta \log p_\theta(Y))^2\bigr],
        \qquad P_\theta = \mathcal W_k\bigl(d, I_k, \mu(\theta)^\top\mu(\theta)\bigr),
        \quad \mu(\theta) = (1-\theta)v + \theta Uw,

    the law of :math:`V_\theta^\top V_\theta`, :math:`V_\theta = \mu(\theta) + N`, with
    :math:`U` the Procrustes rotation minimising :math:`\|Uw - v\|_F` (paper Section 5,
    Theorem 5.3 bounds this quantity; ``docs/math/paper.md#theorem-53``). The score is exact (forward-mode autodiff
    of the non-central Wishart log-density); the expectation is a sample mean, so the result
    is a **Monte Carlo estimate** with the returned standard error, not a bound. Method:
    :mod:`fisherrdp._src.fisher.wishart`.

    Args:
      v: start of the path, shape ``(d, k)``, ``d >= k >= 1`` (a vector as ``(d, 1)``).
      w: end of the path (before rotation), shape ``(d, k)``.
      theta: path parameters (any real; the path is θ ∈ [0, 1]), any shape.
      key: a ``jax.random`` key; each θ gets its own subkey.
      n_samples: draws per θ, an integer ``>= 2``.
      align: rotate ``w`` by the Procrustes ``U`` (else ``U = I``).

    Returns:
      ``(fisher, stderr)``, both shaped like ``theta``; ``stderr`` is
      :math:`\operatorname{sd}(s^2)/\sqrt{n}`.

    Raises:
      ValueError: if ``v`` is not ``(d, k)`` with ``d >= k >= 1``, ``w`` has another shape,
        ``v``, ``w`` or ``theta`` are not finite or not concrete (traced under ``jit`` or a
        derivative: they set shapes and the samples; the estimate is not differentiable), or
        ``n_samples`` is not an integer ``>= 2``.

    Examples:
      >>> import jax, numpy as np
      >>> from fisherrdp.fisher import wishart_path_fisher
      >>> v, w = np.array([[1.0], [0.0], [0.0]]), np.array([[0.0], [0.5], [0.0]])
      >>> fisher, se = wishart_path_fisher(v, w, [0.5], key=jax.random.key(0), n_samples=2000)
      >>> exact = 0.0689861  # k = 1: ncx2_amplitude_fisher(3, ρ) ρ'², ρ(θ) = 1 − θ/2 at θ = 1/2
      >>> bool(abs(fisher[0] - exact) < 4 * se[0])
      True
    """
    v, w = check_pair(v, w)
    n_samples = _check_n_samples(n_samples)
    theta = concrete_values("theta", theta, "samples are drawn per value")
    uw = procrustes(v, w) if align else w
    keys = jax.random.split(key, max(theta.size, 1))
    out = [_fisher_at(keys[i], v, uw, float(t), n_samples) for i, t in enumerate(theta.ravel())]
    if not out:
        empty = jnp.zeros(theta.shape)
        return empty, empty
    fisher = jnp.stack([f for f, _ in out]).reshape(theta.shape)
    stderr = jnp.stack([s for _, s in out]).reshape(theta.shape)
    return fisher, stderr


def wishart_path_fisher_integral(
    v: ArrayLike,
    w: ArrayLike,
    alpha: float,
    *,
    key: jax.Array,
    n_samples: int,
    n_theta: int,
    align: bool = True,
) -> PathIntegral:
    r"""Monte Carlo estimate of the Prop. 3.2 path integral and path bound along the Wishart path.

    .. math::

        J = \int_0^1 \sqrt{I(\theta)}\;
        e^{(\alpha-1)(2\alpha-1)\theta^2\|Uw - v\|_F^2/2}\,d\theta, \qquad
        D_\alpha\bigl(\operatorname{law} W^\top W \,\big\|\, \operatorname{law} V^\top V\bigr)
        \le \frac{1}{\alpha-1}\log(1 + \alpha J),

    the Fisher criterion (Proposition 3.2, with the post-processing envelope
    :math:`D_{2\alpha-1}(P_\theta\|P_0) \le (2\alpha-1)\theta^2\|Uw-v\|_F^2/2`) along the path
    :math:`\mu(\theta) = (1-\theta)v + \theta Uw` from :math:`v` (θ = 0) to :math:`Uw`
    (θ = 1) of Theorem 5.4, with :math:`I(\theta)` from :func:`wishart_path_fisher` at
    ``n_theta`` Gauss–Legendre nodes (independent keys). Theorem 5.4 replaces
    :math:`\sqrt{I}` by the Theorem 5.3 bound; this evaluates it with the (estimated) exact one.

    **This is a Monte Carlo estimate, not a certified bound**: :math:`\hat J` carries the
    sampling error ``stderr`` (delta method, :math:`\operatorname{se}(\sqrt I) =
    \operatorname{se}(I)/(2\sqrt I)`, which is unreliable where :math:`I \approx 0`) and an
    unestimated bias of :math:`\sqrt{\hat I}` (:math:`E\sqrt{\hat I} \le \sqrt I`, of relative
    order :math:`\operatorname{se}^2/(8I^2)`), and a heuristic ``quadrature_error``;
    ``bound_high`` is the bound at :math:`\hat J + 1.96\,\mathrm{stderr} + \mathrm{quadrature\_error}`.

    Args:
      v: start of the path ``(d, k)``, ``d >= k >= 1``.
      w: end of the path ``(d, k)`` (rotated by the Procrustes ``U`` when ``align``).
      alpha: Rényi order, a scalar ``alpha > 1``.
      key: a ``jax.random`` key.
      n_samples: draws per node, an integer ``>= 2``.
      n_theta: number of Gauss–Legendre nodes in θ, an integer ``>= 2``.
      align: as in :func:`wishart_path_fisher`.

    Returns:
      A :class:`PathIntegral` (``integral``, ``stderr``, ``quadrature_error``, ``bound``,
      ``bound_high``, and the node values ``fisher``, ``fisher_stderr``, ``theta``).

    Raises:
      ValueError: for bad ``v``, ``w``, ``n_samples`` (see :func:`wishart_path_fisher`),
        ``alpha <= 1``, not a scalar or not concrete (traced under ``jit`` or a derivative:
        the estimate is not differentiable), or ``n_theta`` not an integer ``>= 2``.

    Examples:
      >>> import jax, numpy as np
      >>> from fisherrdp.fisher import wishart_path_fisher_integral
      >>> v, w = np.array([[1.0], [0.0], [0.0]]), np.array([[0.0], [0.5], [0.0]])
      >>> r = wishart_path_fisher_integral(v, w, 2.0, key=jax.random.key(0), n_samples=2000,
      ...                                  n_theta=4)
      >>> print(f"J = {float(r.integral):.2f} ± {float(r.stderr):.2f}, bound {float(r.bound):.2f}")
      J = 0.29 ± 0.00, bound 0.46
    """
    alpha = concrete_values("alpha", alpha, "it sets the Monte Carlo path integral's weights")
    check_concrete("alpha", alpha, lower=1.0, lower_inclusive=False)
    if np.ndim(alpha) != 0:
        raise ValueError(f"argument 'alpha' must be a scalar > 1, got shape {np.shape(alpha)}")
    check_concrete("n_theta", n_theta, lower=2, integer=True)
    if np.ndim(n_theta) != 0:
        raise ValueError(f"argument 'n_theta' must be an integer >= 2, got {n_theta!r}")
    v_arr, w_arr = check_pair(v, w)
    uw = procrustes(v_arr, w_arr) if align else w_arr
    alpha = float(alpha)
    nodes, weights = gauss_legendre(int(n_theta))
    coef = legendre_coefficients(int(n_theta))
    fisher, fisher_se = wishart_path_fisher(
        v_arr, w_arr, nodes, key=key, n_samples=n_samples, align=align
    )
    length_sq = float(np.sum((uw - v_arr) ** 2))
    growth = jnp.exp((alpha - 1.0) * (2.0 * alpha - 1.0) * nodes**2 * length_sq / 2.0)
    root = jnp.sqrt(jnp.maximum(fisher, 0.0))
    f = root * growth
    f_se = growth * fisher_se / (2.0 * jnp.maximum(root, jnp.finfo(root.dtype).tiny))
    integral = jnp.sum(weights * f)
    stderr = jnp.sqrt(jnp.sum((weights * f_se) ** 2))
    c = jnp.asarray(coef) @ f
    quad = jnp.abs(c[-1]) + jnp.abs(c[-2])
    bound = jnp.log1p(alpha * integral) / (alpha - 1.0)
    high = jnp.log1p(alpha * (integral + Z95 * stderr + quad)) / (alpha - 1.0)
    return PathIntegral(integral, stderr, quad, bound, high, fisher, fisher_se, jnp.asarray(nodes))

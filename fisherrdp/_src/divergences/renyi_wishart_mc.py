r"""Rényi divergence between non-central Wishart laws, by Monte Carlo on exact log-densities.

For :math:`v, w \in \mathbb R^{r\times k}` (:math:`r \le d`; missing rows are zero) the
infinite-release loss of the paper's Section 4 (Theorem 5.4 bounds it; ``docs/math/variational.md#monte-carlo-for-the-wishart-family``) is

.. math::

    D_\alpha\bigl(\operatorname{law} V^\top V \,\big\|\, \operatorname{law} W^\top W\bigr)
    = \frac{1}{\alpha-1}\log \mathbb E_{Y \sim P_w}\bigl[e^{\alpha L(Y)}\bigr],
    \qquad L = \log p_v(Y) - \log p_w(Y),

:math:`P_u = \mathcal W_k(d, I_k, u^\top u)`. :func:`renyi_ncwishart_mc` draws
:math:`Y_i \sim P_w` (:func:`fisherrdp.stats.ncwishart.sample`), evaluates both exact
log-densities (:func:`fisherrdp.stats.ncwishart.logpdf`, truncation chosen from the samples),
and averages with the control variate :math:`\mathbb E_w[e^L] = 1` (exact, since
:math:`e^L = p_v/p_w`), i.e. the non-negative

.. math::

    \psi(L) = e^{\alpha L} - 1 - \alpha\,(e^L - 1), \qquad
    \hat D = \frac{\log\bigl(1 + \overline{\psi}\bigr)}{\alpha - 1},

whose variance is :math:`O(\alpha^2(\alpha-1)^2\operatorname{Var}(L^2))` for small :math:`L`
instead of :math:`O(\alpha^2 \operatorname{Var} L)` for the plain mean of :math:`e^{\alpha L}`
(measured: 10× smaller standard error at d = 50, ‖v‖ = 1, ‖w‖ = 0.5, α = 2). Where
:math:`\max \alpha L >` ``LINEAR_MAX`` everything is scaled by :math:`e^{-\max\alpha L}` (the
log-sum-exp shift), so nothing overflows. The standard error is the delta method on the log,
:math:`\operatorname{se}(\hat D) = \operatorname{sd}(\psi)/((1 + \overline\psi)\sqrt n\,
(\alpha-1))`, and the 95% interval is :math:`\hat D \pm 1.96\,\operatorname{se}`.

**Caveats.** The estimator is consistent but **biased low** (Jensen: :math:`E\log\bar X \le
\log E X`), and for heavy-tailed likelihood ratios the sample variance itself underestimates the
true one, so the interval can be too short. The variance of :math:`e^{\alpha L}` under
:math:`P_w` is

.. math::

    \operatorname{Var} = e^{(2\alpha-1)\,D_{2\alpha}(P_v\|P_w)} - e^{2(\alpha-1)D_\alpha(P_v\|P_w)},

which grows exponentially in :math:`\alpha^2\|v - w\|_F^2` (at most
:math:`e^{(2\alpha-1)\alpha\|v-w\|_F^2}`); the relative standard error of the mean is
:math:`\sqrt{\operatorname{Var}/n}/e^{(\alpha-1)D_\alpha}`, so the estimate is trustworthy only
while :math:`(2\alpha-1)D_{2\alpha} - 2(\alpha-1)D_\alpha` is well below :math:`\log n`.

**Accuracy measured** (``tests/test_wishart_fisher.py``): for k = 1 the interval covers
:func:`fisherrdp.divergences.renyi_ncx2` (exact to 1e-9): d = 50, ‖v‖ = 1, ‖w‖ = 0.5, α = 2,
4000 samples: 0.00584 ± 0.00015 against 0.0055679; d = 8, ‖v‖ = 1.3, ‖w‖ = 0.7,
α ∈ {1.5, 2, 3}, 20000 samples, two seeds: relative standard errors 2%, all six intervals cover.
A rank-one k = 2 pair (second columns zero) reproduces the k = 1 value (sufficiency of ‖V₁‖²).
For generic k = 2 pairs the estimate lies far below :func:`fisherrdp.bounds.theorem54_bound` and
the post-processing value :math:`\alpha\|v - w\|_F^2/2`. **Failure mode** (measured): at
d = 5, ‖v‖ = 3, ‖w‖ = 0.5 and 4000 samples, α = 2 gives 4.7 ± 0.6 (exact 4.22) but α = 8 gives
5.96 ± 0.14 against the exact 22.05 — the interval does not cover: the variance is dominated by
samples never drawn.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.core.validation import check_concrete, is_tracer
from fisherrdp._src.distributions.ncwishart import logpdf as _ncwishart_logpdf
from fisherrdp._src.distributions.ncwishart import sample as _ncwishart_sample

__all__ = ["RenyiMC", "renyi_ncwishart_mc"]

#: Normal quantile of the two-sided 95% interval.
Z95 = 1.959963984540054
#: Largest α L for which ψ is formed without scaling (e^{2αL}, in the variance, stays finite).
LINEAR_MAX = 300.0


class RenyiMC(NamedTuple):
    """Monte Carlo estimate of a Rényi divergence with a delta-method 95% interval.

    Attributes:
      estimate: :math:`\\hat D`.
      ci_low: :math:`\\hat D - 1.96\\,\\mathrm{stderr}`.
      ci_high: :math:`\\hat D + 1.96\\,\\mathrm{stderr}`.
      stderr: delta-method standard error of :math:`\\hat D`.
    """

    estimate: jax.Array
    ci_low: jax.Array
    ci_high: jax.Array
    stderr: jax.Array


def _check_mean(name: str, value, d: int, k: int | None) -> np.ndarray:
    if is_tracer(value):
        raise ValueError(f"argument {name!r} must be a concrete array")
    a = np.asarray(value, np.float64)
    if a.ndim != 2 or a.shape[1] < 1 or a.shape[0] < 1:
        raise ValueError(f"argument {name!r} must have shape (r, k), got {a.shape}")
    if k is not None and a.shape[1] != k:
        raise ValueError(f"argument {name!r} must have k = {k} columns like 'v', got {a.shape}")
    if a.shape[0] > d:
        raise ValueError(f"argument {name!r} must have at most d = {d} rows, got {a.shape[0]}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"argument {name!r} must be finite")
    return a


def renyi_ncwishart_mc(
    alpha: ArrayLike,
    d: int,
    v: ArrayLike,
    w: ArrayLike,
    *,
    key: jax.Array,
    n_samples: int,
) -> RenyiMC:
    r"""Monte Carlo Rényi divergence between the laws of VᵀV and WᵀW (non-central Wishart).

    .. math::

        D_\alpha\bigl(\operatorname{law} V^\top V \,\big\|\, \operatorname{law} W^\top W\bigr)
        = \frac{1}{\alpha-1}\log\mathbb E_{Y\sim P_w}\Bigl[\Bigl(\frac{p_v(Y)}{p_w(Y)}\Bigr)^\alpha
        \Bigr],\qquad V = v + N,\ W = w + N \in \mathbb R^{d\times k},

    the infinite-release loss of the paper's Section 4, bounded by Theorem 5.4
    (:func:`fisherrdp.bounds.theorem54_bound`) and by :math:`\alpha\|v - w\|_F^2/2`. Exact
    log-densities, sampled expectation: a **Monte Carlo estimate, biased low** for heavy-tailed
    likelihood ratios (variance growing like :math:`e^{(2\alpha-1)D_{2\alpha}}`); see
    :mod:`fisherrdp._src.divergences.renyi_wishart_mc`. All orders in ``alpha`` share the
    same samples.

    Args:
      alpha: Rényi order(s), ``alpha > 1`` (any shape).
      d: degrees of freedom (rows of V), an integer ``d >= k``.
      v: mean of V, shape ``(r, k)`` with ``r <= d`` (missing rows are zero).
      w: mean of W, shape ``(r', k)``, ``r' <= d``; the samples are drawn from its law.
      key: a ``jax.random`` key.
      n_samples: number of draws, an integer ``>= 2``.

    Returns:
      :class:`RenyiMC` ``(estimate, ci_low, ci_high, stderr)``, each shaped like ``alpha``.

    Raises:
      ValueError: for ``alpha <= 1``, ``d`` not an integer ``>= k``, ``v``/``w`` not 2-D,
        with different k, more than ``d`` rows or non-finite entries, or ``n_samples`` not an
        integer ``>= 2``.

    Examples:
      >>> import jax, numpy as np
      >>> from fisherrdp.divergences import renyi_ncwishart_mc
      >>> v, w = np.array([[1.0]]), np.array([[0.5]])  # k = 1: exact value 0.0055679342
      >>> r = renyi_ncwishart_mc(2.0, 50, v, w, key=jax.random.key(0), n_samples=4000)
      >>> bool(r.ci_low <= 0.0055679342 <= r.ci_high)
      True
    """
    check_concrete("alpha", alpha, lower=1.0, lower_inclusive=False, allow_nan=False)
    if is_tracer(d):
        raise ValueError("argument 'd' must be a concrete integer (it sets the shape of N)")
    v = _check_mean("v", v, np.inf, None)
    k = v.shape[1]
    check_concrete("d", d, lower=k, integer=True)
    if np.ndim(d) != 0:
        raise ValueError(f"argument 'd' must be an integer >= {k}, got {d!r}")
    d = int(d)
    v = _check_mean("v", v, d, None)
    w = _check_mean("w", w, d, k)
    check_concrete("n_samples", n_samples, lower=2, integer=True)
    if np.ndim(n_samples) != 0:
        raise ValueError(f"argument 'n_samples' must be an integer >= 2, got {n_samples!r}")
    n = int(n_samples)
    alpha = jnp.asarray(alpha, jnp.result_type(float))
    y = _ncwishart_sample(key, d, w, shape=(n,))
    log_ratio = _ncwishart_logpdf(y, d, v.T @ v) - _ncwishart_logpdf(y, d, w.T @ w)
    return _estimate(alpha, log_ratio)


@jax.jit
def _estimate(alpha, log_ratio):
    """D̂ from the log-likelihood ratios with the control variate E_w[e^L] = 1 (see module)."""
    n = log_ratio.shape[0]
    alpha = alpha[..., None]
    a = alpha * log_ratio
    top = jnp.max(a, axis=-1, keepdims=True)
    linear = top <= LINEAR_MAX
    # ψ = e^{αL} − 1 − α(e^L − 1) ≥ 0, directly where e^{αL} cannot overflow ...
    psi = jnp.expm1(jnp.where(linear, a, 0.0)) - alpha * jnp.expm1(
        jnp.where(linear, log_ratio, 0.0)
    )
    # ... else scaled by e^{−M}: e^{αL−M} − e^{−M}(1 − α) − α e^{L−M}.
    m = jnp.where(linear, 0.0, top)
    psi = jnp.where(
        linear,
        psi,
        jnp.exp(a - m) - jnp.exp(-m) * (1.0 - alpha) - alpha * jnp.exp(log_ratio - m),
    )
    mean = jnp.mean(psi, axis=-1)
    sd = jnp.std(psi, axis=-1, ddof=1)
    m, linear, alpha = m[..., 0], linear[..., 0], alpha[..., 0]
    total = mean + jnp.exp(-m)  # (1 + mean ψ) e^{−M}
    log_total = m + jnp.where(linear, jnp.log1p(mean), jnp.log(total))
    est = log_total / (alpha - 1.0)
    se = sd / (total * math.sqrt(n)) / (alpha - 1.0)
    return RenyiMC(est, est - Z95 * se, est + Z95 * se, se)

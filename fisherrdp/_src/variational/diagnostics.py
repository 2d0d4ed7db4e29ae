r"""Reliability diagnostics for exponential moments estimated from samples.

The variational Rényi estimators (:mod:`.renyi`) report :math:`\log\hat E[e^{L}]` from
:math:`n` held-out draws :math:`L_1, \dots, L_n`, with a delta-method interval. That interval is
a central-limit statement about the mean of the weights :math:`w_i = e^{L_i}`, and it means
nothing when :math:`\operatorname{Var}(w) = \infty`, which is common: the weights of a
Gaussian likelihood ratio :math:`e^{cX^2}`, :math:`X \sim \mathcal N(0, s^2)`, have the power
tail :math:`P(w > t) \approx t^{-1/(2cs^2)}`, with an infinite variance once
:math:`2cs^2 \ge 1/2`. This module gives the standard diagnostics, in NumPy float64.

**Pareto** :math:`\hat k` (Vehtari, Simpson, Gelman, Yao & Gabry, "Pareto smoothed importance
sampling", JMLR 25(72), 2024). If the weights have a power tail,
:math:`P(w > t) = t^{-1/k}\ell(t)` with :math:`\ell` slowly varying, exceedances over a high
threshold are approximately generalized Pareto (Pickands, "Statistical inference using extreme
order statistics", Ann. Statist. 3(1), 119–131, 1975),

.. math::

    P(w - u > x \mid w > u) \approx \Bigl(1 + \frac{k x}{\sigma}\Bigr)^{-1/k},

and :math:`E[w^r] < \infty` exactly for :math:`r < 1/k`. So :math:`k < 1/2`: finite variance,
central-limit intervals apply; :math:`1/2 \le k < 0.7`: infinite variance, the estimate still
converges usably fast but its interval is not trustworthy; :math:`k \ge 0.7`: the estimate
itself is unreliable (Vehtari et al. 2024, whose sample-size-dependent threshold
:math:`\min(1 - 1/\log_{10} n, 0.7)` is 0.7 for :math:`n \ge 2155`). :math:`\hat k` is
the shape of a generalized Pareto fit to the :math:`M` largest weights' exceedances over the
:math:`(M+1)`-th largest, :math:`M = \lceil\min(n/5, 3\sqrt n)\rceil` (:func:`tail_size`), with
the empirical-Bayes estimator of Zhang & Stephens ("A new and efficient estimation method for
the generalized Pareto distribution", Technometrics 51(3), 316–325, 2009) and the weakly
informative prior of Vehtari et al., as in the authors' ``loo`` R package (``n_pareto``,
``gpdfit``, ``adjust_k_wip``; independent draws, so its relative efficiency ``r_eff`` is 1).

**Effective sample size** :math:`(\sum w)^2/\sum w^2` (Kong 1992, "A note on importance
sampling using standardized weights", Tech. Rep. 348, Dept. of Statistics, University of
Chicago), between 1 (one weight dominates) and :math:`n` (equal weights).

:func:`moment_reliability` combines the two. Only NumPy is needed; the caller gathers the
:math:`M+1` largest log-weights (e.g. a top-k per evaluation chunk) and the two
``logsumexp`` sums.

**Accuracy measured** (``tests/test_variational_diagnostics.py``, :math:`n = 200\,000`,
:math:`M = 1342`, means of 8 seeded replicates): generalized Pareto weights of shape
0.2 / 0.5 / 0.8 gave :math:`\hat k` = 0.191 / 0.495 / 0.821 and Pareto weights 0.211 / 0.509 /
0.807, single replicates spreading by about :math:`(1 + k)/\sqrt M` = 0.03–0.05 (extremes
0.130 and 0.403 for 0.2 and 0.5); Gaussian likelihood ratios :math:`e^{cX^2}` with
:math:`2cs^2` = 0.2 / 0.69 / 0.816 gave 0.196 / 0.645 / 0.761, low by about 0.05 for the heavier
two because of the :math:`1/\sqrt{\log t}` factor of their tail, which fades only
logarithmically in :math:`n`; lognormal weights :math:`e^{0.5Z}` gave 0.073. Without the prior,
:math:`\hat k` is within 0.003 of the maximum-likelihood fit of the same exceedances
(``scipy.stats.genpareto``).
"""

from __future__ import annotations

import math
import operator

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "ESS_FLOOR",
    "KHAT_RELIABLE",
    "KHAT_USABLE",
    "MIN_EXCEEDANCES",
    "effective_sample_size",
    "moment_reliability",
    "pareto_khat",
    "tail_size",
]

KHAT_RELIABLE = 0.5
"""Below this Pareto :math:`\\hat k` the weights have a finite variance and central-limit
(delta-method) intervals apply (Vehtari et al. 2024)."""

KHAT_USABLE = 0.7
"""From :data:`KHAT_RELIABLE` up to this :math:`\\hat k` the variance is likely infinite: the
estimate is usable, its interval is not; at or above it the estimate itself is unreliable
(Vehtari et al. 2024, for :math:`n \\ge 2155`; below, their threshold
:math:`1 - 1/\\log_{10} n` is smaller)."""

ESS_FLOOR = 100.0
"""Smallest effective sample size :func:`moment_reliability` accepts for a central-limit
interval. It is where the sample-size-dependent threshold of Vehtari et al. (2024),
:math:`1 - 1/\\log_{10} S` for :math:`S` draws, falls to :data:`KHAT_RELIABLE`: with fewer
(effective) draws their own criterion is stricter than :math:`\\hat k < 0.5`."""

MIN_EXCEEDANCES = 5
"""Fewest positive exceedances :func:`pareto_khat` fits (the ``loo`` package's minimum tail
length); with fewer it returns ``nan``."""

_ZS_PRIOR = 3.0  # Zhang & Stephens (2009): prior on θ scaled by 3 × the first-quartile exceedance
_ZS_MIN_GRID = 30  # their grid of 30 + ⌊√M⌋ values of θ
_WIP_STRENGTH = 10.0  # Vehtari et al.: k̂ shrunk to 0.5 with the weight of 10 exceedances


def tail_size(n: int) -> int:
    r"""Number :math:`M` of largest weights that PSIS fits a generalized Pareto tail to.

    .. math::

        M = \Bigl\lceil \min\Bigl(\frac n5,\ 3\sqrt n\Bigr) \Bigr\rceil,

    the rule of Vehtari et al. (2024) for independent draws (``loo``'s ``n_pareto`` with
    ``r_eff = 1``): 20% of the draws for :math:`n \le 225`, :math:`\lceil 3\sqrt n\rceil` beyond.
    Computed in integer arithmetic (the same as ``loo``'s floating-point formula for every
    :math:`n \le 2\cdot 10^6`, checked).

    Args:
      n: total number of draws, an integer ``>= 1``.

    Returns:
      :math:`M`, an ``int`` in ``[1, n]``.

    Raises:
      ValueError: if ``n`` is not an integer ``>= 1``.

    Examples:
      >>> tail_size(100), tail_size(225), tail_size(10_000), tail_size(200_000)
      (20, 45, 300, 1342)
    """
    n = _positive_int(n, "n")
    fifth = -(-n // 5)
    root = math.isqrt(9 * n)
    return min(fifth, root + (root * root < 9 * n))


def pareto_khat(
    top_log_weights: ArrayLike, n: int, *, weakly_informative_prior: bool = True
) -> float | NDArray[np.float64]:
    r"""Pareto :math:`\hat k` of the weights :math:`w = e^{l}`, from their largest log-values.

    With :math:`M` = :func:`tail_size` (``n``) and :math:`l_{(1)} \ge \dots \ge l_{(M+1)}` the
    :math:`M+1` largest log-weights, the exceedances over the threshold :math:`w_{(M+1)}`,
    scaled by the largest weight (the fit is scale-invariant), are

    .. math::

        x_i = e^{l_{(i)} - l_{(1)}}\bigl(1 - e^{l_{(M+1)} - l_{(i)}}\bigr), \qquad i \le M,

    formed as logs (no overflow, no cancellation between close weights). Zhang & Stephens
    (2009) fit the generalized Pareto law in :math:`\theta = -k/\sigma`, whose profile
    log-likelihood is

    .. math::

        \ell(\theta) = M\Bigl(\log\frac{-\theta}{\kappa(\theta)} - \kappa(\theta) - 1\Bigr),
        \qquad \kappa(\theta) = \frac1M\sum_{i} \log(1 - \theta x_i),

    and average it over the grid
    :math:`\theta_j = 1/x_{\max} + \bigl(1 - \sqrt{m/(j - 1/2)}\bigr)/(3 x_{q})`,
    :math:`j = 1..m`, :math:`m = 30 + \lfloor\sqrt M\rfloor`, :math:`x_q` the
    :math:`\lfloor M/4 + 1/2\rfloor`-th smallest exceedance: with weights
    :math:`\propto e^{\ell(\theta_j)}`, :math:`\hat\theta = \sum_j w_j\theta_j` and
    :math:`\hat k = \kappa(\hat\theta)`. With ``weakly_informative_prior`` (default, as in
    ``loo``), Vehtari et al.'s prior shrinks it towards 1/2 with the weight of 10 exceedances,
    :math:`\hat k \leftarrow (M\hat k + 5)/(M + 10)` (a shift of at most 0.004 for
    :math:`0 \le \hat k \le 1` at :math:`n = 200\,000`). Cost: a sort of the input and
    :math:`O(M^{3/2})` logarithms, about 2 ms on the top :math:`M + 1` of
    :math:`n = 200\,000` values.

    Args:
      top_log_weights: the largest log-weights, in any order, along the last axis (leading
        axes are a batch); at least ``tail_size(n) + 1`` and at most ``n`` of them, of which the
        largest ``tail_size(n) + 1`` are used. Not NaN or ``+inf``; ``-inf`` (zero weight) is
        allowed.
      n: total number of draws the values were taken from, an integer ``>= 1``.
      weakly_informative_prior: apply the shrinkage towards 1/2 (keyword-only).

    Returns:
      :math:`\hat k`, a ``float`` for 1-D input, else an array of the batch shape. ``nan`` where
      fewer than :data:`MIN_EXCEEDANCES` exceedances are positive (always for
      :math:`n \le 20`, where :math:`M < 5`; also when ties, e.g. equal weights, fill the
      tail), or where ties at the threshold make :math:`x_q = 0` (the grid is then undefined).
      ``inf`` where :math:`x_q > 0` underflows, :math:`x_q/x_{\max} < 10^{-308}`: a tail far
      beyond any threshold here (a generalized Pareto sample needs :math:`k \gtrsim 100` at
      :math:`M = 1342`), or a few weights hundreds of nats above the rest.

    Raises:
      ValueError: if ``n`` is not an integer ``>= 1``, ``top_log_weights`` is 0-d, has fewer
        than ``tail_size(n) + 1`` or more than ``n`` values on its last axis, or holds NaN or
        ``+inf``.

    Examples:
      Exact quantiles of the Pareto law :math:`P(w > t) = t^{-1/0.3}`:

      >>> import numpy as np
      >>> n = 10_000
      >>> log_w = -0.3 * np.log((np.arange(n) + 0.5) / n)
      >>> print(f"{pareto_khat(log_w, n):.4f}")
      0.3080
      >>> print(f"{pareto_khat(log_w, n, weakly_informative_prior=False):.4f}")
      0.3016
      >>> print(f"{pareto_khat(np.sort(log_w)[-tail_size(n) - 1:], n):.4f}")  # the top M + 1
      0.3080
    """
    n = _positive_int(n, "n")
    m = tail_size(n)
    lw = np.asarray(top_log_weights, dtype=np.float64)
    if lw.ndim == 0:
        raise ValueError("argument 'top_log_weights' must have at least one axis, got a scalar")
    if not m + 1 <= lw.shape[-1] <= n:
        raise ValueError(
            f"argument 'top_log_weights' must hold between tail_size(n) + 1 = {m + 1} and "
            f"n = {n} values on its last axis, got {lw.shape[-1]}"
        )
    if np.isnan(lw).any() or np.isposinf(lw).any():
        raise ValueError("argument 'top_log_weights' must not contain NaN or +inf")

    top = np.sort(lw, axis=-1)[..., -(m + 1) :]
    threshold, tail, lmax = top[..., :1], top[..., 1:], top[..., -1:]
    above = tail > threshold
    with np.errstate(divide="ignore", invalid="ignore"):
        log_x = (tail - lmax) + np.log(-np.expm1(threshold - tail))
        x = np.where(above, np.exp(log_x), 0.0)

    q = max(math.floor(m / 4 + 0.5), 1) - 1  # index of the first-quartile exceedance
    fits = (above.sum(axis=-1) >= MIN_EXCEEDANCES) & above[..., q]
    ok = fits & (x[..., q] > 0.0)  # fits but not ok: x_q underflowed, k is enormous
    # Rows that cannot be fitted get a harmless stand-in (exceedances 1, 2, ..., M), nan below.
    x = np.where(ok[..., None], x, np.arange(1.0, m + 1.0))

    grid = _ZS_MIN_GRID + math.isqrt(m)
    j = np.arange(1.0, grid + 1.0)
    theta = 1.0 / x[..., -1:] + (1.0 - np.sqrt(grid / (j - 0.5))) / (_ZS_PRIOR * x[..., q : q + 1])
    kappa = np.log1p(-theta[..., :, None] * x[..., None, :]).mean(axis=-1)
    profile = m * (np.log(-theta / kappa) - kappa - 1.0)
    weights = np.exp(profile - profile.max(axis=-1, keepdims=True))
    theta_hat = (weights * theta).sum(axis=-1) / weights.sum(axis=-1)
    khat = np.log1p(-theta_hat[..., None] * x).mean(axis=-1)
    if weakly_informative_prior:
        khat = (m * khat + 0.5 * _WIP_STRENGTH) / (m + _WIP_STRENGTH)
    khat = np.where(ok, khat, np.where(fits, np.inf, np.nan))
    return float(khat) if khat.ndim == 0 else khat


def effective_sample_size(
    log_weights_sum: ArrayLike, log_weights_sq_sum: ArrayLike
) -> float | NDArray[np.float64]:
    r"""Kong's effective sample size of importance weights, from two log-sums.

    .. math::

        \mathrm{ESS} = \frac{\bigl(\sum_i w_i\bigr)^2}{\sum_i w_i^2}
        = \exp\Bigl(2\,\operatorname{logsumexp}_i l_i - \operatorname{logsumexp}_i 2l_i\Bigr),
        \qquad w_i = e^{l_i},

    between 1 (one weight dominates) and :math:`n` (equal weights). The log form never
    overflows. Broadcasts over array arguments.

    Args:
      log_weights_sum: :math:`\operatorname{logsumexp}_i l_i`, finite.
      log_weights_sq_sum: :math:`\operatorname{logsumexp}_i 2 l_i`, finite and at most
        ``2 * log_weights_sum`` (up to rounding), as any weights give.

    Returns:
      The ESS, a ``float`` for scalar arguments, else an array of their broadcast shape.

    Raises:
      ValueError: if an argument is not finite, or ``log_weights_sq_sum`` exceeds
        ``2 * log_weights_sum`` by more than rounding (an ESS below 1 is impossible).

    Examples:
      >>> import numpy as np
      >>> lse = np.logaddexp.reduce
      >>> l = np.zeros(1000)  # equal weights
      >>> print(f"{effective_sample_size(lse(l), lse(2 * l)):.6g}")
      1000
      >>> l = np.array([800.0, 0.0, 0.0])  # one weight dominates
      >>> print(f"{effective_sample_size(lse(l), lse(2 * l)):.6g}")
      1
    """
    a = np.asarray(log_weights_sum, dtype=np.float64)
    b = np.asarray(log_weights_sq_sum, dtype=np.float64)
    for name, value in (("log_weights_sum", a), ("log_weights_sq_sum", b)):
        if not np.isfinite(value).all():
            raise ValueError(f"argument {name!r} must be finite, got {value}")
    log_ess = 2.0 * a - b
    slack = 64.0 * np.finfo(np.float64).eps * (1.0 + 2.0 * np.abs(a) + np.abs(b))
    if (log_ess < -slack).any():
        raise ValueError(
            "argument 'log_weights_sq_sum' must be at most 2 * log_weights_sum "
            f"(Σw² ≤ (Σw)²), got {b} against 2 * {a}"
        )
    ess = np.exp(log_ess)
    return float(ess) if ess.ndim == 0 else ess


def moment_reliability(khat: float, ess: float, n: int) -> tuple[bool, str]:
    r"""Whether a held-out exponential moment and its central-limit interval can be trusted.

    Reliable iff the Pareto tail shape and the effective sample size both pass:

    .. math::

        \hat k < 0.5 \quad\text{and}\quad \mathrm{ESS} \ge 100,

    (:data:`KHAT_RELIABLE`, :data:`ESS_FLOOR`): the weights then have a finite variance
    (Vehtari et al. 2024) and enough effective draws for the normal approximation. A ``nan``
    :math:`\hat k` (no tail fit, see :func:`pareto_khat`) is not reliable. The two are
    complementary: one weight 30 nats above 200 000 standard-normal log-weights gives
    :math:`\hat k = 0.48` (a fit over 1342 exceedances barely notices one point) but an ESS of 1.

    Args:
      khat: Pareto :math:`\hat k` from :func:`pareto_khat` (``nan`` allowed).
      ess: effective sample size from :func:`effective_sample_size`, in ``[0, n]``.
      n: number of draws, an integer ``>= 1``.

    Returns:
      ``(reliable, reason)``: ``reason`` names each failing diagnostic with its value (joined
      by ``"; "``), or both passing values when reliable.

    Raises:
      ValueError: if ``n`` is not an integer ``>= 1``, ``khat`` is not a real number, or
        ``ess`` is not a number in ``[0, n]``.

    Examples:
      >>> ok, reason = moment_reliability(0.21, 150_000.0, 200_000)
      >>> print(ok, reason)
      True Pareto k̂ = 0.210 < 0.5 and ESS = 150000 ≥ 100 of n = 200000 draws: finite variance;
      the central-limit interval applies
      >>> ok, reason = moment_reliability(0.63, 40.0, 200_000)
      >>> print(ok, reason)
      False Pareto k̂ = 0.630 ≥ 0.5: the held-out moment has infinite variance (heavy tail); its
      interval is not trustworthy; ESS = 40.0 < 100 of n = 200000 draws: too few effective
      draws for a central-limit interval
    """
    n = _positive_int(n, "n")
    khat = _real_scalar(khat, "khat")
    ess = _real_scalar(ess, "ess")
    if not 0.0 <= ess <= n * (1.0 + 1e-9):
        raise ValueError(f"argument 'ess' must be in [0, n] = [0, {n}], got {ess}")

    reasons = []
    if math.isnan(khat):
        reasons.append(
            "Pareto k̂ is nan: no tail fit (too few distinct largest weights: n ≤ 20, or ties), "
            "so the tail of the weights is unchecked"
        )
    elif khat >= KHAT_USABLE:
        reasons.append(
            f"Pareto k̂ = {khat:.3f} ≥ {KHAT_USABLE}: the weights are too heavy-tailed for the "
            "held-out moment itself to be reliable"
        )
    elif khat >= KHAT_RELIABLE:
        reasons.append(
            f"Pareto k̂ = {khat:.3f} ≥ {KHAT_RELIABLE}: the held-out moment has infinite "
            "variance (heavy tail); its interval is not trustworthy"
        )
    if ess < ESS_FLOOR:
        reasons.append(
            f"ESS = {ess:.1f} < {ESS_FLOOR:.0f} of n = {n} draws: too few effective draws for a "
            "central-limit interval"
        )
    if reasons:
        return False, "; ".join(reasons)
    return True, (
        f"Pareto k̂ = {khat:.3f} < {KHAT_RELIABLE} and ESS = {ess:.0f} ≥ {ESS_FLOOR:.0f} of "
        f"n = {n} draws: finite variance; the central-limit interval applies"
    )


def _positive_int(value, name: str) -> int:
    try:
        index = operator.index(value)
    except TypeError:
        index = None
    if index is None or isinstance(value, bool) or index < 1:
        raise ValueError(f"argument {name!r} must be an integer >= 1, got {value!r}")
    return index


def _real_scalar(value, name: str) -> float:
    try:
        return float(np.asarray(value, dtype=np.float64).item())
    except (TypeError, ValueError):
        raise ValueError(f"argument {name!r} must be a real number, got {value!r}") from None

r"""Rényi-DP to :math:`(\varepsilon, \delta)` conversions and the exact Gaussian privacy profile.

Contents (see ``docs/math/accountant.md#rdp-to-epsilon-and-delta``):

* :func:`rdp_to_dp`: convert an RDP curve :math:`\alpha \mapsto \varepsilon_R(\alpha)`, given on
  a grid of orders, into :math:`(\varepsilon, \delta)`-DP with the conversion of Mironov (2017,
  Prop. 3) or the sharper one of Balle et al. (2020, Thm. 21) / Canonne, Kamath and Steinke
  (2020, Prop. 12).
* :func:`gaussian_rdp`, :func:`gaussian_privacy_profile`, :func:`gaussian_epsilon`: the Rényi
  curve and the exact privacy profile :math:`\delta(\varepsilon)` of the Gaussian mechanism
  (Balle and Wang 2018, Thm. 8, "analytic Gaussian mechanism"), the reference against which
  the conversions are tested.

These functions take and return NumPy values (floats for scalar inputs); they are not meant for
:func:`jax.jit`. Natural logarithms throughout.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize, special

from fisherrdp._src.core.validation import check_concrete, require_concrete
from fisherrdp._src.special.bessel import HALF_LOG_2PI

__all__ = ["gaussian_epsilon", "gaussian_privacy_profile", "gaussian_rdp", "rdp_to_dp"]

_METHODS = ("balle2020", "mironov")
#: Doublings of ε that bracket the ε of a δ (from max(1, (Δ/σ)²): 2^64 times that at most).
BRACKET_DOUBLINGS = 64


#: Why the accountant's arguments must be concrete (a traced one raises, naming it).
HOST_ONLY = ("the accountant computes on the host with NumPy and SciPy and is not "
             "differentiable; differentiate the divergences of fisherrdp.divergences instead")


def as_output(x: np.ndarray):
    """Python float for 0-d results, the array otherwise."""
    x = np.asarray(x, dtype=np.float64)
    return float(x) if x.ndim == 0 else x


# ----------------------------------------------------------------------------------------------
# RDP -> (epsilon, delta)


def rdp_to_dp(
    alphas: ArrayLike, rdp: ArrayLike, delta: float, *, method: str = "balle2020"
) -> tuple[float, float]:
    r"""Best :math:`(\varepsilon, \delta)`-DP guarantee implied by an RDP curve on a grid.

    A mechanism that is :math:`(\alpha, \varepsilon_R(\alpha))`-RDP for every order of the grid
    is :math:`(\varepsilon, \delta)`-DP with :math:`\varepsilon = \min_\alpha \varepsilon(\alpha)`,

    .. math::

        \varepsilon_{\mathrm{mironov}}(\alpha) &= \varepsilon_R(\alpha)
            + \frac{\log(1/\delta)}{\alpha - 1}
            \qquad\text{(Mironov 2017, Prop. 3)},\\
        \varepsilon_{\mathrm{balle2020}}(\alpha) &= \varepsilon_R(\alpha)
            + \log\Bigl(1 - \frac1\alpha\Bigr) - \frac{\log\delta + \log\alpha}{\alpha - 1}
            \qquad\text{(Balle et al. 2020, Thm. 21)}.

    The second is the same as Canonne, Kamath and Steinke (2020, Prop. 12) and is never larger
    than the first (:math:`\log(1 - 1/\alpha) - \log(\alpha)/(\alpha-1) < 0`). The result is
    clipped at 0. If the (positive, finite) minimum is attained at the smallest or the largest
    order of a grid of more than one order, a :class:`UserWarning` says so: the grid probably does not contain the true optimum, and
    extending it may give a smaller :math:`\varepsilon`.

    Args:
        alphas: Orders :math:`\alpha > 1`, a 1-d array (or a scalar).
        rdp: RDP values :math:`\varepsilon_R(\alpha) \ge 0`, same shape as ``alphas``;
            ``inf`` is allowed (an order without a guarantee).
        delta: Target :math:`\delta \in (0, 1)`.
        method: ``"balle2020"`` (default) or ``"mironov"``.

    Returns:
        ``(epsilon, optimal_alpha)``: the smallest :math:`\varepsilon` over the grid (a float,
        possibly ``inf`` if every value is infinite) and the order attaining it.

    Raises:
        ValueError: For an order :math:`\le 1`, a negative or NaN RDP value, shapes that
            differ, an empty grid, :math:`\delta \notin (0, 1)` or an unknown ``method``.

    Examples:
        >>> import numpy as np
        >>> from fisherrdp.accounting import rdp_to_dp, gaussian_rdp
        >>> alphas = np.linspace(1.5, 100.0, 500)
        >>> eps, alpha = rdp_to_dp(alphas, gaussian_rdp(alphas, 1.0, sigma=2.0), 1e-5)
        >>> print(f"{eps:.4f} at alpha = {alpha:.2f}")
        2.1657 at alpha = 9.59
        >>> eps_m, _ = rdp_to_dp(alphas, gaussian_rdp(alphas, 1.0, sigma=2.0), 1e-5,
        ...                      method="mironov")
        >>> print(f"{eps_m:.4f}")
        2.5243
    """
    if method not in _METHODS:
        raise ValueError(f"argument 'method' must be one of {_METHODS}, got {method!r}")
    require_concrete(HOST_ONLY, alphas=alphas, rdp=rdp, delta=delta)
    alphas = np.atleast_1d(np.asarray(alphas, dtype=np.float64))
    rdp = np.atleast_1d(np.asarray(rdp, dtype=np.float64))
    if alphas.shape != rdp.shape:
        raise ValueError(
            f"arguments 'alphas' and 'rdp' must have the same shape, got {alphas.shape} "
            f"and {rdp.shape}"
        )
    if alphas.ndim != 1:
        raise ValueError(f"argument 'alphas' must be 1-dimensional, got shape {alphas.shape}")
    if alphas.size == 0:
        raise ValueError("argument 'alphas' must not be empty")
    check_concrete("alphas", alphas, lower=1, lower_inclusive=False, allow_nan=False)
    check_concrete("rdp", rdp, lower=0, allow_nan=False)
    check_concrete("delta", delta, lower=0, upper=1, lower_inclusive=False, upper_inclusive=False)
    if np.isnan(delta):
        raise ValueError("argument 'delta' must be in (0, 1), got nan")
    log_delta = math.log(float(delta))
    am1 = alphas - 1.0
    if method == "mironov":
        eps = rdp - log_delta / am1
    else:
        eps = rdp + np.log1p(-1.0 / alphas) - (log_delta + np.log(alphas)) / am1
    eps = np.maximum(eps, 0.0)
    i = int(np.argmin(eps))
    if alphas.size > 1 and np.isfinite(eps[i]):
        if alphas[i] == alphas.min():
            where = "smallest"
        elif alphas[i] == alphas.max():
            where = "largest"
        else:
            where = None
        if where is not None and eps[i] > 0.0:
            warnings.warn(
                f"rdp_to_dp: the optimal order alpha = {alphas[i]:g} is the {where} order of "
                "the grid; extend the grid to be sure the optimum is inside it",
                UserWarning,
                stacklevel=2,
            )
    return float(eps[i]), float(alphas[i])


# ----------------------------------------------------------------------------------------------
# The Gaussian mechanism


def _check_gaussian(sensitivity, sigma) -> None:
    require_concrete(HOST_ONLY, sensitivity=sensitivity, sigma=sigma)
    check_concrete("sensitivity", sensitivity, lower=0, lower_inclusive=False, allow_nan=False)
    check_concrete("sigma", sigma, lower=0, lower_inclusive=False, allow_nan=False)


def gaussian_rdp(alphas: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike = 1.0):
    r"""Rényi-DP curve of the Gaussian mechanism :math:`\mathcal N(f(x), \sigma^2 I)`.

    .. math::

        \varepsilon_R(\alpha) = D_\alpha\bigl(\mathcal N(\Delta, \sigma^2) \,\Vert\,
        \mathcal N(0, \sigma^2)\bigr) = \frac{\alpha \Delta^2}{2\sigma^2}

    (Mironov 2017, Prop. 7), with :math:`\Delta` the :math:`\ell_2`-sensitivity.

    Args:
        alphas: Orders :math:`\alpha > 1`.
        sensitivity: :math:`\Delta > 0`.
        sigma: Noise scale :math:`\sigma > 0`.

    Returns:
        The broadcast array (a float for scalar inputs).

    Raises:
        ValueError: For an order :math:`\le 1` or a non-positive ``sensitivity``/``sigma``.

    Examples:
        >>> from fisherrdp.accounting import gaussian_rdp
        >>> print(gaussian_rdp(4.0, 1.0, sigma=2.0))
        0.5
    """
    require_concrete(HOST_ONLY, alphas=alphas)
    check_concrete("alphas", alphas, lower=1, lower_inclusive=False)
    _check_gaussian(sensitivity, sigma)
    a = np.asarray(alphas, np.float64)
    s = np.asarray(sensitivity, np.float64) / np.asarray(sigma, np.float64)
    return as_output(0.5 * a * s * s)


_HALF_LOG_PI_OVER_2 = 0.5 * math.log(0.5 * math.pi)


def _log_profile(eps: np.ndarray, a: np.ndarray) -> np.ndarray:
    r"""``log δ(ε)`` for :math:`a = \Delta/\sigma > 0`, ``ε >= 0`` (arrays, broadcast).

    With :math:`x_1 = a/2 - \varepsilon/a`, :math:`x_2 = x_1 - a`:
    :math:`\delta = \Phi(x_1) - e^\varepsilon \Phi(x_2)`. Because
    :math:`e^\varepsilon \varphi(x_2) = \varphi(x_1)`, for :math:`x_1 < 0` this is
    :math:`\varphi(x_1)\,[R(-x_1) - R(-x_2)]` with the Mills ratio
    :math:`R(z) = \Phi(-z)/\varphi(z) = \sqrt{\pi/2}\,\mathrm{erfcx}(z/\sqrt2)`, which neither
    underflows nor cancels catastrophically for large ε. For :math:`x_1 \ge 0`
    (:math:`\varepsilon \le a^2/2`) the direct formula is used.
    """
    eps, a = np.broadcast_arrays(np.asarray(eps, np.float64), np.asarray(a, np.float64))
    out = np.empty(eps.shape)
    with np.errstate(all="ignore"):
        x1 = 0.5 * a - eps / a
        x2 = x1 - a
        tail = x1 < 0
        # Tail branch (x1 < 0): log φ(x1) + log √(π/2) + log(erfcx(z1/√2) − erfcx(z2/√2)).
        z1 = -x1[tail] / math.sqrt(2.0)
        z2 = -x2[tail] / math.sqrt(2.0)
        diff = special.erfcx(z1) - special.erfcx(z2)
        out[tail] = -0.5 * x1[tail] ** 2 - HALF_LOG_2PI + _HALF_LOG_PI_OVER_2 + np.log(diff)
        # Bulk branch (x1 >= 0): Φ(x1) − exp(ε + log Φ(x2)).
        bulk = ~tail
        e, y1, y2 = eps[bulk], x1[bulk], x2[bulk]
        value = special.ndtr(y1) - np.exp(e + special.log_ndtr(y2))
        out[bulk] = np.log(value)
        out[np.isinf(eps) & (eps > 0)] = -np.inf
    return out


def gaussian_privacy_profile(eps: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike = 1.0):
    r"""Exact privacy profile :math:`\delta(\varepsilon)` of the Gaussian mechanism.

    For :math:`\mathcal N(f(x), \sigma^2 I)` with :math:`\ell_2`-sensitivity :math:`\Delta`
    (Balle and Wang 2018, Thm. 8),

    .. math::

        \delta(\varepsilon)
        = E_{e^\varepsilon}\bigl(\mathcal N(\Delta, \sigma^2) \,\Vert\, \mathcal N(0,\sigma^2)\bigr)
        = \Phi\Bigl(\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Bigr)
          - e^{\varepsilon}\,\Phi\Bigl(-\frac{\Delta}{2\sigma} - \frac{\varepsilon\sigma}{\Delta}\Bigr),

    the smallest :math:`\delta` for which the mechanism is :math:`(\varepsilon, \delta)`-DP.
    It is computed in log space (see :func:`_log_profile`) so that tiny values, e.g.
    :math:`10^{-90}`, come out with full relative accuracy, except for
    :math:`\varepsilon \le \Delta^2/(2\sigma^2)` with :math:`\Delta/\sigma \ll 1`, where the
    direct formula loses about :math:`\log_{10}(1/\delta)` digits to cancellation.

    Args:
        eps: :math:`\varepsilon \ge 0` (``inf`` gives 0).
        sensitivity: :math:`\Delta > 0`.
        sigma: :math:`\sigma > 0`.

    Returns:
        :math:`\delta(\varepsilon)`, broadcast (a float for scalar inputs).

    Raises:
        ValueError: For :math:`\varepsilon < 0` or a non-positive ``sensitivity``/``sigma``.

    Examples:
        >>> from fisherrdp.accounting import gaussian_privacy_profile
        >>> print(f"{gaussian_privacy_profile(1.0, 1.0):.10f}")
        0.1269367375
        >>> print(f"{gaussian_privacy_profile(20.0, 1.0):.6e}")
        2.664707e-86
    """
    require_concrete(HOST_ONLY, eps=eps)
    check_concrete("eps", eps, lower=0, allow_nan=False)
    _check_gaussian(sensitivity, sigma)
    a = np.asarray(sensitivity, np.float64) / np.asarray(sigma, np.float64)
    return as_output(np.exp(_log_profile(np.asarray(eps, np.float64), a)))


def _epsilon_scalar(log_delta: float, a: float, rtol: float) -> float:
    if _log_profile(np.array(0.0), np.array(a)) <= log_delta:
        return 0.0

    def f(e):
        return float(_log_profile(np.array(e), np.array(a))) - log_delta

    hi = max(1.0, a * a)
    for _ in range(BRACKET_DOUBLINGS):
        if not f(hi) > 0.0:
            break
        hi *= 2.0
    else:
        raise ValueError(
            f"gaussian_epsilon: no eps <= {hi:g} has a privacy profile <= delta (sensitivity/sigma"
            f" = {a:g}); delta must be in (0, 1) and sensitivity/sigma finite"
        )
    return float(optimize.brentq(f, 0.0, hi, xtol=1e-300, rtol=rtol, maxiter=500))


def gaussian_epsilon(delta: ArrayLike, sensitivity: ArrayLike, sigma: ArrayLike = 1.0):
    r"""Smallest :math:`\varepsilon \ge 0` for which the Gaussian mechanism is
    :math:`(\varepsilon, \delta)`-DP.

    Solves :math:`\log \delta(\varepsilon) = \log \delta` for the profile
    :math:`\delta(\varepsilon)` of :func:`gaussian_privacy_profile` (strictly decreasing in
    :math:`\varepsilon`) by Brent's method, to a relative accuracy of about :math:`10^{-13}`.
    Returns 0 when :math:`\delta(0) = 2\Phi(\Delta/(2\sigma)) - 1 \le \delta`.

    Args:
        delta: :math:`\delta \in (0, 1)`.
        sensitivity: :math:`\Delta > 0`.
        sigma: :math:`\sigma > 0`.

    Returns:
        :math:`\varepsilon`, broadcast (a float for scalar inputs).

    Raises:
        ValueError: For :math:`\delta \notin (0, 1)` or a non-positive ``sensitivity``/``sigma``.

    Examples:
        >>> from fisherrdp.accounting import gaussian_epsilon
        >>> print(f"{gaussian_epsilon(1e-5, 1.0, sigma=2.0):.6f}")
        1.993091
    """
    require_concrete(HOST_ONLY, delta=delta)
    check_concrete(
        "delta",
        delta,
        lower=0,
        upper=1,
        lower_inclusive=False,
        upper_inclusive=False,
        allow_nan=False,
    )
    _check_gaussian(sensitivity, sigma)
    d, s, g = np.broadcast_arrays(
        np.asarray(delta, np.float64),
        np.asarray(sensitivity, np.float64),
        np.asarray(sigma, np.float64),
    )
    out = np.empty(d.shape)
    for index in np.ndindex(d.shape):
        out[index] = _epsilon_scalar(math.log(d[index]), s[index] / g[index], 1e-14)
    return as_output(out)

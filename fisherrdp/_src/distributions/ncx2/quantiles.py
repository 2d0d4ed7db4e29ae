r"""Quantiles of the non-central χ² law (``ppf``, ``isf``).

**Quantiles** (``ppf``, ``isf``). The smaller tail probability t (q or 1 − q) is solved for:
:math:`\log T(x) = \log t` with T = F (``logcdf``) or S (``logsf``), which never underflow, by
Newton steps in :math:`y = \log x` with the exact slope :math:`\pm x p/T`, safeguarded by a
bracket that every evaluation shrinks (a step leaving it is replaced by its midpoint; it starts
at the logarithms of the smallest normal and the largest float), in a ``lax.while_loop`` of at
most ``QUANTILE_STEPS`` steps that stops when a step is below ``QUANTILE_TOL``. First guess:
Patnaik's c·χ²_f with the Wilson–Hilferty cube, or in the far left tail the Poisson k = 0
term. A left-tail root below the smallest normal float underflows to 0 (ppf(1e-300) at
df = 1 is 1.6e-600). Derivatives (``custom_jvp``): the implicit-function rule,
:math:`\partial_q x = 1/p(x)`, :math:`\partial_\theta x = -\partial_\theta F/p` (from the
df, nc tangents of the quadrature above). Accuracy (float64) against 40-digit mpmath roots of
the Poisson-mixture F/S (``tests/fixtures/make_ncx2_quantile_fixtures.py``: 118 quantiles,
df ∈ [1, 1e4], nc ∈ [0, 1e4], q from 1e-300 to 0.99), relative error of x: worst 1.8e-14 in
the left tail (ppf, q ≤ 1e-8), 3.2e-15 in the bulk (0.01 ≤ q ≤ 0.99), 1.7e-15 in the right
tail (isf, q ≤ 1e-8) (claims in ``tests/fixtures/accuracy/ncx2_quantiles.json``); SciPy's
``ncx2.ppf``/``isf`` are off by up to 40 % at q = 1e-300. In the left tail the conditioning
is :math:`|\log F|/(\mathrm{df}/2)` times logcdf's relative error. Cost: typically 5–10
evaluations of the tail quadrature per point; compiling ``ppf``/``isf`` (one shared program)
takes ~10 s.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, Domain, validated
from fisherrdp._src.distributions.ncx2.density import LOG2
from fisherrdp._src.distributions.ncx2.tails import (
    TAIL_BUCKET_CAP,
    log_cdf_sf_tangents,
    log_cdf_sf_values,
)

__all__ = [
    "isf",
    "ppf",
]


#: Most safeguarded Newton steps of a quantile; the loop stops earlier once a step in
#: log x is below QUANTILE_TOL.
QUANTILE_STEPS = 100


QUANTILE_TOL = 1e-15


def _quantile_guess(log_p, lower, df, nc):
    """log x of a first guess at the point with log P(side) = log_p ≤ log ½.

    Patnaik's χ² approximation c·χ²_f (c = (df + 2λ)/(df + λ), f = (df + λ)²/(df + 2λ)) with the
    Wilson–Hilferty cube, and in the far left tail the Poisson k = 0 term,
    F(x) ≈ e^{−λ/2} (x/2)^{df/2} / Γ(df/2 + 1).
    """
    dtype = log_p.dtype
    h = df + nc
    f = h * h / (df + 2.0 * nc)
    c = h / f
    z = jax.scipy.special.ndtri(jnp.maximum(jnp.exp(log_p), jnp.finfo(dtype).tiny))
    z = jnp.where(lower, z, -z)
    scale = jnp.sqrt(2.0 / (9.0 * f))
    base = 1.0 - scale * scale + z * scale
    cube = base > 0.5
    log_wh = jnp.log(c * f) + 3.0 * jnp.log(jnp.where(cube, base, 0.5))
    log_left = LOG2 + 2.0 / df * (log_p + 0.5 * nc + jax.lax.lgamma(0.5 * df + 1.0))
    return jnp.where(cube, log_wh, jnp.minimum(log_wh, log_left))


def _log_side(y, lower, df, nc):
    """(log P(side) at x = e^y, d/dy of it) — side: Y ≤ x where ``lower``, else Y > x."""
    x = jnp.exp(y)
    log_cdf, log_sf, log_p = log_cdf_sf_values(x, df, nc)
    log_side = jnp.where(lower, log_cdf, log_sf)
    slope = jnp.exp(log_p + y - log_side)
    return log_side, jnp.where(lower, slope, -slope)


def _quantile_solve(log_p, lower, df, nc):
    """log x with log P(side)(x) = log_p, for finite log_p ≤ log ½ and valid df, nc.

    Newton steps in y = log x on log P(side)(e^y) − log_p (slope x p/P exactly), safeguarded by
    a bracket [lo, hi] that every evaluation shrinks: a step leaving it is replaced by its
    midpoint. The bracket starts at the logarithms of the smallest normal and the largest float.
    """
    dtype = log_p.dtype
    finfo = jnp.finfo(dtype)
    y0 = jnp.clip(_quantile_guess(log_p, lower, df, nc), math.log(finfo.tiny),
                  math.log(finfo.max) - 1.0)
    lo0 = jnp.full_like(y0, math.log(finfo.tiny))
    hi0 = jnp.full_like(y0, math.log(finfo.max))

    def cond(state):
        _, _, _, step, i = state
        return (i < QUANTILE_STEPS) & jnp.any(jnp.abs(step) > QUANTILE_TOL)

    def body(state):
        y, lo, hi, step, i = state
        value, slope = _log_side(y, lower, df, nc)
        g = value - log_p
        below = jnp.where(lower, g < 0.0, g > 0.0)  # the root lies above y
        lo = jnp.where(below, y, lo)
        hi = jnp.where(below, hi, y)
        newton = y - g / slope
        inside = (newton > lo) & (newton < hi) & jnp.isfinite(newton)
        new = jnp.where(inside, newton, 0.5 * (lo + hi))
        done = jnp.abs(step) <= QUANTILE_TOL
        new = jnp.where(done | (g == 0.0), y, new)
        return new, lo, hi, jnp.where(done, step, new - y), i + 1

    init = (y0, lo0, hi0, jnp.full_like(y0, jnp.inf), 0)
    return jax.lax.while_loop(cond, body, init)[0]


@jax.custom_jvp
def _quantile(log_p, lower, df, nc):
    """x with log P(side)(x) = log_p (side: Y ≤ x where ``lower`` = 1, Y > x where 0), on
    broadcast float arrays; log_p ≤ log ½ or NaN. log_p = −inf gives 0 (lower) or +inf."""
    valid = (df >= 1.0) & (nc >= 0.0) & (log_p <= 0.0)
    finite = valid & (log_p > -jnp.inf)
    is_lower = lower > 0.5
    y = _quantile_solve(jnp.where(finite, log_p, -1.0), is_lower, jnp.where(valid, df, 1.0),
                        jnp.where(valid, nc, 0.0))
    edge = jnp.where(is_lower, 0.0, jnp.inf)
    # A left-side root below the smallest normal float (e.g. ppf(1e-300) at df = 1, 1.6e-600)
    # ends at the bracket's lower end: it underflows to 0.
    x = jnp.where(is_lower & (y <= math.log(float(jnp.finfo(y.dtype).tiny))), 0.0, jnp.exp(y))
    return jnp.where(finite, x, jnp.where(valid, edge, jnp.nan))


def _quantile_jvp(primals, tangents):
    """Implicit function rule: d log P(side)(x; df, nc) = d log_p, with ∂ₓ log P = ±p/P. The
    quadrature is differentiated only where a df or nc tangent is nonzero."""
    log_p, lower, df, nc = primals
    d_log_p, _, ddf, dnc = tangents
    x = _quantile(log_p, lower, df, nc)
    inside = (x > 0.0) & (x < jnp.inf)
    x_in = jnp.where(inside, x, 1.0)
    if isinstance(ddf, SymbolicZero) and isinstance(dnc, SymbolicZero):
        log_cdf, log_sf, log_density = log_cdf_sf_values(x_in, df, nc)
        dcdf = dsf = jnp.zeros_like(x)
    else:  # the df, nc tangents of log F, log S at fixed x, as in log_cdf_sf's rule
        zero = jnp.zeros_like(x)
        ddf = zero if isinstance(ddf, SymbolicZero) else ddf
        dnc = zero if isinstance(dnc, SymbolicZero) else dnc
        log_cdf, log_sf, log_density, dcdf, dsf = log_cdf_sf_tangents(x_in, df, nc, ddf, dnc)
    if isinstance(d_log_p, SymbolicZero):
        d_log_p = jnp.zeros_like(x)
    is_lower = lower > 0.5
    log_side = jnp.where(is_lower, log_cdf, log_sf)
    d_side = jnp.where(is_lower, dcdf, dsf)
    rate = jnp.exp(log_density - log_side)
    dx = (d_log_p - d_side) / jnp.where(is_lower, rate, -rate)
    return x, jnp.where(inside, dx, 0.0)


_quantile.defjvp(_quantile_jvp, symbolic_zeros=True)


@jax.jit
def _quantile_from_q(q, df, nc, upper):
    """ppf (upper = 0) or isf (upper = 1): the smaller tail probability is solved for. One
    program for both (``upper`` is an array), so that the solver is compiled once."""
    small = q <= 0.5
    log_p = jnp.where(small, jnp.log(q), jnp.log1p(-q))
    # ppf: P(Y ≤ x) = q solved on the left where q ≤ ½; isf: P(Y > x) = q on the right.
    lower = jnp.where(small != (upper > 0.5), 1.0, 0.0)
    ok = (q >= 0.0) & (q <= 1.0)
    return jnp.where(ok, _quantile(jnp.where(ok, log_p, 0.0), lower, df, nc), jnp.nan)


def _quantile_public(q, df, nc, upper):
    q, df, nc = as_float_arrays(q, df, nc)
    upper = jnp.asarray(float(upper), q.dtype)
    return map_bucketed(_quantile_from_q, q, df, nc, upper, cap=TAIL_BUCKET_CAP)[0]


@validated(q=Domain(lower=0.0, upper=1.0), df=DIMENSION, nc=NONNEG)
def ppf(q: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Quantile function (inverse of :func:`cdf`), SciPy's ``ncx2.ppf(q, df, nc)``.

    .. math::

        \operatorname{ppf}(q) = x \quad\text{with}\quad F(x) = P(Y \le x) = q.

    For :math:`q \le 1/2` the equation :math:`\log F(x) = \log q` is solved, else
    :math:`\log S(x) = \log(1 - q)` (:func:`logcdf`, :func:`logsf`, which never underflow), by
    safeguarded Newton steps in :math:`\log x` (see the module docstring). Relative accuracy
    about 1e-13 in the bulk and the right tail, down to :math:`q = 10^{-300}` in the left tail
    where :math:`x` is representable (the measured worst per regime is in the module docstring).
    Differentiable in ``q``, ``df`` and ``nc`` by the implicit-function rule,
    :math:`\partial_q x = 1/p(x)`, :math:`\partial_\theta x = -\partial_\theta F / p(x)`.
    Elementwise with broadcasting; works under ``jit`` and ``vmap``.

    Args:
      q: probability in ``[0, 1]``; ``q = 0`` gives ``0``, ``q = 1`` gives ``+inf``.
      df: degrees of freedom, real, ``df >= 1``.
      nc: non-centrality ``λ = θ² >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``q`` is outside ``[0, 1]``, ``df < 1`` or ``nc < 0`` (NaN inside
        ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.ppf(0.5, 2.0, 0.0)), 12)  # central, df = 2: 2 log 2
      1.38629436112
      >>> float(ncx2.ppf(1.0, 4.0, 2.0))
      inf
    """
    return _quantile_public(q, df, nc, False)


@validated(q=Domain(lower=0.0, upper=1.0), df=DIMENSION, nc=NONNEG)
def isf(q: ArrayLike, df: ArrayLike, nc: ArrayLike) -> jax.Array:
    r"""Inverse survival function (inverse of :func:`sf`), SciPy's ``ncx2.isf(q, df, nc)``.

    .. math::

        \operatorname{isf}(q) = x \quad\text{with}\quad S(x) = P(Y > x) = q.

    Same method, accuracy and derivatives as :func:`ppf` (``isf(q) = ppf(1 - q)`` without the
    rounding of ``1 - q``): far right-tail quantiles down to :math:`q = 10^{-300}`.

    Args:
      q: probability in ``[0, 1]``; ``q = 0`` gives ``+inf``, ``q = 1`` gives ``0``.
      df: degrees of freedom, real, ``df >= 1``.
      nc: non-centrality ``λ = θ² >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``q`` is outside ``[0, 1]``, ``df < 1`` or ``nc < 0`` (NaN inside
        ``jit``).

    Examples:
      >>> from fisherrdp.stats import ncx2
      >>> round(float(ncx2.isf(0.5, 2.0, 0.0)), 12)  # central, df = 2: 2 log 2
      1.38629436112
      >>> round(float(ncx2.isf(1e-300, 2.0, 0.0)), 9)  # central, df = 2: 600 log 10
      1381.551055796
    """
    return _quantile_public(q, df, nc, True)

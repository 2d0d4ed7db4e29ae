r"""The numerical path bound of Proposition 3.2 for :math:`k = 1`, with the exact Fisher information.

For :math:`P_\theta = \chi^2_d(\theta^2)` and :math:`\alpha > 1`, the Fisher criterion
(Prop. 3.2, re-derived in ``docs/math/fisher.md#the-fisher-criterion``) reads

.. math::

    D_\alpha(P_a \,\|\, P_b) \le \frac{1}{\alpha - 1}
    \log\Bigl(1 + \alpha \Bigl|\int_b^a \sqrt{I(d, z)}\, e^{(\alpha-1) U(z, b)}\, dz\Bigr|\Bigr),
    \qquad U(z, b) = \frac{(2\alpha - 1)(z - b)^2}{2},

with :math:`U` the post-processing envelope of :math:`D_{2\alpha-1}(P_z \,\|\, P_b)`. Theorem 5.2
replaces :math:`\sqrt{I}` by its supremum and bounds the remaining integral in closed form; here
the integral is evaluated with the exact :math:`I(d, z)` of :func:`ncx2_amplitude_fisher`, which
gives the tightest bound the criterion allows with this envelope.

Quadrature. With :math:`u = |z - b|/\delta \in [0, 1]`, :math:`\delta = |a - b|`, the factor
:math:`e^{\kappa u^2}`, :math:`\kappa = (\alpha-1)(2\alpha-1)\delta^2/2`, concentrates the integral
in a layer of width :math:`\sim 1/(2\kappa)` at :math:`u = 1` when :math:`\kappa` is large
(:math:`\kappa \approx 2.6\cdot 10^5` at :math:`\alpha = 256`, :math:`\delta = 2`). The interval is
therefore split into ``PANELS`` panels graded geometrically towards :math:`u = 1` (edges
:math:`1 - 2^{-j}`, last panel of width :math:`2^{-(\mathrm{PANELS}-1)}`), each with ``NODES``
Gauss–Legendre nodes; :math:`\sqrt{I}` is smooth (analytic, :math:`\approx z\sqrt{2/d}` at 0).
The sum is taken in log space, so :math:`e^{\kappa}` never overflows. The error estimate
(``return_error=True``) is the difference from the same panels with ``COARSE_NODES`` nodes,
propagated to the bound, plus the Fisher information's own error (relative 1e-10 at most in
float64; the Fisher rounding model :math:`\epsilon(64 + 4M)` where larger, as in float32) and the
rounding of the exponents :math:`\kappa u^2`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.custom_derivatives import SymbolicZero
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, ORDER, validated
from fisherrdp._src.fisher.ncx2 import fisher_kernel
from fisherrdp._src.numerics.quadrature import composite_gauss_legendre, graded_edges

#: Geometrically graded panels towards the far end of the path, and nodes per panel.
PANELS = 20
NODES = 8
COARSE_NODES = 6
#: Relative accuracy of the Fisher information at the nodes (``ncx2_amplitude_fisher``).
FISHER_REL_ERROR = 1e-10

__all__ = ["path_bound_ncx2"]


def _log_terms_and_ends(d, a, b, n):
    """Nodes u ∈ [0, 1], log(w · δ · √I(z(u))) along the path from b to a, and log √I at a, b."""
    rule = composite_gauss_legendre(n, graded_edges(PANELS))
    u, w = (jnp.asarray(v, a.dtype) for v in rule)  # in the working dtype
    delta = jnp.abs(a - b)
    z = jnp.concatenate([b + (a - b) * u, jnp.stack([a, b])])
    fisher = jax.vmap(fisher_kernel, in_axes=(None, 0))(d, z)
    log_sqrt = 0.5 * jnp.log(jnp.where(fisher > 0, fisher, 1.0))
    log_sqrt = jnp.where(fisher > 0, log_sqrt, -jnp.inf)
    log_delta = jnp.log(jnp.where(delta > 0, delta, 1.0))
    log_terms = jnp.where(delta > 0, jnp.log(w) + log_delta + log_sqrt[:-2], -jnp.inf)
    return u, log_terms, log_sqrt[-2], log_sqrt[-1]


def _kappa_rate(alpha):
    return 0.5 * (alpha - 1.0) * (2.0 * alpha - 1.0)


def _bound_from_terms(alpha, a, b, u, log_terms):
    """log(1 + α J)/(α − 1), J = Σ exp(log_terms + κ u²), in log space (no overflow)."""
    log_j = jax.nn.logsumexp(log_terms + _kappa_rate(alpha) * (a - b) ** 2 * u * u)
    return jnp.logaddexp(0.0, jnp.log(alpha) + log_j) / (alpha - 1.0)


def _bound(alpha, d, a, b, n):
    u, log_terms, _, _ = _log_terms_and_ends(d, a, b, n)
    return _bound_from_terms(alpha, a, b, u, log_terms)


@jax.custom_jvp
def _path_bound(alpha, d, a, b):
    return _bound(alpha, d, a, b, NODES)


def _path_bound_jvp(primals, tangents):
    r"""Leibniz's rule in α, a, b (no derivative of the Fisher quadrature at every node).

    With :math:`g(z) = \sqrt{I(z)} e^{c (z-b)^2}`, :math:`c = (\alpha-1)(2\alpha-1)/2`,
    :math:`J = |\int_b^a g|`, :math:`s = \mathrm{sign}(a - b)`, :math:`z = b + s\delta u`:
    :math:`\partial_a J = s\, g(a)`,
    :math:`\partial_b J = -s\sqrt{I(b)} - 2 s c\, \delta\, J\, \bar u`,
    :math:`\partial_\alpha J = \tfrac{4\alpha - 3}{2}\, \delta^2 J\, \overline{u^2}`, where the bars
    are means under the weights :math:`w g`; the bound is :math:`B = \log(1+\alpha J)/(\alpha-1)`.
    ``d`` enters only through :math:`I(d, z)` at the nodes: :math:`\partial_d \log J =
    \overline{\partial_d \log(w\delta\sqrt{I})}`, the log-terms' tangents (forward mode through
    the Fisher quadrature, computed only for a nonzero ``d`` tangent). At :math:`a = b` (a kink of
    :math:`|a - b|`) the derivative returned is 0.
    """
    alpha, d, a, b = primals
    alpha_dot, _, a_dot, b_dot = (
        jnp.zeros_like(p) if isinstance(t, SymbolicZero) else t for p, t in zip(primals, tangents)
    )
    d_dot = tangents[1]
    terms_in_d = lambda d: _log_terms_and_ends(d, a, b, NODES)
    if isinstance(d_dot, SymbolicZero):
        u, log_terms, log_sqrt_a, log_sqrt_b = terms_in_d(d)
    else:
        (u, log_terms, log_sqrt_a, log_sqrt_b), (_, log_terms_dot, _, _) = jax.jvp(
            terms_in_d, (d,), (d_dot,)
        )
    kappa = _kappa_rate(alpha) * (a - b) ** 2
    log_g = log_terms + kappa * u * u
    log_j = jax.nn.logsumexp(log_g)
    log_alpha_j = jnp.log(alpha) + log_j
    bound = jnp.logaddexp(0.0, log_alpha_j) / (alpha - 1.0)
    log_g_max = jnp.max(log_g)
    weights = jnp.exp(log_g - jnp.where(jnp.isfinite(log_g_max), log_g_max, 0.0))
    weights = weights / jnp.maximum(jnp.sum(weights), jnp.finfo(weights.dtype).tiny)
    mean_u, mean_u2 = jnp.sum(weights * u), jnp.sum(weights * u * u)
    s = jnp.sign(a - b)
    delta = jnp.abs(a - b)
    share = jax.nn.sigmoid(log_alpha_j)  # αJ/(1 + αJ)
    log_factor = jnp.log(alpha) - jnp.logaddexp(0.0, log_alpha_j)  # log α/(1 + αJ)
    # dB = [α/(1 + αJ)] dJ/(α − 1) + explicit α-dependence of B at fixed J.
    d_a = s * jnp.exp(log_factor + log_sqrt_a + kappa)
    d_b = (
        -s * jnp.exp(log_factor + log_sqrt_b)
        - 2.0 * s * _kappa_rate(alpha) * delta * share * mean_u
    )
    d_alpha = (0.5 * (4.0 * alpha - 3.0) * delta**2 * share * mean_u2 + share / alpha) - bound
    tangent = d_a * a_dot + d_b * b_dot + d_alpha * alpha_dot
    if not isinstance(d_dot, SymbolicZero):
        tangent = tangent + share * jnp.sum(weights * log_terms_dot)
    return bound, tangent / (alpha - 1.0)


_path_bound.defjvp(_path_bound_jvp, symbolic_zeros=True)


def _path_bound_with_error(alpha, d, a, b):
    value = _path_bound(alpha, d, a, b)
    coarse = _bound(alpha, d, a, b, COARSE_NODES)
    # Relative error of J: half that of I under the root (FISHER_REL_ERROR, or the Fisher
    # quadrature's rounding model eps (64 + 4M), M ≈ max(a, b)² + d, where larger: in float32),
    # plus the rounding of the exponents κu² ≤ κ of the log-space sum.
    eps = jnp.finfo(value.dtype).eps
    size = jnp.maximum(a, b) ** 2 + d
    fisher_rel = jnp.maximum(FISHER_REL_ERROR, eps * (64.0 + 4.0 * size))
    rel_j = 0.5 * fisher_rel + eps * (64.0 + _kappa_rate(alpha) * (a - b) ** 2)
    # d B / d log J = (α J/(1 + α J))/(α − 1) = (1 − e^{−(α−1) B})/(α − 1) turns it into an
    # absolute error of B.
    propagated = -rel_j * jnp.expm1(-(alpha - 1.0) * value) / (alpha - 1.0)
    return value, jax.lax.stop_gradient(jnp.abs(value - coarse) + propagated)


_path_bound_vec = jax.jit(jnp.vectorize(_path_bound))
_path_bound_with_error_vec = jax.jit(jnp.vectorize(_path_bound_with_error))


@validated(alpha=ORDER, d=DIMENSION, a=NONNEG, b=NONNEG)
def path_bound_ncx2(
    alpha: ArrayLike, d: ArrayLike, a: ArrayLike, b: ArrayLike, *, return_error: bool = False
):
    r"""Numerical path bound of Proposition 3.2 on :math:`D_\alpha(\chi^2_d(a^2) \,\|\, \chi^2_d(b^2))`.

    .. math::

        D_\alpha(P_a \,\|\, P_b) \le \frac{1}{\alpha - 1}
        \log\Bigl(1 + \alpha \Bigl|\int_b^a \sqrt{I(d, z)}\,
        e^{(\alpha-1)(2\alpha-1)(z-b)^2/2}\, dz\Bigr|\Bigr),

    the Fisher criterion of Proposition 3.2 along the straight path from :math:`b` to :math:`a`
    with the post-processing envelope, evaluated with the exact Fisher information
    :math:`I(d, z)` (:func:`fisherrdp.fisher.ncx2_amplitude_fisher`) instead of the supremum used
    by Theorem 5.2 (:func:`theorem52_bound`, re-derived variant), which it therefore never
    exceeds. Method and quadrature: :mod:`fisherrdp._src.bounds.path_bound`. Elementwise with
    broadcasting, jit-compatible, differentiable in all four arguments, in forward and reverse
    mode (``jax.jvp``/``jacfwd`` and ``jax.grad``/``jacrev``): in ``alpha``, ``a`` and ``b`` by
    Leibniz's rule (at ``a == b``, a kink, the derivative returned is 0), in ``d`` through the
    Fisher information at the quadrature nodes.

    Args:
        alpha: Rényi order, ``alpha > 1``.
        d: Degrees of freedom, ``d >= 1``.
        a: Amplitude :math:`\|v\| \ge 0` of the first law.
        b: Amplitude :math:`\|w\| \ge 0` of the second law (the path starts here).
        return_error: Also return an estimate of the absolute error (not differentiated).

    Returns:
        The bound (or ``(bound, error_estimate)``), with the broadcast shape of the arguments.

    Raises:
        ValueError: For concrete ``alpha <= 1``, ``d < 1``, ``a < 0`` or ``b < 0`` (under
            ``jit`` no check is made and such entries give meaningless values).

    Examples:
        >>> from fisherrdp import bounds
        >>> print(f"{float(bounds.path_bound_ncx2(2.0, 50, 1.0, 0.5)):.6f}")
        0.159126
        >>> float(bounds.path_bound_ncx2(2.0, 50, 1.0, 0.5)) < float(
        ...     bounds.theorem52_bound(2.0, 50, 1.0, 0.5))
        True
    """
    arrays = as_float_arrays(alpha, d, a, b)
    if return_error:
        return map_bucketed(_path_bound_with_error_vec, *arrays)
    return map_bucketed(_path_bound_vec, *arrays)[0]


@jax.jit
def path_bounds_over_alphas(alphas, d, a, b):
    """Bounds for every order in ``alphas`` (1-D) at each path (1-D ``d``, ``a``, ``b``).

    The Fisher information at the nodes does not depend on α, so it is computed once per path:
    the result has shape ``(len(d), len(alphas))``. Used by ``fisherrdp verify``.
    """

    def one_path(d, a, b):
        u, log_terms, _, _ = _log_terms_and_ends(d, a, b, NODES)
        return jax.vmap(_bound_from_terms, in_axes=(0, None, None, None, None))(
            alphas, a, b, u, log_terms
        )

    return jax.vmap(one_path)(d, a, b)

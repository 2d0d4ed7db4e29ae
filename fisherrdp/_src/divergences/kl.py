r"""Exact Kullback–Leibler divergence between non-central chi-square laws.

:func:`kl_ncx2` computes :math:`\mathrm{KL}(\chi^2_d(a^2) \,\|\, \chi^2_d(b^2))`, the
:math:`\alpha \to 1` limit of :func:`~fisherrdp._src.divergences.renyi.renyi_ncx2`, with the
variables, windows, panels and log-likelihood ratio of that module (:math:`r = \sqrt y`,
:math:`L = \delta\,\tilde L(r)`, :math:`\delta = a - b`, :math:`\tilde L` formed without
cancellation as :math:`a \to b`).

**Two forms, chosen elementwise.**

1. *Direct form*: :math:`\mathrm{KL} = E_a[L] = \delta \int p_a \tilde L / \int p_a`
   (:math:`\log p_a = \log p_b + L`), on the panels of :math:`p_a`'s window
   (:math:`\beta = 1`). Its rounding error is about :math:`\epsilon\, E_a|L| / \mathrm{KL}
   \approx \epsilon \sqrt{2/\mathrm{KL}}` relative, and its quadrature error about
   :math:`10^{-17}/\mathrm{KL}` (the rule's error on the masses, times :math:`|L|`).
2. *φ form*, cancellation-free when the divergence is small: since :math:`E_b[e^L] = 1`,

   .. math::

       \mathrm{KL} = E_b[\varphi(L)], \qquad \varphi(L) = 1 + e^L (L - 1)
       = \sum_{n \ge 2} \frac{(n-1)\, L^n}{n!} \ge 0,

   a mean of non-negative terms. :math:`\varphi(L)/L^2` is summed by its series
   (``PSI_TERMS`` terms) for :math:`|L| < 1`; elsewhere :math:`\log\varphi` is
   :math:`L + \log(L - 1 + e^{-L})` for :math:`L > 0` and
   :math:`\operatorname{log1p}(-(1 - L) e^L)` for :math:`L < 0` (no cancellation beyond a
   factor ~4 at :math:`|L| = 1`). The sum is scaled by :math:`\delta^2` (values down to 1e-300
   neither underflow nor lose digits) and divided by :math:`\int p_b` on the same nodes, on
   panels centred at :math:`p_b`'s peak reaching the edges of both windows.

The φ form is used where the direct form gives KL < ``PHI_MAX``, the direct form elsewhere;
the form not used is masked with the double-``where`` trick, so neither values nor gradients
pick up NaN from it (at a = b the φ form runs at a slightly shifted ``a`` and the result is
exactly 0). Gradients in ``a`` and ``b`` differentiate the quadrature (windows held fixed).

**Accuracy** (float64, against 60-digit mpmath, ``tests/fixtures/kl_ncx2.json`` made by
``tests/fixtures/make_kl_ncx2_fixtures.py``; asserted by ``tests/test_kl_ncx2.py``, claims in
``tests/fixtures/accuracy/kl_ncx2.json``), 40 points with d ∈ [1, 1e4], a, b ∈ [0, 100].
Worst relative errors measured per regime: a ≈ b (|a − b| = 1e-6 and 1e-12 relative, values
down to 2e-26): 6.7e-15; a = 0 or b = 0: 1.5e-14; moderate and large (values up to 5e3):
3.2e-14. Against :func:`renyi_ncx2` at α = 1 + 1e-6 it agrees to ~1e-6 relative (the
O(α − 1) term).

**Cost.** As one α of :func:`renyi_ncx2` (2 × 320 quadrature nodes per element); the compiled
program is a separate one, of about the size of :func:`renyi_ncx2`'s (~15–20 s to compile on
two shared CPU cores; the gradient ~40 s).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, validated
from fisherrdp._src.divergences.ncx2_quadrature import (
    PSI_TERMS,
    log_scaled_mean,
    two_window_nodes,
)

__all__ = ["kl_ncx2"]

#: The φ form is used where KL < PHI_MAX (the direct form's relative rounding error,
#: ~ε√(2/KL), is then above 1e-14).
PHI_MAX = 1e-3


def _phi_series(l):
    """φ(L)/L² = Σ_{n≥2} (n − 1) L^{n−2}/n!, Horner in L (|L| < 1)."""
    acc = jnp.zeros_like(l)
    for n in range(PSI_TERMS + 1, 1, -1):
        acc = acc * l + (n - 1) / float(math.factorial(n))
    return acc


def _log_phi_large(l):
    """log φ(L) for |L| ≥ 1."""
    positive = l > 0.0
    lp = jnp.where(positive, l, 1.0)
    ln = jnp.where(positive, -1.0, l)
    log_pos = lp + jnp.log((lp - 1.0) + jnp.exp(-lp))
    log_neg = jnp.log1p(-(1.0 - ln) * jnp.exp(ln))
    return jnp.where(positive, log_pos, log_neg)


def kl_from_nodes(a, b, nodes):
    """KL(P_a ‖ P_b) on the nodes of :func:`two_window_nodes` at α = 1 (``renyi_ncx2`` at α = 1
    takes it from its own nodes, which are these)."""
    n, w_d, w_p, log_pb, l_over, a_phi = nodes
    # 1. Direct form: E_a[L] = δ ∫ p_a L/δ / ∫ p_a, log p_a = log p_b + L.
    log_pa = log_pb[:n] + (a - b) * l_over[:n]
    pa = w_d * jnp.exp(log_pa - jax.lax.stop_gradient(jnp.max(log_pa)))
    direct = (a - b) * jnp.sum(pa * l_over[:n]) / jnp.sum(pa)
    # 2. φ form: log E_b[φ(L)]; used where KL < PHI_MAX.
    use_phi = jax.lax.stop_gradient(direct < PHI_MAX) & (a != b)
    l = (a_phi - b) * l_over[n:]
    small = jnp.abs(l) < 1.0
    log_e = log_scaled_mean(
        log_pb[n:],
        l_over[n:],
        a_phi - b,
        w_p,
        small,
        _phi_series(jnp.where(small, l, 0.0)),
        _log_phi_large(jnp.where(small, 2.0, l)),
    )
    value = jnp.where(use_phi, jnp.exp(jnp.where(use_phi, log_e, 0.0)), direct)
    return jnp.where(a == b, jnp.zeros_like(value), value)


def _kl(d, a, b):
    valid = (d >= 1.0) & (a >= 0.0) & (b >= 0.0)
    d = jnp.where(valid, d, 1.0)
    a = jnp.where(valid, a, 1.0)
    b = jnp.where(valid, b, 1.0)
    # Window 0 at p_a (direct form), window 1 at p_b (φ form).
    value = kl_from_nodes(a, b, two_window_nodes(jnp.ones_like(a), d, a, b))
    return jnp.where(valid, value, jnp.nan)


_kl_vec = jax.jit(jnp.vectorize(_kl))


@validated(d=DIMENSION, a=NONNEG, b=NONNEG)
def kl_ncx2(d: ArrayLike, a: ArrayLike, b: ArrayLike) -> jax.Array:
    r"""Kullback–Leibler divergence between two non-central chi-square laws with the same ``d``.

    .. math::

        \mathrm{KL}\bigl(\chi^2_d(a^2) \,\big\|\, \chi^2_d(b^2)\bigr)
        = \int_0^\infty p_a(y) \log\frac{p_a(y)}{p_b(y)}\, dy
        = \lim_{\alpha \to 1} D_\alpha\bigl(\chi^2_d(a^2) \,\big\|\, \chi^2_d(b^2)\bigr),

    natural logarithm, where :math:`p_\theta` is the density of
    :math:`\|\theta e_1 + N\|^2`, :math:`N \sim \mathcal N(0, I_d)`. It is at most the
    post-processing value :math:`(a-b)^2/2` and equals
    :math:`\tfrac12 I(d, b)(a-b)^2 + o((a-b)^2)` near :math:`a = b`. Computed by quadrature
    in :math:`r = \sqrt y` (method: :mod:`fisherrdp._src.divergences.kl`), keeping its relative
    accuracy where :math:`a \approx b` makes the value tiny, for :math:`d \in [1, 10^4]`,
    :math:`a, b \in [0, 100]` (measured worst relative error 3.2e-14, target 1e-12).
    Elementwise with broadcasting; works under ``jit`` and ``vmap``;
    differentiable in ``a`` and ``b``. ``renyi_ncx2(1.0, d, a, b)`` returns this value.

    Args:
      d: degrees of freedom, real, ``d >= 1``.
      a: amplitude of the first law, ``a >= 0`` (non-centrality ``a**2``).
      b: amplitude of the second law, ``b >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``d < 1``, ``a < 0`` or ``b < 0``. Inside ``jit`` no check is
        possible: such entries come out as NaN.

    Examples:
      >>> from fisherrdp.divergences import kl_ncx2
      >>> print(f"{float(kl_ncx2(50.0, 1.0, 0.5)):.10f}")
      0.0027572836
      >>> float(kl_ncx2(50.0, 1.0, 1.0))
      0.0
    """
    return map_bucketed(_kl_vec, *as_float_arrays(d, a, b))[0]

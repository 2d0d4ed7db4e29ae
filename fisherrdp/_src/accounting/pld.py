r"""Export of the :math:`k = 1` synthetic release as a dp_accounting privacy-loss distribution.

`dp_accounting <https://pypi.org/project/dp-accounting/>`_ (optional: ``pip install
"fisherrdp[dp]"``) composes privacy-loss distributions (PLDs) of many mechanisms. This module
turns the synthetic release of a :class:`~fisherrdp.accounting.SyntheticReleaseMechanism` into
one, so that it can be composed with the user's other mechanisms.

**Construction.** The worst admissible pair is the corner
:math:`(a, b) = (C, C - \Delta)/\sigma` (checked here on a grid of ε with the exact privacy
profile, see :mod:`fisherrdp._src.accounting.worst_case`). For each adjacency direction —
remove: :math:`P = \chi^2_d(a^2)`, :math:`Q = \chi^2_d(b^2)`; add: the reverse — the privacy
loss :math:`L = \log(p/q)(Y)`, :math:`Y \sim P`, is a monotone function of :math:`Y`, so its
tail is :math:`P(L > \ell) = P(S_\ell)` for the half-line :math:`S_\ell` of the hockey-stick
divergence, computed exactly (root of the log-likelihood ratio and accurate log tails, as in
:func:`fisherrdp.divergences.hockey_stick_ncx2`). The mass of :math:`L` in
:math:`((i-1)h, ih]` is put at :math:`ih` (pessimistic rounding, :math:`h` the discretisation
interval), the mass below the first grid point at that point, and the tail beyond
:math:`\ell_{\max}` (where :math:`P(L > \ell_{\max}) \le` ``tail_mass``) at :math:`+\infty`.
Rounding the loss up by at most :math:`h` gives, for every ε,

.. math::

    \delta(\varepsilon) \le \delta_{\mathrm{PLD}}(\varepsilon) \le \delta(\varepsilon - h)
    + \text{tail\_mass},

with δ the exact profile of the release (tested).
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from fisherrdp._src.core.engine import map_points
from fisherrdp._src.divergences.hockey_stick import (
    MIN_ROOT,
    log_likelihood_ratio,
    log_optimal_set_probabilities,
)

__all__ = ["to_dp_accounting_pld"]

#: Points of the loss grid per compiled call.
CHUNK = 1024
#: ε grid on which the corner pair is confirmed to be the worst pair.
CHECK_EPS = (0.0, 0.01, 0.03, 0.1, 0.3, 1.0, 3.0)


@jax.jit
def _log_loss_tail(ell, d, a, b):
    """log P_a(L > ℓ) for L = log(p_a/p_b)(Y), Y ~ χ²_d(a²)."""
    log_pa, _, has_root = log_optimal_set_probabilities(ell, d, a, b)
    return jnp.where(has_root, log_pa, -jnp.inf)


def _direction_pmf(d: float, a: float, b: float, h: float, tail_mass: float):
    """(rounded pmf {index: mass}, infinity mass) of the loss of P = χ²_d(a²) vs Q = χ²_d(b²)."""
    # Range of L: from L(r → 0) (a > b) or -inf side (a < b: L falls from (b² - a²)/2), to where
    # the tail under P is below tail_mass.
    r_far = max(a, b) + math.sqrt(d) + math.sqrt(2.0 * -math.log(tail_mass)) + 1.0
    ell_far = float(
        log_likelihood_ratio(np.array(r_far), np.array(d), np.array(a), np.array(b))[0]
    )
    ell_near = float(
        log_likelihood_ratio(np.array(MIN_ROOT), np.array(d), np.array(a), np.array(b))[0]
    )
    lo, hi = min(ell_near, ell_far), max(ell_near, ell_far)
    first, last = math.ceil(lo / h) - 1, math.ceil(hi / h) + 1
    index = np.arange(first, last + 1)
    ell = index * h
    (log_tail,) = map_points(_log_loss_tail, [ell, d, a, b], chunk=CHUNK)
    tail = np.exp(log_tail)
    # Mass of ((i-1)h, ih] at index i; everything at or below the first point goes there.
    mass = np.concatenate([[1.0 - tail[0]], tail[:-1] - tail[1:]])
    mass = np.maximum(mass, 0.0)
    pmf = {int(i): float(m) for i, m in zip(index, mass) if m > 0.0}
    return pmf, float(tail[-1])


def to_dp_accounting_pld(
    mechanism, *, value_discretization_interval: float = 1e-4, tail_mass: float = 1e-15
):
    r"""The synthetic release's privacy-loss distribution, as a dp_accounting object.

    Args:
        mechanism: A :class:`~fisherrdp.accounting.SyntheticReleaseMechanism` with ``k == 1`` and
            ``n_syn == inf`` (the exact case with a closed-form worst pair).
        value_discretization_interval: The loss grid :math:`h > 0` (dp_accounting's name).
        tail_mass: Loss tail probability put at :math:`+\infty`, in (0, 1e-3].

    Returns:
        A ``dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution`` (not
        symmetric: remove and add directions are both exact), pessimistic.

    Raises:
        ImportError: If dp_accounting is not installed.
        ValueError: For ``k > 1`` or finite ``n_syn`` (no exact PLD), bad knobs, or if the
            corner pair is not the worst pair on the check grid.

    Examples:
        >>> from fisherrdp.accounting import SyntheticReleaseMechanism, to_dp_accounting_pld
        >>> mech = SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1)
        >>> pld = to_dp_accounting_pld(mech, value_discretization_interval=1e-3)
        >>> exact = mech.privacy_profile(0.01)
        >>> print(f"{exact:.6f} <= {pld.get_delta_for_epsilon(0.01):.6f}")
        0.001883 <= 0.001994
    """
    try:
        from dp_accounting.pld import privacy_loss_distribution
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "to_dp_accounting_pld needs dp_accounting: pip install 'fisherrdp[dp]'"
        ) from e
    if mechanism.k != 1 or not math.isinf(mechanism.n_syn):
        raise ValueError(
            "to_dp_accounting_pld: an exact privacy-loss distribution is available for k = 1 and "
            f"n_syn = inf only, got k = {mechanism.k}, n_syn = {mechanism.n_syn:g}"
        )
    h = float(value_discretization_interval)
    if not h > 0:
        raise ValueError(f"argument 'value_discretization_interval' must be > 0, got {h}")
    if not 0 < tail_mass <= 1e-3:
        raise ValueError(f"argument 'tail_mass' must be in (0, 1e-3], got {tail_mass}")
    check = mechanism.privacy_profile(np.asarray(CHECK_EPS), details=True)
    if not np.all(check.at_corner):
        raise ValueError("to_dp_accounting_pld: the corner pair is not the worst pair")
    c = mechanism.norm_bound
    b = c - min(mechanism.scaled_sensitivity, c)
    remove, inf_remove = _direction_pmf(mechanism.d, c, b, h, tail_mass)
    add, inf_add = _direction_pmf(mechanism.d, b, c, h, tail_mass)
    return privacy_loss_distribution.PrivacyLossDistribution.create_from_rounded_probability(
        remove,
        inf_remove,
        h,
        pessimistic_estimate=True,
        rounded_probability_mass_function_add=add,
        infinity_mass_add=inf_add,
        symmetric=False,
    )

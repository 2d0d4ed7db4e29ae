"""Sample-based (variational) estimators, cross-checks for the exact values.

:func:`estimate_renyi`: Rényi divergences by the convex-conjugate representation of Birrell et
al. (2023) (and the Rényi–Donsker–Varadhan variant for comparison), returning a
:class:`RenyiEstimate`. :func:`estimate_fisher`: Fisher information by the variational
(Cramér–Rao) form with pathwise derivatives through a differentiable sampler, returning a
:class:`FisherEstimate`. Both train vmapped ensembles of equinox networks with optax, many
points at once, and give a 95% interval from held-out samples with a ``reliable`` flag and its
reason. Samplers of the synthetic releases: :mod:`fisherrdp.release`. Implementation, accuracy
and cost notes: :mod:`fisherrdp._src.variational`.
"""

from fisherrdp._src.variational import (
    FisherEstimate,
    RenyiEstimate,
    estimate_fisher,
    estimate_renyi,
    poly_softplus_log,
)

__all__ = [
    "FisherEstimate",
    "RenyiEstimate",
    "estimate_fisher",
    "estimate_renyi",
    "poly_softplus_log",
]

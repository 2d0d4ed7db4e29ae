"""Variational (sample-based) estimators: Rényi divergences (:mod:`.renyi`) and Fisher
information (:mod:`.fisher`), trained as vmapped ensembles of equinox networks with optax
(:mod:`.training`), with reliability diagnostics (:mod:`.diagnostics`)."""

from fisherrdp._src.variational.fisher import FisherEstimate, estimate_fisher
from fisherrdp._src.variational.renyi import RenyiEstimate, estimate_renyi, poly_softplus_log

__all__ = [
    "FisherEstimate",
    "RenyiEstimate",
    "estimate_fisher",
    "estimate_renyi",
    "poly_softplus_log",
]

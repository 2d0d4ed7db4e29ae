"""Sample-based (variational) estimation of Rényi divergences: :func:`estimate_renyi`, the
convex-conjugate estimator of Birrell et al. (2023) with a small MLP trained by optax (and the
Rényi–Donsker–Varadhan variant for comparison), returning a :class:`RenyiEstimate` with a 95%
interval from held-out samples. Samplers of the synthetic releases:
:func:`fisherrdp.release.release_samplers`. Implementation, accuracy and cost notes:
:mod:`fisherrdp._src.variational`.
"""

from fisherrdp._src.variational import RenyiEstimate, estimate_renyi, poly_softplus_log

__all__ = ["RenyiEstimate", "estimate_renyi", "poly_softplus_log"]

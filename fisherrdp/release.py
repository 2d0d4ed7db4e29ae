"""Samplers of the releases of the mechanism (``docs/math/index.md#the-mechanism``): the model ``V = v + σN``
(:func:`sample_model`), the synthetic data ``ZV`` (:func:`sample_synthetic`), its Gram matrix
``(ZV)ᵀZV`` at a cost independent of ``n_syn`` (:func:`sample_gram`, Bartlett decomposition),
the sampler pairs for the variational Rényi estimator (:func:`release_samplers`), and the sampler
of releases along a path, differentiable in its parameter, for the variational Fisher-information
estimator (:func:`release_path_sampler`). Every sampler is differentiable in its parameters at a
fixed key. Implementation notes: :mod:`fisherrdp._src.release.samplers`.
"""

from fisherrdp._src.release.samplers import (
    release_path_sampler,
    release_samplers,
    sample_gram,
    sample_model,
    sample_synthetic,
)

__all__ = [
    "release_path_sampler",
    "release_samplers",
    "sample_gram",
    "sample_model",
    "sample_synthetic",
]

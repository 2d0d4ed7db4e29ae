"""Samplers of the releases of the mechanism (``MATH.md`` §1): the model ``V = v + σN``
(:func:`sample_model`), the synthetic data ``ZV`` (:func:`sample_synthetic`), its Gram matrix
``(ZV)ᵀZV`` at a cost independent of ``n_syn`` (:func:`sample_gram`, Bartlett decomposition),
and the sampler pairs for the variational estimator (:func:`release_samplers`). Implementation
notes: :mod:`fisherrdp._src.release`.
"""

from fisherrdp._src.release import (
    release_samplers,
    sample_gram,
    sample_model,
    sample_synthetic,
)

__all__ = ["release_samplers", "sample_gram", "sample_model", "sample_synthetic"]

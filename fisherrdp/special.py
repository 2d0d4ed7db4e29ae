"""Special functions: log Bessel I_ν and K_ν, Bessel ratios and log ₀F₁, in JAX.

Elementwise with broadcasting; jit-, vmap-, grad- and jacfwd-compatible; differentiable in every
argument. Implementation and accuracy notes: :mod:`fisherrdp._src.special.bessel` (I_ν, ₀F₁)
and :mod:`fisherrdp._src.special.bessel_k` (``log_bessel_k``, ``log_bessel_kve``: K_ν for any
real order, ``docs/math/bessel.md#the-second-kind``).

``log_hyp0f1_matrix(b, X)`` / ``log_hyp0f1_eigs(b, eigenvalues)``: log ₀F₁(; b; X) of a
symmetric PSD matrix argument (Jack parameter 2), batched over leading axes; notes:
:mod:`fisherrdp._src.special.hyp0f1_matrix`.
"""

from fisherrdp._src.special.bessel import (
    bessel_ratio,
    log_bessel_i,
    log_bessel_ive,
    log_hyp0f1,
)
from fisherrdp._src.special.bessel_k import log_bessel_k, log_bessel_kve
from fisherrdp._src.special.hyp0f1_matrix import log_hyp0f1_eigs, log_hyp0f1_matrix

__all__ = [
    "bessel_ratio",
    "log_bessel_i",
    "log_bessel_ive",
    "log_bessel_k",
    "log_bessel_kve",
    "log_hyp0f1",
    "log_hyp0f1_eigs",
    "log_hyp0f1_matrix",
]

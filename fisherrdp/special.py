"""Special functions: log Bessel I_ν, Bessel ratios and log ₀F₁, in JAX.

Elementwise with broadcasting; jit-, vmap-, grad- and jacfwd-compatible; differentiable in every
argument. Implementation and accuracy notes: :mod:`fisherrdp._src.special.bessel`.
"""

from fisherrdp._src.special.bessel import (
    bessel_ratio,
    log_bessel_i,
    log_bessel_ive,
    log_hyp0f1,
)

__all__ = ["bessel_ratio", "log_bessel_i", "log_bessel_ive", "log_hyp0f1"]

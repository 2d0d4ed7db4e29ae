"""Special functions: log Bessel I, Bessel ratios, log ₀F₁ (scalar and, later, matrix argument)."""

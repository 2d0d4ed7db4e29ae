"""The non-central Wishart law W_k(df, I_k, Ω), Ω = μᵀμ (the law of VᵀV, V = μ + N): ``logpdf``,
``mean``, ``sample``. Implementation and accuracy notes: :mod:`fisherrdp._src.distributions.ncwishart`.
"""

from fisherrdp._src.distributions.ncwishart import logpdf, mean, sample

__all__ = ["logpdf", "mean", "sample"]

"""The non-central chi-square law, SciPy's ``ncx2(df, nc)``: ``logpdf``, ``pdf``, ``mean``,
``var``, ``sample``. Implementation and accuracy notes: :mod:`fisherrdp._src.distributions.ncx2`.
"""

from fisherrdp._src.distributions.ncx2 import logpdf, mean, pdf, sample, var

__all__ = ["logpdf", "pdf", "mean", "var", "sample"]

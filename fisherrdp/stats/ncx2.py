"""The non-central chi-square law, SciPy's ``ncx2(df, nc)``: ``logpdf``, ``pdf``, ``logcdf``,
``logsf``, ``cdf``, ``sf``, the quantiles ``ppf`` (inverse of ``cdf``) and ``isf`` (inverse of
``sf``, accurate far into the right tail), ``mean``, ``var``, ``sample``. Implementation and
accuracy notes: :mod:`fisherrdp._src.distributions.ncx2`.
"""

from fisherrdp._src.distributions.ncx2.density import logpdf, pdf
from fisherrdp._src.distributions.ncx2.moments import mean, sample, var
from fisherrdp._src.distributions.ncx2.quantiles import isf, ppf
from fisherrdp._src.distributions.ncx2.tails import cdf, logcdf, logsf, sf

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "mean", "pdf", "ppf", "sample", "sf", "var"]

"""The non-central chi-square law, SciPy's ``ncx2(df, nc)``: ``logpdf``, ``pdf``, ``logcdf``,
``logsf``, ``cdf``, ``sf``, ``mean``, ``var``, ``sample``. Implementation and accuracy notes:
:mod:`fisherrdp._src.distributions.ncx2`.
"""

from fisherrdp._src.distributions.ncx2 import (
    cdf,
    logcdf,
    logpdf,
    logsf,
    mean,
    pdf,
    sample,
    sf,
    var,
)

__all__ = ["logpdf", "pdf", "logcdf", "logsf", "cdf", "sf", "mean", "var", "sample"]

"""Probability distributions, in JAX: log-densities, moments and samplers.

Each law is a module, as in ``jax.scipy.stats``:

``ncx2`` — the non-central chi-square law in SciPy's conventions (``df``, ``nc`` = λ = θ²):
``ncx2.logpdf(x, df, nc)``, ``ncx2.pdf``, the distribution and survival functions
``ncx2.logcdf(x, df, nc)``, ``ncx2.logsf``, ``ncx2.cdf``, ``ncx2.sf`` (accurate in both
tails), ``ncx2.mean(df, nc)``, ``ncx2.var(df, nc)``,
``ncx2.sample(key, df, nc, shape)``. Implementation and accuracy notes:
:mod:`fisherrdp._src.distributions.ncx2`.
"""

from fisherrdp.stats import ncx2

__all__ = ["ncx2"]

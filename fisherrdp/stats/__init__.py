"""Probability distributions, in JAX: log-densities, moments and samplers.

Each law is a module, as in ``jax.scipy.stats``:

``ncx2`` — the non-central chi-square law in SciPy's conventions (``df``, ``nc`` = λ = θ²):
``ncx2.logpdf(x, df, nc)``, ``ncx2.pdf``, the distribution and survival functions
``ncx2.logcdf(x, df, nc)``, ``ncx2.logsf``, ``ncx2.cdf``, ``ncx2.sf`` (accurate in both
tails), ``ncx2.mean(df, nc)``, ``ncx2.var(df, nc)``,
``ncx2.sample(key, df, nc, shape)``. Implementation and accuracy notes:
:mod:`fisherrdp._src.distributions.ncx2`.

``ncwishart`` — the non-central Wishart law W_k(df, I_k, Ω), Ω = μᵀμ (the law of VᵀV):
``ncwishart.logpdf(Y, df, noncentrality)``, ``ncwishart.mean(df, noncentrality)``,
``ncwishart.sample(key, df, mu, shape)``. Notes: :mod:`fisherrdp._src.distributions.ncwishart`.
"""

from fisherrdp.stats import ncwishart, ncx2

__all__ = ["ncwishart", "ncx2"]

r"""The non-central chi-square law :math:`\chi^2_{\mathrm{df}}(\lambda)`, in JAX.

Conventions are SciPy's (``scipy.stats.ncx2(df, nc)``): ``df`` degrees of freedom (real,
``df >= 1``) and non-centrality ``nc`` :math:`= \lambda = \theta^2 \ge 0`, the law of
:math:`Y = \lVert \theta e_1 + N \rVert^2` with :math:`N \sim \mathcal N(0, I_{\mathrm{df}})`.
The density is

.. math::

    p(x) = \tfrac12\, e^{-(x+\lambda)/2} \Bigl(\frac{x}{\lambda}\Bigr)^{\mathrm{df}/4 - 1/2}
    I_{\mathrm{df}/2 - 1}\bigl(\sqrt{\lambda x}\bigr), \qquad x > 0.

One module per part: ``density`` (log-density, two forms), ``tails`` (cdf and sf in log
space), ``quantiles`` (ppf, isf) and ``moments`` (mean, var, sampler).
"""

r"""The figures of ``fisherrdp figures``, as functions returning :class:`matplotlib.figure.Figure`.

Each ``*_data`` function computes the curves (NumPy arrays in a dict) and each ``*_figure``
function draws them; the drawing uses :class:`matplotlib.figure.Figure` directly (no ``pyplot``
state), so it works with any backend and in notebooks.

One module per figure: ``fisher_bounds``, ``amplification_ratio``, ``loss_vs_dimension``, ``privacy_profiles``, ``sigma_vs_dimension``, ``release_vs_nsyn``, ``wishart_fisher``, ``wishart_renyi``.
"""

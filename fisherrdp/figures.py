"""The figures of ``fisherrdp figures``: data functions and matplotlib ``Figure`` builders.

``fisher_bounds_*`` (I(d, θ) with every Fisher bound), ``amplification_ratio_*`` (the paper's
Fig. 3, exact), ``loss_vs_dimension_*`` (Fig. 6 with the exact loss and the path bound),
``release_vs_nsyn_*`` (Fig. 2, exact: the loss of a release of n_syn synthetic records against
n_syn), the accountant's ``privacy_profiles_*`` and ``sigma_vs_dimension_*``,
``wishart_fisher_*`` (k > 1: Monte Carlo Fisher information along the Wishart path against
Theorem 5.3) and ``wishart_renyi_*`` (k = 2: the exact Rényi divergence of the Gram matrices
against Theorem 5.4). Implementation: one module per figure in :mod:`fisherrdp._src.figures`.
"""

from fisherrdp._src.figures.amplification_ratio import (
    amplification_ratio_data,
    amplification_ratio_figure,
)
from fisherrdp._src.figures.fisher_bounds import fisher_bounds_data, fisher_bounds_figure
from fisherrdp._src.figures.loss_vs_dimension import (
    loss_vs_dimension_data,
    loss_vs_dimension_figure,
)
from fisherrdp._src.figures.privacy_profiles import privacy_profiles_data, privacy_profiles_figure
from fisherrdp._src.figures.release_vs_nsyn import release_vs_nsyn_data, release_vs_nsyn_figure
from fisherrdp._src.figures.sigma_vs_dimension import (
    sigma_vs_dimension_data,
    sigma_vs_dimension_figure,
)
from fisherrdp._src.figures.wishart_fisher import wishart_fisher_data, wishart_fisher_figure
from fisherrdp._src.figures.wishart_renyi import wishart_renyi_data, wishart_renyi_figure

__all__ = [
    "amplification_ratio_data",
    "amplification_ratio_figure",
    "fisher_bounds_data",
    "fisher_bounds_figure",
    "loss_vs_dimension_data",
    "loss_vs_dimension_figure",
    "privacy_profiles_data",
    "privacy_profiles_figure",
    "release_vs_nsyn_data",
    "release_vs_nsyn_figure",
    "sigma_vs_dimension_data",
    "sigma_vs_dimension_figure",
    "wishart_fisher_data",
    "wishart_fisher_figure",
    "wishart_renyi_data",
    "wishart_renyi_figure",
]

"""The figures of ``fisherrdp figures``: data functions and matplotlib ``Figure`` builders.

``fisher_bounds_*`` (I(d, θ) with every Fisher bound), ``amplification_ratio_*`` (the paper's
Fig. 3, exact) and ``loss_vs_dimension_*`` (Fig. 6 with the exact loss and the path bound).
Implementation: :mod:`fisherrdp._src.figures`.
"""

from fisherrdp._src.figures import (
    amplification_ratio_data,
    amplification_ratio_figure,
    fisher_bounds_data,
    fisher_bounds_figure,
    loss_vs_dimension_data,
    loss_vs_dimension_figure,
)

__all__ = [
    "fisher_bounds_data",
    "fisher_bounds_figure",
    "amplification_ratio_data",
    "amplification_ratio_figure",
    "loss_vs_dimension_data",
    "loss_vs_dimension_figure",
]

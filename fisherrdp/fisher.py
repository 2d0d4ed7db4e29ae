"""Fisher information of the non-central chi-square family: ``ncx2_amplitude_fisher(d, theta)``.

Implementation and accuracy notes: :mod:`fisherrdp._src.fisher.ncx2`. Along the non-central
Wishart path of Theorems 5.3/5.4 (k >= 1), Monte Carlo estimates with the exact score:
``wishart_path_fisher(v, w, theta, *, key, n_samples)`` and the Prop. 3.2 path integral
``wishart_path_fisher_integral(v, w, alpha, *, key, n_samples, n_theta)`` (notes:
:mod:`fisherrdp._src.fisher.wishart`). Exact versions for k <= 2 (3-D cubature, relative
error below 1e-8): ``wishart_path_fisher_exact(v, w, theta)`` and the path bound
``wishart_path_bound_exact(v, w, alpha)`` (notes: :mod:`fisherrdp._src.fisher.wishart_exact`).
"""

from fisherrdp._src.fisher.ncx2 import ncx2_amplitude_fisher
from fisherrdp._src.fisher.wishart import (
    PathIntegral,
    wishart_path_fisher,
    wishart_path_fisher_integral,
)
from fisherrdp._src.fisher.wishart_exact import (
    wishart_path_bound_exact,
    wishart_path_fisher_exact,
)

__all__ = [
    "PathIntegral",
    "ncx2_amplitude_fisher",
    "wishart_path_bound_exact",
    "wishart_path_fisher",
    "wishart_path_fisher_exact",
    "wishart_path_fisher_integral",
]

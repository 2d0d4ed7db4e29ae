"""The paper's closed-form bounds, each a pure function citing its theorem.

Fisher-information bounds for θ ↦ χ²_d(θ²) (Prop 5.1, App. E.1, App. F.3), the local expansion
(Prop 3.1), the Theorem 5.1 envelope, Theorems 5.2–5.4 in both the printed and the re-derived
reading, the building blocks of the Prop 3.2 path bound, and that bound evaluated with the exact
Fisher information (:func:`path_bound_ncx2`). Implementation and derivations:
:mod:`fisherrdp._src.bounds` and :mod:`fisherrdp._src.bounds.path_bound`; the mathematics:
``docs/math/paper.md``.
"""

from fisherrdp._src.bounds.fisher_information import (
    fisher_lower_prop51,
    fisher_upper_idier_collewet,
    fisher_upper_poincare,
    fisher_upper_prop51,
    fisher_upper_quadratic,
    fisher_upper_trivial,
)
from fisherrdp._src.bounds.path_bound import path_bound_ncx2
from fisherrdp._src.bounds.renyi_envelopes import (
    gaussian_renyi,
    local_expansion_prop31,
    theorem51_envelope,
)
from fisherrdp._src.bounds.theorems import (
    path_bound_from_integral,
    postprocessing_envelope,
    theorem52_bound,
    theorem53_fisher_bound,
    theorem54_bound,
)

__all__ = [  # noqa: RUF022 - grouped, the order of the API page and of the scan registry
    "fisher_lower_prop51",
    "fisher_upper_prop51",
    "fisher_upper_quadratic",
    "fisher_upper_idier_collewet",
    "fisher_upper_poincare",
    "fisher_upper_trivial",
    "gaussian_renyi",
    "local_expansion_prop31",
    "theorem51_envelope",
    "theorem52_bound",
    "theorem53_fisher_bound",
    "theorem54_bound",
    "path_bound_from_integral",
    "postprocessing_envelope",
    "path_bound_ncx2",
]

"""Divergences between non-central chi-square laws: ``renyi_ncx2(alpha, d, a, b)``;
the hockey-stick divergence ``hockey_stick_ncx2(eps, d, a, b)``, the privacy profile
``privacy_profile_ncx2(eps, d, a, b)`` and its inverse ``epsilon_for_delta_ncx2(delta, d, a, b)``
(notes: :mod:`fisherrdp._src.divergences.hockey_stick`).

:func:`gaussian_renyi` (the model-release baseline :math:`\\alpha\\Delta^2/2`) is re-exported
from :mod:`fisherrdp.bounds`. Implementation and accuracy notes:
:mod:`fisherrdp._src.divergences.renyi`.
"""

from fisherrdp._src.bounds import gaussian_renyi
from fisherrdp._src.divergences.hockey_stick import (
    epsilon_for_delta_ncx2,
    hockey_stick_ncx2,
    privacy_profile_ncx2,
)
from fisherrdp._src.divergences.renyi import renyi_ncx2

__all__ = [
    "renyi_ncx2",
    "gaussian_renyi",
    "hockey_stick_ncx2",
    "privacy_profile_ncx2",
    "epsilon_for_delta_ncx2",
]

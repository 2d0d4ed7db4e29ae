"""Divergences between non-central chi-square laws: ``renyi_ncx2(alpha, d, a, b)`` and its
α → 1 limit ``kl_ncx2(d, a, b)`` (notes: :mod:`fisherrdp._src.divergences.kl`);
the hockey-stick divergence ``hockey_stick_ncx2(eps, d, a, b)``, the privacy profile
``privacy_profile_ncx2(eps, d, a, b)`` and its inverse ``epsilon_for_delta_ncx2(delta, d, a, b)``
(notes: :mod:`fisherrdp._src.divergences.hockey_stick`); the exact finite-release (k = 1)
divergences ``renyi_release_k1(alpha, d, n_syn, a, b)`` and
``hockey_stick_release_k1(eps, d, n_syn, a, b)`` (notes:
:mod:`fisherrdp._src.divergences.release_k1`).

:func:`gaussian_renyi` (the model-release baseline :math:`\\alpha\\Delta^2/2`) is re-exported
from :mod:`fisherrdp.bounds`. Implementation and accuracy notes:
:mod:`fisherrdp._src.divergences.renyi`. For k >= 1 (non-central Wishart laws),
``renyi_ncwishart_mc(alpha, d, v, w, *, key, n_samples)`` is a Monte Carlo estimate on exact
log-densities (notes: :mod:`fisherrdp._src.divergences.renyi_wishart_mc`); for k <= 2 the
exact ``renyi_ncwishart(alpha, d, v, w)`` and ``renyi_ncwishart_gram(alpha, d, omega_v, omega_w)``
(3-D cubature, relative error below 1e-8; notes: :mod:`fisherrdp._src.divergences.renyi_wishart`).
"""

from fisherrdp._src.bounds.renyi_envelopes import gaussian_renyi
from fisherrdp._src.divergences.hockey_stick import (
    epsilon_for_delta_ncx2,
    hockey_stick_ncx2,
    privacy_profile_ncx2,
)
from fisherrdp._src.divergences.kl import kl_ncx2
from fisherrdp._src.divergences.release_k1 import (
    hockey_stick_release_k1,
    renyi_release_k1,
)
from fisherrdp._src.divergences.renyi import renyi_ncx2
from fisherrdp._src.divergences.renyi_wishart import renyi_ncwishart, renyi_ncwishart_gram
from fisherrdp._src.divergences.renyi_wishart_mc import RenyiMC, renyi_ncwishart_mc

__all__ = [
    "RenyiMC",
    "epsilon_for_delta_ncx2",
    "gaussian_renyi",
    "hockey_stick_ncx2",
    "hockey_stick_release_k1",
    "kl_ncx2",
    "privacy_profile_ncx2",
    "renyi_ncwishart",
    "renyi_ncwishart_gram",
    "renyi_ncwishart_mc",
    "renyi_ncx2",
    "renyi_release_k1",
]

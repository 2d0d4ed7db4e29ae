"""Privacy accounting: from Rényi-DP and privacy profiles to (ε, δ), and subsampling.

* :func:`rdp_to_dp`: RDP curve on a grid of orders → (ε, δ)-DP (Mironov 2017; Balle et al.
  2020, Thm. 21 / Canonne–Kamath–Steinke 2020).
* The Gaussian mechanism, exactly: :func:`gaussian_rdp`, :func:`gaussian_privacy_profile`
  (Balle & Wang 2018, analytic Gaussian) and its inverse :func:`gaussian_epsilon`.
* :func:`hockey_stick` for discrete distributions, and amplification by subsampling
  (Balle, Barthe & Gaboardi 2018): :func:`amplify_by_subsampling`, :func:`amplify_profile`.

Implementation: :mod:`fisherrdp._src.accounting`; the mathematics: ``../shared/notes/MATH.md`` §5.
"""

from fisherrdp._src.accounting.conversions import (
    gaussian_epsilon,
    gaussian_privacy_profile,
    gaussian_rdp,
    rdp_to_dp,
)
from fisherrdp._src.accounting.subsampling import (
    amplify_by_subsampling,
    amplify_profile,
    hockey_stick,
)

__all__ = [
    "amplify_by_subsampling",
    "amplify_profile",
    "gaussian_epsilon",
    "gaussian_privacy_profile",
    "gaussian_rdp",
    "hockey_stick",
    "rdp_to_dp",
]

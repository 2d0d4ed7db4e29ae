"""Privacy accounting: the synthetic release, RDP and privacy profiles, (ε, δ), subsampling.

* :class:`SyntheticReleaseMechanism`: RDP curve, privacy profile and ε(δ) of a synthetic-data
  release (exact for k = 1, a rigorous bound for k > 1), side by side with the model release;
  :func:`calibrate_sigma` finds the noise a target (ε, δ) needs.
* :func:`to_dp_accounting_pld`: the k = 1 release as a dp_accounting privacy-loss distribution
  (optional dependency), to compose it with other mechanisms.
* :func:`rdp_to_dp`: RDP curve on a grid of orders → (ε, δ)-DP (Mironov 2017; Balle et al.
  2020, Thm. 21 / Canonne–Kamath–Steinke 2020).
* The Gaussian mechanism, exactly: :func:`gaussian_rdp`, :func:`gaussian_privacy_profile`
  (Balle & Wang 2018, analytic Gaussian) and its inverse :func:`gaussian_epsilon`.
* :func:`hockey_stick` for discrete distributions, and amplification by subsampling
  (Balle, Barthe & Gaboardi 2018): :func:`amplify_by_subsampling`, :func:`amplify_profile`.

Implementation: :mod:`fisherrdp._src.accounting`; the mathematics: ``docs/math/accountant.md``.
"""

from fisherrdp._src.accounting.conversions import (
    gaussian_epsilon,
    gaussian_privacy_profile,
    gaussian_rdp,
    rdp_to_dp,
)
from fisherrdp._src.accounting.pld import to_dp_accounting_pld
from fisherrdp._src.accounting.subsampling import (
    amplify_by_subsampling,
    amplify_profile,
    hockey_stick,
)
from fisherrdp._src.accounting.synthetic import (
    Calibration,
    SyntheticReleaseMechanism,
    calibrate_sigma,
)
from fisherrdp._src.accounting.worst_case import WorstCase

__all__ = [
    "Calibration",
    "SyntheticReleaseMechanism",
    "WorstCase",
    "amplify_by_subsampling",
    "amplify_profile",
    "calibrate_sigma",
    "gaussian_epsilon",
    "gaussian_privacy_profile",
    "gaussian_rdp",
    "hockey_stick",
    "rdp_to_dp",
    "to_dp_accounting_pld",
]

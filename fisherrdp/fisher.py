"""Fisher information of the non-central chi-square family: ``ncx2_amplitude_fisher(d, theta)``.

Implementation and accuracy notes: :mod:`fisherrdp._src.fisher`.
"""

from fisherrdp._src.fisher import ncx2_amplitude_fisher

__all__ = ["ncx2_amplitude_fisher"]

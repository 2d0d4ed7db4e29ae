"""Privacy accounting: RDP → (ε, δ) conversions, the exact Gaussian profile, subsampling.

Implementation modules behind the public :mod:`fisherrdp.accounting`:
:mod:`fisherrdp._src.accounting.conversions` and :mod:`fisherrdp._src.accounting.subsampling`.
The mathematics is in ``docs/math/accountant.md``.
"""

"""fisherrdp: exact privacy-amplification numerics for synthetic data release, in JAX.

Importing fisherrdp turns on float64 in JAX (see :mod:`fisherrdp._src.config`).
"""

from fisherrdp._src.config import enable_x64_by_default as _enable_x64_by_default

_enable_x64_by_default()

from fisherrdp import bounds, divergences, fisher, scan, special, stats  # noqa: E402

__version__ = "0.1.0"
__all__ = ["bounds", "divergences", "fisher", "scan", "special", "stats", "__version__"]

"""fisherrdp: exact privacy-amplification numerics for synthetic data release, in JAX.

Importing fisherrdp turns on float64 in JAX and JAX's persistent compilation cache in
``~/.cache/fisherrdp`` (``FISHERRDP_CACHE_DIR`` moves it, ``FISHERRDP_NO_CACHE=1`` turns it off;
see :mod:`fisherrdp._src.core.config`).
"""

from fisherrdp._src.core import config as _config

_config.enable_x64_by_default()
_config.enable_compilation_cache()

from fisherrdp import bounds, divergences, fisher, scan, special, stats  # noqa: E402
from fisherrdp._src.core.version import VERSION as __version__  # noqa: E402

__all__ = ["__version__", "bounds", "divergences", "fisher", "scan", "special", "stats"]

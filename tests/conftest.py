"""Global test settings, and the only place for them.

Tests run in float64: JAX's x64 flag is turned on here, before any test module is imported,
and fisherrdp is imported (which would turn it on anyway unless FISHERRDP_NO_X64 is set).
A test that needs another JAX setting must restore it, e.g. with ``jax.experimental.enable_x64``
style context managers or try/finally around ``jax.config.update``.
"""

import os
import pathlib

import jax

jax.config.update("jax_enable_x64", True)

# JAX compilation dominates the run time of this suite, and many test files (run in separate
# xdist worker processes) compile the same kernels for the same shapes. A persistent compilation
# cache shared by the workers lets each kernel be compiled once per run (later processes load it:
# e.g. renyi_ncx2 on 128 points, 28 s compile -> 6 s load). A clean clone starts with an empty
# cache, so every kernel is still compiled at least once. Override the place with
# FISHERRDP_TEST_JAX_CACHE (an empty value turns the cache off).
_cache = os.environ.get(
    "FISHERRDP_TEST_JAX_CACHE", str(pathlib.Path(__file__).resolve().parent.parent / ".jax_cache")
)
# Processes that tests start (CLI commands, scan workers, benchmark children) import
# fisherrdp, which would use the user's cache (~/.cache/fisherrdp): point them at the test
# cache instead, or turn theirs off with this one, so that tests never write to the home folder.
if _cache:
    jax.config.update("jax_compilation_cache_dir", _cache)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    os.environ["FISHERRDP_CACHE_DIR"] = _cache
else:
    os.environ["FISHERRDP_NO_CACHE"] = "1"

import fisherrdp  # noqa: E402,F401

"""Global test settings, and the only place for them.

Tests run in float64: JAX's x64 flag is turned on here, before any test module is imported,
and fisherrdp is imported (which would turn it on anyway unless FISHERRDP_NO_X64 is set).
A test that needs another JAX setting must restore it, e.g. with ``jax.experimental.enable_x64``
style context managers or try/finally around ``jax.config.update``.
"""

import jax

jax.config.update("jax_enable_x64", True)

import fisherrdp  # noqa: E402,F401

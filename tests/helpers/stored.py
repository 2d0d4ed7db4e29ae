"""A test's own transformed programs, traced once and kept on disk.

Tracing a quadrature's gradient, or a kernel under ``jit`` with the arguments in a new shape,
costs seconds of Python in every process, also when the compilation cache already holds the
compiled program. :func:`stored_jit` keeps the traced program with :mod:`jax.export` next to
that cache (:func:`fisherrdp._src.core.engine.exported_program`: keyed by the fisherrdp source
that the calling test file imports, :func:`~fisherrdp._src.core.engine.source_hash`, the JAX
version and settings, and the argument shapes), keyed here also by the source of the calling
test file, so that editing the test traces it again. ``fn`` may call the fisherrdp code that
the calling file imports. The program is the one ``jax.jit`` would trace; without a persistent
cache it is ``jax.jit(fn)``.
"""

from __future__ import annotations

import hashlib
import pathlib
import sys

import jax
import numpy as np

from fisherrdp._src.core.engine import exported_program, modules_imported_by


def stored_jit(fn, *example, name: str):
    """``jax.jit(fn)`` for positional arguments shaped and typed like ``example`` (arrays or
    pytrees of arrays; call it with exactly such arguments), traced once per source.

    ``name`` names the program within its test file (and in the compile census).
    """
    caller = pathlib.Path(sys._getframe(1).f_code.co_filename)
    source = hashlib.sha256(caller.read_bytes()).hexdigest()
    spec = [jax.tree.map(lambda x: jax.ShapeDtypeStruct(np.shape(x), np.asarray(x).dtype), arg)
            for arg in example]
    jitted = jax.jit(fn)
    return exported_program(jitted, spec, (caller.name, source, name), name=name,
                            modules=modules_imported_by(caller)) or jitted

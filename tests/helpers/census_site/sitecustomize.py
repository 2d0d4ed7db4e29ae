"""Installs the compile census in a child process of the tests (see helpers/compile_census.py).

Python imports this module at start-up when its folder is on ``PYTHONPATH`` (the census plugin
puts it there). Nothing is imported now: the listeners are installed right after the ``jax`` package
is, so the process can still set JAX's environment variables before importing JAX.
"""

import importlib.abc
import importlib.util
import os
import sys

_DIRECTORY = os.environ.get("FISHERRDP_CENSUS", "")
_TRIGGER = "jax"


class _AfterJaxCompiler(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name != _TRIGGER:
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        exec_module = spec.loader.exec_module

        def exec_then_install(module):
            exec_module(module)
            sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
            import compile_census

            compile_census.install(_DIRECTORY)

        spec.loader.exec_module = exec_then_install
        return spec


if _DIRECTORY:
    sys.meta_path.insert(0, _AfterJaxCompiler())

"""Sphinx extension: every public name of fisherrdp has an entry in the API reference.

The public modules are the package ``fisherrdp`` and its submodules whose dotted names have no
component starting with an underscore (``fisherrdp._src`` and ``fisherrdp.__main__`` are not
public). After all pages are read, each public module must be documented (``.. automodule::``,
a ``py:module``) and so must each name in its ``__all__``: a function, class or datum
``fisherrdp.<module>.<name>``, or a public module of that name. Whatever is missing is a warning,
which ``-W`` turns into a failed build.
"""

from __future__ import annotations

import importlib
import pkgutil

from sphinx.util import logging

logger = logging.getLogger(__name__)

PACKAGE = "fisherrdp"


def public_modules(package: str = PACKAGE) -> list[str]:
    """Dotted names of the public modules of ``package``, the package itself first."""
    root = importlib.import_module(package)
    names = [package]
    for info in pkgutil.walk_packages(root.__path__, f"{package}."):
        if not any(part.startswith("_") for part in info.name.split(".")[1:]):
            names.append(info.name)
    return names


def missing_entries(documented_objects: set[str], documented_modules: set[str]) -> list[str]:
    """Public modules and ``__all__`` names with no documented object, as dotted names."""
    missing = set()
    for module_name in public_modules():
        if module_name not in documented_modules:
            missing.add(module_name)
        for name in importlib.import_module(module_name).__all__:
            full = f"{module_name}.{name}"
            if full not in documented_objects and full not in documented_modules:
                missing.add(full)
    return sorted(missing)


def _check(app, env) -> None:
    domain = env.get_domain("py")
    for full in missing_entries(set(domain.objects), set(domain.modules)):
        logger.warning(
            "public name %s has no entry in the API reference (docs/api/)",
            full,
            type="public_api",
        )


def setup(app):
    app.connect("env-check-consistency", _check)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}

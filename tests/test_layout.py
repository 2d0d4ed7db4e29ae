"""The house: the layers hold, nothing private crosses a module, the public API is documented.

- The oldest versions CI tests (``.ci/oldest-constraints.txt``, run by ``.ci/oldest``) are exactly
  the lower bounds of ``pyproject.toml``'s dependencies.
- The repository's top level is the one the project was specified with: ``pyproject.toml``,
  ``README.md``, ``fisherrdp/``, ``benchmarks/``, ``tests/`` and ``notebooks/`` (the tutorials,
  which the documentation build copies into ``docs/tutorials/``), with the license, the citation
  and the changelog beside them.
- The import-linter contracts of ``pyproject.toml`` (``[tool.importlinter]``): ``fisherrdp._src``
  in layers (core → numerics → special → distributions → release → fisher | divergences |
  variational → bounds → accounting | checks → scan | figures → commands), no public module
  imported below scan, figures and commands, no cycle between sibling modules.
- No module imports another module's underscore names: what is shared has a plain name.
- Each public module re-exports from its one private home (``fisherrdp.bounds`` from
  ``fisherrdp._src.bounds``, ``fisherrdp.stats.ncx2`` from ``fisherrdp._src.distributions.ncx2``,
  …): every name of its ``__all__`` is defined there, nothing else is public in it, and
  every function and class of it has a docstring.
- The theorem index, ``docs/theorems.md``, is what the checks record today.
- The key of a program kept with ``jax.export`` covers the source it can run: the files that
  ``engine.source_files`` finds from a kernel's module by its import statements include every
  fisherrdp module reachable from that module's names at run time.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import re
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fisherrdp"

#: Public module → its private home (a package, or one module).
HOMES = {
    "fisherrdp.special": "fisherrdp._src.special",
    "fisherrdp.stats.ncx2": "fisherrdp._src.distributions.ncx2",
    "fisherrdp.stats.ncwishart": "fisherrdp._src.distributions.ncwishart",
    "fisherrdp.fisher": "fisherrdp._src.fisher",
    "fisherrdp.divergences": "fisherrdp._src.divergences",
    "fisherrdp.bounds": "fisherrdp._src.bounds",
    "fisherrdp.checks": "fisherrdp._src.checks",
    "fisherrdp.accounting": "fisherrdp._src.accounting",
    "fisherrdp.scan": "fisherrdp._src.scan",
    "fisherrdp.variational": "fisherrdp._src.variational",
    "fisherrdp.release": "fisherrdp._src.release",
    "fisherrdp.figures": "fisherrdp._src.figures",
}
#: Names a public module takes from another layer's home, on purpose (and why).
BORROWED = {
    # The model release's divergence, αΔ²/2: a bound (post-processing) and a divergence.
    ("fisherrdp.divergences", "gaussian_renyi"): "fisherrdp._src.bounds",
    # A parameter's range: declared by the functions (validated), read by the scan registry.
    ("fisherrdp.scan", "Domain"): "fisherrdp._src.core",
}


def test_the_top_level_layout():
    for name in ("pyproject.toml", "README.md", "LICENSE", "CITATION.cff", "CHANGELOG.md"):
        assert (ROOT / name).is_file(), name
    for name in ("fisherrdp", "benchmarks", "tests", "notebooks", "docs"):
        assert (ROOT / name).is_dir(), name
    notebooks = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert len(notebooks) >= 5, notebooks
    # docs/tutorials holds the build's copies of these (git-ignored), no notebook of its own.
    assert {p.name for p in (ROOT / "docs" / "tutorials").glob("*.ipynb")} <= notebooks


def _lower_bounds() -> dict[str, str]:
    """pyproject.toml's dependencies with a lower bound: name → version."""
    import tomllib

    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return {m[1].lower(): m[2] for dep in deps
            if (m := re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([^,;\s]+).*", dep))}


def test_the_oldest_tested_versions_are_the_declared_lower_bounds():
    pins = {}
    for line in (ROOT / ".ci" / "oldest-constraints.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.strip().lower()] = version.strip()
    floors = _lower_bounds()
    assert {"jax", "jaxlib", "numpy", "scipy", "zarr", "xarray", "optax", "equinox"} <= set(floors)
    assert {name: pins.get(name) for name in floors} == floors


def test_import_contracts_are_kept():
    from importlinter.cli import lint_imports

    assert lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


def _private_imports():
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("fisherrdp"):
                for alias in node.names:
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        yield f"{path.relative_to(ROOT)}:{node.lineno}: {node.module}.{alias.name}"


def test_no_module_imports_another_modules_private_names():
    assert list(_private_imports()) == []


@pytest.mark.parametrize("public", sorted(HOMES))
def test_public_module_is_its_private_home(public):
    module = importlib.import_module(public)
    home = HOMES[public]
    exported = set(module.__all__)
    for name in sorted(exported):
        obj = getattr(module, name)
        source = getattr(obj, "__module__", None) or home  # constants: their home says below
        expected = BORROWED.get((public, name), home)
        assert source == expected or source.startswith(expected + "."), (name, source)
        if callable(obj) or inspect.isclass(obj):
            assert inspect.getdoc(obj), f"{public}.{name} has no docstring"
    # Nothing is defined here, nothing public is left out of __all__.
    public_names = {n for n, v in vars(module).items()
                    if not n.startswith("_") and not inspect.ismodule(v)
                    and n != "annotations"}
    assert public_names == exported, sorted(public_names ^ exported)


def test_the_theorem_index_is_current():
    """docs/theorems.md: statement → bound → what it is checked against → verify row → tests."""
    from helpers.theorem_index import PATH, table

    assert PATH.read_text() == table(), "regenerate: python tests/helpers/theorem_index.py"


def _reached(name: str) -> set:
    """The fisherrdp modules reachable from module ``name``'s names (functions, classes,
    modules, instances), transitively through the modules they belong to."""
    seen, todo = set(), [name]
    while todo:
        name = todo.pop()
        if name in seen or name not in sys.modules:
            continue
        seen.add(name)
        for value in vars(sys.modules[name]).values():
            value = getattr(value, "func", value)  # functools.partial
            owner = value.__name__ if inspect.ismodule(value) else getattr(value, "__module__", None)
            if isinstance(owner, str) and owner.startswith("fisherrdp"):
                todo.append(owner)
    return seen


def _file(name: str) -> pathlib.Path:
    return pathlib.Path(inspect.getfile(sys.modules[name])).resolve()


def test_a_kept_programs_key_covers_the_source_it_can_run():
    from fisherrdp._src.core.engine import source_files
    from fisherrdp._src.scan.registry import quantities, resolve

    kernels = {resolve(n).fn.__module__ for n in quantities()} | {
        "fisherrdp._src.special.hyp0f1_matrix", "fisherrdp._src.core.engine"}
    for module in sorted(kernels):
        importlib.import_module(module)
        files = set(source_files((module,)))
        missing = sorted(str(_file(m)) for m in _reached(module) if _file(m) not in files)
        assert not missing, (module, missing)
    # and no more than that: the accountant and the command line are not in a divergence's key
    release = {str(p.relative_to(PACKAGE))
               for p in source_files(("fisherrdp._src.divergences.release_k1",))}
    assert "_src/special/bessel.py" in release and "_src/core/config.py" in release
    assert not any(p.startswith(("_src/accounting/", "_src/commands/", "_src/scan/"))
                   and not p.endswith("__init__.py") for p in release)

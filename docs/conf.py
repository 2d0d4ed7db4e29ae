"""Sphinx configuration of the fisherrdp documentation site.

Build (offline, every warning an error; CI runs it through tests/test_docs_build.py)::

    python -m sphinx -E -W --keep-going -b html docs docs/_build/html

``-E`` reads every page again: an incremental build does not repeat the warnings of pages that
did not change since the last build.

Pages are MyST Markdown (``*.md``) and Jupyter notebooks (the tutorials, read by myst-nb); the
API reference (``api/``) is autodoc on the public modules, whose docstrings are
Google style (napoleon) with ``.. math::`` blocks and doctest examples.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")  # importing fisherrdp for autodoc needs no device
os.environ.setdefault("MPLBACKEND", "Agg")

sys.path.insert(0, str(pathlib.Path(__file__).parent / "_ext"))

import fisherrdp

project = "fisherrdp"
author = "the fisherrdp developers"
copyright = "the fisherrdp developers"
version = release = fisherrdp.__version__

extensions = [
    "myst_nb",  # Markdown (MyST) and notebooks; includes myst_parser
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
    # MathJax 3 (its tex-chtml component and fonts) copied into the site's _static/mathjax and
    # loaded from there, not from a CDN: the formulas render offline (tests/test_docs_build.py)
    "sphinx-mathjax-offline",
    "public_api",  # docs/_ext/public_api.py: every name in a public __all__ has an entry
]

exclude_patterns = ["_build", "_ext", "jupyter_execute", "**.ipynb_checkpoints", ".DS_Store"]

# Every cross-reference must resolve: a broken :func:, :class:, :mod: or Markdown link is a
# warning, and the build runs with -W. Nothing is fetched (no intersphinx): the build is offline.
nitpicky = True
# References that are meant to stay unlinked, each listed: the implementation (fisherrdp._src),
# whose modules' notes the public docstrings cite but which has no pages; private helpers that
# the docstrings of public objects name; and types of other libraries (no intersphinx: offline).
nitpick_ignore_regex = [(r"py:(mod|func|class|data|attr|meth)", r"fisherrdp\._src(\..*)?")]
nitpick_ignore = [
    ("py:func", "check_concrete"),  # scan.Domain: the range checks of fisherrdp._src.core
    ("py:func", "validated"),
    ("py:func", "_log_profile"),  # accounting.gaussian_privacy_profile
    ("py:class", "Comparison"),  # checks.Statement: what a statement's evaluate returns
    ("py:class", "Approach"),
    ("py:class", "collections.abc.Callable"),
    ("py:class", "collections.abc.Mapping"),
    ("py:class", "matplotlib.figure.Figure"),
    ("py:class", "xarray.Dataset"),
]

# --- MyST and notebooks -------------------------------------------------------------------------
# $...$ and $$...$$ (docs/math/*.md), \begin{align} environments, and links to headings as
# GitHub writes them (page.md#theorem-53): the anchors that tests/test_docs_math.py checks.
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 6
# The tutorial notebooks are stored executed (notebooks/execute.py runs them): the build
# renders the stored outputs and never runs a kernel.
nb_execution_mode = "off"


def copy_tutorials(source: pathlib.Path, target: pathlib.Path) -> list[str]:
    """Copy the notebooks of ``source`` (the repository's ``notebooks/``, where users find them)
    into ``target`` (``docs/tutorials/``, inside the site's source folder: Sphinx reads no page
    outside it); return the copies' names.

    The notebooks link the documentation's pages from where they live (``../docs/math/...``);
    in the copies their Markdown cells link them from ``docs/tutorials/`` (``../math/...``).
    Code cells, outputs and metadata are copied unchanged. A copy is written only when it
    differs, and atomically (two builds may run at once, e.g. two test workers); copies whose
    notebook is gone are removed. The copies are not in git (.gitignore).
    """
    target.mkdir(exist_ok=True)
    names = []
    for path in sorted(source.glob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for cell in notebook["cells"]:
            if cell["cell_type"] == "markdown":
                lines = cell["source"] if isinstance(cell["source"], list) else [cell["source"]]
                lines = [re.sub(r"\]\(\.\./docs/", "](../", line) for line in lines]
                cell["source"] = lines
        text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
        copy = target / path.name
        names.append(path.name)
        if copy.is_file() and copy.read_text(encoding="utf-8") == text:
            continue
        partial = copy.with_name(f".{path.name}.{os.getpid()}.tmp")
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, copy)
    for stale in set(p.name for p in target.glob("*.ipynb")) - set(names):
        (target / stale).unlink(missing_ok=True)
    return names


copy_tutorials(pathlib.Path(__file__).resolve().parents[1] / "notebooks",
               pathlib.Path(__file__).resolve().parent / "tutorials")

# --- API reference ------------------------------------------------------------------------------
# Signatures without annotations: the Args sections state shapes and dtypes, and jax's
# ArrayLike union would print as a dozen unlinkable numpy types.
autodoc_typehints = "none"
add_module_names = False  # each page is one module, named in its title
autodoc_member_order = "bysource"  # for a module with __all__: the order of __all__
# Every module page is ``.. automodule:: fisherrdp.<module>``: the names of its __all__, which it
# imports from fisherrdp._src (docs/_ext/public_api.py fails the build if one has no entry).
autodoc_default_options = {"members": True, "imported-members": True}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# Attributes sections without the annotations' types, as signatures (and jax.Array's qualified
# name is private to jaxlib and changes between its versions).
napoleon_attr_annotations = False

# --- HTML ---------------------------------------------------------------------------------------
html_theme = "sphinx_book_theme"
html_title = f"fisherrdp {release}"
html_theme_options = {
    "show_toc_level": 2,
    "navigation_with_keys": False,
}


def _skip_namedtuple_fields(app, what, name, obj, skip, options):
    """Skip the fields of NamedTuples, which their class docstring's Attributes section lists."""
    if what == "class" and (getattr(obj, "__doc__", None) or "").startswith("Alias for field"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_namedtuple_fields)

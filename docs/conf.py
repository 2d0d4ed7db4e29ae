"""Sphinx configuration of the fisherrdp documentation site.

Build (offline, every warning an error; CI runs it through tests/test_docs_build.py)::

    python -m sphinx -E -W --keep-going -b html docs docs/_build/html

``-E`` reads every page again: an incremental build does not repeat the warnings of pages that
did not change since the last build.

Pages are MyST Markdown (``*.md``) and Jupyter notebooks (``tutorials/*.ipynb``, read by
myst-nb); the API reference (``api/``) is autodoc on the public modules, whose docstrings are
Google style (napoleon) with ``.. math::`` blocks and doctest examples.
"""

from __future__ import annotations

import os
import pathlib
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
# The tutorial notebooks are stored executed (docs/tutorials/execute.py runs them): the build
# renders the stored outputs and never runs a kernel.
nb_execution_mode = "off"

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

"""The documentation site (docs/) builds without a single warning.

The build is the one CI and a developer run, ``python -m sphinx -W --keep-going -b html docs
OUT``, into a temporary folder. The configuration (docs/conf.py) makes it strict: every warning
fails it, among them a cross-reference to no documented object (``nitpicky``), a link between
pages to a missing page or heading (MyST's ``myst.xref_missing``: so this is also the test that
the internal links of the Markdown pages and notebooks resolve), a page in no toctree, docstring
markup that does not parse, and a name in a public module's ``__all__`` with no entry in the API
reference (docs/_ext/public_api.py). The tutorial notebooks are rendered as stored, not
executed; the build needs no network.

Cost: one Sphinx process, about 12 CPU-s (reading the pages and importing the public modules;
nothing is compiled).
"""

from __future__ import annotations

import importlib
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def test_docs_build_without_warnings(tmp_path):
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(DOCS), str(tmp_path / "html")],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600,
        check=False,
    )
    assert "No module named sphinx" not in build.stderr, (
        "the documentation build needs the test extras: pip install -e '.[test]'"
    )
    assert "WARNING" not in build.stderr and "ERROR" not in build.stderr, build.stderr
    assert build.returncode == 0, build.stderr
    assert (tmp_path / "html" / "api" / "fisherrdp.special.html").is_file()


def test_a_public_name_without_an_entry_is_reported():
    """The build's check of the API reference (docs/_ext/public_api.py) names what is missing."""
    sys.path.insert(0, str(DOCS / "_ext"))
    try:
        from public_api import missing_entries, public_modules
    finally:
        sys.path.remove(str(DOCS / "_ext"))
    modules = set(public_modules())
    assert {"fisherrdp", "fisherrdp.special", "fisherrdp.stats", "fisherrdp.stats.ncx2"} <= modules
    assert not any("._" in m for m in modules)
    names = {f"{m}.{name}" for m in modules for name in importlib.import_module(m).__all__}
    names -= modules
    assert missing_entries(names, modules) == []
    assert missing_entries(names - {"fisherrdp.stats.ncx2.logpdf"}, modules) == [
        "fisherrdp.stats.ncx2.logpdf"
    ]
    assert missing_entries(names, modules - {"fisherrdp.scan"}) == ["fisherrdp.scan"]

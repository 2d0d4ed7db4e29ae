"""The documentation site (docs/) builds without a single warning.

The build is the one CI and a developer run, ``python -m sphinx -W --keep-going -b html docs
OUT``, into a temporary folder. The configuration (docs/conf.py) makes it strict: every warning
fails it, among them a cross-reference to no documented object (``nitpicky``), a link between
pages to a missing page or heading (MyST's ``myst.xref_missing``: so this is also the test that
the internal links of the Markdown pages and notebooks resolve), a page in no toctree, docstring
markup that does not parse, and a name in a public module's ``__all__`` with no entry in the API
reference (docs/_ext/public_api.py). The tutorial notebooks are rendered as stored, not
executed; the build needs no network.

The site needs no network to be read either: no page loads a script, a style sheet or any other
resource from another site (MathJax is served from the site's own ``_static/mathjax``, copied
there by ``sphinx-mathjax-offline``); links to other sites (``<a href>``) are allowed. That the
formulas then render in a browser without a network is checked in headless Chromium by the slow
tests/test_docs_offline.py.

Cost: one Sphinx process, about 12 CPU-s (reading the pages and importing the public modules;
nothing is compiled), shared by the tests of this file.
"""

from __future__ import annotations

import html.parser
import importlib
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The strict build: (its stderr, its return code, the built site's folder)."""
    out = tmp_path_factory.mktemp("site") / "html"
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         str(DOCS), str(out)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=600,
        check=False,
    )
    assert "No module named sphinx" not in build.stderr, (
        "the documentation build needs the test extras: pip install -e '.[test]'"
    )
    return build.stderr, build.returncode, out


def test_docs_build_without_warnings(site):
    stderr, returncode, out = site
    assert "WARNING" not in stderr and "ERROR" not in stderr, stderr
    assert returncode == 0, stderr
    assert (out / "api" / "fisherrdp.special.html").is_file()


class _Resources(html.parser.HTMLParser):
    """The URLs a page makes the browser load: script, link (style sheets, icons, preloads),
    img, iframe, source, audio, video, embed and object."""

    ATTRS = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src",
             "audio": "src", "video": "src", "embed": "src", "object": "data"}

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        name = self.ATTRS.get(tag)
        value = dict(attrs).get(name) if name else None
        if value:
            self.urls.append(value)


def _external(url: str) -> bool:
    return url.startswith(("http://", "https://", "//"))


def test_no_page_loads_anything_from_another_site(site):
    stderr, returncode, out = site
    assert returncode == 0, stderr
    pages = sorted(out.rglob("*.html"))
    assert len(pages) > 40, pages
    found = []
    for page in pages:
        parser = _Resources()
        parser.feed(page.read_text(encoding="utf-8"))
        found += [f"{page.relative_to(out)}: {url}" for url in parser.urls if _external(url)]
    assert not found, "\n".join(found)
    # MathJax is the site's own copy, with the fonts its CHTML output loads.
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'src="_static/mathjax/tex-chtml.js"' in index
    assert (out / "_static" / "mathjax" / "tex-chtml.js").is_file()
    assert list((out / "_static" / "mathjax" / "output" / "chtml" / "fonts").rglob("*.woff"))


def test_the_resource_scan_sees_an_external_script():
    parser = _Resources()
    parser.feed('<script src="https://cdn.example/x.js"></script><a href="https://a.example">'
                '</a><link rel="stylesheet" href="_static/s.css">')
    assert [u for u in parser.urls if _external(u)] == ["https://cdn.example/x.js"]


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

"""The site's formulas render in a browser without a network (slow: builds the site, starts a
browser three times).

The site is built as README says, then three pages (the front page, a mathematics page and a
tutorial) are opened in headless Chromium (Debian's ``chromium`` package) with the network
unavailable: in a new network namespace (``unshare -n``: only a loopback interface, down) where
the machine allows it, else with every host name unresolvable and every connection sent to a
closed port. After MathJax has run (``--virtual-time-budget``), the page's DOM is dumped and
its rendered text (what a reader sees: no script, style, code or preformatted blocks) must hold
no raw TeX delimiter, ``\\(``, ``\\[`` or ``$$``, and the page must hold MathJax's rendered
formulas (``mjx-container`` elements). Before MathJax was served from the site itself, every
formula of these pages showed as raw TeX offline.

With ``FISHERRDP_DOCS_SCREENSHOTS=DIR``, screenshots of the three pages are written to DIR.

Cost: about 40 s (the build, 25 s; each page about 5 s of wall time).
"""

from __future__ import annotations

import html.parser
import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: The three pages: the front page, a mathematics page, a tutorial (built from notebooks/).
PAGES = ("index.html", "math/bessel.html", "tutorials/accounting.html")
RAW_TEX = ("\\(", "\\[", "$$")

pytestmark = pytest.mark.slow


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    pytest.skip("no Chromium: apt-get install chromium")


def _offline_prefix() -> list[str]:
    """``unshare -n`` where it works here (root, or user namespaces), else nothing (the
    browser's own flags then keep it off the network)."""
    unshare = shutil.which("unshare")
    if unshare:
        for prefix in ([unshare, "-n"], [unshare, "-r", "-n"]):
            if subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode == 0:
                return prefix
    return []


#: Flags that keep Chromium off the network even outside a network namespace.
OFFLINE_FLAGS = ["--host-resolver-rules=MAP * ~NOTFOUND", "--proxy-server=127.0.0.1:9",
                 "--proxy-bypass-list=<-loopback>"]


def _browser(url: str, *extra: str, profile: pathlib.Path) -> subprocess.CompletedProcess:
    args = [*_offline_prefix(), _chromium(), "--headless", "--no-sandbox", "--disable-gpu",
            "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
            "--virtual-time-budget=10000", *OFFLINE_FLAGS, *extra, url]
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


class _RenderedText(html.parser.HTMLParser):
    """The text a reader sees, without script, style, code and preformatted blocks; and the
    number of MathJax output elements."""

    HIDDEN = {"script", "style", "pre", "code", "noscript", "template"}

    def __init__(self):
        super().__init__()
        self.depth = 0
        self.parts: list[str] = []
        self.formulas = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.HIDDEN:
            self.depth += 1
        if tag == "mjx-container":
            self.formulas += 1

    def handle_endtag(self, tag):
        if tag in self.HIDDEN and self.depth:
            self.depth -= 1

    def handle_data(self, data):
        if not self.depth:
            self.parts.append(data)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "html"
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-q", "-b", "html", str(DOCS), str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert build.returncode == 0, build.stderr
    return out


@pytest.mark.parametrize("page", PAGES)
def test_formulas_render_without_a_network(site, page, tmp_path):
    path = site / page
    assert path.is_file(), page
    source = path.read_text(encoding="utf-8")
    assert any(tex in source for tex in RAW_TEX), f"{page} has no formula to render"
    dumped = _browser(path.as_uri(), "--dump-dom", profile=tmp_path / "profile")
    assert dumped.returncode == 0, dumped.stderr[-2000:]
    text = _RenderedText()
    text.feed(dumped.stdout)
    rendered = "".join(text.parts)
    left = {tex: rendered.count(tex) for tex in RAW_TEX if tex in rendered}
    assert not left, f"{page}: raw TeX left in the rendered text {left}"
    assert text.formulas > 0, f"{page}: MathJax rendered nothing"

    shots = os.environ.get("FISHERRDP_DOCS_SCREENSHOTS")
    if shots:
        target = pathlib.Path(shots) / (page.replace("/", "_").removesuffix(".html") + ".png")
        target.parent.mkdir(parents=True, exist_ok=True)
        shot = _browser(path.as_uri(), f"--screenshot={target}", "--window-size=1280,1600",
                        "--hide-scrollbars", profile=tmp_path / "profile-shot")
        assert shot.returncode == 0 and target.is_file(), shot.stderr[-2000:]


def test_the_check_sees_raw_tex():
    """Without MathJax (the page as a browser offline showed it before), the check fails."""
    text = _RenderedText()
    text.feed('<p>the order <span class="math">\\(I_\\nu\\)</span></p><pre>$$x$$</pre>')
    assert "\\(" in "".join(text.parts) and "$$" not in "".join(text.parts)
    assert text.formulas == 0

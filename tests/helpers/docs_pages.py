"""The documentation's Markdown pages, README.md and docs/**/*.md, for the tests that read them.

README.md is the landing page; the numbers it stated before the documentation site (issue 28)
now live on the pages of ``docs/``. Tests that check a number against the page that states it
read the pages through here: :func:`read` for one page, :func:`lines_with` for a phrase on
whichever page holds it. :func:`fenced_blocks` splits a page into its fenced code blocks for
``tests/test_docs_pages.py``.
"""

from __future__ import annotations

import dataclasses
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def pages() -> list[str]:
    """README.md, then every Markdown page under docs/ (not the built site), as paths relative
    to the repository root."""
    docs = sorted(
        p.relative_to(ROOT).as_posix()
        for p in (ROOT / "docs").rglob("*.md")
        if "_build" not in p.parts
    )
    return ["README.md", *docs]


def read(page: str) -> str:
    """The text of a page, ``page`` relative to the repository root (e.g. ``README.md``)."""
    return (ROOT / page).read_text(encoding="utf-8")


def lines_with(phrase: str) -> list[tuple[str, str]]:
    """``(page, line)`` for every line of every page that contains ``phrase``."""
    return [(page, line) for page in pages() for line in read(page).splitlines() if phrase in line]


@dataclasses.dataclass(frozen=True)
class Block:
    """A fenced code block: its language and the flags after it on the opening line
    (```` ```python slow ```` has language ``python`` and flags ``("slow",)``), its code
    (dedented by the fence's indentation), and the lines of its opening and closing fences
    (1-based)."""

    language: str
    flags: tuple[str, ...]
    code: str
    line: int
    end: int


_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


def fenced_blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown page, in order (also those inside list items)."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        info = opening["info"].split()
        body, j = [], i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence) and not stripped.strip(fence[0]):
                break
            line = lines[j]
            body.append(line[indent:] if not line[:indent].strip() else line.lstrip())
            j += 1
        language = info[0] if info else ""
        blocks.append(Block(language, tuple(info[1:]), "\n".join(body) + "\n", i + 1, j + 1))
        i = j + 1
    return blocks

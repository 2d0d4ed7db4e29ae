"""The code on the documentation pages runs, prints what the pages show, and names commands,
options, extras and files that exist.

Pages: README.md and docs/**/*.md, except docs/math/ (its numbers are recomputed independently
by tests/test_docs_math.py) and the notebooks (notebooks/execute.py runs them).

Python blocks (```` ```python ````) run in order, one namespace per page, in a fresh temporary
working directory (a page may write files, e.g. a scan store). A ```` ```text ```` block that
follows a Python block with nothing but blank lines between them is that block's output: what
the block prints must equal it, line by line (trailing spaces aside). Flags after ``python`` on
the opening fence (ignored by MyST and GitHub, which highlight the block as Python):

* ```` ```python slow ````: inherently long (e.g. the accountant's ε search); run only in the
  slow run (``pytest -m slow``), where the page's other blocks run before it, in order. Blocks
  after it must not use its names.
* ```` ```python no-run ````: cannot run on one machine (it needs several hosts or an
  accelerator); compiled, not run.

Bash blocks (```` ```bash ````) are not run (the figures take minutes, a million-point scan
longer): every ``fisherrdp ...`` (or ``python -m fisherrdp ...``) command in them is parsed by the
command-line parser itself, so a subcommand or an option that does not exist fails here;
``pip install -e ".[EXTRA]"`` must name extras of pyproject.toml; ``python FILE`` and ``bash FILE``
must name files of the repository. Relative links of README.md must name existing files (the
site build, tests/test_docs_build.py, checks the links of docs/).

Cost: the kernels of the examples in the shapes the other tests use (a warm run of this file:
about 10-20 s on 2 CPU cores, most of it loading programs from the compilation cache).
"""

from __future__ import annotations

import contextlib
import io
import re
import shlex
import tomllib

import pytest
from helpers.docs_pages import ROOT, fenced_blocks, pages, read

from fisherrdp._src.commands.cli import build_parser

PAGES = [p for p in pages() if not p.startswith("docs/math/")]
FLAGS = {"slow", "no-run"}


def _python_blocks(page: str):
    """(block, expected output or None) for each Python block of a page."""
    text_lines = read(page).splitlines()
    blocks = fenced_blocks(read(page))
    out = []
    for i, block in enumerate(blocks):
        if block.language != "python":
            continue
        assert set(block.flags) <= FLAGS, f"{page}:{block.line}: unknown flags {block.flags}"
        expected = None
        if i + 1 < len(blocks) and blocks[i + 1].language == "text":
            between = text_lines[block.end : blocks[i + 1].line - 1]
            if not any(line.strip() for line in between):
                expected = blocks[i + 1].code
        out.append((block, expected))
    return out


def _pages_with(flag: str | None) -> list[str]:
    """Pages with a Python block (``flag`` None) or with a block carrying ``flag``."""
    return [p for p in PAGES if any(flag is None or flag in b.flags for b, _ in _python_blocks(p))]


def _run_page(page: str, *, slow: bool) -> None:
    namespace: dict = {"__name__": "__docs__"}
    for block, expected in _python_blocks(page):
        where = f"{page}:{block.line}"
        code = compile(block.code, where, "exec")
        if "no-run" in block.flags or ("slow" in block.flags and not slow):
            continue
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(code, namespace)
        if expected is not None:
            got = [line.rstrip() for line in printed.getvalue().rstrip("\n").splitlines()]
            want = [line.rstrip() for line in expected.rstrip("\n").splitlines()]
            assert got == want, f"{where}: the block prints\n{printed.getvalue()}"


@pytest.mark.parametrize("page", _pages_with(None))
def test_python_blocks_run_and_print_what_the_page_shows(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_page(page, slow=False)


@pytest.mark.slow
@pytest.mark.parametrize("page", _pages_with("slow"))
def test_slow_python_blocks(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _run_page(page, slow=True)


EXTRAS = set(
    tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
)
PARSER = build_parser()


def _commands(code: str):
    """The simple commands of a bash block: continuation lines joined, comments dropped, split
    at ``&&``, ``||``, ``;`` and ``|``; leading ``NAME=value`` assignments dropped."""
    for line in code.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        command: list[str] = []
        for token in [*lexer, ";"]:
            if token in ("&&", "||", ";", "|", "&"):
                while command and re.fullmatch(r"\w+=.*", command[0]):
                    command.pop(0)
                if command:
                    yield command
                command = []
            else:
                command.append(token)


def _check_command(command: list[str]) -> str | None:
    """What is wrong with one command, or None."""
    if "fisherrdp" in command:
        argv = command[command.index("fisherrdp") + 1 :]
    elif command[:3] == ["python", "-m", "fisherrdp"]:
        argv = command[3:]
    else:
        argv = None
    if argv is not None:
        errors = io.StringIO()
        try:
            with contextlib.redirect_stderr(errors):
                PARSER.parse_args(argv)
        except SystemExit:
            return f"fisherrdp {' '.join(argv)}: {errors.getvalue().strip()}"
        return None
    if command[:2] == ["pip", "install"]:
        for token in command[2:]:
            if extras := re.fullmatch(r"\.\[([^\]]*)\]", token):
                unknown = set(extras[1].split(",")) - EXTRAS
                if unknown:
                    return f"pyproject.toml has no extra {sorted(unknown)}"
        return None
    script = command[1] if command[0] in ("python", "bash") and len(command) > 1 else "-"
    if not script.startswith("-") and not (ROOT / script).is_file():
        return f"no file {script}"
    return None


@pytest.mark.parametrize("page", PAGES)
def test_bash_commands_exist(page):
    problems = [
        f"{page}:{block.line}: {problem}"
        for block in fenced_blocks(read(page))
        if block.language == "bash"
        for command in _commands(block.code)
        if (problem := _check_command(command))
    ]
    assert not problems, "\n".join(problems)


def test_readme_links_exist():
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", read("README.md"))
    local = [link for link in links if "://" not in link]
    assert local
    missing = [link for link in local if not (ROOT / link).exists()]
    assert not missing, missing

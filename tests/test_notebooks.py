"""The tutorial notebooks (notebooks/*.ipynb) are stored executed, from their current code.

The documentation site renders the notebooks' stored outputs and runs no kernel, so the outputs
must come from the code beside them. ``python notebooks/execute.py NOTEBOOK`` executes a
notebook in place (nbclient, ``pip install -e ".[docs]"``) and stamps its metadata with a
SHA-256 of its code cells (``fisherrdp.code_sha256``) and the seconds it took
(``fisherrdp.execution_seconds``). The default run executes nothing; it checks, per notebook,
that the code still matches the stamp (no code cell changed since the last execution), that the
notebook was executed top to bottom (every code cell has its execution count, 1, 2, ... in
order, and outputs, none of them an error), that every cell that draws a figure stored it as a
PNG image, and that the stored outputs stay small. With ``-m slow`` every notebook runs again:
its code cells in one namespace, in order, as a user running all cells would, so that their
asserts check the numbers the text quotes (nbclient is not needed for that: the code cells are
plain Python).
"""

import importlib.util
import json
import pathlib
import re

import pytest

TUTORIALS = pathlib.Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(TUTORIALS.glob("*.ipynb"))

_spec = importlib.util.spec_from_file_location("tutorials_execute", TUTORIALS / "execute.py")
execute = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(execute)

#: A code cell that draws: pyplot's show, or a fisherrdp.figures builder ending the cell.
DRAWS = re.compile(r"plt\.show\(\)|_figure\(")
#: Largest stored notebook and largest text of one output, in bytes and characters (the PNGs are
#: drawn at 80 dpi; the largest notebook measured 0.33 MB).
MAX_NOTEBOOK_BYTES = 1_000_000
MAX_TEXT_CHARS = 20_000
#: Modules a notebook needs beyond the test extras (the docs extra installs them); without
#: them its slow run is skipped.
NEEDS = {"accounting.ipynb": ("sklearn",)}


def _load(path: pathlib.Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _code_cells(notebook: dict) -> list[dict]:
    return [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]


def _text(output: dict) -> str:
    if output["output_type"] == "stream":
        text = output["text"]
    else:
        text = output.get("data", {}).get("text/plain", "")
    return "".join(text) if isinstance(text, list) else text


def test_there_is_a_notebook():
    names = {p.name for p in NOTEBOOKS}
    assert {
        "fisher_curves.ipynb",
        "checking_theorems.ipynb",
        "scan.ipynb",
        "accounting.ipynb",
        "variational.ipynb",
    } <= names, names


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_stored_executed_and_current(path):
    notebook = _load(path)
    rerun = f"run: python notebooks/execute.py notebooks/{path.name}"
    stamp = notebook["metadata"].get("fisherrdp", {}).get("code_sha256")
    assert stamp is not None, f"{path.name} has never been executed by execute.py; {rerun}"
    assert stamp == execute.code_sha256(notebook), (
        f"{path.name}: its code changed after it was last executed; {rerun}"
    )

    cells = _code_cells(notebook)
    assert cells, f"{path.name} has no code cell"
    for number, cell in enumerate(cells, start=1):
        where = f"{path.name}, code cell {number} ({''.join(cell['source'])[:60]!r}...)"
        assert cell["execution_count"] == number, (
            f"{where}: execution count {cell['execution_count']}, expected {number} (one run, "
            f"top to bottom); {rerun}"
        )
        assert cell["outputs"], f"{where}: no output stored; {rerun}"
        errors = [o for o in cell["outputs"] if o["output_type"] == "error"]
        assert not errors, f"{where}: stored an error, {errors[0].get('ename')}"
        if DRAWS.search("".join(cell["source"])):
            assert any("image/png" in o.get("data", {}) for o in cell["outputs"]), (
                f"{where}: draws a figure but stored no PNG image; {rerun}"
            )
        for output in cell["outputs"]:
            assert len(_text(output)) <= MAX_TEXT_CHARS, (
                f"{where}: an output of over {MAX_TEXT_CHARS} characters"
            )
    assert path.stat().st_size <= MAX_NOTEBOOK_BYTES, (
        f"{path.name}: {path.stat().st_size} bytes stored, more than {MAX_NOTEBOOK_BYTES}"
    )


def test_stamp_covers_code_not_prose():
    """The stamp changes with any code cell and with nothing else."""
    notebook = _load(NOTEBOOKS[0])
    stamp = execute.code_sha256(notebook)
    edited = json.loads(json.dumps(notebook))
    markdown = next(c for c in edited["cells"] if c["cell_type"] == "markdown")
    markdown["source"] = ["prose only\n"]
    for cell in _code_cells(edited):
        cell["outputs"], cell["execution_count"] = [], None
    assert execute.code_sha256(edited) == stamp
    _code_cells(edited)[-1]["source"] = ["print('changed')\n"]
    assert execute.code_sha256(edited) != stamp


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_runs(path, monkeypatch):
    for module in NEEDS.get(path.name, ()):
        pytest.importorskip(module)
    monkeypatch.chdir(path.parent)
    namespace = {"__name__": "__notebook__"}
    for number, source in enumerate(execute.code_sources(_load(path)), start=1):
        code = compile(source, f"{path.name}[code cell {number}]", "exec")
        exec(code, namespace)

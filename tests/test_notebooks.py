"""Every notebook in notebooks/ runs top to bottom (code cells executed in one namespace).

nbclient is not a dependency: a notebook's code cells are plain Python here, so they are
executed directly, in order, as a user running all cells would. Notebooks in ``SLOW`` take
more than about a minute (JAX compilation, training) and run only with ``-m slow``.
"""

import json
import pathlib

import pytest

NOTEBOOKS = sorted((pathlib.Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
#: finite_release: a renyi_release_k1 compilation and a variational training (~3 min, busy CPUs);
#: k1_exact: ~90 s of compilations on 2 busy cores (its functions are tested file by file).
SLOW = {"finite_release.ipynb", "k1_exact.ipynb"}


@pytest.mark.parametrize(
    "path",
    [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW else p for p in NOTEBOOKS],
    ids=lambda p: p.name,
)
def test_notebook_runs(path):
    cells = json.loads(path.read_text())["cells"]
    namespace = {"__name__": "__notebook__"}
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "code":
            code = compile("".join(cell["source"]), f"{path.name}[cell {i}]", "exec")
            exec(code, namespace)  # noqa: S102


def test_there_is_a_notebook():
    assert NOTEBOOKS

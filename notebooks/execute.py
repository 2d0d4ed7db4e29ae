"""Execute tutorial notebooks in place and stamp them with the hash of their code.

The tutorials in ``notebooks/`` are stored executed, outputs and plots included: the
documentation build (myst-nb, from copies that docs/conf.py makes in ``docs/tutorials/``) does
not run them. After editing a notebook's code, run it again:

    python notebooks/execute.py notebooks/scan.ipynb        # one notebook
    python notebooks/execute.py                             # every tutorial

Each notebook runs top to bottom in a fresh Jupyter kernel (nbclient; ``pip install -e
".[docs]"``), in the notebook's folder, with matplotlib's inline backend, and is written back
with its outputs. Its metadata then records ``fisherrdp.code_sha256``, a SHA-256 of the sources
of its code cells (:func:`code_sha256`; markdown is not hashed, so editing prose needs no
re-run), and ``fisherrdp.execution_seconds``. ``tests/test_notebooks.py`` fails in the default
run when a notebook's code no longer matches its hash, i.e. when it changed after it was last
executed, and executes every notebook with ``-m slow``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
#: Seconds any one cell may run before the execution fails.
CELL_TIMEOUT = 900


def code_sources(notebook: dict) -> list[str]:
    """The sources of a notebook's code cells (a notebook as JSON), in order."""
    return [
        "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        for cell in notebook["cells"]
        if cell["cell_type"] == "code"
    ]


def code_sha256(notebook: dict) -> str:
    """SHA-256 of the code cells' sources: what a stored execution is stamped with."""
    return hashlib.sha256(json.dumps(code_sources(notebook)).encode()).hexdigest()


def execute(path: pathlib.Path, *, timeout: int = CELL_TIMEOUT) -> float:
    """Run the notebook at ``path`` in a fresh kernel, write it back executed; return seconds."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    # Inline figures, as PNG: the kernel starts with matplotlib's inline backend active, so a
    # Figure (pyplot's or fisherrdp.figures') that ends a cell is stored as an image. The
    # kernel inherits the environment, where MPLBACKEND=Agg would override it.
    os.environ.pop("MPLBACKEND", None)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        extra_arguments=["--matplotlib=inline"],
        record_timing=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    nb.metadata["fisherrdp"] = {
        "code_sha256": code_sha256(nb),
        "execution_seconds": round(seconds, 1),
    }
    nbformat.write(nb, path)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "notebooks", nargs="*", type=pathlib.Path, help="notebooks (default: every tutorial)"
    )
    parser.add_argument(
        "--timeout", type=int, default=CELL_TIMEOUT, help="seconds per cell (default %(default)s)"
    )
    args = parser.parse_args(argv)
    for path in args.notebooks or sorted(HERE.glob("*.ipynb")):
        print(f"{path}: executing", flush=True)
        seconds = execute(path.resolve(), timeout=args.timeout)
        print(f"{path}: {seconds:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

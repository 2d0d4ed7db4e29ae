"""The code keeps its lint rules: ``ruff check`` (the rules of ``[tool.ruff]`` in pyproject.toml)
finds nothing in the repository, notebooks included.

Cost: one ruff process, well under a second.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_ruff_finds_nothing():
    pytest.importorskip("ruff", reason="ruff is in the test extras: pip install -e '.[test]'")
    check = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )
    assert check.returncode == 0, check.stdout + check.stderr

"""Every program lowers for GPU and TPU, checked on a CPU, and stays so (issue 27).

``jax.export`` lowers a jitted function for platforms other than the machine's (nothing is
compiled or run), so a CPU-only run catches what would break on an accelerator: a host
callback, a CPU-only custom call, a primitive without a lowering rule for ``cuda`` or ``tpu``.
The programs and columns are ``tests/helpers/lowering.py``'s: every registered scan quantity
(aliases once) on 8 points and the k ≤ 2 functions of matrices, as values in float32 for
``cuda`` and ``tpu``, values in float64 for ``cuda`` and ``jax.grad`` (first output, first
real parameter) in float64 for ``cuda`` — two exports in all (float32: one module for both
platforms; float64: values and gradients in one), kept on disk between runs with the same
source (``fisherrdp._src.core.engine.stored_export``).

Asserted: every program outside ``EXCEPTIONS`` lowers in every column; a float32 program
returns float32 and a float64 one float64 (fisherrdp computes in its inputs' floating dtype:
a float32 program that computes in float64 runs in float64 on a GPU, and on a TPU in emulated
float64 or not at all); each entry of ``EXCEPTIONS`` is still true (a fixed one must leave
the table); and ``docs/lowering.md``, the table, is current.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from helpers.lowering import (
    COLUMNS,
    EXCEPTIONS,
    EXPORTS,
    FAILS,
    NOT_FLOAT32,
    column,
    failure,
    lowered,
    programs,
    table,
)

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = programs()


def _failing(key: str) -> set[str]:
    return {name for (name, k), (kind, _) in EXCEPTIONS.items() if k == key and kind == FAILS}


@pytest.fixture(scope="module", params=EXPORTS, ids="+".join)
def export(request):
    """(column keys, the programs exported, per column per program its outputs' avals).

    The programs listed as failing in any of the columns are left out of the export (and
    tested on their own). Where the export fails, each program is exported alone to name the
    ones that fail (a slow path: only a broken program takes it)."""
    keys = request.param
    failing = set().union(*(_failing(k) for k in keys))
    progs = [p for p in PROGRAMS if p.name not in failing]
    try:
        return keys, progs, lowered(progs, keys)
    except Exception:  # noqa: BLE001 - find which, and why
        reasons = {(p.name, k): failure(p, k) for p in progs for k in keys}
        pytest.fail("do not lower (not in EXCEPTIONS): "
                    + "; ".join(f"{n} as {column(k).label}: {why}"
                                for (n, k), why in reasons.items() if why))


def test_every_program_lowers_in_its_dtype(export):
    """Each program's outputs (or gradient) have its inputs' floating dtype, except the
    entries of EXCEPTIONS that say otherwise, which must still be so."""
    keys, progs, avals = export
    wrong, fixed = [], []
    for key, outputs in zip(keys, avals):
        dtype = np.dtype(column(key).dtype)
        for p, out in zip(progs, outputs):
            out = out if isinstance(out, (list, tuple)) else [out]
            dtypes = {np.dtype(a.dtype) for a in out}
            listed = EXCEPTIONS.get((p.name, key), ("", ""))[0] == NOT_FLOAT32
            if listed and dtypes == {dtype}:
                fixed.append((p.name, key))
            elif not listed and dtypes != {dtype}:
                wrong.append((p.name, key, sorted(map(str, dtypes))))
    assert not wrong, f"not computed in the inputs' dtype (list in EXCEPTIONS or fix): {wrong}"
    assert not fixed, f"now in the inputs' dtype: remove from EXCEPTIONS: {fixed}"


@pytest.mark.parametrize("entry", sorted(k for k, (kind, _) in EXCEPTIONS.items()
                                         if kind == FAILS) or [None])
def test_what_is_listed_as_failing_still_fails(entry):
    """A program listed as not lowering still does not (fixed: remove its row)."""
    if entry is None:
        pytest.skip("nothing is listed as failing to lower")
    name, key = entry
    program = next(p for p in PROGRAMS if p.name == name)
    assert failure(program, key) is not None, f"{name} lowers as {column(key).label} now"


def test_the_exceptions_name_programs_and_columns():
    """Every row of the table is about a program and a column that the test lowers."""
    names, keys = {p.name for p in PROGRAMS}, {c.key for c in COLUMNS}
    for (name, key), (kind, _) in EXCEPTIONS.items():
        assert name in names and key in keys and kind in (FAILS, NOT_FLOAT32), (name, key)


def test_the_table_of_lowering_is_current():
    with open(os.path.join(os.path.dirname(HERE), "docs", "lowering.md")) as fh:
        assert fh.read() == table(), "regenerate: python tests/helpers/lowering.py > docs/lowering.md"

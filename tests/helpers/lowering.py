"""Every program of fisherrdp lowered for GPU and TPU on a CPU-only machine (``jax.export``).

Shared by ``tests/test_lowering.py`` and ``docs/lowering.md``
(``python tests/helpers/lowering.py > docs/lowering.md``). The *programs* are every registered
scan quantity (aliases once: the first name of each function, as in
``tests/helpers/derivative_matrix.py``) on ``POINTS`` points (1-D arrays, one per positional
parameter), and the k ≤ 2 functions of matrices (``MATRIX_KERNELS``) on ``POINTS`` small
matrices. The *columns* are what each is lowered as (``COLUMNS``): its values in float32 for
``cuda`` and ``tpu``, its values in float64 for ``cuda`` (TPUs compute in float32), and
``jax.grad`` of the sum of its first output in its first real parameter, in float64 for
``cuda``.

Tracing is the cost (lowering a traced program to StableHLO is a tenth of it), so the programs
are traced as few times as the matrix allows, in two exports: one function of every program's
float32 inputs returning all their values, exported once for both platforms
(``platforms=("cuda", "tpu")`` lowers one module with a branch per platform: shared tracing,
platform-specific lowering rules each; traced as a TPU runs it, ``as_on_a_tpu``), and one
function of every program's float64 inputs
returning all their values and gradients, for ``cuda``. Each is kept on disk by
:func:`fisherrdp._src.core.engine.stored_export` (keyed by fisherrdp's source, this file's and
the JAX version): a run after a change of either traces again.

``EXCEPTIONS`` is the one table of what does not lower, or lowers into something else than it
should (a float32 program that computes in float64), and why; ``table()`` renders it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import pathlib
from collections.abc import Callable

import jax
import numpy as np

from fisherrdp._src.core.config import as_on_a_tpu
from fisherrdp._src.core.engine import stored_export
from fisherrdp._src.scan.registry import resolve

try:  # imported as helpers.lowering (pytest) or run as a script
    from helpers.derivative_matrix import INTEGER_VALUES, groups
except ImportError:  # pragma: no cover
    import sys

    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
    from helpers.derivative_matrix import INTEGER_VALUES, groups

#: Points per program: 1-D inputs of this length (matrices: this many in a batch).
POINTS = 8


@dataclasses.dataclass(frozen=True)
class Column:
    """What a program is lowered as."""

    key: str
    dtype: str
    platforms: tuple[str, ...]
    grad: bool

    @property
    def label(self) -> str:
        what = "∂ (jax.grad)" if self.grad else "values"
        return f"{what}, {self.dtype}, {' + '.join(self.platforms)}"


COLUMNS = (
    Column("float32", "float32", ("cuda", "tpu"), False),
    Column("float64", "float64", ("cuda",), False),
    Column("grad_float64", "float64", ("cuda",), True),
)
#: The exports: columns of the same dtype and platforms are one traced program.
EXPORTS = (("float32",), ("float64", "grad_float64"))


@dataclasses.dataclass(frozen=True)
class Program:
    """One function and the shapes of its positional arguments (batch of ``POINTS``)."""

    name: str
    fn: Callable
    params: tuple[str, ...]
    shapes: tuple[tuple[int, ...], ...]

    @property
    def differentiated(self) -> int:
        """The first real parameter (not an integer, e.g. not ``k``)."""
        return next(i for i, p in enumerate(self.params) if p not in INTEGER_VALUES)

    def specs(self, dtype: str) -> list[jax.ShapeDtypeStruct]:
        return [jax.ShapeDtypeStruct(s, np.dtype(dtype)) for s in self.shapes]

    def values(self, *args):
        out = self.fn(*args)
        return tuple(out) if isinstance(out, tuple) else (out,)

    def gradient(self, *args):
        """∂/∂(first real parameter) of the sum of the first output (each point's own)."""
        j = self.differentiated

        def total(x):
            return self.values(*args[:j], x, *args[j + 1:])[0].sum()

        return jax.grad(total)(args[j])


def _matrix_kernels() -> list[Program]:
    from fisherrdp.divergences import renyi_ncwishart, renyi_ncwishart_gram
    from fisherrdp.special import log_hyp0f1_matrix

    n = POINTS
    return [
        Program("fisherrdp.special.log_hyp0f1_matrix", log_hyp0f1_matrix, ("b", "X"),
                ((n,), (n, 2, 2))),
        Program("fisherrdp.divergences.renyi_ncwishart_gram", renyi_ncwishart_gram,
                ("alpha", "d", "omega_v", "omega_w"), ((n,), (n,), (n, 2, 2), (n, 2, 2))),
        Program("fisherrdp.divergences.renyi_ncwishart", renyi_ncwishart,
                ("alpha", "d", "v", "w"), ((n,), (n,), (n, 3, 2), (n, 3, 2))),
    ]


def programs() -> list[Program]:
    """Every registered quantity (aliases once), then the functions of matrices."""
    registered = [
        Program(name, resolve(name).fn, resolve(name).params,
                tuple((POINTS,) for _ in resolve(name).params))
        for group in groups() for name in group.names
    ]
    return sorted(registered, key=lambda p: p.name) + _matrix_kernels()


#: Kinds of exception.
FAILS = "does not lower"
NOT_FLOAT32 = "lowers, in float64"
_WISHART_F64 = (
    "float32 inputs give a float64 result: the k = 2 cubature is promoted to float64, first by "
    "`jnp.eye(2)` without a dtype (float64 under x64) in `_start` of "
    "`fisherrdp/_src/distributions/ncwishart_k2.py`; on a TPU it would run in float64")
#: (program, column key) → (kind, reason): the one table of what does not lower as it should.
#: Everything else lowers, and a float32 program returns float32 only.
EXCEPTIONS: dict[tuple[str, str], tuple[str, str]] = {
    ("fisherrdp.divergences.renyi_ncwishart_gram", "float32"): (NOT_FLOAT32, _WISHART_F64),
    ("fisherrdp.divergences.renyi_ncwishart", "float32"): (NOT_FLOAT32, _WISHART_F64),
}


def column(key: str) -> Column:
    return next(c for c in COLUMNS if c.key == key)


def lowered(progs: list[Program], keys: tuple[str, ...]) -> list[list]:
    """One export of every program of ``progs`` in the columns ``keys`` (same dtype and
    platforms): for each column, for each program, its outputs' ``ShapedArray``s.

    Raises what :func:`jax.export.export` raises."""
    cols = [column(k) for k in keys]
    dtype, platforms = cols[0].dtype, cols[0].platforms
    assert all((c.dtype, c.platforms) == (dtype, platforms) for c in cols)

    def everything(*arrays):
        args, i = [], 0
        for p in progs:
            args.append(arrays[i:i + len(p.shapes)])
            i += len(p.shapes)
        return [[p.gradient(*a) if c.grad else p.values(*a) for p, a in zip(progs, args)]
                for c in cols]

    specs = [s for p in progs for s in p.specs(dtype)]
    name = "lowering_" + "_".join(keys)
    identity = (LOWERING_SOURCE, keys, tuple(p.name for p in progs))
    # For a TPU, the program a TPU runs: float32 throughout (wide_dtype is float32 there). On
    # a GPU the few wide steps of float32 programs run in float64, which the float64 column
    # lowers for cuda.
    with as_on_a_tpu() if "tpu" in platforms else contextlib.nullcontext():
        exported = stored_export(jax.jit(everything), specs, identity, name=name,
                                 platforms=platforms)
    assert tuple(exported.platforms) == platforms
    return jax.tree_util.tree_unflatten(exported.out_tree, exported.out_avals)


def failure(program: Program, key: str) -> str | None:
    """Why ``program`` does not lower in column ``key`` (None: it lowers)."""
    try:
        lowered([program], (key,))
    except Exception as exc:  # noqa: BLE001 - the reason is the point
        return f"{type(exc).__name__}: {str(exc).splitlines()[0][:300]}"
    return None


def table() -> str:
    """``docs/lowering.md``."""
    progs = programs()
    n_reg = sum(not p.name.startswith("fisherrdp.") for p in progs)
    lines = [
        "# Lowering for GPU and TPU",
        "",
        "Generated by `python tests/helpers/lowering.py` and checked by",
        "`tests/test_lowering.py` (default run, on a CPU: `jax.export` lowers, nothing is",
        "compiled or run). Exported, with `jax.export.export(jax.jit(f), platforms=...)`:",
        f"the {n_reg} registered scan quantities (aliases once) on {POINTS} points and the",
        "k ≤ 2 functions of matrices (`log_hyp0f1_matrix` on 2 × 2, `renyi_ncwishart_gram` on",
        f"2 × 2 Gram matrices, `renyi_ncwishart` on 3 × 2 means, {POINTS} of each), as",
        "",
        *(f"- {c.label}" for c in COLUMNS),
        "",
        "(∂: `jax.grad` of the sum of the first output in the first real parameter.) Float64",
        "is not lowered for TPUs (they compute in float32; `jax.export` would lower it). The",
        f"matrix is {len(EXPORTS)} exports: one module for both platforms in float32, one for",
        "values and gradients in float64. The float32 module is traced as a TPU runs it",
        "(`fisherrdp._src.core.config.as_on_a_tpu`: the few steps that compute float32 inputs in",
        "float64 where the device has it, e.g. the Rényi quadrature's node placement, stay in",
        "float32; only scalar constants are float64, converted); on a GPU those steps run in",
        "float64, which the float64 module lowers for cuda.",
        "",
        "Everything lowers, and a float32 program returns float32, except:",
        "",
        "| program | as | what | why |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{name}` | {column(key).label} | {kind} | {reason} |"
              for (name, key), (kind, reason) in sorted(EXCEPTIONS.items())]
    return "\n".join(lines) + "\n"


#: The source of the lowering's programs (this file), in their key on disk.
LOWERING_SOURCE = hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()


if __name__ == "__main__":
    print(table(), end="")

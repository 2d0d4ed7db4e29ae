"""The derivative matrix: every registered scan quantity, grouped by its parameters.

Shared by ``tests/test_derivatives.py`` and the script that makes its fixture
(``tests/fixtures/make_derivative_fixtures.py``). Quantities with the same parameter names are
one *group*: their outputs are stacked into one vector-valued function (reverse mode takes
each function's Jacobian on its own, in the same program), so that each group is one compiled
program per mode: ``jit(lax.map(jacfwd))``, point by point, and ``jit(vmap(jacrev))``, the
points batched. Aliases (two names, one function) are tested once; outputs named ``*_error``
(quadrature error estimates) are not derivatives' business and are left out.

Why forward mode point by point and reverse mode batched: under ``vmap`` a ``lax.cond`` whose
condition differs between points becomes a ``select`` of both branches, every loop runs until
its slowest point is done, and in reverse mode the branch not taken receives a zero cotangent,
which meets an infinite partial as 0 · inf = NaN: the failure ``vmap`` adds, so reverse mode is
checked batched, as a user's ``vmap(grad(f))`` runs. In forward mode the ``select`` picks the
taken branch's tangent elementwise, so a batched forward pass adds nothing to check but cost
(every loop runs as long as its slowest point's).

Points: ``POINTS`` per group (``RELEASE_POINTS`` for the finite-release kernels), drawn
log-uniformly over each parameter's magnitude (``SCALES``,
clipped to the registered domain), then *special rows* that overwrite one condition each:
every parameter at the lower edge of its domain (``a = 0``, ``ε = 0``, ``d = 1``, ``n_syn = 1``,
``x = 0``, …), ``a = b``, large ``d`` (1e4), for probabilities δ = 1e-12, and for the
finite-release kernels ``n_syn = inf`` (their other branch, the n_syn = ∞ limit, which every
program of theirs compiles: under ``jit`` n_syn's values are not known); and the first rows are
``REGRESSIONS``, points where a mode was once wrong.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib

import jax
import jax.numpy as jnp
import numpy as np

from fisherrdp._src.core.engine import exported_program
from fisherrdp._src.scan.registry import quantities, resolve

#: Points per group, and per finite-release group.
POINTS = 12
RELEASE_POINTS = 8
#: Magnitudes to draw each parameter from (log-uniform), by name; clipped to its domain.
SCALES = {
    "alpha": (1.05, 30.0), "alpha_prime": (1.05, 30.0), "d": (1.0, 1e3), "df": (1.0, 1e3),
    "n_syn": (1.0, 1e5), "a": (0.05, 20.0), "b": (0.05, 20.0), "theta": (0.05, 30.0),
    "eps": (0.05, 5.0), "x": (0.1, 200.0), "v": (0.1, 60.0), "nc": (0.1, 200.0),
    "m": (1.0, 100.0), "delta": (0.05, 5.0),
}
OTHER_SCALE = (0.1, 10.0)
#: Parameters that are integers (not differentiated): drawn from these values.
INTEGER_VALUES = {"k": (1.0, 2.0, 3.0)}
LARGE_D = 1e4
#: Points where a mode was once wrong (NaN, or an exception), first in their group.
REGRESSIONS = {
    # jax.grad was NaN (0 · inf from tail nodes of zero weight), jacfwd right.
    "alpha,d,n_syn,a,b": [(2.0, 10.0, 10.0, 1.0, 0.5)],
    "eps,d,n_syn,a,b": [(0.5, 10.0, 10.0, 1.0, 0.5)],
    # path_bound: ∂/∂d NaN in both modes; jacfwd over all four arguments NaN everywhere.
    "alpha,d,a,b": [(2.0, 10.0, 1.0, 0.5), (3.007, 35.58, 0.2141, 2.585)],
    # epsilon_for_delta: NaN in both modes at a small ε (differentiated through its search).
    "delta,d,a,b": [(1.38072367e-09, 154.343976, 0.0508271486, 0.143230816)],
}
SMALL_PROBABILITY = 1e-12
SEED = 20261203
#: (output, row label) → (parameters at a kink, why): the derivative returned there is a
#: convention (compared between modes only, not with central differences).
_FLOOR = "m = ⌊d/k⌋ is piecewise constant: ∂/∂d = 0, a jump where k divides d"
KINKS = {
    (("path_bound", 0), "a = b"): (
        ("a", "b"), "the bound grows like the distance from a to b; the derivative returned "
        "there is 0"),
    # Theorem 5.2's Fisher ratio x/(x + d − 3) becomes the trivial 1 at d ≤ 3 (a kink at 3).
    (("theorem52_bound", 0), "d = 3"): (("d",), "the Fisher ratio becomes 1 for d ≤ 3"),
    (("theorem52_bound_printed", 0), "d = 3"): (("d",), "the Fisher ratio becomes 1 for d ≤ 3"),
    (("theorem54_bound", 0), "d = 10000"): (("d",), _FLOOR),
    (("theorem54_bound_printed", 0), "d = 10000"): (("d",), _FLOOR),
}


@dataclasses.dataclass(frozen=True)
class Group:
    params: tuple[str, ...]
    names: tuple[str, ...]  # one registered name per distinct function, sorted
    outputs: tuple[tuple[str, int], ...]  # (name, output index) of the stacked vector

    @property
    def key(self) -> str:
        return ",".join(self.params)

    @property
    def differentiated(self) -> tuple[int, ...]:
        return tuple(i for i, p in enumerate(self.params) if p not in INTEGER_VALUES)

    def parts(self) -> list:
        """Per function of the group: p ↦ its differentiated outputs at the point p (1-D)."""

        def part(q):
            def outputs(p):
                out = q.fn(*(p[i] for i in range(len(self.params))))
                out = out if isinstance(out, tuple) else (out,)
                return jnp.stack([o for o, name in zip(out, q.outputs)
                                  if not name.endswith("_error")])

            return outputs

        return [part(resolve(n)) for n in self.names]

    def function(self):
        """p ↦ the stacked outputs of every function of the group at the point p (1-D)."""
        parts = self.parts()

        def stacked(p):
            return jnp.concatenate([part(p) for part in parts])

        stacked.__name__ = "matrix_" + "_".join(self.params)
        return stacked

    @property
    def size(self) -> int:
        return RELEASE_POINTS if "n_syn" in self.params else POINTS


def groups() -> list[Group]:
    by_params: dict[tuple[str, ...], dict] = {}
    for name in quantities():  # sorted by name
        q = resolve(name)
        functions = by_params.setdefault(q.params, {})
        functions.setdefault(q.fn, name)  # the first name (sorted) of each function
    out = []
    for params, functions in sorted(by_params.items()):
        names = tuple(sorted(functions.values()))
        outputs = tuple(
            (n, i) for n in names for i, o in enumerate(resolve(n).outputs)
            if not o.endswith("_error")
        )
        out.append(Group(params, names, outputs))
    return out


def _domain(group: Group, param: str):
    return resolve(group.names[0]).domains.get(param)


def points(group: Group) -> tuple[np.ndarray, list[str]]:
    """(n, len(params)) points and a label per row (``random`` or the special condition)."""
    rng = np.random.default_rng([SEED, len(group.params), sum(map(ord, group.key))])
    n = group.size
    cols = []
    for p in group.params:
        dom = _domain(group, p)
        if p in INTEGER_VALUES:
            cols.append(rng.choice(INTEGER_VALUES[p], n))
        elif dom is not None and dom.upper == 1.0:  # a probability
            cols.append(np.exp(rng.uniform(np.log(1e-9), np.log(0.3), n)))
        else:
            lo, hi = SCALES.get(p, OTHER_SCALE)
            cols.append(np.exp(rng.uniform(np.log(lo), np.log(hi), n)))
    x = np.stack(cols, 1)
    labels = ["random"] * n
    for row, point in enumerate(REGRESSIONS.get(group.key, ())):
        x[row] = point
        labels[row] = "regression"
    special = []
    for j, p in enumerate(group.params):
        dom = _domain(group, p)
        if p in INTEGER_VALUES or dom is None or dom.lower is None:
            continue
        if dom.upper == 1.0:
            special.append((f"{p} = {SMALL_PROBABILITY:g}", {j: SMALL_PROBABILITY}))
        elif dom.lower_inclusive:
            special.append((f"{p} = {dom.lower:g} (edge)", {j: dom.lower}))
    if {"a", "b"} <= set(group.params):
        special.insert(0, ("a = b", {group.params.index("b"): None}))
    if "d" in group.params and "n_syn" not in group.params:
        special.append((f"d = {LARGE_D:g}", {group.params.index("d"): LARGE_D}))
    if "n_syn" in group.params:
        special.append(("n_syn = inf", {group.params.index("n_syn"): np.inf}))
    # The special rows replace the last random rows; the first row is always kept (a regression
    # point, or a random one). A group too small for its special rows fails here rather than
    # losing the last of them (for the finite release, n_syn = inf) without a word.
    assert len(special) <= n - 1, (group.key, n, [label for label, _ in special])
    for row, (label, changes) in zip(range(n - len(special), n), special):
        for j, value in changes.items():
            x[row, j] = x[row, group.params.index("a")] if value is None else value
        labels[row] = label
    if "k" in group.params:  # d >= k
        jd, jk = group.params.index("d"), group.params.index("k")
        x[:, jd] = np.maximum(x[:, jd], x[:, jk])
    return x, labels


def at_lower_edge(group: Group, x: np.ndarray) -> np.ndarray:
    """(n, len(params)) booleans: the parameter sits on the inclusive lower edge of its domain
    (no central difference there)."""
    out = np.zeros(x.shape, bool)
    for j, p in enumerate(group.params):
        dom = _domain(group, p)
        if dom is not None and dom.lower is not None:
            out[:, j] = x[:, j] <= dom.lower
    return out


#: Differentiable public functions outside the registry (not elementwise): what they
#: differentiate in, and the test that holds it.
OUTSIDE_REGISTRY = (
    ("fisherrdp.special.log_hyp0f1_matrix", "`b`, `X` (a `custom_jvp` on the eigenvalues)",
     "forward and reverse",
     "`tests/test_hyp0f1_matrix.py` (`check_grads`: both modes at k = 2; k = 3 forward: slow)"),
    ("fisherrdp.divergences.renyi_ncwishart_gram", "`alpha`, `d`, the two Gram matrices "
     "(a `custom_jvp` of the k = 2 series)", "forward and reverse",
     "`tests/test_renyi_wishart.py`: through `renyi_ncwishart`, which runs it, by default; "
     "3 points in every argument, slow"),
    ("fisherrdp.divergences.renyi_ncwishart", "`alpha`, `d`, `v`, `w`", "forward and reverse",
     "`tests/test_renyi_wishart.py`: both modes in all 10 arguments at one point, one stored "
     "program, by default; 3 points, slow. The accountant's k = 2 worst-pair search climbs "
     "with its reverse mode (`tests/test_accounting_release.py`)"),
    ("fisherrdp.accounting.amplify_by_subsampling", "`eps`, `q` (ε′ = log(1 + q(e^ε − 1)))",
     "forward and reverse", "`tests/test_subsampling.py`"),
    ("fisherrdp.accounting.hockey_stick", "`p`, `q`, `gamma` (piecewise linear: a kink where "
     "p = γq)", "forward and reverse", "`tests/test_subsampling.py`"),
    ("fisherrdp.accounting (everything else: SyntheticReleaseMechanism, calibrate_sigma, "
     "rdp_to_dp, gaussian_*, to_dp_accounting_pld)", "none: host searches with NumPy and "
     "SciPy; a traced argument raises a ValueError naming it (differentiate the divergences)",
     "—", "`tests/test_derivatives.py`"),
    ("fisherrdp.fisher.wishart_path_fisher_exact", "none: the path reduction runs in NumPy, a "
     "traced `v`, `w` or `theta` raises a ValueError naming it", "—",
     "`tests/test_derivatives.py`"),
    ("fisherrdp.fisher.wishart_path_bound_exact", "none: as `wishart_path_fisher_exact`; a "
     "traced `v`, `w` or `alpha` raises a ValueError naming it", "—",
     "`tests/test_derivatives.py`"),
    ("fisherrdp.fisher.wishart_path_fisher", "none (Monte Carlo: `v`, `w`, `theta` set shapes "
     "and the samples); a traced one raises a ValueError naming it", "—",
     "`tests/test_derivatives.py`"),
    ("fisherrdp.fisher.wishart_path_fisher_integral", "none (Monte Carlo); a traced `v`, `w` "
     "or `alpha` raises a ValueError naming it", "—", "`tests/test_derivatives.py`"),
)


def table() -> str:
    """``docs/derivatives.md``: for every registered quantity, what it differentiates in."""
    lines = [
        "# Derivatives of the registered quantities",
        "",
        "Generated by `python tests/helpers/derivative_matrix.py` from the registry of",
        "`fisherrdp.scan` and checked by `tests/test_derivatives.py`: every quantity in every",
        "listed argument, `jax.jacfwd` (under `jit`, point by point) and `jax.jacrev` (under",
        "`jit` and `vmap`), first order,",
        f"at {POINTS} points per group ({RELEASE_POINTS} for the finite-release kernels) spread",
        "over each argument's range (random magnitudes, each lower edge of a domain, a = b,",
        "d = 1e4, δ = 1e-12, n_syn = ∞), equal to each other to 1e-12 and to central",
        "differences to 1e-8 of the largest derivative at the point (plus the difference's own",
        "error; none in n_syn at n_syn = ∞, where its derivative is 0).",
        "Quadrature error estimates (`*_error` outputs) are not differentiated.",
        "",
        "| quantity | differentiable in (forward and reverse) | not differentiated | at kinks |",
        "|---|---|---|---|",
    ]
    for group in groups():
        for name in group.names:
            q = resolve(name)
            smooth = [p for p in q.params if p not in INTEGER_VALUES]
            integer = [f"`{p}` (an integer)" for p in q.params if p in INTEGER_VALUES]
            kinks = [
                f"{', '.join(f'`{p}`' for p in kinked)} at {label}: {reason}"
                for (output, label), (kinked, reason) in KINKS.items()
                if output[0] == name
            ]
            lines.append(
                f"| `{q.source}` | {', '.join(f'`{p}`' for p in smooth)} | "
                f"{', '.join(integer) or '—'} | {'; '.join(kinks) or '—'} |"
            )
    lines += [
        "",
        "Outside the registry (functions of matrices, not elementwise):",
        "",
        "| function | differentiable in | modes | checked by |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{name}` | {args} | {modes} | {test} |"
              for name, args, modes, test in OUTSIDE_REGISTRY]
    return "\n".join(lines) + "\n"


#: The source of the matrix's programs (this file), in their key on disk.
MATRIX_SOURCE = hashlib.sha256(pathlib.Path(__file__).read_bytes()).hexdigest()


def _stored(group: Group, program, mode: str, x: np.ndarray):
    """``jit(program)``, its traced program kept on disk next to the compilation cache
    (tracing the reverse pass of a quadrature costs more than running it), keyed by the source
    of the group's functions' modules and what they import (and of this file)."""
    program = jax.jit(program)
    spec = [jax.ShapeDtypeStruct(x.shape, x.dtype)]
    name = f"{group.function().__name__}_{mode}"
    modules = tuple(sorted({resolve(n).fn.__module__ for n in group.names}))
    return exported_program(program, spec, (MATRIX_SOURCE, name), name=name,
                            modules=modules) or program


def forward_program(group: Group, x: np.ndarray):
    """x ↦ Jacobians: ``jacfwd`` of the group's stacked function at each point, one point
    after another (``lax.map``)."""
    jac = jax.jacfwd(group.function())
    return _stored(group, lambda x: jax.lax.map(jac, x), "jacfwd", x)


def reverse_program(group: Group, x: np.ndarray):
    """x ↦ (Jacobians, values): ``jacrev`` of each function of the group on its own, in one
    program, the points batched (``vmap``), with the values as a by-product (they are the
    snapshot's, ``tests/fixtures/snapshot.json``).

    Through the stacked function, one output's cotangent 0 would meet another's infinite
    partial (log I_v(0) = −inf beside bessel_ratio) as 0 · inf, which no user's grad has.
    """
    def with_value(part):
        def outputs_and_value(p):
            out = part(p)  # traced once: the Jacobian's output and the value are one array
            return out, out

        return outputs_and_value

    parts = [jax.jacrev(with_value(part), has_aux=True) for part in group.parts()]

    def jacobians_and_values(p):
        jacs, values = zip(*(jac(p) for jac in parts))
        return jnp.concatenate(jacs), jnp.concatenate(values)

    return _stored(group, jax.vmap(jacobians_and_values), "jacrev", x)


if __name__ == "__main__":
    print(table(), end="")

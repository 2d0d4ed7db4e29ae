"""``fisherrdp verify``: check every statement of the paper fisherrdp can evaluate, on grids.

One row per statement (see :mod:`fisherrdp._src.checks.statements`): points checked, violations beyond
numerical error, the smallest relative slack ``(large - small)/|large|`` (for limits: the largest
``|ratio - 1|``) and where it occurs. Exit status 1 if a proven inequality is violated beyond
numerical error (or, for the k > 1 Monte Carlo rows of kind ``statistical``, by more than 3
standard errors), 2 for bad options, else 0.

The k > 1 rows (Theorems 5.3 and 5.4 and post-processing, :mod:`fisherrdp._src.checks.wishart`)
are exact ``inequality`` rows for k = 2 (the exact Fisher information and Rényi divergence by
cubature; (k, d) ∈ {(2, 4), (2, 48)}, Δ ∈ {0.25, 0.75}, scaled, random, rotated,
rank-one and rank-two pairs, α ∈ {1.5, 2, 4, 8, 16}) and Monte Carlo ``statistical`` rows for
k = 3 ((3, 48), 2000 draws); ``--no-wishart`` skips them, ``--wishart-samples``,
``--wishart-C``, ``--wishart-delta``, ``--wishart-k`` and ``--wishart-d`` set them.

``--variational`` adds the rows of kind ``variational`` (:mod:`fisherrdp._src.checks.variational`):
estimates from samples only (:func:`fisherrdp.variational.estimate_fisher`,
:func:`fisherrdp.variational.estimate_renyi`) against Prop 5.1, the path bound, Theorem 5.2 and
the exact values for k = 1, and against Theorems 5.3, 5.4 and post-processing for k = 2, 3; a
point violates a bound if its whole 95% interval lies above it (exit status 1). Their grid is
:class:`~fisherrdp._src.checks.variational.VariationalGrid`'s (its docstring gives the measured
time); ``--variational-steps``, ``--variational-members`` and ``--variational-n-eval`` set the
estimators' effort. Each row also shows how many estimates the estimators flag as unreliable
and, against exact values, how many intervals cover the exact value.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys

NAME = "verify"
HELP = (
    "check the paper's inequalities: k = 1 exactly on grids of d, θ or C, Δ and α; "
    "k = 2 (Theorems 5.3, 5.4) exactly by cubature, k = 3 by Monte Carlo"
)


def _list_of(convert, what: str):
    """An argparse type: comma-separated values, each through ``convert``."""

    def parse(text: str) -> tuple:
        try:
            return tuple(convert(s) for s in text.split(","))
        except ValueError as e:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated {what}, got {text!r}"
            ) from e

    return parse


_floats = _list_of(float, "numbers")
_ints = _list_of(int, "integers")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--d-range",
        metavar="LO,HI",
        type=_floats,
        default=(1.0, 1e4),
        help="range of d, log-spaced (default 1,1e4)",
    )
    parser.add_argument("--nd", type=int, default=13, help="number of d values (default 13)")
    parser.add_argument(
        "--theta-range",
        metavar="LO,HI",
        type=_floats,
        default=(0.01, 100.0),
        help="range of θ (Fisher statements) and C (divergence statements), "
        "log-spaced (default 0.01,100)",
    )
    parser.add_argument("--ntheta", type=int, default=13, help="number of θ/C values (default 13)")
    parser.add_argument(
        "--delta",
        metavar="LIST",
        type=_floats,
        default=(0.01, 0.1, 0.25, 0.5, 1.0, 2.0),
        help="sensitivities Δ (default 0.01,0.1,0.25,0.5,1,2)",
    )
    parser.add_argument(
        "--alpha",
        metavar="LIST",
        type=_floats,
        default=(1.25, 1.5, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0),
        help="Rényi orders (default 1.25,1.5,2,4,8,16,32,64)",
    )
    parser.add_argument(
        "--only",
        metavar="TEXT",
        action="append",
        help="check only statements whose name contains TEXT (repeatable)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    parser.add_argument(
        "--chunk", type=int, default=2048, help="points per compiled call (default 2048)"
    )
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    parser.add_argument(
        "--no-wishart",
        action="store_true",
        help="skip the k > 1 checks of Theorems 5.3 and 5.4 (k = 2 exact, k = 3 Monte Carlo)",
    )
    parser.add_argument(
        "--wishart-samples",
        metavar="N",
        type=int,
        default=2000,
        help="Monte Carlo draws per θ (Fisher) and per pair and order (Rényi) of the k ≥ 3 "
        "checks (default 2000)",
    )
    parser.add_argument(
        "--wishart-C",
        metavar="C",
        type=float,
        default=1.0,
        help="Frobenius-norm bound of the k > 1 pairs (default 1)",
    )
    parser.add_argument(
        "--wishart-delta",
        metavar="LIST",
        type=_floats,
        default=(0.25, 0.75),
        help="‖v − w‖_F of the k > 1 pairs, each in (0, C) (default 0.25,0.75)",
    )
    parser.add_argument(
        "--wishart-k",
        metavar="LIST",
        type=_ints,
        help="record dimensions k of the k > 1 checks; with --wishart-d, all (k, d) pairs are "
        "checked (default 2,3 if only --wishart-d is given)",
    )
    parser.add_argument(
        "--wishart-d",
        metavar="LIST",
        type=_ints,
        help="widths d of the k > 1 checks (default 12,48 if only --wishart-k is given; without "
        "either, (k, d) = (2, 4), (2, 48), (3, 48); each k = 3 (k, d) compiles anew, "
        "~10-30 s)",
    )
    parser.add_argument(
        "--variational",
        action="store_true",
        help="also check the bounds against variational estimates from samples (k = 1: Prop 5.1, "
        "path bound, Theorem 5.2, exact values; k = 2, 3: Theorems 5.3, 5.4, post-processing; "
        "minutes)",
    )
    # Defaults None: VariationalGrid's (printed on the variational grid line), so that building
    # the parser imports no estimator.
    parser.add_argument(
        "--variational-steps",
        metavar="N",
        type=int,
        help="training steps of each variational estimate (default: the grid's, 500)",
    )
    parser.add_argument(
        "--variational-members",
        metavar="N",
        type=int,
        help="networks per point of the variational estimates (default: the grid's, 3)",
    )
    parser.add_argument(
        "--variational-n-eval",
        metavar="N",
        type=int,
        help="held-out draws per point of the variational estimates (default: the grid's, 100000)",
    )


def _grid(args: argparse.Namespace):
    import numpy as np

    from fisherrdp._src.checks.statements import Grid
    from fisherrdp._src.checks.variational import VariationalGrid
    from fisherrdp._src.checks.wishart import WishartGrid

    for name, pair, count in (
        ("--d-range", args.d_range, args.nd),
        ("--theta-range", args.theta_range, args.ntheta),
    ):
        if len(pair) != 2 or not 0 < pair[0] <= pair[1] or count < 1:
            raise ValueError(f"{name} must be LO,HI with 0 < LO <= HI and a count >= 1")
    if args.chunk < 16:
        raise ValueError(f"--chunk must be >= 16, got {args.chunk}")
    if args.wishart_samples < 2:
        raise ValueError(f"--wishart-samples must be >= 2, got {args.wishart_samples}")
    dims = {}
    if args.wishart_k is not None or args.wishart_d is not None:
        ks, ds = args.wishart_k or (2, 3), args.wishart_d or (12, 48)
        if min(ks) < 2 or min(ds) < max(ks):
            raise ValueError(
                f"--wishart-k values must be >= 2 and --wishart-d values >= max(k), "
                f"got k = {list(ks)}, d = {list(ds)}"
            )
        dims = {"dims": tuple((k, d) for k in ks for d in ds)}
    knobs = {
        "steps": args.variational_steps,
        "members": args.variational_members,
        "n_eval": args.variational_n_eval,
    }
    return Grid(
        d=tuple(np.geomspace(*args.d_range, args.nd).tolist()),
        theta=tuple(np.geomspace(*args.theta_range, args.ntheta).tolist()),
        delta=tuple(args.delta),
        alpha=tuple(args.alpha),
        wishart=WishartGrid(
            C=args.wishart_C,
            delta=tuple(args.wishart_delta),
            n_samples=args.wishart_samples,
            **dims,
        ),
        variational=VariationalGrid(**{k: v for k, v in knobs.items() if v is not None}),
    )


def _format_where(where: dict) -> str:
    return " ".join(f"{k}={v:.4g}" for k, v in where.items())


def _estimate_note(r) -> str:
    """The unreliable count and coverage of a variational row ("" for other rows)."""
    if not r.kind.startswith("variational"):
        return ""
    covered = "" if r.covered is None else f", {r.covered}/{r.points} cover the exact value"
    return f"  [{r.unreliable} unreliable{covered}]"


def run(args: argparse.Namespace) -> int:
    from tqdm import tqdm

    from fisherrdp._src.checks.statements import STATEMENTS, run_checks
    from fisherrdp._src.checks.wishart import PAIR_KINDS

    try:
        grid = _grid(args)
    except ValueError as e:
        print(f"fisherrdp verify: error: {e}", file=sys.stderr)
        return 2
    statements = tuple(
        s
        for s in STATEMENTS
        if not (args.no_wishart and s.wishart) and (args.variational or not s.variational)
    )
    if args.only:
        statements = tuple(
            s for s in statements if any(t.lower() in s.name.lower() for t in args.only)
        )
        if not statements:
            hint = "" if args.variational else " (the variational statements need --variational)"
            print(
                f"fisherrdp verify: error: no statement matches {args.only}{hint}", file=sys.stderr
            )
            return 2
    print(
        f"grid: {len(grid.d)} d in [{min(grid.d):g}, {max(grid.d):g}], "
        f"{len(grid.theta)} θ/C in [{min(grid.theta):g}, {max(grid.theta):g}], "
        f"Δ in {list(grid.delta)}, α in {list(grid.alpha)}"
    )
    pair_note = (
        f"(where: pair = index in {'/'.join(PAIR_KINDS)}; order 0 = D(P_v‖P_w), 1 = reverse)"
    )
    if any(s.wishart for s in statements):
        w = grid.wishart
        print(
            f"k > 1 (k = 2 exact by cubature, k ≥ 3 Monte Carlo): (k, d) in {list(w.dims)}, "
            f"C = {w.C:g}, Δ in {list(w.delta)} ({'/'.join(w.pairs)} pairs), "
            f"θ in {list(w.theta)}, α in {list(w.alpha)}, {w.n_samples} samples (k ≥ 3), "
            f"seed {w.seed} {pair_note}"
        )
    if any(s.variational for s in statements):
        v, vw = grid.variational, grid.variational.wishart
        print(
            f"variational (95% intervals): k = 1 Fisher d in {list(v.fisher_d)}, "
            f"θ in {list(v.fisher_theta)}; k = 1 Rényi d in {list(v.renyi_d)}, "
            f"C in {list(v.renyi_C)}, Δ in {list(v.renyi_delta)}, α in {list(v.alpha)}; "
            f"k > 1 (k, d) in {list(vw.dims)}, C = {vw.C:g}, Δ in {list(vw.delta)} "
            f"({'/'.join(vw.pairs)} pairs), θ in {list(vw.theta)}, α in {list(vw.alpha)}; "
            f"{v.steps} steps, {v.members} members, hidden {list(v.hidden)}, "
            f"batch {v.batch_size}, {v.n_eval} held-out draws, seed {v.seed} {pair_note}"
        )
    with tqdm(total=len(statements), disable=args.no_progress, file=sys.stderr, unit="stmt") as bar:
        chunks = 0

        def progress(name: str | None) -> None:
            nonlocal chunks
            if name is None:  # a chunk of points was evaluated
                chunks += 1
                bar.set_postfix_str(f"{chunks} chunks")
            else:
                bar.update(1)

        results = run_checks(grid, statements=statements, progress=progress, chunk=args.chunk)

    width = max([38] + [len(r.name) for r in results])
    header = (
        f"{'statement':<{width}} {'source':<21} {'kind':<13} {'points':>7} {'viol.':>6} "
        f"{'metric':>20}  where"
    )
    print(header)
    print("-" * len(header))
    for r in results:
        label = "slack" if r.metric_name == "min relative slack" else "|ratio-1|"
        metric = f"{label} {r.metric:.3g}" if math.isfinite(r.metric) else f"{label} {r.metric}"
        flag = "  FAIL" if r.failed else ""
        print(
            f"{r.name:<{width}} {r.source:<21} {r.kind:<13} {r.points:>7} {r.violations:>6} "
            f"{metric:>20}  {_format_where(r.where)}{_estimate_note(r)}{flag}"
        )
    failed = [r.name for r in results if r.failed]
    print()
    print(
        "slack = (large − small)/|large| at the tightest point (negative within numerical error "
        "is not a violation); 'limit' rows show max |ratio − 1| near the limit; 'statistical' "
        "rows compare a Monte Carlo estimate minus 3 standard errors with the bound; "
        "'variational' rows compare the lower end of a variational estimate's 95% interval "
        "(small) with the bound ('variational exact': with the exact value, reported, not a "
        "failure: about 2.5% of intervals lie above the truth by chance); only 'inequality', "
        "'statistical' and 'variational' rows can fail."
    )
    print(
        f"{'FAILED: ' + ', '.join(failed) if failed else 'all inequalities hold'} "
        "(within numerical error)"
    )
    if args.json:
        report = {
            "grid": dataclasses.asdict(grid),
            "statements": [r.to_dict() for r in results],
            "failed": failed,
        }
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
    return 1 if failed else 0

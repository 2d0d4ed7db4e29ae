"""``fisherrdp figures --out DIR``: the paper's k = 1 figures, computed exactly, as PNG files.

Writes ``fisher_bounds.png`` (I(d, θ) with every Fisher bound), ``amplification_ratio.png``
(the paper's Fig. 3, exact), ``loss_vs_dimension.png`` (the paper's Fig. 6 with the exact
loss and the numerical path bound) and ``release_vs_nsyn.png`` (the paper's Fig. 2, exact: the
loss of a release of n_syn synthetic records against n_syn, d = 2, 5, 10). That last figure
draws exact curves only by default (27 points): one compilation of the finite-release kernel
plus ~0.2-0.5 s a point, measured 71 s of a 3.0 min default run on 2 CPU cores at load 7 (the
other three figures: 99 s). ``--full`` draws denser curves (99 points: 126 s there) and
overlays on it the paper's variational estimates with their 95% intervals, at n_syn = 1, 10,
100, 1000 for each d: 12 trainings of ``estimate_renyi`` (1000 steps), measured ~70 s each
there, so ``--full`` takes ~15-20 minutes on such a machine.
See :mod:`fisherrdp._src.figures`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

NAME = "figures"
HELP = (
    "write the k = 1 figures (Fisher bounds, amplification ratio, loss against d, loss against "
    "n_syn) as PNGs"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="figures", help="output directory (default: figures)")
    parser.add_argument("--alpha", type=float, default=2.0, help="Rényi order (default 2)")
    parser.add_argument("--dpi", type=int, default=120, help="resolution (default 120)")
    parser.add_argument(
        "--full",
        action="store_true",
        help="denser curves, and variational estimates on the n_syn figure (~15-20 minutes on "
        "2 busy CPU cores, where the default takes ~3 minutes)",
    )


def run(args: argparse.Namespace) -> int:
    if not args.alpha > 1:
        print(f"fisherrdp figures: error: --alpha must be > 1, got {args.alpha}", file=sys.stderr)
        return 2
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    from fisherrdp._src import figures

    scale = 4 if args.full else 1
    os.makedirs(args.out, exist_ok=True)
    jobs = (
        (
            "fisher_bounds.png",
            lambda: figures.fisher_bounds_figure(figures.fisher_bounds_data(n_theta=100 * scale)),
        ),
        (
            "amplification_ratio.png",
            lambda: figures.amplification_ratio_figure(
                figures.amplification_ratio_data(alpha=args.alpha, n_delta=20 * scale)
            ),
        ),
        (
            "loss_vs_dimension.png",
            lambda: figures.loss_vs_dimension_figure(
                figures.loss_vs_dimension_data(alpha=args.alpha, n_d=20 * scale)
            ),
        ),
        (
            "release_vs_nsyn.png",
            lambda: figures.release_vs_nsyn_figure(
                figures.release_vs_nsyn_data(
                    alpha=args.alpha,
                    n_syn=np.geomspace(1.0, 1e4, 8 * scale + 1),
                    estimates=args.full,
                )
            ),
        ),
    )
    for filename, make in jobs:
        start = time.perf_counter()
        path = os.path.join(args.out, filename)
        make().savefig(path, dpi=args.dpi)
        print(f"wrote {path} ({time.perf_counter() - start:.1f} s)")
    return 0

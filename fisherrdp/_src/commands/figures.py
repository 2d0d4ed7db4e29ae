"""``fisherrdp figures --out DIR``: the paper's figures as PNGs (k = 1 exact, k > 1 Monte Carlo).

Writes ``fisher_bounds.png`` (I(d, θ) with every Fisher bound), ``amplification_ratio.png``
(the paper's Fig. 3, exact), ``loss_vs_dimension.png`` (the paper's Fig. 6 with the exact
loss and the numerical path bound) and ``release_vs_nsyn.png`` (the paper's Fig. 2, exact: the
loss of a release of n_syn synthetic records against n_syn, d = 2, 5, 10). That last figure
draws exact curves only by default (27 points): one compilation of the finite-release kernel
plus ~0.2-0.5 s a point, measured 71 s of a 3.0 min default run on 2 CPU cores at load 7 (the
other three figures: 99 s). ``--full`` draws denser curves (99 points: 126 s there) and
overlays on it the paper's variational estimates with their 95% intervals, at n_syn = 1, 10,
100, 1000 for each d: 12 trainings of ``estimate_renyi`` (1000 steps), measured ~70 s each
there. ``--full`` also overlays on ``amplification_ratio.png`` the variational estimates of
the ratio at Δ = 0.25, 0.5, 1 for d = 2, 5, 10, 50: 12 more trainings (1000 steps, on samples
of ‖V‖²), measured 5.5-9 s each on 2 CPU cores at load 3 and 16-41 s each while another
JAX job competed, 261 s in all. So ``--full`` takes ~20-25 minutes on such a machine.
Last, ``wishart_fisher.png`` (k > 1): the Monte Carlo Fisher information along the non-central
Wishart path (±3 standard errors) against θ with the Theorem 5.3 bound in both readings, k = 2
and 3, d = 24, 5 θ values and 1000 draws each (``--full``: 17 θ values, 4000 draws, 81 s
measured for the data while tests ran alongside). Its default cost is mostly two compilations
of the score: measured 26 s for the data on 2 CPU cores at load ~3 (another job running), then
2 s for a second data set and 1 s to draw; for k = 2 the panel also draws the exact Fisher
information (cubature). ``wishart_renyi.png`` (k = 2): the exact Rényi divergence of the Gram
matrices against Δ (d = 12, C = 1, scaled, random and rank-one pairs, 6 values of Δ) with
Theorem 5.4 in both readings and post-processing.
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
    "n_syn) and the k > 1 Fisher information against Theorem 5.3 as PNGs"
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", default="figures", help="output directory (default: figures)")
    parser.add_argument("--alpha", type=float, default=2.0, help="Rényi order (default 2)")
    parser.add_argument("--dpi", type=int, default=120, help="resolution (default 120)")
    parser.add_argument(
        "--full",
        action="store_true",
        help="denser curves, and variational estimates on the amplification-ratio and n_syn "
        "figures (~20-25 minutes on 2 busy CPU cores, where the default takes ~3 minutes)",
    )


def run(args: argparse.Namespace) -> int:
    if not args.alpha > 1:
        print(f"fisherrdp figures: error: --alpha must be > 1, got {args.alpha}", file=sys.stderr)
        return 2
    import matplotlib
    import numpy as np

    matplotlib.use("Agg")
    from fisherrdp import figures

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
                figures.amplification_ratio_data(
                    alpha=args.alpha, n_delta=20 * scale, estimates=args.full
                )
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
                    n_syn=np.geomspace(1.0, 1e4, 120 * scale + 1),
                    estimates=args.full,
                )
            ),
        ),
        (
            "wishart_fisher.png",
            lambda: figures.wishart_fisher_figure(
                figures.wishart_fisher_data(n_theta=4 * scale + 1, n_samples=1000 * scale)
            ),
        ),
        (
            "wishart_renyi.png",
            lambda: figures.wishart_renyi_figure(
                figures.wishart_renyi_data(alpha=args.alpha, n_delta=5 * scale + 1)
            ),
        ),
    )
    for filename, make in jobs:
        start = time.perf_counter()
        path = os.path.join(args.out, filename)
        make().savefig(path, dpi=args.dpi)
        print(f"wrote {path} ({time.perf_counter() - start:.1f} s)")
    return 0

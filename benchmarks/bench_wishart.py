"""Speed of ``fisherrdp.special.log_hyp0f1_matrix`` for k = 2, 3, 4 against the mpmath reference.

For each k: a batch of ``--n`` (default 1000) random symmetric PSD k × k matrices
X = Q diag(λ) Qᵀ (Q Haar-random, λ uniform on [0, ``--max-eig``], default 5; fixed seed),
b = k/2 + 1. The fisherrdp call (eager API: eigenvalues, truncation choice and the jitted
series) is timed after a first call that compiles (compile time reported on its own), as the
median of ``--runs`` runs. The mpmath reference of ``tests/fixtures/make_hyp0f1_matrix_fixtures.py``
(40 digits; closed series for k = 2, Koev–Edelman recursion with the same largest |κ| that
fisherrdp chose for k ≥ 3) is timed on ``--ref-points`` of the same matrices. The table gives
seconds per matrix and the ratio mpmath/fisherrdp, and the largest relative difference of ₀F₁
on the reference points.

Usage::

    python benchmarks/bench_wishart.py [--n 1000] [--runs 5] [--ref-points 2] [--max-eig 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "fixtures"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--ref-points", type=int, default=2)
    parser.add_argument("--max-eig", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    import jax
    import make_hyp0f1_matrix_fixtures as ref
    import mpmath as mp

    import fisherrdp.special as fs
    from fisherrdp._src.special.hyp0f1_matrix import _truncation

    mp.mp.dps = 40
    rng = np.random.default_rng(args.seed)
    rows = []
    for k in (2, 3, 4):
        lam = rng.uniform(0.0, args.max_eig, size=(args.n, k))
        q, r = np.linalg.qr(rng.normal(size=(args.n, k, k)))
        q = q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[:, None, :]
        X = np.einsum("nij,nj,nlj->nil", q, lam, q)
        X = 0.5 * (X + np.swapaxes(X, -1, -2))
        b = 0.5 * k + 1.0
        start = time.perf_counter()
        first = jax.block_until_ready(fs.log_hyp0f1_matrix(b, X))
        compile_s = time.perf_counter() - start
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            jax.block_until_ready(fs.log_hyp0f1_matrix(b, X))
            times.append(time.perf_counter() - start)
        ours = statistics.median(times) / args.n
        eigs = np.linalg.eigvalsh(X[: args.ref_points])
        size = _truncation(np.full(args.ref_points, b), eigs, k, np.float64)
        start = time.perf_counter()
        worst = 0.0
        for i in range(args.ref_points):
            x = [max(float(v), 0.0) for v in eigs[i]]
            if k == 2:
                value = ref.closed_k2(b, *x)
            else:
                value = ref.pfq_from_terms(ref.jack_terms(x, size), [], [b])[0]
            worst = max(worst, abs(float(mp.exp(mp.mpf(float(first[i])) - mp.log(value)) - 1)))
        theirs = (time.perf_counter() - start) / args.ref_points
        rows.append((k, size, compile_s, ours, theirs, worst))

    print(f"log_hyp0f1_matrix, batch of {args.n}, eigenvalues U(0, {args.max_eig}), b = k/2 + 1")
    print(
        f"{'k':>2} {'trunc':>5} {'compile s':>10} {'fisherrdp s/matrix':>19} {'mpmath s/matrix':>16} "
        f"{'ratio':>9} {'max rel diff':>13}"
    )
    for k, size, compile_s, ours, theirs, worst in rows:
        print(
            f"{k:>2} {size:>5} {compile_s:>10.2f} {ours:>19.3e} {theirs:>16.3e} {theirs / ours:>9.0f} "
            f"{worst:>13.1e}"
        )
    return rows


if __name__ == "__main__":
    main()

"""Issue 4 benchmark: matrix ₀F₁ against mpmath (k = 2, 3, 4), and the Monte Carlo Wishart Fisher.

Part 1, ``fisherrdp.special.log_hyp0f1_matrix``. For each k in ``--ks`` (default 2,3,4): a
batch of ``--n`` (default 1000) random symmetric PSD k × k matrices X = Q diag(λ) Qᵀ (Q
Haar-random, λ uniform on [0, ``--max-eig``], default 5; fixed seed), b = k/2 + 1. The
fisherrdp call (eager API: eigenvalues, truncation choice and the jitted series) is timed after
a first call that compiles (compile time reported on its own), as the median of ``--runs`` runs.
The mpmath reference of ``tests/fixtures/make_hyp0f1_matrix_fixtures.py`` (40 digits; closed
series for k = 2, Koev–Edelman recursion with the same largest |κ| that fisherrdp chose for
k ≥ 3) is timed on ``--ref-points`` of the same matrices. Reported side by side: seconds per
matrix for both, the ratio mpmath/fisherrdp, and the largest relative difference of ₀F₁ on the
reference points.

Part 2, ``fisherrdp.fisher.wishart_path_fisher`` (Theorem 5.3's Fisher information by Monte
Carlo). Case: k = 2, d = ``--fisher-d`` (default 50), v with i.i.d. N(0, 0.3²) entries (fixed
seed), w = v + N(0, 0.1²), one θ = 0.5 per call, ``--fisher-samples`` draws (default 1e5). The
first call compiles (reported on its own); then the median of ``--fisher-runs`` calls with fresh
keys (each ends with ``block_until_ready``). Reported: the median, µs per sample, and the cost
of one sample relative to one k = 2 ``log_hyp0f1_matrix`` evaluation of part 1 (a draw, the
score's ₀F₁ and its forward-mode derivative), with the estimate, its standard error and the
Theorem 5.3 bound (re-derived) at that θ. ``--no-fisher`` skips part 2.

``--quick``: 100 matrices, 2 runs, 1 reference point, 1e4 samples and 2 Fisher runs.

Usage::

    python benchmarks/bench_wishart.py [--quick] [--n 1000] [--runs 5] [--ref-points 2]
        [--max-eig 5] [--ks 2,3,4] [--fisher-samples 100000] [--fisher-d 50]
        [--fisher-runs 5] [--no-fisher] [--seed 0] [--json PATH] [--quiet]

Measured (2026-11-30, Linux x86_64 VM, 2 cores shared with other jobs, jax 0.10.2, CPU; default
options)::

    log_hyp0f1_matrix, batch of 1000, eigenvalues U(0, 5), b = k/2 + 1
     k trunc  compile s  fisherrdp s/matrix  mpmath s/matrix     ratio  max rel diff
     2    16       6.70           7.523e-05        1.215e-01      1615       6.3e-16
     3    24       8.38           9.475e-04        1.326e+00      1399       3.1e-16
     4    32      18.42           8.284e-03        1.465e+01      1768       1.9e-15

    wishart_path_fisher: k = 2, d = 50, 100000 samples, θ = 0.5
      first call (compile + run): 11.91 s
      median of 5 runs:       2.998 s (29.98 µs/sample)
      one sample costs 0.4× one k = 2 log_hyp0f1_matrix (part 1)
      I(θ) = 0.00747444 ± 3.4e-05  (Theorem 5.3 bound 0.0239255)

The load was ~3.5 (another helper's jobs and tests); the Fisher median was 1.44 s (14.4 µs per
sample) in an earlier run on the same machine with less competition.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO_ROOT, "tests", "fixtures"))


def _ints(text: str) -> tuple[int, ...]:
    return tuple(int(s) for s in text.split(","))


def bench_hyp0f1(ks, n, runs, ref_points, max_eig, seed) -> list[dict]:
    """Part 1: log_hyp0f1_matrix against the mpmath reference, one row per k."""
    import jax
    import make_hyp0f1_matrix_fixtures as ref
    import mpmath as mp

    import fisherrdp.special as fs
    from fisherrdp._src.special.hyp0f1_matrix import series_truncation

    mp.mp.dps = 40
    rng = np.random.default_rng(seed)
    rows = []
    for k in ks:
        lam = rng.uniform(0.0, max_eig, size=(n, k))
        q, r = np.linalg.qr(rng.normal(size=(n, k, k)))
        q = q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[:, None, :]
        X = np.einsum("nij,nj,nlj->nil", q, lam, q)
        X = 0.5 * (X + np.swapaxes(X, -1, -2))
        b = 0.5 * k + 1.0
        start = time.perf_counter()
        first = jax.block_until_ready(fs.log_hyp0f1_matrix(b, X))
        compile_s = time.perf_counter() - start
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            jax.block_until_ready(fs.log_hyp0f1_matrix(b, X))
            times.append(time.perf_counter() - start)
        ours = statistics.median(times) / n
        m = min(ref_points, n)
        eigs = np.linalg.eigvalsh(X[:m])
        size = series_truncation(np.full(m, b), eigs, k, np.float64)
        start = time.perf_counter()
        worst = 0.0
        for i in range(m):
            x = [max(float(v), 0.0) for v in eigs[i]]
            if k == 2:
                value = ref.closed_k2(b, *x)
            else:
                value = ref.pfq_from_terms(ref.jack_terms(x, size), [], [b])[0]
            worst = max(worst, abs(float(mp.exp(mp.mpf(float(first[i])) - mp.log(value)) - 1)))
        theirs = (time.perf_counter() - start) / m
        rows.append(
            {
                "k": int(k),
                "truncation": int(size),
                "compile_s": compile_s,
                "fisherrdp_median_s_per_matrix": ours,
                "mpmath_s_per_matrix": theirs,
                "ratio_mpmath_over_fisherrdp": theirs / ours,
                "max_rel_diff": worst,
                "ref_points": m,
            }
        )
    return rows


def bench_fisher(n_samples, d, runs, seed) -> dict:
    """Part 2: wishart_path_fisher at k = 2, one θ, ``n_samples`` draws."""
    import jax

    from fisherrdp.bounds import theorem53_fisher_bound
    from fisherrdp.fisher import wishart_path_fisher

    rng = np.random.default_rng(seed)
    k, theta = 2, 0.5
    v = rng.normal(size=(d, k)) * 0.3
    w = v + rng.normal(size=(d, k)) * 0.1

    def call(i):
        out = wishart_path_fisher(v, w, theta, key=jax.random.key(i), n_samples=n_samples)
        return jax.block_until_ready(out)

    start = time.perf_counter()
    fisher, stderr = call(0)
    compile_s = time.perf_counter() - start
    times = []
    for i in range(runs):
        start = time.perf_counter()
        call(i + 1)
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    a, _, bt = np.linalg.svd(v @ w.T)
    uw = a @ bt @ w
    rho = np.linalg.norm((1 - theta) * v + theta * uw)
    bound = float(theorem53_fisher_bound(np.sum((uw - v) ** 2), rho, d // k))
    return {
        "k": k,
        "d": d,
        "theta": theta,
        "n_samples": n_samples,
        "runs": runs,
        "compile_s": compile_s,
        "median_s": median,
        "us_per_sample": median / n_samples * 1e6,
        "fisher": float(fisher),
        "stderr": float(stderr),
        "theorem53": bound,
    }


def _print(r: dict) -> None:
    h = r["hyp0f1"]
    if h:
        print(
            f"log_hyp0f1_matrix, batch of {r['n']}, eigenvalues U(0, {r['max_eig']:g}), b = k/2 + 1"
        )
        print(
            f"{'k':>2} {'trunc':>5} {'compile s':>10} {'fisherrdp s/matrix':>19} "
            f"{'mpmath s/matrix':>16} {'ratio':>9} {'max rel diff':>13}"
        )
        for row in h:
            print(
                f"{row['k']:>2} {row['truncation']:>5} {row['compile_s']:>10.2f} "
                f"{row['fisherrdp_median_s_per_matrix']:>19.3e} "
                f"{row['mpmath_s_per_matrix']:>16.3e} "
                f"{row['ratio_mpmath_over_fisherrdp']:>9.0f} {row['max_rel_diff']:>13.1e}"
            )
    f = r["fisher"]
    if f is not None:
        print()
        print(
            f"wishart_path_fisher: k = {f['k']}, d = {f['d']}, {f['n_samples']} samples, "
            f"θ = {f['theta']}"
        )
        print(f"  first call (compile + run): {f['compile_s']:.2f} s")
        print(
            f"  median of {f['runs']} runs:       {f['median_s']:.3f} s "
            f"({f['us_per_sample']:.2f} µs/sample)"
        )
        if "sample_over_hyp0f1_k2" in f:
            print(
                "  one sample costs "
                f"{f['sample_over_hyp0f1_k2']:.1f}× one k = 2 log_hyp0f1_matrix (part 1)"
            )
        print(
            f"  I(θ) = {f['fisher']:.6g} ± {f['stderr']:.2g}  "
            f"(Theorem 5.3 bound {f['theorem53']:.6g})"
        )


def main(argv=None) -> dict:
    """Run both parts; return the results as a JSON-able dict (printed unless ``--quiet``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (see the docstring)")
    parser.add_argument("--n", type=int, default=1000, help="matrices per batch (default 1000)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs (default 5)")
    parser.add_argument("--ref-points", type=int, default=2, help="mpmath points (default 2)")
    parser.add_argument("--max-eig", type=float, default=5.0, help="eigenvalue range (default 5)")
    parser.add_argument("--ks", type=_ints, default=(2, 3, 4), help="k values (default 2,3,4)")
    parser.add_argument("--fisher-samples", type=int, default=100_000)
    parser.add_argument("--fisher-d", type=int, default=50)
    parser.add_argument("--fisher-runs", type=int, default=5)
    parser.add_argument("--no-fisher", action="store_true", help="skip part 2")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    parser.add_argument("--quiet", action="store_true", help="print nothing; just return/write")
    args = parser.parse_args(argv)
    if args.quick:
        args.n, args.runs, args.ref_points = 100, 2, 1
        args.fisher_samples, args.fisher_runs = 10_000, 2
    for name in ("n", "runs", "ref_points", "fisher_runs"):
        if getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be >= 1")
    if args.fisher_samples < 2:
        parser.error("--fisher-samples must be >= 2")
    if any(k < 2 for k in args.ks):
        parser.error("--ks values must be >= 2")

    hyp = bench_hyp0f1(args.ks, args.n, args.runs, args.ref_points, args.max_eig, args.seed)
    fisher = None
    if not args.no_fisher:
        fisher = bench_fisher(args.fisher_samples, args.fisher_d, args.fisher_runs, args.seed)
        k2 = [row for row in hyp if row["k"] == 2]
        if k2:
            per_matrix = k2[0]["fisherrdp_median_s_per_matrix"]
            fisher["sample_over_hyp0f1_k2"] = fisher["us_per_sample"] * 1e-6 / per_matrix
    results = {
        "n": args.n,
        "runs": args.runs,
        "max_eig": args.max_eig,
        "seed": args.seed,
        "quick": args.quick,
        "hyp0f1": hyp,
        "fisher": fisher,
    }
    if not args.quiet:
        _print(results)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=2)
    return results


if __name__ == "__main__":
    main()

"""Issue 14 benchmark: exact k = 2 Wishart Rényi divergence against Monte Carlo at equal time.

Cases: random k = 2 pairs (fixed seed): d uniform in [2, 60], v with i.i.d. N(0, s²) entries
(s uniform in [0.2, 1.5]), w = v + N(0, t²) (t uniform in [0.1, 0.6]), α ∈ {1.5, 2, 4}.

1. *One value*: ``renyi_ncwishart`` on the first pair: the first call (compilation + run)
   and the median of ``--runs`` further calls; then ``renyi_ncwishart_mc`` with the number of
   samples that takes about the same wall time (found by timing 2000 samples), and the digits
   each gets: −log10 of the relative error (exact: its own error estimate; Monte Carlo: the
   relative standard error, and the actual error against the exact value).
2. *Batch*: ``--pairs`` (default 100) pairs in one ``renyi_ncwishart_gram`` call (after
   compilation), seconds per pair.

Medians are printed. ``--quick``: 4 pairs, 1 run, 1000 Monte Carlo samples minimum.

Usage::

    python benchmarks/bench_wishart_exact.py [--quick] [--pairs 100] [--runs 3] [--seed 0]
        [--json PATH] [--quiet]
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common


def _pairs(n: int, seed: int):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        d = int(rng.integers(2, 61))
        v = rng.normal(size=(d, 2)) * rng.uniform(0.2, 1.5)
        w = v + rng.normal(size=(d, 2)) * rng.uniform(0.1, 0.6)
        out.append((float(rng.choice([1.5, 2.0, 4.0])), d, v, w))
    return out


def run(pairs: int, runs: int, seed: int, min_samples: int) -> dict:
    _common.import_fisherrdp()
    import jax

    from fisherrdp.divergences import renyi_ncwishart, renyi_ncwishart_gram, renyi_ncwishart_mc

    cases = _pairs(max(pairs, 1), seed)
    alpha, d, v, w = cases[0]
    start = time.perf_counter()
    value, error = renyi_ncwishart(alpha, float(d), v, w, return_error=True)
    value = float(value)
    first_s = time.perf_counter() - start
    times = _common.time_runs(
        lambda: jax.block_until_ready(renyi_ncwishart(alpha, float(d), v, w)), runs
    )
    exact_s = _common.median(times)
    # Monte Carlo: time a probe (compiles), then size the run to the exact method's time.
    probe_n = 2000
    renyi_ncwishart_mc(alpha, d, v, w, key=jax.random.key(0), n_samples=probe_n)
    start = time.perf_counter()
    jax.block_until_ready(
        renyi_ncwishart_mc(alpha, d, v, w, key=jax.random.key(1), n_samples=probe_n).estimate
    )
    per_sample = (time.perf_counter() - start) / probe_n
    n_mc = max(min_samples, int(exact_s / per_sample))
    renyi_ncwishart_mc(alpha, d, v, w, key=jax.random.key(3), n_samples=n_mc)  # compiles
    start = time.perf_counter()
    mc = renyi_ncwishart_mc(alpha, d, v, w, key=jax.random.key(2), n_samples=n_mc)
    jax.block_until_ready(mc.estimate)
    mc_s = time.perf_counter() - start
    digits = lambda rel: -math.log10(max(rel, 1e-17))
    one = {
        "alpha": alpha, "d": d, "value": value, "error_estimate": float(error),
        "first_call_s": first_s, "median_s": exact_s, "exact_digits": digits(float(error) / value),
        "mc_samples": n_mc, "mc_s": mc_s, "mc_estimate": float(mc.estimate),
        "mc_stderr": float(mc.stderr), "mc_digits_stderr": digits(float(mc.stderr) / value),
        "mc_digits_actual": digits(abs(float(mc.estimate) - value) / value),
    }
    # Batch: one call on the Gram matrices Ω = vᵀv (the d differ from pair to pair).
    alphas = np.array([c[0] for c in cases])
    ds = np.array([float(c[1]) for c in cases])
    om_v = np.stack([c[2].T @ c[2] for c in cases])
    om_w = np.stack([c[3].T @ c[3] for c in cases])
    batch_times = _common.time_runs(
        lambda: jax.block_until_ready(
            renyi_ncwishart_gram(alphas, ds, om_v, om_w, return_error=True)
        ),
        max(1, runs // 2),
    )
    values, errors = renyi_ncwishart_gram(alphas, ds, om_v, om_w, return_error=True)
    rel = np.asarray(errors) / np.abs(np.asarray(values))
    batch = {
        "pairs": len(cases), "median_s": _common.median(batch_times),
        "s_per_pair": _common.median(batch_times) / len(cases),
        "median_error_estimate_rel": float(np.median(rel)),
        "max_error_estimate_rel": float(np.max(rel)),
    }
    return {"one_value": one, "batch": batch}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--pairs", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    pairs, runs, min_samples = (4, 1, 1000) if args.quick else (args.pairs, args.runs, 2000)
    res = run(pairs, runs, args.seed, min_samples)
    if not args.quiet:
        for line in _common.environment_lines():
            print(line)
        o, b = res["one_value"], res["batch"]
        print(f"one value (α = {o['alpha']}, d = {o['d']}): D = {o['value']:.12g} "
              f"± {o['error_estimate']:.1e}")
        print(f"  exact: first call {o['first_call_s']:.2f} s, median {o['median_s']:.3f} s, "
              f"{o['exact_digits']:.1f} digits (error estimate)")
        print(f"  Monte Carlo, {o['mc_samples']} samples in {o['mc_s']:.3f} s: "
              f"{o['mc_estimate']:.6g} ± {o['mc_stderr']:.1e} "
              f"({o['mc_digits_stderr']:.1f} digits by stderr, {o['mc_digits_actual']:.1f} actual)")
        print(f"batch of {b['pairs']} pairs: median {b['median_s']:.2f} s "
              f"({b['s_per_pair']:.3f} s per pair), error estimates: median "
              f"{b['median_error_estimate_rel']:.1e}, max {b['max_error_estimate_rel']:.1e} relative")
    _common.write_json(args.json, {"environment": _common.environment(), **res}, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

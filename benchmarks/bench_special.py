"""Speed and accuracy of ``fisherrdp.special.log_bessel_ive`` against SciPy and mpmath.

Points (fixed seed, default 0), n of them (default 1e6)::

    v = -0.5 + 10 ** U(-3, log10(5000.5))   # v in [-0.499, 5000], log-uniform in v + 0.5
    x = 10 ** U(-10, 6)                      # x in [1e-10, 1e6], log-uniform

Speed: the jitted ``log_bessel_ive`` (compiled ahead of time, compile time reported on its
own; inputs already on the device; median of ``--jax-runs`` runs, each ended by
``block_until_ready``) against ``numpy.log(scipy.special.ive(v, x))`` on the same points
(median of ``--scipy-runs`` runs). The ratio jax/scipy is reported; the target is <= 1.

Accuracy: on a random subsample of ``--sample`` points, both are compared with
``log(mpmath.besseli(v, x)) - x`` at 30 digits. The error is
``|value - ref| / max(1, |ref|)``. Since I_v(x) > 0 for v > -1 and x > 0, the true value
is finite at every point; the points where SciPy gives -inf or nan are counted, on the
subsample and on all n points.

No BLAS is involved, so OPENBLAS_NUM_THREADS and similar settings do not matter. SciPy runs
on one thread; XLA may use several cores for large elementwise work: the core count and the
JAX devices are printed.

Usage::

    python benchmarks/bench_special.py [--n 1000000] [--sample 300] [--seed 0] [--json PATH]
"""

from __future__ import annotations

import argparse
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

REPO_ROOT = _common.REPO_ROOT

V_LOG10_LO, V_LOG10_HI = -3.0, math.log10(5000.5)
X_LOG10_LO, X_LOG10_HI = -10.0, 6.0


def sample_points(n: int, seed: int = 0):
    """The benchmark's (v, x) points as float64 NumPy arrays (see the module docstring)."""
    import numpy as np

    rng = np.random.default_rng(seed)
    v = -0.5 + 10.0 ** rng.uniform(V_LOG10_LO, V_LOG10_HI, size=n)
    x = 10.0 ** rng.uniform(X_LOG10_LO, X_LOG10_HI, size=n)
    return v, x


def mpmath_log_bessel_ive(v: float, x: float, dps: int = 30) -> float:
    """log(I_v(x) e^{-x}) by mpmath at ``dps`` digits, rounded to float."""
    import mpmath

    with mpmath.workdps(dps):
        mv, mx = mpmath.mpf(v), mpmath.mpf(x)
        return float(mpmath.log(mpmath.besseli(mv, mx, maxterms=10**6)) - mx)


def _error_stats(values, refs) -> dict:
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    refs = np.asarray(refs, dtype=np.float64)
    finite = np.isfinite(values)
    err = np.abs(values[finite] - refs[finite]) / np.maximum(1.0, np.abs(refs[finite]))
    return {
        "max_err": float(err.max()) if err.size else float("nan"),
        "median_err": float(np.median(err)) if err.size else float("nan"),
        "nonfinite": int((~finite).sum()),
        "nonfinite_fraction": float((~finite).mean()),
        "worst_index": int(np.flatnonzero(finite)[err.argmax()]) if err.size else -1,
    }


_time = _common.time_runs


def run_benchmark(
    n: int = 1_000_000,
    sample: int = 300,
    seed: int = 0,
    jax_runs: int = 5,
    scipy_runs: int = 3,
    dps: int = 30,
    verbose: bool = True,
) -> dict:
    """Run the benchmark; return the results as a JSON-able dict (also printed if verbose)."""
    import jax
    import numpy as np
    import scipy
    import scipy.special as sc

    _common.import_fisherrdp()
    from fisherrdp import special

    def say(*a):
        if verbose:
            print(*a, flush=True)

    for line in _common.environment_lines():
        say(line)
    say(f"points: n={n}, seed={seed}; v = -0.5 + 10**U({V_LOG10_LO:g}, {V_LOG10_HI:.4f}), "
        f"x = 10**U({X_LOG10_LO:g}, {X_LOG10_HI:g})")

    v, x = sample_points(n, seed)

    # --- speed: JAX ---------------------------------------------------------------------
    vj, xj = jax.device_put(v), jax.device_put(x)
    jax.block_until_ready((vj, xj))
    t0 = time.perf_counter()
    compiled = jax.jit(special.log_bessel_ive).lower(vj, xj).compile()
    compile_s = time.perf_counter() - t0
    out_j = compiled(vj, xj).block_until_ready()  # warm-up run
    jax_times = _time(lambda: compiled(vj, xj).block_until_ready(), jax_runs)
    jax_median = statistics.median(jax_times)
    out_j = np.asarray(out_j)

    # --- speed: SciPy -------------------------------------------------------------------
    def scipy_fn():
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.log(sc.ive(v, x))

    out_s = scipy_fn()
    scipy_times = _time(scipy_fn, scipy_runs)
    scipy_median = statistics.median(scipy_times)
    ratio = jax_median / scipy_median

    scipy_bad_full = int((~np.isfinite(out_s)).sum())
    jax_bad_full = int((~np.isfinite(out_j)).sum())

    # --- accuracy against mpmath --------------------------------------------------------
    accuracy: dict = {}
    ref_note = None
    k = min(sample, n)
    idx = np.sort(np.random.default_rng(seed + 1).choice(n, size=k, replace=False))
    try:
        import mpmath  # noqa: F401
    except ImportError:
        ref_note = "mpmath not installed: accuracy skipped (pip install mpmath)"
    if ref_note is None and k > 0:
        t0 = time.perf_counter()
        refs = np.array([mpmath_log_bessel_ive(v[i], x[i], dps) for i in idx])
        ref_s = time.perf_counter() - t0
        accuracy = {
            "jax": _error_stats(out_j[idx], refs),
            "scipy": _error_stats(out_s[idx], refs),
            "refs_finite": bool(np.isfinite(refs).all()),
            "mpmath_seconds": ref_s,
        }
        for d in (accuracy["jax"], accuracy["scipy"]):
            w = d.pop("worst_index")
            if w >= 0:
                i = int(idx[w])
                d["worst_point"] = {"v": float(v[i]), "x": float(x[i]), "ref": float(refs[w])}

    results = {
        "n": n,
        "sample": int(k),
        "seed": seed,
        "dps": dps,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "jax_version": jax.__version__,
        "scipy_version": scipy.__version__,
        "jax_devices": [str(d) for d in jax.devices()],
        "compile_s": compile_s,
        "jax_times_s": jax_times,
        "jax_median_s": jax_median,
        "scipy_times_s": scipy_times,
        "scipy_median_s": scipy_median,
        "ratio_jax_over_scipy": ratio,
        "jax_nonfinite_full": jax_bad_full,
        "scipy_nonfinite_full": scipy_bad_full,
        "scipy_nonfinite_full_fraction": scipy_bad_full / n if n else 0.0,
        "accuracy": accuracy,
    }
    if ref_note:
        results["note"] = ref_note

    if verbose:
        _print_summary(results)
    return results


def _print_summary(r: dict) -> None:
    n = r["n"]
    print()
    print(f"log_bessel_ive on n={n} points")
    print(f"{'':28} {'fisherrdp (jit)':>16} {'scipy log(ive)':>16}")
    print(f"{'median time [s]':28} {r['jax_median_s']:16.4f} {r['scipy_median_s']:16.4f}")
    print(f"{'per point [ns]':28} {1e9 * r['jax_median_s'] / n:16.1f} "
          f"{1e9 * r['scipy_median_s'] / n:16.1f}")
    print(f"{'runs':28} {len(r['jax_times_s']):16d} {len(r['scipy_times_s']):16d}")
    print(f"{'compile time [s]':28} {r['compile_s']:16.3f} {'-':>16}")
    print(f"{'-inf/nan on all n points':28} {r['jax_nonfinite_full']:16d} "
          f"{r['scipy_nonfinite_full']:16d}")
    verdict = "OK" if r["ratio_jax_over_scipy"] <= 1.0 else "ABOVE TARGET"
    print(f"ratio jax/scipy = {r['ratio_jax_over_scipy']:.3f} (target <= 1.0: {verdict})")
    acc = r["accuracy"]
    if acc:
        k = r["sample"]
        print()
        print(f"accuracy vs mpmath (dps={r['dps']}) on {k} random points; "
              f"err = |value - ref| / max(1, |ref|)")
        print(f"{'':28} {'fisherrdp (jit)':>16} {'scipy log(ive)':>16}")
        j, s = acc["jax"], acc["scipy"]
        print(f"{'max err (finite values)':28} {j['max_err']:16.2e} {s['max_err']:16.2e}")
        print(f"{'median err (finite values)':28} {j['median_err']:16.2e} {s['median_err']:16.2e}")
        print(f"{'-inf/nan (true finite)':28} {j['nonfinite']:>9d} ({j['nonfinite_fraction']:4.0%}) "
              f"{s['nonfinite']:>9d} ({s['nonfinite_fraction']:4.0%})")
        for name, d in (("fisherrdp", j), ("scipy", s)):
            if "worst_point" in d:
                w = d["worst_point"]
                print(f"worst {name}: v={w['v']:.17g}, x={w['x']:.17g}, ref={w['ref']:.17g}")
        print(f"(mpmath reference took {acc['mpmath_seconds']:.2f} s)")
    elif "note" in r:
        print(r["note"])


def main(argv: Sequence[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=float, default=1_000_000, help="number of points (default 1e6)")
    p.add_argument("--sample", type=int, default=300,
                   help="points checked against mpmath (default 300)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--jax-runs", type=int, default=5, help="timed JAX runs (default 5)")
    p.add_argument("--scipy-runs", type=int, default=3, help="timed SciPy runs (default 3)")
    p.add_argument("--dps", type=int, default=30, help="mpmath digits (default 30)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--quiet", action="store_true", help="print nothing; just return/write")
    args = p.parse_args(argv)
    results = run_benchmark(
        n=int(args.n),
        sample=args.sample,
        seed=args.seed,
        jax_runs=args.jax_runs,
        scipy_runs=args.scipy_runs,
        dps=args.dps,
        verbose=not args.quiet,
    )
    _common.write_json(args.json, results, quiet=args.quiet)
    return results


if __name__ == "__main__":
    main()
    sys.exit(0)

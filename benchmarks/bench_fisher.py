"""Speed and accuracy of ``fisherrdp.fisher.ncx2_amplitude_fisher`` against a SciPy quad loop.

Points: the full ``--nd`` × ``--ntheta`` grid (default 64 × 64)::

    d     = logspace(0, 4, nd)        # d in [1, 1e4]
    theta = logspace(-2, 2, ntheta)   # θ in [1e-2, 1e2]

fisherrdp: ``jax.jit(ncx2_amplitude_fisher)`` compiled ahead of time on the whole grid (the
compile time is reported on its own), inputs already on the device, median of ``--jax-runs``
runs, each ended by ``block_until_ready``.

SciPy: what a user would write without fisherrdp, a Python loop over the grid points calling
``scipy.integrate.quad`` of ``s(y)² · scipy.stats.ncx2.pdf(y, d, θ²)`` over y in (0, ∞), with the
score ``s(y) = √y · R_ν(θ√y) − θ``, ``R_ν(z) = ive(ν+1, z) / ive(ν, z)``, ``ν = d/2 − 1``. One
timed run. It takes ~0.1–0.2 s per point, i.e. ~10 minutes on the full default grid, so by
default only a random subset of ``--scipy-subsample`` points (default 512; 0 = the full grid) is
timed and the full-grid time is extrapolated per point (marked "extrapolated" in the output).
Failures are counted on the points run: nan/inf results and ``IntegrationWarning`` calls.
The ratio scipy/fisherrdp (after compilation) is reported; the target is >= 100.

Accuracy: on ``--sample`` random points among those SciPy ran, both are compared with the mpmath
reference ``reference(d, θ)`` of ``tests/fixtures/make_fisher_fixtures.py`` (imported from that
file; ``--dps`` digits, default 30). mpmath's Bessel function is slow at large order, so points
with d >= 5000 and θ > 30 are skipped, and so is any point taking over ``--mpmath-limit`` seconds
(default 20; the limit uses SIGALRM, so it needs Unix and the main thread). The error is
``|value − ref| / |ref|`` (the true value is positive); max and median over the finite values,
SciPy's nan/inf counted separately.

SciPy runs on one thread; XLA may use several cores: the core count and the JAX devices are
printed.

Usage::

    python benchmarks/bench_fisher.py [--nd 64] [--ntheta 64] [--jax-runs 5]
        [--scipy-subsample 512] [--sample 12] [--seed 0] [--json PATH] [--quiet]

Measured (2026-11-29, Linux x86_64 VM with 2 cores shared with other jobs, jax 0.10.2 on
[CpuDevice(id=0)], scipy 1.17.1, default options)::

                                        fisherrdp (jit)  scipy quad loop
    compile time [s]                             18.679                -
    grid time [s] (extrapolated)                 2.5986            815.8
    per point [us]                               634.43           199167
    points timed                                   4096              512
    runs                                              5                1
    nan/inf results (points timed)                    0              228
    IntegrationWarning (points timed)                 -              228
    failed: either (points timed)                     -        228 (45%)
    ratio scipy/fisherrdp = 314 (target >= 100: OK)

    accuracy vs mpmath (dps=30) on 11 random points (1 skipped as too slow)
                                        fisherrdp (jit)  scipy quad loop
    max err (finite values)                    1.76e-14         1.00e+00
    median err (finite values)                 1.16e-15         2.87e-13
    nan/inf                                           0                4
    worst fisherrdp: d=3105.01, theta=0.517947, value=0.0001727678360155045,
                     ref=0.0001727678360155014
    worst scipy: d=69.3857, theta=100, value=0, ref=0.9965920297713042
    skipped: d=5572.26, theta=31.0501

The same with ``--scipy-subsample 0`` (all 4096 points through SciPy, nothing extrapolated):
compile 15.0 s; fisherrdp 2.53 s; SciPy 749.6 s; ratio 296; SciPy failed on 1734 of the 4096
points (42%: nan, each with an IntegrationWarning); on 12 mpmath points fisherrdp max / median
error 2.8e-14 / 1.6e-15, SciPy 4.8e-9 / 1.9e-14 with 5 nan. SciPy's failures are nan from
``ive`` underflowing to 0/0 at large ν and small θ√y; it can also be silently wrong, as the
value 0 above, where ``quad`` on (0, ∞) misses the peak near y = θ² = 1e4.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import os
import platform
import signal
import statistics
import sys
import time
import warnings
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

REPO_ROOT = _common.REPO_ROOT
FIXTURE_SCRIPT = os.path.join(REPO_ROOT, "tests", "fixtures", "make_fisher_fixtures.py")

D_LOG10_LO, D_LOG10_HI = 0.0, 4.0
THETA_LOG10_LO, THETA_LOG10_HI = -2.0, 2.0
#: mpmath is not even tried where d >= MPMATH_SLOW_D and θ > MPMATH_SLOW_THETA (it stalls there).
MPMATH_SLOW_D, MPMATH_SLOW_THETA = 5000.0, 30.0


def grid_points(nd: int, ntheta: int):
    """The benchmark's (d, θ) grid, flattened to two float64 NumPy arrays of length nd·ntheta."""
    import numpy as np

    d = np.logspace(D_LOG10_LO, D_LOG10_HI, nd)
    theta = np.logspace(THETA_LOG10_LO, THETA_LOG10_HI, ntheta)
    d_grid, theta_grid = np.meshgrid(d, theta, indexing="ij")
    return d_grid.ravel(), theta_grid.ravel()


def scipy_fisher(d: float, theta: float) -> tuple[float, bool]:
    """I(d, θ) by ``scipy.integrate.quad``; also whether quad raised an ``IntegrationWarning``."""
    import numpy as np
    from scipy import integrate, special, stats

    nu = d / 2.0 - 1.0

    def integrand(y):
        root_y = math.sqrt(y)
        z = theta * root_y
        score = root_y * special.ive(nu + 1.0, z) / special.ive(nu, z) - theta
        return score * score * stats.ncx2.pdf(y, d, theta * theta)

    with warnings.catch_warnings(record=True) as caught, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        value = integrate.quad(integrand, 0.0, np.inf)[0]
    warned = any(issubclass(w.category, integrate.IntegrationWarning) for w in caught)
    return float(value), warned


def load_mpmath_reference():
    """``reference(d, theta) -> (fisher, mass)`` from ``tests/fixtures/make_fisher_fixtures.py``."""
    spec = importlib.util.spec_from_file_location("make_fisher_fixtures", FIXTURE_SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.reference


class _MpmathTimeout(Exception):
    pass


def mpmath_fisher(reference, d: float, theta: float, dps: int, limit_s: float) -> float | None:
    """The mpmath value of I(d, θ) at ``dps`` digits, or None if it takes over ``limit_s``."""
    import mpmath

    def on_alarm(signum, frame):
        raise _MpmathTimeout

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        with mpmath.workdps(dps):
            fisher, _ = reference(d, theta)
        return float(fisher)
    except _MpmathTimeout:
        return None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _error_stats(values, refs, points) -> dict:
    import numpy as np

    values = np.asarray(values, dtype=np.float64)
    refs = np.asarray(refs, dtype=np.float64)
    finite = np.isfinite(values)
    err = np.abs(values[finite] - refs[finite]) / np.abs(refs[finite])
    stats = {
        "max_err": float(err.max()) if err.size else float("nan"),
        "median_err": float(np.median(err)) if err.size else float("nan"),
        "nonfinite": int((~finite).sum()),
    }
    if err.size:
        worst = int(np.flatnonzero(finite)[err.argmax()])
        stats["worst_point"] = {
            **points[worst],
            "value": float(values[worst]),
            "ref": float(refs[worst]),
        }
    return stats


def run_benchmark(
    nd: int = 64,
    ntheta: int = 64,
    jax_runs: int = 5,
    scipy_subsample: int = 512,
    sample: int = 12,
    seed: int = 0,
    dps: int = 30,
    mpmath_limit_s: float = 20.0,
    verbose: bool = True,
) -> dict:
    """Run the benchmark; return the results as a JSON-able dict (also printed if verbose)."""
    import jax
    import numpy as np
    import scipy

    _common.import_fisherrdp()
    from fisherrdp.fisher import ncx2_amplitude_fisher

    def say(*a):
        if verbose:
            print(*a, flush=True)

    for line in _common.environment_lines():
        say(line)
    d, theta = grid_points(nd, ntheta)
    n = d.size
    say(f"grid: {nd} d in [1, 1e4] x {ntheta} theta in [1e-2, 1e2] (log-spaced), {n} points")

    # --- speed: fisherrdp ---------------------------------------------------------------
    d_dev, theta_dev = jax.device_put(d), jax.device_put(theta)
    jax.block_until_ready((d_dev, theta_dev))
    t0 = time.perf_counter()
    compiled = jax.jit(ncx2_amplitude_fisher).lower(d_dev, theta_dev).compile()
    compile_s = time.perf_counter() - t0
    jax_values = np.asarray(compiled(d_dev, theta_dev).block_until_ready())  # warm-up run
    jax_times = []
    for _ in range(jax_runs):
        t0 = time.perf_counter()
        compiled(d_dev, theta_dev).block_until_ready()
        jax_times.append(time.perf_counter() - t0)
    jax_median = statistics.median(jax_times)
    say(f"fisherrdp: compile {compile_s:.2f} s, median run {jax_median:.4f} s")

    # --- speed: SciPy loop --------------------------------------------------------------
    rng = np.random.default_rng(seed)
    extrapolated = 0 < scipy_subsample < n
    if extrapolated:
        scipy_idx = np.sort(rng.choice(n, size=scipy_subsample, replace=False))
    else:
        scipy_idx = np.arange(n)
    say(f"scipy quad loop on {scipy_idx.size} points ...")
    t0 = time.perf_counter()
    scipy_out = [scipy_fisher(d[i], theta[i]) for i in scipy_idx]
    scipy_run_s = time.perf_counter() - t0
    scipy_values = np.array([value for value, _ in scipy_out])
    scipy_warned = np.array([warned for _, warned in scipy_out])
    scipy_grid_s = scipy_run_s / scipy_idx.size * n
    scipy_nonfinite = ~np.isfinite(scipy_values)

    # --- accuracy against mpmath --------------------------------------------------------
    accuracy: dict = {}
    k = min(sample, scipy_idx.size)
    if k > 0:
        reference = load_mpmath_reference()
        sample_idx = np.sort(rng.choice(scipy_idx.size, size=k, replace=False))
        checked, checked_points, refs, skipped = [], [], [], []
        t0 = time.perf_counter()
        for j in sample_idx:
            i = scipy_idx[j]
            point = {"d": float(d[i]), "theta": float(theta[i])}
            slow = d[i] >= MPMATH_SLOW_D and theta[i] > MPMATH_SLOW_THETA
            ref = None if slow else mpmath_fisher(reference, d[i], theta[i], dps, mpmath_limit_s)
            if ref is None:
                skipped.append(point)
                continue
            checked.append(j)
            checked_points.append(point)
            refs.append(ref)
            say(f"  mpmath d={d[i]:.6g} theta={theta[i]:.6g}: I={ref:.16g}")
        checked = np.array(checked, dtype=int)
        accuracy = {
            "checked": int(checked.size),
            "skipped_points": skipped,
            "fisherrdp": _error_stats(jax_values[scipy_idx[checked]], refs, checked_points),
            "scipy": _error_stats(scipy_values[checked], refs, checked_points),
            "mpmath_seconds": time.perf_counter() - t0,
        }

    results = {
        "nd": nd,
        "ntheta": ntheta,
        "n": int(n),
        "seed": seed,
        "dps": dps,
        "cpu_count": os.cpu_count(),
        "platform": platform.platform(),
        "jax_version": jax.__version__,
        "scipy_version": scipy.__version__,
        "jax_devices": [str(dev) for dev in jax.devices()],
        "compile_s": compile_s,
        "jax_times_s": jax_times,
        "jax_median_s": jax_median,
        "jax_nonfinite": int((~np.isfinite(jax_values)).sum()),
        "scipy_points": int(scipy_idx.size),
        "scipy_run_s": scipy_run_s,
        "scipy_grid_s": scipy_grid_s,
        "scipy_grid_s_extrapolated": bool(extrapolated),
        "scipy_nonfinite": int(scipy_nonfinite.sum()),
        "scipy_integration_warnings": int(scipy_warned.sum()),
        "scipy_failed": int((scipy_nonfinite | scipy_warned).sum()),
        "scipy_failed_fraction": float((scipy_nonfinite | scipy_warned).mean()),
        "ratio_scipy_over_fisherrdp": scipy_grid_s / jax_median,
        "accuracy": accuracy,
    }
    if verbose:
        _print_summary(results)
    return results


def _print_summary(r: dict) -> None:
    n, m = r["n"], r["scipy_points"]
    grid_label = "grid time [s]" + (" (extrapolated)" if r["scipy_grid_s_extrapolated"] else "")
    print()
    print(f"ncx2_amplitude_fisher on the {r['nd']} x {r['ntheta']} grid ({n} points)")
    print(f"{'':34} {'fisherrdp (jit)':>16} {'scipy quad loop':>16}")
    print(f"{'compile time [s]':34} {r['compile_s']:16.3f} {'-':>16}")
    print(f"{grid_label:34} {r['jax_median_s']:16.4f} {r['scipy_grid_s']:16.1f}")
    print(
        f"{'per point [us]':34} {1e6 * r['jax_median_s'] / n:16.2f} "
        f"{1e6 * r['scipy_run_s'] / m:16.0f}"
    )
    print(f"{'points timed':34} {n:16d} {m:16d}")
    print(f"{'runs':34} {len(r['jax_times_s']):16d} {1:16d}")
    print(
        f"{'nan/inf results (points timed)':34} {r['jax_nonfinite']:16d} {r['scipy_nonfinite']:16d}"
    )
    print(
        f"{'IntegrationWarning (points timed)':34} {'-':>16} {r['scipy_integration_warnings']:16d}"
    )
    failed = f"{r['scipy_failed']} ({r['scipy_failed_fraction']:.0%})"
    print(f"{'failed: either (points timed)':34} {'-':>16} {failed:>16}")
    ratio = r["ratio_scipy_over_fisherrdp"]
    verdict = "OK" if ratio >= 100 else "BELOW TARGET"
    print(f"ratio scipy/fisherrdp = {ratio:.0f} (target >= 100: {verdict})")
    acc = r["accuracy"]
    if acc:
        print()
        print(
            f"accuracy vs mpmath (dps={r['dps']}) on {acc['checked']} random points "
            f"({len(acc['skipped_points'])} skipped as too slow); err = |value - ref| / |ref|"
        )
        print(f"{'':34} {'fisherrdp (jit)':>16} {'scipy quad loop':>16}")
        j, s = acc["fisherrdp"], acc["scipy"]
        print(f"{'max err (finite values)':34} {j['max_err']:16.2e} {s['max_err']:16.2e}")
        print(f"{'median err (finite values)':34} {j['median_err']:16.2e} {s['median_err']:16.2e}")
        print(f"{'nan/inf':34} {j['nonfinite']:16d} {s['nonfinite']:16d}")
        for name, stats in (("fisherrdp", j), ("scipy", s)):
            if "worst_point" in stats:
                w = stats["worst_point"]
                print(
                    f"worst {name}: d={w['d']:.6g}, theta={w['theta']:.6g}, "
                    f"value={w['value']:.16g}, ref={w['ref']:.16g}"
                )
        for point in acc["skipped_points"]:
            print(f"skipped: d={point['d']:.6g}, theta={point['theta']:.6g}")
        print(f"(mpmath reference took {acc['mpmath_seconds']:.1f} s)")


def main(argv: Sequence[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nd", type=int, default=64, help="grid size in d (default 64)")
    p.add_argument("--ntheta", type=int, default=64, help="grid size in theta (default 64)")
    p.add_argument("--jax-runs", type=int, default=5, help="timed fisherrdp runs (default 5)")
    p.add_argument(
        "--scipy-subsample",
        type=int,
        default=512,
        help="random grid points timed with SciPy, extrapolated to the grid (default 512; "
        "0 = full grid)",
    )
    p.add_argument(
        "--sample", type=int, default=12, help="points checked against mpmath (default 12)"
    )
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--dps", type=int, default=30, help="mpmath digits (default 30)")
    p.add_argument(
        "--mpmath-limit",
        type=float,
        default=20.0,
        help="seconds after which an mpmath point is skipped (default 20)",
    )
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--quiet", action="store_true", help="print nothing; just return/write")
    args = p.parse_args(argv)
    results = run_benchmark(
        nd=args.nd,
        ntheta=args.ntheta,
        jax_runs=args.jax_runs,
        scipy_subsample=args.scipy_subsample,
        sample=args.sample,
        seed=args.seed,
        dps=args.dps,
        mpmath_limit_s=args.mpmath_limit,
        verbose=not args.quiet,
    )
    _common.write_json(args.json, results, quiet=args.quiet)
    return results


if __name__ == "__main__":
    main()
    sys.exit(0)

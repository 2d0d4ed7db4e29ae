"""Throughput of ``fisherrdp.scan.scan`` on one device and on all devices, with compile times.

Quantities and grids (cartesian products of the axes; ``--full`` for an accelerator)::

    quantity      axes                                              default      --full
    fisher        d = logspace(0, 4), theta = logspace(-2, 2)       64 x 64      1000 x 1000
    renyi         alpha in [1.5, 32], d = logspace(0, 3),           4 x 16 x 16  10 x 100 x 1000
                  a in [0, 5], b = 1
    hockey_stick  eps in [0, 4], d = logspace(0, 3), a in [0, 5],   8 x 16 x 16  10 x 100 x 1000
                  b = 1
    release_k1    alpha = 2, d, n_syn, a in [0.5, 3], b = 1.5       2 x 2 x 2    8 x 16 x 32

Configurations, each in a fresh worker process (so that JAX sees the right devices and every
compile time is a cold one; the persistent compilation cache is turned off in the workers):

* ``all``: every local device. On a CPU, ``XLA_FLAGS=--xla_force_host_platform_device_count=N``
  with N the cores this process may use; on a GPU machine, every visible GPU.
* ``one``: one device. On a CPU the default (one XLA CPU device); on a GPU machine
  ``CUDA_VISIBLE_DEVICES`` set to the first visible GPU. Skipped when ``all`` found a single
  device (one GPU, or one core): the two are then the same run.

Per quantity and configuration, with the quantity's default chunk (points per device and
call: ``Quantity.chunk``, ×16 on accelerators; a call evaluates one chunk on each device), except
release_k1 at the default sizes (chunk 4: its 8 points in two blocks, one per device on two):

* **compile**: the scan's own ``attrs["compile_seconds"]`` on a first call (tracing, lowering,
  compiling and the first dispatch), on the measured grid when it fits in one chunk, otherwise
  on its first ``chunk`` points (a warm-up of the same compiled size, so that the measured runs
  find the program compiled); where the scan does not report it, the first call's wall time
  minus a second call's.
* **throughput**: points / median over ``--repeats`` runs of the scan's own ``attrs["seconds"]``
  (the compute after setup: chunked, sharded, pipelined, results copied to host); the wall time
  of the whole ``scan`` call (grid checks, tracing the output shapes, ...) is in the JSON too.
* **memory**: peak host RSS of the worker (``getrusage``; it accumulates over the quantities, in
  the order above), and on accelerators the device's ``peak_bytes_in_use`` from
  ``memory_stats()`` (also cumulative).

The alternative a user would pick without the scan: one eager call of the public function
``fisherrdp.fisher.ncx2_amplitude_fisher(d, theta, return_error=True)`` (it is jitted inside;
the scan's ``fisher`` computes the same two outputs) on the flattened grid, or its first
``--naive-points`` points (default: the whole default grid, 65536 points with ``--full``), in
the ``one`` configuration (or the only one): compile time, points/s (median of the repeats,
results copied to host) and the ratio of the scan's points/s to it, for each configuration; the
two results are compared too. A Python loop over SciPy or mpmath is no contender at these
sizes (``bench_fisher.py``: SciPy's quad loop takes ~0.2 s per Fisher point).

``--budget S`` bounds the whole run: a quantity whose measured grid would not fit in its share
of the time left (predicted from the warm-up) gets fewer repeats, then a grid cut along its first
axis (``truncated_from`` in the JSON); a worker past the deadline is stopped and what it
measured is kept. Workers write their results as they go.

Usage::

    python benchmarks/bench_scan.py [--full | --smoke] [--dtype float64|float32]
        [--quantities fisher,renyi,hockey_stick,release_k1] [--configs one,all]
        [--repeats N] [--chunk N] [--naive-points N | --no-naive] [--budget S]
        [--compile-cache DIR] [--json PATH] [--quiet]

``--smoke``: hockey_stick on 16 points, the ``one`` configuration, one repeat, no eager
comparison (the smoke test; ~15 s, most of it the compile). Its grids for the other quantities
(``--quantities``) have 16 points each, release_k1 2; ``--naive-points N`` brings back the eager
comparison (``benchmarks/device_check.sh --small`` runs all four so, in the ``all``
configuration).

Measured (2026-12-01, Linux x86_64 VM with 2 cores shared with other jobs, load average 5-8
during the run, jax 0.10.2, CPU; ``python benchmarks/bench_scan.py``, 10.5 minutes, ~400 s of
it compiling)::

    fisherrdp.scan throughput, float64, default sizes; one = 1 x cpu; all = 2 x cpu
    quantity          points |           one device           |          all devices           | all/one
                             |   points/s compile s  chunk  n |   points/s compile s  chunk  n |
    fisher              4096 |      828.8     34.84  2048   3 |      902.6     34.96  2048   3 |    1.09
    renyi               1024 |      188.8     42.94   512   3 |        173     36.52   512   3 |    0.92
    hockey_stick        2048 |       1040     26.08   512   3 |      883.8     25.52   512   3 |    0.85
    release_k1             8 |      1.087    102.68     4   1 |     0.9529     79.81     4   1 |    0.88
    host peak RSS [MiB]      |                           1737 |                           2522
    fisher vs one eager call of ncx2_amplitude_fisher(d, theta, return_error=True) on 4096
    points (one device config): 722.6 points/s, compile 29.63 s; scan/eager points/s: one
    device 1.15, all devices 1.25; max rel diff 0.0e+00

With a load of 6 on 2 cores, the two host devices of ``all`` got no more CPU than one: the
all/one column measures nothing here (it needs idle cores, or several GPUs). The compile times
are 2-3x those of an idle machine; release_k1 (~1 point/s per core) compiles in 80-100 s, so
``--quantities fisher,renyi,hockey_stick`` is the quicker run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

QUANTITIES = ("fisher", "renyi", "hockey_stick", "release_k1")
CONFIGS = ("one", "all")
MODES = ("smoke", "default", "full")
FORCE_FLAG = "--xla_force_host_platform_device_count"
#: Default repeats of the measured grid (release_k1 is ~1 point/s on a CPU core: once).
REPEATS = {"smoke": 1, "default": 3, "full": 3}
SLOW_REPEATS = {"release_k1": {"default": 1}}
NAIVE_POINTS = {"smoke": 0, "default": 4096, "full": 65536}
#: Chunks (points per device and call) other than the quantity's default: release_k1's default
#: grid of 8 points in two blocks, so that two devices each get one.
CHUNKS = {"default": {"release_k1": 4}, "smoke": {}, "full": {}}


def grids(mode: str) -> dict[str, dict]:
    """The grid of each quantity for ``mode`` (axis name → 1-D NumPy array or float)."""
    import numpy as np

    lin, log = np.linspace, np.logspace
    if mode == "smoke":
        return {
            "fisher": {"d": log(0, 4, 4), "theta": log(-2, 2, 4)},
            "renyi": {"alpha": lin(2, 8, 2), "d": log(0, 2, 2), "a": lin(0, 3, 4), "b": 1.0},
            "hockey_stick": {"eps": lin(0.1, 1, 2), "d": log(0, 2, 4), "a": lin(0.5, 3, 2),
                             "b": 1.0},
            "release_k1": {"alpha": 2.0, "d": 5.0, "n_syn": log(1, 2, 2), "a": 2.0, "b": 1.5},
        }
    if mode == "default":
        return {
            "fisher": {"d": log(0, 4, 64), "theta": log(-2, 2, 64)},
            "renyi": {"alpha": np.array([1.5, 2.0, 8.0, 32.0]), "d": log(0, 3, 16),
                      "a": lin(0, 5, 16), "b": 1.0},
            "hockey_stick": {"eps": lin(0, 4, 8), "d": log(0, 3, 16), "a": lin(0, 5, 16),
                             "b": 1.0},
            "release_k1": {"alpha": 2.0, "d": np.array([5.0, 20.0]),
                           "n_syn": np.array([10.0, 1000.0]), "a": np.array([1.0, 2.0]),
                           "b": 1.5},
        }
    if mode == "full":
        return {
            "fisher": {"d": log(0, 4, 1000), "theta": log(-2, 2, 1000)},
            "renyi": {"alpha": np.geomspace(1.5, 32, 10), "d": log(0, 3, 100),
                      "a": lin(0, 5, 1000), "b": 1.0},
            "hockey_stick": {"eps": lin(0, 4, 10), "d": log(0, 3, 100), "a": lin(0, 5, 1000),
                             "b": 1.0},
            "release_k1": {"alpha": 2.0, "d": log(0, 2, 8), "n_syn": log(0, 4, 16),
                           "a": lin(0.5, 3, 32), "b": 1.5},
        }
    raise ValueError(f"unknown mode {mode!r}")


# ---------------------------------------------------------------------------------------------
# Worker: one configuration, in its own process.


def _axes(params, grid):
    import numpy as np

    dims = [p for p in params if np.ndim(grid[p]) == 1]
    return dims, tuple(len(grid[d]) for d in dims)


def _first_points(grid, dims, shape, m):
    """The first ``m`` points of the cartesian grid (C order) as ``fisherrdp.scan.points``."""
    import numpy as np

    from fisherrdp.scan import points

    index = np.unravel_index(np.arange(m), shape)
    arrays = {d: np.asarray(grid[d])[i] for d, i in zip(dims, index)}
    scalars = {k: v for k, v in grid.items() if k not in arrays}
    return points(**arrays, **scalars)


def _flat(grid, dims, m):
    """The first ``m`` points of the cartesian grid, one flat array per axis."""
    import numpy as np

    mesh = np.meshgrid(*(np.asarray(grid[d]) for d in dims), indexing="ij")
    return {d: g.ravel()[:m] for d, g in zip(dims, mesh)}


def measure_quantity(name, grid, dtype, repeats, chunk, share_s, deadline, say):
    """Compile time and throughput of ``scan(name, grid, chunk=chunk)``; also the last result.

    ``chunk=None``: the quantity's default chunk.
    """
    import jax
    import numpy as np

    from fisherrdp._src.scan.api import default_chunk
    from fisherrdp._src.scan.registry import resolve
    from fisherrdp.scan import scan

    q = resolve(name)
    grid = dict(grid)
    dims, shape = _axes(q.params, grid)
    n = math.prod(shape)
    chunk_used = int(chunk) if chunk else int(default_chunk(q))
    start = time.perf_counter()

    def run(g):
        t0 = time.perf_counter()
        r = scan(name, g, chunk=chunk, dtype=dtype, progress=False)
        return r, time.perf_counter() - t0

    entry: dict = {"quantity": name, "source": q.source, "dims": dims, "shape": list(shape),
                   "points": n, "scalars": {k: float(v) for k, v in grid.items() if k not in dims},
                   "axes": {d: {"min": float(np.min(grid[d])), "max": float(np.max(grid[d])),
                                "n": len(grid[d])} for d in dims},
                   "chunk_requested": chunk, "default_chunk": int(default_chunk(q)),
                   "n_devices": len(jax.local_devices()), "truncated_from": None}
    # Warm-up: the measured grid if it fits in one chunk, else its first `chunk` points (the
    # same compiled size). The compile time is the scan's own attrs["compile_seconds"] of the
    # first call (trace, lower, compile, first dispatch) where it reports one, else the first
    # call's wall time minus a second call's.
    small = n <= chunk_used
    warm = grid if small else _first_points(grid, dims, shape, chunk_used)
    first_result, first = run(warm)
    attrs = first_result.attrs
    entry.update(warmup_points=n if small else chunk_used, first_call_s=first,
                 first_call_attrs_compile_s=attrs.get("compile_seconds"))
    if attrs.get("compile_seconds") is not None:
        entry["compile_s"] = float(attrs["compile_seconds"])
        entry["compile_method"] = "attrs['compile_seconds'] of the first call"
        steady_warm = max(first - entry["compile_s"], 1e-9)
    elif small:
        steady_warm = None  # compile from the measured runs below
        entry["compile_method"] = "first call wall - median wall of the measured runs"
    else:
        _, steady_warm = run(warm)
        entry["compile_s"] = max(first - steady_warm, 0.0)
        entry["compile_method"] = "first call wall - second call wall (warm-up grid)"
    result = first_result if small else None
    if not small:
        predicted = steady_warm * n / chunk_used
        left = share_s - (time.perf_counter() - start)
        if predicted * repeats > left:
            repeats = max(1, int(left // predicted)) if predicted > 0 else repeats
        if predicted > left:
            # at least one chunk of points, so that the compiled size stays the warm-up's
            rest = n // len(grid[dims[0]])
            keep = max(-(-chunk_used // rest), int(len(grid[dims[0]]) * max(left, 0.0) / predicted))
            if keep < len(grid[dims[0]]):
                entry["truncated_from"] = list(shape)
                grid[dims[0]] = np.asarray(grid[dims[0]])[:keep]
                dims, shape = _axes(q.params, grid)
                n = math.prod(shape)
                entry.update(shape=list(shape), points=n)
                say(f"  {name}: grid cut to {shape} to fit the budget")
    runs: list[tuple[float, float]] = []
    for _ in range(repeats):
        if runs and deadline and time.time() > deadline:
            break
        result, wall = run(grid)
        runs.append((float(result.attrs["seconds"]), wall))
    seconds = [s for s, _ in runs]
    walls = [w for _, w in runs]
    med, med_wall = _common.median(seconds), _common.median(walls)
    if "compile_s" not in entry:
        entry["compile_s"] = max(entry["first_call_s"] - med_wall, 0.0)
    values = np.asarray(result.values)
    entry.update(
        chunk=int(result.attrs["chunk"]),
        compiled_size=int(result.attrs["compiled_size"]),
        blocks=int(result.attrs["blocks"]),
        devices=result.attrs["devices"],
        dtype=result.attrs["dtype"],
        repeats=len(runs),
        seconds=seconds,
        wall_s=walls,
        median_s=med,
        median_wall_s=med_wall,
        points_per_s=n / med if med > 0 else float("inf"),
        points_per_s_wall=n / med_wall if med_wall > 0 else float("inf"),
        nonfinite=int((~np.isfinite(values)).sum()),
        outputs=list(result.outputs),
        peak_rss_bytes_after=_common.peak_rss_bytes(),
        device_memory_after=_common.device_memory(),
    )
    return entry, result


def measure_naive_fisher(grid, m, dtype, repeats, scan_values) -> dict:
    """One eager call of the public ``ncx2_amplitude_fisher`` on the first ``m`` grid points."""
    import numpy as np

    from fisherrdp.fisher import ncx2_amplitude_fisher

    dims = ["d", "theta"]
    flat = _flat(grid, dims, m)
    d, theta = (np.asarray(flat[k], dtype) for k in dims)

    def call():
        value, error = ncx2_amplitude_fisher(d, theta, return_error=True)
        return np.asarray(value), np.asarray(error)

    t0 = time.perf_counter()
    value, _ = call()
    first = time.perf_counter() - t0
    times = _common.time_runs(call, repeats)
    med = _common.median(times)
    out = {
        "call": "fisherrdp.fisher.ncx2_amplitude_fisher(d, theta, return_error=True)",
        "points": int(m),
        "first_call_s": first,
        "compile_s": max(first - med, 0.0),
        "repeats": repeats,
        "times_s": times,
        "median_s": med,
        "points_per_s": m / med if med > 0 else float("inf"),
        "nonfinite": int((~np.isfinite(value)).sum()),
    }
    if scan_values is not None:
        ref = np.asarray(scan_values).ravel()[:m]
        both = np.isfinite(ref) & np.isfinite(value)
        diff = np.abs(ref[both] - value[both]) / np.maximum(np.abs(value[both]), 1e-300)
        out["max_rel_diff_scan_vs_eager"] = float(diff.max()) if diff.size else float("nan")
    out["peak_rss_bytes_after"] = _common.peak_rss_bytes()
    return out


def run_worker(args) -> None:
    t_start = time.perf_counter()
    def say(*a):
        if not args.quiet:
            print(f"[{args.worker}]", *a, flush=True)
    import jax

    if args.compile_cache:  # compile times are then cache loads (after a first run)
        jax.config.update("jax_compilation_cache_dir", args.compile_cache)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    else:  # cold compiles: a persistent cache (e.g. JAX_COMPILATION_CACHE_DIR) would hide them
        jax.config.update("jax_enable_compilation_cache", False)
    _common.import_fisherrdp()
    import numpy as np

    dtype = np.dtype(args.dtype)
    deadline = args.deadline
    env = _common.environment()
    devices = jax.local_devices()
    result = {"config": args.worker, "environment": env, "platform": devices[0].platform,
              "devices": [str(d) for d in devices], "n_devices": len(devices),
              "startup_s": time.perf_counter() - t_start, "quantities": {}, "naive_fisher": None}

    def save():
        result["peak_rss_bytes"] = _common.peak_rss_bytes()
        result["device_memory"] = _common.device_memory()
        result["wall_s"] = time.perf_counter() - t_start
        _common.write_json(args.worker_out, result, announce=False)

    say(f"jax {jax.__version__}, devices {[str(d) for d in devices]}, dtype {dtype}")
    save()
    all_grids = grids(args.mode)
    naive_here = args.naive_here == "yes" or (args.naive_here == "single" and len(devices) == 1)
    names = args.quantities
    for i, name in enumerate(names):
        remaining = (deadline - time.time()) if deadline else float("inf")
        if remaining < 1.0:
            result["quantities"][name] = {"quantity": name, "skipped": "budget"}
            say(f"{name}: skipped (budget)")
            continue
        share = remaining / (len(names) - i)
        repeats = args.repeats or SLOW_REPEATS.get(name, {}).get(args.mode, REPEATS[args.mode])
        chunk = args.chunk or CHUNKS.get(args.mode, {}).get(name)
        try:
            entry, scan_result = measure_quantity(name, all_grids[name], dtype, repeats, chunk,
                                                  share, deadline, say)
        except Exception as exc:  # noqa: BLE001 - keep measuring the other quantities
            result["quantities"][name] = {"quantity": name, "error": repr(exc)}
            say(f"{name}: ERROR {exc!r}")
            save()
            continue
        result["quantities"][name] = entry
        say(f"{name}: {entry['points']} points, chunk {entry['chunk']}, compile "
            f"{entry['compile_s']:.2f} s, {entry['points_per_s']:.4g} points/s (median of "
            f"{entry['repeats']}), nonfinite {entry['nonfinite']}")
        save()
        if name == "fisher" and naive_here:
            if deadline and time.time() > deadline:
                result["naive_fisher"] = {"skipped": "budget"}
                continue
            m = min(args.naive_points or NAIVE_POINTS[args.mode], entry["points"])
            if m > 0:
                try:
                    naive = measure_naive_fisher(all_grids["fisher"], m, dtype, repeats,
                                                 scan_result.values)
                except Exception as exc:  # noqa: BLE001
                    result["naive_fisher"] = {"error": repr(exc)}
                    say(f"fisher, eager call: ERROR {exc!r}")
                    save()
                    continue
                result["naive_fisher"] = naive
                say(f"fisher, one eager call on {m} points: compile {naive['compile_s']:.2f} s, "
                    f"{naive['points_per_s']:.4g} points/s")
                save()
    save()


# ---------------------------------------------------------------------------------------------
# Parent: one worker per configuration, then the table.


def _strip_force_flag(flags: str) -> str:
    return " ".join(f for f in flags.split() if not f.startswith(FORCE_FLAG))


def config_env(config: str, n_cpu: int) -> dict:
    env = dict(os.environ)
    flags = _strip_force_flag(env.get("XLA_FLAGS", ""))
    if config == "all":
        flags = f"{flags} {FORCE_FLAG}={n_cpu}".strip()  # only the CPU backend reads it
    else:
        visible = env.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
        env["CUDA_VISIBLE_DEVICES"] = visible or "0"  # no effect without a GPU
    if flags:
        env["XLA_FLAGS"] = flags
    else:
        env.pop("XLA_FLAGS", None)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "1")
    return env


def run_config(config: str, args, deadline: float | None, workdir: str) -> dict:
    out = os.path.join(workdir, f"worker_{config}.json")
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", config, "--worker-out", out,
           "--mode", args.mode, "--dtype", args.dtype, "--quantities", ",".join(args.quantities),
           "--repeats", str(args.repeats), "--naive-points", str(args.naive_points),
           "--chunk", str(args.chunk)]
    # The eager comparison runs in 'one', or in 'all' when 'one' is not run (not asked for, or
    # skipped because 'all' has a single device).
    if not args.naive:
        naive_here = "no"
    elif config == "one" or "one" not in args.configs:
        naive_here = "yes"
    else:
        naive_here = "single"
    cmd += ["--naive-here", naive_here]
    if deadline:
        cmd += ["--deadline", repr(deadline)]
    if args.compile_cache:
        cmd += ["--compile-cache", args.compile_cache]
    if args.quiet:
        cmd.append("--quiet")
    env = config_env(config, _common.cpu_count())
    timeout = max(deadline - time.time(), 1.0) + 15.0 if deadline else None
    t0 = time.perf_counter()
    timed_out, rc, stderr = False, None, ""
    try:
        proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL if args.quiet else None,
                              stderr=subprocess.PIPE, text=True, timeout=timeout,
                              check=False)
        rc, stderr = proc.returncode, proc.stderr
    except subprocess.TimeoutExpired as exc:
        timed_out = True
        stderr = exc.stderr.decode() if isinstance(exc.stderr, bytes) else (exc.stderr or "")
    try:
        with open(out) as f:
            result = json.load(f)
    except (OSError, ValueError):
        result = {"config": config, "quantities": {}, "naive_fisher": None}
    result.update(returncode=rc, timed_out=timed_out, process_wall_s=time.perf_counter() - t0,
                  env_XLA_FLAGS=env.get("XLA_FLAGS", ""),
                  env_CUDA_VISIBLE_DEVICES=env.get("CUDA_VISIBLE_DEVICES"))
    if rc or timed_out:
        result["stderr_tail"] = stderr[-4000:]
        if not args.quiet:
            print(f"[{config}] worker {'timed out' if timed_out else f'exited {rc}'}; "
                  f"stderr tail:\n{stderr[-2000:]}", file=sys.stderr, flush=True)
    return result


def summarize(configs: dict, quantities) -> list[dict]:
    rows = []
    for name in quantities:
        row: dict = {"quantity": name}
        for config, res in configs.items():
            e = res.get("quantities", {}).get(name)
            if not e or "points_per_s" not in e:
                row[config] = None
                continue
            row.setdefault("points", e["points"])
            row[config] = {k: e.get(k) for k in ("points", "points_per_s", "points_per_s_wall",
                                                 "compile_s", "chunk", "blocks", "n_devices",
                                                 "repeats", "median_s", "nonfinite")}
        one, every = row.get("one"), row.get("all")
        row["speedup_all_over_one"] = (every["points_per_s"] / one["points_per_s"]
                                       if one and every and one["points"] == every["points"]
                                       else None)
        rows.append(row)
    return rows


def _fmt(x, spec, width=0):
    return f"{'-':>{width}}" if x is None else format(x, spec)


def print_table(r: dict) -> None:
    configs = r["configs"]
    names = [c for c in CONFIGS if c in configs]
    desc = {c: f"{configs[c].get('n_devices', '?')} x {configs[c].get('platform', '?')}"
            for c in names}
    print()
    print(f"fisherrdp.scan throughput, {r['dtype']}, {r['mode']} sizes; "
          + "; ".join(f"{c} = {desc[c]}" for c in names)
          + (f" (one device skipped: {r['one_skipped']})" if r.get("one_skipped") else ""))
    head = f"{'quantity':14} {'points':>9}"
    sub = f"{'':14} {'':>9}"
    for c in names:
        head += f" | {(c + ' device' + ('s' if c == 'all' else '')):^30}"
        sub += f" | {'points/s':>10} {'compile s':>9} {'chunk':>6} {'n':>2}"
    if len(names) == 2:
        head += f" | {'all/one':>7}"
        sub += f" | {'':>7}"
    print(head)
    print(sub)
    for row in r["rows"]:
        line = f"{row['quantity']:14} {_fmt(row.get('points'), '9d', 9)}"
        for c in names:
            e = row.get(c)
            if e is None:
                line += f" | {'-':>10} {'-':>9} {'-':>6} {'-':>2}"
            else:
                idle = "*" if (e["blocks"] or 0) < (e["n_devices"] or 1) else " "
                line += (f" | {e['points_per_s']:10.4g} {e['compile_s']:9.2f} "
                         f"{e['chunk']:5d}{idle} {e['repeats']:2d}")
        if len(names) == 2:
            line += f" | {_fmt(row['speedup_all_over_one'], '7.2f', 7)}"
        print(line)
    line = f"{'host peak RSS [MiB]':24}"
    for c in names:
        rss = configs[c].get("peak_rss_bytes")
        line += f" | {_fmt(rss / 2**20 if rss else None, '30.0f', 30)}"
    print(line)
    line = f"{'device peak [MiB]':24}"
    for c in names:
        mem = configs[c].get("device_memory")
        peak = max((m["peak_bytes_in_use"] or 0) for m in mem) / 2**20 if mem else None
        line += f" | {_fmt(peak, '30.0f', 30)}"
    print(line)
    line = f"{'worker wall [s]':24}"
    for c in names:
        line += f" | {_fmt(configs[c].get('process_wall_s'), '30.1f', 30)}"
    print(line)
    print("points/s: median over n runs of the scan's attrs['seconds']; compile: the first "
          "call's attrs['compile_seconds']; chunk: points per device and call (* fewer blocks "
          "than devices)")
    for c in names:
        for name, e in configs[c].get("quantities", {}).items():
            if e.get("truncated_from"):
                print(f"{name} ({c}): grid cut from {e['truncated_from']} to {e['shape']} to fit "
                      "the budget")
            if e.get("skipped"):
                print(f"{name} ({c}): skipped ({e['skipped']})")
            if e.get("error"):
                print(f"{name} ({c}): ERROR {e['error']}")
    naive = r.get("naive_fisher")
    if naive and "points_per_s" in naive:
        ratios = ", ".join(f"{c} device{'s' if c == 'all' else ''} {v:.2f}"
                           for c in CONFIGS
                           if (v := naive["scan_over_eager"].get(c)) is not None)
        print(f"fisher vs one eager call of ncx2_amplitude_fisher(d, theta, return_error=True) on "
              f"{naive['points']} points ({naive['config']} device config): "
              f"{naive['points_per_s']:.4g} points/s, compile {naive['compile_s']:.2f} s; "
              f"scan/eager points/s: {ratios}; max rel diff "
              f"{naive.get('max_rel_diff_scan_vs_eager', float('nan')):.1e}")
    for c in names:
        if configs[c].get("returncode") or configs[c].get("timed_out"):
            print(f"[{c}] worker failed (returncode {configs[c].get('returncode')}, timed out "
                  f"{configs[c].get('timed_out')}): partial results")
    print(f"total wall {r['total_wall_s']:.1f} s")


def run_benchmark(args) -> dict:
    t0 = time.perf_counter()
    deadline = time.time() + args.budget if args.budget else None
    configs: dict = {}
    one_skipped = None
    with tempfile.TemporaryDirectory(prefix="bench_scan_") as workdir:
        if "all" in args.configs:
            configs["all"] = run_config("all", args, deadline, workdir)
        if "one" in args.configs:
            every = configs.get("all")
            if every is not None and every.get("n_devices") == 1:
                one_skipped = (f"'all' found a single device ({every['devices'][0]}): the "
                               "one-device run is the same run")
            elif deadline and time.time() > deadline:
                one_skipped = "budget"
            else:
                configs["one"] = run_config("one", args, deadline, workdir)
    rows = summarize(configs, args.quantities)
    naive = None
    for c in ("one", "all"):  # the worker of 'one' measures it, or 'all' when alone
        cand = configs.get(c, {}).get("naive_fisher")
        if cand and "points_per_s" in cand:
            naive = dict(cand, config=c)
            break
    if naive:
        naive["scan_over_eager"] = {}
        for c, res in configs.items():
            e = res.get("quantities", {}).get("fisher", {})
            pps = e.get("points_per_s")
            naive["scan_over_eager"][c] = pps / naive["points_per_s"] if pps else None
    errors = [f"{c}: worker exited {res['returncode']}" for c, res in configs.items()
              if res.get("returncode") not in (0, None)]
    errors += [f"{c}: {name}: {e['error']}" for c, res in configs.items()
               for name, e in res.get("quantities", {}).items() if e.get("error")]
    errors += [f"{c}: eager fisher: {res['naive_fisher']['error']}" for c, res in configs.items()
               if (res.get("naive_fisher") or {}).get("error")]
    results = {
        "benchmark": "bench_scan",
        "errors": errors,
        "mode": args.mode,
        "dtype": args.dtype,
        "quantities": list(args.quantities),
        "configs_requested": list(args.configs),
        "argv": sys.argv[1:] if args.argv is None else list(args.argv),
        "budget_s": args.budget,
        "compile_cache": args.compile_cache,
        "one_skipped": one_skipped,
        "cpu_affinity": _common.cpu_count(),
        "load_average_end": _common.load_average(),
        "configs": configs,
        "rows": rows,
        "naive_fisher": naive,
        "total_wall_s": time.perf_counter() - t0,
    }
    if not args.quiet:
        print_table(results)
    return results


def _names(text: str) -> tuple[str, ...]:
    return tuple(s.strip() for s in text.split(",") if s.strip())


def main(argv: Sequence[str] | None = None) -> dict | None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    size = p.add_mutually_exclusive_group()
    size.add_argument("--full", action="store_true", help="large grids, meant for a GPU")
    size.add_argument("--smoke", action="store_true",
                      help="hockey_stick on 16 points, one device, one run (~15 s)")
    p.add_argument("--dtype", choices=("float64", "float32"), default="float64")
    p.add_argument("--quantities", type=_names, default=None,
                   help=f"comma-separated (default: {','.join(QUANTITIES)})")
    p.add_argument("--configs", type=_names, default=None,
                   help="comma-separated among one,all (default: both)")
    p.add_argument("--repeats", type=int, default=0,
                   help="runs of each measured grid (default: 3; release_k1 1; --smoke 1)")
    p.add_argument("--chunk", type=int, default=0,
                   help="points per device and call for every quantity (default: each "
                   "quantity's default chunk; release_k1 4 at the default sizes)")
    p.add_argument("--naive-points", type=int, default=0,
                   help="points of the eager ncx2_amplitude_fisher call (default: 4096; "
                   "--full 65536; --smoke none)")
    p.add_argument("--no-naive", dest="naive", action="store_false",
                   help="skip the eager ncx2_amplitude_fisher comparison")
    p.add_argument("--budget", type=float, default=None,
                   help="seconds for the whole run (grids cut, quantities skipped to fit)")
    p.add_argument("--compile-cache", metavar="DIR", default=None,
                   help="use JAX's persistent compilation cache in DIR (default: off, so that "
                   "compile times are cold; with it they are cache loads after a first run)")
    p.add_argument("--json", metavar="PATH", help="also write the results as JSON to PATH")
    p.add_argument("--quiet", action="store_true", help="print nothing; just return/write")
    # internal: one configuration in a worker process
    p.add_argument("--worker", choices=CONFIGS, help=argparse.SUPPRESS)
    p.add_argument("--worker-out", help=argparse.SUPPRESS)
    p.add_argument("--mode", choices=MODES, help=argparse.SUPPRESS)
    p.add_argument("--deadline", type=float, default=None, help=argparse.SUPPRESS)
    p.add_argument("--naive-here", choices=("yes", "no", "single"), default="yes",
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    args.argv = argv
    if args.mode is None:
        args.mode = "full" if args.full else "smoke" if args.smoke else "default"
    if args.quantities is None:
        args.quantities = ("hockey_stick",) if args.mode == "smoke" else QUANTITIES
    if args.configs is None:
        args.configs = ("one",) if args.mode == "smoke" else CONFIGS
    if args.mode == "smoke" and not args.naive_points:
        args.naive = False
    bad = [q for q in args.quantities if q not in QUANTITIES]
    if bad:
        p.error(f"unknown quantities {bad}; choose among {', '.join(QUANTITIES)}")
    bad = [c for c in args.configs if c not in CONFIGS]
    if bad:
        p.error(f"unknown configs {bad}; choose among {', '.join(CONFIGS)}")
    if args.repeats < 0 or args.naive_points < 0 or args.chunk < 0:
        p.error("--repeats, --naive-points and --chunk must be >= 0")
    if args.worker:
        run_worker(args)
        return None
    results = run_benchmark(args)
    _common.write_json(args.json, results, quiet=args.quiet)
    return results


if __name__ == "__main__":
    out = main()
    sys.exit(1 if out and out["errors"] else 0)  # errors, not budget cuts, fail the run

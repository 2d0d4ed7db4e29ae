"""``device_check.json``: the one file to read after ``benchmarks/device_check.sh``.

Merges what the check's steps wrote into its output folder: the versions and devices (the
``info`` step's ``versions.json``; ``nvidia-smi.txt``), each step's status and seconds
(``steps.tsv``), per quantity and dtype the scan's points/s, compile seconds and peak memory
(``bench_scan_{full,small}_float{64,32}.json``), and per quantity the largest relative difference
between the device and the CPU on the fixture points, with the tolerance
(``fixtures_gpu_vs_cpu.json``). A file that a step did not write leaves its part out (``null``),
and the step's status says why. Imports no JAX: it runs whatever state the device is in.

Peak memory is the device's ``peak_bytes_in_use`` (``memory_stats()``, the largest over the
worker's devices) where the backend reports it, else the host's peak RSS (``getrusage``);
``peak_memory_kind`` says which. Both are cumulative over a worker's quantities, measured in the
order fisher, renyi, hockey_stick, release_k1.

Usage (``device_check.sh`` runs it last)::

    python benchmarks/device_check_summary.py OUT_DIR [--sizes full|small]
        [--steps install,info,bench64,fixtures,bench32] [--seconds S]
    python benchmarks/device_check_summary.py - --docs tests/fixtures/device_check_h200.json

(the second rewrites the measured table of ``docs/howto/accelerators.md`` from a summary; the
exit status is 1 when the check did not pass: a failed step or a nonfinite benchmark value).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

#: The check's steps, in order, and the dtype of each benchmark step.
STEPS = ("install", "info", "bench64", "fixtures", "bench32")
BENCH_DTYPES = {"bench64": "float64", "bench32": "float32"}
#: Statuses that do not fail the check: a step passed, or was not asked for.
FINE = ("passed", "not run")
DEVICE_PEAK = ("device peak_bytes_in_use (memory_stats(), max over the worker's devices, "
               "cumulative over its quantities)")
HOST_PEAK = "host peak RSS (getrusage ru_maxrss of the worker, cumulative over its quantities)"
MEASURED = ("points", "points_per_s", "compile_s", "repeats", "chunk", "n_devices", "devices",
            "truncated_from", "nonfinite")


def _load(path: str) -> dict | None:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _step(status: str, rc: int | None = None, seconds: float | None = None,
          note: str | None = None) -> dict:
    return {"status": status, "rc": rc, "seconds": seconds, "note": note}


def read_steps(out_dir: str, requested: Sequence[str]) -> dict:
    """Each step's status, exit code, seconds and note, from ``steps.tsv``."""
    steps = {name: _step("not run", note="not in STEPS") for name in STEPS
             if name not in requested}
    try:
        with open(os.path.join(out_dir, "steps.tsv")) as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        name, status, rc, seconds, note = (line.split("\t") + [""] * 5)[:5]
        steps[name] = _step(status, int(rc) if rc else None, float(seconds) if seconds else None,
                            note or None)
    for name in requested:  # asked for, but no line: the script stopped before it
        steps.setdefault(name, _step("missing", note="no record in steps.tsv"))
    return {name: steps[name] for name in (*STEPS, *sorted(set(steps) - set(STEPS)))
            if name in steps}


def measured(entry: dict) -> dict:
    """A bench_scan.py quantity entry's throughput, compile time and peak memory."""
    out = {k: entry.get(k) for k in MEASURED}
    devices = entry.get("device_memory_after") or []
    device_peak = max((m.get("peak_bytes_in_use") or 0 for m in devices), default=0)
    out["host_peak_rss_bytes"] = entry.get("peak_rss_bytes_after")
    if device_peak:
        out.update(peak_memory_bytes=device_peak, peak_memory_kind=DEVICE_PEAK)
    else:
        out.update(peak_memory_bytes=out["host_peak_rss_bytes"], peak_memory_kind=HOST_PEAK)
    return out


def bench_quantities(bench: dict) -> dict:
    """Per quantity: the 'all' configuration's measurements (every local device; the one a
    single GPU runs), else 'one''s; the other configuration's, when measured, under
    ``other_configs``; ``missing`` when neither measured it."""
    out = {}
    configs = bench.get("configs", {})
    for name in bench.get("quantities", []):
        found = {c: configs[c]["quantities"][name] for c in ("all", "one")
                 if name in configs.get(c, {}).get("quantities", {})}
        ok = {c: e for c, e in found.items() if "points_per_s" in e}
        if not ok:
            why = [e.get("skipped") or e.get("error") for e in found.values()]
            out[name] = {"missing": "; ".join(w for w in why if w) or "not measured"}
            continue
        first, *rest = ok
        out[name] = {"config": first, **measured(ok[first])}
        if rest:
            out[name]["other_configs"] = {c: measured(ok[c]) for c in rest}
    return out


def device_vs_cpu(fixtures: dict) -> tuple[dict, dict]:
    """Every fixture case's differences, and per scan quantity the largest over its cases."""
    tol = fixtures.get("tolerance_rel")
    cases, per_quantity = {}, {}
    for case in fixtures.get("cases", []):
        row = {k: case.get(k) for k in ("quantity", "n", "max_rel_target_vs_cpu",
                                        "median_rel_target_vs_cpu", "over_tol",
                                        "max_rel_target_vs_mpmath", "max_rel_cpu_vs_mpmath",
                                        "passed", "skipped", "error") if k in case}
        cases[case["name"]] = row
        if case.get("quantity"):
            per_quantity.setdefault(case["quantity"], []).append((case["name"], row))
    summary = {}
    for quantity, rows in per_quantity.items():
        rels = [r["max_rel_target_vs_cpu"] for _, r in rows if "max_rel_target_vs_cpu" in r]
        summary[quantity] = {
            "cases": [name for name, _ in rows],
            "max_rel": max(rels) if rels else None,
            "tolerance_rel": tol,
            "passed": bool(rels) and all(r.get("passed") for _, r in rows),
        }
        missing = [f"{name}: {r.get('skipped') or r.get('error')}" for name, r in rows
                   if "max_rel_target_vs_cpu" not in r]
        if missing:
            summary[quantity]["missing"] = missing
    return cases, summary


def build(out_dir: str, sizes: str, requested: Sequence[str], seconds: float | None) -> dict:
    """The summary of the check whose files are in ``out_dir``."""
    versions = _load(os.path.join(out_dir, "versions.json"))
    fixtures = _load(os.path.join(out_dir, "fixtures_gpu_vs_cpu.json")) or {}
    benches = {dtype: _load(os.path.join(out_dir, f"bench_scan_{sizes}_{dtype}.json"))
               for dtype in BENCH_DTYPES.values()}
    smi = os.path.join(out_dir, "nvidia-smi.txt")
    platform = ((versions or {}).get("backend") or fixtures.get("target_platform")
                or next((c["platform"] for b in benches.values() if b
                         for c in b.get("configs", {}).values() if c.get("platform")), None))
    steps = read_steps(out_dir, requested)
    cases, differences = device_vs_cpu(fixtures)
    quantities: dict = {}
    for dtype, bench in benches.items():
        for name, entry in (bench_quantities(bench) if bench else {}).items():
            quantities.setdefault(name, {})[dtype] = entry
    for name, entry in differences.items():
        quantities.setdefault(name, {})["device_vs_cpu"] = entry
    # Every benchmark grid lies inside its quantity's range: a nonfinite value is a failure
    # (release_k1 in float32 at d = 1 on the first H200 run, 512 of 3584 points, once passed).
    nonfinite = [f"{name} {dtype}: {e['nonfinite']} of {e['points']} points"
                 for name, q in quantities.items() for dtype, e in q.items()
                 if dtype in BENCH_DTYPES.values() and e.get("nonfinite")]
    return {
        "summary": "benchmarks/device_check.sh",
        "written": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "passed": all(s["status"] in FINE for s in steps.values())
        and any(s["status"] == "passed" for s in steps.values()) and not nonfinite,
        "nonfinite": nonfinite,
        "seconds": seconds,
        "sizes": sizes,
        "rehearsal": platform == "cpu",
        "device_platform": platform,
        "device": fixtures.get("target"),
        "cpu": fixtures.get("cpu"),
        "nvidia_smi": "nvidia-smi.txt" if os.path.exists(smi) else None,
        "compile_cache": next((b.get("compile_cache") for b in benches.values() if b), None),
        "tolerance_rel": fixtures.get("tolerance_rel"),
        "steps": steps,
        "environment": versions,
        "quantities": quantities,
        "eager_fisher": {dtype: {k: b["naive_fisher"].get(k) for k in
                                 ("points", "points_per_s", "compile_s", "config",
                                  "scan_over_eager", "max_rel_diff_scan_vs_eager")}
                         for dtype, b in benches.items() if b and b.get("naive_fisher")},
        "device_vs_cpu": cases,
        "fixture_rows_per_file": fixtures.get("rows_per_file"),
        "files": sorted(os.listdir(out_dir)),
    }


def _num(x, spec):
    return "-" if x is None else format(x, spec)


def print_table(s: dict) -> None:
    print(f"device {s['device']} ({s['device_platform']}{', rehearsal' if s['rehearsal'] else ''}"
          f", {s['sizes']} sizes) against {s['cpu']}; compile cache: {s['compile_cache']}")
    print(f"{'quantity':14} {'dtype':8} {'points':>7} {'points/s':>10} {'compile s':>9} "
          f"{'peak MiB':>9}  max rel device/cpu (tol {s['tolerance_rel']})")
    for name, q in s["quantities"].items():
        diff = q.get("device_vs_cpu", {}).get("max_rel")
        for dtype in BENCH_DTYPES.values():
            e = q.get(dtype)
            if e is None:
                continue
            if "missing" in e:
                print(f"{name:14} {dtype:8} missing: {e['missing']}")
                continue
            peak = e["peak_memory_bytes"] / 2**20 if e["peak_memory_bytes"] else None
            print(f"{name:14} {dtype:8} {e['points']:7d} {e['points_per_s']:10.4g} "
                  f"{e['compile_s']:9.2f} {_num(peak, '9.0f')}  "
                  f"{_num(diff, '.1e') if dtype == 'float64' else ''}")
    for line in s.get("nonfinite", []):
        print(f"NONFINITE: {line}")
    print("steps: " + ", ".join(f"{k} {v['status']}" + (f" ({v['seconds']:.0f} s)"
                                                       if v.get("seconds") else "")
                                for k, v in s["steps"].items()))


DOCS_PAGE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs",
                         "howto", "accelerators.md")
BEGIN, END = "<!-- device check table: begin -->", "<!-- device check table: end -->"


def docs_table(s: dict) -> str:
    """The block of ``docs/howto/accelerators.md`` between the markers, from a device_check.json."""
    env = s.get("environment") or {}
    packages = env.get("packages", {})
    cuda = next((f"{k} {v}" for k, v in packages.items() if "plugin" in k), "no CUDA plugin")
    kinds = ", ".join(env.get("device_kinds", []))
    cache = s["compile_cache"] or "none (cold)"
    head = ("| quantity | dtype | points | points/s | float32/float64 | compile s "
            "| device peak MiB | nonfinite | device vs CPU, max rel (fixtures) |")
    intro = (f"{s['device']} ({kinds}), jax {env.get('jax_version')}, {cuda}, python "
             f"{env.get('python')}; {s['sizes']} sizes, whole check "
             f"{_num(s['seconds'], '.0f')} s, compile cache: {cache}.")
    lines = [intro, "", head, "|---" * head.count(" | ") + "|---|"]
    for name, q in s["quantities"].items():
        diff = q.get("device_vs_cpu", {}).get("max_rel")
        for dtype in BENCH_DTYPES.values():
            e = q.get(dtype)
            if e is None or "missing" in e:
                continue
            peak = e["peak_memory_bytes"] / 2**20 if e["peak_memory_bytes"] else None
            wide = q.get("float64", {}).get("points_per_s")
            ratio = e["points_per_s"] / wide if dtype == "float32" and wide else None
            lines.append(
                f"| {name} | {dtype} | {e['points']} | {e['points_per_s']:.3g} "
                f"| {_num(ratio, '.2f')} | {e['compile_s']:.1f} | {_num(peak, '.0f')} "
                f"| {e['nonfinite']} | {_num(diff, '.1e') if dtype == 'float64' else '-'} |")
    return "\n".join(lines)


def write_docs(json_path: str) -> None:
    """Rewrite the table of ``docs/howto/accelerators.md`` from the summary ``json_path``."""
    _common.write_block(DOCS_PAGE, BEGIN, END, docs_table(_load(json_path)))


def main(argv: Sequence[str] | None = None) -> dict | None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", help="the folder device_check.sh wrote into ($OUT)")
    p.add_argument("--sizes", choices=("full", "small"), default="full")
    p.add_argument("--steps", default=",".join(STEPS), help="the steps that were asked for")
    p.add_argument("--seconds", type=float, default=None, help="the check's wall time")
    p.add_argument("--docs", metavar="JSON", help="only rewrite docs/howto/accelerators.md's "
                   "table from this device_check.json (out_dir is then ignored)")
    args = p.parse_args(argv)
    if args.docs:
        write_docs(args.docs)
        return None
    requested = [s.strip() for s in args.steps.split(",") if s.strip()]
    summary = build(args.out_dir, args.sizes, requested, args.seconds)
    print_table(summary)
    _common.write_json(os.path.join(args.out_dir, "device_check.json"), summary)
    return summary


if __name__ == "__main__":
    result = main()
    sys.exit(0 if result is None or result["passed"] else 1)

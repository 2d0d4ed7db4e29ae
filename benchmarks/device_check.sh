#!/usr/bin/env bash
# Device check on a GPU machine (written for one NVIDIA H200; internet only to PyPI), <= 7 min;
# with --small, its rehearsal on a CPU (the slow test tests/test_device_check.py runs it).
#
# Run from the repository root:
#
#     bash benchmarks/device_check.sh                              # the check, on the GPU machine
#     SKIP_INSTALL=1 bash benchmarks/device_check.sh --small       # rehearsal, with this python
#                                                    # ($VENV's python where that exists)
#
# --small (or DEVICE_CHECK_SMALL=1): the same steps, code and outputs at small sizes:
# bench_scan.py --smoke for the four quantities (16 points each, release_k1 2) in the 'all'
# configuration (the one a single GPU runs) with a 16-point eager comparison, and 8 rows of each
# fixture file. Without an accelerator the "device" is JAX's default backend, the CPU, checked
# against jax.devices("cpu"): CPU against CPU, differences 0 (4e-15 for the scan against the
# direct call, two programs; device_check.json then says "rehearsal": true, "device_platform":
# "cpu"), and a missing nvidia-smi is recorded, not an error. On 2 busy cores (load 6-7), with
# DEVICE_CHECK_TOTAL_S=900 and DEVICE_CHECK_COMPILE_CACHE warm, it took 86 s (268 s cold).
#
# Steps (each under a `timeout` fitted to what is left of the total, DEVICE_CHECK_TOTAL_S=400;
# the caps of bench64, fixtures and bench32, 150, 90 and 150 s at 285, scale with it). On one
# H200 (2026-12-04, cold cache) 400 s measured everything in 260 s; 270 s left hockey_stick and
# release_k1 out of bench32 (each quantity and dtype compiles in 5-30 s there):
#   install   venv ($VENV, default .venv-device, git-ignored; reused if it has jax's CUDA plugin),
#             pip install -e ".[cuda,test]" with jax pinned to $JAX_VERSION (default 0.10.2, the
#             version tested on CPU; empty: no pin); uv is used when present (faster)
#   info      nvidia-smi, python and jax versions, jax.devices()
#   bench64   benchmarks/bench_scan.py --full --dtype float64 --budget ... --json
#   fixtures  tests/fixtures/*.json on the GPU against the CPU (jax.devices("cpu"), same process,
#             jax.default_device), float64, <= 1e-13 relative, and both against the fixtures'
#             mpmath values; a scan on the GPU of the Fisher fixture points against the CPU too
#   bench32   benchmarks/bench_scan.py --full --dtype float32 --budget ... --json
# (fixtures runs before bench32: if time runs short, the float32 benchmark is what is cut).
#
# Everything goes to $OUT (./device_check_out when OUT is unset). The file to read is
# device_check.json (benchmarks/device_check_summary.py): versions and devices, each step's
# status and seconds, per quantity and dtype points/s, compile s and peak memory (the device's
# peak_bytes_in_use where memory_stats() has it, else the host's peak RSS, labelled), and per
# quantity the largest device-against-CPU relative difference with the tolerance. Beside it,
# what the steps wrote: device_check.log (this output), steps.tsv, versions.txt, versions.json,
# nvidia-smi.txt (when nvidia-smi exists), bench_scan_full_float64.json and
# bench_scan_full_float32.json (bench_scan_small_*.json with --small), fixture_check.py (the
# fixtures step's script) and fixtures_gpu_vs_cpu.json.
#
# Environment: OUT, VENV, PYTHON (interpreter for a new venv; with SKIP_INSTALL=1 and no $VENV,
# the interpreter used as is, default python3), JAX_VERSION, SKIP_INSTALL=1 (use $VENV or
# $PYTHON as is: on a machine with no package index, its own jax, the rest as wheels on
# PYTHONPATH), STEPS (comma list of the steps above, default all), DEVICE_CHECK_TOTAL_S,
# DEVICE_CHECK_SMALL=1 (as --small), DEVICE_CHECK_COMPILE_CACHE=DIR (bench_scan.py
# --compile-cache DIR: compile times are then cache loads; default: cold).
# Exit status: 0 if every step that ran passed, else 1.
set -uo pipefail

SMALL=${DEVICE_CHECK_SMALL:-0}
for arg in "$@"; do
  case $arg in
    --small) SMALL=1 ;;
    -h|--help) sed -n '2,/^set -uo/{/^set -uo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) echo "device_check.sh: unknown argument $arg (--small, --help)" >&2; exit 2 ;;
  esac
done
[[ "$SMALL" == 1 ]] && SIZES=small || SIZES=full

START=$(date +%s)
TOTAL=${DEVICE_CHECK_TOTAL_S:-400}
OUT_DIR=${OUT:-./device_check_out}
VENV=${VENV:-.venv-device}
JAX_VERSION=${JAX_VERSION-0.10.2}
STEPS=${STEPS:-install,info,bench64,fixtures,bench32}
mkdir -p "$OUT_DIR"
# this run's outputs only (the log is appended to): no stale file in the summary
rm -f "$OUT_DIR"/{device_check.json,steps.tsv,versions.txt,versions.json,nvidia-smi.txt} \
  "$OUT_DIR"/bench_scan_{full,small}_float{64,32}.json "$OUT_DIR/fixtures_gpu_vs_cpu.json"
exec > >(tee -a "$OUT_DIR/device_check.log") 2>&1

# Each step is its own process (bench_scan.py's workers too), one after the other: none holds
# the GPU's memory from the start (JAX would take 75 % of it in the first process to touch it).
export XLA_PYTHON_CLIENT_PREALLOCATE=${XLA_PYTHON_CLIENT_PREALLOCATE:-false}

FAILED=()
elapsed() { echo $(( $(date +%s) - START )); }
left() { echo $(( TOTAL - ($(date +%s) - START) )); }
# cap SECONDS [RESERVE]: min(SECONDS, time left - RESERVE), at least 1
cap() { local l; l=$(( $(left) - ${2:-0} )); (( l < 1 )) && l=1; (( $1 < l )) && echo "$1" || echo "$l"; }
want() { [[ ",$STEPS," == *",$1,"* ]]; }
step() { echo; echo "=== [$(elapsed) s] $* ==="; }
record() {  # record STEP STATUS RC SECONDS NOTE: a line of steps.tsv (for the summary)
  printf '%s\t%s\t%s\t%s\t%s\n' "$@" >> "$OUT_DIR/steps.tsv"
}
run_step() {  # run_step STEP TIMEOUT CMD...
  local name=$1 t=$2 t0; shift 2
  t0=$(date +%s)
  timeout --kill-after=5 "$t" "$@"
  local rc=$? status=passed
  if (( rc != 0 )); then
    status=failed; ((rc == 124 || rc == 137)) && status="timed out"
    FAILED+=("$name(rc=$rc$( ((rc == 124 || rc == 137)) && echo ', timed out'))")
    echo "--- $name: exit $rc"
  fi
  record "$name" "$status" "$rc" "$(( $(date +%s) - t0 ))" "timeout ${t} s"
  return $rc
}

step "device check: repo $(pwd), out $OUT_DIR, total budget ${TOTAL} s, steps $STEPS, sizes $SIZES"

# --- install ----------------------------------------------------------------------------
PY=python3
if [[ -x "$VENV/bin/python" ]]; then
  PY="$VENV/bin/python"
elif [[ "${SKIP_INSTALL:-0}" == 1 ]]; then
  PY=${PYTHON:-$(command -v python3 || command -v python)}
fi
if want install && [[ "${SKIP_INSTALL:-0}" != 1 ]]; then
  step "install"
  PIP_EXTRA=()
  if [[ ! -x "$VENV/bin/python" ]]; then
    BASE=${PYTHON:-}
    if [[ -z "$BASE" ]]; then
      for c in python3.13 python3.12 python3.11 python3; do
        if command -v "$c" >/dev/null && "$c" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
          BASE=$c; break
        fi
      done
    fi
    BASE=${BASE:-python3}
    echo "creating $VENV with $BASE ($("$BASE" --version 2>&1))"
    if command -v uv >/dev/null; then
      timeout "$(cap 60)" uv venv --python "$BASE" "$VENV"
    else
      timeout "$(cap 60)" "$BASE" -m venv "$VENV"
    fi
    if [[ ! -x "$VENV/bin/python" ]]; then  # e.g. no ensurepip: install into the user site
      echo "no venv: installing with $BASE -m pip --user"
      PY=$BASE; PIP_EXTRA=(--user); export PIP_BREAK_SYSTEM_PACKAGES=1
    fi
  fi
  [[ -x "$VENV/bin/python" ]] && PY="$VENV/bin/python"
  if "$PY" -c 'import jax_cuda12_plugin, fisherrdp, pytest' 2>/dev/null; then
    echo "$PY already has fisherrdp, pytest and jax's CUDA 12 plugin: not reinstalling"
    record install passed 0 0 "already installed"
  else
    PIN=()
    [[ -n "$JAX_VERSION" ]] && PIN=("jax==$JAX_VERSION" "jaxlib==$JAX_VERSION")
    if command -v uv >/dev/null && [[ -x "$VENV/bin/python" ]]; then
      run_step install "$(cap 170 100)" uv pip install --python "$PY" -e ".[cuda,test]" ${PIN[@]+"${PIN[@]}"}
    else
      run_step install "$(cap 170 100)" "$PY" -m pip install -q --progress-bar off \
        --disable-pip-version-check ${PIP_EXTRA[@]+"${PIP_EXTRA[@]}"} -e ".[cuda,test]" ${PIN[@]+"${PIN[@]}"}
    fi
  fi
elif want install; then
  record install "not run" "" 0 "SKIP_INSTALL=1"
fi
echo "python: $PY ($("$PY" --version 2>&1))"

# --- info -------------------------------------------------------------------------------
if want info; then
  step "info"
  if command -v nvidia-smi >/dev/null; then
    timeout 20 nvidia-smi 2>&1 | tee "$OUT_DIR/nvidia-smi.txt"
  else
    echo "nvidia-smi: not found"  # device_check.json: "nvidia_smi": null
  fi
  run_step info "$(cap 60)" "$PY" - "$OUT_DIR/versions.json" > "$OUT_DIR/versions.txt" 2>&1 <<'PY'
import importlib.metadata as md, sys, jax
sys.path.insert(0, "benchmarks")
import _common
env = _common.environment()
print("python", env["python"], "| jax", env["jax_version"], "| fisherrdp", env["fisherrdp_version"])
env["packages"] = {}
for name in ("jaxlib", "jax-cuda12-plugin", "jax-cuda12-pjrt", "jax-cuda13-plugin", "jax-cuda13-pjrt",
             "nvidia-cublas-cu12", "nvidia-cudnn-cu12", "nvidia-cublas", "nvidia-cudnn-cu13", "numpy",
             "equinox", "optax", "zarr"):
    try:
        env["packages"][name] = md.version(name)
        print(f"  {name} {env['packages'][name]}")
    except md.PackageNotFoundError:
        pass
print("jax.devices():", jax.devices())
print("default backend:", jax.default_backend(), "| x64:", jax.config.jax_enable_x64)
env["local_devices"] = []
for d in jax.local_devices():
    stats = d.memory_stats() or {}
    kind = getattr(d, "device_kind", "?")
    env["local_devices"].append({"device": str(d), "kind": kind, "bytes_limit": stats.get("bytes_limit")})
    print(f"  {d} kind={kind} bytes_limit={stats.get('bytes_limit')}")
_common.write_json(sys.argv[1], env, announce=False)
PY
  cat "$OUT_DIR/versions.txt"
fi

# --- benchmarks and fixtures --------------------------------------------------------------
scaled() { echo $(( $1 * TOTAL / 285 )); }  # a step's cap, for the total budget
if [[ $SIZES == small ]]; then
  BENCH_SIZES=(--smoke --quantities fisher,renyi,hockey_stick,release_k1 --configs all
               --naive-points 16)
  FIXTURE_ROWS=8
else
  BENCH_SIZES=(--full)
  FIXTURE_ROWS=0  # all
fi
BENCH_CACHE=()
[[ -n "${DEVICE_CHECK_COMPILE_CACHE:-}" ]] && BENCH_CACHE=(--compile-cache "$DEVICE_CHECK_COMPILE_CACHE")
bench() {  # bench STEP DTYPE BUDGET
  local cmd=("$PY" benchmarks/bench_scan.py "${BENCH_SIZES[@]}" --dtype "$2" --budget "$3"
             ${BENCH_CACHE[@]+"${BENCH_CACHE[@]}"} --json "$OUT_DIR/bench_scan_${SIZES}_$2.json")
  echo "command: ${cmd[*]}"
  run_step "$1" "$(( $3 + 25 ))" "${cmd[@]}"
}

if want bench64; then
  step "bench_scan ${BENCH_SIZES[0]} float64"
  # about half of what is left, keeping room for the fixtures and float32
  B=$(( ($(left) - 40) / 2 )); M=$(scaled 150); (( B > M )) && B=$M; (( B < 20 )) && B=20
  bench bench64 float64 "$B"
fi

if want fixtures; then
  step "fixtures: GPU vs CPU, float64"
  B=$(( $(left) * 45 / 100 )); M=$(scaled 90); (( B > M )) && B=$M; (( B < 15 )) && B=15
  FIXCHECK="$OUT_DIR/fixture_check.py"
  cat > "$FIXCHECK" <<'PY'
"""Fixture points on the accelerator and on the CPU (same process), float64."""
import json, os, sys, threading, time

import numpy as np
import jax

import fisherrdp  # noqa: F401  (float64 on)
from fisherrdp import divergences, special
from fisherrdp.fisher import ncx2_amplitude_fisher
from fisherrdp.scan import points, scan
from fisherrdp.stats import ncx2

OUT, BUDGET = sys.argv[1], float(sys.argv[2])
ROWS = int(sys.argv[3]) if len(sys.argv) > 3 else 0  # rows per fixture file, evenly spaced; 0: all
TOL = 1e-13
START = time.time()
DEADLINE = START + BUDGET
FIX = os.path.join("tests", "fixtures")
cpu = jax.devices("cpu")[0]
accelerators = [d for d in jax.devices() if d.platform != "cpu"]
# Without an accelerator (a dry run), the last CPU device (several with
# XLA_FLAGS=--xla_force_host_platform_device_count=2) stands in for it.
target = accelerators[0] if accelerators else jax.devices("cpu")[-1]


def load(name):
    with open(os.path.join(FIX, name)) as f:
        return json.load(f)


def columns(rows, keys):
    return [np.array([float(r[k]) for r in rows]) for k in keys]


def case_rows(name, file, keys, ref, rows_of=lambda d: d):
    rows = rows_of(load(file))
    if 0 < ROWS < len(rows):
        rows = [rows[i] for i in np.unique(np.linspace(0, len(rows) - 1, ROWS).round().astype(int))]
    return name, columns(rows, keys), np.array([float(r[ref]) for r in rows])


def fisher_fn(d, theta):
    return ncx2_amplitude_fisher(d, theta)


# (name, function, columns, mpmath reference, seconds it needs to be started, the scan
# quantity (bench_scan.py) that evaluates the function, if one does)
CASES = []
for name, fn, spec, need, quantity in [
    ("log_bessel_ive", special.log_bessel_ive, ("log_bessel_i.json", ("v", "x"), "log_ive",
                                                 lambda d: d["rows"]), 5, None),
    ("ncx2_logpdf", ncx2.logpdf, ("ncx2_logpdf.json", ("x", "df", "nc"), "logpdf",
                                  lambda d: d["rows"]), 5, None),
    ("hockey_stick_ncx2", divergences.hockey_stick_ncx2,
     ("hockey_stick_ncx2.json", ("eps", "d", "a", "b"), "delta", lambda d: d["rows"]), 10,
     "hockey_stick"),
    ("ncx2_amplitude_fisher", fisher_fn, ("fisher_ncx2.json", ("d", "theta"), "fisher",
                                          lambda d: d), 10, "fisher"),
    ("renyi_ncx2", divergences.renyi_ncx2, ("renyi_ncx2.json", ("alpha", "d", "a", "b"),
                                           "renyi", lambda d: d), 15, "renyi"),
    ("renyi_release_k1", divergences.renyi_release_k1,
     ("release_k1.json", ("alpha", "d", "n_syn", "a", "b"), "value", lambda d: d["renyi"]), 45,
     "release_k1"),
]:
    file, keys, ref, rows_of = spec
    _, cols, refs = case_rows(name, file, keys, ref, rows_of)
    CASES.append((name, fn, cols, refs, need, quantity))


def on(device, fn, cols):
    with jax.default_device(device):
        out = fn(*cols)
        where = sorted(str(d) for d in out.devices())
        return np.asarray(out), where


def rel(a, b):
    """|a - b| / |b| elementwise; 0 where both are equal (inf, nan included); |a| where b = 0."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    with np.errstate(all="ignore"):
        r = np.where(b != 0, np.abs(a - b) / np.abs(b), np.abs(a))
    return np.where(same, 0.0, np.where(np.isnan(r), np.inf, r))


def worst(r, cols, keys=None):
    i = int(np.argmax(r))
    return {"index": i, "point": [float(c[i]) for c in cols], "rel": float(r[i])}


report = {"target": str(target), "target_platform": target.platform, "cpu": str(cpu),
          "tolerance_rel": TOL, "dry_run_cpu_vs_cpu": target.platform == "cpu",
          "jax_version": jax.__version__, "budget_s": BUDGET, "rows_per_file": ROWS or "all",
          "cases": []}


def save():
    report["seconds"] = time.time() - START
    report["passed"] = all(c.get("passed", True) for c in report["cases"] if "passed" in c)
    with open(OUT, "w") as f:
        json.dump(report, f, indent=2)


print(f"accelerator: {target}; cpu: {cpu}" + ("  (NO ACCELERATOR: CPU vs CPU dry run)"
                                              if target.platform == "cpu" else ""), flush=True)
for name, fn, cols, refs, need, quantity in CASES:
    left = DEADLINE - time.time()
    if left < need:
        report["cases"].append({"name": name, "quantity": quantity,
                                "skipped": f"budget ({left:.0f} s left)"})
        print(f"{name:24} skipped (budget)", flush=True)
        save()
        continue
    box = {}

    def cpu_side():
        try:
            t = time.time(); box["cpu"] = on(cpu, fn, cols); box["cpu_s"] = time.time() - t
        except Exception as exc:  # noqa: BLE001
            box["cpu_error"] = repr(exc)

    worker = threading.Thread(target=cpu_side, daemon=True)
    worker.start()  # the CPU compiles and runs while the accelerator does
    entry = {"name": name, "quantity": quantity, "n": int(len(refs))}
    try:
        t = time.time(); gpu, gpu_where = on(target, fn, cols); entry["target_s"] = time.time() - t
    except Exception as exc:  # noqa: BLE001
        entry.update(error=repr(exc), passed=False)
        report["cases"].append(entry); save()
        print(f"{name:24} ERROR on {target}: {exc!r}", flush=True)
        continue
    worker.join(timeout=max(DEADLINE - time.time(), 1.0))
    if "cpu" not in box:
        entry.update(error=box.get("cpu_error", "CPU side did not finish in the budget"),
                     passed=False)
        report["cases"].append(entry); save()
        print(f"{name:24} CPU side failed: {entry['error']}", flush=True)
        continue
    cpu_vals, cpu_where = box["cpu"]
    r = rel(gpu, cpu_vals)
    r_gpu_ref, r_cpu_ref = rel(gpu, refs), rel(cpu_vals, refs)
    entry.update(
        computed_on={"target": gpu_where, "cpu": cpu_where}, cpu_s=box["cpu_s"],
        max_rel_target_vs_cpu=float(r.max()), median_rel_target_vs_cpu=float(np.median(r)),
        over_tol=int((r > TOL).sum()), identical=int((r == 0).sum()),
        worst_target_vs_cpu=worst(r, cols),
        max_rel_target_vs_mpmath=float(r_gpu_ref.max()),
        max_rel_cpu_vs_mpmath=float(r_cpu_ref.max()),
        nonfinite_target=int((~np.isfinite(gpu)).sum()),
        passed=bool(r.max() <= TOL),
    )
    report["cases"].append(entry); save()
    print(f"{name:24} n={entry['n']:5d}  max rel {target.platform}/cpu {entry['max_rel_target_vs_cpu']:.2e}"
          f"  (>{TOL:g}: {entry['over_tol']}, identical {entry['identical']})  vs mpmath: "
          f"{target.platform} {entry['max_rel_target_vs_mpmath']:.1e}, cpu "
          f"{entry['max_rel_cpu_vs_mpmath']:.1e}  [{entry['target_s']:.1f} s, cpu {entry['cpu_s']:.1f} s]"
          + ("" if entry["passed"] else "  FAIL"), flush=True)

# The scan engine on the accelerator (all local devices) on the Fisher fixture points.
if DEADLINE - time.time() > 10:
    d, theta = CASES[3][2]
    fisher_cpu = next((c for c in report["cases"] if c["name"] == "ncx2_amplitude_fisher"), None)
    try:
        t = time.time()
        res = scan("fisher", points(d=d, theta=theta), progress=False)
        ref_cpu, _ = on(cpu, fisher_fn, [d, theta])
        r = rel(res.values, ref_cpu)
        entry = {"name": "scan:fisher (all local devices) vs cpu", "quantity": "fisher",
                 "n": int(len(d)),
                 "devices": res.attrs["devices"], "seconds": time.time() - t,
                 "max_rel_target_vs_cpu": float(r.max()), "over_tol": int((r > TOL).sum()),
                 "passed": bool(r.max() <= TOL)}
    except Exception as exc:  # noqa: BLE001
        entry = {"name": "scan:fisher", "quantity": "fisher", "error": repr(exc),
                 "passed": False}
    report["cases"].append(entry); save()
    print(f"{entry['name']:24} " + (f"max rel {entry['max_rel_target_vs_cpu']:.2e}"
                                   if "error" not in entry else entry["error"]), flush=True)
else:
    report["cases"].append({"name": "scan:fisher", "quantity": "fisher", "skipped": "budget"})

save()
ran = [c for c in report["cases"] if "passed" in c]
print(f"summary: {sum(c['passed'] for c in ran)}/{len(ran)} passed (<= {TOL:g} relative, "
      f"{target} vs {cpu}); skipped {len(report['cases']) - len(ran)}; "
      f"{report['seconds']:.1f} s; wrote {OUT}", flush=True)
sys.stdout.flush()
os._exit(0 if report["passed"] else 1)  # do not wait for a CPU thread still compiling
PY
  echo "command: $PY $FIXCHECK $OUT_DIR/fixtures_gpu_vs_cpu.json $B $FIXTURE_ROWS"
  run_step fixtures "$(( B + 20 ))" "$PY" "$FIXCHECK" "$OUT_DIR/fixtures_gpu_vs_cpu.json" "$B" \
    "$FIXTURE_ROWS"
fi

if want bench32; then
  step "bench_scan ${BENCH_SIZES[0]} float32"
  B=$(( $(left) - 30 )); M=$(scaled 150); (( B > M )) && B=$M
  if (( B >= 15 )); then
    bench bench32 float32 "$B"
  else
    echo "skipped: ${B} s left"; FAILED+=("bench32(skipped)")
    record bench32 skipped "" 0 "${B} s left"
  fi
fi

step "summary"
if ! "$PY" benchmarks/device_check_summary.py "$OUT_DIR" --sizes "$SIZES" --steps "$STEPS" \
    --seconds "$(elapsed)"; then
  FAILED+=("summary")
fi

step "done in $(elapsed) s; files in $OUT_DIR:"
ls -la "$OUT_DIR"
if (( ${#FAILED[@]} )); then
  echo "FAILED: ${FAILED[*]}"
  exit 1
fi
echo "all steps passed"

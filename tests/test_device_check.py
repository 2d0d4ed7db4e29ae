"""The device check, benchmarks/device_check.sh, rehearsed: --small with this python, so that a
GPU machine finds a script that has run end to end (on a CPU: the CPU against itself)."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.benchmarks import load_benchmark

ROOT = Path(__file__).resolve().parent.parent
QUANTITIES = ("fisher", "renyi", "hockey_stick", "release_k1")


def test_the_h200_table_is_the_measurement():
    """docs/howto/accelerators.md's H200 table is what the committed summary of that run renders
    (no re-typing); the run was on a GPU at full sizes, every step passed, the fixtures agreed
    with the CPU, and the summary fails it for the one nonfinite result it found (release_k1 in
    float32 at d = 1, fixed since: tests/test_release_k1.py)."""
    summary_module = load_benchmark("device_check_summary")
    s = json.loads((ROOT / "tests" / "fixtures" / "device_check_h200.json").read_text())
    block = load_benchmark("_common").read_block(
        summary_module.DOCS_PAGE, summary_module.BEGIN, summary_module.END)
    assert block == summary_module.docs_table(s).strip(), (
        "run: python benchmarks/device_check_summary.py - --docs "
        "tests/fixtures/device_check_h200.json")
    assert s["device_platform"] == "gpu" and s["sizes"] == "full" and not s["rehearsal"]
    assert all(step["status"] in ("passed", "not run") for step in s["steps"].values())
    assert all(q["device_vs_cpu"]["passed"] for q in s["quantities"].values())
    assert s["nonfinite"] == ["release_k1 float32: 512 of 3584 points"] and not s["passed"]


@pytest.mark.slow  # ~1.5 min with the suite's compilation cache warm, ~4.5 min cold (2 cores)
def test_device_check_small(tmp_path):
    """Every step passes; device_check.json has, per quantity and dtype, points/s, compile s and
    peak memory, and per quantity the device-against-CPU difference within the fixtures' 1e-13."""
    out = tmp_path / "out"
    env = dict(os.environ, OUT=str(out), SKIP_INSTALL="1", VENV=str(tmp_path / "no-venv"),
               # room for cold compiles (the steps' caps scale with it); warm, it takes ~90 s
               DEVICE_CHECK_TOTAL_S="900",
               PATH=os.pathsep.join([os.path.dirname(sys.executable), os.environ["PATH"]]))
    cache = os.environ["FISHERRDP_TEST_JAX_CACHE"]  # conftest.py decides it
    if cache:
        env["DEVICE_CHECK_COMPILE_CACHE"] = cache
    proc = subprocess.run(["bash", "benchmarks/device_check.sh", "--small"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1100, check=False)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-2000:]

    s = json.loads((out / "device_check.json").read_text())
    assert s["passed"] and s["sizes"] == "small" and "nvidia_smi" in s
    assert s["steps"]["install"] == {"status": "not run", "rc": None, "seconds": 0.0,
                                     "note": "SKIP_INSTALL=1"}
    for step in ("info", "bench64", "fixtures", "bench32"):
        assert s["steps"][step]["status"] == "passed" and s["steps"][step]["rc"] == 0, step
    platform = s["device_platform"]
    assert s["rehearsal"] == (platform == "cpu") and s["environment"]["backend"] == platform
    assert s["compile_cache"] == (cache or None)
    tol = s["tolerance_rel"]
    assert tol == 1e-13
    for name in QUANTITIES:
        q = s["quantities"][name]
        for dtype in ("float64", "float32"):
            e = q[dtype]
            assert e["points"] == (2 if name == "release_k1" else 16) and e["nonfinite"] == 0
            assert math.isfinite(e["points_per_s"]) and e["points_per_s"] > 0, (name, dtype)
            assert math.isfinite(e["compile_s"]) and e["compile_s"] >= 0, (name, dtype)
            assert e["peak_memory_bytes"] > 0, (name, dtype)
            if platform == "cpu":
                assert e["peak_memory_kind"].startswith("host peak RSS")
        d = q["device_vs_cpu"]
        assert d["passed"] and d["tolerance_rel"] == tol, (name, d)
        assert math.isfinite(d["max_rel"]) and 0 <= d["max_rel"] <= tol, (name, d)
    for name, case in s["device_vs_cpu"].items():  # the fixtures of the special functions too
        assert case["passed"] and case["n"] == 8, name  # rows of each fixture file
        if platform == "cpu" and not name.startswith("scan:"):
            assert case["max_rel_target_vs_cpu"] == 0.0, name  # the same program on one CPU
    assert s["eager_fisher"]["float64"]["points"] == 16
    assert s["eager_fisher"]["float64"]["points_per_s"] > 0

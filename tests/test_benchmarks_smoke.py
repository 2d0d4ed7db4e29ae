"""Smoke test: benchmarks/bench_special.py runs on a few points and reports sane numbers."""

import importlib.util
import json
import math
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "bench_special.py"


def _load_bench():
    spec = importlib.util.spec_from_file_location("bench_special", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_special_smoke(tmp_path):
    pytest.importorskip("mpmath")
    bench = _load_bench()
    out = tmp_path / "bench.json"
    r = bench.main(["--n", "10000", "--sample", "20", "--jax-runs", "2", "--scipy-runs", "1",
                    "--json", str(out), "--quiet"])

    assert isinstance(r, dict)
    assert r["n"] == 10000 and r["sample"] == 20
    for key in ("compile_s", "jax_median_s", "scipy_median_s", "ratio_jax_over_scipy"):
        assert math.isfinite(r[key]) and r[key] > 0, key
    assert r["jax_nonfinite_full"] == 0

    acc = r["accuracy"]
    assert acc["refs_finite"]
    assert acc["jax"]["nonfinite"] == 0
    for name in ("jax", "scipy"):
        assert math.isfinite(acc[name]["max_err"]), name
        assert math.isfinite(acc[name]["median_err"]), name
    # error is already scaled by max(1, |ref|)
    assert acc["jax"]["max_err"] <= 2e-14, acc["jax"]

    assert json.loads(out.read_text())["n"] == 10000


def test_sample_points_domain():
    bench = _load_bench()
    v, x = bench.sample_points(1000, seed=0)
    assert v.min() >= -0.5 and v.max() <= 5000.0
    assert x.min() >= 1e-10 and x.max() <= 1e6
    v2, _ = bench.sample_points(1000, seed=0)
    assert (v == v2).all()

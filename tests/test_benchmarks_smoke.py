"""Smoke tests: the benchmarks in benchmarks/ run at tiny sizes and report sane numbers."""

import json
import math
import os

import pytest
from helpers.benchmarks import load_benchmark


def test_bench_special_smoke(tmp_path):
    pytest.importorskip("mpmath")
    bench = load_benchmark("bench_special")
    out = tmp_path / "bench.json"
    r = bench.main(
        [
            "--n",
            "10000",
            "--sample",
            "20",
            "--jax-runs",
            "2",
            "--scipy-runs",
            "1",
            "--json",
            str(out),
            "--quiet",
        ]
    )

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
    bench = load_benchmark("bench_special")
    v, x = bench.sample_points(1000, seed=0)
    assert v.min() >= -0.5 and v.max() <= 5000.0
    assert x.min() >= 1e-10 and x.max() <= 1e6
    v2, _ = bench.sample_points(1000, seed=0)
    assert (v == v2).all()


def test_bench_fisher_smoke(tmp_path):
    pytest.importorskip("mpmath")
    bench = load_benchmark("bench_fisher")
    out = tmp_path / "bench_fisher.json"
    grid = ["--nd", "4", "--ntheta", "4", "--sample", "2", "--jax-runs", "2"]
    r = bench.main([*grid, "--scipy-subsample", "0", "--json", str(out), "--quiet"])

    assert r["n"] == 16 and r["scipy_points"] == 16
    assert not r["scipy_grid_s_extrapolated"]
    times = ("compile_s", "jax_median_s", "scipy_run_s", "scipy_grid_s")
    for key in (*times, "ratio_scipy_over_fisherrdp"):
        assert math.isfinite(r[key]) and r[key] > 0, key
    assert r["jax_nonfinite"] == 0
    assert 0 <= r["scipy_failed"] <= 16

    acc = r["accuracy"]
    assert acc["checked"] >= 1
    assert acc["fisherrdp"]["nonfinite"] == 0
    assert acc["fisherrdp"]["max_err"] <= 1e-10, acc["fisherrdp"]

    assert json.loads(out.read_text())["n"] == 16


def test_bench_variational_smoke(tmp_path):
    """Tiny config: the Gaussian and Fisher families of the coverage benchmark (one replicate,
    100 steps), their truths and the summary fields."""
    bench = load_benchmark("bench_variational")
    out = tmp_path / "bench_variational.json"
    argv = ["--quick", "--families", "renyi-gauss,fisher", "--steps", "100", "--n-eval", "4000"]
    r = bench.main([*argv, "--json", str(out), "--quiet"])

    gauss, fisher = r["families"]["renyi-gauss"], r["families"]["fisher"]
    assert len(gauss["cases"]) == 3 and len(fisher["cases"]) == 4
    assert gauss["cases"][0]["truth"] == pytest.approx(1.0)  # D_2(N(1, 1) ‖ N(0, 1))
    for family in (gauss, fisher):
        s = family["summary"]
        assert 0.0 <= s["coverage"] <= 1.0 and s["unflagged_misses"] <= s["misses"]
        for c in family["cases"]:
            assert c["ci_low"] < c["estimate"] < c["ci_high"] and math.isfinite(c["rel_err"])
    assert json.loads(out.read_text())["quick"] is True


@pytest.mark.slow  # ~30 s of compilations (k = 2, 3, 4 and the score); -m slow
def test_bench_wishart_smoke(tmp_path):
    """Both parts at tiny sizes: log_hyp0f1_matrix against mpmath (k = 2, 3) and the Monte
    Carlo Wishart Fisher information (k = 2, d = 6, 200 samples)."""
    pytest.importorskip("mpmath")
    bench = load_benchmark("bench_wishart")
    out = tmp_path / "bench_wishart.json"
    argv = ["--n", "20", "--runs", "2", "--ref-points", "1", "--ks", "2,3"]
    fisher = ["--fisher-samples", "200", "--fisher-d", "6", "--fisher-runs", "1"]
    r = bench.main([*argv, *fisher, "--json", str(out), "--quiet"])

    assert [row["k"] for row in r["hyp0f1"]] == [2, 3]
    for row in r["hyp0f1"]:
        for key in ("compile_s", "fisherrdp_median_s_per_matrix", "mpmath_s_per_matrix"):
            assert math.isfinite(row[key]) and row[key] > 0, key
        assert row["ratio_mpmath_over_fisherrdp"] == pytest.approx(
            row["mpmath_s_per_matrix"] / row["fisherrdp_median_s_per_matrix"]
        )
        assert row["max_rel_diff"] <= 1e-10, row  # the function's accuracy target
    f = r["fisher"]
    assert f["n_samples"] == 200 and f["d"] == 6
    assert f["median_s"] > 0 and f["us_per_sample"] == pytest.approx(f["median_s"] / 200 * 1e6)
    assert 0 < f["fisher"] and 0 < f["stderr"] < f["fisher"]
    assert f["fisher"] - 3 * f["stderr"] <= f["theorem53"]
    assert f["sample_over_hyp0f1_k2"] > 0
    assert json.loads(out.read_text())["fisher"]["n_samples"] == 200


def test_bench_scan_smoke(tmp_path):
    """--smoke: hockey_stick on 16 points through fisherrdp.scan in one worker process (one
    device), one run; the JSON has the table's rows and each configuration's measurements.
    The worker uses the suite's persistent compilation cache (as conftest.py does), so after a
    first run its "compile" time is a cache load."""
    bench = load_benchmark("bench_scan")
    out = tmp_path / "bench_scan.json"
    argv = ["--smoke", "--json", str(out), "--quiet"]
    cache = os.environ["FISHERRDP_TEST_JAX_CACHE"]  # conftest.py decides it
    if cache:
        argv += ["--compile-cache", cache]
    r = bench.main(argv)

    saved = json.loads(out.read_text())
    keys = ("errors", "mode", "dtype", "quantities", "configs", "rows", "naive_fisher",
            "total_wall_s")
    for key in keys:
        assert key in saved, key
    assert saved["errors"] == [] and saved["mode"] == "smoke" and saved["dtype"] == "float64"
    assert saved["quantities"] == ["hockey_stick"] and list(saved["configs"]) == ["one"]
    one = saved["configs"]["one"]
    assert one["returncode"] == 0 and not one["timed_out"], one.get("stderr_tail")
    assert one["n_devices"] == 1 and one["peak_rss_bytes"] > 0
    assert one["environment"]["x64"] is True
    entry = one["quantities"]["hockey_stick"]
    assert entry["points"] == 16 and entry["repeats"] == 1 and entry["nonfinite"] == 0
    assert entry["dtype"] == "float64" and len(entry["devices"]) == 1
    for key in ("points_per_s", "points_per_s_wall", "median_s", "first_call_s"):
        assert math.isfinite(entry[key]) and entry[key] > 0, key
    assert math.isfinite(entry["compile_s"]) and entry["compile_s"] >= 0
    (row,) = saved["rows"]
    assert row["quantity"] == "hockey_stick" and row["points"] == 16
    assert row["one"]["points_per_s"] == entry["points_per_s"]
    assert row["speedup_all_over_one"] is None  # one configuration only
    assert r["rows"] == saved["rows"]


def test_bench_compile_smoke(tmp_path):
    """One small case: cold and warm processes, the program count and size, the JSON."""
    bench = load_benchmark("bench_compile")
    out = tmp_path / "compile.json"
    assert bench.main(["--only", "special.log_bessel_i", "--json", str(out)]) == 0
    (row,) = json.loads(out.read_text())["cases"]
    assert row["case"] == "special.log_bessel_i"
    assert row["value"] == pytest.approx(7.30428039501205, rel=1e-14)
    assert row["programs"] >= 1 and row["hlo_instructions"] > 100
    assert 0 < row["warm_s"] and 0 < row["cold_s"] and row["second_call_s"] < row["cold_s"]
    assert row["cold_backend_compile_s"] > 0


def test_bench_release_k1_points():
    """The finite-release benchmark's points lie in its stated ranges and are reproducible (the
    benchmark itself compiles the finite release's gradient, minutes: not a smoke run)."""
    bench = load_benchmark("bench_release_k1")
    p = bench.sample_points(500, seed=0)
    assert set(p) == {"alpha", "eps", "d", "n_syn", "a", "b"}
    for key, (lo, hi) in {
        "alpha": bench.ALPHA_RANGE,
        "eps": bench.EPS_RANGE,
        "d": tuple(10.0**x for x in bench.LOG10_D_RANGE),
        "n_syn": tuple(10.0**x for x in bench.LOG10_NSYN_RANGE),
        "a": bench.NORM_RANGE,
        "b": bench.NORM_RANGE,
    }.items():
        assert p[key].shape == (500,) and lo <= p[key].min() and p[key].max() <= hi, key
    again = bench.sample_points(500, seed=0)
    assert all((p[k] == again[k]).all() for k in p)


def test_wishart_k2_extremes_cases():
    """The scan's pairs are those its docstring states (running it compiles the k = 2
    cubature: minutes, not a smoke run; its numbers are in docs/math/wishart_k2.md)."""
    bench = load_benchmark("wishart_k2_extremes")
    families = bench.cases()
    assert {k: v[0].size for k, v in families.items()} == {"collinear": 320, "orthogonal": 125}
    al, d, om_v, om_w, a, b = families["orthogonal"]
    assert (om_v[:, 0, 0] == a * a).all() and (om_w[:, 1, 1] == b * b).all()
    assert set(d) == set(bench.D) and al.max() == 256.0

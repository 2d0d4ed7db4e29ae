"""float32 scans agree with float64 scans of the same points, to a tolerance set by float32's eps.

Only kernels that compile quickly (about 25 s for all, cold, on a 2-core CPU); every registered
quantity is measured by ``benchmarks/accuracy_scan_float32.py``, whose numbers justify the
factors below. The inputs are rounded to float32 first, so both scans see the same points and
only the arithmetic differs.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.benchmarks import load_benchmark

from fisherrdp.fisher import ncx2_amplitude_fisher
from fisherrdp.scan import points, scan

EPS32 = float(np.finfo(np.float32).eps)


def _both(quantity, **cols):
    cols = {k: np.asarray(np.asarray(v, np.float32), np.float64) for k, v in cols.items()}
    grid = points(**cols)
    r64 = scan(quantity, grid, chunk=16, dtype="float64", progress=False)
    r32 = scan(quantity, grid, chunk=16, dtype="float32", progress=False)
    return cols, r64, r32


def _mixed_error(got, ref):
    """|got - ref| / max(1, |ref|): relative, but absolute near 0 (for logarithms)."""
    got = np.asarray(got, np.float64)
    return np.abs(got - ref) / np.maximum(1.0, np.abs(ref))


def test_log_bessel_i_float32():
    # Relative error, also where log I_v(x) is small (v = 0, x -> 0: log I_0(x) ~ x^2/4).
    # Measured on these points: at most 1.5 eps32 (1.7e-7). Before log Γ was computed by its
    # series near 1 (fisherrdp/_src/special/gamma.py), XLA's float32 lgamma(1) = 4.8e-7 put a
    # constant offset of -2^-21 on log I_0(x) for x <~ 1 (relative error 1.9 at x = 1e-3).
    v = [0.0, 0.0, 0.0, 0.5, 0.5, 1.0, 3.5, 10.0, 49.0, 49.0, 200.0, 200.0, 1e3, 1e3, 4999.0, 0.1]
    x = [0.0, 1e-3, 1.0, 1e-3, 30.0, 1e4, 7.0, 0.2, 50.0, 2e3, 1.0, 300.0, 10.0, 1e4, 50.0, 1e3]
    _, r64, r32 = _both("log_bessel_i", v=v, x=x)
    got, ref = r32.values, r64.values
    assert got.dtype == np.float32
    assert np.isfinite(ref).all() and np.isfinite(got).all()
    assert got[0] == ref[0] == 0.0  # log I_0(0)
    rel = np.abs(np.asarray(got, np.float64) - ref) / np.abs(np.where(ref == 0.0, 1.0, ref))
    assert rel.max() <= 16 * EPS32


def test_ncx2_logpdf_float32():
    # Mixed error (relative, absolute near 0). Measured on these 32 points: at most 9.8 eps32
    # (1.2e-6, at x = 13, df = 20.5, λ = 0, below the switch to Debye's form). Before float32
    # used Debye's form with its exponent in closed form (ν ≥ 10, docs/math/ncx2.md), terms of
    # size ~df cancelled: 820 eps32 (9.8e-5) at x = 11229.5, df = 8890.4, λ = 2145.7.
    df = np.array([1.0, 1.0, 2.0, 3.0, 5.0, 10.0, 10.0, 50.0, 100.0, 100.0, 300.0, 1e3, 1e3,
                   1.5, 7.0, 20.0])
    nc = np.array([0.0, 4.0, 0.25, 100.0, 1.0, 0.0, 900.0, 25.0, 1e3, 0.01, 400.0, 1e3, 10.0,
                   0.2, 50.0, 9.0])
    z = np.array([-0.5, 1.0, 2.0, -2.0, 0.0, 4.0, -3.0, 1.5, 6.0, -1.0, 3.0, -3.5, 0.5, -0.9,
                  8.0, 2.5])
    x = np.maximum(df + nc + z * np.sqrt(2 * (df + 2 * nc)), 1e-3)
    x[13], df[13], nc[13] = 0.00194, 1.74646, 0.193488  # near x = 0 with df < 2: 1.3 eps32
    # Large df (the cancellation above), the far tails, and both sides of the switch at ν = 10.
    large = np.array([
        (11229.5082, 8890.37779, 2145.66718), (15006.7228, 9895.19883, 5116.42893),
        (6549.13481, 3.89008521, 7162.11672), (375.65, 1051.7, 284.0), (101.42, 223.7, 0.00125),
        (12.0, 21.0, 3.0), (30.0, 22.0, 3.0), (1e4, 1e4, 0.0), (3e4, 1e4, 1e4), (8e3, 1e4, 1e4),
        (50.0, 60.0, 1e4), (1e-3, 100.0, 5.0), (9.0, 41.9, 1e-4), (4e3, 3e3, 7e3),
        (13.0, 20.5, 0.0), (2e4, 1e4, 1e4),
    ])
    x, df, nc = (np.concatenate([col, extra]) for col, extra in zip((x, df, nc), large.T))
    _, r64, r32 = _both("ncx2_logpdf", x=x, df=df, nc=nc)
    got, ref = r32.values, r64.values
    assert got.dtype == np.float32
    assert np.isfinite(ref).all() and np.isfinite(got).all()
    assert _mixed_error(got, ref).max() <= 32 * EPS32


@pytest.fixture(scope="module")
def fisher_scans():
    # The function itself rather than the registered "fisher", which also computes the error
    # estimate (a second quadrature: twice the compile time); the benchmark covers that one.
    # Two chunks of 16 (one program): the second, points of the float32 benchmark where the
    # score's cancellation failed the float32 criterion before its compensated forms (large θ,
    # small d; large d, small θ; large d and θ, where only the Debye form applies).
    d = np.array([1.0, 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 10.0, 50.0, 100.0, 100.0, 300.0, 1e3, 1e3,
                  1.5, 20.0] + [h[0] for h in HARD_FISHER])
    theta = np.array([0.01, 2.0, 0.5, 10.0, 1.0, 30.0, 0.0, 3.0, 7.0, 0.1, 20.0, 1.0, 30.0, 0.3,
                      5.0, 15.0] + [h[1] for h in HARD_FISHER])
    return _both(ncx2_amplitude_fisher, d=d, theta=theta)


#: (d, θ): where float32's score lost digits (benchmarks/accuracy_scan_float32.py, seed 0).
HARD_FISHER = [(27.5816365, 97.6396416), (3.43077131, 91.581198), (1.10923686, 55.8507294),
               (32.6256924, 99.6884141), (1.57013461, 95.7103995), (7.9409074, 96.8185754),
               (3290.58953, 88.2627276), (7690.49437, 0.00173000915), (512.978786, 88.8254854),
               (1e4, 0.01), (1e4, 100.0), (1.0, 100.0), (2.0, 1e3), (5e3, 1e-4), (800.0, 3.0),
               (60.0, 60.0)]


def test_fisher_float32(fisher_scans):
    # The error model of fisherrdp.fisher (eps * (64 + 4 M), M the size of the terms of the log
    # density, about theta^2 + d) with float32's eps. Measured on the first 16 points: at most
    # 3.3 eps32 (7.2 before the score's Debye form; 18 at d = 5, theta = 30 before the score's
    # compensated forms, 55 before the weights used the chi^2 log-density's float32 form at
    # nu >= 10), where the tolerance is 64 + 4(theta^2 + d) >= 68 eps32.
    cols, r64, r32 = fisher_scans
    got, ref = np.asarray(r32.values, np.float64), r64.values
    assert np.isfinite(ref).all() and np.isfinite(got).all()
    tol = EPS32 * (64.0 + 4.0 * (cols["theta"] ** 2 + cols["d"]))
    ok = np.abs(got - ref) <= tol * np.abs(ref)
    assert ok.all(), list(zip(cols["d"][~ok], cols["theta"][~ok]))
    # Against float64 at the same (float32) inputs. Measured: at most 5.3e-7 relative (4.4 eps32)
    # with the score's Debye form at ν ≥ 10 and the integrand written in the node's offset
    # (8.4e-6 at d = 513, θ = 88.8 before, 1.9e-5 at HARD_FISHER's points before any
    # compensated form); issue 27's criterion is 1e-5.
    rel = np.abs(got - ref) / np.where(ref > 0, ref, 1.0)
    assert rel.max() <= 5e-6, list(zip(cols["d"][rel > 5e-6], cols["theta"][rel > 5e-6]))


def test_fisher_float32_dtype(fisher_scans):
    _, _, r32 = fisher_scans
    assert r32.values.dtype == np.float32


def test_the_float32_table_is_the_measurement():
    """docs/howto/float32.md's table is what the committed measurement renders (no re-typing),
    and the measurement covers every registered quantity on the points the issue asks for."""
    bench = load_benchmark("accuracy_scan_float32")
    fixture = Path(__file__).resolve().parent / "fixtures" / "float32.json"
    measurement = json.loads(fixture.read_text())
    block = load_benchmark("_common").read_block(bench.DOCS_PAGE, bench.BEGIN, bench.END)
    assert block == bench.docs_table(measurement).strip(), (
        "run: python benchmarks/accuracy_scan_float32.py --docs tests/fixtures/float32.json")
    measured = {row["quantity"] for row in measurement["rows"]}
    assert measured == set(bench.registered_names())
    assert measurement["points"] >= 10_000
    for row in measurement["rows"]:
        assert "error" not in row, row

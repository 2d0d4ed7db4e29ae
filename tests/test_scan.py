"""The scan engine: sharding over devices and processes, the zarr store, resume, bad input.

Sharded and multi-process scans run in fresh processes (helpers/scan_worker.py), since the
device count is fixed when JAX starts; the one-device reference runs here.
"""

import os
import socket
import subprocess
import sys
import warnings

import jax.numpy as jnp
import numpy as np
import pytest
from helpers.scan_grids import GRIDS

import fisherrdp
from fisherrdp._src.scan import store as store_module
from fisherrdp._src.scan.grid import block_shape
from fisherrdp.divergences import renyi_ncx2
from fisherrdp.fisher import ncx2_amplitude_fisher
from fisherrdp.scan import load, points, quantities, scan

WORKER = os.path.join(os.path.dirname(__file__), "helpers", "scan_worker.py")


#: Process 1 of the pair finishes its work this long after process 0 (a slow host): the pair
#: must still shut down cleanly (helpers/scan_worker.py meets at a barrier before shutdown).
LATE_PROCESS_DELAY_S = 5.0


def _start_workers(argvs):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [
        os.path.dirname(os.path.dirname(fisherrdp.__file__)), os.environ.get("PYTHONPATH")]))}
    return [
        subprocess.Popen([sys.executable, WORKER, *map(str, argv)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for argv in argvs
    ]


def _wait(procs, timeout=900):
    outputs = [p.communicate(timeout=timeout)[0] for p in procs]
    codes = [p.returncode for p in procs]
    # Every process's output: the first error is often in another process than the failure.
    assert codes == [0] * len(procs), "\n".join(
        f"--- process {i} (exit {c}):\n{_without_stack(out)[-3000:]}"
        for i, (c, out) in enumerate(zip(codes, outputs)))


def _without_stack(output: str) -> str:
    """A worker's output without the native stack frames of an abort (``    @ 0x…`` lines)."""
    return "\n".join(line for line in output.splitlines() if not line.startswith("    @ "))


@pytest.fixture(scope="module")
def workers(tmp_path_factory):
    """The worker processes, started by the module's first test (through ``one_device``).

    They run while the in-process tests go on (the one-device reference, the store tests):
    ``four``, every grid of GRIDS on 4 CPU devices; ``two``, two ``jax.distributed`` processes of
    2 devices each scanning ``fisher`` into ``store`` (process 1 finishing late).
    """
    base = tmp_path_factory.mktemp("workers")
    with socket.socket() as s:
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    store = base / "two.zarr"
    outs = [base / f"p{i}.npz" for i in range(2)]
    started = {
        "four": (_start_workers([[base / "four.npz", 4]]), base / "four.npz"),
        "two": (_start_workers([[outs[0], 2, 0, 2, port, store],
                                [outs[1], 2, 1, 2, port, store, LATE_PROCESS_DELAY_S]]), outs),
        "store": store,
    }
    yield started
    for procs, _ in (started["four"], started["two"]):
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.communicate()


@pytest.fixture(scope="module")
def one_device(workers):
    """Every grid of GRIDS scanned here, on one device (after starting the worker processes,
    which run meanwhile)."""
    return {key: scan(name, grid, chunk=chunk, progress=False).values
            for key, (name, grid, chunk) in GRIDS.items()}


def _rel(a, b):
    return np.max(np.abs(a - b) / np.maximum(np.abs(b), np.finfo(float).tiny))


# ----------------------------------------------------------------------------------------------
# Values


def test_scan_matches_the_functions(one_device):
    # Not bit-identical: the direct calls compile other shapes, and XLA's vectorised and scalar
    # loops may round transcendental functions differently (seen: 1.7e-14 for fisher, whose
    # accuracy against mpmath is 1.3e-13).
    name, grid, _ = GRIDS["fisher"]
    d, theta = np.meshgrid(grid["d"], grid["theta"], indexing="ij")
    direct = np.asarray(ncx2_amplitude_fisher(d, theta))
    assert np.array_equal(np.isfinite(one_device["fisher"]), np.ones(d.shape, bool))
    assert _rel(one_device["fisher"], direct) <= 1e-13

    _, grid, _ = GRIDS["renyi"]
    alpha, d, a = np.meshgrid(grid["alpha"], grid["d"], grid["a"], indexing="ij")
    direct = np.asarray(renyi_ncx2(alpha, d, a, grid["b"]))
    assert one_device["renyi"].shape == (3, 3, 2)
    assert _rel(one_device["renyi"], direct) <= 1e-13


@pytest.fixture(scope="module")
def four_devices(workers):
    """Every grid of GRIDS scanned in a fresh process with 4 CPU devices."""
    procs, out = workers["four"]
    _wait(procs)
    return dict(np.load(out))


# XLA:CPU compiles a program for several devices (num_partitions > 1) a little differently
# from the same program for one device (pmap does the same), and the rounding moves: measured
# 4.2e-14 relative for fisher (1.2e-14 before the Bessel core's loops were rolled), 9.9e-14 for
# renyi and 8.0e-14 for release_k1, all far inside the functions' accuracy against mpmath
# (1.3e-13, 4.7e-12, 4.9e-11). The bounds below are the largest measurements with a factor 2.
# Since the Bessel core's recurrence lost its log1p per step and the quadratures pass one order
# per point (2026-12-04): 1.2e-14, 2.6e-13 (renyi 3.4e-3 at α = 1.5, d = 1000, a = 2, b = 1) and
# 4.3e-14. All multi-device runs share one program: 2 processes x 2 devices and 1 process x 4
# devices agree bit for bit (next test).
ONE_VS_SEVERAL_DEVICES = {"fisher": 8.5e-14, "renyi": 5.3e-13, "release_k1": 1.6e-13}


def test_sharded_scan_equals_one_device(one_device, four_devices):
    assert int(four_devices["local_devices"]) == 4
    differences = {key: _rel(four_devices[key], one_device[key]) for key in GRIDS}
    for key in GRIDS:
        assert four_devices[key].shape == one_device[key].shape
        assert np.isfinite(four_devices[key]).all()
        assert differences[key] <= ONE_VS_SEVERAL_DEVICES[key], differences


def test_two_processes_make_the_store_of_one(one_device, four_devices, workers, tmp_path):
    name, grid, chunk = GRIDS["fisher"]
    procs, outs = workers["two"]
    store = workers["store"]
    _wait(procs)
    single = scan(name, grid, chunk=chunk, store=str(tmp_path / "one.zarr"), progress=False)
    results = [np.load(o) for o in outs]
    blocks = single.attrs["blocks"]
    # Block i belongs to process i mod 2; every process returns the whole result.
    assert [int(r["stored_computed"]) for r in results] == [(blocks + 1) // 2, blocks // 2]
    for r in results:
        assert int(r["local_devices"]) == 2
        # 2 processes x 2 devices and 1 process x 4 devices: the same program, the same bits.
        assert _rel(r["stored"], four_devices["fisher"]) <= 1e-15
        assert _rel(r["gathered"], four_devices["fisher"]) <= 1e-15
    two = load(str(store))
    assert two.resumed_blocks == blocks
    assert two.attrs["processes"] == 2
    assert _rel(two["fisher"], four_devices["fisher"]) <= 1e-15
    # Against the store of one process on one device. The error estimates are differences of
    # two quadratures, i.e. rounding where the rule is exact, so they move as much as the values
    # do (measured: 1.3e-14 absolute, values up to 0.9): the same bound, in absolute terms.
    assert _rel(two["fisher"], single["fisher"]) <= ONE_VS_SEVERAL_DEVICES["fisher"]
    moved = np.max(np.abs(two["fisher_error"] - single["fisher_error"]))
    assert moved <= ONE_VS_SEVERAL_DEVICES["fisher"] * np.max(np.abs(single["fisher"]))


# ----------------------------------------------------------------------------------------------
# Store and resume


def _product(x, y):
    return jnp.sin(x) * y, x + y


def test_resume_recomputes_no_finished_block(tmp_path, monkeypatch):
    grid = {"x": np.linspace(0.0, 3.0, 50), "y": np.arange(7.0)}
    path = str(tmp_path / "s.zarr")
    full = scan(_product, grid, chunk=16, progress=False)
    assert full.outputs == ("_product_0", "_product_1")

    written = []
    original = store_module.Store.write

    def write_then_die(self, index, slices, outputs):
        if len(written) == 5:
            raise KeyboardInterrupt  # killed after five blocks
        original(self, index, slices, outputs)
        written.append(index)

    monkeypatch.setattr(store_module.Store, "write", write_then_die)
    with pytest.raises(KeyboardInterrupt):
        scan(_product, grid, chunk=16, store=path, progress=False)
    monkeypatch.setattr(store_module.Store, "write", original)

    partial = load(path)
    assert partial.resumed_blocks == 5
    assert np.isnan(partial.values).any()
    resumed = scan(_product, grid, chunk=16, store=path, progress=False)
    n_blocks = resumed.attrs["blocks"]
    assert (resumed.resumed_blocks, resumed.computed_blocks) == (5, n_blocks - 5)
    for name in full.outputs:
        assert np.array_equal(resumed[name], full[name])
    again = scan(_product, grid, store=path, progress=False)  # chunk read from the store
    assert (again.resumed_blocks, again.computed_blocks) == (n_blocks, 0)
    assert np.array_equal(load(path).values, full.values)


@pytest.mark.parametrize("pid", [0, 1])
def test_processes_check_the_store_before_process_0_makes_it(pid, tmp_path, monkeypatch):
    """Regression (a flake of test_two_processes_make_the_store_of_one): process 1 checked the
    store while process 0 was making it, saw a half-made store, raised, and both processes then
    died at jax.distributed's shutdown. Every process checks, then meets the others at a
    barrier; only then does process 0 make the store (and the others open it after the next
    barrier). The order of one process's calls, with the process count faked to 2."""
    import jax

    from fisherrdp._src.scan import api

    calls = []
    monkeypatch.setattr(jax, "process_count", lambda: 2)
    monkeypatch.setattr(jax, "process_index", lambda: pid)
    monkeypatch.setattr(api, "barrier", lambda name, **kw: calls.append(name.split("-")[2]))

    def check(*args):
        calls.append("check")
        return store_module.check_existing(*args)

    def open_(*args, create):
        calls.append(f"open(create={create})")
        return store_module.open_store(*args, create=True)  # process 0's store, made here

    monkeypatch.setattr(api, "check_existing", check)
    monkeypatch.setattr(api, "open_store", open_)
    scan(_product, {"x": [1.0, 2.0], "y": 1.0}, chunk=8, store=str(tmp_path / "s.zarr"),
         progress=False)
    opening = ["open(create=True)", "open"] if pid == 0 else ["open", "open(create=False)"]
    assert calls == ["check", "checked", *opening, "done"]


def test_store_reads_as_xarray(tmp_path):
    xr = pytest.importorskip("xarray")
    grid = {"x": np.linspace(0.0, 1.0, 5), "y": 2.0}
    path = str(tmp_path / "x.zarr")
    result = scan(_product, grid, chunk=4, store=path, progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stored = xr.open_zarr(path)
    np.testing.assert_array_equal(stored["_product_0"].values, np.sin(grid["x"]) * 2.0)
    np.testing.assert_array_equal(stored["x"].values, grid["x"])
    ds = result.to_xarray()
    assert ds["_product_1"].dims == ("x",)
    assert float(ds["y"]) == 2.0
    assert ds.attrs["quantity"] == "_product"
    for key in ("fisherrdp_version", "jax_version", "devices", "dtype", "seconds"):
        assert key in ds.attrs


def test_mismatched_store_raises(tmp_path):
    path = str(tmp_path / "m.zarr")
    scan(_product, {"x": [1.0, 2.0], "y": 1.0}, chunk=4, store=path, progress=False)
    with pytest.raises(ValueError, match="holds another scan"):
        scan(_product, {"x": [1.0, 3.0], "y": 1.0}, chunk=4, store=path, progress=False)
    with pytest.raises(ValueError, match="holds another scan.*quantity"):
        scan(jnp.hypot, {"x1": [1.0, 2.0], "x2": 1.0}, chunk=4, store=path, progress=False)
    with pytest.raises(ValueError, match="block"):
        scan(_product, {"x": [1.0, 2.0], "y": 1.0}, chunk=1, store=path, progress=False)


def test_axes_come_in_the_grid_order():
    r = scan(_product, {"y": [1.0, 2.0], "x": [0.0, 1.0, 2.0]}, chunk=4, progress=False)
    assert r.dims == ("y", "x")
    np.testing.assert_array_equal(r.values, np.sin([[0.0, 1.0, 2.0]]) * np.array([[1.0], [2.0]]))


def test_explicit_points():
    p = points(x=[0.0, 1.0, 2.0], y=[1.0, 2.0, 3.0])
    r = scan(_product, p, chunk=2, progress=False)
    assert r.dims == ("point",)
    np.testing.assert_array_equal(r.values, np.sin([0.0, 1.0, 2.0]) * [1.0, 2.0, 3.0])
    assert r.to_xarray()["y"].dims == ("point",)


def test_block_shape_covers_at_least_half_a_chunk():
    assert block_shape((1000, 1000), 4096) == (4, 1000)
    assert block_shape((7, 5000), 4096) == (1, 4096)
    assert block_shape((3, 4, 5), 100) == (3, 4, 5)
    assert block_shape((10, 4, 5), 50) == (2, 4, 5)
    for shape in [(13, 11), (1000, 3), (2, 3, 4, 5)]:
        for chunk in [1, 7, 64, 1000]:
            block = block_shape(shape, chunk)
            size = int(np.prod(block))
            assert size <= max(chunk, 1) and 2 * size >= min(chunk, int(np.prod(shape)))


# ----------------------------------------------------------------------------------------------
# Registry and bad input


def test_registry_lists_the_named_quantities():
    listed = quantities()
    for name in ["fisher", "renyi", "hockey_stick", "privacy_profile", "epsilon_for_delta",
                 "release_k1", "path_bound", "theorem_5_2", "log_bessel_i", "ncx2_logpdf"]:
        assert name in listed
    assert list(listed["release_k1"]["params"]) == ["alpha", "d", "n_syn", "a", "b"]
    assert listed["fisher"]["outputs"] == ["fisher", "fisher_error"]


@pytest.mark.parametrize(
    "quantity, grid, message",
    [
        ("fishr", {"d": 1.0}, "unknown quantity 'fishr'; registered: .*renyi"),
        ("fisher", {"d": 2.0, "theta": 1.0, "alpha": 2.0}, "'alpha' is not a parameter"),
        ("fisher", {"d": 2.0}, "no value for parameter.*'theta'"),
        ("fisher", {"d": [], "theta": 1.0}, "axis 'd' is empty"),
        ("fisher", {"d": [2.0, np.nan], "theta": 1.0}, "axis 'd' contains NaN"),
        ("fisher", {"d": [2.0, 0.5], "theta": 1.0}, "axis 'd'.*must be >= 1, got 0.5"),
        ("renyi", {"alpha": 0.5, "d": 2.0, "a": 1.0, "b": 0.5}, "axis 'alpha'.*must be >= 1"),
        ("fisher", {"d": 2.0, "theta": [[1.0]]}, "axis 'theta' must be 1-D"),
    ],
)
def test_bad_input_raises(quantity, grid, message):
    with pytest.raises(ValueError, match=message):
        scan(quantity, grid, progress=False)


@pytest.mark.parametrize("kwargs, message", [
    ({"dtype": "int32"}, "dtype must be float32 or float64"),
    ({"chunk": 0}, "chunk must be a positive integer"),
])
def test_bad_options_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        scan(_product, {"x": 1.0, "y": 1.0}, progress=False, **kwargs)


# ----------------------------------------------------------------------------------------------
# Command line


def test_cli_scan_writes_resumes_and_summarizes(tmp_path, capsys):
    import json

    from fisherrdp._src.commands import cli

    store, summary = str(tmp_path / "cli.zarr"), tmp_path / "s.json"
    argv = ["scan", "fisher_upper_prop51", "--axis", "d=geom:10:1000:3", "--axis",
            "theta=0.5,1,2", "--out", store, "--chunk", "4", "--json", str(summary),
            "--no-progress"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "devices: 1 x cpu" in out and "points/s" in out
    first = json.loads(summary.read_text())
    assert first["dims"] == {"d": 3, "theta": 3}
    assert first["blocks"] == {"computed": 3, "resumed": 0, "total": 3}
    assert first["outputs"]["fisher_upper_prop51"]["non_finite"] == 0
    assert cli.main(argv) == 0
    again = json.loads(summary.read_text())
    assert again["blocks"] == {"computed": 0, "resumed": 3, "total": 3}
    assert again["outputs"] == first["outputs"]
    np.testing.assert_array_equal(load(store).coords["d"], [10.0, 100.0, 1000.0])


def test_cli_scan_list_and_errors(capsys):
    from fisherrdp._src.commands import cli

    assert cli.main(["scan", "--list"]) == 0
    assert "release_k1" in capsys.readouterr().out
    assert cli.main(["scan", "fisher", "--axis", "d=geom:0:1:3", "--axis", "theta=1"]) == 2
    assert "geom needs START, STOP > 0" in capsys.readouterr().err
    assert cli.main(["scan", "fisher", "--axis", "d=2", "--axis", "dd=1"]) == 2
    assert "'dd' is not a parameter" in capsys.readouterr().err

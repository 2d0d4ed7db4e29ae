"""Start-up: the persistent compilation cache, shape buckets of eager calls, accountant memos.

The cache tests run fresh Python processes (the cache is configured at import), with
``FISHERRDP_CACHE_DIR`` pointing into a temporary folder; they compile ``log_bessel_i`` only,
one of the smallest kernels (~1 s).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

from fisherrdp import divergences, fisher, special, stats
from fisherrdp._src.core import config
from fisherrdp._src.core.engine import bucket_size
from fisherrdp._src.divergences.renyi import renyi_vec
from fisherrdp._src.special.bessel import _log_bessel_i
from fisherrdp.accounting import SyntheticReleaseMechanism

_CHILD = """
import json, sys, time
import jax
from jax import monitoring
events = []
monitoring.register_event_listener(lambda event, **kw: events.append(event))
import fisherrdp
from fisherrdp import special
value = float(special.log_bessel_i(3.5, 10.0)) if sys.argv[1:] != ["--import-only"] else None
print(json.dumps({"dir": jax.config.jax_compilation_cache_dir, "value": value,
                  "hits": events.count("/jax/compilation_cache/cache_hits"),
                  "misses": events.count("/jax/compilation_cache/cache_misses"),
                  "loaded": events.count("/fisherrdp/stored_executable_loads")}))
"""


def _child(env_updates: dict[str, str | None], *, compute: bool = True) -> dict:
    """A fresh process's cache settings after ``import fisherrdp``, and, with ``compute``, the
    value of one ``log_bessel_i`` call and the cache's hits and misses for it."""
    env = dict(os.environ)
    for name in ("FISHERRDP_CACHE_DIR", "FISHERRDP_NO_CACHE", "FISHERRDP_CACHE_MAX_BYTES",
                 "FISHERRDP_CACHE_MIN_COMPILE_SECONDS", "JAX_COMPILATION_CACHE_DIR",
                 "XDG_CACHE_HOME"):
        env.pop(name, None)
    for name, value in env_updates.items():
        if value is not None:
            env[name] = value
    env.setdefault("JAX_PLATFORMS", "cpu")
    args = [sys.executable, "-c", _CHILD] + ([] if compute else ["--import-only"])
    out = subprocess.run(args, env=env, capture_output=True,
                         text=True, check=True, timeout=300)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_cache_location_rules(monkeypatch, tmp_path):
    for name in ("FISHERRDP_CACHE_DIR", "FISHERRDP_NO_CACHE", "XDG_CACHE_HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config.compilation_cache_dir() == tmp_path / "home" / ".cache" / "fisherrdp"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.compilation_cache_dir() == tmp_path / "xdg" / "fisherrdp"
    monkeypatch.setenv("FISHERRDP_CACHE_DIR", str(tmp_path / "mine"))
    assert config.compilation_cache_dir() == tmp_path / "mine"
    monkeypatch.setenv("FISHERRDP_NO_CACHE", "1")
    assert config.compilation_cache_dir() is None
    monkeypatch.setenv("FISHERRDP_NO_CACHE", "0")
    assert config.compilation_cache_dir() == tmp_path / "mine"


def test_cache_is_filled_by_one_process_and_loaded_by_the_next(tmp_path):
    cache = tmp_path / "cache"
    # An orphan entry (no access-time file, as left by a process killed mid-write) would make
    # every write of JAX's bounded cache fail; the import repairs it.
    cache.mkdir()
    (cache / "orphan-cache").write_bytes(b"not a program")
    first = _child({"FISHERRDP_CACHE_DIR": str(cache)})
    assert first["dir"] == str(cache)
    assert first["misses"] >= 1 and first["hits"] == 0
    assert (cache / "orphan-atime").exists()
    entries = [p for p in cache.iterdir() if p.name.endswith("-cache") and p.name != "orphan-cache"]
    assert entries, "the first process stored nothing"
    # The kernel's executable, compiled by the first process, is loaded: not even a lookup in
    # JAX's cache (engine.exported_program).
    executables = list(cache.glob("exported/*/*.xla"))
    assert first["loaded"] == 0 and len(executables) == 1
    second = _child({"FISHERRDP_CACHE_DIR": str(cache)})
    assert second["loaded"] == 1 and second["hits"] == 0 and second["misses"] == 0
    assert second["value"] == first["value"]
    # Without it, JAX's cache serves the program, and no executable is kept from there: one
    # that JAX's cache loaded serializes without its code on XLA:CPU.
    executables[0].unlink()
    third = _child({"FISHERRDP_CACHE_DIR": str(cache)})
    assert third["hits"] >= 1 and third["misses"] == 0 and third["loaded"] == 0
    assert not list(cache.glob("exported/*/*.xla"))
    assert third["value"] == first["value"]


_LAPACK_CHILD = """
import json
import jax, jax.numpy as jnp, numpy as np
from jax import monitoring
events = []
monitoring.register_event_listener(lambda event, **kw: events.append(event))
import fisherrdp
from fisherrdp._src.core import engine

def largest_eigenvalue(x):  # [[x, 1], [1, -x]]: sqrt(x^2 + 1), by LAPACK's syevd on a CPU
    one = jnp.ones_like(x)
    m = jnp.stack([jnp.stack([x, one], -1), jnp.stack([one, -x], -1)], -2)
    return jnp.linalg.eigvalsh(m)[..., -1]

largest_eigenvalue.__module__ = "fisherrdp.a_kernel_that_calls_lapack"  # kept as fisherrdp's
(out,) = engine.map_points(largest_eigenvalue, [np.arange(3.0)], chunk=4)
print(json.dumps({"value": out.tolist(),
                  "loaded": events.count("/fisherrdp/stored_executable_loads")}))
"""


def test_a_kept_executable_that_calls_lapack_loads_and_runs(tmp_path):
    """LAPACK's kernels are set up before such an executable is loaded: loading
    ``renyi_ncwishart``'s (``eigh``, ``cholesky``) and calling it crashed the process with a
    segmentation fault before (engine._initialize_lapack)."""
    env = {k: v for k, v in os.environ.items() if k != "JAX_COMPILATION_CACHE_DIR"}
    env.update(FISHERRDP_CACHE_DIR=str(tmp_path), JAX_PLATFORMS="cpu")
    runs = [json.loads(subprocess.run([sys.executable, "-c", _LAPACK_CHILD], env=env, check=True,
                                      capture_output=True, text=True, timeout=300)
                       .stdout.strip().splitlines()[-1]) for _ in range(2)]
    assert [r["loaded"] for r in runs] == [0, 1]
    assert runs[0]["value"] == runs[1]["value"]
    np.testing.assert_allclose(runs[1]["value"], np.sqrt(np.arange(3.0) ** 2 + 1), rtol=1e-14)


def test_cache_default_place_and_opt_out(tmp_path):
    on = _child({"XDG_CACHE_HOME": str(tmp_path / "xdg")}, compute=False)
    assert on["dir"] == str(tmp_path / "xdg" / "fisherrdp")
    off = _child({"XDG_CACHE_HOME": str(tmp_path / "xdg2"), "FISHERRDP_NO_CACHE": "1"})
    assert off["dir"] is None and off["hits"] == 0
    assert not (tmp_path / "xdg2").exists()
    # A directory configured before the import is the user's choice, and is kept.
    mine = _child({"JAX_COMPILATION_CACHE_DIR": str(tmp_path / "jax")}, compute=False)
    assert mine["dir"] == str(tmp_path / "jax")


def test_bucket_sizes():
    assert [bucket_size(n) for n in (1, 2, 3, 5, 8, 9, 17, 4096, 5000)] == [
        1, 2, 4, 8, 8, 16, 32, 4096, 4096]
    assert bucket_size(100, cap=32) == 32


@pytest.mark.parametrize("n", [3, 5, 17])
def test_bucketed_calls_equal_unpadded_calls(n):
    rng = np.random.default_rng(n)
    v = rng.uniform(0.0, 30.0, n)
    x = 10.0 ** rng.uniform(-2.0, 3.0, n)
    np.testing.assert_array_equal(special.log_bessel_i(v, x), _log_bessel_i(v, x))
    if n == 3:
        # One size suffices for a quadrature kernel (each unpadded size is a compilation of its
        # own, ~10 s for renyi_ncx2): padding and cutting do not depend on the kernel.
        a = rng.uniform(0.0, 3.0, n)
        np.testing.assert_array_equal(divergences.renyi_ncx2(2.0, 10.0, a, 1.0),
                                      renyi_vec(2.0, 10.0, a, 1.0))


def _compiles(call) -> int:
    """Kernel compilations (or persistent-cache loads) that ``call()`` triggers.

    Converting an input of a new shape to a JAX array (``jnp.asarray``) compiles a tiny
    ``stage`` or ``convert_element_type`` program; those are not counted.
    """
    events = []

    def listen(event, duration, fun_name="", **kwargs):
        conversion = fun_name in ("jit(stage)", "jit(convert_element_type)")
        if event == "/jax/core/compile/backend_compile_duration" and not conversion:
            events.append(duration)

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        call()
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    return len(events)


def test_bucketed_calls_reuse_one_program():
    """3, 4 and 2 × 2 points share the 4-point program; shapes and dtypes come back as given."""
    special.log_bessel_i(np.arange(3.0) + 0.5, 2.0)  # compiles (or loads) the 4-point program
    assert _compiles(lambda: special.log_bessel_i(np.arange(4.0), 2.0)) == 0
    assert _compiles(lambda: special.log_bessel_i(np.arange(4.0).reshape(2, 2), 2.0)) == 0
    assert special.log_bessel_i(np.arange(4.0).reshape(2, 2), 2.0).shape == (2, 2)
    assert special.log_bessel_i(np.float32([1.0, 2.0, 3.0]), np.float32(2.0)).dtype == np.float32
    assert special.log_bessel_i(np.zeros((0, 3)), 1.0).shape == (0, 3)


def test_bucketed_functions_keep_shapes_and_tuples():
    value, err = fisher.ncx2_amplitude_fisher([[1.0, 200.0]], [0.3, 20.0], return_error=True)
    assert value.shape == err.shape == (1, 2)
    assert stats.ncx2.logsf(np.full((2, 3), 5.0), 3.0, 2.0).shape == (2, 3)


def test_accountant_memoizes_per_mechanism(monkeypatch):
    mech = SyntheticReleaseMechanism(d=20, k=1, C=1.0, sensitivity=0.5)
    first = mech.rdp([2.0, 4.0], details=True)

    def no_search(*args, **kwargs):
        raise AssertionError("a memoized order was searched again")

    with monkeypatch.context() as patch:
        patch.setattr(SyntheticReleaseMechanism, "_worst_case", no_search)
        again = mech.rdp([4.0, 2.0], details=True)
    np.testing.assert_array_equal(again.values, first.values[::-1])
    np.testing.assert_array_equal(again.a, first.a[::-1])
    assert again.method == first.method == "exact"
    # A new order is computed (and equals a fresh mechanism's value); equal mechanisms compare
    # equal whatever their memos hold.
    fresh = SyntheticReleaseMechanism(d=20, k=1, C=1.0, sensitivity=0.5)
    assert fresh == mech
    np.testing.assert_array_equal(mech.rdp([2.0, 8.0]), fresh.rdp([2.0, 8.0]))


@pytest.mark.parametrize("name, value, wanted", [
    ("FISHERRDP_CACHE_MAX_BYTES", "", config.CACHE_MAX_BYTES),
    ("FISHERRDP_CACHE_MAX_BYTES", "-1", -1),
    ("FISHERRDP_CACHE_MAX_BYTES", "1000", 1000),
    ("FISHERRDP_CACHE_MIN_COMPILE_SECONDS", "", config.CACHE_MIN_COMPILE_SECONDS),
    ("FISHERRDP_CACHE_MIN_COMPILE_SECONDS", "0", 0.0),
])
def test_cache_settings_from_the_environment(monkeypatch, name, value, wanted):
    monkeypatch.setenv(name, value)
    read = {"FISHERRDP_CACHE_MAX_BYTES": config.cache_max_bytes,
            "FISHERRDP_CACHE_MIN_COMPILE_SECONDS": config.cache_min_compile_seconds}[name]
    assert read() == wanted


@pytest.mark.parametrize("name, value", [
    ("FISHERRDP_CACHE_MAX_BYTES", "0"),
    ("FISHERRDP_CACHE_MAX_BYTES", "-2"),
    ("FISHERRDP_CACHE_MAX_BYTES", "1.5e9"),
    ("FISHERRDP_CACHE_MIN_COMPILE_SECONDS", "-0.1"),
    ("FISHERRDP_CACHE_MIN_COMPILE_SECONDS", "nan"),
    ("FISHERRDP_CACHE_MIN_COMPILE_SECONDS", "soon"),
])
def test_bad_cache_settings_raise_naming_the_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ValueError, match=f"{name} must be"):
        config.cache_max_bytes() if "BYTES" in name else config.cache_min_compile_seconds()

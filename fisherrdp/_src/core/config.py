"""Working precision and the compilation cache, decided in one place.

fisherrdp computes in float64 by default: importing :mod:`fisherrdp` turns on JAX's
``jax_enable_x64`` flag, unless the environment variable ``FISHERRDP_NO_X64`` is set to a
non-empty value other than ``0``. Arrays passed in as float32 are still computed in float32
(with float32 accuracy); Python scalars and integer arrays are promoted to the default float
type (float64 when x64 is on).

Importing fisherrdp also turns on JAX's persistent compilation cache, so that a kernel compiled
by one process is loaded (not compiled again) by the next: a new Python process, a restarted
notebook kernel, the next CLI command. The cache lives in

1. ``$FISHERRDP_CACHE_DIR`` if that is set, else
2. ``$XDG_CACHE_HOME/fisherrdp`` if ``XDG_CACHE_HOME`` is set, else
3. ``~/.cache/fisherrdp``;

``FISHERRDP_NO_CACHE=1`` turns it off, and a cache directory chosen before the import (for
example ``jax.config.update("jax_compilation_cache_dir", ...)`` or ``JAX_COMPILATION_CACHE_DIR``)
is left alone. Entries are JAX's own: each key is a SHA-256 over the serialized program, the
jaxlib version, the backend and its version, the devices, the XLA flags and the compile options
(``jax/_src/cache_key.py``), so a new JAX (jax and jaxlib are released in lockstep) or a
fisherrdp whose program differs never loads a stale entry, and an unchanged program is shared
across fisherrdp versions. The cache is bounded (:data:`CACHE_MAX_BYTES`, least recently used
entries are evicted; ``FISHERRDP_CACHE_MAX_BYTES`` sets another bound, ``-1`` none), and reads,
writes and evictions take a file lock (``filelock``), so concurrent processes (pytest-xdist
workers, parallel CLI runs, ``jax.distributed`` processes on one host) can share it; a bounded
cache may still lose an entry written by one process while another writes (jax-ml/jax#39880:
the entry is compiled again later), which an unbounded one cannot. Only programs that took at
least :data:`CACHE_MIN_COMPILE_SECONDS` to compile are stored.

JAX's bounded cache keeps an access-time file beside each entry and cannot store anything new
while one entry lacks it (every write then fails with a warning ``Error writing persistent
compilation cache entry … -atime``). Such orphans appear when a process is killed between the
two writes, or when an unbounded JAX cache used the same directory; the import repairs them
(:func:`repair_compilation_cache`).
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import pathlib
import time

import jax
import jax.numpy as jnp
import numpy as np


def enable_x64_by_default() -> None:
    """Turn on float64 in JAX unless ``FISHERRDP_NO_X64`` asks otherwise."""
    flag = os.environ.get("FISHERRDP_NO_X64", "")
    if flag in ("", "0"):
        jax.config.update("jax_enable_x64", True)


CACHE_MAX_BYTES = 1 << 30
"""Default bound on the size of the compilation cache (1 GiB; the test suite's measured 138 MB).

``FISHERRDP_CACHE_MAX_BYTES`` sets another bound in bytes; ``-1`` makes the cache unbounded (no
eviction and no access-time files). The test suite runs unbounded: JAX's bounded cache reads
every entry's access-time file before each write, and a write fails when another process is
writing an entry at that moment (jax-ml/jax#39880), so many concurrent writers lose entries.
"""


def _env_number(name: str, default, convert, valid, requirement: str):
    """The number in environment variable ``name`` (``default`` when unset or empty).

    Raises:
        ValueError: naming the variable and ``requirement`` when ``convert`` fails or ``valid``
            rejects the value.
    """
    raw = os.environ.get(name, "")
    if not raw:
        return default
    try:
        value = convert(raw)
    except ValueError:
        value = None
    if value is None or not valid(value):
        raise ValueError(f"{name} must be {requirement}, got {raw!r}")
    return value


def cache_max_bytes() -> int:
    """The compilation cache's size bound: ``FISHERRDP_CACHE_MAX_BYTES``, else the default."""
    return _env_number("FISHERRDP_CACHE_MAX_BYTES", CACHE_MAX_BYTES, int,
                       lambda v: v == -1 or v > 0, "a positive number of bytes or -1 (unbounded)")


CACHE_MIN_COMPILE_SECONDS = 0.2
"""Programs that compile faster than this are not stored (loading costs ~0.01-0.05 s).

``FISHERRDP_CACHE_MIN_COMPILE_SECONDS`` sets another threshold (the test suite stores every
program: ``0``)."""


def cache_min_compile_seconds() -> float:
    """The compile time from which a program is stored: the environment's, else the default."""
    return _env_number("FISHERRDP_CACHE_MIN_COMPILE_SECONDS", CACHE_MIN_COMPILE_SECONDS, float,
                       lambda v: v >= 0.0, "a number of seconds >= 0")


def _flag_set(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


def compilation_cache_dir() -> pathlib.Path | None:
    """Where fisherrdp keeps compiled kernels, or ``None`` when ``FISHERRDP_NO_CACHE`` is set."""
    if _flag_set("FISHERRDP_NO_CACHE"):
        return None
    explicit = os.environ.get("FISHERRDP_CACHE_DIR", "")
    if explicit:
        return pathlib.Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = pathlib.Path(xdg).expanduser() if xdg else pathlib.Path.home() / ".cache"
    return base / "fisherrdp"


def enable_compilation_cache() -> pathlib.Path | None:
    """Turn on JAX's persistent compilation cache in :func:`compilation_cache_dir`.

    Does nothing when ``FISHERRDP_NO_CACHE`` is set, or when a cache directory was already
    configured (by the user, or by a test harness). A directory that cannot be created (a
    read-only home) leaves the cache off rather than failing the import.

    Returns:
        The cache directory in use, or ``None`` when fisherrdp did not turn the cache on.
    """
    path = compilation_cache_dir()
    if path is None or jax.config.jax_compilation_cache_dir:
        return None
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    max_bytes = cache_max_bytes()
    if max_bytes != -1:
        repair_compilation_cache(path)
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", cache_min_compile_seconds())
    jax.config.update("jax_compilation_cache_max_size", max_bytes)
    return path


def repair_compilation_cache(path: pathlib.Path) -> int:
    """Give every entry of the cache at ``path`` its access-time file.

    An entry without one (left by a process killed while writing it, or by an unbounded cache)
    makes every later write of JAX's bounded cache fail. The missing files get the current time.
    Import time pays one directory listing; the cache's lock is taken only when an entry lacks
    its file (and the repair is skipped if the lock stays busy for a second, or the directory
    cannot be written).

    Returns:
        The number of access-time files written.
    """

    def orphans():
        names = {p.name for p in path.iterdir()}
        return [n[: -len("-cache")] for n in names
                if n.endswith("-cache") and n[: -len("-cache")] + "-atime" not in names]

    import filelock

    written = 0
    try:
        if not orphans():
            return 0
        with filelock.FileLock(str(path / ".lockfile"), timeout=1.0):
            now = time.time_ns().to_bytes(8, "little")
            for key in orphans():  # again under the lock: a writer may have finished meanwhile
                (path / f"{key}-atime").write_bytes(now)
                written += 1
    except (filelock.Timeout, OSError):
        pass
    return written


def float_dtype(*args) -> np.dtype:
    """The floating dtype in which to compute on ``args`` (ints promote to the default float)."""
    return jnp.result_type(*args, float)


def needs_compensation(dtype) -> bool:
    """True for float32 (and narrower floats): kernels then take their compensated forms, the
    ones that keep terms of size ~df from cancelling (``docs/howto/float32.md``); float64
    keeps the forms its accuracy claims and snapshot were measured with."""
    return np.dtype(dtype).itemsize < 8


def for_precision(dtype, double, single):
    """``single`` for float32 (and narrower floats) ``dtype``, ``double`` for float64: how a
    kernel sizes a rule (nodes per panel, terms) to its working precision, by the same switch as
    :func:`needs_compensation`. Example: ``for_precision(jnp.float32, 16, 8)`` is 8."""
    return single if needs_compensation(dtype) else double


def for_device(cpu, accelerator):
    """``cpu`` where the local devices are CPUs, ``accelerator`` elsewhere: how a kernel sizes
    what it computes at once (a CPU's vector units fill with far fewer points than a GPU or a
    TPU). Example: on a CPU, ``for_device(32, 256)`` is 32."""
    return cpu if jax.local_devices()[0].platform == "cpu" else accelerator


_AS_ON_A_TPU = contextvars.ContextVar("fisherrdp_as_on_a_tpu", default=False)


def wide_dtype(dtype) -> np.dtype:
    """The dtype of the few steps that float32 cannot carry: float64 for float32 ``dtype`` when
    ``jax_enable_x64`` is on and the default backend is not a TPU (TPUs have no float64
    hardware), else ``dtype`` (also inside :func:`as_on_a_tpu`).

    For float32 inputs, a kernel may compute a small, cancellation-prone part (a search that
    places quadrature nodes, say) in this dtype and cast the result back.
    """
    dtype = np.dtype(dtype)
    if (dtype == np.float32 and jax.config.jax_enable_x64 and jax.default_backend() != "tpu"
            and not _AS_ON_A_TPU.get()):
        return np.dtype(np.float64)
    return dtype


@contextlib.contextmanager
def as_on_a_tpu():
    """Trace what a TPU runs: inside, :func:`wide_dtype` of float32 is float32, as it is where
    the default backend is a TPU, so that a program exported for TPUs from a CPU or GPU process
    (``jax.export`` with ``platforms=("tpu",)``) has no float64 step. JAX's in-memory caches
    are cleared on entry and on exit, so that no trace of the other kind is reused.

    Examples:
        >>> import numpy as np
        >>> from fisherrdp._src.core.config import as_on_a_tpu, wide_dtype
        >>> with as_on_a_tpu():
        ...     print(wide_dtype(np.float32))
        float32
    """
    token = _AS_ON_A_TPU.set(True)
    jax.clear_caches()
    try:
        yield
    finally:
        _AS_ON_A_TPU.reset(token)
        jax.clear_caches()


def in_wide_dtype(fn, *args):
    """``fn(*args)`` computed in :func:`wide_dtype` of the first argument's dtype, and its
    result (a pytree of arrays) cast back to that dtype. For float64 inputs it is ``fn(*args)``."""
    dtype = jnp.result_type(args[0])
    wide = wide_dtype(dtype)
    if wide == dtype:
        return fn(*args)
    out = fn(*(jnp.asarray(x, wide) for x in args))
    return jax.tree.map(lambda x: x.astype(dtype), out)


def as_float_arrays(*args):
    """Convert ``args`` (arrays, scalars, nested lists) to arrays of one common floating dtype."""
    args = tuple(np.asarray(a) if isinstance(a, (list, tuple)) else a for a in args)
    dtype = float_dtype(*args)
    # Host values are converted by NumPy (the same rounding) and put on the device: jnp's
    # conversion of a Python or NumPy value runs a program (loaded from the cache on a warm
    # first call, ~0.04 s).
    host = (int, float, np.ndarray, np.generic)
    return tuple(jax.device_put(np.asarray(a, dtype)) if isinstance(a, host)
                 else jnp.asarray(a, dtype) for a in args)

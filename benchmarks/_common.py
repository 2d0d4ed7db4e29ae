"""Helpers shared by the scripts in ``benchmarks/``: timing, JSON output, the environment.

A benchmark imports it after putting its own folder on ``sys.path`` (the scripts are run as
``python benchmarks/bench_x.py`` and loaded by file path in ``tests/test_benchmarks_smoke.py``,
so ``benchmarks/`` is not a package)::

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _common

Nothing here imports JAX at module level: :func:`environment` and :func:`environment_lines`
import it when called (a parent process that only starts workers, as ``bench_scan.py`` does,
must not initialise an accelerator it would then hold).
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

#: The repository root (the folder above ``benchmarks/``).
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def import_fisherrdp():
    """``import fisherrdp``, from the checkout if it is not installed (``pip install -e .``)."""
    try:
        import fisherrdp
    except ImportError:  # run from a checkout without `pip install -e .`
        sys.path.insert(0, REPO_ROOT)
        import fisherrdp
    return fisherrdp


def time_runs(fn: Callable[[], Any], runs: int) -> list[float]:
    """Wall times of ``runs`` calls of ``fn`` (``time.perf_counter``), in seconds.

    ``fn`` must wait for its own results (``block_until_ready`` or a copy to NumPy).
    """
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def median(values) -> float:
    """The median of a non-empty sequence of numbers, as a float."""
    return float(statistics.median(values))


def write_json(path: str | None, results: dict, *, quiet: bool = False, announce: bool = True,
               indent: int = 2) -> None:
    """Write ``results`` as JSON to ``path`` (folders made as needed); nothing if ``path`` is
    None. Prints ``wrote PATH`` unless ``quiet`` or not ``announce``."""
    if not path:
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        json.dump(results, f, indent=indent)
    if announce and not quiet:
        print(f"wrote {path}")


def read_block(path: str, begin: str, end: str) -> str:
    """The text of the page ``path`` between the markers ``begin`` and ``end``, stripped."""
    with open(path) as fh:
        return fh.read().split(begin)[1].split(end)[0].strip()


def write_block(path: str, begin: str, end: str, text: str) -> None:
    """Replace what the page ``path`` holds between the markers ``begin`` and ``end`` (a table
    generated from a measurement) by ``text``."""
    with open(path) as fh:
        before, rest = fh.read().split(begin)
    _, after = rest.split(end)
    with open(path, "w") as fh:
        fh.write(before + begin + "\n" + text + "\n" + end + after)


def cpu_count() -> int:
    """CPU cores this process may run on (the affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages (None where the OS has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):  # pragma: no cover
        return None


def peak_rss_bytes() -> int:
    """Peak resident memory of this process so far (``getrusage`` ``ru_maxrss``), in bytes."""
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(rss if sys.platform == "darwin" else rss * 1024)  # bytes on macOS, KiB on Linux


def device_memory() -> list[dict] | None:
    """Per local device: peak and current bytes in use and the limit, from
    ``device.memory_stats()``; None where no device reports them (the CPU)."""
    import jax

    out = []
    for dev in jax.local_devices():
        try:
            stats = dev.memory_stats()
        except Exception:  # noqa: BLE001 - not implemented on some backends
            stats = None
        if not stats:
            continue
        out.append({
            "device": str(dev),
            "peak_bytes_in_use": stats.get("peak_bytes_in_use"),
            "bytes_in_use": stats.get("bytes_in_use"),
            "bytes_limit": stats.get("bytes_limit"),
        })
    return out or None


def environment() -> dict:
    """The machine and software a benchmark ran on, as a JSON-able dict (imports JAX)."""
    import jax
    import numpy as np

    fisherrdp = import_fisherrdp()
    try:
        import scipy

        scipy_version = scipy.__version__
    except ImportError:  # pragma: no cover
        scipy_version = None
    devices = jax.devices()
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpu_affinity": cpu_count(),
        "load_average": load_average(),
        "jax_version": jax.__version__,
        "jaxlib_version": _jaxlib_version(),
        "numpy_version": np.__version__,
        "scipy_version": scipy_version,
        "fisherrdp_version": fisherrdp.__version__,
        "backend": devices[0].platform,
        "jax_devices": [str(d) for d in devices],
        "device_kinds": sorted({getattr(d, "device_kind", "?") for d in devices}),
        "x64": bool(jax.config.jax_enable_x64),
        "XLA_FLAGS": os.environ.get("XLA_FLAGS", ""),
        "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
    }


def _jaxlib_version() -> str | None:
    try:
        import jaxlib

        return jaxlib.__version__
    except Exception:  # noqa: BLE001
        return None


def environment_lines() -> list[str]:
    """The two header lines the benchmarks print (versions; cores and JAX devices)."""
    import jax
    import numpy as np
    import scipy

    fisherrdp = import_fisherrdp()
    return [
        f"python {platform.python_version()}, jax {jax.__version__}, numpy {np.__version__}, "
        f"scipy {scipy.__version__}, fisherrdp {fisherrdp.__version__}",
        f"cpu: os.cpu_count()={os.cpu_count()}, {platform.processor() or platform.machine()}; "
        f"jax devices: {jax.devices()}; x64={jax.config.jax_enable_x64}",
    ]

"""A census of XLA compilations: every compile and persistent-cache load, and the test behind it.

Off by default. ``FISHERRDP_CENSUS=DIR pytest`` writes one JSON line
per event to ``DIR/<pid>.jsonl``, from the pytest processes (controller and xdist workers) and
from every Python process the tests start (CLI commands, scan workers, benchmark children): the
plugin puts ``helpers/census_site`` first on ``PYTHONPATH``, whose ``sitecustomize`` installs the
same listeners once JAX's compiler module is imported (the environment is left alone until then,
so a process may still set ``XLA_FLAGS`` or ``JAX_PLATFORMS`` before it imports JAX).

Each event has ``kind`` (``trace``: jaxpr tracing; ``lower``: jaxpr → StableHLO; ``compile``: XLA
compilation; ``load``: a persistent-cache hit, whose seconds are the retrieval; ``write``: an
entry stored; ``write_failed``: an entry JAX could not store, with the error), the program's
``name``, its input ``shapes`` (dtype[shape] per argument, for lower/compile/load), its
persistent-cache ``key`` (compile/load: one key per distinct program, static arguments and
closed-over constants included), ``seconds``,
the ``test`` (``PYTEST_CURRENT_TEST``, inherited by child processes), and the ``pid``.
``python tests/helpers/census_report.py DIR`` summarises them per kernel.
"""

from __future__ import annotations

import json
import logging
import os
import pathlib
import threading
import time

ENV = "FISHERRDP_CENSUS"
SITE = pathlib.Path(__file__).resolve().parent / "census_site"

_state = threading.local()
_lock = threading.Lock()


def _write(path: pathlib.Path, event: dict) -> None:
    event.update(pid=os.getpid(), test=os.environ.get("PYTEST_CURRENT_TEST", ""), time=time.time())
    line = json.dumps(event) + "\n"
    with _lock, open(path / f"{os.getpid()}.jsonl", "a") as f:
        f.write(line)


class _ShapesFromLog(logging.Handler):
    """Takes the input avals from pxla's "Compiling NAME with global shapes and types" record,
    and the program's persistent-cache key from the compiler's hit and miss records."""

    def emit(self, record):
        if not isinstance(record.msg, str):
            return
        if record.msg.startswith("Compiling %s with global shapes"):
            name, avals = record.args[0], record.args[1]
            shapes = [a.str_short() if hasattr(a, "str_short") else str(a) for a in avals]
            _state.shapes = (str(name), shapes)
        elif "compilation cache hit for" in record.msg or "COMPILATION CACHE MISS for" in record.msg:
            _state.key = str(record.args[1])


def install(directory: str | os.PathLike) -> None:
    """Record this process's compile events in ``directory`` (idempotent)."""
    from jax._src import compilation_cache, dispatch, monitoring

    # Once per process, whichever copy of this module (conftest's or sitecustomize's) comes first.
    if getattr(monitoring, "_fisherrdp_census", False):
        return
    monitoring._fisherrdp_census = True
    path = pathlib.Path(directory)
    path.mkdir(parents=True, exist_ok=True)

    kinds = {dispatch.JAXPR_TRACE_EVENT: "trace", dispatch.JAXPR_TO_MLIR_MODULE_EVENT: "lower",
             dispatch.BACKEND_COMPILE_EVENT: "compile"}

    def on_event(event, **kwargs):
        if event == "/jax/compilation_cache/cache_hits":
            _state.hit = True

    def on_duration(event, seconds, **kwargs):
        kind = kinds.get(event)
        if kind is None:
            return
        name = str(kwargs.get("fun_name", ""))
        record = {"kind": kind, "name": name, "seconds": float(seconds)}
        if kind in ("lower", "compile"):
            shaped = getattr(_state, "shapes", None)
            if shaped is not None:
                record["shapes"] = shaped[1]
                if shaped[0] not in (name, f"jit_{name}"):
                    record["shapes_of"] = shaped[0]  # the last "Compiling" record was another's
        if kind == "compile":
            key, _state.key = getattr(_state, "key", None), None
            if key:
                record["key"] = key[-64:]
        if kind == "compile" and getattr(_state, "hit", False):
            record["kind"] = "load"
            _state.hit = False
        _write(path, record)

    monitoring.register_event_listener(on_event)
    monitoring.register_event_duration_secs_listener(on_duration)

    original_put = compilation_cache.put_executable_and_time

    def put_executable_and_time(cache_key, module_name, *args, **kwargs):
        try:
            result = original_put(cache_key, module_name, *args, **kwargs)
        except Exception as exc:
            _write(path, {"kind": "write_failed", "name": str(module_name),
                          "error": f"{type(exc).__name__}: {exc}"[:300]})
            raise
        _write(path, {"kind": "write", "name": str(module_name)})
        return result

    compilation_cache.put_executable_and_time = put_executable_and_time

    handler = _ShapesFromLog(logging.DEBUG)
    for name in ("jax._src.interpreters.pxla", "jax._src.compiler"):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        if logger.getEffectiveLevel() > logging.DEBUG:
            logger.setLevel(logging.DEBUG)
            # Only these records are wanted: keep the debug records out of other handlers.
            for other in logging.getLogger().handlers:
                other.addFilter(lambda r, n=name: r.name != n or r.levelno > logging.DEBUG)


def enable_in_children(directory: str) -> None:
    """Make every Python process started from here on record into ``directory`` too."""
    os.environ[ENV] = directory
    parts = [str(SITE)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(parts))


# ----------------------------------------------------------------------------------------------
# pytest hook (conftest.py imports it): on in every pytest process when FISHERRDP_CENSUS is set


def pytest_configure(config):
    directory = os.environ.get(ENV, "")
    if directory:
        directory = str(pathlib.Path(directory).resolve())
        enable_in_children(directory)
        install(directory)

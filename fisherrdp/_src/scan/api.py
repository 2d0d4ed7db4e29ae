"""Scans of any elementwise quantity over a parameter grid: every device, a zarr store, resume."""

from __future__ import annotations

import dataclasses
import itertools
import math
import time
from collections.abc import Callable, Mapping
from typing import Any

import jax
import numpy as np

from fisherrdp._src.core import engine
from fisherrdp._src.core.config import for_device
from fisherrdp._src.scan.grid import Layout, Points, make_layout
from fisherrdp._src.scan.registry import Quantity, resolve
from fisherrdp._src.scan.store import Store, check_existing, open_store

__all__ = ["ScanResult", "load", "scan"]

#: Default chunk multiplier on accelerators (a GPU wants far more points per call than a core).
ACCELERATOR_CHUNK_FACTOR = 16


@dataclasses.dataclass
class ScanResult:
    """The outputs of a scan on its grid.

    Attributes:
        quantity: Name of the quantity.
        dims: Dimension names: the grid's axes, or ``("point",)`` for an explicit point list.
        coords: Coordinates (one 1-D array per axis; per parameter along ``point``).
        scalars: Parameters held fixed.
        attrs: Run attributes: quantity, fisherrdp and JAX versions, devices, processes, dtype,
            seconds (wall time of the compute, summed over the runs that finished: a run
            interrupted before its end records no time), chunk and blocks;
            and, for this call only, ``run_seconds``, ``compile_seconds`` (the first dispatch,
            which compiles or loads the program) and ``computed_points`` (in this process).
        computed_blocks: Blocks computed by this call, in this process.
        resumed_blocks: Blocks found finished in the store and not recomputed.
        store: Path of the zarr store, or ``None``.
    """

    quantity: str
    dims: tuple[str, ...]
    coords: dict[str, np.ndarray]
    scalars: dict[str, float]
    attrs: dict[str, Any]
    outputs: tuple[str, ...]
    computed_blocks: int = 0
    resumed_blocks: int = 0
    store: str | None = None
    _data: dict[str, np.ndarray] | None = dataclasses.field(default=None, repr=False)

    @property
    def data(self) -> dict[str, np.ndarray]:
        """Every output, shaped like the grid (read from the store on first use)."""
        if self._data is None:
            from fisherrdp._src.scan.store import import_zarr

            group = import_zarr().open_group(self.store, mode="r")
            self._data = {name: np.asarray(group[name][...]) for name in self.outputs}
        return self._data

    @property
    def values(self) -> np.ndarray:
        """The first output (the quantity itself; e.g. ``fisher`` rather than its error)."""
        return self.data[self.outputs[0]]

    @property
    def shape(self) -> tuple[int, ...]:
        return self.values.shape[: len(self.dims)]

    def __getitem__(self, name: str) -> np.ndarray:
        return self.data[name]

    def to_numpy(self, output: str | None = None) -> np.ndarray:
        """One output as a NumPy array of the grid's shape (default: the first)."""
        return self.data[output or self.outputs[0]]

    def to_xarray(self):
        """An :class:`xarray.Dataset`: one variable per output, coordinates, attributes."""
        import xarray as xr

        data_vars = {}
        for name, value in self.data.items():
            extra = [f"{name}_dim_{j}" for j in range(value.ndim - len(self.dims))]
            data_vars[name] = (list(self.dims) + extra, value)
        if self.dims == ("point",):
            coords = {name: ("point", v) for name, v in self.coords.items()}
        else:
            coords = {name: (name, v) for name, v in self.coords.items()}
        coords.update(self.scalars)
        return xr.Dataset(data_vars, coords=coords, attrs=_netcdf_safe(self.attrs))


def _netcdf_safe(attrs: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (", ".join(map(str, v)) if isinstance(v, (list, tuple)) else v)
            for k, v in attrs.items()}


def _output_spec(q: Quantity, kernel, size: int, dtype) -> dict[str, tuple]:
    """Output names → (dtype, trailing shape), from the abstract evaluation of ``kernel``
    (:func:`engine.stored_kernel` on ``size`` points: a kernel kept on disk is not traced; a
    kept executable states its outputs, ``out_info``)."""
    if isinstance(kernel, jax.stages.Compiled):
        shapes = engine.as_tuple(kernel.out_info)
    else:
        args = [jax.ShapeDtypeStruct((size,), dtype) for _ in q.params]
        shapes = engine.as_tuple(jax.eval_shape(kernel, *args))
    names = q.outputs or (
        (q.name,) if len(shapes) == 1 else tuple(f"{q.name}_{i}" for i in range(len(shapes)))
    )
    if len(names) != len(shapes):
        raise ValueError(f"{q.name}: {len(shapes)} outputs but {len(names)} output names")
    for name, s in zip(names, shapes):
        if s.shape[:1] != (size,):
            raise ValueError(f"{q.name} is not elementwise: output {name!r} has shape {s.shape}")
    return {name: (np.dtype(s.dtype), tuple(s.shape[1:])) for name, s in zip(names, shapes)}


def _working_dtype(dtype) -> np.dtype:
    default = np.dtype(np.float64 if jax.config.jax_enable_x64 else np.float32)
    dt = default if dtype is None else np.dtype(dtype)
    if dt not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise ValueError(f"dtype must be float32 or float64, got {dt}")
    if dt == np.float64 and not jax.config.jax_enable_x64:
        raise ValueError("dtype float64 needs jax_enable_x64 (unset FISHERRDP_NO_X64)")
    return dt


def default_chunk(q: Quantity) -> int:
    """Points per block (per device and call) when none is given; larger on accelerators."""
    return q.chunk * for_device(1, ACCELERATOR_CHUNK_FACTOR)


#: How long a process waits at a barrier for the others (they may still be compiling).
BARRIER_TIMEOUT_S = 1800
_barriers = itertools.count()


def barrier(name: str, *, timeout_s: float = BARRIER_TIMEOUT_S) -> None:
    """Wait for every process of ``jax.distributed`` (nothing to wait for with one process).

    The wait is on the coordination service, which needs no device collective, so its timeout
    is ours to set; a device collective (``sync_global_devices``) sets up its Gloo context with a
    fixed 30 s wait, which a process still compiling or importing can miss. :func:`scan` calls
    it after opening a store and after its last block. Call it yourself before a script ends
    when its processes may finish their other work minutes apart: ``jax.distributed`` shuts
    down at exit with a barrier of its own whose timeout (``shutdown_timeout_seconds`` of
    ``jax.distributed.initialize``, 300 s by default) would otherwise kill every process, after
    its work, as soon as one has waited that long for a slower one.

    Every process must call the barriers in the same order (a counter makes each name unique).

    Args:
        name: Names the barrier in the coordination service's errors.
        timeout_s: How long to wait for the slowest process before raising.

    Examples:
        >>> from fisherrdp.scan import barrier
        >>> barrier("end-of-script")  # returns at once in a single process
    """
    if jax.process_count() == 1:
        return
    from jax._src import distributed

    client = distributed.global_state.client
    name = f"{name}-{next(_barriers)}"
    if client is not None and hasattr(client, "wait_at_barrier"):
        client.wait_at_barrier(name, timeout_in_ms=int(timeout_s * 1000))
    else:  # pragma: no cover - a JAX without the client's barrier
        from jax.experimental import multihost_utils

        multihost_utils.sync_global_devices(name)


def scan(
    quantity: str | Callable | Quantity,
    grid: Mapping[str, Any] | Points,
    *,
    chunk: int | None = None,
    store: str | None = None,
    dtype=None,
    progress: bool = True,
) -> ScanResult:
    """Evaluate a quantity on every point of a grid, on every local device, chunk by chunk.

    The grid's points are cut into blocks of at most ``chunk`` points (one compiled program per
    quantity, dtype, chunk size and device count, whatever the grid size); each call evaluates
    one block on each local device (:mod:`fisherrdp._src.core.engine`), and the next call is
    dispatched before the previous one is fetched. With ``store``, blocks are written to a zarr store as they finish and a
    second call with the same store computes only the blocks still missing.

    **Several processes** (``jax.distributed.initialize()`` before the call, one process per
    host): block ``i`` belongs to process ``i mod process_count``, which computes it on its own
    devices (and writes it to the store, which must then be on a file system every process
    sees). Every process returns the full result: after a barrier, from the store, or without
    a store by an all-gather of the blocks.

    Args:
        quantity: A registered name (see :func:`fisherrdp.scan.quantities`), a
            :class:`Quantity`, or any elementwise JAX function (its positional parameter names
            are the axis names; outputs: one array or a tuple).
        grid: A dict of named axes, parameter name → 1-D array (cartesian product; the
            result's axes come in the dict's order) or scalar (held fixed); or
            :func:`fisherrdp.scan.points` for an explicit list of points.
        chunk: Points per block: per device and call (default: the quantity's CPU chunk, ×16 on
            accelerators). A resumed store keeps its own chunk; a different one raises.
        store: Path of a zarr store to write to and resume from.
        dtype: ``"float32"`` or ``"float64"`` (default: float64, or float32 without x64).
        progress: Show a tqdm progress bar (points/s, ETA) on process 0.

    Returns:
        A :class:`ScanResult`. With a store, outputs are read from it when first used (memory
        during the scan is bounded by a few blocks whatever the grid size).

    Raises:
        ValueError: Unknown quantity (the message lists the registered ones), an axis that is
            not a parameter, a missing parameter, an empty axis, NaN or a value out of a
            parameter's range (the message names the axis), a bad dtype or chunk, or a store
            made for another scan.

    Examples:
        >>> from fisherrdp.scan import scan
        >>> r = scan("fisher_upper_prop51", {"d": [10.0, 100.0], "theta": [0.5, 1.0, 2.0]},
        ...          progress=False)
        >>> r.values.shape, r.dims
        ((2, 3), ('d', 'theta'))
        >>> print(f"{r.values[0, 2]:.6f}")  # 2θ²/(2θ² + d − 3) at d = 10, θ = 2
        0.533333
    """
    q = resolve(quantity)
    dt = _working_dtype(dtype)
    if chunk is not None and (int(chunk) != chunk or chunk < 1):
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
    if store is not None and chunk is None:
        chunk = _stored_chunk(store)
    chunk = int(chunk) if chunk is not None else default_chunk(q)
    layout = make_layout(grid, q.params, chunk)  # checks names, emptiness, NaN
    q.check({**layout.coords, **layout.scalars})
    # Points per block and device: the chunk, or for a grid smaller than a chunk the next power
    # of two (few distinct programs for small grids).
    size = engine.bucket_size(max(layout.size, 1), chunk)
    n_dev = engine.local_device_count()
    kernel = engine.stored_kernel(q.fn, (), size * n_dev, (dt,) * len(q.params))
    outputs = _output_spec(q, kernel, size * n_dev, dt)
    names = tuple(outputs)
    pid, nproc = jax.process_index(), jax.process_count()

    opened: Store | None = None
    if store is not None:
        # Every process checks the store, then process 0 makes it: a process that checked while
        # process 0 was making it would see a half-made store and raise (and the others then
        # die at jax.distributed's shutdown), so the checks end at a barrier before it starts.
        check_existing(store, q.name, q.params, outputs, layout, dt)
        # Barrier names carry the quantity, not the store's path: hosts may mount the shared
        # store at different paths (a counter in barrier() makes each name unique).
        barrier(f"fisherrdp-scan-checked-{q.name}")
        if pid == 0:
            opened = open_store(store, q.name, q.params, outputs, layout, dt, create=True)
            if "chunk" not in opened.run_attributes():
                opened.set_run_attributes({"chunk": chunk})
        barrier(f"fisherrdp-scan-open-{q.name}")
        if pid != 0:
            opened = open_store(store, q.name, q.params, outputs, layout, dt, create=False)
        done = opened.done()
    else:
        done = np.zeros(layout.n_blocks, bool)
    todo = [i for i in range(layout.n_blocks) if i % nproc == pid and not done[i]]
    data = None if opened else {
        n: np.full(layout.shape + extra, np.nan, d) for n, (d, extra) in outputs.items()
    }

    bar_total = sum(math.prod(s.stop - s.start for s in layout.block_slices(i)) for i in todo)
    bar = _progress_bar(progress and pid == 0, bar_total, q.name)

    # One block per device and call; the last call repeats its last block on idle devices.
    groups = [todo[i : i + n_dev] for i in range(0, len(todo), n_dev)]

    def make_inputs(group):
        blocks = [layout.block_inputs(i, q.params, size, dt) for i in group]
        blocks += [blocks[-1]] * (n_dev - len(group))
        return [np.concatenate(columns) for columns in zip(*blocks)]

    def consume(group, values):
        for j, i in enumerate(group):
            slices = layout.block_slices(i)
            shape = tuple(s.stop - s.start for s in slices)
            n = math.prod(shape)
            parts = {name: v[j * size : j * size + n].reshape(shape + v.shape[1:])
                     for name, v in zip(names, values)}
            if opened is not None:
                opened.write(i, slices, parts)
            else:
                for name, v in parts.items():
                    data[name][slices] = v
            bar.update(n)

    start = time.perf_counter()
    _, compile_seconds = engine.run_pipelined(kernel, groups, make_inputs, consume)
    computed = len(todo)
    seconds = time.perf_counter() - start
    bar.close()
    computed_points = bar_total

    if nproc > 1:
        barrier(f"fisherrdp-scan-done-{q.name}")
        if opened is None:
            data = _gather(layout, data)
    attrs = _run_attributes(q, dt, chunk, size, layout, seconds, opened)
    attrs.update(run_seconds=seconds, compile_seconds=compile_seconds,
                 computed_points=computed_points)
    if opened is not None and pid == 0:
        opened.set_run_attributes(attrs)
    return ScanResult(
        quantity=q.name,
        dims=layout.dims,
        coords=layout.coords,
        scalars=layout.scalars,
        attrs=attrs,
        outputs=names,
        computed_blocks=computed,
        resumed_blocks=int(done.sum()),
        store=store,
        _data=data,
    )


def _stored_chunk(path: str) -> int | None:
    """The chunk a store was made with (``None`` if there is no store yet)."""
    from fisherrdp._src.scan.store import import_zarr

    try:
        group = import_zarr().open_group(path, mode="r")
    except Exception:  # noqa: BLE001 - no store at path yet, or none zarr can read: no chunk
        return None
    run = dict(group.attrs.get("fisherrdp_run", {}))
    return int(run["chunk"]) if "chunk" in run else None


def _gather(layout: Layout, data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every process's blocks, on every process (no store): all-gather, then pick by owner."""
    from jax.experimental import multihost_utils

    nproc = jax.process_count()
    out = {}
    for name, local in data.items():
        everyone = np.asarray(multihost_utils.process_allgather(local))
        merged = np.empty_like(local)
        for i in range(layout.n_blocks):
            s = layout.block_slices(i)
            merged[s] = everyone[i % nproc][s]
        out[name] = merged
    return out


def _run_attributes(q, dt, chunk, size, layout, seconds, opened) -> dict[str, Any]:
    from fisherrdp._src.core.version import VERSION

    devices = jax.local_devices()
    previous = opened.run_attributes() if opened is not None else {}
    return {
        "quantity": q.name,
        "source": q.source,
        "params": list(q.params),
        "fisherrdp_version": VERSION,
        "jax_version": jax.__version__,
        "devices": [str(d) for d in devices],
        "platform": devices[0].platform,
        "processes": jax.process_count(),
        "dtype": str(dt),
        "chunk": int(chunk),
        "compiled_size": int(size),
        "blocks": int(layout.n_blocks),
        "points": int(layout.size),
        "seconds": float(previous.get("seconds", 0.0)) + seconds,
    }


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress_bar(enabled: bool, total: int, name: str):
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(total=total, unit="pt", unit_scale=True, desc=f"scan {name}", smoothing=0.1)


def load(store: str) -> ScanResult:
    """The result held in a scan store (finished blocks; unfinished points are NaN).

    Args:
        store: Path of a zarr store written by :func:`scan`.

    Raises:
        ValueError: If ``store`` is not a fisherrdp scan store.
    """
    from fisherrdp._src.scan.store import IDENTITY, import_zarr

    group = import_zarr().open_group(store, mode="r")
    if IDENTITY not in group.attrs:
        raise ValueError(f"{store!r} is not a fisherrdp scan store")
    identity = dict(group.attrs[IDENTITY])
    run = dict(group.attrs.get("fisherrdp_run", {}))
    dims = tuple(identity["dims"])
    coords_names = identity["params"] if identity["explicit"] else dims
    coords = {n: np.asarray(group[n][...]) for n in coords_names if n in group}
    done = np.asarray(group["progress/done"][...]).astype(bool)
    return ScanResult(
        quantity=identity["quantity"],
        dims=dims,
        coords=coords,
        scalars=dict(identity["scalars"]),
        attrs=run,
        outputs=tuple(identity["outputs"]),
        resumed_blocks=int(done.sum()),
        store=store,
    )

"""Evaluate elementwise JAX functions in fixed-size chunks, sharded over every local device.

This is the one chunking mechanism of fisherrdp: :func:`fisherrdp.scan.scan`, ``fisherrdp
verify``, ``fisherrdp figures`` and the accountant's worst-case searches all evaluate through it.

* **Fixed size.** A jitted function compiles once per input shape. Inputs are cut into chunks of
  one size (the last one padded by repeating its last point), so a function compiles once per
  chunk size, device count and dtype, whatever the number of points.
* **Every local device.** A call evaluates one chunk *per device*: the inputs of ``n`` chunks are
  placed on a 1-D :class:`jax.sharding.Mesh` over :func:`jax.local_devices` (axis ``"points"``)
  with a :class:`~jax.sharding.NamedSharding`, and the function runs under
  :func:`jax.shard_map`, each device on its own chunk, with no communication (the functions are
  elementwise). Every device thus runs the program of one chunk, whatever the device count, so
  results do not depend on how many devices there are (bit for bit, on one platform). With
  several processes (``jax.distributed``) the mesh holds only the process's own devices; the
  scan gives each process its own chunks.
* **Pipelined.** Chunk *i + 1* is dispatched (JAX dispatch is asynchronous) before the results
  of chunk *i* are fetched, and the device-to-host copy of each result starts as soon as it is
  dispatched, so host work (building inputs, writing results) overlaps device compute.
* **Shape buckets** (:func:`map_bucketed`): eager calls of the public elementwise functions
  evaluate through :func:`map_points` with a chunk of 1, 2, 4, … points up to a cap (then
  chunks of the cap), so calls with 3, 5 or 17 points reuse the programs of 4, 8 and 32 points
  (or load them from the persistent compilation cache) instead of compiling one per shape.
"""

from __future__ import annotations

import functools
import math
import os
import re
import time
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import scipy
from jax.sharding import Mesh, NamedSharding, PartitionSpec

__all__ = [
    "AXIS",
    "as_tuple",
    "bucket_size",
    "exported_program",
    "local_device_count",
    "local_mesh",
    "map_bucketed",
    "map_points",
    "modules_imported_by",
    "run_pipelined",
    "sharded_kernel",
    "source_files",
    "source_hash",
    "stored_export",
    "stored_kernel",
]

#: Name of the mesh axis along which points are sharded.
AXIS = "points"


@functools.cache
def _mesh(devices: tuple) -> Mesh:
    return Mesh(np.array(devices), (AXIS,))


def local_mesh() -> Mesh:
    """The 1-D mesh over this process's devices (axis :data:`AXIS`)."""
    return _mesh(tuple(jax.local_devices()))


def local_device_count() -> int:
    """Devices of this process: the number of chunks evaluated per call."""
    return len(jax.local_devices())


def as_tuple(out) -> tuple:
    """A kernel's outputs as a tuple (one array, or a tuple or list of them)."""
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


@functools.cache
def _kernel(fn: Callable, static: tuple, mesh: Mesh) -> Callable:
    spec = PartitionSpec(AXIS)

    def body(*arrays):
        return as_tuple(fn(*arrays, *static))

    # Programs are named after the function (``jit_<name>`` in logs, profiles and the cache).
    body.__name__ = body.__qualname__ = getattr(fn, "__name__", "body")

    # check_vma=False: the kernels are elementwise (no collectives), and some use custom_jvp
    # and while loops that the replication checker does not follow.
    mapped = jax.shard_map(body, mesh=mesh, in_specs=spec, out_specs=spec, check_vma=False)
    return jax.jit(mapped)


def sharded_kernel(fn: Callable, static: tuple[Hashable, ...] = ()) -> Callable:
    """``fn`` compiled for chunks sharded over the local devices.

    Args:
        fn: An elementwise JAX function of 1-D arrays (then ``static``), returning an array or a
            tuple of arrays whose leading axis runs over the points. It must be hashable and
            stable (a module-level function or a jitted one): compiled programs are cached by it.
        static: Extra hashable arguments passed after the arrays (not traced).

    Returns:
        A jitted function of 1-D arrays of ``local_device_count()`` chunks each (device ``j``
        gets the ``j``-th chunk), returning a tuple of arrays sharded along their leading axis.
    """
    return _kernel(fn, tuple(static), local_mesh())


def run_pipelined(
    kernel: Callable,
    tasks: Iterable[Any],
    make_inputs: Callable[[Any], Sequence[np.ndarray]],
    consume: Callable[[Any, tuple[np.ndarray, ...]], None],
) -> tuple[int, float]:
    """Run ``kernel`` on each task's inputs, dispatching one task ahead of the fetch.

    Args:
        kernel: From :func:`sharded_kernel`.
        tasks: Task keys, in order.
        make_inputs: Host (NumPy) inputs of one task: one chunk per local device, concatenated.
        consume: Called with the task key and its outputs as NumPy arrays, in task order.

    Returns:
        ``(tasks run, seconds of the first dispatch)``: the first call of a jitted function
        traces and compiles it (or loads it from the persistent cache) before it dispatches.
    """
    sharding = NamedSharding(local_mesh(), PartitionSpec(AXIS))
    pending = None
    count = 0
    first = 0.0
    for task in tasks:
        inputs = [jax.device_put(x, sharding) for x in make_inputs(task)]
        start = time.perf_counter()
        outputs = kernel(*inputs)
        if count == 0:
            first = time.perf_counter() - start
        for out in outputs:
            out.copy_to_host_async()
        if pending is not None:
            consume(pending[0], tuple(np.asarray(o) for o in pending[1]))
        pending = (task, outputs)
        count += 1
    if pending is not None:
        consume(pending[0], tuple(np.asarray(o) for o in pending[1]))
    return count, first


def map_points(
    fn: Callable,
    arrays: Sequence[Any],
    *,
    chunk: int,
    static: tuple[Hashable, ...] = (),
    on_chunk: Callable[[], None] | None = None,
) -> tuple[np.ndarray, ...]:
    """``fn(*arrays, *static)`` for 1-D arrays of one length, ``chunk`` points per device and call.

    Args:
        fn: An elementwise JAX function (see :func:`sharded_kernel`).
        arrays: The inputs: 1-D arrays of one length ``n >= 1`` (scalars broadcast).
        chunk: Points per device and call (the compiled size of the program).
        static: Extra hashable arguments of ``fn``, after the arrays.
        on_chunk: Called after every chunk (progress bars).

    Returns:
        A tuple with one NumPy array per output of ``fn``, each with leading axis of length ``n``.

    Examples:
        >>> import jax.numpy as jnp, numpy as np
        >>> (out,) = map_points(jnp.multiply, [np.arange(5.0), 2.0], chunk=2)
        >>> out.tolist()
        [0.0, 2.0, 4.0, 6.0, 8.0]
    """
    arrays = [np.asarray(a) for a in arrays]
    n = max((a.size for a in arrays if a.ndim), default=1)
    arrays = [np.broadcast_to(a, (n,)) if a.ndim == 0 else a for a in arrays]
    if any(a.shape != (n,) for a in arrays):
        raise ValueError(f"map_points needs 1-D arrays of one length, got {[a.shape for a in arrays]}")
    size = int(chunk) * local_device_count()
    starts = range(0, n, size)
    parts: list[tuple[np.ndarray, ...]] = []

    def make_inputs(start):
        stop = min(start + size, n)
        pad = size - (stop - start)
        return [np.concatenate([a[start:stop], np.repeat(a[stop - 1 : stop], pad)]) for a in arrays]

    def consume(start, outputs):
        parts.append(tuple(o[: min(size, n - start)] for o in outputs))
        if on_chunk is not None:
            on_chunk()

    kernel = stored_kernel(fn, static, size, tuple(a.dtype for a in arrays))
    run_pipelined(kernel, starts, make_inputs, consume)
    return tuple(np.concatenate(p) for p in zip(*parts))


# ----------------------------------------------------------------------------------------------
# Traced programs kept on disk


def _package_root():
    """The folder of the fisherrdp package (its source files)."""
    import pathlib

    return pathlib.Path(__file__).resolve().parents[2]


def _module_file(root, name: str):
    """The source file of fisherrdp module ``name`` (``root`` is the package's folder), or None."""
    parts = name.split(".")[1:]
    candidates = [root.joinpath(*parts).with_suffix(".py")] if parts else []
    for path in candidates + [root.joinpath(*parts, "__init__.py")]:
        if path.is_file():
            return path
    return None


def _imported_modules(root, name: str, tree, is_package: bool) -> set:
    """The fisherrdp modules that module ``name`` may import: every import statement of its
    syntax tree (in functions too); ``from A import B`` as A.B where that is a module, else A."""
    import ast

    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package up
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                found.add(sub if _module_file(root, sub) is not None else base)
    return {m for m in found if m == "fisherrdp" or m.startswith("fisherrdp.")}


def modules_imported_by(path) -> tuple[str, ...]:
    """The fisherrdp modules that the Python file ``path`` imports (as :func:`source_hash`
    follows them), sorted: the ``modules`` of a program traced from code in that file."""
    import ast
    import pathlib

    tree = ast.parse(pathlib.Path(path).read_bytes())
    return tuple(sorted(_imported_modules(_package_root(), "__main__", tree, False)))


@functools.cache
def source_files(modules: tuple[str, ...] | None = None) -> tuple:
    """The fisherrdp source files that a traced program may run (paths, sorted).

    Without ``modules``, every source file of the package. With them (module names), those
    modules and every fisherrdp module they import, transitively (import statements anywhere in
    a file: :func:`_import_statements`), and every package ``__init__.py``: code that a traced
    program runs comes from these (``lint-imports`` keeps the layers so: a kernel's module
    imports nothing above its layer), so that a change to, say, the accountant or the command
    line leaves the programs of the special functions and divergences standing.
    """
    import ast

    root = _package_root()
    if modules is None:
        return tuple(sorted(root.rglob("*.py")))
    seen, todo, files = set(), list(modules), set(root.rglob("__init__.py"))
    while todo:
        name = todo.pop()
        path = _module_file(root, name) if name not in seen else None
        seen.add(name)
        if path is None:
            continue
        files.add(path)
        tree = ast.Module(body=_import_statements(path.read_text()), type_ignores=[])
        todo.extend(_imported_modules(root, name, tree, path.name == "__init__.py") - seen)
    return tuple(sorted(files))


#: A line that starts an import statement (``from X import (...)`` over several lines too).
_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+[.\w]+[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)|import[ \t]+[^\n]*)", re.M)


def _import_statements(text: str) -> list:
    """The import statements of a Python source, parsed line by line from the lines that start
    one (anywhere: in functions too): 17× faster than parsing the whole file, which made up a
    quarter of a warm first call. A line of prose that starts like one and parses can only add
    a module (a wider hash), never drop one; one that does not parse is skipped."""
    import ast

    statements = []
    for match in _IMPORT_LINE.finditer(text):
        try:
            statements.extend(ast.parse(match.group(0).strip()).body)
        except SyntaxError:
            continue
    return statements


@functools.cache
def source_hash(modules: tuple[str, ...] | None = None) -> str:
    """SHA-256 of :func:`source_files` (names and contents): a changed kernel never loads an
    old program."""
    import hashlib

    root = _package_root()
    digest = hashlib.sha256()
    for path in source_files(modules):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


@functools.cache
def stored_kernel(fn: Callable, static: tuple, size: int, dtypes: tuple) -> Callable:
    """:func:`sharded_kernel` for one input size, its traced program kept on disk.

    Tracing and lowering a large kernel in Python costs more than loading its compiled program
    from the persistent cache (about 2 s against 0.3 s for ``renyi_release_k1``), and a new
    process pays both on its first call. With JAX's persistent compilation cache on, the
    lowered program is therefore serialized with :mod:`jax.export` into
    ``<cache>/exported/<source hash>/``, keyed by the function, its static arguments, the
    input size and dtypes, the devices, fisherrdp's source files, the JAX version and the JAX
    settings that change a traced program (x64, default matmul precision, dtype promotion); a
    later process deserializes it instead of tracing, or, where the executable compiled from
    it is kept too, loads that (:func:`exported_program`). The program is the same, so are the
    results. Only fisherrdp's own
    module-level functions are kept (their source is in the key); anything else (no cache, a
    user's function, a lambda or closure, a function that cannot be exported) uses
    :func:`sharded_kernel`.

    Args:
        fn, static: As for :func:`sharded_kernel`.
        size: Points per call over all local devices (the inputs' length).
        dtypes: The inputs' dtypes.
    """
    kernel = sharded_kernel(fn, static)
    module = getattr(fn, "__module__", None) or ""
    qualname = getattr(fn, "__qualname__", None) or "<unknown>"
    if not module.startswith("fisherrdp.") or "<" in qualname:
        return kernel
    dtypes = tuple(np.dtype(d) for d in dtypes)
    identity = (module, qualname, static, [str(d) for d in local_mesh().devices.flat])
    sharding = NamedSharding(local_mesh(), PartitionSpec(AXIS))  # as run_pipelined's inputs
    args = [jax.ShapeDtypeStruct((size,), d, sharding=sharding) for d in dtypes]
    name = getattr(fn, "__name__", "kernel")
    return exported_program(kernel, args, identity, name=name,
                            modules=(__name__, module)) or kernel


def stored_export(
    jitted: Callable, args: list, identity: Hashable, *, name: str,
    platforms: tuple[str, ...] | None = None, modules: tuple[str, ...] | None = None,
):
    """``jax.export.export(jitted, platforms=platforms)(*args)``, serialized in
    ``<jax cache>/exported/<source hash>/`` and deserialized by later processes.

    The key is ``identity`` (what names the function: module, qualified name, static
    arguments, devices, and the source of any code outside fisherrdp that it runs), the
    shapes and dtypes of ``args``, ``platforms`` (``None``: the default backend's), the
    fisherrdp source the program may run (:func:`source_hash` of ``modules``, the fisherrdp
    modules whose code it calls; ``None``: all of it), the JAX, NumPy and SciPy versions and
    the JAX settings that change a traced program (x64, default matmul precision, dtype
    promotion). Without a persistent cache it exports afresh, stores nothing. Raises what :func:`jax.export.export`
    raises (nothing is stored then).
    """
    from jax import export

    def trace():
        return export.export(jitted, platforms=platforms)(*args)

    path = _stored_path(args, identity, name=name, platforms=platforms, modules=modules)
    if path is None:
        return trace()
    try:
        return export.deserialize(bytearray(path.read_bytes()))
    except Exception:  # noqa: BLE001 - none yet (or unreadable): trace, and keep it
        pass
    exported = trace()
    _write_atomically(path, exported.serialize)
    return exported


def _write_atomically(path, payload: Callable[[], bytes]) -> None:
    """``payload()`` into ``path``, whole or not at all (a concurrent reader sees all of it or
    nothing); nothing is written where it cannot be made or the folder is not writable."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        partial.write_bytes(payload())
        partial.replace(path)
    except Exception:  # noqa: BLE001 - not serializable or not writable: kept in memory only
        pass


def _stored_path(args, identity, *, name, platforms=None, modules=None):
    """Where :func:`stored_export` keeps a program (``None`` without a persistent cache)."""
    import hashlib
    import pathlib

    cache = jax.config.jax_compilation_cache_dir
    if not cache:
        return None
    # NumPy's and SciPy's versions too: constants a program computes with them while it is
    # traced (quadrature nodes, series coefficients) can differ in their last bits between
    # versions, and environments of one JAX version share the cache (.ci/oldest after the
    # default run: a program traced with the other NumPy broke a bit-for-bit test).
    key = repr((identity, [(a.shape, np.dtype(a.dtype).str) for a in args], jax.__version__,
                np.__version__, scipy.__version__, bool(jax.config.jax_enable_x64),
                jax.config.jax_default_matmul_precision, jax.config.jax_numpy_dtype_promotion,
                source_hash(modules))
               + (() if platforms is None else (tuple(platforms),)))
    # One folder per fisherrdp source a program may run (a few MB for every program of the test
    # suite): those of older versions are never read again, and can be deleted.
    return (pathlib.Path(cache) / "exported" / source_hash(modules)[:16]
            / f"{name}-{hashlib.sha256(key.encode()).hexdigest()}")


def exported_program(
    jitted: Callable, args: list, identity: Hashable, *, name: str,
    modules: tuple[str, ...] | None = None,
) -> Callable | None:
    """``jitted`` at the shapes (and shardings) ``args``, kept on disk between processes.

    Two forms are kept in ``<jax cache>/exported/<source hash>/``: the traced program,
    serialized with :mod:`jax.export` (:func:`stored_export`; ``modules``: the fisherrdp
    modules whose code it runs, ``None`` for any), and the executable compiled from it
    (:func:`_compile_and_store`, :func:`_load_executable`). A later process loads the
    executable and calls it: no tracing, no lowering, no lookup in JAX's cache
    (``docs/howto/compilation_cache.md``: the first call of ``renyi_release_k1`` in a warm
    process). Where there is no executable yet for this machine, it deserializes the program
    and compiles it, keeping the executable (or loads it from JAX's cache, keeping nothing).
    Executables are kept only for arguments sharded over one mesh (:func:`stored_kernel`'s).
    Returns ``None`` where there is no persistent cache or the program cannot be exported.
    """
    path = _stored_path(args, identity, name=name, modules=modules)
    if path is None:
        return None
    devices = _mesh_devices(args)
    stored = None if devices is None else path.with_name(
        f"{path.name}-{_executable_tag(devices)}.xla")
    compiled = None if stored is None else _load_executable(stored, devices)
    if compiled is not None:
        return compiled
    try:
        exported = stored_export(jitted, args, identity, name=name, modules=modules)
    except Exception:  # noqa: BLE001 - not exportable here: trace as usual
        return None

    def call(*arrays):
        return exported.call(*arrays)

    call.__name__ = call.__qualname__ = name
    program = jax.jit(call)
    return (None if stored is None else _compile_and_store(program, args, stored)) or program


#: The event :func:`exported_program` records (:func:`jax.monitoring.record_event`) when it
#: loads a stored executable.
EXECUTABLE_LOADED = "/fisherrdp/stored_executable_loads"


def _mesh_devices(args) -> tuple | None:
    """The devices, in mesh order, of arguments that all carry one mesh's
    :class:`~jax.sharding.NamedSharding` (the executable runs there); else ``None``."""
    meshes = {getattr(getattr(a, "sharding", None), "mesh", None) for a in args}
    mesh = meshes.pop() if len(meshes) == 1 else None
    return None if mesh is None else tuple(mesh.devices.flat)


@functools.cache
def _executable_tag(devices: tuple) -> str:
    """What an executable depends on beyond its program: jaxlib, the backend and its version,
    the devices, ``XLA_FLAGS`` and the host CPU's features (XLA:CPU compiles for the host)."""
    import hashlib
    import importlib.metadata

    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line for line in f if line.startswith(("flags", "Features"))), "")
    except OSError:
        import platform

        cpu = platform.processor()
    key = repr((importlib.metadata.version("jaxlib"), devices[0].client.platform,
                devices[0].client.platform_version, [str(d) for d in devices],
                [d.device_kind for d in devices], os.environ.get("XLA_FLAGS", ""), cpu))
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _load_executable(path, devices: tuple):
    """The executable kept at ``path`` (a :class:`jax.stages.Compiled` on ``devices``), or
    ``None``."""
    import pickle
    import zlib

    from jax.experimental import serialize_executable

    try:
        payload, in_tree, out_tree, calls_lapack = pickle.loads(zlib.decompress(path.read_bytes()))
        if calls_lapack:
            _initialize_lapack()
        compiled = serialize_executable.deserialize_and_load(
            payload, in_tree, out_tree, execution_devices=devices)
    except Exception:  # noqa: BLE001 - none yet, or unreadable: compile
        return None
    jax.monitoring.record_event(EXECUTABLE_LOADED)
    return compiled


_cache_hits = [0]


@functools.cache
def _count_cache_hits() -> None:
    """Counts JAX's persistent-cache hits (from the first call on)."""

    def listen(event, **kwargs):
        if event == "/jax/compilation_cache/cache_hits":
            _cache_hits[0] += 1

    jax.monitoring.register_event_listener(listen)


def _compile_and_store(program, args, path):
    """``program`` compiled at ``args`` (a :class:`jax.stages.Compiled`), its executable kept at
    ``path``; ``None`` where it does not compile ahead of the call.

    Only an executable that XLA compiled here is kept: one that JAX's cache loaded serializes
    without its code on XLA:CPU (jax 0.10.2: the reloaded copy fails with "Function … not
    found"), so a program found there keeps being loaded from there. Nor is one kept that
    calls anything but LAPACK (a host callback, a kernel registered by another library): what
    such a call needs is set up when a program is lowered, and only LAPACK's setup is known
    here (:func:`_initialize_lapack`, before a program that calls it is loaded)."""
    import pickle
    import zlib

    from jax.experimental import serialize_executable

    _count_cache_hits()
    hits = _cache_hits[0]
    try:
        compiled = program.lower(*args).compile()
    except Exception:  # noqa: BLE001 - compiled at the first call instead
        return None
    text = compiled.as_text() if _cache_hits[0] == hits else None
    if not text:  # loaded from JAX's cache, or its calls cannot be read: not kept
        return compiled
    targets = set(re.findall(r'custom_call_target="([^"]+)"', text))
    if all(t.startswith("lapack_") for t in targets):
        _write_atomically(path, lambda: zlib.compress(pickle.dumps(
            (*serialize_executable.serialize(compiled), bool(targets))), 1))
    return compiled


def _initialize_lapack() -> None:
    """Sets up the LAPACK kernels that XLA:CPU programs call (``eigh``, ``cholesky``): JAX does
    it when it lowers such a program, not when it loads an executable, which would otherwise
    call through a null pointer (a segmentation fault, found with ``renyi_ncwishart``)."""
    from jax._src.lax import linalg

    linalg.initialize_lapack()


#: Largest chunk of :func:`map_bucketed` unless a function asks for another.
BUCKET_CAP = 4096


def bucket_size(n: int, cap: int = BUCKET_CAP) -> int:
    """The chunk for ``n`` points per device: the next power of two, at most ``cap``.

    >>> [bucket_size(n, 64) for n in (1, 3, 5, 17, 64, 1000)]
    [1, 4, 8, 32, 64, 64]
    """
    return min(int(cap), 1 << max(0, int(n) - 1).bit_length())


def map_bucketed(
    fn: Callable, *arrays: Any, static: tuple[Hashable, ...] = (), cap: int = BUCKET_CAP
) -> tuple:
    """``fn(*arrays, *static)`` for elementwise ``fn``: eager calls padded to shape buckets.

    Concrete arrays are broadcast together, flattened and evaluated by :func:`map_points` with
    chunk :func:`bucket_size` of the points per device (padding repeats the last point), and
    the outputs are reshaped to the broadcast shape (followed by each output's trailing axes).
    Each element is computed by the same program whatever the number of points, so results
    equal those of an unpadded call (one device; on several devices XLA may round a few
    elements differently, ~1e-14). Under a JAX transformation (any argument a tracer),
    ``fn`` is called directly.

    Args:
        fn: A jitted elementwise function (see :func:`sharded_kernel`).
        arrays: Its array arguments, of one floating dtype, broadcastable together.
        static: Hashable arguments after the arrays.
        cap: The largest chunk (memory: kernels with many quadrature nodes per point use less).

    Returns:
        The outputs of ``fn`` as a tuple of ``jax.Array``.
    """
    if any(isinstance(a, jax.core.Tracer) for a in arrays):
        return as_tuple(fn(*arrays, *static))
    shape = np.broadcast_shapes(*(np.shape(a) for a in arrays))
    n = math.prod(shape)
    if n == 0:
        return as_tuple(fn(*(jnp.broadcast_to(a, shape) for a in arrays), *static))
    flat = [np.broadcast_to(np.asarray(a), shape).reshape(-1) for a in arrays]
    per_device = -(-n // local_device_count())
    outputs = map_points(fn, flat, chunk=bucket_size(per_device, cap), static=static)
    # device_put, not jnp.asarray: the latter compiles a small program per output shape.
    return tuple(jax.device_put(o.reshape(shape + o.shape[1:])) for o in outputs)

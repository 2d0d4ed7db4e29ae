"""``fisherrdp scan``: evaluate a quantity on a parameter grid, on every device, into a zarr store.

Axes are given as ``--axis NAME=SPEC`` with ``SPEC`` one of ``geom:START:STOP:NUM`` (geometric
spacing), ``lin:START:STOP:NUM`` (linear), ``V1,V2,...`` (a list) or ``V`` (a fixed value);
``inf`` is a valid number. With ``--out`` the results go to a zarr store as blocks finish, and
running the same command again resumes. Prints the devices used, points per second, and per
output its range and the count of non-finite values. Exit status 2 for bad options, 1 if some
value is not finite, 130 if interrupted (Ctrl-C), else 0.

With ``--distributed`` (or explicit ``--coordinator``, ``--num-processes``, ``--process-id``)
the process joins ``jax.distributed`` before anything runs on a device, and the processes that
run the same command share one scan (:func:`fisherrdp.scan.scan`: block ``i`` belongs to
process ``i mod N``; the store must be on a file system every host sees). Process 0 prints the
summary and writes ``--json`` and ``--plot`` (and its exit status says whether some value is
not finite); every other process prints one line with its own share. The recipes (SLURM, TPU
pod slices, any cluster) are in :data:`EPILOG` and ``docs/howto/several_hosts.md``.
"""

from __future__ import annotations

import argparse
import json
import sys

NAME = "scan"
HELP = "evaluate a quantity on a parameter grid over every device (zarr store, resumable)"

#: ``fisherrdp scan --help`` ends with these recipes (docs/howto/several_hosts.md has them in
#: full; tests/test_launch_recipes.py runs the SLURM one and checks that they agree).
EPILOG = """\
one scan on several hosts: every process runs the same command with --distributed, the store
on a file system that every host sees; block i is computed by process i mod N, process 0
prints the summary, and the same command again resumes. (--chunk 64 cuts this small grid
into 3 blocks, so that every process gets work; leave it out for real grids.)

  SLURM, in an sbatch script with #SBATCH --nodes=2 and #SBATCH --ntasks-per-node=1:
    srun fisherrdp scan fisher_upper_prop51 --axis d=geom:1:1e4:13 \\
        --axis theta=geom:0.01:100:11 --chunk 64 --out /shared/scan.zarr --distributed

  TPU pod slice (on every worker; TPUs compute in float32):
    gcloud compute tpus tpu-vm ssh NAME --zone=ZONE --worker=all --command="fisherrdp scan \\
        fisher_upper_prop51 --axis d=geom:1:1e4:13 --axis theta=geom:0.01:100:11 --chunk 64 \\
        --out /mnt/shared/scan.zarr --distributed --dtype float32"

  elsewhere (JAX detects SLURM, Open MPI and TPU pod slices), on host I of N:
    fisherrdp scan ... --coordinator HOST0:PORT --num-processes N --process-id I

docs/howto/several_hosts.md: batch scripts, resuming, reading the store, timeouts.
"""

#: Seconds without a heartbeat after which ``jax.distributed`` declares a process dead (JAX's
#: default is 100): generous, since a host busy compiling on every core can stall; a dead host
#: is then noticed this long after it died (the others wait at the scan's barrier meanwhile).
HEARTBEAT_TIMEOUT_S = 600


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("quantity", nargs="?", help="registered quantity (see --list)")
    parser.add_argument(
        "--axis",
        action="append",
        default=[],
        metavar="NAME=SPEC",
        help="an axis: geom:START:STOP:NUM, lin:START:STOP:NUM, V1,V2,... or a value",
    )
    parser.add_argument("--out", metavar="PATH", help="zarr store to write (and resume from)")
    parser.add_argument("--chunk", type=int, help="points per block (per device and call)")
    parser.add_argument("--dtype", choices=("float32", "float64"), help="working precision")
    parser.add_argument("--json", metavar="PATH", help="write the summary as JSON")
    parser.add_argument("--plot", metavar="PATH", help="draw a 1-D or 2-D scan's first output")
    parser.add_argument("--list", action="store_true", help="list the registered quantities")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    hosts = parser.add_argument_group(
        "several hosts", "one scan shared by the processes of jax.distributed (recipes below)")
    hosts.add_argument(
        "--distributed",
        action="store_true",
        help="join jax.distributed first (jax.distributed.initialize(): the cluster is detected "
        "under SLURM, Open MPI and on TPU pod slices)",
    )
    hosts.add_argument("--coordinator", metavar="HOST:PORT",
                       help="process 0's host and a free port (implies --distributed)")
    hosts.add_argument("--num-processes", type=int, metavar="N",
                       help="number of processes (with --process-id; implies --distributed)")
    hosts.add_argument("--process-id", type=int, metavar="I",
                       help="this process, 0 to N-1 (with --num-processes)")
    parser.epilog = EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter


def parse_axis(text: str):
    """``NAME=SPEC`` → (name, value): a 1-D NumPy array, or a float for a fixed value.

    Examples:
        >>> name, values = parse_axis("d=geom:1:100:3")
        >>> name, values.tolist()
        ('d', [1.0, 10.0, 100.0])
        >>> parse_axis("theta=0.5")
        ('theta', 0.5)
    """
    import numpy as np

    name, sep, spec = text.partition("=")
    name = name.strip()
    if not sep or not name or not spec:
        raise ValueError(f"--axis must read NAME=SPEC, got {text!r}")
    kind, _, rest = spec.partition(":")
    try:
        if kind in ("geom", "lin") and rest:
            parts = rest.split(":")
            if len(parts) != 3:
                raise ValueError
            start, stop, num = float(parts[0]), float(parts[1]), int(float(parts[2]))
            if num < 1:
                raise ValueError(f"--axis {name}: NUM must be >= 1, got {num}")
            if kind == "geom":
                if start <= 0 or stop <= 0:
                    raise ValueError(f"--axis {name}: geom needs START, STOP > 0")
                return name, np.geomspace(start, stop, num)
            return name, np.linspace(start, stop, num)
        values = [float(v) for v in spec.split(",") if v.strip()]
    except ValueError as exc:
        if str(exc):
            raise
        raise ValueError(
            f"--axis {name}: cannot read {spec!r} (geom:START:STOP:NUM, lin:START:STOP:NUM, "
            "V1,V2,... or V)"
        ) from None
    if not values:
        raise ValueError(f"--axis {name}: no values in {spec!r}")
    return (name, values[0]) if len(values) == 1 and "," not in spec else (name, np.array(values))


def distributed_arguments(args: argparse.Namespace) -> dict | None:
    """Keyword arguments of ``jax.distributed.initialize`` for these options (``None``: one
    process, no ``jax.distributed``).

    ``--distributed`` alone leaves everything to JAX's detection of the cluster (SLURM, Open MPI,
    TPU pod slices); ``--coordinator`` (alone, or with the two others) and ``--num-processes``
    with ``--process-id`` set what it would detect.

    Raises:
        ValueError: Naming the option: ``--num-processes`` without ``--process-id`` or the
            reverse, a count below 1, an id outside ``[0, N)``, or a coordinator not of the form
            ``HOST:PORT`` with a port in ``[1, 65535]``.

    Examples:
        >>> ns = argparse.Namespace(distributed=False, coordinator="host0:1234",
        ...                         num_processes=2, process_id=1)
        >>> sorted(distributed_arguments(ns).items())  # doctest: +NORMALIZE_WHITESPACE
        [('coordinator_address', 'host0:1234'), ('heartbeat_timeout_seconds', 600),
         ('num_processes', 2), ('process_id', 1)]
    """
    n, i, address = args.num_processes, args.process_id, args.coordinator
    if (n is None) != (i is None):
        given, missing = (("--process-id", "--num-processes") if n is None
                          else ("--num-processes", "--process-id"))
        raise ValueError(f"{given} needs {missing} too (or neither, where JAX detects the "
                         "cluster: SLURM, Open MPI, TPU pod slices)")
    if n is not None and n < 1:
        raise ValueError(f"--num-processes must be >= 1, got {n}")
    if i is not None and not 0 <= i < n:
        raise ValueError(f"--process-id must be in [0, {n - 1}] (--num-processes {n}), got {i}")
    if address is not None:
        host, _, port = address.rpartition(":")
        if not host or not port.isdigit() or not 1 <= int(port) <= 65535:
            raise ValueError(f"--coordinator must read HOST:PORT with a port in [1, 65535], "
                             f"got {address!r}")
    if not (args.distributed or address or n is not None):
        return None
    given = {"coordinator_address": address, "num_processes": n, "process_id": i}
    return {**{k: v for k, v in given.items() if v is not None},
            "heartbeat_timeout_seconds": HEARTBEAT_TIMEOUT_S}


def _join(arguments: dict) -> None:
    """``jax.distributed.initialize(**arguments)``; what JAX could not detect is a bad option."""
    import jax

    try:
        jax.distributed.initialize(**arguments)
    except ValueError as exc:  # e.g. "coordinator_address should be defined."
        raise ValueError(
            f"--distributed: {exc} JAX detects SLURM, Open MPI and TPU pod slices; elsewhere "
            "give --coordinator HOST:PORT, --num-processes N and --process-id I"
        ) from None


def summarize(result) -> dict:
    """Range and non-finite count of each output."""
    import numpy as np

    out = {}
    for name in result.outputs:
        value = np.asarray(result[name])
        finite = np.isfinite(value)
        out[name] = {
            "min": float(value[finite].min()) if finite.any() else None,
            "max": float(value[finite].max()) if finite.any() else None,
            "non_finite": int((~finite).sum()),
        }
    return out


def _list() -> int:
    from fisherrdp.scan import quantities

    for name, q in quantities().items():
        params = ", ".join(f"{p} ({d})" for p, d in q["params"].items())
        print(f"{name}: {q['description']}\n    params: {params}\n    outputs: "
              f"{', '.join(q['outputs'])}")
    return 0


def _plot(result, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    value = result.values
    dims = result.dims
    fig, ax = plt.subplots(figsize=(6, 4.5), constrained_layout=True)
    if len(dims) == 1:
        x = result.coords[dims[0]]
        ax.plot(x, value)
        ax.set_xlabel(dims[0])
        ax.set_ylabel(result.outputs[0])
        if x.min() > 0 and x.max() / x.min() > 100:
            ax.set_xscale("log")
    elif len(dims) == 2:
        x, y = result.coords[dims[1]], result.coords[dims[0]]
        positive = np.isfinite(value) & (value > 0)
        norm = None
        if positive.all():
            norm = matplotlib.colors.LogNorm(value.min(), value.max())
        mesh = ax.pcolormesh(x, y, value, norm=norm, shading="auto")
        fig.colorbar(mesh, ax=ax, label=result.outputs[0])
        ax.set_xlabel(dims[1])
        ax.set_ylabel(dims[0])
        for axis, c in (("x", x), ("y", y)):
            if c.min() > 0 and c.max() / c.min() > 100:
                getattr(ax, f"set_{axis}scale")("log")
    else:
        raise ValueError(f"--plot draws 1-D or 2-D scans; this one has dims {dims}")
    ax.set_title(f"{result.quantity} ({value.size} points)")
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run(args: argparse.Namespace) -> int:
    if args.list:
        return _list()
    try:
        if not args.quantity:
            raise ValueError("give a QUANTITY (fisherrdp scan --list lists them)")
        grid = dict(parse_axis(text) for text in args.axis)
        distributed = distributed_arguments(args)
        if distributed is not None:
            _join(distributed)  # before anything touches a device
        import jax

        from fisherrdp.scan import scan

        devices = jax.local_devices()
        pid, nproc = jax.process_index(), jax.process_count()
        if pid == 0:
            print(
                f"devices: {len(devices)} x {devices[0].platform} ({devices[0].device_kind}); "
                f"processes: {nproc}",
                flush=True,
            )
        result = scan(
            args.quantity,
            grid,
            chunk=args.chunk,
            store=args.out,
            dtype=args.dtype,
            progress=not args.no_progress,
        )
    except ValueError as exc:
        print(f"fisherrdp scan: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        where = (f"finished blocks are in {args.out}; run the same command again to resume"
                 if args.out else "nothing was kept (give --out PATH to keep finished blocks)")
        print(f"\nfisherrdp scan: interrupted; {where}", file=sys.stderr)
        return 130
    if nproc == 1:
        return _report(result, args)
    try:
        if pid == 0:
            return _report(result, args)
        print(f"process {pid} of {nproc}: blocks computed {result.computed_blocks}; "
              f"{_timing(result)}")
        return 0
    finally:
        # Process 0 reads the whole store for its summary (and plot) while the others are done:
        # they wait for it here, with the scan's long timeout, rather than in jax.distributed's
        # shutdown barrier (shutdown_timeout_seconds, 300 s), which would abort every process.
        from fisherrdp.scan import barrier

        barrier("fisherrdp-scan-command-end")
        if distributed is not None:
            jax.distributed.shutdown()


def _rate(result) -> float:
    """Points per second after compilation, in this process (NaN if it computed none)."""
    steady = result.attrs["run_seconds"] - result.attrs["compile_seconds"]
    points = result.attrs["computed_points"]
    return points / steady if points and steady > 0 else float("nan")


def _timing(result) -> str:
    """Seconds, compile seconds and points/s after compilation, in this process."""
    return (f"{result.attrs['run_seconds']:.2f} s, of which {result.attrs['compile_seconds']:.2f}"
            f" s compiling; {_rate(result):,.0f} points/s after compilation")


def _report(result, args: argparse.Namespace) -> int:
    """Print the summary, write ``--json`` and ``--plot``; the exit status (1: non-finite)."""
    seconds = result.attrs["seconds"]
    points = int(result.attrs["points"])
    computed = result.computed_blocks
    total = int(result.attrs["blocks"])
    nproc = int(result.attrs["processes"])
    summary = {
        "quantity": result.quantity,
        "dims": dict(zip(result.dims, result.shape)),
        "points": points,
        "blocks": {"computed": computed, "resumed": result.resumed_blocks, "total": total},
        "seconds": seconds,
        "store": args.out,
        "dtype": result.attrs["dtype"],
        "devices": result.attrs["devices"],
        "processes": nproc,
        "outputs": summarize(result),
    }
    summary.update(points_per_second=_rate(result),
                   compile_seconds=result.attrs["compile_seconds"],
                   run_seconds=result.attrs["run_seconds"])
    by_all = f" of {total - result.resumed_blocks} by {nproc} processes" if nproc > 1 else ""
    print(f"{result.quantity}: {points} points on grid {summary['dims']}; blocks computed "
          f"{computed}{by_all}, resumed {result.resumed_blocks}; {_timing(result)}")
    for name, s in summary["outputs"].items():
        print(f"  {name}: min {s['min']!r}, max {s['max']!r}, non-finite {s['non_finite']}")
    if args.out:
        print(f"store: {args.out} (xarray.open_zarr reads it; fisherrdp.scan.load too)")
    if args.plot:
        _plot(result, args.plot)
        print(f"plot: {args.plot}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=2)
    return 1 if any(s["non_finite"] for s in summary["outputs"].values()) else 0

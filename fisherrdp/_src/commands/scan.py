"""``fisherrdp scan``: evaluate a quantity on a parameter grid, on every device, into a zarr store.

Axes are given as ``--axis NAME=SPEC`` with ``SPEC`` one of ``geom:START:STOP:NUM`` (geometric
spacing), ``lin:START:STOP:NUM`` (linear), ``V1,V2,...`` (a list) or ``V`` (a fixed value);
``inf`` is a valid number. With ``--out`` the results go to a zarr store as blocks finish, and
running the same command again resumes. Prints the devices used, points per second, and per
output its range and the count of non-finite values. Exit status 2 for bad options, 1 if some
value is not finite, 130 if interrupted (Ctrl-C), else 0.
"""

from __future__ import annotations

import argparse
import json
import sys

NAME = "scan"
HELP = "evaluate a quantity on a parameter grid over every device (zarr store, resumable)"


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
        import jax

        from fisherrdp.scan import scan

        devices = jax.local_devices()
        print(
            f"devices: {len(devices)} x {devices[0].platform} ({devices[0].device_kind}); "
            f"processes: {jax.process_count()}",
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
    seconds = result.attrs["seconds"]
    points = int(result.attrs["points"])
    computed = result.computed_blocks
    summary = {
        "quantity": result.quantity,
        "dims": dict(zip(result.dims, result.shape)),
        "points": points,
        "blocks": {"computed": computed, "resumed": result.resumed_blocks,
                   "total": int(result.attrs["blocks"])},
        "seconds": seconds,
        "store": args.out,
        "dtype": result.attrs["dtype"],
        "devices": result.attrs["devices"],
        "outputs": summarize(result),
    }
    run_seconds, compile_seconds = result.attrs["run_seconds"], result.attrs["compile_seconds"]
    computed_points = result.attrs["computed_points"]
    steady = run_seconds - compile_seconds
    rate = computed_points / steady if computed_points and steady > 0 else float("nan")
    summary.update(points_per_second=rate, compile_seconds=compile_seconds,
                   run_seconds=run_seconds)
    print(f"{result.quantity}: {points} points on grid {summary['dims']}; blocks computed "
          f"{computed}, resumed {result.resumed_blocks}; {run_seconds:.2f} s, of which "
          f"{compile_seconds:.2f} s compiling; {rate:,.0f} points/s after compilation")
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

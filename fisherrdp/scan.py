"""Scans of exact quantities over parameter grids, on every device, streamed to a zarr store.

:func:`scan` evaluates a registered quantity (:func:`quantities` lists them) or any elementwise
JAX function on a grid of named axes or an explicit point list (:func:`points`). Points go in
fixed-size chunks, each sharded over all local devices; with ``store=`` the results are written
to a zarr store as they complete and an interrupted scan resumes where it stopped; after
``jax.distributed.initialize()`` each process computes its share of the chunks. Results come
back as a :class:`ScanResult` (``.to_xarray()``, ``.to_numpy()``); :func:`load` reads a store.

Example:
    >>> from fisherrdp.scan import scan
    >>> r = scan("theorem_5_2", {"alpha": 2.0, "d": [10.0, 100.0], "C": 1.0, "delta": 0.5},
    ...          progress=False)
    >>> r.dims, r.values.shape
    (('d',), (2,))
    >>> ds = r.to_xarray()
    >>> ds.attrs["quantity"], float(ds["C"])
    ('theorem_5_2', 1.0)
"""

from fisherrdp._src.scan.api import ScanResult, barrier, load, scan
from fisherrdp._src.scan.grid import Points, points
from fisherrdp._src.scan.registry import Domain, Quantity, quantities, register

__all__ = [
    "Domain",
    "Points",
    "Quantity",
    "ScanResult",
    "barrier",
    "load",
    "points",
    "quantities",
    "register",
    "scan",
]

"""The zarr store of a scan: results written block by block, resumable, shared by processes.

Layout of ``scan.zarr`` (a zarr v3 group that :func:`xarray.open_zarr` reads as a Dataset):

* one array per output of the quantity, of the grid's shape (plus the output's own trailing
  axes), with zarr chunks equal to the scan's blocks (:mod:`.grid`), so each block is written
  whole by exactly one process;
* one array per coordinate: for a cartesian grid, each axis along its own dimension; for an
  explicit point list, each parameter along ``point``;
* ``progress/done``: one byte per block (zarr chunks of one element: one object each), set to 1
  after the block's outputs are written. A block is finished when its byte is 1, so a scan that
  was killed between the two writes recomputes that block and no other;
* group attributes: ``fisherrdp_scan`` (what identifies the scan: quantity, parameters, outputs,
  grid fingerprint, dtype) and ``fisherrdp_run`` (versions, devices, seconds: informative, not
  compared).

Opening a store made for another quantity, grid, block or dtype raises :class:`ValueError`,
so results are never mixed.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from fisherrdp._src.scan.grid import Layout

__all__ = ["FORMAT", "Store", "open_store"]

#: Version of the store layout (in the ``fisherrdp_scan`` attributes).
FORMAT = 1
IDENTITY = "fisherrdp_scan"
_RUN = "fisherrdp_run"


def import_zarr():
    try:
        import zarr
    except ImportError as exc:  # pragma: no cover - zarr is a dependency
        raise ImportError("scan stores need zarr: pip install zarr") from exc
    return zarr


def _differences(found: dict, wanted: dict) -> list[str]:
    keys = sorted(set(found) | set(wanted))
    return [f"{k}: store has {found.get(k)!r}, this scan has {wanted.get(k)!r}" for k in keys
            if found.get(k) != wanted.get(k)]


class Store:
    """A scan's zarr store (see the module docstring); made by :func:`open_store`."""

    def __init__(self, path: str, group):
        self.path = path
        self.group = group
        self.identity = dict(group.attrs[IDENTITY])

    def done(self) -> np.ndarray:
        """Which blocks are finished (bool, one per block)."""
        return np.asarray(self.group["progress/done"][...]).astype(bool)

    def write(self, index: int, slices: tuple[slice, ...], outputs: dict[str, np.ndarray]) -> None:
        """Write block ``index`` (its outputs, then its done byte)."""
        for name, value in outputs.items():
            self.group[name][slices] = value
        self.group["progress/done"][index] = 1

    def read(self, name: str) -> np.ndarray:
        """An output or coordinate array, read whole."""
        return np.asarray(self.group[name][...])

    def run_attributes(self) -> dict[str, Any]:
        return dict(self.group.attrs.get(_RUN, {}))

    def set_run_attributes(self, attributes: dict[str, Any]) -> None:
        """Set the informative attributes and consolidate the metadata (for xarray)."""
        self.group.attrs[_RUN] = attributes
        with warnings.catch_warnings():
            # zarr warns that consolidated metadata is not in the v3 spec; xarray reads it.
            warnings.simplefilter("ignore", UserWarning)
            import_zarr().consolidate_metadata(self.path)


def _identity(quantity: str, params, outputs, layout: Layout, dtype) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "quantity": quantity,
        "params": list(params),
        "outputs": {name: [str(dt), list(extra)] for name, (dt, extra) in outputs.items()},
        "dtype": str(np.dtype(dtype)),
        **layout.fingerprint(),
    }


def check_existing(path: str, quantity: str, params, outputs, layout: Layout, dtype) -> bool:
    """Whether a store exists at ``path``; raise ``ValueError`` if it is not this scan's."""
    zarr = import_zarr()
    try:
        group = zarr.open_group(path, mode="r")
    except (FileNotFoundError, zarr.errors.GroupNotFoundError):
        return False
    if IDENTITY not in group.attrs:
        raise ValueError(f"store {path!r} exists but is not a fisherrdp scan store")
    wanted = _identity(quantity, params, outputs, layout, dtype)
    found = dict(group.attrs[IDENTITY])
    problems = _differences(found, wanted)
    if problems:
        raise ValueError(
            f"store {path!r} holds another scan; use a new path or delete it. "
            + "; ".join(problems)
        )
    return True


def open_store(
    path: str, quantity: str, params, outputs, layout: Layout, dtype, *, create: bool
) -> Store:
    """Open the store of this scan at ``path``, creating it if ``create`` and it does not exist.

    Args:
        path: Directory of the zarr store.
        quantity: Name of the quantity.
        params: Its parameter names.
        outputs: ``{name: (dtype, trailing_shape)}`` of its outputs.
        layout: The grid and its blocks.
        dtype: Working dtype.
        create: Create the store when it does not exist (the first process only).

    Raises:
        ValueError: If the store at ``path`` was made for another scan.
    """
    zarr = import_zarr()
    if not check_existing(path, quantity, params, outputs, layout, dtype):
        if not create:
            raise FileNotFoundError(f"scan store {path!r} not found")
        group = zarr.open_group(path, mode="w")
        dims = list(layout.dims)
        for name, (dt, extra) in outputs.items():
            extra_dims = [f"{name}_dim_{j}" for j in range(len(extra))]
            group.create_array(
                name,
                shape=layout.shape + tuple(extra),
                chunks=layout.block + tuple(extra),
                dtype=dt,
                fill_value=np.nan,
                dimension_names=dims + extra_dims,
                attributes={"coordinates": " ".join(layout.coords)} if layout.explicit else None,
            )
        for name, values in layout.coords.items():
            along = dims if layout.explicit else [name]
            group.create_array(name, data=values, dimension_names=along)
        group.require_group("progress").create_array("done", shape=(layout.n_blocks,), chunks=(1,), dtype="uint8",
                           fill_value=0, dimension_names=["block"])
        # Written last: a store without it is not taken for a scan store.
        group.attrs[IDENTITY] = _identity(quantity, params, outputs, layout, dtype)
    group = zarr.open_group(path, mode="r+")
    return Store(path, group)

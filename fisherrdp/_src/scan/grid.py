"""Scan grids: named axes (a cartesian product) or an explicit list of points, cut into blocks.

A grid is cut into *blocks* that are the units of work and of storage: each block is one call
of the compiled kernel (at most ``chunk`` points, padded to the compiled size) and one chunk of
every array in the zarr store, so blocks can be written by different processes and a finished
block is never recomputed.

For a cartesian grid of shape ``(n_0, ..., n_{m-1})`` a block is a box
``(1, ..., 1, r, n_{j+1}, ..., n_{m-1})``: the trailing axes whole, as many as fit in ``chunk``
points, and ``r`` steps of the next axis. It covers at least half of a chunk (at least
``r·P/(r+1)·P`` where ``P`` is the product of the whole trailing axes), so padding costs at most
a factor 2 and usually a few per cent (a 1000 × 1000 grid in chunks of 4096: blocks of 4 × 1000).
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

__all__ = ["Layout", "Points", "block_shape", "make_layout", "points"]

#: Dimension name of an explicit point list.
POINT_DIM = "point"


@dataclasses.dataclass(frozen=True)
class Points:
    """An explicit list of points: one 1-D array per parameter, all of one length.

    Made by :func:`points`; pass it as the ``grid`` of :func:`fisherrdp.scan.scan`.
    """

    arrays: Mapping[str, np.ndarray]

    def __len__(self) -> int:
        return len(next(iter(self.arrays.values())))


def points(**arrays: Any) -> Points:
    """An explicit list of points for :func:`fisherrdp.scan.scan` (scalars broadcast).

    Args:
        **arrays: One 1-D array (or scalar) per parameter, named by the parameter.

    Returns:
        The point list; its dimension is called ``"point"`` in results and stores.

    Raises:
        ValueError: If no array is given, an array is not 1-D, the lengths differ, or a list is
            empty.

    Examples:
        >>> p = points(d=[1.0, 2.0, 3.0], theta=0.5)
        >>> len(p), p.arrays["theta"].tolist()
        (3, [0.5, 0.5, 0.5])
    """
    if not arrays:
        raise ValueError("points() needs at least one named array")
    values = {name: np.asarray(value) for name, value in arrays.items()}
    for name, value in values.items():
        if value.ndim > 1:
            raise ValueError(f"points: {name!r} must be 1-D or a scalar, got shape {value.shape}")
    lengths = {len(v) for v in values.values() if v.ndim == 1}
    if len(lengths) > 1:
        raise ValueError(
            "points: arrays must have one length, got "
            + ", ".join(f"{k}: {len(v)}" for k, v in values.items() if v.ndim == 1)
        )
    n = lengths.pop() if lengths else 1
    if n == 0:
        raise ValueError("points: the point list is empty")
    return Points({k: np.broadcast_to(v, (n,)).copy() for k, v in values.items()})


def block_shape(shape: Sequence[int], chunk: int) -> tuple[int, ...]:
    """The block of a grid of ``shape`` for ``chunk`` points per call (see the module doc)."""
    block = [1] * len(shape)
    whole = 1
    for i in reversed(range(len(shape))):
        if whole * shape[i] <= chunk:
            block[i] = shape[i]
            whole *= shape[i]
        else:
            block[i] = max(1, chunk // whole)
            break
    return tuple(block)


@dataclasses.dataclass(frozen=True)
class Layout:
    """A grid and its cut into blocks.

    Attributes:
        dims: Dimension names (the axes of a cartesian grid, or ``("point",)``).
        shape: Grid shape.
        coords: Coordinates: for a cartesian grid one 1-D array per dimension; for a point list
            one array per parameter, along ``"point"``.
        scalars: Parameters held fixed (scalars broadcast over the grid).
        block: Block shape.
        explicit: Whether the grid is an explicit point list.
    """

    dims: tuple[str, ...]
    shape: tuple[int, ...]
    coords: dict[str, np.ndarray]
    scalars: dict[str, float]
    block: tuple[int, ...]
    explicit: bool

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def blocks_per_dim(self) -> tuple[int, ...]:
        return tuple(-(-n // b) for n, b in zip(self.shape, self.block))

    @property
    def n_blocks(self) -> int:
        return math.prod(self.blocks_per_dim)

    def block_slices(self, index: int) -> tuple[slice, ...]:
        """The slices of the grid covered by block ``index`` (C order over blocks)."""
        position = np.unravel_index(index, self.blocks_per_dim) if self.shape else ()
        return tuple(
            slice(int(p) * b, min((int(p) + 1) * b, n))
            for p, b, n in zip(position, self.block, self.shape)
        )

    def block_inputs(
        self, index: int, params: Sequence[str], size: int, dtype: np.dtype
    ) -> list[np.ndarray]:
        """The parameters at the points of block ``index``, flat and padded to ``size``."""
        slices = self.block_slices(index)
        if self.explicit:
            columns = {name: self.coords[name][slices[0]] for name in self.coords}
        else:
            mesh = np.meshgrid(*(self.coords[d][s] for d, s in zip(self.dims, slices)), indexing="ij")
            columns = {d: m.ravel() for d, m in zip(self.dims, mesh)}
        n = math.prod(s.stop - s.start for s in slices)
        out = []
        for name in params:
            column = columns[name] if name in columns else np.full(n, self.scalars[name])
            column = np.asarray(column, dtype)
            out.append(np.concatenate([column, np.repeat(column[-1:], size - n)]))
        return out

    def fingerprint(self) -> dict[str, Any]:
        """What identifies the grid in a store (dimension names, shape, block, values' hash)."""
        digest = hashlib.sha256()
        for name in sorted(self.coords):
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(self.coords[name], np.float64).tobytes())
        return {
            "dims": list(self.dims),
            "shape": list(self.shape),
            "block": list(self.block),
            "explicit": self.explicit,
            "coords_sha256": digest.hexdigest(),
            "scalars": {k: float(v) for k, v in sorted(self.scalars.items())},
        }


def _check_values(name: str, values: np.ndarray) -> np.ndarray:
    if not np.issubdtype(values.dtype, np.number) or np.iscomplexobj(values):
        raise ValueError(f"axis {name!r} must be real numbers, got dtype {values.dtype}")
    values = values.astype(np.float64)
    if values.size == 0:
        raise ValueError(f"axis {name!r} is empty")
    if np.isnan(values).any():
        index = int(np.argwhere(np.isnan(values).ravel())[0, 0])
        raise ValueError(f"axis {name!r} contains NaN (at index {index})")
    return values


def make_layout(grid: Mapping[str, Any] | Points, params: Sequence[str], chunk: int) -> Layout:
    """Check ``grid`` against the parameter names ``params`` and cut it into blocks.

    Raises:
        ValueError: An unknown parameter name, a missing parameter, an empty axis, an axis that
            is not 1-D, or NaN in an axis.
    """
    if not isinstance(grid, (Points, Mapping)):
        raise TypeError(f"grid must be a dict of axes or fisherrdp.scan.points(...), got {grid!r}")
    given = dict(grid.arrays) if isinstance(grid, Points) else dict(grid)
    unknown = [name for name in given if name not in params]
    if unknown:
        raise ValueError(
            f"{', '.join(map(repr, unknown))} {'is not a parameter' if len(unknown) == 1 else 'are not parameters'}"
            f"; the parameters are {', '.join(params)}"
        )
    missing = [name for name in params if name not in given]
    if missing:
        raise ValueError(f"no value for parameter(s) {', '.join(map(repr, missing))}")
    values = {name: _check_values(name, np.asarray(given[name])) for name in params}
    if isinstance(grid, Points):
        n = len(grid)
        coords = {name: np.broadcast_to(v, (n,)).copy() for name, v in values.items()}
        return Layout((POINT_DIM,), (n,), coords, {}, (min(chunk, n),), True)
    for name, v in values.items():
        if v.ndim > 1:
            raise ValueError(f"axis {name!r} must be 1-D or a scalar, got shape {v.shape}")
    # Dimensions in the order the grid gives its axes (the result's axis order).
    dims = tuple(name for name in given if values[name].ndim == 1)
    scalars = {name: float(values[name]) for name in params if values[name].ndim == 0}
    coords = {name: values[name] for name in dims}
    shape = tuple(len(coords[d]) for d in dims)
    return Layout(dims, shape, coords, scalars, block_shape(shape, chunk), False)

"""Evaluation of jitted elementwise functions in padded chunks of one fixed size.

A jitted function compiles once per input shape. Grids of different sizes (the statements of
``fisherrdp verify``, the curves of ``fisherrdp figures``) would each pay the compilation again;
cut into chunks of a fixed size, with the last chunk padded by repeating its last point, they
share one compiled executable per function.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["map_in_chunks"]


def map_in_chunks(
    fn: Callable,
    arrays: Sequence[np.ndarray],
    chunk: int,
    *,
    on_chunk: Callable[[], None] | None = None,
) -> tuple[np.ndarray, ...]:
    """``fn(*arrays)`` for 1-D arrays of equal length, computed ``chunk`` points at a time.

    Args:
        fn: A function of 1-D arrays of length ``chunk`` returning an array (or a tuple of
            arrays) whose leading axis runs over the points.
        arrays: The inputs, 1-D and of equal length ``n >= 1``.
        chunk: Points per call.
        on_chunk: Called after every chunk (progress bars).

    Returns:
        A tuple with one array per output of ``fn``, each with leading axis of length ``n``.

    Examples:
        >>> import numpy as np
        >>> (out,) = map_in_chunks(lambda x, y: x * y, [np.arange(5.0), np.full(5, 2.0)], 2)
        >>> out.tolist()
        [0.0, 2.0, 4.0, 6.0, 8.0]
    """
    arrays = [np.asarray(a) for a in arrays]
    n = len(arrays[0])
    outputs = []
    for start in range(0, n, chunk):
        part = [a[start : start + chunk] for a in arrays]
        pad = chunk - len(part[0])
        padded = [np.concatenate([a, np.repeat(a[-1:], pad, axis=0)]) for a in part]
        out = fn(*padded)
        out = out if isinstance(out, tuple) else (out,)
        outputs.append(tuple(np.asarray(o)[: chunk - pad] for o in out))
        if on_chunk is not None:
            on_chunk()
    return tuple(np.concatenate(parts) for parts in zip(*outputs))

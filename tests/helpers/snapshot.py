"""The snapshot's format (``tests/fixtures/snapshot.json``, made by
``tests/fixtures/make_snapshot.py``): values as exact float64, and their comparison."""

from __future__ import annotations

import json
import math
import os

import jax
import numpy as np
from conftest import machine_fingerprint

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                    "snapshot.json")


def machine() -> str:
    """The jaxlib version and CPU fingerprint that bits are comparable on (XLA:CPU's code
    depends on the CPU's features); the same whichever cache the run uses."""
    return machine_fingerprint()


def load() -> dict:
    with open(PATH) as fh:
        return json.load(fh)


def encode(tree) -> list:
    """A pytree's leaves as ``[shape, [float.hex, ...]]`` (ints and bools as floats)."""
    leaves = []
    for leaf in jax.tree_util.tree_leaves(tree):
        a = np.asarray(leaf, dtype=np.float64)
        leaves.append([list(a.shape), [float(x).hex() for x in a.ravel()]])
    return leaves


def differences(name: str, recorded: list | None, now: list | None) -> list[str]:
    """Every entry of one encoded value that differs in its bits, a line each."""
    if recorded is None or now is None:
        return [f"{name}: {'new' if recorded is None else 'gone'}"]
    if len(recorded) != len(now):
        return [f"{name}: {len(recorded)} leaves, now {len(now)}"]
    lines = []
    for i, ((sa, va), (sb, vb)) in enumerate(zip(recorded, now)):
        if sa != sb:
            lines.append(f"{name}[{i}]: shape {sa}, now {sb}")
            continue
        for j, (x, y) in enumerate(zip(va, vb)):
            if x != y:
                fx, fy = float.fromhex(x), float.fromhex(y)
                rel = abs(fx - fy) / abs(fx) if fx and math.isfinite(fx) else math.inf
                lines.append(f"{name}[{i}][{j}]: {fx!r} -> {fy!r} (relative {rel:.1e})")
    return lines

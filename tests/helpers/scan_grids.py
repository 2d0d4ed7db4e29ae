"""Grids shared by tests/test_scan.py and its worker processes (helpers/scan_worker.py)."""

import numpy as np

#: name → (quantity, grid, chunk): each with several blocks, so that devices and processes
#: share the work.
GRIDS = {
    "fisher": (
        "fisher",
        {"d": np.geomspace(1.0, 1e4, 13), "theta": np.geomspace(0.01, 100.0, 11)},
        64,
    ),
    "renyi": (
        "renyi",
        {"alpha": [1.5, 2.0, 8.0], "d": [1.0, 10.0, 1000.0], "a": [0.5, 2.0], "b": 1.0},
        8,
    ),
    "release_k1": (
        "release_k1",
        {"alpha": 2.0, "d": [2.0, 50.0], "n_syn": [1.0, 10.0, np.inf], "a": 2.0, "b": 1.5},
        4,
    ),
}

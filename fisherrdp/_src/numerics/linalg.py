"""Small dense linear algebra shared across layers (NumPy, concrete arrays)."""

from __future__ import annotations

import numpy as np


def procrustes(v: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Uw for U ∈ O(d) minimising ‖Uw − v‖_F: U = A Bᵀ with v wᵀ = A Σ Bᵀ."""
    a, _, bt = np.linalg.svd(v @ w.T)
    return a @ (bt @ w)

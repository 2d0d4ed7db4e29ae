r"""Static partition tables for the Koev–Edelman series of ₀F₁ of a matrix argument (Jack α = 2).

Built once per (k, M) in NumPy (cached) and used as constants by
:mod:`fisherrdp._src.special.hyp0f1_matrix`.

For the partitions κ with ℓ(κ) ≤ k and |κ| ≤ M, and every level m = 1 … k, the table lists the
pairs (κ, μ) with κ/μ a horizontal strip, ℓ(κ) ≤ m, ℓ(μ) ≤ m − 1 (so μ_i ∈ [κ_{i+1}, κ_i]), the
strip size s = |κ| − |μ| and the weight

.. math::

    \gamma_{\kappa\mu}^{(m)} = \beta_{\kappa\mu}\,\frac{J_\mu(1^{m-1})}{J_\kappa(1^m)},
    \qquad J_\kappa(1^m) = \prod_{(i,j)\in\kappa} \bigl(m - i + 1 + 2(j-1)\bigr),

so that the normalised Jack polynomials R^{(m)}_κ(y) = J_κ(y_1..y_m)/J_κ(1^m) obey
R^{(m)}_κ = Σ_μ γ R^{(m−1)}_μ y_m^s with Σ_μ γ = 1 (the recursion at y = 1): a convex
combination, so R stays in [0, 1] for y ∈ [0, 1]^m (no overflow at any M). The identity
Σ_μ γ = 1 is checked when the table is built; it tests the β convention of ``docs/math/hyp0f1_matrix.md#the-beta-convention``
(B = h^* on columns the strip misses, h_* on columns it meets).

β is summed row by row from prefix sums of log-hooks: on the strip columns
S = ∪_r (μ_r, κ_r] the lower hook h_* replaces the upper hook h^*, so
Σ_{j ≤ ν_i} log B^ν(i, j) = U_ν(i) + Σ_r [D_ν(i, κ_r) − D_ν(i, μ_r)], with U the full sum of
log h^* over row i and D(i, c) the prefix sum of log h_* − log h^* over columns ≤ c.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np
from scipy.special import gammaln


class Level(NamedTuple):
    src: np.ndarray  # index of μ (int32)
    dst: np.ndarray  # index of κ (int32)
    strip: np.ndarray  # |κ| − |μ| (int32)
    weight: np.ndarray  # γ (float64)


class PartitionTable(NamedTuple):
    parts: np.ndarray  # (P, k) int, rows non-increasing
    size: np.ndarray  # (P,) |κ|
    log_a: np.ndarray  # (P,) |κ| log 2 + log J_κ(1^k) − log j_κ
    levels: tuple[Level, ...]


def _all_partitions(k: int, max_size: int) -> np.ndarray:
    out: list[tuple[int, ...]] = []

    def grow(prefix: list[int], remaining: int, largest: int) -> None:
        if len(prefix) == k:
            out.append(tuple(prefix))
            return
        for p in range(min(largest, remaining) + 1):
            grow(prefix + [p], remaining - p, p)

    grow([], max_size, max_size)
    parts = np.array(out, dtype=np.int64).reshape(-1, k)
    order = np.lexsort(tuple(parts[:, i] for i in range(k - 1, -1, -1)) + (parts.sum(1),))
    return parts[order]


def _log_jack_at_ones(parts: np.ndarray, m: int) -> np.ndarray:
    """log J_κ(1^m) = Σ_i Σ_{j ≤ κ_i} log(m − i + 1 + 2(j − 1)), for ℓ(κ) ≤ m."""
    total = np.zeros(len(parts))
    for i in range(parts.shape[1]):
        c = (m - i) / 2.0  # (m − (i+1) + 1)/2, row i+1 (1-based)
        row = parts[:, i]
        if c > 0:
            total += row * math.log(2.0) + gammaln(c + row) - gammaln(c)
    return total


def _hook_prefix(parts: np.ndarray, max_size: int):
    """U (P, k): Σ_row log h^*;  D (P, k, M+1): prefix Σ_{j ≤ c} (log h_* − log h^*)."""
    n, k = parts.shape
    cols = np.arange(1, max_size + 1)
    conj = (parts[:, :, None] >= cols[None, None, :]).sum(1)  # (P, M): κ'_j
    upper = np.zeros((n, k))
    prefix = np.zeros((n, k, max_size + 1))
    for i in range(k):
        inside = cols[None, :] <= parts[:, i : i + 1]
        h_up = conj - (i + 1) + 2 * (parts[:, i : i + 1] - cols[None, :] + 1)
        h_low = conj - (i + 1) + 1 + 2 * (parts[:, i : i + 1] - cols[None, :])
        log_up = np.where(inside, np.log(np.where(inside, h_up, 1)), 0.0)
        log_low = np.where(inside, np.log(np.where(inside, h_low, 1)), 0.0)
        upper[:, i] = log_up.sum(1)
        prefix[:, i, 1:] = np.cumsum(log_low - log_up, axis=1)
    return conj, upper, prefix


def _log_j(parts: np.ndarray, conj: np.ndarray, max_size: int) -> np.ndarray:
    """log j_κ = Σ_cells log(h^* h_*)."""
    cols = np.arange(1, max_size + 1)
    total = np.zeros(len(parts))
    for i in range(parts.shape[1]):
        inside = cols[None, :] <= parts[:, i : i + 1]
        h_up = conj - (i + 1) + 2 * (parts[:, i : i + 1] - cols[None, :] + 1)
        h_low = conj - (i + 1) + 1 + 2 * (parts[:, i : i + 1] - cols[None, :])
        total += np.where(inside, np.log(np.where(inside, h_up * h_low, 1)), 0.0).sum(1)
    return total


def _encode(parts: np.ndarray, max_size: int) -> np.ndarray:
    key = np.zeros(len(parts), dtype=np.int64)
    for i in range(parts.shape[1]):
        key = key * (max_size + 1) + parts[:, i]
    return key


@functools.lru_cache(maxsize=16)
def partition_table(k: int, max_size: int) -> PartitionTable:
    """Partitions with ℓ ≤ k, |κ| ≤ max_size, and the strip pairs of every level (cached)."""
    parts = _all_partitions(k, max_size)
    size = parts.sum(1)
    length = (parts > 0).sum(1)
    keys = _encode(parts, max_size)
    sorter = np.argsort(keys)
    conj, upper, prefix = _hook_prefix(parts, max_size)
    log_j = _log_j(parts, conj, max_size)
    log_a = size * math.log(2.0) + _log_jack_at_ones(parts, k) - log_j
    upper_total = upper.sum(1)
    d_total = prefix.sum(1)  # (P, M+1)
    d_self = np.take_along_axis(d_total, parts, axis=1).sum(1)  # Σ_r D_ν(ν_r)
    log_jack_ones = [_log_jack_at_ones(parts, m) for m in range(k + 1)]

    levels = []
    for m in range(1, k + 1):
        kappa = np.nonzero(length <= m)[0]
        # Enumerate μ_i ∈ [κ_{i+1}, κ_i] for i < m (rows ≥ m of μ are 0).
        idx = kappa
        mu = np.zeros((len(idx), k), dtype=np.int64)
        for i in range(m - 1):
            lo, hi = parts[idx, i + 1], parts[idx, i]
            count = hi - lo + 1
            rep = np.repeat(np.arange(len(idx)), count)
            offset = np.arange(count.sum()) - np.repeat(np.cumsum(count) - count, count)
            idx, mu = idx[rep], mu[rep]
            mu[:, i] = lo[rep] + offset
        src = sorter[np.searchsorted(keys, _encode(mu, max_size), sorter=sorter)]
        kap = parts[idx]
        # log β = Σ_rows(κ) − Σ_rows(μ), each Σ_i U_ν(i) + Σ_r [D_ν(κ_r) − D_ν(μ_r)], D summed over rows.
        # D_ν(ν_r) summed over r depends on ν alone (d_self); the cross terms need gathers.
        log_beta = upper_total[idx] - upper_total[src] + d_self[idx] + d_self[src]
        for r in range(m):
            log_beta -= d_total[idx, mu[:, r]] + d_total[src, kap[:, r]]
        log_gamma = log_beta + log_jack_ones[m - 1][src] - log_jack_ones[m][idx]
        weight = np.exp(log_gamma)
        # Σ_μ γ = 1 for every κ: the recursion at y = (1, …, 1).
        sums = np.bincount(idx, weights=weight, minlength=len(parts))[kappa]
        if not np.allclose(sums, 1.0, rtol=1e-11, atol=0):
            raise AssertionError(
                f"Jack weights do not sum to one (k={k}, m={m}): {sums.min()}..{sums.max()}"
            )
        strip = size[idx] - size[src]
        levels.append(
            Level(src.astype(np.int32), idx.astype(np.int32), strip.astype(np.int32), weight)
        )
    return PartitionTable(parts, size, log_a, tuple(levels))

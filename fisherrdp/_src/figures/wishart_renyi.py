r"""The figure ``wishart_renyi.png``: K = 2: the exact Rényi divergence of the Gram matrices
(:func:`fisherrdp.divergences.renyi_ncwishart`) against Δ for several kinds of pairs, with
Theorem 5.4 (both readings) and post-processing.
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.bounds.theorems import theorem54_bound
from fisherrdp._src.figures.common import (
    new_figure,
)

__all__ = ['wishart_renyi_data', 'wishart_renyi_figure']


def wishart_renyi_data(
    alpha: float = 4.0,
    d: int = 12,
    *,
    C: float = 1.0,
    n_delta: int = 6,
    pairs=("scaled", "random", "rank_one"),
    seed: int = 0,
) -> dict:
    r"""Exact k = 2 Rényi divergence against Δ, with Theorem 5.4 and post-processing.

    For each Δ (``n_delta`` values equally spaced in :math:`[0.1C, 0.9C]`) and each kind of pair
    of :mod:`fisherrdp._src.checks.wishart` (:math:`\|v\|_F = C`, :math:`\|v - w\|_F = \Delta`,
    fixed ``seed``), the exact :math:`\max(D_\alpha(P_v\|P_w), D_\alpha(P_w\|P_v))` of the
    laws of :math:`V^\top V` (:func:`fisherrdp.divergences.renyi_ncwishart`, k = 2), with
    Theorem 5.4 in both readings (:func:`fisherrdp.bounds.theorem54_bound`) and the
    post-processing value :math:`\alpha\Delta^2/2`.

    Args:
        alpha: Rényi order, ``> 1``.
        d: Model width, an integer ``>= 2``.
        C: Frobenius-norm bound, ``> 0``.
        n_delta: Number of Δ values, an integer ``>= 2``.
        pairs: Kinds of pairs (names in ``PAIR_KINDS``).
        seed: Seed of the pairs.

    Returns:
        A dict with ``delta`` (n_delta,), ``renyi`` (n_pairs, n_delta), ``pairs``,
        ``thm54_rederived``, ``thm54_printed`` and ``postprocessing`` (n_delta,), and the
        scalars ``alpha``, ``d``, ``C``.

    Raises:
        ValueError: For ``n_delta`` not an integer ``>= 2``, ``alpha <= 1``, or a grid the
            pair generator rejects.
    """
    from fisherrdp._src.checks.wishart import WishartGrid, wishart_pairs
    from fisherrdp.divergences import renyi_ncwishart

    if int(n_delta) != n_delta or n_delta < 2:
        raise ValueError(f"argument 'n_delta' must be an integer >= 2, got {n_delta!r}")
    if not alpha > 1:
        raise ValueError(f"argument 'alpha' must be > 1, got {alpha!r}")
    delta = np.linspace(0.1, 0.9, int(n_delta)) * C
    pairs = tuple(pairs)
    renyi = np.empty((len(pairs), delta.size))
    for j, x in enumerate(delta):
        grid = WishartGrid(dims=((2, int(d)),), C=C, delta=(float(x),), pairs=pairs, seed=seed)
        for i, p in enumerate(wishart_pairs(grid)):
            both = renyi_ncwishart(alpha, float(d), np.stack([p["v"], p["w"]]),
                                   np.stack([p["w"], p["v"]]))
            renyi[i, j] = float(np.max(both))
    out = {
        f"thm54_{variant}": np.asarray(
            theorem54_bound(alpha, d, 2, C, delta, variant=variant)
        )
        for variant in ("rederived", "printed")
    }
    return out | {
        "delta": delta,
        "renyi": renyi,
        "pairs": pairs,
        "postprocessing": 0.5 * alpha * delta**2,
        "alpha": float(alpha),
        "d": int(d),
        "C": float(C),
    }


def wishart_renyi_figure(data: dict | None = None):
    """Figure: exact k = 2 D_α against Δ per kind of pair, Theorem 5.4 and post-processing."""
    data = wishart_renyi_data() if data is None else data
    fig, (ax,) = new_figure(1)
    delta = data["delta"]
    for i, kind in enumerate(data["pairs"]):
        ax.plot(delta, data["renyi"][i], "o-", ms=3, color=f"C{i}",
                label=f"exact D_α, {kind.replace('_', ' ')} pair")
    ax.plot(delta, data["thm54_rederived"], "k--", label="Thm 5.4, re-derived")
    ax.plot(delta, data["thm54_printed"], "k:", label="Thm 5.4, as printed")
    ax.plot(delta, data["postprocessing"], "C7-.", label="post-processing αΔ²/2")
    ax.set_yscale("log")
    ax.set_xlabel("Δ = ‖v − w‖_F")
    ax.set_ylabel("Rényi divergence of VᵀV")
    ax.set_title(f"k = 2, d = {data['d']}, C = {data['C']:g}, α = {data['alpha']:g}", fontsize=10)
    ax.legend(fontsize=7)
    return fig

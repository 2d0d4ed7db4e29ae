r"""The figure ``loss_vs_dimension.png``: The paper's Fig. 6 with the exact loss: against
:math:`d`, the exact :math:`D_\alpha` of the pair :math:`(\|v\|, \|w\|) = (C, C - \Delta)`,
the numerical path bound (Prop 3.2 with the exact :math:`\sqrt I`), Theorem 5.2 as re-derived
and as printed, and the model-release (post-processing) value :math:`\alpha\Delta^2/2`.
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.bounds.path_bound import path_bound_ncx2
from fisherrdp._src.bounds.renyi_envelopes import gaussian_renyi
from fisherrdp._src.bounds.theorems import theorem52_bound
from fisherrdp._src.figures.common import (
    new_figure,
    renyi_grid,
)

__all__ = ['loss_vs_dimension_data', 'loss_vs_dimension_figure']


def loss_vs_dimension_data(
    *, alpha: float = 2.0, C: float = 1.0, delta: float = 0.5, n_d: int = 40
) -> dict:
    """Exact loss, path bound, Theorem 5.2 (both readings) and post-processing against d."""
    d = np.geomspace(1.0, 1e4, n_d)
    a, b = C, max(C - delta, 0.0)
    return {
        "d": d,
        "alpha": alpha,
        "C": C,
        "delta": delta,
        "exact": renyi_grid(alpha, d, a, b),
        "path bound (Prop 3.2, exact √I)": np.asarray(path_bound_ncx2(alpha, d, a, b)),
        "Theorem 5.2 (re-derived)": np.asarray(theorem52_bound(alpha, d, C, delta)),
        "Theorem 5.2 (as printed)": np.asarray(
            theorem52_bound(alpha, d, C, delta, variant="printed")
        ),
        "model release αΔ²/2": np.full_like(d, float(gaussian_renyi(alpha, delta))),
    }


def loss_vs_dimension_figure(data: dict | None = None):
    """Figure (iii): exact synthetic-release loss and its bounds against d (Fig. 6)."""
    data = loss_vs_dimension_data() if data is None else data
    fig, (ax,) = new_figure(1, size=(6.5, 4.5))
    styles = {
        "path bound (Prop 3.2, exact √I)": ("C0", "-"),
        "Theorem 5.2 (re-derived)": ("C1", "--"),
        "Theorem 5.2 (as printed)": ("C2", ":"),
        "model release αΔ²/2": ("0.5", "-."),
    }
    ax.plot(data["d"], data["exact"], color="k", lw=2, label="exact D_α(VᵀV‖WᵀW)")
    for name, (color, style) in styles.items():
        ax.plot(data["d"], data[name], color=color, ls=style, label=name)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("d")
    ax.set_ylabel("Rényi divergence")
    ax.set_title(
        f"k = 1, α = {data['alpha']:g}, ‖v‖ = C = {data['C']:g}, "
        f"‖w‖ = {max(data['C'] - data['delta'], 0):g}"
    )
    ax.legend(fontsize=8)
    return fig

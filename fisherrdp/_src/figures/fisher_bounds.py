r"""The figure ``fisher_bounds.png``: :math:`I(d, \theta)` against :math:`\theta` with every Fisher
bound of the paper (Prop 5.1 lower/upper, App. E.1 quadratic and Idier–Collewet, App. F.3
Poincaré, the trivial 1), one panel per :math:`d`.
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.bounds.fisher_information import (
    fisher_lower_prop51,
    fisher_upper_idier_collewet,
    fisher_upper_poincare,
    fisher_upper_prop51,
    fisher_upper_quadratic,
    fisher_upper_trivial,
)
from fisherrdp._src.figures.common import (
    new_figure,
)
from fisherrdp._src.fisher.ncx2 import ncx2_amplitude_fisher

__all__ = ['fisher_bounds_data', 'fisher_bounds_figure']


_FISHER_BOUNDS = (
    ("Prop 5.1 lower", fisher_lower_prop51, "C0", "--"),
    ("Prop 5.1 upper", fisher_upper_prop51, "C1", "--"),
    ("App. E.1 quadratic", fisher_upper_quadratic, "C2", ":"),
    ("Idier–Collewet", fisher_upper_idier_collewet, "C3", "-."),
    ("Poincaré (App. F.3)", fisher_upper_poincare, "C4", ":"),
    ("trivial (1)", fisher_upper_trivial, "0.6", "-"),
)


def fisher_bounds_data(d_values=(4, 10, 100, 1000), n_theta: int = 200) -> dict:
    """I(d, θ) and every Fisher bound on a log grid θ ∈ [0.01, 100], for each d."""
    theta = np.geomspace(0.01, 100.0, n_theta)
    d = np.asarray(d_values, dtype=float)[:, None]
    data = {"d": np.asarray(d_values, float), "theta": theta}
    data["fisher"] = np.asarray(ncx2_amplitude_fisher(d, theta[None, :]))
    for name, fn, _, _ in _FISHER_BOUNDS:
        data[name] = np.asarray(fn(d, theta[None, :]))
    return data


def fisher_bounds_figure(data: dict | None = None):
    """Figure (i): the Fisher information against θ with all bounds, one panel per d."""
    data = fisher_bounds_data() if data is None else data
    ncols = min(2, len(data["d"]))
    fig, axes = new_figure(ncols, -(-len(data["d"]) // ncols))
    for i, (ax, d) in enumerate(zip(axes, data["d"])):
        for name, _, color, style in _FISHER_BOUNDS:
            ax.plot(data["theta"], data[name][i], color=color, linestyle=style, label=name)
        ax.plot(data["theta"], data["fisher"][i], color="k", lw=2, label="exact I(d, θ)")
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("θ = ‖v‖")
        ax.set_title(f"d = {d:g}")
    for ax in axes[::ncols]:
        ax.set_ylabel("Fisher information")
    for ax in axes[len(data["d"]) :]:
        ax.set_visible(False)
    axes[0].legend(fontsize=7, loc="upper left")
    fig.suptitle("Fisher information of θ ↦ χ²_d(θ²) and the paper's bounds")
    return fig

r"""The figure ``sigma_vs_dimension.png``: The noise σ a target :math:`(\varepsilon, \delta)` needs,
for the synthetic release against :math:`d` (:func:`fisherrdp.accounting.calibrate_sigma`)
and for the model release.
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.figures.common import (
    new_figure,
)

__all__ = ['sigma_vs_dimension_data', 'sigma_vs_dimension_figure']


def sigma_vs_dimension_data(
    *,
    target_epsilon: float = 1.0,
    target_delta: float = 1e-5,
    k: int = 1,
    C: float = 1.0,
    sensitivity: float = 0.1,
    d_values=(1, 2, 5, 10, 20, 50, 100, 200, 500, 1000),
) -> dict:
    """σ needed for (ε, δ) by the synthetic release against d, and by the model release."""
    from fisherrdp.accounting import calibrate_sigma

    d_values = np.asarray(d_values, float)
    cals = [calibrate_sigma(target_epsilon, target_delta, d, k, C, sensitivity) for d in d_values]
    return {
        "d": d_values,
        "sigma": np.array([c.sigma for c in cals]),
        "sigma_model": cals[0].sigma_model,
        "target_epsilon": target_epsilon,
        "target_delta": target_delta,
        "k": k,
        "C": C,
        "sensitivity": sensitivity,
    }


def sigma_vs_dimension_figure(data: dict | None = None):
    """Figure: noise needed for a target (ε, δ), synthetic vs model release, against d."""
    data = sigma_vs_dimension_data() if data is None else data
    fig, (ax,) = new_figure(1, size=(6.0, 4.2))
    ax.plot(data["d"], data["sigma"], "o-", color="k", label="synthetic release")
    ax.axhline(data["sigma_model"], color="0.4", ls="-.", label="model release")
    ax.set_xscale("log")
    ax.set_xlabel("d")
    ax.set_ylabel("σ needed")
    ax.set_ylim(bottom=0)
    ax.set_title(
        f"(ε, δ) = ({data['target_epsilon']:g}, {data['target_delta']:g}), k = {data['k']}, "
        f"C = {data['C']:g}, Δ = {data['sensitivity']:g}",
        fontsize=9,
    )
    ax.legend(fontsize=8)
    return fig

r"""The figures of ``fisherrdp figures``, as functions returning :class:`matplotlib.figure.Figure`.

Each ``*_data`` function computes the curves (NumPy arrays in a dict) and each ``*_figure``
function draws them; the drawing uses :class:`matplotlib.figure.Figure` directly (no ``pyplot``
state), so it works with any backend and in notebooks.

1. :func:`fisher_bounds_figure` — :math:`I(d, \theta)` against :math:`\theta` with every Fisher
   bound of the paper (Prop 5.1 lower/upper, App. E.1 quadratic and Idier–Collewet, App. F.3
   Poincaré, the trivial 1), one panel per :math:`d`.
2. :func:`amplification_ratio_figure` — the paper's Fig. 3, exact: the amplification ratio
   :math:`\eta_d = D_\alpha(V^\top V\|W^\top W)/D_\alpha(V\|W)
   = D_\alpha(\chi^2_d(a^2)\|\chi^2_d(b^2)) / (\alpha\Delta^2/2)`, :math:`a = b + \Delta`, against
   :math:`\Delta`, with the Theorem 5.1 envelope :math:`[2b^2/(2b^2+d),\ 2C^2/(2C^2+d-3)]`
   (the paper's setting :math:`\|w\| = b = 1`, :math:`C = 2`, :math:`\Delta \in (0, 1]`).
3. :func:`loss_vs_dimension_figure` — the paper's Fig. 6 with the exact loss: against
   :math:`d`, the exact :math:`D_\alpha` of the pair :math:`(\|v\|, \|w\|) = (C, C - \Delta)`,
   the numerical path bound (Prop 3.2 with the exact :math:`\sqrt I`), Theorem 5.2 as re-derived
   and as printed, and the model-release (post-processing) value :math:`\alpha\Delta^2/2`.
"""

from __future__ import annotations

import numpy as np

from fisherrdp import bounds
from fisherrdp._src.batching import map_in_chunks
from fisherrdp._src.divergences.renyi import _renyi_vec
from fisherrdp.fisher import ncx2_amplitude_fisher

__all__ = [
    "amplification_ratio_data",
    "amplification_ratio_figure",
    "fisher_bounds_data",
    "fisher_bounds_figure",
    "loss_vs_dimension_data",
    "loss_vs_dimension_figure",
]

_FISHER_BOUNDS = (
    ("Prop 5.1 lower", bounds.fisher_lower_prop51, "C0", "--"),
    ("Prop 5.1 upper", bounds.fisher_upper_prop51, "C1", "--"),
    ("App. E.1 quadratic", bounds.fisher_upper_quadratic, "C2", ":"),
    ("Idier–Collewet", bounds.fisher_upper_idier_collewet, "C3", "-."),
    ("Poincaré (App. F.3)", bounds.fisher_upper_poincare, "C4", ":"),
    ("trivial (1)", bounds.fisher_upper_trivial, "0.6", "-"),
)


#: Points per compiled call of the Rényi divergence (one compilation serves every figure).
RENYI_CHUNK = 128


def _renyi(alpha, d, a, b) -> np.ndarray:
    """``renyi_ncx2`` on broadcast arguments, in chunks of one fixed size."""
    arrays = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (alpha, d, a, b)))
    (flat,) = map_in_chunks(_renyi_vec, [x.ravel() for x in arrays], RENYI_CHUNK)
    return flat.reshape(arrays[0].shape)


def _figure(ncols: int, nrows: int = 1, size=(5.0, 3.8)):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(size[0] * ncols, size[1] * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes.ravel()


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
    fig, axes = _figure(ncols, -(-len(data["d"]) // ncols))
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


def amplification_ratio_data(
    d_values=(2, 5, 10, 50),
    *,
    alpha: float = 2.0,
    w_norm: float = 1.0,
    C: float = 2.0,
    n_delta: int = 40,
) -> dict:
    """η_d against Δ ∈ (0, C − ‖w‖] for a = ‖w‖ + Δ, b = ‖w‖ (exact), and the Thm 5.1 envelope."""
    delta = np.linspace(0.0, C - w_norm, n_delta + 1)[1:]
    delta = np.concatenate([[1e-3 * delta[0]], delta])  # next to the Δ → 0 limit
    d = np.asarray(d_values, dtype=float)[:, None]
    renyi = _renyi(alpha, d, w_norm + delta[None, :], w_norm)
    eta = renyi / np.asarray(bounds.gaussian_renyi(alpha, delta))[None, :]
    lower, upper = bounds.theorem51_envelope(np.asarray(d_values, float), w_norm, C)
    return {
        "d": np.asarray(d_values, float),
        "delta": delta,
        "eta": eta,
        "lower": np.asarray(lower),
        "upper": np.asarray(upper),
        "alpha": alpha,
        "w_norm": w_norm,
        "C": C,
    }


def amplification_ratio_figure(data: dict | None = None):
    """Figure (ii): the exact amplification ratio η_d against Δ with the Thm 5.1 envelope."""
    data = amplification_ratio_data() if data is None else data
    fig, (ax,) = _figure(1, size=(6.5, 4.5))
    for i, d in enumerate(data["d"]):
        color = f"C{i}"
        ax.plot(data["delta"], data["eta"][i], color=color, lw=2, label=f"exact η, d = {d:g}")
        ax.fill_between(data["delta"], data["lower"][i], data["upper"][i], color=color, alpha=0.12)
        ax.axhline(data["lower"][i], color=color, ls="--", lw=0.8)
        ax.axhline(data["upper"][i], color=color, ls=":", lw=0.8)
    ax.set_xlabel("Δ = ‖v‖ − ‖w‖")
    ax.set_ylabel("η = D_α(VᵀV‖WᵀW) / D_α(V‖W)")
    ax.set_ylim(0, 1.05)
    ax.set_title(
        f"Exact amplification ratio, α = {data['alpha']:g}, ‖w‖ = {data['w_norm']:g}, "
        f"C = {data['C']:g}\nbands: Theorem 5.1 envelope (leading order in Δ)",
        fontsize=10,
    )
    ax.legend(fontsize=8)
    return fig


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
        "exact": _renyi(alpha, d, a, b),
        "path bound (Prop 3.2, exact √I)": np.asarray(bounds.path_bound_ncx2(alpha, d, a, b)),
        "Theorem 5.2 (re-derived)": np.asarray(bounds.theorem52_bound(alpha, d, C, delta)),
        "Theorem 5.2 (as printed)": np.asarray(
            bounds.theorem52_bound(alpha, d, C, delta, variant="printed")
        ),
        "model release αΔ²/2": np.full_like(d, float(bounds.gaussian_renyi(alpha, delta))),
    }


def loss_vs_dimension_figure(data: dict | None = None):
    """Figure (iii): exact synthetic-release loss and its bounds against d (Fig. 6)."""
    data = loss_vs_dimension_data() if data is None else data
    fig, (ax,) = _figure(1, size=(6.5, 4.5))
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

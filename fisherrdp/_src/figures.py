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
   (the paper's setting :math:`\|w\| = b = 1`, :math:`C = 2`, :math:`\Delta \in (0, 1]`), and
   optionally variational estimates of :math:`\eta_d` at a few :math:`\Delta`
   (:func:`fisherrdp.variational.estimate_renyi` on samples of :math:`\|V\|^2` and
   :math:`\|W\|^2`, divided by :math:`\alpha\Delta^2/2`), as the paper plots them.
3. :func:`loss_vs_dimension_figure` — the paper's Fig. 6 with the exact loss: against
   :math:`d`, the exact :math:`D_\alpha` of the pair :math:`(\|v\|, \|w\|) = (C, C - \Delta)`,
   the numerical path bound (Prop 3.2 with the exact :math:`\sqrt I`), Theorem 5.2 as re-derived
   and as printed, and the model-release (post-processing) value :math:`\alpha\Delta^2/2`.
4. :func:`privacy_profiles_figure` — the accountant's view (``fisherrdp account``): the exact
   privacy profiles :math:`\delta(\varepsilon)` of the model release and of the synthetic
   release (worst admissible pair), and the RDP curves of both.
5. :func:`sigma_vs_dimension_figure` — the noise σ a target :math:`(\varepsilon, \delta)` needs,
   for the synthetic release against :math:`d` (:func:`fisherrdp.accounting.calibrate_sigma`)
   and for the model release.
6. :func:`release_vs_nsyn_figure` — the paper's Fig. 2, exact: the loss
   :math:`D_\alpha(ZV\|ZW)` of a release of :math:`n_{\mathrm{syn}}` synthetic records
   (:func:`fisherrdp.divergences.renyi_release_k1`) against :math:`n_{\mathrm{syn}}`, its
   plateau at :math:`n_{\mathrm{syn}} = \infty` (:func:`fisherrdp.divergences.renyi_ncx2`), the
   post-processing value :math:`\alpha(a-b)^2/2` of the model release, and optionally the
   variational estimates the paper plots (:func:`fisherrdp.variational.estimate_renyi`).
7. :func:`wishart_fisher_figure` — k > 1: the Monte Carlo Fisher information along the
   non-central Wishart path (:func:`fisherrdp.fisher.wishart_path_fisher`, ±3 standard errors)
   against θ with the Theorem 5.3 bound in both readings, one panel per k, and for k = 2 the
   exact Fisher information (:func:`fisherrdp.fisher.wishart_path_fisher_exact`).
8. :func:`wishart_renyi_figure` — k = 2: the exact Rényi divergence of the Gram matrices
   (:func:`fisherrdp.divergences.renyi_ncwishart`) against Δ for several kinds of pairs, with
   Theorem 5.4 (both readings) and post-processing.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from fisherrdp import bounds
from fisherrdp._src.accounting.synthetic import _release_renyi_pair, _renyi_pair
from fisherrdp._src.divergences.release_k1 import check_release_args
from fisherrdp._src.scan.engine import map_points
from fisherrdp.fisher import ncx2_amplitude_fisher

__all__ = [
    "amplification_ratio_data",
    "amplification_ratio_figure",
    "fisher_bounds_data",
    "fisher_bounds_figure",
    "loss_vs_dimension_data",
    "loss_vs_dimension_figure",
    "privacy_profiles_data",
    "privacy_profiles_figure",
    "release_vs_nsyn_data",
    "release_vs_nsyn_figure",
    "sigma_vs_dimension_data",
    "sigma_vs_dimension_figure",
    "wishart_fisher_data",
    "wishart_fisher_figure",
    "wishart_renyi_data",
    "wishart_renyi_figure",
]

_FISHER_BOUNDS = (
    ("Prop 5.1 lower", bounds.fisher_lower_prop51, "C0", "--"),
    ("Prop 5.1 upper", bounds.fisher_upper_prop51, "C1", "--"),
    ("App. E.1 quadratic", bounds.fisher_upper_quadratic, "C2", ":"),
    ("Idier–Collewet", bounds.fisher_upper_idier_collewet, "C3", "-."),
    ("Poincaré (App. F.3)", bounds.fisher_upper_poincare, "C4", ":"),
    ("trivial (1)", bounds.fisher_upper_trivial, "0.6", "-"),
)


#: Points per compiled call of the Rényi divergence (one compilation serves every figure, and the
#: accountant's searches: the kernel and chunk size of its n_syn = ∞ RDP curves).
RENYI_CHUNK = 128


def _renyi(alpha, d, a, b) -> np.ndarray:
    """``renyi_ncx2`` on broadcast arguments, in chunks of one fixed size."""
    alpha, d, a, b = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (alpha, d, a, b)))
    (flat,) = map_points(_renyi_pair, [x.ravel() for x in (alpha, a, b, d)], chunk=RENYI_CHUNK)
    return flat.reshape(alpha.shape)


def _figure(ncols: int, nrows: int = 1, size=(5.0, 3.8)):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(size[0] * ncols, size[1] * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes.ravel()


def _variational_grid(alpha, d_values, points, samplers, *, key, steps, n_eval) -> np.ndarray:
    """(estimate, ci_low, ci_high) of :func:`fisherrdp.variational.estimate_renyi` on
    ``samplers(d, point)`` for every d and point: shape ``(3, len(d_values), len(points))``
    (key ``jax.random.key(0)`` by default, split once per training)."""
    import jax

    from fisherrdp.variational import estimate_renyi

    key = jax.random.key(0) if key is None else key
    keys = jax.random.split(key, len(d_values) * len(points)).reshape(len(d_values), len(points))
    out = np.empty((3, len(d_values), len(points)))
    for i, di in enumerate(d_values):
        for j, point in enumerate(points):
            sample_p, sample_q = samplers(int(di), float(point))
            # One network per point (members=1): the figure's ~40 points keep the cost of
            # `figures --full` at ~20-25 min; the overlay shows estimates, not diagnostics.
            r = estimate_renyi(
                sample_p, sample_q, alpha, key=keys[i, j], steps=steps, n_eval=n_eval, members=1
            )
            out[:, i, j] = r.estimate, r.ci_low, r.ci_high
    return out


def _draw_estimates(ax, x, data: dict, i: int, color: str) -> None:
    """Row ``i`` of a data dict's variational estimates as error bars (95% intervals)."""
    est = data["estimate"][i]
    err = np.stack([est - data["ci_low"][i], data["ci_high"][i] - est])
    label = f"variational estimate (95%), d = {data['d'][i]:g}"
    ax.errorbar(x, est, yerr=err, fmt="o", color=color, ms=4, capsize=3, label=label)


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
    estimates: bool = False,
    estimate_points=(0.25, 0.5, 1.0),
    steps: int = 1000,
    n_eval: int = 100_000,
    key=None,
) -> dict:
    """Exact η_d against Δ ∈ (0, C − ‖w‖], the Thm 5.1 envelope, and optional estimates.

    Args:
        d_values: model dimensions (integers when ``estimates`` is on: the samplers need them).
        alpha: Rényi order, ``> 1``.
        w_norm: ``b = ‖w‖``; ``a = ‖v‖ = b + Δ``.
        C: the bound on the norms of Theorem 5.1 (the Δ grid ends at ``C − w_norm``).
        n_delta: points of the Δ grid (plus one next to the Δ → 0 limit).
        estimates: also run :func:`fisherrdp.variational.estimate_renyi` on the two laws of
            ``VᵀV = ‖V‖²`` (:func:`fisherrdp.release.release_samplers` with ``k = 1``,
            ``n_syn = inf``: the feature ``log‖V‖²``) at ``estimate_points`` for every d, and
            divide by ``αΔ²/2``. Each is a training of ``steps`` steps; with the defaults (12
            trainings of 1000 steps, n_eval 100 000), measured 5.5-9 s each on 2 CPU cores at
            load 3 and 16-41 s each while another JAX job competed, 261 s in all. All 12 95%
            intervals covered the exact η; relative errors −12% to +14% (the largest where
            D_α ≈ 0.013, at d = 50, Δ = 0.5 and d = 10, Δ = 0.25), within ±5.3% elsewhere.
        estimate_points: the Δ of the estimates, each finite and ``> 0``.
        steps, n_eval: training steps and held-out samples of each estimate.
        key: ``jax.random`` key of the estimates (default ``jax.random.key(0)``).

    Returns:
        A dict: ``d``, ``delta``, ``eta`` (shape ``(len(d), len(delta))``), ``lower`` and
        ``upper`` (the envelope, ``(len(d),)``), the settings, and with estimates
        ``estimate_delta``, ``estimate``, ``ci_low``, ``ci_high`` and ``estimate_exact`` (η
        values, each ``(len(d), len(estimate_points))``; the 95% intervals are those of
        D_α divided by ``αΔ²/2``).

    Raises:
        ValueError: naming the argument, if ``estimates`` is on and ``d_values`` are not
            integers ``>= 1`` or ``estimate_points`` are not finite and ``> 0``.
    """
    if estimates:  # checked first: the exact curves cost a compilation
        d_flat = np.asarray(d_values, float).ravel()
        if d_flat.size == 0 or not np.all((d_flat >= 1) & (d_flat == np.round(d_flat))):
            raise ValueError(
                f"argument 'd_values' must be integers >= 1 with estimates=True, got {d_values!r}"
            )
        points = np.asarray(estimate_points, float).ravel()
        if points.size == 0 or not np.all(np.isfinite(points) & (points > 0)):
            raise ValueError(
                f"argument 'estimate_points' must be finite values > 0, got {estimate_points!r}"
            )
    delta = np.linspace(0.0, C - w_norm, n_delta + 1)[1:]
    delta = np.concatenate([[1e-3 * delta[0]], delta])  # next to the Δ → 0 limit
    d = np.asarray(d_values, dtype=float)[:, None]
    renyi = _renyi(alpha, d, w_norm + delta[None, :], w_norm)
    eta = renyi / np.asarray(bounds.gaussian_renyi(alpha, delta))[None, :]
    lower, upper = bounds.theorem51_envelope(np.asarray(d_values, float), w_norm, C)
    data = {
        "d": np.asarray(d_values, float),
        "delta": delta,
        "eta": eta,
        "lower": np.asarray(lower),
        "upper": np.asarray(upper),
        "alpha": alpha,
        "w_norm": w_norm,
        "C": C,
    }
    if estimates:
        from fisherrdp.release import release_samplers

        scale = np.asarray(bounds.gaussian_renyi(alpha, points), float)
        out = _variational_grid(  # laws of ‖V‖², ‖W‖²: the n_syn = ∞ release
            alpha,
            d_flat,
            points,
            lambda di, delta_j: release_samplers(1, di, math.inf, w_norm + delta_j, w_norm),
            key=key,
            steps=steps,
            n_eval=n_eval,
        ) / scale[None, None, :]
        exact = _renyi(alpha, d_flat[:, None], w_norm + points[None, :], w_norm)
        data.update(
            estimate_delta=points,
            estimate=out[0],
            ci_low=out[1],
            ci_high=out[2],
            estimate_exact=exact / scale[None, :],
        )
    return data


def amplification_ratio_figure(data: dict | None = None):
    """Figure (ii): the exact amplification ratio η_d against Δ with the Thm 5.1 envelope.

    Args:
        data: the output of :func:`amplification_ratio_data` (default: computed with its
            defaults); when it holds estimates, they are drawn as error-bar markers (95%
            intervals) in each d's colour.

    Returns:
        A :class:`matplotlib.figure.Figure` with one axes.
    """
    data = amplification_ratio_data() if data is None else data
    fig, (ax,) = _figure(1, size=(6.5, 4.5))
    for i, d in enumerate(data["d"]):
        color = f"C{i}"
        ax.plot(data["delta"], data["eta"][i], color=color, lw=2, label=f"exact η, d = {d:g}")
        ax.fill_between(data["delta"], data["lower"][i], data["upper"][i], color=color, alpha=0.12)
        ax.axhline(data["lower"][i], color=color, ls="--", lw=0.8)
        ax.axhline(data["upper"][i], color=color, ls=":", lw=0.8)
        if "estimate" in data:
            _draw_estimates(ax, data["estimate_delta"], data, i, color)
    ax.set_xlabel("Δ = ‖v‖ − ‖w‖")
    ax.set_ylabel("η = D_α(VᵀV‖WᵀW) / D_α(V‖W)")
    ax.set_ylim(0, 1.05)
    ax.set_title(
        f"Exact amplification ratio, α = {data['alpha']:g}, ‖w‖ = {data['w_norm']:g}, "
        f"C = {data['C']:g}\nbands: Theorem 5.1 envelope (leading order in Δ)",
        fontsize=10,
    )
    ax.legend(fontsize=7 if "estimate" in data else 8)
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


def _default_mechanism():
    from fisherrdp.accounting import SyntheticReleaseMechanism

    return SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1, sigma=1.0)


def privacy_profiles_data(mechanism=None, *, n_eps: int = 60, alphas=None) -> dict:
    """Privacy profiles and RDP curves of the model and the synthetic release.

    Args:
        mechanism: A :class:`fisherrdp.accounting.SyntheticReleaseMechanism` (default: the
            README's example, d = 100, k = 1, C = 1, sensitivity = 0.1, σ = 1).
        n_eps: Points of the ε grid, which runs from 0 to the model release's ε at δ = 1e-12.
        alphas: Orders of the RDP curves (default: 40 from 1.1 to 256).
    """
    mech = _default_mechanism() if mechanism is None else mechanism
    eps = np.linspace(0.0, float(mech.model_release_epsilon(1e-12)), n_eps)
    alphas = np.geomspace(1.1, 256.0, 40) if alphas is None else np.asarray(alphas, float)
    return {
        "mechanism": mech,
        "eps": eps,
        "model_profile": np.asarray(mech.model_release_privacy_profile(eps)),
        "synthetic_profile": np.asarray(mech.privacy_profile(eps)),
        "alphas": alphas,
        "model_rdp": np.asarray(mech.model_release_rdp(alphas)),
        "synthetic_rdp": np.asarray(mech.rdp(alphas)),
    }


def _describe(mech) -> str:
    n = "∞" if np.isinf(mech.n_syn) else f"{mech.n_syn:g}"
    return (
        f"d = {mech.d:g}, k = {mech.k}, C = {mech.C:g}, Δ = {mech.sensitivity:g}, "
        f"σ = {mech.sigma:g}, n_syn = {n}"
    )


def privacy_profiles_figure(data: dict | None = None):
    """Figure: δ(ε) and the RDP curves of the model and the synthetic release."""
    data = privacy_profiles_data() if data is None else data
    mech = data["mechanism"]
    kind = "exact" if mech.exact else "upper bound"
    fig, (left, right) = _figure(2)
    floor = 1e-300
    left.plot(data["eps"], np.maximum(data["model_profile"], floor), color="0.4", ls="-.",
              label="model release (exact Gaussian)")
    left.plot(data["eps"], np.maximum(data["synthetic_profile"], floor), color="k", lw=2,
              label=f"synthetic release ({kind})")
    left.set_yscale("log")
    left.set_ylim(max(1e-30, float(np.min(data["model_profile"])) * 1e-3), 1.5)
    left.set_xlabel("ε")
    left.set_ylabel("δ(ε)")
    left.set_title("privacy profiles")
    left.legend(fontsize=8)
    right.plot(data["alphas"], data["model_rdp"], color="0.4", ls="-.", label="model release")
    right.plot(data["alphas"], data["synthetic_rdp"], color="k", lw=2,
               label=f"synthetic release ({kind})")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("α")
    right.set_ylabel("RDP ε(α)")
    right.set_title("Rényi DP")
    right.legend(fontsize=8)
    fig.suptitle(_describe(mech), fontsize=9)
    return fig


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
    fig, (ax,) = _figure(1, size=(6.0, 4.2))
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


#: Points per compiled call of the finite-release divergence (one compilation, ~30-50 s, serves
#: every grid; a point costs ~0.2-0.5 s, so padding is kept small).
RELEASE_CHUNK = 16


#: The default n_syn grid of :func:`release_vs_nsyn_data`: 13 points from 1 to 1e4, log-spaced.
N_SYN_GRID = tuple(np.geomspace(1.0, 1e4, 13).tolist())


def _renyi_release(alpha, d, n_syn, a, b) -> np.ndarray:
    """``renyi_release_k1`` on broadcast arguments, in chunks of one fixed size (points with
    ``n_syn = inf`` are ``renyi_ncx2``'s, as in ``renyi_release_k1``)."""
    shaped = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (alpha, d, n_syn, a, b)))
    alpha, d, n_syn, a, b = (x.ravel() for x in shaped)
    check_release_args(False, alpha, d, n_syn, a, b)
    flat = np.empty(alpha.shape)
    finite = ~np.isposinf(n_syn)
    if finite.any():
        inputs = [x[finite] for x in (alpha, a, b, d, n_syn)]
        flat[finite] = map_points(_release_renyi_pair, inputs, chunk=RELEASE_CHUNK)[0]
    if not finite.all():
        flat[~finite] = _renyi(alpha[~finite], d[~finite], a[~finite], b[~finite])
    if np.isnan(flat).any():
        warnings.warn(
            f"renyi_release_k1 returned NaN at {int(np.isnan(flat).sum())} of {flat.size} points",
            RuntimeWarning,
            stacklevel=3,
        )
    return flat.reshape(shaped[0].shape)


def release_vs_nsyn_data(
    *,
    alpha: float = 2.0,
    d_values=(2, 5, 10),
    a: float = 2.0,
    b: float = 1.5,
    n_syn=N_SYN_GRID,
    estimates: bool = False,
    estimate_points=(1.0, 10.0, 100.0, 1000.0),
    steps: int = 1000,
    n_eval: int = 100_000,
    key=None,
) -> dict:
    """Exact D_α(ZV‖ZW) against n_syn for each d, its n_syn = ∞ plateau, and estimates.

    Args:
        alpha: Rényi order, ``> 1``.
        d_values: model dimensions (integers when ``estimates`` is on: the samplers need them).
        a: ``‖v‖``; b: ``‖w‖`` (so the model release costs ``α(a − b)²/2``).
        n_syn: grid of synthetic-record counts, finite and ``>= 1`` (default 13 points
            from 1 to 1e4, log-spaced); the ``n_syn = ∞`` value is ``plateau``.
        estimates: also run :func:`fisherrdp.variational.estimate_renyi` on
            :func:`fisherrdp.release.release_samplers` at ``estimate_points`` for every d
            (each a training of ``steps`` steps: ~70 s at 1000 steps on 2 busy CPU cores).
        estimate_points: the n_syn of the estimates.
        steps, n_eval: training steps and held-out samples of each estimate.
        key: ``jax.random`` key of the estimates (default ``jax.random.key(0)``).

    Returns:
        A dict: ``d``, ``n_syn``, ``exact`` (shape ``(len(d), len(n_syn))``), ``plateau``
        (``(len(d),)``), ``post_processing`` (a float), the settings, and with estimates
        ``estimate_n_syn``, ``estimate``, ``ci_low``, ``ci_high`` and ``estimate_exact``
        (each ``(len(d), len(estimate_points))``).
    """
    n_syn = np.asarray(n_syn, float)
    d = np.asarray(d_values, dtype=float)
    data = {
        "d": d,
        "n_syn": n_syn,
        "alpha": float(alpha),
        "a": float(a),
        "b": float(b),
        "exact": _renyi_release(alpha, d[:, None], n_syn[None, :], a, b),
        "plateau": _renyi(alpha, d, a, b),
        "post_processing": float(bounds.gaussian_renyi(alpha, a - b)),
    }
    if estimates:
        from fisherrdp.release import release_samplers

        points = np.asarray(estimate_points, float)
        out = _variational_grid(
            alpha,
            d_values,
            points,
            lambda di, n: release_samplers(1, di, n, a, b),
            key=key,
            steps=steps,
            n_eval=n_eval,
        )
        data.update(
            estimate_n_syn=points,
            estimate=out[0],
            ci_low=out[1],
            ci_high=out[2],
            estimate_exact=_renyi_release(alpha, d[:, None], points[None, :], a, b),
        )
    return data


def release_vs_nsyn_figure(data: dict | None = None):
    """Figure: the paper's Fig. 2, exact — D_α(ZV‖ZW) against n_syn, one curve per d."""
    data = release_vs_nsyn_data() if data is None else data
    fig, (ax,) = _figure(1, size=(6.5, 4.5))
    for i, d in enumerate(data["d"]):
        color = f"C{i}"
        ax.plot(data["n_syn"], data["exact"][i], color=color, lw=2, label=f"exact, d = {d:g}")
        ax.axhline(data["plateau"][i], color=color, ls=":", lw=1)
        if "estimate" in data:
            _draw_estimates(ax, data["estimate_n_syn"], data, i, color)
    ax.axhline(data["post_processing"], color="0.4", ls="-.", label="model release α(a−b)²/2")
    ax.plot([], [], color="0.3", ls=":", lw=1, label="n_syn = ∞ (renyi_ncx2)")
    ax.set_xscale("log")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("n_syn (synthetic records)")
    ax.set_ylabel("D_α(ZV‖ZW)")
    ax.set_title(
        f"Finite synthetic release, k = 1, α = {data['alpha']:g}, ‖v‖ = {data['a']:g}, "
        f"‖w‖ = {data['b']:g}",
        fontsize=10,
    )
    ax.legend(fontsize=7)
    return fig


# ----------------------------------------------------------------------------------------------
# k > 1: the Fisher information along the Wishart path against Theorem 5.3 (Monte Carlo).


def wishart_fisher_data(
    k_values=(2, 3),
    d: int = 24,
    *,
    C: float = 1.0,
    delta: float = 0.75,
    n_theta: int = 5,
    n_samples: int = 1000,
    seed: int = 0,
) -> dict:
    r"""Monte Carlo Fisher information along the Wishart path and the Theorem 5.3 bound.

    For each :math:`k`, one pair :math:`(v, w)` of the ``random`` kind of
    :mod:`fisherrdp._src.wishart_checks` (:math:`\|v\|_F = C`, :math:`\|v - w\|_F = \Delta`,
    :math:`\|w\|_F \le C`, fixed ``seed``), and at ``n_theta`` equally spaced
    :math:`\theta \in [0, 1]` the estimate :math:`\hat I(\theta)` of
    :func:`fisherrdp.fisher.wishart_path_fisher` (``n_samples`` draws per θ, standard error
    ``stderr``) with the Theorem 5.3 bounds (:func:`fisherrdp.bounds.theorem53_fisher_bound`)

    .. math::

        I(\theta) \le \|Uw - v\|_F^2\,\frac{2\rho^2}{2\rho^2 + m - 3}\ \text{(re-derived)},
        \qquad \|Uw - v\|_F^2\,\frac{\rho^2}{\rho^2 + m - 3}\ \text{(printed)},

    :math:`\rho = \|(1-\theta)v + \theta Uw\|_F`, :math:`m = \lfloor d/k \rfloor`.
    Cost: one compilation of the score per k, then well under a second per θ at the defaults
    (measured on 2 busy CPU cores: 26 s with both compilations, 2 s once compiled).

    Args:
        k_values: Record dimensions, integers ``>= 2`` (one panel each).
        d: Model width, an integer ``>= max(k_values)``.
        C: Frobenius-norm bound, ``> 0``.
        delta: :math:`\|v - w\|_F`, in ``(0, C)``.
        n_theta: Number of θ values, an integer ``>= 2``.
        n_samples: Monte Carlo draws per θ, an integer ``>= 2``.
        seed: Seed of the pairs and of the draws.

    Returns:
        A dict with ``theta`` (n_theta,), ``k`` and ``m`` (n_k,), ``L2`` (:math:`\|Uw-v\|_F^2`,
        (n_k,)), and ``fisher``, ``stderr``, ``fisher_exact`` (k = 2:
        :func:`fisherrdp.fisher.wishart_path_fisher_exact`; NaN for k ≥ 3), ``rho``,
        ``bound_rederived``, ``bound_printed`` of shape (n_k, n_theta), plus the scalars ``d``,
        ``C``, ``delta``, ``n_samples``.

    Raises:
        ValueError: If ``n_theta`` is not an integer ``>= 2`` or the other arguments are out of
            range (the messages of :class:`fisherrdp._src.wishart_checks.WishartGrid`).
    """
    import jax

    from fisherrdp._src.wishart_checks import WishartGrid, wishart_pairs
    from fisherrdp._src.wishart_fisher import _procrustes
    from fisherrdp.fisher import wishart_path_fisher, wishart_path_fisher_exact

    if int(n_theta) != n_theta or n_theta < 2:
        raise ValueError(f"argument 'n_theta' must be an integer >= 2, got {n_theta!r}")
    theta = np.linspace(0.0, 1.0, int(n_theta))
    k_values = tuple(int(k) for k in k_values)
    grid = WishartGrid(
        dims=tuple((k, d) for k in k_values),
        C=C,
        delta=(delta,),
        pairs=("random",),
        theta=tuple(theta),
        n_samples=n_samples,
        seed=seed,
    )
    shape = (len(k_values), theta.size)
    out = {name: np.empty(shape) for name in ("fisher", "stderr", "rho")}
    out["fisher_exact"] = np.full(shape, np.nan)
    l2 = np.empty(len(k_values))
    for i, p in enumerate(wishart_pairs(grid)):
        key = jax.random.fold_in(jax.random.key(seed), p["k"])
        fisher, stderr = wishart_path_fisher(p["v"], p["w"], theta, key=key, n_samples=n_samples)
        uw = _procrustes(p["v"], p["w"])
        mu = (1.0 - theta)[:, None, None] * p["v"] + theta[:, None, None] * uw
        out["fisher"][i], out["stderr"][i] = np.asarray(fisher), np.asarray(stderr)
        if p["k"] == 2:
            out["fisher_exact"][i] = np.asarray(wishart_path_fisher_exact(p["v"], p["w"], theta))
        out["rho"][i] = np.sqrt(np.sum(mu**2, axis=(1, 2)))
        l2[i] = np.sum((uw - p["v"]) ** 2)
    m = np.floor(d / np.asarray(k_values, float))
    for variant in ("rederived", "printed"):
        out[f"bound_{variant}"] = np.asarray(
            bounds.theorem53_fisher_bound(l2[:, None], out["rho"], m[:, None], variant=variant)
        )
    return out | {
        "theta": theta,
        "k": np.asarray(k_values),
        "m": m,
        "L2": l2,
        "d": int(d),
        "C": float(C),
        "delta": float(delta),
        "n_samples": int(n_samples),
    }


def wishart_fisher_figure(data: dict | None = None):
    """Figure: Monte Carlo I(θ) along the Wishart path (±3 se) against Theorem 5.3, per k."""
    data = wishart_fisher_data() if data is None else data
    n = len(data["k"])
    fig, axes = _figure(n)
    for i, ax in enumerate(np.ravel(axes)[:n]):
        theta = data["theta"]
        ax.errorbar(
            theta,
            data["fisher"][i],
            yerr=3.0 * data["stderr"][i],
            fmt="o-",
            color="C0",
            ms=4,
            capsize=3,
            label=f"Monte Carlo I(θ) ± 3 se ({data['n_samples']} draws)",
        )
        if np.all(np.isfinite(data["fisher_exact"][i])):
            ax.plot(theta, data["fisher_exact"][i], "k-", lw=1, label="exact I(θ) (cubature)")
        ax.plot(
            theta, data["bound_rederived"][i], "C1--", label="Thm 5.3, re-derived 2ρ²/(2ρ²+m−3)"
        )
        ax.plot(theta, data["bound_printed"][i], "C3:", label="Thm 5.3, as printed ρ²/(ρ²+m−3)")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("θ (path μ(θ) = (1−θ)v + θUw)")
        ax.set_ylabel("Fisher information I(θ)")
        ax.set_title(
            f"k = {data['k'][i]:d}, d = {data['d']}, m = {data['m'][i]:g}, "
            f"‖Uw−v‖² = {data['L2'][i]:.3g}",
            fontsize=10,
        )
        ax.legend(fontsize=7)
    return fig


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
    of :mod:`fisherrdp._src.wishart_checks` (:math:`\|v\|_F = C`, :math:`\|v - w\|_F = \Delta`,
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
    from fisherrdp._src.wishart_checks import WishartGrid, wishart_pairs
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
            bounds.theorem54_bound(alpha, d, 2, C, delta, variant=variant)
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
    fig, (ax,) = _figure(1)
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

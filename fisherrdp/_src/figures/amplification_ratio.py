r"""The figure ``amplification_ratio.png``: The paper's Fig. 3, exact: the amplification ratio
:math:`\eta_d = D_\alpha(V^\top V\|W^\top W)/D_\alpha(V\|W)
= D_\alpha(\chi^2_d(a^2)\|\chi^2_d(b^2)) / (\alpha\Delta^2/2)`, :math:`a = b + \Delta`, against
:math:`\Delta`, with the Theorem 5.1 envelope :math:`[2b^2/(2b^2+d),\ 2C^2/(2C^2+d-3)]`
(the paper's setting :math:`\|w\| = b = 1`, :math:`C = 2`, :math:`\Delta \in (0, 1]`), and
optionally variational estimates of :math:`\eta_d` at a few :math:`\Delta`
(:func:`fisherrdp.variational.estimate_renyi` on samples of :math:`\|V\|^2` and
:math:`\|W\|^2`, divided by :math:`\alpha\Delta^2/2`), as the paper plots them.
"""

from __future__ import annotations

import math

import numpy as np

from fisherrdp._src.bounds.renyi_envelopes import gaussian_renyi, theorem51_envelope
from fisherrdp._src.figures.common import (
    draw_estimates,
    new_figure,
    renyi_grid,
    variational_grid,
)

__all__ = ['amplification_ratio_data', 'amplification_ratio_figure']


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
    renyi = renyi_grid(alpha, d, w_norm + delta[None, :], w_norm)
    eta = renyi / np.asarray(gaussian_renyi(alpha, delta))[None, :]
    lower, upper = theorem51_envelope(np.asarray(d_values, float), w_norm, C)
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

        scale = np.asarray(gaussian_renyi(alpha, points), float)
        out = variational_grid(  # laws of ‖V‖², ‖W‖²: the n_syn = ∞ release
            alpha,
            d_flat,
            points,
            lambda di, delta_j: release_samplers(1, di, math.inf, w_norm + delta_j, w_norm),
            key=key,
            steps=steps,
            n_eval=n_eval,
        ) / scale[None, None, :]
        exact = renyi_grid(alpha, d_flat[:, None], w_norm + points[None, :], w_norm)
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
    fig, (ax,) = new_figure(1, size=(6.5, 4.5))
    for i, d in enumerate(data["d"]):
        color = f"C{i}"
        ax.plot(data["delta"], data["eta"][i], color=color, lw=2, label=f"exact η, d = {d:g}")
        ax.fill_between(data["delta"], data["lower"][i], data["upper"][i], color=color, alpha=0.12)
        ax.axhline(data["lower"][i], color=color, ls="--", lw=0.8)
        ax.axhline(data["upper"][i], color=color, ls=":", lw=0.8)
        if "estimate" in data:
            draw_estimates(ax, data["estimate_delta"], data, i, color)
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

r"""The figure ``release_vs_nsyn.png``: The paper's Fig. 2, exact: the loss
:math:`D_\alpha(ZV\|ZW)` of a release of :math:`n_{\mathrm{syn}}` synthetic records
(:func:`fisherrdp.divergences.renyi_release_k1`) against :math:`n_{\mathrm{syn}}`, its
plateau at :math:`n_{\mathrm{syn}} = \infty` (:func:`fisherrdp.divergences.renyi_ncx2`), the
post-processing value :math:`\alpha(a-b)^2/2` of the model release, and optionally the
variational estimates the paper plots (:func:`fisherrdp.variational.estimate_renyi`).
"""

from __future__ import annotations

import warnings

import numpy as np

from fisherrdp._src.accounting.synthetic import release_renyi_pair
from fisherrdp._src.bounds.renyi_envelopes import gaussian_renyi
from fisherrdp._src.core.engine import map_points
from fisherrdp._src.core.validation import check_arguments
from fisherrdp._src.divergences.release_k1 import renyi_release_k1
from fisherrdp._src.figures.common import (
    draw_estimates,
    new_figure,
    renyi_grid,
    variational_grid,
)

__all__ = ['release_vs_nsyn_data', 'release_vs_nsyn_figure']


#: Points per compiled call of the finite-release divergence (one compilation serves every
#: grid; ~5 ms a point on 2 CPU cores).
RELEASE_CHUNK = 128


#: The default n_syn grid of :func:`release_vs_nsyn_data`: 121 points from 1 to 1e4,
#: log-spaced (30 a decade: a smooth curve, where 13 points showed the polyline's corners).
N_SYN_GRID = tuple(np.geomspace(1.0, 1e4, 121).tolist())


def _renyi_release(alpha, d, n_syn, a, b) -> np.ndarray:
    """``renyi_release_k1`` on broadcast arguments, in chunks of one fixed size (points with
    ``n_syn = inf`` are ``renyi_ncx2``'s, as in ``renyi_release_k1``)."""
    shaped = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (alpha, d, n_syn, a, b)))
    alpha, d, n_syn, a, b = (x.ravel() for x in shaped)
    check_arguments(renyi_release_k1, alpha, d, n_syn, a, b)
    flat = np.empty(alpha.shape)
    finite = ~np.isposinf(n_syn)
    if finite.any():
        inputs = [x[finite] for x in (alpha, a, b, d, n_syn)]
        flat[finite] = map_points(release_renyi_pair, inputs, chunk=RELEASE_CHUNK)[0]
    if not finite.all():
        flat[~finite] = renyi_grid(alpha[~finite], d[~finite], a[~finite], b[~finite])
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
        n_syn: grid of synthetic-record counts, finite and ``>= 1`` (default 121 points
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
        "plateau": renyi_grid(alpha, d, a, b),
        "post_processing": float(gaussian_renyi(alpha, a - b)),
    }
    if estimates:
        from fisherrdp.release import release_samplers

        points = np.asarray(estimate_points, float)
        out = variational_grid(
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
    fig, (ax,) = new_figure(1, size=(6.5, 4.5))
    for i, d in enumerate(data["d"]):
        color = f"C{i}"
        ax.plot(data["n_syn"], data["exact"][i], color=color, lw=2, label=f"exact, d = {d:g}")
        ax.axhline(data["plateau"][i], color=color, ls=":", lw=1)
        if "estimate" in data:
            draw_estimates(ax, data["estimate_n_syn"], data, i, color)
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

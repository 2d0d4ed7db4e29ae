r"""What the figures share: the exact Rényi divergence on a grid, variational estimates on a
grid, a blank figure, and the drawing of estimates with their intervals (the conventions of
the figures: :mod:`fisherrdp._src.figures`).
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.accounting.synthetic import renyi_pair
from fisherrdp._src.core.engine import map_points

#: Points per compiled call of the Rényi divergence (one compilation serves every figure, and the
#: accountant's searches: the kernel and chunk size of its n_syn = ∞ RDP curves).
RENYI_CHUNK = 128


def renyi_grid(alpha, d, a, b) -> np.ndarray:
    """``renyi_ncx2`` on broadcast arguments, in chunks of one fixed size."""
    alpha, d, a, b = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (alpha, d, a, b)))
    (flat,) = map_points(renyi_pair, [x.ravel() for x in (alpha, a, b, d)], chunk=RENYI_CHUNK)
    return flat.reshape(alpha.shape)


def new_figure(ncols: int, nrows: int = 1, size=(5.0, 3.8)):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(size[0] * ncols, size[1] * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes.ravel()


def variational_grid(alpha, d_values, points, samplers, *, key, steps, n_eval) -> np.ndarray:
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


def draw_estimates(ax, x, data: dict, i: int, color: str) -> None:
    """Row ``i`` of a data dict's variational estimates as error bars (95% intervals)."""
    est = data["estimate"][i]
    err = np.stack([est - data["ci_low"][i], data["ci_high"][i] - est])
    label = f"variational estimate (95%), d = {data['d'][i]:g}"
    ax.errorbar(x, est, yerr=err, fmt="o", color=color, ms=4, capsize=3, label=label)

r"""The supremum of a pair divergence over the admissible parameter pairs of a release.

For :math:`k = 1` the privacy loss of a synthetic release depends on the two model parameters
only through their norms :math:`a = \|v\|/\sigma`, :math:`b = \|w\|/\sigma`, and the admissible
pairs are

.. math::

    \mathcal P = \{(a, b) : 0 \le a, b \le c,\ |a - b| \le \Delta\}, \qquad
    c = C/\sigma, \quad \Delta = \text{sensitivity}/\sigma

(every such pair is realised by collinear :math:`v, w`). An RDP or privacy-profile guarantee is
the supremum of the pair divergence over :math:`\mathcal P` (both orders of each pair).

**Search.** :func:`sup_over_pairs` evaluates the divergence on the boundary segments
:math:`(t + \Delta_e, t)` and :math:`(t, t + \Delta_e)`, :math:`t \in [0, c - \Delta_e]`,
:math:`\Delta_e = \min(\Delta, c)`, at ``SCAN_POINTS`` equispaced points; where the largest
value is not at the last point it zooms ``ZOOM_ROUNDS`` times onto the two cells around the
running maximiser (``SCAN_POINTS`` points each time, so the location error shrinks by a factor
~16 per round and the value error, quadratic in it at an interior maximum, to rounding).
As evidence that the supremum lies on that boundary it also evaluates
``INTERIOR_POINTS`` pairs at each of the separations :math:`|a - b| = j\Delta_e/`
``INTERIOR_POINTS``, :math:`0 < j <` ``INTERIOR_POINTS`` (both orders, positions spread over
:math:`[0, c]`), and reports their maximum (:attr:`WorstCase.interior_max`); a
:class:`UserWarning` is raised if it exceeds the boundary value by more than rounding.

**Where the maximum lies (measured, not proved).** For the non-central :math:`\chi^2` family
the divergence grows with the separation :math:`|a - b|` (a monotone-likelihood-ratio family)
and, at fixed separation, with the amplitude :math:`t` (the Fisher information
:math:`I(d, \theta)` increases from 0 to 1 with :math:`\theta`): the supremum is at the corner
:math:`\{c, c - \Delta_e\}`. On a scan of :math:`d \in \{1, 2, 10, 1000\}`,
:math:`\alpha \in \{1.01, 2, 64, 256\}`, :math:`\Delta \in \{0.1, 1, 3\}`,
:math:`t \in [0, 5]` (64 points, both orders) the Rényi divergence was non-decreasing in
:math:`t` up to rounding (1e-13 relative, where it saturates at :math:`\alpha\Delta^2/2`), and so
was the privacy profile for :math:`\varepsilon \in \{0, 0.1, 1, 5\}`. The search does not rely
on it; :attr:`WorstCase.at_corner` records where each maximum was found.

All evaluations go through :func:`fisherrdp._src.core.engine.map_points` with one chunk size,
so a search compiles its divergence once (and shares the compiled program with every other
search, and every other caller, of the same function and chunk size).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Hashable

import numpy as np

from fisherrdp._src.core.engine import map_points

__all__ = ["WorstCase", "sup_over_pairs"]

#: Equispaced boundary points per order of the pair (and per zoom round).
SCAN_POINTS = 33
#: Zoom rounds around a maximiser that is not at the corner.
ZOOM_ROUNDS = 6
#: Interior evidence: separations j·gap/INTERIOR_POINTS (0 < j < INTERIOR_POINTS), as many
#: positions each.
INTERIOR_POINTS = 6
#: Points per compiled call.
CHUNK = 128
#: Relative slack allowed to rounding when comparing maxima.
ROUNDING = 1e-11


@dataclasses.dataclass(frozen=True)
class WorstCase:
    """Supremum of a pair divergence over the admissible pairs, with the maximiser and evidence.

    Attributes:
        argument: The values (orders α, ε or δ) at which the supremum was taken, 1-D.
        values: The supremum at each argument.
        a: Maximising first parameter norm :math:`\\|v\\|` (raw units), per argument.
        b: Maximising second parameter norm :math:`\\|w\\|` (raw units), per argument.
        method: How the values were obtained (e.g. ``"exact"``).
        at_corner: Whether the maximum sits at the corner pair ``{C, C - sensitivity}``.
        interior_max: The largest value over the interior evidence grid (NaN if not computed).
        attained: k = 2 bracket's lower end: the exact divergence at the worst pair a search
            found (:mod:`fisherrdp._src.accounting.wishart_search`), a value attained; ``values``
            is then the rigorous upper end. None where no search ran.
    """

    argument: np.ndarray
    values: np.ndarray
    a: np.ndarray
    b: np.ndarray
    method: str
    at_corner: np.ndarray
    interior_max: np.ndarray
    attained: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.values)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.values, dtype=dtype)


def _boundary(t: np.ndarray, gap: float, order: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs on the boundary: (t + gap, t) for order 0, (t, t + gap) for order 1."""
    hi, lo = t + gap, t
    return np.where(order == 0, hi, lo), np.where(order == 0, lo, hi)


def sup_over_pairs(
    fn: Callable,
    argument: np.ndarray,
    c: float,
    gap: float,
    *,
    constants: tuple[float, ...] = (),
    static: tuple[Hashable, ...] = (),
    symmetric: bool = False,
    evidence: bool = True,
    chunk: int | None = CHUNK,
) -> WorstCase:
    r"""Supremum over admissible pairs of ``fn(x, a, b, ...)`` for every ``x`` of ``argument``.

    Args:
        fn: Elementwise JAX pair divergence ``fn(x, a, b, *constants, *static)`` of 1-D float
            arrays (``a``, ``b`` in units of σ), returning a 1-D array; evaluated by
            :func:`~fisherrdp._src.core.engine.map_points`, so it must be a stable, hashable,
            traceable function (a module-level function or a jitted one). With ``chunk=None``,
            instead a host function ``fn(x, a, b)`` of whole 1-D NumPy arrays, called as is
            (for functions that are not traceable and evaluate through ``map_points``
            themselves).
        argument: 1-D array of the other argument (orders, ε or δ).
        c: Norm bound :math:`C/\sigma > 0`.
        gap: Separation bound :math:`\Delta/\sigma > 0`.
        constants: Scalars passed to ``fn`` after ``(x, a, b)``, broadcast to every point (as
            arrays: a new value does not compile ``fn`` again).
        static: Hashable extra arguments of ``fn``, last (compiled in).
        symmetric: ``fn(x, a, b) == fn(x, b, a)``: scan one order only.
        evidence: Also evaluate the interior grid (see the module docstring).
        chunk: Points per compiled call of ``fn`` (one compiled shape), or ``None`` for a host
            function.

    Returns:
        A :class:`WorstCase` with ``a`` and ``b`` in units of σ (the caller rescales).

    Examples:
        >>> import numpy as np
        >>> def divergence(x, a, b):
        ...     return x * (a - b) ** 2
        >>> res = sup_over_pairs(divergence, np.array([1.0, 2.0]), 1.0, 0.5)
        >>> res.values.tolist(), bool(res.at_corner.all())
        ([0.25, 0.5], True)
    """
    argument = np.atleast_1d(np.asarray(argument, np.float64))
    gap = min(gap, c)
    span = c - gap
    orders = np.array([0] if symmetric else [0, 1])
    n_x, n_o = len(argument), len(orders)
    x_idx, o_idx = (g.ravel() for g in np.meshgrid(np.arange(n_x), orders, indexing="ij"))

    def evaluate(x, a, b):
        if chunk is None:
            return np.asarray(fn(x, a, b))
        (out,) = map_points(fn, [x, a, b, *constants], chunk=chunk, static=static)
        return out

    def scan(rows, lo, hi):
        """Values on SCAN_POINTS points of [lo, hi] for the given (x, order) rows."""
        t = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, SCAN_POINTS)[None, :]
        a, b = _boundary(t, gap, np.broadcast_to(orders[o_idx[rows]][:, None], t.shape))
        x = np.broadcast_to(argument[x_idx[rows]][:, None], t.shape)
        return t, evaluate(x.ravel(), a.ravel(), b.ravel()).reshape(t.shape)

    rows = np.arange(len(x_idx))
    t, values = scan(rows, np.zeros(len(rows)), np.full(len(rows), span))
    best = np.argmax(values, axis=1)
    best_t, best_v = t[rows, best], values[rows, best]
    at_corner = values[:, -1] >= best_v - ROUNDING * np.abs(best_v)
    best_t = np.where(at_corner, span, best_t)
    best_v = np.where(at_corner, values[:, -1], best_v)
    zoom = rows[~at_corner]
    step = np.full(len(zoom), span / (SCAN_POINTS - 1))
    for _ in range(ZOOM_ROUNDS if zoom.size else 0):
        lo = np.clip(best_t[zoom] - step, 0.0, span)
        hi = np.clip(best_t[zoom] + step, 0.0, span)
        t_z, v_z = scan(zoom, lo, hi)
        j = np.argmax(v_z, axis=1)
        top_t, top_v = t_z[np.arange(len(zoom)), j], v_z[np.arange(len(zoom)), j]
        improved = top_v > best_v[zoom]
        best_t[zoom] = np.where(improved, top_t, best_t[zoom])
        best_v[zoom] = np.where(improved, top_v, best_v[zoom])
        step = (hi - lo) / (SCAN_POINTS - 1)

    # Best order per argument.
    best_v = best_v.reshape(n_x, n_o)
    pick = np.argmax(best_v, axis=1)
    rows_of = np.arange(n_x) * n_o + pick
    a, b = _boundary(best_t[rows_of], gap, orders[pick])
    values_out = best_v[np.arange(n_x), pick]

    interior = np.full(n_x, np.nan)
    if evidence:
        # Pairs (t + s, t) and (t, t + s) at separations s strictly inside (0, gap), t spread
        # over [0, c - s].
        frac = np.arange(1, INTERIOR_POINTS) / INTERIOR_POINTS
        sep = np.repeat(gap * frac, INTERIOR_POINTS)
        t = (c - sep) * np.tile(np.linspace(0.0, 1.0, INTERIOR_POINTS), len(frac))
        ga, gb = np.concatenate([t + sep, t]), np.concatenate([t, t + sep])
        if symmetric:
            ga, gb = ga[: len(t)], gb[: len(t)]
        xi = np.repeat(argument, len(ga))
        inner = evaluate(xi, np.tile(ga, n_x), np.tile(gb, n_x)).reshape(n_x, len(ga))
        interior = inner.max(axis=1)
        above = interior > values_out + ROUNDING * np.abs(values_out)
        if np.any(above):
            warnings.warn(
                "sup_over_pairs: an interior pair exceeds the boundary maximum at "
                f"argument(s) {argument[above].tolist()}; the supremum may not be on the "
                "boundary |a - b| = sensitivity",
                UserWarning,
                stacklevel=3,
            )
    return WorstCase(
        argument=argument,
        values=values_out,
        a=a,
        b=b,
        method="",
        at_corner=at_corner.reshape(n_x, n_o)[np.arange(n_x), pick],
        interior_max=interior,
    )

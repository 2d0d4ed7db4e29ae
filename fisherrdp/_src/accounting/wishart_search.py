r"""k = 2: the exact divergence at the worst admissible pair a search finds (a lower bound).

For :math:`k = 2` the accountant's guarantee is an upper bound (Theorem 5.3's Fisher bound
through Prop. 3.2, or post-processing; :mod:`fisherrdp._src.accounting.synthetic`). The true
RDP of the release,

.. math::

    \varepsilon(\alpha) = \sup_{\|v\|_F, \|w\|_F \le c,\ \|v - w\|_F \le g}
    D_\alpha\bigl(\mathcal W_2(d, I, v^\top v) \,\big\|\, \mathcal W_2(d, I, w^\top w)\bigr),
    \qquad c = C/\sigma,\ g = \Delta/\sigma,

lies below it, and above the exact divergence of **any** admissible pair. This module searches
for a bad pair and evaluates it exactly (:func:`fisherrdp.divergences.renyi_ncwishart_gram`,
relative error ≤ 1e-8), which brackets the true RDP from below. The found value is numerical
evidence, never a guarantee: the search may miss the worst pair.

**Reduction.** The divergence depends on the pair through :math:`(v^\top v, w^\top w)` only and
is unchanged by :math:`v \to Qv, w \to Qw` (:math:`Q \in O(d)`) and :math:`v \to vR, w \to wR`
(:math:`R \in O(2)`); so :math:`v` and :math:`w` are searched as :math:`\min(d, 4) \times 2`
matrices (the span of their four columns).

**Candidates.** Every candidate is admissible by construction: :math:`v = r\,\hat v`
(:math:`\|\hat v\|_F = 1`, :math:`0 \le r \le c`) and :math:`w = v + t\,\hat e`
(:math:`\|\hat e\|_F = 1`) with :math:`t` the largest step :math:`\le g` that keeps
:math:`\|w\|_F \le c`. The search starts from

1. the worst **rank-one** pair, :math:`v = a\,e_1 e_1^\top`, :math:`w = b\,e_1 e_1^\top` with
   :math:`(a, b)` the exact :math:`k = 1` maximiser (a rank-one pair is a :math:`k = 1` pair:
   ``docs/math/wishart_k2.md#the-rank-one-reduction``, rank-one reduction), whose value is the :math:`k = 1` RDP;
2. ``RANDOM_PAIRS`` random pairs on the boundary (:math:`r = c`, :math:`\hat v, \hat e` uniform
   on the unit sphere);

and then climbs from the best **rank-two** candidate by gradient ascent: ``GRADIENT_STEPS``
steps along :math:`\nabla_{(v, w)} D_\alpha` (``jax.grad`` of the exact
:func:`fisherrdp.divergences.renyi_ncwishart`, reverse mode through its cubature), each of
length ``STEP`` :math:`\cdot c` (halved after a step that does not gain, grown by half after
one that does), mapped back to an admissible pair after each step (:math:`\hat v` and
:math:`r` from the new :math:`v`, :math:`\hat e` from the new :math:`w - v`, then the
construction above). Both orders of each random pair are evaluated; the climb keeps the order
that was worse. Values come through the scan engine
(:func:`fisherrdp._src.core.engine.map_bucketed`: sharded over every local device, one
compiled program for the values and one for value and gradient).

**Rank.** :attr:`PairSearch.rank_one` says whether the best pair found is the rank-one seed
(no candidate beat it by more than the cubature's error estimate); then the :math:`k = 2`
worst case found equals the :math:`k = 1` one. :attr:`PairSearch.best_rank_two` is the best
value over the candidates that are not rank one (the evidence).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.divergences.renyi_wishart import renyi_ncwishart

__all__ = ["PairSearch", "search_worst_pair"]

#: Rows of the searched matrices: the span of the columns of v and w has dimension ≤ 4.
ROWS = 4
#: Random boundary pairs in the first evaluation.
RANDOM_PAIRS = 8
#: Gradient-ascent steps from the best rank-two candidate, and the first step (× c).
GRADIENT_STEPS = 8
STEP = 0.25
#: A candidate beats another only by more than this relative margin (the cubature's accuracy).
MARGIN = 1e-8
#: Relative accuracy of the rank-one value (renyi_ncx2's documented bound).
RANK_ONE_RTOL = 1e-9
#: Seed of the search's random numbers (the search is reproducible).
SEED = 20261202


@dataclasses.dataclass(frozen=True)
class PairSearch:
    """The worst pair found per order (k = 2), and its exact divergence: a lower bound.

    Attributes:
        alphas: The orders, 1-D.
        values: The exact :math:`D_\\alpha` at the best pair found, in the worse order — a lower
            bound on the RDP (a value found, not a guarantee).
        errors: The cubature's error estimates of ``values``.
        v: The first member of each best pair, ``(len(alphas), rows, 2)``, in raw units (σ
            included).
        w: The second member, same shape: ``values`` is :math:`D_\\alpha(P_v \\| P_w)`.
        rank_one: Whether the best pair found is the rank-one (k = 1) worst pair.
        rank_one_values: The divergence of the rank-one worst pair (the k = 1 RDP).
        best_rank_two: The best value over the candidates that are not rank one.
        evaluations: Exact divergences evaluated per order (a value and its gradient count
            as one).
    """

    alphas: np.ndarray
    values: np.ndarray
    errors: np.ndarray
    v: np.ndarray
    w: np.ndarray
    rank_one: np.ndarray
    rank_one_values: np.ndarray
    best_rank_two: np.ndarray
    evaluations: int


def _unit(x: np.ndarray) -> np.ndarray:
    return x / np.linalg.norm(x, axis=(-2, -1), keepdims=True)


@jax.jit
def divergence_and_gradient(alpha, d, *entries):
    """D_α(P_v ‖ P_w) and its gradient in the entries of (v, w), elementwise over 1-D arrays.

    ``entries`` are the ``2 · ROWS · 2`` entries of v then w (row-major); the gradient is the
    trailing axis of the second output (reverse mode, one point at a time: ``lax.map``).
    """

    def one(point):
        a, dof, flat = point
        v, w = flat.reshape(2, -1, 2)

        def divergence(v, w):
            return renyi_ncwishart(a, dof, v, w)

        value, (gv, gw) = jax.value_and_grad(divergence, argnums=(0, 1))(v, w)
        return value, jnp.concatenate([gv.reshape(-1), gw.reshape(-1)])

    return jax.lax.map(one, (alpha, d, jnp.stack(entries, -1)))


def _pairs(v_dir, e_dir, radius, c, g):
    """Admissible (v, w): v = r v̂, w = v + t ê with t the largest step ≤ g keeping ‖w‖ ≤ c."""
    v = radius[..., None, None] * v_dir
    p = np.sum(v * e_dir, axis=(-2, -1))
    t = np.minimum(g, -p + np.sqrt(np.maximum(p * p + c * c - radius**2, 0.0)))
    return v, v + t[..., None, None] * e_dir


def _admissible(v, w, e_dir, c, g):
    """The admissible pair nearest in construction to a raw (v, w): v̂ and r from v (r ≤ c),
    ê from w − v (kept where w = v), then :func:`_pairs`."""
    radius = np.minimum(np.linalg.norm(v, axis=(-2, -1)), c)
    v_dir = _unit(np.where(radius[..., None, None] > 0, v, e_dir))
    step = w - v
    e_dir = np.where(np.linalg.norm(step, axis=(-2, -1))[..., None, None] > 0, _unit(step), e_dir)
    return _pairs(v_dir, e_dir, radius, c, g) + (e_dir,)


def search_worst_pair(
    alphas: np.ndarray,
    d: float,
    c: float,
    g: float,
    rank_one: tuple[np.ndarray, np.ndarray, np.ndarray],
    *,
    sigma: float = 1.0,
    random_pairs: int = RANDOM_PAIRS,
    gradient_steps: int = GRADIENT_STEPS,
) -> PairSearch:
    """Search the admissible k = 2 pairs for the largest exact Rényi divergence, per order.

    Args:
        alphas: Orders :math:`\\alpha > 1`, 1-D.
        d: Model width :math:`d \\ge 2`.
        c: Norm bound in units of σ.
        g: Sensitivity in units of σ.
        rank_one: The k = 1 worst pair and value per order, ``(a, b, values)`` in units of σ
            (from the exact k = 1 accountant).
        sigma: Noise scale: the pairs are reported in raw units.
        random_pairs: Random boundary pairs evaluated first.
        gradient_steps: Gradient-ascent steps from the best rank-two candidate.

    Returns:
        A :class:`PairSearch`; ``values`` is a lower bound on the RDP of the k = 2 release.
    """
    alphas = np.asarray(alphas, np.float64)
    n_alpha = alphas.size
    rows = int(min(d, ROWS))
    rng = np.random.default_rng(SEED)
    a, b, base = (np.asarray(x, np.float64) for x in rank_one)
    # Rank-one seeds: v = a e1 e1ᵀ, w = b e1 e1ᵀ (value known exactly from k = 1).
    corner = np.zeros((n_alpha, rows, 2))
    corner[:, 0, 0] = 1.0
    # Random boundary pairs, both orders: (n_alpha, 2m, rows, 2).
    shape = (n_alpha, random_pairs, rows, 2)
    e_dir = _unit(rng.standard_normal(shape))
    v, w = _pairs(_unit(rng.standard_normal(shape)), e_dir, np.full(shape[:2], c), c, g)
    pv, pw = np.concatenate([v, w], axis=1), np.concatenate([w, v], axis=1)
    value = np.asarray(renyi_ncwishart(alphas[:, None], d, pv, pw))
    evaluations = 2 * random_pairs
    i, j = np.arange(n_alpha), np.argmax(value, axis=1)
    # Gradient ascent from the best random pair, in its worse order.
    v, w = pv[i, j], pw[i, j]
    e_dir = _unit(w - v)
    current, length = value[i, j], np.full(n_alpha, STEP * c)

    def climb(v, w):
        entries = np.concatenate([v.reshape(n_alpha, -1), w.reshape(n_alpha, -1)], axis=1)
        return map_bucketed(divergence_and_gradient, alphas, np.full(n_alpha, float(d)),
                            *entries.T, cap=1)

    gradient = np.asarray(climb(v, w)[1])
    evaluations += 1
    for _ in range(gradient_steps):
        unit = gradient / np.maximum(np.linalg.norm(gradient, axis=1, keepdims=True), 1e-300)
        step = (length[:, None] * unit).reshape(n_alpha, 2, rows, 2)
        new_v, new_w, new_e = _admissible(v + step[:, 0], w + step[:, 1], e_dir, c, g)
        new_value, new_gradient = (np.asarray(x) for x in climb(new_v, new_w))
        evaluations += 1
        gain = new_value > current
        length = np.where(gain, 1.5 * length, 0.5 * length)
        v, w, e_dir = (np.where(gain[:, None, None], new, old)
                       for new, old in ((new_v, v), (new_w, w), (new_e, e_dir)))
        current = np.where(gain, new_value, current)
        gradient = np.where(gain[:, None], new_gradient, gradient)
    # The climb only gains: its pair is the best rank-two one found. It replaces the rank-one
    # pair where it beats it by more than the cubature's accuracy (its error is then needed).
    found = current > base * (1.0 + MARGIN)
    errors = RANK_ONE_RTOL * base
    if found.any():
        _, climbed_error = renyi_ncwishart(alphas, d, v, w, return_error=True)
        errors = np.where(found, np.asarray(climbed_error), errors)
        evaluations += 1

    def pick(new, old):
        return np.where(found.reshape((-1,) + (1,) * (new.ndim - 1)), new, old)

    return PairSearch(
        alphas=alphas,
        values=pick(current, base),
        errors=errors,
        v=pick(v, a[:, None, None] * corner) * sigma,
        w=pick(w, b[:, None, None] * corner) * sigma,
        rank_one=~found,
        rank_one_values=base,
        best_rank_two=current,
        evaluations=evaluations,
    )

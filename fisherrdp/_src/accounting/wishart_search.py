r"""k = 2: the worst admissible pair, searched in the reduced coordinates (a lower bound).

For :math:`k = 2` the accountant's guarantee is an upper bound (the Fisher path bound or
post-processing; :mod:`fisherrdp._src.accounting.synthetic`). The true RDP of the release,

.. math::

    \varepsilon(\alpha) = \sup_{\|v\|_F, \|w\|_F \le c,\ \|v - w\|_F \le g}
    D_\alpha\bigl(\mathcal W_2(d, I, v^\top v) \,\big\|\, \mathcal W_2(d, I, w^\top w)\bigr),
    \qquad c = C/\sigma,\ g = \Delta/\sigma,

lies below it, and above the exact divergence of **any** admissible pair. This module searches
for the worst pair and evaluates it exactly (:func:`fisherrdp.divergences.renyi_ncwishart`,
relative error ≤ 1e-8): a value attained, never a guarantee — the search may miss the worst
pair.

**Reduction** (``docs/math/worst_pair.md#the-reduction``, proved there). The divergence depends
on the pair through :math:`A = v^\top v`, :math:`B = w^\top w` only, and is unchanged by a common
rotation :math:`(A, B) \to (R^\top A R, R^\top B R)`; for given :math:`(A, B)` the smallest
:math:`\|v - w\|_F` is the Bures–Wasserstein distance :func:`bures_wasserstein`, attained by the
Procrustes pair :func:`pair_from_grams`. So the admissible set is
:math:`\{\operatorname{tr} A \le c^2, \operatorname{tr} B \le c^2, \mathrm{BW}(A, B) \le g\}`,
five coordinates for k = 2 (:func:`reduced_coordinates`: :math:`A = \operatorname{diag}(a_1,
a_2)`, :math:`B = R(\varphi)\operatorname{diag}(b_1, b_2)R(\varphi)^\top`;
:func:`pair_from_coordinates` maps back).

**Search.** Pairs are parametrised so that every parameter value is admissible and every
admissible :math:`(A, B)` is reached: :math:`v = c\sin^2\!\rho\,\operatorname{diag}(\cos\theta,
\sin\theta)` (A diagonal), :math:`w = v + t\,\hat e` with :math:`\hat e = x/\|x\|` a unit
2 × 2 matrix and :math:`t = \min(g, t_c)\sin^2\tau`, :math:`t_c` the step along
:math:`\hat e` to the sphere :math:`\|w\|_F = c` (:func:`pair_from_parameters`). The
:math:`\sin^2` make the boundaries :math:`\|v\|_F = c` and :math:`t = \min(g, t_c)` critical
points, so gradient ascent converges onto them. The search evaluates the starts of every
family (:data:`FAMILIES`):

1. ``collinear``: the corner :math:`(\|v\|, \|w\|) = (c, \max(c - g, 0))` in both orders, and
   the k = 1 maximiser where the caller gives it (a rank-one pair is a k = 1 pair);
2. ``rotated``: equal-norm rank-one pairs :math:`v = c\,e_1e_1^\top`, :math:`w = c\,e_1
   (\cos\varphi, \sin\varphi)` over ``ROTATED_ANGLES`` fractions of the largest admissible
   angle (the last one on the boundary :math:`\|v - w\|_F = g`);
3. ``orthogonal``: :math:`A = a^2 e_1e_1^\top`, :math:`B = b^2 e_2e_2^\top`, :math:`a = b =
   \min(c, g/\sqrt2)` and :math:`(a, b) = (\min(c, g), \min(c, \sqrt{g^2 - \min(c, g)^2}))`
   in both orders;
4. ``rank_two``: the isotropic corner :math:`v = c I/\sqrt2`, :math:`w = (1 - g/c)_+ v` in
   both orders, and ``RANDOM_PAIRS`` seeded random boundary pairs in both orders;

then climbs from the best start of each family, slightly moved off its symmetry
(``PERTURBATION`` in θ and x; a rank-one pair is a critical point of every rank-two direction), by
normalised gradient ascent in the parameters (``jax.value_and_grad`` of the exact divergence,
one compiled program): steps of ``STEP`` (grown by half after a gain, halved and rejected after
a loss), at most ``CLIMB_STEPS`` per climb, a climb stopping when its step falls below
``MIN_STEP``. The result is the best value over starts and climbs, with the family it came
from. Values come through the scan engine (:func:`fisherrdp._src.core.engine.map_bucketed`).
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp
import numpy as np

from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.divergences.renyi_wishart import renyi_ncwishart

__all__ = [
    "FAMILIES",
    "PairSearch",
    "bures_wasserstein",
    "pair_from_coordinates",
    "pair_from_grams",
    "pair_from_parameters",
    "reduced_coordinates",
    "search_worst_pair",
]

#: The start families, in the order of :attr:`PairSearch.family_values`.
FAMILIES = ("collinear", "rotated", "orthogonal", "rank_two")
#: Fractions of the largest admissible rotation angle of the ``rotated`` starts.
ROTATED_ANGLES = (0.25, 0.5, 0.75, 1.0)
#: Random boundary pairs among the ``rank_two`` starts (each in both orders).
RANDOM_PAIRS = 4
#: Climb: first step (in the angles ρ, θ, τ and the unit 4-vector x), its growth and shrink,
#: the smallest step, and the cap on steps per climb.
STEP = 0.2
MIN_STEP = 1e-3
CLIMB_STEPS = 12
#: Starts of a climb are moved by this much off their symmetry (θ and x).
PERTURBATION = 0.05
#: Seed of the random starts (the search is reproducible).
SEED = 20261205
#: Number of search parameters per pair: (ρ, θ, τ, x₁, …, x₄).
PARAMETERS = 7


# ----------------------------------------------------------------------------------------------
# The reduction (docs/math/worst_pair.md#the-reduction)


def _psd_sqrt(m: np.ndarray) -> np.ndarray:
    """Symmetric PSD square root, batched over leading axes (eigenvalues clipped at 0)."""
    lam, q = np.linalg.eigh(0.5 * (m + np.swapaxes(m, -1, -2)))
    return (q * np.sqrt(np.maximum(lam, 0.0))[..., None, :]) @ np.swapaxes(q, -1, -2)


def bures_wasserstein(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    r"""Bures–Wasserstein distance between PSD matrices, batched over leading axes.

    .. math::

        \mathrm{BW}(A, B) = \bigl(\operatorname{tr}A + \operatorname{tr}B
        - 2\operatorname{tr}(A^{1/2} B A^{1/2})^{1/2}\bigr)^{1/2}
        = \min\{\|v - w\|_F : v^\top v = A,\ w^\top w = B\}

    (``docs/math/worst_pair.md#the-reduction``).

    Args:
        a: PSD ``(..., k, k)``.
        b: PSD ``(..., k, k)``.

    Returns:
        The distance, of the broadcast leading shape.

    Examples:
        Orthogonal rank-one Gram matrices are √(a² + b²) apart:

        >>> import numpy as np
        >>> round(float(bures_wasserstein(np.diag([1.0, 0.0]), np.diag([0.0, 2.25]))), 12)
        1.802775637732
    """
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    root = _psd_sqrt(a)
    fidelity = np.sum(np.sqrt(np.maximum(np.linalg.eigvalsh(root @ b @ root), 0.0)), axis=-1)
    square = np.trace(a, axis1=-2, axis2=-1) + np.trace(b, axis1=-2, axis2=-1) - 2.0 * fidelity
    return np.sqrt(np.maximum(square, 0.0))


def pair_from_grams(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The Procrustes pair: :math:`v = A^{1/2}`, :math:`w = O B^{1/2}` with :math:`\|v - w\|_F
    = \mathrm{BW}(A, B)` (:math:`O = VU^\top` from the SVD :math:`B^{1/2}A^{1/2} = USV^\top`).

    Args:
        a: PSD ``(..., k, k)``.
        b: PSD ``(..., k, k)``.

    Returns:
        ``(v, w)``, each ``(..., k, k)`` (k rows), with :math:`v^\top v = A`, :math:`w^\top w = B`.
    """
    v, root_b = _psd_sqrt(np.asarray(a, np.float64)), _psd_sqrt(np.asarray(b, np.float64))
    u, _, vt = np.linalg.svd(root_b @ v)
    return v, np.swapaxes(vt, -1, -2) @ np.swapaxes(u, -1, -2) @ root_b


def reduced_coordinates(v: np.ndarray, w: np.ndarray) -> dict[str, np.ndarray]:
    r"""The reduced form of k = 2 pairs: :math:`(A, B)` rotated so that :math:`A` is diagonal.

    :math:`A = R^\top v^\top v R = \operatorname{diag}(a_1, a_2)`, :math:`a_1 \ge a_2`, and
    :math:`B = R^\top w^\top w R = R(\varphi)\operatorname{diag}(b_1, b_2)R(\varphi)^\top`,
    :math:`b_1 \ge b_2`, :math:`\varphi \in (-\pi/2, \pi/2]`, with the same :math:`R \in O(2)`:
    the divergence of :math:`(v, w)` is that of any pair with these Gram matrices.

    Args:
        v: ``(..., r, 2)``.
        w: ``(..., r', 2)``.

    Returns:
        ``{"gram_v": A, "gram_w": B, "a": (a₁, a₂), "b": (b₁, b₂), "phi": φ}`` (arrays with the
        leading shape; ``a``, ``b`` with a trailing axis of 2).
    """
    v, w = np.asarray(v, np.float64), np.asarray(w, np.float64)
    gram_v = np.swapaxes(v, -1, -2) @ v
    gram_w = np.swapaxes(w, -1, -2) @ w
    a, r = np.linalg.eigh(gram_v)
    a, r = a[..., ::-1], r[..., ::-1]
    rotated_w = np.swapaxes(r, -1, -2) @ gram_w @ r
    b, q = np.linalg.eigh(rotated_w)
    b, q = b[..., ::-1], q[..., ::-1]
    phi = np.arctan2(q[..., 1, 0], q[..., 0, 0])
    phi = np.where(phi > 0.5 * np.pi, phi - np.pi, np.where(phi <= -0.5 * np.pi, phi + np.pi, phi))
    gram_v = np.zeros_like(gram_v)
    gram_v[..., 0, 0], gram_v[..., 1, 1] = a[..., 0], a[..., 1]
    return {"gram_v": gram_v, "gram_w": rotated_w, "a": a, "b": b, "phi": phi}


def pair_from_coordinates(a, b, phi) -> tuple[np.ndarray, np.ndarray]:
    r"""The Procrustes pair (2 × 2) of the reduced coordinates :math:`A = \operatorname{diag}(a)`,
    :math:`B = R(\varphi)\operatorname{diag}(b)R(\varphi)^\top` (:func:`pair_from_grams`).

    Args:
        a: :math:`(a_1, a_2) \ge 0`, ``(..., 2)``.
        b: :math:`(b_1, b_2) \ge 0`, ``(..., 2)``.
        phi: :math:`\varphi`, ``(...)``.

    Returns:
        ``(v, w)`` with :math:`\|v - w\|_F = \mathrm{BW}(A, B)`.
    """
    a, b, phi = (np.asarray(x, np.float64) for x in (a, b, phi))
    cos, sin = np.cos(phi), np.sin(phi)
    rot = np.stack([np.stack([cos, -sin], -1), np.stack([sin, cos], -1)], -2)
    gram_v = a[..., :, None] * np.eye(2)
    gram_w = (rot * b[..., None, :]) @ np.swapaxes(rot, -1, -2)
    return pair_from_grams(gram_v, gram_w)


# ----------------------------------------------------------------------------------------------
# The search


def pair_from_parameters(params, c, g, xp=np):
    r"""The admissible pair of search parameters :math:`(\rho, \theta, \tau, x_1, \dots, x_4)`.

    :math:`v = c\sin^2\!\rho\,\operatorname{diag}(\cos\theta, \sin\theta)`, :math:`\hat e =
    x/\|x\|` (2 × 2), :math:`w = v + \min(g, t_c)\sin^2\!\tau\,\hat e` with :math:`t_c =
    -\langle v, \hat e\rangle + (\langle v, \hat e\rangle^2 + c^2 - \|v\|_F^2)^{1/2}`: always
    :math:`\|v\|_F, \|w\|_F \le c` and :math:`\|v - w\|_F \le g`. ``xp`` is ``numpy`` or
    ``jax.numpy`` (the search differentiates it).

    Args:
        params: ``(..., 7)``.
        c: Norm bound (units of σ), broadcastable to ``params[..., 0]``.
        g: Sensitivity (units of σ), same.
        xp: The array module.

    Returns:
        ``(v, w)``, each ``(..., 2, 2)``.
    """
    rho, theta, tau, x = params[..., 0], params[..., 1], params[..., 2], params[..., 3:]
    s = c * xp.sin(rho) ** 2
    zero = xp.zeros_like(s)
    v = xp.stack([xp.stack([s * xp.cos(theta), zero], -1), xp.stack([zero, s * xp.sin(theta)], -1)],
                 -2)
    e = (x / xp.sqrt(xp.sum(x * x, axis=-1, keepdims=True))).reshape(x.shape[:-1] + (2, 2))
    p = xp.sum(v * e, axis=(-2, -1))
    q = p * p + c * c - s * s
    positive = q > 0
    t_sphere = -p + xp.where(positive, xp.sqrt(xp.where(positive, q, 1.0)), 0.0)
    t = xp.minimum(g, t_sphere) * xp.sin(tau) ** 2
    return v, v + t[..., None, None] * e


def parameters_from_pair(v: np.ndarray, w: np.ndarray, c, g) -> np.ndarray:
    """Inverse of :func:`pair_from_parameters` for admissible (v, w) with v diagonal, v ≥ 0."""
    s = np.sqrt(v[..., 0, 0] ** 2 + v[..., 1, 1] ** 2)
    rho = np.arcsin(np.sqrt(np.clip(s / c, 0.0, 1.0)))
    theta = np.arctan2(v[..., 1, 1], v[..., 0, 0])
    step = (w - v).reshape(v.shape[:-2] + (4,))
    t = np.linalg.norm(step, axis=-1)
    x = np.where(t[..., None] > 0, step / np.maximum(t, 1e-300)[..., None], [1.0, 0.0, 0.0, 0.0])
    e = x.reshape(v.shape)
    p = np.sum(v * e, axis=(-2, -1))
    reach = np.minimum(g, -p + np.sqrt(np.maximum(p * p + c * c - s * s, 0.0)))
    tau = np.arcsin(np.sqrt(np.clip(t / np.maximum(reach, 1e-300), 0.0, 1.0)))
    return np.concatenate([np.stack([rho, theta, tau], -1), x], -1)


@jax.jit
def value_and_gradient(alpha, d, c, g, *params):
    """D_α at :func:`pair_from_parameters` and its gradient in the 7 parameters, elementwise
    over 1-D arrays (reverse mode, one point at a time: ``lax.map``)."""

    def one(point):
        a, dof, cc, gg, p = point

        def divergence(p):
            v, w = pair_from_parameters(p, cc, gg, xp=jnp)
            return renyi_ncwishart(a, dof, v, w)

        return jax.value_and_grad(divergence)(p)

    return jax.lax.map(one, (alpha, d, c, g, jnp.stack(params, -1)))


def _diag_pair(v_diag, w):
    v = np.zeros(np.shape(w))
    v[..., 0, 0], v[..., 1, 1] = v_diag[..., 0], v_diag[..., 1]
    return v, np.asarray(w, np.float64)


def _starts(c: float, g: float, collinear) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """(family index, v, w) of every start, v diagonal with v ≥ 0 (every pair admissible)."""
    starts = []

    def add(family, v_diag, w):
        starts.append((family,) + _diag_pair(np.asarray(v_diag, np.float64), w))

    low = max(c - g, 0.0)
    corners = [(c, low), (low, c)]
    extra = [(a, b) for a, b in collinear
             if not any(abs(a - x) + abs(b - y) <= 1e-12 * c for x, y in corners)]
    for a, b in corners + extra:
        add(0, [a, 0.0], [[b, 0.0], [0.0, 0.0]])
    largest = min(2.0 * math.asin(min(g / (2.0 * c), 1.0)), 0.5 * math.pi)
    for fraction in ROTATED_ANGLES:
        phi = fraction * largest
        add(1, [c, 0.0], [[c * math.cos(phi), c * math.sin(phi)], [0.0, 0.0]])
    even = min(c, g / math.sqrt(2.0))
    first = min(c, g)
    second = min(c, math.sqrt(max(g * g - first * first, 0.0)))
    for a, b in [(even, even), (first, second), (second, first)]:
        add(2, [a, 0.0], [[0.0, b], [0.0, 0.0]])
    half = c / math.sqrt(2.0)
    shrink = max(1.0 - g / c, 0.0)
    for a, b in [(half, shrink * half), (shrink * half, half)]:
        add(3, [a, a], [[b, 0.0], [0.0, b]])
    rng = np.random.default_rng(SEED)
    for _ in range(RANDOM_PAIRS):
        params = np.concatenate([[0.5 * math.pi, rng.uniform(0.0, 0.5 * math.pi), 0.5 * math.pi],
                                 rng.standard_normal(4)])
        v, w = pair_from_parameters(params, c, g)
        add(3, np.diagonal(v, axis1=-2, axis2=-1), w)
        # The other order, as the Procrustes pair of (wᵀw, vᵀv) in the frame where wᵀw is
        # diagonal (admissible: BW ≤ ‖v − w‖_F).
        reduced = reduced_coordinates(w, v)
        v2, w2 = pair_from_coordinates(reduced["a"], reduced["b"], reduced["phi"])
        add(3, np.diagonal(v2, axis1=-2, axis2=-1), w2)
    return starts


@dataclasses.dataclass(frozen=True)
class PairSearch:
    """The worst k = 2 pair found per order, and its exact divergence: a value attained.

    Attributes:
        alphas: The orders, 1-D.
        values: The exact :math:`D_\\alpha(P_v \\| P_w)` at the best pair found — a lower bound
            on the RDP (a value found, not a guarantee).
        errors: The cubature's error estimates of ``values``.
        v: The first member of each best pair, ``(len(alphas), 2, 2)``, raw units (σ included).
        w: The second member, same shape.
        gram_v: Its reduced form: :math:`A = \\operatorname{diag}(a_1, a_2)` (raw units²).
        gram_w: :math:`B` in the same frame (:func:`reduced_coordinates`).
        bures_wasserstein: :math:`\\mathrm{BW}(A, B)` (raw units), ≤ the sensitivity.
        family: The family (:data:`FAMILIES`) whose start or climb gave the best value.
        family_values: The best value per family (start or climb), ``(len(alphas), 4)``.
        corner_values: The collinear corner's value (the larger of both orders).
        evaluations: Exact divergences evaluated per order (a value with its gradient counts
            as one).
        climb_steps: Gradient steps taken by the longest climb (≤ ``CLIMB_STEPS``).
    """

    alphas: np.ndarray
    values: np.ndarray
    errors: np.ndarray
    v: np.ndarray
    w: np.ndarray
    gram_v: np.ndarray
    gram_w: np.ndarray
    bures_wasserstein: np.ndarray
    family: np.ndarray
    family_values: np.ndarray
    corner_values: np.ndarray
    evaluations: int
    climb_steps: int


def _climb(alphas, d, c, g, params, climb_steps):
    """Normalised gradient ascent of every row of ``params``; (values, params, steps)."""
    n = len(params)
    consts = (alphas, np.full(n, float(d)), np.full(n, float(c)), np.full(n, float(g)))

    def evaluate(rows, p):
        value, grad = map_bucketed(value_and_gradient, *(x[rows] for x in consts), *p.T, cap=1)
        value, grad = np.asarray(value), np.asarray(grad)
        ok = np.isfinite(value) & np.all(np.isfinite(grad), axis=-1)
        return np.where(ok, value, -np.inf), np.where(ok[:, None], grad, 0.0)

    value, grad = evaluate(np.arange(n), params)
    step = np.full(n, STEP)
    steps = 0
    for steps in range(1, climb_steps + 1):
        norm = np.linalg.norm(grad, axis=-1)
        step = np.where(norm > 0, step, 0.0)
        active = np.flatnonzero(step >= MIN_STEP)
        if active.size == 0:
            steps -= 1
            break
        trial = params[active] + step[active, None] * grad[active] / norm[active, None]
        trial[:, 3:] /= np.linalg.norm(trial[:, 3:], axis=-1, keepdims=True)
        new_value, new_grad = evaluate(active, trial)
        gain = new_value > value[active]
        params[active[gain]], value[active[gain]] = trial[gain], new_value[gain]
        grad[active[gain]] = new_grad[gain]
        step[active] = np.where(gain, 1.5 * step[active], 0.5 * step[active])
    return value, params, steps


def search_worst_pair(
    alphas,
    d: float,
    c: float,
    g: float,
    *,
    collinear=(),
    sigma: float = 1.0,
    climb_steps: int | None = None,
) -> PairSearch:
    """Search the admissible k = 2 pairs for the largest exact Rényi divergence, per order.

    Args:
        alphas: Orders :math:`\\alpha > 1`, 1-D.
        d: Model width :math:`d \\ge 2`.
        c: Norm bound in units of σ.
        g: Sensitivity in units of σ, :math:`0 < g \\le 2c`.
        collinear: Extra collinear starts ``(a, b)`` (units of σ), e.g. the k = 1 maximiser.
        sigma: Noise scale: the pairs are reported in raw units.
        climb_steps: The cap on gradient steps per climb (default ``CLIMB_STEPS``).

    Returns:
        A :class:`PairSearch`; ``values`` is a lower bound on the RDP of the k = 2 release.
    """
    alphas = np.atleast_1d(np.asarray(alphas, np.float64))
    n_alpha = alphas.size
    climb_steps = CLIMB_STEPS if climb_steps is None else climb_steps
    starts = _starts(float(c), float(g), collinear)
    family = np.array([s[0] for s in starts])
    v0 = np.stack([s[1] for s in starts])
    w0 = np.stack([s[2] for s in starts])
    start_values = np.asarray(renyi_ncwishart(alphas[:, None], d, v0, w0))  # (n_alpha, starts)
    evaluations = len(starts)
    # Climb from the best start of each family, moved off its symmetry.
    best_start = np.stack(
        [np.argmax(np.where(family == f, start_values, -np.inf), axis=1) for f in range(4)], 1
    )  # (n_alpha, 4)
    params = parameters_from_pair(v0[best_start], w0[best_start], c, g).reshape(-1, PARAMETERS)
    params[:, 1] += PERTURBATION
    params[:, 3:] += PERTURBATION * np.array([0.0, 1.0, 1.0, 1.0])
    climbed, params, steps = _climb(np.repeat(alphas, 4), d, c, g, params, climb_steps)
    evaluations += 4 * (steps + 1)
    climbed = climbed.reshape(n_alpha, 4)
    family_values = np.stack(
        [np.max(np.where(family == f, start_values, -np.inf), axis=1) for f in range(4)], 1
    )
    family_values = np.maximum(family_values, climbed)
    winner = np.argmax(family_values, axis=1)
    rows = np.arange(n_alpha)
    from_climb = climbed[rows, winner] >= family_values[rows, winner]
    cv, cw = pair_from_parameters(params.reshape(n_alpha, 4, PARAMETERS)[rows, winner], c, g)
    sv, sw = v0[best_start[rows, winner]], w0[best_start[rows, winner]]
    v = np.where(from_climb[:, None, None], cv, sv)
    w = np.where(from_climb[:, None, None], cw, sw)
    values, errors = (np.asarray(x) for x in renyi_ncwishart(alphas, d, v, w, return_error=True))
    evaluations += 1
    reduced = reduced_coordinates(v, w)
    corner = start_values[:, :2].max(axis=1)
    return PairSearch(
        alphas=alphas,
        values=values,
        errors=errors,
        v=v * sigma,
        w=w * sigma,
        gram_v=reduced["gram_v"] * sigma**2,
        gram_w=reduced["gram_w"] * sigma**2,
        bures_wasserstein=bures_wasserstein(reduced["gram_v"], reduced["gram_w"]) * sigma,
        family=np.array([FAMILIES[i] for i in winner]),
        family_values=family_values,
        corner_values=corner,
        evaluations=evaluations,
        climb_steps=steps,
    )

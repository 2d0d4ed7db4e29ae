r"""Variational estimation of Fisher information from samples of a reparameterised family.

**Method.** For a family :math:`X_\theta = g(\theta, \varepsilon)` with score
:math:`s_\theta = \partial_\theta \log p_\theta(X_\theta)`, the Cramér–Rao inequality in
variational form (``docs/math/variational.md#variational-fisher-information``):

.. math::

    I(\theta) = \sup_f \frac{\bigl(\partial_\theta E_\theta f(X_\theta)\bigr)^2}
        {\operatorname{Var}_\theta f(X_\theta)},

attained at :math:`f = s_\theta` (up to scale and shift), since
:math:`\partial_\theta E f = \operatorname{Cov}(f, s_\theta)`. The derivative goes *pathwise*:
:math:`\partial_\theta E f(g(\theta, \varepsilon)) = E[\nabla f(X)\cdot\partial_\theta g]`, by a
forward-mode ``jax.jvp`` of the sampler in :math:`\theta` and of the network in its input, so the
sampler must be differentiable in :math:`\theta` (the ``fisherrdp.release`` samplers are). No
density is needed.

**Training.** An ensemble of ``members`` MLPs per point (equinox, GELU) maximises the scale-free
form :math:`\hat A/\sqrt{\hat V}` (its square is the ratio above; a ratio of the right scale for
Adam whatever the size of :math:`I`) on fresh batches at every step, with inputs standardised
by a pilot batch; all points and members train together in one vmapped, jitted loop
(:mod:`~fisherrdp._src.variational.training`).

**Estimate and interval.** The estimate uses the members' average, each member scaled to unit
variance and a positive slope on a separate calibration draw (averaging cancels part of the
members' independent fitting errors). On ``n_eval`` held-out draws
(sums about centres from the calibration draw, one pass):

.. math::

    \hat I = \frac{\hat A^2 - \widehat{\operatorname{Var}}(a)/n}{\hat V},\qquad
    a_i = \nabla f(X_i)\cdot\partial_\theta X_i,\ b_i = f(X_i),

(:math:`\hat A^2` corrected for its :math:`O(1/n)` bias), with a delta-method standard error
from the influence function
:math:`\frac{2A}{V}(a_i - A) - \frac{A^2}{V^2}\bigl((b_i - B)^2 - V\bigr)`, and the 95% interval
:math:`\hat I \pm 1.96\,\mathrm{se}`. For a fixed :math:`f` the population ratio is
:math:`\le I(\theta)`, so the estimate can only be low through the optimisation gap, which the
interval does not contain.

**Diagnostics.** (1) Every member is also evaluated on the held-out draws. Members that stopped
short of the supremum fall below their average; if the average exceeds the members' median by
more than two standard errors, the optimisation gap is of the size of the interval or larger.
(2) The interval needs a finite variance of the influence function; its Pareto tail index
:math:`\hat k` (:mod:`~fisherrdp._src.variational.diagnostics`, from the largest held-out
magnitudes) must be below 0.5. It is not where the pathwise derivative
:math:`\partial_\theta X` is heavy-tailed and the network's gradient does not vanish there,
e.g. the feature :math:`\log\|V\|^2` of :math:`\chi^2_1(\theta^2)`, whose derivative
:math:`2/(\theta + N)` has a Cauchy tail (measured: an estimate of −13 ± 31 for a true 0.73;
the feature :math:`\|V\|`, whose derivative is bounded by 1, has no such trouble). Either
failure sets ``reliable`` to ``False`` with the reason.

**Measured** (``benchmarks/bench_variational.py``, defaults: 4 members, 2000 steps, batch 1024,
hidden (64,), n_eval 200 000; 2026-12-02): the Fisher information of :math:`\chi^2_d(\theta^2)`
(feature :math:`\|V\|`) against :func:`fisherrdp.fisher.ncx2_amplitude_fisher` for
d ∈ {1, 2, 5, 20, 100}, θ ∈ {0.1, 0.3, 1, 3, 10}, two keys: 47 of 50 intervals cover the
exact value (94%), none flagged, median |relative error| 0.4%, z-scores of both signs; 25
points in 410–450 s on 2 CPU cores shared with other jobs.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

from fisherrdp._src.variational import diagnostics
from fisherrdp._src.variational.training import (
    Z95,
    check_knobs,
    default_optimizer,
    ensemble_verdict,
    fit,
    shaped,
    stack_points,
)

__all__ = ["FisherEstimate", "estimate_fisher"]


@dataclasses.dataclass(frozen=True)
class FisherEstimate:
    """Result of :func:`estimate_fisher`: floats for a scalar ``theta``, else arrays of its shape.

    Attributes:
      estimate: :math:`\\hat I(\\theta)` on held-out draws.
      ci_low: lower end of the 95% interval (estimate − 1.96 stderr).
      ci_high: upper end of the 95% interval.
      stderr: delta-method standard error of the held-out estimate.
      members: held-out estimate of each ensemble member, trailing axis ``members``.
      reliable: ``False`` where the diagnostic flags the estimate (``reason`` says why).
      reason: ``""`` where reliable, else the diagnostic's explanation.
      khat: Pareto :math:`\\hat k` of the held-out influence function of the estimate
        (module docstring); below 0.5 its variance is finite and the interval means what it
        says.
      curve: mean training objective (:math:`\\hat A|\\hat A|/\\hat V` over the members) per
        block of ``log_every`` steps, shape ``(steps // log_every,) + theta.shape``.
      curve_steps: the step count at the end of each block.
      theta: the parameter values.
      seconds: wall time of the whole call (compilation included).
      settings: every knob used (a dict).
    """

    estimate: Any
    ci_low: Any
    ci_high: Any
    stderr: Any
    members: np.ndarray
    reliable: Any
    reason: Any
    khat: Any
    curve: np.ndarray
    curve_steps: np.ndarray
    theta: Any
    seconds: float
    settings: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass(frozen=True)
class _FisherProblem:
    """Everything static of a run (hashable: the compiled steps are cached on it)."""

    sample: Callable
    features: int
    batch_size: int
    log_every: int
    optimizer: Any
    dtype: Any

    def draw(self, key, point, n: int):
        """``n`` draws and their θ-tangents as (n, features) arrays, standardised."""
        theta, args = point["theta"], point["args"]
        x, dx = jax.jvp(lambda t: self.sample(key, t, n, *args), (theta,), (jnp.ones_like(theta),))
        x = (jnp.reshape(x, (n, self.features)) - point["shift"]) / point["scale"]
        dx = jnp.reshape(dx, (n, self.features)) / point["scale"]
        return x.astype(self.dtype), dx.astype(self.dtype)

    def loss(self, nets, key, point):
        z, dz = self.draw(key, point, self.batch_size)

        def member(net):
            b, a = jax.jvp(jax.vmap(net), (z,), (dz,))
            mean_a = jnp.mean(a)
            var_b = jnp.mean(jnp.square(b - jnp.mean(b)))
            return mean_a * jax.lax.rsqrt(var_b + jnp.finfo(self.dtype).tiny)

        ratios = jax.vmap(member)(nets)
        return -jnp.sum(ratios), ratios * jnp.abs(ratios)


def _member_outputs(problem: _FisherProblem, nets, key, point, n: int):
    """``(b, a)`` = (f(X), ∇f(X)·∂θX) of each member on ``n`` draws, shape (members, n), float64."""
    z, dz = problem.draw(key, point, n)
    wide = jnp.result_type(float)
    b, a = jax.vmap(lambda net: jax.jvp(jax.vmap(net), (z,), (dz,)))(nets)
    return b.astype(wide), a.astype(wide)


def _with_average(b, a, weights):
    """Append the weighted average of the members' ``b`` and ``a`` as a last row."""
    return jnp.concatenate([b, (weights @ b)[None]]), jnp.concatenate([a, (weights @ a)[None]])


@eqx.filter_jit
def _combination(problem, nets, keys, points, n: int):
    """From a calibration draw of ``n`` per point: the weights of the members' average (each
    member scaled to unit variance and a positive slope) and, for every function (members and
    average), the mean of ``a``, the mean and the variance of ``b`` (the centres of the
    held-out sums and the scales of the influence function)."""

    def one(nets, key, point):
        b, a = _member_outputs(problem, nets, key, point, n)
        weights = jnp.sign(jnp.mean(a, axis=1)) / (b.shape[0] * jnp.std(b, axis=1))
        b, a = _with_average(b, a, weights)
        stats = (jnp.mean(a, axis=1), jnp.mean(b, axis=1), jnp.var(b, axis=1))
        return weights, jnp.stack(stats, axis=-1)

    return jax.vmap(one)(nets, keys, points)


@eqx.filter_jit
def _eval_chunk(problem, nets, keys, points, weights, centres, n: int, top: int):
    """One held-out chunk of ``n`` per point: sums about the calibration centres, Σda, Σdb,
    Σda², Σdb², Σdb³, Σdb⁴, Σda·db, Σda·db², shape (points, members + 1, 8); and the ``top``
    largest log-magnitudes of the average's influence function (with the calibration
    moments), shape (points, top), for its Pareto tail diagnostic."""

    def one(nets, key, point, weights, centre):
        b, a = _with_average(*_member_outputs(problem, nets, key, point, n), weights)
        da, db = a - centre[:, 0:1], b - centre[:, 1:2]
        db2 = db * db
        terms = (da, db, da * da, db2, db2 * db, db2 * db2, da * db, da * db2)
        sums = jnp.stack([jnp.sum(t, axis=1) for t in terms], axis=-1)
        mean_a, var_b = centre[-1, 0], centre[-1, 2]
        influence = 2.0 * mean_a / var_b * da[-1] - (mean_a / var_b) ** 2 * (db2[-1] - var_b)
        return sums, jax.lax.top_k(jnp.log(jnp.abs(influence)), top)[0]

    return jax.vmap(one)(nets, keys, points, weights, centres)


def _check_sampler(sample, theta0, args0, key, n: int) -> int:
    """Probe ``sample`` at the first point: shapes, dtype, finiteness and θ-dependence."""
    if not callable(sample):
        raise TypeError(
            f"argument 'sample' must be a callable (key, theta, n, *args), got {sample!r}"
        )
    try:
        x, dx = jax.jvp(lambda t: sample(key, t, n, *args0), (theta0,), (jnp.ones_like(theta0),))
    except (
        jax.errors.ConcretizationTypeError,
        jax.errors.TracerArrayConversionError,
        jax.errors.TracerIntegerConversionError,
        jax.errors.TracerBoolConversionError,
    ) as e:
        raise ValueError(
            "argument 'sample' must be a JAX function of (key, theta, n, *args) differentiable "
            f"in theta; differentiating it in theta failed: {type(e).__name__}"
        ) from e
    if not hasattr(x, "shape") or x.ndim < 1 or x.shape[0] != n:
        raise ValueError(
            f"argument 'sample' must return an array of shape (n, ...) with n = {n} rows, got "
            f"{getattr(x, 'shape', type(x).__name__)}"
        )
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise ValueError(f"argument 'sample' must return floating-point draws, got dtype {x.dtype}")
    x, dx = np.asarray(x), np.asarray(dx)
    if not np.all(np.isfinite(x)):
        raise ValueError(
            f"argument 'sample' returned non-finite draws ({np.sum(~np.isfinite(x))} of {x.size} "
            f"entries) at theta = {float(theta0):g}"
        )
    if not np.all(np.isfinite(dx)):
        raise ValueError(
            f"argument 'sample' has non-finite derivatives in theta at theta = {float(theta0):g} "
            f"({np.sum(~np.isfinite(dx))} of {dx.size} entries)"
        )
    if not np.any(dx != 0.0):
        raise ValueError(
            "argument 'sample' is not differentiable in theta: the pathwise derivative of its "
            f"draws is identically zero at theta = {float(theta0):g}. The sampler must be "
            "reparameterised, X = g(theta, eps) with eps drawn from the key (no stop_gradient, "
            "rounding, sorting by value or rejection steps on the theta-dependent part)"
        )
    return int(np.prod(x.shape[1:], dtype=int))


def estimate_fisher(
    sample: Callable[..., jax.Array],
    theta: Any,
    *,
    key: jax.Array,
    args: Sequence[Any] = (),
    members: int = 4,
    hidden: Sequence[int] = (64,),
    activation: str = "gelu",
    steps: int = 2000,
    batch_size: int = 1024,
    learning_rate: float = 3e-3,
    optimizer: optax.GradientTransformation | None = None,
    n_eval: int = 200_000,
    eval_chunk: int | None = None,
    pilot_size: int = 4096,
    log_every: int = 100,
    net_dtype: Any = jnp.float32,
    progress: bool = False,
) -> FisherEstimate:
    r"""Estimate the Fisher information :math:`I(\theta)` of :math:`X_\theta` from samples alone.

    .. math::

        I(\theta) = \sup_f \frac{\bigl(\partial_\theta E_\theta f(X_\theta)\bigr)^2}
            {\operatorname{Var}_\theta f(X_\theta)},

    the variational (Cramér–Rao) form, with :math:`f` an ensemble of small networks trained by
    optax and the derivative taken pathwise through ``sample`` (module docstring). Estimates
    are low-biased by the optimisation gap only; ``reliable`` flags a gap of the size of the
    interval. Several θ (and per-point ``args``) are trained together in one vmapped run.
    Checks: Prop 5.1 (:func:`fisherrdp.bounds.fisher_upper_prop51`) and Theorem 5.3 in
    ``fisherrdp verify --variational``. Deterministic given ``key``. Not jittable as a whole.

    Args:
      sample: ``sample(key, theta, n, *args) -> array (n, ...)``: ``n`` i.i.d. draws of
        :math:`X_\theta` (trailing axes are flattened into features), a JAX function
        differentiable in the scalar ``theta`` (reparameterised: the key fixes the noise);
        e.g. :func:`fisherrdp.release.release_path_sampler`.
      theta: the parameter, a real scalar or an array of points.
      key: a ``jax.random`` key (keyword-only).
      args: extra arrays passed to ``sample`` after ``n``; for an array ``theta``, each leaf has
        ``theta.shape`` as leading axes (one value per point), so points with different laws
        (e.g. different ``d``) train together.
      members: independently initialised networks per point (default 4, ``>= 1``).
      hidden: hidden-layer widths (default ``(64,)``).
      activation: ``"gelu"`` (default), ``"tanh"`` or ``"relu"``.
      steps: training steps (default 2000), rounded up to a multiple of ``log_every``.
      batch_size: draws per point per step (default 1024).
      learning_rate: peak rate of Adam with cosine decay (default 3e-3); ignored with
        ``optimizer``.
      optimizer: any ``optax.GradientTransformation``.
      n_eval: held-out draws per point (default 200 000).
      eval_chunk: held-out draws per point per compiled call (default: about 200 000 draws
        over all points).
      pilot_size: draws per point for the input standardisation and for the member weights
        (default 4096).
      log_every: steps per compiled chunk and per ``curve`` entry (default 100).
      net_dtype: floating type of the networks (default float32); held-out sums are float64
        when x64 is on.
      progress: show a ``tqdm`` progress bar on stderr.

    Returns:
      A :class:`FisherEstimate`.

    Raises:
      ValueError: if ``sample`` cannot be differentiated in ``theta``, its draws do not depend
        on ``theta``, are not of shape ``(n, ...)``, or are not finite; if ``theta`` is not
        finite, ``args`` do not match ``theta``'s shape, or a knob is out of range.
      TypeError: if ``sample`` is not callable.

    Examples:
      >>> import jax
      >>> sample = lambda key, theta, n: theta + jax.random.normal(key, (n,))  # I = 1
      >>> r = estimate_fisher(sample, 0.5, key=jax.random.key(0), steps=200, n_eval=20_000)
      >>> bool(abs(r.estimate - 1.0) < 4 * r.stderr + 0.01), r.reliable
      (True, True)
    """
    start = time.perf_counter()
    knobs = check_knobs(
        activation=activation,
        members=members,
        batch_size=batch_size,
        steps=steps,
        n_eval=n_eval,
        eval_chunk=eval_chunk,
        pilot_size=pilot_size,
        log_every=log_every,
        hidden=hidden,
    )
    theta, args = stack_points(theta, args, "theta")
    flat = jnp.asarray(theta.reshape(-1))
    n_points, steps, pilot_size = flat.size, knobs["steps"], knobs["pilot_size"]
    eval_chunk = knobs["eval_chunk"] or max(1000, 200_000 // n_points)
    eval_chunk = min(eval_chunk, knobs["n_eval"])
    dtype = jnp.dtype(net_dtype)

    k_probe, k_pilot, k_init, k_train, k_cal, k_eval = jax.random.split(key, 6)
    arg0 = jax.tree_util.tree_map(lambda a: a[0], args)
    features = _check_sampler(sample, flat[0], arg0, k_probe, min(pilot_size, 64))
    custom = optimizer is not None
    if not custom:
        optimizer = default_optimizer(float(learning_rate), steps)
    problem = _FisherProblem(
        sample, features, knobs["batch_size"], knobs["log_every"], optimizer, dtype
    )
    shift, scale = _pilot_moments(
        problem, jax.random.split(k_pilot, n_points), flat, args, pilot_size
    )
    points = {"theta": flat, "args": args, "shift": shift, "scale": scale}
    nets, curve = fit(
        problem,
        points,
        knobs,
        init_key=k_init,
        train_key=k_train,
        features=features,
        activation=activation,
        last="small",
        dtype=dtype,
        progress=progress,
        desc="Fisher information",
    )
    weights, centres = _combination(
        problem, nets, jax.random.split(k_cal, n_points), points, pilot_size
    )
    values, stderr, khat, n = _evaluate(
        problem, nets, points, weights, centres, k_eval, knobs["n_eval"], eval_chunk
    )
    estimate, se = values[:, -1], stderr[:, -1]
    reliable, reasons = ensemble_verdict(estimate, se, values[:, :-1])
    for i in np.flatnonzero(~(khat < diagnostics.KHAT_RELIABLE)):
        reliable[i] = False
        why = (
            f"Pareto k̂ = {khat[i]:.2f} >= {diagnostics.KHAT_RELIABLE} for the influence function "
            "of the estimate: its variance is infinite (heavy-tailed derivatives or scores), the "
            "interval is not trustworthy; a feature with bounded derivatives in theta helps"
        )
        reasons[i] = "; ".join(r for r in (reasons[i], why) if r)
    out = shaped(theta.shape)
    return FisherEstimate(
        estimate=out(estimate),
        ci_low=out(estimate - Z95 * se),
        ci_high=out(estimate + Z95 * se),
        stderr=out(se),
        members=values[:, :-1].reshape(theta.shape + (knobs["members"],)),
        reliable=out(reliable),
        reason=out(np.array(reasons, dtype=object)),
        khat=out(khat),
        curve=np.mean(curve, axis=-1).reshape(curve.shape[:1] + theta.shape),
        curve_steps=knobs["log_every"] * np.arange(1, curve.shape[0] + 1),
        theta=out(theta.reshape(-1)),
        seconds=time.perf_counter() - start,
        settings=knobs
        | {
            "activation": activation,
            "learning_rate": None if custom else float(learning_rate),
            "optimizer": "custom" if custom else "adam+cosine_decay",
            "eval_chunk": eval_chunk,
            "n_eval": n,
            "net_dtype": str(dtype),
            "features": features,
        },
    )


@eqx.filter_jit
def _pilot_moments(problem, keys, theta, args, n: int):
    """Per-point mean and standard deviation of the features (a pilot draw)."""

    def one(key, theta, args):
        x = jnp.reshape(problem.sample(key, theta, n, *args), (n, problem.features))
        scale = jnp.std(x, axis=0)
        return jnp.mean(x, axis=0), jnp.where(scale > 0.0, scale, 1.0)

    return jax.vmap(one)(keys, theta, args)


def _evaluate(problem, nets, points, weights, centres, key, n_eval: int, chunk: int):
    """Held-out estimates and standard errors, shape (points, members + 1) (last: the
    average), the Pareto :math:`\\hat k` of the average's influence function, and the count.

    One pass of sums about the calibration centres (numerically safe in float64: the centres
    are within sampling error of the means), turned into central moments exactly.
    """
    n_points = points["theta"].shape[0]
    n_chunks = -(-n_eval // chunk)
    n = n_chunks * chunk  # whole chunks: n_eval rounded up
    top = min(diagnostics.tail_size(n) + 1, chunk)
    sums, tops = 0.0, []
    for k in jax.random.split(key, n_chunks):
        part, largest = _eval_chunk(
            problem, nets, jax.random.split(k, n_points), points, weights, centres, chunk, top
        )
        sums = sums + np.asarray(part, np.float64)
        tops.append(np.asarray(largest, np.float64))
    khat = np.asarray(diagnostics.pareto_khat(np.concatenate(tops, axis=-1), n)).reshape(-1)
    ea, eb, eaa, ebb, eb3, eb4, eab, eabb = (sums[..., i] / n for i in range(8))
    mean_a = np.asarray(centres, np.float64)[..., 0] + ea
    var_a = eaa - ea * ea
    var_b = ebb - eb * eb
    m4_b = eb4 - 4.0 * eb * eb3 + 6.0 * eb * eb * ebb - 3.0 * eb**4
    c_abb = eabb - 2.0 * eb * eab + eb * eb * ea - ea * var_b
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (mean_a * mean_a - var_a / n) / var_b
        g1, g2 = 2.0 * mean_a / var_b, -(mean_a * mean_a) / (var_b * var_b)
        var_if = g1 * g1 * var_a + g2 * g2 * (m4_b - var_b * var_b) + 2.0 * g1 * g2 * c_abb
        stderr = np.sqrt(np.maximum(var_if, 0.0) / n)
    return value, stderr, khat, n

r"""The shared training loop of the variational estimators: many networks, one compiled step.

An estimator describes its objective by a *problem* (a frozen, hashable dataclass with a
``loss(nets, key, point)`` method for one point, an ``optimizer`` and ``log_every``). The
networks are one :class:`~fisherrdp._src.variational.networks.MLP` with leading axes
``(points, members)``; :func:`train` vmaps the loss over the points (each point gets its own key,
so its members share one batch of draws per step), sums the losses (the points' parameters are
disjoint, so the gradient of the sum is each point's own gradient, and Adam acts elementwise),
and runs ``log_every`` optax steps per ``lax.scan`` under one ``equinox.filter_jit``. The
compiled chunk is cached on the problem (its samplers and knobs) and the array shapes, so
repeated calls with the same problem do not recompile.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import equinox as eqx
import jax
import jax.numpy as jnp
import numpy as np
import optax

from fisherrdp._src.core.validation import check_concrete
from fisherrdp._src.variational.networks import ACTIVATIONS, init_ensemble

__all__ = [
    "GAP_SE",
    "Z95",
    "check_knobs",
    "default_optimizer",
    "ensemble_verdict",
    "fit",
    "shaped",
    "stack_points",
    "train",
]

#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: Standard errors by which the ensemble's averaged function may exceed the members' median
#: before an estimate is flagged (:func:`ensemble_verdict`).
GAP_SE = 2.0


@functools.lru_cache(maxsize=64)
def default_optimizer(learning_rate: float, steps: int) -> optax.GradientTransformation:
    """Adam with cosine decay to 0 over ``steps``; one object per (rate, steps), so compiled
    training chunks are reused across calls."""
    return optax.adam(optax.cosine_decay_schedule(learning_rate, steps))


@eqx.filter_jit
def _train_chunk(problem, nets, opt_state, keys, points):
    """``len(keys)`` optax steps; the mean objective of each (point, member) over them."""
    params, static = eqx.partition(nets, eqx.is_inexact_array)

    def total(params, key):
        nets = eqx.combine(params, static)
        n_points = jax.tree_util.tree_leaves(points)[0].shape[0]
        losses, objectives = jax.vmap(problem.loss)(nets, jax.random.split(key, n_points), points)
        return jnp.sum(losses), objectives

    def step(carry, key):
        params, opt_state = carry
        (_, objectives), grads = jax.value_and_grad(total, has_aux=True)(params, key)
        updates, opt_state = problem.optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), objectives

    (params, opt_state), objectives = jax.lax.scan(step, (params, opt_state), keys)
    return eqx.combine(params, static), opt_state, jnp.mean(objectives, axis=0)


def train(problem, nets, points, *, key, steps: int, progress: bool = False, desc: str = ""):
    """Train ``nets`` (leading axes (points, members)) on ``problem`` for ``steps`` steps.

    Args:
      problem: hashable description with ``loss(nets, key, point) -> (loss, objectives)`` for one
        point (``nets`` with the members axis leading, ``objectives`` of shape (members,)),
        ``optimizer`` and ``log_every``.
      nets: the initial networks.
      points: pytree of per-point arrays (leading axis: points), passed to ``loss``.
      key: a ``jax.random`` key.
      steps: a multiple of ``problem.log_every``.
      progress: show a ``tqdm`` bar on stderr.
      desc: the bar's label.

    Returns:
      ``(nets, curve)``: the trained networks and the mean training objective per block of
      ``log_every`` steps, shape ``(steps // log_every, points, members)``.
    """
    log_every = problem.log_every
    chunks = steps // log_every
    opt_state = problem.optimizer.init(eqx.filter(nets, eqx.is_inexact_array))
    curve = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=steps, unit="step", desc=desc)
    try:
        for key_chunk in jax.random.split(key, chunks):
            keys = jax.random.split(key_chunk, log_every)
            nets, opt_state, value = _train_chunk(problem, nets, opt_state, keys, points)
            curve.append(value)
            if bar is not None:
                bar.update(log_every)
                bar.set_postfix_str(f"objective {float(jnp.mean(value)):.4g}")
    finally:
        if bar is not None:
            bar.close()
    return nets, np.asarray(jnp.stack(curve), dtype=np.float64)


def fit(
    problem,
    points,
    knobs: dict,
    *,
    init_key,
    train_key,
    features: int,
    activation: str,
    last: str,
    dtype,
    progress: bool,
    desc: str,
):
    """Initialise ``knobs["members"]`` networks per point (:func:`init_ensemble`) and
    :func:`train` them; returns ``(nets, curve)``."""
    n_points = jax.tree_util.tree_leaves(points)[0].shape[0]
    nets = init_ensemble(
        init_key,
        (n_points, knobs["members"]),
        features,
        knobs["hidden"],
        activation=activation,
        last=last,
        dtype=dtype,
    )
    plural = "s" * (n_points > 1)
    return train(
        problem,
        nets,
        points,
        key=train_key,
        steps=knobs["steps"],
        progress=progress,
        desc=f"{desc} ({n_points} point{plural})",
    )


# ---------------------------------------------------------------------------------------
# Shared by the estimators: knobs, points, results.


def check_knobs(
    *,
    activation: str,
    members,
    batch_size,
    steps,
    n_eval,
    eval_chunk,
    pilot_size,
    log_every,
    hidden: Sequence[int],
) -> dict:
    """Validate the training knobs (ValueError naming the argument); ``steps`` is rounded up
    to a multiple of ``log_every``. Returns them as plain Python values."""
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"argument 'activation' must be one of {tuple(ACTIVATIONS)}, got {activation!r}"
        )
    for name, value, low in (
        ("members", members, 1),
        ("batch_size", batch_size, 2),
        ("steps", steps, 1),
        ("n_eval", n_eval, 2),
        ("pilot_size", pilot_size, 2),
        ("log_every", log_every, 1),
    ):
        check_concrete(name, value, lower=low, integer=True)
    if eval_chunk is not None:
        check_concrete("eval_chunk", eval_chunk, lower=2, integer=True)
    hidden = tuple(int(h) for h in hidden)
    if any(h < 1 for h in hidden):
        raise ValueError(f"argument 'hidden' must be positive widths, got {hidden}")
    log_every = int(log_every)
    return {
        "members": int(members),
        "batch_size": int(batch_size),
        "steps": -(-int(steps) // log_every) * log_every,
        "n_eval": int(n_eval),
        "eval_chunk": None if eval_chunk is None else int(eval_chunk),
        "pilot_size": int(pilot_size),
        "log_every": log_every,
        "hidden": hidden,
    }


def stack_points(values: Any, args: Sequence[Any], name: str) -> tuple[np.ndarray, tuple]:
    """The per-point parameter (``theta`` or ``alpha``) as an array and ``args`` with one
    leading axis over the flattened points (ValueError if a leaf does not match)."""
    values = np.asarray(values, dtype=np.result_type(float))
    if values.size == 0:
        raise ValueError(f"argument {name!r} is empty")
    if not np.all(np.isfinite(values)):
        raise ValueError(f"argument {name!r} must be finite, got {values}")
    size = values.size
    if values.ndim == 0:
        return values, jax.tree_util.tree_map(lambda a: jnp.asarray(a)[None], tuple(args))
    for leaf in jax.tree_util.tree_leaves(tuple(args)):
        shape = jnp.shape(leaf)
        if shape[: values.ndim] != values.shape:
            raise ValueError(
                f"argument 'args': every leaf must have {name}'s shape {values.shape} as its "
                f"leading axes (one value per point), got a leaf of shape {shape}"
            )
    stacked = jax.tree_util.tree_map(
        lambda a: jnp.reshape(jnp.asarray(a), (size,) + jnp.shape(a)[values.ndim :]), tuple(args)
    )
    return values, stacked


def shaped(shape: tuple[int, ...]):
    """Reshape a flat per-point result to ``shape`` (a Python scalar for ``()``)."""

    def out(x):
        x = np.asarray(x).reshape(shape)
        return x.item() if x.ndim == 0 else x

    return out


def ensemble_verdict(estimate, stderr, members) -> tuple[np.ndarray, list[str]]:
    """Flag points whose averaged function beats the members' median by more than
    ``GAP_SE`` standard errors (the optimisation gap is then of the interval's size), or whose
    estimate is not finite. Returns ``(reliable, reasons)``."""
    gap = estimate - np.median(members, axis=-1)
    reliable = np.isfinite(estimate) & np.isfinite(stderr) & ~(gap > GAP_SE * stderr)
    reasons = [
        ""
        if ok
        else (
            f"ensemble members fall {g:.3g} below their average's estimate ({g / s:.1f} "
            "standard errors): the optimisation has not converged, the estimate may be low by "
            "as much"
            if np.isfinite(e) and np.isfinite(s)
            else "non-finite held-out moments"
        )
        for ok, g, s, e in zip(reliable, gap, stderr, estimate, strict=True)
    ]
    return reliable, reasons

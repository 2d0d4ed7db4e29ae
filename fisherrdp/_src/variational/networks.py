r"""Test-function networks of the variational estimators: equinox MLPs, built as ensembles.

A network maps one feature vector to a scalar. :func:`init_ensemble` builds many independently
initialised networks at once (one ``equinox`` module whose array leaves carry leading batch
axes, e.g. ``(points, members)``) so that the training loop can ``vmap`` over them: every grid
point of ``fisherrdp verify --variational`` and every member of an ensemble is trained in the
same compiled step.

Initialisation: equinox's default (uniform in :math:`\pm 1/\sqrt{\text{fan-in}}`) for the hidden
layers; the output layer is either zero (``last="zero"``, the Rényi estimator: :math:`h \equiv 0`
is the neutral start of its objective) or scaled by ``1e-2`` (``last="small"``, the Fisher
estimator, whose scale-free objective is undefined at a constant function).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import equinox as eqx
import jax
import jax.numpy as jnp

__all__ = ["ACTIVATIONS", "MLP", "init_ensemble"]

#: Hidden-layer activations by name.
ACTIVATIONS: dict[str, Callable[[jax.Array], jax.Array]] = {
    "gelu": jax.nn.gelu,
    "tanh": jnp.tanh,
    "relu": jax.nn.relu,
}


class MLP(eqx.Module):
    """A multilayer perceptron ``R^features -> R`` (linear output layer)."""

    layers: tuple[eqx.nn.Linear, ...]
    activation: str = eqx.field(static=True)

    def __call__(self, x: jax.Array) -> jax.Array:
        act = ACTIVATIONS[self.activation]
        for layer in self.layers[:-1]:
            x = act(layer(x))
        return self.layers[-1](x)


def _init_one(key, sizes: tuple[int, ...], activation: str, last: str, dtype) -> MLP:
    keys = jax.random.split(key, len(sizes) - 1)
    layers = []
    for i, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
        out = "scalar" if i == len(sizes) - 2 else fan_out
        layers.append(eqx.nn.Linear(fan_in, out, key=keys[i], dtype=dtype))
    head = layers[-1]
    factor = 0.0 if last == "zero" else 1e-2
    head = eqx.tree_at(
        lambda lin: (lin.weight, lin.bias), head, (factor * head.weight, 0.0 * head.bias)
    )
    return MLP(tuple(layers[:-1]) + (head,), activation)


def init_ensemble(
    key: jax.Array,
    shape: tuple[int, ...],
    features: int,
    hidden: Sequence[int],
    *,
    activation: str = "gelu",
    last: str = "zero",
    dtype=jnp.float32,
) -> MLP:
    """Independently initialised MLPs with leading axes ``shape`` on every array leaf.

    Args:
      key: a ``jax.random`` key.
      shape: batch shape of the ensemble, e.g. ``(points, members)``.
      features: input size.
      hidden: hidden-layer widths.
      activation: a key of :data:`ACTIVATIONS`.
      last: ``"zero"`` (output layer zero) or ``"small"`` (output layer scaled by 1e-2).
      dtype: floating type of the weights.

    Returns:
      An :class:`MLP` whose arrays have leading axes ``shape``; call it on one feature vector
      after indexing (or under ``jax.vmap``).

    Examples:
      >>> import jax
      >>> nets = init_ensemble(jax.random.key(0), (3, 2), 1, (8,))
      >>> nets.layers[0].weight.shape
      (3, 2, 8, 1)
    """
    sizes = (int(features), *(int(h) for h in hidden), 1)
    keys = jax.random.split(key, shape) if shape else key
    init = lambda k: _init_one(k, sizes, activation, last, dtype)
    for _ in shape:
        init = jax.vmap(init)
    return init(keys)

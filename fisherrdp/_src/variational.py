r"""Variational (sample-based) estimation of Rényi divergences, with a small MLP in plain JAX.

**Method.** The convex-conjugate representation of Birrell et al. (2023, "Function-space
regularized Rényi divergences", ICLR; ``MATH.md`` §6), with :math:`R_\alpha = D_\alpha/\alpha`:

.. math::

    R_\alpha(P\|Q) = \sup_{g < 0}\Bigl\{ E_Q[g]
        + \frac{1}{\alpha-1}\log E_P\bigl[|g|^{(\alpha-1)/\alpha}\bigr]\Bigr\}
        + \frac{\log\alpha + 1}{\alpha},

attained at :math:`g^* = -(dP/dQ)^\alpha/(\alpha\int p^\alpha q^{1-\alpha})`. The plain mean is
under :math:`Q`, the log-moment under :math:`P` (swapping the samplers estimates
:math:`D_\alpha(Q\|P)`). The test function is :math:`g = -e^{h(x)}` (``output="exp"``,
the default) or :math:`g = -\mathrm{psp}(h(x))` (``output="poly_softplus"``, Birrell et al.'s
and ``MATH.md``'s choice), with :math:`h` an MLP (GELU hidden layers by default, linear
output, last layer initialised to zero) and the poly-softplus :math:`\mathrm{psp}(y) = 1 + y`
(:math:`y \ge 0`), :math:`1/(1-y)` (:math:`y < 0`), whose log is formed as ``log1p(y)`` /
``-log1p(-y)`` under a double ``where``. The log-moment is a ``logsumexp``. Why ``exp`` by
default: :math:`\log|g^*| = \alpha\log(dP/dQ) + c` is smooth and, for Gaussian-like pairs,
nearly linear in the features, which an MLP fits easily; with psp, :math:`h` must itself follow
:math:`(dP/dQ)^\alpha`, exponential in the features, and bounded (tanh) or piecewise-linear
(ReLU) networks fall short in the tails. Measured on :math:`\mathcal N(1,1)` vs
:math:`\mathcal N(0,1)`, :math:`\alpha = 2` (truth 1), 2000 steps, hidden (64,), key 0:
exp 0.970–0.978 (tanh, ReLU or GELU), psp 0.88 (tanh), 0.93 (ReLU), 0.89 (GELU).

For comparison ``method="rdv"`` uses the Rényi–Donsker–Varadhan representation
(Birrell et al. 2021),

.. math::

    R_\alpha(P\|Q) = \sup_h \Bigl\{\frac{1}{\alpha-1}\log E_P\bigl[e^{(\alpha-1)h}\bigr]
        - \frac1\alpha \log E_Q\bigl[e^{\alpha h}\bigr]\Bigr\},

invariant under :math:`h \to h + c` and unbounded on finite samples (making :math:`h` large on
a few sample points of :math:`P` raises the empirical value without limit). It is unusable
with a flexible network: on the Gaussian pair above (2000 steps, tanh MLP (64, 64)) its training objective ran to
3e5 and the held-out "estimate" was 1.8e5 (truth 1), with a delta-method stderr that means
nothing there (one sample dominates each log-moment).

Training: Adam (``optax``, default peak learning rate 3e-3 with cosine decay) on fresh batches
from both samplers at every step, jitted, ``log_every`` steps per ``lax.scan``; inputs
standardised with the mean and standard deviation of a pilot batch. The compiled steps are
cached on (samplers, knobs), so repeated calls with the same sampler objects do not recompile.
The estimate is the objective of the trained :math:`h` on ``n_eval`` fresh, held-out samples of
each law, times :math:`\alpha`; its standard error is the delta method on the two independent
sample means, and the interval is estimate ± 1.96 stderr. That interval covers the sampling
error of the held-out evaluation only: the objective at a fixed :math:`h` is below the supremum
in expectation, so the estimator is also biased low by the optimisation and approximation gap,
which the interval does not include.

**Accuracy measured** (``benchmarks/bench_variational.py``, defaults, on 2 CPU cores shared
with other jobs at load average 12–16, so wall times are inflated 2–5×): on
:math:`\mathcal N(1, 1)` vs :math:`\mathcal N(0, 1)`, :math:`\alpha = 2`, three keys gave 0.970,
1.025, 1.018 (stderr 0.016; all three intervals cover 1) in 29–30 s each. On :math:`k = 1`
releases (features :math:`\log\|ZV\|^2`, :math:`\|v\| = 2`, :math:`\|w\| = 1.5`) against
:func:`fisherrdp.divergences.renyi_release_k1` on α ∈ {2, 4}, d ∈ {2, 5, 10},
n_syn ∈ {1, 10, 100, 1000} (all with α·D < 1.8): median |relative error| 2.0%, within 5% on 21
of 24 points, worst −7.3% and +9.2% (both α = 4; −6.1% at D = 0.008), 22 of 24 intervals covering (the
delta-method stderr understates the spread at α = 4, where the moments it rests on are
heavy-tailed). Errors come in both signs at this budget: the low bias of the variational value
is of the order of the sampling error. ``MATH.md`` §6: the variance grows with
:math:`e^{\alpha(\alpha-1)D}`-type moments of :math:`dP/dQ`, and beyond :math:`\alpha D` of
a few units no sample-based estimate is reliable (not reached by that grid).

**Cost.** ``steps`` × ``batch_size`` samples of each law through the MLP, plus the samplers'
own cost (a χ² draw per release for :math:`k = 1` Gram features), plus ``n_eval`` held-out
samples; compilation of the training and evaluation steps dominates short runs.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

from fisherrdp._src.validation import check_concrete

__all__ = ["RenyiEstimate", "estimate_renyi", "poly_softplus_log"]

METHODS = ("convex_conjugate", "rdv")
#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054


@dataclasses.dataclass(frozen=True)
class RenyiEstimate:
    """Result of :func:`estimate_renyi`.

    Attributes:
      estimate: :math:`D_\\alpha(P\\|Q)` (standard scale, :math:`\\alpha R_\\alpha`) on held-out
        samples.
      ci_low: lower end of the 95% interval (estimate − 1.96 stderr).
      ci_high: upper end of the 95% interval.
      stderr: delta-method standard error of the held-out estimate.
      curve: the training objective (on the :math:`D_\\alpha` scale), averaged over each
        block of ``log_every`` steps, shape ``(steps // log_every,)``.
      curve_steps: the step count at the end of each block.
      alpha: the order.
      method: ``"convex_conjugate"`` or ``"rdv"``.
      seconds: wall time of the whole call (compilation included).
      settings: every knob used (a dict).
    """

    estimate: float
    ci_low: float
    ci_high: float
    stderr: float
    curve: np.ndarray
    curve_steps: np.ndarray
    alpha: float
    method: str
    seconds: float
    settings: dict = dataclasses.field(default_factory=dict)


def poly_softplus_log(y: jax.Array) -> jax.Array:
    r"""Logarithm of the poly-softplus function, elementwise.

    .. math::

        \log\mathrm{psp}(y) = \begin{cases} \log(1 + y) & y \ge 0 \\
        -\log(1 - y) & y < 0, \end{cases}

    the output layer of the convex-conjugate Rényi estimator (Birrell et al. 2023; ``MATH.md``
    §6): :math:`\mathrm{psp} > 0` is :math:`C^1`, grows linearly and decays like :math:`1/|y|`.
    Both branches are evaluated at safe arguments (no NaN in values or gradients).

    Args:
      y: array of reals.

    Returns:
      Array of the same shape.

    Examples:
      >>> import jax.numpy as jnp
      >>> poly_softplus_log(jnp.array([-1.0, 0.0, 1.0]))
      Array([-0.69314718,  0.        ,  0.69314718], dtype=float64)
    """
    y = jnp.asarray(y)
    pos = y >= 0.0
    return jnp.where(pos, jnp.log1p(jnp.where(pos, y, 0.0)), -jnp.log1p(-jnp.where(pos, 0.0, y)))


# ---------------------------------------------------------------------------------------
# The MLP.


def _init_mlp(key: jax.Array, sizes: Sequence[int], dtype) -> list[tuple[jax.Array, jax.Array]]:
    """Glorot-normal weights, zero biases; the last layer starts at zero (h ≡ 0)."""
    params = []
    keys = jax.random.split(key, len(sizes) - 1)
    for i, (fan_in, fan_out) in enumerate(itertools.pairwise(sizes)):
        std = math.sqrt(2.0 / (fan_in + fan_out))
        w = std * jax.random.normal(keys[i], (fan_in, fan_out), dtype)
        if i == len(sizes) - 2:
            w = jnp.zeros_like(w)
        params.append((w, jnp.zeros((fan_out,), dtype)))
    return params


#: Hidden-layer activations by name.
ACTIVATIONS = {"gelu": jax.nn.gelu, "tanh": jnp.tanh, "relu": jax.nn.relu}
#: Output layers: log|g| as a function of the network output h.
OUTPUTS = ("exp", "poly_softplus")


def _mlp(params, x: jax.Array, activation: str) -> jax.Array:
    act = ACTIVATIONS[activation]
    for w, b in params[:-1]:
        x = act(x @ w + b)
    w, b = params[-1]
    return (x @ w + b)[..., 0]


# ---------------------------------------------------------------------------------------
# Objectives, as functions of the network outputs on the P and Q samples.


def _log_abs_g(output: str, h: jax.Array) -> jax.Array:
    """log|g| for g = −e^h (``"exp"``) or g = −psp(h) (``"poly_softplus"``)."""
    return h if output == "exp" else poly_softplus_log(h)


def _cc_parts(alpha: float, output: str, hp: jax.Array, hq: jax.Array):
    """Convex conjugate: per-sample g on Q and β log|g| on P, β = (α − 1)/α."""
    beta = (alpha - 1.0) / alpha
    gq = -jnp.exp(_log_abs_g(output, hq))
    lp = beta * _log_abs_g(output, hp)
    return gq, lp


def _rdv_parts(alpha: float, hp: jax.Array, hq: jax.Array):
    """RDV: (α − 1) h on P (log-moment) and α h on Q (log-moment)."""
    return (alpha - 1.0) * hp, alpha * hq


def _log_mean_exp(x: jax.Array) -> jax.Array:
    return jax.nn.logsumexp(x) - math.log(x.shape[0])


def _objective(method: str, output: str, alpha: float, hp, hq) -> jax.Array:
    """The variational objective on the D_α scale (α times the R_α objective)."""
    if method == "convex_conjugate":
        gq, lp = _cc_parts(alpha, output, hp, hq)
        r = jnp.mean(gq) + _log_mean_exp(lp) / (alpha - 1.0) + (math.log(alpha) + 1.0) / alpha
    else:
        ep, eq = _rdv_parts(alpha, hp, hq)
        r = _log_mean_exp(ep) / (alpha - 1.0) - _log_mean_exp(eq) / alpha
    return alpha * r


# ---------------------------------------------------------------------------------------
# Samplers: key -> (m, ...) batches, called as often as needed.


def _probe(sample: Callable, name: str, key: jax.Array) -> tuple[int, int]:
    """Samples per call of ``sample`` and features per sample (by tracing, no compilation)."""
    if not callable(sample):
        raise TypeError(f"argument {name!r} must be a callable key -> samples, got {sample!r}")
    out = jax.eval_shape(sample, key)
    if not hasattr(out, "shape") or len(out.shape) < 1 or out.shape[0] < 1:
        raise ValueError(
            f"argument {name!r} must return an array of shape (batch, ...), batch >= 1, got {out!r}"
        )
    return out.shape[0], int(np.prod(out.shape[1:], dtype=int))


def _draw(sample: Callable, m: int, features: int, key: jax.Array, n: int) -> jax.Array:
    """``n`` samples as an (n, features) array, from ⌈n/m⌉ calls of ``sample`` (vmapped)."""
    calls = -(-n // m)
    if calls == 1:
        x = sample(key)
    else:
        x = jax.vmap(sample)(jax.random.split(key, calls))
    return jnp.reshape(x, (calls * m, features))[:n]


@dataclasses.dataclass(frozen=True)
class _Config:
    """Everything static of a run: the compiled functions are cached on it (hashable)."""

    sample_p: Callable
    sample_q: Callable
    m_p: int
    m_q: int
    features: int
    alpha: float
    method: str
    output: str
    activation: str
    batch_size: int
    log_every: int
    eval_chunk: int
    optimizer: Any
    dtype: Any

    def draw_p(self, key, n):
        return _draw(self.sample_p, self.m_p, self.features, key, n)

    def draw_q(self, key, n):
        return _draw(self.sample_q, self.m_q, self.features, key, n)


def _net(cfg: _Config, params, shift, scale, x):
    return _mlp(params, (x.astype(cfg.dtype) - shift) / scale, cfg.activation)


@functools.partial(jax.jit, static_argnums=(0, 2))
def _pilot(cfg: _Config, key, n: int):
    """Mean and standard deviation of the features over ``n`` samples of each law."""
    kp, kq = jax.random.split(key)
    pilot = jnp.concatenate([cfg.draw_p(kp, n), cfg.draw_q(kq, n)])
    pilot = pilot.astype(cfg.dtype)
    scale = jnp.std(pilot, axis=0)
    return jnp.mean(pilot, axis=0), jnp.where(scale > 0.0, scale, 1.0)


@functools.partial(jax.jit, static_argnums=0)
def _train_chunk(cfg: _Config, params, opt_state, shift, scale, key):
    """``cfg.log_every`` Adam steps on fresh batches; the mean training objective."""

    def loss(params, xp, xq):
        hp = _net(cfg, params, shift, scale, xp)
        hq = _net(cfg, params, shift, scale, xq)
        return -_objective(cfg.method, cfg.output, cfg.alpha, hp, hq)

    def step(carry, key):
        params, opt_state = carry
        kp, kq = jax.random.split(key)
        xp, xq = cfg.draw_p(kp, cfg.batch_size), cfg.draw_q(kq, cfg.batch_size)
        value, grads = jax.value_and_grad(loss)(params, xp, xq)
        updates, opt_state = cfg.optimizer.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), -value

    (params, opt_state), values = jax.lax.scan(
        step, (params, opt_state), jax.random.split(key, cfg.log_every)
    )
    return params, opt_state, jnp.mean(values)


@functools.lru_cache(maxsize=64)
def _default_optimizer(learning_rate: float, steps: int) -> optax.GradientTransformation:
    """Adam with cosine decay, one object per (rate, steps) so compiled steps are reused."""
    return optax.adam(optax.cosine_decay_schedule(learning_rate, steps))


def estimate_renyi(
    sample_p: Callable[[jax.Array], jax.Array],
    sample_q: Callable[[jax.Array], jax.Array],
    alpha: float,
    *,
    key: jax.Array,
    method: str = "convex_conjugate",
    output: str = "exp",
    activation: str = "gelu",
    batch_size: int = 1024,
    hidden: Sequence[int] = (64,),
    steps: int = 2000,
    learning_rate: float = 3e-3,
    optimizer: optax.GradientTransformation | None = None,
    n_eval: int = 200_000,
    eval_chunk: int = 20_000,
    pilot_size: int = 4096,
    standardize: bool = True,
    log_every: int = 100,
    net_dtype: Any = jnp.float32,
    progress: bool = False,
) -> RenyiEstimate:
    r"""Estimate :math:`D_\alpha(P\|Q)` from samples by a trained variational test function.

    .. math::

        \hat D_\alpha = \alpha\Bigl(\hat E_Q[g] + \frac{1}{\alpha-1}
            \log \hat E_P\bigl[|g|^{(\alpha-1)/\alpha}\bigr] + \frac{\log\alpha+1}{\alpha}\Bigr),
        \qquad g = -e^{h_\phi} \text{ or } -\mathrm{psp}(h_\phi),

    the convex-conjugate formula of Birrell et al. (2023) (``MATH.md`` §6) with :math:`h_\phi`
    an MLP trained to maximise it, and :math:`\hat E` over held-out samples. The estimate is
    low-biased (a variational lower value; the gap shrinks with training), and unreliable
    beyond :math:`\alpha D_\alpha` of a few units (the variance of
    :math:`(dP/dQ)^{\alpha}` under :math:`Q` grows exponentially). Deterministic given ``key``.
    Not jittable as a whole (it runs a training loop); the samplers are called under ``jit``.

    Args:
      sample_p: jittable function ``key -> array (m, ...)`` of ``m`` i.i.d. samples of
        :math:`P` (trailing axes are flattened into features); called as often as needed.
      sample_q: the same for :math:`Q` (same feature count).
      alpha: the order, a concrete real ``> 1``.
      key: a ``jax.random`` key (keyword-only).
      method: ``"convex_conjugate"`` (default) or ``"rdv"`` (Rényi–Donsker–Varadhan, for
        comparison only: unbounded on finite samples, see the module docstring).
      batch_size: samples of each law per training step (default 1024).
      output: the test function's output layer (convex conjugate only): ``"exp"``
        (:math:`g = -e^h`, default) or ``"poly_softplus"`` (:math:`g = -\mathrm{psp}(h)`,
        Birrell et al.'s choice; measured lower and more biased here, see the module docstring).
      activation: hidden-layer activation, ``"gelu"`` (default), ``"tanh"`` or ``"relu"``.
      hidden: hidden layer widths of the MLP (default ``(64,)``).
      steps: training steps (default 2000), rounded up to a multiple of ``log_every``.
      learning_rate: peak learning rate of the default optimizer, Adam with cosine decay to 0
        over ``steps`` (default 3e-3); ignored when ``optimizer`` is given.
      optimizer: any ``optax.GradientTransformation`` (default: see ``learning_rate``).
      n_eval: held-out samples of each law for the estimate (default 200 000).
      eval_chunk: held-out samples per compiled evaluation call (default 20 000).
      pilot_size: samples of each law for the input standardisation (default 4096).
      standardize: standardise the inputs by the pooled pilot mean and standard deviation.
      log_every: steps per compiled chunk and per ``curve`` entry (default 100).
      net_dtype: floating type of the network and its training (default float32, about 1.3×
        faster than float64 here and far below the sampling error); held-out sums are
        accumulated in float64 when x64 is on.
      progress: show a ``tqdm`` progress bar on stderr (default off).

    Returns:
      A :class:`RenyiEstimate` (estimate, 95% interval, stderr, training curve, settings).

    Raises:
      ValueError: if ``alpha <= 1`` (or is not concrete), ``method`` is unknown, a size is
        out of range, or the samplers' feature counts differ.
      TypeError: if a sampler is not callable.

    Examples:
      >>> import jax
      >>> p = lambda k: 1.0 + jax.random.normal(k, (256,))
      >>> q = lambda k: jax.random.normal(k, (256,))
      >>> r = estimate_renyi(p, q, 2.0, key=jax.random.key(0), steps=200, n_eval=20_000)
      >>> 0.6 < r.estimate < 1.1 and r.ci_low < r.estimate < r.ci_high  # true value 1
      True
    """
    start = time.perf_counter()
    if isinstance(alpha, jax.core.Tracer):
        raise TypeError("argument 'alpha' must be a concrete number > 1, got a tracer")
    check_concrete("alpha", alpha, lower=1.0, lower_inclusive=False, allow_nan=False)
    if np.ndim(alpha) != 0:
        raise ValueError(f"argument 'alpha' must be a scalar, got shape {np.shape(alpha)}")
    alpha = float(alpha)
    if not math.isfinite(alpha):
        raise ValueError(f"argument 'alpha' must be a finite number > 1, got {alpha}")
    if method not in METHODS:
        raise ValueError(f"argument 'method' must be one of {METHODS}, got {method!r}")
    if output not in OUTPUTS:
        raise ValueError(f"argument 'output' must be one of {OUTPUTS}, got {output!r}")
    if activation not in ACTIVATIONS:
        raise ValueError(
            f"argument 'activation' must be one of {tuple(ACTIVATIONS)}, got {activation!r}"
        )
    for name, value, low in (
        ("batch_size", batch_size, 2),
        ("steps", steps, 1),
        ("n_eval", n_eval, 2),
        ("eval_chunk", eval_chunk, 2),
        ("pilot_size", pilot_size, 2),
        ("log_every", log_every, 1),
    ):
        check_concrete(name, value, lower=low, integer=True)
    hidden = tuple(int(h) for h in hidden)
    if any(h < 1 for h in hidden):
        raise ValueError(f"argument 'hidden' must be positive widths, got {hidden}")
    m_p, feat_p = _probe(sample_p, "sample_p", key)
    m_q, feat_q = _probe(sample_q, "sample_q", key)
    if feat_p != feat_q:
        raise ValueError(
            f"samplers 'sample_p' and 'sample_q' give {feat_p} and {feat_q} features; "
            "they must agree"
        )
    dtype = jnp.dtype(net_dtype)
    batch_size, n_eval, log_every = int(batch_size), int(n_eval), int(log_every)
    eval_chunk = min(int(eval_chunk), n_eval)
    chunks = -(-int(steps) // log_every)
    steps = chunks * log_every
    settings = {
        "method": method,
        "output": output if method == "convex_conjugate" else None,
        "activation": activation,
        "batch_size": batch_size,
        "hidden": hidden,
        "steps": steps,
        "learning_rate": None if optimizer is not None else float(learning_rate),
        "optimizer": "custom" if optimizer is not None else "adam+cosine_decay",
        "n_eval": n_eval,
        "eval_chunk": eval_chunk,
        "pilot_size": int(pilot_size),
        "standardize": bool(standardize),
        "log_every": log_every,
        "net_dtype": str(dtype),
        "features": feat_p,
    }

    if optimizer is None:
        optimizer = _default_optimizer(float(learning_rate), steps)
    cfg = _Config(
        sample_p=sample_p,
        sample_q=sample_q,
        m_p=m_p,
        m_q=m_q,
        features=feat_p,
        alpha=alpha,
        method=method,
        output=output,
        activation=activation,
        batch_size=batch_size,
        log_every=log_every,
        eval_chunk=eval_chunk,
        optimizer=optimizer,
        dtype=dtype,
    )
    k_pilot, k_init, k_train, k_eval = jax.random.split(key, 4)
    if standardize:  # input standardisation from a pilot batch of both laws
        shift, scale = _pilot(cfg, k_pilot, int(pilot_size))
    else:
        shift, scale = jnp.zeros((feat_p,), dtype), jnp.ones((feat_p,), dtype)
    params = _init_mlp(k_init, (feat_p, *hidden, 1), dtype)
    opt_state = optimizer.init(params)

    curve = []
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=steps, unit="step", desc=f"D_{alpha:g} ({method})")
    try:
        for key_chunk in jax.random.split(k_train, chunks):
            params, opt_state, value = _train_chunk(cfg, params, opt_state, shift, scale, key_chunk)
            curve.append(value)
            if bar is not None:
                bar.update(log_every)
                bar.set_postfix_str(f"objective {float(value):.4g}")
    finally:
        if bar is not None:
            bar.close()
    curve = np.asarray(jnp.stack(curve))

    estimate, stderr = _evaluate(cfg, params, shift, scale, k_eval, n_eval)
    return RenyiEstimate(
        estimate=estimate,
        ci_low=estimate - Z95 * stderr,
        ci_high=estimate + Z95 * stderr,
        stderr=stderr,
        curve=curve,
        curve_steps=log_every * np.arange(1, chunks + 1),
        alpha=alpha,
        method=method,
        seconds=time.perf_counter() - start,
        settings=settings,
    )


@functools.partial(jax.jit, static_argnums=0)
def _eval_chunk(cfg: _Config, params, shift, scale, key, count):
    """Sufficient sums of one held-out chunk (see :func:`_evaluate`)."""
    chunk = cfg.eval_chunk
    kp, kq = jax.random.split(key)
    wide = jnp.result_type(float)  # sums in float64 when x64 is on
    hp = _net(cfg, params, shift, scale, cfg.draw_p(kp, chunk)).astype(wide)
    hq = _net(cfg, params, shift, scale, cfg.draw_q(kq, chunk)).astype(wide)
    keep = jnp.arange(chunk) < count
    if cfg.method == "convex_conjugate":
        gq, lp = _cc_parts(cfg.alpha, cfg.output, hp, hq)
        gq = jnp.where(keep, gq, 0.0)
        lp = jnp.where(keep, lp, -jnp.inf)
        a = jnp.stack([jnp.sum(gq), jnp.sum(gq * gq)])
        return a, jnp.stack([jax.nn.logsumexp(lp), jax.nn.logsumexp(2.0 * lp)])
    ep, eq = _rdv_parts(cfg.alpha, hp, hq)
    ep = jnp.where(keep, ep, -jnp.inf)
    eq = jnp.where(keep, eq, -jnp.inf)
    return jnp.stack([jax.nn.logsumexp(ep), jax.nn.logsumexp(2.0 * ep)]), jnp.stack(
        [jax.nn.logsumexp(eq), jax.nn.logsumexp(2.0 * eq)]
    )


def _evaluate(cfg: _Config, params, shift, scale, key, n_eval):
    """Held-out estimate and delta-method standard error, from per-chunk sufficient sums.

    Per chunk (of ``eval_chunk`` fresh samples of each law): for the plain mean (CC: g on Q)
    the sum and the sum of squares; for each log-moment (CC: β log|g| on P; RDV: both)
    ``logsumexp`` of the exponent and of twice it. A final partial chunk is drawn in full and
    cut to ``n_eval`` by weights of −inf / 0.
    """
    chunk, alpha, method = cfg.eval_chunk, cfg.alpha, cfg.method
    n_chunks = -(-n_eval // chunk)
    parts_a, parts_b = [], []
    for i, k in enumerate(jax.random.split(key, n_chunks)):
        a, b = _eval_chunk(cfg, params, shift, scale, k, min(chunk, n_eval - i * chunk))
        parts_a.append(a)
        parts_b.append(b)
    a = np.asarray(jnp.stack(parts_a), dtype=np.float64)
    b = np.asarray(jnp.stack(parts_b), dtype=np.float64)
    n = float(n_eval)

    def log_moment(lse):
        """log mean e^x and the relative variance Var(e^x)/E[e^x]² from the chunk lse's."""
        l1 = _np_logsumexp(lse[:, 0]) - math.log(n)
        l2 = _np_logsumexp(lse[:, 1]) - math.log(n)
        rel_var = max(math.expm1(l2 - 2.0 * l1), 0.0) * n / (n - 1.0)
        return l1, rel_var

    if method == "convex_conjugate":
        mean_q = a[:, 0].sum() / n
        var_q = max(a[:, 1].sum() / n - mean_q * mean_q, 0.0) * n / (n - 1.0)
        l1, rel_var = log_moment(b)
        r = mean_q + l1 / (alpha - 1.0) + (math.log(alpha) + 1.0) / alpha
        var_r = var_q / n + rel_var / (n * (alpha - 1.0) ** 2)
    else:
        lp, rel_p = log_moment(a)
        lq, rel_q = log_moment(b)
        r = lp / (alpha - 1.0) - lq / alpha
        var_r = rel_p / (n * (alpha - 1.0) ** 2) + rel_q / (n * alpha * alpha)
    return float(alpha * r), float(alpha * math.sqrt(var_r))


def _np_logsumexp(x: np.ndarray) -> float:
    m = float(np.max(x))
    if not math.isfinite(m):
        return m
    return m + math.log(float(np.sum(np.exp(x - m))))

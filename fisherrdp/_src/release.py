r"""Samplers of the releases of ``MATH.md`` §1: the model, the synthetic data and their Gram matrix.

The mechanism: parameters :math:`v \in \mathbb R^{d \times k}` (a vector is the case
:math:`k = 1`), the *model release* :math:`V = v + \sigma N` with :math:`N` i.i.d.
:math:`\mathcal N(0, 1)`, and the *synthetic release* :math:`ZV` with
:math:`Z \in \mathbb R^{n_{\mathrm{syn}} \times d}`, :math:`Z_{ij}` i.i.d.
:math:`\mathcal N(0, \sigma_z^2)`.

**Methods.** :func:`sample_model` and :func:`sample_synthetic` draw :math:`N` and :math:`Z`
explicitly (cost :math:`O(dk)` and :math:`O(n_{\mathrm{syn}} d k)` per sample).
:func:`sample_gram` draws :math:`(ZV)^\top ZV` without forming :math:`Z`: given :math:`V`, the
rows of :math:`ZV` are i.i.d. :math:`\mathcal N(0, \sigma_z^2 V^\top V)`, so the Gram matrix is
Wishart, :math:`W_k(n_{\mathrm{syn}}, \sigma_z^2 V^\top V)`. With the reduced QR factorisation
:math:`V = QR` (so :math:`V^\top V = R^\top R`, also when :math:`V` is rank-deficient) and the
Bartlett factor :math:`A` (lower triangular, :math:`A_{ii}^2 \sim \chi^2_{n_{\mathrm{syn}}-i+1}`,
:math:`A_{ij} \sim \mathcal N(0, 1)` for :math:`i > j`, all independent), the Gram matrix is
:math:`\sigma_z^2 (A^\top R)^\top (A^\top R)`, exactly symmetric and positive semi-definite.
Cost :math:`O(dk^2)` per sample, independent of :math:`n_{\mathrm{syn}}`, which may be any real
:math:`> k - 1` (the Wishart law with real degrees of freedom); :math:`n_{\mathrm{syn}} = 10^9`
costs the same as 10.

**Accuracy measured** (``tests/test_release.py``): sample means and variances of
:math:`ZV` and of the Gram entries agree with
:math:`E[(ZV)^\top ZV] = n_{\mathrm{syn}} \sigma_z^2 (v^\top v + d\sigma^2 I)` and with the explicit
:math:`Z^\top Z` construction within 4.5 standard errors, and for :math:`k = 1` a
Kolmogorov–Smirnov test against the law of :math:`\sigma_z^2 \sigma^2 Y X`,
:math:`Y \sim \chi^2_d(\|v\|^2/\sigma^2)`, :math:`X \sim \chi^2_{n_{\mathrm{syn}}}` accepts.

:func:`release_samplers` builds the pair of samplers that
:func:`fisherrdp.variational.estimate_renyi` needs to estimate the privacy loss
:math:`D_\alpha(\text{release}(v) \,\|\, \text{release}(w))` from samples; its feature choice is
documented there.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.config import float_dtype
from fisherrdp._src.validation import check_concrete, is_tracer

__all__ = ["release_samplers", "sample_gram", "sample_model", "sample_synthetic"]


def _as_shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"argument 'shape' must have non-negative entries, got {shape}")
    return shape


def _check_v(v) -> jax.Array:
    v = jnp.asarray(v)
    if v.ndim not in (1, 2):
        raise ValueError(f"argument 'v' must have shape (d,) or (d, k), got shape {v.shape}")
    if v.shape[0] < 1 or (v.ndim == 2 and v.shape[1] < 1):
        raise ValueError(f"argument 'v' must be non-empty, got shape {v.shape}")
    return v.astype(float_dtype(v))


def _check_n_syn_int(n_syn) -> int:
    if is_tracer(n_syn) or not float(n_syn).is_integer() or n_syn < 1:
        raise ValueError(f"argument 'n_syn' must be a concrete integer >= 1, got {n_syn!r}")
    return int(n_syn)


def sample_model(
    key: jax.Array, v: ArrayLike, shape: tuple[int, ...] = (), *, sigma: ArrayLike = 1.0
) -> jax.Array:
    r"""Draw model releases :math:`V = v + \sigma N`, :math:`N_{ij} \sim \mathcal N(0, 1)`.

    .. math::

        V = v + \sigma N \sim \mathcal N(v, \sigma^2 I),

    the Gaussian mechanism of ``MATH.md`` §1 (the paper's model release, §3), whose loss is
    :math:`D_\alpha(V \| W) = \alpha\|v - w\|_F^2/(2\sigma^2)`.

    Args:
      key: a ``jax.random`` key.
      v: the parameter, shape ``(d,)`` or ``(d, k)``.
      shape: batch shape of independent draws (default ``()``: one draw).
      sigma: noise scale, ``sigma >= 0`` (a scalar).

    Returns:
      Array of shape ``shape + v.shape`` in the floating dtype of ``v``.

    Raises:
      ValueError: if ``v`` is not 1-D or 2-D, or concrete ``sigma < 0`` (inside ``jit`` a
        negative ``sigma`` flips the sign of the noise, which has the same law).

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from fisherrdp.release import sample_model
      >>> sample_model(jax.random.key(0), jnp.zeros((5, 2)), (3,)).shape
      (3, 5, 2)
    """
    v = _check_v(v)
    check_concrete("sigma", sigma, lower=0.0)
    return _model(key, v, jnp.asarray(sigma, v.dtype), _as_shape(shape))


@functools.partial(jax.jit, static_argnums=3)
def _model(key, v, sigma, shape):
    return v + sigma * jax.random.normal(key, shape + v.shape, v.dtype)


def sample_synthetic(
    key: jax.Array,
    v: ArrayLike,
    n_syn: int,
    *,
    sigma: ArrayLike = 1.0,
    sigma_z: ArrayLike = 1.0,
    shape: tuple[int, ...] = (),
) -> jax.Array:
    r"""Draw synthetic releases :math:`ZV` explicitly (cost :math:`O(n_{\mathrm{syn}} d k)`).

    .. math::

        ZV, \qquad V = v + \sigma N,\quad Z \in \mathbb R^{n_{\mathrm{syn}} \times d},\quad
        Z_{ij} \sim \mathcal N(0, \sigma_z^2),

    the synthetic-data release of a linear generator (``MATH.md`` §1, the paper's §3).

    Args:
      key: a ``jax.random`` key.
      v: the parameter, shape ``(d,)`` or ``(d, k)``.
      n_syn: number of synthetic records, a concrete integer ``>= 1`` (an array dimension).
      sigma: model noise scale, ``sigma >= 0``.
      sigma_z: scale of the generator's latent ``Z``, ``sigma_z >= 0``.
      shape: batch shape of independent releases (default ``()``).

    Returns:
      Array of shape ``shape + (n_syn, k)``, or ``shape + (n_syn,)`` when ``v`` is a vector.

    Raises:
      ValueError: if ``v`` is not 1-D or 2-D, ``n_syn`` is not a concrete integer ``>= 1``,
        or concrete ``sigma`` or ``sigma_z`` is negative.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from fisherrdp.release import sample_synthetic
      >>> sample_synthetic(jax.random.key(0), jnp.ones(4), 10, shape=(2,)).shape
      (2, 10)
    """
    v = _check_v(v)
    n = _check_n_syn_int(n_syn)
    check_concrete("sigma", sigma, lower=0.0)
    check_concrete("sigma_z", sigma_z, lower=0.0)
    dtype = v.dtype
    return _synthetic(
        key, v, jnp.asarray(sigma, dtype), jnp.asarray(sigma_z, dtype), n, _as_shape(shape)
    )


@functools.partial(jax.jit, static_argnums=(4, 5))
def _synthetic(key, v, sigma, sigma_z, n, shape):
    k_model, k_z = jax.random.split(key)
    big_v = _model(k_model, v, sigma, shape)
    z = jax.random.normal(k_z, shape + (n, v.shape[0]), v.dtype)
    if v.ndim == 1:
        return sigma_z * jnp.einsum("...nd,...d->...n", z, big_v)
    return sigma_z * jnp.matmul(z, big_v)


def _bartlett(key: jax.Array, n: jax.Array, k: int, batch: tuple[int, ...], dtype) -> jax.Array:
    """Bartlett factors A (lower triangular, A Aᵀ ~ W_k(n, I)), shape batch + (k, k)."""
    k_diag, k_off = jax.random.split(key)
    dof = n[..., None] - jnp.arange(k, dtype=dtype)  # n − i + 1, i = 1..k
    chi2 = 2.0 * jax.random.gamma(k_diag, 0.5 * dof, batch + (k,), dtype)
    below = jnp.tril(jax.random.normal(k_off, batch + (k, k), dtype), -1)
    return below + jnp.sqrt(chi2)[..., :, None] * jnp.eye(k, dtype=dtype)


def sample_gram(
    key: jax.Array,
    v: ArrayLike,
    n_syn: ArrayLike,
    *,
    sigma: ArrayLike = 1.0,
    sigma_z: ArrayLike = 1.0,
    shape: tuple[int, ...] = (),
) -> jax.Array:
    r"""Draw the Gram matrix :math:`(ZV)^\top ZV` of the synthetic release without forming Z.

    .. math::

        (ZV)^\top ZV \,\big|\, V \sim W_k\bigl(n_{\mathrm{syn}}, \sigma_z^2 V^\top V\bigr),
        \qquad V = v + \sigma N,

    drawn as :math:`\sigma_z^2 (A^\top R)^\top A^\top R` with :math:`V = QR` and the Bartlett
    factor :math:`A` (``MATH.md`` §3; the module docstring). Cost independent of
    :math:`n_{\mathrm{syn}}`. For :math:`k = 1` this is
    :math:`\|ZV\|^2 = \sigma_z^2 \|V\|^2 X`, :math:`X \sim \chi^2_{n_{\mathrm{syn}}}`, the
    sufficient statistic of the release (``MATH.md`` §3).

    Args:
      key: a ``jax.random`` key.
      v: the parameter, shape ``(d,)`` or ``(d, k)``.
      n_syn: number of synthetic records: a real ``> k - 1`` (for integers: ``>= k``; fewer
        records give a singular Wishart law, use :func:`sample_synthetic` then). May be traced.
      sigma: model noise scale, ``sigma >= 0``.
      sigma_z: scale of the latent ``Z``, ``sigma_z >= 0``.
      shape: batch shape of independent releases (default ``()``).

    Returns:
      Array of shape ``shape + (k, k)``, or ``shape`` (the scalar :math:`\|ZV\|^2`) when ``v``
      is a vector.

    Raises:
      ValueError: if ``v`` is not 1-D or 2-D, or concrete ``n_syn <= k - 1``, ``sigma < 0`` or
        ``sigma_z < 0``. Inside ``jit``, ``n_syn <= k - 1`` gives NaN entries.

    Examples:
      >>> import jax, jax.numpy as jnp
      >>> from fisherrdp.release import sample_gram
      >>> g = sample_gram(jax.random.key(0), jnp.ones((6, 2)), 1e6, shape=(3,))
      >>> g.shape, bool(jnp.allclose(g, jnp.swapaxes(g, -1, -2)))
      ((3, 2, 2), True)
    """
    v = _check_v(v)
    vector = v.ndim == 1
    k = 1 if vector else v.shape[1]
    check_concrete("n_syn", n_syn, lower=k - 1, lower_inclusive=False)
    check_concrete("sigma", sigma, lower=0.0)
    check_concrete("sigma_z", sigma_z, lower=0.0)
    dtype = v.dtype
    n = jnp.asarray(n_syn, dtype)
    if n.ndim:
        raise ValueError(f"argument 'n_syn' must be a scalar, got shape {n.shape}")
    return _gram(
        key, v, n, jnp.asarray(sigma, dtype), jnp.asarray(sigma_z, dtype), _as_shape(shape)
    )


@functools.partial(jax.jit, static_argnums=5)
def _gram(key, v, n, sigma, sigma_z, shape):
    dtype = v.dtype
    scale = sigma_z * sigma_z
    k_model, k_w = jax.random.split(key)
    big_v = _model(k_model, v, sigma, shape)
    if v.ndim == 1:
        chi2 = 2.0 * jax.random.gamma(k_w, 0.5 * n, shape, dtype)
        return scale * jnp.sum(big_v * big_v, axis=-1) * chi2
    r = jnp.linalg.qr(big_v, mode="r")  # shape + (k, k) when d >= k, else (d, k)
    a = _bartlett(k_w, n, v.shape[1], shape, dtype)
    b = jnp.matmul(jnp.swapaxes(a, -1, -2)[..., :, : r.shape[-2]], r)
    return scale * jnp.matmul(jnp.swapaxes(b, -1, -2), b)


def _sym_log(g: jax.Array) -> jax.Array:
    """Matrix logarithm of symmetric positive definite matrices (batched), by ``eigh``."""
    lam, q = jnp.linalg.eigh(g)
    return jnp.matmul(q * jnp.log(lam)[..., None, :], jnp.swapaxes(q, -1, -2))


def _upper_features(m: jax.Array) -> jax.Array:
    """Upper triangle of symmetric matrices, off-diagonal entries times √2 (isometric)."""
    k = m.shape[-1]
    i, j = np.triu_indices(k)
    weight = np.where(i == j, 1.0, math.sqrt(2.0))
    return m[..., i, j] * jnp.asarray(weight, m.dtype)


def release_samplers(
    k: int,
    d: int,
    n_syn: float,
    v_norm: float,
    w_norm: float,
    *,
    sigma: float = 1.0,
    sigma_z: float = 1.0,
    batch: int = 1024,
    gram: bool = True,
) -> tuple[Callable[[jax.Array], jax.Array], Callable[[jax.Array], jax.Array]]:
    r"""Samplers of (sufficient features of) the synthetic releases from ``v`` and from ``w``.

    The pair ``(sample_p, sample_q)`` feeds :func:`fisherrdp.variational.estimate_renyi`, which
    then estimates the privacy loss

    .. math::

        D_\alpha\bigl(ZV \,\big\|\, ZW\bigr), \qquad V = v + \sigma N,\ W = w + \sigma N',

    with :math:`v = \|v\| e_1 e_1^\top`, :math:`w = \|w\| e_1 e_1^\top \in \mathbb R^{d\times k}`
    (only the first column is non-zero; so :math:`\|v - w\|_F = |\,\|v\| - \|w\|\,|`, and for
    :math:`n_{\mathrm{syn}} = \infty` the loss is that of :math:`k = 1`,
    :func:`fisherrdp.divergences.renyi_ncx2`). The divergence is unchanged by any injective map
    of a sufficient statistic, so the features are (``gram=True``):

    * :math:`k = 1`: :math:`\log T`, :math:`T = \|ZV\|^2 = \sigma_z^2\|V\|^2 X`,
      :math:`X \sim \chi^2_{n_{\mathrm{syn}}}` (sufficient, ``MATH.md`` §3), one feature;
      for ``n_syn = inf``, :math:`\log(\sigma_z^2\|V\|^2)` (the limit of :math:`T/n_{\mathrm{syn}}`).
    * :math:`k > 1`: the upper triangle of the matrix logarithm of
      :math:`G/n_{\mathrm{syn}}`, :math:`G = (ZV)^\top ZV` (sufficient: the density of
      :math:`ZV` given :math:`V` depends on :math:`ZV` only through :math:`G`), off-diagonal
      entries times :math:`\sqrt2`; :math:`k(k+1)/2` features. The logarithm maps the
      positive-definite cone onto all symmetric matrices and makes the features
      :math:`O(1)` whatever :math:`n_{\mathrm{syn}}`; for ``n_syn = inf``
      :math:`G/n_{\mathrm{syn}} \to \sigma_z^2 V^\top V`.

    With ``gram=False`` the features are the raw release :math:`ZV` flattened
    (:math:`n_{\mathrm{syn}} k` features; integer ``n_syn`` only, meant for checking that the
    Gram features lose nothing).

    Args:
      k: columns of the parameter, an integer ``>= 1``.
      d: rows, an integer ``>= k``.
      n_syn: synthetic records: a real ``>= k`` (with ``gram=True``) or ``inf``; a positive
        integer with ``gram=False``.
      v_norm: :math:`\|v\|_F \ge 0`.
      w_norm: :math:`\|w\|_F \ge 0`.
      sigma: model noise scale, ``> 0``.
      sigma_z: latent scale, ``> 0``.
      batch: number of releases per call of a sampler (``>= 1``).
      gram: use the sufficient Gram features (default) or the raw release.

    Returns:
      ``(sample_p, sample_q)``: jittable functions ``key -> array (batch, features)``,
      for :math:`v` and for :math:`w`.

    Raises:
      ValueError: naming the argument, if one is out of range.

    Examples:
      >>> import jax
      >>> from fisherrdp.release import release_samplers
      >>> sample_p, sample_q = release_samplers(2, 5, 100, 2.0, 1.5, batch=8)
      >>> jax.eval_shape(sample_p, jax.random.key(0)).shape  # 3 = k(k + 1)/2 features
      (8, 3)
    """
    check_concrete("k", k, lower=1, integer=True)
    check_concrete("d", d, lower=k, integer=True)
    check_concrete("v_norm", v_norm, lower=0.0)
    check_concrete("w_norm", w_norm, lower=0.0)
    check_concrete("sigma", sigma, lower=0.0, lower_inclusive=False)
    check_concrete("sigma_z", sigma_z, lower=0.0, lower_inclusive=False)
    check_concrete("batch", batch, lower=1, integer=True)
    k, d, batch = int(k), int(d), int(batch)
    n_syn = float(n_syn)
    infinite = math.isinf(n_syn)
    if gram:
        check_concrete("n_syn", n_syn, lower=k, allow_nan=False)
    else:
        if infinite:
            raise ValueError("argument 'n_syn' must be finite with gram=False, got inf")
        check_concrete("n_syn", n_syn, lower=1, integer=True)

    def make(norm: float) -> Callable[[jax.Array], jax.Array]:
        param = np.zeros((d, k))
        param[0, 0] = norm
        param = jnp.asarray(param[:, 0] if k == 1 else param, float_dtype(1.0))

        def sample(key: jax.Array) -> jax.Array:
            if not gram:
                zv = sample_synthetic(
                    key, param, int(n_syn), sigma=sigma, sigma_z=sigma_z, shape=(batch,)
                )
                return zv.reshape(batch, -1)
            if infinite:
                big_v = sample_model(key, param, (batch,), sigma=sigma)
                g = sigma_z**2 * (
                    jnp.sum(big_v * big_v, axis=-1)
                    if k == 1
                    else jnp.matmul(jnp.swapaxes(big_v, -1, -2), big_v)
                )
            else:
                g = sample_gram(key, param, n_syn, sigma=sigma, sigma_z=sigma_z, shape=(batch,))
                g = g / n_syn
            if k == 1:
                return jnp.log(g)[:, None]
            return _upper_features(_sym_log(g))

        return sample

    return make(float(v_norm)), make(float(w_norm))

r"""The non-central Wishart law W_k(df, I_k, Ω), Ω = μᵀμ: the law of VᵀV, V = μ + N, in JAX.

The Gram matrix of the released model in the paper's Section 4 (``docs/math/hyp0f1_matrix.md#the-non-central-wishart-density``): with
V = μ + N ∈ R^{df×k}, N i.i.d. N(0, 1), Y = VᵀV has, on Y ≻ 0, the density

.. math::

    p(Y) = \frac{\operatorname{etr}(-Y/2)\,\det(Y)^{(\mathrm{df}-k-1)/2}}
    {2^{\mathrm{df}\,k/2}\,\Gamma_k(\mathrm{df}/2)}\,
    \operatorname{etr}(-\Omega/2)\;{}_0F_1\bigl(\tfrac{\mathrm{df}}{2}; \tfrac14\Omega Y\bigr),
    \qquad \Gamma_k(a) = \pi^{k(k-1)/4} \prod_{i=1}^{k} \Gamma\bigl(a - \tfrac{i-1}{2}\bigr).

**Method.** With the Cholesky factor Y = L Lᵀ, ¼ΩY is similar to the symmetric PSD matrix
A = ¼ LᵀΩL, so ₀F₁(df/2; ¼ΩY) = :func:`fisherrdp.special.log_hyp0f1_matrix` (df/2, A) (its
accuracy, truncation bound and cost carry over), log det Y = 2 Σ log L_ii; Cholesky is
differentiable at repeated eigenvalues of Y, unlike a square root by ``eigh``. For k = 1 this
is the non-central χ²_df(Ω) log-density (tested against :mod:`fisherrdp.stats.ncx2` to 1e-13).

**Accuracy measured** (``tests/test_ncwishart.py``): k = 1 agrees with ``ncx2.logpdf``; for
k = 2 the density integrates to 1 within the quadrature's own error (a 3-D Gauss–Legendre grid
in the Cholesky coordinates); sample means of ``sample`` match df I + Ω.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.typing import ArrayLike

from fisherrdp._src.core.config import float_dtype
from fisherrdp._src.core.validation import check_concrete, is_tracer
from fisherrdp._src.special.hyp0f1_matrix import check_matrix, log_hyp0f1_matrix

__all__ = ["logpdf", "mean", "sample"]


def _log_multigamma(a: jax.Array, k: int) -> jax.Array:
    half = 0.5 * jnp.arange(k, dtype=a.dtype)
    return 0.25 * k * (k - 1) * math.log(math.pi) + jnp.sum(
        jax.lax.lgamma(a[..., None] - half), axis=-1
    )


def _square(name: str, a: jax.Array) -> int:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2] or a.shape[-1] < 1:
        raise ValueError(
            f"argument {name!r} must be a square matrix (..., k, k), got shape {a.shape}"
        )
    return a.shape[-1]


def _check_positive_definite(name: str, value) -> None:
    if is_tracer(value):
        return
    a = np.asarray(value, np.float64)
    scale = np.maximum(np.max(np.abs(a), axis=(-2, -1)), np.finfo(np.float64).tiny)
    tol = 64.0 * a.shape[-1] * np.finfo(np.float64).eps
    asym = np.max(np.abs(a - np.swapaxes(a, -1, -2)), axis=(-2, -1)) / scale
    if np.any(asym > tol):
        raise ValueError(
            f"argument {name!r} must be symmetric, got relative asymmetry {np.max(asym):.3e}"
        )
    lam_min = np.min(np.linalg.eigvalsh(0.5 * (a + np.swapaxes(a, -1, -2))), axis=-1)
    if np.any(lam_min <= 0.0):
        raise ValueError(
            f"argument {name!r} must be positive definite, got smallest eigenvalue {np.min(lam_min):.3e}"
        )


def logpdf(Y: ArrayLike, df: ArrayLike, noncentrality: ArrayLike) -> jax.Array:
    r"""Log-density of the non-central Wishart law W_k(df, I_k, Ω) at Y ≻ 0.

    .. math::

        \log p(Y) = -\tfrac12\operatorname{tr}Y + \tfrac{\mathrm{df}-k-1}{2}\log\det Y
        - \tfrac{\mathrm{df}\,k}{2}\log 2 - \log\Gamma_k(\tfrac{\mathrm{df}}{2})
        - \tfrac12\operatorname{tr}\Omega
        + \log{}_0F_1\bigl(\tfrac{\mathrm{df}}{2}; \tfrac14\Omega Y\bigr),

    the law of VᵀV for V = μ + N ∈ R^{df×k}, Ω = μᵀμ (paper Section 4, ``docs/math/hyp0f1_matrix.md#the-non-central-wishart-density``).
    Differentiable in Y and Ω (``custom_jvp`` of the matrix ₀F₁, Cholesky otherwise) and in df.

    Args:
      Y: symmetric positive definite ``(..., k, k)``.
      df: degrees of freedom, ``df >= k`` (real).
      noncentrality: Ω, symmetric PSD ``(..., k, k)``; ``0`` gives the central Wishart law.

    Returns:
      Array of the broadcast batch shape.

    Raises:
      ValueError: if ``Y`` or Ω is not square or their k differ; if concrete ``Y`` is not
        symmetric positive definite, Ω not symmetric PSD, or ``df < k``. Inside ``jit`` an
        indefinite Y gives NaN (Cholesky), ``df <= k - 1`` gives NaN.

    Examples:
      >>> import numpy as np
      >>> from fisherrdp.stats import ncwishart, ncx2
      >>> got = ncwishart.logpdf(np.array([[3.0]]), 4.0, np.array([[2.0]]))
      >>> bool(np.isclose(got, ncx2.logpdf(3.0, 4.0, 2.0), rtol=1e-13))
      True
    """
    Ya, Om = jnp.asarray(Y), jnp.asarray(noncentrality)
    k = _square("Y", Ya)
    if _square("noncentrality", Om) != k:
        raise ValueError(
            f"arguments 'Y' and 'noncentrality' must be k x k alike, got {Ya.shape} and {Om.shape}"
        )
    check_concrete("df", df, lower=k)
    _check_positive_definite("Y", Y)
    if not is_tracer(noncentrality):
        try:
            check_matrix(noncentrality)
        except ValueError as err:
            raise ValueError(str(err).replace("'X'", "'noncentrality'")) from None
    dtype = float_dtype(df, Ya, Om)
    Ya, Om = Ya.astype(dtype), Om.astype(dtype)
    Ya = 0.5 * (Ya + jnp.swapaxes(Ya, -1, -2))
    Om = 0.5 * (Om + jnp.swapaxes(Om, -1, -2))
    df = jnp.asarray(df, dtype)
    batch = jnp.broadcast_shapes(df.shape, Ya.shape[:-2], Om.shape[:-2])
    df = jnp.broadcast_to(df, batch)
    Ya = jnp.broadcast_to(Ya, batch + (k, k))
    Om = jnp.broadcast_to(Om, batch + (k, k))
    chol = jnp.linalg.cholesky(Ya)
    a = 0.25 * jnp.swapaxes(chol, -1, -2) @ Om @ chol
    a = 0.5 * (a + jnp.swapaxes(a, -1, -2))
    log_det = 2.0 * jnp.sum(jnp.log(jnp.diagonal(chol, axis1=-2, axis2=-1)), axis=-1)
    half = 0.5 * df
    bad = df <= k - 1
    half_safe = jnp.where(bad, 0.5 * k, half)
    log_0f1 = log_hyp0f1_matrix(half_safe, a)
    out = (
        -0.5 * jnp.trace(Ya, axis1=-2, axis2=-1)
        + 0.5 * (df - k - 1.0) * log_det
        - 0.5 * df * k * math.log(2.0)
        - _log_multigamma(half_safe, k)
        - 0.5 * jnp.trace(Om, axis1=-2, axis2=-1)
        + log_0f1
    )
    return jnp.where(bad, jnp.nan, out)


def mean(df: ArrayLike, noncentrality: ArrayLike) -> jax.Array:
    r"""Mean of W_k(df, I_k, Ω): :math:`\mathrm{df}\, I_k + \Omega`.

    Args:
      df: degrees of freedom (``>= k``).
      noncentrality: Ω ``(..., k, k)``.

    Returns:
      Array ``(..., k, k)``.

    Examples:
      >>> from fisherrdp.stats import ncwishart
      >>> ncwishart.mean(3.0, [[1.0, 0.5], [0.5, 2.0]]).tolist()
      [[4.0, 0.5], [0.5, 5.0]]
    """
    Om = jnp.asarray(noncentrality)
    k = _square("noncentrality", Om)
    check_concrete("df", df, lower=k)
    dtype = float_dtype(df, Om)
    df = jnp.asarray(df, dtype)
    return df[..., None, None] * jnp.eye(k, dtype=dtype) + Om.astype(dtype)


def sample(key: jax.Array, df: int, mu: ArrayLike, shape: tuple[int, ...] = ()) -> jax.Array:
    r"""Draw Y = VᵀV, V = μ + N with N ∈ R^{df×k} i.i.d. standard normal.

    .. math::

        Y \sim W_k(\mathrm{df}, I_k, \mu^\top\mu).

    Args:
      key: a ``jax.random`` key.
      df: integer number of rows of V, ``df >= k`` (static: it sets the shape of N).
      mu: mean ``(r, k)`` with ``r <= df`` rows (missing rows are zero: only μᵀμ matters), or
        ``(..., r, k)`` broadcast against ``shape``.
      shape: batch shape of the draws.

    Returns:
      Array ``broadcast(shape, mu.shape[:-2]) + (k, k)``.

    Raises:
      ValueError: if ``df`` is not an integer ``>= k`` or ``mu`` has more than ``df`` rows.

    Examples:
      >>> import jax
      >>> from fisherrdp.stats import ncwishart
      >>> ncwishart.sample(jax.random.key(0), 4, [[1.0, 0.0], [0.0, 2.0]], shape=(3,)).shape
      (3, 2, 2)
    """
    mu = jnp.asarray(mu)
    if mu.ndim < 2:
        raise ValueError(f"argument 'mu' must have shape (..., r, k), got {mu.shape}")
    r, k = mu.shape[-2:]
    if is_tracer(df):
        raise ValueError("argument 'df' must be a concrete integer (it sets the shape of N)")
    check_concrete("df", df, lower=k, integer=True)
    df = int(df)
    if r > df:
        raise ValueError(f"argument 'mu' must have at most df = {df} rows, got {r}")
    dtype = float_dtype(mu)
    mu = mu.astype(dtype)
    batch = jnp.broadcast_shapes(tuple(shape), mu.shape[:-2])
    padded = (
        jnp.zeros(batch + (df, k), dtype).at[..., :r, :].set(jnp.broadcast_to(mu, batch + (r, k)))
    )
    v = padded + jax.random.normal(key, batch + (df, k), dtype)
    return jnp.swapaxes(v, -1, -2) @ v

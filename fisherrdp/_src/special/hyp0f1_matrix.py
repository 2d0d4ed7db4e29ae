r"""log ₀F₁(; b; X) of a real symmetric positive semi-definite matrix argument X (Jack α = 2).

.. math::

    {}_0F_1(;b;X) = \sum_{n \ge 0} \sum_{\kappa \vdash n,\ \ell(\kappa) \le k}
    \frac{C_\kappa(X)}{[b]_\kappa\, n!}
    = \sum_\kappa \frac{2^{|\kappa|} J_\kappa(x_1, \dots, x_k)}{j_\kappa\, [b]_\kappa},
    \qquad [b]_\kappa = \prod_{i} \bigl(b - \tfrac{i-1}{2}\bigr)_{\kappa_i},

(Koev & Edelman 2006; ``docs/math/hyp0f1_matrix.md#definition``), the function in the non-central Wishart density of the
paper's Section 4 (Theorems 5.3 and 5.4 concern that law). It depends on X only through its
eigenvalues x_1 … x_k and is defined for b > (k − 1)/2 (the Pochhammer [b]_κ then never
vanishes).

**Method.** k = 1 is the scalar :func:`fisherrdp.special.log_hyp0f1`. k = 2 uses the closed series

.. math::

    {}_0F_1(c; \operatorname{diag}(x_1, x_2)) = \sum_{j \ge 0}
    \frac{(x_1 x_2)^j}{j!\,(c)_{2j}\,(c - \tfrac12)_j}\, {}_0F_1(c + 2j; x_1 + x_2),

summed in log space (a weighted log-sum-exp with the scalar log ₀F₁), with ``(x_1 x_2)^j`` formed as
``t^{2j} (y_1 y_2)^j``, y = x/t ∈ [0, 1], t = max(1, largest eigenvalue) (held constant under
differentiation, the value not depending on it; t ≥ 1 keeps the first-order terms, and so the
gradient at X = 0, from underflowing), so that zero eigenvalues give finite values and
gradients. k ≥ 3 uses the Koev–Edelman recursion over the partitions with ℓ(κ) ≤ k,
|κ| ≤ M (static tables, :mod:`fisherrdp._src.special.partitions`) for the normalised Jack
polynomials R_κ^{(m)}(y) = J_κ(y_1..y_m)/J_κ(1^m): every level is a convex combination of the
previous one (gathers and a segment sum), so R ∈ [0, 1] never overflows or cancels, and

.. math::

    \log {}_0F_1 = \operatorname{logsumexp}_\kappa \bigl(L_\kappa;\ \text{weights } R_\kappa\bigr),
    \quad L_\kappa = |\kappa| \log(2t) + \log J_\kappa(1^k) - \log j_\kappa - \log [b]_\kappa.

R underflows only where its term is below 10^{-308} ₀F₁(b; tI) ≤ 10^{-308} e^{2(k−1)√t} ₀F₁(b; X)
(negligible for t ≤ 10^4 in float64).

**Truncation and its error bound.** k = 2: with ρ_j = x_1x_2/((j+1)(c+2j)(c+2j+1)(c−½+j))
(decreasing in j) and ₀F₁(c+2j+2; s) ≤ ₀F₁(c+2j; s), term_{j+1} ≤ ρ_j term_j, so the tail after
J terms is at most term_{J−1} ρ_{J−1}/(1 − ρ_{J−1}). k ≥ 3: Σ_{|κ|=n} C_κ(X) = (tr X)^n and
[b]_κ ≥ Π_i (b')_{κ_i} ≥ ((b')_{n/k})^k (b' = b − (k−1)/2; Jensen on the convex
n ↦ log Γ(b' + n)), so the terms of size n sum to at most
B_n = (tr X)^n / (n! Γ(b' + n/k)^k / Γ(b')^k), a log-concave sequence: the tail beyond M is at
most B_{M+1}/(1 − B_{M+2}/B_{M+1}). ``return_error=True`` returns this tail over the computed
sum (a bound on the error of log ₀F₁ from truncation, ≥ log(1 + tail/F)) plus a rounding
allowance 16 k ε max|L_κ| over the terms that matter. The truncation (J for k = 2, M for
k ≥ 3) is chosen from concrete arguments (k ≥ 3: the smallest M whose tail bound is below
ε times the lower bound ₀F₁(b; λ_max) ≥ its largest term, so that the truncation adds at most ε
to the error of the logarithm, under 1/48 of the rounding allowance; k = 2: an estimate of where the
terms fall below ε e^{-7} of the largest), rounded up to a multiple of 16 (k = 2) or 8 (k ≥ 3)
to reuse compiled code, and capped at ``K2_MAX_TERMS`` = 256 and ``MAX_PARTITION_SIZE``
(k = 3: 64, k = 4: 56, k ≥ 5: 32); inside ``jit`` (traced arguments) the caps are used. The
bound is what certifies the result: at the k = 4 cap with all four eigenvalues 50 it reports
2.6e-8 (b = 2.5), i.e. the 1e-10 target is **not** certified there (the pair count grows like
M^4: |κ| ≤ 64 would need 1.3e7 pairs and ~3 GB to build).

Costs: k = 2, J scalar log ₀F₁ evaluations (J = 16 … 80 for eigenvalues up to 5000); k ≥ 3,
one multiply-add per (κ, μ) strip pair and level: 1.1e6 pairs at k = 3, M = 64, 6.9e6 at
k = 4, M = 56. The tables are built once per process in NumPy (measured: k = 3, M = 64 in
0.8–1.9 s; k = 4, M = 56 in ~10 s with ~1.5 GB transient memory; k = 4, M = 48 in ~4 s).

**Accuracy measured** (float64) against the 40-digit mpmath fixture
``tests/fixtures/hyp0f1_matrix.json`` (independent Koev–Edelman and closed-series
implementations, 66 points; ``tests/test_hyp0f1_matrix.py`` fails above 10 × these numbers,
the claims of ``tests/fixtures/accuracy/hyp0f1_matrix.json``), worst relative error of ₀F₁,
rounded up: k = 1: 7.2e-15; k = 2 (eigenvalues 0 … 5000, repeated and zero, b ∈ [1.5, 500]):
2.0e-13; k = 3 (eigenvalues up to 50, incl. (50, 50, 50)): 4.7e-14; k = 4 (all eigenvalues 12,
or (50, 1, 0.1, 0), (20, 5, 1, 0)): 1.2e-14. The reported bounds
(≤ 1.3e-11) cover every error. Float32 inputs compute in float32 (~1e-6).

**Derivatives.** The matrix function is a ``custom_jvp``: with X = Q diag(λ) Qᵀ the tangent is
Σ_i ∂f/∂λ_i q_iᵀ Ẋ q_i, ∂f/∂λ by automatic differentiation of the eigenvalue series (a
polynomial in y, smooth at zero and repeated eigenvalues; the gradient is the same for any
eigenbasis of a repeated eigenvalue because f is symmetric), never through ``eigh``'s
derivative. For k = 2 the scalar ₀F₁ enters through ∂_s log ₀F₁(c; s) = ₀F₁(c+1; s)/(c ₀F₁(c; s))
(values only: cheap to compile). ∂_b differentiates log Γ and the scalar ₀F₁ (k = 2: the
Bessel-core formulas, slower to compile). Second derivatives in X would differentiate ``eigh``
and are not supported at repeated eigenvalues.
"""

from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_derivatives import SymbolicZero
from jax.typing import ArrayLike

from fisherrdp._src.core.config import float_dtype
from fisherrdp._src.core.engine import exported_program
from fisherrdp._src.core.validation import check_concrete, is_tracer
from fisherrdp._src.special.bessel import log_hyp0f1_kernel
from fisherrdp._src.special.partitions import partition_table

__all__ = ["log_hyp0f1_eigs", "log_hyp0f1_matrix"]

#: Most terms of the k = 2 closed series (used inside ``jit``).
K2_MAX_TERMS = 256
#: Largest partition size |κ| of the k ≥ 3 recursion (used inside ``jit``), per k.
MAX_PARTITION_SIZE = {3: 64, 4: 56}
#: Same, for k ≥ 5.
MAX_PARTITION_SIZE_DEFAULT = 32
#: Batch chunk so that one chunk's pair arrays hold about this many numbers.
_CHUNK_ELEMENTS = 1 << 23


def largest_partition_size(k: int) -> int:
    return MAX_PARTITION_SIZE.get(k, MAX_PARTITION_SIZE_DEFAULT)


# ----------------------------------------------------------------------------------------------
# Truncation choice (concrete arguments, NumPy).


def _choose_k2_terms(b: np.ndarray, x: np.ndarray, eps: float) -> int:
    """Smallest J (multiple of 16) past the peak with the estimated term below eps·1e-3·peak."""
    x = np.asarray(x, np.float64).reshape(-1, 2)
    c = np.broadcast_to(
        np.asarray(b, np.float64).reshape(-1) if np.size(b) > 1 else np.asarray(b, np.float64),
        (len(x),),
    )
    p, s = x[:, 0] * x[:, 1], x[:, 0] + x[:, 1]
    j = np.arange(K2_MAX_TERMS)[None, :]
    ratio = p[:, None] / (
        (j + 1.0) * (c[:, None] + 2 * j) * (c[:, None] + 2 * j + 1) * (c[:, None] - 0.5 + j)
    )
    beta = c[:, None] + 2 * j  # estimated ₀F₁(β+2; s)/₀F₁(β; s), two steps of 2β/(β + √(β² + 4s))
    b1 = beta + 1
    f_ratio = (
        2
        * beta
        / (beta + np.sqrt(beta**2 + 4 * s[:, None]))
        * 2
        * b1
        / (b1 + np.sqrt(b1**2 + 4 * s[:, None]))
    )
    with np.errstate(divide="ignore"):
        log_terms = np.concatenate(
            [np.zeros((len(p), 1)), np.cumsum(np.log(ratio * f_ratio), axis=1)[:, :-1]], axis=1
        )
    peak = log_terms.max(axis=1, keepdims=True)
    ok = (log_terms < peak + math.log(eps) - 7.0) & (ratio < 0.5)
    ok[:, -1] = True
    need = int(np.argmax(ok, axis=1).max()) + 1
    return int(min(K2_MAX_TERMS, max(16, -(-need // 16) * 16)))


def _log_tail_bound_sizes(
    n: np.ndarray, log_trace: np.ndarray, b: np.ndarray, k: int
) -> np.ndarray:
    from scipy.special import gammaln

    bp = b - 0.5 * (k - 1)
    return n * log_trace - gammaln(n + 1.0) - k * (gammaln(bp + n / k) - gammaln(bp))


def _choose_partition_size(b: np.ndarray, x: np.ndarray, eps: float) -> int:
    """Smallest M (multiple of 8) whose tail bound is below eps times a lower bound of ₀F₁."""
    from scipy.special import gammaln

    k = x.shape[-1]
    x = np.asarray(x, np.float64).reshape(-1, k)
    b = np.broadcast_to(
        np.asarray(b, np.float64).ravel() if np.size(b) > 1 else np.asarray(b, np.float64),
        (len(x),),
    )
    cap = largest_partition_size(k)
    n = np.arange(1, 4 * cap + 3, dtype=np.float64)[None, :]
    trace = x.sum(axis=1)
    largest = x.max(axis=1)
    with np.errstate(divide="ignore"):
        # ₀F₁(b; X) ≥ ₀F₁(b; λ_max) ≥ its largest term.
        lower = np.max(
            n * np.log(largest[:, None])
            - gammaln(n + 1.0)
            - (gammaln(b[:, None] + n) - gammaln(b[:, None])),
            axis=1,
        )
        log_b = _log_tail_bound_sizes(n, np.log(trace)[:, None], b[:, None], k)
    lower = np.maximum(lower, 0.0)
    # tail beyond M ≤ B_{M+1}/(1 − ρ) ≤ 2 B_{M+1}; require B_{M+1} ≤ (eps/2)·lower and ρ ≤ 1/2.
    ratio_ok = np.diff(log_b, axis=1) <= -math.log(2.0)
    ok = (log_b[:, :-1] <= lower[:, None] + math.log(0.5 * eps)) & ratio_ok
    ok[:, -1] = True
    need = int(np.argmax(ok, axis=1).max())  # index i ↔ n = i + 1 = M + 1
    return int(min(cap, max(8, -(-need // 8) * 8)))


# ----------------------------------------------------------------------------------------------
# Series (traced, static truncation).


def _log_weighted_sum(log_terms: jax.Array, weights: jax.Array, axis: int = -1) -> jax.Array:
    """log Σ w e^{a} for w ≥ 0 with a correct, finite derivative in w also where w = 0.

    (``jax.nn.logsumexp(a, b=w)`` adds log w, whose derivative is lost at w = 0: that would
    zero ∂/∂x at zero eigenvalues.)
    """
    positive = weights > 0
    shifted = jnp.where(positive, log_terms + jnp.log(jnp.where(positive, weights, 1.0)), -jnp.inf)
    top = jax.lax.stop_gradient(jnp.max(shifted, axis=axis, keepdims=True))
    top = jnp.where(jnp.isfinite(top), top, 0.0)
    total = jnp.sum(
        weights * jnp.exp(jnp.minimum(log_terms - top, 700.0)), axis=axis, keepdims=True
    )
    return jnp.squeeze(top + jnp.log(total), axis)


@jax.custom_jvp
def log_0f1_cheap_jvp(c: jax.Array, s: jax.Array) -> jax.Array:
    """Scalar log ₀F₁(c; s) with a cheap s-derivative (values only, no Bessel-core jvp)."""
    return log_hyp0f1_kernel(c, s)


def _log_0f1_jvp(primals, tangents):
    c, s = primals
    c_dot, s_dot = tangents
    if isinstance(c_dot, SymbolicZero):
        value = log_hyp0f1_kernel(c, s)
        tangent = jnp.zeros_like(value)
    else:  # ∂_c has no closed form: differentiate the regime formulas (slow to compile).
        value, tangent = jax.jvp(log_hyp0f1_kernel, (c, s), (c_dot, jnp.zeros_like(s)))
    if not isinstance(s_dot, SymbolicZero):  # ∂_s log ₀F₁(c; s) = ₀F₁(c + 1; s) / (c ₀F₁(c; s))
        tangent = tangent + jnp.exp(log_hyp0f1_kernel(c + 1.0, s) - value) / c * s_dot
    return value, tangent


log_0f1_cheap_jvp.defjvp(_log_0f1_jvp, symbolic_zeros=True)


def _k2_series(b: jax.Array, x: jax.Array, n_terms: int):
    """log ₀F₁(b; diag(x₁, x₂)) and the relative tail bound, batched over leading axes."""
    dtype = x.dtype
    t = jax.lax.stop_gradient(jnp.maximum(jnp.max(x, axis=-1), 1.0))
    y = x / t[..., None]
    prod = y[..., 0] * y[..., 1]
    s = x[..., 0] + x[..., 1]
    j = jnp.arange(n_terms, dtype=dtype)
    c = b[..., None]
    log_coef = (
        2.0 * j * jnp.log(t)[..., None]
        - jax.lax.lgamma(j + 1.0)
        - (jax.lax.lgamma(c + 2.0 * j) - jax.lax.lgamma(c))
        - (jax.lax.lgamma(c - 0.5 + j) - jax.lax.lgamma(c - 0.5))
        + log_0f1_cheap_jvp(c + 2.0 * j, jnp.broadcast_to(s[..., None], c.shape[:-1] + (n_terms,)))
    )
    powers = jnp.cumprod(
        jnp.concatenate(
            [
                jnp.ones_like(prod)[..., None],
                jnp.broadcast_to(prod[..., None], prod.shape + (n_terms - 1,)),
            ],
            -1,
        ),
        axis=-1,
    )
    value = _log_weighted_sum(log_coef, powers)
    # Tail bound from the last term (no derivatives needed).
    last = n_terms - 1.0
    x, b, log_coef, prod, powers, value_c = jax.lax.stop_gradient(
        (x, b, log_coef, prod, powers, value)
    )
    rho = jnp.exp(
        jnp.log(x[..., 0] * x[..., 1])
        - jnp.log((last + 1.0) * (b + 2 * last) * (b + 2 * last + 1.0) * (b - 0.5 + last))
    )
    log_last = log_coef[..., -1] + last * jnp.log(prod)
    log_tail = log_last + jnp.log(rho) - jnp.log1p(-jnp.minimum(rho, 0.5))
    tail = jnp.where(rho < 1.0, jnp.exp(log_tail - value_c), jnp.inf)
    rounding = 32.0 * jnp.finfo(dtype).eps * jnp.max(jnp.abs(log_coef) * (powers > 0), axis=-1)
    return value, jax.lax.stop_gradient(tail + rounding)


def _recursion_one(b: jax.Array, y: jax.Array, log_t: jax.Array, consts, max_size: int):
    """log ₀F₁ for one eigenvalue vector y ∈ [0,1]^k (scaled by t = e^{log_t}) and one b."""
    parts, size, log_a, levels = consts
    k = parts.shape[1]
    dtype = y.dtype
    n_parts = parts.shape[0]
    r = jnp.zeros(n_parts, dtype).at[0].set(1.0)
    for m, (src, dst, strip, weight) in enumerate(levels):
        powers = jnp.cumprod(
            jnp.concatenate([jnp.ones((1,), dtype), jnp.broadcast_to(y[m], (max_size,))])
        )
        # Unsigned, in-bounds indices: no index normalisation for XLA to constant-fold over the
        # (millions of) table entries.
        gathered = r.at[src].get(mode="promise_in_bounds") * weight
        gathered = gathered * powers.at[strip].get(mode="promise_in_bounds")
        r = jax.ops.segment_sum(
            gathered, dst, num_segments=n_parts, indices_are_sorted=True, mode="promise_in_bounds"
        )
    half = 0.5 * jnp.arange(k, dtype=dtype)
    log_poch = jnp.sum(jax.lax.lgamma(b - half + parts) - jax.lax.lgamma(b - half), axis=-1)
    log_terms = log_a + size * log_t - log_poch
    value = _log_weighted_sum(log_terms, r)
    significant = (r > 0) & (log_terms + jnp.log(jnp.where(r > 0, r, 1.0)) > value - 60.0)
    scale = jnp.max(
        jnp.where(significant, jnp.abs(log_a) + jnp.abs(size * log_t) + jnp.abs(log_poch), 0.0)
    )
    return value, scale


def _recursion(b: jax.Array, x: jax.Array, max_size: int):
    k = x.shape[-1]
    dtype = x.dtype
    table = partition_table(k, max_size)
    consts = (
        jnp.asarray(table.parts, dtype),
        jnp.asarray(table.size, dtype),
        jnp.asarray(table.log_a, dtype),
        tuple(
            (
                jnp.asarray(lv.src.astype(np.uint32)),
                jnp.asarray(lv.dst.astype(np.uint32)),
                jnp.asarray(lv.strip.astype(np.uint32)),
                jnp.asarray(lv.weight, dtype),
            )
            for lv in table.levels
        ),
    )
    t = jax.lax.stop_gradient(jnp.maximum(jnp.max(x, axis=-1), 1.0))
    y = x / t[..., None]
    log_t = jnp.log(t)
    batch = x.shape[:-1]
    flat = (b.reshape(-1), y.reshape(-1, k), log_t.reshape(-1))
    n_pairs = max(len(lv.src) for lv in table.levels)
    chunk = max(1, _CHUNK_ELEMENTS // n_pairs)
    one = lambda args: _recursion_one(*args, consts, max_size)
    value, scale = jax.lax.map(one, flat, batch_size=min(chunk, max(1, flat[0].shape[0])))
    value, scale = value.reshape(batch), scale.reshape(batch)
    # Tail bound beyond M: B_{M+1}/(1 − B_{M+2}/B_{M+1}), relative to the computed sum.
    b, x, value_c = jax.lax.stop_gradient((b, x, value))
    bp = b - 0.5 * (k - 1)
    log_trace = jnp.log(jnp.sum(x, axis=-1))

    def log_bound(n):
        return (
            n * log_trace
            - jax.lax.lgamma(n + 1.0)
            - k * (jax.lax.lgamma(bp + n / k) - jax.lax.lgamma(bp))
        )

    first, second = log_bound(max_size + 1.0), log_bound(max_size + 2.0)
    rho = jnp.exp(second - first)
    tail = jnp.where(
        rho < 1.0, jnp.exp(first - jnp.log1p(-jnp.minimum(rho, 0.5)) - value_c), jnp.inf
    )
    rounding = 16.0 * k * jnp.finfo(dtype).eps * jnp.maximum(jax.lax.stop_gradient(scale), 1.0)
    return value, jax.lax.stop_gradient(tail + rounding)


@functools.partial(jax.jit, static_argnums=(2,))
def _log_hyp0f1_eigs(b: jax.Array, x: jax.Array, n: int):
    """(log ₀F₁, error bound) for eigenvalues x (..., k) ≥ 0, b broadcast to x.shape[:-1]."""
    k = x.shape[-1]
    # Rounding can leave eigenvalues of a PSD matrix at -1e-17: clip the value, keep the slope.
    x = x + jax.lax.stop_gradient(jnp.maximum(x, 0.0) - x)
    bad = (b < 0.5) if k == 1 else (b <= 0.5 * (k - 1))
    b_safe = jnp.where(bad, jnp.asarray(0.5 * k + 1.0, x.dtype), b)
    if k == 1:
        value = log_hyp0f1_kernel(b_safe, x[..., 0])
        error = jnp.zeros_like(value) + 4.0 * jnp.finfo(x.dtype).eps * jnp.maximum(
            1.0, jnp.abs(value)
        )
    elif k == 2:
        value, error = _k2_series(b_safe, x, n)
    else:
        value, error = _recursion(b_safe, x, n)
    nan = jnp.asarray(jnp.nan, x.dtype)
    return jnp.where(bad, nan, value), jnp.where(bad, nan, error)


# ----------------------------------------------------------------------------------------------
# Matrix argument: custom_jvp through the eigen-decomposition.


@functools.partial(jax.custom_jvp, nondiff_argnums=(2,))
def log_hyp0f1_sym(b: jax.Array, X: jax.Array, n: int):
    return _log_hyp0f1_eigs(b, jnp.linalg.eigvalsh(X), n)


def _log_hyp0f1_sym_jvp(n, primals, tangents):
    b, X = primals
    b_dot, X_dot = tangents
    lam, q = jnp.linalg.eigh(X)
    if isinstance(X_dot, SymbolicZero):
        lam_dot = jnp.zeros_like(lam)
    else:
        # First-order eigenvalue tangents q_iᵀ Ẋ q_i: with f symmetric, Σ_i ∂f/∂λ_i q_iᵀẊq_i
        # does not depend on the basis chosen within a repeated eigenvalue's eigenspace.
        lam_dot = jnp.einsum("...ji,...jl,...li->...i", q, X_dot, q)
    if isinstance(b_dot, SymbolicZero):  # keep b out of the jvp: its derivative is costly (k = 2)
        (value, error), (value_dot, _) = jax.jvp(
            lambda ll: _log_hyp0f1_eigs(b, ll, n), (lam,), (lam_dot,)
        )
    else:
        (value, error), (value_dot, _) = jax.jvp(
            lambda bb, ll: _log_hyp0f1_eigs(bb, ll, n), (b, lam), (b_dot, lam_dot)
        )
    return (value, error), (value_dot, jnp.zeros_like(error))


log_hyp0f1_sym.defjvp(_log_hyp0f1_sym_jvp, symbolic_zeros=True)


# ----------------------------------------------------------------------------------------------
# Public functions.


def _check_b(b, k: int) -> None:
    if k == 1:
        check_concrete("b", b, lower=0.5)
    else:
        check_concrete("b", b, lower=0.5 * (k - 1), lower_inclusive=False)


def series_truncation(b, x, k: int, dtype) -> int:
    if k == 1:
        return 0
    if is_tracer(b) or is_tracer(x):
        return K2_MAX_TERMS if k == 2 else largest_partition_size(k)
    eps = float(jnp.finfo(dtype).eps)
    bn, xn = np.asarray(b, np.float64), np.maximum(np.asarray(x, np.float64), 0.0)
    bn = np.broadcast_to(bn, xn.shape[:-1])
    if xn.size == 0:
        return 16 if k == 2 else 8
    choose = _choose_k2_terms if k == 2 else _choose_partition_size
    bn, xn = bn.reshape(-1), xn.reshape(-1, k)
    chunk = 4096  # rows per NumPy pass (the scans are (rows, terms) arrays)
    return max(choose(bn[i : i + chunk], xn[i : i + chunk], eps) for i in range(0, len(xn), chunk))


def log_hyp0f1_eigs(b: ArrayLike, eigenvalues: ArrayLike, *, return_error: bool = False):
    r"""log ₀F₁(; b; X) of a symmetric PSD matrix X, given its eigenvalues (real case, α = 2).

    .. math::

        {}_0F_1(;b;X) = \sum_{n\ge0}\sum_{\kappa\vdash n,\ \ell(\kappa)\le k}
        \frac{C_\kappa(X)}{[b]_\kappa\,n!},\qquad
        [b]_\kappa = \prod_{i=1}^{\ell(\kappa)} \Bigl(b - \frac{i-1}{2}\Bigr)_{\kappa_i},

    with :math:`C_\kappa` the zonal polynomials (Koev & Edelman 2006; ``docs/math/hyp0f1_matrix.md#definition``), the
    hypergeometric factor of the non-central Wishart density of the paper's Section 4.
    Methods, truncation, error bound and cost: :mod:`fisherrdp._src.special.hyp0f1_matrix`.

    Args:
      b: parameter, ``b > (k - 1)/2`` (``b >= 1/2`` for k = 1); broadcast against the
        leading axes of ``eigenvalues``.
      eigenvalues: the k eigenvalues of X along the last axis (k static), ``>= 0``; leading
        axes are a batch.
      return_error: also return a bound on the error of the logarithm (truncation tail
        over the value, plus a rounding allowance).

    Returns:
      log ₀F₁ of shape ``broadcast(b.shape, eigenvalues.shape[:-1])``, and with
      ``return_error`` the error bound of the same shape.

    Raises:
      ValueError: if concrete ``b`` is out of range or an eigenvalue is negative. Inside
        ``jit`` an out-of-range ``b`` gives NaN, negative eigenvalues are treated as 0, and
        the truncation is the maximum (``K2_MAX_TERMS``, ``MAX_PARTITION_SIZE``): check the
        returned error bound.

    Examples:
      >>> import fisherrdp.special as fs
      >>> round(float(fs.log_hyp0f1_eigs(2.5, [3.0, 1.0, 0.5])), 12)
      1.655659330534
      >>> float(fs.log_hyp0f1_eigs(1.5, [0.0, 0.0]))
      0.0
    """
    x = jnp.asarray(eigenvalues)
    if x.ndim < 1 or x.shape[-1] < 1:
        raise ValueError(
            f"argument 'eigenvalues' must have a last axis of length k >= 1, got shape {x.shape}"
        )
    k = x.shape[-1]
    _check_b(b, k)
    check_concrete("eigenvalues", eigenvalues, lower=0.0)
    dtype = float_dtype(b, x)
    x = x.astype(dtype)
    b = jnp.asarray(b, dtype)
    batch = jnp.broadcast_shapes(b.shape, x.shape[:-1])
    b = jnp.broadcast_to(b, batch)
    x = jnp.broadcast_to(x, batch + (k,))
    n = series_truncation(b, x, k, dtype)
    if is_tracer(b) or is_tracer(x):
        value, error = _log_hyp0f1_eigs(b, x, n)
    else:
        value, error = _eager_eigs(n, b.shape, x.shape, np.dtype(dtype))(b, x)
    return (value, error) if return_error else value


@functools.lru_cache(maxsize=64)
def _eager_eigs(n: int, b_shape: tuple, x_shape: tuple, dtype: np.dtype):
    """:func:`_log_hyp0f1_eigs` at truncation ``n`` for concrete arguments of these shapes:
    its traced program kept on disk next to the compilation cache
    (:func:`~fisherrdp._src.core.engine.exported_program`), so that a later process loads it
    instead of tracing it again (the k ≥ 3 recursion takes seconds to trace)."""
    jitted = jax.jit(lambda b, x: _log_hyp0f1_eigs(b, x, n))
    args = [jax.ShapeDtypeStruct(b_shape, dtype), jax.ShapeDtypeStruct(x_shape, dtype)]
    identity = (__name__, "_log_hyp0f1_eigs", n)
    return exported_program(jitted, args, identity, name="log_hyp0f1_eigs",
                            modules=(__name__,)) or jitted


def check_matrix(X) -> None:
    if is_tracer(X):
        return
    a = np.asarray(X, np.float64)
    k = a.shape[-1]
    scale = np.maximum(np.max(np.abs(a), axis=(-2, -1)), np.finfo(np.float64).tiny)
    tol = (
        64.0
        * k
        * float(
            np.finfo(
                np.asarray(X).dtype
                if np.issubdtype(np.asarray(X).dtype, np.floating)
                else np.float64
            ).eps
        )
    )
    asym = np.max(np.abs(a - np.swapaxes(a, -1, -2)), axis=(-2, -1)) / scale
    if np.any(asym > tol):
        raise ValueError(
            f"argument 'X' must be symmetric (|X - X^T| <= {tol:.1e} max|X|), got relative asymmetry {np.max(asym):.3e}"
        )
    lam_min = np.min(np.linalg.eigvalsh(0.5 * (a + np.swapaxes(a, -1, -2))), axis=-1) / scale
    if np.any(lam_min < -tol):
        raise ValueError(
            f"argument 'X' must be positive semi-definite (eigenvalues >= -{tol:.1e} max|X|), "
            f"got smallest eigenvalue {np.min(lam_min) * np.max(scale):.3e}"
        )


def log_hyp0f1_matrix(b: ArrayLike, X: ArrayLike, *, return_error: bool = False):
    r"""log ₀F₁(; b; X) of a real symmetric positive semi-definite k × k matrix (α = 2).

    .. math::

        {}_0F_1(;b;X) = \sum_{n\ge0}\sum_{\kappa\vdash n,\ \ell(\kappa)\le k}
        \frac{C_\kappa(X)}{[b]_\kappa\,n!}
        = {}_0F_1(;b;\operatorname{diag}(\lambda_1, \dots, \lambda_k)),

    the hypergeometric function of a matrix argument in the non-central Wishart density
    (paper Section 4; ``docs/math/hyp0f1_matrix.md#the-non-central-wishart-density``). Computed from the eigenvalues (:func:`log_hyp0f1_eigs`);
    differentiable in ``X`` through a ``custom_jvp`` whose tangent is
    :math:`\sum_i \partial_{\lambda_i} f\, q_i^\top \dot X q_i` (finite and correct at
    repeated and zero eigenvalues; ``eigh`` is never differentiated), and in ``b``.

    Args:
      b: parameter, ``b > (k - 1)/2`` (``b >= 1/2`` for k = 1), broadcast against the batch.
      X: array ``(..., k, k)``, symmetric PSD; only its symmetric part is used.
      return_error: also return the error bound of :func:`log_hyp0f1_eigs`.

    Returns:
      Array of shape ``broadcast(b.shape, X.shape[:-2])`` (and the error bound).

    Raises:
      ValueError: if ``X`` is not square; if concrete ``X`` is not symmetric or has an
        eigenvalue below ``-64 k ε max|X|``; if concrete ``b`` is out of range. Inside ``jit``
        see :func:`log_hyp0f1_eigs`.

    Examples:
      >>> import numpy as np
      >>> import fisherrdp.special as fs
      >>> X = np.array([[2.0, 1.0], [1.0, 2.0]])  # eigenvalues 1 and 3
      >>> bool(np.isclose(fs.log_hyp0f1_matrix(1.5, X), fs.log_hyp0f1_eigs(1.5, [1.0, 3.0])))
      True
    """
    Xa = jnp.asarray(X)
    if Xa.ndim < 2 or Xa.shape[-1] != Xa.shape[-2] or Xa.shape[-1] < 1:
        raise ValueError(f"argument 'X' must be a square matrix (..., k, k), got shape {Xa.shape}")
    k = Xa.shape[-1]
    _check_b(b, k)
    check_matrix(X)
    dtype = float_dtype(b, Xa)
    Xa = Xa.astype(dtype)
    Xa = 0.5 * (Xa + jnp.swapaxes(Xa, -1, -2))
    b = jnp.asarray(b, dtype)
    batch = jnp.broadcast_shapes(b.shape, Xa.shape[:-2])
    b = jnp.broadcast_to(b, batch)
    Xa = jnp.broadcast_to(Xa, batch + (k, k))
    if is_tracer(Xa) or is_tracer(b):
        n = series_truncation(b, Xa, k, dtype)
        value, error = log_hyp0f1_sym(b, Xa, n)
    else:  # the primal of log_hyp0f1_sym, with the stored program
        n = series_truncation(b, np.linalg.eigvalsh(np.asarray(Xa, np.float64)), k, dtype)
        lam = jnp.linalg.eigvalsh(Xa)
        value, error = _eager_eigs(n, b.shape, lam.shape, np.dtype(dtype))(b, lam)
    return (value, error) if return_error else value

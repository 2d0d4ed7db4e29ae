r"""Exact Rényi divergence between non-central chi-square laws.

:func:`renyi_ncx2` computes :math:`D_\alpha(\chi^2_d(a^2) \,\|\, \chi^2_d(b^2))`, the
infinite-release loss of ``docs/math/renyi.md#the-divergence`` (the paper's Prop. 4.1/4.2: releasing infinitely many
synthetic records amounts to releasing :math:`\|V\|^2`).

**Variables.** With :math:`r = \sqrt y` (the law of :math:`\|\theta e_1 + N\|`),
:math:`\nu = d/2 - 1` and :math:`g(z) = \log{}_0F_1(;d/2;z^2/4)` (so :math:`g' = R_\nu
= I_{\nu+1}/I_\nu`), the log-likelihood ratio is

.. math::

    L(r) = \log\frac{p_a(r)}{p_b(r)} = -\frac{a^2 - b^2}{2} + g(ar) - g(br)
         = \delta\Bigl(r \int_0^1 R_\nu\bigl(br + \delta r s\bigr)\,ds - \frac{a+b}{2}\Bigr),
    \qquad \delta = a - b.

Per node, the second form (``Z_NODES``-point Gauss–Legendre in :math:`s`) is used where
:math:`|\delta| r \le` ``RATIO_SPAN`` :math:`\cdot\sqrt{(\nu + \pi/2)^2 + (\min(a,b)\,r)^2}`
(the poles of :math:`R_\nu` nearest the real axis are at :math:`\pm i j_{\nu,1}`,
:math:`j_{\nu,1} \ge \nu + \pi/2`, and the square root bounds their distance to the interval
:math:`[\min(a,b) r, \max(a,b) r]` from below, so the rule converges like :math:`8^{-2n}`); it has
no cancellation as :math:`a \to b` and gives :math:`\tilde L = L/\delta` directly. Elsewhere the
first form is used (:math:`|\delta|` is then not small relative to :math:`a`). Using the first
form where the second applies would cost accuracy: its two log-densities carry absolute errors
~1e-13·|log p| that become an error ~1e-13/((α−1)D) relative in D (1.8e-9 at d = 1, a = 100,
b = 99.99, α = 8 before the :math:`\min(a,b) r` term was added; now 1e-12).

**Two forms of the divergence, chosen elementwise.** Integrals are composite Gauss–Legendre
rules in :math:`u = \log r` (which turns the endpoint behaviour :math:`r^{d-1}` and the
power-law-like tilted integrands of :math:`a < b`, large :math:`\alpha` into smooth decay):

1. *Direct form*: :math:`(\alpha - 1) D = \log\int e^{\phi}`, :math:`\phi = \log p_b + \alpha L`,
   on panels centred at the maximiser :math:`u^*` of :math:`\phi + u` (``NEWTON_STEPS``
   safeguarded Newton steps from the root of :math:`r^2 - \kappa r - d`,
   :math:`\kappa = \alpha a + (1-\alpha) b`, the large-argument approximation), reaching out to
   where the integrand has dropped by :math:`e^{-T}`, :math:`T = -\log\epsilon + 4` (40 in
   float64; found by Newton steps on :math:`\phi + u` from the Gaussian guess). Panels are
   ``LINEAR_PANELS`` of width ``LINEAR_STEP`` :math:`\sigma` (:math:`\sigma` from the curvature
   at :math:`u^*`) on each side, then ``GEOMETRIC_PANELS`` geometrically growing ones. The peak
   can lie far outside both bulks: near :math:`m_b + \alpha(m_a - m_b)` for :math:`a > b`, at
   :math:`r \to 0` for :math:`a < b` and large :math:`\alpha`.
2. *ψ form*, cancellation-free when the divergence is small:
   :math:`\int p_a^\alpha p_b^{1-\alpha} - 1 = E_b[\psi(L)]`,
   :math:`\psi(L) = e^{\alpha L} - 1 - \alpha(e^L - 1) \ge 0`. Here :math:`\psi` is the series
   :math:`\sum_{n \ge 2} \alpha(\alpha^{n-1} - 1) L^n/n!` (``PSI_TERMS`` terms, summed in
   :math:`\alpha L` so that no coefficient overflows) for
   :math:`|\alpha L| < 1` and :math:`e^L\operatorname{expm1}((\alpha-1)L) -
   (\alpha-1)\operatorname{expm1}(L)` (in log space for :math:`L > 0`) elsewhere, the sum is
   scaled by :math:`\delta^2` (so values down to 1e-300 neither underflow nor lose digits), and
   divided by :math:`\int p_b` on the same nodes. The window is centred at :math:`p_b`'s peak
   and reaches the edges of both :math:`p_b`'s and the tilted integrand's windows.

The ψ form is used where the direct form gives :math:`(\alpha-1)D <` ``PSI_MAX`` (1e-3 in float64,
1 in float32; the direct
form's rounding error, :math:`\approx \epsilon/((\alpha-1)D)` relative, would be large there),
the direct form elsewhere. Both are evaluated: the ψ form in scaled log space, so that it stays
finite where it is not used (and at a slightly shifted ``a`` where a = b, where the result is
exactly 0), and its result is masked with ``where`` before it is exponentiated (the
double-``where`` trick), so neither values nor gradients pick up NaN from it.
:math:`\log p_b` is SciPy-convention ``ncx2.logpdf`` (accurate to ~1e-13·max(1, |log p|)).
The windows assume a unimodal integrand in :math:`u` (true on every case tested; not proved).

**Accuracy** (float64, against 60-digit mpmath, ``tests/fixtures/renyi_ncx2.json``, 60 points
plus the 3 shared references; asserted at 1e-9 by ``tests/test_renyi.py``). Worst relative
errors measured per regime: a ≈ b (|a − b| = 1e-6 and 1e-12 relative, values down to 1e-25):
1e-14; a = 0 or b = 0: 4e-13; d = 1: 1e-15; d = 1e4: 2e-15; large α with a < b (tilted peak
at r → 0) and with a > b (peak far beyond both bulks, values up to 4e3): 3e-16; moderate:
5e-12 (α = 1.0001, where the direct form carries (α − 1)D ≈ 2e-3). float32 against float64 on
10⁴ points: ``docs/howto/float32.md`` (within its criterion at every point; the median
relative error, 1.1e-5, is what rounding the inputs to float32 costs where a ≈ b). float32
takes forms of L/δ without cancellation (``ncx2_quadrature.log_ratio_over_delta_args``), its
nodes as a centre and an offset formed in float64 where the device has it, and smaller rules
(``NODES_FLOAT32``, ``Z_NODES_FLOAT32``): ``docs/math/renyi.md#float32-the-nodes``.

**Cost.** 2 × 320 quadrature nodes per element (float32: 2 × 200), each with a log-density and
``Z_NODES`` + 2 Bessel evaluations (float32: ``Z_NODES_FLOAT32`` + 2): 0.6–1 ms per element
in float64 on two CPU cores (``bench_release_k1.py``'s 64 points: 1676–1732 points/s, AMD EPYC,
2026-12-07; ``bench_scan.py``'s chunks: ~930 points/s, float32 ~1 700, on an earlier machine).
Compiling, with the cache off (2026-12-07): the value for 64 points ~2 s, ``jax.jit(jax.grad)``
in all four arguments ~5 s (4.9 s; 5.8 s when the χ² log-density's rule differentiated two
Bessel cores; most of it the order's derivative through the core at every node: with ``d``
alone differentiated the program is as large). Not for tight inner loops over
millions of points.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax.typing import ArrayLike

from fisherrdp._src.core.config import as_float_arrays, needs_compensation
from fisherrdp._src.core.engine import map_bucketed
from fisherrdp._src.core.validation import DIMENSION, NONNEG, Domain, validated
from fisherrdp._src.divergences.kl import kl_from_nodes
from fisherrdp._src.divergences.ncx2_quadrature import log_psi_sum, two_window_nodes

__all__ = ["renyi_ncx2"]

#: The ψ form is used where (α − 1) D < PSI_MAX (float64). The direct form's relative rounding
#: error is ~eps/((α − 1)D): 2e-13 at the float64 switch.
PSI_MAX = 1e-3
#: The switch where dtypes take their compensated forms (float32): with 1e-3 there, 33 of 152
#: random points with (α − 1)D in [1e-3, 1) missed float32's accuracy target
#: (docs/howto/float32.md; relative errors up to 1.3e-2), with 1, 1 did (2.3e-3).
PSI_MAX_COMPENSATED = 1.0


def psi_max(dtype) -> float:
    """(α − 1) D below which the ψ form is used, for ``dtype``."""
    return PSI_MAX_COMPENSATED if needs_compensation(dtype) else PSI_MAX


def renyi_kernel(alpha, d, a, b):
    valid = (alpha >= 1.0) & (d >= 1.0) & (a >= 0.0) & (b >= 0.0)
    alpha = jnp.where(valid, alpha, 2.0)
    d = jnp.where(valid, d, 1.0)
    a = jnp.where(valid, a, 1.0)
    b = jnp.where(valid, b, 1.0)
    nodes = two_window_nodes(alpha, d, a, b)
    n, w_d, w_p, log_pb, l_over, a_psi = nodes
    # At α = 1 the nodes are those of the KL divergence, which is the value there; the Rényi
    # forms below are evaluated at α = 2 instead (finite, unused).
    at_one = alpha == 1.0
    alpha = jnp.where(at_one, 2.0, alpha)
    # 1. Direct form: log ∫ p_b e^{αL} = (α − 1) D.
    log_int = jax.nn.logsumexp(log_pb[:n] + alpha * (a - b) * l_over[:n], b=w_d)
    # 2. ψ form: log E_b[ψ(L)], E = e^{(α−1)D} − 1; used where (α − 1) D < psi_max(dtype).
    use_psi = jax.lax.stop_gradient(log_int < psi_max(log_int.dtype)) & (a != b)
    log_e = jnp.where(
        use_psi, log_psi_sum(alpha, log_pb[n:], l_over[n:], a_psi - b, w_p), -1.0
    )
    e = jnp.exp(log_e)
    small_value = jnp.exp(log_e - jnp.log(alpha - 1.0)) * (jnp.log1p(e) / e)
    value = jnp.where(use_psi, small_value, log_int / (alpha - 1.0))
    value = jnp.where(a == b, jnp.zeros_like(value), value)
    value = jnp.where(at_one, kl_from_nodes(a, b, nodes), value)
    return jnp.where(valid, value, jnp.nan)


renyi_vec = jax.jit(jnp.vectorize(renyi_kernel))


@validated(alpha=Domain(lower=1.0), d=DIMENSION, a=NONNEG, b=NONNEG)
def renyi_ncx2(alpha: ArrayLike, d: ArrayLike, a: ArrayLike, b: ArrayLike) -> jax.Array:
    r"""Rényi divergence between two non-central chi-square laws with the same ``d``.

    .. math::

        D_\alpha\bigl(\chi^2_d(a^2) \,\big\|\, \chi^2_d(b^2)\bigr)
        = \frac{1}{\alpha - 1} \log \int_0^\infty p_{a}(y)^\alpha\, p_{b}(y)^{1-\alpha}\, dy,

    natural logarithm, where :math:`p_\theta` is the density of
    :math:`\|\theta e_1 + N\|^2`, :math:`N \sim \mathcal N(0, I_d)`. With :math:`a = \|v\|`,
    :math:`b = \|w\|` this is the infinite-release loss of ``docs/math/renyi.md#the-divergence`` (the paper's
    Prop. 4.1/4.2). It is at most the post-processing value :math:`\alpha (a-b)^2/2`
    (:func:`gaussian_renyi`) and equals :math:`\tfrac{\alpha}{2} I(d, b)(a-b)^2 + o((a-b)^2)`
    near :math:`a = b` (Prop. 3.1). Computed by quadrature in :math:`r = \sqrt y` (method:
    :mod:`fisherrdp._src.divergences.renyi`), to a relative error below 1e-9 (measured:
    below 5e-12, see the module docstring) for :math:`\alpha \in (1, 256]`,
    :math:`d \in [1, 10^4]`, :math:`a, b \in [0, 100]`, also where :math:`a \approx b` makes
    the value tiny. Elementwise with broadcasting; works under ``jit`` and ``vmap``;
    differentiable in ``alpha``, ``a`` and ``b``.

    Args:
      alpha: Rényi order, ``alpha >= 1``. At α = 1 the value is the Kullback–Leibler
        divergence, the limit α → 1 (:func:`kl_ncx2`), computed on the same nodes in the same
        program, also inside ``jit`` and in scans; its derivative in ``alpha`` there is not
        the one-sided limit (0 is returned: the KL does not depend on α).
      d: degrees of freedom, real, ``d >= 1``.
      a: amplitude of the first law, ``a >= 0`` (non-centrality ``a**2``).
      b: amplitude of the second law, ``b >= 0``.

    Returns:
      Array of the broadcast shape of the arguments, in their floating dtype.

    Raises:
      ValueError: if concrete ``alpha < 1``, ``d < 1``, ``a < 0`` or ``b < 0``. Inside
        ``jit`` no check is possible: such entries come out as NaN.

    Examples:
      >>> from fisherrdp.divergences import renyi_ncx2
      >>> round(float(renyi_ncx2(2.0, 50.0, 1.0, 0.5)), 10)  # ``docs/math/renyi.md#spot-values`` spot value
      0.0055679342
      >>> float(renyi_ncx2(2.0, 50.0, 1.0, 1.0))
      0.0
      >>> print(f"{float(renyi_ncx2(1.0, 50.0, 1.0, 0.5)):.10f}")  # α = 1: kl_ncx2
      0.0027572836
      >>> print(f"{float(renyi_ncx2(2.0, 5.0, 1.0 + 1e-9, 1.0)):.4e}")  # ≈ α I(5, 1) δ²/2
      2.8827e-19
    """
    alpha, d, a, b = as_float_arrays(alpha, d, a, b)
    return map_bucketed(renyi_vec, alpha, d, a, b)[0]

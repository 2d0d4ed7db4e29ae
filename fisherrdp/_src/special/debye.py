"""Coefficients of Debye's uniform asymptotic expansion of I_ν and of Stirling's series.

The polynomials u_k(t) of DLMF 10.41.10 are generated exactly, in rational arithmetic, from the
recurrence DLMF 10.41.E9,

    u_{k+1}(t) = ½ t² (1 − t²) u_k'(t) + ⅛ ∫_0^t (1 − 5 s²) u_k(s) ds,   u_0 = 1,

and the polynomials of the derivative expansion from DLMF 10.41.E12,
v_k(t) = u_k(t) + t(t² − 1)(½ u_{k−1}(t) + t u_{k−1}'(t)). We store
w_k(t) = ½ u_{k−1}(t) + t u_{k−1}'(t), so that v_k − u_k = t(t² − 1) w_k without cancellation.

u_k has only the powers t^k, t^{k+2}, …, t^{3k}; we store u_k(t) = t^k P_k(t²) and
w_k(t) = t^{k−1} Q_k(t²), each as a tuple of float coefficients, highest power first (Horner).

Truncation: with ν ≥ 20, max_{t∈[0,1]} |u_k(t)| / ν^k falls below 1e-17 at k = 16 (measured:
|u_14| ≤ 218, |u_15| ≤ 899, |u_16| ≤ 4631 on [0, 1]), so ``DEBYE_TERMS = 16`` terms beyond the
leading 1 give float64 accuracy for every order ν ≥ ``DEBYE_MIN_ORDER`` and every argument.

Near the zero z₀ = 0.66274… of η(z) = √(1 + z²) − asinh(1/z), log I_ν(νz) crosses 0 while ν η is
a difference of two terms of size ≈ 1.2 ν; there ν η is evaluated as (x − ν z₀) · g(z − z₀), with
g(h) = η(z₀ + h)/h = Σ_j c_j h^j (Taylor coefficients ``TURNING_TAYLOR``) and x − ν z₀ formed
exactly (see ``bessel.py``). The constants were computed with mpmath at 60 digits::

    eta = lambda z: mp.sqrt(1 + z*z) - mp.asinh(1/z)
    z0 = mp.findroot(eta, 0.66);  c = mp.taylor(eta, z0, 19)[1:]

Stirling's series log Γ(ν + 1) = (ν + ½) log ν − ν + ½ log 2π + Σ_k B_{2k} / (2k(2k − 1) ν^{2k−1})
uses the Bernoulli numbers B_2 … B_20; for ν ≥ 20 the first omitted term is below 1e-25.
"""

from __future__ import annotations

from fractions import Fraction

DEBYE_MIN_ORDER = 20.0
DEBYE_TERMS = 16


def _debye_u_polynomials(n_terms: int) -> list[dict[int, Fraction]]:
    """u_0 … u_{n_terms} as {power: coefficient} maps, exactly."""
    polys = [{0: Fraction(1)}]
    for _ in range(n_terms):
        uk = polys[-1]
        nxt: dict[int, Fraction] = {}
        for power, coef in uk.items():
            if power > 0:  # ½ t²(1 − t²) u_k'
                d = coef * power
                nxt[power + 1] = nxt.get(power + 1, Fraction(0)) + d / 2
                nxt[power + 3] = nxt.get(power + 3, Fraction(0)) - d / 2
            # ⅛ ∫_0^t (1 − 5s²) u_k(s) ds
            nxt[power + 1] = nxt.get(power + 1, Fraction(0)) + coef / (8 * (power + 1))
            nxt[power + 3] = nxt.get(power + 3, Fraction(0)) - 5 * coef / (8 * (power + 3))
        polys.append({p: c for p, c in nxt.items() if c != 0})
    return polys


def _even_part(poly: dict[int, Fraction], shift: int) -> tuple[float, ...]:
    """Coefficients of P with poly(t) = t^shift · P(t²), highest power first."""
    degree = (max(poly) - shift) // 2
    coefs = [0.0] * (degree + 1)
    for power, coef in poly.items():
        j = (power - shift) // 2
        assert (power - shift) % 2 == 0 and j >= 0
        coefs[degree - j] = float(coef)
    return tuple(coefs)


def _build_tables(n_terms: int):
    u = _debye_u_polynomials(n_terms)
    u_tab = tuple(_even_part(u[k], k) for k in range(n_terms + 1))
    w_tab = []
    for k in range(1, n_terms + 1):
        prev = u[k - 1]
        w = {p: c * (Fraction(1, 2) + p) for p, c in prev.items()}
        w_tab.append(_even_part(w, k - 1))
    return u_tab, tuple(w_tab)


#: ``U_EVEN[k]`` holds P_k with u_k(t) = t^k P_k(t²); ``W_EVEN[k-1]`` holds Q_k with
#: w_k(t) = t^{k−1} Q_k(t²), for k = 1 … DEBYE_TERMS.
U_EVEN, W_EVEN = _build_tables(DEBYE_TERMS)

#: B_{2k} / (2k (2k − 1)), k = 1 … 10 (Stirling series of log Γ).
STIRLING = tuple(
    float(Fraction(b) / (2 * k * (2 * k - 1)))
    for k, b in enumerate(
        [
            Fraction(1, 6), Fraction(-1, 30), Fraction(1, 42), Fraction(-1, 30), Fraction(5, 66),
            Fraction(-691, 2730), Fraction(7, 6), Fraction(-3617, 510), Fraction(43867, 798),
            Fraction(-174611, 330),
        ],
        start=1,
    )
)


#: The zero of η(z) = √(1 + z²) − asinh(1/z), to 40 digits.
TURNING_POINT = Fraction("0.6627434193491815809747420971092529070562")
#: g(h) = η(z₀ + h)/h = Σ_j TURNING_TAYLOR[j] h^j; with |h| ≤ 0.05 the first omitted term
#: is below 1e-19 of the sum.
TURNING_TAYLOR = (
    1.8101705806989772, -0.948886416256837, 1.1001528948506503, -1.2953006779860539,
    1.5715455665619724, -1.9710295801345066, 2.5442226725502084, -3.3574176889619283,
    4.503639745039154, -6.116916154170854, 8.391114712091305, -11.606012767320623,
    16.16472543589419, -22.648266391101256, 31.895268490233818, -45.1183158825841,
    64.07357479975221,
)

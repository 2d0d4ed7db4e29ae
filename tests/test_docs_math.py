"""The mathematics pages (docs/math/*.md): their spot values, their links and their anchors.

Every number that a page prints next to a one-line expression is recomputed here with code that
shares nothing with fisherrdp (mpmath, SciPy, NumPy, plain Python), and must agree with the
printed digits (to 0.6 units of the last one). The printed string must also appear on its page,
so that a page and this file cannot drift apart. The page index (docs/math/index.md) must link
every page, every link from one page to another with an anchor must name a heading of the target
page (GitHub/MyST heading slugs), every source file a page names must exist, and every public
name ``fisherrdp.<module>.<name>`` a page cites must exist (the only test that imports fisherrdp;
nothing is compiled).

Cost: about 15 s of CPU (nested SciPy quadratures of the finite release and of the path bound, a
NumPy cubature of the k = 2 Wishart divergence, Koev-Edelman series in plain Python); no JAX
compilation.
"""

from __future__ import annotations

import functools
import itertools
import math
import pathlib
import re
import warnings

import mpmath
import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

PAGES = pathlib.Path(__file__).resolve().parents[1] / "docs" / "math"


def _page(name: str) -> str:
    return (PAGES / name).read_text(encoding="utf-8")


# ------------------------------------------------------------------------------------------
# Independent implementations.


def _quad(f, a, b, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return integrate.quad(f, a, b, limit=500, epsabs=0.0, **kw)[0]


def _lp_ncx2(y: float, d: float, lam: float) -> float:
    """log density of chi2_d(lam) at y > 0, lam > 0 (Bessel form with scipy's ive)."""
    nu, z = d / 2 - 1, math.sqrt(lam * y)
    iv = special.ive(nu, z)
    if 0 < iv < math.inf:
        log_iv = math.log(iv)
    else:  # far right of the support (z huge): the density is negligible anyway
        log_iv = -0.5 * math.log(2 * math.pi * z) if z > 1 else -math.inf
    return (
        -math.log(2)
        - (math.sqrt(y) - math.sqrt(lam)) ** 2 / 2
        + nu / 2 * math.log(y / lam)
        + log_iv
    )


def _lp_chi2(x: float, n: float) -> float:
    return (n / 2 - 1) * math.log(x) - x / 2 - n / 2 * math.log(2) - math.lgamma(n / 2)


def _renyi_ncx2(alpha, d, a, b):
    """D_alpha(chi2_d(a^2) || chi2_d(b^2)) by one quadrature (alpha = 1: KL)."""
    m = d + max(a, b) ** 2
    s = math.sqrt(2 * (d + 2 * max(a, b) ** 2))
    pts = [max(m - 3 * s, 1e-9), m, m + 3 * s]
    if alpha == 1.0:

        def f(y):
            la, lb = stats.ncx2.logpdf(y, d, a * a), stats.ncx2.logpdf(y, d, b * b)
            return math.exp(la) * (la - lb)

        return _quad(f, 0, m + 40 * s, points=pts, epsrel=1e-13)

    def g(y):
        return math.exp(
            alpha * stats.ncx2.logpdf(y, d, a * a) + (1 - alpha) * stats.ncx2.logpdf(y, d, b * b)
        )

    return math.log(_quad(g, 0, m + 40 * s, points=pts, epsrel=1e-13)) / (alpha - 1)


def _hockey_stick_ncx2(eps, d, a, b):
    """E_{e^eps}(chi2_d(a^2) || chi2_d(b^2)), optimal set a half-line (monotone ratio)."""

    def loss(y):
        return stats.ncx2.logpdf(y, d, a * a) - stats.ncx2.logpdf(y, d, b * b) - eps

    if a < b and (b * b - a * a) / 2 <= eps:
        return 0.0
    y_star = optimize.brentq(loss, 1e-8, 1e3, xtol=1e-14)
    tail = stats.ncx2.sf if a > b else stats.ncx2.cdf
    return tail(y_star, d, a * a) - math.exp(eps) * tail(y_star, d, b * b)


def _fisher_ncx2(d, theta):
    """I(d, theta) = E[(sqrt(Y) R(theta sqrt(Y)) - theta)^2], in r = sqrt(y)."""
    nu = d / 2 - 1

    def f(r):
        z = theta * r
        ratio = special.ive(nu + 1, z) / special.ive(nu, z)
        return (r * ratio - theta) ** 2 * 2 * r * math.exp(stats.ncx2.logpdf(r * r, d, theta**2))

    m = math.sqrt(theta**2 + d - 0.5)
    return _quad(f, max(0.0, m - 14), m + 14, epsrel=1e-12)


def _fisher_ncx2_mpmath(d, theta):
    """The same at 30 digits with mpmath (Bessel form of the density)."""
    with mpmath.workdps(30):
        d, th = mpmath.mpf(d), mpmath.mpf(theta)
        nu, lam = d / 2 - 1, th**2

        def f(y):
            z = th * mpmath.sqrt(y)
            p = mpmath.exp(-(y + lam) / 2) * (y / lam) ** (nu / 2) * mpmath.besseli(nu, z) / 2
            s = mpmath.sqrt(y) * mpmath.besseli(nu + 1, z) / mpmath.besseli(nu, z) - th
            return s * s * p

        m, sd = d + lam, mpmath.sqrt(2 * (d + 2 * lam))
        inner = {m + k * sd for k in (-2, -1, 0, 1, 2, 4, 8)}
        cuts = sorted({mpmath.mpf(0)} | {t for t in inner if t > 0})
        return float(mpmath.quad(f, cuts + [mpmath.inf]))


def _path_bound_ncx2(alpha, d, a, b):
    """Prop 3.2 with the exact Fisher information, nested quadrature."""
    c = (alpha - 1) * (2 * alpha - 1) / 2

    def g(z):
        return math.sqrt(_fisher_ncx2(d, z)) * math.exp(c * (z - b) ** 2)

    j = _quad(g, b, a, epsrel=1e-11)
    return math.log1p(alpha * abs(j)) / (alpha - 1)


def _theorem52(alpha, d, C, delta, variant):
    i_c = 2 * C * C / (2 * C * C + d - 3)
    s = (alpha - 1) * (2 * alpha - 1) / 2
    if variant == "rederived":
        y = alpha * math.sqrt(i_c) * math.expm1(s * delta**2) / (s * delta)
    else:
        y = alpha * i_c * math.expm1(s * delta**2) / ((alpha - 1) * (2 * alpha - 1) * delta)
    return math.log1p(y) / (alpha - 1)


def _renyi_release_k1(alpha, d, n, a, b):
    """D_alpha(law(Y_a X) || law(Y_b X)), X ~ chi2_n: nested quadrature in c = log(T/n)."""

    def log_pc(c, theta):
        def f(w):  # p_U(c - w) p_W(w), U = log Y, W = log(X/n)
            u = c - w
            return math.exp(
                _lp_ncx2(math.exp(u), d, theta * theta)
                + u
                + _lp_chi2(n * math.exp(w), n)
                + w
                + math.log(n)
            )

        v = _quad(f, -60, 6, points=[-6, -3, -1, -0.3, 0, 0.3, 1, 3], epsrel=1e-11)
        return math.log(v) if v > 0 else -math.inf

    def g(c):
        la = log_pc(c, a)
        return 0.0 if la == -math.inf else math.exp(alpha * la + (1 - alpha) * log_pc(c, b))

    total = _quad(g, -40, 7, points=[-10, -5, -2, 0, 1, 2, 3, 4, 5], epsrel=1e-10)
    return math.log(total) / (alpha - 1)


# Koev-Edelman series of pFq of a matrix argument (Jack parameter 2), plain Python.


def _conjugate(nu):
    return [sum(1 for p in nu if p >= j) for j in range(1, (nu[0] if nu else 0) + 1)]


def _hook_a(nu, i, j):  # nu'_j - i + 2 (nu_i - j + 1)
    return _conjugate(nu)[j - 1] - i + 2 * (nu[i - 1] - j + 1)


def _hook_b(nu, i, j):  # nu'_j - i + 1 + 2 (nu_i - j)
    return _conjugate(nu)[j - 1] - i + 1 + 2 * (nu[i - 1] - j)


def _cells(nu):
    return [(i, j) for i in range(1, len(nu) + 1) for j in range(1, nu[i - 1] + 1)]


def _beta(kappa, mu, swapped):
    """beta_{kappa mu}: hook A on the columns the strip misses, B on the others (or swapped)."""
    ck = _conjugate(kappa)
    cm = _conjugate(mu) + [0] * len(ck)
    value = 1.0
    for nu, power in ((kappa, 1), (mu, -1)):
        for i, j in _cells(nu):
            use_a = (ck[j - 1] == cm[j - 1]) != swapped
            value *= (_hook_a(nu, i, j) if use_a else _hook_b(nu, i, j)) ** power
    return value


def _partitions(n, parts, largest=None):
    largest = n if largest is None else largest
    if n == 0:
        yield ()
        return
    if parts == 0:
        return
    for p in range(min(n, largest), 0, -1):
        for rest in _partitions(n - p, parts - 1, p):
            yield (p,) + rest


def _pfq_matrix(a_list, b_list, x, max_size, swapped=False):
    """sum_kappa [a]_kappa / [b]_kappa C_kappa(X) / |kappa|!, |kappa| <= max_size, eigenvalues x."""

    @functools.cache
    def jack(kappa, m):  # J_kappa(x_1 .. x_m)
        kappa = tuple(p for p in kappa if p > 0)
        if len(kappa) > m:
            return 0.0
        if not kappa:
            return 1.0
        if m == 1:
            return x[0] ** kappa[0] * math.prod(1 + 2 * (j - 1) for j in range(1, kappa[0] + 1))
        padded = list(kappa) + [0] * m
        total = 0.0
        for mu in itertools.product(*(range(padded[i + 1], padded[i] + 1) for i in range(m - 1))):
            mu = tuple(p for p in mu if p > 0)
            strip = sum(kappa) - sum(mu)
            total += jack(mu, m - 1) * x[m - 1] ** strip * _beta(kappa, mu, swapped)
        return total

    def pochhammer(c, kappa):
        return math.prod(
            math.prod(c - (i - 1) / 2 + t for t in range(kappa[i - 1]))
            for i in range(1, len(kappa) + 1)
        )

    total = 0.0
    for n in range(max_size + 1):
        for kappa in _partitions(n, len(x)):
            j_kappa = math.prod(
                _hook_a(kappa, i, j) * _hook_b(kappa, i, j) for i, j in _cells(kappa)
            )
            zonal = 2**n * math.factorial(n) / j_kappa * jack(kappa, len(x)) if kappa else 1.0
            coef = math.prod(pochhammer(a, kappa) for a in a_list) / math.prod(
                pochhammer(b, kappa) for b in b_list
            )
            total += coef * zonal / math.factorial(n)
    return total


def _log_0f1_2x2_closed(c, x1, x2):
    """The k = 2 closed series at 30 digits."""
    with mpmath.workdps(30):
        c = mpmath.mpf(c)

        def term(j):
            scale = mpmath.factorial(j) * mpmath.rf(c, 2 * j) * mpmath.rf(c - 0.5, j)
            return (x1 * x2) ** j / scale * mpmath.hyp0f1(c + 2 * j, x1 + x2)

        return float(mpmath.log(mpmath.nsum(term, [0, mpmath.inf])))


def _renyi_wishart_k2(alpha, d, om_v, om_w, nodes=50):
    """D_alpha(W_2(d, I, om_v) || W_2(d, I, om_w)): tensor Gauss-Legendre in Bartlett coordinates
    (l11 ~ chi_d, l21 ~ N(0, 1), l22 ~ chi_{d-1}) and the closed series of 0F1."""
    x, w = np.polynomial.legendre.leggauss(nodes)

    def axis(lo, hi):
        return lo + (hi - lo) * (x + 1) / 2, (hi - lo) * w / 2

    (l11, w11), (l21, w21), (l22, w22) = axis(1e-9, 12.0), axis(-9.0, 9.0), axis(1e-9, 11.0)
    l11, l21, l22 = np.meshgrid(l11, l21, l22, indexing="ij")
    weight = w11[:, None, None] * w21[None, :, None] * w22[None, None, :]

    def log_chi(k, r):
        return (k - 1) * np.log(r) - r * r / 2 - (k / 2 - 1) * math.log(2) - math.lgamma(k / 2)

    log_base = log_chi(d, l11) - l21**2 / 2 - 0.5 * math.log(2 * math.pi) + log_chi(d - 1, l22)
    y11, y12, y22 = l11**2, l11 * l21, l21**2 + l22**2
    c = d / 2

    def log_ratio(om):
        (o11, o12), (_, o22) = om
        s = 0.25 * (o11 * y11 + 2 * o12 * y12 + o22 * y22)
        q = (o11 * o22 - o12 * o12) * y11 * l22**2 / 16
        total = np.zeros_like(s)
        for j in range(40):
            log_coef = (
                -math.lgamma(j + 1)
                - (math.lgamma(c + 2 * j) - math.lgamma(c))
                - (math.lgamma(c - 0.5 + j) - math.lgamma(c - 0.5))
            )
            total = total + math.exp(log_coef) * q**j * special.hyp0f1(c + 2 * j, s)
        return -0.5 * (o11 + o22) + np.log(total)

    phi = log_base + alpha * log_ratio(om_v) + (1 - alpha) * log_ratio(om_w)
    top = phi.max()
    return (top + math.log(np.sum(weight * np.exp(phi - top)))) / (alpha - 1)


def _logcdf_ncx2_mpmath(x, d, lam):
    with mpmath.workdps(30):
        return float(
            mpmath.log(
                mpmath.nsum(
                    lambda j: (
                        mpmath.exp(-mpmath.mpf(lam) / 2)
                        * (mpmath.mpf(lam) / 2) ** j
                        / mpmath.factorial(j)
                        * mpmath.gammainc(d / 2 + j, 0, mpmath.mpf(x) / 2, regularized=True)
                    ),
                    [0, mpmath.inf],
                )
            )
        )


def _logsf_ncx2_mpmath(x, d, lam, terms=4000):
    with mpmath.workdps(30):
        half = mpmath.mpf(lam) / 2
        return float(
            mpmath.log(
                mpmath.fsum(
                    mpmath.exp(-half)
                    * half**j
                    / mpmath.factorial(j)
                    * mpmath.gammainc(d / 2 + j, mpmath.mpf(x) / 2, mpmath.inf, regularized=True)
                    for j in range(terms)
                )
            )
        )


def _mechanism_rdp(alpha, d, c, gap):
    """k = 1 RDP at the corner pair (c, c - gap), both orders."""
    return max(_renyi_ncx2(alpha, d, c, c - gap), _renyi_ncx2(alpha, d, c - gap, c))


# ------------------------------------------------------------------------------------------
# The spot values: (page, printed string, printed value, recomputation).


SPOTS = [
    (
        "bessel.md",
        "-184.9420662352",
        -184.9420662352,
        lambda: float(mpmath.log(mpmath.besseli(1200, 700))),
    ),
    (
        "bessel.md",
        "0.662743419349182",
        0.662743419349182,
        lambda: float(
            mpmath.findroot(lambda z: mpmath.sqrt(1 + z * z) - mpmath.asinh(1 / z), 0.66)
        ),
    ),
    (
        "bessel.md",
        "6996785.775137",
        6996785.775137,
        lambda: float(mpmath.log(mpmath.besselk(10**4, 1e-300))),
    ),
    ("ncx2.md", "-150.3566313278", -150.3566313278, lambda: _logcdf_ncx2_mpmath(1e-8, 10, 100)),
    ("ncx2.md", "-46878.8256130", -46878.8256130, lambda: _logsf_ncx2_mpmath(1e5, 10, 100)),
    ("fisher.md", "0.3121520503", 0.3121520503, lambda: _fisher_ncx2(10, 1.5)),
    ("fisher.md", "0.159126043", 0.159126043, lambda: _path_bound_ncx2(2.0, 50, 1.0, 0.5)),
    ("renyi.md", "0.0055679342", 0.0055679342, lambda: _renyi_ncx2(2.0, 50, 1.0, 0.5)),
    ("renyi.md", "0.0027572836", 0.0027572836, lambda: _renyi_ncx2(1.0, 50, 1.0, 0.5)),
    (
        "renyi.md",
        "0.0600640291",
        0.0600640291,
        lambda: max(_hockey_stick_ncx2(1.0, 10, 3.0, 2.0), _hockey_stick_ncx2(1.0, 10, 2.0, 3.0)),
    ),
    ("renyi.md", "about 45", 45, lambda: round(0.25 / _renyi_ncx2(2.0, 50, 1.0, 0.5))),
    ("release.md", "0.09026547", 0.09026547, lambda: _renyi_release_k1(2.0, 5.0, 10.0, 2.0, 1.5)),
    ("release.md", "0.14008890", 0.14008890, lambda: _renyi_release_k1(2.0, 5.0, 100.0, 2.0, 1.5)),
    ("release.md", "0.15129470", 0.15129470, lambda: _renyi_ncx2(2.0, 5.0, 2.0, 1.5)),
    # release.md, the far-left second mode: exact values an earlier kernel missed.
    ("release.md", "6.7480", 6.7480, lambda: _renyi_release_k1(8.0, 5.0, 10.0, 10.0, 12.0)),
    ("release.md", "25.709", 25.709, lambda: _renyi_release_k1(2.0, 1.0, 10.0, 2.0, 8.0)),
    (
        "hyp0f1_matrix.md",
        "1.655659330534",
        1.655659330534,
        lambda: math.log(_pfq_matrix([], [2.5], (3.0, 1.0, 0.5), 22)),
    ),
    ("hyp0f1_matrix.md", "2.2121310203", 2.2121310203, lambda: _log_0f1_2x2_closed(1.5, 1, 3)),
    (
        "wishart_k2.md",
        "0.1021935362",
        0.1021935362,
        lambda: _renyi_wishart_k2(2.0, 10.0, [[4.0, 0.0], [0.0, 0.25]], [[2.25, 0.0], [0.0, 0.25]]),
    ),
    ("wishart_k2.md", "0.1021911264", 0.1021911264, lambda: _renyi_ncx2(2.0, 10.0, 2.0, 1.5)),
    # worst_pair.md: the orthogonal pair's exact value is the sum of two k = 1 divergences; the
    # independent cubature of the Wishart divergence gives the same sum.
    ("worst_pair.md", "0.0497936271", 0.0497936271, lambda: _renyi_ncx2(2.0, 10.0, 1.0, 0.0)),
    ("worst_pair.md", "0.0421024196", 0.0421024196, lambda: _renyi_ncx2(2.0, 10.0, 0.0, 1.0)),
    (
        "worst_pair.md",
        "0.0918960467",
        0.0918960467,
        lambda: _renyi_wishart_k2(2.0, 10.0, [[1.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, 1.0]]),
    ),
    (
        "accountant.md",
        "0.1269367375",
        0.1269367375,
        lambda: stats.norm.cdf(-0.5) - math.e * stats.norm.cdf(-1.5),
    ),
    ("accountant.md", "0.0170368632", 0.0170368632, lambda: math.log1p(0.01 * math.expm1(1.0))),
    (
        "accountant.md",
        r"1.77617451\times10^{-4}",
        1.77617451e-4,
        lambda: _mechanism_rdp(2.0, 100, 1.0, 0.1),
    ),
    ("variational.md", "$k = 0.69$", 0.69, lambda: (1 - 1 / 1.69) * 1.69),
    ("variational.md", "0.8165680", 0.8165680, lambda: 2 * (1 - 1 / 1.69)),
    ("paper.md", "0.2515391509", 0.2515391509, lambda: _fisher_ncx2_mpmath(6, 1.0)),
    ("paper.md", "0.2192365091", 0.2192365091, lambda: _theorem52(2.0, 50, 1.0, 0.5, "rederived")),
    ("paper.md", "0.0244598416", 0.0244598416, lambda: _theorem52(2.0, 50, 1.0, 0.5, "printed")),
    ("paper.md", "0.0055679342", 0.0055679342, lambda: _renyi_ncx2(2.0, 50, 1.0, 0.5)),
    (
        "paper.md",
        "about 29",
        29,
        lambda: round(_path_bound_ncx2(2.0, 50, 1.0, 0.5) / _renyi_ncx2(2.0, 50, 1.0, 0.5)),
    ),
]


def _last_digit(text: str) -> float:
    """The unit of the last printed digit of the number in ``text``."""
    mantissa = re.search(r"-?\d+(?:\.(\d+))?", text)
    decimals = len(mantissa.group(1) or "")
    exponent = re.search(r"10\^\{(-?\d+)\}", text)
    return 10.0 ** (-decimals + (int(exponent.group(1)) if exponent else 0))


@pytest.mark.parametrize(
    "page, printed, value, compute", SPOTS, ids=[f"{p}:{s}" for p, s, _, _ in SPOTS]
)
def test_spot_value(page, printed, value, compute):
    text = " ".join(_page(page).split())
    assert printed in text, f"{printed!r} is not printed on {page}"
    got = compute()
    assert abs(got - value) <= 0.6 * _last_digit(printed), (page, printed, got)


def test_spot_values_that_hold_together():
    """Relations the pages state between their spot values."""
    printed = {(page, text): value for page, text, value, _ in SPOTS}
    # wishart_k2.md: the shared second direction adds about 2.4e-6 to the rank-one value.
    assert "2.4\\times10^{-6}" in _page("wishart_k2.md")
    gain = printed["wishart_k2.md", "0.1021935362"] - printed["wishart_k2.md", "0.1021911264"]
    assert abs(gain - 2.4e-6) < 0.05e-6
    # worst_pair.md: the orthogonal pair's value is the sum of its two k = 1 terms.
    terms = printed["worst_pair.md", "0.0497936271"] + printed["worst_pair.md", "0.0421024196"]
    assert abs(printed["worst_pair.md", "0.0918960467"] - terms) <= 1e-10
    # paper.md: the printed Theorem 5.3 at k = 1, d = 6, rho = 1 is 1/4, the re-derived 2/5,
    # and the exact information lies strictly between.
    assert 0.25 < _fisher_ncx2(6, 1.0) < 2 / (2 + 3)
    # paper.md: for k = 1 the printed Theorem 5.3 fails for every d >= 6 (strict Cramer-Rao
    # lower bound >= printed form), but not by this argument at d = 5.
    for d in (6, 7, 50):
        for rho in (0.1, 1.0, 10.0):
            assert 2 * rho**2 / (2 * rho**2 + d) >= rho**2 / (rho**2 + d - 3) - 1e-15
    assert 2 / (2 + 5) < 1 / (1 + 5 - 3)
    # release.md: the finite releases (n_syn = 10, 100) increase towards the n_syn = inf value.
    release = [printed["release.md", v] for v in ("0.09026547", "0.14008890", "0.15129470")]
    assert release == sorted(release)


def test_beta_convention():
    """hyp0f1_matrix.md: the beta rule satisfies 0F0 = etr and 1F0 = det^-a; the swapped one not."""
    x, y = (0.3, 0.2, 0.1), (0.2, 0.1, 0.05)
    etr = math.exp(sum(x))
    det = math.prod((1 - yi) ** -1.7 for yi in y)
    assert _pfq_matrix([], [], x, 14) == pytest.approx(etr, rel=1e-12)
    assert _pfq_matrix([1.7], [], y, 20) == pytest.approx(det, rel=1e-12)
    assert _pfq_matrix([], [], x, 10, swapped=True) != pytest.approx(etr, rel=1e-3)
    assert _pfq_matrix([1.7], [], y, 10, swapped=True) != pytest.approx(det, rel=1e-3)
    # The k = 2 closed series equals the Koev-Edelman series.
    assert math.log(_pfq_matrix([], [1.5], (1.0, 3.0), 28)) == pytest.approx(
        _log_0f1_2x2_closed(1.5, 1, 3), rel=1e-12
    )


# ------------------------------------------------------------------------------------------
# Links and anchors.


def _slug(heading: str) -> str:
    """GitHub's (and MyST's myst_heading_anchors) slug of a heading."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(name: str) -> set[str]:
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", _page(name), re.MULTILINE)}


def test_index_links_every_page():
    index = _page("index.md")
    linked = set(re.findall(r"\]\(([\w.]+\.md)(?:#[\w-]+)?\)", index))
    pages = {p.name for p in PAGES.glob("*.md")} - {"index.md"}
    assert pages, "no pages in docs/math"
    assert pages <= linked, f"not linked from index.md: {sorted(pages - linked)}"


def test_links_between_pages_resolve():
    pages = {p.name for p in PAGES.glob("*.md")}
    for name in sorted(pages):
        headings = [m.group(1) for m in re.finditer(r"^#{1,6} (.+)$", _page(name), re.MULTILINE)]
        slugs = [_slug(h) for h in headings]
        assert len(slugs) == len(set(slugs)), f"{name}: duplicate headings"
        for target, anchor in re.findall(r"\]\(([\w.]+\.md)(?:#([\w-]+))?\)", _page(name)):
            assert target in pages, f"{name} links to a missing page {target}"
            if anchor:
                assert anchor in _anchors(target), f"{name} links to {target}#{anchor}"


def test_cited_files_exist():
    root = PAGES.parents[1]
    for page in sorted(PAGES.glob("*.md")):
        text = page.read_text(encoding="utf-8")
        for path in re.findall(r"`(fisherrdp/[\w/]+\.py)`", text):
            assert (root / path).is_file(), f"{page.name} names a missing file {path}"
        for path in re.findall(r"`(fisherrdp/[\w/]+/)`", text):
            assert (root / path).is_dir(), f"{page.name} names a missing folder {path}"


def test_cited_public_names_exist():
    import importlib

    names = set()
    for page in PAGES.glob("*.md"):
        names |= set(re.findall(r"`(fisherrdp(?:\.\w+)+)", page.read_text(encoding="utf-8")))
    assert names
    for name in sorted(names):
        parts = name.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except ImportError:
                continue
            for attr in parts[cut:]:
                assert hasattr(obj, attr), f"{name}: no attribute {attr!r}"
                obj = getattr(obj, attr)
            break

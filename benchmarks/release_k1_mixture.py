"""Issue 44 candidate: the finite release by the Poisson mixture, measured against the kernel.

A measurement of a *candidate* method for ``renyi_release_k1`` (not part of the package: the
package has one method per quantity, and this one does not yet hold every claim of the
current kernel; what it holds and what it does not is printed). The method:

**Density.** T = Y·X, Y ~ χ²_d(λ), X ~ χ²_n: Y is the Poisson mixture Σ_j π_λ(j) χ²_{d+2j},
π_λ(j) = e^{−λ/2}(λ/2)^j/j!, and the product of independent χ²_p and χ²_n variables has the
density t^{(p+n)/4−1} K_μ(√t) / (2^{(p+n)/2−1} Γ(p/2) Γ(n/2)), μ = (n − p)/2. In s = log t,

    log p_S(s) = logsumexp_j [log π_λ(j) + log g_j(s)],
    log g_j(s) = (p+n)/4 · s + log K_{|μ_j|}(e^{s/2}) − ((p+n)/2 − 1) log 2 − lgamma(p/2) − lgamma(n/2).

The terms g_j are shared by the two laws (only the Poisson weights differ). Per node s the
posterior of j is located by the zero of the approximate score
F(j) = log(λ/2) − ψ(j+1) + s/2 − log 2 − ψ(d/2+j) − asinh(μ_j/√t) (∂_ν log K_ν ≈ asinh(ν/x),
no Bessel function), for both laws; the window of ``terms`` consecutive integers below and
above covers both posteriors ±10 σ. The K_{|μ_j|}(√t) come from two anchors (the smallest
orders on each side of μ = 0, with K_{ν+1}/K_ν from the same call of the K core) and the upward
recurrence of the ratio r_ν = 1/r_{ν−1} + 2ν/x in log space (stable: K is the dominant
solution), one ``lax.scan`` for both chains.

**Rényi divergence.** The tilted log-integrand β log p_a + (1 − β) log p_b (β = α) on a
uniform grid over an analytic range, zoomed ``zooms`` times onto the cells within e^{-drop} of
its maximum, then the trapezoid rule on the last grid (exponentially accurate for an analytic
integrand that has decayed at both ends). Where (α − 1)D < 1e-3 the ψ form, normalised by the
quadrature's own mass of p_b, with L from the posterior mean of π_a/π_b under law b
(cancellation-free in a − b).

Run::

    python benchmarks/release_k1_mixture.py [--points 64] [--grid 96] [--zooms 3] [--json PATH]

It prints (1) the accuracy against ``tests/fixtures/release_k1.json`` (mpmath, 40 digits) and
the bimodal references, row by row; (2) points per second of the candidate, of the current
kernel and of ``renyi_ncx2`` on the points of ``bench_release_k1.py``, in one run.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

LOG2 = math.log(2.0)
WIN = float(os.environ.get("WIN", "10"))
#: Newton steps for the posterior mode of the Poisson index (from the prior mean).
NEWTON_STEPS = 12
#: Parabolic steps refining the peak of the tilted integrand and its scale.
REFINE_STEPS = 4
#: Window lengths (terms of the Poisson sum per node), one compiled program each.
TERM_BUCKETS = (64, 128, 256, 512, 1024, 2048)


def terms_for(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Window length per point: ±10 posterior sd (at most ~the prior's) of the wider law, the
    distance between the two laws' prior means and a margin, rounded up to a bucket."""
    lam = np.maximum(a, b) ** 2
    need = 20.0 * (1.5 * np.sqrt(0.5 * lam) + 2.0) + 0.5 * np.abs(a * a - b * b) + 16.0
    buckets = np.asarray(TERM_BUCKETS)
    return buckets[np.minimum(np.searchsorted(buckets, need), len(buckets) - 1)]


_BUILT: dict = {}


def evaluate(alpha, d, n, a, b, *, grid: int, zooms: int, nodes: int, drop: float = 45.0):
    """The candidate's Rényi divergence at 1-D float64 arrays (grouped by window length)."""
    import jax.numpy as jnp

    cols = [np.asarray(v, np.float64) for v in (alpha, d, n, a, b)]
    out = [np.empty(len(cols[0])), np.empty(len(cols[0]), bool), np.empty(len(cols[0]))]
    need = terms_for(cols[3], cols[4])
    for terms in np.unique(need):
        key = (int(terms), grid, zooms, nodes, drop)
        if key not in _BUILT:
            _BUILT[key] = build(*key)[0]
        rows = need == terms
        res = _BUILT[key](*(jnp.asarray(c[rows]) for c in cols))
        for o, r in zip(out, res):
            o[rows] = np.asarray(r)
    return tuple(out)


def build(terms: int, grid: int, zooms: int, nodes: int, drop: float):
    """The candidate's jitted functions for one layout (a closure over the static sizes)."""
    _common.import_fisherrdp()
    import jax
    import jax.numpy as jnp
    from jax.scipy.special import digamma, gammaln, logsumexp, polygamma

    from fisherrdp._src.divergences.ncx2_quadrature import log_psi_sum
    from fisherrdp._src.numerics.polynomials import horner
    from fisherrdp._src.special.bessel import HALF_LOG_2PI, stirling_correction
    from fisherrdp._src.special.bessel_k import DEBYE_MIN_RADIUS, bessel_k_parts
    from fisherrdp._src.special.debye import U_EVEN

    def posterior_mode(s, d, n, lam):
        """Approximate posterior mode and sd of the Poisson index j at s (no Bessel calls)."""
        x = jnp.exp(0.5 * s)
        half = 0.5 * (n - d)
        lam_safe = jnp.where(lam > 0, lam, 1.0)

        def score(j):
            mu = half - j
            f = (jnp.log(0.5 * lam_safe) - digamma(j + 1.0) + 0.5 * s - LOG2
                 - digamma(0.5 * d + j) - jnp.arcsinh(mu / x))
            df = (-polygamma(1, j + 1.0) - polygamma(1, 0.5 * d + j)
                  + 1.0 / jnp.sqrt(x * x + mu * mu))
            return f, df

        # Newton on F from the prior mean, kept ≥ 0 (F decreasing in j).
        def step(_, j):
            f, df = score(j)
            return jnp.clip(j - f / jnp.minimum(df, -1e-300), 0.0, 1e12)

        j = jax.lax.fori_loop(0, NEWTON_STEPS, step, jnp.broadcast_to(0.5 * lam_safe, jnp.shape(s)))
        _, df = score(j)
        # The posterior is at most about as wide as the prior (the likelihood of j is at least
        # as wide as Pois(λ/2)): the cap guards where the asinh form of ∂_ν log K is poor.
        sigma = jnp.minimum(1.0 / jnp.sqrt(-jnp.minimum(df, -1e-300)),
                            1.5 * jnp.sqrt(0.5 * lam_safe) + 2.0)
        j = jnp.where(lam > 0, j, 0.0)
        sigma = jnp.where(lam > 0, sigma, 0.0)
        return j, sigma

    def phi1p(e):
        """φ(1 + e) = e − log1p(e) ≥ 0 without cancellation (a series for |e| < 0.1)."""
        small = jnp.abs(e) < 0.1
        es = jnp.where(small, e, 0.0)
        series = jnp.zeros_like(es)
        for k in range(22, 1, -1):
            series = series * es + (1.0 if k % 2 == 0 else -1.0) / k
        series = series * es * es
        el = jnp.where(small, 1.0, e)
        return jnp.where(small, series, el - jnp.log1p(el))

    def gamma_remainder(z):
        """log Γ(z) − (z − ½) log z + z − ½ log 2π (Stirling's series for z ≥ 20)."""
        big = z >= 20.0
        zb = jnp.where(big, z, 20.0)
        zs = jnp.where(big, 1.0, z)
        direct = gammaln(zs) - (zs - 0.5) * jnp.log(zs) + zs - HALF_LOG_2PI
        return jnp.where(big, stirling_correction(zb), direct)

    def log_poisson(j, mu):
        """log of e^{−μ} μ^j / j! by Loader's deviance, −j φ(μ/j) − ½ log 2πj − r(j) with r the
        Stirling remainder (log Γ(j + 1) − (j + ½) log j + j − ½ log 2π = r(j)): nothing of
        size j or μ cancels."""
        pos = (j > 0) & (mu > 0)
        big = pos & (j >= 20.0)
        js = jnp.where(big, j, 20.0)
        ms = jnp.where(big, mu, 1.0)
        loader = -js * phi1p(ms / js - 1.0) - 0.5 * jnp.log(2.0 * math.pi * js) - gamma_remainder(js)
        # Below j = 20 nothing large cancels: the direct form.
        jd = jnp.where(big, 0.0, j)
        md = jnp.where(mu > 0, mu, 1.0)
        direct = -mu + jd * jnp.log(md) - gammaln(jd + 1.0)
        return jnp.where(big, loader, jnp.where(pos | (j == 0), direct, -jnp.inf))

    def log_anchor(P, Q, s):
        """log of the density of S = log(χ²_{2P} χ²_{2Q}) at s, cancellation-free (Debye for
        R = √(ν² + e^s) ≥ 32 with Stirling; the K form below), and log K_{ν+1}/K_ν(e^{s/2})."""
        x = jnp.exp(0.5 * s)
        nu = jnp.abs(P - Q)
        parts = bessel_k_parts(nu, x)
        log_r = jnp.log(x + nu + parts.excess) - jnp.log(x)
        log_4pq = 2.0 * LOG2 + jnp.log(P) + jnp.log(Q)
        gap = jnp.exp(log_4pq) * jnp.expm1(s - log_4pq)  # e^s − 4PQ
        big = nu >= x
        radius = jnp.where(big, nu, x) * jnp.sqrt(
            1.0 + (jnp.where(big, x, nu) / jnp.where(big, nu, x)) ** 2)
        kappa = gap / (2.0 * (radius + P + Q))
        debye = radius >= DEBYE_MIN_RADIUS
        rs = jnp.where(debye, radius, 2.0 * DEBYE_MIN_RADIUS)
        t2 = (jnp.where(debye, nu, 0.0) / rs) ** 2
        power = jnp.ones_like(rs)
        u_sum = jnp.ones_like(rs)
        for k in range(1, 17):
            power = power * (-1.0 / rs)
            u_sum = u_sum + power * horner(U_EVEN[k], t2)
        # r = 1 + κ/P = (R + P − Q)/(2P): where P < Q, R − ν = e^s/(R + ν) (no cancellation).
        def deviance(a, other):
            e = kappa / a
            log_r = jnp.where(a >= other, jnp.log(radius + nu) - jnp.log(2.0 * a),
                              s - jnp.log(2.0 * a) - jnp.log(radius + nu))
            small = jnp.abs(e) < 0.1
            return jnp.where(small, phi1p(jnp.where(small, e, 0.0)),
                             jnp.expm1(log_r) - log_r)

        stirling_form = (-P * deviance(P, Q) - Q * deviance(Q, P)
                         + 0.5 * (jnp.log(P) + jnp.log(Q) - jnp.log(rs)) - HALF_LOG_2PI
                         - gamma_remainder(P) - gamma_remainder(Q) + jnp.log(u_sum))
        k_form = (LOG2 + 0.5 * (P + Q) * (s - 2.0 * LOG2) + parts.log_k
                  - gammaln(P) - gammaln(Q))
        return jnp.where(debye, stirling_form, k_form), log_r

    def log_terms(s, d, n, j_lo):
        """log g_j(s) for j = j_lo + k, k < terms, and the j themselves (rows vectorised)."""
        Q = 0.5 * n
        j_hi = j_lo + terms - 1
        # Chain U: j ≥ ju0, ν = P − Q ≥ 0 grows with j; chain D: j ≤ jd0, ν = Q − P > 0 grows
        # as j falls. Each from an anchor (cancellation-free) by increments of size O(log).
        ju0 = jnp.clip(jnp.ceil(Q - 0.5 * d), j_lo, j_hi + 1)
        jd0 = jnp.maximum(ju0 - 1.0, j_lo)
        both_j = jnp.stack([ju0, jd0])
        both_P = 0.5 * d + both_j
        anchor, log_r0 = log_anchor(both_P, jnp.stack([Q, Q]), jnp.stack([s, s]))
        nu0 = jnp.abs(both_P - Q)
        log_x = 0.5 * s

        def step(carry, _):
            nu, log_r = carry
            out = log_r
            nu = nu + 1.0
            log_r = jnp.logaddexp(-log_r, jnp.log(2.0 * nu) - log_x)
            return (nu, log_r), out

        _, log_r = jax.lax.scan(step, (nu0, log_r0), None, length=terms)  # (terms, 2, rows)
        k = jnp.arange(terms, dtype=s.dtype)[:, None]
        sigma = s - 2.0 * LOG2
        # Increments from term k to k + 1 of each chain.
        inc_u = 0.5 * sigma + log_r[:, 0] - jnp.log(both_P[0] + k)
        inc_d = -0.5 * sigma + log_r[:, 1] + jnp.log(jnp.maximum(both_P[1] - k - 1.0, 1e-300))
        cum_u = anchor[0] + jnp.concatenate([jnp.zeros_like(inc_u[:1]), jnp.cumsum(inc_u[:-1], 0)])
        cum_d = anchor[1] + jnp.concatenate([jnp.zeros_like(inc_d[:1]), jnp.cumsum(inc_d[:-1], 0)])
        m = k + j_lo
        from_u = m >= ju0
        iu = jnp.clip(m - ju0, 0, terms - 1).astype(jnp.int32)
        idn = jnp.clip(jd0 - m, 0, terms - 1).astype(jnp.int32)
        log_g = jnp.where(from_u, jnp.take_along_axis(cum_u, iu, axis=0),
                          jnp.take_along_axis(cum_d, idn, axis=0))
        return log_g, m

    def log_weights(m, lam, j_lo):
        """log π_λ(m) along the window: Loader's form at j_lo, then log μ − log(j + 1)."""
        mu = 0.5 * lam
        first = log_poisson(j_lo, mu)
        ms = jnp.where(mu > 0, mu, 1.0)
        steps = jnp.log(ms) - jnp.log(m[:-1] + 1.0)
        cum = first + jnp.concatenate([jnp.zeros_like(steps[:1]), jnp.cumsum(steps, 0)])
        return jnp.where(mu > 0, cum, jnp.where(m == 0, 0.0, -jnp.inf))

    def window_start(s, d, n, a, b):
        ja, sa = posterior_mode(s, d, n, a * a)
        jb, sb = posterior_mode(s, d, n, b * b)
        lo = jnp.minimum(ja - WIN * sa, jb - WIN * sb) - 4.0
        hi = jnp.maximum(ja + WIN * sa, jb + WIN * sb) + 4.0
        centre = jnp.floor(0.5 * (lo + hi) - 0.5 * terms)
        start = jnp.maximum(0.0, jnp.minimum(jnp.floor(lo), centre))
        covered = hi <= start + terms - 1
        return start, covered

    def log_densities(s, d, n, a, b):
        """(log p_a(s), log p_b(s), L/δ from the posterior under b (ψ form), covered) per row."""
        s, d, n, a, b = jnp.broadcast_arrays(s, d, n, a, b)
        start, covered = window_start(s, d, n, a, b)
        lg, m = log_terms(s, d, n, start)
        la, lb = a * a, b * b
        fa = lg + log_weights(m, la, start)
        fb = lg + log_weights(m, lb, start)
        log_pa = logsumexp(fa, axis=0)
        log_pb = logsumexp(fb, axis=0)
        # ψ form: (e^L − 1)/δ = E_b[ℓ exprel(δℓ)], log π_a/π_b = δℓ (a, b > 0, δ = a − b ≠ 0).
        delta = a - b
        ok = (b > 0) & (delta != 0)
        bs = jnp.where(ok, b, 1.0)
        ds = jnp.where(ok, delta, 1.0)
        ell = -0.5 * (a + b) + 2.0 * m * jnp.log1p(ds / bs) / ds
        z = ds * ell
        tiny = jnp.abs(z) < 1e-8
        exprel = jnp.where(tiny, 1.0 + 0.5 * z, jnp.expm1(z) / jnp.where(tiny, 1.0, z))
        q = jnp.exp(fb - log_pb)
        mean = jnp.sum(q * ell * exprel, axis=0)
        yv = ds * mean
        small = jnp.abs(yv) < 1e-8
        y = mean * jnp.where(small, 1.0 - 0.5 * yv, jnp.log1p(yv) / jnp.where(small, 1.0, yv))
        return log_pa, log_pb, y, covered

    def bulk(d, n, lam):
        mean = jnp.log(d + lam) + digamma(0.5 * n) + LOG2
        var = 2.0 * (d + 2.0 * lam) / (d + lam) ** 2 + polygamma(1, 0.5 * n)
        return mean, jnp.sqrt(var)

    def renyi_one(alpha, d, n, a, b):
        ma, sa = bulk(d, n, a * a)
        mb, sb = bulk(d, n, b * b)
        slope = 0.5 * jnp.minimum(d, n)
        tilt = (alpha - 1.0) * jnp.maximum(0.5 * (b * b - a * a), 0.0)
        lo = jnp.minimum(ma, mb) - 12.0 * jnp.maximum(sa, sb) - (drop + tilt) / slope
        hi = jnp.maximum(ma, mb) + 12.0 * jnp.maximum(sa, sb) + 8.0 + jnp.log1p(alpha)

        def tilted(s):
            log_pa, log_pb, y, covered = log_densities(s, d, n, a, b)
            return alpha * log_pa + (1.0 - alpha) * log_pb, log_pb, y, covered

        def zoom(_, bounds):
            lo, hi = bounds
            s = jnp.linspace(lo, hi, grid)
            v, _, _, _ = tilted(s)
            keep = v >= jnp.max(v) - drop
            idx = jnp.arange(grid)
            first = jnp.maximum(jnp.min(jnp.where(keep, idx, grid)) - 1, 0)
            last = jnp.minimum(jnp.max(jnp.where(keep, idx, -1)) + 1, grid - 1)
            return s[first], s[last]

        lo, hi = jax.lax.fori_loop(0, zooms, zoom, (lo, hi))
        s = jnp.linspace(lo, hi, grid)
        v, _, _, _ = tilted(s)
        centre = s[jnp.argmax(v)]
        width = (hi - lo) / (grid - 1)

        # The peak and its scale: parabolas through three points, the spacing shrinking.
        def refine(_, state):
            c, delta, sigma = state
            three, _, _, _ = tilted(c + delta * jnp.array([-1.0, 0.0, 1.0]))
            second = three[0] - 2.0 * three[1] + three[2]
            concave = second < 0.0
            shift = jnp.where(concave, -0.5 * delta * (three[2] - three[0])
                              / jnp.where(concave, second, -1.0), 0.0)
            c = c + jnp.clip(shift, -delta, delta)
            sigma = jnp.where(concave, delta / jnp.sqrt(-jnp.where(concave, second, -1.0)),
                              sigma)
            return c, jnp.minimum(0.5 * delta, sigma), sigma

        centre, _, sigma = jax.lax.fori_loop(0, REFINE_STEPS, refine, (centre, width, width))
        centre = jnp.clip(centre, lo, hi)
        # Trapezoid rule in u, s = centre + σ sinh(u): spacing σh at the peak, growing
        # geometrically into the tails (which it turns double-exponential).
        u_lo = jnp.arcsinh((lo - centre) / sigma)
        u_hi = jnp.arcsinh((hi - centre) / sigma)
        u = jnp.linspace(u_lo, u_hi, nodes)
        s = centre + sigma * jnp.sinh(u)
        log_w = jnp.log((u_hi - u_lo) / (nodes - 1) * sigma * jnp.cosh(u))
        v, log_pb, y, covered = tilted(s)
        v = v + log_w
        log_pb = log_pb + log_w
        direct = logsumexp(v) / (alpha - 1.0)
        # ψ form on the same nodes (p_b's mass is inside them where the laws are close).
        delta = jnp.where(a != b, a - b, 1.0)
        log_mean_psi = log_psi_sum(alpha, log_pb, y, delta, jnp.ones_like(log_pb))
        psi_value = jnp.log1p(jnp.exp(log_mean_psi)) / (alpha - 1.0)
        use_psi = ((alpha - 1.0) * direct < 1e-3) & (a != b) & (b > 0)
        value = jnp.where(use_psi, psi_value, direct)
        edges = jnp.maximum(v[0], v[-1]) - jnp.max(v)  # includes the weights
        return value, jnp.all(covered), edges

    renyi = jax.jit(jax.vmap(renyi_one))
    density = jax.jit(log_densities)
    return renyi, density, {"log_anchor": log_anchor, "log_poisson": log_poisson, "phi1p": phi1p}


def _fixture_rows():
    path = os.path.join(_common.REPO_ROOT, "tests", "fixtures", "release_k1.json")
    with open(path) as f:
        return json.load(f)["renyi"]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=64)
    parser.add_argument("--grid", type=int, default=48)
    parser.add_argument("--nodes", type=int, default=96)
    parser.add_argument("--zooms", type=int, default=3)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    _common.import_fisherrdp()
    import jax

    from fisherrdp.divergences import renyi_ncx2, renyi_release_k1

    def renyi(*cols):
        return evaluate(*cols, grid=args.grid, zooms=args.zooms, nodes=args.nodes)

    rows = _fixture_rows()
    cols = [np.asarray([float(r[k]) for r in rows]) for k in ("alpha", "d", "n_syn", "a", "b")]
    t0 = time.perf_counter()
    value, covered, edges = renyi(*cols)
    first = time.perf_counter() - t0
    print(f"first call (compile + {len(rows)} fixture rows): {first:.1f} s")
    worst = 0.0
    for r, v, c, e in zip(rows, np.asarray(value), np.asarray(covered), np.asarray(edges)):
        rel = abs(v - r["value"]) / abs(r["value"])
        worst = max(worst, rel)
        print(f"  α={r['alpha']:<6g} d={r['d']:<7g} n={r['n_syn']:<7g} a={r['a']:<8g} "
              f"b={r['b']:<8g} ref={r['value']:.12e} rel={rel:.1e} covered={bool(c)} "
              f"edge={e:.0f}")
    print(f"worst relative error over {len(rows)} rows: {worst:.2e}")

    bench = __import__("bench_release_k1")
    p = bench.sample_points(args.points, 0)
    args_fin = [p[k] for k in ("alpha", "d", "n_syn", "a", "b")]
    renyi(*args_fin)
    t_cand = _common.median(_common.time_runs(lambda: renyi(*args_fin), args.runs))
    ref = np.asarray(renyi_release_k1(p["alpha"], p["d"], p["n_syn"], p["a"], p["b"]))
    t_kern = _common.median(_common.time_runs(lambda: np.asarray(
        renyi_release_k1(p["alpha"], p["d"], p["n_syn"], p["a"], p["b"])), args.runs))
    jax.block_until_ready(renyi_ncx2(p["alpha"], p["d"], p["a"], p["b"]))
    t_inf = _common.median(_common.time_runs(lambda: jax.block_until_ready(
        renyi_ncx2(p["alpha"], p["d"], p["a"], p["b"])), args.runs))
    cand = np.asarray(renyi(*args_fin)[0])
    rel = np.abs(cand - ref) / np.abs(ref)
    n = args.points
    print(f"points/s: candidate {n / t_cand:.1f}, kernel {n / t_kern:.1f}, renyi_ncx2 "
          f"{n / t_inf:.1f}; candidate / renyi_ncx2 = {t_inf / t_cand:.3f}; "
          f"candidate vs kernel: worst relative difference {rel.max():.1e}")
    _common.write_json(args.json, {
        "fixture_worst": worst, "candidate_points_per_s": n / t_cand,
        "kernel_points_per_s": n / t_kern, "renyi_ncx2_points_per_s": n / t_inf,
        "candidate_vs_kernel_worst": float(rel.max()),
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())

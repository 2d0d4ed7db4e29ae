"""Accuracy of every registered scan quantity in float32, against the same scan in float64.

For every registered quantity of :func:`fisherrdp.scan.quantities` (aliases skipped), a fixed
set of representative valid points (seeded, spanning the ranges the docstrings state and the
accountant uses) is evaluated twice with :func:`fisherrdp.scan.scan`, with ``dtype="float32"``
and ``dtype="float64"``, one fixed ``--chunk`` (so each quantity compiles once per dtype). The
inputs are rounded to float32 first and the float64 scan gets those same (float32-representable)
values, so only the arithmetic differs.

Reported per quantity and output, over the points where the float64 value is finite:

* ``rel max`` / ``rel med``: max and median of ``|f32 - f64| / |f64|`` where
  ``|f64| >= finfo(float32).tiny`` (a smaller reference cannot be represented in float32), also
  as a multiple of ``eps32 = finfo(float32).eps = 1.19e-7`` (``max/eps32``);
* ``mixed max``: max ``|f32 - f64| / max(1, |f64|)`` (the measure of the special-function
  accuracy tests for logarithms: absolute near 0, where a log of a number near 1 is small);
* ``abs max (ref~0)``: max ``|f32 - f64|`` where ``|f64| < finfo(float32).tiny`` (``n0`` points);
* ``f32 !fin``: float32 NaN/inf where float64 is finite (these points are left out of the errors
  above); ``f64 !fin``: points where the reference itself is not finite (not compared);
* an output marked ``(**float64** out)`` came back from the float32 scan in another dtype
  (it was not computed in float32 throughout);
* ``worst rel at``: the parameters of the point with the largest relative error, and the float64
  value there (the JSON also has ``worst_mixed_at``, and ``nonfinite_at`` for every point where
  float32 is NaN/inf; those points are also printed below the table).

Usage::

    python benchmarks/accuracy_scan_float32.py [--only NAME[,NAME]] [--chunk 64] [--seed 0]
        [--json PATH] [--cache-dir DIR]

``--cache-dir`` turns on JAX's persistent compilation cache there (off by default). The
``release_k1`` quantities get 8 points (their kernels are slow), the others 32-48.

Measured (jax 0.10.2, CPU, 2 shared cores; all 36 quantities: 707 s cold, 132 s with the
compilation cache warm), worst relative error over the points:

* at most ~8 eps32 (1e-6): the closed forms (``gaussian_renyi``, the ``theorem5*`` bounds,
  the Fisher bounds, ``ncx2_mean``/``var``, ...), ``bessel_ratio``, ``log_hyp0f1``; ``fisher`` and
  ``path_bound`` too, but they come back in **float64** from a float32 scan (the Fisher
  quadrature's float64 NumPy nodes promote the arithmetic), so they are not float32 kernels
  (their ``*_error`` outputs, ~1e-13 estimates, differ by up to 10% relative);
* ``log_bessel_i``/``log_bessel_ive``: 5e-7 absolute (mixed max); for v = 0 and x <~ 1 the
  float32 value is offset by -2^-21 = -4.8e-7 (log I_0(0) = -4.8e-7, not 0), so the relative
  error is unbounded where log I_0(x) ~ x^2/4 -> 0 (1.9 at x = 1e-3);
* ncx2 pdf/cdf/sf and their logs: 3e-5 to 1e-4 relative; 2e-5 absolute on the logs, at
  x, df, nc ~ 1e4 (the error grows with the size of the cancelling terms, ~x/2);
* ``renyi_ncx2``: 3.2e-2 (alpha = 1.54, d = 1e4, a = 47.41, b = 47.57, D = 6.1e-3); grows with
  d and b: at alpha = 2, a - b = 0.1: 2.4e-4 (d = 1, b = 100), 1.3e-3 (d = 1e4, b = 50),
  1.3e-2 (d = 1e4, b = 100); below 1e-4 for d <= 100, b <= 50;
* ``epsilon_for_delta_ncx2``: 6e-3 relative (5.5e-5 absolute) where eps is small (a ~ b):
  at delta = 1e-6, a - b = 1e-3: 2.2e-2 (d = 1, b = 100), 5.2e-2 (d = 1e4, b = 50), i.e. up
  to 8e-5 absolute in eps; at most 2.5e-4 relative for eps >= 0.2 and 2e-5 for eps >= 1;
* ``hockey_stick``/``privacy_profile`` at eps = 0 (the total variation): absolute error up to
  ~1e-6, so the relative error exceeds 1e-3 once delta(0) <~ 1e-3 and reaches 1 near 1e-7
  (d = 10, a = 1e-3, b = 0: 8.8e-8 vs 1.8e-7; d = 1000: -0.0 vs 8.9e-9); for eps > 0 small
  values keep ~1e-3 relative down to 1e-27, and values below ~1e-38 come out 0;
* ``renyi_release_k1``: NaN in float32 for n_syn = 1 (also 1.01) and d >= 2 (any b; seen at
  d = 2, 3, 5, 10, 100, 1000 and alpha = 1.01, 2), and for d = n_syn = 1 with b = 0 exactly;
  finite for n_syn >= 1.5, and for n_syn = 1 with d = 1, b > 0 or d = 1.5.
  ``hockey_stick_release_k1``: NaN at eps = 0 with n_syn = 1 and d = 2 (b = 0 or 0.5), or
  d = 1, b = 0; finite at eps = 0.5 there. Elsewhere both are within 6e-5 relative.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)

import jax  # noqa: E402

import fisherrdp  # noqa: E402,F401  (turns on x64)
from fisherrdp._src.scan.registry import resolve  # noqa: E402
from fisherrdp.scan import points, quantities, scan  # noqa: E402

EPS32 = float(np.finfo(np.float32).eps)
TINY32 = float(np.finfo(np.float32).tiny)


# ----------------------------------------------------------------------------------------------
# Points


def _logu(rng, lo, hi, n):
    return np.exp(rng.uniform(np.log(lo), np.log(hi), n))


def _unif(rng, lo, hi, n):
    return rng.uniform(lo, hi, n)


def _with(values, *edges):
    """``values`` with its first entries replaced by ``edges``."""
    values = np.array(values, np.float64)
    values[: len(edges)] = edges
    return values


def _dims(rng, n, hi=1e4):
    return _with(_logu(rng, 1.0, hi, n), 1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 100.0, hi)


def _alpha(rng, n, hi=32.0):
    return _with(_logu(rng, 1.01, hi, n), 1.01, 1.5, 2.0, 8.0, hi)


def _amplitudes(rng, n, hi=100.0, max_step=5.0):
    """Pairs (a, b): b in [0, hi], a = b ± step with step log-uniform in [1e-3, max_step]."""
    b = _with(_unif(rng, 0.0, hi, n), 0.0, 0.5, 1.0, 5.0, hi)
    step = _logu(rng, 1e-3, max_step, n) * rng.choice([-1.0, 1.0], n)
    a = np.abs(b + step)
    # A few independent pairs far apart, and a = b.
    k = max(1, n // 8)
    a[-k:] = _unif(rng, 0.0, hi, k)
    a[-k - 1] = b[-k - 1]
    return a, b


def _theta(rng, n, hi=100.0):
    half = n // 2
    t = np.concatenate([_unif(rng, 0.0, hi, n - half), _logu(rng, 1e-3, 10.0, half)])
    return _with(t, 0.0, 1e-3, 0.1, 1.0, hi)


def _bessel(rng, n):
    v = _with(_logu(rng, 1e-2, 5e3, n), 0.0, 0.0, 0.5, 1.0, 0.0, 49.0, 4999.0)
    x = _with(_logu(rng, 1e-3, 1e4, n), 0.0, 1e-3, 1.0, 0.0, 1e4, 7.0, 50.0)
    return {"v": v, "x": x}


def _ncx2(rng, n):
    df = _dims(rng, n)
    nc = _theta(rng, n) ** 2
    mean, sd = df + nc, np.sqrt(2.0 * (df + 2.0 * nc))
    z = _unif(rng, -4.0, 8.0, n)
    x = np.maximum(mean + z * sd, 1e-3 * mean)
    return {"x": x, "df": df, "nc": nc}


def _release(rng, n, first, first_values):
    a, b = _amplitudes(rng, n, hi=20.0, max_step=3.0)
    n_syn = _with(_logu(rng, 1.0, 1e4, n), 1.0, np.inf, 10.0, 1e4, np.inf)
    return {first: first_values, "d": _dims(rng, n, 1e3), "n_syn": n_syn, "a": a, "b": b}


def _thm52(rng, n):
    return {"alpha": _alpha(rng, n), "d": _dims(rng, n), "C": _with(_unif(rng, 0, 100, n), 0, 1),
            "delta": _with(_logu(rng, 1e-4, 5.0, n), 0.0, 0.1)}


def _thm54(rng, n):
    k = rng.choice([1.0, 2.0, 3.0, 5.0, 10.0], n)
    return {"alpha": _alpha(rng, n), "d": k * _dims(rng, n, 1e3), "k": k,
            "C": _with(_unif(rng, 0, 100, n), 0, 1),
            "delta": _with(_logu(rng, 1e-4, 5.0, n), 0.0, 0.1)}


def _thm53(rng, n):
    return {"path_length_sq": _with(_logu(rng, 1e-6, 1e2, n), 0.0),
            "rho": _with(_unif(rng, 0.0, 100.0, n), 0.0, 1.0),
            "m": np.floor(_dims(rng, n))}


def _thm51(rng, n):
    C = _with(_unif(rng, 0.0, 100.0, n), 0.0, 1.0)
    return {"d": _dims(rng, n), "w_norm": C * _with(rng.uniform(0, 1, n), 0.0, 1.0), "C": C}


def _fisher_d(rng, n):
    return {"d": _dims(rng, n), "theta": _theta(rng, n)}


def _pair(first, sample, max_step=5.0):
    def make(rng, n):
        a, b = _amplitudes(rng, n, max_step=max_step)
        return {first: sample(rng, n), "d": _dims(rng, n), "a": a, "b": b}

    return make


def _eps(rng, n):
    return _with(_unif(rng, 0.0, 5.0, n), 0.0, 0.1, 1.0, 5.0)


# name -> (number of points, sampler(rng, n) -> {param: array})
SPECS = {
    "log_bessel_i": (48, _bessel),
    "log_bessel_ive": (48, _bessel),
    "bessel_ratio": (48, _bessel),
    "log_hyp0f1": (48, lambda rng, n: {"b": _with(_logu(rng, 0.5, 5e3, n), 0.5, 1.5, 5000.0),
                                       "x": _with(_logu(rng, 1e-4, 1e6, n), 0.0, 1e6, 1.0)}),
    **{f"ncx2_{f}": (48, _ncx2) for f in ("logpdf", "pdf", "logcdf", "logsf", "cdf", "sf")},
    "ncx2_mean": (32, lambda rng, n: {"df": _dims(rng, n), "nc": _theta(rng, n) ** 2}),
    "ncx2_var": (32, lambda rng, n: {"df": _dims(rng, n), "nc": _theta(rng, n) ** 2}),
    "ncx2_amplitude_fisher": (48, _fisher_d),
    "renyi_ncx2": (48, _pair("alpha", _alpha)),
    "hockey_stick_ncx2": (48, _pair("eps", _eps)),
    "privacy_profile_ncx2": (48, _pair("eps", _eps)),
    "epsilon_for_delta_ncx2": (32, _pair(
        "delta", lambda rng, n: _with(_logu(rng, 1e-10, 0.1, n), 1e-10, 1e-6, 0.1))),
    "renyi_release_k1": (8, lambda rng, n: _release(rng, n, "alpha", _alpha(rng, n))),
    "hockey_stick_release_k1": (8, lambda rng, n: _release(rng, n, "eps", _eps(rng, n))),
    "gaussian_renyi": (32, lambda rng, n: {"alpha": _alpha(rng, n),
                                           "delta": _with(_unif(rng, -5, 5, n), 0.0, 1e-4)}),
    "path_bound_ncx2": (32, _pair("alpha", _alpha, max_step=2.0)),
    "theorem52_bound": (48, _thm52),
    "theorem52_bound_printed": (48, _thm52),
    "theorem53_fisher_bound": (32, _thm53),
    "theorem53_fisher_bound_printed": (32, _thm53),
    "theorem54_bound": (48, _thm54),
    "theorem54_bound_printed": (48, _thm54),
    "theorem51_envelope": (32, _thm51),
    "local_expansion_prop31": (32, lambda rng, n: {
        "alpha": _alpha(rng, n), "fisher": _with(rng.uniform(0, 1, n), 0.0, 1.0),
        "delta": _with(_logu(rng, 1e-4, 5.0, n), 0.0)}),
    "postprocessing_envelope": (32, lambda rng, n: {
        "alpha_prime": _alpha(rng, n, 63.0), "z": _unif(rng, 0, 100, n),
        "theta": _with(_unif(rng, 0, 100, n), 0.0)}),
    **{name: (32, _fisher_d) for name in (
        "fisher_lower_prop51", "fisher_upper_prop51", "fisher_upper_quadratic",
        "fisher_upper_idier_collewet", "fisher_upper_poincare", "fisher_upper_trivial")},
}


def _generic(name):
    """Points for a quantity without a spec, from its parameters' domains."""
    domains = resolve(name).domains

    def make(rng, n):
        out = {}
        for p in resolve(name).params:
            dom = domains.get(p)
            lo = getattr(dom, "lower", None)
            hi = getattr(dom, "upper", None)
            if lo is None and hi is None:
                v = _unif(rng, -5.0, 5.0, n)
            elif hi is not None and lo is not None:
                v = _unif(rng, lo, hi, n + 2)[1:-1] if hi - lo < 10 else _unif(rng, lo, hi, n)
                v = np.clip(v, np.nextafter(lo, hi), np.nextafter(hi, lo))
            else:
                base = lo if lo is not None else 0.0
                v = base + _logu(rng, 1e-3, 1e3, n)
            if dom is not None and dom.integer:
                v = np.ceil(v)
            out[p] = v
        return out

    return make


def point_set(name: str, seed: int = 0) -> tuple[dict[str, np.ndarray], bool]:
    """The points of ``name`` (rounded to float32, as float64 arrays), and whether generic."""
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    n, make = SPECS.get(name, (32, None))
    generic = make is None
    arrays = (_generic(name) if generic else make)(rng, n)
    params = resolve(name).params
    return {p: np.asarray(np.asarray(arrays[p], np.float32), np.float64) for p in params}, generic


# ----------------------------------------------------------------------------------------------
# Measurement


def registered_names() -> list[str]:
    """Registered quantities, aliases left out."""
    return [name for name, q in quantities().items()
            if "(alias of " not in q["description"]]


def _fmt_point(pts: dict[str, np.ndarray], i: int) -> str:
    return ", ".join(f"{k}={v[i]:.6g}" for k, v in pts.items())


def compare(ref: np.ndarray, got: np.ndarray, pts: dict[str, np.ndarray]) -> dict:
    """The error statistics of ``got`` (float32 scan) against ``ref`` (float64 scan)."""
    ref = np.asarray(ref, np.float64).reshape(len(ref), -1)
    got = np.asarray(got, np.float64).reshape(len(got), -1)
    ref_finite = np.isfinite(ref)
    bad = ref_finite & ~np.isfinite(got)
    ok = ref_finite & np.isfinite(got)
    big = ok & (np.abs(ref) >= TINY32)
    small = ok & (np.abs(ref) < TINY32)
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(ok, np.abs(got - ref), np.nan)
    rel = np.where(big, diff / np.where(big, np.abs(ref), 1.0), np.nan)
    mixed = np.where(ok, diff / np.maximum(1.0, np.abs(np.where(ok, ref, 0.0))), np.nan)
    out = {
        "points": int(ref.shape[0]),
        "values": int(ref.size),
        "n_rel": int(big.sum()),
        "rel_max": float(np.nanmax(rel)) if big.any() else None,
        "rel_median": float(np.nanmedian(rel)) if big.any() else None,
        "mixed_max": float(np.nanmax(mixed)) if ok.any() else None,
        "n_zero": int(small.sum()),
        "abs_max_zero": float(diff[small].max()) if small.any() else None,
        "f32_nonfinite": int(bad.sum()),
        "f64_nonfinite": int((~ref_finite).sum()),
    }
    out["rel_max_eps32"] = out["rel_max"] / EPS32 if out["rel_max"] is not None else None
    if big.any():
        i = int(np.unravel_index(np.nanargmax(rel), rel.shape)[0])
        out["worst_at"] = _fmt_point(pts, i)
        out["worst_f64"] = float(ref[i][np.nanargmax(rel[i])])
        out["worst_f32"] = float(got[i][np.nanargmax(rel[i])])
    if ok.any():
        i = int(np.unravel_index(np.nanargmax(mixed), mixed.shape)[0])
        out["worst_mixed_at"] = _fmt_point(pts, i)
    if bad.any():
        idx = np.nonzero(bad.any(axis=1))[0]
        out["nonfinite_at"] = [
            _fmt_point(pts, int(i)) + f" (f64={ref[i][bad[i]][0]:.6g}, f32={got[i][bad[i]][0]})"
            for i in idx
        ]
    return out


def measure(names=None, *, chunk: int = 64, seed: int = 0, log=print) -> list[dict]:
    """One row per (quantity, output); see the module docstring."""
    rows = []
    for name in names or registered_names():
        pts, generic = point_set(name, seed)
        grid = points(**pts)
        t0 = time.perf_counter()
        try:
            r64 = scan(name, grid, chunk=chunk, dtype="float64", progress=False)
            t1 = time.perf_counter()
            r32 = scan(name, grid, chunk=chunk, dtype="float32", progress=False)
        except Exception as exc:  # report and go on with the others
            rows.append({"quantity": name, "output": "-", "error": f"{type(exc).__name__}: {exc}"})
            log(f"{name}: FAILED {type(exc).__name__}: {exc}")
            continue
        t2 = time.perf_counter()
        for output in r64.outputs:
            rows.append({"quantity": name, "output": output, "generic_points": generic,
                         "seconds_f64": t1 - t0, "seconds_f32": t2 - t1,
                         "f32_scan_dtype": str(r32[output].dtype),
                         **compare(r64[output], r32[output], pts)})
        log(f"{name}: {len(pts[next(iter(pts))])} points, f64 {t1 - t0:.1f} s, "
            f"f32 {t2 - t1:.1f} s")
    return rows


def _e(x, fmt="{:.2e}"):
    return "-" if x is None else fmt.format(x)


def table(rows: list[dict]) -> str:
    head = ("| quantity | output | pts | rel max | rel med | max/eps32 | mixed max "
            "| abs max (ref~0) [n0] | f32 !fin | f64 !fin | worst rel at (f64 value) |")
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['quantity']} | - | - | ERROR: {r['error']} ||||||||")
            continue
        zero = "-" if not r["n_zero"] else f"{_e(r['abs_max_zero'])} [{r['n_zero']}]"
        worst = r.get("worst_at", "-")
        if "worst_f64" in r:
            worst += f" ({r['worst_f64']:.4g})"
        output = r["output"]
        if r["f32_scan_dtype"] != "float32":
            output += f" (**{r['f32_scan_dtype']}** out)"
        lines.append(
            f"| {r['quantity']}{' (generic pts)' if r['generic_points'] else ''} | {output} "
            f"| {r['points']} | {_e(r['rel_max'])} | {_e(r['rel_median'])} "
            f"| {_e(r['rel_max_eps32'], '{:.3g}')} | {_e(r['mixed_max'])} | {zero} "
            f"| {r['f32_nonfinite']} "
            f"| {r['f64_nonfinite']} | {worst} |"
        )
    return "\n".join(lines)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated quantity names (default: all)")
    parser.add_argument("--chunk", type=int, default=64, help="points per compiled call")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the rows as JSON to this path")
    parser.add_argument("--cache-dir", help="JAX persistent compilation cache directory")
    args = parser.parse_args(argv)
    if args.cache_dir:
        jax.config.update("jax_compilation_cache_dir", args.cache_dir)
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
    names = registered_names()
    if args.only:
        registered = quantities()
        wanted = [s.strip() for s in args.only.split(",") if s.strip()]
        unknown = [w for w in wanted if w not in registered]
        if unknown:
            parser.error(f"unknown quantity {', '.join(unknown)}")
        # An alias is measured under its own name (and with its points).
        names = [registered[w]["description"].rsplit("(alias of ", 1)[1].rstrip(")")
                 if "(alias of " in registered[w]["description"] else w for w in wanted]
    start = time.perf_counter()
    rows = measure(names, chunk=args.chunk, seed=args.seed,
                   log=lambda s: print(s, file=sys.stderr, flush=True))
    print(f"float32 vs float64 scans, jax {jax.__version__} on {jax.devices()}, "
          f"chunk={args.chunk}, seed={args.seed}, eps32={EPS32:.3g}, "
          f"total {time.perf_counter() - start:.0f} s\n")
    print(table(rows))
    notes = [(r["quantity"], r["output"], r["nonfinite_at"]) for r in rows if r.get("nonfinite_at")]
    if notes:
        print("\nfloat32 non-finite where float64 is finite:")
        for q, o, where in notes:
            for w in where:
                print(f"  {q}/{o}: {w}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"jax_version": jax.__version__, "chunk": args.chunk, "seed": args.seed,
                       "eps32": EPS32, "rows": rows}, fh, indent=1)
    return rows


if __name__ == "__main__":
    main()

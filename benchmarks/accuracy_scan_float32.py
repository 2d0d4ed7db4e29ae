"""float32 accuracy of every registered scan quantity, by the criterion of issue 27.

For every registered quantity of :func:`fisherrdp.scan.quantities` (aliases skipped), ``--points``
seeded points (default 10 000) are drawn over the quantity's documented range, in float64, the
range's edges included (``SPECS``: d ∈ [1, 1e4], θ, a, b ∈ [0, 100], a − b down to 1e-3 and
a = b, α ∈ (1, 256] for ``renyi``, ε ∈ [0, 5], δ ∈ [1e-12, 0.1], ...). Three scans with one
fixed chunk per quantity:

* ``ref``: float64 at the exact (float64) points;
* ``rounded``: float64 at the points rounded to float32 -- what rounding the *inputs* alone
  costs, ``|rounded - ref|``;
* ``got``: the float32 scan (``dtype="float32"``) at the rounded points.

A value passes where ``|got - ref| <= max(1e-5 |ref|, 10 |rounded - ref|, 1e-15)``: 1e-5
relative, or 10x the input-rounding error where the quantity is ill-conditioned (a ≈ b, large d),
or 1e-15 absolute for values that small. Where ``ref`` is ±inf ``got`` must be the same; where
``ref`` is NaN (outside the domain) the point is not counted; a NaN or inf from float32 where
``ref`` is finite fails.

Reported per quantity and output: the points, how many fail, the worst ``|got - ref| /
allowed`` (``ratio``, ≤ 1 passes) and where, the worst relative error, and how many points the
input rounding decides (``10 |rounded - ref| > 1e-5 |ref|``). ``--json`` writes the rows (the
committed measurement is ``tests/fixtures/float32.json``); ``--docs`` rewrites the
table of ``docs/howto/float32.md`` from that JSON (``tests/test_scan_float32.py`` checks that the
page and the JSON agree).

Usage::

    python benchmarks/accuracy_scan_float32.py [--only NAME[,NAME]] [--points 10000]
        [--release-points 512] [--seed 0] [--json PATH] [--docs JSON] [--cache-dir DIR]

The two finite-release quantities (``renyi_release_k1``, ``hockey_stick_release_k1``) get
``--release-points`` points (default 512): over their whole domain (the right tails of large a
and α, where a point takes up to seconds, included) their kernel averaged ~0.03 s a point on 2
CPU cores in float64 (2026-12-07: 15.6 s for 512 points), so three scans of 10 000 points would
take ~15 minutes more (on a GPU the full count is affordable). All 38 quantities take about 18 minutes on 2 cores; ``--json`` accumulates, one
quantity at a time, so a run can be split with ``--only`` or resumed.
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
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _common  # noqa: E402
import jax  # noqa: E402

import fisherrdp  # noqa: E402,F401  (turns on x64)
from fisherrdp._src.scan.registry import resolve  # noqa: E402
from fisherrdp.scan import points, quantities, scan  # noqa: E402

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


def _bessel_k(rng, n):
    """Any real order up to |v| = 1e7, x from 1e-30 to 1e8 (both regimes' edges first)."""
    v = _with(_logu(rng, 1e-2, 1e7, n) * rng.choice([-1.0, 1.0], n),
              0.0, 0.5, -0.5, 31.5, 22.6, 0.0, 1e4, 1e7, 6.6e6, 0.0)
    x = _with(_logu(rng, 1e-30, 1e8, n), 1e-30, 2.0, 2.0, 1.0, 22.6, 32.0, 1e-30, 1e7, 1e7, 0.0)
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


#: name -> sampler(rng, n) -> {param: float64 array}; the first entries are the range's edges.
SPECS = {
    "log_bessel_i": _bessel,
    "log_bessel_ive": _bessel,
    "bessel_ratio": _bessel,
    "log_bessel_k": _bessel_k,
    "log_bessel_kve": _bessel_k,
    "log_hyp0f1": lambda rng, n: {"b": _with(_logu(rng, 0.5, 5e3, n), 0.5, 1.5, 5000.0),
                                  "x": _with(_logu(rng, 1e-4, 1e6, n), 0.0, 1e6, 1.0)},
    **{f"ncx2_{f}": _ncx2 for f in ("logpdf", "pdf", "logcdf", "logsf", "cdf", "sf")},
    "ncx2_mean": lambda rng, n: {"df": _dims(rng, n), "nc": _theta(rng, n) ** 2},
    "ncx2_var": lambda rng, n: {"df": _dims(rng, n), "nc": _theta(rng, n) ** 2},
    "ncx2_amplitude_fisher": _fisher_d,
    "renyi_ncx2": _pair("alpha", lambda rng, n: _alpha(rng, n, 256.0)),
    "hockey_stick_ncx2": _pair("eps", _eps),
    "privacy_profile_ncx2": _pair("eps", _eps),
    "epsilon_for_delta_ncx2": _pair(
        "delta", lambda rng, n: _with(_logu(rng, 1e-12, 0.1, n), 1e-12, 1e-10, 1e-6, 0.1)),
    "renyi_release_k1": lambda rng, n: _release(rng, n, "alpha", _alpha(rng, n)),
    "hockey_stick_release_k1": lambda rng, n: _release(rng, n, "eps", _eps(rng, n)),
    "gaussian_renyi": lambda rng, n: {"alpha": _alpha(rng, n, 256.0),
                                      "delta": _with(_unif(rng, 0.0, 5.0, n), 0.0, 1e-4)},
    "path_bound_ncx2": _pair("alpha", _alpha, max_step=2.0),
    "theorem52_bound": _thm52,
    "theorem52_bound_printed": _thm52,
    "theorem53_fisher_bound": _thm53,
    "theorem53_fisher_bound_printed": _thm53,
    "theorem54_bound": _thm54,
    "theorem54_bound_printed": _thm54,
    "theorem51_envelope": _thm51,
    "local_expansion_prop31": lambda rng, n: {
        "alpha": _alpha(rng, n), "fisher": _with(rng.uniform(0, 1, n), 0.0, 1.0),
        "delta": _with(_logu(rng, 1e-4, 5.0, n), 0.0)},
    "postprocessing_envelope": lambda rng, n: {
        "alpha_prime": _alpha(rng, n, 63.0), "z": _unif(rng, 0, 100, n),
        "theta": _with(_unif(rng, 0, 100, n), 0.0)},
    **{name: _fisher_d for name in (
        "fisher_lower_prop51", "fisher_upper_prop51", "fisher_upper_quadratic",
        "fisher_upper_idier_collewet", "fisher_upper_poincare", "fisher_upper_trivial")},
}
#: The quantities measured on ``--release-points`` points (see the module docstring).
RELEASE = ("renyi_release_k1", "hockey_stick_release_k1")
#: The criterion: max(REL |ref|, ROUNDING x the input-rounding error, ABS).
REL, ROUNDING, ABS = 1e-5, 10.0, 1e-15


def point_set(name: str, n: int, seed: int = 0) -> dict[str, np.ndarray]:
    """``n`` float64 points of ``name`` (the range's edges first), one array per parameter."""
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    make = SPECS.get(name)
    if make is None:
        raise KeyError(f"no points for {name!r}: add it to SPECS")
    arrays = make(rng, n)
    return {p: np.asarray(arrays[p], np.float64) for p in resolve(name).params}


def rounded(pts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The points rounded to float32 (as float64 arrays)."""
    return {p: np.asarray(np.asarray(v, np.float32), np.float64) for p, v in pts.items()}


# ----------------------------------------------------------------------------------------------
# Measurement


def registered_names() -> list[str]:
    """Registered quantities, aliases left out."""
    return [name for name, q in quantities().items()
            if "(alias of " not in q["description"]]


def _fmt_point(pts: dict[str, np.ndarray], i: int) -> str:
    return ", ".join(f"{k}={v[i]:.9g}" for k, v in pts.items())


def compare(ref, rnd, got, pts: dict[str, np.ndarray]) -> dict:
    """The criterion and error statistics of ``got`` against ``ref`` (module docstring)."""
    ref, rnd, got = (np.asarray(x, np.float64).reshape(len(x), -1) for x in (ref, rnd, got))
    counted = ~np.isnan(ref)
    with np.errstate(invalid="ignore", over="ignore"):
        finite = np.isfinite(ref) & np.isfinite(got)
        err = np.where(finite, np.abs(got - ref), np.inf)
        # Beyond float32's range the correctly rounded float32 value is ±inf.
        overflow = np.abs(ref) > float(np.finfo(np.float32).max)
        err = np.where(overflow & (got == np.sign(ref) * np.inf), 0.0, err)
        rounding = np.where(np.isfinite(rnd) & np.isfinite(ref), np.abs(rnd - ref), 0.0)
        scale = np.where(np.isfinite(ref), np.abs(ref), 0.0)
        allowed = np.maximum(np.maximum(REL * scale, ROUNDING * rounding), ABS)
        ratio = np.where(counted, err / allowed, 0.0)
        rel = np.where(counted & ~overflow & (scale > 0), err / np.where(scale > 0, scale, 1.0), 0.0)
    fails = counted & (ratio > 1.0)
    worst = np.unravel_index(np.argmax(ratio), ratio.shape)
    worst_rel = np.unravel_index(np.argmax(rel), rel.shape)
    out = {
        "points": int(ref.shape[0]),
        "values": int(counted.sum()),
        "nan_reference": int((~counted).sum()),
        "fails": int(fails.sum()),
        "ratio_max": float(ratio.max()),
        "rel_max": float(rel.max()),
        "rel_median": float(np.median(rel[counted & (scale > 0)])) if (counted & (scale > 0)).any() else 0.0,
        "rounding_decides": int((counted & (ROUNDING * rounding > np.maximum(REL * scale, ABS))).sum()),
        "f32_nonfinite": int((counted & ~overflow & ~np.isfinite(got)).sum()),
        "beyond_float32": int((counted & overflow).sum()),
        "worst_at": _fmt_point(pts, int(worst[0])),
        "worst_ref": float(ref[worst]),
        "worst_got": float(got[worst]),
        "worst_rounding": float(rounding[worst]),
        "worst_rel_at": _fmt_point(pts, int(worst_rel[0])),
        "worst_rel_ref": float(ref[worst_rel]),
    }
    if fails.any():
        rows = np.nonzero(fails.any(axis=1))[0]
        out["failing_at"] = [_fmt_point(pts, int(i)) for i in rows[:20]]
    return out


def measure(names=None, *, points_per_quantity: int = 10_000, release_points: int = 512,
            seed: int = 0, log=print) -> list[dict]:
    """One row per (quantity, output); see the module docstring."""
    rows = []
    for name in names or registered_names():
        n = release_points if name in RELEASE else points_per_quantity
        exact = point_set(name, n, seed)
        near = rounded(exact)
        chunk = resolve(name).chunk
        times = {}
        results = {}
        try:
            for key, cols, dtype in (("ref", exact, "float64"), ("rounded", near, "float64"),
                                     ("got", near, "float32")):
                t0 = time.perf_counter()
                results[key] = scan(name, points(**cols), chunk=chunk, dtype=dtype,
                                    progress=False)
                times[key] = time.perf_counter() - t0
        except Exception as exc:  # noqa: BLE001 - report and go on with the others
            rows.append({"quantity": name, "output": "-", "quantity_outputs": ["-"],
                         "error": f"{type(exc).__name__}: {exc}"})
            log(f"{name}: FAILED {type(exc).__name__}: {exc}")
            continue
        outputs = results["ref"].outputs
        for output in outputs:
            got = results["got"][output]
            row = {"quantity": name, "output": output, "quantity_outputs": list(outputs),
                   "chunk": chunk, "seconds": sum(times.values()),
                   "seconds_f64": times["ref"], "seconds_f32": times["got"],
                   "f32_dtype": str(got.dtype)}
            value = output.removesuffix("_error")
            if output != value and value in outputs:
                # An error estimate: of float32's own error, so not compared with float64's.
                # Reported: how often it covers the float32 value's actual error at the same
                # (rounded) inputs.
                actual = np.abs(np.asarray(results["got"][value], np.float64)
                                - results["rounded"][value])
                row["estimate_covers"] = float(np.mean(actual <= np.asarray(got, np.float64)))
            else:
                row.update(compare(results["ref"][output], results["rounded"][output], got,
                                   exact))
            rows.append(row)
        worst = max(r.get("ratio_max", 0.0) for r in rows if r["quantity"] == name)
        log(f"{name}: {n} points, f64 {times['ref']:.1f} s, f32 {times['got']:.1f} s, "
            f"worst ratio {worst:.3g}")
    return rows


def _e(x, fmt="{:.1e}"):
    return "-" if x is None else fmt.format(x)


def table(rows: list[dict]) -> str:
    """The Markdown table of the documentation page, from the rows."""
    head = ("| quantity | output | points | fail | worst err / allowed | max rel err "
            "| median rel err | rounding decides | worst at (float64 value) |")
    lines = [head, "|" + "---|" * head.count(" | ") + "---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['quantity']} | - | - | ERROR: {r['error']} ||||||")
            continue
        output = r["output"] if r["f32_dtype"] == "float32" else f"{r['output']} ({r['f32_dtype']})"
        if "estimate_covers" in r:
            lines.append(f"| {r['quantity']} | {output} | error estimate: covers float32's "
                         f"own error (at the rounded inputs) at {100 * r['estimate_covers']:.1f} % "
                         "of the points "
                         "|||||||")
            continue
        lines.append(
            f"| {r['quantity']} | {output} | {r['points']} | {r['fails']} | {r['ratio_max']:.2g} "
            f"| {_e(r['rel_max'])} | {_e(r['rel_median'])} | {r['rounding_decides']} "
            f"| {r['worst_at']} ({r['worst_ref']:.4g}) |")
    return "\n".join(lines)


DOCS_PAGE = os.path.join(REPO_ROOT, "docs", "howto", "float32.md")
BEGIN, END = "<!-- float32 table: begin -->", "<!-- float32 table: end -->"


def docs_table(measurement: dict) -> str:
    """The block of ``docs/howto/float32.md`` between the markers, from a ``--json`` file."""
    rows = measurement["rows"]
    return (f"Measured with jax {measurement['jax_version']} on {measurement['device']}: "
            f"{measurement['points']} points per quantity ({measurement['release_points']} for "
            f"the finite releases), seed {measurement['seed']}, "
            f"`python benchmarks/accuracy_scan_float32.py --json tests/fixtures/"
            f"float32.json` ({measurement['seconds']:.0f} s).\n\n" + table(rows))


def write_docs(json_path: str) -> None:
    """Rewrite the table of ``docs/howto/float32.md`` from the measurement ``json_path``."""
    with open(json_path) as fh:
        measurement = json.load(fh)
    _common.write_block(DOCS_PAGE, BEGIN, END, docs_table(measurement))


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="comma-separated quantity names (default: all)")
    parser.add_argument("--points", type=int, default=10_000, help="points per quantity")
    parser.add_argument("--release-points", type=int, default=512,
                        help="points for the two finite-release quantities")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", help="also write the rows as JSON to this path")
    parser.add_argument("--docs", metavar="JSON",
                        help="only rewrite docs/howto/float32.md's table from this measurement")
    parser.add_argument("--cache-dir", help="JAX persistent compilation cache directory")
    args = parser.parse_args(argv)
    if args.docs:
        write_docs(args.docs)
        return []
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
    device = f"{jax.devices()[0].platform} ({os.cpu_count()} cores)"
    settings = {"jax_version": jax.__version__, "device": device, "points": args.points,
                "release_points": args.release_points, "seed": args.seed}
    # --json accumulates: rows of quantities measured before (with the same settings) are
    # kept, a quantity measured now replaces its rows, and the file is written after each one.
    kept = {"rows": []}
    if args.json and os.path.exists(args.json):
        with open(args.json) as fh:
            before = json.load(fh)
        if all(before.get(k) == v for k, v in settings.items()):
            kept = before
    rows = []

    def save(quantity_rows):
        rows.extend(quantity_rows)
        if not args.json:
            return
        done = {r["quantity"] for r in rows}
        order = {name: i for i, name in enumerate(registered_names())}
        every = sorted([r for r in kept["rows"] if r["quantity"] not in done] + rows,
                       key=lambda r: order.get(r["quantity"], len(order)))
        seconds = sum(r.get("seconds", 0.0) for r in every
                      if r["output"] == r["quantity_outputs"][0])
        with open(args.json, "w") as fh:
            json.dump({**settings, "seconds": seconds, "rows": every}, fh, indent=1)

    start = time.perf_counter()
    for name in names:
        save(measure([name], points_per_quantity=args.points, release_points=args.release_points,
                     seed=args.seed, log=lambda s: print(s, file=sys.stderr, flush=True)))
    seconds = time.perf_counter() - start
    print(f"float32 against float64, jax {jax.__version__} on {device}, {args.points} points "
          f"per quantity, seed {args.seed}, {seconds:.0f} s\n")
    print(table(rows))
    failing = [(r["quantity"], r["output"], r["failing_at"]) for r in rows if r.get("failing_at")]
    if failing:
        print("\nfailing points (first 20 per output):")
        for q, o, where in failing:
            for w in where:
                print(f"  {q}/{o}: {w}")
    return rows


if __name__ == "__main__":
    main()

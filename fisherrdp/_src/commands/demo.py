"""``fisherrdp demo``: log I_v(x) from fisherrdp, SciPy and mpmath, side by side.

The default (v, x) pairs include points where SciPy cannot give the answer in float64:
``iv`` overflows to ``inf`` for large x, ``ive`` underflows to 0 for large orders (so
``log(ive) + x`` is ``-inf``), while the logarithm itself is an ordinary number.
"""

from __future__ import annotations

import argparse
import math

NAME = "demo"
HELP = "compare log I_v(x) from fisherrdp with SciPy and mpmath on a few hard points"

#: (v, x) pairs shown by default: easy ones, then ones SciPy gets wrong in float64.
DEFAULT_POINTS: tuple[tuple[float, float], ...] = (
    (0.0, 1.0),
    (2.5, 10.0),
    (-0.5, 1e-8),
    (999.0, 50.0),  # ive underflows; iv underflows too
    (0.5, 1e5),  # iv overflows; log(ive) + x is fine
    (4000.0, 3000.0),  # ive underflows, iv is fine
    (2500.0, 2500.0),  # iv overflows and ive underflows
    (5000.0, 1e-10),  # both underflow
    (10.0, 1e6),  # iv overflows
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--point",
        metavar="V,X",
        action="append",
        type=_parse_point,
        help="a (v, x) pair to show instead of the defaults; may be repeated",
    )
    parser.add_argument(
        "--dps", type=int, default=30, help="mpmath decimal digits for the reference (default 30)"
    )


def _parse_point(text: str) -> tuple[float, float]:
    try:
        v, x = (float(s) for s in text.split(","))
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"expected V,X (two numbers), got {text!r}") from e
    return v, x


def mpmath_log_bessel_i(v: float, x: float, dps: int = 30) -> float:
    """log I_v(x) by mpmath at ``dps`` digits, rounded to float (needs mpmath)."""
    import mpmath

    with mpmath.workdps(dps):
        value = mpmath.besseli(mpmath.mpf(v), mpmath.mpf(x), maxterms=10**6)
        return float(mpmath.log(value))


def reference_table(points, dps: int = 30) -> list[dict]:
    """One row per (v, x): fisherrdp, SciPy's two routes, and mpmath (``None`` without it)."""
    import numpy as np
    import scipy.special as sc

    from fisherrdp import special

    try:
        import mpmath  # noqa: F401

        have_mpmath = True
    except ImportError:
        have_mpmath = False

    v = np.array([p[0] for p in points], dtype=np.float64)
    x = np.array([p[1] for p in points], dtype=np.float64)
    ours = np.asarray(special.log_bessel_i(v, x))
    with np.errstate(all="ignore"):
        scipy_iv = np.log(sc.iv(v, x))
        scipy_ive = np.log(sc.ive(v, x)) + x
    rows = []
    for i, (vi, xi) in enumerate(points):
        ref = mpmath_log_bessel_i(vi, xi, dps) if have_mpmath else None
        rows.append(
            dict(
                v=float(vi),
                x=float(xi),
                fisherrdp=float(ours[i]),
                scipy_log_iv=float(scipy_iv[i]),
                scipy_log_ive_plus_x=float(scipy_ive[i]),
                mpmath=ref,
            )
        )
    return rows


def _rel_err(value: float, ref: float | None) -> str:
    if ref is None:
        return "-"
    if not math.isfinite(value):
        return "FAIL"
    return f"{abs(value - ref) / max(1.0, abs(ref)):.1e}"


def run(args: argparse.Namespace) -> int:
    points = args.point or DEFAULT_POINTS
    rows = reference_table(points, args.dps)
    have_mpmath = rows[0]["mpmath"] is not None

    header = (
        f"{'v':>8} {'x':>8} | {'fisherrdp':>22} {'scipy log(iv)':>22} "
        f"{'scipy log(ive)+x':>22} | {'mpmath':>22} | {'err ours':>8} {'err iv':>8} {'err ive':>8}"
    )
    print("log I_v(x): fisherrdp.special.log_bessel_i vs SciPy vs mpmath")
    print("err = |value - mpmath| / max(1, |mpmath|); FAIL = SciPy returned inf/-inf/nan\n")
    print(header)
    print("-" * len(header))
    for r in rows:
        ref = r["mpmath"]
        ref_s = f"{ref:22.15g}" if ref is not None else f"{'(no mpmath)':>22}"
        print(
            f"{r['v']:>8g} {r['x']:>8g} | {r['fisherrdp']:22.15g} {r['scipy_log_iv']:22.15g} "
            f"{r['scipy_log_ive_plus_x']:22.15g} | {ref_s} | "
            f"{_rel_err(r['fisherrdp'], ref):>8} {_rel_err(r['scipy_log_iv'], ref):>8} "
            f"{_rel_err(r['scipy_log_ive_plus_x'], ref):>8}"
        )
    if not have_mpmath:
        print("\nnote: mpmath is not installed, so no reference column; pip install mpmath")
    return 0

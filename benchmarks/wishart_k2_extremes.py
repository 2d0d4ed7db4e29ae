"""The exact k = 2 divergence at large d and α, against exact references (an accuracy scan).

``renyi_ncwishart_gram`` against two exact formulas in terms of ``renyi_ncx2``
(``docs/math/wishart_k2.md#where-the-tilted-peak-is``):

1. *Rank one, collinear*: Ω_v = a² uu^T, Ω_w = b² uu^T (u oblique, (0.6, 0.8)) is the k = 1
   divergence ``renyi_ncx2(α, d, a, b)`` (the rank-one reduction). Grid: d ∈ {2, 10, 100,
   1000, 1e4}, α ∈ {16, 64, 128, 256}, a ∈ {0.3, 1, 3, 10}, b ∈ {a/2, 0}, both orders (320
   pairs).
2. *Orthogonal rank one*: Ω_v = a² e₁e₁^T, Ω_w = b² e₂e₂^T gives
   ``renyi_ncx2(α, d, a, 0) + renyi_ncx2(α, d, 0, b)`` (``docs/math/worst_pair.md``). Grid: the
   same d, α ∈ {2, 16, 64, 128, 256}, (a, b) ∈ {(0.3, 0.3), (1, 1), (3, 1), (1, 3), (10, 5)}
   (125 pairs).

Printed per family: the pairs, the worst relative error, NaNs, and the pairs whose error the
returned error estimate does not cover (beyond 1e-12 of the reference). ``--json`` writes the
worst rows too.

Usage::

    python benchmarks/wishart_k2_extremes.py [--json PATH]
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

D = (2.0, 10.0, 100.0, 1000.0, 1e4)
COLLINEAR_ALPHA = (16.0, 64.0, 128.0, 256.0)
COLLINEAR_A = (0.3, 1.0, 3.0, 10.0)
ORTHOGONAL_ALPHA = (2.0, 16.0, 64.0, 128.0, 256.0)
ORTHOGONAL_AB = ((0.3, 0.3), (1.0, 1.0), (3.0, 1.0), (1.0, 3.0), (10.0, 5.0))


def cases() -> dict[str, tuple[np.ndarray, ...]]:
    """(α, d, Ω_v, Ω_w, a, b) per family, as arrays."""
    unit = np.array([0.6, 0.8])
    collinear = [(al, d, x, y) for d, al, a in itertools.product(D, COLLINEAR_ALPHA, COLLINEAR_A)
                 for b in (a / 2, 0.0) for x, y in ((a, b), (b, a))]
    orthogonal = [(al, d, a, b) for d, al, (a, b) in
                  itertools.product(D, ORTHOGONAL_ALPHA, ORTHOGONAL_AB)]
    out = {}
    for name, rows in (("collinear", collinear), ("orthogonal", orthogonal)):
        al, d, a, b = (np.array(c) for c in zip(*rows))
        if name == "collinear":
            om_v = (a * a)[:, None, None] * np.outer(unit, unit)
            om_w = (b * b)[:, None, None] * np.outer(unit, unit)
        else:
            om_v = np.zeros((a.size, 2, 2))
            om_w = np.zeros((a.size, 2, 2))
            om_v[:, 0, 0], om_w[:, 1, 1] = a * a, b * b
        out[name] = (al, d, om_v, om_w, a, b)
    return out


def _row(columns: dict[str, np.ndarray], i: int) -> dict[str, float]:
    return {name: float(values[i]) for name, values in columns.items()}


def run(quiet: bool = False) -> dict:
    _common.import_fisherrdp()
    from fisherrdp.divergences import renyi_ncwishart_gram, renyi_ncx2

    say = (lambda *a: None) if quiet else print
    out: dict = {}
    for name, (al, d, om_v, om_w, a, b) in cases().items():
        got, err = (np.asarray(x) for x in renyi_ncwishart_gram(al, d, om_v, om_w,
                                                                 return_error=True))
        if name == "collinear":
            want = np.asarray(renyi_ncx2(al, d, a, b))
        else:
            want = np.asarray(renyi_ncx2(al, d, a, 0.0)) + np.asarray(renyi_ncx2(al, d, 0.0, b))
        rel = np.abs(got - want) / want
        missed = ~(np.abs(got - want) <= err + 1e-12 * want)
        uncovered = int(np.sum(missed))
        worst = np.argsort(-np.nan_to_num(rel, nan=np.inf))[:5]
        columns = {"alpha": al, "d": d, "a": a, "b": b, "value": got, "reference": want,
                   "error_estimate": err}
        out[name] = {
            "pairs": int(rel.size),
            "worst_relative_error": float(np.nanmax(rel)),
            "nan": int(np.isnan(got).sum()),
            "uncovered": uncovered,
            "worst_rows": [_row(columns, i) for i in worst],
            "uncovered_rows": [_row(columns, i) for i in np.flatnonzero(missed)],
        }
        say(f"{name:10s} {rel.size} pairs: worst relative error {np.nanmax(rel):.1e}, "
            f"{out[name]['nan']} NaN, {uncovered} not covered by the error estimate")
        for r in out[name]["uncovered_rows"][:10]:
            say(f"  not covered: α = {r['alpha']:g}, d = {r['d']:g}, a = {r['a']:g}, "
                f"b = {r['b']:g}: {r['value']:.10g} against {r['reference']:.10g} "
                f"(estimate {r['error_estimate']:.1e})")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    results = run()
    results["environment"] = _common.environment()
    _common.write_json(args.json, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())

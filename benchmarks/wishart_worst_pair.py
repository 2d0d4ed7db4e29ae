"""Issue 14 evidence: is the worst admissible k = 2 pair rank one?

For each d ∈ {2, 5, 10, 50} and (C, Δ) ∈ {(1, 0.5), (2, 1), (3, 0.5)} (σ = 1) and
α ∈ {2, 8}, runs :meth:`fisherrdp.accounting.SyntheticReleaseMechanism.worst_pair_search`
(the k = 2 bracket's lower end: exact divergences at the rank-one worst pair, random boundary
pairs and a gradient ascent from the best of them; ``--budget`` multiplies the random pairs and
the gradient steps of the accountant's default search) and prints the
rigorous upper bound, the value found, the rank-one (k = 1) value, the best other candidate,
and whether the worst pair found is rank one. A value found is numerical evidence, not a
guarantee.

Usage::

    python benchmarks/wishart_worst_pair.py [--budget 2] [--json PATH] [--quiet]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

DIMS = (2, 5, 10, 50)
NORMS = ((1.0, 0.5), (2.0, 1.0), (3.0, 0.5))
ALPHAS = (2.0, 8.0)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=int, default=2, help="candidate multiplier (default 2)")
    parser.add_argument("--json", metavar="PATH")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    _common.import_fisherrdp()
    from fisherrdp._src.accounting import wishart_search
    from fisherrdp.accounting import SyntheticReleaseMechanism

    rows = []
    header = (f"{'d':>4} {'C':>4} {'Δ':>4} {'α':>4} | {'upper bound':>11} | {'found':>11} | "
              f"{'rank one':>11} | {'best other':>11} | rank one? | s")
    if not args.quiet:
        for line in _common.environment_lines():
            print(line)
        print(header)
        print("-" * len(header))
    for d in DIMS:
        for c, gap in NORMS:
            mech = SyntheticReleaseMechanism(d, 2, c, gap)
            start = time.perf_counter()
            k1 = SyntheticReleaseMechanism(d, 1, c, gap).rdp(list(ALPHAS), details=True)
            found = wishart_search.search_worst_pair(
                ALPHAS, d, c, gap, (k1.a, k1.b, k1.values),
                random_pairs=wishart_search.RANDOM_PAIRS * args.budget,
                gradient_steps=wishart_search.GRADIENT_STEPS * args.budget,
            )
            seconds = time.perf_counter() - start
            upper = mech.rdp(list(ALPHAS))
            for i, alpha in enumerate(ALPHAS):
                row = {
                    "d": d, "C": c, "Delta": gap, "alpha": alpha, "upper": float(upper[i]),
                    "found": float(found.values[i]), "rank_one": float(found.rank_one_values[i]),
                    "best_other": float(found.best_rank_two[i]),
                    "is_rank_one": bool(found.rank_one[i]),
                    "evaluations": found.evaluations, "seconds": seconds,
                }
                rows.append(row)
                if not args.quiet:
                    print(f"{d:>4} {c:>4g} {gap:>4g} {alpha:>4g} | {row['upper']:>11.5g} | "
                          f"{row['found']:>11.5g} | {row['rank_one']:>11.5g} | "
                          f"{row['best_other']:>11.5g} | {row['is_rank_one']!s:>9} | "
                          f"{seconds:.0f}")
    if not args.quiet:
        share = sum(r["is_rank_one"] for r in rows)
        print(f"\nworst pair found is rank one in {share} of {len(rows)} cases; largest best "
              f"other / rank one: {max(r['best_other'] / r['rank_one'] for r in rows):.4f}")
    _common.write_json(args.json, {"environment": _common.environment(), "rows": rows},
                       quiet=args.quiet)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

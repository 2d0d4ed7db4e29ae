"""Issue 45: the worst admissible k = 2 pair, searched wherever it is, and where the corner wins.

Three parts (σ = 1). The first two run
:func:`fisherrdp._src.accounting.wishart_search.search_worst_pair` (the search in the reduced
coordinates, ``docs/math/worst_pair.md``), whose values are exact divergences at pairs found — a
search result, not a guarantee:

* ``table``: the 8 rows of issue 45 (d, α, C, Δ), with the accountant's default search; each row
  also evaluates the rotated equal-norm pair v = (C, 0), w = C(cos φ, sin φ), ‖v − w‖_F = Δ, and
  the collinear corner (C, max(C − Δ, 0)) in both orders.
* ``map``: d ∈ MAP_DIMS, α ∈ MAP_ALPHAS, C ∈ MAP_NORMS, C/Δ ∈ MAP_RATIOS, with a shorter climb
  (``MAP_CLIMB_STEPS`` gradient steps): the family of the worst pair found and by how much it
  exceeds the collinear corner. The grid reaches the issue's d = 1e4 and α = 256: the cubature
  is checked there against exact rank-one and orthogonal references
  (``benchmarks/wishart_k2_extremes.py``; rank-two pairs in general have no exact reference
  there).

* ``local``: the limit Δ → 0 (the leading term α δᵀF(v)δ/2 of the divergence): at means v of
  Frobenius norm C with singular values in the ratio ``LOCAL_SHAPES`` (0: rank one), the largest
  eigenvalue of the Fisher information F(v) in the four coordinates of v's top 2 × 2 block (the
  others do not move vᵀv to first order), against the k = 1 Fisher information I(d, C) of the
  collinear (radial) direction; F from :func:`fisherrdp.fisher.wishart_path_fisher_exact` along
  straight paths (exact at θ = 0, relative accuracy 1e-8) by polarization.

Writes the JSON fixture ``tests/fixtures/wishart_worst_pair.json`` (held by
``tests/test_accounting_release.py``), the figure ``docs/math/worst_pair_map.png`` and the
generated tables of ``docs/math/worst_pair.md``.

Usage::

    python benchmarks/wishart_worst_pair.py [--part table|map|local|all] [--figure-only] [--quiet]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "wishart_worst_pair.json")
FIGURE = os.path.join(ROOT, "docs", "math", "worst_pair_map.png")
PAGE = os.path.join(ROOT, "docs", "math", "worst_pair.md")
#: The issue's rows: (d, α, C, Δ).
TABLE = (
    (50, 2.0, 1.0, 1.0),
    (10, 2.0, 1.0, 1.0),
    (10, 2.0, 1.0, 1.2),
    (10, 2.0, 1.0, math.sqrt(2.0)),
    (10, 2.0, 1.0, 0.5),
    (10, 2.0, 2.0, 1.0),
    (5, 8.0, 1.0, 1.0),
    (20, 2.0, 3.0, 2.5),
)
MAP_DIMS = (2, 10, 100, 1000, 10000)
MAP_ALPHAS = (2.0, 8.0, 256.0)
MAP_NORMS = (0.3, 1.0, 3.0)
MAP_RATIOS = (0.5, 0.75, 1.0, 1.5, 2.0, 5.0, 100.0)
MAP_CLIMB_STEPS = 4
LOCAL_DIMS = (2, 10, 100, 1000)
LOCAL_NORMS = (0.3, 1.0, 3.0, 10.0)
#: σ₂/σ₁ of the mean's singular values (0: rank one).
LOCAL_SHAPES = (0.0, 0.5, 1.0)
#: A family other than the corner "wins" only by more than this relative margin (the
#: cubature's accuracy is 1e-8; the climbs move rank-one starts by PERTURBATION).
WIN_MARGIN = 1e-6


def _rotated(alpha, d, c, gap):
    import numpy as np

    from fisherrdp.divergences import renyi_ncwishart

    phi = 2.0 * math.asin(min(gap / (2.0 * c), 1.0))
    v = np.array([[c, 0.0]])
    w = np.array([[c * math.cos(phi), c * math.sin(phi)]])
    return float(renyi_ncwishart(alpha, d, v, w))


def _row(found, i, **extra):
    return {
        **extra,
        "found": float(found.values[i]),
        "error": float(found.errors[i]),
        "family": str(found.family[i]),
        "family_values": [float(x) for x in found.family_values[i]],
        "corner": float(found.corner_values[i]),
        "v": found.v[i].tolist(),
        "w": found.w[i].tolist(),
        "gram_v": found.gram_v[i].tolist(),
        "gram_w": found.gram_w[i].tolist(),
        "bures_wasserstein": float(found.bures_wasserstein[i]),
    }


def run_table(quiet):
    from fisherrdp._src.accounting.wishart_search import search_worst_pair

    rows = []
    for d, alpha, c, gap in TABLE:
        start = time.perf_counter()
        found = search_worst_pair([alpha], d, c, gap)
        seconds = time.perf_counter() - start
        row = _row(found, 0, d=d, alpha=alpha, C=c, Delta=gap, seconds=seconds,
                   evaluations=found.evaluations, rotated=_rotated(alpha, d, c, gap))
        rows.append(row)
        if not quiet:
            print(f"d={d:<4} α={alpha:<3g} C={c:<3g} Δ={gap:<6.4g} found {row['found']:.9g} "
                  f"({row['family']}) rotated {row['rotated']:.9g} corner {row['corner']:.9g} "
                  f"{seconds:.1f} s", flush=True)
    return rows


def run_map(quiet):
    from fisherrdp._src.accounting.wishart_search import search_worst_pair

    rows = []
    for d in MAP_DIMS:
        for c in MAP_NORMS:
            for ratio in MAP_RATIOS:
                gap = c / ratio
                start = time.perf_counter()
                found = search_worst_pair(MAP_ALPHAS, d, c, gap, climb_steps=MAP_CLIMB_STEPS)
                seconds = time.perf_counter() - start
                for i, alpha in enumerate(MAP_ALPHAS):
                    row = _row(found, i, d=d, alpha=alpha, C=c, Delta=gap, ratio=ratio,
                               seconds=seconds / len(MAP_ALPHAS))
                    rows.append(row)
                    if not quiet:
                        print(f"d={d:<5} α={alpha:<3g} C={c:<3g} C/Δ={ratio:<5g} "
                              f"found/corner {row['found'] / row['corner']:.6f} "
                              f"({row['family']}) {seconds:.1f} s", flush=True)
    return rows


def local_fisher(d, c, shape):
    """Eigenvalues (ascending) of the Fisher information at v = diag(σ₁, σ₂) (padded to d rows),
    ‖v‖_F = c, σ₂ = shape·σ₁, in the coordinates of v's top 2 × 2 block: δᵀFδ is the Fisher
    information at θ = 0 of the straight path from v to v + δ; F by polarization."""
    import itertools

    import numpy as np

    from fisherrdp.fisher import wishart_path_fisher_exact

    s1 = c / math.sqrt(1.0 + shape * shape)
    v = np.zeros((d, 2))
    v[0, 0], v[1, 1] = s1, shape * s1
    basis = [np.eye(4)[i].reshape(2, 2) for i in range(4)]

    def quadratic(delta):
        w = v.copy()
        w[:2, :2] += delta
        return float(wishart_path_fisher_exact(v, w, 0.0, align=False))

    diagonal = [quadratic(b) for b in basis]
    fisher = np.diag(diagonal)
    for i, j in itertools.combinations(range(4), 2):
        fisher[i, j] = fisher[j, i] = 0.5 * (quadratic(basis[i] + basis[j])
                                             - diagonal[i] - diagonal[j])
    return np.linalg.eigvalsh(fisher).tolist()


def run_local(quiet):
    from fisherrdp.fisher import ncx2_amplitude_fisher

    rows = []
    for d in LOCAL_DIMS:
        for c in LOCAL_NORMS:
            radial = float(ncx2_amplitude_fisher(float(d), c))
            for shape in LOCAL_SHAPES:
                eigenvalues = local_fisher(d, c, shape)
                rows.append({"d": d, "C": c, "shape": shape, "radial": radial,
                             "eigenvalues": eigenvalues})
                if not quiet:
                    print(f"d={d:<5} C={c:<4g} σ₂/σ₁={shape:<3g} λ_max / I(d, C) "
                          f"{eigenvalues[-1] / radial:.9f}", flush=True)
    return rows


def local_markdown(rows) -> str:
    """Per (d, C): I(d, C), 1 − λ_max(F)/I(d, C) per shape, and at rank one the second
    eigenvalue (the rotation of the mean's direction) over I(d, C)."""
    shapes = " | ".join(f"1 − λ_max / I, σ₂/σ₁ = {s:g}" for s in LOCAL_SHAPES)
    lines = [f"| d | C | I(d, C) | {shapes} | rotation / I, rank one |",
             "|---|---|---|" + "---|" * len(LOCAL_SHAPES) + "---|"]
    for d in LOCAL_DIMS:
        for c in LOCAL_NORMS:
            cell = {r["shape"]: r for r in rows if r["d"] == d and r["C"] == c}
            radial = cell[LOCAL_SHAPES[0]]["radial"]
            ratios = " | ".join(f"{1.0 - cell[s]['eigenvalues'][-1] / radial:.1e}"
                                for s in LOCAL_SHAPES)
            rotation = cell[0.0]["eigenvalues"][-2] / radial
            lines.append(f"| {d} | {c:g} | {radial:.6f} | {ratios} | {rotation:.6f} |")
    return "\n".join(lines)


def corner_wins(row) -> bool:
    """Whether the worst pair found is the collinear corner (to ``WIN_MARGIN``)."""
    return row["found"] <= row["corner"] * (1.0 + WIN_MARGIN)


def table_markdown(rows) -> str:
    lines = ["| d | α | C | Δ | found | family | rotated pair | collinear corner "
             "| found / rotated |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        gap = "√2" if abs(r["Delta"] - math.sqrt(2.0)) < 1e-12 else f"{r['Delta']:g}"
        lines.append(f"| {r['d']} | {r['alpha']:g} | {r['C']:g} | {gap} | {r['found']:.9f} | "
                     f"{r['family']} | {r['rotated']:.9f} | {r['corner']:.9f} | "
                     f"{r['found'] / r['rotated']:.4f} |")
    return "\n".join(lines)


def map_markdown(rows) -> str:
    """Per C/Δ: in how many (d, α, C) cells the corner is the worst pair found, and the largest
    found / corner ratio with where it occurs."""
    lines = ["| C/Δ | corner is the worst found | largest found / corner | at (d, α, C) | family |",
             "|---|---|---|---|---|"]
    for ratio in MAP_RATIOS:
        sub = [r for r in rows if r["ratio"] == ratio]
        top = max(sub, key=lambda r: r["found"] / r["corner"])
        lines.append(f"| {ratio:g} | {sum(corner_wins(r) for r in sub)} of {len(sub)} | "
                     f"{top['found'] / top['corner']:.4f} | ({top['d']}, {top['alpha']:g}, "
                     f"{top['C']:g}) | {top['family']} |")
    return "\n".join(lines)


def draw(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    fig, axes = plt.subplots(len(MAP_ALPHAS), len(MAP_NORMS), figsize=(12, 6.5), sharex=True,
                             sharey=True, constrained_layout=True)
    marks = {"collinear": "", "rotated": "R", "orthogonal": "O", "rank_two": "2"}
    norm = matplotlib.colors.LogNorm(1.0, 3.0)
    for i, alpha in enumerate(MAP_ALPHAS):
        for j, c in enumerate(MAP_NORMS):
            ax = axes[i, j]
            grid = np.full((len(MAP_DIMS), len(MAP_RATIOS)), np.nan)
            for r in rows:
                if r["alpha"] == alpha and r["C"] == c:
                    y, x = MAP_DIMS.index(r["d"]), MAP_RATIOS.index(r["ratio"])
                    grid[y, x] = max(r["found"] / r["corner"], 1.0)
                    if not corner_wins(r):
                        ax.text(x, y, marks[r["family"]], ha="center", va="center", fontsize=9)
            image = ax.imshow(grid, origin="lower", cmap="magma_r", norm=norm, aspect="auto")
            ax.set_title(f"α = {alpha:g}, C = {c:g}", fontsize=10)
            ax.set_xticks(range(len(MAP_RATIOS)), [f"{x:g}" for x in MAP_RATIOS])
            ax.set_yticks(range(len(MAP_DIMS)), [str(x) for x in MAP_DIMS])
            if i == len(MAP_ALPHAS) - 1:
                ax.set_xlabel("C / Δ")
            if j == 0:
                ax.set_ylabel("d")
    fig.colorbar(image, ax=axes, label="worst found / collinear corner")
    fig.suptitle("k = 2: worst pair found by the search against the collinear corner "
                 "(search result; R rotated, O orthogonal, 2 rank two; blank: corner)")
    fig.savefig(path, dpi=80)
    plt.close(fig)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("table", "map", "local", "all"), default="all")
    parser.add_argument("--figure-only", action="store_true",
                        help="redraw the figure and the page's tables from the fixture")
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    data = {}
    if os.path.exists(FIXTURE):
        with open(FIXTURE) as fh:
            data = json.load(fh)
    if not args.figure_only:
        _common.import_fisherrdp()
        if not args.quiet:
            for line in _common.environment_lines():
                print(line)
        data["environment"] = _common.environment()
        if args.part in ("table", "all"):
            data["table"] = run_table(args.quiet)
        if args.part in ("local", "all"):
            start = time.perf_counter()
            data["local"] = run_local(args.quiet)
            data["local_seconds"] = time.perf_counter() - start
        if args.part in ("map", "all"):
            start = time.perf_counter()
            data["map"] = run_map(args.quiet)
            data["map_seconds"] = time.perf_counter() - start
        _common.write_json(FIXTURE, data, quiet=args.quiet)
    if "table" in data:
        _common.write_block(PAGE, "<!-- table: begin -->", "<!-- table: end -->",
                            table_markdown(data["table"]))
    if "local" in data:
        _common.write_block(PAGE, "<!-- local: begin -->", "<!-- local: end -->",
                            local_markdown(data["local"]))
    if "map" in data:
        draw(data["map"], FIGURE)
        _common.write_block(PAGE, "<!-- map: begin -->", "<!-- map: end -->",
                            map_markdown(data["map"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

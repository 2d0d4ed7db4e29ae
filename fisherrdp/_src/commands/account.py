"""``fisherrdp account``: privacy of a synthetic-data release next to the model release.

Prints a table of the RDP curves at standard orders, ε at the chosen δ (exact profiles and via
the RDP conversion), and the ratios; for k ≥ 2 also the lower end of the RDP bracket (the exact
divergence at the worst pair a search finds,
:meth:`~fisherrdp.accounting.SyntheticReleaseMechanism.worst_pair_search`); optionally the subsampled guarantee, the noise a target ε
needs (:func:`fisherrdp.accounting.calibrate_sigma`), a JSON report and a figure. See
:mod:`fisherrdp._src.accounting.synthetic`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys

import numpy as np

NAME = "account"
HELP = "RDP and (ε, δ) of a synthetic-data release, side by side with the model release"

#: Orders shown in the table.
STANDARD_ALPHAS = (1.5, 2.0, 3.0, 4.0, 8.0, 16.0, 32.0, 64.0)
#: Orders used for the RDP → (ε, δ) conversion rows: 64 orders, geometric in α − 1 from 0.05
#: to 4095 (consecutive orders 20% apart, so ε is within ~0.5% of the optimum over all orders).
#: A synthetic release's RDP is small and its optimal order large: 194 at d = 100,
#: sensitivity 0.1, δ = 1e-5. The synthetic row is :meth:`SyntheticReleaseMechanism.epsilon_via_rdp`
#: (the supremum over pairs only at the orders that can attain the minimum).
CONVERSION_ALPHAS = tuple(1.0 + np.geomspace(0.05, 4095.0, 64))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--d", type=float, default=100.0, help="model width d (default 100)")
    parser.add_argument("--k", type=int, default=1, help="record dimension k (default 1)")
    parser.add_argument("--C", type=float, default=1.0, help="norm bound C (default 1)")
    parser.add_argument(
        "--sensitivity",
        type=float,
        default=0.1,
        help="sensitivity Δ ≤ 2C (default 0.1)",
    )
    parser.add_argument("--sigma", type=float, default=1.0, help="noise scale σ (default 1)")
    parser.add_argument("--sigma-z", type=float, default=1.0, help="latent scale σ_z (default 1)")
    parser.add_argument(
        "--n-syn", type=float, default=math.inf, help="synthetic records (default inf)"
    )
    parser.add_argument("--delta", type=float, default=1e-5, help="target δ (default 1e-5)")
    parser.add_argument(
        "--alphas",
        type=_parse_floats,
        default=STANDARD_ALPHAS,
        help="comma-separated orders for the table (default 1.5,2,3,4,8,16,32,64)",
    )
    parser.add_argument(
        "--sampling-rate",
        type=float,
        help="also show the guarantee under Poisson subsampling with this rate q ∈ (0, 1]",
    )
    parser.add_argument(
        "--target-epsilon",
        type=float,
        help="also find the smallest σ meeting (target ε, δ), synthetic vs model release",
    )
    parser.add_argument(
        "--no-search",
        action="store_true",
        help="k >= 2: skip the search for the worst pair (the lower end of the RDP bracket)",
    )
    parser.add_argument("--json", metavar="PATH", help="also write the report as JSON")
    parser.add_argument(
        "--figure",
        metavar="PATH",
        help="also write a figure: both privacy profiles and RDP curves, and σ needed against d",
    )


def _parse_floats(text: str) -> tuple[float, ...]:
    try:
        return tuple(float(s) for s in text.split(","))
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from e


def _ratio(model: float, synthetic: float) -> float:
    return model / synthetic if synthetic > 0 else math.inf


def build_report(args: argparse.Namespace) -> dict:
    """Everything the command prints, as a JSON-ready dict."""
    import numpy as np

    from fisherrdp.accounting import (
        SyntheticReleaseMechanism,
        amplify_by_subsampling,
        calibrate_sigma,
        rdp_to_dp,
    )

    mech = SyntheticReleaseMechanism(
        args.d, args.k, args.C, args.sensitivity, args.sigma, args.sigma_z, args.n_syn
    )
    if not 0 < args.delta < 1:
        raise ValueError(f"argument '--delta' must be in (0, 1), got {args.delta}")
    q = args.sampling_rate
    if q is not None and not (0 < q <= 1 and args.delta / q < 1):
        raise ValueError(f"argument '--sampling-rate' must be in (delta, 1], got {q}")
    alphas = np.asarray(args.alphas, float)
    rdp = mech.rdp(alphas, details=True, search=not args.no_search)
    model_rdp = np.atleast_1d(mech.model_release_rdp(alphas))
    eps = mech.epsilon(args.delta, details=True)
    model_eps = float(mech.model_release_epsilon(args.delta))
    conv = np.asarray(CONVERSION_ALPHAS)
    syn_conv, syn_alpha = mech.epsilon_via_rdp(args.delta, conv)
    model_conv, model_alpha = rdp_to_dp(conv, np.asarray(mech.model_release_rdp(conv)), args.delta)
    report = {
        "mechanism": {
            "d": mech.d,
            "k": mech.k,
            "C": mech.C,
            "sensitivity": mech.sensitivity,
            "sigma": mech.sigma,
            "sigma_z": mech.sigma_z,
            "n_syn": "inf" if math.isinf(mech.n_syn) else mech.n_syn,
        },
        "method": rdp.method,
        "rdp": [
            {
                "alpha": float(a),
                "model": float(m),
                "synthetic": float(s),
                "ratio": _ratio(m, s),
            }
            for a, m, s in zip(alphas, model_rdp, rdp.values)
        ],
        "delta": args.delta,
        "epsilon": {
            "model": model_eps,
            "synthetic": float(eps.values[0]),
            "ratio": _ratio(model_eps, float(eps.values[0])),
        },
        "epsilon_via_rdp": {
            "model": model_conv,
            "model_alpha": model_alpha,
            "synthetic": syn_conv,
            "synthetic_alpha": syn_alpha,
        },
    }
    if mech.exact:
        report["worst_pair"] = {
            "norm_v": float(rdp.a[0]),
            "norm_w": float(rdp.b[0]),
            "at_corner_for_all_orders": bool(np.all(rdp.at_corner)),
            "interior_below_boundary": bool(np.all(rdp.interior_max <= rdp.values * (1 + 1e-11))),
        }
    if mech.k >= 2 and math.isinf(mech.n_syn) and not args.no_search:
        found = mech.worst_pair_search(alphas)
        for row, value, error in zip(report["rdp"], found.values, found.errors):
            row["synthetic_found"] = float(value)
            row["synthetic_found_error"] = float(error)
        report["found_pair"] = {
            "label": "exact divergence at the worst pair found by a search: a lower bound on "
            "the RDP, not a guarantee",
            "families": [str(f) for f in found.family],
            "corner_for_all_orders": bool(np.all(found.family == "collinear")),
            "evaluations_per_order": found.evaluations,
        }
    if q is not None:
        inner_syn = float(mech.epsilon(args.delta / q))
        inner_model = float(mech.model_release_epsilon(args.delta / q))
        syn_q, _ = amplify_by_subsampling(inner_syn, args.delta / q, q)
        model_q, _ = amplify_by_subsampling(inner_model, args.delta / q, q)
        report["subsampled"] = {
            "q": q,
            "model": float(model_q),
            "synthetic": float(syn_q),
            "ratio": _ratio(float(model_q), float(syn_q)),
        }
    if args.target_epsilon is not None:
        cal = calibrate_sigma(
            args.target_epsilon,
            args.delta,
            args.d,
            args.k,
            args.C,
            args.sensitivity,
            sigma_z=args.sigma_z,
            n_syn=args.n_syn,
        )
        report["calibration"] = {
            "target_epsilon": args.target_epsilon,
            "sigma": cal.sigma,
            "sigma_model": cal.sigma_model,
            "ratio": cal.ratio,
        }
    return report


def print_report(report: dict) -> None:
    m = report["mechanism"]
    print(
        f"synthetic release: d = {m['d']:g}, k = {m['k']}, C = {m['C']:g}, "
        f"sensitivity = {m['sensitivity']:g}, sigma = {m['sigma']:g}, n_syn = {m['n_syn']}"
    )
    exact = report["method"] == "exact"
    print(
        f"synthetic-release accounting: {'exact' if exact else 'upper bound, ' + report['method']}"
    )
    if "worst_pair" in report:
        w = report["worst_pair"]
        print(
            f"worst pair: ||v|| = {w['norm_v']:g}, ||w|| = {w['norm_w']:g} "
            f"(corner for every order: {w['at_corner_for_all_orders']}; interior pairs below it: "
            f"{w['interior_below_boundary']})"
        )
    found = report.get("found_pair")
    if found:
        print(
            f"found: {found['label']}; the worst pair found is the collinear corner "
            f"for every order: {found['corner_for_all_orders']} (families: "
            f"{', '.join(found['families'])}; {found['evaluations_per_order']} exact "
            f"divergences per order)"
        )
    print()
    header = f"{'alpha':>7} | {'model RDP':>12} | {'synthetic RDP':>13} | {'ratio':>8}"
    if found:
        header += f" | {'found (lower)':>13}"
    print(header)
    print("-" * len(header))
    for row in report["rdp"]:
        line = (
            f"{row['alpha']:>7g} | {row['model']:>12.6g} | {row['synthetic']:>13.6g} | "
            f"{row['ratio']:>8.3g}"
        )
        if found:
            line += f" | {row['synthetic_found']:>13.6g}"
        print(line)
    print()
    e, c = report["epsilon"], report["epsilon_via_rdp"]
    print(f"epsilon at delta = {report['delta']:g}:")
    print(
        f"  exact profiles:         model {e['model']:.6g}   synthetic {e['synthetic']:.6g}"
        f"   ratio {e['ratio']:.3g}"
    )
    print(f"  via RDP (Balle 2020):   model {c['model']:.6g}   synthetic {c['synthetic']:.6g}")
    if "subsampled" in report:
        s = report["subsampled"]
        print(
            f"  subsampled (q = {s['q']:g}):   model {s['model']:.6g}   synthetic "
            f"{s['synthetic']:.6g}   ratio {s['ratio']:.3g}"
        )
    if "calibration" in report:
        k = report["calibration"]
        print(
            f"\nnoise for (epsilon, delta) = ({k['target_epsilon']:g}, {report['delta']:g}): "
            f"synthetic sigma = {k['sigma']:.6g}, model sigma = {k['sigma_model']:.6g} "
            f"(ratio {k['ratio']:.3g})"
        )


def write_figure(args: argparse.Namespace, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from fisherrdp import figures
    from fisherrdp.accounting import SyntheticReleaseMechanism

    mech = SyntheticReleaseMechanism(
        args.d, args.k, args.C, args.sensitivity, args.sigma, args.sigma_z, args.n_syn
    )
    fig = figures.privacy_profiles_figure(figures.privacy_profiles_data(mech))
    target = args.target_epsilon
    if target is None:
        target = float(mech.model_release_epsilon(args.delta))
    sigma_data = figures.sigma_vs_dimension_data(
        target_epsilon=target,
        target_delta=args.delta,
        k=args.k,
        C=args.C,
        sensitivity=args.sensitivity,
        d_values=[d for d in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if d >= args.k],
    )
    root, ext = os.path.splitext(path)
    ext = ext or ".png"
    fig.savefig(root + ext, dpi=120)
    figures.sigma_vs_dimension_figure(sigma_data).savefig(f"{root}_sigma{ext}", dpi=120)
    print(f"wrote {root}{ext} and {root}_sigma{ext}")


def run(args: argparse.Namespace) -> int:
    try:
        report = build_report(args)
    except ValueError as e:
        print(f"fisherrdp account: error: {e}", file=sys.stderr)
        return 2
    print_report(report)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
        print(f"\nwrote {args.json}")
    if args.figure:
        write_figure(args, args.figure)
    return 0

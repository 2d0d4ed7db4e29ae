"""``fisherrdp estimate``: estimate the privacy loss of a synthetic release from samples.

Trains the variational Rényi estimator (:func:`fisherrdp.variational.estimate_renyi`) on
releases drawn by :func:`fisherrdp.release.release_samplers` (parameters ``v = ‖v‖ e₁e₁ᵀ``,
``w = ‖w‖ e₁e₁ᵀ`` in R^{d×k}, σ = σ_z = 1) and prints the estimate of D_α(ZV‖ZW) with its 95%
interval. Where the exact value is known it is printed too, with the relative error: k = 1 and
finite ``n_syn`` by :func:`fisherrdp.divergences.renyi_release_k1` (when installed), and
``n_syn = inf`` (any k: the parameters are rank one, so the loss is that of k = 1) by
:func:`fisherrdp.divergences.renyi_ncx2`. Exit status 2 for bad options, else 0.
"""

from __future__ import annotations

import argparse
import json
import math
import sys

NAME = "estimate"
HELP = "estimate D_alpha of a synthetic release by the variational (convex-conjugate) estimator"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--k", type=int, default=1, help="columns of v, w (default 1)")
    parser.add_argument("--d", type=int, default=5, help="rows of v, w (default 5)")
    parser.add_argument(
        "--n-syn",
        type=float,
        default=100.0,
        help="synthetic records, a number >= k or 'inf' (default 100)",
    )
    parser.add_argument("--v-norm", type=float, default=2.0, help="‖v‖_F (default 2)")
    parser.add_argument("--w-norm", type=float, default=1.5, help="‖w‖_F (default 1.5)")
    parser.add_argument("--alpha", type=float, default=2.0, help="Rényi order > 1 (default 2)")
    parser.add_argument("--steps", type=int, default=2000, help="training steps (default 2000)")
    parser.add_argument(
        "--n-eval", type=int, default=200_000, help="held-out samples per law (default 200000)"
    )
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--no-exact", action="store_true", help="skip the exact value")
    parser.add_argument("--progress", action="store_true", help="show a training progress bar")
    parser.add_argument("--json", metavar="PATH", help="also write the result as JSON")


def exact_value(args: argparse.Namespace) -> tuple[float | None, str | None]:
    """The exact D_α where fisherrdp can compute it, and the function used (else None, None)."""
    if math.isinf(args.n_syn):
        from fisherrdp.divergences import renyi_ncx2

        return float(renyi_ncx2(args.alpha, args.d, args.v_norm, args.w_norm)), "renyi_ncx2"
    if args.k == 1:
        try:
            from fisherrdp.divergences import renyi_release_k1
        except ImportError:
            return None, None
        value = float(renyi_release_k1(args.alpha, args.d, args.n_syn, args.v_norm, args.w_norm))
        return value, "renyi_release_k1"
    return None, None


def run(args: argparse.Namespace) -> int:
    import jax

    from fisherrdp.release import release_samplers
    from fisherrdp.variational import estimate_renyi

    try:
        if not args.alpha > 1.0 or not math.isfinite(args.alpha):
            raise ValueError(f"--alpha must be a finite number > 1, got {args.alpha}")
        sample_p, sample_q = release_samplers(args.k, args.d, args.n_syn, args.v_norm, args.w_norm)
        result = estimate_renyi(
            sample_p,
            sample_q,
            args.alpha,
            key=jax.random.key(args.seed),
            steps=args.steps,
            n_eval=args.n_eval,
            progress=args.progress,
        )
    except ValueError as e:
        print(f"fisherrdp estimate: error: {e}", file=sys.stderr)
        return 2
    exact, source = (None, None) if args.no_exact else exact_value(args)
    print(
        f"D_{args.alpha:g}(ZV ‖ ZW): k={args.k}, d={args.d}, n_syn={args.n_syn:g}, "
        f"‖v‖={args.v_norm:g}, ‖w‖={args.w_norm:g}, σ = σ_z = 1"
    )
    print(
        f"estimate  {result.estimate:.6g}  95% CI [{result.ci_low:.6g}, {result.ci_high:.6g}]  "
        f"stderr {result.stderr:.3g}  ({result.settings['steps']} steps, "
        f"{result.settings['n_eval']} held-out samples, {result.seconds:.1f} s)"
    )
    khat_p, khat_q = (float(x) for x in result.khat)
    print(
        f"members   {' '.join(f'{m:.6g}' for m in result.members)}  (Pareto k̂ of the P and Q "
        f"terms {khat_p:.2f}, {khat_q:.2f}): "
        + ("reliable" if result.reliable else f"NOT RELIABLE: {result.reason}")
    )
    report = {
        "k": args.k,
        "d": args.d,
        "n_syn": args.n_syn,
        "v_norm": args.v_norm,
        "w_norm": args.w_norm,
        "alpha": args.alpha,
        "seed": args.seed,
        "estimate": result.estimate,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "stderr": result.stderr,
        "members": result.members.tolist(),
        "reliable": result.reliable,
        "reason": result.reason,
        "khat": result.khat.tolist(),
        "ess": result.ess.tolist(),
        "seconds": result.seconds,
        "settings": {k: list(v) if isinstance(v, tuple) else v for k, v in result.settings.items()},
        "curve": result.curve.tolist(),
        "exact": exact,
        "exact_source": source,
        "relative_error": None,
    }
    if exact is not None and math.isfinite(exact) and exact != 0.0:
        rel = (result.estimate - exact) / exact
        report["relative_error"] = rel
        covered = "inside" if result.ci_low <= exact <= result.ci_high else "outside"
        print(
            f"exact     {exact:.6g}  ({source}; {covered} the interval)  relative error {rel:+.2%}"
        )
    elif exact is not None:
        print(f"exact     {exact:.6g}  ({source})")
    elif not args.no_exact:
        print("exact     not available here (k > 1 with finite n_syn)")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2)
    return 0

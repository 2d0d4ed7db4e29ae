"""Issue 44 benchmark: the finite release against the infinite one, side by side in one run.

The finite-release divergences (``renyi_release_k1``, ``hockey_stick_release_k1``) against
what they tend to as ``n_syn → ∞`` (``renyi_ncx2``, ``hockey_stick_ncx2``), on the same
random (α or ε, d, a, b) points, with ``n_syn`` drawn log-uniformly over [1, 1e4]:

1. *Forward*: each public function on all ``--points`` points in one call (what a user
   calls), after a first call that compiles; the median of ``--runs`` calls, points per second
   and the ratio finite / infinite.
2. *Reverse mode*: ``jax.jit(jax.grad(f, argnums=(0, 1, 2, 3, 4)))`` of the scalar finite-release
   function, point by point on the first ``--grad-points`` points, against the same jitted
   scalar function's forward time (the first call of each, compilation included, is reported
   too: it is what a user waits for in a fresh process without a compilation cache).
3. *Batched derivatives*: ``jax.jit(jax.vmap(jax.grad(f, argnums=all)))`` of each public
   function, finite and infinite, on all ``--points`` points (a scan's or a user's batch of
   gradients: n_syn is traced, so the n_syn = inf branch is in the finite release's program),
   the median of ``--runs`` calls after one that compiles, in points per second.
4. *Memory*: XLA's temporary buffers (``memory_analysis().temp_size_in_bytes``) of the compiled
   forward program for one chunk of points (``jit(vmap(f))`` over ``--points`` points) divided
   by the points; of one call of ``jit(f)`` on arrays of ``--memory-points`` points (what a
   scan's chunk or a user's jitted call compiles: n_syn is traced there, so the n_syn = inf
   branch is in the program; calls above ``release_k1.SLICE`` points run their slices in
   sequence); and of the reverse program of one point.

The points (fixed seed): α ∈ [1.5, 8], ε ∈ [0, 3], d = 10^U[0, 3], n_syn = 10^U[0, 4],
a, b ∈ [0, 5]. Medians are printed; ``--json`` writes them with the environment.

Usage::

    python benchmarks/bench_release_k1.py [--points 64] [--runs 3] [--grad-points 4]
        [--seed 0] [--memory-points 100000] [--json PATH] [--quiet]
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _common

#: Argument ranges of the random points (see the module docstring).
ALPHA_RANGE = (1.5, 8.0)
EPS_RANGE = (0.0, 3.0)
LOG10_D_RANGE = (0.0, 3.0)
LOG10_NSYN_RANGE = (0.0, 4.0)
NORM_RANGE = (0.0, 5.0)


def sample_points(n: int, seed: int) -> dict[str, np.ndarray]:
    """``n`` random points: α, ε, d, n_syn, a, b (float64 arrays, see the module docstring)."""
    rng = np.random.default_rng(seed)
    return {
        "alpha": rng.uniform(*ALPHA_RANGE, n),
        "eps": rng.uniform(*EPS_RANGE, n),
        "d": 10.0 ** rng.uniform(*LOG10_D_RANGE, n),
        "n_syn": 10.0 ** rng.uniform(*LOG10_NSYN_RANGE, n),
        "a": rng.uniform(*NORM_RANGE, n),
        "b": rng.uniform(*NORM_RANGE, n),
    }


def _forward(fn, args, runs):
    """First call (compile + run) and the median of ``runs`` further calls, in seconds."""
    import jax

    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    first = time.perf_counter() - start
    times = _common.time_runs(lambda: jax.block_until_ready(fn(*args)), runs)
    return first, _common.median(times)


def _per_point(fn, rows, runs):
    """First call and the median over ``rows`` of the median of ``runs`` calls, in seconds."""
    import jax

    start = time.perf_counter()
    jax.block_until_ready(fn(*rows[0]))
    first = time.perf_counter() - start
    medians = [
        _common.median(_common.time_runs(lambda r=r: jax.block_until_ready(fn(*r)), runs))
        for r in rows
    ]
    return first, _common.median(medians)


def run(
    points: int, runs: int, grad_points: int, seed: int, memory_points: int = 100_000,
    quiet: bool = False,
) -> dict:
    _common.import_fisherrdp()
    import jax
    import jax.numpy as jnp

    from fisherrdp.divergences import (
        hockey_stick_ncx2,
        hockey_stick_release_k1,
        renyi_ncx2,
        renyi_release_k1,
    )

    p = sample_points(points, seed)
    say = (lambda *a: None) if quiet else print
    out: dict = {"points": points, "runs": runs, "grad_points": grad_points, "seed": seed,
                 "memory_points": memory_points}

    pairs = {
        "renyi": (renyi_ncx2, renyi_release_k1, p["alpha"]),
        "hockey_stick": (hockey_stick_ncx2, hockey_stick_release_k1, p["eps"]),
    }
    for name, (infinite, finite, x) in pairs.items():
        first_inf, t_inf = _forward(infinite, (x, p["d"], p["a"], p["b"]), runs)
        first_fin, t_fin = _forward(finite, (x, p["d"], p["n_syn"], p["a"], p["b"]), runs)
        row = {
            "infinite_points_per_s": points / t_inf,
            "finite_points_per_s": points / t_fin,
            "ratio": t_inf / t_fin,
            "infinite_first_call_s": first_inf,
            "finite_first_call_s": first_fin,
        }
        say(f"{name:13s} forward: n_syn = inf {row['infinite_points_per_s']:9.1f} points/s, "
            f"finite {row['finite_points_per_s']:8.2f} points/s, ratio {row['ratio']:.4f} "
            f"(1/{1 / row['ratio']:.0f}; first calls {first_inf:.2f} s and {first_fin:.2f} s)")

        def scalar(*args, finite=finite):
            return finite(*args)

        rows = [tuple(float(v[i]) for v in (x, p["d"], p["n_syn"], p["a"], p["b"]))
                for i in range(min(grad_points, points))]
        value = jax.jit(scalar)
        grad = jax.jit(jax.grad(scalar, argnums=(0, 1, 2, 3, 4)))
        first_value, t_value = _per_point(value, rows, runs)
        first_grad, t_grad = _per_point(grad, rows, runs)
        row.update({
            "value_first_call_s": first_value,
            "value_s_per_point": t_value,
            "grad_first_call_s": first_grad,
            "grad_s_per_point": t_grad,
            "reverse_over_forward": t_grad / t_value,
        })
        say(f"{name:13s} reverse: {t_grad:.3f} s/point against {t_value:.3f} s/point forward "
            f"({t_grad / t_value:.2f}x; first calls {first_value:.1f} s and {first_grad:.1f} s)")

        for label, fn, args in (("infinite", infinite, (x, p["d"], p["a"], p["b"])),
                                ("finite", finite, (x, p["d"], p["n_syn"], p["a"], p["b"]))):
            batched = jax.jit(jax.vmap(jax.grad(fn, argnums=tuple(range(len(args))))))
            _, t_batched = _forward(batched, args, runs)
            row[f"{label}_vmap_grad_points_per_s"] = points / t_batched
        say(f"{name:13s} jax.vmap(jax.grad): n_syn = inf "
            f"{row['infinite_vmap_grad_points_per_s']:8.1f} points/s, finite "
            f"{row['finite_vmap_grad_points_per_s']:8.1f} points/s")

        batch = tuple(jnp.asarray(v) for v in (x, p["d"], p["n_syn"], p["a"], p["b"]))
        fwd_mem = jax.jit(jax.vmap(scalar)).lower(*batch).compile().memory_analysis()
        shape = jax.ShapeDtypeStruct((memory_points,), batch[0].dtype)
        call_mem = jax.jit(finite).lower(*[shape] * 5).compile().memory_analysis()
        rev_mem = grad.lower(*rows[0]).compile().memory_analysis()
        row["forward_temp_bytes_per_point"] = fwd_mem.temp_size_in_bytes / points
        row["call_temp_bytes"] = call_mem.temp_size_in_bytes
        row["reverse_temp_bytes_one_point"] = rev_mem.temp_size_in_bytes
        say(f"{name:13s} memory: {row['forward_temp_bytes_per_point'] / 1e3:.0f} kB/point "
            f"forward (XLA temporaries, {points} points), "
            f"{row['call_temp_bytes'] / 1e9:.2f} GB for one jitted call on {memory_points} "
            f"points, {row['reverse_temp_bytes_one_point'] / 1e6:.1f} MB reverse for one point")
        out[name] = row
    out["peak_rss_bytes"] = _common.peak_rss_bytes()
    say(f"peak resident memory {out['peak_rss_bytes'] / 1e9:.2f} GB")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=64)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--grad-points", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory-points", type=int, default=100_000)
    parser.add_argument("--json", default=None)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    results = run(args.points, args.runs, args.grad_points, args.seed, args.memory_points,
                  args.quiet)
    results["environment"] = _common.environment()
    _common.write_json(args.json, results, quiet=args.quiet)
    return 0


if __name__ == "__main__":
    sys.exit(main())

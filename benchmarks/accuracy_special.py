"""Accuracy of fisherrdp.special against the committed mpmath fixtures, regime by regime.

Reads ``tests/fixtures/*.json`` (made by ``tests/fixtures/make_special_fixtures.py``, mpmath at
50 digits) and prints, for each quantity and regime, the number of points and the worst error,
measured as the issue states its targets:

* log I, log ive, log 0F1: |got − ref| / max(1, |ref|)                     (target 2e-14)
* ratio I_{v+1}/I_v:        |got/ref − 1|                                  (target 1e-13)
* first derivatives:        relative, or absolute where |ref| < 1e-2        (target 1e-10)
* second derivatives:       relative, or absolute where |ref| < 1e-2        (target 1e-8)

Usage::

    python benchmarks/accuracy_special.py [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict

import numpy as np

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO_ROOT)

import jax  # noqa: E402

import fisherrdp.special as fs  # noqa: E402

FIXTURES = os.path.join(REPO_ROOT, "tests", "fixtures")


def _load(name):
    with open(os.path.join(FIXTURES, name)) as fh:
        return json.load(fh)


def _columns(rows, *keys):
    return [np.array([r[k] for r in rows], dtype=np.float64) for k in keys]


def _value_error(got, ref):
    got = np.asarray(got, np.float64)
    err = np.abs(got - ref) / np.maximum(1.0, np.abs(ref))
    return np.where(np.isfinite(got) | (got == ref), err, np.inf)


def _ratio_error(got, ref):
    got = np.asarray(got, np.float64)
    return np.where(ref > 0, np.abs(got / np.where(ref > 0, ref, 1.0) - 1.0), np.abs(got))


def _derivative_error(got, ref):
    got = np.asarray(got, np.float64)
    err = np.where(np.abs(ref) >= 1e-2, np.abs(got - ref) / np.maximum(np.abs(ref), 1e-300), np.abs(got - ref))
    return np.where(np.isfinite(got), err, np.inf)


def _second(f, i, j):
    """d²f/(d arg_i d arg_j), elementwise, as a forward derivative of the gradient."""
    grad_i = jax.grad(f, argnums=i)

    def second(v, x):
        tangents = (1.0, 0.0) if j == 0 else (0.0, 1.0)
        return jax.jvp(grad_i, (v, x), tangents)[1]

    return jax.jit(jax.vmap(second))


def measure() -> list[dict]:
    results = []

    def record(quantity, target, regimes, err):
        worst = defaultdict(float)
        count = defaultdict(int)
        for reg, e in zip(regimes, err):
            worst[reg] = max(worst[reg], float(e))
            count[reg] += 1
        for reg in sorted(worst):
            results.append(dict(quantity=quantity, regime=reg, points=count[reg], worst=worst[reg], target=target))

    rows = _load("log_bessel_i.json")["rows"]
    regimes = [r["regime"] for r in rows]
    v, x, log_i, log_ive, ratio = _columns(rows, "v", "x", "log_i", "log_ive", "ratio")
    record("log I", 2e-14, regimes, _value_error(fs.log_bessel_i(v, x), log_i))
    record("log ive", 2e-14, regimes, _value_error(fs.log_bessel_ive(v, x), log_ive))
    record("ratio", 1e-13, regimes, _ratio_error(fs.bessel_ratio(v, x), ratio))

    derivs = _load("log_bessel_i_derivs.json")
    rows = derivs["first"]
    regimes = [r["regime"] for r in rows]
    v, x, dv, dx = _columns(rows, "v", "x", "dv", "dx")
    grads = jax.jit(jax.vmap(jax.grad(fs.log_bessel_i, argnums=(0, 1))))(v, x)
    record("d/dv log I", 1e-10, regimes, _derivative_error(grads[0], dv))
    record("d/dx log I", 1e-10, regimes, _derivative_error(grads[1], dx))
    rows = derivs["second"]
    regimes = [r["regime"] for r in rows]
    v, x, dvv, dxx, dvx = _columns(rows, "v", "x", "dvv", "dxx", "dvx")
    record("d2/dv2 log I", 1e-8, regimes, _derivative_error(_second(fs.log_bessel_i, 0, 0)(v, x), dvv))
    record("d2/dx2 log I", 1e-8, regimes, _derivative_error(_second(fs.log_bessel_i, 1, 1)(v, x), dxx))
    record("d2/dvdx log I", 1e-8, regimes, _derivative_error(_second(fs.log_bessel_i, 0, 1)(v, x), dvx))

    rows = _load("log_hyp0f1.json")["rows"]
    regimes = [r["regime"] for r in rows]
    b, x, ref = _columns(rows, "b", "x", "log_hyp0f1")
    record("log 0F1", 2e-14, regimes, _value_error(fs.log_hyp0f1(b, x), ref))
    rows = _load("log_hyp0f1_derivs.json")["rows"]
    regimes = [r["regime"] for r in rows]
    b, x, db, dx = _columns(rows, "b", "x", "db", "dx")
    grads = jax.jit(jax.vmap(jax.grad(fs.log_hyp0f1, argnums=(0, 1))))(b, x)
    record("d/db log 0F1", 1e-10, regimes, _derivative_error(grads[0], db))
    record("d/dx log 0F1", 1e-10, regimes, _derivative_error(grads[1], dx))
    return results


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="also write the table as JSON to this path")
    args = parser.parse_args(argv)
    results = measure()
    print(f"{'quantity':16s} {'regime':22s} {'points':>6s} {'worst error':>12s} {'target':>8s}")
    for r in results:
        flag = "" if r["worst"] <= r["target"] else "  ABOVE TARGET"
        print(f"{r['quantity']:16s} {r['regime']:22s} {r['points']:6d} {r['worst']:12.2e} {r['target']:8.0e}{flag}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(results, fh, indent=1)
    return results


if __name__ == "__main__":
    main()

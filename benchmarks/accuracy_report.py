"""The accuracy table: worst errors against the committed reference fixtures, measured by the tests.

Every accuracy test checks its errors with the ``accuracy`` fixture of ``tests/conftest.py``
against a claim in ``tests/fixtures/accuracy/AREA.json`` (worst error measured, documented target,
number of points). This script runs those tests with ``FISHERRDP_ACCURACY_REPORT`` set, so that
each records the worst error it saw (and asserts only the targets), then prints one table:
claim, points, worst error now, the recorded value (the documented number), the regression tolerance
(10 × recorded) and the target. The documentation's accuracy numbers are the recorded values, and
``tests/test_accuracy_claims.py`` checks that a page shows them, so the docs and tests cannot drift.

Usage::

    python benchmarks/accuracy_report.py              # measure and compare
    python benchmarks/accuracy_report.py --update     # write the new worst errors into the claims
    python benchmarks/accuracy_report.py --json PATH  # also write the table as JSON
    python benchmarks/accuracy_report.py --slow       # with the tests marked slow
    python benchmarks/accuracy_report.py tests/test_renyi.py   # only these test files

``--update`` rounds each worst error up to two significant digits. A number that got worse is a
regression: say why in the change that updates it.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLAIMS = os.path.join(REPO_ROOT, "tests", "fixtures", "accuracy")
FACTOR = 10.0  # tests/conftest.py: REGRESSION_FACTOR and REGRESSION_FLOOR
FLOOR = 2.220446049250313e-16


def _round_up(x: float) -> float:
    """``x`` rounded up to two significant digits (0 stays 0)."""
    if x <= 0:
        return 0.0
    exponent = math.floor(math.log10(x)) - 1
    return math.ceil(x / 10.0**exponent) * 10.0**exponent


def _accuracy_test_files() -> list[str]:
    files = sorted(glob.glob(os.path.join(REPO_ROOT, "tests", "test_*.py")))
    out = []
    for path in files:
        with open(path) as fh:
            if "accuracy.check(" in fh.read():
                out.append(os.path.relpath(path, REPO_ROOT))
    return out


def _measure(files: list[str], *, slow: bool) -> tuple[dict, int]:
    with tempfile.TemporaryDirectory() as record:
        env = {**os.environ, "FISHERRDP_ACCURACY_REPORT": record}
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
               "-m", "" if slow else "not slow", *files]
        status = subprocess.call(cmd, cwd=REPO_ROOT, env=env)
        measured: dict[str, dict] = {}
        for path in glob.glob(os.path.join(record, "*.json")):
            with open(path) as fh:
                for name, row in json.load(fh).items():
                    old = measured.get(name)
                    if old is None or row["worst"] > old["worst"]:
                        measured[name] = row
    return measured, status


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="test files (default: every accuracy test)")
    parser.add_argument("--update", action="store_true", help="write the worst errors measured")
    parser.add_argument("--json", metavar="PATH", help="also write the table as JSON")
    parser.add_argument("--slow", action="store_true", help="include the tests marked slow")
    args = parser.parse_args(argv)

    documents = {}
    for path in sorted(glob.glob(os.path.join(CLAIMS, "*.json"))):
        with open(path) as fh:
            documents[os.path.basename(path)[:-5]] = json.load(fh)
    claims = {name: claim for doc in documents.values() for name, claim in doc["claims"].items()}
    measured, status = _measure(args.files or _accuracy_test_files(), slow=args.slow)

    rows = []
    print(f"\n{'claim':<44} {'points':>6} {'worst now':>10} {'recorded':>9} "
          f"{'tolerance':>9} {'target':>7}  status")
    for name in sorted(set(claims) | set(measured)):
        claim, now = claims.get(name), measured.get(name)
        recorded = claim["measured"] if claim else float("nan")
        worst = now["worst"] if now else float("nan")
        if claim is None:
            state = "no claim"
        elif now is None:
            state = "not run"
        elif worst > max(FACTOR * recorded, FLOOR):
            state = "REGRESSION"
        elif worst > recorded:
            state = "worse"
        else:
            state = "ok"
        target = claim["target"] if claim else float("nan")
        points = now["points"] if now else (claim or {}).get("points", 0)
        print(f"{name:<44} {points:>6} {worst:>10.2e} {recorded:>9.1e} "
              f"{max(FACTOR * recorded, FLOOR):>9.1e} {target:>7.0e}  {state}")
        rows.append({"claim": name, "points": points, "worst": worst, "recorded": recorded,
                     "target": target, "status": state})
        if args.update and now is not None and claim is not None:
            claim["measured"] = _round_up(worst)
            claim["points"] = now["points"]
    # The documented numbers: for each phrase, the largest error of the claims that name it.
    phrases: dict[str, list] = {}
    for name, claim in claims.items():
        if claim.get("readme"):
            now = measured.get(name, {}).get("worst", float("nan"))
            entry = phrases.setdefault(claim["readme"], [0, float("-inf"), 0.0])
            entry[0] += claim.get("points", 0)
            entry[1] = max(entry[1], now)
            entry[2] = max(entry[2], claim["measured"])
    print(f"\n{'docs line containing':<44} {'points':>6} {'worst now':>10} {'docs':>9}")
    for phrase, (points, now, recorded) in sorted(phrases.items()):
        print(f"{phrase!r:<44} {points:>6} {now:>10.2e} {recorded:>9.1e}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    if args.update:
        for area, document in documents.items():
            with open(os.path.join(CLAIMS, f"{area}.json"), "w") as fh:
                json.dump(document, fh, indent=1, ensure_ascii=False)
                fh.write("\n")
        print("\nwrote tests/fixtures/accuracy/; the documented numbers must follow "
              "(tests/test_accuracy_claims.py checks)")
    return status


if __name__ == "__main__":
    sys.exit(main())

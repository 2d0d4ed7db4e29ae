"""Summarise a compile census (``FISHERRDP_CENSUS=DIR pytest``, helpers/compile_census.py).

Usage: python tests/helpers/census_report.py DIR [--by kernel|file|test] [--top N] [--json OUT]

Per kernel (the program's name, e.g. ``jit__renyi_vec``): distinct programs (by persistent-cache
key: input shapes, dtypes, static arguments and constants), compiles and their seconds, persistent-cache loads and their seconds, tracing and
lowering seconds, and the test files that caused them. ``--by file`` sums the same per test file
(compile work is charged to the test running when it happened; module fixtures to the first
test of their module). The totals line counts failed cache writes too.
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib


def read(directory: str) -> list[dict]:
    events = []
    for path in sorted(pathlib.Path(directory).glob("*.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                events.append(json.loads(line))
    return events


def kernel_name(name: str) -> str:
    """One name per kernel whatever the event: ``jit(f)``, ``jit_f`` and ``f`` are ``f``."""
    if name.startswith("jit(") and name.endswith(")"):
        return name[4:-1]
    return name.removeprefix("jit_")


def _program(e: dict):
    """A distinct program: its cache key, else (older records) its name and input shapes."""
    return e.get("key") or (kernel_name(e.get("name", "")), tuple(e.get("shapes") or ()))


def _file_of(test: str) -> str:
    return test.split("::")[0] if test else "(outside a test)"


def summarise(events: list[dict], by: str = "kernel") -> list[dict]:
    rows: dict[str, dict] = {}
    for e in events:
        if by == "kernel":
            key = kernel_name(e.get("name", ""))
        elif by == "file":
            key = _file_of(e.get("test", ""))
        else:
            key = e.get("test", "").rsplit(" (", 1)[0] or "(outside a test)"
        r = rows.setdefault(key, {"key": key, "programs": set(), "compiles": 0, "compile_s": 0.0,
                                  "loads": 0, "load_s": 0.0, "trace_s": 0.0, "lower_s": 0.0,
                                  "write_failed": 0, "files": collections.Counter()})
        kind, seconds = e["kind"], float(e.get("seconds", 0.0))
        if kind in ("compile", "load"):
            r["programs"].add(_program(e))
            r[f"{kind}s"] += 1
            r[f"{kind}_s"] += seconds
            r["files"][_file_of(e.get("test", ""))] += seconds
        elif kind in ("trace", "lower"):
            r[f"{kind}_s"] += seconds
        elif kind == "write_failed":
            r["write_failed"] += 1
    out = []
    for r in rows.values():
        r["programs"] = len(r["programs"])
        r["total_s"] = r["compile_s"] + r["load_s"] + r["trace_s"] + r["lower_s"]
        r["files"] = [f for f, _ in r["files"].most_common(3)]
        out.append(r)
    return sorted(out, key=lambda r: -r["total_s"])


def table(rows: list[dict], top: int, by: str) -> str:
    head = (f"| {by} | programs | compiles | compile s | loads | load s | trace s | lower s |"
            + (" most from |" if by == "kernel" else ""))
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows[:top]:
        line = (f"| {r['key']} | {r['programs']} | {r['compiles']} | {r['compile_s']:.1f} | "
                f"{r['loads']} | {r['load_s']:.1f} | {r['trace_s']:.1f} | {r['lower_s']:.1f} |")
        if by == "kernel":
            line += " " + ", ".join(f.removeprefix("tests/") for f in r["files"]) + " |"
        lines.append(line)
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory")
    parser.add_argument("--by", choices=("kernel", "file", "test"), default="kernel")
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    events = read(args.directory)
    rows = summarise(events, args.by)
    programs = {_program(e) for e in events if e["kind"] in ("compile", "load")}
    total = {k: sum(e.get("seconds", 0.0) for e in events if e["kind"] == k)
             for k in ("compile", "load", "trace", "lower")}
    count = collections.Counter(e["kind"] for e in events)
    print(f"{len(programs)} distinct programs; {count['compile']} compiles {total['compile']:.0f} s, "
          f"{count['load']} loads {total['load']:.0f} s, trace {total['trace']:.0f} s, "
          f"lower {total['lower']:.0f} s; {count['write']} cache writes, "
          f"{count['write_failed']} failed; {len({e['pid'] for e in events})} processes")
    print(table(rows, args.top, args.by))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

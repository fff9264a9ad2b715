#!/usr/bin/env python3
"""Python function calls per decision on the shared perf tiers: a load-independent cost figure.

Timings on a shared 2-core machine move by 10-20 % with whatever else runs; the number of
Python-level calls a decision makes (cProfile's count) does not. Comparing it before and after
a change that should not alter the algorithms (a module move, argument checks) shows exactly
what the change added per decision. For every tier and variant of ``_perf_cases`` it prints and
writes ``calls.json``: the calls of one ``get_targets`` decision on the default path and with
the maintained index.

Usage::

    python benchmarks/bench_calls.py [--tiers S,M,L,H] [--out DIR]
    python benchmarks/bench_calls.py --compare BEFORE.json AFTER.json
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
from pathlib import Path

from _perf_cases import cluster_queue_of, cohort_of, config_of, incoming_of, load_tier, now_of, workload_of
from kueue_preempt import Snapshot, get_targets

REPEATS = 3


def count(tiers: list[str]) -> dict[str, int]:
    """``"<tier> <variant> <plain|indexed>" -> calls per decision``."""
    out: dict[str, int] = {}
    for tier in tiers:
        for case in load_tier(tier, "all", None):
            variant = str(case["name"]).split()[-1]
            snapshot = Snapshot(
                [cluster_queue_of(q) for q in case["clusterQueues"]],
                [cohort_of(c) for c in case.get("cohorts", [])],
                [workload_of(w) for w in case["admitted"]],
            )
            config = config_of(case)
            preemptor, assignment = incoming_of(case["incoming"])
            cq = case["incoming"]["clusterQueue"]
            now = now_of(case)
            for path in ("plain", "indexed"):
                if path == "indexed":
                    snapshot.enable_index(config)
                get_targets(preemptor, cq, assignment, snapshot, config=config, now=now)  # warm caches
                profile = cProfile.Profile()
                profile.enable()
                for _ in range(REPEATS):
                    get_targets(preemptor, cq, assignment, snapshot, config=config, now=now)
                profile.disable()
                out[f"{tier} {variant} {path}"] = pstats.Stats(profile).total_calls // REPEATS  # type: ignore[attr-defined]
    return out


def compare(before: dict[str, int], after: dict[str, int]) -> str:
    lines = ["| Decision | Calls before | Calls after | Change |", "|---|---:|---:|---:|"]
    for key, b in before.items():
        a = after.get(key)
        if a is None:
            continue
        lines.append(f"| {key} | {b:,} | {a:,} | {100 * (a / b - 1):+.2f} % |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiers", default="S,M,L,H")
    ap.add_argument("--out", default=None, help="write calls.json here")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"), help="print a markdown table of two calls.json")
    args = ap.parse_args(argv)
    if args.compare:
        before, after = (json.loads(Path(p).read_text()) for p in args.compare)
        sys.stdout.write(compare(before, after))
        return 0
    calls = count(args.tiers.split(","))
    for key, n in calls.items():
        print(f"{key:32s} {n:8,d}")
    if args.out:
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "calls.json").write_text(json.dumps(calls, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""The general simulator at scale (issue 20 item 7, issue 21 item 5): wall time in one process.

Two runs, both through :func:`kueue_preempt.sim.perf_run.general_run` — the library's real
scheduling cycle, incremental across cycles (:class:`kueue_preempt.cycle.CycleState`), with an
ideal API (the dedicated ``kueue_perf`` simulator is not involved):

* ``L120``: the L tier's shape of ``perf_gen.py`` (10 cohorts x 100 ClusterQueues, nominal
  180 CPU, borrowing limit 900, preemption LowerPriority / reclaim Any, classes small/medium/
  large = 1/5/20 CPU at priorities 50/100/200 mixed 7:2:1) with 100 arrivals per ClusterQueue
  (100,000 in all) offered at about 120 % of every cohort's nominal quota: runtime 60 s, each
  CQ's arrival rate set so that rate x runtime x mean request = 1.2 x nominal. At the steady
  state about 50,000 workloads are admitted (the tier's admitted set); the rest queue, and
  higher classes preempt. Reported: wall time, admissions, preemptions, the longest queue (most
  workloads pending in one ClusterQueue at once) and utilization (admitted CPU-seconds over
  nominal CPU-seconds until the last arrival).
* ``large-scale``: Kueue's ``large-scale-generator.yaml`` (1,000 CQs, 50,000 workloads).

Usage::

    python benchmarks/bench_sim.py [--runs L120,large-scale] [--cqs 100] [--out benchmarks/results]

``--cqs`` scales the ClusterQueues per cohort of L120 (100 = the full tier). Writes
``<out>/sim.json`` and ``<out>/sim.md``. Needs only the package (``PYTHONPATH=src``).
Results: docs/performance.md, section Simulation.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import time
from pathlib import Path
from typing import Any

from kueue_preempt.sim.engine import SimulationResult
from kueue_preempt.sim.perf_run import general_run
from kueue_preempt.sim.scenario import BuiltScenario, build_scenario, load_scenario, parse_scenario
from kueue_preempt.sim.timeline import Admitted, Arrived, Finished, Preempted, Released

ROOT = Path(__file__).resolve().parent.parent
LARGE_SCALE = ROOT / "examples" / "kueue-perf" / "large-scale-generator.yaml"

# perf_gen.py's L tier: 10 cohorts x 100 CQs, N = 20 * round(50,000 * 3.7 / 1,000 / 20) = 180.
NOMINAL = 180
BORROWING = 5 * NOMINAL
CLASSES = (("small", 1, 50, 70), ("medium", 5, 100, 20), ("large", 20, 200, 10))  # name, CPU, priority, arrivals/CQ
MEAN_REQUEST = sum(cpu * n for _, cpu, _, n in CLASSES) / sum(n for *_, n in CLASSES)  # 3.7 CPU
RUNTIME_S = 60.0
LOAD = 1.2


def l_tier_text(cohorts: int = 10, cqs: int = 100) -> str:
    """The L120 generator file: every class arrives at its share (7:2:1) of a CQ rate that
    keeps LOAD x NOMINAL CPU in demand (rate x runtime x mean request)."""
    rate = LOAD * NOMINAL / (RUNTIME_S * MEAN_REQUEST)  # workloads per second per CQ
    total = sum(n for *_, n in CLASSES)
    lines = [
        "cohorts:",
        "- className: co",
        f"  count: {cohorts}",
        "  queuesSets:",
        "  - className: cq",
        f"    count: {cqs}",
        f"    nominalQuota: {NOMINAL}",
        f"    borrowingLimit: {BORROWING}",
        "    reclaimWithinCohort: Any",
        "    withinClusterQueue: LowerPriority",
        "    workloadsSets:",
    ]
    for name, cpu, priority, n in CLASSES:
        interval_ms = round(1000.0 / (rate * n / total))
        lines += [
            f"    - count: {n}",
            f"      creationIntervalMs: {interval_ms}",
            "      workloads:",
            f"      - {{className: {name}, runtimeMs: {int(RUNTIME_S * 1000)}, priority: {priority}, request: {cpu}}}",
        ]
    return "\n".join(lines) + "\n"


def figures(result: SimulationResult, built: BuiltScenario) -> dict[str, Any]:
    """Admissions, preemptions, the longest queue and utilization from the timeline."""
    pending: collections.Counter[str] = collections.Counter()
    longest = 0
    charged: dict[str, tuple[float, int]] = {}
    cpu_seconds = 0.0
    last_arrival = max((w.at_ms for w in built.workloads), default=0) / 1000.0
    admissions = preemptions = 0

    def settle(key: str, t: float) -> None:
        nonlocal cpu_seconds
        start, cpu = charged.pop(key, (t, 0))
        cpu_seconds += cpu * max(0.0, min(t, last_arrival) - min(start, last_arrival))

    for e in result.timeline:
        if isinstance(e, Arrived):
            pending[e.cluster_queue] += 1
            longest = max(longest, pending[e.cluster_queue])
        elif isinstance(e, Admitted):
            admissions += 1
            pending[e.cluster_queue] -= 1
            charged[e.workload] = (e.t, sum(e.usage.values()))
        elif isinstance(e, Preempted):
            preemptions += 1
        elif isinstance(e, Released):
            settle(e.workload, e.t)
            pending[e.cluster_queue] += 1
            longest = max(longest, pending[e.cluster_queue])
        elif isinstance(e, Finished):
            settle(e.workload, e.t)
    for key in list(charged):
        settle(key, result.end)
    nominal_millis = sum(q.nominal_cpu_millis for q in built.queues)
    utilization = cpu_seconds / (nominal_millis * last_arrival) if last_arrival and nominal_millis else 0.0
    return {
        "admissions": admissions,
        "preemptions": preemptions,
        "longestQueue": longest,
        "utilization": round(utilization, 4),
        "cycles": result.cycles,
        "simulatedSeconds": round(result.end, 3),
    }


def measure(name: str, built: BuiltScenario) -> dict[str, Any]:
    w0, c0 = time.perf_counter(), time.process_time()
    result = general_run(built)
    row: dict[str, Any] = {
        "run": name,
        "clusterQueues": len(built.queues),
        "arrivals": len(built.workloads),
        "wallSeconds": round(time.perf_counter() - w0, 2),
        "cpuSeconds": round(time.process_time() - c0, 2),
        "loadAverage": round(os.getloadavg()[0], 2),
    }
    row.update(figures(result, built))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", default="L120,large-scale")
    parser.add_argument("--cqs", type=int, default=100, help="ClusterQueues per cohort of L120 (100 = full tier)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = parser.parse_args()
    rows = []
    for name in args.runs.split(","):
        if name == "L120":
            built = build_scenario(parse_scenario(l_tier_text(cqs=args.cqs)))
        elif name == "large-scale":
            built = build_scenario(load_scenario(LARGE_SCALE))
        else:
            raise SystemExit(f"unknown run {name!r}")
        row = measure(name if args.cqs == 100 or name != "L120" else f"L120/{args.cqs}", built)
        print(json.dumps(row), flush=True)
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sim.json").write_text(json.dumps(rows, indent=2) + "\n")
    cols = ["run", "clusterQueues", "arrivals", "wallSeconds", "cpuSeconds", "admissions", "preemptions",
            "longestQueue", "utilization", "cycles", "simulatedSeconds", "loadAverage"]
    md = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    md += ["| " + " | ".join(str(r[c]) for c in cols) + " |" for r in rows]
    (out / "sim.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()

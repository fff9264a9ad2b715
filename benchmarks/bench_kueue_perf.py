#!/usr/bin/env python3
"""Kueue's scalability scenarios (issue 21): how fast the simulator replays them.

For each vendored generator file (``examples/kueue-perf/``) it times, in one process,
reading the file, building the objects and the arrival stream, simulating through the general
simulator (the library's scheduling cycle in the event loop, decision kp-h) with Kueue's test
client limits (50 requests per second, bursts of 100: the API-throughput model on,
``SimulationOptions.api``) and computing Kueue's summary; and compares the simulated run time (Kueue's wall time if the
model is right) with the simulator's own wall time. Each scenario is run ``--repeat`` times
(default 3); the median is reported, with the CPU time and the load average so a busy
machine can be told apart.

Usage::

    python benchmarks/bench_kueue_perf.py [--scenarios baseline,large-scale] [--repeat 3]
                                          [--out benchmarks/results]

Writes ``<out>/kueue-perf.json`` and ``<out>/kueue-perf.md``. Needs only the installed
package (or ``PYTHONPATH=src``); ``mypy --strict`` clean. Results: docs/performance.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.kperf.run import ScenarioOptions, run_scenario
from kueue_preempt.kperf.scenario import load_scenario

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = {
    "baseline": ROOT / "examples" / "kueue-perf" / "baseline-generator.yaml",
    "large-scale": ROOT / "examples" / "kueue-perf" / "large-scale-generator.yaml",
}
# Kueue's own wall time of each scenario where it is published: the baseline's range file
# (mean of 5 runs); the large-scale file states "about 20 minutes".
KUEUE_WALL_S = {"baseline": 351.116, "large-scale": 20 * 60.0}


def measure(name: str, path: Path, repeat: int) -> dict[str, Any]:
    walls: list[float] = []
    cpus: list[float] = []
    row: dict[str, Any] = {}
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        run = run_scenario(load_scenario(path), ScenarioOptions(api=ApiModel(50.0, 100)))
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
        s = run.summary
        row = {
            "clusterQueues": len(run.built.queues),
            "workloads": len(run.built.workloads),
            "cycles": run.result.cycles,
            "instants": run.result.instants,
            "apiRequests": run.result.api.requests if run.result.api is not None else 0,
            "simulatedS": round(s.duration, 3),
            "averageTimeToAdmissionMs": {
                c: round(v.average_time_to_admission_ms or 0.0) for c, v in s.workload_classes.items()
            },
            "usagePercent": {c: round(q.usage_percent, 2) for c, q in s.cluster_queue_classes.items()},
        }
    wall = statistics.median(walls)
    row.update(
        scenario=name,
        wallS=round(wall, 3),
        cpuS=round(statistics.median(cpus), 3),
        kueueWallS=KUEUE_WALL_S.get(name),
        speedup=round(KUEUE_WALL_S[name] / wall, 1) if name in KUEUE_WALL_S else None,
        load=round(os.getloadavg()[0], 2),
    )
    return row


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| scenario | CQs | workloads | simulator wall (s) | CPU (s) | simulated run (s) | Kueue's run (s) | Kueue ÷ simulator | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['scenario']} | {r['clusterQueues']:,} | {r['workloads']:,} | {r['wallS']:.2f} | {r['cpuS']:.2f} | "
            f"{r['simulatedS']:,.0f} | {r['kueueWallS']:,.0f} | {r['speedup']:,.0f}× | {r['load']} |"
        )
    lines.append("")
    for r in rows:
        waits = ", ".join(f"{c} {v:,} ms" for c, v in r["averageTimeToAdmissionMs"].items())
        usage = ", ".join(f"{c} {v} %" for c, v in r["usagePercent"].items())
        lines.append(f"- {r['scenario']}: average time to admission {waits}; CPU usage {usage}; {r['cycles']:,} cycles, "
            f"{r['instants']:,} instants, {r['apiRequests']:,} API requests.")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--scenarios", default=",".join(SCENARIOS))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = ap.parse_args()
    rows = [measure(n, SCENARIOS[n], max(1, args.repeat)) for n in args.scenarios.split(",")]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "kueue-perf.json").write_text(json.dumps(rows, indent=2) + "\n")
    text = markdown(rows)
    (out / "kueue-perf.md").write_text(text)
    print(text)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Flavor-assignment benchmark: ``kueue_preempt.assign_flavors`` on synthetic cluster states.

Each scale builds (fixed seed) a cohort of ClusterQueues sharing ``flavors`` flavors of cpu,
memory and a GPU resource in one resource group, with admitted workloads spread over them, and
times the assignment of one pending workload with three pod sets in a ClusterQueue whose
flavors are all busy, so every flavor is judged and the oracle runs:

* ``stub``: a constant oracle (the assigner's own cost: skip checks, FAS-6 judgements, scans);
* ``targets``: the default oracle, :class:`~kueue_preempt.assignment.TargetsOracle`, which runs
  ``get_targets`` per flavor-resource (FA-6) — what an offline decision costs.

Usage::

    python benchmarks/bench_assignment.py [--quick] [--out benchmarks/results]

Writes ``<out>/assignment.json`` and ``<out>/assignment.md`` and prints the markdown table.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

from kueue_preempt import (
    ClusterQueue,
    ClusterQueuePreemption,
    FlavorFungibility,
    FlavorQuotas,
    FlavorResource,
    PodSetSpec,
    PodSetUsage,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    assign_flavors,
)
from kueue_preempt.assignment import OracleResult, PreemptionPossibility

RESOURCES = ("cpu", "memory", "example.com/gpu")
SCALES = {"S": (4, 10, 200), "M": (8, 50, 2_000), "L": (16, 200, 20_000)}  # flavors, CQs, workloads


def build(scale: str) -> tuple[Snapshot, list[ResourceFlavor], Workload]:
    n_flavors, n_queues, n_workloads = SCALES[scale]
    rng = random.Random(f"assignment-{scale}")
    flavors = [f"flavor-{i}" for i in range(n_flavors)]
    quota = {"cpu": 64_000, "memory": 256 * 2**30, "example.com/gpu": 8}
    queues = [
        ClusterQueue(
            f"cq-{q}",
            cohort="all",
            resource_groups=[ResourceGroup(RESOURCES, [FlavorQuotas(f, {r: ResourceQuota(quota[r]) for r in RESOURCES}) for f in flavors])],
            preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any"),
            flavor_fungibility=FlavorFungibility("TryNextFlavor", "TryNextFlavor"),
        )
        for q in range(n_queues)
    ]
    workloads = []
    per_queue = max(1, n_workloads // n_queues)
    for i in range(n_workloads):
        q = i // per_queue % n_queues
        f = flavors[i % n_flavors]
        # Every queue is filled to its nominal cpu on every flavor: nothing is free in the
        # cohort, so each flavor of the pending workload goes through the oracle.
        share = per_queue // n_flavors or 1
        cpu = 64_000 // share
        workloads.append(
            Workload(
                name=f"w{i}",
                namespace="bench",
                cluster_queue=f"cq-{q}",
                priority=rng.randrange(0, 10),
                quota_reserved_at=f"2026-01-01T00:{i // 60 % 60:02d}:{i % 60:02d}Z",
                pod_sets=[PodSetUsage(flavors={r: f for r in RESOURCES}, usage={"cpu": cpu, "memory": 2**30, "example.com/gpu": 0})],
            )
        )
    snapshot = Snapshot(queues, workloads=workloads)
    pending = Workload(
        name="pending",
        namespace="bench",
        priority=5,
        spec_pod_sets=[
            PodSetSpec("driver", 1, {"cpu": 4000, "memory": 8 * 2**30}),
            PodSetSpec("workers", 4, {"cpu": 2000, "memory": 4 * 2**30, "example.com/gpu": 1}),
            PodSetSpec("sidecar", 2, {"cpu": 500}),
        ],
    )
    return snapshot, [ResourceFlavor(f) for f in flavors], pending


def _stub(workload: Workload, cq: str, fr: FlavorResource, amount: int, snapshot: Snapshot) -> OracleResult:
    return OracleResult(PreemptionPossibility.PREEMPT, 0)


def _time(fn: Callable[[], object], repeats: int) -> dict[str, float]:
    fn()  # warm-up
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter_ns()
        fn()
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    return {"median_ms": statistics.median(samples), "min_ms": min(samples), "runs": repeats}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="few repeats")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--scales", default="S,M,L")
    args, _ = parser.parse_known_args(argv)  # other benchmarks' options are ignored
    results: dict[str, Any] = {}
    for scale in args.scales.split(","):
        snapshot, flavors, pending = build(scale)
        repeats = 5 if args.quick else 30
        stub = _time(lambda: assign_flavors(pending, "cq-0", snapshot, flavors, oracle=_stub), repeats)
        real = _time(lambda: assign_flavors(pending, "cq-0", snapshot, flavors), max(3, repeats // 5))
        a = assign_flavors(pending, "cq-0", snapshot, flavors)
        results[scale] = {"sizes": dict(zip(("flavors", "queues", "workloads"), SCALES[scale])), "stub": stub, "targets": real, "mode": a.mode.value}
    lines = [
        "| scale | flavors | CQs | workloads | stub oracle, median ms | get_targets oracle, median ms | mode |",
        "|---|---|---|---|---|---|---|",
    ]
    for scale, r in results.items():
        s = r["sizes"]
        lines.append(
            f"| {scale} | {s['flavors']} | {s['queues']} | {s['workloads']} | {r['stub']['median_ms']:.2f} | "
            f"{r['targets']['median_ms']:.2f} | {r['mode']} |"
        )
    table = "\n".join(lines)
    print(table)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "assignment.json").write_text(json.dumps(results, indent=2) + "\n")
    (args.out / "assignment.md").write_text(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

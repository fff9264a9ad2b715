#!/usr/bin/env python3
"""PodGroup preemption benchmark: KEP binary search vs. linear scan vs. kube-scheduler mode.

Builds one synthetic, nearly full cluster (fixed seed): 1,000 nodes running 1,000 PodGroups
of 10 pods each (the potential victims), then evaluates 100 pending PodGroups (preemptors)
one by one, each independently against the same cluster, with
``kueue_preempt.podgroup.select_podgroup_victims`` in three configurations:

* ``kep``        — ``mode="kep"``, ``search="binary"`` (the library default);
* ``kep-linear`` — ``mode="kep"``, ``search="linear"`` (same code, linear scan of levels);
* ``kube``       — ``mode="kube"`` (no search: remove every lower-priority unit, place once).

Reports, per configuration, the median and p99 time per preemptor (ms), the number of
placements, and the speedup of the binary search over the linear scan. Checks outside the
timed loop: the cluster is unchanged after every run, every run gives the same answer, and
binary and linear agree on ``N`` wherever placement success is monotone in the level.

Usage::

    python benchmarks/bench_podgroup.py [--quick] [--out benchmarks/results] [--preemptors 100]

Writes ``<out>/podgroup.json`` and ``<out>/podgroup.md`` and prints the markdown. Needs only
the ``kueue_preempt`` package (no pytest); ``mypy --strict`` clean.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import random
import statistics
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import kueue_preempt
from kueue_preempt.podgroup import (
    Cluster,
    DisruptionMode,
    Node,
    NodeFilter,
    Pod,
    PodGroup,
    PodGroupPreemptionResult,
    PodGroupPreemptor,
    StatusCode,
    select_podgroup_victims,
)

SEED = 20260102
NODES = 1_000
GROUPS = 1_000
PODS_PER_GROUP = 10
PREEMPTORS = 100

GROUP_PRIORITIES = tuple(range(0, 1000, 10))
"""100 distinct priority classes for running groups: the KEP search has up to k = 100 levels."""
PREEMPTOR_PRIORITIES = (400, 600, 800, 1000)
PREEMPTOR_PODS = (2, 4, 8, 16, 32, 64, 128)
"""Preemptor sizes from a small job to a training run wanting an eighth of the cluster."""
PREEMPTOR_CORES = (4, 8, 12, 16)
"""Cores per preemptor pod; a node holds about 17 cores, so 16-core pods need nearly empty nodes."""
POD_CORES = (1, 2, 4)
POD_CORE_WEIGHTS = (5, 3, 2)

CONFIGS: tuple[tuple[str, str, str], ...] = (
    ("kep", "kep", "binary"),
    ("kep-linear", "kep", "linear"),
    ("kep-exponential", "kep", "exponential"),
    ("kube", "kube", "binary"),
)


@dataclass
class Scenario:
    """The built cluster inputs and the preemptors."""

    nodes: list[Node]
    pods: list[Pod]
    groups: list[PodGroup]
    preemptors: list[PodGroupPreemptor]

    def cluster(self) -> Cluster:
        return Cluster(self.nodes, self.pods, pod_groups=self.groups, node_filter=NodeFilter.RESOURCE_FIT)


def build_scenario(num_preemptors: int, seed: int = SEED) -> Scenario:
    """1,000 nodes, each running exactly 10 pods drawn from 1,000 PodGroups of 10 pods.

    Each group has one pod shape (1, 2 or 4 cores, 4 GiB per core), a priority from 100
    classes and disruption mode ``All`` or ``Single`` (half each). Pods are shuffled onto the
    nodes, 10 per node, and each node's allocatable is its pods' total plus 0-2 free cores,
    so the cluster is nearly full and every preemptor needs to evict something.
    Preemptors: 2-128 pods of 4-16 cores, priority 400-1000, a gang of all (70 %) or half.
    """
    rng = random.Random(seed)
    groups: list[PodGroup] = []
    pods: list[Pod] = []
    for g in range(GROUPS):
        name = f"pg-{g:04d}"
        groups.append(
            PodGroup(
                name,
                namespace="jobs",
                uid=f"uid-{name}",
                priority=rng.choice(GROUP_PRIORITIES),
                disruption_mode=DisruptionMode.ALL if rng.random() < 0.5 else DisruptionMode.SINGLE,
                gang_min_count=PODS_PER_GROUP,
            )
        )
        cores = rng.choices(POD_CORES, POD_CORE_WEIGHTS)[0]
        for i in range(PODS_PER_GROUP):
            pods.append(
                Pod(
                    f"{name}-{i}",
                    namespace="jobs",
                    uid=f"uid-{name}-{i}",
                    requests={"cpu": str(cores), "memory": f"{4 * cores}Gi"},
                    start_time=rng.randrange(0, 10**9) * 10**9,
                    pod_group=name,
                )
            )
    rng.shuffle(pods)
    placed: list[Pod] = []
    nodes: list[Node] = []
    per_node = len(pods) // NODES
    for n in range(NODES):
        name = f"node-{n:04d}"
        chunk = pods[n * per_node : (n + 1) * per_node]
        cores = sum(p.amounts["cpu"] for p in chunk) // 1000 + rng.randint(0, 2)
        nodes.append(Node(name, {"cpu": str(cores), "memory": f"{4 * cores}Gi", "pods": "110"}))
        placed.extend(_bind(p, name) for p in chunk)
    preemptors = []
    for k in range(num_preemptors):
        count = rng.choice(PREEMPTOR_PODS)
        cores = rng.choice(PREEMPTOR_CORES)
        name = f"incoming-{k:03d}"
        gang = count if rng.random() < 0.7 else max(1, count // 2)
        preemptors.append(
            PodGroupPreemptor(
                PodGroup(name, namespace="jobs", priority=rng.choice(PREEMPTOR_PRIORITIES), gang_min_count=gang),
                [
                    Pod(f"{name}-{i}", namespace="jobs", requests={"cpu": str(cores), "memory": f"{4 * cores}Gi"})
                    for i in range(count)
                ],
            )
        )
    return Scenario(nodes, placed, groups, preemptors)


def _bind(pod: Pod, node: str) -> Pod:
    return Pod(
        pod.name,
        namespace=pod.namespace,
        uid=pod.uid,
        requests=pod.requests,
        node_name=node,
        start_time=pod.start_time,
        pod_group=pod.pod_group,
    )


# --------------------------------------------------------------------------- timing


def percentile(samples: list[float], p: float) -> float:
    """Nearest-rank percentile (p in (0, 100])."""
    ordered = sorted(samples)
    return ordered[max(1, math.ceil(p / 100 * len(ordered))) - 1]


def fingerprint(r: PodGroupPreemptionResult) -> tuple[object, ...]:
    return (r.status.code, tuple(p.name for p in r.victims), tuple(r.nominations.items()), r.priority_threshold)


def run(scenario: Scenario, rounds: int) -> dict[str, Any]:
    cluster = scenario.cluster()
    t0 = time.perf_counter()
    units = cluster.units  # built once, cached by the cluster
    build_ms = (time.perf_counter() - t0) * 1000
    before = cluster.state()
    samples: dict[str, list[list[float]]] = {name: [[] for _ in scenario.preemptors] for name, _, _ in CONFIGS}
    cpu: dict[str, list[list[float]]] = {name: [[] for _ in scenario.preemptors] for name, _, _ in CONFIGS}
    results: dict[str, list[PodGroupPreemptionResult]] = {name: [] for name, _, _ in CONFIGS}
    stable = True
    for name, mode, search in CONFIGS:  # warm-up, and the reference answers
        for pre in scenario.preemptors:
            results[name].append(select_podgroup_victims(pre, cluster, mode=mode, search=search))
    gc.collect()
    for _ in range(rounds):
        for i, pre in enumerate(scenario.preemptors):
            for name, mode, search in CONFIGS:  # interleaved, so drift hits all three alike
                start, cpu_start = time.perf_counter_ns(), time.thread_time_ns()
                r = select_podgroup_victims(pre, cluster, mode=mode, search=search)
                samples[name][i].append((time.perf_counter_ns() - start) / 1e6)
                cpu[name][i].append((time.thread_time_ns() - cpu_start) / 1e6)
                stable = stable and fingerprint(r) == fingerprint(results[name][i])
    unchanged = cluster.state() == before
    per_config: dict[str, Any] = {}
    for name, mode, search in CONFIGS:
        per_pre = [statistics.median(s) for s in samples[name]]
        per_pre_cpu = [statistics.median(s) for s in cpu[name]]
        rs = results[name]
        placements = [r.placements for r in rs]
        ok = [r for r in rs if r.status.code is StatusCode.SUCCESS]
        per_config[name] = {
            "mode": mode,
            "search": search,
            "ms_per_preemptor": {
                "median": statistics.median(per_pre),
                "p99": percentile(per_pre, 99),
                "mean": statistics.fmean(per_pre),
                "min": min(per_pre),
                "max": max(per_pre),
                "total_s": sum(per_pre) / 1000,
            },
            "cpu_ms_per_preemptor": {
                "median": statistics.median(per_pre_cpu),
                "p99": percentile(per_pre_cpu, 99),
                "mean": statistics.fmean(per_pre_cpu),
                "total_s": sum(per_pre_cpu) / 1000,
            },
            "placements": {
                "median": statistics.median(placements),
                "mean": statistics.fmean(placements),
                "max": max(placements),
                "total": sum(placements),
            },
            "successes": len(ok),
            "victim_pods_mean": statistics.fmean(len(r.victims) for r in ok) if ok else 0.0,
            "victim_units_mean": statistics.fmean(len(r.victim_units) for r in ok) if ok else 0.0,
            "highest_victim_priority_mean": (
                statistics.fmean(max((c.unit.priority for c in r.victim_units), default=-1) for r in ok) if ok else 0.0
            ),
            "per_preemptor_ms": per_pre,
        }
    binary, linear = results["kep"], results["kep-linear"]
    agree = sum(1 for b, lin in zip(binary, linear) if b.priority_threshold == lin.priority_threshold)
    speedups = [
        lin / b for b, lin in zip(per_config["kep"]["per_preemptor_ms"], per_config["kep-linear"]["per_preemptor_ms"])
    ]
    lower_than_kube = sum(
        1
        for kep, kube in zip(binary, results["kube"])
        if kep.status.code is StatusCode.SUCCESS
        and kube.status.code is StatusCode.SUCCESS
        and max((c.unit.priority for c in kep.victim_units), default=-1)
        < max((c.unit.priority for c in kube.victim_units), default=-1)
    )
    levels = [
        sorted({u.priority for u in units if u.priority < cluster.groups.group_priority(p.group)})
        for p in scenario.preemptors
    ]
    depth = _depth_buckets(levels, linear, per_config)
    return {
        "nodes": len(scenario.nodes),
        "pod_groups": len(scenario.groups),
        "running_pods": len(scenario.pods),
        "units": len(units),
        "preemptors": len(scenario.preemptors),
        "rounds": rounds,
        "unit_build_ms": build_ms,
        "candidate_levels": {
            "median": statistics.median(len(lv) for lv in levels),
            "max": max(len(lv) for lv in levels),
        },
        "by_depth": depth,
        "configs": per_config,
        "speedup_binary_over_linear": {
            "median_time_ratio": per_config["kep-linear"]["ms_per_preemptor"]["median"]
            / per_config["kep"]["ms_per_preemptor"]["median"],
            "total_time_ratio": per_config["kep-linear"]["ms_per_preemptor"]["total_s"]
            / per_config["kep"]["ms_per_preemptor"]["total_s"],
            "median_per_preemptor_ratio": statistics.median(speedups),
            "p99_time_ratio": per_config["kep-linear"]["ms_per_preemptor"]["p99"]
            / per_config["kep"]["ms_per_preemptor"]["p99"],
            "cpu_median_time_ratio": per_config["kep-linear"]["cpu_ms_per_preemptor"]["median"]
            / per_config["kep"]["cpu_ms_per_preemptor"]["median"],
            "cpu_total_time_ratio": per_config["kep-linear"]["cpu_ms_per_preemptor"]["total_s"]
            / per_config["kep"]["cpu_ms_per_preemptor"]["total_s"],
            "placements_ratio": per_config["kep-linear"]["placements"]["total"]
            / max(1, per_config["kep"]["placements"]["total"]),
        },
        "binary_equals_linear_n": agree,
        "kep_lower_top_victim_priority_than_kube": lower_than_kube,
        "cluster_unchanged": unchanged,
        "answers_stable": stable,
    }


DEPTH_BUCKETS = ((0.0, 0.1), (0.1, 0.25), (0.25, 0.5), (0.5, 1.01))
"""Where N lies among the k candidate levels, as the fraction index(N) / k."""


def _depth_buckets(
    levels: list[list[int]], linear: list[PodGroupPreemptionResult], per_config: dict[str, Any]
) -> list[dict[str, Any]]:
    """Median ms per configuration for preemptors grouped by how deep N lies (index(N) / k)."""
    depth: list[float | None] = []
    for lv, r in zip(levels, linear):
        n = r.priority_threshold
        depth.append(lv.index(n) / len(lv) if n is not None and lv else None)
    out = []
    for low, high in DEPTH_BUCKETS:
        idx = [i for i, d in enumerate(depth) if d is not None and low <= d < high]
        if not idx:
            continue
        row: dict[str, Any] = {"from": low, "to": min(high, 1.0), "preemptors": len(idx)}
        for name in per_config:
            row[name] = statistics.median(per_config[name]["per_preemptor_ms"][i] for i in idx)
        out.append(row)
    return out


# --------------------------------------------------------------------------- output


def machine_info() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "kueue_preempt": kueue_preempt.__version__,
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


def markdown(result: dict[str, Any], machine: dict[str, Any], quick: bool) -> str:
    load = machine["load_average_at_start"]
    head = (
        f"Python {machine['python']} ({machine['implementation']}) on {machine['platform']}, "
        f"{machine['cpu_count']} CPUs; kueue_preempt {machine['kueue_preempt']}; {machine['timestamp']}"
        + (f"; load average at start {load[0]:.2f}" if load else "")
        + (" — **--quick run**" if quick else "")
    )
    lines = [
        head,
        "",
        f"Cluster: {result['nodes']:,} nodes, {result['pod_groups']:,} PodGroups × 10 = "
        f"{result['running_pods']:,} running pods ({result['units']:,} preemption units); "
        f"{result['preemptors']} preemptors, each evaluated independently, {result['rounds']} timed "
        f"round(s); distinct candidate priorities per preemptor: median {result['candidate_levels']['median']}, "
        f"max {result['candidate_levels']['max']}.",
        "",
        "| Configuration | Median ms / preemptor | p99 ms | Mean ms | CPU median ms | CPU p99 ms "
        "| Placements (median / mean / max) | Successes | Victim pods (mean) | Top victim priority (mean) |",
        "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|",
    ]
    for name, c in result["configs"].items():
        t, pl, u = c["ms_per_preemptor"], c["placements"], c["cpu_ms_per_preemptor"]
        lines.append(
            f"| `{name}` | {t['median']:.2f} | {t['p99']:.2f} | {t['mean']:.2f} | {u['median']:.2f} | {u['p99']:.2f} "
            f"| {pl['median']:g} / {pl['mean']:.1f} / {pl['max']} | {c['successes']} "
            f"| {c['victim_pods_mean']:.1f} | {c['highest_victim_priority_mean']:.0f} |"
        )
    names = list(result["configs"])
    lines += [
        "",
        "Median ms per preemptor by how deep the level N lies among the k candidate levels "
        "(index of N / k, from the linear scan):",
        "",
        "| index(N) / k | Preemptors | " + " | ".join(f"`{n}`" for n in names) + " |",
        "|---|---:|" + "---:|" * len(names),
    ]
    for row in result["by_depth"]:
        lines.append(
            f"| {row['from']:.2f}–{row['to']:.2f} | {row['preemptors']} | "
            + " | ".join(f"{row[n]:.2f}" for n in names)
            + " |"
        )
    s = result["speedup_binary_over_linear"]
    lines += [
        "",
        f"**Binary search vs. linear scan:** {s['median_time_ratio']:.1f}× faster by median time per "
        f"preemptor, {s['p99_time_ratio']:.1f}× by p99 ({s['total_time_ratio']:.1f}× by total time, "
        "median of per-preemptor ratios "
        f"{s['median_per_preemptor_ratio']:.1f}×; CPU time: {s['cpu_median_time_ratio']:.1f}× by median, "
        f"{s['cpu_total_time_ratio']:.1f}× by total), {s['placements_ratio']:.1f}× fewer placements. "
        f"Same N for {result['binary_equals_linear_n']}/{result['preemptors']} preemptors. "
        f"KEP mode's most important victim has a lower priority than kube mode's for "
        f"{result['kep_lower_top_victim_priority_than_kube']}/{result['preemptors']} preemptors.",
        "",
        "Times are wall clock per `select_podgroup_victims` call (`time.perf_counter_ns`; CPU columns: "
        "`time.thread_time_ns`, blind to other processes on the machine), the median "
        "over rounds per preemptor, then the median and nearest-rank p99 over preemptors. The "
        "configurations run interleaved on the same `Cluster`, which each call restores exactly "
        "(checked: "
        f"{'unchanged' if result['cluster_unchanged'] else 'CHANGED'}; answers "
        f"{'stable' if result['answers_stable'] else 'UNSTABLE'} across rounds). Units are built once "
        f"per cluster ({result['unit_build_ms']:.0f} ms) and not timed. Placement: FIT-3 round-robin "
        "first fit (the default); fit: FIT-1 over cpu, memory and pods.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10 preemptors, 1 round: a smoke run")
    parser.add_argument("--preemptors", type=int, default=None, help=f"default {PREEMPTORS} (10 with --quick)")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds (default 3, 1 with --quick)")
    parser.add_argument("--out", default="benchmarks/results", help="output directory (default: %(default)s)")
    args = parser.parse_args(argv)
    preemptors = args.preemptors or (10 if args.quick else PREEMPTORS)
    rounds = args.rounds or (1 if args.quick else 3)
    machine = machine_info()
    scenario = build_scenario(preemptors)
    result = run(scenario, rounds)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    doc = {"benchmark": "PodGroup preemption: select_podgroup_victims", "seed": SEED, "quick": args.quick,
           "machine": machine, "result": result}
    (out / "podgroup.json").write_text(json.dumps(doc, indent=2) + "\n")
    table = markdown(result, machine, args.quick)
    (out / "podgroup.md").write_text("# PodGroup preemption benchmark\n\n" + table)
    print(table)
    if not (result["cluster_unchanged"] and result["answers_stable"]):
        print("checks failed: the cluster changed or answers were unstable", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

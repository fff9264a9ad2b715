#!/usr/bin/env python3
"""Scale benchmark (issue 7): classic and fair decisions, plain and indexed, at tiers S-PG.

For every tier (S-b10, S-b100, M, L, XL, H) and both algorithms (classic, fair sharing) it
builds the synthetic state of ``_scenarios.py`` (fixed seed), then measures:

* **single decision** on an unchanging snapshot: ``get_targets`` on the plain snapshot and on
  a second snapshot of the same state with ``Snapshot.enable_index(config)``, interleaved with
  ``sorted()`` over the candidates (all tree candidates, and the subset the algorithm scans)
  keyed by ``candidate_sort_key``; the results of both paths must be identical;
* **repeated decisions**: the same preemptor decided again and again on both snapshots, with
  ``CHURN_OPS`` random replacements between two decisions (``remove_workload`` of a random
  admitted workload, ``add_workload`` of a new one in the same ClusterQueue with the same
  usage and a new priority and reservation time), so that the index is maintained
  incrementally; only the decisions are timed, every decision needs at most 10 targets, and
  the indexed and plain answers are compared after each round;
* **memory** (tracemalloc), per admitted workload: the input model objects, the snapshot
  (retained and peak of its build) and the candidate index (retained and peak of
  ``enable_index``), and the transient peak of one decision.

Tier PG reuses ``bench_podgroup.py``'s scenario and run (1,000 nodes, 1,000 PodGroups × 10
pods, KEP binary search) and adds its memory and a ``sorted()`` baseline over the units.

Usage::

    python benchmarks/bench_scale.py [--tiers S-b10,S-b100,M,L,XL,H,PG] [--algorithms classic,fair]
                                     [--quick] [--out benchmarks/results] [--plot docs/performance-tiers.svg]
    python benchmarks/bench_scale.py --tiers L --algorithms fair --profile 25   # cProfile, plain + indexed
    python benchmarks/bench_scale.py --redraw      # rewrite scale.md and the SVG from <out>/scale.json

Writes ``<out>/scale.json`` and ``<out>/scale.md``, prints the tables and draws the SVG chart.
Needs only the ``kueue_preempt`` package and the scripts beside this file; ``mypy --strict``
clean. Method and results: docs/performance.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import statistics
import sys
import time
import tracemalloc
import zlib
from collections import Counter
from datetime import timedelta
from pathlib import Path
from typing import Any, Callable

import bench_podgroup
from _scenarios import (
    NOW,
    PRIORITY_CLASSES,
    PRIORITY_WEIGHTS,
    SCALES,
    SEED,
    Scale,
    Scenario,
    fair_scanned_candidates,
    fits_after,
    machine_info,
    make_snapshot,
    measure_build,
    measure_models,
    percentile,
    profile_decisions,
    scanned_candidates,
    sort_by_key,
    summary,
    time_interleaved,
    tree_candidates,
)
from kueue_preempt import Snapshot, Target, Workload, get_targets
from kueue_preempt.podgroup import Cluster

TIERS: dict[str, Scale] = {
    "S-b10": SCALES["S-b10"],
    "S-b100": SCALES["S-b100"],
    "M": SCALES["M"],
    "L": SCALES["L"],
    "XL": Scale("XL", 20, 100, 60_000, True, 100, 3, 60.0, 3, "20 cohorts x 100 CQs under one root, 60,000 workloads"),
    "H": Scale(
        "H",
        100,
        10,
        50_000,
        True,
        100,
        3,
        60.0,
        3,
        "3 cohort levels, fan-out 10: root > 10 > 100 cohorts of 10 CQs (1,000 CQs), 50,000 workloads",
        mid_fanout=10,
    ),
}
PG = "PG"
DEFAULT_TIERS = "S-b10,S-b100,M,L,XL,H,PG"
ALGORITHMS = ("classic", "fair")

CHURN_OPS = 10
"""Random replacements (one remove + one add each) between two repeated decisions."""
REPEATED_STEPS = {"S-b10": 500, "S-b100": 500, "M": 200, "L": 100, "XL": 100, "H": 100}
REPEATED_BUDGET_S = 60.0
MAX_TARGETS = 10
"""Issue 7: the repeated decisions each need at most this many targets."""

DEFAULT_PLOT = "docs/performance-tiers.svg"
TITLE = "# Scale benchmark (issue 7)\n\n"
TARGET_RATIO = 3.0
TARGET_INDEXED_MS = 1.0
TARGET_BYTES_PER_WORKLOAD = 2048


# --------------------------------------------------------------------------- helpers


def target_keys(targets: list[Target]) -> list[tuple[str, str]]:
    return [(t.workload.key, t.reason.value) for t in targets]


def traced(fn: Callable[[], object]) -> tuple[int, int]:
    """(retained, peak) bytes allocated by ``fn()`` under tracemalloc; what it returns stays
    alive until the retained size is read."""
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    kept = fn()
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del kept
    return retained, peak


def measure_index(sc: Scenario) -> dict[str, Any]:
    """Build time and tracemalloc (retained, peak) of ``enable_index`` on a fresh snapshot."""
    n = len(sc.workloads)
    snap = make_snapshot(sc)
    t0 = time.perf_counter_ns()
    snap.enable_index(sc.config)
    build_ms = (time.perf_counter_ns() - t0) / 1e6
    snap.disable_index()
    retained, peak = traced(lambda: snap.enable_index(sc.config))
    return {
        "build_ms": build_ms,
        "us_per_workload": build_ms * 1000 / n,
        "retained_bytes": retained,
        "retained_bytes_per_workload": retained / n,
        "peak_bytes_per_workload": peak / n,
    }


class Churn:
    """Random replacements applied to several snapshots alike (the index follows them)."""

    def __init__(self, sc: Scenario, snapshots: list[Snapshot], seed: int) -> None:
        self.rng = random.Random(seed)
        self.snapshots = snapshots
        self.live: list[Workload] = list(sc.workloads)
        self.made = 0
        self.op_ns: list[list[int]] = [[] for _ in snapshots]
        """Time of one remove + add per snapshot (not part of the decision timings)."""

    def replacement(self, old: Workload) -> Workload:
        rng = self.rng
        self.made += 1
        reserved = NOW - timedelta(seconds=rng.randrange(1, 3600))
        return Workload(
            name=f"churn-{self.made}",
            namespace=old.namespace,
            uid=f"uid-churn-{self.made}",
            cluster_queue=old.cluster_queue,
            local_queue=old.local_queue,
            priority=rng.choices(PRIORITY_CLASSES, PRIORITY_WEIGHTS)[0],
            creation_time=reserved - timedelta(seconds=rng.randrange(0, 600)),
            quota_reserved_at=reserved,
            evicted=rng.random() < 0.01,
            pod_sets=old.pod_sets,
        )

    def step(self, ops: int) -> None:
        clock = time.perf_counter_ns
        for _ in range(ops):
            i = self.rng.randrange(len(self.live))
            old = self.live[i]
            new = self.replacement(old)
            self.live[i] = new
            for j, snap in enumerate(self.snapshots):
                t0 = clock()
                snap.remove_workload(old)
                snap.add_workload(new)
                self.op_ns[j].append(clock() - t0)


def decision_peak(decide: Callable[[], list[Target]]) -> int:
    """Transient tracemalloc peak of one decision, in bytes."""
    _retained, peak = traced(decide)
    return peak


# --------------------------------------------------------------------------- one tier


def run_tier(scale: Scale, algorithm: str, quick: bool, profile_top: int) -> dict[str, Any]:
    fair = algorithm == "fair"
    label = f"{scale.name} {algorithm}"
    print(f"[{label}] generating state ...", file=sys.stderr, flush=True)
    sc, models = measure_models(scale, fair)
    n = len(sc.workloads)
    build = measure_build(sc, 1 if quick else scale.build_runs)
    index_mem = measure_index(sc)
    config = sc.config
    cq = sc.preemptor_cq
    frs = sc.assignment.preempt
    plain = make_snapshot(sc)
    indexed = make_snapshot(sc)
    indexed.enable_index(config)
    candidates = tree_candidates(plain, cq, frs)
    scanned = (fair_scanned_candidates if fair else scanned_candidates)(plain, cq, frs)
    last: dict[str, list[Target]] = {}

    def on(snap: Snapshot, name: str) -> Callable[[], list[Target]]:
        def decide() -> list[Target]:
            out = get_targets(sc.preemptor, cq, sc.assignment, snap, config=config, now=NOW)
            last[name] = out
            return out

        return decide

    decide_plain, decide_indexed = on(plain, "plain"), on(indexed, "indexed")

    sort_tree = sort_by_key(candidates, cq, config)
    sort_scanned = sort_by_key(scanned, cq, config)

    # ---- single decision on an unchanging state
    before = plain.state()
    first = decide_plain()
    first_indexed = decide_indexed()
    assert indexed.index_for(config) is not None, "the index is not used by this configuration"
    print(f"[{label}] {n} workloads, {len(candidates)} candidates, {len(first)} targets; timing ...", file=sys.stderr, flush=True)
    runs = scale.quick_runs if quick else scale.runs
    warmup = 1 if quick else 3
    single = time_interleaved([decide_plain, decide_indexed, sort_tree, sort_scanned], runs, warmup, scale.budget_s)
    dp, di, st, ss = (summary(w, c, g, warmup) for w, c, g in zip(single.wall, single.cpu, single.gc_pause))
    peak_plain = decision_peak(decide_plain)
    peak_indexed = decision_peak(decide_indexed)
    checks = {
        "snapshot_unchanged": plain.state() == before,
        "targets_stable": target_keys(last["plain"]) == target_keys(first),
        "targets_sufficient": bool(first) and fits_after(plain, sc, first),
        "indexed_equals_plain": target_keys(first_indexed) == target_keys(first)
        and target_keys(last["indexed"]) == target_keys(first),
    }

    profiles: dict[str, str] = {}
    if profile_top:
        for name, fn in (("plain", decide_plain), ("indexed", decide_indexed)):
            profiles[name] = profile_decisions(fn, f"{label} {name}", 20, profile_top)

    # ---- repeated decisions with churn between them
    churn = Churn(sc, [indexed, plain], SEED ^ zlib.crc32(label.encode()))
    counts: list[int] = []
    mismatches = [0]

    def between(r: int) -> None:
        if r > 0:
            counts.append(len(last["indexed"]))
            if target_keys(last["indexed"]) != target_keys(last["plain"]):
                mismatches[0] += 1
        churn.step(CHURN_OPS)

    steps = 10 if quick else REPEATED_STEPS[scale.name]
    repeated = time_interleaved([decide_indexed, decide_plain], steps, warmup, REPEATED_BUDGET_S, between)
    counts.append(len(last["indexed"]))
    if target_keys(last["indexed"]) != target_keys(last["plain"]):
        mismatches[0] += 1
    ri, rp = (summary(w, c, g, warmup) for w, c, g in zip(repeated.wall, repeated.cpu, repeated.gc_pause))
    checks["repeated_indexed_equals_plain"] = mismatches[0] == 0
    checks["repeated_all_found_targets"] = min(counts) > 0
    op_us = [statistics.median(x) / 1e3 for x in churn.op_ns]

    # ---- the same decisions, indexed alone: a third snapshot replays the same churn (same
    # seed, so the same sequence of states and answers), with no plain decision in between (a
    # plain one allocates megabytes and leaves the caches cold for the next indexed one)
    replay = make_snapshot(sc)
    replay.enable_index(config)
    decide_replay = on(replay, "replay")
    alone_churn = Churn(sc, [replay], SEED ^ zlib.crc32(label.encode()))
    alone_counts: list[int] = []

    def between_alone(r: int) -> None:
        if r > 0:
            alone_counts.append(len(last["replay"]))
        alone_churn.step(CHURN_OPS)

    alone = time_interleaved([decide_replay], len(counts), warmup, REPEATED_BUDGET_S, between_alone)
    alone_counts.append(len(last["replay"]))
    ra = summary(alone.wall[0], alone.cpu[0], alone.gc_pause[0], warmup)
    checks["alone_same_decisions"] = alone_counts == counts

    for s in (dp, di, st, ss, ri, rp, ra):
        del s["samples"]  # keep the committed JSON small; medians and p99s are below
    total = (
        models["retained_bytes_per_workload"]
        + build["retained_bytes_per_workload"]
        + index_mem["retained_bytes_per_workload"]
    )
    node = plain.cluster_queue(cq)
    result: dict[str, Any] = {
        "tier": scale.name,
        "algorithm": algorithm,
        "description": scale.description,
        "cohorts": len(sc.cohorts),
        "cluster_queues": len(sc.cluster_queues),
        "admitted_workloads": n,
        "preemptor": {
            "cluster_queue": cq,
            "cohort_path": plain.path(node),
            "requests": {str(fr): v for fr, v in sorted(sc.assignment.requests.items())},
            "preempt": sorted(str(fr) for fr in frs),
        },
        "candidates": len(candidates),
        "candidates_scanned": len(scanned),
        "targets": len(first),
        "target_reasons": dict(Counter(t.reason.value for t in first)),
        "single": {
            "plain_ms": dp,
            "indexed_ms": di,
            "sorted_ms": st,
            "sorted_scanned_ms": ss,
            "ratio_plain_to_sorted": dp["median"] / st["median"],
            "ratio_plain_to_sorted_scanned": dp["median"] / ss["median"],
            "ratio_indexed_to_sorted": di["median"] / st["median"],
            "ratio_indexed_to_plain": di["median"] / dp["median"],
            "gc_collections_in_timed_loop": single.gc_collections,
            "load_average_before": single.load_before,
            "load_average_after": single.load_after,
        },
        "repeated": {
            "steps": len(repeated.wall[0]),
            "churn_ops_per_step": CHURN_OPS,
            "indexed_ms": ri,
            "plain_ms": rp,
            "ratio_indexed_to_plain": ri["median"] / rp["median"],
            "targets_min": min(counts),
            "targets_max": max(counts),
            "targets_median": statistics.median(counts),
            "indexed_alone_ms": ra,
            "indexed_alone_targets_min": min(alone_counts),
            "indexed_alone_targets_max": max(alone_counts),
            "indexed_alone_load_average": [alone.load_before, alone.load_after],
            "churn_op_us_median": {"indexed": op_us[0], "plain": op_us[1]},
            "gc_collections_in_timed_loop": repeated.gc_collections,
            "load_average_before": repeated.load_before,
            "load_average_after": repeated.load_after,
        },
        "memory": {
            "model_objects_bytes_per_workload": models["retained_bytes_per_workload"],
            "snapshot_retained_bytes_per_workload": build["retained_bytes_per_workload"],
            "snapshot_peak_bytes_per_workload": build["peak_bytes_per_workload"],
            "index_retained_bytes_per_workload": index_mem["retained_bytes_per_workload"],
            "index_peak_bytes_per_workload": index_mem["peak_bytes_per_workload"],
            "total_retained_bytes_per_workload": total,
            "decision_peak_bytes": {"plain": peak_plain, "indexed": peak_indexed},
        },
        "snapshot_build": build,
        "index_build": index_mem,
        "checks": checks,
    }
    if profiles:
        result["profiles"] = profiles
    return result


def run_pg(quick: bool) -> dict[str, Any]:
    """Tier PG: bench_podgroup's scenario and run, plus memory and a sorted() baseline."""
    preemptors = 10 if quick else bench_podgroup.PREEMPTORS
    rounds = 1 if quick else 3
    print(f"[PG] generating state ({preemptors} preemptors, {rounds} rounds) ...", file=sys.stderr, flush=True)
    # The running cluster's model objects only: the preemptors (and their pods) are drawn after
    # the cluster from the same generator, so build_scenario(0) builds the identical cluster.
    models_retained, _ = traced(lambda: bench_podgroup.build_scenario(0))
    scenario = bench_podgroup.build_scenario(preemptors)
    clusters: list[Cluster] = []

    def build_cluster() -> object:
        c = scenario.cluster()
        clusters.append(c)
        return c.units

    cluster_retained, cluster_peak = traced(build_cluster)
    del clusters
    pods = len(scenario.pods)
    groups = len(scenario.groups)
    result = bench_podgroup.run(scenario, rounds)
    kep = result["configs"]["kep"]
    units = list(scenario.cluster().units)
    samples: list[float] = []
    rng = random.Random(SEED)
    for _ in range(5 if quick else 50):
        shuffled = units[:]
        rng.shuffle(shuffled)  # sorting an already sorted tuple would be unfairly cheap
        t0 = time.perf_counter_ns()
        sorted(shuffled, key=lambda u: u.importance)
        samples.append((time.perf_counter_ns() - t0) / 1e6)
    sort_median = statistics.median(samples)
    return {
        "tier": PG,
        "description": "1,000 nodes, 1,000 PodGroups x 10 pods (bench_podgroup.py), KEP binary search",
        "nodes": result["nodes"],
        "pod_groups": groups,
        "running_pods": pods,
        "units": result["units"],
        "preemptors": result["preemptors"],
        "rounds": result["rounds"],
        "kep_ms_per_preemptor": {k: kep["ms_per_preemptor"][k] for k in ("median", "p99", "mean", "max")},
        "kube_ms_per_preemptor": {
            k: result["configs"]["kube"]["ms_per_preemptor"][k] for k in ("median", "p99", "mean", "max")
        },
        "sorted_units_ms": {"median": sort_median, "p99": percentile(samples, 99), "runs": len(samples)},
        "ratio_kep_to_sorted_units": kep["ms_per_preemptor"]["median"] / sort_median,
        "memory": {
            "model_objects_bytes_per_pod": models_retained / pods,
            "model_objects_bytes_per_group": models_retained / groups,
            "cluster_and_units_retained_bytes_per_pod": cluster_retained / pods,
            "cluster_and_units_peak_bytes_per_pod": cluster_peak / pods,
            "total_retained_bytes_per_pod": (models_retained + cluster_retained) / pods,
            "total_retained_bytes_per_group": (models_retained + cluster_retained) / groups,
        },
        "checks": {"cluster_unchanged": result["cluster_unchanged"], "answers_stable": result["answers_stable"]},
    }


# --------------------------------------------------------------------------- targets


def evaluate_targets(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Issue 7's three targets, judged at L for every algorithm measured there."""
    out: list[dict[str, Any]] = []
    for r in results:
        if r.get("tier") != "L":
            continue
        alg = r["algorithm"]
        s = r["single"]
        out.append(
            {
                "target": f"L {alg}: one decision (plain) <= {TARGET_RATIO:g}x sorted() over its candidates",
                "value": s["ratio_plain_to_sorted"],
                "also": f"vs sorted() over the scanned candidates: {s['ratio_plain_to_sorted_scanned']:.2f}x",
                "met": s["ratio_plain_to_sorted"] <= TARGET_RATIO,
            }
        )
        rep = r["repeated"]
        alone = rep["indexed_alone_ms"]
        out.append(
            {
                "target": f"L {alg}: indexed repeated decisions (<= {MAX_TARGETS} targets) <= {TARGET_INDEXED_MS:g} ms median",
                "value": alone["median"],
                "also": (
                    f"p99 {alone['p99']:.2f} ms; {rep['indexed_ms']['median']:.2f} ms interleaved with plain decisions; "
                    f"targets per decision {rep['indexed_alone_targets_min']}-{rep['indexed_alone_targets_max']}"
                ),
                "met": alone["median"] <= TARGET_INDEXED_MS and rep["indexed_alone_targets_max"] <= MAX_TARGETS,
            }
        )
        m = r["memory"]
        out.append(
            {
                "target": f"L {alg}: memory <= 2 KiB per admitted workload (model + snapshot + index)",
                "value": m["total_retained_bytes_per_workload"],
                "also": (
                    f"model {m['model_objects_bytes_per_workload']:.0f} + snapshot "
                    f"{m['snapshot_retained_bytes_per_workload']:.0f} + index {m['index_retained_bytes_per_workload']:.0f} B"
                ),
                "met": m["total_retained_bytes_per_workload"] <= TARGET_BYTES_PER_WORKLOAD,
            }
        )
    return out


# --------------------------------------------------------------------------- output


def _ms(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def markdown(doc: dict[str, Any]) -> str:
    machine = doc["machine"]
    results = [r for r in doc["results"] if r["tier"] != PG]
    pg = [r for r in doc["results"] if r["tier"] == PG]
    lines = [
        f"Python {machine['python']} ({machine['implementation']}) on {machine['platform']}, "
        f"{machine['cpu_count']} CPUs; kueue_preempt {machine['kueue_preempt']} "
        f"(sources sha256 {machine['kueue_preempt_sources']['sha256'][:12]}); {machine['timestamp']}"
        + (" — **--quick run, few repeats**" if doc["quick"] else ""),
        "",
        "### Single decision (unchanging snapshot; plain, indexed and sorts timed interleaved)",
        "",
        "| Tier | Alg. | CQs | Admitted | Candidates (tree / scanned) | Targets (reasons) "
        "| Plain median ms | Plain p99 ms | Indexed median ms | Indexed p99 ms | Indexed / plain "
        "| sorted() median ms | **Plain / sorted()** | Plain / sorted(scanned) | Runs |",
        "|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        s = r["single"]
        reasons = ", ".join(f"{v} {k}" for k, v in sorted(r["target_reasons"].items()))
        lines.append(
            f"| {r['tier']} | {r['algorithm']} | {r['cluster_queues']:,} | {r['admitted_workloads']:,} "
            f"| {r['candidates']:,} / {r['candidates_scanned']:,} | {r['targets']} ({reasons}) "
            f"| {_ms(s['plain_ms']['median'])} | {_ms(s['plain_ms']['p99'])} "
            f"| {_ms(s['indexed_ms']['median'])} | {_ms(s['indexed_ms']['p99'])} | {s['ratio_indexed_to_plain']:.3f} "
            f"| {_ms(s['sorted_ms']['median'])} | **{s['ratio_plain_to_sorted']:.2f}** "
            f"| {s['ratio_plain_to_sorted_scanned']:.2f} | {s['plain_ms']['runs']} |"
        )
    lines += [
        "",
        f"### Repeated decisions ({CHURN_OPS} random replacements between two decisions; only decisions timed)",
        "",
        "Indexed and plain: timed interleaved on two snapshots kept in step; indexed alone: indexed "
        "decisions only, no plain decision in between (as in a scheduler that uses the index).",
        "",
        "| Tier | Alg. | Steps | Targets per decision (min–max) | **Indexed alone median ms** | Indexed alone p99 ms "
        "| Indexed median ms | Indexed p99 ms | Plain median ms | Plain p99 ms | Indexed / plain "
        "| Remove+add µs (indexed / plain) | Same answers | Load avg before → after |",
        "|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
    ]
    for r in results:
        p = r["repeated"]
        la, lb = p["load_average_before"], p["load_average_after"]
        load = f"{la[0]:.2f} → {lb[0]:.2f}" if la and lb else "n/a"
        a = p["indexed_alone_ms"]
        tmin = min(p["targets_min"], p["indexed_alone_targets_min"])
        tmax = max(p["targets_max"], p["indexed_alone_targets_max"])
        lines.append(
            f"| {r['tier']} | {r['algorithm']} | {p['indexed_ms']['runs']} | {tmin}–{tmax} "
            f"| **{_ms(a['median'])}** | {_ms(a['p99'])} "
            f"| {_ms(p['indexed_ms']['median'])} | {_ms(p['indexed_ms']['p99'])} "
            f"| {_ms(p['plain_ms']['median'])} | {_ms(p['plain_ms']['p99'])} | {p['ratio_indexed_to_plain']:.3f} "
            f"| {p['churn_op_us_median']['indexed']:.0f} / {p['churn_op_us_median']['plain']:.0f} "
            f"| {'yes' if r['checks']['repeated_indexed_equals_plain'] else '**NO**'} | {load} |"
        )
    lines += [
        "",
        "### Checks on the timings: CPU time and garbage collection",
        "",
        "| Tier | Alg. | Plain: wall / CPU median ms | Plain p99 excl. GC ms | GC share of plain time "
        "| Indexed alone: wall / CPU median ms | Indexed alone p99 excl. GC ms | GC runs, single-decision loop (gen0/1/2) |",
        "|---|---|---|---:|---:|---|---:|---|",
    ]
    for r in results:
        sp, ia = r["single"]["plain_ms"], r["repeated"]["indexed_alone_ms"]
        g = r["single"]["gc_collections_in_timed_loop"]
        lines.append(
            f"| {r['tier']} | {r['algorithm']} | {_ms(sp['median'])} / {_ms(sp['cpu_median'])} "
            f"| {_ms(sp['p99_excluding_gc'])} | {sp['gc_pause_share']:.0%} "
            f"| {_ms(ia['median'])} / {_ms(ia['cpu_median'])} | {_ms(ia['p99_excluding_gc'])} | {g[0]}/{g[1]}/{g[2]} |"
        )
    lines += [
        "",
        "### Memory per admitted workload (tracemalloc, bytes)",
        "",
        "| Tier | Alg. | Admitted | Model objects | Snapshot retained (build peak) | Index retained (build peak) "
        "| **Total retained** | Index build ms | Decision peak KiB (plain / indexed) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in results:
        m = r["memory"]
        dpk = m["decision_peak_bytes"]
        lines.append(
            f"| {r['tier']} | {r['algorithm']} | {r['admitted_workloads']:,} | {m['model_objects_bytes_per_workload']:,.0f} "
            f"| {m['snapshot_retained_bytes_per_workload']:,.0f} ({m['snapshot_peak_bytes_per_workload']:,.0f}) "
            f"| {m['index_retained_bytes_per_workload']:,.0f} ({m['index_peak_bytes_per_workload']:,.0f}) "
            f"| **{m['total_retained_bytes_per_workload']:,.0f}** | {r['index_build']['build_ms']:.0f} "
            f"| {dpk['plain'] / 1024:,.0f} / {dpk['indexed'] / 1024:,.0f} |"
        )
    for r in pg:
        m = r["memory"]
        k, kube, srt = r["kep_ms_per_preemptor"], r["kube_ms_per_preemptor"], r["sorted_units_ms"]
        lines += [
            "",
            "### PG: PodGroup victim selection (bench_podgroup.py's scenario and run)",
            "",
            "| Nodes | PodGroups × pods | Units | Preemptors × rounds | KEP median ms | KEP p99 ms "
            "| kube mode median ms | sorted() of all units ms | KEP / sorted() | Model B/pod | Cluster+units B/pod "
            "| **Total B/pod** (B/group) |",
            "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|",
            f"| {r['nodes']:,} | {r['pod_groups']:,} × {r['running_pods'] // r['pod_groups']} | {r['units']:,} "
            f"| {r['preemptors']} × {r['rounds']} | {k['median']:.2f} | {k['p99']:.2f} | {kube['median']:.2f} "
            f"| {srt['median']:.2f} | {r['ratio_kep_to_sorted_units']:.1f} | {m['model_objects_bytes_per_pod']:,.0f} "
            f"| {m['cluster_and_units_retained_bytes_per_pod']:,.0f} | **{m['total_retained_bytes_per_pod']:,.0f}** "
            f"({m['total_retained_bytes_per_group']:,.0f}) |",
        ]
    if doc["targets"]:
        lines += ["", "### Issue 7 targets (at L)", "", "| Target | Measured | Detail | Met |", "|---|---:|---|---|"]
        for t in doc["targets"]:
            v = t["value"]
            value = f"{v:,.0f} B" if "memory" in t["target"] else (f"{v:.3f} ms" if " ms " in t["target"] else f"{v:.2f}×")
            lines.append(f"| {t['target']} | {value} | {t['also']} | {'**yes**' if t['met'] else '**no**'} |")
    lines += [
        "",
        "Plain = `get_targets` on a snapshot without index; indexed = the same call on a second snapshot "
        "of the same state after `enable_index(config)`. Candidates (tree) = admitted workloads in the "
        "preemptor's cohort tree using a preempted FlavorResource (the `sorted()` baseline); scanned = "
        "the subset the algorithm examines (classic: own CQ + over-nominal CQs in over-quota subtrees; "
        "fair: own CQ + every borrowing CQ of the tree). Medians and nearest-rank p99 of wall-clock "
        "times (garbage collector on); with fewer than 100 runs the p99 is the maximum. Memory: "
        "retained bytes after building each structure, divided by the admitted workloads; model "
        "objects = ClusterQueues, cohorts and Workloads as the caller holds them.",
        "",
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- plot

SERIES = (
    ("classic", "single", "plain_ms", "classic, plain", "#1f77b4"),
    ("classic", "repeated", "indexed_alone_ms", "classic, indexed (repeated)", "#9ecae1"),
    ("fair", "single", "plain_ms", "fair, plain", "#d62728"),
    ("fair", "repeated", "indexed_alone_ms", "fair, indexed (repeated)", "#fc9272"),
)


def svg_chart(doc: dict[str, Any]) -> str:
    """Grouped bars of the median decision time per tier (log scale), pure SVG text."""
    results = doc["results"]
    tiers = [t for t in TIERS if any(r["tier"] == t for r in results)]
    pg = next((r for r in results if r["tier"] == PG), None)
    values: dict[tuple[str, int], float] = {}
    for r in results:
        if r["tier"] == PG:
            continue
        for i, (alg, phase, key, _label, _color) in enumerate(SERIES):
            if r["algorithm"] == alg:
                values[(r["tier"], i)] = r[phase][key]["median"]
    groups = tiers + ([PG] if pg else [])
    all_values = list(values.values()) + ([pg["kep_ms_per_preemptor"]["median"]] if pg else [])
    if not all_values:
        return ""
    lo = 10 ** math.floor(math.log10(min(all_values)))
    hi = 10 ** math.ceil(math.log10(max(all_values)))
    width, height = 760, 380
    left, right, top, bottom = 64, 16, 40, 76
    plot_w, plot_h = width - left - right, height - top - bottom

    def y(v: float) -> float:
        return top + plot_h * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2}" y="20" text-anchor="middle" font-size="14">'
        "Median decision time per tier (ms, log scale)</text>",
        f'<text x="16" y="{top + (height - top - bottom) / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {top + (height - top - bottom) / 2:.0f})">ms per decision</text>',
    ]
    decade = lo
    while decade <= hi * 1.0001:
        yy = y(decade)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{width - right}" y2="{yy:.1f}" stroke="#ddd"/>')
        label = f"{decade:g}"
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{label}</text>')
        decade *= 10
    target_y = y(TARGET_INDEXED_MS)
    out.append(
        f'<line x1="{left}" y1="{target_y:.1f}" x2="{width - right}" y2="{target_y:.1f}" '
        'stroke="#2ca02c" stroke-dasharray="6,4"/>'
    )
    out.append(
        f'<text x="{left + 4}" y="{target_y + 14:.1f}" fill="#2ca02c">1 ms target</text>'
    )
    slot = plot_w / len(groups)
    bar = slot * 0.8 / len(SERIES)
    base = top + plot_h
    for g, tier in enumerate(groups):
        x0 = left + g * slot + slot * 0.1
        if tier == PG and pg is not None:
            v = pg["kep_ms_per_preemptor"]["median"]
            bx = x0 + bar * (len(SERIES) - 1) / 2
            out.append(
                f'<rect x="{bx:.1f}" y="{y(v):.1f}" width="{bar:.1f}" height="{base - y(v):.1f}" fill="#7f7f7f">'
                f"<title>PG KEP: {v:.2f} ms</title></rect>"
            )
        for i, (_alg, _phase, _key, label, color) in enumerate(SERIES):
            v = values.get((tier, i))
            if v is None:
                continue
            bx = x0 + i * bar
            out.append(
                f'<rect x="{bx:.1f}" y="{y(v):.1f}" width="{bar - 1:.1f}" height="{base - y(v):.1f}" fill="{color}">'
                f"<title>{tier} {label}: {v:.3f} ms</title></rect>"
            )
        out.append(f'<text x="{left + g * slot + slot / 2:.1f}" y="{base + 16}" text-anchor="middle">{tier}</text>')
    out.append(f'<line x1="{left}" y1="{base}" x2="{width - right}" y2="{base}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{base}" stroke="black"/>')
    legend = [(label, color) for _a, _p, _k, label, color in SERIES] + ([("PG: PodGroup KEP search", "#7f7f7f")] if pg else [])
    for i, (label, color) in enumerate(legend):
        lx = left + (i % 3) * 230
        ly = base + 36 + (i // 3) * 18
        out.append(f'<rect x="{lx}" y="{ly - 10}" width="12" height="12" fill="{color}"/>')
        out.append(f'<text x="{lx + 18}" y="{ly}">{label}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------- main


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--tiers", default=DEFAULT_TIERS, help=f"comma-separated (default: {DEFAULT_TIERS})")
    parser.add_argument("--algorithms", default=",".join(ALGORITHMS), help="classic,fair (default: both)")
    parser.add_argument("--quick", action="store_true", help="few repeats, for smoke runs")
    parser.add_argument("--out", default="benchmarks/results", help="output directory (default: %(default)s)")
    parser.add_argument(
        "--plot",
        default=None,
        help=f"SVG chart path (default: {DEFAULT_PLOT}, but none with --quick; '' for none)",
    )
    parser.add_argument("--redraw", action="store_true", help="only rewrite scale.md and the chart from <out>/scale.json")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile 20 plain and 20 indexed decisions")
    args = parser.parse_args(argv)
    out = Path(args.out)
    plot = args.plot if args.plot is not None else ("" if args.quick else DEFAULT_PLOT)
    if args.redraw:
        saved: dict[str, Any] = json.loads((out / "scale.json").read_text())
        (out / "scale.md").write_text(TITLE + markdown(saved))
        Path(plot or DEFAULT_PLOT).write_text(svg_chart(saved))
        return 0
    tiers = [t.strip() for t in args.tiers.split(",") if t.strip()]
    algorithms = [a.strip() for a in args.algorithms.split(",") if a.strip()]
    for t in tiers:
        if t not in TIERS and t != PG:
            raise SystemExit(f"unknown tier {t!r}; known: {', '.join([*TIERS, PG])}")
    for a in algorithms:
        if a not in ALGORITHMS:
            raise SystemExit(f"unknown algorithm {a!r}; known: {', '.join(ALGORITHMS)}")
    machine = machine_info()
    results: list[dict[str, Any]] = []
    for t in tiers:
        if t == PG:
            results.append(run_pg(args.quick))
        else:
            for a in algorithms:
                results.append(run_tier(TIERS[t], a, args.quick, args.profile))
        gc.collect()
    doc: dict[str, Any] = {
        "benchmark": "issue 7 scale tiers: classic and fair, plain and indexed; PodGroup",
        "seed": SEED,
        "quick": args.quick,
        "churn_ops_per_step": CHURN_OPS,
        "machine": machine,
        "results": results,
    }
    doc["targets"] = evaluate_targets(results)
    out.mkdir(parents=True, exist_ok=True)
    profiles = {f"{r['tier']}-{r['algorithm']}": r.pop("profiles") for r in results if "profiles" in r}
    for name, texts in profiles.items():
        for kind, text in texts.items():
            (out / f"scale-profile-{name}-{kind}.txt").write_text(text)
    (out / "scale.json").write_text(json.dumps(doc, indent=2) + "\n")
    text = markdown(doc)
    (out / "scale.md").write_text(TITLE + text)
    if plot:
        Path(plot).write_text(svg_chart(doc))
    print(text)
    failed = [
        f"{r['tier']} {r.get('algorithm', '')}".strip()
        for r in results
        if not all(r["checks"].values())
        or (r["tier"] != PG and max(r["repeated"]["targets_max"], r["repeated"]["indexed_alone_targets_max"]) > MAX_TARGETS)
    ]
    if failed:
        print(f"checks failed for: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

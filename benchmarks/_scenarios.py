"""Shared pieces of the preemption benchmarks: synthetic cluster states, timing, memory.

``bench_classic.py`` (classic decisions at S/M/L) and ``bench_scale.py`` / ``bench_fair.py``
(issue 7 tiers and fair sharing) build their states and time their decisions with the
functions here, so every benchmark measures the same states the same way. Not a script.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import hashlib
import io
import json
import math
import os
import platform
import pstats
import random
import statistics
import sys
import time
import tracemalloc
import zlib
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import kueue_preempt
from kueue_preempt import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FairSharingConfig,
    FlavorResource,
    PodSetUsage,
    PreemptionConfig,
    ResourceQuota,
    Snapshot,
    Target,
    Workload,
    get_targets,
)
from kueue_preempt.snapshot.quota import QuotaNode
from kueue_preempt.preemption.common.ordering import sort_key

SEED = 20260101
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
MILLI = 1000  # cpu amounts are milli-CPU
GI = 2**30  # memory amounts are bytes

ON_DEMAND = "on-demand"
SPOT = "spot"
FLAVORS = (ON_DEMAND, SPOT)
RESOURCES = ("cpu", "memory")
CPU = FlavorResource(ON_DEMAND, "cpu")
MEM = FlavorResource(ON_DEMAND, "memory")
ALL_FRS = tuple(FlavorResource(f, r) for f in FLAVORS for r in RESOURCES)

PRIORITY_CLASSES = (0, 10, 100, 1000, 5000)  # 5000 > preemptor: not preemptible within a CQ
PRIORITY_WEIGHTS = (30, 25, 25, 15, 5)
PREEMPTOR_PRIORITY = 2000
CPU_SIZES = (1, 2, 4, 8, 16)  # cores per workload (pod set total)
CPU_WEIGHTS = (30, 30, 20, 15, 5)
GI_PER_CORE = (2, 4, 8)


# --------------------------------------------------------------------------- scales


@dataclass(frozen=True)
class Scale:
    """One benchmark configuration."""

    name: str
    cohorts: int
    queues_per_cohort: int
    workloads: int
    tree: bool
    """True: the cohorts are children of one root cohort, so the preemptor's cohort tree holds
    every admitted workload. False: independent cohorts (only the preemptor's one matters)."""
    runs: int
    quick_runs: int
    budget_s: float
    """Time budget for the timed decision loop; fewer than ``runs`` runs if exceeded."""
    build_runs: int
    description: str
    single_borrower: int | None = None
    """If set: exactly one borrowing CQ, holding this many workloads; the other CQs hold
    10 workloads each and stay within nominal quota."""
    mid_fanout: int | None = None
    """If set (with ``tree``): the cohorts are grouped ``mid_fanout`` at a time under
    intermediate cohorts ``mid-<i>``, which are the root's children: three levels of cohorts
    (the hierarchical tier H)."""


SCALES: dict[str, Scale] = {
    s.name: s
    for s in (
        Scale("S", 1, 10, 100, False, 1000, 30, 30.0, 50, "1 cohort x 10 CQs, 100 admitted workloads"),
        Scale(
            "S-b10",
            1,
            10,
            100,
            False,
            1000,
            30,
            30.0,
            50,
            "S with exactly one borrowing CQ offering 10 workloads (90 more in the 9 lenders)",
            single_borrower=10,
        ),
        Scale(
            "S-b100",
            1,
            10,
            190,
            False,
            1000,
            30,
            30.0,
            50,
            "S with exactly one borrowing CQ offering 100 workloads (90 more in the 9 lenders)",
            single_borrower=100,
        ),
        Scale("M", 5, 6, 15_000, True, 200, 5, 60.0, 5, "5 cohorts x 6 CQs under one root, 15,000 workloads"),
        Scale(
            "M-flat", 5, 6, 15_000, False, 200, 5, 60.0, 5, "M with 5 independent cohorts (no common root)"
        ),
        Scale("L", 10, 100, 50_000, True, 100, 3, 90.0, 5, "10 cohorts x 100 CQs under one root, 50,000 workloads"),
        Scale(
            "L-flat", 10, 100, 50_000, False, 100, 3, 90.0, 5, "L with 10 independent cohorts (no common root)"
        ),
    )
}
DEFAULT_SCALES = "S,S-b10,S-b100,M,M-flat,L,L-flat"

FAIR_PREEMPTOR_LEND_WEIGHT = 0.0
"""Fair variant: the preemptor's ClusterQueue takes no share of the lent quota."""
FAIR_SHORTFALL = {False: 24, True: 1}
"""Fair variant: cores the preemptor asks for beyond what is available (True: one borrower,
whose whole loan is 10-50 cores at S, so a smaller ask keeps the strategies able to help)."""

# --------------------------------------------------------------------------- state


@dataclass
class Scenario:
    """A built cluster state and the preemptor that needs preemption in it."""

    scale: Scale
    cluster_queues: list[ClusterQueue]
    cohorts: list[Cohort]
    workloads: list[Workload]
    preemptor: Workload
    preemptor_cq: str
    assignment: Assignment
    config: PreemptionConfig = field(default_factory=PreemptionConfig)
    fair: bool = False
    """Built for fair sharing: ``config`` enables it and the preemptor ends above nominal."""


def _rng(scale: Scale) -> random.Random:
    return random.Random(SEED ^ zlib.crc32(scale.name.encode()))


def _make_workload(rng: random.Random, cq: str, index: int) -> Workload:
    cores = rng.choices(CPU_SIZES, CPU_WEIGHTS)[0]
    mem_gi = cores * rng.choice(GI_PER_CORE)
    flavor = ON_DEMAND if rng.random() < 0.85 else SPOT
    pods = rng.choice((1, 1, 1, 2, 4))
    reserved = NOW - timedelta(seconds=rng.randrange(60, 7 * 24 * 3600))
    created = reserved - timedelta(seconds=rng.randrange(0, 3600))
    return Workload(
        name=f"wl-{index}",
        namespace=f"ns-{cq}",
        uid=f"uid-{cq}-{index}",
        cluster_queue=cq,
        local_queue=f"lq-{index % 3}",
        priority=rng.choices(PRIORITY_CLASSES, PRIORITY_WEIGHTS)[0],
        creation_time=created,
        quota_reserved_at=reserved,
        evicted=rng.random() < 0.01,
        pod_sets=[
            PodSetUsage(
                name="main",
                count=pods,
                flavors={"cpu": flavor, "memory": flavor},
                usage={"cpu": cores * MILLI, "memory": mem_gi * GI},
            )
        ],
    )


def _preemption(rng: random.Random) -> ClusterQueuePreemption:
    """LowerPriority within the CQ, reclaim Any; about a third also borrow within the cohort."""
    if rng.random() < 1 / 3:
        bwc = BorrowWithinCohort(policy="LowerPriority", max_priority_threshold=rng.choice((None, 100, 1000)))
        return ClusterQueuePreemption(
            within_cluster_queue="LowerPriority", reclaim_within_cohort="Any", borrow_within_cohort=bwc
        )
    return ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")


def _counts(rng: random.Random, total: int, parts: int) -> list[int]:
    """Split ``total`` into ``parts`` positive, uneven counts (weights uniform in [0.5, 1.5])."""
    weights = [rng.uniform(0.5, 1.5) for _ in range(parts)]
    s = sum(weights)
    counts = [max(1, int(total * w / s)) for w in weights]
    i = 0
    while sum(counts) < total:
        counts[i % parts] += 1
        i += 1
    while sum(counts) > total:
        j = max(range(parts), key=lambda k: counts[k])
        counts[j] -= 1
    return counts


def build_scenario(scale: Scale, fair: bool = False) -> Scenario:
    """The synthetic state of ``scale``; deterministic for a given scale name.

    ``fair=False`` (classic): the preemptor's ClusterQueue lent out more than the other
    lenders and asks for at most 80% of its unused nominal quota, so it reclaims without
    borrowing. ``fair=True``: the same random draws, but the preemptor's ClusterQueue gets no
    extra share of the lent quota (it runs at about its nominal quota) and asks for
    ``FAIR_SHORTFALL`` cores more than is available, without the cap: it ends above its
    nominal quota, so fair sharing must compare shares (the strategies run; FS-NOM-1's
    shortcut does not apply). The other ClusterQueues' quotas differ slightly from the
    classic state because the lent quota is divided without the preemptor's large share.
    """
    rng = _rng(scale)
    cohort_names = [f"cohort-{c}" for c in range(scale.cohorts)]
    cq_names = [[f"cq-{c}-{q:03d}" for q in range(scale.queues_per_cohort)] for c in range(scale.cohorts)]
    flat_names = [n for group in cq_names for n in group]

    # Which CQs borrow. Per cohort the share of borrowers varies, so in the tree layout some
    # cohorts are net borrowers from the root and others net lenders.
    borrowing: dict[str, bool] = {}
    if scale.single_borrower is not None:
        for i, n in enumerate(flat_names):
            borrowing[n] = i == len(flat_names) - 1
        counts = [10] * (len(flat_names) - 1) + [scale.single_borrower]
    else:
        for group in cq_names:
            share = rng.uniform(0.15, 0.6)
            for n in group:
                borrowing[n] = rng.random() < share
            if not any(borrowing[n] for n in group):
                borrowing[group[-1]] = True
            if all(borrowing[n] for n in group):
                borrowing[group[0]] = False
        counts = _counts(rng, scale.workloads, len(flat_names))

    workloads: list[Workload] = []
    usage: dict[str, dict[FlavorResource, int]] = {}
    for name, count in zip(flat_names, counts):
        u: dict[FlavorResource, int] = {fr: 0 for fr in ALL_FRS}
        for i in range(count):
            w = _make_workload(rng, name, i)
            workloads.append(w)
            for fr, v in w.usage.items():
                u[fr] += v
        usage[name] = u

    # The preemptor arrives in a lender of cohort-0: a team coming back to use the quota it
    # lent out. It gets a larger share of the lent quota than the other lenders.
    lenders0 = [n for n in cq_names[0] if not borrowing[n]]
    pcq = rng.choice(lenders0)
    pcq_weight = FAIR_PREEMPTOR_LEND_WEIGHT if fair else 3.0

    # Nominal quotas: borrowers get 55-85% of their usage; lenders get their usage plus a share
    # of the borrowed amount, plus 1-4 units (cores, 4 GiB) of free capacity per cohort tree,
    # so the cohort is nearly full: usage never exceeds the total quota and little is free.
    # Done per cohort (flat) or over the whole tree.
    nominal: dict[str, dict[FlavorResource, int]] = {n: {} for n in flat_names}
    groups = [flat_names] if scale.tree else cq_names
    for group in groups:
        for fr in ALL_FRS:
            excess = 0
            for n in group:
                if borrowing[n]:
                    v = int(usage[n][fr] * rng.uniform(0.55, 0.85))
                    nominal[n][fr] = v
                    excess += usage[n][fr] - v
            lenders = [n for n in group if not borrowing[n]]
            weights = [pcq_weight if n == pcq else rng.uniform(0.5, 1.5) for n in lenders]
            ws = sum(weights) or 1.0  # 0 only when the fair preemptor is the sole lender
            shares = [int(excess * wt / ws) for wt in weights]
            shares[0] += excess - sum(shares)
            shares[-1] += rng.randint(1, 4) * (MILLI if fr.resource == "cpu" else 4 * GI)
            for n, share in zip(lenders, shares):
                nominal[n][fr] = usage[n][fr] + share

    cohort_of = {n: cohort_names[c] for c, group in enumerate(cq_names) for n in group}
    cluster_queues = [
        ClusterQueue(
            name=n,
            cohort=cohort_of[n],
            quotas={fr: ResourceQuota(nominal=nominal[n][fr]) for fr in ALL_FRS},
            preemption=_preemption(rng),
        )
        for n in flat_names
    ]
    if scale.tree and scale.mid_fanout:
        mids = [f"mid-{i}" for i in range(-(-scale.cohorts // scale.mid_fanout))]
        cohorts = (
            [Cohort(name="root")]
            + [Cohort(name=m, parent="root") for m in mids]
            + [Cohort(name=c, parent=mids[i // scale.mid_fanout]) for i, c in enumerate(cohort_names)]
        )
    elif scale.tree:
        cohorts = [Cohort(name="root")] + [Cohort(name=c, parent="root") for c in cohort_names]
    else:
        cohorts = [Cohort(name=c) for c in cohort_names]

    # The request: whole cores (and 4 GiB per core), more than is available to the CQ by a
    # shortfall of 12-32 cores, but at most 80% of the CQ's unused nominal quota, so that
    # reclaiming lent quota can make it fit without borrowing.
    snapshot = Snapshot(cluster_queues=cluster_queues, cohorts=cohorts, workloads=workloads)
    node = snapshot.cluster_queue(pcq)
    shortfall = rng.choice((12, 16, 24, 32))
    requests: dict[FlavorResource, int] = {}
    for fr, unit, per_core in ((CPU, MILLI, 1), (MEM, GI, 4)):
        available = snapshot.available(node, fr)
        headroom = nominal[pcq][fr] - usage[pcq][fr]
        base = -(-available // unit)  # ceil
        if fair:
            amount = base + FAIR_SHORTFALL[scale.single_borrower is not None] * per_core
            if amount * unit <= headroom:
                raise RuntimeError(f"{scale.name}: the fair preemptor would not borrow")
        else:
            amount = min(base + shortfall * per_core, int(headroom * 0.8) // unit)
        requests[fr] = max(amount, base + 1) * unit
    preempt = [fr for fr, v in requests.items() if v > snapshot.available(node, fr)]
    if not preempt:
        raise RuntimeError(f"{scale.name}: the generated preemptor does not need preemption")
    cores = requests[CPU] // MILLI
    preemptor = Workload(
        name="incoming",
        namespace=f"ns-{pcq}",
        uid="uid-incoming",
        priority=PREEMPTOR_PRIORITY,
        creation_time=NOW - timedelta(seconds=30),
        pod_sets=[
            PodSetUsage(
                flavors={"cpu": ON_DEMAND, "memory": ON_DEMAND},
                usage={"cpu": cores * MILLI, "memory": requests[MEM]},
            )
        ],
    )
    return Scenario(
        scale=scale,
        cluster_queues=cluster_queues,
        cohorts=cohorts,
        workloads=workloads,
        preemptor=preemptor,
        preemptor_cq=pcq,
        assignment=Assignment(requests=requests, preempt=preempt),
        config=PreemptionConfig(fair_sharing=FairSharingConfig()) if fair else PreemptionConfig(),
        fair=fair,
    )


def make_snapshot(sc: Scenario) -> Snapshot:
    return Snapshot(cluster_queues=sc.cluster_queues, cohorts=sc.cohorts, workloads=sc.workloads)


# --------------------------------------------------------------------------- candidates


def tree_candidates(snapshot: Snapshot, cq: str, frs: frozenset[FlavorResource]) -> list[Workload]:
    """Admitted workloads in the preemptor's cohort tree that use one of ``frs`` (POL-9)."""
    node = snapshot.cluster_queue(cq)
    out: list[Workload] = []
    for n in snapshot.subtree(node.root):
        if n.is_cluster_queue:
            out.extend(w for w in n.workloads.values() if not w.used_flavor_resources.isdisjoint(frs))
    return out


def scanned_candidates(snapshot: Snapshot, cq: str, frs: frozenset[FlavorResource]) -> list[Workload]:
    """The subset classic preemption actually examines: the workloads using one of ``frs`` in
    the preemptor's own CQ and in the CQs over nominal quota inside over-quota subtrees of
    each ancestor (CL-GEN-1..3), before the priority-policy filter. Informational; mirrors
    the walk in ``classic.py``."""
    node = snapshot.cluster_queue(cq)
    queues: list[QuotaNode] = [node]
    previous = node
    for ancestor in node.ancestors():
        stack = [ancestor]
        while stack:
            n = stack.pop()
            for k in reversed(n.child_cohorts):
                if k is not previous and not Snapshot.within_nominal(k, frs):
                    stack.append(k)
            for q in n.child_queues:
                if q is not node and q is not previous and not Snapshot.within_nominal(q, frs):
                    queues.append(q)
        previous = ancestor
    return [w for q in queues for w in q.workloads.values() if not w.used_flavor_resources.isdisjoint(frs)]


def fair_scanned_candidates(snapshot: Snapshot, cq: str, frs: frozenset[FlavorResource]) -> list[Workload]:
    """The fair-sharing candidate set before the policy filter (FS-CAND-1/2): the workloads
    using one of ``frs`` in the preemptor's own CQ and in every CQ of its cohort tree that
    borrows on one of ``frs``. Informational; mirrors ``fairsharing._candidates``."""
    node = snapshot.cluster_queue(cq)
    queues = [node] + [
        q
        for q in snapshot.subtree(node.root)
        if q.is_cluster_queue and q is not node and not Snapshot.within_nominal(q, frs)
    ]
    return [w for q in queues for w in q.workloads.values() if not w.used_flavor_resources.isdisjoint(frs)]


def sort_by_key(workloads: list[Workload], cq: str, config: PreemptionConfig) -> Callable[[], list[Workload]]:
    """The ``sorted()`` baseline: ``workloads`` sorted by ``candidate_sort_key``'s key.

    Uses ``ordering.sort_key``, the same key without the public function's per-call argument
    checks, so the baseline measures sorting by the key, as the algorithms do, and the ratio stays
    comparable with measurements taken before those checks existed.
    """

    def sort() -> list[Workload]:
        return sorted(workloads, key=lambda w: sort_key(w, cq, NOW, config))

    return sort


# --------------------------------------------------------------------------- timing


def percentile(samples: list[float], p: float) -> float:
    """Nearest-rank percentile (p in (0, 100])."""
    ordered = sorted(samples)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def summary(samples_ns: list[int], cpu_ns: list[int], gc_ns: list[int], warmup: int) -> dict[str, Any]:
    """Wall-clock statistics in ms, the thread's CPU time, and the garbage-collection pauses."""
    ms = [x / 1e6 for x in samples_ns]
    cpu = [x / 1e6 for x in cpu_ns]
    pause = [x / 1e6 for x in gc_ns]
    no_gc = [a - b for a, b in zip(ms, pause)]
    return {
        "runs": len(ms),
        "warmup": warmup,
        "median": statistics.median(ms),
        "p99": percentile(ms, 99),
        "min": min(ms),
        "max": max(ms),
        "mean": statistics.fmean(ms),
        "cpu_median": statistics.median(cpu),
        "cpu_p99": percentile(cpu, 99),
        "gc_pause_total": sum(pause),
        "gc_pause_share": sum(pause) / sum(ms),
        "gc_pause_max": max(pause),
        "median_excluding_gc": statistics.median(no_gc),
        "p99_excluding_gc": percentile(no_gc, 99),
        "samples": [round(x, 4) for x in ms],
    }


@dataclass
class Timings:
    wall: list[list[int]]
    cpu: list[list[int]]
    gc_pause: list[list[int]]
    """Time spent in garbage collections during each timed call (gc.callbacks)."""
    gc_collections: list[int]
    """Collections per generation (0, 1, 2) that ran inside the timed loop."""
    load_before: list[float] | None
    load_after: list[float] | None


def _loadavg() -> list[float] | None:
    return [round(x, 2) for x in os.getloadavg()] if hasattr(os, "getloadavg") else None


def time_interleaved(
    fns: list[Callable[[], object]],
    runs: int,
    warmup: int,
    budget_s: float,
    between: Callable[[int], object] | None = None,
) -> Timings:
    """Time each of ``fns`` ``runs`` times, interleaved (one call of each per round, the order
    rotating every round) so that drift in machine load affects them alike; ``warmup``
    untimed rounds first; stop early once ``budget_s`` is spent (after at least 5 rounds).

    Records wall-clock time (``perf_counter_ns``, the reported number) and the thread's CPU
    time (``thread_time_ns``, which excludes time the OS gave to other processes: a check on
    a shared machine). The garbage collector stays enabled (a decision in a real scheduler
    pays for it); a full collection runs before the loop so earlier garbage is not charged
    to it, and the collections that run inside the loop are counted.

    ``between(round)``, if given, runs untimed before every timed round (after the warm-up):
    the state changes between repeated decisions. Collections it triggers are counted too.
    """
    for _ in range(warmup):
        for fn in fns:
            fn()
    gc.collect()
    wall: list[list[int]] = [[] for _ in fns]
    cpu: list[list[int]] = [[] for _ in fns]
    gc_pause: list[list[int]] = [[] for _ in fns]
    collections = [0, 0, 0]
    gc_started = [0]
    gc_in_call = [0]

    def on_gc(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections[info["generation"]] += 1
            gc_started[0] = time.perf_counter_ns()
        else:
            gc_in_call[0] += time.perf_counter_ns() - gc_started[0]

    load_before = _loadavg()
    deadline = time.perf_counter() + budget_s
    clock = time.perf_counter_ns
    cpu_clock = time.thread_time_ns
    k = len(fns)
    gc.callbacks.append(on_gc)
    try:
        for r in range(runs):
            if between is not None:
                between(r)
            for j in range(k):
                i = (r + j) % k
                fn = fns[i]
                gc_in_call[0] = 0
                c0 = cpu_clock()
                t0 = clock()
                fn()
                t1 = clock()
                c1 = cpu_clock()
                wall[i].append(t1 - t0)
                cpu[i].append(c1 - c0)
                gc_pause[i].append(gc_in_call[0])
            if time.perf_counter() > deadline and r + 1 >= 5:
                break
    finally:
        gc.callbacks.remove(on_gc)
    return Timings(wall, cpu, gc_pause, collections, load_before, _loadavg())


def measure_build(sc: Scenario, runs: int) -> dict[str, Any]:
    """Snapshot build time (median of ``runs``) and tracemalloc peak of one build."""
    n = len(sc.workloads)
    times: list[int] = []
    for _ in range(runs):
        gc.collect()
        t0 = time.perf_counter_ns()
        snap = make_snapshot(sc)
        times.append(time.perf_counter_ns() - t0)
        del snap
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    snap = make_snapshot(sc)
    retained, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del snap
    median_ms = statistics.median(times) / 1e6
    return {
        "runs": runs,
        "median_ms": median_ms,
        "min_ms": min(times) / 1e6,
        "us_per_workload": median_ms * 1000 / n,
        "peak_bytes": peak,
        "peak_bytes_per_workload": peak / n,
        "retained_bytes": retained,
        "retained_bytes_per_workload": retained / n,
    }


def measure_models(scale: Scale, fair: bool = False) -> tuple[Scenario, dict[str, Any]]:
    """Cost of the input model objects themselves (ClusterQueues, cohorts, Workloads): the
    whole scenario generation, including the RNG, under tracemalloc; for context only."""
    gc.collect()
    tracemalloc.start()
    t0 = time.perf_counter_ns()
    sc = build_scenario(scale, fair)
    elapsed = time.perf_counter_ns() - t0
    # Drop the snapshot the generator used to size the request; keep only the model objects.
    gc.collect()
    retained, _peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    n = len(sc.workloads)
    return sc, {"generate_ms_traced": elapsed / 1e6, "retained_bytes_per_workload": retained / n}




# --------------------------------------------------------------------------- profiling and checks


def profile_decisions(decide: Callable[[], object], scale: str, calls: int, top: int) -> str:
    """cProfile ``calls`` decisions; the top ``top`` functions by own and by cumulative time.

    The live objects are frozen out of the collector for the duration (and unfrozen after),
    so that a full collection, which would be charged to whatever function triggers it,
    does not distort the profile.
    """
    gc.collect()
    gc.freeze()
    prof = cProfile.Profile()
    try:
        prof.enable()
        for _ in range(calls):
            decide()
        prof.disable()
    finally:
        gc.unfreeze()
    buf = io.StringIO()
    buf.write(f"# cProfile of {calls} get_targets calls at scale {scale}\n\n## by own time (tottime)\n")
    pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(top)
    buf.write("## by cumulative time\n")
    pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(top)
    return buf.getvalue()


def fits_after(snapshot: Snapshot, sc: Scenario, targets: list[Target]) -> bool:
    node = snapshot.cluster_queue(sc.preemptor_cq)
    with snapshot.preserved():
        for t in targets:
            snapshot.remove_workload(t.workload)
        return snapshot.fits(node, sc.assignment.requests, allow_borrowing=True)



# --------------------------------------------------------------------------- machine


def source_fingerprint() -> dict[str, Any]:
    """SHA-256 over the package's ``.py`` files (path + content), to tie numbers to the code."""
    root = Path(kueue_preempt.__file__).parent
    digest = hashlib.sha256()
    files = sorted(root.rglob("*.py"))
    for f in files:
        digest.update(f.relative_to(root).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return {"path": str(root), "files": len(files), "sha256": digest.hexdigest()}


def machine_info() -> dict[str, Any]:
    return {
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor() or "",
        "cpu_count": os.cpu_count(),
        "load_average_at_start": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "kueue_preempt": kueue_preempt.__version__,
        "kueue_preempt_sources": source_fingerprint(),
        "timestamp": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }



# --------------------------------------------------------------------------- one scale


def run_scale(
    scale: Scale, quick: bool, profile_top: int, gc_freeze: bool = False, fair: bool = False
) -> dict[str, Any]:
    """Time one preemptor's decision at ``scale`` against ``sorted()`` over its candidates
    (classic, or fair sharing with ``fair``); also snapshot build and memory; check it."""
    print(f"[{scale.name}] generating state ...", file=sys.stderr, flush=True)
    sc, models = measure_models(scale, fair)
    runs = scale.quick_runs if quick else scale.runs
    warmup = 1 if quick else 3
    build = measure_build(sc, 1 if quick else scale.build_runs)
    snapshot = make_snapshot(sc)
    cq = sc.preemptor_cq
    frs = sc.assignment.preempt
    candidates = tree_candidates(snapshot, cq, frs)
    scanned = (fair_scanned_candidates if fair else scanned_candidates)(snapshot, cq, frs)
    config = sc.config
    if gc_freeze:
        # Move everything alive now (model objects, snapshot) to the permanent generation,
        # as a long-running scheduler could after loading its state: full collections then
        # no longer traverse it. Undone with gc.unfreeze() at the end of the scale.
        gc.collect()
        gc.freeze()

    def decide() -> list[Target]:
        return get_targets(sc.preemptor, cq, sc.assignment, snapshot, config=config, now=NOW)

    sort_baseline = sort_by_key(candidates, cq, config)
    sort_scanned = sort_by_key(scanned, cq, config)

    before = snapshot.state()
    first = decide()
    print(
        f"[{scale.name}] {len(sc.workloads)} workloads, {len(candidates)} candidates, "
        f"{len(first)} targets; timing ...",
        file=sys.stderr,
        flush=True,
    )
    timings = time_interleaved([decide, sort_baseline, sort_scanned], runs, warmup, scale.budget_s)
    last = decide()
    unchanged = snapshot.state() == before
    stable = [t.workload.key for t in first] == [t.workload.key for t in last]
    sufficient = fits_after(snapshot, sc, first)

    profile_text = ""
    if profile_top:
        profile_text = profile_decisions(decide, scale.name, 20 if not quick else 3, profile_top)
        print(profile_text)

    dec, srt, srt_scanned = (
        summary(w, c, g, warmup) for w, c, g in zip(timings.wall, timings.cpu, timings.gc_pause)
    )
    if gc_freeze:
        gc.unfreeze()
    node = snapshot.cluster_queue(cq)
    result: dict[str, Any] = {
        "scale": scale.name,
        "description": scale.description,
        "layout": "tree (cohorts under one root)" if scale.tree else "independent cohorts",
        "cohorts": scale.cohorts,
        "cluster_queues": len(sc.cluster_queues),
        "admitted_workloads": len(sc.workloads),
        "borrowing_cluster_queues": sum(
            1 for q in snapshot.cluster_queues.values() if not Snapshot.within_nominal(q, frs)
        ),
        "preemptor": {
            "cluster_queue": cq,
            "cohort_path": snapshot.path(node),
            "priority": PREEMPTOR_PRIORITY,
            "requests": {str(fr): v for fr, v in sorted(sc.assignment.requests.items())},
            "available": {str(fr): snapshot.available(node, fr) for fr in sorted(sc.assignment.requests)},
            "preempt": sorted(str(fr) for fr in frs),
            "borrow_within_cohort": {q.name: q for q in sc.cluster_queues}[cq].preemption.borrow_within_cohort
            is not None,
        },
        "candidates": len(candidates),
        "candidates_scanned": len(scanned),
        "targets": len(first),
        "target_reasons": dict(Counter(t.reason.value for t in first)),
        "decision_ms": dec,
        "sorted_ms": srt,
        "ratio_decision_to_sorted": dec["median"] / srt["median"],
        "sorted_scanned_ms": srt_scanned,
        "ratio_decision_to_sorted_scanned": dec["median"] / srt_scanned["median"],
        "ratio_decision_to_sorted_cpu": dec["cpu_median"] / srt["cpu_median"],
        "gc_collections_in_timed_loop": timings.gc_collections,
        "load_average_before": timings.load_before,
        "load_average_after": timings.load_after,
        "snapshot_build": build,
        "model_objects": models,
        "snapshot_unchanged": unchanged,
        "targets_stable": stable,
        "targets_sufficient": sufficient,
        "gc_freeze": gc_freeze,
    }
    if fair:
        result["algorithm"] = "fair sharing (default strategies)"
        result["preemptor"]["ends_above_nominal"] = any(
            node.usage.get(fr, 0) + v > node.subtree_quota.get(fr, 0) for fr, v in sc.assignment.requests.items()
        )
    if profile_text:
        result["profile"] = profile_text
    return result




# --------------------------------------------------------------------------- output


def markdown(
    results: list[dict[str, Any]], machine: dict[str, Any], quick: bool, gc_freeze: bool = False, fair: bool = False
) -> str:
    lines = [
        "| Scale | Layout | CQs | Admitted | Candidates (tree / scanned) | Targets "
        "| Decision median ms | Decision p99 ms | sorted() median ms | **Ratio** | Ratio (scanned) | Runs "
        "| Build ms | Build µs/wl | Peak B/wl |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in results:
        d, s, b = r["decision_ms"], r["sorted_ms"], r["snapshot_build"]
        layout = "tree" if r["layout"].startswith("tree") else "flat"
        lines.append(
            f"| {r['scale']} | {layout} | {r['cluster_queues']:,} | {r['admitted_workloads']:,} "
            f"| {r['candidates']:,} / {r['candidates_scanned']:,} | {r['targets']} "
            f"| {d['median']:.3f} | {d['p99']:.3f} | {s['median']:.3f} "
            f"| **{r['ratio_decision_to_sorted']:.2f}** | {r['ratio_decision_to_sorted_scanned']:.2f} | {d['runs']} "
            f"| {b['median_ms']:.1f} | {b['us_per_workload']:.1f} | {b['peak_bytes_per_workload']:,.0f} |"
        )
    lines += [
        "",
        "| Scale | Decision CPU median ms | Decision CPU p99 ms | sorted() CPU median ms | Ratio (CPU) "
        "| Decision p99 ms excl. GC | GC share of decision time | Max GC pause in a decision ms "
        "| GC runs in loop (gen0/1/2) | Load avg before → after | Snapshot retained B/wl | Model objects B/wl |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for r in results:
        d, s, b = r["decision_ms"], r["sorted_ms"], r["snapshot_build"]
        g = r["gc_collections_in_timed_loop"]
        la, lb = r["load_average_before"], r["load_average_after"]
        load = f"{la[0]:.2f} → {lb[0]:.2f}" if la and lb else "n/a"
        lines.append(
            f"| {r['scale']} | {d['cpu_median']:.3f} | {d['cpu_p99']:.3f} | {s['cpu_median']:.3f} "
            f"| {r['ratio_decision_to_sorted_cpu']:.2f} | {d['p99_excluding_gc']:.3f} "
            f"| {d['gc_pause_share']:.1%} | {d['gc_pause_max']:.1f} | {g[0]}/{g[1]}/{g[2]} | {load} "
            f"| {b['retained_bytes_per_workload']:,.0f} "
            f"| {r['model_objects']['retained_bytes_per_workload']:,.0f} |"
        )
    head = (
        f"Python {machine['python']} ({machine['implementation']}) on {machine['platform']}, "
        f"{machine['cpu_count']} CPUs; kueue_preempt {machine['kueue_preempt']} "
        f"(sources sha256 {machine['kueue_preempt_sources']['sha256'][:12]}); {machine['timestamp']}"
        + (" — **--quick run, few repeats**" if quick else "")
        + (" — **--gc-freeze: built state frozen before timing**" if gc_freeze else "")
    )
    scanned = (
        "the subset in the preemptor's CQ and in every CQ of the tree that borrows on a preempted "
        "FlavorResource, which fair sharing examines (FS-CAND-1/2). "
        if fair
        else "the subset in the preemptor's CQ and in over-nominal CQs of "
        "over-quota subtrees, which classic preemption actually examines. "
    )
    notes = (
        "Candidates (tree) = admitted workloads in the preemptor's cohort tree that use a preempted "
        "FlavorResource; scanned = "
        + scanned
        + 
        "**Ratio** = median decision time / median time of `sorted()` over the tree candidates keyed by "
        "`candidate_sort_key` (the headline metric); Ratio (scanned) = the same against `sorted()` over "
        "the scanned candidates only. Decision and sorts are timed interleaved. "
        "p99 is nearest-rank over the runs (with < 100 runs it is the maximum). "
        "Build = `Snapshot(...)` from prebuilt model objects; Peak B/wl = tracemalloc peak of one build "
        "per admitted workload. Second table: the same runs measured in thread CPU time "
        "(`time.thread_time_ns`, blind to time the OS gave other processes), the decision p99 with the "
        "garbage-collection pauses inside each call subtracted, the share of decision time spent in "
        "collections and the longest such pause, the number of collections "
        "inside the timed loop (all three timed functions), the 1-minute load average around the "
        "loop, the memory the snapshot keeps after its build and that of the input model objects "
        "(ClusterQueues, cohorts, Workloads), per admitted workload."
    )
    if fair:
        reasons = "; ".join(
            f"{r['scale']}: {r['targets']} ("
            + ", ".join(f"{v} {k}" for k, v in sorted(r["target_reasons"].items()))
            + (", preemptor ends above nominal" if r["preemptor"].get("ends_above_nominal") else "")
            + ")"
            for r in results
        )
        notes = f"Targets and their reasons: {reasons}. " + notes
    return "\n".join([head, "", *lines, "", notes, ""])


def parse_scales(text: str, known: dict[str, Scale] | None = None) -> list[Scale]:
    known = SCALES if known is None else known
    out = []
    for name in (t.strip() for t in text.split(",")):
        if not name:
            continue
        if name not in known:
            raise SystemExit(f"unknown scale {name!r}; known: {', '.join(known)}")
        out.append(known[name])
    return out


def _iter_results(
    scales: list[Scale], quick: bool, profile_top: int, gc_freeze: bool, fair: bool
) -> Iterator[dict[str, Any]]:
    for scale in scales:
        yield run_scale(scale, quick, profile_top, gc_freeze, fair)


@dataclass(frozen=True)
class DecisionBenchmark:
    """What distinguishes ``bench_classic.py`` from ``bench_fair.py``."""

    default_scales: str
    fair: bool
    stem: str
    """Output files: ``<out>/<stem>.json``, ``<stem>.md``, ``<stem>-profile-<scale>.txt``."""
    title: str
    benchmark: str


CLASSIC = DecisionBenchmark(
    DEFAULT_SCALES, False, "classic", "Classic preemption benchmark", "classic preemption: get_targets decision time"
)
FAIR = DecisionBenchmark(
    "S-b10,S-b100,M,L",
    True,
    "fair",
    "Fair-sharing preemption benchmark",
    "fair-sharing preemption: get_targets (fair_targets) decision time",
)
"""Issue 3: one borrowing CQ offering 10 and 100 candidates, then M and L (cohorts under one
root). ``S`` and ``L-flat`` also build for fair sharing; ``M-flat`` does not (its preemptor's
cohort has no other lender, so a fair preemptor there would not borrow)."""


def decision_cli(argv: list[str] | None, doc: str | None, bench: DecisionBenchmark) -> int:
    """The command line of ``bench_classic.py`` and ``bench_fair.py``: time one decision per
    scale, write ``<out>/<stem>.json`` and ``<out>/<stem>.md``, print the table; exit 1 if a
    check failed. ``doc`` is the script's docstring (its first line describes the command)."""
    default_scales, fair, stem, title, benchmark = (
        bench.default_scales,
        bench.fair,
        bench.stem,
        bench.title,
        bench.benchmark,
    )
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument(
        "--scales",
        default=default_scales,
        help=f"comma-separated scales (default: {default_scales}; known: {', '.join(SCALES)})",
    )
    parser.add_argument("--quick", action="store_true", help="few repeats, for smoke runs")
    parser.add_argument("--out", default="benchmarks/results", help="output directory (default: %(default)s)")
    parser.add_argument(
        "--profile",
        type=int,
        default=0,
        metavar="N",
        help="also profile 20 decisions per scale; print and write the top N functions",
    )
    parser.add_argument(
        "--gc-freeze",
        action="store_true",
        help="gc.freeze() the built state before timing (shows the cost of full collections)",
    )
    args = parser.parse_args(argv)
    scales = parse_scales(args.scales)
    machine = machine_info()
    results = list(_iter_results(scales, args.quick, args.profile, args.gc_freeze, fair))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = {
        "benchmark": benchmark,
        "seed": SEED,
        "quick": args.quick,
        "gc_freeze": args.gc_freeze,
        "machine": machine,
        "results": results,
    }
    (out / f"{stem}.json").write_text(json.dumps(report, indent=2) + "\n")
    table = markdown(results, machine, args.quick, args.gc_freeze, fair)
    (out / f"{stem}.md").write_text(f"# {title}\n\n" + table)
    for r in results:
        if "profile" in r:
            (out / f"{stem}-profile-{r['scale']}.txt").write_text(r["profile"])
    print(table)
    failed = [
        r["scale"]
        for r in results
        if not (r["snapshot_unchanged"] and r["targets_stable"] and r["targets_sufficient"] and r["targets"])
    ]
    if failed:
        print(f"checks failed for: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0

#!/usr/bin/env python3
"""Issue 18: decisions and memory on the shared perf tiers (gen.py's scenarios, exactly).

For every tier (S, M, L, XL, H) and variant (within, reclaim, reclaim-big, borrow,
fair-reclaim, fair-borrow, fair-borrow-lis) it measures, in one process:

* **decision / sorted()**: the median time of one full decision (``get_targets`` on a snapshot
  built before timing), on the default path and with the maintained index
  (``Snapshot.enable_index``), each divided by the median time of ``sorted()`` of exactly that
  decision's candidates — the admitted workloads of the preemptor's ClusterQueue and of every
  other ClusterQueue of its cohort tree that use one of its ``preemptFlavorResources`` — under a
  key tuple computed before timing (evicted first, other ClusterQueues first, lower priority,
  newer quota reservation, UID). The three are timed interleaved.
* **memory per workload**: tracemalloc over building the model objects from the input (already
  in memory as JSON data), the snapshot and the index, divided by the admitted workloads: the
  peak, and what each part keeps.
* **snapshot build time** per workload.

The two paths must give the same targets, with the reasons gen.py expects (exit 1 otherwise).

Usage::

    python benchmarks/bench_tiers.py [--tiers S,M,L,XL,H] [--variants all] [--cases DIR]
                                     [--runs 40] [--out benchmarks/results] [--plot docs/performance-tiers.svg]

``--cases DIR`` reads gen.py's ``<DIR>/<tier>.json``; without it the vendored generator
(``perf_gen.py``) builds the same cases in-process. Writes ``<out>/tiers.json`` and ``tiers.md``.
"""

from __future__ import annotations

import argparse
import gc
import json
import operator
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

from _perf_cases import Case, cluster_queue_of, cohort_of, config_of, incoming_of, load_tier, now_of, workload_of
from _scenarios import machine_info, percentile, source_fingerprint, time_interleaved
from kueue_preempt import Snapshot, Target, Workload, get_targets
from kueue_preempt._time import micros

GOALS = {"plain": 3.0, "indexed-classic": 0.5, "indexed-fair": 1.0, "memory": 1024, "flat": 1.3}
KUEUE_GO = {  # Kueue's own GetTargets on the same L cases (issue 18), decision / sorted()
    "classic": "5.1–6.4×",
    "fair": "≈ 5–7×",
}


def build(case: Case) -> tuple[Snapshot, list[Workload]]:
    workloads = [workload_of(w) for w in case["admitted"]]
    snap = Snapshot([cluster_queue_of(q) for q in case["clusterQueues"]], [cohort_of(c) for c in case["cohorts"]], workloads)
    return snap, workloads


def measure_memory(case: Case) -> dict[str, Any]:
    """Peak and retained bytes per admitted workload: model objects, snapshot, index."""
    n = len(case["admitted"])
    config = config_of(case)
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    cqs = [cluster_queue_of(q) for q in case["clusterQueues"]]
    cohorts = [cohort_of(c) for c in case["cohorts"]]
    workloads = [workload_of(w) for w in case["admitted"]]
    model = tracemalloc.get_traced_memory()[0] - base
    t0 = time.perf_counter()
    snap = Snapshot(cqs, cohorts, workloads)
    build_s = time.perf_counter() - t0
    snapshot = tracemalloc.get_traced_memory()[0] - base - model
    t0 = time.perf_counter()
    snap.enable_index(config)
    index_s = time.perf_counter() - t0
    index = tracemalloc.get_traced_memory()[0] - base - model - snapshot
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    # The input list of workloads is the caller's; the model objects are what it holds.
    del snap, workloads, cqs, cohorts
    gc.collect()
    return {
        "admitted": n,
        "model_B": model / n,
        "snapshot_B": snapshot / n,
        "index_B": index / n,
        "total_B": (model + snapshot + index) / n,
        "peak_B": peak / n,
        "build_us_per_wl": build_s * 1e6 / n,
        "index_us_per_wl": index_s * 1e6 / n,
    }


def candidates_key(snap: Snapshot, cq: str, case: Case, now_us: int) -> list[tuple[tuple[Any, ...], Workload]]:
    """gen.py's definition of a decision's candidates, with their key tuples (before timing)."""
    frs = {fr for fr in incoming_of(case["incoming"])[1].preempt}
    node = snap.cluster_queue(cq)
    out = []
    for q in snap.subtree(node.root):
        if not q.is_cluster_queue:
            continue
        for w in q.workloads.values():
            if w.used_flavor_resources.isdisjoint(frs):
                continue
            t = micros(w.quota_reserved_at) if w.quota_reserved_at is not None else now_us
            key = (0 if w.evicted else 1, 1 if q is node else 0, w.priority or 0, -t, w.uid)
            out.append((key, w))
    return out


def target_keys(targets: list[Target]) -> list[tuple[str, str, str]]:
    return [(t.workload.key, t.cluster_queue, t.reason.value) for t in targets]


def stats(samples_ns: list[int]) -> dict[str, Any]:
    ms = [x / 1e6 for x in samples_ns]
    return {"median": statistics.median(ms), "p99": percentile(ms, 99), "runs": len(ms)}


def run_variant(case: Case, snaps: dict[str, Snapshot], runs: int) -> dict[str, Any]:
    perf = case["extra"]["perf"]
    config = config_of(case)
    preemptor, assignment = incoming_of(case["incoming"])
    cq = case["incoming"]["clusterQueue"]
    now = now_of(case)
    plain, indexed = snaps["plain"], snaps["indexed"]
    pairs = candidates_key(plain, cq, case, micros(now))
    first = operator.itemgetter(0)

    def decide_plain() -> list[Target]:
        return get_targets(preemptor, cq, assignment, plain, config, now)

    def decide_indexed() -> list[Target]:
        return get_targets(preemptor, cq, assignment, indexed, config, now)

    def sort() -> object:
        return sorted(pairs, key=first)

    before = plain.state()
    a, b = decide_plain(), decide_indexed()
    ok = target_keys(a) == target_keys(b) and bool(a)
    reasons = sorted({t.reason.value for t in a})
    ok = ok and set(reasons) <= set(perf["expectReasons"]) and plain.state() == before
    fns: list[Callable[[], object]] = [decide_plain, decide_indexed, sort]
    timings = time_interleaved(fns, runs, warmup=2, budget_s=60.0)
    p, i, s = (stats(w) for w in timings.wall)
    return {
        "variant": perf["variant"],
        "algorithm": "fair" if config.fair_sharing is not None else "classic",
        "candidates": len(pairs),
        "targets": len(a),
        "reasons": reasons,
        "same_answers": ok,
        "plain": p,
        "indexed": i,
        "sorted": s,
        "plain_ratio": p["median"] / s["median"],
        "indexed_ratio": i["median"] / s["median"],
        "load": [timings.load_before, timings.load_after],
    }


def run_tier(tier: str, variants: str, cases_dir: str | None, runs: int) -> dict[str, Any]:
    cases = load_tier(tier, variants, cases_dir)
    memory = measure_memory(cases[0])
    results = []
    built: dict[str, tuple[Snapshot, list[Workload]]] = {}
    for case in cases:
        # The borrow variant changes the preemptor's ClusterQueue, so it gets its own snapshot.
        sig = json.dumps([q for q in case["clusterQueues"] if q["name"] == case["incoming"]["clusterQueue"]])
        if sig not in built:
            built.clear()
            gc.collect()
            built[sig] = build(case)
        plain = built[sig][0]
        indexed = Snapshot(
            [cluster_queue_of(q) for q in case["clusterQueues"]], [cohort_of(c) for c in case["cohorts"]], built[sig][1]
        )
        indexed.enable_index(config_of(case))
        r = run_variant(case, {"plain": plain, "indexed": indexed}, runs)
        del indexed
        print(
            f"{tier:3} {r['variant']:16} cands {r['candidates']:6} targets {r['targets']:3} "
            f"plain {r['plain']['median']:8.3f} ms ({r['plain_ratio']:5.2f}x)  "
            f"indexed {r['indexed']['median']:7.3f} ms ({r['indexed_ratio']:5.2f}x)  "
            f"sorted {r['sorted']['median']:6.3f} ms  {'ok' if r['same_answers'] else 'MISMATCH'}",
            flush=True,
        )
        results.append(r)
    print(
        f"{tier:3} memory B/wl: model {memory['model_B']:.0f} + snapshot {memory['snapshot_B']:.0f} + index "
        f"{memory['index_B']:.0f} = {memory['total_B']:.0f} (peak {memory['peak_B']:.0f}); build "
        f"{memory['build_us_per_wl']:.2f} us/wl, index {memory['index_us_per_wl']:.2f} us/wl",
        flush=True,
    )
    return {"tier": tier, "memory": memory, "results": results}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--tiers", default="S,M,L,XL,H")
    ap.add_argument("--variants", default="all")
    ap.add_argument("--cases", default=None, help="directory with gen.py's <tier>.json files")
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--out", default=None)
    a = ap.parse_args(argv)
    doc: dict[str, Any] = {"machine": machine_info(), "source": source_fingerprint(), "tiers": []}
    for tier in a.tiers.split(","):
        doc["tiers"].append(run_tier(tier.strip(), a.variants, a.cases, a.runs))
    ok = all(r["same_answers"] for t in doc["tiers"] for r in t["results"])
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "tiers.json").write_text(json.dumps(doc, indent=1) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

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

The state is built before timing and frozen out of the garbage collector (``gc.freeze``); the
collector stays enabled for what the timed calls allocate.

The two paths must give the same targets, with the reasons gen.py expects (exit 1 otherwise).

Usage::

    python benchmarks/bench_tiers.py [--tiers S,M,L,XL,H] [--variants all] [--cases DIR]
                                     [--runs 40] [--out benchmarks/results] [--plot docs/performance-tiers.svg]
    python benchmarks/bench_tiers.py --quick     # smoke run (``nox -s bench -- --quick``): S and L, 5 runs

``--cases DIR`` reads gen.py's ``<DIR>/<tier>.json``; without it the vendored generator
(``perf_gen.py``) builds the same cases in-process. Writes ``<out>/tiers.json`` and ``tiers.md``.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import operator
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

from _perf_cases import Case, cluster_queue_of, cohort_of, config_of, incoming_of, load_tier, now_of, workload_of
from _scenarios import machine_info, percentile, source_fingerprint, time_interleaved
from kueue_preempt import Snapshot, Target, Workload, get_targets
from kueue_preempt.model.time import micros

GOALS = {"plain": 3.0, "indexed-classic": 0.5, "indexed-fair": 1.0, "memory": 1024, "flat": 1.3}
KUEUE_GO = {  # Kueue's own GetTargets on the same L cases (issue 18), decision / sorted()
    "classic": "5.1–6.4×",
    "fair": "≈ 5–7×",
}


def build(case: Case) -> tuple[Snapshot, list[Workload]]:
    workloads = [workload_of(w) for w in case["admitted"]]
    snap = Snapshot([cluster_queue_of(q) for q in case["clusterQueues"]], [cohort_of(c) for c in case["cohorts"]], workloads)
    return snap, workloads


def build_time(case: Case, workloads: list[Workload], runs: int = 3) -> dict[str, float]:
    """Snapshot build and index build, µs per workload (median of ``runs``; no tracemalloc,
    which slows every allocation), from model objects already built."""
    cqs = [cluster_queue_of(q) for q in case["clusterQueues"]]
    cohorts = [cohort_of(c) for c in case["cohorts"]]
    snap_s, index_s = [], []
    for _ in range(runs):
        t0 = time.process_time()
        snap = Snapshot(cqs, cohorts, workloads)
        t1 = time.process_time()
        snap.enable_index(config_of(case))
        t2 = time.process_time()
        snap_s.append(t1 - t0)
        index_s.append(t2 - t1)
        del snap
    n = len(workloads)
    return {
        "build_us_per_wl": statistics.median(snap_s) * 1e6 / n,
        "index_us_per_wl": statistics.median(index_s) * 1e6 / n,
    }


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


def stats(samples_ns: list[int], cpu_ns: list[int]) -> dict[str, Any]:
    ms = [x / 1e6 for x in samples_ns]
    cpu = [x / 1e6 for x in cpu_ns]
    return {
        "median": statistics.median(ms),
        "p99": percentile(ms, 99),
        "cpu_median": statistics.median(cpu),
        "runs": len(ms),
    }


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
        return get_targets(preemptor, cq, assignment, plain, config=config, now=now)

    def decide_indexed() -> list[Target]:
        return get_targets(preemptor, cq, assignment, indexed, config=config, now=now)

    def sort() -> object:
        return sorted(pairs, key=first)

    before = plain.state()
    a, b = decide_plain(), decide_indexed()
    ok = target_keys(a) == target_keys(b) and bool(a)
    reasons = sorted({t.reason.value for t in a})
    ok = ok and set(reasons) <= set(perf["expectReasons"]) and plain.state() == before
    fns: list[Callable[[], object]] = [decide_plain, decide_indexed, sort]
    # The cluster state is long-lived: move it out of the collector's generations, as a
    # scheduler would after loading it, so that a full collection scanning 10^6 static objects
    # is not charged to a random sample. Each call's own garbage is still collected.
    gc.collect()
    gc.freeze()
    try:
        timings = time_interleaved(fns, runs, warmup=2, budget_s=60.0)
        # The indexed decision once more, alone: interleaved with the default path and a sort of
        # every candidate (20,000 at H, 5,000 at L), it starts each call with caches that those
        # emptied, a penalty that grows with the tier and is the benchmark's, not the decision's.
        # The flatness table reports both (docs/performance.md).
        alone = time_interleaved([decide_indexed], runs, warmup=2, budget_s=30.0)
        # And after the same eviction at every tier: a sort of a fixed 20,000-item list (as
        # large as H's candidates), so that every tier's decision starts with equally cold
        # caches. Interleaved, L's decisions follow a sort of 5,000 candidates and H's one of
        # 20,000: part of the H/L ratio there is the baseline's, not the decision's.
        evicting = _eviction_list()
        cold = time_interleaved(
            [decide_indexed], runs, warmup=2, budget_s=40.0, between=lambda _: sorted(evicting, key=first)
        )
    finally:
        gc.unfreeze()
    p, i, s = (stats(w, c) for w, c in zip(timings.wall, timings.cpu))
    i["alone"] = stats(alone.wall[0], alone.cpu[0])
    i["cold"] = stats(cold.wall[0], cold.cpu[0])
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
        # Thread CPU time: blind to other processes on a shared machine (a cross-check).
        "plain_ratio_cpu": p["cpu_median"] / s["cpu_median"],
        "indexed_ratio_cpu": i["cpu_median"] / s["cpu_median"],
        "load": [timings.load_before, timings.load_after],
    }


EVICTION_ITEMS = 20_000


def _eviction_list() -> list[tuple[tuple[int, int, int, int, str], None]]:
    """A fixed list shaped like the baseline's (key tuple, item) pairs, shuffled (seeded)."""
    rng = random.Random(18)
    return [
        ((1, 0, rng.choice((50, 100, 200)), -rng.randrange(10**15), f"uid-{i:06d}"), None)
        for i in range(EVICTION_ITEMS)
    ]


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
            if "cpu_build_us_per_wl" not in memory:
                times = build_time(case, built[sig][1])
                memory["cpu_build_us_per_wl"] = times["build_us_per_wl"]
                memory["cpu_index_us_per_wl"] = times["index_us_per_wl"]
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
            f"sorted {r['sorted']['median']:6.3f} ms  cpu ratios {r['plain_ratio_cpu']:4.2f}/{r['indexed_ratio_cpu']:4.2f}  "
            f"indexed alone {r['indexed']['alone']['cpu_median']:6.3f} ms cpu  "
            f"after a fixed sort {r['indexed']['cold']['cpu_median']:6.3f} ms cpu  "
            f"{'ok' if r['same_answers'] else 'MISMATCH'}",
            flush=True,
        )
        results.append(r)
    print(
        f"{tier:3} memory B/wl: model {memory['model_B']:.0f} + snapshot {memory['snapshot_B']:.0f} + index "
        f"{memory['index_B']:.0f} = {memory['total_B']:.0f} (peak {memory['peak_B']:.0f}); build "
        f"{memory['cpu_build_us_per_wl']:.2f} us/wl, index {memory['cpu_index_us_per_wl']:.2f} us/wl (CPU)",
        flush=True,
    )
    return {"tier": tier, "memory": memory, "results": results}


def _f(x: float) -> str:
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


def markdown(doc: dict[str, Any]) -> str:
    """The tier tables of docs/performance.md."""
    out = [
        "| Tier | Variant | Candidates | Targets | Default ms | **Default / sorted()** | Indexed ms | Indexed p99 ms "
        "| **Indexed / sorted()** | sorted() ms | CPU ratios (default / indexed) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for t in doc["tiers"]:
        for r in t["results"]:
            out.append(
                f"| {t['tier']} | {r['variant']} | {r['candidates']:,} | {r['targets']} | {_f(r['plain']['median'])} "
                f"| **{r['plain_ratio']:.2f}×** | {_f(r['indexed']['median'])} | {_f(r['indexed']['p99'])} "
                f"| **{r['indexed_ratio']:.2f}×** | {_f(r['sorted']['median'])} "
                f"| {r['plain_ratio_cpu']:.2f}× / {r['indexed_ratio_cpu']:.2f}× |"
            )
    out += [
        "",
        "| Tier | Admitted | Model B/wl | Snapshot B/wl | Index B/wl | **Total B/wl** | Peak B/wl "
        "| Snapshot build µs/wl (CPU) | Index build µs/wl (CPU) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in doc["tiers"]:
        m = t["memory"]
        out.append(
            f"| {t['tier']} | {m['admitted']:,} | {m['model_B']:.0f} | {m['snapshot_B']:.0f} | {m['index_B']:.0f} "
            f"| **{m['total_B']:.0f}** | {m['peak_B']:.0f} | {m.get('cpu_build_us_per_wl', 0):.1f} "
            f"| {m.get('cpu_index_us_per_wl', 0):.1f} |"
        )
    base = {r["variant"]: r for t in doc["tiers"] if t["tier"] == "L" for r in t["results"]}
    others = [t for t in doc["tiers"] if t["tier"] in ("XL", "H")]
    if base and others:
        for title, pick in (
            ("alone", _alone_cpu),
            ("interleaved", _interleaved_cpu),
            (f"after a fixed {EVICTION_ITEMS:,}-item sort", _cold_cpu),
        ):
            out += [
                "",
                f"| Variant | Indexed CPU ms at L ({title}) | "
                + " | ".join(f"{t['tier']} CPU ms (× L)" for t in others)
                + " |",
            ]
            out.append("|---|---:|" + "---:|" * len(others))
            for variant, r in base.items():
                cells = []
                at_l = pick(r)
                for t in others:
                    o = next((x for x in t["results"] if x["variant"] == variant), None)
                    there = None if o is None else pick(o)
                    if there is None or at_l is None:
                        cells.append("—")
                    else:
                        cells.append(f"{_f(there)} ({there / at_l:.2f}×)")
                lcell = "—" if at_l is None else _f(at_l)
                out.append(f"| {variant} | {lcell} | " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _alone_cpu(r: dict[str, Any]) -> float | None:
    """The indexed decision's CPU median when timed alone (runs before this field: None)."""
    alone = r["indexed"].get("alone")
    return None if alone is None else float(alone["cpu_median"])


def _cold_cpu(r: dict[str, Any]) -> float | None:
    """The indexed decision's CPU median after the fixed eviction sort (None before this field)."""
    cold = r["indexed"].get("cold")
    return None if cold is None else float(cold["cpu_median"])


def _interleaved_cpu(r: dict[str, Any]) -> float | None:
    return float(r["indexed"]["cpu_median"])


COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")


def svg_chart(doc: dict[str, Any]) -> str:
    """Indexed decision CPU time per tier (timed alone where recorded), one line per variant
    (log scale): the flatness plot.

    Pure SVG text, drawn like bench_scale.py's chart (no plotting library needed).
    """
    tiers = [t["tier"] for t in doc["tiers"]]
    variants: list[str] = []
    for t in doc["tiers"]:
        variants += [r["variant"] for r in t["results"] if r["variant"] not in variants]
    values = {
        (t["tier"], r["variant"]): _alone_cpu(r) or r["indexed"]["cpu_median"] for t in doc["tiers"] for r in t["results"]
    }
    if not values:
        return ""
    lo = 10 ** math.floor(math.log10(min(values.values())))
    hi = 10 ** math.ceil(math.log10(max(values.values())))
    if hi <= lo:
        hi = lo * 10
    width, height = 760, 400
    left, right, top, bottom = 64, 180, 40, 40
    plot_w, plot_h = width - left - right, height - top - bottom

    def y(v: float) -> float:
        return top + plot_h * (1 - (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo)))

    def x(i: int) -> float:
        return left + plot_w * (i + 0.5) / len(tiers)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{left + plot_w / 2}" y="20" text-anchor="middle" font-size="14">'
        "Indexed decision per tier (median thread CPU ms, timed alone, log scale)</text>",
    ]
    decade = lo
    while decade <= hi * 1.0001:
        yy = y(decade)
        out.append(f'<line x1="{left}" y1="{yy:.1f}" x2="{left + plot_w}" y2="{yy:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{yy + 4:.1f}" text-anchor="end">{decade:g}</text>')
        decade *= 10
    for i, tier in enumerate(tiers):
        out.append(f'<text x="{x(i):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{tier}</text>')
    for j, variant in enumerate(variants):
        color = COLORS[j % len(COLORS)]
        pts = [(x(i), y(values[(t, variant)])) for i, t in enumerate(tiers) if (t, variant) in values]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"/>')
        for (px, py), t in zip(pts, [t for t in tiers if (t, variant) in values]):
            out.append(
                f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{color}">'
                f"<title>{t} {variant}: {values[(t, variant)]:.3f} ms</title></circle>"
            )
        ly = top + 14 + 18 * j
        out.append(f'<rect x="{left + plot_w + 16}" y="{ly - 10}" width="12" height="12" fill="{color}"/>')
        out.append(f'<text x="{left + plot_w + 34}" y="{ly}">{variant}</text>')
    out.append(f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="black"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--tiers", default=None, help="default S,M,L,XL,H (S,L with --quick)")
    ap.add_argument("--variants", default="all")
    ap.add_argument("--quick", action="store_true", help="smoke run: tiers S and L, 5 runs (unless given)")
    ap.add_argument("--cases", default=None, help="directory with gen.py's <tier>.json files")
    ap.add_argument("--runs", type=int, default=None, help="timed rounds (default 40, 5 with --quick)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--plot", default=None, help="write the flatness chart (SVG) here")
    ap.add_argument("--redraw", action="store_true", help="rewrite tiers.md and the chart from <out>/tiers.json")
    a = ap.parse_args(argv)
    # A quick run checks that every path still answers the same and gives rough numbers; it is
    # what CI-like smoke runs (``nox -s bench -- --quick``) can afford on a shared 2-core machine.
    tiers = a.tiers or ("S,L" if a.quick else "S,M,L,XL,H")
    runs = a.runs or (5 if a.quick else 40)
    if a.redraw:
        doc0: dict[str, Any] = json.loads((Path(a.out) / "tiers.json").read_text())
        (Path(a.out) / "tiers.md").write_text(markdown(doc0))
        if a.plot:
            Path(a.plot).write_text(svg_chart(doc0))
        print(markdown(doc0))
        return 0
    doc: dict[str, Any] = {"machine": machine_info(), "source": source_fingerprint(), "quick": a.quick, "tiers": []}
    for tier in tiers.split(","):
        doc["tiers"].append(run_tier(tier.strip(), a.variants, a.cases, runs))
    ok = all(r["same_answers"] for t in doc["tiers"] for r in t["results"])
    if a.out:
        out = Path(a.out)
        out.mkdir(parents=True, exist_ok=True)
        (out / "tiers.json").write_text(json.dumps(doc, indent=1) + "\n")
        (out / "tiers.md").write_text(markdown(doc))
    if a.plot:
        Path(a.plot).write_text(svg_chart(doc))
    print(markdown(doc))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

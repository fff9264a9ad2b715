#!/usr/bin/env python3
"""The general simulator at scale (issue 20 item 7, issue 21 item 5): time in one process.

Two runs through the library's real scheduling cycle, incremental across cycles
(:class:`kueue_preempt.cycle.CycleState`), with an ideal API:

* ``L-tier``: the issue's run. The start state is the L tier of ``perf_gen.py`` (the vendored
  gen.py): 10 cohorts x 100 ClusterQueues (nominal 180 CPU, borrowing limit 900, preemption
  LowerPriority / reclaim Any), a namespace and LocalQueue ``lq`` per ClusterQueue, and its
  50,000 admitted workloads (small/medium/large = 1/5/20 CPU at priorities 50/100/200, every
  cohort exactly full), written as manifests and loaded like a dump. Their ``remaining`` run
  times are exponential with the arrivals' mean duration (fixed seed). The 100,000 arrivals
  come from the library's seeded generator (:func:`~kueue_preempt.sim.arrivals.generate.generate_arrivals`,
  the ``--generate`` path): per ClusterQueue, one Poisson class per size class at rates 7:2:1,
  100 arrivals per ClusterQueue over 300 s, exponential durations whose mean makes
  rate x duration x mean request = 1.2 x nominal: 120 % of every cohort's quota. Timed:
  :func:`~kueue_preempt.sim.run.simulate` (resolving the arrivals, the loop, every cycle);
  building the tier and generating the arrivals are reported apart (``buildSeconds``).
* ``large-scale``: Kueue's ``large-scale-generator.yaml`` (1,000 CQs, 50,000 workloads)
  through :func:`kueue_preempt.kperf.run.general_run`.

Reported: wall and CPU seconds, admissions (the start state's excluded), preemptions, the
longest queue (most workloads pending in one ClusterQueue at once), utilization (admitted
CPU-seconds over nominal CPU-seconds until the last arrival), cycles, instants and simulated
seconds.

Usage::

    python benchmarks/bench_sim.py [--runs L-tier,large-scale] [--cqs 100] [--profile FILE] [--breakdown]
                                   [--event-hash] [--queue-moves] [--partitioned [--workers N]] [--out DIR]

``--event-hash`` adds ``eventHash`` (the whole timeline) and ``decisionHash`` (the timeline without the
inadmissible-requeue moves: equal with and without ``--queue-moves``, and across the change that made
those moves one ``requeue-run`` event per run) and ``workloadHash`` (each workload's events in order,
workloads by key: equal for the run split by root cohort with ``--partitioned``).

``--cqs`` sets the ClusterQueues per cohort of the tier (100 = the L tier; fewer scale its
admitted workloads and arrivals with it). ``--breakdown`` adds, per hot operation, its calls and
seconds (nominations, their ``get_targets``, processing, requeues, head popping, requeue runs),
the timeline's events by kind, and ``eventFloorSeconds``: the CPU time to build that many
event objects and nothing else, measured right after the run. ``--partitioned`` runs the L tier
as one simulation per root cohort (:func:`~kueue_preempt.sim.partition.simulate_partitioned`) on
local worker processes (one per CPU) and adds ``partitions``: per partition its root, its
ClusterQueues and the CPU seconds of its run measured inside its worker, so the critical path
(``largestPartitionCpuSeconds``) shows on a machine with fewer cores than partitions;
``cpuSeconds`` is then this process's own (splitting, shipping, merging) plus every partition's. Writes ``<out>/sim.json`` and ``<out>/sim.md``.
Needs only the package (``PYTHONPATH=src``). Results: docs/performance.md, section Simulation.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import collections
import json
import os
import random
import sys
import time
from pathlib import Path
from typing import Any, Callable

from kueue_preempt.cycle import ClusterState
from kueue_preempt.io import ClusterDump, RawObject
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.sim.arrivals.model import ArrivalsFile, PodSetOverride, RunningRow
from kueue_preempt.sim.engine import SimulationOptions, SimulationResult
from kueue_preempt.sim.arrivals.generate import ArrivalClass, GeneratorSpec, generate_arrivals
from kueue_preempt.kperf.run import general_run
from kueue_preempt.sim.run import simulate
from kueue_preempt.kperf.scenario import build_scenario, load_scenario
from kueue_preempt.sim.output.timeline import Admitted, Arrived, Finished, Preempted, Released

ROOT = Path(__file__).resolve().parent.parent
LARGE_SCALE = ROOT / "examples" / "kueue-perf" / "large-scale-generator.yaml"

# The L tier's arrival classes (perf_gen.py: small/medium/large = 1/5/20 CPU at priorities
# 50/100/200, mixed 7:2:1), per ClusterQueue.
CLASSES = (("small", 1, 50, 0.7), ("medium", 5, 100, 0.2), ("large", 20, 200, 0.1))  # name, CPU, priority, share
MEAN_REQUEST = sum(cpu * share for _, cpu, _, share in CLASSES)  # 3.7 CPU
ARRIVALS_PER_CQ = 100  # 100,000 over the tier's 1,000 ClusterQueues
HORIZON_S = 300.0  # the arrivals come in over five minutes
LOAD = 1.2
SEED = 20


def tier_snapshot(cqs: int) -> dict[str, Any]:
    """perf_gen.py's L tier (10 cohorts x ``cqs`` ClusterQueues; 100 = the tier itself, 50,000
    admitted workloads; fewer scale the admitted count with it)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import perf_gen  # the vendored gen.py

    name = "L" if cqs == 100 else f"L/{cqs}"
    if name not in perf_gen.TIERS:
        admitted = int(perf_gen.TIERS["L"]["admitted"])  # type: ignore[call-overload]
        perf_gen.TIERS[name] = dict(perf_gen.TIERS["L"], cqs=cqs, admitted=admitted * cqs // 100)
    snap: dict[str, Any] = perf_gen.build_snapshot(name)
    return snap


def _workload_manifest(w: dict[str, Any]) -> dict[str, Any]:
    """An admitted workload of the tier as Kueue stores it (v1beta2)."""
    (ps,) = w["podSets"]
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": w["name"], "namespace": w["namespace"], "uid": w["uid"],
                     "creationTimestamp": w["creationTimestamp"]},
        "spec": {
            "queueName": w["localQueue"],
            "priority": w["priority"],
            "podSets": [{"name": ps["name"], "count": ps["count"],
                         "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": ps["requests"]}}]}}}],
        },
        "status": {
            "admission": {
                "clusterQueue": w["clusterQueue"],
                "podSetAssignments": [{"name": ps["name"], "count": ps["count"], "flavors": ps["flavors"],
                                       "resourceUsage": ps["resourceUsage"]}],
            },
            "conditions": [
                {"type": t, "status": "True", "reason": t, "message": "", "lastTransitionTime": w["quotaReservedAt"]}
                for t in ("QuotaReserved", "Admitted")
            ],
        },
    }


def tier_objects(snap: dict[str, Any]) -> list[dict[str, Any]]:
    """The tier's cluster as manifests: its flavor, ClusterQueues (quotas, preemption policies,
    cohorts), a namespace and LocalQueue ``lq`` per ClusterQueue, one inactive template
    Workload per namespace (what the arrivals instantiate) and the admitted workloads."""
    out: list[dict[str, Any]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": f}}
        for f in snap["resourceFlavors"]
    ]
    for co in snap["cohorts"]:
        out.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": co["name"]}, "spec": {}})
    for cq in snap["clusterQueues"]:
        ns = "ns-" + cq["name"][3:]
        groups = [
            {"coveredResources": g["coveredResources"],
             "flavors": [{"name": f["name"],
                          "resources": [{"name": r, "nominalQuota": q["nominal"], "borrowingLimit": q["borrowingLimit"]}
                                        for r, q in f["resources"].items()]}
                         for f in g["flavors"]]}
            for g in cq["resourceGroups"]
        ]
        p = cq["preemption"]
        out += [
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": cq["name"]},
             "spec": {"cohortName": cq["cohort"], "namespaceSelector": {}, "resourceGroups": groups,
                      "preemption": {"withinClusterQueue": p["withinClusterQueue"],
                                     "reclaimWithinCohort": p["reclaimWithinCohort"]}}},
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": ns},
             "spec": {"clusterQueue": cq["name"]}},
            {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "template", "namespace": ns},
             "spec": {"active": False, "queueName": "lq", "priority": 0,
                      "podSets": [{"name": "main", "count": 1,
                                   "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}},
        ]
    out += [_workload_manifest(w) for w in snap["admitted"]]
    return out


def tier_generator(snap: dict[str, Any], arrivals_per_cq: int = ARRIVALS_PER_CQ) -> GeneratorSpec:
    """The ``--generate`` spec: per ClusterQueue, one Poisson class per size class (7:2:1) whose
    rates bring ``arrivals_per_cq`` arrivals over HORIZON_S and whose exponential mean duration
    makes the offered load LOAD x the ClusterQueue's nominal quota (rate x duration x mean
    request = LOAD x nominal): every cohort is offered 120 % of its quota."""
    nominal = snap["meta"]["nominal"]
    rate = arrivals_per_cq / HORIZON_S
    duration = LOAD * nominal / (rate * MEAN_REQUEST)
    classes = []
    for cq in snap["clusterQueues"]:
        ns = "ns-" + cq["name"][3:]
        for name, cpu, priority, share in CLASSES:
            classes.append(ArrivalClass(
                template=f"{ns}/template", rate=rate * share, duration=duration, name=f"{cq['name']}-{name}",
                queue_name="lq", priorities=(priority,), sizes=(PodSetOverride(count=1, requests={"cpu": cpu * 1000}),),
            ))
    return GeneratorSpec(classes=classes, seed=SEED, count=arrivals_per_cq * len(snap["clusterQueues"]))


def tier_running(snap: dict[str, Any], mean: float) -> list[RunningRow]:
    """``remaining`` run times of the admitted workloads: exponential with the arrivals' mean
    duration (fixed seed), so the start state drains while the arrivals take over."""
    rng = random.Random(f"bench_sim/{SEED}/remaining")
    return [RunningRow(f"{w['namespace']}/{w['name']}", round(max(rng.expovariate(1 / mean), 0.001), 3))
            for w in snap["admitted"]]


def l_tier_inputs(cqs: int) -> tuple[ClusterState, ClusterDump, ArrivalsFile, float]:
    """The start state and arrivals of the L-tier run; also the seconds it took to build them."""
    t0 = time.perf_counter()
    snap = tier_snapshot(cqs)
    objects = [RawObject("L-tier", i + 1, o) for i, o in enumerate(tier_objects(snap))]
    state, dump = cluster_state_from_objects(objects)
    spec = tier_generator(snap)
    rows = generate_arrivals(spec)
    running = tier_running(snap, spec.classes[0].duration)
    arrivals = ArrivalsFile(rows=rows.rows, running=running, source="generated")
    return state, dump, arrivals, time.perf_counter() - t0


def figures(result: SimulationResult, last_arrival: float, nominal_millis: int) -> dict[str, Any]:
    """Admissions (the start state's excluded), preemptions, the longest queue (most workloads
    pending in one ClusterQueue at once) and utilization (admitted CPU-seconds over nominal
    CPU-seconds until the last arrival) from the timeline."""
    pending: collections.Counter[str] = collections.Counter()
    longest = 0
    charged: dict[str, tuple[float, int]] = {}
    cpu_seconds = 0.0
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
            if not e.initial:
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
    utilization = cpu_seconds / (nominal_millis * last_arrival) if last_arrival and nominal_millis else 0.0
    return {
        "admissions": admissions,
        "preemptions": preemptions,
        "longestQueue": longest,
        "utilization": round(utilization, 4),
        "cycles": result.cycles,
        "instants": result.instants,
        "simulatedSeconds": round(result.end, 3),
    }


def _timed(name: str, cqs: int, arrivals: int, admitted: int, run: Callable[[], SimulationResult]) -> tuple[dict[str, Any], SimulationResult]:
    w0, c0 = time.perf_counter(), time.process_time()
    result = run()
    row: dict[str, Any] = {
        "run": name,
        "clusterQueues": cqs,
        "admittedAtStart": admitted,
        "arrivals": arrivals,
        "wallSeconds": round(time.perf_counter() - w0, 2),
        "cpuSeconds": round(time.process_time() - c0, 2),
        "loadAverage": round(os.getloadavg()[0], 2),
    }
    return row, result


# The operations --breakdown times: (module, attribute, label). Module-level functions are
# wrapped where the cycle looks them up; methods on their class.
_BREAKDOWN = (
    ("kueue_preempt.cycle.step", "nominate", "nomination (SC-NOM-2)"),
    # The scheduler's oracle entry was get_targets before it skipped the public checks.
    ("kueue_preempt.cycle.nominate", "own_arguments_targets|get_targets", "get_targets inside nominations"),
    ("kueue_preempt.cycle.step:CycleBookkeeping", "process", "processing an entry (SC-PE-*)"),
    ("kueue_preempt.cycle.step:CycleBookkeeping", "requeue", "requeue of a head not admitted (SC-RQ-5)"),
    ("kueue_preempt.cycle.step:CycleBookkeeping", "pop_heads", "popping the heads of a cycle (SC-CY-2)"),
    ("kueue_preempt.sim.engine:_Loop", "run_requeue", "inadmissible-requeue run (SC-IN-1)"),
)


def _install_breakdown() -> tuple[dict[str, list[float]], Callable[[], None]]:
    """Wrap the operations of _BREAKDOWN with a timer; returns the tallies (label -> [calls,
    seconds]) and an undo. The wrappers add about a microsecond per call."""
    import importlib

    tallies: dict[str, list[float]] = {}
    undo: list[Callable[[], None]] = []
    for where, attr, label in _BREAKDOWN:
        mod_name, _, cls_name = where.partition(":")
        owner: Any = importlib.import_module(mod_name)
        if cls_name:
            owner = getattr(owner, cls_name)
        attr = next((a for a in attr.split("|") if hasattr(owner, a)), attr)
        original = getattr(owner, attr)
        tally = tallies[label] = [0, 0.0]

        def timed(*a: Any, _f: Any = original, _t: list[float] = tally, **k: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return _f(*a, **k)
            finally:
                _t[0] += 1
                _t[1] += time.perf_counter() - t0

        setattr(owner, attr, timed)
        undo.append(functools.partial(setattr, owner, attr, original))

    def restore() -> None:
        for u in reversed(undo):
            u()

    return tallies, restore


def _event_floor(result: SimulationResult) -> float:
    """CPU seconds to build as many timeline objects of each kind as the run produced, with
    nothing else done, kept alive in one list as the run keeps its timeline, under the run's
    collector settings (the engine's own context manager): the part of the run no scheduler
    can save, since the issue asks for every one of these events."""
    from kueue_preempt.sim.engine import fewer_collections

    counts = collections.Counter(type(e) for e in result.timeline)
    samples = {type(e): e for e in result.timeline}
    sink: list[object] = []
    c0 = time.process_time()
    with fewer_collections():
        for kind, n in counts.items():
            fields = [getattr(samples[kind], a.name) for a in kind.__attrs_attrs__]
            sink.extend(kind(*fields) for _ in range(n))
    seconds = time.process_time() - c0
    del sink
    return seconds


def event_hash(result: SimulationResult) -> str:
    """sha256 of the timeline, one ``repr`` per event and line: equal hashes, equal timelines
    (every event's kind, time and fields; attrs' repr names the class, not its module)."""
    digest = hashlib.sha256()
    for e in result.timeline:
        digest.update((repr(e) + "\n").encode())
    return digest.hexdigest()


def _queue_move(e: object) -> bool:
    # By class name, so that the hash also runs on code from before the aggregate event.
    name = type(e).__name__
    return name == "RequeueRun" or (name == "Requeued" and getattr(e, "reason", "") == "InadmissibleRequeue")


def decision_hash(result: SimulationResult) -> str:
    """sha256 of the timeline without the inadmissible-requeue moves (the ``requeue-run``
    events and the per-workload ``requeued``/``InadmissibleRequeue`` events of the debug
    option): every admission, preemption, release, failed attempt and completion, with its
    time and fields. Equal between a run with and without ``queue_moves``, and with the code
    from before the moves became one event per run."""
    digest = hashlib.sha256()
    for e in result.timeline:
        if not _queue_move(e):
            digest.update((repr(e) + "\n").encode())
    return digest.hexdigest()


def measure_l_tier(
    cqs: int, profile: str | None = None, breakdown: bool = False, hashed: bool = False, queue_moves: bool = False
) -> dict[str, Any]:
    """The L-tier run: build the inputs (timed apart), then :func:`simulate` (resolving the
    arrivals against the dump, the event loop and every cycle) under the clock. With
    ``breakdown`` the hot operations are counted and timed (which slows the run slightly) and the
    event floor is measured after it."""
    state, dump, arrivals, build_s = l_tier_inputs(cqs)
    name = "L-tier" if cqs == 100 else f"L-tier/{cqs}"
    tallies, undo = _install_breakdown() if breakdown else ({}, lambda: None)

    options = SimulationOptions(queue_moves=True) if queue_moves else SimulationOptions()

    def run() -> SimulationResult:
        if profile is None:
            return simulate(state, dump, arrivals, options=options)
        import cProfile

        prof = cProfile.Profile()
        out = prof.runcall(simulate, state, dump, arrivals, options=options)
        prof.dump_stats(profile)
        return out

    admitted = len(dump.holding_quota())
    try:
        row, result = _timed(name, len(dump.cluster_queues), len(arrivals.rows), admitted, run)
    finally:
        undo()
    row["buildSeconds"] = round(build_s, 2)
    if breakdown:
        row["breakdown"] = {
            label: {"calls": int(n), "seconds": round(sec, 2), "microsPerCall": round(1e6 * sec / n, 1) if n else 0.0}
            for label, (n, sec) in tallies.items()
        }
        row["timelineEvents"] = dict(collections.Counter(type(e).__name__ for e in result.timeline))
        row["eventFloorSeconds"] = round(_event_floor(result), 2)
    last = max(r.at for r in arrivals.rows)
    nominal = sum(q.nominal for cq in dump.cluster_queues for q in cq.quotas.values())
    row.update(figures(result, last, nominal))
    if hashed:
        row["eventHash"] = event_hash(result)
        row["decisionHash"] = decision_hash(result)
        row["workloadHash"] = workload_hash(result)
    return row


def workload_hash(result: SimulationResult) -> str:
    """sha256 of the timeline per workload: each workload's events in their order (workloads by
    key), then the events without a workload (requeue runs, livelocks) sorted. Equal for a run
    and the same run split by root cohort, whose merge orders one instant's events by partition."""
    per: dict[str, list[str]] = {}
    other: list[str] = []
    for e in result.timeline:
        key = getattr(e, "workload", None)
        if isinstance(key, str):
            per.setdefault(key, []).append(repr(e))
        else:
            other.append(repr(e))
    digest = hashlib.sha256()
    for key in sorted(per):
        digest.update(("\n".join(per[key]) + "\n").encode())
    for line in sorted(other):
        digest.update((line + "\n").encode())
    return digest.hexdigest()


def measure_l_tier_partitioned(cqs: int, workers: int | None = None, hashed: bool = False) -> dict[str, Any]:
    """The L-tier run split by root cohort on ``workers`` local processes (default: one per
    CPU): wall seconds, this process's CPU, each partition's CPU measured in its worker."""
    # Imported here: the other runs also measure code from before the split existed.
    from kueue_preempt.sim.partition import simulate_partitioned
    from kueue_preempt.sweep.backends import LocalBackend

    state, dump, arrivals, build_s = l_tier_inputs(cqs)
    name = ("L-tier" if cqs == 100 else f"L-tier/{cqs}") + "/partitioned"
    w0, c0 = time.perf_counter(), time.process_time()
    split = simulate_partitioned(state, dump, arrivals, mapper=LocalBackend(workers))
    parent_cpu = time.process_time() - c0
    partitions = [
        {"root": p.root, "clusterQueues": len(p.cluster_queues), "cpuSeconds": round(p.cpu_seconds, 2),
         "instants": p.instants, "cycles": p.cycles, "events": p.events}
        for p in split.partitions
    ]
    row: dict[str, Any] = {
        "run": name,
        "clusterQueues": len(dump.cluster_queues),
        "admittedAtStart": len(dump.holding_quota()),
        "arrivals": len(arrivals.rows),
        "wallSeconds": round(time.perf_counter() - w0, 2),
        "cpuSeconds": round(parent_cpu + sum(p.cpu_seconds for p in split.partitions), 2),
        "parentCpuSeconds": round(parent_cpu, 2),
        "largestPartitionCpuSeconds": round(max((p.cpu_seconds for p in split.partitions), default=0.0), 2),
        "workers": workers or os.cpu_count() or 1,
        "loadAverage": round(os.getloadavg()[0], 2),
        "buildSeconds": round(build_s, 2),
    }
    last = max(r.at for r in arrivals.rows)
    nominal = sum(q.nominal for cq in dump.cluster_queues for q in cq.quotas.values())
    row.update(figures(split.result, last, nominal))
    row["partitions"] = partitions
    if hashed:
        row["workloadHash"] = workload_hash(split.result)
    return row


def measure_large_scale(hashed: bool = False) -> dict[str, Any]:
    built = build_scenario(load_scenario(LARGE_SCALE))
    row, result = _timed("large-scale", len(built.queues), len(built.workloads), 0, lambda: general_run(built))
    last = max((w.at_ms for w in built.workloads), default=0) / 1000.0
    row.update(figures(result, last, sum(q.nominal_cpu_millis for q in built.queues)))
    if hashed:
        row["eventHash"] = event_hash(result)
        row["decisionHash"] = decision_hash(result)
    return row


COLUMNS = ["run", "clusterQueues", "admittedAtStart", "arrivals", "wallSeconds", "cpuSeconds", "admissions",
           "preemptions", "longestQueue", "utilization", "cycles", "instants", "simulatedSeconds", "loadAverage"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", default="L-tier,large-scale")
    parser.add_argument("--cqs", type=int, default=100, help="ClusterQueues per cohort of the L tier (100 = the tier)")
    parser.add_argument("--profile", default=None, help="write a cProfile of the L-tier run to this file")
    parser.add_argument("--breakdown", action="store_true",
                        help="count and time the hot operations of the L-tier run, and measure its event floor")
    parser.add_argument("--event-hash", action="store_true",
                        help="add eventHash: sha256 of the timeline (after timing), to check that a change kept every event")
    parser.add_argument("--queue-moves", action="store_true",
                        help="run the L tier with SimulationOptions(queue_moves=True): one requeued event per workload a requeue run moves")
    parser.add_argument("--partitioned", action="store_true",
                        help="run the L tier split by root cohort on local worker processes; report each partition's CPU")
    parser.add_argument("--workers", type=int, default=None, help="with --partitioned: worker processes (default: one per CPU)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results"))
    args = parser.parse_args()
    rows = []
    for name in args.runs.split(","):
        if name == "L-tier" and args.partitioned:
            row = measure_l_tier_partitioned(args.cqs, args.workers, args.event_hash)
        elif name == "L-tier":
            row = measure_l_tier(args.cqs, args.profile, args.breakdown, args.event_hash, args.queue_moves)
        elif name == "large-scale":
            row = measure_large_scale(args.event_hash)
        else:
            raise SystemExit(f"unknown run {name!r}")
        print(json.dumps(row), flush=True)
        rows.append(row)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "sim.json").write_text(json.dumps(rows, indent=2) + "\n")
    md = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    md += ["| " + " | ".join(str(r.get(c, "")) for c in COLUMNS) + " |" for r in rows]
    (out / "sim.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    main()

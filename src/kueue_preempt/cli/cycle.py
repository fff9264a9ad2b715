"""``kueue-preempt cycle DUMP``: what Kueue's next scheduling cycle does on a cluster dump.

An edge like the rest of the CLI: it loads the dump (:func:`kueue_preempt.io.cycle_state.load_cluster_state`),
calls :func:`kueue_preempt.cycle.run_cycles` — the one implementation of the cycle — and
formats the result. A dump holds no queue memory, so the output states the assumption it runs
under (every pending workload in the active queue, no scan progress, waiting preemptors taken
from their conditions).
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from typing import Any, Callable

from kueue_preempt.cli.common import OUTPUT_HELP, int_flag
from kueue_preempt.cli.gates import add_feature_gates_flag, note_release
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.cycle import ClusterState, CycleConfig, CycleResult, CycleRun, HeadResult, Outcome, run_cycles
from kueue_preempt.cli.cluster_input import add_dump_arguments, cluster_state_of
from kueue_preempt.io.text import quantity_text
from kueue_preempt.model import PodSetUsage
from kueue_preempt.model.queues import cohort_parents, root_cohort

__all__ = ["add_cycle_parser", "ASSUMPTION", "cycle_command", "cohort_note"]

ASSUMPTION = (
    "Assumption: a dump holds no queue memory, so every pending workload starts in the active queue, "
    "with no flavor-scan progress and no waiting preemptor, as right after Kueue starts; pending workloads "
    "whose QuotaReserved condition says WaitingForPreemptedWorkloads count as waiting preemptors."
)
RELEASE_NOTE = "Between cycles the victims of a cycle are released at once (termination time 0, SC-SIM-2)."


def _config(args: argparse.Namespace) -> CycleConfig:
    """``--config`` (Kueue's Configuration file) with the explicit flags over it (FG-5)."""
    config_of: Callable[[argparse.Namespace], PreemptionConfig] = args.config_of
    return CycleConfig(config_of(args))


def _admission_text(pod_sets: tuple[PodSetUsage, ...]) -> str:
    parts = []
    for ps in pod_sets:
        flavors = ", ".join(f"{r}={f}" for r, f in sorted(ps.flavors.items()))
        parts.append(f"{ps.name} x{ps.count} [{flavors}]")
    return "; ".join(parts)


_VICTIMS_SHOWN = 5


def _detail(r: HeadResult) -> str:
    if r.outcome is Outcome.ADMITTED and r.admission is not None:
        return _admission_text(r.admission)
    if r.outcome is Outcome.PREEMPTING:
        # The table stays readable on big clusters: the first few victims, then a count
        # (``-o json`` lists every target).
        shown = [f"{t.workload.key} ({t.reason.value})" for t in r.targets[:_VICTIMS_SHOWN]]
        more = len(r.targets) - len(shown)
        victims = ", ".join(shown) + (f" and {more} more (-o json lists all)" if more > 0 else "")
        return f"preempts {victims}; {r.message}"
    return f"{r.reason}: {r.message}" if r.reason else r.message


def _result_json(r: HeadResult) -> dict[str, Any]:
    return {
        "workload": r.key,
        "clusterQueue": r.cluster_queue,
        "outcome": r.outcome.value,
        "mode": r.mode.value if r.mode is not None else None,
        "borrowingLevel": r.borrowing,
        "queue": r.queue,
        "requeueReason": r.requeue_reason.value if r.requeue_reason is not None else None,
        "reason": r.reason,
        "message": r.message,
        "admission": None
        if r.admission is None
        else [
            {
                "name": ps.name,
                "count": ps.count,
                "flavors": dict(ps.flavors),
                "resourceUsage": {res: quantity_text(v, res) for res, v in ps.usage.items()},
            }
            for ps in r.admission
        ],
        "preempts": [
            {"workload": t.workload.key, "clusterQueue": t.cluster_queue, "reason": t.reason.value, "message": t.message}
            for t in r.targets
        ],
    }


def _cycle_json(c: CycleResult, released: tuple[str, ...]) -> dict[str, Any]:
    return {
        "cycle": c.cycle,
        "heads": list(c.heads),
        "results": [_result_json(r) for r in c.results],
        "releasedAfter": list(released),
        "events": [
            {"namespace": e.namespace, "name": e.name, "type": e.type, "reason": e.reason, "message": e.message}
            for e in c.events
        ],
        "metrics": {
            "admissionAttempt": c.attempt,
            "preemptionSkips": dict(c.skipped_preemptions),
            "recomputations": [{"clusterQueue": cq, "result": res, "count": n} for (cq, res), n in sorted(c.recomputations.items())],
        },
    }


def _waiting(cluster: ClusterState, run: CycleRun) -> list[tuple[str, str, str]]:
    """Pending workloads after the run: (key, cluster queue, active|inadmissible)."""
    rows = []
    for cq, keys in run.queues.active_by_queue().items():
        rows += [(k, cq, "active") for k in keys]
    for cq, keys in run.queues.inadmissible_by_queue().items():
        rows += [(k, cq, "inadmissible") for k in keys]
    return sorted(rows)


def _unqueued(cluster: ClusterState, run: CycleRun) -> list[str]:
    """Active, unfinished workloads holding no quota that are in no queue (SC-ST-1)."""
    queued = {k for q in run.queues.queues.values() for k in q.active | q.inadmissible}
    out = []
    for w in cluster.workloads:
        finished = w.condition("Finished")
        if w.cluster_queue or w.key in queued or not cluster.status(w.key).active:
            continue
        if finished is not None and finished.is_true:
            continue
        out.append(w.key)
    return sorted(out)


def cycle_command(args: argparse.Namespace) -> tuple[int, str]:
    """Run the command; returns ``(exit code, output)``."""
    cluster, _dump = cluster_state_of(args)
    note_release([w.workload for w in _dump.workloads], _config(args).preemption.kueue_release)
    now = args.now or datetime.now(timezone.utc)
    run = run_cycles(cluster, None, _config(args), now, cycles=args.cycles, until_stable=args.until_stable)
    last: dict[str, HeadResult] = {}
    for c in run.cycles:
        for r in c.results:
            last[r.key] = r
    waiting = _waiting(run.cluster, run)
    unqueued = _unqueued(run.cluster, run)
    if args.output == "json":
        doc = {
            "assumption": ASSUMPTION,
            "releaseBetweenCycles": RELEASE_NOTE if len(run.cycles) > 1 or args.until_stable else None,
            "now": now.isoformat().replace("+00:00", "Z"),
            "cycles": [_cycle_json(c, rel) for c, rel in zip(run.cycles, run.released)],
            "stable": run.stable,
            "livelock": run.livelock,
            "cap": run.cap,
            "pending": [{"workload": k, "clusterQueue": cq, "queue": q} for k, cq, q in waiting],
            "notQueued": unqueued,
        }
        return 0, json.dumps(doc, indent=2) + "\n"
    out = [ASSUMPTION]
    if len(run.cycles) > 1 or args.until_stable:
        out.append(RELEASE_NOTE)
    for c, rel in zip(run.cycles, run.released):
        if not c.heads:
            out += ["", "Next cycle: no active ClusterQueue has a head - nothing to schedule (SC-CY-1)."]
            continue
        out += ["", f"Cycle {c.cycle}: {len(c.heads)} head(s)"]
        rows = [[r.key, r.cluster_queue, r.outcome.value, r.queue or "-", _detail(r)] for r in c.results]
        if rows:
            out += _table(["WORKLOAD", "CLUSTERQUEUE", "OUTCOME", "QUEUE", "DETAIL"], rows)
        if rel:
            listed = ", ".join(rel[:_VICTIMS_SHOWN]) + (f" and {len(rel) - _VICTIMS_SHOWN} more" if len(rel) > _VICTIMS_SHOWN else "")
            out.append(f"  released after the cycle: {listed}")
    out += [""]
    if args.until_stable:
        out.append(
            f"Stable after {len(run.cycles)} cycle(s)."
            if run.stable
            else f"LIVELOCK: not stable after {run.cap} cycles (the cap: 10 x pending workloads + 10)."
        )
    if waiting:
        out.append("Still pending:")
        rows = []
        for k, cq, q in waiting:
            seen = last.get(k)
            why = _detail(seen) if seen is not None else "not a head in these cycles (behind the head of its queue)"
            rows.append([k, cq, q, why])
        out += _table(["WORKLOAD", "CLUSTERQUEUE", "QUEUE", "WHY"], rows)
    if unqueued:
        out.append("Not in any queue (LocalQueue or ClusterQueue missing or stopped, or inactive): " + ", ".join(unqueued))
    return (1 if run.livelock else 0), "\n".join(out) + "\n"


def _table(headers: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers[:-1])]
    lines = []
    for row in [headers] + rows:
        cells = [c.ljust(w) for c, w in zip(row[:-1], widths)] + [row[-1]]
        lines.append(indent + "  ".join(cells).rstrip())
    return lines


def cohort_note(cluster: ClusterState, key: str, now: datetime, config: CycleConfig) -> str | None:
    """For ``explain --workload``: one line when, in the next cycle, another head of the same
    cohort tree is processed first and takes the capacity (SC-ORD-1, SC-FS-1, SC-PE-4)."""
    from kueue_preempt.cycle import schedule_cycle

    result = schedule_cycle(cluster, None, config=config, now=now)
    mine = result.result(key)
    if mine is None or mine.outcome is Outcome.ADMITTED:
        return None
    roots = _roots(cluster)
    my_root = roots.get(mine.cluster_queue)
    if my_root is None:
        return None
    takers = []
    for r in result.results:
        if r.key == key:
            break
        if roots.get(r.cluster_queue) == my_root and r.outcome in (Outcome.ADMITTED, Outcome.PREEMPTING, Outcome.DEFERRED_FIT):
            takers.append(f"{r.key} (ClusterQueue {r.cluster_queue}, {r.outcome.value})")
    if not takers:
        return None
    return (
        f"Note: in the next scheduling cycle {', '.join(takers)} "
        f"{'is' if len(takers) == 1 else 'are'} processed before {key} in cohort {my_root} and take capacity first "
        f"(this workload: {mine.outcome.value}{', ' + mine.message if mine.message else ''})."
    )


def _roots(cluster: ClusterState) -> dict[str, str]:
    """ClusterQueue -> its root cohort, for the ClusterQueues in a cohort."""
    parents = cohort_parents(cluster.cohorts)
    return {cq.name: root_cohort(parents, cq.cohort) for cq in cluster.cluster_queues if cq.cohort is not None}


def add_cycle_parser(
    sub: Any, rfc3339: Any, strategies: Any, config_of: Callable[[argparse.Namespace], PreemptionConfig], config_help: str
) -> None:
    """Register ``cycle`` on the CLI's subparsers: ``rfc3339``/``strategies`` are the CLI's
    argument types, ``config_of`` builds the configuration from ``--config`` and the flags."""
    p = sub.add_parser(
        "cycle",
        help="what Kueue's next scheduling cycle does with every pending workload",
        description="Run Kueue's scheduling cycle on a dump: per pending workload, admitted "
        "(ClusterQueue, flavors, count), preempts whom, or stays pending (active or inadmissible) and why. "
        + ASSUMPTION,
    )
    add_dump_arguments(p)
    runs = p.add_mutually_exclusive_group()
    runs.add_argument("--cycles", type=_positive, default=1, metavar="N", help="run N cycles (victims released between them)")
    runs.add_argument("--until-stable", action="store_true", help="run cycles until nothing changes (cap: 10 x pending + 10)")
    p.add_argument("--config", metavar="FILE", help=config_help)
    p.add_argument("--fair-sharing", action="store_true", help="Kueue configured with fairSharing (overrides --config)")
    p.add_argument(
        "--strategies", type=strategies, metavar="S1[,S2]", help="fair-sharing strategies (implies --fair-sharing; overrides --config)"
    )
    p.add_argument("--now", type=rfc3339, metavar="RFC3339", help="the cycle time (default: now)")
    p.add_argument("--output", "-o", choices=("table", "json"), default="table", help=OUTPUT_HELP)
    add_feature_gates_flag(p)
    p.set_defaults(func=cycle_command, config_of=config_of)


_positive = int_flag(1, 100000)

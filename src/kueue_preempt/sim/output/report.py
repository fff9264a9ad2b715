"""A :class:`~kueue_preempt.sim.output.metrics.Summary` as JSON (``-o json``) or a text table."""

from __future__ import annotations

import math
from typing import Any

from kueue_preempt.io.text import number_text
from kueue_preempt.sim.output.metrics import QueueSummary, Summary
from kueue_preempt.sim.output.timeline import event_json

__all__ = ["summary_json", "summary_table"]


def _seconds(value: float | None) -> float | int | None:
    if value is None:
        return None
    return int(value) if float(value).is_integer() else round(value, 6)


def _share(value: float) -> float | str:
    return "inf" if math.isinf(value) else round(value, 6)


def _queue_json(q: QueueSummary, series: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": q.name,
        "kind": q.kind,
        "workloads": q.workloads,
        "admitted": q.admitted,
        "finished": q.finished,
        "wait": {
            "count": q.wait.count,
            "p50": _seconds(q.wait.p50),
            "p90": _seconds(q.wait.p90),
            "p99": _seconds(q.wait.p99),
            "neverAdmitted": q.wait.never_admitted,
        },
        "preemptions": q.preemptions,
        "preemptedWorkloads": q.preempted_workloads,
        "preemptionsPerWorkload": round(q.preemptions_per_workload, 6),
        "preemptionCycles": q.cycles,
        "utilization": {f"{fr.flavor}/{fr.resource}": round(v, 6) for fr, v in q.utilization.items()},
    }
    if series:
        out["usage"] = [
            {"t": _seconds(p.t), "usage": {f"{fr.flavor}/{fr.resource}": v for fr, v in p.usage.items()}} for p in q.usage
        ]
        out["drs"] = [{"t": _seconds(p.t), "share": _share(p.share)} for p in q.drs]
    return out


def summary_json(summary: Summary, *, series: bool = False) -> dict[str, Any]:
    """JSON-ready dict; ``series`` adds the usage and DRS step functions of every node."""
    return {
        "span": _seconds(summary.span),
        "queues": [_queue_json(q, series) for q in summary.queues],
        "preemptionCycles": [
            {"first": event_json(c.first), "second": event_json(c.second)} for c in summary.cycles
        ],
        "livelocks": [event_json(e) for e in summary.livelocks],
        "preemptionsByWorkload": dict(summary.preemptions_by_workload),
    }


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    return number_text(value, 6)


def summary_table(summary: Summary) -> str:
    """A fixed-width table, one row per ClusterQueue and cohort, then cycles and livelocks."""
    header = ("QUEUE", "KIND", "WORKLOADS", "ADMITTED", "WAIT P50", "P90", "P99", "NEVER", "PREEMPTIONS", "PER WL", "CYCLES", "UTILIZATION")
    rows = [header]
    for q in summary.queues:
        util = ", ".join(f"{fr} {v:.0%}" for fr, v in q.utilization.items()) or "-"
        rows.append(
            (
                q.name,
                q.kind,
                str(q.workloads),
                str(q.admitted),
                _cell(q.wait.p50),
                _cell(q.wait.p90),
                _cell(q.wait.p99),
                str(q.wait.never_admitted),
                str(q.preemptions),
                f"{q.preemptions_per_workload:.2f}",
                str(q.cycles),
                util,
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in rows]
    lines.append(f"span: {number_text(summary.span, 6)} s; preemption cycles: {len(summary.cycles)}")
    for c in summary.cycles:
        lines.append(
            f"  cycle: {c.first.preemptor} preempted {c.first.workload} at {number_text(c.first.t, 6)}, "
            f"{c.second.preemptor} preempted {c.second.workload} at {number_text(c.second.t, 6)}"
        )
    for e in summary.livelocks:
        lines.append(f"LIVELOCK at {number_text(e.t, 6)} s: {e.cycles} cycles without settling; workloads: {', '.join(e.workloads)}")
    return "\n".join(lines) + "\n"

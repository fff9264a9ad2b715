"""Kueue's scalability summary computed from a simulation timeline.

The figures and their names are those of Kueue's runner (``summary.json``) and checker:

* per workload class (the ``kueue.x-k8s.io/performance-scheduler-class`` label):
  ``count`` (workloads created), ``totalEvictions`` (preemptions of the class's workloads),
  ``averageTimeToAdmissionMs`` = mean over its admitted workloads of (time of the last
  admission − creation time) and ``averageTimeToFinishMs`` = mean over its finished workloads
  of (finish time − creation time);
* per ClusterQueue class: ``cpuUsed`` = ∫ (cpu charged to the class's queues) dt in
  millicore·milliseconds, counted from admission until the workload finishes or its quota is
  released after an eviction; ``firstEventTime`` / ``lastEventTime`` = the first and last
  change of any of the class's queues (an arrival, admission, eviction, release or finish);
  ``nominalQuota`` = Σ nominal cpu (millicores); ``cpuAverageUsage`` = ``cpuUsed`` ÷ the span
  (millicores); and the checker's
  ``usagePercent = cpuUsed × 100 / (nominalQuota × (lastEventTime − firstEventTime in ms))``.

Time to admission has two definitions, as Kueue's runner had (``ADMISSION_TIMES``):

* ``observed`` (the default: Kueue's range files were calibrated with it) — the runner's local
  time when it observed the ``Admitted`` condition (the admission write completed) minus the
  time it recorded the workload's first event (its creation). Both are the runner's clock.
* ``decision`` — the ``Admitted`` condition's transition time (stamped by the scheduler before
  its write waits for the limiter) minus ``metadata.creationTimestamp``; with ``truncate`` (the
  default) both are cut to whole seconds, as Kubernetes stores them.

Time to finish is the runner's observation of the finish minus the creation (its clock). With
the API model's ClusterQueue status writes, the ClusterQueue class span and the run's duration
are what the runner sees through them (``queue_status_seen``).
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model.quantity import format_amount
from kueue_preempt.sim.arrivals.model import SIM_START
from kueue_preempt.kperf.scenario import BuiltScenario
from kueue_preempt.sim.output.timeline import Admitted, Arrived, Event, Finished, Livelock, Preempted, Released, RequeueRun

__all__ = [
    "WorkloadClassSummary",
    "QueueClassSummary",
    "KueueSummary",
    "kueue_summary",
    "summary_for_scenario",
    "summary_json",
    "summary_table",
    "ADMISSION_TIMES",
]

ADMISSION_TIMES = ("observed", "decision")
"""The definitions of time to admission; the first is the default."""


@attrs.frozen
class WorkloadClassSummary:
    count: int
    total_evictions: int
    average_time_to_admission_ms: float | None
    average_time_to_finish_ms: float | None
    admitted: int
    finished: int


@attrs.frozen
class QueueClassSummary:
    cpu_used: float
    """millicore·milliseconds"""
    cpu_average_usage: float
    """millicores"""
    nominal_quota: int
    """millicores"""
    first_event_time: float
    last_event_time: float
    """seconds from the start"""

    @property
    def usage_percent(self) -> float:
        span_ms = (self.last_event_time - self.first_event_time) * 1000.0
        if self.nominal_quota <= 0 or span_ms <= 0:
            return 0.0
        return self.cpu_used * 100.0 / (self.nominal_quota * span_ms)


def _w(value: Mapping[str, WorkloadClassSummary]) -> FrozenMap[str, WorkloadClassSummary]:
    return frozen_map(value)


def _q(value: Mapping[str, QueueClassSummary]) -> FrozenMap[str, QueueClassSummary]:
    return frozen_map(value)


@attrs.frozen
class KueueSummary:
    workload_classes: FrozenMap[str, WorkloadClassSummary] = attrs.field(converter=_w)
    cluster_queue_classes: FrozenMap[str, QueueClassSummary] = attrs.field(converter=_q)
    duration: float
    """Simulated duration of the run (seconds): the time of its last event (or of the last
    ClusterQueue status the runner saw, if later)."""
    admission_time: str = "observed"
    """Which definition of time to admission the averages use (``ADMISSION_TIMES``)."""


def _sec(t: float, truncate: bool) -> float:
    return float(math.floor(t + 1e-9)) if truncate else t


def kueue_summary(
    timeline: Iterable[Event],
    workload_classes: Mapping[str, str],
    queue_classes: Mapping[str, tuple[str, int]],
    *,
    truncate: bool = True,
    end: float | None = None,
    admitted_seen: Iterable[tuple[str, float]] | None = None,
    admitted_stamped: Iterable[tuple[str, float]] | None = None,
    queue_status_seen: Iterable[tuple[str, float, float]] | None = None,
    admission_time: str = "observed",
) -> KueueSummary:
    """Kueue's summary of ``timeline``.

    ``workload_classes`` maps workload keys to their class; ``queue_classes`` maps ClusterQueue
    names to ``(class, nominal cpu in millicores)``. Workloads and queues not in the maps are
    ignored. A workload still charged at the end is counted until ``end`` (default: the last
    event). ``admitted_seen`` gives, per admission in timeline order, when the runner saw it
    (when the admission write completed) and ``admitted_stamped`` the ``Admitted`` transition
    time; without them an admission counts at its timeline time. ``queue_status_seen`` gives
    per ClusterQueue the first and last status write the runner saw (the class spans then come
    from them). ``admission_time`` is ``observed`` or ``decision`` (module docstring).
    """
    if admission_time not in ADMISSION_TIMES:
        raise ConfigurationError(f"admission_time: expected one of {', '.join(ADMISSION_TIMES)}, got {admission_time!r}")
    created: dict[str, float] = {}
    last_admitted: dict[str, float] = {}
    finished: dict[str, float] = {}
    evictions: dict[str, int] = {}
    charged: dict[str, tuple[float, int, str]] = {}
    used: dict[str, float] = {}
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    last_t = 0.0
    for e in timeline:
        last_t = e.t
        if isinstance(e, (Livelock, RequeueRun)):
            continue
        qc = queue_classes.get(e.cluster_queue)
        if qc is not None:
            cls = qc[0]
            if cls not in first:
                first[cls] = e.t
            last[cls] = e.t
        if isinstance(e, Arrived):
            created.setdefault(e.workload, e.t)
        elif isinstance(e, Admitted):
            last_admitted[e.workload] = e.t
            charged[e.workload] = (e.t, sum(v for fr, v in e.usage.items() if fr.resource == "cpu"), e.cluster_queue)
        elif isinstance(e, Preempted):
            evictions[e.workload] = evictions.get(e.workload, 0) + 1
        elif isinstance(e, (Finished, Released)):
            if isinstance(e, Finished):
                finished[e.workload] = e.t
            c = charged.pop(e.workload, None)
            if c is not None and c[2] in queue_classes:
                cls = queue_classes[c[2]][0]
                used[cls] = used.get(cls, 0.0) + c[1] * (e.t - c[0]) * 1000.0
    chosen = admitted_seen if admission_time == "observed" else admitted_stamped
    if chosen is not None:
        last_admitted = {}
        for key, t in chosen:
            last_admitted[key] = t
    if queue_status_seen is not None:
        seen_first: dict[str, float] = {}
        seen_last: dict[str, float] = {}
        for cq, f, l in queue_status_seen:
            qc = queue_classes.get(cq)
            if qc is None:
                continue
            seen_first[qc[0]] = min(f, seen_first.get(qc[0], f))
            seen_last[qc[0]] = max(l, seen_last.get(qc[0], l))
        if seen_first:
            first, last = seen_first, seen_last
            last_t = max(last_t, *seen_last.values())
    stop = last_t if end is None else end
    for t0, cpu, cq in charged.values():
        if cq in queue_classes:
            cls = queue_classes[cq][0]
            used[cls] = used.get(cls, 0.0) + cpu * (stop - t0) * 1000.0
    per_class: dict[str, list[str]] = {}
    for key, cls in workload_classes.items():
        per_class.setdefault(cls, []).append(key)
    wl: dict[str, WorkloadClassSummary] = {}
    for cls in sorted(per_class):
        keys = [k for k in per_class[cls] if k in created]
        if admission_time == "observed":
            # The runner's clock: when it saw Admitted, minus its first event of the workload.
            adm = [(last_admitted[k] - created[k]) * 1000.0 for k in keys if k in last_admitted]
        else:
            # Two Kubernetes timestamps, each stored with one-second resolution.
            adm = [
                (_sec(last_admitted[k], truncate) - _sec(created[k], truncate)) * 1000.0 for k in keys if k in last_admitted
            ]
        fin = [(finished[k] - created[k]) * 1000.0 for k in keys if k in finished]
        wl[cls] = WorkloadClassSummary(
            count=len(keys),
            total_evictions=sum(evictions.get(k, 0) for k in keys),
            average_time_to_admission_ms=sum(adm) / len(adm) if adm else None,
            average_time_to_finish_ms=sum(fin) / len(fin) if fin else None,
            admitted=len(adm),
            finished=len(fin),
        )
    nominal: dict[str, int] = {}
    for _, (cls, n) in queue_classes.items():
        nominal[cls] = nominal.get(cls, 0) + n
    qs: dict[str, QueueClassSummary] = {}
    for cls in sorted(nominal):
        f, l = first.get(cls, 0.0), last.get(cls, 0.0)
        span_ms = (l - f) * 1000.0
        u = used.get(cls, 0.0)
        qs[cls] = QueueClassSummary(u, u / span_ms if span_ms > 0 else 0.0, nominal[cls], f, l)
    return KueueSummary(wl, qs, last_t, admission_time)


def summary_for_scenario(
    timeline: Iterable[Event],
    built: BuiltScenario,
    *,
    truncate: bool = True,
    admitted_seen: Iterable[tuple[str, float]] | None = None,
    admitted_stamped: Iterable[tuple[str, float]] | None = None,
    queue_status_seen: Iterable[tuple[str, float, float]] | None = None,
    admission_time: str = "observed",
) -> KueueSummary:
    """:func:`kueue_summary` with the classes of a generated scenario."""
    return kueue_summary(
        timeline,
        {w.key: w.class_name for w in built.workloads},
        {q.name: (q.class_name, q.nominal_cpu_millis) for q in built.queues},
        truncate=truncate,
        admitted_seen=admitted_seen,
        admitted_stamped=admitted_stamped,
        queue_status_seen=queue_status_seen,
        admission_time=admission_time,
    )


def _time(t: float, start: datetime) -> str:
    return (start + timedelta(seconds=t)).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _round(v: float | None) -> float | None:
    return None if v is None else round(v, 3)


def summary_json(summary: KueueSummary, *, start: datetime = SIM_START) -> dict[str, Any]:
    """The summary with Kueue's field names (``summary.json``), plus ``usagePercent`` per
    ClusterQueue class and the run's simulated ``durationMs``."""
    return {
        "clusterQueueClasses": {
            cls: {
                "cpuUsed": round(q.cpu_used),
                "cpuAverageUsage": round(q.cpu_average_usage, 3),
                "nominalQuota": q.nominal_quota,
                "firstEventTime": _time(q.first_event_time, start),
                "lastEventTime": _time(q.last_event_time, start),
                "usagePercent": round(q.usage_percent, 3),
            }
            for cls, q in summary.cluster_queue_classes.items()
        },
        "workloadClasses": {
            cls: {
                "count": w.count,
                "totalEvictions": w.total_evictions,
                "averageTimeToAdmissionMs": _round(w.average_time_to_admission_ms),
                "averageTimeToFinishMs": _round(w.average_time_to_finish_ms),
            }
            for cls, w in summary.workload_classes.items()
        },
        "durationMs": round(summary.duration * 1000.0),
        "admissionTime": summary.admission_time,
    }


def summary_table(summary: KueueSummary) -> str:
    """The summary as two aligned tables."""
    rows = [["workload class", "count", "evictions", "avg time to admission (ms)", "avg time to finish (ms)"]]
    for cls, w in summary.workload_classes.items():
        rows.append([
            cls,
            str(w.count),
            str(w.total_evictions),
            "-" if w.average_time_to_admission_ms is None else f"{w.average_time_to_admission_ms:,.0f}",
            "-" if w.average_time_to_finish_ms is None else f"{w.average_time_to_finish_ms:,.0f}",
        ])
    out = [_table(rows), ""]
    rows = [["ClusterQueue class", "nominal cpu", "cpu usage %", "avg cpu used", "span (s)"]]
    for cls, q in summary.cluster_queue_classes.items():
        rows.append([
            cls,
            _cpu(q.nominal_quota),
            f"{q.usage_percent:.1f}",
            _cpu(q.cpu_average_usage),
            f"{q.last_event_time - q.first_event_time:.3f}",
        ])
    out += [
        _table(rows),
        "",
        f"simulated duration: {summary.duration * 1000:,.0f} ms",
        f"time to admission: {_DEFINITIONS[summary.admission_time]}",
    ]
    return "\n".join(out) + "\n"


_DEFINITIONS = {
    "observed": "observed (the runner saw Admitted, minus its first event of the workload)",
    "decision": "decision (Admitted transition time minus creationTimestamp, whole seconds)",
}


def _cpu(millis: float) -> str:
    # A Kubernetes quantity, as the ClusterQueue wrote it: "6", "1500m" (never 1.5e+03).
    return format_amount(round(millis), "cpu")


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(r)).rstrip() for r in rows)


def dumps(summary: KueueSummary) -> str:
    return json.dumps(summary_json(summary), indent=2, sort_keys=False) + "\n"

"""Timeline events: what happened to each workload during a simulation, and their JSONL form.

One event per line, ``{"t": <seconds>, "event": "<kind>", ...}``, in the order the simulator
produced them (time never decreases). The summary (:mod:`~kueue_preempt.sim.output.metrics`) and the
plots are computed from these events alone, so a timeline written by one run can be summarised
or plotted later, or compared across runs.

=============  =====================================================================
event          fields besides ``t``
=============  =====================================================================
arrived        workload, clusterQueue, initial (a pending workload of the dump, at 0)
admitted       workload, clusterQueue, podSets (name, count, flavors), usage
               (``"FLAVOR/RESOURCE": amount``), initial (admitted in the dump)
preempted      workload, clusterQueue, preemptor, reason, message, and the base
               priorities/boosts of both sides (for cycle detection)
released       workload, clusterQueue (an evicted workload's quota is released, SC-EV-2)
requeued       workload, clusterQueue, reason (``Preempted``: back in its queue after a
               release; ``InadmissibleRequeue``: moved by a requeue run, only with the debug
               option ``SimulationOptions.queue_moves``)
requeue-run    root, moved (one inadmissible-requeue run over a cohort tree, SC-IN-1/SC-IN-2:
               Kueue's internal queue bookkeeping, no API write; how many parked workloads
               went back to an active set; a run that moves nothing writes none)
inadmissible   workload, clusterQueue, reason (the cycle's message)
finished       workload, clusterQueue (ran its duration; quota released)
livelock       cycles, workloads (the per-instant cycle cap was reached, SC-SIM-13 item 5)
=============  =====================================================================
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Iterable, Mapping, Union

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model import FlavorResource
from kueue_preempt.sim.jsonl import JsonLineError, json_lines, number
from kueue_preempt.sim.errors import TimelineError

__all__ = [
    "AdmittedPodSet",
    "Arrived",
    "Admitted",
    "Preempted",
    "Released",
    "Requeued",
    "Inadmissible",
    "Finished",
    "Livelock",
    "RequeueRun",
    "Event",
    "event_json",
    "event_from_json",
    "timeline_text",
    "parse_timeline",
    "load_timeline",
    "write_timeline",
]


def _flavors(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(value)


@attrs.frozen
class AdmittedPodSet:
    """How one pod set was admitted: ``count`` pods, ``flavors`` per resource."""

    name: str
    count: int
    flavors: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_flavors)


def _pod_sets(value: Iterable[AdmittedPodSet]) -> tuple[AdmittedPodSet, ...]:
    return tuple(value)


def _usage(value: Mapping[FlavorResource, int]) -> FrozenMap[FlavorResource, int]:
    return frozen_map(value)


def _names(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class Arrived:
    t: float
    workload: str
    cluster_queue: str
    initial: bool = False
    """A pending workload of the dump (present at time 0, not an arrival: no wait time)."""


@attrs.frozen
class Admitted:
    t: float
    workload: str
    cluster_queue: str
    pod_sets: tuple[AdmittedPodSet, ...] = attrs.field(default=(), converter=_pod_sets)
    usage: FrozenMap[FlavorResource, int] = attrs.field(factory=FrozenMap, converter=_usage)
    """Total quota the admission charges to ``cluster_queue``, per FlavorResource."""
    initial: bool = False
    """Admitted in the dump (running at time 0)."""


@attrs.frozen
class Preempted:
    t: float
    workload: str
    cluster_queue: str
    preemptor: str
    reason: str
    """Kueue's preemption reason: ``InClusterQueue``, ``InCohortReclamation``, ..."""
    message: str = ""
    preemptor_priority: int = 0
    victim_priority: int = 0
    preemptor_boost: int = 0
    victim_boost: int = 0


@attrs.frozen
class Released:
    t: float
    workload: str
    cluster_queue: str


@attrs.frozen
class Requeued:
    t: float
    workload: str
    cluster_queue: str
    reason: str = ""


@attrs.frozen
class Inadmissible:
    """A failed head attempt: the head of its ClusterQueue was not admitted by a cycle (Kueue
    records a ``Warning`` Event each time, SC-EVT-1). ``reason`` and ``message`` are the
    ``QuotaReserved=False`` condition the cycle wrote (SC-MSG-1: ``WaitingForQuota``,
    ``ExceedsMaxQuota``, ``WaitingForPreemptedWorkloads``, ``Misconfigured``...). Workloads parked
    along with a head (same shape, SC-RQ-8) or on arrival get none: they were not attempted."""

    t: float
    workload: str
    cluster_queue: str
    reason: str = ""
    message: str = ""


@attrs.frozen
class Finished:
    t: float
    workload: str
    cluster_queue: str


@attrs.frozen
class Livelock:
    t: float
    cycles: int
    workloads: tuple[str, ...] = attrs.field(default=(), converter=_names)


@attrs.frozen
class RequeueRun:
    """One inadmissible-requeue run (SC-IN-1 for every ClusterQueue of a tree, SC-IN-2): the
    queue manager moved ``moved`` parked workloads of the tree under ``root`` (``Cohort/<name>``,
    or ``ClusterQueue/<name>`` for a ClusterQueue without a cohort) back to their active sets.

    Internal queue bookkeeping — no API write, nothing a user sees on the cluster — so the
    timeline keeps one event per run, not one per workload moved (those are recorded, as
    ``requeued`` events with reason ``InadmissibleRequeue``, only with the debug option
    ``SimulationOptions.queue_moves``). A run that moves nothing writes no event."""

    t: float
    root: str
    moved: int


Event = Union[Arrived, Admitted, Preempted, Released, Requeued, Inadmissible, Finished, Livelock, RequeueRun]

_KIND: dict[type, str] = {
    Arrived: "arrived",
    Admitted: "admitted",
    Preempted: "preempted",
    Released: "released",
    Requeued: "requeued",
    Inadmissible: "inadmissible",
    Finished: "finished",
    Livelock: "livelock",
    RequeueRun: "requeue-run",
}


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _fr_key(fr: FlavorResource) -> str:
    # Flavor names are DNS subdomains (no "/"); resource names may hold one (nvidia.com/gpu).
    return f"{fr.flavor}/{fr.resource}"


def event_json(event: Event) -> dict[str, Any]:
    """The JSON object of one event (camelCase keys, as in Kueue's API)."""
    out: dict[str, Any] = {"t": _num(event.t), "event": _KIND[type(event)]}
    if isinstance(event, Livelock):
        out["cycles"] = event.cycles
        out["workloads"] = list(event.workloads)
        return out
    if isinstance(event, RequeueRun):
        out["root"] = event.root
        out["moved"] = event.moved
        return out
    out["workload"] = event.workload
    out["clusterQueue"] = event.cluster_queue
    if isinstance(event, Arrived):
        if event.initial:
            out["initial"] = True
    elif isinstance(event, Admitted):
        out["podSets"] = [{"name": p.name, "count": p.count, "flavors": dict(p.flavors)} for p in event.pod_sets]
        out["usage"] = {_fr_key(fr): v for fr, v in event.usage.items()}
        if event.initial:
            out["initial"] = True
    elif isinstance(event, Preempted):
        out.update(
            preemptor=event.preemptor,
            reason=event.reason,
            message=event.message,
            preemptorPriority=event.preemptor_priority,
            victimPriority=event.victim_priority,
            preemptorBoost=event.preemptor_boost,
            victimBoost=event.victim_boost,
        )
    elif isinstance(event, Requeued):
        out["reason"] = event.reason
    elif isinstance(event, Inadmissible):
        out["reason"] = event.reason
        out["message"] = event.message
    return out


class _Reader:
    def __init__(self, data: Mapping[str, Any], source: str, line: int) -> None:
        self.data = data
        self.source = source
        self.line = line

    def fail(self, reason: str) -> TimelineError:
        return TimelineError(self.source, self.line, reason)

    def text(self, key: str, default: str | None = None) -> str:
        value = self.data.get(key, default)
        if not isinstance(value, str):
            raise self.fail(f"field {key!r}: expected a string")
        return value

    def integer(self, key: str, default: int | None = None) -> int:
        value = self.data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"field {key!r}: expected an integer")
        return value

    def flag(self, key: str) -> bool:
        value = self.data.get(key, False)
        if not isinstance(value, bool):
            raise self.fail(f"field {key!r}: expected a boolean")
        return value

    def mapping(self, key: str) -> Mapping[str, Any]:
        value = self.data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(f"field {key!r}: expected a mapping")
        return value

    def items(self, key: str) -> list[Any]:
        value = self.data.get(key, [])
        if not isinstance(value, list):
            raise self.fail(f"field {key!r}: expected a list")
        return value


def _admitted(r: _Reader, t: float) -> Admitted:
    pod_sets = []
    for item in r.items("podSets"):
        if not isinstance(item, dict):
            raise r.fail("field 'podSets': expected mappings")
        sub = _Reader(item, r.source, r.line)
        flavors = sub.mapping("flavors")
        if not all(isinstance(v, str) for v in flavors.values()):
            raise r.fail("field 'podSets.flavors': expected strings")
        pod_sets.append(AdmittedPodSet(sub.text("name"), sub.integer("count"), flavors))
    usage: dict[FlavorResource, int] = {}
    for key, value in r.mapping("usage").items():
        flavor, sep, resource = key.partition("/")
        if not sep or not flavor or not resource or isinstance(value, bool) or not isinstance(value, int):
            raise r.fail(f"field 'usage': expected \"FLAVOR/RESOURCE\": integer, got {key!r}")
        usage[FlavorResource(flavor, resource)] = value
    return Admitted(t, r.text("workload"), r.text("clusterQueue"), pod_sets, usage, r.flag("initial"))


_READERS: dict[str, Callable[[_Reader, float], Event]] = {
    "arrived": lambda r, t: Arrived(t, r.text("workload"), r.text("clusterQueue"), r.flag("initial")),
    "admitted": _admitted,
    "preempted": lambda r, t: Preempted(
        t,
        r.text("workload"),
        r.text("clusterQueue"),
        r.text("preemptor"),
        r.text("reason"),
        r.text("message", ""),
        r.integer("preemptorPriority", 0),
        r.integer("victimPriority", 0),
        r.integer("preemptorBoost", 0),
        r.integer("victimBoost", 0),
    ),
    "released": lambda r, t: Released(t, r.text("workload"), r.text("clusterQueue")),
    "requeued": lambda r, t: Requeued(t, r.text("workload"), r.text("clusterQueue"), r.text("reason", "")),
    "inadmissible": lambda r, t: Inadmissible(
        t, r.text("workload"), r.text("clusterQueue"), r.text("reason", ""), r.text("message", "")
    ),
    "finished": lambda r, t: Finished(t, r.text("workload"), r.text("clusterQueue")),
    "livelock": lambda r, t: Livelock(t, r.integer("cycles"), [_string(r, w) for w in r.items("workloads")]),
    "requeue-run": lambda r, t: RequeueRun(t, r.text("root"), _count(r, "moved")),
}


def _count(r: _Reader, key: str) -> int:
    value = r.integer(key)
    if value < 0:
        raise r.fail(f"field {key!r}: expected an integer >= 0")
    return value


def _string(r: _Reader, value: object) -> str:
    if not isinstance(value, str):
        raise r.fail("expected a list of workload names")
    return value


def event_from_json(data: Mapping[str, Any], *, source: str = "", line: int = 0) -> Event:
    """Read one event object back; :class:`TimelineError` for an unknown or malformed one."""
    r = _Reader(data, source, line)
    kind = data.get("event")
    reader = _READERS.get(kind) if isinstance(kind, str) else None
    if reader is None:
        raise r.fail(f"unknown event {kind!r} (expected one of {', '.join(_READERS)})")
    t = number(data.get("t"))
    if t is None or t != t or t < 0:
        raise r.fail("field 't': expected a number of seconds >= 0")
    return reader(r, t)


def timeline_text(events: Iterable[Event]) -> str:
    """The timeline as JSON Lines (reads back equal with :func:`parse_timeline`)."""
    return "".join(json.dumps(event_json(e), separators=(",", ":")) + "\n" for e in events)


def parse_timeline(text: str, *, source: str = "<timeline>") -> tuple[Event, ...]:
    """Parse JSON Lines written by :func:`timeline_text`; times must not decrease."""
    out: list[Event] = []
    try:
        for line, data in json_lines(text):
            event = event_from_json(data, source=source, line=line)
            if out and event.t < out[-1].t:
                raise TimelineError(source, line, f"time goes backwards ({event.t} after {out[-1].t})")
            out.append(event)
    except JsonLineError as exc:
        raise TimelineError(source, exc.line, exc.reason) from None
    return tuple(out)


def load_timeline(path: str | os.PathLike[str]) -> tuple[Event, ...]:
    with open(path, encoding="utf-8") as fh:
        return parse_timeline(fh.read(), source=os.fspath(path))


def write_timeline(events: Iterable[Event], path: str | os.PathLike[str]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(timeline_text(events))

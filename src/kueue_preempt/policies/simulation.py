"""A deterministic discrete-event simulation to detect preemption cycles caused by boosts.

The priority-boost KEP motivates the preemption-count boost (BOOST-12) with starvation: a
workload preempted again and again gains priority until it stays admitted. The risk is a
*cycle*: A preempts B, B's boost rises above A, B preempts A, A's boost rises, ... This module
replays small scenarios against the real :func:`~kueue_preempt.get_targets` to measure it.

Model (intentionally minimal, every step deterministic):

* one standalone ClusterQueue ``cq`` with a single resource (``default``/``cpu``, nominal =
  ``capacity``) and ``withinClusterQueue: LowerPriority``; ``PreemptionConfig(priority_boost=True)``;
* virtual time in integer seconds; events are arrivals and completions;
* at each event time, completions are processed first, then arrivals, then boosts are
  re-applied, then the *scheduling loop* runs until nothing changes: pending workloads are
  taken in EP order (higher first, then arrival, then name); the first that fits is
  admitted; one that does not fit asks ``get_targets`` (classic, with a snapshot of the
  currently admitted workloads) and, if targets come back, they are evicted (back to pending,
  their ``Preempted`` eviction count + 1 as MSG-5 writes it, progress lost) and the preemptor
  is admitted at once. After every admission the booster is re-applied to every workload
  (through the BOOST-4 write rules) and the scan restarts, since EPs may have changed;
* an admitted workload completes after ``duration`` seconds of uninterrupted admission
  (a re-admission restarts from zero);
* a workload that needs more than ``capacity`` is never admitted (its assignment would be
  ``NoFit``, FA-1).

This is a zero-latency model, not Kueue's timing: eviction, re-admission and the booster's
reaction take no time and there is no requeue back-off. Kueue instead issues the evictions and
keeps the preemptor pending until a later cycle (CTX-1), when the evicted workload — if its
boost now outranks the preemptor — is admitted first, so there a boost that flips the order
shows up as a wasted preemption rather than an immediate preemption back. The model isolates
the policy's logic: if boosts can flip the order back and forth, the flips appear here as
cycles (a flip-flop that never ends is a livelock at one instant, which the ``max_events``
bound turns into a report instead of a hang).

A *cycle* is "X preempts Y, later Y preempts X" for one unordered pair; it *recurs* when the
same pair cycles again (the direction flips a second time). An *extra* preemption is one
whose preemptor's base priority is ≤ the victim's: with ``LowerPriority`` it can only happen
because of boosts.
"""

from __future__ import annotations

import enum
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Mapping

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import (
    Assignment,
    ClusterQueue,
    ClusterQueuePreemption,
    Condition,
    EvictionStat,
    FlavorResource,
    PodSetUsage,
    ResourceQuota,
    Workload,
)
from kueue_preempt.preemption.targets import get_targets
from kueue_preempt.model.priority import BOOST_ANNOTATION, effective_priority
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.policies.actions import PREEMPTED_EVICTION_REASON
from kueue_preempt.policies.boost import boost_annotation_action

__all__ = [
    "Booster",
    "SimWorkload",
    "SimScenario",
    "TimelineKind",
    "TimelineEntry",
    "PreemptionEvent",
    "Cycle",
    "SimulationReport",
    "simulate",
    "detect_cycles",
    "SIM_CLUSTER_QUEUE",
    "SIM_EPOCH",
]

Booster = Callable[[Workload], int]
"""A boost policy for the simulation: the boost a workload should carry now, e.g.
``ThresholdBoostConfig().boost_for``."""

SIM_CLUSTER_QUEUE = "cq"
SIM_EPOCH = datetime(2026, 1, 1, tzinfo=timezone.utc)
"""Virtual time 0 as a wall-clock time (creation and reservation times are derived from it)."""
_FR = FlavorResource("default", "cpu")
_NAMESPACE = "sim"


def _positive_int(inst: object, attr: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ConfigurationError(f"{type(inst).__name__}.{attr.name}: must be an int > 0, got {value!r}")


def _non_negative_int(inst: object, attr: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ConfigurationError(f"{type(inst).__name__}.{attr.name}: must be an int >= 0, got {value!r}")


@attrs.frozen
class SimWorkload:
    """A workload of a scenario: base priority, cpu request, arrival time and run duration (seconds)."""

    name: str
    priority: int
    cpu: int = attrs.field(validator=_positive_int)
    arrival: int = attrs.field(validator=_non_negative_int)
    duration: int = attrs.field(validator=_positive_int)


def _sim_workloads(value: Iterable[SimWorkload]) -> tuple[SimWorkload, ...]:
    out = tuple(value)
    names = [w.name for w in out]
    if len(set(names)) != len(names):
        raise ConfigurationError(f"SimScenario: workload names must be unique, got {names}")
    return out


@attrs.frozen
class SimScenario:
    """Workloads competing for one ClusterQueue of ``capacity`` cpu."""

    workloads: tuple[SimWorkload, ...] = attrs.field(converter=_sim_workloads)
    capacity: int = attrs.field(validator=_positive_int)


class TimelineKind(str, enum.Enum):
    ARRIVE = "Arrive"
    ADMIT = "Admit"
    PREEMPT = "Preempt"
    COMPLETE = "Complete"

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class TimelineEntry:
    """One thing that happened: ``workload`` arrived / was admitted / completed, or was preempted by ``by``."""

    time: int
    kind: TimelineKind
    workload: str
    by: str | None = None


@attrs.frozen
class PreemptionEvent:
    """``preemptor`` evicted ``victim`` at ``time``, with both sides' base priority and boost then."""

    time: int
    preemptor: str
    victim: str
    preemptor_priority: int
    victim_priority: int
    preemptor_boost: int
    victim_boost: int

    @property
    def extra(self) -> bool:
        """Base priority alone would not allow it (``LowerPriority`` is strict): the boost did."""
        return self.preemptor_priority <= self.victim_priority

    @property
    def pair(self) -> tuple[str, str]:
        return (min(self.preemptor, self.victim), max(self.preemptor, self.victim))


@attrs.frozen
class Cycle:
    """``first.preemptor`` preempted ``first.victim``, then ``second`` reversed it."""

    first: PreemptionEvent
    second: PreemptionEvent

    @property
    def pair(self) -> tuple[str, str]:
        return self.first.pair


def _counts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


@attrs.frozen
class SimulationReport:
    """Everything a run produced; the derived views below are what the tests assert on."""

    timeline: tuple[TimelineEntry, ...]
    preemptions: tuple[PreemptionEvent, ...]
    cycles: tuple[Cycle, ...]
    preempted_counts: FrozenMap[str, int] = attrs.field(converter=_counts)
    """How often each workload was preempted (every workload of the scenario has an entry)."""
    completed: FrozenMap[str, int] = attrs.field(converter=_counts)
    """Completion time of every workload that finished."""
    max_events_hit: bool
    """The run stopped at ``max_events`` timeline entries (a livelock or a very long run)."""
    end_time: int

    @property
    def extra_preemptions(self) -> tuple[PreemptionEvent, ...]:
        return tuple(e for e in self.preemptions if e.extra)

    def cycles_per_pair(self) -> dict[tuple[str, str], int]:
        out: dict[tuple[str, str], int] = {}
        for c in self.cycles:
            out[c.pair] = out.get(c.pair, 0) + 1
        return out

    @property
    def recurring_pairs(self) -> frozenset[tuple[str, str]]:
        """Pairs that cycled more than once."""
        return frozenset(p for p, n in self.cycles_per_pair().items() if n > 1)

    def extra_by_preemptor(self) -> dict[str, int]:
        """Extra preemptions each workload *performed* (thanks to its boost)."""
        out: dict[str, int] = {}
        for e in self.extra_preemptions:
            out[e.preemptor] = out.get(e.preemptor, 0) + 1
        return out

    def extra_by_victim(self) -> dict[str, int]:
        """Extra preemptions each workload *suffered*."""
        out: dict[str, int] = {}
        for e in self.extra_preemptions:
            out[e.victim] = out.get(e.victim, 0) + 1
        return out


def detect_cycles(preemptions: Iterable[PreemptionEvent]) -> tuple[Cycle, ...]:
    """Every direction reversal within an unordered pair, in event order.

    ``A→B, A→B, B→A`` is one cycle; ``A→B, B→A, A→B`` is two (the second recurs).
    """
    last: dict[tuple[str, str], PreemptionEvent] = {}
    cycles: list[Cycle] = []
    for e in preemptions:
        prev = last.get(e.pair)
        if prev is not None and prev.preemptor != e.preemptor:
            cycles.append(Cycle(prev, e))
        last[e.pair] = e
    return tuple(cycles)


def _at(t: int) -> datetime:
    return SIM_EPOCH + timedelta(seconds=t)


class _Run:
    """Mutable state of one simulation; :func:`simulate` is its only user."""

    def __init__(self, scenario: SimScenario, booster: Booster | None, max_events: int) -> None:
        self.scenario = scenario
        self.booster = booster
        self.max_events = max_events
        self.spec = {w.name: w for w in scenario.workloads}
        self.objs: dict[str, Workload] = {
            w.name: Workload(
                name=w.name, namespace=_NAMESPACE, uid=w.name, priority=w.priority, creation_time=_at(w.arrival)
            )
            for w in scenario.workloads
        }
        self.pending: set[str] = set()
        self.running: dict[str, int] = {}  # name -> admission time
        self.completed: dict[str, int] = {}
        self.preempted: dict[str, int] = {w.name: 0 for w in scenario.workloads}
        self.timeline: list[TimelineEntry] = []
        self.preemptions: list[PreemptionEvent] = []
        self.hit = False
        self.cq = ClusterQueue(
            SIM_CLUSTER_QUEUE,
            quotas={_FR: ResourceQuota(nominal=scenario.capacity)},
            preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"),
        )
        self.config = PreemptionConfig(priority_boost=True)

    # -- bookkeeping

    def log(self, entry: TimelineEntry) -> None:
        self.timeline.append(entry)
        if len(self.timeline) >= self.max_events:
            self.hit = True

    def boost_of(self, name: str) -> int:
        return effective_priority(self.objs[name], self.config) - self.spec[name].priority

    def apply_boosts(self) -> None:
        if self.booster is None:
            return
        for name, obj in self.objs.items():
            # Same write rule as the reference controllers (BOOST-4), so the simulated
            # annotation is exactly what a controller running the booster would leave.
            action = boost_annotation_action(obj.annotations.get(BOOST_ANNOTATION), self.booster(obj))
            self.objs[name] = action.apply_to(obj)

    def used(self) -> int:
        return sum(self.spec[n].cpu for n in self.running)

    # -- transitions

    def admit(self, name: str, t: int) -> None:
        self.pending.discard(name)
        self.running[name] = t
        self.objs[name] = attrs.evolve(
            self.objs[name],
            cluster_queue=SIM_CLUSTER_QUEUE,
            pod_sets=(PodSetUsage(flavors={"cpu": _FR.flavor}, usage={"cpu": self.spec[name].cpu}),),
            quota_reserved_at=_at(t),
            conditions=(
                Condition("QuotaReserved", "True", "QuotaReserved", _at(t)),
                Condition("Admitted", "True", "Admitted", _at(t)),
            ),
        )
        self.log(TimelineEntry(t, TimelineKind.ADMIT, name))

    def release(self, name: str) -> Workload:
        del self.running[name]
        return attrs.evolve(self.objs[name], cluster_queue="", pod_sets=(), quota_reserved_at=None, conditions=())

    def evict(self, name: str, t: int, by: str) -> None:
        obj = self.release(name)
        # MSG-5: the scheduling-stats entry {reason: Preempted, underlying_cause: ""} + 1.
        stats = list(obj.evictions)
        for i, e in enumerate(stats):
            if e.reason == PREEMPTED_EVICTION_REASON and e.underlying_cause == "":
                stats[i] = attrs.evolve(e, count=e.count + 1)
                break
        else:
            stats.append(EvictionStat(PREEMPTED_EVICTION_REASON, "", 1))
        self.objs[name] = attrs.evolve(obj, evictions=stats)
        self.pending.add(name)
        self.preempted[name] += 1
        self.log(TimelineEntry(t, TimelineKind.PREEMPT, name, by))

    def try_schedule_one(self, t: int) -> bool:
        """Admit one pending workload (preempting if needed); ``False`` when none can be."""
        order = sorted(
            self.pending,
            key=lambda n: (-effective_priority(self.objs[n], self.config), self.spec[n].arrival, n),
        )
        capacity = self.scenario.capacity
        for name in order:
            cpu = self.spec[name].cpu
            if cpu > capacity:
                continue  # NoFit: preemption cannot help (FA-1)
            if self.used() + cpu <= capacity:
                self.admit(name, t)
                return True
            snapshot = Snapshot([self.cq], workloads=[self.objs[n] for n in sorted(self.running)])
            assignment = Assignment(requests={_FR: cpu}, preempt={_FR})
            targets = get_targets(self.objs[name], SIM_CLUSTER_QUEUE, assignment, snapshot, config=self.config, now=_at(t))
            if not targets:
                continue
            for target in targets:
                victim = target.workload.name
                self.preemptions.append(
                    PreemptionEvent(
                        time=t,
                        preemptor=name,
                        victim=victim,
                        preemptor_priority=self.spec[name].priority,
                        victim_priority=self.spec[victim].priority,
                        preemptor_boost=self.boost_of(name),
                        victim_boost=self.boost_of(victim),
                    )
                )
                self.evict(victim, t, name)
            self.admit(name, t)
            return True
        return False

    def run(self) -> SimulationReport:
        arrivals = sorted(self.scenario.workloads, key=lambda w: (w.arrival, w.name))
        i = 0
        t = 0
        while not self.hit:
            next_arrival = arrivals[i].arrival if i < len(arrivals) else None
            ends = [start + self.spec[n].duration for n, start in self.running.items()]
            candidates = [x for x in (next_arrival, min(ends, default=None)) if x is not None]
            if not candidates:
                break
            t = min(candidates)
            for name in sorted(n for n, start in self.running.items() if start + self.spec[n].duration <= t):
                self.objs[name] = self.release(name)
                self.completed[name] = t
                self.log(TimelineEntry(t, TimelineKind.COMPLETE, name))
            while i < len(arrivals) and arrivals[i].arrival <= t:
                self.pending.add(arrivals[i].name)
                self.log(TimelineEntry(t, TimelineKind.ARRIVE, arrivals[i].name))
                i += 1
            self.apply_boosts()
            while not self.hit and self.try_schedule_one(t):
                self.apply_boosts()
        return SimulationReport(
            timeline=tuple(self.timeline),
            preemptions=tuple(self.preemptions),
            cycles=detect_cycles(self.preemptions),
            preempted_counts=self.preempted,
            completed=self.completed,
            max_events_hit=self.hit,
            end_time=t,
        )


def simulate(scenario: SimScenario, booster: Booster | None = None, *, max_events: int = 10_000) -> SimulationReport:
    """Run ``scenario`` to completion (or ``max_events`` timeline entries) with ``booster``.

    ``booster`` ``None`` runs without boosts (plain ``LowerPriority``, never an extra
    preemption). The run is deterministic: equal inputs give equal reports.

    Complexity: each scheduling step builds a snapshot of the k admitted workloads and calls
    ``get_targets`` for at most every pending workload, O(n · k log k) per step.
    """
    if isinstance(max_events, bool) or not isinstance(max_events, int) or max_events < 1:
        raise ConfigurationError(f"simulate: max_events must be an int >= 1, got {max_events!r}")
    return _Run(scenario, booster, max_events).run()

"""The discrete-event loop of the simulator (SC-T-1..SC-T-4, SC-SIM-3, SC-SIM-13).

The loop owns *time*: the event queue, run times, releases and inadmissible-requeue runs. The
*queues and the cycle* (active/inadmissible sets, preemptor markers, scan progress, flavor
assignment, preemption) belong to a :class:`Scheduler` — a small protocol so the loop can be
wired to the library's scheduling cycle (``schedule_cycle``) without changing here;
the tests drive it with a tiny fake scheduler.

One instant (SC-T-2, SC-SIM-13 item 3):

1. the events due at ``t``, as one batch: arrivals (file order), completions (quota released,
   SC-SIM-6), releases of evicted workloads (with a positive termination time, SC-SIM-2),
   then the due inadmissible-requeue runs (SC-IN-2);
2. controllers (priority boost, preemption cost...) due at ``t`` reconcile;
3. cycles until one changes nothing (SC-SIM-3, SC-T-3). With termination time 0, the victims of
   a cycle are released right after it, before the next cycle (SC-SIM-13 item 1); a release or
   completion notifies its root cohort (SC-IN-4), whose requeue run is scheduled ``delay``
   seconds later — at once, before the next cycle, when the delay is 0 (SC-SIM-13 item 4);
4. if the cycle cap ``10 × pending + 10`` is reached, a ``livelock`` event names the workloads
   the last cycles touched (SC-SIM-13 item 5) and the loop moves on to the next instant;
5. controllers that watch the cycles' writes (:class:`WatchesCycles`) say when they must run
   next (a time-sharing window that started with an admission of this instant).

A re-admitted workload runs its full duration again (SC-SIM-13 item 2), or with
``resume_after_preemption`` only what it had left; a workload the dump shows admitted runs its
``remaining`` time, or until the end.

With ``SimulationOptions.api`` (Kueue's API throughput, :mod:`~kueue_preempt.sim.api_model`)
a cycle's writes go through the client's token buckets in Kueue's order: per entry in
processing order its admission write (in the background; the transition time is stamped
before the limiter, ``SimulationResult.admitted_stamped``) or its eviction writes
(``eviction_workers`` in parallel, the scheduler waits for them), then the pending-reason
writes of the heads left pending whose condition changed, one after the other (the scheduler
waits). No cycle runs while the scheduler waits; a wake-up runs the next one then. A victim is
released when the client that runs the workloads has seen its eviction and cleared its
reservation; a run starts when that client sees the admission write completed
(``SimulationResult.admitted_seen``) and ends with its ``Finished`` write. With
``creation`` streams that client also creates the workloads, one blocking create at a time per
stream (:class:`CreationStream`). Without the API model (the default) the API is ideal and
none of this changes anything.
"""

from __future__ import annotations

import contextlib
import gc
import heapq
import math
from datetime import datetime, timedelta, timezone
from typing import Callable, Iterable, Iterator, Mapping, Protocol, Sequence, runtime_checkable

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import ConfigurationError, InputTooLarge
from kueue_preempt.io import ClusterDump, ManifestError
from kueue_preempt.model import FlavorResource
from kueue_preempt.model.queues import cohort_parents, root_cohort
from kueue_preempt.sim.api_model import WORKLOAD, ApiModel, ApiRuntime, ApiStats
from kueue_preempt.sim.arrivals.model import Arrival, Arrivals
from kueue_preempt.sim.output.timeline import (
    Admitted,
    AdmittedPodSet,
    Arrived,
    Event,
    Finished,
    Inadmissible,
    Livelock,
    Preempted,
    Released,
    Requeued,
    RequeueRun,
)

__all__ = [
    "Admission",
    "Eviction",
    "Parked",
    "HeadStatus",
    "CycleResult",
    "Scheduler",
    "Controller",
    "WatchesCycles",
    "SimulationOptions",
    "SimulationResult",
    "CreationStream",
    "run_simulation",
    "fewer_collections",
    "root_keys",
    "root_trees",
]


def _pod_sets(value: Iterable[AdmittedPodSet]) -> tuple[AdmittedPodSet, ...]:
    return tuple(value)


def _usage(value: dict[FlavorResource, int] | FrozenMap[FlavorResource, int]) -> FrozenMap[FlavorResource, int]:
    return frozen_map(value)


@attrs.frozen
class Admission:
    """A cycle reserved quota for ``workload`` in ``cluster_queue``."""

    workload: str
    cluster_queue: str
    pod_sets: tuple[AdmittedPodSet, ...] = attrs.field(default=(), converter=_pod_sets)
    usage: FrozenMap[FlavorResource, int] = attrs.field(factory=FrozenMap, converter=_usage)


@attrs.frozen
class Eviction:
    """A cycle issued the preemption of ``victim`` (SC-EV-1) for ``preemptor``."""

    victim: str
    cluster_queue: str
    preemptor: str
    reason: str
    message: str = ""
    preemptor_priority: int = 0
    victim_priority: int = 0
    preemptor_boost: int = 0
    victim_boost: int = 0


@attrs.frozen
class Parked:
    """A cycle put ``workload`` in its queue's inadmissible set, with the cycle's message."""

    workload: str
    cluster_queue: str
    reason: str = ""


@attrs.frozen
class HeadStatus:
    """One head of a cycle, in processing order: admitted, or left pending with the
    ``QuotaReserved=False`` reason and message the cycle wrote for it (SC-MSG-1, SC-MSG-3).
    The API model needs the order (one token per write, served in call
    order) and the message (a pending write only when it changed)."""

    workload: str
    cluster_queue: str
    admitted: bool = False
    pending: bool = False
    reason: str = ""
    message: str = ""


def _heads(value: Iterable[HeadStatus]) -> tuple[HeadStatus, ...]:
    return tuple(value)


def _admissions(value: Iterable[Admission]) -> tuple[Admission, ...]:
    return tuple(value)


def _evictions(value: Iterable[Eviction]) -> tuple[Eviction, ...]:
    return tuple(value)


def _parked(value: Iterable[Parked]) -> tuple[Parked, ...]:
    return tuple(value)


@attrs.frozen
class CycleResult:
    """What one cycle did. ``changed`` is SC-SIM-13 item 5's test: false only when the cycle
    changed nothing (admissions, evictions, queue membership, preemptor markers, failed
    hashes, scan progress), so the next cycle would be identical."""

    changed: bool
    admitted: tuple[Admission, ...] = attrs.field(default=(), converter=_admissions)
    evicted: tuple[Eviction, ...] = attrs.field(default=(), converter=_evictions)
    parked: tuple[Parked, ...] = attrs.field(default=(), converter=_parked)
    heads: tuple[HeadStatus, ...] = attrs.field(default=(), converter=_heads)
    """The cycle's heads in processing order (empty from a scheduler that does not report
    them: the API model then counts admissions and evictions in list order, no pending write)."""


class Scheduler(Protocol):
    """The queues and the scheduling cycle, as the event loop drives them.

    Keys are ``namespace/name``. The loop calls these in the orders SC-SIM-13 fixes; every
    call happens between cycles, never inside one (SC-T-2).
    """

    def arrive(self, arrival: Arrival, now: float) -> None:
        """A new pending workload enters its queue (SC-RQ-1)."""

    def finish(self, workload: str, now: float) -> None:
        """An admitted workload ran its duration: it leaves the cache, its quota is released."""

    def release(self, workload: str, now: float) -> None:
        """An evicted workload's quota is released and it returns to its queue (SC-EV-2, SC-EV-3)."""

    def requeue_inadmissible(self, cluster_queues: Sequence[str], now: float, moved: list[str] | None = None) -> int:
        """Run ``QueueInadmissible`` for these ClusterQueues — a whole cohort tree, or one
        cohort-less ClusterQueue (SC-IN-2); return how many workloads went back to an active
        set. When ``moved`` is given, also append their keys to it (per ClusterQueue in the
        given order, sorted within it): the loop asks for them only with the debug option
        ``SimulationOptions.queue_moves``, so a scheduler need not list them otherwise."""

    def cycle(self, now: float) -> CycleResult:
        """Run one scheduling cycle at ``now``."""

    def pending_count(self) -> int:
        """Pending workloads (active and inadmissible) right now, for the cycle cap."""

    def take_notifications(self) -> Sequence[str]:
        """Workloads changed outside a cycle (by controllers) whose ClusterQueue must be
        notified (SC-IN-4: a charged workload's effective priority changed); cleared on read."""


class Controller(Protocol):
    """A reference controller (priority boost, preemption cost) run between cycles.

    Called at each instant after the event batch, before the cycles; returns the next time it
    wants to run (``None``: only at instants that happen anyway)."""

    def __call__(self, now: float, scheduler: Scheduler) -> float | None: ...


@runtime_checkable
class WatchesCycles(Protocol):
    """A controller that also looks at what the cycles of an instant left behind.

    Kueue's controllers watch workloads, so an admission written by a cycle reaches them at
    once (BOOST-7): a time-based controller learns there when its next reconcile is due (the
    time-sharing booster: when the admitted workload's window ends, BOOST-3). The loop calls
    ``after_cycles`` once the cycles of an instant have settled and schedules the time it
    returns; it must not change workloads (the instant's cycles are over)."""

    def after_cycles(self, now: float, scheduler: Scheduler) -> float | None: ...


def _non_negative(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigurationError(f"SimulationOptions.{attr.name}: must be a finite number >= 0, got {value!r}")


def _bool(inst: object, attr: attrs.Attribute[bool], value: bool) -> None:
    if not isinstance(value, bool):
        raise ConfigurationError(f"SimulationOptions.{attr.name}: must be true or false, got {value!r}")


def _optional_until(inst: object, attr: attrs.Attribute[float | None], value: float | None) -> None:
    if value is not None:
        _non_negative(inst, attr, value)  # type: ignore[arg-type]


@attrs.frozen
class SimulationOptions:
    """Timing settings; the defaults are SC-SIM-13's conventions."""

    until: float | None = attrs.field(default=None, validator=_optional_until)
    """Stop after the instant at this time (default: when no event is left)."""
    termination_time: float = attrs.field(default=0.0, validator=_non_negative)
    """Seconds from eviction to release (SC-SIM-2); 0 releases right after the issuing cycle."""
    inadmissible_requeue_delay: float = attrs.field(default=1.0, validator=_non_negative)
    """SC-IN-3's batching period (Kueue: 1 s); 0 runs the requeue at once (SC-SIM-4)."""
    max_instants: int | None = 1_000_000
    """Safety bound on instants: a run that never settles (e.g. two workloads preempting each
    other for ever under a boost policy) stops there with ``truncated`` set, never hangs."""
    cycle_cap_factor: int = 10
    """Cap per instant: ``cycle_cap_factor × pending + cycle_cap_base`` cycles (SC-SIM-13 item 5)."""
    cycle_cap_base: int = 10
    api: ApiModel | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.instance_of(ApiModel))
    )
    """Kueue's API throughput; ``None``: an ideal, infinitely fast API."""
    resume_after_preemption: bool = attrs.field(default=False, validator=_bool)
    """Checkpoint credit: a re-admitted workload runs only the time it had left when it was
    preempted, instead of its full duration again (SC-SIM-13 item 2's default, ``False``,
    keeps results comparable with other simulators). What a job that checkpoints sees, and
    what makes time sharing with a window shorter than the jobs end."""
    queue_moves: bool = attrs.field(default=False, validator=_bool)
    """Debug: besides the one ``requeue-run`` event per inadmissible-requeue run, record a
    ``requeued`` event (reason ``InadmissibleRequeue``) for every workload the run moved. Off
    by default: those moves are Kueue's internal queue bookkeeping, and a run over a wide tree
    moves thousands (O(moved) per run instead of O(ClusterQueues))."""


def _events(value: Iterable[Event]) -> tuple[Event, ...]:
    return tuple(value)


def _seen(value: Iterable[tuple[str, float]]) -> tuple[tuple[str, float], ...]:
    return tuple(value)


def _spans(value: Iterable[tuple[str, float, float]]) -> tuple[tuple[str, float, float], ...]:
    return tuple(value)


@attrs.frozen
class SimulationResult:
    timeline: tuple[Event, ...] = attrs.field(converter=_events)
    end: float
    """Time of the last instant processed."""
    instants: int
    cycles: int
    truncated: bool = False
    """``max_instants`` was reached before the events ran out (or ``until``)."""
    api: ApiStats | None = None
    """What the API model did (``None``: ideal API)."""
    admitted_seen: tuple[tuple[str, float], ...] = attrs.field(default=(), converter=_seen)
    """With the API model: ``(workload, time)`` when each admission write completed — when a
    runner sees the workload admitted and starts it."""
    admitted_stamped: tuple[tuple[str, float], ...] = attrs.field(default=(), converter=_seen)
    """With the API model: ``(workload, time)`` per admission, the ``Admitted`` condition's
    transition time — when the scheduler issued the write, before its limiter."""
    queue_status_seen: tuple[tuple[str, float, float], ...] = attrs.field(default=(), converter=_spans)
    """With the API model's queue-status writes: per ClusterQueue, when its first and last
    status writes completed (what a client watching ClusterQueues sees)."""

    @property
    def livelocks(self) -> tuple[Livelock, ...]:
        return tuple(e for e in self.timeline if isinstance(e, Livelock))


def _keys(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


def _interval(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigurationError(f"CreationStream.{attr.name}: must be a finite number >= 0, got {value!r}")


@attrs.frozen
class CreationStream:
    """One goroutine of the client creating workloads (Kueue's perf runner): it sleeps
    ``interval`` seconds, then creates the next of ``workloads`` (arrival keys) with a blocking
    call through its client's limiter, and repeats. Used only with the API model's
    ``runner-creation``; otherwise the arrivals come at their own times."""

    interval: float = attrs.field(validator=_interval)
    workloads: tuple[str, ...] = attrs.field(converter=_keys)


def root_keys(dump: ClusterDump) -> dict[str, str]:
    """ClusterQueue -> the key its notifications batch under (SC-IN-3): its root cohort, or
    the ClusterQueue itself when it has no cohort."""
    parents = cohort_parents(dump.cohorts)
    return {
        cq.name: f"ClusterQueue/{cq.name}" if cq.cohort is None else f"Cohort/{root_cohort(parents, cq.cohort)}"
        for cq in dump.cluster_queues
    }


def root_trees(roots: Mapping[str, str]) -> dict[str, list[str]]:
    """Root key -> its ClusterQueues (sorted by name), from :func:`root_keys`: the queues
    one requeue run covers (SC-IN-2)."""
    trees: dict[str, list[str]] = {}
    for cq, root in sorted(roots.items()):
        trees.setdefault(root, []).append(cq)
    return trees


def _local_queue(namespace: str, name: str, cluster_queue: str) -> str:
    """The LocalQueue status key of a workload (its ClusterQueue when it names none)."""
    return f"{namespace}/{name}" if name else f"ClusterQueue/{cluster_queue}"


@attrs.frozen
class _Finish:
    key: str
    epoch: int


# Event classes in the order SC-SIM-13 item 3 applies them within one instant. The API
# model's own events come last and are *silent*: an admission write seen by the runner, a
# status write completed. They change nothing the scheduler reads, so a time holding only
# them is not an instant (no cycle runs for it).
# The runner's calls (a run ended: its Finished write; a creation stream's next create) are
# silent too: what they change comes as a later event.
_ARRIVAL, _FINISH, _RELEASE, _REQUEUE, _CONTROLLER, _SEEN, _STATUS, _RUN_END, _CREATE = range(9)
_SILENT = _SEEN
_DATETIME_END = datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc)


@attrs.frozen
class _Created:
    stream: int
    index: int


class _Loop:
    def __init__(
        self,
        scheduler: Scheduler,
        dump: ClusterDump,
        arrivals: Arrivals,
        options: SimulationOptions,
        controllers: Sequence[Controller],
        progress: Callable[[float], None] | None,
        creation: Sequence[CreationStream] = (),
    ) -> None:
        self.s = scheduler
        self.options = options
        self.controllers = controllers
        # The simulated clock maps to datetimes (creation times, conditions): it must stay a day
        # short of year 9999's end. Inputs are bounded one by one; their sum is checked here.
        self.last_second = (_DATETIME_END - arrivals.start).total_seconds() - 86400.0
        self.progress = progress
        self.roots = root_keys(dump)
        self.trees = root_trees(self.roots)
        self.timeline: list[Event] = []
        self.heap: list[tuple[float, int, int, object]] = []
        self.seq = 0
        self.durations: dict[str, float] = {}
        self.cq_of: dict[str, str] = {}
        self.epoch: dict[str, int] = {}  # admission count: a finish scheduled before an eviction is stale
        # resume_after_preemption: when the current run started, per workload and admission epoch
        self.started: dict[str, tuple[int, float]] = {}
        self.pending_runs: set[str] = set()
        self.wakes: set[float] = set()  # controller wake-ups in the heap
        self.cycles = 0
        self.instants = 0
        self.lq_of: dict[str, str] = {}
        # The API model; None: an ideal API, and none of this state is used.
        self.api = (
            None
            if options.api is None
            else ApiRuntime(options.api, lambda t, done, key: self.push(t, _STATUS, (done, *key)))
        )
        self.blocked_until = 0.0  # the scheduler waits for its last cycle's writes until then
        self.wake_at = -1.0
        self.in_flight: set[str] = set()  # evicted, eviction write not yet completed
        self.seen: list[tuple[str, float]] = []
        self.stamped: list[tuple[str, float]] = []
        self.start = arrivals.start
        self.streams: tuple[CreationStream, ...] = ()
        self.by_key: dict[str, Arrival] = {}
        streamed: set[str] = set()
        if self.api is not None and self.api.on("runner-creation") and creation:
            self.streams = tuple(creation)
            self.by_key = {a.key: a for a in arrivals.arrivals}
            for s in self.streams:
                streamed.update(s.workloads)
            unknown = streamed - self.by_key.keys()
            if unknown:
                raise ConfigurationError(f"creation streams name workloads that are not arrivals: {sorted(unknown)[:3]}")
        for lw in dump.pending():
            try:
                cq = dump.cluster_queue_for(lw)
            except ManifestError:  # a dump workload without a usable LocalQueue never enters a queue
                continue
            self.cq_of[lw.key] = cq
            self.lq_of[lw.key] = _local_queue(lw.workload.namespace, lw.workload.local_queue, cq)
            self.timeline.append(Arrived(0.0, lw.key, cq, initial=True))
        for lw in dump.holding_quota():
            w = lw.workload
            self.cq_of[w.key] = w.cluster_queue
            self.lq_of[w.key] = _local_queue(w.namespace, w.local_queue, w.cluster_queue)
            self.timeline.append(
                Admitted(
                    0.0,
                    w.key,
                    w.cluster_queue,
                    [AdmittedPodSet(ps.name, ps.count, ps.flavors) for ps in w.pod_sets],
                    dict(w.usage),
                    initial=True,
                )
            )
            remaining = arrivals.remaining.get(w.key)
            if remaining is not None:
                self.durations[w.key] = remaining
                self.epoch[w.key] = 1
                self.started[w.key] = (1, 0.0)
                self.push(remaining, _FINISH, _Finish(w.key, 1))
        # The start state is an instant of its own: the dump's pending workloads get their cycles at 0.
        self.push(0.0, _CONTROLLER, None)
        for a in arrivals.arrivals:
            self.durations[a.key] = a.duration
            self.cq_of[a.key] = a.cluster_queue
            w = a.workload.workload
            self.lq_of[a.key] = _local_queue(w.namespace, w.local_queue, a.cluster_queue)
            if a.key not in streamed:
                self.push(a.at, _ARRIVAL, a)
        for i, s in enumerate(self.streams):
            if s.workloads:
                self.push(s.interval, _CREATE, _Created(i, 0))

    def push(self, t: float, kind: int, payload: object) -> None:
        self.seq += 1
        # Times are kept to the microsecond: admission + duration in binary floating point
        # would otherwise print as 1185.5700000000002 and split one instant into two.
        heapq.heappush(self.heap, (round(t, 6), kind, self.seq, payload))

    def wake_controllers(self, t: float | None, now: float) -> None:
        """A controller asked to run at ``t``: one wake-up per time, however many ask."""
        if t is None:
            return
        t = round(t, 6)  # as push() keeps it: a time that rounds to now would be a second instant at now
        if t > now and t not in self.wakes:
            self.wakes.add(t)
            self.push(t, _CONTROLLER, None)

    def notify(self, workload: str, now: float) -> None:
        """SC-IN-4 via SC-IN-3: join a pending run of the root, or schedule one."""
        root = self.roots.get(self.cq_of.get(workload, ""), f"ClusterQueue/{self.cq_of.get(workload, '')}")
        if root in self.pending_runs:
            return
        self.pending_runs.add(root)
        self.push(now + self.options.inadmissible_requeue_delay, _REQUEUE, root)

    def run_requeue(self, root: str, now: float) -> None:
        self.pending_runs.discard(root)
        tree = self.trees.get(root) or [root.split("/", 1)[1]]
        # A run that moves nothing changes nothing: no event (as before the aggregate
        # event, when a run wrote one event per workload moved).
        if not self.options.queue_moves:
            count = self.s.requeue_inadmissible(tree, now)
            if count:
                self.timeline.append(RequeueRun(now, root, count))
            return
        keys: list[str] = []
        count = self.s.requeue_inadmissible(tree, now, keys)
        if count:
            self.timeline.append(RequeueRun(now, root, count))
        cq_of = self.cq_of.get
        self.timeline.extend([Requeued(now, key, cq_of(key, ""), "InadmissibleRequeue") for key in keys])

    def apply(self, kind: int, payload: object, now: float) -> None:
        if kind == _ARRIVAL:
            if isinstance(payload, _Created):
                payload = self.created(payload, now)
            assert isinstance(payload, Arrival)
            if self.api is not None:  # the API server's creationTimestamp
                lw = payload.workload
                stamped = self.api.created(lw.workload)
                if stamped is not lw.workload:
                    payload = attrs.evolve(payload, workload=attrs.evolve(lw, workload=stamped))
            self.timeline.append(Arrived(now, payload.key, payload.cluster_queue))
            self.s.arrive(payload, now)
            self.status_changed(payload.key, now)
        elif kind == _FINISH:
            assert isinstance(payload, _Finish)
            key = payload.key
            if self.epoch.get(key) != payload.epoch:
                return  # evicted since: this completion was cancelled
            self.epoch[key] = payload.epoch + 1
            self.s.finish(key, now)
            self.timeline.append(Finished(now, key, self.cq_of[key]))
            self.notify(key, now)
            self.status_changed(key, now)
        elif kind == _RELEASE:
            assert isinstance(payload, str)
            self.release(payload, now)
        elif kind == _REQUEUE:
            assert isinstance(payload, str)
            self.run_requeue(payload, now)
        elif kind == _CONTROLLER:
            self.wakes.discard(now)  # a wake-up: the controllers run below for every instant
        elif kind == _SEEN:
            assert isinstance(payload, _Finish)
            self.seen_admitted(payload, now)
        elif kind == _STATUS:
            assert isinstance(payload, tuple) and self.api is not None
            done, status_kind, key = payload
            if done:
                self.api.status_done(status_kind, key, now)
            else:
                self.api.status_due(status_kind, key, now)
        elif kind == _RUN_END:
            assert isinstance(payload, _Finish) and self.api is not None
            if self.epoch.get(payload.key) == payload.epoch:  # not evicted since
                self.push(self.api.runner_write(now), _FINISH, payload)
        elif kind == _CREATE:
            assert isinstance(payload, _Created) and self.api is not None
            self.push(self.api.runner_write(now), _ARRIVAL, payload)

    def created(self, ticket: _Created, now: float) -> Arrival:
        """A stream's create completed at ``now``: the workload exists from then on (its
        creation time), and the stream sleeps its interval before the next create."""
        stream = self.streams[ticket.stream]
        if ticket.index + 1 < len(stream.workloads):
            self.push(now + stream.interval, _CREATE, _Created(ticket.stream, ticket.index + 1))
        a = self.by_key[stream.workloads[ticket.index]]
        lw = a.workload
        w = attrs.evolve(lw.workload, creation_time=self.start + timedelta(seconds=now))
        return attrs.evolve(a, at=now, workload=attrs.evolve(lw, workload=w))

    def release(self, key: str, now: float) -> None:
        self.s.release(key, now)
        cq = self.cq_of[key]
        self.timeline.append(Released(now, key, cq))
        self.timeline.append(Requeued(now, key, cq, "Preempted"))  # SC-EV-3/SC-EV-4: active set, no backoff
        if self.api is not None:
            self.in_flight.discard(key)
            if self.api.on("workload-controller"):  # its one write after an eviction: background
                self.api.write(WORKLOAD, "workloadController", now)
        self.notify(key, now)
        self.status_changed(key, now)

    def status_changed(self, key: str, now: float) -> None:
        """A workload of these queues changed: their status controllers have a write to make."""
        if self.api is not None:
            self.api.changed(self.cq_of.get(key, ""), self.lq_of.get(key, ""), now)

    def seen_admitted(self, ticket: _Finish, now: float) -> None:
        """The admission write completed: the runner sees the workload admitted and starts its
        run time now; a stale ticket (evicted since) starts nothing."""
        key = ticket.key
        if self.epoch.get(key) != ticket.epoch:
            return
        self.seen.append((key, now))
        self.started[key] = (ticket.epoch, now)
        duration = self.durations.get(key)
        if duration is not None and self.api is not None:
            # The run ends after its duration; the runner's Finished write then goes through
            # its limiter, and Kueue releases the quota when it completes.
            self.push(now + duration, _RUN_END if self.api.on("runner-writes") else _FINISH, ticket)

    def wake(self, t: float) -> None:
        """A cycle at ``t`` (once per time): the scheduler is free again then."""
        if self.wake_at != t:
            self.wake_at = t
            self.push(t, _CONTROLLER, None)

    def due_now(self, now: float, kinds: tuple[int, ...]) -> None:
        while self.heap and self.heap[0][0] == now and self.heap[0][1] in kinds:
            _, kind, _, payload = heapq.heappop(self.heap)
            self.apply(kind, payload, now)

    def instant(self, now: float) -> None:
        self.instants += 1
        # 1. the batch, in the SC-SIM-13 item 3 order (the heap is ordered by kind within t).
        while self.heap and self.heap[0][0] == now:
            _, kind, _, payload = heapq.heappop(self.heap)
            self.apply(kind, payload, now)
        # 2. controllers
        for controller in self.controllers:
            self.wake_controllers(controller(now, self.s), now)
        if self.controllers:
            for key in self.s.take_notifications():
                self.notify(key, now)
            self.due_now(now, (_REQUEUE,))  # delay 0: before the cycles
        self.run_cycles(now)
        # 5. controllers that watch what the cycles wrote ask for their next run
        for controller in self.controllers:
            if isinstance(controller, WatchesCycles):
                self.wake_controllers(controller.after_cycles(now, self.s), now)

    def run_cycles(self, now: float) -> None:
        """Steps 3 and 4 of an instant."""
        # 3. cycles until nothing changes — with the API model, not while the scheduler still
        # waits for its last cycle's writes (Kueue makes them in its loop): it cycles again when they completed.
        if self.api is not None and now < self.blocked_until:
            self.wake(self.blocked_until)
            return
        cap = self.options.cycle_cap_factor * self.s.pending_count() + self.options.cycle_cap_base
        recent: list[set[str]] = []
        cycles = 0
        while True:
            if cycles >= cap:
                touched = sorted(set().union(*recent[-10:])) if recent else []
                self.timeline.append(Livelock(now, cycles, touched))
                break
            result = self.s.cycle(now)
            cycles += 1
            self.cycles += 1
            recent.append(self.record(result, now))
            if self.api is not None:
                if self.api_cycle(result, now):
                    return
                continue
            if not result.changed:
                break
            # SC-SIM-13 item 1: victims are released before the next cycle (termination 0).
            for e in result.evicted:
                if self.options.termination_time == 0:
                    self.release(e.victim, now)
                else:
                    self.push(now + self.options.termination_time, _RELEASE, e.victim)
            # Delay 0: a requeue run notified just now happens before the next cycle (item 4).
            self.due_now(now, (_REQUEUE,))

    def api_cycle(self, result: CycleResult, now: float) -> bool:
        """The writes of one cycle through the API model, in the order Kueue makes them. The
        scheduler's loop reaches each write at ``cursor``: per head in processing order its
        admission (a background write, ``async-admission``) or its new evictions
        (``eviction_workers`` at a time; the loop waits for them, ``sync-evictions``), then the
        pending heads' status writes, one after the other (``sync-pending``). Returns whether
        the instant's cycles stop here: nothing changed, or the scheduler is blocked."""
        api = self.api
        model = self.options.api
        assert api is not None and model is not None
        cursor = now
        admitted = {a.workload: a for a in result.admitted}
        evictions: dict[str, list[Eviction]] = {}
        for e in result.evicted:
            evictions.setdefault(e.preemptor, []).append(e)
        order = [h.workload for h in result.heads]
        listed = set(order)  # a scheduler that reports no heads: list order
        order += [k for k in [*admitted, *evictions] if k not in listed]
        runner_clears = api.on("runner-writes")
        releases: list[tuple[float, str]] = []
        for key in order:
            a = admitted.pop(key, None)
            if a is not None:
                self.status_changed(key, now)
                api.admitted(key)
                api.event(cursor, 2)  # QuotaReserved, Admitted
                # The goroutine stamps the transition time, then waits for its limiter.
                self.stamped.append((key, cursor))
                done = api.write(WORKLOAD, "admission", cursor)
                if not api.on("async-admission"):
                    cursor = max(cursor, done)
                self.push(done, _SEEN, _Finish(key, self.epoch[key]))
            new = [e for e in evictions.pop(key, ()) if e.victim not in self.in_flight]
            if not new:
                continue  # SC-PR-1: a target already evicted counts without a write
            workers = [cursor] * min(len(new), model.eviction_workers)  # when each is free
            end = cursor
            for e in new:
                self.in_flight.add(e.victim)
                start = heapq.heappop(workers)
                api.event(start, 3)  # EvictedDueToPreempted, Preempted, PreemptedWorkload
                done = api.write(WORKLOAD, "eviction", start)
                heapq.heappush(workers, done)
                end = max(end, done)
                if runner_clears:  # the runner sees the eviction and clears the reservation
                    done = api.runner_write(done)
                releases.append((done + self.options.termination_time, e.victim))
            if api.on("sync-evictions"):
                cursor = end
        for h in result.heads:
            if h.pending:
                api.event(cursor)  # Warning <reason>: at every failed attempt
                done_or_none = api.pending_write(h.workload, h.reason, h.message, cursor)
                if done_or_none is not None and api.on("sync-pending"):
                    cursor = done_or_none
        for t, victim in releases:
            if round(t, 6) <= now:  # an API that made no one wait: before the next cycle
                self.release(victim, now)
            else:
                self.push(t, _RELEASE, victim)
        cursor = round(cursor, 6)
        if cursor > now:
            self.blocked_until = cursor
            if result.changed:
                self.wake(cursor)
            return True
        if not result.changed:
            return True
        self.due_now(now, (_REQUEUE,))
        return False

    def record(self, result: CycleResult, now: float) -> set[str]:
        touched: set[str] = set()
        for a in result.admitted:
            touched.add(a.workload)
            self.cq_of[a.workload] = a.cluster_queue
            self.timeline.append(Admitted(now, a.workload, a.cluster_queue, a.pod_sets, a.usage))
            epoch = self.epoch.get(a.workload, 0) + 1
            self.epoch[a.workload] = epoch
            duration = self.durations.get(a.workload)
            if duration is not None and self.api is None:  # SC-SIM-13 item 2: the full duration again
                self.started[a.workload] = (epoch, now)
                self.push(now + duration, _FINISH, _Finish(a.workload, epoch))
        for e in result.evicted:
            touched.update((e.victim, e.preemptor))
            if self.api is not None and e.victim in self.in_flight:
                continue  # SC-PR-1: re-issued while its eviction write is in flight, not a new eviction
            if self.options.resume_after_preemption:
                self.credit(e.victim, now)
            self.epoch[e.victim] = self.epoch.get(e.victim, 0) + 1  # cancels its completion
            self.timeline.append(
                Preempted(
                    now,
                    e.victim,
                    e.cluster_queue,
                    e.preemptor,
                    e.reason,
                    e.message,
                    e.preemptor_priority,
                    e.victim_priority,
                    e.preemptor_boost,
                    e.victim_boost,
                )
            )
        if result.heads:
            # Every failed head attempt (parked or back in the active set), in the order of the
            # heads, with the condition the cycle wrote; a workload parked along with a head
            # (same shape) was not attempted and gets none.
            for h in result.heads:
                if h.pending:
                    touched.add(h.workload)
                    self.timeline.append(Inadmissible(now, h.workload, h.cluster_queue, h.reason, h.message))
            touched.update(p.workload for p in result.parked)
        else:  # a scheduler that reports no heads: its parked heads, with their message
            for p in result.parked:
                touched.add(p.workload)
                self.timeline.append(Inadmissible(now, p.workload, p.cluster_queue, "", p.reason))
        return touched

    def credit(self, key: str, now: float) -> None:
        """Checkpoint credit (``resume_after_preemption``): the run being preempted keeps what it
        did; the next admission runs only the rest. A run that had not started (its admission
        write still in flight) did nothing."""
        started = self.started.pop(key, None)
        duration = self.durations.get(key)
        if started is None or duration is None or started[0] != self.epoch.get(key):
            return
        self.durations[key] = max(0.0, round(duration - (now - started[1]), 6))

    def run(self) -> SimulationResult:
        until = self.options.until
        end = 0.0
        truncated = False
        while self.heap:
            now = self.heap[0][0]
            if until is not None and now > until:
                break
            if self.heap[0][1] >= _SILENT:  # only API bookkeeping at this time: not an instant
                _, kind, _, payload = heapq.heappop(self.heap)
                self.apply(kind, payload, now)
                continue
            if self.options.max_instants is not None and self.instants >= self.options.max_instants:
                truncated = True
                break
            if now > self.last_second:
                raise InputTooLarge(
                    f"simulation: the clock reached {now:.6g} s, beyond year 9999 (the last time a timestamp "
                    "can hold): the arrivals' durations, delays and waits add up to more; give --until or shorter durations"
                )
            self.instant(now)
            end = now
            if self.progress is not None:
                self.progress(now)
        return SimulationResult(
            timeline=self.timeline,
            end=end,
            instants=self.instants,
            cycles=self.cycles,
            truncated=truncated,
            api=None if self.api is None else self.api.stats(),
            admitted_seen=self.seen,
            admitted_stamped=self.stamped,
            queue_status_seen=() if self.api is None else [(k, f, l) for k, (f, l) in sorted(self.api.seen.items())],
        )


def run_simulation(
    scheduler: Scheduler,
    dump: ClusterDump,
    arrivals: Arrivals,
    *,
    options: SimulationOptions = SimulationOptions(),
    controllers: Sequence[Controller] = (),
    progress: Callable[[float], None] | None = None,
    creation: Sequence[CreationStream] = (),
) -> SimulationResult:
    """Run the event loop over ``scheduler`` (built from ``dump``) with ``arrivals``.

    The loop is deterministic: the same inputs give the same timeline. ``progress`` is called
    after each instant with its time (see :mod:`kueue_preempt.sim.progress`). ``creation``
    groups arrivals into the creating client's streams (used only with the API model's
    ``runner-creation``).
    """
    with fewer_collections():
        return _Loop(scheduler, dump, arrivals, options, controllers, progress, creation).run()


_GC_GEN0 = 50_000
"""Allocations between two young-generation collections during a run (CPython's default: 700)."""


@contextlib.contextmanager
def fewer_collections() -> Iterator[None]:
    """Run with CPython's cyclic collector triggered less often, restored afterwards: the
    collector settings of every :func:`run_simulation` (a benchmark uses it to measure other
    work under the same settings).

    A run allocates and frees millions of small objects (workload versions, queue entries,
    events); reference counting frees them, but the default threshold makes the cyclic
    collector walk the young generation every 700 allocations, about a fifth of a large run's
    time (benchmarks/bench_kueue_perf.py: the large-scale scenario 27.5 s -> 22.2 s of CPU).
    Cyclic garbage is still collected, only in larger batches."""
    before = gc.get_threshold()
    if before[0] != 0:  # 0: the caller switched automatic collection off; leave it so
        gc.set_threshold(max(before[0], _GC_GEN0), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)

"""Kueue's API throughput as an option of the simulation.

With :class:`ApiModel` in :attr:`SimulationOptions.api <kueue_preempt.sim.engine.SimulationOptions.api>`
the writes Kueue and the client that drives it make go through client-side token buckets
(:class:`~kueue_preempt.sim.throughput.TokenBucket`, Go's ``rate.Limiter``: first come, first
served) and then take the API server's round trip (``write_latency``). What each write holds up
is the event loop's business (:mod:`kueue_preempt.sim.engine`); this module keeps the API's own
state. The mechanisms, each of which :attr:`ApiModel.disabled` can switch off to show what it
does (the names of :data:`MECHANISMS`):

``per-kind-buckets``
    Kueue's client has one bucket of ``qps``/``burst`` per resource kind: Workload writes
    (admissions, evictions, pending reasons, the Workload controller's) share one;
    ClusterQueue status, LocalQueue status and Events have their own. Off: one bucket for all
    of them (the production ``kueue`` binary).
``async-admission``
    An admission's write runs in the background; the scheduler does not wait. Off: the cycle
    waits for it.
``sync-evictions``
    Eviction writes are made by the cycle, ``eviction_workers`` at a time, and the cycle waits
    for all. Off: in the background.
``sync-pending``
    Pending-reason writes are made by the cycle after all its entries, one after the other in
    entry order, and the cycle waits. Off: in the background.
``pending-when-changed``
    A pending-reason write only when the condition changed (reason, message, or the first
    time: ``status.resourceRequests`` missing). Off: one at every failed attempt.
``workload-controller``
    Kueue's Workload controller writes once after each eviction that the runner completed.
``runner-creation``
    The client creating the workloads (Kueue's perf runner) has its own buckets
    (``runner_qps``/``runner_burst`` per kind) and one goroutine per creation stream that
    sleeps the stream's interval, then makes a blocking create: creation spreads out when the
    streams together ask for more than ``runner_qps``. Off: workloads are created at their
    nominal times.
``runner-writes``
    The runner's own Workload writes through its bucket: ``Finished`` when a run ends (Kueue
    releases the quota when it completes), and clearing the quota reservation of an evicted
    workload (Kueue releases it then). Off: both happen when the runner decides them.
``queue-status``
    ClusterQueue and LocalQueue status: changes of a queue are batched for
    ``status_batch_seconds`` and written by one worker per kind, a queue at a time. The
    runner sees a ClusterQueue's changes through these writes.
``events``
    Kubernetes Events (two per admission, three per preemption target, one per failed head
    attempt) go to a queue of ``event_queue`` that drops when full, sent one at a time.
``second-timestamps``
    The API server stamps a created workload's ``metadata.creationTimestamp`` at whole
    seconds (Kubernetes' timestamps have one-second resolution), and Kueue's queue-order time
    (``POL-5``) is that timestamp: workloads created within the same second tie on it, in a
    ClusterQueue's queue (``SC-QO-1``, then the uid decides) and in a cycle's entry order
    (``SC-ORD-1``, then the head order does, ``SC-ORD-2``). Off: the exact simulated time.

``None`` in place of an :class:`ApiModel` is an ideal API: nothing is counted and nothing waits.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Callable, Iterable

import attrs

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import Workload
from kueue_preempt.model.quantity import UNLIMITED as _INT64_MAX
from kueue_preempt.sim.throughput import MAX_QPS, MIN_QPS, ApiLimits, TokenBucket

__all__ = ["ApiModel", "ApiStats", "MECHANISMS", "STATUS_OBJECTS"]

STATUS_OBJECTS = ("ClusterQueue", "LocalQueue")
"""Objects whose status Kueue's controllers rewrite when their workloads change."""

MECHANISMS = (
    "per-kind-buckets",
    "async-admission",
    "sync-evictions",
    "sync-pending",
    "pending-when-changed",
    "workload-controller",
    "runner-creation",
    "runner-writes",
    "queue-status",
    "events",
    "second-timestamps",
)
"""The mechanisms of the model, each of which :attr:`ApiModel.disabled` may switch off."""

WORKLOAD = "Workload"
EVENT = "Event"


def _non_negative(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigurationError(f"ApiModel.{attr.name}: must be a finite number >= 0, got {value!r}")


def _qps(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigurationError(f"ApiModel.{attr.name}: must be a finite number > 0, got {value!r}")
    if not MIN_QPS <= value <= MAX_QPS:
        raise ConfigurationError(f"ApiModel.{attr.name}: must be between {MIN_QPS:.3g} and {MAX_QPS:.3g}, got {value!r}")


def _burst(inst: object, attr: attrs.Attribute[int], value: int) -> None:
    # int64 here (a model may stand for an unlimited client); Kueue's own burst, an int32,
    # is checked where a Configuration or a flag is read.
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _INT64_MAX:
        raise ConfigurationError(f"ApiModel.{attr.name}: must be an integer between 1 and {_INT64_MAX}, got {value!r:.40}")


def _count(inst: object, attr: attrs.Attribute[int], value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigurationError(f"ApiModel.{attr.name}: must be an integer >= 1, got {value!r}")


def _mechanisms(value: Iterable[str]) -> frozenset[str]:
    if isinstance(value, str):
        raise ConfigurationError(f"ApiModel.disabled: a list of mechanisms, got the string {value!r}")
    try:
        out = frozenset(value)
    except TypeError:
        raise ConfigurationError(f"ApiModel.disabled: a list of mechanisms, got {value!r}") from None
    for v in sorted(out):
        if v not in MECHANISMS:
            raise ConfigurationError(f"ApiModel.disabled: unknown mechanism {v!r} (expected {', '.join(MECHANISMS)})")
    return out


@attrs.frozen
class ApiModel:
    """Kueue's API client: ``qps`` requests per second with bursts of ``burst`` per resource
    kind (the Kueue Configuration's ``clientConnection``; Kueue's defaults are 300/500, its
    scalability test uses 50/100), and the client that creates the workloads. Every other
    field is a fact of Kueue's code or of its test (same value for every scenario) except
    ``write_latency``, the one constant of the model."""

    qps: float = attrs.field(validator=_qps)
    burst: int = attrs.field(validator=_burst)
    write_latency: float = attrs.field(default=0.002, validator=_non_negative)
    """Seconds one write takes once its limiter lets it go: the API server's round trip (the
    model's one constant, not fitted)."""
    runner_qps: float = attrs.field(default=1000.0, validator=_qps)
    """The workload-creating client's limit per kind (Kueue's perf runner: the test API
    server's config, 1,000)."""
    runner_burst: int = attrs.field(default=2000, validator=_burst)
    """Its burst (2,000)."""
    eviction_workers: int = attrs.field(default=8, validator=_count)
    """Eviction writes a cycle makes in parallel (Kueue: 8)."""
    status_batch_seconds: float = attrs.field(default=1.0, validator=_non_negative)
    """ClusterQueue/LocalQueue status changes are batched per queue for this long (Kueue: 1 s)."""
    event_queue: int = attrs.field(default=1000, validator=_count)
    """The Events broadcaster's queue; an Event arriving when it is full is dropped (1,000)."""
    disabled: frozenset[str] = attrs.field(default=frozenset(), converter=_mechanisms)
    """Mechanisms switched off (names of :data:`MECHANISMS`), to measure what each does."""

    @property
    def limits(self) -> ApiLimits:
        return ApiLimits(float(self.qps), self.burst)

    def on(self, mechanism: str) -> bool:
        return mechanism not in self.disabled

    @classmethod
    def of(cls, limits: ApiLimits) -> ApiModel | None:
        """The model for ``limits`` with the default parameters; ``None`` (an ideal API) when
        ``limits`` is ideal."""
        return None if limits.qps is None else cls(limits.qps, limits.burst)


@attrs.frozen
class ApiStats:
    """What the API model did: Kueue's requests (per kind of write) and how many its limiters
    delayed, the runner's requests, and the Events sent and dropped."""

    requests: int
    delayed: int
    total_delay: float
    by_kind: tuple[tuple[str, int], ...]
    runner_requests: int = 0
    events_sent: int = 0
    events_dropped: int = 0


class ApiRuntime:
    """The API's mutable state during one simulation (not part of the public API).

    ``schedule(t, kind, key)`` is how a status controller's timers come back: the event loop
    calls :meth:`status_due` (``done=False``) or :meth:`status_done` (``done=True``) then.
    """

    __slots__ = (
        "model", "latency", "buckets", "runner", "kinds", "last_message", "schedule", "waiting", "queues",
        "dirty", "busy", "seen", "events", "sender_free", "events_sent", "events_dropped", "runner_requests",
    )

    def __init__(self, model: ApiModel, schedule: Callable[[float, bool, tuple[str, str]], None]) -> None:
        self.model = model
        self.latency = model.write_latency
        shared = None if model.on("per-kind-buckets") else TokenBucket(model.limits)
        self.buckets: dict[str, TokenBucket] = {
            k: shared or TokenBucket(model.limits) for k in (WORKLOAD, EVENT, *STATUS_OBJECTS)
        }
        self.runner = TokenBucket(ApiLimits(float(model.runner_qps), model.runner_burst))
        self.runner_requests = 0
        self.kinds: dict[str, int] = {}
        self.last_message: dict[str, tuple[str, str]] = {}
        self.schedule = schedule
        kinds = STATUS_OBJECTS if model.on("queue-status") else ()
        self.waiting: dict[str, set[str]] = {k: set() for k in kinds}  # batched, not yet due
        self.queues: dict[str, deque[str]] = {k: deque() for k in kinds}
        self.dirty: dict[str, set[str]] = {k: set() for k in kinds}
        self.busy: dict[str, bool] = {k: False for k in kinds}
        self.seen: dict[str, tuple[float, float]] = {}  # ClusterQueue -> first, last status write seen
        self.events: deque[float] = deque()
        self.sender_free = 0.0
        self.events_sent = 0
        self.events_dropped = 0

    def on(self, mechanism: str) -> bool:
        return mechanism not in self.model.disabled

    def created(self, workload: Workload) -> Workload:
        """``workload`` as the API server stores it at its creation: with ``second-timestamps``
        its ``creationTimestamp`` cut to the whole second (the API's resolution)."""
        t = workload.creation_time
        if t is None or not self.on("second-timestamps") or t.microsecond == 0:
            return workload
        return attrs.evolve(workload, creation_time=t.replace(microsecond=0))

    def write(self, kind: str, label: str, at: float) -> float:
        """One request of Kueue's for an object of ``kind``, made at ``at``; returns when it completes."""
        self.kinds[label] = self.kinds.get(label, 0) + 1
        return self.buckets[kind].reserve(at) + self.latency

    def runner_write(self, at: float) -> float:
        """One Workload request of the runner's (create, ``Finished``, clearing a reservation)."""
        self.runner_requests += 1
        return self.runner.reserve(at) + self.latency

    def pending_write(self, workload: str, reason: str, message: str, at: float) -> float | None:
        """``SC-MSG-3`` for a head that ends its cycle pending: a write when its reason or
        message differs from the last one written (``None``: no write)."""
        if self.on("pending-when-changed"):
            if self.last_message.get(workload) == (reason, message):
                return None
            self.last_message[workload] = (reason, message)
        return self.write(WORKLOAD, "pendingStatus", at)

    def admitted(self, workload: str) -> None:
        """The admission replaces the pending condition: the next pending write differs."""
        self.last_message.pop(workload, None)

    # -- Events: one sender, its own bucket, a bounded queue

    def event(self, now: float, n: int = 1) -> None:
        """``n`` Events recorded at ``now``: queued for the sender, or dropped when the queue is full."""
        if not self.on("events"):
            return
        self.send_events(now)
        for _ in range(n):
            if len(self.events) >= self.model.event_queue:
                self.events_dropped += 1
            else:
                self.events.append(now)
        self.send_events(now)

    def send_events(self, now: float) -> None:
        """The sender's progress up to ``now``: it takes the next queued Event when the previous
        one completed (or when the Event was queued) and sends it through the Events bucket."""
        q = self.events
        bucket = self.buckets[EVENT]
        while q and self.sender_free <= now:
            at = max(self.sender_free, q[0])
            if at > now:
                break
            q.popleft()
            self.events_sent += 1
            self.kinds["event"] = self.kinds.get("event", 0) + 1
            self.sender_free = bucket.reserve(at) + self.latency

    # -- ClusterQueue and LocalQueue status controllers

    def changed(self, cluster_queue: str, local_queue: str, now: float) -> None:
        """A workload of these queues changed: each status controller batches the change for
        ``status_batch_seconds`` (a queue already waiting keeps its time)."""
        for kind, waiting in self.waiting.items():
            key = cluster_queue if kind == "ClusterQueue" else local_queue
            if key in waiting:
                continue
            waiting.add(key)
            self.schedule(now + self.model.status_batch_seconds, False, (kind, key))

    def status_due(self, kind: str, key: str, now: float) -> None:
        """The batching period of ``key`` is over: the worker of ``kind`` will write it (once,
        however often it changed; Kueue's work queue dedups keys)."""
        self.waiting[kind].discard(key)
        if key in self.dirty[kind]:
            return
        self.dirty[kind].add(key)
        self.queues[kind].append(key)
        if not self.busy[kind]:
            self.status_done(kind, "", now)

    def status_done(self, kind: str, key: str, now: float) -> None:
        """The worker of ``kind`` finished writing ``key`` (``""``: it was idle) at ``now``:
        the runner sees a ClusterQueue's change; the worker writes its next queue, if any."""
        if key and kind == "ClusterQueue":
            first = self.seen.get(key)
            self.seen[key] = (now if first is None else first[0], now)
        q = self.queues[kind]
        if not q:
            self.busy[kind] = False
            return
        nxt = q.popleft()
        self.dirty[kind].discard(nxt)
        self.busy[kind] = True
        self.schedule(self.write(kind, kind + "Status", now), True, (kind, nxt))

    def stats(self) -> ApiStats:
        self.send_events(math.inf)  # what is still queued at the end is sent after it
        buckets = {id(b): b for b in self.buckets.values()}.values()
        return ApiStats(
            sum(b.requests for b in buckets),
            sum(b.delayed for b in buckets),
            sum(b.total_delay for b in buckets),
            tuple(sorted(self.kinds.items())),
            self.runner_requests,
            self.events_sent,
            self.events_dropped,
        )

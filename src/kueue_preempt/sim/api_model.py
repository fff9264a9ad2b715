"""Kueue's API throughput as an option of the simulation.

With :class:`ApiModel` in :attr:`SimulationOptions.api <kueue_preempt.sim.engine.SimulationOptions.api>`
every status write Kueue makes goes through one token bucket
(:class:`~kueue_preempt.sim.throughput.TokenBucket`, Go's ``rate.Limiter``) and then takes the
API server's round trip (``write_latency``). What each write holds up is the event loop's
business (:mod:`kueue_preempt.sim.engine`); this module keeps the API's own state:

* the bucket and the count of requests per kind;
* the last pending reason and message written per workload — ``SC-MSG-3``'s write happens
  only when they changed (Kueue compares the condition before writing);
* the status controllers: one worker per object kind (ClusterQueue, LocalQueue), writing one
  queue at a time; a queue changed while its write is still queued is written once (Kueue's
  work queue dedups keys).

``None`` in place of an :class:`ApiModel` is an ideal API: nothing is counted and nothing waits.
"""

from __future__ import annotations

import math
from collections import deque
from typing import Callable, Iterable

import attrs

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model.quantity import UNLIMITED as _INT64_MAX
from kueue_preempt.sim.throughput import MAX_QPS, MIN_QPS, ApiLimits, TokenBucket

__all__ = ["ApiModel", "ApiStats", "STATUS_OBJECTS"]

STATUS_OBJECTS = ("ClusterQueue", "LocalQueue")
"""Objects whose status Kueue's controllers rewrite when their workloads change."""


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


def _status_objects(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        raise ConfigurationError(f"ApiModel.status_objects: a list of object kinds, got the string {value!r}")
    try:
        out = tuple(value)
    except TypeError:
        raise ConfigurationError(f"ApiModel.status_objects: a list of object kinds, got {value!r}") from None
    for v in out:
        if v not in STATUS_OBJECTS:
            raise ConfigurationError(f"ApiModel.status_objects: unknown object {v!r} (expected {', '.join(STATUS_OBJECTS)})")
    return out


@attrs.frozen
class ApiModel:
    """Kueue's API client: ``qps`` requests per second with bursts of ``burst`` (the Kueue
    Configuration's ``clientConnection``; Kueue's defaults are 300/500, its scalability test
    uses 50/100), plus four global parameters — the same for every scenario, set a priori
    rather than fitted, so that the model predicts more than the one baseline it was tuned on."""

    qps: float = attrs.field(validator=_qps)
    burst: int = attrs.field(validator=_burst)
    write_latency: float = attrs.field(default=0.002, validator=_non_negative)
    """Seconds one write takes once the limiter lets it go: the API server's round trip.
    Exactly 0 makes a write complete in the instant it is made, tied with the cycle that made
    it; any value from 0.5 to 7 ms gives the same baseline figures."""
    finish_latency: float = attrs.field(default=0.0, validator=_non_negative)
    """Seconds from the end of a workload's run until Kueue releases its quota (the runner's
    reconcile and ``Finished`` write, Kueue's watch)."""
    cycle_seconds: float = attrs.field(default=0.0, validator=_non_negative)
    """The scheduler's own compute time per cycle, besides its writes."""
    status_objects: tuple[str, ...] = attrs.field(default=STATUS_OBJECTS, converter=_status_objects)
    """Which queue statuses cost a write per change."""

    @property
    def limits(self) -> ApiLimits:
        return ApiLimits(float(self.qps), self.burst)

    @classmethod
    def of(cls, limits: ApiLimits) -> ApiModel | None:
        """The model for ``limits`` with the default global parameters; ``None`` (an ideal
        API) when ``limits`` is ideal."""
        return None if limits.qps is None else cls(limits.qps, limits.burst)


@attrs.frozen
class ApiStats:
    """What the API model did: requests per kind and how many the limiter delayed."""

    requests: int
    delayed: int
    total_delay: float
    by_kind: tuple[tuple[str, int], ...]


class ApiRuntime:
    """The API's mutable state during one simulation (not part of the public API).

    ``schedule(t, kind)`` is how a status write's completion at ``t`` comes back: the event
    loop calls :meth:`status_done` with ``kind`` then.
    """

    __slots__ = ("model", "bucket", "kinds", "last_message", "schedule", "queues", "dirty", "busy")

    def __init__(self, model: ApiModel, schedule: Callable[[float, str], None]) -> None:
        self.model = model
        self.bucket = TokenBucket(model.limits)
        self.kinds: dict[str, int] = {}
        self.last_message: dict[str, tuple[str, str]] = {}
        self.schedule = schedule
        self.queues: dict[str, deque[str]] = {k: deque() for k in model.status_objects}
        self.dirty: dict[str, set[str]] = {k: set() for k in model.status_objects}
        self.busy: dict[str, bool] = {k: False for k in model.status_objects}

    def write(self, kind: str, now: float) -> float:
        """One request made at ``now``; returns when it completes."""
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return self.bucket.reserve(now) + self.model.write_latency

    def pending_write(self, workload: str, reason: str, message: str, now: float) -> float | None:
        """``SC-MSG-3`` for a head that ends its cycle pending: a write when its reason or
        message differs from the last one written (``None``: no write)."""
        if self.last_message.get(workload) == (reason, message):
            return None
        self.last_message[workload] = (reason, message)
        return self.write("pendingStatus", now)

    def admitted(self, workload: str) -> None:
        """The admission replaces the pending condition: the next pending write differs."""
        self.last_message.pop(workload, None)

    def changed(self, cluster_queue: str, local_queue: str, now: float) -> None:
        """A workload of these queues changed: queue a status write per status object."""
        for kind, dirty in self.dirty.items():
            key = cluster_queue if kind == "ClusterQueue" else local_queue
            if key in dirty:
                continue
            dirty.add(key)
            self.queues[kind].append(key)
            if not self.busy[kind]:
                self.status_done(kind, now)

    def status_done(self, kind: str, now: float) -> None:
        """The worker of ``kind`` is free at ``now``: it writes its next queue, if any."""
        q = self.queues[kind]
        if not q:
            self.busy[kind] = False
            return
        self.dirty[kind].discard(q.popleft())
        self.busy[kind] = True
        self.schedule(self.write(kind + "Status", now), kind)

    def stats(self) -> ApiStats:
        b = self.bucket
        return ApiStats(b.requests, b.delayed, b.total_delay, tuple(sorted(self.kinds.items())))

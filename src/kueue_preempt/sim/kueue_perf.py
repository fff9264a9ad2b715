"""A fast simulator of Kueue's scalability scenarios, with Kueue's API throughput as a model.

Kueue's scalability scenarios (:mod:`~kueue_preempt.sim.scenario`) use a small subset of
Kueue: one flavor, one resource (``cpu``), flat implicit cohorts without Cohort objects,
BestEffortFIFO queues, classic preemption, one-pod workloads and no fair sharing. For that
subset this module runs the scheduling cycle of ``docs/semantics.md`` directly on integers
(the generic :class:`~kueue_preempt.sim.cycle_scheduler.CycleScheduler` handles every Kueue
feature but needs seconds per thousand workloads; the large-scale scenario has 50,000). The
rules implemented, each as in the generic cycle (a test compares the two on a small
scenario):

* queue order ``SC-QO-1`` (sticky preemptor, priority, creation time, uid; evicted workloads
  keep their creation time, ``SC-QO-2``), one head per ClusterQueue per cycle (``SC-CY-2``);
* nomination on the cycle-start snapshot: ``FAS-6`` modes (``NoFit`` above the potential
  ``Q-10``, ``Fit`` within ``Available`` ``Q-9``, else the preemption oracle ``FA-6``);
* classic preemption ``CL-GEN-*``, ``CL-VALID-1``, ``CL-ATT-*``, ``GT-5``, ``FB-2`` with the
  candidate order ``ORD-1``..``ORD-6`` (``ORD-5`` on exact admission times);
* entry order ``SC-ORD-1`` (borrowing level, priority, creation time; stable over heads),
  processing ``SC-PE-1``..``SC-PE-4`` (capacity reservation, overlapping targets recomputed as
  ``DeferredFit``, fit re-checked), admission ``SC-AD-1``, issuing ``SC-PR-1``;
* requeue ``SC-RQ-5`` with shape-hash parking ``SC-RQ-8`` (the shape of a one-pod workload
  is its priority and request), ``QueueInadmissible`` batched per cohort ``SC-IN-1``..``SC-IN-4``;
* over time ``SC-T-2`` / ``SC-SIM-13``: events of one instant first, then cycles until one
  changes nothing; an evicted workload is pending again as soon as it is released.

The API model (decision ``(kp-a)`` in ``docs/decisions.md``): every status write Kueue makes
goes through one token bucket (:class:`~kueue_preempt.sim.throughput.TokenBucket`). Writes
made inside the scheduling cycle (pending-reason writes ``SC-MSG-3``, evictions) hold the
next cycle until they complete; the admission write does not (Kueue assumes the workload in
its cache and writes in the background) but the runner starts the workload only when it
completes; the ``Requeued`` write after a release, and ClusterQueue and LocalQueue status
writes (one controller worker each, coalescing changes per queue) run in the background.
Each write also takes ``write_latency`` (the API server's round trip) once the limiter lets
it go (decision ``(kp-b)``).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from typing import Any, Callable, Iterable

import attrs

from ..errors import ConfigurationError
from ..model import FlavorResource
from .scenario import BuiltScenario, GeneratedWorkload
from .throughput import ApiLimits, TokenBucket
from .timeline import (
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
)

__all__ = ["PerfModel", "ApiStats", "PerfResult", "simulate_scenario", "STATUS_OBJECTS"]

STATUS_OBJECTS = ("ClusterQueue", "LocalQueue")
"""Objects whose status Kueue's controllers rewrite when their workloads change."""


def _non_negative(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigurationError(f"PerfModel.{attr.name}: must be a finite number >= 0, got {value!r}")


def _status_objects(value: Iterable[str]) -> tuple[str, ...]:
    out = tuple(value)
    for v in out:
        if v not in STATUS_OBJECTS:
            raise ConfigurationError(f"PerfModel.status_objects: unknown object {v!r} (expected {', '.join(STATUS_OBJECTS)})")
    return out


@attrs.frozen
class PerfModel:
    """The model's settings. Only ``api`` differs between the ideal and the Kueue-like run;
    the other fields are the global parameters of decision ``(kp-b)`` (the same for every
    scenario)."""

    api: ApiLimits = ApiLimits()
    """Client limits; the default is an ideal, infinitely fast API."""
    scheduling_equivalence_hashing: bool = True
    """Kueue's gate (on by default, and in the measured runs): ``SC-RQ-8``."""
    inadmissible_requeue_delay: float = attrs.field(default=1.0, validator=_non_negative)
    """``SC-IN-3``'s batching period (Kueue: 1 s)."""
    cycle_seconds: float = attrs.field(default=0.0, validator=_non_negative)
    """Scheduler time per cycle besides its writes (global parameter, ``(kp-b)``)."""
    status_objects: tuple[str, ...] = attrs.field(default=STATUS_OBJECTS, converter=_status_objects)
    """Which status objects cost a write per change (global parameter, ``(kp-b)``)."""
    write_latency: float = attrs.field(default=0.002, validator=_non_negative)
    """Seconds one write takes once the limiter lets it go: the API server's round trip
    (global parameter, ``(kp-b)``; 0 when the API is ideal). Any value from 0.5 to 7 ms gives
    the same baseline figures; exactly 0 makes writes complete in the instant they are made,
    which ties them with the cycle that made them."""
    finish_latency: float = attrs.field(default=0.0, validator=_non_negative)
    """Seconds from the end of a workload's run time until Kueue releases its quota: the
    runner's reconcile and ``Finished`` write, and Kueue's watch (global parameter, ``(kp-b)``).
    Part of the API model: 0 when the API is ideal."""
    truncate_timestamps: bool = True
    """The summary reads creation times at Kubernetes' one-second resolution (``(kp-a)``)."""
    until: float | None = None
    """Stop after this simulated time (seconds); default: when everything finished."""


@attrs.frozen
class ApiStats:
    """What the API model did: requests per kind and how many the limiter delayed."""

    requests: int
    delayed: int
    total_delay: float
    by_kind: tuple[tuple[str, int], ...]


@attrs.frozen
class PerfResult:
    timeline: tuple[Event, ...]
    end: float
    """Time of the last event (seconds): the run's simulated duration."""
    cycles: int
    api: ApiStats
    admitted_seen: tuple[tuple[str, float], ...] = ()
    """``(workload, time)`` when each admission write completed (the runner saw it)."""


# --------------------------------------------------------------------------- state

_NONE, _IN_GROUP, _EXTRA, _INADMISSIBLE, _ADMITTED, _DONE = range(6)


class _Group:
    """The pending workloads of one shape in one ClusterQueue, in queue order (SC-QO-1)."""

    __slots__ = ("pri", "heap", "parked")

    def __init__(self, pri: int) -> None:
        self.pri = pri
        self.heap: list[tuple[float, int, _W]] = []
        self.parked = False


class _W:
    __slots__ = ("key", "name", "cq", "pri", "cpu", "runtime", "created", "uid", "where",
                 "admitted_at", "evicted", "msg", "epoch")

    def __init__(self, g: GeneratedWorkload, cq: "_CQ", uid: int) -> None:
        self.key = g.key
        self.name = g.name
        self.cq = cq
        self.pri = g.priority
        self.cpu = g.cpu_millis
        self.runtime = g.runtime_ms / 1000.0
        self.created = g.at_ms / 1000.0
        self.uid = uid
        self.where = _NONE
        self.admitted_at = 0.0
        self.evicted = False
        self.msg: object = None
        self.epoch = 0


class _Ticket:
    """A pending completion for ``w``; stale once ``w.epoch`` moved on (evicted since)."""

    __slots__ = ("w", "epoch")

    def __init__(self, w: _W, epoch: int) -> None:
        self.w = w
        self.epoch = epoch


class _Cohort:
    __slots__ = ("name", "members", "nominal", "usage")

    def __init__(self, name: str) -> None:
        self.name = name
        self.members: list[_CQ] = []
        self.nominal = 0
        self.usage = 0


class _CQ:
    __slots__ = ("idx", "name", "cohort", "nominal", "bl", "reclaim", "within", "usage", "groups",
                 "extra", "inadmissible", "failed", "preemptor", "admitted")

    def __init__(self, idx: int, name: str, nominal: int, bl: int, reclaim: str, within: str) -> None:
        self.idx = idx
        self.name = name
        self.cohort: _Cohort | None = None
        self.nominal = nominal
        self.bl = bl
        self.reclaim = reclaim
        self.within = within
        self.usage = 0
        self.groups: dict[tuple[int, int], _Group] = {}
        self.extra: list[tuple[int, float, int, _W]] = []
        self.inadmissible: dict[int, _W] = {}
        self.failed: set[tuple[int, int]] = set()
        self.preemptor: _W | None = None
        self.admitted: dict[int, _W] = {}


# Event kinds, in the order SC-SIM-13 applies them within one instant; the cycle comes last.
_ARRIVE, _ADMIT_SEEN, _FINISH, _RELEASE, _REQUEUE, _STATUS, _BACKGROUND, _CYCLE = range(8)

# Entry modes
_FIT, _PREEMPT, _NOFIT = range(3)


class _Entry:
    __slots__ = ("w", "cq", "mode", "targets", "borrow", "reason", "needed")

    def __init__(self, w: _W, cq: _CQ) -> None:
        self.w = w
        self.cq = cq
        self.mode = _NOFIT
        self.targets: list[_W] = []
        self.borrow = 0
        self.reason = ""
        self.needed = 0


def _without(su: dict[int, int], sc: dict[str, int], workloads: Iterable[_W]) -> tuple[dict[int, int], dict[str, int]]:
    """The cycle's usage deltas with ``workloads`` taken out of the snapshot (each once)."""
    rsu, rsc = dict(su), dict(sc)
    for p in workloads:
        rsu[p.cq.idx] = rsu.get(p.cq.idx, 0) - p.cpu
        if p.cq.cohort is not None:
            rsc[p.cq.cohort.name] = rsc.get(p.cq.cohort.name, 0) - p.cpu
    return rsu, rsc


class _Sim:
    def __init__(self, built: BuiltScenario, model: PerfModel, progress: Callable[[float], None] | None) -> None:
        self.model = model
        self.flavor = built.flavor
        self.progress = progress
        self.ideal = model.api.ideal
        # The finish latency is API-path latency (runner write, Kueue's watch): none when ideal.
        self.latency = 0.0 if self.ideal else model.finish_latency
        self.bucket = TokenBucket(model.api)
        self.kinds: dict[str, int] = {}
        self.timeline: list[Event] = []
        self.seen: list[tuple[str, float]] = []
        self.heap: list[tuple[float, int, int, object]] = []
        self.seq = 0
        self.cycles = 0
        self.cqs: list[_CQ] = []
        cohorts: dict[str, _Cohort] = {}
        by_name: dict[str, _CQ] = {}
        # Heads are listed in ClusterQueue-name order (SC-CY-2 [D]): index order = name order.
        for i, q in enumerate(sorted(built.queues, key=lambda q: q.name)):
            cq = _CQ(i, q.name, q.nominal_cpu_millis, q.borrowing_limit_cpu_millis, q.reclaim_within_cohort, q.within_cluster_queue)
            co = cohorts.setdefault(q.cohort, _Cohort(q.cohort))
            cq.cohort = co
            co.members.append(cq)
            co.nominal += cq.nominal
            self.cqs.append(cq)
            by_name[q.name] = cq
        self.ready: set[int] = set()
        self.pending_requeue: set[str] = set()
        self.cohorts = cohorts
        self.scheduler_busy = False  # a cycle event is scheduled
        self.blocked_until = 0.0  # the last cycle's writes complete then
        self.instant_cycles = 0
        self.instant_time = -1.0
        # Status controllers: FIFO of dirty queues per object kind, one worker each.
        self.status_queues: dict[str, deque[int]] = {k: deque() for k in model.status_objects}
        self.status_dirty: dict[str, set[int]] = {k: set() for k in model.status_objects}
        self.status_busy: dict[str, bool] = {k: False for k in model.status_objects}
        for uid, g in enumerate(built.workloads):
            w = _W(g, by_name[g.queue], uid)
            self.push(w.created, _ARRIVE, w)

    # -- plumbing

    def push(self, t: float, kind: int, payload: object) -> None:
        self.seq += 1
        # Times to the microsecond, as the generic event loop keeps them: a sum like
        # 10.1 + 0.5 would otherwise split one instant into two.
        heapq.heappush(self.heap, (round(t, 6), kind, self.seq, payload))

    def write(self, kind: str, now: float) -> float:
        """One API request made at ``now``; returns when it completes (an ideal API counts none)."""
        if self.ideal:
            return now
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        return self.bucket.reserve(now) + self.model.write_latency

    def changed(self, cq: _CQ, now: float) -> None:
        """``cq``'s status (and its LocalQueue's) differs: queue a status write per object."""
        if self.ideal:
            return
        for kind, dirty in self.status_dirty.items():
            if cq.idx in dirty:
                continue
            dirty.add(cq.idx)
            self.status_queues[kind].append(cq.idx)
            if not self.status_busy[kind]:
                self.status_next(kind, now)

    def status_next(self, kind: str, now: float) -> None:
        q = self.status_queues[kind]
        if not q:
            self.status_busy[kind] = False
            return
        idx = q.popleft()
        self.status_dirty[kind].discard(idx)
        self.status_busy[kind] = True
        self.push(self.write(kind + "Status", now), _STATUS, kind)

    # -- queues
    #
    # A ClusterQueue's pending workloads are kept per shape (SC-RQ-8: for a one-pod workload,
    # its priority and request), each shape a heap in queue order. A shape is either active or
    # parked as a whole, which makes the bulk moves of SC-RQ-8 and SC-IN-1 O(1) per shape —
    # the baseline moves hundreds of thousands of workloads this way. Exceptions are kept
    # aside: a workload requeued active while its shape is parked (``extra``) and a workload
    # parked on its own (``inadmissible``, hashing off).

    def _group(self, w: _W) -> _Group:
        g = w.cq.groups.get((w.pri, w.cpu))
        if g is None:
            g = w.cq.groups[(w.pri, w.cpu)] = _Group(w.pri)
        return g

    def activate(self, w: _W) -> None:
        cq = w.cq
        g = self._group(w)
        if g.parked:
            w.where = _EXTRA
            heapq.heappush(cq.extra, (-w.pri, w.created, w.uid, w))
        else:
            w.where = _IN_GROUP
            heapq.heappush(g.heap, (w.created, w.uid, w))
        self.ready.add(cq.idx)

    def park(self, w: _W) -> None:
        """Park one workload that is out of every queue (a head, or an arrival)."""
        cq = w.cq
        g = self._group(w)
        if g.parked:
            w.where = _IN_GROUP
            heapq.heappush(g.heap, (w.created, w.uid, w))
        else:
            w.where = _INADMISSIBLE
            cq.inadmissible[w.uid] = w

    def park_shape(self, cq: _CQ, h: tuple[int, int]) -> None:
        """SC-RQ-8: record the failed shape and move its active workloads to the inadmissible set."""
        cq.failed.add(h)
        g = cq.groups.get(h)
        if g is None:
            g = cq.groups[h] = _Group(h[0])
        g.parked = True
        if cq.extra:
            keep = []
            for item in cq.extra:
                w = item[3]
                if (w.pri, w.cpu) == h and w is not cq.preemptor:
                    w.where = _IN_GROUP
                    heapq.heappush(g.heap, (w.created, w.uid, w))
                else:
                    keep.append(item)
            heapq.heapify(keep)
            cq.extra = keep
        self.refresh(cq)

    def refresh(self, cq: _CQ) -> None:
        if cq.extra or any(g.heap and not g.parked for g in cq.groups.values()):
            self.ready.add(cq.idx)
        else:
            self.ready.discard(cq.idx)

    def pop_head(self, cq: _CQ) -> _W | None:
        p = cq.preemptor
        best: tuple[int, float, int] | None = None
        src: list[Any] | None = None
        if p is not None and (p.where == _EXTRA or (p.where == _IN_GROUP and not self._group(p).parked)):
            # SC-QO-1 criterion 2: the sticky preemptor is the head.
            if p.where == _EXTRA:
                cq.extra.remove((-p.pri, p.created, p.uid, p))
                heapq.heapify(cq.extra)
            else:
                heap = self._group(p).heap
                heap.remove((p.created, p.uid, p))
                heapq.heapify(heap)
            p.where = _NONE
            self.refresh(cq)
            return p
        if cq.extra:
            t = cq.extra[0]
            best, src = (t[0], t[1], t[2]), cq.extra
        for g in cq.groups.values():
            if g.parked or not g.heap:
                continue
            t2 = g.heap[0]
            key = (-g.pri, t2[0], t2[1])
            if best is None or key < best:
                best, src = key, g.heap
        if src is None:
            return None
        w: _W = heapq.heappop(src)[-1]
        w.where = _NONE
        self.refresh(cq)
        return w

    def offer(self, w: _W, now: float) -> None:
        """SC-RQ-1: a queueable workload enters its ClusterQueue's queue."""
        cq = w.cq
        if self.model.scheduling_equivalence_hashing and (w.pri, w.cpu) in cq.failed:
            self.park(w)
        else:
            self.activate(w)
        self.wake(now)

    def notify(self, cq: _CQ, now: float) -> None:
        """SC-IN-2 / SC-IN-3: a requeue run for the cohort, batched."""
        key = cq.cohort.name if cq.cohort is not None else "/" + cq.name
        if key in self.pending_requeue:
            return
        self.pending_requeue.add(key)
        self.push(now + self.model.inadmissible_requeue_delay, _REQUEUE, cq)

    def requeue_run(self, cq: _CQ, now: float) -> None:
        members = cq.cohort.members if cq.cohort is not None else [cq]
        self.pending_requeue.discard(cq.cohort.name if cq.cohort is not None else "/" + cq.name)
        for m in members:  # SC-IN-1
            m.failed.clear()
            for g in m.groups.values():
                g.parked = False
            if m.inadmissible:
                for w in sorted(m.inadmissible.values(), key=lambda x: x.uid):
                    self.activate(w)
                m.inadmissible.clear()
            self.refresh(m)
        self.wake(now)

    def wake(self, now: float) -> None:
        if not self.scheduler_busy and self.ready:
            self.scheduler_busy = True
            self.push(max(now, self.blocked_until), _CYCLE, None)

    # -- quota (Q-9, Q-10 for a flat cohort without lending limits: LQ = 0)

    def available(self, cq: _CQ, su: dict[int, int], sc: dict[str, int]) -> int:
        u = cq.usage + su.get(cq.idx, 0)
        co = cq.cohort
        if co is None:
            return max(0, cq.nominal - u)
        return max(0, min(co.nominal - (co.usage + sc.get(co.name, 0)), cq.nominal + cq.bl - u))

    def potential(self, cq: _CQ) -> int:
        co = cq.cohort
        return cq.nominal if co is None else min(co.nominal, cq.nominal + cq.bl)

    # -- preemption (CL-*, GT-5, FB-2)

    def targets(self, w: _W, cq: _CQ, su: dict[int, int], sc: dict[str, int], excluded: set[_W]) -> list[_W]:
        val = w.cpu
        co = cq.cohort
        same: list[_W] = []
        if cq.within != "Never":
            for c in cq.admitted.values():
                if c in excluded:
                    continue
                if c.pri < w.pri or (cq.within == "LowerOrNewerEqualPriority" and c.pri == w.pri and w.created < c.created):
                    same.append(c)
        others: list[_W] = []
        adv = False
        if co is not None and cq.reclaim != "Never":
            # CL-GEN-3: hierarchical advantage when the request fits the preemptor's nominal.
            adv = cq.nominal >= cq.usage + su.get(cq.idx, 0) + val
            for q in co.members:
                if q is cq or q.usage + su.get(q.idx, 0) <= q.nominal:  # CL-GEN-5: borrowing CQs only
                    continue
                for c in q.admitted.values():
                    if c in excluded:
                        continue
                    if cq.reclaim == "LowerPriority" and not c.pri < w.pri:
                        continue
                    others.append(c)
        if not same and not others:
            return []
        # ORD-1..ORD-6 within each bucket; CL-GEN-7 concatenation.
        def order(c: _W) -> tuple[bool, int, float, int]:
            return (not c.evicted, c.pri, -c.admitted_at, c.uid)

        same.sort(key=order)
        others.sort(key=order)
        cand = [c for c in others if c.evicted] + [c for c in same if c.evicted]
        cand += [c for c in others if not c.evicted] + [c for c in same if not c.evicted]
        # Without hierarchical advantage, cross-CQ candidates are RECLAIM_WITHOUT_BORROWING
        # (borrowWithinCohort unset): usable in the no-borrow attempt only (CL-VAR-1 step 5).
        rwb = not adv
        under = cq.nominal > cq.usage + su.get(cq.idx, 0)
        if not others:
            attempts = [True]
        elif not under:
            attempts = [True]
        elif not adv:  # no hierarchy bucket
            attempts = [False, True]
        else:
            attempts = [True, False]
        for allow in attempts:
            removed: dict[int, int] = {}
            removed_c = 0
            chosen: list[_W] = []

            def fits() -> bool:
                u = cq.usage + su.get(cq.idx, 0) - removed.get(cq.idx, 0)
                if not allow and u + val > cq.nominal:
                    return False
                if co is None:
                    return val <= cq.nominal - u
                cu = co.usage + sc.get(co.name, 0) - removed_c
                return val <= min(co.nominal - cu, cq.nominal + cq.bl - u)

            for c in cand:
                q = c.cq
                if q is not cq:
                    if allow and rwb:
                        continue
                    if q.usage + su.get(q.idx, 0) - removed.get(q.idx, 0) <= q.nominal:
                        continue  # CL-VALID-1: no longer borrowing
                removed[q.idx] = removed.get(q.idx, 0) + c.cpu
                removed_c += c.cpu
                chosen.append(c)
                if fits():
                    # FB-2: fill back, the last target is never reconsidered.
                    i = len(chosen) - 2
                    while i >= 0:
                        t = chosen[i]
                        removed[t.cq.idx] -= t.cpu
                        removed_c -= t.cpu
                        if fits():
                            chosen[i] = chosen[-1]
                            chosen.pop()
                        else:
                            removed[t.cq.idx] += t.cpu
                            removed_c += t.cpu
                        i -= 1
                    return chosen
        return []

    # -- one cycle

    def nominate(self, w: _W, cq: _CQ) -> _Entry:
        e = _Entry(w, cq)
        val = w.cpu
        su: dict[int, int] = {}
        sc: dict[str, int] = {}
        if val > self.potential(cq):
            e.mode, e.reason, e.needed = _NOFIT, "ExceedsMaxQuota", val
            return e
        avail = self.available(cq, su, sc)
        borrowing = cq.usage + val > cq.nominal
        if val <= avail:
            e.mode, e.borrow = _FIT, 1 if borrowing else 0
            return e
        e.needed = val - avail
        if cq.nominal >= val or (not borrowing and cq.cohort is not None):  # FAS-6, Q-16
            e.targets = self.targets(w, cq, su, sc, set())
            e.mode = _PREEMPT
            if e.targets:
                freed = sum(t.cpu for t in e.targets if t.cq is cq)
                e.borrow = 1 if cq.usage - freed + val > cq.nominal else 0
            else:
                e.borrow = 1 if borrowing else 0
            return e
        e.mode, e.reason = _NOFIT, "WaitingForQuota"
        return e

    def cycle(self, now: float) -> None:
        self.cycles += 1
        heads: list[_Entry] = []
        for idx in sorted(self.ready):
            cq = self.cqs[idx]
            w = self.pop_head(cq)
            if w is not None:
                heads.append(self.nominate(w, cq))
        # SC-ORD-1 (stable over head order): borrowing level, priority, queue-order time.
        entries = sorted(heads, key=lambda e: (e.borrow, -e.w.pri, e.w.created))
        su: dict[int, int] = {}
        sc: dict[str, int] = {}
        preempted: set[_W] = set()
        sync_done = now + self.model.cycle_seconds
        changed = False
        outcomes: list[tuple[_Entry, str, object]] = []  # (entry, requeue reason, status message key)
        for e in entries:
            w, cq, val = e.w, e.cq, e.w.cpu
            co = cq.cohort
            if e.mode == _NOFIT:
                outcomes.append((e, "NoFit", (e.reason, e.needed)))
                continue
            if e.mode == _PREEMPT and not e.targets:
                if cq.reclaim != "Any":  # SC-PE-2: capacity reservation
                    u = cq.usage + su.get(cq.idx, 0)
                    if e.borrow > 0:
                        add = min(val, cq.nominal + cq.bl - u)
                    else:
                        add = max(0, min(val, cq.nominal - u))
                    self.add_usage(cq, add, su, sc)
                outcomes.append((e, "PreemptionNoCandidates", ("WaitingForQuota", e.needed)))
                continue
            deferred = False
            if e.targets and preempted.intersection(e.targets):
                # SC-PE-3: recompute without the workloads already claimed in this cycle.
                psu, psc = _without(su, sc, preempted)
                if val <= self.available(cq, psu, psc):
                    deferred = True
                    e.targets = []
                else:
                    e.targets = self.targets(w, cq, psu, psc, preempted)
                    if not e.targets:
                        outcomes.append((e, "PreemptionNoCandidates", ("WaitingForQuota", e.needed)))
                        continue
            if deferred:
                self.add_usage(cq, val, su, sc)
                outcomes.append((e, "PendingPreemption", ("DeferredFit",)))
                continue
            # SC-PE-1: fits with the usage of P ∪ T removed (each victim once).
            gone = preempted.union(e.targets)
            rsu, rsc = _without(su, sc, gone)
            if val > self.available(cq, rsu, rsc):
                outcomes.append((e, "FailedAfterNomination", ("Skipped",)))
                continue
            preempted |= gone
            changed = True
            if e.targets:
                self.add_usage(cq, val, su, sc)  # an admission charges the cache itself (admit)
                n = 0
                for t in e.targets:
                    n += 1
                    if t.evicted:
                        continue  # SC-PR-1: counted, no write
                    t.evicted = True
                    t.epoch += 1  # cancels its completion
                    # CL-VAR-2: without borrowWithinCohort a cross-CQ victim is never
                    # RECLAIM_WHILE_BORROWING.
                    reason = "InClusterQueue" if t.cq is cq else "InCohortReclamation"
                    self.timeline.append(Preempted(now, t.key, t.cq.name, w.key, reason, "", w.pri, t.pri))
                    done = self.write("eviction", now)
                    sync_done = max(sync_done, done)
                    self.push(done, _RELEASE, t)
                outcomes.append((e, "PendingPreemption", ("Preempting", n)))
                continue
            self.admit(w, cq, now)
        # SC-CY-7 / SC-RQ-5 and the pending-status writes of SC-MSG-3.
        hashing = self.model.scheduling_equivalence_hashing
        for e, reason, msg in outcomes:
            w, cq = e.w, e.cq
            if reason in ("PendingPreemption", "FailedAfterNomination"):
                if reason == "PendingPreemption":
                    cq.preemptor = w
                self.activate(w)
            else:
                if hashing:  # SC-RQ-8
                    self.park_shape(cq, (w.pri, w.cpu))
                self.park(w)
                changed = True
                self.timeline.append(Inadmissible(now, w.key, cq.name, reason))
            if msg != w.msg:
                w.msg = msg
                if not self.ideal:
                    sync_done = max(sync_done, self.write("pendingStatus", now))
        if now == self.instant_time:
            self.instant_cycles += 1
        else:
            self.instant_time, self.instant_cycles = now, 1
        if changed and self.instant_cycles > 100 and self.instant_cycles > 10 * self.pending() + 10:
            # SC-SIM-13 item 5: the per-instant cycle cap; report and move on.
            self.timeline.append(Livelock(now, self.instant_cycles, ()))
            changed = False
        # The scheduler is busy until the cycle's own writes completed (decision (kp-a)).
        self.blocked_until = sync_done
        if changed and self.ready:
            self.push(sync_done, _CYCLE, None)
        else:
            # Nothing changed: the next cycle would be identical; wait for an event (SC-T-3).
            self.scheduler_busy = False

    def pending(self) -> int:
        return sum(len(cq.extra) + len(cq.inadmissible) + sum(len(g.heap) for g in cq.groups.values()) for cq in self.cqs)

    def add_usage(self, cq: _CQ, v: int, su: dict[int, int], sc: dict[str, int]) -> None:
        su[cq.idx] = su.get(cq.idx, 0) + v
        if cq.cohort is not None:
            sc[cq.cohort.name] = sc.get(cq.cohort.name, 0) + v

    def charge(self, cq: _CQ, v: int) -> None:
        cq.usage += v
        if cq.cohort is not None:
            cq.cohort.usage += v

    def admit(self, w: _W, cq: _CQ, now: float) -> None:
        """SC-AD-1: assume, then write in the background."""
        self.charge(cq, w.cpu)
        w.where = _ADMITTED
        w.admitted_at = now
        w.epoch += 1
        w.msg = None
        cq.admitted[w.uid] = w
        if cq.preemptor is w:
            cq.preemptor = None
        self.timeline.append(
            Admitted(now, w.key, cq.name, (AdmittedPodSet("main", 1, {"cpu": self.flavor}),), {FlavorResource(self.flavor, "cpu"): w.cpu})
        )
        self.changed(cq, now)
        done = now if self.ideal else self.write("admission", now)
        self.push(done, _ADMIT_SEEN, _Ticket(w, w.epoch))

    # -- events

    def apply(self, kind: int, payload: object, now: float) -> None:
        if kind == _ARRIVE:
            assert isinstance(payload, _W)
            w = payload
            self.timeline.append(Arrived(now, w.key, w.cq.name))
            self.offer(w, now)
            self.changed(w.cq, now)
        elif kind == _ADMIT_SEEN:
            assert isinstance(payload, _Ticket)
            w, epoch = payload.w, payload.epoch
            if w.epoch == epoch and w.where == _ADMITTED:
                self.seen.append((w.key, now))
                self.push(now + w.runtime + self.latency, _FINISH, _Ticket(w, epoch))
        elif kind == _FINISH:
            assert isinstance(payload, _Ticket)
            w, epoch = payload.w, payload.epoch
            if w.epoch != epoch or w.where != _ADMITTED or w.evicted:
                return
            cq = w.cq
            self.charge(cq, -w.cpu)
            del cq.admitted[w.uid]
            w.where = _DONE
            self.timeline.append(Finished(now, w.key, cq.name))
            self.notify(cq, now)
            self.changed(cq, now)
        elif kind == _RELEASE:
            assert isinstance(payload, _W)
            w = payload
            cq = w.cq
            self.charge(cq, -w.cpu)
            del cq.admitted[w.uid]
            w.evicted = False
            w.where = _NONE
            self.timeline.append(Released(now, w.key, cq.name))
            self.timeline.append(Requeued(now, w.key, cq.name, "Preempted"))
            if not self.ideal:
                self.push(self.write("requeued", now), _BACKGROUND, None)
            # SC-EV-3: back to the active set, creation time kept. Like the generic simulator
            # (release_evicted), a released victim enters the active set even when its shape
            # is parked: the release's own notify clears the failed shapes first.
            self.activate(w)
            self.wake(now)
            self.notify(cq, now)
            self.changed(cq, now)
        elif kind == _REQUEUE:
            assert isinstance(payload, _CQ)
            self.requeue_run(payload, now)
        elif kind == _STATUS:
            assert isinstance(payload, str)
            self.status_next(payload, now)
        elif kind == _CYCLE:
            self.cycle(now)

    def run(self) -> PerfResult:
        until = self.model.until
        end = 0.0
        heap = self.heap
        last_progress = -1.0
        while heap:
            t, kind, _, payload = heapq.heappop(heap)
            if until is not None and t > until:
                break
            if kind == _BACKGROUND:
                continue
            if kind == _CYCLE:
                self.scheduler_busy = False
                if not self.ready:
                    continue
                self.scheduler_busy = True
            self.apply(kind, payload, t)
            if kind != _STATUS:
                end = t
            if self.progress is not None and t - last_progress >= 1.0:
                last_progress = t
                self.progress(t)
        stats = ApiStats(self.bucket.requests, self.bucket.delayed, self.bucket.total_delay, tuple(sorted(self.kinds.items())))
        return PerfResult(tuple(self.timeline), end, self.cycles, stats, tuple(self.seen))


def simulate_scenario(
    built: BuiltScenario,
    model: PerfModel = PerfModel(),
    *,
    progress: Callable[[float], None] | None = None,
) -> PerfResult:
    """Simulate Kueue's runner on ``built`` (from :func:`~kueue_preempt.sim.scenario.build_scenario`).

    Deterministic: the same inputs give the same timeline.
    """
    return _Sim(built, model, progress).run()

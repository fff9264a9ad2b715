"""One Kueue scheduling cycle as a pure function (SC-CY-*, SC-NOM-*, SC-PE-*, SC-AD-*, SC-PR-*).

:func:`schedule_cycle` takes the cluster, the queue memory and the time, and returns what the
cycle did — per head: admitted, preempting, waiting, skipped or rejected, with the conditions,
events and metrics Kueue writes — together with the cluster and queue state after it. Nothing
passed in is mutated; the only mutable object is the cycle-local quota snapshot (SC-CY-6).
"""

from __future__ import annotations

import heapq
import random
from datetime import datetime
from typing import Hashable, Iterable, Mapping

import attrs

from kueue_preempt._util.checks import arg, optional_arg, time_arg
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt._util.memo import IdentityMemo
from kueue_preempt.model.time import ZERO_TIME, micros
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.flavors import PodSetSpec, ResourceFlavor
from kueue_preempt.model import (
    ClusterQueue,
    Condition,
    EvictionStat,
    FlavorResource,
    PodSetUsage,
    PreemptionPolicy,
    Target,
    Workload,
)
from kueue_preempt.cycle.queueing import queue_order_key
from kueue_preempt.model.priority import effective_priority, priority_info
from kueue_preempt.model.quantity import amount_mul
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.cycle.cluster import (
    ClusterState,
    QueueingStrategy,
    StopPolicy,
    WorkloadStatus,
    cyclic_cohorts,
    finished,
    holds_quota,
)
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.entry import Entry, Mode, Nomination, Outcome
from kueue_preempt.cycle.nominate import NominationMemo, nominate
from kueue_preempt.cycle.order import classic_entry_order
from kueue_preempt.cycle.queues import ClusterQueueQueue, PreemptorMarker, QueueState, ScanProgress
from kueue_preempt.model.workload_writes import with_admission, with_status
from kueue_preempt.cycle.selectors import selects
from kueue_preempt.cycle.shapes import ShapeTable
from kueue_preempt.cycle.status import (
    MSG_DEFERRED_FIT,
    MSG_NO_LONGER_FITS,
    MSG_OVERLAPPING,
    Event,
    RequeueReason,
    set_condition,
    truncate_condition_message,
    truncate_event_message,
    wait_seconds,
)
from kueue_preempt.cycle.tournament import fair_pop
from kueue_preempt.cycle.validation import resources_violation

__all__ = [
    "HeadResult",
    "CycleResult",
    "schedule_cycle",
    "initial_queue_state",
    "shape_hash",
    "queue_of",
]
# CycleMemo, ClusterIndex, CycleBookkeeping, queue_in, is_charged, cycle_snapshot and
# process_heads are the cycle's machinery that the incremental state (cycle/incremental.py)
# runs too: public names so that it uses them as an interface, but not exported from
# kueue_preempt.cycle (not part of the library's API).

_NO_STATUS = WorkloadStatus()
_INTERN_LIMIT = 65536  # distinct SC-RQ-8 shapes kept interned per state (see ShapeTable.trim)

_IMMEDIATE = {
    QueueingStrategy.STRICT_FIFO: frozenset(r for r in RequeueReason if r is not RequeueReason.NAMESPACE_MISMATCH),
    QueueingStrategy.BEST_EFFORT_FIFO: frozenset(
        {RequeueReason.FAILED_AFTER_NOMINATION, RequeueReason.PENDING_PREEMPTION, RequeueReason.PREEMPTION_FAILED}
    ),
}


@attrs.frozen
class HeadResult:
    """What the cycle did with one head, and why.

    ``queue`` is where the workload waits afterwards: ``"active"``, ``"inadmissible"``, or
    ``None`` (admitted, or dropped because it is no longer queueable). ``reason``/``message``
    are the ``QuotaReserved=False`` condition written for a pending head (SC-MSG-1), empty for
    an admitted one. ``admission`` holds the pod-set assignments of an admitted head (SC-AD-1).
    """

    key: str
    cluster_queue: str
    outcome: Outcome
    requeue_reason: RequeueReason | None
    queue: str | None
    reason: str
    message: str
    mode: Mode | None
    borrowing: int
    admission: tuple[PodSetUsage, ...] | None
    targets: tuple[Target, ...]


def _frozen_counts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


def _frozen_recomputations(value: Mapping[tuple[str, str], int]) -> FrozenMap[tuple[str, str], int]:
    return frozen_map(value)


@attrs.frozen
class CycleResult:
    """The outcome of one cycle and the state after it.

    ``heads`` are in head order (SC-CY-2); ``results`` in processing order, rejected heads
    last (SC-CY-5). ``skipped_preemptions`` holds the gauge values this cycle wrote
    (SC-MET-2: only ClusterQueues with a skip); ``recomputations`` counts SC-MET-1 by
    ``(cluster_queue, result)``; ``attempt`` is SC-MET-3's label, ``None`` when the cycle had
    no head (it then did not run at all, SC-CY-1).
    """

    cycle: int
    now: datetime
    heads: tuple[str, ...]
    results: tuple[HeadResult, ...]
    events: tuple[Event, ...]
    skipped_preemptions: FrozenMap[str, int] = attrs.field(converter=_frozen_counts)
    recomputations: FrozenMap[tuple[str, str], int] = attrs.field(converter=_frozen_recomputations)
    attempt: str | None
    cluster: ClusterState
    queues: QueueState
    changed: frozenset[str]
    """Keys of the workloads whose object the cycle changed."""

    @property
    def admitted(self) -> tuple[str, ...]:
        return tuple(r.key for r in self.results if r.outcome is Outcome.ADMITTED)

    @property
    def preempted(self) -> tuple[Target, ...]:
        return tuple(t for r in self.results for t in r.targets if r.outcome is Outcome.PREEMPTING)

    def result(self, key: str) -> HeadResult | None:
        for r in self.results:
            if r.key == key:
                return r
        return None


# ----------------------------------------------------------------------------- cluster lookups


class ClusterIndex:
    """Read-only indexes over a :class:`ClusterState` (built once per cycle).

    The incremental :class:`~kueue_preempt.cycle.incremental.CycleState` builds one for the
    static objects only and hands in its own live ``workloads``/``statuses`` dicts, so that
    nothing proportional to the number of workloads is rebuilt per cycle.
    """

    def __init__(
        self,
        cluster: ClusterState,
        *,
        workloads: dict[str, Workload] | None = None,
        statuses: Mapping[str, WorkloadStatus] | None = None,
    ) -> None:
        self.state = cluster
        if workloads is None:
            workloads = {}
            for w in cluster.workloads:
                if w.key in workloads:
                    raise InvalidModel(f"Workload {w.key}", "name", "duplicate workload key")
                workloads[w.key] = w
        self.workloads: dict[str, Workload] = workloads
        self.statuses: Mapping[str, WorkloadStatus] = cluster.statuses if statuses is None else statuses
        self._gives: dict[str, bool] = {}
        self._selected: dict[tuple[str, str], bool | None] = {}
        self.cqs: dict[str, ClusterQueue] = {cq.name: cq for cq in cluster.cluster_queues}
        self.lqs = {lq.key: lq for lq in cluster.local_queues}
        self.namespaces = {ns.name: ns for ns in cluster.namespaces}
        if cluster.flavors:
            self.flavors: dict[str, ResourceFlavor] = {f.name: f for f in cluster.flavors}
        else:  # flavors not modelled: every flavor a ClusterQueue names exists
            names = {fr.flavor for cq in cluster.cluster_queues for fr in cq.quotas}
            names |= {f.name for cq in cluster.cluster_queues for g in cq.resource_groups for f in g.flavors}
            self.flavors = {n: ResourceFlavor(n) for n in sorted(names)}
        self.cyclic = cyclic_cohorts(cluster.cohorts)

    def status(self, key: str) -> WorkloadStatus:
        return self.statuses.get(key) or _NO_STATUS

    def namespace_labels(self, name: str) -> Mapping[str, str] | None:
        if not self.state.namespaces:
            return {}
        ns = self.namespaces.get(name)
        return None if ns is None else ns.labels

    def namespace_selected(self, namespace: str, cq: str) -> bool | None:
        """SC-NOM-1: ``None`` if the namespace does not exist, else whether ``cq``'s selector
        selects it. Namespaces and selectors are fixed for the life of this object: cached."""
        key = (namespace, cq)
        try:
            return self._selected[key]
        except KeyError:
            pass
        labels = self.namespace_labels(namespace)
        found = None if labels is None else selects(self.state.settings(cq).namespace_selector, labels)
        self._selected[key] = found
        return found

    def gives_heads(self, cq: str) -> bool:
        """SC-ST-4: stopPolicy None and every flavor it names exists."""
        known = self._gives.get(cq)
        if known is None:
            known = self._gives[cq] = self._compute_gives_heads(cq)
        return known

    def _compute_gives_heads(self, cq: str) -> bool:
        spec = self.cqs.get(cq)
        if spec is None or self.state.settings(cq).stop_policy is not StopPolicy.NONE:
            return False
        flavors = {fr.flavor for fr in spec.quotas} | {f.name for g in spec.resource_groups for f in g.flavors}
        return flavors <= self.flavors.keys()

    def in_cohort_cycle(self, cq: str) -> bool:
        spec = self.cqs.get(cq)
        return spec is not None and spec.cohort is not None and spec.cohort in self.cyclic


def queue_of(cluster: ClusterState, workload: Workload) -> str | None:
    """SC-ST-1: the ClusterQueue a pending workload is queued in, via its LocalQueue."""
    return queue_in(ClusterIndex(cluster), workload)


def queue_in(c: ClusterIndex, w: Workload) -> str | None:
    """SC-ST-1 (:func:`queue_of`) over an index already built."""
    if not w.local_queue:
        return None
    lq = c.lqs.get(f"{w.namespace}/{w.local_queue}")
    if lq is None or lq.stop_policy is not StopPolicy.NONE or lq.cluster_queue not in c.cqs:
        return None
    return lq.cluster_queue


def is_charged(c: ClusterIndex, w: Workload) -> bool:
    """SC-ST-6 / DM-7 (:func:`~kueue_preempt.cycle.cluster.holds_quota`) with the index's statuses."""
    return holds_quota(w, c.status(w.key))


def _queueable(c: ClusterIndex, w: Workload) -> bool:
    """SC-ST-2 (the parts the model carries): not charged, active, not finished."""
    if w.cluster_queue:
        return False
    return c.status(w.key).active and not finished(w)


def shape_hash(workload: Workload, config: CycleConfig) -> Hashable:
    """SC-RQ-8 [D]: EP and, per pod set, everything that makes two workloads schedule alike."""
    return (
        effective_priority(workload, boost_enabled=config.preemption.priority_boost),
        tuple(
            (
                ps.name,
                ps.count,
                ps.requests,
                ps.min_count,
                ps.node_selector,
                ps.required_node_affinity,
                ps.tolerations,
                ps.pod_set_group,
                ps.topology_request,
            )
            for ps in workload.spec_pod_sets
        ),
    )


def initial_queue_state(cluster: ClusterState, config: CycleConfig = CycleConfig()) -> QueueState:
    """The queue memory right after Kueue starts (SC-ST-1): every queueable pending workload
    in its ClusterQueue's active set, no scan progress, no failed hashes.

    A pending workload whose ``QuotaReserved=False`` condition has reason
    ``WaitingForPreemptedWorkloads`` is waiting for its victims: it becomes its ClusterQueue's
    preemptor marker (SC-RQ-6; the latest such condition wins, then the smaller key).
    """
    c = ClusterIndex(cluster)
    active: dict[str, set[str]] = {}
    waiting: dict[str, tuple[int, str]] = {}
    for w in cluster.workloads:
        if not _queueable(c, w):
            continue
        cq = queue_in(c, w)
        if cq is None:
            continue
        active.setdefault(cq, set()).add(w.key)
        qr = w.condition("QuotaReserved")
        if qr is not None and not qr.is_true and qr.reason == "WaitingForPreemptedWorkloads":
            at = -micros(qr.last_transition_time or ZERO_TIME)
            if cq not in waiting or (at, w.key) < waiting[cq]:
                waiting[cq] = (at, w.key)
    queues: dict[str, ClusterQueueQueue] = {}
    for cq, keys in active.items():
        marker = None
        if cq in waiting:
            key = waiting[cq][1]
            sticky = cluster.settings(cq).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO
            marker = PreemptorMarker(key, cluster.status(key).generation, sticky)
        queues[cq] = ClusterQueueQueue(active=keys, preemptor=marker)
    return QueueState(queues=queues)


# ----------------------------------------------------------------------------- the cycle


def cycle_snapshot(c: ClusterIndex, config: CycleConfig) -> Snapshot:
    """SC-ST-6: every ClusterQueue outside a cohort cycle, with its charged workloads.

    Stopped ClusterQueues and those naming a missing flavor stay in the snapshot: their quota
    and usage still count at cohort level (SC-ST-5); they only give no heads.
    """
    # Every nomination asks get_targets (and the FA-6 oracle, once per flavor-resource) for
    # candidates; the sorted candidate index answers those without sorting every workload of
    # the tree each time. The cycle only adds usage (never workloads) outside what-if blocks,
    # so the index stays current; a block that removes victims hides them from it (Snapshot._hidden).
    return c.state.snapshot(
        charged=[w for w in c.workloads.values() if w.cluster_queue and is_charged(c, w)],
        skip_cohort_cycles=True,
        resource_groups=True,
        index=config.preemption,
    )


def _outdated(progress: ScanProgress, shape: Hashable, cycle: int, generation: int, config: CycleConfig) -> bool:
    """SC-FR-3."""
    if config.preserve_scan_progress:
        if progress.shape is not None and shape is not None and progress.shape != shape:
            return True
        if cycle - progress.cycle <= 1:
            return False
    return generation > progress.generation


class CycleMemo:
    """The memo tables of a scheduling run, owned by whoever owns the run.

    :class:`~kueue_preempt.cycle.incremental.CycleState` keeps one for its whole life (every
    cycle it runs shares it); :func:`schedule_cycle` builds one per call. Each table holds
    values that are pure functions of immutable keys, so sharing them changes no result:

    * ``nomination`` — the :class:`~kueue_preempt.cycle.nominate.NominationMemo` every
      nomination of the run is given (the assigner's gates, shared ``Assignment`` and
      ``PodSetUsage`` values, the FAS-19 resource order);
    * ``resource_requests`` — SC-MSG-3's ``status.resourceRequests`` per pod-set tuple: every
      pending write asks for the requests of its head, and a run's workloads share a few spec
      tuples (arrivals reuse them). Keyed by the (frozen, immutable) tuple's identity.
    """

    __slots__ = ("config", "nomination", "resource_requests")

    def __init__(self, config: CycleConfig) -> None:
        self.config = config
        self.nomination = NominationMemo(config)
        self.resource_requests: IdentityMemo[tuple[PodSetSpec, ...], tuple[tuple[str, FrozenMap[str, int]], ...]] = (
            IdentityMemo(_requests_of, 4096)
        )


class CycleBookkeeping:
    """The mutable bookkeeping of one cycle (SC-CY-6).

    :func:`schedule_cycle` hands it private copies of the queue memory and the workloads,
    discarded when the cycle ends; the incremental
    :class:`~kueue_preempt.cycle.incremental.CycleState` hands it its own live dicts, which
    the cycle then updates in place (``workloads`` may then be ``c.workloads`` itself: every
    read of the pre-cycle objects happens in :meth:`pop_heads`, before any write).
    """

    def __init__(
        self,
        c: ClusterIndex,
        *,
        qmap: dict[str, ClusterQueueQueue],
        progress: dict[str, ScanProgress],
        workloads: dict[str, Workload],
        statuses: dict[str, WorkloadStatus],
        generations: dict[str, int],
        number: int,
        config: CycleConfig,
        now: datetime,
        order_keys: dict[str, tuple[int, int, str, str]] | None = None,
        shapes: ShapeTable | None = None,
        active_queues: Iterable[str] | None = None,
        heaps: dict[str, tuple[frozenset[str], list[tuple[int, int, str, str]]]] | None = None,
        memo: CycleMemo | None = None,
    ) -> None:
        self.c = c
        # The run's memo tables (see CycleMemo): the caller's when it keeps them across
        # cycles, else this cycle's own.
        self.memo = memo if memo is not None and memo.config is config else CycleMemo(config)
        # Per ClusterQueue, a heap of order keys for its active set (see _heap_head), when
        # the caller keeps them across cycles (the incremental state); None: plain minimum.
        self.heaps = heaps
        # The ClusterQueues whose active set is not empty, when the caller keeps that set (the
        # incremental state does): heads are then looked for there, not in every queue entry.
        self.active_queues = active_queues
        self.config = config
        self.now = now
        self.number = number
        self.qmap = qmap
        self.progress = progress
        self.workloads = workloads
        self.statuses = statuses
        self.generations = generations
        self.order_keys: dict[str, tuple[int, int, str, str]] = {} if order_keys is None else order_keys
        # SC-RQ-8's shape per key, one interned object per value, with the keys of each shape
        # (the bulk move intersects them with the active set): the caller's when it keeps
        # them across cycles. Bounded, trimmed only between cycles (here).
        self.shapes: ShapeTable = ShapeTable() if shapes is None else shapes
        self.shapes.trim(_INTERN_LIMIT)
        self.before_queues: dict[str, ClusterQueueQueue] = {}
        self.changed: set[str] = set()
        self.events: list[Event] = []
        self.skips: dict[str, int] = {}
        self.recomputations: dict[tuple[str, str], int] = {}
        self.preempted: dict[str, Workload] = {}  # P, by key
        # P again, grouped by the root of the victim's quota tree: a fit check only removes
        # the victims of its own tree, and a cycle over many cohorts must not scan all of P
        # for every head.
        self.preempted_by_root: dict[int, dict[str, Workload]] = {}
        self.bumped: set[str] = set()

    # ------------------------------------------------------------------ heads and nomination

    def pop_heads(self) -> list[Entry]:
        heads: list[Entry] = []
        known = self.c.workloads
        names = self.qmap if self.active_queues is None else self.active_queues
        for name in sorted(names):  # [D] CQ-name order (SC-CY-2)
            q = self.qmap[name]
            if not q.active or not self.c.gives_heads(name):
                continue
            head = self._head(q, name)
            if head is None:
                continue
            self.before_queues[name] = q
            popped = q.with_sets(q.active - {head}, q.inadmissible)
            self.qmap[name] = popped
            heaps = self.heaps
            if heaps is not None:
                cached = heaps.get(name)
                if cached is not None and cached[0] is q.active:
                    heap = cached[1]
                    if heap and heap[0][3] == head:
                        heapq.heappop(heap)
                    heaps[name] = (popped.active, heap)  # a superset of the keys stays valid
            marker = q.preemptor
            w = known[head]
            is_preemptor = (
                marker is not None
                and marker.key == head
                and marker.generation == self.c.status(head).generation
            )
            heads.append(Entry(workload=w, cluster_queue=name, is_preemptor=is_preemptor))
        seed = self.config.head_order_seed
        if seed is not None:
            # Kueue's map order: a fresh random order every cycle, reproducible per (seed, cycle).
            random.Random(f"{seed}/{self.number}").shuffle(heads)
        return heads

    def _head(self, q: ClusterQueueQueue, name: str) -> str | None:
        """SC-QO-1: a sticky preemptor marker first, then the least
        :func:`~kueue_preempt.cycle.queueing.queue_order_key`."""
        known = self.c.workloads
        marker = q.preemptor
        if marker is not None and marker.sticky and marker.key in q.active and marker.key in known:
            return marker.key
        if self.heaps is not None:
            return self._heap_head(q.active, name)
        keys = self.order_keys
        try:  # every key cached: the common case, one C-level pass
            return min(map(keys.__getitem__, q.active))[3] if q.active else None
        except KeyError:
            pass
        best = min(filter(None, map(self._order_key_of, q.active)), default=None)
        return None if best is None else best[3]

    def _order_key_of(self, key: str) -> tuple[int, int, str, str] | None:
        ok = self.order_keys.get(key)
        if ok is None:
            w = self.c.workloads.get(key)
            if w is None:
                return None
            ok = self.order_keys[key] = queue_order_key(w, self.config.preemption)
        return ok

    def _heap_head(self, active: frozenset[str], name: str) -> str | None:
        """The least SC-QO-1 key of ``active`` from the queue's heap of order keys.

        The heap is kept across cycles for the active *set object* it was last checked
        against (``heaps[name] = (set, heap)``): it holds the current order key of every key
        of that set, and possibly keys that left it since (skipped here, lazily). Whoever
        derives a new set keeps the pair only when that stays true (pop_heads, requeue, the
        bulk move, arrivals); any other new set misses and the heap is rebuilt, O(n) as the
        plain minimum. A write that changes a key's order key drops its queue's heap.
        """
        assert self.heaps is not None
        cached = self.heaps.get(name)
        if cached is not None and cached[0] is active:
            heap = cached[1]
        else:
            found: list[tuple[int, int, str, str] | None] = list(map(self.order_keys.get, active))  # one C pass
            if None not in found:
                heap = found  # type: ignore[assignment]  # no None in it, tested just above
            else:
                # Some keys are not cached yet (a released victim's new order key, say): only
                # those are computed; a key whose workload is gone has none and is left out.
                of = self._order_key_of
                heap = [ok for ok in (o if o is not None else of(k) for o, k in zip(found, active)) if ok is not None]
            heapq.heapify(heap)
        keys = self.order_keys
        while heap:
            top = heap[0]
            k = top[3]
            if k not in active:
                heapq.heappop(heap)  # left the set since it was pushed
                continue
            current = keys.get(k)
            if current is not top and current != top:
                # Defensive: an order key that changed without its heap being dropped.
                fresh = self._order_key_of(k)
                if fresh is None:
                    heapq.heappop(heap)
                else:
                    heapq.heapreplace(heap, fresh)
                continue
            self.heaps[name] = (active, heap)
            return k
        self.heaps[name] = (active, heap)
        return None

    def keep_heap(self, name: str, before: frozenset[str], after: frozenset[str], added: str | None = None) -> None:
        """``after`` was derived from ``before`` by removals, or by adding ``added``: move the
        queue's heap (if it was valid for ``before``) to ``after``."""
        heaps = self.heaps
        if heaps is None or before is after:
            return
        cached = heaps.get(name)
        if cached is None or cached[0] is not before:
            return
        if added is not None:
            ok = self._order_key_of(added)
            if ok is None:
                del heaps[name]
                return
            heapq.heappush(cached[1], ok)
        heaps[name] = (after, cached[1])

    def check(self, e: Entry, snapshot: Snapshot) -> bool:
        """SC-NOM-1: first failing check wins; a failing head is an inadmissible entry."""
        w, cq = e.workload, e.cluster_queue
        if self.c.in_cohort_cycle(cq) or not snapshot.has_cluster_queue(cq):
            return self._reject(e, "Suspended", f"ClusterQueue {cq} is inactive")
        selected = self.c.namespace_selected(w.namespace, cq)
        if selected is None:
            return self._reject(
                e,
                "Misconfigured",
                f'workload namespace "{w.namespace}" does not exist: namespaces "{w.namespace}" not found',
            )
        if not selected:
            e.requeue_reason = RequeueReason.NAMESPACE_MISMATCH
            return self._reject(e, "Misconfigured", "workload namespace doesn't match ClusterQueue selector")
        msg = resources_violation(self.c.state, w, self.c.status(w.key))
        if msg is not None:
            return self._reject(e, "Misconfigured", msg)
        return True

    def _reject(self, e: Entry, reason: str, message: str) -> bool:
        e.outcome = Outcome.REJECTED
        e.reason, e.message = reason, message
        # Progress kept from an earlier cycle survives a rejection (SC-NOM-3, SC-RQ-5(b)).
        e.progress = self.progress.get(e.key)
        return False

    def nominate(self, e: Entry, snapshot: Snapshot) -> None:
        """SC-NOM-2, resuming the scan from a progress that is not outdated (SC-FR-3)."""
        # Cached per key (and interned): the head is the current object of its key until the
        # cycle processes it, so this is shape_hash(e.workload) without recomputing it.
        shape = self._shape(e.key)
        progress = self.progress.get(e.key)
        generation = self.generations.get(e.cluster_queue, 0)
        if progress is not None and _outdated(progress, shape, self.number, generation, self.config):
            progress = None
        nom = nominate(
            e.workload,
            e.cluster_queue,
            snapshot,
            self.c.flavors,
            self.config,
            self.now,
            progress=progress,
            generation=generation,
            cycle=self.number,
            shape=shape,
            memo=self.memo.nomination,
        )
        e.nomination = nom
        e.progress = nom.progress
        e.message = nom.message

    # ------------------------------------------------------------------ processing (SC-PE-*)

    def _fits(self, snapshot: Snapshot, cq: str, usage: Mapping[FlavorResource, int], targets: Iterable[Target]) -> bool:
        """Q-14 on the snapshot with the usage of P ∪ T removed, each victim once (SC-PE-1)."""
        node = snapshot.cluster_queue(cq)
        # Removing workloads only lowers usages, and every headroom is non-increasing
        # in usage: what fits with nothing removed fits with P ∪ T removed.
        if snapshot.fits(node, usage, allow_borrowing=True):
            return True
        root = node.root
        victims = dict(self.preempted_by_root.get(id(root), {}))
        for t in targets:
            victims.setdefault(t.workload.key, t.workload)
        with snapshot.preserved():
            for w in victims.values():
                # Only victims of the same quota tree change what is available to ``cq``.
                if not snapshot.has_cluster_queue(w.cluster_queue):
                    continue
                vq = snapshot.cluster_queue(w.cluster_queue)
                if vq.root is root and w.key in vq.workloads:
                    snapshot.remove_workload(w)
            return snapshot.fits(node, usage, allow_borrowing=True)

    def _overlaps(self, targets: Iterable[Target]) -> bool:
        return any(t.workload.key in self.preempted for t in targets)

    def process(self, e: Entry, snapshot: Snapshot) -> None:
        nom = e.nomination
        assert nom is not None
        cq = e.cluster_queue
        if self.config.recompute_on_targets_overlap and self._overlaps(nom.targets):
            nom = self._recompute(e, nom, snapshot)
            e.nomination = nom
        if nom.mode is Mode.NO_FIT:
            self._pending(e, RequeueReason.NO_FIT, Outcome.NO_FIT, nom.no_fit_reason, nom.message)
            return
        if nom.mode is Mode.PREEMPT and not nom.targets:
            self._pending(e, RequeueReason.PREEMPTION_NO_CANDIDATES, Outcome.NO_CANDIDATES, "WaitingForQuota", nom.message)
            self._reserve(e, nom, snapshot)
            return
        if nom.mode is Mode.DEFERRED_FIT:
            self._pending(e, RequeueReason.PENDING_PREEMPTION, Outcome.DEFERRED_FIT, "WaitingForPreemptedWorkloads", MSG_DEFERRED_FIT)
            e.progress = None
            snapshot.add_usage(snapshot.cluster_queue(cq), nom.usage)
            return
        if self._overlaps(nom.targets):
            self._skip(e, MSG_OVERLAPPING)
            self.skips[cq] = self.skips.get(cq, 0) + 1
            return
        # Checked only here: the what-if removal of P ∪ T is the costliest step of processing
        # and has no effect on the branches above (the snapshot is restored, SC-PE-1).
        if not self._fits(snapshot, cq, nom.usage, nom.targets):
            self._skip(e, MSG_NO_LONGER_FITS)
            if nom.mode is Mode.PREEMPT:
                self.skips[cq] = self.skips.get(cq, 0) + 1
            return
        for t in nom.targets:
            self.preempted[t.workload.key] = t.workload
            if snapshot.has_cluster_queue(t.workload.cluster_queue):
                victim_root = snapshot.cluster_queue(t.workload.cluster_queue).root
                self.preempted_by_root.setdefault(id(victim_root), {})[t.workload.key] = t.workload
        snapshot.add_usage(snapshot.cluster_queue(cq), nom.usage)
        if nom.mode is Mode.PREEMPT:
            self._issue(e, nom)
            e.progress = None
            return
        self._admit(e, nom)

    def _pending(self, e: Entry, requeue: RequeueReason, outcome: Outcome, reason: str, message: str) -> None:
        e.requeue_reason, e.outcome, e.reason, e.message = requeue, outcome, reason, message

    def _skip(self, e: Entry, message: str) -> None:
        self._pending(e, RequeueReason.FAILED_AFTER_NOMINATION, Outcome.SKIPPED, "WaitingForQuota", message)
        if not self.config.preserve_scan_progress:
            e.progress = None  # SC-FR-5

    def _recompute(self, e: Entry, nom: Nomination, snapshot: Snapshot) -> Nomination:
        """SC-PE-3: this cycle's victims removed, flavors pinned, scan from the start.

        Only the victims of the head's own quota tree are removed: a nomination reads nothing
        outside that tree (quota, candidates and shares are per tree), and a cycle over many
        cohorts must not undo every other tree's victims for each recomputation.
        """
        root = snapshot.cluster_queue(e.cluster_queue).root
        with snapshot.preserved():
            for w in self.preempted_by_root.get(id(root), {}).values():
                if w.key in snapshot.cluster_queue(w.cluster_queue).workloads:
                    snapshot.remove_workload(w)
            new = nominate(
                e.workload,
                e.cluster_queue,
                snapshot,
                self.c.flavors,
                self.config,
                self.now,
                progress=None,
                pins=nom.pins,
                generation=self.generations.get(e.cluster_queue, 0),
                cycle=self.number,
                shape=shape_hash(e.workload, self.config),
                memo=self.memo.nomination,
            )
        e.progress = new.progress
        if new.mode is Mode.FIT:
            new = attrs.evolve(new, mode=Mode.DEFERRED_FIT)
            result = "deferred_fit"
        elif new.targets and not self._overlaps(new.targets) and self._fits(
            snapshot, e.cluster_queue, new.usage, new.targets
        ):
            result = "new_targets"
        else:
            result = "skipped"
        k = (e.cluster_queue, result)
        self.recomputations[k] = self.recomputations.get(k, 0) + 1
        return new

    def _reserve(self, e: Entry, nom: Nomination, snapshot: Snapshot) -> None:
        """SC-PE-2: capacity held by a Preempt entry without targets."""
        spec = self.c.cqs[e.cluster_queue]
        can_always_reclaim = spec.preemption.reclaim_within_cohort is PreemptionPolicy.ANY
        if can_always_reclaim and not (self.config.prioritize_preemptor_workloads and e.is_preemptor):
            return
        node = snapshot.cluster_queue(e.cluster_queue)
        reserve: dict[FlavorResource, int] = {}
        for fr, u in nom.usage.items():
            quota = node.quotas.get(fr)
            n = quota.nominal if quota is not None else 0
            c = node.usage.get(fr, 0)
            if nom.borrowing > 0:
                bl = quota.borrowing_limit if quota is not None else None
                reserve[fr] = u if bl is None or node.parent is None else min(u, n + bl - c)
            else:
                reserve[fr] = max(0, min(u, n - c))
        snapshot.add_usage(node, reserve)

    # ------------------------------------------------------------------ writes

    def _set_workload(self, w: Workload, *, same_order: bool = False) -> None:
        """Store a rewritten workload. ``same_order``: the write changed only conditions that
        neither SC-QO-1's key (EP, and POL-5's Evicted/Preempted times) nor the SC-RQ-8 shape
        reads, so their cached values stay (a pending write, once per requeued head)."""
        self.workloads[w.key] = w
        if not same_order:
            self.order_keys.pop(w.key, None)  # SC-QO-1's key may read the new conditions
            self.shapes.forget(w.key)
            # No queue heap holds this key in its set: a cycle rewrites heads (popped) and
            # victims (charged), never a workload waiting in an active set (see _heap_head).
        self.changed.add(w.key)

    def _issue(self, e: Entry, nom: Nomination) -> None:
        """SC-PR-1 with MSG-5..7: already-evicted targets count without a write."""
        preemptor = self.workloads[e.key]
        boost = self.config.preemption.priority_boost
        pi = priority_info(preemptor, boost_enabled=boost)
        counted = 0
        for t in nom.targets:
            victim = self.workloads.get(t.workload.key, t.workload)
            counted += 1
            ev = victim.condition("Evicted")
            if ev is not None and ev.is_true:
                continue
            gen = self.c.status(victim.key).generation
            msg = truncate_condition_message(t.message)
            conds = set_condition(victim.conditions, "Evicted", "True", "Preempted", msg, self.now, gen)
            conds = set_condition(conds, "Preempted", "True", t.reason.value, msg, self.now, gen)
            stats = list(victim.evictions)
            for i, s in enumerate(stats):
                if s.reason == "Preempted" and s.underlying_cause == "":
                    stats[i] = EvictionStat("Preempted", "", s.count + 1)
                    break
            else:
                stats.append(EvictionStat("Preempted", "", 1))
            self._set_workload(with_status(victim, conditions=conds, evicted=True, evictions=stats))
            self.bumped.add(victim.cluster_queue)
            vi = priority_info(victim, boost_enabled=boost)
            prio = (
                f"; preemptor effective priority: {pi.effective} (base: {pi.base}, boost: {pi.boost})"
                f"; preemptee effective priority: {vi.effective} (base: {vi.base}, boost: {vi.boost})"
            )
            self._event(victim, "Normal", "EvictedDueToPreempted", t.message)
            self._event(victim, "Normal", "Preempted", t.message + prio)
            name = f"{victim.namespace}/{victim.name}" if victim.namespace else victim.name
            uid = victim.uid or "UNKNOWN"
            self._event(
                preemptor,
                "Normal",
                "PreemptedWorkload",
                f"Preempted workload {name} (UID: {uid}) in ClusterQueue {victim.cluster_queue}" + prio,
            )
        e.counted_targets = counted
        suffix = f". Pending the preemption of {counted} workload(s)"
        self._pending(e, RequeueReason.PENDING_PREEMPTION, Outcome.PREEMPTING, "WaitingForPreemptedWorkloads", nom.message + suffix)

    def _admit(self, e: Entry, nom: Nomination) -> None:
        """SC-AD-1/2 and the admission events of SC-EVT-1."""
        w = self.workloads[e.key]
        cq = e.cluster_queue
        status = self.c.status(e.key)
        gen = status.generation
        conds: tuple[Condition, ...] = w.conditions
        conds = set_condition(conds, "QuotaReserved", "True", "QuotaReserved", f"Quota reserved in ClusterQueue {cq}", self.now, gen)
        for c in list(conds):
            if c.type in ("Evicted", "Preempted") and c.is_true:
                conds = set_condition(conds, c.type, "False", "QuotaReserved", f"Previously: {c.message}", self.now, gen)
        checks_ready = all(ac.state == "Ready" for ac in status.admission_checks)
        if checks_ready:
            conds = set_condition(conds, "Admitted", "True", "Admitted", "The workload is admitted", self.now, gen)
        else:
            conds = set_condition(
                conds, "Admitted", "False", "UnsatisfiedAdmissionChecks", "The workload has not all checks ready", self.now, gen
            )
        admitted = with_admission(
            w, cluster_queue=cq, pod_sets=nom.pod_sets, quota_reserved_at=self.now, conditions=conds, evicted=False
        )
        self._set_workload(admitted)
        self.bumped.add(cq)
        e.outcome = Outcome.ADMITTED
        e.requeue_reason = RequeueReason.GENERIC
        e.reason, e.message = "", ""
        e.progress = None
        requeued = w.condition("Requeued")
        since = requeued.last_transition_time if requeued is not None else (w.creation_time or ZERO_TIME)
        text = f"Quota reserved in ClusterQueue {cq}, wait time since queued was {wait_seconds(self.now, since)}s"
        if nom.flavors_considered:
            text += f"; Flavors considered: {nom.flavors_considered}"
        self._event(w, "Normal", "QuotaReserved", text)
        if checks_ready:
            self._event(w, "Normal", "Admitted", f"Admitted by ClusterQueue {cq}, wait time since reservation was 0s")

    def _resource_requests(self, specs: Iterable[PodSetSpec]) -> tuple[tuple[str, FrozenMap[str, int]], ...]:
        """SC-MSG-3's ``status.resourceRequests`` of these pod sets (per pod set, request x
        count), in the form :class:`WorkloadStatus` stores it — compared before a new status
        is built. Memoised per pod-set tuple for the run (:class:`CycleMemo`)."""
        if type(specs) is tuple:
            return self.memo.resource_requests(specs)
        return _requests_of(specs)

    def _event(self, w: Workload, type_: str, reason: str, message: str) -> None:
        self.events.append(Event(w.namespace, w.name, type_, reason, truncate_event_message(message)))

    # ------------------------------------------------------------------ end of cycle (SC-CY-7)

    def requeue(self, e: Entry) -> str | None:
        """SC-RQ-5 plus the status write of SC-MSG-3; returns the set the workload ends in."""
        w = self.workloads[e.key]
        if e.nomination is not None and e.requeue_reason is RequeueReason.GENERIC:
            e.requeue_reason = RequeueReason.FAILED_AFTER_NOMINATION
        self._write_pending(e)
        w = self.workloads[e.key]
        cq = e.cluster_queue
        q = self.qmap.get(cq) or ClusterQueueQueue()
        if e.progress is not None:
            self.progress[e.key] = e.progress
        else:
            self.progress.pop(e.key, None)
        if not _queueable(self.c, w) or queue_in(self.c, w) != cq:
            self.qmap[cq] = q.without(e.key)
            self.progress.pop(e.key, None)
            return None
        strategy = self.c.state.settings(cq).queueing_strategy
        if e.requeue_reason is RequeueReason.PENDING_PREEMPTION:
            q = attrs.evolve(
                q,
                preemptor=PreemptorMarker(
                    e.key, self.c.status(e.key).generation, strategy is QueueingStrategy.BEST_EFFORT_FIFO
                ),
            )
        immediate = e.requeue_reason in _IMMEDIATE[strategy]
        pending_flavors = e.progress is not None and e.progress.has_pending_flavors
        if self._backoff_expired(w) and (immediate or pending_flavors):
            before = q.active
            q = q.with_sets(before | {e.key}, q.inadmissible - {e.key})
            self.keep_heap(cq, before, q.active, None if e.key in before else e.key)
            where = "active"
        elif e.key in q.active:
            where = "active"
        elif e.key in q.inadmissible:
            where = "inadmissible"
        else:
            q = q.with_sets(q.active, q.inadmissible | {e.key})
            where = "inadmissible"
            if (
                self.config.scheduling_equivalence_hashing
                and strategy is QueueingStrategy.BEST_EFFORT_FIFO
                and e.requeue_reason in (RequeueReason.NO_FIT, RequeueReason.PREEMPTION_NO_CANDIDATES)
            ):
                before = q.active
                q = self._bulk_move(q, self._shape(e.key))
                self.keep_heap(cq, before, q.active)
        self.qmap[cq] = q
        return where

    def _bulk_move(self, q: ClusterQueueQueue, shape: Hashable) -> ClusterQueueQueue:
        """SC-RQ-8: park every active workload with the failed head's shape.

        ``shape`` is interned (:meth:`_shape`): the active keys of that shape are the active
        set intersected with the table's keys of that shape, once every active key's shape is
        cached — a set operation in C instead of a test per active key."""
        shapes, workloads = self.shapes, self.workloads
        for k in shapes.uncached(q.active):
            if k in workloads:
                self._shape(k)
        same = q.active & shapes.keys_of(shape)
        return q.with_sets(q.active - same, q.inadmissible | same, q.failed_hashes | {shape})

    def _shape(self, key: str) -> Hashable:
        """SC-RQ-8's hash of a workload, cached per key until its object is replaced, as the
        one interned object of its value."""
        shape = self.shapes.get(key)
        if shape is None:
            shape = self.shapes.put(key, shape_hash(self.workloads[key], self.config))
        return shape

    def _backoff_expired(self, w: Workload) -> bool:
        """SC-RQ-2."""
        requeued = w.condition("Requeued")
        if requeued is not None and requeued.status == "False":
            return False
        at = self.c.status(w.key).requeue_at
        return at is None or self.now >= at

    def _write_pending(self, e: Entry) -> None:
        """SC-MSG-3: QuotaReserved=False, Admitted=False, resourceRequests; SC-EVT-1 item 3."""
        w = self.workloads[e.key]
        status = self.c.status(e.key)
        gen = status.generation
        obs = self.config.unadmitted_workloads_observability
        reason = e.reason if obs else "Pending"
        message = truncate_condition_message(e.message)
        conds = set_condition(w.conditions, "QuotaReserved", "False", reason, message, self.now, gen)
        admitted = w.condition("Admitted")
        if obs or (admitted is not None and admitted.is_true):
            conds = set_condition(conds, "Admitted", "False", "NoReservation", "The workload has no reservation", self.now, gen)
        requests = self._resource_requests(w.spec_pod_sets)
        if conds != w.conditions:
            # Only QuotaReserved and Admitted change: the order key and shape are kept.
            self._set_workload(with_status(w, conditions=conds), same_order=True)
        if requests != status.resource_requests:
            self.statuses[e.key] = attrs.evolve(status, resource_requests=requests)
            self.changed.add(e.key)
        self._event(w, "Warning", reason, e.message)

    # ------------------------------------------------------------------ result

    def head_results(self, ordered: list[Entry], rejected: list[Entry], where: dict[str, str | None]) -> tuple[HeadResult, ...]:
        results = []
        for e in ordered + rejected:
            nom = e.nomination
            results.append(
                HeadResult(
                    key=e.key,
                    cluster_queue=e.cluster_queue,
                    outcome=e.outcome,
                    requeue_reason=None if e.outcome is Outcome.ADMITTED else e.requeue_reason,
                    queue=where.get(e.key),
                    reason=e.reason,
                    message=e.message,
                    mode=nom.mode if nom is not None else None,
                    borrowing=nom.borrowing if nom is not None else 0,
                    admission=self.workloads[e.key].pod_sets if e.outcome is Outcome.ADMITTED else None,
                    targets=nom.targets if nom is not None and e.outcome is Outcome.PREEMPTING else (),
                )
            )
        return tuple(results)

    def close(self, ordered: list[Entry]) -> None:
        """After the requeues: generations bumped (SC-FR-4 / SC-SIM-13.6), the preemptor marker
        and scan progress of admitted heads dropped (SC-RQ-6)."""
        generations = self.generations
        for cq in self.bumped:
            generations[cq] = generations.get(cq, 0) + 1
        for e in ordered:
            if e.outcome is Outcome.ADMITTED:
                q = self.qmap.get(e.cluster_queue)
                if q is not None and q.preemptor is not None and q.preemptor.key == e.key:
                    self.qmap[e.cluster_queue] = attrs.evolve(q, preemptor=None)  # SC-RQ-6
                self.progress.pop(e.key, None)

    def result(self, heads: list[Entry], ordered: list[Entry], rejected: list[Entry], where: dict[str, str | None]) -> CycleResult:
        results = self.head_results(ordered, rejected, where)
        self.close(ordered)
        queues = QueueState(
            queues={k: v for k, v in self.qmap.items() if v != ClusterQueueQueue()},
            scan_progress=self.progress,
            cycle=self.number,
            generations=self.generations,
        )
        order = {k: i for i, k in enumerate(w.key for w in self.c.state.workloads)}
        cluster = attrs.evolve(
            self.c.state,
            workloads=sorted(self.workloads.values(), key=lambda w: order.get(w.key, len(order))),
            statuses=self.statuses,
        )
        attempt = "success" if any(e.outcome is Outcome.ADMITTED for e in ordered) else "inadmissible"
        return CycleResult(
            cycle=self.number,
            now=self.now,
            heads=tuple(e.key for e in heads),
            results=results,
            events=tuple(self.events),
            skipped_preemptions=self.skips,
            recomputations=self.recomputations,
            attempt=attempt,
            cluster=cluster,
            queues=queues,
            changed=frozenset(self.changed),
        )


def _requests_of(specs: Iterable[PodSetSpec]) -> tuple[tuple[str, FrozenMap[str, int]], ...]:
    return tuple((ps.name, frozen_map({r: amount_mul(v, ps.count) for r, v in ps.requests.items()})) for ps in specs)




def schedule_cycle(
    cluster: ClusterState,
    queues: QueueState | None = None,
    *,
    config: CycleConfig = CycleConfig(),
    now: datetime | None = None,
) -> CycleResult:
    """Run one Kueue scheduling cycle (SC-CY-1..7) and return what it did and the state after.

    ``queues`` is the queue memory from the previous cycle (:attr:`CycleResult.queues`);
    ``None`` means a freshly started Kueue (:func:`initial_queue_state`). ``now`` is the
    cycle time written into conditions and events (default: the current UTC time).
    Deterministic: heads in ClusterQueue-name order, stable entry sort, name-ordered
    tournament (SC-SIM-11).

    Cost: one nomination per ClusterQueue head (see :func:`kueue_preempt.explain`) plus sorting
    the entries, O(heads · nomination + heads log heads); the snapshot is built once per call.
    :class:`~kueue_preempt.cycle.CycleState` keeps it across cycles.
    """
    arg(cluster, ClusterState, "schedule_cycle", "cluster")
    optional_arg(queues, QueueState, "schedule_cycle", "queues")
    arg(config, CycleConfig, "schedule_cycle", "config")
    if now is None:
        from datetime import timezone

        now = datetime.now(timezone.utc)
    now = time_arg(now, "schedule_cycle", "now")
    if queues is None:
        queues = initial_queue_state(cluster, config)
    c = ClusterIndex(cluster)
    cy = CycleBookkeeping(
        c,
        qmap=dict(queues.queues),
        progress=dict(queues.scan_progress),
        workloads=dict(c.workloads),
        statuses=dict(cluster.statuses),
        generations=dict(queues.generations),
        number=queues.cycle + 1,
        config=config,
        now=now,
    )
    heads = cy.pop_heads()
    if not heads:  # SC-CY-1: no head, no cycle
        return CycleResult(
            cycle=queues.cycle,
            now=now,
            heads=(),
            results=(),
            events=(),
            skipped_preemptions={},
            recomputations={},
            attempt=None,
            cluster=cluster,
            queues=queues,
            changed=frozenset(),
        )
    snapshot = cycle_snapshot(cy.c, config)
    ordered, rejected, where = process_heads(cy, heads, snapshot, config)
    return cy.result(heads, ordered, rejected, where)


def process_heads(
    cy: CycleBookkeeping, heads: list[Entry], snapshot: Snapshot, config: CycleConfig
) -> tuple[list[Entry], list[Entry], dict[str, str | None]]:
    """SC-CY-2 heads, then SC-CY-4..SC-CY-7: check and nominate, process in entry order (classic or
    the fair-sharing tournament), requeue. Returns (processing order, rejected, where each
    non-admitted head waits). Shared by :func:`schedule_cycle` and the incremental state."""
    nominated: list[Entry] = []
    rejected: list[Entry] = []
    for e in heads:
        if cy.check(e, snapshot):
            cy.nominate(e, snapshot)
            nominated.append(e)
        else:
            rejected.append(e)
    if config.fair_sharing:
        ordered: list[Entry] = []
        remaining = list(nominated)
        while remaining:
            e = fair_pop(remaining, snapshot, config)
            remaining.remove(e)
            cy.process(e, snapshot)
            ordered.append(e)
        requeue_order = nominated  # head order (SC-CY-7)
    else:
        ordered = classic_entry_order(nominated, config)
        for e in ordered:
            cy.process(e, snapshot)
        requeue_order = ordered
    where: dict[str, str | None] = {}
    for e in requeue_order + rejected:
        if e.outcome is not Outcome.ADMITTED:
            where[e.key] = cy.requeue(e)
    return ordered, rejected, where

"""The scheduling cycle with state carried between cycles.

:func:`~kueue_preempt.cycle.schedule_cycle` is a pure function: every call indexes every
workload, builds a quota snapshot of every charged workload and returns a new
:class:`ClusterState`/:class:`QueueState` — O(n) per cycle even when one head is popped.
:class:`CycleState` is the same cycle (the very same ``CycleBookkeeping`` code of ``step``) over
*mutable* state owned by one caller, the simulator:

* the workloads and statuses live in dicts updated in place;
* one quota :class:`~kueue_preempt.snapshot.quota.Snapshot` (candidate index on) lives across cycles:
  a cycle runs inside ``snapshot.preserved()`` — its what-if usage is undone on exit — and
  then only the real changes are applied (admissions added, evicted victims re-keyed,
  released or finished workloads removed), O(log n) each;
* the SC-QO-1 order key of each pending workload is cached until its object changes;
* the SC-T-3 "did anything change" test looks only at the ClusterQueues and scan progress of
  the heads (the only memory a cycle touches) instead of comparing whole states.

:meth:`CycleState.cluster_state` / :meth:`CycleState.queue_state` materialise the
equivalent immutable pair; tests check them equal to the pure path after every operation
(tests/test_cycle_incremental.py). Transitions mirror ``transitions.py`` one key at a time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Hashable, Iterable, Mapping

import attrs

from kueue_preempt._util.checks import time_arg
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model import Workload
from kueue_preempt.model.queues import cohort_parents, root_cohort
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.cycle.cluster import ClusterState, QueueingStrategy, WorkloadStatus
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.entry import Outcome
from kueue_preempt.cycle.queues import ClusterQueueQueue, QueueState, ScanProgress, backoff_expired, requeue_blocked
from kueue_preempt.cycle.selectors import selects
from kueue_preempt.cycle.shapes import ShapeTable
from kueue_preempt.cycle.status import Event, released_workload
from kueue_preempt.cycle.step import (
    ClusterIndex,
    CycleBookkeeping,
    CycleMemo,
    HeadResult,
    cycle_snapshot,
    initial_queue_state,
    is_charged,
    process_heads,
    queue_in,
    shape_hash,
)

__all__ = ["CycleState", "StepResult"]

_EMPTY = ClusterQueueQueue()
_NO_HASHES: frozenset[Hashable] = frozenset()


def _counts(value: dict[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


def _recomputations(value: dict[tuple[str, str], int]) -> FrozenMap[tuple[str, str], int]:
    return frozen_map(value)


@attrs.frozen
class StepResult:
    """What one incremental cycle did: :class:`~kueue_preempt.cycle.CycleResult` without the
    state after it (that is the :class:`CycleState` itself).

    ``memory_changed`` is SC-T-3's test: the queue memory (apart from cycle numbers) differs
    from before the cycle.
    """

    cycle: int
    now: datetime
    heads: tuple[str, ...]
    results: tuple[HeadResult, ...]
    events: tuple[Event, ...]
    skipped_preemptions: FrozenMap[str, int] = attrs.field(converter=_counts)
    recomputations: FrozenMap[tuple[str, str], int] = attrs.field(converter=_recomputations)
    attempt: str | None
    changed: frozenset[str]
    memory_changed: bool

    @property
    def admitted(self) -> tuple[str, ...]:
        return tuple(r.key for r in self.results if r.outcome is Outcome.ADMITTED)


class CycleState:
    """Cluster and queue memory carried across cycles, updated in place (see the module doc).

    Build it from the same inputs as :func:`~kueue_preempt.cycle.schedule_cycle`; the
    arguments are not mutated (copies are taken). The ClusterQueues, cohorts, LocalQueues,
    namespaces and flavors are fixed for the life of the state; workloads come and go through
    :meth:`arrive`, :meth:`delete`, :meth:`release` and :meth:`replace`.
    """

    def __init__(
        self, cluster: ClusterState, queues: QueueState | None = None, config: CycleConfig = CycleConfig()
    ) -> None:
        self.config = config
        if queues is None:
            queues = initial_queue_state(cluster, config)
        self._static = attrs.evolve(cluster, workloads=(), statuses={})
        self.workloads: dict[str, Workload] = {}
        for w in cluster.workloads:
            if w.key in self.workloads:
                raise InvalidModel(f"Workload {w.key}", "name", "duplicate workload key")
            self.workloads[w.key] = w
        self.statuses: dict[str, WorkloadStatus] = dict(cluster.statuses)
        self.c = ClusterIndex(self._static, workloads=self.workloads, statuses=self.statuses)
        self.qmap: dict[str, ClusterQueueQueue] = dict(queues.queues)
        self.progress: dict[str, ScanProgress] = dict(queues.scan_progress)
        self.generations: dict[str, int] = dict(queues.generations)
        self.number = queues.cycle
        self.snapshot: Snapshot = cycle_snapshot(self.c, config)
        self._order_keys: dict[str, tuple[int, int, str, str]] = {}
        # Per ClusterQueue, the heap of order keys of its active set (CycleBookkeeping._heap_head).
        self._heaps: dict[str, tuple[frozenset[str], list[tuple[int, int, str, str]]]] = {}
        self._shapes = ShapeTable()
        # The memo tables every cycle of this state shares (gates, shared Assignment and
        # PodSetUsage values, resourceRequests per pod-set tuple): they live as long as it.
        self._memo = CycleMemo(config)
        # SC-RQ-2's Requeued=False test per key, with the object it was computed on (a
        # requeue run asks it of every parked workload, and most are unchanged since).
        self._requeue_blocked: dict[str, tuple[Workload, bool]] = {}
        self._ns_matches: dict[tuple[str, str], bool] = {}
        # A superset of the keys SC-RQ-2 may hold back: a Requeued=False condition on some
        # version of the workload, or a requeue time in its status. Only these are tested one
        # by one in a requeue run; the others move as a set (see queue_inadmissible).
        self._maybe_held: set[str] = {k for k, w in self.workloads.items() if requeue_blocked(w.conditions)}
        self._maybe_held.update(k for k, st in self.statuses.items() if st.requeue_at is not None)
        # Per ClusterQueue: every namespace with a LocalQueue pointing at it exists and
        # matches its selector (namespaces, LocalQueues and selectors are fixed).
        self._all_ns_match: dict[str, bool] = {}
        # Queue-map entries that may have become empty since the last cycle: a cycle drops
        # every empty entry (as the pure path's result does) and that counts as a change.
        self._maybe_empty: set[str] = {k for k, v in self.qmap.items() if v == _EMPTY}
        # ClusterQueues with a non-empty active set: where a cycle looks for heads (a wide
        # cluster has hundreds of queue entries and, most of the time, a few heads).
        self._active: set[str] = {k for k, v in self.qmap.items() if v.active}
        self.pending = sum(len(q.active) + len(q.inadmissible) for q in self.qmap.values())

    # ------------------------------------------------------------------ views

    def cluster_state(self) -> ClusterState:
        """The equivalent immutable cluster (O(n): for tests and callers that need it)."""
        return attrs.evolve(self._static, workloads=tuple(self.workloads.values()), statuses=dict(self.statuses))

    def queue_state(self) -> QueueState:
        """The equivalent immutable queue memory (O(n))."""
        return QueueState(
            queues=dict(self.qmap), scan_progress=dict(self.progress), cycle=self.number, generations=dict(self.generations)
        )

    @property
    def active_queues(self) -> frozenset[str]:
        """The ClusterQueues whose active set is not empty (where the next cycle looks for heads)."""
        return frozenset(self._active)

    def queue(self, cq: str) -> ClusterQueueQueue:
        return self.qmap.get(cq) or _EMPTY

    def queue_of(self, workload: Workload) -> str | None:
        """SC-ST-1 for this cluster."""
        return queue_in(self.c, workload)

    def _set_queue(self, cq: str, q: ClusterQueueQueue, before: ClusterQueueQueue | None) -> None:
        old = 0 if before is None else len(before.active) + len(before.inadmissible)
        self.pending += len(q.active) + len(q.inadmissible) - old
        self.qmap[cq] = q
        if q.active:
            self._active.add(cq)
        else:
            self._active.discard(cq)
        if q == _EMPTY:
            self._maybe_empty.add(cq)

    # ------------------------------------------------------------------ the snapshot

    def _in_snapshot(self, w: Workload) -> bool:
        return bool(w.cluster_queue) and self.snapshot.has_cluster_queue(w.cluster_queue) and is_charged(self.c, w)

    def _sync(self, old: Workload | None, new: Workload | None) -> None:
        """Keep the snapshot holding exactly the charged workloads, as current objects."""
        if old is not None and self._in_snapshot(old) and old.key in self.snapshot.cluster_queue(old.cluster_queue).workloads:
            self.snapshot.remove_workload(old)
        if new is not None and self._in_snapshot(new):
            self.snapshot.add_workload(new)

    # ------------------------------------------------------------------ transitions

    def arrive(self, workload: Workload, status: WorkloadStatus | None = None) -> str | None:
        """A new pending workload (SC-RQ-1): queued in its ClusterQueue's active set, or parked
        with a failed head of the same shape (SC-RQ-8). Returns the ClusterQueue, if any.
        ``status``: its :class:`WorkloadStatus` (e.g. the pod templates SC-NOM-3 checks)."""
        if workload.key in self.workloads:
            raise InvalidModel(f"Workload {workload.key}", "name", "duplicate workload key")
        if status is not None and not isinstance(status, WorkloadStatus):
            raise InvalidModel(f"Workload {workload.key}", "status", f"expected WorkloadStatus, got {type(status).__name__}")
        self.workloads[workload.key] = workload
        if status is not None and status != _NO_STATUS:
            self.statuses[workload.key] = status
        self._note_held(workload)
        self._sync(None, workload)
        cq = queue_in(self.c, workload)
        if cq is None:
            return None
        before = self.qmap.get(cq)
        q = before or _EMPTY
        parked = (
            self._static.settings(cq).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO
            and self.config.scheduling_equivalence_hashing
            and shape_hash(workload, self.config) in q.failed_hashes
        )
        key = workload.key
        q = q.with_sets(q.active, q.inadmissible | {key}) if parked else q.with_sets(q.active | {key}, q.inadmissible)
        self._set_queue(cq, q, before)
        return cq

    def delete(self, key: str) -> None:
        """:func:`~kueue_preempt.cycle.delete_workloads` for one key."""
        w = self.workloads.pop(key, None)
        self.statuses.pop(key, None)
        self.progress.pop(key, None)
        self._order_keys.pop(key, None)
        self._shapes.forget(key)
        self._requeue_blocked.pop(key, None)
        self._maybe_held.discard(key)
        if w is None:
            return
        self._sync(w, None)
        cq = queue_in(self.c, w)
        # A key is only ever queued in (and marked by) the ClusterQueue of its LocalQueue.
        if cq is not None and cq in self.qmap:
            before = self.qmap[cq]
            q = before.without(key)
            if q.preemptor is not None and q.preemptor.key == key:
                q = attrs.evolve(q, preemptor=None)
            if q is not before:
                self._set_queue(cq, q, before)
        if w.cluster_queue:
            self.generations[w.cluster_queue] = self.generations.get(w.cluster_queue, 0) + 1

    def release(self, key: str, now: datetime, *, notify_self: bool = True, hash_config: CycleConfig | None = None) -> bool:
        """SC-EV-2/3 for one evicted workload (:func:`~kueue_preempt.cycle.release_evicted`
        without the notify of the other parked workloads, which the caller batches in time).

        ``notify_self`` keeps the one effect of that notify on the released workload itself:
        parked because of a failed shape hash, it is still moved back by the notify of its
        own cohort tree. ``hash_config`` is the configuration the shape hash is computed with
        (``release_evicted``'s default is :class:`CycleConfig()`). Returns whether released.
        """
        w = self.workloads.get(key)
        if w is None:
            return False
        new = released_workload(w, now, self.c.status(key).generation)
        if new is None:
            return False
        charged_cq = w.cluster_queue
        self.replace(new)
        self.generations[charged_cq] = self.generations.get(charged_cq, 0) + 1
        cq = queue_in(self.c, new)
        if cq is None:
            return True
        before = self.qmap.get(cq)
        q = before or _EMPTY
        expired = self._backoff_expired(new, now)
        target_active = expired
        if target_active and self._static.settings(cq).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO and q.failed_hashes:
            target_active = shape_hash(new, hash_config or CycleConfig()) not in q.failed_hashes
            if not target_active and notify_self and expired and self._same_tree(cq, charged_cq):
                target_active = self._namespace_matches(new, cq)
        if target_active:
            q = q.with_sets(q.active | {key}, q.inadmissible - {key})
        else:
            q = q.with_sets(q.active, q.inadmissible | {key})
        self._set_queue(cq, q, before)
        return True

    def queue_inadmissible(self, cluster_queues: Iterable[str], now: datetime) -> list[str]:
        """SC-IN-1 (:func:`~kueue_preempt.cycle.queue_inadmissible`) for the named ClusterQueues;
        returns the keys moved, per ClusterQueue in the given order, sorted within it."""
        moved: list[str] = []
        self.queue_inadmissible_count(cluster_queues, now, moved)
        return moved

    def queue_inadmissible_count(self, cluster_queues: Iterable[str], now: datetime, moved: list[str] | None = None) -> int:
        """:meth:`queue_inadmissible` returning only how many keys moved; their keys are
        appended to ``moved`` when given. Without ``moved`` a run costs set operations in C
        (O(parked + active) per ClusterQueue, no per-key Python work) plus a test per key
        that may be held back (SC-RQ-2)."""
        count = 0
        workloads, statuses, blocked = self.workloads, self.statuses, self._requeue_blocked
        for name in dict.fromkeys(cluster_queues):
            before = self.qmap.get(name)
            if before is None:
                continue
            parked = before.inadmissible
            if parked and self._namespaces_all_match(name) and parked <= workloads.keys():
                # Every parked workload passes the namespace test (its namespace has a
                # LocalQueue pointing here), and only the few that may be held back are
                # tested one by one: the run over a wide tree moves the rest as one set.
                kept = [k for k in parked & self._maybe_held if not self._backoff_expired(workloads[k], now)]
                back = parked.difference(kept) if kept else parked
                q = before.with_sets(before.active | back, parked - back, _NO_HASHES)
                if q != before:
                    self._set_queue(name, q, before)
                count += len(back)
                if moved is not None:
                    moved += sorted(back)
                continue
            # One pass per parked workload (a run over a wide tree moves thousands): the
            # namespace test is per namespace, so it is looked up once per namespace here.
            namespaces: dict[str, bool] = {}
            back_keys: list[str] = []
            for k in before.inadmissible:
                w = workloads.get(k)
                if w is None:
                    continue
                ok = namespaces.get(w.namespace)
                if ok is None:
                    ok = namespaces[w.namespace] = self._namespace_matches(w, name)
                if not ok:
                    continue
                # SC-RQ-2, inlined (as _backoff_expired): the Requeued=False test is
                # remembered per workload object, the requeue time read from its status.
                held = blocked.get(k)
                if held is None or held[0] is not w:
                    held = blocked[k] = (w, requeue_blocked(w.conditions))
                if held[1]:
                    continue
                status = statuses.get(k)
                at = None if status is None else status.requeue_at
                if at is None or now >= at:
                    back_keys.append(k)
            back = frozenset(back_keys)
            q = before.with_sets(before.active | back, before.inadmissible - back, _NO_HASHES)
            if q != before:
                self._set_queue(name, q, before)
            count += len(back)
            if moved is not None:
                moved += sorted(back)
        return count

    def replace(self, workload: Workload) -> Workload:
        """Replace a workload object by key (a controller's write); returns the old one."""
        old = self.workloads[workload.key]
        self.workloads[workload.key] = workload
        self._note_held(workload)
        self._order_keys.pop(workload.key, None)
        cq = queue_in(self.c, workload)
        if cq is not None:
            self._heaps.pop(cq, None)  # its order key may have changed while it waits there
        self._shapes.forget(workload.key)
        self._sync(old, workload)
        return old

    def move_to_active(self, cq: str, key: str) -> None:
        """Move a parked workload back to the active set (SC-RQ-1 after an update)."""
        before = self.qmap[cq]
        self._set_queue(cq, before.with_sets(before.active | {key}, before.inadmissible - {key}), before)

    # ------------------------------------------------------------------ the cycle

    def cycle(self, now: datetime) -> StepResult:
        """One scheduling cycle (SC-CY-1..7), exactly as :func:`schedule_cycle` would run it on
        :meth:`cluster_state` / :meth:`queue_state`, applied to this state in place."""
        now = time_arg(now, "CycleState.cycle", "now")
        progress_before = self.progress
        cy = CycleBookkeeping(
            self.c,
            qmap=self.qmap,
            progress=progress_before,
            workloads=self.workloads,
            statuses=self.statuses,
            generations=self.generations,
            number=self.number + 1,
            config=self.config,
            now=now,
            order_keys=self._order_keys,
            heaps=self._heaps,
            shapes=self._shapes,
            active_queues=self._active,
            memo=self._memo,
        )
        heads = cy.pop_heads()
        if not heads:  # SC-CY-1: no head, no cycle (and nothing popped)
            return StepResult(self.number, now, (), (), (), {}, {}, None, frozenset(), False)
        self.number += 1
        head_keys = [e.key for e in heads]
        tried_before = {k: self.progress[k].tried if k in self.progress else None for k in head_keys}
        snapshot = self.snapshot
        with snapshot.preserved():
            ordered, rejected, where = process_heads(cy, heads, snapshot, self.config)
        results = cy.head_results(ordered, rejected, where)
        cy.close(ordered)
        # The real changes, now that the cycle's what-if usage is undone: admitted heads
        # charge their quota, evicted victims are kept as their new objects.
        for key in sorted(cy.changed):
            new = self.workloads[key]
            if not new.cluster_queue:
                continue
            stored = self._charged_in(new.cluster_queue).get(key)
            if stored is None:
                self._sync(None, new)
            elif stored is not new:
                snapshot.remove_workload(stored)
                self._sync(None, new)
        memory_changed = self._settle(cy.before_queues, head_keys, tried_before)
        return StepResult(
            cycle=self.number,
            now=now,
            heads=tuple(head_keys),
            results=results,
            events=tuple(cy.events),
            skipped_preemptions=cy.skips,
            recomputations=cy.recomputations,
            attempt="success" if any(e.outcome is Outcome.ADMITTED for e in ordered) else "inadmissible",
            changed=frozenset(cy.changed),
            memory_changed=memory_changed,
        )

    def _charged_in(self, cq: str) -> dict[str, Workload]:
        if not self.snapshot.has_cluster_queue(cq):
            return {}
        return self.snapshot.cluster_queue(cq).workloads

    def _settle(self, before: dict[str, ClusterQueueQueue], heads: list[str], tried: Mapping[str, object]) -> bool:
        """Drop empty queue entries (as the pure result does), fix the pending count and tell
        whether the queue memory changed (SC-T-3) — looking only at what a cycle touches."""
        changed = False
        for name, b in before.items():
            q = self.qmap.get(name, _EMPTY)
            if q.active:  # a cycle changes the queues of its heads only
                self._active.add(name)
            else:
                self._active.discard(name)
            self.pending += len(q.active) + len(q.inadmissible) - len(b.active) - len(b.inadmissible)
            if q != b:
                changed = True
            if q == _EMPTY:
                self._maybe_empty.add(name)
        for name in self._maybe_empty:
            if self.qmap.get(name) == _EMPTY:
                del self.qmap[name]
                if name not in before:
                    changed = True  # an empty entry of the pure map disappears
        self._maybe_empty.clear()
        for k in heads:
            p = self.progress.get(k)
            if (p.tried if p is not None else None) != tried[k]:
                changed = True
        return changed

    # ------------------------------------------------------------------ helpers

    def _backoff_expired(self, w: Workload, now: datetime) -> bool:
        """SC-RQ-2 with the workload's own status."""
        status = self.statuses.get(w.key)
        return backoff_expired(w.conditions, None if status is None else status.requeue_at, now)

    def _note_held(self, w: Workload) -> None:
        """Keep ``_maybe_held`` a superset: a version with Requeued=False adds its key."""
        if requeue_blocked(w.conditions):
            self._maybe_held.add(w.key)

    def _namespaces_all_match(self, cq: str) -> bool:
        """Does every namespace of a LocalQueue pointing at ``cq`` exist and match its
        selector? Then so does the namespace of every workload queued there (SC-ST-1)."""
        known = self._all_ns_match.get(cq)
        if known is None:
            selector = self._static.settings(cq).namespace_selector
            known = True
            for lq in self._static.local_queues:
                if lq.cluster_queue != cq:
                    continue
                labels = self.c.namespace_labels(lq.namespace)
                if labels is None or not selects(selector, dict(labels)):
                    known = False
                    break
            self._all_ns_match[cq] = known
        return known

    def _namespace_matches(self, w: Workload, cq: str) -> bool:
        """Namespaces, labels and selectors are fixed for the life of the state: cached."""
        known = self._ns_matches.get((w.namespace, cq))
        if known is None:
            labels = self.c.namespace_labels(w.namespace)
            known = labels is not None and selects(self._static.settings(cq).namespace_selector, dict(labels))
            self._ns_matches[(w.namespace, cq)] = known
        return known

    def _root(self, cq: str) -> str | None:
        parents = self._parents()
        spec = self.c.cqs.get(cq)
        cohort = spec.cohort if spec is not None else None
        return None if cohort is None else root_cohort(parents, cohort)

    def _parents(self) -> dict[str, str | None]:
        cached: dict[str, str | None] | None = getattr(self, "_parent_map", None)
        if cached is None:
            cached = cohort_parents(self._static.cohorts)
            self._parent_map = cached
        return cached

    def _same_tree(self, cq: str, notified: str) -> bool:
        """Whether SC-IN-2's notify of ``notified`` reaches ``cq`` (its cohort tree, or itself)."""
        if cq == notified:
            return True
        root = self._root(notified)
        return root is not None and self._root(cq) == root and self.c.cqs[cq].cohort is not None

    def shape(self, workload: Workload) -> Hashable:
        return shape_hash(workload, self.config)


_NO_STATUS = WorkloadStatus()

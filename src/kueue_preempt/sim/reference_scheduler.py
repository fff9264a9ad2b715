"""The from-scratch reference of the simulator's scheduler: every step on the pure
:func:`kueue_preempt.cycle.schedule_cycle` and the pure transitions (rules ``SC-*``).

The simulator runs :class:`~kueue_preempt.sim.cycle_scheduler.CycleScheduler` (the same
cycle over state carried between cycles, :class:`~kueue_preempt.cycle.CycleState`); this
adapter rebuilds immutable state on every step (O(n)) and is kept as the oracle the fast one
is tested equal to (tests/test_cycle_incremental.py).

The queues and the cluster live in the cycle module's immutable ``ClusterState`` and
``QueueState``; this adapter keeps the current pair and turns each call of the event loop into
the cycle module's transitions:

* ``arrive`` adds the workload (its pod sets as the cycle reads them) and queues it (SC-RQ-1);
* ``finish`` removes it (quota freed; the loop issues the notification, SC-IN-4);
* ``release`` is SC-EV-2/SC-EV-3 (``release_evicted``) — without the immediate notify that
  the cycle module's ``run_cycles`` uses, because the loop batches notifications in time
  (SC-IN-3); with a requeue delay of 0 the outcome is the same;
* ``requeue_inadmissible`` is SC-IN-1 for the ClusterQueues of one tree;
* ``cycle`` runs one ``schedule_cycle`` and reports admissions, evictions and parked heads;
  it "changed nothing" exactly when SC-T-3 says so (no admission, eviction, and the same
  queue memory apart from the cycle counter).

Times: loop seconds are wall-clock ``start + t`` (creation times of arrivals use the same
origin, :data:`~kueue_preempt.sim.arrivals.model.SIM_START`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable, Sequence

import attrs

from kueue_preempt.cycle import (
    ClusterState,
    CycleConfig,
    QueueState,
    delete_workloads,
    initial_queue_state,
    queue_inadmissible,
    queue_of,
    release_evicted,
    schedule_cycle,
    shape_hash,
)
from kueue_preempt.cycle.cluster import QueueingStrategy
from kueue_preempt.model import Workload
from kueue_preempt.model.priority import BOOST_ANNOTATION, effective_priority
from kueue_preempt.sim.arrivals.model import SIM_START, Arrival
from kueue_preempt.sim.cycle_scheduler import DerivedSpecs, translate_results, with_pod_specs
from kueue_preempt.sim.heads import head_statuses
from kueue_preempt.sim.engine import CycleResult

__all__ = ["ReferenceCycleScheduler"]


class ReferenceCycleScheduler:
    """A :class:`~kueue_preempt.sim.engine.Scheduler` backed by ``schedule_cycle``.

    Build it from the cycle input of the dump (``kueue_preempt.io.load_cluster_state``); the
    queue memory starts as a freshly started Kueue's (``initial_queue_state``).
    """

    def __init__(self, cluster: ClusterState, config: CycleConfig = CycleConfig(), *, start: datetime = SIM_START) -> None:
        self.cluster = cluster
        self.config = config
        self.start = start
        self.queues: QueueState = initial_queue_state(cluster, config)
        self._by_key = {w.key: w for w in cluster.workloads}
        self._notify: list[str] = []
        self._specs: DerivedSpecs = {}  # with_pod_specs's table, for the life of this scheduler

    def _at(self, now: float) -> datetime:
        return self.start + timedelta(seconds=now)

    def _set(self, cluster: ClusterState, queues: QueueState) -> None:
        self.cluster = cluster
        self.queues = queues
        self._by_key = {w.key: w for w in cluster.workloads}

    # -- the Scheduler protocol

    def arrive(self, arrival: Arrival, now: float) -> None:
        w = self._with_specs(arrival)
        cluster = attrs.evolve(self.cluster, workloads=(*self.cluster.workloads, w))
        if arrival.workload.status.templates:  # the pod templates SC-NOM-3 checks
            cluster = attrs.evolve(cluster, statuses={**cluster.statuses, w.key: arrival.workload.status})
        cq = queue_of(cluster, w)
        queues = self.queues
        if cq is not None:
            q = queues.queue(cq)
            parked = (
                cluster.settings(cq).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO
                and self.config.scheduling_equivalence_hashing
                and shape_hash(w, self.config) in q.failed_hashes
            )
            q = attrs.evolve(q, inadmissible=q.inadmissible | {w.key}) if parked else attrs.evolve(q, active=q.active | {w.key})
            queues = attrs.evolve(queues, queues={**queues.queues, cq: q})
        self._set(cluster, queues)

    def finish(self, workload: str, now: float) -> None:
        self._set(*delete_workloads(self.cluster, self.queues, [workload]))

    def release(self, workload: str, now: float) -> None:
        before = self.queues
        cluster, queues, released = release_evicted(self.cluster, self.queues, self._at(now), [workload], self.config)
        queues = _undo_notify(before, queues, set(released))
        # SC-EV-3 / SC-RQ-1: a released victim whose shape hash its BestEffortFIFO queue recorded
        # as failed is parked, as an arrival is (release_evicted's own notify, undone above,
        # would have returned it at once).
        by_key = {w.key: w for w in cluster.workloads}
        for key in released:
            w = by_key[key]
            cq = queue_of(cluster, w)
            if cq is None or cluster.settings(cq).queueing_strategy is not QueueingStrategy.BEST_EFFORT_FIFO:
                continue
            q = queues.queue(cq)
            if key in q.active and shape_hash(w, self.config) in before.queue(cq).failed_hashes:
                q = attrs.evolve(q, active=q.active - {key}, inadmissible=q.inadmissible | {key})
                queues = attrs.evolve(queues, queues={**queues.queues, cq: q})
        self._set(cluster, queues)

    def requeue_inadmissible(self, cluster_queues: Sequence[str], now: float, moved: list[str] | None = None) -> int:
        before = self.queues
        after = queue_inadmissible(self.cluster, self.queues, cluster_queues, self._at(now))
        keys: list[str] = []
        for cq in cluster_queues:
            keys += sorted(before.queue(cq).inadmissible - after.queue(cq).inadmissible)
        self.queues = after
        if moved is not None:
            moved += keys
        return len(keys)

    def pending_count(self) -> int:
        return sum(len(q.active) + len(q.inadmissible) for q in self.queues.queues.values())

    def take_notifications(self) -> Sequence[str]:
        out, self._notify = self._notify, []
        return out

    def update_workloads(self, change: Callable[[Workload], Workload], now: float) -> Sequence[str]:
        """Controllers' writes (boost annotation, preemption cost): SC-RQ-1 for parked
        workloads whose boost annotation changed, SC-IN-4 for charged ones whose effective
        priority changed (see :meth:`take_notifications`)."""
        boost = self.config.preemption.priority_boost
        changed: list[str] = []
        workloads = []
        queues = dict(self.queues.queues)
        for w in self.cluster.workloads:
            new = change(w)
            workloads.append(new)
            if new == w:
                continue
            changed.append(w.key)
            ep_changed = effective_priority(new, boost_enabled=boost) != effective_priority(w, boost_enabled=boost)
            if w.cluster_queue:
                if ep_changed:
                    self._notify.append(w.key)
                continue
            if new.annotations.get(BOOST_ANNOTATION) == w.annotations.get(BOOST_ANNOTATION):
                continue
            for name, q in queues.items():
                if w.key not in q.inadmissible:
                    continue
                parked = (
                    self.cluster.settings(name).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO
                    and self.config.scheduling_equivalence_hashing
                    and shape_hash(new, self.config) in q.failed_hashes
                )
                if not parked:
                    queues[name] = attrs.evolve(q, inadmissible=q.inadmissible - {w.key}, active=q.active | {w.key})
        if changed:
            self._set(attrs.evolve(self.cluster, workloads=workloads), attrs.evolve(self.queues, queues=queues))
        return changed

    def cycle(self, now: float) -> CycleResult:
        before = self.queues
        result = schedule_cycle(self.cluster, self.queues, config=self.config, now=self._at(now))
        old = self._by_key
        self._set(result.cluster, result.queues)
        admitted, evicted, parked = translate_results(
            result.results, old, self._by_key, self.config.preemption.priority_boost
        )
        # SC-PR-1/SC-PR-3: a target whose eviction is still in flight (termination time > 0)
        # counts without a write — it is not a new eviction, and a cycle that only re-issues
        # changes nothing (SC-T-3). The cycle rewrote exactly the targets it evicted now.
        evicted = [e for e in evicted if e.victim in result.changed]
        changed = _changed(before, result.queues, bool(admitted or evicted), result.attempt is not None)
        return CycleResult(
            changed=changed, admitted=admitted, evicted=evicted, parked=parked, heads=head_statuses(result.results)
        )

    # -- helpers

    def _with_specs(self, arrival: Arrival) -> Workload:
        return with_pod_specs(arrival, self._by_key, self._specs)


def _undo_notify(before: QueueState, after: QueueState, released: set[str]) -> QueueState:
    """Undo the immediate SC-IN-2 notify of ``release_evicted``: the workloads it moved from an
    inadmissible set to an active set go back, and failed hashes are restored. The loop issues
    the notification itself, batched in time (SC-IN-3)."""
    queues = dict(after.queues)
    for name, q in after.queues.items():
        b = before.queue(name)
        moved = (b.inadmissible & q.active) - released
        if moved or b.failed_hashes != q.failed_hashes:
            queues[name] = attrs.evolve(
                q, active=q.active - moved, inadmissible=q.inadmissible | moved, failed_hashes=b.failed_hashes
            )
    return attrs.evolve(after, queues=queues)


def _changed(before: QueueState, after: QueueState, acted: bool, ran: bool) -> bool:
    """SC-T-3 / SC-SIM-13 item 5: anything but the cycle counter and recorded cycle numbers."""
    if not ran:
        return False
    if acted or after.queues != before.queues:
        return True
    tried_before = {k: v.tried for k, v in before.scan_progress.items()}
    tried_after = {k: v.tried for k, v in after.scan_progress.items()}
    return tried_before != tried_after

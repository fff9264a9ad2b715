"""The simulator's :class:`~kueue_preempt.sim.engine.Scheduler` on the library's scheduling
cycle (rules ``SC-*``), with state carried between cycles.

The cluster and the queue memory live in one :class:`~kueue_preempt.cycle.CycleState` —
the very cycle code of :func:`kueue_preempt.cycle.schedule_cycle`, over dicts and a quota
snapshot updated in place — so a step costs what its heads and their candidates cost, not
what the whole cluster costs (the from-scratch adapter,
:class:`~kueue_preempt.sim.reference_scheduler.ReferenceCycleScheduler`, is the oracle it is
tested equal to). Each call of the event loop is one of the cycle module's transitions:

* ``arrive`` adds the workload (its pod sets as the cycle reads them) and queues it (SC-RQ-1);
* ``finish`` removes it (quota freed; the loop issues the notification, SC-IN-4);
* ``release`` is SC-EV-2/SC-EV-3 — without the notify of the other parked workloads that
  the cycle module's ``run_cycles`` uses, because the loop batches notifications in time
  (SC-IN-3); a released victim whose shape hash is recorded as failed in its BestEffortFIFO
  queue is parked without evaluation, as an arrival is (SC-RQ-1), until that notify runs;
* ``requeue_inadmissible`` is SC-IN-1 for the ClusterQueues of one tree;
* ``cycle`` runs one cycle and reports admissions, evictions and parked heads; it "changed
  nothing" exactly when SC-T-3 says so (no admission, eviction, and the same queue memory
  apart from the cycle counter).

Times: loop seconds are wall-clock ``start + t`` (creation times of arrivals use the same
origin, :data:`~kueue_preempt.sim.arrivals.model.SIM_START`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Callable, Mapping, Sequence

import attrs

from kueue_preempt.cycle import ClusterState, CycleConfig, CycleState, HeadResult, QueueState
from kueue_preempt.cycle.cluster import QueueingStrategy
from kueue_preempt.cycle.entry import Outcome
from kueue_preempt.model.workload_writes import with_spec_pod_sets
from kueue_preempt.model.flavors import PodSetSpec
from kueue_preempt.io import ClusterDump
from kueue_preempt.model import Workload
from kueue_preempt.model.priority import BOOST_ANNOTATION, base_priority, effective_priority
from kueue_preempt.sim.arrivals.model import SIM_START, Arrival
from kueue_preempt.sim.engine import Admission, CycleResult, Eviction, Parked
from kueue_preempt.sim.heads import head_statuses
from kueue_preempt.sim.output.timeline import AdmittedPodSet

__all__ = ["CycleScheduler", "cluster_state_for"]

class CycleScheduler:
    """A :class:`~kueue_preempt.sim.engine.Scheduler` backed by the scheduling cycle.

    Build it from the cycle input of the dump (``kueue_preempt.io.load_cluster_state``); the
    queue memory starts as a freshly started Kueue's (``initial_queue_state``). ``cluster``
    and ``queues`` materialise the current state (O(n); for tests and reports).
    """

    def __init__(self, cluster: ClusterState, config: CycleConfig = CycleConfig(), *, start: datetime = SIM_START) -> None:
        self.config = config
        self.start = start
        self.state = CycleState(cluster, None, config)
        self._notify: list[str] = []
        # The pod sets derived for arrivals, shared for the life of this scheduler (with_pod_specs).
        self._specs: DerivedSpecs = {}

    @property
    def cluster(self) -> ClusterState:
        return self.state.cluster_state()

    @property
    def queues(self) -> QueueState:
        return self.state.queue_state()

    def _at(self, now: float) -> datetime:
        return self.start + timedelta(seconds=now)

    # -- the Scheduler protocol

    def arrive(self, arrival: Arrival, now: float) -> None:
        status = arrival.workload.status
        self.state.arrive(self._with_specs(arrival), status if status.templates else None)

    def finish(self, workload: str, now: float) -> None:
        self.state.delete(workload)

    def release(self, workload: str, now: float) -> None:
        # SC-EV-3: parked on return when its shape is recorded as failed (the notify of the
        # release comes later, batched by the loop), hashed as the queue recorded it.
        self.state.release(workload, self._at(now), notify_self=False, hash_config=self.config)

    def requeue_inadmissible(self, cluster_queues: Sequence[str], now: float, moved: list[str] | None = None) -> int:
        return self.state.queue_inadmissible_count(cluster_queues, self._at(now), moved)

    def pending_count(self) -> int:
        return self.state.pending

    def take_notifications(self) -> Sequence[str]:
        out, self._notify = self._notify, []
        return out

    def update_workloads(self, change: Callable[[Workload], Workload], now: float) -> Sequence[str]:
        """Controllers' writes (boost annotation, preemption cost): SC-RQ-1 for parked
        workloads whose boost annotation changed, SC-IN-4 for charged ones whose effective
        priority changed (see :meth:`take_notifications`)."""
        boost = self.config.preemption.priority_boost
        state = self.state
        changed: list[str] = []
        for w in list(state.workloads.values()):
            new = change(w)
            if new == w:
                continue
            changed.append(w.key)
            state.replace(new)
            ep_changed = effective_priority(new, boost_enabled=boost) != effective_priority(w, boost_enabled=boost)
            if w.cluster_queue:
                if ep_changed:
                    self._notify.append(w.key)
                continue
            if new.annotations.get(BOOST_ANNOTATION) == w.annotations.get(BOOST_ANNOTATION):
                continue
            cq = state.queue_of(new)
            if cq is None or w.key not in state.queue(cq).inadmissible:
                continue
            q = state.queue(cq)
            parked = (
                state.c.state.settings(cq).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO
                and self.config.scheduling_equivalence_hashing
                and state.shape(new) in q.failed_hashes
            )
            if not parked:
                state.move_to_active(cq, w.key)
        return changed

    def cycle(self, now: float) -> CycleResult:
        state = self.state
        result = state.cycle(self._at(now))
        # A cycle changes conditions only, never priorities: the current objects give the
        # priorities the preemption was decided with.
        admitted, evicted, parked = translate_results(
            result.results, state.workloads, state.workloads, self.config.preemption.priority_boost
        )
        # SC-PR-1/SC-PR-3: a target whose eviction is still in flight (termination time > 0)
        # counts without a write — it is not a new eviction, and a cycle that only re-issues
        # changes nothing (SC-T-3). The cycle rewrote exactly the targets it evicted now.
        evicted = [e for e in evicted if e.victim in result.changed]
        ran = result.attempt is not None
        changed = ran and (bool(admitted or evicted) or result.memory_changed)
        return CycleResult(
            changed=changed, admitted=admitted, evicted=evicted, parked=parked, heads=head_statuses(result.results)
        )

    # -- helpers

    def _with_specs(self, arrival: Arrival) -> Workload:
        return with_pod_specs(arrival, self.state.workloads, self._specs)


DerivedSpecs = dict[tuple[int, int, object], tuple[PodSetSpec, PodSetSpec]]
"""A scheduler's table of the pod sets :func:`with_pod_specs` derived, by (template spec
identity, count, requests), each with the template spec it was derived from."""

_SPECS_LIMIT = 4096  # entries of a DerivedSpecs table; full: dropped, refilled on demand


def with_pod_specs(arrival: Arrival, workloads: Mapping[str, Workload], derived: DerivedSpecs | None = None) -> Workload:
    """The arrival's workload with the pod sets the cycle reads (``spec_pod_sets``): the
    template's scheduling fields (node selector, tolerations, minCount) with the arrival's
    counts and requests; ``workloads`` (by key) holds the template.

    ``derived`` is the caller's table of pod sets derived so far (kept for the life of a
    scheduler): arrivals of one template share a handful of sizes, so each derived spec is
    built once and shared. The result is the same with or without it."""
    w = arrival.workload.workload
    base = {ps.name: ps for ps in w.spec_pod_sets}
    if arrival.template is not None and not base:
        template = workloads.get(arrival.template)
        if template is not None:
            base = {ps.name: ps for ps in template.spec_pod_sets}
    specs = []
    for ps in arrival.workload.pod_sets:
        known = base.get(ps.name)
        if known is None:
            specs.append(PodSetSpec(ps.name, ps.count, ps.requests))
            continue
        # Keyed by the template spec object (kept alive by the entry, so its id is not
        # reused while the entry exists) and the size.
        memo = (id(known), ps.count, ps.requests)
        found = None if derived is None else derived.get(memo)
        if found is None or found[0] is not known:
            min_count = known.min_count if known.min_count is None or known.min_count <= ps.count else ps.count
            found = (known, attrs.evolve(known, count=ps.count, requests=ps.requests, min_count=min_count))
            if derived is not None:
                if len(derived) >= _SPECS_LIMIT:
                    derived.clear()
                derived[memo] = found
        specs.append(found[1])
    return with_spec_pod_sets(w, specs)


def translate_results(
    results: Sequence[HeadResult], before: Mapping[str, Workload], after: Mapping[str, Workload], boost: bool
) -> tuple[list[Admission], list[Eviction], list[Parked]]:
    """A cycle's head results as the event loop's admissions, evictions and parked workloads:
    admitted workloads as they are ``after`` the cycle, preemptors and victims as they were
    ``before`` it (their priorities and boosts)."""
    admitted: list[Admission] = []
    evicted: list[Eviction] = []
    parked: list[Parked] = []
    for r in results:
        if r.outcome is Outcome.ADMITTED:
            w = after[r.key]
            admitted.append(
                Admission(
                    r.key,
                    w.cluster_queue,
                    [AdmittedPodSet(ps.name, ps.count, ps.flavors) for ps in w.pod_sets],
                    dict(w.usage),
                )
            )
        elif r.outcome is Outcome.PREEMPTING:
            preemptor = before[r.key]
            for t in r.targets:
                victim = before.get(t.workload.key, t.workload)
                evicted.append(
                    Eviction(
                        victim=t.workload.key,
                        cluster_queue=t.cluster_queue,
                        preemptor=r.key,
                        reason=t.reason.value,
                        message=t.message,
                        preemptor_priority=base_priority(preemptor),
                        victim_priority=base_priority(victim),
                        preemptor_boost=effective_priority(preemptor, boost_enabled=boost) - base_priority(preemptor),
                        victim_boost=effective_priority(victim, boost_enabled=boost) - base_priority(victim),
                    )
                )
        if r.queue == "inadmissible":
            parked.append(Parked(r.key, r.cluster_queue, r.message))
    return admitted, evicted, parked


def cluster_state_for(base: ClusterState, dump: ClusterDump) -> ClusterState:
    """``base`` with the quota tree (ClusterQueues and Cohorts) of ``dump``: how a sweep's
    varied scenario becomes the cycle's input. Each ClusterQueue keeps the queueing fields the
    dump model does not carry (its flavor fungibility) from ``base``."""
    fungibility = {cq.name: cq.flavor_fungibility for cq in base.cluster_queues}
    queues = [
        attrs.evolve(cq, flavor_fungibility=fungibility[cq.name]) if cq.name in fungibility else cq
        for cq in dump.cluster_queues
    ]
    return attrs.evolve(base, cluster_queues=queues, cohorts=dump.cohorts)

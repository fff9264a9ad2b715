"""What happens to the queues between cycles (SC-IN-1/2, SC-EV-2/3, SC-FR-4).

These are the controller-side transitions the conformance tests and the CLI need; the
discrete-event simulator (``SC-T-*``) schedules them in time.
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable

import attrs

from kueue_preempt.model.queues import cohort_parents, root_cohort
from kueue_preempt.cycle.cluster import ClusterState, QueueingStrategy
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.queues import ClusterQueueQueue, QueueState, backoff_expired
from kueue_preempt.cycle.selectors import selects
from kueue_preempt.cycle.status import released_workload

__all__ = ["queue_inadmissible", "notify", "delete_workloads", "release_evicted"]


def _namespace_matches(cluster: ClusterState, namespace: str, cq: str) -> bool:
    if not cluster.namespaces:
        labels: dict[str, str] | None = {}
    else:
        ns = next((n for n in cluster.namespaces if n.name == namespace), None)
        labels = None if ns is None else dict(ns.labels)
    return labels is not None and selects(cluster.settings(cq).namespace_selector, labels)


def queue_inadmissible(
    cluster: ClusterState, queues: QueueState, cluster_queues: Iterable[str] | None, now: datetime
) -> QueueState:
    """SC-IN-1 for each named ClusterQueue (``None``: all): clear its failed shape hashes and
    move back to the active set every parked workload whose namespace still matches the
    selector and whose backoff has expired."""
    names = set(queues.queues) if cluster_queues is None else set(cluster_queues)
    by_key = {w.key: w for w in cluster.workloads}
    out = dict(queues.queues)
    for name in names:
        q = out.get(name)
        if q is None:
            continue
        back = frozenset(
            k
            for k in q.inadmissible
            if k in by_key
            and _namespace_matches(cluster, by_key[k].namespace, name)
            and backoff_expired(by_key[k].conditions, cluster.status(k).requeue_at, now)
        )
        out[name] = attrs.evolve(
            q, active=q.active | back, inadmissible=q.inadmissible - back, failed_hashes=frozenset()
        )
    return attrs.evolve(queues, queues=out)


def notify(cluster: ClusterState, queues: QueueState, cluster_queue: str, now: datetime) -> QueueState:
    """SC-IN-2: QueueInadmissible for the ClusterQueue, or for every CQ of its cohort tree."""
    parents = cohort_parents(cluster.cohorts)
    cq_cohort = {cq.name: cq.cohort for cq in cluster.cluster_queues}
    start = cq_cohort.get(cluster_queue)
    if start is None:
        return queue_inadmissible(cluster, queues, [cluster_queue], now)
    r = root_cohort(parents, start)
    tree = [name for name, co in cq_cohort.items() if co is not None and root_cohort(parents, co) == r]
    return queue_inadmissible(cluster, queues, tree, now)


def _bump(queues: QueueState, cqs: Iterable[str]) -> QueueState:
    gens = dict(queues.generations)
    for cq in cqs:
        gens[cq] = gens.get(cq, 0) + 1
    return attrs.evolve(queues, generations=gens)


def delete_workloads(cluster: ClusterState, queues: QueueState, keys: Iterable[str]) -> tuple[ClusterState, QueueState]:
    """Remove workloads from the cluster and the queues; their quota is freed (SC-FR-4 bumps
    the generation of the ClusterQueue they were charged to). No notify is issued here: call
    :func:`notify` to model SC-IN-4's trigger."""
    gone = set(keys)
    charged = {w.cluster_queue for w in cluster.workloads if w.key in gone and w.cluster_queue}
    new_cluster = attrs.evolve(
        cluster,
        workloads=[w for w in cluster.workloads if w.key not in gone],
        statuses={k: v for k, v in cluster.statuses.items() if k not in gone},
    )
    qs = {
        name: attrs.evolve(
            q.without_all(gone),
            preemptor=None if q.preemptor is not None and q.preemptor.key in gone else q.preemptor,
        )
        for name, q in queues.queues.items()
    }
    progress = {k: v for k, v in queues.scan_progress.items() if k not in gone}
    return new_cluster, _bump(attrs.evolve(queues, queues=qs, scan_progress=progress), charged)


def release_evicted(
    cluster: ClusterState,
    queues: QueueState,
    now: datetime,
    keys: Iterable[str] | None = None,
    config: CycleConfig = CycleConfig(),
) -> tuple[ClusterState, QueueState, list[str]]:
    """SC-EV-2/3 with termination time 0 (SC-SIM-2): every charged workload with
    ``Evicted=True`` (or those named) gives its quota back and returns to its queue.

    At release ``QuotaReserved`` and ``Admitted`` become False, ``Requeued`` is set (True for
    a preemption, reason = the eviction reason), the admission is cleared, and the workload
    enters the active set of its ClusterQueue (a preemption has no backoff, SC-EV-4); then
    every released ClusterQueue is notified (SC-IN-2, delay 0). Returns the released keys.
    """
    from kueue_preempt.cycle.step import queue_of, shape_hash

    wanted = None if keys is None else set(keys)
    released: list[str] = []
    notify_cqs: set[str] = set()
    workloads = []
    for w in cluster.workloads:
        new = None if wanted is not None and w.key not in wanted else released_workload(w, now, cluster.status(w.key).generation)
        if new is None:
            workloads.append(w)
            continue
        notify_cqs.add(w.cluster_queue)
        workloads.append(new)
        released.append(w.key)
    new_cluster = attrs.evolve(cluster, workloads=workloads)
    queues = _bump(queues, notify_cqs)
    by_key = {w.key: w for w in new_cluster.workloads}
    qs = dict(queues.queues)
    for key in released:
        w = by_key[key]
        cq = queue_of(new_cluster, w)
        if cq is None:
            continue
        q = qs.get(cq) or ClusterQueueQueue()
        target_active = backoff_expired(w.conditions, new_cluster.status(key).requeue_at, now)
        if target_active and new_cluster.settings(cq).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO and q.failed_hashes:
            # SC-RQ-1: an arrival with the shape of a parked NoFit head is parked with it.
            target_active = shape_hash(w, config) not in q.failed_hashes
        if target_active:
            q = attrs.evolve(q, active=q.active | {key}, inadmissible=q.inadmissible - {key})
        else:
            q = attrs.evolve(q, inadmissible=q.inadmissible | {key})
        qs[cq] = q
    queues = attrs.evolve(queues, queues=qs)
    for cq in sorted(notify_cqs):
        queues = notify(new_cluster, queues, cq, now)
    return new_cluster, queues, released

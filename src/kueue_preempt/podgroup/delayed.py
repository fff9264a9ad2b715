"""Delayed preemption: a group whose earlier preemptions are still in flight (PG-20, PG-DELAY-1, PG-DELAY-2).

With delayed preemption (KEP-5710, after KEP-4671) a group's victims are evicted only once the
group's whole placement is decided; evictions take time, so the group is attempted again while
its victims are still terminating. Kube-scheduler as shipped (PG-20) then simply re-issues the
current nominations. The KEP states what should happen instead, and ``mode="kep"`` does it:

* PG-DELAY-1 — if the original nomination is **still feasible** on the cluster as it will be
  once the triggered preemptions complete, no new preemption is triggered (the scheduler may
  still find an alternative placement by normal scheduling; preemption adds no victim);
* PG-DELAY-2 — if it is **no longer feasible** (other pods took the room, a node left, ...),
  the nominations are cleared and victim selection starts from scratch on the cluster *as if
  the triggered preemptions had completed*: their pods are gone and are never chosen again.

This module only answers the questions; :mod:`.group_preemption` decides what to do with the
answers. Every function leaves the cluster exactly as it found it.
"""

from __future__ import annotations

from kueue_preempt.podgroup.cluster import Cluster
from kueue_preempt.podgroup.model import Pod, PodGroupPreemptor
from kueue_preempt.podgroup.units import PreemptionUnit

__all__ = ["waiting_for_victims", "in_flight_units", "in_flight_pods", "nomination_feasible"]


def waiting_for_victims(preemptor: PodGroupPreemptor, cluster: Cluster, priority: int) -> bool:
    """PG-20: some member's nominated node holds a pod of lower effective priority (PG-7)
    that the scheduler is evicting (terminating with ``DisruptionTarget``, NODE-2 (b)).

    This is how an earlier attempt that "already triggered preemptions" is recognised: the
    library is stateless, so the cluster itself has to show it. O(pods on nominated nodes).
    """
    for pod in preemptor.pods:
        node = pod.nominated_node_name
        if node is None or not cluster.has_node(node):
            continue
        for other in cluster.pods_on(node):
            if other.preempted_by_scheduler and cluster.effective_priority(other) < priority:
                return True
    return False


def in_flight_units(cluster: Cluster, priority: int) -> tuple[PreemptionUnit, ...]:
    """The triggered preemptions still in flight that the group may count on (PG-DELAY-1).

    A unit is in flight when one of its pods is being evicted by the scheduler; units are
    atomic (PG-8, PDB-3), so a whole ``All`` group counts as leaving even if only some of its
    pods carry the condition yet. Only units of priority strictly below ``priority`` count:
    those are the only ones this group can have triggered (PG-23); a more important pod that is
    leaving makes room for someone else. O(units).
    """
    return tuple(
        u for u in cluster.units if u.priority < priority and any(p.preempted_by_scheduler for p in u.pods)
    )


def in_flight_pods(units: tuple[PreemptionUnit, ...]) -> tuple[Pod, ...]:
    """The pods of ``units``, unit by unit (the pods taken as already gone)."""
    return tuple(p for u in units for p in u.pods)


def nomination_feasible(
    preemptor: PodGroupPreemptor, cluster: Cluster, in_flight: tuple[PreemptionUnit, ...]
) -> bool:
    """PG-DELAY-1: does the original nomination still work once ``in_flight`` has left?

    The nominated members (in placement order, FIT-3) are replayed on their nominated nodes
    with the in-flight units removed, each checked with the cluster's fit rule (FIT-1) and then
    assumed there, exactly as a reprieve replays a placement (PG-27 step 3). Feasible iff every
    nominated member fits and at least ``min_count`` members are nominated (FIT-2: a placement
    of fewer pods than the gang needs is no placement). A nomination to a node that no longer
    exists is not feasible. O(nominated members + in-flight footprint); the cluster is restored.
    """
    per_node: dict[str, list[Pod]] = {}
    for pod in preemptor.pods:
        if pod.nominated_node_name is not None:
            per_node.setdefault(pod.nominated_node_name, []).append(pod)
    if sum(len(pods) for pods in per_node.values()) < preemptor.min_count:
        return False
    if not all(cluster.has_node(node) for node in per_node):
        return False
    checkpoint = cluster.checkpoint()
    try:
        cluster.remove_all(in_flight)
        return cluster.assignments_fit(per_node, per_node.keys())
    finally:
        cluster.rollback(checkpoint)

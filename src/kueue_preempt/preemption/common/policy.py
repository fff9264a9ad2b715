"""Preemption policy predicates (POL-1..POL-10).

Everything here compares *effective* priorities (EP-8), never base priorities, and the
``LowerOrNewerEqualPriority`` tie-break uses the queue-order timestamp (POL-5), not the quota
reservation time that candidate ordering uses (ORD-5).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import AbstractSet

from kueue_preempt._util.checks import arg
from kueue_preempt.model.time import ZERO_TIME
from kueue_preempt.model.config import PreemptionConfig, RequeuingTimestamp
from kueue_preempt.model import ClusterQueue, FlavorResource, PreemptionPolicy, Workload
from kueue_preempt.model.priority import effective_priority

__all__ = [
    "queue_order_timestamp",
    "order_timestamp",
    "policy_allows",
    "satisfies_preemption_policy",
    "uses_flavor_resources",
    "borrow_within_cohort_forbidden",
    "can_always_reclaim",
    "policy_rule",
]

_ONE_MS = timedelta(milliseconds=1)


def queue_order_timestamp(workload: Workload, config: PreemptionConfig = PreemptionConfig()) -> datetime:
    """The timestamp Kueue orders pending workloads by (POL-5), first matching rule."""
    arg(workload, Workload, "queue_order_timestamp", "workload")
    arg(config, PreemptionConfig, "queue_order_timestamp", "config")
    return order_timestamp(workload, config)


def order_timestamp(workload: Workload, config: PreemptionConfig) -> datetime:
    """:func:`queue_order_timestamp` without the argument checks, for the algorithms' inner loop."""
    evicted = workload.condition("Evicted")
    if evicted is not None and evicted.is_true and evicted.last_transition_time is not None:
        if (
            config.pods_ready_requeuing_timestamp is RequeuingTimestamp.EVICTION
            and evicted.reason == "PodsReadyTimeout"
        ):
            return evicted.last_transition_time  # POL-5(a)
        if evicted.reason == "AdmissionCheck":
            return evicted.last_transition_time  # POL-5(b)
    if not config.priority_sorting_within_cohort:
        preempted = workload.condition("Preempted")
        if (
            preempted is not None
            and preempted.is_true
            and preempted.reason == "InCohortReclaimWhileBorrowing"
            and preempted.last_transition_time is not None
        ):
            return preempted.last_transition_time + _ONE_MS  # POL-5(c)
    return workload.creation_time or ZERO_TIME  # POL-5(d)


def policy_allows(
    policy: PreemptionPolicy,
    preemptor_priority: int,
    candidate_priority: int,
    preemptor_time: datetime,
    candidate_time: datetime,
) -> bool:
    """The policy predicate on precomputed effective priorities and queue-order times."""
    if policy is PreemptionPolicy.LOWER_PRIORITY:
        return preemptor_priority > candidate_priority  # POL-1
    if policy is PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY:  # POL-2
        return preemptor_priority > candidate_priority or (
            preemptor_priority == candidate_priority and preemptor_time < candidate_time
        )
    return policy is PreemptionPolicy.ANY  # POL-3; Never -> False (POL-4)


def satisfies_preemption_policy(
    preemptor: Workload,
    candidate: Workload,
    policy: PreemptionPolicy | str,
    config: PreemptionConfig = PreemptionConfig(),
) -> bool:
    """May ``preemptor`` preempt ``candidate`` under ``policy``? (POL-1..POL-4).

    Unknown policy strings and ``""`` are ``Never`` (POL-4): this predicate never raises on
    the policy; wrong argument types are :class:`~kueue_preempt.errors.InvalidArgument`.
    """
    arg(preemptor, Workload, "satisfies_preemption_policy", "preemptor")
    arg(candidate, Workload, "satisfies_preemption_policy", "candidate")
    arg(config, PreemptionConfig, "satisfies_preemption_policy", "config")
    try:
        pol = PreemptionPolicy(policy)
    except ValueError:
        return False
    if pol is PreemptionPolicy.NEVER or pol is PreemptionPolicy.UNSET:
        return False  # POL-4; an unset policy matches no candidate either (POL-8)
    return policy_allows(
        pol,
        effective_priority(preemptor, boost_enabled=config.priority_boost),
        effective_priority(candidate, boost_enabled=config.priority_boost),
        order_timestamp(preemptor, config),
        order_timestamp(candidate, config),
    )


def uses_flavor_resources(candidate: Workload, frs: AbstractSet[FlavorResource]) -> bool:
    """POL-9: does any pod set of ``candidate`` have a flavor on a FlavorResource in ``frs``?

    Flavor-based, not amount-based: a zero amount still overlaps.
    """
    return not candidate.used_flavor_resources.isdisjoint(frs)


def borrow_within_cohort_forbidden(cq: ClusterQueue) -> bool:
    """POL-8: no ``borrowWithinCohort`` stanza, or its policy is ``Never``.

    An unset policy (:attr:`PreemptionPolicy.UNSET`) is not ``Never``: as in Kueue, it allows
    preempting while borrowing.
    """
    bwc = cq.preemption.borrow_within_cohort
    return bwc is None or bwc.policy is PreemptionPolicy.NEVER


def can_always_reclaim(cq: ClusterQueue) -> bool:
    """POL-10: ``reclaimWithinCohort: Any``."""
    return cq.preemption.reclaim_within_cohort is PreemptionPolicy.ANY


_POLICY_RULE = {
    PreemptionPolicy.LOWER_PRIORITY: "POL-1",
    PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY: "POL-2",
    PreemptionPolicy.ANY: "POL-3",
    PreemptionPolicy.NEVER: "POL-4",
    PreemptionPolicy.UNSET: "POL-8",  # unset matches no candidate, like Never
}


def policy_rule(policy: PreemptionPolicy) -> str:
    """The rule ID that defines ``policy``'s predicate (for decision traces)."""
    return _POLICY_RULE[policy]

"""Checkers written from the specification, one module per decision kind.

Each ``check_<kind>(scenario, result)`` checks every invariant of that decision and raises
``AssertionError`` naming the violated rule; the separate checkers it combines stay
available. The shared spec models are :mod:`~kueue_preempt.testing.invariants.policy`
(effective priority, queue order, the preemption policies) and
:mod:`~kueue_preempt.testing.invariants.quota` (a recomputing quota model).
"""

from __future__ import annotations

from kueue_preempt.testing.invariants.assignment import (
    AssignmentTree,
    Pm,
    RefAssignment,
    RefDecision,
    RefEntry,
    RefPodSet,
    check_assignment,
    check_entry_modes,
    check_flavor_choice,
    check_modes,
    check_partial_admission,
    check_requests_and_usage,
    check_resource_groups,
    check_targets,
    check_usable_flavors,
    fnv_order_of,
    pod_set_count,
    pod_set_group_members,
    reference_assignment,
    reference_selected,
    reference_tolerated,
    reference_usable,
)
from kueue_preempt.testing.invariants.classic import (
    HIERARCHICAL_RECLAIM,
    REASON_OF_VARIANT,
    RECLAIM_WHILE_BORROWING,
    RECLAIM_WITHOUT_BORROWING,
    WITHIN_CQ,
    Expectation,
    check_empty_result_justified,
    check_fits_after_removal,
    check_minimality,
    check_target_set_shape,
    check_targets_policy,
    expected_variant,
    ord_ties_across_queues,
    reference_classic,
)
from kueue_preempt.testing.invariants.policy import (
    BOOST_KEY,
    ZERO_TIME,
    borrow_within_cohort,
    effective_priority,
    policy_allows,
    queue_order_time,
    uses_frnp,
)
from kueue_preempt.testing.invariants.quota import Node, QuotaTree, SpecTree, Usage, workload_usage

__all__ = [
    # policy
    "BOOST_KEY",
    "ZERO_TIME",
    "effective_priority",
    "queue_order_time",
    "policy_allows",
    "uses_frnp",
    "borrow_within_cohort",
    # quota
    "Node",
    "Usage",
    "QuotaTree",
    "SpecTree",
    "workload_usage",
    # classic
    "WITHIN_CQ",
    "HIERARCHICAL_RECLAIM",
    "RECLAIM_WITHOUT_BORROWING",
    "RECLAIM_WHILE_BORROWING",
    "REASON_OF_VARIANT",
    "Expectation",
    "expected_variant",
    "check_target_set_shape",
    "check_targets_policy",
    "check_fits_after_removal",
    "check_minimality",
    "check_empty_result_justified",
    "ord_ties_across_queues",
    "reference_classic",
    # assignment
    "AssignmentTree",
    "Pm",
    "RefEntry",
    "RefPodSet",
    "RefAssignment",
    "RefDecision",
    "fnv_order_of",
    "pod_set_count",
    "pod_set_group_members",
    "reference_tolerated",
    "reference_selected",
    "reference_usable",
    "reference_assignment",
    "check_usable_flavors",
    "check_resource_groups",
    "check_requests_and_usage",
    "check_entry_modes",
    "check_flavor_choice",
    "check_modes",
    "check_partial_admission",
    "check_targets",
    "check_assignment",
]

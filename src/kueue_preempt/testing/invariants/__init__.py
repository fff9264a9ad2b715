"""Checkers written from the specification, one module per decision kind.

Each ``check_<kind>(scenario, result)`` checks every invariant of that decision and raises
``AssertionError`` naming the violated rule; the separate checkers it combines stay
available. The shared spec models are :mod:`~kueue_preempt.testing.invariants.policy`
(effective priority, queue order, the preemption policies) and
:mod:`~kueue_preempt.testing.invariants.quota` (a recomputing quota model).
"""

from __future__ import annotations

from kueue_preempt.testing.invariants.classic import (
    HIERARCHICAL_RECLAIM,
    REASON_OF_VARIANT,
    RECLAIM_WHILE_BORROWING,
    RECLAIM_WITHOUT_BORROWING,
    WITHIN_CQ,
    Expectation,
    candidate_order_is_strict,
    check_attempt,
    check_classic,
    check_empty_result_justified,
    check_fits_after_removal,
    check_matches_reference,
    check_minimality,
    check_target_set_shape,
    check_targets_policy,
    expected_variant,
    ord_ties_across_queues,
    reference_classic,
    reference_classic_answers,
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
    "check_attempt",
    "check_matches_reference",
    "check_classic",
    "candidate_order_is_strict",
    "reference_classic_answers",
]

"""kueue_preempt: Kueue's preemption algorithms as typed, pure-Python functions.

Import the public API from here; submodules are one concept each (``quantity``, ``model``,
``quota``, ``priority``, ``ordering``, ``policy``, ``classic``, ``drs``, ``fairsharing``,
``preemption``).
"""

from __future__ import annotations

from .classic import classic_targets
from .config import (
    AdmissionFairSharing,
    FairSharingConfig,
    FairSharingStrategy,
    FeatureGates,
    NonPreemptibleMode,
    PreemptionConfig,
    RequeuingTimestamp,
    WaitForPodsReady,
)
from .drs import DominantResourceShare, compare_drs, dominant_resource_share, is_borrowing, is_borrowing_on
from .errors import (
    CohortCycle,
    ConfigurationError,
    DuplicateName,
    InputTooLarge,
    InvalidArgument,
    InvalidBoost,
    InvalidModel,
    InvalidQuantity,
    KueuePreemptError,
    UnknownClusterQueue,
    UnknownCohort,
    UnknownReference,
    UnsupportedConfiguration,
)
from .fairsharing import (
    ClusterQueueOrdering,
    fair_shares,
    fair_targets,
    ordering_for,
    strategy_allows,
    target_share_after_removal,
)
from .messages import human_readable_reason, preemption_message
from .model import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    ClassPreemptionPolicy,
    Condition,
    EvictionStat,
    FlavorAssignmentMode,
    FlavorResource,
    PodSetUsage,
    PreemptionPolicy,
    PreemptionReason,
    ResourceQuota,
    PriorityClassRef,
    Target,
    Workload,
    WorkloadPriorityClass,
)
from .nonpreemptible import (
    NonPreemptibleQuotaCheck,
    NonPreemptibleViolation,
    check_non_preemptible_quota,
    is_non_preemptible,
)
from .ordering import candidate_sort_key, candidates_ordering, sort_candidates
from .policy import queue_order_timestamp, satisfies_preemption_policy
from .preemption import get_targets
from .priority import (
    BOOST_ANNOTATION,
    PriorityInfo,
    effective_priority,
    parse_boost,
    preemption_cost,
    priority_info,
    validate_boost,
)
from .queueing import scheduling_order_key, sort_pending
from .trace import DecisionTrace, TraceEvent, Verdict
from .quantity import UNLIMITED, parse_quantity, quota_amount, request_amount
from .quota import QuotaNode, Snapshot

__version__ = "0.1.0"

__all__ = [
    "AdmissionFairSharing",
    "Assignment",
    "BOOST_ANNOTATION",
    "BorrowWithinCohort",
    "ClusterQueue",
    "ClusterQueueOrdering",
    "DecisionTrace",
    "DominantResourceShare",
    "ClusterQueuePreemption",
    "Cohort",
    "CohortCycle",
    "ClassPreemptionPolicy",
    "Condition",
    "EvictionStat",
    "ConfigurationError",
    "DuplicateName",
    "FairSharingConfig",
    "FairSharingStrategy",
    "FeatureGates",
    "FlavorAssignmentMode",
    "FlavorResource",
    "InputTooLarge",
    "InvalidArgument",
    "InvalidBoost",
    "InvalidModel",
    "InvalidQuantity",
    "KueuePreemptError",
    "NonPreemptibleMode",
    "NonPreemptibleQuotaCheck",
    "NonPreemptibleViolation",
    "PodSetUsage",
    "PreemptionConfig",
    "PreemptionPolicy",
    "PreemptionReason",
    "PriorityClassRef",
    "PriorityInfo",
    "QuotaNode",
    "RequeuingTimestamp",
    "ResourceQuota",
    "Snapshot",
    "Target",
    "TraceEvent",
    "UNLIMITED",
    "UnknownClusterQueue",
    "UnknownCohort",
    "UnknownReference",
    "UnsupportedConfiguration",
    "Verdict",
    "WaitForPodsReady",
    "Workload",
    "WorkloadPriorityClass",
    "candidate_sort_key",
    "candidates_ordering",
    "check_non_preemptible_quota",
    "classic_targets",
    "compare_drs",
    "dominant_resource_share",
    "fair_shares",
    "fair_targets",
    "is_borrowing",
    "is_borrowing_on",
    "is_non_preemptible",
    "ordering_for",
    "strategy_allows",
    "target_share_after_removal",
    "effective_priority",
    "get_targets",
    "human_readable_reason",
    "parse_boost",
    "parse_quantity",
    "preemption_cost",
    "preemption_message",
    "priority_info",
    "queue_order_timestamp",
    "quota_amount",
    "request_amount",
    "satisfies_preemption_policy",
    "scheduling_order_key",
    "sort_candidates",
    "sort_pending",
    "validate_boost",
]

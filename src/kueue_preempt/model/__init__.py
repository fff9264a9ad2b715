"""The facts every decision reads: frozen, validated value types (DM-*).

One representation per concept: flavor-resources and quotas (:mod:`.resources`), flavors,
resource groups and pod-set specs (:mod:`.flavors`), ClusterQueues and Cohorts
(:mod:`.queues`), Kubernetes label selectors (:mod:`.selectors`), workloads (:mod:`.workload`), a decision's assignment and targets
(:mod:`.decision`) and the preemption configuration (:mod:`.config`). Quantities
(:mod:`.quantity`), timestamps (:mod:`.time`), effective priority (:mod:`.priority`) and pod
requests (:mod:`.pod_requests`) are modules of their own.
"""

from __future__ import annotations

from kueue_preempt.model.resources import (
    FlavorResource,
    ResourceQuota,
)
from kueue_preempt.model.flavors import (
    Taint,
    Toleration,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    ResourceFlavor,
    FlavorQuotas,
    ResourceGroup,
    FungibilityPolicy,
    FlavorPreference,
    FlavorFungibility,
    PodSetSpec,
)
from kueue_preempt.model.selectors import (
    SelectorOperator,
    LabelSelectorRequirement,
    LabelSelector,
)
from kueue_preempt.model.queues import (
    PreemptionPolicy,
    BorrowWithinCohort,
    ClusterQueuePreemption,
    ClusterQueue,
    Cohort,
    QueueingStrategy,
    StopPolicy,
    AdmissionCheckRule,
    ClusterQueueSettings,
    LocalQueue,
)
from kueue_preempt.model.workload import (
    Condition,
    EvictionStat,
    PriorityClassRef,
    WorkloadPriorityClass,
    ClassPreemptionPolicy,
    PodSetUsage,
    Workload,
    WORKLOAD_PRIORITY_CLASS_GROUP,
    WORKLOAD_PRIORITY_CLASS_KIND,
)
from kueue_preempt.model.decision import (
    FlavorAssignmentMode,
    Assignment,
    PreemptionReason,
    Target,
)
from kueue_preempt.model.config import (
    FairSharingStrategy,
    FairSharingConfig,
    RequeuingTimestamp,
    NonPreemptibleMode,
    FeatureGates,
    PreemptionConfig,
    WaitForPodsReady,
    AdmissionFairSharing,
)

from kueue_preempt.model.pod_requests import (
    ContainerResources,
    effective_pod_requests,
)
from kueue_preempt.model.priority import (
    BOOST_ANNOTATION,
    PriorityInfo,
    effective_priority,
    parse_boost,
    preemption_cost,
    priority_info,
    validate_boost,
)
from kueue_preempt.model.quantity import (
    UNLIMITED,
    parse_quantity,
    quota_amount,
    request_amount,
)

__all__ = [
    "QueueingStrategy",
    "StopPolicy",
    "AdmissionCheckRule",
    "ClusterQueueSettings",
    "LocalQueue",
    "SelectorOperator",
    "LabelSelectorRequirement",
    "LabelSelector",
    "FlavorResource",
    "ResourceQuota",
    "Taint",
    "Toleration",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "ResourceFlavor",
    "FlavorQuotas",
    "ResourceGroup",
    "FungibilityPolicy",
    "FlavorPreference",
    "FlavorFungibility",
    "PodSetSpec",
    "PreemptionPolicy",
    "BorrowWithinCohort",
    "ClusterQueuePreemption",
    "ClusterQueue",
    "Cohort",
    "Condition",
    "EvictionStat",
    "PriorityClassRef",
    "WorkloadPriorityClass",
    "ClassPreemptionPolicy",
    "PodSetUsage",
    "Workload",
    "WORKLOAD_PRIORITY_CLASS_GROUP",
    "WORKLOAD_PRIORITY_CLASS_KIND",
    "FlavorAssignmentMode",
    "Assignment",
    "PreemptionReason",
    "Target",
    "FairSharingStrategy",
    "FairSharingConfig",
    "RequeuingTimestamp",
    "NonPreemptibleMode",
    "FeatureGates",
    "PreemptionConfig",
    "WaitForPodsReady",
    "AdmissionFairSharing",
    "ContainerResources",
    "effective_pod_requests",
    "BOOST_ANNOTATION",
    "PriorityInfo",
    "effective_priority",
    "parse_boost",
    "preemption_cost",
    "priority_info",
    "validate_boost",
    "UNLIMITED",
    "parse_quantity",
    "quota_amount",
    "request_amount",
]

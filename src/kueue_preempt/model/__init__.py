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
    quotas_of_groups,
    quota_key_components,
    groups_of_quota_keys,
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
    "quotas_of_groups",
    "quota_key_components",
    "groups_of_quota_keys",
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
]

"""Adapter: vendored Kueue flavor-assignment cases -> public API inputs (FAS-*).

The case format is the "Additions (flavor-assignment cases)" section of
tests/conformance/README.md. This module only translates; every decision is made by
:func:`kueue_preempt.assign_flavors` and friends.
"""

from __future__ import annotations

from typing import Any

from kueue_preempt import (
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FairSharingConfig,
    FlavorFungibility,
    FlavorQuotas,
    FlavorResource,
    PodSetSpec,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    quota_amount,
    request_amount,
)
from kueue_preempt.assignment import AssignmentGates
from kueue_preempt.model import NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration
from kueue_preempt.assignment import OracleResult

Case = dict[str, Any]

# The Kueue test files whose cases this adapter runs (all of their cases, whatever they hold).
FILES = (
    "TestAssignFlavors",
    "TestAssignFlavorsWithAllowedFlavors",
    "TestAssignment_RequiresBorrowing",
    "TestDeletedFlavors",
    "TestHierarchical",
    "TestIsNoFitDueToCapacityAndLimits",
    "TestIsPreferred",
    "TestReclaimBeforePriorityPreemption",
    "TestSearch",
)


def _quota(q: Case, resource: str, has_parent: bool) -> ResourceQuota:
    bl, ll = q.get("borrowingLimit"), q.get("lendingLimit")
    if not has_parent:
        # Q-9/Q-10: without a parent Kueue never reads the limits (the cases' notes say the
        # CRD would reject them); the model refuses them, so they are dropped here.
        bl = ll = None
    return ResourceQuota(
        nominal=quota_amount(q["nominal"], resource),
        borrowing_limit=None if bl is None else quota_amount(bl, resource),
        lending_limit=None if ll is None else quota_amount(ll, resource),
    )


def groups_of(raw: list[Case], has_parent: bool) -> list[ResourceGroup]:
    return [
        ResourceGroup(
            covered_resources=g.get("coveredResources") or [],
            flavors=[
                FlavorQuotas(f["name"], {r: _quota(q, r, has_parent) for r, q in (f.get("resources") or {}).items()})
                for f in g.get("flavors") or []
            ],
        )
        for g in raw
    ]


def _policy(value: str | None) -> PreemptionPolicy:
    # A conformance null is a field left unset in Go (POL-8): kept as UNSET, not Never.
    return PreemptionPolicy.UNSET if value is None else PreemptionPolicy(value)


def preemption_of(raw: Case | None) -> ClusterQueuePreemption:
    if raw is None:
        return ClusterQueuePreemption()  # no stanza: Kueue's cache defaults (Never, Never, none)
    bwc = raw.get("borrowWithinCohort")
    return ClusterQueuePreemption(
        within_cluster_queue=_policy(raw.get("withinClusterQueue")),
        reclaim_within_cohort=_policy(raw.get("reclaimWithinCohort")),
        borrow_within_cohort=None
        if bwc is None
        else BorrowWithinCohort(policy=_policy(bwc.get("policy")), max_priority_threshold=bwc.get("maxPriorityThreshold")),
    )


def fungibility_of(raw: Case | None) -> FlavorFungibility:
    raw = raw or {}
    return FlavorFungibility(
        when_can_borrow=raw.get("whenCanBorrow"),
        when_can_preempt=raw.get("whenCanPreempt"),
        preference=raw.get("preference"),
    )


def cluster_queue_of(raw: Case) -> ClusterQueue:
    cohort = raw.get("cohort")
    return ClusterQueue(
        name=raw["name"],
        cohort=cohort,
        resource_groups=groups_of(raw.get("resourceGroups") or [], cohort is not None),
        preemption=preemption_of(raw.get("preemption")),
        flavor_fungibility=fungibility_of(raw.get("flavorFungibility")),
        fair_weight=raw.get("fairWeight") or "1",
        admission_scope_usage_based=raw.get("admissionScope") == "UsageBasedAdmissionFairSharing",
    )


def cohort_of(raw: Case) -> Cohort:
    has_parent = raw.get("parent") is not None
    quotas: dict[FlavorResource, ResourceQuota] = {}
    for g in groups_of(raw.get("resourceGroups") or [], has_parent):
        for fq in g.flavors:
            for r, q in fq.resources.items():
                quotas[FlavorResource(fq.name, r)] = q
    return Cohort(name=raw["name"], parent=raw.get("parent"), quotas=quotas, fair_weight=raw.get("fairWeight") or "1")


def flavor_of(raw: Case) -> ResourceFlavor:
    return ResourceFlavor(
        name=raw["name"],
        node_labels=raw.get("nodeLabels") or {},
        node_taints=[Taint(t["key"], t.get("value") or "", t.get("effect") or "") for t in raw.get("nodeTaints") or []],
        tolerations=[toleration_of(t) for t in raw.get("tolerations") or []],
        topology_name=raw.get("topologyName"),
    )


def toleration_of(raw: Case) -> Toleration:
    return Toleration(
        key=raw.get("key") or "", operator=raw.get("operator") or "", value=raw.get("value") or "", effect=raw.get("effect") or ""
    )


def pod_set_of(raw: Case) -> PodSetSpec:
    affinity = raw.get("requiredNodeAffinity")
    return PodSetSpec(
        name=raw["name"],
        count=raw["count"],
        min_count=raw.get("minCount"),
        requests={r: request_amount(q, r) for r, q in (raw.get("requests") or {}).items()},
        node_selector=raw.get("nodeSelector") or {},
        required_node_affinity=None
        if affinity is None
        else [
            NodeSelectorTerm(
                [NodeSelectorRequirement(e["key"], e["operator"], e.get("values") or []) for e in t.get("matchExpressions") or []]
            )
            for t in affinity
        ],
        tolerations=[toleration_of(t) for t in raw.get("tolerations") or []],
        pod_set_group=raw.get("podSetGroup"),
        topology_request=raw.get("topologyRequest") is not None,
    )


def workload_of(raw: Case) -> Workload:
    return Workload(
        name=raw.get("name") or "wl",  # the Go test's bare Workload has no name
        namespace=raw.get("namespace") or "",
        priority=raw.get("priority"),
        annotations=raw.get("annotations") or {},
        spec_pod_sets=[pod_set_of(ps) for ps in raw.get("podSets") or []],
        reclaimable_pods=[(r["name"], r["count"]) for r in raw.get("reclaimablePods") or []],
    )


def usage_workloads(case: Case) -> list[Workload]:
    """One synthetic admitted workload per ``clusterQueueUsage`` entry (the Go test's AddUsage)."""
    out = []
    for cq, usage in (case.get("clusterQueueUsage") or {}).items():
        pod_sets = []
        for i, (key, q) in enumerate(usage.items()):
            fr = FlavorResource.parse(key)
            pod_sets.append(
                PodSetUsage(name=f"ps{i}", flavors={fr.resource: fr.flavor}, usage={fr.resource: request_amount(q, fr.resource)})
            )
        if pod_sets:
            out.append(Workload(name=f"usage-{cq}", namespace="usage", cluster_queue=cq, pod_sets=pod_sets))
    return out


def snapshot_of(case: Case) -> Snapshot:
    return Snapshot(
        cluster_queues=[cluster_queue_of(q) for q in case["clusterQueues"]],
        cohorts=[cohort_of(c) for c in case.get("cohorts") or []],
        workloads=usage_workloads(case),
    )


def config_of(case: Case) -> PreemptionConfig:
    fair = (case.get("config") or {}).get("fairSharing")
    return PreemptionConfig(fair_sharing=FairSharingConfig() if fair else None)


def gates_of(case: Case) -> AssignmentGates:
    return AssignmentGates.from_kueue((case.get("config") or {}).get("featureGates") or {})


class StubOracle:
    """The Go tests' oracle stub: a fixed answer per flavor/resource, else the default."""

    def __init__(self, raw: Case | None) -> None:
        raw = raw or {}
        default = raw.get("default") or {"possibility": "Preempt", "borrowingLevel": 0}
        self.default = OracleResult(default["possibility"], default.get("borrowingLevel") or 0)
        self.per_fr = {
            FlavorResource.parse(k): OracleResult(v["possibility"], v.get("borrowingLevel") or 0)
            for k, v in (raw.get("perFlavorResource") or {}).items()
        }

    def __call__(self, workload: Workload, cluster_queue: str, fr: FlavorResource, amount: int, snapshot: Snapshot) -> OracleResult:
        return self.per_fr.get(fr, self.default)

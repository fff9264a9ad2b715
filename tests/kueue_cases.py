"""Adapter: vendored Kueue conformance cases (tests/conformance/kueue) -> public API inputs.

The case format is described in tests/conformance/README.md. This module only translates;
every decision is made by the library's public API.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any, Iterator

import pytest

from kueue_preempt import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FairSharingConfig,
    FlavorResource,
    PodSetUsage,
    PreemptionConfig,
    ResourceQuota,
    Snapshot,
    Workload,
    quota_amount,
    request_amount,
)
from kueue_preempt.model import Condition
from kueue_preempt.model.time import parse_time

CASES_DIR = Path(__file__).parent / "conformance" / "kueue"

Case = dict[str, Any]


def load_cases(test: str, kind: str | None = None) -> list[Any]:
    """pytest params for every case of ``<test>.json``; skipped cases keep their reason."""
    data = json.loads((CASES_DIR / f"{test}.json").read_text())
    params = []
    for case in data["cases"]:
        if kind is not None and case["kind"] != kind:
            continue
        marks = [pytest.mark.skip(reason=case["skip"])] if case.get("skip") else []
        params.append(pytest.param(case, id=case["name"], marks=marks))
    return params


def iter_all_cases() -> Iterator[tuple[str, Case]]:
    for path in sorted(CASES_DIR.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            yield path.stem, case


def config_of(case: Case) -> PreemptionConfig:
    cfg = case.get("config") or {}
    gates = cfg.get("featureGates") or {}
    fair = None
    if cfg.get("fairSharing"):
        fair = FairSharingConfig(preemption_strategies=cfg.get("fairSharingStrategies") or ())
    return PreemptionConfig(
        fair_sharing=fair,
        admission_fair_sharing=bool(cfg.get("admissionFairSharing")) and gates.get("AdmissionFairSharing", True),
        priority_boost=gates.get("PriorityBoost", False),  # Kueue's default: off
        priority_sorting_within_cohort=gates.get("PrioritySortingWithinCohort", True),
        fair_sharing_preempt_within_nominal=gates.get("FairSharingPreemptWithinNominal", True),
        # These Kueue unit tests build the preemptor directly, without the configuration's
        # waitForPodsReady default, so the requeuing timestamp is unset there (DM-10).
        pods_ready_requeuing_timestamp=None,
    )


def quotas_of(groups: list[Case]) -> dict[FlavorResource, ResourceQuota]:
    out: dict[FlavorResource, ResourceQuota] = {}
    for group in groups:
        for flavor in group["flavors"]:
            for resource, q in flavor["resources"].items():
                bl, ll = q.get("borrowingLimit"), q.get("lendingLimit")
                out[FlavorResource(flavor["name"], resource)] = ResourceQuota(
                    nominal=quota_amount(q["nominal"], resource),
                    borrowing_limit=None if bl is None else quota_amount(bl, resource),
                    lending_limit=None if ll is None else quota_amount(ll, resource),
                )
    return out


def cluster_queue_of(raw: Case) -> ClusterQueue:
    p = raw.get("preemption") or {}
    bwc = p.get("borrowWithinCohort")
    return ClusterQueue(
        name=raw["name"],
        cohort=raw.get("cohort"),
        quotas=quotas_of(raw.get("resourceGroups") or []),
        preemption=ClusterQueuePreemption(
            within_cluster_queue=p.get("withinClusterQueue"),
            reclaim_within_cohort=p.get("reclaimWithinCohort"),
            borrow_within_cohort=None
            if bwc is None
            else BorrowWithinCohort(policy=bwc.get("policy"), max_priority_threshold=bwc.get("maxPriorityThreshold")),
        ),
        fair_weight=raw.get("fairWeight") or "1",
        admission_scope_usage_based=raw.get("admissionScope") == "UsageBasedAdmissionFairSharing",
    )


def cohort_of(raw: Case) -> Cohort:
    return Cohort(
        name=raw["name"],
        parent=raw.get("parent"),
        quotas=quotas_of(raw.get("resourceGroups") or []),
        fair_weight=raw.get("fairWeight") or "1",
    )


def workload_of(raw: Case) -> Workload:
    extra = raw.get("extra") or {}
    conditions = [
        Condition(
            type=c["type"],
            status=c.get("status", "True"),
            reason=c.get("reason", ""),
            last_transition_time=c.get("lastTransitionTime"),
        )
        for c in extra.get("conditions", [])
    ]
    pod_sets = [
        PodSetUsage(
            name=ps.get("name", "main"),
            count=ps.get("count", 1),
            flavors=ps.get("flavors") or {},
            usage={r: request_amount(q, r) for r, q in (ps.get("resourceUsage") or {}).items()},
        )
        for ps in raw.get("podSets") or []
        if "flavors" in ps
    ]
    lq_usage = raw.get("localQueueUsage")
    return Workload(
        name=raw["name"],
        namespace=raw.get("namespace") or "",
        uid=raw.get("uid") or "",
        cluster_queue=raw.get("clusterQueue") or "",
        local_queue=raw.get("localQueue") or "",
        priority=raw.get("priority"),
        annotations=raw.get("annotations") or {},
        labels=extra.get("labels") or {},
        creation_time=raw.get("creationTimestamp"),
        quota_reserved_at=raw.get("quotaReservedAt"),
        evicted=bool(raw.get("evicted")),
        conditions=conditions,
        pod_sets=pod_sets,
        local_queue_fs_usage=None if lq_usage is None else float(lq_usage),
    )


def incoming_of(raw: Case) -> tuple[Workload, Assignment]:
    extra = raw.get("extra") or {}
    preemptor = Workload(
        name=raw["name"],
        namespace=raw.get("namespace") or "",
        uid=raw.get("uid") or "",
        local_queue=raw.get("localQueue") or "",
        priority=raw.get("priority"),
        annotations=raw.get("annotations") or {},
        labels=extra.get("labels") or {},
        creation_time=raw.get("creationTimestamp"),
    )
    requests = {}
    for key, q in (raw.get("requests") or {}).items():
        fr = FlavorResource.parse(key)
        requests[fr] = request_amount(q, fr.resource)
    preempt = [FlavorResource.parse(k) for k in raw.get("preemptFlavorResources") or []]
    return preemptor, Assignment(requests=requests, preempt=preempt)


def snapshot_of(case: Case) -> Snapshot:
    return Snapshot(
        cluster_queues=[cluster_queue_of(q) for q in case["clusterQueues"]],
        cohorts=[cohort_of(c) for c in case.get("cohorts") or []],
        workloads=[workload_of(w) for w in case.get("admitted") or []],
    )


def now_of(case: Case) -> datetime:
    return parse_time(case.get("now") or "2026-01-01T00:00:00Z")

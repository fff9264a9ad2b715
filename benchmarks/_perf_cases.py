"""Adapter: perf-tier cases (conformance "targets" schema, made by ``perf_gen.py``) -> model objects.

The benchmarks' own copy of the translation the conformance tests do (benchmarks must not need
the test suite). Only the fields the generated tiers use are translated.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

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
    Workload,
    quota_amount,
    request_amount,
)
from kueue_preempt.model.time import parse_time

Case = dict[str, Any]


def load_tier(tier: str, variants: str, cases_dir: str | None) -> list[Case]:
    """The tier's cases: read ``<cases_dir>/<tier>.json`` (gen.py's output) or generate them."""
    if cases_dir is not None:
        data = json.loads((Path(cases_dir) / f"{tier}.json").read_text())
        cases: list[Case] = data["cases"]
        wanted = set(variants.split(",")) if variants != "all" else None
        return [c for c in cases if wanted is None or c["extra"]["perf"]["variant"] in wanted]
    import perf_gen

    out: list[Case] = perf_gen.make_cases(tier, variants)
    return out


def config_of(case: Case) -> PreemptionConfig:
    cfg = case.get("config") or {}
    fair = None
    if cfg.get("fairSharing"):
        fair = FairSharingConfig(preemption_strategies=cfg.get("fairSharingStrategies") or ())
    return PreemptionConfig(fair_sharing=fair)


def _quotas(groups: list[Case]) -> dict[FlavorResource, ResourceQuota]:
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
        quotas=_quotas(raw.get("resourceGroups") or []),
        preemption=ClusterQueuePreemption(
            within_cluster_queue=p.get("withinClusterQueue"),
            reclaim_within_cohort=p.get("reclaimWithinCohort"),
            borrow_within_cohort=None
            if bwc is None
            else BorrowWithinCohort(policy=bwc.get("policy"), max_priority_threshold=bwc.get("maxPriorityThreshold")),
        ),
        fair_weight=raw.get("fairWeight") or "1",
    )


def cohort_of(raw: Case) -> Cohort:
    return Cohort(
        name=raw["name"],
        parent=raw.get("parent"),
        quotas=_quotas(raw.get("resourceGroups") or []),
        fair_weight=raw.get("fairWeight") or "1",
    )


def workload_of(raw: Case) -> Workload:
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
    return Workload(
        name=raw["name"],
        namespace=raw.get("namespace") or "",
        uid=raw.get("uid") or "",
        cluster_queue=raw.get("clusterQueue") or "",
        local_queue=raw.get("localQueue") or "",
        priority=raw.get("priority"),
        annotations=raw.get("annotations") or {},
        creation_time=raw.get("creationTimestamp"),
        quota_reserved_at=raw.get("quotaReservedAt"),
        evicted=bool(raw.get("evicted")),
        pod_sets=pod_sets,
    )


def incoming_of(raw: Case) -> tuple[Workload, Assignment]:
    preemptor = Workload(
        name=raw["name"],
        namespace=raw.get("namespace") or "",
        uid=raw.get("uid") or "",
        local_queue=raw.get("localQueue") or "",
        priority=raw.get("priority"),
        annotations=raw.get("annotations") or {},
        creation_time=raw.get("creationTimestamp"),
    )
    requests = {}
    for key, q in (raw.get("requests") or {}).items():
        fr = FlavorResource.parse(key)
        requests[fr] = request_amount(q, fr.resource)
    preempt = [FlavorResource.parse(k) for k in raw.get("preemptFlavorResources") or []]
    return preemptor, Assignment(requests=requests, preempt=preempt)


def now_of(case: Case) -> datetime:
    return parse_time(case.get("now") or "2026-01-01T00:00:00Z")

"""Adapter: Kueue scheduler conformance cases (kinds ``cycle``, ``entry_ordering``) -> public API.

The case format is the "Additions (scheduling-cycle cases)" section of
tests/conformance/README.md. This module only translates inputs and outputs; every decision is
made by :func:`kueue_preempt.cycle.schedule_cycle` and the public helpers next to it.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

import pytest

import attrs

from assignment_cases import cluster_queue_of, cohort_of, flavor_of, pod_set_of
from kueue_preempt import FairSharingConfig, PodSetUsage, PreemptionConfig, Workload, request_amount
from kueue_preempt.model import Condition, EvictionStat
from kueue_preempt.model.time import parse_time
from kueue_preempt.model.config import RequeuingTimestamp
from kueue_preempt.cycle import (
    AdmissionCheckState,
    ClusterState,
    CycleConfig,
    CycleResult,
    LabelSelectorRequirement,
    LabelSelector,
    LimitRange,
    LocalQueue,
    Namespace,
    ClusterQueueSettings,
    QueueState,
    WorkloadStatus,
    delete_workloads,
    queue_inadmissible,
    schedule_cycle,
)
from kueue_preempt.model.flavors import PodSetSpec

CASES_DIR = Path(__file__).parent / "conformance" / "kueue"
KINDS = ("cycle", "entry_ordering")
OUT_OF_SCOPE_GATES = frozenset(
    {
        "TASRecomputeAssignmentWithinSchedulingCycle",
        "MultiKueueOrchestratedPreemption",
        "WorkloadRequestUseMergePatch",
        "UnadmittedWorkloadsExplicitStatus",
    }
)

Case = dict[str, Any]


def iter_cases() -> Iterator[Any]:
    """pytest params: every case of kind cycle/entry_ordering in every vendored file."""
    for path in sorted(CASES_DIR.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            if case.get("kind") not in KINDS:
                continue
            marks = [pytest.mark.skip(reason=case["skip"])] if case.get("skip") else []
            yield pytest.param(path.stem, case, id=f"{path.stem}/{case['name']}", marks=marks)


# ----------------------------------------------------------------------------- inputs


def cycle_config(case: Case) -> CycleConfig:
    """The case's configuration: its gates by Kueue name over Kueue's defaults."""
    cfg = case.get("config") or {}
    # Gates of features the library does not model (SC-SCOPE-1: TAS, MultiKueue, API patching)
    # change nothing here; every other name must be a gate the library knows.
    gates = {k: v for k, v in (cfg.get("featureGates") or {}).items() if k not in OUT_OF_SCOPE_GATES}
    fair = None
    if cfg.get("fairSharing"):
        fair = FairSharingConfig(preemption_strategies=cfg.get("fairSharingStrategies") or ())
    ts = cfg.get("podsReadyRequeuingTimestamp", "Eviction")
    preemption = PreemptionConfig(
        fair_sharing=fair,
        admission_fair_sharing=bool(cfg.get("admissionFairSharing")),
        pods_ready_requeuing_timestamp=RequeuingTimestamp(ts) if ts else None,
        feature_gates=gates,
    )
    return CycleConfig(preemption, ignore_undeclared_resources=cfg.get("quotaCheckStrategy") == "IgnoreUndeclared")


def _selector(s: Case | None) -> LabelSelector | None:
    if s is None:
        return None
    return LabelSelector(
        s.get("matchLabels") or {},
        [LabelSelectorRequirement(e["key"], e["operator"], e.get("values") or ()) for e in s.get("matchExpressions") or ()],
    )


def _time(value: str | None) -> Any:
    return None if value is None else parse_time(value)


def _condition(c: Case) -> Condition:
    return Condition(
        c["type"], c["status"], c.get("reason", ""), _time(c.get("lastTransitionTime")), c.get("message", ""),
        c.get("observedGeneration", 0),
    )


def _pod_set_spec(ps: Case) -> PodSetSpec:
    spec = pod_set_of(ps)
    tr = ps.get("topologyRequest")
    requests = dict(spec.requests)
    for r, q in (ps.get("limits") or {}).items():
        requests.setdefault(r, request_amount(q, r))  # FAS-1: a limit without a request is the request
    return attrs.evolve(spec, requests=requests, pod_set_group=(tr or {}).get("podSetGroupName"))


def _admission_pod_sets(admission: Case) -> list[PodSetUsage]:
    return [
        PodSetUsage(
            name=p["name"],
            count=p["count"],
            flavors=p.get("flavors") or {},
            usage={r: request_amount(q, r) for r, q in (p.get("resourceUsage") or {}).items()},
        )
        for p in admission["podSetAssignments"]
    ]


def _workload(w: Case) -> tuple[Workload, WorkloadStatus]:
    conditions = [_condition(c) for c in w.get("conditions") or ()]
    reserved = next((c for c in conditions if c.type == "QuotaReserved" and c.is_true), None)
    admission: Case | None = w.get("admission")
    holds = reserved is not None and admission is not None
    stats = (w.get("schedulingStats") or {}).get("evictions") or ()
    workload = Workload(
        name=w["name"],
        namespace=w["namespace"],
        uid=w.get("uid") or "",
        cluster_queue=admission["clusterQueue"] if holds and admission is not None else "",
        local_queue=w.get("queueName") or "",
        priority=w.get("priority"),
        annotations=w.get("annotations") or {},
        labels=w.get("labels") or {},
        creation_time=_time(w.get("creationTimestamp")),
        quota_reserved_at=reserved.last_transition_time if holds and reserved is not None else None,
        evicted=any(c.type == "Evicted" and c.is_true for c in conditions),
        conditions=conditions,
        pod_sets=_admission_pod_sets(admission) if holds and admission is not None else (),
        evictions=[EvictionStat(s["reason"], s.get("underlyingCause") or "", s["count"]) for s in stats],
        spec_pod_sets=[_pod_set_spec(ps) for ps in w["podSets"]],
    )
    status = WorkloadStatus(
        generation=w.get("generation") or 0,
        active=w.get("active") is not False,
        admission_checks=[AdmissionCheckState(a["name"], a.get("state", "Pending")) for a in w.get("admissionChecks") or ()],
        resource_requests=[
            (rr["name"], {r: request_amount(q, r) for r, q in rr["resources"].items()})
            for rr in w.get("resourceRequests") or ()
        ],
        limits=[
            None if ps.get("limits") is None else {r: request_amount(q, r) for r, q in ps["limits"].items()}
            for ps in w["podSets"]
        ],
    )
    return workload, status


def cluster_of(case: Case) -> ClusterState:
    cohorts = [cohort_of(c) for c in case["cohorts"]]
    cqs = []
    settings = {}
    for cq in case["clusterQueues"]:
        cqs.append(cluster_queue_of(cq))
        settings[cq["name"]] = ClusterQueueSettings(
            cq["name"],
            queueing_strategy=cq.get("queueingStrategy"),
            namespace_selector=_selector(cq.get("namespaceSelector")),
            stop_policy=cq.get("stopPolicy"),
        )
    flavors = [flavor_of(f) for f in case["resourceFlavors"]]
    workloads = []
    statuses = {}
    for w in case["workloads"]:
        wl, st = _workload(w)
        workloads.append(wl)
        statuses[wl.key] = st
    return ClusterState(
        cluster_queues=cqs,
        cohorts=cohorts,
        flavors=flavors,
        namespaces=[Namespace(n["name"], n.get("labels") or {}) for n in case.get("namespaces") or ()],
        local_queues=[LocalQueue(namespace=q["namespace"], name=q["name"], cluster_queue=q["clusterQueue"], stop_policy=q.get("stopPolicy")) for q in case["localQueues"]],
        queueing=settings,
        limit_ranges=[
            LimitRange(
                lr["namespace"],
                lr["name"],
                lr.get("type", "Container"),
                **{
                    field: {r: request_amount(q, r) for r, q in (lr.get(key) or {}).items()}
                    for field, key in (("max", "max"), ("min", "min"), ("default", "default"), ("default_request", "defaultRequest"))
                },
            )
            for lr in case.get("limitRanges") or ()
        ],
        workloads=workloads,
        statuses=statuses,
    )


# ----------------------------------------------------------------------------- outputs


def _amount_map(m: dict[str, str], ) -> dict[str, int]:
    return {r: request_amount(q, r) for r, q in m.items()}


def _admission_json(cq: str, pod_sets: tuple[PodSetUsage, ...]) -> Case:
    return {
        "clusterQueue": cq,
        "podSetAssignments": [
            {"name": p.name, "count": p.count, "flavors": dict(p.flavors), "resourceUsage": dict(p.usage)} for p in pod_sets
        ],
    }


def _norm_admission(a: Case | None) -> Case | None:
    if a is None:
        return None
    return {
        "clusterQueue": a["clusterQueue"],
        "podSetAssignments": [
            {
                "name": p["name"],
                "count": p["count"],
                "flavors": dict(p.get("flavors") or {}),
                "resourceUsage": _amount_map(p.get("resourceUsage") or {}),
            }
            for p in a["podSetAssignments"]
        ],
    }


def _cond_json(c: Condition) -> Case:
    return {
        "type": c.type,
        "status": c.status,
        "reason": c.reason,
        "message": c.message,
        "lastTransitionTime": c.last_transition_time,
        "observedGeneration": c.observed_generation,
    }


def _norm_cond(c: Case) -> Case:
    return _cond_json(_condition(c))


def assignments_of(cluster: ClusterState) -> dict[str, Case]:
    return {w.key: _admission_json(w.cluster_queue, w.pod_sets) for w in cluster.workloads if w.cluster_queue}


def check_workloads(cluster: ClusterState, changed: set[str], expected: dict[str, Case], where: str) -> None:
    assert set(changed) == set(expected), f"{where}: changed workloads"
    by_key = {w.key: w for w in cluster.workloads}
    for key, exp in expected.items():
        w = by_key[key]
        got_conds = sorted((_cond_json(c) for c in w.conditions), key=lambda c: c["type"])
        want_conds = sorted((_norm_cond(c) for c in exp["conditions"]), key=lambda c: c["type"])
        assert got_conds == want_conds, f"{where}: conditions of {key}"
        got_adm = _admission_json(w.cluster_queue, w.pod_sets) if w.cluster_queue else None
        assert got_adm == _norm_admission(exp.get("admission")), f"{where}: admission of {key}"
        if "resourceRequests" in exp and exp["resourceRequests"] is not None:
            got_rr = [{"name": n, "resources": dict(r)} for n, r in cluster.status(key).resource_requests]
            want_rr = [{"name": x["name"], "resources": _amount_map(x["resources"])} for x in exp["resourceRequests"]]
            assert got_rr == want_rr, f"{where}: resourceRequests of {key}"
        stats = exp.get("schedulingStats")
        want_ev = Counter(
            (s["reason"], s.get("underlyingCause") or "", s["count"]) for s in ((stats or {}).get("evictions") or ())
        )
        got_ev = Counter((s.reason, s.underlying_cause, s.count) for s in w.evictions)
        assert got_ev == want_ev, f"{where}: schedulingStats of {key}"


def check_cycle(result: CycleResult, changed: set[str], gauges: dict[str, int], expected: Case) -> None:
    cluster, queues = result.cluster, result.queues
    if expected.get("assignments") is not None:
        want = {k: _norm_admission(v) for k, v in expected["assignments"].items()}
        assert assignments_of(cluster) == want, "assignments"
    if expected.get("admitted") is not None:
        assert sorted(result.admitted) == sorted(expected["admitted"]), "admitted"
    if expected.get("preempted") is not None:
        got_t = sorted((t.workload.key, t.reason.value, t.message) for t in result.preempted)
        want_t = sorted((p["workload"], p["reason"], p["message"]) for p in expected["preempted"])
        assert got_t == want_t, "preempted"
    if expected.get("pending") is not None:
        got_p = {}
        for w in cluster.workloads:
            if w.key in changed and not w.cluster_queue:
                qr = w.condition("QuotaReserved")
                if qr is not None and qr.status == "False":
                    got_p[w.key] = {"reason": qr.reason, "message": qr.message}
        assert got_p == expected["pending"], "pending"
    if expected.get("left") is not None:
        assert _sets(queues.active_by_queue()) == _sets(expected["left"]), "left (active)"
    if expected.get("inadmissibleLeft") is not None:
        assert _sets(queues.inadmissible_by_queue()) == _sets(expected["inadmissibleLeft"]), "inadmissibleLeft"
    if expected.get("workloads") is not None:
        check_workloads(cluster, changed, expected["workloads"], "workloads")
    if expected.get("skippedPreemptions") is not None:
        for cq, n in expected["skippedPreemptions"].items():
            assert gauges.get(cq, 0) == n, f"skippedPreemptions[{cq}]"
    if expected.get("preemptionTargetRecomputations") is not None:
        for cq, by_result in expected["preemptionTargetRecomputations"].items():
            for res, n in by_result.items():
                assert result.recomputations.get((cq, res), 0) == n, f"recomputations[{cq}][{res}]"
    if expected.get("events") is not None:
        ev = expected["events"]
        with_msg = ev["messagesCompared"]
        got_e = [(e.namespace, e.name, e.type, e.reason, e.message if with_msg else None) for e in result.events]
        want_e = [(x["namespace"], x["name"], x["eventType"], x["reason"], x["message"] if with_msg else None) for x in ev["list"]]
        assert got_e == want_e, "events"
    if expected.get("allCachedAdmitted"):
        for w in cluster.workloads:
            if w.cluster_queue:
                adm = w.condition("Admitted")
                assert adm is not None and adm.is_true, f"{w.key} cached but not Admitted"


def _sets(m: dict[str, list[str]]) -> dict[str, set[str]]:
    return {k: set(v) for k, v in m.items() if v}


def run_cycle_case(case: Case) -> None:
    cluster = cluster_of(case)
    config = cycle_config(case)
    now = parse_time(case["now"])
    queues: QueueState | None = None
    steps = case.get("steps") or [{"op": "cycle"}] * case["cycles"]
    result: CycleResult | None = None
    changed: set[str] = set()
    gauges: dict[str, int] = {}
    for step in steps:
        op = step["op"]
        if op == "cycle":
            result = schedule_cycle(cluster, queues, config=config, now=now)
            cluster, queues = result.cluster, result.queues
            changed |= set(result.changed)
            gauges.update(result.skipped_preemptions)
        elif op == "expect":
            check_workloads(cluster, changed, step["expected"].get("workloads") or {}, "expect step")
            changed = set()
        elif op == "deleteWorkloads":
            assert queues is not None
            cluster, queues = delete_workloads(cluster, queues, step["workloads"])
        elif op == "requeueInadmissible":
            assert queues is not None and step.get("scope") == "all"
            queues = queue_inadmissible(cluster, queues, None, now)
        else:
            raise AssertionError(f"unknown step op {op!r}")
    assert result is not None
    final = attrs_evolve_result(result, cluster, queues)
    check_cycle(final, changed, gauges, case["expected"])


def attrs_evolve_result(result: CycleResult, cluster: ClusterState, queues: QueueState | None) -> CycleResult:
    import attrs

    return attrs.evolve(result, cluster=cluster, queues=queues if queues is not None else result.queues)

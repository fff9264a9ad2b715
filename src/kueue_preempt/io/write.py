"""Model objects to Kueue manifests: the inverse of the loader.

:func:`to_manifests` turns a :class:`~kueue_preempt.io.ClusterDump` into ``kueue.x-k8s.io``
objects (``v1beta2`` by default, or ``v1beta1``) and :func:`dump_text` prints them as a
``kind: List`` the way ``kubectl get -o yaml`` / ``-o json`` does, so that a scenario built in
Python (a test case, a property-test example) can be fed to the CLI. Loading the output gives
back equal objects, except for what manifests cannot express: ``Workload.non_preemptible``
and ``local_queue_fs_usage`` are dropped, a condition without a time gets the workload's
reservation or creation time (else the Unix epoch), and zero quotas are added where a
resource group needs every flavor to list every covered resource.
"""

from __future__ import annotations

import json
from datetime import datetime
from decimal import Decimal
from typing import Any

from kueue_preempt.model.time import EPOCH
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model import ClusterQueue, Cohort, Condition, FlavorResource, PreemptionPolicy, ResourceQuota, WorkloadPriorityClass
from kueue_preempt.io.text import quantity_text, time_text
from kueue_preempt.model.flavors import quota_key_components
from kueue_preempt.io.dump import ClusterDump
from kueue_preempt.io.kueue import KUEUE_GROUP
from kueue_preempt.io.objects import LoadedWorkload, LocalQueue, PodSetRequests

__all__ = [
    "to_manifests",
    "as_list",
    "dump_text",
    "cluster_queue_manifest",
    "cohort_manifest",
    "local_queue_manifest",
    "resource_flavor_manifest",
    "workload_priority_class_manifest",
    "workload_manifest",
    "quantity_text",
    "time_text",
]

Manifest = dict[str, Any]


def _weight_text(weight: float) -> str:
    return repr(float(weight))


def _api(version: str) -> str:
    if version not in ("v1beta1", "v1beta2"):
        raise ValueError(f"version must be 'v1beta1' or 'v1beta2', not {version!r}")
    return f"{KUEUE_GROUP}/{version}"


def _resource_groups(quotas: dict[FlavorResource, ResourceQuota]) -> list[Manifest]:
    groups = []
    for resources, flavors in quota_key_components(quotas):
        flavor_list = []
        for flavor in flavors:
            entries = []
            for r in resources:
                q = quotas.get(FlavorResource(flavor, r), ResourceQuota())
                entry: Manifest = {"name": r, "nominalQuota": quantity_text(q.nominal, r)}
                if q.borrowing_limit is not None:
                    entry["borrowingLimit"] = quantity_text(q.borrowing_limit, r)
                if q.lending_limit is not None:
                    entry["lendingLimit"] = quantity_text(q.lending_limit, r)
                entries.append(entry)
            flavor_list.append({"name": flavor, "resources": entries})
        groups.append({"coveredResources": list(resources), "flavors": flavor_list})
    return groups


def cluster_queue_manifest(cq: ClusterQueue, version: str = "v1beta2") -> Manifest:
    spec: Manifest = {}
    if cq.cohort is not None:
        spec["cohort" if version == "v1beta1" else "cohortName"] = cq.cohort
    spec["resourceGroups"] = _resource_groups(dict(cq.quotas))
    p = cq.preemption
    # An unset field (POL-8) is written as absent: a manifest has no other spelling for it.
    preemption: Manifest = {
        key: value.value
        for key, value in (("withinClusterQueue", p.within_cluster_queue), ("reclaimWithinCohort", p.reclaim_within_cohort))
        if value is not PreemptionPolicy.UNSET
    }
    if p.borrow_within_cohort is not None:
        bwc: Manifest = {}
        if p.borrow_within_cohort.policy is not PreemptionPolicy.UNSET:
            bwc["policy"] = p.borrow_within_cohort.policy.value
        if p.borrow_within_cohort.max_priority_threshold is not None:
            bwc["maxPriorityThreshold"] = p.borrow_within_cohort.max_priority_threshold
        preemption["borrowWithinCohort"] = bwc
    spec["preemption"] = preemption
    if cq.fair_weight != 1.0:
        spec["fairSharing"] = {"weight": _weight_text(cq.fair_weight)}
    if cq.admission_scope_usage_based:
        spec["admissionScope"] = {"admissionMode": "UsageBasedAdmissionFairSharing"}
    return {"apiVersion": _api(version), "kind": "ClusterQueue", "metadata": {"name": cq.name}, "spec": spec}


def cohort_manifest(cohort: Cohort, version: str = "v1beta2") -> Manifest:
    spec: Manifest = {}
    if cohort.parent is not None:
        spec["parentName"] = cohort.parent  # the same spelling in v1beta1 and v1beta2
    if cohort.quotas:
        spec["resourceGroups"] = _resource_groups(dict(cohort.quotas))
    if cohort.fair_weight != 1.0:
        spec["fairSharing"] = {"weight": _weight_text(cohort.fair_weight)}
    return {"apiVersion": _api(version), "kind": "Cohort", "metadata": {"name": cohort.name}, "spec": spec}


def _metadata(name: str, namespace: str) -> Manifest:
    md: Manifest = {"name": name}
    if namespace:
        md["namespace"] = namespace
    return md


def local_queue_manifest(lq: LocalQueue, version: str = "v1beta2") -> Manifest:
    return {
        "apiVersion": _api(version),
        "kind": "LocalQueue",
        "metadata": _metadata(lq.name, lq.namespace),
        "spec": {"clusterQueue": lq.cluster_queue},
    }


def resource_flavor_manifest(name: str, version: str = "v1beta2") -> Manifest:
    return {"apiVersion": _api(version), "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": {}}


def workload_priority_class_manifest(wpc: WorkloadPriorityClass, version: str = "v1beta2") -> Manifest:
    out: Manifest = {"apiVersion": _api(version), "kind": "WorkloadPriorityClass", "metadata": {"name": wpc.name}}
    out["value"] = wpc.value
    if wpc.preemption_policy.value != "Always":
        out["preemptionPolicy"] = wpc.preemption_policy.value
    return out


def _pod_set(ps: PodSetRequests) -> Manifest:
    requests = {r: quantity_text(v, r) for r, v in ps.requests.items()}
    container: Manifest = {"name": "main", "image": "registry.example/job:latest"}
    if requests:
        container["resources"] = {"requests": requests}
    return {"name": ps.name, "count": ps.count, "template": {"spec": {"containers": [container]}}}


def _condition(c: Condition, fallback: datetime) -> Manifest:
    return {
        "type": c.type,
        "status": c.status,
        "reason": c.reason or c.type,
        "message": "",
        "lastTransitionTime": time_text(c.last_transition_time or fallback),
    }


def workload_manifest(lw: LoadedWorkload, version: str = "v1beta2") -> Manifest:
    """A Workload manifest; conditions ``QuotaReserved``/``Evicted`` are added when the model
    says so but its ``conditions`` lack them."""
    w = lw.workload
    md = _metadata(w.name, w.namespace)
    if w.uid:
        md["uid"] = w.uid
    if w.creation_time is not None:
        md["creationTimestamp"] = time_text(w.creation_time)
    if w.labels:
        md["labels"] = dict(w.labels)
    if w.annotations:
        md["annotations"] = dict(w.annotations)
    spec: Manifest = {}
    if not lw.active:
        spec["active"] = False
    if w.local_queue:
        spec["queueName"] = w.local_queue
    if w.priority is not None:
        spec["priority"] = w.priority
    ref = w.priority_class
    if ref is not None:
        if version == "v1beta1":
            spec["priorityClassName"] = ref.name
            spec["priorityClassSource"] = f"{ref.group}/{ref.kind.lower()}"
        else:
            spec["priorityClassRef"] = {"group": ref.group, "kind": ref.kind, "name": ref.name}
    pod_sets = lw.pod_sets or LoadedWorkload.from_workload(w).pod_sets or (PodSetRequests(),)
    spec["podSets"] = [_pod_set(ps) for ps in pod_sets]
    status: Manifest = {}
    fallback = w.quota_reserved_at or w.creation_time or EPOCH
    conditions = [_condition(c, fallback) for c in w.conditions]
    types = {c.type for c in w.conditions}
    if w.quota_reserved_at is not None and "QuotaReserved" not in types:
        conditions.append(_condition(Condition("QuotaReserved", "True", "QuotaReserved", w.quota_reserved_at), fallback))
    if w.evicted and "Evicted" not in types:
        conditions.append(_condition(Condition("Evicted", "True", "Preempted"), fallback))
    if w.cluster_queue:
        status["admission"] = {
            "clusterQueue": w.cluster_queue,
            "podSetAssignments": [
                {
                    "name": ps.name,
                    "flavors": dict(ps.flavors),
                    "resourceUsage": {r: quantity_text(v, r) for r, v in ps.usage.items()},
                    "count": ps.count,
                }
                for ps in w.pod_sets
            ],
        }
    elif w.quota_reserved_at is not None:
        raise InvalidModel(f"Workload {w.key}", "cluster_queue", "a workload holding quota needs a ClusterQueue")
    if conditions:
        status["conditions"] = conditions
    if lw.reclaimable_pods:
        status["reclaimablePods"] = [{"name": name, "count": count} for name, count in lw.reclaimable_pods.items()]
    if w.evictions:
        status["schedulingStats"] = {
            "evictions": [
                {"reason": e.reason, "underlyingCause": e.underlying_cause, "count": e.count} for e in w.evictions
            ]
        }
    if w.preemption_cost is not None:
        status["preemptionCost"] = _decimal_text(w.preemption_cost)
    out: Manifest = {"apiVersion": _api(version), "kind": "Workload", "metadata": md, "spec": spec}
    if status:
        out["status"] = status
    return out


def _decimal_text(value: Decimal) -> str:
    return format(value, "f")


def to_manifests(dump: ClusterDump, version: str = "v1beta2") -> list[Manifest]:
    """Every object of ``dump`` as a manifest: flavors, classes, cohorts, queues, workloads."""
    out: list[Manifest] = []
    out += [resource_flavor_manifest(f, version) for f in dump.resource_flavors]
    out += [workload_priority_class_manifest(c, version) for c in dump.workload_priority_classes]
    out += [cohort_manifest(c, version) for c in dump.cohorts]
    out += [cluster_queue_manifest(q, version) for q in dump.cluster_queues]
    out += [local_queue_manifest(q, version) for q in dump.local_queues]
    out += [workload_manifest(w, version) for w in dump.workloads]
    return out


def as_list(manifests: list[Manifest]) -> Manifest:
    """Wrap manifests in a ``kind: List``, as ``kubectl get -o yaml`` prints several objects."""
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": manifests}


def dump_text(dump: ClusterDump, format: str = "yaml", version: str = "v1beta2") -> str:
    """``dump`` as a ``kind: List`` in YAML (needs PyYAML) or JSON."""
    document = as_list(to_manifests(dump, version))
    if format == "json":
        return json.dumps(document, indent=2) + "\n"
    if format != "yaml":
        raise ValueError(f"format must be 'yaml' or 'json', not {format!r}")
    import yaml

    return str(yaml.safe_dump(document, sort_keys=False, default_flow_style=False))

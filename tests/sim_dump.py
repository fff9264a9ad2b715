"""A small cluster dump for the simulator tests (JSON, so no PyYAML is needed).

Cohort ``all``: ClusterQueues ``team-a`` and ``team-b`` (4 CPUs each, flavor ``default``),
LocalQueues ``team-a/lq-a`` and ``team-b/lq-b``, WorkloadPriorityClass ``high`` (1000),
an inactive template ``team-a/train`` (``spec.active: false``, so it is not simulated itself) (one pod set ``main``: 1 pod x 1 CPU, priority 10), an
inactive two-pod-set template ``team-a/mpi``, and ``team-b/etl`` admitted with 2 CPUs.
"""

from __future__ import annotations

import json
from typing import Any

from kueue_preempt.io import ClusterDump, parse_dump

API = "kueue.x-k8s.io/v1beta2"


def _cq(name: str) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            "cohortName": "all",
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": "4"}]}]}
            ],
            "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
        },
    }


def _pod_set(name: str, count: int, cpu: str) -> dict[str, Any]:
    return {
        "name": name,
        "count": count,
        "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}},
    }


OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "default"}},
    {"apiVersion": API, "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 1000},
    _cq("team-a"),
    _cq("team-b"),
    {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "lq-a", "namespace": "team-a"}, "spec": {"clusterQueue": "team-a"}},
    {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "lq-b", "namespace": "team-b"}, "spec": {"clusterQueue": "team-b"}},
    {
        "apiVersion": API,
        "kind": "Workload",
        "metadata": {"name": "train", "namespace": "team-a", "creationTimestamp": "2025-12-31T00:00:00Z"},
        "spec": {"queueName": "lq-a", "priority": 10, "active": False, "podSets": [_pod_set("main", 1, "1")]},
    },
    {
        "apiVersion": API,
        "kind": "Workload",
        "metadata": {"name": "mpi", "namespace": "team-a"},
        "spec": {"queueName": "lq-a", "active": False, "podSets": [_pod_set("launcher", 1, "500m"), _pod_set("worker", 2, "1")]},
    },
    {
        "apiVersion": API,
        "kind": "Workload",
        "metadata": {"name": "etl", "namespace": "team-b", "creationTimestamp": "2025-12-31T00:00:00Z"},
        "spec": {"queueName": "lq-b", "priority": 0, "podSets": [_pod_set("main", 2, "1")]},
        "status": {
            "admission": {
                "clusterQueue": "team-b",
                "podSetAssignments": [{"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "2"}, "count": 2}],
            },
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "", "lastTransitionTime": "2025-12-31T01:00:00Z"},
                {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "", "lastTransitionTime": "2025-12-31T01:00:00Z"},
            ],
        },
    },
]


def small_dump() -> ClusterDump:
    return parse_dump(json.dumps({"apiVersion": "v1", "kind": "List", "items": OBJECTS}), source="dump.json")

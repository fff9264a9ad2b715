"""The dump holds the cycle's input: ``ClusterDump.state`` (decision (st-e) step 3)."""

from __future__ import annotations

import json

import attrs

from kueue_preempt.cycle import Namespace, WorkloadStatus
from kueue_preempt.io import parse_dump
from kueue_preempt.io.cycle_state import cluster_state_from_dump, cluster_state_from_objects
from kueue_preempt.io.read import parse_documents

ITEMS = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns", "labels": {"team": "b"}}},
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {"resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": 4}]}]}]},
    },
    {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}},
    {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "w", "namespace": "ns"},
        "spec": {"queueName": "lq", "active": False, "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]},
    },
]
TEXT = json.dumps({"apiVersion": "v1", "kind": "List", "items": ITEMS})


def test_the_state_is_built_once_and_held_by_the_dump() -> None:
    state, dump = cluster_state_from_objects(parse_documents(TEXT, source="dump.json"))
    assert state is dump.state is cluster_state_from_dump(dump)
    assert dump.namespaces == (Namespace("ns", {"team": "b"}),)
    assert dump.skipped == {"Namespace (v1)": 1}  # still reported as not read by the Kueue path
    assert state.namespaces == dump.namespaces
    assert state.status("ns/w") == WorkloadStatus(active=False) == dump.workload("ns/w").status
    assert [w.key for w in state.workloads] == ["ns/w"]


def test_an_evolved_dump_has_its_own_state() -> None:
    dump = parse_dump(TEXT)
    varied = attrs.evolve(dump, cluster_queues=[attrs.evolve(dump.cluster_queues[0], fair_weight=2)])
    assert varied.state is not dump.state
    assert varied.state.cluster_queues == varied.cluster_queues
    assert cluster_state_from_dump(dump, namespaces=[]).namespaces == ()

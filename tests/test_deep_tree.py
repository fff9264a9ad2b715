"""Deep cohort chains (untrusted input): no RecursionError anywhere, absurd depth rejected.

The snapshot accepts chains up to MAX_COHORT_DEPTH; every walk — quota arithmetic, both
algorithms, the CLI's tree output and its JSON — must be iterative.
"""

from __future__ import annotations

import json
from pathlib import Path

from cli_helpers import run_cli

from kueue_preempt import (
    Assignment,
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
    get_targets,
)
from kueue_preempt.snapshot.quota import MAX_COHORT_DEPTH

CPU = FlavorResource("default", "cpu")
DEPTH = MAX_COHORT_DEPTH - 5


def _chain() -> tuple[list[Cohort], list[ClusterQueue], list[Workload]]:
    cohorts = [Cohort(name=f"c{i}", parent=None if i == 0 else f"c{i - 1}") for i in range(DEPTH)]
    pre = ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
    leaf = f"c{DEPTH - 1}"
    queues = [
        ClusterQueue(name=n, cohort=leaf, quotas={CPU: ResourceQuota(nominal=2000)}, preemption=pre) for n in ("a", "b")
    ]
    workloads = [
        Workload(
            name=f"b{i}", namespace="ns", uid=f"b{i}", cluster_queue="b", priority=0, quota_reserved_at="2026-01-01T00:00:00Z",
            pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": 1000})],
        )
        for i in range(4)
    ]
    return cohorts, queues, workloads


def test_algorithms_on_a_deep_chain() -> None:
    cohorts, queues, workloads = _chain()
    snap = Snapshot(queues, cohorts, workloads)
    assert len(snap.cluster_queue("a").path) == DEPTH + 1
    preemptor, assignment = Workload(name="in", priority=5), Assignment({CPU: 2000}, [CPU])
    for config in (PreemptionConfig(), PreemptionConfig(fair_sharing=FairSharingConfig())):
        targets = get_targets(preemptor, "a", assignment, snap, config=config)
        assert len(targets) == 2 and {t.cluster_queue for t in targets} == {"b"}


def test_cli_check_json_on_a_deep_chain(tmp_path: Path) -> None:
    cohorts, queues, _ = _chain()
    items: list[dict[str, object]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": c.name},
         "spec": {} if c.parent is None else {"parentName": c.parent}}
        for c in cohorts
    ]
    items += [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ClusterQueue", "metadata": {"name": q.name},
         "spec": {"cohortName": q.cohort, "resourceGroups": [
             {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": "2"}]}]}
         ]}}
        for q in queues
    ]
    dump = tmp_path / "deep.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    result = run_cli("check", str(dump), "-o", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert len(doc["tree"]) == DEPTH + 2
    assert run_cli("check", str(dump)).returncode == 0

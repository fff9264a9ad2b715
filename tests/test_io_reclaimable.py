"""Usage as Kueue counts it: ``status.reclaimablePods`` (DM-7, FAS-1a, API-27), issue 17 item 4.

An admitted pod set with reclaimable pods holds quota only for the pods that are still running;
a pending pod set asks only for those. Gate ``ReclaimablePods`` (on by default) switches it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cli_helpers import run_cli
from kueue_preempt import FlavorResource, Workload
from kueue_preempt.errors import InvalidModel
from kueue_preempt.io import ManifestError, parse_dump
from kueue_preempt.model import PodSetUsage

Obj = dict[str, Any]
CPU = FlavorResource("default", "cpu")
T0 = "2026-01-01T00:00:00Z"


def cluster_queue(nominal: str = "6") -> Obj:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "team-a"},
        "spec": {
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": nominal}]}]}
            ],
            "preemption": {"withinClusterQueue": "LowerPriority"},
        },
    }


LOCAL_QUEUE: Obj = {
    "apiVersion": "kueue.x-k8s.io/v1beta2",
    "kind": "LocalQueue",
    "metadata": {"name": "lq", "namespace": "ns"},
    "spec": {"clusterQueue": "team-a"},
}


def workload(
    name: str,
    priority: int,
    pods: int,
    *,
    admitted: int | None = None,
    reclaimable: list[Obj] | None = None,
    annotations: dict[str, str] | None = None,
) -> Obj:
    """``pods`` pods of 1 CPU; ``admitted`` = the admission count (holds quota) or None (pending)."""
    obj: Obj = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ns", "uid": f"uid-{name}", "creationTimestamp": T0},
        "spec": {
            "queueName": "lq",
            "priority": priority,
            "podSets": [
                {"name": "main", "count": pods, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}
            ],
        },
        "status": {},
    }
    if annotations:
        obj["metadata"]["annotations"] = annotations
    if admitted is not None:
        obj["status"]["conditions"] = [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "lastTransitionTime": T0}
        ]
        obj["status"]["admission"] = {
            "clusterQueue": "team-a",
            "podSetAssignments": [
                {"name": "main", "count": admitted, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(admitted)}}
            ],
        }
    if reclaimable is not None:
        obj["status"]["reclaimablePods"] = reclaimable
    return obj


def dump_json(*items: Obj) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)})


# --------------------------------------------------------------------------- the model (DM-7)


def test_model_scales_usage_to_the_pods_left() -> None:
    """DM-7: usage becomes (usage div count) x (count - min(reclaimable, count))."""
    ps = PodSetUsage(name="main", count=4, flavors={"cpu": "default"}, usage={"cpu": 4000})
    assert Workload("w", pod_sets=[ps]).usage[CPU] == 4000
    assert Workload("w", pod_sets=[ps], reclaimable_pods={"main": 1}).usage[CPU] == 3000
    assert Workload("w", pod_sets=[ps], reclaimable_pods={"main": 9}).usage[CPU] == 0
    assert Workload("w", pod_sets=[ps], reclaimable_pods={"other": 2}).usage[CPU] == 4000


def test_model_divides_like_kueue_before_multiplying() -> None:
    """DM-7: integer division first (10 over 3 pods is 3 per pod), so 2 pods left use 6."""
    ps = PodSetUsage(name="main", count=3, flavors={"cpu": "default"}, usage={"cpu": 10})
    assert Workload("w", pod_sets=[ps], reclaimable_pods={"main": 1}).usage[CPU] == 6


@given(
    count=st.integers(min_value=0, max_value=50),
    per_pod=st.integers(min_value=0, max_value=10**6),
    extra=st.integers(min_value=0, max_value=49),
    reclaimable=st.integers(min_value=0, max_value=60),
)
def test_scaled_usage_is_per_pod_times_pods_left_and_never_grows(count: int, per_pod: int, extra: int, reclaimable: int) -> None:
    """DM-7 invariant: with r reclaimable of n admitted pods, usage = (usage div n) x (n - min(r, n))
    when that is fewer pods, never more than the unscaled usage, and 0 reclaimable changes nothing."""
    usage = per_pod * count + (extra % count if count else 0)
    ps = PodSetUsage(name="main", count=count, flavors={"cpu": "default"}, usage={"cpu": usage})
    plain = Workload("w", pod_sets=[ps]).usage[CPU]
    scaled = Workload("w", pod_sets=[ps], reclaimable_pods={"main": reclaimable}).usage[CPU]
    kept = count - min(reclaimable, count)
    assert plain == usage
    assert scaled <= plain
    assert scaled == (usage if kept == count else (usage // count) * kept)
    assert Workload("w", pod_sets=[ps], reclaimable_pods={"main": 0}).usage[CPU] == plain


def test_model_rejects_negative_reclaimable_counts() -> None:
    with pytest.raises(InvalidModel, match=r"reclaimable_pods\[.?main.?\]"):
        Workload("w", reclaimable_pods={"main": -1})


# --------------------------------------------------------------------------- the loader


def _admitted_usage(obj: Obj) -> int:
    dump = parse_dump(dump_json(cluster_queue(), obj))
    return dump.workloads[0].workload.usage[CPU]


def test_admitted_usage_counts_only_pods_not_reclaimable() -> None:
    """FAS-1a/DM-7: 4 admitted pods of 1 CPU, 1 reclaimable: 3 CPUs held."""
    assert _admitted_usage(workload("w", 1, 4, admitted=4, reclaimable=[{"name": "main", "count": 1}])) == 3000
    assert _admitted_usage(workload("w", 1, 4, admitted=4)) == 4000


def test_reclaim_is_measured_from_the_spec_count_under_partial_admission() -> None:
    """DM-7: c' = spec count - reclaimable; only a c' below the admitted count scales usage.
    10 pods, 6 admitted: 2 reclaimable leaves 8 >= 6 (no change); 5 leaves 5 (usage of 5)."""
    assert _admitted_usage(workload("w", 1, 10, admitted=6, reclaimable=[{"name": "main", "count": 2}])) == 6000
    assert _admitted_usage(workload("w", 1, 10, admitted=6, reclaimable=[{"name": "main", "count": 5}])) == 5000


def test_pending_workload_asks_only_for_pods_not_reclaimable() -> None:
    """FAS-1a: the flavor assignment starts from count - min(reclaimable, count)."""
    dump = parse_dump(dump_json(cluster_queue(), workload("p", 1, 3, reclaimable=[{"name": "main", "count": 1}])))
    lw = dump.workloads[0]
    assert [ps.count for ps in lw.pod_sets] == [3]
    assert [ps.count for ps in lw.requested_pod_sets()] == [2]
    assert [ps.count for ps in lw.requested_pod_sets(reclaimable_pods=False)] == [3]


def test_gate_off_snapshot_counts_every_admitted_pod() -> None:
    dump = parse_dump(dump_json(cluster_queue(), workload("w", 1, 4, admitted=4, reclaimable=[{"name": "main", "count": 3}])))
    on = dump.snapshot().cluster_queue("team-a").usage[CPU]
    off = dump.snapshot(reclaimable_pods=False).cluster_queue("team-a").usage[CPU]
    assert (on, off) == (1000, 4000)


@pytest.mark.parametrize(
    "entries,where,reason",
    [
        ([{"name": "other", "count": 1}], "status.reclaimablePods[0].name", "no pod set 'other' in spec.podSets (API-27)"),
        ([{"name": "main", "count": 5}], "status.reclaimablePods[0].count", "5 is more than the pod set's count 4 (API-27)"),
        ([{"name": "main", "count": -1}], "status.reclaimablePods[0].count", "out of range"),
        ([{"name": "main", "count": 1}, {"name": "main", "count": 2}], "status.reclaimablePods[1].name", "listed twice"),
        ([{"name": "main"}], "status.reclaimablePods[0].count", "required field is missing"),
    ],
)
def test_invalid_reclaimable_pods_are_rejected_naming_the_workload(entries: list[Obj], where: str, reason: str) -> None:
    with pytest.raises(ManifestError) as info:
        parse_dump(dump_json(cluster_queue(), workload("w", 1, 4, admitted=4, reclaimable=entries)), source="d.json")
    assert f"d.json: Workload ns/w: {where}: " in str(info.value) and reason in str(info.value)


def test_elastic_workload_may_keep_a_count_above_the_spec_count() -> None:
    """API-27: an over-limit count left by an elastic scale-down is let through."""
    obj = workload("w", 1, 4, admitted=4, reclaimable=[{"name": "main", "count": 6}], annotations={"kueue.x-k8s.io/elastic-job": "true"})
    assert _admitted_usage(obj) == 0


# --------------------------------------------------------------------------- the CLI answer


def _scenario(tmp_path: Path) -> Path:
    """CQ of 6 CPUs. low (priority 1) holds 2; mid (priority 2) was admitted with 4 pods of which
    2 finished (reclaimable), so it holds 2. Kueue: 4 used, 2 free; the pending 3-CPU workload
    needs 1 more, and preempting low is enough. Counting all of mid's pods (6 used), low's 2 are
    not enough, so mid goes and low is filled back (FB-1): a different target."""
    path = tmp_path / "dump.json"
    path.write_text(
        dump_json(
            cluster_queue("6"),
            LOCAL_QUEUE,
            workload("low", 1, 2, admitted=2),
            workload("mid", 2, 4, admitted=4, reclaimable=[{"name": "main", "count": 2}]),
            workload("incoming", 10, 3),
        )
    )
    return path


def _targets(result: Any) -> list[str]:
    assert result.returncode in (0, 1), result.stderr
    return [t["workload"] for t in json.loads(result.stdout)["targets"]]


def test_cli_names_the_target_kueue_names(tmp_path: Path) -> None:
    path = _scenario(tmp_path)
    result = run_cli("explain", str(path), "--workload", "ns/incoming", "--now", T0, "-o", "json")
    assert _targets(result) == ["ns/low"]


def test_cli_with_the_gate_off_counts_every_pod(tmp_path: Path) -> None:
    path = _scenario(tmp_path)
    config = tmp_path / "kueue.yaml"
    config.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nfeatureGates:\n  ReclaimablePods: false\n")
    result = run_cli("explain", str(path), "--workload", "ns/incoming", "--now", T0, "--config", str(config), "-o", "json")
    assert _targets(result) == ["ns/mid"]

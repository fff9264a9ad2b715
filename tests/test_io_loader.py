"""The manifest loader (``kueue_preempt.io``): formats, kinds, versions, exact numbers, workload
states (DM-6, DM-7), pod requests, the simplified flavor assignment (FA-1), TotalRequestsFor
(FA-3), the writer, and the safety limits.
"""

from __future__ import annotations

import copy
import json
import sys
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import yaml

from kueue_preempt import (
    Assignment,
    FlavorResource,
    PreemptionConfig,
    PreemptionPolicy,
    ResourceQuota,
    Workload,
    assign_flavors,
    get_targets,
)
from kueue_preempt.model import FlavorAssignmentMode
from kueue_preempt.model.flavors import PodSetSpec, ResourceFlavor, quota_key_components
from kueue_preempt.io import (
    ClusterDump,
    Limits,
    LoadedWorkload,
    ManifestError,
    ManifestTooLarge,
    NotPending,
    ObjectNotFound,
    PodSetRequests,
    WorkloadNotFound,
    YamlUnavailable,
    dump_text,
    load_dump,
    parse_assignment,
    parse_documents,
    parse_dump,
    to_assignment,
    total_requests_for,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CPU = "cpu"
Obj = dict[str, Any]


def cluster_queue(name: str = "team-a", *, version: str = "v1beta1", cohort: str | None = "org", **spec: Any) -> Obj:
    body: Obj = {
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {
                        "name": "default",
                        "resources": [{"name": "cpu", "nominalQuota": "8"}, {"name": "memory", "nominalQuota": "32Gi"}],
                    }
                ],
            }
        ],
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
    }
    if cohort is not None:
        body["cohort" if version == "v1beta1" else "cohortName"] = cohort
    body.update(spec)
    return {"apiVersion": f"kueue.x-k8s.io/{version}", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": body}


def workload(
    name: str,
    *,
    namespace: str = "ns",
    cq: str | None = None,
    cpu: str = "1",
    count: int = 1,
    priority: int | None = 0,
    version: str = "v1beta1",
    reserved_at: str = "2026-01-01T00:00:00Z",
    conditions: list[Obj] | None = None,
    queue: str = "lq",
) -> Obj:
    spec: Obj = {
        "queueName": queue,
        "podSets": [
            {
                "name": "main",
                "count": count,
                "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}},
            }
        ],
    }
    if priority is not None:
        spec["priority"] = priority
    status: Obj = {"conditions": list(conditions or [])}
    if cq is not None:
        status["admission"] = {
            "clusterQueue": cq,
            "podSetAssignments": [{"name": "main", "count": count, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(int(cpu) * count)}}],
        }
        status["conditions"].append(
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "lastTransitionTime": reserved_at}
        )
    return {
        "apiVersion": f"kueue.x-k8s.io/{version}",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
        "spec": spec,
        "status": status,
    }


def local_queue(name: str = "lq", namespace: str = "ns", cq: str = "team-a") -> Obj:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "LocalQueue",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterQueue": cq},
    }


def as_list(*items: Obj) -> Obj:
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}


def yaml_text(*docs: Obj) -> str:
    return yaml.safe_dump_all(list(docs), sort_keys=False)


# --------------------------------------------------------------------------- formats


def test_single_object_yaml_and_json() -> None:
    obj = cluster_queue()
    from_yaml = parse_dump(yaml_text(obj))
    from_json = parse_dump(json.dumps(obj))
    assert from_yaml == from_json
    (cq,) = from_yaml.cluster_queues
    assert cq.name == "team-a" and cq.cohort == "org"
    assert cq.quotas[FlavorResource("default", "cpu")] == ResourceQuota(nominal=8000)
    assert cq.quotas[FlavorResource("default", "memory")] == ResourceQuota(nominal=32 * 2**30)
    assert cq.preemption.reclaim_within_cohort is PreemptionPolicy.ANY


def test_multi_document_stream_list_and_nested_list() -> None:
    text = yaml_text(
        cluster_queue("a"),
        as_list(cluster_queue("b"), as_list(cluster_queue("c"))),
        {},  # an empty mapping document is not skipped: it is an object without apiVersion
    ).replace("--- {}\n", "---\n")
    dump = parse_dump(text)
    assert [q.name for q in dump.cluster_queues] == ["a", "b", "c"]


def test_typed_list_items_inherit_kind_and_version() -> None:
    """A raw API list (``ClusterQueueList``) may omit kind/apiVersion on its items."""
    item = cluster_queue("a")
    del item["kind"], item["apiVersion"]
    doc = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ClusterQueueList", "items": [item]}
    assert [q.name for q in parse_dump(json.dumps(doc)).cluster_queues] == ["a"]


def test_concatenated_json_values() -> None:
    text = json.dumps(as_list(cluster_queue("a"))) + "\n" + json.dumps(cluster_queue("b"))
    assert [q.name for q in parse_dump(text, source="x.json").cluster_queues] == ["a", "b"]


def test_format_detection_and_objects_keep_positions() -> None:
    objects = parse_documents(yaml_text(cluster_queue("a"), cluster_queue("b")), source="d.yaml")
    assert [(o.source, o.index) for o in objects] == [("d.yaml", 1), ("d.yaml", 2)]
    assert len(parse_documents("  [1]".replace("[1]", json.dumps(cluster_queue())), format="json")) == 1


def test_unknown_kinds_are_skipped_and_counted() -> None:
    text = yaml_text(
        cluster_queue(),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}},
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "y"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "AdmissionCheck", "metadata": {"name": "z"}},
        {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}},
    )
    dump = parse_dump(text)
    assert dict(dump.skipped) == {
        "AdmissionCheck (kueue.x-k8s.io/v1beta1)": 1,
        "ConfigMap (v1)": 2,
        "Job (batch/v1)": 1,
    }
    assert dump.counts() == {"ClusterQueue": 1}


def test_files_and_stdin_are_loaded_together(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.yaml").write_text(yaml_text(cluster_queue("a")))
    (tmp_path / "b.json").write_text(json.dumps(cluster_queue("b")))
    dump = load_dump(tmp_path / "a.yaml", tmp_path / "b.json")
    assert [q.name for q in dump.cluster_queues] == ["a", "b"]
    assert dump.sources == (str(tmp_path / "a.yaml"), str(tmp_path / "b.json"))

    class _Stdin:
        buffer = __import__("io").BytesIO(yaml_text(cluster_queue("c")).encode())

    monkeypatch.setattr(sys, "stdin", _Stdin())
    assert [q.name for q in load_dump("-").cluster_queues] == ["c"]


def test_io_errors_are_os_errors(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_dump(tmp_path / "missing.yaml")
    with pytest.raises(IsADirectoryError):
        load_dump(tmp_path)


# --------------------------------------------------------------------------- versions


def test_v1beta2_names_cohort_and_parent_fields() -> None:
    """API-30/API-31: the parent is spec.parentName in both beta versions; only v1alpha1 said parent."""
    cohorts = [
        {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": "child"}, "spec": {"parentName": "root"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Cohort", "metadata": {"name": "other"}, "spec": {"parentName": "root"}},
        {"apiVersion": "kueue.x-k8s.io/v1alpha1", "kind": "Cohort", "metadata": {"name": "old"}, "spec": {"parent": "root"}},
    ]
    dump = parse_dump(yaml_text(cluster_queue(version="v1beta2", cohort="child"), *cohorts))
    assert dump.cluster_queues[0].cohort == "child"
    assert [(c.name, c.parent) for c in dump.cohorts] == [("child", "root"), ("other", "root"), ("old", "root")]
    assert dump.snapshot().path(dump.snapshot().cluster_queue("team-a")) == "/root/child/team-a"


def test_priority_class_references_of_both_versions() -> None:
    v1 = workload("a")
    v1["spec"].update(priorityClassName="high", priorityClassSource="kueue.x-k8s.io/workloadpriorityclass")
    v2 = workload("b", version="v1beta2")
    v2["spec"]["priorityClassRef"] = {"group": "scheduling.k8s.io", "kind": "PriorityClass", "name": "system"}
    dump = parse_dump(yaml_text(v1, v2))
    a, b = (lw.workload.priority_class for lw in dump.workloads)
    assert a is not None and a.is_workload_priority_class and a.name == "high"
    assert b is not None and not b.is_workload_priority_class and (b.group, b.kind) == ("scheduling.k8s.io", "PriorityClass")


def test_missing_priority_comes_from_the_workload_priority_class() -> None:
    wl = workload("a", priority=None)
    wl["spec"].update(priorityClassName="high", priorityClassSource="kueue.x-k8s.io/workloadpriorityclass")
    wpc = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "WorkloadPriorityClass",
        "metadata": {"name": "high"},
        "value": 700,
        "preemptionPolicy": "Never",
    }
    dump = parse_dump(yaml_text(wpc, wl))
    assert dump.workloads[0].workload.priority == 700
    assert dump.workload_priority_classes[0].preemption_policy.value == "Never"
    assert dump.warnings() == []


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("yaml_value", "amount"),
    [
        ("8", 8000),  # YAML int
        ("0.5", 500),  # YAML float, exact through repr
        ("0.1", 100),
        ("1.5e3", 1_500_000),  # YAML float with exponent
        ("1e3", 1_000_000),  # YAML 1.1 reads this as the string "1e3", a quantity
        ("'250m'", 250),
        ("0.0001", 1),  # rounded up to a milli-CPU (Q-1)
        ("123456789012345678901234567890", 2**63 - 1),  # quota saturates at UNLIMITED (Q-1)
    ],
)
def test_yaml_numbers_become_exact_quantities(yaml_value: str, amount: int) -> None:
    text = yaml_text(cluster_queue()).replace("nominalQuota: '8'", f"nominalQuota: {yaml_value}")
    cq = parse_dump(text).cluster_queues[0]
    assert cq.quotas[FlavorResource("default", CPU)].nominal == amount


def test_json_floats_are_exact_decimals() -> None:
    obj = cluster_queue()
    text = json.dumps(obj).replace('"nominalQuota": "8"', '"nominalQuota": 0.30000000000000004')
    cq = parse_dump(text).cluster_queues[0]
    # 0.30000000000000004 CPU is 300.00000000000004 milli-CPU, rounded up (Q-1): float
    # arithmetic would have given 300.
    assert cq.quotas[FlavorResource("default", CPU)].nominal == 301


def test_fair_sharing_weight_from_a_number_or_a_string() -> None:
    a = cluster_queue("a", fairSharing={"weight": 0.5})
    b = cluster_queue("b", fairSharing={"weight": "250m"})
    c = cluster_queue("c", fairSharing={"weight": 0})
    dump = parse_dump(yaml_text(a, b, c))
    assert [q.fair_weight for q in dump.cluster_queues] == [0.5, 0.25, 0.0]


# --------------------------------------------------------------------------- workloads


def test_workload_fields() -> None:
    wl = workload("w", cq="team-a", cpu="2", count=3, priority=7)
    wl["metadata"].update(
        creationTimestamp="2025-12-31T23:00:00Z",
        labels={"kueue.x-k8s.io/job-uid": "job-1"},
        annotations={"kueue.x-k8s.io/priority-boost": "-3"},
    )
    wl["status"]["conditions"].append(
        {"type": "Evicted", "status": "True", "reason": "Preempted", "lastTransitionTime": "2026-01-01T01:00:00Z"}
    )
    wl["status"]["schedulingStats"] = {"evictions": [{"reason": "Preempted", "underlyingCause": "InClusterQueue", "count": 2}]}
    wl["status"]["preemptionCost"] = "1500m"
    lw = parse_dump(yaml_text(wl)).workloads[0]
    w = lw.workload
    assert (w.key, w.uid, w.priority, w.cluster_queue, w.local_queue) == ("ns/w", "uid-w", 7, "team-a", "lq")
    assert w.creation_time == datetime(2025, 12, 31, 23, tzinfo=timezone.utc)
    assert w.quota_reserved_at == datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert w.evicted
    assert w.usage == {FlavorResource("default", CPU): 6000}
    assert w.annotations["kueue.x-k8s.io/priority-boost"] == "-3"
    assert w.preemption_cost == Decimal("1.5")
    assert [(e.reason, e.underlying_cause, e.count) for e in w.evictions] == [("Preempted", "InClusterQueue", 2)]
    assert lw.pod_sets == (PodSetRequests(name="main", count=3, requests={"cpu": 2000}),)
    assert lw.holds_quota and not lw.is_pending


def test_unquoted_yaml_timestamps_are_accepted() -> None:
    text = yaml_text(workload("w", cq="team-a")).replace("'2026-01-01T00:00:00Z'", "2026-01-01T00:00:00Z")
    assert "lastTransitionTime: 2026-01-01T00:00:00Z" in text
    w = parse_dump(text).workloads[0].workload
    assert w.quota_reserved_at == datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("mutate", "holds", "pending", "state"),
    [
        (lambda w: None, True, False, "holds quota in ClusterQueue team-a"),
        (lambda w: w["spec"].__setitem__("active", False), False, False, "is inactive (spec.active: false)"),
        (
            lambda w: w["status"]["conditions"].append(
                {"type": "Finished", "status": "True", "reason": "Succeeded", "lastTransitionTime": "2026-01-02T00:00:00Z"}
            ),
            False,
            False,
            "is finished",
        ),
        (lambda w: w["status"]["conditions"][0].__setitem__("status", "False"), False, True, "is pending"),
    ],
)
def test_dm7_which_workloads_hold_quota(mutate: Any, holds: bool, pending: bool, state: str) -> None:
    """DM-7: QuotaReserved=True, not finished and spec.active != false."""
    wl = workload("w", cq="team-a")
    mutate(wl)
    dump = parse_dump(yaml_text(cluster_queue(), local_queue(), wl))
    lw = dump.workloads[0]
    assert (lw.holds_quota, lw.is_pending, lw.state) == (holds, pending, state)
    assert [w.key for w in dump.snapshot().workloads()] == (["ns/w"] if holds else [])


@pytest.mark.parametrize(
    ("pod_spec", "expected"),
    [
        # containers add up
        ({"containers": [{"resources": {"requests": {"cpu": "1"}}}, {"resources": {"requests": {"cpu": "500m"}}}]}, 1500),
        # an init container larger than the sum wins
        (
            {
                "containers": [{"resources": {"requests": {"cpu": "1"}}}],
                "initContainers": [{"resources": {"requests": {"cpu": "3"}}}],
            },
            3000,
        ),
        # a sidecar (restartPolicy Always) runs alongside: added to the containers and to later inits
        (
            {
                "containers": [{"resources": {"requests": {"cpu": "1"}}}],
                "initContainers": [
                    {"restartPolicy": "Always", "resources": {"requests": {"cpu": "1"}}},
                    {"resources": {"requests": {"cpu": "2500m"}}},
                ],
            },
            3500,
        ),
        # the pod overhead is added once
        ({"containers": [{"resources": {"requests": {"cpu": "1"}}}], "overhead": {"cpu": "250m"}}, 1250),
        # a limit stands in for a missing request
        ({"containers": [{"resources": {"limits": {"cpu": "2"}}}]}, 2000),
        # quantities are summed exactly before rounding up once (Q-1)
        ({"containers": [{"resources": {"requests": {"cpu": "0.0004"}}}, {"resources": {"requests": {"cpu": "0.0004"}}}]}, 1),
    ],
)
def test_pod_request_of_a_pod_set(pod_spec: Obj, expected: int) -> None:
    wl = workload("w")
    wl["spec"]["podSets"][0]["template"]["spec"] = pod_spec
    assert parse_dump(yaml_text(wl)).workloads[0].pod_sets[0].requests["cpu"] == expected


def test_lookups_and_their_errors() -> None:
    pending = workload("p", priority=5)
    no_queue = workload("q")
    del no_queue["spec"]["queueName"]
    other = workload("r", queue="missing")
    dump = parse_dump(yaml_text(cluster_queue(), local_queue(), workload("h", cq="team-a"), pending, no_queue, other))
    assert dump.pending_workload("ns/p").workload.priority == 5
    assert dump.cluster_queue_for(dump.workload("ns/p")) == "team-a"
    with pytest.raises(WorkloadNotFound, match="no Workload 'ns/x' in the dump"):
        dump.workload("ns/x")
    with pytest.raises(NotPending, match="holds quota in ClusterQueue team-a"):
        dump.pending_workload("ns/h")
    with pytest.raises(ManifestError, match=r"Workload ns/q: spec.queueName: required"):
        dump.cluster_queue_for(dump.workload("ns/q"))
    with pytest.raises(ManifestError, match=r"LocalQueue ns/missing is not in the dump"):
        dump.cluster_queue_for(dump.workload("ns/r"))
    assert [w.key for w in dump.pending()] == ["ns/p", "ns/q", "ns/r"]


def test_warnings_name_dangling_references() -> None:
    flavor = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "other"}}
    wl = workload("w")
    wl["spec"].update(priorityClassName="gone", priorityClassSource="kueue.x-k8s.io/workloadpriorityclass")
    dump = parse_dump(yaml_text(flavor, cluster_queue(), local_queue(cq="nowhere"), wl))
    assert dump.warnings() == [
        "ClusterQueue team-a uses ResourceFlavor 'default', which is not in the dump",
        "LocalQueue ns/lq points to ClusterQueue 'nowhere', which is not in the dump",
        "Workload ns/w refers to WorkloadPriorityClass 'gone', which is not in the dump",
    ]


# --------------------------------------------------------------------------- FA-1 / FA-3


def _two_flavor_queue(nominal_a: str, nominal_b: str) -> Obj:
    return cluster_queue(
        cohort=None,
        resourceGroups=[
            {
                "coveredResources": ["cpu"],
                "flavors": [
                    {"name": "spot", "resources": [{"name": "cpu", "nominalQuota": nominal_a}]},
                    {"name": "on-demand", "resources": [{"name": "cpu", "nominalQuota": nominal_b}]},
                ],
            }
        ],
    )


# The dumps below have no ResourceFlavor objects: the assigner is handed plain flavors.
_FLAVORS = [ResourceFlavor("spot"), ResourceFlavor("on-demand")]


def _assignment(dump: ClusterDump, key: str) -> list[tuple[str, str]]:
    """Kueue's flavor assignment (the one assigner) of a loaded pending workload."""
    fa = assign_flavors(dump.workload(key).workload, "team-a", dump.snapshot(), _FLAVORS)
    return [(c.flavor, c.mode.value) for ps in fa.pod_sets for c in ps.flavors.values()]


def test_fa1_first_flavor_that_fits() -> None:
    """FAS-10: spot (1 free, equal priorities: no candidates) -> try next; on-demand fits."""
    used = workload("used", cq="team-a", cpu="3")
    used["status"]["admission"]["podSetAssignments"][0]["flavors"] = {"cpu": "spot"}
    dump = parse_dump(yaml_text(_two_flavor_queue("4", "4"), used, workload("p", cpu="2")))
    assert _assignment(dump, "ns/p") == [("on-demand", "Fit")]  # spot has 1 free, on-demand 4


def test_fa1_no_candidates_anywhere_keeps_the_first_flavor() -> None:
    """FAS-9: both flavors noCandidates (equal priorities, LowerPriority) -> the first is kept,
    in Preempt mode (FAS-6 api_mode); a request above every capacity is NoFit (FAS-6a)."""
    a = workload("a", cq="team-a", cpu="4")
    a["status"]["admission"]["podSetAssignments"][0]["flavors"] = {"cpu": "spot"}
    b = workload("b", cq="team-a", cpu="4")
    b["status"]["admission"]["podSetAssignments"][0]["flavors"] = {"cpu": "on-demand"}
    dump = parse_dump(yaml_text(_two_flavor_queue("4", "4"), a, b, workload("p", cpu="2"), workload("big", cpu="5")))
    assert _assignment(dump, "ns/p") == [("spot", "Preempt")]
    big = assign_flavors(dump.workload("ns/big").workload, "team-a", dump.snapshot(), _FLAVORS)
    assert big.mode is FlavorAssignmentMode.NO_FIT
    assert "insufficient quota for cpu in flavor spot, previously considered podsets requests (0) + current podset request (5) > maximum capacity (4)" in big.message


def test_fa1_requests_accumulate_over_pod_sets_and_uncovered_resources_do_not_fit() -> None:
    """FAS-2: pod set b sees a's 3 CPUs on spot (3 + 3 > 4) and moves on; FAS-3: no group covers GPUs."""
    dump = parse_dump(yaml_text(_two_flavor_queue("4", "4")))
    snapshot = dump.snapshot()
    w = Workload(name="w", spec_pod_sets=[PodSetSpec("a", 1, {"cpu": 3000}), PodSetSpec("b", 1, {"cpu": 3000})])
    fa = assign_flavors(w, "team-a", snapshot, _FLAVORS)
    assert [ps.flavors["cpu"].flavor for ps in fa.pod_sets] == ["spot", "on-demand"]
    assert fa.mode is FlavorAssignmentMode.FIT
    g = Workload(name="g", spec_pod_sets=[PodSetSpec("g", 1, {"nvidia.com/gpu": 1})])
    gpu = assign_flavors(g, "team-a", snapshot, _FLAVORS)
    assert gpu.mode is FlavorAssignmentMode.NO_FIT
    assert gpu.message == "couldn't assign flavors to pod set g: resource nvidia.com/gpu unavailable in ClusterQueue"


def test_resource_groups_are_recovered_from_quotas() -> None:
    keys = [FlavorResource(f, r) for f, r in [("d", "cpu"), ("d", "mem"), ("e", "cpu"), ("e", "mem"), ("g", "gpu")]]
    assert quota_key_components(keys) == [(("cpu", "mem"), ("d", "e")), (("gpu",), ("g",))]


def test_fa3_total_requests_rescale_to_the_assigned_count() -> None:
    """FA-3: (total div count) x assigned count, zero requests skipped."""
    pod_sets = [PodSetRequests("main", 4, {"cpu": 1500, "memory": 0})]
    fa = parse_assignment({"podSets": [{"name": "main", "count": 2, "flavors": {"cpu": {"name": "d", "mode": "Preempt"}}}]}, pod_sets)
    assert total_requests_for(pod_sets, fa) == {FlavorResource("d", "cpu"): 3000}
    assert to_assignment(pod_sets, fa) == Assignment(
        requests={FlavorResource("d", "cpu"): 3000}, preempt=[FlavorResource("d", "cpu")]
    )


def test_assignment_file_defaults_count_to_the_spec() -> None:
    pod_sets = [PodSetRequests("main", 3, {"cpu": 1000})]
    fa = parse_assignment("podSets:\n- flavors: {cpu: {name: d, mode: Fit}}\n", pod_sets)
    assert fa.pod_sets[0].count == 3 and fa.pod_sets[0].name == "main"
    assert fa.as_dict() == {"podSets": [{"name": "main", "count": 3, "flavors": {"cpu": {"name": "d", "mode": "Fit"}}}]}


# --------------------------------------------------------------------------- examples and the writer


def test_examples_load_and_round_trip_through_the_writer() -> None:
    for name in ("classic.yaml", "fair-sharing.yaml"):
        path = EXAMPLES / name
        dump = load_dump(path)
        for fmt in ("yaml", "json"):
            for version in ("v1beta1", "v1beta2"):
                again = parse_dump(dump_text(dump, fmt, version), format=fmt)
                assert again.cluster_queues == dump.cluster_queues
                assert again.cohorts == dump.cohorts
                assert again.local_queues == dump.local_queues
                assert again.workload_priority_classes == dump.workload_priority_classes
                assert again.resource_flavors == dump.resource_flavors
                assert again.workloads == dump.workloads, path


def test_classic_example_decision() -> None:
    dump = load_dump(EXAMPLES / "classic.yaml")
    (lw,) = dump.pending()
    cq = dump.cluster_queue_for(lw)
    snapshot = dump.snapshot()
    assignment = assign_flavors(lw.workload, cq, snapshot, dump.flavors()).to_assignment()
    targets = get_targets(lw.workload, cq, assignment, snapshot, config=PreemptionConfig(), now=datetime(2026, 3, 2, 10, tzinfo=timezone.utc))
    assert [(t.workload.name.rsplit("-", 1)[0], t.reason.value) for t in targets] == [
        ("job-sweep-lr-02", "InCohortReclamation"),
        ("job-nightly-etl", "InClusterQueue"),
    ]


def test_a_loaded_workload_from_a_model_workload() -> None:
    dump = load_dump(EXAMPLES / "classic.yaml")
    w = dump.holding_quota()[0].workload
    derived = LoadedWorkload.from_workload(w)
    assert [(ps.name, ps.count) for ps in derived.pod_sets] == [(ps.name, ps.count) for ps in w.pod_sets]


# --------------------------------------------------------------------------- limits


def test_limits_bytes_documents_objects() -> None:
    text = yaml_text(cluster_queue("a"), cluster_queue("b"), cluster_queue("c"))
    with pytest.raises(ManifestTooLarge, match="larger than 100 bytes"):
        parse_dump(text, limits=Limits(max_bytes=100))
    with pytest.raises(ManifestTooLarge, match="more than 2 documents"):
        parse_dump(text, limits=Limits(max_documents=2))
    with pytest.raises(ManifestTooLarge, match="more than 2 objects"):
        parse_dump(yaml_text(as_list(cluster_queue("a"), cluster_queue("b"), cluster_queue("c"))), limits=Limits(max_objects=2))


def test_limits_depth_and_alias_expansion() -> None:
    deep = cluster_queue()
    node: Obj = deep["spec"]
    for _ in range(150):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(ManifestTooLarge, match="nesting deeper than 100 levels"):
        parse_dump(json.dumps(deep))
    bomb = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 8):
        prev = chr(ord("a") + i - 1)
        cur = chr(ord("a") + i)
        bomb += f"{cur}: &{cur} [" + ", ".join(f"*{prev}" for _ in range(10)) + "]\n"
    with pytest.raises(ManifestTooLarge, match="YAML aliases"):
        parse_dump(bomb)


def test_yaml_without_pyyaml_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)
    with pytest.raises(YamlUnavailable, match=r"pip install 'kueue-preempt\[yaml\]'"):
        parse_dump("kind: List\n", source="d.yaml")
    # JSON needs no PyYAML
    assert parse_dump(json.dumps(cluster_queue()), source="d.json").counts() == {"ClusterQueue": 1}


def test_loader_never_mutates_its_input() -> None:
    obj = cluster_queue()
    before = copy.deepcopy(obj)
    parse_dump(json.dumps(as_list(obj)))
    assert obj == before


# --------------------------------------------------------------------------- the PodGroup path


def _node(name: str, cpu: str = "4") -> Obj:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": {"zone": "a"}}, "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "10"}}}


def _pod(name: str, node: str | None, *, cpu: str = "1", group: str | None = None, **spec: Any) -> Obj:
    body: Obj = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}], **spec}
    if node is not None:
        body["nodeName"] = node
    if group is not None:
        body["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns", "uid": f"uid-{name}"}, "spec": body, "status": {}}


def _pod_group(name: str, **spec: Any) -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "PodGroup", "metadata": {"name": name, "namespace": "ns"}, "spec": spec}


def _priority_class(name: str, value: int, default: bool = False) -> Obj:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name}, "value": value, "globalDefault": default}


def test_kube_objects() -> None:
    running = _pod("r", "n1", cpu="1500m", priority=5)
    running["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    running["status"] = {
        "startTime": "2026-01-01T00:00:00.000000001Z",
        "conditions": [{"type": "DisruptionTarget", "status": "True", "reason": "PreemptionByScheduler"}],
        "nominatedNodeName": "n2",
    }
    done = _pod("done", "n1", cpu="2")
    done["status"]["phase"] = "Succeeded"
    pdb = {
        "apiVersion": "policy/v1",
        "kind": "PodDisruptionBudget",
        "metadata": {"name": "b", "namespace": "ns"},
        "spec": {"selector": {"matchLabels": {"app": "x"}, "matchExpressions": [{"key": "tier", "operator": "In", "values": ["web"]}]}},
        "status": {"disruptionsAllowed": 1, "disruptedPods": {"r": "2026-01-01T00:00:00Z"}},
    }
    group = _pod_group(
        "g",
        priority=50,
        disruptionMode="All",
        schedulingPolicy={"gang": {"minCount": 2}},
        schedulingConstraints={"topology": [{"key": "zone"}]},
        parentCompositePodGroup="top",
    )
    composite = {"apiVersion": "scheduling.k8s.io/v1alpha2", "kind": "CompositePodGroup", "metadata": {"name": "top", "namespace": "ns"}, "spec": {"priorityClassName": "high"}}
    dump = parse_dump(yaml_text(_node("n1"), _node("n2"), running, done, pdb, group, composite, _priority_class("high", 900)))
    assert dump.counts() == {"PriorityClass": 1, "Node": 2, "Pod": 2, "PodGroup": 1, "CompositePodGroup": 1, "PodDisruptionBudget": 1}
    assert dump.terminal_pods == 1
    node = dump.nodes[0]
    assert (dict(node.amounts), dict(node.labels)) == ({"cpu": 4000, "memory": 8 * 2**30, "pods": 10}, {"zone": "a"})
    (pod,) = dump.pods
    assert (pod.priority, dict(pod.amounts), pod.node_name, pod.start_time) == (5, {"cpu": 1500}, "n1", 1_767_225_600_000_000_001)
    assert pod.terminating and pod.disruption_target and pod.nominated_node_name == "n2"
    (budget,) = dump.pod_disruption_budgets
    assert budget.disruptions_allowed == 1 and budget.disrupted_pods == frozenset({"r"})
    assert budget.selector is not None and budget.selector.matches({"app": "x", "tier": "web"})
    (g,) = dump.pod_groups
    assert (g.priority, g.disruption_mode.value, g.gang_min_count, g.topology_keys, g.parent) == (50, "All", 2, ("zone",), "top")
    assert dump.composite_pod_groups[0].priority == 900  # from its PriorityClass


def test_pod_priority_from_its_class_or_the_global_default() -> None:
    dump = parse_dump(
        yaml_text(
            _priority_class("low", 10, default=True),
            _priority_class("high", 1000),
            _pod("a", None, priorityClassName="high"),
            _pod("b", None),
            _pod("c", None, priority=3, priorityClassName="high"),
        )
    )
    assert [p.priority for p in dump.pods] == [1000, 10, 3]


def test_pod_group_preemptor_and_cluster() -> None:
    dump = parse_dump(
        yaml_text(
            _node("n1"),
            _pod_group("g", priority=100),
            _pod("g-0", None, group="g"),
            _pod("g-1", "n1", group="g"),
            _pod("low", "n1", cpu="3"),
            _pod_group("done", priority=1),
            _pod("d-0", "n1", cpu="0", group="done"),
        )
    )
    preemptor = dump.pod_group_preemptor("ns/g")
    assert [p.name for p in preemptor.pods] == ["g-0"]
    assert [p.name for p in dump.cluster().running_pods] == ["g-1", "low", "d-0"]
    with pytest.raises(NotPending, match="PodGroup ns/done is not pending: it has 1 pod\\(s\\), all scheduled"):
        dump.pod_group_preemptor("ns/done")
    with pytest.raises(ObjectNotFound, match="no PodGroup 'ns/x' in the dump"):
        dump.pod_group_preemptor("ns/x")


def test_a_pod_on_an_unknown_node_is_an_error() -> None:
    dump = parse_dump(yaml_text(_pod("p", "ghost")))
    with pytest.raises(ManifestError, match="Pod ns/p: spec.nodeName: Node 'ghost' is not in the dump"):
        dump.cluster()


def test_podgroup_example_kep_and_kube_modes_differ() -> None:
    """The example reproduces spec §8 E1: kube's remove-all evicts a mid-priority gang that the
    KEP's priority search spares."""
    from kueue_preempt.podgroup import select_podgroup_victims

    dump = load_dump(EXAMPLES / "podgroup.yaml")
    preemptor = dump.pod_group_preemptor("ml/llm-train")
    kep = select_podgroup_victims(preemptor, dump.cluster(), mode="kep")
    kube = select_podgroup_victims(preemptor, dump.cluster(), mode="kube")
    assert [p.name for p in kep.victims] == ["crawler-3", "crawler-5"]
    assert [p.name for p in kube.victims] == ["etl-nightly-0", "etl-nightly-1", "etl-nightly-2", "etl-nightly-3"]

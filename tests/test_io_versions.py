"""Every Kueue release's dumps load (issue 17 items 5 and 6): each kind's fields per apiVersion
(kueue-api-fields.md §1, docs/manifests.md), the API server's defaults (API-1..API-7), what
Kueue's API rejects (API-8..API-27) rejected naming the object, v1beta1 conversions (API-30)
and the v1alpha1 Cohort (API-31).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from kueue_preempt import FlavorResource
from kueue_preempt.io import ManifestError, dump_text, parse_dump
from kueue_preempt.model.flavors import FlavorFungibility, Taint, Toleration
from kueue_preempt.io.objects import AdmissionCheckRule
from kueue_preempt.podgroup import LabelSelector

Obj = dict[str, Any]
KUEUE = "kueue.x-k8s.io"


def cq(version: str = "v1beta2", name: str = "team-a", **spec: Any) -> Obj:
    body: Obj = {
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "8"}, {"name": "memory", "nominalQuota": "32Gi"}]},
                    {"name": "spot", "resources": [{"name": "cpu", "nominalQuota": "4"}, {"name": "memory", "nominalQuota": "16Gi"}]},
                ],
            }
        ]
    }
    body.update(spec)
    return {"apiVersion": f"{KUEUE}/{version}", "kind": "ClusterQueue", "metadata": {"name": name}, "spec": body}


def cohort(version: str, name: str = "child", **spec: Any) -> Obj:
    return {"apiVersion": f"{KUEUE}/{version}", "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def flavor(**spec: Any) -> Obj:
    return {"apiVersion": f"{KUEUE}/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": "default"}, "spec": spec}


def wl(version: str = "v1beta2", *, pod_sets: list[Obj] | None = None, **spec: Any) -> Obj:
    body: Obj = {
        "queueName": "lq",
        "priority": 1,
        "podSets": pod_sets
        or [{"name": "main", "count": 2, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}],
    }
    body.update(spec)
    return {"apiVersion": f"{KUEUE}/{version}", "kind": "Workload", "metadata": {"name": "w", "namespace": "ns"}, "spec": body}


def load(*objects: Obj) -> Any:
    return parse_dump(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(objects)}), source="d.json")


def rejected(*objects: Obj) -> str:
    with pytest.raises(ManifestError) as info:
        load(*objects)
    message = str(info.value)
    assert "\n" not in message and message.startswith("d.json: ")
    return message


# --------------------------------------------------------------------------- Cohort


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_cohort_parent_is_parent_name_in_both_beta_versions(version: str) -> None:
    """§1.2: the parent is spelled parentName in both beta versions (a v1beta1 dump was rejected)."""
    dump = load(cohort(version, parentName="root"))
    assert [(c.name, c.parent) for c in dump.cohorts] == [("child", "root")]


def test_cohort_v1alpha1_parent_is_read_as_parent_name() -> None:
    """API-31: the old v1alpha1 spelling spec.parent, the rename Kueue 0.13's notes prescribe."""
    assert load(cohort("v1alpha1", parent="root")).cohorts[0].parent == "root"
    assert "Cohort child: spec.parentName: is the v1beta2 name of this field; in v1alpha1 it is spec.parent" in rejected(
        cohort("v1alpha1", parentName="root")
    )


@pytest.mark.parametrize("version", ["v1beta1", "v1beta2"])
def test_cohort_parent_spelled_the_v1alpha1_way_is_rejected(version: str) -> None:
    assert f"Cohort child: spec.parent: is the v1alpha1 name of this field; in {version} it is spec.parentName" in rejected(
        cohort(version, parent="root")
    )


def test_cohort_lending_limit_may_exceed_its_nominal_but_a_cluster_queues_may_not() -> None:
    """API-13."""
    groups = [{"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": "1", "lendingLimit": "5"}]}]}]
    dump = load(cohort("v1beta2", parentName="root", resourceGroups=groups))
    assert dump.cohorts[0].quotas[FlavorResource("f", "cpu")].lending_limit == 5000
    assert "ClusterQueue team-a: spec.resourceGroups[0].flavors[0].resources[0].lendingLimit: must be <= nominalQuota" in rejected(
        cq(cohortName="org", resourceGroups=groups)
    )


# --------------------------------------------------------------------------- ClusterQueue


def test_cluster_queue_defaults_applied_like_the_api_server() -> None:
    """API-2, API-5: absent fields read as the API server fills them."""
    dump = load(cq())
    (settings,) = dump.cluster_queue_settings
    assert (settings.queueing_strategy, settings.stop_policy) == ("BestEffortFIFO", "None")
    assert dump.cluster_queues[0].flavor_fungibility == FlavorFungibility("MayStopSearch", "TryNextFlavor", None)
    assert settings.namespace_selector is None  # null matches no namespace
    assert settings.active and settings.admission_checks == ()


def test_cluster_queue_settings_are_read() -> None:
    obj = cq(
        queueingStrategy="StrictFIFO",
        stopPolicy="Hold",
        namespaceSelector={"matchLabels": {"team": "a"}, "matchExpressions": [{"key": "env", "operator": "In", "values": ["prod"]}]},
        flavorFungibility={"whenCanBorrow": "TryNextFlavor", "whenCanPreempt": "TryNextFlavor", "preference": "PreemptionOverBorrowing"},
        admissionChecksStrategy={"admissionChecks": [{"name": "prov", "onFlavors": ["spot"]}]},
    )
    obj["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z"
    dump = load(obj)
    (s,) = dump.cluster_queue_settings
    assert s.queueing_strategy == "StrictFIFO" and not s.active and s.terminating
    assert s.namespace_selector is not None and dict(s.namespace_selector.match_labels) == {"team": "a"}
    assert dump.cluster_queues[0].flavor_fungibility.preference == "PreemptionOverBorrowing"
    assert s.admission_checks == (AdmissionCheckRule("prov", ("spot",)),)
    assert load(cq(namespaceSelector={})).cluster_queue_settings[0].namespace_selector == LabelSelector()


def test_v1beta1_cluster_queue_conversions() -> None:
    """API-30: Borrow/Preempt -> MayStopSearch; admissionChecks -> rules without onFlavors."""
    obj = cq("v1beta1", cohort="org", flavorFungibility={"whenCanBorrow": "Borrow", "whenCanPreempt": "Preempt"}, admissionChecks=["a", "b"])
    dump = load(obj)
    (s,) = dump.cluster_queue_settings
    assert dump.cluster_queues[0].flavor_fungibility == FlavorFungibility("MayStopSearch", "MayStopSearch")
    assert s.admission_checks == (AdmissionCheckRule("a"), AdmissionCheckRule("b"))
    assert dump.cluster_queues[0].cohort == "org"


@pytest.mark.parametrize(
    "obj,where,reason",
    [
        (cq(flavorFungibility={"whenCanBorrow": "Borrow"}), "spec.flavorFungibility.whenCanBorrow", "'Borrow' is not one of MayStopSearch, TryNextFlavor"),
        (cq(flavorFungibility={"preference": "BorrowingOverPreemption"}), "spec.flavorFungibility.preference", "needs whenCanBorrow and whenCanPreempt both TryNextFlavor (API-15)"),
        (cq(queueingStrategy="FIFO"), "spec.queueingStrategy", "'FIFO' is not one of StrictFIFO, BestEffortFIFO"),
        (cq(stopPolicy="Drain"), "spec.stopPolicy", "'Drain' is not one of None, Hold, HoldAndDrain"),
        (cq(admissionChecks=["a"]), "spec.admissionChecks", "is the v1beta1 name of this field"),
        (cq(admissionChecksStrategy={"admissionChecks": [{"name": "a", "onFlavors": ["gpu"]}]}), "spec.admissionChecksStrategy.admissionChecks[0].onFlavors[0]", "flavor 'gpu' is not a flavor of this ClusterQueue"),
        (cq("v1beta1", concurrentAdmissionPolicy={}), "spec.concurrentAdmissionPolicy", "is a v1beta2 field"),
        (cq(admissionScope={"admissionMode": "Usage"}), "spec.admissionScope.admissionMode", "'Usage' is not one of"),
        (cq(namespaceSelector={"matchExpressions": [{"key": "a", "operator": "In"}]}), "spec.namespaceSelector.matchExpressions[0].values", "must not be empty for operator In"),
        (cq(namespaceSelector={"matchLabels": {"bad key!": "x"}}), 'spec.namespaceSelector.matchLabels["bad key!"]', "is not a valid label name"),
        (cq(resourceGroups=[{"coveredResources": ["cpu", "memory"], "flavors": [{"name": "f", "resources": [{"name": "memory", "nominalQuota": "1"}, {"name": "cpu", "nominalQuota": "1"}]}]}]), "spec.resourceGroups[0].flavors[0].resources", "must follow coveredResources order"),
        (cq(resourceGroups=[{"coveredResources": [f"r{i}"], "flavors": [{"name": f"f{i}", "resources": [{"name": f"r{i}", "nominalQuota": "1"}]}]} for i in range(17)]), "spec.resourceGroups", "has 17 resource groups, at most 16 (API-8)"),
        (cq(resourceGroups=[{"coveredResources": ["cpu"], "flavors": []}]), "spec.resourceGroups[0].flavors", "must list 1 to 64 flavors, got 0 (API-8)"),
        (cq(resourceGroups=[{"flavors": [{"name": "f", "resources": []}]}]), "spec.resourceGroups[0].coveredResources", "required field is missing"),
    ],
)
def test_cluster_queue_rejections_name_the_object_and_field(obj: Obj, where: str, reason: str) -> None:
    message = rejected(obj)
    assert f"ClusterQueue team-a: {where}: " in message and reason in message


def test_v1beta1_admission_mode_has_no_enum_check() -> None:
    """§1.3: v1beta1 admissionScope.admissionMode is a plain string."""
    assert load(cq("v1beta1", admissionScope={"admissionMode": "Whatever"})).cluster_queues[0].admission_scope_usage_based is False


# --------------------------------------------------------------------------- ResourceFlavor


def test_resource_flavor_spec_is_read() -> None:
    obj = flavor(
        nodeLabels={"cloud.example.com/pool": "spot"},
        nodeTaints=[{"key": "spot", "value": "true", "effect": "NoSchedule"}],
        tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}, {"operator": "Exists"}],
        topologyName="default",
    )
    dump = load(obj)
    assert dump.resource_flavors == ("default",)
    (spec,) = dump.resource_flavor_specs
    assert dict(spec.node_labels) == {"cloud.example.com/pool": "spot"}
    assert spec.node_taints == (Taint("spot", "true", "NoSchedule"),)
    # tolerationSeconds is validated (API-18) but not kept: flavor matching never reads it (FAS-5b).
    assert spec.tolerations == (Toleration("gpu", "Exists", "", "NoExecute"), Toleration("", "Exists"))
    assert spec.topology_name == "default"


@pytest.mark.parametrize(
    "spec,where,reason",
    [
        ({"nodeLabels": {f"k{i}": "v" for i in range(9)}}, "spec.nodeLabels", "has 9 labels, at most 8"),
        ({"nodeLabels": {"k": "not valid!"}}, "spec.nodeLabels.k", "is not a valid label value"),
        ({"nodeTaints": [{"key": "a", "effect": "Sometimes"}]}, "spec.nodeTaints[0].effect", "'Sometimes' is not one of"),
        ({"nodeTaints": [{"key": "a", "effect": "NoSchedule"}, {"key": "a", "value": "x", "effect": "NoSchedule"}]}, "spec.nodeTaints[1]", "listed twice"),
        ({"tolerations": [{"key": "a", "operator": "Exists", "value": "x"}]}, "spec.tolerations[0].value", "must be empty when operator is Exists"),
        ({"tolerations": [{"operator": "Equal", "value": "x"}]}, "spec.tolerations[0].operator", "must be Exists when key is empty"),
        ({"tolerations": [{"key": "a", "effect": "NoSchedule", "tolerationSeconds": 5}]}, "spec.tolerations[0].tolerationSeconds", "only allowed with effect NoExecute"),
        ({"topologyName": "t"}, "spec.topologyName", "needs at least one nodeLabel"),
    ],
)
def test_resource_flavor_rejections(spec: Obj, where: str, reason: str) -> None:
    message = rejected(flavor(**spec))
    assert f"ResourceFlavor default: {where}: " in message and reason in message


# --------------------------------------------------------------------------- LocalQueue, WorkloadPriorityClass


def test_local_queue_stop_policy_and_weight() -> None:
    lq: Obj = {"apiVersion": f"{KUEUE}/v1beta2", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"},
          "spec": {"clusterQueue": "team-a", "stopPolicy": "HoldAndDrain", "fairSharing": {"weight": "0.5"}}}
    (q,) = load(lq).local_queues
    assert (q.stop_policy, q.fair_weight) == ("HoldAndDrain", 0.5)
    lq["spec"]["stopPolicy"] = "Pause"
    assert "LocalQueue ns/lq: spec.stopPolicy: 'Pause' is not one of None, Hold, HoldAndDrain" in rejected(lq)


def test_workload_priority_class_description_limit_is_v1beta2_only() -> None:
    """API-20 / §1.7."""
    wpc: Obj = {"apiVersion": f"{KUEUE}/v1beta1", "kind": "WorkloadPriorityClass", "metadata": {"name": "high"}, "value": 5, "description": "x" * 3000}
    assert load(wpc).workload_priority_classes[0].value == 5
    wpc["apiVersion"] = f"{KUEUE}/v1beta2"
    assert "WorkloadPriorityClass high: description: longer than 2048 characters (API-20)" in rejected(wpc)


# --------------------------------------------------------------------------- Workload


def _pod_set(name: str, count: int = 1, **extra: Any) -> Obj:
    return {"name": name, "count": count, "template": {"spec": {"containers": [{"name": "c"}]}}, **extra}


def test_workload_spec_fields_per_version_are_accepted() -> None:
    v2 = wl(maximumExecutionTimeSeconds=60, preemptionGates=[{"name": "example.com/gate"}], pod_sets=[_pod_set("main", 4, minCount=2)])
    assert load(v2).workloads[0].pod_sets[0].count == 4
    v1 = wl("v1beta1")
    v1["status"] = {"accumulatedPastExexcutionTimeSeconds": 30, "requeueState": {"count": 2, "requeueAt": "2026-01-01T00:00:00Z"}}
    assert load(v1).workloads[0].key == "ns/w"


def _admitted(count: int, usage: str, pod_sets: list[Obj] | None = None, assignments: int = 1) -> Obj:
    obj = wl(pod_sets=pod_sets)
    obj["status"] = {
        "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
        "admission": {
            "clusterQueue": "team-a",
            "podSetAssignments": [{"name": "main", "count": count, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": usage}}][:assignments],
        },
    }
    return obj


@pytest.mark.parametrize(
    "obj,where,reason",
    [
        (wl(pod_sets=[_pod_set(f"p{i}") for i in range(19)]), "spec.podSets", "has 19 pod sets, at most 18 (API-21)"),
        (wl(pod_sets=[_pod_set("main", 2, minCount=3)]), "spec.podSets[0].minCount", "3 is more than the pod set's count (API-22)"),
        (wl(pod_sets=[_pod_set("main", 2, minCount=0)]), "spec.podSets[0].minCount", "out of range"),
        (wl(pod_sets=[_pod_set("a", 2, minCount=1), _pod_set("b", 2, minCount=1)]), "spec.podSets[1].minCount", "only one pod set may set minCount"),
        (wl("v1beta1", preemptionGates=[{"name": "g"}]), "spec.preemptionGates", "is a v1beta2 field"),
        (wl(preemptionGates=[{"name": "g" * 64}]), "spec.preemptionGates[0].name", "longer than 63 characters"),
        (wl(maximumExecutionTimeSeconds=0), "spec.maximumExecutionTimeSeconds", "out of range"),
        (_admitted(2, "3m"), "status.admission.podSetAssignments[0].resourceUsage.cpu", "is not a multiple of the assignment count 2 (in millicores, API-26)"),
        (_admitted(2, "2", pod_sets=[_pod_set("main", 2), _pod_set("extra")]), "status.admission.podSetAssignments", "needs one assignment per spec pod set while QuotaReserved is True; missing ['extra']"),
    ],
)
def test_workload_rejections_name_the_workload(obj: Obj, where: str, reason: str) -> None:
    message = rejected(obj)
    assert f"Workload ns/w: {where}: " in message and reason in message


def test_cpu_usage_divisible_in_millicores() -> None:
    """API-26: 3 CPUs over 2 pods is 1500m each: valid."""
    usage = load(_admitted(2, "3")).workloads[0].workload.usage
    assert usage[FlavorResource("default", "cpu")] == 3000


@pytest.mark.parametrize("version,wrong", [("v1beta1", "accumulatedPastExecutionTimeSeconds"), ("v1beta2", "accumulatedPastExexcutionTimeSeconds")])
def test_accumulated_time_is_spelled_per_version(version: str, wrong: str) -> None:
    """API-30: v1beta1 misspells the field; each version's dump uses its own spelling."""
    obj = wl(version)
    obj["status"] = {wrong: 5}
    assert f"Workload ns/w: status.{wrong}: is the" in rejected(obj)


# --------------------------------------------------------------------------- item 6: every error names the object


@pytest.mark.parametrize(
    "obj,shown",
    [
        (cq(), "ClusterQueue team-a"),
        (wl(), "Workload ns/w"),
        (cohort("v1beta2"), "Cohort child"),
    ],
)
def test_unsupported_api_version_names_the_object(obj: Obj, shown: str) -> None:
    """An unknown apiVersion named the object "ClusterQueue #17"; now by kind and metadata.name."""
    obj = copy.deepcopy(obj)
    obj["apiVersion"] = f"{KUEUE}/v2"
    assert f"d.json: {shown}: apiVersion: unsupported version 'kueue.x-k8s.io/v2'" in rejected(obj)


def test_an_object_without_a_usable_name_is_named_by_position() -> None:
    obj = cq()
    obj["apiVersion"] = f"{KUEUE}/v2"
    obj["metadata"] = {"name": "bad/name"}
    assert "ClusterQueue #1: apiVersion" in rejected(obj)


# --------------------------------------------------------------------------- writer


def test_writer_spells_the_parent_as_parent_name_in_v1beta1() -> None:
    dump = load(cohort("v1beta2", parentName="root"))
    text = dump_text(dump, format="json", version="v1beta1")
    (written,) = json.loads(text)["items"]
    assert written["spec"] == {"parentName": "root"}
    assert parse_dump(text).cohorts[0].parent == "root"


# --------------------------------------------------------------------------- pod templates (§1.8)


def _template_pod_set(**pod_spec: Any) -> Obj:
    spec: Obj = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}
    spec.update(pod_spec)
    return {"name": "main", "count": 1, "template": {"spec": spec}}


def test_pod_set_scheduling_fields_are_read() -> None:
    """FAS-5 inputs: nodeSelector, required node affinity (matchFields dropped), tolerations;
    FAS-18: the pod-set group name; API-22: minCount."""
    ps_obj = _template_pod_set(
        nodeSelector={"pool": "spot"},
        affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a", "b"]}], "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]},
            {"matchExpressions": [{"key": "gpu", "operator": "Gt", "values": ["2"]}]},
        ]}}},
        tolerations=[{"key": "spot", "operator": "Exists", "effect": "NoSchedule"}],
    )
    ps_obj.update(count=4, minCount=2, topologyRequest={"podSetGroupName": "g1"})
    (ps,) = load(wl(pod_sets=[ps_obj])).workloads[0].pod_sets
    assert dict(ps.node_selector) == {"pool": "spot"} and ps.min_count == 2 and ps.pod_set_group_name == "g1"
    assert [[(r.key, r.operator, r.values) for r in term] for term in ps.node_affinity] == [
        [("zone", "In", ("a", "b"))],
        [("gpu", "Gt", ("2",))],
    ]
    assert ps.tolerations == (Toleration("spot", "Exists", "", "NoSchedule"),)


def test_pod_level_resources_replace_the_container_sum() -> None:
    """§1.8 / FAS-1: a pod-level request for cpu or memory replaces the containers' value,
    other resources keep the container sum; overhead is added after."""
    ps_obj = _template_pod_set(resources={"requests": {"cpu": "3"}, "limits": {"memory": "4Gi"}}, overhead={"cpu": "100m"})
    ps_obj["template"]["spec"]["containers"][0]["resources"]["requests"]["example.com/gpu"] = "1"
    (ps,) = load(wl(pod_sets=[ps_obj])).workloads[0].pod_sets
    assert dict(ps.requests) == {"cpu": 3100, "memory": 4 * 2**30, "example.com/gpu": 1}


@pytest.mark.parametrize(
    "pod_spec,where,reason",
    [
        ({"containers": [{"name": "c", "resources": {"requests": {"pods": "1"}}}]}, "spec.podSets[0].template.spec.containers[0].resources.requests.pods", "cannot be requested (API-24)"),
        ({"containers": [{"name": "c"}], "resources": {"limits": {"pods": "1"}}}, "spec.podSets[0].template.spec.resources.limits.pods", "cannot be requested (API-24)"),
        ({"containers": [{"name": "c"}], "tolerations": [{"operator": "Equal", "value": "x"}]}, "spec.podSets[0].template.spec.tolerations[0].operator", "must be Exists when key is empty"),
        ({"containers": [{"name": "c"}], "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Gt", "values": []}]}]}}}}, "matchExpressions[0].values", "must hold exactly one integer for operator Gt"),
    ],
)
def test_pod_template_rejections(pod_spec: Obj, where: str, reason: str) -> None:
    obj = wl(pod_sets=[{"name": "main", "count": 1, "template": {"spec": pod_spec}}])
    message = rejected(obj)
    assert "Workload ns/w: " in message and where in message and reason in message


@pytest.mark.parametrize(
    "value,ok",
    [("example.com/provisioner", True), ("example.com/a, example.org/b", True), ("", False), ("noprefix", False),
     ("example.com/a,example.com/a", False), ("example.com/" + "x" * 60, False), ("example.com/a,,example.com/b", False)],
)
def test_admission_gated_by_annotation(value: str, ok: bool) -> None:
    """API-25: distinct, non-empty, domain-prefixed names of at most 63 characters."""
    obj = wl()
    obj["metadata"]["annotations"] = {"kueue.x-k8s.io/admission-gated-by": value}
    if ok:
        assert load(obj).workloads[0].workload.annotations["kueue.x-k8s.io/admission-gated-by"] == value
    else:
        assert 'Workload ns/w: metadata.annotations["kueue.x-k8s.io/admission-gated-by"]: ' in rejected(obj)


def test_admission_check_states() -> None:
    obj = wl()
    obj["status"] = {"admissionChecks": [{"name": "prov", "state": "Ready"}]}
    assert load(obj).workloads[0].key == "ns/w"
    obj["status"] = {"admissionChecks": [{"name": "prov", "state": "Done"}]}
    assert "Workload ns/w: status.admissionChecks[0].state: 'Done' is not one of Pending, Ready, Retry, Rejected" in rejected(obj)

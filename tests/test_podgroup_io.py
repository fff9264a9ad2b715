"""Reading PodGroups from manifests: the KEP-5710 API rules the reader applies (PG-VAL-1, PG-DEF-1).

The model (:class:`~kueue_preempt.podgroup.PodGroup`) deliberately accepts what the API server
would reject, because kube-scheduler's own unit tests (vendored in tests/conformance/kube/)
build such objects directly; the manifest reader is where the API's validation and defaulting
belong.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from kueue_preempt.io import ManifestError, parse_dump
from kueue_preempt.podgroup import DisruptionMode, PodGroup

Obj = dict[str, Any]


def yaml_text(*docs: Obj) -> str:
    return yaml.safe_dump_all(list(docs), sort_keys=False)


def pod_group(name: str, kind: str = "PodGroup", **spec: Any) -> Obj:
    return {
        "apiVersion": "scheduling.k8s.io/v1alpha2",
        "kind": kind,
        "metadata": {"name": name, "namespace": "ns"},
        "spec": spec,
    }


def priority_class(name: str, value: int, default: bool = False) -> Obj:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
        "globalDefault": default,
    }


def pod(name: str, **spec: Any) -> Obj:
    body: Obj = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}], **spec}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "ns"}, "spec": body}


# --------------------------------------------------------------------------- PG-VAL-1


@pytest.mark.parametrize("mode", ["All", "PodGroup"])
def test_pg_val_1_whole_group_disruption_of_a_basic_group_is_rejected(mode: str) -> None:
    """PG-VAL-1: ``disruptionMode`` All (KEP name PodGroup) with ``schedulingPolicy.basic``."""
    text = yaml_text(pod_group("g", priority=1, disruptionMode=mode, schedulingPolicy={"basic": {}}))
    with pytest.raises(ManifestError) as info:
        parse_dump(text, source="pg.yaml")
    message = str(info.value)
    assert message.startswith("pg.yaml: PodGroup ns/g: spec.disruptionMode: ")
    assert f"{mode!r} (the whole group is disrupted) is only allowed with schedulingPolicy.gang" in message
    assert message.endswith("spec.schedulingPolicy is basic")
    assert (info.value.kind, info.value.name, info.value.path) == ("PodGroup", "ns/g", "spec.disruptionMode")


def test_pg_val_1_an_absent_scheduling_policy_counts_as_basic() -> None:
    """PG-VAL-1: without a policy the group is scheduled pod by pod (FIT-2), so All is refused."""
    with pytest.raises(ManifestError, match="spec.schedulingPolicy is unset \\(scheduled as basic\\)"):
        parse_dump(yaml_text(pod_group("g", disruptionMode="All")))


@pytest.mark.parametrize(
    ("spec", "mode"),
    [
        ({"disruptionMode": "All", "schedulingPolicy": {"gang": {"minCount": 2}}}, DisruptionMode.ALL),
        ({"disruptionMode": "PodGroup", "schedulingPolicy": {"gang": {"minCount": 1}}}, DisruptionMode.ALL),
        ({"disruptionMode": "Single", "schedulingPolicy": {"basic": {}}}, DisruptionMode.SINGLE),
        ({"disruptionMode": "Pod", "schedulingPolicy": {"basic": {}}}, DisruptionMode.SINGLE),
        ({"schedulingPolicy": {"basic": {}}}, DisruptionMode.SINGLE),
        ({}, DisruptionMode.SINGLE),
    ],
)
def test_pg_val_1_allowed_combinations_load(spec: Obj, mode: DisruptionMode) -> None:
    """PG-VAL-1 only forbids All without a gang; everything else loads as before (PG-4)."""
    (group,) = parse_dump(yaml_text(pod_group("g", **spec))).pod_groups
    assert group.disruption_mode is mode


def test_pg_val_1_composites_have_no_scheduling_policy_and_keep_all() -> None:
    """PG-VAL-1 is about a PodGroup's own scheduling policy; a CompositePodGroup has none."""
    (composite,) = parse_dump(yaml_text(pod_group("top", kind="CompositePodGroup", disruptionMode="All"))).composite_pod_groups
    assert composite.disruption_mode is DisruptionMode.ALL


def test_pg_val_1_is_not_a_model_rule() -> None:
    """PG-VAL-1 lives in the reader: kube-scheduler's tests build Basic+All groups directly
    (e.g. "PDB: Unit violation if any member violates"), and they must keep running."""
    group = PodGroup("g", disruption_mode="All")
    assert group.disruption_mode is DisruptionMode.ALL and group.gang_min_count is None


# --------------------------------------------------------------------------- PG-DEF-1


def test_pg_def_1_a_group_without_class_takes_the_global_default() -> None:
    """PG-DEF-1: no priority, no priorityClassName -> the globalDefault class's value."""
    dump = parse_dump(
        yaml_text(
            priority_class("batch", 100, default=True),
            priority_class("high", 1000),
            pod_group("plain"),
            pod_group("named", priorityClassName="high"),
            pod_group("explicit", priority=7),
            pod_group("explicit-zero", priority=0),
            pod_group("both", priority=3, priorityClassName="high"),
            pod_group("top", kind="CompositePodGroup"),
        )
    )
    assert {g.name: g.priority for g in dump.pod_groups} == {
        "plain": 100,  # the global default
        "named": 1000,  # its own class, not the default
        "explicit": 7,  # spec.priority is never overridden
        "explicit-zero": 0,  # 0 is a set priority, not "unset"
        "both": 3,
    }
    assert dump.composite_pod_groups[0].priority == 100


def test_pg_def_1_without_a_default_class_the_priority_stays_zero() -> None:
    """PG-DEF-1: no globalDefault class -> priority 0 (PG-4), as for pods."""
    dump = parse_dump(yaml_text(priority_class("high", 1000), pod_group("plain"), pod("p")))
    assert dump.pod_groups[0].priority == 0
    assert dump.pods[0].priority == 0


def test_pg_def_1_groups_and_pods_agree_and_the_lowest_default_wins() -> None:
    """PG-DEF-1: a group resolves exactly like a pod; with two globalDefault classes (a race the
    API server tolerates) Kubernetes' priority admission picks the lowest value, for both."""
    dump = parse_dump(
        yaml_text(
            priority_class("b", 500, default=True),
            priority_class("a", 50, default=True),
            pod_group("g"),
            pod("p"),
        )
    )
    assert dump.pod_groups[0].priority == dump.pods[0].priority == 50


def test_pg_def_1_decides_a_preemption() -> None:
    """PG-DEF-1 end to end: a group without a class outranks a running group of priority 0 only
    through the default class (PG-23 needs strictly lower priority)."""
    from kueue_preempt.podgroup import StatusCode, select_podgroup_victims

    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "n1"},
        "status": {"allocatable": {"cpu": "1", "pods": "10"}},
    }
    running = pod("old", nodeName="n1", priority=0)
    pending = pod("new-0", schedulingGroup={"podGroupName": "new"})
    docs = [node, running, pending, pod_group("new", schedulingPolicy={"gang": {"minCount": 1}})]
    without = parse_dump(yaml_text(*docs))
    result = select_podgroup_victims(without.pod_group_preemptor("ns/new"), without.cluster())
    assert result.status.code is StatusCode.UNSCHEDULABLE  # 0 vs 0: nothing is lower
    with_default = parse_dump(yaml_text(priority_class("normal", 10, default=True), *docs))
    result = select_podgroup_victims(with_default.pod_group_preemptor("ns/new"), with_default.cluster())
    assert result.status.code is StatusCode.SUCCESS
    assert [p.name for p in result.victims] == ["old"]

"""Silent wrong answers an embedding program could get from malformed input, each now an error.

Every case here used to be accepted and give a wrong answer later (a queue that looks empty,
a workload in two queues, phantom usage, a preemptor that evicts itself) or blow up far from
the mistake with a raw Python exception. Each test names the rule it protects (DM-*, Q-*,
GT-*, POL-*) and checks that a refused call leaves the :class:`Snapshot` as it was.

Imports are from the package root, else from the subpackage that exports the name
(:mod:`kueue_preempt.model`, :mod:`kueue_preempt.assignment`, :mod:`kueue_preempt.preemption`,
:mod:`kueue_preempt.errors`).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any, Callable

import attrs
import pytest

from kueue_preempt import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FairSharingConfig,
    FlavorResource,
    PodSetSpec,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    ResourceQuota,
    Snapshot,
    Workload,
    WorkloadPriorityClass,
    assign_flavors,
    get_targets,
)
from kueue_preempt.assignment import assign_with_targets
from kueue_preempt.model import Condition, EvictionStat, PriorityClassRef
from kueue_preempt.preemption import classic_targets, fair_targets
from kueue_preempt.errors import (
    DuplicateName,
    InvalidArgument,
    InvalidModel,
    KueuePreemptError,
    UnknownClusterQueue,
    UnknownReference,
    UnknownWorkload,
)

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
CPU = FlavorResource("default", "cpu")
GPU = FlavorResource("default", "gpu")
CLASSIC = PreemptionConfig()
FAIR = PreemptionConfig(fair_sharing=FairSharingConfig())


def _queue(name: str, nominal: int = 4000, cohort: str | None = None, **kw: Any) -> ClusterQueue:
    kw.setdefault(
        "preemption", ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
    )
    return ClusterQueue(name=name, cohort=cohort, quotas={CPU: ResourceQuota(nominal=nominal)}, **kw)


def _admitted(name: str, cq: str, cpu: int, priority: int = 0, namespace: str = "ns") -> Workload:
    return Workload(
        name=name,
        namespace=namespace,
        cluster_queue=cq,
        priority=priority,
        creation_time=NOW,
        quota_reserved_at=NOW,
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": cpu})],
    )


def _pending(name: str, cpu: int, priority: int = 10, namespace: str = "ns") -> Workload:
    return Workload(
        name=name,
        namespace=namespace,
        priority=priority,
        creation_time=NOW,
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": cpu})],
    )


def _two_queues() -> Snapshot:
    """``a`` (4 cpu, low-priority ``ns/w`` uses 3) and ``b`` (4 cpu, empty), one cohort."""
    return Snapshot(
        [_queue("a", cohort="co"), _queue("b", cohort="co")],
        workloads=[_admitted("w", "a", 3000)],
    )


def _state(s: Snapshot) -> tuple[object, ...]:
    """GT-3 / DM-11: every usage map and workload set, plus the workload objects themselves."""
    return (s.state(), tuple((w.key, w.cluster_queue, id(w)) for w in s.workloads()))


# ------------------------------------------------------------------ 1. usage without a flavor (DM-7)


@pytest.mark.parametrize("amount", [1000, 0])
def test_pod_set_usage_for_a_resource_without_flavor_is_refused(amount: int) -> None:
    """DM-7 / SC-AD-1: an admission's ``resourceUsage`` and ``flavors`` have the same keys.

    A resource with usage but no flavor was silently not charged (the queue looked empty and a
    higher-priority preemptor found no targets); Kueue never writes such an admission, so it is
    an error naming the field and the resource."""
    with pytest.raises(InvalidModel) as info:
        PodSetUsage(flavors={}, usage={"cpu": amount})
    msg = str(info.value)
    assert "PodSetUsage" in msg and "'main'" in msg and "usage" in msg and "'cpu'" in msg and "flavor" in msg


def test_pod_set_usage_with_an_empty_flavor_name_is_refused() -> None:
    """DM-2: a flavor is named; ``""`` would charge a FlavorResource no queue has quota for."""
    with pytest.raises(InvalidModel, match=r"flavors\['cpu'\]"):
        PodSetUsage(flavors={"cpu": ""}, usage={"cpu": 1000})


def test_flavor_without_usage_is_still_accepted() -> None:
    """POL-9: a flavor with no usage entry reads as a zero usage that still counts as used."""
    w = Workload(name="w", cluster_queue="a", pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={})])
    assert w.used_flavor_resources == {CPU} and dict(w.usage) == {}


# ------------------------------------------------------------------ 2. ClusterQueue.preemption and model fields


def test_cluster_queue_preemption_mapping_is_converted() -> None:
    """DM-4 / POL-7: a plain mapping is converted into ClusterQueuePreemption (values validated)
    and preemption then works: the low-priority workload of the queue is the target."""
    cq = ClusterQueue(
        "a",
        quotas={CPU: ResourceQuota(nominal=4000)},
        preemption={"within_cluster_queue": "LowerPriority"},
    )
    assert cq.preemption == ClusterQueuePreemption(within_cluster_queue=PreemptionPolicy.LOWER_PRIORITY)
    s = Snapshot([cq], workloads=[_admitted("low", "a", 3000)])
    targets = get_targets(_pending("p", 2000), "a", Assignment(requests={CPU: 2000}, preempt={CPU}), s, config=CLASSIC, now=NOW)
    assert [t.workload.key for t in targets] == ["ns/low"]


def test_cluster_queue_preemption_nested_borrow_within_cohort_mapping() -> None:
    """POL-8: ``borrow_within_cohort`` may be a mapping too, inside a mapping or a ClusterQueuePreemption."""
    cq = ClusterQueue(
        "a",
        cohort="co",
        preemption={
            "reclaim_within_cohort": "Any",
            "borrow_within_cohort": {"policy": "LowerPriority", "max_priority_threshold": 5},
        },
    )
    assert cq.preemption.borrow_within_cohort == BorrowWithinCohort(PreemptionPolicy.LOWER_PRIORITY, 5)
    p = ClusterQueuePreemption(reclaim_within_cohort="Any", borrow_within_cohort={"policy": "LowerPriority"})
    assert p.borrow_within_cohort == BorrowWithinCohort(PreemptionPolicy.LOWER_PRIORITY)


def test_cluster_queue_preemption_none_is_the_defaulted_stanza() -> None:
    """POL-7: an absent stanza is all ``Never``, as ``None`` for flavor_fungibility is its defaults."""
    assert ClusterQueue("a", preemption=None).preemption == ClusterQueuePreemption()


@pytest.mark.parametrize(
    ("value", "field", "needle"),
    [
        ("LowerPriority", "preemption", "str"),
        (["LowerPriority"], "preemption", "list"),
        ({"withinClusterQueue": "LowerPriority"}, "preemption", "'withinClusterQueue'"),
        ({"within_cluster_queue": "Sometimes"}, "within_cluster_queue", "'Sometimes'"),
        ({"within_cluster_queue": "Any"}, "within_cluster_queue", "'Any'"),
        ({1: "Never"}, "preemption", "1"),
        ({"borrow_within_cohort": "LowerPriority"}, "borrow_within_cohort", "str"),
        ({"reclaim_within_cohort": "Any", "borrow_within_cohort": {"polcy": "Never"}}, "borrow_within_cohort", "'polcy'"),
    ],
)
def test_cluster_queue_preemption_bad_values_are_refused(value: object, field: str, needle: str) -> None:
    """POL-7: a non-ClusterQueuePreemption value, an unknown key or an unknown policy is an
    InvalidModel at construction (it used to build and raise AttributeError in get_targets)."""
    with pytest.raises(InvalidModel) as info:
        ClusterQueue("a", preemption=value)  # type: ignore[arg-type]
    msg = str(info.value)
    assert field in msg and needle in msg


@pytest.mark.parametrize(
    ("build", "obj", "field"),
    [
        (lambda: ClusterQueue(["a"]), "ClusterQueue", "name"),  # type: ignore[arg-type]
        (lambda: ClusterQueue(7), "ClusterQueue", "name"),  # type: ignore[arg-type]
        (lambda: ClusterQueue("a", cohort=["co"]), "ClusterQueue", "cohort"),  # type: ignore[arg-type]
        (lambda: ClusterQueue("a", cohort=Cohort("co")), "ClusterQueue", "cohort"),  # type: ignore[arg-type]
        (lambda: ClusterQueue("a", admission_scope_usage_based="yes"), "ClusterQueue", "admission_scope_usage_based"),  # type: ignore[arg-type]
        (lambda: Cohort(("co",)), "Cohort", "name"),  # type: ignore[arg-type]
        (lambda: Cohort("co", parent=3), "Cohort", "parent"),  # type: ignore[arg-type]
        (lambda: Cohort("co", quotas={"default/cpu": ResourceQuota()}), "Cohort", "quotas"),  # type: ignore[dict-item]
        (lambda: ClusterQueue("a", quotas={CPU: 4000}), "ClusterQueue", "quotas"),  # type: ignore[dict-item]
        (lambda: FlavorResource(["default"], "cpu"), "FlavorResource", "flavor"),  # type: ignore[arg-type]
        (lambda: FlavorResource("default", ""), "FlavorResource", "resource"),
        (lambda: Workload(["w"]), "Workload", "name"),  # type: ignore[arg-type]
        (lambda: Workload("w", namespace=None), "Workload", "namespace"),  # type: ignore[arg-type]
        (lambda: Workload("w", uid=5), "Workload", "uid"),  # type: ignore[arg-type]
        (lambda: Workload("w", cluster_queue=None), "Workload", "cluster_queue"),  # type: ignore[arg-type]
        (lambda: Workload("w", local_queue=["lq"]), "Workload", "local_queue"),  # type: ignore[arg-type]
        (lambda: Workload("w", evicted="false"), "Workload", "evicted"),  # type: ignore[arg-type]
        (lambda: Workload("w", non_preemptible=1), "Workload", "non_preemptible"),  # type: ignore[arg-type]
        (lambda: Workload("w", local_queue_fs_usage="0.5"), "Workload", "local_queue_fs_usage"),  # type: ignore[arg-type]
        (lambda: Workload("w", local_queue_fs_usage=float("nan")), "Workload", "local_queue_fs_usage"),
        (lambda: PodSetUsage(name=1), "PodSetUsage", "name"),  # type: ignore[arg-type]
        (lambda: PodSetUsage(name=""), "PodSetUsage", "name"),
        (lambda: Condition(type=None), "Condition", "type"),  # type: ignore[arg-type]
        (lambda: Condition(type="Admitted", status=True), "Condition", "status"),  # type: ignore[arg-type]
        (lambda: Condition(type="Admitted", observed_generation="1"), "Condition", "observed_generation"),  # type: ignore[arg-type]
        (lambda: EvictionStat(reason=3), "EvictionStat", "reason"),  # type: ignore[arg-type]
        (lambda: WorkloadPriorityClass(name=None), "WorkloadPriorityClass", "name"),  # type: ignore[arg-type]
        (lambda: PriorityClassRef(name=["high"]), "PriorityClassRef", "name"),  # type: ignore[arg-type]
    ],
)
def test_model_fields_of_the_wrong_type_are_refused_at_construction(
    build: Callable[[], object], obj: str, field: str
) -> None:
    """DM-2..DM-7: a wrongly typed name or switch is an InvalidModel naming the object and the
    field, not a value that compares unequal to everything (a list as a name) or is truthy
    where a bool goes (``"false"``)."""
    with pytest.raises(InvalidModel) as info:
        build()
    assert obj in str(info.value) and repr(field) in str(info.value)


def test_empty_cohort_name_means_no_cohort() -> None:
    """DM-4 / DM-5: Kueue reads an empty ``spec.cohort`` / ``spec.parentName`` as "none"; two
    standalone queues must not share an implicit cohort named ``""`` and borrow from each other."""
    assert ClusterQueue("a", cohort="").cohort is None
    assert Cohort("co", parent="").parent is None
    s = Snapshot([_queue("a", cohort=""), _queue("b", cohort="")], workloads=[_admitted("w", "a", 3000)])
    assert s.cluster_queue("a").parent is None and "" not in s.cohorts
    assert s.available(s.cluster_queue("a"), CPU) == 1000  # not b's unused 4 cpu too


# ------------------------------------------------------------------ 3. add_workload of an admitted key (DM-11)


@pytest.mark.parametrize("where", ["a", "b"])
def test_add_workload_already_admitted_is_refused(where: str) -> None:
    """DM-11 / DM-7: a workload key holds quota in one place; a second admission (same or another
    ClusterQueue) is a DuplicateName and the snapshot is unchanged."""
    s = _two_queues()
    before = _state(s)
    with pytest.raises(DuplicateName) as info:
        s.add_workload(_admitted("w", where, 1000))
    assert "ns/w" in str(info.value) and "Workload" in str(info.value)
    assert _state(s) == before
    with s.preserved():  # inside a what-if block too
        with pytest.raises(DuplicateName):
            s.add_workload(_admitted("w", where, 1000))
        assert _state(s) == before
    assert _state(s) == before


def test_add_workload_after_removal_elsewhere_is_allowed() -> None:
    """Moving a workload (remove from ``a``, add to ``b``) is fine, and a what-if block restores it."""
    s = _two_queues()
    before = _state(s)
    with s.preserved():
        s.remove_workload(_admitted("w", "a", 3000))
        s.add_workload(_admitted("w", "b", 3000))
        assert [w.cluster_queue for w in s.workloads()] == ["b"]
        with pytest.raises(DuplicateName):
            s.add_workload(_admitted("w", "a", 3000))
    assert _state(s) == before
    with pytest.raises(DuplicateName):  # the restored admission in ``a`` is known again
        s.add_workload(_admitted("w", "b", 3000))


# ------------------------------------------------------------------ 4. remove_workload (DM-11)


def test_remove_workload_releases_the_usage_that_was_charged() -> None:
    """DM-11 / Q-6: removal is by key and releases what the stored workload charged, whatever
    the usage of the object passed in; no phantom usage is left behind (docs/decisions.md)."""
    s = _two_queues()
    s.remove_workload(_admitted("w", "a", 1000))  # same key, different usage
    assert list(s.workloads()) == []
    for node in [*s.cluster_queues.values(), *s.cohorts.values()]:
        assert all(v == 0 for v in node.usage.values()), node  # it used to keep 2000 in ``a``
    assert s.available(s.cluster_queue("a"), CPU) == 8000  # both queues' quota is free again


def test_remove_workload_in_a_block_restores_the_stored_object() -> None:
    """GT-3: a removal by an equal-key object inside preserved() restores the original."""
    s = _two_queues()
    before = _state(s)
    with s.preserved():
        s.remove_workload(_admitted("w", "a", 1))
        assert s.cluster_queue("a").usage.get(CPU, 0) == 0
    assert _state(s) == before


@pytest.mark.parametrize(
    ("workload", "needles"),
    [
        (_admitted("ghost", "a", 1000), ["'ns/ghost'", "not admitted", "'a'"]),
        (_admitted("w", "b", 3000), ["'ns/w'", "not admitted", "'b'", "admitted in ClusterQueue 'a'"]),
        (_admitted("w", "a", 3000, namespace="other"), ["'other/w'", "not admitted"]),
    ],
)
def test_remove_absent_workload_raises_unknown_workload(workload: Workload, needles: list[str]) -> None:
    """DM-11: removing a workload that is not admitted there is an UnknownWorkload (an
    UnknownReference) naming namespace/name, not an UnknownClusterQueue; nothing changes."""
    s = _two_queues()
    before = _state(s)
    with pytest.raises(UnknownWorkload) as info:
        s.remove_workload(workload)
    assert isinstance(info.value, UnknownReference) and isinstance(info.value, KueuePreemptError)
    assert not isinstance(info.value, UnknownClusterQueue)
    for needle in needles:
        assert needle in str(info.value)
    assert _state(s) == before


def test_remove_workload_from_an_unknown_queue_is_still_unknown_cluster_queue() -> None:
    s = _two_queues()
    before = _state(s)
    with pytest.raises(UnknownClusterQueue, match="'nope'"):
        s.remove_workload(_admitted("w", "nope", 3000))
    assert _state(s) == before


# ------------------------------------------------------------------ 5. an admitted preemptor (GT-1)


@pytest.mark.parametrize(
    "run",
    [
        lambda p, s: get_targets(p, "a", Assignment(requests={CPU: 3000}, preempt={CPU}), s, config=CLASSIC, now=NOW),
        lambda p, s: classic_targets(p, "a", Assignment(requests={CPU: 3000}, preempt={CPU}), s, config=CLASSIC, now=NOW),
        lambda p, s: get_targets(p, "a", Assignment(requests={CPU: 3000}, preempt={CPU}), s, config=FAIR, now=NOW),
        lambda p, s: fair_targets(p, "a", Assignment(requests={CPU: 3000}, preempt={CPU}), s, config=FAIR, now=NOW),
    ],
    ids=["get_targets", "classic_targets", "get_targets-fair", "fair_targets"],
)
def test_admitted_preemptor_is_refused(run: Callable[[Workload, Snapshot], object]) -> None:
    """GT-1: the preemptor is not in the snapshot. An admitted one used to be returned as its
    own target; now an InvalidArgument names it, and the snapshot is unchanged (GT-3)."""
    s = Snapshot([_queue("a")], workloads=[_admitted("w", "a", 3000, priority=0)])
    before = _state(s)
    for preemptor in (next(iter(s.workloads())), _pending("w", 3000, priority=100)):  # the object or its key
        with pytest.raises(InvalidArgument) as info:
            run(preemptor, s)
        msg = str(info.value)
        assert "preemptor" in msg and "'ns/w'" in msg and "admitted" in msg and "'a'" in msg
        assert _state(s) == before


def test_flavor_assigner_refuses_an_admitted_workload() -> None:
    """FAS / GT-1: the flavor assigner places pending workloads; an admitted one would be
    judged against quota that already counts its own usage."""
    spec = [PodSetSpec(name="main", count=1, requests={"cpu": 3000})]
    s = Snapshot([_queue("a")], workloads=[attrs.evolve(_admitted("w", "a", 3000), spec_pod_sets=spec)])
    before = _state(s)
    w = next(iter(s.workloads()))
    for call in (assign_flavors, assign_with_targets):
        with pytest.raises(InvalidArgument, match="'ns/w'.*admitted"):
            call(w, "a", s, [])
        assert _state(s) == before


# ------------------------------------------------------------------ 6. Assignment.preempt (FA-2, FA-3)


def test_assignment_preempt_must_be_requested() -> None:
    """FA-2 / FA-3: FRNP is drawn from the requested FlavorResources; a Preempt FlavorResource
    with no request is refused at construction, naming it."""
    with pytest.raises(InvalidModel) as info:
        Assignment(requests={CPU: 1000}, preempt={CPU, GPU})
    msg = str(info.value)
    assert "Assignment" in msg and "preempt" in msg and "default/gpu" in msg and "requests" in msg
    Assignment(requests={CPU: 1000, GPU: 0}, preempt={GPU})  # a requested (zero) amount is a request


# ------------------------------------------------------------------ 7. other snapshot mutations (Q-6, DM-11)


def test_add_workload_checks_its_argument() -> None:
    """DM-11: a dict or a pending workload is not an admitted Workload; nothing changes."""
    s = _two_queues()
    before = _state(s)
    with pytest.raises(InvalidArgument, match="workload"):
        s.add_workload({"name": "x"})  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="workload"):
        s.remove_workload("ns/w")  # type: ignore[arg-type]
    with pytest.raises(UnknownClusterQueue, match="ns/p"):
        s.add_workload(_pending("p", 1000))  # cluster_queue "": not admitted
    with pytest.raises(UnknownClusterQueue, match="'nope'"):
        s.add_workload(_admitted("x", "nope", 1000))
    assert _state(s) == before


@pytest.mark.parametrize(
    ("usage", "needle"),
    [
        ({"default/cpu": 1000}, "FlavorResource"),
        ({CPU: "1"}, "int"),
        ({CPU: True}, "int"),
        ({CPU: 2**70}, "int64"),
        ([CPU], "mapping"),
    ],
)
def test_add_and_remove_usage_outside_a_block_check_their_arguments(usage: Any, needle: str) -> None:
    """Q-6 / Q-7: usage given outside a what-if block is permanent (simulated usage, SC-PE-2); a
    string key or a non-int amount would be stored where no quota walk reads it. Refused there,
    the snapshot unchanged. (Negative amounts stay allowed: SC-PE-2's reservation may be one.)"""
    s = _two_queues()
    node = s.cluster_queue("a")
    before = _state(s)
    for op in (s.add_usage, s.remove_usage):
        with pytest.raises(InvalidArgument, match=needle):
            op(node, usage)
        assert _state(s) == before


def test_add_usage_to_a_node_of_another_snapshot_is_refused() -> None:
    """DM-11: a snapshot mutates its own ClusterQueues only; a cohort or another snapshot's
    node would be changed without being journaled or restored (GT-3)."""
    s, other = _two_queues(), _two_queues()
    before, other_before = _state(s), _state(other)
    for node in (other.cluster_queue("a"), s.cohort("co"), "a"):
        for op in (s.add_usage, s.remove_usage):
            with pytest.raises(InvalidArgument, match="'cq'"):
                op(node, {CPU: 1})  # type: ignore[arg-type]
    assert _state(s) == before and _state(other) == other_before


def test_trial_removal_outside_a_block_is_refused() -> None:
    """DM-11: ``take_usage`` leaves the workload admitted; outside preserved() its usage would
    be gone for good (a queue that looks emptier than it is). Inside a block it is undone."""
    s = _two_queues()
    before = _state(s)
    w = next(iter(s.workloads()))
    node = s.cluster_queue("a")
    for op in (s.take_usage, s.return_usage):
        with pytest.raises(InvalidArgument, match="preserved"):
            op(node, w)
        assert _state(s) == before
    with s.preserved():
        s.take_usage(node, w)
        assert node.usage[CPU] == 0
    assert _state(s) == before


def test_usage_outside_the_queues_quota_is_charged() -> None:
    """Q-6 [K]: a workload is charged for every FlavorResource of its admission, even one the
    queue no longer declares (its flavor was removed after admission); not an error."""
    s = Snapshot(
        [_queue("a")],
        workloads=[
            Workload(
                name="old",
                cluster_queue="a",
                pod_sets=[PodSetUsage(flavors={"cpu": "retired"}, usage={"cpu": 2000})],
            )
        ],
    )
    assert s.cluster_queue("a").usage[FlavorResource("retired", "cpu")] == 2000


def test_snapshot_constructor_refuses_a_workload_admitted_twice() -> None:
    """DM-7: the constructor already refused one key in two queues (kept)."""
    with pytest.raises(DuplicateName, match="ns/w"):
        Snapshot([_queue("a"), _queue("b")], workloads=[_admitted("w", "a", 1), _admitted("w", "b", 1)])

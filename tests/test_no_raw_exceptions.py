"""Bad input never escapes as a raw Python exception (issue 16 item 4).

Every public name of ``kueue_preempt.__all__`` and of the core subpackages' ``__all__`` is
enumerated programmatically, so a new public
name is covered automatically (or must be added to ``SKIPPED`` with a reason, or to ``VALID``
with a valid call). For each callable we start from a valid call and replace one argument at a
time with a wrong type or an out-of-range value (negative counts, NaN, huge ints, ``None``, wrong
enum strings, ...). The call must either succeed or raise one of the library's own errors
(:class:`KueuePreemptError`) whose message names the argument it rejected — never a bare
``TypeError``/``KeyError``/``AttributeError``. A Hypothesis property then nests bad values
inside the maps and lists the constructors take.
"""

from __future__ import annotations

import enum
import inspect
import math
from datetime import datetime, timezone
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kueue_preempt as kp
from kueue_preempt import assignment as kp_assignment
from kueue_preempt import model as kp_model
from kueue_preempt import preemption as kp_preemption
from kueue_preempt import snapshot as kp_snapshot
from kueue_preempt import (
    Assignment,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FlavorQuotas,
    FlavorResource,
    KueuePreemptError,
    PodSetSpec,
    PodSetUsage,
    PreemptionConfig,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
)
from kueue_preempt.assignment import FlavorAssignment
from kueue_preempt.model import (
    ContainerResources,
    FairSharingStrategy,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    Taint,
    Toleration,
)
from kueue_preempt.snapshot import DominantResourceShare
from kueue_preempt.cycle import ClusterState
from kueue_preempt.podgroup import Cluster, Node, Pod, PodGroup, PodGroupPreemptor
from kueue_preempt.sim import parse_arrivals
from test_sim_cycle import DUMP as SIM_DUMP, STATE as SIM_STATE
from kueue_preempt.assignment import PodSetAssignment, ResourceAssignment

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)
CPU = FlavorResource("default", "cpu")

# Names of __all__ that are not constructors or entry points to fuzz, each with the reason.
SKIPPED: dict[str, str] = {
    "BOOST_ANNOTATION": "a constant string, not callable",
    "UNLIMITED": "a constant int, not callable",
    "WORKLOAD_PRIORITY_CLASS_GROUP": "a constant string, not callable",
    "WORKLOAD_PRIORITY_CLASS_KIND": "a constant string, not callable",
}
SKIPPED_KINDS = (
    "exception classes: building one is not an entry point (their messages are tested elsewhere)",
    "Enum classes: lookup by value is Python's Enum API; constructors that take enum strings are fuzzed",
)


def _queue(name: str = "a", cohort: str | None = "co") -> ClusterQueue:
    return ClusterQueue(
        name=name,
        cohort=cohort,
        quotas={CPU: ResourceQuota(nominal=4000)},
        preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any"),
    )


def _workload(name: str = "w", cq: str = "a", priority: int = 1) -> Workload:
    return Workload(
        name=name,
        namespace="ns",
        uid=name,
        cluster_queue=cq,
        priority=priority,
        quota_reserved_at=NOW,
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": 3000})],
    )


def _snapshot() -> Snapshot:
    return Snapshot([_queue("a"), _queue("b")], [Cohort("co")], [_workload("v", "b"), _workload("u", "a", 0)])


def _node(cq: str = "a") -> Any:
    snap = _snapshot()
    return snap.cluster_queue(cq)


PREEMPTOR = Workload(name="p", namespace="ns", uid="p", priority=5, creation_time=NOW)
ASSIGNMENT = Assignment(requests={CPU: 2000}, preempt=[CPU])
DRS = DominantResourceShare(ratio=0.5, weight=1.0)


# Flavor assignment (FAS-*): a ClusterQueue with one resource group, a pending workload with a
# spec, and the assigner's output for it.
DEFAULT_QUOTAS = FlavorQuotas("default", {"cpu": ResourceQuota(nominal=4000)})
PENDING = Workload(
    name="pending",
    namespace="ns",
    uid="pending",
    priority=5,
    creation_time=NOW,
    spec_pod_sets=[PodSetSpec("main", count=2, requests={"cpu": "500m"}, min_count=1)],
)
ASSIGNED = FlavorAssignment(
    pod_sets=[PodSetAssignment("main", 2, {"cpu": ResourceAssignment("default", "Fit")}, requests={"cpu": 1000})],
    usage={CPU: 1000},
)


def _assign_call() -> dict[str, Any]:
    return {"workload": PENDING, "cluster_queue": "a", "snapshot": _snapshot(), "resource_flavors": [ResourceFlavor("default")]}


def _ordering() -> dict[str, Any]:
    snap = _snapshot()
    return {"snapshot": snap, "preemptor_queue": snap.cluster_queue("a"), "candidates": []}


# A valid call for every callable that has required arguments: name -> factory of kwargs.
# (Factories, not values: the algorithms must get a fresh Snapshot each time.)
VALID: dict[str, Callable[[], dict[str, Any]]] = {
    "Assignment": lambda: {"requests": {CPU: 1000}, "preempt": [CPU]},
    "AssignmentDecision": lambda: {"assignment": ASSIGNED, "targets": [], "partial": False},
    "FlavorAssignment": lambda: {"pod_sets": ASSIGNED.pod_sets, "borrowing": 0, "usage": {CPU: 1000}},
    "FlavorQuotas": lambda: {"name": "default", "resources": {"cpu": ResourceQuota(nominal=4000)}},
    "NodeSelectorRequirement": lambda: {"key": "zone", "operator": "In", "values": ["a", "b"]},
    "NodeSelectorTerm": lambda: {"match_expressions": [NodeSelectorRequirement("zone", "In", ["a"])]},
    "PodSetSpec": lambda: {
        "name": "main",
        "count": 4,
        "requests": {"cpu": "500m", "memory": "1Gi"},
        "min_count": 2,
        "node_selector": {"zone": "a"},
        "required_node_affinity": [NodeSelectorTerm([NodeSelectorRequirement("zone", "In", ["a"])])],
        "tolerations": [Toleration("gpu", "Exists")],
        "pod_set_group": "g",
    },
    "ResourceFlavor": lambda: {
        "name": "default",
        "node_labels": {"zone": "a"},
        "node_taints": [Taint("gpu", "true", "NoSchedule")],
        "tolerations": [Toleration("gpu", "Exists")],
        "topology_name": "default-topology",
    },
    "ResourceGroup": lambda: {"covered_resources": ["cpu"], "flavors": [DEFAULT_QUOTAS]},
    "Taint": lambda: {"key": "gpu", "value": "true", "effect": "NoSchedule"},
    "ContainerResources": lambda: {"requests": {"cpu": "250m"}, "limits": {"memory": "1Gi"}, "restartable": True},
    "assign_flavors": lambda: {**_assign_call(), "counts": [1], "progress": [{"cpu": -1}], "pinned": {"main": {"cpu": "default"}}},
    "assign_with_targets": lambda: {**_assign_call(), "progress": [{"cpu": -1}], "now": NOW},
    "effective_pod_requests": lambda: {
        "containers": [ContainerResources(requests={"cpu": "500m"})],
        "init_containers": [ContainerResources(requests={"cpu": 1000}, restartable=True)],
        "overhead": {"cpu": "100m"},
        "pod_requests": {"memory": "2Gi"},
    },
    "ClusterQueue": lambda: {"name": "a"},
    "ClusterQueueSettings": lambda: {"name": "a", "queueing_strategy": "StrictFIFO", "stop_policy": "Hold"},
    "AdmissionCheckRule": lambda: {"name": "check", "on_flavors": ["default"]},
    "LocalQueue": lambda: {"namespace": "ns", "name": "lq", "cluster_queue": "a"},
    "LabelSelector": lambda: {"match_labels": {"team": "a"}, "match_expressions": [kp_model.LabelSelectorRequirement("env", "In", ["prod"])]},
    "LabelSelectorRequirement": lambda: {"key": "env", "operator": "In", "values": ["prod"]},
    "ClusterQueueOrdering": _ordering,
    "Cohort": lambda: {"name": "co"},
    "CohortCycle": lambda: {"cycle": ["a", "b"]},
    "Condition": lambda: {"type": "Evicted"},
    "DominantResourceShare": lambda: {"ratio": 0.5, "weight": 1.0},
    "EvictionStat": lambda: {"reason": "Preempted"},
    "FlavorResource": lambda: {"flavor": "default", "resource": "cpu"},
    "NonPreemptibleQuotaCheck": lambda: {"allowed": True},
    "NonPreemptibleViolation": lambda: {"flavor_resource": CPU, "requested": 1, "non_preemptible_usage": 1, "nominal": 1},
    "PriorityClassRef": lambda: {"name": "high"},
    "PriorityInfo": lambda: {"effective": 1, "base": 1, "boost": 0},
    "QuotaNode": lambda: {"name": "a", "is_cluster_queue": True},
    "Snapshot": lambda: {"cluster_queues": [_queue()], "cohorts": [Cohort("co")], "workloads": [_workload()]},
    "Target": lambda: {"workload": _workload(), "reason": "InClusterQueue", "cluster_queue": "a"},
    "TraceEvent": lambda: {"verdict": "kept", "rule": "GT-1", "detail": "x"},
    "Workload": lambda: {"name": "w"},
    "WorkloadPriorityClass": lambda: {"name": "high"},
    "candidate_sort_key": lambda: {"workload": _workload(), "preemptor_cluster_queue": "a", "now": NOW},
    "candidates_ordering": lambda: {"a": _workload("x"), "b": _workload("y"), "preemptor_cluster_queue": "a", "now": NOW},
    "check_non_preemptible_quota": lambda: {
        "workload": PREEMPTOR,
        "cluster_queue": "a",
        "requests": {CPU: 1000},
        "snapshot": _snapshot(),
        "config": PreemptionConfig(non_preemptible_enabled=True),
    },
    "classic_targets": lambda: {
        "preemptor": PREEMPTOR, "cluster_queue": "a", "assignment": ASSIGNMENT, "snapshot": _snapshot(), "now": NOW
    },
    "compare_drs": lambda: {"a": DRS, "b": DRS},
    "dominant_resource_share": lambda: {"snapshot": _snapshot(), "node": _node()},
    "fair_shares": lambda: {"snapshot": (s := _snapshot()), "preemptor_queue": s.cluster_queue("a"), "target_queue": s.cluster_queue("b")},
    "fair_targets": lambda: {
        "preemptor": PREEMPTOR, "cluster_queue": "a", "assignment": ASSIGNMENT, "snapshot": _snapshot(), "now": NOW
    },
    "is_borrowing": lambda: {"snapshot": _snapshot(), "node": _node()},
    "is_borrowing_on": lambda: {"node": _node(), "requested": {CPU: 1000}},
    "is_non_preemptible": lambda: {"workload": _workload(), "snapshot": _snapshot(), "config": PreemptionConfig()},
    "ordering_for": lambda: {"snapshot": _snapshot(), "preemptor_cluster_queue": "a", "candidates": [_workload("v", "b")]},
    "strategy_allows": lambda: {
        "strategy": FairSharingStrategy.LESS_THAN_INITIAL_SHARE, "preemptor_new": DRS, "target_old": DRS, "target_new": DRS
    },
    "target_share_after_removal": lambda: {
        "snapshot": (s := _snapshot()), "preemptor_queue": s.cluster_queue("a"), "workload": _workload("v", "b")
    },
    "effective_priority": lambda: {"workload": _workload()},
    "get_targets": lambda: {
        "preemptor": PREEMPTOR, "cluster_queue": "a", "assignment": ASSIGNMENT, "snapshot": _snapshot(), "now": NOW
    },
    "human_readable_reason": lambda: {"reason": "InClusterQueue"},
    "parse_boost": lambda: {"value": "5"},
    "parse_quantity": lambda: {"value": "500m"},
    "preemption_cost": lambda: {"workload": _workload()},
    "preemption_message": lambda: {"preemptor": PREEMPTOR, "reason": "InClusterQueue", "preemptor_path": "/a", "preemptee_path": "/b"},
    "priority_info": lambda: {"workload": _workload()},
    "queue_order_timestamp": lambda: {"workload": _workload()},
    "quota_amount": lambda: {"value": "1", "resource": "cpu"},
    "request_amount": lambda: {"value": "1", "resource": "cpu"},
    "satisfies_preemption_policy": lambda: {"preemptor": PREEMPTOR, "candidate": _workload(), "policy": "LowerPriority"},
    "scheduling_order_key": lambda: {"workload": _workload()},
    "sort_candidates": lambda: {"candidates": [_workload("x"), _workload("y")], "preemptor_cluster_queue": "a", "now": NOW},
    "sort_pending": lambda: {"workloads": [_workload("x"), _workload("y")]},
    "validate_boost": lambda: {"workload": _workload()},
    "explain": lambda: {"workload": PENDING, "cluster_queue": "a", "snapshot": _snapshot(), "now": NOW},
    "Explanation": lambda: {
        "workload": PENDING, "cluster_queue": "a", "path": "/co/a", "priority": kp_model.PriorityInfo(5, 5, 0),
        "config": PreemptionConfig(), "now": NOW, "mode": "Fit", "outcome": "fits", "targets": (),
        "requests": {}, "preempt": frozenset(),
    },
    "schedule_cycle": lambda: {"cluster": ClusterState(cluster_queues=[_queue()], cohorts=[Cohort("co")], workloads=[PENDING]), "now": NOW},
    "select_podgroup_victims": lambda: {
        "preemptor": PodGroupPreemptor(PodGroup("g", priority=10), [Pod("g-0", requests={"units": "1"})]),
        "cluster": Cluster([Node("n1", {"units": "1"})], [Pod("v", uid="v", node_name="n1", requests={"units": "1"})]),
    },
    "simulate": lambda: {
        "state": SIM_STATE, "dump": SIM_DUMP,
        "arrivals": parse_arrivals('{"at": 1, "duration": 5, "template": "train", "name": "x"}\n'),
    },
}


class _Opaque:
    """An object of no type the library knows."""

    def __repr__(self) -> str:
        return "<opaque>"


# Wrong types and out-of-range values, named for readable test ids.
BAD: dict[str, Any] = {
    "None": None,
    "true": True,
    "negative": -1,
    "huge-int": 2**80,
    "-huge-int": -(2**80),
    "nan": math.nan,
    "inf": math.inf,
    "half": 0.5,
    "bogus-string": "Bogus",
    "empty-string": "",
    "list": [1, "x"],
    "dict": {"k": object()},
    "opaque": _Opaque(),
    "decimal-nan": Decimal("NaN"),
    "fraction": Fraction(1, 3),
    "bytes": b"cpu",
}


# Every public name a user can import: the root's, the model's, the snapshot's and preemption's
# ``__all__``, and the flavor assigner's entry points and value types.
PUBLIC: dict[str, Any] = {name: getattr(kp, name) for name in kp.__all__}
for _package in (kp_model, kp_snapshot, kp_preemption, kp_assignment):
    for _name in _package.__all__:
        if _package is not kp_assignment or _name in VALID:
            PUBLIC.setdefault(_name, getattr(_package, _name))


def _kind_skip(obj: object) -> str | None:
    if inspect.isclass(obj) and issubclass(obj, BaseException):
        return SKIPPED_KINDS[0]
    if inspect.isclass(obj) and issubclass(obj, enum.Enum):
        return SKIPPED_KINDS[1]
    return None


def _fuzzed_names() -> list[str]:
    names = []
    for name, obj in PUBLIC.items():
        if name in SKIPPED or _kind_skip(obj) is not None:
            continue
        names.append(name)
    return names


FUZZED = _fuzzed_names()


def _parameters(name: str) -> list[str]:
    sig = inspect.signature(PUBLIC[name])
    return [p.name for p in sig.parameters.values() if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _check(name: str, kwargs: dict[str, Any], corrupted: str) -> None:
    try:
        PUBLIC[name](**kwargs)
    except KueuePreemptError as exc:
        message = str(exc)
        named = {corrupted, _camel(corrupted), corrupted.replace("_", "-")}
        assert any(n in message for n in named), (
            f"{name}({corrupted}=...): the error must name the argument {corrupted!r}: {message}"
        )
    except Exception as exc:  # noqa: BLE001 - this is exactly what the test forbids
        pytest.fail(f"{name}({corrupted}={kwargs[corrupted]!r}) raised a raw {type(exc).__name__}: {exc}")


def test_every_public_name_is_fuzzed_or_skipped_with_a_reason() -> None:
    """Item 4: new public names are covered automatically; the skip list is explicit."""
    for name, obj in PUBLIC.items():
        if name in SKIPPED:
            assert not callable(obj), f"{name} is callable: fuzz it instead of skipping it"
            continue
        if _kind_skip(obj) is not None:
            continue
        assert callable(obj), f"{name} is neither callable nor in SKIPPED"
        required = [
            p
            for p in inspect.signature(obj).parameters.values()
            if p.default is p.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
        ]
        assert not required or name in VALID, f"add a valid call for {name} to VALID"


@pytest.mark.parametrize("name", FUZZED)
def test_one_bad_argument_raises_only_library_errors(name: str) -> None:
    """Item 4: each argument in turn replaced by each bad value; only KueuePreemptError escapes,
    and its message names the argument."""
    for param in _parameters(name):
        for bad in BAD.values():
            kwargs = VALID[name]() if name in VALID else {}
            kwargs[param] = bad
            _check(name, kwargs, param)


# ---------------------------------------------------------------------------- nested values

_leaf = st.sampled_from(list(BAD.values())) | st.integers() | st.floats() | st.text(max_size=8)


@st.composite
def _nested_call(draw: st.DrawFn) -> tuple[str, dict[str, Any], str]:
    """A constructor call with a bad value hidden inside a map, a list or a nested object."""
    choice = draw(st.integers(0, 16))
    bad = draw(_leaf)
    if choice == 0:
        return "PodSetUsage", {"usage": {"cpu": bad}}, "usage"
    if choice == 1:
        return "PodSetUsage", {"flavors": {"cpu": bad}}, "flavors"
    if choice == 2:
        return "Assignment", {"requests": {CPU: bad}, "preempt": [CPU]}, "requests"
    if choice == 3:
        return "Assignment", {"requests": {CPU: 1}, "preempt": [bad]}, "preempt"
    if choice == 4:
        return "Workload", {"name": "w", "pod_sets": [bad]}, "pod_sets"
    if choice == 5:
        return "Workload", {"name": "w", "annotations": {"k": bad}}, "annotations"
    if choice == 6:
        return "ClusterQueue", {"name": "a", "quotas": {CPU: bad}}, "quotas"
    if choice == 8:
        return "PodSetSpec", {"name": "main", "requests": {"cpu": bad}}, "requests"
    if choice == 9:
        return "ContainerResources", {"limits": {"memory": bad}}, "limits"
    if choice == 10:
        return "FlavorQuotas", {"name": "default", "resources": {"cpu": bad}}, "resources"
    if choice == 11:
        return "ResourceGroup", {"covered_resources": ["cpu", bad], "flavors": [DEFAULT_QUOTAS]}, "covered_resources"
    if choice == 12:
        return "Workload", {"name": "w", "reclaimable_pods": {"main": bad}}, "reclaimable_pods"
    if choice == 13:
        return "FlavorAssignment", {"pod_sets": [], "usage": {CPU: bad}}, "usage"
    if choice == 14:
        return "assign_flavors", {**_assign_call(), "counts": [bad]}, "counts"
    if choice == 15:
        return "assign_flavors", {**_assign_call(), "progress": [{"cpu": bad}]}, "progress"
    if choice == 16:
        return "ResourceFlavor", {"name": "f", "node_taints": [Taint("k"), bad]}, "node_taints"
    return "Snapshot", {"cluster_queues": [bad]}, "cluster_queues"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_nested_call())
def test_nested_bad_values_raise_only_library_errors(call: tuple[str, dict[str, Any], str]) -> None:
    """Item 4 (property): bad values inside containers are refused with a library error naming
    the field, or accepted when they are valid after all (e.g. an int usage)."""
    name, kwargs, field = call
    _check(name, kwargs, field)


def test_example_message_names_object_and_field() -> None:
    """Item 3: the message of the issue's example names the object and the field."""
    with pytest.raises(kp.InvalidModel) as info:
        PodSetUsage(usage={"cpu": [1]})  # type: ignore[dict-item]
    assert "PodSetUsage" in str(info.value) and "usage['cpu']" in str(info.value)
    assert "expected a quantity, got list" in str(info.value)


# ------------------------------------------------------------ flavor-assignment messages


def test_pod_set_spec_request_message_names_object_field_and_type() -> None:
    """Item 4 / Q-1: a per-pod request that is not a quantity is refused naming the pod set field."""
    with pytest.raises(kp.InvalidModel) as info:
        PodSetSpec("main", requests={"cpu": [1]})  # type: ignore[dict-item]
    message = str(info.value)
    assert message.startswith("PodSetSpec: ") and "requests['cpu']" in message
    assert "expected a quantity, got list" in message


def test_pod_set_spec_requests_follow_the_amount_input_rule() -> None:
    """Q-1 input rule: a string is a quantity of its resource, an int is already the amount;
    FAS-1: a negative per-pod amount becomes 0; a malformed string names the field."""
    spec = PodSetSpec("main", requests={"cpu": "1500m", "memory": "1Ki", "example.com/gpu": 2, "pods": -3})
    assert dict(spec.requests) == {"cpu": 1500, "memory": 1024, "example.com/gpu": 2, "pods": 0}
    with pytest.raises(kp.InvalidQuantity, match=r"PodSetSpec\.requests\['cpu'\]"):
        PodSetSpec("main", requests={"cpu": "1.5 cores"})
    with pytest.raises(kp.InvalidModel, match="finite"):
        PodSetSpec("main", requests={"cpu": math.nan})  # type: ignore[dict-item]


def test_pod_set_count_is_an_int32() -> None:
    """Kueue's ``spec.podSets[].count`` is int32: a huge count is refused, naming the pod set."""
    with pytest.raises(kp.InvalidModel) as info:
        PodSetSpec("main", count=2**31)
    assert "PodSetSpec 'main'" in str(info.value) and "'count'" in str(info.value) and "<= 2147483647" in str(info.value)
    assert PodSetSpec("main", count=2**31 - 1).count == 2**31 - 1


def test_container_resources_accept_quantities_and_name_the_field() -> None:
    """FAS-1 inputs follow Q-1: ``"250m"`` cpu is 250; a bool is refused naming ``limits['memory']``."""
    assert dict(ContainerResources(requests={"cpu": "250m"}).requests) == {"cpu": 250}
    with pytest.raises(kp.InvalidModel) as info:
        ContainerResources(limits={"memory": True})
    assert "ContainerResources" in str(info.value) and "limits['memory']" in str(info.value)


def test_assign_flavors_names_the_bad_argument() -> None:
    """FAS-3 / FAS-14 / FAS-5a: entry-point arguments are checked up front, each named."""
    with pytest.raises(kp.InvalidArgument, match=r"assign_flavors: field 'quota_check': expected one of"):
        kp.assign_flavors(**{**_assign_call(), "quota_check": "Sometimes"})
    with pytest.raises(kp.InvalidArgument, match=r"field 'counts\[0\]': 3 exceeds pod set 'main'"):
        kp.assign_flavors(**{**_assign_call(), "counts": [3]})
    with pytest.raises(kp.InvalidArgument, match=r"field 'resource_flavors\[1\]': expected ResourceFlavor, got str"):
        kp.assign_flavors(**{**_assign_call(), "resource_flavors": [ResourceFlavor("default"), "spot"]})
    with pytest.raises(kp.InvalidArgument, match=r"assign_with_targets: field 'targets'"):
        kp_assignment.assign_with_targets(**{**_assign_call(), "targets": "get_targets"})


def test_resource_flavors_mapping_is_read_by_its_values() -> None:
    """FAS-5a: a mapping of flavors is read by its values; a wrong value is named."""
    call = _assign_call()
    by_list = kp.assign_flavors(**call)
    by_map = kp.assign_flavors(**{**call, "resource_flavors": {"default": ResourceFlavor("default")}})
    assert by_map == by_list and by_list.mode is kp_model.FlavorAssignmentMode.FIT
    with pytest.raises(kp.InvalidArgument, match="resource_flavors"):
        kp.assign_flavors(**{**call, "resource_flavors": {"default": None}})


def test_gates_refuse_non_bool_switches() -> None:
    """FAS-16: a gate is a bool; ``0`` or ``"false"`` would silently read as a position."""
    with pytest.raises(kp.InvalidModel, match=r"AssignmentGates: field 'partial_admission': expected a bool, got str"):
        kp_assignment.AssignmentGates(partial_admission="false")  # type: ignore[arg-type]


def test_reclaimable_pods_pairs_and_bounds() -> None:
    """FAS-1a: ``status.reclaimablePods`` as a list of pairs (last wins) or a map; counts int32 >= 0."""
    wl = Workload(name="w", reclaimable_pods=[("main", 1), ("main", 2)])
    assert dict(wl.reclaimable_pods) == {"main": 2}
    with pytest.raises(kp.InvalidModel, match=r"reclaimable_pods\['main'\]"):
        Workload(name="w", reclaimable_pods={"main": -1})
    with pytest.raises(kp.InvalidModel, match=r"reclaimable_pods\[0\]"):
        Workload(name="w", reclaimable_pods=[("main", 1, 2)])  # type: ignore[list-item]


# ------------------------------------- str fields, parsers, podgroup, cycle and sim entry points

import typing  # noqa: E402

import attrs  # noqa: E402

from kueue_preempt import cycle as kp_cycle  # noqa: E402
from kueue_preempt import io as kp_io  # noqa: E402
from kueue_preempt import podgroup as kp_podgroup  # noqa: E402
from kueue_preempt import sim as kp_sim  # noqa: E402
from kueue_preempt.sim.run import simulate  # noqa: E402

# Results a call returns, never built from user input: their fields are what the library wrote.
OUTPUT_TYPES = {"Event"}

# A valid construction for the classes whose required fields are not all strings.
BASES: dict[str, Callable[[], dict[str, Any]]] = {
    "ArrivalRow": lambda: {"at": 0, "duration": 1, "template": "t"},
    "RunningRow": lambda: {"workload": "ns/w", "remaining": 1.0},
}

NOT_STR: dict[str, Any] = {"list": ["a"], "float": 1.5, "bytes": b"a", "int": 7}


def _str_fields() -> list[tuple[type, str]]:
    """Every ``str`` / ``str | None`` field of every attrs class a user builds from the root,
    model, cycle, podgroup and sim packages."""
    out: list[tuple[type, str]] = []
    seen: set[type] = set()
    for package in (kp, kp_model, kp_cycle, kp_podgroup, kp_sim):
        for name in package.__all__:
            cls = getattr(package, name)
            if not (inspect.isclass(cls) and attrs.has(cls)) or cls in seen or name in OUTPUT_TYPES:
                continue
            seen.add(cls)
            hints = typing.get_type_hints(cls)
            for f in attrs.fields(cls):
                if f.init and hints.get(f.name) in (str, typing.Optional[str]) and _base(cls) is not None:
                    out.append((cls, f.name))
    return out


def _base(cls: type) -> dict[str, Any] | None:
    if cls.__name__ in BASES:
        return BASES[cls.__name__]()
    hints = typing.get_type_hints(cls)
    required = [f for f in attrs.fields(cls) if f.init and f.default is attrs.NOTHING]
    if any(hints.get(f.name) not in (str, typing.Optional[str]) for f in required):
        return None
    return {f.name: "x" for f in required}


STR_FIELDS = _str_fields()


def test_str_fields_cover_the_issue_examples() -> None:
    """The classes the attack run found accepting a list as a name are among those checked."""
    covered = {(cls.__name__, field) for cls, field in STR_FIELDS}
    for expected in [("LocalQueue", "cluster_queue"), ("Pod", "namespace"), ("Pod", "node_name"), ("ClusterQueue", "name"),
                     ("Workload", "name"), ("Cohort", "parent"), ("LimitRange", "name"), ("WorkloadOverrides", "queue_name")]:
        assert expected in covered, expected


@pytest.mark.parametrize("cls,field", STR_FIELDS, ids=[f"{c.__name__}.{f}" for c, f in STR_FIELDS])
def test_a_name_that_is_not_a_str_is_refused_where_given(cls: type, field: str) -> None:
    """A list, float, bytes or int as a name, cohort or queue is refused by the constructor
    with the library's error naming the field, not accepted to fail later as ``unhashable``."""
    for label, bad in NOT_STR.items():
        kwargs = _base(cls)
        assert kwargs is not None
        kwargs[field] = bad
        with pytest.raises(KueuePreemptError) as info:
            cls(**kwargs)
        assert field in str(info.value), f"{cls.__name__}({field}={label}): {info.value}"


NOT_TEXT: dict[str, Any] = {"int": 5, "dict": {}, "None": None, "list": ["a: 1"], "opaque": _Opaque()}

PARSERS: dict[str, Callable[[Any], object]] = {
    "parse_documents": kp_io.parse_documents,
    "parse_dump": kp_io.parse_dump,
    "parse_kueue_config": kp_io.parse_kueue_config,
    "parse_assignment": kp_io.parse_assignment,
    "parse_arrivals": kp_sim.parse_arrivals,
    "parse_arrivals_csv": kp_sim.parse_arrivals_csv,
}
LOADERS: dict[str, Callable[[Any], object]] = {
    "read_bytes": kp_io.read_bytes,
    "load_dump": kp_io.load_dump,
    "load_kueue_config": kp_io.load_kueue_config,
    "load_assignment": kp_io.load_assignment,
    "load_arrivals": kp_sim.load_arrivals,
}


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_parsers_check_they_were_given_text(name: str) -> None:
    """``parse_arrivals(5)``, ``parse_kueue_config({})``: the library's error naming the argument."""
    for label, bad in NOT_TEXT.items():
        if name == "parse_assignment" and label == "dict":
            continue  # an already-parsed mapping is a documented input of parse_assignment
        with pytest.raises(kp.InvalidArgument) as info:
            PARSERS[name](bad)
        assert "data" in str(info.value) or "text" in str(info.value), f"{name}({label}): {info.value}"
    if name.startswith("parse_arrivals"):
        with pytest.raises(kp.InvalidArgument, match="expected str text, got bytes"):
            PARSERS[name](b"{}")


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_loaders_check_the_file_name(name: str) -> None:
    """A number, mapping, ``None`` or bytes as a file name is refused before any file is opened."""
    bads: tuple[object, ...] = (5, {}, None, b"dump.yaml")
    for bad in bads:
        with pytest.raises(kp.InvalidArgument, match="expected a file name"):
            LOADERS[name](bad)


def _pg_call() -> dict[str, Any]:
    node = kp_podgroup.Node("n1", {"cpu": "4", "pods": "10"})
    low = kp_podgroup.Pod("low", "ns", requests={"cpu": "4"}, node_name="n1", priority=1)
    pending = kp_podgroup.Pod("p", "ns", requests={"cpu": "2"}, pod_group="g")
    return {
        "preemptor": PodGroupPreemptor(PodGroup("g", "ns", priority=10), [pending]),
        "cluster": Cluster([node], [low]),
    }


ENTRY_POINTS: dict[str, tuple[Callable[..., object], Callable[[], dict[str, Any]]]] = {
    "select_podgroup_victims": (kp_podgroup.select_podgroup_victims, _pg_call),
    "schedule_cycle": (kp_cycle.schedule_cycle, lambda: {"cluster": SIM_STATE, "now": NOW}),
    "simulate": (simulate, lambda: {"state": SIM_STATE, "dump": SIM_DUMP, "arrivals": kp_sim.ArrivalsFile()}),
    "resolve_arrivals": (kp_sim.resolve_arrivals, lambda: {"file": kp_sim.ArrivalsFile(), "dump": SIM_DUMP}),
    "arrivals_text": (kp_sim.arrivals_text, lambda: {"file": kp_sim.ArrivalsFile()}),
}


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_entry_points_check_each_argument(name: str) -> None:
    """The PodGroup entry point, the cycle and the simulator check their arguments as
    ``get_targets`` does: each wrong value gives the library's error naming the argument."""
    function, valid = ENTRY_POINTS[name]
    function(**valid())  # the valid call works
    for param in inspect.signature(function).parameters:
        if param in ("progress", "trace", "reprieve_filter", "placement"):
            continue  # callables and hooks: checked by their own tests
        for bad in (None, 5, "Bogus", [1], _Opaque()):
            kwargs = valid()
            if param not in kwargs and bad is None:
                continue  # None is the default of an optional argument
            kwargs[param] = bad
            try:
                function(**kwargs)
            except KueuePreemptError as exc:
                assert param in str(exc) or _camel(param) in str(exc), f"{name}({param}={bad!r}): {exc}"
            except Exception as exc:  # noqa: BLE001 - this is exactly what the test forbids
                pytest.fail(f"{name}({param}={bad!r}) raised a raw {type(exc).__name__}: {exc}")

"""Adapter: vendored kube-scheduler cases (tests/conformance/kube) -> ``kueue_preempt.podgroup``.

The case format is described in tests/conformance/README.md ("kube-scheduler schema"). This
module only translates JSON into model objects, hooks and placements; every decision is made
by the library's public API. Feature gates are read as the source test sets them; a gate the
case does not set takes kube-scheduler's default at the source commit (off for the alpha
gates ``PodGroupPreemptionPolicy``, ``CompositePodGroup``, ``WorkloadAwarePreemption`` and
``TopologyAwareWorkloadScheduling``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

import pytest

from kueue_preempt.podgroup import (
    Cluster,
    CompositePodGroup,
    EligibilityHook,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeFilter,
    OrderingKey,
    Placement,
    PlacementContext,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodGroupPreemptor,
    PreemptionFeatures,
    PreemptionUnit,
    ReprieveFilterError,
    fixed_placement,
    round_robin_first_fit,
)

CASES_DIR = Path(__file__).parent / "conformance" / "kube"

Case = dict[str, Any]

CAPABILITIES = frozenset(
    {"reprieve-filter-hook", "eligibility-hook", "ordering-hook", "composite-pod-groups", "feature-flags"}
)
"""The optional capabilities of the schema that the library implements (all of them)."""


def load_cases(test: str) -> list[Any]:
    """pytest params for every case of ``<test>.json``.

    Cases with ``skip`` keep their reason; cases that ``require`` a capability the library
    lacks are reported as skipped, not failed (none at present).
    """
    data = json.loads((CASES_DIR / f"{test}.json").read_text())
    params = []
    for case in data["cases"]:
        marks = []
        missing = sorted(set(case.get("requires") or ()) - CAPABILITIES)
        if case.get("skip"):
            marks.append(pytest.mark.skip(reason=case["skip"]))
        elif missing:
            marks.append(pytest.mark.skip(reason=f"requires {', '.join(missing)}"))
        params.append(pytest.param(case, id=case["name"], marks=marks))
    return params


def all_test_names() -> list[str]:
    return sorted(p.stem for p in CASES_DIR.glob("*.json"))


# --------------------------------------------------------------------------- model objects


def _disruption_target(conditions: Sequence[Case]) -> bool:
    return any(
        c.get("type") == "DisruptionTarget" and c.get("status") == "True" and c.get("reason") == "PreemptionByScheduler"
        for c in conditions
    )


def pod_of(d: Case, *, unscheduled: bool = False) -> Pod:
    """A POD object. ``unscheduled`` drops ``nodeName`` (preemptor pods, see the harness notes)."""
    return Pod(
        name=d["name"],
        namespace=d.get("namespace") or "",
        uid=d.get("uid") or "",
        priority=d.get("priority"),
        requests=d.get("requests") or {},
        node_name=None if unscheduled else d.get("nodeName"),
        start_time=d.get("startTime"),
        pod_group=d.get("podGroup"),
        labels=d.get("labels") or {},
        terminating=bool(d.get("terminating")),
        disruption_target=_disruption_target(d.get("conditions") or ()),
        nominated_node_name=d.get("nominatedNodeName"),
        preemption_policy=d.get("preemptionPolicy"),
    )


def node_of(d: Case) -> Node:
    return Node(name=d["name"], allocatable=d.get("allocatable") or {}, labels=d.get("labels") or {})


def pod_group_of(d: Case) -> PodGroup:
    policy = d.get("schedulingPolicy") or {}
    gang = policy.get("gang")
    constraints = d.get("schedulingConstraints") or {}
    return PodGroup(
        name=d["name"],
        namespace=d.get("namespace") or "",
        uid=d.get("uid") or "",
        priority=d.get("priority"),
        disruption_mode=d.get("disruptionMode"),
        gang_min_count=gang["minCount"] if gang is not None else None,
        preemption_policy=d.get("preemptionPolicy"),
        parent=d.get("parentCompositePodGroup"),
        topology_keys=[t["key"] for t in constraints.get("topology") or ()],
    )


def composite_of(d: Case) -> CompositePodGroup:
    return CompositePodGroup(
        name=d["name"],
        namespace=d.get("namespace") or "",
        uid=d.get("uid") or "",
        priority=d.get("priority"),
        disruption_mode=d.get("disruptionMode"),
        preemption_policy=d.get("preemptionPolicy"),
        parent=d.get("parentCompositePodGroup"),
    )


def pdb_of(d: Case) -> PodDisruptionBudget:
    raw = d.get("selector")
    selector = None
    if raw is not None:
        selector = LabelSelector(
            match_labels=raw.get("matchLabels") or {},
            match_expressions=[
                LabelSelectorRequirement(e["key"], e["operator"], e.get("values") or ())
                for e in raw.get("matchExpressions") or ()
            ],
        )
    return PodDisruptionBudget(
        name=d.get("name") or "",
        namespace=d.get("namespace") or "",
        selector=selector,
        disruptions_allowed=d.get("disruptionsAllowed", 0),
        disrupted_pods=d.get("disruptedPods") or (),
    )


def gates_of(case: Case) -> dict[str, bool]:
    return dict(case.get("featureGates") or case.get("features") or {})


def features_of(case: Case) -> PreemptionFeatures:
    gates = gates_of(case)
    return PreemptionFeatures(
        pod_group_preemption_policy=gates.get("PodGroupPreemptionPolicy", False),
        workload_aware_preemption=gates.get("WorkloadAwarePreemption", False),
        topology_aware_workload_scheduling=gates.get("TopologyAwareWorkloadScheduling", False),
    )


_FILTERS = {"units": NodeFilter.UNITS, "none": NodeFilter.NONE}


def cluster_of(case: Case) -> Cluster:
    """The cluster of a case: ``model.filter`` for group cases, FIT-1 for per-node cases."""
    model = case.get("model") or {}
    node_filter = _FILTERS[model["filter"]] if "filter" in model else NodeFilter.RESOURCE_FIT
    return Cluster(
        [node_of(n) for n in case.get("nodes") or ()],
        [pod_of(p) for p in case.get("pods") or ()],
        pod_groups=[pod_group_of(g) for g in case.get("podGroups") or ()],
        composite_pod_groups=[composite_of(g) for g in case.get("compositePodGroups") or ()],
        pdbs=[pdb_of(p) for p in case.get("pdbs") or ()],
        node_filter=node_filter,
        composite_pod_groups_enabled=gates_of(case).get("CompositePodGroup", False),
    )


def group_preemptor_of(d: Case) -> PodGroupPreemptor:
    """``{"kind": "podGroup" | "compositePodGroup", ..., "pods": [POD]}``."""
    group: PodGroup | CompositePodGroup
    if d["kind"] == "compositePodGroup":
        group = composite_of(d["compositePodGroup"])
    else:
        group = pod_group_of(d["podGroup"])
    return PodGroupPreemptor(group, [pod_of(p, unscheduled=True) for p in d["pods"]])


# --------------------------------------------------------------------------- hooks


def _must_not_be_called(context: PlacementContext, pods: Sequence[Pod]) -> list[tuple[Pod, str | None]]:
    raise AssertionError("the case must end before placement (placement: mustNotBeCalled)")


def placement_of(case: Case) -> Placement:
    spec = (case.get("model") or {}).get("placement") or {"kind": "roundRobinFirstFit"}
    kind = spec["kind"]
    if kind == "roundRobinFirstFit":
        return round_robin_first_fit
    if kind == "fixed":
        return fixed_placement([(a["pod"], a["node"]) for a in spec["assignments"]])
    if kind == "mustNotBeCalled":
        return _must_not_be_called
    raise ValueError(f"unknown placement kind {kind!r}")


class MaxReprieves:
    """The schema's ``maxReprieves`` filter: at most ``remaining`` reprieves, optional errors."""

    def __init__(self, remaining: int, should_attempt_error: str | None, on_reprieved_error: str | None) -> None:
        self.remaining = remaining
        self.should_attempt_error = should_attempt_error
        self.on_reprieved_error = on_reprieved_error
        self.reprieved_units: list[str] = []

    def should_try(self, unit: PreemptionUnit) -> bool:
        if self.should_attempt_error is not None:
            raise ReprieveFilterError(self.should_attempt_error)
        return self.remaining > 0

    def reprieved(self, unit: PreemptionUnit) -> None:
        if self.on_reprieved_error is not None:
            raise ReprieveFilterError(self.on_reprieved_error)
        self.remaining -= 1
        self.reprieved_units.append(unit.key)


def reprieve_filter_of(case: Case) -> MaxReprieves | None:
    spec = case.get("reprieveFilter")
    if spec is None:
        return None
    assert spec["kind"] == "maxReprieves", spec
    return MaxReprieves(spec["remaining"], spec.get("shouldAttemptError"), spec.get("onReprievedError"))


def eligibility_of(spec: Case) -> EligibilityHook:
    """The schema's eligibility predicates (ANDed by the library with "lower priority")."""
    kind = spec["kind"]
    if kind == "victimLabelEquals":
        key, value = spec["key"], spec["value"]
        return lambda preemptor, victim: victim.labels.get(key) == value
    if kind == "nodeNameEquals":
        name = spec["name"]
        return lambda preemptor, victim: victim.node_name == name
    if kind == "preemptorPriorityAtLeast":
        at_least = spec["value"]
        return lambda preemptor, victim: preemptor.priority >= at_least
    if kind == "victimPriorityAtMost":
        at_most = spec["value"]
        return lambda preemptor, victim: victim.priority <= at_most
    raise ValueError(f"unknown eligibility kind {kind!r}")


def ordering_of(spec: Case) -> OrderingKey:
    """The schema's orderings (first = more important)."""
    kind = spec["kind"]
    if kind == "startTimeAscending":
        return lambda unit: unit.earliest_start
    if kind == "nameAscending":
        return lambda unit: unit.pods[0].name
    raise ValueError(f"unknown ordering kind {kind!r}")

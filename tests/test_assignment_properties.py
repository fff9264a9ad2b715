"""Property tests of the flavor assigner: placement safety and determinism (FAS-5, FAS-19)."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt.assignment import GranularMode, PreemptionMode, is_preferred
from kueue_preempt.model.flavors import FlavorPreference
from kueue_preempt import (
    ClusterQueue,
    ClusterQueuePreemption,
    FlavorQuotas,
    PodSetSpec,
    PodSetUsage,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    assign_flavors,
)
from kueue_preempt.model import Taint, Toleration

FLAVORS = ["f0", "f1", "f2", "f3"]
TAINTS = [Taint("k1", "", "NoSchedule"), Taint("k2", "x", "NoExecute"), Taint("k3", "", "PreferNoSchedule")]
TOLERATIONS = [Toleration("k1", "Exists"), Toleration("k2", "Equal", "x"), Toleration("k2", "Equal", "y"), Toleration("", "Exists", "", "NoExecute")]
LABELS = st.dictionaries(st.sampled_from(["zone", "gen"]), st.sampled_from(["a", "b"]), max_size=2)


def _reference_tolerated(taints: list[Taint], tolerations: list[Toleration]) -> bool:
    """An independent restatement of FAS-5 for the operators generated here (Exists/Equal)."""
    for taint in taints:
        if taint.effect not in ("NoSchedule", "NoExecute"):
            continue
        if not any(
            (not t.key or t.key == taint.key)
            and (not t.effect or t.effect == taint.effect)
            and (t.operator == "Exists" or t.value == taint.value)
            for t in tolerations
        ):
            return False
    return True


def _reference_selected(selector: dict[str, str], labels: dict[str, str]) -> bool:
    """FAS-5: only keys the flavor defines take part."""
    return all(labels[k] == v for k, v in selector.items() if k in labels)


flavor_st = st.tuples(
    LABELS, st.lists(st.sampled_from(TAINTS), max_size=2, unique=True), st.lists(st.sampled_from(TOLERATIONS), max_size=1)
)
pod_set_st = st.tuples(
    LABELS, st.lists(st.sampled_from(TOLERATIONS), max_size=3, unique=True), st.integers(1, 3), st.integers(0, 3000)
)


@settings(max_examples=80, deadline=None)
@given(
    flavors=st.lists(flavor_st, min_size=1, max_size=4),
    nominal=st.lists(st.integers(0, 6000), min_size=4, max_size=4),
    pod_sets=st.lists(pod_set_st, min_size=1, max_size=3),
)
def test_assignment_only_names_usable_flavors(flavors: list[Any], nominal: list[int], pod_sets: list[Any]) -> None:
    """FAS-5: a chosen flavor's taints are all tolerated and its labels match the selector."""
    rfs = [ResourceFlavor(FLAVORS[i], node_labels=lab, node_taints=taints, tolerations=tols) for i, (lab, taints, tols) in enumerate(flavors)]
    cq = ClusterQueue(
        "cq",
        resource_groups=[ResourceGroup(["cpu"], [FlavorQuotas(rf.name, {"cpu": ResourceQuota(nominal[i])}) for i, rf in enumerate(rfs)])],
    )
    specs = [
        PodSetSpec(f"ps{i}", count, {"cpu": cpu}, node_selector=sel, tolerations=tols)
        for i, (sel, tols, count, cpu) in enumerate(pod_sets)
    ]
    a = assign_flavors(Workload(name="w", spec_pod_sets=specs), "cq", Snapshot([cq]), rfs)
    by_name = {rf.name: rf for rf in rfs}
    for ps in a.pod_sets:
        spec = specs[ps.spec_index]
        for choice in ps.flavors.values():
            rf = by_name[choice.flavor]
            assert _reference_tolerated(list(rf.node_taints), list(spec.tolerations) + list(rf.tolerations))
            assert _reference_selected(dict(spec.node_selector), dict(rf.node_labels))


@st.composite
def _cluster(draw: st.DrawFn) -> tuple[list[ClusterQueue], list[Workload], Workload]:
    n_flavors = draw(st.integers(1, 3))
    names = FLAVORS[:n_flavors]
    queues = []
    for q in range(3):
        quotas = [FlavorQuotas(f, {"cpu": ResourceQuota(draw(st.integers(0, 4)) * 1000)}) for f in names]
        queues.append(
            ClusterQueue(
                f"q{q}",
                cohort="co",
                resource_groups=[ResourceGroup(["cpu"], quotas)],
                preemption=ClusterQueuePreemption(
                    within_cluster_queue=draw(st.sampled_from(["Never", "LowerPriority"])),
                    reclaim_within_cohort=draw(st.sampled_from(["Never", "LowerPriority", "Any"])),
                ),
            )
        )
    admitted = [
        Workload(
            name=f"a{i}",
            namespace="ns",
            cluster_queue=f"q{draw(st.integers(0, 2))}",
            priority=draw(st.integers(0, 3)),
            quota_reserved_at=f"2026-01-01T00:00:{i:02d}Z",
            pod_sets=[PodSetUsage(flavors={"cpu": draw(st.sampled_from(names))}, usage={"cpu": draw(st.integers(1, 3)) * 1000})],
        )
        for i in range(draw(st.integers(0, 6)))
    ]
    incoming = Workload(
        name="in",
        namespace="ns",
        priority=draw(st.integers(0, 4)),
        spec_pod_sets=[PodSetSpec(f"ps{i}", 1, {"cpu": draw(st.integers(1, 4)) * 1000}) for i in range(draw(st.integers(1, 2)))],
    )
    return queues, admitted, incoming


@settings(max_examples=60, deadline=None)
@given(cluster=_cluster(), data=st.data())
def test_result_is_deterministic_and_order_independent(cluster: Any, data: st.DataObject) -> None:
    """Same inputs -> same assignment, whatever the order of unrelated ClusterQueues or workloads.

    Uses the default oracle (FA-6 through get_targets), so candidate order matters for real.
    """
    queues, admitted, incoming = cluster
    flavors = [ResourceFlavor(f) for f in FLAVORS]
    first = assign_flavors(incoming, "q0", Snapshot(queues, workloads=admitted), flavors)
    again = assign_flavors(incoming, "q0", Snapshot(queues, workloads=admitted), flavors)
    shuffled = assign_flavors(
        incoming,
        "q0",
        Snapshot(data.draw(st.permutations(queues)), workloads=data.draw(st.permutations(admitted))),
        list(reversed(flavors)),
    )
    assert first == again == shuffled



_granular = st.builds(GranularMode, st.sampled_from(list(PreemptionMode)), st.integers(0, 3))
_preference = st.sampled_from([None, *FlavorPreference])


@settings(max_examples=300, deadline=None)
@given(a=_granular, b=_granular, c=_granular, preference=_preference)
def test_is_preferred_is_a_strict_order(a: GranularMode, b: GranularMode, c: GranularMode, preference: FlavorPreference | None) -> None:
    """FAS-9 is irreflexive, asymmetric and transitive, so "the best flavor" is well defined."""
    assert not is_preferred(a, a, preference)
    assert not (is_preferred(a, b, preference) and is_preferred(b, a, preference))
    if is_preferred(a, b, preference) and is_preferred(b, c, preference):
        assert is_preferred(a, c, preference)
    if b.preemption_mode is PreemptionMode.NO_FIT and a.preemption_mode is not PreemptionMode.NO_FIT:
        assert is_preferred(a, b, preference)  # anything beats noFit

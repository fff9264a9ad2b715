"""Hand-built PodGroup and per-node preemption scenarios, one rule at a time.

Each test names the rule it checks (docs/semantics.md §17) and states the hand computation.
Most use the abstract ``units`` capacity of kube-scheduler's PodGroup tests (one resource,
no pod-count limit) so the arithmetic stays obvious.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

import pytest

from kueue_preempt import DecisionTrace, InvalidModel, InvalidQuantity, KueuePreemptError
from kueue_preempt.errors import DuplicateName
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.podgroup import (
    NOT_STARTED,
    Cluster,
    CompositePodGroup,
    DisruptionMode,
    InvalidPlacement,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeCandidate,
    NodeFilter,
    PdbSelectorSemantics,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodGroupPreemptor,
    PodPreemptionPolicy,
    PreemptionFeatures,
    PreemptionMode,
    PreemptionUnit,
    ReprieveFilterError,
    StatusCode,
    UnitType,
    UnknownNode,
    dry_run_preemption,
    fixed_placement,
    num_candidates,
    parse_timestamp_ns,
    pdb_covers,
    pod_eligible_to_preempt_others,
    podgroup_candidates,
    preempt_pod,
    resolve_preemption_policy,
    select_candidate,
    select_podgroup_victims,
    select_victims_on_node,
)
from kueue_preempt.podgroup.pdb import ClassifiedUnit

LOW, MID, HIGH = 10, 100, 1000


def nodes(*caps: int) -> list[Node]:
    return [Node(f"node{i + 1}", {"units": str(c)}) for i, c in enumerate(caps)]


def pod(name: str, node: str | None, priority: int = LOW, units: int = 1, **kw: Any) -> Pod:
    return Pod(name, uid=name, node_name=node, priority=priority, requests={"units": str(units)}, **kw)


def group(name: str = "incoming", *sizes: int, priority: int = HIGH, gang: int | None = None) -> PodGroupPreemptor:
    return PodGroupPreemptor(
        PodGroup(name, priority=priority, gang_min_count=gang),
        [Pod(f"{name}-{i}", requests={"units": str(s)}) for i, s in enumerate(sizes or (1,))],
    )


def units_cluster(caps: tuple[int, ...], pods: list[Pod], **kw: Any) -> Cluster:
    return Cluster(nodes(*caps), pods, node_filter=NodeFilter.UNITS, **kw)


def names(pods: tuple[Pod, ...]) -> list[str]:
    return [p.name for p in pods]


# --------------------------------------------------------------------------- E1 (PG-30, §9.1)


def test_e1_kube_preempts_the_mid_pod_and_kep_only_the_low_pod() -> None:
    """PG-30 / spec §8 E1: two nodes of capacity 1, mid pod on node1, low pod on node2.

    kube: remove both, FIT-3 places the pod on node1 (the first node); reprieving mid breaks
    that placement, reprieving low does not -> mid is preempted. kep: levels [10, 100]; the
    search probes the lowest level first (issue 18): level 10 (only low removed) succeeds,
    the pod goes to node2 -> only low is preempted, with 1 placement.
    """
    cluster = units_cluster((1, 1), [pod("mid", "node1", MID), pod("low", "node2", LOW)])
    before = cluster.state()
    preemptor = group("g", 1)

    kube = select_podgroup_victims(preemptor, cluster, mode="kube")
    assert kube.status.code is StatusCode.SUCCESS
    assert names(kube.victims) == ["mid"]
    assert dict(kube.nominations) == {"g-0": "node1"}
    assert [u.key for u in kube.reprieved] == ["Pod//low"]
    assert kube.search_steps == () and kube.placements == 1

    kep = select_podgroup_victims(preemptor, cluster)  # the default mode
    assert kep.mode is PreemptionMode.KEP
    assert names(kep.victims) == ["low"]
    assert dict(kep.nominations) == {"g-0": "node2"}
    assert kep.priority_threshold == LOW
    assert [(s.priority, s.succeeded) for s in kep.search_steps] == [(LOW, True)]
    assert cluster.state() == before


def test_kep_never_touches_units_above_n() -> None:
    """§9.1: units above N are dropped before reprieve; they are never removed nor offered."""
    cluster = units_cluster((2, 1), [pod("mid", "node1", MID, 2), pod("low", "node2", LOW)])
    trace = DecisionTrace()
    result = select_podgroup_victims(group("g", 1), cluster, trace=trace)
    assert names(result.victims) == ["low"] and result.priority_threshold == LOW
    assert not trace.for_workload("Pod//mid"), "mid is above N: never offered reprieve"


# --------------------------------------------------------------------------- the search


def test_fit1_capacity_bound_skips_levels_that_cannot_fit() -> None:
    """FIT-1, FIT-2, §9.1 (issue 18, decision (perf-e)): under FIT-1 the search first computes
    the lowest level at which the nodes' free room could hold minCount pods of the group at
    all, and probes it directly.

    One node of 8 cpu holds 8 one-cpu pods of priorities 1..8. The group needs 5 one-cpu pods:
    with levels 1..4 removed only 4 cpu are free, so they cannot succeed and are never
    placed; level 5 frees the fifth cpu and its one placement succeeds. The linear scan
    places at every level 1..5 and finds the same N.
    """

    def cpu_pod(name: str, node: str | None, priority: int) -> Pod:
        return Pod(name, uid=name, node_name=node, priority=priority, requests={"cpu": "1"})

    def cluster() -> Cluster:
        running = [cpu_pod(f"v{p}", "node1", p) for p in range(1, 9)]
        return Cluster([Node("node1", {"cpu": "8", "pods": "20"})], running, node_filter=NodeFilter.RESOURCE_FIT)

    preemptor = PodGroupPreemptor(
        PodGroup("g", priority=HIGH, gang_min_count=5), [cpu_pod(f"g-{i}", None, HIGH) for i in range(5)]
    )
    c = cluster()
    before = c.state()
    trace = DecisionTrace()
    binary = select_podgroup_victims(preemptor, c, trace=trace)
    linear = select_podgroup_victims(preemptor, c, search="linear")
    assert c.state() == before
    assert binary.priority_threshold == linear.priority_threshold == 5
    assert [(s.priority, s.succeeded) for s in binary.search_steps] == [(5, True)]
    assert binary.placements == 1 and linear.placements == 5
    assert sorted(names(binary.victims)) == sorted(names(linear.victims)) == ["v1", "v2", "v3", "v4", "v5"]
    assert any("skipped without a placement" in e.detail for e in trace)
    # A caller's placement may ignore FIT-1, so it gets no pruning: the lowest level first.
    fixed = select_podgroup_victims(preemptor, c, placement=fixed_placement({f"g-{i}": "node1" for i in range(5)}))
    assert fixed.search_steps[0].priority == 1 and fixed.search_steps[0].succeeded


def test_fit1_capacity_bound_counts_each_node_separately() -> None:
    """FIT-1 is per node (issue 18, decision (perf-e)): free room split over nodes does not
    add up to a pod. Two nodes of 2 cpu, each full with two one-cpu pods (priorities 1, 2 on
    node1 and 3, 4 on node2); one 2-cpu pod needs a whole node: removing level 1 frees 1 cpu
    on node1 (not enough), level 2 frees node1 entirely -> N = 2, found with one placement,
    as the linear scan (two placements) finds."""
    running = [
        Pod(f"v{p}", uid=f"v{p}", node_name=n, priority=p, requests={"cpu": "1"})
        for p, n in ((1, "node1"), (2, "node1"), (3, "node2"), (4, "node2"))
    ]
    c = Cluster(
        [Node("node1", {"cpu": "2", "pods": "10"}), Node("node2", {"cpu": "2", "pods": "10"})],
        running,
        node_filter=NodeFilter.RESOURCE_FIT,
    )
    preemptor = PodGroupPreemptor(PodGroup("g", priority=HIGH), [Pod("g-0", requests={"cpu": "2"})])
    binary = select_podgroup_victims(preemptor, c)
    linear = select_podgroup_victims(preemptor, c, search="linear")
    assert binary.priority_threshold == linear.priority_threshold == 2
    assert [(s.priority, s.succeeded) for s in binary.search_steps] == [(2, True)]
    assert linear.placements == 2


def test_binary_search_uses_log_k_placements() -> None:
    """§9.1: a real binary search; linear scans k levels where binary needs 1 + ceil(log2(k)):
    the lowest level (1, fails), then bisection of the rest: 5 (succeeds), 3, 4 (fail)."""
    # One node of 8 units, 8 one-unit pods of priorities 1..8; the group needs 5 units, so
    # the 5 lowest levels must go: N = 5.
    cluster = units_cluster((8,), [pod(f"v{p}", "node1", p) for p in range(1, 9)])
    binary = select_podgroup_victims(group("g", 5), cluster)
    linear = select_podgroup_victims(group("g", 5), cluster, search="linear")
    assert binary.priority_threshold == linear.priority_threshold == 5
    assert binary.placements == len(binary.search_steps) <= 1 + math.ceil(math.log2(8)) == 4
    assert [(s.priority, s.succeeded) for s in binary.search_steps] == [(1, False), (5, True), (3, False), (4, False)]
    assert linear.placements == 5
    assert [s.priority for s in linear.search_steps] == [1, 2, 3, 4, 5]
    assert names(binary.victims) == names(linear.victims)
    assert sorted(names(binary.victims)) == ["v1", "v2", "v3", "v4", "v5"]


def test_binary_search_with_a_non_monotone_placement() -> None:
    """§9.1, FIT-3: greedy first fit is not monotone in freed room; the search's guarantee.

    Nodes of 3, 4, 2 units; "mid" (3 units, priority 100) on node1, "low-1"/"low-2" (2 units,
    priority 10) on node2/node3; a gang of pods sized 1, 2, 3 (minCount 3). With only the low
    pods removed, FIT-3 places 1->node2, 2->node3, 3->node2: success. With everything removed,
    1->node1, 2->node2, and 3 fits nowhere: failure. The search probes the lowest level
    first (issue 18) and finds level 10, like the linear scan; kube mode fails. (With more
    levels, a bisection that lands on a failing upper level can still report failure: the
    guarantee is only "succeeds at N, fails just below", see the property tests.)
    """
    pods = [pod("mid", "node1", MID, 3), pod("low-1", "node2", LOW, 2), pod("low-2", "node3", LOW, 2)]
    cluster = units_cluster((3, 4, 2), pods)
    preemptor = group("g", 1, 2, 3, gang=3)
    binary = select_podgroup_victims(preemptor, cluster)
    assert binary.status.code is StatusCode.SUCCESS and binary.priority_threshold == LOW
    assert [(s.priority, s.succeeded) for s in binary.search_steps] == [(LOW, True)]
    assert select_podgroup_victims(preemptor, cluster, mode="kube").status.code is StatusCode.UNSCHEDULABLE
    linear = select_podgroup_victims(preemptor, cluster, search="linear")
    assert linear.status.code is StatusCode.SUCCESS and linear.priority_threshold == LOW
    assert sorted(names(linear.victims)) == ["low-1", "low-2"]
    # The galloping search probes the lowest level first, so it finds it here too.
    exponential = select_podgroup_victims(preemptor, cluster, search="exponential")
    assert exponential.priority_threshold == LOW and exponential.placements == 1


def test_exponential_search_probes_up_then_bisects() -> None:
    """§9.1, ``search="exponential"``: level indices 0, 1, 3, 7 (priorities 1, 2, 4, 8) are
    probed until one succeeds (8), then bisection between the last failure and it tries 6
    and 5: N = 5, the same as the binary search and the linear scan."""
    cluster = units_cluster((8,), [pod(f"v{p}", "node1", p) for p in range(1, 9)])
    result = select_podgroup_victims(group("g", 5), cluster, search="exponential")
    assert result.priority_threshold == 5
    assert [(s.priority, s.succeeded) for s in result.search_steps] == [
        (1, False), (2, False), (4, False), (8, True), (6, True), (5, True),
    ]


def test_placement_failure_is_unschedulable_and_preempts_nothing() -> None:
    """PG-26: fewer than minCount pods placeable even with everything removed."""
    cluster = units_cluster((1,), [pod("low", "node1")])
    result = select_podgroup_victims(group("g", 1, 1, gang=2), cluster)
    assert result.status.code is StatusCode.UNSCHEDULABLE
    assert result.victims == () and result.priority_threshold is None


def test_unknown_mode_is_a_configuration_error() -> None:
    cluster = units_cluster((1,), [])
    with pytest.raises(ConfigurationError):
        select_podgroup_victims(group(), cluster, mode="fast")
    with pytest.raises(ConfigurationError):
        select_podgroup_victims(group(), cluster, search="ternary")


# --------------------------------------------------------------------------- PG-20..PG-31


def test_pg20_ongoing_preemption_reissues_current_nominations() -> None:
    """PG-20: a member's nominated node holds a lower-priority pod being preempted."""
    victim = pod("victim", "node1", LOW, terminating=True, disruption_target=True)
    cluster = units_cluster((1,), [victim])
    preemptor = PodGroupPreemptor(
        PodGroup("g", priority=HIGH),
        [Pod("a"), Pod("b", nominated_node_name="node1")],
    )
    result = select_podgroup_victims(preemptor, cluster, placement=_no_placement)
    assert result.status.code is StatusCode.SUCCESS
    assert result.status.message == "ongoing preemption on nominated nodes"
    assert dict(result.nominations) == {"a": "", "b": "node1"}
    # Terminating without the scheduler's condition does not block.
    cluster = units_cluster((1,), [pod("victim", "node1", LOW, terminating=True)])
    assert select_podgroup_victims(preemptor, cluster).status.message != "ongoing preemption on nominated nodes"


def _no_placement(context: object, pods: object) -> list[tuple[Pod, str | None]]:
    raise AssertionError("placement must not run")


def test_pg21_policy_resolution() -> None:
    """PG-21: group policy wins when enabled; otherwise any member with Never."""
    pods = [Pod("a", preemption_policy="Never"), Pod("b")]
    lower = PodGroupPreemptor(PodGroup("g"), pods)
    never = PodGroupPreemptor(PodGroup("g", preemption_policy="Never"), [Pod("a")])
    assert resolve_preemption_policy(lower) is PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY
    assert resolve_preemption_policy(lower, group_policy_enabled=False) is PodPreemptionPolicy.NEVER
    assert resolve_preemption_policy(never) is PodPreemptionPolicy.NEVER
    cluster = units_cluster((1,), [pod("low", "node1")])
    result = select_podgroup_victims(never, cluster, placement=_no_placement)
    assert result.status.code is StatusCode.UNSCHEDULABLE
    assert result.status.message == "not eligible due to preemptionPolicy=Never."


def test_pg23_equal_priority_is_never_preemptable() -> None:
    """PG-23, §9.11: no unit strictly below the preemptor -> Unschedulable, no placement."""
    cluster = units_cluster((1,), [pod("same", "node1", HIGH)])
    result = select_podgroup_victims(group("g", 1), cluster, placement=_no_placement)
    assert result.status.code is StatusCode.UNSCHEDULABLE and result.placements == 0


def test_pg31_topology_constrained_groups_are_refused() -> None:
    preemptor = PodGroupPreemptor(PodGroup("g", priority=HIGH, topology_keys=["rack"]), [Pod("a")])
    result = select_podgroup_victims(preemptor, units_cluster((1,), [pod("low", "node1")]))
    assert result.status.code is StatusCode.UNSCHEDULABLE


class _Hook:
    def __init__(self, fail_on: str | None = None, allow: bool = True) -> None:
        self.fail_on = fail_on
        self.allow = allow
        self.tried: list[str] = []
        self.reprieved_keys: list[str] = []

    def should_try(self, unit: PreemptionUnit) -> bool:
        self.tried.append(unit.key)
        if self.fail_on == "should_try":
            raise ReprieveFilterError("quota check failed")
        return self.allow

    def reprieved(self, unit: PreemptionUnit) -> None:
        if self.fail_on == "reprieved":
            raise ReprieveFilterError("bookkeeping failed")
        self.reprieved_keys.append(unit.key)


@pytest.mark.parametrize("fail_on", ["should_try", "reprieved"])
def test_pg29_hook_errors_give_error_status_and_no_victims(fail_on: str) -> None:
    """PG-29: a failing reprieve filter fails the whole preemption; the cluster is restored."""
    cluster = units_cluster((2,), [pod("a", "node1"), pod("b", "node1", LOW + 1)])
    before = cluster.state()
    result = select_podgroup_victims(group("g", 1), cluster, mode="kube", reprieve_filter=_Hook(fail_on))
    assert result.status.code is StatusCode.ERROR and result.victims == ()
    assert cluster.state() == before


def test_pg27_reprieve_filter_refusal_keeps_victims_without_capacity_check() -> None:
    """PG-27 step 1: a unit the hook refuses stays a victim, even if it would fit back."""
    cluster = units_cluster((3,), [pod("a", "node1"), pod("b", "node1")])
    hook = _Hook(allow=False)
    result = select_podgroup_victims(group("g", 1), cluster, mode="kube", reprieve_filter=hook)
    assert sorted(names(result.victims)) == ["a", "b"] and hook.reprieved_keys == []
    hook = _Hook()
    result = select_podgroup_victims(group("g", 1), cluster, mode="kube", reprieve_filter=hook)
    assert result.victims == () and sorted(hook.reprieved_keys) == ["Pod//a", "Pod//b"]


def test_pg28_counters_and_zero_victims() -> None:
    """PG-28: an All group counts one disruption; Single members count one each; zero
    victims is a success with nominations."""
    groups = [PodGroup("all", priority=LOW, disruption_mode="All"), PodGroup("single", priority=LOW)]
    pods = [
        pod("all-1", "node1", pod_group="all"),
        pod("all-2", "node2", pod_group="all"),
        pod("s-1", "node3", pod_group="single"),
        pod("s-2", "node3", pod_group="single"),
    ]
    cluster = units_cluster((1, 1, 2), pods, pod_groups=groups)
    result = select_podgroup_victims(group("g", 1, 1, 1, 1, gang=4), cluster, mode="kube")
    assert sorted(names(result.victims)) == ["all-1", "all-2", "s-1", "s-2"]
    assert result.num_podgroup_disruptions == 3
    roomy = units_cluster((5,), [pod("x", "node1")])
    empty = select_podgroup_victims(group("g", 1), roomy)
    assert empty.status.code is StatusCode.SUCCESS and empty.victims == ()
    assert dict(empty.nominations) == {"g-0": "node1"}


def test_pg26_fixed_placement_and_unplaced_pods() -> None:
    """PG-26: only placed pods are nominated; a fixed placement is replayed without a fit
    check at placement time, so an impossible one makes every tried unit a victim."""
    cluster = units_cluster((1,), [pod("low", "node1")])
    result = select_podgroup_victims(
        group("g", 1, 1), cluster, mode="kube", placement=fixed_placement({"g-0": "node1", "g-1": None})
    )
    assert dict(result.nominations) == {"g-0": "node1"} and names(result.victims) == ["low"]
    overfull = fixed_placement([("g-0", "node1"), ("g-1", "node1")])
    result = select_podgroup_victims(group("g", 1, 1), cluster, mode="kube", placement=overfull)
    assert names(result.victims) == ["low"]
    with pytest.raises(InvalidPlacement):
        select_podgroup_victims(group("g", 1), cluster, placement=fixed_placement({"g-0": "nowhere"}))
    with pytest.raises(InvalidPlacement):
        select_podgroup_victims(group("g", 1), cluster, placement=fixed_placement({"stranger": "node1"}))


def test_pg25_violating_units_are_offered_reprieve_first() -> None:
    """PG-25, PDB-4: with room for one of two equal victims, the PDB-protected one is kept."""
    pdb = PodDisruptionBudget("keep-a", selector=LabelSelector({"app": "a"}), disruptions_allowed=0)
    pods = [pod("a", "node1", labels={"app": "a"}), pod("b", "node1", LOW + 1)]
    cluster = units_cluster((2,), pods, pdbs=[pdb])
    candidates = podgroup_candidates(group("g", 1), cluster)
    assert [(c.unit.key, c.violating_pods) for c in candidates.attempt_order] == [("Pod//a", 1), ("Pod//b", 0)]
    result = select_podgroup_victims(group("g", 1), cluster, mode="kube")
    assert names(result.victims) == ["b"] and result.num_pdb_violations == 0


# --------------------------------------------------------------------------- PG-7, PG-8, PG-9


def test_pg7_effective_priority() -> None:
    """PG-7: root of the hierarchy, last group found, or the pod's own priority."""
    groups = [PodGroup("pg", priority=MID, parent="root"), PodGroup("orphan", priority=MID, parent="gone")]
    composites = [CompositePodGroup("root", priority=HIGH)]
    cluster = Cluster(
        nodes(1),
        [
            pod("in-root", "node1", LOW, pod_group="pg"),
            pod("orphan", "node1", LOW, pod_group="orphan"),
            pod("missing", "node1", LOW, pod_group="nope"),
            pod("alone", "node1", LOW),
        ],
        pod_groups=groups,
        composite_pod_groups=composites,
    )
    by_name = {p.name: cluster.effective_priority(p) for p in cluster.running_pods}
    assert by_name == {"in-root": HIGH, "orphan": MID, "missing": LOW, "alone": LOW}
    flat = Cluster(nodes(1), cluster.running_pods, pod_groups=groups, composite_pod_groups=composites,
                   composite_pod_groups_enabled=False)
    assert flat.effective_priority(cluster.running_pods[0]) == MID  # PG-6: links ignored


def test_pg6_cycles_and_depth_are_bounded() -> None:
    """PG-6: a parent cycle stops the walk; at most MAX_GROUP_DEPTH groups are followed."""
    composites = [CompositePodGroup("c1", priority=1, parent="c2"), CompositePodGroup("c2", priority=2, parent="c1")]
    cluster = Cluster(nodes(1), [pod("p", "node1", pod_group="pg")],
                      pod_groups=[PodGroup("pg", parent="c1")], composite_pod_groups=composites)
    assert cluster.effective_priority(cluster.running_pods[0]) == 2  # pg -> c1 -> c2, then c1 again: stop
    deep = [CompositePodGroup(f"c{i}", priority=i, parent=f"c{i + 1}") for i in range(1, 10)]
    cluster = Cluster(nodes(1), [pod("p", "node1", pod_group="pg")],
                      pod_groups=[PodGroup("pg", parent="c1")], composite_pod_groups=deep)
    assert cluster.effective_priority(cluster.running_pods[0]) == 3  # pg, c1, c2, c3


def test_pg8_units() -> None:
    """PG-8: All groups span nodes; Single members and missing groups are single pods of type
    PodGroup; composite All groups gather every child group."""
    groups = [
        PodGroup("all", priority=LOW, disruption_mode="All"),
        PodGroup("single", priority=LOW, disruption_mode="Single"),
        PodGroup("child-a", priority=LOW, parent="comp"),
        PodGroup("child-b", priority=LOW, parent="comp", disruption_mode="All"),
    ]
    composites = [CompositePodGroup("comp", priority=LOW, disruption_mode="All")]
    pods = [
        pod("all-1", "node1", pod_group="all"),
        pod("all-2", "node2", pod_group="all"),
        pod("single-1", "node1", pod_group="single"),
        pod("missing-1", "node1", pod_group="missing"),
        pod("alone", "node2"),
        pod("a-1", "node1", pod_group="child-a"),
        pod("b-1", "node2", pod_group="child-b"),
    ]
    cluster = Cluster(nodes(9, 9), pods, pod_groups=groups, composite_pod_groups=composites)
    units = {u.key: (u.type, sorted(names(u.pods)), u.nodes) for u in cluster.units}
    assert units == {
        "PodGroup//all": (UnitType.POD_GROUP, ["all-1", "all-2"], ("node1", "node2")),
        "Pod//single-1": (UnitType.POD_GROUP, ["single-1"], ("node1",)),
        "Pod//missing-1": (UnitType.POD_GROUP, ["missing-1"], ("node1",)),
        "Pod//alone": (UnitType.POD, ["alone"], ("node2",)),
        "CompositePodGroup//comp": (UnitType.COMPOSITE_POD_GROUP, ["a-1", "b-1"], ("node1", "node2")),
    }


def test_score1_importance_and_pg9_unstarted_pods() -> None:
    """SCORE-1: priority, type, size, earliest start, UID; PG-9: unstarted = far future."""
    pods = [
        pod("started", "node1", start_time="2026-01-01T00:00:00Z"),
        pod("unstarted-b", "node1"),
        pod("unstarted-a", "node1"),
        pod("grouped", "node1", pod_group="missing"),
        pod("higher", "node1", LOW + 1),
    ]
    cluster = Cluster(nodes(9), pods)
    order = [u.pods[0].name for u in cluster.units]
    assert order == ["higher", "grouped", "started", "unstarted-a", "unstarted-b"]
    assert cluster.units[-1].earliest_start == NOT_STARTED


def test_start_times_keep_nanoseconds() -> None:
    assert parse_timestamp_ns("1970-01-01T00:00:00.000000004Z") == 4
    assert parse_timestamp_ns("1970-01-01T01:00:00+01:00") == 0
    assert Pod("p", start_time=datetime(1970, 1, 1, 0, 0, 1, tzinfo=timezone.utc)).start_time == 10**9
    with pytest.raises(InvalidModel):
        parse_timestamp_ns("yesterday")


# --------------------------------------------------------------------------- PDB-1, PDB-2


def test_pdb1_matching_and_the_empty_selector() -> None:
    """PDB-1: namespace + selector; absent/invalid match nothing; {} depends on semantics."""
    labelled = Pod("p", namespace="ns", labels={"app": "a", "tier": "web"})
    bare = Pod("q", namespace="ns")
    empty = PodDisruptionBudget("e", namespace="ns", selector=LabelSelector())
    assert pdb_covers(empty, labelled) and pdb_covers(empty, bare)
    assert not pdb_covers(empty, labelled, PdbSelectorSemantics.KUBE_PER_NODE)
    assert not pdb_covers(PodDisruptionBudget("n", namespace="ns"), labelled)
    assert not pdb_covers(PodDisruptionBudget("o", namespace="other", selector=LabelSelector()), labelled)
    not_in = LabelSelector(match_expressions=[LabelSelectorRequirement("app", "NotIn", ["b"])])
    pdb = PodDisruptionBudget("x", namespace="ns", selector=not_in)
    assert pdb_covers(pdb, bare) and not pdb_covers(pdb, bare, PdbSelectorSemantics.KUBE_PER_NODE)
    invalid = LabelSelector(match_expressions=[LabelSelectorRequirement("app", "In", [])])
    assert not pdb_covers(PodDisruptionBudget("i", namespace="ns", selector=invalid), labelled)
    exists = LabelSelector({"app": "a"}, [LabelSelectorRequirement("tier", "Exists")])
    assert pdb_covers(PodDisruptionBudget("x", namespace="ns", selector=exists), labelled)


def test_pdb2_budget_consumed_in_importance_order() -> None:
    """PDB-2: the more important victim uses the budget; disrupted pods are skipped."""
    pdb = PodDisruptionBudget("b", selector=LabelSelector({"app": "a"}), disruptions_allowed=1, disrupted_pods=["old"])
    pods = [pod(n, "node1", p, labels={"app": "a"}) for n, p in (("old", 1), ("more", 3), ("less", 2))]
    cluster = units_cluster((9,), pods, pdbs=[pdb])
    order = podgroup_candidates(group("g", 1), cluster).attempt_order
    assert [(c.unit.pods[0].name, c.violating_pods) for c in order] == [("less", 1), ("more", 0), ("old", 0)]


# --------------------------------------------------------------------------- per-node path


def _cpu_nodes(*names_: str) -> list[Node]:
    return [Node(n, {"cpu": "500m", "memory": "500", "pods": "32"}) for n in names_]


def _cpu_pod(name: str, node: str | None, priority: int, cpu: str, **kw: Any) -> Pod:
    return Pod(name, uid=name, node_name=node, priority=priority, requests={"cpu": cpu, "memory": "1"}, **kw)


def test_node5_failure_reasons_and_node4_no_victims() -> None:
    """NODE-4/NODE-5: no lower-priority pod -> unresolvable; still no room -> the FIT-1 reason."""
    cluster = Cluster(_cpu_nodes("n1"), [_cpu_pod("big", "n1", HIGH, "100m")])
    preemptor = _cpu_pod("p", None, MID, "100m")
    assert select_victims_on_node(preemptor, "n1", cluster).status.code is StatusCode.UNSCHEDULABLE_AND_UNRESOLVABLE
    cluster = Cluster(_cpu_nodes("n1"), [_cpu_pod("a", "n1", LOW, "100m"), _cpu_pod("b", "n1", HIGH, "300m")])
    status = select_victims_on_node(_cpu_pod("p", None, MID, "300m"), "n1", cluster).status
    assert status.code is StatusCode.UNSCHEDULABLE and status.reasons == ("Insufficient cpu",)


def test_node8_reprieve_and_node9_order() -> None:
    """NODE-8: victims are reprieved most important first; NODE-9: victims in importance order."""
    pods = [_cpu_pod("v1", "n1", 1, "200m"), _cpu_pod("v2", "n1", 2, "200m"), _cpu_pod("v3", "n1", 3, "100m")]
    cluster = Cluster(_cpu_nodes("n1"), pods)
    result = select_victims_on_node(_cpu_pod("p", None, HIGH, "300m"), "n1", cluster)
    assert result.candidate is not None
    # Free 500m after removing all; v3 (100m) back -> 400m fits; v2 -> no; v1 -> no.
    assert names(result.candidate.victims) == ["v2", "v1"]


def test_node10_zero_victims_is_an_error() -> None:
    cluster = Cluster(_cpu_nodes("n1"), [_cpu_pod("small", "n1", LOW, "100m")])
    result = select_victims_on_node(_cpu_pod("p", None, HIGH, "100m"), "n1", cluster)
    assert result.status.code is StatusCode.ERROR and result.candidate is None


def test_node11_all_group_victim_counts_remote_pods() -> None:
    """NODE-11: the whole All unit is a victim; only this node's capacity is checked."""
    groups = [PodGroup("g", priority=LOW, disruption_mode="All")]
    pods = [_cpu_pod("g-1", "n1", LOW, "500m", pod_group="g"), _cpu_pod("g-2", "n2", LOW, "500m", pod_group="g")]
    cluster = Cluster(_cpu_nodes("n1", "n2"), pods, pod_groups=groups)
    result = select_victims_on_node(_cpu_pod("p", None, HIGH, "500m"), "n1", cluster)
    assert result.candidate is not None and names(result.candidate.victims) == ["g-1", "g-2"]


def test_node2_waiting_for_scheduler_victims() -> None:
    """NODE-1/NODE-2: Never does not preempt; a scheduler-preempted pod on the nominated
    node blocks unless that node became unresolvable."""
    victim = _cpu_pod("v", "n1", LOW, "100m", terminating=True, disruption_target=True)
    cluster = Cluster(_cpu_nodes("n1"), [victim])
    waiting = _cpu_pod("p", None, HIGH, "100m", nominated_node_name="n1")
    assert not pod_eligible_to_preempt_others(waiting, cluster).is_success
    assert pod_eligible_to_preempt_others(waiting, cluster, "UnschedulableAndUnresolvable").is_success
    never = _cpu_pod("p", None, HIGH, "100m", preemption_policy="Never")
    assert not pod_eligible_to_preempt_others(never, cluster).is_success


def test_node12_num_candidates_and_bounds() -> None:
    assert num_candidates(5, 40, 1) == 2
    assert num_candidates(2, 10, 100) == 2
    assert num_candidates(1000, 10, 100) == 100
    assert num_candidates(5000, 10, 100) == 500
    with pytest.raises(ConfigurationError):
        num_candidates(5, 101, 1)


def test_node12_sequential_early_stop_from_offset() -> None:
    """NODE-12: visit from the offset, stop once enough candidates with one non-violating."""
    node_names = [f"n{i}" for i in range(1, 6)]
    cluster = Cluster(_cpu_nodes(*node_names), [_cpu_pod(f"p{i}", f"n{i}", LOW, "300m") for i in range(1, 6)])
    result = dry_run_preemption(_cpu_pod("p", None, HIGH, "300m"), cluster, offset=3,
                                min_candidate_nodes_percentage=40, min_candidate_nodes_absolute=1)
    assert [c.node for c in result.candidates] == ["n4", "n5"] and result.nodes_evaluated == 2


def chosen(candidates: list[NodeCandidate]) -> str:
    best = select_candidate(candidates)
    assert best is not None
    return best.node


def test_score3_criteria_in_order() -> None:
    """SCORE-3: PDB violations, highest priority, shifted sum, count, latest start, first."""

    def cand(node: str, *victims: tuple[int, int | None], pdb: int = 0) -> NodeCandidate:
        units = []
        for i, (priority, start) in enumerate(victims):
            p = Pod(f"{node}-{i}", uid=f"{node}-{i}", node_name=node, priority=priority, start_time=start)
            units.append(ClassifiedUnit(Cluster(_cpu_nodes(node), [p]).units[0]))
        return NodeCandidate(node, tuple(units), pdb)

    assert chosen([cand("a", (1, 0), pdb=1), cand("b", (5, 0))]) == "b"
    assert chosen([cand("a", (5, 0)), cand("b", (1, 0), (1, 0))]) == "b"
    assert chosen([cand("a", (5, 0), (4, 0)), cand("b", (5, 0), (1, 0))]) == "b"
    # Negative priorities: the 2^31 shift makes one victim cheaper than two.
    assert chosen([cand("a", (-5, 0), (-5, 0)), cand("b", (-5, 0))]) == "b"
    assert chosen([cand("a", (5, 10)), cand("b", (5, 20))]) == "b"
    assert chosen([cand("a", (5, 10)), cand("b", (5, 10))]) == "a"
    assert select_candidate([]) is None



def test_node13_preempt_pod_nominates_and_clears_lower_nominations() -> None:
    """NODE-13: nominate the chosen node; lower-priority pods nominated there lose it."""
    pods = [
        _cpu_pod("victim", "n1", LOW, "500m"),
        _cpu_pod("waiting-low", None, LOW, "100m", nominated_node_name="n1"),
        _cpu_pod("waiting-high", None, HIGH + 1, "100m", nominated_node_name="n1"),
    ]
    cluster = Cluster(_cpu_nodes("n1", "n2"), pods)
    result = preempt_pod(_cpu_pod("p", None, HIGH, "500m"), cluster, {"n1": "Unschedulable"})
    assert result.nominated_node_name == "n1" and names(result.victims) == ["victim"]
    assert names(result.cleared_nominations) == ["waiting-low"]
    assert result.node_statuses["n2"].code is StatusCode.UNSCHEDULABLE_AND_UNRESOLVABLE
    none = preempt_pod(_cpu_pod("p", None, HIGH, "600m"), cluster, {"n1": "Unschedulable", "n2": "Unschedulable"})
    assert none.nominated_node_name == "" and none.status.code is StatusCode.UNSCHEDULABLE
    assert none.status.message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod."
    )


def test_node11_group_members_are_refused_on_the_pod_path() -> None:
    member = _cpu_pod("m", None, HIGH, "100m", pod_group="g")
    cluster = Cluster(_cpu_nodes("n1"), [_cpu_pod("v", "n1", LOW, "500m")])
    refused = preempt_pod(member, cluster, {"n1": "Unschedulable"})
    assert refused.status.message == "not eligible due to workload aware preemption enabled"
    allowed = preempt_pod(member, cluster, {"n1": "Unschedulable"},
                          features=PreemptionFeatures(workload_aware_preemption=False))
    assert allowed.nominated_node_name == "n1"


# --------------------------------------------------------------------------- the model and the cluster


def test_cluster_mutations_have_exact_inverses() -> None:
    """Every mutation is undone exactly: remove/restore, assume/forget."""
    groups = [PodGroup("g", disruption_mode="All")]
    pods = [_cpu_pod("a", "n1", LOW, "100m", pod_group="g"), _cpu_pod("b", "n2", LOW, "250m", pod_group="g")]
    cluster = Cluster(_cpu_nodes("n1", "n2"), pods, pod_groups=groups)
    before = cluster.state()
    (unit,) = cluster.units
    cluster.remove(unit)
    assert cluster.state() != before
    with pytest.raises(InvalidModel):
        cluster.remove(unit)
    cluster.restore(unit)
    assert cluster.state() == before
    extra = _cpu_pod("x", None, HIGH, "1")
    cluster.assume(extra, "n1")
    assert not cluster.fits(extra, "n1")
    cluster.forget(extra, "n1")
    assert cluster.state() == before
    checkpoint = cluster.checkpoint()
    cluster.remove(unit)
    cluster.assume(extra, "n2")
    cluster.rollback(checkpoint)
    assert cluster.state() == before


def test_first_fit_scans_circularly() -> None:
    """FIT-3's scan: from ``start``, wrapping around; -1 when nothing fits."""
    cluster = units_cluster((1, 0, 2), [])
    assert cluster.first_fit(Pod("p", requests={"units": "1"}), 1) == 2
    assert cluster.first_fit(Pod("p", requests={"units": "2"}), 0) == 2
    assert cluster.first_fit(Pod("p", requests={"units": "3"}), 0) == -1


def test_trace_shows_the_search() -> None:
    """The decision trace records every placement of the search and every reprieve verdict."""
    cluster = units_cluster((1, 1), [pod("mid", "node1", MID), pod("low", "node2", LOW)])
    trace = DecisionTrace()
    select_podgroup_victims(group("g", 1), cluster, trace=trace)
    rules = [e.rule for e in trace]
    assert rules == ["PG-10", "FIT-2", "PG-27"]
    assert "priority <= 10 removed succeeds" in trace.events[1].detail
    assert trace.events[-1].verdict.value == "target" and trace.events[-1].workload == "Pod//low"


def test_fit1_reasons() -> None:
    """FIT-1: pod slots, then every requested resource."""
    cluster = Cluster([Node("n", {"cpu": "1", "pods": "1"})], [Pod("r", node_name="n", requests={"cpu": "600m"})])
    assert cluster.fit_failures(Pod("p", requests={"cpu": "500m", "gpu": "1"}), "n") == (
        "Too many pods", "Insufficient cpu", "Insufficient gpu",
    )


def test_bad_input_raises_typed_errors_naming_object_and_field() -> None:
    with pytest.raises(InvalidQuantity, match=r"Pod 'ns/p' requests\['cpu'\]"):
        Pod("p", namespace="ns", requests={"cpu": "lots"})
    with pytest.raises(InvalidModel, match=r"Pod 'p'.*priority"):
        Pod("p", priority=2**31)
    with pytest.raises(InvalidModel, match=r"Node 'n'.*allocatable\['cpu'\]"):
        Node("n", {"cpu": "-1"})
    with pytest.raises(UnknownNode, match="node_name"):
        Cluster([], [Pod("p", node_name="ghost")])
    with pytest.raises(DuplicateName):
        Cluster(nodes(1, 1) + nodes(1))
    with pytest.raises(InvalidModel, match="gang minCount"):
        PodGroup("g", gang_min_count=0)
    with pytest.raises(InvalidModel, match="FIT-4"):
        PodGroupPreemptor(PodGroup("g"), [Pod("p", node_name="n")])
    with pytest.raises(InvalidModel, match="disruption_mode"):
        PodGroup("g", disruption_mode="Sometimes")
    assert issubclass(UnknownNode, KueuePreemptError) and issubclass(InvalidPlacement, KueuePreemptError)
    assert PodGroup("g", disruption_mode="PodGroup").disruption_mode is DisruptionMode.ALL  # KEP name

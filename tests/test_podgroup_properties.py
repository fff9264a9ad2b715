"""Property tests of PodGroup preemption (PG-7, PG-8, PG-20..PG-30, FIT-1..FIT-3, §9.1).

Small random clusters (1-5 nodes, up to 14 running pods, PodGroups in ``Single`` and ``All``
mode, missing groups, PDBs) and a pending group. The expected facts are computed by an
independent oracle written here from the spec — its own effective priority (PG-7), units
(PG-8), fit rule (FIT-1 / the ``units`` model) and round-robin placement (FIT-3) — not by
calling the library's helpers.

About the binary search: a greedy first-fit placement is not always monotone in freed
capacity (adding room can divert an early pod and strand a later one), and no O(log k)
search can find the lowest feasible level of a non-monotone predicate. The properties
therefore check (a) whenever success is monotone over the levels — always the case when the
preemptor's pods are all the same size, which half of the examples force — that the binary
search returns exactly the linear scan's level; (b) always, the binary-search invariant:
placement succeeds at the returned level and fails at the level just below it.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kueue_preempt.podgroup import (
    Cluster,
    DisruptionMode,
    LabelSelector,
    Node,
    NodeFilter,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodGroupPreemptionResult,
    PodGroupPreemptor,
    StatusCode,
    select_podgroup_victims,
)

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

PRIORITIES = (0, 10, 20, 30, 40)
GROUP_NAMES = ("pg0", "pg1", "pg2", "pg3")  # pg3 is never defined: a missing PodGroup


@dataclass
class Scenario:
    """Everything one decision reads, as plain model objects."""

    node_filter: NodeFilter
    nodes: list[Node]
    pods: list[Pod]
    groups: list[PodGroup]
    pdbs: list[PodDisruptionBudget]
    preemptor: PodGroupPreemptor
    equal_sizes: bool
    seed: int = 0
    caps: dict[str, int] = field(default_factory=dict)
    slots: dict[str, int] = field(default_factory=dict)

    def cluster(self, pods: list[Pod] | None = None) -> Cluster:
        return Cluster(
            self.nodes,
            self.pods if pods is None else pods,
            pod_groups=self.groups,
            pdbs=self.pdbs,
            node_filter=self.node_filter,
        )


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    units_model = draw(st.booleans())
    node_filter = NodeFilter.UNITS if units_model else NodeFilter.RESOURCE_FIT
    resource = "units" if units_model else "cpu"
    n_nodes = draw(st.integers(1, 5))
    caps = {f"n{i}": draw(st.integers(1, 5)) for i in range(n_nodes)}
    slots = {name: draw(st.integers(1, 6)) for name in caps}
    nodes = [
        Node(name, {resource: str(cap), "pods": str(slots[name])} if not units_model else {resource: str(cap)})
        for name, cap in caps.items()
    ]
    groups = [
        PodGroup(
            name,
            uid=f"uid-{name}",
            priority=draw(st.sampled_from(PRIORITIES)),
            disruption_mode=draw(st.sampled_from((DisruptionMode.SINGLE, DisruptionMode.ALL))),
        )
        for name in GROUP_NAMES[:3]
        if name != "pg2" or draw(st.booleans())
    ]
    pods = []
    for i in range(draw(st.integers(0, 14))):
        size = draw(st.integers(1, 3))
        pods.append(
            Pod(
                f"r{i}",
                uid=draw(st.sampled_from(("", f"u{i}", "dup"))),
                priority=draw(st.sampled_from(PRIORITIES)),
                requests={resource: str(size)},
                node_name=draw(st.sampled_from(sorted(caps))),
                start_time=draw(st.one_of(st.none(), st.integers(0, 5))),
                pod_group=draw(st.sampled_from((None,) + GROUP_NAMES)),
                labels={"app": draw(st.sampled_from(("a", "b")))},
            )
        )
    pdbs = [
        PodDisruptionBudget(
            f"pdb{i}",
            selector=LabelSelector(match_labels={"app": draw(st.sampled_from(("a", "b")))}),
            disruptions_allowed=draw(st.integers(0, 2)),
        )
        for i in range(draw(st.integers(0, 2)))
    ]
    equal_sizes = draw(st.booleans())
    n_pre = draw(st.integers(1, 4))
    first = draw(st.integers(1, 3))
    sizes = [first] * n_pre if equal_sizes else [draw(st.integers(1, 3)) for _ in range(n_pre)]
    gang = draw(st.one_of(st.none(), st.integers(1, n_pre)))
    preemptor = PodGroupPreemptor(
        PodGroup("incoming", priority=draw(st.sampled_from((15, 25, 35, 50))), gang_min_count=gang),
        [Pod(f"p{i}", requests={resource: str(s)}) for i, s in enumerate(sizes)],
    )
    seed = draw(st.integers(0, 2**16))
    return Scenario(node_filter, nodes, pods, groups, pdbs, preemptor, equal_sizes, seed, caps, slots)


# --------------------------------------------------------------------------- the oracle


def eff_priority(sc: Scenario, pod: Pod) -> int:
    """PG-7 without composites: the PodGroup's priority if it exists, else the pod's."""
    for g in sc.groups:
        if pod.pod_group == g.name:
            return g.priority
    return pod.priority


def unit_key(sc: Scenario, pod: Pod) -> str:
    """PG-8 without composites: an existing ``All`` group, else the pod alone."""
    for g in sc.groups:
        if pod.pod_group == g.name and g.disruption_mode is DisruptionMode.ALL:
            return "group:" + g.name
    return "pod:" + pod.name


def size_of(sc: Scenario, pod: Pod) -> int:
    resource = "units" if sc.node_filter is NodeFilter.UNITS else "cpu"
    return int(pod.requests.get(resource) or 0)


class Capacity:
    """Free room per node: the oracle's own FIT-1 / ``units`` rule."""

    def __init__(self, sc: Scenario, present: list[Pod]) -> None:
        self.sc = sc
        self.free = dict(sc.caps)
        self.slots = dict(sc.slots)
        for pod in present:
            assert pod.node_name is not None
            self.take(pod, pod.node_name)

    def fits(self, pod: Pod, node: str) -> bool:
        room = self.free[node] >= size_of(self.sc, pod)
        if self.sc.node_filter is NodeFilter.RESOURCE_FIT:
            return room and self.slots[node] >= 1
        return room

    def take(self, pod: Pod, node: str) -> None:
        self.free[node] -= size_of(self.sc, pod)
        self.slots[node] -= 1


def oracle_place(sc: Scenario, present: list[Pod]) -> tuple[bool, list[tuple[str, str]]]:
    """FIT-3 round-robin first fit, written independently; (success, assignments)."""
    cap = Capacity(sc, present)
    names = [n.name for n in sc.nodes]
    start = 0
    out: list[tuple[str, str]] = []
    for pod in sc.preemptor.pods:
        for j in range(len(names)):
            i = (start + j) % len(names)
            if cap.fits(pod, names[i]):
                cap.take(pod, names[i])
                out.append((pod.name, names[i]))
                start = (i + 1) % len(names)
                break
    return len(out) >= sc.preemptor.min_count, out


def oracle_levels(sc: Scenario) -> list[tuple[int, bool]]:
    """Every candidate priority level, ascending, with "does placement succeed there"."""
    top = sc.preemptor.group.priority
    levels = sorted({eff_priority(sc, p) for p in sc.pods if eff_priority(sc, p) < top})
    return [(lvl, oracle_place(sc, [p for p in sc.pods if eff_priority(sc, p) > lvl])[0]) for lvl in levels]


def replay_fits(sc: Scenario, present: list[Pod], nominations: dict[str, str]) -> bool:
    """Do the nominated pods fit, one after another in nomination order (PG-27 step 3)?"""
    cap = Capacity(sc, present)
    by_name = {p.name: p for p in sc.preemptor.pods}
    for name, node in nominations.items():
        pod = by_name[name]
        if not cap.fits(pod, node):
            return False
        cap.take(pod, node)
    return True


def victim_names(result: PodGroupPreemptionResult) -> set[str]:
    return {p.name for p in result.victims}


# --------------------------------------------------------------------------- properties


@SETTINGS
@given(scenarios())
def test_binary_search_finds_the_linear_scan_level(sc: Scenario) -> None:
    """§9.1: binary search = linear scan when success is monotone; the search invariant always."""
    levels = oracle_levels(sc)
    successes = [ok for _, ok in levels]
    monotone = successes == sorted(successes)
    event(f"levels={len(levels)} monotone={monotone} equal_sizes={sc.equal_sizes}")
    if sc.equal_sizes:
        assert monotone, "equal-size pods make success monotone in freed capacity"
    linear_n = next((lvl for lvl, ok in levels if ok), None)
    cluster = sc.cluster()
    before = cluster.state()
    binary = select_podgroup_victims(sc.preemptor, cluster, mode="kep")
    linear = select_podgroup_victims(sc.preemptor, cluster, mode="kep", search="linear")
    assert cluster.state() == before
    # The library's linear mode is exactly the oracle's scan.
    assert linear.priority_threshold == linear_n
    assert (linear.status.code is StatusCode.SUCCESS) == (linear_n is not None)
    if not levels:
        assert binary.status.code is StatusCode.UNSCHEDULABLE and binary.placements == 0
        return
    # The lowest level the capacity bound allows, then a real binary search of the rest: at
    # most 1 + ceil(log2(k)) placements (issue 18, decisions (perf-a), (perf-e)).
    assert binary.placements == len(binary.search_steps) <= 1 + math.ceil(math.log2(len(levels)))
    ok = dict(levels)
    first = binary.search_steps[0].priority
    event(f"bound skipped levels={first != levels[0][0]}")
    if sc.node_filter is not NodeFilter.RESOURCE_FIT:
        assert first == levels[0][0], "no FIT-1 bound: the lowest level is probed first (issue 18)"
    # FIT-2/FIT-1: a level is skipped without a placement only if the oracle's placement fails
    # there, so the bound is a necessary condition and never skips the answer.
    assert not any(ok[lvl] for lvl, _ in levels if lvl < first), "the bound skipped a feasible level"
    for step in binary.search_steps:
        assert step.succeeded == ok[step.priority]
    if binary.status.code is StatusCode.SUCCESS:
        n = binary.priority_threshold
        assert n is not None and ok[n]
        below = [lvl for lvl, _ in levels if lvl < n]
        assert not below or not ok[below[-1]], "the level just below N must fail"
    else:
        assert binary.priority_threshold is None and not successes[-1]
    if monotone:
        assert binary.priority_threshold == linear_n
        event("binary == linear checked")


@SETTINGS
@given(scenarios())
def test_exponential_search_finds_the_linear_scan_level(sc: Scenario) -> None:
    """§9.1, ``search="exponential"``: same guarantees, at most 2*ceil(log2(k+1)) placements."""
    levels = oracle_levels(sc)
    ok = dict(levels)
    successes = [s for _, s in levels]
    result = select_podgroup_victims(sc.preemptor, sc.cluster(), mode="kep", search="exponential")
    if not levels:
        assert result.placements == 0
        return
    assert result.placements == len(result.search_steps) <= 2 * math.ceil(math.log2(len(levels) + 1))
    for step in result.search_steps:
        assert step.succeeded == ok[step.priority]
    if result.status.code is StatusCode.SUCCESS:
        n = result.priority_threshold
        assert n is not None and ok[n]
        below = [lvl for lvl, _ in levels if lvl < n]
        assert not below or not ok[below[-1]]
    else:
        assert not successes[-1]
    if successes == sorted(successes):
        assert result.priority_threshold == next((lvl for lvl, s in levels if s), None)


@SETTINGS
@given(scenarios(), st.sampled_from(("kep", "kube")))
def test_victims_have_lower_priority(sc: Scenario, mode: str) -> None:
    """PG-23, §9.11: every victim is strictly below the preemptor (kep: at most N)."""
    result = select_podgroup_victims(sc.preemptor, sc.cluster(), mode=mode)
    top = sc.preemptor.group.priority
    for victim in result.victims:
        assert eff_priority(sc, victim) < top
        if mode == "kep":
            assert result.priority_threshold is not None
            assert eff_priority(sc, victim) <= result.priority_threshold
    event(f"{mode}: {result.status.code.value}, {len(result.victims)} victims")


@SETTINGS
@given(scenarios(), st.sampled_from(("kep", "kube")))
def test_all_mode_groups_are_all_or_nothing(sc: Scenario, mode: str) -> None:
    """PG-8, PDB-3: an ``All`` group is preempted whole or not at all, on every node."""
    result = select_podgroup_victims(sc.preemptor, sc.cluster(), mode=mode)
    victims = victim_names(result)
    assert len(victims) == len(result.victims), "no pod is listed twice"
    for g in sc.groups:
        if g.disruption_mode is DisruptionMode.ALL:
            members = {p.name for p in sc.pods if p.pod_group == g.name}
            assert members <= victims or not (members & victims), g.name
            if members & victims:
                event("an All group was preempted")


@SETTINGS
@given(scenarios(), st.sampled_from(("kep", "kube")))
def test_placed_pods_fit_once_victims_are_removed(sc: Scenario, mode: str) -> None:
    """PG-26..PG-28: replaying the nominations on the cluster minus the victims succeeds."""
    result = select_podgroup_victims(sc.preemptor, sc.cluster(), mode=mode)
    if result.status.code is not StatusCode.SUCCESS:
        return
    nominations = dict(result.nominations)
    assert len(nominations) >= sc.preemptor.min_count
    victims = victim_names(result)
    assert replay_fits(sc, [p for p in sc.pods if p.name not in victims], nominations)
    event(f"{mode}: placement verified with {len(victims)} victims")


@SETTINGS
@given(scenarios(), st.sampled_from(("kep", "kube")))
def test_no_victim_unit_can_be_reprieved(sc: Scenario, mode: str) -> None:
    """PG-27: putting any single victim unit back breaks the nominated placement."""
    result = select_podgroup_victims(sc.preemptor, sc.cluster(), mode=mode)
    if result.status.code is not StatusCode.SUCCESS:
        return
    victims = victim_names(result)
    units: dict[str, set[str]] = {}
    for p in sc.pods:
        if p.name in victims:
            units.setdefault(unit_key(sc, p), set()).add(p.name)
    nominations = dict(result.nominations)
    for key, names in units.items():
        present = [p for p in sc.pods if p.name not in victims or p.name in names]
        assert not replay_fits(sc, present, nominations), f"{key} could have been reprieved"
    event(f"{mode}: {len(units)} victim units checked")


@SETTINGS
@given(scenarios(), st.sampled_from(("kep", "kube")))
def test_deterministic_and_independent_of_pod_order(sc: Scenario, mode: str) -> None:
    """Same input twice -> same result; a permuted pod list -> same victims and nominations."""
    first = select_podgroup_victims(sc.preemptor, sc.cluster(), mode=mode)
    again = select_podgroup_victims(sc.preemptor, sc.cluster(), mode=mode)
    assert first == again
    shuffled = list(sc.pods)
    random.Random(sc.seed).shuffle(shuffled)
    permuted = select_podgroup_victims(sc.preemptor, sc.cluster(shuffled), mode=mode)
    assert permuted.status == first.status
    assert victim_names(permuted) == victim_names(first)
    assert [p.name for p in permuted.victims] == [p.name for p in first.victims]
    assert dict(permuted.nominations) == dict(first.nominations)
    assert permuted.search_steps == first.search_steps

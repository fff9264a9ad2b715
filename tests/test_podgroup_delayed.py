"""Delayed preemption: a group attempted again while its earlier victims are still leaving.

PG-20 is kube-scheduler's shipped behaviour (``mode="kube"``): re-issue the nominations.
KEP-5710's text (``mode="kep"``, the default) distinguishes two cases:

* PG-DELAY-1 — the original nomination is still feasible once the triggered preemptions
  complete: no new victim;
* PG-DELAY-2 — it is not: nominations cleared, victim selection from scratch on the cluster
  without the in-flight victims.

Hand-built cases use the abstract ``units`` capacity of kube-scheduler's PodGroup tests; the
hypothesis properties at the end compare the library with an independent oracle.
"""

from __future__ import annotations

from typing import Any, Sequence

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt import DecisionTrace
from kueue_preempt.podgroup import (
    Cluster,
    Node,
    NodeFilter,
    Pod,
    PodGroup,
    PodGroupPreemptor,
    PreemptionMode,
    StatusCode,
    select_podgroup_victims,
)
from kueue_preempt.testing.invariants.podgroup import Capacity, pod_priority, unit_key
from kueue_preempt.testing.strategies.podgroup import PodGroupScenario, podgroup_scenarios
from kube_cases import cluster_of, group_preemptor_of, load_cases, placement_of
from test_podgroup_properties import SETTINGS

LOW, MID, HIGH, TOP = 10, 100, 1000, 5000
ONGOING = "ongoing preemption on nominated nodes"


def units_cluster(caps: dict[str, int], pods: list[Pod], groups: Sequence[PodGroup] = ()) -> Cluster:
    return Cluster(
        [Node(name, {"units": str(c)}) for name, c in caps.items()],
        pods,
        pod_groups=groups,
        node_filter=NodeFilter.UNITS,
    )


def running(name: str, node: str, priority: int = LOW, units: int = 1, **kw: Any) -> Pod:
    return Pod(name, uid=name, node_name=node, priority=priority, requests={"units": str(units)}, **kw)


def leaving(name: str, node: str, priority: int = LOW, units: int = 1, **kw: Any) -> Pod:
    """A pod the scheduler is evicting: terminating with DisruptionTarget (NODE-2 (b))."""
    return running(name, node, priority, units, terminating=True, disruption_target=True, **kw)


def member(name: str, units: int, nominated: str | None = None) -> Pod:
    return Pod(name, uid=name, requests={"units": str(units)}, nominated_node_name=nominated)


def gang(*pods: Pod, priority: int = HIGH, min_count: int | None = None, **kw: Any) -> PodGroupPreemptor:
    return PodGroupPreemptor(PodGroup("incoming", priority=priority, gang_min_count=min_count, **kw), pods)


def names(pods: tuple[Pod, ...]) -> list[str]:
    return [p.name for p in pods]


# --------------------------------------------------------------------------- PG-DELAY-1


def test_pg_delay_1_feasible_nomination_triggers_no_new_preemption() -> None:
    """PG-DELAY-1: node1 (2 units) holds the in-flight victim (1) and a low pod (1). Once the
    victim has left, the nominated 1-unit member fits next to the low pod: wait, evict nothing
    more — although the low pod is a perfectly good candidate."""
    cluster = units_cluster({"node1": 2}, [leaving("victim", "node1"), running("low", "node1")])
    preemptor = gang(member("a", 1, "node1"))
    before = cluster.state()
    trace = DecisionTrace()
    result = select_podgroup_victims(preemptor, cluster, trace=trace)
    assert result.status.code is StatusCode.SUCCESS and result.status.message == ONGOING
    assert result.victims == () and result.victim_units == ()
    assert dict(result.nominations) == {"a": "node1"}
    assert result.nomination_feasible is True
    assert names(result.in_flight) == ["victim"]
    assert result.placements == 0
    assert {e.rule for e in trace.events} >= {"PG-DELAY-1"}
    assert "PG-DELAY-2" not in {e.rule for e in trace.events}
    assert cluster.state() == before


def test_pg_delay_1_same_outcome_as_pg20_when_feasible_but_reports_it() -> None:
    """PG-20 vs PG-DELAY-1: with a feasible nomination both modes re-issue the nominations
    (members without one get ""); only ``"kep"`` says why (``nomination_feasible``)."""
    cluster = units_cluster({"node1": 2, "node2": 1}, [leaving("victim", "node1", units=2)])
    preemptor = gang(member("a", 1, "node1"), member("b", 1), min_count=1)
    kube = select_podgroup_victims(preemptor, cluster, mode="kube")
    kep = select_podgroup_victims(preemptor, cluster, mode="kep")
    assert dict(kube.nominations) == dict(kep.nominations) == {"a": "node1", "b": ""}
    assert kube.victims == kep.victims == ()
    assert (kube.nomination_feasible, kube.in_flight) == (None, ())
    assert kep.nomination_feasible is True and names(kep.in_flight) == ["victim"]


def test_pg_delay_1_a_whole_all_group_in_flight_counts_as_leaving() -> None:
    """PG-DELAY-1 with PG-8: one pod of an ``All`` group carries the condition, its sibling on
    node2 not yet; the unit is atomic, so the sibling's room counts too. Member b is
    nominated into exactly that room."""
    groups = [PodGroup("old", priority=LOW, disruption_mode="All", gang_min_count=2)]
    pods = [
        leaving("old-0", "node1", pod_group="old"),
        running("old-1", "node2", pod_group="old"),
    ]
    cluster = units_cluster({"node1": 1, "node2": 1}, pods, groups)
    preemptor = gang(member("a", 1, "node1"), member("b", 1, "node2"), min_count=2)
    result = select_podgroup_victims(preemptor, cluster)
    assert result.nomination_feasible is True and result.victims == ()
    assert sorted(names(result.in_flight)) == ["old-0", "old-1"]


def test_pg_delay_1_policy_never_still_waits_for_its_victims() -> None:
    """PG-DELAY-1 comes before PG-21, as PG-20 does: a group whose policy is now Never keeps
    waiting for the victims it already triggered (no new ones)."""
    cluster = units_cluster({"node1": 1}, [leaving("victim", "node1")])
    preemptor = gang(member("a", 1, "node1"), preemption_policy="Never")
    result = select_podgroup_victims(preemptor, cluster)
    assert result.status.code is StatusCode.SUCCESS and result.nomination_feasible is True
    assert dict(result.nominations) == {"a": "node1"}


# --------------------------------------------------------------------------- PG-DELAY-2


def _took_the_room() -> tuple[Cluster, PodGroupPreemptor]:
    """node1 (2 units): the in-flight victim (1) and ``late`` (MID, 1), which arrived after the
    nomination; node2 (2 units): ``low`` (2). Member a (2 units) was nominated to node1,
    member b (2 units) has no nomination; the gang needs 1."""
    pods = [leaving("victim", "node1"), running("late", "node1", MID), running("low", "node2", LOW, 2)]
    cluster = units_cluster({"node1": 2, "node2": 2}, pods)
    return cluster, gang(member("a", 2, "node1"), member("b", 2), min_count=1)


def test_pg_delay_2_infeasible_nomination_starts_from_scratch() -> None:
    """PG-DELAY-2: without the victim node1 has 1 unit free, a needs 2 — not feasible. From
    scratch without the victim: the KEP search removes the LOW level (``low``), a goes to node2
    (node1 is full: 1 + 2 > 2), b fits nowhere and loses its (empty) nomination; ``low`` cannot
    be reprieved. ``late`` (MID) is never touched and the victim is not chosen again."""
    cluster, preemptor = _took_the_room()
    before = cluster.state()
    trace = DecisionTrace()
    result = select_podgroup_victims(preemptor, cluster, trace=trace)
    assert result.status.code is StatusCode.SUCCESS
    assert result.nomination_feasible is False
    assert names(result.victims) == ["low"]
    assert dict(result.nominations) == {"a": "node2", "b": ""}
    assert names(result.in_flight) == ["victim"]
    assert result.priority_threshold == LOW
    assert "PG-DELAY-2" in {e.rule for e in trace.events}
    assert cluster.state() == before


def test_pg_delay_2_kube_mode_keeps_pg20() -> None:
    """PG-20 (kube-scheduler as shipped): the same input only re-issues the stale nomination."""
    cluster, preemptor = _took_the_room()
    result = select_podgroup_victims(preemptor, cluster, mode=PreemptionMode.KUBE)
    assert result.status.message == ONGOING
    assert result.victims == ()
    assert dict(result.nominations) == {"a": "node1", "b": ""}


def test_pg_delay_2_equals_a_fresh_run_without_the_victims() -> None:
    """PG-DELAY-2: "as if the triggered preemptions had completed" — the same victims and
    placement as a call on a cluster built without them and with no nominations."""
    cluster, preemptor = _took_the_room()
    result = select_podgroup_victims(preemptor, cluster)
    fresh_cluster = units_cluster(
        {"node1": 2, "node2": 2}, [running("late", "node1", MID), running("low", "node2", LOW, 2)]
    )
    fresh = select_podgroup_victims(gang(member("a", 2), member("b", 2), min_count=1), fresh_cluster)
    assert names(result.victims) == names(fresh.victims)
    assert dict(fresh.nominations) == {"a": "node2"}
    assert result.search_steps == fresh.search_steps


def test_pg_delay_2_a_vanished_nominated_node_is_not_feasible() -> None:
    """PG-DELAY-1/2: member b was nominated to a node that is gone, so the original placement
    no longer exists. From scratch without the victim: node1 (2 units) holds only ``low``;
    both members need node1, so ``low`` is evicted and both are nominated there."""
    cluster = units_cluster({"node1": 2}, [leaving("victim", "node1"), running("low", "node1")])
    preemptor = gang(member("a", 1, "node1"), member("b", 1, "node9"), min_count=2)
    result = select_podgroup_victims(preemptor, cluster)
    assert result.nomination_feasible is False
    assert result.status.code is StatusCode.SUCCESS
    assert names(result.victims) == ["low"]
    assert dict(result.nominations) == {"a": "node1", "b": "node1"}


def test_pg_delay_2_fewer_nominations_than_min_count_is_not_feasible() -> None:
    """PG-DELAY-1 needs a placement of at least minCount pods (FIT-2); one nominated member of
    a gang of two is not one."""
    cluster = units_cluster({"node1": 1, "node2": 1}, [leaving("victim", "node1"), running("low", "node2")])
    preemptor = gang(member("a", 1, "node1"), member("b", 1), min_count=2)
    result = select_podgroup_victims(preemptor, cluster)
    assert result.nomination_feasible is False
    assert names(result.victims) == ["low"]
    assert dict(result.nominations) == {"a": "node1", "b": "node2"}


def test_pg_delay_2_more_important_leaving_pods_are_not_counted() -> None:
    """PG-DELAY-1 counts only in-flight units below the group's priority (the ones it can have
    triggered). node1 (2 units): a LOW victim (1) and a TOP pod (1) someone else is evicting; a
    (2 units) does not fit next to the TOP pod, so the nomination is not feasible. From scratch
    nothing lower is left to remove: Unschedulable, and the nomination is cleared."""
    cluster = units_cluster({"node1": 2}, [leaving("victim", "node1"), leaving("top", "node1", TOP)])
    preemptor = gang(member("a", 2, "node1"))
    result = select_podgroup_victims(preemptor, cluster)
    assert result.nomination_feasible is False
    assert names(result.in_flight) == ["victim"]
    assert result.status.code is StatusCode.UNSCHEDULABLE
    assert dict(result.nominations) == {"a": ""}


def test_pg_delay_2_policy_never_clears_the_nomination() -> None:
    """PG-DELAY-2 then PG-21: starting from scratch, a group whose policy is Never does not
    preempt; its stale nomination is cleared."""
    cluster, _ = _took_the_room()
    preemptor = gang(member("a", 2, "node1"), preemption_policy="Never")
    result = select_podgroup_victims(preemptor, cluster)
    assert result.status.code is StatusCode.UNSCHEDULABLE
    assert dict(result.nominations) == {"a": ""} and result.victims == ()


def test_no_trigger_no_delay() -> None:
    """PG-20's trigger decides: a nomination to a node without a lower-priority pod the scheduler
    is evicting is an ordinary run (``nomination_feasible`` stays None)."""
    cluster = units_cluster({"node1": 1, "node2": 1}, [leaving("victim", "node2"), running("low", "node1")])
    result = select_podgroup_victims(gang(member("a", 1, "node1")), cluster)
    assert result.nomination_feasible is None and result.in_flight == ()
    # An ordinary KEP run: both LOW pods are candidates (PG-11: a leaving pod still is one); a
    # goes to node1, ``low`` (uid "low" < "victim", SCORE-1) cannot be reprieved, the leaving
    # pod on node2 can.
    assert result.status.code is StatusCode.SUCCESS
    assert names(result.victims) == ["low"]
    assert dict(result.nominations) == {"a": "node1"}


# --------------------------------------------------------------------------- kube's own cases


def _pg20_cases() -> list[Any]:
    cases = [
        c
        for c in load_cases("TestPodGroupEvaluator_Preempt")
        if (c.values[0]["expected"]["status"].get("message") or "") == ONGOING
    ]
    assert len(cases) == 2  # the vendored PG-20 cases; a change in the data must be looked at
    return cases


@pytest.mark.parametrize("case", _pg20_cases())
def test_kube_pg20_cases_are_pg_delay_1_cases_in_kep_mode(case: Any) -> None:
    """PG-20's vendored cases (run in ``"kube"`` mode by test_conformance_kube) replayed in
    ``"kep"`` mode: nothing else is in the way, so the nomination is still feasible
    (PG-DELAY-1) and kube-scheduler's expected outcome holds unchanged — without placing."""
    cluster = cluster_of(case)
    result = select_podgroup_victims(
        group_preemptor_of(case["preemptor"]), cluster, mode="kep", placement=placement_of(case)
    )
    expected = case["expected"]
    assert result.status.code.value == expected["status"]["code"]
    assert result.status.message == expected["status"]["message"]
    assert dict(result.nominations) == expected["nominations"]
    assert result.victims == () and result.nomination_feasible is True
    assert names(result.in_flight) == ["victim"]


# --------------------------------------------------------------------------- properties


@st.composite
def delayed_scenarios(draw: st.DrawFn) -> PodGroupScenario:
    """A random scenario (``podgroup_scenarios``) where some running pods are being
    evicted by the scheduler and the members carry nominations. Half of the examples aim at a
    feasible nomination: the first member goes to a node with a lower-priority leaving pod and
    the others to nodes where the oracle says they fit once the leaving units are gone (so
    both PG-DELAY-1 and PG-DELAY-2 are well exercised); the other half nominate at random,
    including to a node that does not exist."""
    sc = draw(podgroup_scenarios(never=False, pods=(0, 14)))
    pods = [
        attrs.evolve(p, terminating=True, disruption_target=True) if draw(st.integers(0, 2)) == 0 else p
        for p in sc.pods
    ]
    sc = attrs.evolve(sc, pods=tuple(pods))
    gone = _oracle_in_flight(sc)
    trigger_nodes = sorted({p.node_name for p in gone if p.preempted_by_scheduler and p.node_name})
    cap = Capacity(sc, [p for p in pods if p not in gone])
    aim = draw(st.booleans())
    members = []
    for i, p in enumerate(sc.preemptor.pods):
        nominated: str | None
        if aim and i == 0 and trigger_nodes:
            nominated = draw(st.sampled_from(trigger_nodes))
        elif aim:
            fitting = [n for n in sorted(n.name for n in sc.nodes) if cap.fits(p, n)]
            nominated = draw(st.sampled_from(fitting)) if fitting else None
        else:
            nominated = draw(st.one_of(st.none(), st.sampled_from(sorted(n.name for n in sc.nodes) + ["gone"])))
        if nominated is not None and nominated in cap.free and cap.fits(p, nominated):
            cap.take(p, nominated)
        members.append(attrs.evolve(p, nominated_node_name=nominated))
    return attrs.evolve(sc, preemptor=PodGroupPreemptor(sc.preemptor.group, members))


def _oracle_in_flight(sc: PodGroupScenario) -> list[Pod]:
    """In-flight pods: every pod of a unit (PG-8) of lower priority with a leaving pod."""
    top = sc.preemptor.group.priority
    keys = {unit_key(sc, p) for p in sc.pods if p.preempted_by_scheduler and pod_priority(sc, p) < top}
    return [p for p in sc.pods if unit_key(sc, p) in keys]


def _oracle_triggered(sc: PodGroupScenario) -> bool:
    """PG-20's trigger: a member nominated to a node with a lower-priority leaving pod."""
    top = sc.preemptor.group.priority
    nominated = {p.nominated_node_name for p in sc.preemptor.pods}
    return any(
        p.preempted_by_scheduler and p.node_name in nominated and pod_priority(sc, p) < top for p in sc.pods
    )


def _oracle_feasible(sc: PodGroupScenario, gone: list[Pod]) -> bool:
    """PG-DELAY-1 with the oracle's own capacity: the nominated members, in order, fit."""
    cap = Capacity(sc, [p for p in sc.pods if p not in gone])
    nominated = [p for p in sc.preemptor.pods if p.nominated_node_name is not None]
    if len(nominated) < sc.preemptor.min_count:
        return False
    for pod in nominated:
        node = pod.nominated_node_name
        if node not in cap.free or not cap.fits(pod, node):
            return False
        cap.take(pod, node)
    return True


@SETTINGS
@given(delayed_scenarios())
def test_property_no_new_victims_while_the_nomination_is_feasible(sc: PodGroupScenario) -> None:
    """PG-DELAY-1 (the brief's invariant): with triggered preemptions in flight, no new victim
    is chosen while the original nomination remains feasible — and feasibility is exactly the
    oracle's. In-flight pods are never victims again (PG-DELAY-2). The cluster is unchanged."""
    cluster = sc.cluster()
    before = cluster.state()
    result = select_podgroup_victims(sc.preemptor, cluster)
    assert cluster.state() == before
    current = {p.name: p.nominated_node_name or "" for p in sc.preemptor.pods}
    if not _oracle_triggered(sc):
        assert result.nomination_feasible is None and result.in_flight == ()
        return
    gone = _oracle_in_flight(sc)
    assert sorted(names(result.in_flight)) == sorted(p.name for p in gone)
    assert not {p.name for p in result.victims} & {p.name for p in gone}
    feasible = _oracle_feasible(sc, gone)
    assert result.nomination_feasible is feasible
    if feasible:
        assert result.victims == ()
        assert result.status.code is StatusCode.SUCCESS
        assert dict(result.nominations) == current
    else:
        assert set(result.nominations) == set(current)  # every member: a node or cleared


@SETTINGS
@given(delayed_scenarios())
def test_property_infeasible_nomination_is_a_fresh_run_without_the_victims(sc: PodGroupScenario) -> None:
    """PG-DELAY-2: the result is the one of a call on the cluster built without the in-flight
    pods, with the members' nominations dropped (unplaced members: cleared)."""
    if not _oracle_triggered(sc):
        return
    gone = _oracle_in_flight(sc)
    if _oracle_feasible(sc, gone):
        return
    result = select_podgroup_victims(sc.preemptor, sc.cluster())
    plain = PodGroupPreemptor(
        sc.preemptor.group, [attrs.evolve(p, nominated_node_name=None) for p in sc.preemptor.pods]
    )
    fresh = select_podgroup_victims(plain, sc.cluster([p for p in sc.pods if p not in gone]))
    assert result.status == fresh.status
    assert names(result.victims) == names(fresh.victims)
    assert result.search_steps == fresh.search_steps
    assert dict(result.nominations) == {p.name: fresh.nominations.get(p.name, "") for p in sc.preemptor.pods}


@SETTINGS
@given(delayed_scenarios())
def test_property_kube_mode_keeps_pg20(sc: PodGroupScenario) -> None:
    """PG-20 in ``"kube"`` mode: whenever the trigger holds, no victim and the current
    nominations re-issued, feasible or not."""
    result = select_podgroup_victims(sc.preemptor, sc.cluster(), mode="kube")
    if _oracle_triggered(sc):
        assert result.victims == () and result.status.message == ONGOING
        assert dict(result.nominations) == {p.name: p.nominated_node_name or "" for p in sc.preemptor.pods}
    assert result.nomination_feasible is None

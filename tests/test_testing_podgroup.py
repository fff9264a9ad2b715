"""kueue_preempt.testing for PodGroup preemption: strategy, checkers with teeth, mutants, knobs.

The library's answers must pass :func:`check_podgroup` (PG-8, PG-21..PG-28, PDB-2..PDB-5,
FIT-1..FIT-3, §9.1) and not depend on the order pods, groups and PDBs are listed in; the
checker must reject at least 80 % of every operator's mutants; at least 30 % of the drawn
scenarios need victims; and each knob narrows what it says.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt.podgroup import (
    DisruptionMode,
    Node,
    NodeFilter,
    Pod,
    PodGroup,
    PodGroupPreemptor,
    PodPreemptionPolicy,
    PreemptionMode,
)
from kueue_preempt.testing.invariants import check_podgroup, check_podgroup_minimality, reference_podgroup
from kueue_preempt.testing.mutations import measure, podgroup_mutants
from kueue_preempt.testing.strategies import MISSING_GROUP, PodGroupScenario, podgroup_scenarios

FEW = settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(podgroup_scenarios(), st.integers(0, 2**16))
def test_library_answers_pass_the_checker_in_any_listing_order(s: PodGroupScenario, seed: int) -> None:
    result = s.decide()
    check_podgroup(s, result)
    # PG-22, SCORE-1: units are a set ordered by importance, so listing order is irrelevant.
    assert s.decide(rng=random.Random(seed)) == result


REQUIRED = ("drop-target", "add-non-target", "wrong-reason")


def test_mutants_are_killed() -> None:
    m = measure(
        podgroup_scenarios(),
        decide=lambda s: s.decide(),
        check=check_podgroup,
        mutants=podgroup_mutants,
        nonempty=lambda r: bool(r.victims),
        examples=200,
    )
    assert m.examples == 200
    assert m.nonempty_share >= 0.30, m.as_dict()
    assert m.discard_rate <= 0.10, m.as_dict()
    for operator in REQUIRED:
        rate = m.rate(operator)
        assert rate.applicable >= 0.3 * m.examples, (operator, m.as_dict())
        assert rate.rate >= 0.8, (operator, rate.survivors)


# --------------------------------------------------------------------------- the reference on PG-30's example


def _e1(mode: str) -> PodGroupScenario:
    """PG-30's example E1: nodes of capacity 1, mid priority on n0, low on n1, a 1-pod group."""
    nodes = (Node("n0", {"units": "1"}), Node("n1", {"units": "1"}))
    pods = (
        Pod("mid", uid="u-mid", priority=20, requests={"units": "1"}, node_name="n0"),
        Pod("low", uid="u-low", priority=10, requests={"units": "1"}, node_name="n1"),
    )
    preemptor = PodGroupPreemptor(PodGroup("g", priority=30), [Pod("p0", requests={"units": "1"})])
    return PodGroupScenario(nodes, pods, (), (), preemptor, PreemptionMode(mode), NodeFilter.UNITS)


@pytest.mark.parametrize(("mode", "victim"), [("kube", "mid"), ("kep", "low")])
def test_reference_reproduces_pg30_example(mode: str, victim: str) -> None:
    s = _e1(mode)
    ref = reference_podgroup(s)
    assert ref is not None and ref.victim_units == (frozenset({victim}),)
    result = s.decide()
    check_podgroup(s, result)
    assert [p.name for p in result.victims] == [victim]


def test_minimality_names_the_rule() -> None:
    s = _e1("kep")
    result = s.decide()
    wrong = next(m for m in podgroup_mutants(s, result) if m.description == "unit Pod//mid added")
    with pytest.raises(AssertionError, match="PG-"):
        check_podgroup_minimality(s, wrong.result)


# --------------------------------------------------------------------------- knobs


@FEW
@given(podgroup_scenarios(mode="kube", node_filter="units"))
def test_mode_and_node_filter_knobs(s: PodGroupScenario) -> None:
    assert s.mode is PreemptionMode.KUBE and s.node_filter is NodeFilter.UNITS
    assert all("units" in n.allocatable and "pods" not in n.allocatable for n in s.nodes)


@FEW
@given(podgroup_scenarios(nodes=(2, 3), pods=(4, 6), preemptor_pods=(2, 2), max_groups=1))
def test_size_knobs(s: PodGroupScenario) -> None:
    assert 2 <= len(s.nodes) <= 3 and 4 <= len(s.pods) <= 6
    assert len(s.preemptor.pods) == 2 and len(s.groups) <= 1


@FEW
@given(podgroup_scenarios(disruption_modes=["All"], priorities=(5,), preemptor_priorities=(7,)))
def test_disruption_mode_and_priority_knobs(s: PodGroupScenario) -> None:
    assert all(g.disruption_mode is DisruptionMode.ALL and g.priority == 5 for g in s.groups)
    assert all(p.priority == 5 for p in s.pods) and s.preemptor.group.priority == 7


@FEW
@given(podgroup_scenarios(pdbs=False, missing_groups=False, never=False, equal_sizes=True, unique_uids=True))
def test_boolean_knobs(s: PodGroupScenario) -> None:
    assert not s.pdbs
    assert all(p.pod_group != MISSING_GROUP for p in s.pods)
    assert s.preemptor.group.preemption_policy is PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY
    assert len({tuple(p.requests.items()) for p in s.preemptor.pods}) == 1
    assert len({p.uid for p in s.pods}) == len(s.pods)


@FEW
@given(podgroup_scenarios(equal_sizes=True, never=False))
def test_equal_sizes_make_the_kep_answer_fixed(s: PodGroupScenario) -> None:
    # §9.1: with members of one size, success is monotone in the freed room.
    ref = reference_podgroup(s)
    assert ref is not None
    assert ref.status is s.decide().status.code


@pytest.mark.parametrize(
    "knobs",
    [
        {"nodes": (3, 2)},
        {"nodes": (0, 0)},
        {"preemptor_pods": (0, 2)},
        {"max_groups": 4},
        {"priorities": ()},
        {"disruption_modes": ()},
        {"node_filter": "none"},
    ],
)
def test_invalid_knobs_are_refused(knobs: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        podgroup_scenarios(**knobs)  # type: ignore[arg-type]

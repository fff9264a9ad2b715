"""kueue_preempt.testing for flavor assignment: strategy, checkers with teeth, mutants (FAS-*)."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt.model import FlavorAssignmentMode
from kueue_preempt.model.flavors import FlavorFungibility, FlavorPreference, FungibilityPolicy
from kueue_preempt import FlavorResource
from kueue_preempt.testing.invariants import AssignmentTree, check_assignment, reference_assignment
from kueue_preempt.testing.mutations import assignment_mutants, measure
from kueue_preempt.testing.strategies import (
    ASSIGNMENT_FLAVORS,
    FUNGIBILITIES,
    PREEMPTIONS,
    UNDECLARED,
    AssignmentScenario,
    assignment_gates,
    assignment_scenarios,
)


@settings(max_examples=200, deadline=None)
@given(assignment_scenarios(), st.integers(0, 2**16))
def test_library_passes_the_checker_and_ignores_input_order(s: AssignmentScenario, seed: int) -> None:
    """The library's decision passes every checker; list order does not matter (FAS-4 order is
    the ClusterQueue's, and the oracle's candidate order is strict)."""
    decision = s.decide()
    check_assignment(s, decision)
    assert s.decide(rng=random.Random(seed)) == decision


def _not_fit(d: object) -> bool:
    return getattr(d, "assignment").mode is not FlavorAssignmentMode.FIT


def test_mutants_are_killed() -> None:
    """Every operator is killed in >= 80% of the scenarios where it applies; few discards."""
    m = measure(
        assignment_scenarios(),
        decide=lambda s: s.decide(),
        check=check_assignment,
        mutants=assignment_mutants,
        nonempty=_not_fit,
        examples=200,
    )
    assert m.discard_rate < 0.15, m.as_dict()
    assert 0.2 <= m.nonempty_share <= 0.8, m.as_dict()  # neither all Fit nor all NoFit/Preempt
    for op, min_applicable in (("wrong-flavor", 60), ("wrong-mode", 180), ("wrong-count", 20)):
        rate = m.rate(op)
        assert rate.applicable >= min_applicable, (op, m.as_dict())
        assert rate.rate >= 0.8, (op, rate)


@settings(max_examples=30, deadline=None)
@given(assignment_scenarios(min_flavors=2, max_flavors=2, gpu_group=False))
def test_knob_flavors(s: AssignmentScenario) -> None:
    (group,) = s.queue.resource_groups
    assert group.flavor_names == ASSIGNMENT_FLAVORS[:2]


_PREFERRING = FlavorFungibility(
    when_can_borrow=FungibilityPolicy.TRY_NEXT_FLAVOR,
    when_can_preempt=FungibilityPolicy.TRY_NEXT_FLAVOR,
    preference=FlavorPreference.PREEMPTION_OVER_BORROWING,
)


@settings(max_examples=20, deadline=None)
@given(assignment_scenarios(fungibility=_PREFERRING), assignment_scenarios(fungibility=st.sampled_from(FUNGIBILITIES[:2])))
def test_knob_fungibility(s: AssignmentScenario, t: AssignmentScenario) -> None:
    assert s.queue.flavor_fungibility == _PREFERRING
    assert t.queue.flavor_fungibility in FUNGIBILITIES[:2]


@settings(max_examples=30, deadline=None)
@given(assignment_scenarios(partial_admission=True), assignment_scenarios(partial_admission=False))
def test_knob_partial_admission(s: AssignmentScenario, t: AssignmentScenario) -> None:
    assert s.gates.partial_admission
    assert any(ps.min_count is not None and ps.min_count < ps.count for ps in s.workload.spec_pod_sets)
    assert all(ps.min_count is None for ps in t.workload.spec_pod_sets)


@settings(max_examples=30, deadline=None)
@given(assignment_scenarios(borrowing=True), assignment_scenarios(borrowing=False))
def test_knob_borrowing(s: AssignmentScenario, t: AssignmentScenario) -> None:
    assert s.queue.cohort == "co" and len(s.cluster_queues) in (3, 4)
    assert all(cq.cohort is None for cq in t.cluster_queues)
    assert reference_assignment(t).assignment.borrowing == 0  # no parent, level 0
    assert t.decide().assignment.borrowing == 0


@settings(max_examples=20, deadline=None)
@given(assignment_scenarios(preemption=PREEMPTIONS[0], borrowing=False))
def test_knob_preemption(s: AssignmentScenario) -> None:
    """Without a cohort and with every policy Never, nothing is ever preempted (FA-6)."""
    assert s.queue.preemption == PREEMPTIONS[0]
    assert not s.decide().targets


@settings(max_examples=20, deadline=None)
@given(assignment_scenarios(gates=assignment_gates(flavor_fungibility=False)))
def test_knob_gates(s: AssignmentScenario) -> None:
    """FAS-11: with the gate off every tried_flavor_idx is 0."""
    assert not s.gates.flavor_fungibility
    a = s.decide().assignment
    assert all(c.tried_flavor_idx == 0 for ps in a.pod_sets for c in ps.flavors.values())


@settings(max_examples=20, deadline=None)
@given(assignment_scenarios(selectors=False, undeclared=False))
def test_knob_selectors(s: AssignmentScenario) -> None:
    """Plain flavors and pod sets: no flavor is ever skipped (FAS-5), so no NoMatchingFlavor
    (FAS-24; an uncovered request would give one, hence ``undeclared=False``)."""
    assert all(not rf.node_taints and not rf.node_labels for rf in s.resource_flavors)
    assert s.decide().assignment.no_fit_reason != "NoMatchingFlavor"


@settings(max_examples=40, deadline=None)
@given(assignment_scenarios(borrowing=True), st.integers(0, 12))
def test_quota_model_agrees_with_the_snapshot(s: AssignmentScenario, v: int) -> None:
    """The checkers' AssignmentTree (Q-9, Q-10, Q-16) and the library's public snapshot agree,
    so a checker failure points at the assigner, not at two quota models drifting apart."""
    tree = AssignmentTree(s, s.workloads)
    snapshot = s.snapshot()
    node = snapshot.cluster_queue(s.cluster_queue)
    for fr in s.queue.quotas:
        fr = FlavorResource(fr.flavor, fr.resource)
        assert tree.available(("cq", s.cluster_queue), fr) == snapshot.available(node, fr)
        assert tree.pot(("cq", s.cluster_queue), fr) == snapshot.potential_available(node, fr)
        assert tree.lowest_fitting_height(s.cluster_queue, fr, v) == snapshot.lowest_fitting_height(node, fr, v)


@settings(max_examples=20, deadline=None)
@given(assignment_scenarios(pods=True, undeclared=True, reclaimable=True), assignment_scenarios(pods=False, undeclared=False, reclaimable=False))
def test_knobs_pods_undeclared_reclaimable(s: AssignmentScenario, t: AssignmentScenario) -> None:
    """``pods`` covered (FAS-1), an uncovered request (FAS-3), reclaimable pods (FAS-1a) — or none."""
    assert "pods" in s.queue.resource_groups[0].covered_resources
    assert UNDECLARED in s.workload.spec_pod_sets[0].requests
    assert "ps0" in s.workload.reclaimable_pods
    assert all("pods" not in g.covered_resources for g in t.queue.resource_groups)
    assert all(UNDECLARED not in ps.requests for ps in t.workload.spec_pod_sets)
    assert not t.workload.reclaimable_pods
    for ps in s.decide().assignment.pod_sets:
        assert ps.requests["pods"] == ps.count and UNDECLARED not in ps.flavors


@settings(max_examples=20, deadline=None)
@given(assignment_scenarios(pod_set_groups=True, max_pod_sets=3), assignment_scenarios(pod_set_groups=False))
def test_knob_pod_set_groups(s: AssignmentScenario, t: AssignmentScenario) -> None:
    """FAS-18: the first and last pod sets form one group, assigned together (same flavors)."""
    specs = s.workload.spec_pod_sets
    assert len(specs) >= 2 and specs[0].pod_set_group == specs[-1].pod_set_group == "grp"
    assert all(ps.pod_set_group is None for ps in t.workload.spec_pod_sets)
    a = s.decide().assignment
    grouped = [ps for ps in a.pod_sets if ps.spec_index in (0, len(specs) - 1)]
    if len(grouped) == 2:
        assert a.pod_sets.index(grouped[1]) == a.pod_sets.index(grouped[0]) + 1  # members consecutive
        first, last = grouped
        assert all(first.flavors[r] == last.flavors[r] for r in set(first.flavors) & set(last.flavors))


@settings(max_examples=20, deadline=None)
@given(assignment_scenarios(borrowing=True, nested=True), assignment_scenarios(nested=False))
def test_knob_nested(s: AssignmentScenario, t: AssignmentScenario) -> None:
    """Two cohort levels: co under root beside q3 (Q-15 heights), or at most one cohort."""
    assert {(c.name, c.parent) for c in s.cohorts} == {("co", "root"), ("root", None)}
    assert {cq.name: cq.cohort for cq in s.cluster_queues}["q3"] == "root"
    assert not t.cohorts and all(cq.cohort in (None, "co") for cq in t.cluster_queues)

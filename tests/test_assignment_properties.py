"""Property tests of the flavor assigner: placement safety and determinism (FAS-5, FAS-19).

Scenarios come from :func:`kueue_preempt.testing.strategies.assignment_scenarios`; the
reference taint and selector matchers are :mod:`kueue_preempt.testing.invariants`'
transcriptions of FAS-5/FAS-5b.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import assign_flavors
from kueue_preempt.assignment import GranularMode, PreemptionMode, is_preferred
from kueue_preempt.model.flavors import FlavorPreference
from kueue_preempt.testing.invariants import check_usable_flavors, reference_selected, reference_tolerated
from kueue_preempt.testing.strategies import AssignmentScenario, assignment_scenarios


@settings(max_examples=80, deadline=None)
@given(assignment_scenarios(max_pod_sets=3))
def test_assignment_only_names_usable_flavors(s: AssignmentScenario) -> None:
    """FAS-5: a chosen flavor's taints are all tolerated and its labels match the selector."""
    a = assign_flavors(s.workload, s.cluster_queue, s.snapshot(), s.resource_flavors, now=s.now)
    by_name = {rf.name: rf for rf in s.resource_flavors}
    for ps in a.pod_sets:
        spec = s.workload.spec_pod_sets[ps.spec_index]
        for choice in ps.flavors.values():
            rf = by_name[choice.flavor]
            assert reference_tolerated(rf.node_taints, [*spec.tolerations, *rf.tolerations])
            assert reference_selected(spec.node_selector, spec.required_node_affinity, rf.node_labels)
    check_usable_flavors(s, s.decide())


@settings(max_examples=60, deadline=None)
@given(assignment_scenarios(borrowing=True), st.integers(0, 2**16))
def test_result_is_deterministic_and_order_independent(s: AssignmentScenario, seed: int) -> None:
    """Same inputs -> same assignment, whatever the order of unrelated ClusterQueues, workloads
    or ResourceFlavors.

    Uses the default oracle (FA-6 through get_targets), so candidate order matters for real.
    """
    rng = random.Random(seed)
    flavors = list(s.resource_flavors)
    first = assign_flavors(s.workload, s.cluster_queue, s.snapshot(), flavors, now=s.now)
    again = assign_flavors(s.workload, s.cluster_queue, s.snapshot(), flavors, now=s.now)
    shuffled = assign_flavors(s.workload, s.cluster_queue, s.snapshot(rng), list(reversed(flavors)), now=s.now)
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

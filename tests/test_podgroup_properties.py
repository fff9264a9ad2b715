"""Property tests of PodGroup preemption (PG-7, PG-8, PG-20..PG-30, FIT-1..FIT-3, §9.1).

Small random clusters (1-5 nodes, up to 14 running pods, PodGroups in ``Single`` and ``All``
mode, missing groups, PDBs) and a pending group, drawn by
:func:`kueue_preempt.testing.strategies.podgroup_scenarios`. The expected facts come from the
independent model of :mod:`kueue_preempt.testing.invariants.podgroup` — its own effective
priority (PG-7), units (PG-8), fit rule (FIT-1 / the ``units`` model) and round-robin
placement (FIT-3) — not from the library's helpers.

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

import attrs
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from kueue_preempt.podgroup import (
    DisruptionMode,
    NodeFilter,
    PodGroupPreemptionResult,
    PreemptionMode,
    SearchStrategy,
    StatusCode,
    select_podgroup_victims,
)
from kueue_preempt.testing.invariants.podgroup import (
    check_podgroup_fits_after_removal,
    check_podgroup_minimality,
    check_podgroup_victim_units,
    oracle_levels,
    pod_priority,
    preemptor_priority,
)
from kueue_preempt.testing.strategies.podgroup import PodGroupScenario, podgroup_scenarios

SETTINGS = settings(
    max_examples=250,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# The search properties read the library's search trace, so the group must reach the search:
# no ``preemptionPolicy: Never`` (PG-21). Zero running pods are kept (no levels at all).
KEP = podgroup_scenarios(mode="kep", never=False, pods=(0, 14))
BOTH = podgroup_scenarios(never=False, pods=(0, 14))


def _equal_sizes(sc: PodGroupScenario) -> bool:
    return len({tuple(p.requests.items()) for p in sc.preemptor.pods}) == 1


def victim_names(result: PodGroupPreemptionResult) -> set[str]:
    return {p.name for p in result.victims}


# --------------------------------------------------------------------------- properties


@SETTINGS
@given(KEP)
def test_binary_search_finds_the_linear_scan_level(sc: PodGroupScenario) -> None:
    """§9.1: binary search = linear scan when success is monotone; the search invariant always."""
    levels = oracle_levels(sc)
    successes = [ok for _, ok in levels]
    monotone = successes == sorted(successes)
    event(f"levels={len(levels)} monotone={monotone} equal_sizes={_equal_sizes(sc)}")
    if _equal_sizes(sc):
        assert monotone, "equal-size pods make success monotone in freed capacity"
    linear_n = next((lvl for lvl, ok in levels if ok), None)
    cluster = sc.cluster()
    before = cluster.state()
    binary = select_podgroup_victims(sc.preemptor, cluster, mode="kep")
    linear = select_podgroup_victims(sc.preemptor, cluster, mode="kep", search="linear")
    assert cluster.state() == before
    assert binary == sc.decide()
    # The library's linear mode is exactly the oracle's scan.
    assert linear.priority_threshold == linear_n
    assert (linear.status.code is StatusCode.SUCCESS) == (linear_n is not None)
    if not levels:
        assert binary.status.code is StatusCode.UNSCHEDULABLE and binary.placements == 0
        return
    # The lowest level the capacity bound allows, then a real binary search of the rest: at
    # most 1 + ceil(log2(k)) placements (decisions (perf-a), (perf-e)).
    assert binary.placements == len(binary.search_steps) <= 1 + math.ceil(math.log2(len(levels)))
    ok = dict(levels)
    first = binary.search_steps[0].priority
    event(f"bound skipped levels={first != levels[0][0]}")
    if sc.node_filter is not NodeFilter.RESOURCE_FIT:
        assert first == levels[0][0], "no FIT-1 bound: the lowest level is probed first"
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
@given(KEP)
def test_exponential_search_finds_the_linear_scan_level(sc: PodGroupScenario) -> None:
    """§9.1, ``search="exponential"``: same guarantees, at most 2*ceil(log2(k+1)) placements."""
    levels = oracle_levels(sc)
    ok = dict(levels)
    successes = [s for _, s in levels]
    result = attrs.evolve(sc, search=SearchStrategy.EXPONENTIAL).decide()
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
@given(BOTH)
def test_victims_have_lower_priority(sc: PodGroupScenario) -> None:
    """PG-23, §9.11: every victim is strictly below the preemptor (kep: at most N)."""
    result = sc.decide()
    top = preemptor_priority(sc)
    for victim in result.victims:
        assert pod_priority(sc, victim) < top
        if sc.mode is PreemptionMode.KEP:
            assert result.priority_threshold is not None
            assert pod_priority(sc, victim) <= result.priority_threshold
    event(f"{sc.mode}: {result.status.code.value}, {len(result.victims)} victims")


@SETTINGS
@given(BOTH)
def test_all_mode_groups_are_all_or_nothing(sc: PodGroupScenario) -> None:
    """PG-8, PDB-3: an ``All`` group is preempted whole or not at all, on every node."""
    result = sc.decide()
    check_podgroup_victim_units(sc, result)
    victims = victim_names(result)
    for g in sc.groups:
        members = {p.name for p in sc.pods if p.pod_group == g.name}
        if g.disruption_mode is DisruptionMode.ALL and members & victims:
            event("an All group was preempted")


@SETTINGS
@given(BOTH)
def test_placed_pods_fit_once_victims_are_removed(sc: PodGroupScenario) -> None:
    """PG-26..PG-28: replaying the nominations on the cluster minus the victims succeeds."""
    result = sc.decide()
    check_podgroup_fits_after_removal(sc, result)
    if result.status.code is StatusCode.SUCCESS:
        event(f"{sc.mode}: placement verified with {len(result.victims)} victims")


@SETTINGS
@given(BOTH)
def test_no_victim_unit_can_be_reprieved(sc: PodGroupScenario) -> None:
    """PG-27: putting any single victim unit back breaks the nominated placement."""
    result = sc.decide()
    check_podgroup_minimality(sc, result)
    event(f"{sc.mode}: {len(result.victim_units)} victim units checked")


@SETTINGS
@given(BOTH, st.integers(0, 2**16))
def test_deterministic_and_independent_of_pod_order(sc: PodGroupScenario, seed: int) -> None:
    """Same input twice -> same result; a permuted pod list -> same victims and nominations."""
    first = sc.decide()
    again = sc.decide()
    assert first == again
    permuted = sc.decide(rng=random.Random(seed))
    assert permuted.status == first.status
    assert victim_names(permuted) == victim_names(first)
    assert [p.name for p in permuted.victims] == [p.name for p in first.victims]
    assert dict(permuted.nominations) == dict(first.nominations)
    assert permuted.search_steps == first.search_steps

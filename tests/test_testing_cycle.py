"""kueue_preempt.testing for the scheduling cycle: strategy, checkers (SC-*) and their teeth."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import PreemptionPolicy
from kueue_preempt.cycle import CycleResult, Outcome, QueueingStrategy
from kueue_preempt.testing.invariants import check_cycle, reference_cycle
from kueue_preempt.testing.mutations import cycle_mutants, measure
from kueue_preempt.testing.strategies import CycleScenario, cycle_scenarios


@settings(max_examples=120, deadline=None)
@given(cycle_scenarios(), st.integers(0, 2**32 - 1))
def test_library_cycle_passes_the_checkers_and_ignores_listing_order(s: CycleScenario, seed: int) -> None:
    """check_cycle accepts the library's cycle; SC-SIM-11: the listing order of every object
    list changes nothing."""
    result = s.decide()
    check_cycle(s, result)
    assert s.decide(rng=random.Random(seed)) == result


def _nonempty(r: CycleResult) -> bool:
    return bool(r.admitted or r.preempted)


def test_mutants_are_killed() -> None:
    m = measure(
        cycle_scenarios(),
        decide=lambda s: s.decide(),
        check=check_cycle,
        mutants=cycle_mutants,
        nonempty=_nonempty,
        examples=150,
    )
    assert m.discard_rate <= 0.2, m.as_dict()
    assert m.nonempty_share >= 0.4, m.as_dict()  # cycles that admit or preempt something
    for op, least in (("wrong-admitted-set", 100), ("swap-order", 8), ("wrong-flavor", 20)):
        rate = m.rate(op)
        assert rate.applicable >= least, (op, m.as_dict())
        assert rate.rate >= 0.8, (op, rate)


def test_preemption_is_exercised() -> None:
    """Some drawn cycles preempt; with preemption=True more of them do."""
    m = measure(
        cycle_scenarios(preemption=True),
        decide=lambda s: s.decide(),
        check=check_cycle,
        mutants=cycle_mutants,
        nonempty=lambda r: bool(r.preempted),
        examples=60,
    )
    assert m.nonempty_share >= 0.1, m.as_dict()


@settings(max_examples=40, deadline=None)
@given(cycle_scenarios(queues=(2, 3), cohorts=(1, 1), pending_per_queue=(2, 2)))
def test_size_knobs(s: CycleScenario) -> None:
    cluster = s.cluster
    assert 2 <= len(cluster.cluster_queues) <= 3
    assert [c.name for c in cluster.cohorts if c.parent is None] in ([], ["co0"])
    assert {cq.cohort for cq in cluster.cluster_queues} <= {None, "co0", "co0a"}
    pending = [w for w in cluster.workloads if not w.cluster_queue]
    assert len(pending) == 2 * len(cluster.cluster_queues)
    assert len(s.decide().heads) == len(cluster.cluster_queues)


@settings(max_examples=30, deadline=None)
@given(cycle_scenarios(cohorts=(0, 0)))
def test_no_cohorts_knob(s: CycleScenario) -> None:
    assert not s.cluster.cohorts and all(cq.cohort is None for cq in s.cluster.cluster_queues)


@settings(max_examples=30, deadline=None)
@given(cycle_scenarios(queueing_strategy="StrictFIFO", fair_sharing=True))
def test_strategy_and_fair_sharing_knobs(s: CycleScenario) -> None:
    assert s.config.fair_sharing
    assert all(
        s.cluster.settings(cq.name).queueing_strategy is QueueingStrategy.STRICT_FIFO for cq in s.cluster.cluster_queues
    )


@settings(max_examples=30, deadline=None)
@given(cycle_scenarios(queueing_strategy=QueueingStrategy.BEST_EFFORT_FIFO, fair_sharing=False, preemption=True))
def test_preemption_on_knob(s: CycleScenario) -> None:
    assert not s.config.fair_sharing
    for cq in s.cluster.cluster_queues:
        assert s.cluster.settings(cq.name).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO
        p = cq.preemption
        assert (p.within_cluster_queue, p.reclaim_within_cohort) != (PreemptionPolicy.NEVER, PreemptionPolicy.NEVER)


@settings(max_examples=30, deadline=None)
@given(cycle_scenarios(fair_sharing=False, preemption=False))
def test_no_preemption_knob(s: CycleScenario) -> None:
    """With every policy Never no cycle preempts, and the reference fixes the whole cycle."""
    assert not s.config.fair_sharing
    result = s.decide()
    assert not result.preempted
    assert all(r.outcome is not Outcome.PREEMPTING for r in result.results)
    assert reference_cycle(s) is not None

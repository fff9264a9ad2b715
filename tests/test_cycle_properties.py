"""Property tests of the scheduling cycle on generated clusters (``kueue_preempt.testing``'s
``clusters()`` / ``cycle_scenarios()``; the spec checkers themselves run in test_testing_cycle.py).

* Q-14 / SC-PE-1: within one cycle every admission fits the cycle's snapshot with this cycle's
  preemption victims removed (admissions replayed in processing order).
* SC-SIM-11: the result does not depend on the order in which ClusterQueues, cohorts or
  workloads are listed.
* SC-T-3 / SC-SIM-13.5: cycles run until stable terminate within the cap or report a livelock.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import Snapshot
from kueue_preempt.cycle import ClusterState, CycleConfig, CycleResult, Outcome, run_cycles, schedule_cycle
from kueue_preempt.testing.strategies import CYCLE_NOW, CycleScenario, clusters, cycle_configs, cycle_scenarios


@settings(max_examples=150, deadline=None)
@given(cycle_scenarios())
def test_admissions_fit_with_victims_removed(s: CycleScenario) -> None:
    """Q-14, SC-PE-1: replaying the cycle's admissions in processing order on the cycle-start
    snapshot minus this cycle's victims, each admission fits when it is made (the library's own
    Snapshot; kueue_preempt.testing's check_admissions_fit does the same on an independent model)."""
    cluster = s.cluster
    result = s.decide()
    victims = {t.workload.key for t in result.preempted}
    start = [w for w in cluster.workloads if w.cluster_queue and w.key not in victims]
    snap = Snapshot(cluster.cluster_queues, cluster.cohorts, start)
    after = {w.key: w for w in result.cluster.workloads}
    for r in result.results:
        if r.outcome is not Outcome.ADMITTED:
            continue
        w = after[r.key]
        node = snap.cluster_queue(w.cluster_queue)
        assert snap.fits(node, w.usage, allow_borrowing=True), r.key
        snap.add_workload(w)


@settings(max_examples=100, deadline=None)
@given(cycle_scenarios(), st.integers(0, 2**32 - 1))
def test_listing_order_does_not_matter(s: CycleScenario, seed: int) -> None:
    """SC-SIM-11: ClusterQueues, cohorts, flavors, LocalQueues and workloads listed in another
    order, same cycle (results, events, metrics, queue memory and workload objects)."""
    a = s.decide()
    b = s.decide(rng=random.Random(seed))
    assert isinstance(b, CycleResult)
    assert a == b


@settings(max_examples=100, deadline=None)
@given(clusters(), cycle_configs())
def test_until_stable_terminates_or_reports_livelock(cluster: ClusterState, config: CycleConfig) -> None:
    """SC-T-3, SC-SIM-13.5: the run ends stable within the cap, or says it hit the cap."""
    run = run_cycles(cluster, None, config, CYCLE_NOW, until_stable=True)
    assert len(run.cycles) <= run.cap
    assert run.stable != run.livelock
    if run.stable:
        # One more cycle changes nothing: no admission, no preemption.
        again = schedule_cycle(run.cluster, run.queues, config=config, now=CYCLE_NOW)
        assert not again.admitted and not again.preempted

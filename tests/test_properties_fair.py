"""Hypothesis properties of fair-sharing preemption.

The scenarios come from :func:`kueue_preempt.testing.strategies.fair_scenarios` and the checks
from :mod:`kueue_preempt.testing.invariants.fair`, which re-implements the DRS (FS-DRS-1, with
its own Q-10 potential available), the almost-LCA (FS-LCA-1) and the strategies
(FS-STRAT-1/2) from the spec. The first property replays the order in which the decision took
its victims (read from the decision trace) and checks each one against the strategy that took
it.
"""

from __future__ import annotations

import math
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt import DecisionTrace, get_targets
from kueue_preempt.preemption import Verdict
from kueue_preempt.snapshot import dominant_resource_share
from kueue_preempt.testing.invariants import (
    SpecTree,
    check_fair_fits_after_removal,
    check_fair_minimality,
    check_fair_strategy_steps,
    drs,
)
from kueue_preempt.testing.strategies import FairScenario, fair_scenarios

SETTINGS = settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def _keys(s: FairScenario, rng: random.Random | None = None) -> list[tuple[str, str]]:
    return [(t.workload.key, t.reason.value) for t in s.decide(rng=rng)]


@SETTINGS
@given(fair_scenarios())
def test_every_target_satisfies_the_strategy_that_took_it(s: FairScenario) -> None:
    """FS-STRAT-1/2, FS-NOM-1, FS-RUN-2 replayed independently on the trace's removal order."""
    trace = DecisionTrace()
    result = s.decide(trace=trace)
    taken = [(e.workload, e.rule) for e in trace if e.verdict is Verdict.TAKEN and e.workload is not None]
    check_fair_strategy_steps(s, taken)
    assert {t.workload.key for t in result} <= {key for key, _ in taken}


@SETTINGS
@given(fair_scenarios())
def test_fits_after_removal_and_minimal(s: FairScenario) -> None:
    """GT-4/FB-2: the preemptor fits once the targets are gone, and each one is needed."""
    targets = s.decide()
    check_fair_fits_after_removal(s, targets)
    check_fair_minimality(s, targets)


@SETTINGS
@given(fair_scenarios(), st.randoms(use_true_random=False))
def test_deterministic_and_input_order_independent(s: FairScenario, rnd: random.Random) -> None:
    """Same targets and reasons for any order of the input lists; snapshot unchanged (GT-3)."""
    snap = s.snapshot()
    before = snap.state()
    first = get_targets(s.preemptor, s.cluster_queue, s.assignment, snap, config=s.config, now=s.now)
    assert snap.state() == before
    assert _keys(s) == [(t.workload.key, t.reason.value) for t in first]
    assert sorted(_keys(s, rnd)) == sorted(_keys(s))


@SETTINGS
@given(fair_scenarios(), st.integers(0, 5), st.integers(0, 5))
def test_drs_zero_when_not_borrowing_and_monotone_in_usage(s: FairScenario, extra1: int, extra2: int) -> None:
    """FS-DRS-1/2: a ClusterQueue that is not borrowing has share 0; more usage never lowers it;
    the library's share equals the spec's (FS-DRS-1..3, computed independently)."""
    snap = s.snapshot()
    tree = SpecTree(s, s.workloads)
    for name in snap.cluster_queues:
        node = snap.cluster_queue(name)
        share = dominant_resource_share(snap, node)
        spec = drs(s, tree, ("cq", name))
        assert (share.borrowing, share.ratio, share.precise) == (spec.borrowing, spec.ratio, spec.weighted())
        if not any(node.usage.get(fr, 0) > q for fr, q in node.subtree_quota.items()):
            assert not share.borrowing and share.precise == 0
        for fr in node.subtree_quota:
            low = dominant_resource_share(snap, node, {fr: min(extra1, extra2)})
            high = dominant_resource_share(snap, node, {fr: max(extra1, extra2)})
            assert low.precise <= high.precise or math.isinf(high.precise)

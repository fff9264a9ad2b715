"""Hypothesis properties of fair-sharing preemption (issue 3).

The strategy check is independent of the implementation: the test re-implements the DRS
(FS-DRS-1, with its own Q-10 potential-available), the almost-LCA (FS-LCA-1) and the two
strategies (FS-STRAT-1/2), then replays the order in which the decision took its victims
(read from the decision trace) and checks each one against the strategy that took it.
"""

from __future__ import annotations

import dataclasses
import math
import random

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt import DecisionTrace, FairSharingConfig, FlavorResource, PreemptionConfig, Snapshot, get_targets
from kueue_preempt.preemption import Verdict
from kueue_preempt.snapshot import dominant_resource_share
from kueue_preempt.snapshot.quota import QuotaNode
from kueue_preempt.testing.strategies import Scenario, scenarios

SETTINGS = settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)
STRATEGY_LISTS = [
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
    ("LessThanOrEqualToFinalShare",),
    ("LessThanInitialShare",),
]


@st.composite
def fair_scenarios(draw: st.DrawFn) -> Scenario:
    """Classic scenarios re-weighted (weights 0, 0.5, 1, 2) and run under fair sharing."""
    base = draw(scenarios(reclaim_focus=True, unique_uids=True))
    weights = [0.0, 0.5, 1.0, 2.0]
    queues = [attrs.evolve(q, fair_weight=draw(st.sampled_from(weights))) for q in base.cluster_queues]
    cohorts = [attrs.evolve(c, fair_weight=draw(st.sampled_from(weights))) for c in base.cohorts]
    strategies = draw(st.sampled_from(STRATEGY_LISTS))
    config = PreemptionConfig(
        fair_sharing=FairSharingConfig(preemption_strategies=strategies),
        priority_boost=base.config.priority_boost,
        fair_sharing_preempt_within_nominal=draw(st.booleans()),
    )
    return dataclasses.replace(base, cluster_queues=queues, cohorts=cohorts, config=config)


# ----------------------------------------------------------------- independent DRS (FS-DRS-1)


def _pot(node: QuotaNode, fr: FlavorResource) -> int:
    """Q-10, written from the spec: LQ + parent's potential, capped by SQ + BL."""
    if node.parent is None:
        return node.subtree_quota.get(fr, 0)
    a = node.local_quota.get(fr, 0) + _pot(node.parent, fr)
    bl = node.borrowing_limit.get(fr)
    if bl is not None:
        a = min(a, node.subtree_quota.get(fr, 0) + bl)
    return a


def _drs(node: QuotaNode) -> tuple[float, float, bool]:
    """(ratio, weight, borrowing) per FS-DRS-1."""
    weight = node.fair_weight
    if node.parent is None:
        return 0.0, weight, False
    borrowed: dict[str, int] = {}
    for fr, sq in node.subtree_quota.items():
        over = node.usage.get(fr, 0) - sq
        if over > 0:
            borrowed[fr.resource] = borrowed.get(fr.resource, 0) + over
    if not borrowed:
        return 0.0, weight, False
    root = node.path[-1]
    ratio = 0.0
    for resource, amount in borrowed.items():
        lendable = sum(_pot(node.parent, fr) for fr in root.subtree_quota if fr.resource == resource)
        if lendable > 0:
            ratio = max(ratio, float(amount) * 1000.0 / float(lendable))
    return ratio, weight, True


def _cmp(a: tuple[float, float, bool], b: tuple[float, float, bool]) -> int:
    """FS-DRS-4: zero-weight borrowers are +inf and compare among themselves by ratio."""
    za, zb = a[1] == 0 and a[0] != 0, b[1] == 0 and b[0] != 0
    if za and zb:
        x, y = a[0], b[0]
    elif za or zb:
        return 1 if za else -1
    else:
        x = 0.0 if a[0] == 0 else a[0] / a[1]
        y = 0.0 if b[0] == 0 else b[0] / b[1]
    return (x > y) - (x < y)


def _almost(target: QuotaNode, preemptor: QuotaNode) -> tuple[QuotaNode, QuotaNode]:
    """FS-LCA-1: the children of the lowest common ancestor on each side."""
    p_side = list(preemptor.path)
    t_side = list(target.path)
    for i in range(1, len(t_side)):
        if t_side[i] in p_side:
            return p_side[p_side.index(t_side[i]) - 1], t_side[i - 1]
    raise AssertionError("no common ancestor")


# ----------------------------------------------------------------- properties


def _decide(s: Scenario, snap: Snapshot, trace: DecisionTrace | None = None) -> list[tuple[str, str]]:
    targets = get_targets(s.preemptor, s.cluster_queue, s.assignment, snap, config=s.config, now=s.now, trace=trace)
    return [(t.workload.key, t.reason.value) for t in targets]


@SETTINGS
@given(fair_scenarios())
def test_every_target_satisfies_the_strategy_that_took_it(s: Scenario) -> None:
    """FS-STRAT-1/2, FS-NOM-1, FS-RUN-2 replayed independently on the trace's removal order."""
    trace = DecisionTrace()
    result = _decide(s, s.snapshot(), trace)
    snap = s.snapshot()
    by_key = {w.key: w for w in snap.workloads()}
    preemptor_q = snap.cluster_queue(s.cluster_queue)
    snap.add_usage(preemptor_q, s.assignment.requests)  # FS-RUN-1: shares include the preemptor
    within_nominal = all(
        preemptor_q.usage.get(fr, 0) <= preemptor_q.subtree_quota.get(fr, 0) for fr in s.assignment.preempt
    )
    for event in trace:
        if event.verdict is not Verdict.TAKEN:
            continue
        assert event.workload is not None
        w = by_key[event.workload]
        target_q = snap.cluster_queue(w.cluster_queue)
        if event.rule == "FS-RUN-2":
            assert target_q is preemptor_q
        elif event.rule == "FS-NOM-1":
            assert within_nominal and s.config.fair_sharing_preempt_within_nominal
        else:
            p_almost, t_almost = _almost(target_q, preemptor_q)
            p_new, t_old = _drs(p_almost), _drs(t_almost)
            snap.remove_usage(target_q, w.usage)
            t_new = _drs(t_almost)
            snap.add_usage(target_q, w.usage)
            if event.rule == "FS-STRAT-1":
                assert _cmp(p_new, t_new) <= 0
            else:
                assert event.rule == "FS-STRAT-2"
                assert _cmp(p_new, t_old) < 0
        snap.remove_workload(w)
    taken = {e.workload for e in trace if e.verdict is Verdict.TAKEN}
    assert {key for key, _ in result} <= taken


@SETTINGS
@given(fair_scenarios())
def test_fits_after_removal_and_minimal(s: Scenario) -> None:
    """GT-4/FB-2: the preemptor fits once the targets are gone, and each one is needed."""
    result = _decide(s, s.snapshot())
    if not result:
        return
    snap = s.snapshot()
    by_key = {w.key: w for w in snap.workloads()}
    queue = snap.cluster_queue(s.cluster_queue)
    for key, _ in result:
        snap.remove_workload(by_key[key])
    assert snap.fits(queue, s.assignment.requests, allow_borrowing=True)
    for key, _ in result:
        snap.add_workload(by_key[key])
        assert not snap.fits(queue, s.assignment.requests, allow_borrowing=True), key
        snap.remove_workload(by_key[key])


@SETTINGS
@given(fair_scenarios(), st.randoms(use_true_random=False))
def test_deterministic_and_input_order_independent(s: Scenario, rnd: random.Random) -> None:
    """Same targets and reasons for any order of the input lists; snapshot unchanged (GT-3)."""
    snap = s.snapshot()
    before = snap.state()
    first = _decide(s, snap)
    assert snap.state() == before
    assert _decide(s, snap) == first
    shuffled = [list(x) for x in (s.workloads, s.cluster_queues, s.cohorts)]
    for lst in shuffled:
        rnd.shuffle(lst)
    other = s.snapshot(workloads=shuffled[0], cluster_queues=shuffled[1], cohorts=shuffled[2])  # type: ignore[arg-type]
    assert sorted(_decide(s, other)) == sorted(first)


@SETTINGS
@given(fair_scenarios(), st.integers(0, 5), st.integers(0, 5))
def test_drs_zero_when_not_borrowing_and_monotone_in_usage(s: Scenario, extra1: int, extra2: int) -> None:
    """FS-DRS-1/2: a ClusterQueue that is not borrowing has share 0; more usage never lowers it."""
    snap = s.snapshot()
    for name in snap.cluster_queues:
        node = snap.cluster_queue(name)
        drs = dominant_resource_share(snap, node)
        if not any(node.usage.get(fr, 0) > q for fr, q in node.subtree_quota.items()):
            assert not drs.borrowing and drs.precise == 0
        for fr in node.subtree_quota:
            low = dominant_resource_share(snap, node, {fr: min(extra1, extra2)})
            high = dominant_resource_share(snap, node, {fr: max(extra1, extra2)})
            assert low.precise <= high.precise or math.isinf(high.precise)

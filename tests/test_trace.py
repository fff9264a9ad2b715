"""Decision traces: every step names its rule, and tracing never changes the decision."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import pytest

from kueue_preempt import (
    Assignment,
    Cohort,
    DecisionTrace,
    FairSharingConfig,
    FlavorResource,
    PreemptionConfig,
    Snapshot,
    Workload,
    get_targets,
)
from kueue_preempt.preemption import Verdict
from builders import cpu_queue, cpu_workload
from kueue_cases import CASES_DIR, config_of, incoming_of, load_cases, now_of, snapshot_of

CPU = FlavorResource("default", "cpu")
NOW = datetime(2026, 1, 1, 12, tzinfo=timezone.utc)

TARGET_CASES = [
    p
    for test in ("TestPreemption", "TestHierarchicalPreemptions", "TestFairPreemptions")
    for p in load_cases(test, "targets")
]


@pytest.mark.parametrize("case", TARGET_CASES)
def test_trace_does_not_change_the_decision(case: dict[str, Any]) -> None:
    """Tracing is observation only: same targets, same order, same reasons, snapshot intact."""
    snap = snapshot_of(case)
    preemptor, assignment = incoming_of(case["incoming"])
    cq, cfg, now = case["incoming"]["clusterQueue"], config_of(case), now_of(case)
    plain = get_targets(preemptor, cq, assignment, snap, config=cfg, now=now)
    before = snap.state()
    trace = DecisionTrace()
    traced = get_targets(preemptor, cq, assignment, snap, config=cfg, now=now, trace=trace)
    assert traced == plain
    assert snap.state() == before
    targets = [e for e in trace if e.verdict is Verdict.TARGET]
    assert [e.workload for e in targets] == [t.workload.key for t in plain]
    if not plain:
        assert trace.events[-1].verdict is Verdict.NO_TARGETS
    # Every event cites a rule ID.
    assert all(e.rule and "-" in e.rule for e in trace)


def _w(name: str, cq: str, cpus: int, priority: int) -> Workload:
    return cpu_workload(name, cq, cpus, priority, NOW)


_queue = cpu_queue


def test_classic_trace_explains_each_candidate() -> None:
    """POL-1 filter, CL-VAR-1 candidates, CL-ATT-1/2 attempts, FB-2 re-admission, MSG-1 target.

    q (nominal 4) runs high (2, prio 50) and low1/low2 (1 each, prio 1); the preemptor (prio 10)
    needs 2: low1 and low2 are candidates, high is filtered by LowerPriority (POL-1). The order
    removes one low, then the other; then it fits and fill-back keeps both (each needed).
    """
    snap = Snapshot([_queue("q", 4)], workloads=[_w("high", "q", 2, 50), _w("low1", "q", 1, 1), _w("low2", "q", 1, 1)])
    trace = DecisionTrace()
    targets = get_targets(
        Workload(name="in", namespace="ns", priority=10),
        "q",
        Assignment(requests={CPU: 2000}, preempt=[CPU]),
        snap,
        now=NOW,
        trace=trace,
    )
    assert {t.workload.name for t in targets} == {"low1", "low2"}
    (high,) = trace.for_workload("ns/high")
    assert (high.verdict, high.rule) == (Verdict.FILTERED, "POL-1")
    low1 = [(e.verdict, e.rule) for e in trace.for_workload("ns/low1")]
    assert low1[0] == (Verdict.CANDIDATE, "CL-VAR-1")
    assert (Verdict.TAKEN, "CL-ATT-2") in low1
    assert low1[-1] == (Verdict.TARGET, "MSG-1")
    assert any(e.rule == "CL-ATT-1" for e in trace)
    assert any(e.rule == "FB-2" for e in trace)


def test_classic_trace_shows_fill_back_readmission() -> None:
    """FB-2: a cross-queue target removed first turns out unnecessary and is re-admitted."""
    # a (nominal 4, empty) and b (nominal 4) in cohort c; b runs 6 (borrowing 2) as b-small (2)
    # and b-big (4). The preemptor in a needs 4; available 2. ORD takes other-CQ candidates by
    # priority: b-small (prio 1) first -> available 4, fits. No fill-back needed: one target.
    # Then ask for 6: b-small, then b-big (b back within nominal) -> fits; fill-back tries
    # b-small again: a has 8-4 = 4 available < 6 -> needed.
    snap = Snapshot(
        [_queue("a", 4, "c"), _queue("b", 4, "c")],
        [Cohort("c")],
        [_w("b-small", "b", 2, 1), _w("b-big", "b", 4, 2), _w("a-low", "a", 1, 0)],
    )
    trace = DecisionTrace()
    targets = get_targets(
        Workload(name="in", namespace="ns", priority=10),
        "a",
        Assignment(requests={CPU: 3000}, preempt=[CPU]),
        snap,
        now=NOW,
        trace=trace,
    )
    # a runs 1 (a-low); available = 8 - 7 = 1 < 3. Candidates: b-small, b-big (other CQ first),
    # then a-low. Removing b-small gives 3 available: fits. Single target.
    assert [t.workload.name for t in targets] == ["b-small"]
    assert not [e for e in trace if e.verdict is Verdict.READMITTED]
    trace2 = DecisionTrace()
    targets2 = get_targets(
        Workload(name="in", namespace="ns", priority=10),
        "a",
        Assignment(requests={CPU: 4000}, preempt=[CPU]),
        snap,
        now=NOW,
        trace=trace2,
    )
    # Needs 4: b-small (-> 3 available), then b-big is no longer valid (b within nominal:
    # CL-VALID-1), then a-low (-> 4 available, fits). Fill-back: b-small back -> 2 < 4: needed.
    assert {t.workload.name for t in targets2} == {"b-small", "a-low"}
    big = [(e.verdict, e.rule) for e in trace2.for_workload("ns/b-big")]
    assert (Verdict.SKIPPED, "CL-VALID-1") in big


def test_fair_trace_shows_shares_and_strategy() -> None:
    """FS-ORD-4 queue choice, FS-STRAT-1 decision with share values, FS-RUN-1 fit.

    Cohort c (8 CPUs): a (4) runs 3, b (2) runs 5 (borrowing 3), d (2) idle. The preemptor
    needs 2 in a, so a ends at 5 (borrowing 1): share 1000*1/8 = 125. b's share is 375 and
    125 after removing b1, so LessThanOrEqualToFinalShare (125 <= 125) takes b1; then a has
    2 available and fits.
    """
    snap = Snapshot(
        [_queue("a", 4, "c"), _queue("b", 2, "c"), _queue("d", 2, "c")],
        [Cohort("c")],
        [_w("b1", "b", 2, 1), _w("b2", "b", 2, 1), _w("b3", "b", 1, 1), _w("a1", "a", 3, 100)],
    )
    trace = DecisionTrace()
    targets = get_targets(
        Workload(name="in", namespace="ns", priority=10),
        "a",
        Assignment(requests={CPU: 2000}, preempt=[CPU]),
        snap,
        config=PreemptionConfig(fair_sharing=FairSharingConfig()),
        now=NOW,
        trace=trace,
    )
    assert [t.workload.name for t in targets] == ["b1"]
    rules = [e.rule for e in trace]
    assert "FS-CAND-2" in rules and "FS-ORD-4" in rules
    taken = [e for e in trace if e.verdict is Verdict.TAKEN]
    assert taken and taken[0].rule == "FS-STRAT-1"
    assert "preemptor share 125, target share 375 -> 125" in taken[0].detail


def test_vendored_cases_exist() -> None:
    assert (CASES_DIR / "TestPreemption.json").exists()

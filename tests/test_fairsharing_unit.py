"""Fair-sharing rules checked on small hand-built trees (FS-ORD-*, FS-DRS-*, FS-CFG-*, FS-RUN-*).

The ordering tests drive :class:`~kueue_preempt.ClusterQueueOrdering` directly, mutating the
snapshot between steps the way the algorithm does, so each rule is observed on its own.
"""

from __future__ import annotations

import math
from datetime import datetime, timezone

import pytest

from builders import cpu_queue, cpu_workload
from kueue_preempt import (
    Assignment,
    ClusterQueue,
    Cohort,
    ConfigurationError,
    FairSharingConfig,
    FlavorResource,
    PreemptionConfig,
    Snapshot,
    Workload,
    get_targets,
)
from kueue_preempt.preemption import fair_targets, ordering_for
from kueue_preempt.snapshot import DominantResourceShare, compare_drs, dominant_resource_share

CPU = FlavorResource("default", "cpu")
NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
FAIR = PreemptionConfig(fair_sharing=FairSharingConfig())


def q(name: str, nominal: int, cohort: str | None, weight: float = 1.0) -> ClusterQueue:
    return cpu_queue(name, nominal, cohort, weight)


def w(name: str, cq: str, cpus: int, priority: int = 0) -> Workload:
    return cpu_workload(name, cq, cpus, priority, NOW)


def by_name(snap: Snapshot) -> dict[str, Workload]:
    return {x.name: x for x in snap.workloads()}


def test_fs_ord_6_queue_that_stops_borrowing_is_pruned() -> None:
    """FS-ORD-4/6: after its first candidate goes, x no longer borrows and is never yielded again.

    Cohort c: p (preemptor, 6), x (1) running x1, x2 (1 CPU each: borrowing 1). Popping x1 and
    removing it leaves x at its nominal, so the ordering ends although x2 is still queued.
    """
    snap = Snapshot([q("p", 6, "c"), q("x", 1, "c")], [Cohort("c")], [w("x1", "x", 1), w("x2", "x", 1)])
    wls = by_name(snap)
    ordering = ordering_for(snap, "p", [wls["x1"], wls["x2"]], FAIR, NOW)
    yielded = []
    for queue in ordering:
        yielded.append(queue.name)
        c = ordering.pop(queue)
        snap.remove_workload(c.workload)
    assert yielded == ["x"]


def test_fs_ord_5_equal_cohort_shares_go_to_the_largest_name() -> None:
    """FS-ORD-5: child cohorts are visited by name and the later equal one wins: k2 over k1."""
    queues = [q("p", 4, "root"), q("a", 1, "k1"), q("b", 1, "k2")]
    cohorts = [Cohort("root"), Cohort("k1", parent="root"), Cohort("k2", parent="root")]
    snap = Snapshot(queues, cohorts, [w("a1", "a", 2), w("b1", "b", 2)])
    wls = by_name(snap)
    assert compare_drs(
        dominant_resource_share(snap, snap.cohort("k1")), dominant_resource_share(snap, snap.cohort("k2"))
    ) == 0
    ordering = ordering_for(snap, "p", [wls["a1"], wls["b1"]], FAIR, NOW)
    first = next(iter(ordering))
    assert first.name == "b"


def test_fs_ord_4_cohort_wins_ties_against_a_queue() -> None:
    """FS-ORD-4: at equal DRS the child cohort is descended into before a sibling queue."""
    queues = [q("p", 4, "root"), q("z", 1, "root"), q("r", 1, "k")]
    cohorts = [Cohort("root"), Cohort("k", parent="root")]
    snap = Snapshot(queues, cohorts, [w("z1", "z", 2), w("r1", "r", 2)])
    wls = by_name(snap)
    assert compare_drs(
        dominant_resource_share(snap, snap.cluster_queue("z")), dominant_resource_share(snap, snap.cohort("k"))
    ) == 0
    ordering = ordering_for(snap, "p", [wls["z1"], wls["r1"]], FAIR, NOW)
    assert next(iter(ordering)).name == "r"


def test_fs_ord_4_equal_queue_shares_compare_heads_by_ord() -> None:
    """FS-ORD-4: equal-DRS queues are ordered by their head candidates (ORD), not by name."""
    snap = Snapshot(
        [q("p", 4, "c"), q("a", 1, "c"), q("b", 1, "c")], [Cohort("c")], [w("a1", "a", 2, 5), w("b1", "b", 2, 1)]
    )
    wls = by_name(snap)
    ordering = ordering_for(snap, "p", [wls["a1"], wls["b1"]], FAIR, NOW)
    assert next(iter(ordering)).name == "b"  # b1 has the lower priority (ORD-4)


def test_fs_ord_2_preemptor_without_cohort() -> None:
    """FS-ORD-2 / FS-RUN-7: a standalone queue yields itself; targets in ORD order."""
    snap = Snapshot([q("p", 4, None)], workloads=[w("low", "p", 2, 1), w("mid", "p", 2, 5)])
    targets = fair_targets(Workload(name="in", priority=10), "p", Assignment({CPU: 2000}, [CPU]), snap, config=FAIR, now=NOW)
    assert [t.workload.name for t in targets] == ["low"]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (DominantResourceShare(100.0, 1.0, True), DominantResourceShare(50.0, 0.5, True), 0),  # 100 == 100
        (DominantResourceShare(1.0, 0.0, True), DominantResourceShare(1e9, 1.0, True), 1),  # +inf wins
        (DominantResourceShare(5.0, 0.0, True), DominantResourceShare(7.0, 0.0, True), -1),  # both inf: ratios
        (DominantResourceShare(0.0, 0.0, True), DominantResourceShare(1.0, 1.0, True), -1),  # ratio 0: share 0
        (DominantResourceShare(-1.0, 1.0), DominantResourceShare(0.0, 1.0), -1),  # FS-DRS-5 sentinel
    ],
)
def test_fs_drs_4_compare(a: DominantResourceShare, b: DominantResourceShare, expected: int) -> None:
    """FS-DRS-3/4/5: weighted shares, zero weights as +inf compared by ratio, the NEG sentinel."""
    assert compare_drs(a, b) == expected
    assert compare_drs(b, a) == -expected


def test_fs_drs_3_and_6_values() -> None:
    """FS-DRS-3/6: precise share and Kueue's rounded status value; weight 0 is int64 max."""
    assert DominantResourceShare(200.0, 300.0, True).rounded == 1  # ceil(0.667)
    assert DominantResourceShare(200.0, 0.0, True).precise == math.inf
    assert DominantResourceShare(200.0, 0.0, True).rounded == 2**63 - 1
    assert DominantResourceShare(0.0, 0.0, True).rounded == 0


def test_fs_drs_1_weight_divides_and_non_borrowing_is_zero() -> None:
    """FS-DRS-1: (7-5)*1000/10 = 200, /weight 2 = 100; the lender's share is 0; root's too."""
    snap = Snapshot([q("a", 5, "c", weight=2.0), q("b", 5, "c")], [Cohort("c")], [w("a1", "a", 7)])
    a = dominant_resource_share(snap, snap.cluster_queue("a"))
    assert (a.ratio, a.precise, a.borrowing, a.dominant_resource) == (200.0, 100.0, True, "cpu")
    assert dominant_resource_share(snap, snap.cluster_queue("b")).precise == 0
    assert dominant_resource_share(snap, snap.cohort("c")).precise == 0  # FS-W-4


def test_fs_cfg_1_strategy_lists() -> None:
    """FS-CFG-1: three valid lists; empty = the default list; anything else is an error."""
    assert FairSharingConfig(preemption_strategies=[]).preemption_strategies == FairSharingConfig().preemption_strategies
    assert len(FairSharingConfig(preemption_strategies=["LessThanInitialShare"]).preemption_strategies) == 1
    for bad in (["LessThanInitialShare", "LessThanOrEqualToFinalShare"], ["Nope"], ["LessThanInitialShare"] * 2):
        with pytest.raises(ConfigurationError):
            FairSharingConfig(preemption_strategies=bad)


def _borrowing_scenario() -> tuple[Snapshot, Workload, Assignment]:
    # Cohort c (8): a (4) runs 3, b (2) runs 5 (borrowing 3), d (2) idle. The preemptor needs
    # 2 in a: a ends at 5, borrowing 1 (share 125); b has 375 and 125 after removing b1.
    snap = Snapshot(
        [q("a", 4, "c"), q("b", 2, "c"), q("d", 2, "c")],
        [Cohort("c")],
        [w("b1", "b", 2, 1), w("b2", "b", 2, 1), w("b3", "b", 1, 1), w("a1", "a", 3, 100)],
    )
    return snap, Workload(name="in", priority=10), Assignment({CPU: 2000}, [CPU])


def test_fs_strat_1_and_2_single_strategy_runs() -> None:
    """FS-STRAT-1 passes (125 <= 125 after removal); FS-STRAT-2 alone passes too (125 < 375)."""
    snap, p, a = _borrowing_scenario()
    s1 = PreemptionConfig(fair_sharing=FairSharingConfig(preemption_strategies=["LessThanOrEqualToFinalShare"]))
    s2 = PreemptionConfig(fair_sharing=FairSharingConfig(preemption_strategies=["LessThanInitialShare"]))
    assert [t.workload.name for t in get_targets(p, "a", a, snap, config=s1, now=NOW)] == ["b1"]
    assert [t.workload.name for t in get_targets(p, "a", a, snap, config=s2, now=NOW)] == ["b1"]


def test_fs_run_6_no_second_pass_with_one_strategy() -> None:
    """FS-RUN-3/6: S2-a refuses (its share 125 vs b's 0 after removing b's only workload) and
    with a single strategy nothing else is tried; the default list's S2-b pass then succeeds.

    Cohort c (8): a (4) runs 3; b (2) runs one 4-CPU workload (borrowing 2: share 250);
    d (2) idle. The preemptor needs 2 in a: a ends at 5 (share 125). Removing b's workload
    drops b to 0, so S2-a (125 <= 0) fails; S2-b (125 < 250) passes.
    """
    snap = Snapshot(
        [q("a", 4, "c"), q("b", 2, "c"), q("d", 2, "c")], [Cohort("c")], [w("b-big", "b", 4, 1), w("a1", "a", 3, 100)]
    )
    p, a = Workload(name="in", priority=10), Assignment({CPU: 2000}, [CPU])
    only_s2a = PreemptionConfig(fair_sharing=FairSharingConfig(preemption_strategies=["LessThanOrEqualToFinalShare"]))
    assert get_targets(p, "a", a, snap, config=only_s2a, now=NOW) == []
    assert [t.workload.name for t in get_targets(p, "a", a, snap, config=FAIR, now=NOW)] == ["b-big"]


def test_fs_nom_1_within_nominal_shortcut_and_gate() -> None:
    """FS-NOM-1: a preemptor ending within nominal reclaims without share tests (reason
    InCohortReclamation); with the gate off the strategies decide (InCohortFairSharing).

    Cohort c (8): a (4) runs 1, b (4) runs 7 (two 3.5s would be fractional: 3 + 4), borrowing 3.
    The preemptor needs 3 in a: a ends at 4 = nominal.
    """
    snap = Snapshot([q("a", 4, "c"), q("b", 4, "c")], [Cohort("c")], [w("b1", "b", 3, 1), w("b2", "b", 4, 1), w("a1", "a", 1, 100)])
    p, a = Workload(name="in", priority=10), Assignment({CPU: 3000}, [CPU])
    on = get_targets(p, "a", a, snap, config=FAIR, now=NOW)
    assert [(t.workload.name, t.reason.value) for t in on] == [("b1", "InCohortReclamation")]
    off_cfg = PreemptionConfig(fair_sharing=FairSharingConfig(), fair_sharing_preempt_within_nominal=False)
    off = get_targets(p, "a", a, snap, config=off_cfg, now=NOW)
    assert off and all(t.reason.value == "InCohortFairSharing" for t in off)

"""The test plans of the design documents (preemption cost, priority boost, KEP-4400).

Each test is named after the plan item it implements and cites the rule IDs (COST-*, EP-*,
NP-*). Scenarios are small enough to work out by hand; the expected targets are derived in
the comments.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest

from kueue_preempt import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FairSharingConfig,
    FlavorResource,
    PodSetUsage,
    PreemptionConfig,
    ResourceQuota,
    Snapshot,
    Target,
    Workload,
    WorkloadPriorityClass,
    get_targets,
)
from kueue_preempt.cycle import sort_pending
from kueue_preempt.model import NonPreemptibleMode, effective_priority
from kueue_preempt.preemption import check_non_preemptible_quota, satisfies_preemption_policy, sort_candidates
from kueue_preempt.model.priority import BOOST_ANNOTATION

CPU = FlavorResource("default", "cpu")
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
NOW = T0 + timedelta(hours=1)
NP_ON = PreemptionConfig(non_preemptible_enabled=True)
BOOST_ON = PreemptionConfig(priority_boost=True)  # EP-2; Kueue's gate default is off (FG-1)
CLASSES = [
    WorkloadPriorityClass("critical", value=0, preemption_policy="Never"),
    WorkloadPriorityClass("batch", value=0, preemption_policy="Always"),
    WorkloadPriorityClass("gold-never", value=100, preemption_policy="Never"),
    WorkloadPriorityClass("gold-always", value=100, preemption_policy="Always"),
]


def cq(name: str, nominal: int, cohort: str | None = None, *, lending: int | None = None) -> ClusterQueue:
    return ClusterQueue(
        name=name,
        cohort=cohort,
        quotas={CPU: ResourceQuota(nominal=nominal * 1000, lending_limit=None if lending is None else lending * 1000)},
        preemption=ClusterQueuePreemption(
            within_cluster_queue="LowerPriority", reclaim_within_cohort="Any" if cohort else "Never"
        ),
    )


def wl(
    name: str,
    queue: str,
    cpus: int,
    priority: int = 0,
    *,
    minute: int = 0,
    cls: str | None = None,
    cost: str | None = None,
    boost: str | None = None,
) -> Workload:
    return Workload(
        name=name,
        namespace="ns",
        uid=name,
        cluster_queue=queue,
        priority=priority,
        priority_class=cls,
        preemption_cost=cost,
        annotations={BOOST_ANNOTATION: boost} if boost is not None else {},
        creation_time=T0 + timedelta(minutes=minute),
        quota_reserved_at=T0 + timedelta(minutes=minute),
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": cpus * 1000})],
    )


def incoming(cpus: int, priority: int, *, cls: str | None = None) -> tuple[Workload, Assignment]:
    return (
        Workload(name="incoming", namespace="ns", uid="incoming", priority=priority, priority_class=cls),
        Assignment(requests={CPU: cpus * 1000}, preempt=[CPU]),
    )


def names(targets: list[Target]) -> set[str]:
    return {t.workload.name for t in targets}


# --- preemption cost (COST-*) -------------------------------------------------------------


def test_equal_priority_different_cost_lower_cost_first() -> None:
    """COST-2: at equal EP the cheaper workload goes first, before reservation time (ORD-5).

    ``cheap`` was reserved earlier, so without cost Kueue's ORD-5 picks ``dear`` (more recent).
    """
    snap = Snapshot([cq("q", 4)], workloads=[wl("cheap", "q", 2, 1, minute=0, cost="1"), wl("dear", "q", 2, 1, minute=5, cost="5")])
    p, a = incoming(2, 10)
    assert names(get_targets(p, "q", a, snap, config=PreemptionConfig(preemption_cost_enabled=True), now=NOW)) == {"cheap"}
    assert names(get_targets(p, "q", a, snap, config=PreemptionConfig(), now=NOW)) == {"dear"}  # COST-5: off = Kueue


def test_different_priority_cost_ignored() -> None:
    """COST-2: cost is reached only at equal EP; lower EP still goes first (ORD-4)."""
    a = wl("low-expensive", "q", 1, 1, cost="100")
    b = wl("high-free", "q", 1, 2, cost="0")
    cfg = PreemptionConfig(preemption_cost_enabled=True)
    assert [w.name for w in sort_candidates([b, a], "q", NOW, cfg)] == ["low-expensive", "high-free"]


def test_cost_exact_decimal_and_unset_is_zero() -> None:
    """COST-1/COST-3: exact decimals ("0.1" + "0.2" style values are not floats); unset = 0; negatives sort first."""
    cfg = PreemptionConfig(preemption_cost_enabled=True)
    ws = [wl("unset", "q", 1), wl("tenth", "q", 1, cost="100m"), wl("neg", "q", 1, cost="-1"), wl("tiny", "q", 1, cost="1n")]
    ordered = [w.name for w in sort_candidates(ws, "q", NOW, cfg)]
    assert ordered == ["neg", "unset", "tiny", "tenth"]


def test_cost_breaks_ties_in_fair_sharing_too() -> None:
    """COST-4: fair sharing orders candidates with the same ORD, cost included."""
    snap = Snapshot(
        [cq("a", 4, "c"), cq("b", 4, "c")],
        [Cohort("c")],
        [wl("b-cheap", "b", 2, 1, minute=0, cost="1"), wl("b-dear", "b", 2, 1, minute=5, cost="9"), wl("b-base", "b", 4, 50)],
    )
    p, a = incoming(2, 10)
    on = PreemptionConfig(fair_sharing=FairSharingConfig(), preemption_cost_enabled=True)
    off = PreemptionConfig(fair_sharing=FairSharingConfig())
    assert names(get_targets(p, "a", a, snap, config=on, now=NOW)) == {"b-cheap"}
    assert names(get_targets(p, "a", a, snap, config=off, now=NOW)) == {"b-dear"}


# --- priority boost (EP-*) ----------------------------------------------------------------


@pytest.mark.parametrize("value", [None, "", "abc", "1.5", " 10", "2147483648"])
def test_missing_or_invalid_boost_is_zero(value: str | None, caplog: pytest.LogCaptureFixture) -> None:
    """EP-3/EP-5: missing, empty or invalid boost = 0, so EP = base; invalid ones log a warning."""
    w = wl("w", "q", 1, 7, boost=value)
    with caplog.at_level(logging.WARNING, logger="kueue_preempt.model.priority"):
        assert effective_priority(w, BOOST_ON) == 7
    invalid = value not in (None, "")
    assert any("ns/w" in r.getMessage() for r in caplog.records) == invalid


def test_boost_crosses_priority_class_boundaries_in_scheduling_order() -> None:
    """EP-8: a boosted low class is scheduled before a higher class; a negative boost demotes."""
    boosted = wl("boosted", "q", 1, 100, minute=9, boost="+200")  # EP 300
    high = wl("high", "q", 1, 200, minute=0)  # EP 200
    demoted = wl("demoted", "q", 1, 1000, minute=0, boost="-1000")  # EP 0
    assert [w.name for w in sort_pending([high, demoted, boosted], BOOST_ON)] == ["boosted", "high", "demoted"]
    # With the gate off (Kueue's default) the annotation is ignored (EP-2).
    off = PreemptionConfig.kueue_defaults()
    assert [w.name for w in sort_pending([high, demoted, boosted], off)] == ["demoted", "high", "boosted"]
    assert [w.name for w in sort_pending([high, demoted, boosted])] == ["demoted", "high", "boosted"]


def test_boost_crosses_priority_class_boundaries_in_candidate_order() -> None:
    """ORD-4 uses EP: base 1000 with boost -2000 is preempted before base 0."""
    demoted = wl("demoted", "q", 1, 1000, boost="-2000")
    plain = wl("plain", "q", 1, 0)
    assert [w.name for w in sort_candidates([plain, demoted], "q", NOW, BOOST_ON)] == ["demoted", "plain"]


def test_boost_crosses_priority_class_boundaries_in_eligibility() -> None:
    """POL-1 uses EP (EP-8): base 100 + boost 200 may preempt base 200 under LowerPriority."""
    preemptor = wl("p", "q", 1, 100, boost="200")
    victim = wl("v", "q", 1, 200)
    assert satisfies_preemption_policy(preemptor, victim, "LowerPriority", BOOST_ON)
    assert not satisfies_preemption_policy(preemptor, victim, "LowerPriority", PreemptionConfig.kueue_defaults())
    assert not satisfies_preemption_policy(preemptor, victim, "LowerPriority")  # FG-1: default off


# --- non-preemptible workloads (NP-*) -----------------------------------------------------


def test_never_workloads_are_not_preempted_within_cluster_queue() -> None:
    """NP-3: the NP workload is lower priority but only the Always one can be a target."""
    ws = [wl("np-low", "q", 2, 0, cls="critical"), wl("always-mid", "q", 2, 5, cls="batch")]
    snap = Snapshot([cq("q", 4)], workloads=ws, priority_classes=CLASSES)
    p, a = incoming(2, 10)
    assert names(get_targets(p, "q", a, snap, config=NP_ON, now=NOW)) == {"always-mid"}
    # Needing the whole queue is impossible without preempting the NP workload: no targets.
    p4, a4 = incoming(4, 10)
    assert get_targets(p4, "q", a4, snap, config=NP_ON, now=NOW) == []
    # NP-14: off by default, then the lowest priority goes first as in Kueue.
    assert names(get_targets(p, "q", a, snap, config=PreemptionConfig(), now=NOW)) == {"np-low"}


def test_never_workloads_are_limited_to_nominal_quota() -> None:
    """NP-6: NP usage + request <= the CQ's own nominal, even while the cohort has room.

    q has nominal 4 (lending limit 1: does not lower the bound) and already runs 3 NP CPUs;
    the lender has 8 idle CPUs. A 2-CPU NP workload would need to borrow: rejected with the
    FlavorResource and the excess (1 CPU = 1000m). A 1-CPU one fits exactly.
    """
    snap = Snapshot(
        [cq("q", 4, "c", lending=1), cq("lender", 8, "c")],
        [Cohort("c")],
        [wl("np-running", "q", 3, 0, cls="critical")],
        priority_classes=CLASSES,
    )
    np2, a2 = incoming(2, 10, cls="critical")
    check = check_non_preemptible_quota(np2, "q", a2.requests, snap, NP_ON)
    assert not check.allowed
    (v,) = check.violations
    assert (v.flavor_resource, v.excess, v.nominal, v.non_preemptible_usage) == (CPU, 1000, 4000, 3000)
    np1, a1 = incoming(1, 10, cls="critical")
    assert check_non_preemptible_quota(np1, "q", a1.requests, snap, NP_ON).allowed
    # A preemptible workload is not bound by NP-6; with the feature off nothing is.
    p2, _ = incoming(2, 10, cls="batch")
    assert check_non_preemptible_quota(p2, "q", a2.requests, snap, NP_ON).allowed
    assert check_non_preemptible_quota(np2, "q", a2.requests, snap, PreemptionConfig()).allowed
    # NP-7: get_targets for an NP preemptor that breaks NP-6 returns no targets.
    assert get_targets(np2, "q", a2, snap, config=NP_ON, now=NOW) == []


def test_non_preemptible_usage_is_tracked_and_restored() -> None:
    """NP-5: np_usage follows add/remove and is restored by value after a decision (GT-3)."""
    ws = [wl("np", "q", 2, 0, cls="critical"), wl("plain", "q", 2, 5, cls="batch")]
    snap = Snapshot([cq("q", 4)], workloads=ws, priority_classes=CLASSES)
    node = snap.cluster_queue("q")
    assert node.np_usage == {CPU: 2000}
    before = snap.state()
    p, a = incoming(2, 10)
    get_targets(p, "q", a, snap, config=NP_ON, now=NOW)
    assert snap.state() == before
    snap.remove_workload(ws[0])
    assert node.np_usage == {CPU: 0}
    snap.add_workload(ws[0])
    assert node.np_usage == {CPU: 2000}


def test_always_workloads_are_preempted_normally() -> None:
    """NP-1: an Always class (and no class at all) behaves exactly as without the feature."""
    ws = [wl("always", "q", 2, 0, cls="batch"), wl("classless", "q", 2, 1)]
    snap = Snapshot([cq("q", 4)], workloads=ws, priority_classes=CLASSES)
    p, a = incoming(4, 10)
    assert names(get_targets(p, "q", a, snap, config=NP_ON, now=NOW)) == {"always", "classless"}
    assert names(get_targets(p, "q", a, snap, config=PreemptionConfig(), now=NOW)) == {"always", "classless"}


@pytest.mark.parametrize("fair", [False, True])
def test_cross_cluster_queue_reclamation_with_mixed_policies(fair: bool) -> None:
    """NP-3 across queues: b borrows 2 CPUs with an NP and an Always workload; a reclaims.

    a (empty, nominal 4) needs 4; available = 8 - 6 = 2. Only ``b-always`` may go: removing
    it leaves b at 3 <= 4 and a with 5 available. ``b-np`` is never a target, even though it
    has the lowest priority and the most recent reservation.
    """
    snap = Snapshot(
        [cq("a", 4, "c"), cq("b", 4, "c")],
        [Cohort("c")],
        [wl("b-np", "b", 3, 0, minute=9, cls="critical"), wl("b-always", "b", 3, 50, minute=0, cls="batch")],
        priority_classes=CLASSES,
    )
    p, a = incoming(4, 100)
    base = PreemptionConfig(fair_sharing=FairSharingConfig() if fair else None)
    on = PreemptionConfig(fair_sharing=base.fair_sharing, non_preemptible_enabled=True)
    assert names(get_targets(p, "a", a, snap, config=on, now=NOW)) == {"b-always"}
    assert names(get_targets(p, "a", a, snap, config=base, now=NOW)) == {"b-np"}


def test_two_classes_with_the_same_value_and_different_policies() -> None:
    """NP-2/NP-12: the policy comes from the class, not the value: equal EP, only Always goes.

    The NP workload was reserved more recently, so ORD-5 alone would pick it first.
    """
    ws = [wl("gold-np", "q", 2, 100, minute=9, cls="gold-never"), wl("gold-ok", "q", 2, 100, minute=0, cls="gold-always")]
    snap = Snapshot([cq("q", 4)], workloads=ws, priority_classes=CLASSES)
    p, a = incoming(2, 200)
    assert names(get_targets(p, "q", a, snap, config=NP_ON, now=NOW)) == {"gold-ok"}
    assert names(get_targets(p, "q", a, snap, config=PreemptionConfig(), now=NOW)) == {"gold-np"}


def test_override_flag_and_unknown_class() -> None:
    """NP-2: the explicit flag wins; an unknown class or a pod PriorityClass is preemptible."""
    from kueue_preempt.model import PriorityClassRef

    snap = Snapshot([cq("q", 4)], priority_classes=CLASSES)
    assert snap.is_non_preemptible(Workload(name="x", non_preemptible=True))
    assert not snap.is_non_preemptible(Workload(name="x", priority_class="critical", non_preemptible=False))
    assert not snap.is_non_preemptible(Workload(name="x", priority_class="no-such-class"))
    pod_class = PriorityClassRef(name="critical", kind="PriorityClass", group="scheduling.k8s.io")
    assert not snap.is_non_preemptible(Workload(name="x", priority_class=pod_class))


@pytest.mark.parametrize("fair", [False, True])
def test_strict_mode_requires_the_np_preemptor_to_end_within_nominal(fair: bool) -> None:
    """NP-8: in strict mode an NP preemptor may not end up borrowing.

    Cohort c: a (nominal 2, borrowWithinCohort LowerPriority), b (nominal 2), idle lender d
    (nominal 6). a runs a 1-CPU high-priority workload; b runs 8 CPUs (borrowing 6), so a has
    1 CPU available. The NP preemptor asks 2 CPUs: NP-6 holds (NP usage 0 + 2 <= 2) but a
    would end at 3 > 2, i.e. borrowing. Accounting mode reclaims ``b-big`` (classic: a
    RECLAIM_WHILE_BORROWING candidate, CL-VAR-1 step 7; fair sharing: the second strategy,
    100 < 600 per FS-STRAT-2). Strict mode needs the no-borrow fit, which nothing can give.
    """
    fs = FairSharingConfig() if fair else None
    a_queue = ClusterQueue(
        name="a",
        cohort="c",
        quotas={CPU: ResourceQuota(nominal=2000)},
        preemption=ClusterQueuePreemption(
            within_cluster_queue="LowerPriority",
            reclaim_within_cohort="Any",
            borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority"),
        ),
    )
    snap = Snapshot(
        [a_queue, cq("b", 2, "c"), cq("d", 6, "c")],
        [Cohort("c")],
        [wl("a-run", "a", 1, 500, cls="batch"), wl("b-big", "b", 8, 0, cls="batch")],
        priority_classes=CLASSES,
    )
    p, a = incoming(2, 100, cls="critical")
    accounting = PreemptionConfig(fair_sharing=fs, non_preemptible_enabled=True)
    strict = PreemptionConfig(
        fair_sharing=fs, non_preemptible_enabled=True, non_preemptible_mode=NonPreemptibleMode.STRICT
    )
    assert names(get_targets(p, "a", a, snap, config=accounting, now=NOW)) == {"b-big"}
    assert get_targets(p, "a", a, snap, config=strict, now=NOW) == []

"""Unit tests for the preemption policy predicates (spec §6: POL-1..POL-5, POL-8..POL-10, EP-8)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kueue_preempt import (
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    FlavorResource,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    Workload,
)
from kueue_preempt.model import BOOST_ANNOTATION, Condition, RequeuingTimestamp
from kueue_preempt.preemption import queue_order_timestamp, satisfies_preemption_policy
from kueue_preempt.preemption.common.policy import borrow_within_cohort_forbidden, can_always_reclaim, uses_flavor_resources

UTC = timezone.utc
T0 = datetime(2026, 1, 1, 10, 0, tzinfo=UTC)
ZERO_TIME = datetime(1, 1, 1, tzinfo=UTC)
LOWER = "LowerPriority"
NEWER = "LowerOrNewerEqualPriority"


def wl(
    name: str,
    priority: int | None = None,
    created: datetime | None = T0,
    boost: str | None = None,
    conditions: tuple[Condition, ...] = (),
    reserved: datetime | None = None,
) -> Workload:
    return Workload(
        name=name,
        namespace="ns",
        priority=priority,
        creation_time=created,
        annotations={} if boost is None else {BOOST_ANNOTATION: boost},
        conditions=conditions,
        quota_reserved_at=reserved,
    )


# ---------------------------------------------------------------------------- POL-1, POL-3, POL-4


@pytest.mark.parametrize(
    ("p_prio", "c_prio", "expected"),
    [(5, 4, True), (5, 5, False), (4, 5, False), (0, -1, True), (None, -1, True), (None, 0, False), (1, None, True)],
)
def test_pol1_lower_priority_is_strict(p_prio: int | None, c_prio: int | None, expected: bool) -> None:
    """POL-1: LowerPriority(p, c) <=> EP(p) > EP(c), strictly (unset priority = 0, EP-1)."""
    assert satisfies_preemption_policy(wl("p", p_prio), wl("c", c_prio), LOWER) is expected
    assert satisfies_preemption_policy(wl("p", p_prio), wl("c", c_prio), PreemptionPolicy.LOWER_PRIORITY) is expected


def test_pol3_any_is_always_true() -> None:
    """POL-3: Any(p, c) = true, whatever the priorities."""
    assert satisfies_preemption_policy(wl("p", 1), wl("c", 100), "Any")
    assert satisfies_preemption_policy(wl("p", 1), wl("c", 1), PreemptionPolicy.ANY)


@pytest.mark.parametrize("policy", ["Never", "", "Bogus", "any", "lowerPriority", PreemptionPolicy.NEVER])
def test_pol4_never_empty_and_unknown_are_false(policy: str) -> None:
    """POL-4: Never, "" and unknown values are false; the predicate never raises."""
    assert satisfies_preemption_policy(wl("p", 100), wl("c", 1), policy) is False


# ---------------------------------------------------------------------------- POL-2


def test_pol2_higher_priority_qualifies_regardless_of_time() -> None:
    """POL-2 first disjunct: EP(p) > EP(c) suffices, even if p is newer."""
    p = wl("p", 5, created=T0 + timedelta(hours=1))
    c = wl("c", 4, created=T0)
    assert satisfies_preemption_policy(p, c, NEWER)


def test_pol2_equal_priority_needs_strictly_older_preemptor() -> None:
    """POL-2: at equal EP the candidate must be strictly newer; equal timestamps don't qualify."""
    older, newer = T0, T0 + timedelta(seconds=1)
    assert satisfies_preemption_policy(wl("p", 3, created=older), wl("c", 3, created=newer), NEWER)
    assert not satisfies_preemption_policy(wl("p", 3, created=newer), wl("c", 3, created=older), NEWER)
    assert not satisfies_preemption_policy(wl("p", 3, created=T0), wl("c", 3, created=T0), NEWER)
    # LowerPriority never uses the timestamp.
    assert not satisfies_preemption_policy(wl("p", 3, created=older), wl("c", 3, created=newer), LOWER)


def test_pol2_lower_priority_preemptor_never_qualifies() -> None:
    assert not satisfies_preemption_policy(wl("p", 2, created=T0), wl("c", 3, created=T0 + timedelta(days=1)), NEWER)


def test_pol2_uses_queue_order_timestamp_not_quota_reservation() -> None:
    """POL-2/POL-5(d): the timestamp is the creation time, not QuotaReserved (ORD-5)."""
    # c is newer by creation but was reserved long before p was created.
    p = wl("p", 3, created=T0)
    c = wl("c", 3, created=T0 + timedelta(hours=1), reserved=T0 - timedelta(days=1))
    assert satisfies_preemption_policy(p, c, NEWER)
    # c is older by creation but reserved after p was created: still not newer.
    c2 = wl("c2", 3, created=T0 - timedelta(hours=1), reserved=T0 + timedelta(days=1))
    assert not satisfies_preemption_policy(p, c2, NEWER)


def test_pol5d_unset_creation_time_is_year_one() -> None:
    """POL-5(d): an unset creation timestamp is 0001-01-01T00:00:00Z, older than any set time."""
    unset = wl("u", 3, created=None)
    assert queue_order_timestamp(unset) == ZERO_TIME
    assert satisfies_preemption_policy(unset, wl("c", 3, created=datetime(1, 1, 1, 0, 0, 1, tzinfo=UTC)), NEWER)
    assert not satisfies_preemption_policy(wl("p", 3, created=T0), unset, NEWER)
    assert not satisfies_preemption_policy(unset, wl("c", 3, created=None), NEWER)  # equal


# ---------------------------------------------------------------------------- POL-5 (a), (b), (c)


def evicted(reason: str, at: datetime, status: str = "True") -> Condition:
    return Condition("Evicted", status=status, reason=reason, last_transition_time=at)


def preempted(reason: str, at: datetime, status: str = "True") -> Condition:
    return Condition("Preempted", status=status, reason=reason, last_transition_time=at)


EVICTION_CFG = PreemptionConfig(pods_ready_requeuing_timestamp=RequeuingTimestamp.EVICTION)
# Unset: only Kueue's unit tests that build the preemptor directly run like this (DM-10);
# Kueue's configuration default is Eviction (DM-10), which is also PreemptionConfig()'s.
UNSET_CFG = PreemptionConfig(pods_ready_requeuing_timestamp=None)
BOOST_ON = PreemptionConfig(priority_boost=True)


def test_pol5a_pods_ready_timeout_with_eviction_timestamp() -> None:
    """POL-5(a): with requeuing timestamp Eviction, Evicted=True/PodsReadyTimeout uses the
    eviction time. Here c was created before p (not newer), but evicted after p's creation."""
    ev_at = T0 + timedelta(hours=1)
    p = wl("p", 3, created=T0)
    c = wl("c", 3, created=T0 - timedelta(hours=1), conditions=(evicted("PodsReadyTimeout", ev_at),))
    assert queue_order_timestamp(c, EVICTION_CFG) == ev_at
    assert satisfies_preemption_policy(p, c, NEWER, EVICTION_CFG)
    # Not Eviction (unset or Creation): the creation time applies.
    assert queue_order_timestamp(c) == ev_at  # DM-10: Kueue's default is Eviction
    for cfg in (UNSET_CFG, PreemptionConfig(pods_ready_requeuing_timestamp=RequeuingTimestamp.CREATION)):
        assert queue_order_timestamp(c, cfg) == T0 - timedelta(hours=1)
        assert not satisfies_preemption_policy(p, c, NEWER, cfg)
    # Only status True counts.
    c_false = wl("c", 3, created=T0 - timedelta(hours=1), conditions=(evicted("PodsReadyTimeout", ev_at, "False"),))
    assert queue_order_timestamp(c_false, EVICTION_CFG) == T0 - timedelta(hours=1)
    # Another eviction reason does not trigger (a).
    c_other = wl("c", 3, created=T0 - timedelta(hours=1), conditions=(evicted("Preempted", ev_at),))
    assert queue_order_timestamp(c_other, EVICTION_CFG) == T0 - timedelta(hours=1)


def test_pol5a_applies_to_the_preemptor_too() -> None:
    """POL-5: QOT is computed the same way for the preemptor."""
    p = wl("p", 3, created=T0 - timedelta(days=1), conditions=(evicted("PodsReadyTimeout", T0 + timedelta(hours=2)),))
    c = wl("c", 3, created=T0 + timedelta(hours=1))
    assert satisfies_preemption_policy(p, c, NEWER, UNSET_CFG)  # creation times: p older
    assert not satisfies_preemption_policy(p, c, NEWER, EVICTION_CFG)  # p's QOT is later
    assert not satisfies_preemption_policy(p, c, NEWER)  # Kueue's default is Eviction (DM-10)


def test_pol5b_admission_check_eviction() -> None:
    """POL-5(b): Evicted=True with reason AdmissionCheck uses the eviction time, whatever the
    requeuing timestamp setting."""
    ev_at = T0 + timedelta(minutes=5)
    p = wl("p", 3, created=T0)
    c = wl("c", 3, created=T0 - timedelta(hours=1), conditions=(evicted("AdmissionCheck", ev_at),))
    for cfg in (PreemptionConfig(), EVICTION_CFG):
        assert queue_order_timestamp(c, cfg) == ev_at
        assert satisfies_preemption_policy(p, c, NEWER, cfg)
    c_unknown = wl("c", 3, created=T0 - timedelta(hours=1), conditions=(evicted("AdmissionCheck", ev_at, "Unknown"),))
    assert queue_order_timestamp(c_unknown) == T0 - timedelta(hours=1)


def test_pol5c_reclaim_while_borrowing_plus_one_ms_only_without_priority_sorting() -> None:
    """POL-5(c): only when PrioritySortingWithinCohort is false: Preempted=True with reason
    InCohortReclaimWhileBorrowing -> that time + 1 ms."""
    preempted_at = T0
    c = wl("c", 3, created=T0 - timedelta(hours=1), conditions=(preempted("InCohortReclaimWhileBorrowing", preempted_at),))
    gate_off = PreemptionConfig(priority_sorting_within_cohort=False)
    assert queue_order_timestamp(c, gate_off) == T0 + timedelta(milliseconds=1)
    assert queue_order_timestamp(c) == T0 - timedelta(hours=1)  # gate on (default): creation

    p_same = wl("p", 3, created=T0)  # QOT(p) = T0 < T0 + 1ms
    assert satisfies_preemption_policy(p_same, c, NEWER, gate_off)
    assert not satisfies_preemption_policy(p_same, c, NEWER)
    p_1ms = wl("p", 3, created=T0 + timedelta(milliseconds=1))  # equal -> not newer
    assert not satisfies_preemption_policy(p_1ms, c, NEWER, gate_off)

    # Other reasons for Preempted do not trigger (c).
    c_other = wl("c", 3, created=T0 - timedelta(hours=1), conditions=(preempted("InClusterQueue", preempted_at),))
    assert queue_order_timestamp(c_other, gate_off) == T0 - timedelta(hours=1)


def test_pol5_first_matching_rule_wins() -> None:
    """POL-5: (a) before (b) before (c) before (d)."""
    t_a = T0 + timedelta(hours=1)
    t_c = T0 + timedelta(hours=3)
    both = wl(
        "w",
        created=T0,
        conditions=(evicted("PodsReadyTimeout", t_a), preempted("InCohortReclaimWhileBorrowing", t_c)),
    )
    cfg = PreemptionConfig(pods_ready_requeuing_timestamp="Eviction", priority_sorting_within_cohort=False)
    assert queue_order_timestamp(both, cfg) == t_a
    cfg_c = PreemptionConfig(priority_sorting_within_cohort=False, pods_ready_requeuing_timestamp=None)
    assert queue_order_timestamp(both, cfg_c) == t_c + timedelta(milliseconds=1)


# ---------------------------------------------------------------------------- EP-8


def test_ep8_boost_affects_eligibility() -> None:
    """EP-8: policies compare effective priorities (boost included) when the gate is on."""
    p = wl("p", 5)
    c = wl("c", 3, boost="+5")  # EP(c) = 8
    assert not satisfies_preemption_policy(p, c, LOWER, BOOST_ON)
    assert satisfies_preemption_policy(p, c, LOWER, PreemptionConfig(priority_boost=False))
    assert satisfies_preemption_policy(p, c, LOWER)  # FG-1: Kueue's default is boost off
    # Boosted preemptor: 1 + 10 = 11 > 10.
    assert satisfies_preemption_policy(wl("p", 1, boost="10"), wl("c", 10), LOWER, BOOST_ON)
    # Equal EP through the boost, older preemptor -> LowerOrNewerEqualPriority qualifies.
    assert satisfies_preemption_policy(
        wl("p", 4, created=T0, boost="1"), wl("c", 5, created=T0 + timedelta(seconds=1)), NEWER, BOOST_ON
    )
    # Invalid boost counts as 0 (EP-5): 5 > 3.
    assert satisfies_preemption_policy(p, wl("c", 3, boost="9999999999"), LOWER)


# ---------------------------------------------------------------------------- POL-8, POL-9, POL-10


@pytest.mark.parametrize(
    ("preemption", "forbidden"),
    [
        (ClusterQueuePreemption(), True),
        (ClusterQueuePreemption(reclaim_within_cohort="Any"), True),  # no stanza
        (ClusterQueuePreemption(reclaim_within_cohort="Any", borrow_within_cohort=BorrowWithinCohort()), True),
        (
            ClusterQueuePreemption(reclaim_within_cohort="Any", borrow_within_cohort=BorrowWithinCohort(policy="")),
            False,  # POL-8: an unset policy is not Never, so borrowing preemption is allowed (as in Kueue)
        ),
        (
            ClusterQueuePreemption(
                reclaim_within_cohort="LowerPriority", borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority")
            ),
            False,
        ),
        (
            ClusterQueuePreemption(
                reclaim_within_cohort="Any",
                borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority", max_priority_threshold=3),
            ),
            False,
        ),
    ],
)
def test_pol8_borrow_within_cohort_forbidden(preemption: ClusterQueuePreemption, forbidden: bool) -> None:
    """POL-8: forbidden iff the stanza is absent or its policy is Never."""
    assert borrow_within_cohort_forbidden(ClusterQueue("cq", cohort="c", preemption=preemption)) is forbidden


def test_pol9_uses_frnp_is_flavor_based() -> None:
    """POL-9: a candidate overlaps FRNP iff some pod set maps r -> f with (f, r) in FRNP;
    a zero amount still overlaps; a different flavor or an FR outside FRNP does not."""
    zero_gpu = Workload(name="z", pod_sets=[PodSetUsage(flavors={"gpu": "t4", "cpu": "d"}, usage={"gpu": 0, "cpu": 9})])
    frnp = frozenset({FlavorResource("t4", "gpu")})
    assert uses_flavor_resources(zero_gpu, frnp)
    assert not uses_flavor_resources(zero_gpu, frozenset({FlavorResource("a100", "gpu")}))
    assert not uses_flavor_resources(zero_gpu, frozenset({FlavorResource("d", "memory")}))
    assert not uses_flavor_resources(zero_gpu, frozenset())  # FA-2: empty FRNP -> nothing
    no_flavor = Workload(name="n", pod_sets=[PodSetUsage()])  # (usage without a flavor is refused, DM-7)
    assert not uses_flavor_resources(no_flavor, frnp)


def test_pol10_can_always_reclaim() -> None:
    """POL-10: CanAlwaysReclaim <=> reclaim_within_cohort = Any."""
    assert can_always_reclaim(ClusterQueue("a", preemption=ClusterQueuePreemption(reclaim_within_cohort="Any")))
    assert not can_always_reclaim(
        ClusterQueue("b", preemption=ClusterQueuePreemption(reclaim_within_cohort="LowerPriority"))
    )
    assert not can_always_reclaim(ClusterQueue("c"))

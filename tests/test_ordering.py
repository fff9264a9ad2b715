"""Unit tests for CandidatesOrdering (spec §8: ORD-1..ORD-7) and the cost tie-break (COST-2/3).

``cmp(a, b) < 0`` means ``a`` is preempted before ``b``.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import PreemptionConfig, Workload
from kueue_preempt.model import BOOST_ANNOTATION
from kueue_preempt.preemption import candidate_sort_key, candidates_ordering, sort_candidates

UTC = timezone.utc
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
PCQ = "cq"  # the preemptor's ClusterQueue
DEFAULT = PreemptionConfig()
AFS = PreemptionConfig(admission_fair_sharing=True)
COST = PreemptionConfig(preemption_cost_enabled=True)


def wl(
    name: str,
    *,
    cq: str = "other",
    priority: int | None = None,
    evicted: bool = False,
    reserved: datetime | None = NOW - timedelta(hours=1),
    uid: str = "",
    boost: str | None = None,
    lq: str = "",
    lq_usage: float | None = None,
    cost: Decimal | str | int | None = None,
) -> Workload:
    return Workload(
        name=name,
        namespace="ns",
        uid=uid,
        cluster_queue=cq,
        local_queue=lq,
        priority=priority,
        evicted=evicted,
        quota_reserved_at=reserved,
        annotations={} if boost is None else {BOOST_ANNOTATION: boost},
        local_queue_fs_usage=lq_usage,
        preemption_cost=cost,
    )


def before(a: Workload, b: Workload, config: PreemptionConfig = DEFAULT) -> bool:
    """a sorts strictly before b, and the comparator is antisymmetric on this pair."""
    ab = candidates_ordering(a, b, PCQ, NOW, config)
    ba = candidates_ordering(b, a, PCQ, NOW, config)
    assert (ab < 0) == (ba > 0) and (ab == 0) == (ba == 0)
    return ab < 0


def names(ws: list[Workload]) -> list[str]:
    return [w.name for w in ws]


# ---------------------------------------------------------------------------- ORD-1, ORD-2


def test_ord1_evicted_first_beats_every_other_criterion() -> None:
    """ORD-1: Evicted=True sorts first, even when in the preemptor CQ with a higher priority
    and an older reservation."""
    a = wl("a", cq=PCQ, priority=100, evicted=True, reserved=NOW - timedelta(days=9), uid="z")
    b = wl("b", cq="other", priority=-5, reserved=NOW, uid="a")
    assert before(a, b)


def test_ord2_other_cluster_queue_first() -> None:
    """ORD-2: a candidate in another CQ sorts before one in the preemptor CQ; a workload with
    no admission (cluster_queue "") counts as "other"."""
    assert before(wl("a", cq="x", priority=100), wl("b", cq=PCQ, priority=0))
    assert before(wl("a", cq="", priority=100), wl("b", cq=PCQ, priority=0))
    # Two different non-preemptor CQs are both "other": priority decides.
    assert before(wl("a", cq="y", priority=1), wl("b", cq="x", priority=2))


# ---------------------------------------------------------------------------- ORD-3


def test_ord3_afs_higher_local_queue_usage_first() -> None:
    """ORD-3: with AFS, same CQ + different LocalQueues + both usages set -> higher usage
    first, before the priority criterion."""
    a = wl("a", cq="x", priority=10, lq="lq1", lq_usage=0.9)
    b = wl("b", cq="x", priority=1, lq="lq2", lq_usage=0.1)
    assert before(a, b, AFS)
    assert before(b, a, DEFAULT)  # AFS off: lower priority first (ORD-4)


def test_ord3_afs_applies_in_the_preemptor_cq_too() -> None:
    a = wl("a", cq=PCQ, priority=10, lq="lq1", lq_usage=2.0)
    b = wl("b", cq=PCQ, priority=1, lq="lq2", lq_usage=1.0)
    assert before(a, b, AFS)


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # same LocalQueue
        (wl("a", cq="x", priority=10, lq="lq1", lq_usage=0.9), wl("b", cq="x", priority=1, lq="lq1", lq_usage=0.1)),
        # different CQs (both "other")
        (wl("a", cq="x", priority=10, lq="lq1", lq_usage=0.9), wl("b", cq="y", priority=1, lq="lq2", lq_usage=0.1)),
        # one usage missing
        (wl("a", cq="x", priority=10, lq="lq1", lq_usage=0.9), wl("b", cq="x", priority=1, lq="lq2", lq_usage=None)),
        (wl("a", cq="x", priority=10, lq="lq1", lq_usage=None), wl("b", cq="x", priority=1, lq="lq2", lq_usage=0.1)),
        # equal usage falls through
        (wl("a", cq="x", priority=10, lq="lq1", lq_usage=0.5), wl("b", cq="x", priority=1, lq="lq2", lq_usage=0.5)),
    ],
)
def test_ord3_afs_not_applicable_falls_through_to_priority(a: Workload, b: Workload) -> None:
    """ORD-3 applies only when all its conditions hold; otherwise ORD-4 decides (b, lower
    priority, first)."""
    assert before(b, a, AFS)


def test_ord3_after_ord1_and_ord2() -> None:
    """ORD-3 sits after ORD-1/ORD-2."""
    a = wl("a", cq=PCQ, priority=1, lq="lq1", lq_usage=9.0)
    b = wl("b", cq=PCQ, priority=1, lq="lq2", lq_usage=0.0, evicted=True)
    assert before(b, a, AFS)


# ---------------------------------------------------------------------------- ORD-4, COST-2


def test_ord4_lower_effective_priority_first() -> None:
    """ORD-4: lower EP first; unset priority is 0 (EP-1)."""
    assert before(wl("a", priority=1), wl("b", priority=2))
    assert before(wl("a", priority=-1), wl("b", priority=None))
    # Priority outranks reservation time.
    assert before(wl("a", priority=1, reserved=NOW - timedelta(days=1)), wl("b", priority=2, reserved=NOW))


def test_ord4_boost_included() -> None:
    """ORD-4/EP-8: the boost is part of EP; with the gate off it is ignored."""
    a = wl("a", priority=1, boost="+5")  # EP 6
    b = wl("b", priority=3)
    assert before(b, a, PreemptionConfig(priority_boost=True))
    assert before(a, b, PreemptionConfig(priority_boost=False))
    assert before(a, b)  # FG-1: Kueue's default is boost off


def test_cost2_cost_breaks_equal_ep_ties_only_when_enabled() -> None:
    """COST-2: when enabled, lower cost first, between ORD-4 and ORD-5 (cost outranks
    recency); off by default (COST-5)."""
    a = wl("a", priority=5, cost=5, reserved=NOW)  # more recent reservation
    b = wl("b", priority=5, cost=1, reserved=NOW - timedelta(hours=1))
    assert before(b, a, COST)
    assert before(a, b, DEFAULT)  # ORD-5: more recent first


def test_cost2_only_at_equal_effective_priority() -> None:
    """COST-2: EP is compared first; cost never overrides a lower EP."""
    a = wl("a", priority=1, cost=100)
    b = wl("b", priority=2, cost=0)
    assert before(a, b, COST)


def test_cost2_equal_ep_via_boost() -> None:
    """COST-2: "equal priority" means equal EP, boost included."""
    a = wl("a", priority=1, boost="1", cost="3")  # EP 2
    b = wl("b", priority=2, cost="2")  # EP 2
    assert before(b, a, PreemptionConfig(preemption_cost_enabled=True, priority_boost=True))


def test_cost3_negative_and_unset_costs() -> None:
    """COST-1/COST-3: unset = 0; negatives compare numerically (sort before unset); exact
    decimal comparison."""
    neg = wl("neg", priority=1, cost="-1")
    unset = wl("unset", priority=1)
    small = wl("small", priority=1, cost="1m")  # 0.001
    assert before(neg, unset, COST)
    assert before(unset, small, COST)
    assert before(wl("x", priority=1, cost=Decimal("0.1")), wl("y", priority=1, cost=Decimal("0.10000001")), COST)


def test_cost2_after_afs() -> None:
    """COST-2: AFS (ORD-3) stays before priority and cost."""
    cfg = PreemptionConfig(admission_fair_sharing=True, preemption_cost_enabled=True)
    a = wl("a", cq="x", priority=1, lq="lq1", lq_usage=5.0, cost=100)
    b = wl("b", cq="x", priority=1, lq="lq2", lq_usage=1.0, cost=0)
    assert before(a, b, cfg)


# ---------------------------------------------------------------------------- ORD-5, ORD-6, ORD-7


def test_ord5_more_recent_reservation_first() -> None:
    assert before(wl("a", priority=1, reserved=NOW - timedelta(minutes=1)), wl("b", priority=1, reserved=NOW - timedelta(hours=1)))


def test_ord5_missing_reservation_is_now() -> None:
    """ORD-5: no QuotaReserved time behaves as reserved "now": before past reservations,
    tied with another missing one and with exactly-now, after future ones."""
    missing = wl("m", priority=1, reserved=None, uid="1")
    past = wl("p", priority=1, reserved=NOW - timedelta(seconds=1), uid="0")
    future = wl("f", priority=1, reserved=NOW + timedelta(seconds=1), uid="2")
    at_now = wl("n", priority=1, reserved=NOW, uid="1")
    assert before(missing, past)
    assert before(future, missing)
    assert candidates_ordering(missing, at_now, PCQ, NOW, DEFAULT) == 0  # same uid too
    other_missing = wl("m2", priority=1, reserved=None, uid="0")
    assert before(other_missing, missing)  # tie on time -> uid ascending (ORD-6)


def test_ord6_uid_ascending_by_code_point() -> None:
    """ORD-6: plain string comparison of uids."""
    assert before(wl("a", priority=1, uid="a"), wl("b", priority=1, uid="b"))
    assert before(wl("a", priority=1, uid="B"), wl("b", priority=1, uid="a"))  # 'B' < 'a'
    assert before(wl("a", priority=1, uid="10"), wl("b", priority=1, uid="9"))  # not numeric
    assert before(wl("a", priority=1, uid=""), wl("b", priority=1, uid="0"))


def test_ord7_full_tie_is_zero_and_sort_is_stable() -> None:
    """ORD-7: all criteria equal -> 0; the library sorts stably (input order kept)."""
    a = wl("a", priority=1, uid="")
    b = wl("b", priority=1, uid="")
    c = wl("c", priority=1, uid="")
    assert candidates_ordering(a, b, PCQ, NOW, DEFAULT) == 0
    assert names(sort_candidates([a, b, c], PCQ, NOW)) == ["a", "b", "c"]
    assert names(sort_candidates([c, a, b], PCQ, NOW)) == ["c", "a", "b"]


def test_sort_candidates_full_example() -> None:
    """ORD-1..ORD-6 together (AFS off):
    e (evicted) < o1 (other CQ, EP 1) < o2 (other CQ, EP 2) < s_new (own CQ, EP 1, recent)
    < s_old_a (own, EP 1, old, uid a) < s_old_b (uid b) < s_hi (own, EP 9)."""
    ws = [
        wl("s_hi", cq=PCQ, priority=9),
        wl("s_old_b", cq=PCQ, priority=1, reserved=NOW - timedelta(hours=5), uid="b"),
        wl("o2", cq="x", priority=2),
        wl("s_new", cq=PCQ, priority=1, reserved=NOW - timedelta(minutes=5)),
        wl("e", cq=PCQ, priority=50, evicted=True),
        wl("s_old_a", cq=PCQ, priority=1, reserved=NOW - timedelta(hours=5), uid="a"),
        wl("o1", cq="y", priority=1),
    ]
    expected = ["e", "o1", "o2", "s_new", "s_old_a", "s_old_b", "s_hi"]
    assert names(sort_candidates(ws, PCQ, NOW)) == expected

    def cmp(x: Workload, y: Workload) -> int:
        return candidates_ordering(x, y, PCQ, NOW)

    assert names(sorted(ws, key=functools.cmp_to_key(cmp))) == expected


# ---------------------------------------------------------------------------- property tests

_BOOST_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)


def reference_ep(w: Workload, config: PreemptionConfig) -> int:
    """EP-1..EP-6 written independently from the spec."""
    base = 0 if w.priority is None else w.priority
    raw = w.annotations.get(BOOST_ANNOTATION)
    boost = 0
    if config.priority_boost and raw and _BOOST_RE.fullmatch(raw) and -(2**31) <= int(raw) < 2**31:
        boost = int(raw)
    return base + boost


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def reference_cmp(a: Workload, b: Workload, config: PreemptionConfig) -> int:
    """ORD-1..ORD-6 with COST-2, transcribed from the spec."""
    if a.evicted != b.evicted:  # ORD-1
        return -1 if a.evicted else 1
    a_other, b_other = a.cluster_queue != PCQ, b.cluster_queue != PCQ
    if a_other != b_other:  # ORD-2
        return -1 if a_other else 1
    if (  # ORD-3
        config.admission_fair_sharing
        and a.cluster_queue == b.cluster_queue
        and a.local_queue != b.local_queue
        and a.local_queue_fs_usage is not None
        and b.local_queue_fs_usage is not None
        and a.local_queue_fs_usage != b.local_queue_fs_usage
    ):
        return -1 if a.local_queue_fs_usage > b.local_queue_fs_usage else 1
    ea, eb = reference_ep(a, config), reference_ep(b, config)
    if ea != eb:  # ORD-4
        return -1 if ea < eb else 1
    if config.preemption_cost_enabled:  # COST-2
        ca = a.preemption_cost if a.preemption_cost is not None else Decimal(0)
        cb = b.preemption_cost if b.preemption_cost is not None else Decimal(0)
        if ca != cb:
            return -1 if ca < cb else 1
    ta = a.quota_reserved_at if a.quota_reserved_at is not None else NOW  # ORD-5
    tb = b.quota_reserved_at if b.quota_reserved_at is not None else NOW
    if ta != tb:
        return -1 if ta > tb else 1
    if a.uid != b.uid:  # ORD-6
        return -1 if a.uid < b.uid else 1
    return 0  # ORD-7


TIMES = [None, NOW, NOW - timedelta(seconds=1), NOW - timedelta(hours=2), NOW + timedelta(minutes=3)]


@st.composite
def workload_lists(draw: st.DrawFn) -> list[Workload]:
    n = draw(st.integers(min_value=0, max_value=8))
    out = []
    for i in range(n):
        out.append(
            Workload(
                name=f"w{i}",
                namespace="ns",
                uid=draw(st.sampled_from(["", "a", "b", "B", "10", "9"])),
                cluster_queue=draw(st.sampled_from([PCQ, "x", "y", ""])),
                local_queue=draw(st.sampled_from(["", "lq1", "lq2"])),
                priority=draw(st.one_of(st.none(), st.integers(min_value=-3, max_value=3))),
                annotations=draw(
                    st.sampled_from([{}, {BOOST_ANNOTATION: "1"}, {BOOST_ANNOTATION: "-2"}, {BOOST_ANNOTATION: "x"}])
                ),
                evicted=draw(st.booleans()),
                quota_reserved_at=draw(st.sampled_from(TIMES)),
                local_queue_fs_usage=draw(st.sampled_from([None, 0.0, 0.5, 2.0])),
                preemption_cost=draw(st.sampled_from([None, Decimal(0), Decimal("0.5"), Decimal(-1), Decimal(3)])),
            )
        )
    return out


configs = st.builds(
    PreemptionConfig,
    priority_boost=st.booleans(),
    preemption_cost_enabled=st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(workload_lists(), configs)
def test_ord_sort_key_equals_comparator_without_afs(ws: list[Workload], config: PreemptionConfig) -> None:
    """ORD-7/ORD-9: with AFS off, sorting by candidate_sort_key equals sorting with
    cmp_to_key(candidates_ordering) (both stable), equals sorting by the spec's comparator,
    and sort_candidates gives the same list."""
    by_key = sorted(ws, key=lambda w: candidate_sort_key(w, PCQ, NOW, config))

    def lib_cmp(a: Workload, b: Workload) -> int:
        return candidates_ordering(a, b, PCQ, NOW, config)

    def ref_cmp(a: Workload, b: Workload) -> int:
        return reference_cmp(a, b, config)

    by_cmp = sorted(ws, key=functools.cmp_to_key(lib_cmp))
    by_ref = sorted(ws, key=functools.cmp_to_key(ref_cmp))
    assert [id(w) for w in by_key] == [id(w) for w in by_cmp] == [id(w) for w in by_ref]
    assert [id(w) for w in sort_candidates(ws, PCQ, NOW, config)] == [id(w) for w in by_ref]


@settings(max_examples=300, deadline=None)
@given(workload_lists(), configs, st.booleans())
def test_ord_comparator_matches_spec_pairwise(ws: list[Workload], config: PreemptionConfig, afs: bool) -> None:
    """ORD-1..ORD-6, COST-2: the sign of candidates_ordering equals the spec's comparator on
    every pair, including AFS (pairwise only: with AFS the relation may be cyclic, ORD-9)."""
    cfg = PreemptionConfig(
        admission_fair_sharing=afs,
        priority_boost=config.priority_boost,
        preemption_cost_enabled=config.preemption_cost_enabled,
    )
    for a in ws:
        for b in ws:
            assert _sign(candidates_ordering(a, b, PCQ, NOW, cfg)) == reference_cmp(a, b, cfg), (a.name, b.name)

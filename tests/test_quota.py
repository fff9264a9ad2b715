"""Unit tests for the quota tree / Snapshot (spec §4 Q-3..Q-16, GT-5, DM-11, MSG-4).

The main fixture is a two-level tree, one resource ``f/gpu`` (plain counts):

    root (cohort, nominal 2)
    ├── left  (cohort, nominal 1, lendingLimit 3, borrowingLimit 4)
    │   ├── cqA (nominal 10, lendingLimit 6)          workload a1 uses 2
    │   └── cqB (nominal 5, borrowingLimit 2)         workload b1 uses 6
    └── right (cohort, no quota)
        └── cqC (nominal 4; also declares g/mem = 0)  workload c1 uses 1
    cqD (no cohort, nominal 3)
    lonely (cohort without children);  top -> empty (cohort chain without queues)

Hand computation (each step cites the rule):

* Q-5  SQ(cqA)=10, SQ(cqB)=5, SQ(cqC)=4
* Q-4  LQ(cqA)=max(0,10-6)=4, LQ(cqB)=0 (no LL)
* Q-5  SQ(left)=1+(10-4)+(5-0)=12, LQ(left)=max(0,12-3)=9
* Q-5  SQ(right)=0+4=4; SQ(root)=2+(12-9)+(4-0)=9
* Q-6  U(left)=max(0,2-4)+max(0,6-0)=6; U(right)=1; U(root)=max(0,6-9)+1=1
* Q-8  LA(cqA)=max(0,4-2)=2, LA(left)=max(0,9-6)=3, others 0
* Q-9  avail(root)=9-1=8
       avail(left)=LA 3 + min(8, (12-9) - max(0,6-9) + BL 4 = 7) = 10
       Available(cqA)=LA 2 + 10 = 12
       Available(cqB)=0 + min(10, (5-0) - 6 + BL 2 = 1) = 1
       Available(cqC)=0 + (0 + 8) = 8;  Available(cqD)=3-0=3
* Q-10 pot(root)=9; pot(left)=min(9+9, 12+4)=16; pot(cqA)=4+16=20;
       pot(cqB)=min(0+16, 5+2)=7; pot(right)=0+9=9; pot(cqC)=9; pot(cqD)=3
* Q-15 height(left)=height(right)=1, height(root)=max(1, 1+1)=2, lonely=0, empty=0,
       top=max(min(1,1), 0+1)=1
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import (
    ClusterQueue,
    Cohort,
    FlavorResource,
    KueuePreemptError,
    PodSetUsage,
    ResourceQuota,
    Snapshot,
    Workload,
)
from kueue_preempt.errors import CohortCycle, DuplicateName, InputTooLarge, UnknownClusterQueue, UnknownCohort
from kueue_preempt.model import UNLIMITED
from kueue_preempt.snapshot.quota import QuotaNode
from kueue_preempt.snapshot.quota import MAX_COHORT_DEPTH

GPU = FlavorResource("f", "gpu")
MEM = FlavorResource("g", "mem")


def q(nominal: int, bl: int | None = None, ll: int | None = None) -> ResourceQuota:
    return ResourceQuota(nominal=nominal, borrowing_limit=bl, lending_limit=ll)


def wl(name: str, cq: str, usage: Mapping[FlavorResource, int], namespace: str = "ns") -> Workload:
    """An admitted workload whose single pod set uses ``usage``."""
    flavors = {fr.resource: fr.flavor for fr in usage}
    amounts = {fr.resource: v for fr, v in usage.items()}
    return Workload(
        name=name,
        namespace=namespace,
        cluster_queue=cq,
        pod_sets=[PodSetUsage(flavors=flavors, usage=amounts)],
    )


COHORTS = [
    Cohort("root", quotas={GPU: q(2)}),
    Cohort("left", parent="root", quotas={GPU: q(1, bl=4, ll=3)}),
    Cohort("right", parent="root"),
    Cohort("lonely"),
    Cohort("top"),
    Cohort("empty", parent="top"),
]
QUEUES = [
    ClusterQueue("cqA", cohort="left", quotas={GPU: q(10, ll=6)}),
    ClusterQueue("cqB", cohort="left", quotas={GPU: q(5, bl=2)}),
    ClusterQueue("cqC", cohort="right", quotas={GPU: q(4), MEM: q(0)}),
    ClusterQueue("cqD", quotas={GPU: q(3)}),
]
A1 = wl("a1", "cqA", {GPU: 2})
B1 = wl("b1", "cqB", {GPU: 6})
C1 = wl("c1", "cqC", {GPU: 1})
BASE_WORKLOADS = [A1, B1, C1]


def build(workloads: list[Workload] | None = None) -> Snapshot:
    return Snapshot(QUEUES, COHORTS, BASE_WORKLOADS if workloads is None else workloads)


@pytest.fixture
def snap() -> Snapshot:
    return build()


def norm(snapshot: Snapshot) -> dict[tuple[str, str], dict[FlavorResource, int]]:
    """Usage maps with missing keys and zeros identified (Q-3: missing keys read as 0)."""
    out: dict[tuple[str, str], dict[FlavorResource, int]] = {}
    for kind, nodes in (("cq", snapshot.cluster_queues), ("cohort", snapshot.cohorts)):
        for name, node in nodes.items():
            out[(kind, name)] = {fr: v for fr, v in node.usage.items() if v != 0}
    return out


def keys(snapshot: Snapshot) -> dict[str, set[str]]:
    return {name: set(node.workloads) for name, node in snapshot.cluster_queues.items()}


# ----------------------------------------------------------------------------


def test_q4_local_quota(snap: Snapshot) -> None:
    """Q-4: LQ = max(0, SQ - LL) when LL is set, else 0."""
    assert snap.cluster_queue("cqA").local_quota.get(GPU, 0) == 4
    assert snap.cluster_queue("cqB").local_quota.get(GPU, 0) == 0
    assert snap.cohort("left").local_quota.get(GPU, 0) == 9
    assert snap.cohort("root").local_quota.get(GPU, 0) == 0


def test_q4_local_quota_never_negative() -> None:
    """Q-4: a lending limit above the subtree quota gives LQ 0, not a negative value."""
    s = Snapshot(
        [ClusterQueue("q", cohort="c", quotas={GPU: q(2)})],
        [Cohort("p"), Cohort("c", parent="p", quotas={GPU: q(0, ll=5)})],
    )
    assert s.cohort("c").subtree_quota[GPU] == 2
    assert s.cohort("c").local_quota.get(GPU, 0) == 0
    assert s.cohort("p").subtree_quota[GPU] == 2  # all of it is exposed


def test_q5_subtree_quota(snap: Snapshot) -> None:
    """Q-5: SQ(cq) = nominal; SQ(cohort) = own nominal + sum(SQ(child) - LQ(child))."""
    assert snap.cluster_queue("cqA").subtree_quota[GPU] == 10
    assert snap.cluster_queue("cqB").subtree_quota[GPU] == 5
    assert snap.cluster_queue("cqC").subtree_quota[GPU] == 4
    assert snap.cohort("left").subtree_quota[GPU] == 12
    assert snap.cohort("right").subtree_quota[GPU] == 4
    assert snap.cohort("root").subtree_quota[GPU] == 9


def test_q5_cohort_sq_keys_include_zero_valued_child_frs(snap: Snapshot) -> None:
    """Q-5: a cohort's SQ map holds every FR of any child's SQ map, zero values included, so
    the root's keys are all FRs of the tree."""
    assert snap.cluster_queue("cqC").subtree_quota[MEM] == 0
    assert MEM in snap.cohort("right").subtree_quota
    assert snap.cohort("right").subtree_quota[MEM] == 0
    assert MEM in snap.cohort("root").subtree_quota
    assert set(snap.cohort("root").subtree_quota) == {GPU, MEM}


def test_q6_usage(snap: Snapshot) -> None:
    """Q-6: U(cq) = sum of its workloads; U(cohort) = sum(max(0, U(child) - LQ(child)))."""
    assert snap.cluster_queue("cqA").usage[GPU] == 2
    assert snap.cluster_queue("cqB").usage[GPU] == 6
    assert snap.cluster_queue("cqC").usage[GPU] == 1
    assert snap.cohort("left").usage.get(GPU, 0) == 6  # cqA's 2 is hidden by its LQ 4
    assert snap.cohort("right").usage.get(GPU, 0) == 1
    assert snap.cohort("root").usage.get(GPU, 0) == 1  # left's 6 is hidden by its LQ 9
    assert snap.cluster_queue("cqD").usage.get(GPU, 0) == 0


def test_q6_cq_usage_sums_workloads_and_saturates() -> None:
    """Q-6/Q-7 (entry values): a CQ's usage is the Q-2 sum of its workloads' usages."""
    huge = wl("huge", "cqD", {GPU: UNLIMITED})
    s = build([wl("d1", "cqD", {GPU: 2}), wl("d2", "cqD", {GPU: 3})])
    assert s.cluster_queue("cqD").usage[GPU] == 5
    s2 = build([wl("d1", "cqD", {GPU: 2}), huge])
    assert s2.cluster_queue("cqD").usage[GPU] == UNLIMITED


# ---------------------------------------------------------------------------- Q-7, DM-11


def test_q7_incremental_updates_equal_recomputation() -> None:
    """Q-7: add_usage/remove_usage propagation gives the values Q-6 recomputation gives."""
    a2 = wl("a2", "cqA", {GPU: 5})
    b2 = wl("b2", "cqB", {GPU: 1})
    c2 = wl("c2", "cqC", {GPU: 7, MEM: 2})
    s = build()
    present = list(BASE_WORKLOADS)
    steps: list[tuple[str, Workload]] = [
        ("add", a2),  # cqA 2->7, 5 - LA 2 = 3 passed to left (LA 3), root untouched
        ("remove", B1),
        ("add", c2),
        ("add", b2),
        ("remove", A1),
        ("add", B1),
        ("remove", a2),
        ("remove", c2),
    ]
    for op, w in steps:
        if op == "add":
            s.add_workload(w)
            present.append(w)
        else:
            s.remove_workload(w)
            present.remove(w)
        fresh = build(present)
        assert norm(s) == norm(fresh), (op, w.name)
        assert keys(s) == keys(fresh)


def test_q7_add_propagation_by_hand(snap: Snapshot) -> None:
    """Q-7 worked example: add 5 to cqA (U 2, LA 2): cqA 7, pass 5-2=3 to left (LA 3):
    left 9, 3 <= 3 so root is untouched (1). Recompute: left = max(0,7-4)+6 = 9."""
    snap.add_usage(snap.cluster_queue("cqA"), {GPU: 5})
    assert snap.cluster_queue("cqA").usage[GPU] == 7
    assert snap.cohort("left").usage[GPU] == 9
    assert snap.cohort("root").usage[GPU] == 1
    # One more unit: cqA LA 0 -> pass 1; left LA 0 -> pass 1 to root.
    snap.add_usage(snap.cluster_queue("cqA"), {GPU: 1})
    assert snap.cluster_queue("cqA").usage[GPU] == 8
    assert snap.cohort("left").usage[GPU] == 10
    assert snap.cohort("root").usage[GPU] == 2
    # remove 6 from cqB: stored 6-0=6>0 -> left -= min(6,6); left stored 10-9=1>0 -> root -= min(6,1)
    snap.remove_usage(snap.cluster_queue("cqB"), {GPU: 6})
    assert snap.cluster_queue("cqB").usage[GPU] == 0
    assert snap.cohort("left").usage[GPU] == 4
    assert snap.cohort("root").usage[GPU] == 1


OPS_POOL = [
    wl("p0", "cqA", {GPU: 3}),
    wl("p1", "cqA", {GPU: 7}),
    wl("p2", "cqB", {GPU: 4}),
    wl("p3", "cqB", {GPU: 0}),
    wl("p4", "cqC", {GPU: 5, MEM: 1}),
    wl("p5", "cqD", {GPU: 4}),
    wl("p6", "cqA", {GPU: 1, MEM: 3}),
    wl("p7", "cqC", {GPU: 2}),
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=len(OPS_POOL) - 1), max_size=25))
def test_q7_random_add_remove_sequences_equal_recomputation(toggles: list[int]) -> None:
    """Q-7/DM-11 property: any sequence of add_workload/remove_workload leaves the same usage
    as building a fresh Snapshot (Q-6) from the workloads present (non-saturating amounts)."""
    s = build([])
    present: dict[str, Workload] = {}
    for i in toggles:
        w = OPS_POOL[i]
        if w.name in present:
            s.remove_workload(w)
            del present[w.name]
        else:
            s.add_workload(w)
            present[w.name] = w
        assert norm(s) == norm(build(list(present.values())))


def test_dm11_remove_then_add_is_exact_inverse(snap: Snapshot) -> None:
    """DM-11: remove_workload and add_workload are exact inverses while nothing saturates."""
    before = snap.state()
    for w in BASE_WORKLOADS:
        snap.remove_workload(w)
        assert snap.state() != before
        snap.add_workload(w)
        assert snap.state() == before


def test_dm11_add_then_remove_is_exact_inverse(snap: Snapshot) -> None:
    """DM-11: adding a new workload (on FRs already tracked) and removing it restores state()."""
    before = snap.state()
    for w in [wl("x", "cqA", {GPU: 9}), wl("y", "cqB", {GPU: 3}), wl("z", "cqC", {GPU: 20})]:
        snap.add_workload(w)
        assert snap.state() != before
        snap.remove_workload(w)
        assert snap.state() == before


def test_dm11_add_then_remove_new_fr_restores_values(snap: Snapshot) -> None:
    """DM-11 with Q-3: on an FR that had no usage entry yet, add+remove restores every value
    (a leftover key holding 0 reads the same as a missing key)."""
    before = norm(snap)
    w = wl("m", "cqA", {MEM: 4})
    snap.add_workload(w)
    snap.remove_workload(w)
    assert norm(snap) == before
    assert keys(snap) == keys(build())


def test_dm11_preserved_restores_state(snap: Snapshot) -> None:
    """DM-11/GT-3: preserved() restores usage maps and workload sets by value on exit."""
    before = snap.state()
    with snap.preserved():
        snap.remove_workload(B1)
        snap.add_workload(wl("x", "cqA", {GPU: 9, MEM: 1}))
        snap.add_usage(snap.cluster_queue("cqC"), {GPU: 3})
        assert snap.state() != before
    assert snap.state() == before


def test_dm11_preserved_restores_when_block_raises(snap: Snapshot) -> None:
    """DM-11: restoration also happens when the block raises; the exception propagates."""
    before = snap.state()
    with pytest.raises(RuntimeError, match="boom"):
        with snap.preserved():
            snap.remove_workload(A1)
            snap.add_workload(wl("x", "cqC", {GPU: 9}))
            raise RuntimeError("boom")
    assert snap.state() == before


def test_dm11_preserved_nested(snap: Snapshot) -> None:
    """DM-11: nested blocks each restore their own changes; the outer one restores the rest."""
    before = snap.state()
    with snap.preserved():
        snap.remove_workload(A1)
        after_outer_change = snap.state()
        with snap.preserved():
            snap.remove_workload(B1)
            assert "ns/b1" not in snap.cluster_queue("cqB").workloads
        assert snap.state() == after_outer_change
        assert "ns/b1" in snap.cluster_queue("cqB").workloads
        assert "ns/a1" not in snap.cluster_queue("cqA").workloads
        with pytest.raises(ValueError):
            with snap.preserved():
                snap.remove_workload(C1)
                raise ValueError("inner")
        assert snap.state() == after_outer_change
    assert snap.state() == before


def test_dm11_saturated_usage_restored_by_value() -> None:
    """DM-11/Q-7: with an UNLIMITED usage, remove is not the inverse of add (Q-2:
    UNLIMITED - UNLIMITED = 0 loses a1's 2 units), yet preserved() restores exactly."""
    huge = wl("huge", "cqA", {GPU: UNLIMITED})
    s = build([A1, B1, C1, huge])
    cqa = s.cluster_queue("cqA")
    assert cqa.usage[GPU] == UNLIMITED  # 2 + UNLIMITED
    before = s.state()
    with s.preserved():
        s.remove_workload(huge)
        assert cqa.usage[GPU] == 0  # UNLIMITED - UNLIMITED, not 2
        s.add_workload(huge)
        s.remove_workload(A1)
    assert s.state() == before

    # The other direction: adding a saturating workload and removing it again.
    s2 = build()
    before2 = s2.state()
    with s2.preserved():
        s2.add_workload(huge)
        assert s2.cluster_queue("cqA").usage[GPU] == UNLIMITED
        s2.remove_workload(huge)
        assert s2.cluster_queue("cqA").usage[GPU] == 0  # not 2: add/remove diverge
    assert s2.state() == before2


# ---------------------------------------------------------------------------- Q-8..Q-13


def test_q8_local_available(snap: Snapshot) -> None:
    """Q-8: LocalAvailable = max(0, LQ - U)."""
    assert Snapshot.local_available(snap.cluster_queue("cqA"), GPU) == 2
    assert Snapshot.local_available(snap.cohort("left"), GPU) == 3
    assert Snapshot.local_available(snap.cluster_queue("cqB"), GPU) == 0
    assert Snapshot.local_available(snap.cohort("root"), GPU) == 0


def test_q9_available(snap: Snapshot) -> None:
    """Q-9 with borrowing limits (see the module docstring for the computation)."""
    assert snap.available(snap.cluster_queue("cqA"), GPU) == 12
    assert snap.available(snap.cluster_queue("cqB"), GPU) == 1  # capped by cqB's BL 2
    assert snap.available(snap.cluster_queue("cqC"), GPU) == 8
    assert snap.available(snap.cluster_queue("cqD"), GPU) == 3
    assert snap.available(snap.cohort("left"), GPU) == 10
    assert snap.available(snap.cohort("root"), GPU) == 8
    assert snap.available(snap.cluster_queue("cqA"), MEM) == 0  # missing -> 0


def test_q9_available_left_borrowing_limit_binds() -> None:
    """Q-9: a cohort's BL caps what its subtree takes from a big parent: left exposes
    stored 3 - used 0 and may borrow BL 4 more, plus its local headroom 3."""
    cohorts = [
        Cohort("root", quotas={GPU: q(100)}),
        Cohort("left", parent="root", quotas={GPU: q(1, bl=4, ll=3)}),
    ]
    queues = [ClusterQueue("b", cohort="left", quotas={GPU: q(5)})]
    s = Snapshot(queues, cohorts)
    # SQ(left)=6, LQ(left)=3, SQ(root)=100+3=103, U=0: avail(root)=103;
    # avail(left)=LA 3 + min(103, (6-3) - 0 + 4 = 7) = 10; avail(b) = 0 + 10 = 10.
    assert s.available(s.cluster_queue("b"), GPU) == 10


def test_q9_available_clamped_at_zero() -> None:
    """Q-9: Available = max(0, avail); a standalone CQ over nominal has 0, not negative."""
    s = build([wl("d1", "cqD", {GPU: 5})])
    assert s.available(s.cluster_queue("cqD"), GPU) == 0
    # cqB in the fixture is 1 over nominal but its BL leaves 1; push it further:
    s2 = build([A1, wl("b1", "cqB", {GPU: 9}), C1])
    # avail(cqB) = 0 + min(avail(left), 5 - 9 + 2 = -2) = -2 -> 0
    assert s2.available(s2.cluster_queue("cqB"), GPU) == 0


def test_q10_potential_available(snap: Snapshot) -> None:
    """Q-10: capacity with zero usage, independent of current usage."""
    expected = {"cqA": 20, "cqB": 7, "cqC": 9, "cqD": 3}
    for name, value in expected.items():
        assert snap.potential_available(snap.cluster_queue(name), GPU) == value, name
    assert snap.potential_available(snap.cohort("left"), GPU) == 16
    assert snap.potential_available(snap.cohort("right"), GPU) == 9
    assert snap.potential_available(snap.cohort("root"), GPU) == 9
    for w in BASE_WORKLOADS:
        snap.remove_workload(w)
    assert snap.potential_available(snap.cluster_queue("cqA"), GPU) == 20


def test_q11_borrowing_with(snap: Snapshot) -> None:
    """Q-11: CQ borrows iff U + v > nominal; cohort iff U + v > SQ."""
    cqa, cqb, left = snap.cluster_queue("cqA"), snap.cluster_queue("cqB"), snap.cohort("left")
    assert not Snapshot.borrowing_with(cqa, GPU, 8)  # 2 + 8 = 10, not > 10
    assert Snapshot.borrowing_with(cqa, GPU, 9)
    assert not Snapshot.borrowing_with(cqa, GPU)  # Borrowing(cqA)
    assert Snapshot.borrowing_with(cqb, GPU)  # 6 > 5
    assert Snapshot.borrowing_with(cqb, GPU, 0)
    assert not Snapshot.borrowing_with(left, GPU, 6)  # 6 + 6 = 12, not > 12
    assert Snapshot.borrowing_with(left, GPU, 7)
    assert Snapshot.borrowing_with(cqa, MEM, 1)  # undeclared FR: nominal 0


def test_q11_lending_limit_never_makes_a_cq_borrowing(snap: Snapshot) -> None:
    """Q-11: cqA using 7 exceeds its local quota 4 (what it keeps from the parent) but not its
    nominal 10, so it is not borrowing."""
    snap.add_workload(wl("x", "cqA", {GPU: 5}))
    assert snap.cluster_queue("cqA").usage[GPU] == 7
    assert not Snapshot.borrowing_with(snap.cluster_queue("cqA"), GPU)


def test_q12_within_nominal(snap: Snapshot) -> None:
    """Q-12: U <= SQ on every FR of the set; vacuously true for the empty set."""
    assert Snapshot.within_nominal(snap.cluster_queue("cqA"), {GPU})
    assert not Snapshot.within_nominal(snap.cluster_queue("cqB"), {GPU})
    assert Snapshot.within_nominal(snap.cluster_queue("cqB"), set())
    assert Snapshot.within_nominal(snap.cohort("left"), {GPU})  # 6 <= 12
    assert Snapshot.within_nominal(snap.cluster_queue("cqA"), {GPU, MEM})  # 0 <= 0
    assert not Snapshot.within_nominal(snap.cluster_queue("cqB"), {GPU, MEM})


def test_q13_fit_probe(snap: Snapshot) -> None:
    """Q-13: fits iff SQ >= U + req for every FR; rem = max(0, req - LocalAvailable)."""
    cqa, left = snap.cluster_queue("cqA"), snap.cohort("left")
    assert snap.fit_probe(cqa, {GPU: 8}) == (True, {GPU: 6})  # 10 >= 2+8; 8 - LA 2
    assert snap.fit_probe(cqa, {GPU: 9}) == (False, {GPU: 7})
    assert snap.fit_probe(cqa, {GPU: 1}) == (True, {GPU: 0})
    assert snap.fit_probe(left, {GPU: 6}) == (True, {GPU: 3})  # 12 >= 6+6; 6 - LA 3
    assert snap.fit_probe(left, {GPU: 7}) == (False, {GPU: 4})
    assert snap.fit_probe(cqa, {GPU: 1, MEM: 1}) == (False, {GPU: 0, MEM: 1})
    assert snap.fit_probe(snap.cluster_queue("cqB"), {GPU: 0}) == (False, {GPU: 0})  # already over


# ----------------------------------------------------------------------------


def test_q15_height(snap: Snapshot) -> None:
    """Q-15: max(min(#children, 1), max over child cohorts of height + 1)."""
    assert snap.cohort("left").height == 1
    assert snap.cohort("right").height == 1
    assert snap.cohort("root").height == 2
    assert snap.cohort("lonely").height == 0  # childless
    assert snap.cohort("empty").height == 0
    assert snap.cohort("top").height == 1  # only a childless cohort child: max(1, 0+1)


def test_q16_lowest_fitting_height(snap: Snapshot) -> None:
    """Q-16 worked examples."""
    cqa, cqb, cqc, cqd = (snap.cluster_queue(n) for n in ("cqA", "cqB", "cqC", "cqD"))
    # Within nominal: level 0, "fits in a proper subtree" = has parent.
    assert snap.lowest_fitting_height(cqa, GPU, 8) == (0, True)
    assert snap.lowest_fitting_height(cqc, GPU, 3) == (0, True)
    # cqB: 6+1 > 5; rem = 1 - 0; left: 6+1 <= 12 -> (height(left)=1, left has parent).
    assert snap.lowest_fitting_height(cqb, GPU, 1) == (1, True)
    # cqA v=9: rem = 9-2 = 7; left 6+7 > 12; rem = 7-3 = 4; root 1+4 <= 9 -> (2, False).
    assert snap.lowest_fitting_height(cqa, GPU, 9) == (2, False)
    # cqC v=4: rem 4; right 1+4 > 4; rem 4; root 1+4 <= 9 -> (2, False).
    assert snap.lowest_fitting_height(cqc, GPU, 4) == (2, False)
    # Nowhere fits: after the loop (height(root), False).
    assert snap.lowest_fitting_height(cqa, GPU, 100) == (2, False)
    # No parent: (0, False) regardless of v.
    assert snap.lowest_fitting_height(cqd, GPU, 1) == (0, False)
    assert snap.lowest_fitting_height(cqd, GPU, 100) == (0, False)


# ---------------------------------------------------------------------------- GT-5


def test_gt5_fits(snap: Snapshot) -> None:
    """GT-5: without borrowing every requested FR must stay within nominal; always
    v <= Available."""
    cqa, cqb, cqd = snap.cluster_queue("cqA"), snap.cluster_queue("cqB"), snap.cluster_queue("cqD")
    assert snap.fits(cqa, {GPU: 8}, allow_borrowing=False)
    assert snap.fits(cqa, {GPU: 8}, allow_borrowing=True)
    assert not snap.fits(cqa, {GPU: 9}, allow_borrowing=False)  # 2+9 > 10
    assert snap.fits(cqa, {GPU: 9}, allow_borrowing=True)  # 9 <= 12
    assert snap.fits(cqa, {GPU: 12}, allow_borrowing=True)
    assert not snap.fits(cqa, {GPU: 13}, allow_borrowing=True)
    assert snap.fits(cqb, {GPU: 1}, allow_borrowing=True)  # Available(cqB) = 1
    assert not snap.fits(cqb, {GPU: 1}, allow_borrowing=False)
    assert not snap.fits(cqb, {GPU: 2}, allow_borrowing=True)
    # Every requested FR counts: MEM has nominal 0 in cqA and Available 0.
    assert not snap.fits(cqa, {GPU: 1, MEM: 1}, allow_borrowing=False)
    assert not snap.fits(cqa, {GPU: 1, MEM: 1}, allow_borrowing=True)
    assert snap.fits(cqd, {GPU: 3}, allow_borrowing=False)
    assert not snap.fits(cqd, {GPU: 4}, allow_borrowing=True)
    assert snap.fits(cqa, {}, allow_borrowing=False)


# ---------------------------------------------------------------------------- MSG-4, implicit cohorts


def test_msg4_path(snap: Snapshot) -> None:
    """MSG-4: "/" + root/.../parent/cq; a CQ without cohort is "/<cq>"."""
    assert snap.path(snap.cluster_queue("cqA")) == "/root/left/cqA"
    assert snap.path(snap.cluster_queue("cqC")) == "/root/right/cqC"
    assert snap.path(snap.cluster_queue("cqD")) == "/cqD"


def test_implicit_cohorts_are_created() -> None:
    """DM-5: a cohort referenced but not given is created with no quota and no parent."""
    s = Snapshot(
        [ClusterQueue("q", cohort="ghost", quotas={GPU: q(5)})],
        [Cohort("real", parent="ghost-parent")],
    )
    ghost = s.cohort("ghost")
    assert ghost.parent is None
    assert ghost.subtree_quota[GPU] == 5
    assert ghost.height == 1
    assert s.path(s.cluster_queue("q")) == "/ghost/q"
    gp = s.cohort("ghost-parent")
    assert gp.parent is None
    assert s.cohort("real").parent is gp
    assert gp.height == 1  # only a childless cohort child


def test_unknown_cohort_when_implicit_disabled() -> None:
    """With implicit_cohorts=False an unknown reference is an UnknownCohort naming the
    referring object, the field and the missing name."""
    with pytest.raises(UnknownCohort) as info:
        Snapshot([ClusterQueue("q", cohort="ghost")], implicit_cohorts=False)
    msg = str(info.value)
    assert isinstance(info.value, KueuePreemptError)
    assert "'q'" in msg and "cohort" in msg and "ghost" in msg
    with pytest.raises(UnknownCohort) as info2:
        Snapshot([], [Cohort("real", parent="nowhere")], implicit_cohorts=False)
    msg2 = str(info2.value)
    assert "'real'" in msg2 and "parent" in msg2 and "nowhere" in msg2


def test_lookup_errors(snap: Snapshot) -> None:
    """Lookups of missing names raise the specific KueuePreemptError subclasses."""
    with pytest.raises(UnknownClusterQueue, match="nope"):
        snap.cluster_queue("nope")
    with pytest.raises(UnknownCohort, match="nope"):
        snap.cohort("nope")


# ---------------------------------------------------------------------------- construction errors


@pytest.mark.parametrize(
    ("queues", "cohorts", "workloads", "kind", "name"),
    [
        ([ClusterQueue("a"), ClusterQueue("a")], [], [], "ClusterQueue", "a"),
        ([], [Cohort("c"), Cohort("c")], [], "Cohort", "c"),
        (
            [ClusterQueue("a"), ClusterQueue("b")],
            [],
            [wl("w", "a", {GPU: 1}), wl("w", "b", {GPU: 1})],  # same key ns/w in two CQs
            "Workload",
            "ns/w",
        ),
    ],
)
def test_duplicate_names(
    queues: list[ClusterQueue], cohorts: list[Cohort], workloads: list[Workload], kind: str, name: str
) -> None:
    """Duplicate ClusterQueue / Cohort names and duplicate workload keys are rejected."""
    with pytest.raises(DuplicateName) as info:
        Snapshot(queues, cohorts, workloads)
    assert isinstance(info.value, KueuePreemptError)
    assert kind in str(info.value)
    assert repr(name) in str(info.value)


def test_workload_in_unknown_cluster_queue() -> None:
    """A workload whose admission names a CQ that is not given -> UnknownClusterQueue."""
    with pytest.raises(UnknownClusterQueue) as info:
        Snapshot([ClusterQueue("a")], [], [wl("w", "missing", {GPU: 1})])
    msg = str(info.value)
    assert isinstance(info.value, KueuePreemptError)
    assert "ns/w" in msg and "cluster_queue" in msg and "missing" in msg


def test_cohort_cycle_two() -> None:
    """A 2-cycle x -> y -> x has no root: CohortCycle listing the cycle."""
    with pytest.raises(CohortCycle) as info:
        Snapshot([], [Cohort("x", parent="y"), Cohort("y", parent="x")])
    cycle = info.value.cycle
    assert isinstance(info.value, KueuePreemptError)
    assert cycle[0] == cycle[-1] and len(cycle) == 3 and set(cycle) == {"x", "y"}
    msg = str(info.value)
    assert " -> ".join(cycle) in msg
    assert "parent" in msg


def test_cohort_cycle_three_with_tail() -> None:
    """A 3-cycle reached through a tail: the reported cycle is the loop only."""
    cohorts = [
        Cohort("tail", parent="x"),
        Cohort("x", parent="y"),
        Cohort("y", parent="z"),
        Cohort("z", parent="x"),
    ]
    with pytest.raises(CohortCycle) as info:
        Snapshot([ClusterQueue("q", cohort="tail")], cohorts)
    cycle = info.value.cycle
    assert cycle[0] == cycle[-1] and len(cycle) == 4 and set(cycle) == {"x", "y", "z"}
    assert "tail" not in cycle
    # Consecutive entries follow parent links.
    parents = {"x": "y", "y": "z", "z": "x"}
    assert all(parents[a] == b for a, b in zip(cycle, cycle[1:]))
    assert " -> ".join(cycle) in str(info.value)


def test_cohort_self_cycle() -> None:
    with pytest.raises(CohortCycle) as info:
        Snapshot([], [Cohort("s", parent="s")])
    assert info.value.cycle == ["s", "s"]


# ---------------------------------------------------------------------------- depth limits


def chain(depth: int) -> tuple[list[ClusterQueue], list[Cohort]]:
    """c0 (root) <- c1 <- ... <- c{depth-1} <- leaf CQ (nominal 5)."""
    cohorts = [Cohort("c0")] + [Cohort(f"c{i}", parent=f"c{i - 1}") for i in range(1, depth)]
    return [ClusterQueue("leaf", cohort=f"c{depth - 1}", quotas={GPU: q(5)})], cohorts


def _stack_depth() -> int:
    frame: Any = sys._getframe()
    n = 0
    while frame is not None:
        n += 1
        frame = frame.f_back
    return n


@pytest.fixture
def low_recursion_limit() -> Iterator[None]:
    """Only ~150 frames of headroom: any recursion along a 900-deep chain would fail."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_stack_depth() + 150)
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def test_input_too_large_for_deep_cohort_chain() -> None:
    """A cohort chain deeper than MAX_COHORT_DEPTH is rejected with InputTooLarge, not a
    RecursionError."""
    assert MAX_COHORT_DEPTH < 1100
    queues, cohorts = chain(1100)
    with pytest.raises(InputTooLarge) as info:
        Snapshot(queues, cohorts)
    assert isinstance(info.value, KueuePreemptError)
    assert re.search(r"'(c\d+|leaf)'", str(info.value)), "the message names the deep object"


def test_deep_chain_within_limit_works_without_recursion(low_recursion_limit: None) -> None:
    """A 900-deep chain is accepted and every query walks it iteratively.

    Expected: SQ = 5 at every level (no cohort quota), U = 2 everywhere, so
    Available(leaf) = 5 - 2 = 3, pot = 5; v = 4 borrows at every level: (height(c0), False)
    with height(c0) = 900 (c899 has height 1).
    """
    queues, cohorts = chain(900)
    w = wl("w", "leaf", {GPU: 2})
    s = Snapshot(queues, cohorts, [w])
    leaf = s.cluster_queue("leaf")
    assert s.cohort("c0").subtree_quota[GPU] == 5
    assert s.cohort("c0").usage[GPU] == 2
    assert s.available(leaf, GPU) == 3
    assert s.potential_available(leaf, GPU) == 5
    assert s.cohort("c0").height == 900
    assert s.lowest_fitting_height(leaf, GPU, 4) == (900, False)
    assert s.lowest_fitting_height(leaf, GPU, 3) == (0, True)
    assert s.path(leaf) == "/" + "/".join(f"c{i}" for i in range(900)) + "/leaf"
    before = s.state()
    with s.preserved():
        s.remove_workload(w)
        assert s.cohort("c0").usage[GPU] == 0
        assert s.available(leaf, GPU) == 5
    assert s.state() == before


def test_snapshot_nodes_are_quota_nodes(snap: Snapshot) -> None:
    """Sanity of the public node type used above."""
    assert isinstance(snap.cluster_queue("cqA"), QuotaNode)
    assert snap.cluster_queue("cqA").parent is snap.cohort("left")
    assert snap.cohort("left").parent is snap.cohort("root")

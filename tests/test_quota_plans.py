"""The cached quota plans and their plain-arithmetic fast path are exact (Q-2, Q-7, Q-9, DM-11).

Issue 18: the snapshot caches, per (node, FlavorResource), the static quota numbers of the
node's path, and walks them with plain ``+``/``-`` when every number is far from the int64
bounds, falling back to Q-2's saturating arithmetic otherwise. These properties compare, on
random three-level trees whose quotas and usages are either ordinary or close to the bounds
(so that both paths run, and saturation happens):

* Q-9 ``available`` with a reference written here from the spec's formula, in saturating
  arithmetic over the node maps, for every node — also after incremental changes;
* Q-7's incremental ``add_workload`` / ``remove_workload`` with a reference walk written here
  in saturating arithmetic (and, while nothing saturates, with a snapshot built from scratch,
  Q-6), and DM-11's restore by value.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt import ClusterQueue, Cohort, FlavorResource, PodSetUsage, ResourceQuota, Snapshot, Workload
from kueue_preempt.model import UNLIMITED
from kueue_preempt.model.quantity import amount_add, amount_sub
from kueue_preempt.snapshot.quota import QuotaNode

CPU = FlavorResource("f", "cpu")
HUGE = 2**62  # beyond the fast path's bound: forces the saturating path


def reference_available(node: QuotaNode) -> int:
    """Q-9 as the spec writes it: the root's free quota, then down the path each level's
    borrowing limit caps it and its local quota adds to it (Q-8), all in Q-2 arithmetic."""
    path = node.path
    root = path[-1]
    a = amount_sub(root.subtree_quota.get(CPU, 0), root.usage.get(CPU, 0))
    for n in reversed(path[:-1]):
        u = n.usage.get(CPU, 0)
        lq = n.local_quota.get(CPU)
        bl = n.borrowing_limit.get(CPU)
        if bl is not None:
            stored = amount_sub(n.subtree_quota.get(CPU, 0), lq or 0)
            used = max(0, amount_sub(u, lq or 0))
            a = min(a, amount_add(amount_sub(stored, used), bl))
        if lq is not None:
            a = amount_add(max(0, amount_sub(lq, u)), a)
    return max(0, a)


ordinary_amounts = st.integers(0, 12)
extreme_amounts = st.one_of(st.integers(0, 12), st.integers(HUGE, UNLIMITED - 1), st.just(UNLIMITED))


@st.composite
def quota(draw: st.DrawFn, extreme: bool, limits: bool = True) -> ResourceQuota:
    amounts = extreme_amounts if extreme else ordinary_amounts
    nominal = draw(amounts)
    bl = draw(st.none() | amounts) if limits else None
    ll = draw(st.none() | st.integers(0, 12).filter(lambda x: x <= nominal)) if limits else None
    return ResourceQuota(nominal=nominal, borrowing_limit=bl, lending_limit=ll)


@st.composite
def trees(draw: st.DrawFn) -> tuple[list[ClusterQueue], list[Cohort], list[Workload]]:
    """root -> two cohorts -> two ClusterQueues each, quotas on every level (like tier H).

    Half the trees are ordinary (the fast path runs), half may hold amounts near the bounds."""
    extreme = draw(st.booleans())
    cohorts = [Cohort(name="root", quotas={CPU: draw(quota(extreme, limits=False))})]  # Q-17
    queues = []
    for c in ("left", "right"):
        cohorts.append(Cohort(name=c, parent="root", quotas={CPU: draw(quota(extreme))}))
        for i in range(2):
            queues.append(ClusterQueue(name=f"{c}{i}", cohort=c, quotas={CPU: draw(quota(extreme))}))
    sizes = st.integers(1, 6) | st.integers(HUGE, UNLIMITED) if extreme else st.integers(1, 6)
    workloads = [
        Workload(
            name=f"w{i}",
            uid=f"w{i}",
            cluster_queue=draw(st.sampled_from([q.name for q in queues])),
            pod_sets=[PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": draw(sizes)})],
        )
        for i in range(draw(st.integers(0, 8)))
    ]
    return queues, cohorts, workloads


def reference_walk(snap: Snapshot, usage: dict[str, int], w: Workload, sign: int) -> None:
    """Q-7 on plain ``{node name: usage}``: the ClusterQueue takes the whole amount; each
    level passes up what exceeds its local quota's headroom (adding) or what it had stored
    above its local quota (removing)."""
    v = w.usage[CPU]
    for n in snap.cluster_queue(w.cluster_queue).path:
        used = usage.get(n.name, 0)
        lq = n.local_quota.get(CPU)
        if sign > 0:
            la = 0 if lq is None else max(0, amount_sub(lq, used))
            usage[n.name] = amount_add(used, v)
            if n.parent is None or v <= la:
                return
            v = amount_sub(v, la)
        else:
            stored = amount_sub(used, lq or 0)
            usage[n.name] = amount_sub(used, v)
            if n.parent is None or stored <= 0:
                return
            v = min(v, stored)


def usages(snap: Snapshot) -> dict[str, int]:
    nodes = list(snap.cluster_queues.values()) + list(snap.cohorts.values())
    return {n.name: n.usage[CPU] for n in nodes if CPU in n.usage}


def reference_fit_probe(snap: Snapshot, node: QuotaNode, v: int) -> tuple[bool, dict[FlavorResource, int]]:
    """Q-13 in saturating arithmetic over the node maps."""
    fits = node.subtree_quota.get(CPU, 0) >= amount_add(node.usage.get(CPU, 0), v)
    return fits, {CPU: max(0, amount_sub(v, snap.local_available(node, CPU)))}


def check_available(snap: Snapshot) -> None:
    for node in list(snap.cluster_queues.values()) + list(snap.cohorts.values()):
        assert snap.available(node, CPU) == reference_available(node), node.name
        # Q-10's cache, Q-16's and Q-13's plain paths equal their saturating versions.
        assert snap.potential_available(node, CPU) == Snapshot._potential_available(node, CPU)
        for v in (*range(0, 40), HUGE, UNLIMITED - 1, UNLIMITED):
            expected = snap._lowest_fitting_height(node, CPU, v)
            assert snap.lowest_fitting_height(node, CPU, v) == expected, (node.name, v)
            assert snap.fitting_height_and_available(node, CPU, v) == (*expected, snap.available(node, CPU))
            assert snap.fit_probe(node, {CPU: v}) == reference_fit_probe(snap, node, v), (node.name, v)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees(), st.data())
def test_plans_match_the_saturating_reference(tree: tuple[list[ClusterQueue], list[Cohort], list[Workload]], data: st.DataObject) -> None:
    """Q-9 equals the reference everywhere; Q-7's incremental walks equal Q-6's recomputation;
    DM-11 restores every value after a what-if block."""
    queues, cohorts, workloads = tree
    snap = Snapshot(queues, cohorts, workloads)
    check_available(snap)
    before = snap.state()
    present = list(workloads)
    expected = usages(snap)
    # Saturated sums are not associative, so only unsaturated states equal a rebuild (Q-6).
    ordinary = all(w.usage[CPU] < HUGE for w in workloads)

    def step(w: Workload, sign: int) -> None:
        reference_walk(snap, expected, w, sign)
        assert usages(snap) == expected
        if ordinary:  # a removed workload leaves explicit zeros behind: compare without them
            rebuilt = usages(Snapshot(queues, cohorts, present))
            assert {k: v for k, v in expected.items() if v} == {k: v for k, v in rebuilt.items() if v}
        check_available(snap)

    with snap.preserved():
        for w in data.draw(st.permutations(workloads)):
            if data.draw(st.booleans()):
                snap.remove_workload(w)
                present.remove(w)
                step(w, -1)
        for w in workloads:
            if w not in present and data.draw(st.booleans()):
                snap.add_workload(w)
                present.append(w)
                step(w, +1)
    assert snap.state() == before
    check_available(snap)

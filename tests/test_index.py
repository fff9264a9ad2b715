"""The candidate index (issue 7) and the snapshot's incremental facts (issue 18) are caches.

Random sequences of admissions, removals, index switches, what-if blocks and decisions run
through the embedders' state machine (``kueue_preempt.testing.stateful.SnapshotMachine``):
every decision must return the same targets, in the same order and with the same reasons, on
the maintained index, the default path (stored entries, over-quota sets, the incremental
fair-sharing ordering), a rebuilt snapshot and the reference path (a traced decision, which
keys, classifies and sorts every workload and scans every queue). After every step the stored
entries and over-quota sets must equal what a recomputation from scratch gives.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import HealthCheck, given, settings
from hypothesis.stateful import invariant
from hypothesis import strategies as st

from kueue_preempt import (
    Assignment,
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
    get_targets,
)
from kueue_preempt import DecisionTrace
from kueue_preempt.snapshot.quota import QuotaNode
from kueue_preempt.testing.stateful import SnapshotMachine
from kueue_preempt.testing.strategies import Scenario

FRS = (FlavorResource("f", "cpu"), FlavorResource("f", "gpu"))
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
QUEUES = ("a", "b", "c", "d")


def assert_incremental_facts(snap: Snapshot) -> None:
    """Issue 18: entries per (queue, FlavorResource) and the over-quota sets (Q-11) equal a
    recomputation from the workloads and usages."""
    nodes: list[QuotaNode] = list(snap.cluster_queues.values()) + list(snap.cohorts.values())
    for node in nodes:
        over_children: dict[FlavorResource, set[str]] = {}
        for child in node.child_cohorts + node.child_queues:
            for fr, v in child.usage.items():
                if v > child.subtree_quota.get(fr, 0):
                    over_children.setdefault(fr, set()).add(child.name)
        got = {fr: {n.name for n in s} for fr, s in node.over_children.items() if s}
        assert got == over_children, node
        if node.parent is None:
            over_queues: dict[FlavorResource, set[str]] = {}
            for q in snap.subtree(node):
                if q.is_cluster_queue:
                    for fr, v in q.usage.items():
                        if v > q.subtree_quota.get(fr, 0):
                            over_queues.setdefault(fr, set()).add(q.name)
            assert {fr: {n.name for n in s} for fr, s in node.over_queues.items() if s} == over_queues, node
        if node.is_cluster_queue:
            want: dict[FlavorResource, set[str]] = {}
            for key, w in node.workloads.items():
                if w.quota_reserved_at is None:
                    assert node.unreserved[key] is w
                    continue
                for fr in w.used_flavor_resources:
                    want.setdefault(fr, set()).add(key)
            assert {fr: set(d) for fr, d in node.entries.items() if d} == want, node
            for d in node.entries.values():
                for key, entry in d.items():
                    assert entry[7] is node.workloads[key] and entry[5] == node.name and entry[6] == key
    # ORD-1/ORD-5: the O(1) "is anything evicted or unreserved?" answers equal a recount.
    unreserved = sum(1 for q in snap.cluster_queues.values() for w in q.workloads.values() if w.quota_reserved_at is None)
    assert snap.has_unreserved() == (unreserved > 0)
    index = snap._index
    if index is not None and snap._index_valid:
        evicted = [w for q in snap.cluster_queues.values() for w in q.workloads.values() if w.evicted and w.quota_reserved_at is not None]
        assert index.any_evicted() == bool(evicted)


class IndexFactsMachine(SnapshotMachine):
    """The embedders' state machine (admissions, removals, index on/off, decisions with and
    without the index, what-if blocks) with the snapshot's stored incremental facts checked
    after every step as well: entries per (queue, FlavorResource), the over-quota sets (Q-11)
    and the O(1) evicted/unreserved answers equal a recomputation."""

    @invariant()
    def incremental_facts_match(self) -> None:
        if self.snapshot is not None:
            assert_incremental_facts(self.snapshot)

    def check_decision(self, decision: Scenario, got: list[Target], want: list[Target]) -> None:
        """Also the reference path: a traced decision keys, classifies and sorts every
        workload and scans every queue, and must choose the same targets in the same order."""
        super().check_decision(decision, got, want)
        traced = get_targets(
            decision.preemptor,
            decision.cluster_queue,
            decision.assignment,
            decision.snapshot(),
            config=decision.config,
            now=decision.now,
            trace=DecisionTrace(),
        )
        assert traced == want


IndexFactsMachine.TestCase.settings = settings(
    max_examples=150, stateful_step_count=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
TestIndexFactsMachine = IndexFactsMachine.TestCase


def test_index_hides_removals_inside_what_if_blocks_and_goes_stale_on_other_changes() -> None:
    """A removal inside ``preserved()`` hides the workload from every stream (the index stays
    usable, as ``candidate_entries`` no longer lists it); re-adding the same object shows it
    again; adding another workload makes the index stale. Leaving the block restores it."""
    cpu = FRS[0]
    q = ClusterQueue(name="a", quotas={cpu: ResourceQuota(nominal=4)})
    w = Workload(name="w", cluster_queue="a", quota_reserved_at=T0, pod_sets=[PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": 1})])
    snap = Snapshot([q], workloads=[w])
    cfg = PreemptionConfig()
    snap.enable_index(cfg)
    assert snap.index_for(cfg) is not None
    assert snap.index_for(PreemptionConfig(preemption_cost_enabled=True)) is None  # other key
    assert snap.index_for(PreemptionConfig(admission_fair_sharing=True)) is None  # ORD-3
    node = snap.cluster_queue("a")

    def streamed() -> list[str]:
        index = snap.index_for(cfg)
        assert index is not None
        return [e[6] for e in snap.candidate_stream(index, node, frozenset({cpu}), T0, None, None)]

    assert streamed() == ["/w"]
    with snap.preserved():
        snap.remove_workload(w)
        assert streamed() == []
        with snap.preserved():
            snap.add_workload(w)  # the same object back: listed again
            assert streamed() == ["/w"]
        assert streamed() == []
        other = Workload(name="v", cluster_queue="a", quota_reserved_at=T0, pod_sets=w.pod_sets)
        snap.add_workload(other)  # not in the index: stale until the block ends
        assert snap.index_for(cfg) is None
    assert snap.index_for(cfg) is not None
    assert streamed() == ["/w"]
    snap.remove_workload(w)  # outside a block: the index follows
    assert snap.index_for(cfg) is not None
    assert get_targets(Workload(name="in", priority=1), "a", Assignment({cpu: 5}, [cpu]), snap, config=cfg, now=T0) == []
    snap.disable_index()
    assert snap.index_for(cfg) is None


def test_indexed_fair_sharing_binds_each_queues_policy() -> None:
    """Regression: each queue's candidate stream filters with its own policy.

    p (within LowerPriority, reclaim Any) and x share cohort c. The preemptor (priority 5)
    needs p's whole quota. p runs o1 (priority 0) and o2 (priority 9): LowerPriority allows
    only o1, so no complete target set exists inside p, and x is within nominal. A stream that
    filtered o2 with x's ``Any`` policy would wrongly return [o1, o2].
    """
    cpu = FRS[0]
    pre = ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
    queues = [
        ClusterQueue(name="p", cohort="c", quotas={cpu: ResourceQuota(nominal=2)}, preemption=pre),
        ClusterQueue(name="x", cohort="c", quotas={cpu: ResourceQuota(nominal=2)}, preemption=pre),
    ]

    def wl(name: str, cq: str, priority: int) -> Workload:
        return Workload(
            name=name, cluster_queue=cq, priority=priority, uid=name, quota_reserved_at=T0,
            pod_sets=[PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": 1})],
        )

    workloads = [wl("o1", "p", 0), wl("o2", "p", 9), wl("x1", "x", 0), wl("x2", "x", 0), wl("x3", "x", 0)]
    plain = Snapshot(queues, [Cohort("c")], workloads)
    indexed = Snapshot(queues, [Cohort("c")], workloads)
    config = PreemptionConfig(fair_sharing=FairSharingConfig())
    indexed.enable_index(config)
    args = (Workload(name="in", priority=5), "p", Assignment({cpu: 2}, [cpu]))
    want = get_targets(*args, plain, config=config, now=T0)
    assert get_targets(*args, indexed, config=config, now=T0) == want
    assert {t.workload.name for t in want} != {"o1", "o2"}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_wide_cohort_equal_shares_follow_head_candidates(data: st.DataObject) -> None:
    """FS-ORD-4 in a wide cohort where many ClusterQueues borrow the same amount (equal DRS):
    the incremental ordering keys a share level by the queues' head candidates once and then
    reads the heap (issue 18); targets must equal the reference path's (a traced decision,
    which re-sorts every queue at every step) and the indexed path's."""
    cpu = FRS[0]
    width = data.draw(st.integers(3, 8))
    names = [f"q{i}" for i in range(width)]
    queues = [
        ClusterQueue(
            name=n,
            cohort="wide",
            quotas={cpu: ResourceQuota(nominal=2)},
            preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any"),
        )
        for n in names
    ]
    workloads = []
    for i, n in enumerate(names[1:]):
        # Every other queue borrows 0-2 units over its nominal 2: shares fall on few levels.
        for j in range(2 + data.draw(st.integers(0, 2))):
            workloads.append(
                Workload(
                    name=f"w{i}-{j}",
                    namespace="ns",
                    uid=f"u{i}-{j}",
                    cluster_queue=n,
                    priority=data.draw(st.integers(0, 3)),
                    quota_reserved_at=T0 + timedelta(minutes=data.draw(st.integers(0, 4))),
                    pod_sets=[PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": 1})],
                )
            )
    config = PreemptionConfig(fair_sharing=FairSharingConfig())
    plain = Snapshot(queues, [Cohort(name="wide")], workloads)
    indexed = Snapshot(queues, [Cohort(name="wide")], workloads)
    indexed.enable_index(config)
    # The preemptor's queue q0 is empty: it needs up to its nominal plus what the others lend.
    request = data.draw(st.integers(1, 2 + 2 * width))
    assignment = Assignment(requests={cpu: request}, preempt=[cpu])
    preemptor = Workload(name="in", namespace="ns", uid="in", priority=5)
    now = T0 + timedelta(minutes=5)
    want = get_targets(preemptor, "q0", assignment, plain, config=config, now=now)
    got = get_targets(preemptor, "q0", assignment, indexed, config=config, now=now)
    reference = get_targets(preemptor, "q0", assignment, plain, config=config, now=now, trace=DecisionTrace())
    assert got == want == reference

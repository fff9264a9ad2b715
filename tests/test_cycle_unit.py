"""Hand-written scheduling-cycle scenarios, each outcome derived from the rule it cites.

One CPU flavor ``default`` throughout; amounts in milli-CPU.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import attrs

from kueue_preempt import ClusterQueue, ClusterQueuePreemption, Cohort, PodSetUsage, ResourceQuota, Workload
from kueue_preempt.model import Condition
from kueue_preempt.cycle import (
    ClusterQueueQueue,
    ClusterState,
    LabelSelector,
    LocalQueue,
    Namespace,
    Outcome,
    ClusterQueueSettings,
    QueueState,
    RequeueReason,
    WorkloadStatus,
    initial_queue_state,
    notify,
    release_evicted,
    run_cycles,
    schedule_cycle,
)
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model.flavors import FlavorQuotas, PodSetSpec, ResourceGroup

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def cq(name: str, cpus: int, cohort: str | None = None, within: str = "LowerPriority") -> ClusterQueue:
    return ClusterQueue(
        name=name,
        cohort=cohort,
        preemption=ClusterQueuePreemption(within_cluster_queue=within),
        resource_groups=[ResourceGroup(("cpu",), [FlavorQuotas("default", {"cpu": ResourceQuota(nominal=cpus * 1000)})])],
    )


def pending(name: str, queue: str, cpus: int, priority: int, minute: int = 0) -> Workload:
    return Workload(
        name=name,
        namespace="ns",
        uid=name,
        local_queue=queue,
        priority=priority,
        creation_time=NOW - timedelta(minutes=60 - minute),
        spec_pod_sets=[PodSetSpec("main", 1, {"cpu": cpus * 1000})],
    )


def admitted(name: str, queue: str, cpus: int, priority: int) -> Workload:
    return Workload(
        name=name,
        namespace="ns",
        uid=name,
        cluster_queue=queue,
        local_queue=queue,
        priority=priority,
        creation_time=NOW - timedelta(hours=2),
        quota_reserved_at=NOW - timedelta(hours=1),
        conditions=[Condition("QuotaReserved", "True", "QuotaReserved", NOW - timedelta(hours=1))],
        pod_sets=[PodSetUsage("main", 1, {"cpu": "default"}, {"cpu": cpus * 1000})],
        spec_pod_sets=[PodSetSpec("main", 1, {"cpu": cpus * 1000})],
    )


def cluster(
    queues: list[ClusterQueue], workloads: list[Workload], strategy: str = "BestEffortFIFO", **extra: object
) -> ClusterState:
    return ClusterState(
        cluster_queues=queues,
        cohorts=extra.get("cohorts", ()),  # type: ignore[arg-type]
        namespaces=extra.get("namespaces", ()),  # type: ignore[arg-type]
        local_queues=[LocalQueue(namespace="ns", name=q.name, cluster_queue=q.name) for q in queues],
        queueing={q.name: ClusterQueueSettings(q.name, queueing_strategy=strategy, namespace_selector=extra.get("selector", LabelSelector())) for q in queues},  # type: ignore[arg-type]
        workloads=workloads,
    )


def test_no_head_no_cycle() -> None:
    """SC-CY-1: without a head nothing runs and the state is returned as is."""
    c = cluster([cq("q", 4)], [admitted("a", "q", 2, 0)])
    r = schedule_cycle(c, None, now=NOW)
    assert r.attempt is None and r.heads == () and r.cluster is c


def test_one_head_per_queue_and_fit_admits() -> None:
    """SC-CY-2/SC-QO-1: one head per ClusterQueue, the higher priority one; it fits (SC-AD-1)."""
    c = cluster([cq("q", 4)], [pending("low", "q", 1, 0), pending("high", "q", 1, 5, minute=10)])
    r = schedule_cycle(c, None, now=NOW)
    assert r.heads == ("ns/high",)
    assert r.admitted == ("ns/high",)
    w = next(w for w in r.cluster.workloads if w.key == "ns/high")
    assert w.cluster_queue == "q" and w.pod_sets[0].flavors["cpu"] == "default" and w.pod_sets[0].usage["cpu"] == 1000
    assert r.queues.active_by_queue() == {"q": ["ns/low"]}
    assert r.attempt == "success"


def test_preemptor_waits_then_sticks_as_head() -> None:
    """SC-PR-2, SC-RQ-6: the preemptor is not admitted in the evicting cycle, becomes the
    sticky head of its BestEffortFIFO queue, and a higher-priority arrival does not overtake it."""
    c = cluster([cq("q", 4)], [admitted("victim", "q", 4, 0), pending("p", "q", 4, 5)])
    r1 = schedule_cycle(c, None, now=NOW)
    (res,) = r1.results
    assert res.outcome is Outcome.PREEMPTING and res.queue == "active"
    assert [t.workload.key for t in res.targets] == ["ns/victim"]
    assert res.requeue_reason is RequeueReason.PENDING_PREEMPTION
    marker = r1.queues.queue("q").preemptor
    assert marker is not None and marker.key == "ns/p" and marker.sticky
    # A higher-priority workload arrives while the victim is still terminating.
    arrival = pending("urgent", "q", 4, 100, minute=30)
    c2 = attrs.evolve(r1.cluster, workloads=list(r1.cluster.workloads) + [arrival])
    q = r1.queues.queue("q")
    qs2 = attrs.evolve(r1.queues, queues={"q": attrs.evolve(q, active=q.active | {arrival.key})})
    r2 = schedule_cycle(c2, qs2, now=NOW)
    assert r2.heads == ("ns/p",)
    # The victim is already evicted: counted again without a new write (SC-PR-1, MSG-7).
    assert r2.results[0].outcome is Outcome.PREEMPTING
    assert not any(e.reason == "EvictedDueToPreempted" for e in r2.events)


def test_victim_release_then_admission() -> None:
    """SC-SIM-2, SC-PR-4: after the victims are released the preemptor is admitted."""
    c = cluster([cq("q", 4)], [admitted("victim", "q", 4, 0), pending("p", "q", 4, 5)])
    run = run_cycles(c, None, now=NOW, cycles=2)
    assert run.cycles[0].results[0].outcome is Outcome.PREEMPTING
    assert run.released[0] == ("ns/victim",)
    assert run.cycles[1].admitted == ("ns/p",)
    assert run.queues.queue("q").preemptor is None  # SC-RQ-6: cleared by the admission


def test_strict_fifo_blocks_best_effort_parks() -> None:
    """SC-QO-4, SC-RQ-4: a NoFit head stays and blocks under StrictFIFO; under
    BestEffortFIFO it is parked and the next workload is admitted in the next cycle."""
    ws = [pending("big", "q", 8, 5), pending("small", "q", 1, 0)]
    strict = run_cycles(cluster([cq("q", 2)], ws, "StrictFIFO"), None, now=NOW, cycles=2)
    assert [r.heads for r in strict.cycles] == [("ns/big",), ("ns/big",)]
    assert strict.cycles[0].results[0].queue == "active"
    assert not any(c.admitted for c in strict.cycles)
    best = run_cycles(cluster([cq("q", 2)], ws, "BestEffortFIFO"), None, now=NOW, cycles=2)
    assert best.cycles[0].results[0].queue == "inadmissible"
    assert best.cycles[1].admitted == ("ns/small",)


def test_shape_hash_parks_equivalent_workloads() -> None:
    """SC-RQ-8: a parked NoFit head takes the active workloads of the same shape with it."""
    ws = [pending("a", "q", 8, 5), pending("twin", "q", 8, 5, minute=5), pending("other", "q", 1, 5, minute=9)]
    r = schedule_cycle(cluster([cq("q", 2)], ws), None, now=NOW)
    assert r.queues.inadmissible_by_queue() == {"q": ["ns/a", "ns/twin"]}
    assert r.queues.active_by_queue() == {"q": ["ns/other"]}


def test_selector_mismatch_is_parked_even_under_strict_fifo() -> None:
    """SC-NOM-1 3b, SC-RQ-4: NamespaceMismatch is never immediate."""
    c = cluster(
        [cq("q", 4)],
        [pending("w", "q", 1, 0)],
        "StrictFIFO",
        namespaces=[Namespace("ns", {"team": "b"})],
        selector=LabelSelector({"team": "a"}),
    )
    r = schedule_cycle(c, None, now=NOW)
    (res,) = r.results
    assert res.outcome is Outcome.REJECTED and res.queue == "inadmissible"
    assert (res.reason, res.message) == ("Misconfigured", "workload namespace doesn't match ClusterQueue selector")


def test_null_selector_selects_nothing() -> None:
    """SC-CFG-3: a null namespaceSelector admits no namespace."""
    c = cluster([cq("q", 4)], [pending("w", "q", 1, 0)], selector=None)
    assert schedule_cycle(c, None, now=NOW).results[0].outcome is Outcome.REJECTED


def test_notify_returns_the_whole_cohort_tree() -> None:
    """SC-IN-2: a notify for one ClusterQueue returns parked workloads of every queue under the root."""
    c = cluster(
        [cq("a", 1, "child"), cq("b", 1, "root")],
        [pending("wa", "a", 8, 0)],
        cohorts=[Cohort("child", parent="root"), Cohort("root")],
    )
    r = schedule_cycle(c, None, now=NOW)
    assert r.queues.inadmissible_by_queue() == {"a": ["ns/wa"]}
    back = notify(r.cluster, r.queues, "b", NOW)
    assert back.active_by_queue() == {"a": ["ns/wa"]}


def test_release_requeues_victim_actively() -> None:
    """SC-EV-2/3/4: a released preemption victim returns to its queue's active set."""
    c = cluster([cq("q", 4)], [admitted("victim", "q", 4, 0), pending("p", "q", 4, 5)])
    r = schedule_cycle(c, None, now=NOW)
    c2, q2, released = release_evicted(r.cluster, r.queues, NOW)
    assert released == ["ns/victim"]
    v = next(w for w in c2.workloads if w.key == "ns/victim")
    assert v.cluster_queue == "" and v.condition("Requeued") is not None
    assert "ns/victim" in q2.queue("q").active


def test_waiting_preemptor_inferred_from_conditions() -> None:
    """Decision (sc-d): a pending workload whose QuotaReserved=False says
    WaitingForPreemptedWorkloads starts as its queue's preemptor marker."""
    w = attrs.evolve(
        pending("p", "q", 1, 0),
        conditions=[Condition("QuotaReserved", "False", "WaitingForPreemptedWorkloads", NOW)],
    )
    qs = initial_queue_state(cluster([cq("q", 4)], [w, pending("x", "q", 1, 9)]))
    marker = qs.queue("q").preemptor
    assert marker is not None and marker.key == "ns/p"
    # ... so it is the head even though "x" has a higher priority (SC-QO-1 criterion 2).
    assert schedule_cycle(cluster([cq("q", 4)], [w, pending("x", "q", 1, 9)]), qs, now=NOW).heads == ("ns/p",)


def test_inputs_are_not_mutated() -> None:
    """Pure function: the same inputs give the same result, and they are left unchanged."""
    c = cluster([cq("q", 4)], [admitted("victim", "q", 4, 0), pending("p", "q", 4, 5)])
    qs = initial_queue_state(c)
    before = (c, qs)
    a = schedule_cycle(c, qs, now=NOW)
    b = schedule_cycle(c, qs, now=NOW)
    assert (c, qs) == before
    assert a.results == b.results and a.events == b.events and a.queues == b.queues


def test_unknown_queue_never_a_head() -> None:
    """SC-ST-1: a LocalQueue pointing to a missing ClusterQueue queues nothing."""
    c = attrs.evolve(cluster([cq("q", 4)], [pending("w", "nowhere", 1, 0)]), local_queues=[LocalQueue(namespace="ns", name="nowhere", cluster_queue="gone")])
    assert initial_queue_state(c) == QueueState()
    assert schedule_cycle(c, None, now=NOW).attempt is None


def test_queue_state_is_a_value() -> None:
    """SC-ST-3: the queue memory is an immutable value; an empty queue compares equal."""
    assert ClusterQueueQueue() == ClusterQueueQueue(active=[], inadmissible=[])


def _parked_state(namespaces: list[Namespace], selector: LabelSelector) -> tuple[ClusterState, QueueState]:
    """Four workloads parked in q: a plain one, one held by Requeued=False, one whose
    requeueAt is still ahead, one whose requeueAt has passed (SC-RQ-2)."""

    held = attrs.evolve(
        pending("held", "q", 1, 0), conditions=[Condition("Requeued", "False", "PodsReadyTimeout", NOW)]
    )
    ws = [pending("plain", "q", 1, 0), held, pending("later", "q", 1, 0), pending("due", "q", 1, 0)]
    statuses = {"ns/later": WorkloadStatus(requeue_at=NOW + timedelta(minutes=1)), "ns/due": WorkloadStatus(requeue_at=NOW)}
    c = attrs.evolve(cluster([cq("q", 4)], ws, namespaces=namespaces, selector=selector), statuses=statuses)
    queues = QueueState(queues={"q": ClusterQueueQueue(inadmissible=[w.key for w in ws], failed_hashes=[("x",)])})
    return c, queues


def test_requeue_run_moves_the_parked_set_as_the_pure_run_does() -> None:
    """SC-IN-1 on the incremental state (which moves a ClusterQueue's parked workloads as one
    set when every namespace pointing at it matches) equals the pure ``queue_inadmissible``:
    held workloads stay (SC-RQ-2), failed hashes are cleared, and a namespace that does not
    match (or does not exist) keeps its workloads parked."""
    from kueue_preempt.cycle import CycleState, queue_inadmissible

    cases = [
        ([], LabelSelector()),  # namespaces not modelled: every one matches
        ([Namespace("ns", {"team": "a"})], LabelSelector()),
        ([Namespace("ns", {"team": "a"})], LabelSelector(match_labels={"team": "b"})),  # no match: all stay
        ([Namespace("other", {})], LabelSelector()),  # "ns" does not exist: all stay
    ]
    for namespaces, selector in cases:
        c, queues = _parked_state(namespaces, selector)
        live = CycleState(c, queues)
        moved = live.queue_inadmissible(["q"], NOW)
        want = queue_inadmissible(c, queues, ["q"], NOW)
        assert live.queue_state().queues == want.queues, (namespaces, selector)
        assert moved == sorted(want.queue("q").active)
    c, queues = _parked_state([], LabelSelector())
    assert CycleState(c, queues).queue_inadmissible(["q"], NOW) == ["ns/due", "ns/plain"]


def test_incremental_heads_follow_a_priority_change_of_a_waiting_workload() -> None:
    """SC-QO-1 on the incremental state, whose heads come from a heap kept per active set: a
    controller's write (``replace``) that raises the priority of a workload waiting in that
    set makes it the next head, as the pure cycle says."""
    from kueue_preempt.cycle import CycleState

    ws = [admitted("big", "q", 4, 9)] + [pending(f"w{i}", "q", 1, i, minute=i) for i in range(4)]
    c = cluster([cq("q", 4)], ws)
    live = CycleState(c)
    first = live.cycle(NOW)
    assert first.heads == ("ns/w3",)  # nothing fits; w3 goes back to the active set
    waiting = live.workloads["ns/w0"]
    live.replace(attrs.evolve(waiting, priority=50))
    pure = schedule_cycle(live.cluster_state(), live.queue_state(), now=NOW)
    step = live.cycle(NOW)
    assert step.heads == pure.heads == ("ns/w0",)
    assert step.results == pure.results


def test_one_snapshot_builder_with_the_cycle_and_explain_differences_as_parameters() -> None:
    """ClusterState.snapshot (decision (st-e) step 4): the cycle leaves cohort cycles out and
    turns the index on; by default every ClusterQueue is kept, the charged workloads are those
    that hold quota (SC-ST-6), and ``reclaimable_pods=False`` ignores reclaimable pods (FAS-1a)."""
    loop = [Cohort("a", parent="b"), Cohort("b", parent="a")]
    held = attrs.evolve(admitted("x", "q", 2, 0), reclaimable_pods={"main": 1})
    c = ClusterState(
        cluster_queues=[cq("q", 4), cq("r", 4, cohort="a")],
        cohorts=loop,
        workloads=[held, admitted("y", "r", 1, 0), pending("p", "q", 1, 0)],
        statuses={"ns/y": WorkloadStatus(active=False)},
    )
    cycle = c.snapshot(skip_cohort_cycles=True, resource_groups=True, index=PreemptionConfig())
    assert cycle.has_cluster_queue("q") and not cycle.has_cluster_queue("r")
    assert list(cycle.cluster_queue("q").workloads) == ["ns/x"]
    assert cycle.index_for(PreemptionConfig()) is not None
    no_cycles = attrs.evolve(c, cohorts=[Cohort("a")], cluster_queues=[cq("q", 4), cq("r", 4, cohort="a")])
    every = no_cycles.snapshot()
    assert every.has_cluster_queue("r") and list(every.cluster_queue("r").workloads) == []  # inactive: not charged
    assert no_cycles.snapshot(charged=[]).cluster_queue("q").workloads == {}
    off = no_cycles.snapshot(reclaimable_pods=False).cluster_queue("q").workloads["ns/x"]
    assert off.reclaimable_pods == {}

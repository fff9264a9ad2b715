"""Small hand-built classic-preemption scenarios (spec §9 GT-*, §10 CL-*, §12 FB-*).

One resource, ``default/gpu`` (plain counts). Each test states the expected result and the
hand computation that leads to it. Every run also checks GT-3 (snapshot unchanged).
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from kueue_preempt import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FlavorResource,
    KueuePreemptError,
    PodSetUsage,
    PreemptionConfig,
    PreemptionReason,
    ResourceQuota,
    Snapshot,
    Target,
    Workload,
    get_targets,
)
from kueue_preempt.errors import UnknownClusterQueue
from kueue_preempt.model import BOOST_ANNOTATION
from kueue_preempt.preemption import classic_targets

UTC = timezone.utc
NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
GPU = FlavorResource("default", "gpu")
CPU = FlavorResource("default", "cpu")
DEFAULT = PreemptionConfig()

IN_CQ = PreemptionReason.IN_CLUSTER_QUEUE
RECLAIM = PreemptionReason.IN_COHORT_RECLAMATION
WHILE_BORROWING = PreemptionReason.IN_COHORT_RECLAIM_WHILE_BORROWING


def cq(
    name: str,
    nominal: int,
    cohort: str | None = None,
    within: str = "Never",
    reclaim: str = "Never",
    bwc: BorrowWithinCohort | None = None,
    extra: dict[FlavorResource, ResourceQuota] | None = None,
) -> ClusterQueue:
    quotas = {GPU: ResourceQuota(nominal)}
    quotas.update(extra or {})
    return ClusterQueue(
        name,
        cohort=cohort,
        quotas=quotas,
        preemption=ClusterQueuePreemption(
            within_cluster_queue=within, reclaim_within_cohort=reclaim, borrow_within_cohort=bwc
        ),
    )


def admitted(
    name: str,
    queue: str,
    gpu: int,
    priority: int,
    *,
    evicted: bool = False,
    boost: str | None = None,
    cpu: int | None = None,
) -> Workload:
    flavors = {"gpu": "default"}
    usage = {"gpu": gpu}
    if cpu is not None:
        flavors = {"cpu": "default"} if gpu == 0 else {"gpu": "default", "cpu": "default"}
        usage = {"cpu": cpu} if gpu == 0 else {"gpu": gpu, "cpu": cpu}
    return Workload(
        name=name,
        namespace="ns",
        uid=name,
        cluster_queue=queue,
        priority=priority,
        evicted=evicted,
        quota_reserved_at=NOW - timedelta(hours=1),
        creation_time=NOW - timedelta(hours=2),
        annotations={} if boost is None else {BOOST_ANNOTATION: boost},
        pod_sets=[PodSetUsage(flavors=flavors, usage=usage)],
    )


def incoming(priority: int) -> Workload:
    return Workload(
        name="incoming",
        namespace="ns",
        uid="pre-uid",
        labels={"kueue.x-k8s.io/job-uid": "job-uid"},
        priority=priority,
        creation_time=NOW,
    )


def gpu_request(v: int) -> Assignment:
    return Assignment(requests={GPU: v}, preempt={GPU})


def run(
    snapshot: Snapshot,
    queue: str,
    request: int | Assignment,
    priority: int = 5,
    config: PreemptionConfig = DEFAULT,
) -> list[Target]:
    """classic_targets, checking GT-3 and that get_targets (GT-2, classic config) agrees."""
    assignment = gpu_request(request) if isinstance(request, int) else request
    before = snapshot.state()
    targets = classic_targets(incoming(priority), queue, assignment, snapshot, config=config, now=NOW)
    assert snapshot.state() == before, "GT-3: snapshot changed"
    again = get_targets(incoming(priority), queue, assignment, snapshot, config=config, now=NOW)
    assert snapshot.state() == before, "GT-3: snapshot changed"
    assert again == targets
    return targets


def picked(targets: list[Target]) -> list[tuple[str, PreemptionReason]]:
    return [(t.workload.name, t.reason) for t in targets]


# ---------------------------------------------------------------------------- standalone CQ


def standalone(nominal: int = 3) -> Snapshot:
    return Snapshot(
        [cq("solo", nominal, within="LowerPriority")],
        [],
        [admitted("low1", "solo", 1, 1), admitted("low2", "solo", 1, 2), admitted("high", "solo", 1, 10)],
    )


def test_cl_att4_standalone_cq_takes_lowest_priority_first() -> None:
    """CL-ATT-4: no cohort -> no_other -> one borrowing attempt over own workloads; fit is
    v <= nominal - U. Candidates (LowerPriority vs EP 5): low1 (1), low2 (2); high (10) is
    NEVER. Order ORD-4: low1, low2. R=2: after low1 U=2, 2 > 3-2; after low2 U=1, 2 <= 2
    -> fits. Fill-back: re-adding low1 gives 2 > 1 -> kept. Result [low1, low2]."""
    targets = run(standalone(), "solo", 2)
    assert picked(targets) == [("low1", IN_CQ), ("low2", IN_CQ)]
    assert all(t.cluster_queue == "solo" for t in targets)
    # MSG-3/MSG-4: path of a CQ without cohort is "/solo".
    assert targets[0].message == (
        "Preempted to accommodate a workload (UID: pre-uid, JobUID: job-uid) due to prioritization in the "
        "ClusterQueue; preemptor path: /solo; preemptee path: /solo"
    )


def test_cl_att4_standalone_single_target() -> None:
    """CL-ATT-4: R=1: after removing low1, U=2 and 1 <= 3-2 -> [low1]."""
    assert picked(run(standalone(), "solo", 1)) == [("low1", IN_CQ)]


def test_gt4_empty_list_when_impossible() -> None:
    """GT-4: R=4 > nominal 3 can never fit; R=3 would need `high` (EP 10, not a candidate):
    after removing low1 and low2 U=1 and 3 > 2. Both return [] (no partial set)."""
    assert run(standalone(), "solo", 4) == []
    assert run(standalone(), "solo", 3) == []


def test_gt6_returns_a_target_even_if_preemptor_already_fits() -> None:
    """GT-6: nominal 4, U 3, R 1 fits already, but the fit is tested only after a removal:
    low1 is removed first and fill-back never drops the last target -> [low1]."""
    assert picked(run(standalone(nominal=4), "solo", 1)) == [("low1", IN_CQ)]


def test_cl_var1_candidate_must_use_an_frnp() -> None:
    """CL-VAR-1 step 1 / POL-9: cpu_only (EP 1) uses only default/cpu, which is Fit-mode, so it
    is NEVER; the GPU workload (EP 2) is taken. CPU: nominal 10, U 8, R 2 fits in 2.
    With R cpu 3 the preemptor would need cpu_only gone (3 > 10-8), which it may not take:
    gpu_user alone does not help -> []."""
    s = Snapshot(
        [cq("solo", 2, within="LowerPriority", extra={CPU: ResourceQuota(10)})],
        [],
        [admitted("cpu_only", "solo", 0, 1, cpu=8), admitted("gpu_user", "solo", 2, 2)],
    )
    assignment = Assignment(requests={GPU: 2, CPU: 2}, preempt={GPU})
    assert picked(run(s, "solo", assignment)) == [("gpu_user", IN_CQ)]
    assert run(s, "solo", Assignment(requests={GPU: 2, CPU: 3}, preempt={GPU})) == []


# ---------------------------------------------------------------------------- FB-2


def test_fb2_swap_remove_order_example() -> None:
    """FB-2 example: selection [a, b, c, d]; c and a can be re-admitted, b cannot -> [d, b].

    Standalone CQ nominal 10; a=1 (EP 1), b=4 (EP 2), c=1 (EP 3), d=4 (EP 4); U=10; R=8.
    Selection: after a U=9, b U=5, c U=4 (avail 6), d U=0 (avail 10 >= 8) -> [a, b, c, d].
    Fill-back i=2: +c -> U=1, 8 <= 9 fits -> T[2]=d, T=[a, b, d];
              i=1: +b -> U=5, 8 > 5 -> removed again;
              i=0: +a -> U=2, 8 <= 8 fits -> T[0]=d, drop last -> [d, b]."""
    s = Snapshot(
        [cq("solo", 10, within="LowerPriority")],
        [],
        [admitted("a", "solo", 1, 1), admitted("b", "solo", 4, 2), admitted("c", "solo", 1, 3), admitted("d", "solo", 4, 4)],
    )
    assert picked(run(s, "solo", 8)) == [("d", IN_CQ), ("b", IN_CQ)]


# ---------------------------------------------------------------------------- CL-VAR-2


def test_cl_var2_reason_fixed_at_classification() -> None:
    """CL-VAR-2: a RECLAIM_WHILE_BORROWING candidate chosen in the no-borrow attempt still
    reports InCohortReclaimWhileBorrowing.

    Cohort co: a (preemptor CQ, nominal 4; within LowerPriority, reclaim Any,
    borrowWithinCohort LowerPriority), b (nominal 0), c (nominal 1). SQ(co)=5.
    a_low (a, EP 1, 1), b_low (b, EP 1, 2), b_high (b, EP 10, 2); U(co)=5. Preemptor EP 5, R=4.
    * fit_probe(a, 4): 4 >= 1+4 fails -> adv false (CL-GEN-4).
    * b is over nominal -> b_low: Any ok, EP 1 < 5, no threshold -> RECLAIM_WHILE_BORROWING;
      b_high: EP 10 >= 5 -> RECLAIM_WITHOUT_BORROWING; a_low -> WITHIN_CQ.
    * CL-ATT-1: borrowing allowed -> attempts [borrow, no-borrow]; order [b_low, b_high, a_low].
    * Borrow attempt: -b_low U(co)=3 Available(a)=2 < 4; b_high invalid (RWOB);
      -a_low U(co)=2 Available 3 < 4 -> fail.
    * No-borrow: -b_low (a still borrows: 1+4 > 4); -b_high; -a_low: U(a)=0, 0+4 <= 4 and
      Available 5 >= 4 -> fits. Fill-back: +b_high -> Available 3 < 4 (keep);
      +b_low -> Available 3 < 4 (keep). Result [b_low, b_high, a_low]."""
    s = Snapshot(
        [
            cq("a", 4, "co", within="LowerPriority", reclaim="Any", bwc=BorrowWithinCohort(policy="LowerPriority")),
            cq("b", 0, "co"),
            cq("c", 1, "co"),
        ],
        [Cohort("co")],
        [admitted("a_low", "a", 1, 1), admitted("b_low", "b", 2, 1), admitted("b_high", "b", 2, 10)],
    )
    targets = run(s, "a", 4)
    assert picked(targets) == [("b_low", WHILE_BORROWING), ("b_high", RECLAIM), ("a_low", IN_CQ)]
    assert [t.cluster_queue for t in targets] == ["b", "b", "a"]
    assert targets[0].message == (
        "Preempted to accommodate a workload (UID: pre-uid, JobUID: job-uid) due to reclamation within the "
        "cohort while borrowing; preemptor path: /co/a; preemptee path: /co/b"
    )


# ---------------------------------------------------------------------------- CL-VAR-1 step 6 threshold


def threshold_snapshot(threshold: int | None, b3_priority: int = 3, b3_boost: str | None = None) -> Snapshot:
    """Cohort co: a (nominal 2; reclaim LowerPriority; borrowWithinCohort LowerPriority with
    the threshold), b (nominal 0) holding b1 (EP 1, 2) and b3 (2), c (nominal 2, idle).
    SQ(co)=4, U(co)=4."""
    return Snapshot(
        [
            cq(
                "a",
                2,
                "co",
                reclaim="LowerPriority",
                bwc=BorrowWithinCohort(policy="LowerPriority", max_priority_threshold=threshold),
            ),
            cq("b", 0, "co"),
            cq("c", 2, "co"),
        ],
        [Cohort("co")],
        [admitted("b1", "b", 2, 1), admitted("b3", "b", 2, b3_priority, boost=b3_boost)],
    )


def test_cl_var1_step6_threshold_excludes_candidate_while_borrowing() -> None:
    """CL-VAR-1 step 6: R=3 > nominal 2 -> adv false. Threshold 2: b1 (EP 1 <= 2) is
    RECLAIM_WHILE_BORROWING, b3 (EP 3 > 2) RECLAIM_WITHOUT_BORROWING.
    Borrow attempt: -b1 -> Available(a) = 4-2 = 2 < 3; b3 invalid -> fail.
    No-borrow attempt: the preemptor borrows (0+3 > 2) whatever is removed -> fail. GT-4: []."""
    assert run(threshold_snapshot(2), "a", 3) == []


@pytest.mark.parametrize("threshold", [3, 100, None])
def test_cl_var1_step6_threshold_not_exceeded(threshold: int | None) -> None:
    """CL-VAR-1 step 6: EP 3 > 3 is false (and no threshold never excludes), so b3 is also
    RECLAIM_WHILE_BORROWING. Borrow attempt: -b1 (Available 2 < 3), -b3 (Available 4 >= 3)
    -> fits; fill-back +b1 -> 2 < 3, kept. Result [b1, b3]."""
    assert picked(run(threshold_snapshot(threshold), "a", 3)) == [("b1", WHILE_BORROWING), ("b3", WHILE_BORROWING)]


def test_cl_var1_step6_threshold_compares_effective_priority() -> None:
    """CL-VAR-1/EP-8: the threshold compares the candidate's EP. b3 has base 1 and boost +2
    (EP 3 > 2) -> excluded while borrowing -> []. With the PriorityBoost gate off its EP is 1
    -> [b1, b3] (equal EP and reservation: uid b1 < b3, ORD-6)."""
    on = PreemptionConfig(priority_boost=True)
    assert run(threshold_snapshot(2, b3_priority=1, b3_boost="+2"), "a", 3, config=on) == []
    assert picked(run(threshold_snapshot(2, b3_priority=1, b3_boost="+2"), "a", 3)) == [
        ("b1", WHILE_BORROWING),
        ("b3", WHILE_BORROWING),
    ]  # FG-1: Kueue's default is boost off
    assert picked(
        run(threshold_snapshot(2, b3_priority=1, b3_boost="+2"), "a", 3, config=PreemptionConfig(priority_boost=False))
    ) == [("b1", WHILE_BORROWING), ("b3", WHILE_BORROWING)]


def test_cl_var3_hierarchical_advantage_ignores_threshold() -> None:
    """CL-VAR-3: R=2 fits in a's nominal (fit_probe: 2 >= 0+2) -> adv true -> both b
    workloads are HIERARCHICAL_RECLAIM even with threshold 0; the borrow attempt takes b1:
    Available(a) = 4-2 = 2 >= 2. Reason InCohortReclamation."""
    assert picked(run(threshold_snapshot(0), "a", 2)) == [("b1", RECLAIM)]


# ---------------------------------------------------------------------------- CL-GEN-7 evicted first


def test_cl_gen7_evicted_first_in_own_queue() -> None:
    """CL-GEN-7/ORD-1: w_ev (EP 3, evicted) is tried before w_low (EP 1). Standalone CQ
    nominal 2, U 2, R=1: one removal suffices -> [w_ev]; without the eviction -> [w_low]."""
    s = Snapshot(
        [cq("solo", 2, within="LowerPriority")],
        [],
        [admitted("w_low", "solo", 1, 1), admitted("w_ev", "solo", 1, 3, evicted=True)],
    )
    assert picked(run(s, "solo", 1)) == [("w_ev", IN_CQ)]
    s2 = Snapshot(
        [cq("solo", 2, within="LowerPriority")],
        [],
        [admitted("w_low", "solo", 1, 1), admitted("w_ev", "solo", 1, 3)],
    )
    assert picked(run(s2, "solo", 1)) == [("w_low", IN_CQ)]


@pytest.mark.parametrize(("evicted", "expected"), [(True, [("a_ev", IN_CQ)]), (False, [("b1", WHILE_BORROWING)])])
def test_cl_gen7_evicted_prefix_precedes_other_buckets(evicted: bool, expected: list[tuple[str, PreemptionReason]]) -> None:
    """CL-GEN-7: evicted(same-queue) comes before rest(priority).

    Cohort co: a (nominal 2; within/reclaim/borrowWithinCohort LowerPriority) with a_ev
    (EP 1, 2), b (nominal 0) with b1 (EP 1, 2), c (nominal 2, idle). R=2: fit_probe(a) fails
    (2+2 > 2) -> b1 is RECLAIM_WHILE_BORROWING. Attempts [borrow, no-borrow].
    Evicted a_ev: order [a_ev, b1]; -a_ev -> Available(a) = 4-2 = 2 >= 2 -> [a_ev].
    Not evicted: order [b1, a_ev]; -b1 -> Available 2 >= 2 -> [b1]."""
    s = Snapshot(
        [
            cq(
                "a",
                2,
                "co",
                within="LowerPriority",
                reclaim="LowerPriority",
                bwc=BorrowWithinCohort(policy="LowerPriority"),
            ),
            cq("b", 0, "co"),
            cq("c", 2, "co"),
        ],
        [Cohort("co")],
        [admitted("a_ev", "a", 2, 1, evicted=evicted), admitted("b1", "b", 2, 1)],
    )
    assert picked(run(s, "a", 2)) == expected


# ---------------------------------------------------------------------------- errors


def test_unknown_preemptor_cluster_queue() -> None:
    """GT-1: the preemptor's CQ must be in the snapshot; the error names it and the field."""
    s = standalone()
    before = s.state()
    with pytest.raises(UnknownClusterQueue) as info:
        classic_targets(incoming(5), "nope", gpu_request(1), s, config=DEFAULT, now=NOW)
    assert isinstance(info.value, KueuePreemptError)
    assert "nope" in str(info.value) and "cluster_queue" in str(info.value)
    with pytest.raises(UnknownClusterQueue):
        get_targets(incoming(5), "nope", gpu_request(1), s, config=DEFAULT, now=NOW)
    assert s.state() == before

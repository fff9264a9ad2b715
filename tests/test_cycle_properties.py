"""Property tests of the scheduling cycle on generated clusters.

* Q-14 / SC-PE-1: within one cycle every admission fits the cycle's snapshot with this cycle's
  preemption victims removed (admissions replayed in processing order).
* SC-SIM-11: the result does not depend on the order in which ClusterQueues, cohorts or
  workloads are listed.
* SC-T-3 / SC-SIM-13.5: cycles run until stable terminate within the cap or report a livelock.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import ClusterQueue, ClusterQueuePreemption, Cohort, PodSetUsage, ResourceQuota, Snapshot, Workload
from kueue_preempt.cycle import (
    ClusterState,
    CycleConfig,
    LocalQueue,
    Namespace,
    Outcome,
    ClusterQueueSettings,
    run_cycles,
    schedule_cycle,
)
from kueue_preempt.model.config import FairSharingConfig
from kueue_preempt.model.flavors import FlavorQuotas, PodSetSpec, ResourceFlavor, ResourceGroup

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)
FLAVORS = ("f0", "f1")


@st.composite
def clusters(draw: st.DrawFn) -> ClusterState:
    """1-4 ClusterQueues (some in one cohort), 1-2 cpu flavors, admitted and pending workloads."""
    n_cq = draw(st.integers(1, 4))
    n_flavors = draw(st.integers(1, 2))
    cohort = draw(st.booleans())
    cqs = []
    settings_ = {}
    lqs = []
    for i in range(n_cq):
        name = f"cq{i}"
        in_cohort = cohort and draw(st.booleans())
        fqs = []
        for f in FLAVORS[:n_flavors]:
            nominal = draw(st.integers(0, 6)) * 1000
            bl = draw(st.one_of(st.none(), st.integers(0, 4).map(lambda v: v * 1000))) if in_cohort else None
            fqs.append(FlavorQuotas(f, {"cpu": ResourceQuota(nominal=nominal, borrowing_limit=bl)}))
        preemption = ClusterQueuePreemption(
            within_cluster_queue=draw(st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"])),
            reclaim_within_cohort=draw(st.sampled_from(["Never", "LowerPriority", "Any"])),
        )
        cqs.append(
            ClusterQueue(
                name=name,
                cohort="co" if in_cohort else None,
                preemption=preemption,
                resource_groups=[ResourceGroup(("cpu",), fqs)],
            )
        )
        settings_[name] = ClusterQueueSettings(name, queueing_strategy=draw(st.sampled_from(["BestEffortFIFO", "StrictFIFO"])))
        lqs.append(LocalQueue(namespace="ns", name=f"lq{i}", cluster_queue=name))
    workloads = []
    usage: dict[tuple[str, str], int] = {}
    for j in range(draw(st.integers(0, 5))):  # admitted, each within its queue's nominal
        cq = cqs[draw(st.integers(0, n_cq - 1))]
        f = FLAVORS[draw(st.integers(0, n_flavors - 1))]
        amount = draw(st.integers(1, 3)) * 1000
        nominal = cq.quotas[next(fr for fr in cq.quotas if fr.flavor == f)].nominal
        if usage.get((cq.name, f), 0) + amount > nominal:
            continue
        usage[(cq.name, f)] = usage.get((cq.name, f), 0) + amount
        workloads.append(
            Workload(
                name=f"adm{j}",
                namespace="ns",
                uid=f"a{j}",
                cluster_queue=cq.name,
                priority=draw(st.integers(0, 3)),
                creation_time=NOW - timedelta(minutes=100 - j),
                quota_reserved_at=NOW - timedelta(minutes=50 - j),
                pod_sets=[PodSetUsage("main", 1, {"cpu": f}, {"cpu": amount})],
                spec_pod_sets=[PodSetSpec("main", 1, {"cpu": amount})],
            )
        )
    for j in range(draw(st.integers(1, 6))):
        lq = draw(st.integers(0, n_cq - 1))
        count = draw(st.integers(1, 3))
        min_count = draw(st.one_of(st.none(), st.integers(1, count)))
        workloads.append(
            Workload(
                name=f"p{j}",
                namespace="ns",
                uid=f"p{j}",
                local_queue=f"lq{lq}",
                priority=draw(st.integers(0, 4)),
                creation_time=NOW - timedelta(minutes=30 - j),
                spec_pod_sets=[PodSetSpec("main", count, {"cpu": draw(st.integers(1, 3)) * 1000}, min_count=min_count)],
            )
        )
    return ClusterState(
        cluster_queues=cqs,
        cohorts=[Cohort("co")] if cohort else [],
        flavors=[ResourceFlavor(f) for f in FLAVORS[:n_flavors]],
        namespaces=[Namespace("ns")],
        local_queues=lqs,
        queueing=settings_,
        workloads=workloads,
    )


configs = st.sampled_from(
    [
        CycleConfig(),
        CycleConfig.of(fair_sharing=FairSharingConfig()),
        CycleConfig.of(feature_gates={"PrioritySortingWithinCohort": False, "PrioritizePreemptorWorkloads": True}),
    ]
)


@settings(max_examples=150, deadline=None)
@given(clusters(), configs)
def test_admissions_fit_with_victims_removed(cluster: ClusterState, config: CycleConfig) -> None:
    """Q-14, SC-PE-1: replaying the cycle's admissions in processing order on the cycle-start
    snapshot minus this cycle's victims, each admission fits when it is made."""
    result = schedule_cycle(cluster, None, config=config, now=NOW)
    victims = {t.workload.key for t in result.preempted}
    start = [w for w in cluster.workloads if w.cluster_queue and w.key not in victims]
    snap = Snapshot(cluster.cluster_queues, cluster.cohorts, start)
    after = {w.key: w for w in result.cluster.workloads}
    for r in result.results:
        if r.outcome is not Outcome.ADMITTED:
            continue
        w = after[r.key]
        node = snap.cluster_queue(w.cluster_queue)
        assert snap.fits(node, w.usage, allow_borrowing=True), r.key
        snap.add_workload(w)


def _summary(result_cluster: ClusterState, result: object) -> object:
    from kueue_preempt.cycle import CycleResult

    assert isinstance(result, CycleResult)
    return (
        sorted((r.key, r.outcome, r.queue, r.reason, r.message) for r in result.results),
        sorted((t.workload.key, t.reason) for t in result.preempted),
        result.queues,
        sorted((w.key, w.cluster_queue, w.pod_sets, w.conditions) for w in result_cluster.workloads),
    )


@settings(max_examples=100, deadline=None)
@given(clusters(), configs, st.randoms(use_true_random=False))
def test_listing_order_does_not_matter(cluster: ClusterState, config: CycleConfig, rnd: object) -> None:
    """SC-SIM-11: ClusterQueues, cohorts and workloads listed in another order, same cycle."""
    import random

    assert isinstance(rnd, random.Random)
    cqs, cohorts, workloads = list(cluster.cluster_queues), list(cluster.cohorts), list(cluster.workloads)
    rnd.shuffle(cqs)
    rnd.shuffle(cohorts)
    rnd.shuffle(workloads)
    shuffled = ClusterState(
        cluster_queues=cqs,
        cohorts=cohorts,
        flavors=cluster.flavors,
        namespaces=cluster.namespaces,
        local_queues=cluster.local_queues,
        queueing=cluster.queueing,
        workloads=workloads,
    )
    a = schedule_cycle(cluster, None, config=config, now=NOW)
    b = schedule_cycle(shuffled, None, config=config, now=NOW)
    assert _summary(a.cluster, a) == _summary(b.cluster, b)
    assert sorted(a.events, key=repr) == sorted(b.events, key=repr)


@settings(max_examples=100, deadline=None)
@given(clusters(), configs)
def test_until_stable_terminates_or_reports_livelock(cluster: ClusterState, config: CycleConfig) -> None:
    """SC-T-3, SC-SIM-13.5: the run ends stable within the cap, or says it hit the cap."""
    run = run_cycles(cluster, None, config, NOW, until_stable=True)
    assert len(run.cycles) <= run.cap
    assert run.stable != run.livelock
    if run.stable:
        # One more cycle changes nothing: no admission, no preemption.
        again = schedule_cycle(run.cluster, run.queues, config=config, now=NOW)
        assert not again.admitted and not again.preempted

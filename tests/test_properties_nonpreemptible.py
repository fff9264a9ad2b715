"""Hypothesis properties of non-preemptible workloads (issue 4, NP-3, NP-6).

1. With the feature on, no generated scenario ever yields a non-preemptible target, in
   classic or fair-sharing preemption (NP-3).
2. Replaying random arrivals through the admission rules (NP-6 check, then fit, then
   preemption) keeps every ClusterQueue's non-preemptible usage — summed independently from
   the admitted workloads — within its nominal quota, and never evicts a non-preemptible
   workload.
"""

from __future__ import annotations

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt import (
    Assignment,
    FairSharingConfig,
    PodSetUsage,
    PreemptionConfig,
    Snapshot,
    Workload,
    WorkloadPriorityClass,
    get_targets,
)
from kueue_preempt.preemption import check_non_preemptible_quota
from kueue_preempt.testing.invariants import check_fits_after_removal
from kueue_preempt.testing.strategies import ClassicScenario, classic_scenarios

CLASSES = [
    WorkloadPriorityClass("protected", value=0, preemption_policy="Never"),
    WorkloadPriorityClass("normal", value=0, preemption_policy="Always"),
]
SETTINGS = settings(
    max_examples=500,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


def _with_classes(s: ClassicScenario, protected: list[bool]) -> list[Workload]:
    return [attrs.evolve(w, priority_class="protected" if p else "normal") for w, p in zip(s.workloads, protected)]


@SETTINGS
@given(classic_scenarios(reclaim_focus=True), st.data(), st.booleans())
def test_no_non_preemptible_target(s: ClassicScenario, data: st.DataObject, fair: bool) -> None:
    """NP-3: whatever the policies, a non-preemptible workload is never a target."""
    protected = [data.draw(st.booleans()) for _ in s.workloads]
    workloads = _with_classes(s, protected)
    snap = Snapshot(s.cluster_queues, s.cohorts, workloads, priority_classes=CLASSES)
    config = PreemptionConfig(
        fair_sharing=FairSharingConfig() if fair else None,
        priority_boost=s.config.priority_boost,
        non_preemptible_enabled=True,
    )
    targets = get_targets(s.preemptor, s.cluster_queue, s.assignment, snap, config=config, now=s.now)
    protected_keys = {w.key for w, p in zip(workloads, protected) if p}
    assert not protected_keys & {t.workload.key for t in targets}
    # Still a complete set (GT-4); priority classes do not change usage, so the scenario's own
    # workloads (same keys) stand for the classified ones.
    check_fits_after_removal(s, targets)


@SETTINGS
@given(classic_scenarios(reclaim_focus=True), st.data(), st.booleans())
def test_admitted_non_preemptible_usage_stays_within_nominal(s: ClassicScenario, data: st.DataObject, fair: bool) -> None:
    """NP-6 as an invariant of a replayed admission sequence."""
    config = PreemptionConfig(
        fair_sharing=FairSharingConfig() if fair else None,
        priority_boost=s.config.priority_boost,
        non_preemptible_enabled=True,
    )
    snap = Snapshot(s.cluster_queues, s.cohorts, [], priority_classes=CLASSES)
    queue_names = sorted(snap.cluster_queues)
    frs = sorted({fr for q in s.cluster_queues for fr in q.quotas})
    if not frs:
        return
    admitted: dict[str, Workload] = {}
    for i in range(data.draw(st.integers(1, 10))):
        cq = data.draw(st.sampled_from(queue_names))
        fr = data.draw(st.sampled_from(frs))
        amount = data.draw(st.integers(1, 4))
        cls = data.draw(st.sampled_from(["protected", "normal"]))
        w = Workload(
            name=f"w{i}", namespace="ns", uid=f"w{i}", cluster_queue=cq, priority=data.draw(st.integers(0, 5)),
            priority_class=cls, quota_reserved_at=s.now,
            pod_sets=[PodSetUsage(flavors={fr.resource: fr.flavor}, usage={fr.resource: amount})],
        )
        requests = {fr: amount}
        if not check_non_preemptible_quota(w, cq, requests, snap, config):
            continue  # NP-6/NP-7: rejected, nothing changes
        node = snap.cluster_queue(cq)
        if not snap.fits(node, requests, allow_borrowing=True):
            pending = attrs.evolve(w, cluster_queue="", quota_reserved_at=None)  # not admitted yet
            targets = get_targets(pending, cq, Assignment(requests, [fr]), snap, config=config, now=s.now)
            if not targets:
                continue
            for t in targets:
                assert t.workload.priority_class is not None and t.workload.priority_class.name == "normal"
                snap.remove_workload(t.workload)
                del admitted[t.workload.key]
        snap.add_workload(w)
        admitted[w.key] = w
        # Independent NP-6 check over what is admitted now.
        for q in s.cluster_queues:
            for f in frs:
                np_usage = sum(
                    x.usage.get(f) or 0
                    for x in admitted.values()
                    if x.cluster_queue == q.name and x.priority_class is not None and x.priority_class.name == "protected"
                )
                nominal = q.quotas[f].nominal if f in q.quotas else 0
                assert np_usage <= nominal, (q.name, f, np_usage, nominal)

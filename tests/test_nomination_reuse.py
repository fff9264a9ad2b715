"""What a nomination reuses equals what it would compute afresh (shared == fresh).

The flavor assigner shares its pre-scan work per (pod sets, reclaimable pods, ClusterQueue,
gate, counts) and builds its results without re-running converters; an admission write shares
its derived usage per (pod sets, reclaimable pods); the scheduler asks the preemption oracle
without the public entry's type checks. Each test compares the shared path with a fresh one
(or with the public constructor / entry point) on the same inputs.
"""

from __future__ import annotations

from datetime import datetime, timezone

import attrs
import pytest
from hypothesis import given, settings

from kueue_preempt import ClusterQueue, ClusterQueuePreemption, PodSetSpec, ResourceFlavor, Snapshot, Workload, assign_flavors, get_targets
from kueue_preempt.assignment import assigner
from kueue_preempt.assignment.result import FlavorAssignment, PodSetAssignment
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.entry import Mode, Nomination
from kueue_preempt.cycle.nominate import nominate
from kueue_preempt.cycle.queues import ScanProgress
from kueue_preempt.errors import InvalidArgument
from kueue_preempt.model import Assignment, FlavorResource, PodSetUsage
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model.flavors import FlavorQuotas, ResourceGroup
from kueue_preempt.model.resources import ResourceQuota
from kueue_preempt.model.workload_writes import with_admission
from kueue_preempt.preemption.targets import own_arguments_targets
from kueue_preempt.testing.strategies import AssignmentScenario, assignment_scenarios

NOW = datetime(2025, 1, 1, tzinfo=timezone.utc)


def _assign(s: AssignmentScenario, workload: Workload) -> FlavorAssignment:
    return assign_flavors(
        workload, s.cluster_queue, s.snapshot(), s.resource_flavors,
        config=s.config, gates=s.gates, quota_check=s.quota_check, now=s.now,
    )  # fmt: skip


@settings(max_examples=80, deadline=None)
@given(assignment_scenarios())
def test_shared_plan_equals_a_fresh_one(s: AssignmentScenario) -> None:
    """FAS-1/14/18/19/4: an assignment on a shared plan equals one on a fresh plan, and one of
    an equal workload built from new objects (which cannot share it)."""
    assigner._PLANS.clear()
    fresh = _assign(s, s.workload)
    assert _assign(s, s.workload) == fresh  # the plan of the first call
    copy = attrs.evolve(s.workload, spec_pod_sets=[attrs.evolve(ps) for ps in s.workload.spec_pod_sets])
    assert copy.spec_pod_sets is not s.workload.spec_pod_sets
    assert _assign(s, copy) == fresh
    assigner._PLANS.clear()
    assert s.decide() == s.decide()  # partial-admission probes (counts) included


def test_reclaimable_pods_get_their_own_plan() -> None:
    """FAS-1a: the same pod-set objects with other reclaimable pods are assigned their own
    requests (the plan is keyed by both)."""
    cq = ClusterQueue("cq", resource_groups=[ResourceGroup(["cpu"], [FlavorQuotas("f", {"cpu": ResourceQuota(10_000)})])])
    w = Workload(name="w", namespace="ns", spec_pod_sets=[PodSetSpec("main", 4, {"cpu": 1000})])
    reclaimed = attrs.evolve(w, reclaimable_pods={"main": 3})
    assert reclaimed.spec_pod_sets is w.spec_pod_sets
    snap = Snapshot([cq])
    flavors = [ResourceFlavor("f")]
    assert assign_flavors(w, "cq", snap, flavors).usage[FlavorResource("f", "cpu")] == 4000
    assert assign_flavors(reclaimed, "cq", snap, flavors).usage[FlavorResource("f", "cpu")] == 1000
    assert assign_flavors(w, "cq", snap, flavors).usage[FlavorResource("f", "cpu")] == 4000


@settings(max_examples=80, deadline=None)
@given(assignment_scenarios())
def test_stored_results_equal_the_constructed_ones(s: AssignmentScenario) -> None:
    """FAS-17/FAS-13: the assigner's results equal the same fields through the public
    constructors (converters and validators run), modes and hashes included."""
    a = _assign(s, s.workload)
    rebuilt_sets = [
        PodSetAssignment(ps.name, ps.count, dict(ps.flavors), ps.status, dict(ps.requests), list(ps.attempts), ps.spec_index)
        for ps in a.pod_sets
    ]
    for ps, rebuilt in zip(a.pod_sets, rebuilt_sets):
        assert ps == rebuilt and hash(ps) == hash(rebuilt)
        assert ps.mode is rebuilt.mode
    b = FlavorAssignment(rebuilt_sets, a.borrowing, dict(a.usage), a.no_fit_reason)
    assert a == b and hash(a) == hash(b)
    assert a.mode is b.mode
    assert a.message == b.message


def test_admission_usage_is_shared_and_equal() -> None:
    """DM-7/FAS-1a: an admission write's derived usage equals the constructor's, whether
    shared with an earlier admission of the same pod sets or not."""
    pod_sets = (PodSetUsage(name="main", count=4, flavors={"cpu": "f"}, usage={"cpu": 4000}),)
    base = Workload(name="w", namespace="ns", spec_pod_sets=[PodSetSpec("main", 4, {"cpu": 1000})])
    for w in (base, attrs.evolve(base, reclaimable_pods={"main": 1}), base):
        admitted = with_admission(w, cluster_queue="cq", pod_sets=pod_sets, quota_reserved_at=None, conditions=())
        expected = attrs.evolve(w, cluster_queue="cq", pod_sets=pod_sets)
        assert admitted.usage == expected.usage
        assert admitted.used_flavor_resources == expected.used_flavor_resources
        assert admitted == expected


def _preemption_case() -> tuple[Snapshot, Workload, Assignment]:
    cq = ClusterQueue(
        "cq",
        resource_groups=[ResourceGroup(["cpu"], [FlavorQuotas("f", {"cpu": ResourceQuota(2000)})])],
        preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"),
    )
    running = [
        Workload(name=f"r{i}", namespace="ns", cluster_queue="cq", priority=0,
                 pod_sets=[PodSetUsage(name="main", count=1, flavors={"cpu": "f"}, usage={"cpu": 1000})])
        for i in range(2)
    ]  # fmt: skip
    preemptor = Workload(name="p", namespace="ns", priority=10, spec_pod_sets=[PodSetSpec("main", 1, {"cpu": 1000})])
    fr = FlavorResource("f", "cpu")
    return Snapshot([cq], workloads=running), preemptor, Assignment(requests={fr: 1000}, preempt={fr})


def test_own_arguments_targets_equal_get_targets() -> None:
    """GT-1: the scheduler's path to the preemption finds what the public entry point finds,
    and refuses an admitted preemptor with the same error."""
    snap, preemptor, assignment = _preemption_case()
    config = PreemptionConfig()
    public = get_targets(preemptor, "cq", assignment, snap, config=config, now=None)
    assert public
    own = own_arguments_targets(preemptor, "cq", assignment, snap, config, None, None)
    assert [(t.workload.key, t.reason, t.message) for t in own] == [(t.workload.key, t.reason, t.message) for t in public]
    admitted = snap.cluster_queue("cq").workloads["ns/r0"]
    with pytest.raises(InvalidArgument) as public_error:
        get_targets(admitted, "cq", assignment, snap, config=config)
    with pytest.raises(InvalidArgument) as own_error:
        own_arguments_targets(admitted, "cq", assignment, snap, config, None, None)
    assert str(own_error.value) == str(public_error.value)


def test_stored_nomination_equals_the_constructed_one() -> None:
    """SC-NOM-2: the nomination the scheduler builds equals the same fields through the
    constructor (converters run), for a Preempt head with targets and for a Fit head."""
    snap, preemptor, _ = _preemption_case()
    config = CycleConfig()
    flavors = {"f": ResourceFlavor("f")}
    fit = attrs.evolve(preemptor, name="small", spec_pod_sets=[PodSetSpec("main", 1, {"cpu": 0})])
    for w in (preemptor, fit):
        n = nominate(w, "cq", snap, flavors, config, NOW, generation=2, cycle=3, shape="s")
        assert n.mode is (Mode.FIT if w is fit else Mode.PREEMPT)
        rebuilt = Nomination(**{f.name: getattr(n, f.name) for f in attrs.fields(Nomination)})
        assert n == rebuilt and hash(n) == hash(rebuilt)
    assert nominate(preemptor, "cq", snap, flavors, config, NOW).targets


@pytest.mark.parametrize("bad", [-2, True, 1.0])
def test_recorded_progress_is_still_checked(bad: object) -> None:
    """FAS-12: a recorded scan progress (a caller's QueueState carries it) with a bad index is
    refused with the assigner's own error, naming the entry; a good one is used."""
    snap, preemptor, _ = _preemption_case()
    flavors = {"f": ResourceFlavor("f")}
    good = nominate(preemptor, "cq", snap, flavors, CycleConfig(), NOW, progress=ScanProgress({(0, "cpu"): -1}))
    assert good.mode is Mode.PREEMPT
    with pytest.raises(InvalidArgument, match=r"progress\[0\]\['cpu'\]"):
        nominate(preemptor, "cq", snap, flavors, CycleConfig(), NOW, progress=ScanProgress({(0, "cpu"): bad}))  # type: ignore[dict-item]

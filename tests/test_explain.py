"""``kueue_preempt.explain``: a cycle nomination with its trace, as a library call (SC-NOM-2, GT-1)."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kueue_preempt import (
    Assignment,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    Explanation,
    FlavorQuotas,
    FlavorResource,
    InvalidArgument,
    PodSetSpec,
    PodSetUsage,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
    explain,
    schedule_cycle,
)
from kueue_preempt.cycle import ClusterState, LocalQueue, Outcome as CycleOutcome
from kueue_preempt.errors import UnknownClusterQueue
from kueue_preempt.explanation import Outcome
from kueue_preempt.model import FlavorAssignmentMode

T0 = datetime(2026, 3, 1, 9, tzinfo=timezone.utc)
NOW = datetime(2026, 3, 1, 10, tzinfo=timezone.utc)
CPU = FlavorResource("default", "cpu")


def _queue(name: str, nominal: int) -> ClusterQueue:
    return ClusterQueue(
        name,
        cohort="co",
        resource_groups=[ResourceGroup(["cpu"], [FlavorQuotas("default", {"cpu": ResourceQuota(nominal=nominal * 1000)})])],
        preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any"),
    )


def _running(name: str, cq: str, cpu: int, priority: int) -> Workload:
    return Workload(
        name=name, namespace="ns", uid=name, priority=priority, cluster_queue=cq, quota_reserved_at=T0,
        local_queue=cq, pod_sets=[PodSetUsage("main", 1, {"cpu": "default"}, {"cpu": cpu * 1000})],
    )  # fmt: skip


def _pending(cpu: int, priority: int = 100) -> Workload:
    return Workload(
        name="p", namespace="ns", uid="p", priority=priority, creation_time=T0, local_queue="a",
        spec_pod_sets=[PodSetSpec("main", 1, {"cpu": cpu * 1000})],
    )  # fmt: skip


QUEUES = [_queue("a", 4), _queue("b", 4)]
# b borrows one CPU of a (5 of its 4); a runs 2; one CPU of the cohort is free.
RUNNING = [_running("low", "a", 2, 1), _running("borrower", "b", 4, 1), _running("lent", "b", 1, 1)]


def _snapshot() -> Snapshot:
    return Snapshot(QUEUES, [Cohort("co")], RUNNING)


def _usage(s: Snapshot) -> dict[str, object]:
    return {name: dict(s.cluster_queue(name).usage) for name in ("a", "b")}


def test_explain_names_the_targets_the_cycle_preempts() -> None:
    """SC-NOM-2 / SC-PE-1: the targets ``explain`` reports are the ones ``schedule_cycle``
    evicts for the same head — the two run the same nomination."""
    snapshot = _snapshot()
    before = _usage(snapshot)
    e = explain(_pending(4), "a", snapshot, flavors=[ResourceFlavor("default")], now=NOW)
    assert _usage(snapshot) == before  # GT-4: the snapshot is left as it was
    assert isinstance(e, Explanation)
    assert e.mode is FlavorAssignmentMode.PREEMPT and e.outcome is Outcome.TARGETS
    assert e.preempt == frozenset({CPU}) and e.requests[CPU] == 4000
    cluster = ClusterState(
        cluster_queues=QUEUES, cohorts=[Cohort("co")], local_queues=[LocalQueue(namespace="ns", name="a", cluster_queue="a")],
        workloads=[*RUNNING, _pending(4)],
    )  # fmt: skip
    result = schedule_cycle(cluster, now=NOW)
    head = next(r for r in result.results if r.key == "ns/p")
    assert head.outcome is CycleOutcome.PREEMPTING
    assert sorted(t.workload.key for t in e.targets) == sorted(t.workload.key for t in head.targets)
    assert {t.workload.key for t in e.targets} == {"ns/low", "ns/borrower"}
    assert e.trace and all(ev.rule for ev in e.trace)  # every step names the rule behind it


def test_explain_of_a_fitting_workload_preempts_nothing() -> None:
    e = explain(_pending(1), "a", _snapshot(), flavors=[ResourceFlavor("default")], now=NOW)
    assert e.outcome is Outcome.FITS and e.targets == () and e.mode is FlavorAssignmentMode.FIT


def test_explain_of_a_workload_too_big_for_any_quota_is_no_fit() -> None:
    e = explain(_pending(64), "a", _snapshot(), flavors=[ResourceFlavor("default")], now=NOW)
    assert e.outcome is Outcome.NO_FIT and e.no_fit and not e.requests


def test_a_flavor_missing_from_the_given_flavors_is_reported() -> None:
    e = explain(_pending(1), "a", _snapshot(), now=NOW)
    assert e.missing_flavors == ("default",) and e.outcome is Outcome.FITS


def test_an_explicit_assignment_skips_the_assigner() -> None:
    """FA-2, FA-3: with an explicit assignment only ``get_targets`` runs."""
    given = Assignment(requests={CPU: 4000}, preempt=[CPU])
    e = explain(_pending(4), "a", _snapshot(), assignment=given, now=NOW)
    assert e.assignment is None and e.outcome is Outcome.TARGETS
    fits = explain(_pending(1), "a", _snapshot(), assignment=Assignment(requests={CPU: 1000}, preempt=[]), now=NOW)
    assert fits.outcome is Outcome.FITS and fits.targets == ()


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"workload": "ns/p"}, "workload"),
        ({"cluster_queue": 7}, "cluster_queue"),
        ({"snapshot": None}, "snapshot"),
        ({"flavors": ["default"]}, "flavors"),
        ({"now": "2026-03-01"}, "now"),
        ({"assignment": {"requests": {}}}, "assignment"),
    ],
)
def test_wrong_arguments_are_named(kwargs: dict[str, object], field: str) -> None:
    call: dict[str, object] = {"workload": _pending(4), "cluster_queue": "a", "snapshot": _snapshot(), "now": NOW}
    call.update(kwargs)
    with pytest.raises(InvalidArgument, match=f"field '{field}'"):
        explain(**call)  # type: ignore[arg-type]


def test_an_unknown_cluster_queue_is_a_lookup_error() -> None:
    with pytest.raises(UnknownClusterQueue):
        explain(_pending(4), "nope", _snapshot(), now=NOW)


@pytest.mark.parametrize("given", [None, Assignment(requests={CPU: 2000}, preempt=[]), Assignment(requests={CPU: 2000}, preempt=[CPU])])
def test_an_admitted_workload_is_refused(given: Assignment | None) -> None:
    """GT-1: as ``get_targets`` refuses an admitted preemptor, ``explain`` refuses an admitted
    workload (the object itself or a pending one with its ``namespace/name``), naming it and the
    ClusterQueue that holds it, with or without an explicit assignment; the snapshot is unchanged."""
    snapshot = _snapshot()
    before = _usage(snapshot)
    admitted = next(w for w in snapshot.workloads() if w.key == "ns/low")
    same_key = Workload(
        name="low", namespace="ns", uid="low2", priority=100, creation_time=T0, local_queue="a",
        spec_pod_sets=[PodSetSpec("main", 1, {"cpu": 2000})],
    )  # fmt: skip
    for workload in (admitted, same_key):
        with pytest.raises(InvalidArgument) as info:
            explain(workload, "a", snapshot, flavors=[ResourceFlavor("default")], now=NOW, assignment=given)
        msg = str(info.value)
        assert "field 'workload'" in msg and "'ns/low'" in msg and "admitted" in msg and "'a'" in msg
        assert _usage(snapshot) == before

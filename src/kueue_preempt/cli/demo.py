"""A small bundled scenario used by ``kueue-preempt demo`` and the docs.

Cohort ``research`` holds two ClusterQueues with 8 CPUs each. ``team-b`` borrows 4 CPUs from
``team-a``'s unused quota; ``team-a`` also runs a low-priority job. A high-priority workload
arrives in ``team-a`` needing 6 CPUs: Kueue reclaims the borrowed quota first and preempts
within ``team-a`` only if needed.
"""

from __future__ import annotations

from datetime import datetime, timezone

import attrs

from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model import (
    Assignment,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FlavorResource,
    PodSetUsage,
    ResourceQuota,
    Workload,
)
from kueue_preempt.snapshot.quota import Snapshot

import argparse

from kueue_preempt.cli.common import EXIT_OK, text
from kueue_preempt.io.text import quantity_text
from kueue_preempt.model.priority import priority_info
from kueue_preempt.preemption.targets import get_targets

__all__ = ["DemoScenario", "demo_scenario"]

_CPU = FlavorResource("default", "cpu")
_NOW = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


@attrs.frozen
class DemoScenario:
    description: str
    snapshot: Snapshot = attrs.field(eq=False)
    preemptor: Workload
    cluster_queue: str
    assignment: Assignment
    config: PreemptionConfig
    now: datetime


def _admitted(name: str, cq: str, priority: int, cpus: int, minute: int) -> Workload:
    return Workload(
        name=name,
        namespace=cq,
        uid=f"uid-{name}",
        cluster_queue=cq,
        priority=priority,
        creation_time=datetime(2026, 1, 1, 9, minute, tzinfo=timezone.utc),
        quota_reserved_at=datetime(2026, 1, 1, 10, minute, tzinfo=timezone.utc),
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": cpus * 1000})],
    )


def demo_scenario() -> DemoScenario:
    """Build the demo cohort, its admitted workloads and the incoming workload."""
    preemption = ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any")
    queues = [
        ClusterQueue(name=n, cohort="research", quotas={_CPU: ResourceQuota(nominal=8000)}, preemption=preemption)
        for n in ("team-a", "team-b")
    ]
    workloads = [
        _admitted("a-batch-low", "team-a", 10, 4, 0),
        _admitted("b-train", "team-b", 100, 8, 1),
        _admitted("b-sweep-1", "team-b", 50, 2, 2),
        _admitted("b-sweep-2", "team-b", 50, 2, 3),
    ]
    snapshot = Snapshot(cluster_queues=queues, cohorts=[Cohort(name="research")], workloads=workloads)
    preemptor = Workload(
        name="a-urgent",
        namespace="team-a",
        uid="uid-a-urgent",
        priority=1000,
        labels={"kueue.x-k8s.io/job-uid": "job-a-urgent"},
    )
    assignment = Assignment(requests={_CPU: 6000}, preempt=[_CPU])
    return DemoScenario(
        description=(
            "Cohort 'research': ClusterQueues team-a and team-b, 8 CPUs nominal each.\n"
            "team-a runs a-batch-low (4 CPUs, priority 10); team-b runs b-train (8 CPUs) and two\n"
            "sweeps (2 CPUs each), so team-b borrows 4 CPUs of team-a's quota."
        ),
        snapshot=snapshot,
        preemptor=preemptor,
        cluster_queue="team-a",
        assignment=assignment,
        config=PreemptionConfig(),
        now=_NOW,
    )


def run_demo(args: argparse.Namespace) -> tuple[int, str]:
    scenario = demo_scenario()
    snap = scenario.snapshot
    out = [scenario.description, ""]
    p = priority_info(scenario.preemptor, scenario.config)
    out.append(
        f"Incoming: {scenario.preemptor.key} (priority {p.effective}) into ClusterQueue "
        f"{scenario.cluster_queue} path {snap.path(snap.cluster_queue(scenario.cluster_queue))}"
    )
    reqs = ", ".join(f"{fr}={quantity_text(v, fr.resource)}" for fr, v in sorted(scenario.assignment.requests.items()))
    out.append(f"Requests: {reqs}")
    targets = get_targets(
        scenario.preemptor, scenario.cluster_queue, scenario.assignment, snap, config=scenario.config, now=scenario.now
    )
    out.append("")
    if not targets:
        out.append("No preemption possible: the incoming workload stays pending.")
        return EXIT_OK, text(out)
    out.append(f"{len(targets)} target(s):")
    for t in targets:
        info = priority_info(t.workload, scenario.config)
        out.append(
            f"  - {t.workload.key:<24} cq={t.cluster_queue:<10} priority={info.effective:<5} reason={t.reason.value}"
        )
        out.append(f"    {t.message}")
    return EXIT_OK, text(out)

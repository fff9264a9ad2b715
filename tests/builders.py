"""Small builders for hand-written scenarios: one CPU flavor, whole CPUs, LowerPriority/Any."""

from __future__ import annotations

from datetime import datetime

from kueue_preempt import ClusterQueue, ClusterQueuePreemption, FlavorResource, PodSetUsage, ResourceQuota, Workload

CPU = FlavorResource("default", "cpu")


def cpu_queue(name: str, nominal: int, cohort: str | None = None, weight: float = 1.0) -> ClusterQueue:
    """A ClusterQueue with ``nominal`` CPUs, ``withinClusterQueue: LowerPriority``, ``reclaim: Any``."""
    return ClusterQueue(
        name=name,
        cohort=cohort,
        quotas={CPU: ResourceQuota(nominal=nominal * 1000)},
        preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority", reclaim_within_cohort="Any"),
        fair_weight=weight,
    )


def cpu_workload(name: str, cq: str, cpus: int, priority: int, reserved_at: datetime) -> Workload:
    """An admitted workload in namespace ``ns`` (uid = name) using ``cpus`` CPUs."""
    return Workload(
        name=name,
        namespace="ns",
        uid=name,
        cluster_queue=cq,
        priority=priority,
        quota_reserved_at=reserved_at,
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": cpus * 1000})],
    )

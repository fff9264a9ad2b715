"""Non-preemptible workloads (KEP-4400, NP-1..NP-14): never victims, confined to nominal quota.

A workload whose WorkloadPriorityClass says ``preemptionPolicy: Never`` is never returned as
a target by any algorithm (NP-3), and may be admitted only while the ClusterQueue's
non-preemptible usage stays within the queue's own nominal quota (NP-6). Together these keep
every borrowed unit reclaimable: whatever a queue borrows is attributable to preemptible
workloads. Off by default (NP-14): ``PreemptionConfig(non_preemptible_enabled=True)``.

Note the inversion (NP-13): here ``Never`` means "is never preempted", whereas core
Kubernetes' ``PriorityClass.preemptionPolicy: Never`` means "does not preempt others".
"""

from __future__ import annotations

from typing import Mapping

import attrs

from kueue_preempt._util.checks import arg, arg_mapping
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model import FlavorResource, Workload
from kueue_preempt.model.quantity import amount_add, amount_sub, format_amount
from kueue_preempt.snapshot.quota import Snapshot

__all__ = ["NonPreemptibleViolation", "NonPreemptibleQuotaCheck", "is_non_preemptible", "check_non_preemptible_quota"]


def is_non_preemptible(workload: Workload, snapshot: Snapshot, config: PreemptionConfig) -> bool:
    """NP-2 with the NP-14 switch: false whenever the feature is off."""
    arg(workload, Workload, "is_non_preemptible", "workload")
    arg(snapshot, Snapshot, "is_non_preemptible", "snapshot")
    arg(config, PreemptionConfig, "is_non_preemptible", "config")
    return config.non_preemptible_enabled and snapshot.is_non_preemptible(workload)


@attrs.frozen
class NonPreemptibleViolation:
    """One FlavorResource on which admitting the workload would break NP-6."""

    flavor_resource: FlavorResource
    requested: int
    non_preemptible_usage: int
    nominal: int

    @property
    def excess(self) -> int:
        """By how much ``non_preemptible_usage + requested`` exceeds ``nominal``."""
        return amount_sub(amount_add(self.non_preemptible_usage, self.requested), self.nominal)

    def __str__(self) -> str:
        r = self.flavor_resource.resource
        return (
            f"{self.flavor_resource}: non-preemptible usage {format_amount(self.non_preemptible_usage, r)} + request "
            f"{format_amount(self.requested, r)} exceeds nominal {format_amount(self.nominal, r)} by {format_amount(self.excess, r)}"
        )


@attrs.frozen
class NonPreemptibleQuotaCheck:
    """Result of :func:`check_non_preemptible_quota`; truthy when admission is allowed."""

    allowed: bool
    violations: tuple[NonPreemptibleViolation, ...] = ()

    def __bool__(self) -> bool:
        return self.allowed


def check_non_preemptible_quota(
    workload: Workload,
    cluster_queue: str,
    requests: Mapping[FlavorResource, int],
    snapshot: Snapshot,
    config: PreemptionConfig,
) -> NonPreemptibleQuotaCheck:
    """NP-6: may ``workload`` (requesting ``requests``) be admitted to ``cluster_queue``?

    Allowed when the feature is off, when the workload is preemptible, or when for every
    requested FlavorResource ``NPU(cq, fr) + request <= nominal(cq, fr)``. The bound is the
    queue's own nominal quota: lending limits do not lower it, borrowing limits and cohort
    quota do not raise it (NP-6). Each violation names the FlavorResource and the excess.
    The workload must not already be in the snapshot (it is the one being admitted).
    """
    arg(workload, Workload, "check_non_preemptible_quota", "workload")
    arg(cluster_queue, str, "check_non_preemptible_quota", "cluster_queue")
    arg(snapshot, Snapshot, "check_non_preemptible_quota", "snapshot")
    arg(config, PreemptionConfig, "check_non_preemptible_quota", "config")
    arg_mapping(requests, "check_non_preemptible_quota", "requests")
    if not is_non_preemptible(workload, snapshot, config):
        return NonPreemptibleQuotaCheck(allowed=True)
    node = snapshot.cluster_queue(cluster_queue)
    cq = node.cluster_queue
    assert cq is not None
    violations = []
    for fr, v in sorted(requests.items()):
        quota = cq.quotas.get(fr)
        nominal = quota.nominal if quota is not None else 0
        used = node.np_usage.get(fr, 0)
        if amount_add(used, v) > nominal:
            violations.append(NonPreemptibleViolation(fr, v, used, nominal))
    return NonPreemptibleQuotaCheck(allowed=not violations, violations=tuple(violations))

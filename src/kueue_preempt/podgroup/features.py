"""Feature switches that change the rules (kube-scheduler's feature gates, by their effect).

One value type for both paths, so a caller configures "the scheduler" once. Defaults follow
the newest kube-scheduler behaviour the spec describes, except where noted.
"""

from __future__ import annotations

import attrs

__all__ = ["PreemptionFeatures"]


@attrs.frozen
class PreemptionFeatures:
    """Switches read by the PodGroup path (PG-21) and the per-node path (NODE-11)."""

    pod_group_preemption_policy: bool = True
    """PG-21: a group's preemption policy comes from the group (True, kube's
    ``PodGroupPreemptionPolicy``) or is ``Never`` as soon as one member says so (False)."""
    workload_aware_preemption: bool = True
    """NODE-11: a pod that belongs to a PodGroup is refused by the per-node path, because its
    whole group goes through :func:`~kueue_preempt.podgroup.select_podgroup_victims`."""
    topology_aware_workload_scheduling: bool = False
    """Per-node path: refuse a member pod whose PodGroup is missing or has topology
    constraints (kube's ``TopologyAwareWorkloadScheduling``; off by default, as in kube)."""

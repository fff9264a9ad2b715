"""Value types the loader produces besides the core model: what a dump holds that the
algorithms do not read directly (LocalQueues, a workload's spec pod sets, PriorityClasses).
"""

from __future__ import annotations

from typing import Iterable, Mapping

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.flavors import (
    FlavorFungibility,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodSetSpec,
    ResourceFlavor,
    Taint,
    Toleration,
)
from kueue_preempt.cycle.cluster import PodTemplateResources, WorkloadStatus
from kueue_preempt.model import PodSetUsage, Workload
from kueue_preempt.model.queues import AdmissionCheckRule, ClusterQueueSettings, LocalQueue
from kueue_preempt.model.quantity import amount_input

__all__ = [
    "AdmissionCheckRule",
    "ClusterQueueSettings",
    "FlavorFungibility",
    "LoadedWorkload",
    "LocalQueue",
    "PodSetRequests",
    "PriorityClass",
    "ResourceFlavorSpec",
    "Taint",
    "Toleration",
]


def _amounts(value: Mapping[str, int | str]) -> FrozenMap[str, int]:
    # Q-1 input rule (``amount_input``): a string is a quantity of that resource, an int an amount.
    if not isinstance(value, Mapping):
        raise InvalidModel("PodSetRequests", "requests", f"expected a mapping of resource to quantity, got {type(value).__name__}")
    out: dict[str, int] = {}
    for resource, amount in value.items():
        if not isinstance(resource, str) or not resource:
            raise InvalidModel("PodSetRequests", "requests", f"resource names must be non-empty strings, got {resource!r}")
        out[resource] = amount_input(amount, resource, obj="PodSetRequests", field=f"requests[{resource!r}]")
    return frozen_map(out)


def _toleration_tuple(value: Iterable[Toleration]) -> tuple[Toleration, ...]:
    return tuple(value)


def _terms(value: Iterable[Iterable[NodeSelectorRequirement]]) -> tuple[tuple[NodeSelectorRequirement, ...], ...]:
    return tuple(tuple(term) for term in value)


def _selector_map(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(value)


@attrs.frozen
class PodSetRequests:
    """One ``spec.podSets`` entry: ``count`` pods, each requesting ``requests`` (amounts, Q-1).

    The per-pod request is Kubernetes' pod request: the sum of the containers, or the largest
    init container if larger (restartable "sidecar" init containers add to both), plus the pod
    overhead; a container limit stands in for a missing request.
    """

    name: str = "main"
    count: int = attrs.field(default=1)
    requests: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    min_count: int | None = None
    """``minCount``: partial admission (API-22, FAS-14); ``None`` = all pods or none."""
    node_selector: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_selector_map)
    """``template.spec.nodeSelector`` (FAS-5)."""
    node_affinity: tuple[tuple[NodeSelectorRequirement, ...], ...] = attrs.field(default=(), converter=_terms)
    """Required node affinity: the ``matchExpressions`` of each ``nodeSelectorTerms`` entry
    (terms are ORed; ``matchFields`` are dropped, FAS-5)."""
    tolerations: tuple[Toleration, ...] = attrs.field(default=(), converter=_toleration_tuple)
    """``template.spec.tolerations`` (FAS-5)."""
    pod_set_group_name: str | None = None
    """``topologyRequest.podSetGroupName`` (FAS-18)."""
    template: PodTemplateResources | None = attrs.field(default=None, eq=False, repr=False)
    """The template's containers as written, for LimitRange defaults and SC-NOM-3's checks."""

    @count.validator
    def _check_count(self, attribute: attrs.Attribute[int], value: int) -> None:
        if isinstance(value, bool) or value < 0:
            raise InvalidModel(f"PodSetRequests {self.name!r}", "count", f"must be >= 0, got {value!r}")

    def spec(self) -> PodSetSpec:
        """The assigner's :class:`~kueue_preempt.model.flavors.PodSetSpec` of this pod set (FAS-1, FAS-5):
        the one mapping from a manifest's pod set to the flavors model."""
        terms = [
            NodeSelectorTerm(term)
            for term in self.node_affinity
        ]
        return PodSetSpec(
            name=self.name,
            count=self.count,
            requests=self.requests,
            min_count=self.min_count,
            node_selector=self.node_selector,
            required_node_affinity=terms or None,
            tolerations=self.tolerations,
            pod_set_group=self.pod_set_group_name,
        )


def _counts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    for name, count in value.items():
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise InvalidModel("LoadedWorkload", f"reclaimable_pods[{name}]", f"must be an int >= 0, got {count!r}")
    return frozen_map(value)


def _pod_sets(value: Iterable[PodSetRequests]) -> tuple[PodSetRequests, ...]:
    return tuple(value)


_ACTIVE = WorkloadStatus()  # frozen: one shared default value


@attrs.frozen
class LoadedWorkload:
    """A Workload manifest: the model :class:`~kueue_preempt.Workload`, the per-workload fields
    the cycle reads (:class:`~kueue_preempt.cycle.WorkloadStatus`: ``spec.active``), and what
    only ``explain --assignment`` and the writer need — the spec pod sets as written and
    ``status.reclaimablePods`` as written (FAS-1a).
    """

    workload: Workload
    pod_sets: tuple[PodSetRequests, ...] = attrs.field(default=(), converter=_pod_sets)
    status: WorkloadStatus = _ACTIVE
    """What the cycle reads besides the model workload; ``status.active`` is ``spec.active``."""
    reclaimable_pods: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_counts)
    """``status.reclaimablePods`` as written: pod set name -> reclaimable pods (FAS-1a)."""

    @property
    def active(self) -> bool:
        """``spec.active`` (kept in :attr:`status`)."""
        return self.status.active

    def requested_pod_sets(self, reclaimable_pods: bool = True) -> tuple[PodSetRequests, ...]:
        """The pod sets a flavor assignment starts from (FAS-1a): with gate ``ReclaimablePods``
        on, a pod set named in ``status.reclaimablePods`` asks for ``count - min(reclaimable,
        count)`` pods."""
        if not reclaimable_pods or not self.reclaimable_pods:
            return self.pod_sets
        out = []
        for ps in self.pod_sets:
            r = self.reclaimable_pods.get(ps.name, 0)
            out.append(attrs.evolve(ps, count=ps.count - min(r, ps.count)) if r else ps)
        return tuple(out)

    @property
    def key(self) -> str:
        return self.workload.key

    @property
    def finished(self) -> bool:
        c = self.workload.condition("Finished")
        return c is not None and c.is_true

    @property
    def holds_quota(self) -> bool:
        """DM-7: ``QuotaReserved=True``, not finished and ``spec.active != false``."""
        return self.workload.quota_reserved_at is not None and not self.finished and self.active

    @property
    def is_pending(self) -> bool:
        """Waiting for admission: active, not finished, holding no quota."""
        return self.active and not self.finished and self.workload.quota_reserved_at is None

    @property
    def state(self) -> str:
        """A phrase for messages: ``"holds quota in ClusterQueue team-a"``, ``"is pending"``..."""
        if self.finished:
            return "is finished"
        if not self.active:
            return "is inactive (spec.active: false)"
        if self.workload.quota_reserved_at is not None:
            return f"holds quota in ClusterQueue {self.workload.cluster_queue}"
        return "is pending"

    @classmethod
    def from_workload(cls, workload: Workload, pod_sets: Iterable[PodSetRequests] | None = None) -> LoadedWorkload:
        """Wrap a model workload; without ``pod_sets``, derive them from its admission
        (per-pod request = pod set usage divided by the count, rounded up)."""
        pod_sets = [_from_usage(ps) for ps in workload.pod_sets] if pod_sets is None else list(pod_sets)
        if not workload.spec_pod_sets and pod_sets:
            # The assigner reads the model's spec pod sets (FAS-1): same pod sets, one mapping.
            workload = attrs.evolve(workload, spec_pod_sets=[ps.spec() for ps in pod_sets])
        return cls(workload=workload, pod_sets=pod_sets)


def _from_usage(ps: PodSetUsage) -> PodSetRequests:
    count = ps.count
    per_pod = {r: (-(-v // count) if count > 0 else v) for r, v in ps.usage.items() if v >= 0}
    return PodSetRequests(name=ps.name, count=count, requests=per_pod)


@attrs.frozen
class PriorityClass:
    """A core ``scheduling.k8s.io/v1`` PriorityClass.

    ``preemption_policy`` is ``PreemptLowerPriority`` or ``Never`` ("does not preempt others",
    the opposite reading of a WorkloadPriorityClass's ``Never``, NP-13).
    """

    name: str
    value: int
    preemption_policy: str = "PreemptLowerPriority"
    global_default: bool = False


# --------------------------------------------------------------------------- flavor-assignment inputs
# ResourceFlavors, taints, tolerations and flavorFungibility are the flavors model's own types,
# and a ClusterQueue's queueing settings the model's ClusterQueueSettings (one mapping from a
# dump to what the assigner and the cycle read).


ResourceFlavorSpec = ResourceFlavor
"""A ResourceFlavor's spec (API-18) is the flavors model's :class:`~kueue_preempt.model.flavors.ResourceFlavor`
(node labels, taints, tolerations, topology): the loader builds the assigner's type directly
(kept under this name for callers of earlier releases)."""



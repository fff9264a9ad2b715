"""Value types the loader produces besides the core model: what a dump holds that the
algorithms do not read directly (LocalQueues, a workload's spec pod sets, PriorityClasses).
"""

from __future__ import annotations

from typing import Iterable, Mapping

import attrs

from .._frozen import FrozenMap, frozen_map
from ..errors import InvalidModel
from ..model import PodSetUsage, Workload
from ..quantity import amount_input

__all__ = ["LocalQueue", "PodSetRequests", "LoadedWorkload", "PriorityClass"]


@attrs.frozen
class LocalQueue:
    """A namespaced queue that points pending workloads (``spec.queueName``) at a ClusterQueue."""

    name: str
    namespace: str
    cluster_queue: str

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


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

    @count.validator
    def _check_count(self, attribute: attrs.Attribute[int], value: int) -> None:
        if isinstance(value, bool) or value < 0:
            raise InvalidModel(f"PodSetRequests {self.name!r}", "count", f"must be >= 0, got {value!r}")


def _pod_sets(value: Iterable[PodSetRequests]) -> tuple[PodSetRequests, ...]:
    return tuple(value)


@attrs.frozen
class LoadedWorkload:
    """A Workload manifest: the model :class:`~kueue_preempt.Workload` plus what only the
    loader needs — the spec pod sets (for a pending workload's flavor assignment) and
    ``spec.active``.
    """

    workload: Workload
    pod_sets: tuple[PodSetRequests, ...] = attrs.field(default=(), converter=_pod_sets)
    active: bool = True

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
        if pod_sets is None:
            pod_sets = [_from_usage(ps) for ps in workload.pod_sets]
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

"""The cluster objects one cycle reads besides the quota tree (SC-ST-1..7, SC-CFG-3).

The quota tree itself is the library's :class:`~kueue_preempt.model.ClusterQueue` /
:class:`~kueue_preempt.model.Cohort` model; this module adds what only the queue manager and
the scheduler read: namespaces and their labels, LocalQueues, each ClusterQueue's queueing
settings (the model's :class:`~kueue_preempt.model.ClusterQueueSettings`), LimitRanges, and the per-workload status fields
a cycle reads and writes (generation, ``spec.active``, admission checks, ``resourceRequests``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable, Mapping

import attrs

from kueue_preempt._util.checks import model_iterable, model_str_map, str_field
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model.time import to_optional_time
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model.flavors import ResourceFlavor, groups_of_quota_keys
from kueue_preempt.model.pod_requests import ContainerResources
from kueue_preempt.model import ClusterQueue, Cohort, Workload, WorkloadPriorityClass
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.model.queues import ClusterQueueSettings, LocalQueue, QueueingStrategy, StopPolicy

__all__ = [
    "QueueingStrategy",
    "StopPolicy",
    "Namespace",
    "LocalQueue",
    "ClusterQueueSettings",
    "LimitRange",
    "PodTemplateResources",
    "AdmissionCheckState",
    "WorkloadStatus",
    "ClusterState",
]


def _labels(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(model_str_map(value, "Namespace", "labels"))


@attrs.frozen
class Namespace:
    """A namespace: only its labels matter, for ``namespaceSelector`` (SC-NOM-1 3a/3b)."""

    name: str = attrs.field(validator=str_field("Namespace"))
    labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_labels)


def _amounts_of(field: str, value: Mapping[str, int], obj: str = "LimitRange") -> FrozenMap[str, int]:
    if not isinstance(value, Mapping):
        raise InvalidModel(obj, field, f"expected a mapping of str to int, got {type(value).__name__}")
    for resource, amount in value.items():
        if not isinstance(resource, str) or isinstance(amount, bool) or not isinstance(amount, int):
            raise InvalidModel(obj, f"{field}[{resource!r}]", f"expected str: int, got {type(resource).__name__}: {type(amount).__name__}")
    return frozen_map(value)


def _max(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return _amounts_of("max", value)


def _min(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return _amounts_of("min", value)


def _default(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return _amounts_of("default", value)


def _default_request(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return _amounts_of("default_request", value)


def _overhead(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return _amounts_of("overhead", value, "PodTemplateResources")


@attrs.frozen
class LimitRange:
    """One LimitRange item (type ``Container`` or ``Pod``) with request-side amounts (SC-NOM-3)."""

    namespace: str = attrs.field(validator=str_field("LimitRange"))
    name: str = attrs.field(validator=str_field("LimitRange"))
    type: str = "Container"
    max: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_max)
    min: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_min)
    default: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_default)
    default_request: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_default_request)

    def __attrs_post_init__(self) -> None:
        if self.type not in ("Container", "Pod"):
            raise InvalidModel(f"LimitRange {self.namespace}/{self.name}", "type", f"unknown type {self.type!r}")


def _containers(value: Iterable[ContainerResources]) -> tuple[ContainerResources, ...]:
    return model_iterable(value, ContainerResources, "PodTemplateResources", "containers")


def _init_containers(value: Iterable[ContainerResources]) -> tuple[ContainerResources, ...]:
    return model_iterable(value, ContainerResources, "PodTemplateResources", "init_containers")


@attrs.frozen
class PodTemplateResources:
    """One pod set's template as SC-NOM-3 checks it: every init container and container
    (requests and limits as request-side amounts, in spec order), the pod-level ``resources``
    block (``None`` when the template has none) and ``overhead``.

    A reader gives the adjusted copy Kueue's queue keeps (LimitRange defaults applied, a
    missing request taking the limit).
    """

    containers: tuple[ContainerResources, ...] = attrs.field(default=(), converter=_containers)
    init_containers: tuple[ContainerResources, ...] = attrs.field(default=(), converter=_init_containers)
    pod: ContainerResources | None = None
    overhead: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_overhead)


@attrs.frozen
class AdmissionCheckState:
    """One ``status.admissionChecks`` entry; only ``Ready`` lets ``Admitted`` become True (SC-AD-2)."""

    name: str = attrs.field(validator=str_field("AdmissionCheckState"))
    state: str = attrs.field(default="Pending", validator=str_field("AdmissionCheckState"))


def _checks(value: Iterable[AdmissionCheckState]) -> tuple[AdmissionCheckState, ...]:
    return model_iterable(value, AdmissionCheckState, "WorkloadStatus", "admission_checks")


def _limits(value: Iterable[Mapping[str, int] | None]) -> tuple[FrozenMap[str, int] | None, ...]:
    return tuple(None if v is None else frozen_map(v) for v in value)


def _requests(value: Iterable[tuple[str, Mapping[str, int]]]) -> tuple[tuple[str, FrozenMap[str, int]], ...]:
    return tuple((name, frozen_map(res)) for name, res in value)


def _templates(value: Iterable[PodTemplateResources]) -> tuple[PodTemplateResources, ...]:
    return model_iterable(value, PodTemplateResources, "WorkloadStatus", "templates")


@attrs.frozen
class WorkloadStatus:
    """Per-workload fields a cycle reads and writes that the preemption model does not carry.

    ``resource_requests`` is ``status.resourceRequests``: per pod set ``(name, totals)``
    (SC-MSG-3). ``requeue_at`` is ``status.requeueState.requeueAt`` (SC-RQ-2).
    """

    generation: int = 0
    active: bool = True
    admission_checks: tuple[AdmissionCheckState, ...] = attrs.field(default=(), converter=_checks)
    resource_requests: tuple[tuple[str, FrozenMap[str, int]], ...] = attrs.field(default=(), converter=_requests)
    requeue_at: datetime | None = attrs.field(default=None, converter=to_optional_time)
    limits: tuple[FrozenMap[str, int] | None, ...] = attrs.field(default=(), converter=_limits)
    """Per pod set (spec order), the container limits (request-side amounts) or ``None``.

    The model has one container per pod set; SC-NOM-3 checks its requests against these.
    """
    templates: tuple[PodTemplateResources, ...] = attrs.field(default=(), converter=_templates)
    """Per pod set (spec order), its containers (:class:`PodTemplateResources`); when given,
    SC-NOM-3 checks every container of them instead of ``limits``."""


def _cqs(value: Iterable[ClusterQueue]) -> tuple[ClusterQueue, ...]:
    return model_iterable(value, ClusterQueue, "ClusterState", "cluster_queues")


def _cohorts(value: Iterable[Cohort]) -> tuple[Cohort, ...]:
    return model_iterable(value, Cohort, "ClusterState", "cohorts")


def _flavors(value: Iterable[ResourceFlavor]) -> tuple[ResourceFlavor, ...]:
    return model_iterable(value, ResourceFlavor, "ClusterState", "flavors")


def _namespaces(value: Iterable[Namespace]) -> tuple[Namespace, ...]:
    return model_iterable(value, Namespace, "ClusterState", "namespaces")


def _lqs(value: Iterable[LocalQueue]) -> tuple[LocalQueue, ...]:
    return model_iterable(value, LocalQueue, "ClusterState", "local_queues")


def _ranges(value: Iterable[LimitRange]) -> tuple[LimitRange, ...]:
    return model_iterable(value, LimitRange, "ClusterState", "limit_ranges")


def _workloads(value: Iterable[Workload]) -> tuple[Workload, ...]:
    return model_iterable(value, Workload, "ClusterState", "workloads")


def _classes(value: Iterable[WorkloadPriorityClass]) -> tuple[WorkloadPriorityClass, ...]:
    return model_iterable(value, WorkloadPriorityClass, "ClusterState", "priority_classes")


def _settings(value: Mapping[str, ClusterQueueSettings] | Iterable[ClusterQueueSettings]) -> FrozenMap[str, ClusterQueueSettings]:
    items = list(value.items()) if isinstance(value, Mapping) else [(s.name, s) for s in value]
    for name, settings in items:
        if not isinstance(settings, ClusterQueueSettings):
            raise InvalidModel("ClusterState", f"queueing[{name}]", f"expected ClusterQueueSettings, got {type(settings).__name__}")
        if settings.name != name:
            raise InvalidModel("ClusterState", f"queueing[{name}]", f"holds the settings of ClusterQueue {settings.name!r}")
    return frozen_map(dict(items))


def _statuses(value: Mapping[str, WorkloadStatus]) -> FrozenMap[str, WorkloadStatus]:
    return frozen_map(value)


@attrs.frozen
class ClusterState:
    """Everything one cycle reads about the cluster (SC-ST-1..7).

    ``workloads`` holds every Workload: those holding quota (``cluster_queue`` set, DM-7) and
    the pending ones (``local_queue`` = ``spec.queueName``, ``spec_pod_sets`` set). A
    ClusterQueue without an entry in ``queueing`` is BestEffortFIFO, selects every namespace
    and is not stopped. ``flavors`` are the ResourceFlavors that exist; when empty, every
    flavor a ClusterQueue names is taken to exist. ``statuses`` holds optional per-workload
    fields (:class:`WorkloadStatus`) by ``namespace/name``. ``namespaces`` empty means every
    namespace a workload names exists with no labels.
    """

    cluster_queues: tuple[ClusterQueue, ...] = attrs.field(default=(), converter=_cqs)
    cohorts: tuple[Cohort, ...] = attrs.field(default=(), converter=_cohorts)
    flavors: tuple[ResourceFlavor, ...] = attrs.field(default=(), converter=_flavors)
    namespaces: tuple[Namespace, ...] = attrs.field(default=(), converter=_namespaces)
    local_queues: tuple[LocalQueue, ...] = attrs.field(default=(), converter=_lqs)
    queueing: FrozenMap[str, ClusterQueueSettings] = attrs.field(factory=FrozenMap, converter=_settings)
    limit_ranges: tuple[LimitRange, ...] = attrs.field(default=(), converter=_ranges)
    workloads: tuple[Workload, ...] = attrs.field(default=(), converter=_workloads)
    statuses: FrozenMap[str, WorkloadStatus] = attrs.field(factory=FrozenMap, converter=_statuses)
    priority_classes: tuple[WorkloadPriorityClass, ...] = attrs.field(default=(), converter=_classes)

    def status(self, key: str) -> WorkloadStatus:
        return self.statuses.get(key) or _DEFAULT_STATUS

    def settings(self, cq: str) -> ClusterQueueSettings:
        """The queueing settings of ClusterQueue ``cq``; the defaults when ``queueing`` has none."""
        found = self.queueing.get(cq)
        return found if found is not None else ClusterQueueSettings(cq)

    def snapshot(
        self,
        *,
        charged: Iterable[Workload] | None = None,
        skip_cohort_cycles: bool = False,
        reclaimable_pods: bool = True,
        implicit_cohorts: bool = True,
        resource_groups: bool = False,
        index: PreemptionConfig | None = None,
    ) -> Snapshot:
        """The quota tree of this cluster with the workloads that hold quota (SC-ST-6, DM-7):
        the one builder of both the cycle's snapshot and ``explain``'s.

        * ``charged``: the workloads charged to their ClusterQueues, in order; ``None`` = those
          of :attr:`workloads` that :func:`holds_quota` (by :meth:`status`). A charged
          workload whose ClusterQueue is not in the snapshot is left out (callers that must
          report it, like the dump's manifest-path error, check first).
        * ``skip_cohort_cycles``: leave out the Cohorts on or below a parent cycle and the
          ClusterQueues in them (SC-ST-4; the cycle). Off, a cycle is the snapshot's error.
        * ``reclaimable_pods``: gate ``ReclaimablePods``; off, ``reclaimable_pods`` of the
          charged workloads is ignored and every admitted pod counts (FAS-1a).
        * ``implicit_cohorts``: a Cohort named but not given exists with no quota, as in Kueue.
        * ``resource_groups``: write into each ClusterQueue the resource groups the flavor
          assigner would recover from its quotas (FAS-4), once per snapshot rather than once
          per nomination (the cycle).
        * ``index``: build the sorted candidate index for this preemption configuration
          (:meth:`~kueue_preempt.snapshot.quota.Snapshot.enable_index`); ``None`` = none.
        """
        cyclic = cyclic_cohorts(self.cohorts) if skip_cohort_cycles else frozenset()
        cqs = [cq for cq in self.cluster_queues if cq.cohort is None or cq.cohort not in cyclic]
        if resource_groups:
            cqs = [_with_groups(cq) for cq in cqs]
        names = {cq.name for cq in cqs}
        cohorts = [co for co in self.cohorts if co.name not in cyclic] if cyclic else self.cohorts
        if charged is None:
            charged = [w for w in self.workloads if holds_quota(w, self.status(w.key))]
        workloads = [w for w in charged if w.cluster_queue in names]
        if not reclaimable_pods:
            workloads = [attrs.evolve(w, reclaimable_pods={}) if w.reclaimable_pods else w for w in workloads]
        snapshot = Snapshot(
            cqs, cohorts, workloads, priority_classes=self.priority_classes, implicit_cohorts=implicit_cohorts
        )
        if index is not None:
            snapshot.enable_index(index)
        return snapshot


_DEFAULT_STATUS = WorkloadStatus()


def finished(w: Workload) -> bool:
    """Condition ``Finished=True``."""
    c = w.condition("Finished")
    return c is not None and c.is_true


def holds_quota(w: Workload, status: WorkloadStatus) -> bool:
    """SC-ST-6 / DM-7: holds a reservation (``cluster_queue`` set), active and not finished."""
    return bool(w.cluster_queue) and status.active and not finished(w)


def cyclic_cohorts(cohorts: Iterable[Cohort]) -> frozenset[str]:
    """Cohorts on, or below, a parent cycle (SC-ST-4): their trees are left out of the cycle's snapshot."""
    parent = {c.name: c.parent for c in cohorts}
    bad: set[str] = set()
    good: set[str] = set()  # known to reach a root: a later walk that meets one stops there
    for start in parent:
        chain: list[str] = []
        on_chain: set[str] = set()
        node: str | None = start
        # Linear overall: each cohort joins one chain, then is known good or bad.
        while node is not None and node not in on_chain and node not in bad and node not in good:
            chain.append(node)
            on_chain.add(node)
            node = parent.get(node)
        if node is not None and (node in on_chain or node in bad):
            bad.update(chain)
        else:
            good.update(chain)
    return frozenset(bad)


def _with_groups(cq: ClusterQueue) -> ClusterQueue:
    """The ClusterQueue with the resource groups the flavor assigner would recover from its
    quotas (FAS-4, ``groups_of_quota_keys``) written in, so they are derived once per snapshot
    rather than once per nomination. Only the assigner reads them; same groups, same order."""
    if cq.resource_groups or not cq.quotas:
        return cq
    try:
        return attrs.evolve(cq, resource_groups=groups_of_quota_keys(cq.quotas))
    except InvalidModel:  # groups that do not give back the same quotas: let the assigner derive them
        return cq

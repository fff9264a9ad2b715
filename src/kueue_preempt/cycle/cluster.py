"""The cluster objects one cycle reads besides the quota tree (SC-ST-1..7, SC-CFG-3).

The quota tree itself is the library's :class:`~kueue_preempt.model.ClusterQueue` /
:class:`~kueue_preempt.model.Cohort` model; this module adds what only the queue manager and
the scheduler read: namespaces and their labels, LocalQueues, each ClusterQueue's queueing
strategy, namespace selector and stop policy, LimitRanges, and the per-workload status fields
a cycle reads and writes (generation, ``spec.active``, admission checks, ``resourceRequests``).
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Iterable, Mapping

import attrs

from .._frozen import FrozenMap, frozen_map
from .._time import to_optional_time
from ..errors import InvalidModel
from .selectors import LabelSelector

__all__ = [
    "QueueingStrategy",
    "StopPolicy",
    "Namespace",
    "LocalQueue",
    "QueueingSettings",
    "LimitRange",
    "AdmissionCheckState",
    "WorkloadStatus",
]


class QueueingStrategy(str, enum.Enum):
    """``spec.queueingStrategy`` (SC-QO-4)."""

    BEST_EFFORT_FIFO = "BestEffortFIFO"
    STRICT_FIFO = "StrictFIFO"


class StopPolicy(str, enum.Enum):
    """``spec.stopPolicy`` of a ClusterQueue or LocalQueue (SC-ST-4, SC-EV-5)."""

    NONE = "None"
    HOLD = "Hold"
    HOLD_AND_DRAIN = "HoldAndDrain"


def _stop(value: StopPolicy | str | None) -> StopPolicy:
    if value is None or value == "":
        return StopPolicy.NONE
    try:
        return StopPolicy(value)
    except ValueError:
        raise InvalidModel("stopPolicy", "stopPolicy", f"unknown value {value!r}") from None


def _strategy(value: QueueingStrategy | str | None) -> QueueingStrategy:
    if value is None or value == "":
        return QueueingStrategy.BEST_EFFORT_FIFO
    try:
        return QueueingStrategy(value)
    except ValueError:
        raise InvalidModel("ClusterQueue", "queueingStrategy", f"unknown value {value!r}") from None


def _labels(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(value)


@attrs.frozen
class Namespace:
    """A namespace: only its labels matter, for ``namespaceSelector`` (SC-NOM-1 3a/3b)."""

    name: str
    labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_labels)


@attrs.frozen
class LocalQueue:
    """``namespace/name`` pointing at a ClusterQueue (SC-ST-1)."""

    namespace: str
    name: str
    cluster_queue: str
    stop_policy: StopPolicy = attrs.field(default=StopPolicy.NONE, converter=_stop)

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"


@attrs.frozen
class QueueingSettings:
    """The ClusterQueue fields only the queue manager and the cycle read (SC-CFG-3).

    ``namespace_selector=None`` selects no namespace; the default ``LabelSelector()`` selects
    all. ``admission_checks`` are names only: no check is evaluated (SC-AD-3).
    """

    strategy: QueueingStrategy = attrs.field(default=QueueingStrategy.BEST_EFFORT_FIFO, converter=_strategy)
    namespace_selector: LabelSelector | None = attrs.field(factory=LabelSelector)
    stop_policy: StopPolicy = attrs.field(default=StopPolicy.NONE, converter=_stop)


def _amounts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


@attrs.frozen
class LimitRange:
    """One LimitRange item (type ``Container`` or ``Pod``) with request-side amounts (SC-NOM-3)."""

    namespace: str
    name: str
    type: str = "Container"
    max: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    min: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    default: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    default_request: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)

    def __attrs_post_init__(self) -> None:
        if self.type not in ("Container", "Pod"):
            raise InvalidModel(f"LimitRange {self.namespace}/{self.name}", "type", f"unknown type {self.type!r}")


@attrs.frozen
class AdmissionCheckState:
    """One ``status.admissionChecks`` entry; only ``Ready`` lets ``Admitted`` become True (SC-AD-2)."""

    name: str
    state: str = "Pending"


def _checks(value: Iterable[AdmissionCheckState]) -> tuple[AdmissionCheckState, ...]:
    return tuple(value)


def _requests(value: Iterable[tuple[str, Mapping[str, int]]]) -> tuple[tuple[str, FrozenMap[str, int]], ...]:
    return tuple((name, frozen_map(res)) for name, res in value)


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

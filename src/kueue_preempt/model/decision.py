"""What a preemption decision reads and returns: the preemptor's assignment and its targets (DM-10, GT-*)."""

from __future__ import annotations

import enum
from typing import Iterable, Mapping

import attrs

from kueue_preempt._util.checks import model_iterable
from kueue_preempt._util.frozen import FrozenMap, frozen_map, intern
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.quantity import amount_input
from kueue_preempt.model.resources import FlavorResource
from kueue_preempt.model.workload import Workload

__all__ = ["FlavorAssignmentMode", "Assignment", "PreemptionReason", "Target"]



class FlavorAssignmentMode(str, enum.Enum):
    """How the flavor assigner placed one (pod set, resource) (FA-1)."""

    FIT = "Fit"
    PREEMPT = "Preempt"
    NO_FIT = "NoFit"


def _requests(value: Mapping[FlavorResource, int | str]) -> FrozenMap[FlavorResource, int]:
    if not isinstance(value, Mapping):
        raise InvalidModel("Assignment", "requests", f"expected a mapping of FlavorResource to quantity, got {type(value).__name__}")
    out: dict[FlavorResource, int] = {}
    for fr, v in value.items():
        if not isinstance(fr, FlavorResource):
            raise InvalidModel("Assignment", "requests", f"keys must be FlavorResource, got {type(fr).__name__}")
        # Q-1 input rule: the key names the resource, so "500m" of cpu is the amount 500.
        out[intern(fr)] = amount_input(v, fr.resource, obj="Assignment", field=f"requests[{fr}]")
    return frozen_map(out)


def _fr_set(value: Iterable[FlavorResource]) -> frozenset[FlavorResource]:
    return frozenset(intern(fr) for fr in model_iterable(value, FlavorResource, "Assignment", "preempt"))


@attrs.frozen
class Assignment:
    """The preemptor's flavor assignment (DM-8), reduced to what preemption reads.

    ``requests`` is ``TotalRequestsFor`` (FA-3): total amounts per FlavorResource, including
    ``Fit``-mode ones. ``preempt`` is the set of FlavorResources in ``Preempt`` mode (FA-2).
    """

    requests: FrozenMap[FlavorResource, int] = attrs.field(converter=_requests)
    preempt: frozenset[FlavorResource] = attrs.field(converter=_fr_set)

    @preempt.validator
    def _check_preempt(self, attribute: attrs.Attribute[frozenset[FlavorResource]], value: frozenset[FlavorResource]) -> None:
        # FA-2 / FA-3: FRNP is the Preempt-mode subset of the requested FlavorResources.
        requests = self.requests
        for fr in value:
            if fr not in requests:
                missing = ", ".join(sorted(str(f) for f in value if f not in requests))
                raise InvalidModel(
                    "Assignment", "preempt", f"{missing} in Preempt mode but not in 'requests' (FA-2: FRNP is requested)"
                )


class PreemptionReason(str, enum.Enum):
    """The ``Preempted`` condition reasons Kueue writes (MSG-1)."""

    IN_CLUSTER_QUEUE = "InClusterQueue"
    IN_COHORT_RECLAMATION = "InCohortReclamation"
    IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
    IN_COHORT_RECLAIM_WHILE_BORROWING = "InCohortReclaimWhileBorrowing"

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class Target:
    """A workload selected for eviction (DM-9), with the reason and the Kueue message (MSG-3)."""

    workload: Workload
    reason: PreemptionReason
    cluster_queue: str
    message: str = ""

"""A head's nomination and its cycle-local entry (SC-NOM-2, glossary "Entry")."""

from __future__ import annotations

import enum
from typing import Mapping

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model import FlavorResource, PodSetUsage, Target, Workload
from kueue_preempt.cycle.queues import ScanProgress
from kueue_preempt.cycle.status import RequeueReason

__all__ = ["Mode", "Nomination", "Entry", "Outcome"]


class Mode(str, enum.Enum):
    """Assignment modes (FAS-13) plus the scheduler-only ``DeferredFit`` (SC-PE-3)."""

    NO_FIT = "NoFit"
    PREEMPT = "Preempt"
    DEFERRED_FIT = "DeferredFit"
    FIT = "Fit"


class Outcome(str, enum.Enum):
    """What happened to a head in its cycle."""

    ADMITTED = "Admitted"
    """Quota reserved (SC-AD-1)."""
    PREEMPTING = "Preempting"
    """Preemptions issued; the workload waits for its victims (SC-PR-1, SC-PR-2)."""
    DEFERRED_FIT = "DeferredFit"
    """Fits once this cycle's preemptions complete (SC-PE-3)."""
    NO_FIT = "NoFit"
    """No flavor assignment fits (SC-PE-1)."""
    NO_CANDIDATES = "NoCandidates"
    """Needs preemption but no targets were found; capacity may be reserved (SC-PE-2)."""
    SKIPPED = "Skipped"
    """Overlapping targets or no longer fits after an earlier entry (SC-PE-1, SC-PE-4)."""
    REJECTED = "Rejected"
    """Failed a nomination check (SC-NOM-1)."""


def _usage(value: Mapping[FlavorResource, int]) -> FrozenMap[FlavorResource, int]:
    return frozen_map(value)


def _pins(value: Mapping[tuple[str, str], str]) -> FrozenMap[tuple[str, str], str]:
    return frozen_map(value)


def _targets(value: tuple[Target, ...] | list[Target]) -> tuple[Target, ...]:
    return tuple(value)


def _pod_sets(value: tuple[PodSetUsage, ...] | list[PodSetUsage]) -> tuple[PodSetUsage, ...]:
    return tuple(value)


@attrs.frozen
class Nomination:
    """An entry's assignment and targets (SC-NOM-2).

    ``usage`` is ``U(A)`` (SC-CY-4); ``pod_sets`` the admission it would write (SC-AD-1);
    ``pins`` the nomination mapping (pod-set name, resource) -> flavor a recomputation is
    held to (SC-PE-3a); ``flavors_considered`` the ``<F>`` text of SC-EVT-1. ``pod_sets`` and
    ``flavors_considered`` are filled for a ``Fit`` nomination only: no other is admitted as
    nominated (a recomputed one is deferred, SC-PE-3), so nothing else reads them.
    """

    mode: Mode
    borrowing: int = 0
    usage: FrozenMap[FlavorResource, int] = attrs.field(factory=FrozenMap, converter=_usage)
    targets: tuple[Target, ...] = attrs.field(default=(), converter=_targets)
    message: str = ""
    no_fit_reason: str = ""
    pod_sets: tuple[PodSetUsage, ...] = attrs.field(default=(), converter=_pod_sets)
    progress: ScanProgress | None = None
    pins: FrozenMap[tuple[str, str], str] = attrs.field(factory=FrozenMap, converter=_pins)
    flavors_considered: str = ""


_set = object.__setattr__


def stored_nomination(
    mode: Mode,
    borrowing: int,
    usage: FrozenMap[FlavorResource, int],
    targets: tuple[Target, ...],
    message: str,
    no_fit_reason: str,
    pod_sets: tuple[PodSetUsage, ...],
    progress: ScanProgress | None,
    pins: FrozenMap[tuple[str, str], str],
    flavors_considered: str,
) -> Nomination:
    """``Nomination(...)`` of fields already in their stored form (frozen maps, tuples), as
    :func:`~kueue_preempt.cycle.nominate.nominate` builds them once per head: the converters
    would return every value unchanged. Equal to the constructor's result."""
    n: Nomination = object.__new__(Nomination)
    _set(n, "mode", mode)
    _set(n, "borrowing", borrowing)
    _set(n, "usage", usage)
    _set(n, "targets", targets)
    _set(n, "message", message)
    _set(n, "no_fit_reason", no_fit_reason)
    _set(n, "pod_sets", pod_sets)
    _set(n, "progress", progress)
    _set(n, "pins", pins)
    _set(n, "flavors_considered", flavors_considered)
    return n


@attrs.define
class Entry:
    """A head and its cycle-local state (mutable, private to one cycle)."""

    workload: Workload
    cluster_queue: str
    nomination: Nomination | None = None
    """``None`` for an entry rejected by SC-NOM-1."""
    is_preemptor: bool = False
    requeue_reason: RequeueReason = RequeueReason.GENERIC
    outcome: Outcome = Outcome.REJECTED
    reason: str = ""
    """The ``QuotaReserved=False`` reason written for a pending entry (SC-MSG-1)."""
    message: str = ""
    progress: ScanProgress | None = None
    """The scan progress the workload keeps after the cycle (SC-FR-5)."""
    counted_targets: int = 0

    @property
    def key(self) -> str:
        return self.workload.key

    @property
    def borrowing(self) -> int:
        return self.nomination.borrowing if self.nomination is not None else 0

    @property
    def has_reservation(self) -> bool:
        return False  # TAS second pass only (SC-ORD-1 criterion 1, SC-SIM-8)

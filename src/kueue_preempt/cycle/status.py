"""Status writes, events and metrics of one cycle (SC-AD-2, SC-MSG-1..3, SC-EVT-1, SC-MET-*).

Condition writes follow Kubernetes semantics: a condition whose status does not change keeps
its ``lastTransitionTime``; reason, message and observedGeneration are replaced every time.
"""

from __future__ import annotations

import enum
from datetime import datetime
from typing import Iterable, Sequence

import attrs

from kueue_preempt.model import Condition, Workload
from kueue_preempt.model.workload_writes import with_admission

__all__ = [
    "Event",
    "RequeueReason",
    "set_condition",
    "truncate_condition_message",
    "truncate_event_message",
    "wait_seconds",
    "MSG_NO_LONGER_FITS",
    "MSG_OVERLAPPING",
    "MSG_DEFERRED_FIT",
    "MSG_NAMESPACE_MISMATCH",
]

MSG_NO_LONGER_FITS = "Workload no longer fits after processing another workload"
MSG_OVERLAPPING = "Workload has overlapping preemption targets with another workload"
MSG_DEFERRED_FIT = (
    "Workload has overlapping preemption targets with another workload, "
    "but will fit after these preemptions complete"
)
MSG_NAMESPACE_MISMATCH = "workload namespace doesn't match ClusterQueue selector"

_CONDITION_LIMIT = 32768
_EVENT_LIMIT = 1024
_MAX_DURATION_NS = 2**63 - 1


class RequeueReason(str, enum.Enum):
    """Why an entry goes back to its queue (SC-RQ-3); decides active vs inadmissible (SC-RQ-4)."""

    GENERIC = ""
    NAMESPACE_MISMATCH = "NamespaceMismatch"
    NO_FIT = "NoFit"
    PREEMPTION_NO_CANDIDATES = "PreemptionNoCandidates"
    PENDING_PREEMPTION = "PendingPreemption"
    FAILED_AFTER_NOMINATION = "FailedAfterNomination"
    PREEMPTION_FAILED = "PreemptionFailed"


@attrs.frozen
class Event:
    """A Kubernetes event the cycle records (SC-EVT-1)."""

    namespace: str
    name: str
    type: str
    reason: str
    message: str


def truncate_condition_message(message: str) -> str:
    """SC-MSG-3: cut to 32768 bytes (first 32764 bytes + `` ...``)."""
    return _truncate(message, _CONDITION_LIMIT)


def truncate_event_message(message: str) -> str:
    """SC-EVT-1: cut to 1024 bytes (first 1020 bytes + `` ...``)."""
    return _truncate(message, _EVENT_LIMIT)


def _truncate(message: str, limit: int) -> str:
    if len(message) * 4 <= limit:
        return message  # at most 4 UTF-8 bytes a character: short enough without encoding
    raw = message.encode()
    if len(raw) <= limit:
        return message
    return raw[: limit - 4].decode(errors="ignore") + " ..."


def set_condition(
    conditions: Sequence[Condition],
    type_: str,
    status: str,
    reason: str,
    message: str,
    now: datetime,
    generation: int,
) -> tuple[Condition, ...]:
    """Kubernetes ``SetStatusCondition``: the transition time changes only with the status."""
    out: list[Condition] = []
    found = False
    for c in conditions:
        if c.type != type_:
            out.append(c)
            continue
        found = True
        if c.status == status and c.reason == reason and c.message == message and c.observed_generation == generation:
            out.append(c)  # the same condition again (a head requeued with the same message)
            continue
        at = c.last_transition_time if c.status == status else now
        out.append(Condition(type_, status, reason, at, message, generation))
    if not found:
        out.append(Condition(type_, status, reason, now, message, generation))
    return tuple(out)


def released_workload(w: Workload, now: datetime, generation: int) -> Workload | None:
    """SC-EV-2: ``w`` after the release of its quota, or ``None`` when it is not releasable
    (it holds no reservation or has no ``Evicted=True`` condition).

    ``QuotaReserved`` and (if it was True) ``Admitted`` become False, ``Requeued`` takes the
    eviction reason with status True only for a preemption, and the admission is cleared.
    ``generation`` is the workload's ``metadata.generation`` (the conditions' observedGeneration).
    Where the workload goes next (SC-EV-3) is the caller's queue bookkeeping.
    """
    ev = w.condition("Evicted")
    if not w.cluster_queue or ev is None or not ev.is_true:
        return None
    conds = set_condition(w.conditions, "QuotaReserved", "False", "Pending", ev.message, now, generation)
    admitted = w.condition("Admitted")
    if admitted is not None and admitted.is_true:
        conds = set_condition(conds, "Admitted", "False", "NoReservation", "The workload has no reservation", now, generation)
    requeued_status = "True" if ev.reason == "Preempted" else "False"
    conds = set_condition(conds, "Requeued", requeued_status, ev.reason, ev.message, now, generation)
    return with_admission(w, cluster_queue="", pod_sets=(), quota_reserved_at=None, conditions=conds)


def wait_seconds(now: datetime, since: datetime | None) -> str:
    """SC-EVT-1 ``<S>``: whole seconds, Go ``%.0f`` (half to even), saturating at 2^63-1 ns."""
    if since is None:
        ns = _MAX_DURATION_NS
    else:
        delta = now - since
        ns = (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000
        ns = max(-_MAX_DURATION_NS - 1, min(_MAX_DURATION_NS, ns))
    return f"{round(ns / 1e9):.0f}"


def conditions_sorted(conditions: Iterable[Condition]) -> list[Condition]:
    return sorted(conditions, key=lambda c: c.type)

"""Action types shared by the reference controllers (BOOST-11, COST-6).

A reference controller is a pure function from a workload's state (and a config, and a clock
reading) to *what it would write*. The write itself — a metadata patch for the boost
annotation, a status-subresource patch for the cost — belongs to the caller, so these types
describe writes instead of doing them. Every reconcile function in :mod:`kueue_preempt.policies`
is idempotent: applying the returned action with :meth:`AnnotationAction.apply_to` /
:meth:`StatusAction.apply_to` and reconciling again yields the ``NONE`` action.
"""

from __future__ import annotations

import enum
from datetime import datetime, timedelta
from typing import Callable

import attrs

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import Workload
from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.model.priority import BOOST_ANNOTATION

__all__ = [
    "ActionKind",
    "AnnotationAction",
    "StatusAction",
    "ReconcileResult",
    "BoostDecision",
    "BoostFn",
    "InvalidDuration",
    "PREEMPTED_EVICTION_REASON",
    "EVENT_BOOST_SET",
    "EVENT_BOOST_CLEARED",
    "preempted_count",
    "wrap_int32",
    "clamp_int32",
]

PREEMPTED_EVICTION_REASON = "Preempted"
"""``status.schedulingStats.evictions[].reason`` Kueue writes when it preempts (MSG-5)."""

EVENT_BOOST_SET = "PriorityBoostSet"
"""Event reason the Kueue booster emits when it sets the annotation (BOOST-6)."""
EVENT_BOOST_CLEARED = "PriorityBoostCleared"
"""Event reason the Kueue booster emits when it deletes the annotation (BOOST-6)."""


class InvalidDuration(ConfigurationError):
    """A Go duration string (``time.ParseDuration``) does not parse (BOOST-1).

    Kueue's booster fails at start-up on such a value; the library raises this instead. It is a
    :class:`~kueue_preempt.errors.ConfigurationError`, hence a ``KueuePreemptError`` and a
    ``ValueError``.
    """

    def __init__(self, value: str, reason: str, *, where: str = "timeSharing.interval") -> None:
        self.value = value
        self.reason = reason
        self.where = where
        super().__init__(f"{where}: invalid duration {value!r}: {reason}")


class ActionKind(str, enum.Enum):
    """What a reconcile wants done to one field.

    ``SET`` writes a value; ``DELETE`` removes an annotation key; ``CLEAR`` unsets a status
    field. ``NONE`` means "no write": the current state is already the desired one.
    """

    NONE = "None"
    SET = "Set"
    DELETE = "Delete"
    CLEAR = "Clear"

    def __str__(self) -> str:
        return self.value


def _check_payload(kind: ActionKind, value: str | None, allowed: tuple[ActionKind, ...], what: str) -> None:
    # The payload and the kind travel together so that an action that exists is meaningful:
    # a SET without a value or a DELETE carrying one would be ambiguous to the caller.
    if kind not in allowed:
        raise ValueError(f"{what}: kind {kind.value!r} not in {[k.value for k in allowed]}")
    if (kind is ActionKind.SET) != (value is not None):
        raise ValueError(f"{what}: a value is required for Set and forbidden otherwise (got {value!r})")


@attrs.frozen
class AnnotationAction:
    """A change to one annotation of a workload: none, set ``value``, or delete (BOOST-4, BOOST-11).

    Build with :meth:`none`, :meth:`set` or :meth:`delete`. ``key`` defaults to the priority
    boost annotation ``kueue.x-k8s.io/priority-boost``.
    """

    kind: ActionKind = attrs.field(converter=ActionKind)
    value: str | None = None
    key: str = BOOST_ANNOTATION

    def __attrs_post_init__(self) -> None:
        _check_payload(
            self.kind, self.value, (ActionKind.NONE, ActionKind.SET, ActionKind.DELETE), "AnnotationAction"
        )

    @classmethod
    def none(cls, key: str = BOOST_ANNOTATION) -> AnnotationAction:
        """No write: the annotation already holds the desired value."""
        return cls(ActionKind.NONE, None, key)

    @classmethod
    def set(cls, value: str, key: str = BOOST_ANNOTATION) -> AnnotationAction:
        """Write ``value`` under ``key``."""
        return cls(ActionKind.SET, value, key)

    @classmethod
    def delete(cls, key: str = BOOST_ANNOTATION) -> AnnotationAction:
        """Remove ``key`` from the annotations."""
        return cls(ActionKind.DELETE, None, key)

    @property
    def is_none(self) -> bool:
        return self.kind is ActionKind.NONE

    @property
    def event_reason(self) -> str | None:
        """The Kubernetes event reason Kueue's booster emits for this write (BOOST-6), if any."""
        if self.kind is ActionKind.SET:
            return EVENT_BOOST_SET
        if self.kind is ActionKind.DELETE:
            return EVENT_BOOST_CLEARED
        return None

    def apply(self, annotations: dict[str, str]) -> dict[str, str]:
        """A copy of ``annotations`` with this action applied (the argument is not mutated)."""
        out = dict(annotations)
        if self.kind is ActionKind.SET:
            assert self.value is not None  # guaranteed by the constructor check
            out[self.key] = self.value
        elif self.kind is ActionKind.DELETE:
            out.pop(self.key, None)
        return out

    def apply_to(self, workload: Workload) -> Workload:
        """``workload`` with this action applied; the same object when the action is ``NONE``."""
        if self.kind is ActionKind.NONE:
            return workload
        return attrs.evolve(workload, annotations=self.apply(dict(workload.annotations)))


@attrs.frozen
class StatusAction:
    """A change to ``status.preemptionCost``: none, set ``value`` (a quantity string), or clear (COST-6)."""

    kind: ActionKind = attrs.field(converter=ActionKind)
    value: str | None = None

    def __attrs_post_init__(self) -> None:
        _check_payload(self.kind, self.value, (ActionKind.NONE, ActionKind.SET, ActionKind.CLEAR), "StatusAction")

    @classmethod
    def none(cls) -> StatusAction:
        """No write: the status already holds the desired value."""
        return cls(ActionKind.NONE)

    @classmethod
    def set(cls, value: str) -> StatusAction:
        """Write the quantity string ``value``."""
        return cls(ActionKind.SET, value)

    @classmethod
    def clear(cls) -> StatusAction:
        """Unset the field (an unset cost reads as 0, COST-1)."""
        return cls(ActionKind.CLEAR)

    @property
    def is_none(self) -> bool:
        return self.kind is ActionKind.NONE

    def apply_to(self, workload: Workload) -> Workload:
        """``workload`` with this action applied; the same object when the action is ``NONE``."""
        if self.kind is ActionKind.NONE:
            return workload
        # The model's converter parses the quantity string, so a bad value fails here too.
        return attrs.evolve(workload, preemption_cost=self.value)


@attrs.frozen
class ReconcileResult:
    """Outcome of one boost reconcile (BOOST-11): the annotation action and when to look again.

    ``boost`` is the desired boost the action converges to (0 = no annotation);
    ``requeue_after`` is ``None`` when nothing time-based can change the result (a watch event
    will, e.g. a new eviction or an ``Admitted`` transition).
    """

    action: AnnotationAction
    requeue_after: timedelta | None = None
    boost: int = 0


@attrs.frozen
class BoostDecision:
    """What a boost policy wants for one workload at one instant, before any write rule applies."""

    boost: int
    requeue_after: timedelta | None = None


BoostFn = Callable[[Workload, datetime], BoostDecision]
"""A boost policy: ``(workload, now) -> BoostDecision``. Every ``*Config.decide`` has this type."""


def preempted_count(workload: Workload) -> int:
    """Σ ``count`` over eviction stats whose reason is ``Preempted`` (BOOST-12, COST-6).

    Every underlying cause is summed [D, §18 item 17]: Kueue writes ``underlying_cause = ""``
    for its own preemptions (MSG-5), but other controllers may record causes, and each one
    is still an eviction by preemption that the workload paid for.
    """
    return sum(e.count for e in workload.evictions if e.reason == PREEMPTED_EVICTION_REASON)


def wrap_int32(value: int) -> int:
    """``value`` reduced into int32 two's complement, like Go's ``int32`` arithmetic (BOOST-8).

    >>> wrap_int32(2**31), wrap_int32(-5)
    (-2147483648, -5)
    """
    return (value - INT32_MIN) % 2**32 + INT32_MIN


def clamp_int32(value: int) -> int:
    """``value`` clamped into ``[-2^31, 2^31 - 1]``, so an annotation stays parseable (EP-4)."""
    return max(INT32_MIN, min(INT32_MAX, value))

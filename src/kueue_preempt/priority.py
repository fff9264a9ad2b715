"""Effective priority (EP-1..EP-10) and the preemption-cost value (COST-1).

``EP(w) = base(w) + boost(w)``: the base is ``spec.priority`` (unset = 0, never "lowest");
the boost is the ``kueue.x-k8s.io/priority-boost`` annotation parsed like Go's
``ParseInt(s, 10, 32)``. On the scheduling path a bad annotation is boost 0 plus a logged
warning (EP-5) — a workload must never become unschedulable because of a typo — while
:func:`validate_boost` is the strict webhook check (EP-7).
"""

from __future__ import annotations

import logging
import re
from decimal import Decimal

import attrs

from .errors import InvalidBoost
from .model import INT32_MAX, INT32_MIN, Workload

__all__ = [
    "BOOST_ANNOTATION",
    "PriorityInfo",
    "parse_boost",
    "base_priority",
    "boost",
    "effective_priority",
    "priority_info",
    "validate_boost",
    "preemption_cost",
]

BOOST_ANNOTATION = "kueue.x-k8s.io/priority-boost"
_log = logging.getLogger("kueue_preempt.priority")
# EP-4: ASCII digits only (re.ASCII keeps \d from matching full-width digits), optional sign.
_BOOST_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)


@attrs.frozen
class PriorityInfo:
    """``(effective, base, boost)`` as Kueue reports them in messages (EP-9)."""

    effective: int
    base: int
    boost: int


def parse_boost(value: str) -> int | None:
    """Parse a boost annotation value (EP-4); ``None`` when it is not a valid int32.

    >>> parse_boost("+5"), parse_boost("0100"), parse_boost("1.5"), parse_boost(" 10")
    (5, 100, None, None)
    """
    if not _BOOST_RE.fullmatch(value):
        return None
    parsed = int(value)
    if not INT32_MIN <= parsed <= INT32_MAX:
        return None
    return parsed


def base_priority(workload: Workload) -> int:
    """``spec.priority``, or 0 when unset (EP-1)."""
    return 0 if workload.priority is None else workload.priority


def boost(workload: Workload, *, enabled: bool = True) -> int:
    """The workload's boost (EP-2..EP-5). Never raises; invalid values log a warning and give 0."""
    if not enabled:
        return 0  # EP-2: gate off, the annotation is ignored and not validated
    raw = workload.annotations.get(BOOST_ANNOTATION)
    if raw is None or raw == "":
        return 0  # EP-3
    parsed = parse_boost(raw)
    if parsed is None:
        _log.warning(
            "Workload %s: ignoring invalid %s annotation %r (not an int32); using boost 0",
            workload.key,
            BOOST_ANNOTATION,
            raw,
        )
        return 0  # EP-5: not clamped, not an error
    return parsed


def effective_priority(workload: Workload, *, boost_enabled: bool = True) -> int:
    """``base + boost`` as an unbounded int (EP-6); e.g. ``2147483647 + 1 = 2147483648``."""
    return base_priority(workload) + boost(workload, enabled=boost_enabled)


def priority_info(workload: Workload, *, boost_enabled: bool = True) -> PriorityInfo:
    """``(effective, base, boost)`` with ``boost = effective - base`` (EP-9)."""
    base = base_priority(workload)
    effective = base + boost(workload, enabled=boost_enabled)
    return PriorityInfo(effective=effective, base=base, boost=effective - base)


def validate_boost(workload: Workload, *, enabled: bool = True) -> None:
    """Admission-webhook validation of the boost annotation (EP-7).

    Raises :class:`~kueue_preempt.errors.InvalidBoost` when the gate is on, the key is present
    and the value is empty (``""``: "use 0 explicitly") or does not parse (EP-4).
    """
    if not enabled:
        return
    raw = workload.annotations.get(BOOST_ANNOTATION)
    if raw is None:
        return
    if raw == "":
        raise InvalidBoost(workload.key, raw, "empty value; use 0 explicitly")
    if parse_boost(raw) is None:
        raise InvalidBoost(workload.key, raw, "must be an integer in the int32 range")


def preemption_cost(workload: Workload) -> Decimal:
    """``status.preemptionCost`` as an exact Decimal; unset is 0 (COST-1)."""
    return Decimal(0) if workload.preemption_cost is None else workload.preemption_cost

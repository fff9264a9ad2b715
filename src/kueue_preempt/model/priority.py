"""Effective priority (EP-1..EP-10) and the preemption-cost value (COST-1).

``EP(w) = base(w) + boost(w)``: the base is ``spec.priority`` (unset = 0, never "lowest");
the boost is the ``kueue.x-k8s.io/priority-boost`` annotation parsed like Go's
``ParseInt(s, 10, 32)``. On the scheduling path a bad annotation is boost 0 plus a logged
warning (EP-5) — a workload must never become unschedulable because of a typo — while
:func:`validate_boost` is the strict webhook check (EP-7).

The boost counts only when gate ``PriorityBoost`` is on (EP-2), and Kueue's default is off
(FG-1). Every function here therefore takes the setting from the :class:`PreemptionConfig`
it is given, or from an explicit ``boost_enabled``; with neither it uses Kueue's default (off).
The warning for an invalid value is logged once per :class:`Workload` object — once per load
of a dump — not once per evaluation (an algorithm evaluates a candidate many times).
"""

from __future__ import annotations

import logging
import re
import threading
import weakref
from decimal import Decimal

import attrs

from kueue_preempt.model.config import FeatureGates, PreemptionConfig
from kueue_preempt.errors import ConfigurationError, InvalidArgument, InvalidBoost
from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.model.workload import Workload

__all__ = [
    "BOOST_ANNOTATION",
    "PriorityInfo",
    "parse_boost",
    "base_priority",
    "boost",
    "boost_enabled_in",
    "effective_priority",
    "priority_info",
    "validate_boost",
    "preemption_cost",
]

BOOST_ANNOTATION = "kueue.x-k8s.io/priority-boost"
_log = logging.getLogger("kueue_preempt.model.priority")
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
    if not isinstance(value, str):
        raise InvalidArgument("parse_boost", "value", f"expected a string, got {type(value).__name__}")
    # int32 has at most 10 digits; a longer string (leading zeros aside) is out of range, and
    # checking first keeps int() away from the thousands of digits it refuses with a ValueError.
    if not _BOOST_RE.fullmatch(value):
        return None
    digits = value.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 10:
        return None
    parsed = -int(digits) if value[0] == "-" else int(digits)
    if not INT32_MIN <= parsed <= INT32_MAX:
        return None
    return parsed


def base_priority(workload: Workload) -> int:
    """``spec.priority``, or 0 when unset (EP-1)."""
    workload = _workload(workload, "base_priority")
    return 0 if workload.priority is None else workload.priority


def boost_enabled_in(
    config: PreemptionConfig | FeatureGates | None = None, boost_enabled: bool | None = None
) -> bool:
    """Whether the boost counts: ``boost_enabled`` if given, else the config's ``PriorityBoost``
    gate, else Kueue's default, off (EP-2, FG-1).

    Giving both with different values is a :class:`ConfigurationError`: silently preferring one
    would make a decision disagree with the configuration the caller believes is in force.
    """
    if config is None and (boost_enabled is True or boost_enabled is False):
        return boost_enabled  # the hot path: algorithms pass the resolved gate
    if config is not None and not isinstance(config, (PreemptionConfig, FeatureGates)):
        raise InvalidArgument("effective_priority", "config", f"expected PreemptionConfig or FeatureGates, got {type(config).__name__}")
    if boost_enabled is not None and not isinstance(boost_enabled, bool):
        raise InvalidArgument("effective_priority", "boost_enabled", f"expected a bool, got {type(boost_enabled).__name__}")
    from_config = None if config is None else config.priority_boost
    if boost_enabled is None:
        return False if from_config is None else from_config
    if from_config is not None and from_config != boost_enabled:
        raise ConfigurationError(
            f"boost_enabled={boost_enabled} contradicts the config's PriorityBoost gate ({from_config})"
        )
    return boost_enabled


# id(workload) -> weak reference, for the workloads whose invalid boost was already reported.
# Keyed by identity, not equality: two loads of the same dump are two loads and each warns once.
_warned: dict[int, weakref.ref[Workload]] = {}
# Re-entrant: the weakref callback below can run (garbage collection) while this thread
# already holds the lock inside _warn_invalid_once; a plain Lock would deadlock there.
_warned_lock = threading.RLock()


def _warn_invalid_once(workload: Workload, raw: str) -> None:
    key = id(workload)
    with _warned_lock:
        ref = _warned.get(key)
        if ref is not None and ref() is workload:
            return

        def forget(dead: weakref.ref[Workload], key: int = key) -> None:
            with _warned_lock:
                if _warned.get(key) is dead:
                    del _warned[key]

        _warned[key] = weakref.ref(workload, forget)
    _log.warning(
        "Workload %s: ignoring invalid %s annotation %r (not an int32); using boost 0 (EP-5)",
        workload.key,
        BOOST_ANNOTATION,
        raw[:64],
    )


def _workload(workload: object, function: str) -> Workload:
    if not isinstance(workload, Workload):
        raise InvalidArgument(function, "workload", f"expected a Workload, got {type(workload).__name__}")
    return workload


def boost(
    workload: Workload, config: PreemptionConfig | FeatureGates | None = None, *, enabled: bool | None = None
) -> int:
    """The workload's boost (EP-2..EP-5). Never raises on the annotation: an invalid value
    gives 0 and one logged warning per workload object (EP-5)."""
    workload = _workload(workload, "boost")
    if not boost_enabled_in(config, enabled):
        return 0  # EP-2: gate off, the annotation is ignored and not validated
    raw = workload.annotations.get(BOOST_ANNOTATION)
    if raw is None or raw == "":
        return 0  # EP-3
    parsed = parse_boost(raw)
    if parsed is None:
        _warn_invalid_once(workload, raw)
        return 0  # EP-5: not clamped, not an error
    return parsed


def effective_priority(
    workload: Workload, config: PreemptionConfig | FeatureGates | None = None, *, boost_enabled: bool | None = None
) -> int:
    """``base + boost`` as an unbounded int (EP-6); e.g. ``2147483647 + 1 = 2147483648``.

    The boost counts only if ``config``'s ``PriorityBoost`` gate (or ``boost_enabled``) is on;
    with neither given it is off, Kueue's default (EP-2, FG-1).
    """
    return base_priority(_workload(workload, "effective_priority")) + boost(workload, config, enabled=boost_enabled)


def priority_info(
    workload: Workload, config: PreemptionConfig | FeatureGates | None = None, *, boost_enabled: bool | None = None
) -> PriorityInfo:
    """``(effective, base, boost)`` with ``boost = effective - base`` (EP-9); boost setting as in
    :func:`effective_priority`."""
    base = base_priority(_workload(workload, "priority_info"))
    effective = base + boost(workload, config, enabled=boost_enabled)
    return PriorityInfo(effective=effective, base=base, boost=effective - base)


def validate_boost(
    workload: Workload, config: PreemptionConfig | FeatureGates | None = None, *, enabled: bool | None = None
) -> None:
    """Admission-webhook validation of the boost annotation (EP-7).

    Raises :class:`~kueue_preempt.errors.InvalidBoost` when the gate is on, the key is present
    and the value is empty (``""``: "use 0 explicitly") or does not parse (EP-4). The gate comes
    from ``config`` or ``enabled`` as in :func:`effective_priority` (Kueue's default: off, and
    then nothing is validated).
    """
    workload = _workload(workload, "validate_boost")
    if not boost_enabled_in(config, enabled):
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
    workload = _workload(workload, "preemption_cost")
    return Decimal(0) if workload.preemption_cost is None else workload.preemption_cost

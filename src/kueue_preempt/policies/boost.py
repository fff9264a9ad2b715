"""Reference priority-boost controllers as pure functions (BOOST-1..BOOST-13, EP-*).

Kueue's ``kueue-priority-booster`` implements *time sharing*: once a workload has been
``Admitted`` for ``interval`` it gets a negative boost, so equal-priority pending workloads
outrank it and may preempt it (BOOST-10). :func:`reconcile_time_sharing` reproduces it rule by
rule, quirks included (§18 item 13): the README's ``duration`` key is ignored, and a manual
annotation on an in-scope workload is removed while the computed boost is 0 (BOOST-4).

The KEP's preemption-count policy (BOOST-12) is :class:`ThresholdBoostConfig`; the
``naive`` variant (every preemption counts, no cap) exists to show, in simulations
(:func:`kueue_preempt.sim.run.simulate`, ``tests/test_sim_boost_cycles.py``), why the threshold
is there. The spec leaves
"phase-based increments" to callers; :class:`PhaseBoostConfig` is this library's reading of
them (a step function of the time since creation). :class:`WeightedBoostConfig` combines
policies.

Every policy has a ``decide(workload, now) -> BoostDecision`` method (a
:data:`~kueue_preempt.policies.actions.BoostFn`); :func:`reconcile_boost` turns any such policy
into an annotation action with the BOOST-4 write rules. No function here reads the clock:
``now`` is an argument (BOOST-9, BOOST-11), and no "recently admitted" cooldown exists (BOOST-13).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any, Callable, Iterable, Mapping, Sequence

import attrs

from kueue_preempt.model.time import to_time
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import Workload
from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.model.priority import BOOST_ANNOTATION, base_priority
# The selector types are the model's; re-exported here for callers of earlier releases.
from kueue_preempt.model.selectors import LabelSelector, LabelSelectorRequirement, SelectorOperator
from kueue_preempt.policies.actions import (
    AnnotationAction,
    BoostDecision,
    BoostFn,
    InvalidDuration,
    ReconcileResult,
    clamp_int32,
    preempted_count,
    wrap_int32,
)

__all__ = [
    "DEFAULT_NEGATIVE_BOOST",
    "parse_go_duration",
    "parse_go_duration_ns",
    "TimeSharingConfig",
    "time_sharing_boost",
    "boost_annotation_action",
    "out_of_scope_action",
    "reconcile_time_sharing",
    "watch_filter",
    "ThresholdBoostConfig",
    "reconcile_threshold",
    "BoostPhase",
    "PhaseBoostConfig",
    "reconcile_phase_boost",
    "WeightedBoostConfig",
    "combine_boosts",
    "reconcile_boost",
    "SelectorOperator",
    "LabelSelectorRequirement",
    "LabelSelector",
]

DEFAULT_NEGATIVE_BOOST = 100_000
"""``timeSharing.negativeBoost`` when the key is absent (BOOST-1)."""

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
_ADMITTED = "Admitted"

# ---------------------------------------------------------------------------- Go durations

# Go's time.unitMap, in nanoseconds. Both micro signs (U+00B5 and U+03BC) are accepted.
_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,
    "\u03bcs": 1_000,
    "ms": 1_000_000,
    "s": 1_000_000_000,
    "m": 60_000_000_000,
    "h": 3_600_000_000_000,
}
_U63 = 1 << 63


def _is_digit(c: str) -> bool:
    # ASCII only: str.isdigit would accept full-width and other Unicode digits, Go does not.
    return "0" <= c <= "9"


def parse_go_duration_ns(value: str, *, where: str = "timeSharing.interval") -> int:
    """Parse a Go duration string exactly like Go's ``time.ParseDuration``; nanoseconds (BOOST-1).

    Grammar ``[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`` with units ``ns us µs ms s m h``; ``"0"``
    (optionally signed) needs no unit. Fractions are computed with Go's float64 formula, so
    ``"1.5h"`` is exactly 5400 s and results match Go to the nanosecond. Raises
    :class:`~kueue_preempt.policies.actions.InvalidDuration` on ``""``, a missing or unknown
    unit, a unit-less number, no digits (``".s"``) or a value beyond int64 nanoseconds.

    >>> parse_go_duration_ns("1h30m"), parse_go_duration_ns("300ms"), parse_go_duration_ns("-0")
    (5400000000000, 300000000, 0)
    """
    if not isinstance(value, str):
        shown = "null" if value is None else f"{type(value).__name__} {str(value)[:40]}"
        raise InvalidDuration(shown, "must be a string such as 30m or 1h30m", where=where)
    s = value
    neg = False
    if s and s[0] in "+-":
        neg = s[0] == "-"
        s = s[1:]
    if s == "0":
        return 0
    if s == "":
        raise InvalidDuration(value, "empty duration", where=where)
    total = 0
    while s:
        if not (s[0] == "." or _is_digit(s[0])):
            raise InvalidDuration(value, f"unexpected {s[0]!r}", where=where)
        # Integer part: overflow past 2^63 is an error, as in Go's leadingInt.
        i = 0
        whole = 0
        while i < len(s) and _is_digit(s[i]):
            whole = whole * 10 + ord(s[i]) - 48
            if whole > _U63:
                raise InvalidDuration(value, "overflows int64 nanoseconds", where=where)
            i += 1
        pre = i > 0
        s = s[i:]
        frac, scale, post = 0, 1.0, False
        if s and s[0] == ".":
            s = s[1:]
            i = 0
            overflow = False
            # Go's leadingFraction: digits past int64 precision are consumed but ignored.
            while i < len(s) and _is_digit(s[i]):
                if not overflow:
                    nxt = frac * 10 + ord(s[i]) - 48
                    if frac > (_U63 - 1) // 10 or nxt > _U63:
                        overflow = True
                    else:
                        frac = nxt
                        scale *= 10
                i += 1
            post = i > 0
            s = s[i:]
        if not pre and not post:
            raise InvalidDuration(value, "no digits before the unit", where=where)
        i = 0
        while i < len(s) and not (s[i] == "." or _is_digit(s[i])):
            i += 1
        if i == 0:
            raise InvalidDuration(value, "missing unit", where=where)
        unit_name = s[:i]
        s = s[i:]
        unit = _UNITS.get(unit_name)
        if unit is None:
            raise InvalidDuration(value, f"unknown unit {unit_name!r}", where=where)
        if whole > _U63 // unit:
            raise InvalidDuration(value, "overflows int64 nanoseconds", where=where)
        part = whole * unit
        if frac > 0:
            # Go: v += uint64(float64(f) * (float64(unit) / scale)) — float64, truncated.
            part += int(float(frac) * (float(unit) / scale))
            if part > _U63:
                raise InvalidDuration(value, "overflows int64 nanoseconds", where=where)
        total += part
        if total > _U63:
            raise InvalidDuration(value, "overflows int64 nanoseconds", where=where)
    if neg:
        return -total
    if total > _U63 - 1:
        raise InvalidDuration(value, "overflows int64 nanoseconds", where=where)
    return total


def parse_go_duration(value: str, *, where: str = "timeSharing.interval") -> timedelta:
    """:func:`parse_go_duration_ns` as a ``timedelta`` (BOOST-1).

    ``timedelta`` has microsecond resolution. A sub-microsecond remainder rounds *away from
    zero*, so a positive Go duration such as ``"300ns"`` stays positive (an enabled
    controller, BOOST-3) instead of truncating to 0 (disabled).
    """
    ns = parse_go_duration_ns(value, where=where)
    micros = -((-abs(ns)) // 1000)  # ceil(|ns| / 1000)
    return timedelta(microseconds=micros if ns >= 0 else -micros)


# ---------------------------------------------------------------------------- time sharing


def _interval(value: timedelta | str) -> timedelta:
    if isinstance(value, timedelta):
        return value
    # BOOST-1: "" (and "0") disable the controller; any other string must parse.
    if value == "":
        return timedelta(0)
    return parse_go_duration(value)


def _check_int32(what: str, value: int | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not INT32_MIN <= value <= INT32_MAX:
        raise ConfigurationError(f"{what}: {value!r} is not an int32")


@attrs.frozen
class TimeSharingConfig:
    """Configuration of Kueue's time-sharing booster (BOOST-1).

    ``interval`` accepts a ``timedelta`` or a Go duration string (``"30m"``, ``"1h30m"``,
    ``"1.5h"``, ``"300ms"``); ``""``, ``"0"`` or any non-positive value disables boosting
    (but not the BOOST-4 cleanup). ``workload_selector`` ``None`` means "all workloads".
    """

    interval: timedelta = attrs.field(default=timedelta(0), converter=_interval)
    negative_boost: int = DEFAULT_NEGATIVE_BOOST
    workload_selector: LabelSelector | None = None
    max_workload_priority: int | None = None

    def __attrs_post_init__(self) -> None:
        _check_int32("timeSharing.negativeBoost", self.negative_boost)
        _check_int32("maxWorkloadPriority", self.max_workload_priority)
        if self.workload_selector is not None and self.workload_selector.problem is not None:
            # Kueue's booster converts the selector at start-up; an invalid one stops it there.
            raise ConfigurationError(f"workloadSelector.{self.workload_selector.problem}")

    @property
    def enabled(self) -> bool:
        """Whether any workload can get a boost (BOOST-3: ``interval > 0``)."""
        return self.interval > timedelta(0)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> TimeSharingConfig:
        """Build from the booster's YAML, already loaded into a mapping (BOOST-1).

        Reads ``timeSharing.interval``, ``timeSharing.negativeBoost``, ``workloadSelector`` and
        ``maxWorkloadPriority``. Unknown keys are ignored, exactly like Kueue — including the
        README's ``timeSharing.duration``, so a config written from the README silently
        disables boosting. Raises :class:`~kueue_preempt.errors.ConfigurationError` (its
        subclass :class:`~kueue_preempt.policies.actions.InvalidDuration` for a bad interval).
        """
        if not isinstance(data, Mapping):
            raise ConfigurationError(f"booster config: must be a mapping, got {data!r}")
        ts = data.get("timeSharing")
        if ts is None:
            ts = {}
        if not isinstance(ts, Mapping):
            raise ConfigurationError(f"timeSharing: must be a mapping, got {ts!r}")
        interval = ts.get("interval")
        if interval is None:
            interval = ""
        if not isinstance(interval, str):
            # Kueue unmarshals into a string field; a YAML number is a start-up error there too.
            raise InvalidDuration(repr(interval), "must be a string")
        negative_boost = ts.get("negativeBoost")
        selector = data.get("workloadSelector")
        return cls(
            interval=interval,
            negative_boost=DEFAULT_NEGATIVE_BOOST if negative_boost is None else negative_boost,
            workload_selector=None if selector is None else LabelSelector.from_mapping(selector, where="workloadSelector"),
            max_workload_priority=data.get("maxWorkloadPriority"),
        )

    def in_scope(self, workload: Workload) -> bool:
        """BOOST-2: selector absent or matching, and base priority ≤ ``max_workload_priority``.

        The *base* priority (unset = 0, EP-1) is compared, never EP: otherwise the booster's
        own negative boost would move workloads into scope.
        """
        if self.workload_selector is not None and not self.workload_selector.matches(workload.labels):
            return False
        return self.max_workload_priority is None or base_priority(workload) <= self.max_workload_priority

    def decide(self, workload: Workload, now: datetime) -> BoostDecision:
        """The desired boost as a :data:`BoostFn`: BOOST-3 in scope, 0 out of scope."""
        if not self.in_scope(workload):
            return BoostDecision(0)
        return time_sharing_boost(workload, self, now)


def time_sharing_boost(workload: Workload, config: TimeSharingConfig, now: datetime) -> BoostDecision:
    """BOOST-3: the desired boost of an in-scope workload and when to look again.

    Keys on the ``Admitted`` condition (not ``QuotaReserved``): 0 until it has been ``True``
    for ``interval``, then ``-negative_boost`` wrapped to int32 (BOOST-8). An ``Admitted`` time
    in the future makes ``elapsed`` negative and the requeue longer than ``interval``
    (BOOST-9). A ``True`` condition without a time is Go's zero time, i.e. long elapsed.
    """
    if not config.enabled:
        return BoostDecision(0)
    admitted = workload.condition(_ADMITTED)
    if admitted is None or not admitted.is_true:
        return BoostDecision(0)
    since = admitted.last_transition_time
    if since is None:
        return BoostDecision(wrap_int32(-config.negative_boost))
    elapsed = to_time(now) - since
    if elapsed < config.interval:
        return BoostDecision(0, config.interval - elapsed)
    # BOOST-8: Go negates an int32, so -(-2^31) wraps back to -2^31 and a negative
    # negativeBoost yields a positive boost; nothing is validated.
    return BoostDecision(wrap_int32(-config.negative_boost))


def boost_annotation_action(current: str | None, boost: int) -> AnnotationAction:
    """BOOST-4: the write that makes the annotation say ``boost``.

    Desired string: ``""`` for 0, else the decimal form. The current value (missing = ``""``)
    is compared as a *string*, so ``"+100"`` is rewritten to ``"100"``; an equal value means no
    write, which is what makes reconciling idempotent. A 0 boost deletes whatever is there —
    including a manual positive annotation.
    """
    desired = "" if boost == 0 else str(boost)
    if (current or "") == desired:
        return AnnotationAction.none()
    if boost != 0:
        return AnnotationAction.set(desired)
    return AnnotationAction.delete()


_INT_RE = re.compile(r"[+-]?[0-9]+", re.ASCII)


def _parse_int64(value: str) -> int | None:
    # Go's strconv.ParseInt(s, 10, 64): sign, ASCII digits, int64 range.
    # int64 has at most 19 digits; checked before int(), which refuses thousands of digits.
    if not _INT_RE.fullmatch(value):
        return None
    digits = value.lstrip("+-").lstrip("0") or "0"
    if len(digits) > 19:
        return None
    parsed = -int(digits) if value[0] == "-" else int(digits)
    return parsed if _INT64_MIN <= parsed <= _INT64_MAX else None


def out_of_scope_action(current: str | None) -> AnnotationAction:
    """BOOST-5: on an out-of-scope workload delete only a value that parses as an int64 ``< 0``.

    The booster only ever writes negative values, so only those can be its own leftovers
    (e.g. after the selector changed). ``"-0"``, positive values and unparsable values are
    someone else's and are left alone; an int64 beyond int32 (``"-99999999999"``) is deleted.
    """
    if not current:
        return AnnotationAction.none()
    parsed = _parse_int64(current)
    if parsed is not None and parsed < 0:
        return AnnotationAction.delete()
    return AnnotationAction.none()


def reconcile_time_sharing(workload: Workload, config: TimeSharingConfig, now: datetime) -> ReconcileResult:
    """One reconcile of Kueue's time-sharing booster (BOOST-2..BOOST-5, BOOST-11).

    In scope: BOOST-3's boost written with BOOST-4's rules — even when the controller is
    disabled (``interval = 0``), which removes any annotation from in-scope workloads. Out of
    scope: BOOST-5 cleanup only, no requeue, and ``boost`` 0 (the controller does not manage it).
    """
    current = workload.annotations.get(BOOST_ANNOTATION)
    if not config.in_scope(workload):
        return ReconcileResult(out_of_scope_action(current), None, 0)
    decision = time_sharing_boost(workload, config, now)
    return ReconcileResult(boost_annotation_action(current, decision.boost), decision.requeue_after, decision.boost)


def watch_filter(
    config: TimeSharingConfig,
    new: Workload,
    old: Workload | None = None,
    *,
    deleting: bool = False,
) -> bool:
    """BOOST-7: should a watch event on ``new`` (previously ``old``) trigger a reconcile?

    Yes when either version is in scope or carries a non-empty boost annotation (it may need
    BOOST-5 cleanup). ``deleting`` marks delete events and objects with a deletion timestamp,
    which are never processed.
    """
    if deleting:
        return False
    for w in (old, new):
        if w is not None and (config.in_scope(w) or w.annotations.get(BOOST_ANNOTATION, "") != ""):
            return True
    return False


# ---------------------------------------------------------------------------- preemption count


def _positive(name: str) -> Callable[[object, attrs.Attribute[int], int], None]:
    def check(inst: object, attr: attrs.Attribute[int], value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigurationError(f"{type(inst).__name__}.{name}: must be an int >= 1, got {value!r}")

    return check


def _non_negative_int32(inst: object, attr: attrs.Attribute[Any], value: int | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= INT32_MAX:
        raise ConfigurationError(f"{type(inst).__name__}.{attr.name}: must be an int32 >= 0, got {value!r}")


@attrs.frozen
class ThresholdBoostConfig:
    """The KEP's preemption-count booster, "threshold booster" (BOOST-12).

    ``boost = min(cap, step × floor(n / every_n))`` with ``n`` the number of ``Preempted``
    evictions. Defaults ``every_n = 2, step = 100, cap = 1000`` [D, §18 item 13]. ``cap = None``
    means no cap; the result is still clamped to int32 so the annotation stays valid (an
    out-of-range annotation would count as boost 0, EP-5).

    Why ``every_n = 2``: a workload preempted once by a higher-priority one gets nothing, so
    the preemptor is not immediately preempted back; only repeated losses earn a boost.
    """

    every_n: int = attrs.field(default=2, validator=_positive("every_n"))
    step: int = attrs.field(default=100, validator=_non_negative_int32)
    cap: int | None = attrs.field(default=1000, validator=_non_negative_int32)

    @classmethod
    def naive(cls, step: int = 100) -> ThresholdBoostConfig:
        """Every preemption adds ``step``, without cap — the policy whose A→B→A cycles recur."""
        return cls(every_n=1, step=step, cap=None)

    def boost_for(self, workload: Workload) -> int:
        """The boost for ``workload``'s current eviction stats (a ``Workload -> int`` booster)."""
        raw = self.step * (preempted_count(workload) // self.every_n)
        if self.cap is not None:
            raw = min(self.cap, raw)
        return clamp_int32(raw)

    def decide(self, workload: Workload, now: datetime) -> BoostDecision:
        """As a :data:`BoostFn`: never requeues, because only a new eviction changes the count."""
        return BoostDecision(self.boost_for(workload))


def reconcile_threshold(workload: Workload, config: ThresholdBoostConfig) -> ReconcileResult:
    """BOOST-12 with the BOOST-4 write rules (annotation removed when the boost is 0)."""
    boost = config.boost_for(workload)
    return ReconcileResult(boost_annotation_action(workload.annotations.get(BOOST_ANNOTATION), boost), None, boost)


# ---------------------------------------------------------------------------- phases


@attrs.frozen
class BoostPhase:
    """From ``after`` since creation on, the boost is ``boost`` (until the next phase)."""

    after: timedelta
    boost: int

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.after, timedelta) or self.after < timedelta(0):
            raise ConfigurationError(f"BoostPhase.after: must be a timedelta >= 0, got {self.after!r}")
        _check_int32("BoostPhase.boost", self.boost)


def _phases(value: Iterable[BoostPhase | tuple[timedelta, int]]) -> tuple[BoostPhase, ...]:
    out = tuple(p if isinstance(p, BoostPhase) else BoostPhase(p[0], p[1]) for p in value)
    for a, b in zip(out, out[1:]):
        if not a.after < b.after:
            raise ConfigurationError(
                f"PhaseBoostConfig.phases: thresholds must strictly increase, got {a.after} then {b.after}"
            )
    return out


@attrs.frozen
class PhaseBoostConfig:
    """The library's reading of the KEP's "phase-based increments" (BOOST-12 leaves them to callers).

    A step function of the workload's age (``now - creation_time``): the boost of the last
    phase whose ``after`` has elapsed, 0 before the first phase. Each phase's ``boost`` is the
    total, not an increment over the previous phase. The result is requeued at the next phase
    boundary. A workload without ``creation_time`` has no age and gets 0 (no requeue).
    Phases are ``BoostPhase`` or ``(timedelta, int)`` pairs, strictly increasing in time.
    """

    phases: tuple[BoostPhase, ...] = attrs.field(converter=_phases)

    def decide(self, workload: Workload, now: datetime) -> BoostDecision:
        created = workload.creation_time
        if created is None:
            return BoostDecision(0)
        age = to_time(now) - created
        boost = 0
        for phase in self.phases:
            if phase.after <= age:
                boost = phase.boost
            else:
                return BoostDecision(boost, phase.after - age)
        return BoostDecision(boost)


def reconcile_phase_boost(workload: Workload, config: PhaseBoostConfig, now: datetime) -> ReconcileResult:
    """:class:`PhaseBoostConfig` with the BOOST-4 write rules."""
    return reconcile_boost(workload, config.decide, now)


# ---------------------------------------------------------------------------- combination


def _components(value: Iterable[tuple[int, BoostFn]]) -> tuple[tuple[int, BoostFn], ...]:
    out = tuple((w, fn) for w, fn in value)
    for weight, fn in out:
        if isinstance(weight, bool) or not isinstance(weight, int):
            raise ConfigurationError(f"WeightedBoostConfig: weight must be an int, got {weight!r}")
        if not callable(fn):
            raise ConfigurationError(f"WeightedBoostConfig: {fn!r} is not a boost function")
    return out


def _optional_int32(inst: object, attr: attrs.Attribute[int | None], value: int | None) -> None:
    _check_int32(f"{type(inst).__name__}.{attr.name}", value)


@attrs.frozen
class WeightedBoostConfig:
    """``Σ weight × boost`` over component policies, capped by ``cap`` then clamped to int32.

    Components are ``(weight, BoostFn)`` pairs, e.g. ``(1, ThresholdBoostConfig().decide)``.
    ``cap`` bounds the total from above (a negative time-sharing total passes through); the
    int32 clamp keeps the annotation valid (EP-4). The requeue is the earliest of the
    components' requeues, since any of them may change the total then.
    """

    components: tuple[tuple[int, BoostFn], ...] = attrs.field(converter=_components)
    cap: int | None = attrs.field(default=None, validator=_optional_int32)

    def decide(self, workload: Workload, now: datetime) -> BoostDecision:
        total = 0
        requeue: timedelta | None = None
        for weight, fn in self.components:
            d = fn(workload, now)
            total += weight * d.boost
            if d.requeue_after is not None and (requeue is None or d.requeue_after < requeue):
                requeue = d.requeue_after
        if self.cap is not None:
            total = min(self.cap, total)
        return BoostDecision(clamp_int32(total), requeue)


def combine_boosts(components: Sequence[tuple[int, BoostFn]], cap: int | None = None) -> WeightedBoostConfig:
    """Shorthand for :class:`WeightedBoostConfig`."""
    return WeightedBoostConfig(components=components, cap=cap)


def reconcile_boost(workload: Workload, policy: BoostFn, now: datetime) -> ReconcileResult:
    """Any boost policy with the BOOST-4 write rules (no scope, no BOOST-5 cleanup)."""
    decision = policy(workload, now)
    action = boost_annotation_action(workload.annotations.get(BOOST_ANNOTATION), decision.boost)
    return ReconcileResult(action, decision.requeue_after, decision.boost)

"""Unit tests for effective priority (spec §5: EP-1..EP-9) and preemption cost (COST-1)."""

from __future__ import annotations

import logging
from decimal import Decimal

import pytest

from kueue_preempt import KueuePreemptError, PreemptionConfig, Workload
from kueue_preempt.errors import InvalidBoost
from kueue_preempt.model import (
    BOOST_ANNOTATION,
    PriorityInfo,
    effective_priority,
    parse_boost,
    preemption_cost,
    priority_info,
    validate_boost,
)

LOGGER = "kueue_preempt"

# EP-4 table, verbatim: every "Value" cell with its "Result".
EP4_VALID: list[tuple[str, int]] = [
    ("100", 100),
    ("+100", 100),
    ("0100", 100),
    ("-30", -30),
    ("-0", 0),
    ("2147483647", 2147483647),
    ("-2147483648", -2147483648),
]
EP4_INVALID: list[str] = [
    # out of int32 range
    "2147483648",
    "-2147483649",
    "99999999999",
    # not ^[+-]?[0-9]+$
    "abc",
    "1.5",
    "1e3",
    "0x10",
    "1_000",
    " 10",
    "10 ",
    "+",
    "--1",
    "１０",  # full-width digits
]
# Not in the table but implied by the EP-4 regex (Go ParseInt rejects them too).
EP4_INVALID_EXTRA: list[str] = ["10\n", "+-1", "-", "1,000", "٣"]

BOOST_ON = PreemptionConfig(priority_boost=True)  # EP-2: Kueue's gate is off by default (FG-1)


def wl(priority: int | None = None, boost: str | None = None, name: str = "w", namespace: str = "ns") -> Workload:
    annotations = {} if boost is None else {BOOST_ANNOTATION: boost}
    return Workload(name=name, namespace=namespace, priority=priority, annotations=annotations)


def test_boost_annotation_key() -> None:
    """EP-3: the annotation key."""
    assert BOOST_ANNOTATION == "kueue.x-k8s.io/priority-boost"


# ---------------------------------------------------------------------------- EP-4 parse


@pytest.mark.parametrize(("value", "expected"), EP4_VALID)
def test_ep4_parse_boost_valid(value: str, expected: int) -> None:
    """EP-4 table: accepted values (sign optional, leading zeros allowed, int32 bounds)."""
    assert parse_boost(value) == expected


@pytest.mark.parametrize("value", EP4_INVALID + EP4_INVALID_EXTRA)
def test_ep4_parse_boost_invalid(value: str) -> None:
    """EP-4 table: parse errors (out of range is an error, never clamped)."""
    assert parse_boost(value) is None


@pytest.mark.parametrize(("value", "expected"), EP4_VALID)
def test_ep4_effective_priority_valid_boost_adds_without_warning(
    value: str, expected: int, caplog: pytest.LogCaptureFixture
) -> None:
    """EP-4/EP-6: a valid boost is added to the base priority; nothing is logged."""
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert effective_priority(wl(priority=7, boost=value), BOOST_ON) == 7 + expected
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


@pytest.mark.parametrize("value", EP4_INVALID + EP4_INVALID_EXTRA)
def test_ep5_effective_priority_invalid_boost_is_zero_and_warns(value: str, caplog: pytest.LogCaptureFixture) -> None:
    """EP-5: on a parse error the boost is 0 (no clamping), EP = base, nothing raises, and a
    warning naming the workload key is logged."""
    w = wl(priority=7, boost=value, name="job-1", namespace="team-a")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert effective_priority(w, BOOST_ON) == 7
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings, "EP-5: the parse error must be logged"
    assert any("team-a/job-1" in r.getMessage() for r in warnings)


# ---------------------------------------------------------------------------- EP-1..EP-3, EP-6


def test_ep1_unset_priority_is_zero() -> None:
    """EP-1: base(w) = 0 when spec.priority is unset (never "lowest")."""
    assert effective_priority(wl(), BOOST_ON) == 0
    assert effective_priority(wl(priority=None, boost="5"), BOOST_ON) == 5
    # An unset priority is above a negative one.
    assert effective_priority(wl(), BOOST_ON) > effective_priority(wl(priority=-1), BOOST_ON)


def test_ep2_gate_off_ignores_annotation(caplog: pytest.LogCaptureFixture) -> None:
    """EP-2: boost = 0 when the PriorityBoost gate is off, even for an invalid value, and
    an ignored annotation is not validated (so nothing is logged)."""
    assert effective_priority(wl(priority=3, boost="10"), boost_enabled=False) == 3
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert effective_priority(wl(priority=3, boost="abc"), boost_enabled=False) == 3
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_ep3_missing_or_empty_annotation_is_zero(caplog: pytest.LogCaptureFixture) -> None:
    """EP-3: missing key -> 0; key with "" -> 0 with no error on the scheduling path."""
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert effective_priority(wl(priority=4), BOOST_ON) == 4
        assert effective_priority(wl(priority=4, boost=""), BOOST_ON) == 4
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_ep3_other_annotations_are_ignored() -> None:
    """EP-3: only the exact key counts."""
    w = Workload(name="w", priority=1, annotations={"kueue.x-k8s.io/priority-boost-x": "9", "boost": "9"})
    assert effective_priority(w, BOOST_ON) == 1


@pytest.mark.parametrize(
    ("priority", "boost", "expected"),
    [
        (2147483647, "1", 2147483648),  # EP-6 example: no clamping to int32
        (2147483647, "2147483647", 2**32 - 2),  # upper end of the range
        (-2147483648, "-2147483648", -(2**32)),  # lower end of the range
        (-2147483648, "-1", -2147483649),
        (10, "-30", -20),
    ],
)
def test_ep6_sum_is_not_clamped(priority: int, boost: str, expected: int) -> None:
    """EP-6: EP = base + boost in (at least) 64-bit integers; range [-2^32, 2^32-2]."""
    assert effective_priority(wl(priority=priority, boost=boost), BOOST_ON) == expected


# ---------------------------------------------------------------------------- EP-7 validation


def test_ep7_validate_boost_rejects_empty_string() -> None:
    """EP-7: "" is invalid for admission ("use 0 explicitly"), although EP() treats it as 0."""
    with pytest.raises(InvalidBoost) as info:
        validate_boost(wl(priority=1, boost="", name="job", namespace="ns1"), BOOST_ON)
    assert isinstance(info.value, KueuePreemptError)
    assert "ns1/job" in str(info.value)
    assert BOOST_ANNOTATION in str(info.value)


@pytest.mark.parametrize("value", EP4_INVALID)
def test_ep7_validate_boost_rejects_parse_errors(value: str) -> None:
    """EP-7: every EP-4 parse error is invalid; the message names the workload and the value."""
    with pytest.raises(InvalidBoost) as info:
        validate_boost(wl(boost=value, name="job", namespace="ns1"), BOOST_ON)
    assert "ns1/job" in str(info.value)
    assert repr(value) in str(info.value)


@pytest.mark.parametrize(("value", "expected"), EP4_VALID)
def test_ep7_validate_boost_accepts_valid_values(value: str, expected: int) -> None:
    """EP-7: valid values pass."""
    validate_boost(wl(boost=value), BOOST_ON)


def test_ep7_validate_boost_does_nothing_when_absent_or_disabled() -> None:
    """EP-7: no key -> nothing to validate; gate off -> nothing is validated at all."""
    validate_boost(wl(priority=1), BOOST_ON)
    validate_boost(wl(boost="abc"), enabled=False)
    validate_boost(wl(boost=""), enabled=False)
    validate_boost(wl(boost="99999999999"), enabled=False)


# ---------------------------------------------------------------------------- EP-9


@pytest.mark.parametrize(
    ("priority", "boost", "enabled", "expected"),
    [
        (10, None, True, PriorityInfo(effective=10, base=10, boost=0)),
        (10, "-3", True, PriorityInfo(effective=7, base=10, boost=-3)),
        (10, "abc", True, PriorityInfo(effective=10, base=10, boost=0)),  # invalid reports 0
        (10, "2147483648", True, PriorityInfo(effective=10, base=10, boost=0)),  # not clamped
        (10, "5", False, PriorityInfo(effective=10, base=10, boost=0)),  # gate off
        (None, "5", True, PriorityInfo(effective=5, base=0, boost=5)),  # EP-1 base 0
        (2147483647, "1", True, PriorityInfo(effective=2147483648, base=2147483647, boost=1)),
    ],
)
def test_ep9_priority_info(priority: int | None, boost: str | None, enabled: bool, expected: PriorityInfo) -> None:
    """EP-9: (effective, base, boost) with boost = EP - base."""
    info = priority_info(wl(priority=priority, boost=boost), boost_enabled=enabled)
    assert info == expected
    assert info.boost == info.effective - info.base


# ---------------------------------------------------------------------------- COST-1


def test_cost1_unset_is_zero() -> None:
    """COST-1: unset = 0, as an exact Decimal."""
    cost = preemption_cost(Workload(name="w"))
    assert isinstance(cost, Decimal)
    assert cost == Decimal(0)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (Decimal("1.25"), Decimal("1.25")),
        (Decimal("0.1"), Decimal("0.1")),  # exact, no binary float artefacts
        (3, Decimal(3)),
        ("1500m", Decimal("1.5")),  # a quantity string with a suffix
        ("2", Decimal(2)),
        ("1k", Decimal(1000)),
        ("1Ki", Decimal(1024)),
        ("0.1", Decimal("0.1")),
        ("-2", Decimal(-2)),  # COST-3: negatives allowed
        ("1n", Decimal("0.000000001")),
    ],
)
def test_cost1_value_is_exact_decimal(raw: Decimal | int | str, expected: Decimal) -> None:
    """COST-1: stored as an exact Decimal; quantity strings are parsed (with suffixes)."""
    cost = preemption_cost(Workload(name="w", preemption_cost=raw))
    assert isinstance(cost, Decimal)
    assert cost == expected


def test_cost1_long_quantity_stays_exact() -> None:
    """COST-1/COST-3: "stores it as an exact Decimal" and compares exactly: two costs that
    differ only in the 35th significant digit must stay different."""
    a = preemption_cost(Workload(name="a", preemption_cost="1.0000000000000000000000000000000001"))
    b = preemption_cost(Workload(name="b", preemption_cost="1.0000000000000000000000000000000002"))
    assert a == Decimal("1.0000000000000000000000000000000001")
    assert a < b


# ---------------------------------------------------------------------------- defaults (FG-1, EP-2)


def test_fg1_boost_is_off_by_default_like_kueue() -> None:
    """FG-1/EP-2: with no config, or Kueue's default config, the annotation is ignored."""
    w = wl(priority=3, boost="10")
    assert effective_priority(w) == 3
    assert effective_priority(w, PreemptionConfig()) == 3
    assert priority_info(w) == PriorityInfo(effective=3, base=3, boost=0)
    assert effective_priority(w, PreemptionConfig(priority_boost=True)) == 13
    assert effective_priority(w, PreemptionConfig(feature_gates={"PriorityBoost": True})) == 13
    assert priority_info(w, BOOST_ON) == PriorityInfo(effective=13, base=3, boost=10)


def test_ep2_explicit_setting_must_agree_with_the_config() -> None:
    """EP-2: boost_enabled and a config that disagree are a configuration error, not a silent pick."""
    w = wl(priority=3, boost="10")
    assert effective_priority(w, BOOST_ON, boost_enabled=True) == 13
    with pytest.raises(KueuePreemptError, match="PriorityBoost"):
        effective_priority(w, PreemptionConfig(), boost_enabled=True)


def test_ep7_validate_boost_follows_the_default_gate() -> None:
    """EP-7: with Kueue's default (gate off) nothing is validated."""
    validate_boost(wl(boost="abc"))
    validate_boost(wl(boost="abc"), PreemptionConfig())
    with pytest.raises(InvalidBoost):
        validate_boost(wl(boost="abc"), BOOST_ON)


def test_ep5_one_warning_per_workload_not_per_evaluation(caplog: pytest.LogCaptureFixture) -> None:
    """EP-5: an algorithm evaluates a candidate many times; the invalid value is reported once
    per Workload object, and a second load of the same manifest (a new object) reports again."""
    first = wl(priority=1, boost="1.5", name="j", namespace="a")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        for _ in range(5):
            assert effective_priority(first, BOOST_ON) == 1
            assert priority_info(first, BOOST_ON).boost == 0
    assert len([r for r in caplog.records if "a/j" in r.getMessage()]) == 1
    caplog.clear()
    second = wl(priority=1, boost="1.5", name="j", namespace="a")  # equal, but another load
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        effective_priority(second, BOOST_ON)
        effective_priority(second, BOOST_ON)
    assert len([r for r in caplog.records if "a/j" in r.getMessage()]) == 1


def test_priority_functions_refuse_non_workloads() -> None:
    """Typed errors naming the parameter instead of an AttributeError deep inside."""
    with pytest.raises(KueuePreemptError, match="'workload'"):
        effective_priority({"name": "w"}, BOOST_ON)  # type: ignore[arg-type]
    with pytest.raises(KueuePreemptError, match="'value'"):
        parse_boost(5)  # type: ignore[arg-type]


def test_ep5_warning_registry_does_not_deadlock_when_a_workload_dies_under_its_lock() -> None:
    """EP-5 must never block a decision: a warned workload can be garbage-collected (its weakref
    callback runs) while the same thread holds the registry lock, e.g. when a collection is
    triggered inside the registration. The callback must not deadlock on that lock."""
    import threading

    from kueue_preempt.model import priority as pr

    def body() -> None:
        w = wl(priority=1, boost="not-a-number", name="dies", namespace="gc")
        effective_priority(w, BOOST_ON)  # registers w for "warned once"
        with pr._warned_lock:
            del w  # last reference: the callback runs right here, under the lock

    t = threading.Thread(target=body, daemon=True)
    t.start()
    t.join(timeout=10)
    assert not t.is_alive(), "the EP-5 warning registry deadlocked"

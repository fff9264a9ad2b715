"""Unit tests for Kubernetes quantities and saturating amounts (spec §4: Q-0, Q-1, Q-2).

Every expected value below is worked out from the spec text, not from the library.
"""

from __future__ import annotations

from fractions import Fraction
from typing import cast

import pytest

from kueue_preempt import InvalidQuantity, KueuePreemptError, parse_quantity, quota_amount, request_amount
from kueue_preempt.model import UNLIMITED
from kueue_preempt.model.quantity import MIN_AMOUNT, amount_add, amount_sub

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def test_q2_constants_are_int64_bounds() -> None:
    """Q-2: UNLIMITED is represented by 2^63-1; the lower saturation bound is -2^63."""
    assert UNLIMITED == INT64_MAX
    assert MIN_AMOUNT == INT64_MIN


# ---------------------------------------------------------------------------- Q-0 grammar


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # plain decimal numbers: digits, digits.digits, .digits, "digits." and signs
        ("0", Fraction(0)),
        ("7", Fraction(7)),
        ("0.5", Fraction(1, 2)),
        (".5", Fraction(1, 2)),
        ("1.", Fraction(1)),
        ("+1", Fraction(1)),
        ("-1.5", Fraction(-3, 2)),
        ("007", Fraction(7)),
        # decimal SI suffixes n u m "" k M G T P E = 10^-9 .. 10^18
        ("1n", Fraction(1, 10**9)),
        ("1u", Fraction(1, 10**6)),
        ("500m", Fraction(1, 2)),
        ("1500m", Fraction(3, 2)),
        ("2k", Fraction(2000)),
        ("1M", Fraction(10**6)),
        ("1G", Fraction(10**9)),
        ("1T", Fraction(10**12)),
        ("1P", Fraction(10**15)),
        ("1E", Fraction(10**18)),  # a bare E is the exa suffix, not an exponent
        ("2.5E", Fraction(25 * 10**17)),
        # binary suffixes Ki .. Ei = 2^10 .. 2^60
        ("1Ki", Fraction(2**10)),
        ("3Gi", Fraction(3 * 2**30)),
        ("1.5Gi", Fraction(3 * 2**29)),
        ("1Mi", Fraction(2**20)),
        ("1Ti", Fraction(2**40)),
        ("1Pi", Fraction(2**50)),
        ("1Ei", Fraction(2**60)),
        # decimal exponent e<int> / E<int>
        ("1e3", Fraction(1000)),
        ("1E3", Fraction(1000)),
        ("1.5e3", Fraction(1500)),
        ("5e-1", Fraction(1, 2)),
        ("-2e2", Fraction(-200)),
    ],
)
def test_q0_parse_quantity_accepts_grammar_with_exact_value(text: str, expected: Fraction) -> None:
    """Q-0: accepted forms, and the value is exact (a rational, no float rounding)."""
    got = parse_quantity(text)
    assert isinstance(got, Fraction)
    assert got == expected


@pytest.mark.parametrize(
    "text",
    [
        "1_000",  # no underscores
        "NaN",
        "Inf",
        "-Inf",
        "K",  # no number, and K is not a suffix
        "1K",  # suffixes are case-sensitive: K is not kilo
        "mi",
        "1mi",  # "mi" is not a suffix
        "1ki",
        "1GI",
        " 1",  # no spaces
        "1 ",
        "1 Gi",
        "",
        ".",
        "+",
        "-",
        "1e",  # exponent without digits
        "1e1.5",  # exponent must be an integer
        "--1",
        "+-1",
        "0x10",
        "1.2.3",
        "1KiB",
        "１",  # full-width digit
    ],
)
def test_q0_parse_quantity_rejects(text: str) -> None:
    """Q-0: nothing outside the Kubernetes grammar is accepted."""
    with pytest.raises(InvalidQuantity):
        parse_quantity(text)


@pytest.mark.parametrize("value", [5, 1.5, None, b"1", ["1"]])
def test_q0_parse_quantity_rejects_non_strings(value: object) -> None:
    """Q-0: a quantity is a string; other Python values are rejected, not coerced."""
    with pytest.raises(InvalidQuantity):
        parse_quantity(cast(str, value))


def test_q0_invalid_quantity_error_names_string_and_where() -> None:
    """Errors name the offending string and the ``where`` location; the class is a
    KueuePreemptError (and a ValueError)."""
    with pytest.raises(InvalidQuantity) as info:
        parse_quantity("1_000", where="ClusterQueue 'cq-a' quotas[default/cpu].nominal")
    err = info.value
    assert isinstance(err, KueuePreemptError)
    assert isinstance(err, ValueError)
    assert "1_000" in str(err)
    assert "ClusterQueue 'cq-a' quotas[default/cpu].nominal" in str(err)
    assert err.value == "1_000"
    assert err.where == "ClusterQueue 'cq-a' quotas[default/cpu].nominal"


def test_q0_quota_and_request_conversion_propagate_where() -> None:
    """The conversion helpers report the same location as parse_quantity."""
    with pytest.raises(InvalidQuantity) as info:
        quota_amount("NaN", "cpu", where="cohort root nominal")
    assert "NaN" in str(info.value) and "cohort root nominal" in str(info.value)
    with pytest.raises(InvalidQuantity) as info2:
        request_amount("1 ", "memory", where="workload ns/w podSets[0]")
    assert "'1 '" in str(info2.value) and "workload ns/w podSets[0]" in str(info2.value)


# ---------------------------------------------------------------------------- Q-1 amounts


@pytest.mark.parametrize(
    ("text", "resource", "expected"),
    [
        ("1", "cpu", 1000),  # CPU in milli-units
        ("500m", "cpu", 500),
        ("0.5m", "cpu", 1),  # fractional milli rounds up
        ("1n", "cpu", 1),  # 10^-6 milli rounds up to 1
        ("1.0001", "cpu", 1001),  # 1000.1 milli -> 1001
        ("1", "CPU", 1),  # milli precision iff the name is exactly "cpu"
        ("1", "memory", 1),
        ("1.5", "example.com/gpu", 2),  # count resource: 1.5 -> 2
        ("1.1", "pods", 2),
        ("500m", "memory", 1),  # half a byte rounds up to a byte
        ("3Gi", "memory", 3 * 2**30),
        ("1e3", "memory", 1000),
        ("0", "cpu", 0),
    ],
)
def test_q1_conversion_rounds_up(text: str, resource: str, expected: int) -> None:
    """Q-1: milli precision for cpu, unit otherwise; any fractional remainder rounds up."""
    assert quota_amount(text, resource) == expected
    assert request_amount(text, resource) == expected


@pytest.mark.parametrize(
    ("text", "resource", "expected"),
    [
        ("-1.5", "example.com/gpu", -2),  # away from zero, not toward +inf
        ("-0.5m", "cpu", -1),
        ("-1.0001", "cpu", -1001),
        ("-1", "cpu", -1000),
    ],
)
def test_q1_negative_values_round_away_from_zero(text: str, resource: str, expected: int) -> None:
    """Q-1: rounding is "up (away from zero)", so negatives round toward -inf."""
    assert request_amount(text, resource) == expected
    assert quota_amount(text, resource) == expected


def test_q1_cpu_quota_unlimited_bound_is_exact_before_conversion() -> None:
    """Q-1: a CPU quota >= 9223372036854775 cores is UNLIMITED (bound = floor((2^63-1)/1000)),
    even though 9223372036854775000 milli would fit in int64; just below converts normally."""
    assert (2**63 - 1) // 1000 == 9223372036854775
    assert quota_amount("9223372036854775", "cpu") == UNLIMITED
    assert quota_amount("9223372036854776", "cpu") == UNLIMITED
    assert quota_amount("9223372036854774", "cpu") == 9223372036854774000
    # 9223372036854774.999 cores is below the bound: 9223372036854774999 milli.
    assert quota_amount("9223372036854774999m", "cpu") == 9223372036854774999
    # The comparison is exact: a hair below the bound still converts (rounding up).
    assert quota_amount("9223372036854774.9999", "cpu") == 9223372036854775000
    assert quota_amount("10E", "cpu") == UNLIMITED


def test_q1_non_cpu_quota_unlimited_bound_is_int64_max_units() -> None:
    """Q-1: for every other resource the bound is 2^63-1 units."""
    assert quota_amount(str(2**63 - 1), "memory") == UNLIMITED
    assert quota_amount(str(2**63), "memory") == UNLIMITED
    assert quota_amount("8Ei", "memory") == UNLIMITED  # 8 * 2^60 = 2^63
    assert quota_amount(str(2**63 - 2), "memory") == 2**63 - 2
    # 2^63 - 1.5 is below the bound but rounds up to 2^63 - 1, which *is* UNLIMITED's value.
    assert quota_amount(f"{2**63 - 2}.5", "memory") == 2**63 - 1
    assert quota_amount("1e999", "example.com/gpu") == UNLIMITED


def test_q1_request_side_clamps_instead_of_unlimited_bound() -> None:
    """Q-1: requests/usage convert the same way and are only clamped to [-2^63, 2^63-1];
    the CPU quota bound does not apply to requests."""
    # 9223372036854775 cores = 9223372036854775000 milli fits int64: not UNLIMITED.
    assert request_amount("9223372036854775", "cpu") == 9223372036854775000
    assert request_amount("9223372036854775", "cpu") != UNLIMITED
    # Above int64 after milli conversion: clamped to 2^63-1.
    assert request_amount("9223372036854776", "cpu") == INT64_MAX
    assert request_amount("10Ei", "memory") == INT64_MAX
    # Negative binary-suffixed values: see the separate test below.
    assert request_amount("1e999", "memory") == INT64_MAX
    assert request_amount("-1e999", "cpu") == INT64_MIN
    assert request_amount(str(2**63 - 2), "memory") == 2**63 - 2


def test_q1_request_side_negative_binary_clamps_to_int64_min() -> None:
    """Q-0/Q-1: -10Ei is exactly -10*2^60 and clamps to -2^63; -8Ei (= -2^63) is in range."""
    assert request_amount("-10Ei", "memory") == INT64_MIN
    assert request_amount("-8Ei", "memory") == INT64_MIN


def test_q0_parse_is_exact_below_nano() -> None:
    """Q-0: "The value is exact (rational) until converted by Q-1"."""
    assert parse_quantity("1.0000000001") == Fraction(10000000001, 10**10)
    assert parse_quantity("1e-12") == Fraction(1, 10**12)


def test_q1_sub_nano_values_round_up_to_one_unit() -> None:
    """Q-1: whatever the parse precision, conversion rounds any remainder up: 1e-10 cores is
    1e-7 milli -> 1; 1.0000000001 gpus -> 2; -1e-12 cpu -> -1 (away from zero)."""
    assert quota_amount("0.0000000001", "cpu") == 1
    assert request_amount("1.0000000001", "example.com/gpu") == 2
    assert request_amount("-1e-12", "cpu") == -1


def test_q1_conversion_accepts_exact_numbers() -> None:
    """Q-1: already-parsed exact values convert with the same rounding."""
    assert quota_amount(Fraction(1, 3), "cpu") == 334  # 333.33.. milli -> 334
    assert request_amount(Fraction(5, 2), "pods") == 3
    assert request_amount(4, "cpu") == 4000


# ---------------------------------------------------------------------------- Q-2 arithmetic

U = UNLIMITED


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (3, 4, 7),
        (-3, 4, 1),
        (U, 5, U),  # UNLIMITED + x = UNLIMITED
        (5, U, U),
        (U, -5, U),
        (U, U, U),
        (U, INT64_MIN, U),
        (INT64_MAX - 2, 5, U),  # bounded sum saturates upward, becoming UNLIMITED
        (INT64_MAX - 5, 5, U),
        (INT64_MAX - 5, 4, INT64_MAX - 1),
        (INT64_MIN, -1, INT64_MIN),  # lower saturation
        (INT64_MIN + 1, -5, INT64_MIN),
    ],
)
def test_q2_amount_add(a: int, b: int, expected: int) -> None:
    """Q-2 addition table."""
    assert amount_add(a, b) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (3, 4, -1),
        (10, 4, 6),
        (U, 5, U),  # UNLIMITED - bounded = UNLIMITED
        (U, -5, U),
        (U, 0, U),
        (5, U, INT64_MIN),  # bounded - UNLIMITED = -2^63
        (0, U, INT64_MIN),
        (INT64_MIN, U, INT64_MIN),
        (U, U, 0),  # UNLIMITED - UNLIMITED = 0
        (INT64_MIN + 1, 5, INT64_MIN),  # lower saturation
        (5, INT64_MIN, U),  # 5 + 2^63 saturates upward at 2^63-1
        (INT64_MAX - 1, -1, U),
    ],
)
def test_q2_amount_sub(a: int, b: int, expected: int) -> None:
    """Q-2 subtraction table."""
    assert amount_sub(a, b) == expected


def test_q2_unlimited_compares_above_every_bounded_value() -> None:
    """Q-2: UNLIMITED equals UNLIMITED and exceeds every bounded value."""
    assert UNLIMITED == quota_amount("1e30", "memory")
    assert UNLIMITED > request_amount("9223372036854775806", "memory")

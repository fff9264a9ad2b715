"""Kubernetes quantities and the saturating integer amounts Kueue computes with (Q-0..Q-2).

A quantity string is parsed exactly (to a :class:`fractions.Fraction`) and only then converted
to an integer *amount*: milli-units for ``cpu``, base units for everything else, rounding any
remainder up, away from zero (Q-1). Amounts are Python ints restricted to the int64 range;
``UNLIMITED`` (2^63-1) doubles as "no limit" exactly as in Kueue, so the arithmetic helpers
below saturate instead of overflowing (Q-2).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from collections.abc import Mapping
from typing import Any, Literal

from kueue_preempt.errors import InvalidModel, InvalidQuantity

__all__ = [
    "model_amount_map",
    "INT32_MIN",
    "INT32_MAX",
    "UNLIMITED",
    "MIN_AMOUNT",
    "parse_quantity",
    "quota_amount",
    "request_amount",
    "amount_add",
    "amount_sub",
    "amount_mul",
    "format_amount",
    "amount_input",
]

# Kubernetes' int32 fields (priorities, counts) are range-checked against these.
INT32_MIN = -(2**31)
INT32_MAX = 2**31 - 1

UNLIMITED = 2**63 - 1
"""Sentinel for "no limit" and the int64 upper bound (Q-1, Q-2)."""
MIN_AMOUNT = -(2**63)
"""int64 lower bound; ``bounded - UNLIMITED`` saturates here (Q-2)."""

# optional sign, a decimal number (``1``, ``1.5``, ``1.``, ``.5``), then at most one suffix.
# ``1.`` is accepted because Kubernetes accepts it (its parser allows an empty fraction).
_QUANTITY_RE = re.compile(
    r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?"
    r"(?:(?P<bin>Ki|Mi|Gi|Ti|Pi|Ei)|(?P<exp>[eE][+-]?[0-9]+)|(?P<dec>[numkMGTPE]))?"
)
_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_MAX_LEN = 128
# An untrusted ``1e999999999`` would build a billion-digit integer, so exponents beyond this
# bound are rejected as absurd input (no real quota, request or cost comes near it).
_MAX_EXPONENT = 1000
_CPU_QUOTA_BOUND = Fraction(UNLIMITED // 1000)
# Errors name the place the caller gave (``where``), else the parameter itself.
_ARGUMENT = "argument 'value'"



def parse_quantity(value: str, *, where: str = "") -> Fraction:
    """Parse a Kubernetes quantity string exactly (Q-0).

    Accepts exactly Kubernetes' grammar: ``"500m"``, ``"3Gi"``, ``"1e3"``, ``"0.5"``, ``"+1"``,
    ``"1."``. The value is exact; rounding happens only in the conversion to amounts (Q-1).
    Exponents beyond ±1000 are rejected as absurd input. Rejects everything else (``"1_000"``, ``"NaN"``, ``"K"``, ``" 1"``, ``""``) with
    :class:`~kueue_preempt.errors.InvalidQuantity` naming the string (and ``where``, if given).
    """
    where = where or _ARGUMENT
    if not isinstance(value, str):
        raise InvalidQuantity(value, "not a string", where=where)
    if len(value) > _MAX_LEN:
        raise InvalidQuantity(value[:32] + "...", f"longer than {_MAX_LEN} characters", where=where)
    m = _QUANTITY_RE.fullmatch(value)
    if m is None or (not m.group("int") and not m.group("frac")):
        raise InvalidQuantity(value, "does not match the Kubernetes quantity grammar", where=where)
    digits = m.group("int") or "0"
    frac = m.group("frac") or ""
    number = Fraction(int(digits + frac), 10 ** len(frac))
    if m.group("bin"):
        number *= _BINARY[m.group("bin")]
    else:
        if m.group("exp"):
            exp = int(m.group("exp")[1:])
            if abs(exp) > _MAX_EXPONENT:
                raise InvalidQuantity(value, f"exponent beyond +/-{_MAX_EXPONENT} (absurd size)", where=where)
        elif m.group("dec"):
            exp = _DECIMAL[m.group("dec")]
        else:
            exp = 0
        number *= Fraction(10) ** exp
    return -number if m.group("sign") == "-" else number


def _ceil_away(x: Fraction) -> int:
    """Round away from zero (Kubernetes' ScaledValue rounds up in magnitude)."""
    if x >= 0:
        return -((-x.numerator) // x.denominator)  # ceiling
    return x.numerator // x.denominator  # floor, i.e. away from zero for negatives


def _scaled(q: Fraction, resource: str) -> Fraction:
    return q * 1000 if resource == "cpu" else q


def quota_amount(value: str | int | Fraction, resource: str, *, where: str = "") -> int:
    """Convert a quota-side quantity (nominal, borrowing or lending limit) to an amount (Q-1).

    Values at or above the int64 bound become :data:`UNLIMITED`; for CPU the bound is
    ``9223372036854775`` cores, compared exactly before the milli conversion.
    """
    q = _as_fraction(value, where)
    bound = _CPU_QUOTA_BOUND if resource == "cpu" else Fraction(UNLIMITED)
    if q >= bound:
        return UNLIMITED
    return _clamp(_ceil_away(_scaled(q, resource)))


def request_amount(value: str | int | Fraction, resource: str, *, where: str = "") -> int:
    """Convert a request-side quantity (usage, requests) to an amount, clamped to int64 (Q-1)."""
    return _clamp(_ceil_away(_scaled(_as_fraction(value, where), resource)))


def _as_fraction(value: str | int | Fraction, where: str) -> Fraction:
    where = where or _ARGUMENT
    if isinstance(value, bool):
        raise InvalidQuantity(value, "booleans are not quantities", where=where)
    if isinstance(value, (int, Fraction)):
        return Fraction(value)
    return parse_quantity(value, where=where)


def _clamp(v: int) -> int:
    if v > UNLIMITED:
        return UNLIMITED
    if v < MIN_AMOUNT:
        return MIN_AMOUNT
    return v


def amount_add(a: int, b: int) -> int:
    """``a + b`` with Kueue's saturation: UNLIMITED absorbs, bounded sums saturate (Q-2)."""
    if a == UNLIMITED or b == UNLIMITED:
        return UNLIMITED
    s = a + b
    if s > UNLIMITED:
        return UNLIMITED
    if s < MIN_AMOUNT:
        return MIN_AMOUNT
    return s


def amount_mul(amount: int, count: int) -> int:
    """``amount × count`` for a pod count ``count >= 0``, saturating at the int64 bound (Q-2):
    a pod set's total from its per-pod request (FAS-1, SC-MSG-3, FA-3)."""
    return min(amount * count, UNLIMITED)


def amount_sub(a: int, b: int) -> int:
    """``a - b`` with Kueue's saturation rules (Q-2)."""
    if a == UNLIMITED:
        return 0 if b == UNLIMITED else UNLIMITED
    if b == UNLIMITED:
        return MIN_AMOUNT
    s = a - b
    if s > UNLIMITED:
        return UNLIMITED
    if s < MIN_AMOUNT:
        return MIN_AMOUNT
    return s


def format_amount(amount: int, resource: str) -> str:
    """Render an amount back as a quantity string (``"1500m"``, ``"3Gi"``, ``"unlimited"``)."""
    if amount == UNLIMITED:
        return "unlimited"
    if resource == "cpu":
        return f"{amount // 1000}" if amount % 1000 == 0 else f"{amount}m"
    if amount != 0:
        for suffix in ("Ei", "Pi", "Ti", "Gi", "Mi", "Ki"):
            base = _BINARY[suffix]
            if amount % base == 0:
                return f"{amount // base}{suffix}"
    return str(amount)


def amount_input(
    value: object,
    resource: str | None,
    *,
    obj: str,
    field: str,
    side: Literal["request", "quota"] = "request",
    allow_negative: bool = False,
) -> int:
    """Convert one amount given to a public constructor or function (the input rule of Q-1).

    * a ``str`` is a Kubernetes quantity, parsed exactly for ``resource`` as the manifest reader
      does (:func:`request_amount` or, for ``side="quota"``, :func:`quota_amount`); where the
      resource is not known (``resource=None``) a string is refused, because ``"1"`` means 1000
      amounts for ``cpu`` and 1 for anything else;
    * an ``int`` (or an integral ``float``/``Decimal``/``Fraction``) is already the library's amount in
      the resource's units (milli-units for ``cpu``) and must lie in the int64 range;
    * anything else (``None``, ``bool``, lists, NaN, ``0.5``) raises :class:`InvalidModel` naming
      ``obj`` and ``field``; a malformed string raises :class:`InvalidQuantity` naming them too.

    Negative amounts are refused unless ``allow_negative``: no usage, request or quota is negative.
    """
    where = f"{obj}.{field}"
    if isinstance(value, str):
        if resource is None:
            raise InvalidModel(
                obj,
                field,
                f"the quantity string {value[:32]!r} needs its resource to be converted; pass an amount "
                "(int, milli-units for cpu) or convert with quota_amount(value, resource)",
            )
        amount = (quota_amount if side == "quota" else request_amount)(value, resource, where=where)
    elif isinstance(value, bool) or not isinstance(value, (int, float, Decimal, Fraction)):
        raise InvalidModel(obj, field, f"expected a quantity, got {type(value).__name__}")
    elif isinstance(value, int):
        amount = value
    else:
        # Checked separately from the conversion so the message says which rule failed.
        if isinstance(value, (float, Decimal)) and not math.isfinite(value):
            raise InvalidModel(obj, field, f"expected a finite amount, got {value!r}")
        if value != int(value):
            raise InvalidModel(
                obj, field, f"amounts are integers (milli-units for cpu); got {value!r} — use a quantity string such as '500m'"
            )
        amount = int(value)
    if not MIN_AMOUNT <= amount <= UNLIMITED:
        raise InvalidModel(obj, field, f"{amount} is outside the int64 range of amounts (Q-1)")
    if amount < 0 and not allow_negative:
        raise InvalidModel(obj, field, f"must be >= 0, got {value!r}")
    return amount


def model_amount_map(
    value: Any, obj: str, field: str, *, side: Literal["request", "quota"] = "request", allow_negative: bool = False
) -> dict[str, int]:
    """A ``resource -> amount`` map, each value converted by :func:`~kueue_preempt.model.quantity.amount_input`
    (a string is a quantity of that resource, an int the amount, Q-1)."""
    if not isinstance(value, Mapping):
        raise InvalidModel(obj, field, f"expected a mapping of resource to quantity, got {type(value).__name__}")
    out: dict[str, int] = {}
    for resource, amount in value.items():
        if not isinstance(resource, str) or not resource:
            raise InvalidModel(obj, field, f"resource names must be non-empty strings, got {resource!r}")
        out[resource] = amount_input(
            amount, resource, obj=obj, field=f"{field}[{resource!r}]", side=side, allow_negative=allow_negative
        )
    return out

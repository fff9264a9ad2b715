"""Amounts and times back to the text Kubernetes writes (used by the writer and the CLI), and
the strict number grammars every reader of untrusted text shares.

Python's ``int()``, ``float()`` and ``Decimal()`` accept far more than Kubernetes' and Go's
grammars: Unicode digits (``"٣"``, ``"²"`` passes ``str.isdigit``), underscores (``"1_0"``),
``nan``/``inf`` spellings, surrounding whitespace; ``int()`` also refuses strings of more than
4,300 digits with a ``ValueError`` nobody expects. :func:`int_text` and :func:`float_text`
accept ASCII digits only and check the range before converting, so a hostile value ends in a
:class:`NumberTextError` whose reason the caller prefixes with its file, object and field.

:data:`MAX_SECONDS` bounds every number of seconds the simulator reads (arrival times and
durations, flags such as ``--until``): Go's longest ``time.Duration``, about 292 years, so a
value Kueue could hold fits, and every simulated instant stays inside ``datetime``'s range.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone

from kueue_preempt.errors import KueuePreemptError
from kueue_preempt.model.quantity import UNLIMITED, format_amount

__all__ = [
    "number_text",
    "quantity_text",
    "time_text",
    "MAX_SECONDS",
    "MIN_RATE",
    "FLOAT32_MAX",
    "NumberTextError",
    "int_text",
    "float_text",
    "check_seconds",
    "shown",
]

MAX_SECONDS = (2**63 - 1) / 1e9
"""The longest number of seconds any input may give: Go's largest ``time.Duration`` (int64
nanoseconds, about 292 years)."""

MIN_RATE = 1 / MAX_SECONDS
"""The smallest rate (per second) an input may give: one event per :data:`MAX_SECONDS`."""

FLOAT32_MAX = 3.4028234663852886e38
"""The largest float32: Kueue's float32 fields (``clientConnection.qps``) hold no more."""

_INT_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)
_FLOAT_TEXT = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_MAX_TEXT = 1000  # characters of one number; longer is absurd input, refused before parsing


class NumberTextError(KueuePreemptError, ValueError):
    """A number given as text is not in the grammar or out of range. ``reason`` says what is
    wrong without saying where; readers re-raise it with their file, object and field."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def shown(text: str) -> str:
    """``text`` quoted for a message, shortened when long."""
    return repr(text if len(text) <= 40 else text[:37] + "...")


def int_text(text: str, *, low: int, high: int) -> int:
    """An integer written with ASCII digits (optional sign, no spaces inside), in ``[low, high]``.

    Surrounding whitespace is ignored. Raises :class:`NumberTextError` otherwise; a value with
    thousands of digits is refused by its length, before ``int()`` sees it.
    """
    value = text.strip()
    if len(value) > _MAX_TEXT or not _INT_TEXT.fullmatch(value):
        raise NumberTextError(f"{shown(text)} is not an integer (ASCII digits 0-9)")
    digits = value.lstrip("+-").lstrip("0")
    if len(digits) > max(len(str(abs(low))), len(str(abs(high)))):
        raise NumberTextError(f"{shown(value)} is outside [{low}, {high}]")
    out = int(value)
    if not low <= out <= high:
        raise NumberTextError(f"{out} is outside [{low}, {high}]")
    return out


def float_text(text: str, *, low: float = -math.inf, high: float = math.inf, what: str = "a number") -> float:
    """A decimal number written with ASCII digits (``10``, ``0.5``, ``1e3``), in ``[low, high]``.

    ``nan``, ``inf``, underscores and non-ASCII digits are refused; so is a value whose float
    overflows. Raises :class:`NumberTextError`.
    """
    value = text.strip()
    if len(value) > _MAX_TEXT or not _FLOAT_TEXT.fullmatch(value):
        raise NumberTextError(f"{shown(text)} is not {what} (ASCII digits, e.g. 10, 0.5, 1e3)")
    out = float(value)
    if not math.isfinite(out) or not low <= out <= high:
        raise NumberTextError(f"{shown(value)} is outside [{_g(low)}, {_g(high)}]")
    return out


def check_seconds(value: float, *, positive: bool = False) -> float:
    """``value`` as seconds an input may give: finite, ``>= 0`` (``> 0`` when ``positive``) and
    at most :data:`MAX_SECONDS`. Raises :class:`NumberTextError`."""
    if not math.isfinite(value) or value < 0 or (positive and value == 0) or value > MAX_SECONDS:
        low = "> 0" if positive else ">= 0"
        raise NumberTextError(f"must be a number of seconds {low} and at most {_g(MAX_SECONDS)} (about 292 years), got {_g(value)}")
    return value


def _g(value: float) -> str:
    return f"{value:.6g}"


def quantity_text(amount: int, resource: str) -> str:
    """An amount (Q-1) as a quantity string that loads back to the same amount."""
    if amount == UNLIMITED:
        return f"{amount}m" if resource == "cpu" else str(amount)
    return format_amount(amount, resource)


def number_text(value: float, significant: int = 4) -> str:
    """A figure for a table: ``significant`` digits, never scientific notation (``12150``, not
    ``1.215e+04``; ``0.0001234``, not ``1.234e-04``), no trailing zeros."""
    if not math.isfinite(value):
        return str(value)
    if value == 0:
        return "0"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, significant - 1 - magnitude)
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def time_text(value: datetime) -> str:
    """RFC 3339 in UTC with a ``Z``, as Kubernetes writes it (microseconds when not zero)."""
    value = value.astimezone(timezone.utc)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}"
    return text + "Z"

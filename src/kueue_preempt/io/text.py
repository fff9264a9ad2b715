"""Amounts and times back to the text Kubernetes writes (used by the writer and the CLI)."""

from __future__ import annotations

import math
from datetime import datetime, timezone

from kueue_preempt.model.quantity import UNLIMITED, format_amount

__all__ = ["number_text", "quantity_text", "time_text"]


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

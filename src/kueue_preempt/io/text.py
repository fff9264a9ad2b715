"""Amounts and times back to the text Kubernetes writes (used by the writer and the CLI)."""

from __future__ import annotations

from datetime import datetime, timezone

from kueue_preempt.model.quantity import UNLIMITED, format_amount

__all__ = ["quantity_text", "time_text"]


def quantity_text(amount: int, resource: str) -> str:
    """An amount (Q-1) as a quantity string that loads back to the same amount."""
    if amount == UNLIMITED:
        return f"{amount}m" if resource == "cpu" else str(amount)
    return format_amount(amount, resource)


def time_text(value: datetime) -> str:
    """RFC 3339 in UTC with a ``Z``, as Kubernetes writes it (microseconds when not zero)."""
    value = value.astimezone(timezone.utc)
    text = value.strftime("%Y-%m-%dT%H:%M:%S")
    if value.microsecond:
        text += f".{value.microsecond:06d}"
    return text + "Z"

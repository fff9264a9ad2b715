"""The status vocabulary shared by the per-node and the PodGroup paths (spec §7).

Codes are normative; reasons carry kube-scheduler's wording where the spec quotes it, so that
adapters can compare messages, but callers should branch on :class:`StatusCode` only.
"""

from __future__ import annotations

import enum
from typing import Iterable

import attrs

__all__ = ["StatusCode", "Status"]


class StatusCode(str, enum.Enum):
    """Outcome of a filter, of one node's evaluation, or of a whole preemption attempt."""

    SUCCESS = "Success"
    UNSCHEDULABLE = "Unschedulable"
    """Preemption may help later, or the preemptor is not eligible right now."""
    UNSCHEDULABLE_AND_UNRESOLVABLE = "UnschedulableAndUnresolvable"
    """This node cannot be helped by evicting pods."""
    ERROR = "Error"
    """An internal failure (a hook failed, an inconsistent input); nothing is actuated."""

    def __str__(self) -> str:
        return self.value


def _reasons(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class Status:
    """A code plus zero or more human-readable reasons (``"Insufficient cpu"``...)."""

    code: StatusCode = attrs.field(converter=StatusCode)
    reasons: tuple[str, ...] = attrs.field(default=(), converter=_reasons)

    @classmethod
    def of(cls, code: StatusCode, *reasons: str) -> Status:
        """``Status.of(StatusCode.UNSCHEDULABLE, "Insufficient cpu")``."""
        return cls(code, reasons)

    @property
    def message(self) -> str:
        """The reasons joined by ``", "`` (empty when there are none)."""
        return ", ".join(self.reasons)

    @property
    def is_success(self) -> bool:
        return self.code is StatusCode.SUCCESS

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}" if self.reasons else self.code.value


"""The classic entry order of one cycle (SC-ORD-1..3).

Kueue sorts the nominated heads once, before processing, and never revises the order
(SC-ORD-3). The comparator reads only the entry's borrowing level, its priority and its
queue-order timestamp — not its mode, and not its uid.
"""

from __future__ import annotations

from typing import Protocol, Sequence, TypeVar

from kueue_preempt.model.time import micros
from kueue_preempt.model import Workload
from kueue_preempt.preemption.common.policy import queue_order_timestamp
from kueue_preempt.model.priority import effective_priority
from kueue_preempt.cycle.config import CycleConfig

__all__ = ["OrderableEntry", "classic_entry_order", "classic_entry_key"]


class OrderableEntry(Protocol):
    """What the classic comparator reads from an entry."""

    @property
    def workload(self) -> Workload: ...

    @property
    def borrowing(self) -> int: ...

    @property
    def is_preemptor(self) -> bool: ...

    @property
    def has_reservation(self) -> bool: ...


E = TypeVar("E", bound=OrderableEntry)


def classic_entry_key(entry: OrderableEntry, config: CycleConfig) -> tuple[int, int, int, int, int]:
    """Sort key of SC-ORD-1: smaller goes first."""
    return (
        0 if entry.has_reservation else 1,  # 1. (TAS second pass) reservations first
        0 if (config.prioritize_preemptor_workloads and entry.is_preemptor) else 1,  # 2.
        entry.borrowing,  # 3. lower borrowing level first
        # 4. higher EP first, only with PrioritySortingWithinCohort
        -effective_priority(entry.workload, boost_enabled=config.preemption.priority_boost)
        if config.priority_sorting_within_cohort
        else 0,
        micros(queue_order_timestamp(entry.workload, config.preemption)),  # 5. earlier QOT
    )


def classic_entry_order(entries: Sequence[E], config: CycleConfig) -> list[E]:
    """Entries in SC-ORD-1 order; a stable sort, so full ties keep head order (SC-ORD-2 [D])."""
    return sorted(entries, key=lambda e: classic_entry_key(e, config))

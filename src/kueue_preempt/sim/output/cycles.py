"""Preemption cycles and extra preemptions, read from a simulation's ``preempted`` events.

A *cycle* is "X preempts Y, later Y preempts X" for one unordered pair; it *recurs* when the
same pair cycles again (the direction flips a second time). An *extra* preemption is one whose
preemptor's base priority is ≤ the victim's: under ``withinClusterQueue: LowerPriority``
(POL-1) only a priority boost (EP-8, BOOST-12) can make it happen. These are the measures of
the priority-boost KEP's claim that the preemption-count booster causes "at most one extra
preemption, and the cycle does not recur" (``docs/priority-boost.md``).

The events are the timeline's own :class:`~kueue_preempt.sim.output.timeline.Preempted`, so
the detector reads a :func:`kueue_preempt.sim.run.simulate` result directly, and any other
sequence of preemptions can be written as such events.
"""

from __future__ import annotations

from typing import Iterable

import attrs

from kueue_preempt.sim.output.timeline import Event, Preempted

__all__ = [
    "PreemptionCycle",
    "detect_cycles",
    "preemptions",
    "is_extra",
    "extra_preemptions",
    "cycles_per_pair",
    "recurring_pairs",
]


def _pair(p: Preempted) -> tuple[str, str]:
    return (min(p.preemptor, p.workload), max(p.preemptor, p.workload))


@attrs.frozen
class PreemptionCycle:
    """``first.preemptor`` preempted ``first.workload``; later ``second`` reversed it."""

    first: Preempted
    second: Preempted

    @property
    def pair(self) -> tuple[str, str]:
        """The two workloads, in name order."""
        return _pair(self.first)


def preemptions(events: Iterable[Event]) -> tuple[Preempted, ...]:
    """The ``preempted`` events of a timeline, in order."""
    return tuple(e for e in events if isinstance(e, Preempted))


def detect_cycles(events: Iterable[Event]) -> tuple[PreemptionCycle, ...]:
    """Every direction reversal within an unordered pair, in event order (other events are
    skipped, so a whole timeline can be passed).

    ``A→B, A→B, B→A`` is one cycle (the last ``A→B`` with ``B→A``); ``A→B, B→A, A→B`` is two
    (the second recurs).
    """
    last: dict[tuple[str, str], Preempted] = {}
    cycles: list[PreemptionCycle] = []
    for e in preemptions(events):
        key = _pair(e)
        prev = last.get(key)
        if prev is not None and prev.preemptor != e.preemptor:
            cycles.append(PreemptionCycle(prev, e))
        last[key] = e
    return tuple(cycles)


def is_extra(event: Preempted) -> bool:
    """Base priority alone would not allow it (``LowerPriority`` is strict): a boost did."""
    return event.preemptor_priority <= event.victim_priority


def extra_preemptions(events: Iterable[Event]) -> tuple[Preempted, ...]:
    """The extra preemptions (:func:`is_extra`) of a timeline, in order."""
    return tuple(e for e in preemptions(events) if is_extra(e))


def cycles_per_pair(cycles: Iterable[PreemptionCycle]) -> dict[tuple[str, str], int]:
    """How often each pair cycled."""
    out: dict[tuple[str, str], int] = {}
    for c in cycles:
        out[c.pair] = out.get(c.pair, 0) + 1
    return out


def recurring_pairs(cycles: Iterable[PreemptionCycle]) -> frozenset[tuple[str, str]]:
    """Pairs that cycled more than once."""
    return frozenset(p for p, n in cycles_per_pair(cycles).items() if n > 1)

"""A candidate's facts, computed once when its workload enters the snapshot.

What any decision needs about an admitted workload — its CandidatesOrdering key without the
preemptor-dependent ORD-2 flag, its ClusterQueue and its identity — does not change while the
(frozen) workload holds quota, so the snapshot computes it once, in :func:`make_entry`, and
decisions compare the stored tuples instead of recomputing keys per decision or per comparison.

An entry is a plain tuple so that sorting, bisecting and merging compare it in C:
``(not evicted, effective priority, cost or 0, -reservation micros, uid, ClusterQueue,
namespace/name, workload)``. The ``namespace/name`` is unique in a snapshot, so comparisons
never reach the workload object; the ClusterQueue name before it keeps the tie-break of
:class:`~kueue_preempt.preemption.common.context.Candidate` keys (ORD-7, CL-GEN-7a).
"""

from __future__ import annotations

import bisect
import itertools
from datetime import datetime
from decimal import Decimal
from typing import Iterator

from kueue_preempt.model.time import micros
from kueue_preempt.model import Workload
from kueue_preempt.model.priority import effective_priority, preemption_cost

__all__ = ["Entry", "make_entry", "split_sorted", "FIRST_NOT_EVICTED"]

Entry = tuple[int, int, Decimal, int, str, str, str, Workload]

_ZERO = Decimal(0)

FIRST_NOT_EVICTED: tuple[int] = (1,)
"""Sorts after every evicted entry and before every other one (ORD-1)."""


def make_entry(w: Workload, key: str, cluster_queue: str, reserved: datetime, boost: bool, cost: bool) -> Entry:
    """The entry of ``w`` (``key`` is its ``namespace/name``, passed in so that the snapshot's
    dictionaries and the entry share one string) under the (priority boost, cost) switches.

    ``reserved`` is ORD-5's ``t(w)``: the reservation time, or a decision's ``now`` for the
    rare workload without one (those entries are built per decision, never stored).
    """
    return (
        0 if w.evicted else 1,  # ORD-1
        effective_priority(w, boost_enabled=boost),  # ORD-4
        preemption_cost(w) if cost else _ZERO,  # COST-2
        -micros(reserved),  # ORD-5: more recent first
        w.uid,  # ORD-6
        cluster_queue,
        key,
        w,
    )


def split_sorted(entries: list[Entry], bound: int | None) -> tuple[Iterator[Entry], Iterator[Entry]]:
    """Sorted ``entries`` as (evicted, other) halves (ORD-1), each cut below priority ``bound``.

    Inside each half entries are in priority order, so the cut is a bisection. O(log n).
    """
    split = bisect.bisect_left(entries, FIRST_NOT_EVICTED)
    ev_end, rest_end = split, len(entries)
    if bound is not None:
        ev_end = bisect.bisect_left(entries, (0, bound), 0, split)
        rest_end = bisect.bisect_left(entries, (1, bound), split)
    return itertools.islice(entries, 0, ev_end), itertools.islice(entries, split, rest_end)

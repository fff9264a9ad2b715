"""Incrementally maintained candidate index (issue 7): per-ClusterQueue sorted workloads.

CandidatesOrdering (ORD-1..ORD-6) depends on the preemptor in exactly one place, the
"other ClusterQueue first" criterion ORD-2, and that criterion is constant inside one
ClusterQueue. So each queue's workloads can be kept sorted by the rest of the key — evicted
first, effective priority, cost, most recent reservation, uid — in a ``SortedList`` updated on
every ``add_workload``/``remove_workload`` (O(log n)). A decision then merges the few sorted
lists it needs lazily and stops after k targets: O(k log n) plus quota checks, instead of
building and sorting every candidate.

The index is a cache: the results of the indexed and the plain path are identical (a property
test checks it). It is built for one (boost gate, cost switch) pair because those change the
key; a decision under another configuration, or with admission fair sharing on (ORD-3 is not
a per-queue key), simply takes the plain path.
"""

from __future__ import annotations

import heapq
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Iterator, cast

from sortedcontainers import SortedList

from ._time import micros
from .config import PreemptionConfig
from .model import Workload
from .priority import effective_priority, preemption_cost

if TYPE_CHECKING:
    from .quota import QuotaNode

__all__ = ["CandidateIndex", "IndexEntry"]

# (not evicted, EP, cost, -reservation micros, uid, namespace/name, workload). The workload
# key is unique in a snapshot, so tuple comparison never reaches the Workload object.
IndexEntry = tuple[int, int, Decimal, int, str, str, Workload]
_ZERO = Decimal(0)
# ``(1,)`` sorts before every non-evicted entry and after every evicted one.
_FIRST_NOT_EVICTED = cast(IndexEntry, (1,))


class CandidateIndex:
    """Sorted workloads per ClusterQueue for one ``(priority_boost, preemption_cost_enabled)``."""

    def __init__(self, priority_boost: bool, preemption_cost_enabled: bool) -> None:
        self.priority_boost = priority_boost
        self.preemption_cost_enabled = preemption_cost_enabled
        self._sorted: dict[QuotaNode, SortedList[IndexEntry]] = {}
        self._entries: dict[str, IndexEntry] = {}
        # Workloads without a reservation time sort as reserved "now" (ORD-5), which only a
        # decision knows; they are kept aside and merged in per decision (rare in practice).
        self._unreserved: dict[QuotaNode, dict[str, Workload]] = {}

    def matches(self, config: PreemptionConfig) -> bool:
        """Can a decision under ``config`` use this index?"""
        return (
            config.priority_boost == self.priority_boost
            and config.preemption_cost_enabled == self.preemption_cost_enabled
            and not config.admission_fair_sharing
        )

    def _entry(self, w: Workload, reserved: datetime) -> IndexEntry:
        return (
            0 if w.evicted else 1,
            effective_priority(w, boost_enabled=self.priority_boost),
            preemption_cost(w) if self.preemption_cost_enabled else _ZERO,
            -micros(reserved),
            w.uid,
            w.key,
            w,
        )

    def add(self, node: QuotaNode, w: Workload) -> None:
        """O(log n)."""
        if w.quota_reserved_at is None:
            self._unreserved.setdefault(node, {})[w.key] = w
            return
        entry = self._entry(w, w.quota_reserved_at)
        self._entries[w.key] = entry
        lst = self._sorted.get(node)
        if lst is None:
            lst = self._sorted[node] = SortedList()
        lst.add(entry)

    def remove(self, node: QuotaNode, w: Workload) -> None:
        """O(log n)."""
        entry = self._entries.pop(w.key, None)
        if entry is None:
            self._unreserved.get(node, {}).pop(w.key, None)
            return
        self._sorted[node].remove(entry)

    def __len__(self) -> int:
        return len(self._entries) + sum(len(u) for u in self._unreserved.values())

    def entries(self, node: QuotaNode, now: datetime, evicted: bool) -> Iterator[IndexEntry]:
        """The queue's evicted (or non-evicted) workloads in index order, lazily.

        O(log n) to start, O(1) per entry; unreserved workloads are merged in with ``now``.
        """
        lst = self._sorted.get(node)
        stored: Iterator[IndexEntry] = iter(())
        if lst:
            boundary = lst.bisect_left(_FIRST_NOT_EVICTED)
            stored = lst.islice(0, boundary) if evicted else lst.islice(boundary, len(lst))
        extra = self._unreserved.get(node)
        if not extra:
            return stored
        flag = 0 if evicted else 1
        aside = sorted(self._entry(w, now) for w in extra.values() if (0 if w.evicted else 1) == flag)
        return heapq.merge(stored, aside)

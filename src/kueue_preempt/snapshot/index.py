"""The maintained candidate index: sorted entries per ClusterQueue and FlavorResource.

CandidatesOrdering (ORD-1..ORD-6) depends on the preemptor in exactly one place, the
"other ClusterQueue first" criterion ORD-2, and that criterion is constant inside one
ClusterQueue. So each queue's entries (:mod:`kueue_preempt.snapshot.entries`, built once by the
snapshot) can be kept sorted by the rest of the key in a ``SortedList``, one per
FlavorResource the workloads use (POL-9), updated on every ``add_workload`` /
``remove_workload``. A decision then bisects to the slice it may take — evicted or not (ORD-1),
priorities the policy allows (POL-1/2) — and merges the few slices it needs lazily, stopping
after k targets: O(k log n) instead of building and sorting every candidate.

The index belongs to the :class:`~kueue_preempt.snapshot.quota.Snapshot`, which owns the entries and
calls :meth:`CandidateIndex.add` / :meth:`CandidateIndex.remove`; this module knows nothing of
the quota tree (queues are named by string). It is a cache: results with and without it are
identical (a property test checks it).

Costs (n entries in one list, F FlavorResources used by a workload, s slices merged):

========================  ==================  ================================================
operation                 cost                note
========================  ==================  ================================================
``add`` / ``remove``      O(F log n)          ``SortedList.add`` / ``remove`` per FlavorResource
``stream`` (start)        O(s log n)          two bisections per slice
``stream`` (next entry)   O(1), O(log s)      one slice / a heap merge of several
========================  ==================  ================================================
"""

from __future__ import annotations

import heapq
import itertools
from typing import Iterable, Iterator, cast

from sortedcontainers import SortedList

from kueue_preempt.snapshot.entries import Entry
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model import FlavorResource

__all__ = ["CandidateIndex", "IndexEntry", "dedupe"]

IndexEntry = Entry
"""The name callers of the index use: an index entry is a snapshot entry."""


class CandidateIndex:
    """Sorted entries per (ClusterQueue, FlavorResource) for one ``(priority_boost, cost)`` pair."""

    __slots__ = ("priority_boost", "preemption_cost_enabled", "_lists", "_size", "_evicted", "_evicted_total")

    def __init__(self, priority_boost: bool, preemption_cost_enabled: bool) -> None:
        self.priority_boost = priority_boost
        self.preemption_cost_enabled = preemption_cost_enabled
        self._lists: dict[str, dict[FlavorResource, SortedList[Entry]]] = {}
        self._size = 0
        # Evicted entries per queue: usually none, and then a decision skips the queue's
        # evicted half without touching its lists (ORD-1).
        self._evicted: dict[str, int] = {}
        self._evicted_total = 0

    def matches(self, config: PreemptionConfig) -> bool:
        """Can a decision under ``config`` use this index?

        Not with admission fair sharing: ORD-3 is not a per-queue key.
        """
        return (
            config.priority_boost == self.priority_boost
            and config.preemption_cost_enabled == self.preemption_cost_enabled
            and not config.admission_fair_sharing
        )

    def add(self, entry: Entry) -> None:
        """O(F log n)."""
        per = self._lists.get(entry[5])
        if per is None:
            per = self._lists[entry[5]] = {}
        for fr in entry[7].used_flavor_resources:
            lst = per.get(fr)
            if lst is None:
                lst = per[fr] = SortedList()
            lst.add(entry)
        self._size += 1
        if entry[0] == 0:
            self._evicted[entry[5]] = self._evicted.get(entry[5], 0) + 1
            self._evicted_total += 1

    def remove(self, entry: Entry) -> None:
        """O(F log n); ``entry`` must be the one added."""
        per = self._lists[entry[5]]
        for fr in entry[7].used_flavor_resources:
            per[fr].remove(entry)
        self._size -= 1
        if entry[0] == 0:
            self._evicted[entry[5]] -= 1
            self._evicted_total -= 1

    def any_evicted(self) -> bool:
        """Does any queue hold evicted entries? O(1)."""
        return self._evicted_total > 0

    def has_evicted(self, cluster_queue: str) -> bool:
        """Does the queue hold evicted entries (ORD-1's first half)? O(1)."""
        return bool(self._evicted.get(cluster_queue))

    def __len__(self) -> int:
        return self._size

    def stream(
        self, cluster_queue: str, frs: Iterable[FlavorResource], evicted: bool | None, bound: int | None
    ) -> Iterator[Entry]:
        """The queue's evicted (or other, or with ``None`` all) entries using one of ``frs``,
        in key order (so evicted first, ORD-1), lazily.

        Only entries with effective priority below ``bound`` (all if ``None``): entries are
        sorted by priority inside the evicted and non-evicted halves, so the bound is a
        bisection, not a filter. O(s log n) to start, O(1) (one FlavorResource) or O(log s)
        per entry.
        """
        per = self._lists.get(cluster_queue)
        if per is None or (evicted and not self._evicted.get(cluster_queue)):
            return iter(())
        if evicted is None:
            if bound is None:
                slices = [iter(lst) for lst in (per.get(fr) for fr in frs) if lst]
                if len(slices) <= 1:
                    return slices[0] if slices else iter(())
                return dedupe(heapq.merge(*slices))
            return itertools.chain(
                self.stream(cluster_queue, frs, True, bound), self.stream(cluster_queue, frs, False, bound)
            )
        flag = 0 if evicted else 1
        # Short tuples sort before every entry they prefix: bisection bounds, not entries.
        lo = cast(Entry, (flag,))
        hi = cast(Entry, (flag + 1,) if bound is None else (flag, bound))
        slices = []
        for fr in frs:
            lst = per.get(fr)
            if not lst:
                continue
            if not evicted and bound is None and not self._evicted.get(cluster_queue):
                slices.append(iter(lst))  # the whole list
            else:
                # Value ranges (irange) rather than positions (islice): no positional index
                # has to be rebuilt after the list changed.
                slices.append(lst.irange(lo, hi, inclusive=(True, False)))
        if not slices:
            return iter(())
        if len(slices) == 1:
            return slices[0]
        return dedupe(heapq.merge(*slices))


def dedupe(entries: Iterator[Entry]) -> Iterator[Entry]:
    """Drop repeats from a merge of sorted slices: a workload using several of the merged
    FlavorResources is in several lists, and its (unique) entries meet side by side."""
    last: Entry | None = None
    for e in entries:
        if last is None or e[6] != last[6]:
            yield e
        last = e

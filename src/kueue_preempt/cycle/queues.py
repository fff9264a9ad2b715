"""The queue memory Kueue carries from one cycle to the next (SC-ST-3, §4-§6, §12).

Per ClusterQueue: the active set, the inadmissible set, the preemptor marker and the failed
shape hashes; per pending workload: its flavor-scan progress. Everything is immutable: every
operation returns a new :class:`QueueState`, so a cycle is a pure function of its inputs.

The active *set* is stored unordered; the head is the minimum of SC-QO-1 computed when a
cycle pops it, which is what a heap gives and keeps the state independent of insertion order.
"""

from __future__ import annotations

from datetime import datetime
from typing import Hashable, Iterable, Mapping

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model import Condition

__all__ = ["PreemptorMarker", "ScanProgress", "ClusterQueueQueue", "QueueState"]


def requeue_blocked(conditions: Iterable[Condition]) -> bool:
    """SC-RQ-2's condition half: a ``Requeued=False`` condition holds the workload back."""
    for c in conditions:
        if c.type == "Requeued" and c.status == "False":
            return True
    return False


def backoff_expired(conditions: Iterable[Condition], requeue_at: datetime | None, now: datetime) -> bool:
    """SC-RQ-2: not held back by ``Requeued=False``, and ``requeueAt`` unset or reached."""
    if requeue_blocked(conditions):
        return False
    return requeue_at is None or now >= requeue_at


@attrs.frozen
class PreemptorMarker:
    """The last workload of a CQ requeued while waiting for its victims (SC-RQ-6)."""

    key: str
    generation: int
    sticky: bool
    """True in a BestEffortFIFO CQ: the marked workload is first in its queue (SC-QO-1 #2)."""


def _tried(value: Mapping[tuple[int, str], int]) -> FrozenMap[tuple[int, str], int]:
    return frozen_map(value)


@attrs.frozen
class ScanProgress:
    """A workload's recorded flavor-scan progress, its ``last_assignment`` (SC-FR-1).

    ``tried`` maps ``(pod set index, resource)`` to the index of the last flavor the scan
    examined, or ``-1`` when it reached the group's last flavor.
    """

    tried: FrozenMap[tuple[int, str], int] = attrs.field(factory=FrozenMap, converter=_tried)
    generation: int = 0
    cycle: int = 0
    shape: Hashable = None

    @property
    def has_pending_flavors(self) -> bool:
        """SC-FR-6: some scan stopped before its group's last flavor."""
        return any(v != -1 for v in self.tried.values())

    def same_tried(self, other: ScanProgress | None) -> bool:
        """Equal ``tried`` values (the cycle number is ignored, SC-T-3)."""
        return other is not None and other.tried == self.tried


def _keys(value: Iterable[str]) -> frozenset[str]:
    return frozenset(value)


def _hashes(value: Iterable[Hashable]) -> frozenset[Hashable]:
    return frozenset(value)


@attrs.frozen
class ClusterQueueQueue:
    """One ClusterQueue's pending structure (SC-ST-3)."""

    active: frozenset[str] = attrs.field(factory=frozenset, converter=_keys)
    inadmissible: frozenset[str] = attrs.field(factory=frozenset, converter=_keys)
    preemptor: PreemptorMarker | None = None
    failed_hashes: frozenset[Hashable] = attrs.field(factory=frozenset, converter=_hashes)

    def with_sets(
        self, active: frozenset[str], inadmissible: frozenset[str], failed_hashes: frozenset[Hashable] | None = None
    ) -> ClusterQueueQueue:
        """The same queue with new sets (and failed hashes, if given), marker kept.

        ``attrs.evolve`` with the same arguments, without its per-call field introspection:
        the cycle replaces a queue several times per head and a requeue run once per queue.
        """
        return ClusterQueueQueue(
            active, inadmissible, self.preemptor, self.failed_hashes if failed_hashes is None else failed_hashes
        )

    def without(self, key: str) -> ClusterQueueQueue:
        """``key`` removed from both sets (the marker is kept: SC-RQ-6 clears it elsewhere)."""
        return self.with_sets(self.active - {key}, self.inadmissible - {key})

    def without_all(self, keys: frozenset[str] | set[str]) -> ClusterQueueQueue:
        return self.with_sets(self.active - keys, self.inadmissible - keys)


def _queues(value: Mapping[str, ClusterQueueQueue]) -> FrozenMap[str, ClusterQueueQueue]:
    return frozen_map(value)


def _progress(value: Mapping[str, ScanProgress]) -> FrozenMap[str, ScanProgress]:
    return frozen_map(value)


def _generations(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


@attrs.frozen
class QueueState:
    """Everything a cycle reads from and writes to the queue manager between cycles.

    ``cycle`` counts the cycles run so far (SC-CY-1, read by SC-FR-3); ``generations`` holds
    each ClusterQueue's ``AllocatableResourceGeneration`` (SC-FR-4). Build the state a freshly
    started Kueue has with :func:`kueue_preempt.cycle.initial_queue_state`.
    """

    queues: FrozenMap[str, ClusterQueueQueue] = attrs.field(factory=FrozenMap, converter=_queues)
    scan_progress: FrozenMap[str, ScanProgress] = attrs.field(factory=FrozenMap, converter=_progress)
    cycle: int = 0
    generations: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_generations)

    def queue(self, cq: str) -> ClusterQueueQueue:
        return self.queues.get(cq) or ClusterQueueQueue()

    def generation(self, cq: str) -> int:
        return self.generations.get(cq, 0)

    def location(self, key: str) -> tuple[str, str] | None:
        """``(cluster queue, "active" | "inadmissible")`` of a pending workload, if queued."""
        for name, q in self.queues.items():
            if key in q.active:
                return name, "active"
            if key in q.inadmissible:
                return name, "inadmissible"
        return None

    def active_by_queue(self) -> dict[str, list[str]]:
        """Active keys per ClusterQueue (sorted; empty queues omitted)."""
        return {n: sorted(q.active) for n, q in sorted(self.queues.items()) if q.active}

    def inadmissible_by_queue(self) -> dict[str, list[str]]:
        """Inadmissible keys per ClusterQueue (sorted; empty queues omitted)."""
        return {n: sorted(q.inadmissible) for n, q in sorted(self.queues.items()) if q.inadmissible}

"""The fair-sharing entry order: a tournament per cohort tree (SC-FS-1..5).

Each pop recomputes, from the current cycle snapshot (so it includes the usage of entries
already processed), the DRS every remaining entry would give each node on its path if it were
admitted, then plays the tournament from the root down. Ties are broken by name (SC-FS-3 [D]).
"""

from __future__ import annotations

from typing import Sequence

from kueue_preempt.model.time import micros
from kueue_preempt.snapshot.drs import DominantResourceShare, compare_drs, dominant_resource_share, is_borrowing_on
from kueue_preempt.preemption.common.policy import queue_order_timestamp
from kueue_preempt.model.priority import effective_priority
from kueue_preempt.snapshot.quota import QuotaNode, Snapshot
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.entry import Entry

__all__ = ["fair_pop"]

_Values = dict[tuple[str, str], tuple[DominantResourceShare, bool]]


def fair_pop(remaining: Sequence[Entry], snapshot: Snapshot, config: CycleConfig) -> Entry:
    """SC-FS-1: the next entry to process. ``remaining`` must be non-empty nominated entries."""
    first = min(remaining, key=lambda e: e.cluster_queue)  # [D] smallest CQ name picks the tree
    node = snapshot.cluster_queue(first.cluster_queue)
    if node.parent is None:
        return first
    root = node.root
    tree = [e for e in remaining if snapshot.cluster_queue(e.cluster_queue).root is root]
    values = _values(tree, snapshot)
    by_cq = {e.cluster_queue: e for e in tree}
    best = _tournament(root, by_cq, values, config)
    assert best is not None
    return best


def _values(tree: Sequence[Entry], snapshot: Snapshot) -> _Values:
    """SC-FS-2: per (cohort, entry) the DRS of the cohort's child on the entry's path, and
    whether that child borrows on a resource the entry requests, with the entry admitted."""
    out: _Values = {}
    for e in tree:
        assert e.nomination is not None
        usage = e.nomination.usage
        cq = snapshot.cluster_queue(e.cluster_queue)
        with snapshot.preserved():
            snapshot.add_usage(cq, usage)
            child: QuotaNode = cq
            for ancestor in cq.ancestors():
                share = dominant_resource_share(snapshot, child)
                out[(ancestor.name, e.key)] = (share, is_borrowing_on(child, usage))
                child = ancestor
    return out


def _tournament(
    cohort: QuotaNode, by_cq: dict[str, Entry], values: _Values, config: CycleConfig
) -> Entry | None:
    # Iterative post-order over the cohort subtree: a deep chain must not exhaust the stack.
    winners: dict[str, Entry | None] = {}
    stack: list[tuple[QuotaNode, bool]] = [(cohort, False)]
    while stack:
        node, expanded = stack.pop()
        if not expanded:
            stack.append((node, True))
            stack.extend((k, False) for k in node.child_cohorts)
            continue
        cands = [w for k in node.child_cohorts if (w := winners.get(k.name)) is not None]
        cands += [by_cq[q.name] for q in node.child_queues if q.name in by_cq]
        best: Entry | None = None
        for c in cands:  # child cohorts by name, then child CQs by name (SC-FS-3 [D])
            if best is None or _less(c, best, node.name, values, config):
                best = c
        winners[node.name] = best
    return winners[cohort.name]


def _less(a: Entry, b: Entry, cohort: str, values: _Values, config: CycleConfig) -> bool:
    """SC-FS-4, first differing criterion."""
    if config.prioritize_preemptor_workloads and a.is_preemptor != b.is_preemptor:
        return a.is_preemptor
    da, ba = values[(cohort, a.key)]
    db, bb = values[(cohort, b.key)]
    if config.fair_sharing_prioritize_non_borrowing and ba != bb:
        return not ba
    c = compare_drs(da, db)
    if c != 0:
        return c < 0
    if config.priority_sorting_within_cohort:
        boost = config.preemption.priority_boost
        pa = effective_priority(a.workload, boost_enabled=boost)
        pb = effective_priority(b.workload, boost_enabled=boost)
        if pa != pb:
            return pa > pb
    ta = micros(queue_order_timestamp(a.workload, config.preemption))
    tb = micros(queue_order_timestamp(b.workload, config.preemption))
    return ta < tb

"""CandidatesOrdering (ORD-1..ORD-10, COST-2): which candidate is preempted first.

Two equivalent forms: :func:`candidates_ordering`, a comparator mirroring Kueue's, and
:func:`candidate_sort_key`, a precomputed tuple for ``sorted`` (fast, no ``cmp_to_key``).
The key cannot express the admission-fair-sharing criterion ORD-3, which compares only pairs
in the same ClusterQueue, so :func:`sort_candidates` falls back to the comparator when AFS
is on and some candidate carries a LocalQueue usage.
"""

from __future__ import annotations

import functools
from datetime import datetime
from decimal import Decimal
from typing import Callable, Iterable, Sequence, TypeVar

from kueue_preempt._util.checks import arg, arg_iterable
from kueue_preempt.model.time import micros
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model import Workload
from kueue_preempt.model.priority import effective_priority, preemption_cost

__all__ = [
    "candidates_ordering",
    "candidate_sort_key",
    "sort_key",
    "sort_candidates",
    "sort_by_ordering",
    "reservation_time",
]

SortKey = tuple[int, int, int, Decimal, int, str]
T = TypeVar("T")


def reservation_time(workload: Workload, now: datetime) -> datetime:
    """ORD-5's ``t(w)``: the QuotaReserved time, or ``now`` when the workload has none."""
    return workload.quota_reserved_at if workload.quota_reserved_at is not None else now


def _check(function: str, preemptor_cluster_queue: object, now: object, config: object) -> None:
    arg(preemptor_cluster_queue, str, function, "preemptor_cluster_queue")
    arg(now, datetime, function, "now")
    arg(config, PreemptionConfig, function, "config")


def candidate_sort_key(
    workload: Workload,
    preemptor_cluster_queue: str,
    now: datetime,
    config: PreemptionConfig = PreemptionConfig(),
) -> SortKey:
    """Sort key equal to :func:`candidates_ordering` without ORD-3: smaller = preempted first.

    ``(not evicted, same CQ, EP, cost or 0, -reservation time, uid)``.
    """
    if not (
        isinstance(workload, Workload)
        and isinstance(preemptor_cluster_queue, str)
        and isinstance(now, datetime)
        and isinstance(config, PreemptionConfig)
    ):  # one cheap test on the common path; the named checks only when something is wrong
        _check("candidate_sort_key", preemptor_cluster_queue, now, config)
        arg(workload, Workload, "candidate_sort_key", "workload")
    return sort_key(workload, preemptor_cluster_queue, now, config)


def sort_key(workload: Workload, preemptor_cluster_queue: str, now: datetime, config: PreemptionConfig) -> SortKey:
    """:func:`candidate_sort_key` without the argument checks, for the algorithms' inner loop
    (their arguments are checked once per decision)."""
    return (
        0 if workload.evicted else 1,  # ORD-1
        1 if workload.cluster_queue == preemptor_cluster_queue else 0,  # ORD-2
        effective_priority(workload, boost_enabled=config.priority_boost),  # ORD-4
        preemption_cost(workload) if config.preemption_cost_enabled else _ZERO,  # COST-2
        -micros(reservation_time(workload, now)),  # ORD-5: more recent first
        workload.uid,  # ORD-6
    )


_ZERO = Decimal(0)


def _afs_cmp(a: Workload, b: Workload) -> int:
    """ORD-3: same CQ, different LocalQueues, both usages known -> higher usage first."""
    if (
        a.cluster_queue == b.cluster_queue
        and a.local_queue != b.local_queue
        and a.local_queue_fs_usage is not None
        and b.local_queue_fs_usage is not None
        and a.local_queue_fs_usage != b.local_queue_fs_usage
    ):
        return -1 if a.local_queue_fs_usage > b.local_queue_fs_usage else 1
    return 0


def _cmp_keys(ka: tuple[object, ...], kb: tuple[object, ...]) -> int:
    return (ka > kb) - (ka < kb)


def candidates_ordering(
    a: Workload,
    b: Workload,
    preemptor_cluster_queue: str,
    now: datetime,
    config: PreemptionConfig = PreemptionConfig(),
) -> int:
    """Kueue's CandidatesOrdering: negative when ``a`` is preempted before ``b`` (ORD-1..7).

    AFS (ORD-3) applies when ``config.admission_fair_sharing`` is set; it sits between
    ORD-2 and ORD-4, so it is checked after the first two key elements.
    """
    _check("candidates_ordering", preemptor_cluster_queue, now, config)
    arg(a, Workload, "candidates_ordering", "a")
    arg(b, Workload, "candidates_ordering", "b")
    ka = sort_key(a, preemptor_cluster_queue, now, config)
    kb = sort_key(b, preemptor_cluster_queue, now, config)
    head = _cmp_keys(ka[:2], kb[:2])
    if head != 0:
        return head
    if config.admission_fair_sharing:
        afs = _afs_cmp(a, b)
        if afs != 0:
            return afs
    return _cmp_keys(ka[2:], kb[2:])


def sort_candidates(
    candidates: Iterable[Workload],
    preemptor_cluster_queue: str,
    now: datetime,
    config: PreemptionConfig = PreemptionConfig(),
) -> list[Workload]:
    """Stable sort by CandidatesOrdering (ORD-7): ties keep their input order. O(n log n)."""
    _check("sort_candidates", preemptor_cluster_queue, now, config)
    items = arg_iterable(candidates, Workload, "sort_candidates", "candidates")
    keys = {id(w): sort_key(w, preemptor_cluster_queue, now, config) for w in items}
    return sort_by_ordering(items, lambda w: keys[id(w)], lambda w: w, config.admission_fair_sharing)


def sort_by_ordering(
    items: Sequence[T],
    key_of: Callable[[T], tuple[object, ...]],
    workload_of: Callable[[T], Workload],
    admission_fair_sharing: bool,
) -> list[T]:
    """Stable sort of ``items`` by precomputed ordering keys (see :func:`candidate_sort_key`).

    Keys may carry extra trailing tie-breakers. Uses the plain key unless AFS is on and an
    item has a LocalQueue usage; then a comparator that inserts ORD-3 after the first two key
    elements (ORD-9: deterministic even where the relation is cyclic).
    """
    if not admission_fair_sharing or all(workload_of(x).local_queue_fs_usage is None for x in items):
        return sorted(items, key=key_of)

    def cmp(x: T, y: T) -> int:
        kx, ky = key_of(x), key_of(y)
        head = _cmp_keys(kx[:2], ky[:2])
        if head != 0:
            return head
        afs = _afs_cmp(workload_of(x), workload_of(y))
        return afs if afs != 0 else _cmp_keys(kx[2:], ky[2:])

    return sorted(items, key=functools.cmp_to_key(cmp))

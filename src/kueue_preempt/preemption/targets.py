"""The entry point: ``get_targets`` dispatches on the configuration (GT-1, GT-2)."""

from __future__ import annotations

from datetime import datetime

from kueue_preempt.preemption.common.context import check_decision_args, check_pending
from kueue_preempt.preemption.classic import checked_classic_targets
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.preemption.fairsharing import fair_targets
from kueue_preempt.model import Assignment, Target, Workload
from kueue_preempt.preemption.common.trace import DecisionTrace
from kueue_preempt.snapshot.quota import Snapshot

__all__ = ["get_targets", "own_arguments_targets"]


def get_targets(
    preemptor: Workload,
    cluster_queue: str,
    assignment: Assignment,
    snapshot: Snapshot,
    *,
    config: PreemptionConfig = PreemptionConfig(),
    now: datetime | None = None,
    trace: DecisionTrace | None = None,
) -> list[Target]:
    """Targets to evict so that ``preemptor`` fits in ``cluster_queue`` (GT-1).

    Runs fair-sharing preemption (:func:`~kueue_preempt.fair_targets`) when
    ``config.fair_sharing`` is set, classic (:func:`~kueue_preempt.classic_targets`) otherwise
    (GT-2, FG-3). ``cluster_queue`` is explicit because a pending workload has no admission.
    Returns a complete target set or ``[]``; ``snapshot`` is left unchanged (GT-3, GT-4).
    Pass a :class:`~kueue_preempt.preemption.common.trace.DecisionTrace` as ``trace`` to receive every step
    with the rule that decided it.

    Cost, for m candidates (admitted workloads of the preemptor's cohort tree on the requested
    flavor-resources), k targets tried, F flavor-resources and cohort depth d: classic
    O(q + m log m) + O(k · F · d) on the default path, O(q log n) + O(k (log q + F · d)) with
    the maintained index (:meth:`Snapshot.enable_index`); fair sharing O(q) + O(k · d · (log q + F))
    with the index. Measured figures: ``docs/performance.md``.
    """
    check_decision_args("get_targets", preemptor, cluster_queue, assignment, snapshot, config, now, trace)
    if config.fair_sharing is not None:
        return fair_targets(preemptor, cluster_queue, assignment, snapshot, config=config, now=now, trace=trace)
    return checked_classic_targets(preemptor, cluster_queue, assignment, snapshot, config=config, now=now, trace=trace)


def own_arguments_targets(
    preemptor: Workload,
    cluster_queue: str,
    assignment: Assignment,
    snapshot: Snapshot,
    config: PreemptionConfig,
    now: datetime | None,
    trace: DecisionTrace | None,
) -> list[Target]:
    """:func:`get_targets` for a caller whose arguments are models it holds itself (the
    scheduler's nominations, FA-6 and SC-NOM-2): the type checks of the public entry point
    are skipped, the GT-1 check that the preemptor is pending is kept. Same result."""
    if config.fair_sharing is not None:
        return get_targets(preemptor, cluster_queue, assignment, snapshot, config=config, now=now, trace=trace)
    check_pending("get_targets", preemptor, snapshot)
    return checked_classic_targets(preemptor, cluster_queue, assignment, snapshot, config=config, now=now, trace=trace)

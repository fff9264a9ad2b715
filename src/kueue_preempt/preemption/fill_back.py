"""Minimisation by fill-back (FB-1..FB-3), shared by classic and fair-sharing preemption."""

from __future__ import annotations

from typing import Callable, TypeVar

from kueue_preempt.model import Workload
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.preemption.common.trace import DecisionTrace, Verdict

__all__ = ["fill_back"]

T = TypeVar("T")


def fill_back(
    snapshot: Snapshot,
    targets: list[T],
    workload_of: Callable[[T], Workload],
    fits: Callable[[], bool],
    trace: DecisionTrace | None = None,
    fits_with: Callable[[T], bool] | None = None,
    readmit: Callable[[T], None] | None = None,
) -> list[T]:
    """Re-admit every target the preemptor does not need, newest selection first (FB-2).

    Entry state: every target removed from ``snapshot``. The last target is never
    reconsidered (GT-6). A re-admitted target is swap-removed, which permutes the
    list exactly as Kueue does (GT-7). Only the fit is re-tested (FB-3). Returns the
    kept targets; on return they are removed from ``snapshot`` and the rest re-added.

    ``fits_with(target)``, if given, answers ``fits()`` as if the target were re-added,
    without adding it (:meth:`~kueue_preempt.snapshot.quota.Snapshot.fits_with`): most targets are
    needed, and then the snapshot is not changed twice for nothing. The answers are the same.
    ``readmit(target)``, if given, re-admits a target instead of ``add_workload`` (with
    ``fits_with``: classic attempts remove only the usage, :meth:`Snapshot.take_usage`).
    """
    result = list(targets)
    for i in range(len(result) - 2, -1, -1):
        w = workload_of(result[i])
        if fits_with is not None:
            back = fits_with(result[i])
            if back:
                if readmit is not None:
                    readmit(result[i])
                else:
                    snapshot.add_workload(w)
        else:
            snapshot.add_workload(w)
            back = fits()
        if back:
            result[i] = result[-1]
            result.pop()
            if trace is not None:
                trace.add(Verdict.READMITTED, "FB-2", "the preemptor still fits with it back", w.key, w.cluster_queue)
        else:
            if fits_with is None:
                snapshot.remove_workload(w)
            if trace is not None:
                trace.add(Verdict.INFO, "FB-2", "needed: the preemptor does not fit with it back", w.key, w.cluster_queue)
    return result

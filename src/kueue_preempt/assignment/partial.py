"""Partial admission (FAS-14) and the assign-then-preempt step around it (FAS-13).

:func:`search_counts` is Kueue's ``PodSetReducer.Search``: a binary search over reductions
of the pod counts. :func:`assign_with_targets` runs the whole FAS-13/FAS-14 decision: assign,
ask :func:`~kueue_preempt.get_targets` when the assignment needs preemption, and fall back to
partial admission when neither fits.
"""

from __future__ import annotations

from datetime import datetime
from typing import Callable, Iterable, Mapping, Protocol, Sequence, TypeVar

import attrs

from kueue_preempt._util.checks import bool_field, model_instance, model_iterable
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model.flavors import ResourceFlavor
from kueue_preempt.model import Assignment, FlavorAssignmentMode, Target, Workload
from kueue_preempt.preemption.targets import get_targets
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.preemption.common.trace import DecisionTrace, Verdict
from kueue_preempt.assignment.args import check_assign_args, check_callable
from kueue_preempt.assignment.assigner import run_assignment
from kueue_preempt.assignment.gates import AssignmentGates, QuotaCheckStrategy
from kueue_preempt.assignment.oracle import PreemptionOracle
from kueue_preempt.assignment.result import FlavorAssignment

__all__ = ["search_counts", "TargetFinder", "AssignmentDecision", "assign_with_targets"]

T = TypeVar("T")


def search_counts(
    counts: Sequence[int], min_counts: Sequence[int | None], attempt: Callable[[list[int]], tuple[T, bool]]
) -> tuple[T | None, bool]:
    """FAS-14: the smallest reduction step whose probe succeeds (success assumed monotone).

    ``attempt(counts)`` returns ``(result, ok)``. Returns the last successful probe's result
    and whether the search found one; with nothing to reduce (``D = 0``) nothing is probed.
    """
    deltas = [c - (m if m is not None else c) for c, m in zip(counts, min_counts)]
    d = sum(deltas)
    if d <= 0:
        return None, False
    lo, hi = 0, d + 1
    last_ok = 0
    last: T | None = None
    while lo < hi:
        j = (lo + hi) // 2
        res, ok = attempt([c - (delta * j) // d for c, delta in zip(counts, deltas)])
        if ok:
            last_ok, last, hi = j, res, j
        else:
            lo = j + 1
    return last, lo == last_ok


class TargetFinder(Protocol):
    """``get_targets``-shaped callable: ``(workload, cluster_queue, assignment, snapshot) -> targets``."""

    def __call__(
        self, workload: Workload, cluster_queue: str, assignment: Assignment, snapshot: Snapshot, /
    ) -> list[Target]: ...


def _decision_targets(value: Iterable[Target]) -> tuple[Target, ...]:
    return model_iterable(value, Target, "AssignmentDecision", "targets")


def _decision_assignment(inst: object, attr: attrs.Attribute[FlavorAssignment], value: object) -> None:
    model_instance(value, FlavorAssignment, "AssignmentDecision", attr.name)


@attrs.frozen
class AssignmentDecision:
    """FAS-13's outcome: the assignment used and the targets to evict (may be empty)."""

    assignment: FlavorAssignment = attrs.field(validator=_decision_assignment)
    targets: tuple[Target, ...] = attrs.field(default=(), converter=_decision_targets)
    partial: bool = attrs.field(default=False, validator=bool_field("AssignmentDecision"))
    """True when the assignment is a partial-admission reduction (FAS-14)."""

    @property
    def admissible(self) -> bool:
        """Fits now, or fits once ``targets`` are evicted."""
        mode = self.assignment.mode
        return mode is FlavorAssignmentMode.FIT or (mode is FlavorAssignmentMode.PREEMPT and bool(self.targets))


def assign_with_targets(
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    resource_flavors: Mapping[str, ResourceFlavor] | Iterable[ResourceFlavor],
    *,
    config: PreemptionConfig = PreemptionConfig(),
    gates: AssignmentGates = AssignmentGates(),
    quota_check: QuotaCheckStrategy | str = QuotaCheckStrategy.BLOCK_UNDECLARED,
    oracle: PreemptionOracle | None = None,
    targets: TargetFinder | None = None,
    progress: Sequence[Mapping[str, int]] | None = None,
    pinned: Mapping[str, Mapping[str, str]] | None = None,
    now: datetime | None = None,
    trace: DecisionTrace | None = None,
) -> AssignmentDecision:
    """FAS-13 + FAS-14: assign, find targets for a ``Preempt`` assignment, else try partial admission.

    ``targets`` defaults to :func:`~kueue_preempt.get_targets` with ``config`` and ``now``.
    ``progress`` and ``pinned`` (see :func:`assign_flavors`) apply to every probe of the
    partial-admission search too; an offline one-shot decision passes neither. Arguments are
    checked once, before the first probe (:class:`~kueue_preempt.errors.InvalidArgument`).
    """
    fn = "assign_with_targets"
    checked = check_assign_args(
        fn, workload, cluster_queue, snapshot, resource_flavors,
        config, gates, quota_check, oracle, None, progress, pinned, now, trace,
    )  # fmt: skip
    check_callable(targets, fn, "targets", "a TargetFinder")

    def find(a: FlavorAssignment) -> list[Target]:
        if targets is not None:
            return targets(workload, cluster_queue, a.to_assignment(), snapshot)
        return get_targets(workload, cluster_queue, a.to_assignment(), snapshot, config=config, now=now, trace=trace)

    def run(counts: Sequence[int] | None) -> AssignmentDecision:
        probe = checked if counts is None else attrs.evolve(checked, counts=tuple(counts))
        a = run_assignment(workload, cluster_queue, snapshot, probe, config, gates, oracle, now, trace)
        found = find(a) if a.mode is FlavorAssignmentMode.PREEMPT else []
        return AssignmentDecision(a, tuple(found), counts is not None)

    full = run(None)
    if full.admissible or not gates.partial_admission:
        return full
    specs = workload.spec_pod_sets
    result, ok = search_counts(
        [ps.count for ps in specs], [ps.min_count for ps in specs], lambda c: (lambda d: (d, d.admissible))(run(c))
    )
    if ok and result is not None:
        if trace is not None:
            trace.add(Verdict.INFO, "FAS-14", "partial admission: reduced counts " + ", ".join(
                f"{ps.name}={ps.count}" for ps in result.assignment.pod_sets), workload.key, cluster_queue)
        return result
    return full

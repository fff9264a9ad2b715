"""Mutants of classic preemption results (``get_targets`` with ``fair_sharing=None``).

Three operators, each yielding only answers the specification rejects:

* ``"drop-target"``: one target removed. Wrong when the rest does not make the preemptor fit
  even with borrowing (GT-4), or when the candidate order is strict (no ORD ties or cycles,
  :func:`~kueue_preempt.testing.invariants.classic.candidate_order_is_strict`), so the spec's
  answer is unique and the library's answer (which must pass the checker first) is it.
  Otherwise skipped: with tied candidates another tie order may select the smaller set.
* ``"add-non-target"``: an admitted workload that is not a target added, with its spec reason
  when it is a candidate (CL-VAR-2). Wrong when it is no candidate at all (CL-GEN), when the
  order is strict, when the set is empty and evicting the workload does not make room
  (GT-4), or by FB-2: with the original targets gone the preemptor fits with borrowing, so
  the larger set is not minimal for the borrowing attempt, and it is not a no-borrow
  answer either when the original targets already fit without borrowing or the larger set
  does not. Otherwise skipped.
* ``"wrong-reason"``: a target with another reason among ``InClusterQueue``,
  ``InCohortReclamation`` and ``InCohortReclaimWhileBorrowing``. Always wrong: a workload has
  one variant, and the reason is fixed by it (CL-VAR-1, CL-VAR-2).
"""

from __future__ import annotations

from typing import Iterator, Sequence

import attrs

from kueue_preempt import PreemptionReason, Target, Workload
from kueue_preempt.testing.invariants.classic import (
    REASON_OF_VARIANT,
    candidate_order_is_strict,
    expected_variant,
)
from kueue_preempt.testing.invariants.quota import SpecTree
from kueue_preempt.testing.mutations.mutant import Mutant
from kueue_preempt.testing.strategies.classic import ClassicScenario

__all__ = ["CLASSIC_OPERATORS", "classic_mutants"]

CLASSIC_OPERATORS = ("drop-target", "add-non-target", "wrong-reason")
"""The operators :func:`classic_mutants` yields."""

_CLASSIC_REASONS = (
    PreemptionReason.IN_CLUSTER_QUEUE,
    PreemptionReason.IN_COHORT_RECLAMATION,
    PreemptionReason.IN_COHORT_RECLAIM_WHILE_BORROWING,
)


def _fits(scenario: ClassicScenario, removed: set[str], *, allow_borrowing: bool) -> bool:
    """GT-5 on the spec's quota model, with the workloads ``removed`` evicted."""
    tree = SpecTree(scenario, [w for w in scenario.workloads if w.key not in removed])
    return tree.fits(scenario.cluster_queue, scenario.assignment.requests, allow_borrowing=allow_borrowing)


def classic_mutants(scenario: ClassicScenario, targets: Sequence[Target]) -> Iterator[Mutant[list[Target]]]:
    """Wrong classic answers derived from ``targets`` (a correct answer for ``scenario``).

    Cost: one ORD strictness test, one classification per admitted workload and a few quota
    model fits per mutant.
    """
    targets = list(targets)
    keys = {t.workload.key for t in targets}
    strict = candidate_order_is_strict(scenario)
    fits_true = _fits(scenario, keys, allow_borrowing=True)
    fits_false = _fits(scenario, keys, allow_borrowing=False)

    for i, t in enumerate(targets):
        rest = targets[:i] + targets[i + 1 :]
        if strict or not _fits(scenario, keys - {t.workload.key}, allow_borrowing=True):
            yield Mutant("drop-target", f"dropped {t.workload.key} ({t.reason.value})", rest)

    entry = SpecTree(scenario, scenario.workloads)
    for w in scenario.workloads:
        if w.key in keys:
            continue
        variant = expected_variant(scenario, entry, w).variant
        if variant is not None:
            reason = PreemptionReason(REASON_OF_VARIANT[variant])
        elif w.cluster_queue == scenario.cluster_queue:
            reason = PreemptionReason.IN_CLUSTER_QUEUE
        else:
            reason = PreemptionReason.IN_COHORT_RECLAMATION
        bigger = keys | {w.key}
        if targets:
            wrong = fits_true and (fits_false or not _fits(scenario, bigger, allow_borrowing=False))
        else:
            wrong = not _fits(scenario, bigger, allow_borrowing=True)
        if variant is None or strict or wrong:
            yield Mutant(
                "add-non-target",
                f"added {w.key} ({reason.value}{'' if variant else ', not a candidate'})",
                [*targets, _target(w, reason)],
            )

    for i, t in enumerate(targets):
        for reason in _CLASSIC_REASONS:
            if reason != t.reason:
                mutated = attrs.evolve(t, reason=reason)
                yield Mutant(
                    "wrong-reason",
                    f"{t.workload.key}: {t.reason.value} -> {reason.value}",
                    [*targets[:i], mutated, *targets[i + 1 :]],
                )


def _target(w: Workload, reason: PreemptionReason) -> Target:
    return Target(workload=w, reason=reason, cluster_queue=w.cluster_queue)

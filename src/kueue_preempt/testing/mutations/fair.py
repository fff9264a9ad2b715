"""Wrong fair-sharing preemption answers made on purpose (for mutation tests of checkers).

Operators: ``drop-target`` (one target left out), ``add-non-target`` (an admitted workload
that is not a target added, with the reason MSG-1 would give it; fair-sharing candidates
are preferred, FS-CAND-1/2) and ``wrong-reason`` (one target's reason replaced by another
MSG-1 reason).

A mutant is yielded only when the spec rejects it: its ``(workload, reason)`` set must not be
an answer of :func:`~kueue_preempt.testing.invariants.fair.fair_answers` for any order of
ORD-tied candidates (ORD-7). When too many tie orders exist to enumerate, ``drop-target``
and ``add-non-target`` yield nothing (a changed set might be another accepted answer);
``wrong-reason`` is always wrong, because MSG-1 and FS-NOM-1 fix the reason of every target
from its queue alone.
"""

from __future__ import annotations

from typing import Iterator, Sequence

import attrs

from kueue_preempt import PreemptionReason, Target
from kueue_preempt.testing.invariants.fair import expected_reason, fair_answers, fair_candidates
from kueue_preempt.testing.mutations.mutant import Mutant
from kueue_preempt.testing.strategies.fair import FairScenario

__all__ = ["fair_mutants"]


def fair_mutants(scenario: FairScenario, targets: Sequence[Target]) -> Iterator[Mutant[list[Target]]]:
    """Every applicable mutant of ``targets``. Cost: one :func:`fair_answers` enumeration."""
    runs = fair_answers(scenario)
    accepted = None if runs is None else {frozenset(r.targets) for r in runs}

    def wrong(result: Sequence[Target]) -> bool:
        return accepted is not None and frozenset((t.workload.key, t.reason.value) for t in result) not in accepted

    for i, t in enumerate(targets):
        dropped = [*targets[:i], *targets[i + 1 :]]
        if wrong(dropped):
            yield Mutant("drop-target", f"drop {t.workload.key}", dropped)

    keys = {t.workload.key for t in targets}
    candidates = fair_candidates(scenario)
    outside = [w for w in scenario.workloads if w.key not in keys]
    preferred = [w for w in outside if w.key in candidates] or outside
    for w in preferred:
        added = [*targets, Target(w, PreemptionReason(expected_reason(scenario, w)), w.cluster_queue)]
        if wrong(added):
            yield Mutant("add-non-target", f"add {w.key} ({added[-1].reason.value})", added)

    for i, t in enumerate(targets):
        for reason in PreemptionReason:
            if reason is t.reason:
                continue
            changed = list(targets)
            changed[i] = attrs.evolve(t, reason=reason)
            yield Mutant("wrong-reason", f"{t.workload.key}: {t.reason.value} -> {reason.value}", changed)

"""Wrong scheduling cycles made on purpose from the library's (kueue-scheduling-cycle.md).

:func:`cycle_mutants` changes the per-head results of a
:class:`~kueue_preempt.cycle.CycleResult` (``attrs.evolve``), which is what the cycle
checkers read, and keeps the queue memory (``queues``) consistent with them; the result's
``cluster`` and ``events`` are left as they were (the checkers do not read them).
A cycle is deterministic under the spec's decisions (SC-CY-2 head order, SC-ORD-2 stable
sort, SC-FS-3 name-ordered tournament), so each change below is a wrong answer, except
where a docstring says the operator skips it.
"""

from __future__ import annotations

from typing import Iterator

import attrs

from kueue_preempt import PodSetUsage
from kueue_preempt.cycle import ClusterQueueQueue, CycleResult, HeadResult, Outcome, RequeueReason
from kueue_preempt.testing.mutations.mutant import Mutant
from kueue_preempt.testing.strategies.cycle import CycleScenario

__all__ = ["cycle_mutants"]

_NO_LONGER_FITS = "Workload no longer fits after processing another workload"


def _with(result: CycleResult, index: int, head: HeadResult) -> CycleResult:
    results = list(result.results)
    results[index] = head
    return attrs.evolve(result, results=tuple(results))


def _flavors(scenario: CycleScenario, cq: str, resource: str) -> list[str]:
    for q in scenario.cluster.cluster_queues:
        if q.name == cq:
            for g in q.resource_groups:
                if resource in g.covered_resources:
                    return [f.name for f in g.flavors]
    return []


def _root(scenario: CycleScenario, cq: str) -> str:
    """The root of ``cq``'s cohort tree (``cq`` itself without a cohort)."""
    parents = {c.name: c.parent for c in scenario.cluster.cohorts}
    node = next((q.cohort for q in scenario.cluster.cluster_queues if q.name == cq), None)
    if node is None:
        return "cq/" + cq
    seen: set[str] = set()
    while node not in seen:
        seen.add(node)
        parent = parents.get(node)
        if parent is None:
            break
        node = parent
    return "cohort/" + node


def _requeued(result: CycleResult, r: HeadResult, where: str | None) -> CycleResult:
    """``result`` with ``r``'s workload moved to the ``where`` set of its ClusterQueue's queue
    (``None``: out of the queues, as an admission takes it, SC-AD-1), and a preemptor marker
    naming it dropped when it leaves the queues (SC-RQ-6), so the queue memory agrees with the
    mutated result."""
    queues = dict(result.queues.queues)
    q = queues.get(r.cluster_queue, ClusterQueueQueue())
    active, parked = set(q.active) - {r.key}, set(q.inadmissible) - {r.key}
    if where == "active":
        active.add(r.key)
    elif where == "inadmissible":
        parked.add(r.key)
    marker = None if where is None and q.preemptor is not None and q.preemptor.key == r.key else q.preemptor
    queues[r.cluster_queue] = attrs.evolve(q, active=active, inadmissible=parked, preemptor=marker)
    return attrs.evolve(result, queues=attrs.evolve(result.queues, queues=queues))


def _drop(result: CycleResult, i: int, r: HeadResult) -> Mutant[CycleResult]:
    head = attrs.evolve(
        r,
        outcome=Outcome.SKIPPED,
        requeue_reason=RequeueReason.FAILED_AFTER_NOMINATION,
        queue="active",
        reason="WaitingForQuota",  # SC-MSG-1 with UnadmittedWorkloadsObservability on
        message=_NO_LONGER_FITS,
        admission=None,
    )
    mutated = _requeued(_with(result, i, head), r, "active")
    return Mutant("wrong-admitted-set", f"{r.key} skipped instead of admitted", mutated)


def _admit(scenario: CycleScenario, result: CycleResult, i: int, r: HeadResult) -> Mutant[CycleResult]:
    w = next(w for w in scenario.cluster.workloads if w.key == r.key)
    pod_sets = []
    for ps in w.spec_pod_sets:
        flavors = {}
        for res, v in ps.requests.items():
            options = _flavors(scenario, r.cluster_queue, res)
            if v > 0 and options:
                flavors[res] = options[0]
        pod_sets.append(PodSetUsage(ps.name, ps.count, flavors, {res: v * ps.count for res, v in ps.requests.items()}))
    head = attrs.evolve(
        r,
        outcome=Outcome.ADMITTED,
        requeue_reason=None,
        queue=None,
        reason="",
        message="",
        admission=tuple(pod_sets),
        targets=(),
    )
    mutated = _requeued(_with(result, i, head), r, None)
    return Mutant("wrong-admitted-set", f"{r.key} admitted instead of {r.outcome.value}", mutated)


def cycle_mutants(scenario: CycleScenario, result: CycleResult) -> Iterator[Mutant[CycleResult]]:
    """Mutants of one cycle's results.

    * ``wrong-admitted-set``: an admitted head reported skipped ("no longer fits",
      requeued active), or a processed head that was not admitted (``NoFit``,
      ``NoCandidates``, skipped, deferred or preempting) reported admitted with its full
      count on its ClusterQueue's first flavor (its targets dropped).
    * ``swap-order``: two admitted heads swapped in the processing order. Without fair
      sharing any two (one sorted list, SC-ORD-1/SC-ORD-2). With fair sharing only two of the
      same cohort tree: trees are independent and their interleaving changes no outcome
      (SC-FS-1), so a swap across trees is skipped.
    * ``wrong-flavor``: an admitted head's resources moved to another flavor of its
      ClusterQueue (or, for a one-flavor queue, to another flavor of the cluster).
    """
    all_flavors = [f.name for f in scenario.cluster.flavors]
    admitted = [(i, r) for i, r in enumerate(result.results) if r.outcome is Outcome.ADMITTED]
    for i, r in admitted:
        yield _drop(result, i, r)
    for i, r in enumerate(result.results):
        if r.outcome in (Outcome.NO_FIT, Outcome.NO_CANDIDATES, Outcome.SKIPPED, Outcome.DEFERRED_FIT, Outcome.PREEMPTING):
            yield _admit(scenario, result, i, r)
    fair = scenario.config.fair_sharing
    for a in range(len(admitted)):
        for b in range(a + 1, len(admitted)):
            (i, ra), (j, rb) = admitted[a], admitted[b]
            if fair and _root(scenario, ra.cluster_queue) != _root(scenario, rb.cluster_queue):
                continue
            results = list(result.results)
            results[i], results[j] = rb, ra
            yield Mutant("swap-order", f"{rb.key} processed before {ra.key}", attrs.evolve(result, results=tuple(results)))
    for i, r in admitted:
        if r.admission is None:
            continue
        for p, ps in enumerate(r.admission):
            for res, f in ps.flavors.items():
                own = _flavors(scenario, r.cluster_queue, res)
                others = [g for g in own if g != f] or [g for g in all_flavors if g != f]
                for g in others:
                    flavors = dict(ps.flavors)
                    flavors[res] = g
                    pod_sets = list(r.admission)
                    pod_sets[p] = attrs.evolve(ps, flavors=flavors)
                    head = attrs.evolve(r, admission=tuple(pod_sets))
                    yield Mutant("wrong-flavor", f"{r.key}/{ps.name} {res} on {g} instead of {f}", _with(result, i, head))


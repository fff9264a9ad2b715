"""Wrong flavor assignments made on purpose, for the mutation test of :func:`check_assignment`.

Operators:

* ``wrong-flavor``: one resource group of one pod set moves to another flavor of that group
  (all its resources together, usage recomputed, so FAS-4 and the aggregates still hold);
* ``wrong-mode``: one entry's mode flips ``Fit``↔``Preempt``, or its borrowing level changes
  (the assignment's level recomputed), or a ``Fit`` pod set turns ``NoFit`` (flavors dropped, a
  reason added), or a ``Preempt``/``NoFit`` pod set turns ``Fit`` (its reasons dropped);
* ``wrong-count``: where partial admission can apply (the gate on and some pod set with
  ``minCount < count``), one pod set gets another count in ``[minCount, count]``, requests and
  usage rescaled (FAS-14).

Every mutant is wrong per the spec: for generated scenarios the scan is deterministic and the
preemption candidate order strict, so the spec fixes one flavor, mode, level and count per pod
set (:func:`~kueue_preempt.testing.invariants.assignment.reference_assignment`); a change that
leaves the result equal is never yielded.
"""

from __future__ import annotations

from typing import Iterator

import attrs

from kueue_preempt import FlavorResource
from kueue_preempt.assignment import (
    AssignmentDecision,
    FlavorAssignment,
    PodSetAssignment,
    PodSetStatus,
    ResourceAssignment,
)
from kueue_preempt.model import FlavorAssignmentMode
from kueue_preempt.testing.mutations.mutant import Mutant
from kueue_preempt.testing.strategies.assignment import AssignmentScenario

__all__ = ["assignment_mutants"]

FIT, PREEMPT, NO_FIT = FlavorAssignmentMode.FIT, FlavorAssignmentMode.PREEMPT, FlavorAssignmentMode.NO_FIT


def _rebuild(d: AssignmentDecision, index: int, ps: PodSetAssignment) -> AssignmentDecision:
    """``d`` with pod set ``index`` replaced; borrowing and usage recomputed (FAS-13, FAS-19)."""
    pod_sets = list(d.assignment.pod_sets)
    pod_sets[index] = ps
    usage: dict[FlavorResource, int] = {}
    borrowing = 0
    for p in pod_sets:
        for r, c in p.flavors.items():
            borrowing = max(borrowing, c.borrow)
            fr = FlavorResource(c.flavor, r)
            usage[fr] = usage.get(fr, 0) + p.requests[r]
    a = FlavorAssignment(pod_sets, borrowing, usage, d.assignment.no_fit_reason)
    return attrs.evolve(d, assignment=a)


def _wrong_flavor(s: AssignmentScenario, d: AssignmentDecision) -> Iterator[Mutant[AssignmentDecision]]:
    for i, ps in enumerate(d.assignment.pod_sets):
        for g in s.queue.resource_groups:
            mine = [r for r in g.covered_resources if r in ps.flavors]
            if not mine:
                continue
            current = ps.flavors[mine[0]].flavor
            for other in g.flavor_names:
                if other == current:
                    continue
                flavors = dict(ps.flavors)
                for r in mine:
                    flavors[r] = attrs.evolve(flavors[r], flavor=other)
                yield Mutant(
                    "wrong-flavor",
                    f"{ps.name}: {'/'.join(mine)} on {other} instead of {current}",
                    _rebuild(d, i, attrs.evolve(ps, flavors=flavors)),
                )


def _wrong_mode(s: AssignmentScenario, d: AssignmentDecision) -> Iterator[Mutant[AssignmentDecision]]:
    for i, ps in enumerate(d.assignment.pod_sets):
        for r, c in ps.flavors.items():
            flipped = PREEMPT if c.mode is FIT else FIT
            flavors = dict(ps.flavors)
            flavors[r] = attrs.evolve(c, mode=flipped)
            yield Mutant(
                "wrong-mode",
                f"{ps.name}/{r}: {flipped.value} instead of {c.mode.value}",
                _rebuild(d, i, attrs.evolve(ps, flavors=flavors)),
            )
            for borrow in {c.borrow + 1, 0 if c.borrow else 1}:
                flavors = dict(ps.flavors)
                flavors[r] = ResourceAssignment(c.flavor, c.mode, c.tried_flavor_idx, borrow)
                yield Mutant(
                    "wrong-mode",
                    f"{ps.name}/{r}: borrowing level {borrow} instead of {c.borrow}",
                    _rebuild(d, i, attrs.evolve(ps, flavors=flavors)),
                )
        if ps.mode is FIT and ps.flavors:
            status = PodSetStatus([f"flavor {next(iter(ps.flavors.values())).flavor} not found"])
            yield Mutant(
                "wrong-mode",
                f"{ps.name}: NoFit instead of Fit",
                _rebuild(d, i, attrs.evolve(ps, flavors={}, status=status)),
            )
        if ps.mode is not FIT:
            yield Mutant(
                "wrong-mode", f"{ps.name}: Fit instead of {ps.mode.value}", _rebuild(d, i, attrs.evolve(ps, status=PodSetStatus()))
            )


def _wrong_count(s: AssignmentScenario, d: AssignmentDecision) -> Iterator[Mutant[AssignmentDecision]]:
    if not s.gates.partial_admission:
        return
    specs = s.workload.spec_pod_sets
    if all(p.min_count is None or p.min_count == p.count for p in specs):
        return
    for i, ps in enumerate(d.assignment.pod_sets):
        spec = specs[ps.spec_index]
        low = spec.count if spec.min_count is None else spec.min_count
        for n in range(low, spec.count + 1):
            if n == ps.count:
                continue
            requests = {r: v * n for r, v in spec.requests.items()}
            if "pods" in ps.requests:
                requests["pods"] = n  # FAS-1: the ClusterQueue covers pods
            yield Mutant(
                "wrong-count",
                f"{ps.name}: count {n} instead of {ps.count}",
                _rebuild(d, i, attrs.evolve(ps, count=n, requests=requests)),
            )


def assignment_mutants(s: AssignmentScenario, d: AssignmentDecision) -> Iterator[Mutant[AssignmentDecision]]:
    """The ``wrong-flavor``, ``wrong-mode`` and ``wrong-count`` mutants of ``d`` (module docstring)."""
    yield from _wrong_flavor(s, d)
    yield from _wrong_mode(s, d)
    yield from _wrong_count(s, d)

"""Wrong PodGroup preemption results made on purpose (mutants of a right one).

:func:`podgroup_mutants` yields three operators:

* ``"drop-target"`` — one victim unit is missing (its pods, its ``victim_units`` entry and its
  share of the counters), or, for a multi-pod ``All`` group, one of its pods. Always wrong on
  success: the placement no longer fits (PG-27 offered that unit reprieve and it broke the
  placement), or a group is preempted in part (PG-8).
* ``"add-non-target"`` — a running pod that was not chosen is added, with its whole unit (or
  alone, when its unit is an ``All`` group that then is preempted in part). Always wrong: the
  added unit is either not a candidate (priority, PG-23 / the level ``N``) or could be
  reprieved, because the placement fitted with it running (PG-27); on a result that is not a
  success nothing may be preempted at all.
* ``"wrong-reason"`` — the result carries no per-victim reason, so this operator falsifies the
  facts that play that role for a group preemptor: the status code (success for a refused or
  unplaceable group, or the other way round: PG-21, PG-23, PG-26), the nominated node of one
  placed pod (another node; PG-28 and FIT-3 fix each nomination once ``N`` is known), a placed
  pod left without nomination (PG-28: every placed pod is nominated), and the group attribution
  counters (``num_podgroup_disruptions`` or ``num_pdb_violations`` off by one: PG-28, PDB-5).
  Each of these contradicts the spec whatever the tie-breaks, so none of them is ever a valid
  alternative answer.

Mutants keep the result's other fields consistent where that is possible, so that a checker
has to find the actual mistake.
"""

from __future__ import annotations

from typing import Iterator

import attrs

from kueue_preempt.podgroup import (
    NOT_STARTED,
    ClassifiedUnit,
    Pod,
    PodGroupPreemptionResult,
    PreemptionUnit,
    Status,
    StatusCode,
    UnitType,
)
from kueue_preempt.testing.invariants.podgroup import PodGroupUnit, podgroup_units
from kueue_preempt.testing.mutations.mutant import Mutant
from kueue_preempt.testing.strategies.podgroup import PodGroupScenario

__all__ = ["podgroup_mutants"]

Result = PodGroupPreemptionResult


def _drop_unit(result: Result, index: int) -> Result:
    gone = result.victim_units[index]
    names = {p.name for p in gone.unit.pods}
    return attrs.evolve(
        result,
        victims=tuple(p for p in result.victims if p.name not in names),
        victim_units=result.victim_units[:index] + result.victim_units[index + 1 :],
        num_pdb_violations=result.num_pdb_violations - gone.violating_pods,
        num_podgroup_disruptions=result.num_podgroup_disruptions - int(gone.unit.references_pod_group),
    )


def _as_library_unit(unit: PodGroupUnit) -> PreemptionUnit:
    starts = [p.start_time for p in unit.pods if p.start_time is not None]
    return PreemptionUnit(
        key=unit.key,
        type=UnitType.POD_GROUP if unit.rank == 2 else UnitType.POD,
        priority=unit.priority,
        pods=unit.pods,
        earliest_start=min(starts) if starts else NOT_STARTED,
        nodes=tuple(sorted({p.node_name for p in unit.pods if p.node_name is not None})),
    )


def _add(result: Result, pods: tuple[Pod, ...], unit: PodGroupUnit) -> Result:
    library_unit = _as_library_unit(_part(unit, pods))
    return attrs.evolve(
        result,
        victims=result.victims + pods,
        victim_units=result.victim_units + (ClassifiedUnit(library_unit, 0),),
        num_podgroup_disruptions=result.num_podgroup_disruptions + int(pods[0].pod_group is not None),
    )


def _part(unit: PodGroupUnit, pods: tuple[Pod, ...]) -> PodGroupUnit:
    """``unit`` restricted to ``pods`` (a part of an ``All`` group, for a partial mutant)."""
    return PodGroupUnit(unit.key, pods, unit.priority, unit.rank)


def podgroup_mutants(scenario: PodGroupScenario, result: Result) -> Iterator[Mutant[Result]]:
    """Every mutant of ``result`` for the three operators (see the module docstring).

    Cost: O(victims + running pods + nodes) mutants, each built in O(victims).
    """
    victims = {p.name for p in result.victims}
    # drop-target
    for i, c in enumerate(result.victim_units):
        yield Mutant("drop-target", f"victim unit {c.unit.key} dropped", _drop_unit(result, i))
        if len(c.unit.pods) > 1:
            pod = c.unit.pods[-1]
            yield Mutant(
                "drop-target",
                f"pod {pod.name} of {c.unit.key} dropped",
                attrs.evolve(result, victims=tuple(p for p in result.victims if p.name != pod.name)),
            )
    # add-non-target
    for unit in podgroup_units(scenario):
        if unit.names & victims:
            continue
        yield Mutant("add-non-target", f"unit {unit.key} added", _add(result, unit.pods, unit))
        if len(unit.pods) > 1:
            yield Mutant("add-non-target", f"pod {unit.pods[0].name} of {unit.key} added", _add(result, unit.pods[:1], unit))
    # wrong-reason
    code = result.status.code
    if code is StatusCode.SUCCESS:
        yield Mutant(
            "wrong-reason", "status Unschedulable for a group that can be placed", attrs.evolve(result, status=Status.of(StatusCode.UNSCHEDULABLE, "mutant"))
        )
    else:
        yield Mutant(
            "wrong-reason", f"status Success for a {code.value} group", attrs.evolve(result, status=Status.of(StatusCode.SUCCESS, "mutant"))
        )
    nominations = list(result.nominations.items())
    frozen = type(result.nominations)  # the result's own immutable mapping type
    nodes = [n.name for n in scenario.nodes]
    for i, (member, node) in enumerate(nominations):
        for other in nodes:
            if other != node:
                moved = dict(nominations[:i] + [(member, other)] + nominations[i + 1 :])
                yield Mutant(
                    "wrong-reason",
                    f"{member} nominated to {other} instead of {node}",
                    attrs.evolve(result, nominations=frozen(moved)),
                )
        rest = dict(nominations[:i] + nominations[i + 1 :])
        yield Mutant("wrong-reason", f"{member} left without nomination", attrs.evolve(result, nominations=frozen(rest)))
    if result.victim_units:
        yield Mutant(
            "wrong-reason",
            "one PodGroup disruption too many",
            attrs.evolve(result, num_podgroup_disruptions=result.num_podgroup_disruptions + 1),
        )
        yield Mutant(
            "wrong-reason", "one PDB violation too many", attrs.evolve(result, num_pdb_violations=result.num_pdb_violations + 1)
        )

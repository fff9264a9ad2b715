"""Every decision kind the testing helpers cover, in one table.

A :class:`Kind` bundles what a property test of one decision needs: the strategy, the
library's decision, the checker, the mutants, what counts as a non-empty answer and which
mutation operators the checker must reject. :func:`measure_kind` runs
:func:`~kueue_preempt.testing.mutations.measure` on one of them; the project's report of the
figures (``benchmarks/testing_rates.py``) and its mutation tests read the same table.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import attrs
from hypothesis import strategies as st

from kueue_preempt.assignment import AssignmentDecision
from kueue_preempt.cycle import CycleResult
from kueue_preempt.errors import UnknownReference
from kueue_preempt.model import FlavorAssignmentMode
from kueue_preempt.podgroup import PodGroupPreemptionResult
from kueue_preempt.testing import invariants, mutations, strategies
from kueue_preempt.testing.mutations import Measurement, Mutant

__all__ = ["Kind", "KINDS", "measure_kind"]


@attrs.frozen
class Kind:
    """One decision kind of :mod:`kueue_preempt.testing`."""

    name: str
    scenarios: Callable[..., st.SearchStrategy[Any]]
    """``<kind>_scenarios``: call it (with knobs) for the strategy."""
    check: Callable[[Any, Any], None]
    """``check_<kind>(scenario, result)``."""
    mutants: Callable[[Any, Any], Iterable[Mutant[Any]]]
    """``<kind>_mutants(scenario, result)``."""
    nonempty: Callable[[Any], bool]
    """Whether an answer does something (targets, victims, an admission, a non-Fit mode)."""
    operators: tuple[str, ...]
    """The mutation operators the checker must reject in at least 80 % of the scenarios where
    they apply."""
    answer: str
    """What ``nonempty`` counts, in words (for reports)."""

    def decide(self, scenario: Any) -> Any:
        """The library's answer: ``scenario.decide()``."""
        return scenario.decide()


def _targets(result: Any) -> bool:
    return bool(result)


def _assignment_not_fit(decision: AssignmentDecision) -> bool:
    return decision.assignment.mode is not FlavorAssignmentMode.FIT


def _cycle_acts(result: CycleResult) -> bool:
    return bool(result.admitted or result.preempted)


def _podgroup_victims(result: PodGroupPreemptionResult) -> bool:
    return bool(result.victims)


_PREEMPTION_OPERATORS = ("drop-target", "add-non-target", "wrong-reason")

KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind(
            "classic",
            strategies.classic_scenarios,
            invariants.check_classic,
            mutations.classic_mutants,
            _targets,
            _PREEMPTION_OPERATORS,
            "needs at least one target",
        ),
        Kind(
            "fair",
            strategies.fair_scenarios,
            invariants.check_fair,
            mutations.fair_mutants,
            _targets,
            _PREEMPTION_OPERATORS,
            "needs at least one target",
        ),
        Kind(
            "assignment",
            strategies.assignment_scenarios,
            invariants.check_assignment,
            mutations.assignment_mutants,
            _assignment_not_fit,
            ("wrong-flavor", "wrong-mode", "wrong-count"),
            "is not Fit (Preempt or NoFit)",
        ),
        Kind(
            "cycle",
            strategies.cycle_scenarios,
            invariants.check_cycle,
            mutations.cycle_mutants,
            _cycle_acts,
            ("wrong-admitted-set", "swap-order", "wrong-flavor"),
            "admits or preempts something",
        ),
        Kind(
            "podgroup",
            strategies.podgroup_scenarios,
            invariants.check_podgroup,
            mutations.podgroup_mutants,
            _podgroup_victims,
            _PREEMPTION_OPERATORS,
            "has at least one victim",
        ),
    )
}
"""The five decision kinds by name: classic, fair, assignment, cycle, podgroup."""


def measure_kind(name: str, *, examples: int = 200, random_seed: int = 0, **knobs: Any) -> Measurement[Any]:
    """:func:`~kueue_preempt.testing.mutations.measure` on kind ``name`` (its strategy drawn
    with ``knobs``). Cost: ``examples`` decisions and checks, plus one check per mutant tried."""
    kind = KINDS.get(name)
    if kind is None:
        raise UnknownReference("measure_kind", "name", name, f"decision kind (one of {', '.join(KINDS)})")
    return mutations.measure(
        kind.scenarios(**knobs),
        decide=kind.decide,
        check=kind.check,
        mutants=kind.mutants,
        nonempty=kind.nonempty,
        examples=examples,
        random_seed=random_seed,
    )

"""Mutation tests for checkers: wrong answers made on purpose, and the rate at which a checker rejects them.

``<kind>_mutants(scenario, result)`` yields :class:`Mutant` results (one target dropped, a
non-target added, a wrong reason, a wrong flavor, a swapped order, …) and :func:`measure`
reports how many of them a checker rejects.
"""

from __future__ import annotations

from kueue_preempt.testing.mutations.mutant import (
    Mutant,
    MutantsOf,
)
from kueue_preempt.testing.mutations.measure import (
    Measurement,
    OperatorRate,
    measure,
)
from kueue_preempt.testing.mutations.classic import (
    CLASSIC_OPERATORS,
    classic_mutants,
)
from kueue_preempt.testing.mutations.fair import (
    fair_mutants,
)
from kueue_preempt.testing.mutations.assignment import (
    assignment_mutants,
)
from kueue_preempt.testing.mutations.cycle import (
    cycle_mutants,
)
from kueue_preempt.testing.mutations.podgroup import (
    podgroup_mutants,
)

__all__ = [
    # mutant
    "Mutant",
    "MutantsOf",
    # measure
    "OperatorRate",
    "Measurement",
    "measure",
    # classic
    "CLASSIC_OPERATORS",
    "classic_mutants",
    # fair
    "fair_mutants",
    # assignment
    "assignment_mutants",
    # cycle
    "cycle_mutants",
    # podgroup
    "podgroup_mutants",
]

"""Mutation tests for checkers: wrong answers made on purpose, and the rate at which a checker rejects them.

``<kind>_mutants(scenario, result)`` yields :class:`Mutant` results (one target dropped, a
non-target added, a wrong reason, a wrong flavor, a swapped order, …) and :func:`measure`
reports how many of them a checker rejects.
"""

from __future__ import annotations

from kueue_preempt.testing.mutations.classic import CLASSIC_OPERATORS, classic_mutants
from kueue_preempt.testing.mutations.measure import Measurement, OperatorRate, measure
from kueue_preempt.testing.mutations.mutant import Mutant, MutantsOf

__all__ = [
    "Mutant",
    "MutantsOf",
    "Measurement",
    "OperatorRate",
    "measure",
    # classic
    "CLASSIC_OPERATORS",
    "classic_mutants",
]

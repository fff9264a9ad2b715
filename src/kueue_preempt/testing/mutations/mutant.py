"""A wrong answer made on purpose from a right one: the unit of a mutation test."""

from __future__ import annotations

from typing import Callable, Generic, Iterable, TypeVar

import attrs

__all__ = ["Mutant", "MutantsOf"]

R = TypeVar("R")
S = TypeVar("S")


@attrs.frozen
class Mutant(Generic[R]):
    """A result derived from the library's result by one mutation operator.

    ``operator`` names the kind of mistake (``"drop-target"``, ``"add-non-target"``,
    ``"wrong-reason"``, ``"wrong-flavor"``, ``"wrong-admitted-set"``, ``"swap-order"``, …),
    ``description`` says which object was changed, and ``result`` is the wrong answer, of the
    same type as the decision's own result. A mutant must be *wrong*: an operator yields
    nothing where its change would give an answer the specification also accepts (for
    example adding a workload that ties exactly with a target).
    """

    operator: str
    description: str
    result: R


MutantsOf = Callable[[S, R], Iterable[Mutant[R]]]
"""The signature of a ``<kind>_mutants(scenario, result)`` generator."""

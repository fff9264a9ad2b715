"""How strong a checker is: its kill rate on mutants, and how useful a strategy's draws are.

:func:`measure` runs a strategy for a fixed number of examples and reports, for the drawn
scenarios, the share with a non-empty answer, the share of draws the strategy discarded,
and, for every mutation operator, in how many scenarios it applied and in how many the
checker rejected the mutant. The project reports these figures for every decision kind
(``benchmarks/testing_rates.py``); use it the same way to show that a checker of your own
would catch a wrong answer.
"""

from __future__ import annotations

import random
from typing import Callable, Generic, Iterable, TypeVar

import attrs
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

from kueue_preempt.testing.mutations.mutant import Mutant

__all__ = ["OperatorRate", "Measurement", "measure"]

S = TypeVar("S")
R = TypeVar("R")


@attrs.frozen
class OperatorRate:
    """One mutation operator: scenarios where it applied, and where the checker rejected it."""

    operator: str
    applicable: int
    killed: int
    survivors: tuple[str, ...] = ()
    """Descriptions of up to five surviving mutants, for diagnosis."""

    @property
    def rate(self) -> float:
        """Share of applicable scenarios whose mutant was rejected (1.0 when none applied)."""
        return self.killed / self.applicable if self.applicable else 1.0


@attrs.frozen
class Measurement(Generic[S]):
    """The figures :func:`measure` reports for one strategy and checker."""

    examples: int
    """Valid scenarios drawn (and decided)."""
    discarded: int
    """Draws the strategy rejected (``assume`` or a filter) before producing a scenario."""
    nonempty: int
    """Scenarios whose answer was non-empty (``nonempty(result)``)."""
    operators: tuple[OperatorRate, ...]

    @property
    def nonempty_share(self) -> float:
        return self.nonempty / self.examples if self.examples else 0.0

    @property
    def discard_rate(self) -> float:
        """Discarded draws over all draws."""
        total = self.examples + self.discarded
        return self.discarded / total if total else 0.0

    def rate(self, operator: str) -> OperatorRate:
        """The figures of one operator (zero applicable when it never applied)."""
        for o in self.operators:
            if o.operator == operator:
                return o
        return OperatorRate(operator, 0, 0)

    def as_dict(self) -> dict[str, object]:
        """Plain data for a JSON report."""
        return {
            "examples": self.examples,
            "discarded": self.discarded,
            "discard_rate": self.discard_rate,
            "nonempty": self.nonempty,
            "nonempty_share": self.nonempty_share,
            "operators": {
                o.operator: {"applicable": o.applicable, "killed": o.killed, "rate": o.rate} for o in self.operators
            },
        }


def _rejects(check: Callable[[S, R], None], scenario: S, result: R) -> bool:
    try:
        check(scenario, result)
    except AssertionError:
        return True
    return False


def measure(
    strategy: st.SearchStrategy[S],
    *,
    decide: Callable[[S], R],
    check: Callable[[S, R], None],
    mutants: Callable[[S, R], Iterable[Mutant[R]]],
    nonempty: Callable[[R], bool] = bool,
    examples: int = 200,
    random_seed: int = 0,
) -> Measurement[S]:
    """Draw ``examples`` scenarios; decide, check, and try one mutant per operator on each.

    The library's own result must pass ``check`` (an ``AssertionError`` there propagates: it
    is a bug in the library or in the checker, not a figure). Per scenario and operator, one
    of the operator's mutants is chosen (seeded, so runs repeat) and counted as killed when
    ``check`` raises ``AssertionError`` for it.

    Cost: ``examples`` draws, decisions and checks, plus one check per operator and scenario.
    """
    counts = {"drawn": 0, "valid": 0, "nonempty": 0}
    applicable: dict[str, int] = {}
    killed: dict[str, int] = {}
    survivors: dict[str, list[str]] = {}
    rng = random.Random(random_seed)

    @st.composite
    def counted(draw: st.DrawFn) -> S:
        counts["drawn"] += 1
        scenario = draw(strategy)
        counts["valid"] += 1
        return scenario

    @seed(random_seed)
    @settings(
        max_examples=examples,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(counted())
    def run(scenario: S) -> None:
        result = decide(scenario)
        check(scenario, result)
        if nonempty(result):
            counts["nonempty"] += 1
        by_operator: dict[str, list[Mutant[R]]] = {}
        for m in mutants(scenario, result):
            by_operator.setdefault(m.operator, []).append(m)
        for operator in sorted(by_operator):
            mutant = rng.choice(by_operator[operator])
            applicable[operator] = applicable.get(operator, 0) + 1
            if _rejects(check, scenario, mutant.result):
                killed[operator] = killed.get(operator, 0) + 1
            elif len(survivors.setdefault(operator, [])) < 5:
                survivors[operator].append(mutant.description)

    run()
    return Measurement(
        examples=counts["valid"],
        discarded=counts["drawn"] - counts["valid"],
        nonempty=counts["nonempty"],
        operators=tuple(
            OperatorRate(op, applicable[op], killed.get(op, 0), tuple(survivors.get(op, ())))
            for op in sorted(applicable)
        ),
    )

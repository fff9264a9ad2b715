"""Hypothesis strategies of valid decision scenarios, one module per decision kind.

Each ``<kind>_scenarios(**knobs)`` draws scenario objects that hold every input of one
decision, rebuild fresh inputs (optionally permuted) and have ``decide()`` returning the
library's own result; :mod:`kueue_preempt.testing.invariants` checks such results.
:class:`~kueue_preempt.testing.strategies.choices.Choices` packs many small choices into one
draw, for strategies of your own.
"""

from __future__ import annotations

from kueue_preempt.testing.strategies.choices import Choices
from kueue_preempt.testing.strategies.classic import (
    FLAVORS,
    RESOURCES,
    T0,
    ClassicScenario,
    Scenario,
    build_snapshot,
    classic_scenarios,
    configs,
    scenarios,
)

__all__ = [
    "Choices",
    # classic
    "FLAVORS",
    "RESOURCES",
    "T0",
    "Scenario",
    "build_snapshot",
    "configs",
    "scenarios",
    "ClassicScenario",
    "classic_scenarios",
]

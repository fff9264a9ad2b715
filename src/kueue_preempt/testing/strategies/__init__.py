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
    Scenario,
    build_snapshot,
    configs,
    scenarios,
)
from kueue_preempt.testing.strategies.podgroup import (
    GROUP_NAMES,
    MISSING_GROUP,
    PODGROUP_PRIORITIES,
    PREEMPTOR_PRIORITIES,
    PodGroupScenario,
    podgroup_scenarios,
)
from kueue_preempt.testing.strategies.fair import STRATEGY_LISTS, FairScenario, fair_scenarios
from kueue_preempt.testing.strategies.cycle import (
    CYCLE_FLAVORS,
    CYCLE_NOW,
    CycleScenario,
    clusters,
    cycle_configs,
    cycle_scenarios,
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
    # podgroup
    "GROUP_NAMES",
    "MISSING_GROUP",
    "PODGROUP_PRIORITIES",
    "PREEMPTOR_PRIORITIES",
    "PodGroupScenario",
    "podgroup_scenarios",
    # fair
    "STRATEGY_LISTS",
    "FairScenario",
    "fair_scenarios",
    # cycle
    "CYCLE_FLAVORS",
    "CYCLE_NOW",
    "CycleScenario",
    "clusters",
    "cycle_configs",
    "cycle_scenarios",
]

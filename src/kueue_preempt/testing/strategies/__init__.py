"""Hypothesis strategies of valid decision scenarios, one module per decision kind.

Each ``<kind>_scenarios(**knobs)`` draws scenario objects that hold every input of one
decision, rebuild fresh inputs (optionally permuted) and have ``decide()`` returning the
library's own result; :mod:`kueue_preempt.testing.invariants` checks such results.
:class:`~kueue_preempt.testing.strategies.choices.Choices` packs many small choices into one
draw, for strategies of your own.
"""

from __future__ import annotations

from kueue_preempt.testing.strategies.choices import (
    Choices,
)
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
from kueue_preempt.testing.strategies.fair import (
    STRATEGY_LISTS,
    FairScenario,
    fair_scenarios,
)
from kueue_preempt.testing.strategies.assignment import (
    ASSIGNMENT_FLAVORS,
    FUNGIBILITIES,
    GPU_FLAVORS,
    LABEL_KEYS,
    PREEMPTIONS,
    TAINTS,
    TOLERATIONS,
    UNDECLARED,
    AssignmentScenario,
    assignment_gates,
    assignment_scenarios,
    fungibilities,
)
from kueue_preempt.testing.strategies.cycle import (
    CYCLE_FLAVORS,
    CYCLE_NOW,
    CycleScenario,
    clusters,
    cycle_configs,
    cycle_scenarios,
)
from kueue_preempt.testing.strategies.podgroup import (
    GROUP_NAMES,
    MISSING_GROUP,
    PODGROUP_PRIORITIES,
    PREEMPTOR_PRIORITIES,
    PodGroupScenario,
    podgroup_scenarios,
)

__all__ = [
    # choices
    "Choices",
    # classic
    "FLAVORS",
    "RESOURCES",
    "T0",
    "ClassicScenario",
    "Scenario",
    "build_snapshot",
    "classic_scenarios",
    "configs",
    "scenarios",
    # fair
    "STRATEGY_LISTS",
    "FairScenario",
    "fair_scenarios",
    # assignment
    "ASSIGNMENT_FLAVORS",
    "GPU_FLAVORS",
    "LABEL_KEYS",
    "TAINTS",
    "TOLERATIONS",
    "FUNGIBILITIES",
    "PREEMPTIONS",
    "UNDECLARED",
    "AssignmentScenario",
    "assignment_scenarios",
    "fungibilities",
    "assignment_gates",
    # cycle
    "CYCLE_FLAVORS",
    "CYCLE_NOW",
    "CycleScenario",
    "clusters",
    "cycle_configs",
    "cycle_scenarios",
    # podgroup
    "PODGROUP_PRIORITIES",
    "PREEMPTOR_PRIORITIES",
    "GROUP_NAMES",
    "MISSING_GROUP",
    "PodGroupScenario",
    "podgroup_scenarios",
]

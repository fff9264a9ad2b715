"""One run of a Kueue scalability scenario: read, build, simulate, summarise.

:func:`run_scenario` is the library function behind ``kueue-preempt simulate --scenario``.
"""

from __future__ import annotations

import os
from typing import Callable

import attrs

from .kueue_perf import PerfModel, PerfResult, simulate_scenario
from .kueue_summary import KueueSummary, summary_for_scenario
from .scenario import BuiltScenario, Scenario, build_scenario, load_scenario

__all__ = ["ScenarioRun", "run_scenario"]


@attrs.frozen
class ScenarioRun:
    built: BuiltScenario
    model: PerfModel
    result: PerfResult
    summary: KueueSummary


def run_scenario(
    scenario: Scenario | BuiltScenario | str | os.PathLike[str],
    model: PerfModel = PerfModel(),
    *,
    progress: Callable[[float], None] | None = None,
) -> ScenarioRun:
    """Simulate a generator file (a path, a read :class:`Scenario` or a built one) with ``model``
    and compute Kueue's summary (admission times as the runner sees them, decision ``(kp-a)``)."""
    if isinstance(scenario, BuiltScenario):
        built = scenario
    else:
        built = build_scenario(scenario if isinstance(scenario, Scenario) else load_scenario(scenario))
    result = simulate_scenario(built, model, progress=progress)
    summary = summary_for_scenario(
        result.timeline, built, truncate=model.truncate_timestamps, admitted_seen=result.admitted_seen
    )
    return ScenarioRun(built, model, result, summary)

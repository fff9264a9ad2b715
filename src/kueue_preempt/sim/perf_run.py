"""One run of a Kueue scalability scenario: read, build, simulate, summarise.

:func:`run_scenario` is the library function behind ``kueue-preempt simulate --scenario``;
:func:`general_run` runs the same scenario through the general simulator.
"""

from __future__ import annotations

import json
import os
from typing import Callable

import attrs

from ..io.cycle_state import cluster_state_from_objects
from ..io.read import RawObject
from .arrivals_read import parse_arrivals
from .engine import SimulationOptions, SimulationResult
from .kueue_perf import PerfModel, PerfResult, simulate_scenario
from .kueue_summary import KueueSummary, summary_for_scenario
from .run import simulate
from .scenario import BuiltScenario, Scenario, build_scenario, load_scenario

__all__ = ["ScenarioRun", "general_run", "run_scenario"]


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


def general_run(
    built: BuiltScenario,
    *,
    requeue_delay: float = 1.0,
    progress: Callable[[float], None] | None = None,
) -> SimulationResult:
    """The same scenario through the general simulator (:func:`~kueue_preempt.sim.run.simulate`:
    the library's scheduling cycle, incremental across cycles) with an ideal API: its objects
    become the cycle input and its workloads an arrivals file. This is the oracle the
    dedicated :func:`simulate_scenario` is checked against, and what ``bench_sim.py`` times."""
    objects = [RawObject("scenario", i + 1, o) for i, o in enumerate(built.objects())]
    state, dump = cluster_state_from_objects(objects)
    lines = [
        json.dumps({"at": w.at_ms / 1000.0, "duration": w.runtime_ms / 1000.0, "workload": built.workload_manifest(w)})
        for w in built.workloads
    ]
    arrivals = parse_arrivals("\n".join(lines) + "\n", source="arrivals.jsonl")
    return simulate(
        state, dump, arrivals, options=SimulationOptions(inadmissible_requeue_delay=requeue_delay), progress=progress
    )

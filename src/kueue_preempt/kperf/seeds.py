"""One scenario over several head-order seeds: the mean and the spread of Kueue's summary.

Kueue lists a cycle's heads in Go map order, random every cycle (``SC-CY-2``), and sorts them
with an unstable sort (``SC-ORD-2``); with :attr:`ScenarioOptions.head_order_seed
<kueue_preempt.kperf.run.ScenarioOptions.head_order_seed>` the simulator draws that order
from a seed, so one seed is one possible run of Kueue's. :func:`run_seeds` runs the seeds
``first .. first + count - 1`` and :class:`SeedSpread` gives, per workload class and
ClusterQueue class, the mean over the runs and the smallest and largest run: a seeded model
predicts a spread, not one figure.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Sequence

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.kperf.run import ScenarioOptions, ScenarioRun, run_scenario
from kueue_preempt.kperf.scenario import BuiltScenario, Scenario, build_scenario, load_scenario
from kueue_preempt.kperf.summary import KueueSummary

__all__ = ["MAX_SEEDS", "SeedSpread", "Spread", "run_seeds", "seed_spread", "spread_json", "spread_table"]

MAX_SEEDS = 1000
"""The most runs :func:`run_seeds` makes (each is a full simulation of the scenario)."""


@attrs.frozen
class Spread:
    """A figure over the seeds' runs: the mean, the smallest and the largest value, and how
    many runs had one (a class none of whose workloads was admitted has no time to admission)."""

    mean: float
    low: float
    high: float
    runs: int

    @classmethod
    def of(cls, values: Sequence[float | None]) -> Spread | None:
        got = [v for v in values if v is not None]
        if not got:
            return None
        return cls(sum(got) / len(got), min(got), max(got), len(got))


def _spreads(value: Mapping[str, Spread | None]) -> FrozenMap[str, Spread | None]:
    return frozen_map(value)


@attrs.frozen
class SeedSpread:
    """Per workload class the time to admission (ms), per ClusterQueue class the usage (%),
    and the run's duration (s), over the runs of ``seeds``."""

    seeds: tuple[int, ...]
    time_to_admission_ms: FrozenMap[str, Spread | None] = attrs.field(converter=_spreads)
    usage_percent: FrozenMap[str, Spread | None] = attrs.field(converter=_spreads)
    duration: Spread


def seed_spread(seeds: Sequence[int], summaries: Sequence[KueueSummary]) -> SeedSpread:
    """The spread of ``summaries`` (one per seed, same scenario). O(runs · classes)."""
    if not summaries or len(seeds) != len(summaries):
        raise ConfigurationError(f"seed_spread: one summary per seed, got {len(summaries)} for {len(seeds)} seeds")
    classes = sorted({c for s in summaries for c in s.workload_classes})
    queues = sorted({c for s in summaries for c in s.cluster_queue_classes})
    wait = {
        c: Spread.of([s.workload_classes[c].average_time_to_admission_ms if c in s.workload_classes else None for s in summaries])
        for c in classes
    }
    usage = {
        c: Spread.of([s.cluster_queue_classes[c].usage_percent if c in s.cluster_queue_classes else None for s in summaries])
        for c in queues
    }
    duration = Spread.of([s.duration for s in summaries])
    assert duration is not None  # every summary has a duration
    return SeedSpread(tuple(seeds), wait, usage, duration)


def run_seeds(
    scenario: Scenario | BuiltScenario | str | os.PathLike[str],
    options: ScenarioOptions,
    count: int,
    *,
    first: int = 0,
    progress: Callable[[int, ScenarioRun], None] | None = None,
) -> tuple[list[ScenarioRun], SeedSpread]:
    """Run ``scenario`` with ``options`` once per head-order seed ``first .. first + count - 1``
    (``options.head_order_seed`` is replaced) and return the runs and their spread.
    ``progress(i, run)`` is called after each run. Cost: ``count`` runs of :func:`run_scenario`;
    the scenario is built once."""
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_SEEDS:
        raise ConfigurationError(f"run_seeds: count must be an integer between 1 and {MAX_SEEDS}, got {count!r:.40}")
    if isinstance(first, bool) or not isinstance(first, int) or first < 0:
        raise ConfigurationError(f"run_seeds: first must be an integer >= 0, got {first!r:.40}")
    if isinstance(scenario, BuiltScenario):
        built = scenario
    else:
        built = build_scenario(scenario if isinstance(scenario, Scenario) else load_scenario(scenario))
    seeds = list(range(first, first + count))
    runs: list[ScenarioRun] = []
    for i, seed in enumerate(seeds):
        run = run_scenario(built, attrs.evolve(options, head_order_seed=seed))
        runs.append(run)
        if progress is not None:
            progress(i, run)
    return runs, seed_spread(seeds, [r.summary for r in runs])


def _fmt(s: Spread | None, digits: int) -> str:
    if s is None:
        return "-"
    f = f"{{:,.{digits}f}}"
    return f"{f.format(s.mean)} [{f.format(s.low)} - {f.format(s.high)}]"


def spread_table(spread: SeedSpread) -> str:
    """The spread as text: one line per class, ``mean [min – max]``."""
    n = len(spread.seeds)
    lines = [f"{n} runs, head-order seeds {spread.seeds[0]}..{spread.seeds[-1]}: mean [min - max]", ""]
    lines.append("averageTimeToAdmissionMs")
    for c, s in spread.time_to_admission_ms.items():
        lines.append(f"  {c:<16} {_fmt(s, 0)}")
    lines.append("usagePercent")
    for c, s in spread.usage_percent.items():
        lines.append(f"  {c:<16} {_fmt(s, 1)}")
    lines.append(f"durationSeconds    {_fmt(spread.duration, 1)}")
    return "\n".join(lines) + "\n"


def _json(s: Spread | None) -> dict[str, Any] | None:
    return None if s is None else {"mean": s.mean, "min": s.low, "max": s.high, "runs": s.runs}


def spread_json(spread: SeedSpread) -> dict[str, Any]:
    """The spread as a JSON document (``mean``/``min``/``max``/``runs`` per figure)."""
    return {
        "seeds": list(spread.seeds),
        "averageTimeToAdmissionMs": {c: _json(s) for c, s in spread.time_to_admission_ms.items()},
        "usagePercent": {c: _json(s) for c, s in spread.usage_percent.items()},
        "durationSeconds": _json(spread.duration),
    }

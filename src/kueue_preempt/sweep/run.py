"""Run a sweep: evaluate every combination on a backend and compare the results.

``evaluate`` turns a :class:`~kueue_preempt.sweep.scenario.Scenario` into flat metrics
(``{"team-a.wait.p90": 120.0, ...}``); it must be a picklable top-level function for process
and Dask backends. The simulator's evaluation (simulate, then summarise) plugs in here once
the event loop is wired to the scheduling cycle.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence, Union

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.io.text import number_text
from kueue_preempt.sweep.backends import Backend, LocalBackend
from kueue_preempt.sweep.scenario import Scenario
from kueue_preempt.sweep.vary import Combination, Vary, expand

__all__ = ["Metric", "SweepRow", "SweepResult", "run_sweep", "sweep_json", "sweep_table"]

Metric = Union[int, float, str, None]
Evaluate = Callable[[Scenario], Mapping[str, Metric]]


def _settings(value: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(value)


def _metrics(value: Mapping[str, Metric]) -> FrozenMap[str, Metric]:
    return frozen_map(value)


@attrs.frozen
class SweepRow:
    settings: tuple[tuple[str, str], ...] = attrs.field(converter=_settings)
    metrics: FrozenMap[str, Metric] = attrs.field(converter=_metrics)


def _rows(value: Iterable[SweepRow]) -> tuple[SweepRow, ...]:
    return tuple(value)


def _paths(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class SweepResult:
    """One row per combination, in combination order (independent of the backend)."""

    paths: tuple[str, ...] = attrs.field(converter=_paths)
    rows: tuple[SweepRow, ...] = attrs.field(converter=_rows)


class _Call:
    """Picklable ``combination -> metrics`` wrapper around the user's evaluate function."""

    def __init__(self, evaluate: Evaluate) -> None:
        self.evaluate = evaluate

    def __call__(self, combination: Combination) -> dict[str, Metric]:
        return dict(self.evaluate(combination.scenario))


def run_sweep(
    base: Scenario, varies: Sequence[Vary], evaluate: Evaluate, *, backend: Backend | None = None
) -> SweepResult:
    """Evaluate every combination of ``varies`` applied to ``base`` on ``backend``
    (default: :class:`LocalBackend`)."""
    combinations = expand(base, varies)
    results = (backend or LocalBackend()).map(_Call(evaluate), combinations)
    return SweepResult(
        paths=[v.path.text for v in varies],
        rows=[SweepRow(c.settings, m) for c, m in zip(combinations, results)],
    )


def sweep_json(result: SweepResult) -> dict[str, Any]:
    return {
        "varied": list(result.paths),
        "runs": [{"settings": dict(r.settings), "metrics": dict(r.metrics)} for r in result.rows],
    }


def _cell(value: Metric) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return number_text(value)
    return str(value)


def sweep_table(result: SweepResult, metrics: Sequence[str] | None = None) -> str:
    """A fixed-width comparison table: one row per combination, varied values then metrics
    (``metrics`` selects and orders the metric columns; default: all, sorted)."""
    names = list(metrics) if metrics is not None else sorted({k for r in result.rows for k in r.metrics})
    header = [*result.paths, *names]
    rows = [header] + [[v for _, v in r.settings] + [_cell(r.metrics.get(n)) for n in names] for r in result.rows]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n" for row in rows)


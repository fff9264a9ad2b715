"""Discrete-event simulation of Kueue over time.

* :mod:`~kueue_preempt.sim.arrivals.model` — arrivals files (JSONL/CSV), validation, templates;
* :mod:`~kueue_preempt.sim.arrivals.generate` — a seeded Poisson generator of arrivals files;
* :mod:`~kueue_preempt.sim.engine` — the event loop (SC-T-2, SC-SIM-13) over a ``Scheduler``;
* :mod:`~kueue_preempt.sim.cycle_scheduler` — that ``Scheduler`` on ``schedule_cycle``;
* :mod:`~kueue_preempt.sim.controllers` — the boost and cost controllers between instants;
* :mod:`~kueue_preempt.sim.run` — one simulation from its inputs, and a sweep's evaluation;
* :mod:`~kueue_preempt.sim.partition` — one simulation split by root cohort (SC-IN-2), merged;
* :mod:`~kueue_preempt.sim.output.timeline` — timeline events and their JSONL form;
* :mod:`~kueue_preempt.sim.output.metrics` / :mod:`~kueue_preempt.sim.output.report` — the summary computed
  from a timeline (SC-SIM-13 item 8), as JSON or a table;
* :mod:`~kueue_preempt.sim.output.plots` — PNG/SVG charts (optional extra ``[plot]``);
* :mod:`~kueue_preempt.sim.progress` — a stderr progress bar for terminals.

See ``docs/simulation.md``.
"""

from __future__ import annotations

from kueue_preempt.sim.arrivals.model import (
    SIM_START,
    Arrival,
    ArrivalRow,
    Arrivals,
    ArrivalsFile,
    PodSetOverride,
    RunningRow,
    WorkloadOverrides,
    arrivals_text,
    write_arrivals,
)
from kueue_preempt.sim.arrivals.read import load_arrivals, parse_arrivals, parse_arrivals_csv
from kueue_preempt.sim.arrivals.resolve import resolve_arrivals
from kueue_preempt.sim.errors import ArrivalError, ExtraUnavailable, TimelineError

__all__ = [
    "SIM_START",
    "Arrival",
    "ArrivalError",
    "ArrivalRow",
    "Arrivals",
    "ArrivalsFile",
    "ExtraUnavailable",
    "PodSetOverride",
    "RunningRow",
    "TimelineError",
    "WorkloadOverrides",
    "arrivals_text",
    "load_arrivals",
    "parse_arrivals",
    "parse_arrivals_csv",
    "resolve_arrivals",
    "write_arrivals",
]

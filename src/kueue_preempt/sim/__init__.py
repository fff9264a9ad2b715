"""Discrete-event simulation of Kueue over time (issue 20): the parts that exist so far.

* :mod:`~kueue_preempt.sim.arrivals` — arrivals files (JSONL/CSV), validation, templates;
* :mod:`~kueue_preempt.sim.generate` — a seeded Poisson generator of arrivals files;
* :mod:`~kueue_preempt.sim.timeline` — timeline events and their JSONL form;
* :mod:`~kueue_preempt.sim.metrics` — the summary computed from a timeline (SC-SIM-13 item 8);
* :mod:`~kueue_preempt.sim.engine` — the event loop (SC-T-2, SC-SIM-13) over a pluggable cycle;
* :mod:`~kueue_preempt.sim.plots` — PNG/SVG charts (optional extra ``[plot]``);
* :mod:`~kueue_preempt.sim.progress` — a stderr progress bar for terminals.

See ``docs/simulation.md``.
"""

from __future__ import annotations

from .arrivals import (
    SIM_START,
    Arrival,
    ArrivalRow,
    Arrivals,
    ArrivalsFile,
    PodSetOverride,
    RunningRow,
    WorkloadOverrides,
    arrivals_text,
    load_arrivals,
    parse_arrivals,
    parse_arrivals_csv,
    resolve_arrivals,
    write_arrivals,
)
from .errors import ArrivalError, ExtraUnavailable, TimelineError

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

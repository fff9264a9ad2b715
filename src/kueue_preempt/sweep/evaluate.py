"""A sweep's evaluation by simulation: :class:`SimulationEvaluator` runs
:func:`kueue_preempt.sim.run.simulate` for each :class:`~kueue_preempt.sweep.scenario.Scenario`
and flattens the summary into metrics (:func:`summary_metrics`); it is picklable, so local
worker processes and Dask workers can run it.
"""

from __future__ import annotations

from typing import Mapping

import attrs

from kueue_preempt.cycle import ClusterState, CycleConfig
from kueue_preempt.io import ClusterDump
from kueue_preempt.sim.arrivals.model import ArrivalsFile
from kueue_preempt.sim.cycle_scheduler import cluster_state_for
from kueue_preempt.sim.engine import SimulationOptions
from kueue_preempt.sim.output.metrics import Summary, summarize
from kueue_preempt.sim.run import simulate
from kueue_preempt.sweep.run import Metric
from kueue_preempt.sweep.scenario import Scenario

__all__ = ["DEFAULT_METRICS", "SimulationEvaluator", "metric_names", "summary_metrics"]


DEFAULT_METRICS = ("preemptions", "preemptionCycles", "livelocks", "neverAdmitted", "wait.p50", "wait.p90", "wait.p99")
"""Metric names that :func:`summary_metrics` always gives (whole cluster)."""


def summary_metrics(summary: Summary) -> dict[str, Metric]:
    """Flat metrics of a summary: whole-cluster figures (:data:`DEFAULT_METRICS`; the waits
    are the worst ClusterQueue's), then ``NODE.wait.p50|p90|p99``, ``NODE.preemptions`` and
    ``NODE.utilization.FLAVOR/RESOURCE`` per ClusterQueue and cohort."""
    cqs = [q for q in summary.queues if q.kind == "ClusterQueue"]

    def worst(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return max(present) if present else None

    out: dict[str, Metric] = {
        "preemptions": sum(q.preemptions for q in cqs),
        "preemptionCycles": len(summary.cycles),
        "livelocks": len(summary.livelocks),
        "neverAdmitted": sum(q.wait.never_admitted for q in cqs),
        "wait.p50": worst([q.wait.p50 for q in cqs]),
        "wait.p90": worst([q.wait.p90 for q in cqs]),
        "wait.p99": worst([q.wait.p99 for q in cqs]),
    }
    for q in summary.queues:
        out[f"{q.name}.wait.p50"] = q.wait.p50
        out[f"{q.name}.wait.p90"] = q.wait.p90
        out[f"{q.name}.wait.p99"] = q.wait.p99
        out[f"{q.name}.preemptions"] = q.preemptions
        for fr, value in q.utilization.items():
            out[f"{q.name}.utilization.{fr}"] = round(value, 6)
    return out


def metric_names(dump: ClusterDump) -> list[str]:
    """Every metric :func:`summary_metrics` gives for a simulation of ``dump``: the whole-cluster
    names first, then per ClusterQueue and cohort (utilization for each quota above 0)."""
    return list(summary_metrics(summarize((), dump=dump)))


class SimulationEvaluator:
    """``scenario -> metrics`` for :func:`kueue_preempt.sweep.run_sweep`: a whole simulation
    of ``arrivals`` on the scenario's quota tree and configuration, summarised."""

    def __init__(
        self,
        state: ClusterState,
        arrivals: ArrivalsFile,
        options: SimulationOptions = SimulationOptions(),
        base_config: CycleConfig = CycleConfig(),
    ) -> None:
        self.state = state
        self.arrivals = arrivals
        self.options = options
        self.base_config = base_config

    def __call__(self, scenario: Scenario) -> Mapping[str, Metric]:
        config = attrs.evolve(self.base_config, preemption=scenario.config)
        state = cluster_state_for(self.state, scenario.dump)
        result = simulate(state, scenario.dump, self.arrivals, config=config, options=self.options, policy=scenario.policy)
        return summary_metrics(summarize(result.timeline, dump=scenario.dump, until=self.options.until))


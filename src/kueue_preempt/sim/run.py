"""One simulation from its inputs, and the same as a sweep's evaluation.

:func:`simulate` resolves an arrivals file against the dump, builds the cycle input and runs
the event loop over :class:`~kueue_preempt.sim.cycle_scheduler.CycleScheduler`.
:class:`SimulationEvaluator` does it for each :class:`~kueue_preempt.sweep.Scenario` of a
sweep and flattens the summary into metrics (:func:`summary_metrics`); it is picklable, so
local worker processes and Dask workers can run it.
"""

from __future__ import annotations

from typing import Callable, Mapping

import attrs

from kueue_preempt._util.checks import arg
from kueue_preempt.cycle import ClusterState, CycleConfig
from kueue_preempt.errors import InvalidArgument
from kueue_preempt.io import ClusterDump
from kueue_preempt.sim.arrivals.model import ArrivalsFile
from kueue_preempt.sim.arrivals.resolve import resolve_arrivals
from kueue_preempt.sim.cycle_scheduler import CycleScheduler, cluster_state_for
from kueue_preempt.sim.engine import Controller, SimulationOptions, SimulationResult, run_simulation
from kueue_preempt.sweep.run import Metric
from kueue_preempt.sweep.scenario import PolicySettings, Scenario
from kueue_preempt.sim.controllers import BoostController, CostController, TimeSharingController
from kueue_preempt.sim.output.metrics import Summary, summarize

__all__ = ["simulate", "controllers_for", "with_policy", "summary_metrics", "SimulationEvaluator", "DEFAULT_METRICS"]


def simulate(
    state: ClusterState,
    dump: ClusterDump,
    arrivals: ArrivalsFile,
    *,
    config: CycleConfig = CycleConfig(),
    options: SimulationOptions = SimulationOptions(),
    policy: PolicySettings = PolicySettings(),
    progress: Callable[[float], None] | None = None,
) -> SimulationResult:
    """Simulate ``arrivals`` on the cluster of ``state``/``dump`` (from
    :func:`kueue_preempt.io.load_cluster_state`) with the real scheduling cycle and the
    reference controllers ``policy`` asks for (:func:`with_policy` adjusts ``config``).

    Cost: one scheduling cycle per simulated instant at which something happens (arrivals,
    completions, requeues; SC-SIM-13), each incremental over the previous one
    (:class:`~kueue_preempt.cycle.CycleState`); memory grows with the timeline's events.
    """
    fn = "simulate"
    arg(state, ClusterState, fn, "state")
    arg(dump, ClusterDump, fn, "dump")
    arg(arrivals, ArrivalsFile, fn, "arrivals")
    arg(config, CycleConfig, fn, "config")
    arg(options, SimulationOptions, fn, "options")
    arg(policy, PolicySettings, fn, "policy")
    if progress is not None and not callable(progress):
        raise InvalidArgument(fn, "progress", f"expected a callable or None, got {type(progress).__name__}")
    resolved = resolve_arrivals(arrivals, dump)
    scheduler = CycleScheduler(state, with_policy(config, policy))
    return run_simulation(scheduler, dump, resolved, options=options, controllers=controllers_for(policy), progress=progress)


def controllers_for(policy: PolicySettings) -> list[Controller]:
    """The reference controllers of ``policy``: the booster — preemption-count (BOOST-12) or
    time-sharing (BOOST-1..BOOST-5), at most one — then the cost controller (COST-6)."""
    out: list[Controller] = []
    if policy.boost is not None:
        out.append(BoostController(policy.boost))
    if policy.time_sharing is not None:
        out.append(TimeSharingController(policy.time_sharing))
    if policy.cost_base is not None:
        out.append(CostController(policy.cost_base))
    return out


def with_policy(config: CycleConfig, policy: PolicySettings) -> CycleConfig:
    """A booster is pointless with the ``PriorityBoost`` gate off, and a cost controller with the
    cost ordering off: running one switches its gate on (decision sim-f; for the time-sharing
    booster BOOST-10 asks for the gate too)."""
    preemption = config.preemption
    boosting = policy.boost is not None or policy.time_sharing is not None
    if boosting and not preemption.priority_boost:
        preemption = attrs.evolve(preemption, priority_boost=True)
    if policy.cost_base is not None and not preemption.preemption_cost_enabled:
        preemption = attrs.evolve(preemption, preemption_cost_enabled=True)
    return attrs.evolve(config, preemption=preemption)


DEFAULT_METRICS = ("preemptions", "preemptionCycles", "livelocks", "neverAdmitted", "wait.p50", "wait.p90", "wait.p99")
"""Metric names that :func:`summary_metrics` always gives (whole cluster)."""


def summary_metrics(summary: Summary) -> dict[str, Metric]:
    """Flat metrics of a summary: whole-cluster figures (:data:`DEFAULT_METRICS`; the waits
    are the worst ClusterQueue's), then ``NODE.wait.p50|p90|p99``, ``NODE.preemptions`` and
    ``NODE.utilization.RESOURCE@FLAVOR`` per ClusterQueue and cohort."""
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
            out[f"{q.name}.utilization.{fr.resource}@{fr.flavor}"] = round(value, 6)
    return out


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


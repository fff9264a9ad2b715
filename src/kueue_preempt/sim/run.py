"""One simulation from its inputs.

:func:`simulate` resolves an arrivals file against the dump, builds the cycle input and runs
the event loop over :class:`~kueue_preempt.sim.cycle_scheduler.CycleScheduler`, with the
reference controllers a :class:`~kueue_preempt.policies.PolicySettings` asks for. A sweep's
evaluation of the same (:class:`kueue_preempt.sweep.evaluate.SimulationEvaluator`) sits in
``sweep``, above the simulator.
"""

from __future__ import annotations

from typing import Callable

import attrs

from kueue_preempt._util.checks import arg
from kueue_preempt.cycle import ClusterState, CycleConfig
from kueue_preempt.errors import InputTooLarge, InvalidArgument
from kueue_preempt.io import ClusterDump
from kueue_preempt.sim.arrivals.model import Arrivals, ArrivalsFile
from kueue_preempt.sim.arrivals.resolve import resolve_arrivals
from kueue_preempt.sim.cycle_scheduler import CycleScheduler
from kueue_preempt.sim.engine import Controller, SimulationOptions, SimulationResult, run_simulation
from kueue_preempt.policies.settings import PolicySettings
from kueue_preempt.sim.controllers import BoostController, CostController, TimeSharingController

__all__ = ["simulate", "check_instant_budget", "controllers_for", "with_policy"]


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
    check_instant_budget(policy, options, resolved)
    scheduler = CycleScheduler(state, with_policy(config, policy))
    return run_simulation(scheduler, dump, resolved, options=options, controllers=controllers_for(policy), progress=progress)


def check_instant_budget(policy: PolicySettings, options: SimulationOptions, arrivals: Arrivals) -> None:
    """Refuse up front a time-sharing run whose windows alone would pass ``max_instants``.

    Every running window ends at an instant, so a run spanning ``horizon`` seconds with windows
    of ``interval`` has about ``horizon / interval`` instants. ``horizon`` is ``until``, else
    the latest arrival's time plus its duration (the earliest the last workload can finish).
    Without this check a ``1ns`` window runs for minutes before the cap stops it.
    """
    ts = policy.time_sharing
    if ts is None or not ts.enabled or options.max_instants is None:
        return
    if options.until is not None:
        horizon = options.until
    else:
        ends = [a.at + a.duration for a in arrivals.arrivals] + list(arrivals.remaining.values())
        horizon = max(ends, default=0.0)
    interval = ts.interval.total_seconds()
    expected = horizon / interval
    if expected > options.max_instants:
        raise InputTooLarge(
            f"simulation: time sharing every {interval:.6g} s over {horizon:.6g} s needs about {expected:.3g} instants, "
            f"more than the cap of {options.max_instants:,} (--max-instants): give a longer timeSharing.interval, "
            "a shorter --until, or a larger --max-instants"
        )


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
    cost ordering off: running one switches its gate on (for the time-sharing booster
    BOOST-10 asks for the gate too)."""
    preemption = config.preemption
    boosting = policy.boost is not None or policy.time_sharing is not None
    if boosting and not preemption.priority_boost:
        preemption = attrs.evolve(preemption, priority_boost=True)
    if policy.cost_base is not None and not preemption.preemption_cost_enabled:
        preemption = attrs.evolve(preemption, preemption_cost_enabled=True)
    return attrs.evolve(config, preemption=preemption)

"""Run a generated Kueue-perf scenario through the generic simulator (the library's real
scheduling cycle, :class:`~kueue_preempt.sim.cycle_scheduler.CycleScheduler`): the oracle the
fast :mod:`kueue_preempt.sim.kueue_perf` is compared with on small scenarios."""

from __future__ import annotations

from kueue_preempt.sim.engine import SimulationResult
from kueue_preempt.sim.perf_run import general_run
from kueue_preempt.sim.scenario import BuiltScenario


def generic_run(built: BuiltScenario, *, requeue_delay: float = 1.0) -> SimulationResult:
    return general_run(built, requeue_delay=requeue_delay)

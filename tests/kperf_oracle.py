"""Run a generated Kueue-perf scenario through the generic simulator (the library's real
scheduling cycle, :class:`~kueue_preempt.sim.cycle_scheduler.CycleScheduler`): the oracle the
fast :mod:`kueue_preempt.sim.kueue_perf` is compared with on small scenarios."""

from __future__ import annotations

import json

from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.io.read import RawObject
from kueue_preempt.sim import parse_arrivals
from kueue_preempt.sim.engine import SimulationOptions, SimulationResult
from kueue_preempt.sim.run import simulate
from kueue_preempt.sim.scenario import BuiltScenario


def generic_run(built: BuiltScenario, *, requeue_delay: float = 1.0) -> SimulationResult:
    objects = [RawObject("scenario", i + 1, o) for i, o in enumerate(built.objects())]
    state, dump = cluster_state_from_objects(objects)
    lines = [
        json.dumps({"at": w.at_ms / 1000.0, "duration": w.runtime_ms / 1000.0, "workload": built.workload_manifest(w)})
        for w in built.workloads
    ]
    arrivals = parse_arrivals("\n".join(lines) + "\n", source="arrivals.jsonl")
    return simulate(state, dump, arrivals, options=SimulationOptions(inadmissible_requeue_delay=requeue_delay))

"""One run of a Kueue scalability scenario: read, build, simulate, summarise.

:func:`run_scenario` is the library function behind ``kueue-preempt simulate --scenario``.
The scenario runs through the general simulator — the library's scheduling cycle
(:class:`~kueue_preempt.sim.cycle_scheduler.CycleScheduler`, incremental across cycles) in the
event loop of :mod:`kueue_preempt.sim.engine` — with Kueue's API throughput as the loop's
option (:class:`~kueue_preempt.sim.api_model.ApiModel`): one implementation of the cycle
serves every simulation, so a scenario's results cannot drift from the general simulator's.
"""

from __future__ import annotations

import math
import os
from datetime import datetime, timedelta
from typing import Callable, Iterable

import attrs

from kueue_preempt.cycle import ClusterState, CycleConfig
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import ClusterDump, LoadedWorkload
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.io.read import RawObject
from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.sim.arrivals.model import SIM_START, Arrival, ArrivalRow, Arrivals, ArrivalsFile
from kueue_preempt.sim.cycle_scheduler import CycleScheduler
from kueue_preempt.sim.engine import CreationStream, SimulationOptions, SimulationResult, run_simulation
from kueue_preempt.kperf.summary import ADMISSION_TIMES, KueueSummary, summary_for_scenario
from kueue_preempt.kperf.scenario import BuiltScenario, GeneratedWorkload, Scenario, build_scenario, load_scenario

__all__ = [
    "ScenarioOptions",
    "ScenarioRun",
    "general_run",
    "run_scenario",
    "scenario_arrivals",
    "scenario_inputs",
    "scenario_summary",
]


def _non_negative(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise ConfigurationError(f"ScenarioOptions.{attr.name}: must be a finite number >= 0, got {value!r}")


def _optional_until(inst: object, attr: attrs.Attribute[float | None], value: float | None) -> None:
    if value is not None:
        _non_negative(inst, attr, value)  # type: ignore[arg-type]


def _admission_time(inst: object, attr: attrs.Attribute[str], value: str) -> None:
    if value not in ADMISSION_TIMES:
        raise ConfigurationError(f"ScenarioOptions.{attr.name}: expected one of {', '.join(ADMISSION_TIMES)}, got {value!r}")


@attrs.frozen
class ScenarioOptions:
    """How a scenario is run. Only ``api`` differs between the ideal and the Kueue-like run."""

    api: ApiModel | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.instance_of(ApiModel))
    )
    """Kueue's API client (``ApiModel(50, 100)``: the scalability test's limits); ``None``: an
    ideal, infinitely fast API."""
    scheduling_equivalence_hashing: bool = True
    """Kueue's gate (on by default, and in the measured runs): ``SC-RQ-8``."""
    inadmissible_requeue_delay: float = attrs.field(default=1.0, validator=_non_negative)
    """``SC-IN-3``'s batching period (Kueue: 1 s)."""
    truncate_timestamps: bool = True
    """The summary cuts creation times to whole seconds, as Kubernetes stores ``creationTimestamp``."""
    until: float | None = attrs.field(default=None, validator=_optional_until)
    """Stop after this simulated time (seconds); default: when everything finished."""
    head_order_seed: int | None = None
    """:attr:`CycleConfig.head_order_seed <kueue_preempt.cycle.CycleConfig.head_order_seed>`:
    ``None`` lists each cycle's heads by ClusterQueue name (``SC-CY-2``); a seed shuffles them
    per cycle as Kueue's map order does (validated there)."""
    admission_time: str = attrs.field(default="observed", validator=_admission_time)
    """The summary's definition of time to admission (``observed``, the runner's observation,
    which Kueue's range files were calibrated with; or ``decision``, the ``Admitted``
    condition's time; :mod:`kueue_preempt.kperf.summary`)."""


@attrs.frozen
class ScenarioRun:
    built: BuiltScenario
    options: ScenarioOptions
    result: SimulationResult
    summary: KueueSummary

    @property
    def admitted_seen(self) -> tuple[tuple[str, float], ...] | None:
        """When each admission write completed (the runner's admission times), or ``None``
        with an ideal API, where they are the admissions of the timeline."""
        return None if self.options.api is None else self.result.admitted_seen


def run_scenario(
    scenario: Scenario | BuiltScenario | str | os.PathLike[str],
    options: ScenarioOptions = ScenarioOptions(),
    *,
    progress: Callable[[float], None] | None = None,
) -> ScenarioRun:
    """Simulate a generator file (a path, a read :class:`Scenario` or a built one) and compute
    Kueue's summary (admission times as the runner sees them: when the admission write completed)."""
    if isinstance(scenario, BuiltScenario):
        built = scenario
    else:
        built = build_scenario(scenario if isinstance(scenario, Scenario) else load_scenario(scenario))
    sim = SimulationOptions(
        until=options.until, inadmissible_requeue_delay=options.inadmissible_requeue_delay, api=options.api, max_instants=None
    )
    config = attrs.evolve(
        CycleConfig.of(feature_gates={"SchedulingEquivalenceHashing": options.scheduling_equivalence_hashing}),
        head_order_seed=options.head_order_seed,
    )
    result = general_run(built, options=sim, config=config, progress=progress)
    summary = scenario_summary(built, result, options)
    return ScenarioRun(built, options, result, summary)


def scenario_summary(built: BuiltScenario, result: SimulationResult, options: ScenarioOptions) -> KueueSummary:
    """Kueue's summary of a scenario's run, with ``options.admission_time``'s definition (one
    run gives both: ``attrs.evolve(options, admission_time=...)``)."""
    api = options.api is not None
    return summary_for_scenario(
        result.timeline,
        built,
        truncate=options.truncate_timestamps,
        admitted_seen=result.admitted_seen if api else None,
        admitted_stamped=result.admitted_stamped if api else None,
        queue_status_seen=result.queue_status_seen if api and result.queue_status_seen else None,
        admission_time=options.admission_time,
    )


def general_run(
    built: BuiltScenario,
    *,
    options: SimulationOptions = SimulationOptions(),
    config: CycleConfig = CycleConfig(),
    progress: Callable[[float], None] | None = None,
) -> SimulationResult:
    """A built scenario through the general simulator (:func:`~kueue_preempt.sim.run.simulate`):
    its objects become the cycle input and its workloads an arrivals file."""
    state, dump, _ = scenario_inputs(built, with_arrivals=False)
    arrivals = scenario_arrivals(built, dump)
    # The runner's goroutines, for the API model (they create through its limiter).
    streams = [CreationStream(ms / 1000.0, keys) for ms, keys in built.streams]
    # run.simulate without its resolve_arrivals: scenario_arrivals is its result, built per shape.
    return run_simulation(
        CycleScheduler(state, config), dump, arrivals, options=options, progress=progress, creation=streams
    )


def scenario_inputs(built: BuiltScenario, *, with_arrivals: bool = True) -> tuple[ClusterState, ClusterDump, ArrivalsFile]:
    """The cycle input and dump of a built scenario's objects, and its workloads as an
    arrivals file of full manifests: what ``simulate DUMP --arrivals FILE`` reads for it."""
    objects = [RawObject("scenario", i + 1, o) for i, o in enumerate(built.objects())]
    state, dump = cluster_state_from_objects(objects)
    if not with_arrivals:
        return state, dump, ArrivalsFile(source="scenario")
    loaded = _read_manifests(built, built.workloads)
    rows = [
        ArrivalRow(at=w.at_ms / 1000.0, duration=w.runtime_ms / 1000.0, workload=loaded[w.key], line=i + 1)
        for i, w in enumerate(built.workloads)
    ]
    return state, dump, ArrivalsFile(rows=rows, source="scenario")


def _read_manifests(built: BuiltScenario, workloads: Iterable[GeneratedWorkload]) -> dict[str, LoadedWorkload]:
    """The workloads' manifests read in one batch by the reader an arrivals row goes through."""
    manifests = [RawObject("arrivals", i + 1, built.workload_manifest(w)) for i, w in enumerate(workloads)]
    wstate, wdump = cluster_state_from_objects(manifests)
    model = {w.key: w for w in wstate.workloads}
    return {lw.key: attrs.evolve(lw, workload=model[lw.key]) for lw in wdump.workloads}


def _shape(w: GeneratedWorkload) -> tuple[str, str, int, int, int]:
    return (w.queue, w.class_name, w.runtime_ms, w.priority, w.cpu_millis)


def scenario_arrivals(built: BuiltScenario, dump: ClusterDump, *, start: datetime = SIM_START) -> Arrivals:
    """What :func:`~kueue_preempt.sim.arrivals.resolve.resolve_arrivals` makes of
    :func:`scenario_inputs`' arrivals file (a test checks them equal), built per workload
    shape: the generator's manifests differ only in their names, so one manifest per
    (queue, class, run time, priority, request) is read and the others are renamed — the
    large-scale scenario has 50,000 workloads and a few dozen shapes."""
    first: dict[tuple[str, str, int, int, int], GeneratedWorkload] = {}
    for w in built.workloads:
        first.setdefault(_shape(w), w)
    read = _read_manifests(built, first.values())
    templates = {k: read[w.key] for k, w in first.items()}
    queues = {k: dump.cluster_queue_for(lw) for k, lw in templates.items()}
    order = sorted(range(len(built.workloads)), key=lambda i: built.workloads[i].at_ms)  # stable (SC-T-2)
    out: list[Arrival] = []
    for seq, i in enumerate(order, start=1):
        g = built.workloads[i]
        k = _shape(g)
        lw = templates[k]
        at = g.at_ms / 1000.0
        model = attrs.evolve(lw.workload, name=g.name, uid=f"sim-{seq:08d}", creation_time=start + timedelta(seconds=at))
        out.append(Arrival(at, g.runtime_ms / 1000.0, attrs.evolve(lw, workload=model), queues[k], None, line=i + 1))
    return Arrivals(arrivals=out, start=start)

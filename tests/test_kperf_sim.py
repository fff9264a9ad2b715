"""Kueue's scalability scenarios through the general simulator (the library's scheduling cycle,
decision kp-h) with the API-throughput model of the event loop (SimulationOptions.api,
decisions kp-a, kp-b): hand-worked cases, and an API that never limits anything giving the
ideal API's timeline."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Iterable

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.sim.engine import SimulationOptions, SimulationResult
from kueue_preempt.kperf.summary import summary_for_scenario
from kueue_preempt.kperf.run import ScenarioOptions, general_run, run_scenario
from kueue_preempt.kperf.scenario import BuiltScenario, build_scenario, parse_scenario
from kueue_preempt.sim.output.timeline import Admitted, Event, Finished, Inadmissible, Preempted, Released

from scenario_texts import scenario_texts

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "kueue-perf"


def _one_queue(nominal: int, sets: list[tuple[str, int, int, int, int]]) -> str:
    """One ClusterQueue; each set: (class, count, interval ms, request, runtime ms), priority 0."""
    lines = [
        "cohorts:",
        "- className: co",
        "  count: 1",
        "  queuesSets:",
        "  - className: cq",
        "    count: 1",
        f"    nominalQuota: {nominal}",
        "    workloadsSets:",
    ]
    for cls, count, interval, request, runtime in sets:
        lines += [
            f"    - count: {count}",
            f"      creationIntervalMs: {interval}",
            "      workloads:",
            f"      - {{className: {cls}, runtimeMs: {runtime}, priority: 0, request: {request}}}",
        ]
    return "\n".join(lines) + "\n"


def _admitted(timeline: Iterable[Event]) -> list[tuple[float, str]]:
    return [(e.t, e.workload.split("/")[1]) for e in timeline if isinstance(e, Admitted)]


def _run(built: BuiltScenario, api: ApiModel | None) -> SimulationResult:
    return run_scenario(built, ScenarioOptions(api=api)).result


def _stats(r: SimulationResult) -> dict[str, int]:
    assert r.api is not None
    return dict(r.api.by_kind)


SCENARIO = """
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: {queues}
    nominalQuota: {nominal}
    borrowingLimit: {bl}
    reclaimWithinCohort: {reclaim}
    withinClusterQueue: {within}
    workloadsSets:
    - count: 12
      creationIntervalMs: 100
      workloads:
      - {{className: small, runtimeMs: 300, priority: 50, request: 1}}
    - count: 4
      creationIntervalMs: 400
      workloads:
      - {{className: medium, runtimeMs: 500, priority: 100, request: 3}}
    - count: 2
      creationIntervalMs: 700
      workloads:
      - {{className: large, runtimeMs: 1000, priority: 200, request: 4}}
"""


def _per_workload(timeline: Iterable[Event], kind: type[Admitted] | type[Finished]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = collections.defaultdict(list)
    for e in timeline:
        if isinstance(e, kind):
            out[e.workload].append(e.t)
    return dict(out)


def _preemptions(timeline: Iterable[Event]) -> list[tuple[float, str, str]]:
    return sorted((e.t, e.workload, e.preemptor) for e in timeline if isinstance(e, Preempted))


_UNLIMITED = ApiModel(
    1e12, 10**12, write_latency=0, runner_qps=1e12, runner_burst=10**12,
    disabled=("queue-status", "events", "runner-creation", "runner-writes", "second-timestamps"),
)
"""An API that never makes anyone wait: the model's path with nothing to delay (the runner's
calls, instant with no latency, would still land after the instant they are made in; the
whole-second creation stamps change the queue-order times, not a wait)."""


@pytest.mark.parametrize(
    ("queues", "nominal", "bl", "reclaim", "within"),
    [
        (3, 4, 4, "Any", "LowerPriority"),
        (4, 4, 4, "Any", "LowerPriority"),
        (4, 4, 0, "LowerPriority", "LowerPriority"),
        (4, 6, 2, "Never", "Never"),
        (4, 3, 9, "Any", "LowerOrNewerEqualPriority"),
    ],
)
def test_an_api_that_never_waits_gives_the_ideal_timeline(queues: int, nominal: int, bl: int, reclaim: str, within: str) -> None:
    """The API model only adds waiting (kp-a): with limits nothing reaches, the run is the ideal
    API's, event for event (SC-CY-*, SC-PE-*, CL-*, SC-RQ-8, SC-IN-* all exercised here)."""
    built = build_scenario(
        parse_scenario(SCENARIO.format(queues=queues, nominal=nominal, bl=bl, reclaim=reclaim, within=within))
    )
    ideal = _run(built, None)
    assert sum(isinstance(e, Preempted) for e in ideal.timeline) > 0 or reclaim == "Never"
    assert _run(built, _UNLIMITED).timeline == ideal.timeline


def test_run_scenario_is_the_general_simulator() -> None:
    """Decision kp-h: run_scenario is general_run (the event loop over CycleScheduler) on the
    scenario's objects; the summary is computed from that timeline."""
    text = (EXAMPLES / "baseline-generator.yaml").read_text()
    text = text.replace("count: 350", "count: 30").replace("count: 100\n", "count: 8\n").replace("count: 50\n", "count: 4\n")
    text = text.replace("count: 5\n", "count: 2\n")
    built = build_scenario(parse_scenario(text))
    assert len(built.queues) == 12 and len(built.workloads) == 12 * 42
    run = run_scenario(built)
    assert run.result == general_run(built, options=SimulationOptions(max_instants=None))
    assert run.summary == summary_for_scenario(run.result.timeline, built)
    # An ideal API has no admission writes: the summary and the plots read the timeline's admissions.
    assert run.admitted_seen is None
    with_api = run_scenario(built, ScenarioOptions(api=ApiModel(50, 100)))
    assert with_api.admitted_seen == with_api.result.admitted_seen != ()
    assert sum(isinstance(e, Preempted) for e in run.result.timeline) > 0


def test_invalid_model_settings() -> None:
    with pytest.raises(ConfigurationError, match="ApiModel.write_latency"):
        ApiModel(50, 100, write_latency=-1)
    with pytest.raises(ConfigurationError, match="ApiModel.disabled"):
        ApiModel(50, 100, disabled=("Workload",))
    with pytest.raises(ConfigurationError, match="ApiModel.status_batch_seconds"):
        ApiModel(50, 100, status_batch_seconds=float("nan"))
    with pytest.raises(ConfigurationError, match="ApiModel.eviction_workers"):
        ApiModel(50, 100, eviction_workers=0)
    with pytest.raises(ConfigurationError, match="ApiModel.qps"):
        ApiModel(0, 100)
    with pytest.raises(ConfigurationError, match="ApiModel.burst"):
        ApiModel(50, 0)
    with pytest.raises(ConfigurationError, match="ScenarioOptions.inadmissible_requeue_delay"):
        ScenarioOptions(inadmissible_requeue_delay=-1)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario_texts())
def test_random_small_scenarios_an_api_that_never_waits_is_ideal(text: str) -> None:
    """Property: for any small scenario (quotas, borrowing limits, both policies, priorities,
    sizes and times drawn at random) the API model with limits nothing reaches changes no event."""
    built = build_scenario(parse_scenario(text))
    assert _run(built, _UNLIMITED).timeline == _run(built, None).timeline


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario_texts(), st.floats(0.5, 50), st.integers(1, 20))
# Found by CI: one cycle admits two heads of other queues after a head of cq-0-0 evicted the 5-CPU
# workload they count on (SC-PE-1), and the timeline lists the admissions first.
@example(
    text="cohorts:\n- className: co\n  count: 1\n  queuesSets:\n  - className: cq\n    count: 3\n    nominalQuota: 2\n    borrowingLimit: 3\n    reclaimWithinCohort: Never\n    withinClusterQueue: LowerPriority\n    workloadsSets:\n    - count: 1\n      creationIntervalMs: 200\n      workloads:\n      - {className: c0, runtimeMs: 300, priority: 50, request: 1}\n    - count: 1\n      creationIntervalMs: 100\n      workloads:\n      - {className: c1, runtimeMs: 300, priority: 0, request: 5}\n",
    qps=7.0,
    burst=1,
)
def test_api_model_never_overcommits_and_finishes_everything(text: str, qps: float, burst: int) -> None:
    """Property with the API model on: the quota charged — apart from victims whose eviction is
    issued but not yet released, on which an admission of the same cycle may count (SC-PE-1) —
    never exceeds any ClusterQueue's nominal + borrowing limit nor its cohort's nominal (Q-9,
    Q-14); every workload finishes exactly once; a workload is seen admitted no earlier than
    its cycle admitted it."""
    built = build_scenario(parse_scenario(text))
    r = _run(built, ApiModel(qps, burst))
    spec = {q.name: q for q in built.queues}
    cohort_nominal: dict[str, int] = collections.Counter()
    for q in built.queues:
        cohort_nominal[q.cohort] += q.nominal_cpu_millis
    cq_use: dict[str, int] = collections.Counter()
    co_use: dict[str, int] = collections.Counter()
    charged: dict[str, int] = {}
    leaving: set[str] = set()
    queue_of = {w.key: w.queue for w in built.workloads}
    admitted_at: dict[str, list[float]] = collections.defaultdict(list)
    finished: collections.Counter[str] = collections.Counter()
    # A cycle's timeline lists its admissions before its evictions, but SC-PE-1 lets an admission
    # of the cycle count on the victims that cycle evicts (an earlier head's targets): the
    # victims preempted at an admission's time count as leaving when it is checked.
    preempted_at: dict[float, set[str]] = collections.defaultdict(set)
    for e in r.timeline:
        if isinstance(e, Preempted):
            preempted_at[e.t].add(e.workload)
    for e in r.timeline:
        if isinstance(e, Admitted):
            cpu = sum(e.usage.values())
            charged[e.workload] = cpu
            admitted_at[e.workload].append(e.t)
            q = spec[e.cluster_queue]
            cq_use[q.name] += cpu
            co_use[q.cohort] += cpu
            # Victims evicted and not yet released: an admission may already count on them.
            gone = (leaving | preempted_at[e.t]) - {e.workload}
            gone_cq = sum(charged.get(v, 0) for v in gone if queue_of[v] == q.name)
            gone_co = sum(charged.get(v, 0) for v in gone if spec[queue_of[v]].cohort == q.cohort)
            assert cq_use[q.name] - gone_cq <= q.nominal_cpu_millis + q.borrowing_limit_cpu_millis
            assert co_use[q.cohort] - gone_co <= cohort_nominal[q.cohort]
        elif isinstance(e, Preempted):
            leaving.add(e.workload)
        elif isinstance(e, (Finished, Released)):
            leaving.discard(e.workload)
            cpu = charged.pop(e.workload)
            cq_use[e.cluster_queue] -= cpu
            co_use[spec[e.cluster_queue].cohort] -= cpu
            if isinstance(e, Finished):
                finished[e.workload] += 1
    # A request above the potential (Q-10: min(cohort nominal, nominal + borrowing limit))
    # can never be admitted (NoFit); every other workload finishes exactly once.
    potential = {q.name: min(cohort_nominal[q.cohort], q.nominal_cpu_millis + q.borrowing_limit_cpu_millis) for q in built.queues}
    assert set(finished) == {w.key for w in built.workloads if w.cpu_millis <= potential[w.queue]}
    assert set(finished.values()) <= {1}
    seen: dict[str, list[float]] = collections.defaultdict(list)
    for key, t in r.admitted_seen:
        seen[key].append(t)
    for key, times in seen.items():
        assert all(s >= a for s, a in zip(times, admitted_at[key]))


@pytest.mark.parametrize("api", [None, ApiModel(50, 100)], ids=["ideal", "api"])
def test_a_victim_still_terminating_is_not_evicted_again(api: ApiModel | None) -> None:
    """SC-PR-1/SC-PR-3 with a termination time: while its victims terminate the preemptor is
    re-nominated every cycle and gets the same targets, which count without a new eviction;
    such a cycle changes nothing (SC-T-3), so no livelock is reported and each victim has one
    `preempted` event per release."""
    built = build_scenario(parse_scenario(SCENARIO.format(queues=3, nominal=4, bl=4, reclaim="Any", within="LowerPriority")))
    r = general_run(built, options=SimulationOptions(termination_time=0.35, api=api))
    preempted = collections.Counter(e.workload for e in r.timeline if isinstance(e, Preempted))
    released = collections.Counter(e.workload for e in r.timeline if isinstance(e, Released))
    assert preempted and preempted == released
    assert r.livelocks == ()
    assert {e.workload for e in r.timeline if isinstance(e, Finished)} == {w.key for w in built.workloads}


def test_a_scheduler_that_reports_no_heads_gets_its_admissions_written_in_list_order() -> None:
    """The API model with a scheduler that does not report its heads (the engine tests' fake):
    admissions are written in the order the cycle lists them, the run starts when the write
    completes. Q = 1, B = 1: w1 and w2 are admitted by the two cycles at 0; w1's write takes
    the token (runs 0..10), w2's owes one (seen at 1, runs 1..11); w3, parked, returns with the
    requeue run at 11 (w1's finish at 10 notified, SC-IN-3) and is written at once (bucket full)."""
    from test_sim_engine import THREE, FakeScheduler, _arrivals

    from kueue_preempt.sim.engine import run_simulation
    from sim_dump import small_dump

    dump = small_dump()
    options = SimulationOptions(
        api=ApiModel(1, 1, write_latency=0, disabled=("queue-status", "events", "runner-writes"))
    )
    r = run_simulation(FakeScheduler(dump), dump, _arrivals(*THREE), options=options)
    assert [(k.split("/")[1], t) for k, t in r.admitted_seen] == [("w1", 0), ("w2", 1), ("w3", 11)]
    finished = [(e.workload.split("/")[1], e.t) for e in r.timeline if isinstance(e, Finished)]
    assert finished == [("w1", 10), ("w2", 11), ("w3", 21)]
    assert r.api is not None and dict(r.api.by_kind) == {"admission": 3}


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


def test_a_burst_of_admissions_is_delayed_as_the_token_bucket_predicts() -> None:
    """Four workloads arrive at 0.1 s in one queue with room for all: four cycles at 0.1 s admit
    them (one head per cycle, SC-CY-2) and make four admission writes. With Q = 2/s and B = 2
    the first two complete at once, the third owes one token (0.5 s), the fourth two (1.0 s);
    each runs its 1 s from the moment its write completes (decision kp-a)."""
    built = build_scenario(parse_scenario(_one_queue(100, [(f"w{i}", 1, 100, 1, 1000) for i in range(4)])))
    r = _run(built, ApiModel(2, 2, status_objects=(), write_latency=0))
    names = ["w0-0-0-0", "w1-1-0-0", "w2-2-0-0", "w3-3-0-0"]
    assert _admitted(r.timeline) == [(0.1, n) for n in names]  # quota reserved in the cycle
    seen = [(k.split("/")[1], t) for k, t in r.admitted_seen]
    assert [n for n, _ in seen] == names
    assert [t for _, t in seen] == pytest.approx([0.1, 0.1, 0.6, 1.1])
    finished = {e.workload.split("/")[1]: e.t for e in r.timeline if isinstance(e, Finished)}
    assert [finished[n] for n in names] == pytest.approx([1.1, 1.1, 1.6, 2.1])
    assert _stats(r) == {"admission": 4}
    assert r.api is not None and r.api.delayed == 2
    s = summary_for_scenario(r.timeline, built, admitted_seen=r.admitted_seen)
    # Creation 0.1 s is stored as second 0: waits 100, 100, 600, 1100 ms.
    waits = [s.workload_classes[f"w{i}"].average_time_to_admission_ms for i in range(4)]
    assert waits == pytest.approx([100, 100, 600, 1100])
    # The ideal API admits and starts all four at 0.1 s, and counts no request.
    ideal = _run(built, None)
    assert {e.t for e in ideal.timeline if isinstance(e, Finished)} == {1.1}
    assert ideal.api is None and ideal.admitted_seen == ()


def test_write_latency_is_added_after_the_limiter() -> None:
    """The API server's round trip (write_latency, kp-b) comes on top of the token bucket's
    delay: with 10 ms, the four admissions of the burst case complete at 0.11, 0.11, 0.61, 1.11."""
    built = build_scenario(parse_scenario(_one_queue(100, [(f"w{i}", 1, 100, 1, 1000) for i in range(4)])))
    r = _run(built, ApiModel(2, 2, status_objects=(), write_latency=0.01))
    assert [t for _, t in r.admitted_seen] == pytest.approx([0.11, 0.11, 0.61, 1.11])


def test_a_pending_status_write_holds_the_next_cycle() -> None:
    """Decision (kp-a): the pending-reason write of SC-MSG-3 is made inside the cycle, so the
    limiter delays the scheduler, not only the status. Quota 3; a (2 cpu) at 0.1 s, b (2 cpu)
    at 0.2 s, c (1 cpu) at 0.3 s; Q = 1/s, B = 1; runtimes 1 s.

    0.1: a admitted, write completes at once (the bucket's one token).
    0.2: b does not fit: its pending write owes a token and completes at 1.1; the scheduler
         waits for it, so c, arriving at 0.3 and fitting, is not looked at before 1.1.
    1.1: a finishes (requeue of the cohort scheduled for 2.1); the cycle admits c; its
         admission write owes a token again: seen at 2.1.
    2.1: b returns from the inadmissible set and fits (c holds 1): admitted, seen at 3.1.
    """
    built = build_scenario(parse_scenario(_one_queue(3, [("a", 1, 100, 2, 1000), ("b", 1, 200, 2, 1000), ("c", 1, 300, 1, 1000)])))
    r = _run(built, ApiModel(1, 1, status_objects=(), write_latency=0))
    adm = _admitted(r.timeline)
    assert [n for _, n in adm] == ["a-0-0-0", "c-2-0-0", "b-1-0-0"]
    assert [t for t, _ in adm] == pytest.approx([0.1, 1.1, 2.1])
    assert [k.split("/")[1] for k, _ in r.admitted_seen] == ["a-0-0-0", "c-2-0-0", "b-1-0-0"]
    assert [t for _, t in r.admitted_seen] == pytest.approx([0.1, 2.1, 3.1])
    assert [e.workload.split("/")[1] for e in r.timeline if isinstance(e, Inadmissible)] == ["b-1-0-0"]
    assert _stats(r) == {"admission": 3, "pendingStatus": 1}
    # With an ideal API c is admitted when it arrives.
    adm = _admitted(_run(built, None).timeline)
    assert [n for _, n in adm] == ["a-0-0-0", "c-2-0-0", "b-1-0-0"]
    assert [t for t, _ in adm] == pytest.approx([0.1, 0.3, 2.1])


PREEMPTION = """
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 2
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 1
      creationIntervalMs: 100
      workloads:
      - {className: a, runtimeMs: 10000, priority: 0, request: 2}
    - count: 1
      creationIntervalMs: 200
      workloads:
      - {className: b, runtimeMs: 1000, priority: 100, request: 2}
"""


def test_an_eviction_write_holds_the_scheduler_and_releases_the_victim_when_it_completes() -> None:
    """Decision (kp-a), SC-PR-1, SC-EV-2: quota 2; a (2 cpu, priority 0, 10 s) at 0.1 s, b
    (2 cpu, priority 100, 1 s) at 0.2 s; Q = 1/s, B = 1, no latency, no status writes.

    0.1: a admitted; its write takes the one token (seen 0.1).
    0.2: b preempts a (InClusterQueue). The eviction write owes 0.9 token (bucket at 0.1):
         completes at 1.1, when a is released; b's pending write (Preempting) owes 1.9: 2.1.
         The scheduler waits until 2.1.
    1.1: a released; the workload controller's Requeued write (background) owes 2.0: 3.1.
    2.1: b admitted (bucket -1.0 -> -2.0: seen at 4.1, finishes at 5.1); then a, the head,
         does not fit: parked, its pending write owes 3.0 (5.1).
    5.1: b finishes; the cohort's requeue run at 6.1 returns a, admitted at once (bucket full
         again: seen 6.1, finishes 16.1).
    """
    built = build_scenario(parse_scenario(PREEMPTION))
    r = _run(built, ApiModel(1, 1, status_objects=(), write_latency=0))
    a, b = (w.key for w in built.workloads)
    # Times are kept to the microsecond by the event loop: compare them rounded (approx does not
    # compare tuples).
    trace = [(type(e).__name__, e.workload, round(e.t, 6)) for e in r.timeline if isinstance(e, (Admitted, Preempted, Released, Finished))]
    assert trace == ([
        ("Admitted", a, 0.1), ("Preempted", a, 0.2), ("Released", a, 1.1), ("Admitted", b, 2.1),
        ("Finished", b, 5.1), ("Admitted", a, 6.1), ("Finished", a, 16.1),
    ])
    assert [(w, round(t, 6)) for w, t in r.admitted_seen] == [(a, 0.1), (b, 4.1), (a, 6.1)]
    assert _stats(r) == {"admission": 3, "eviction": 1, "pendingStatus": 2, "requeued": 1}
    # An ideal API releases a and admits b in the cycle after the preemption, at 0.2.
    ideal = [(type(e).__name__, e.workload, e.t) for e in _run(built, None).timeline if isinstance(e, (Admitted, Released))]
    assert ideal[:3] == [("Admitted", a, 0.1), ("Released", a, 0.2), ("Admitted", b, 0.2)]


def test_status_controllers_coalesce_per_queue() -> None:
    """ClusterQueue and LocalQueue status writes: one worker each; a queue changed while its
    write is queued is written once (Kueue's work queue dedups keys)."""
    built = build_scenario(parse_scenario(_one_queue(100, [(f"w{i}", 1, 100, 1, 1000) for i in range(4)])))
    kinds = _stats(_run(built, ApiModel(2, 2)))
    assert kinds["admission"] == 4
    # Fewer status writes than changes (4 arrivals, 4 admissions, 4 finishes of one queue).
    assert 2 <= kinds["ClusterQueueStatus"] < 12
    assert 2 <= kinds["LocalQueueStatus"] < 12


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


_UNLIMITED = ApiModel(1e12, 10**12, write_latency=0, status_objects=())
"""An API that never makes anyone wait: the model's path with nothing to delay."""


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
    with pytest.raises(ConfigurationError, match="ApiModel.cycle_seconds"):
        ApiModel(50, 100, cycle_seconds=-1)
    with pytest.raises(ConfigurationError, match="ApiModel.status_objects"):
        ApiModel(50, 100, status_objects=("Workload",))
    with pytest.raises(ConfigurationError, match="ApiModel.finish_latency"):
        ApiModel(50, 100, finish_latency=float("nan"))
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
    options = SimulationOptions(api=ApiModel(1, 1, write_latency=0, status_objects=()))
    r = run_simulation(FakeScheduler(dump), dump, _arrivals(*THREE), options=options)
    assert [(k.split("/")[1], t) for k, t in r.admitted_seen] == [("w1", 0), ("w2", 1), ("w3", 11)]
    finished = [(e.workload.split("/")[1], e.t) for e in r.timeline if isinstance(e, Finished)]
    assert finished == [("w1", 10), ("w2", 11), ("w3", 21)]
    assert r.api is not None and dict(r.api.by_kind) == {"admission": 3}

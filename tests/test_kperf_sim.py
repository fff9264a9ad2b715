"""The fast Kueue-perf simulator (kueue_preempt.sim.kueue_perf): the API model on hand-worked
cases, and the same admissions and preemptions as the generic simulator (the library's real
scheduling cycle) on small scenarios with an ideal API."""

from __future__ import annotations

import collections
from pathlib import Path
from typing import Iterable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kperf_oracle import generic_run
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim.kueue_perf import PerfModel, simulate_scenario
from kueue_preempt.sim.kueue_summary import summary_for_scenario
from kueue_preempt.sim.scenario import build_scenario, load_scenario, parse_scenario
from kueue_preempt.sim.throughput import ApiLimits
from kueue_preempt.sim.timeline import Admitted, Event, Finished, Inadmissible, Preempted, Released

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


def test_a_burst_of_admissions_is_delayed_as_the_token_bucket_predicts() -> None:
    """Four workloads arrive at 0.1 s in one queue with room for all: four cycles at 0.1 s admit
    them (one head per cycle, SC-CY-2) and make four admission writes. With Q = 2/s and B = 2
    the first two complete at once, the third owes one token (0.5 s), the fourth two (1.0 s);
    each runs its 1 s from the moment its write completes."""
    built = build_scenario(parse_scenario(_one_queue(100, [(f"w{i}", 1, 100, 1, 1000) for i in range(4)])))
    r = simulate_scenario(built, PerfModel(api=ApiLimits(qps=2, burst=2), status_objects=(), write_latency=0))
    names = ["w0-0-0-0", "w1-1-0-0", "w2-2-0-0", "w3-3-0-0"]
    assert _admitted(r.timeline) == [(0.1, n) for n in names]  # quota reserved in the cycle
    seen = [(k.split("/")[1], t) for k, t in r.admitted_seen]
    assert [n for n, _ in seen] == names
    assert [t for _, t in seen] == pytest.approx([0.1, 0.1, 0.6, 1.1])
    finished = {e.workload.split("/")[1]: e.t for e in r.timeline if isinstance(e, Finished)}
    assert [finished[n] for n in names] == pytest.approx([1.1, 1.1, 1.6, 2.1])
    assert dict(r.api.by_kind) == {"admission": 4}
    assert r.api.delayed == 2
    s = summary_for_scenario(r.timeline, built, admitted_seen=r.admitted_seen)
    # Creation 0.1 s is stored as second 0: waits 100, 100, 600, 1100 ms.
    waits = [s.workload_classes[f"w{i}"].average_time_to_admission_ms for i in range(4)]
    assert waits == pytest.approx([100, 100, 600, 1100])
    # The ideal API admits and starts all four at 0.1 s.
    ideal = simulate_scenario(built, PerfModel())
    assert [t for _, t in ideal.admitted_seen] == [0.1] * 4
    assert ideal.api.by_kind == ()


def test_write_latency_is_added_after_the_limiter() -> None:
    """The API server's round trip (write_latency) comes on top of the token bucket's delay:
    with 10 ms, the four admissions of the burst case complete at 0.11, 0.11, 0.61, 1.11."""
    built = build_scenario(parse_scenario(_one_queue(100, [(f"w{i}", 1, 100, 1, 1000) for i in range(4)])))
    r = simulate_scenario(built, PerfModel(api=ApiLimits(qps=2, burst=2), status_objects=(), write_latency=0.01))
    assert [t for _, t in r.admitted_seen] == pytest.approx([0.11, 0.11, 0.61, 1.11])
    # An ideal API has no latency at all.
    ideal = simulate_scenario(built, PerfModel(write_latency=0.01))
    assert [t for _, t in ideal.admitted_seen] == [0.1] * 4


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
    r = simulate_scenario(built, PerfModel(api=ApiLimits(qps=1, burst=1), status_objects=(), write_latency=0))
    adm = _admitted(r.timeline)
    assert [n for _, n in adm] == ["a-0-0-0", "c-2-0-0", "b-1-0-0"]
    assert [t for t, _ in adm] == pytest.approx([0.1, 1.1, 2.1])
    assert [k.split("/")[1] for k, _ in r.admitted_seen] == ["a-0-0-0", "c-2-0-0", "b-1-0-0"]
    assert [t for _, t in r.admitted_seen] == pytest.approx([0.1, 2.1, 3.1])
    assert [e.workload.split("/")[1] for e in r.timeline if isinstance(e, Inadmissible)] == ["b-1-0-0"]
    assert dict(r.api.by_kind) == {"admission": 3, "pendingStatus": 1}
    # With an ideal API c is admitted when it arrives.
    ideal = simulate_scenario(built, PerfModel())
    adm = _admitted(ideal.timeline)
    assert [n for _, n in adm] == ["a-0-0-0", "c-2-0-0", "b-1-0-0"]
    assert [t for t, _ in adm] == pytest.approx([0.1, 0.3, 2.1])


def test_status_controllers_coalesce_per_queue() -> None:
    """ClusterQueue and LocalQueue status writes: one worker each; a queue changed while its
    write is queued is written once (Kueue's work queue dedups keys)."""
    built = build_scenario(parse_scenario(_one_queue(100, [(f"w{i}", 1, 100, 1, 1000) for i in range(4)])))
    r = simulate_scenario(built, PerfModel(api=ApiLimits(qps=2, burst=2)))
    kinds = dict(r.api.by_kind)
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
def test_same_admissions_and_preemptions_as_the_generic_simulator(
    queues: int, nominal: int, bl: int, reclaim: str, within: str
) -> None:
    """With an ideal API the fast simulator is the library's cycle (SC-CY-*, SC-PE-*, CL-*,
    SC-RQ-8, SC-IN-*): every admission and every preemption at the same time, same preemptor."""
    built = build_scenario(
        parse_scenario(SCENARIO.format(queues=queues, nominal=nominal, bl=bl, reclaim=reclaim, within=within))
    )
    generic = generic_run(built)
    fast = simulate_scenario(built, PerfModel())
    assert _per_workload(fast.timeline, Admitted) == _per_workload(generic.timeline, Admitted)
    assert _preemptions(fast.timeline) == _preemptions(generic.timeline)
    assert _per_workload(fast.timeline, Finished) == _per_workload(generic.timeline, Finished)


def test_scaled_down_baseline_matches_the_generic_simulator() -> None:
    text = (EXAMPLES / "baseline-generator.yaml").read_text()
    text = text.replace("count: 350", "count: 30").replace("count: 100\n", "count: 8\n").replace("count: 50\n", "count: 4\n")
    text = text.replace("count: 5\n", "count: 2\n")
    built = build_scenario(parse_scenario(text))
    assert len(built.queues) == 12 and len(built.workloads) == 12 * 42
    generic = generic_run(built)
    fast = simulate_scenario(built, PerfModel())
    assert _per_workload(fast.timeline, Admitted) == _per_workload(generic.timeline, Admitted)
    assert sum(isinstance(e, Preempted) for e in fast.timeline) == sum(isinstance(e, Preempted) for e in generic.timeline)


def test_baseline_with_kueues_client_limits_runs_to_completion() -> None:
    built = build_scenario(load_scenario(EXAMPLES / "baseline-generator.yaml"))
    model = PerfModel(api=ApiLimits(qps=50, burst=100))
    r = simulate_scenario(built, model)
    finished = {e.workload for e in r.timeline if isinstance(e, Finished)}
    assert len(finished) == len(built.workloads)
    kinds = dict(r.api.by_kind)
    admitted = sum(isinstance(e, Admitted) for e in r.timeline)
    assert kinds["admission"] == admitted
    assert kinds.get("eviction", 0) == sum(isinstance(e, Preempted) for e in r.timeline)
    # 50 requests per second with bursts of 100: the admissions alone need that long.
    assert r.end >= (kinds["admission"] - 100) / 50
    # Deterministic: the same inputs give the same timeline.
    assert simulate_scenario(built, model).timeline == r.timeline


def test_invalid_model_settings() -> None:
    with pytest.raises(ConfigurationError):
        PerfModel(cycle_seconds=-1)
    with pytest.raises(ConfigurationError):
        PerfModel(status_objects=("Workload",))
    with pytest.raises(ConfigurationError):
        PerfModel(finish_latency=float("nan"))


_POLICIES = st.tuples(st.sampled_from(["Never", "LowerPriority", "Any"]), st.sampled_from(["Never", "LowerPriority", "LowerOrNewerEqualPriority"]))


@st.composite
def _scenarios(draw: st.DrawFn) -> str:
    nominal = draw(st.integers(1, 5))
    bl = draw(st.integers(0, 5))
    reclaim, within = draw(_POLICIES)
    queues = draw(st.integers(1, 3))
    lines = [
        "cohorts:",
        "- className: co",
        f"  count: {draw(st.integers(1, 2))}",
        "  queuesSets:",
        "  - className: cq",
        f"    count: {queues}",
        f"    nominalQuota: {nominal}",
        f"    borrowingLimit: {bl}",
        f"    reclaimWithinCohort: {reclaim}",
        f"    withinClusterQueue: {within}",
        "    workloadsSets:",
    ]
    # Sets of different priorities arriving faster than they finish: contention, parking
    # and preemptions (within the queue and across the cohort) in most examples.
    priorities = draw(st.permutations([0, 50, 100, 200]))
    for i in range(draw(st.integers(1, 3))):
        lines += [
            f"    - count: {draw(st.integers(1, 8))}",
            f"      creationIntervalMs: {100 * draw(st.integers(1, 5))}",
            "      workloads:",
            f"      - {{className: c{i}, runtimeMs: {100 * draw(st.integers(3, 20))}, "
            f"priority: {priorities[i]}, request: {draw(st.integers(1, nominal + bl))}}}",
        ]
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scenarios())
def test_random_small_scenarios_match_the_generic_simulator(text: str) -> None:
    """Property: for any small scenario (quotas, borrowing limits, both policies, priorities,
    sizes and times drawn at random), the fast simulator and the generic one admit, preempt
    and finish the same workloads at the same times (decision (kp-c))."""
    built = build_scenario(parse_scenario(text))
    generic = generic_run(built)
    fast = simulate_scenario(built, PerfModel())
    assert _per_workload(fast.timeline, Admitted) == _per_workload(generic.timeline, Admitted)
    assert _preemptions(fast.timeline) == _preemptions(generic.timeline)
    assert _per_workload(fast.timeline, Finished) == _per_workload(generic.timeline, Finished)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_scenarios(), st.floats(0.5, 50), st.integers(1, 20))
def test_api_model_never_overcommits_and_finishes_everything(text: str, qps: float, burst: int) -> None:
    """Property with the API model on: the quota charged never exceeds any ClusterQueue's
    nominal + borrowing limit nor its cohort's nominal (Q-9, Q-14); every workload finishes
    exactly once; a workload is seen admitted no earlier than its cycle admitted it."""
    built = build_scenario(parse_scenario(text))
    r = simulate_scenario(built, PerfModel(api=ApiLimits(qps=qps, burst=burst)))
    spec = {q.name: q for q in built.queues}
    cohort_nominal: dict[str, int] = collections.Counter()
    for q in built.queues:
        cohort_nominal[q.cohort] += q.nominal_cpu_millis
    cq_use: dict[str, int] = collections.Counter()
    co_use: dict[str, int] = collections.Counter()
    charged: dict[str, int] = {}
    admitted_at: dict[str, list[float]] = collections.defaultdict(list)
    finished: collections.Counter[str] = collections.Counter()
    for e in r.timeline:
        if isinstance(e, Admitted):
            cpu = sum(e.usage.values())
            charged[e.workload] = cpu
            admitted_at[e.workload].append(e.t)
            cq_use[e.cluster_queue] += cpu
            co_use[spec[e.cluster_queue].cohort] += cpu
            q = spec[e.cluster_queue]
            assert cq_use[q.name] <= q.nominal_cpu_millis + q.borrowing_limit_cpu_millis
            assert co_use[q.cohort] <= cohort_nominal[q.cohort]
        elif isinstance(e, (Finished, Released)):
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

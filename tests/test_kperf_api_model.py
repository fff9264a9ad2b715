"""The API-throughput model's mechanisms (``kueue_preempt.sim.api_model``), each on a small
hand-worked case: Kueue's writes through its per-kind token buckets, what waits for them, and
the client that creates and runs the workloads (Kueue's perf runner). Every case switches off
the mechanisms it does not look at, so the arithmetic stays checkable by hand."""

from __future__ import annotations

from typing import Iterable

import attrs
import pytest

from kueue_preempt.kperf.run import ScenarioOptions, run_scenario, scenario_summary
from kueue_preempt.kperf.scenario import BuiltScenario, build_scenario, parse_scenario
from kueue_preempt.sim.api_model import MECHANISMS, ApiModel, ApiRuntime
from kueue_preempt.sim.engine import SimulationResult
from kueue_preempt.sim.output.timeline import Admitted, Arrived, Event, Finished, Released

OTHERS = ("runner-creation", "runner-writes", "queue-status", "events")


def _model(qps: float, burst: int, *, latency: float = 0.0, keep: Iterable[str] = (), **kw: object) -> ApiModel:
    disabled = [m for m in OTHERS if m not in set(keep)] + list(kw.pop("disabled", ()))  # type: ignore[call-overload]
    return ApiModel(qps, burst, write_latency=latency, disabled=disabled, **kw)  # type: ignore[arg-type]


def _sets(nominal: int, sets: list[tuple[str, int, int, int, int, int]], *, borrowing: int = 0) -> str:
    """One ClusterQueue; each set: (class, count, interval ms, request, runtime ms, priority)."""
    lines = [
        "cohorts:",
        "- className: co",
        "  count: 1",
        "  queuesSets:",
        "  - className: cq",
        "    count: 1",
        f"    nominalQuota: {nominal}",
        f"    borrowingLimit: {borrowing}",
        "    withinClusterQueue: LowerPriority",
        "    workloadsSets:",
    ]
    for cls, count, interval, request, runtime, priority in sets:
        lines += [
            f"    - count: {count}",
            f"      creationIntervalMs: {interval}",
            "      workloads:",
            f"      - {{className: {cls}, runtimeMs: {runtime}, priority: {priority}, request: {request}}}",
        ]
    return "\n".join(lines) + "\n"


def _built(text: str) -> BuiltScenario:
    return build_scenario(parse_scenario(text))


def _run(built: BuiltScenario, api: ApiModel | None) -> SimulationResult:
    return run_scenario(built, ScenarioOptions(api=api)).result


def _name(key: str) -> str:
    return key.split("/")[1]


def _times(pairs: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(_name(k), round(t, 6)) for k, t in pairs]


def _events(timeline: Iterable[Event], kind: type) -> list[tuple[str, float]]:
    return [(_name(getattr(e, "workload")), round(e.t, 6)) for e in timeline if isinstance(e, kind)]


def _kinds(r: SimulationResult) -> dict[str, int]:
    assert r.api is not None
    return dict(r.api.by_kind)


BURST = _sets(100, [(f"w{i}", 1, 100, 1, 1000, 0) for i in range(4)])


def test_a_burst_of_admissions_builds_a_write_backlog_the_scheduler_does_not_wait_for() -> None:
    """Four workloads arrive at 0.1 s in one queue with room for all. Four cycles at 0.1 admit
    them (one head per cycle) and start four background admission writes, each stamped 0.1.
    Q = 2/s, B = 2: the first two complete at once, the third owes a token (0.6), the fourth two
    (1.1). The runner sees each when its write completes and runs it 1 s from then."""
    built = _built(BURST)
    r = _run(built, _model(2, 2))
    names = ["w0-0-0-0", "w1-1-0-0", "w2-2-0-0", "w3-3-0-0"]
    assert _events(r.timeline, Admitted) == [(n, 0.1) for n in names]
    assert _times(r.admitted_stamped) == [(n, 0.1) for n in names]
    assert _times(r.admitted_seen) == list(zip(names, [0.1, 0.1, 0.6, 1.1]))
    assert dict(_events(r.timeline, Finished)) == dict(zip(names, [1.1, 1.1, 1.6, 2.1]))
    assert _kinds(r) == {"admission": 4}
    # The two definitions of time to admission: observed (the runner saw Admitted, minus its
    # first event of the workload, 0.1) and decision (both Kubernetes timestamps, second 0).
    opts = ScenarioOptions(api=_model(2, 2))
    observed = scenario_summary(built, r, opts)
    decision = scenario_summary(built, r, attrs.evolve(opts, admission_time="decision"))
    assert observed.admission_time == "observed" and decision.admission_time == "decision"
    got = [observed.workload_classes[f"w{i}"].average_time_to_admission_ms for i in range(4)]
    assert got == pytest.approx([0, 0, 500, 1000])
    assert [decision.workload_classes[f"w{i}"].average_time_to_admission_ms for i in range(4)] == [0, 0, 0, 0]


def test_synchronous_admission_writes_would_hold_up_the_scheduler() -> None:
    """The same burst with ``async-admission`` off: the third cycle's write completes at 0.6, and
    the scheduler waits for it, so the fourth workload's admission is decided at 0.6 (its write,
    owing a token again, completes at 1.1)."""
    r = _run(_built(BURST), _model(2, 2, disabled=["async-admission"]))
    assert [t for _, t in _events(r.timeline, Admitted)] == [0.1, 0.1, 0.1, 0.6]
    assert [t for _, t in _times(r.admitted_seen)] == [0.1, 0.1, 0.6, 1.1]


EVICTIONS = _sets(10, [(f"a{i}", 1, 100, 1, 10_000, 0) for i in range(10)] + [("b", 1, 200, 10, 1000, 100)])


def test_a_cycle_waits_for_its_evictions_eight_at_a_time() -> None:
    """Quota 10 full of ten 1-cpu workloads admitted at 0.1; b (10 cpu, priority 100) arrives at
    0.2 and preempts all ten in one cycle. No token waits (Q = 1000); each write takes 10 ms.
    The cycle writes 8 evictions in parallel (done 0.21), then the other 2 (done 0.22), then b's
    pending-reason write (done 0.23); it waits for all of them, so the next cycle, which admits b,
    runs at 0.23. Each victim is released when its eviction write completed, and the Workload
    controller writes once after each release."""
    r = _run(_built(EVICTIONS), _model(1000, 1000, latency=0.01))
    released = sorted(t for _, t in _events(r.timeline, Released))
    assert released == [0.21] * 8 + [0.22] * 2
    assert [(n, t) for n, t in _events(r.timeline, Admitted) if n.startswith("b")] == [("b-10-0-0", 0.23)]
    kinds = _kinds(r)
    # Pending writes: b's (0.2), then the first victim back at its queue's head finding no room
    # (0.23); its next failed attempt (1.21) has the same message and is not written.
    assert kinds["eviction"] == 10 and kinds["workloadController"] == 10 and kinds["pendingStatus"] == 2
    # In the background instead, the scheduler waits only for b's pending write (0.21); at 0.21
    # two victims still hold quota, so b is admitted by the cycle that follows the last
    # releases, at 0.22.
    r = _run(_built(EVICTIONS), _model(1000, 1000, latency=0.01, disabled=["sync-evictions"]))
    assert [(n, t) for n, t in _events(r.timeline, Admitted) if n.startswith("b")] == [("b-10-0-0", 0.22)]


SKIP = """
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: a
    count: 1
    nominalQuota: 2
    workloadsSets:
    - count: 1
      creationIntervalMs: 100
      workloads:
      - {className: holder, runtimeMs: 10000, priority: 0, request: 2}
    - count: 1
      creationIntervalMs: 200
      workloads:
      - {className: waiter, runtimeMs: 1000, priority: 0, request: 2}
  - className: b
    count: 1
    nominalQuota: 1
    workloadsSets:
    - count: 1
      creationIntervalMs: 100
      workloads:
      - {className: short, runtimeMs: 500, priority: 0, request: 1}
"""


def test_a_pending_write_is_skipped_when_nothing_changed() -> None:
    """``waiter`` (2 cpu) finds its queue full at 0.2 (``holder`` runs until 10.1; no borrowing):
    a failed attempt, its first pending-reason write (resourceRequests missing). ``short`` of the
    other queue finishes at 0.6, which returns the cohort's parked workloads at 1.6: ``waiter``
    fails again with the same reason and message ("2 more needed"), so no write. Every failed
    attempt still sends its Event."""
    built = _built(SKIP)
    api = _model(1000, 1000, keep=["events"])
    r = _run(built, api)
    waiter = next(w.key for w in built.workloads if w.class_name == "waiter")
    assert _kinds(r)["pendingStatus"] == 1
    assert r.api is not None and r.api.events_sent == 3 * 2 + 2  # three admissions, two attempts
    r2 = _run(built, _model(1000, 1000, keep=["events"], disabled=["pending-when-changed"]))
    assert _kinds(r2)["pendingStatus"] == 2
    assert waiter in {e.workload for e in r.timeline if isinstance(e, Arrived)}


CREATION = _sets(100, [("s", 3, 100, 1, 100_000, 0), ("t", 2, 100, 1, 100_000, 0)])


def test_rate_limited_creation_interleaves_the_streams() -> None:
    """The runner's two goroutines (one per workload set) each sleep 100 ms and then make a
    blocking create through the runner's limiter, here 2/s with burst 1 (no latency). Calls:
    s#0 at 0.1 (the token: created 0.1); t#0 at 0.1 (owes a token: 0.6); s#1 at 0.2 (1.1); t#1 at
    0.7 (1.6); s#2 at 1.2 (2.1). The nominal times would be 0.1, 0.1, 0.2, 0.2, 0.3."""
    built = _built(CREATION)
    r = _run(built, _model(1000, 1000, keep=["runner-creation"], runner_qps=2.0, runner_burst=1))
    assert _events(r.timeline, Arrived) == [
        ("s-0-0-0", 0.1), ("t-1-0-0", 0.6), ("s-0-1-0", 1.1), ("t-1-1-0", 1.6), ("s-0-2-0", 2.1)
    ]
    # Time to admission counts from creation (the runner's first event of the workload).
    s = run_scenario(built, ScenarioOptions(api=_model(1000, 1000, keep=["runner-creation"], runner_qps=2.0, runner_burst=1)))
    assert s.summary.workload_classes["t"].average_time_to_admission_ms == pytest.approx(0)
    ideal = _run(built, None)
    assert [t for _, t in _events(ideal.timeline, Arrived)] == [0.1, 0.1, 0.2, 0.2, 0.3]


def test_the_runners_finished_write_releases_the_quota() -> None:
    """Runner limits 1/s, burst 1; every write takes 10 ms. The create called at 0.1 takes the
    token and completes at 0.11; the admission write, 0.12, is when the runner sees it. The run
    ends 1 s later (1.12); the runner's Finished write goes through its limiter (refilled by
    then) and Kueue releases the quota when it completes, at 1.13."""
    built = _built(_sets(10, [("w", 1, 100, 1, 1000, 0)]))
    r = _run(built, _model(1000, 1000, latency=0.01, keep=["runner-creation", "runner-writes"], runner_qps=1.0, runner_burst=1))
    assert _events(r.timeline, Arrived) == [("w-0-0-0", 0.11)]
    assert _times(r.admitted_seen) == [("w-0-0-0", 0.12)]
    assert _events(r.timeline, Finished) == [("w-0-0-0", 1.13)]


def test_events_queue_drops_when_full_and_kinds_share_a_bucket_only_when_asked() -> None:
    """Events: a queue of ``event_queue`` that drops when full, sent one at a time through the
    Events bucket. Per-kind buckets: an Event never delays a Workload write; with one bucket for
    every kind (the production binary) it does."""
    calls: list[object] = []
    rt = ApiRuntime(ApiModel(1, 1, write_latency=0, event_queue=2), lambda *a: calls.append(a))
    rt.event(0.0, 5)
    assert rt.stats().events_dropped == 3 and rt.stats().events_sent == 2
    assert rt.write("Workload", "admission", 0.0) == 0.0  # its own bucket: still full
    shared = ApiRuntime(ApiModel(1, 1, write_latency=0, disabled=["per-kind-buckets"]), lambda *a: calls.append(a))
    shared.event(0.0, 1)
    assert shared.write("Workload", "admission", 0.0) == 1.0  # the Event took the one token


def test_queue_status_is_batched_per_queue_for_one_second() -> None:
    """ClusterQueue/LocalQueue status: changes of a queue within the batching period make one
    write, by one worker per kind; the first and last writes are what the runner sees."""
    due: list[tuple[float, bool, tuple[str, str]]] = []
    rt = ApiRuntime(ApiModel(50, 100, write_latency=0), lambda t, done, key: due.append((t, done, key)))
    rt.changed("cq", "ns/lq", 0.2)
    rt.changed("cq", "ns/lq", 0.7)
    assert [(t, d, k) for t, d, k in due] == [(1.2, False, ("ClusterQueue", "cq")), (1.2, False, ("LocalQueue", "ns/lq"))]
    rt.status_due("ClusterQueue", "cq", 1.2)
    assert due[-1] == (1.2, True, ("ClusterQueue", "cq"))
    rt.status_done("ClusterQueue", "cq", 1.2)
    assert rt.seen == {"cq": (1.2, 1.2)}
    assert dict(rt.stats().by_kind) == {"ClusterQueueStatus": 1}


def test_every_mechanism_can_be_switched_off_and_a_run_still_finishes() -> None:
    built = _built(EVICTIONS)
    for m in MECHANISMS:
        r = _run(built, ApiModel(5, 5, disabled=[m]))
        assert {e.workload for e in r.timeline if isinstance(e, Finished)} == {w.key for w in built.workloads}, m

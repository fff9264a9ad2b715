"""The timeline's ``inadmissible`` events are failed head attempts, with Kueue's
``QuotaReserved=False`` reason and message (SC-MSG-1, SC-EVT-1); workloads parked along with a
head (SC-RQ-8) or on arrival get none; and a released preemption victim whose shape hash is
recorded as failed in its BestEffortFIFO queue is parked on return without evaluation
(SC-EV-3, SC-RQ-1)."""

from __future__ import annotations

from kueue_preempt.kperf.run import general_run
from kueue_preempt.kperf.scenario import build_scenario, parse_scenario
from kueue_preempt.sim.engine import SimulationOptions
from kueue_preempt.sim.output.timeline import Inadmissible, Preempted, RequeueRun, event_json, load_timeline, write_timeline

SCENARIO = """
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 4
    withinClusterQueue: LowerPriority
    workloadsSets:
    - {count: 1, creationIntervalMs: 100, workloads: [{className: v1, runtimeMs: 100000, priority: 0, request: 2}]}
    - {count: 1, creationIntervalMs: 100, workloads: [{className: v2, runtimeMs: 100000, priority: 0, request: 2}]}
    - {count: 1, creationIntervalMs: 200, workloads: [{className: x, runtimeMs: 1000, priority: 0, request: 2}]}
    - {count: 1, creationIntervalMs: 250, workloads: [{className: y, runtimeMs: 1000, priority: 0, request: 2}]}
    - {count: 1, creationIntervalMs: 300, workloads: [{className: h, runtimeMs: 100000, priority: 100, request: 2}]}
"""


def _run() -> list[tuple[float, str, str, str]]:
    built = build_scenario(parse_scenario(SCENARIO))
    # With the queue moves recorded: the run at 1.3 lists the workloads it moved.
    r = general_run(built, options=SimulationOptions(until=5, max_instants=None, queue_moves=True))
    out = []
    for e in r.timeline:
        d = event_json(e)
        if isinstance(e, RequeueRun):
            out.append((round(e.t, 6), d["event"], e.root, str(e.moved)))
            continue
        out.append((round(e.t, 6), d["event"], e.workload.split("/")[1].split("-")[0], d.get("reason", "")))  # type: ignore[union-attr]
    return out


def test_failed_attempts_only_and_a_returning_victim_parked_with_its_shape() -> None:
    """Quota 4. 0.1: v1, v2 (2 cpu, priority 0) admitted. 0.2: x (same shape) finds the queue
    full, no lower priority to preempt: a failed attempt (``WaitingForQuota``), parked, its shape
    recorded as failed. 0.25: y (same shape) arrives and is parked at once: no attempt, no event.
    0.3: h (priority 100) preempts one of the two and waits for it (its attempt failed too:
    ``WaitingForPreemptedWorkloads``); the victim is released and, its shape being failed in its
    queue, parked without evaluation — no attempt at 0.3 — and h is admitted. 1.3: the release's
    notify returns the parked ones; the head (the victim, created first) fails again and its
    shape parks the other two with it: one event."""
    tl = _run()
    victim = next(w for _, ev, w, _ in tl if ev == "preempted")
    attempts = [(t, w, reason) for t, ev, w, reason in tl if ev == "inadmissible"]
    assert attempts == [
        (0.2, "x", "WaitingForQuota"),
        (0.3, "h", "WaitingForPreemptedWorkloads"),
        (1.3, victim, "WaitingForQuota"),
    ]
    assert (0.3, "admitted", "h", "") in tl
    assert [(t, w) for t, ev, w, _ in tl if ev == "requeued"] == [(0.3, victim)] + [(1.3, w) for w in sorted([victim, "x", "y"])]
    runs = [(t, moved) for t, ev, _, moved in tl if ev == "requeue-run"]
    assert runs == [(1.3, "3")]


def test_inadmissible_events_carry_reason_and_message_through_the_timeline_file(tmp_path: object) -> None:
    built = build_scenario(parse_scenario(SCENARIO))
    r = general_run(built, options=SimulationOptions(until=5, max_instants=None))
    first = next(e for e in r.timeline if isinstance(e, Inadmissible))
    assert first.reason == "WaitingForQuota"
    assert first.message.startswith("couldn't assign flavors to pod set main: ")
    assert "2 more needed" in first.message
    d = event_json(first)
    assert (d["reason"], d["message"]) == (first.reason, first.message)
    import pathlib

    path = pathlib.Path(str(tmp_path)) / "t.jsonl"
    write_timeline(r.timeline, path)
    assert load_timeline(path) == r.timeline
    assert sum(isinstance(e, Preempted) for e in r.timeline) == 1

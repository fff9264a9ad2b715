"""The event loop wired to the real scheduling cycle (``CycleScheduler`` over ``schedule_cycle``).

Cluster (tests/sim_dump.py): cohort ``all`` = team-a + team-b, 4 CPUs nominal each, no
borrowing limits, ``withinClusterQueue: LowerPriority``, ``reclaimWithinCohort: Any``;
team-b/etl holds 2 CPUs from the start and runs until the end.
"""

from __future__ import annotations

import json
from kueue_preempt.cycle import ClusterState, CycleConfig
from kueue_preempt.io import ClusterDump, parse_documents
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.sim import Arrivals, parse_arrivals, resolve_arrivals
from kueue_preempt.sim.cycle_scheduler import CycleScheduler, cluster_state_for
from kueue_preempt.sim.engine import SimulationOptions, run_simulation
from kueue_preempt.sim.output.metrics import summarize
from kueue_preempt.sweep.evaluate import SimulationEvaluator
from kueue_preempt.sim.output.timeline import event_json
from kueue_preempt.sweep import DaskBackend, LocalBackend, Scenario, apply_value, parse_vary, run_sweep
import sim_dump


def _state() -> tuple[ClusterState, ClusterDump]:
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": sim_dump.OBJECTS})
    return cluster_state_from_objects(parse_documents(text, source="dump.json"))


STATE, DUMP = _state()
ROWS = [
    {"at": 0, "duration": 100, "template": "train", "name": "a1", "podSets": [{"count": 4}]},
    {"at": 0, "duration": 50, "template": "train", "name": "a2", "podSets": [{"count": 2}]},
    {"at": 10, "duration": 10, "template": "etl", "name": "b1", "podSets": [{"count": 2}]},
]


def _arrivals(dump: ClusterDump = DUMP) -> Arrivals:
    return resolve_arrivals(parse_arrivals("".join(json.dumps(r) + "\n" for r in ROWS)), dump)


def _brief(state: ClusterState = STATE, dump: ClusterDump = DUMP, **options: float) -> list[tuple[object, ...]]:
    result = run_simulation(CycleScheduler(state), dump, _arrivals(dump), options=SimulationOptions(**options))  # type: ignore[arg-type]
    out: list[tuple[object, ...]] = []
    for e in result.timeline:
        d = event_json(e)
        out.append((d["t"], d["event"], d.get("workload", d.get("root")), d.get("preemptor", d.get("reason", d.get("moved", "")))))
    return out


def test_reclaim_release_requeue_and_readmission_over_time() -> None:
    assert _brief() == [
        (0, "admitted", "team-b/etl", ""),
        (0, "arrived", "team-a/a1", ""),
        (0, "arrived", "team-a/a2", ""),
        # One head per ClusterQueue per cycle (SC-SIM-3): a1 in the first cycle (within
        # nominal), a2 in the second (borrowing team-b's 2 unused CPUs).
        (0, "admitted", "team-a/a1", ""),
        (0, "admitted", "team-a/a2", ""),
        (10, "arrived", "team-b/b1", ""),
        # The cohort is full (4 + 2 + etl 2); b1 is within team-b's nominal quota, so it
        # reclaims from team-a. a1 and a2 tie on priority and reservation time: the smaller
        # uid (a1, arrived first) is the first candidate (ORD-6) and alone frees enough.
        (10, "preempted", "team-a/a1", "team-b/b1"),
        # The preemptor's attempt failed (it waits for its victim): an `inadmissible` event
        # with the QuotaReserved=False reason Kueue writes (and its message).
        (10, "inadmissible", "team-b/b1", "WaitingForPreemptedWorkloads"),
        # Termination time 0: released right after the issuing cycle (SC-SIM-13 item 1),
        # back to the active set (SC-EV-3); b1 is admitted in the next cycle.
        (10, "released", "team-a/a1", ""),
        (10, "requeued", "team-a/a1", "Preempted"),
        (10, "admitted", "team-b/b1", ""),
        # a1 is nominated in the same cycle as b1 and skipped once b1 took the room ("no longer
        # fits", SC-PE-4: straight back to the active set), then fails again in the next cycle
        # and is parked: two failed attempts, two events.
        (10, "inadmissible", "team-a/a1", "WaitingForQuota"),
        (10, "inadmissible", "team-a/a1", "WaitingForQuota"),
        # The release notified the cohort; the batched requeue run comes 1 s later (SC-IN-3)
        # and moves a1 back: one event for the run, its root and how many it moved.
        (11, "requeue-run", "Cohort/all", 1),
        (11, "inadmissible", "team-a/a1", "WaitingForQuota"),
        (20, "finished", "team-b/b1", ""),
        (21, "requeue-run", "Cohort/all", 1),
        (21, "admitted", "team-a/a1", ""),
        (50, "finished", "team-a/a2", ""),
        # a1 runs its full 100 s again from its re-admission (SC-SIM-13 item 2).
        (121, "finished", "team-a/a1", ""),
    ]


def test_requeue_delay_zero_readmits_at_the_completion() -> None:
    timeline = _brief(inadmissible_requeue_delay=0)
    assert (20, "admitted", "team-a/a1", "") in timeline and (120, "finished", "team-a/a1", "") in timeline
    assert not any(t == 11 for t, *_ in timeline)


def test_deterministic_and_summarised() -> None:
    assert _brief() == _brief()
    result = run_simulation(CycleScheduler(STATE), DUMP, _arrivals())
    summary = summarize(result.timeline, dump=DUMP)
    a = summary.queue("team-a")
    assert (a.preemptions, a.wait.p50, a.wait.p99, a.finished) == (1, 0, 0, 2)
    assert summary.queue("team-b").wait.p50 == 0 and not summary.livelocks


def test_a_varied_quota_changes_the_outcome() -> None:
    """With team-b at 6 CPUs the cohort has room for b1: no preemption."""
    varied = apply_value(Scenario(DUMP), "clusterQueue/team-b/quota/default/cpu.nominal", "6")
    timeline = _brief(cluster_state_for(STATE, varied.dump), varied.dump)
    assert not any(e[1] == "preempted" for e in timeline)
    assert (10, "admitted", "team-b/b1", "") in timeline


def test_real_sweep_locally_and_on_dask_gives_equal_results() -> None:
    """Whole simulations per combination (SimulationEvaluator, pickled to the workers)."""
    base = Scenario(DUMP, config=CycleConfig().preemption)
    varies = [
        parse_vary("clusterQueue/team-b/quota/default/cpu.nominal=4,6"),
        parse_vary("config/fairSharing.enabled=false,true"),
    ]
    evaluate = SimulationEvaluator(STATE, parse_arrivals("".join(json.dumps(r) + "\n" for r in ROWS)))
    local = run_sweep(base, varies, evaluate, backend=LocalBackend(workers=2))
    # team-b at 6 CPUs has room for b1: no reclaim (test_a_varied_quota_changes_the_outcome).
    assert [r.metrics["preemptions"] for r in local.rows] == [1, 1, 0, 0]
    first = local.rows[0].metrics
    assert (first["team-a.preemptions"], first["team-a.wait.p99"], first["livelocks"]) == (1, 0, 0)
    with DaskBackend.local(workers=2) as dask:
        assert run_sweep(base, varies, evaluate, backend=dask) == local
    team_b = next(q for q in base.dump.cluster_queues if q.name == "team-b")
    assert [q.nominal for q in team_b.quotas.values()] == [4000]  # the base scenario is unchanged

"""The summary computed from a timeline, checked against hand-worked numbers (SC-SIM-13 item 8)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt import FlavorResource
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.sim.output.metrics import nearest_rank, summarize
from kueue_preempt.sim.output.report import summary_json, summary_table
from kueue_preempt.sim.output.timeline import Admitted, Arrived, Event, Finished, Livelock, Preempted, Released, Requeued
from sim_dump import small_dump

CPU = FlavorResource("default", "cpu")


def _adm(t: float, w: str, cq: str, cpu: int, initial: bool = False) -> Admitted:
    return Admitted(t, w, cq, usage={CPU: cpu}, initial=initial)


# Cohort "all" = team-a + team-b, 4 CPUs nominal each (sim_dump). Worked by hand below.
TIMELINE: list[Event] = [
    Arrived(0, "team-b/etl", "team-b", initial=True),
    _adm(0, "team-b/etl", "team-b", 2000, initial=True),
    Arrived(0, "team-a/a1", "team-a"),
    _adm(0, "team-a/a1", "team-a", 3000),
    Arrived(10, "team-a/a2", "team-a"),
    Arrived(10, "team-b/b1", "team-b"),
    _adm(20, "team-b/b1", "team-b", 3000),
    Preempted(30, "team-a/a1", "team-a", "team-a/a2", "InClusterQueue", victim_priority=0, preemptor_priority=5),
    Released(30, "team-a/a1", "team-a"),
    Requeued(30, "team-a/a1", "team-a", "Preempted"),
    _adm(30, "team-a/a2", "team-a", 4000),
    Finished(40, "team-b/b1", "team-b"),
    Preempted(50, "team-a/a2", "team-a", "team-a/a1", "InClusterQueue"),
    Released(50, "team-a/a2", "team-a"),
    _adm(50, "team-a/a1", "team-a", 3000),
    Finished(100, "team-a/a1", "team-a"),
]


def test_wait_percentiles_nearest_rank_per_queue_and_cohort() -> None:
    s = summarize(TIMELINE, dump=small_dump())
    a, b, cohort = s.queue("team-a"), s.queue("team-b"), s.queue("all", "Cohort")
    # waits: a1 0 (first admission only), a2 30-10 = 20, b1 20-10 = 10; etl is from the dump.
    assert (a.wait.count, a.wait.p50, a.wait.p90, a.wait.p99) == (2, 0, 20, 20)
    assert (b.wait.count, b.wait.p50, b.wait.p99) == (1, 10, 10)
    # cohort [0, 10, 20]: p50 = 2nd (ceil 1.5), p90 = 3rd (ceil 2.7)
    assert (cohort.wait.p50, cohort.wait.p90, cohort.wait.p99) == (10, 20, 20)
    assert [q.name for q in s.queues] == ["team-a", "team-b", "all"]


def test_utilization_counts_victims_until_release() -> None:
    s = summarize(TIMELINE, dump=small_dump())
    # team-a: 3000*30 + 4000*20 + 3000*50 = 320000 over 4000*100
    assert s.queue("team-a").utilization == {CPU: pytest.approx(0.8)}
    # team-b: etl 2000*100 + b1 3000*20 = 260000 over 400000
    assert s.queue("team-b").utilization == {CPU: pytest.approx(0.65)}
    # cohort: 580000 over its subtree quota 8000*100
    assert s.queue("all", "Cohort").utilization == {CPU: pytest.approx(0.725)}
    assert [(p.t, dict(p.usage)) for p in s.queue("team-a").usage] == [
        (0, {CPU: 3000}), (30, {CPU: 4000}), (50, {CPU: 3000}), (100, {})
    ]


def test_release_after_preemption_keeps_usage_until_release() -> None:
    events: list[Event] = [
        _adm(0, "team-a/x", "team-a", 1000),
        Preempted(10, "team-a/x", "team-a", "team-a/y", "InClusterQueue"),
        Released(15, "team-a/x", "team-a"),
    ]
    s = summarize(events, dump=small_dump(), until=20)
    # 1000 * 15 / (4000 * 20): counted until the release at 15, not the preemption at 10.
    assert s.queue("team-a").utilization[CPU] == pytest.approx(0.1875)


def test_drs_over_time() -> None:
    s = summarize(TIMELINE, dump=small_dump())
    # team-b borrows 1000 of the cohort's 8000 lendable cpu from 20 to 40: 1000*1000/8000 = 125.
    assert [(p.t, p.share) for p in s.queue("team-b").drs] == [(0, 0.0), (20, 125.0), (40, 0.0)]
    assert [(p.t, p.share) for p in s.queue("all", "Cohort").drs] == [(0, 0.0)]  # a root: FS-W-4


def test_preemptions_and_cycles() -> None:
    s = summarize(TIMELINE, dump=small_dump())
    a = s.queue("team-a")
    assert (a.preemptions, a.preempted_workloads, a.preemptions_per_workload, a.cycles) == (2, 2, 1.0, 1)
    assert s.queue("all", "Cohort").preemptions_per_workload == 0.5  # 2 over etl, a1, a2, b1
    (cycle,) = s.cycles
    assert (cycle.first.preemptor, cycle.second.preemptor) == ("team-a/a2", "team-a/a1")
    assert s.preemptions_by_workload == {"team-a/a1": 1, "team-a/a2": 1}
    assert s.queue("team-b").cycles == 0


def test_never_admitted_arrivals_are_counted_apart() -> None:
    s = summarize([Arrived(0, "q/x", "team-a"), Arrived(5, "q/y", "team-a"), _adm(7, "q/y", "team-a", 1)], dump=small_dump())
    w = s.queue("team-a").wait
    assert (w.count, w.p50, w.never_admitted) == (1, 2, 1)


def test_without_a_dump_only_cluster_queues_and_no_fractions() -> None:
    s = summarize(TIMELINE)
    assert [q.kind for q in s.queues] == ["ClusterQueue", "ClusterQueue"]
    assert s.queue("team-a").utilization == {} and s.queue("team-a").drs == ()


def test_livelocks_are_reported() -> None:
    s = summarize([Livelock(3, 50, ["a/x", "a/y"])])
    assert s.livelocks == (Livelock(3, 50, ["a/x", "a/y"]),)
    assert "LIVELOCK at 3 s: 50 cycles" in summary_table(s)


def test_json_and_table() -> None:
    s = summarize(TIMELINE, dump=small_dump())
    data = summary_json(s, series=True)
    json.dumps(data)  # serialisable
    team_b = data["queues"][1]
    assert team_b["wait"] == {"count": 1, "p50": 10, "p90": 10, "p99": 10, "neverAdmitted": 0}
    assert team_b["drs"][1] == {"t": 20, "share": 125}
    table = summary_table(s)
    assert table.splitlines()[0].split()[:3] == ["QUEUE", "KIND", "WORKLOADS"]
    assert "cycle: team-a/a2 preempted team-a/a1 at 30" in table


def test_until_before_last_event_is_rejected() -> None:
    with pytest.raises(ConfigurationError):
        summarize(TIMELINE, until=50)


def test_nearest_rank_by_hand() -> None:
    assert nearest_rank([15, 20, 35, 40, 50], 30) == 20  # ceil(1.5) = 2nd
    assert nearest_rank([15, 20, 35, 40, 50], 100) == 50
    assert nearest_rank([3, 1, 2], 0) == 1
    assert nearest_rank([], 50) is None
    with pytest.raises(ConfigurationError):
        nearest_rank([1], 101)


@given(st.lists(st.floats(0, 1e6), min_size=1, max_size=50), st.floats(0, 100))
def test_nearest_rank_is_an_element_with_enough_values_at_or_below(values: list[float], p: float) -> None:
    r = nearest_rank(values, p)
    assert r in values
    below = sum(1 for v in values if v <= r)
    assert below >= p / 100 * len(values) - 1e-9
    assert sum(1 for v in values if v < r) < max(1, p / 100 * len(values))

"""Kueue's time-sharing booster in the simulator (BOOST-1..BOOST-5, BOOST-9, BOOST-10) and
``policy/boost.window`` in sweeps.

Cluster (written out below): one ClusterQueue ``cq`` with 1 CPU of nominal quota — room for
one workload —, no cohort, ``withinClusterQueue: LowerPriority``; LocalQueue ``ns/lq``;
inactive templates ``ns/job`` (priority 0, label ``share: "yes"``) and ``ns/other`` (the same
without the label), one pod of 1 CPU each.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt.cli.main import main
from kueue_preempt.cycle import ClusterState, CycleConfig
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import ClusterDump, parse_documents
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.model import LabelSelector
from kueue_preempt.policies.boost import ThresholdBoostConfig, TimeSharingConfig
from kueue_preempt.model.priority import BOOST_ANNOTATION
from kueue_preempt.sim import ArrivalsFile, parse_arrivals, resolve_arrivals
from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.sim.controllers import TimeSharingController
from kueue_preempt.sim.cycle_scheduler import CycleScheduler
from kueue_preempt.sim.engine import SimulationOptions, SimulationResult, run_simulation
from kueue_preempt.sim.reference_scheduler import ReferenceCycleScheduler
from kueue_preempt.sim.run import controllers_for, simulate, with_policy
from kueue_preempt.sweep.evaluate import SimulationEvaluator
from kueue_preempt.sim.output.timeline import Admitted, Preempted, event_json
from kueue_preempt.policies import PolicySettings
from kueue_preempt.sweep import LocalBackend, Scenario, SweepPathError, apply_value, parse_vary, run_sweep
from kueue_preempt.sweep.scenario import parse_window

API = "kueue.x-k8s.io/v1beta2"


def _template(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": API,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ns", "labels": labels},
        "spec": {
            "queueName": "lq",
            "priority": 0,
            "active": False,
            "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}
            ],
        },
    }


OBJECTS: list[dict[str, Any]] = [
    {"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "default"}},
    {
        "apiVersion": API,
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "namespaceSelector": {},
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]}
            ],
            "preemption": {"withinClusterQueue": "LowerPriority"},
        },
    },
    {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "cq"}},
    _template("job", {"share": "yes"}),
    _template("other", {}),
]
DUMP_TEXT = json.dumps({"apiVersion": "v1", "kind": "List", "items": OBJECTS})


def _state() -> tuple[ClusterState, ClusterDump]:
    return cluster_state_from_objects(parse_documents(DUMP_TEXT, source="dump.json"))


STATE, DUMP = _state()
AB = [
    {"at": 0, "duration": 100, "template": "job", "name": "a"},
    {"at": 1, "duration": 100, "template": "job", "name": "b"},
]
TEN = TimeSharingConfig(interval="10s")


def _file(rows: Sequence[dict[str, Any]]) -> ArrivalsFile:
    return parse_arrivals("".join(json.dumps(r) + "\n" for r in rows))


def _brief(result: SimulationResult) -> list[tuple[object, ...]]:
    """(t, event, workload, preemptor or reason) of the timeline; inadmissible reasons cut short."""
    out: list[tuple[object, ...]] = []
    for e in result.timeline:
        d = event_json(e)
        detail = d.get("preemptor", d.get("reason", d.get("moved", "")))
        if d["event"] == "inadmissible":
            detail = ""
        out.append((d["t"], d["event"], d.get("workload", d.get("root")), detail))
    return out


def _preemptions(result: SimulationResult) -> list[tuple[float, str, str, int, int]]:
    return [(e.t, e.workload, e.preemptor, e.preemptor_boost, e.victim_boost) for e in result.timeline if isinstance(e, Preempted)]


# ------------------------------------------------------------------------- the worked scenario


def test_hand_worked_round_robin_with_requeue_delay_0() -> None:
    """Window 10 s, requeue delay 0 (SC-SIM-4), until 25.

    * 0: a arrives and is admitted (within nominal); its ``Admitted`` time is 0 and the loop
      asks the booster, after the cycles, when a's window ends: at 10 (BOOST-3, BOOST-7).
    * 1: b arrives; a and b have the same priority, and LowerPriority needs a strictly lower
      one: no candidate, b is parked (inadmissible). At 1 the booster sees elapsed 1 < 10: no
      write, requeue after 9 s.
    * 10: the booster wakes; a has been Admitted for 10 s = interval: boost −100000 (BOOST-3),
      annotation set (BOOST-4). a is charged and its effective priority changed: its queue is
      notified (SC-IN-4), the requeue run happens before the cycles (delay 0) and b returns to
      the active set. b (EP 0) now outranks a (EP −100000) and preempts it (BOOST-10,
      InClusterQueue); a is released and requeued (SC-EV-3), b is admitted, and a — still
      carrying its −100000 until the booster's next run — cannot preempt b and is parked.
    * 20: b's window ends (it was admitted at 10): b is boosted; a, no longer Admitted, has its
      annotation deleted (BOOST-3: not admitted → 0; BOOST-4: delete) and, parked, goes back to
      the active set (SC-RQ-1). a preempts b: round robin.

    Both keep restarting their 100 s (a re-admitted workload runs its whole duration again,
    SC-SIM-13 item 2), so neither finishes while they take turns every 10 s.
    """
    result = simulate(
        STATE, DUMP, _file(AB), policy=PolicySettings(time_sharing=TEN),
        options=SimulationOptions(until=25, inadmissible_requeue_delay=0),
    )
    assert _brief(result) == [
        (0, "arrived", "ns/a", ""),
        (0, "admitted", "ns/a", ""),
        (1, "arrived", "ns/b", ""),
        (1, "inadmissible", "ns/b", ""),
        (10, "requeue-run", "ClusterQueue/cq", 1),
        (10, "preempted", "ns/a", "ns/b"),
        (10, "inadmissible", "ns/b", ""),  # b's attempt that preempted a: it waits for a
        (10, "released", "ns/a", ""),
        (10, "requeued", "ns/a", "Preempted"),
        (10, "admitted", "ns/b", ""),
        (10, "inadmissible", "ns/a", ""),
        (20, "preempted", "ns/b", "ns/a"),
        (20, "inadmissible", "ns/a", ""),
        (20, "released", "ns/b", ""),
        (20, "requeued", "ns/b", "Preempted"),
        (20, "admitted", "ns/a", ""),
        (20, "inadmissible", "ns/b", ""),
    ]
    # Equal base priorities; the victim carries the booster's −100000 (BOOST-3), the preemptor 0.
    assert _preemptions(result) == [(10, "ns/a", "ns/b", 0, -100000), (20, "ns/b", "ns/a", 0, -100000)]
    preempted = [e for e in result.timeline if isinstance(e, Preempted)]
    assert {e.reason for e in preempted} == {"InClusterQueue"}
    assert result.instants == 4  # 0, 1, 10, 20: the booster woke exactly at the ends of the windows


def test_annotations_after_the_swap_at_10() -> None:
    """After the instant at 10: b, admitted at 10, has no annotation (elapsed 0, BOOST-3); a keeps
    the −100000 it was preempted with until the booster's next run — Kueue's booster would
    delete it a moment after the eviction; here that reaction lands at the next instant."""
    scheduler = CycleScheduler(STATE, with_policy(CycleConfig(), PolicySettings(time_sharing=TEN)))
    run_simulation(
        scheduler, DUMP, resolve_arrivals(_file(AB), DUMP), controllers=[TimeSharingController(TEN)],
        options=SimulationOptions(until=15, inadmissible_requeue_delay=0),
    )
    a, b = scheduler.state.workloads["ns/a"], scheduler.state.workloads["ns/b"]
    assert a.annotations.get(BOOST_ANNOTATION) == "-100000" and not a.cluster_queue
    assert BOOST_ANNOTATION not in b.annotations and b.cluster_queue == "cq"


def test_with_kueues_requeue_delay_the_preemption_follows_one_second_later() -> None:
    """Default delay 1 s (SC-IN-3): the boost at 10 notifies the queue (SC-IN-4), whose requeue run
    is at 11 — b preempts a at 11, and b's own window then ends at 21, its preemption at 22."""
    result = simulate(STATE, DUMP, _file(AB), policy=PolicySettings(time_sharing=TEN), options=SimulationOptions(until=25))
    assert _preemptions(result) == [(11, "ns/a", "ns/b", 0, -100000), (22, "ns/b", "ns/a", 0, -100000)]


def test_the_window_wakes_the_booster_when_nothing_else_happens() -> None:
    """a and b both arrive at 0.25 and nothing else is due before a finishes at 100.25: only the
    booster's own wake-up, asked for after the cycles that admitted a (WatchesCycles), makes
    an instant at exactly 0.25 + 2.5 = 2.75 (a Go duration with a fraction, BOOST-1)."""
    rows = [
        {"at": 0.25, "duration": 100, "template": "job", "name": "a"},
        {"at": 0.25, "duration": 100, "template": "job", "name": "b"},
    ]
    instants: list[float] = []
    result = simulate(
        STATE, DUMP, _file(rows), policy=PolicySettings(time_sharing=TimeSharingConfig(interval="2.5s")),
        options=SimulationOptions(until=6, inadmissible_requeue_delay=0), progress=instants.append,
    )
    assert instants == [0, 0.25, 2.75, 5.25]
    assert _preemptions(result) == [(2.75, "ns/a", "ns/b", 0, -100000), (5.25, "ns/b", "ns/a", 0, -100000)]


def test_with_the_api_model_each_window_still_starts_at_the_admission() -> None:
    """With Kueue's API throughput modelled (writes take time, the scheduler waits for its
    eviction writes), admissions land at odd times; each preemption still comes exactly one
    window (10 s, BOOST-3) plus the requeue delay (1 s, SC-IN-3) after the victim's admission."""
    result = simulate(
        STATE, DUMP, _file(AB), policy=PolicySettings(time_sharing=TEN),
        options=SimulationOptions(until=45, api=ApiModel(qps=50, burst=100)),
    )
    admitted: dict[str, float] = {}
    gaps: list[float] = []
    for e in result.timeline:
        if isinstance(e, Admitted):
            admitted[e.workload] = e.t
        elif isinstance(e, Preempted):
            gaps.append(round(e.t - admitted[e.workload], 6))
    assert gaps == [11.0, 11.0, 11.0, 11.0]


def test_without_the_booster_b_waits_for_a() -> None:
    """a finishes at 100; its queue's requeue run is at 101 (SC-IN-3), where b is admitted."""
    result = simulate(STATE, DUMP, _file(AB), options=SimulationOptions(until=250))
    assert _preemptions(result) == []
    assert [(e.t, e.workload) for e in result.timeline if isinstance(e, Admitted)] == [(0, "ns/a"), (101, "ns/b")]


def test_the_incremental_scheduler_and_the_reference_agree() -> None:
    """The same timeline from CycleScheduler and the from-scratch ReferenceCycleScheduler."""
    arrivals = resolve_arrivals(_file(AB), DUMP)
    config = with_policy(CycleConfig(), PolicySettings(time_sharing=TEN))
    options = SimulationOptions(until=45)
    fast = run_simulation(CycleScheduler(STATE, config), DUMP, arrivals, controllers=[TimeSharingController(TEN)], options=options)
    slow = run_simulation(ReferenceCycleScheduler(STATE, config), DUMP, arrivals, controllers=[TimeSharingController(TEN)], options=options)
    assert [event_json(e) for e in fast.timeline] == [event_json(e) for e in slow.timeline]
    assert len(_preemptions(fast)) == 4


# ------------------------------------------------------------------------- scope (BOOST-2, BOOST-5)


def test_max_workload_priority_keeps_higher_base_priorities_out_of_scope() -> None:
    """BOOST-2: base priority 5 > maxWorkloadPriority 0: a is never boosted, b waits for it
    (admitted at a's completion, 100, plus the requeue delay of 1 s)."""
    rows = [dict(r, priority=5) for r in AB]
    config = TimeSharingConfig(interval="10s", max_workload_priority=0)
    result = simulate(STATE, DUMP, _file(rows), policy=PolicySettings(time_sharing=config), options=SimulationOptions(until=250))
    assert _preemptions(result) == []
    assert [(e.t, e.workload) for e in result.timeline if isinstance(e, Admitted)] == [(0, "ns/a"), (101, "ns/b")]


def test_the_selector_keeps_unlabelled_workloads_out_of_scope() -> None:
    """BOOST-2: the selector ``share=yes`` does not match ``other``: a (from ``other``) runs its
    100 s untouched; once b (from ``job``, in scope) runs, c (in scope) takes its turn."""
    rows = [
        {"at": 0, "duration": 100, "template": "other", "name": "a"},
        {"at": 1, "duration": 100, "template": "job", "name": "b"},
        {"at": 1, "duration": 100, "template": "job", "name": "c"},
    ]
    config = TimeSharingConfig(interval="10s", workload_selector=LabelSelector(match_labels={"share": "yes"}))
    result = simulate(
        STATE, DUMP, _file(rows), policy=PolicySettings(time_sharing=config),
        options=SimulationOptions(until=115, inadmissible_requeue_delay=0),
    )
    assert [(e.t, e.workload) for e in result.timeline if isinstance(e, Admitted)] == [(0, "ns/a"), (100, "ns/b"), (110, "ns/c")]
    assert _preemptions(result) == [(110, "ns/b", "ns/c", 0, -100000)]


def test_out_of_scope_only_negative_leftovers_are_removed_and_in_scope_manual_boosts_go() -> None:
    """BOOST-5: out of scope (``other``), a negative annotation (the booster's own leftover) is
    deleted, a positive one is left; BOOST-4: in scope (``job``), a manual positive annotation
    is deleted while the computed boost is 0. All three are pending (the quota holds one)."""
    rows = [
        {"at": 0, "duration": 100, "template": "other", "name": "keep", "annotations": {BOOST_ANNOTATION: "7"}},
        {"at": 0, "duration": 100, "template": "other", "name": "leftover", "annotations": {BOOST_ANNOTATION: "-5"}},
        {"at": 0, "duration": 100, "template": "job", "name": "manual", "annotations": {BOOST_ANNOTATION: "7"}},
    ]
    config = TimeSharingConfig(interval="10s", workload_selector=LabelSelector(match_labels={"share": "yes"}))
    scheduler = CycleScheduler(STATE, with_policy(CycleConfig(), PolicySettings(time_sharing=config)))
    run_simulation(
        scheduler, DUMP, resolve_arrivals(_file(rows), DUMP), controllers=[TimeSharingController(config)],
        options=SimulationOptions(until=1),
    )
    annotations = {k: scheduler.state.workloads[k].annotations.get(BOOST_ANNOTATION) for k in ("ns/keep", "ns/leftover", "ns/manual")}
    assert annotations == {"ns/keep": "7", "ns/leftover": None, "ns/manual": None}


def test_a_dump_workload_admitted_long_ago_is_boosted_at_once() -> None:
    """BOOST-3 with elapsed ≥ interval from the start: a dump workload Admitted an hour before the
    simulation starts gets the boost at 0, and an equal-priority arrival preempts it at 0."""
    admitted = dict(
        OBJECTS[3],
        metadata={"name": "old", "namespace": "ns", "labels": {"share": "yes"}},
        spec=dict(OBJECTS[3]["spec"], active=True),
        status={
            "admission": {
                "clusterQueue": "cq",
                "podSetAssignments": [{"name": "main", "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1"}, "count": 1}],
            },
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "", "lastTransitionTime": "2025-12-31T23:00:00Z"},
                {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "", "lastTransitionTime": "2025-12-31T23:00:00Z"},
            ],
        },
    )
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [*OBJECTS, admitted]})
    state, dump = cluster_state_from_objects(parse_documents(text, source="dump.json"))
    rows = [{"at": 0, "duration": 50, "template": "job", "name": "new"}]
    result = simulate(
        state, dump, _file(rows), policy=PolicySettings(time_sharing=TimeSharingConfig(interval="30m")),
        options=SimulationOptions(until=5, inadmissible_requeue_delay=0),
    )
    assert _preemptions(result) == [(0, "ns/old", "ns/new", 0, -100000)]


# ------------------------------------------------------------------------- property


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    interval=st.integers(min_value=1, max_value=20),
    arrivals=st.lists(st.tuples(st.integers(0, 30), st.integers(1, 40)), min_size=1, max_size=5),
    delay=st.sampled_from([0.0, 1.0]),
)
def test_every_preemption_comes_after_the_victims_window(
    interval: int, arrivals: list[tuple[int, int]], delay: float
) -> None:
    """Equal priorities: without a boost LowerPriority never preempts (POL-7), so every
    preemption is time sharing — the victim carries −negativeBoost, the preemptor nothing, and
    the victim has been admitted for at least the window (BOOST-3, BOOST-10)."""
    rows = [{"at": at, "duration": d, "template": "job", "name": f"w{i}"} for i, (at, d) in enumerate(arrivals)]
    config = TimeSharingConfig(interval=timedelta(seconds=interval))
    result = simulate(
        STATE, DUMP, _file(rows), policy=PolicySettings(time_sharing=config),
        options=SimulationOptions(until=120, inadmissible_requeue_delay=delay),
    )
    last_admitted: dict[str, float] = {}
    for e in result.timeline:
        if isinstance(e, Admitted):
            last_admitted[e.workload] = e.t
        elif isinstance(e, Preempted):
            assert (e.preemptor_boost, e.victim_boost) == (0, -100000)
            assert e.t - last_admitted[e.workload] >= interval


# ------------------------------------------------------------------------- library wiring


def test_policy_settings_run_one_booster_and_turn_the_gate_on() -> None:
    policy = PolicySettings(time_sharing=TEN, cost_base=0)
    assert [type(c).__name__ for c in controllers_for(policy)] == ["TimeSharingController", "CostController"]
    assert with_policy(CycleConfig(), policy).preemption.priority_boost  # BOOST-10: gate PriorityBoost
    with pytest.raises(ConfigurationError, match="both write the priority-boost annotation"):
        PolicySettings(boost=ThresholdBoostConfig(), time_sharing=TEN)


def test_a_disabled_config_still_runs_the_boost_4_cleanup() -> None:
    """BOOST-4: interval 0 disables boosting, not the controller: a manual annotation on an
    in-scope workload is removed (as Kueue's booster started with an empty interval does)."""
    rows = [{"at": 0, "duration": 100, "template": "job", "name": "m", "annotations": {BOOST_ANNOTATION: "7"}}]
    config = TimeSharingConfig()
    assert not config.enabled
    scheduler = CycleScheduler(STATE, with_policy(CycleConfig(), PolicySettings(time_sharing=config)))
    run_simulation(
        scheduler, DUMP, resolve_arrivals(_file(rows), DUMP), controllers=controllers_for(PolicySettings(time_sharing=config)),
        options=SimulationOptions(until=1),
    )
    assert BOOST_ANNOTATION not in scheduler.state.workloads["ns/m"].annotations


# ------------------------------------------------------------------------- sweep paths


def _policy(*settings_: tuple[str, str]) -> PolicySettings:
    scenario = Scenario(DUMP)
    for path, value in settings_:
        scenario = apply_value(scenario, path, value)
    return scenario.policy


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("30m", 1800), ("1h30m", 5400), ("1.5h", 5400), ("600", 600), ("0.5", 0.5), ("300ms", 0.3)],
)
def test_the_window_is_a_go_duration_or_seconds(value: str, seconds: float) -> None:
    policy = _policy(("policy/boost.window", value))
    assert policy.time_sharing is not None
    assert policy.time_sharing.interval == timedelta(seconds=seconds)
    assert policy.time_sharing.negative_boost == 100000  # BOOST-1 default


@pytest.mark.parametrize("value", ["0", "none", "off", "0s", "0.0"])
def test_a_zero_window_turns_the_booster_off(value: str) -> None:
    assert _policy(("policy/boost.window", "10m"), ("policy/boost.window", value)).time_sharing is None


def test_time_sharing_fields_keep_each_other_in_either_order() -> None:
    one = _policy(("policy/timeSharing.negativeBoost", "500"), ("policy/boost.window", "10"))
    two = _policy(("policy/boost.window", "10"), ("policy/timeSharing.negativeBoost", "500"))
    assert one == two == PolicySettings(time_sharing=TimeSharingConfig(interval=timedelta(seconds=10), negative_boost=500))
    limited = _policy(("policy/timeSharing.interval", "1m"), ("policy/timeSharing.maxWorkloadPriority", "100"))
    assert limited.time_sharing == TimeSharingConfig(interval="1m", max_workload_priority=100)
    assert _policy(("policy/boost.window", "1m"), ("policy/timeSharing.maxWorkloadPriority", "none")).time_sharing == TimeSharingConfig(
        interval="1m"
    )


@pytest.mark.parametrize(
    ("path", "value"),
    [
        ("policy/boost.window", "soon"),
        ("policy/boost.window", "-5m"),
        ("policy/boost.window", "-3"),
        ("policy/boost.window", "inf"),
        ("policy/boost.window", "10 parsecs"),
        ("policy/timeSharing.interval", "1d"),
        ("policy/timeSharing.negativeBoost", "lots"),
        ("policy/timeSharing.negativeBoost", str(2**31)),
        ("policy/timeSharing.maxWorkloadPriority", "1.5"),
    ],
)
def test_bad_values_name_the_path(path: str, value: str) -> None:
    with pytest.raises(SweepPathError) as err:
        apply_value(Scenario(DUMP), path, value)
    assert err.value.path == path and str(err.value).startswith(f"--vary {path}: ")


def test_two_boosters_in_one_combination_are_refused_naming_the_path() -> None:
    base = Scenario(DUMP, policy=PolicySettings(boost=ThresholdBoostConfig()))
    with pytest.raises(SweepPathError, match=r"--vary policy/boost.window: .*both write"):
        apply_value(base, "policy/boost.window", "10m")
    with pytest.raises(SweepPathError, match=r"--vary policy/boost.enabled: .*both write"):
        apply_value(Scenario(DUMP, policy=PolicySettings(time_sharing=TEN)), "policy/boost.enabled", "true")


def test_unknown_time_sharing_field() -> None:
    with pytest.raises(SweepPathError, match="unknown policy field 'timeSharing.duration'"):
        parse_vary("policy/timeSharing.duration=30m")


def test_parse_window_errors_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="--time-sharing-interval: invalid duration 'x'"):
        parse_window("x", where="--time-sharing-interval")
    assert parse_window(" 2m ") == timedelta(minutes=2) and parse_window("none") is None


def test_sweep_over_the_window_locally() -> None:
    """``policy/boost.window=0,10`` on two worker processes: off, b waits for a (no preemption);
    10 s (default requeue delay 1 s): preemptions at 11, 22, 33, 44 before 45 (see above)."""
    base = Scenario(DUMP, config=CycleConfig().preemption)
    evaluate = SimulationEvaluator(STATE, _file(AB), SimulationOptions(until=45))
    result = run_sweep(base, [parse_vary("policy/boost.window=0,10")], evaluate, backend=LocalBackend(workers=2))
    assert [r.settings for r in result.rows] == [(("policy/boost.window", "0"),), (("policy/boost.window", "10"),)]
    assert [r.metrics["preemptions"] for r in result.rows] == [0, 4]
    assert [r.metrics["preemptionCycles"] for r in result.rows] == [0, 3]  # a↔b, each pair a cycle


# ------------------------------------------------------------------------- CLI


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "dump.json").write_text(DUMP_TEXT)
    (tmp_path / "arr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in AB))
    return tmp_path


def _simulate(capsys: pytest.CaptureFixture[str], files: Path, *extra: str) -> tuple[int, dict[str, Any], str]:
    code = main(["simulate", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"), "--until", "45", "-o", "json", *extra])
    out, err = capsys.readouterr()
    return code, json.loads(out) if out else {}, err


def _cq_preemptions(doc: dict[str, Any]) -> int:
    (cq,) = [q for q in doc["summary"]["queues"] if q["name"] == "cq"]
    return int(cq["preemptions"])


def test_cli_time_sharing_interval(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, doc, err = _simulate(capsys, files, "--time-sharing-interval", "10s")
    assert code == 0 and err == "" and _cq_preemptions(doc) == 4
    code, doc, _ = _simulate(capsys, files, "--time-sharing-interval", "0")
    assert code == 0 and _cq_preemptions(doc) == 0


def test_cli_time_sharing_file(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Kueue's booster YAML (BOOST-1); --time-sharing-interval replaces its interval."""
    (files / "booster.yaml").write_text("timeSharing:\n  interval: 10s\n  negativeBoost: 5\nmaxWorkloadPriority: 0\n")
    code, doc, _ = _simulate(capsys, files, "--time-sharing", str(files / "booster.yaml"))
    assert code == 0 and _cq_preemptions(doc) == 4
    code, doc, _ = _simulate(capsys, files, "--time-sharing", str(files / "booster.yaml"), "--time-sharing-interval", "30s")
    assert code == 0 and _cq_preemptions(doc) == 1  # window ends at 30, preemption at 31, then b's window runs past 45


def test_cli_readme_config_is_read_like_kueue_and_warned_about(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """BOOST-1: the README's ``duration`` key is ignored, so the booster boosts nothing."""
    (files / "booster.yaml").write_text("timeSharing:\n  duration: 10s\n")
    code, doc, err = _simulate(capsys, files, "--time-sharing", str(files / "booster.yaml"))
    assert code == 0 and _cq_preemptions(doc) == 0
    assert "timeSharing.interval is empty or 0" in err and "'duration' key is not read" in err


def test_cli_bad_inputs(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "bad.yaml").write_text("timeSharing:\n  interval: 10 minutes\n")
    code, _, err = _simulate(capsys, files, "--time-sharing", str(files / "bad.yaml"))
    assert code != 0 and "bad.yaml" in err and "invalid duration '10 minutes'" in err
    code, _, err = _simulate(capsys, files, "--time-sharing-interval", "10", "--boost")
    assert code != 0 and "both write the priority-boost annotation" in err
    code, _, err = _simulate(capsys, files, "--time-sharing-interval=-1m")
    assert code != 0 and "--time-sharing-interval: a window must not be negative" in err


def test_cli_sweep_over_the_window(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main([
        "sweep", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"), "--until", "45",
        "--vary", "policy/boost.window=0,10s,30s", "--workers", "1", "-o", "json",
    ])
    doc = json.loads(capsys.readouterr().out)
    assert code == 0
    assert [run["metrics"]["preemptions"] for run in doc["runs"]] == [0, 4, 1]


def test_cli_without_until_warns_and_the_endless_turns_are_bounded(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """a and b take turns for ever (each re-admission restarts its 100 s, SC-SIM-13 item 2): the
    CLI says to give --until, and --max-instants stops the run, reported with exit 1."""
    code = main([
        "simulate", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"),
        "--time-sharing-interval", "10s", "--max-instants", "20", "-o", "json",
    ])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 1 and doc["truncated"] and doc["instants"] == 20
    assert "time sharing without --until" in err


# ------------------------------------------------------------ checkpoint credit (decision ts-d)


def test_with_checkpoint_credit_both_jobs_finish_after_25_seconds_of_work() -> None:
    """``resume_after_preemption``: the same round robin with 25 s jobs, window 10 s, delay 0.

    * 0–10 a runs (10 of 25 done); at 10 b preempts it (BOOST-10) and a keeps 15 s to do.
    * 10–20 b runs (15 left); 20–30 a runs (5 left); 30–40 b runs (5 left).
    * 40: a preempts b and runs its last 5 s: it finishes at 45 (its finish scheduled at 35 from
      the 20 admission is stale: the eviction at 30 cancelled it).
    * 45: a's completion releases the quota (SC-SIM-6), b is requeued and admitted and runs its
      last 5 s: it finishes at 50. Without the credit neither would ever finish (SC-SIM-13 item 2).
    """
    rows = [dict(r, duration=25) for r in AB]
    result = simulate(
        STATE, DUMP, _file(rows), policy=PolicySettings(time_sharing=TEN),
        options=SimulationOptions(until=100, inadmissible_requeue_delay=0, resume_after_preemption=True),
    )
    finished = [(d["t"], d["workload"]) for d in map(event_json, result.timeline) if d["event"] == "finished"]
    assert finished == [(45, "ns/a"), (50, "ns/b")]
    assert [(t, w, p) for t, w, p, *_ in _preemptions(result)] == [
        (10, "ns/a", "ns/b"),
        (20, "ns/b", "ns/a"),
        (30, "ns/a", "ns/b"),
        (40, "ns/b", "ns/a"),
    ]
    admitted = [(e.t, e.workload) for e in result.timeline if isinstance(e, Admitted)]
    assert admitted == [(0, "ns/a"), (10, "ns/b"), (20, "ns/a"), (30, "ns/b"), (40, "ns/a"), (45, "ns/b")]
    # Without the credit: the full 25 s again after every preemption — nobody finishes by 100.
    plain = simulate(
        STATE, DUMP, _file(rows), policy=PolicySettings(time_sharing=TEN),
        options=SimulationOptions(until=100, inadmissible_requeue_delay=0),
    )
    assert not [e for e in map(event_json, plain.timeline) if e["event"] == "finished"]


def test_checkpoint_credit_with_the_api_model_counts_from_the_observed_start() -> None:
    """With the API model a run starts when its admission write completes (decision kp-a), so
    the credit is the time since then; an ample bucket adds only the write latency. (The
    runner's Finished write is left out: it would end each run one round trip late.)"""
    rows = [dict(r, duration=25) for r in AB]
    api = ApiModel(qps=1000.0, burst=1000, disabled=["runner-writes"])
    result = simulate(
        STATE, DUMP, _file(rows), policy=PolicySettings(time_sharing=TEN),
        options=SimulationOptions(until=200, inadmissible_requeue_delay=0, resume_after_preemption=True, api=api),
    )
    finished = [d["workload"] for d in map(event_json, result.timeline) if d["event"] == "finished"]
    assert sorted(finished) == ["ns/a", "ns/b"]
    # Each workload's runs (observed start to preemption or finish) add up to its 25 s.
    seen = dict.fromkeys(("ns/a", "ns/b"), 0.0)
    starts: dict[str, float] = {}
    ends = {(e.t, e.workload) for e in result.timeline if isinstance(e, Preempted)}
    ends |= {(d["t"], d["workload"]) for d in map(event_json, result.timeline) if d["event"] == "finished"}
    events = sorted([(t, 1, w) for w, t in result.admitted_seen] + [(t, 0, w) for t, w in ends])
    for t, kind, w in events:
        if kind == 1:
            starts[w] = t
        elif w in starts:
            seen[w] += t - starts.pop(w)
    assert seen == pytest.approx({"ns/a": 25.0, "ns/b": 25.0}, abs=1e-6)


def test_resume_after_preemption_must_be_a_bool() -> None:
    with pytest.raises(ConfigurationError, match="resume_after_preemption"):
        SimulationOptions(resume_after_preemption="yes")  # type: ignore[arg-type]


def test_cli_resume_after_preemption_lets_the_turns_end(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The 100 s jobs of the fixture, window 10 s, Kueue's 1 s requeue delay, no --until: with
    the credit each job does its 100 s in turns and the run ends by itself (no warning)."""
    code = main([
        "simulate", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"),
        "--time-sharing-interval", "10s", "--resume-after-preemption", "-o", "json",
    ])
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert code == 0 and not doc["truncated"] and err == ""
    (cq,) = [q for q in doc["summary"]["queues"] if q["name"] == "cq"]
    assert cq["finished"] == 2

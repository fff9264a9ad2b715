"""The reference controllers in the event loop: the preemption-count booster (BOOST-12) and the
preemption-cost controller (COST-6), run at each instant before the cycles.

Scenario (tests/sim_dump.py, team-a 4 CPUs, cohort free capacity 2 CPUs): ``w`` (priority 0,
4 CPUs, 100 s) is admitted at 0; ``h1`` (priority 50, 4 CPUs, 5 s) arrives at 10 and preempts
it (LowerPriority); ``h2`` (the same) arrives at 30.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Sequence

import pytest

from kueue_preempt.errors import UnsupportedConfiguration
from kueue_preempt.policies.boost import ThresholdBoostConfig
from kueue_preempt.model.priority import BOOST_ANNOTATION
from kueue_preempt.sim import parse_arrivals, resolve_arrivals
from kueue_preempt.sim.controllers import BoostController, CostController
from kueue_preempt.sim.cycle_scheduler import CycleScheduler
from kueue_preempt.sim.engine import SimulationOptions, run_simulation
from kueue_preempt.sim.output.metrics import summarize
from kueue_preempt.sim.run import simulate, with_policy
from kueue_preempt.sweep.evaluate import SimulationEvaluator
from kueue_preempt.sim.output.timeline import Admitted, Preempted
from kueue_preempt.cycle import CycleConfig
from kueue_preempt.policies import PolicySettings
from kueue_preempt.sweep import LocalBackend, Scenario, parse_vary, run_sweep
from test_sim_cycle import DUMP, STATE
from test_sim_engine import FakeScheduler
from sim_dump import small_dump

ROWS = [
    {"at": 0, "duration": 100, "template": "train", "name": "w", "priority": 0, "podSets": [{"count": 4}]},
    {"at": 10, "duration": 5, "template": "train", "name": "h1", "priority": 50, "podSets": [{"count": 4}]},
    {"at": 30, "duration": 5, "template": "train", "name": "h2", "priority": 50, "podSets": [{"count": 4}]},
]
FILE = parse_arrivals("".join(json.dumps(r) + "\n" for r in ROWS))
NAIVE = ThresholdBoostConfig(every_n=1, step=100, cap=None)


def _admissions(events: Sequence[object], key: str) -> list[float]:
    return [e.t for e in events if isinstance(e, Admitted) and e.workload == key]


def test_without_a_booster_w_is_preempted_twice() -> None:
    result = simulate(STATE, DUMP, FILE)
    victims = [(e.t, e.workload, e.preemptor) for e in result.timeline if isinstance(e, Preempted)]
    assert victims == [(10, "team-a/w", "team-a/h1"), (30, "team-a/w", "team-a/h2")]


def test_default_booster_boost_after_the_second_preemption_flips_the_order() -> None:
    """BOOST-12 defaults (every 2 preemptions +100): w's first preemption (10) earns nothing;
    after the second (30, by h2) the booster, at the next instant, gives w boost 100 — EP 100
    over h2's 50 — and w preempts h2 back at 31: one preemption cycle, found in the summary."""
    result = simulate(STATE, DUMP, FILE, policy=PolicySettings(boost=ThresholdBoostConfig()))
    preempted = [(e.t, e.workload, e.preemptor, e.preemptor_boost, e.victim_boost) for e in result.timeline if isinstance(e, Preempted)]
    assert preempted == [
        (10, "team-a/w", "team-a/h1", 0, 0),
        (30, "team-a/w", "team-a/h2", 0, 0),
        (31, "team-a/h2", "team-a/w", 100, 0),
    ]
    assert _admissions(result.timeline, "team-a/w") == [0, 16, 31]
    assert _admissions(result.timeline, "team-a/h2") == [30, 132]  # after w's 100 s (131) + 1 s
    (cycle,) = summarize(result.timeline, dump=DUMP).cycles
    assert (cycle.first.preemptor, cycle.second.preemptor) == ("team-a/h2", "team-a/w")


def test_naive_booster_escalates_for_ever_and_the_run_is_bounded() -> None:
    """every_n 1 without cap: each preemption raises the victim above its preemptor, so w and
    h1 preempt each other every second (each requeue run) — the recurring cycle the KEP warns
    about. ``max_instants`` stops the run instead of hanging."""
    result = simulate(STATE, DUMP, FILE, policy=PolicySettings(boost=NAIVE), options=SimulationOptions(max_instants=5))
    preempted = [(e.t, e.workload, e.preemptor, e.preemptor_boost, e.victim_boost) for e in result.timeline if isinstance(e, Preempted)]
    assert preempted == [
        (10, "team-a/w", "team-a/h1", 0, 0),
        (11, "team-a/h1", "team-a/w", 100, 0),
        (12, "team-a/w", "team-a/h1", 100, 100),
        (13, "team-a/h1", "team-a/w", 200, 100),
    ]
    assert result.truncated and result.instants == 5
    assert len(summarize(result.timeline, dump=DUMP).cycles) == 3


def test_the_booster_writes_the_annotation_and_the_cost_controller_the_cost() -> None:
    scheduler = CycleScheduler(STATE, with_policy(CycleConfig(), PolicySettings(boost=NAIVE, cost_base=5)))
    arrivals = resolve_arrivals(FILE, DUMP)
    run_simulation(scheduler, DUMP, arrivals, controllers=[BoostController(NAIVE), CostController(5)], options=SimulationOptions(until=11))
    w = scheduler.state.workloads["team-a/w"]
    assert w.annotations.get(BOOST_ANNOTATION) == "100"
    assert w.preemption_cost == Decimal(6)  # COST-6: base 5 + one preemption
    # h1 was preempted by w in the cycles at 11, after the controllers ran: no boost yet, and
    # with boost 0 the annotation is not written at all (BOOST-4).
    h1 = scheduler.state.workloads["team-a/h1"]
    assert BOOST_ANNOTATION not in h1.annotations and h1.evictions[0].count == 1


def test_with_policy_turns_the_gates_on() -> None:
    config = with_policy(CycleConfig(), PolicySettings(boost=NAIVE, cost_base=0))
    assert config.preemption.priority_boost and config.preemption.preemption_cost_enabled
    assert not CycleConfig().preemption.priority_boost  # Kueue's default, unchanged without a policy


def test_a_scheduler_without_updates_cannot_run_controllers() -> None:
    dump = small_dump()
    with pytest.raises(UnsupportedConfiguration, match="update_workloads"):
        run_simulation(FakeScheduler(dump), dump, resolve_arrivals(FILE, dump), controllers=[BoostController(NAIVE)])


def test_sweep_over_the_boost_step() -> None:
    base = Scenario(DUMP, config=CycleConfig().preemption)
    varies = [parse_vary("policy/boost.everyN=1"), parse_vary("policy/boost.step=0,100")]
    result = run_sweep(base, varies, SimulationEvaluator(STATE, FILE, SimulationOptions(until=60)), backend=LocalBackend(workers=1))
    # step 0: plain LowerPriority, w preempted by h1 and h2; step 100: the ping-pong above
    # (h1 and w preempt each other every second until 60).
    assert [r.metrics["preemptions"] for r in result.rows][0] == 2
    boosted = result.rows[1].metrics
    assert isinstance(boosted["preemptions"], int) and boosted["preemptions"] > 10
    assert boosted["preemptionCycles"] == boosted["preemptions"] - 1

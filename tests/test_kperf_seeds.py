"""A scenario over several head-order seeds: ``run_seeds``, its spread and ``simulate --seeds``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kueue_preempt.cli.main import main
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.kperf.run import ScenarioOptions, run_scenario
from kueue_preempt.kperf.scenario import BuiltScenario, build_scenario, parse_scenario
from kueue_preempt.kperf.seeds import Spread, run_seeds, seed_spread
from kueue_preempt.sim.api_model import ApiModel

# Two ClusterQueues of one cohort whose streams create at the same instants: their heads tie,
# so the head order decides who borrows first.
SCENARIO = """
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 3
    nominalQuota: 2
    borrowingLimit: 2
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 6
      creationIntervalMs: 300
      workloads:
      - {className: small, runtimeMs: 700, priority: 50, request: 1}
    - count: 3
      creationIntervalMs: 500
      workloads:
      - {className: large, runtimeMs: 900, priority: 50, request: 3}
"""


@pytest.fixture(scope="module")
def built() -> BuiltScenario:
    return build_scenario(parse_scenario(SCENARIO, source="gen.yaml"))


def test_run_seeds_is_one_run_per_seed_and_their_spread(built: BuiltScenario) -> None:
    options = ScenarioOptions(api=ApiModel(50, 100))
    runs, spread = run_seeds(built, options, 3, first=4)
    assert spread.seeds == (4, 5, 6)
    assert [r.options.head_order_seed for r in runs] == [4, 5, 6]
    # Each run is the run of its seed: the same as a single run with that seed.
    again = run_scenario(built, ScenarioOptions(api=ApiModel(50, 100), head_order_seed=5))
    assert again.summary == runs[1].summary
    for cls, s in spread.time_to_admission_ms.items():
        got = [r.summary.workload_classes[cls].average_time_to_admission_ms for r in runs]
        assert s is not None and None not in got
        values = [v for v in got if v is not None]
        assert s.mean == pytest.approx(sum(values) / 3)
        assert (s.low, s.high, s.runs) == (min(values), max(values), 3)
    assert spread.duration.low <= spread.duration.mean <= spread.duration.high
    # The seeds are different runs: the heads' ties go differently.
    assert any(s is not None and s.low < s.high for s in spread.time_to_admission_ms.values())


def test_spread_of_values_and_bad_counts() -> None:
    assert Spread.of([3.0, None, 1.0, 2.0]) == Spread(2.0, 1.0, 3.0, 3)
    assert Spread.of([None]) is None
    with pytest.raises(ConfigurationError, match="count"):
        run_seeds("unused.yaml", ScenarioOptions(), 0)
    with pytest.raises(ConfigurationError, match="one summary per seed"):
        seed_spread([1, 2], [])


def test_cli_seeds_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    gen = tmp_path / "gen.yaml"
    gen.write_text(SCENARIO)
    args = ["simulate", "--scenario", str(gen), "--api-qps", "50", "--api-burst", "100", "--seeds", "2"]
    assert main([*args, "--head-order-seed", "7"]) == 0
    out = capsys.readouterr().out
    assert "2 runs, head-order seeds 7..8: mean [min - max]" in out
    assert "large" in out and "small" in out and "durationSeconds" in out
    assert main([*args, "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["seeds"] == [0, 1] and len(doc["runs"]) == 2
    large = doc["averageTimeToAdmissionMs"]["large"]
    runs = [r["workloadClasses"]["large"]["averageTimeToAdmissionMs"] for r in doc["runs"]]
    assert large["min"] == pytest.approx(min(runs), abs=1) and large["max"] == pytest.approx(max(runs), abs=1)


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--seeds", "2", "--timeline", "t.jsonl"], "--seeds: --timeline and --plots show one run"),
        (["--seeds", "0"], None),
        (["--head-order-seed", "-1"], None),
    ],
)
def test_cli_seed_flags_refused(tmp_path: Path, extra: list[str], words: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    gen = tmp_path / "gen.yaml"
    gen.write_text(SCENARIO)
    code = main(["simulate", "--scenario", str(gen), *extra])
    err = capsys.readouterr().err
    if words is None:
        assert code == 2  # a usage error: the flag's value is out of range
    else:
        assert code == 3 and words in err


def test_cli_seed_flags_need_a_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--head-order-seed", "1", "--arrivals", "a.yaml"]) == 3
    assert "--head-order-seed and --seeds need --scenario" in capsys.readouterr().err

"""``kueue-preempt simulate --scenario``: Kueue's generator files in, Kueue's summary out."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from kueue_preempt.cli.main import main
from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.kperf.run import ScenarioOptions, run_scenario
from kueue_preempt.kperf.scenario import build_scenario, parse_scenario

SCENARIO = """
cohorts:
- className: co
  count: 1
  queuesSets:
  - className: cq
    count: 2
    nominalQuota: 2
    borrowingLimit: 2
    reclaimWithinCohort: Any
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 4
      creationIntervalMs: 500
      workloads:
      - {className: small, runtimeMs: 1000, priority: 50, request: 1}
    - count: 1
      creationIntervalMs: 1200
      workloads:
      - {className: large, runtimeMs: 1000, priority: 200, request: 4}
"""


@pytest.fixture()
def scenario(tmp_path: Path) -> Path:
    p = tmp_path / "gen.yaml"
    p.write_text(SCENARIO)
    return p


def test_json_summary_has_kueues_fields(scenario: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--scenario", str(scenario), "-o", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert set(doc["workloadClasses"]) == {"small", "large"}
    assert doc["workloadClasses"]["small"]["count"] == 8
    assert doc["workloadClasses"]["large"]["count"] == 2
    cq = doc["clusterQueueClasses"]["cq"]
    assert cq["nominalQuota"] == 4000
    span_ms = (datetime.fromisoformat(cq["lastEventTime"].replace("Z", "+00:00")) - datetime.fromisoformat(cq["firstEventTime"].replace("Z", "+00:00"))).total_seconds() * 1000
    # Kueue's checker: cpuUsed x 100 / (nominalQuota x span in ms).
    assert cq["usagePercent"] == pytest.approx(cq["cpuUsed"] * 100 / (cq["nominalQuota"] * span_ms), abs=1e-3)
    api = doc["run"]["api"]
    assert (api["qps"], api["burst"], api["delayed"]) == (None, None, 0)
    assert api["byKind"] == {}  # an ideal API: no write is modelled
    assert doc["run"]["clusterQueues"] == 2 and doc["run"]["workloads"] == 10


def test_api_limits_from_flags_and_from_a_configuration(scenario: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--scenario", str(scenario), "--api-qps", "2", "--api-burst", "1", "-o", "json"]) == 0
    api = json.loads(capsys.readouterr().out)["run"]["api"]
    assert (api["qps"], api["burst"]) == (2.0, 1)
    assert api["delayed"] > 0
    config = tmp_path / "config.yaml"
    config.write_text(
        "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nclientConnection:\n  qps: 2\n  burst: 1\n"
    )
    assert main(["simulate", "--scenario", str(scenario), "--config", str(config), "-o", "json"]) == 0
    api2 = json.loads(capsys.readouterr().out)["run"]["api"]
    assert api2 == api
    # Without clientConnection, Kueue's defaults (API-32): 300 qps, burst 500.
    config.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n")
    assert main(["simulate", "--scenario", str(scenario), "--config", str(config), "-o", "json"]) == 0
    api3 = json.loads(capsys.readouterr().out)["run"]["api"]
    assert (api3["qps"], api3["burst"]) == (300.0, 500)
    # --config and --api-qps together are ambiguous.
    assert main(["simulate", "--scenario", str(scenario), "--config", str(config), "--api-qps", "5"]) == 3
    assert "give the client limits one way" in capsys.readouterr().err


def test_table_timeline_and_plots(scenario: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    timeline = tmp_path / "t.jsonl"
    plots = tmp_path / "plots"
    code = main(["simulate", "--scenario", str(scenario), "--api-qps", "50", "--timeline", str(timeline), "--plots", str(plots), "--plot-format", "svg"])
    assert code == 0
    out = capsys.readouterr().out
    assert "2 ClusterQueues, 10 workloads" in out
    assert "avg time to admission (ms)" in out and "cpu usage %" in out
    assert timeline.read_text().count('"event":"arrived"') == 10
    assert sorted(p.name for p in plots.iterdir()) == ["time-to-admission.svg", "utilization.svg"]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["some-dump.yaml"], "--scenario replaces DUMP"),
        (["--api-burst", "5"], "--api-burst needs --api-qps"),
        (["--fair-sharing"], "without fair sharing"),
    ],
)
def test_conflicting_options(scenario: Path, extra: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--scenario", str(scenario), *extra]) == 3
    assert words in capsys.readouterr().err


def test_bad_scenario_file_is_invalid_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, topologyName: x}]}]\n")
    assert main(["simulate", "--scenario", str(bad)]) == 3
    err = capsys.readouterr().err
    assert "cohorts[0].queuesSets[0].topologyName" in err and "not simulated" in err


def test_missing_inputs_without_scenario(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate"]) == 3
    assert "simulate needs --arrivals FILE (with DUMP files, or none to read the cluster)" in capsys.readouterr().err


@pytest.fixture()
def dump_and_arrivals(tmp_path: Path) -> tuple[Path, Path]:
    """The scenario above as a dump (its objects) and an arrivals file (its workloads)."""
    built = build_scenario(parse_scenario(SCENARIO))
    dump = tmp_path / "dump.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(built.objects())}))
    arrivals = tmp_path / "arrivals.jsonl"
    arrivals.write_text("".join(
        json.dumps({"at": w.at_ms / 1000, "duration": w.runtime_ms / 1000, "workload": built.workload_manifest(w)}) + "\n"
        for w in built.workloads
    ))
    return dump, arrivals


def test_the_api_model_on_a_dump_and_arrivals(
    dump_and_arrivals: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The API model is an option of the general simulation (decision kp-h): ``simulate DUMP
    --arrivals F --api-qps Q --api-burst B`` makes the same writes as ``--scenario`` does for
    the same scenario; a ``--config`` with a ``clientConnection`` section gives the same limits,
    one without it keeps the ideal API (decision kp-i)."""
    dump, arrivals = dump_and_arrivals
    base = ["simulate", str(dump), "--arrivals", str(arrivals), "-o", "json"]
    assert main([*base, "--api-qps", "2", "--api-burst", "1"]) == 0
    api = json.loads(capsys.readouterr().out)["api"]
    run = run_scenario(build_scenario(parse_scenario(SCENARIO)), ScenarioOptions(api=ApiModel(2, 1)))
    assert run.result.api is not None
    assert (api["qps"], api["burst"], api["requests"], api["delayed"]) == (2, 1, run.result.api.requests, run.result.api.delayed)
    assert api["byKind"] == dict(run.result.api.by_kind) and api["delayed"] > 0
    config = tmp_path / "config.yaml"
    config.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nclientConnection:\n  qps: 2\n  burst: 1\n")
    assert main([*base, "--config", str(config)]) == 0
    assert json.loads(capsys.readouterr().out)["api"] == api
    assert main([*base, "--config", str(config), "--api-qps", "5"]) == 3
    assert "give the client limits one way" in capsys.readouterr().err
    config.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n")
    assert main([*base, "--config", str(config)]) == 0
    ideal = json.loads(capsys.readouterr().out)
    assert "api" not in ideal
    assert main(base) == 0
    assert json.loads(capsys.readouterr().out) == ideal
    assert main([*base, "--api-burst", "3"]) == 3
    assert "--api-burst needs --api-qps" in capsys.readouterr().err


def test_admission_time_definitions(scenario: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--admission-time observed`` (the default, what Kueue's range files were calibrated with)
    or ``decision``; the summary says which it used."""
    flags = ["simulate", "--scenario", str(scenario), "--api-qps", "2", "--api-burst", "1"]
    assert main([*flags, "-o", "json"]) == 0
    observed = json.loads(capsys.readouterr().out)
    assert observed["admissionTime"] == "observed"
    assert main([*flags, "-o", "json", "--admission-time", "decision"]) == 0
    decision = json.loads(capsys.readouterr().out)
    assert decision["admissionTime"] == "decision"
    # The same run: only the definition differs.
    assert decision["clusterQueueClasses"] == observed["clusterQueueClasses"]
    assert main([*flags, "--admission-time", "decision"]) == 0
    assert "time to admission: decision" in capsys.readouterr().out
    assert main([*flags, "--admission-time", "seen"]) == 2
    capsys.readouterr()

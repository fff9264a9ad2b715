"""``kueue-preempt simulate`` and ``kueue-preempt sweep`` (in-process through ``main``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kueue_preempt.cli.main import main
from kueue_preempt.sim.output.timeline import parse_timeline
import sim_dump

ROWS = [
    {"at": 0, "duration": 100, "template": "train", "name": "a1", "podSets": [{"count": 4}]},
    {"at": 0, "duration": 50, "template": "train", "name": "a2", "podSets": [{"count": 2}]},
    {"at": 10, "duration": 10, "template": "etl", "name": "b1", "podSets": [{"count": 2}]},
]


@pytest.fixture()
def files(tmp_path: Path) -> Path:
    (tmp_path / "dump.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": sim_dump.OBJECTS}))
    (tmp_path / "arr.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_table_timeline_and_plots(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(
        capsys, "simulate", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"),
        "--timeline", str(files / "tl.jsonl"), "--plots", str(files / "plots"), "--plot-format", "svg",
    )
    assert code == 0 and err == ""  # stderr is not a terminal: no progress bar
    lines = out.splitlines()
    assert lines[0].startswith("3 arrivals,")
    assert lines[1].split()[:2] == ["QUEUE", "KIND"]
    team_a = next(line.split() for line in lines if line.startswith("team-a "))
    assert team_a[4] == "0" and team_a[8] == "1"  # wait p50 0 s, one preemption (test_sim_cycle)
    timeline = parse_timeline((files / "tl.jsonl").read_text())
    assert timeline[-1].t == 121
    assert sorted(p.name for p in (files / "plots").iterdir()) == ["preemptions.svg", "utilization.svg", "waits.svg"]


def test_debug_queue_moves_adds_the_per_workload_moves(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A requeue run is one ``requeue-run`` event; ``--debug-queue-moves`` adds a ``requeued``
    event per workload it moved, and nothing else changes (the summary is the same)."""
    base = ["simulate", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"), "-o", "json"]
    code, plain_out, _ = _run(capsys, *base, "--timeline", str(files / "plain.jsonl"))
    assert code == 0
    code, debug_out, _ = _run(capsys, *base, "--timeline", str(files / "debug.jsonl"), "--debug-queue-moves")
    summary, debug_summary = json.loads(plain_out), json.loads(debug_out)
    assert code == 0 and debug_summary.pop("events") > summary.pop("events")
    assert debug_summary == summary
    plain = [json.loads(line) for line in (files / "plain.jsonl").read_text().splitlines()]
    debug = [json.loads(line) for line in (files / "debug.jsonl").read_text().splitlines()]
    runs = [e for e in plain if e["event"] == "requeue-run"]
    assert runs and all(e["moved"] > 0 and e["root"] == "Cohort/all" for e in runs)
    moves = [e for e in debug if e.get("reason") == "InadmissibleRequeue"]
    assert not [e for e in plain if e.get("reason") == "InadmissibleRequeue"]
    assert len(moves) == sum(e["moved"] for e in runs)
    assert [e for e in debug if e.get("reason") != "InadmissibleRequeue"] == plain


def test_simulate_json(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"), "-o", "json", "--until", "50")
    doc = json.loads(out)
    assert code == 0 and doc["summary"]["span"] == 50
    assert [q["name"] for q in doc["summary"]["queues"]] == ["team-a", "team-b", "all"]


def test_simulate_generated_arrivals_are_written_and_deterministic(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = {"seed": 1, "horizon": 300, "classes": [{"template": "team-a/train", "rate": 0.05, "duration": {"mean": 30}}]}
    (files / "spec.json").write_text(json.dumps(spec))
    args = ["simulate", str(files / "dump.json"), "--generate", str(files / "spec.json"), "--arrivals", str(files / "gen.jsonl")]
    first = _run(capsys, *args, "-o", "json")
    text = (files / "gen.jsonl").read_text()
    second = _run(capsys, *args, "-o", "json")
    assert first == second and text == (files / "gen.jsonl").read_text() and text
    other = _run(capsys, *args, "--seed", "2", "-o", "json")
    assert other != first


def test_simulate_bad_row_is_an_input_error(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (files / "bad.jsonl").write_text(json.dumps(ROWS[0]) + "\n" + json.dumps({"at": 1, "duration": 1, "template": "ghost"}) + "\n")
    code, out, err = _run(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(files / "bad.jsonl"))
    assert (code, out) == (3, "")
    assert "bad.jsonl:2: field 'template': no Workload 'ghost'" in err


def test_sweep_table_and_json(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ["sweep", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"),
              "--vary", "clusterQueue/team-b/quota/default/cpu.nominal=4,6", "--workers", "1"]
    code, out, _ = _run(capsys, *common, "--metric", "preemptions", "--metric", "team-a.wait.p90")
    assert code == 0
    assert out.splitlines() == [
        "clusterQueue/team-b/quota/default/cpu.nominal  preemptions  team-a.wait.p90",
        "4                                              1            0",
        "6                                              0            0",
    ]
    code, out, _ = _run(capsys, *common, "-o", "json")
    runs = json.loads(out)["runs"]
    assert [r["metrics"]["preemptions"] for r in runs] == [1, 0]


@pytest.mark.parametrize(
    ("vary", "message"),
    [("policy/boost.everyN=0", "every_n"), ("clusterQueue/x/cohort=a", "no ClusterQueue 'x'")],
)
def test_sweep_errors(files: Path, capsys: pytest.CaptureFixture[str], vary: str, message: str) -> None:
    code, out, err = _run(capsys, "sweep", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"), "--vary", vary)
    assert code == 3 and out == "" and message in err


def test_simulate_with_a_runaway_booster_is_stopped_and_reported(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two equal workloads and a booster: ``w`` (admitted first, priority 0) and ``h`` (priority 50)."""
    rows = [
        {"at": 0, "duration": 100, "template": "train", "name": "w", "priority": 0, "podSets": [{"count": 4}]},
        {"at": 10, "duration": 5, "template": "train", "name": "h", "priority": 50, "podSets": [{"count": 4}]},
        {"at": 30, "duration": 5, "template": "train", "name": "h2", "priority": 50, "podSets": [{"count": 4}]},
    ]
    (files / "boost.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    args = ["simulate", str(files / "dump.json"), "--arrivals", str(files / "boost.jsonl"), "--boost"]
    code, out, _ = _run(capsys, *args)
    assert code == 0 and "preemption cycles: 1" in out  # the default booster: one flip (test_sim_controllers)
    code, out, _ = _run(capsys, *args, "--max-instants", "3", "-o", "json")
    doc = json.loads(out)
    assert code == 1 and doc["truncated"] and doc["instants"] == 3


def test_simulate_reads_kueues_configuration_file(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--config`` (Kueue's Configuration) as for ``cycle``: fairSharing from the file equals the flag."""
    (files / "kueue.json").write_text(json.dumps(
        {"apiVersion": "config.kueue.x-k8s.io/v1beta1", "kind": "Configuration", "fairSharing": {"enable": True}}
    ))
    base = ["simulate", str(files / "dump.json"), "--arrivals", str(files / "arr.jsonl"), "-o", "json"]
    from_file = _run(capsys, *base, "--config", str(files / "kueue.json"))
    from_flag = _run(capsys, *base, "--fair-sharing")
    assert from_file == from_flag and from_file[0] == 0

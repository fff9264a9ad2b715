"""``kueue-preempt simulate --workers N`` / ``--dask-local N``: one simulation split by root
cohort gives the one-process summary (bundled example examples/sim-teams.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kueue_preempt.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
CLUSTER = str(ROOT / "examples" / "sim-teams.yaml")
ARRIVALS = str(ROOT / "examples" / "sim-teams-arrivals.jsonl")


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _json(capsys: pytest.CaptureFixture[str], *extra: str) -> dict[str, Any]:
    code, out, err = _run(capsys, "simulate", CLUSTER, "--arrivals", ARRIVALS, "-o", "json", "--series", *extra)
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def test_workers_give_the_one_process_summary(capsys: pytest.CaptureFixture[str]) -> None:
    whole = _json(capsys)
    split = _json(capsys, "--workers", "2")
    assert split["summary"] == whole["summary"]
    assert (split["instants"], split["cycles"], split["truncated"]) == (whole["instants"], whole["cycles"], False)
    assert "partitions" not in whole
    roots = [p["root"] for p in split["partitions"]]
    assert roots == ["ClusterQueue/sandbox", "Cohort/prod", "Cohort/research"]
    assert split["partitions"][2]["clusterQueues"] == ["nlp", "vision-a", "vision-b"]
    assert sum(p["events"] for p in split["partitions"]) <= split["events"]
    # The whole run repeats the StrictFIFO head's inadmissible events at other trees' cycles.
    assert split["events"] < whole["events"]


def test_the_table_says_how_the_run_was_split(capsys: pytest.CaptureFixture[str]) -> None:
    code, whole, _ = _run(capsys, "simulate", CLUSTER, "--arrivals", ARRIVALS)
    assert code == 0
    code, split, _ = _run(capsys, "simulate", CLUSTER, "--arrivals", ARRIVALS, "--workers", "1")
    assert code == 0
    lines = split.splitlines()
    assert lines[1].startswith("split by root cohort: 3 partitions, the largest (")
    # Apart from the event count and that line, the output is the one-process output.
    assert lines[2:] == whole.splitlines()[1:]
    assert lines[0].split(" events")[0].rsplit(",", 1)[0] == whole.splitlines()[0].split(" events")[0].rsplit(",", 1)[0]


def test_a_local_dask_cluster_gives_the_one_process_summary(capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("distributed")
    whole = _json(capsys)
    split = _json(capsys, "--dask-local", "2")
    assert split["summary"] == whole["summary"]
    assert len(split["partitions"]) == 3


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--boost",), "reference controller"),
        (("--api-qps", "50", "--api-burst", "100"), "API-throughput model"),
    ],
)
def test_what_cannot_be_split_is_refused(capsys: pytest.CaptureFixture[str], extra: tuple[str, ...], words: str) -> None:
    code, out, err = _run(capsys, "simulate", CLUSTER, "--arrivals", ARRIVALS, "--workers", "2", *extra)
    assert code == 3 and out == ""
    assert "cannot split the simulation by root cohort" in err and words in err


def test_a_scenario_run_is_not_split(capsys: pytest.CaptureFixture[str]) -> None:
    scenario = str(ROOT / "examples" / "kueue-perf" / "baseline-generator.yaml")
    code, out, err = _run(capsys, "simulate", "--scenario", scenario, "--workers", "2")
    assert code == 3 and "--scenario" in err

"""CLI: Kueue's defaults, ``--feature-gates``, the ignored-boost note, ``-v/-q`` logging and the
``--config`` precedence wording (issue 16 items 2 and 5; decisions (u), (x)).

Run in-process through :func:`kueue_preempt.cli.main.main` so the worktree's code is what is tested;
``python -m kueue_preempt`` is checked in a subprocess.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from kueue_preempt import __version__
from kueue_preempt.cli.main import main
from kueue_preempt.model.priority import BOOST_ANNOTATION

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = ROOT / "examples" / "classic.yaml"
PENDING = "prod/job-fraud-model-retrain-f737f"  # priority 1000, withinClusterQueue: LowerPriority
ETL = "prod/job-nightly-etl-a5629"  # priority 10, a target in the default run
NOW = "2026-03-02T10:00:00Z"


def _boosted_dump(tmp_path: Path, boosts: dict[str, str]) -> str:
    """examples/classic.yaml with boost annotations on the named workloads."""
    doc: dict[str, Any] = yaml.safe_load(CLASSIC.read_text(encoding="utf-8"))
    for item in doc["items"]:
        md = item["metadata"]
        key = f"{md.get('namespace', '')}/{md['name']}"
        if item["kind"] == "Workload" and key in boosts:
            md.setdefault("annotations", {})[BOOST_ANNOTATION] = boosts[key]
    path = tmp_path / "boosted.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _targets(out: str) -> list[str]:
    return [t["workload"] for t in json.loads(out)["targets"]]


def test_fg1_cli_default_ignores_boost_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """FG-1/EP-2: Kueue's default gate is off, so the annotation changes nothing — and one
    note on stderr says so and names the flag that turns it on."""
    dump = _boosted_dump(tmp_path, {ETL: "+2000"})
    code, out, err = _run(capsys, "explain", dump, "--workload", PENDING, "--now", NOW, "-o", "json")
    assert code == 0
    assert ETL in _targets(out)  # EP(etl) = 10 < 1000: LowerPriority allows it (POL-1)
    notes = [line for line in err.splitlines() if "note:" in line]
    assert len(notes) == 1, err
    assert "1 workload(s)" in notes[0] and ETL in notes[0] and "--feature-gates PriorityBoost=true" in notes[0]
    assert notes[0].startswith("kueue-preempt: note: ")


def test_fg1_feature_gates_flag_turns_boost_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """EP-8: with the gate on, EP(etl) = 10 + 2000 > 1000, so LowerPriority no longer allows it
    (POL-1); no note, because nothing is ignored."""
    dump = _boosted_dump(tmp_path, {ETL: "+2000"})
    code, out, err = _run(
        capsys, "explain", dump, "--workload", PENDING, "--now", NOW, "-o", "json", "--feature-gates", "PriorityBoost=true"
    )
    assert ETL not in _targets(out)
    assert "note:" not in err
    del code


def test_boost_note_also_in_check_and_priorities_follow_the_gate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check` shows pending priorities with Kueue's gates (boost off) unless told otherwise."""
    dump = _boosted_dump(tmp_path, {PENDING: "7"})
    code, out, err = _run(capsys, "check", dump, "-o", "json")
    assert code == 0 and "note:" in err
    assert {p["workload"]: p["priority"] for p in json.loads(out)["pending"]}[PENDING] == 1000
    code, out, err = _run(capsys, "check", dump, "-o", "json", "--feature-gates", "PriorityBoost=true")
    assert {p["workload"]: p["priority"] for p in json.loads(out)["pending"]}[PENDING] == 1007
    assert "note:" not in err


def test_no_note_without_annotations(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "check", str(CLASSIC))
    assert code == 0 and err == ""


@pytest.mark.parametrize("value", ["PriorityBost=true", "PriorityBoost=yes", "PriorityBoost"])
def test_bad_feature_gates_are_usage_errors(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in a gate must not silently keep the default: exit 2 with one line naming it."""
    code, out, err = _run(capsys, "check", str(CLASSIC), "--feature-gates", value)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "--feature-gates" in err


def test_quiet_hides_the_note_and_verbose_keeps_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """-q: errors only; -v (before or after the command) keeps warnings and notes."""
    dump = _boosted_dump(tmp_path, {ETL: "5"})
    code, _, err = _run(capsys, "-q", "check", dump)
    assert code == 0 and err == ""
    code, _, err = _run(capsys, "check", dump, "--quiet")
    assert code == 0 and err == ""
    for args in (("-v", "check", dump), ("check", dump, "-vv")):
        code, _, err = _run(capsys, *args)
        assert code == 0 and "note:" in err


def test_verbose_and_quiet_are_exclusive(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, "check", str(CLASSIC), "-v", "-q")
    assert code == 2 and "not allowed with" in err


def test_library_warnings_are_one_formatted_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    """Item 5: a library warning whose text spans lines is printed as one line on stderr, and
    the CLI removes its handler afterwards (the process's logging is left as it was)."""
    from kueue_preempt.cli import logging_flags as _cli_logging

    logger = logging.getLogger("kueue_preempt.model.priority")
    before = list(logging.getLogger("kueue_preempt").handlers)
    with _cli_logging.cli_logging(logging.WARNING, "kueue-preempt"):
        logger.warning("first line\nsecond line")
        logger.info("hidden at the default level")
    assert logging.getLogger("kueue_preempt").handlers == before
    err = capsys.readouterr().err
    assert err == "kueue-preempt: warning: first line | second line\n"


def test_help_states_the_config_precedence_and_kueue_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    """Item 5: --help says that command-line options override a --config file."""
    code, out, _ = _run(capsys, "--help")
    assert code == 0
    text = " ".join(out.split())
    assert "override the same settings read from a --config file" in text
    assert "-v, --verbose" in text and "-q, --quiet" in text
    code, out, _ = _run(capsys, "explain", "--help")
    assert "--feature-gates" in out and "PriorityBoost is off" in " ".join(out.split())


def test_python_dash_m_runs_the_cli() -> None:
    """Item 1: ``python -m kueue_preempt`` is the same program as ``kueue-preempt``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}
    result = subprocess.run(
        [sys.executable, "-m", "kueue_preempt", "--version"], capture_output=True, text=True, env=env, timeout=60, check=False
    )
    assert result.returncode == 0
    assert " ".join(result.stdout.split()) == f"kueue-preempt {__version__} (default Kueue release: 0.20-dev, main at ff69552e)"

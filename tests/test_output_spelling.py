"""One spelling in every output: Kubernetes quantities (``64Gi``, ``6``, ``500m``) in tables,
traces and ``demo``; one flavor-resource spelling, ``FLAVOR/RESOURCE`` (``a100/nvidia.com/gpu``),
in tables, JSON, plots and sweep metric names; no scientific notation in tables; ``--help`` in
a user's words (no rule IDs, every option explained); an unknown ``sweep --metric`` is a usage
error that lists the valid names."""

from __future__ import annotations

import argparse
import json
import math
import re
from pathlib import Path

from hypothesis import given, strategies as st

from cli_helpers import run_cli
from kueue_preempt.cli.main import _parser
from kueue_preempt.io import load_dump
from kueue_preempt.io.text import number_text
from kueue_preempt.model import FlavorResource
from kueue_preempt.preemption.nonpreemptible import NonPreemptibleViolation
from kueue_preempt.sweep.evaluate import metric_names
from kueue_preempt.sweep.run import SweepResult, SweepRow, sweep_table

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = str(ROOT / "examples" / "classic.yaml")
SIM_CLUSTER = str(ROOT / "examples" / "sim-cluster.yaml")
SIM_ARRIVALS = str(ROOT / "examples" / "sim-arrivals.jsonl")
PENDING = "prod/job-fraud-model-retrain-f737f"
NOW = "2026-03-02T10:00:00Z"


# --------------------------------------------------------------------------- numbers


def test_number_text_never_uses_scientific_notation() -> None:
    assert number_text(12150.3) == "12150"
    assert number_text(1.215e4) == "12150"
    assert number_text(1e6) == "1000000"
    assert number_text(0.0001234) == "0.0001234"
    assert number_text(0.5) == "0.5"
    assert number_text(1232.302, 6) == "1232.3"
    assert number_text(-2.25) == "-2.25"
    assert number_text(0.0) == "0"


@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False, allow_infinity=False))
def test_number_text_is_plain_and_close(value: float) -> None:
    text = number_text(value)
    assert "e" not in text and "E" not in text
    assert math.isclose(float(text), value, rel_tol=1e-3, abs_tol=1e-12) or abs(value) < 1e-300


def test_sweep_table_prints_plain_numbers() -> None:
    result = SweepResult(["config/fairSharing.enabled"], [SweepRow([("config/fairSharing.enabled", "true")], {"wait.p90": 12150.3, "livelocks": 0})])
    table = sweep_table(result, ["wait.p90", "livelocks"])
    assert "12150" in table and "e+" not in table


# --------------------------------------------------------------------------- quantities


def test_the_trace_prints_quantities_like_the_summary() -> None:
    r = run_cli("explain", CLASSIC, "--workload", PENDING, "--now", NOW)
    assert r.returncode == 0, r.stderr
    assert "default-flavor/memory=64Gi" in r.stdout
    assert "resource memory: request 64Gi" in r.stdout and "resource cpu: request 16 " in r.stdout
    assert "68719476736" not in r.stdout and "16000" not in r.stdout


def test_demo_prints_quantities() -> None:
    r = run_cli("demo")
    assert r.returncode == 0, r.stderr
    assert "Requests: default/cpu=6\n" in r.stdout
    assert "6000" not in r.stdout


def test_non_preemptible_violation_names_quantities() -> None:
    text = str(NonPreemptibleViolation(FlavorResource("default", "memory"), 2 * 2**30, 6 * 2**30, 7 * 2**30))
    assert text == "default/memory: non-preemptible usage 6Gi + request 2Gi exceeds nominal 7Gi by 1Gi"


# --------------------------------------------------------------------------- flavor/resource


def test_one_flavor_resource_spelling_in_simulate_table_json_and_sweep_metrics() -> None:
    table = run_cli("simulate", SIM_CLUSTER, "--arrivals", SIM_ARRIVALS, "-q")
    assert table.returncode == 0, table.stderr
    assert "a100/nvidia.com/gpu" in table.stdout and "@" not in table.stdout
    doc = json.loads(run_cli("simulate", SIM_CLUSTER, "--arrivals", SIM_ARRIVALS, "-q", "-o", "json").stdout)
    assert set(doc["summary"]["queues"][0]["utilization"]) == {"a100/nvidia.com/gpu"}
    names = metric_names(load_dump(SIM_CLUSTER))
    assert "prod.utilization.a100/nvidia.com/gpu" in names
    assert not any("@" in n for n in names)
    assert names[:7] == ["preemptions", "preemptionCycles", "livelocks", "neverAdmitted", "wait.p50", "wait.p90", "wait.p99"]


def test_explain_uses_the_same_spelling() -> None:
    r = run_cli("explain", CLASSIC, "--workload", PENDING, "--now", NOW, "-o", "json")
    assert "a100/nvidia.com/gpu" in r.stdout and "nvidia.com/gpu@a100" not in r.stdout


# --------------------------------------------------------------------------- help


_RULE_ID = re.compile(
    r"\b[A-Z]{1,6}(?:-[A-Z0-9]+)*-\d+[a-z]?\b|\b[A-Z]{2,}(?:-[A-Z]+)*-\*|\bdecision [a-z]{1,3}-[a-z]\b|\([a-z]{1,3}-[a-z]\)"
)


def _help_texts(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, str | None]]:
    out: list[tuple[str, str | None]] = [(f"{path} description", parser.description), (f"{path} epilog", parser.epilog)]
    for group in parser._action_groups:
        out.append((f"{path} group {group.title}", group.description))
    for action in parser._actions:
        name = f"{path} {'/'.join(action.option_strings) or action.dest}"
        if isinstance(action, argparse._SubParsersAction):
            out += [(f"{path} {c.dest}", c.help) for c in action._choices_actions]
            for command, sub in action.choices.items():
                out += _help_texts(sub, f"{path} {command}")
        elif action.dest != "help":
            out.append((name, action.help))
    return out


def test_help_speaks_the_users_words() -> None:
    """No internal rule IDs (SC-SIM-13, BOOST-12) or decision letters (decision kp-a) in any
    help text: rule IDs belong in the docs. KEP numbers are Kubernetes' public names."""
    for where, text in _help_texts(_parser(), "kueue-preempt"):
        for m in _RULE_ID.finditer(text or ""):
            assert m.group(0).startswith("KEP-"), f"{where}: {m.group(0)!r} in {text!r}"


def test_every_option_has_a_help_text() -> None:
    missing = [where for where, text in _help_texts(_parser(), "kueue-preempt") if text is None and " group " not in where
               and not where.endswith(("description", "epilog"))]
    assert missing == []
    r = run_cli("explain", "--help")
    assert "json: one JSON document for scripts" in " ".join(r.stdout.split())


# --------------------------------------------------------------------------- sweep --metric


def test_an_unknown_sweep_metric_is_a_usage_error_listing_the_valid_names() -> None:
    r = run_cli(
        "sweep", SIM_CLUSTER, "--arrivals", SIM_ARRIVALS, "--vary", "config/fairSharing.enabled=false,true", "--metric", "bogus", "--workers", "1"
    )
    assert r.returncode == 2
    assert r.stdout == ""
    line = r.stderr.strip()
    assert line.startswith("kueue-preempt: error: --metric: unknown metric 'bogus'; valid: preemptions, preemptionCycles")
    assert "prod.utilization.a100/nvidia.com/gpu" in line and len(r.stderr.splitlines()) == 1


def test_a_per_queue_sweep_metric_is_a_column() -> None:
    r = run_cli(
        "sweep", SIM_CLUSTER, "--arrivals", SIM_ARRIVALS, "--vary", "config/fairSharing.enabled=false,true",
        "--metric", "prod.utilization.a100/nvidia.com/gpu", "--metric", "wait.p90", "--workers", "1", "-q",
    )
    assert r.returncode == 0, r.stderr
    header, *rows = r.stdout.splitlines()
    assert header.split() == ["config/fairSharing.enabled", "prod.utilization.a100/nvidia.com/gpu", "wait.p90"]
    assert len(rows) == 2 and all(re.fullmatch(r"[0-9.]+", row.split()[1]) for row in rows)

"""Hostile and absurd inputs: every refusal is a typed error (exit 3, or 2 for a flag), one line
on stderr naming the file, object and field, never an internal error (exit 70) and never a hang.

Most cases call the CLI's ``main`` in-process (a subprocess costs most of a second per case);
:func:`test_console_script_refuses_in_one_line` runs the installed script for a few of them.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any, Callable

import pytest

import sim_dump
from cli_helpers import run_cli
from kueue_preempt.cli.main import main
from kueue_preempt.errors import KueuePreemptError

API = "kueue.x-k8s.io/v1beta2"
TEMPLATE = {"at": 1, "duration": 10, "template": "team-a/train"}


def _dump(objects: list[dict[str, Any]] | None = None) -> str:
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": sim_dump.OBJECTS if objects is None else objects})


@pytest.fixture
def files(tmp_path: Path) -> Path:
    (tmp_path / "dump.json").write_text(_dump())
    (tmp_path / "ok.jsonl").write_text(json.dumps(TEMPLATE) + "\n")
    return tmp_path


def _refused(capsys: pytest.CaptureFixture[str], *argv: str, code: int = 3) -> str:
    """Run the CLI; assert exit ``code`` and exactly one ``kueue-preempt: error:`` line on
    stderr (nothing on stdout); return that line."""
    got = main(list(argv))
    out, err = capsys.readouterr()
    assert got == code, f"exit {got}, expected {code}: {err}"
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("kueue-preempt: error: "), lines[0]
    assert "internal error" not in lines[0] and "Traceback" not in err
    return lines[0]


def _row(tmp_path: Path, name: str, **fields: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps({**TEMPLATE, **fields}) + "\n")
    return str(path)


# --------------------------------------------------------------------------- numbers in files


def test_fair_sharing_weight_beyond_float_range_names_the_field(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    objects = copy.deepcopy(sim_dump.OBJECTS)
    objects[2]["spec"]["fairSharing"] = {"weight": "1e400"}
    objects[4]["spec"]["fairSharing"] = {"weight": "1e400"}
    (files / "w.json").write_text(_dump(objects))
    line = _refused(capsys, "check", str(files / "w.json"))
    assert f"{files / 'w.json'}: ClusterQueue team-a: spec.fairSharing.weight: must be at most" in line
    del objects[2]["spec"]["fairSharing"]
    (files / "w.json").write_text(_dump(objects))
    assert "LocalQueue team-a/lq-a: spec.fairSharing.weight:" in _refused(capsys, "check", str(files / "w.json"))


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"at": 1e12}, "at", "at most"),
        ({"duration": 1e12}, "duration", "at most"),
        ({"at": 1e300}, "at", "at most"),
        ({"priority": "²"}, "priority", "ASCII digits"),
        ({"priority": "٣"}, "priority", "ASCII digits"),
        ({"podSets": [{"count": "9" * 5000}]}, "podSets[0].count", "not an integer"),
        ({"podSets": [{"count": "99999999999"}]}, "podSets[0].count", "outside"),
    ],
)
def test_arrival_numbers_are_range_checked(
    files: Path, capsys: pytest.CaptureFixture[str], fields: dict[str, Any], field: str, message: str
) -> None:
    path = _row(files, "a.jsonl", **fields)
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--arrivals", path)
    assert f"{path}:1: field {field!r}:" in line and message in line


def test_running_row_remaining_is_range_checked(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = files / "r.jsonl"
    path.write_text(json.dumps({"running": "team-b/etl", "remaining": 1e12}) + "\n")
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(path))
    assert "field 'remaining': must be a number of seconds > 0 and at most" in line


@pytest.mark.parametrize("literal", ["9" * 5000, "1" + "0" * 5000 + ".5"])
def test_json_number_with_thousands_of_digits(files: Path, capsys: pytest.CaptureFixture[str], literal: str) -> None:
    path = files / "a.jsonl"
    path.write_text('{"at": ' + literal + ', "duration": 10, "template": "team-a/train"}\n')
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(path))
    assert f"{path}:1: " in line and "too long" in line and "sys.set_int_max_str_digits" not in line


@pytest.mark.parametrize(
    ("column", "value"),
    [("at", "sNaN"), ("at", "nan"), ("at", "-inf"), ("at", "٣"), ("at", "1_0"), ("duration", "NaN"),
     ("count", "²"), ("count", "٣"), ("count", "9" * 5000), ("priority", "9" * 5000), ("count", "sNaN")],
)
def test_csv_cells(files: Path, capsys: pytest.CaptureFixture[str], column: str, value: str) -> None:
    cells = {"at": "1", "duration": "10", "template": "team-a/train", column: value}
    path = files / "a.csv"
    path.write_text(",".join(cells) + "\n" + ",".join(cells.values()) + "\n")
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(path))
    field = "podSets[0].count" if column == "count" else column
    assert f"{path}:2: field {field!r}:" in line


def test_simulated_clock_past_year_9999_is_refused(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each duration is in range, but one after the other they pass what a timestamp holds."""
    rows = [{**TEMPLATE, "at": 0, "duration": 9e9, "name": f"w{i}", "podSets": [{"count": 4}]} for i in range(80)]
    path = files / "long.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(path))
    assert "beyond year 9999" in line


# --------------------------------------------------------------------------- flags


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--requeue-delay", "1e300", "outside"),
        ("--requeue-delay", "1e12", "outside"),
        ("--until", "٣", "ASCII digits"),
        ("--until", "nan", "ASCII digits"),
        ("--termination-time", "1_0", "ASCII digits"),
        ("--api-qps", "1e-300", "outside"),
        ("--api-qps", "1e300", "outside"),
        ("--api-burst", "9" * 400, "outside"),
        ("--api-burst", "٣", "ASCII digits"),
        ("--max-instants", "9" * 5000, "not an integer"),
        ("--seed", "9" * 400, "outside"),
        ("--cost-base", "9" * 400, "outside"),
        ("--cost-base", "٣", "ASCII digits"),
        ("--time-sharing-interval", "99999999999h", "overflows int64"),
        ("--time-sharing-interval", "٣h", "unexpected"),
        ("--time-sharing-interval", "1e300", "outside"),
    ],
)
def test_simulate_flags(files: Path, capsys: pytest.CaptureFixture[str], flag: str, value: str, message: str) -> None:
    args = ["simulate", str(files / "dump.json"), "--arrivals", str(files / "ok.jsonl"), flag, value]
    if flag == "--api-burst":
        args += ["--api-qps", "10"]
    line = _refused(capsys, *args, code=2)
    assert f"argument {flag}:" in line and message in line


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("2026-03-02T10:00:00+25:00", "UTC offset +25:00 is out of range"),
        ("2026-03-02T10:00:00+10:99", "out of range"),
        ("0001-01-01T00:00:00+01:00", "outside the years 1 to 9999"),
        ("9999-12-31T23:59:59-01:00", "outside the years 1 to 9999"),
        ("٢٠٢٦-03-02T10:00:00Z", "not an RFC 3339 timestamp"),
    ],
)
def test_now_flag(files: Path, capsys: pytest.CaptureFixture[str], value: str, message: str) -> None:
    line = _refused(capsys, "cycle", str(files / "dump.json"), "--now", value, code=2)
    assert message in line and "_rfc3339" not in line


@pytest.mark.parametrize("value", ["9" * 5000, "٣", "²"])
def test_cycles_flag(files: Path, capsys: pytest.CaptureFixture[str], value: str) -> None:
    assert "argument --cycles:" in _refused(capsys, "cycle", str(files / "dump.json"), "--cycles", value, code=2)


@pytest.mark.parametrize(
    ("vary", "message"),
    [
        ("policy/boost.window=1e300", "outside"),
        ("policy/boost.window=٣", "unexpected"),
        ("policy/boost.everyN=٣", "ASCII digits"),
        ("policy/boost.everyN=" + "9" * 5000, "not an integer"),
        ("policy/timeSharing.negativeBoost=" + "9" * 400, "outside"),
        ("policy/boost.window=nan", "invalid duration"),
        ("clusterQueue/team-a/fairSharing.weight=1e400", "outside"),
        ("clusterQueue/team-a/fairSharing.weight=٣", "not a number"),
    ],
)
def test_vary_values(files: Path, capsys: pytest.CaptureFixture[str], vary: str, message: str) -> None:
    path = vary.split("=", 1)[0]
    line = _refused(capsys, "sweep", "-q", str(files / "dump.json"), "--arrivals", str(files / "ok.jsonl"), "--vary", vary, "--workers", "1")
    assert line.count(f"--vary {path}:") == 1 and message in line


# --------------------------------------------------------------------------- generator specs

_CLASS = {"template": "team-a/train", "rate": 0.01, "duration": {"mean": 100}}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"horizon": 100, "classes": [{**_CLASS, "rate": 1e-320}]}, "ArrivalClass.rate: must be between"),
        ({"horizon": 100, "classes": [{**_CLASS, "rate": 1e300}]}, "ArrivalClass.rate: must be between"),
        ({"horizon": 1e300, "classes": [_CLASS]}, "GeneratorSpec.horizon"),
        ({"horizon": 100, "classes": [{**_CLASS, "duration": {"mean": 1e300}}]}, "ArrivalClass.duration"),
        ({"horizon": 10, "classes": [{**_CLASS, "priorities": [10**40]}]}, "classes[0].priorities[0]"),
    ],
)
def test_generator_spec_numbers(files: Path, capsys: pytest.CaptureFixture[str], spec: dict[str, Any], message: str) -> None:
    path = files / "g.json"
    path.write_text(json.dumps(spec))
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--generate", str(path), "--arrivals", str(files / "out.jsonl"))
    assert f"{path}: " in line and message in line


@pytest.mark.parametrize("text", ['{"count": ' + "9" * 5000 + ", ", '{"horizon": 1' + "0" * 400 + ", "])
def test_generator_spec_long_numbers(files: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    path = files / "g.json"
    path.write_text(text + '"classes": [{"template": "team-a/train", "rate": 1, "duration": {"mean": 1}}]}')
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--generate", str(path), "--arrivals", str(files / "out.jsonl"))
    assert f"{path}: " in line and "sys.set_int_max_str_digits" not in line


# --------------------------------------------------------------------------- Kueue Configuration


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ("waitForPodsReady:\n  timeout: 99999999999h\n", "waitForPodsReady.timeout", "overflows int64"),
        ("waitForPodsReady:\n  timeout: ٣h\n", "waitForPodsReady.timeout", "unexpected"),
        ("admissionFairSharing:\n  usageHalfLifeTime: 99999999999h\n", "admissionFairSharing.usageHalfLifeTime", "overflows"),
        ("clientConnection:\n  qps: 1.0e-400\n", "clientConnection.qps", "at least"),
        ("clientConnection:\n  qps: 1.0e+39\n", "clientConnection.qps", "float32"),
    ],
)
def test_kueue_configuration_numbers(
    files: Path, capsys: pytest.CaptureFixture[str], body: str, field: str, message: str
) -> None:
    pytest.importorskip("yaml")
    path = files / "config.yaml"
    path.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + body)
    line = _refused(capsys, "check", str(files / "dump.json"), "--config", str(path))
    assert f"{path}: Configuration: {field}: " in line and message in line


def test_configured_client_connection_errors_name_the_file(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("yaml")
    path = files / "config.yaml"
    path.write_text("apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\nclientConnection:\n  qps: 0\n")
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(files / "ok.jsonl"), "--config", str(path))
    assert f"{path}: Configuration: clientConnection.qps: must be > 0" in line


# --------------------------------------------------------------------------- wrong types


@pytest.mark.parametrize(
    "selector",
    [
        "matchExpressions:\n  - key: a\n    operator: In\n    values: 7\n",
        "matchExpressions: [7]\n",
        "matchExpressions: 7\n",
        "matchLabels: 7\n",
        "matchLabels: {a: 7}\n",
    ],
)
def test_time_sharing_selector_types(files: Path, capsys: pytest.CaptureFixture[str], selector: str) -> None:
    pytest.importorskip("yaml")
    path = files / "ts.yaml"
    path.write_text("timeSharing:\n  interval: 30m\nworkloadSelector:\n  " + selector.replace("\n", "\n  "))
    line = _refused(capsys, "simulate", str(files / "dump.json"), "--arrivals", str(files / "ok.jsonl"), "--time-sharing", str(path))
    assert f"{path}: workloadSelector." in line


def test_boost_annotation_with_thousands_of_digits_is_an_invalid_boost() -> None:
    from kueue_preempt.model.priority import parse_boost
    from kueue_preempt.policies.boost import out_of_scope_action

    assert parse_boost("9" * 5000) is None and parse_boost("-" + "0" * 5000 + "5") == -5
    out_of_scope_action("-" + "9" * 5000)  # no ValueError from int()


def test_console_script_refuses_in_one_line(files: Path) -> None:
    """The installed script (once: a subprocess costs most of a second)."""
    result = run_cli("simulate", str(files / "dump.json"), "--arrivals", str(files / "ok.jsonl"), "--api-qps", "1e-300")
    assert result.returncode == 2, result.stderr
    assert result.stdout == "" and len(result.stderr.splitlines()) == 1
    assert result.stderr.startswith("kueue-preempt: error: argument --api-qps: ")
    assert result.stderr.rstrip().endswith("(see kueue-preempt simulate --help)")


def test_errors_are_typed() -> None:
    from kueue_preempt.io.text import NumberTextError, float_text, int_text

    for call in (lambda: int_text("²", low=0, high=9), lambda: float_text("sNaN"), lambda: int_text("9" * 5000, low=0, high=9)):
        with pytest.raises(NumberTextError) as info:
            call()
        assert isinstance(info.value, KueuePreemptError) and isinstance(info.value, ValueError)
    assert int_text(" 0012 ", low=0, high=20) == 12 and float_text("1e3") == 1000.0


# --------------------------------------------------------------------------- one loader: cycle validates as check does


def _cohort(name: str, parent: str | None) -> dict[str, Any]:
    spec: dict[str, Any] = {} if parent is None else {"parentName": parent}
    return {"apiVersion": API, "kind": "Cohort", "metadata": {"name": name}, "spec": spec}


def _chain(depth: int) -> list[dict[str, Any]]:
    """The simulator's dump with cohort ``all`` at the bottom of a chain of ``depth`` more cohorts."""
    names = [f"c{i}" for i in range(depth)]
    return [_cohort("all", names[0])] + [_cohort(n, names[i + 1] if i + 1 < depth else None) for i, n in enumerate(names)]


_BAD_DUMPS: dict[str, tuple[Callable[[], list[dict[str, Any]]], str]] = {
    "cohort cycle": (lambda: sim_dump.OBJECTS + [_cohort("all", "x"), _cohort("x", "all")], "Cohort all: spec.parentName: cohort cycle: all -> x -> all"),
    "too deep": (lambda: sim_dump.OBJECTS + _chain(1001), "Cohort all: spec.parentName: is deeper than 1000 cohorts"),
    "missing ClusterQueue": (
        lambda: [*sim_dump.OBJECTS[:-1], {**sim_dump.OBJECTS[-1], "status": {**sim_dump.OBJECTS[-1]["status"], "admission": {**sim_dump.OBJECTS[-1]["status"]["admission"], "clusterQueue": "gone"}}}],
        "Workload team-b/etl: status.admission.clusterQueue: holds quota in ClusterQueue 'gone'",
    ),
}


@pytest.mark.parametrize("case", sorted(_BAD_DUMPS))
@pytest.mark.parametrize("command", ["check", "explain", "simulate", "cycle", "sweep"])
def test_every_command_refuses_the_same_dumps(files: Path, capsys: pytest.CaptureFixture[str], case: str, command: str) -> None:
    objects, message = _BAD_DUMPS[case]
    path = files / "bad.json"
    path.write_text(_dump(objects()))
    extra = {
        "explain": ["--workload", "team-a/train"],
        "simulate": ["--arrivals", str(files / "ok.jsonl")],
        "sweep": ["--arrivals", str(files / "ok.jsonl"), "--vary", "policy/cost.base=1,2", "--workers", "1"],
    }.get(command, [])
    line = _refused(capsys, command, str(path), *extra)
    assert line == f"kueue-preempt: error: {path}: {message}" or line.startswith(f"kueue-preempt: error: {path}: {message}")


def test_deep_chains_are_checked_in_linear_time(files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """2,000 levels are refused at once; 999 levels (allowed) run a cycle quickly."""
    path = files / "deep.json"
    path.write_text(_dump(sim_dump.OBJECTS + _chain(2000)))
    start = time.perf_counter()
    _refused(capsys, "cycle", str(path))
    path.write_text(_dump(sim_dump.OBJECTS + _chain(998)))
    assert main(["cycle", str(path)]) == 0
    capsys.readouterr()
    assert time.perf_counter() - start < 15  # cubic before: 999 levels took 25-40 s here


def test_cohort_walks_are_linear_and_keep_their_answers() -> None:
    from kueue_preempt.cycle.cluster import cyclic_cohorts
    from kueue_preempt.errors import CohortCycle
    from kueue_preempt.model import Cohort
    from kueue_preempt.snapshot.quota import cohort_depths

    # a -> b -> c -> b (cycle), d -> a (below it), e -> f (implicit root f), g alone
    cohorts = [Cohort("a", parent="b"), Cohort("b", parent="c"), Cohort("c", parent="b"), Cohort("d", parent="a"),
               Cohort("e", parent="f"), Cohort("g")]
    assert cyclic_cohorts(cohorts) == frozenset({"a", "b", "c", "d"})
    with pytest.raises(CohortCycle, match="b -> c -> b"):
        cohort_depths({c.name: c.parent for c in cohorts})
    assert cohort_depths({"e": "f", "g": None, "h": "e"}) == {"e": 2, "f": 1, "g": 1, "h": 3}
    n = 100_000
    chain = {f"c{i}": (f"c{i + 1}" if i + 1 < n else None) for i in range(n)}
    start = time.perf_counter()
    assert cohort_depths(chain)["c0"] == n
    assert cyclic_cohorts(Cohort(k, parent=v) for k, v in list(chain.items())[:20_000]) == frozenset()
    assert time.perf_counter() - start < 5


# --------------------------------------------------------------------------- the Python API's argument checks


def test_schedule_cycle_takes_a_naive_now_as_utc() -> None:
    """A naive ``now`` used to end in ``TypeError`` (naive minus aware) once a head was nominated."""
    from datetime import datetime, timezone

    from kueue_preempt.cycle import CycleState, schedule_cycle
    from kueue_preempt.errors import InvalidArgument
    from kueue_preempt.io import parse_dump

    objects = copy.deepcopy(sim_dump.OBJECTS)
    objects[6]["spec"]["active"] = True  # team-a/train becomes a pending head
    state = parse_dump(_dump(objects)).state
    naive = schedule_cycle(state, now=datetime(2026, 1, 1))
    aware = schedule_cycle(state, now=datetime(2026, 1, 1, tzinfo=timezone.utc))
    assert naive == aware
    assert CycleState(state).cycle(datetime(2026, 1, 1)) == CycleState(state).cycle(datetime(2026, 1, 1, tzinfo=timezone.utc))
    for bad in ("2026-01-01T00:00:00Z", True, 0):
        with pytest.raises(InvalidArgument, match="schedule_cycle: field 'now'"):
            schedule_cycle(state, now=bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="CycleState.cycle: field 'now'"):
        CycleState(state).cycle("now")  # type: ignore[arg-type]


def test_select_podgroup_victims_checks_what_placement_returns() -> None:
    pytest.importorskip("yaml")
    from kueue_preempt.io import load_dump
    from kueue_preempt.podgroup import InvalidPlacement, select_podgroup_victims

    dump = load_dump(str(Path(__file__).resolve().parent.parent / "examples" / "podgroup.yaml"))
    preemptor = dump.pod_group_preemptor("ml/llm-train")
    for junk in (lambda *a: 5, lambda *a: "pods", lambda *a: [("pod", "node")], lambda *a: [(preemptor.pods[0],)]):
        with pytest.raises(InvalidPlacement):
            select_podgroup_victims(preemptor, dump.cluster(), placement=junk)  # type: ignore[arg-type]

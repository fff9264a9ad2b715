"""Arrivals files: rows, validation naming file/line/field, template resolution (SC-SIM-13, SC-T-2)."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt.io import ManifestError
from kueue_preempt.sim import (
    SIM_START,
    ArrivalError,
    ArrivalRow,
    ArrivalsFile,
    PodSetOverride,
    WorkloadOverrides,
    arrivals_text,
    load_arrivals,
    parse_arrivals,
    parse_arrivals_csv,
    resolve_arrivals,
)
from sim_dump import small_dump


def _jsonl(*rows: dict[str, object]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def test_template_row_with_overrides_builds_a_fresh_pending_workload() -> None:
    text = _jsonl(
        {"at": 5, "duration": 60, "template": "team-a/train", "name": "j1", "priorityClassName": "high",
         "podSets": [{"count": 3, "requests": {"cpu": "1500m"}}], "annotations": {"k": "v"}}
    )
    arrivals = resolve_arrivals(parse_arrivals(text, source="a.jsonl"), small_dump())
    (a,) = arrivals.arrivals
    w = a.workload.workload
    assert (a.at, a.duration, a.cluster_queue) == (5.0, 60.0, "team-a")
    assert w.key == "team-a/j1" and w.local_queue == "lq-a"
    assert w.priority == 1000 and w.priority_class is not None and w.priority_class.name == "high"
    assert w.annotations == {"k": "v"}
    assert a.workload.pod_sets[0].count == 3 and a.workload.pod_sets[0].requests == {"cpu": 1500}
    # SC-SIM-13 item 7: uid in arrival order, creation time = the arrival time.
    assert w.uid == "sim-00000001" and w.creation_time == SIM_START + timedelta(seconds=5)
    assert a.workload.is_pending and w.cluster_queue == "" and not w.conditions


def test_template_status_is_dropped_and_name_defaults_to_template_and_row() -> None:
    text = _jsonl({"at": 0, "duration": 1, "template": "etl"}, {"at": 0, "duration": 1, "template": "etl"})
    arrivals = resolve_arrivals(parse_arrivals(text), small_dump())
    assert [a.key for a in arrivals.arrivals] == ["team-b/etl-1", "team-b/etl-2"]
    assert all(a.workload.is_pending for a in arrivals.arrivals)
    assert arrivals.arrivals[0].workload.pod_sets[0].requests == {"cpu": 1000}


def test_arrivals_sorted_by_time_keeping_file_order_for_ties() -> None:
    """SC-T-2: arrivals of one instant are applied in input order; uids follow (SC-T-4)."""
    text = _jsonl(
        {"at": 10, "duration": 1, "template": "train", "name": "late"},
        {"at": 2, "duration": 1, "template": "train", "name": "b"},
        {"at": 2, "duration": 1, "template": "train", "name": "a"},
    )
    arrivals = resolve_arrivals(parse_arrivals(text), small_dump())
    assert [a.workload.workload.name for a in arrivals.arrivals] == ["b", "a", "late"]
    assert [a.workload.workload.uid for a in arrivals.arrivals] == ["sim-00000001", "sim-00000002", "sim-00000003"]


def test_full_manifest_row() -> None:
    manifest = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {"name": "m", "namespace": "team-b"},
        "spec": {"queueName": "lq-b", "priorityClassRef": {"group": "kueue.x-k8s.io", "kind": "WorkloadPriorityClass", "name": "high"},
                 "podSets": [{"name": "main", "count": 2, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]},
    }
    arrivals = resolve_arrivals(parse_arrivals(_jsonl({"at": 1.5, "duration": 2, "workload": manifest})), small_dump())
    (a,) = arrivals.arrivals
    assert a.cluster_queue == "team-b" and a.workload.workload.priority == 1000  # class resolved at creation
    assert a.workload.pod_sets[0].count == 2


def test_running_rows_give_remaining_time_of_admitted_workloads() -> None:
    arrivals = resolve_arrivals(parse_arrivals(_jsonl({"running": "team-b/etl", "remaining": 120})), small_dump())
    assert arrivals.remaining == {"team-b/etl": 120.0}


def test_multi_pod_set_override_by_name() -> None:
    text = _jsonl({"at": 0, "duration": 1, "template": "mpi", "name": "x", "podSets": [{"name": "worker", "count": 8}]})
    (a,) = resolve_arrivals(parse_arrivals(text), small_dump()).arrivals
    assert [(p.name, p.count) for p in a.workload.pod_sets] == [("launcher", 1), ("worker", 8)]


BAD_ROWS = [
    ({"duration": 1, "template": "train"}, "at", "required"),
    ({"at": -1, "duration": 1, "template": "train"}, "at", ">= 0"),
    ({"at": 0, "duration": 0, "template": "train"}, "duration", "> 0"),
    ({"at": "soon", "duration": 1, "template": "train"}, "at", "finite number"),
    ({"at": 0, "duration": 1}, "template", "exactly one"),
    ({"at": 0, "duration": 1, "template": "train", "color": "red"}, "color", "unknown field"),
    ({"at": 0, "duration": 1, "template": "train", "priority": 2**31}, "priority", "between"),
    ({"at": 0, "duration": 1, "template": "train", "priority": 1, "priorityClassName": "high"}, "priorityClassName", "either"),
    ({"at": 0, "duration": 1, "template": "train", "podSets": [{"requests": {"cpu": "lots"}}]}, "podSets[0].requests.cpu", "invalid quantity"),
    ({"at": 0, "duration": 1, "template": "train", "podSets": [{"count": -1}]}, "podSets[0].count", "between"),
    ({"at": 0, "duration": 1, "template": "train", "podSets": []}, "podSets", "non-empty"),
    ({"at": 0, "duration": 1, "workload": {"kind": "ConfigMap"}}, "workload.kind", "expected 'Workload', 'Job', 'JobSet' or 'Pod'"),
    ({"at": 0, "duration": 1, "workload": {"kind": "Pod"}}, "workload.apiVersion", "missing; use v1"),
    ({"at": 0, "duration": 1, "workload": {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", "metadata": {"name": "w", "namespace": "n"}, "spec": {}}}, "workload.spec.podSets", "required"),
    ({"at": 0, "duration": 1, "workload": {"kind": "Workload"}, "name": "x"}, "name", "template rows"),
    ({"running": "team-b/etl"}, "remaining", "required"),
    ({"running": "etl", "remaining": 3}, "running", "NAMESPACE/NAME"),
]


@pytest.mark.parametrize(("row", "field", "reason"), BAD_ROWS)
def test_a_bad_row_names_file_line_and_field(row: dict[str, object], field: str, reason: str) -> None:
    text = _jsonl({"at": 0, "duration": 1, "template": "train", "name": "ok"}) + "\n" + _jsonl(row)
    with pytest.raises(ArrivalError) as info:
        parse_arrivals(text, source="arr.jsonl")
    err = info.value
    assert (err.source, err.line, err.field) == ("arr.jsonl", 3, field)
    assert reason in str(err) and str(err).startswith(f"arr.jsonl:3: field {field!r}")
    assert isinstance(err, ManifestError)


RESOLVE_ERRORS = [
    ({"at": 0, "duration": 1, "template": "nope"}, "template", "no Workload"),
    ({"at": 0, "duration": 1, "template": "train", "queueName": "missing"}, "queueName", "not in the dump"),
    ({"at": 0, "duration": 1, "template": "train", "priorityClassName": "low"}, "priorityClassName", "no WorkloadPriorityClass"),
    ({"at": 0, "duration": 1, "template": "train", "name": "train"}, "name", "already exists in the dump"),
    ({"at": 0, "duration": 1, "template": "train", "name": "dup"}, "name", "earlier row"),
    ({"at": 0, "duration": 1, "template": "mpi", "podSets": [{"count": 2}]}, "podSets[0].name", "2 pod sets"),
    ({"at": 0, "duration": 1, "template": "mpi", "podSets": [{"name": "ps", "count": 2}]}, "podSets[0].name", "no pod set"),
    ({"running": "team-a/train", "remaining": 1}, "running", "not admitted"),
    ({"running": "team-a/ghost", "remaining": 1}, "running", "no Workload"),
]


@pytest.mark.parametrize(("row", "field", "reason"), RESOLVE_ERRORS)
def test_resolution_errors_name_the_row(row: dict[str, object], field: str, reason: str) -> None:
    text = _jsonl({"at": 0, "duration": 1, "template": "train", "name": "dup"}, row)
    with pytest.raises(ArrivalError) as info:
        resolve_arrivals(parse_arrivals(text, source="f"), small_dump())
    assert (info.value.line, info.value.field) == (2, field)
    assert reason in str(info.value)


@pytest.mark.parametrize(
    ("line", "reason"),
    [("{not json", "JSON syntax error"), ("[1, 2]", "JSON object"), ('{"at": NaN}', "NaN"),
     ('{"at": 1, "at": 2}', "duplicate key"), ("[" * 5000 + "]" * 5000, "")],
)
def test_malformed_json_lines(line: str, reason: str) -> None:
    with pytest.raises(ArrivalError) as info:
        parse_arrivals("# comment\n" + line + "\n")
    assert info.value.line == 2 and reason in str(info.value)


def test_deep_nesting_is_rejected_without_recursion() -> None:
    deep = '{"at": 0, "duration": 1, "annotations": ' + '{"a": ' * 150 + "1" + "}" * 150 + "}"
    with pytest.raises(ArrivalError, match="nested deeper"):
        parse_arrivals(deep)


def test_csv_simple_form(tmp_path: Path) -> None:
    path = tmp_path / "arr.csv"
    path.write_text(
        "at,duration,template,name,priority,count,requests.cpu,annotations.team\n"
        "0,60,train,c1,5,2,2,ml\n"
        "\n"
        "3.5,10,train,c2,,,,\n"
    )
    file = load_arrivals(path)
    first, second = resolve_arrivals(file, small_dump()).arrivals
    assert (first.workload.workload.priority, first.workload.pod_sets[0].count) == (5, 2)
    assert first.workload.pod_sets[0].requests == {"cpu": 2000} and first.workload.workload.annotations == {"team": "ml"}
    assert (second.at, second.workload.workload.priority) == (3.5, 10)  # empty cells keep the template's values


@pytest.mark.parametrize(
    ("text", "line", "field"),
    [("at,duration,template,colour\n", 1, "colour"), ("at,duration,template\n0,1\n", 2, ""),
     ("at,duration,template\n0,x,train\n", 2, "duration"), ("at,duration,template,priority\n0,1,train,high\n", 2, "priority")],
)
def test_csv_errors(text: str, line: int, field: str) -> None:
    with pytest.raises(ArrivalError) as info:
        parse_arrivals_csv(text, source="a.csv")
    assert (info.value.line, info.value.field) == (line, field)


def test_not_utf8_file(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_bytes(b'{"at": 0}\n\xff\xfe\n')
    with pytest.raises(ArrivalError, match="UTF-8") as info:
        load_arrivals(path)
    assert info.value.line == 2


def test_inputs_are_not_mutated() -> None:
    dump = small_dump()
    before = dump.workloads
    file = parse_arrivals(_jsonl({"at": 0, "duration": 1, "template": "train", "name": "n", "priority": 3}))
    resolve_arrivals(file, dump)
    assert dump.workloads == before and dump.workload("team-a/train").workload.priority == 10


_names = st.text(alphabet="abcdefghij-", min_size=1, max_size=8).filter(lambda s: s[0] != "-")
_rows = st.builds(
    ArrivalRow,
    at=st.integers(0, 10**6).map(float) | st.floats(0, 1e6, allow_nan=False).map(lambda x: float(repr(x))),
    duration=st.integers(1, 10**5).map(float),
    template=st.just("train"),
    overrides=st.builds(
        WorkloadOverrides,
        name=st.none() | _names,
        priority=st.none() | st.integers(-(2**31), 2**31 - 1),
        pod_sets=st.just(()) | st.tuples(st.builds(PodSetOverride, count=st.none() | st.integers(0, 100),
                                                   requests=st.dictionaries(st.sampled_from(["cpu", "memory"]), st.integers(0, 10**9)))),
        annotations=st.dictionaries(_names, _names, max_size=2),
    ),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(_rows, max_size=5))
def test_written_file_reads_back_equal(rows: list[ArrivalRow]) -> None:
    file = ArrivalsFile(rows=rows)
    assert parse_arrivals(arrivals_text(file)) == file

"""Timeline events and their JSONL form (round trip, strict reading)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import FlavorResource
from kueue_preempt.sim import TimelineError
from kueue_preempt.sim.output.timeline import (
    AdmittedPodSet,
    Admitted,
    Arrived,
    Event,
    Finished,
    Inadmissible,
    Livelock,
    Preempted,
    Released,
    Requeued,
    RequeueRun,
    event_json,
    parse_timeline,
    timeline_text,
)

GPU = FlavorResource("a100", "nvidia.com/gpu")


def test_every_event_kind_round_trips() -> None:
    events: list[Event] = [
        Arrived(0, "ns/a", "cq", initial=True),
        Admitted(0, "ns/a", "cq", [AdmittedPodSet("main", 2, {"nvidia.com/gpu": "a100"})], {GPU: 2}, initial=True),
        Arrived(1.25, "ns/b", "cq"),
        Inadmissible(1.25, "ns/b", "cq", "couldn't assign flavors"),
        Preempted(2, "ns/a", "cq", "ns/b", "InClusterQueue", "Preempted to accommodate ...", 10, 0, 5, 0),
        Released(2, "ns/a", "cq"),
        Requeued(2, "ns/a", "cq", "Preempted"),
        Finished(9.5, "ns/b", "cq"),
        Livelock(9.5, 30, ["ns/a", "ns/b"]),
        RequeueRun(10.5, "Cohort/all", 12),
    ]
    text = timeline_text(events)
    assert parse_timeline(text) == tuple(events)
    # Resource names may contain "/": the usage key splits at the flavor's end.
    assert '"usage":{"a100/nvidia.com/gpu":2}' in text
    assert event_json(events[4])["preemptor"] == "ns/b"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('{"t": 0, "event": "exploded", "workload": "a", "clusterQueue": "q"}', "unknown event"),
        ('{"t": -1, "event": "finished", "workload": "a", "clusterQueue": "q"}', "field 't'"),
        ('{"t": 0, "event": "finished", "workload": 3, "clusterQueue": "q"}', "field 'workload'"),
        ('{"t": 0, "event": "admitted", "workload": "a", "clusterQueue": "q", "usage": {"cpu": 1}}', "FLAVOR/RESOURCE"),
        ('{"t": 0, "event": "livelock", "cycles": 1, "workloads": [1]}', "workload names"),
        ('{"t": 0, "event": "requeue-run", "root": "Cohort/a", "moved": -1}', "field 'moved'"),
        ('{"t": 0, "event": "requeue-run", "moved": 2}', "field 'root'"),
        ("nonsense", "JSON syntax"),
    ],
)
def test_malformed_lines_are_typed_errors_with_line_numbers(line: str, reason: str) -> None:
    with pytest.raises(TimelineError) as info:
        parse_timeline('{"t": 0, "event": "arrived", "workload": "a", "clusterQueue": "q"}\n' + line, source="tl")
    assert info.value.line == 2 and reason in str(info.value) and str(info.value).startswith("tl:2:")


def test_time_must_not_go_backwards() -> None:
    text = timeline_text([Arrived(5, "a", "q"), Arrived(4, "b", "q")])
    with pytest.raises(TimelineError, match="backwards"):
        parse_timeline(text)


_names = st.text(alphabet="abc/-", min_size=1, max_size=6)
_t = st.integers(0, 10**6).map(float) | st.floats(0, 1e6, allow_nan=False)
_event: st.SearchStrategy[Event] = st.one_of(
    st.builds(Arrived, _t, _names, _names, st.booleans()),
    st.builds(Finished, _t, _names, _names),
    st.builds(Requeued, _t, _names, _names, _names),
    st.builds(RequeueRun, _t, _names, st.integers(0, 10**6)),
    st.builds(Preempted, _t, _names, _names, _names, _names, _names, st.integers(-5, 5), st.integers(-5, 5)),
    st.builds(
        Admitted, _t, _names, _names,
        st.lists(st.builds(AdmittedPodSet, _names, st.integers(0, 9), st.dictionaries(_names, _names, max_size=2)), max_size=2),
        st.dictionaries(st.builds(FlavorResource, st.sampled_from(["f", "g"]), _names), st.integers(0, 10**9), max_size=3),
    ),
)


@settings(max_examples=80, deadline=None)
@given(st.lists(_event, max_size=6))
def test_any_timeline_round_trips(events: list[Event]) -> None:
    ordered = sorted(events, key=lambda e: e.t)
    assert parse_timeline(timeline_text(ordered)) == tuple(ordered)

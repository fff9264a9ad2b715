"""Fuzzing every reader and public entry point: a typed error or a valid result, never more.

Each property feeds a reader other people's files gone wrong: the bundled examples with one
field set to a junk value, truncated at a random byte, with bytes flipped, or with an absurd
size; and the library's entry points junk arguments. The assertion is the same everywhere:

* the call returns, or raises a :class:`~kueue_preempt.errors.KueuePreemptError` subclass
  (never a bare ``TypeError``/``KeyError``/``RecursionError``...);
* the input is unchanged (mappings are compared with a deep copy taken before the call);
* within a time budget and a memory budget (``tracemalloc`` peak).

The default run is bounded (``FUZZ_EXAMPLES`` examples per property, a few seconds in total,
so the README's test command runs it); ``nox -s fuzz`` sets ``KUEUE_PREEMPT_FUZZ=long`` for
thousands of examples per property.
"""

from __future__ import annotations

import copy
import json
import os
import time
import tracemalloc
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kueue_preempt import Assignment, KueuePreemptError, get_targets
from kueue_preempt.cycle import schedule_cycle
from kueue_preempt.io import parse_assignment, parse_documents, parse_dump, parse_kueue_config
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.kperf.scenario import build_scenario, parse_scenario
from kueue_preempt.podgroup import select_podgroup_victims
from kueue_preempt.policies.boost import TimeSharingConfig, parse_go_duration
from kueue_preempt.sim import parse_arrivals, parse_arrivals_csv, resolve_arrivals
from kueue_preempt.sim.arrivals.generate import parse_generator_spec
from kueue_preempt.sim.run import simulate
from test_sim_cycle import DUMP as SIM_DUMP, STATE as SIM_STATE

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
_MODE = os.environ.get("KUEUE_PREEMPT_FUZZ", "")
LONG = _MODE == "long" or _MODE.isdigit()
FUZZ_EXAMPLES = int(_MODE) if _MODE.isdigit() else 2000 if LONG else 40
"""Examples per property: bounded in the default run (the whole file takes about 10 s);
``KUEUE_PREEMPT_FUZZ=long`` (``nox -s fuzz``) or a number of examples for longer runs."""
SECONDS = 10.0
"""Time budget of one call: the inputs are at most a few hundred KB, so even a slow path is far below it."""
MEMORY = 96 * 2**20
"""Memory budget of one call (tracemalloc peak); the largest example reads in under 20 MiB."""

FUZZ = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    derandomize=not LONG,
)


def _within_budget(call: Callable[[], object], what: str) -> None:
    """Run ``call``: a result or a library error, within :data:`SECONDS` and :data:`MEMORY`."""
    tracemalloc.start()
    started = time.perf_counter()
    try:
        call()
    except KueuePreemptError:
        pass
    except Exception as exc:  # noqa: BLE001 - exactly what the property forbids
        pytest.fail(f"{what}: raw {type(exc).__name__}: {exc}")
    finally:
        elapsed = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert elapsed < SECONDS, f"{what}: took {elapsed:.1f} s"
    assert peak < MEMORY, f"{what}: peak {peak / 2**20:.0f} MiB"


# ------------------------------------------------------------------------------- junk values

JUNK: list[Any] = [
    None, True, False, 0, -1, 2**63, -(2**63) - 1, 10**400, 1e308, -1e-320, 0.5, "", " ", "x", "²", "٣h",
    "1e400", "NaN", "-Infinity", "9" * 5000, "a" * 300, "99999999999h", "1ns", "-5m", "2026-13-45T99:00:00Z",
    [], [1, "x"], {}, {"k": "v"}, {"": None}, [[[[[]]]]],
]
junk = st.sampled_from(JUNK) | st.integers() | st.floats() | st.text(max_size=12)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path to a value inside nested dicts and lists."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


def _replace(value: Any, path: tuple[Any, ...], new: Any) -> Any:
    doc = copy.deepcopy(value)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = new
    return doc


def _json_default(value: Any) -> Any:
    return str(value)


@st.composite
def corrupted(draw: st.DrawFn, docs: list[Any]) -> str:
    """One of ``docs`` (parsed JSON values) with one field set to junk, as JSON text, or
    truncated at a random point, or with a few characters flipped."""
    doc = draw(st.sampled_from(docs))
    paths = _paths(doc)
    kind = draw(st.sampled_from(["junk", "junk", "truncate", "flip", "delete"]))
    if kind in ("junk", "delete") and paths:
        path = draw(st.sampled_from(paths))
        if kind == "delete":
            doc = copy.deepcopy(doc)
            target = doc
            for key in path[:-1]:
                target = target[key]
            del target[path[-1]]
        else:
            doc = _replace(doc, path, draw(junk))
    try:
        text = json.dumps(doc, default=_json_default)
    except ValueError:  # a huge int past Python's str conversion limit
        text = json.dumps(doc, default=_json_default).replace("Infinity", "1")
    if kind == "truncate":
        text = text[: draw(st.integers(0, max(0, len(text) - 1)))]
    elif kind == "flip" and text:
        chars = list(text)
        for _ in range(draw(st.integers(1, 4))):
            i = draw(st.integers(0, len(chars) - 1))
            chars[i] = draw(st.sampled_from(list('{}[]:,"\\ 0-x\n\t\x00é')))
        text = "".join(chars)
    return text


def _yaml_docs(name: str) -> list[Any]:
    """The objects of an example dump, as plain data (one document per object)."""
    return [raw.data for raw in parse_documents(EXAMPLES.joinpath(name).read_text(), source=name)]


def _list_of(objects: list[Any]) -> list[Any]:
    return [{"apiVersion": "v1", "kind": "List", "items": objects}]


# Small dumps keep each example quick: the classic example plus one object of each kind.
CLASSIC = _yaml_docs("classic.yaml")
PODGROUP = _yaml_docs("podgroup.yaml")
SIM_CLUSTER = _yaml_docs("sim-cluster.yaml")


def _read_dump(text: str) -> None:
    dump = parse_dump(text, source="fuzz.json")
    dump.validate()
    cluster_state_from_objects(parse_documents(text, source="fuzz.json"))
    dump.snapshot()


@FUZZ
@given(corrupted(_list_of(CLASSIC) + _list_of(SIM_CLUSTER)))
def test_dump_reader(text: str) -> None:
    """A Kueue dump with a junk field, truncated or flipped: read, validated, snapshotted."""
    _within_budget(lambda: _read_dump(text), "dump")


def _podgroup(text: str) -> None:
    dump = parse_dump(text, source="fuzz.json")
    cluster = dump.cluster()
    for group in dump.pod_groups:
        select_podgroup_victims(dump.pod_group_preemptor(f"{group.namespace}/{group.name}"), cluster)


@FUZZ
@given(corrupted(_list_of(PODGROUP)))
def test_podgroup_reader(text: str) -> None:
    """Pods, Nodes, PodGroups and PDBs with a junk field: the PodGroup cluster is built and
    every group's victims selected, or a library error."""
    _within_budget(lambda: _podgroup(text), "podgroup")


CONFIG = {
    "apiVersion": "config.kueue.x-k8s.io/v1beta1",
    "kind": "Configuration",
    "waitForPodsReady": {"enable": True, "timeout": "5m", "requeuingStrategy": {"backoffBaseSeconds": 60}},
    "fairSharing": {"enable": True, "preemptionStrategies": ["LessThanOrEqualToFinalShare", "LessThanInitialShare"]},
    "clientConnection": {"qps": 50, "burst": 100},
    "featureGates": {"PrioritySortingWithinCohort": False},
}


@FUZZ
@given(corrupted([CONFIG]))
def test_kueue_configuration_reader(text: str) -> None:
    """A Kueue Configuration with a junk value, truncated or flipped."""
    _within_budget(lambda: parse_kueue_config(text, source="config.json"), "configuration")


ASSIGNMENT = _yaml_docs("assignment.yaml")


@FUZZ
@given(corrupted(ASSIGNMENT))
def test_assignment_reader(text: str) -> None:
    """An explicit flavor assignment file gone wrong (as text and as an already-parsed mapping)."""
    _within_budget(lambda: parse_assignment(text, source="a.json"), "assignment")
    try:
        data = json.loads(text)
    except ValueError:
        return
    if isinstance(data, dict):
        before = copy.deepcopy(data)
        _within_budget(lambda: parse_assignment(data, source="a.json"), "assignment mapping")
        assert data == before, "parse_assignment changed its input"


ARRIVALS_DUMP = parse_dump(EXAMPLES.joinpath("sim-cluster.yaml").read_text(), source="sim-cluster.yaml")
ARRIVALS = [json.loads(line) for line in EXAMPLES.joinpath("sim-arrivals.jsonl").read_text().splitlines() if line.strip()]


@FUZZ
@given(st.lists(corrupted(ARRIVALS[:20]), min_size=1, max_size=6))
def test_arrivals_reader(lines: list[str]) -> None:
    """JSON Lines arrivals with a junk field, truncated or flipped rows: read and resolved."""
    text = "\n".join(lines) + "\n"
    _within_budget(lambda: resolve_arrivals(parse_arrivals(text, source="a.jsonl"), ARRIVALS_DUMP), "arrivals")


@FUZZ
@given(st.lists(st.lists(junk.map(str), min_size=0, max_size=5), max_size=5), st.booleans())
def test_arrivals_csv_reader(rows: list[list[str]], header: bool) -> None:
    """CSV arrivals of junk cells, with or without a valid header."""
    lines = (["at,duration,template,priority,count,requests.cpu"] if header else []) + [",".join(r) for r in rows]
    text = "\n".join(lines)
    _within_budget(lambda: parse_arrivals_csv(text, source="a.csv"), "arrivals csv")


GENERATOR = json.loads(EXAMPLES.joinpath("sim-generator.json").read_text())


@FUZZ
@given(corrupted([GENERATOR]))
def test_generator_spec_reader(text: str) -> None:
    """A ``--generate`` spec with junk values or absurd sizes: refused before generating, or
    a spec whose generation fits the budget."""
    try:
        data = json.loads(text)
    except ValueError:
        return
    if not isinstance(data, dict):
        return
    before = copy.deepcopy(data)
    _within_budget(lambda: parse_generator_spec(data, source="spec.json"), "generator spec")
    assert data == before, "parse_generator_spec changed its input"


SCENARIO = _yaml_docs("kueue-perf/baseline-generator.yaml")


def _scenario(text: str) -> None:
    scenario = parse_scenario(text, source="scenario.json")
    if sum(c.count * sum(q.count * (1 + sum(w.count for w in q.workloads_sets)) for q in c.queues_sets) for c in scenario.cohorts) < 5000:
        build_scenario(scenario)


@FUZZ
@given(corrupted(SCENARIO))
def test_scenario_reader(text: str) -> None:
    """A Kueue-perf generator file with junk counts, sizes and policies: refused from its
    counts, or read (and built when small)."""
    _within_budget(lambda: _scenario(text), "scenario")


@FUZZ
@given(corrupted([{"timeSharing": {"interval": "30m", "negativeBoost": 500, "workloadSelector": {"matchLabels": {"team": "a"}, "matchExpressions": [{"key": "k", "operator": "In", "values": ["a"]}]}}, "maxWorkloadPriority": 100}]))
def test_time_sharing_reader(text: str) -> None:
    """The priority booster's configuration (``timeSharing``) gone wrong; Go durations too."""
    try:
        data = json.loads(text)
    except ValueError:
        _within_budget(lambda: parse_go_duration(text), "go duration")
        return
    if isinstance(data, dict):
        before = copy.deepcopy(data)
        _within_budget(lambda: TimeSharingConfig.from_mapping(data), "time sharing")
        assert data == before, "TimeSharingConfig.from_mapping changed its input"


# ------------------------------------------------------------------------- entry points

SNAPSHOT_DUMP = parse_dump(EXAMPLES.joinpath("classic.yaml").read_text(), source="classic.yaml")


@FUZZ
@given(st.integers(0, 4), junk)
def test_entry_points_with_a_junk_argument(position: int, bad: Any) -> None:
    """``get_targets``, ``schedule_cycle``, ``simulate`` and ``select_podgroup_victims`` with
    one argument replaced by junk: a library error (the valid calls are tested elsewhere)."""
    snapshot = SNAPSHOT_DUMP.snapshot()
    pending = SNAPSHOT_DUMP.pending()[0]
    calls: list[Callable[[], object]] = [
        lambda: get_targets(bad, SNAPSHOT_DUMP.cluster_queue_for(pending), Assignment(requests={}, preempt=[]), snapshot),
        lambda: get_targets(pending.workload, bad, Assignment(requests={}, preempt=[]), snapshot),
        lambda: schedule_cycle(SIM_STATE, bad),
        lambda: simulate(SIM_STATE, SIM_DUMP, bad),
        lambda: select_podgroup_victims(bad, SNAPSHOT_DUMP.cluster()),
    ]
    before = sorted(snapshot.workloads(), key=lambda w: w.key)
    _within_budget(calls[position], f"entry point {position}")
    assert sorted(snapshot.workloads(), key=lambda w: w.key) == before, "a refused call changed the snapshot"


@settings(max_examples=max(4, FUZZ_EXAMPLES // 3), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["{", "[" * 200, "a: &a [*a]", "- " * 5000, '{"a": ' * 150 + "1" + "}" * 150, "x: " + "9" * 10_000]))
def test_absurd_shapes(text: str) -> None:
    """Deep nesting, alias loops, huge numbers: every reader refuses them quickly."""
    for reader in (parse_dump, parse_kueue_config, parse_scenario):
        _within_budget(lambda: reader(text), reader.__name__)
    _within_budget(lambda: parse_arrivals(text), "parse_arrivals")


def test_the_seeds_are_valid_inputs() -> None:
    """The uncorrupted seeds read without error, so the properties start from valid files
    and each corruption is the only thing wrong."""
    _read_dump(json.dumps(_list_of(CLASSIC)[0]))
    _read_dump(json.dumps(_list_of(SIM_CLUSTER)[0]))
    parse_dump(json.dumps(_list_of(PODGROUP)[0])).cluster()
    parse_kueue_config(json.dumps(CONFIG))
    parse_assignment(json.dumps(ASSIGNMENT[0]))
    resolve_arrivals(parse_arrivals("".join(json.dumps(r) + "\n" for r in ARRIVALS[:20])), ARRIVALS_DUMP)
    parse_generator_spec(GENERATOR)
    build_scenario(parse_scenario(json.dumps(SCENARIO[0])))

"""Kueue's scalability generator format (kueue_preempt.kperf.scenario): the objects and the
arrival stream of a small scenario written out by hand, and clear errors for bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from kueue_preempt.io import ManifestError
from kueue_preempt.kperf.scenario import (
    CLASS_LABEL,
    RUNNING_MS_LABEL,
    GeneratedWorkload,
    QueueSpec,
    ScenarioError,
    build_scenario,
    load_scenario,
    parse_scenario,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "kueue-perf"

SMALL = """
cohorts:
- className: team
  count: 2
  queuesSets:
  - className: cq
    count: 1
    nominalQuota: 4
    borrowingLimit: 2
    reclaimWithinCohort: LowerPriority
    withinClusterQueue: LowerPriority
    workloadsSets:
    - count: 2
      creationIntervalMs: 100
      workloads:
      - {className: small, runtimeMs: 200, priority: 50, request: 1}
      - {className: big, runtimeMs: 1000, priority: 100, request: 3}
    - count: 1
      creationIntervalMs: 250
      workloads:
      - {className: big, runtimeMs: 500, priority: 100, request: 2}
"""


def test_small_scenario_objects_and_stream_written_out() -> None:
    built = build_scenario(parse_scenario(SMALL, source="small.yaml"))
    assert built.flavor == "rf"
    # Cohorts <className>-<i>; ClusterQueues <className>-<q>-<j>-<cohort>.
    assert built.queues == (
        QueueSpec("cq-0-0-team-0", "team-0", "cq", 4000, 2000, "LowerPriority", "LowerPriority"),
        QueueSpec("cq-0-0-team-1", "team-1", "cq", 4000, 2000, "LowerPriority", "LowerPriority"),
    )
    # Set s, iteration k, template t: created at (k*T + t + 1) * interval; every set starts at 0.
    def both(at: int, name: str, cls: str, pri: int, cpu: int, run: int) -> list[GeneratedWorkload]:
        return [GeneratedWorkload(at, name, q, cls, pri, cpu, run) for q in ("cq-0-0-team-0", "cq-0-0-team-1")]

    assert list(built.workloads) == [
        *both(100, "small-0-0-0", "small", 50, 1000, 200),
        *both(200, "big-0-0-1", "big", 100, 3000, 1000),
        *both(250, "big-1-0-0", "big", 100, 2000, 500),
        *both(300, "small-0-1-0", "small", 50, 1000, 200),
        *both(400, "big-0-1-1", "big", 100, 3000, 1000),
    ]
    assert built.workloads[0].key == "cq-0-0-team-0/small-0-0-0"


def test_manifests_are_what_the_runner_creates() -> None:
    built = build_scenario(parse_scenario(SMALL))
    objects = built.objects()
    assert [(o["kind"], o["metadata"]["name"]) for o in objects] == [
        ("ResourceFlavor", "rf"),
        ("Namespace", "cq-0-0-team-0"),
        ("ClusterQueue", "cq-0-0-team-0"),
        ("LocalQueue", "cq-0-0-team-0"),
        ("Namespace", "cq-0-0-team-1"),
        ("ClusterQueue", "cq-0-0-team-1"),
        ("LocalQueue", "cq-0-0-team-1"),
    ]
    spec = objects[2]["spec"]
    assert spec["cohortName"] == "team-0"
    assert spec["queueingStrategy"] == "BestEffortFIFO"
    assert spec["namespaceSelector"] == {}
    assert spec["preemption"] == {"reclaimWithinCohort": "LowerPriority", "withinClusterQueue": "LowerPriority"}
    assert "borrowWithinCohort" not in spec["preemption"]
    assert spec["resourceGroups"] == [
        {
            "coveredResources": ["cpu"],
            "flavors": [{"name": "rf", "resources": [{"name": "cpu", "nominalQuota": "4", "borrowingLimit": "2"}]}],
        }
    ]
    assert objects[3]["metadata"]["namespace"] == "cq-0-0-team-0"
    assert objects[3]["spec"] == {"clusterQueue": "cq-0-0-team-0"}
    wl = built.workload_manifest(built.workloads[2])
    assert wl["metadata"] == {
        "name": "big-0-0-1",
        "namespace": "cq-0-0-team-0",
        "labels": {CLASS_LABEL: "big", RUNNING_MS_LABEL: "1000"},
    }
    assert wl["spec"]["queueName"] == "cq-0-0-team-0"
    assert wl["spec"]["priority"] == 100
    (ps,) = wl["spec"]["podSets"]
    assert ps["name"] == "main" and ps["count"] == 1
    assert ps["template"]["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "3"}


def test_resource_flavor_name_and_go_zero_values() -> None:
    text = """
resourceFlavor: {name: gpu-pool}
cohorts:
- className: c
  count: 1
  queuesSets:
  - className: q
    count: 1
    nominalQuota: 3
"""
    built = build_scenario(parse_scenario(text))
    assert built.flavor == "gpu-pool"
    # Absent borrowingLimit is Go's 0; absent policies are Kueue's default Never.
    assert built.queues == (QueueSpec("q-0-0-c-0", "c-0", "q", 3000, 0, "Never", "Never"),)
    assert built.workloads == ()


def test_vendored_baseline_and_large_scale_sizes() -> None:
    base = build_scenario(load_scenario(EXAMPLES / "baseline-generator.yaml"))
    assert len(base.queues) == 30
    assert len(base.workloads) == 30 * (350 + 100 + 50)
    assert {q.cohort for q in base.queues} == {f"cohort-{i}" for i in range(5)}
    # The last small of a queue is created at 350 x 100 ms; the last large at 50 x 1200 ms.
    assert max(w.at_ms for w in base.workloads if w.class_name == "small") == 35_000
    assert max(w.at_ms for w in base.workloads) == 60_000
    large = build_scenario(load_scenario(EXAMPLES / "large-scale-generator.yaml"))
    assert len(large.queues) == 1000
    assert len(large.workloads) == 50_000


@pytest.mark.parametrize(
    ("text", "path", "words"),
    [
        ("cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, nominalQuotas: 4}]}]",
         "cohorts[0].queuesSets[0].nominalQuotas", "unknown field"),
        ("cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, nominalQuota: '4'}]}]",
         "cohorts[0].queuesSets[0].nominalQuota", "expected an integer"),
        ("cohorts: [{className: c, count: -1}]", "cohorts[0].count", "between 0"),
        ("cohorts: [{className: c, count: true}]", "cohorts[0].count", "expected an integer"),
        ("cohorts: {className: c}", "cohorts", "expected a list"),
        ("cohorts: [{className: Big, count: 1}]", "cohorts[0].className", "not a valid name"),
        ("cohorts: [{count: 1}]", "cohorts[0].className", "non-empty string"),
        ("cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, reclaimWithinCohort: Sometimes}]}]",
         "cohorts[0].queuesSets[0].reclaimWithinCohort", "expected one of Never, LowerPriority, Any"),
        ("cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, workloadsSets: "
         "[{count: 1, creationIntervalMs: 1.5, workloads: []}]}]}]",
         "cohorts[0].queuesSets[0].workloadsSets[0].creationIntervalMs", "expected an integer"),
        ("- 1\n- 2\n", "", "expected an object (a mapping), got a list"),
        ("", "", "expected one YAML document, got 0"),
    ],
)
def test_bad_files_name_the_field(text: str, path: str, words: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text, source="bad.yaml")
    assert info.value.path == path
    assert words in str(info.value)
    assert str(info.value).startswith("bad.yaml: ")
    assert isinstance(info.value, ManifestError)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("topology: {levels: [rack]}\ncohorts: []", "topology"),
        ("resourceFlavor: {name: rf, topologyName: default}\ncohorts: []", "resourceFlavor.topologyName"),
        ("cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1, workloadsSets: "
         "[{count: 1, creationIntervalMs: 1, workloads: [{className: w, podCount: 4, request: 1}]}]}]}]",
         "cohorts[0].queuesSets[0].workloadsSets[0].workloads[0].podCount"),
    ],
)
def test_topology_fields_are_refused_as_not_simulated(text: str, path: str) -> None:
    with pytest.raises(ScenarioError) as info:
        parse_scenario(text)
    assert info.value.path == path
    assert "topology" in info.value.reason and "not simulated" in info.value.reason


def test_syntax_error_and_too_long_names() -> None:
    with pytest.raises(ScenarioError):
        parse_scenario("cohorts: [", source="broken.yaml")
    long_name = "x" * 40
    text = f"cohorts: [{{className: {long_name}, count: 1, queuesSets: [{{className: {long_name}, count: 1}}]}}]"
    with pytest.raises(ScenarioError) as info:
        build_scenario(parse_scenario(text))
    assert "at most 63 characters" in str(info.value)


def test_duplicate_generated_names_are_refused() -> None:
    text = "cohorts: [{className: c, count: 1, queuesSets: [{className: q, count: 1}]}, {className: c, count: 1, queuesSets: [{className: q, count: 1}]}]"
    with pytest.raises(ScenarioError) as info:
        build_scenario(parse_scenario(text))
    assert "not unique" in str(info.value)

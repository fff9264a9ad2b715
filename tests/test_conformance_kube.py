"""kube-scheduler's own test cases (vendored data) run through ``kueue_preempt.podgroup``.

One test function per case kind (tests/conformance/README.md, "kube-scheduler schema").
PodGroup cases run in ``mode="kube"``: they record what kube-scheduler does, which has no
binary search (PG-30). Every run also checks that the cluster is left unchanged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from kueue_preempt.podgroup import (
    PodGroup,
    PodGroupPreemptor,
    Pod,
    dry_run_preemption,
    num_candidates,
    pod_eligible_to_preempt_others,
    podgroup_candidates,
    preempt_pod,
    resolve_preemption_policy,
    select_candidate,
    select_podgroup_victims,
)
from kube_cases import (
    CASES_DIR,
    all_test_names,
    cluster_of,
    composite_of,
    eligibility_of,
    features_of,
    group_preemptor_of,
    load_cases,
    ordering_of,
    placement_of,
    pod_group_of,
    pod_of,
    reprieve_filter_of,
)

Case = dict[str, Any]

_PREFIX = "preemption: "  # kube's PostFilter wraps the preemption message with this prefix


def _cases(*tests: str) -> list[Any]:
    return [p for t in tests for p in load_cases(t)]


def test_every_case_file_is_covered() -> None:
    """No vendored file, and no case kind, is silently ignored."""
    covered = {
        "TestPodGroupEvaluator_Preempt",
        "TestPodGroupEvaluator_Preempt_NominatedNodes",
        "TestPodGroupEvaluator_Preempt_Victims",
        "TestPodGroupPreemptionEvaluationDurationMetric",
        "TestDefaultPreemptionManager_GenerateVictims",
        "TestGetPreemptionPolicy",
        "TestDryRunPreemption",
        "TestSelectBestCandidate",
        "TestCustomSelection",
        "TestCustomOrdering",
        "TestPreempt",
        "TestPostFilter",
        "TestPodEligibleToPreemptOthers",
        "TestPreEnqueue",
    }
    assert set(all_test_names()) == covered
    for name in covered:
        for case in json.loads((CASES_DIR / f"{name}.json").read_text())["cases"]:
            assert case["kind"] in _RUNNERS or case.get("skip"), (name, case["kind"])


# --------------------------------------------------------------------------- PodGroup path


def run_podgroup_preempt(case: Case) -> None:
    cluster = cluster_of(case)
    before = cluster.state()
    result = select_podgroup_victims(
        group_preemptor_of(case["preemptor"]),
        cluster,
        mode="kube",
        placement=placement_of(case),
        reprieve_filter=reprieve_filter_of(case),
        features=features_of(case),
    )
    assert cluster.state() == before, "the cluster must be left unchanged"
    expected = case["expected"]
    status = expected["status"]
    assert result.status.code.value == status["code"], result.status
    if status.get("messageAsserted"):
        assert result.status.message == status["message"]
    if status["code"] != "Success":
        assert result.victims == ()
        return
    if expected.get("victims") is not None:
        assert expected.get("victimsCompare", "set") == "set"
        names = [p.name for p in result.victims]
        assert len(names) == len(set(names)), "a pod is listed twice"
        assert set(names) == set(expected["victims"])
    if "numPodGroupDisruptions" in expected:
        assert result.num_podgroup_disruptions == expected["numPodGroupDisruptions"]
    if "numPDBViolations" in expected:
        assert result.num_pdb_violations == expected["numPDBViolations"]
    if expected.get("nominations") is not None:
        assert expected.get("nominationsCompare", "exact") == "exact"
        assert dict(result.nominations) == expected["nominations"]


def run_generate_victims(case: Case) -> None:
    cluster = cluster_of(case)
    before = cluster.state()
    got = podgroup_candidates(group_preemptor_of(case["preemptor"]), cluster, features=features_of(case))
    assert cluster.state() == before
    expected = case["expected"]
    assert got.status.code.value == expected["status"]["code"], got.status
    if expected["status"]["code"] != "Success":
        return
    # kube stores the reverse of the attempt order: least important first, non-violating
    # block before the violating block (PG-25).
    stored = list(reversed(got.attempt_order))
    assert [(sorted(p.name for p in c.unit.pods), c.violating_pods) for c in stored] == [
        (sorted(v["pods"]), v["numPDBViolations"]) for v in expected["victims"]
    ]


def run_preemption_policy(case: Case) -> None:
    group: PodGroup | Any
    if case.get("compositePodGroup") is not None:
        group = composite_of(case["compositePodGroup"])
    else:
        group = pod_group_of(case["podGroup"])
    pods = [Pod(name=p["name"], preemption_policy=p.get("preemptionPolicy")) for p in case["pods"]]
    policy = resolve_preemption_policy(
        PodGroupPreemptor(group, pods), group_policy_enabled=case["podGroupPreemptionPolicyEnabled"]
    )
    assert policy.value == case["expected"]["policy"]


# --------------------------------------------------------------------------- per-node path


def _args(case: Case) -> tuple[int, int]:
    """(minCandidateNodesPercentage, minCandidateNodesAbsolute), kube's defaults if absent."""
    args = case.get("args") or {}
    return args.get("minCandidateNodesPercentage", 10), args.get("minCandidateNodesAbsolute", 100)


def _candidate_view(candidates: Any) -> list[dict[str, Any]]:
    return sorted(
        (
            {"node": c.node, "victims": sorted(p.name for p in c.victims), "numPDBViolations": c.num_pdb_violations}
            for c in candidates
        ),
        key=lambda c: str(c["node"]),
    )


def run_node_dry_run(case: Case) -> None:
    assert case["filters"] == ["NodeResourcesFit"] and case.get("fakeFilter") is None
    cluster = cluster_of(case)
    before = cluster.state()
    nodes = case["potentialNodes"]
    percentage, absolute = _args(case)
    for cycle in case["cycles"]:
        assert num_candidates(len(nodes), percentage, absolute) == cycle["numCandidates"]
        offsets = [cycle["offset"]] if cycle["offset"] is not None else range(len(nodes))
        for offset in offsets:
            result = dry_run_preemption(
                pod_of(cycle["preemptor"]),
                cluster,
                nodes,
                offset=offset,
                min_candidate_nodes_percentage=percentage,
                min_candidate_nodes_absolute=absolute,
            )
            assert result.num_candidates == cycle["numCandidates"]
            assert _candidate_view(result.candidates) == cycle["expected"]["candidates"], f"offset {offset}"
            assert cluster.state() == before


def run_select_candidate(case: Case) -> None:
    cluster = cluster_of(case)
    percentage, absolute = _args(case)
    result = dry_run_preemption(
        pod_of(case["preemptor"]),
        cluster,
        min_candidate_nodes_percentage=percentage,
        min_candidate_nodes_absolute=absolute,
    )
    chosen = select_candidate(result.candidates)
    assert chosen is not None
    assert chosen.node in case["expected"]["selectedNodeAnyOf"]


def run_custom_selection(case: Case) -> None:
    cluster = cluster_of(case)
    percentage, absolute = _args(case)
    result = dry_run_preemption(
        pod_of(case["preemptor"]),
        cluster,
        eligibility=eligibility_of(case["eligibility"]),
        min_candidate_nodes_percentage=percentage,
        min_candidate_nodes_absolute=absolute,
    )
    expected = case["expected"]["candidates"]
    remaining = list(result.candidates)
    assert len(remaining) == len(expected)
    while remaining:
        chosen = select_candidate(remaining)
        assert chosen is not None
        assert chosen.node in expected
        assert [p.name for p in chosen.victims] == expected[chosen.node]
        remaining.remove(chosen)


def run_custom_ordering(case: Case) -> None:
    cluster = cluster_of(case)
    percentage, absolute = _args(case)
    result = dry_run_preemption(
        pod_of(case["preemptor"]),
        cluster,
        ordering=ordering_of(case["ordering"]),
        min_candidate_nodes_percentage=percentage,
        min_candidate_nodes_absolute=absolute,
    )
    got = [{"node": c.node, "victims": [p.name for p in c.victims]} for c in result.candidates]
    assert got == case["expected"]["candidates"]


def run_preempt(case: Case) -> None:
    cluster = cluster_of(case)
    percentage, absolute = _args(case)
    before = cluster.state()
    result = preempt_pod(
        pod_of(case["preemptor"]),
        cluster,
        case["nodeStatuses"],
        default_node_status=case.get("defaultNodeStatus"),
        features=features_of(case),
        min_candidate_nodes_percentage=percentage,
        min_candidate_nodes_absolute=absolute,
    )
    assert cluster.state() == before
    expected = case["expected"]
    if "status" in expected:
        status = expected["status"]
        assert result.status.code.value == status["code"], result.status
        if status.get("messageAsserted"):
            want = status["message"]
            got = None if result.status.is_success else _PREFIX + result.status.message
            assert got == want
    post = expected["postFilterResult"]
    assert result.nominated_node_name == (None if post is None else post["nominatedNodeName"])
    if "victims" in expected:
        assert sorted(p.name for p in result.victims) == sorted(expected["victims"])


def run_eligibility(case: Case) -> None:
    cluster = cluster_of(case)
    status = pod_eligible_to_preempt_others(pod_of(case["preemptor"]), cluster, case.get("nominatedNodeStatus"))
    assert status.is_success == case["expected"]["eligible"]


_RUNNERS = {
    "podgroup_preempt": run_podgroup_preempt,
    "generate_victims": run_generate_victims,
    "preemption_policy": run_preemption_policy,
    "node_dry_run": run_node_dry_run,
    "select_candidate": run_select_candidate,
    "custom_selection": run_custom_selection,
    "custom_ordering": run_custom_ordering,
    "preempt": run_preempt,
    "post_filter": run_preempt,
    "eligibility": run_eligibility,
}


@pytest.mark.parametrize(
    "case",
    _cases(
        "TestPodGroupEvaluator_Preempt",
        "TestPodGroupEvaluator_Preempt_NominatedNodes",
        "TestPodGroupEvaluator_Preempt_Victims",
        "TestPodGroupPreemptionEvaluationDurationMetric",
    ),
)
def test_podgroup_preempt(case: Case) -> None:
    run_podgroup_preempt(case)


@pytest.mark.parametrize("case", _cases("TestDefaultPreemptionManager_GenerateVictims"))
def test_generate_victims(case: Case) -> None:
    run_generate_victims(case)


@pytest.mark.parametrize("case", _cases("TestGetPreemptionPolicy"))
def test_preemption_policy(case: Case) -> None:
    run_preemption_policy(case)


@pytest.mark.parametrize("case", _cases("TestDryRunPreemption"))
def test_dry_run_preemption(case: Case) -> None:
    run_node_dry_run(case)


@pytest.mark.parametrize("case", _cases("TestSelectBestCandidate"))
def test_select_best_candidate(case: Case) -> None:
    run_select_candidate(case)


@pytest.mark.parametrize("case", _cases("TestCustomSelection"))
def test_custom_selection(case: Case) -> None:
    run_custom_selection(case)


@pytest.mark.parametrize("case", _cases("TestCustomOrdering"))
def test_custom_ordering(case: Case) -> None:
    run_custom_ordering(case)


@pytest.mark.parametrize("case", _cases("TestPreempt", "TestPostFilter"))
def test_preempt(case: Case) -> None:
    run_preempt(case)


@pytest.mark.parametrize("case", _cases("TestPodEligibleToPreemptOthers"))
def test_pod_eligible_to_preempt_others(case: Case) -> None:
    run_eligibility(case)


@pytest.mark.parametrize("case", _cases("TestPreEnqueue"))
def test_pre_enqueue(case: Case) -> None:
    pytest.fail("pre_enqueue cases are all skipped")  # pragma: no cover

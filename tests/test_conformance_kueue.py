"""Kueue's own test cases (vendored data) run through the public API.

Suites: TestPreemption, TestHierarchicalPreemptions (kind ``targets``), TestCandidatesOrdering
(``ordering``), TestPreemptionPolicy (``policy``), TestPreemptionMessage (``message``),
TestPriorityInfo (``priority_info``).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from kueue_preempt import get_targets
from kueue_preempt.model import priority_info
from kueue_preempt.preemption import preemption_message, satisfies_preemption_policy, sort_candidates
from kueue_cases import config_of, incoming_of, load_cases, now_of, snapshot_of, workload_of

Case = dict[str, Any]


def run_targets_case(case: Case) -> None:
    snapshot = snapshot_of(case)
    before = snapshot.state()
    preemptor, assignment = incoming_of(case["incoming"])
    targets = get_targets(
        preemptor, case["incoming"]["clusterQueue"], assignment, snapshot, config=config_of(case), now=now_of(case)
    )
    assert snapshot.state() == before, "GT-3: snapshot must be unchanged"
    expected = case["expected"]
    got = Counter((t.workload.namespace, t.workload.name) for t in targets)
    want = Counter((t["namespace"], t["name"]) for t in expected["targets"])
    assert got == want
    if expected.get("count") is not None:
        assert len(targets) == expected["count"]
    by_name = {(t.workload.namespace, t.workload.name): t for t in targets}
    for exp in expected["targets"]:
        t = by_name[(exp["namespace"], exp["name"])]
        if exp.get("reason") is not None:
            assert t.reason.value == exp["reason"], exp["name"]
        if exp.get("message") is not None:
            assert t.message == exp["message"]
    if expected.get("ordered"):
        assert [(t.workload.namespace, t.workload.name) for t in targets] == [
            (t["namespace"], t["name"]) for t in expected["targets"]
        ]


@pytest.mark.parametrize("case", load_cases("TestPreemption"))
def test_preemption(case: Case) -> None:
    run_targets_case(case)


@pytest.mark.parametrize("case", load_cases("TestHierarchicalPreemptions"))
def test_hierarchical_preemptions(case: Case) -> None:
    run_targets_case(case)


@pytest.mark.parametrize("case", load_cases("TestCandidatesOrdering"))
def test_candidates_ordering(case: Case) -> None:
    candidates = [workload_of(w) for w in case["candidates"]]
    ordered = sort_candidates(candidates, case["preemptorClusterQueue"], now_of(case), config_of(case))
    assert [w.name for w in ordered] == case["expected"]["order"]


@pytest.mark.parametrize("case", load_cases("TestPreemptionPolicy"))
def test_preemption_policy(case: Case) -> None:
    preemptor = workload_of(case["preemptor"])
    candidate = workload_of(case["candidate"])
    got = satisfies_preemption_policy(preemptor, candidate, case["policy"], config_of(case))
    assert got == case["expected"]["satisfies"]


@pytest.mark.parametrize("case", load_cases("TestPreemptionMessage"))
def test_preemption_message(case: Case) -> None:
    from kueue_preempt import Workload

    raw = case["preemptor"]
    preemptor = Workload(name="preemptor", uid=raw.get("uid") or "", labels=raw.get("labels") or {})
    got = preemption_message(preemptor, case["reason"], case["preemptorPath"], case["preempteePath"])
    assert got == case["expected"]["message"]


@pytest.mark.parametrize("case", load_cases("TestPriorityInfo"))
def test_priority_info(case: Case) -> None:
    raw = case["workload"]
    wl = workload_of({**raw, "name": raw.get("name") or "unnamed"})
    info = priority_info(wl, boost_enabled=config_of(case).priority_boost)
    assert (info.effective, info.base, info.boost) == (
        case["expected"]["effective"],
        case["expected"]["base"],
        case["expected"]["boost"],
    )

"""Kueue's fair-sharing test cases (vendored data) run through the public API.

Suites: TestFairPreemptions, TestFairPreemptionSkipsUnsatisfiableTournament (``targets``),
TestFairSharingOrdering (``fair_ordering``), TestDominantResourceShare (``drs``),
TestIsBorrowingOn (``drs_borrowing``), TestFairPreemptionLog (``fair_strategy_shares``).
"""

from __future__ import annotations

from typing import Any

import pytest

from kueue_preempt import FlavorResource, request_amount
from kueue_preempt.preemption import fair_shares, ordering_for
from kueue_preempt.preemption.fairsharing import target_share_after_removal
from kueue_preempt.snapshot import dominant_resource_share, is_borrowing
from kueue_preempt.snapshot.drs import is_borrowing_on
from kueue_preempt.snapshot.drs import format_share
from kueue_cases import config_of, incoming_of, load_cases, now_of, snapshot_of
from test_conformance_kueue import run_targets_case

Case = dict[str, Any]


def _fr_map(raw: dict[str, str] | None) -> dict[FlavorResource, int]:
    out = {}
    for key, q in (raw or {}).items():
        fr = FlavorResource.parse(key)
        out[fr] = request_amount(q, fr.resource)
    return out


@pytest.mark.parametrize("case", load_cases("TestFairPreemptions"))
def test_fair_preemptions(case: Case) -> None:
    run_targets_case(case)


@pytest.mark.parametrize("case", load_cases("TestFairPreemptionSkipsUnsatisfiableTournament"))
def test_fair_preemption_skips_unsatisfiable_tournament(case: Case) -> None:
    run_targets_case(case)


@pytest.mark.parametrize("case", load_cases("TestFairSharingOrdering"))
def test_fair_sharing_ordering(case: Case) -> None:
    snapshot = snapshot_of(case)
    by_name = {w.name: w for w in snapshot.workloads()}
    candidates = [by_name[n] for n in case["candidates"]]
    ordering = ordering_for(snapshot, case["preemptorClusterQueue"], candidates, config_of(case), now_of(case))
    actions = list(case.get("actions") or [])
    yielded = []
    for i, queue in enumerate(ordering):
        yielded.append(queue.name)
        if (actions[i] if i < len(actions) else "pop") == "drop":
            ordering.drop(queue)
        else:
            ordering.pop(queue)
    assert yielded == case["expected"]["order"]


@pytest.mark.parametrize("case", load_cases("TestDominantResourceShare"))
def test_dominant_resource_share(case: Case) -> None:
    snapshot = snapshot_of(case)
    extra = _fr_map(case.get("drsRequests"))
    got = []
    for kind, nodes in (("ClusterQueue", snapshot.cluster_queues), ("Cohort", snapshot.cohorts)):
        for node in nodes.values():
            drs = dominant_resource_share(snapshot, node, extra)
            got.append(
                {
                    "name": node.name,
                    "nodeType": kind,
                    "value": drs.rounded,
                    "dominantResource": drs.dominant_resource,
                    "borrowing": drs.borrowing,
                }
            )
    key = lambda s: (s["nodeType"], s["name"])  # noqa: E731
    assert sorted(got, key=key) == sorted(case["expected"]["shares"], key=key)


@pytest.mark.parametrize("case", load_cases("TestIsBorrowingOn"))
def test_is_borrowing_on(case: Case) -> None:
    snapshot = snapshot_of(case)
    node = snapshot.cluster_queue(case["clusterQueue"])
    assert is_borrowing(snapshot, node) == case["expected"]["borrowing"]
    assert is_borrowing_on(node, _fr_map(case.get("requestedFlavorResources"))) == (
        case["expected"]["borrowingOnRequested"]
    )


@pytest.mark.parametrize("case", load_cases("TestFairPreemptionLog"))
def test_fair_preemption_log_shares(case: Case) -> None:
    snapshot = snapshot_of(case)
    _, assignment = incoming_of(case["incoming"])
    preemptor_q = snapshot.cluster_queue(case["preemptorClusterQueue"])
    target_q = snapshot.cluster_queue(case["targetClusterQueue"])
    with snapshot.preserved():
        snapshot.add_usage(preemptor_q, assignment.requests)
        _, target_old = fair_shares(snapshot, preemptor_q, target_q)
        assert format_share(target_old) == case["expected"]["targetOldShare"]
        by_name = {w.name: w for w in snapshot.workloads()}
        for name, share in (case["expected"].get("targetNewShareAfterRemoving") or {}).items():
            new = target_share_after_removal(snapshot, preemptor_q, by_name[name])
            assert format_share(new) == share

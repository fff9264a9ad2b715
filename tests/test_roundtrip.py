"""Round trip of every vendored Kueue ``targets`` case through real manifests.

For each case the objects (ClusterQueues, Cohorts, admitted Workloads, the incoming Workload
with a LocalQueue pointing at its ClusterQueue) are written as Kueue manifests with the
library's writer (``kueue_preempt.io.dump_text``), loaded back with the loader, and the decision
is made on the loaded objects: the targets must equal the API's targets on the case's own
objects (tests/kueue_cases.py), and Kueue's expected targets. The incoming workload's spec pod
sets carry the case's per-pod requests and counts; with the case's assignment, FA-3 must
reproduce the case's ``incoming.requests``. Every case also runs through the installed
``kueue-preempt explain --output json`` in a subprocess.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import attrs
import pytest

from cli_helpers import run_cli
from kueue_cases import (
    cluster_queue_of,
    cohort_of,
    config_of,
    incoming_of,
    iter_all_cases,
    now_of,
    snapshot_of,
    workload_of,
)
from kueue_preempt import Target, get_targets, request_amount
from kueue_preempt.io import (
    ClusterDump,
    LoadedWorkload,
    LocalQueue,
    PodSetRequests,
    dump_text,
    parse_assignment,
    parse_dump,
    to_assignment,
)
from kueue_preempt.io.write import time_text

Case = dict[str, Any]

TARGET_CASES = [
    pytest.param(case, id=f"{stem}/{case['name']}")
    for stem, case in iter_all_cases()
    if case["kind"] == "targets" and not case.get("skip")
]


def _pod_sets(raw: list[Case]) -> list[PodSetRequests]:
    return [
        PodSetRequests(
            name=ps.get("name") or "main",
            count=ps.get("count", 1),
            requests={r: request_amount(q, r) for r, q in (ps.get("requests") or {}).items()},
        )
        for ps in raw
    ]


def _local_queue(cluster_queue: str) -> str:
    return f"lq-{cluster_queue}"


def case_dump(case: Case) -> ClusterDump:
    """The case's objects as a dump; the incoming workload is pending in a LocalQueue."""
    admitted = []
    for raw in case.get("admitted") or []:
        w = workload_of(raw)
        # The writer adds QuotaReserved from quota_reserved_at; keep the other conditions.
        w = attrs.evolve(w, conditions=[c for c in w.conditions if c.type != "QuotaReserved"])
        spec = (raw.get("extra") or {}).get("specPodSets") or raw.get("podSets") or []
        admitted.append(LoadedWorkload(workload=w, pod_sets=_pod_sets(spec)))
    inc = case["incoming"]
    preemptor, _ = incoming_of(inc)
    cq = inc["clusterQueue"]
    preemptor = attrs.evolve(preemptor, local_queue=_local_queue(cq))
    pending = LoadedWorkload(workload=preemptor, pod_sets=_pod_sets(inc["podSets"]))
    return ClusterDump(
        cluster_queues=[cluster_queue_of(q) for q in case["clusterQueues"]],
        cohorts=[cohort_of(c) for c in case.get("cohorts") or []],
        local_queues=[LocalQueue(name=_local_queue(cq), namespace=preemptor.namespace, cluster_queue=cq)],
        workloads=admitted + [pending],
    )


def _style(case: Case) -> tuple[str, str]:
    """Alternate YAML/JSON and v1beta2/v1beta1 so both formats and both API versions are covered."""
    n = sum(map(ord, case["name"]))
    return ("yaml" if n % 2 == 0 else "json"), ("v1beta2" if (n // 2) % 2 == 0 else "v1beta1")


def _key(t: Target) -> tuple[str, str, str, str]:
    return (t.workload.namespace, t.workload.name, t.reason.value, t.message)


def _check_expected(case: Case, got: list[tuple[str, str, str, str]]) -> None:
    expected = case["expected"]
    assert Counter((ns, name) for ns, name, _, _ in got) == Counter(
        (t["namespace"], t["name"]) for t in expected["targets"]
    )
    by_name = {(ns, name): (reason, message) for ns, name, reason, message in got}
    for exp in expected["targets"]:
        reason, message = by_name[(exp["namespace"], exp["name"])]
        if exp.get("reason") is not None:
            assert reason == exp["reason"]
        if exp.get("message") is not None:
            assert message == exp["message"]


@pytest.mark.parametrize("case", TARGET_CASES)
def test_loader_round_trip_gives_the_api_targets(case: Case) -> None:
    """Write -> load -> FA-3 -> get_targets equals get_targets on the case's own objects."""
    fmt, version = _style(case)
    loaded = parse_dump(dump_text(case_dump(case), fmt, version), format=fmt)
    inc = case["incoming"]
    key = f"{inc.get('namespace') or ''}/{inc['name']}"

    # The loaded objects equal the originals (what the algorithms read).
    assert loaded.cluster_queues == tuple(cluster_queue_of(q) for q in case["clusterQueues"])
    originals = {w.key: w for w in snapshot_of(case).workloads()}
    for lw in loaded.holding_quota():
        original = originals[lw.key]
        mine = lw.workload
        assert (mine.usage, mine.used_flavor_resources, mine.priority, mine.uid) == (
            original.usage,
            original.used_flavor_resources,
            original.priority,
            original.uid,
        )
        assert (mine.quota_reserved_at, mine.creation_time, mine.evicted) == (
            original.quota_reserved_at,
            original.creation_time,
            original.evicted,
        )
    assert len(loaded.holding_quota()) == len(originals)

    lw = loaded.pending_workload(key)
    cq = loaded.cluster_queue_for(lw)
    assert cq == inc["clusterQueue"]
    preemptor, api_assignment = incoming_of(inc)
    assignment = to_assignment(lw.pod_sets, parse_assignment({"podSets": inc["assignment"]}, lw.pod_sets))
    assert assignment == api_assignment, "FA-3 must reproduce incoming.requests"

    snapshot = loaded.snapshot()
    got = [_key(t) for t in get_targets(lw.workload, cq, assignment, snapshot, config=config_of(case), now=now_of(case))]
    api_snapshot = snapshot_of(case)
    want = [
        _key(t)
        for t in get_targets(preemptor, cq, api_assignment, api_snapshot, config=config_of(case), now=now_of(case))
    ]
    assert got == want
    _check_expected(case, got)


@pytest.mark.parametrize("case", TARGET_CASES)
def test_cli_explain_round_trip(case: Case, tmp_path: Path) -> None:
    """The installed ``kueue-preempt explain -o json`` gives the API's targets on the written dump."""
    fmt, version = _style(case)
    dump_file = tmp_path / f"dump.{fmt}"
    dump_file.write_text(dump_text(case_dump(case), fmt, version))
    assignment_file = tmp_path / "assignment.json"
    inc = case["incoming"]
    assignment_file.write_text(json.dumps({"podSets": inc["assignment"]}))
    args = [
        "explain",
        str(dump_file),
        "--workload",
        f"{inc.get('namespace') or ''}/{inc['name']}",
        "--assignment",
        str(assignment_file),
        "--now",
        time_text(now_of(case)),
        "--output",
        "json",
    ]
    config = config_of(case)
    if config.fair_sharing is not None:
        args += ["--strategies", ",".join(s.value for s in config.fair_sharing.preemption_strategies)]
    result = run_cli(*args)
    assert result.stderr == ""
    doc = json.loads(result.stdout)
    got = [(t["namespace"], t["name"], t["reason"], t["message"]) for t in doc["targets"]]
    preemptor, api_assignment = incoming_of(inc)
    want = [
        _key(t)
        for t in get_targets(
            preemptor, inc["clusterQueue"], api_assignment, snapshot_of(case), config=config, now=now_of(case)
        )
    ]
    assert got == want
    assert result.returncode == (0 if want else 1)
    assert doc["outcome"] == ("targets" if want else "no-targets")
    _check_expected(case, got)


def test_every_targets_case_is_covered() -> None:
    """The round trip runs on all vendored targets cases (none skipped)."""
    assert len(TARGET_CASES) == sum(1 for _, c in iter_all_cases() if c["kind"] == "targets")
    assert len(TARGET_CASES) >= 40

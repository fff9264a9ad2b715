"""``kueue-preempt cycle`` and the cycle note of ``explain``, on a hand-made dump.

The dump: ClusterQueue ``q`` with 4 CPUs (``withinClusterQueue: LowerPriority``), ``ns/low``
(priority 0) holding all 4 CPUs, and ``ns/high`` (priority 10) pending for 2 CPUs. Expected
outcomes, by rule: cycle 1 — ``high`` needs preemption and ``low`` has a lower priority (POL-1),
so ``high`` preempts ``low`` (InClusterQueue) and waits (SC-PR-2); cycle 2 — ``low`` released
(SC-SIM-2), ``high`` is the sticky head and fits: admitted; cycle 3 — ``low`` (4 CPUs, 2 free)
cannot preempt a higher priority: NoCandidates, parked (SC-RQ-4); cycle 4 — no head: stable.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_helpers import run_cli

NOW = "2026-03-02T10:00:00Z"


def _workload(name: str, priority: int, cpus: int, admitted: bool) -> dict[str, Any]:
    w: dict[str, Any] = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ns", "uid": f"uid-{name}", "creationTimestamp": "2026-03-02T09:00:00Z"},
        "spec": {
            "queueName": "lq",
            "priority": priority,
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": str(cpus)}}}]}},
                }
            ],
        },
    }
    if admitted:
        w["status"] = {
            "admission": {
                "clusterQueue": "q",
                "podSetAssignments": [{"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": str(cpus)}}],
            },
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": "", "lastTransitionTime": "2026-03-02T09:01:00Z"}
            ],
        }
    return w


def _dump(tmp_path: Path, strategy: str = "BestEffortFIFO") -> str:
    items = [
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        {
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "ClusterQueue",
            "metadata": {"name": "q"},
            "spec": {
                "queueingStrategy": strategy,
                "namespaceSelector": {},
                "preemption": {"withinClusterQueue": "LowerPriority"},
                "resourceGroups": [
                    {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": "4"}]}]}
                ],
            },
        },
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "q"}},
        _workload("low", 0, 4, True),
        _workload("high", 10, 2, False),
    ]
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def test_one_cycle_table(tmp_path: Path) -> None:
    r = run_cli("cycle", _dump(tmp_path), "--now", NOW)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("Assumption: a dump holds no queue memory")
    assert "ns/high" in r.stdout and "Preempting" in r.stdout and "preempts ns/low (InClusterQueue)" in r.stdout


def test_json_until_stable(tmp_path: Path) -> None:
    r = run_cli("cycle", _dump(tmp_path), "--now", NOW, "--until-stable", "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    outcomes = [[(x["workload"], x["outcome"], x["queue"]) for x in c["results"]] for c in doc["cycles"]]
    assert outcomes == [
        [("ns/high", "Preempting", "active")],
        [("ns/high", "Admitted", None)],
        [("ns/low", "NoCandidates", "inadmissible")],
        [],
    ]
    first = doc["cycles"][0]["results"][0]
    assert [(p["workload"], p["reason"]) for p in first["preempts"]] == [("ns/low", "InClusterQueue")]
    assert doc["cycles"][0]["releasedAfter"] == ["ns/low"]
    admitted = doc["cycles"][1]["results"][0]["admission"]
    assert admitted == [{"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "2"}}]
    assert doc["stable"] is True and doc["livelock"] is False
    assert doc["pending"] == [{"workload": "ns/low", "clusterQueue": "q", "queue": "inadmissible"}]
    assert doc["assumption"].startswith("Assumption:")
    # SC-EVT-1: the preemption events of cycle 1, in order.
    reasons = [(e["name"], e["reason"]) for e in doc["cycles"][0]["events"]]
    assert reasons == [("low", "EvictedDueToPreempted"), ("low", "Preempted"), ("high", "PreemptedWorkload"), ("high", "WaitingForPreemptedWorkloads")]


def test_cycles_option_counts(tmp_path: Path) -> None:
    r = run_cli("cycle", _dump(tmp_path), "--now", NOW, "--cycles", "2", "-o", "json")
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["cycles"]) == 2


def test_usage_errors(tmp_path: Path) -> None:
    assert run_cli("cycle", _dump(tmp_path), "--cycles", "0").returncode == 2
    assert run_cli("cycle", _dump(tmp_path), "--cycles", "2", "--until-stable").returncode == 2
    assert run_cli("cycle", str(tmp_path / "missing.json")).returncode == 4


def test_invalid_queueing_strategy(tmp_path: Path) -> None:
    r = run_cli("cycle", _dump(tmp_path, strategy="Random"), "--now", NOW)
    assert r.returncode == 3
    assert "queueingStrategy" in r.stderr


def test_explain_has_no_note_without_cohort(tmp_path: Path) -> None:
    """The cycle note names another head of the same cohort; q has no cohort, so none."""
    r = run_cli("explain", _dump(tmp_path), "--workload", "ns/high", "--now", NOW, "-o", "json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["cycleNote"] is None


def _cq(name: str, cpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ClusterQueue",
        "metadata": {"name": name},
        "spec": {
            "cohort": "co",
            "namespaceSelector": {},
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "default", "resources": [{"name": "cpu", "nominalQuota": str(cpus)}]}]}
            ],
        },
    }


def test_explain_notes_a_cohort_head_taking_capacity(tmp_path: Path) -> None:
    """Cohort co: lender (4 CPUs, idle), a (0 CPUs) and b (1 CPU). Pending ns/wa (priority 0,
    4 CPUs, in a) and ns/wb (priority 5, 2 CPUs, in b) both fit at nomination and both borrow
    (level 1); SC-ORD-1 puts the higher priority wb first; it takes 1 borrowed CPU, so wa (4 of
    the 3 left) no longer fits (SC-PE-4). explain for wa says wb takes the capacity first."""
    wa = _workload("wa", 0, 4, False)
    wb = _workload("wb", 5, 2, False)
    wb["spec"]["queueName"] = "lqb"
    items = [
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        _cq("lender", 4),
        _cq("a", 0),
        _cq("b", 1),
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "a"}},
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "lqb", "namespace": "ns"}, "spec": {"clusterQueue": "b"}},
        wa,
        wb,
    ]
    path = tmp_path / "cohort.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    r = run_cli("explain", str(path), "--workload", "ns/wa", "--now", NOW)
    assert "Note: in the next scheduling cycle ns/wb (ClusterQueue b, Admitted) is processed before ns/wa in cohort co" in r.stdout
    c = run_cli("cycle", str(path), "--now", NOW, "-o", "json")
    results = [(x["workload"], x["outcome"]) for x in json.loads(c.stdout)["cycles"][0]["results"]]
    assert results == [("ns/wb", "Admitted"), ("ns/wa", "Skipped")]


def test_namespace_labels_and_selector_from_the_dump(tmp_path: Path) -> None:
    """SC-NOM-1 3b through the loader: the ClusterQueue selects team=a, the Namespace object
    says team=b, so the head is rejected and parked (NamespaceMismatch is never immediate)."""
    doc = json.loads(Path(_dump(tmp_path)).read_text())
    for item in doc["items"]:
        if item["kind"] == "ClusterQueue":
            item["spec"]["namespaceSelector"] = {"matchLabels": {"team": "a"}}
    doc["items"].append({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns", "labels": {"team": "b"}}})
    path = tmp_path / "ns.json"
    path.write_text(json.dumps(doc))
    r = run_cli("cycle", str(path), "--now", NOW, "-o", "json")
    assert r.returncode == 0, r.stderr
    (res,) = json.loads(r.stdout)["cycles"][0]["results"]
    assert (res["workload"], res["outcome"], res["queue"], res["reason"]) == ("ns/high", "Rejected", "inadmissible", "Misconfigured")
    assert res["message"] == "workload namespace doesn't match ClusterQueue selector"


def test_table_shortens_long_victim_lists_json_keeps_all(tmp_path: Path) -> None:
    """Eight 1-CPU workloads of priority 0 fill ``q`` (8 CPUs); ``big`` (priority 10) needs all 8,
    so it preempts all eight (POL-1, InClusterQueue). The table names the first five and counts
    the rest; ``-o json`` lists every target."""
    items: list[dict[str, Any]] = json.loads(Path(_dump(tmp_path)).read_text())["items"][:3]
    items[1]["spec"]["resourceGroups"][0]["flavors"][0]["resources"][0]["nominalQuota"] = "8"
    items += [_workload(f"small-{i}", 0, 1, True) for i in range(8)] + [_workload("big", 10, 8, False)]
    path = tmp_path / "many.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    table = run_cli("cycle", str(path), "--now", NOW)
    assert table.returncode == 0, table.stderr
    row = next(line for line in table.stdout.splitlines() if line.strip().startswith("ns/big"))
    assert row.count("(InClusterQueue)") == 5 and "and 3 more (-o json lists all)" in row
    doc = json.loads(run_cli("cycle", str(path), "--now", NOW, "-o", "json").stdout)
    text = json.dumps(doc)
    assert all(f"ns/small-{i}" in text for i in range(8))

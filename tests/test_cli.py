"""The installed ``kueue-preempt`` console script, run in a subprocess.

Exit codes (docs/cli.md): 0 success / targets found, 1 ``explain`` found nothing to preempt,
2 usage, 3 invalid input, 4 I/O error, 5 PyYAML missing. Malformed inputs are covered by
tests/test_io_malformed.py; the tutorial's commands by tests/test_tutorial.py.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from cli_helpers import CLI, run_cli
from kueue_preempt import __version__
from kueue_preempt.io import dump_text, load_dump

ROOT = Path(__file__).resolve().parent.parent
CLASSIC = str(ROOT / "examples" / "classic.yaml")
FAIR = str(ROOT / "examples" / "fair-sharing.yaml")
CLASSIC_WL = "prod/job-fraud-model-retrain-f737f"
FAIR_WL = "ml/job-bert-pretrain-c55f8"
Obj = dict[str, Any]


def test_the_console_script_is_installed() -> None:
    assert Path(CLI).name.startswith("kueue-preempt")
    result = run_cli("--version")
    assert result.returncode == 0
    assert result.stdout.startswith(f"kueue-preempt {__version__} (default Kueue release: ")


def test_help_lists_the_commands() -> None:
    result = run_cli("--help")
    assert result.returncode == 0
    for command in ("explain", "check", "demo"):
        assert command in result.stdout
    explain = run_cli("explain", "--help")
    assert explain.returncode == 0 and "--workload" in explain.stdout and "--assignment" in explain.stdout


def test_demo_still_works() -> None:
    result = run_cli("demo")
    assert result.returncode == 0 and result.stderr == ""
    assert "2 target(s):" in result.stdout and "reason=InCohortReclamation" in result.stdout


# --------------------------------------------------------------------------- check


def test_check_prints_counts_skipped_kinds_and_the_tree() -> None:
    result = run_cli("check", CLASSIC)
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert f"Loaded 17 object(s) from {CLASSIC}:" in out
    assert "  Workload               7" in out
    assert "  ConfigMap (v1)     1" in out
    assert "  ml-platform [Cohort (implicit)]" in out
    assert "    team-research [ClusterQueue, 3 workload(s)]" in out
    assert "a100/nvidia.com/gpu 8/4/- used 10" in out
    assert "Workloads: 5 holding quota, 1 pending, 1 finished, 0 inactive" in out
    assert f"pending {CLASSIC_WL} -> ClusterQueue team-prod, priority 1000" in out
    assert out.endswith("OK: the dump is valid.\n")


def test_check_json() -> None:
    result = run_cli("check", FAIR, "--output", "json")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert doc["counts"] == {
        "ClusterQueue": 4,
        "Cohort": 3,
        "LocalQueue": 4,
        "ResourceFlavor": 1,
        "WorkloadPriorityClass": 2,
        "Workload": 5,
    }
    assert doc["workloads"] == {"holdingQuota": 4, "pending": 1, "finished": 0, "inactive": 0}
    assert doc["pending"] == [{"workload": FAIR_WL, "clusterQueue": "ml-training", "priority": 100}]
    (root,) = [n for n in doc["tree"] if n["parent"] is None]
    assert (root["name"], root["kind"], root["quotas"]["on-demand/cpu"]["nominal"]) == ("org", "Cohort", "16")
    assert root["children"] == ["analytics", "ml"]
    assert {n["name"] for n in doc["tree"] if n["parent"] == "org"} == {"analytics", "ml"}
    assert doc["warnings"] == []


def test_check_reads_stdin_json_and_several_files(tmp_path: Path) -> None:
    text = Path(CLASSIC).read_text()
    assert run_cli("check", "-", stdin=text).returncode == 0
    dump = load_dump(CLASSIC)
    (tmp_path / "dump.json").write_text(dump_text(dump, "json"))
    assert "Loaded 17 object(s)" in run_cli("check", str(tmp_path / "dump.json")).stdout
    docs = list(yaml.safe_load(text)["items"])
    (tmp_path / "queues.yaml").write_text(yaml.safe_dump({"kind": "List", "apiVersion": "v1", "items": docs[:10]}))
    (tmp_path / "workloads.yaml").write_text(yaml.safe_dump({"kind": "List", "apiVersion": "v1", "items": docs[10:]}))
    result = run_cli("explain", str(tmp_path / "queues.yaml"), str(tmp_path / "workloads.yaml"), "--workload", CLASSIC_WL)
    assert result.returncode == 0 and "Result: 2 target(s)" in result.stdout


def test_check_warnings() -> None:
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "n"}, "spec": {"clusterQueue": "gone"}}
    result = run_cli("check", "-", stdin=yaml.safe_dump(lq))
    assert result.returncode == 0
    assert "Warnings (1):\n  - LocalQueue n/q points to ClusterQueue 'gone', which is not in the dump" in result.stdout


# --------------------------------------------------------------------------- explain


def test_explain_table() -> None:
    result = run_cli("explain", CLASSIC, "--workload", CLASSIC_WL, "--now", "2026-03-02T10:00:00Z")
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert out.startswith(f"Workload:      {CLASSIC_WL}\n")
    assert "ClusterQueue:  team-prod (path /ml-platform/team-prod, via LocalQueue prod/prod-queue)" in out
    assert "Priority:      1000 (base 1000 + boost 0)" in out
    assert "nvidia.com/gpu -> a100 (Preempt)" in out
    assert "Requests:      a100/nvidia.com/gpu=4, default-flavor/cpu=16, default-flavor/memory=64Gi (FA-3)" in out
    assert "Result: 2 target(s)" in out
    assert "  research/job-sweep-lr-02-78b2b  team-research  InCohortReclamation  100 (100+0)" in out
    assert "  prod/job-nightly-etl-a5629      team-prod      InClusterQueue       10 (10+0)" in out
    assert "due to reclamation within the cohort; preemptor path: /ml-platform/team-prod" in out
    assert "Decision trace (" in out and "  #   VERDICT" in out


def test_explain_json() -> None:
    result = run_cli("explain", CLASSIC, "--workload", CLASSIC_WL, "--now", "2026-03-02T10:00:00Z", "-o", "json")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert doc["outcome"] == "targets"
    assert doc["priority"] == {"effective": 1000, "base": 1000, "boost": 0}
    assert [(t["workload"], t["reason"], t["clusterQueue"]) for t in doc["targets"]] == [
        ("research/job-sweep-lr-02-78b2b", "InCohortReclamation", "team-research"),
        ("prod/job-nightly-etl-a5629", "InClusterQueue", "team-prod"),
    ]
    assert doc["preemptFlavorResources"] == ["a100/nvidia.com/gpu"]
    assert doc["trace"] and set(doc["trace"][0]) == {"verdict", "rule", "workload", "clusterQueue", "detail"}
    assert [e["workload"] for e in doc["trace"] if e["verdict"] == "target"] == [
        "research/job-sweep-lr-02-78b2b",
        "prod/job-nightly-etl-a5629",
    ]


def test_explain_without_trace_and_with_fair_sharing() -> None:
    classic = run_cli("explain", FAIR, "--workload", FAIR_WL, "--now", "2026-03-03T10:00:00Z", "--no-trace")
    assert "Decision trace" not in classic.stdout
    assert "analytics/job-adhoc-q-101-72956  adhoc-queries  InCohortReclamation" in classic.stdout
    fair = run_cli("explain", FAIR, "--workload", FAIR_WL, "--now", "2026-03-03T10:00:00Z", "--fair-sharing")
    assert fair.returncode == 0
    assert "Algorithm:     fair sharing (LessThanOrEqualToFinalShare, LessThanInitialShare)" in fair.stdout
    assert "analytics/job-dashboards-refresh-92260  bi-dashboards  InCohortFairSharing" in fair.stdout
    one = run_cli("explain", FAIR, "--workload", FAIR_WL, "--strategies", "LessThanInitialShare", "-o", "json")
    assert json.loads(one.stdout)["strategies"] == ["LessThanInitialShare"]


def _small_dump(nominal: str, running_cpu: str, within: str = "LowerPriority") -> str:
    cq = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "ClusterQueue",
        "metadata": {"name": "cq"},
        "spec": {
            "resourceGroups": [
                {"coveredResources": ["cpu"], "flavors": [{"name": "f", "resources": [{"name": "cpu", "nominalQuota": nominal}]}]}
            ],
            "preemption": {"withinClusterQueue": within},
        },
    }
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "LocalQueue", "metadata": {"name": "q", "namespace": "n"}, "spec": {"clusterQueue": "cq"}}

    def wl(name: str, cpu: str, priority: int, admitted: bool) -> Obj:
        obj: Obj = {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "kind": "Workload",
            "metadata": {"name": name, "namespace": "n"},
            "spec": {
                "queueName": "q",
                "priority": priority,
                "podSets": [{"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}}],
            },
        }
        if admitted:
            obj["status"] = {
                "admission": {"clusterQueue": "cq", "podSetAssignments": [{"name": "main", "count": 1, "flavors": {"cpu": "f"}, "resourceUsage": {"cpu": cpu}}]},
                "conditions": [{"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "lastTransitionTime": "2026-01-01T00:00:00Z"}],
            }
        return obj

    return yaml.safe_dump_all([cq, lq, wl("running", running_cpu, 1, True), wl("pending", "2", 5, False)])


@pytest.mark.parametrize(
    ("nominal", "running", "within", "outcome", "result_line"),
    [
        ("4", "1", "LowerPriority", "fits", "Result: No preemption needed"),
        # Kueue's message verbatim (FAS-21, FAS-6a): the request (2) exceeds flavor f's capacity (1).
        ("1", "1", "LowerPriority", "no-fit", "Result: The workload cannot fit even with preemption (NoFit): couldn't assign flavors to pod set main: insufficient quota for cpu in flavor f, previously considered podsets requests (0) + current podset request (2) > maximum capacity (1)"),
        ("4", "3", "Never", "no-targets", "Result: No targets: preemption cannot make room"),
        ("4", "3", "LowerPriority", "targets", "Result: 1 target(s)"),
    ],
)
def test_explain_outcomes_and_exit_codes(
    nominal: str, running: str, within: str, outcome: str, result_line: str, tmp_path: Path
) -> None:
    """Exit 0 only when there are targets; 1 when the workload fits, cannot fit, or no target set exists."""
    path = tmp_path / "dump.yaml"
    path.write_text(_small_dump(nominal, running, within))
    table = run_cli("explain", str(path), "--workload", "n/pending")
    assert table.returncode == (0 if outcome == "targets" else 1)
    assert result_line in table.stdout
    doc = json.loads(run_cli("explain", str(path), "--workload", "n/pending", "-o", "json").stdout)
    assert doc["outcome"] == outcome


def test_explain_incoming_and_cluster_queue_override(tmp_path: Path) -> None:
    incoming = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": "what-if", "namespace": "prod"},
        "spec": {
            "priorityClassName": "prod-critical",
            "priorityClassSource": "kueue.x-k8s.io/workloadpriorityclass",
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}, "limits": {"nvidia.com/gpu": "3"}}}]}},
                }
            ],
        },
    }
    path = tmp_path / "what-if.yaml"
    path.write_text(yaml.safe_dump(incoming))
    result = run_cli("explain", CLASSIC, "--incoming", str(path), "--cluster-queue", "team-prod", "-o", "json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["workload"] == "prod/what-if" and doc["clusterQueue"] == "team-prod"
    assert doc["priority"]["effective"] == 1000  # from WorkloadPriorityClass prod-critical
    assert doc["requests"]["a100/nvidia.com/gpu"] == "3"


def test_explain_with_an_assignment_file(tmp_path: Path) -> None:
    assignment = {"podSets": [{"name": "main", "count": 1, "flavors": {
        "cpu": {"name": "default-flavor", "mode": "Fit"},
        "memory": {"name": "default-flavor", "mode": "Fit"},
        "nvidia.com/gpu": {"name": "a100", "mode": "Preempt"},
    }}]}
    path = tmp_path / "assignment.yaml"
    path.write_text(yaml.safe_dump(assignment))
    result = run_cli("explain", CLASSIC, "--workload", CLASSIC_WL, "--assignment", str(path), "-o", "json")
    doc = json.loads(result.stdout)
    # one pod instead of the spec's two: FA-3 rescales the totals
    assert doc["requests"] == {"a100/nvidia.com/gpu": "2", "default-flavor/cpu": "8", "default-flavor/memory": "32Gi"}
    assert doc["assignmentSource"] == "file"
    assert doc["assignmentNote"] == f"from {path}"
    assert [t["workload"] for t in doc["targets"]] == ["research/job-sweep-lr-02-78b2b"]


def test_output_that_the_terminal_cannot_encode_is_escaped(tmp_path: Path) -> None:
    lq = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "q\u00fc", "namespace": "n"}, "spec": {"clusterQueue": "cq"}}
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(lq), encoding="utf-8")
    result = run_cli("check", str(path), env={"PYTHONIOENCODING": "ascii"})
    assert result.returncode == 0, result.stderr
    assert "LocalQueue n/q\\xfc points to" in result.stdout


# --------------------------------------------------------------------------- podgroup

PODGROUP = str(ROOT / "examples" / "podgroup.yaml")


def test_check_summarises_nodes_and_pod_groups() -> None:
    result = run_cli("check", PODGROUP)
    assert result.returncode == 0
    out = result.stdout
    assert "  worker-1  3/110  16/16  20Gi/64Gi" in out
    assert "  ml/llm-train       100000    All         2         0        2" in out
    assert "Finished pods (phase Succeeded/Failed, left out): 1" in out
    assert "Quota tree" not in out


def test_podgroup_kep_mode() -> None:
    result = run_cli("podgroup", PODGROUP, "--group", "ml/llm-train")
    assert result.returncode == 0 and result.stderr == ""
    out = result.stdout
    assert "PodGroup:   ml/llm-train (priority 100000, gang minCount 2, disruptionMode All, 2 unscheduled pod(s))" in out
    assert "Threshold:  units of priority <= 0 may be preempted" in out
    assert "  scavenge/crawler-3 on worker-3\n  scavenge/crawler-5 on worker-4\n" in out
    assert "  llm-train-worker-0 -> worker-3" in out
    assert "Decision trace (" in out


def test_podgroup_kube_mode_json() -> None:
    result = run_cli("podgroup", PODGROUP, "--group", "ml/llm-train", "--mode", "kube", "-o", "json")
    assert result.returncode == 0
    doc = json.loads(result.stdout)
    assert doc["mode"] == "kube" and doc["status"]["code"] == "Success"
    assert [u["unit"] for u in doc["victimUnits"]] == ["PodGroup/batch/etl-nightly"]
    assert len(doc["victims"]) == 4 and doc["searchSteps"] == []
    assert doc["nominations"] == {"llm-train-worker-0": "worker-1", "llm-train-worker-1": "worker-2"}


def test_podgroup_without_victims_exits_1(tmp_path: Path) -> None:
    docs = yaml.safe_load(Path(PODGROUP).read_text())["items"]
    for doc in docs:  # the pending gang becomes the lowest priority: nothing below it
        if doc["kind"] in ("PodGroup", "Pod") and doc["metadata"]["namespace"] == "ml":
            doc["spec"]["priority"] = -1
    path = tmp_path / "pg.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": docs}))
    result = run_cli("podgroup", str(path), "--group", "ml/llm-train")
    assert result.returncode == 1
    assert "Status:     Unschedulable: No preemption victims found for incoming preemptor" in result.stdout


def test_readme_quick_start_command_1() -> None:
    """The README's main command (after the install step) runs and finds targets."""
    readme = (ROOT / "README.md").read_text()
    (line,) = [ln for ln in readme.splitlines() if ln.startswith("python3 -m pip install '.[yaml]' && kueue-preempt")]
    args = line.split("&& kueue-preempt ", 1)[1].split()
    result = run_cli(*args, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "Result: 2 target(s)" in result.stdout

"""Malformed inputs: each produces the documented typed error (library) and exit code (CLI),
one line on stderr, nothing on stdout, never a traceback.

Table-driven. ``DUMP_CASES`` are dumps that ``kueue-preempt check`` must reject with exit 3
and that the loader (``load_dump``, then ``snapshot()`` and ``cluster()``, which check references)
rejects with the given :class:`~kueue_preempt.KueuePreemptError` subclass,
whose message names the object and the field path. ``CLI_CASES`` cover ``explain`` inputs
(workload, assignment, incoming file), usage errors (exit 2), I/O errors (exit 4) and a YAML
dump without PyYAML (exit 5).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import attrs
import pytest
import yaml

from cli_helpers import run_cli
from kueue_preempt import KueuePreemptError
from kueue_preempt.io import (
    ManifestError,
    ManifestSyntaxError,
    ManifestTooLarge,
    NotPending,
    WorkloadNotFound,
    load_assignment,
    load_dump,
)

Obj = dict[str, Any]

CQ: Obj = {
    "apiVersion": "kueue.x-k8s.io/v1beta1",
    "kind": "ClusterQueue",
    "metadata": {"name": "team-a"},
    "spec": {
        "cohort": "org",
        "resourceGroups": [
            {
                "coveredResources": ["cpu", "memory"],
                "flavors": [
                    {
                        "name": "default",
                        "resources": [{"name": "cpu", "nominalQuota": "8"}, {"name": "memory", "nominalQuota": "32Gi"}],
                    }
                ],
            }
        ],
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
    },
}
LQ: Obj = {
    "apiVersion": "kueue.x-k8s.io/v1beta1",
    "kind": "LocalQueue",
    "metadata": {"name": "lq", "namespace": "ns"},
    "spec": {"clusterQueue": "team-a"},
}
WL: Obj = {
    "apiVersion": "kueue.x-k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {"name": "w", "namespace": "ns", "creationTimestamp": "2026-01-01T00:00:00Z"},
    "spec": {
        "queueName": "lq",
        "priority": 10,
        "podSets": [
            {
                "name": "main",
                "count": 1,
                "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}},
            }
        ],
    },
}
ADMITTED: Obj = {
    "apiVersion": "kueue.x-k8s.io/v1beta1",
    "kind": "Workload",
    "metadata": {"name": "running", "namespace": "ns"},
    "spec": copy.deepcopy(WL["spec"]),
    "status": {
        "admission": {
            "clusterQueue": "team-a",
            "podSetAssignments": [{"name": "main", "count": 1, "flavors": {"cpu": "default"}, "resourceUsage": {"cpu": "1"}}],
        },
        "conditions": [
            {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "lastTransitionTime": "2026-01-01T00:00:00Z"}
        ],
    },
}
NODE: Obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "worker-1"}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}
POD: Obj = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "p", "namespace": "ns"},
    "spec": {"nodeName": "worker-1", "priority": 0, "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
    "status": {"phase": "Running", "startTime": "2026-01-01T00:00:00Z"},
}
PODGROUP: Obj = {
    "apiVersion": "scheduling.k8s.io/v1alpha2",
    "kind": "PodGroup",
    "metadata": {"name": "g", "namespace": "ns"},
    "spec": {"priority": 10, "disruptionMode": "All", "schedulingPolicy": {"gang": {"minCount": 2}}},
}
PDB: Obj = {
    "apiVersion": "policy/v1",
    "kind": "PodDisruptionBudget",
    "metadata": {"name": "b", "namespace": "ns"},
    "spec": {"selector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["x"]}]}},
    "status": {"disruptionsAllowed": 0},
}


def edit(obj: Obj, path: str, value: Any = None, *, delete: bool = False) -> Obj:
    """A deep copy of ``obj`` with ``path`` (dots; digits index lists) set to ``value`` or deleted."""
    out = copy.deepcopy(obj)
    node: Any = out
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[int(part)] if part.isdigit() else node[part]
    last: Any = int(parts[-1]) if parts[-1].isdigit() else parts[-1]
    if delete:
        del node[last]
    elif isinstance(node, list) and last == len(node):
        node.append(value)
    else:
        node[last] = value
    return out


def dump(*objs: Obj) -> str:
    return yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": list(objs)}, sort_keys=False)


NOMINAL = "spec.resourceGroups.0.flavors.0.resources.0.nominalQuota"
NOMINAL_PATH = "spec.resourceGroups[0].flavors[0].resources[0].nominalQuota"
REQUEST = "spec.podSets.0.template.spec.containers.0.resources.requests.cpu"


@attrs.frozen
class DumpCase:
    id: str
    text: str
    error: type[KueuePreemptError]
    message: tuple[str, ...]
    """Substrings of the error message (object, field path, reason)."""
    suffix: str = ".yaml"


def _alias_bomb() -> str:
    text = "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for i in range(1, 8):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        text += f"{cur}: &{cur} [" + ", ".join(f"*{prev}" for _ in range(10)) + "]\n"
    return text


def _deep_json() -> str:
    return '{"apiVersion": "v1", "kind": "ConfigMap", "data": ' + "[" * 200 + "]" * 200 + "}"


DUMP_CASES = [
    # ---------------------------------------------------------------- syntax and structure
    DumpCase("yaml-syntax", "items:\n  - a: 1\n   b: 2\n", ManifestSyntaxError, ("YAML syntax error at line 3",)),
    DumpCase("yaml-python-tag", "!!python/object/apply:os.system ['true']\n", ManifestSyntaxError, ("YAML",)),
    DumpCase("json-syntax", '{"apiVersion": "v1",}', ManifestSyntaxError, ("JSON syntax error at line 1",), ".json"),
    DumpCase("json-duplicate-key", '{"kind": "List", "kind": "X"}', ManifestSyntaxError, ("duplicate key 'kind'",), ".json"),
    DumpCase("json-nan", '{"apiVersion": "v1", "kind": "X", "n": NaN}', ManifestSyntaxError, ("NaN is not valid JSON",), ".json"),
    DumpCase("not-utf8", "kind: \udcff\n", ManifestSyntaxError, ("not UTF-8",)),
    DumpCase("document-is-a-list", "- 1\n- 2\n", ManifestError, ("expected an object (a mapping), got a list",)),
    DumpCase("list-items-not-a-list", "apiVersion: v1\nkind: List\nitems: 5\n", ManifestError, ("List #1: items: expected a list",)),
    DumpCase("missing-api-version", dump(edit(CQ, "apiVersion", delete=True)), ManifestError, ("ClusterQueue team-a: apiVersion: required",)),
    DumpCase("kind-not-a-string", dump(edit(CQ, "kind", 5)), ManifestError, ("team-a: kind: expected a string",)),
    DumpCase("unsupported-version", dump(edit(CQ, "apiVersion", "kueue.x-k8s.io/v1")), ManifestError, ("unsupported version 'kueue.x-k8s.io/v1'",)),
    DumpCase("alias-bomb", _alias_bomb(), ManifestTooLarge, ("YAML aliases",)),
    DumpCase("nesting-too-deep", _deep_json(), ManifestTooLarge, ("nesting deeper than 100 levels",), ".json"),
    # Python >= 3.11 refuses to build the integer (a syntax error); 3.10 builds it and the
    # quantity check refuses it: a typed error either way.
    DumpCase("integer-too-long", dump(CQ).replace("nominalQuota: '8'", "nominalQuota: " + "9" * 5000), KueuePreemptError, ("",)),
    # ---------------------------------------------------------------- metadata
    DumpCase("missing-metadata", dump(edit(CQ, "metadata", delete=True)), ManifestError, ("ClusterQueue #1: metadata: required",)),
    DumpCase("missing-name", dump(edit(CQ, "metadata.name", delete=True)), ManifestError, ("metadata.name: required",)),
    DumpCase("name-with-slash", dump(edit(CQ, "metadata.name", "a/b")), ManifestError, ("metadata.name: 'a/b' contains '/'",)),
    DumpCase("name-not-a-string", dump(edit(CQ, "metadata.name", 42)), ManifestError, ("metadata.name: expected a string (quote it), got integer 42",)),
    DumpCase("duplicate-object", dump(CQ, CQ), ManifestError, ("ClusterQueue team-a: metadata.name: duplicate object",)),
    # ---------------------------------------------------------------- quantities
    DumpCase("nominal-underscore", dump(edit(CQ, NOMINAL, "1_000")), ManifestError, (f"ClusterQueue team-a: {NOMINAL_PATH}: invalid quantity '1_000'",)),
    DumpCase("nominal-missing", dump(edit(CQ, NOMINAL, delete=True)), ManifestError, (f"{NOMINAL_PATH}: required field is missing",)),
    DumpCase("nominal-negative", dump(edit(CQ, NOMINAL, "-1")), ManifestError, (f"{NOMINAL_PATH}: must not be negative",)),
    DumpCase("nominal-nan", dump(CQ).replace("nominalQuota: '8'", "nominalQuota: .nan"), ManifestError, ("not a finite number",)),
    DumpCase("nominal-boolean", dump(edit(CQ, NOMINAL, True)), ManifestError, ("expected a quantity, got boolean true",)),
    DumpCase("nominal-absurd-exponent", dump(edit(CQ, NOMINAL, "1e1001")), ManifestError, ("invalid quantity '1e1001'", "absurd")),
    DumpCase("nominal-suffix-only", dump(edit(CQ, NOMINAL, "Gi")), ManifestError, ("invalid quantity 'Gi'",)),
    DumpCase("request-with-unit-words", dump(edit(WL, REQUEST, "2 cpus")), ManifestError, ("Workload ns/w: spec.podSets[0].template.spec.containers[0].resources.requests.cpu: invalid quantity '2 cpus'",)),
    DumpCase("usage-invalid", dump(CQ, edit(ADMITTED, "status.admission.podSetAssignments.0.resourceUsage.cpu", "lots")), ManifestError, ("status.admission.podSetAssignments[0].resourceUsage.cpu: invalid quantity 'lots'",)),
    DumpCase("preemption-cost-invalid", dump(edit(WL, "status", {"preemptionCost": "cheap"})), ManifestError, ("status.preemptionCost: invalid quantity 'cheap'",)),
    # ---------------------------------------------------------------- ClusterQueue / Cohort semantics
    DumpCase("borrowing-limit-without-cohort", dump(edit(edit(CQ, "spec.cohort", delete=True), "spec.resourceGroups.0.flavors.0.resources.0.borrowingLimit", "2")), ManifestError, ("borrowingLimit: a limit needs a parent cohort (Q-17)",)),
    DumpCase("lending-limit-above-nominal", dump(edit(CQ, "spec.resourceGroups.0.flavors.0.resources.0.lendingLimit", "9")), ManifestError, ("lendingLimit: must be <= nominalQuota (Q-17, API-13)",)),
    DumpCase("resource-not-covered", dump(edit(CQ, "spec.resourceGroups.0.flavors.0.resources.1.name", "gpu")), ManifestError, ("resources[1].name: resource 'gpu' is not in this group's coveredResources",)),
    DumpCase("covered-resource-missing", dump(edit(CQ, "spec.resourceGroups.0.flavors.0.resources", [{"name": "cpu", "nominalQuota": "1"}])), ManifestError, ("flavors[0].resources: missing 'memory' from coveredResources",)),
    DumpCase("resource-in-two-groups", dump(edit(CQ, "spec.resourceGroups.1", {"coveredResources": ["cpu"], "flavors": [{"name": "other", "resources": [{"name": "cpu", "nominalQuota": "1"}]}]})), ManifestError, ("resourceGroups[1].coveredResources[0]: resource 'cpu' is already covered by resourceGroups[0]",)),
    DumpCase("flavor-in-two-groups", dump(edit(CQ, "spec.resourceGroups.1", {"coveredResources": ["gpu"], "flavors": [{"name": "default", "resources": [{"name": "gpu", "nominalQuota": "1"}]}]})), ManifestError, ("resourceGroups[1].flavors[0].name: flavor 'default' already appears in resourceGroups[0]",)),
    DumpCase("policy-unknown", dump(edit(CQ, "spec.preemption.withinClusterQueue", "Any")), ManifestError, ("spec.preemption.withinClusterQueue: 'Any' is not one of Never, LowerPriority, LowerOrNewerEqualPriority",)),
    DumpCase("borrow-without-reclaim", dump(edit(edit(CQ, "spec.preemption.reclaimWithinCohort", "Never"), "spec.preemption.borrowWithinCohort", {"policy": "LowerPriority"})), ManifestError, ("borrowWithinCohort.policy: borrowWithinCohort needs reclaimWithinCohort other than Never (POL-7)",)),
    DumpCase("weight-negative", dump(edit(CQ, "spec.fairSharing", {"weight": "-1"})), ManifestError, ("spec.fairSharing.weight: must be 0 or greater than 1e-9",)),
    DumpCase("v1beta2-field-in-v1beta1", dump(edit(CQ, "spec.cohortName", "org")), ManifestError, ("spec.cohortName: is the v1beta2 name of this field; in v1beta1 it is spec.cohort",)),
    DumpCase("v1beta1-field-in-v1beta2", dump(edit(edit(CQ, "apiVersion", "kueue.x-k8s.io/v1beta2"), "spec.cohort", "org")), ManifestError, ("spec.cohort: is the v1beta1 name of this field; in v1beta2 it is spec.cohortName",)),
    DumpCase("cohort-parent-wrong-version", dump({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Cohort", "metadata": {"name": "c"}, "spec": {"parent": "r"}}), ManifestError, ("Cohort c: spec.parent", "v1alpha1")),
    DumpCase("local-queue-without-cluster-queue", dump(edit(LQ, "spec", {})), ManifestError, ("LocalQueue ns/lq: spec.clusterQueue: required",)),
    DumpCase("priority-class-without-value", dump({"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "WorkloadPriorityClass", "metadata": {"name": "p"}}), ManifestError, ("WorkloadPriorityClass p: value: required",)),
    # ---------------------------------------------------------------- Workload
    DumpCase("workload-without-pod-sets", dump(edit(WL, "spec.podSets", delete=True)), ManifestError, ("Workload ns/w: spec.podSets: required",)),
    DumpCase("workload-pod-set-without-template", dump(edit(WL, "spec.podSets.0.template", delete=True)), ManifestError, ("spec.podSets[0].template: required",)),
    DumpCase("workload-negative-count", dump(edit(WL, "spec.podSets.0.count", -1)), ManifestError, ("spec.podSets[0].count: -1 is out of range",)),
    DumpCase("priority-not-an-integer", dump(edit(WL, "spec.priority", "high")), ManifestError, ("spec.priority: expected an integer, got string 'high'",)),
    DumpCase("priority-out-of-int32", dump(edit(WL, "spec.priority", 2**31)), ManifestError, ("spec.priority: 2147483648 is out of range",)),
    DumpCase("active-as-string", dump(edit(WL, "spec.active", "false")), ManifestError, ("spec.active: expected a boolean",)),
    DumpCase("annotation-not-a-string", dump(edit(WL, "metadata.annotations", {"team": True})), ManifestError, ("metadata.annotations.team: expected a string (quote it), got boolean true",)),
    DumpCase("label-not-a-string", dump(edit(WL, "metadata.labels", {"tier": 1})), ManifestError, ("metadata.labels.tier: expected a string",)),
    DumpCase("creation-timestamp-invalid", dump(edit(WL, "metadata.creationTimestamp", "yesterday")), ManifestError, ("metadata.creationTimestamp: 'yesterday' is not an RFC 3339 timestamp",)),
    DumpCase("class-source-unknown", dump(edit(edit(WL, "spec.priorityClassName", "p"), "spec.priorityClassSource", "example.com/class")), ManifestError, ("spec.priorityClassSource: 'example.com/class' is not one of",)),
    DumpCase("class-ref-wrong-kind", dump(edit(edit(WL, "apiVersion", "kueue.x-k8s.io/v1beta2"), "spec.priorityClassRef", {"group": "x", "kind": "Y", "name": "p"})), ManifestError, ("spec.priorityClassRef: group/kind x/Y",)),
    DumpCase("reserved-without-admission", dump(edit(ADMITTED, "status.admission", delete=True)), ManifestError, ("Workload ns/running: status.admission: required when the QuotaReserved condition is True",)),
    DumpCase("condition-status-invalid", dump(edit(ADMITTED, "status.conditions.0.status", "Yes")), ManifestError, ("status.conditions[0].status: 'Yes' is not one of True, False, Unknown",)),
    DumpCase("condition-without-time", dump(edit(ADMITTED, "status.conditions.0.lastTransitionTime", delete=True)), ManifestError, ("status.conditions[0].lastTransitionTime: required",)),
    DumpCase("condition-twice", dump(edit(ADMITTED, "status.conditions.1", ADMITTED["status"]["conditions"][0])), ManifestError, ("status.conditions[1].type: condition 'QuotaReserved' is listed twice",)),
    DumpCase("admission-unknown-pod-set", dump(edit(ADMITTED, "status.admission.podSetAssignments.0.name", "workers")), ManifestError, ("podSetAssignments[0].name: no pod set 'workers' in spec.podSets",)),
    DumpCase("eviction-count-negative", dump(edit(WL, "status", {"schedulingStats": {"evictions": [{"reason": "Preempted", "count": -2}]}})), ManifestError, ("status.schedulingStats.evictions[0].count: -2 is out of range",)),
    DumpCase("admitted-to-unknown-cluster-queue", dump(ADMITTED), ManifestError, ("Workload ns/running: status.admission.clusterQueue: holds quota in ClusterQueue 'team-a', which is not in the dump",)),
    # ---------------------------------------------------------------- the PodGroup path
    DumpCase("node-allocatable-invalid", dump(edit(NODE, "status.allocatable.cpu", "16 cores")), ManifestError, ("Node worker-1: status.allocatable.cpu: invalid quantity '16 cores'",)),
    DumpCase("pod-request-negative", dump(NODE, edit(POD, "spec.containers.0.resources.requests.cpu", "-1")), ManifestError, ("Pod ns/p: spec.containers[0].resources.requests.cpu: must not be negative",)),
    DumpCase("pod-preemption-policy", dump(NODE, edit(POD, "spec.preemptionPolicy", "Always")), ManifestError, ("spec.preemptionPolicy: 'Always' is not one of PreemptLowerPriority, Never",)),
    DumpCase("pod-start-time", dump(NODE, edit(POD, "status.startTime", "noon")), ManifestError, ("status.startTime: 'noon' is not an RFC 3339 timestamp",)),
    DumpCase("pod-on-unknown-node", dump(POD), ManifestError, ("Pod ns/p: spec.nodeName: Node 'worker-1' is not in the dump",)),
    DumpCase("podgroup-min-count-zero", dump(edit(PODGROUP, "spec.schedulingPolicy.gang.minCount", 0)), ManifestError, ("PodGroup ns/g: spec.schedulingPolicy.gang.minCount: 0 is out of range",)),
    DumpCase("podgroup-disruption-mode", dump(edit(PODGROUP, "spec.disruptionMode", "Sometimes")), ManifestError, ("spec.disruptionMode: 'Sometimes' is not one of Single, All",)),
    DumpCase("podgroup-unsupported-version", dump(edit(PODGROUP, "apiVersion", "scheduling.k8s.io/v9")), ManifestError, ("unsupported version 'scheduling.k8s.io/v9'",)),
    DumpCase("pdb-expression-without-operator", dump(edit(PDB, "spec.selector.matchExpressions.0.operator", delete=True)), ManifestError, ("PodDisruptionBudget ns/b: spec.selector.matchExpressions[0].operator: required",)),
    DumpCase("priority-class-value-not-int", dump({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "p"}, "value": "high"}), ManifestError, ("PriorityClass p: value: expected an integer",)),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in DUMP_CASES])
def test_loader_raises_the_typed_error(case: DumpCase, tmp_path: Path) -> None:
    path = tmp_path / f"dump{case.suffix}"
    path.write_bytes(case.text.encode("utf-8", "surrogateescape"))
    with pytest.raises(case.error) as info:
        loaded = load_dump(path)
        loaded.snapshot()
        loaded.cluster()
    message = str(info.value)
    assert "\n" not in message
    for part in case.message:
        assert part in message


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in DUMP_CASES])
def test_cli_check_exits_3_with_one_line(case: DumpCase, tmp_path: Path) -> None:
    path = tmp_path / f"dump{case.suffix}"
    path.write_bytes(case.text.encode("utf-8", "surrogateescape"))
    result = run_cli("check", str(path))
    assert result.returncode == 3, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kueue-preempt: error: ")
    for part in case.message:
        assert part in lines[0]


def test_there_are_at_least_30_distinct_malformed_dumps() -> None:
    assert len({c.id for c in DUMP_CASES}) == len(DUMP_CASES) >= 30
    assert len({c.text for c in DUMP_CASES}) == len(DUMP_CASES)


# --------------------------------------------------------------------------- explain inputs

Files = dict[str, str]
BASE: Files = {"dump.yaml": dump(CQ, LQ, WL, ADMITTED)}


@attrs.frozen
class CliCase:
    id: str
    args: tuple[str, ...]
    exit: int
    message: str
    files: Files = attrs.field(factory=dict)
    env: dict[str, str] = attrs.field(factory=dict)


ASSIGNMENT_OK = {"podSets": [{"name": "main", "count": 1, "flavors": {"cpu": {"name": "default", "mode": "Preempt"}}}]}

CLI_CASES = [
    # invalid input: exit 3
    CliCase("workload-not-found", ("explain", "dump.yaml", "--workload", "ns/nope"), 3, "no Workload 'ns/nope' in the dump"),
    CliCase("workload-not-pending", ("explain", "dump.yaml", "--workload", "ns/running"), 3, "Workload ns/running is not pending: it holds quota in ClusterQueue team-a"),
    CliCase("local-queue-missing", ("explain", "other.yaml", "--workload", "ns/w"), 3, "Workload ns/w: spec.queueName: LocalQueue ns/lq is not in the dump", {"other.yaml": dump(CQ, WL)}),
    CliCase("cluster-queue-unknown", ("explain", "dump.yaml", "--workload", "ns/w", "--cluster-queue", "nope"), 3, "unknown ClusterQueue 'nope'"),
    CliCase("assignment-bad-mode", ("explain", "dump.yaml", "--workload", "ns/w", "--assignment", "a.yaml"), 3, "a.yaml: assignment: podSets[0].flavors.cpu.mode: 'Maybe' is not one of Fit, Preempt, NoFit", {"a.yaml": yaml.safe_dump(edit(ASSIGNMENT_OK, "podSets.0.flavors.cpu.mode", "Maybe"))}),
    CliCase("assignment-missing-flavor", ("explain", "dump.yaml", "--workload", "ns/w", "--assignment", "a.json"), 3, "podSets[0].flavors: no flavor for requested resource 'cpu'", {"a.json": json.dumps(edit(ASSIGNMENT_OK, "podSets.0.flavors", {}))}),
    CliCase("assignment-wrong-pod-set", ("explain", "dump.yaml", "--workload", "ns/w", "--assignment", "a.json"), 3, "podSets[0].name: 'workers' does not match the workload's pod set 0, 'main'", {"a.json": json.dumps(edit(ASSIGNMENT_OK, "podSets.0.name", "workers"))}),
    CliCase("assignment-without-pod-sets", ("explain", "dump.yaml", "--workload", "ns/w", "--assignment", "a.json"), 3, "podSets: required field is missing", {"a.json": "{}"}),
    CliCase("incoming-two-workloads", ("explain", "dump.yaml", "--incoming", "in.yaml"), 3, "--incoming needs exactly one Workload, Job, JobSet or Pod, found 2", {"in.yaml": dump(edit(WL, "metadata.name", "x"), edit(WL, "metadata.name", "y"))}),
    CliCase("incoming-already-in-dump", ("explain", "dump.yaml", "--incoming", "in.yaml"), 3, "Workload ns/w: metadata.name: is already in the dump; use --workload", {"in.yaml": dump(WL)}),
    CliCase("incoming-malformed", ("explain", "dump.yaml", "--incoming", "in.yaml"), 3, "in.yaml: Workload ns/x: spec.priority: expected an integer", {"in.yaml": dump(edit(edit(WL, "metadata.name", "x"), "spec.priority", 1.5))}),
    CliCase("podgroup-unknown", ("podgroup", "pg.yaml", "--group", "ns/nope"), 3, "no PodGroup 'ns/nope' in the dump", {"pg.yaml": dump(NODE, PODGROUP)}),
    CliCase("podgroup-not-pending", ("podgroup", "pg.yaml", "--group", "ns/g"), 3, "PodGroup ns/g is not pending: it has no pods in the dump", {"pg.yaml": dump(NODE, PODGROUP)}),
    # usage: exit 2
    CliCase("usage-podgroup-mode", ("podgroup", "dump.yaml", "--group", "ns/g", "--mode", "fast"), 2, "invalid choice: 'fast'"),
    CliCase("usage-no-workload", ("explain", "dump.yaml"), 2, "one of the arguments --workload --incoming is required"),
    CliCase("usage-bad-key", ("explain", "dump.yaml", "--workload", "w"), 2, "'w' is not NAMESPACE/NAME"),
    CliCase("usage-bad-now", ("explain", "dump.yaml", "--workload", "ns/w", "--now", "tomorrow"), 2, "'tomorrow' is not an RFC 3339 time"),
    CliCase("usage-bad-strategy", ("explain", "dump.yaml", "--workload", "ns/w", "--strategies", "Fastest"), 2, "preemptionStrategies"),
    CliCase("usage-bad-output", ("check", "dump.yaml", "--output", "xml"), 2, "invalid choice: 'xml'"),
    CliCase("usage-unknown-command", ("frobnicate",), 2, "invalid choice: 'frobnicate'"),
    # I/O: exit 4
    CliCase("io-missing-file", ("check", "missing.yaml"), 4, "missing.yaml: No such file or directory"),
    CliCase("io-directory", ("check", "."), 4, ".: Is a directory"),
    CliCase("io-missing-assignment", ("explain", "dump.yaml", "--workload", "ns/w", "--assignment", "nope.json"), 4, "nope.json: No such file or directory"),
    # missing optional dependency: exit 5 (a stub `yaml` package that fails to import)
    # no DUMP reads the cluster through kubectl: without kubectl, exit 5 too
    CliCase("no-dump-no-kubectl", ("explain", "--workload", "ns/w"), 5, "kubectl: not found; install kubectl to read the cluster, or give DUMP files", env={"PATH": "/nonexistent"}),
    CliCase("yaml-unavailable", ("check", "dump.yaml"), 5, "reading YAML needs PyYAML", {"nomod/yaml/__init__.py": "raise ImportError('blocked for the test')\n"}, {"PYTHONPATH": "nomod"}),
]


@pytest.mark.parametrize("case", [pytest.param(c, id=c.id) for c in CLI_CASES])
def test_cli_errors(case: CliCase, tmp_path: Path) -> None:
    for name, text in {**BASE, **case.files}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    env = {k: str(tmp_path / v) if k == "PYTHONPATH" else v for k, v in case.env.items()}
    result = run_cli(*case.args, cwd=tmp_path, env=env)
    assert result.returncode == case.exit, result.stderr
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("kueue-preempt"), lines
    assert case.message in lines[0]


Raise = Callable[[Path], object]


@pytest.mark.parametrize(
    ("files", "call", "error"),
    [
        pytest.param(BASE, lambda d: load_dump(d / "dump.yaml").workload("ns/nope"), WorkloadNotFound, id="not-found"),
        pytest.param(BASE, lambda d: load_dump(d / "dump.yaml").pending_workload("ns/running"), NotPending, id="not-pending"),
        pytest.param(
            {"a.yaml": "podSets:\n- flavors: {cpu: {name: d, mode: Maybe}}\n"},
            lambda d: load_assignment(d / "a.yaml"),
            ManifestError,
            id="assignment-mode",
        ),
    ],
)
def test_explain_inputs_raise_typed_errors(files: Files, call: Raise, error: type[Exception], tmp_path: Path) -> None:
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    with pytest.raises(error):
        call(tmp_path)

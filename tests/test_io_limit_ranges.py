"""LimitRanges in a dump (SC-NOM-1 3c/3d, SC-NOM-3) and the unvalidated boost annotation (EP-7).

The hand-made dump: ClusterQueue ``q`` (8 CPUs, 8Gi) serving LocalQueue ``ns/lq``; LimitRange
``ns/lr`` with a ``Container`` item (max cpu 2, min cpu 100m, default cpu 1, defaultRequest
cpu 500m and memory 1Gi, a ``maxLimitRequestRatio`` that is never checked) and a
``PersistentVolumeClaim`` item that is not read. Expected outcomes, by rule (SC-NOM-3):
a container asking for 3 CPUs (limit 3) is above the max; one asking for 1 CPU passes; one
with no resources gets the defaults (500m CPU, 1Gi memory) as its requests; one asking for 3
CPUs with no limit gets the default limit 1 and fails 3c (requests must not exceed limits).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_helpers import run_cli

from kueue_preempt.cycle import ClusterState, LimitRange, PodTemplateResources, WorkloadStatus
from kueue_preempt.cycle.validation import adjust_template, limit_range_summary, resources_violation
from kueue_preempt.io import parse_dump
from kueue_preempt.io.dump import dump_from_objects
from kueue_preempt.io.read import parse_documents
from kueue_preempt.model.pod_requests import ContainerResources

NOW = "2026-03-02T10:00:00Z"
ABOVE_MAX = (
    "resources didn't satisfy LimitRange constraints: spec.podSets[0].template.spec.containers[0]: "
    'Invalid value: ["cpu"]: requests must not be above the limitRange max'
)
OVER_LIMIT = (
    "resources validation failed: spec.podSets[0].template.spec.containers[0]: "
    'Invalid value: ["cpu"]: requests must not exceed its limits'
)


def _workload(name: str, resources: dict[str, Any], **annotations: str) -> dict[str, Any]:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ns", "creationTimestamp": "2026-03-02T09:00:00Z", "annotations": annotations},
        "spec": {
            "queueName": "lq",
            "priority": 0,
            "podSets": [
                {"name": "main", "count": 1, "template": {"spec": {"containers": [{"name": "c", "resources": resources}]}}}
            ],
        },
    }


LIMIT_RANGE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "LimitRange",
    "metadata": {"name": "lr", "namespace": "ns"},
    "spec": {
        "limits": [
            {
                "type": "Container",
                "max": {"cpu": "2"},
                "min": {"cpu": "100m"},
                "default": {"cpu": "1"},
                "defaultRequest": {"cpu": "500m", "memory": "1Gi"},
                "maxLimitRequestRatio": {"cpu": "1"},
            },
            {"type": "PersistentVolumeClaim", "max": {"storage": "1Gi"}},
        ]
    },
}


def _items(*workloads: dict[str, Any], limit_range: bool = True) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = [
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": "default"}},
        {
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "ClusterQueue",
            "metadata": {"name": "q"},
            "spec": {
                "namespaceSelector": {},
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory"],
                        "flavors": [
                            {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "8"}, {"name": "memory", "nominalQuota": "8Gi"}]}
                        ],
                    }
                ],
            },
        },
        {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": "ns"}, "spec": {"clusterQueue": "q"}},
    ]
    return items + ([LIMIT_RANGE] if limit_range else []) + list(workloads)


def _write(tmp_path: Path, items: list[dict[str, Any]], name: str = "dump.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return str(path)


def _cycle(path: str) -> dict[str, dict[str, Any]]:
    r = run_cli("cycle", path, "--now", NOW, "--until-stable", "-o", "json")
    assert r.returncode == 0, r.stderr
    return {res["workload"]: res for c in json.loads(r.stdout)["cycles"] for res in c["results"]}


BIG = _workload("big", {"requests": {"cpu": "3"}, "limits": {"cpu": "3"}})
OK = _workload("ok", {"requests": {"cpu": "1"}})
BARE = _workload("bare", {})
NO_LIMIT = _workload("nolimit", {"requests": {"cpu": "3"}})


def test_cycle_rejects_a_pod_set_above_the_limit_range_max(tmp_path: Path) -> None:
    results = _cycle(_write(tmp_path, _items(BIG, OK, BARE, NO_LIMIT)))
    assert results["ns/big"]["outcome"] == "Rejected"
    assert (results["ns/big"]["reason"], results["ns/big"]["message"]) == ("Misconfigured", ABOVE_MAX)
    assert results["ns/big"]["queue"] == "inadmissible"  # BestEffortFIFO: parked (SC-RQ-4)
    # The default limit (1 CPU) is below the 3 CPUs asked for: 3c fails first.
    assert (results["ns/nolimit"]["reason"], results["ns/nolimit"]["message"]) == ("Misconfigured", OVER_LIMIT)
    assert results["ns/ok"]["outcome"] == "Admitted"
    assert results["ns/ok"]["admission"][0]["resourceUsage"] == {"cpu": "1", "memory": "1Gi"}  # defaultRequest memory
    # No resources at all: the defaultRequest values are the requests Kueue charges (FAS-1).
    assert results["ns/bare"]["outcome"] == "Admitted"
    assert results["ns/bare"]["admission"][0]["resourceUsage"] == {"cpu": "500m", "memory": "1Gi"}


def test_cycle_without_limit_range_is_unchanged(tmp_path: Path) -> None:
    results = _cycle(_write(tmp_path, _items(BIG, OK, limit_range=False)))
    assert results["ns/big"]["outcome"] == "Admitted"
    assert results["ns/big"]["admission"][0]["resourceUsage"] == {"cpu": "3"}
    assert results["ns/ok"]["admission"][0]["resourceUsage"] == {"cpu": "1"}
    dump = parse_dump(json.dumps({"apiVersion": "v1", "kind": "List", "items": _items(BIG, OK, limit_range=False)}))
    assert dump.limit_ranges == ()
    assert dump.state.statuses == {}  # nothing to check: no status is added


def test_cycle_rejects_requests_above_limits_without_limit_range(tmp_path: Path) -> None:
    bad = _workload("bad", {"requests": {"cpu": "2"}, "limits": {"cpu": "1"}})
    results = _cycle(_write(tmp_path, _items(bad, limit_range=False)))
    assert (results["ns/bad"]["reason"], results["ns/bad"]["message"]) == ("Misconfigured", OVER_LIMIT)


def test_explain_reports_the_violation(tmp_path: Path) -> None:
    path = _write(tmp_path, _items(BIG, OK))
    r = run_cli("explain", path, "--workload", "ns/big", "--now", NOW, "-o", "json")
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["outcome"] == "inadmissible" and doc["targets"] == []
    assert doc["inadmissible"] == {"reason": "Misconfigured", "message": ABOVE_MAX}
    table = run_cli("explain", path, "--workload", "ns/big", "--now", NOW, "--no-trace")
    assert "Result: Inadmissible" in table.stdout and ABOVE_MAX in table.stdout
    ok = json.loads(run_cli("explain", path, "--workload", "ns/ok", "--now", NOW, "-o", "json").stdout)
    assert ok["outcome"] == "fits" and "inadmissible" not in ok


def test_explain_incoming_gets_the_dump_limit_ranges(tmp_path: Path) -> None:
    path = _write(tmp_path, _items(OK))
    incoming = tmp_path / "in.json"
    incoming.write_text(json.dumps(_workload("new", {"requests": {"cpu": "3"}, "limits": {"cpu": "3"}})))
    r = run_cli("explain", path, "--incoming", str(incoming), "--now", NOW, "-o", "json")
    assert r.returncode == 1, r.stderr
    assert json.loads(r.stdout)["inadmissible"]["message"] == ABOVE_MAX


def test_check_counts_limit_ranges_and_skips_nothing(tmp_path: Path) -> None:
    r = run_cli("check", _write(tmp_path, _items(OK)), "-o", "json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["counts"]["LimitRange"] == 1
    assert "LimitRange (v1)" not in doc["skipped"]


def _dump(*items: dict[str, Any]) -> Any:
    return dump_from_objects(parse_documents(json.dumps({"apiVersion": "v1", "kind": "List", "items": list(items)}).encode(), source="t"))


def test_pod_item_checks_the_per_pod_request_and_containers_by_index() -> None:
    pod_lr = {
        "apiVersion": "v1",
        "kind": "LimitRange",
        "metadata": {"name": "pods", "namespace": "ns"},
        "spec": {"limits": [{"type": "Pod", "max": {"cpu": "2"}}, {"type": "Container", "min": {"memory": "1Mi"}}]},
    }
    w = _workload("two", {"requests": {"cpu": "1500m", "memory": "2Mi"}})
    w["spec"]["podSets"][0]["template"]["spec"]["containers"].append(
        {"name": "d", "resources": {"requests": {"cpu": "1", "memory": "1Ki"}}}
    )
    dump = _dump(pod_lr, w)
    msg = resources_violation(dump.state, dump.workloads[0].workload)
    assert msg == (
        "resources didn't satisfy LimitRange constraints: ["
        'spec.podSets[0].template.spec.containers[1]: Invalid value: ["memory"]: requests must not be below the limitRange min, '
        'spec.podSets[0].template.spec: Invalid value: ["cpu"]: requests must not be above the limitRange max]'
    )


def test_summary_and_adjustment() -> None:
    ranges = [
        LimitRange("ns", "b", "Container", max={"cpu": 3000}, default={"cpu": 2000}),
        LimitRange("ns", "a", "Container", max={"cpu": 4000}, min={"cpu": 10}, default={"cpu": 1000}),
        LimitRange("ns", "c", "Container", min={"cpu": 50}),
    ]
    summary = limit_range_summary(ranges, "Container")
    assert summary is not None
    # Smallest max, largest min, the first default in name order.
    assert (dict(summary.max), dict(summary.min), dict(summary.default)) == ({"cpu": 3000}, {"cpu": 50}, {"cpu": 1000})
    assert limit_range_summary(ranges, "Pod") is None
    t = adjust_template(PodTemplateResources(containers=[ContainerResources()], pod=None), ranges)
    assert t.containers[0] == ContainerResources(requests={"cpu": 1000}, limits={"cpu": 1000})


def test_library_state_without_templates_keeps_the_one_container_model() -> None:
    from kueue_preempt.model import Workload
    from kueue_preempt.model.flavors import PodSetSpec

    w = Workload(name="w", namespace="ns", local_queue="lq", spec_pod_sets=[PodSetSpec(name="main", count=1, requests={"cpu": 3000})])
    state = ClusterState(limit_ranges=[LimitRange("ns", "lr", "Container", max={"cpu": 2000})], workloads=[w])
    assert resources_violation(state, w) == ABOVE_MAX
    assert resources_violation(state, w, WorkloadStatus()) == ABOVE_MAX


# ---------------------------------------------------------------- EP-7


def test_invalid_boost_is_not_validated_on_load(tmp_path: Path) -> None:
    path = _write(tmp_path, _items(_workload("odd", {"requests": {"cpu": "1"}}, **{"kueue.x-k8s.io/priority-boost": "abc"}), limit_range=False))
    r = run_cli("explain", path, "--workload", "ns/odd", "--now", NOW, "-o", "json")
    assert r.returncode == 1, r.stderr  # no targets needed, not an invalid input (exit 3)
    assert json.loads(r.stdout)["priority"] == {"effective": 0, "base": 0, "boost": 0}
    on = run_cli("explain", path, "--workload", "ns/odd", "--now", NOW, "-o", "json", "--feature-gates", "PriorityBoost=true")
    assert on.returncode == 1, on.stderr
    assert json.loads(on.stdout)["priority"]["boost"] == 0  # EP-5: counted as 0
    checked = run_cli("check", path, "-o", "json")
    assert checked.returncode == 0 and not [w for w in json.loads(checked.stdout)["warnings"] if "priority-boost" in w]
    gated = run_cli("check", path, "-o", "json", "--feature-gates", "PriorityBoost=true")
    assert gated.returncode == 0, gated.stderr
    assert any("priority-boost" in w and "(EP-7)" in w for w in json.loads(gated.stdout)["warnings"])


def test_simulator_arrivals_get_the_limit_ranges(tmp_path: Path) -> None:
    base = _write(tmp_path, _items())
    big = _workload("huge", {"requests": {"cpu": "3"}, "limits": {"cpu": "3"}})
    rows = [{"at": 1, "duration": 10, "workload": big}, {"at": 2, "duration": 10, "workload": BARE}]
    arrivals = tmp_path / "arrivals.jsonl"
    arrivals.write_text("".join(json.dumps(r) + "\n" for r in rows))
    timeline = tmp_path / "timeline.jsonl"
    r = run_cli("simulate", base, "--arrivals", str(arrivals), "--timeline", str(timeline), "-o", "json")
    assert r.returncode == 0, r.stderr
    events = [json.loads(line) for line in timeline.read_text().splitlines()]
    rejected = [e for e in events if e.get("workload") == "ns/huge" and e["event"] == "inadmissible"]
    assert rejected and (rejected[0]["reason"], rejected[0]["message"]) == ("Misconfigured", ABOVE_MAX)
    assert not [e for e in events if e.get("workload") == "ns/huge" and e["event"] == "admitted"]
    admitted = [e for e in events if e.get("workload") == "ns/bare" and e["event"] == "admitted"]
    assert admitted[0]["usage"] == {"default/cpu": 500, "default/memory": 1073741824}  # the defaults (FAS-1)

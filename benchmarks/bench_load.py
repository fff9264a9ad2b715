#!/usr/bin/env python3
"""Loading big dumps (issue 17 item 7): ``kueue-preempt check`` on a 36 MB YAML dump.

Generates a ``kubectl get -o yaml``-style dump (a ``kind: List``) of ClusterQueues, Cohorts,
LocalQueues, ResourceFlavors and 12,000 Workloads with what a real server returns: managed
fields, owner references, labels, a pod template with env, volume mounts and
conditions, admission and resource requests — about 3 KB of YAML per workload, 36 MB
in all — plus the same objects as JSON. Then it runs ``kueue-preempt check`` on each file in a
child process and reports wall time and the child's peak RSS (``getrusage``).

Usage::

    python benchmarks/bench_load.py [--workloads 12000] [--dir /tmp/kp-load] [--runs 3]
                                    [--generate-only] [--out benchmarks/results]

The files are written to ``--dir`` (never committed). For the figures on
docs/performance.md ("Loading dumps"), time the same commands with ``farm-bench`` as well::

    farm-bench -n 3 --timeout 600 -- kueue-preempt check /tmp/kp-load/dump.yaml

Needs PyYAML (the ``yaml`` extra) and the ``kueue-preempt`` command; ``mypy --strict`` clean.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

Obj = dict[str, Any]

COHORTS = 10
QUEUES_PER_COHORT = 20
FLAVORS = ("default", "spot", "gpu-a100")


def _time(i: int) -> str:
    return f"2026-0{1 + i % 9}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}Z"


def _managed_fields(i: int) -> list[Obj]:
    return [
        {
            "apiVersion": "kueue.x-k8s.io/v1beta2",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:labels": {".": {}, "f:kueue.x-k8s.io/job-uid": {}}, "f:ownerReferences": {".": {}}},
                "f:spec": {".": {}, "f:active": {}, "f:podSets": {}, "f:priority": {}, "f:queueName": {}},
            },
            "manager": "kueue",
            "operation": "Update",
            "time": _time(i),
        },
    ]


def _container(i: int, cpu: str, memory: str) -> Obj:
    return {
        "name": "trainer",
        "image": f"registry.example.com/ml/trainer:v1.{i % 40}.0",
        "imagePullPolicy": "IfNotPresent",
        "command": ["python", "-m", "trainer.main"],
        "env": [
            {"name": "JOB_INDEX", "value": str(i)},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
        ],
        "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"cpu": cpu, "memory": memory}},
        "volumeMounts": [
            {"mountPath": "/data", "name": "data"},
        ],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    }


def workload(i: int, rng: random.Random) -> Obj:
    ns = f"team-{i % (COHORTS * QUEUES_PER_COHORT)}"
    cq = f"cq-{i % (COHORTS * QUEUES_PER_COHORT)}"
    count = rng.randint(1, 4)
    cpu = str(rng.choice((1, 2, 4)))
    memory = f"{rng.choice((2, 4, 8))}Gi"
    admitted = i % 3 != 0
    obj: Obj = {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Workload",
        "metadata": {
            "name": f"job-trainer-{i:05d}-{i * 7919 % 100000:05x}",
            "namespace": ns,
            "uid": f"{i:08x}-1f2e-4d3c-9b8a-{i * 31 % 10**12:012d}",
            "resourceVersion": str(100000 + i),
            "generation": 1 + i % 3,
            "creationTimestamp": _time(i),
            "labels": {"kueue.x-k8s.io/job-uid": f"{i:08x}-aaaa-bbbb-cccc-{i:012d}", "app": "trainer"},
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "name": f"trainer-{i:05d}",
                    "uid": f"{i:08x}-aaaa-bbbb-cccc-{i:012d}",
                    "blockOwnerDeletion": True,
                    "controller": True,
                }
            ],
            "finalizers": ["kueue.x-k8s.io/resource-in-use"],
            "managedFields": _managed_fields(i),
        },
        "spec": {
            "active": True,
            "priority": rng.randint(0, 1000),
            "queueName": f"lq-{ns}",
            "podSets": [
                {
                    "name": "main",
                    "count": count,
                    "template": {
                        "metadata": {"labels": {"app": "trainer", "batch.kubernetes.io/job-name": f"trainer-{i:05d}"}},
                        "spec": {
                            "containers": [_container(i, cpu, memory)],
                            "restartPolicy": "Never",
                            "dnsPolicy": "ClusterFirst",
                            "schedulerName": "default-scheduler",
                            "terminationGracePeriodSeconds": 30,
                            "volumes": [{"name": "data", "emptyDir": {}}],
                        },
                    },
                }
            ],
        },
        "status": {
            "conditions": [
                {
                    "type": "QuotaReserved",
                    "status": "True" if admitted else "False",
                    "reason": "QuotaReserved" if admitted else "Pending",
                    "message": f"Quota reserved in ClusterQueue {cq}" if admitted else "waiting for quota",
                    "lastTransitionTime": _time(i + 2),
                    "observedGeneration": 1,
                }
            ],
            "resourceRequests": [{"name": "main", "resources": {"cpu": cpu, "memory": memory}}],
        },
    }
    if admitted:
        obj["status"]["admission"] = {
            "clusterQueue": cq,
            "podSetAssignments": [
                {
                    "name": "main",
                    "count": count,
                    "flavors": {"cpu": "default", "memory": "default"},
                    "resourceUsage": {"cpu": str(int(cpu) * count), "memory": f"{int(memory[:-2]) * count}Gi"},
                }
            ],
        }
        obj["status"]["conditions"].append(
            {
                "type": "Admitted",
                "status": "True",
                "reason": "Admitted",
                "message": "The workload is admitted",
                "lastTransitionTime": _time(i + 2),
                "observedGeneration": 1,
            }
        )
    return obj


def dump_objects(workloads: int) -> list[Obj]:
    rng = random.Random(17)
    items: list[Obj] = []
    for f in FLAVORS:
        items.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "ResourceFlavor", "metadata": {"name": f}, "spec": {}})
    for c in range(COHORTS):
        items.append({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Cohort", "metadata": {"name": f"cohort-{c}"}, "spec": {}})
    for q in range(COHORTS * QUEUES_PER_COHORT):
        items.append(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "ClusterQueue",
                "metadata": {"name": f"cq-{q}"},
                "spec": {
                    "cohortName": f"cohort-{q % COHORTS}",
                    "namespaceSelector": {},
                    "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
                    "resourceGroups": [
                        {
                            "coveredResources": ["cpu", "memory"],
                            "flavors": [
                                {"name": "default", "resources": [{"name": "cpu", "nominalQuota": "200"}, {"name": "memory", "nominalQuota": "800Gi"}]}
                            ],
                        }
                    ],
                },
            }
        )
        items.append(
            {
                "apiVersion": "kueue.x-k8s.io/v1beta2",
                "kind": "LocalQueue",
                "metadata": {"name": f"lq-team-{q}", "namespace": f"team-{q}"},
                "spec": {"clusterQueue": f"cq-{q}"},
            }
        )
    items.extend(workload(i, rng) for i in range(workloads))
    return items


def generate(directory: Path, workloads: int) -> tuple[Path, Path]:
    import yaml

    directory.mkdir(parents=True, exist_ok=True)
    doc = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": dump_objects(workloads)}
    yaml_path = directory / "dump.yaml"
    json_path = directory / "dump.json"
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    with open(yaml_path, "w", encoding="utf-8") as f:
        yaml.dump(doc, f, Dumper=dumper, sort_keys=False, default_flow_style=False)
    with open(json_path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)  # kubectl indents by 4; 1 keeps the file under the 64 MB limit
    return yaml_path, json_path


def run_check(path: Path) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit code of ``kueue-preempt check PATH``.

    The child is reaped with ``wait4`` so that its own peak RSS is read (``RUSAGE_CHILDREN``
    would give the largest over every child so far).
    """
    command = [sys.executable, "-m", "kueue_preempt", "check", str(path)]
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return wall, usage.ru_maxrss / 1024, child.returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workloads", type=int, default=12000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kp-load"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--generate-only", action="store_true")
    parser.add_argument("--quick", action="store_true", help="smoke run: 1,000 workloads, one run each")
    parser.add_argument("--out", type=Path, default=None, help="write load.json and load.md here")
    args = parser.parse_args(argv)
    if args.quick:
        args.workloads, args.runs = 1000, 1
    yaml_path, json_path = generate(args.dir, args.workloads)
    for p in (yaml_path, json_path):
        print(f"{p}: {p.stat().st_size / 1e6:.1f} MB, {args.workloads} workloads")
    if args.generate_only:
        return 0
    results: dict[str, Any] = {"workloads": args.workloads}
    for label, p in (("yaml", yaml_path), ("json", json_path)):
        walls, rss_max = [], 0.0
        for _ in range(args.runs):
            wall, rss, code = run_check(p)
            if code:
                print(f"{label}: check failed with exit code {code}", file=sys.stderr)
                return 1
            walls.append(wall)
            rss_max = max(rss_max, rss)
        results[label] = {"bytes": p.stat().st_size, "wall_median_s": statistics.median(walls), "peak_rss_mb": rss_max}
        print(f"{label}: median {statistics.median(walls):.2f} s over {args.runs} runs, peak RSS {rss_max:.0f} MB")
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "load.json").write_text(json.dumps(results, indent=2) + "\n")
        lines = ["| format | size | median wall | peak RSS |", "|---|---|---|---|"]
        for label in ("yaml", "json"):
            r = results[label]
            lines.append(f"| {label} | {r['bytes'] / 1e6:.1f} MB | {r['wall_median_s']:.2f} s | {r['peak_rss_mb']:.0f} MB |")
        (args.out / "load.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

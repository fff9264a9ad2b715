#!/usr/bin/env python3
"""``kueue-preempt cycle`` next to ``kueue-preempt check`` on one 12,000-workload dump.

Generates a ``kubectl get -o json``-style dump (a ``kind: List``): 10 cohorts x 20
ClusterQueues (BestEffortFIFO and StrictFIFO, three flavors in one resource group, preemption
within the queue and reclaim in the cohort), their LocalQueues and 12,000 Workloads, about 70%
admitted (their queues filled to roughly nominal quota) and 30% pending with a spread of
priorities and sizes, so that heads fit, preempt, borrow, or find nothing. Then it runs, each in
a child process, ``check``, ``cycle`` (one cycle) and ``cycle --cycles 5``, and reports wall
time and the child's peak RSS (``getrusage``), median of ``--runs``.

Usage::

    python benchmarks/bench_cycle.py [--workloads 12000] [--dir /tmp/kp-cycle] [--runs 3] [--out benchmarks/results]

The dump is written to ``--dir`` (never committed). ``mypy --strict`` clean.
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
NOW = "2026-03-02T10:00:00Z"


def _time(i: int) -> str:
    return f"2026-0{1 + i % 2}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}Z"


def _cluster_queue(c: int, q: int) -> Obj:
    return {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "ClusterQueue",
        "metadata": {"name": f"cq-{c}-{q}"},
        "spec": {
            "cohort": f"cohort-{c}",
            "namespaceSelector": {},
            "queueingStrategy": "StrictFIFO" if q % 5 == 0 else "BestEffortFIFO",
            "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
            "resourceGroups": [
                {
                    "coveredResources": ["cpu", "memory"],
                    "flavors": [
                        {"name": f, "resources": [{"name": "cpu", "nominalQuota": "64"}, {"name": "memory", "nominalQuota": "256Gi"}]}
                        for f in FLAVORS
                    ],
                }
            ],
        },
    }


def _workload(i: int, cq: str, ns: str, cpus: int, priority: int, flavor: str | None) -> Obj:
    w: Obj = {
        "apiVersion": "kueue.x-k8s.io/v1beta1",
        "kind": "Workload",
        "metadata": {
            "name": f"job-{i:05d}",
            "namespace": ns,
            "uid": f"00000000-0000-0000-0000-{i:012d}",
            "creationTimestamp": _time(i),
            "labels": {"kueue.x-k8s.io/job-uid": f"job-uid-{i}"},
        },
        "spec": {
            "queueName": "lq",
            "priority": priority,
            "podSets": [
                {
                    "name": "main",
                    "count": 1,
                    "template": {
                        "spec": {
                            "containers": [
                                {"name": "c", "resources": {"requests": {"cpu": str(cpus), "memory": f"{cpus * 4}Gi"}}}
                            ]
                        }
                    },
                }
            ],
        },
    }
    if flavor is not None:
        w["status"] = {
            "admission": {
                "clusterQueue": cq,
                "podSetAssignments": [
                    {
                        "name": "main",
                        "count": 1,
                        "flavors": {"cpu": flavor, "memory": flavor},
                        "resourceUsage": {"cpu": str(cpus), "memory": f"{cpus * 4}Gi"},
                    }
                ],
            },
            "conditions": [
                {"type": "QuotaReserved", "status": "True", "reason": "QuotaReserved", "message": f"Quota reserved in ClusterQueue {cq}", "lastTransitionTime": _time(i + 1)},
                {"type": "Admitted", "status": "True", "reason": "Admitted", "message": "The workload is admitted", "lastTransitionTime": _time(i + 1)},
            ],
        }
    return w


def generate(workloads: int, seed: int = 17) -> Obj:
    rnd = random.Random(seed)
    items: list[Obj] = [{"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "ResourceFlavor", "metadata": {"name": f}} for f in FLAVORS]
    queues = [(c, q) for c in range(COHORTS) for q in range(QUEUES_PER_COHORT)]
    used: dict[tuple[str, str], int] = {}
    for c, q in queues:
        items.append(_cluster_queue(c, q))
        items.append(
            {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": f"ns-{c}-{q}"}, "spec": {"clusterQueue": f"cq-{c}-{q}"}}
        )
    for i in range(workloads):
        c, q = queues[i % len(queues)]
        cq, ns = f"cq-{c}-{q}", f"ns-{c}-{q}"
        cpus = rnd.choice((1, 2, 4, 8, 16))
        priority = rnd.choice((0, 10, 100, 1000))
        flavor = None
        if rnd.random() < 0.7:
            for f in FLAVORS:  # admit where it still fits within 110% of nominal (some borrow)
                if used.get((cq, f), 0) + cpus <= 70:
                    used[(cq, f)] = used.get((cq, f), 0) + cpus
                    flavor = f
                    break
        items.append(_workload(i, cq, ns, cpus, priority, flavor))
    return {"apiVersion": "v1", "kind": "List", "items": items}


_RUNNER = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)\n"
    "dt = time.perf_counter() - t\n"
    "rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss\n"
    "print(r.returncode, dt, rss, r.stderr.decode()[:200].replace('\\n', ' '))\n"
)


def measure(cmd: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS in MB of the command, and its exit code."""
    out = subprocess.run([sys.executable, "-c", _RUNNER, *cmd], capture_output=True, text=True, check=True).stdout.split(" ", 3)
    code, seconds, rss_kb = int(out[0]), float(out[1]), int(out[2])
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({code}): {out[3] if len(out) > 3 else ''}")
    return seconds, rss_kb / 1024, code


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--workloads", type=int, default=12000)
    p.add_argument("--dir", default="/tmp/kp-cycle")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--out", default=None, help="write cycle.json/cycle.md there")
    args = p.parse_args()
    d = Path(args.dir)
    d.mkdir(parents=True, exist_ok=True)
    dump = d / "dump.json"
    doc = generate(args.workloads)
    dump.write_text(json.dumps(doc))
    pending = sum(1 for o in doc["items"] if o["kind"] == "Workload" and "status" not in o)
    print(f"{dump}: {dump.stat().st_size / 1e6:.1f} MB, {args.workloads} workloads ({pending} pending), "
          f"{COHORTS * QUEUES_PER_COHORT} ClusterQueues")
    cli = os.environ.get("KUEUE_PREEMPT", "kueue-preempt")
    commands = {
        "check": [cli, "check", str(dump)],
        "cycle": [cli, "cycle", str(dump), "--now", NOW],
        "cycle --cycles 5": [cli, "cycle", str(dump), "--now", NOW, "--cycles", "5"],
    }
    rows = []
    for name, cmd in commands.items():
        runs = [measure(cmd) for _ in range(args.runs)]
        wall = statistics.median(r[0] for r in runs)
        rss = statistics.median(r[1] for r in runs)
        rows.append({"command": name, "wall_s": round(wall, 2), "peak_rss_mb": round(rss, 1), "runs": args.runs})
        print(f"{name:22s} {wall:7.2f} s {rss:8.1f} MB")
    if args.out:
        o = Path(args.out)
        o.mkdir(parents=True, exist_ok=True)
        (o / "cycle.json").write_text(json.dumps({"workloads": args.workloads, "pending": pending, "rows": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()

"""``kueue-preempt check``: what was loaded from a dump — the quota tree, pending workloads, nodes and groups."""

from __future__ import annotations

import argparse
import json
from typing import Any

from kueue_preempt.cli.gates import feature_gates_of, note_ignored_boosts, release_notes
from kueue_preempt.io import (
    ClusterDump,
    ManifestError,
)
from kueue_preempt.cli.cluster_input import dump_of
from kueue_preempt.io.text import quantity_text
from kueue_preempt.errors import InvalidBoost
from kueue_preempt.model.priority import priority_info, validate_boost
from kueue_preempt.snapshot.quota import QuotaNode, Snapshot
from kueue_preempt.cli.common import EXIT_OK, kueue_config_of, table, text

__all__ = ["run_check"]


def run_check(args: argparse.Namespace) -> tuple[int, str]:
    kueue = kueue_config_of(args)
    dump = dump_of(args)
    gates = feature_gates_of(args, base=kueue.feature_gate_set())
    note_ignored_boosts([w.workload for w in dump.workloads], gates)
    snapshot = dump.snapshot(reclaimable_pods=gates.reclaimable_pods)
    if dump.nodes or dump.pods:
        dump.cluster()  # validates node references
    pending = []
    warnings = [f"{kueue.source}: {w}" for w in kueue.warnings] + dump.warnings()
    warnings += release_notes([w.workload for w in dump.workloads], kueue.release)
    for lw in dump.workloads:
        try:
            validate_boost(lw.workload, gates)  # EP-7: only with the PriorityBoost gate on
        except InvalidBoost as exc:
            warnings.append(f"{exc} (EP-7); the scheduler counts it as 0 (EP-5)")
    for lw in dump.pending():
        try:
            cq: str | None = dump.cluster_queue_for(lw)
        except ManifestError as exc:
            cq = None
            warnings.append(f"pending Workload {lw.key}: {exc.reason}")
        pending.append((lw, cq))
    states = {
        "holdingQuota": len(dump.holding_quota()),
        "pending": len(pending),
        "finished": sum(1 for w in dump.workloads if w.finished),
        "inactive": sum(1 for w in dump.workloads if not w.active and not w.finished),
    }
    nodes = _node_rows(dump)
    groups = _group_rows(dump)
    if args.output == "json":
        doc = {
            "sources": list(dump.sources),
            "counts": dump.counts(),
            "skipped": dict(dump.skipped),
            "workloads": states,
            "pending": [
                {"workload": lw.key, "clusterQueue": cq, "priority": priority_info(lw.workload, gates).effective}
                for lw, cq in pending
            ],
            "tree": [_node_json(n) for root in _roots(snapshot) for n in snapshot.subtree(root)],
            "nodes": nodes,
            "podGroups": groups,
            "terminalPods": dump.terminal_pods,
            "warnings": warnings,
        }
        return EXIT_OK, json.dumps(doc, indent=2) + "\n"
    total = sum(dump.counts().values())
    out = [f"Loaded {total} object(s) from {', '.join(dump.sources) or 'no input'}:"]
    out += table(["KIND", "COUNT"], [[k, str(v)] for k, v in dump.counts().items()], indent="  ")
    if dump.skipped:
        out += ["", f"Skipped {sum(dump.skipped.values())} object(s) of kinds the loader does not read:"]
        out += table(["KIND (APIVERSION)", "COUNT"], [[k, str(v)] for k, v in dump.skipped.items()], indent="  ")
    if dump.cluster_queues or dump.cohorts:
        out += ["", "Quota tree (quota: nominal/borrowing limit/lending limit; usage by workloads holding quota):"]
        for root in _roots(snapshot):
            _tree_lines(snapshot, root, "  ", out)
    if dump.workloads:
        out += [
            "",
            "Workloads: {holdingQuota} holding quota, {pending} pending, {finished} finished, {inactive} inactive".format(
                **states
            ),
        ]
        for lw, cq in pending:
            target = f"ClusterQueue {cq}" if cq else "no ClusterQueue found"
            out.append(f"  pending {lw.key} -> {target}, priority {priority_info(lw.workload, gates).effective}")
    if nodes:
        out += ["", "Nodes (requests of running pods / allocatable):"]
        out += table(
            ["NODE", "PODS", "CPU", "MEMORY"],
            [[str(n["name"]), str(n["pods"]), str(n["cpu"]), str(n["memory"])] for n in nodes],
        )
    if groups:
        out += ["", "PodGroups:"]
        out += table(
            ["PODGROUP", "PRIORITY", "DISRUPTION", "MINCOUNT", "RUNNING", "PENDING"],
            [
                [str(g["podGroup"]), str(g["priority"]), str(g["disruptionMode"]), str(g["minCount"]), str(g["running"]), str(g["pending"])]
                for g in groups
            ],
        )
    if dump.terminal_pods:
        out += ["", f"Finished pods (phase Succeeded/Failed, left out): {dump.terminal_pods}"]
    if warnings:
        out += ["", f"Warnings ({len(warnings)}):"] + [f"  - {w}" for w in warnings]
    out += ["", "OK: the dump is valid."]
    return EXIT_OK, text(out)


def _node_rows(dump: ClusterDump) -> list[dict[str, Any]]:
    used: dict[str, dict[str, int]] = {}
    count: dict[str, int] = {}
    for p in dump.pods:
        if p.node_name is None:
            continue
        count[p.node_name] = count.get(p.node_name, 0) + 1
        node_used = used.setdefault(p.node_name, {})
        for r, v in p.amounts.items():
            node_used[r] = node_used.get(r, 0) + v
    rows = []
    for node in dump.nodes:
        cells: dict[str, Any] = {"name": node.name, "pods": f"{count.get(node.name, 0)}/{node.amounts.get('pods') or 0}"}
        for r in ("cpu", "memory"):
            in_use = used.get(node.name, {}).get(r, 0)
            cells[r] = f"{quantity_text(in_use, r)}/{quantity_text(node.amounts.get(r) or 0, r)}"
        rows.append(cells)
    return rows


def _group_rows(dump: ClusterDump) -> list[dict[str, Any]]:
    running: dict[tuple[str, str], int] = {}
    pending: dict[tuple[str, str], int] = {}
    for p in dump.pods:
        if p.pod_group is not None:
            into = pending if p.node_name is None else running
            into[(p.namespace, p.pod_group)] = into.get((p.namespace, p.pod_group), 0) + 1
    return [
        {
            "podGroup": f"{g.namespace}/{g.name}",
            "priority": g.priority,
            "disruptionMode": g.disruption_mode.value,
            "minCount": g.gang_min_count if g.gang_min_count is not None else 1,
            "running": running.get((g.namespace, g.name), 0),
            "pending": pending.get((g.namespace, g.name), 0),
        }
        for g in dump.pod_groups
    ]


def _roots(snapshot: Snapshot) -> list[QuotaNode]:
    nodes = list(snapshot.cohorts.values()) + list(snapshot.cluster_queues.values())
    return sorted((n for n in nodes if n.parent is None), key=lambda n: (n.is_cluster_queue, n.name))


def _quota_text(node: QuotaNode) -> list[str]:
    parts = []
    for fr, q in node.quotas.items():
        bl = "-" if q.borrowing_limit is None else quantity_text(q.borrowing_limit, fr.resource)
        ll = "-" if q.lending_limit is None else quantity_text(q.lending_limit, fr.resource)
        used = quantity_text(node.usage.get(fr, 0), fr.resource)
        parts.append(f"{fr} {quantity_text(q.nominal, fr.resource)}/{bl}/{ll} used {used}")
    extra = [f"{fr} used {quantity_text(v, fr.resource)}" for fr, v in node.usage.items() if fr not in node.quotas and v]
    return parts + extra


def _tree_lines(snapshot: Snapshot, node: QuotaNode, indent: str, out: list[str]) -> None:
    stack = [(node, indent)]
    while stack:
        n, ind = stack.pop()
        implicit = not n.is_cluster_queue and n.cohort is None
        label = f"{n.kind}{' (implicit)' if implicit else ''}"
        if n.is_cluster_queue:
            label += f", {len(n.workloads)} workload(s)"
        out.append(f"{ind}{n.name} [{label}]")
        for part in _quota_text(n):
            out.append(f"{ind}    {part}")
        children = n.child_cohorts + n.child_queues
        stack.extend((c, ind + "  ") for c in reversed(children))


def _node_json(node: QuotaNode) -> dict[str, Any]:
    return {
        "name": node.name,
        "kind": node.kind,
        "implicit": not node.is_cluster_queue and node.cohort is None,
        "quotas": {
            str(fr): {
                "nominal": quantity_text(q.nominal, fr.resource),
                "borrowingLimit": None if q.borrowing_limit is None else quantity_text(q.borrowing_limit, fr.resource),
                "lendingLimit": None if q.lending_limit is None else quantity_text(q.lending_limit, fr.resource),
            }
            for fr, q in node.quotas.items()
        },
        "usage": {str(fr): quantity_text(v, fr.resource) for fr, v in sorted(node.usage.items())},
        "workloads": sorted(node.workloads) if node.is_cluster_queue else None,
        # A flat list with parent/children names, not nested objects: a deep cohort chain
        # must not recurse (here or in the JSON encoder).
        "parent": None if node.parent is None else node.parent.name,
        "children": [c.name for c in node.child_cohorts + node.child_queues],
    }

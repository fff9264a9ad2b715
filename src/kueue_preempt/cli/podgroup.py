"""``kueue-preempt podgroup``: kube-scheduler PodGroup victim selection (KEP-5710) on a dump of nodes and pods."""

from __future__ import annotations

import argparse
import json

from kueue_preempt.cli.cluster_input import dump_of
from kueue_preempt.io.kubectl import POD_GROUP_RESOURCES
from kueue_preempt.podgroup import PodGroupPreemptionResult, PodGroupPreemptor, select_podgroup_victims
from kueue_preempt.preemption.common.trace import DecisionTrace
from kueue_preempt.cli.common import EXIT_NO_TARGETS, EXIT_OK, table, text

__all__ = ["run_podgroup"]


def run_podgroup(args: argparse.Namespace) -> tuple[int, str]:
    dump = dump_of(args, POD_GROUP_RESOURCES)
    cluster = dump.cluster()
    preemptor = dump.pod_group_preemptor(args.group)
    trace = DecisionTrace()
    result = select_podgroup_victims(preemptor, cluster, mode=args.mode, search=args.search, trace=trace)
    code = EXIT_OK if result.victims else EXIT_NO_TARGETS
    if args.output == "json":
        return code, _podgroup_json(preemptor, result, trace, cluster.groups.group_priority(preemptor.group))
    return code, _podgroup_table(preemptor, result, trace, cluster.groups.group_priority(preemptor.group), not args.no_trace)


def _group_text(preemptor: PodGroupPreemptor, priority: int) -> str:
    g = preemptor.group
    gang = f"gang minCount {preemptor.min_count}" if preemptor.min_count > 1 else "basic"
    return (
        f"{g.namespace}/{g.name} (priority {priority}, {gang}, disruptionMode {g.disruption_mode.value}, "
        f"{len(preemptor.pods)} unscheduled pod(s))"
    )


_MODE_TEXT = {
    "kep": "kep (KEP-5710: smallest sufficient priority level, found by search)",
    "kube": "kube (kube-scheduler: remove every lower-priority unit, place once)",
}


def _podgroup_table(
    preemptor: PodGroupPreemptor,
    result: PodGroupPreemptionResult,
    trace: DecisionTrace,
    priority: int,
    show_trace: bool,
) -> str:
    out = [
        f"PodGroup:   {_group_text(preemptor, priority)}",
        f"Mode:       {_MODE_TEXT[result.mode.value]}",
        f"Status:     {result.status}",
    ]
    if result.priority_threshold is not None:
        out.append(f"Threshold:  units of priority <= {result.priority_threshold} may be preempted")
    if result.search_steps:
        steps = "; ".join(
            f"<= {s.priority} {'succeeds' if s.succeeded else 'fails'} ({s.placed}/{len(preemptor.pods)} placed)"
            for s in result.search_steps
        )
        out.append(f"Search:     {steps}")
    if result.victim_units:
        rows = [
            [
                c.unit.key,
                c.unit.type.name.replace("_", " ").title().replace(" ", ""),
                str(c.unit.priority),
                str(c.unit.size),
                ",".join(c.unit.nodes),
                str(c.violating_pods),
            ]
            for c in result.victim_units
        ]
        out += ["", f"{len(result.victims)} victim pod(s) in {len(result.victim_units)} unit(s):"]
        out += table(["UNIT", "TYPE", "PRIORITY", "PODS", "NODES", "PDB-VIOLATING PODS"], rows)
        out += ["", "Victim pods:"] + [
            f"  {p.namespace}/{p.name} on {p.node_name}" for p in result.victims
        ]
    else:
        out += ["", "No victims: " + (result.status.message or "nothing to preempt")]
    if result.reprieved:
        out += ["", "Reprieved (candidates that stay running): " + ", ".join(u.key for u in result.reprieved)]
    if result.nominations:
        out += ["", "Nominations:"] + [f"  {pod} -> {node or '(none)'}" for pod, node in result.nominations.items()]
    if show_trace and len(trace):
        rows = [[str(i), e.verdict.value, e.rule, e.workload or "-", e.detail] for i, e in enumerate(trace, start=1)]
        out += ["", f"Decision trace ({len(trace)} events):"]
        out += table(["#", "VERDICT", "RULE", "UNIT", "DETAIL"], rows)
    return text(out)


def _podgroup_json(
    preemptor: PodGroupPreemptor, result: PodGroupPreemptionResult, trace: DecisionTrace, priority: int
) -> str:
    g = preemptor.group
    doc = {
        "podGroup": f"{g.namespace}/{g.name}",
        "priority": priority,
        "minCount": preemptor.min_count,
        "unscheduledPods": [p.name for p in preemptor.pods],
        "mode": result.mode.value,
        "status": {"code": result.status.code.value, "message": result.status.message},
        "priorityThreshold": result.priority_threshold,
        "searchSteps": [
            {"priority": s.priority, "succeeded": s.succeeded, "placed": s.placed} for s in result.search_steps
        ],
        "victimUnits": [
            {
                "unit": c.unit.key,
                "type": c.unit.type.name,
                "priority": c.unit.priority,
                "pods": [f"{p.namespace}/{p.name}" for p in c.unit.pods],
                "nodes": list(c.unit.nodes),
                "pdbViolatingPods": c.violating_pods,
            }
            for c in result.victim_units
        ],
        "victims": [{"pod": f"{p.namespace}/{p.name}", "node": p.node_name} for p in result.victims],
        "numPdbViolations": result.num_pdb_violations,
        "numPodGroupDisruptions": result.num_podgroup_disruptions,
        "reprieved": [u.key for u in result.reprieved],
        "nominations": dict(result.nominations),
        "placements": result.placements,
        "trace": trace.as_dicts(),
    }
    return json.dumps(doc, indent=2) + "\n"

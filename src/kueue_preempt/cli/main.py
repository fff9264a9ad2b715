"""Command-line interface ``kueue-preempt``: explain preemption decisions on real cluster dumps.

Subcommands:

* ``explain DUMP... (--workload NS/NAME | --incoming FILE)``: which workloads Kueue would
  preempt so that a pending (or hypothetical) workload fits, why, and the decision trace;
* ``check DUMP...``: validate a dump and show what was loaded (counts, skipped kinds, quota tree);
* ``cycle DUMP...``: what Kueue's next scheduling cycle(s) do with every pending workload
  (:mod:`kueue_preempt.cli.cycle`);
* ``simulate DUMP... --arrivals FILE`` and ``sweep DUMP... --arrivals FILE --vary PATH=V1,V2``:
  replay arrivals over time, and compare what-if variations (:mod:`kueue_preempt.cli.simulate`);
* ``demo``: a classic decision on a bundled example cohort.

The CLI is an edge: it reads files through :mod:`kueue_preempt.io`, calls the public API and
formats the result; it holds no algorithm logic. Output is built completely before anything is
printed, so an error never leaves partial output on stdout; an error is one line on stderr.

Exit codes:

===  ==============================================================================
0    success (``explain``: at least one target)
1    ``explain`` found nothing to preempt: the workload fits already, cannot fit
     (NoFit), or no complete target set exists
2    usage error (unknown option, missing argument, bad ``--now``/``--strategies``)
3    invalid input (malformed manifest, quantity, annotation, assignment; unknown
     workload, LocalQueue or ClusterQueue; input too large)
4    I/O error (file missing, unreadable, a directory)
5    a YAML input without PyYAML installed (``pip install 'kueue-preempt[yaml]'``)
70   internal error (a bug: please report it)
===  ==============================================================================
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import datetime, timezone
from typing import Any, NoReturn, Sequence

from kueue_preempt import __version__
from kueue_preempt.cli.gates import add_feature_gates_flag, feature_gates_of, note_ignored_boosts
from kueue_preempt.cli.logging_flags import add_logging_flags, cli_logging, level_for
from kueue_preempt.model.time import parse_time
from kueue_preempt.model.config import FairSharingConfig, PreemptionConfig
from kueue_preempt.cli.demo import demo_scenario
from kueue_preempt.errors import ConfigurationError, KueuePreemptError, UnknownClusterQueue
from kueue_preempt.io import (
    ClusterDump,
    LoadedWorkload,
    ManifestError,
    YamlUnavailable,
    load_assignment,
    load_dump,
    parse_documents,
    read_bytes,
)
from kueue_preempt.cli.explain import ExplainAssignment, file_assignment, kueue_assignment
from kueue_preempt.explanation import explain
from kueue_preempt.io.text import quantity_text, time_text
from kueue_preempt.io.kueue_config import KueueConfiguration, load_kueue_config
from kueue_preempt.io.dump import dump_from_objects, resolve_priorities
from kueue_preempt.sim.errors import ExtraUnavailable
from kueue_preempt.cli.simulate import add_sim_parsers
from kueue_preempt.cli.cycle import add_cycle_parser, cohort_note
from kueue_preempt.cycle import CycleConfig
from kueue_preempt.io.cycle_state import load_cluster_state
from kueue_preempt.model import Target
from kueue_preempt.podgroup import PodGroupPreemptionResult, PodGroupPreemptor, select_podgroup_victims
from kueue_preempt.preemption.targets import get_targets
from kueue_preempt.model.priority import preemption_cost, priority_info
from kueue_preempt.snapshot.quota import QuotaNode, Snapshot
from kueue_preempt.preemption.common.trace import DecisionTrace, TraceEvent

__all__ = [
    "main",
    "EXIT_OK",
    "EXIT_NO_TARGETS",
    "EXIT_USAGE",
    "EXIT_INVALID_INPUT",
    "EXIT_IO_ERROR",
    "EXIT_MISSING_DEPENDENCY",
    "EXIT_INTERNAL_ERROR",
]

EXIT_OK = 0
EXIT_NO_TARGETS = 1
EXIT_USAGE = 2
EXIT_INVALID_INPUT = 3
EXIT_IO_ERROR = 4
EXIT_MISSING_DEPENDENCY = 5
EXIT_INTERNAL_ERROR = 70

PROG = "kueue-preempt"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (``error`` is called for every one)."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{self.prog}: error: {message} (see --help)")


# --------------------------------------------------------------------------- demo


def _demo(args: argparse.Namespace) -> tuple[int, str]:
    scenario = demo_scenario()
    snap = scenario.snapshot
    out = [scenario.description, ""]
    p = priority_info(scenario.preemptor, scenario.config)
    out.append(
        f"Incoming: {scenario.preemptor.key} (priority {p.effective}) into ClusterQueue "
        f"{scenario.cluster_queue} path {snap.path(snap.cluster_queue(scenario.cluster_queue))}"
    )
    reqs = ", ".join(f"{fr}={v}" for fr, v in sorted(scenario.assignment.requests.items()))
    out.append(f"Requests: {reqs}")
    targets = get_targets(
        scenario.preemptor, scenario.cluster_queue, scenario.assignment, snap, config=scenario.config, now=scenario.now
    )
    out.append("")
    if not targets:
        out.append("No preemption possible: the incoming workload stays pending.")
        return EXIT_OK, _text(out)
    out.append(f"{len(targets)} target(s):")
    for t in targets:
        info = priority_info(t.workload, scenario.config)
        out.append(
            f"  - {t.workload.key:<24} cq={t.cluster_queue:<10} priority={info.effective:<5} reason={t.reason.value}"
        )
        out.append(f"    {t.message}")
    return EXIT_OK, _text(out)


# --------------------------------------------------------------------------- explain


def _kueue_config(args: argparse.Namespace) -> KueueConfiguration:
    """``--config FILE`` (Kueue's own Configuration file), else Kueue's defaults (API-32)."""
    return load_kueue_config(args.config) if args.config else KueueConfiguration.defaults()


def _config(args: argparse.Namespace, kueue: KueueConfiguration) -> PreemptionConfig:
    """The configuration file's settings; explicit flags (``--feature-gates``, fair sharing) win
    over it, gate by gate (FG-5)."""
    overrides: dict[str, Any] = {"feature_gates": feature_gates_of(args, base=kueue.feature_gate_set())}
    if args.strategies is not None:
        overrides["fair_sharing"] = FairSharingConfig(preemption_strategies=args.strategies)
    elif args.fair_sharing and kueue.fair_sharing is None:
        overrides["fair_sharing"] = FairSharingConfig()
    return kueue.preemption_config(**overrides)


def _incoming(path: str, dump: ClusterDump) -> LoadedWorkload:
    """The one Workload of ``path``, with its priority resolved against the dump's classes."""
    name = "<stdin>" if path == "-" else path
    single = dump_from_objects(parse_documents(read_bytes(path), source=name))
    if len(single.workloads) != 1:
        raise ManifestError(name, "", "", "", f"--incoming needs exactly one Workload, found {len(single.workloads)}")
    lw = resolve_priorities(single.workloads, dump.workload_priority_classes, dump.priority_classes)[0]
    if lw.key in {w.key for w in dump.workloads}:
        raise ManifestError(name, "Workload", lw.key, "metadata.name", "is already in the dump; use --workload")
    if not lw.is_pending:
        raise ManifestError(name, "Workload", lw.key, "status", f"an incoming workload must be pending, but it {lw.state}")
    return lw


def _explain(args: argparse.Namespace) -> tuple[int, str]:
    kueue = _kueue_config(args)
    config = _config(args, kueue)
    reclaim = config.feature_gates.reclaimable_pods
    now = args.now if args.now is not None else datetime.now(timezone.utc)
    cluster, dump = load_cluster_state(*args.dump)
    lw = _incoming(args.incoming, dump) if args.incoming else dump.pending_workload(args.workload)
    note_ignored_boosts([w.workload for w in dump.workloads] + ([lw.workload] if args.incoming else []), config.feature_gates)
    via = ""
    if args.cluster_queue:
        cq = args.cluster_queue
    else:
        cq = dump.cluster_queue_for(lw)
        via = f"LocalQueue {lw.workload.namespace}/{lw.workload.local_queue}"
    snapshot = dump.snapshot(reclaimable_pods=reclaim)
    if not snapshot.has_cluster_queue(cq):
        raise UnknownClusterQueue("--cluster-queue", "cluster_queue", cq)
    if args.assignment:
        pod_sets = lw.requested_pod_sets(reclaim)  # FAS-1a
        given = load_assignment(args.assignment, pod_sets)
        fa, e = file_assignment(args.assignment, given, pod_sets, lw.workload, cq, snapshot, config, now)
        trace = e.trace if e is not None else ()
    else:
        e = explain(lw.workload, cq, snapshot, flavors=dump.flavors(), config=config, now=now)
        fa, trace = kueue_assignment(e), e.trace
    report = _ExplainReport(lw, cq, via, snapshot, config, now, fa, trace)
    text = report.json() if args.output == "json" else report.table(show_trace=not args.no_trace)
    if args.workload and not args.cluster_queue:
        # SC-ORD-1/SC-FS-1: the same cycle another head of the cohort may take the capacity first.
        note = cohort_note(cluster, lw.key, now, CycleConfig(preemption=config))
        if args.output == "json":
            doc = json.loads(text)
            doc["cycleNote"] = note
            text = json.dumps(doc, indent=2) + "\n"
        elif note is not None:
            text += note + "\n"
    return (EXIT_OK if fa.targets else EXIT_NO_TARGETS), text


class _ExplainReport:
    """Everything ``explain`` prints, as a table or as JSON."""

    def __init__(
        self,
        lw: LoadedWorkload,
        cq: str,
        via: str,
        snapshot: Snapshot,
        config: PreemptionConfig,
        now: datetime,
        fa: ExplainAssignment,
        trace: Sequence[TraceEvent],
    ) -> None:
        self.lw = lw
        self.cq = cq
        self.via = via
        self.path = snapshot.path(snapshot.cluster_queue(cq))
        self.config = config
        self.now = now
        self.fa = fa
        self.requests = fa.requests
        self.preempt = fa.preempt
        self.outcome = fa.outcome
        self.targets = fa.targets
        self.trace = trace
        self.boost = config.priority_boost

    def _algorithm(self) -> str:
        if self.config.fair_sharing is None:
            return "classic"
        return "fair sharing (" + ", ".join(s.value for s in self.config.fair_sharing.preemption_strategies) + ")"

    def _outcome_text(self) -> str:
        if self.outcome == "targets":
            return f"{len(self.targets)} target(s): evicting them makes room for the workload."
        if self.outcome == "fits":
            return "No preemption needed: every requested resource fits (Fit mode, FA-2: nothing to preempt for)."
        if self.outcome == "no-fit":
            return "The workload cannot fit even with preemption (NoFit): " + "; ".join(self.fa.no_fit)
        return "No targets: preemption cannot make room, so the workload stays pending (see the trace)."

    def table(self, *, show_trace: bool) -> str:
        w = self.lw.workload
        info = priority_info(w, boost_enabled=self.boost)
        out = [
            f"Workload:      {w.key}",
            f"ClusterQueue:  {self.cq} (path {self.path}{', via ' + self.via if self.via else ''})",
            f"Priority:      {info.effective} (base {info.base} + boost {info.boost})",
            f"Algorithm:     {self._algorithm()}, now {time_text(self.now)}",
        ]
        out += self.fa.table_lines()
        if self.requests:
            out.append("Requests:      " + ", ".join(f"{k}={v}" for k, v in self.requests.items()) + " (FA-3)")
            out.append("Preempt for:   " + (", ".join(self.preempt) or "nothing"))
        out += ["", "Result: " + self._outcome_text()]
        if self.targets:
            rows = []
            for t in self.targets:
                p = priority_info(t.workload, boost_enabled=self.boost)
                rows.append(
                    [
                        t.workload.key,
                        t.cluster_queue,
                        t.reason.value,
                        f"{p.effective} ({p.base}{p.boost:+d})",
                        _cost(t),
                    ]
                )
            out += [""] + _table(["TARGET", "CLUSTERQUEUE", "REASON", "PRIORITY (BASE+BOOST)", "COST"], rows)
            out += ["", "Messages (the Preempted condition message Kueue writes on each target):"]
            out += [f"  {t.workload.key}: {t.message}" for t in self.targets]
        if show_trace and len(self.trace):
            rows = [
                [str(i), e.verdict.value, e.rule, e.workload or "-", e.detail]
                for i, e in enumerate(self.trace, start=1)
            ]
            out += ["", f"Decision trace ({len(self.trace)} events):"]
            out += _table(["#", "VERDICT", "RULE", "WORKLOAD", "DETAIL"], rows)
        return _text(out)

    def json(self) -> str:
        w = self.lw.workload
        info = priority_info(w, boost_enabled=self.boost)
        doc: dict[str, Any] = {
            "workload": w.key,
            "clusterQueue": self.cq,
            "path": self.path,
            "priority": {"effective": info.effective, "base": info.base, "boost": info.boost},
            "algorithm": "classic" if self.config.fair_sharing is None else "fairSharing",
            "strategies": None
            if self.config.fair_sharing is None
            else [s.value for s in self.config.fair_sharing.preemption_strategies],
            "now": time_text(self.now),
            **self.fa.json(),
            "outcome": self.outcome,
            "targets": [self._target_json(t) for t in self.targets],
            "trace": [e.as_dict() for e in self.trace],
        }
        return json.dumps(doc, indent=2) + "\n"

    def _target_json(self, t: Target) -> dict[str, Any]:
        p = priority_info(t.workload, boost_enabled=self.boost)
        return {
            "workload": t.workload.key,
            "namespace": t.workload.namespace,
            "name": t.workload.name,
            "uid": t.workload.uid,
            "clusterQueue": t.cluster_queue,
            "reason": t.reason.value,
            "priority": {"effective": p.effective, "base": p.base, "boost": p.boost},
            "cost": None if t.workload.preemption_cost is None else _cost(t),
            "message": t.message,
        }


def _cost(t: Target) -> str:
    return "-" if t.workload.preemption_cost is None else format(preemption_cost(t.workload), "f")


# --------------------------------------------------------------------------- podgroup


def _podgroup(args: argparse.Namespace) -> tuple[int, str]:
    dump = load_dump(*args.dump)
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
        out += _table(["UNIT", "TYPE", "PRIORITY", "PODS", "NODES", "PDB-VIOLATING PODS"], rows)
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
        out += _table(["#", "VERDICT", "RULE", "UNIT", "DETAIL"], rows)
    return _text(out)


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


# --------------------------------------------------------------------------- check


def _check(args: argparse.Namespace) -> tuple[int, str]:
    kueue = _kueue_config(args)
    dump = load_dump(*args.dump)
    gates = feature_gates_of(args, base=kueue.feature_gate_set())
    note_ignored_boosts([w.workload for w in dump.workloads], gates)
    snapshot = dump.snapshot(reclaimable_pods=gates.reclaimable_pods)
    if dump.nodes or dump.pods:
        dump.cluster()  # validates node references
    pending = []
    warnings = [f"{kueue.source}: {w}" for w in kueue.warnings] + dump.warnings()
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
    out += _table(["KIND", "COUNT"], [[k, str(v)] for k, v in dump.counts().items()], indent="  ")
    if dump.skipped:
        out += ["", f"Skipped {sum(dump.skipped.values())} object(s) of kinds the loader does not read:"]
        out += _table(["KIND (APIVERSION)", "COUNT"], [[k, str(v)] for k, v in dump.skipped.items()], indent="  ")
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
        out += _table(
            ["NODE", "PODS", "CPU", "MEMORY"],
            [[str(n["name"]), str(n["pods"]), str(n["cpu"]), str(n["memory"])] for n in nodes],
        )
    if groups:
        out += ["", "PodGroups:"]
        out += _table(
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
    return EXIT_OK, _text(out)


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


# --------------------------------------------------------------------------- formatting


def _table(headers: list[str], rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(headers)]
    lines = []
    for row in [headers] + rows:
        cells = [c.ljust(widths[i]) if i < len(row) - 1 else c for i, c in enumerate(row)]
        lines.append((indent + "  ".join(cells)).rstrip())
    return lines


def _text(lines: list[str]) -> str:
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- arguments


def _rfc3339(value: str) -> datetime:
    try:
        return parse_time(value)
    except KueuePreemptError:
        raise argparse.ArgumentTypeError(f"{value!r} is not an RFC 3339 time such as 2026-01-01T12:00:00Z") from None


def _strategies(value: str) -> tuple[str, ...]:
    names = tuple(s.strip() for s in value.split(",") if s.strip())
    try:
        FairSharingConfig(preemption_strategies=names)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return names


def _workload_key(value: str) -> str:
    namespace, sep, name = value.partition("/")
    if not sep or not name or "/" in name:
        raise argparse.ArgumentTypeError(f"{value!r} is not NAMESPACE/NAME")
    return value


_CONFIG_HELP = (
    "Kueue's Configuration file (config.kueue.x-k8s.io v1beta1/v1beta2): fair sharing, admission fair "
    "sharing, feature gates, waitForPodsReady; explicit flags override it (default: Kueue's defaults)"
)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG,
        description="Explain Kueue preemption decisions on cluster dumps.",
        epilog="Defaults are Kueue's own (feature gates and configuration at the reference commit). "
        "Options given on the command line override the same settings read from a --config file.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    demo = sub.add_parser("demo", help="run a classic preemption decision on a bundled example cohort")
    demo.set_defaults(func=_demo)

    explain = sub.add_parser(
        "explain",
        help="which workloads would be preempted for a pending workload, and why",
        description="Explain which workloads Kueue would preempt so that a workload fits. "
        "Exit 0 with targets, 1 without (fits already, NoFit, or no complete target set).",
    )
    explain.add_argument("dump", nargs="+", metavar="DUMP", help="YAML/JSON files (kubectl get -o yaml); - for stdin")
    which = explain.add_mutually_exclusive_group(required=True)
    which.add_argument("--workload", type=_workload_key, metavar="NS/NAME", help="a pending Workload of the dump")
    which.add_argument("--incoming", metavar="FILE", help="a Workload manifest that is not in the dump")
    explain.add_argument("--cluster-queue", metavar="NAME", help="the ClusterQueue (default: from the LocalQueue)")
    explain.add_argument(
        "--assignment", metavar="FILE", help="explicit flavor assignment (default: Kueue's flavor assignment from the first flavor)"
    )
    explain.add_argument("--config", metavar="FILE", help=_CONFIG_HELP)
    explain.add_argument("--fair-sharing", action="store_true", help="use fair-sharing preemption (overrides --config)")
    explain.add_argument(
        "--strategies",
        type=_strategies,
        metavar="S1[,S2]",
        help="fair-sharing strategies (implies --fair-sharing; overrides --config): "
        "LessThanOrEqualToFinalShare, LessThanInitialShare",
    )
    explain.add_argument("--now", type=_rfc3339, metavar="RFC3339", help="the decision time (default: now)")
    explain.add_argument("--output", "-o", choices=("table", "json"), default="table")
    explain.add_argument("--no-trace", action="store_true", help="leave the decision trace out of the table")
    explain.set_defaults(func=_explain)

    podgroup = sub.add_parser(
        "podgroup",
        help="which pods kube-scheduler would preempt for a pending PodGroup (KEP-5710)",
        description="Workload-aware preemption for a pending PodGroup on a dump of nodes, pods, "
        "PodGroups and PDBs. Exit 0 with victims, 1 without.",
    )
    podgroup.add_argument("dump", nargs="+", metavar="DUMP", help="YAML/JSON files (kubectl get -o yaml); - for stdin")
    podgroup.add_argument(
        "--group", required=True, type=_workload_key, metavar="NS/NAME", help="the pending PodGroup"
    )
    podgroup.add_argument(
        "--mode",
        choices=("kep", "kube"),
        default="kep",
        help="kep: search the smallest sufficient priority level (default); kube: kube-scheduler's remove-all",
    )
    podgroup.add_argument("--search", choices=("binary", "linear"), default="binary", help="how kep mode searches")
    podgroup.add_argument("--output", "-o", choices=("table", "json"), default="table")
    podgroup.add_argument("--no-trace", action="store_true", help="leave the decision trace out of the table")
    podgroup.set_defaults(func=_podgroup)

    check = sub.add_parser(
        "check",
        help="validate a dump and show what was loaded",
        description="Validate a dump: counts per kind, skipped kinds, the quota tree, pending workloads, warnings.",
    )
    check.add_argument("dump", nargs="+", metavar="DUMP", help="YAML/JSON files (kubectl get -o yaml); - for stdin")
    check.add_argument("--config", metavar="FILE", help=_CONFIG_HELP)
    check.add_argument("--output", "-o", choices=("table", "json"), default="table")
    check.set_defaults(func=_check)
    for command in (explain, check):
        add_feature_gates_flag(command)

    add_cycle_parser(sub, _rfc3339, _strategies, lambda args: _config(args, _kueue_config(args)), _CONFIG_HELP)
    add_sim_parsers(sub, _strategies, lambda args: _config(args, _kueue_config(args)), _CONFIG_HELP)
    add_logging_flags(parser, sub.choices.values())
    return parser


# --------------------------------------------------------------------------- main


def _fail(message: str) -> None:
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _write(text: str) -> None:
    """Write all of ``text`` at once; characters the terminal cannot encode are escaped."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    sys.stdout.flush()
    buffer.write(text.encode(sys.stdout.encoding or "utf-8", "backslashreplace"))
    buffer.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kueue-preempt`` console script; returns the exit code."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as exc:
        print(f"{exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # --help, --version
        return int(exc.code) if isinstance(exc.code, int) else EXIT_OK
    try:
        with cli_logging(level_for(args), PROG):
            result: tuple[int, str] = args.func(args)
        code, text = result
    except (YamlUnavailable, ExtraUnavailable) as exc:
        _fail(str(exc))
        return EXIT_MISSING_DEPENDENCY
    except KueuePreemptError as exc:
        _fail(str(exc))
        return EXIT_INVALID_INPUT
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        _fail(f"{where}{exc.strerror or exc}")
        return EXIT_IO_ERROR
    except KeyboardInterrupt:
        _fail("interrupted")
        return 130
    except Exception as exc:  # noqa: BLE001 - the CLI must never print a traceback
        _fail(f"internal error: {type(exc).__name__}: {exc} (please report this)")
        return EXIT_INTERNAL_ERROR
    try:
        _write(text)
    except BrokenPipeError:
        # The reader went away (``| head``): stop quietly, without Python's exit-time warning.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

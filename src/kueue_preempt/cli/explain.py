"""``explain``'s assignment rows: Kueue's assigner, or an explicit ``--assignment`` file.

The named workload is evaluated as if it were its queue's head in the next cycle: Kueue's flavor
assignment (:func:`kueue_preempt.assignment.assign_with_targets`: FAS-2..FAS-24, then
``get_targets`` for a ``Preempt`` assignment and the partial-admission search, FAS-13/FAS-14) —
the same steps :func:`kueue_preempt.cycle.nominate` takes for a head (SC-NOM-2). A dump holds
no queue memory, so the scan starts at each resource group's first flavor; Kueue resumes from
the flavor its last cycle stopped at (FAS-12), which the output says.

This module only formats (the rows and JSON ``explain`` prints); the decision is
:func:`kueue_preempt.explain`'s.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Iterable, Mapping, Sequence

import attrs

from kueue_preempt.assignment import FlavorAssignment, FlavorAttempt
from kueue_preempt.assignment.result import mode_rank
from kueue_preempt.explanation import Explanation, explain
from kueue_preempt.io import WorkloadAssignment, to_assignment
from kueue_preempt.io.text import quantity_text
from kueue_preempt.io.objects import PodSetRequests
from kueue_preempt.model import FlavorAssignmentMode, FlavorResource, PreemptionConfig, Target, Workload
from kueue_preempt.snapshot.quota import Snapshot


import argparse
import json
from datetime import timezone

from kueue_preempt.cli.gates import note_ignored_boosts, note_release
from kueue_preempt.errors import UnknownClusterQueue
from kueue_preempt.io import (
    ClusterDump,
    LoadedWorkload,
    ManifestError,
    load_assignment,
    parse_documents,
    read_bytes,
)
from kueue_preempt.io.text import time_text
from kueue_preempt.io.dump import apply_limit_ranges, dump_from_objects, resolve_priorities
from kueue_preempt.cycle.validation import resources_violation
from kueue_preempt.io.jobs import is_job, read_job
from kueue_preempt.cli.cycle import cohort_note
from kueue_preempt.cycle import CycleConfig
from kueue_preempt.cli.cluster_input import cluster_state_of
from kueue_preempt.model.priority import preemption_cost, priority_info
from kueue_preempt.preemption.common.trace import TraceEvent
from kueue_preempt.cli.common import EXIT_NO_TARGETS, EXIT_OK, kueue_config_of, preemption_config_of, table, text

__all__ = ["ExplainAssignment", "kueue_assignment", "file_assignment", "KUEUE_NOTE", "run_explain"]

KUEUE_NOTE = (
    "Kueue's flavor assignment, scanning every resource group from its first flavor; Kueue resumes "
    "from the flavor its last cycle stopped at (FAS-12), which a dump does not record"
)


@attrs.frozen
class ExplainAssignment:
    """The assignment ``explain`` used, what it asks ``get_targets`` for, and the outcome.

    ``source`` is ``"kueue"`` (Kueue's assigner) or ``"file"`` (``--assignment``). ``outcome``
    is ``fits``, ``no-fit``, ``targets``, ``no-targets`` or ``inadmissible`` (SC-NOM-3).
    """

    source: str
    note: str
    pod_sets: tuple[dict[str, Any], ...]
    mode: FlavorAssignmentMode
    no_fit: tuple[str, ...]
    requests: dict[str, str]
    preempt: tuple[str, ...]
    outcome: str
    targets: tuple[Target, ...]
    borrowing: int | None = None
    no_fit_reason: str = ""
    partial: bool = False

    def table_lines(self) -> list[str]:
        """The ``Assignment:`` block of the table: per pod set, flavors and the flavors considered."""
        out = [f"Assignment:    {self.note}"]
        if self.source == "kueue":
            level = f", borrowing level {self.borrowing}" if self.borrowing else ", no borrowing"
            out.append(f"  mode {self.mode.value}{level}" + (" (partial admission, FAS-14)" if self.partial else ""))
        for ps in self.pod_sets:
            flavors = ", ".join(
                f"{r} -> {c['name']} ({c['mode']}{', borrow ' + str(c['borrow']) if c.get('borrow') else ''})"
                for r, c in ps["flavors"].items()
            )
            out.append(f"  pod set {ps['name']} x {ps['count']}: {flavors or '(no flavor)'} [{ps['mode']}]")
            for at in ps.get("flavorsConsidered", ()):
                what = at["mode"] if at["preemptionMode"] is None else f"{at['mode']}, preemptionMode={at['preemptionMode']}"
                if at["borrow"]:
                    what += f", borrow {at['borrow']}"
                why = "; ".join(at["reasons"])
                out.append(f"    considered {at['flavor']}: {what}{' - ' + why if why else ''}")
        return out

    def json(self) -> dict[str, Any]:
        """The JSON fields: ``assignment``, ``assignmentSource``, ``assignmentNote``, ``noFit``..."""
        return {
            "assignment": {
                "mode": self.mode.value,
                "borrowingLevel": self.borrowing,
                "noFitReason": self.no_fit_reason or None,
                "partialAdmission": self.partial,
                "podSets": list(self.pod_sets),
            },
            "assignmentSource": self.source,
            "assignmentNote": self.note,
            "noFit": list(self.no_fit),
            "requests": self.requests,
            "preemptFlavorResources": list(self.preempt),
        }


def _attempt(at: FlavorAttempt) -> dict[str, Any]:
    return {
        "flavor": at.flavor,
        "mode": at.mode.value,
        "borrow": at.borrow,
        "preemptionMode": None if at.preemption_possibility is None else at.preemption_possibility.value,
        "reasons": list(at.reasons),  # Kueue's messages verbatim (FAS-21)
    }


def _kueue_pod_sets(a: FlavorAssignment) -> tuple[dict[str, Any], ...]:
    return tuple(
        {
            "name": ps.name,
            "count": ps.count,
            "mode": ps.mode.value,
            "flavors": {
                r: {"name": f.flavor, "mode": f.mode.value, "borrow": f.borrow, "triedFlavorIdx": f.tried_flavor_idx}
                for r, f in ps.flavors.items()
            },
            "reasons": list(ps.status.reasons),
            "error": ps.status.error,
            "flavorsConsidered": [_attempt(at) for at in ps.attempts],
        }
        for ps in a.pod_sets
    )


def _requests(
    requests: Mapping[FlavorResource, int], preempt: Iterable[FlavorResource]
) -> tuple[dict[str, str], tuple[str, ...]]:
    texts = {str(fr): quantity_text(v, fr.resource) for fr, v in sorted(requests.items())}
    return texts, tuple(sorted(str(fr) for fr in preempt))


def kueue_assignment(e: Explanation) -> ExplainAssignment:
    """The ``Assignment:`` rows of Kueue's assigner's nomination (SC-NOM-2, FAS-12..FAS-14)."""
    a = e.assignment
    assert a is not None  # an explanation without a given assignment carries the assigner's
    missing = (
        "ResourceFlavor " + ", ".join(e.missing_flavors) + " not in the dump: taken without node labels or taints"
        if e.missing_flavors
        else ""
    )
    requests, preempt = _requests(e.requests, e.preempt)
    return ExplainAssignment(
        source="kueue",
        note=KUEUE_NOTE + (f"; {missing}" if missing else ""),
        pod_sets=_kueue_pod_sets(a),
        mode=e.mode,
        no_fit=e.no_fit,
        requests=requests,
        preempt=preempt,
        outcome=e.outcome.value,
        targets=e.targets,
        borrowing=a.borrowing,
        no_fit_reason=a.no_fit_reason,
        partial=e.partial,
    )


def file_assignment(
    path: str,
    fa: WorkloadAssignment,
    pod_sets: Sequence[PodSetRequests],
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    config: PreemptionConfig,
    now: datetime,
) -> tuple[ExplainAssignment, Explanation | None]:
    """``--assignment FILE``: the given flavors and modes, then ``get_targets`` (FA-2, FA-3)
    through :func:`kueue_preempt.explain` (``None`` for a file that says ``NoFit``)."""
    rows = tuple(
        {
            "name": ps.name,
            "count": ps.count,
            "mode": min((c.mode for c in ps.flavors.values()), key=mode_rank, default=FlavorAssignmentMode.FIT).value,
            "flavors": {r: {"name": c.flavor, "mode": c.mode.value} for r, c in ps.flavors.items()},
        }
        for ps in fa.pod_sets
    )
    if fa.mode is FlavorAssignmentMode.NO_FIT:
        shown = ExplainAssignment(
            source="file", note=f"from {path}", pod_sets=rows, mode=fa.mode, no_fit=fa.no_fit,
            requests={}, preempt=(), outcome="no-fit", targets=(),
        )  # fmt: skip
        return shown, None
    e = explain(workload, cluster_queue, snapshot, config=config, now=now, assignment=to_assignment(pod_sets, fa))
    requests, preempt = _requests(e.requests, e.preempt)
    shown = ExplainAssignment(
        source="file", note=f"from {path}", pod_sets=rows, mode=fa.mode, no_fit=fa.no_fit,
        requests=requests, preempt=preempt, outcome=e.outcome.value, targets=e.targets,
    )  # fmt: skip
    return shown, e


# --------------------------------------------------------------------------- the command


def _incoming(path: str, dump: ClusterDump) -> tuple[LoadedWorkload, str]:
    """The one Workload of ``path``, with its priority resolved against the dump's classes, and
    the job it was built from (``""`` for a Workload manifest): a Job, JobSet or Pod becomes
    the Workload Kueue's job integration would create for it."""
    name = "<stdin>" if path == "-" else path
    objects = parse_documents(read_bytes(path), source=name)
    jobs = [o for o in objects if is_job(o)]
    single = dump_from_objects([o for o in objects if not is_job(o) and o.data.get("kind") == "Workload"])
    found = len(single.workloads) + len(jobs)
    if found != 1:
        others = sorted({f"{o.data.get('kind')} ({o.data.get('apiVersion')})" for o in objects if not is_job(o) and o.data.get("kind") != "Workload"})
        shown = f"; not read: {', '.join(others)}" if others and not found else ""
        raise ManifestError(name, "", "", "", f"--incoming needs exactly one Workload, Job, JobSet or Pod, found {found}{shown}")
    origin = ""
    if jobs:
        job = read_job(jobs[0])
        lw, origin = job.resolve(dump), job.origin
    else:
        lw = resolve_priorities(single.workloads, dump.workload_priority_classes, dump.priority_classes)[0]
    if lw.key in {w.key for w in dump.workloads}:
        raise ManifestError(name, "Workload", lw.key, "metadata.name", "is already in the dump; use --workload")
    if not lw.is_pending:
        raise ManifestError(name, "Workload", lw.key, "status", f"an incoming workload must be pending, but it {lw.state}")
    return lw, origin


def run_explain(args: argparse.Namespace) -> tuple[int, str]:
    kueue = kueue_config_of(args)
    config = preemption_config_of(args, kueue)
    reclaim = config.feature_gates.reclaimable_pods
    now = args.now if args.now is not None else datetime.now(timezone.utc)
    cluster, dump = cluster_state_of(args)
    lw, origin = _incoming(args.incoming, dump) if args.incoming else (dump.pending_workload(args.workload), "")
    if args.incoming:
        lw = apply_limit_ranges(lw, dump.limit_ranges)  # SC-NOM-3, as for the dump's own workloads
    # SC-NOM-1 3c/3d: a workload Kueue finds misconfigured is never nominated.
    inadmissible = resources_violation(cluster, lw.workload, lw.status)
    note_ignored_boosts([w.workload for w in dump.workloads] + ([lw.workload] if args.incoming else []), config.feature_gates)
    note_release([w.workload for w in dump.workloads] + ([lw.workload] if args.incoming else []), config.kueue_release)
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
    if inadmissible is not None:
        fa = attrs.evolve(fa, outcome="inadmissible", targets=())
    report = _ExplainReport(lw, cq, via, snapshot, config, now, fa, trace, inadmissible)
    text = report.json() if args.output == "json" else report.table(show_trace=not args.no_trace)
    if origin:
        text = _with_origin(text, origin, args.output == "json")
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


def _with_origin(text: str, origin: str, as_json: bool) -> str:
    """Say which job the incoming Workload stands for (JSON: ``incomingFrom``)."""
    if as_json:
        doc = json.loads(text)
        kind, _, key = origin.partition(" ")
        doc["incomingFrom"] = {"kind": kind, "name": key}
        return json.dumps(doc, indent=2) + "\n"
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if line.startswith("Workload:"):
            lines.insert(i + 1, f"Built from:    {origin} (the Workload Kueue's job integration creates for it)")
            break
    return "\n".join(lines)


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
        inadmissible: str | None = None,
    ) -> None:
        self.inadmissible = inadmissible
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
        if self.inadmissible is not None:
            return (
                "Inadmissible: Kueue rejects the workload before flavor assignment (SC-NOM-1, SC-NOM-3; "
                "the assignment above is for information only), "
                f"reason Misconfigured: {self.inadmissible}"
            )
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
            out += [""] + table(["TARGET", "CLUSTERQUEUE", "REASON", "PRIORITY (BASE+BOOST)", "COST"], rows)
            out += ["", "Messages (the Preempted condition message Kueue writes on each target):"]
            out += [f"  {t.workload.key}: {t.message}" for t in self.targets]
        if show_trace and len(self.trace):
            rows = [
                [str(i), e.verdict.value, e.rule, e.workload or "-", e.detail]
                for i, e in enumerate(self.trace, start=1)
            ]
            out += ["", f"Decision trace ({len(self.trace)} events):"]
            out += table(["#", "VERDICT", "RULE", "WORKLOAD", "DETAIL"], rows)
        return text(out)

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
        if self.inadmissible is not None:
            doc["inadmissible"] = {"reason": "Misconfigured", "message": self.inadmissible}
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

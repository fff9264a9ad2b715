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

__all__ = ["ExplainAssignment", "kueue_assignment", "file_assignment", "KUEUE_NOTE"]

KUEUE_NOTE = (
    "Kueue's flavor assignment, scanning every resource group from its first flavor; Kueue resumes "
    "from the flavor its last cycle stopped at (FAS-12), which a dump does not record"
)


@attrs.frozen
class ExplainAssignment:
    """The assignment ``explain`` used, what it asks ``get_targets`` for, and the outcome.

    ``source`` is ``"kueue"`` (Kueue's assigner) or ``"file"`` (``--assignment``). ``outcome``
    is ``fits``, ``no-fit``, ``targets`` or ``no-targets``.
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

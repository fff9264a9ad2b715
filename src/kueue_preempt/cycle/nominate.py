"""A head's nomination: flavor assignment, targets, partial admission (SC-NOM-2).

Built on :func:`kueue_preempt.assignment.assign_flavors` (the one flavor assigner) and
:func:`kueue_preempt.get_targets`; this module only adds what the scheduler does around
them: resuming the scan from the recorded progress (SC-FR-2), pinning flavors during a
recomputation (SC-PE-3a), the partial-admission search (FAS-14 via ``search_counts``), and
the per-entry values the cycle reads (usage, admission, scan progress, attempts text).
"""

from __future__ import annotations

from datetime import datetime
from typing import Mapping, Sequence

from ..assignment import AssignmentGates, FlavorAssignment, QuotaCheckStrategy, assign_flavors, search_counts
from ..flavors import ResourceFlavor
from ..model import FlavorAssignmentMode, PodSetUsage, Target, Workload
from ..preemption import get_targets
from ..quota import Snapshot
from .config import CycleConfig
from .entry import Mode, Nomination
from .queues import ScanProgress

__all__ = ["nominate", "flavors_considered", "admission_pod_sets"]

_MODES = {
    FlavorAssignmentMode.FIT: Mode.FIT,
    FlavorAssignmentMode.PREEMPT: Mode.PREEMPT,
    FlavorAssignmentMode.NO_FIT: Mode.NO_FIT,
}


def _gates(config: CycleConfig) -> AssignmentGates:
    return AssignmentGates(
        flavor_fungibility=config.flavor_fungibility,
        preserve_scan_progress=config.preserve_scan_progress,
        partial_admission=config.partial_admission,
        unadmitted_workloads_observability=config.unadmitted_workloads_observability,
    )


def _progress_arg(progress: ScanProgress | None) -> list[dict[str, int]] | None:
    """The recorded ``tried`` values as the assigner takes them (FAS-12: by position)."""
    if progress is None:
        return None
    out: list[dict[str, int]] = []
    for (i, r), v in sorted(progress.tried.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        while len(out) <= i:
            out.append({})
        out[i][r] = v
    return out


def _pins_arg(pins: Mapping[tuple[int, str], str] | None, names: Sequence[str]) -> dict[str, dict[str, str]] | None:
    # The assigner takes pins keyed by pod-set name (main's fa: nomination_mapping).
    if pins is None:
        return None
    out: dict[str, dict[str, str]] = {name: {} for name in names}
    for (i, r), f in pins.items():
        if i < len(names):
            out[names[i]][r] = f
    return out


def admission_pod_sets(a: FlavorAssignment) -> tuple[PodSetUsage, ...]:
    """SC-AD-1: per pod set in spec order, the flavors and the reported request of every
    resource that received a flavor."""
    out = []
    for ps in sorted(a.pod_sets, key=lambda p: p.spec_index):
        flavors = {r: f.flavor for r, f in ps.flavors.items()}
        usage = {r: ps.requests.get(r, 0) for r in flavors}
        out.append(PodSetUsage(name=ps.name, count=ps.count, flavors=flavors, usage=usage))
    return tuple(out)


def flavors_considered(a: FlavorAssignment) -> str:
    """SC-EVT-1 ``<F>``: the flavor attempts of every pod set, ``Fit`` without borrowing left out."""
    parts = []
    for ps in a.pod_sets:
        shown = []
        for at in ps.attempts:
            if at.mode is FlavorAssignmentMode.FIT and at.borrow == 0:
                continue
            text = f"preemptionMode={at.preemption_possibility.value}" if at.preemption_possibility else at.mode.value
            if at.borrow > 0:
                text += f";borrow={at.borrow}"
            if at.reasons:
                text += ";" + ";".join(at.reasons)
            shown.append(f"{at.flavor}({text})")
        if shown:
            parts.append(f"{ps.name}: " + ", ".join(shown))
    return " | ".join(parts)


def _nomination(a: FlavorAssignment, targets: Sequence[Target]) -> Nomination:
    tried: dict[tuple[int, str], int] = {(i, r): f.tried_flavor_idx for i, ps in enumerate(a.pod_sets) for r, f in ps.flavors.items()}
    pins = {(ps.spec_index, r): f.flavor for ps in a.pod_sets for r, f in ps.flavors.items()}
    return Nomination(
        mode=_MODES[a.mode],
        borrowing=a.borrowing,
        usage=a.usage,
        targets=tuple(targets),
        message=a.message,
        no_fit_reason=a.no_fit_reason,
        pod_sets=admission_pod_sets(a),
        progress=ScanProgress(tried=tried) if tried else None,
        pins=pins,
        flavors_considered=flavors_considered(a),
    )


def nominate(
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    flavors: Mapping[str, ResourceFlavor],
    config: CycleConfig,
    now: datetime,
    *,
    progress: ScanProgress | None = None,
    pins: Mapping[tuple[int, str], str] | None = None,
) -> Nomination:
    """SC-NOM-2: assign (resuming from ``progress``), find targets for ``Preempt``, and fall
    back to partial admission (FAS-14) when neither fits. ``snapshot`` is left unchanged.

    ``pins`` holds a recomputation to the flavors of its nomination (SC-PE-3a); the scan then
    starts from the first flavor (the caller passes no progress).
    """
    gates = _gates(config)
    quota_check = QuotaCheckStrategy.IGNORE_UNDECLARED if config.ignore_undeclared_resources else QuotaCheckStrategy.BLOCK_UNDECLARED
    prog = _progress_arg(progress) if config.flavor_fungibility else None
    pinned = _pins_arg(pins, [ps.name for ps in workload.spec_pod_sets])

    def run(counts: Sequence[int] | None) -> tuple[FlavorAssignment, list[Target]]:
        a = assign_flavors(
            workload,
            cluster_queue,
            snapshot,
            flavors,
            config=config.preemption,
            gates=gates,
            quota_check=quota_check,
            counts=counts,
            progress=prog,
            pinned=pinned,
            now=now,
        )
        targets: list[Target] = []
        if a.mode is FlavorAssignmentMode.PREEMPT:
            targets = get_targets(workload, cluster_queue, a.to_assignment(), snapshot, config.preemption, now)
        return a, targets

    full, targets = run(None)
    if full.mode is FlavorAssignmentMode.FIT or targets:
        return _nomination(full, targets)
    specs = workload.spec_pod_sets
    if config.partial_admission and any(ps.min_count is not None and ps.min_count < ps.count for ps in specs):

        def attempt(counts: list[int]) -> tuple[tuple[FlavorAssignment, list[Target]], bool]:
            a, t = run(counts)
            return (a, t), a.mode is FlavorAssignmentMode.FIT or bool(t)

        found, ok = search_counts([ps.count for ps in specs], [ps.min_count for ps in specs], attempt)
        if ok and found is not None:
            return _nomination(*found)
    return _nomination(full, [])

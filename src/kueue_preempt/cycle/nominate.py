"""A head's nomination: flavor assignment, targets, partial admission (SC-NOM-2).

Built on :func:`kueue_preempt.assignment.assign_flavors` (the one flavor assigner, entered
through its unchecked body ``run_assignment``) and :func:`kueue_preempt.get_targets`; this
module only adds what the scheduler does around them: resuming the scan from the recorded
progress (SC-FR-2), pinning flavors during a recomputation (SC-PE-3a), the partial-admission
search (FAS-14 via ``search_counts``), and the per-entry values the cycle reads (usage,
admission, scan progress, attempts text).
"""

from __future__ import annotations

from datetime import datetime
from typing import Hashable, Iterable, Mapping, Sequence

import attrs

from kueue_preempt._util.frozen import owned_map
from kueue_preempt.assignment import AssignmentGates, FlavorAssignment, QuotaCheckStrategy, search_counts
from kueue_preempt.assignment.args import AssignArgs, check_progress
from kueue_preempt.assignment.assigner import run_assignment
from kueue_preempt.assignment.oracle import OracleResult, judge_targets
from kueue_preempt.model.config import FeatureGates, PreemptionConfig
from kueue_preempt.model.flavors import ResourceFlavor
from kueue_preempt.model import Assignment, FlavorAssignmentMode, FlavorResource, PodSetUsage, Target, Workload
from kueue_preempt.preemption.common.trace import DecisionTrace
from kueue_preempt.preemption.targets import own_arguments_targets
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.entry import Mode, Nomination, stored_nomination
from kueue_preempt.cycle.queues import ScanProgress

__all__ = [
    "nominate",
    "nominate_assignment",
    "NominatedAssignment",
    "NominationMemo",
    "assignment_gates",
    "flavors_considered",
    "admission_pod_sets",
]

_MODES = {
    FlavorAssignmentMode.FIT: Mode.FIT,
    FlavorAssignmentMode.PREEMPT: Mode.PREEMPT,
    FlavorAssignmentMode.NO_FIT: Mode.NO_FIT,
}


def assignment_gates(feature_gates: FeatureGates) -> AssignmentGates:
    """The flavor assigner's gates (FAS-16), read from the one set of feature gates (SC-CFG-1)."""
    g = feature_gates
    return AssignmentGates(
        flavor_fungibility=g.flavor_fungibility,
        preserve_scan_progress=g.flavor_fungibility_preserve_scan_progress,
        partial_admission=g.partial_admission,
        reclaimable_pods=g.reclaimable_pods,
        unadmitted_workloads_observability=g.unadmitted_workloads_observability,
        vectorized_resource_requests=g.vectorized_resource_requests,
        quota_check_strategy=g.quota_check_strategy,
        concurrent_admission=g.concurrent_admission,
        topology_aware_scheduling=g.topology_aware_scheduling,
    )


# Bounds of the value-keyed tables of NominationMemo: a run repeats a few request shapes, and
# a stream of fresh ones must not grow the tables without limit (full: dropped, refilled).
_ASSIGNMENTS_LIMIT = 4096
_POD_SET_USAGES_LIMIT = 4096
_RESOURCE_ORDER_LIMIT = 4096


class NominationMemo:
    """What the nominations of one scheduling run share, owned by whoever owns the run.

    :class:`~kueue_preempt.cycle.incremental.CycleState` keeps one for its whole life and
    :func:`~kueue_preempt.cycle.schedule_cycle` one per call; :func:`nominate` without one
    builds a fresh one per call. Every table holds immutable values that are pure functions
    of their keys, so sharing them changes no result, only how often they are built:

    * ``gates`` — the assigner's gates of the feature gates the memo was built for: building
      and validating an ``AssignmentGates`` costs more than the rest of a small nomination's
      bookkeeping, and every nomination needs one;
    * ``assignments`` — the :class:`~kueue_preempt.model.Assignment` values the FA-6 oracle
      and SC-NOM-2 pass to ``get_targets``, by (ordered) requests and preempt set: the
      converters check every amount, and a run repeats a few request shapes;
    * ``pod_set_usages`` — the :class:`~kueue_preempt.model.PodSetUsage` values of admissions
      (SC-AD-1), by their (ordered) fields, for the same reason;
    * ``resource_order`` — the FAS-19 sort key of each resource name, handed to the flavor
      assigner through its arguments (:class:`~kueue_preempt.assignment.args.AssignArgs`).
    """

    __slots__ = ("feature_gates", "gates", "assignments", "pod_set_usages", "resource_order")

    def __init__(self, config: CycleConfig) -> None:
        self.feature_gates = config.gates
        self.gates = assignment_gates(config.gates)
        self.assignments: dict[tuple[tuple[tuple[FlavorResource, int], ...], tuple[FlavorResource, ...]], Assignment] = {}
        self.pod_set_usages: dict[tuple[str, int, tuple[tuple[str, str], ...], tuple[tuple[str, int], ...]], PodSetUsage] = {}
        self.resource_order: dict[str, tuple[int, str]] = {}

    def gates_for(self, config: CycleConfig) -> AssignmentGates:
        """The assigner's gates of ``config`` (the memo's own when built for the same gates)."""
        if config.gates is self.feature_gates:
            return self.gates
        return assignment_gates(config.gates)

    def assignment(self, requests: Mapping[FlavorResource, int], preempt: Iterable[FlavorResource]) -> Assignment:
        """``Assignment(requests=requests, preempt=preempt)``, shared with an equal earlier one."""
        key = (tuple(requests.items()), tuple(preempt))
        table = self.assignments
        found = table.get(key)
        if found is None:
            found = Assignment(requests=requests, preempt=key[1])
            if len(table) >= _ASSIGNMENTS_LIMIT:
                table.clear()
            table[key] = found
        return found

    def pod_set_usage(self, name: str, count: int, flavors: dict[str, str], usage: dict[str, int]) -> PodSetUsage:
        """``PodSetUsage(...)`` of these fields, shared with an equal earlier one."""
        key = (name, count, tuple(flavors.items()), tuple(usage.items()))
        table = self.pod_set_usages
        found = table.get(key)
        if found is None:
            found = PodSetUsage(name=name, count=count, flavors=flavors, usage=usage)
            if len(table) >= _POD_SET_USAGES_LIMIT:
                table.clear()
            table[key] = found
        return found

    def order_table(self) -> dict[str, tuple[int, str]]:
        """The FAS-19 key table, emptied first when full (bounded like the others)."""
        table = self.resource_order
        if len(table) >= _RESOURCE_ORDER_LIMIT:
            table.clear()
        return table


class _RememberingOracle:
    """FA-6 as :class:`~kueue_preempt.assignment.TargetsOracle` answers it, remembering each
    :func:`get_targets` result for the rest of one nomination.

    A nomination asks ``get_targets`` twice for the same question when a single-resource head
    ends in ``Preempt`` mode: the oracle asks for ``{fr: amount}`` and then SC-NOM-2 asks
    again for the whole assignment — the same request on the same, unchanged snapshot (the
    assigner leaves it as it found it). ``get_targets`` is a function of those inputs, so the
    second answer is the first one.
    """

    def __init__(self, config: PreemptionConfig, now: datetime, memo: NominationMemo) -> None:
        self.config = config
        self.now = now
        self.memo = memo
        self._known: dict[Assignment, list[Target]] = {}

    def targets(
        self,
        workload: Workload,
        cluster_queue: str,
        assignment: Assignment,
        snapshot: Snapshot,
        trace: DecisionTrace | None = None,
    ) -> list[Target]:
        known = self._known.get(assignment) if trace is None else None
        if known is None:
            # A traced question is answered afresh so that its steps reach the trace.
            known = self._known[assignment] = own_arguments_targets(
                workload, cluster_queue, assignment, snapshot, self.config, self.now, trace
            )
        return list(known)

    def __call__(
        self, workload: Workload, cluster_queue: str, fr: FlavorResource, amount: int, snapshot: Snapshot, /
    ) -> OracleResult:
        targets = self.targets(workload, cluster_queue, self.memo.assignment({fr: amount}, (fr,)), snapshot)
        return judge_targets(targets, cluster_queue, fr, amount, snapshot)


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


def _checked(records: list[dict[str, int]] | None) -> tuple[dict[str, int], ...] | None:
    """``check_progress(records, "assign_flavors")`` for the records :func:`_progress_arg`
    built (a list of dicts: the generic iterable and mapping tests are known to pass), with the
    same checks of every name and index, in the same order, and the same errors."""
    if records is None:
        return None
    for record in records:
        for resource, idx in record.items():
            if type(resource) is not str or type(idx) is not int or idx < -1:
                check_progress(records, "assign_flavors")  # raises, naming the first bad entry
    return tuple(records)


def _pins_arg(pins: Mapping[tuple[str, str], str] | None) -> dict[str, dict[str, str]] | None:
    """The nomination mapping as the assigner takes it: pod-set name -> {resource: flavor}."""
    if pins is None:
        return None
    out: dict[str, dict[str, str]] = {}
    for (name, r), f in pins.items():
        out.setdefault(name, {})[r] = f
    return out


def admission_pod_sets(a: FlavorAssignment, memo: NominationMemo | None = None) -> tuple[PodSetUsage, ...]:
    """SC-AD-1: per pod set in spec order, the flavors and the reported request of every
    resource that received a flavor. ``memo`` shares equal values with earlier admissions."""
    out = []
    for ps in sorted(a.pod_sets, key=lambda p: p.spec_index):
        flavors = {r: f.flavor for r, f in ps.flavors.items()}
        usage = {r: ps.requests.get(r, 0) for r in flavors}
        if memo is None:
            out.append(PodSetUsage(name=ps.name, count=ps.count, flavors=flavors, usage=usage))
        else:
            out.append(memo.pod_set_usage(ps.name, ps.count, flavors, usage))
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


def _nomination(
    a: FlavorAssignment, targets: Sequence[Target], stamp: tuple[int, int, Hashable], memo: NominationMemo
) -> Nomination:
    # Both maps are built here for the nomination alone: frozen without a copy (owned_map).
    tried: dict[tuple[int, str], int] = {}
    pins: dict[tuple[str, str], str] = {}
    for i, ps in enumerate(a.pod_sets):
        name = ps.name
        for r, f in ps.flavors.items():
            tried[(i, r)] = f.tried_flavor_idx
            pins[(name, r)] = f.flavor
    mode = _MODES[a.mode]
    # The admission and the <F> text are read only when the head is admitted as nominated
    # (SC-AD-1, SC-EVT-1), i.e. for a Fit: most nominations of a busy cluster are not.
    fit = mode is Mode.FIT
    return stored_nomination(
        mode,
        a.borrowing,
        a.usage,  # the assigner's frozen map
        tuple(targets),
        "" if fit else a.message,  # FAS-21a: a Fit has no message
        a.no_fit_reason,
        admission_pod_sets(a, memo) if fit else (),
        # Stamped here, once: stamping a finished nomination copied it and its progress (SC-FR-3).
        ScanProgress(owned_map(tried), *stamp) if tried else None,
        owned_map(pins),
        flavors_considered(a) if fit else "",
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
    pins: Mapping[tuple[str, str], str] | None = None,
    generation: int = 0,
    cycle: int = 0,
    shape: Hashable = None,
    memo: NominationMemo | None = None,
) -> Nomination:
    """SC-NOM-2: assign (resuming from ``progress``), find targets for ``Preempt``, and fall
    back to partial admission (FAS-14) when neither fits. ``snapshot`` is left unchanged.

    ``pins`` holds a recomputation to the flavors of its nomination (SC-PE-3a); the scan then
    starts from the first flavor (the caller passes no progress). ``generation``, ``cycle``
    and ``shape`` are written into the returned scan progress (what SC-FR-3 later compares).
    ``memo`` is the run's :class:`NominationMemo` (``None``: a fresh one for this call).
    """
    if memo is None:
        memo = NominationMemo(config)
    found = nominate_assignment(workload, cluster_queue, snapshot, flavors, config, now, progress=progress, pins=pins, memo=memo)
    return _nomination(found.assignment, found.targets, (generation, cycle, shape), memo)


@attrs.frozen
class NominatedAssignment:
    """A head's flavor assignment as the cycle nominates it (SC-NOM-2), before the cycle's
    bookkeeping: the assignment, its targets (empty unless ``Preempt`` found some) and whether
    it is a partial admission's reduced counts (FAS-14)."""

    assignment: FlavorAssignment
    targets: tuple[Target, ...]
    partial: bool


def nominate_assignment(
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    flavors: Mapping[str, ResourceFlavor],
    config: CycleConfig,
    now: datetime,
    *,
    progress: ScanProgress | None = None,
    pins: Mapping[tuple[str, str], str] | None = None,
    memo: NominationMemo | None = None,
    trace: DecisionTrace | None = None,
) -> NominatedAssignment:
    """The decision part of :func:`nominate` (SC-NOM-2, FAS-13, FAS-14), with an optional
    decision ``trace``: what :func:`kueue_preempt.explain` reports for one workload, so an
    explanation and the cycle agree by construction. ``snapshot`` is left unchanged."""
    if memo is None:
        memo = NominationMemo(config)
    gates = memo.gates_for(config)
    quota_check = QuotaCheckStrategy.IGNORE_UNDECLARED if config.ignore_undeclared_resources else QuotaCheckStrategy.BLOCK_UNDECLARED
    prog = _progress_arg(progress) if config.flavor_fungibility else None
    pinned = _pins_arg(pins)
    oracle = _RememberingOracle(config.preemption, now, memo)
    # The assigner's arguments, as check_assign_args would normalise them. Everything but the
    # recorded progress is the scheduler's own (its models, gates and oracle built above, pins
    # from its nomination, counts from search_counts), so only the progress — which a caller's
    # QueueState carries — is checked, with the assigner's own check and error.
    checked = AssignArgs(
        flavors={rf.name: rf for rf in flavors.values()},
        strategy=quota_check,
        counts=None,
        progress=_checked(prog),
        pinned=pinned,
        resource_order=memo.order_table(),
    )

    def run(counts: Sequence[int] | None) -> tuple[FlavorAssignment, list[Target]]:
        args = checked if counts is None else attrs.evolve(checked, counts=tuple(counts))
        a = run_assignment(workload, cluster_queue, snapshot, args, config.preemption, gates, oracle, now, trace)
        targets: list[Target] = []
        if a.mode is FlavorAssignmentMode.PREEMPT:
            targets = oracle.targets(
                workload, cluster_queue, memo.assignment(a.total_requests(), a.preempt_flavor_resources()), snapshot, trace
            )
        return a, targets

    full, targets = run(None)
    if full.mode is FlavorAssignmentMode.FIT or targets:
        return NominatedAssignment(full, tuple(targets), False)
    specs = workload.spec_pod_sets
    if config.partial_admission and any(ps.min_count is not None and ps.min_count < ps.count for ps in specs):

        def attempt(counts: list[int]) -> tuple[tuple[FlavorAssignment, list[Target]], bool]:
            a, t = run(counts)
            return (a, t), a.mode is FlavorAssignmentMode.FIT or bool(t)

        found, ok = search_counts([ps.count for ps in specs], [ps.min_count for ps in specs], attempt)
        if ok and found is not None:
            return NominatedAssignment(found[0], tuple(found[1]), True)
    return NominatedAssignment(full, (), False)

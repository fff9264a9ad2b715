"""``assign_flavors``: Kueue's flavor assignment for a pending workload (FAS-2, FAS-18..FAS-24).

Pod-set groups are assigned one after the other (FAS-18); inside a group each requested
resource is visited in FNV order (FAS-19) and the resource group covering it is scanned
(:func:`~kueue_preempt.assignment.scan.scan`). Attempts are merged per group (FAS-23) and the
assignment's no-fit reason is derived at the end (FAS-24).
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterable, Mapping, Sequence

from kueue_preempt._util.frozen import FrozenMap, frozen_map, owned_map
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model.flavors import PodSetSpec, ResourceFlavor, ResourceGroup, groups_of_quota_keys
from kueue_preempt.model import ClusterQueue, FlavorAssignmentMode, FlavorResource, Workload
from kueue_preempt.model.quantity import amount_add
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.preemption.common.trace import DecisionTrace, Verdict
from kueue_preempt.assignment import messages
from kueue_preempt.assignment.args import AssignArgs, check_assign_args
from kueue_preempt.assignment.gates import AssignmentGates, QuotaCheckStrategy
from kueue_preempt.assignment.oracle import PreemptionOracle, TargetsOracle
from kueue_preempt.assignment.requests import PodSetRequest, fnv_order, group_requests, pod_set_groups, pod_set_requests
from kueue_preempt.assignment.result import (
    FlavorAssignment,
    FlavorAttempt,
    NoFitReason,
    PodSetAssignment,
    PodSetStatus,
    ResourceAssignment,
    assignment_mode,
    flavor_resource,
    mode_rank,
    most_severe,
    severity,
    stored_assignment,
    stored_pod_set,
)
from kueue_preempt.assignment.scan import ScanContext, scan

__all__ = ["assign_flavors", "run_assignment"]

_POSSIBILITY_RANK = {"NoCandidates": 0, "Preempt": 1, "Reclaim": 2}


def _merge(old: FlavorAttempt, new: FlavorAttempt) -> FlavorAttempt:
    """FAS-23 (1): lower mode, max borrow, lowest non-null possibility, union, most severe."""
    poss = [p for p in (old.preemption_possibility, new.preemption_possibility) if p is not None]
    return FlavorAttempt(
        old.flavor,
        min(old.mode, new.mode, key=mode_rank),
        max(old.borrow, new.borrow),
        min(poss, key=lambda p: _POSSIBILITY_RANK[p.value]) if poss else None,
        old.reasons + new.reasons,
        most_severe(old.no_fit_reason, new.no_fit_reason),
    )


def _merge_attempts(
    ctx: ScanContext, merged: dict[str, FlavorAttempt], new: Sequence[FlavorAttempt], resource: str
) -> None:
    """FAS-23: merge a scan's attempts for ``resource`` into the group's map."""
    if not merged:  # the group's first scan: nothing to merge with, nothing left unexamined
        for at in new:
            merged[at.flavor] = _merge(merged[at.flavor], at) if at.flavor in merged else at
        return
    earlier = set(merged)
    examined = set()
    for at in new:
        examined.add(at.flavor)
        merged[at.flavor] = _merge(merged[at.flavor], at) if at.flavor in merged else at
    if not new:
        return
    found = ctx.group_for(resource)
    listed = set(found[1].flavor_names) if found is not None else set()
    nfr = NoFitReason.NO_MATCHING_FLAVOR if ctx.gates.unadmitted_workloads_observability else ""
    for flavor in earlier - examined:
        if flavor in listed:
            # FAS-23 (2): Kueue's text means "not examined for this resource".
            old = merged[flavor]
            merged[flavor] = FlavorAttempt(
                flavor,
                FlavorAssignmentMode.NO_FIT,
                old.borrow,
                old.preemption_possibility,
                old.reasons + (messages.does_not_provide(flavor, resource),),
                most_severe(old.no_fit_reason, nfr),
            )


def _no_fit_reason(ctx: ScanContext, pod_sets: Sequence[PodSetAssignment], mode: FlavorAssignmentMode) -> str:
    """FAS-24: the least severe blocker per resource group, the most severe across groups."""
    if mode is not FlavorAssignmentMode.NO_FIT or not ctx.gates.unadmitted_workloads_observability:
        return ""
    overall = ""
    for ps in pod_sets:
        if ps.mode is not FlavorAssignmentMode.NO_FIT:
            continue
        if not ps.attempts:
            overall = most_severe(overall, NoFitReason.NO_MATCHING_FLAVOR)
            continue
        per_group: dict[int, str] = {}
        for j, at in enumerate(ps.attempts):
            if at.mode is not FlavorAssignmentMode.NO_FIT:
                continue
            groups = [i for i, g in enumerate(ctx.groups) if at.flavor in g.flavor_names] or [-1 - j]
            for g in groups:
                if g not in per_group or severity(at.no_fit_reason) < severity(per_group[g]):
                    per_group[g] = at.no_fit_reason
        worst = ""
        for reason in per_group.values():
            worst = most_severe(worst, reason)
        overall = most_severe(overall, worst)
    return overall


def assign_flavors(
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    resource_flavors: Mapping[str, ResourceFlavor] | Iterable[ResourceFlavor],
    *,
    config: PreemptionConfig = PreemptionConfig(),
    gates: AssignmentGates = AssignmentGates(),
    quota_check: QuotaCheckStrategy | str = QuotaCheckStrategy.BLOCK_UNDECLARED,
    oracle: PreemptionOracle | None = None,
    counts: Sequence[int] | None = None,
    progress: Sequence[Mapping[str, int]] | None = None,
    pinned: Mapping[str, Mapping[str, str]] | None = None,
    now: datetime | None = None,
    trace: DecisionTrace | None = None,
) -> FlavorAssignment:
    """Kueue's flavor assignment of ``workload``'s pod sets in ``cluster_queue`` (FAS-1..FAS-25).

    See :mod:`kueue_preempt.assignment` for the full contract. ``snapshot`` is read, never
    changed (the default oracle works inside :meth:`Snapshot.preserved`). Every argument is
    checked first: a wrong type or value raises :class:`~kueue_preempt.errors.InvalidArgument`
    naming the parameter.

    Cost: for each pod set and resource group, one fit test (O(F · d) quota walk, Q-9) per
    flavor tried, in flavor order until the fungibility policy stops the scan (FAS-4..FAS-12);
    with the default oracle a flavor that needs preemption adds one
    :func:`~kueue_preempt.get_targets` call (FA-6).
    """
    checked = check_assign_args(
        "assign_flavors", workload, cluster_queue, snapshot, resource_flavors,
        config, gates, quota_check, oracle, counts, progress, pinned, now, trace,
    )  # fmt: skip
    return run_assignment(workload, cluster_queue, snapshot, checked, config, gates, oracle, now, trace)


class _Plan:
    """What an assignment computes before its first scan (FAS-1/1a/14 requests, FAS-18
    groups and their totals, FAS-19 order, FAS-4 group lookups), shared by the assignments of
    the same pod sets in the same ClusterQueue.

    Every part is a function of the workload's pod sets and reclaimable pods, the
    ClusterQueue (its resource groups), the reclaimable-pods gate and the probe's counts —
    immutable objects, matched by identity (:func:`_plan`) — so a shared plan is the one the
    assignment would build. Nothing in it is written after it is built.
    """

    __slots__ = ("specs", "reclaimable", "cq", "groups", "group_of", "units")

    def __init__(
        self,
        specs: tuple[PodSetSpec, ...],
        reclaimable: Mapping[str, int],
        cq: ClusterQueue,
        groups: tuple[ResourceGroup, ...],
        group_of: dict[str, tuple[int, ResourceGroup] | None],
        units: list[_Unit],
    ) -> None:
        self.specs = specs
        self.reclaimable = reclaimable
        self.cq = cq
        self.groups = groups
        self.group_of = group_of
        self.units = units


# One pod-set group (FAS-18): its members (with their frozen request maps, as the result
# stores them), the group's totals, its resources in FNV order (FAS-19), and per resource
# the group's requests the scan judges (filled by the scans).
_Unit = tuple[
    list[PodSetRequest], list[FrozenMap[str, int]], dict[str, int], list[str], dict[str, list[tuple[str, int]]]
]

# Bounded like the other value tables: a run repeats a few thousand pending shapes at most,
# and a stream of fresh ones must not grow it without limit (full: dropped, refilled).
_PLANS: dict[tuple[int, int, int, bool, tuple[int, ...] | None], _Plan] = {}
_PLANS_LIMIT = 4096


def _plan(
    workload: Workload, cq: ClusterQueue, reclaimable_pods: bool, counts: tuple[int, ...] | None,
    resource_order: dict[str, tuple[int, str]] | None,
) -> _Plan:
    """The :class:`_Plan` of this assignment, shared with an earlier one of the same inputs."""
    specs, reclaimable = workload.spec_pod_sets, workload.reclaimable_pods
    key = (id(specs), id(reclaimable), id(cq), reclaimable_pods, counts)
    plan = _PLANS.get(key)
    # The entry holds the objects, so while it is stored no other object can have their ids;
    # the identity test states that instead of relying on it.
    if plan is not None and plan.specs is specs and plan.reclaimable is reclaimable and plan.cq is cq:
        return plan
    groups = cq.resource_groups or groups_of_quota_keys(cq.quotas)
    group_of: dict[str, tuple[int, ResourceGroup] | None] = {}
    covers_pods = _first_group(groups, group_of, "pods") is not None
    requests = pod_set_requests(workload, covers_pods=covers_pods, reclaimable_pods=reclaimable_pods, counts=counts)
    units: list[_Unit] = []
    for members in pod_set_groups(requests):
        total = group_requests(members)
        frozen = [frozen_map(m.requests) for m in members]
        units.append((members, frozen, total, fnv_order(total, resource_order), {}))
    plan = _Plan(specs, reclaimable, cq, groups, group_of, units)
    if len(_PLANS) >= _PLANS_LIMIT:
        _PLANS.clear()
    _PLANS[key] = plan
    return plan


def _first_group(
    groups: tuple[ResourceGroup, ...], table: dict[str, tuple[int, ResourceGroup] | None], resource: str
) -> tuple[int, ResourceGroup] | None:
    """FAS-4 as :meth:`ScanContext.group_for` answers it, filling the same table."""
    if resource in table:
        return table[resource]
    found: tuple[int, ResourceGroup] | None = None
    for i, g in enumerate(groups):
        if resource in g.covered_resources:
            found = i, g
            break
    table[resource] = found
    return found


def run_assignment(
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    checked: AssignArgs,
    config: PreemptionConfig,
    gates: AssignmentGates,
    oracle: PreemptionOracle | None,
    now: datetime | None,
    trace: DecisionTrace | None,
) -> FlavorAssignment:
    """:func:`assign_flavors` on arguments :func:`~.args.check_assign_args` has checked.

    The partial-admission search calls this once per probe, so the checks run once per decision.
    """
    if not workload.spec_pod_sets:
        # Kueue's API requires at least one pod set; a model built for preemption only (no
        # spec) would otherwise silently read as an empty NoFit assignment.
        raise InvalidModel(f"Workload {workload.key}", "spec_pod_sets", "is empty: the flavor assigner reads spec.podSets")
    node = snapshot.cluster_queue(cluster_queue)
    cq = node.cluster_queue
    assert cq is not None
    strategy = checked.strategy
    plan = _plan(workload, cq, gates.reclaimable_pods, checked.counts, checked.resource_order)
    ctx = ScanContext(
        workload=workload,
        cq=cq,
        node=node,
        snapshot=snapshot,
        groups=plan.groups,
        flavors=checked.flavors,
        gates=gates,
        fair_sharing=config.fair_sharing is not None,
        oracle=oracle if oracle is not None else TargetsOracle(config, now),
        progress=checked.progress,
        pinned=checked.pinned,
        trace=trace,
        group_of=plan.group_of,
        resource_order=checked.resource_order,
    )
    ignore_undeclared = strategy is QuotaCheckStrategy.IGNORE_UNDECLARED and gates.quota_check_strategy
    pod_sets: list[PodSetAssignment] = []
    usage: dict[FlavorResource, int] = {}
    borrowing = 0
    for members, frozen, total, order, rg_requests in plan.units:
        flavors: dict[str, ResourceAssignment] = {}
        reasons: list[str] = []
        error: str | None = None
        attempts: dict[str, FlavorAttempt] = {}
        for resource in order:
            if ctx.group_for(resource) is None:
                if total[resource] == 0 or ignore_undeclared:
                    continue  # FAS-3: ignored, no flavor, no reason
                reason = messages.resource_unavailable(resource)
                ctx.note(Verdict.NO_TARGETS, "FAS-3", reason)
                flavors, reasons = {}, [reason]
                break
            if resource in flavors:
                continue  # assigned by an earlier scan of its resource group
            result = scan(ctx, members, total, resource, usage, rg_requests)
            _merge_attempts(ctx, attempts, result.attempts, resource)
            if result.error is not None or not result.flavors:
                flavors, reasons, error = {}, result.reasons, result.error
                break
            flavors.update(result.flavors)  # FAS-25: a later scan's entries replace earlier ones
            reasons.extend(result.reasons)
        status = PodSetStatus(reasons, error)
        group_attempts = tuple(sorted(attempts.values(), key=_attempt_order)) if len(attempts) > 1 else tuple(attempts.values())
        stop = False
        for m, m_requests in zip(members, frozen):
            own = {r: flavors[r] for r in m.requests if r in flavors}
            pod_sets.append(  # own is only read from here on: frozen without a copy
                stored_pod_set(m.spec.name, m.count, owned_map(own), status, m_requests, group_attempts, m.index)
            )
            for r, choice in own.items():
                borrowing = max(borrowing, choice.borrow)
                fr = flavor_resource(choice.flavor, r)
                usage[fr] = amount_add(usage.get(fr, 0), m.requests[r])
            stop = stop or error is not None or (bool(m.requests) and not own)
        if stop:
            break
    mode = assignment_mode(pod_sets)
    # usage is built here and read only through the result from now on; its amounts are
    # saturated sums of the requests (in [0, UNLIMITED]) and borrowing a height (>= 0).
    return stored_assignment(tuple(pod_sets), borrowing, owned_map(usage), _no_fit_reason(ctx, pod_sets, mode), mode)


def _attempt_order(a: FlavorAttempt) -> bytes:
    # FAS-23: attempts by flavor name in byte order.
    return a.flavor.encode()

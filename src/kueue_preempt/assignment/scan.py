"""One flavor scan: judge each flavor of a resource group and choose one (FAS-5a..FAS-11).

:class:`ScanContext` holds what every scan of one assignment shares (the ClusterQueue, the
snapshot, the flavors handed to the assigner, the oracle, gates). :func:`scan` is FAS-10a (or
FAS-11 with the ``FlavorFungibility`` gate off): it walks the group's flavors from the
recorded start, skips the ones the pod sets cannot use (FAS-5a), judges the others resource by
resource (FAS-6, FAS-7a) and stops as ``flavorFungibility`` says (FAS-10).
"""

from __future__ import annotations

from typing import Mapping, Sequence

import attrs

from kueue_preempt.model.flavors import FlavorFungibility, ResourceFlavor, ResourceGroup
from kueue_preempt.model import ClusterQueue, FlavorAssignmentMode, FlavorResource, PreemptionPolicy, Workload
from kueue_preempt.model.quantity import amount_add, amount_sub, format_amount
from kueue_preempt.snapshot.quota import QuotaNode, Snapshot
from kueue_preempt.preemption.common.trace import DecisionTrace, Verdict
from kueue_preempt.assignment import messages
from kueue_preempt.assignment.gates import AssignmentGates
from kueue_preempt.assignment.matching import first_untolerated_taint, match_selector
from kueue_preempt.assignment.modes import (
    GranularMode,
    PreemptionMode,
    api_mode,
    is_preferred,
    mode_of_possibility,
    possibility_of,
    should_try_next_flavor,
)
from kueue_preempt.assignment.oracle import PreemptionOracle
from kueue_preempt.assignment.requests import PodSetRequest, fnv_order
from kueue_preempt.assignment.result import FlavorAttempt, NoFitReason, ResourceAssignment, flavor_resource, most_severe

__all__ = ["ScanContext", "ScanResult", "scan", "ALLOWED_FLAVORS_ANNOTATION"]

ALLOWED_FLAVORS_ANNOTATION = "kueue.x-k8s.io/workload-allowed-resource-flavors"


@attrs.define
class ScanContext:
    """Everything the scans of one assignment share (read-only during the assignment)."""

    workload: Workload
    cq: ClusterQueue
    node: QuotaNode
    snapshot: Snapshot
    groups: tuple[ResourceGroup, ...]
    flavors: Mapping[str, ResourceFlavor]
    gates: AssignmentGates
    fair_sharing: bool
    oracle: PreemptionOracle
    progress: Sequence[Mapping[str, int]] | None
    pinned: Mapping[str, Mapping[str, str]] | None
    trace: DecisionTrace | None
    allowed: frozenset[str] | None = attrs.field(init=False)
    # FAS-4 lookups memoised by ``groups``: a caller that passes the same groups again (the
    # assigner, per ClusterQueue) may pass the same table, shared across assignments.
    _group_of: dict[str, tuple[int, ResourceGroup] | None] = attrs.field(factory=dict)
    # FAS-19 sort keys the caller keeps across assignments (AssignArgs.resource_order).
    resource_order: dict[str, tuple[int, str]] | None = None
    # FAS-15's "every flavor of the ClusterQueue is a TAS flavor", computed when first read:
    # only a TAS flavor offered to a pod set without a topology request reads it.
    _tas_only: bool | None = attrs.field(init=False, default=None)

    def __attrs_post_init__(self) -> None:
        self.allowed = None
        if self.gates.concurrent_admission:
            raw = self.workload.annotations.get(ALLOWED_FLAVORS_ANNOTATION)
            if raw is not None:
                # FAS-20: comma-separated, surrounding whitespace trimmed; blank allows nothing.
                self.allowed = frozenset(p.strip() for p in raw.split(",") if p.strip())

    @property
    def tas_only(self) -> bool:
        """FAS-15: every flavor of every resource group is a TAS flavor (and there is one)."""
        found = self._tas_only
        if found is None:
            names = [f.name for g in self.groups for f in g.flavors]
            found = self._tas_only = bool(names) and all(
                n in self.flavors and self.flavors[n].topology_name is not None for n in names
            )
        return found

    def group_for(self, resource: str) -> tuple[int, ResourceGroup] | None:
        """FAS-4: the first resource group covering ``resource``."""
        try:
            return self._group_of[resource]
        except KeyError:
            pass
        found: tuple[int, ResourceGroup] | None = None
        for i, g in enumerate(self.groups):
            if resource in g.covered_resources:
                found = i, g
                break
        self._group_of[resource] = found
        return found

    def may_preempt_while_borrowing(self) -> bool:
        """FAS-6: ``borrowWithinCohort`` not Never, or fair sharing with reclaim not Never.

        Policies are compared as stored: an unset field is not ``Never`` (POL-8).
        """
        prem = self.cq.preemption
        bwc = prem.borrow_within_cohort
        if bwc is not None and bwc.policy is not PreemptionPolicy.NEVER:
            return True
        return self.fair_sharing and prem.reclaim_within_cohort is not PreemptionPolicy.NEVER

    def note(self, verdict: Verdict, rule: str, detail: str) -> None:
        if self.trace is not None:
            self.trace.add(verdict, rule, detail, self.workload.key, self.cq.name)


# The starting representative mode of every judgement (GranularMode is immutable: shared).
_FIT_0 = GranularMode(PreemptionMode.FIT, 0)


@attrs.define
class _Judgement:
    rep: GranularMode
    max_borrow: int
    reasons: list[str]
    no_fit_reason: str
    assigned: dict[str, ResourceAssignment]


def _judge(
    ctx: ScanContext, flavor: str, requests: Sequence[tuple[str, int]], usage: Mapping[FlavorResource, int]
) -> _Judgement:
    """FAS-7a over the group's requested resources (FAS-6 for each, in FNV order)."""
    snapshot, node = ctx.snapshot, ctx.node
    preference = ctx.cq.flavor_fungibility.preference
    j = _Judgement(_FIT_0, 0, [], "", {})
    for resource, request in requests:  # every resource is judged, even after a noFit
        fr = flavor_resource(flavor, resource)
        assumed = usage.get(fr, 0)
        val = amount_add(assumed, request)
        pot = snapshot.potential_available(node, fr)
        if val > pot:
            mode = GranularMode(PreemptionMode.NO_FIT, 0)
            j.reasons.append(messages.insufficient_quota(resource, flavor, assumed, request, pot))
            nfr = NoFitReason.EXCEEDS_MAX_QUOTA
        else:
            height, may_reclaim, available = snapshot.fitting_height_and_available(node, fr, val)
            if val <= available:
                mode, nfr = GranularMode(PreemptionMode.FIT, height), NoFitReason.NONE
            else:
                # The nominal quota is read only here: a fitting resource (the usual case) never needs it.
                quota = ctx.cq.quotas.get(fr)
                nominal = quota.nominal if quota is not None else 0
                j.reasons.append(messages.insufficient_unused_quota(resource, flavor, amount_sub(val, available)))
                if nominal >= val or may_reclaim or ctx.may_preempt_while_borrowing():
                    found = ctx.oracle(ctx.workload, ctx.cq.name, fr, val, snapshot)
                    mode = GranularMode(mode_of_possibility(found.possibility), found.borrowing_level)
                    nfr = NoFitReason.NONE
                else:
                    mode, nfr = GranularMode(PreemptionMode.NO_FIT, height), NoFitReason.WAITING_FOR_QUOTA
        if nfr:  # most_severe(x, "") is x: only a reason can change it
            j.no_fit_reason = most_severe(j.no_fit_reason, nfr)
        if mode.borrowing_level > j.max_borrow:
            j.max_borrow = mode.borrowing_level
        if is_preferred(j.rep, mode, preference):
            j.rep = mode
        if j.rep.preemption_mode is not PreemptionMode.NO_FIT:
            j.assigned[resource] = ResourceAssignment(
                flavor, api_mode(mode.preemption_mode), -1, mode.borrowing_level
            )
        if ctx.trace is not None:  # the f-string costs more than the judgement: only for a trace
            ctx.note(Verdict.INFO, "FAS-6", f"flavor {flavor}, resource {resource}: request {format_amount(val, resource)} -> {mode}")
    return j


@attrs.define
class ScanResult:
    """What one scan contributes: flavors per resource, status reasons/error, attempts."""

    flavors: dict[str, ResourceAssignment]
    reasons: list[str]
    error: str | None
    attempts: list[FlavorAttempt]


def _skip_reason(
    ctx: ScanContext, members: Sequence[PodSetRequest], resource: str, flavor: str
) -> tuple[str, bool, str, str | None] | None:
    """FAS-5a: why ``flavor`` is skipped: (reason, records an attempt, rule, error) or None."""
    pinned = ctx.pinned
    if pinned is not None and not any(pinned.get(m.spec.name, {}).get(resource) == flavor for m in members):
        return messages.not_in_nomination(flavor, resource), False, "FAS-5a", None
    if ctx.allowed is not None and flavor not in ctx.allowed:
        return messages.not_allowed_by_annotation(flavor), False, "FAS-20", None
    rf = ctx.flavors.get(flavor)
    if rf is None:
        return messages.flavor_not_found(flavor), True, "FAS-5a", None
    for m in members:
        spec = m.spec
        if (
            ctx.gates.topology_aware_scheduling
            and rf.topology_name is not None
            and not spec.topology_request
            and not ctx.tas_only
        ):
            return messages.tas_only(flavor), True, "FAS-15", None
        # Shortcuts, exact by FAS-5/FAS-5b: a flavor without taints has none to tolerate, and
        # one without labels matches every selector and affinity (only its keys take part).
        if rf.node_taints:
            taint = first_untolerated_taint(rf.node_taints, spec.tolerations + rf.tolerations)
            if taint is not None:
                return messages.untolerated_taint(taint, flavor), True, "FAS-5", None
        if rf.node_labels:
            selector = match_selector(spec, rf)
            if selector.error is not None:
                return "", True, "FAS-5b", selector.error
            if not selector.matches:
                return messages.affinity_mismatch(flavor), True, "FAS-5", None
    return None


def _start(ctx: ScanContext, members: Sequence[PodSetRequest], resource: str) -> int:
    """FAS-12: resume after the recorded index of (first member, resource); -1/none = 0."""
    if ctx.progress is None or not ctx.gates.flavor_fungibility:
        return 0
    first = members[0].index
    if first >= len(ctx.progress):
        return 0
    recorded = ctx.progress[first].get(resource)
    if recorded is None or recorded == -1:
        return 0
    return recorded + 1


def scan(
    ctx: ScanContext,
    members: Sequence[PodSetRequest],
    requests: Mapping[str, int],
    resource: str,
    usage: Mapping[FlavorResource, int],
    known: dict[str, list[tuple[str, int]]] | None = None,
) -> ScanResult:
    """FAS-10a (FAS-11 with the gate off) for the resource group covering ``resource``.

    ``known``: the group's requests judged per resource, kept by a caller that scans the same
    ``requests`` in the same ClusterQueue again (a function of those two, filled here)."""
    found = ctx.group_for(resource)
    assert found is not None  # the caller handles uncovered resources (FAS-3)
    _, group = found
    rg_requests = None if known is None else known.get(resource)
    if rg_requests is None:
        covered = set(group.covered_resources)
        rg_requests = [(r, requests[r]) for r in fnv_order((r for r in requests if r in covered), ctx.resource_order)]
        if known is not None:
            known[resource] = rg_requests
    fungible = ctx.gates.flavor_fungibility
    fungibility: FlavorFungibility = ctx.cq.flavor_fungibility
    preference = fungibility.preference
    reasons: list[str] = []
    attempts: list[FlavorAttempt] = []
    best: dict[str, ResourceAssignment] | None = None
    best_mode = GranularMode(PreemptionMode.NO_FIT, 2**63)
    last = -1
    names = group.flavor_names
    start = _start(ctx, members, resource)
    uwo = ctx.gates.unadmitted_workloads_observability
    for k in range(start, len(names)):
        last = k
        flavor = names[k]
        skipped = _skip_reason(ctx, members, resource, flavor)
        if skipped is not None:
            reason, records, rule, error = skipped
            if error is not None:
                attempts.append(FlavorAttempt(flavor, FlavorAssignmentMode.NO_FIT, 0, None, (), ""))
                ctx.note(Verdict.SKIPPED, rule, f"flavor {flavor}: node affinity cannot be parsed: {error}")
                return ScanResult({}, reasons, error, attempts)
            reasons.append(reason)
            if records:
                nfr = NoFitReason.NO_MATCHING_FLAVOR if uwo else ""
                attempts.append(FlavorAttempt(flavor, FlavorAssignmentMode.NO_FIT, 0, None, (reason,), nfr))
            if ctx.trace is not None:
                ctx.note(Verdict.SKIPPED, rule, f"flavor {flavor} for {resource}: {reason}")
            continue
        j = _judge(ctx, flavor, rg_requests, usage)
        reasons.extend(j.reasons)
        pm = j.rep.preemption_mode
        attempts.append(
            FlavorAttempt(
                flavor, api_mode(pm), j.max_borrow, possibility_of(pm), j.reasons, j.no_fit_reason if uwo else ""
            )
        )
        if ctx.trace is not None:
            ctx.note(Verdict.CANDIDATE, "FAS-7a", f"flavor {flavor} for {resource}: representative mode {j.rep}")
        if fungible:
            if not should_try_next_flavor(j.rep, fungibility):
                best, best_mode = j.assigned, j.rep
                if ctx.trace is not None:
                    ctx.note(Verdict.INFO, "FAS-10", f"flavor {flavor} for {resource}: the scan stops here")
                break
            if is_preferred(j.rep, best_mode, preference):
                best, best_mode = j.assigned, j.rep
        else:
            # FAS-11: strictly higher preemption mode wins; the first fit ends the scan.
            if pm > best_mode.preemption_mode or (best is None and pm is not PreemptionMode.NO_FIT):
                best, best_mode = j.assigned, j.rep
            if pm is PreemptionMode.FIT:
                if ctx.trace is not None:
                    ctx.note(Verdict.INFO, "FAS-11", f"flavor {flavor} for {resource}: fits, the scan stops here")
                break
    if best is None:
        if ctx.trace is not None:
            ctx.note(Verdict.NO_TARGETS, "FAS-10", f"no flavor for {resource}")
        return ScanResult({}, reasons, None, attempts)
    if ctx.trace is not None:
        chosen_flavor = next(iter(best.values())).flavor if best else "(none)"
        ctx.note(Verdict.TAKEN, "FAS-10", f"flavor {chosen_flavor} for {resource}: chosen, mode {best_mode}")
    if fungible:
        idx = -1 if last == len(names) - 1 else last
    else:
        idx = 0
    # The judgement's entries carry index -1: reused as they are when that is the index.
    chosen = best if idx == -1 else {r: ResourceAssignment(a.flavor, a.mode, idx, a.borrow) for r, a in best.items()}
    if best_mode.preemption_mode is PreemptionMode.FIT:
        return ScanResult(chosen, [], None, attempts)
    return ScanResult(chosen, reasons, None, attempts)

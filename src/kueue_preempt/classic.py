"""Classic (non fair-sharing) preemption (CL-*, GT-*, FB-*).

Reading guide: :func:`classic_targets` builds the three candidate buckets (same queue,
hierarchy, priority), orders them (CL-GEN-7), picks the attempt list (CL-ATT-1) and runs the
attempts (CL-ATT-2); helpers below it classify (CL-VAR-1), collect (CL-GEN-3) and validate
(CL-VALID-1). The snapshot is restored by value on return (GT-3).
"""

from __future__ import annotations

from datetime import datetime
from typing import Iterator

from ._context import Candidate, DecisionContext
from .config import PreemptionConfig
from .fill_back import fill_back
from .model import Assignment, PreemptionPolicy, PreemptionReason, Target, Workload
from .ordering import sort_by_ordering
from .policy import borrow_within_cohort_forbidden, policy_allows
from .trace import DecisionTrace
from .quota import QuotaNode, Snapshot
from .trace import Verdict

__all__ = ["classic_targets"]

# CL-VAR-1 variants.
_NEVER = 0
_WITHIN_CQ = 1
_HIERARCHICAL_RECLAIM = 2
_RECLAIM_WITHOUT_BORROWING = 3
_RECLAIM_WHILE_BORROWING = 4

_REASON = {  # CL-VAR-2: fixed at classification
    _WITHIN_CQ: PreemptionReason.IN_CLUSTER_QUEUE,
    _HIERARCHICAL_RECLAIM: PreemptionReason.IN_COHORT_RECLAMATION,
    _RECLAIM_WITHOUT_BORROWING: PreemptionReason.IN_COHORT_RECLAMATION,
    _RECLAIM_WHILE_BORROWING: PreemptionReason.IN_COHORT_RECLAIM_WHILE_BORROWING,
}


def classic_targets(
    preemptor: Workload,
    cluster_queue: str,
    assignment: Assignment,
    snapshot: Snapshot,
    config: PreemptionConfig = PreemptionConfig(),
    now: datetime | None = None,
    trace: DecisionTrace | None = None,
) -> list[Target]:
    """Workloads to evict so that ``preemptor`` fits in ``cluster_queue`` (classic, CL-*).

    Returns a complete target set or ``[]`` (GT-4), in Kueue's order (GT-7). ``snapshot`` is
    left exactly as it was (GT-3); no argument is mutated. ``now`` defaults to the current
    time, sampled once (ORD-8).

    Complexity: O(n log n) to order the n candidates, plus O(k · r · depth) quota checks for
    the k removals and r requested FlavorResources.
    """
    ctx = DecisionContext(preemptor, cluster_queue, assignment, snapshot, config, now, trace)
    tr = ctx.trace
    if ctx.blocked_by_np_quota:
        if tr is not None:
            tr.add(Verdict.NO_TARGETS, "NP-7", "non-preemptible preemptor would exceed its nominal quota (NP-6)")
        return []
    with snapshot.preserved():
        ordered, attempts = _plan(ctx)
        for allow_borrowing in attempts:
            selected = _run_attempt(ctx, ordered, allow_borrowing)
            if selected:
                return ctx.targets(selected)
    if tr is not None:
        tr.add(Verdict.NO_TARGETS, "GT-4", "no attempt found a complete target set")
    return []


def _plan(ctx: DecisionContext) -> tuple[list[Candidate], list[bool]]:
    """Candidate order (CL-GEN-7) and attempt list (CL-ATT-1)."""
    same_queue = _same_queue_candidates(ctx)
    hierarchy, priority = _cohort_candidates(ctx)
    afs = ctx.config.admission_fair_sharing
    buckets = [sort_by_ordering(b, _key_of, _workload_of, afs) for b in (hierarchy, priority, same_queue)]
    ordered = [c for b in buckets for c in b if c.workload.evicted]
    ordered += [c for b in buckets for c in b if not c.workload.evicted]

    no_other = not hierarchy and not priority  # CL-GEN-8: raw buckets
    no_hier = not hierarchy
    forbidden = borrow_within_cohort_forbidden(ctx.cq)
    node = ctx.node
    under = all(node.subtree_quota.get(fr, 0) > node.usage.get(fr, 0) for fr in ctx.frnp)
    if no_other or (forbidden and not under):
        attempts = [True]
    elif forbidden and no_hier:
        attempts = [False, True]
    else:
        attempts = [True, False]
    if ctx.must_not_borrow:
        attempts = [False]  # NP-8 strict mode
    if ctx.trace is not None:
        names = ", ".join("borrowing allowed" if a else "no borrowing" for a in attempts)
        ctx.trace.add(
            Verdict.INFO,
            "NP-8" if ctx.must_not_borrow else "CL-ATT-1",
            f"attempts: [{names}] (borrowWithinCohort forbidden={forbidden}, under nominal={under}, "
            f"cohort candidates={not no_other}, hierarchy candidates={not no_hier})",
        )
    return ordered, attempts


def _classify(ctx: DecisionContext, c: Candidate, advantage: bool) -> int:
    """CL-VAR-1: the variant of candidate ``c``; ``_NEVER`` drops it."""
    variant, rule, why = _variant(ctx, c, advantage)
    if ctx.trace is not None:
        if variant == _NEVER:
            ctx.trace.add(Verdict.FILTERED, rule, why, c.workload.key, c.node.name)
        else:
            ctx.trace.add(
                Verdict.CANDIDATE,
                "CL-VAR-1",
                f"{_VARIANT_NAME[variant]} (priority {c.priority}), reason {_REASON[variant].value}",
                c.workload.key,
                c.node.name,
            )
    return variant


_VARIANT_NAME = {
    _WITHIN_CQ: "within ClusterQueue",
    _HIERARCHICAL_RECLAIM: "hierarchical reclaim",
    _RECLAIM_WITHOUT_BORROWING: "reclaim without borrowing",
    _RECLAIM_WHILE_BORROWING: "reclaim while borrowing",
}
_POLICY_RULE = {
    PreemptionPolicy.LOWER_PRIORITY: "POL-1",
    PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY: "POL-2",
    PreemptionPolicy.ANY: "POL-3",
    PreemptionPolicy.NEVER: "POL-4",
}


def _variant(ctx: DecisionContext, c: Candidate, advantage: bool) -> tuple[int, str, str]:
    """CL-VAR-1 steps 1-7, with the rule and sentence that explain a drop."""
    w = c.workload
    if w.used_flavor_resources.isdisjoint(ctx.frnp):
        return _NEVER, "POL-9", "uses none of the flavor/resources that need preemption"
    same = c.node is ctx.node
    prem = ctx.cq.preemption
    policy = prem.within_cluster_queue if same else prem.reclaim_within_cohort
    if not policy_allows(policy, ctx.priority, c.priority, ctx.queue_time, ctx.candidate_queue_time(w)):
        field = "withinClusterQueue" if same else "reclaimWithinCohort"
        return (
            _NEVER,
            _POLICY_RULE[policy],
            f"{field}={policy.value} does not allow it (priority {c.priority} vs preemptor {ctx.priority})",
        )
    if ctx.protected(w):
        # NP-3: after the policy (NP-4), before the flags (CL-GEN-8).
        return _NEVER, "NP-3", "non-preemptible (WorkloadPriorityClass preemptionPolicy=Never)"
    return _candidate_variant(ctx, c, same, advantage), "", ""


def _candidate_variant(ctx: DecisionContext, c: Candidate, same: bool, advantage: bool) -> int:
    """CL-VAR-1 steps 3-7 for a candidate that passed the filters."""
    prem = ctx.cq.preemption
    if same:
        return _WITHIN_CQ
    if advantage:
        return _HIERARCHICAL_RECLAIM
    bwc = prem.borrow_within_cohort
    if borrow_within_cohort_forbidden(ctx.cq) or bwc is None:
        return _RECLAIM_WITHOUT_BORROWING
    threshold = bwc.max_priority_threshold
    if c.priority >= ctx.priority or (threshold is not None and c.priority > threshold):
        return _RECLAIM_WITHOUT_BORROWING
    return _RECLAIM_WHILE_BORROWING


def _same_queue_candidates(ctx: DecisionContext) -> list[Candidate]:
    """CL-GEN-1: the preemptor's own ClusterQueue."""
    if ctx.cq.preemption.within_cluster_queue is PreemptionPolicy.NEVER:
        return []
    out = []
    for w in ctx.node.workloads.values():
        c = ctx.candidate(w, ctx.node)
        variant = _classify(ctx, c, False)
        if variant != _NEVER:
            c.variant = variant
            c.reason = _REASON[variant]
            out.append(c)
    return out


def _cohort_candidates(ctx: DecisionContext) -> tuple[list[Candidate], list[Candidate]]:
    """CL-GEN-2/3: walk the ancestors bottom-up, filling the hierarchy and priority buckets."""
    hierarchy: list[Candidate] = []
    priority: list[Candidate] = []
    node = ctx.node
    if node.parent is None or ctx.cq.preemption.reclaim_within_cohort is PreemptionPolicy.NEVER:
        return hierarchy, priority
    snapshot = ctx.snapshot
    advantage, remaining = snapshot.fit_probe(node, ctx.requests)
    previous: QuotaNode = node
    for ancestor in node.ancestors():
        bucket = hierarchy if advantage else priority
        for queue in _over_nominal_queues(ctx, ancestor, previous):
            for w in queue.workloads.values():
                c = ctx.candidate(w, queue)
                variant = _classify(ctx, c, advantage)
                if variant != _NEVER:
                    c.variant = variant
                    c.reason = _REASON[variant]
                    c.lca = ancestor
                    bucket.append(c)
        fits_here, remaining = snapshot.fit_probe(ancestor, remaining)
        advantage = advantage or fits_here  # CL-GEN-4
        previous = ancestor
    return hierarchy, priority


def _over_nominal_queues(ctx: DecisionContext, ancestor: QuotaNode, skip: QuotaNode) -> Iterator[QuotaNode]:
    """CL-GEN-3 ``collect``: CQs over nominal on FRNP inside over-quota child subtrees.

    Iterative depth-first walk (child cohorts, then child CQs, by name; CL-GEN-7a) that
    skips the child already searched at the level below and the preemptor's own queue.
    """
    frnp = ctx.frnp
    within = Snapshot.within_nominal
    tr = ctx.trace
    stack: list[QuotaNode] = [ancestor]
    while stack:
        node = stack.pop()
        for k in reversed(node.child_cohorts):
            if k is skip:
                continue
            if not within(k, frnp):
                stack.append(k)
            elif tr is not None:
                tr.add(Verdict.INFO, "CL-GEN-5", f"cohort {k.name} is within its quota: its subtree is protected")
        for q in node.child_queues:
            if q is ctx.node or q is skip:
                continue
            if not within(q, frnp):
                yield q
            elif tr is not None:
                tr.add(
                    Verdict.INFO, "CL-GEN-5", "within nominal: its workloads are not candidates", cluster_queue=q.name
                )


def _invalid_rule(ctx: DecisionContext, c: Candidate, allow_borrowing: bool) -> str:
    """CL-VALID-1 against the current snapshot: ``""`` if valid, else the deciding rule."""
    if c.node is ctx.node:
        return ""
    if allow_borrowing and c.variant == _RECLAIM_WITHOUT_BORROWING:
        return "CL-VAR-3"
    frnp = ctx.frnp
    if Snapshot.within_nominal(c.node, frnp):
        return "CL-VALID-1"
    for n in c.node.ancestors():
        if n is c.lca:
            break
        if Snapshot.within_nominal(n, frnp):
            return "CL-VALID-1"
    return ""


def _run_attempt(ctx: DecisionContext, ordered: list[Candidate], allow_borrowing: bool) -> list[Candidate]:
    """CL-ATT-2: one attempt; the snapshot is back to its entry state on return."""
    snapshot = ctx.snapshot
    tr = ctx.trace
    mode = "borrowing allowed" if allow_borrowing else "no borrowing"
    if tr is not None:
        tr.add(Verdict.INFO, "CL-ATT-2", f"attempt with {mode}")
    with snapshot.preserved():
        selected: list[Candidate] = []
        for c in ordered:
            rule = _invalid_rule(ctx, c, allow_borrowing)
            if rule:
                if tr is not None:
                    tr.add(Verdict.SKIPPED, rule, _INVALID_WHY[rule], c.workload.key, c.node.name)
                continue
            snapshot.remove_workload(c.workload)
            selected.append(c)
            if tr is not None:
                tr.add(Verdict.TAKEN, "CL-ATT-2", f"removed ({mode})", c.workload.key, c.node.name)
            if ctx.fits(allow_borrowing):
                if tr is not None:
                    tr.add(Verdict.INFO, "GT-5", f"the preemptor fits ({mode}); minimising")
                return fill_back(snapshot, selected, _workload_of, lambda: ctx.fits(allow_borrowing), tr)
    if tr is not None:
        tr.add(Verdict.INFO, "CL-ATT-2", f"attempt with {mode} found no complete target set")
    return []


_INVALID_WHY = {
    "CL-VAR-3": "reclaim-without-borrowing candidates are not usable while the preemptor borrows",
    "CL-VALID-1": "its ClusterQueue (or a cohort below the common ancestor) is no longer over quota",
}


def _workload_of(c: Candidate) -> Workload:
    return c.workload


def _key_of(c: Candidate) -> tuple[object, ...]:
    return c.key

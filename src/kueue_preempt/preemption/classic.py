"""Classic (non fair-sharing) preemption (CL-*, GT-*, FB-*).

Reading guide: :func:`classic_targets` builds the three candidate buckets (same queue,
hierarchy, priority), orders them (CL-GEN-7), picks the attempt list (CL-ATT-1) and runs the
attempts (CL-ATT-2); helpers below it classify (CL-VAR-1), collect (CL-GEN-3) and validate
(CL-VALID-1). The snapshot is restored by value on return (GT-3).
"""

from __future__ import annotations

import heapq
from datetime import datetime
from typing import Callable, Generic, Iterable, Iterator, TypeVar

from kueue_preempt.preemption.common.context import NO_PRIORITY, Candidate, DecisionContext, check_decision_args, workloads_in_order
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.preemption.fill_back import fill_back
from kueue_preempt.snapshot.entries import Entry, split_sorted
from kueue_preempt.snapshot.index import CandidateIndex
from kueue_preempt.model import Assignment, PreemptionPolicy, PreemptionReason, Target, Workload
from kueue_preempt.preemption.common.ordering import sort_by_ordering
from kueue_preempt.preemption.common.policy import borrow_within_cohort_forbidden, policy_rule
from kueue_preempt.preemption.common.trace import DecisionTrace
from kueue_preempt.snapshot.quota import QuotaNode, Snapshot
from kueue_preempt.preemption.common.trace import Verdict

__all__ = ["classic_targets"]

T = TypeVar("T")

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
    *,
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
    check_decision_args("classic_targets", preemptor, cluster_queue, assignment, snapshot, config, now, trace)
    return checked_classic_targets(preemptor, cluster_queue, assignment, snapshot, config=config, now=now, trace=trace)


def checked_classic_targets(
    preemptor: Workload,
    cluster_queue: str,
    assignment: Assignment,
    snapshot: Snapshot,
    *,
    config: PreemptionConfig,
    now: datetime | None,
    trace: DecisionTrace | None,
) -> list[Target]:
    """:func:`classic_targets` on arguments :func:`check_decision_args` has checked (for
    :func:`~kueue_preempt.get_targets`, which checks them itself)."""
    ctx = DecisionContext(preemptor, cluster_queue, assignment, snapshot, config, now, trace)
    tr = ctx.trace
    if ctx.blocked_by_np_quota():
        return []
    with snapshot.preserved():
        orders, attempts, needs = _plan(ctx)
        for allow_borrowing in attempts:
            # CL-GEN-6: the queues an attempt reads are listed before its first removal, from
            # the entry state (an earlier attempt's changes are undone by now).
            for sources in needs[allow_borrowing]:
                sources.force()
            selected = _run_attempt(ctx, orders[allow_borrowing], allow_borrowing)
            if selected:
                return ctx.targets(selected)
    if tr is not None:
        tr.add(Verdict.NO_TARGETS, "GT-4", "no attempt found a complete target set")
    return []


def _plan(
    ctx: DecisionContext,
) -> tuple[dict[bool, Iterable[Candidate]], list[bool], dict[bool, list[_Lazy[_Source]]]]:
    """Candidate order per attempt (CL-GEN-7), attempt list (CL-ATT-1), and per attempt the
    lazily listed sources it reads (to be listed in full before the attempt starts)."""
    prem = ctx.cq.preemption
    h_src, p_src, s_src = _sources(ctx)
    # Policies bound priorities (POL-1/2): with stored entries the buckets stop there.
    cohort_bound = ctx.policy_bound(prem.reclaim_within_cohort) if ctx.fast else None
    hierarchy = _bucket(ctx, h_src, cohort_bound)
    priority = _bucket(ctx, p_src, cohort_bound)
    same_queue = _bucket(ctx, s_src, ctx.policy_bound(prem.within_cluster_queue) if ctx.fast else None)
    # CL-GEN-7: evicted(h) ++ evicted(p) ++ evicted(s) ++ rest(h) ++ rest(p) ++ rest(s).
    ordered = _Chain([hierarchy[0], priority[0], same_queue[0], hierarchy[1], priority[1], same_queue[1]])
    orders: dict[bool, Iterable[Candidate]] = {True: ordered, False: ordered}
    lazy = [x for x in (h_src, p_src) if isinstance(x, _Lazy)]
    needs = {True: lazy, False: lazy}
    if ctx.fast:
        # With borrowing allowed, priority-bucket candidates at or above this priority are
        # reclaim-without-borrowing and skipped (CL-VAR-3). The bucket is in priority order
        # (ORD-4 after the constant ORD-1/ORD-2), so that attempt stops there instead.
        var3 = _while_borrowing_bound(ctx)
        # Without borrowWithinCohort every priority-bucket candidate is reclaim-without-borrowing:
        # that attempt does not even start the bucket's merge.
        below: list[Iterable[Candidate]] = (
            [(), ()] if var3 == NO_PRIORITY else [_Below(priority[0], var3), _Below(priority[1], var3)]
        )
        orders[True] = _Chain([hierarchy[0], below[0], same_queue[0], hierarchy[1], below[1], same_queue[1]])
        if var3 == NO_PRIORITY:
            needs[True] = [x for x in lazy if x is not p_src]

    forbidden = borrow_within_cohort_forbidden(ctx.cq)
    node = ctx.node
    # CL-ATT-1's "under" is strict (usage < nominal), unlike Q-12's within nominal (<=).
    under = all(node.subtree_quota.get(fr, 0) > node.usage.get(fr, 0) for fr in ctx.frnp)
    # CL-GEN-8 on the raw buckets, asked only when the attempt list depends on it (a
    # within-ClusterQueue decision without borrowWithinCohort, over nominal, never asks).
    no_hier = no_other = False
    if ctx.must_not_borrow:
        attempts = [False]  # NP-8 strict mode
    elif forbidden and not under:
        attempts = [True]
    else:
        no_hier = not hierarchy[0] and not hierarchy[1]
        no_other = no_hier and not priority[0] and not priority[1]
        if no_other:
            attempts = [True]
        elif forbidden and no_hier:
            attempts = [False, True]
        else:
            attempts = [True, False]
    if ctx.trace is not None:
        no_hier = not hierarchy[0] and not hierarchy[1]
        no_other = no_hier and not priority[0] and not priority[1]
        names = ", ".join("borrowing allowed" if a else "no borrowing" for a in attempts)
        ctx.trace.add(
            Verdict.INFO,
            "NP-8" if ctx.must_not_borrow else "CL-ATT-1",
            f"attempts: [{names}] (borrowWithinCohort forbidden={forbidden}, under nominal={under}, "
            f"cohort candidates={not no_other}, hierarchy candidates={not no_hier})",
        )
    return orders, attempts, needs


def _while_borrowing_bound(ctx: DecisionContext) -> int:
    """CL-VAR-1 steps 5-7: a priority-bucket candidate is reclaim-while-borrowing iff its
    priority is below this bound (else reclaim-without-borrowing)."""
    bwc = ctx.cq.preemption.borrow_within_cohort
    if borrow_within_cohort_forbidden(ctx.cq) or bwc is None:
        return NO_PRIORITY
    bound = ctx.priority
    threshold = bwc.max_priority_threshold
    if threshold is not None:
        bound = min(bound, threshold + 1)
    return bound


# A ClusterQueue whose workloads feed a bucket: (queue, lowest common ancestor, advantage).
_Source = tuple[QuotaNode, "QuotaNode | None", bool]


def _sources(ctx: DecisionContext) -> tuple[Iterable[_Source], Iterable[_Source], list[_Source]]:
    """CL-GEN-1..5: which queues feed the hierarchy, priority and same-queue buckets.

    Everything here reads the snapshot at entry (CL-GEN-6); classifying the workloads of
    these queues needs no snapshot state, so it can happen lazily later.
    """
    node = ctx.node
    prem = ctx.cq.preemption
    same: list[_Source] = [] if prem.within_cluster_queue is PreemptionPolicy.NEVER else [(node, None, False)]
    hierarchy: list[_Source] = []
    priority: list[_Source] = []
    if node.parent is None or prem.reclaim_within_cohort is PreemptionPolicy.NEVER:
        return hierarchy, priority, same  # CL-GEN-2
    snapshot = ctx.snapshot
    advantage, remaining = snapshot.fit_probe(node, ctx.requests)
    previous: QuotaNode = node
    h_levels: list[tuple[QuotaNode, QuotaNode, bool]] = []
    p_levels: list[tuple[QuotaNode, QuotaNode, bool]] = []
    for ancestor in node.ancestors():
        if not ctx.fast:  # a trace reports the walk in this order
            bucket = hierarchy if advantage else priority
            for queue in _over_nominal_queues(ctx, ancestor, previous):
                bucket.append((queue, ancestor, advantage))
        else:
            (h_levels if advantage else p_levels).append((ancestor, previous, advantage))
        fits_here, remaining = snapshot.fit_probe(ancestor, remaining)
        advantage = advantage or fits_here  # CL-GEN-4
        previous = ancestor
    if not ctx.fast:
        return hierarchy, priority, same
    # Untraced, each bucket's queues are listed when first needed: a bucket no attempt reads
    # (the cohort's, in a within-ClusterQueue decision) is never listed.
    return _Lazy(_level_queues(ctx, h_levels)), _Lazy(_level_queues(ctx, p_levels)), same


def _level_queues(ctx: DecisionContext, levels: list[tuple[QuotaNode, QuotaNode, bool]]) -> Iterator[_Source]:
    """CL-GEN-3's queues of each (ancestor, child searched below it, advantage) level."""
    for ancestor, previous, advantage in levels:
        for queue in _over_nominal_queues(ctx, ancestor, previous):
            yield queue, ancestor, advantage


def _bucket(
    ctx: DecisionContext, sources: Iterable[_Source], bound: int | None
) -> tuple[Iterable[Candidate], Iterable[Candidate]]:
    """One bucket's candidates in ORD order, split into (evicted, rest) (CL-GEN-7).

    With a current candidate index the per-queue sorted lists are merged lazily; otherwise the
    snapshot's stored entries are sorted (C tuple comparisons, no key computed). Either way
    only the candidates a decision reaches are classified, and only those below ``bound``
    (the policy's priority bound) are considered. Without stored entries for this
    configuration (other boost/cost switches, AFS) every workload is keyed, classified and
    the bucket sorted. All give the same sequence.
    """
    index = ctx.index
    if not sources:
        return (), ()
    if index is not None:
        return (
            _Lazy(_merged(ctx, index, sources, True, bound), _probe(ctx, index, sources, True, bound)),
            _Lazy(_merged(ctx, index, sources, False, bound), _probe(ctx, index, sources, False, bound)),
        )
    if ctx.entries and ctx.fast:  # a trace reports every candidate: it takes the full path
        return _sorted_entries(ctx, sources, bound)
    out = []
    for queue, lca, advantage in sources:
        for w in workloads_in_order(queue, ctx.config.admission_fair_sharing):
            c = ctx.candidate(w, queue)
            if _admit(ctx, c, lca, advantage):
                out.append(c)
    ordered = sort_by_ordering(out, _key_of, _workload_of, ctx.config.admission_fair_sharing)
    return [c for c in ordered if c.workload.evicted], [c for c in ordered if not c.workload.evicted]


def _sorted_entries(
    ctx: DecisionContext, sources: Iterable[_Source], bound: int | None
) -> tuple[Iterable[Candidate], Iterable[Candidate]]:
    """Default path: the sources' stored entries, sorted once (ORD-2 is constant in a bucket,
    so the entry order is the candidate order), split at ORD-1 and cut at ``bound``."""
    snapshot, frnp, now = ctx.snapshot, ctx.frnp, ctx.now
    entries: list[Entry] = []
    by_name: dict[str, _Source] = {}
    for source in sources:
        by_name[source[0].name] = source
        entries += snapshot.candidate_entries(source[0], frnp, now)
    entries.sort()
    evicted, rest = split_sorted(entries, bound)
    return _Lazy(_admitted(ctx, evicted, by_name)), _Lazy(_admitted(ctx, rest, by_name))


def _merged(
    ctx: DecisionContext, index: CandidateIndex, sources: Iterable[_Source], evicted: bool, bound: int | None
) -> Iterator[Candidate]:
    """Indexed path: the sources' sorted slices merged lazily (entries are unique tuples, so
    the merge compares them directly).

    A generator: the slices are looked up only when an attempt first reads the bucket, and
    the evicted half skips queues without evicted workloads (usually all of them)."""
    snapshot, frnp, now = ctx.snapshot, ctx.frnp, ctx.now
    if evicted and not index.any_evicted() and not snapshot.has_unreserved():
        return  # no queue holds an evicted workload (ORD-1's first half is empty)
    sources = sources.items() if isinstance(sources, _Lazy) else sources
    if evicted:
        sources = [s for s in sources if index.has_evicted(s[0].name) or s[0].unreserved]
        if not sources:
            return
    streams = [snapshot.candidate_stream(index, queue, frnp, now, evicted, bound) for queue, _, _ in sources]
    merged = streams[0] if len(streams) == 1 else heapq.merge(*streams)
    yield from _admitted(ctx, merged, {source[0].name: source for source in sources})


def _probe(
    ctx: DecisionContext, index: CandidateIndex, sources: Iterable[_Source], evicted: bool, bound: int | None
) -> Callable[[], bool] | None:
    """Is a bucket non-empty (CL-ATT-1 asks)? One queue's slice at a time, stopping at the first
    admitted candidate, so that a bucket no attempt reads is never merged (within-ClusterQueue
    preemption: the cohort's buckets). Not with a trace, which would see candidates twice."""
    if not ctx.fast:
        return None

    def probe() -> bool:
        if evicted and not index.any_evicted() and not ctx.snapshot.has_unreserved():
            return False
        for source in sources:
            queue = source[0]
            if evicted and not (index.has_evicted(queue.name) or queue.unreserved):
                continue
            stream = ctx.snapshot.candidate_stream(index, queue, ctx.frnp, ctx.now, evicted, bound)
            for _ in _admitted(ctx, stream, {queue.name: source}):
                return True
        return False

    return probe


def _admitted(ctx: DecisionContext, entries: Iterator[Entry], by_name: dict[str, _Source]) -> Iterator[Candidate]:
    for e in entries:
        queue, lca, advantage = by_name[e[5]]
        c = ctx.candidate_from_entry(e, queue)
        if _admit(ctx, c, lca, advantage):
            yield c


def _admit(ctx: DecisionContext, c: Candidate, lca: QuotaNode | None, advantage: bool) -> bool:
    """Classify ``c`` (CL-VAR-1) and record its variant, reason and LCA; False drops it."""
    variant = _classify(ctx, c, advantage)
    if variant == _NEVER:
        return False
    c.variant = variant
    c.reason = _REASON[variant]
    c.lca = lca
    return True


class _Lazy(Generic[T]):
    """A lazily filled, re-iterable sequence: attempts share the work of earlier ones."""

    def __init__(self, source: Iterator[T], probe: Callable[[], bool] | None = None) -> None:
        """``probe``: answers ``bool(self)`` before anything is read, more cheaply than
        reading the first item (see :func:`_probe`)."""
        self._source: Iterator[T] | None = source
        self._items: list[T] = []
        self._probe = probe

    def __iter__(self) -> Iterator[T]:
        i = 0
        while True:
            if i < len(self._items):
                yield self._items[i]
                i += 1
            elif self._source is None:
                return
            else:
                nxt = next(self._source, None)
                if nxt is None:
                    self._source = None
                    return
                self._items.append(nxt)

    def force(self) -> None:
        """Read the whole source now."""
        if self._source is not None:
            self._items.extend(self._source)
            self._source = None

    def items(self) -> list[T]:
        """Everything, as a list (read in full first)."""
        self.force()
        return self._items

    def __bool__(self) -> bool:
        if self._probe is not None and not self._items and self._source is not None:
            if self._probe():
                return True
            # The probe read every source and admitted nothing. What a bucket lists does not
            # depend on the usage an attempt removes (only the index, the queues listed at
            # entry and the candidates' own facts), so reading the source would find nothing
            # too: drop it instead of listing the same streams again in the attempt.
            self._source = None
            return False
        return next(iter(self), None) is not None


class _Below:
    """The prefix of a priority-ordered candidate sequence below ``bound``."""

    def __init__(self, source: Iterable[Candidate], bound: int) -> None:
        self._source = source
        self._bound = bound

    def __iter__(self) -> Iterator[Candidate]:
        bound = self._bound
        for c in self._source:
            if c.priority >= bound:
                return
            yield c


class _Chain(Generic[T]):
    """Re-iterable concatenation of re-iterable parts."""

    def __init__(self, parts: list[Iterable[T]]) -> None:
        self._parts = parts

    def __iter__(self) -> Iterator[T]:
        for part in self._parts:
            yield from part


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


def _variant(ctx: DecisionContext, c: Candidate, advantage: bool) -> tuple[int, str, str]:
    """CL-VAR-1 steps 1-7, with the rule and sentence that explain a drop."""
    w = c.workload
    if w.used_flavor_resources.isdisjoint(ctx.frnp):
        return _NEVER, "POL-9", "uses none of the flavor/resources that need preemption"
    same = c.node is ctx.node
    prem = ctx.cq.preemption
    policy = prem.within_cluster_queue if same else prem.reclaim_within_cohort
    if not ctx.allows(policy, c):
        field = "withinClusterQueue" if same else "reclaimWithinCohort"
        return (
            _NEVER,
            policy_rule(policy),
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


def _over_nominal_queues(ctx: DecisionContext, ancestor: QuotaNode, skip: QuotaNode) -> Iterator[QuotaNode]:
    """CL-GEN-3 ``collect``: CQs over nominal on FRNP inside over-quota child subtrees.

    Iterative depth-first walk (child cohorts, then child CQs, by name; CL-GEN-7a) that
    skips the child already searched at the level below and the preemptor's own queue.
    """
    frnp = ctx.frnp
    if ctx.fast:
        # The snapshot keeps which children are over quota: visit only those, not every child.
        # Source order does not change results here: candidate keys are a total order.
        todo = [ancestor]
        while todo:
            for k in Snapshot.over_children(todo.pop(), frnp):
                if k is skip or k is ctx.node:
                    continue
                if k.is_cluster_queue:
                    yield k
                else:
                    todo.append(k)
        return
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
    lca = c.lca
    over = ctx.over_quota
    for n in c.node.path:  # the queue, then its cohorts below the LCA
        if n is lca:
            break
        if not over(n):
            return "CL-VALID-1"
    return ""


def _run_attempt(ctx: DecisionContext, ordered: Iterable[Candidate], allow_borrowing: bool) -> list[Candidate]:
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
            snapshot.take_usage(c.node, c.workload)  # only usages are read from here on
            selected.append(c)
            if tr is not None:
                tr.add(Verdict.TAKEN, "CL-ATT-2", f"removed ({mode})", c.workload.key, c.node.name)
            if ctx.fits(allow_borrowing):
                if tr is not None:
                    tr.add(Verdict.INFO, "GT-5", f"the preemptor fits ({mode}); minimising")
                return fill_back(
                    snapshot,
                    selected,
                    _workload_of,
                    lambda: ctx.fits(allow_borrowing),
                    tr,
                    lambda c: ctx.fits_with(c, allow_borrowing),
                    lambda c: snapshot.return_usage(c.node, c.workload),
                )
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

"""Fair-sharing preemption (FS-CAND-*, FS-ORD-*, FS-LCA-*, FS-STRAT-*, FS-RUN-*, FS-NOM-1).

Reading guide: :func:`fair_targets` collects candidates (FS-CAND), simulates the preemptor's
usage, runs the first pass with the first strategy and, if needed, the second pass with
``LessThanInitialShare`` over the rejected candidates (FS-RUN-1..4), then minimises with
fill-back (FB). :class:`ClusterQueueOrdering` decides which ClusterQueue to take the next
victim from (FS-ORD): the most unfair one, descending from the root through the most unfair
cohorts.
"""

from __future__ import annotations

import heapq
from datetime import datetime
from typing import Any, Callable, Iterable, Iterator, Mapping, Sequence

from kueue_preempt._util.checks import arg, arg_iterable, optional_arg
from kueue_preempt.errors import InvalidArgument, UnknownClusterQueue
from kueue_preempt.preemption.common.context import Candidate, DecisionContext, check_decision_args, workloads_in_order
from kueue_preempt.model.config import FairSharingConfig, FairSharingStrategy, PreemptionConfig
from kueue_preempt.snapshot.drs import NEGATIVE_SHARE, DominantResourceShare, compare_drs, dominant_resource_share, drs_of, format_share
from kueue_preempt.preemption.fill_back import fill_back
from kueue_preempt.snapshot.entries import split_sorted
from kueue_preempt.snapshot.index import CandidateIndex
from kueue_preempt.model import Assignment, FlavorResource, PreemptionPolicy, PreemptionReason, Target, Workload
from kueue_preempt.preemption.common.ordering import sort_by_ordering
from kueue_preempt.preemption.common.policy import policy_rule

from kueue_preempt.preemption.common.trace import DecisionTrace, Verdict
from kueue_preempt.snapshot.quota import QuotaNode, Snapshot

__all__ = [
    "fair_targets",
    "ClusterQueueOrdering",
    "fair_shares",
    "target_share_after_removal",
    "strategy_allows",
    "ordering_for",
]

Strategy = Callable[[DominantResourceShare, DominantResourceShare, DominantResourceShare], bool]


def _less_than_or_equal_to_final_share(
    preemptor_new: DominantResourceShare, target_old: DominantResourceShare, target_new: DominantResourceShare
) -> bool:
    return compare_drs(preemptor_new, target_new) <= 0  # FS-STRAT-1 (S2-a)


def _less_than_initial_share(
    preemptor_new: DominantResourceShare, target_old: DominantResourceShare, target_new: DominantResourceShare
) -> bool:
    return compare_drs(preemptor_new, target_old) < 0  # FS-STRAT-2 (S2-b)


_STRATEGIES: dict[FairSharingStrategy, Strategy] = {
    FairSharingStrategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE: _less_than_or_equal_to_final_share,
    FairSharingStrategy.LESS_THAN_INITIAL_SHARE: _less_than_initial_share,
}
_STRATEGY_RULE = {
    FairSharingStrategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE: "FS-STRAT-1",
    FairSharingStrategy.LESS_THAN_INITIAL_SHARE: "FS-STRAT-2",
}


def strategy_allows(
    strategy: FairSharingStrategy,
    preemptor_new: DominantResourceShare,
    target_old: DominantResourceShare,
    target_new: DominantResourceShare,
) -> bool:
    """Does ``strategy`` allow preempting a workload, given the three shares (FS-STRAT-1/2)?"""
    if not isinstance(strategy, str) or strategy not in {s.value for s in FairSharingStrategy}:
        names = ", ".join(s.value for s in FairSharingStrategy)
        raise InvalidArgument("strategy_allows", "strategy", f"{strategy!r:.40} is not one of {names}")
    arg(preemptor_new, DominantResourceShare, "strategy_allows", "preemptor_new")
    arg(target_old, DominantResourceShare, "strategy_allows", "target_old")
    arg(target_new, DominantResourceShare, "strategy_allows", "target_new")
    return _STRATEGIES[FairSharingStrategy(strategy)](preemptor_new, target_old, target_new)


def fair_targets(
    preemptor: Workload,
    cluster_queue: str,
    assignment: Assignment,
    snapshot: Snapshot,
    *,
    config: PreemptionConfig = PreemptionConfig(fair_sharing=FairSharingConfig()),
    now: datetime | None = None,
    trace: DecisionTrace | None = None,
) -> list[Target]:
    """Workloads to evict so that ``preemptor`` fits in ``cluster_queue`` under fair sharing.

    Uses ``config.fair_sharing.preemption_strategies`` (Kueue's default list when
    ``config.fair_sharing`` is None). Returns a complete target set or ``[]`` (GT-4) and leaves
    ``snapshot`` exactly as it was (GT-3). ``borrowWithinCohort`` is ignored (FS-CFG-2).

    Complexity: O(n log n) to order the n candidates plus, per selection step, one DRS
    evaluation per ClusterQueue and cohort on the descent (O(tree · F · depth)).
    """
    check_decision_args("fair_targets", preemptor, cluster_queue, assignment, snapshot, config, now, trace)
    fs = config.fair_sharing or FairSharingConfig()
    ctx = DecisionContext(preemptor, cluster_queue, assignment, snapshot, config, now, trace)
    tr = ctx.trace
    if ctx.blocked_by_np_quota():
        return []
    allow_borrowing = not ctx.must_not_borrow  # NP-8 strict mode
    with snapshot.preserved():
        candidates = _candidates(ctx)
        if not any(candidates.values()):
            if tr is not None:
                tr.add(Verdict.NO_TARGETS, "FS-CAND-3", "no candidates")
            return []
        snapshot.add_usage(ctx.node, ctx.requests)  # FS-RUN-1: DRS must include the preemptor
        run = _Run(ctx)
        strategies = fs.preemption_strategies
        ok, retry = run.first_pass(candidates, strategies[0])
        if not ok and len(strategies) > 1:
            ok = run.second_pass(retry)
        snapshot.remove_usage(ctx.node, ctx.requests)
        if not ok:
            if tr is not None:
                tr.add(Verdict.NO_TARGETS, "FS-RUN-1", "no complete target set; every removal is undone")
            return []
        if tr is not None:
            tr.add(Verdict.INFO, "FB-1", "the preemptor fits; minimising")
        kept = fill_back(
            snapshot,
            run.targets,
            _workload_of,
            lambda: ctx.fits(allow_borrowing),
            tr,
            lambda c: ctx.fits_with(c, allow_borrowing),
        )
        return ctx.targets(kept)


def _workload_of(c: Candidate) -> Workload:
    return c.workload


def _key_of(c: Candidate) -> tuple[object, ...]:
    return c.key


def _candidates(ctx: DecisionContext) -> dict[QuotaNode, CandidateQueue]:
    """FS-CAND-1..3: own-queue and borrowing-queue candidates, per queue in ORD order.

    Without a current index, every candidate is built and the whole list sorted and grouped
    (FS-CAND-3). With one, each queue's candidates stream lazily from its sorted list; since
    ORD-2 is constant inside a queue, the per-queue order is the same.
    """
    prem = ctx.cq.preemption
    frnp = ctx.frnp
    tr = ctx.trace
    sources: list[tuple[QuotaNode, PreemptionPolicy, str]] = []
    if prem.within_cluster_queue is not PreemptionPolicy.NEVER:
        sources.append((ctx.node, prem.within_cluster_queue, "FS-CAND-1"))
    if ctx.node.parent is not None and prem.reclaim_within_cohort is not PreemptionPolicy.NEVER and ctx.fast:
        # The snapshot keeps the tree's over-nominal queues per FlavorResource: no walk over all.
        for node in Snapshot.borrowing_queues(ctx.node.root, frnp):
            if node is not ctx.node:
                sources.append((node, prem.reclaim_within_cohort, "FS-CAND-2"))
    elif ctx.node.parent is not None and prem.reclaim_within_cohort is not PreemptionPolicy.NEVER:
        within = Snapshot.within_nominal
        for node in ctx.snapshot.subtree(ctx.node.root):
            if not node.is_cluster_queue or node is ctx.node:
                continue
            if not within(node, frnp):  # Q-11 Borrowing(q, fr) on some fr of FRNP
                sources.append((node, prem.reclaim_within_cohort, "FS-CAND-2"))
            elif tr is not None:
                tr.add(Verdict.INFO, "FS-CAND-2", "not borrowing: its workloads are not candidates", cluster_queue=node.name)
    index = ctx.index
    # Untraced, a queue's first candidate is built only when the ordering reaches the queue's
    # cohort; a trace reports every queue's eligibility up front, as the full path does.
    eager = not ctx.fast
    if index is not None:
        return {
            node: CandidateQueue(_indexed(ctx, index, node, policy, rule), eager=eager) for node, policy, rule in sources
        }
    if ctx.entries and ctx.fast:
        return {node: CandidateQueue(_stored(ctx, node, policy, rule), eager=False) for node, policy, rule in sources}
    out = [
        c
        for node, policy, rule in sources
        for c in (ctx.candidate(w, node) for w in workloads_in_order(node, ctx.config.admission_fair_sharing))
        if _eligible(ctx, c, policy, rule)
    ]
    grouped: dict[QuotaNode, list[Candidate]] = {}
    for c in sort_by_ordering(out, _key_of, _workload_of, ctx.config.admission_fair_sharing):
        grouped.setdefault(c.node, []).append(c)
    return {node: CandidateQueue(iter(cands)) for node, cands in grouped.items()}


def _indexed(
    ctx: DecisionContext, index: CandidateIndex, node: QuotaNode, policy: PreemptionPolicy, rule: str
) -> Iterator[Candidate]:
    """One queue's eligible candidates, lazily, from the index (a function, not a generator
    expression, so that ``policy`` and ``rule`` are bound per queue)."""
    bound = ctx.policy_bound(policy) if ctx.fast else None
    snapshot = ctx.snapshot
    for entry in snapshot.candidate_stream(index, node, ctx.frnp, ctx.now, None, bound):  # ORD-1 included
        c = ctx.candidate_from_entry(entry, node)
        if _eligible(ctx, c, policy, rule):
            yield c


def _stored(ctx: DecisionContext, node: QuotaNode, policy: PreemptionPolicy, rule: str) -> Iterator[Candidate]:
    """Default path: one queue's stored entries sorted (ORD-2 is constant inside a queue, so
    entry order is candidate order), below the policy's priority bound, lazily classified."""
    entries = ctx.snapshot.candidate_entries(node, ctx.frnp, ctx.now)
    entries.sort()
    for part in split_sorted(entries, ctx.policy_bound(policy)):
        for entry in part:
            c = ctx.candidate_from_entry(entry, node)
            if _eligible(ctx, c, policy, rule):
                yield c


def _eligible(ctx: DecisionContext, c: Candidate, policy: PreemptionPolicy, rule: str) -> bool:
    """FS-CAND-1/2 filters: resources (POL-9), the policy, non-preemptible (NP-3)."""
    tr = ctx.trace
    w, node = c.workload, c.node
    if w.used_flavor_resources.isdisjoint(ctx.frnp):
        if tr is not None:
            tr.add(Verdict.FILTERED, "POL-9", "uses none of the flavor/resources that need preemption", w.key, node.name)
        return False
    if not ctx.allows(policy, c):
        if tr is not None:
            tr.add(
                Verdict.FILTERED,
                policy_rule(policy),
                f"policy {policy.value} does not allow it (priority {c.priority} vs preemptor {ctx.priority})",
                w.key,
                node.name,
            )
        return False
    if ctx.protected(w):
        if tr is not None:
            tr.add(Verdict.FILTERED, "NP-3", "non-preemptible (preemptionPolicy=Never)", w.key, node.name)
        return False
    if tr is not None:
        tr.add(Verdict.CANDIDATE, rule, f"priority {c.priority}", w.key, node.name)
    return True


class CandidateQueue:
    """One ClusterQueue's remaining candidates, in ORD order, consumed from the front.

    Backed by an iterator so that a decision only builds the candidates it reaches; the first
    one too is taken only when first needed (``eager=True`` takes it at once).
    """

    __slots__ = ("_source", "_head", "_primed")

    def __init__(self, source: Iterable[Candidate], *, eager: bool = True) -> None:
        self._source = iter(source)
        self._head: Candidate | None = None
        self._primed = False
        if eager:
            self._prime()

    def _prime(self) -> None:
        if not self._primed:
            self._primed = True
            self._head = next(self._source, None)

    def __bool__(self) -> bool:
        self._prime()
        return self._head is not None

    def head(self) -> Candidate:
        self._prime()
        if self._head is None:
            raise IndexError("no candidates left")
        return self._head

    def pop(self) -> Candidate:
        head = self.head()
        self._head = next(self._source, None)
        return head



class ClusterQueueOrdering:
    """FS-ORD-1..6: yields the ClusterQueue to take the next candidate from.

    After each yielded queue the caller must call :meth:`pop` (take its head candidate) or
    :meth:`drop` (prune the queue); the next step re-reads the snapshot's shares. Child
    cohorts and queues are visited by name, so equal-DRS cohort ties go to the largest name
    and equal-DRS queue ties whose heads compare equal go to the smallest name (FS-ORD-5).
    """

    def __init__(
        self,
        snapshot: Snapshot,
        preemptor_queue: QuotaNode,
        candidates: Sequence[Candidate] | Mapping[QuotaNode, CandidateQueue],
        trace: DecisionTrace | None = None,
        *,
        incremental: bool = False,
    ) -> None:
        """``incremental=True`` (used by fair-sharing decisions, ignored with a trace) keeps
        each cohort's children in heaps by DRS instead of recomputing every child's DRS at
        every step. Its contract: between two yields, only workloads of the queue last
        yielded are removed (as a decision does); the DRS of that queue and its ancestors
        are then recomputed, O(depth · log n) per step instead of O(children · depth)."""
        self._trace = optional_arg(trace, DecisionTrace, "ClusterQueueOrdering", "trace")
        self._snapshot = arg(snapshot, Snapshot, "ClusterQueueOrdering", "snapshot")
        self._preemptor = arg(preemptor_queue, QuotaNode, "ClusterQueueOrdering", "preemptor_queue")
        if isinstance(candidates, Mapping):
            self._queues = dict(candidates)
        else:
            grouped: dict[QuotaNode, list[Candidate]] = {}
            for c in arg_iterable(candidates, Candidate, "ClusterQueueOrdering", "candidates"):
                grouped.setdefault(c.node, []).append(c)
            self._queues = {node: CandidateQueue(cands) for node, cands in grouped.items()}
        self._pruned: set[QuotaNode] = set()
        self._ancestors = set(preemptor_queue.ancestors())
        self._heaps: _Heaps | None = _Heaps(self) if incremental and trace is None else None

    def __iter__(self) -> Iterator[QuotaNode]:
        p = self._preemptor
        if p.parent is None:  # FS-ORD-2
            while p not in self._pruned and self._queues.get(p):
                yield p
            return
        root = p.root
        heaps = self._heaps
        while root not in self._pruned:  # FS-ORD-3
            target = self._next_target(root) if heaps is None else heaps.next_target(root)
            if target is not None:
                if self._trace is not None:
                    drs = drs_of(self._snapshot, target)
                    self._trace.add(
                        Verdict.INFO,
                        "FS-ORD-4",
                        f"next ClusterQueue: share {format_share(drs)} (dominant {drs.dominant_resource or '-'})",
                        cluster_queue=target.name,
                    )
                yield target
                if heaps is not None:
                    heaps.changed(target)

    def head(self, queue: QuotaNode) -> Candidate:
        return self._queues[queue].head()

    def has_candidates(self, queue: QuotaNode) -> bool:
        return bool(self._queues.get(queue))

    def pop(self, queue: QuotaNode) -> Candidate:
        """Take the head candidate of ``queue``."""
        return self._queues[queue].pop()

    def drop(self, queue: QuotaNode) -> None:
        """Prune ``queue``: it is never yielded again."""
        self._pruned.add(queue)

    def _next_target(self, cohort: QuotaNode) -> QuotaNode | None:
        """FS-ORD-4 as a loop (descending into the winning child cohort), not recursion."""
        snapshot, pruned = self._snapshot, self._pruned
        node = cohort
        while True:
            best_q: QuotaNode | None = None
            d_q = NEGATIVE_SHARE
            for q in node.child_queues:
                if q in pruned:
                    continue
                d = drs_of(snapshot, q)
                if (not d.borrowing and q is not self._preemptor) or not self._queues.get(q):
                    pruned.add(q)
                    if self._trace is not None and self._queues.get(q):
                        self._trace.add(
                            Verdict.INFO, "FS-ORD-6", "pruned: no longer borrowing, its candidates are protected", cluster_queue=q.name
                        )
                    continue
                cmp = compare_drs(d, d_q)
                if cmp > 0 or (cmp == 0 and best_q is not None and self.head(q).key < self.head(best_q).key):
                    best_q, d_q = q, d
            best_k: QuotaNode | None = None
            d_k = NEGATIVE_SHARE
            for k in node.child_cohorts:
                if k in pruned:
                    continue
                d = drs_of(snapshot, k)
                if not d.borrowing and k not in self._ancestors:
                    pruned.add(k)
                    if self._trace is not None:
                        self._trace.add(Verdict.INFO, "FS-ORD-6", f"cohort {k.name} pruned: within its quota")
                elif compare_drs(d, d_k) >= 0:  # later equal wins
                    best_k, d_k = k, d
            if best_q is None and best_k is None:
                pruned.add(node)
                return None
            if best_k is not None and compare_drs(d_k, d_q) >= 0:  # the cohort wins ties
                node = best_k
                continue
            return best_q


# A heap item: (-zero-weight flag, -share, tie-break, stamp, node, share). Smallest = most
# unfair. For cohorts the tie-break is minus the position among the parent's child cohorts
# (later equal wins, FS-ORD-5). For queues it is ``(1, push counter)`` when pushed: equal
# shares are decided by the head candidates' keys (FS-ORD-4) only when they reach the top, so
# that a queue's first candidate is built only if the queue competes; an item whose share
# level has been compared is pushed back as ``(0, head key)``, so that the heap itself keeps
# that level in FS-ORD-4 order from then on. Stamps tell current items from stale ones.
_Item = tuple[int, float, Any, int, QuotaNode, DominantResourceShare]


def _drs_key(d: DominantResourceShare) -> tuple[int, float]:
    """A key ordering shares as :func:`compare_drs` does (FS-DRS-4): infinite shares above
    every finite one, among themselves by ratio; negated for a min-heap."""
    # The properties inlined (zero_weight_borrowing, precise): this runs for every push.
    ratio, weight = d.ratio, d.weight
    if weight == 0 and ratio != 0:
        return -1, -ratio
    return 0, (-0.0 if ratio == 0 else -(ratio / weight))


class _Heaps:
    """FS-ORD-4 with each cohort's children kept in heaps by DRS, so no step re-sorts a cohort.

    Only queues with candidates, and the cohorts above them, are kept: a cohort without any
    can only be descended into and pruned, which changes nothing the scan would yield.
    Pruning (FS-ORD-6) is lazy, when an item reaches the top: usage only decreases during a
    pass, so a queue or cohort that stopped borrowing never borrows again.
    """

    def __init__(self, ordering: ClusterQueueOrdering) -> None:
        self._o = ordering
        self._queues: dict[QuotaNode, list[_Item]] = {}
        self._cohorts: dict[QuotaNode, list[_Item]] = {}
        self._stamp: dict[QuotaNode, int] = {}
        self._position: dict[QuotaNode, int] = {}
        self._pushes = 0
        # (cohort, flag, share) -> queue items of that share level in the cohort's heap whose
        # head key is not in the item yet (stale ones included until popped).
        self._unkeyed: dict[tuple[QuotaNode, int, float], int] = {}
        # A cohort's candidate queues enter its heap when the descent first reaches it, so
        # queues in cohorts never visited are never primed (their first candidate not built).
        self._members: dict[QuotaNode, list[QuotaNode]] = {}
        seen: set[QuotaNode] = set()
        for q in ordering._queues:
            if q.parent is None:
                continue
            self._members.setdefault(q.parent, []).append(q)
            for a in q.ancestors():
                if a in seen or a.parent is None:
                    break
                seen.add(a)
                self._push(a)

    def _push(self, node: QuotaNode) -> None:
        parent = node.parent
        assert parent is not None
        o = self._o
        stamp = self._stamp.get(node, 0) + 1
        self._stamp[node] = stamp
        d = drs_of(o._snapshot, node)
        flag, share = _drs_key(d)
        tie: object
        if node.is_cluster_queue:
            self._pushes += 1
            tie = (1, self._pushes)
            heaps = self._queues
            level = (parent, flag, share)
            self._unkeyed[level] = self._unkeyed.get(level, 0) + 1
        else:
            pos = self._position.get(node)
            if pos is None:
                pos = self._position[node] = parent.child_cohorts.index(node)
            tie = -pos
            heaps = self._cohorts
        heap = heaps.get(parent)
        if heap is None:
            heap = heaps[parent] = []
        heapq.heappush(heap, (flag, share, tie, stamp, node, d))

    def changed(self, queue: QuotaNode) -> None:
        """``queue`` was yielded: its head and usage may have changed, and so may the shares
        of its ancestors."""
        if queue.parent is None:
            return
        self._push(queue)
        for a in queue.ancestors():
            if a.parent is None:
                break
            self._push(a)

    def _top_queue(self, cohort: QuotaNode) -> _Item | None:
        """The most unfair current queue of ``cohort``'s heap; among equal shares the one whose
        head candidate comes first in ORD order (FS-ORD-4).

        A share level is resolved once: its items without a head key are popped with the rest
        of the level, keyed by their head candidate and pushed back, so that later steps read
        the answer off the top of the heap instead of popping and re-pushing the whole level
        (which made a step cost O(queues of equal share): many, in wide cohorts).
        """
        heap = self._queues.get(cohort)
        item = self._top(heap, True)
        if item is None or heap is None:
            return item
        level = (cohort, item[0], item[1])
        unkeyed = self._unkeyed.get(level, 0)
        # A keyed top with no unkeyed item at its level is the answer; so is an unkeyed top
        # alone at its level (keyed items of an equal share would sort before it).
        if unkeyed == (0 if item[2][0] == 0 else 1):
            return item
        group = [heapq.heappop(heap)]
        while True:
            nxt = self._top(heap, True)
            if nxt is None or nxt[0] != item[0] or nxt[1] != item[1]:
                break
            group.append(heapq.heappop(heap))
        queues = self._o._queues
        for it in group:
            if it[2][0] == 1:
                self._unkeyed[level] -= 1
                it = (it[0], it[1], (0, queues[it[4]].head().key), it[3], it[4], it[5])
            heapq.heappush(heap, it)
        return heap[0]

    def _top(self, heap: list[_Item] | None, is_queue: bool) -> _Item | None:
        """The most unfair current item of ``heap``, pruning what FS-ORD-6 prunes."""
        o = self._o
        pruned = o._pruned
        stamp = self._stamp
        while heap:
            item = heap[0]
            node, d = item[4], item[5]
            if item[3] != stamp[node] or node in pruned:
                self._discard(heap, is_queue)
                continue
            if is_queue:
                if (not d.borrowing and node is not o._preemptor) or not o._queues.get(node):
                    pruned.add(node)
                    self._discard(heap, is_queue)
                    continue
            elif not d.borrowing and node not in o._ancestors:
                pruned.add(node)
                heapq.heappop(heap)
                continue
            return item
        return None

    def _discard(self, heap: list[_Item], is_queue: bool) -> None:
        """Pop ``heap``'s top item for good, keeping the count of unkeyed queue items."""
        item = heapq.heappop(heap)
        if is_queue and item[2][0] == 1:
            parent = item[4].parent
            assert parent is not None
            self._unkeyed[(parent, item[0], item[1])] -= 1

    def next_target(self, cohort: QuotaNode) -> QuotaNode | None:
        node = cohort
        while True:
            members = self._members.pop(node, None)
            if members:
                for q in members:
                    self._push(q)
            best_q = self._top_queue(node)
            best_k = self._top(self._cohorts.get(node), False)
            if best_q is None and best_k is None:
                self._o._pruned.add(node)
                return None
            if best_k is not None and (best_q is None or compare_drs(best_k[5], best_q[5]) >= 0):
                node = best_k[4]  # the cohort wins ties (FS-ORD-4)
                continue
            assert best_q is not None
            return best_q[4]


def _almost_lca(target: QuotaNode, preemptor: QuotaNode) -> tuple[QuotaNode, QuotaNode]:
    """FS-LCA-1: the children of the lowest common ancestor on the preemptor's and target's side."""
    preemptor_path = preemptor.path
    on_preemptor_side = set(preemptor_path)
    target_path = target.path
    for i in range(1, len(target_path)):
        lca = target_path[i]
        if lca in on_preemptor_side:
            return preemptor_path[preemptor_path.index(lca) - 1], target_path[i - 1]
    raise ValueError(f"ClusterQueues {preemptor.name!r} and {target.name!r} share no cohort")


def fair_shares(
    snapshot: Snapshot, preemptor_queue: QuotaNode, target_queue: QuotaNode
) -> tuple[DominantResourceShare, DominantResourceShare]:
    """FS-LCA-2: ``(preemptor new share, target old share)`` on the current snapshot."""
    arg(snapshot, Snapshot, "fair_shares", "snapshot")
    arg(preemptor_queue, QuotaNode, "fair_shares", "preemptor_queue")
    arg(target_queue, QuotaNode, "fair_shares", "target_queue")
    p_almost, t_almost = _almost_lca(target_queue, preemptor_queue)
    return dominant_resource_share(snapshot, p_almost), dominant_resource_share(snapshot, t_almost)


def target_share_after_removal(
    snapshot: Snapshot, preemptor_queue: QuotaNode, workload: Workload
) -> DominantResourceShare:
    """FS-LCA-2 ``tNew(w)``: the target side's share with ``workload``'s usage removed."""
    arg(snapshot, Snapshot, "target_share_after_removal", "snapshot")
    arg(preemptor_queue, QuotaNode, "target_share_after_removal", "preemptor_queue")
    arg(workload, Workload, "target_share_after_removal", "workload")
    target = snapshot.cluster_queue(workload.cluster_queue)
    _, t_almost = _almost_lca(target, preemptor_queue)
    if t_almost is target:
        # The share of the target's own queue depends only on its usage: subtract directly.
        return drs_of(snapshot, target, removed=workload.usage)
    # A cohort's share depends only on its own usage: subtract what the removal's Q-7 walk
    # would take from it, without a what-if block (one per candidate at tier H otherwise).
    return drs_of(snapshot, t_almost, None, snapshot.removal_reach(target, workload.usage, t_almost))


class _Run:
    """One fair-sharing decision in progress: the targets so far and the fit test."""

    def __init__(self, ctx: DecisionContext) -> None:
        self.ctx = ctx
        self.targets: list[Candidate] = []

    def fits(self) -> bool:
        """FS-RUN-1 ``fits_fs``: the fit without the simulated preemptor usage."""
        ctx = self.ctx
        # NP-8: strict mode may not borrow.
        return ctx.fit_test().fits_without(ctx.requests, not ctx.must_not_borrow)

    def take(self, c: Candidate, reason: PreemptionReason, rule: str, detail: str) -> bool:
        c.reason = reason
        self.ctx.snapshot.remove_workload(c.workload)
        self.targets.append(c)
        tr = self.ctx.trace
        if tr is not None:
            tr.add(Verdict.TAKEN, rule, detail, c.workload.key, c.node.name)
        fits = self.fits()
        if fits and tr is not None:
            tr.add(Verdict.INFO, "FS-RUN-1", "the preemptor fits")
        return fits

    def first_pass(
        self, candidates: Mapping[QuotaNode, CandidateQueue], strategy: FairSharingStrategy
    ) -> tuple[bool, list[Candidate]]:
        """FS-RUN-2 with the within-nominal shortcut FS-NOM-1."""
        ctx, snapshot, tr = self.ctx, self.ctx.snapshot, self.ctx.trace
        ordering = ClusterQueueOrdering(snapshot, ctx.node, candidates, tr, incremental=True)
        retry: list[Candidate] = []
        node = ctx.node
        nominal_ok = ctx.config.fair_sharing_preempt_within_nominal and Snapshot.within_nominal(node, ctx.frnp)
        rule = _STRATEGY_RULE[strategy]
        allows = _STRATEGIES[strategy]
        if tr is not None:
            tr.add(
                Verdict.INFO,
                "FS-NOM-1",
                "the preemptor ends within nominal: cohort candidates are taken without a share test"
                if nominal_ok
                else f"first pass with {strategy.value}",
            )
        for q in ordering:
            if q is node:
                if self.take(ordering.pop(q), PreemptionReason.IN_CLUSTER_QUEUE, "FS-RUN-2", "own ClusterQueue"):
                    return True, retry
                continue
            if nominal_ok:
                if self.take(ordering.pop(q), PreemptionReason.IN_COHORT_RECLAMATION, "FS-NOM-1", "within nominal"):
                    return True, retry
                continue
            preemptor_new, target_old = fair_shares(snapshot, node, q)
            while ordering.has_candidates(q):
                c = ordering.pop(q)
                target_new = target_share_after_removal(snapshot, node, c.workload)
                shares = "" if tr is None else (
                    f"preemptor share {format_share(preemptor_new)}, target share {format_share(target_old)}"
                    f" -> {format_share(target_new)}"
                )
                if allows(preemptor_new, target_old, target_new):
                    if self.take(c, PreemptionReason.IN_COHORT_FAIR_SHARING, rule, f"{strategy.value}: {shares}"):
                        return True, retry
                    break  # shares changed: re-select the ClusterQueue
                if tr is not None:
                    tr.add(Verdict.SKIPPED, rule, f"{strategy.value} refuses: {shares}; kept for retry (FS-RUN-4)", c.workload.key, q.name)
                retry.append(c)
        return False, retry

    def second_pass(self, retry: list[Candidate]) -> bool:
        """FS-RUN-3: ``LessThanInitialShare`` over the rejected candidates, one per queue."""
        ctx, snapshot, tr = self.ctx, self.ctx.snapshot, self.ctx.trace
        if tr is not None:
            tr.add(Verdict.INFO, "FS-RUN-3", f"second pass with LessThanInitialShare over {len(retry)} candidate(s)")
        ordering = ClusterQueueOrdering(snapshot, ctx.node, retry, tr, incremental=True)
        for q in ordering:
            preemptor_new, target_old = fair_shares(snapshot, ctx.node, q)
            c = ordering.pop(q)
            shares = "" if tr is None else (
                f"preemptor share {format_share(preemptor_new)}, target share {format_share(target_old)}"
            )
            if compare_drs(preemptor_new, target_old) < 0:
                detail = f"LessThanInitialShare: {shares}"
                if self.take(c, PreemptionReason.IN_COHORT_FAIR_SHARING, "FS-STRAT-2", detail):
                    return True
            elif tr is not None:
                tr.add(Verdict.SKIPPED, "FS-STRAT-2", f"LessThanInitialShare refuses: {shares}", c.workload.key, q.name)
            ordering.drop(q)
        return False


def ordering_for(
    snapshot: Snapshot,
    preemptor_cluster_queue: str,
    candidates: Iterable[Workload],
    config: PreemptionConfig = PreemptionConfig(),
    now: datetime | None = None,
) -> ClusterQueueOrdering:
    """A :class:`ClusterQueueOrdering` over admitted ``candidates`` in the given order.

    For inspecting the ordering on its own (no preemptor usage is simulated).
    """
    arg(snapshot, Snapshot, "ordering_for", "snapshot")
    arg(preemptor_cluster_queue, str, "ordering_for", "preemptor_cluster_queue")
    candidates = arg_iterable(candidates, Workload, "ordering_for", "candidates")
    arg(config, PreemptionConfig, "ordering_for", "config")
    optional_arg(now, datetime, "ordering_for", "now")
    if not snapshot.has_cluster_queue(preemptor_cluster_queue):
        raise UnknownClusterQueue("ordering_for", "preemptor_cluster_queue", preemptor_cluster_queue)
    empty = Assignment(requests={}, preempt=frozenset[FlavorResource]())
    ctx = DecisionContext(
        Workload(name="preemptor"), preemptor_cluster_queue, empty, snapshot, config, now
    )
    cands = [ctx.candidate(w, snapshot.cluster_queue(w.cluster_queue)) for w in candidates]
    return ClusterQueueOrdering(snapshot, ctx.node, cands)

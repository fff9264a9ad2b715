"""Per-decision context shared by the algorithms (GT-1): the facts derived once per call.

Effective priorities, queue-order timestamps and sort keys are computed from the objects
once per call (EP-10, ORD-8), so a decision is a function of a point-in-time view.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Iterable

from kueue_preempt._util.checks import arg, optional_arg
from kueue_preempt.model.config import NonPreemptibleMode, PreemptionConfig
from kueue_preempt.errors import InvalidArgument, UnknownClusterQueue
from kueue_preempt.preemption.common.messages import preemption_message
from kueue_preempt.preemption.nonpreemptible import check_non_preemptible_quota, is_non_preemptible
from kueue_preempt.model import Assignment, ClusterQueue, FlavorResource, PreemptionPolicy, PreemptionReason, Target, Workload
from kueue_preempt.snapshot.entries import Entry
from kueue_preempt.preemption.common.ordering import SortKey, sort_key
from kueue_preempt.preemption.common.policy import order_timestamp, policy_allows
from kueue_preempt.model.priority import effective_priority
from kueue_preempt.model.time import ZERO_TIME
from kueue_preempt.snapshot.quota import FitTest, QuotaNode, Snapshot
from kueue_preempt.preemption.common.trace import DecisionTrace, Verdict

__all__ = ["DecisionContext", "Candidate", "workloads_in_order", "check_decision_args", "check_pending", "NO_PRIORITY"]

# Below every priority: a bound that admits nothing (POL-4, ``Never``).
NO_PRIORITY = -(1 << 80)


def check_decision_args(
    function: str,
    preemptor: object,
    cluster_queue: object,
    assignment: object,
    snapshot: object,
    config: object,
    now: object,
    trace: object,
) -> None:
    """The argument types of ``get_targets``/``classic_targets``/``fair_targets``, each checked
    and named, before any algorithm reads an attribute of them."""
    arg(preemptor, Workload, function, "preemptor")
    arg(cluster_queue, str, function, "cluster_queue")
    arg(assignment, Assignment, function, "assignment")
    arg(snapshot, Snapshot, function, "snapshot")
    arg(config, PreemptionConfig, function, "config")
    optional_arg(now, datetime, function, "now")
    optional_arg(trace, DecisionTrace, function, "trace")
    assert isinstance(preemptor, Workload) and isinstance(snapshot, Snapshot)
    check_pending(function, preemptor, snapshot)


def check_pending(function: str, preemptor: Workload, snapshot: Snapshot) -> None:
    """GT-1: the preemptor is pending, not in the snapshot. An admitted one (by namespace/name)
    would be its own candidate and could be returned as its own target."""
    holder = snapshot.admitted_in(preemptor.key)
    if holder is not None:
        raise InvalidArgument(
            function,
            "preemptor",
            f"Workload {preemptor.key!r} is admitted in ClusterQueue {holder.name!r}; preemption is "
            "computed for pending workloads only (GT-1: the preemptor is not in the snapshot)",
        )


class Candidate:
    """An admitted workload under consideration, with everything derived about it once."""

    __slots__ = ("workload", "node", "key", "reason", "variant", "lca")

    def __init__(self, workload: Workload, node: QuotaNode, key: tuple[object, ...]) -> None:
        """``key``: the ORD key followed by (ClusterQueue, namespace/name), which make the order
        total, so results do not depend on input order even when ORD ties (ORD-7, CL-GEN-7a)."""
        self.workload = workload
        self.node = node
        self.key = key
        self.reason = PreemptionReason.IN_CLUSTER_QUEUE
        self.variant = 0
        self.lca: QuotaNode | None = None

    @property
    def priority(self) -> int:
        p = self.key[2]
        assert isinstance(p, int)
        return p


class DecisionContext:
    """Inputs of one ``get_targets`` call plus what is derived from them once (GT-1, FA-2)."""

    def __init__(
        self,
        preemptor: Workload,
        cluster_queue: str,
        assignment: Assignment,
        snapshot: Snapshot,
        config: PreemptionConfig,
        now: datetime | None,
        trace: DecisionTrace | None = None,
    ) -> None:
        if not snapshot.has_cluster_queue(cluster_queue):
            raise UnknownClusterQueue(f"preemptor Workload {preemptor.key}", "cluster_queue", cluster_queue)
        self.preemptor = preemptor
        self.trace = trace
        self.snapshot = snapshot
        self.config = config
        self.now = now if now is not None else datetime.now(timezone.utc)  # ORD-8: sampled once
        self.node = snapshot.cluster_queue(cluster_queue)
        cq = self.node.cluster_queue
        assert cq is not None
        self.cq: ClusterQueue = cq
        self.requests = assignment.requests
        self.frnp: frozenset[FlavorResource] = assignment.preempt
        self.index = snapshot.index_for(config)
        # The snapshot's stored entries serve the default path when keyed for this config.
        self.entries = snapshot.entries_match(config)
        # Lazy streams and pruned walks are equivalent to the full scan only without a trace
        # (which reports every workload and queue it skips).
        # Under AFS the comparator needs the name orders of CL-GEN-7a, so walks stay full.
        self.fast = trace is None and not config.admission_fair_sharing
        self.priority = effective_priority(preemptor, boost_enabled=config.priority_boost)
        # POL-5's queue-order time, read by LowerOrNewerEqualPriority only: computed then.
        self._queue_time: datetime | None = None
        self.protect_non_preemptible = config.non_preemptible_enabled
        preemptor_np = is_non_preemptible(preemptor, snapshot, config)
        # NP-7: an NP preemptor that would break NP-6 cannot be helped by preemption,
        # because preemption never lowers non-preemptible usage.
        self._np_quota_exceeded = preemptor_np and not check_non_preemptible_quota(
            preemptor, cluster_queue, self.requests, snapshot, config
        )
        # NP-8: in strict mode an NP preemptor must also end within nominal.
        self.must_not_borrow = preemptor_np and config.non_preemptible_mode is NonPreemptibleMode.STRICT
        self._fit_test: FitTest | None = None  # built by the first fits()
        self._single_fr = next(iter(self.frnp)) if len(self.frnp) == 1 else None

    @property
    def queue_time(self) -> datetime:
        """The preemptor's queue-order timestamp (POL-5), computed on first use."""
        found = self._queue_time
        if found is None:
            found = self._queue_time = order_timestamp(self.preemptor, self.config)
        return found

    def blocked_by_np_quota(self) -> bool:
        """NP-7: the preemptor is non-preemptible and breaks NP-6, so no targets can help."""
        if self._np_quota_exceeded and self.trace is not None:
            self.trace.add(Verdict.NO_TARGETS, "NP-7", "non-preemptible preemptor would exceed its nominal quota (NP-6)")
        return self._np_quota_exceeded

    def protected(self, workload: Workload) -> bool:
        """NP-3: a non-preemptible workload is never a candidate (when the feature is on)."""
        return self.protect_non_preemptible and self.snapshot.is_non_preemptible(workload)

    def candidate_from_entry(self, entry: Entry, node: QuotaNode) -> Candidate:
        """A Candidate from the snapshot's stored entry, without recomputing its key."""
        key = (entry[0], 1 if node is self.node else 0, entry[1], entry[2], entry[3], entry[4], entry[5], entry[6])
        return Candidate(entry[7], node, key)

    def candidate(self, workload: Workload, node: QuotaNode) -> Candidate:
        key: SortKey = sort_key(workload, self.cq.name, self.now, self.config)
        return Candidate(workload, node, key + (node.name, workload.key))

    def policy_bound(self, policy: PreemptionPolicy) -> int | None:
        """Candidates at or above this effective priority fail ``policy`` (POL-1, POL-2).

        None when the policy does not bound priorities (``Any``); the per-candidate check
        still runs below the bound (POL-2's timestamp tie-break).
        """
        if policy is PreemptionPolicy.LOWER_PRIORITY:
            return self.priority
        if policy is PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY:
            return self.priority + 1
        if policy is PreemptionPolicy.NEVER:
            return NO_PRIORITY
        return None

    def allows(self, policy: PreemptionPolicy, c: Candidate) -> bool:
        """The policy predicate (POL-1..4) for candidate ``c`` against the preemptor.

        Only ``LowerOrNewerEqualPriority`` reads queue-order timestamps (POL-2), so the
        candidate's (a scan of its conditions, POL-5) is computed only for that policy.
        """
        if policy is PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY:
            mine = self._queue_time  # read per candidate: the property only the first time
            if mine is None:
                mine = self.queue_time
            return policy_allows(policy, self.priority, c.priority, mine, order_timestamp(c.workload, self.config))
        # The other policies read no timestamp (POL-1, POL-3, POL-4): none is computed.
        return policy_allows(policy, self.priority, c.priority, ZERO_TIME, ZERO_TIME)

    def fit_test(self) -> FitTest:
        """GT-5 for the preemptor's requests, prepared once per decision (:class:`FitTest`)."""
        test = self._fit_test
        if test is None:
            test = self._fit_test = self.snapshot.fit_test(self.node, self.requests)
        return test

    def fits(self, allow_borrowing: bool) -> bool:
        """GT-5 for the preemptor's requests against the current snapshot."""
        return self.fit_test().fits(allow_borrowing)

    def over_quota(self, node: QuotaNode) -> bool:
        """Q-11: is ``node`` over its (subtree) quota on a FlavorResource that needs preemption?

        With one such FlavorResource (the usual case) this reads the snapshot's over-quota set
        of the node's parent instead of comparing usage and quota."""
        fr = self._single_fr
        parent = node.parent
        if fr is None or parent is None:
            return not Snapshot.within_nominal(node, self.frnp)
        over = parent.over_children.get(fr)
        return over is not None and node in over

    def fits_with(self, c: Candidate, allow_borrowing: bool) -> bool:
        """GT-5 as if candidate ``c`` were admitted again (fill-back, FB-2), without re-adding it."""
        return self.fit_test().fits_with(c.node, c.workload.usage, allow_borrowing)

    def targets(self, selected: Iterable[Candidate]) -> list[Target]:
        """Turn selected candidates into Targets with Kueue's message (MSG-3, MSG-4)."""
        preemptor_path = self.snapshot.path(self.node)
        out = []
        # The message depends on the target only through its reason and queue (MSG-3).
        messages: dict[tuple[PreemptionReason, QuotaNode], str] = {}
        for c in selected:
            message = messages.get((c.reason, c.node))
            if message is None:
                message = messages[(c.reason, c.node)] = preemption_message(
                    self.preemptor, c.reason.value, preemptor_path, self.snapshot.path(c.node)
                )
            out.append(Target(workload=c.workload, reason=c.reason, cluster_queue=c.node.name, message=message))
            if self.trace is not None:
                self.trace.add(Verdict.TARGET, "MSG-1", f"reason {c.reason.value}", c.workload.key, c.node.name)
        return out


def workloads_in_order(queue: QuotaNode, afs: bool) -> Iterable[Workload]:
    """A queue's workloads; in ``namespace/name`` order when AFS is on (CL-GEN-7a).

    Only the AFS comparator can be cyclic (ORD-9), and then a stable sort's result depends on
    its input order; fixing that order keeps results independent of how the snapshot was
    built. Without AFS the candidate keys are a total order and the input order is irrelevant.
    """
    if not afs:
        return queue.workloads.values()
    return [queue.workloads[k] for k in sorted(queue.workloads)]

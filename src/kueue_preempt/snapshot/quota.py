"""The quota tree / snapshot (Q-3..Q-16, DM-11): the only mutable object in a decision.

A :class:`Snapshot` is built from cohorts, ClusterQueues and the workloads that hold quota.
It owns every usage number. Algorithms mutate it only through :meth:`Snapshot.add_workload`,
:meth:`Snapshot.remove_workload`, :meth:`Snapshot.add_usage` and :meth:`Snapshot.remove_usage`,
inside :meth:`Snapshot.preserved`, which records the old value of every usage entry and every
workload-set change and puts them back on exit. Restoring by value rather than by applying
inverse operations is what keeps GT-3 exact even when amounts saturate (DM-11, Q-7).

Every walk over the tree is iterative (paths are precomputed tuples), so a deep or malicious
cohort chain cannot exhaust the interpreter stack.

What decisions need is kept incrementally, so that a decision touches only the
workloads and queues it may act on:

* every admitted workload's ordering entry (:mod:`kueue_preempt.snapshot.entries`), computed once when
  it enters, per ClusterQueue and FlavorResource (``QuotaNode.entries``);
* per FlavorResource, which children of each cohort are over their (subtree) quota
  (``QuotaNode.over_children``) and which ClusterQueues of each tree are
  (``QuotaNode.over_queues`` on the root), updated by every usage write when it crosses the
  quota, and restored with it;
* optionally the :class:`~kueue_preempt.snapshot.index.CandidateIndex` (sorted entries), owned here.
"""

from __future__ import annotations

import heapq
from contextlib import AbstractContextManager
from datetime import datetime
from typing import AbstractSet, Any, Callable, Iterable, Iterator, Mapping

from kueue_preempt._util.checks import iter_args
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.errors import (
    CohortCycle,
    DuplicateName,
    InputTooLarge,
    InvalidArgument,
    UnknownClusterQueue,
    UnknownCohort,
    UnknownWorkload,
)
from kueue_preempt.model import (
    ClassPreemptionPolicy,
    ClusterQueue,
    Cohort,
    FlavorResource,
    ResourceQuota,
    Workload,
    WorkloadPriorityClass,
)
from kueue_preempt.snapshot.entries import Entry, make_entry
from kueue_preempt.snapshot.index import CandidateIndex, dedupe
from kueue_preempt.model.quantity import MIN_AMOUNT, UNLIMITED, amount_add, amount_sub

__all__ = ["QuotaNode", "Snapshot", "FitTest", "MAX_COHORT_DEPTH", "MAX_OBJECTS", "cohort_depths", "check_cohort_depth"]

MAX_COHORT_DEPTH = 1000
"""Deepest cohort chain accepted; deeper trees are rejected as absurd input."""
_DEFAULT_CONFIG = PreemptionConfig()

MAX_OBJECTS = 10_000_000
"""Largest number of ClusterQueues + cohorts + workloads accepted in one snapshot."""

Usage = Mapping[FlavorResource, int]

_Link = tuple["QuotaNode", dict[FlavorResource, int], "int | None", int, bool]
"""One node of a quota path for one FlavorResource: ``(node, node.usage, local quota or None,
subtree quota, is the root)``."""
_Step = tuple[int, dict[FlavorResource, int], "int | None", "int | None", int]
"""A level that limits Q-9's headroom: ``(index on the path, usage map, borrowing limit or
None, local quota or None, quota it stores for the cohort)``."""
_QuotaPlan = tuple[tuple[_Link, ...], int, tuple[_Step, ...], bool]
"""The static part of every quota walk from one node for one FlavorResource: the
path's links for Q-7's usage walk, the root's subtree quota, Q-9's limiting levels top
down, and whether every static number is :data:`_SMALL`. With it a walk reads one usage entry
per level instead of three or four quota maps (each lookup hashes the FlavorResource), which
is what made deeper trees cost more."""

_SMALL = 2**50
"""Below this magnitude, and along a path of at most :data:`_SMALL_DEPTH` nodes, no sum or
difference of the quota walks can come near the int64 bounds, so Q-2's saturating
``amount_add``/``amount_sub`` equal plain ``+``/``-`` (and no value is the UNLIMITED
sentinel): the walks use plain arithmetic then, and the saturating functions otherwise."""
_SMALL_DEPTH = 64


def cohort_depths(parents: Mapping[str, str | None]) -> dict[str, int]:
    """Per cohort, the number of cohorts from it up to its root, itself included (a root has
    depth 1; a parent named but not a key of ``parents`` is an implicit root cohort, DM-5).

    Linear time: each cohort is walked once, later walks stop at a cohort already measured.
    Raises :class:`~kueue_preempt.errors.CohortCycle` on a parent cycle, naming the cycle as the
    walk from the first cohort (in ``parents``' order) that reaches it meets it.
    """
    depth: dict[str, int] = {}
    for start in parents:
        chain: list[str] = []
        on_chain: dict[str, int] = {}
        node: str | None = start
        while node is not None and node not in depth:
            if node in on_chain:
                raise CohortCycle(chain[on_chain[node] :] + [node])
            on_chain[node] = len(chain)
            chain.append(node)
            node = parents.get(node)
        d = 0 if node is None else depth[node]
        for name in reversed(chain):
            d += 1
            depth[name] = d
    return depth


def check_cohort_depth(
    parents: Mapping[str, str | None], queues: Iterable[tuple[str, str | None]], *, source: Callable[[str, str], str] | None = None
) -> None:
    """Refuse a cohort cycle (:class:`~kueue_preempt.errors.CohortCycle`) and a chain deeper
    than :data:`MAX_COHORT_DEPTH` (:class:`~kueue_preempt.errors.InputTooLarge`), in linear time.

    ``parents`` maps each cohort to its parent, ``queues`` gives each ClusterQueue's cohort. A
    cohort may have ``MAX_COHORT_DEPTH`` ancestors; a ClusterQueue ``MAX_COHORT_DEPTH`` cohorts
    above it. ``source(kind, name)``, when given, is the file an object came from, prefixed to
    the messages with the object and its field.
    """

    def message(kind: str, name: str, field: str, reason: str, plain: str) -> str:
        origin = source(kind, name) if source is not None else ""
        return f"{origin}: {kind} {name}: {field}: {reason}" if origin else plain

    try:
        depth = cohort_depths(parents)
    except CohortCycle as exc:
        cycle = "cohort cycle: " + " -> ".join(exc.cycle)
        exc.args = (message("Cohort", exc.cycle[0], "spec.parentName", cycle, str(exc)),)
        raise
    deep = f"is deeper than {MAX_COHORT_DEPTH} cohorts"
    for name in parents:
        if depth[name] > MAX_COHORT_DEPTH + 1:
            raise InputTooLarge(message("Cohort", name, "spec.parentName", deep, f"Cohort {name!r} {deep}"))
    for name, cohort in queues:
        if cohort is not None and depth.get(cohort, 1) + 1 > MAX_COHORT_DEPTH + 1:
            raise InputTooLarge(message("ClusterQueue", name, "spec.cohortName", deep, f"ClusterQueue {name!r} {deep}"))


class QuotaNode:
    """A ClusterQueue or cohort in the tree, with its derived quota and live usage.

    Read-only for callers: ``subtree_quota`` (Q-5), ``local_quota`` (Q-4), ``usage`` (Q-6),
    ``path`` (this node up to the root), ``height`` (Q-15), and for ClusterQueues
    ``np_usage``, the usage of its non-preemptible workloads (NP-5, CQ level only). Mutate
    usage only through the :class:`Snapshot`.
    """

    __slots__ = (
        "name",
        "is_cluster_queue",
        "parent",
        "child_cohorts",
        "child_queues",
        "quotas",
        "subtree_quota",
        "local_quota",
        "borrowing_limit",
        "usage",
        "height",
        "fair_weight",
        "path",
        "cluster_queue",
        "cohort",
        "workloads",
        "np_usage",
        "entries",
        "unreserved",
        "over_children",
        "over_queues",
        "plans",
        "potential",
    )

    def __init__(self, name: str, is_cluster_queue: bool) -> None:
        self.name = name
        self.is_cluster_queue = is_cluster_queue
        self.parent: QuotaNode | None = None
        self.child_cohorts: list[QuotaNode] = []
        self.child_queues: list[QuotaNode] = []
        self.quotas: Mapping[FlavorResource, ResourceQuota] = {}
        self.subtree_quota: dict[FlavorResource, int] = {}
        self.local_quota: dict[FlavorResource, int] = {}
        self.borrowing_limit: dict[FlavorResource, int] = {}
        self.usage: dict[FlavorResource, int] = {}
        self.height = 0
        self.fair_weight = 1.0
        self.path: tuple[QuotaNode, ...] = ()
        self.cluster_queue: ClusterQueue | None = None
        self.cohort: Cohort | None = None
        self.workloads: dict[str, Workload] = {}
        self.np_usage: dict[FlavorResource, int] = {}
        # Kept incrementally, see the module docstring. ``entries[fr][key]``: reserved workloads using fr.
        self.entries: dict[FlavorResource, dict[str, Entry]] = {}
        # Workloads without a reservation time sort as reserved "now" (ORD-5), which only a
        # decision knows: their entries are built per decision (rare in practice).
        self.unreserved: dict[str, Workload] = {}
        self.over_children: dict[FlavorResource, set[QuotaNode]] = {}
        self.over_queues: dict[FlavorResource, set[QuotaNode]] = {}
        # Per FlavorResource, the static quota numbers of this node's path (see _QuotaPlan),
        # built on first use: quotas never change after the snapshot is built.
        self.plans: dict[FlavorResource, _QuotaPlan] = {}
        # Per FlavorResource, Q-10's potential available (static too), built on first use:
        # every flavor judgement asks it.
        self.potential: dict[FlavorResource, int] = {}

    @property
    def kind(self) -> str:
        return "ClusterQueue" if self.is_cluster_queue else "Cohort"

    @property
    def root(self) -> QuotaNode:
        return self.path[-1]

    def ancestors(self) -> tuple[QuotaNode, ...]:
        """Parent, grandparent, ..., root."""
        return self.path[1:]

    def __repr__(self) -> str:
        return f"<{self.kind} {self.name}>"


class FitTest:
    """GT-5 for one request at one ClusterQueue, asked many times while usages change.

    What does not change during a decision is looked up once: per FlavorResource of the
    request, the quota plan's static numbers and the usage maps of the path. Each test then
    reads one usage entry per limiting level, in plain arithmetic; when a number is out of
    :data:`_SMALL`'s range it answers with :meth:`Snapshot.fits` / :meth:`Snapshot.fits_with`
    (saturating arithmetic). The same answers as those.
    """

    __slots__ = ("_snapshot", "_cq", "_request", "_parts")

    def __init__(self, snapshot: Snapshot, cq: QuotaNode, request: Usage) -> None:
        self._snapshot = snapshot
        self._cq = cq
        self._request = request
        parts: list[tuple[Any, ...]] | None = []
        path = cq.path
        for fr, v in request.items():
            links, root_quota, steps, small = cq.plans.get(fr) or snapshot._plan(cq, fr)
            if parts is None or not (small and -_SMALL < v < _SMALL):
                parts = None
                continue
            # Q-9's limiting levels with their nodes (fits_with overrides usages by node).
            # A borrowing limit caps the headroom at ``stored + bl - used``: the sum is static.
            levels = tuple(
                (path[i], usage, None if bl is None else stored + bl, lq) for i, usage, bl, lq, stored in steps
            )
            parts.append((fr, v, cq, cq.usage, cq.subtree_quota.get(fr, 0), path[-1], links[-1][1], root_quota, levels))
        self._parts = parts

    def fits(self, allow_borrowing: bool) -> bool:
        """:meth:`Snapshot.fits` of the request, now."""
        got = self._test(allow_borrowing, None, None)
        if got is None:
            return self._snapshot.fits(self._cq, self._request, allow_borrowing=allow_borrowing)
        return got

    def fits_with(self, added_cq: QuotaNode, added: Usage, allow_borrowing: bool) -> bool:
        """:meth:`Snapshot.fits_with`: the test as if ``added`` were given to ``added_cq``."""
        got = None
        if added_cq.path[-1] is self._cq.path[-1]:  # else the addition cannot change the fit
            got = self._test(allow_borrowing, added_cq, added)
        elif self._parts is not None:
            got = self._test(allow_borrowing, None, None)
        if got is None:
            return self._snapshot.fits_with(self._cq, self._request, added_cq, added, allow_borrowing=allow_borrowing)
        return got

    def fits_without(self, removed: Usage, allow_borrowing: bool) -> bool:
        """:meth:`Snapshot.fits_without` at this ClusterQueue: the test as if ``removed`` were
        first taken from it (fair sharing's fit test, FS-RUN-1)."""
        got = self._test(allow_borrowing, None, removed)
        if got is None:
            return self._snapshot.fits_without(self._cq, self._request, removed, allow_borrowing=allow_borrowing)
        return got

    def _test(self, allow_borrowing: bool, added_cq: QuotaNode | None, change: Usage | None) -> bool | None:
        """The plain-arithmetic test, with ``change`` added at ``added_cq`` or, without
        ``added_cq``, removed at this ClusterQueue; None when a number is out of range (the
        caller then asks the snapshot's saturating version)."""
        parts = self._parts
        if parts is None:
            return None
        for fr, v, cq, cq_usage, cq_sq, root, root_usage, root_quota, levels in parts:
            after: dict[QuotaNode, int] | None = None
            if change is not None:
                w = change.get(fr)
                if w is not None:
                    if added_cq is None:
                        after = _plain_after_remove(cq.plans.get(fr) or self._snapshot._plan(cq, fr), fr, w)
                    else:
                        after = _plain_after_add(added_cq.plans.get(fr) or self._snapshot._plan(added_cq, fr), fr, w)
                    if after is None:
                        return None
            if not allow_borrowing:
                u = after[cq] if after is not None and cq in after else cq_usage.get(fr, 0)
                if not -_SMALL < u < _SMALL:
                    return None
                if u + v > cq_sq:
                    return False
            u = after[root] if after is not None and root in after else root_usage.get(fr, 0)
            if not -_SMALL < u < _SMALL:
                return None
            a = root_quota - u  # Q-9, as Snapshot.available computes it
            for node, usage, cap, lq in levels:
                u = after[node] if after is not None and node in after else usage.get(fr, 0)
                if not -_SMALL < u < _SMALL:
                    return None
                if lq is None:  # then the level has a borrowing limit (see _plan)
                    limit = cap - u if u > 0 else cap
                    if limit < a:
                        a = limit
                else:
                    if cap is not None:
                        limit = cap - (u - lq) if u > lq else cap
                        if limit < a:
                            a = limit
                    if lq > u:
                        a += lq - u
            if v > (a if a > 0 else 0):
                return False
        return True


def _plain_after_remove(plan: _QuotaPlan, fr: FlavorResource, v: int) -> dict[QuotaNode, int] | None:
    """The usages :meth:`Snapshot.remove_usage` would write for ``v`` less ``fr`` along
    ``plan``'s path (Q-7), by node, in plain arithmetic; None if a number is out of range."""
    links, _, _, small = plan
    if not (small and -_SMALL < v < _SMALL):
        return None
    after: dict[QuotaNode, int] = {}
    for node, node_usage, lq, _, is_root in links:
        used = node_usage.get(fr, 0)
        if not -_SMALL < used < _SMALL:
            return None
        after[node] = used - v
        if is_root:
            break
        stored = used if lq is None else used - lq
        if stored <= 0:
            break
        if stored < v:
            v = stored
    return after


def _plain_after_add(plan: _QuotaPlan, fr: FlavorResource, v: int) -> dict[QuotaNode, int] | None:
    """The usages :meth:`Snapshot.add_usage` would write for ``v`` more ``fr`` along ``plan``'s
    path (Q-7, Q-8), by node, in plain arithmetic; None if a number is out of range."""
    links, _, _, small = plan
    if not (small and -_SMALL < v < _SMALL):
        return None
    after: dict[QuotaNode, int] = {}
    for node, node_usage, lq, _, is_root in links:
        used = node_usage.get(fr, 0)
        if not -_SMALL < used < _SMALL:
            return None
        after[node] = used + v
        la = 0 if lq is None or lq <= used else lq - used
        if is_root or v <= la:
            break
        v -= la
    return after


def _plain_fitting_height(plan: _QuotaPlan, fr: FlavorResource, value: int) -> tuple[int, bool] | None:
    """:meth:`Snapshot.lowest_fitting_height` (Q-16) along ``plan``'s links in plain
    arithmetic, for a small plan and ``value`` (see :data:`_SMALL`); None if a usage is out of
    range. ``rem`` only loses a local headroom in [0, _SMALL) per level, so it stays far from
    the int64 bounds over at most :data:`_SMALL_DEPTH` levels."""
    links = plan[0]
    rem = value
    for i, (node, node_usage, lq, sq, is_root) in enumerate(links):
        u = node_usage.get(fr, 0)
        if not -_SMALL < u < _SMALL:
            return None
        if u + rem <= sq:  # not borrowing with rem more
            return (0, not is_root) if i == 0 else (node.height, not is_root)
        if i == 0 and is_root:
            return 0, False
        if lq is not None and lq > u:  # Q-8's local headroom
            rem -= lq - u
    return links[-1][0].height, False


class _Preserved(AbstractContextManager["Snapshot"]):
    """The context manager of :meth:`Snapshot.preserved`."""

    __slots__ = ("_snapshot", "_outer")

    def __init__(self, snapshot: Snapshot) -> None:
        self._snapshot = snapshot

    def __enter__(self) -> Snapshot:
        self._outer = self._snapshot._begin()
        return self._snapshot

    def __exit__(self, *exc: object) -> None:
        self._snapshot._restore(self._outer)


class Snapshot:
    """Point-in-time view of the quota tree and every workload holding quota (DM-7, DM-11).

    Cohorts named by a ClusterQueue or as a parent but not given are created implicitly (no
    quota, no parent), as Kueue does; pass ``implicit_cohorts=False`` to get
    :class:`~kueue_preempt.errors.UnknownCohort` instead. Every given workload is taken to hold
    quota in ``workload.cluster_queue``.

    ``priority_classes`` are the WorkloadPriorityClasses non-preemptible workloads are
    resolved against (NP-2). Construction is O(n) in objects; usage queries are O(depth).
    """

    def __init__(
        self,
        cluster_queues: Iterable[ClusterQueue],
        cohorts: Iterable[Cohort] = (),
        workloads: Iterable[Workload] = (),
        *,
        priority_classes: Iterable[WorkloadPriorityClass] = (),
        implicit_cohorts: bool = True,
    ) -> None:
        self._queues: dict[str, QuotaNode] = {}
        self._cohorts: dict[str, QuotaNode] = {}
        # (op, node, x, y) records; Any because the restore loop is hot (no casts there).
        self._journal: list[tuple[Any, ...]] | None = None
        # Potential capacity depends only on quotas and limits, never on usage, so the
        # per-(parent, resource) sums fair sharing asks for repeatedly are cached.
        self._lendable: dict[tuple[QuotaNode, str], int] = {}
        self._index: CandidateIndex | None = None
        # The index follows add/remove outside what-if blocks only (a decision iterates its
        # lists while it removes workloads inside such a block). A removal inside one hides
        # the workload's entries instead (``_hidden``, filtered out of every stream, as
        # ``candidate_entries`` no longer lists them); any other change makes the index stale
        # until the block restores the state it was built for.
        self._index_valid = False
        self._hidden: set[str] = set()
        # The (priority boost, preemption cost) switches the stored entries were keyed with:
        # the default configuration's until a decision or enable_index asks for others.
        self._key_boost = _DEFAULT_CONFIG.priority_boost
        self._key_cost = _DEFAULT_CONFIG.preemption_cost_enabled
        # Entries removed inside the current what-if block, by workload key (see _enter).
        self._parked: dict[str, Entry] = {}
        self._classes: dict[str, WorkloadPriorityClass] = {}
        self._paths: dict[QuotaNode, str] = {}
        self._n_unreserved = 0  # workloads without a reservation time, in all queues
        # Every admitted workload's key -> the ClusterQueue holding it (DM-7: one place per key),
        # kept by add/remove and their restore: refuses a second admission in O(1).
        self._admitted: dict[str, QuotaNode] = {}
        cluster_queues = iter_args(cluster_queues, ClusterQueue, "Snapshot", "cluster_queues")
        cohorts = iter_args(cohorts, Cohort, "Snapshot", "cohorts")
        workloads = iter_args(workloads, Workload, "Snapshot", "workloads")
        for wpc in iter_args(priority_classes, WorkloadPriorityClass, "Snapshot", "priority_classes"):
            if wpc.name in self._classes:
                raise DuplicateName("WorkloadPriorityClass", wpc.name)
            self._classes[wpc.name] = wpc
        count = 0
        for cohort in cohorts:
            count += 1
            if cohort.name in self._cohorts:
                raise DuplicateName("Cohort", cohort.name)
            node = QuotaNode(cohort.name, False)
            node.cohort = cohort
            node.quotas = cohort.quotas
            node.fair_weight = cohort.fair_weight
            self._cohorts[cohort.name] = node
        for cq in cluster_queues:
            count += 1
            if cq.name in self._queues:
                raise DuplicateName("ClusterQueue", cq.name)
            node = QuotaNode(cq.name, True)
            node.cluster_queue = cq
            node.quotas = cq.quotas
            node.fair_weight = cq.fair_weight
            self._queues[cq.name] = node
        if count > MAX_OBJECTS:
            raise InputTooLarge(f"{count} ClusterQueues and cohorts exceed the limit of {MAX_OBJECTS}")
        self._link(implicit_cohorts)
        self._compute_quotas()
        self._load_workloads(workloads, count)

    # ------------------------------------------------------------------ construction

    def _cohort_or_implicit(self, name: str, owner: str, field: str, implicit: bool) -> QuotaNode:
        node = self._cohorts.get(name)
        if node is None:
            if not implicit:
                raise UnknownCohort(owner, field, name)
            node = QuotaNode(name, False)
            self._cohorts[name] = node
        return node

    def _link(self, implicit: bool) -> None:
        for node in list(self._cohorts.values()):
            assert node.cohort is not None
            parent = node.cohort.parent
            if parent is not None:
                node.parent = self._cohort_or_implicit(parent, f"Cohort {node.name!r}", "parent", implicit)
        for node in self._queues.values():
            assert node.cluster_queue is not None
            parent = node.cluster_queue.cohort
            if parent is not None:
                node.parent = self._cohort_or_implicit(parent, f"ClusterQueue {node.name!r}", "cohort", implicit)
        parents = {n.name: (n.parent.name if n.parent is not None else None) for n in self._cohorts.values()}
        check_cohort_depth(parents, ((n.name, n.cluster_queue.cohort if n.cluster_queue else None) for n in self._queues.values()))
        for node in self._cohorts.values():
            if node.parent is not None:
                node.parent.child_cohorts.append(node)
        for node in self._queues.values():
            if node.parent is not None:
                node.parent.child_queues.append(node)
        for node in self._cohorts.values():
            node.child_cohorts.sort(key=lambda n: n.name)
            node.child_queues.sort(key=lambda n: n.name)
        # Paths: cohorts by increasing depth so each parent's path exists first.
        # The depths were checked above, so these paths hold at most MAX_COHORT_DEPTH + 1 nodes.
        for node in self._nodes_top_down():
            node.path = (node,) + (node.parent.path if node.parent is not None else ())

    def _nodes_top_down(self) -> list[QuotaNode]:
        """All nodes, every parent before its children (iterative BFS from the roots)."""
        order: list[QuotaNode] = []
        frontier = sorted((n for n in self._cohorts.values() if n.parent is None), key=lambda n: n.name)
        frontier += sorted((n for n in self._queues.values() if n.parent is None), key=lambda n: n.name)
        while frontier:
            order.extend(frontier)
            nxt: list[QuotaNode] = []
            for n in frontier:
                nxt.extend(n.child_cohorts)
                nxt.extend(n.child_queues)
            frontier = nxt
        return order

    def _compute_quotas(self) -> None:
        order = self._nodes_top_down()
        self._order = order
        for node in reversed(order):  # children before parents
            sq: dict[FlavorResource, int] = {}
            for fr, q in node.quotas.items():
                sq[fr] = q.nominal
            if not node.is_cluster_queue:
                for child in node.child_cohorts + node.child_queues:
                    for fr, v in child.subtree_quota.items():
                        exposed = amount_sub(v, child.local_quota.get(fr, 0))
                        sq[fr] = amount_add(sq.get(fr, 0), exposed)
                height = 1 if node.child_cohorts or node.child_queues else 0
                for k in node.child_cohorts:
                    height = max(height, k.height + 1)
                node.height = height
            node.subtree_quota = sq
            for fr, q in node.quotas.items():
                ll = q.lending_limit
                bl = q.borrowing_limit
                if ll is not None:
                    node.local_quota[fr] = max(0, amount_sub(sq.get(fr, 0), ll))
                if bl is not None:
                    node.borrowing_limit[fr] = bl

    def _load_workloads(self, workloads: Iterable[Workload], count: int) -> None:
        seen = self._admitted
        for w in workloads:
            count += 1
            if count > MAX_OBJECTS:
                raise InputTooLarge(f"more than {MAX_OBJECTS} objects in one snapshot")
            node = self._queues.get(w.cluster_queue)
            if node is None:
                raise UnknownClusterQueue(f"Workload {w.key}", "cluster_queue", w.cluster_queue)
            key = w.key
            if key in seen:
                raise DuplicateName("Workload", key)
            seen[key] = node
            node.workloads[key] = w
            self._enter(node, key, w)
            usage = node.usage
            for fr, v in w.usage.items():
                usage[fr] = amount_add(usage.get(fr, 0), v)
            if self.is_non_preemptible(w):
                npu = node.np_usage
                for fr, v in w.usage.items():
                    npu[fr] = amount_add(npu.get(fr, 0), v)
        # Q-6 recomputed bottom-up with Q-2 arithmetic (Q-7 applies only to later changes).
        for node in reversed(self._order):
            if node.is_cluster_queue:
                continue
            u: dict[FlavorResource, int] = {}
            for child in node.child_cohorts + node.child_queues:
                for fr, v in child.usage.items():
                    u[fr] = amount_add(u.get(fr, 0), max(0, amount_sub(v, child.local_quota.get(fr, 0))))
            node.usage = u
        for node in self._order:
            sq = node.subtree_quota
            for fr, v in node.usage.items():
                if v > sq.get(fr, 0):
                    self._mark_over(node, fr, True)

    # ------------------------------------------------------------------ kept incrementally

    def _enter(self, node: QuotaNode, key: str, w: Workload) -> Entry | None:
        """Store ``w``'s entry (O(F)); the entry, or None while it has no reservation time."""
        reserved = w.quota_reserved_at
        if reserved is None:
            node.unreserved[key] = w
            self._n_unreserved += 1
            return None
        # What-if blocks remove and re-add the same workloads (attempts, fill-back): reuse
        # the entry a removal in the block parked instead of recomputing it.
        entry = self._parked.get(key)
        if entry is None or entry[7] is not w or entry[5] != node.name:
            entry = make_entry(w, key, node.name, reserved, self._key_boost, self._key_cost)
        by_fr = node.entries
        for fr in w.used_flavor_resources:
            d = by_fr.get(fr)
            if d is None:
                d = by_fr[fr] = {}
            d[key] = entry
        return entry

    def _parked_again(self, key: str, entry: Entry) -> bool:
        """Is ``entry`` (just re-entered) the one a removal in this block hid? :meth:`_enter`
        reuses the parked entry for the same workload object in the same queue."""
        return self._parked.get(key) is entry

    def _leave(self, node: QuotaNode, key: str, w: Workload) -> Entry | None:
        """Drop ``w``'s entry (O(F)) and return it."""
        if node.unreserved.pop(key, None) is not None:
            self._n_unreserved -= 1
            return None
        entry = None
        for fr in w.used_flavor_resources:
            entry = node.entries[fr].pop(key)
        if entry is not None and self._journal is not None:
            self._parked[key] = entry
        return entry

    def _mark_over(self, node: QuotaNode, fr: FlavorResource, over: bool) -> None:
        """``node`` went over (or back within) its quota on ``fr``: update the sets. O(1)."""
        parent = node.parent
        if parent is not None:
            s = parent.over_children.get(fr)
            if s is None:
                s = parent.over_children[fr] = set()
            if over:
                s.add(node)
            else:
                s.discard(node)
        if node.is_cluster_queue:
            root = node.path[-1]
            s = root.over_queues.get(fr)
            if s is None:
                s = root.over_queues[fr] = set()
            if over:
                s.add(node)
            else:
                s.discard(node)

    def entries_match(self, config: PreemptionConfig) -> bool:
        """Are the stored entries keyed as ``config`` orders candidates? (Not under AFS: ORD-3
        is not a per-queue key, and its comparator needs the name order of CL-GEN-7a.)

        Without an index, entries keyed for other (boost, cost) switches are recomputed for
        ``config`` first (O(n) once; later decisions under the same switches reuse them). With
        an index they stay keyed for the index's switches.
        """
        if config.admission_fair_sharing:
            return False
        switches = (config.priority_boost, config.preemption_cost_enabled)
        if switches == (self._key_boost, self._key_cost):
            return True
        if self._index is not None:
            return False
        self._rekey(*switches)
        return True

    def _rekey(self, boost: bool, cost: bool) -> None:
        """Recompute every entry for other (boost, cost) switches. O(n)."""
        self._key_boost, self._key_cost = boost, cost
        self._parked.clear()
        self._n_unreserved = 0
        for node in self._queues.values():
            node.entries = {}
            node.unreserved = {}
            for key, w in node.workloads.items():
                self._enter(node, key, w)

    def candidate_entries(
        self, node: QuotaNode, frs: AbstractSet[FlavorResource], now: datetime
    ) -> list[Entry]:
        """Entries of ``node``'s workloads that use one of ``frs`` (POL-9), unsorted.

        O(m) for the m such workloads; no key is computed except for unreserved workloads.
        """
        by_fr = node.entries
        out: list[Entry]
        if len(frs) == 1:
            for fr in frs:
                d = by_fr.get(fr)
                out = list(d.values()) if d else []
        else:
            merged: dict[str, Entry] = {}
            for fr in frs:
                d = by_fr.get(fr)
                if d:
                    merged.update(d)
            out = list(merged.values())
        if node.unreserved:
            out += self._unreserved_entries(node, frs, now, None)
        return out

    def _unreserved_entries(
        self, node: QuotaNode, frs: AbstractSet[FlavorResource], now: datetime, evicted: bool | None
    ) -> list[Entry]:
        return [
            make_entry(w, key, node.name, now, self._key_boost, self._key_cost)
            for key, w in node.unreserved.items()
            if not w.used_flavor_resources.isdisjoint(frs) and (evicted is None or w.evicted == evicted)
        ]

    def has_unreserved(self) -> bool:
        """Does any queue hold a workload without a reservation time (built per decision)? O(1)."""
        return self._n_unreserved > 0

    def candidate_stream(
        self,
        index: CandidateIndex,
        node: QuotaNode,
        frs: AbstractSet[FlavorResource],
        now: datetime,
        evicted: bool | None,
        bound: int | None,
    ) -> Iterator[Entry]:
        """``index``'s lazy stream of ``node``'s entries (see :meth:`CandidateIndex.stream`),
        with the queue's unreserved workloads merged in at ``now``."""
        stored = index.stream(node.name, frs, evicted, bound)
        hidden = self._hidden
        if hidden:  # removed inside the current what-if block (see __init__)
            stored = (e for e in stored if e[6] not in hidden)
        if not node.unreserved:
            return stored
        aside = sorted(
            e for e in self._unreserved_entries(node, frs, now, evicted) if bound is None or e[1] < bound
        )
        return dedupe(heapq.merge(stored, aside)) if aside else stored

    @staticmethod
    def over_children(node: QuotaNode, frs: Iterable[FlavorResource]) -> set[QuotaNode]:
        """Children of cohort ``node`` over their quota on some FlavorResource of ``frs`` (Q-11)."""
        out: set[QuotaNode] = set()
        for fr in frs:
            s = node.over_children.get(fr)
            if s:
                out |= s
        return out

    @staticmethod
    def borrowing_queues(root: QuotaNode, frs: Iterable[FlavorResource]) -> set[QuotaNode]:
        """ClusterQueues of ``root``'s tree over nominal on some FlavorResource of ``frs`` (Q-11)."""
        out: set[QuotaNode] = set()
        for fr in frs:
            s = root.over_queues.get(fr)
            if s:
                out |= s
        return out

    # ------------------------------------------------------------------ lookups

    def cluster_queue(self, name: str) -> QuotaNode:
        """The node of ClusterQueue ``name``; :class:`UnknownClusterQueue` if absent."""
        node = self._queues.get(name)
        if node is None:
            raise UnknownClusterQueue("Snapshot", "cluster_queue", name)
        return node

    def cohort(self, name: str) -> QuotaNode:
        """The node of cohort ``name`` (implicit ones included); :class:`UnknownCohort` if absent."""
        node = self._cohorts.get(name)
        if node is None:
            raise UnknownCohort("Snapshot", "cohort", name)
        return node

    @property
    def priority_classes(self) -> Mapping[str, WorkloadPriorityClass]:
        return self._classes

    def is_non_preemptible(self, workload: Workload) -> bool:
        """NP-2: the workload's override flag, else its WorkloadPriorityClass says ``Never``.

        Pod PriorityClass references, no reference and unknown classes are preemptible.
        This is the class fact only; whether the feature is on is the caller's switch (NP-14).
        """
        if workload.non_preemptible is not None:
            return workload.non_preemptible
        ref = workload.priority_class
        if ref is None or not ref.is_workload_priority_class:
            return False
        wpc = self._classes.get(ref.name)
        return wpc is not None and wpc.preemption_policy is ClassPreemptionPolicy.NEVER

    def enable_index(self, config: PreemptionConfig | None = None) -> CandidateIndex:
        """Build and keep a :class:`~kueue_preempt.snapshot.index.CandidateIndex` for ``config``.

        Decisions under a matching configuration then merge per-queue sorted lists instead of
        sorting every candidate; results are identical. O(n log n) once, then
        O(log n) per ``add_workload``/``remove_workload``.
        """
        config = config or PreemptionConfig()
        if (config.priority_boost, config.preemption_cost_enabled) != (self._key_boost, self._key_cost):
            self._rekey(config.priority_boost, config.preemption_cost_enabled)
        index = CandidateIndex(config.priority_boost, config.preemption_cost_enabled)
        for node in self._queues.values():
            seen: set[str] = set()
            for d in node.entries.values():
                for key, entry in d.items():
                    if key not in seen:
                        seen.add(key)
                        index.add(entry)
        self._index = index
        self._index_valid = self._journal is None
        return index

    def disable_index(self) -> None:
        """Drop the candidate index; decisions take the plain path."""
        self._index = None
        self._index_valid = False

    def index_for(self, config: PreemptionConfig) -> CandidateIndex | None:
        """The candidate index, if it is current and built for ``config``'s ordering key.

        Removals inside :meth:`preserved` hide their entries (see ``__init__``) and keep it
        current; any other change of a workload set inside the block makes it stale."""
        index = self._index
        if index is None or not self._index_valid or not index.matches(config) or not self.entries_match(config):
            return None
        return index

    def has_cluster_queue(self, name: str) -> bool:
        return name in self._queues

    @property
    def cluster_queues(self) -> Mapping[str, QuotaNode]:
        return self._queues

    @property
    def cohorts(self) -> Mapping[str, QuotaNode]:
        return self._cohorts

    def workloads(self) -> Iterator[Workload]:
        """Every workload holding quota, by ClusterQueue name then key."""
        for name in sorted(self._queues):
            node = self._queues[name]
            for key in sorted(node.workloads):
                yield node.workloads[key]

    def path(self, cq: QuotaNode) -> str:
        """``/root/.../parent/cq`` as Kueue prints it in messages (MSG-4). Cached: the tree
        never changes, and every target's message names its queue's path."""
        text = self._paths.get(cq)
        if text is None:
            text = self._paths[cq] = "/" + "/".join(n.name for n in reversed(cq.path))
        return text

    def subtree(self, node: QuotaNode) -> list[QuotaNode]:
        """``node`` and all its descendants, parents first, children by name."""
        out = [node]
        i = 0
        while i < len(out):
            n = out[i]
            out.extend(n.child_cohorts)
            out.extend(n.child_queues)
            i += 1
        return out

    # ------------------------------------------------------------------ quota arithmetic

    @staticmethod
    def local_available(node: QuotaNode, fr: FlavorResource) -> int:
        """Q-8: unused lending-limit-protected quota, ``max(0, LQ - U)``."""
        lq = node.local_quota.get(fr)
        if lq is None:
            return 0
        return max(0, amount_sub(lq, node.usage.get(fr, 0)))

    @staticmethod
    def _plan(node: QuotaNode, fr: FlavorResource) -> _QuotaPlan:
        """Build and cache ``node``'s :data:`_QuotaPlan` for ``fr`` (O(depth), once)."""
        path = node.path
        links = tuple(
            (n, n.usage, n.local_quota.get(fr), n.subtree_quota.get(fr, 0), n.parent is None) for n in path
        )
        steps: list[_Step] = []
        for i in range(len(path) - 2, -1, -1):  # top down, the root excluded
            n = path[i]
            bl = n.borrowing_limit.get(fr)
            lq = n.local_quota.get(fr)
            if bl is None and lq is None:
                continue  # this level neither limits nor adds headroom
            sq = n.subtree_quota.get(fr, 0)
            steps.append((i, n.usage, bl, lq, sq if lq is None else amount_sub(sq, lq)))
        root_quota = path[-1].subtree_quota.get(fr, 0)
        numbers = [root_quota] + [x for _, _, lq, sq, _ in links for x in (lq, sq) if x is not None]
        numbers += [x for _, _, bl, lq, stored in steps for x in (bl, lq, stored) if x is not None]
        small = len(path) <= _SMALL_DEPTH and all(-_SMALL < x < _SMALL for x in numbers)
        plan = (links, root_quota, tuple(steps), small)
        node.plans[fr] = plan
        return plan

    def available(self, node: QuotaNode, fr: FlavorResource, usages: list[int] | None = None) -> int:
        """Q-9: headroom for ``fr`` at ``node``, clamped at 0. O(depth).

        ``usages``: the usage of ``fr`` of every node on ``node.path`` to use instead of the
        live ones (see :meth:`fits_without`).
        """
        links, root_quota, steps, small = node.plans.get(fr) or self._plan(node, fr)
        u = links[-1][1].get(fr, 0) if usages is None else usages[-1]
        if small and -_SMALL < u < _SMALL:
            # The same formula in plain arithmetic (see _SMALL); any large usage falls back.
            a = root_quota - u
            for i, usage, bl, lq, stored in steps:
                u = usage.get(fr, 0) if usages is None else usages[i]
                if not -_SMALL < u < _SMALL:
                    break
                if bl is not None:
                    used = (u if u > 0 else 0) if lq is None else (u - lq if u > lq else 0)
                    limit = stored - used + bl
                    if limit < a:
                        a = limit
                if lq is not None and lq > u:
                    a += lq - u
            else:
                return a if a > 0 else 0
        a = amount_sub(root_quota, links[-1][1].get(fr, 0) if usages is None else usages[-1])
        for i, usage, bl, lq, stored in steps:
            u = usage.get(fr, 0) if usages is None else usages[i]
            if bl is not None:
                used = max(0, u) if lq is None else max(0, amount_sub(u, lq))
                a = min(a, amount_add(amount_sub(stored, used), bl))
            if lq is not None:  # Q-8's local headroom, inlined: this runs for every fit test
                a = amount_add(max(0, amount_sub(lq, u)), a)
        return max(0, a)

    def potential_available(self, node: QuotaNode, fr: FlavorResource) -> int:
        """Q-10: what ``node`` could use of ``fr`` if nothing else were used. O(depth) once,
        then O(1): it reads only quotas, which never change after the snapshot is built."""
        cached = node.potential.get(fr)
        if cached is None:
            cached = node.potential[fr] = self._potential_available(node, fr)
        return cached

    @staticmethod
    def _potential_available(node: QuotaNode, fr: FlavorResource) -> int:
        path = node.path
        a = path[-1].subtree_quota.get(fr, 0)
        for i in range(len(path) - 2, -1, -1):
            n = path[i]
            a = amount_add(n.local_quota.get(fr, 0), a)
            bl = n.borrowing_limit.get(fr)
            if bl is not None:
                a = min(a, amount_add(n.subtree_quota.get(fr, 0), bl))
        return a

    def lendable(self, node: QuotaNode, resource: str) -> int:
        """FS-DRS-1's ``lendable``: Q-10 at ``node`` summed over every flavor of ``resource``.

        The flavors are those of the root's subtree quota. Cached: it does not depend on usage.
        """
        key = (node, resource)
        cached = self._lendable.get(key)
        if cached is None:
            cached = 0
            for fr in node.root.subtree_quota:
                if fr.resource == resource:
                    cached = amount_add(cached, self.potential_available(node, fr))
            self._lendable[key] = cached
        return cached

    @staticmethod
    def borrowing_with(node: QuotaNode, fr: FlavorResource, extra: int = 0) -> bool:
        """Q-11: would ``node`` exceed its (subtree) quota with ``extra`` more of ``fr``?"""
        return amount_add(node.usage.get(fr, 0), extra) > node.subtree_quota.get(fr, 0)

    @staticmethod
    def within_nominal(node: QuotaNode, frs: Iterable[FlavorResource]) -> bool:
        """Q-12: usage <= subtree quota on every FlavorResource of ``frs``."""
        usage = node.usage
        sq = node.subtree_quota
        for fr in frs:  # a plain loop: this runs for every queue a decision visits
            if usage.get(fr, 0) > sq.get(fr, 0):
                return False
        return True

    def fit_probe(self, node: QuotaNode, request: Usage) -> tuple[bool, dict[FlavorResource, int]]:
        """Q-13: does ``request`` fit in ``node``'s own quota, and what remains above its local headroom."""
        fits = True
        remaining: dict[FlavorResource, int] = {}
        plans = node.plans
        for fr, v in request.items():
            # The node's own link of its quota plan: the static numbers in one lookup, and
            # plain arithmetic when they are small (see _SMALL); else the saturating formula.
            plan = plans.get(fr) or self._plan(node, fr)
            _, usage, lq, sq, _ = plan[0][0]
            u = usage.get(fr, 0)
            if plan[3] and -_SMALL < v < _SMALL and -_SMALL < u < _SMALL:
                if sq < u + v:
                    fits = False
                r = v - (lq - u) if lq is not None and lq > u else v  # Q-8's local headroom
                remaining[fr] = r if r > 0 else 0
                continue
            if node.subtree_quota.get(fr, 0) < amount_add(node.usage.get(fr, 0), v):
                fits = False
            remaining[fr] = max(0, amount_sub(v, self.local_available(node, fr)))
        return fits, remaining

    def fits(self, cq: QuotaNode, request: Usage, *, allow_borrowing: bool) -> bool:
        """GT-5: does ``request`` fit in ``cq`` now (without borrowing, if not allowed)?"""
        borrowing_with = self.borrowing_with
        for fr, v in request.items():
            if not allow_borrowing and borrowing_with(cq, fr, v):
                return False
            if v > self.available(cq, fr):
                return False
        return True

    def fits_without(self, cq: QuotaNode, request: Usage, removed: Usage, *, allow_borrowing: bool) -> bool:
        """GT-5 as if ``removed`` were first taken from ``cq`` with :meth:`remove_usage`, without
        changing the snapshot (fair sharing's fit test without the simulated preemptor usage,
        FS-RUN-1). O(F · depth), no journal."""
        for fr, v in request.items():
            path = cq.path
            usages = [n.usage.get(fr, 0) for n in path]
            r = removed.get(fr)
            if r is not None:  # Q-7 removal, exactly as remove_usage walks up
                for i, n in enumerate(path):
                    used = usages[i]
                    stored = amount_sub(used, n.local_quota.get(fr, 0))
                    usages[i] = amount_sub(used, r)
                    if n.parent is None or stored <= 0:
                        break
                    r = min(r, stored)
            if not allow_borrowing and amount_add(usages[0], v) > cq.subtree_quota.get(fr, 0):
                return False
            if v > self.available(cq, fr, usages):
                return False
        return True

    def removal_reach(self, cq: QuotaNode, usage: Usage, ancestor: QuotaNode) -> dict[FlavorResource, int]:
        """What :meth:`remove_usage` of ``usage`` at ``cq`` would subtract from ``ancestor``'s
        usage, per FlavorResource (Q-7's walk, read only); FlavorResources whose removal stops
        below ``ancestor`` are absent. O(F · depth)."""
        out: dict[FlavorResource, int] = {}
        for fr, v in usage.items():
            for n in cq.path:
                if n is ancestor:
                    out[fr] = v
                    break
                if n.parent is None:
                    break
                used = n.usage.get(fr, 0)
                lq = n.local_quota.get(fr)
                stored = used if lq is None else amount_sub(used, lq)
                if stored <= 0:
                    break
                if stored < v:
                    v = stored
        return out

    def fit_test(self, cq: QuotaNode, request: Usage) -> FitTest:
        """:meth:`fits` for one fixed ``request`` at ``cq``, prepared once (a decision asks after
        every removal): see :class:`FitTest`."""
        return FitTest(self, cq, request)

    def fits_with(
        self, cq: QuotaNode, request: Usage, added_cq: QuotaNode, added: Usage, *, allow_borrowing: bool
    ) -> bool:
        """GT-5 as if ``added`` were first given to ``added_cq`` with :meth:`add_usage`, without
        changing the snapshot: fill-back's test of a re-admission (FB-2), which usually fails,
        so the workload is then not added and removed again. O(F · depth), no journal."""
        for fr, v in request.items():
            a = added.get(fr)
            usages = None if a is None or added_cq.path[-1] is not cq.path[-1] else self._usages_after_add(cq, fr, added_cq, a)
            u = cq.usage.get(fr, 0) if usages is None else usages[0]
            if not allow_borrowing and amount_add(u, v) > cq.subtree_quota.get(fr, 0):
                return False
            if v > self.available(cq, fr, usages):
                return False
        return True

    def _usages_after_add(self, cq: QuotaNode, fr: FlavorResource, added_cq: QuotaNode, v: int) -> list[int]:
        """The usage of ``fr`` of every node on ``cq.path`` after ``add_usage(added_cq, {fr: v})``
        (Q-7), computed as :meth:`add_usage` walks, without writing it."""
        links, _, _, small = added_cq.plans.get(fr) or self._plan(added_cq, fr)
        small = small and -_SMALL < v < _SMALL
        after: dict[QuotaNode, int] = {}
        for node, node_usage, lq, _, is_root in links:
            used = node_usage.get(fr, 0)
            if small and -_SMALL < used < _SMALL:
                la = 0 if lq is None or lq <= used else lq - used
                after[node] = used + v
            else:
                la = 0 if lq is None else max(0, amount_sub(lq, used))
                after[node] = amount_add(used, v)
            if is_root or v <= la:
                break
            v = v - la if small else amount_sub(v, la)
        return [after[n] if n in after else n.usage.get(fr, 0) for n in cq.path]

    def lowest_fitting_height(self, cq: QuotaNode, fr: FlavorResource, value: int) -> tuple[int, bool]:
        """Q-16: the borrowing level of ``value`` more ``fr`` and whether a proper subtree fits it."""
        plan = cq.plans.get(fr) or self._plan(cq, fr)
        if plan[3] and -_SMALL < value < _SMALL:
            got = _plain_fitting_height(plan, fr, value)
            if got is not None:
                return got
        return self._lowest_fitting_height(cq, fr, value)

    def fitting_height_and_available(self, cq: QuotaNode, fr: FlavorResource, value: int) -> tuple[int, bool, int]:
        """:meth:`lowest_fitting_height` and :meth:`available` at once (a flavor judgement
        asks both, FAS-6)."""
        height, may_reclaim = self.lowest_fitting_height(cq, fr, value)
        return height, may_reclaim, self.available(cq, fr)

    def _lowest_fitting_height(self, cq: QuotaNode, fr: FlavorResource, value: int) -> tuple[int, bool]:
        """:meth:`lowest_fitting_height` in saturating arithmetic (Q-2), for any numbers."""
        if not self.borrowing_with(cq, fr, value) or cq.parent is None:
            return 0, cq.parent is not None
        rem = amount_sub(value, self.local_available(cq, fr))
        for node in cq.ancestors():
            if not self.borrowing_with(node, fr, rem):
                return node.height, node.parent is not None
            rem = amount_sub(rem, self.local_available(node, fr))
        return cq.root.height, False

    # ------------------------------------------------------------------ mutation (DM-11, Q-7)

    def _track_np(self, node: QuotaNode, workload: Workload, sign: int) -> None:
        """NP-5: keep the ClusterQueue's non-preemptible usage in step with its workloads."""
        if not self.is_non_preemptible(workload):
            return
        npu = node.np_usage
        for fr, v in workload.usage.items():
            if self._journal is not None:
                self._journal.append(("np", node, fr, npu.get(fr), None))
            npu[fr] = amount_add(npu.get(fr, 0), v) if sign > 0 else amount_sub(npu.get(fr, 0), v)

    def add_usage(self, cq: QuotaNode, usage: Usage) -> None:
        """Add ``usage`` to ``cq`` and propagate what exceeds local headroom upward (Q-7).

        Walks the path's plan (the inner loop of every removal and fill-back step). Each write
        is journaled with the old value and whether it crossed the subtree quota, and updates
        the over-quota sets when it does.

        Outside a :meth:`preserved` block the change is permanent (simulated usage, SC-PE-2), so
        the arguments are checked there: ``cq`` must be one of this snapshot's ClusterQueues and
        ``usage`` map FlavorResources to int64 amounts (negative ones allowed: SC-PE-2's
        reservation may be one). Inside a block, on the decisions' hot path, they are not."""
        journal = self._journal
        if journal is None:
            self._check_usage_args("Snapshot.add_usage", cq, usage)
        plans = cq.plans
        for fr, v in usage.items():
            links, _, _, small = plans.get(fr) or self._plan(cq, fr)
            small = small and -_SMALL < v < _SMALL  # v only shrinks on the way up
            for node, node_usage, lq, sq, is_root in links:
                old = node_usage.get(fr)
                used = old or 0
                if small and -_SMALL < used < _SMALL:  # plain arithmetic, see _SMALL
                    la = 0 if lq is None or lq <= used else lq - used
                    value = used + v
                else:
                    la = 0 if lq is None else max(0, amount_sub(lq, used))
                    value = amount_add(used, v)
                node_usage[fr] = value
                crossed = (used > sq) is not (value > sq)
                if crossed:
                    self._mark_over(node, fr, value > sq)
                if journal is not None:
                    journal.append(("usage", node, fr, old, crossed))
                if is_root or v <= la:
                    break
                v = v - la if small else amount_sub(v, la)

    def remove_usage(self, cq: QuotaNode, usage: Usage) -> None:
        """Remove ``usage`` from ``cq`` and from the ancestors that counted it (Q-7).

        Walks the path's plan, as :meth:`add_usage` does, and checks its arguments outside a
        :meth:`preserved` block as :meth:`add_usage` does."""
        journal = self._journal
        if journal is None:
            self._check_usage_args("Snapshot.remove_usage", cq, usage)
        plans = cq.plans
        for fr, v in usage.items():
            links, _, _, small = plans.get(fr) or self._plan(cq, fr)
            small = small and -_SMALL < v < _SMALL  # v only shrinks on the way up
            for node, node_usage, lq, sq, is_root in links:
                old = node_usage.get(fr)
                used = old or 0
                plain = small and -_SMALL < used < _SMALL  # plain arithmetic, see _SMALL
                value = used - v if plain else amount_sub(used, v)
                node_usage[fr] = value
                crossed = (used > sq) is not (value > sq)
                if crossed:
                    self._mark_over(node, fr, value > sq)
                if journal is not None:
                    journal.append(("usage", node, fr, old, crossed))
                if is_root:
                    break
                if lq is None:
                    stored = used
                else:
                    stored = used - lq if plain else amount_sub(used, lq)
                if stored <= 0:
                    break
                if stored < v:  # v = min(v, stored), without the call
                    v = stored

    def _check_usage_args(self, function: str, cq: object, usage: object) -> None:
        """The arguments of a permanent :meth:`add_usage`/:meth:`remove_usage` (Q-6, DM-11)."""
        if not isinstance(cq, QuotaNode) or self._queues.get(cq.name) is not cq:
            what = repr(cq) if isinstance(cq, QuotaNode) else type(cq).__name__
            raise InvalidArgument(function, "cq", f"expected a ClusterQueue node of this snapshot, got {what:.60}")
        if not isinstance(usage, Mapping):
            raise InvalidArgument(function, "usage", f"expected a mapping of FlavorResource to amount, got {type(usage).__name__}")
        for fr, v in usage.items():
            if not isinstance(fr, FlavorResource):
                raise InvalidArgument(function, "usage", f"keys must be FlavorResource, got {fr!r:.40}")
            if isinstance(v, bool) or not isinstance(v, int):
                raise InvalidArgument(function, f"usage[{fr}]", f"expected an int amount, got {type(v).__name__}")
            if not MIN_AMOUNT <= v <= UNLIMITED:
                raise InvalidArgument(function, f"usage[{fr}]", f"{v} is outside the int64 range of amounts (Q-1)")

    @staticmethod
    def _refuse_outside_block(function: str) -> None:
        raise InvalidArgument(
            function, "workload", "a trial removal is only allowed inside Snapshot.preserved() (DM-11); "
            "use remove_workload/add_workload to change what is admitted"
        )

    def admitted_in(self, key: str) -> QuotaNode | None:
        """The ClusterQueue holding the workload ``key`` (``namespace/name``), if any (DM-7)."""
        return self._admitted.get(key)

    def add_workload(self, workload: Workload) -> None:
        """Insert ``workload`` into its ClusterQueue and add its usage (DM-11).

        A workload whose ``namespace/name`` is already admitted, in this ClusterQueue or
        another, is a :class:`~kueue_preempt.errors.DuplicateName` (DM-7: a key holds quota in
        one place); nothing changes then."""
        if type(workload) is not Workload and not isinstance(workload, Workload):
            raise InvalidArgument("Snapshot.add_workload", "workload", f"expected a Workload, got {type(workload).__name__}")
        node = self._queues.get(workload.cluster_queue)
        if node is None:
            raise UnknownClusterQueue(f"Workload {workload.key}", "cluster_queue", workload.cluster_queue)
        key = workload.key
        admitted = self._admitted
        if key in admitted:
            raise DuplicateName("Workload", key)
        admitted[key] = node
        node.workloads[key] = workload
        entry = self._enter(node, key, workload)
        if self._journal is not None:
            self._journal.append(("add", node, workload, None, None))
            if entry is None:
                pass  # no reservation time: never indexed (streams read node.unreserved live)
            elif key in self._hidden and self._parked_again(key, entry):
                # The entry the block hid, back: the index lists it already.
                self._hidden.discard(key)
                self._journal.append(("hide", None, key, True, None))
            else:
                self._index_valid = False
        elif self._index is not None and entry is not None:
            self._index.add(entry)
        self.add_usage(node, workload.usage)
        if workload.non_preemptible is not False and (
            workload.non_preemptible or workload.priority_class is not None
        ):  # the common case, no class and no override, skips the NP-2 lookup
            self._track_np(node, workload, +1)

    def remove_workload(self, workload: Workload) -> None:
        """Delete the workload ``workload.key`` from ClusterQueue ``workload.cluster_queue`` and
        release the usage it was charged (DM-11).

        Removal is by key: the *stored* workload's usage is released, whatever the usage of the
        object passed in (an updated copy of the same workload must not leave phantom usage,
        docs/decisions.md). A key not admitted in that ClusterQueue is an
        :class:`~kueue_preempt.errors.UnknownWorkload`; nothing changes then."""
        if type(workload) is not Workload and not isinstance(workload, Workload):
            raise InvalidArgument("Snapshot.remove_workload", "workload", f"expected a Workload, got {type(workload).__name__}")
        node = self._queues.get(workload.cluster_queue)
        if node is None:
            raise UnknownClusterQueue(f"Workload {workload.key}", "cluster_queue", workload.cluster_queue)
        key = workload.key
        stored = node.workloads.pop(key, None)
        if stored is None:
            elsewhere = self._admitted.get(key)
            raise UnknownWorkload(
                "Snapshot.remove_workload", key, node.name, None if elsewhere is None else elsewhere.name
            )
        del self._admitted[key]
        entry = self._leave(node, key, stored)
        if self._journal is not None:
            self._journal.append(("remove", node, stored, None, None))
            if entry is None:
                pass  # no reservation time: never indexed
            elif self._index_valid and key not in self._hidden:
                # Hidden rather than stale: the index's lists are left as a running decision
                # may be iterating them, and every later stream skips the key.
                self._hidden.add(key)
                self._journal.append(("hide", None, key, False, None))
            else:
                self._index_valid = False
        elif self._index is not None and entry is not None:
            self._index.remove(entry)
        self.remove_usage(node, stored.usage)  # what was charged (DM-11), not the argument's
        if stored.non_preemptible is not False and (stored.non_preemptible or stored.priority_class is not None):
            self._track_np(node, stored, -1)

    def take_usage(self, node: QuotaNode, workload: Workload) -> None:
        """Remove the usage of ``workload``, admitted in ClusterQueue ``node``, as
        :meth:`remove_workload` does (Q-7, NP-5), but leave it in the queue's workload set and
        stored entries: a decision's trial removal (CL-ATT-2), after which only usages are read.
        Use inside :meth:`preserved`; undo with :meth:`return_usage` or by leaving the block.
        Skipping the set and entry bookkeeping (and its undoing) is about a tenth of a
        classic decision. Outside a block it is an ``InvalidArgument``: the usage would be gone for
        good while the workload stays admitted (DM-11)."""
        if self._journal is None:
            self._refuse_outside_block("Snapshot.take_usage")
        self.remove_usage(node, workload.usage)
        if workload.non_preemptible is not False and (workload.non_preemptible or workload.priority_class is not None):
            self._track_np(node, workload, -1)

    def return_usage(self, node: QuotaNode, workload: Workload) -> None:
        """Undo :meth:`take_usage` (fill-back's re-admission, FB-2); inside :meth:`preserved` only."""
        if self._journal is None:
            self._refuse_outside_block("Snapshot.return_usage")
        self.add_usage(node, workload.usage)
        if workload.non_preemptible is not False and (workload.non_preemptible or workload.priority_class is not None):
            self._track_np(node, workload, +1)

    def preserved(self) -> AbstractContextManager[Snapshot]:
        """Run a block of what-if changes and restore the exact prior state on exit (GT-3).

        Every usage write and workload-set change inside the block is journaled with the
        old value and undone in reverse order, even if the block raises. Nested blocks are
        allowed. Cost is proportional to the number of changes, not to the snapshot size.
        (A small class rather than ``@contextmanager``: decisions open thousands of blocks.)
        """
        return _Preserved(self)

    def _begin(self) -> tuple[list[tuple[Any, ...]] | None, bool]:
        outer = (self._journal, self._index_valid)
        self._journal = []
        return outer

    def _restore(self, outer_state: tuple[list[tuple[Any, ...]] | None, bool]) -> None:
        outer, index_valid = outer_state
        journal = self._journal
        assert journal is not None
        self._journal = None
        self._index_valid = index_valid
        # Undone in exact reverse order, so when a usage entry is undone the value in place is
        # the one it wrote: the over-quota sets flip back exactly when the write crossed the
        # quota (recorded), with no lookup of the current value or the quota.
        for op, node, x, old, crossed in reversed(journal):
            if op == "usage":
                target = node.usage
                if crossed:
                    self._mark_over(node, x, (old or 0) > node.subtree_quota.get(x, 0))
                if old is None:
                    target.pop(x, None)
                else:
                    target[x] = old
            elif op == "np":
                if old is None:
                    node.np_usage.pop(x, None)
                else:
                    node.np_usage[x] = old
            elif op == "hide":  # x: the key; old: whether it was hidden before
                if old:
                    self._hidden.add(x)
                else:
                    self._hidden.discard(x)
            elif op == "add":
                key = x.key
                del node.workloads[key]
                del self._admitted[key]
                self._leave(node, key, x)
            else:
                key = x.key
                node.workloads[key] = x
                self._admitted[key] = node
                self._enter(node, key, x)
        # The inner block's changes are already undone, so the outer journal must not
        # see them again.
        self._journal = outer
        if outer is None:
            self._parked.clear()

    def state(self) -> tuple[object, ...]:
        """A comparable value of every usage map and workload set (for GT-3 checks in tests)."""
        nodes = sorted(self._queues.values(), key=lambda n: n.name) + sorted(
            self._cohorts.values(), key=lambda n: n.name
        )
        return tuple(
            (n.kind, n.name, tuple(sorted(n.usage.items())), tuple(sorted(n.np_usage.items())), tuple(sorted(n.workloads)))
            for n in nodes
        )

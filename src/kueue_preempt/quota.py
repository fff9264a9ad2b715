"""The quota tree / snapshot (Q-3..Q-16, DM-11): the only mutable object in a decision.

A :class:`Snapshot` is built from cohorts, ClusterQueues and the workloads that hold quota.
It owns every usage number. Algorithms mutate it only through :meth:`Snapshot.add_workload`,
:meth:`Snapshot.remove_workload`, :meth:`Snapshot.add_usage` and :meth:`Snapshot.remove_usage`,
inside :meth:`Snapshot.preserved`, which records the old value of every usage entry and every
workload-set change and puts them back on exit. Restoring by value rather than by applying
inverse operations is what keeps GT-3 exact even when amounts saturate (DM-11, Q-7).

Every walk over the tree is iterative (paths are precomputed tuples), so a deep or malicious
cohort chain cannot exhaust the interpreter stack.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterable, Iterator, Mapping

from ._checks import iter_args
from .config import PreemptionConfig
from .errors import CohortCycle, DuplicateName, InputTooLarge, UnknownClusterQueue, UnknownCohort
from .model import (
    ClassPreemptionPolicy,
    ClusterQueue,
    Cohort,
    FlavorResource,
    ResourceQuota,
    Workload,
    WorkloadPriorityClass,
)
from .index import CandidateIndex
from .quantity import amount_add, amount_sub

__all__ = ["QuotaNode", "Snapshot", "MAX_COHORT_DEPTH", "MAX_OBJECTS"]

MAX_COHORT_DEPTH = 1000
"""Deepest cohort chain accepted; deeper trees are rejected as absurd input."""
MAX_OBJECTS = 10_000_000
"""Largest number of ClusterQueues + cohorts + workloads accepted in one snapshot."""

Usage = Mapping[FlavorResource, int]


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
        self._journal: list[tuple[object, ...]] | None = None
        # Potential capacity depends only on quotas and limits, never on usage, so the
        # per-(parent, resource) sums fair sharing asks for repeatedly are cached.
        self._lendable: dict[tuple[QuotaNode, str], int] = {}
        self._index: CandidateIndex | None = None
        # The index follows add/remove outside what-if blocks only; a change inside one makes
        # it stale until the block restores the state it was built for.
        self._index_valid = False
        self._classes: dict[str, WorkloadPriorityClass] = {}
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
        self._check_cycles()
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
        for node in self._nodes_top_down():
            node.path = (node,) + (node.parent.path if node.parent is not None else ())
            if len(node.path) > MAX_COHORT_DEPTH + 1:
                raise InputTooLarge(f"{node.kind} {node.name!r} is deeper than {MAX_COHORT_DEPTH} cohorts")

    def _check_cycles(self) -> None:
        state: dict[str, int] = {}  # 1 = on the current chain, 2 = known acyclic
        for start in self._cohorts.values():
            chain: list[QuotaNode] = []
            node: QuotaNode | None = start
            while node is not None and state.get(node.name) is None:
                state[node.name] = 1
                chain.append(node)
                node = node.parent
            if node is not None and state[node.name] == 1:
                names = [n.name for n in chain]
                raise CohortCycle(names[names.index(node.name) :] + [node.name])
            for n in chain:
                state[n.name] = 2

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
        seen: set[str] = set()
        for w in workloads:
            count += 1
            if count > MAX_OBJECTS:
                raise InputTooLarge(f"more than {MAX_OBJECTS} objects in one snapshot")
            node = self._queues.get(w.cluster_queue)
            if node is None:
                raise UnknownClusterQueue(f"Workload {w.key}", "cluster_queue", w.cluster_queue)
            if w.key in seen:
                raise DuplicateName("Workload", w.key)
            seen.add(w.key)
            node.workloads[w.key] = w
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
        """Build and keep a :class:`~kueue_preempt.index.CandidateIndex` for ``config``.

        Decisions under a matching configuration then merge per-queue sorted lists instead of
        sorting every candidate (issue 7); results are identical. O(n log n) once, then
        O(log n) per ``add_workload``/``remove_workload``.
        """
        config = config or PreemptionConfig()
        index = CandidateIndex(config.priority_boost, config.preemption_cost_enabled)
        for node in self._queues.values():
            for w in node.workloads.values():
                index.add(node, w)
        self._index = index
        self._index_valid = self._journal is None
        return index

    def disable_index(self) -> None:
        """Drop the candidate index; decisions take the plain path."""
        self._index = None
        self._index_valid = False

    def index_for(self, config: PreemptionConfig) -> CandidateIndex | None:
        """The candidate index, if it is current and built for ``config``'s ordering key."""
        index = self._index
        if index is None or not self._index_valid or not index.matches(config):
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
        """``/root/.../parent/cq`` as Kueue prints it in messages (MSG-4)."""
        return "/" + "/".join(n.name for n in reversed(cq.path))

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

    def available(self, node: QuotaNode, fr: FlavorResource) -> int:
        """Q-9: headroom for ``fr`` at ``node``, clamped at 0. O(depth)."""
        path = node.path
        root = path[-1]
        a = amount_sub(root.subtree_quota.get(fr, 0), root.usage.get(fr, 0))
        for i in range(len(path) - 2, -1, -1):
            n = path[i]
            bl = n.borrowing_limit.get(fr)
            lq = n.local_quota.get(fr, 0)
            if bl is not None:
                stored = amount_sub(n.subtree_quota.get(fr, 0), lq)
                used = max(0, amount_sub(n.usage.get(fr, 0), lq))
                a = min(a, amount_add(amount_sub(stored, used), bl))
            a = amount_add(self.local_available(n, fr), a)
        return max(0, a)

    def potential_available(self, node: QuotaNode, fr: FlavorResource) -> int:
        """Q-10: what ``node`` could use of ``fr`` if nothing else were used. O(depth)."""
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
        for fr, v in request.items():
            if node.subtree_quota.get(fr, 0) < amount_add(node.usage.get(fr, 0), v):
                fits = False
            remaining[fr] = max(0, amount_sub(v, self.local_available(node, fr)))
        return fits, remaining

    def fits(self, cq: QuotaNode, request: Usage, *, allow_borrowing: bool) -> bool:
        """GT-5: does ``request`` fit in ``cq`` now (without borrowing, if not allowed)?"""
        for fr, v in request.items():
            if not allow_borrowing and self.borrowing_with(cq, fr, v):
                return False
            if v > self.available(cq, fr):
                return False
        return True

    def lowest_fitting_height(self, cq: QuotaNode, fr: FlavorResource, value: int) -> tuple[int, bool]:
        """Q-16: the borrowing level of ``value`` more ``fr`` and whether a proper subtree fits it."""
        if not self.borrowing_with(cq, fr, value) or cq.parent is None:
            return 0, cq.parent is not None
        rem = amount_sub(value, self.local_available(cq, fr))
        for node in cq.ancestors():
            if not self.borrowing_with(node, fr, rem):
                return node.height, node.parent is not None
            rem = amount_sub(rem, self.local_available(node, fr))
        return cq.root.height, False

    # ------------------------------------------------------------------ mutation (DM-11, Q-7)

    def _set(self, node: QuotaNode, fr: FlavorResource, value: int) -> None:
        if self._journal is not None:
            old = node.usage.get(fr)
            self._journal.append(("usage", node, fr, old))
        node.usage[fr] = value

    def _track_np(self, node: QuotaNode, workload: Workload, sign: int) -> None:
        """NP-5: keep the ClusterQueue's non-preemptible usage in step with its workloads."""
        if not self.is_non_preemptible(workload):
            return
        npu = node.np_usage
        for fr, v in workload.usage.items():
            if self._journal is not None:
                self._journal.append(("np", node, fr, npu.get(fr)))
            npu[fr] = amount_add(npu.get(fr, 0), v) if sign > 0 else amount_sub(npu.get(fr, 0), v)

    def add_usage(self, cq: QuotaNode, usage: Usage) -> None:
        """Add ``usage`` to ``cq`` and propagate what exceeds local headroom upward (Q-7)."""
        for fr, v in usage.items():
            node: QuotaNode | None = cq
            while node is not None:
                la = self.local_available(node, fr)
                self._set(node, fr, amount_add(node.usage.get(fr, 0), v))
                if node.parent is None or v <= la:
                    break
                v = amount_sub(v, la)
                node = node.parent

    def remove_usage(self, cq: QuotaNode, usage: Usage) -> None:
        """Remove ``usage`` from ``cq`` and from the ancestors that counted it (Q-7)."""
        for fr, v in usage.items():
            node: QuotaNode | None = cq
            while node is not None:
                stored = amount_sub(node.usage.get(fr, 0), node.local_quota.get(fr, 0))
                self._set(node, fr, amount_sub(node.usage.get(fr, 0), v))
                if node.parent is None or stored <= 0:
                    break
                v = min(v, stored)
                node = node.parent

    def add_workload(self, workload: Workload) -> None:
        """Insert ``workload`` into its ClusterQueue and add its usage (DM-11)."""
        node = self._queues.get(workload.cluster_queue)
        if node is None:
            raise UnknownClusterQueue(f"Workload {workload.key}", "cluster_queue", workload.cluster_queue)
        if workload.key in node.workloads:
            raise DuplicateName("Workload", workload.key)
        node.workloads[workload.key] = workload
        if self._journal is not None:
            self._journal.append(("add", node, workload))
            self._index_valid = False
        elif self._index is not None:
            self._index.add(node, workload)
        self.add_usage(node, workload.usage)
        self._track_np(node, workload, +1)

    def remove_workload(self, workload: Workload) -> None:
        """Delete ``workload`` from its ClusterQueue and remove its usage (DM-11)."""
        node = self._queues.get(workload.cluster_queue)
        if node is None:
            raise UnknownClusterQueue(f"Workload {workload.key}", "cluster_queue", workload.cluster_queue)
        stored = node.workloads.pop(workload.key, None)
        if stored is None:
            raise UnknownClusterQueue(
                f"Workload {workload.key}", "cluster_queue", f"{workload.cluster_queue} (workload not admitted there)"
            )
        if self._journal is not None:
            self._journal.append(("remove", node, stored))
            self._index_valid = False
        elif self._index is not None:
            self._index.remove(node, stored)
        self.remove_usage(node, workload.usage)
        self._track_np(node, stored, -1)

    @contextmanager
    def preserved(self) -> Iterator[Snapshot]:
        """Run a block of what-if changes and restore the exact prior state on exit (GT-3).

        Every usage write and workload-set change inside the block is journaled with the
        old value and undone in reverse order, even if the block raises. Nested blocks are
        allowed. Cost is proportional to the number of changes, not to the snapshot size.
        """
        outer = self._journal
        index_valid = self._index_valid
        journal: list[tuple[object, ...]] = []
        self._journal = journal
        try:
            yield self
        finally:
            self._journal = None
            self._index_valid = index_valid
            for entry in reversed(journal):
                op = entry[0]
                node = entry[1]
                assert isinstance(node, QuotaNode)
                if op == "usage" or op == "np":
                    fr, old = entry[2], entry[3]
                    assert isinstance(fr, FlavorResource)
                    target = node.usage if op == "usage" else node.np_usage
                    if old is None:
                        target.pop(fr, None)
                    else:
                        assert isinstance(old, int)
                        target[fr] = old
                elif op == "add":
                    w = entry[2]
                    assert isinstance(w, Workload)
                    del node.workloads[w.key]
                else:
                    w = entry[2]
                    assert isinstance(w, Workload)
                    node.workloads[w.key] = w
            # The inner block's changes are already undone, so the outer journal must not
            # see them again.
            self._journal = outer

    def state(self) -> tuple[object, ...]:
        """A comparable value of every usage map and workload set (for GT-3 checks in tests)."""
        nodes = sorted(self._queues.values(), key=lambda n: n.name) + sorted(
            self._cohorts.values(), key=lambda n: n.name
        )
        return tuple(
            (n.kind, n.name, tuple(sorted(n.usage.items())), tuple(sorted(n.np_usage.items())), tuple(sorted(n.workloads)))
            for n in nodes
        )

"""A recomputing quota model written from the spec (Q-3..Q-6, Q-8, Q-9, Q-12, Q-13, GT-5).

:class:`SpecTree` recomputes every quantity from the model objects of a scenario and a set of
admitted workloads, without the library's :class:`~kueue_preempt.Snapshot`, so checkers can
cross-check the library's fit answers.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Protocol, Sequence

from kueue_preempt import ClusterQueue, Cohort, FlavorResource, Workload

__all__ = ["Node", "Usage", "QuotaTree", "SpecTree", "workload_usage"]

Usage = Mapping[FlavorResource, int]


class QuotaTree(Protocol):
    """What :class:`SpecTree` reads from a scenario: its ClusterQueues and Cohorts."""

    @property
    def cluster_queues(self) -> Sequence[ClusterQueue]: ...

    @property
    def cohorts(self) -> Sequence[Cohort]: ...


Node = tuple[str, str]  # ("cq" | "cohort", name)


def workload_usage(w: Workload) -> dict[FlavorResource, int]:
    """DM-7 ``usage()``: per-FR sum over pod sets; resources without a flavor do not count."""
    out: dict[FlavorResource, int] = {}
    for ps in w.pod_sets:
        for r, v in ps.usage.items():
            f = ps.flavors.get(r)
            if f is not None:
                fr = FlavorResource(f, r)
                out[fr] = out.get(fr, 0) + v
    return out


class SpecTree:
    """A recomputing quota model of a scenario with a given set of admitted workloads.

    Amounts in generated scenarios are tiny, so plain integers reproduce Q-2 exactly.
    """

    def __init__(self, scenario: QuotaTree, workloads: Sequence[Workload]) -> None:
        self.parent: dict[Node, Node | None] = {}
        self.quotas: dict[Node, dict[FlavorResource, tuple[int, int | None, int | None]]] = {}
        for c in scenario.cohorts:
            node = ("cohort", c.name)
            self.parent[node] = None if c.parent is None else ("cohort", c.parent)
            self.quotas[node] = {
                fr: (q.nominal, q.borrowing_limit, q.lending_limit) for fr, q in c.quotas.items()
            }
        for cq in scenario.cluster_queues:
            node = ("cq", cq.name)
            self.parent[node] = None if cq.cohort is None else ("cohort", cq.cohort)
            self.quotas[node] = {
                fr: (q.nominal, q.borrowing_limit, q.lending_limit) for fr, q in cq.quotas.items()
            }
        for p in list(self.parent.values()):  # implicit cohorts: no parent, no quota
            if p is not None and p not in self.parent:
                self.parent[p] = None
                self.quotas[p] = {}
        self.children: dict[Node, list[Node]] = {n: [] for n in self.parent}
        for n, p in self.parent.items():
            if p is not None:
                self.children[p].append(n)
        self.cq_usage: dict[str, dict[FlavorResource, int]] = {cq.name: {} for cq in scenario.cluster_queues}
        for w in workloads:
            u = self.cq_usage[w.cluster_queue]
            for fr, v in workload_usage(w).items():
                u[fr] = u.get(fr, 0) + v

    #
    def sq(self, n: Node, fr: FlavorResource) -> int:
        nominal = self.quotas[n].get(fr, (0, None, None))[0]
        if n[0] == "cq":
            return nominal
        return nominal + sum(self.sq(k, fr) - self.lq(k, fr) for k in self.children[n])

    #
    def lq(self, n: Node, fr: FlavorResource) -> int:
        ll = self.quotas[n].get(fr, (0, None, None))[2]
        return 0 if ll is None else max(0, self.sq(n, fr) - ll)

    def bl(self, n: Node, fr: FlavorResource) -> int | None:
        return self.quotas[n].get(fr, (0, None, None))[1]

    #
    def u(self, n: Node, fr: FlavorResource) -> int:
        if n[0] == "cq":
            return self.cq_usage[n[1]].get(fr, 0)
        return sum(max(0, self.u(k, fr) - self.lq(k, fr)) for k in self.children[n])

    #
    def local_available(self, n: Node, fr: FlavorResource) -> int:
        return max(0, self.lq(n, fr) - self.u(n, fr))

    #
    def _avail(self, n: Node, fr: FlavorResource) -> int:
        p = self.parent[n]
        if p is None:
            return self.sq(n, fr) - self.u(n, fr)
        a = self._avail(p, fr)
        bl = self.bl(n, fr)
        if bl is not None:
            stored = self.sq(n, fr) - self.lq(n, fr)
            used = max(0, self.u(n, fr) - self.lq(n, fr))
            a = min(a, stored - used + bl)
        return self.local_available(n, fr) + a

    def available(self, n: Node, fr: FlavorResource) -> int:
        return max(0, self._avail(n, fr))

    # GT-5
    def fits(self, cq: str, request: Usage, *, allow_borrowing: bool) -> bool:
        n = ("cq", cq)
        for fr, v in request.items():
            if not allow_borrowing and self.u(n, fr) + v > self.sq(n, fr):
                return False
            if v > self.available(n, fr):
                return False
        return True

    #
    def within_nominal(self, n: Node, frs: Iterable[FlavorResource]) -> bool:
        return all(self.u(n, fr) <= self.sq(n, fr) for fr in frs)

    #
    def fit_probe(self, n: Node, req: Usage) -> tuple[bool, dict[FlavorResource, int]]:
        fits = all(self.sq(n, fr) >= self.u(n, fr) + v for fr, v in req.items())
        rem = {fr: max(0, v - self.local_available(n, fr)) for fr, v in req.items()}
        return fits, rem

    def ancestors(self, n: Node) -> list[Node]:
        out = []
        p = self.parent[n]
        while p is not None:
            out.append(p)
            p = self.parent[p]
        return out

    def root(self, n: Node) -> Node:
        anc = self.ancestors(n)
        return anc[-1] if anc else n

    #
    def sq_keys(self, n: Node) -> frozenset[FlavorResource]:
        """The FRs of ``n``'s SQ map: a ClusterQueue's declared FRs; for a cohort its own
        declared FRs and every FR of its children's maps (zero values included)."""
        keys = set(self.quotas[n])
        for k in self.children[n]:
            keys |= self.sq_keys(k)
        return frozenset(keys)

    #
    def pot(self, n: Node, fr: FlavorResource) -> int:
        """Potential available: capacity with zero usage, LQ plus the parent's potential,
        capped by SQ + BL."""
        p = self.parent[n]
        if p is None:
            return self.sq(n, fr)
        a = self.lq(n, fr) + self.pot(p, fr)
        bl = self.bl(n, fr)
        return a if bl is None else min(a, self.sq(n, fr) + bl)

    #
    def height(self, n: Node) -> int:
        """0 for a ClusterQueue or a childless cohort, 1 for a cohort of ClusterQueues only,
        else one more than its highest child cohort."""
        kids = self.children[n]
        cohorts = [self.height(k) + 1 for k in kids if k[0] == "cohort"]
        return max(min(len(kids), 1), max(cohorts, default=0))

    #
    def borrowing_with(self, n: Node, fr: FlavorResource, v: int) -> bool:
        """Would ``n`` borrow on ``fr`` with ``v`` more usage?"""
        return self.u(n, fr) + v > self.sq(n, fr)

    #
    def lowest_fitting_height(self, cq: str, fr: FlavorResource, v: int) -> tuple[int, bool]:
        """The height of the lowest node at which ``v`` more of ``fr`` fits without borrowing
        from above, and whether that node has a parent."""
        n: Node = ("cq", cq)
        has_parent = self.parent[n] is not None
        if not self.borrowing_with(n, fr, v) or not has_parent:
            return 0, has_parent
        rem = v - self.local_available(n, fr)
        for a in self.ancestors(n):
            if not self.borrowing_with(a, fr, rem):
                return self.height(a), self.parent[a] is not None
            rem -= self.local_available(a, fr)
        return self.height(self.root(n)), False


def sq_keys(tree: SpecTree, n: Node) -> frozenset[FlavorResource]:
    """Q-5: :meth:`SpecTree.sq_keys` as a function."""
    return tree.sq_keys(n)


def potential_available(tree: SpecTree, n: Node, fr: FlavorResource) -> int:
    """Q-10: :meth:`SpecTree.pot` as a function."""
    return tree.pot(n, fr)

"""The mutable cluster state the PodGroup and per-node algorithms work on (PG-2, FIT-1).

Reading guide: :class:`Cluster` is built once from frozen model objects (nodes, pods,
groups, PDBs) and owns every usage number: exact integer sums of requests and pod counts per
node. The algorithms change it only through operations with exact inverses —
:meth:`~Cluster.remove` / :meth:`~Cluster.restore` a preemption unit (on every node it
occupies), the same for a whole priority level (:meth:`~Cluster.remove_level`), and
:meth:`~Cluster.assume` / :meth:`~Cluster.forget` a preemptor pod on a node — and every
algorithm returns the cluster exactly as it found it (checked with :meth:`~Cluster.state` in
the tests), so one :class:`Cluster` can serve many preemptors. A run ends with
:meth:`~Cluster.rollback` to a :meth:`~Cluster.checkpoint` taken at its start (restore by
value, O(nodes)), which also covers a run interrupted by an exception. Caller objects are
never mutated: model objects are frozen and the usage numbers are the cluster's own.

Layout: every node is a row of integers in one flat list — column 0 is the pod count, then
one column per resource name that any node or running pod mentions. A unit's footprint is
precomputed as ``(flat index, amount)`` pairs, so removing or restoring it is one tight loop
of integer additions; moving the KEP search between priority levels (§9.1) touches each
level's precomputed footprint once.

:class:`NodeFilter` selects the fit rule: FIT-1 (``pods`` count plus every requested
resource), the abstract ``units`` rule of kube-scheduler's PodGroup unit tests, or no filter.
:class:`NodeScratch` is a private copy of one node for the per-node dry run (NODE-5..NODE-8).
"""

from __future__ import annotations

import enum
from typing import Iterable, Mapping, NamedTuple, Sequence

from kueue_preempt.errors import DuplicateName, InvalidModel
from kueue_preempt.podgroup.errors import UnknownNode
from kueue_preempt.podgroup.model import CompositePodGroup, Node, Pod, PodDisruptionBudget, PodGroup
from kueue_preempt.podgroup.pdb import PdbIndex, PdbSelectorSemantics
from kueue_preempt.podgroup.units import GroupIndex, PreemptionUnit, build_units

__all__ = ["NodeFilter", "Cluster", "Checkpoint", "NodeScratch"]

_Load = tuple[tuple[int, int], ...]
"""A footprint: ``(flat index, amount)`` pairs, pod counts included."""


class NodeFilter(str, enum.Enum):
    """Which rule decides whether a pod fits a node."""

    RESOURCE_FIT = "resources"
    """FIT-1: one more pod within ``allocatable["pods"]``, and every resource the pod requests
    (non-zero) within allocatable, counting every pod present (assumed preemptor pods too)."""
    UNITS = "units"
    """The test model of kube-scheduler's PodGroup tests: only ``requests["units"]`` is
    summed and compared with ``allocatable["units"]``; no pod-count check."""
    NONE = "none"
    """No filter registered: every pod fits every node."""

    def __str__(self) -> str:
        return self.value


_UNITS = "units"
_PODS = "pods"


class Checkpoint(NamedTuple):
    """Opaque saved state of a :class:`Cluster` (see :meth:`Cluster.checkpoint`)."""

    usage: tuple[int, ...]
    removed_units: frozenset[str]
    assumed: int


class Cluster:
    """Nodes, the pods bound to them, the group hierarchy and PDBs, with exact usage.

    Pods with a ``node_name`` are running (they occupy their node, PG-2, PG-11); pods without
    one are pending and only matter for nominations (NODE-13). Raises
    :class:`~kueue_preempt.errors.DuplicateName` for two nodes, pods (same namespace) or
    groups with one name, and :class:`~kueue_preempt.podgroup.UnknownNode` for a pod bound
    to an unknown node. Building costs O(nodes + pods); units (PG-8) are built on first use.
    """

    __slots__ = (
        "node_filter",
        "groups",
        "pdb_index",
        "_nodes",
        "_index",
        "_names",
        "_columns",
        "_column_names",
        "_width",
        "_alloc",
        "_used",
        "_running",
        "_pending",
        "_by_node",
        "_units",
        "_unit_of",
        "_loads",
        "_levels",
        "_demands",
        "_removed",
        "_assumed",
    )

    def __init__(
        self,
        nodes: Iterable[Node],
        pods: Iterable[Pod] = (),
        *,
        pod_groups: Iterable[PodGroup] = (),
        composite_pod_groups: Iterable[CompositePodGroup] = (),
        pdbs: Iterable[PodDisruptionBudget] = (),
        node_filter: NodeFilter = NodeFilter.RESOURCE_FIT,
        composite_pod_groups_enabled: bool = True,
    ) -> None:
        self.node_filter = NodeFilter(node_filter)
        self._nodes: tuple[Node, ...] = tuple(nodes)
        self._index: dict[str, int] = {}
        for i, node in enumerate(self._nodes):
            if not isinstance(node, Node):
                raise InvalidModel("Cluster", "nodes", f"{node!r} is not a Node")
            if node.name in self._index:
                raise DuplicateName("Node", node.name)
            self._index[node.name] = i
        self._names: tuple[str, ...] = tuple(n.name for n in self._nodes)
        self._by_node: list[list[Pod]] = [[] for _ in self._nodes]
        running: list[Pod] = []
        pending: list[Pod] = []
        seen: set[tuple[str, str]] = set()
        for pod in pods:
            if not isinstance(pod, Pod):
                raise InvalidModel("Cluster", "pods", f"{pod!r} is not a Pod")
            if pod.key in seen:
                raise DuplicateName("Pod", f"{pod.namespace}/{pod.name}")
            seen.add(pod.key)
            if pod.node_name is None:
                pending.append(pod)
                continue
            at = self._index.get(pod.node_name)
            if at is None:
                where = f"Pod {pod.namespace}/{pod.name}" if pod.namespace else f"Pod {pod.name}"
                raise UnknownNode(where, "node_name", pod.node_name)
            running.append(pod)
            self._by_node[at].append(pod)
        self._running: tuple[Pod, ...] = tuple(running)
        self._pending: tuple[Pod, ...] = tuple(pending)

        # Column 0 counts pods; one column per resource any node or running pod names.
        named = {r for n in self._nodes for r in n.amounts} | {r for p in running for r, _ in p.request_items}
        resources = sorted(named)
        self._columns: dict[str, int] = {r: c for c, r in enumerate(resources, start=1)}
        self._column_names: tuple[str, ...] = (_PODS, *resources)
        width = self._width = len(resources) + 1
        self._alloc: list[int] = [0] * (len(self._nodes) * width)
        for i, node in enumerate(self._nodes):
            base = i * width
            self._alloc[base] = node.amounts.get(_PODS) or 0
            for resource, amount in node.amounts.items():
                self._alloc[base + self._columns[resource]] = amount
        self._used: list[int] = [0] * len(self._alloc)
        for pod in running:
            base = self._index[pod.node_name or ""] * width
            self._used[base] += 1
            for resource, amount in pod.request_items:
                self._used[base + self._columns[resource]] += amount

        self.groups = GroupIndex(pod_groups, composite_pod_groups, composites_enabled=composite_pod_groups_enabled)
        self.pdb_index = PdbIndex(pdbs)
        self._units: tuple[PreemptionUnit, ...] | None = None
        self._unit_of: dict[tuple[str, str], PreemptionUnit] = {}
        self._loads: dict[str, _Load] = {}
        self._levels: dict[int, tuple[frozenset[str], _Load]] = {}
        self._demands: dict[tuple[str, str], tuple[Pod, _Load, bool]] = {}
        self._removed: set[str] = set()
        self._assumed: list[tuple[int, _Load]] = []

    # ------------------------------------------------------------------ reading

    @property
    def nodes(self) -> tuple[Node, ...]:
        """The nodes in input order (placement visits them in this order, FIT-3)."""
        return self._nodes

    @property
    def node_names(self) -> tuple[str, ...]:
        """The node names in input order."""
        return self._names

    def node(self, name: str) -> Node:
        return self._nodes[self._node_index(name)]

    def has_node(self, name: str) -> bool:
        return name in self._index

    def node_index(self, node_name: str) -> int:
        """Position of ``node_name`` in :attr:`nodes`."""
        return self._node_index(node_name)

    @property
    def running_pods(self) -> tuple[Pod, ...]:
        """Every pod bound to a node, in input order (including terminating ones, PG-11)."""
        return self._running

    @property
    def pending_pods(self) -> tuple[Pod, ...]:
        return self._pending

    def pods_on(self, node_name: str) -> tuple[Pod, ...]:
        """The pods bound to ``node_name`` in the input (unaffected by removals)."""
        i = self._index.get(node_name)
        return () if i is None else tuple(self._by_node[i])

    @property
    def pdbs(self) -> tuple[PodDisruptionBudget, ...]:
        return self.pdb_index.pdbs

    def covering_pdbs(self, pod: Pod, semantics: PdbSelectorSemantics) -> tuple[int, ...]:
        """Indices into :attr:`pdbs` of the budgets covering ``pod`` (PDB-1)."""
        return self.pdb_index.covering(pod, semantics)

    @property
    def units(self) -> tuple[PreemptionUnit, ...]:
        """Every preemption unit of the cluster (PG-8, PG-22), most important first (SCORE-1).

        Built on first use and cached: units depend only on the (immutable) input.
        """
        return self._ensure_units()

    def unit_of(self, pod: Pod) -> PreemptionUnit:
        """The unit a running pod belongs to (PG-8)."""
        self._ensure_units()
        unit = self._unit_of.get(pod.key)
        if unit is None:
            raise InvalidModel(f"Pod {pod.namespace}/{pod.name}", "node_name", "is not a running pod of this cluster")
        return unit

    def effective_priority(self, pod: Pod) -> int:
        """PG-7 for any pod of this cluster's namespaces."""
        return self.groups.effective_priority(pod)

    # ------------------------------------------------------------------ fit (FIT-1)

    def fits(self, pod: Pod, node_name: str) -> bool:
        """Whether ``pod`` fits ``node_name`` in the current state (FIT-1 or the chosen filter)."""
        base = self._node_index(node_name) * self._width
        return self._fits_row(pod, self._used, base, base)

    def fits_at(self, pod: Pod, index: int) -> bool:
        """:meth:`fits` by node position."""
        base = index * self._width
        return self._fits_row(pod, self._used, base, base)

    def first_fit(self, pod: Pod, start: int = 0) -> int:
        """Index of the first node, scanning circularly from ``start``, where ``pod`` fits now;
        -1 if none. The hot loop of FIT-3, kept in one frame. O(nodes)."""
        n = len(self._nodes)
        if n == 0:
            return -1
        if self.node_filter is NodeFilter.NONE:
            return start % n
        used, alloc, width = self._used, self._alloc, self._width
        if self.node_filter is NodeFilter.UNITS:
            column = self._columns.get(_UNITS)
            units = pod.amounts.get(_UNITS) or 0
            for j in range(n):
                i = (start + j) % n
                if column is None:
                    if units <= 0:
                        return i
                elif used[i * width + column] + units <= alloc[i * width + column]:
                    return i
            return -1
        demand, known = self._demand(pod)
        if not known:
            return -1  # it requests a resource no node has
        for j in range(n):
            base = ((start + j) % n) * width
            if used[base] + 1 > alloc[base]:
                continue
            for column, amount in demand:
                if used[base + column] + amount > alloc[base + column]:
                    break
            else:
                return base // width
        return -1

    def fit_failures(self, pod: Pod, node_name: str) -> tuple[str, ...]:
        """Why ``pod`` does not fit ``node_name`` now (``"Insufficient cpu"``...); empty if it fits."""
        base = self._node_index(node_name) * self._width
        return self._failures_row(pod, self._used, base, base)

    # ------------------------------------------------------------------ mutation

    def remove(self, unit: PreemptionUnit) -> None:
        """Take every pod of ``unit`` off its node (all nodes). Inverse: :meth:`restore`."""
        self.remove_all((unit,))

    def restore(self, unit: PreemptionUnit) -> None:
        """Put every pod of a removed ``unit`` back where it was. Inverse of :meth:`remove`."""
        self.restore_all((unit,))

    def remove_all(self, units: Iterable[PreemptionUnit]) -> None:
        """:meth:`remove` for each of ``units``."""
        removed, used = self._removed, self._used
        for unit in units:
            if unit.key in removed:
                raise InvalidModel(f"unit {unit.key}", "removed", "is already removed")
            removed.add(unit.key)
            for j, amount in self._loads.get(unit.key) or self._load(unit):
                used[j] -= amount

    def restore_all(self, units: Iterable[PreemptionUnit]) -> None:
        """:meth:`restore` for each of ``units``."""
        removed, used = self._removed, self._used
        for unit in units:
            if unit.key not in removed:
                raise InvalidModel(f"unit {unit.key}", "removed", "is not removed")
            removed.discard(unit.key)
            for j, amount in self._loads.get(unit.key) or self._load(unit):
                used[j] += amount

    def remove_level(self, priority: int) -> None:
        """Remove every unit of effective priority ``priority`` (none may be removed yet).

        The KEP search (§9.1) moves between priority levels; a level's footprint is summed
        once per cluster, so this costs O(nodes the level touches). Inverse: :meth:`restore_level`.
        """
        keys, load = self._level(priority)
        if not self._removed.isdisjoint(keys):
            raise InvalidModel(f"priority level {priority}", "removed", "has units that are already removed")
        self._removed |= keys
        used = self._used
        for j, amount in load:
            used[j] -= amount

    def restore_level(self, priority: int) -> None:
        """Put back every unit of priority ``priority`` (all must be removed). Inverse of
        :meth:`remove_level`."""
        keys, load = self._level(priority)
        if not keys <= self._removed:
            raise InvalidModel(f"priority level {priority}", "removed", "has units that are not removed")
        self._removed -= keys
        used = self._used
        for j, amount in load:
            used[j] += amount

    def first_roomy_level(self, pods: Sequence[Pod], min_count: int, priorities: Sequence[int]) -> int:
        """Index of the first of ``priorities`` (levels removed cumulatively from the current
        state, as the KEP search does) at which a *necessary* condition for placing
        ``min_count`` of ``pods`` under FIT-1 holds; ``len(priorities)`` if it holds at none.

        The condition: every placed pod takes one ``pods`` slot
        and at least the smallest request of the group in every resource, so a node with free
        room ``f`` can hold at most ``min(f[col] // smallest[col])`` of them, and the nodes
        together must reach ``min_count``. Levels below the returned index therefore fail any
        placement that checks FIT-1 — without running one. Only meaningful for
        :attr:`NodeFilter.RESOURCE_FIT`; other filters return 0 (no pruning). Costs one pass
        over the nodes plus the levels' precomputed footprints, about one placement; the
        cluster is not changed.
        """
        if self.node_filter is not NodeFilter.RESOURCE_FIT or min_count <= 0 or not self._nodes:
            return 0
        smallest: dict[int, int] = {}
        known_pods = 0
        for pod in pods:
            demand, known = self._demand(pod)
            if not known:
                continue  # it fits no node (FIT-1): it can never count towards min_count
            known_pods += 1
            have = dict(demand)
            for column in range(1, self._width):
                amount = have.get(column, 0)
                if amount < smallest.get(column, amount + 1):
                    smallest[column] = amount
        if known_pods < min_count:
            return len(priorities)
        # Column 0 (the pod count) always costs one slot; columns nobody requests cost nothing.
        costs = ((0, 1),) + tuple((c, a) for c, a in sorted(smallest.items()) if a > 0)
        width, alloc = self._width, self._alloc
        free = [a - u for a, u in zip(alloc, self._used)]

        def room(base: int) -> int:
            best = min_count  # a node never needs to hold more than the whole quorum
            for column, amount in costs:
                n = free[base + column] // amount
                if n < best:
                    best = n if n > 0 else 0
                    if best == 0:
                        break
            return best

        counts = [room(i * width) for i in range(len(self._nodes))]
        total = sum(counts)
        if total >= min_count:
            return 0
        for level, priority in enumerate(priorities):
            touched: set[int] = set()
            for j, amount in self._level(priority)[1]:
                free[j] += amount
                touched.add(j // width)
            for i in touched:
                c = room(i * width)
                total += c - counts[i]
                counts[i] = c
            if total >= min_count:
                return level
        return len(priorities)

    def is_removed(self, unit: PreemptionUnit) -> bool:
        return unit.key in self._removed

    def assume(self, pod: Pod, node_name: str) -> None:
        """Count a preemptor pod on ``node_name`` (no fit check). Inverse: :meth:`forget`."""
        self.assume_at(pod, self._node_index(node_name))

    def assume_at(self, pod: Pod, index: int) -> None:
        """:meth:`assume` by node position. Resources no node offers are not tracked (no pod
        requesting one can ever fit, FIT-1)."""
        base = index * self._width
        demand, _ = self._demand(pod)
        load = ((base, 1),) + tuple((base + c, a) for c, a in demand)
        self._assumed.append((index, load))
        used = self._used
        for j, amount in load:
            used[j] += amount

    def forget(self, pod: Pod, node_name: str) -> None:
        """Undo the most recent :meth:`assume` of ``pod`` on ``node_name``."""
        i = self._node_index(node_name)
        base = i * self._width
        demand, _ = self._demand(pod)
        load = ((base, 1),) + tuple((base + c, a) for c, a in demand)
        for k in range(len(self._assumed) - 1, -1, -1):
            if self._assumed[k] == (i, load):
                del self._assumed[k]
                break
        else:
            raise InvalidModel(f"Pod {pod.namespace}/{pod.name}", "node_name", f"is not assumed on {node_name!r}")
        for j, amount in load:
            self._used[j] -= amount

    def assumed_mark(self) -> int:
        """A mark for :meth:`forget_all_since`."""
        return len(self._assumed)

    def forget_all_since(self, mark: int) -> None:
        """Undo every :meth:`assume` made after :meth:`assumed_mark` returned ``mark``."""
        used = self._used
        while len(self._assumed) > mark:
            _, load = self._assumed.pop()
            for j, amount in load:
                used[j] -= amount

    def assignments_fit(self, per_node: Mapping[str, Sequence[Pod]], nodes: Iterable[str]) -> bool:
        """Do the fixed assignments ``per_node`` (node name -> pods, in placement order) on
        ``nodes`` all pass, each pod checked and then assumed on its node, one after another?

        The replay of PG-27 step 3, also used for a nomination (PG-DELAY-1). Fit is node-local,
        so only the order of the pods on one node matters. The cluster is left unchanged.
        """
        mark = self.assumed_mark()
        try:
            for node in nodes:
                pods = per_node.get(node)
                if not pods:
                    continue
                index = self._node_index(node)
                for pod in pods:
                    if not self.fits_at(pod, index):
                        return False
                    self.assume_at(pod, index)
            return True
        finally:
            self.forget_all_since(mark)

    def checkpoint(self) -> Checkpoint:
        """Record every mutable number, to :meth:`rollback` to later. O(nodes × resources)."""
        return Checkpoint(tuple(self._used), frozenset(self._removed), len(self._assumed))

    def rollback(self, checkpoint: Checkpoint) -> None:
        """Write back the values :meth:`checkpoint` recorded (restore by value).

        The algorithms undo their changes with the exact inverses above as they go; a run
        ends with one rollback, which costs O(nodes) instead of one inverse per unit still
        removed, and leaves the cluster exactly as it was even if the run raised.
        """
        self._used[:] = checkpoint.usage
        self._removed.clear()
        self._removed.update(checkpoint.removed_units)
        del self._assumed[checkpoint.assumed :]

    def state(self) -> tuple[object, ...]:
        """A comparable picture of every mutable number (for "unchanged" checks in tests)."""
        width, names = self._width, self._column_names
        per_node = tuple(
            (
                self._used[i * width],
                tuple((names[c], self._used[i * width + c]) for c in range(1, width) if self._used[i * width + c]),
            )
            for i in range(len(self._nodes))
        )
        return (per_node, frozenset(self._removed), len(self._assumed))

    def without_pods(self, pods: Iterable[Pod]) -> Cluster:
        """A new cluster built from the same inputs minus ``pods`` (matched by namespace and
        name), as if they had left: their units shrink or disappear (PG-8) and their room is
        free. This cluster is not changed. Used when triggered preemptions are taken as
        completed (PG-DELAY-2). O(nodes + pods)."""
        gone = {p.key for p in pods}
        kept = [p for p in (*self._running, *self._pending) if p.key not in gone]
        return Cluster(
            self._nodes,
            kept,
            pod_groups=self.groups.pod_groups,
            composite_pod_groups=self.groups.composite_pod_groups,
            pdbs=self.pdbs,
            node_filter=self.node_filter,
            composite_pod_groups_enabled=self.groups.composites_enabled,
        )

    def scratch(self, node_name: str) -> NodeScratch:
        """A private copy of one node's current usage (NODE-5: "a copy of the node")."""
        return NodeScratch(self, self._node_index(node_name))

    # ------------------------------------------------------------------ helpers

    def _node_index(self, node_name: str) -> int:
        i = self._index.get(node_name)
        if i is None:
            raise UnknownNode("Cluster", "node", node_name)
        return i

    def _ensure_units(self) -> tuple[PreemptionUnit, ...]:
        if self._units is None:
            self._units = build_units(self._running, self.groups)
            self._unit_of = {p.key: u for u in self._units for p in u.pods}
        return self._units

    def _demand(self, pod: Pod) -> tuple[_Load, bool]:
        """``pod``'s requests as ``(column, amount)`` pairs, and whether every requested
        resource has a column (if not, the pod fits no node under FIT-1). Cached per pod."""
        cached = self._demands.get(pod.key)
        if cached is not None and cached[0] is pod:
            return cached[1], cached[2]
        columns = self._columns
        demand = tuple((columns[r], a) for r, a in pod.request_items if r in columns)
        known = len(demand) == len(pod.request_items)
        self._demands[pod.key] = (pod, demand, known)
        return demand, known

    def _load(self, unit: PreemptionUnit) -> _Load:
        sums: dict[int, int] = {}
        width, columns = self._width, self._columns
        for pod in unit.pods:
            if pod.node_name is None:
                continue
            base = self._node_index(pod.node_name) * width
            sums[base] = sums.get(base, 0) + 1
            for resource, amount in pod.request_items:
                j = base + columns[resource]
                sums[j] = sums.get(j, 0) + amount
        load = tuple(sorted(sums.items()))
        self._loads[unit.key] = load
        return load

    def _level(self, priority: int) -> tuple[frozenset[str], _Load]:
        level = self._levels.get(priority)
        if level is None:
            members = [u for u in self._ensure_units() if u.priority == priority]
            sums: dict[int, int] = {}
            for unit in members:
                for j, amount in self._loads.get(unit.key) or self._load(unit):
                    sums[j] = sums.get(j, 0) + amount
            level = (frozenset(u.key for u in members), tuple(sorted(sums.items())))
            self._levels[priority] = level
        return level

    def load_on(self, unit: PreemptionUnit, node_index: int) -> tuple[tuple[int, int], ...]:
        """``unit``'s footprint on one node as ``(column, amount)`` pairs (column 0 = pods)."""
        base = node_index * self._width
        end = base + self._width
        return tuple((j - base, a) for j, a in self._loads.get(unit.key) or self._load(unit) if base <= j < end)

    def _fits_row(self, pod: Pod, used: list[int], ubase: int, abase: int) -> bool:
        """FIT-1 (or the chosen filter) for the row at ``used[ubase:]`` and ``alloc[abase:]``."""
        node_filter = self.node_filter
        if node_filter is NodeFilter.NONE:
            return True
        alloc = self._alloc
        if node_filter is NodeFilter.UNITS:
            column = self._columns.get(_UNITS)
            units = pod.amounts.get(_UNITS) or 0
            if column is None:
                return units <= 0
            return used[ubase + column] + units <= alloc[abase + column]
        demand, known = self._demand(pod)
        if not known or used[ubase] + 1 > alloc[abase]:
            return False
        for column, amount in demand:
            if used[ubase + column] + amount > alloc[abase + column]:
                return False
        return True

    def _failures_row(self, pod: Pod, used: list[int], ubase: int, abase: int) -> tuple[str, ...]:
        """The reasons ``pod`` does not fit, in kube-scheduler's words (empty = it fits)."""
        node_filter = self.node_filter
        if node_filter is NodeFilter.NONE or self._fits_row(pod, used, ubase, abase):
            return ()
        if node_filter is NodeFilter.UNITS:
            return (f"Insufficient {_UNITS}",)
        reasons: list[str] = []
        if used[ubase] + 1 > self._alloc[abase]:
            reasons.append("Too many pods")
        columns = self._columns
        for resource, amount in pod.request_items:
            c = columns.get(resource)
            if c is None or used[ubase + c] + amount > self._alloc[abase + c]:
                reasons.append(f"Insufficient {resource}")
        return tuple(reasons)


class NodeScratch:
    """A copy of one node's usage, for evaluating it on its own (NODE-5..NODE-8, NODE-12).

    Only this node's capacity is tracked: removing a unit that spans several nodes takes
    off just its pods here (NODE-11).
    """

    __slots__ = ("_cluster", "index", "name", "_row", "_abase")

    def __init__(self, cluster: Cluster, index: int) -> None:
        self._cluster = cluster
        self.index = index
        self.name = cluster.node_names[index]
        width = cluster._width
        self._abase = index * width
        self._row = cluster._used[self._abase : self._abase + width]

    def remove(self, unit: PreemptionUnit) -> None:
        for column, amount in self._cluster.load_on(unit, self.index):
            self._row[column] -= amount

    def restore(self, unit: PreemptionUnit) -> None:
        for column, amount in self._cluster.load_on(unit, self.index):
            self._row[column] += amount

    def fits(self, pod: Pod) -> bool:
        return self._cluster._fits_row(pod, self._row, 0, self._abase)

    def failures(self, pod: Pod) -> tuple[str, ...]:
        return self._cluster._failures_row(pod, self._row, 0, self._abase)

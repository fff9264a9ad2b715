"""Group placement as an injectable function (FIT-2, FIT-3, §9.2).

Reading guide: a :data:`Placement` is a function ``(context, pods) -> assignments``. It sees
the cluster only through a :class:`PlacementContext` — node names in order, ``fits`` and
``assume`` — and returns ``(pod, node or None)`` pairs in placement order. The algorithm
(:func:`run_placement`) validates the answer, decides success (at least ``min_count`` pods
placed, FIT-2) and undoes every ``assume``, so a placement can never leave the cluster
changed.

Two placements ship with the library:

* :func:`round_robin_first_fit` — the default, and exactly kube-scheduler's deterministic
  test placement (FIT-3): nodes in cluster order; each pod tries nodes round-robin starting
  after the node of the previously placed pod and takes the first one it fits. It is a
  greedy first fit, not the full scheduler (no scoring); see docs/podgroup.md.
* :func:`fixed_placement` — returns assignments given in advance, without fit checks, as
  kube-scheduler's tests do with their mock.
"""

from __future__ import annotations

from typing import Callable, Iterable, Mapping, Sequence

import attrs

from kueue_preempt.podgroup.cluster import Cluster
from kueue_preempt.podgroup.errors import InvalidPlacement
from kueue_preempt.podgroup.model import Pod

__all__ = [
    "PlacementContext",
    "Placement",
    "PlacementOutcome",
    "round_robin_first_fit",
    "fixed_placement",
    "run_placement",
]


class PlacementContext:
    """The view of the cluster a placement function gets.

    ``fits`` checks a pod against a node's current state, which includes the pods this
    placement already assumed; ``assume`` records a pod on a node. ``min_count`` is how many
    pods must be placed for success, so a placement may stop early once that is out of reach.
    """

    __slots__ = ("_cluster", "node_names", "min_count")

    def __init__(self, cluster: Cluster, min_count: int) -> None:
        self._cluster = cluster
        self.node_names: tuple[str, ...] = cluster.node_names
        self.min_count = min_count

    def fits(self, pod: Pod, node: str) -> bool:
        return self._cluster.fits(pod, node)

    def fits_at(self, pod: Pod, index: int) -> bool:
        """:meth:`fits` for ``node_names[index]``, without the name lookup."""
        return self._cluster.fits_at(pod, index)

    def first_fit(self, pod: Pod, start: int = 0) -> int:
        """Index of the first node from ``start`` on (circularly) where ``pod`` fits; -1 if none."""
        return self._cluster.first_fit(pod, start)

    def assume(self, pod: Pod, node: str) -> None:
        self._cluster.assume(pod, node)

    def assume_at(self, pod: Pod, index: int) -> None:
        self._cluster.assume_at(pod, index)


Assignment = tuple[Pod, "str | None"]
Placement = Callable[[PlacementContext, Sequence[Pod]], Sequence[Assignment]]
"""``placement(context, pods) -> [(pod, node or None), ...]`` in placement order."""


def round_robin_first_fit(context: PlacementContext, pods: Sequence[Pod]) -> list[Assignment]:
    """FIT-3, the library's default placement.

    Each pod, in order, tries the nodes round-robin starting at the node after the one used
    by the previously *placed* pod (the first pod starts at the first node) and takes the
    first node it fits; a pod that fits nowhere stays unplaced. Once the remaining pods can no
    longer reach ``context.min_count``, the rest are left unplaced without trying: the
    outcome (failure) is the same, and a failing placement's assignments are never used.
    Complexity: O(pods × nodes) fit checks in the worst case.
    """
    n = len(context.node_names)
    out: list[Assignment] = []
    start = 0
    placed = 0
    for k, pod in enumerate(pods):
        if placed + (len(pods) - k) < context.min_count:
            out.extend((p, None) for p in pods[k:])
            break
        chosen = context.first_fit(pod, start)
        if chosen < 0:
            out.append((pod, None))
            continue
        context.assume_at(pod, chosen)
        out.append((pod, context.node_names[chosen]))
        placed += 1
        start = chosen + 1 if chosen + 1 < n else 0
    return out


def fixed_placement(assignments: Mapping[str, str | None] | Iterable[tuple[str, str | None]]) -> Placement:
    """A placement that returns ``assignments`` (pod name -> node or ``None``) verbatim.

    No fit check is made, like the mock of kube-scheduler's tests. Pods are returned in the
    order given; preemptor pods not named stay unplaced.
    """
    items = list(assignments.items()) if isinstance(assignments, Mapping) else list(assignments)

    def place(context: PlacementContext, pods: Sequence[Pod]) -> list[Assignment]:
        by_name = {p.name: p for p in pods}
        out: list[Assignment] = []
        for name, node in items:
            pod = by_name.get(name)
            if pod is None:
                raise InvalidPlacement("fixed", f"pod {name!r} is not a member of the preemptor")
            out.append((pod, node))
        return out

    return place


@attrs.frozen
class PlacementOutcome:
    """What one placement run produced (PG-26)."""

    assignments: tuple[tuple[Pod, str], ...]
    """The placed pods and their nodes, in placement order (unplaced pods dropped)."""
    succeeded: bool
    """At least ``min_count`` pods were placed (FIT-2)."""


def run_placement(cluster: Cluster, placement: Placement, pods: Sequence[Pod], min_count: int) -> PlacementOutcome:
    """Run ``placement`` on the current state of ``cluster``, then undo its assumptions.

    Raises :class:`~kueue_preempt.podgroup.InvalidPlacement` if the function names a pod that
    is not in ``pods``, names one twice, or names an unknown node.
    """
    mark = cluster.assumed_mark()
    try:
        raw = placement(PlacementContext(cluster, min_count), pods)
    finally:
        cluster.forget_all_since(mark)
    members = {p.key for p in pods}
    seen: set[tuple[str, str]] = set()
    placed: list[tuple[Pod, str]] = []
    # A user's placement function: its result is checked like an argument, so a wrong shape is
    # an InvalidPlacement naming the function, not a TypeError further on.
    if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Iterable):
        raise InvalidPlacement(_name(placement), f"expected a sequence of (pod, node or None) pairs, got {type(raw).__name__}")
    for i, item in enumerate(raw):
        if not (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], Pod) and (item[1] is None or isinstance(item[1], str))):
            raise InvalidPlacement(_name(placement), f"item {i}: expected a (Pod, node name or None) pair, got {type(item).__name__}")
        pod, node = item
        if pod.key not in members:
            raise InvalidPlacement(_name(placement), f"pod {pod.name!r} is not a member of the preemptor")
        if pod.key in seen:
            raise InvalidPlacement(_name(placement), f"pod {pod.name!r} is assigned twice")
        seen.add(pod.key)
        if node is None:
            continue
        if not cluster.has_node(node):
            raise InvalidPlacement(_name(placement), f"pod {pod.name!r} is assigned to unknown node {node!r}")
        placed.append((pod, node))
    return PlacementOutcome(tuple(placed), len(placed) >= min_count)


def _name(placement: Placement) -> str:
    return getattr(placement, "__name__", type(placement).__name__)

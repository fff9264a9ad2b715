"""The summary of a simulation, computed from its timeline alone (SC-SIM-13 item 8).

Definitions (``docs/simulation.md`` explains them with an example):

* **wait** of an arrival = its first ``admitted`` time − its ``arrived`` time. Workloads of the
  dump (``initial``) have no wait. Percentiles are *nearest-rank*: the p-th percentile of
  ``n`` sorted waits is the ``ceil(p/100 · n)``-th one. Arrivals never admitted are counted
  apart (``never_admitted``), not as infinite waits.
* **preemptions** count every ``preempted`` event (a workload preempted twice counts twice);
  per ClusterQueue they are attributed to the victim's queue, and per workload they are that
  total divided by the workloads seen in the queue.
* **preemption cycles**: "X preempts Y, later Y preempts X", detected by
  :func:`kueue_preempt.sim.output.cycles.detect_cycles` over the ``preempted`` events.
* **utilization**: a workload's usage counts from ``admitted`` until ``finished`` or, for a
  preemption victim, until ``released`` (not until ``preempted``: its quota is held until
  then). The mean utilization of a node is ∫usage dt ÷ (quota · span), per FlavorResource,
  where quota is the ClusterQueue's nominal quota or the cohort's subtree quota.
* **DRS** over time (FS-DRS-1) of every ClusterQueue and cohort, from the dump's quota tree.
* the **span** runs from 0 to ``until`` or, by default, the last event's time.

A cohort's figures cover every ClusterQueue below it. Without a dump only ClusterQueues are
summarised and quotas (hence utilization fractions and DRS) are unknown.
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping, Sequence

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.snapshot.drs import dominant_resource_share
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import ClusterDump
from kueue_preempt.model import FlavorResource
from kueue_preempt.sim.output.cycles import PreemptionCycle, detect_cycles
from kueue_preempt.snapshot.quota import Snapshot
from kueue_preempt.sim.output.timeline import Admitted, Arrived, Event, Finished, Livelock, Preempted, Released, RequeueRun

__all__ = [
    "nearest_rank",
    "WaitStats",
    "UsagePoint",
    "SharePoint",
    "QueueSummary",
    "PreemptionCycle",
    "Summary",
    "summarize",
    "arrival_waits",
]


def nearest_rank(values: Sequence[float], percentile: float) -> float | None:
    """The nearest-rank percentile of ``values`` (``None`` when empty): the
    ``ceil(percentile/100 · n)``-th smallest value, the smallest for percentile 0."""
    if not 0 <= percentile <= 100:
        raise ConfigurationError(f"percentile must be within [0, 100], got {percentile!r}")
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(percentile / 100 * len(ordered)))
    return ordered[rank - 1]


@attrs.frozen
class WaitStats:
    """Waits of the arrivals of one node that were admitted (nearest-rank percentiles)."""

    count: int = 0
    p50: float | None = None
    p90: float | None = None
    p99: float | None = None
    never_admitted: int = 0

    @classmethod
    def of(cls, waits: Sequence[float], never_admitted: int) -> WaitStats:
        return cls(
            count=len(waits),
            p50=nearest_rank(waits, 50),
            p90=nearest_rank(waits, 90),
            p99=nearest_rank(waits, 99),
            never_admitted=never_admitted,
        )


def _usage_map(value: Mapping[FlavorResource, int]) -> FrozenMap[FlavorResource, int]:
    return frozen_map(value)


def _float_map(value: Mapping[FlavorResource, float]) -> FrozenMap[FlavorResource, float]:
    return frozen_map(value)


@attrs.frozen
class UsagePoint:
    """From ``t`` on (until the next point), the node's usage was ``usage``."""

    t: float
    usage: FrozenMap[FlavorResource, int] = attrs.field(converter=_usage_map)


@attrs.frozen
class SharePoint:
    """From ``t`` on, the node's DRS (FS-DRS-3's precise value; ``inf`` for weight 0) was ``share``."""

    t: float
    share: float


def _usage_points(value: Iterable[UsagePoint]) -> tuple[UsagePoint, ...]:
    return tuple(value)


def _share_points(value: Iterable[SharePoint]) -> tuple[SharePoint, ...]:
    return tuple(value)


@attrs.frozen
class QueueSummary:
    """Figures of one ClusterQueue or cohort (``kind``) over the span."""

    name: str
    kind: str
    workloads: int
    """Distinct workloads seen in the node: arrivals plus the dump's pending and admitted ones."""
    admitted: int
    """Workloads admitted at least once (dump-admitted ones included)."""
    finished: int
    wait: WaitStats
    preemptions: int
    preempted_workloads: int
    cycles: int
    """Preemption cycles in which a workload of this node took part."""
    quota: FrozenMap[FlavorResource, int] = attrs.field(factory=FrozenMap, converter=_usage_map)
    utilization: FrozenMap[FlavorResource, float] = attrs.field(factory=FrozenMap, converter=_float_map)
    usage: tuple[UsagePoint, ...] = attrs.field(default=(), converter=_usage_points)
    drs: tuple[SharePoint, ...] = attrs.field(default=(), converter=_share_points)

    @property
    def preemptions_per_workload(self) -> float:
        return self.preemptions / self.workloads if self.workloads else 0.0


def _queues(value: Iterable[QueueSummary]) -> tuple[QueueSummary, ...]:
    return tuple(value)


def _cycles(value: Iterable[PreemptionCycle]) -> tuple[PreemptionCycle, ...]:
    return tuple(value)


def _livelocks(value: Iterable[Livelock]) -> tuple[Livelock, ...]:
    return tuple(value)


def _counts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


@attrs.frozen
class Summary:
    """ClusterQueues first, then cohorts, each sorted by name; the whole-run facts after."""

    span: float
    queues: tuple[QueueSummary, ...] = attrs.field(converter=_queues)
    cycles: tuple[PreemptionCycle, ...] = attrs.field(default=(), converter=_cycles)
    livelocks: tuple[Livelock, ...] = attrs.field(default=(), converter=_livelocks)
    preemptions_by_workload: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_counts)

    def queue(self, name: str, kind: str = "ClusterQueue") -> QueueSummary:
        for q in self.queues:
            if q.name == name and q.kind == kind:
                return q
        raise ConfigurationError(f"no {kind} {name!r} in the summary")


# --------------------------------------------------------------------------- computation


class _Node:
    __slots__ = ("name", "kind", "quota", "usage", "area", "since", "points", "shares", "changed")

    def __init__(self, name: str, kind: str, quota: Mapping[FlavorResource, int]) -> None:
        self.name = name
        self.kind = kind
        self.quota = dict(quota)
        self.usage: dict[FlavorResource, int] = {}
        self.area: dict[FlavorResource, float] = {}
        self.since = 0.0
        self.points: list[UsagePoint] = []
        self.shares: list[SharePoint] = []
        self.changed = False

    def settle(self, t: float) -> None:
        """Accumulate ∫usage dt up to ``t`` (usage is constant since ``self.since``)."""
        dt = t - self.since
        if dt > 0:
            for fr, v in self.usage.items():
                self.area[fr] = self.area.get(fr, 0.0) + v * dt
        self.since = max(self.since, t)

    def add(self, t: float, usage: Mapping[FlavorResource, int], sign: int) -> None:
        self.settle(t)
        for fr, v in usage.items():
            total = self.usage.get(fr, 0) + sign * v
            if total:
                self.usage[fr] = total
            else:
                self.usage.pop(fr, None)
        self.changed = True


class _Tree:
    """Nodes by (kind, name), each ClusterQueue's ancestor chain, and an empty quota snapshot."""

    def __init__(self, dump: ClusterDump | None) -> None:
        self.nodes: dict[tuple[str, str], _Node] = {}
        self.chains: dict[str, list[_Node]] = {}
        self.snapshot: Snapshot | None = None
        if dump is None:
            return
        snapshot = Snapshot(cluster_queues=dump.cluster_queues, cohorts=dump.cohorts, implicit_cohorts=True)
        self.snapshot = snapshot
        for name, node in snapshot.cohorts.items():
            self.nodes[("Cohort", name)] = _Node(name, "Cohort", node.subtree_quota)
        for name, node in snapshot.cluster_queues.items():
            quota = {fr: q.nominal for fr, q in node.quotas.items()}
            self.nodes[("ClusterQueue", name)] = _Node(name, "ClusterQueue", quota)

    def chain(self, cq: str) -> list[_Node]:
        """The ClusterQueue's node and its cohorts, nearest first (created on first sight)."""
        found = self.chains.get(cq)
        if found is not None:
            return found
        key = ("ClusterQueue", cq)
        if key not in self.nodes:
            self.nodes[key] = _Node(cq, "ClusterQueue", {})
        chain = [self.nodes[key]]
        if self.snapshot is not None and self.snapshot.has_cluster_queue(cq):
            for ancestor in self.snapshot.cluster_queue(cq).ancestors():
                chain.append(self.nodes[("Cohort", ancestor.name)])
        self.chains[cq] = chain
        return chain


def summarize(events: Iterable[Event], *, dump: ClusterDump | None = None, until: float | None = None) -> Summary:
    """Compute the :class:`Summary` of a timeline (SC-SIM-13 item 8).

    ``dump`` (the simulated cluster, with the same quotas and weights) adds cohorts, quotas,
    utilization fractions and DRS; ``until`` ends the span (default: the last event's time).
    O(E · depth) for E events, plus the DRS of the changed trees at each instant.
    """
    timeline = tuple(events)
    tree = _Tree(dump)
    span = until if until is not None else (timeline[-1].t if timeline else 0.0)
    if span < 0 or (timeline and until is not None and until < timeline[-1].t):
        raise ConfigurationError(f"until={until!r} ends before the timeline's last event ({timeline[-1].t})")
    cq_of: dict[str, str] = {}
    arrived_at: dict[str, float] = {}
    first_admit: dict[str, float] = {}
    finished: set[str] = set()
    charged: dict[str, tuple[str, Mapping[FlavorResource, int]]] = {}
    preempted: list[Preempted] = []
    livelocks: list[Livelock] = []
    instant: float | None = None

    def close_instant(t: float) -> None:
        _record(tree, t)

    for event in timeline:
        if instant is not None and event.t != instant:
            close_instant(instant)
        instant = event.t
        if isinstance(event, Livelock):
            livelocks.append(event)
            continue
        if isinstance(event, RequeueRun):
            continue
        name = event.workload
        cq_of.setdefault(name, event.cluster_queue)
        tree.chain(event.cluster_queue)
        if isinstance(event, Arrived):
            if not event.initial:
                arrived_at.setdefault(name, event.t)
        elif isinstance(event, Admitted):
            first_admit.setdefault(name, event.t)
            _uncharge(tree, charged, name, event.t)
            charged[name] = (event.cluster_queue, event.usage)
            for node in tree.chain(event.cluster_queue):
                node.add(event.t, event.usage, +1)
        elif isinstance(event, (Released, Finished)):
            _uncharge(tree, charged, name, event.t)
            if isinstance(event, Finished):
                finished.add(name)
        elif isinstance(event, Preempted):
            preempted.append(event)
    if instant is not None:
        close_instant(instant)
    for node in tree.nodes.values():
        node.settle(span)

    cycles = detect_cycles(preempted)
    members: dict[tuple[str, str], set[str]] = {key: set() for key in tree.nodes}
    for name, cq in cq_of.items():
        for node in tree.chain(cq):
            members[(node.kind, node.name)].add(name)
    by_victim: dict[str, int] = {}
    for p in preempted:
        by_victim[p.workload] = by_victim.get(p.workload, 0) + 1
    queues = []
    for key in sorted(tree.nodes, key=lambda k: (k[0] != "ClusterQueue", k[1])):
        node = tree.nodes[key]
        names = members[key]
        waits = [first_admit[n] - arrived_at[n] for n in names if n in arrived_at and n in first_admit]
        never = sum(1 for n in names if n in arrived_at and n not in first_admit)
        utilization = {
            fr: (node.area.get(fr, 0.0) / (q * span) if span > 0 else 0.0) for fr, q in node.quota.items() if q > 0
        }
        queues.append(
            QueueSummary(
                name=node.name,
                kind=node.kind,
                workloads=len(names),
                admitted=sum(1 for n in names if n in first_admit),
                finished=sum(1 for n in names if n in finished),
                wait=WaitStats.of(waits, never),
                preemptions=sum(by_victim.get(n, 0) for n in names),
                preempted_workloads=sum(1 for n in names if n in by_victim),
                cycles=sum(1 for c in cycles if c.first.workload in names or c.first.preemptor in names),
                quota=node.quota,
                utilization=utilization,
                usage=node.points,
                drs=node.shares,
            )
        )
    return Summary(
        span=span,
        queues=queues,
        cycles=cycles,
        livelocks=livelocks,
        preemptions_by_workload=dict(sorted(by_victim.items())),
    )


def _uncharge(tree: _Tree, charged: dict[str, tuple[str, Mapping[FlavorResource, int]]], name: str, t: float) -> None:
    held = charged.pop(name, None)
    if held is None:
        return
    cq, usage = held
    for node in tree.chain(cq):
        node.add(t, usage, -1)


def _record(tree: _Tree, t: float) -> None:
    """End of an instant: one usage point per changed node, and the DRS of the trees that changed."""
    changed = [n for n in tree.nodes.values() if n.changed]
    if not changed:
        return
    for node in changed:
        node.changed = False
        node.points.append(UsagePoint(t, dict(node.usage)))
    snapshot = tree.snapshot
    if snapshot is None:
        return
    # DRS reads the snapshot's usage (Q-7 propagation), so mirror the ClusterQueues' usage into it.
    for node in changed:
        if node.kind != "ClusterQueue" or not snapshot.has_cluster_queue(node.name):
            continue
        qn = snapshot.cluster_queue(node.name)
        delta_add = {fr: v - qn.usage.get(fr, 0) for fr, v in node.usage.items() if v > qn.usage.get(fr, 0)}
        delta_remove = {fr: qn.usage.get(fr, 0) - node.usage.get(fr, 0) for fr in qn.usage if node.usage.get(fr, 0) < qn.usage.get(fr, 0)}
        if delta_remove:
            snapshot.remove_usage(qn, delta_remove)
        if delta_add:
            snapshot.add_usage(qn, delta_add)
    roots = {snapshot.cluster_queue(n.name).root.name for n in changed if n.kind == "ClusterQueue" and snapshot.has_cluster_queue(n.name)}
    for key, node in tree.nodes.items():
        if key[0] == "ClusterQueue":
            if not snapshot.has_cluster_queue(node.name):
                continue  # named by an event but not in the dump: no quota, no DRS
            qn = snapshot.cluster_queue(node.name)
        else:
            qn = snapshot.cohorts[node.name]
        if qn.root.name not in roots:
            continue
        share = dominant_resource_share(snapshot, qn).precise
        if not node.shares or node.shares[-1].share != share:
            node.shares.append(SharePoint(t, share))


def arrival_waits(events: Iterable[Event]) -> dict[str, tuple[float, ...]]:
    """Every admitted arrival's wait (first admission − arrival), per ClusterQueue, in
    admission order: the raw numbers behind :class:`WaitStats` (for histograms)."""
    arrived: dict[str, tuple[float, str]] = {}
    seen: set[str] = set()
    out: dict[str, list[float]] = {}
    for e in events:
        if isinstance(e, Arrived) and not e.initial:
            arrived.setdefault(e.workload, (e.t, e.cluster_queue))
        elif isinstance(e, Admitted) and e.workload in arrived and e.workload not in seen:
            seen.add(e.workload)
            t0, cq = arrived[e.workload]
            out.setdefault(cq, []).append(e.t - t0)
    return {cq: tuple(v) for cq, v in sorted(out.items())}

"""One simulation split by root cohort: independent trees run apart, their timelines merged.

With the ideal API two quota trees — the ClusterQueues under one root cohort, or one
ClusterQueue without a cohort — share nothing a decision reads:

* quota, borrowing and preemption candidates never cross a root (the snapshot's trees);
* an inadmissible-requeue run covers exactly one tree (SC-IN-2) and runs are keyed by root
  (SC-IN-3), so the notifications of one tree never move another's workloads;
* the entries of different trees in one cycle do not interact (each is checked and charged
  against its own tree);
* a tree whose cycle changed nothing (SC-T-3) gets the same cycle again: the extra cycles the
  whole run spends on busier trees at an instant, or at the instants of other trees' events,
  change nothing in it.

So :func:`simulate_partitioned` runs one event loop per tree (a *partition*: its
ClusterQueues, cohorts, LocalQueues and their workloads, and the arrivals queued for it) — in
this process, or through any ``map`` (local worker processes or Dask, in ``sweep``) — and
merges the results: the same admissions, preemptions, releases, completions and requeues, per
workload, at the same times, with the same flavors and reasons.

What is refused, with a :class:`~kueue_preempt.errors.ConfigurationError` naming why
(:func:`partition_refusal`): the API-throughput model (one client's token buckets serve every
tree), the reference controllers (a controller reacts at the *next* instant, and the next
instant of the whole run may be another tree's), a seeded head order (drawn per global cycle
number), cohort cycles (SC-ST-4), a workload holding
quota in a ClusterQueue the dump does not have, and — with ``FlavorFungibility`` and
``FlavorFungibilityPreserveScanProgress`` on — a ClusterQueue with more than one flavor for a
resource together with a workload SC-RQ-2 holds back from requeueing: SC-FR-3 keeps a
workload's scan progress while the *global* cycle counter advanced by at most one, and the
cycles of other trees advance it. Only a held-back workload can sit parked with an unfinished
scan; any other one is in its active set (SC-FR-6) and attempted at the next cycle of its
tree, which is the next cycle of the whole run too.

What differs, and is said in :class:`PartitionedResult`:

* the per-instant cycle cap (SC-SIM-13 item 5) counts the pending workloads of one tree, not
  of the cluster: a run where a partition reports a ``livelock`` may differ from the whole run
  from that instant on (``PartitionedResult.livelocks``);
* a head that stays in its active set without being admitted (a StrictFIFO head, SC-RQ-4) is
  attempted again at every cycle, so the whole run writes one more ``inadmissible`` event for
  it at every cycle other trees cause; a partition writes only those of its own cycles. The
  repeats carry the same reason and message; no decision depends on them. The merge writes
  them at the run's last instant only, where they decide the summary's span (SC-SIM-13 item 8).
"""

from __future__ import annotations

import heapq
import time
from typing import Callable, Iterable, Protocol, Sequence, TypeVar

import attrs

from kueue_preempt._util.checks import arg
from kueue_preempt.cycle import ClusterState, CycleConfig
from kueue_preempt.cycle.cluster import cyclic_cohorts
from kueue_preempt.cycle.queues import requeue_blocked
from kueue_preempt.errors import ConfigurationError, InvalidArgument
from kueue_preempt.io import ClusterDump, LoadedWorkload, ManifestError
from kueue_preempt.model import Workload
from kueue_preempt.model.queues import cohort_parents, root_cohort
from kueue_preempt.model.workload_writes import with_spec_pod_sets
from kueue_preempt.policies.settings import PolicySettings
from kueue_preempt.sim.arrivals.model import Arrival, Arrivals, ArrivalsFile
from kueue_preempt.sim.arrivals.resolve import resolve_arrivals
from kueue_preempt.sim.cycle_scheduler import CycleScheduler
from kueue_preempt.sim.engine import CycleResult, SimulationOptions, SimulationResult, root_keys, root_trees, run_simulation
from kueue_preempt.sim.output.timeline import Event, Inadmissible, Livelock
from kueue_preempt.sim.run import simulate, with_policy

__all__ = [
    "Mapper",
    "Partition",
    "PartitionRun",
    "PartitionStats",
    "PartitionedResult",
    "merge_partitions",
    "partition_inputs",
    "partition_refusal",
    "run_partition",
    "simulate_partitioned",
]

T = TypeVar("T")
R = TypeVar("R")


class Mapper(Protocol):
    """Where the partitions run: ``[fn(item) for item in items]`` in input order, possibly in
    parallel (``fn`` and the items are picklable). ``kueue_preempt.sweep``'s
    ``LocalBackend`` and ``DaskBackend`` are mappers."""

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]: ...


class _InProcess:
    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        return [fn(item) for item in items]


def _strs(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class Partition:
    """One quota tree's share of a simulation: everything its event loop needs, picklable
    (it is what a worker process or a Dask worker receives)."""

    root: str
    """``Cohort/<root>`` or ``ClusterQueue/<name>``, the key of SC-IN-3 (:func:`~kueue_preempt.sim.engine.root_keys`)."""
    cluster_queues: tuple[str, ...] = attrs.field(converter=_strs)
    state: ClusterState
    dump: ClusterDump
    arrivals: Arrivals
    config: CycleConfig
    options: SimulationOptions


def _instant_cycles(value: Iterable[tuple[float, int]]) -> tuple[tuple[float, int], ...]:
    return tuple(value)


def _standing(
    value: Iterable[tuple[float, Iterable[Inadmissible]]],
) -> tuple[tuple[float, tuple[Inadmissible, ...]], ...]:
    return tuple((t, tuple(events)) for t, events in value)


@attrs.frozen
class PartitionRun:
    """What one partition's event loop did: its result, the cycles it ran at each of its
    instants, and the CPU seconds of its run, measured where it ran."""

    root: str
    cluster_queues: tuple[str, ...] = attrs.field(converter=_strs)
    result: SimulationResult
    instant_cycles: tuple[tuple[float, int], ...] = attrs.field(converter=_instant_cycles)
    cpu_seconds: float
    standing: tuple[tuple[float, tuple[Inadmissible, ...]], ...] = attrs.field(default=(), converter=_standing)
    """Per instant whose last cycle left failed heads in their active sets (a StrictFIFO head):
    the ``inadmissible`` events of that cycle. Until the partition's next instant, every cycle
    of the whole run attempts those heads again and writes the same events."""


@attrs.frozen
class PartitionStats:
    """One partition of a :class:`PartitionedResult`, without its timeline."""

    root: str
    cluster_queues: tuple[str, ...] = attrs.field(converter=_strs)
    instants: int
    cycles: int
    events: int
    truncated: bool
    livelocks: int
    cpu_seconds: float


def _stats(value: Iterable[PartitionStats]) -> tuple[PartitionStats, ...]:
    return tuple(value)


@attrs.frozen
class PartitionedResult:
    """A partitioned simulation: the merged result and each partition's figures.

    ``result.timeline`` is every partition's timeline merged by time; within one time, the
    events of the partitions follow in partition order (roots sorted by key), each in its own
    order — so every workload's events are in the order the whole run gives them.
    ``result.instants`` counts the distinct times at which any partition had an instant (the
    whole run's instants); ``result.cycles`` adds, per such time, the most cycles any
    partition ran then (the whole run cycles until the busiest tree settles). ``truncated``:
    some partition was, or the merged instants passed ``max_instants`` (the timeline then
    stops where the whole run would have stopped). ``end``: the last merged instant, where the
    whole run's repeated ``inadmissible`` events of heads left failing in other partitions are
    written too (the summary's span ends at the last event).
    """

    result: SimulationResult
    partitions: tuple[PartitionStats, ...] = attrs.field(converter=_stats)

    @property
    def livelocks(self) -> tuple[Livelock, ...]:
        """The partitions' cycle-cap reports. Each cap counted one tree's pending workloads,
        not the cluster's: when there is one, the whole run may differ from that instant on."""
        return self.result.livelocks


# --------------------------------------------------------------------------- refusal


def partition_refusal(
    dump: ClusterDump,
    state: ClusterState | None = None,
    *,
    config: CycleConfig = CycleConfig(),
    options: SimulationOptions = SimulationOptions(),
    policy: PolicySettings = PolicySettings(),
) -> str | None:
    """Why this simulation cannot be split by root cohort (``None``: it can). O(cluster).

    ``state`` (the cycle's input) is read for the one check that needs workload statuses:
    without it, that check is skipped."""
    if options.api is not None:
        return (
            "the API-throughput model (--api-qps/--api-burst, or a clientConnection in --config) serves every "
            "quota tree through one client's token buckets: the trees are not independent"
        )
    if policy.boost is not None or policy.time_sharing is not None or policy.cost_base is not None:
        return (
            "a reference controller (--boost, --time-sharing, --cost-base) reacts at the next instant, and the "
            "next instant of the whole run may be another quota tree's: its writes would land at other times"
        )
    if config.head_order_seed is not None:
        return (
            "a seeded head order (head_order_seed) shuffles each cycle's heads by the global cycle number, "
            "which the cycles of every quota tree advance: a tree alone would draw other orders"
        )
    cyclic = cyclic_cohorts(dump.cohorts)
    if cyclic:
        return f"the cohorts {', '.join(sorted(cyclic)[:3])} are on a parent cycle (SC-ST-4)"
    names = {cq.name for cq in dump.cluster_queues}
    for lw in dump.holding_quota():
        if lw.workload.cluster_queue not in names:
            return f"Workload {lw.key} holds quota in ClusterQueue {lw.workload.cluster_queue!r}, which is not in the dump"
    if config.flavor_fungibility and config.preserve_scan_progress and state is not None:
        held = _held_workload(state)
        multi = _multi_flavor_queue(dump)
        if held is not None and multi is not None:
            return (
                f"ClusterQueue {multi[0]} has more than one flavor for {multi[1]}, FlavorFungibilityPreserveScanProgress "
                f"is on and Workload {held} is held back from requeueing (SC-RQ-2): it may be parked with its flavor "
                "scan unfinished, and SC-FR-3 keeps that progress by the global cycle counter, which other quota trees "
                "advance (turn the gate off to split such a cluster)"
            )
    return None


def _multi_flavor_queue(dump: ClusterDump) -> tuple[str, str] | None:
    """A ClusterQueue with more than one flavor for some resource, and that resource."""
    for cq in dump.cluster_queues:
        flavors: dict[str, set[str]] = {}
        for fr in cq.quotas:
            flavors.setdefault(fr.resource, set()).add(fr.flavor)
        multi = sorted(r for r, fs in flavors.items() if len(fs) > 1)
        if multi:
            return cq.name, multi[0]
    return None


def _held_workload(state: ClusterState) -> str | None:
    """A workload whose requeueing SC-RQ-2 may hold back (a requeue time, or ``Requeued=False``)."""
    for key, status in state.statuses.items():
        if status.requeue_at is not None:
            return key
    for w in state.workloads:
        if requeue_blocked(w.conditions):
            return w.key
    return None


def _check(
    dump: ClusterDump, state: ClusterState, config: CycleConfig, options: SimulationOptions, policy: PolicySettings
) -> None:
    why = partition_refusal(dump, state, config=config, options=options, policy=policy)
    if why is not None:
        raise ConfigurationError(f"cannot split the simulation by root cohort: {why}")


# --------------------------------------------------------------------------- split


def _tree_of_cohorts(dump: ClusterDump) -> dict[str, str]:
    """Cohort object -> the root key of its tree."""
    parents = cohort_parents(dump.cohorts)
    return {co.name: f"Cohort/{root_cohort(parents, co.name)}" for co in dump.cohorts}


def partition_inputs(
    state: ClusterState,
    dump: ClusterDump,
    arrivals: Arrivals,
    *,
    config: CycleConfig = CycleConfig(),
    options: SimulationOptions = SimulationOptions(),
) -> tuple[Partition, ...]:
    """Split the inputs of one simulation (``arrivals`` resolved against ``dump``) into one
    :class:`Partition` per root cohort and per cohort-less ClusterQueue, sorted by root key.

    Each partition gets its ClusterQueues, the cohorts of its tree, the LocalQueues pointing
    at them, the workloads charged to them or queued for them (SC-ST-1), their statuses,
    and the arrivals and ``remaining`` times of those workloads; every partition gets all
    namespaces, flavors, LimitRanges and priority classes (cluster-wide objects). A workload
    queued nowhere (no usable LocalQueue) never enters a queue of the whole run either and is
    left out; an arrival made from such a template (or from another tree's workload) carries
    the template's pod sets itself. O(cluster + arrivals). Does not check
    :func:`partition_refusal` (:func:`simulate_partitioned` does).
    """
    roots = root_keys(dump)
    trees = root_trees(roots)
    cohort_root = _tree_of_cohorts(dump)
    lq_root = {q.key: roots.get(q.cluster_queue) for q in dump.local_queues}

    # The dump, for the loop: its pending workloads by their LocalQueue, charged ones by ClusterQueue.
    dump_workloads: dict[str, list[LoadedWorkload]] = {r: [] for r in trees}
    for lw in dump.workloads:
        root: str | None = None
        if lw.holds_quota:
            root = roots.get(lw.workload.cluster_queue or "")
        elif lw.is_pending:
            try:
                root = roots.get(dump.cluster_queue_for(lw))
            except ManifestError:
                root = None
        if root is not None:
            dump_workloads[root].append(lw)

    # The cycle's state: the same split by SC-ST-1 over the state's own LocalQueues.
    state_lq_root = {f"{q.namespace}/{q.name}": roots.get(q.cluster_queue) for q in state.local_queues}
    state_workloads: dict[str, list[Workload]] = {r: [] for r in trees}
    by_key: dict[str, Workload] = {}
    placed: dict[str, str] = {}
    for w in state.workloads:
        by_key[w.key] = w
        if w.cluster_queue:
            root = roots.get(w.cluster_queue)
        else:
            root = state_lq_root.get(f"{w.namespace}/{w.local_queue}") if w.local_queue else None
        if root is not None:
            state_workloads[root].append(w)
            placed[w.key] = root

    by_root_arrivals: dict[str, list[Arrival]] = {r: [] for r in trees}
    for a in arrivals.arrivals:
        root = roots.get(a.cluster_queue)
        if root is None:  # resolve_arrivals checked every arrival's ClusterQueue against the dump
            raise ConfigurationError(f"arrival {a.key}: ClusterQueue {a.cluster_queue!r} is not in the dump")
        if a.template is not None and placed.get(a.template) != root and not a.workload.workload.spec_pod_sets:
            template = by_key.get(a.template)
            if template is not None:
                # The template stays in its own tree (or in none): the arrival carries its pod
                # sets, which is what the scheduler would have read from it.
                lw = a.workload
                a = attrs.evolve(a, workload=attrs.evolve(lw, workload=with_spec_pod_sets(lw.workload, template.spec_pod_sets)))
        by_root_arrivals[root].append(a)
    remaining_root: dict[str, dict[str, float]] = {r: {} for r in trees}
    for key, seconds in arrivals.remaining.items():
        root = placed.get(key)
        if root is not None:
            remaining_root[root][key] = seconds

    out = []
    for tree, cqs in sorted(trees.items()):
        members = set(cqs)
        cohorts = [co for co in dump.cohorts if cohort_root.get(co.name) == tree]
        state_cohorts = [co for co in state.cohorts if cohort_root.get(co.name, f"Cohort/{co.name}") == tree]
        keys = {w.key for w in state_workloads[tree]}
        part_state = attrs.evolve(
            state,
            cluster_queues=[cq for cq in state.cluster_queues if cq.name in members],
            cohorts=state_cohorts,
            local_queues=[q for q in state.local_queues if q.cluster_queue in members],
            queueing={k: v for k, v in state.queueing.items() if k in members},
            workloads=state_workloads[tree],
            statuses={k: v for k, v in state.statuses.items() if k in keys},
        )
        part_dump = ClusterDump(
            cluster_queues=[cq for cq in dump.cluster_queues if cq.name in members],
            cohorts=cohorts,
            local_queues=[q for q in dump.local_queues if lq_root.get(q.key) == tree],
            resource_flavors=dump.resource_flavors,
            workloads=dump_workloads[tree],
        )
        part_arrivals = Arrivals(arrivals=by_root_arrivals[tree], remaining=remaining_root[tree], start=arrivals.start)
        out.append(Partition(tree, cqs, part_state, part_dump, part_arrivals, config, options))
    return tuple(out)


# --------------------------------------------------------------------------- run


class _CountingScheduler(CycleScheduler):
    """The cycle scheduler, counting the cycles of each instant (for the merged ``cycles``)
    and keeping the heads the last cycle of each instant left pending in their active sets."""

    def __init__(self, cluster: ClusterState, config: CycleConfig) -> None:
        super().__init__(cluster, config)
        self.per_instant: dict[float, int] = {}
        self.last_pending: dict[float, tuple[Inadmissible, ...]] = {}

    def cycle(self, now: float) -> CycleResult:
        self.per_instant[now] = self.per_instant.get(now, 0) + 1
        result = super().cycle(now)
        # The events the loop writes for this cycle's failed heads (engine: record); the last
        # cycle of an instant is the quiescent one, whose failed heads stay in the active sets.
        self.last_pending[now] = tuple(
            Inadmissible(now, h.workload, h.cluster_queue, h.reason, h.message) for h in result.heads if h.pending
        )
        return result


def run_partition(partition: Partition) -> PartitionRun:
    """Run one partition's event loop (a top-level function: worker processes and Dask pickle
    it). The CPU seconds are this process's, around the loop, so a machine with fewer cores
    than partitions still shows what each one costs."""
    arg(partition, Partition, "run_partition", "partition")
    c0 = time.process_time()
    scheduler = _CountingScheduler(partition.state, partition.config)
    instants: list[float] = []
    result = run_simulation(scheduler, partition.dump, partition.arrivals, options=partition.options, progress=instants.append)
    cpu = time.process_time() - c0
    cycles = [(t, scheduler.per_instant.get(t, 0)) for t in instants]
    standing = [(t, scheduler.last_pending[t]) for t in instants if scheduler.last_pending.get(t)]
    return PartitionRun(partition.root, partition.cluster_queues, result, cycles, cpu, standing)


# --------------------------------------------------------------------------- merge


def _event_time(e: Event) -> float:
    return e.t


def _with_standing(run: PartitionRun, end: float) -> Iterable[Event]:
    """A partition's timeline, and the ``inadmissible`` events the whole run writes for it at
    its last instant ``end`` when the partition has none then but left heads failing in their
    active sets: the cycles of ``end`` attempt them again, with the same outcome (SC-T-3). The
    whole run writes them at every such cycle; these are the ones at ``end``, which decide
    where the summary's span ends (SC-SIM-13 item 8)."""
    last: tuple[Inadmissible, ...] = ()
    for t, events in run.standing:
        if t > end:
            break
        last = events
    latest = max((t for t, _ in run.instant_cycles if t <= end), default=None)
    standing_at = max((t for t, _ in run.standing if t <= end), default=None)
    if latest is None or latest == end or standing_at != latest or not last:
        return run.result.timeline
    timeline = run.result.timeline
    # The partition has no event at ``end`` (no instant there): the new events go between
    # those before it and those after it (a run cut by max_instants may have some).
    lo, hi = 0, len(timeline)
    while lo < hi:
        mid = (lo + hi) // 2
        if timeline[mid].t <= end:
            lo = mid + 1
        else:
            hi = mid
    return (*timeline[:lo], *(attrs.evolve(e, t=end) for e in last), *timeline[lo:])


def merge_partitions(runs: Sequence[PartitionRun], options: SimulationOptions = SimulationOptions()) -> PartitionedResult:
    """Merge partition runs (in partition order) into one result; see :class:`PartitionedResult`.

    Timelines are merged by time with a stable k-way merge (ties: partition order). With
    ``options.max_instants`` the merged run stops where the whole run would: after the
    ``max_instants``-th distinct instant time. O(E log P) for E events and P partitions."""
    per_time: dict[float, int] = {}
    for run in runs:
        for t, n in run.instant_cycles:
            per_time[t] = max(per_time.get(t, 0), n)
    times = sorted(per_time)
    truncated = any(r.result.truncated for r in runs)
    cap = options.max_instants
    cutoff: float | None = None
    if cap is not None and len(times) > cap:
        truncated = True
        times = times[:cap]
        cutoff = times[-1] if times else -1.0
    end = times[-1] if times else 0.0
    timeline: Iterable[Event] = heapq.merge(*(_with_standing(r, end) for r in runs), key=_event_time)
    if cutoff is not None:
        limit = cutoff
        timeline = (e for e in timeline if e.t <= limit)
    merged = tuple(timeline)
    result = SimulationResult(
        timeline=merged,
        end=end,
        instants=len(times),
        cycles=sum(per_time[t] for t in times),
        truncated=truncated,
    )
    stats = [
        PartitionStats(
            root=r.root,
            cluster_queues=r.cluster_queues,
            instants=r.result.instants,
            cycles=r.result.cycles,
            events=len(r.result.timeline),
            truncated=r.result.truncated,
            livelocks=len(r.result.livelocks),
            cpu_seconds=r.cpu_seconds,
        )
        for r in runs
    ]
    return PartitionedResult(result, stats)


def simulate_partitioned(
    state: ClusterState,
    dump: ClusterDump,
    arrivals: ArrivalsFile,
    *,
    config: CycleConfig = CycleConfig(),
    options: SimulationOptions = SimulationOptions(),
    policy: PolicySettings = PolicySettings(),
    mapper: Mapper | None = None,
) -> PartitionedResult:
    """:func:`~kueue_preempt.sim.run.simulate`, split by root cohort (SC-IN-2, SC-IN-3: the
    trees are independent; the module doc has the argument and what is refused).

    ``mapper`` runs the partitions (default: one after the other in this process; ``sweep``'s
    ``LocalBackend`` / ``DaskBackend`` run them in parallel). Raises
    :class:`~kueue_preempt.errors.ConfigurationError` when the simulation cannot be split
    (:func:`partition_refusal`), before anything runs.

    Cost: the whole run's work, shared among the partitions, less the cycles a quiet tree
    spends while a busier one settles; plus pickling each partition's inputs and timeline to
    and from its worker, and an O(E log P) merge. The largest partition bounds the wall time.
    """
    fn = "simulate_partitioned"
    arg(state, ClusterState, fn, "state")
    arg(dump, ClusterDump, fn, "dump")
    arg(arrivals, ArrivalsFile, fn, "arrivals")
    arg(config, CycleConfig, fn, "config")
    arg(options, SimulationOptions, fn, "options")
    arg(policy, PolicySettings, fn, "policy")
    if mapper is not None and not callable(getattr(mapper, "map", None)):
        raise InvalidArgument(fn, "mapper", f"expected an object with a map(fn, items) method, got {type(mapper).__name__}")
    _check(dump, state, config, options, policy)
    resolved = resolve_arrivals(arrivals, dump)
    parts = partition_inputs(state, dump, resolved, config=with_policy(config, policy), options=options)
    if not parts:
        # No ClusterQueue, nothing to split: the whole run is its start instant alone.
        return PartitionedResult(simulate(state, dump, arrivals, config=config, options=options, policy=policy), ())
    # The largest first (by workloads and arrivals): a pool that hands out work in order then
    # keeps its workers busy to the end instead of starting the longest run last.
    order = sorted(range(len(parts)), key=lambda i: -(len(parts[i].arrivals.arrivals) + len(parts[i].state.workloads)))
    done = (mapper or _InProcess()).map(run_partition, [parts[i] for i in order])
    runs: list[PartitionRun] = [done[0]] * len(parts)
    for i, run in zip(order, done):
        runs[i] = run
    return merge_partitions(runs, options)

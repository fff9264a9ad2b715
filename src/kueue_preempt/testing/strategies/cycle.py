"""Hypothesis strategies of one Kueue scheduling cycle (kueue-scheduling-cycle.md, ``SC-*``).

A :class:`CycleScenario` is every input of
:func:`~kueue_preempt.cycle.schedule_cycle`: the :class:`~kueue_preempt.cycle.ClusterState`
(ResourceFlavors, ClusterQueues with their queueing settings, Cohorts, one namespace, one
LocalQueue per ClusterQueue, admitted and pending workloads), the
:class:`~kueue_preempt.cycle.CycleConfig` (fair sharing and the gates) and ``now``. The queue
memory is always a freshly started Kueue's (``queues=None``: every pending workload in its
ClusterQueue's active set, SC-ST-1), so a cycle's heads are fixed by SC-QO-1 alone.

Generation follows the validation facts the cycle relies on:

* 1–2 flavors of one resource, ``cpu`` (amounts in millicores, whole CPUs); each ClusterQueue
  has one resource group listing one or both flavors, in either order (FAS-10 scans them in
  that order), with the default flavor fungibility (FAS-8);
* 0–2 root Cohorts, each optionally with one child Cohort, some with a small nominal quota of
  their own; ClusterQueues mostly in a cohort, borrowing/lending limits only below a parent and
  a lending limit never above the nominal (Q-17);
* preemption stanzas valid per POL-7 (``borrowWithinCohort`` only with
  ``reclaimWithinCohort != Never``); with ``preemption=False`` every policy is ``Never``;
* admitted workloads (one pod set, count 1) admitted greedily on one of their queue's flavors,
  each only if it fits with borrowing (Q-14), so usage is plausible and some queues borrow;
* pending workloads (one pod set ``main``, 1–3 pods of 1–3 CPUs, an optional ``minCount`` for
  partial admission, FAS-14) queued through their ClusterQueue's LocalQueue, with distinct
  uids and creation times, priorities 0–4 (admitted ones 0–3, so preemption is possible);
* every ClusterQueue active (all its flavors exist, SC-ST-4), selecting every namespace.

Cost: one draw of a few dozen small integers per scenario (no filtering: nothing is
discarded). ``decide()`` costs one :func:`~kueue_preempt.cycle.schedule_cycle` call.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta
from typing import Sequence, TypeVar

import attrs
from hypothesis import strategies as st

from kueue_preempt import (
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FlavorResource,
    PodSetUsage,
    PreemptionPolicy,
    ResourceQuota,
    Snapshot,
    Workload,
)
from kueue_preempt.cycle import (
    ClusterQueueSettings,
    ClusterState,
    CycleConfig,
    CycleResult,
    LocalQueue,
    Namespace,
    QueueingStrategy,
    schedule_cycle,
)
from kueue_preempt.model.config import FairSharingConfig
from kueue_preempt.model.flavors import FlavorQuotas, PodSetSpec, ResourceFlavor, ResourceGroup
from kueue_preempt.testing.strategies.choices import Choices
from kueue_preempt.testing.strategies.classic import T0

__all__ = ["CYCLE_FLAVORS", "CYCLE_NOW", "CycleScenario", "clusters", "cycle_configs", "cycle_scenarios"]

CYCLE_FLAVORS = ("f0", "f1")
CYCLE_NOW = T0 + timedelta(hours=1)
"""The cycle time of every generated scenario; creation times lie in the hour before."""
NAMESPACE = "ns"

T = TypeVar("T")


def _permuted(items: Sequence[T], rng: random.Random) -> list[T]:
    out = list(items)
    rng.shuffle(out)
    return out


def _in_order(items: Sequence[T], like: Sequence[T], key: str) -> tuple[T, ...]:
    """``items`` (a permutation of ``like``'s objects, as echoed by a result) in ``like``'s order."""
    position = {getattr(x, key): i for i, x in enumerate(like)}
    return tuple(sorted(items, key=lambda x: position.get(getattr(x, key), len(position))))


@attrs.frozen
class CycleScenario:
    """Every input of one scheduling cycle: the cluster, the configuration and the cycle time.

    The queue memory is a freshly started Kueue's (``schedule_cycle(cluster, None, ...)``).
    """

    cluster: ClusterState
    config: CycleConfig
    now: datetime = CYCLE_NOW

    def permuted_cluster(self, rng: random.Random) -> ClusterState:
        """The same cluster with every object list (ClusterQueues, cohorts, flavors,
        namespaces, LocalQueues, workloads) listed in another order (SC-SIM-11)."""
        c = self.cluster
        return attrs.evolve(
            c,
            cluster_queues=_permuted(c.cluster_queues, rng),
            cohorts=_permuted(c.cohorts, rng),
            flavors=_permuted(c.flavors, rng),
            namespaces=_permuted(c.namespaces, rng),
            local_queues=_permuted(c.local_queues, rng),
            workloads=_permuted(c.workloads, rng),
        )

    def decide(self, *, rng: random.Random | None = None) -> CycleResult:
        """The library's cycle: :func:`~kueue_preempt.cycle.schedule_cycle` on a fresh queue state.

        With ``rng``, the cluster's object lists are permuted first. The result's ``cluster``
        echoes the input lists, so its lists are put back in this scenario's order: the
        result then compares equal (``==``) to ``decide()`` exactly when the decision (heads,
        per-head results, events, metrics, queue memory, workload objects) is the same.
        Cost: one ``schedule_cycle`` call (one nomination per head, SC-NOM-2).
        """
        if rng is None:
            return schedule_cycle(self.cluster, None, config=self.config, now=self.now)
        result = schedule_cycle(self.permuted_cluster(rng), None, config=self.config, now=self.now)
        c, mine = result.cluster, self.cluster
        restored = attrs.evolve(
            c,
            cluster_queues=_in_order(c.cluster_queues, mine.cluster_queues, "name"),
            cohorts=_in_order(c.cohorts, mine.cohorts, "name"),
            flavors=_in_order(c.flavors, mine.flavors, "name"),
            namespaces=_in_order(c.namespaces, mine.namespaces, "name"),
            local_queues=_in_order(c.local_queues, mine.local_queues, "key"),
            workloads=_in_order(c.workloads, mine.workloads, "key"),
        )
        return attrs.evolve(result, cluster=restored)

    # Convenience views for checkers.
    @property
    def cluster_queues(self) -> tuple[ClusterQueue, ...]:
        return self.cluster.cluster_queues

    @property
    def cohorts(self) -> tuple[Cohort, ...]:
        return self.cluster.cohorts


# ----------------------------------------------------------------------------- option lists

_BOOLS = [False, True]
_NOMINALS = [0, 1, 2, 3, 4, 5, 6, 2]
"""ClusterQueue nominal CPUs per flavor; zero is there so that queues borrow."""
_COHORT_NOMINALS = [0, 0, 0, 1, 2]
_LIMITS: list[int | None] = [None, None, None, 0, 1, 2, 4]
_WHICH_FLAVORS = ["both", "both", "reversed", "first", "second"]
_WITHIN = [PreemptionPolicy.NEVER, PreemptionPolicy.LOWER_PRIORITY, PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY]
_RECLAIM = [PreemptionPolicy.NEVER, PreemptionPolicy.LOWER_PRIORITY, PreemptionPolicy.ANY, PreemptionPolicy.LOWER_PRIORITY]
_BWC: list[int | None | str] = ["absent", "absent", None, 1, 2]
"""``borrowWithinCohort``: absent, or LowerPriority with no or a small ``maxPriorityThreshold``."""
_STRATEGIES = [QueueingStrategy.BEST_EFFORT_FIFO, QueueingStrategy.STRICT_FIFO]
_STANDALONE = [False, False, False, True]
_ADMITTED_PRIORITIES = [0, 1, 2, 3]
_PENDING_PRIORITIES = [0, 1, 2, 3, 4]
_CPUS = [1, 1, 1, 2, 3]
_COUNTS = [1, 1, 1, 2, 3]
_MIN_COUNT = ["none", "none", "one", "half"]
_N_ADMITTED = [0, 1, 2, 3]

_CQ_OPTIONS: list[Sequence[object]] = [
    _STANDALONE,
    _WHICH_FLAVORS,
    _NOMINALS,
    _LIMITS,
    _LIMITS,
    _NOMINALS,
    _LIMITS,
    _LIMITS,
    _WITHIN,
    _RECLAIM,
    _BWC,
    _STRATEGIES,
    _N_ADMITTED,
]
_ADMITTED_OPTIONS: list[Sequence[object]] = [_BOOLS, _CPUS, _ADMITTED_PRIORITIES]
_PENDING_OPTIONS: list[Sequence[object]] = [_PENDING_PRIORITIES, _CPUS, _COUNTS, _MIN_COUNT]


def cycle_configs(*, fair_sharing: bool | None = None) -> st.SearchStrategy[CycleConfig]:
    """Cycle configurations: classic or fair sharing (SC-CFG-2), the priority gate of SC-ORD-1
    criterion 4 / SC-FS-4 criterion 4, ``RecomputeAssignmentUponPreemptionTargetsOverlap``
    (SC-PE-3; off, overlapping preemptors are skipped) and ``PrioritizePreemptorWorkloads``
    (SC-ORD-1 criterion 2; no generated workload is a waiting preemptor, so it changes nothing
    but is exercised) — the other gates keep Kueue's defaults (SC-SCOPE-2)."""
    fs = st.booleans() if fair_sharing is None else st.just(fair_sharing)
    mostly_on = st.sampled_from([True, True, False])

    def build(fs_on: bool, sorting: bool, recompute: bool, preemptor_first: bool) -> CycleConfig:
        gates = {
            "PrioritySortingWithinCohort": sorting,
            "RecomputeAssignmentUponPreemptionTargetsOverlap": recompute,
            "PrioritizePreemptorWorkloads": preemptor_first,
        }
        return CycleConfig.of(fair_sharing=FairSharingConfig() if fs_on else None, feature_gates=gates)

    return st.builds(build, fs, mostly_on, mostly_on, st.sampled_from([False, False, True]))


def _pick_range(draw: st.DrawFn, bounds: tuple[int, int], name: str) -> int:
    lo, hi = bounds
    if not 0 <= lo <= hi:
        raise ValueError(f"{name} must be a range (lo, hi) with 0 <= lo <= hi, got {bounds!r}")
    return draw(st.integers(lo, hi))


@st.composite
def clusters(
    draw: st.DrawFn,
    *,
    queues: tuple[int, int] = (1, 4),
    cohorts: tuple[int, int] = (0, 2),
    pending_per_queue: tuple[int, int] = (0, 3),
    queueing_strategy: QueueingStrategy | str | None = None,
    preemption: bool | None = None,
) -> ClusterState:
    """A random valid :class:`~kueue_preempt.cycle.ClusterState` (see the module docstring).

    ``queues``: range of the number of ClusterQueues. ``cohorts``: range of the number of root
    Cohorts (each may get one child Cohort; 0 = every ClusterQueue standalone).
    ``pending_per_queue``: range of the number of pending workloads of each ClusterQueue (its
    head is the first in queue order, SC-QO-1); at least one workload is pending in the whole
    cluster. ``queueing_strategy``: every ClusterQueue's strategy, or ``None`` to draw it per
    queue (SC-QO-4). ``preemption``: ``False`` makes every policy ``Never`` (no cycle can
    preempt), ``True`` gives every ClusterQueue ``withinClusterQueue != Never`` or
    ``reclaimWithinCohort != Never``, ``None`` draws them freely.
    """
    strategy = None if queueing_strategy is None else QueueingStrategy(queueing_strategy)
    if queues[0] < 1:
        raise ValueError(f"queues must allow at least one ClusterQueue, got {queues!r}")
    n_cq = _pick_range(draw, queues, "queues")
    n_roots = _pick_range(draw, cohorts, "cohorts")
    nested = [draw(st.booleans()) for _ in range(n_roots)]
    n_flavors = draw(st.integers(1, len(CYCLE_FLAVORS)))
    flavors = CYCLE_FLAVORS[:n_flavors]

    cohort_objects: list[Cohort] = []
    cohort_names: list[str] = []
    for i in range(n_roots):
        c = Choices(draw, _BOOLS, _COHORT_NOMINALS, _COHORT_NOMINALS, _LIMITS)
        explicit, nominal, child_nominal, child_bl = (
            c.pick(_BOOLS),
            c.pick(_COHORT_NOMINALS),
            c.pick(_COHORT_NOMINALS),
            c.pick(_LIMITS),
        )
        root = f"co{i}"
        cohort_names.append(root)
        if explicit or nominal or nested[i]:
            quotas = {FlavorResource(flavors[0], "cpu"): ResourceQuota(nominal=nominal * 1000)} if nominal else {}
            cohort_objects.append(Cohort(name=root, quotas=quotas))
        if nested[i]:
            child = f"co{i}a"
            cohort_names.append(child)
            quotas = {}
            if child_nominal:
                bl = None if child_bl is None else child_bl * 1000
                quotas = {FlavorResource(flavors[0], "cpu"): ResourceQuota(nominal=child_nominal * 1000, borrowing_limit=bl)}
            cohort_objects.append(Cohort(name=child, parent=root, quotas=quotas))

    cqs: list[ClusterQueue] = []
    settings: dict[str, ClusterQueueSettings] = {}
    lqs: list[LocalQueue] = []
    n_admitted: dict[str, int] = {}
    for k in range(n_cq):
        name = f"cq{k}"
        c = Choices(draw, *_CQ_OPTIONS)
        standalone, which = c.pick(_STANDALONE), c.pick(_WHICH_FLAVORS)
        raw = [(c.pick(_NOMINALS), c.pick(_LIMITS), c.pick(_LIMITS)) for _ in range(2)]
        within, reclaim, bwc_kind = c.pick(_WITHIN), c.pick(_RECLAIM), c.pick(_BWC)
        drawn_strategy, admitted = c.pick(_STRATEGIES), c.pick(_N_ADMITTED)
        cohort = None
        if cohort_names and not standalone:
            cohort = cohort_names[draw(st.integers(0, len(cohort_names) - 1))]
        if n_flavors == 1:
            own = [flavors[0]]
        else:
            own = {"both": ["f0", "f1"], "reversed": ["f1", "f0"], "first": ["f0"], "second": ["f1"]}[which]
        fqs = []
        for f in own:
            nominal, bl, ll = raw[CYCLE_FLAVORS.index(f)]
            if cohort is None:
                bl = ll = None  # limits only below a parent
            elif ll is not None:
                ll = min(ll, nominal)  # a ClusterQueue lends at most its nominal
            quota = ResourceQuota(
                nominal=nominal * 1000,
                borrowing_limit=None if bl is None else bl * 1000,
                lending_limit=None if ll is None else ll * 1000,
            )
            fqs.append(FlavorQuotas(f, {"cpu": quota}))
        if preemption is False:
            within, reclaim, bwc_kind = PreemptionPolicy.NEVER, PreemptionPolicy.NEVER, "absent"
        elif preemption is True and within is PreemptionPolicy.NEVER and reclaim is PreemptionPolicy.NEVER:
            within = PreemptionPolicy.LOWER_PRIORITY
        bwc = None
        if bwc_kind != "absent" and reclaim is not PreemptionPolicy.NEVER:  # POL-7
            threshold = bwc_kind if isinstance(bwc_kind, int) else None
            bwc = BorrowWithinCohort(policy=PreemptionPolicy.LOWER_PRIORITY, max_priority_threshold=threshold)
        cqs.append(
            ClusterQueue(
                name=name,
                cohort=cohort,
                preemption=ClusterQueuePreemption(
                    within_cluster_queue=within, reclaim_within_cohort=reclaim, borrow_within_cohort=bwc
                ),
                resource_groups=[ResourceGroup(("cpu",), fqs)],
            )
        )
        settings[name] = ClusterQueueSettings(name, queueing_strategy=strategy or drawn_strategy)
        lqs.append(LocalQueue(namespace=NAMESPACE, name=f"lq{k}", cluster_queue=name))
        n_admitted[name] = admitted

    # Admitted workloads, admitted greedily while they fit with borrowing (Q-14, the library's
    # public Snapshot as in the classic strategy), in queue order; the drawn flavor is this
    # queue's first or last one.
    snapshot = Snapshot(cqs, cohort_objects, ())
    workloads: list[Workload] = []
    j = 0
    for cq in cqs:
        own = [fq.name for g in cq.resource_groups for fq in g.flavors]
        for _ in range(n_admitted[cq.name]):
            c = Choices(draw, *_ADMITTED_OPTIONS)
            last, cpus, priority = c.pick(_BOOLS), c.pick(_CPUS), c.pick(_ADMITTED_PRIORITIES)
            f = own[-1] if last else own[0]
            w = Workload(
                name=f"adm{j}",
                namespace=NAMESPACE,
                uid=f"a{j:02d}",
                cluster_queue=cq.name,
                priority=priority,
                creation_time=T0 + timedelta(minutes=j),
                quota_reserved_at=T0 + timedelta(minutes=20 + j),
                pod_sets=[PodSetUsage("main", 1, {"cpu": f}, {"cpu": cpus * 1000})],
                spec_pod_sets=[PodSetSpec("main", 1, {"cpu": cpus * 1000})],
            )
            if not snapshot.fits(snapshot.cluster_queue(cq.name), w.usage, allow_borrowing=True):
                continue
            snapshot.add_workload(w)
            workloads.append(w)
            j += 1

    # Pending workloads: creation times drawn from a small range so that ties in priority
    # fall through to the timestamp (SC-QO-1 4) and, rarely, to the uid (SC-QO-1 5).
    n_pending = [_pick_range(draw, pending_per_queue, "pending_per_queue") for _ in cqs]
    if sum(n_pending) == 0:
        n_pending[draw(st.integers(0, n_cq - 1))] = 1  # a cycle needs a head (SC-CY-1)
    p = 0
    for k, count_k in enumerate(n_pending):
        for _ in range(count_k):
            c = Choices(draw, *_PENDING_OPTIONS)
            priority, cpus, count, min_kind = (
                c.pick(_PENDING_PRIORITIES),
                c.pick(_CPUS),
                c.pick(_COUNTS),
                c.pick(_MIN_COUNT),
            )
            min_count = {"none": None, "one": 1, "half": (count + 1) // 2}[str(min_kind)]
            if min_count == count:
                min_count = None
            workloads.append(
                Workload(
                    name=f"p{p}",
                    namespace=NAMESPACE,
                    uid=f"p{p:02d}",
                    local_queue=f"lq{k}",
                    priority=priority,
                    creation_time=T0 + timedelta(minutes=30 + draw(st.integers(0, 6))),
                    spec_pod_sets=[PodSetSpec("main", count, {"cpu": cpus * 1000}, min_count=min_count)],
                )
            )
            p += 1
    return ClusterState(
        cluster_queues=cqs,
        cohorts=cohort_objects,
        flavors=[ResourceFlavor(f) for f in flavors],
        namespaces=[Namespace(NAMESPACE)],
        local_queues=lqs,
        queueing=settings,
        workloads=workloads,
    )


@st.composite
def cycle_scenarios(
    draw: st.DrawFn,
    *,
    queues: tuple[int, int] = (1, 4),
    cohorts: tuple[int, int] = (0, 2),
    pending_per_queue: tuple[int, int] = (0, 3),
    queueing_strategy: QueueingStrategy | str | None = None,
    fair_sharing: bool | None = None,
    preemption: bool | None = None,
) -> CycleScenario:
    """A random scheduling cycle: :func:`clusters` with these knobs and :func:`cycle_configs`.

    ``fair_sharing``: ``True``/``False`` fixes the entry order (SC-FS-* or SC-ORD-*) and the
    preemption algorithm (SC-CFG-2); ``None`` draws it. The other knobs are those of
    :func:`clusters`. Cost: one ``clusters`` draw; nothing is discarded.
    """
    cluster = draw(
        clusters(
            queues=queues,
            cohorts=cohorts,
            pending_per_queue=pending_per_queue,
            queueing_strategy=queueing_strategy,
            preemption=preemption,
        )
    )
    return CycleScenario(cluster=cluster, config=draw(cycle_configs(fair_sharing=fair_sharing)), now=CYCLE_NOW)

"""Hypothesis strategies of valid fair-sharing preemption scenarios (``get_targets`` with FS-*).

A :class:`FairScenario` is everything ``get_targets`` reads when fair sharing is on (GT-2,
FG-3): the quota tree (cohorts and ClusterQueues with fair-sharing weights), the admitted
workloads, the pending preemptor, the ClusterQueue it is being admitted into, its flavor
assignment, ``now`` and a configuration whose ``fairSharing`` block holds one of the three
strategy lists FS-CFG-1 accepts.

Generation follows the validation facts of the spec:

* one cohort tree: a root cohort, flat or (``hierarchical``) with child and grandchild
  cohorts; cohorts may declare quota; borrowing/lending limits only on nodes with a parent
  and a ClusterQueue lends at most its nominal (Q-17). Now and then a second root holds a
  ClusterQueue outside the preemptor's tree, or the preemptor's ClusterQueue has no cohort
  at all (FS-ORD-2, FS-RUN-7);
* fair-sharing weights on ClusterQueues and Cohorts, 0 included (FS-W-2, FS-W-3);
* preemption stanzas valid per POL-7; ``borrowWithinCohort`` is drawn too although fair
  sharing ignores it (FS-CFG-2);
* admitted workloads with small usages on the flavors their ClusterQueue declares, admitted
  greedily (other queues first most of the time, so that they borrow the preemptor queue's
  quota: the fair-sharing reclamation story), or all of them ("overcommitted" scenarios);
* a preemptor whose ``Assignment.requests`` hold every requested FlavorResource (FA-3) and
  whose ``preempt`` set is exactly the FlavorResources whose request exceeds ``Available``
  but not the potential available (FA-1, FA-2). The preemptor never fits before preemption
  (Kueue calls ``get_targets`` only for ``Preempt`` assignments, CTX-1).

Cost: one draw of a few dozen packed choices (:class:`Choices`) per node and workload, one
library ``Snapshot`` for the greedy admission; no discards except when no FlavorResource of
any ClusterQueue could ever be freed (rare).
"""

from __future__ import annotations

import math
import random
from datetime import datetime, timedelta
from typing import Sequence

import attrs
from hypothesis import assume
from hypothesis import strategies as st

from kueue_preempt import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    DecisionTrace,
    FairSharingConfig,
    FlavorResource,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    ResourceQuota,
    Snapshot,
    Target,
    Workload,
    get_targets,
)
from kueue_preempt.model import BOOST_ANNOTATION, Condition, RequeuingTimestamp
from kueue_preempt.testing.strategies.choices import Choices
from kueue_preempt.testing.strategies.classic import FLAVORS, RESOURCES, T0, _admit_in_order, _boost

__all__ = ["STRATEGY_LISTS", "FairScenario", "fair_scenarios"]

STRATEGY_LISTS: tuple[tuple[str, ...], ...] = (
    ("LessThanOrEqualToFinalShare", "LessThanInitialShare"),
    ("LessThanOrEqualToFinalShare",),
    ("LessThanInitialShare",),
)
"""The strategy lists FS-CFG-1 accepts (the first is the default)."""

_NOW = T0 + timedelta(hours=1)


@attrs.frozen
class FairScenario:
    """One input of ``get_targets`` under fair sharing; ``cluster_queue`` is the preemptor's."""

    cluster_queues: tuple[ClusterQueue, ...]
    cohorts: tuple[Cohort, ...]
    workloads: tuple[Workload, ...]
    preemptor: Workload
    cluster_queue: str
    assignment: Assignment
    now: datetime
    config: PreemptionConfig

    def snapshot(
        self,
        workloads: Sequence[Workload] | None = None,
        cluster_queues: Sequence[ClusterQueue] | None = None,
        cohorts: Sequence[Cohort] | None = None,
    ) -> Snapshot:
        """A fresh snapshot of this scenario (optionally with other or permuted lists)."""
        return Snapshot(
            self.cluster_queues if cluster_queues is None else cluster_queues,
            self.cohorts if cohorts is None else cohorts,
            self.workloads if workloads is None else workloads,
        )

    def shuffled_snapshot(self, rng: random.Random) -> Snapshot:
        """A fresh snapshot built from permuted lists (the answer must not depend on them)."""
        workloads, cluster_queues, cohorts = list(self.workloads), list(self.cluster_queues), list(self.cohorts)
        rng.shuffle(workloads)
        rng.shuffle(cluster_queues)
        rng.shuffle(cohorts)
        return Snapshot(cluster_queues, cohorts, workloads)

    def decide(self, *, rng: random.Random | None = None, trace: DecisionTrace | None = None) -> list[Target]:
        """The library's answer: :func:`~kueue_preempt.get_targets` on a fresh snapshot.

        With ``rng`` the snapshot is built from permuted lists; ``trace`` records the steps.
        Cost: one snapshot build and one ``get_targets`` call.
        """
        snapshot = self.snapshot() if rng is None else self.shuffled_snapshot(rng)
        return get_targets(
            self.preemptor, self.cluster_queue, self.assignment, snapshot, config=self.config, now=self.now, trace=trace
        )


# --------------------------------------------------------------------------- option lists

_TIMES = [T0 + timedelta(minutes=m) for m in range(6)]
_OPT_TIMES: list[datetime | None] = [None, *_TIMES]
_RESERVED: list[datetime | None] = [*_TIMES, *_TIMES, None]
_UIDS = ["", "", "u0", "u1", "u2", "u3"]
_PRIORITIES: list[int | None] = [None, -1, 0, 1, 2, 3]
_PREEMPTOR_PRIORITIES: list[int | None] = [None, 0, 1, 2, 3, 4]
_BOOSTS: list[str | None] = [None] * 8 + ["", "0", "1", "-1", "+2", "abc", "2147483648"]
_EVICTIONS: list[tuple[str, datetime] | None] = [None] * 12 + [
    (r, t) for r in ("Preempted", "AdmissionCheck", "PodsReadyTimeout") for t in _TIMES[:2]
]
_AMOUNTS = [1, 1, 2, 3, 0]
_BOOLS = [False, True]
_FLAVOR_INDEXES = [0, 1]
_N_POD_SETS = [1, 1, 1, 2]
_CQ_NOMINALS = [0, 1, 2, 3, 4, 2, 0, 6]
_PREEMPTOR_NOMINALS = [2, 1, 3, 4, 0, 2, 3, 6]
"""The preemptor's queue rarely has no quota (it then could reclaim nothing)."""
_COHORT_NOMINALS = [0, 0, 1, 2, 3]
_LIMITS: list[int | None] = [None, None, None, 0, 1, 2, 4]
_WEIGHTS = [1.0, 1.0, 1.0, 0.0, 0.5, 2.0, 3.0]
"""Fair-sharing weights (FS-W-1..FS-W-3): mostly the default, 0 ("infinite share") included."""
_WITHIN = [PreemptionPolicy.NEVER, PreemptionPolicy.LOWER_PRIORITY, PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY]
_RECLAIM = [PreemptionPolicy.NEVER, PreemptionPolicy.LOWER_PRIORITY, PreemptionPolicy.ANY, PreemptionPolicy.ANY]
_PREEMPTOR_RECLAIM = [
    PreemptionPolicy.ANY,
    PreemptionPolicy.ANY,
    PreemptionPolicy.LOWER_PRIORITY,
    PreemptionPolicy.NEVER,
]
_BWC = ["absent", "absent", "Never", "LowerPriority"]
_THRESHOLDS: list[int | None] = [None, 0, 1]
_REQUEUING: list[RequeuingTimestamp | None] = [RequeuingTimestamp.EVICTION, RequeuingTimestamp.CREATION, None]
_N_FRS = len(FLAVORS) * len(RESOURCES)
_QUOTA_OPTIONS: list[Sequence[object]] = [_BOOLS] + [_CQ_NOMINALS, _COHORT_NOMINALS, _LIMITS, _LIMITS] * _N_FRS
_CQ_OPTIONS: list[Sequence[object]] = [_WITHIN, _RECLAIM, _PREEMPTOR_RECLAIM, _BWC, _THRESHOLDS, _WEIGHTS, [0, 1, 2]]
_POD_SET_OPTIONS: list[Sequence[object]] = [_BOOLS, _FLAVOR_INDEXES, _AMOUNTS]
_WORKLOAD_OPTIONS: list[Sequence[object]] = [
    _N_POD_SETS,
    *(_POD_SET_OPTIONS * (2 * len(RESOURCES))),
    _UIDS,
    _PRIORITIES,
    _BOOSTS,
    _OPT_TIMES,
    _RESERVED,
    _EVICTIONS,
]


def _conditions(eviction: tuple[str, datetime] | None) -> list[Condition]:
    if eviction is None:
        return []
    return [Condition(type="Evicted", status="True", reason=eviction[0], last_transition_time=eviction[1])]


def _quotas(
    c: Choices,
    frs: Sequence[FlavorResource],
    *,
    declared: Sequence[FlavorResource],
    has_parent: bool,
    cq: bool,
    scale: int = 1,
    nominals: Sequence[int] = _CQ_NOMINALS,
) -> dict[FlavorResource, ResourceQuota]:
    """Q-17: limits only below a parent; a ClusterQueue lends at most its nominal."""
    out: dict[FlavorResource, ResourceQuota] = {}
    for fr in frs:
        cq_nominal, cohort_nominal = c.pick(nominals), c.pick(_COHORT_NOMINALS)
        bl, ll = c.pick(_LIMITS), c.pick(_LIMITS)
        if fr not in declared:
            continue
        nominal = cq_nominal // scale if cq else cohort_nominal
        if not has_parent:
            out[fr] = ResourceQuota(nominal=nominal)
        else:
            out[fr] = ResourceQuota(
                nominal=nominal,
                borrowing_limit=bl,
                lending_limit=None if ll is None else min(ll, nominal) if cq else ll,
            )
    return out


def _workload(
    draw: st.DrawFn,
    index: int,
    cluster_queue: str,
    flavors: Sequence[str],
    resources: Sequence[str],
    uid: str | None,
    invalid_boosts: bool,
) -> Workload:
    """An admitted workload of ``cluster_queue`` using only that queue's flavors (DM-7)."""
    c = Choices(draw, *_WORKLOAD_OPTIONS)
    n_pod_sets = c.pick(_N_POD_SETS)
    pod_sets = []
    for p in range(2):
        entries = [(c.pick(_BOOLS) or r == 0, c.pick(_FLAVOR_INDEXES), c.pick(_AMOUNTS)) for r in range(len(RESOURCES))]
        if p >= n_pod_sets:
            continue
        entries = entries[: len(resources)]
        pod_sets.append(
            PodSetUsage(
                name=f"ps{p}",
                count=1,
                flavors={r: flavors[fi % len(flavors)] for r, (used, fi, _) in zip(resources, entries) if used},
                usage={r: v for r, (used, _, v) in zip(resources, entries) if used},
            )
        )
    drawn_uid, priority = c.pick(_UIDS), c.pick(_PRIORITIES)
    boost = _boost(c.pick(_BOOSTS), invalid_boosts)
    created, reserved, eviction = c.pick(_OPT_TIMES), c.pick(_RESERVED), c.pick(_EVICTIONS)
    return Workload(
        name=f"w{index}",
        namespace="ns",
        uid=drawn_uid if uid is None else uid,
        cluster_queue=cluster_queue,
        local_queue="lq",
        priority=priority,
        annotations={} if boost is None else {BOOST_ANNOTATION: boost},
        creation_time=created,
        quota_reserved_at=reserved,
        evicted=eviction is not None,
        conditions=_conditions(eviction),
        pod_sets=pod_sets,
    )


def _preemption(
    within: PreemptionPolicy, reclaim: PreemptionPolicy, bwc: str, threshold: int | None
) -> ClusterQueuePreemption:
    """A stanza valid per POL-7 (``borrowWithinCohort`` only with ``reclaimWithinCohort != Never``)."""
    stanza: BorrowWithinCohort | None = None
    if bwc == "LowerPriority" and reclaim is not PreemptionPolicy.NEVER:
        stanza = BorrowWithinCohort(policy=PreemptionPolicy.LOWER_PRIORITY, max_priority_threshold=threshold)
    elif bwc != "absent":
        stanza = BorrowWithinCohort(policy=PreemptionPolicy.NEVER)
    return ClusterQueuePreemption(
        within_cluster_queue=within, reclaim_within_cohort=reclaim, borrow_within_cohort=stanza
    )


def _tree(shape: Choices, hierarchical: bool | None) -> dict[str, str | None]:
    """The cohorts of the preemptor's tree: root ``c`` and (hierarchical) ``c<i>``, ``c<i><j>``."""
    nested, n_children = shape.pick(_BOOLS), shape.pick([1, 2])
    grandchildren = [shape.pick([False, False, True]) for _ in range(2)]
    parents: dict[str, str | None] = {"c": None}
    if nested if hierarchical is None else hierarchical:
        for i in range(n_children):
            parents[f"c{i}"] = "c"
            if grandchildren[i]:
                parents[f"c{i}0"] = f"c{i}"
    return parents


def _permutation(rank: int, n: int) -> list[int]:
    """The ``rank``-th permutation of ``range(n)`` (Lehmer code): one packed choice, not ``n``."""
    items, out = list(range(n)), []
    for i in range(n, 0, -1):
        rank, j = divmod(rank, i)
        out.append(items.pop(j))
    return out


@st.composite
def fair_scenarios(
    draw: st.DrawFn,
    *,
    strategies: Sequence[Sequence[str]] = STRATEGY_LISTS,
    max_workloads: int = 8,
    max_cluster_queues: int = 4,
    hierarchical: bool | None = None,
    weights: bool = True,
    unique_uids: bool = True,
    invalid_boosts: bool = False,
) -> FairScenario:
    """A random fair-sharing preemption scenario in which the preemptor does not fit yet.

    Knobs (keyword-only):

    * ``strategies``: the strategy lists to draw the ``fairSharing`` block from (FS-CFG-1;
      default all three valid lists);
    * ``max_workloads`` (>= 1) admitted workloads at most; ``max_cluster_queues`` (>= 1)
      ClusterQueues at most;
    * ``hierarchical``: ``True`` always nests cohorts (cohort depth 2-3), ``False`` keeps one
      flat cohort, ``None`` (default) draws either;
    * ``weights``: draw fair-sharing weights (0, 0.5, 1, 2, 3; FS-W-*) on ClusterQueues and
      Cohorts; ``False`` leaves every weight at its default 1.0;
    * ``unique_uids`` (default): every workload has a distinct non-empty UID, so ORD is a strict
      order (ORD-6) and the spec fixes the answer; ``False`` draws empty and shared UIDs too;
    * ``invalid_boosts``: also draw boost annotations that are not int32 values (EP-5; the
      library ignores them and logs a warning per workload).

    Other draws: the gates ``PriorityBoost``, ``FairSharingPreemptWithinNominal`` (FS-NOM-1),
    ``PrioritySortingWithinCohort`` and the requeuing timestamp (POL-5). Admission fair sharing
    stays off (its ORD-3 can be cyclic, ORD-9).
    """
    assert max_workloads >= 1 and max_cluster_queues >= 1 and strategies
    n_queue_options = list(range(min(2, max_cluster_queues), max_cluster_queues + 1))
    one_in_6, one_in_8, one_in_10 = [0] * 5 + [1], [0] * 7 + [1], [0] * 9 + [1]
    shape = Choices(
        draw,
        [1, 2],
        [1, 2],
        n_queue_options,
        one_in_10,
        *([one_in_8] * 4),
        one_in_6,
        [1, 1, 1, 0],
        range(math.factorial(max_workloads)),
        _BOOLS,
        [1, 2],
        [False, False, True],
        [False, False, True],
    )
    flavors = FLAVORS[: shape.pick([1, 2])]
    resources = RESOURCES[: shape.pick([1, 2])]
    n_queues = shape.pick(n_queue_options)
    standalone_preemptor = shape.pick(one_in_10) == 1
    outside = [shape.pick(one_in_8) == 1 for _ in range(4)]
    overcommitted = shape.pick(one_in_6) == 1
    others_first = shape.pick([1, 1, 1, 0]) == 1
    uid_rank = shape.pick(range(math.factorial(max_workloads)))
    all_frs = [FlavorResource(f, r) for f in FLAVORS for r in RESOURCES]
    used_frs = [fr for fr in all_frs if fr.flavor in flavors and fr.resource in resources]

    def weight(w: float) -> float:
        return w if weights else 1.0

    # ---- cohorts: the preemptor's tree, and sometimes a second root "d" (outside the tree)
    parents = _tree(shape, hierarchical)
    if any(outside[1:n_queues]):
        parents["d"] = None
    cohorts: list[Cohort] = []
    for name, cohort_parent in parents.items():
        c = Choices(draw, *_QUOTA_OPTIONS, _WEIGHTS)
        has_quota = c.pick(_BOOLS) or name == "d"
        declared = used_frs if has_quota else []
        quotas = _quotas(c, all_frs, declared=declared, has_parent=cohort_parent is not None, cq=False)
        cohorts.append(Cohort(name=name, parent=cohort_parent, quotas=quotas, fair_weight=weight(c.pick(_WEIGHTS))))
    tree_cohorts = [n for n in parents if n != "d"]

    # ---- ClusterQueues
    placement = Choices(draw, range(n_queues), *([range(len(tree_cohorts))] * n_queues))
    preemptor_index = placement.pick(range(n_queues))
    parent_index = [placement.pick(range(len(tree_cohorts))) for _ in range(n_queues)]
    cluster_queues: list[ClusterQueue] = []
    cq_flavors: dict[str, list[str]] = {}
    for k in range(n_queues):
        name = f"q{k}"
        c = Choices(draw, *_CQ_OPTIONS)
        within, reclaim, preemptor_reclaim = c.pick(_WITHIN), c.pick(_RECLAIM), c.pick(_PREEMPTOR_RECLAIM)
        bwc, threshold, w, which = c.pick(_BWC), c.pick(_THRESHOLDS), c.pick(_WEIGHTS), c.pick([0, 1, 2])
        is_preemptor = k == preemptor_index
        if is_preemptor:
            reclaim = preemptor_reclaim  # mostly reclaiming: cross-queue candidates exist
            parent: str | None = None if standalone_preemptor else tree_cohorts[parent_index[k]]
        elif outside[k % 4] and "d" in parents:
            parent = "d"
        else:
            parent = tree_cohorts[parent_index[k]]
        own = list(flavors) if len(flavors) == 1 or which == 0 else [flavors[which - 1]]
        q = Choices(draw, *_QUOTA_OPTIONS)
        q.pick(_BOOLS)  # the cohorts' "has quota" choice: a ClusterQueue always declares its FRs
        declared = [fr for fr in used_frs if fr.flavor in own]
        # The other queues get smaller nominals, so they borrow (and can be reclaimed from).
        scale = 1 if is_preemptor else 3
        nominals = _PREEMPTOR_NOMINALS if is_preemptor else _CQ_NOMINALS
        quotas = _quotas(
            q, all_frs, declared=declared, has_parent=parent is not None, cq=True, scale=scale, nominals=nominals
        )
        cq_flavors[name] = own
        cluster_queues.append(
            ClusterQueue(
                name=name,
                cohort=parent,
                quotas=quotas,
                preemption=_preemption(within, reclaim, bwc, threshold),
                fair_weight=weight(w),
            )
        )
    pcq = f"q{preemptor_index}"

    # ---- admitted workloads: about a third in the preemptor's queue; usually the other
    # queues' workloads are admitted first so that they borrow its unused quota.
    counts = [max_workloads] * 2 + list(range(1, max_workloads + 1))
    names = [cq.name for cq in cluster_queues]
    others = [n for n in names if n != pcq] or [pcq]
    queue_options = [[pcq, *others, *others]] * max_workloads
    # Uniform byte draws (Choices), not integers, which Hypothesis skews towards small values.
    spread = Choices(draw, counts, *queue_options)
    n_workloads = spread.pick(counts)
    queues = [spread.pick(o) for o in queue_options]
    uids = [f"uid-{n}" for n in _permutation(uid_rank, max_workloads)] if unique_uids else None
    generated = []
    for i in range(n_workloads):
        cq_name = queues[i]
        uid = None if uids is None else uids[i]
        generated.append(_workload(draw, i, cq_name, cq_flavors[cq_name], resources, uid, invalid_boosts))
    if others_first:
        generated.sort(key=lambda w: w.cluster_queue == pcq)

    def admit(everything: bool) -> tuple[Snapshot, list[Workload]]:
        return _admit_in_order(cluster_queues, cohorts, generated, everything=everything)

    snapshot, admitted = admit(overcommitted)

    # ---- the preemptor's assignment (FA-1..FA-3): if no FR of the drawn queue can be freed,
    # the next queue (by name) that has one takes the preemptor.
    def bounds_of(name: str) -> dict[FlavorResource, tuple[int, int]]:
        node = snapshot.cluster_queue(name)
        return {
            fr: (snapshot.available(node, fr), snapshot.potential_available(node, fr))
            for fr in (FlavorResource(f, r) for r in resources for f in cq_flavors[name])
        }

    def first_preemptable() -> tuple[str, dict[FlavorResource, tuple[int, int]], list[FlavorResource]]:
        start = names.index(pcq)
        for name in names[start:] + names[:start]:
            bounds = bounds_of(name)
            preemptable = [fr for fr, (avail, pot) in bounds.items() if pot > avail]
            if preemptable:
                return name, bounds, preemptable
        return pcq, {}, []

    pcq, bounds, preemptable = first_preemptable()
    if not preemptable and not overcommitted:
        # Nothing could ever be freed: admitting everything (quota lowered after admission)
        # usually creates usage to reclaim, instead of discarding the draw.
        snapshot, admitted = admit(True)
        pcq, bounds, preemptable = first_preemptable()
    assume(preemptable)
    node = snapshot.cluster_queue(pcq)

    def amounts(fr: FlavorResource) -> tuple[Sequence[int], Sequence[int], Sequence[int]]:
        """Preempt amounts (FA-1: above Available, at most the potential), the same capped by
        the queue's unused nominal (it then ends within nominal, FS-NOM-1), Fit amounts."""
        avail, pot = bounds[fr]
        cap = node.subtree_quota.get(fr, 0) - node.usage.get(fr, 0)
        preempt = range(avail + 1, pot + 1) or range(1)
        capped = range(avail + 1, cap + 1) if avail + 1 <= cap < pot else preempt
        return preempt, capped, range(1, avail + 1) or range(1)

    own_frs = [FlavorResource(f, r) for r in resources for f in cq_flavors[pcq]]
    options: list[Sequence[object]] = [range(len(preemptable))]
    for fr in own_frs:
        options += [_BOOLS, range(len(cq_flavors[pcq])), _BOOLS, [0, 1, 1, 1], *amounts(fr)]
    req = Choices(draw, *options)
    fr0 = preemptable[req.pick(range(len(preemptable)))]
    requests: dict[FlavorResource, int] = {}
    flavor_of: dict[str, str] = {}
    for fr in own_frs:
        include, flavor_index, prefer_preempt, use_cap = (
            req.pick(_BOOLS),
            req.pick(range(len(cq_flavors[pcq]))),
            req.pick(_BOOLS),
            req.pick([0, 1, 1, 1]),
        )
        preempt_amounts, capped_amounts, fit_amounts = amounts(fr)
        picked = [req.pick(preempt_amounts), req.pick(capped_amounts), req.pick(fit_amounts)]
        chosen = fr == fr0 or (
            fr.resource != fr0.resource and include and fr.flavor == cq_flavors[pcq][flavor_index]
        )
        if not chosen:
            continue
        avail, pot = bounds[fr]
        if fr == fr0 or (pot > avail and (avail < 1 or prefer_preempt)):
            requests[fr] = picked[1] if use_cap else picked[0]
        elif avail >= 1:
            requests[fr] = picked[2]  # Fit
        else:
            continue  # NoFit: the flavor assigner would not choose this flavor
        flavor_of[fr.resource] = fr.flavor
    preempt = {fr for fr, v in requests.items() if v > snapshot.available(node, fr)}

    p = Choices(draw, _UIDS, _PREEMPTOR_PRIORITIES, _BOOSTS, _OPT_TIMES, _EVICTIONS)
    uid, priority, boost = p.pick(_UIDS), p.pick(_PREEMPTOR_PRIORITIES), _boost(p.pick(_BOOSTS), invalid_boosts)
    created, eviction = p.pick(_OPT_TIMES), p.pick(_EVICTIONS)
    preemptor = Workload(
        name="preemptor",
        namespace="pending",
        uid="uid-preemptor" if unique_uids else uid,
        local_queue="lq",
        priority=priority,
        annotations={} if boost is None else {BOOST_ANNOTATION: boost},
        creation_time=created,
        conditions=_conditions(eviction),
        pod_sets=[
            PodSetUsage(name="main", count=1, flavors=flavor_of, usage={fr.resource: v for fr, v in requests.items()})
        ],
    )
    g = Choices(draw, list(range(len(strategies))), _BOOLS, _BOOLS, _BOOLS, _REQUEUING)
    config = PreemptionConfig(
        fair_sharing=FairSharingConfig(preemption_strategies=tuple(strategies[g.pick(list(range(len(strategies))))])),
        priority_boost=g.pick(_BOOLS),
        fair_sharing_preempt_within_nominal=g.pick(_BOOLS),
        priority_sorting_within_cohort=g.pick(_BOOLS),
        pods_ready_requeuing_timestamp=g.pick(_REQUEUING),
    )
    return FairScenario(
        cluster_queues=tuple(cluster_queues),
        cohorts=tuple(cohorts),
        workloads=tuple(admitted),
        preemptor=preemptor,
        cluster_queue=pcq,
        assignment=Assignment(requests=requests, preempt=preempt),
        now=_NOW,
        config=config,
    )

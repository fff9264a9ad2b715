"""Hypothesis strategies of valid flavor-assignment scenarios (FAS-1..FAS-25, FA-6).

An :class:`AssignmentScenario` is everything Kueue's flavor assigner and the assign-then-preempt
step around it (:func:`~kueue_preempt.assignment.assign_with_targets`, FAS-13/FAS-14) read: the
pending workload's pod sets (per-pod requests, ``count``/``minCount``, node selector, required
node affinity, tolerations), the ClusterQueue it is being admitted into with its resource groups
(several flavors in order), ``flavorFungibility`` and preemption stanza, sibling ClusterQueues
of its cohort, the ResourceFlavors (labels, taints, tolerations), the admitted workloads (the
snapshot's usage), the assignment gates and ``now``.

Generation follows the validation facts of the spec:

* resource group A covers ``cpu`` (and sometimes ``memory``) with 1..``max_flavors`` flavors
  ``f0, f1, …``; sometimes a group B covers ``gpu`` with flavors ``g0, g1``. Every flavor of a
  group lists exactly the group's resources and no flavor or resource is in two groups
  (Q-17, FAS-25 is not exercised);
* ResourceFlavors carry labels on ``zone``/``gen``, taints of every effect (``PreferNoSchedule``
  is ignored by FAS-5) and their own tolerations; a flavor the ClusterQueue lists is sometimes
  missing from the ResourceFlavors handed to the assigner (FAS-5a case 3);
* the ClusterQueue ``cq`` stands alone or (``borrowing``) sits in cohort ``co`` with two sibling
  queues of the same shape, and ``co`` sometimes (``nested``) under a cohort ``root`` beside a
  fourth queue; borrowing limits only below a cohort (Q-17); zero nominals are frequent so that
  queues borrow and lend;
* admitted workloads use the flavors of their queue and are admitted greedily only if they
  fit (borrowing allowed), except in "overcommitted" scenarios; each has a distinct quota
  reservation time and UID, so the preemption candidate order is strict (ORD) and the oracle's
  answer (FA-6) does not depend on traversal order;
* the pending workload has 1..``max_pod_sets`` pod sets, each with ``count`` 1..3 and per-pod
  requests on the covered resources (zero requests included, FAS-3a); with ``partial_admission``
  some pod sets get ``minCount < count`` (FAS-14); sometimes group A covers ``pods`` (FAS-1), the
  first pod set requests a resource no group covers (FAS-3, under either quota-check strategy)
  or is named by ``status.reclaimablePods`` (FAS-1a); with ``pod_set_groups`` the first and the
  last pod set form a pod-set group (FAS-18).

Fair sharing is off (the FAS-6 branch "fair sharing on and reclaimWithinCohort ≠ Never" is not
drawn), scan progress (FAS-12) and pins (SC-PE-3) are absent: an offline one-shot decision.

Cost: one draw of a scenario is a few hundred small choices packed into a handful of draws
(:class:`~kueue_preempt.testing.strategies.choices.Choices`) plus one snapshot build to admit
the workloads; :meth:`AssignmentScenario.decide` is one
:func:`~kueue_preempt.assignment.assign_with_targets` call.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta, timezone
from typing import Sequence, TypeVar

import attrs
from hypothesis import strategies as st

from kueue_preempt import (
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FlavorQuotas,
    PodSetSpec,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    ResourceFlavor,
    ResourceGroup,
    ResourceQuota,
    Snapshot,
    Workload,
)
from kueue_preempt.assignment import AssignmentDecision, AssignmentGates, QuotaCheckStrategy, assign_with_targets
from kueue_preempt.model import FlavorResource, Taint, Toleration
from kueue_preempt.model.flavors import (
    FlavorFungibility,
    FlavorPreference,
    FungibilityPolicy,
    NodeSelectorRequirement,
    NodeSelectorTerm,
)
from kueue_preempt.testing.strategies.choices import Choices

__all__ = [
    "ASSIGNMENT_FLAVORS",
    "GPU_FLAVORS",
    "LABEL_KEYS",
    "TAINTS",
    "TOLERATIONS",
    "FUNGIBILITIES",
    "PREEMPTIONS",
    "UNDECLARED",
    "AssignmentScenario",
    "assignment_scenarios",
    "fungibilities",
    "assignment_gates",
]

ASSIGNMENT_FLAVORS = ("f0", "f1", "f2", "f3")
"""Flavors of resource group A (``cpu``, sometimes ``memory``), in ClusterQueue order."""
GPU_FLAVORS = ("g0", "g1")
"""Flavors of resource group B (``gpu``)."""
LABEL_KEYS = ("zone", "gen")
_LABEL_VALUES = ("a", "b")
TAINTS = (
    Taint("k1", "", "NoSchedule"),
    Taint("k2", "x", "NoExecute"),
    Taint("k3", "", "PreferNoSchedule"),
)
"""Flavor taints: FAS-5 checks the first two and ignores ``PreferNoSchedule``."""
TOLERATIONS = (
    Toleration("k1", "Exists"),
    Toleration("k2", "Equal", "x"),
    Toleration("k2", "Equal", "y"),
    Toleration("", "Exists", "", "NoExecute"),
)
"""Pod and flavor tolerations: ``Exists``, ``Equal`` (matching and not), an empty key."""
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
NOW = T0 + timedelta(hours=1)

_NEVER = PreemptionPolicy.NEVER
_LOWER = PreemptionPolicy.LOWER_PRIORITY
PREEMPTIONS: tuple[ClusterQueuePreemption, ...] = (
    ClusterQueuePreemption(),
    ClusterQueuePreemption(within_cluster_queue=_LOWER),
    ClusterQueuePreemption(reclaim_within_cohort=PreemptionPolicy.ANY),
    ClusterQueuePreemption(within_cluster_queue=_LOWER, reclaim_within_cohort=_LOWER),
    ClusterQueuePreemption(
        within_cluster_queue=_LOWER,
        reclaim_within_cohort=PreemptionPolicy.ANY,
        borrow_within_cohort=BorrowWithinCohort(policy=_LOWER),
    ),
    ClusterQueuePreemption(
        within_cluster_queue=PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY,
        reclaim_within_cohort=_LOWER,
        borrow_within_cohort=BorrowWithinCohort(policy=_NEVER),
    ),
)
"""Preemption stanzas valid per POL-7 (``borrowWithinCohort`` only with reclaim ≠ Never)."""

_MSS, _TNF = FungibilityPolicy.MAY_STOP_SEARCH, FungibilityPolicy.TRY_NEXT_FLAVOR
FUNGIBILITIES: tuple[FlavorFungibility, ...] = (
    FlavorFungibility(),
    FlavorFungibility(when_can_borrow=_TNF),
    FlavorFungibility(when_can_preempt=_MSS),
    FlavorFungibility(when_can_borrow=_TNF, when_can_preempt=_MSS),
    FlavorFungibility(when_can_borrow=_TNF, when_can_preempt=_TNF, preference=FlavorPreference.BORROWING_OVER_PREEMPTION),
    FlavorFungibility(when_can_borrow=_TNF, when_can_preempt=_TNF, preference=FlavorPreference.PREEMPTION_OVER_BORROWING),
)
"""Every valid ``flavorFungibility`` (FAS-8): a preference only when both fields try the next flavor."""


@attrs.frozen
class AssignmentScenario:
    """Every input of one flavor assignment (FAS-17 inputs) and of the FAS-13/FAS-14 step.

    ``cluster_queue`` names the ClusterQueue of ``workload`` (the pending one, with
    ``spec_pod_sets``). ``resource_flavors`` are the flavors handed to the assigner.
    """

    cluster_queues: tuple[ClusterQueue, ...]
    cohorts: tuple[Cohort, ...]
    workloads: tuple[Workload, ...]
    resource_flavors: tuple[ResourceFlavor, ...]
    workload: Workload
    cluster_queue: str = "cq"
    gates: AssignmentGates = AssignmentGates()
    quota_check: QuotaCheckStrategy = QuotaCheckStrategy.BLOCK_UNDECLARED
    config: PreemptionConfig = PreemptionConfig()
    now: datetime = NOW

    @property
    def queue(self) -> ClusterQueue:
        """The ClusterQueue the workload is assigned in."""
        return next(cq for cq in self.cluster_queues if cq.name == self.cluster_queue)

    def snapshot(self, rng: random.Random | None = None) -> Snapshot:
        """A fresh snapshot; with ``rng`` its lists are permuted (the answer must not change)."""
        cqs, cohorts, workloads = list(self.cluster_queues), list(self.cohorts), list(self.workloads)
        if rng is not None:
            rng.shuffle(cqs)
            rng.shuffle(cohorts)
            rng.shuffle(workloads)
        return Snapshot(cqs, cohorts, workloads)

    def decide(self, *, rng: random.Random | None = None) -> AssignmentDecision:
        """The library's answer: :func:`~kueue_preempt.assignment.assign_with_targets`.

        Assign flavors, ask ``get_targets`` for a ``Preempt`` assignment, else try partial
        admission (FAS-13, FAS-14); the preemption oracle is the default one (FA-6). With
        ``rng`` the snapshot's lists and the ResourceFlavors are permuted. Cost: one snapshot
        build and one assignment, plus ``get_targets`` per oracle call and per probe.
        """
        flavors = list(self.resource_flavors)
        if rng is not None:
            rng.shuffle(flavors)
        return assign_with_targets(
            self.workload,
            self.cluster_queue,
            self.snapshot(rng),
            flavors,
            config=self.config,
            gates=self.gates,
            quota_check=self.quota_check,
            now=self.now,
        )


def fungibilities() -> st.SearchStrategy[FlavorFungibility]:
    """Every valid ``flavorFungibility`` (:data:`FUNGIBILITIES`, FAS-8)."""
    return st.sampled_from(FUNGIBILITIES)


def _gate(value: bool | None) -> st.SearchStrategy[bool]:
    # Kueue's gates are on by default: an undecided one is off a quarter of the time.
    return st.sampled_from((True, True, False, True)) if value is None else st.just(value)


def assignment_gates(
    *,
    flavor_fungibility: bool | None = None,
    partial_admission: bool | None = None,
    reclaimable_pods: bool | None = None,
    quota_check_strategy: bool | None = None,
) -> st.SearchStrategy[AssignmentGates]:
    """Assignment gates (FAS-16): the FAS-10/FAS-11 scans, FAS-14, FAS-1a and FAS-3;
    ``None`` draws the gate (on three times in four, as Kueue's defaults are on).

    ``FlavorFungibility`` off needs ``FlavorFungibilityPreserveScanProgress`` off (FAS-8).
    """
    return st.builds(
        lambda f, p, r, q: AssignmentGates(
            flavor_fungibility=f, preserve_scan_progress=f, partial_admission=p, reclaimable_pods=r,
            quota_check_strategy=q,
        ),  # fmt: skip
        _gate(flavor_fungibility),
        _gate(partial_admission),
        _gate(reclaimable_pods),
        _gate(quota_check_strategy),
    )


T = TypeVar("T")


def _strategy(value: T | st.SearchStrategy[T] | None, default: st.SearchStrategy[T]) -> st.SearchStrategy[T]:
    if value is None:
        return default
    if isinstance(value, st.SearchStrategy):
        return value
    return st.just(value)


_BOOLS = (False, True)
_LABEL_OPTIONS = (None, None, *_LABEL_VALUES)
# Rare options sit in the middle of their lists: zeroed and saturated draws pick the ends.
_TAINT_OPTIONS: tuple[Taint | None, ...] = (None,) * 4 + TAINTS + (None,) * 3
_SECOND_TAINT: tuple[Taint | None, ...] = (None,) * 8 + TAINTS[:1] + (None,) * 7
_TOL_OPTIONS: tuple[Toleration | None, ...] = (None, None, *TOLERATIONS)
_NOMINALS = (4, 1, 2, 3, 0, 4, 5, 2)
"""Nominals; the first (what zeroed draws give) is a typical one, so simple scenarios fit."""
_SELECTOR_OPTIONS = (None,) * 5 + _LABEL_VALUES + (None,) * 3
_PER_POD = (0, 1, 1, 1, 2)
_BLS: tuple[int | None, ...] = (None, None, None, 0, 1, 3)
_MISSING = (False,) * 6 + (True,) + (False,) * 6
_AFFINITY_OPS = ("In", "NotIn", "Exists", "DoesNotExist")
_AFFINITY_OPTIONS: tuple[str | None, ...] = (None,) * 8 + _AFFINITY_OPS + (None,) * 6
_PRIORITIES = (0, 1, 2, 3)
_COHORT_NOMINALS = (0, 2, 0, 1, 3)
_RARE = (False, False, False, True, False, False)
_STRATEGIES = (QuotaCheckStrategy.BLOCK_UNDECLARED, QuotaCheckStrategy.IGNORE_UNDECLARED)
UNDECLARED = "example.com/x"
"""A resource no resource group covers (FAS-3), requested by the first pod set with ``undeclared``."""


def _flavor(c: Choices, name: str) -> ResourceFlavor:
    labels = {k: v for k in LABEL_KEYS if (v := c.pick(_LABEL_OPTIONS)) is not None}
    taints = [t for t in (c.pick(_TAINT_OPTIONS), c.pick(_SECOND_TAINT)) if t is not None]
    tols = [t for t in (c.pick(_TOL_OPTIONS),) if t is not None]
    return ResourceFlavor(name, node_labels=labels, node_taints=list(dict.fromkeys(taints)), tolerations=tols)


def _flavor_options() -> list[Sequence[object]]:
    return [*([_LABEL_OPTIONS] * len(LABEL_KEYS)), _TAINT_OPTIONS, _SECOND_TAINT, _TOL_OPTIONS]


@st.composite
def assignment_scenarios(
    draw: st.DrawFn,
    *,
    min_flavors: int = 1,
    max_flavors: int = 3,
    fungibility: FlavorFungibility | st.SearchStrategy[FlavorFungibility] | None = None,
    partial_admission: bool | None = None,
    borrowing: bool | None = None,
    preemption: ClusterQueuePreemption | st.SearchStrategy[ClusterQueuePreemption] | None = None,
    gates: AssignmentGates | st.SearchStrategy[AssignmentGates] | None = None,
    gpu_group: bool | None = None,
    selectors: bool = True,
    pods: bool | None = None,
    undeclared: bool | None = None,
    reclaimable: bool | None = None,
    pod_set_groups: bool | None = None,
    nested: bool | None = None,
    max_pod_sets: int = 2,
    max_workloads: int = 8,
) -> AssignmentScenario:
    """A random flavor-assignment scenario (see the module docstring for what is drawn).

    Knobs (``None`` draws the value):

    * ``min_flavors``/``max_flavors``: flavors of resource group A (1..4);
    * ``fungibility``: the ClusterQueue's ``flavorFungibility`` (a value or a strategy; default
      every valid one, FAS-8);
    * ``partial_admission``: ``True`` gives at least one pod set ``minCount < count`` (and turns
      the gate on), ``False`` none; ``None`` draws it (FAS-14);
    * ``borrowing``: ``True`` puts ``cq`` in a cohort with two sibling queues (borrowing and
      reclaiming possible, Q-16), ``False`` makes it stand alone;
    * ``preemption``: ``cq``'s preemption stanza (default: one of :data:`PREEMPTIONS`);
    * ``gates``: :class:`AssignmentGates` (default :func:`assignment_gates`: both scans, FAS-10
      and FAS-11, and partial admission on or off);
    * ``gpu_group``: a second resource group (``gpu``, flavors ``g0``/``g1``);
    * ``selectors``: draw labels, taints, tolerations, node selectors and affinities (FAS-5);
      ``False`` gives plain flavors every pod set can use;
    * ``pods``: resource group A also covers ``pods`` (every pod set requests ``pods = count``, FAS-1);
    * ``undeclared``: the first pod set requests :data:`UNDECLARED` (0 or 1 per pod), which no group
      covers; the scenario's ``quota_check`` strategy (drawn) decides (FAS-3);
    * ``reclaimable``: ``status.reclaimablePods`` names the first pod set (FAS-1a);
    * ``nested``: with ``borrowing``, cohort ``co`` (with its own quota) sits under ``root`` beside a
      fourth queue ``q3`` (borrowing levels up to 2, reclaim inside a subtree, Q-15/Q-16);
    * ``pod_set_groups``: the first and the last pod set share a ``podSetGroupName`` and are
      assigned as one unit (FAS-18; with three pod sets the groups interleave).

    Every draw is valid: nothing is discarded.
    """
    if not 1 <= min_flavors <= max_flavors <= len(ASSIGNMENT_FLAVORS):
        raise ValueError(f"need 1 <= min_flavors <= max_flavors <= {len(ASSIGNMENT_FLAVORS)}")
    n_flavors = draw(st.integers(min_flavors, max_flavors))
    shape = Choices(draw, _BOOLS, _BOOLS, _BOOLS, [0, 0, 1, 1, 2, 3], _RARE, _RARE, _RARE, _STRATEGIES, _RARE)
    with_memory, with_gpu, in_cohort, overcommit = (
        shape.pick(_BOOLS), shape.pick(_BOOLS), shape.pick(_BOOLS), shape.pick([0, 0, 1, 1, 2, 3]) == 3
    )
    with_pods, with_undeclared, with_reclaimable = shape.pick(_RARE), shape.pick(_RARE), shape.pick(_RARE)
    quota_check = shape.pick(_STRATEGIES)
    with_groups = shape.pick(_RARE) if pod_set_groups is None else pod_set_groups
    with_root = draw(st.booleans()) if nested is None else nested
    with_pods = with_pods if pods is None else pods
    with_undeclared = with_undeclared if undeclared is None else undeclared
    with_reclaimable = with_reclaimable if reclaimable is None else reclaimable
    with_gpu = with_gpu if gpu_group is None else gpu_group
    in_cohort = in_cohort if borrowing is None else borrowing
    a_resources: tuple[str, ...] = ("cpu", "memory") if with_memory else ("cpu",)
    if with_pods:
        a_resources += ("pods",)
    a_flavors = ASSIGNMENT_FLAVORS[:n_flavors]
    layout: list[tuple[tuple[str, ...], tuple[str, ...]]] = [(a_resources, a_flavors)]
    if with_gpu:
        layout.append((("gpu",), GPU_FLAVORS))
    all_frs = [(f, r) for resources, flavors in layout for f in flavors for r in resources]

    # ---- ResourceFlavors (labels, taints, tolerations); a listed flavor may be missing (FAS-5a)
    resource_flavors = []
    for name in (f for _, flavors in layout for f in flavors):
        c = Choices(draw, *_flavor_options(), _MISSING)
        rf = _flavor(c, name)
        if c.pick(_MISSING) and selectors:
            continue
        resource_flavors.append(rf if selectors else ResourceFlavor(name))

    # ---- ClusterQueues
    fung = draw(_strategy(fungibility, fungibilities()))
    stanza = draw(_strategy(preemption, st.sampled_from(PREEMPTIONS)))
    names = ["cq", "q1", "q2"] if in_cohort else ["cq"]
    with_root = with_root and in_cohort
    cohorts: list[Cohort] = []
    if with_root:
        # Two levels (Q-15 heights 1 and 2): co (cq, q1, q2) under root, beside q3. Borrowing
        # beyond co reaches level 2, and a request that fits co is reclaimable in a proper
        # subtree (Q-16 second component).
        names.append("q3")
        c = Choices(draw, *([_COHORT_NOMINALS] * len(all_frs)))
        co_quota = {FlavorResource(f, r): ResourceQuota(c.pick(_COHORT_NOMINALS)) for f, r in all_frs}
        cohorts = [Cohort("co", parent="root", quotas=co_quota), Cohort("root")]
    cluster_queues = []
    for qname in names:
        q = Choices(draw, *([_NOMINALS, _BLS] * len(all_frs)))
        quota = {fr: (q.pick(_NOMINALS), q.pick(_BLS)) for fr in all_frs}
        groups = [
            ResourceGroup(
                resources,
                [
                    FlavorQuotas(
                        f,
                        {
                            r: ResourceQuota(quota[(f, r)][0], borrowing_limit=quota[(f, r)][1] if in_cohort else None)
                            for r in resources
                        },
                    )
                    for f in flavors
                ],
            )
            for resources, flavors in layout
        ]
        cluster_queues.append(
            ClusterQueue(
                qname,
                cohort=("root" if qname == "q3" else "co") if in_cohort else None,
                resource_groups=groups,
                preemption=stanza if qname == "cq" else PREEMPTIONS[2],
                flavor_fungibility=fung if qname == "cq" else FlavorFungibility(),
            )
        )

    # ---- admitted workloads: greedy admission (borrowing allowed) unless overcommitted
    snapshot = Snapshot(cluster_queues, cohorts, [])
    admitted: list[Workload] = []
    n_workloads = draw(st.integers(0, max_workloads))
    queue_options = ["cq", *names]  # half the workloads in cq: usage there makes Preempt possible
    for i in range(n_workloads):
        w_opts: list[Sequence[object]] = [queue_options, _PRIORITIES]
        for resources, flavors in layout:
            w_opts += [range(len(flavors)), _BOOLS] + [(2, 1, 1, 2, 0, 3, 4)] * len(resources)
        c = Choices(draw, *w_opts)
        qname, priority = c.pick(queue_options), c.pick(_PRIORITIES)
        flavors_of: dict[str, str] = {}
        usage: dict[str, int] = {}
        for gi, (resources, flavors) in enumerate(layout):
            fi, used = c.pick(range(len(flavors))), c.pick(_BOOLS)
            amounts = [c.pick((2, 1, 1, 2, 0, 3, 4)) for _ in resources]
            if gi == 0 or used:
                for r, v in zip(resources, amounts):
                    if v > 0 or r == "cpu":
                        flavors_of[r] = flavors[fi]
                        usage[r] = max(v, 1) if r == "cpu" else v
        w = Workload(
            name=f"w{i}",
            namespace="ns",
            uid=f"uid-{i}",
            cluster_queue=qname,
            priority=priority,
            creation_time=T0 + timedelta(minutes=i),
            quota_reserved_at=T0 + timedelta(minutes=10 + i),
            pod_sets=[PodSetUsage(name="main", count=1, flavors=flavors_of, usage=usage)],
        )
        node = snapshot.cluster_queue(qname)
        if overcommit or snapshot.fits(node, w.usage, allow_borrowing=True):
            snapshot.add_workload(w)
            admitted.append(w)

    # ---- the pending workload
    gate_value = draw(_strategy(gates, assignment_gates()))
    n_pod_sets = draw(st.integers(min(2, max_pod_sets) if with_groups else 1, max_pod_sets))
    want_partial = draw(st.booleans()) if partial_admission is None else partial_admission
    if partial_admission is True and not gate_value.partial_admission:
        gate_value = attrs.evolve(gate_value, partial_admission=True)
    specs = []
    covered = [r for resources, _ in layout for r in resources if r != "pods"]  # pods: FAS-1 sets it
    if with_undeclared:
        covered.append(UNDECLARED)
    ps_opts: list[Sequence[object]] = [(1, 1, 2, 3), (0, 1, 2), *([_PER_POD] * len(covered))]
    ps_opts += [_SELECTOR_OPTIONS] * len(LABEL_KEYS) + [_TOL_OPTIONS] * 3
    ps_opts += [_AFFINITY_OPTIONS, LABEL_KEYS, _LABEL_VALUES, _BOOLS, _BOOLS]
    for i in range(n_pod_sets):
        c = Choices(draw, *ps_opts)
        count, reduce_by = c.pick((1, 1, 2, 3)), c.pick((0, 1, 2))
        per_pod = {r: c.pick(_PER_POD) for r in covered}
        per_pod["cpu"] = max(per_pod["cpu"], 1)
        if with_gpu and per_pod["gpu"] == 0 and i % 2 == 0:
            del per_pod["gpu"]  # some pod sets do not request the second group at all
        if with_undeclared and i > 0:
            del per_pod[UNDECLARED]
        selector = {k: sv for k in LABEL_KEYS if (sv := c.pick(_SELECTOR_OPTIONS)) is not None}
        tolerations = list(dict.fromkeys(t for t in (c.pick(_TOL_OPTIONS) for _ in range(3)) if t is not None))
        op, key, value, two_terms, _spare = (
            c.pick(_AFFINITY_OPTIONS), c.pick(LABEL_KEYS), c.pick(_LABEL_VALUES),
            c.pick(_BOOLS), c.pick(_BOOLS),
        )  # fmt: skip
        affinity = None
        if op is not None and selectors:
            values = (value,) if op in ("In", "NotIn") else ()
            terms = [NodeSelectorTerm([NodeSelectorRequirement(key, op, values)])]
            if two_terms:
                terms.append(NodeSelectorTerm([NodeSelectorRequirement(key, "In", tuple(_LABEL_VALUES[:1]))]))
            affinity = terms
        min_count = None
        if want_partial and (reduce_by or i == 0):
            count = max(count, 2)
            min_count = max(0, count - max(reduce_by, 1))
        specs.append(
            PodSetSpec(
                f"ps{i}",
                count,
                per_pod,
                min_count=min_count,
                node_selector=selector if selectors else {},
                required_node_affinity=affinity,
                tolerations=tolerations if selectors else (),
                # FAS-18: the first and the last pod set form one group (interleaving with 3+)
                pod_set_group="grp" if with_groups and n_pod_sets > 1 and i in (0, n_pod_sets - 1) else None,
            )
        )
    incoming = Workload(
        name="incoming",
        namespace="pending",
        uid="uid-incoming",
        priority=draw(st.sampled_from((3, 4, 2, 0, 1, 4))),
        creation_time=T0 + timedelta(minutes=30),
        spec_pod_sets=specs,
        reclaimable_pods={"ps0": draw(st.integers(1, 2))} if with_reclaimable else {},
    )
    return AssignmentScenario(
        cluster_queues=tuple(cluster_queues),
        cohorts=tuple(cohorts),
        workloads=tuple(admitted),
        resource_flavors=tuple(resource_flavors),
        workload=incoming,
        gates=gate_value,
        quota_check=quota_check,
    )

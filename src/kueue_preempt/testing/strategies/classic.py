"""Hypothesis strategies that build valid random classic-preemption scenarios.

A :class:`ClassicScenario` (historical name: ``Scenario``) is everything ``get_targets``
reads: the quota tree (cohorts and ClusterQueues), the admitted workloads, the pending
preemptor, the ClusterQueue it is being admitted into, its flavor assignment, ``now`` and the
configuration. :func:`classic_scenarios` draws them; :func:`scenarios` is the same strategy
with its original knobs.

Generation follows the validation facts of the spec:

* cohort tree of 0–2 levels (roots, optionally with child cohorts); cohort quotas are
  optional; borrowing/lending limits only on nodes that have a parent, and a ClusterQueue's
  lending limit never exceeds its nominal (Q-17);
* 1–5 ClusterQueues, each with a preemption stanza valid per POL-7 (``borrowWithinCohort``
  only when ``reclaimWithinCohort != Never``; an optional ``maxPriorityThreshold``);
* 1–2 flavors × 1–2 resources;
* admitted workloads with unique ``namespace/name`` keys, small priorities (``None``
  included), optional boost annotations (valid and empty ones; invalid ones, EP-5, only with
  ``invalid_boosts=True``), small usages on the
  flavors their ClusterQueue declares, quota reservation times, some evicted (with an
  ``Evicted`` condition whose reason feeds POL-5), some with empty or duplicated UIDs. They
  are admitted greedily (in generation order, or other queues first), each only if it fits
  (borrowing allowed) — so usage is plausible and some ClusterQueues borrow — except in
  "overcommitted" scenarios (quota lowered after admission), where everything is admitted;
* a preemptor whose ``Assignment.requests`` hold every requested FlavorResource (FA-3:
  positive amounts only) and whose ``preempt`` set is exactly the FlavorResources whose
  request exceeds ``Available`` (FA-1/FA-2). A ``Preempt`` request never exceeds the
  potential available quota (Q-10): such a request would be ``NoFit`` and Kueue would not
  call ``get_targets``. Only scenarios where the preemptor does not fit before preemption
  are produced (Kueue calls ``get_targets`` only for ``Preempt`` assignments, CTX-1). Two
  preemptors in three outrank every admitted workload's base priority, so that the priority
  policies leave candidates; about half the scenarios need a non-empty answer.

FA-1's last condition for ``Preempt`` (nominal ≥ request, or a proper subtree fits it, or
borrowing within the cohort is allowed) is deliberately *not* enforced: the properties hold
for any input, and dropping the filter keeps more scenarios.

Draws are rarely discarded: when nothing could be freed anywhere, the draw is repaired
(everything admitted, a nominal or a quota-using workload added) rather than rejected, and
every workload slot is drawn whether used or not, so that Hypothesis does not cut early
draws short. Small choices are packed into few draws (:class:`Choices`) so that 500
examples per property stay fast.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Sequence

import attrs
from hypothesis import strategies as st

from kueue_preempt import (
    Assignment,
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
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
from kueue_preempt.snapshot.quota import QuotaNode
from kueue_preempt.testing.strategies.choices import Choices

__all__ = [
    "FLAVORS",
    "RESOURCES",
    "T0",
    "ClassicScenario",
    "Scenario",
    "build_snapshot",
    "classic_scenarios",
    "configs",
    "scenarios",
]

FLAVORS = ("f0", "f1")
RESOURCES = ("cpu", "gpu")
T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)
"""Base of every generated timestamp; ``now`` is ``T0 + 1h``."""
NOW = T0 + timedelta(hours=1)


@dataclass(frozen=True)
class ClassicScenario:
    """One input of ``get_targets``. ``cluster_queue`` is the preemptor's ClusterQueue.

    Holds every input of the decision; :meth:`decide` returns the library's answer on a
    fresh snapshot. The fair-sharing strategies reuse it with a fair-sharing ``config``.
    """

    cluster_queues: list[ClusterQueue]
    cohorts: list[Cohort]
    workloads: list[Workload]
    preemptor: Workload
    cluster_queue: str
    assignment: Assignment
    now: datetime
    config: PreemptionConfig = field(default_factory=PreemptionConfig)

    def snapshot(
        self,
        workloads: Sequence[Workload] | None = None,
        cluster_queues: Sequence[ClusterQueue] | None = None,
        cohorts: Sequence[Cohort] | None = None,
    ) -> Snapshot:
        """A fresh snapshot of this scenario (optionally with other/permuted lists)."""
        return build_snapshot(self, workloads=workloads, cluster_queues=cluster_queues, cohorts=cohorts)

    def shuffled_snapshot(self, rng: random.Random) -> Snapshot:
        """A fresh snapshot built from permuted lists (the answer must not depend on them)."""
        workloads, cluster_queues, cohorts = list(self.workloads), list(self.cluster_queues), list(self.cohorts)
        rng.shuffle(workloads)
        rng.shuffle(cluster_queues)
        rng.shuffle(cohorts)
        return build_snapshot(self, workloads=workloads, cluster_queues=cluster_queues, cohorts=cohorts)

    def decide(self, *, rng: random.Random | None = None) -> list[Target]:
        """The library's answer: :func:`~kueue_preempt.get_targets` on a fresh snapshot.

        With ``rng``, the snapshot is built from permuted lists. Cost: one snapshot build and
        one ``get_targets`` call.
        """
        snapshot = self.snapshot() if rng is None else self.shuffled_snapshot(rng)
        return get_targets(
            self.preemptor, self.cluster_queue, self.assignment, snapshot, config=self.config, now=self.now
        )


Scenario = ClassicScenario
"""The historical name of :class:`ClassicScenario` (same class)."""


def build_snapshot(
    scenario: ClassicScenario,
    workloads: Sequence[Workload] | None = None,
    cluster_queues: Sequence[ClusterQueue] | None = None,
    cohorts: Sequence[Cohort] | None = None,
) -> Snapshot:
    """A fresh :class:`Snapshot` of ``scenario``; each list defaults to the scenario's own."""
    return Snapshot(
        cluster_queues if cluster_queues is not None else scenario.cluster_queues,
        cohorts if cohorts is not None else scenario.cohorts,
        workloads if workloads is not None else scenario.workloads,
    )


def _at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


_TIMES = [_at(m) for m in range(9)]
_OPT_TIMES: list[datetime | None] = [None, *_TIMES]
_NAMESPACES = ["", "ns1", "ns2"]
_UIDS = ["", "", "u0", "u1", "u2", "u3", "u4", "u5"]
"""Often empty or shared, so that ORD-6 ties survive to the traversal/input order."""
_LOCAL_QUEUES = ["lq0", "lq1"]
_PRIORITIES: list[int | None] = [None, -2, -1, 0, 1, 2, 3]
"""Small range so that equal effective priorities (and threshold edges) are frequent."""
_PREEMPTOR_PRIORITIES: list[int | None] = [None, -1, 0, 1, 2, 3, 4]
_BOOSTS: list[str | None] = [None] * 10 + [
    *("", "0", "1", "-1", "+2", "-3", "0001"),
    *("abc", "1.5", " 1", "1\n", "\uff11", "2147483648", "-2147483649"),
]
"""Boost annotation values: mostly absent; empty (EP-3), valid (EP-4) and invalid ones (EP-5)."""
_INVALID_BOOSTS = frozenset(("abc", "1.5", " 1", "1\n", "\uff11", "2147483648", "-2147483649"))
"""The EP-5 values of ``_BOOSTS``: the library ignores them and logs a warning for each workload."""

_RESERVED: list[datetime | None] = [*_TIMES, *_TIMES, None]
"""QuotaReserved times; ``None`` (rare) exercises ORD-5's ``now`` fallback."""
_EVICTED_REASONS = ["Preempted", "AdmissionCheck", "PodsReadyTimeout"]
_EVICTIONS: list[tuple[str, datetime] | None] = [None] * 27 + [(r, t) for r in _EVICTED_REASONS for t in _TIMES]
"""Half not evicted; else the reason and time of the ``Evicted=True`` condition (POL-5)."""
_PREEMPTED: list[tuple[str, str, datetime] | None] = [None] * 36 + [
    (s, r, t) for s in ("True", "False") for r in ("InCohortReclaimWhileBorrowing", "InClusterQueue") for t in _TIMES
]
"""An optional ``Preempted`` condition (POL-5(c))."""
_FS_USAGES: list[float | None] = [None, 0.0, 1.0, 2.5]
_BOOLS = [False, True]
_FLAVOR_INDEXES = [0, 1]
_AMOUNTS = [0, 1, 2, 3]
"""Pod set usage per resource (a zero amount still overlaps, POL-9)."""
_N_POD_SETS = [1, 1, 2]
_NOMINALS = [0, 0, 1, 2, 3, 4, 5, 0]
"""ClusterQueue nominals; zero is frequent so that queues borrow (and can be reclaimed from)."""
_COHORT_NOMINALS = [0, 1, 2, 3]
_LIMITS: list[int | None] = [None, None, 0, 1, 2, 3, 4]


def _boost(value: str | None, invalid_boosts: bool) -> str | None:
    """A drawn boost, an invalid one replaced by none unless the caller asked for them (EP-5)."""
    return None if value in _INVALID_BOOSTS and not invalid_boosts else value

_RECLAIM = [
    PreemptionPolicy.NEVER,
    PreemptionPolicy.LOWER_PRIORITY,
    PreemptionPolicy.ANY,
    PreemptionPolicy.LOWER_PRIORITY,
    PreemptionPolicy.ANY,
]
_BWC_KINDS = ["absent", "Never", "LowerPriority"]
_THRESHOLDS: list[int | None] = [None, -2, -1, 0, 1, 2, 3]


def _preemption(
    within: PreemptionPolicy, reclaim: PreemptionPolicy, kind: str, threshold: int | None
) -> ClusterQueuePreemption:
    """A stanza valid per POL-7: ``borrowWithinCohort`` needs ``reclaimWithinCohort != Never``."""
    bwc: BorrowWithinCohort | None = None
    if kind == "LowerPriority" and reclaim is not PreemptionPolicy.NEVER:
        bwc = BorrowWithinCohort(policy=PreemptionPolicy.LOWER_PRIORITY, max_priority_threshold=threshold)
    elif kind != "absent":
        bwc = BorrowWithinCohort(policy=PreemptionPolicy.NEVER, max_priority_threshold=threshold)
    return ClusterQueuePreemption(within_cluster_queue=within, reclaim_within_cohort=reclaim, borrow_within_cohort=bwc)


_REQUEUING = st.sampled_from([None, RequeuingTimestamp.EVICTION, RequeuingTimestamp.CREATION])


def configs(*, admission_fair_sharing: bool | None = False) -> st.SearchStrategy[PreemptionConfig]:
    """Classic configurations: gates that change EP (EP-2), QOT (POL-5) and optionally ORD-3.

    ``admission_fair_sharing=None`` draws it too.
    """
    afs = st.booleans() if admission_fair_sharing is None else st.just(admission_fair_sharing)
    return st.builds(
        PreemptionConfig,
        fair_sharing=st.none(),
        admission_fair_sharing=afs,
        priority_boost=st.booleans(),
        priority_sorting_within_cohort=st.booleans(),
        pods_ready_requeuing_timestamp=_REQUEUING,
    )


_DEFAULT_CONFIGS = configs()


def _quota(choices: Choices, nominals: Sequence[int], has_parent: bool, *, cq: bool, scale: int = 1) -> ResourceQuota:
    nominal = choices.pick(nominals) // scale
    bl = choices.pick(_LIMITS)
    ll = choices.pick(_LIMITS)
    if not has_parent:
        return ResourceQuota(nominal=nominal)  # limits only below a parent
    if cq and ll is not None:
        ll = min(ll, nominal)  # a ClusterQueue lends at most its nominal
    return ResourceQuota(nominal=nominal, borrowing_limit=bl, lending_limit=ll)


def _admit_in_order(
    cluster_queues: Sequence[ClusterQueue], cohorts: Sequence[Cohort], workloads: Sequence[Workload], *, everything: bool
) -> tuple[Snapshot, list[Workload]]:
    """Admit ``workloads`` in order, each only if it fits with borrowing (GT-5) — or every one
    of them when ``everything`` (an overcommitted cluster: quota lowered after admission)."""
    snapshot = Snapshot(cluster_queues, cohorts, ())
    admitted: list[Workload] = []
    for w in workloads:
        node = snapshot.cluster_queue(w.cluster_queue)
        if everything or snapshot.fits(node, w.usage, allow_borrowing=True):
            snapshot.add_workload(w)
            admitted.append(w)
    return snapshot, admitted


def _conditions(eviction: tuple[str, datetime] | None, preempted: tuple[str, str, datetime] | None) -> list[Condition]:
    out = []
    if eviction is not None:
        out.append(Condition(type="Evicted", status="True", reason=eviction[0], last_transition_time=eviction[1]))
    if preempted is not None:
        status, reason, at = preempted
        out.append(Condition(type="Preempted", status=status, reason=reason, last_transition_time=at))
    return out


_POD_SET_OPTIONS: list[Sequence[object]] = [_N_POD_SETS] + [_BOOLS, _FLAVOR_INDEXES, _AMOUNTS] * (2 * len(RESOURCES))
_WORKLOAD_OPTIONS: list[Sequence[object]] = [
    _NAMESPACES,
    _UIDS,
    _LOCAL_QUEUES,
    _PRIORITIES,
    _BOOSTS,
    _OPT_TIMES,
    _RESERVED,
    _EVICTIONS,
    _PREEMPTED,
    _FS_USAGES,
]


def _workload_choices(draw: st.DrawFn) -> tuple[Choices, Choices]:
    """The two draws one workload is decoded from (shape, then attributes)."""
    return Choices(draw, *_POD_SET_OPTIONS), Choices(draw, *_WORKLOAD_OPTIONS)


def _make_workload(
    choices: tuple[Choices, Choices],
    index: int,
    cluster_queue: str,
    flavors: Sequence[str],
    resources: Sequence[str],
    usage_based: bool,
    uid: str | None = None,
    invalid_boosts: bool = False,
) -> Workload:
    """An admitted workload of ``cluster_queue`` using only that queue's flavors."""
    shape, c = choices
    n_pod_sets = shape.pick(_N_POD_SETS)
    pod_sets = []
    for p in range(2):
        entries = [(shape.pick(_BOOLS), shape.pick(_FLAVOR_INDEXES), shape.pick(_AMOUNTS)) for _ in RESOURCES]
        if p >= n_pod_sets:
            continue
        entries = entries[: len(resources)]
        if not any(used for used, _, _ in entries):
            entries[0] = (True, *entries[0][1:])
        pod_sets.append(
            PodSetUsage(
                name=f"ps{p}",
                count=1,
                flavors={r: flavors[fi % len(flavors)] for r, (used, fi, _) in zip(resources, entries) if used},
                usage={r: v for r, (used, _, v) in zip(resources, entries) if used},
            )
        )
    namespace, drawn_uid, local_queue = c.pick(_NAMESPACES), c.pick(_UIDS), c.pick(_LOCAL_QUEUES)
    priority, boost = c.pick(_PRIORITIES), _boost(c.pick(_BOOSTS), invalid_boosts)
    created, reserved = c.pick(_OPT_TIMES), c.pick(_RESERVED)
    eviction, preempted, fs_usage = c.pick(_EVICTIONS), c.pick(_PREEMPTED), c.pick(_FS_USAGES)
    return Workload(
        name=f"w{index}",
        namespace=namespace,
        uid=drawn_uid if uid is None else uid,
        cluster_queue=cluster_queue,
        local_queue=local_queue,
        priority=priority,
        annotations={} if boost is None else {BOOST_ANNOTATION: boost},
        creation_time=created,
        quota_reserved_at=reserved,
        evicted=eviction is not None,
        conditions=_conditions(eviction, preempted),
        pod_sets=pod_sets,
        # Supplied only for usage-based ClusterQueues (DM-7, ORD-3).
        local_queue_fs_usage=fs_usage if usage_based else None,
    )


_ROOT_COUNTS = [1, 0, 1, 1, 2, 1, 1, 2]
_CHILD_COUNTS = [0, 1, 2]
_N_FRS = len(FLAVORS) * len(RESOURCES)
_COHORT_QUOTA_OPTIONS: list[Sequence[object]] = [_BOOLS, _BOOLS] + [_BOOLS, _COHORT_NOMINALS, _LIMITS, _LIMITS] * _N_FRS
_WHICH_FLAVORS = [0, 0, 1, 2]
_CQ_QUOTA_OPTIONS: list[Sequence[object]] = [_WHICH_FLAVORS] + [_NOMINALS, _LIMITS, _LIMITS] * _N_FRS
_STANDALONE = [False] * 7 + [True]

_PREEMPTOR_OPTIONS: list[Sequence[object]] = [
    _UIDS,
    _LOCAL_QUEUES,
    _PREEMPTOR_PRIORITIES,
    _BOOSTS,
    _OPT_TIMES,
    _EVICTIONS,
]


def _preempt_amount(draw: st.DrawFn, snapshot: Snapshot, node: QuotaNode, flavor: str, resource: str) -> int:
    """A ``Preempt`` request: above ``Available``, at most the potential available (FA-1).

    When possible it is often also capped by the ClusterQueue's unused nominal (the classic
    "reclaim what was lent" case, hierarchical advantage, CL-GEN-4) or by its nominal (fits
    without borrowing once own workloads go too: the no-borrow attempt, CL-ATT-1).
    """
    fr = FlavorResource(flavor, resource)
    lo = snapshot.available(node, fr) + 1
    hi = snapshot.potential_available(node, fr)
    nominal = node.subtree_quota.get(fr, 0)
    caps = [hi] + [cap for cap in (nominal - node.usage.get(fr, 0), nominal) if lo <= cap < hi]
    return draw(st.integers(lo, caps[draw(st.integers(0, len(caps) - 1))]))


_WITHIN_VALUES = (
    PreemptionPolicy.NEVER,
    PreemptionPolicy.LOWER_PRIORITY,
    PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY,
)
"""What ``withinClusterQueue`` accepts (POL-7)."""
_RECLAIM_VALUES = (PreemptionPolicy.NEVER, PreemptionPolicy.LOWER_PRIORITY, PreemptionPolicy.ANY)
"""What ``reclaimWithinCohort`` accepts (POL-7)."""
_DEFAULT_WITHIN = [
    PreemptionPolicy.NEVER,
    PreemptionPolicy.LOWER_PRIORITY,
    PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY,
    PreemptionPolicy.LOWER_PRIORITY,
    PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY,
]
"""``Never`` one time in five: a queue that cannot preempt its own workloads rarely has targets."""
_PREEMPTOR_ABOVE = [False, True, True]
"""Two preemptors in three outrank every admitted workload's base priority, so that the
priority policies (POL-2/POL-3) admit candidates; the others draw from a small range that
ties with the workloads (equal priorities, threshold edges)."""


def _policy_options(
    name: str, chosen: Sequence[PreemptionPolicy] | None, valid: Sequence[PreemptionPolicy], default: list[PreemptionPolicy]
) -> list[PreemptionPolicy]:
    if chosen is None:
        return default
    options = list(dict.fromkeys(chosen))
    invalid = [p.value for p in options if p not in valid]
    if invalid or not options:
        raise ValueError(f"{name} must be a non-empty subset of {[p.value for p in valid]}, got {[p.value for p in chosen]}")
    return options


def classic_scenarios(
    *,
    config: st.SearchStrategy[PreemptionConfig] | None = None,
    max_workloads: int = 8,
    max_cluster_queues: int = 5,
    reclaim_focus: bool = False,
    unique_uids: bool = False,
    invalid_boosts: bool = False,
    cohorts: bool = True,
    within_cluster_queue: Sequence[PreemptionPolicy] | None = None,
    reclaim_within_cohort: Sequence[PreemptionPolicy] | None = None,
    borrow_within_cohort: bool | None = None,
) -> st.SearchStrategy[ClassicScenario]:
    """Random classic-preemption scenarios in which the preemptor does not fit yet (CTX-1).

    Knobs (keyword-only; each narrows the space):

    * ``config``: strategy of :class:`~kueue_preempt.PreemptionConfig` (default
      :func:`configs`: the classic gates of EP-2/POL-5, ``fair_sharing`` always ``None``
      so ``get_targets`` runs the classic algorithm, GT-2);
    * ``max_workloads`` (≥ 1): admitted workloads drawn (fewer are admitted when they do
      not fit); ``max_cluster_queues`` (≥ 1): ClusterQueues in the tree;
    * ``reclaim_focus``: skew towards cross-queue reclamation (CL-GEN-3..5): one flavor, at
      least one cohort, every ClusterQueue in a cohort with ``reclaimWithinCohort != Never``,
      small nominals for the other queues, whose workloads are admitted first (so they
      borrow the preemptor queue's quota);
    * ``unique_uids``: distinct non-empty UIDs, so ORD is a strict total order (ORD-6) and
      the answer does not depend on how ties are traversed (CL-GEN-7a);
    * ``invalid_boosts``: also draw boost annotations that are not int32 values (EP-5; the
      library ignores each with a logged warning, so they are off by default);
    * ``cohorts=False``: no cohort at all, so only same-queue preemption (CL-GEN-2,
      CL-ATT-4); incompatible with ``reclaim_focus``;
    * ``within_cluster_queue`` / ``reclaim_within_cohort``: the policies each ClusterQueue
      draws from (POL-7's allowed values; default: every allowed value, ``Never`` rarely);
      ``borrow_within_cohort``: ``False`` never allows borrowing while reclaiming (absent or
      ``Never``), ``True`` always allows it (``LowerPriority``, where POL-7 permits it: not
      with ``reclaimWithinCohort = Never``), ``None`` draws both.

    Cost: a few dozen draws (small choices are packed with :class:`Choices`) and one or two
    greedy admission passes over a library snapshot: a few milliseconds per example. Few
    draws are discarded (about 5%: Hypothesis cutting long draws short early in a run).

    ``config`` may also draw fair-sharing configurations (the fair-sharing strategies reuse
    these scenarios); the classic checkers then do not apply.
    """
    if max_workloads < 1 or max_cluster_queues < 1:
        raise ValueError("max_workloads and max_cluster_queues must be at least 1")
    if reclaim_focus and not cohorts:
        raise ValueError("reclaim_focus needs cohorts")
    within = _policy_options("within_cluster_queue", within_cluster_queue, _WITHIN_VALUES, _DEFAULT_WITHIN)
    reclaim = _policy_options("reclaim_within_cohort", reclaim_within_cohort, _RECLAIM_VALUES, list(_RECLAIM))
    if reclaim_focus:
        reclaim = [p for p in reclaim if p is not PreemptionPolicy.NEVER]
        if not reclaim:
            raise ValueError("reclaim_focus needs a reclaimWithinCohort other than Never")
    bwc_kinds = _BWC_KINDS if borrow_within_cohort is None else (["LowerPriority"] if borrow_within_cohort else ["absent", "Never"])
    return _classic_scenarios(
        config=config,
        max_workloads=max_workloads,
        max_cluster_queues=max_cluster_queues,
        reclaim_focus=reclaim_focus,
        unique_uids=unique_uids,
        invalid_boosts=invalid_boosts,
        cohorts=cohorts,
        within=within,
        reclaim=reclaim,
        bwc_kinds=bwc_kinds,
    )


def scenarios(
    *,
    config: st.SearchStrategy[PreemptionConfig] | None = None,
    max_workloads: int = 8,
    reclaim_focus: bool = False,
    unique_uids: bool = False,
    invalid_boosts: bool = False,
) -> st.SearchStrategy[ClassicScenario]:
    """The historical entry point: :func:`classic_scenarios` with its original knobs."""
    return classic_scenarios(
        config=config,
        max_workloads=max_workloads,
        reclaim_focus=reclaim_focus,
        unique_uids=unique_uids,
        invalid_boosts=invalid_boosts,
    )


@st.composite
def _classic_scenarios(
    draw: st.DrawFn,
    *,
    config: st.SearchStrategy[PreemptionConfig] | None,
    max_workloads: int,
    max_cluster_queues: int,
    reclaim_focus: bool,
    unique_uids: bool,
    invalid_boosts: bool,
    cohorts: bool,
    within: list[PreemptionPolicy],
    reclaim: list[PreemptionPolicy],
    bwc_kinds: list[str],
) -> ClassicScenario:
    flavors = FLAVORS[:1] if reclaim_focus else FLAVORS[: draw(st.integers(1, len(FLAVORS)))]
    resources = RESOURCES[: draw(st.integers(1, len(RESOURCES)))]
    all_frs = [FlavorResource(f, r) for f in FLAVORS for r in RESOURCES]

    # ---- cohort tree: roots, each with 0-2 child cohorts (at most two levels)
    tree = Choices(draw, _ROOT_COUNTS, _CHILD_COUNTS, _CHILD_COUNTS)
    cohort_parents: dict[str, str | None] = {}
    n_roots = (tree.pick(_ROOT_COUNTS) or int(reclaim_focus)) * cohorts
    for i in range(2):
        n_children = tree.pick(_CHILD_COUNTS)
        if i < n_roots:
            cohort_parents[f"c{i}"] = None
            cohort_parents.update({f"c{i}{j}": f"c{i}" for j in range(n_children)})
    cohort_objects: list[Cohort] = []
    for name, parent in cohort_parents.items():
        c = Choices(draw, *_COHORT_QUOTA_OPTIONS)
        has_quota, explicit = c.pick(_BOOLS), c.pick(_BOOLS)
        quotas: dict[FlavorResource, ResourceQuota] = {}
        for fr in all_frs:
            declared = c.pick(_BOOLS)
            quota = _quota(c, _COHORT_NOMINALS, parent is not None, cq=False)
            if has_quota and declared and fr.flavor in flavors and fr.resource in resources:
                quotas[fr] = quota
        if parent is None and not quotas and not explicit:
            continue  # no Cohort object: the snapshot creates it implicitly
        cohort_objects.append(Cohort(name=name, parent=parent, quotas=quotas))

    # ---- ClusterQueues (mostly inside a cohort when there is one)
    cohort_names = list(cohort_parents)
    cluster_queues: list[ClusterQueue] = []
    cq_flavors: dict[str, list[str]] = {}
    n_queues = draw(st.integers(1, max_cluster_queues))
    preemptor_queue = draw(st.integers(0, n_queues - 1))
    for k in range(n_queues):
        name = f"q{k}"
        c = Choices(draw, within, reclaim, bwc_kinds, _THRESHOLDS, _BOOLS, _STANDALONE)
        preemption = _preemption(c.pick(within), c.pick(reclaim), c.pick(bwc_kinds), c.pick(_THRESHOLDS))
        usage_based = c.pick(_BOOLS)
        standalone = c.pick(_STANDALONE) and not reclaim_focus
        parent = None
        if cohort_names and not standalone:
            parent = cohort_names[draw(st.integers(0, len(cohort_names) - 1))]
        q = Choices(draw, *_CQ_QUOTA_OPTIONS)
        which = q.pick(_WHICH_FLAVORS)  # 0: both flavors, 1: only the first, 2: only the second
        own = list(flavors) if len(flavors) == 1 or which == 0 else [flavors[which - 1]]
        quotas = {}
        for fr in all_frs:
            # With reclaim_focus the other queues get small nominals, so they borrow.
            scale = 3 if reclaim_focus and k != preemptor_queue else 1
            quota = _quota(q, _NOMINALS, parent is not None, cq=True, scale=scale)
            if fr.flavor in own and fr.resource in resources:
                quotas[fr] = quota
        cq_flavors[name] = own
        cluster_queues.append(
            ClusterQueue(
                name=name, cohort=parent, quotas=quotas, preemption=preemption, admission_scope_usage_based=usage_based
            )
        )
    pcq = f"q{preemptor_queue}"
    empty = Snapshot(cluster_queues, cohort_objects, ())
    capacity = [
        (name, fr)
        for name in sorted(cq_flavors)
        for fr in (FlavorResource(f, r) for r in resources for f in cq_flavors[name])
        if empty.potential_available(empty.cluster_queue(name), fr) > 0
    ]
    if not capacity:
        # No quota anywhere (every nominal drawn zero): nothing could ever be preempted.
        # Give the preemptor's ClusterQueue some nominal instead of discarding the draw.
        fr = FlavorResource(cq_flavors[pcq][0], resources[0])
        old = cluster_queues[preemptor_queue]
        quota = old.quotas[fr]
        new_quota = ResourceQuota(
            nominal=draw(st.integers(1, 5)), borrowing_limit=quota.borrowing_limit, lending_limit=quota.lending_limit
        )
        cluster_queues[preemptor_queue] = attrs.evolve(old, quotas={**old.quotas, fr: new_quota})
        empty = Snapshot(cluster_queues, cohort_objects, ())
        capacity = [(pcq, fr)]
    by_name = {cq.name: cq for cq in cluster_queues}
    names = sorted(by_name)

    # ---- admitted workloads, admitted greedily; about a third belong to the preemptor's
    # ClusterQueue. Half the time the other queues' workloads are admitted first, so they
    # borrow the preemptor queue's unused quota (the reclamation story). "Overcommitted"
    # scenarios (quota lowered after admission) admit everything.
    overcommitted = draw(st.integers(0, 4)) == 0
    others_first = reclaim_focus or draw(st.booleans())
    uids = [f"uid-{n}" for n in draw(st.permutations(range(max_workloads)))] if unique_uids else None
    # Every workload slot is drawn, used or not: a draw whose length varies a lot with its
    # content is cut short by Hypothesis early on (an overrun, i.e. a discarded draw).
    n_workloads = draw(st.integers(1, max_workloads))
    slots = [(Choices(draw, range(3 * len(names))), _workload_choices(draw)) for _ in range(max_workloads)]
    generated = []
    for i, (where, choices) in enumerate(slots[:n_workloads]):
        choice = where.pick(range(3 * len(names)))
        cq_name = pcq if choice < len(names) else names[choice % len(names)]
        generated.append(
            _make_workload(
                choices,
                i,
                cq_name,
                cq_flavors[cq_name],
                resources,
                by_name[cq_name].admission_scope_usage_based,
                None if uids is None else uids[i],
                invalid_boosts,
            )
        )
    if others_first:
        generated.sort(key=lambda w: w.cluster_queue == pcq)

    def admit(everything: bool) -> tuple[Snapshot, list[Workload]]:
        return _admit_in_order(cluster_queues, cohort_objects, generated, everything=everything)

    # ---- the preemptor's assignment (FA-1..FA-3). A Preempt mode needs an FR on which
    # usage could be freed (potential > available); if the drawn queue has none, the next
    # queue (by name) that has one takes the preemptor.
    def bounds_of(snapshot: Snapshot, name: str) -> dict[tuple[str, str], tuple[int, int]]:
        node = snapshot.cluster_queue(name)
        return {
            (fr.resource, fr.flavor): (snapshot.available(node, fr), snapshot.potential_available(node, fr))
            for fr in (FlavorResource(f, r) for r in resources for f in cq_flavors[name])
        }

    def preemptor_queue_of(snapshot: Snapshot) -> tuple[str, dict[tuple[str, str], tuple[int, int]], list[tuple[str, str]]]:
        start = names.index(pcq)
        for name in names[start:] + names[:start]:
            bounds = bounds_of(snapshot, name)
            preemptable = sorted(rf for rf, (avail, pot) in bounds.items() if pot > avail)
            if preemptable:
                break
        return name, bounds, preemptable

    snapshot, admitted = admit(overcommitted)
    pcq, bounds, preemptable = preemptor_queue_of(snapshot)
    if not preemptable and not overcommitted:
        # Nothing admitted could ever be freed (too little quota for the drawn workloads):
        # admit everything instead of discarding the draw.
        snapshot, admitted = admit(True)
        pcq, bounds, preemptable = preemptor_queue_of(snapshot)
    if not preemptable:
        # Still nothing: no drawn workload uses quota. One more workload, in a ClusterQueue
        # with capacity, uses some of it.
        name, fr = capacity[draw(st.integers(0, len(capacity) - 1))]
        cap = empty.potential_available(empty.cluster_queue(name), fr)
        if len(generated) == max_workloads:
            # Its slot (name and UID) is reused: it uses no quota anyway. ``generated`` may be
            # sorted by queue, so the last slot is found by name, not position.
            last = f"w{max_workloads - 1}"
            generated.remove(next(w for w in generated if w.name == last))
        index = len(generated)
        w = _make_workload(
            _workload_choices(draw),
            index,
            name,
            cq_flavors[name],
            resources,
            by_name[name].admission_scope_usage_based,
            None if uids is None else uids[index],
            invalid_boosts,
        )
        amount = draw(st.integers(1, min(cap, 3)))
        usage = PodSetUsage(name="ps0", count=1, flavors={fr.resource: fr.flavor}, usage={fr.resource: amount})
        generated.append(attrs.evolve(w, pod_sets=[usage]))
        snapshot, admitted = admit(True)
        pcq, bounds, preemptable = preemptor_queue_of(snapshot)
    assert preemptable
    node = snapshot.cluster_queue(pcq)
    r0, f0 = preemptable[draw(st.integers(0, len(preemptable) - 1))]
    requests: dict[FlavorResource, int] = {FlavorResource(f0, r0): _preempt_amount(draw, snapshot, node, f0, r0)}
    flavor_of = {r0: f0}
    for r in resources:
        if r == r0 or not draw(st.booleans()):
            continue
        f = cq_flavors[pcq][draw(st.integers(0, len(cq_flavors[pcq]) - 1))]
        avail, pot = bounds[(r, f)]
        if pot > avail and (avail < 1 or draw(st.booleans())):
            requests[FlavorResource(f, r)] = _preempt_amount(draw, snapshot, node, f, r)
        elif avail >= 1:
            requests[FlavorResource(f, r)] = draw(st.integers(1, avail))  # Fit
        else:
            continue  # NoFit: the flavor assigner would not pick this flavor
        flavor_of[r] = f
    preempt = {fr for fr, v in requests.items() if v > snapshot.available(node, fr)}
    assert preempt and not snapshot.fits(node, requests, allow_borrowing=True)

    # ---- the preemptor (pending: no admission; possibly evicted before, POL-5(a)/(b))
    p = Choices(draw, *_PREEMPTOR_OPTIONS, _PREEMPTOR_ABOVE)
    uid, local_queue = p.pick(_UIDS), p.pick(_LOCAL_QUEUES)
    priority, boost = p.pick(_PREEMPTOR_PRIORITIES), _boost(p.pick(_BOOSTS), invalid_boosts)
    created, eviction = p.pick(_OPT_TIMES), p.pick(_EVICTIONS)
    if p.pick(_PREEMPTOR_ABOVE):
        priority = 1 + max((w.priority or 0 for w in admitted), default=0)
    preemptor = Workload(
        name="preemptor",
        namespace="pending",
        uid=uid,
        local_queue=local_queue,
        priority=priority,
        annotations={} if boost is None else {BOOST_ANNOTATION: boost},
        creation_time=created,
        conditions=_conditions(eviction, None),
        pod_sets=[
            PodSetUsage(name="main", count=1, flavors=flavor_of, usage={fr.resource: v for fr, v in requests.items()})
        ],
    )
    return ClassicScenario(
        cluster_queues=cluster_queues,
        cohorts=cohort_objects,
        workloads=admitted,
        preemptor=preemptor,
        cluster_queue=pcq,
        assignment=Assignment(requests=requests, preempt=preempt),
        now=NOW,
        config=draw(config if config is not None else _DEFAULT_CONFIGS),
    )

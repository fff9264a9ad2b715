"""A Hypothesis state machine that drives a :class:`~kueue_preempt.Snapshot` the way a scheduler does.

A scheduler that embeds the library keeps one :class:`~kueue_preempt.Snapshot` alive across
many decisions: it admits workloads (``add_workload``), releases the ones that finish or are
preempted (``remove_workload``), maybe keeps the candidate index on (``enable_index``), and
asks ``get_targets`` for every preemptor. :class:`SnapshotMachine` runs random sequences of
exactly those operations on a cluster drawn by the classic strategy
(:func:`~kueue_preempt.testing.strategies.scenarios`) and, after every step, checks that the
live snapshot equals one **rebuilt from scratch** from the same admitted set (Q-6 recomputed
versus Q-7's incremental updates) and that every decision agrees with and without the index and
with the rebuilt snapshot (GT-3, GT-5).

Run it as it is (``TestSnapshotMachine = SnapshotMachine.TestCase``), or subclass it to test
your own scheduler's bookkeeping: override the hooks so that the operations go through your
scheduler, and :meth:`~SnapshotMachine.observed_snapshot` to return the snapshot your
scheduler keeps. The machine's own model (which workloads are admitted) is never taken from
your code, so a scheduler that forgets to release usage, releases the wrong amount, loses a
workload or lets the index go stale is caught at the first step where it shows.

================================  ==================================================================
hook                              default (the library alone)
================================  ==================================================================
``start(scenario)``               ``self.snapshot = Snapshot(cluster_queues, cohorts, workloads)``
``observed_snapshot()``           ``self.snapshot``: the snapshot compared after every step
``admit(workload)``               ``observed_snapshot().add_workload(workload)``
``remove(workload)``              ``observed_snapshot().remove_workload(workload)``; ``workload``
                                  may be an updated copy of the admitted one (same key, other usage)
``set_index(config)``             ``enable_index(config)``, or ``disable_index()`` for ``None``
``decide(...)``                   ``get_targets(...)`` on ``observed_snapshot()``
``check_decision(d, got, want)``  the targets' (key, reason, ClusterQueue) lists are equal
================================  ==================================================================

What every step checks (:func:`check_same_snapshot`, :func:`check_same_index`), each failure
naming its rule:

* DM-7 / DM-11: the workloads listed, per ClusterQueue and in ``workloads()``, and
  ``admitted_in``, are the admitted set;
* Q-6 / Q-7: the usage of every ClusterQueue and cohort on every FlavorResource equals the
  rebuilt snapshot's and an independent recomputation
  (:class:`~kueue_preempt.testing.invariants.quota.SpecTree`); NP-5: the non-preemptible usage;
* Q-9, Q-10: ``available`` and ``potential_available`` of every node; Q-11: the over-quota
  children of every cohort and the borrowing queues of every tree;
* POL-9: the candidate entries of every queue per FlavorResource;
* ORD-1..ORD-6 (the candidate index is a cache of that order): with the index on, it is current
  and streams exactly what a freshly built index streams.

Rules: admit a new workload (usually only if it fits, GT-5 with borrowing; sometimes anyway, as
an overcommitted cluster), admit a removed one again, remove one (sometimes passing an updated
copy), switch the index on (for some ordering switches) or off, decide for a drawn ``Preempt``
preemptor (classic or fair sharing; GT-3: the snapshot is unchanged afterwards), probe the fit
predicates (GT-5, Q-13, Q-16) against the rebuilt snapshot and the recomputing model, and run a
what-if block (``Snapshot.preserved``: inside it the snapshot equals the rebuilt changed set,
after it the state before, DM-11).

Cost: each step rebuilds one small snapshot (at most a few dozen workloads, a handful of
queues); 10 examples of 10 steps take about a second.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import ClassVar, Iterable, Sequence

import attrs
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from kueue_preempt import (
    Assignment,
    ClusterQueue,
    FairSharingConfig,
    FlavorResource,
    PodSetUsage,
    PreemptionConfig,
    Snapshot,
    Target,
    Workload,
    get_targets,
)
from kueue_preempt.model import Condition
from kueue_preempt.snapshot.index import CandidateIndex
from kueue_preempt.snapshot.quota import QuotaNode
from kueue_preempt.testing.invariants.quota import SpecTree
from kueue_preempt.testing.strategies.choices import Choices
from kueue_preempt.testing.strategies.classic import FLAVORS, RESOURCES, T0, Scenario, scenarios

__all__ = [
    "ALL_FRS",
    "NOW",
    "SnapshotMachine",
    "check_same_index",
    "check_same_snapshot",
    "decision_configs",
    "index_configs",
    "new_workloads",
    "rebuild",
]

ALL_FRS: tuple[FlavorResource, ...] = tuple(FlavorResource(f, r) for f in FLAVORS for r in RESOURCES)
"""Every FlavorResource the classic strategy can declare: the ones compared at every step."""
NOW = T0 + timedelta(hours=1)
"""The decisions' ``now`` (the classic strategy's)."""


def rebuild(scenario: Scenario, workloads: Iterable[Workload]) -> Snapshot:
    """A snapshot built from scratch: ``scenario``'s quota tree holding ``workloads`` (Q-6)."""
    return Snapshot(scenario.cluster_queues, scenario.cohorts, list(workloads))


# --------------------------------------------------------------------------- the comparisons


def _nodes(snapshot: Snapshot) -> list[QuotaNode]:
    return [snapshot.cluster_queues[n] for n in sorted(snapshot.cluster_queues)] + [
        snapshot.cohorts[n] for n in sorted(snapshot.cohorts)
    ]


def _names(nodes: Iterable[QuotaNode]) -> list[str]:
    return sorted(n.name for n in nodes)


def check_same_snapshot(
    observed: Snapshot,
    expected: Snapshot,
    *,
    spec: SpecTree | None = None,
    frs: Sequence[FlavorResource] = ALL_FRS,
    now: datetime = NOW,
) -> None:
    """``observed`` shows exactly what ``expected`` (normally rebuilt from scratch) shows.

    Compares public observables only, a missing usage key reading as 0 (Q-3): the workloads
    listed (DM-7), every node's usage (Q-6, Q-7) and non-preemptible usage (NP-5),
    ``available`` (Q-9), ``potential_available`` (Q-10), the over-quota sets (Q-11) and the
    candidate entries per queue and FlavorResource (POL-9). With ``spec``, the usages are also
    compared with that independent recomputation. Raises ``AssertionError`` naming the rule.
    Cost: O(nodes · |frs| · depth).
    """
    assert sorted(observed.cluster_queues) == sorted(expected.cluster_queues), "DM-4: ClusterQueues differ"
    assert sorted(observed.cohorts) == sorted(expected.cohorts), "DM-5: cohorts differ"
    got = [w.key for w in observed.workloads()]
    want = [w.key for w in expected.workloads()]
    assert got == want, f"DM-11: workloads() lists {got}, the admitted set is {want}"
    for w in expected.workloads():
        where = observed.admitted_in(w.key)
        assert where is not None and where.name == w.cluster_queue, (
            f"DM-7: admitted_in({w.key!r}) is {where!r}, expected ClusterQueue {w.cluster_queue!r}"
        )
        held = observed.cluster_queues[w.cluster_queue].workloads.get(w.key)
        assert held is not None and held.usage == w.usage, (
            f"DM-11: ClusterQueue {w.cluster_queue!r} holds {held!r} under {w.key!r}, expected usage {dict(w.usage)}"
        )
    pairs = [
        (observed.cluster_queues[n.name] if n.is_cluster_queue else observed.cohorts[n.name], n, f"{n.kind} {n.name!r}")
        for n in _nodes(expected)
    ]
    # Usages first: every other observable derives from them, so the first message names the
    # node whose usage went wrong rather than a neighbour whose headroom it changed.
    for mine, node, label in pairs:
        for fr in frs:
            u_got, u_want = mine.usage.get(fr, 0), node.usage.get(fr, 0)
            assert u_got == u_want, f"Q-7: usage of {label} on {fr} is {u_got}, rebuilt from scratch it is {u_want} (Q-6)"
            if spec is not None:
                u_spec = spec.u(("cq" if node.is_cluster_queue else "cohort", node.name), fr)
                assert u_got == u_spec, f"Q-6: usage of {label} on {fr} is {u_got}, the recomputing model says {u_spec}"
            if node.is_cluster_queue:
                np_got, np_want = mine.np_usage.get(fr, 0), node.np_usage.get(fr, 0)
                assert np_got == np_want, f"NP-5: non-preemptible usage of {label} on {fr} is {np_got}, expected {np_want}"
    for mine, node, label in pairs:
        for fr in frs:
            a_got, a_want = observed.available(mine, fr), expected.available(node, fr)
            assert a_got == a_want, f"Q-9: available({label}, {fr}) is {a_got}, rebuilt from scratch it is {a_want}"
            p_got, p_want = observed.potential_available(mine, fr), expected.potential_available(node, fr)
            assert p_got == p_want, f"Q-10: potential_available({label}, {fr}) is {p_got}, expected {p_want}"
            if not node.is_cluster_queue:
                o_got = _names(observed.over_children(mine, [fr]))
                o_want = _names(expected.over_children(node, [fr]))
                assert o_got == o_want, f"Q-11: children of {label} over quota on {fr}: {o_got}, expected {o_want}"
            if node.parent is None:
                b_got = _names(observed.borrowing_queues(mine, [fr]))
                b_want = _names(expected.borrowing_queues(node, [fr]))
                assert b_got == b_want, f"Q-11: borrowing ClusterQueues under {label} on {fr}: {b_got}, expected {b_want}"
            if node.is_cluster_queue:
                e_got = sorted(e[6] for e in observed.candidate_entries(mine, {fr}, now))
                e_want = sorted(e[6] for e in expected.candidate_entries(node, {fr}, now))
                assert e_got == e_want, f"POL-9: candidates of {label} using {fr}: {e_got}, expected {e_want}"


def check_same_index(
    observed: CandidateIndex | None,
    fresh: CandidateIndex,
    cluster_queues: Iterable[str],
    frs: Sequence[FlavorResource] = ALL_FRS,
) -> None:
    """The maintained index ``observed`` is current and streams what ``fresh`` (built now from the
    same admitted set) streams: every queue's entries per FlavorResource, evicted first
    (ORD-1), in candidate order (ORD-4..ORD-6). Cost: O(n log n)."""
    assert observed is not None, "ORD-1: the candidate index is enabled but not current (index_for returned None)"
    assert len(observed) == len(fresh), f"ORD-1: the index holds {len(observed)} entries, a fresh one {len(fresh)}"
    assert observed.any_evicted() == fresh.any_evicted(), "ORD-1: the index's count of evicted entries is stale"
    for name in cluster_queues:
        assert observed.has_evicted(name) == fresh.has_evicted(name), f"ORD-1: evicted count of {name!r} is stale"
        for fr in frs:
            for evicted in (True, False):
                got = [e[6] for e in observed.stream(name, [fr], evicted, None)]
                want = [e[6] for e in fresh.stream(name, [fr], evicted, None)]
                assert got == want, (
                    f"ORD-4: the index streams {got} for {name!r} on {fr} (evicted={evicted}), a fresh index {want}"
                )
        got = [e[6] for e in observed.stream(name, frs, None, None)]
        want = [e[6] for e in fresh.stream(name, frs, None, None)]
        assert got == want, f"ORD-4: the index streams {got} for {name!r}, a fresh index {want}"


def _key(snapshot: Snapshot) -> object:
    """Every observable of ``snapshot`` as one comparable value (missing usage keys read as 0)."""
    return tuple(
        (n.kind, n.name, tuple(n.usage.get(fr, 0) for fr in ALL_FRS), tuple(n.np_usage.get(fr, 0) for fr in ALL_FRS),
         tuple(sorted(n.workloads)))
        for n in _nodes(snapshot)
    )


# --------------------------------------------------------------------------- what the rules draw

_NAMESPACES = ["", "ns1"]
_PRIORITIES: list[int | None] = [None, -1, 0, 1, 2, 3]
_TIMES: list[datetime | None] = [T0 + timedelta(minutes=m) for m in range(6)] * 2 + [None]
"""QuotaReserved times; ``None`` (rare) exercises ORD-5's ``now`` fallback."""
_EVICTED = [False, False, False, True]
_NON_PREEMPTIBLE: list[bool | None] = [None, None, None, True, False]
_COSTS: list[str | None] = [None, None, "0", "1", "2.5"]
_N_POD_SETS = [1, 1, 2]
_BOOLS = [False, True]
_AMOUNTS = [0, 1, 2, 3]
_INDEXES = [0, 1]
_POD_SET_OPTIONS: list[Sequence[object]] = [_BOOLS, _INDEXES, _AMOUNTS]
_HEAD_OPTIONS: list[Sequence[object]] = [_NAMESPACES, _PRIORITIES, _TIMES, _EVICTED, _NON_PREEMPTIBLE, _COSTS, _N_POD_SETS]
_WORKLOAD_OPTIONS: list[Sequence[object]] = _HEAD_OPTIONS + _POD_SET_OPTIONS * (2 * len(RESOURCES))


def _pod_sets(cq: ClusterQueue, c: Choices) -> list[PodSetUsage]:
    """1-2 pod sets using only FlavorResources ``cq`` declares (each resource under one of its
    flavors), at least one resource each; the choices are picked whether used or not."""
    by_resource: dict[str, list[str]] = {}
    for fr in sorted(cq.quotas, key=lambda fr: (fr.resource, fr.flavor)):
        by_resource.setdefault(fr.resource, []).append(fr.flavor)
    n = c.pick(_N_POD_SETS)
    out = []
    for p in range(2):
        picks = [(c.pick(_BOOLS), c.pick(_INDEXES), c.pick(_AMOUNTS)) for _ in RESOURCES]
        if p >= n:
            continue
        flavors: dict[str, str] = {}
        usage: dict[str, int] = {}
        for r, (used, fi, v) in zip(RESOURCES, picks):
            options = by_resource.get(r)
            if options and used:
                flavors[r] = options[fi % len(options)]
                usage[r] = v
        if not flavors and by_resource:  # every pod set uses something
            r = min(by_resource)
            flavors[r] = by_resource[r][picks[0][1] % len(by_resource[r])]
            usage[r] = picks[0][2]
        if flavors:
            out.append(PodSetUsage(name=f"ps{p}", count=1, flavors=flavors, usage=usage))
    return out


@st.composite
def new_workloads(draw: st.DrawFn, cluster_queue: ClusterQueue, name: str) -> Workload:
    """A workload admitted in ``cluster_queue`` (its flavors only), named ``name``: small usage,
    any priority, optional reservation time (ORD-5), evicted or not (ORD-1), an explicit
    non-preemptible flag (NP-2), a preemption cost (COST-2). One draw (:class:`Choices`)."""
    c = Choices(draw, *_WORKLOAD_OPTIONS)
    namespace, priority, reserved = c.pick(_NAMESPACES), c.pick(_PRIORITIES), c.pick(_TIMES)
    evicted, non_preemptible, cost = c.pick(_EVICTED), c.pick(_NON_PREEMPTIBLE), c.pick(_COSTS)
    return Workload(
        name=name,
        namespace=namespace,
        uid=f"uid-{name}",
        cluster_queue=cluster_queue.name,
        local_queue="lq0",
        priority=priority,
        creation_time=T0,
        quota_reserved_at=reserved,
        evicted=evicted,
        conditions=[Condition(type="Evicted", status="True", reason="Preempted", last_transition_time=T0)] if evicted else [],
        pod_sets=_pod_sets(cluster_queue, c),
        preemption_cost=cost,
        non_preemptible=non_preemptible,
        local_queue_fs_usage=1.0 if cluster_queue.admission_scope_usage_based else None,
    )


def index_configs() -> st.SearchStrategy[PreemptionConfig]:
    """Configurations an index is built for: the ordering switches it keys on (EP-2, COST-2)."""
    return st.builds(PreemptionConfig, priority_boost=st.booleans(), preemption_cost_enabled=st.booleans())


_INDEX_SWITCHES: st.SearchStrategy[PreemptionConfig | None] = st.sampled_from([True, True, False]).flatmap(
    lambda on: index_configs() if on else st.none()
)
"""The index on (two times in three) for drawn switches, or off."""


def decision_configs() -> st.SearchStrategy[PreemptionConfig]:
    """Decision configurations: classic or fair sharing (GT-2), the ordering switches (EP-2,
    COST-2, ORD-3), the queue-order gate (POL-5) and non-preemptible workloads (NP-14)."""
    return st.builds(
        PreemptionConfig,
        fair_sharing=st.sampled_from([None, None, FairSharingConfig()]),
        admission_fair_sharing=st.sampled_from([False, False, False, True]),
        priority_boost=st.booleans(),
        priority_sorting_within_cohort=st.booleans(),
        preemption_cost_enabled=st.booleans(),
        non_preemptible_enabled=st.booleans(),
    )


def _targets(targets: Sequence[Target]) -> list[tuple[str, str, str]]:
    return [(t.workload.key, t.reason.value, t.cluster_queue) for t in targets]


# --------------------------------------------------------------------------- the machine


class SnapshotMachine(RuleBasedStateMachine):
    """Admissions, removals, index switches and decisions on a live snapshot, checked after every
    step against a snapshot rebuilt from scratch (see the module docstring).

    Subclass it and override the hooks (:meth:`start`, :meth:`admit`, :meth:`remove`,
    :meth:`set_index`, :meth:`decide`, :meth:`observed_snapshot`, :meth:`check_decision`) to
    route the operations through your own scheduler. Class attributes narrow the run:
    ``max_initial_workloads`` (the classic scenario's), ``overcommit_share`` (how often a
    workload is admitted although it does not fit), ``updated_copies`` (whether ``remove`` may
    be passed an updated copy), ``what_if`` (whether to run ``Snapshot.preserved`` blocks on
    the observed snapshot: switch it off when your snapshot is a throw-away copy).

    The machine's own state, readable by hooks: ``scenario`` (the cluster), ``admitted``
    (key -> workload, what the scheduler should hold), ``removed`` (workloads that left and
    may come back) and ``index_config`` (the index's configuration, None when off).
    """

    max_initial_workloads: ClassVar[int] = 6
    overcommit_share: ClassVar[float] = 0.1
    updated_copies: ClassVar[bool] = True
    what_if: ClassVar[bool] = True

    def __init__(self) -> None:
        super().__init__()
        self.scenario: Scenario | None = None
        self.admitted: dict[str, Workload] = {}
        self.removed: dict[str, Workload] = {}
        self.index_config: PreemptionConfig | None = None
        self.snapshot: Snapshot | None = None
        self._serial = 0

    # ------------------------------------------------------------------ hooks

    def start(self, scenario: Scenario) -> None:
        """Set up the scheduler on ``scenario``'s cluster with ``scenario.workloads`` admitted.
        Default: ``self.snapshot = Snapshot(...)``."""
        self.snapshot = rebuild(scenario, scenario.workloads)

    def admit(self, workload: Workload) -> None:
        """Admit ``workload`` (its ``cluster_queue`` is set; its key is not admitted)."""
        self.observed_snapshot().add_workload(workload)

    def remove(self, workload: Workload) -> None:
        """Release the admitted workload with ``workload``'s key. ``workload`` may be an updated
        copy whose usage differs: what was charged at admission must be released (DM-11)."""
        self.observed_snapshot().remove_workload(workload)

    def set_index(self, config: PreemptionConfig | None) -> None:
        """Keep the candidate index on for ``config``'s ordering switches, or off for ``None``."""
        if config is None:
            self.observed_snapshot().disable_index()
        else:
            self.observed_snapshot().enable_index(config)

    def decide(
        self, preemptor: Workload, cluster_queue: str, assignment: Assignment, config: PreemptionConfig, now: datetime
    ) -> list[Target]:
        """The scheduler's targets for ``preemptor`` (a ``Preempt`` assignment in ``cluster_queue``)."""
        return get_targets(preemptor, cluster_queue, assignment, self.observed_snapshot(), config=config, now=now)

    def observed_snapshot(self) -> Snapshot:
        """The snapshot the scheduler keeps, compared after every step with a rebuilt one (the
        other hooks' defaults act on it too). Default: ``self.snapshot``."""
        return self._own()

    def check_decision(self, decision: Scenario, got: list[Target], want: list[Target]) -> None:
        """Compare the scheduler's targets ``got`` with the library's ``want`` on a rebuilt
        snapshot. ``decision`` holds every input (the admitted workloads, the preemptor, its
        queue and assignment, ``now``, the configuration; fair sharing when
        ``decision.config.fair_sharing`` is set). Default: the same workloads, reasons and
        ClusterQueues in the same order (GT-7). Relax it when your scheduler only promises a
        valid answer, e.g. check a classic one with
        :func:`~kueue_preempt.testing.invariants.check_fits_after_removal`."""
        assert _targets(got) == _targets(want), f"GT-7: the scheduler chose {_targets(got)}, the library {_targets(want)}"

    def _own(self) -> Snapshot:
        assert self.snapshot is not None, "start() did not set self.snapshot"
        return self.snapshot

    # ------------------------------------------------------------------ model helpers

    def _scenario(self) -> Scenario:
        assert self.scenario is not None
        return self.scenario

    def rebuilt(self, workloads: Iterable[Workload] | None = None) -> Snapshot:
        """A snapshot rebuilt from scratch holding the admitted set (or ``workloads``)."""
        return rebuild(self._scenario(), self.admitted.values() if workloads is None else workloads)

    def _check_now(self, observed: Snapshot, workloads: Iterable[Workload] | None = None) -> None:
        listed = list(self.admitted.values() if workloads is None else workloads)
        check_same_snapshot(observed, self.rebuilt(listed), spec=SpecTree(self._scenario(), listed))

    # ------------------------------------------------------------------ rules

    @initialize(data=st.data())
    def setup(self, data: st.DataObject) -> None:
        scenario = data.draw(scenarios(max_workloads=self.max_initial_workloads), label="scenario")
        self.scenario = scenario
        self.admitted = {w.key: w for w in scenario.workloads}
        self._serial = len(scenario.workloads)
        self.start(scenario)
        config = data.draw(_INDEX_SWITCHES, label="index")
        if config is not None:  # most runs start with the index on
            self.set_index(config)
            self.index_config = config

    @rule(data=st.data())
    def admit_new(self, data: st.DataObject) -> None:
        """A new workload in a drawn ClusterQueue, admitted if it fits (GT-5 with borrowing)
        or, now and then, anyway (an overcommitted cluster)."""
        scenario = self._scenario()
        cq = data.draw(st.sampled_from(scenario.cluster_queues), label="cluster_queue")
        workload = data.draw(new_workloads(cq, f"n{self._serial}"), label="workload")
        self._serial += 1
        if workload.key in self.admitted:
            return
        spec = SpecTree(scenario, list(self.admitted.values()))
        force = data.draw(st.floats(0, 1), label="overcommit") < self.overcommit_share
        if not force and not spec.fits(cq.name, workload.usage, allow_borrowing=True):
            return
        self.admit(workload)
        self.admitted[workload.key] = workload

    @precondition(lambda self: bool(self.removed))
    @rule(data=st.data())
    def admit_again(self, data: st.DataObject) -> None:
        """A workload that left comes back (the same object): its stored entry returns."""
        key = data.draw(st.sampled_from(sorted(self.removed)), label="readmitted")
        workload = self.removed.pop(key)
        self.admit(workload)
        self.admitted[key] = workload

    @precondition(lambda self: bool(self.admitted))
    @rule(data=st.data())
    def release(self, data: st.DataObject) -> None:
        """An admitted workload finishes or is evicted; sometimes the scheduler is handed an
        updated copy of it (more usage recorded since), which must not change what is released."""
        key = data.draw(st.sampled_from(sorted(self.admitted)), label="released")
        workload = self.admitted.pop(key)
        passed = workload
        if self.updated_copies and data.draw(st.booleans(), label="updated copy"):
            passed = attrs.evolve(
                workload,
                pod_sets=[attrs.evolve(ps, usage={r: v + 1 for r, v in ps.usage.items()}) for ps in workload.pod_sets],
            )
        self.remove(passed)
        self.removed[key] = workload

    @rule(config=_INDEX_SWITCHES)
    def switch_index(self, config: PreemptionConfig | None) -> None:
        """The candidate index on (for these ordering switches) or off."""
        self.set_index(config)
        self.index_config = config

    @rule(data=st.data())
    def preempt(self, data: st.DataObject) -> None:
        """A decision for a drawn ``Preempt`` preemptor: the scheduler's answer, the library's on
        the observed snapshot (its index, if on), on a rebuilt snapshot without and with an index
        must agree; none may change its snapshot (GT-3)."""
        scenario = self._scenario()
        fresh = self.rebuilt()
        drawn = self._draw_preemptor(data, fresh)
        if drawn is None:
            return
        preemptor, cq, assignment = drawn
        config = data.draw(decision_configs(), label="config")
        if self.index_config is not None and data.draw(st.booleans(), label="index's switches"):
            config = PreemptionConfig(
                fair_sharing=config.fair_sharing,
                priority_boost=self.index_config.priority_boost,
                preemption_cost_enabled=self.index_config.preemption_cost_enabled,
                non_preemptible_enabled=config.non_preemptible_enabled,
            )
        observed = self.observed_snapshot()
        before = _key(observed)
        got = self.decide(preemptor, cq, assignment, config, NOW)
        assert _key(self.observed_snapshot()) == before, "GT-3: the decision changed the scheduler's snapshot"
        want = get_targets(preemptor, cq, assignment, fresh, config=config, now=NOW)
        indexed = rebuild(scenario, self.admitted.values())
        indexed.enable_index(config)
        with_index = get_targets(preemptor, cq, assignment, indexed, config=config, now=NOW)
        assert _targets(with_index) == _targets(want), (
            f"GT-7: with a fresh index the library chose {_targets(with_index)}, without {_targets(want)}"
        )
        live = get_targets(preemptor, cq, assignment, observed, config=config, now=NOW)
        assert _key(observed) == before, "GT-3: get_targets changed the observed snapshot"
        assert _targets(live) == _targets(want), (
            f"GT-7: on the observed snapshot the library chose {_targets(live)}, on a rebuilt one {_targets(want)}"
        )
        decision = Scenario(
            cluster_queues=scenario.cluster_queues,
            cohorts=scenario.cohorts,
            workloads=list(self.admitted.values()),
            preemptor=preemptor,
            cluster_queue=cq,
            assignment=assignment,
            now=NOW,
            config=config,
        )
        self.check_decision(decision, got, want)

    def _draw_preemptor(self, data: st.DataObject, fresh: Snapshot) -> tuple[Workload, str, Assignment] | None:
        """A pending workload with a ``Preempt`` assignment (FA-1..FA-3) in a drawn queue: one
        FlavorResource above ``available`` but within ``potential_available`` (Q-9, Q-10),
        maybe a second resource that fits. None when the queue can free nothing."""
        scenario = self._scenario()
        cq = data.draw(st.sampled_from(scenario.cluster_queues), label="preemptor's queue")
        node = fresh.cluster_queue(cq.name)
        declared = sorted(cq.quotas, key=lambda fr: (fr.resource, fr.flavor))
        preemptable = [fr for fr in declared if fresh.potential_available(node, fr) > fresh.available(node, fr)]
        if not preemptable:
            return None
        fr0 = data.draw(st.sampled_from(preemptable), label="contested")
        lo, hi = fresh.available(node, fr0) + 1, fresh.potential_available(node, fr0)
        requests = {fr0: data.draw(st.integers(lo, min(hi, lo + 4)), label="request")}
        other = [fr for fr in declared if fr.resource != fr0.resource and fresh.available(node, fr) > 0]
        second: bool = bool(other) and data.draw(st.booleans(), label="second resource")
        if second:
            fr1 = data.draw(st.sampled_from(other), label="fitting")
            requests[fr1] = data.draw(st.integers(1, min(fresh.available(node, fr1), 3)), label="fitting request")
        preempt = {fr for fr, v in requests.items() if v > fresh.available(node, fr)}
        preemptor = Workload(
            name="preemptor",
            namespace="pending",
            uid="preemptor",
            local_queue="lq0",
            priority=data.draw(st.sampled_from([None, 0, 1, 2, 3, 4]), label="priority"),
            creation_time=T0 + timedelta(minutes=30),
            pod_sets=[
                PodSetUsage(
                    name="main",
                    count=1,
                    flavors={fr.resource: fr.flavor for fr in requests},
                    usage={fr.resource: v for fr, v in requests.items()},
                )
            ],
        )
        return preemptor, cq.name, Assignment(requests=requests, preempt=preempt)

    @rule(data=st.data())
    def probe(self, data: st.DataObject) -> None:
        """The fit predicates on a drawn request: GT-5 (with and without borrowing), Q-13's probe
        and Q-16's borrowing level agree with the rebuilt snapshot and the recomputing model."""
        scenario = self._scenario()
        cq = data.draw(st.sampled_from(scenario.cluster_queues), label="queue")
        request = {fr: data.draw(st.integers(0, 6), label=str(fr)) for fr in ALL_FRS if data.draw(st.booleans())}
        observed, fresh = self.observed_snapshot(), self.rebuilt()
        spec = SpecTree(scenario, list(self.admitted.values()))
        mine, node = observed.cluster_queue(cq.name), fresh.cluster_queue(cq.name)
        for borrow in (False, True):
            got = observed.fits(mine, request, allow_borrowing=borrow)
            assert got == spec.fits(cq.name, request, allow_borrowing=borrow), (
                f"GT-5: fits({cq.name!r}, {request}, allow_borrowing={borrow}) is {got}, the recomputing model says otherwise"
            )
            assert got == fresh.fits(node, request, allow_borrowing=borrow), "GT-5: differs from the rebuilt snapshot"
        assert observed.fit_probe(mine, request) == spec.fit_probe(("cq", cq.name), request), (
            f"Q-13: fit_probe({cq.name!r}, {request}) differs from the recomputing model"
        )
        for fr, v in request.items():
            got_h = observed.lowest_fitting_height(mine, fr, v)
            want_h = fresh.lowest_fitting_height(node, fr, v)
            assert got_h == want_h, f"Q-16: lowest_fitting_height({cq.name!r}, {fr}, {v}) is {got_h}, rebuilt {want_h}"

    @precondition(lambda self: self.what_if)
    @rule(data=st.data())
    def what_if_block(self, data: st.DataObject) -> None:
        """Removals and an admission inside ``Snapshot.preserved()`` on the observed snapshot:
        inside, it equals the rebuilt changed set (Q-7); after, the state before (DM-11, GT-3)."""
        observed = self.observed_snapshot()
        before = _key(observed)
        keys = sorted(self.admitted)
        gone = set(data.draw(st.lists(st.sampled_from(keys), unique=True, max_size=3), label="removed")) if keys else set()
        scenario = self._scenario()
        cq = data.draw(st.sampled_from(scenario.cluster_queues), label="cluster_queue")
        extra = None
        if data.draw(st.booleans(), label="admit inside"):
            extra = data.draw(new_workloads(cq, f"what-if{self._serial}"), label="added")
            self._serial += 1
        inside = [w for k, w in self.admitted.items() if k not in gone] + ([] if extra is None else [extra])
        with observed.preserved():
            for key in sorted(gone):
                observed.remove_workload(self.admitted[key])
            if extra is not None:
                observed.add_workload(extra)
            self._check_now(observed, inside)
            # A decision inside the block (the cycle decides with this cycle's victims removed,
            # SC-PE-3): the index hides the removed entries, or is stale after an admission.
            fresh = self.rebuilt(inside)
            drawn = self._draw_preemptor(data, fresh)
            if drawn is not None:
                preemptor, name, assignment = drawn
                config = self.index_config or data.draw(decision_configs(), label="config")
                got = get_targets(preemptor, name, assignment, observed, config=config, now=NOW)
                want = get_targets(preemptor, name, assignment, fresh, config=config, now=NOW)
                assert _targets(got) == _targets(want), (
                    f"GT-7: inside preserved() the library chose {_targets(got)}, on a rebuilt snapshot {_targets(want)}"
                )
        assert _key(observed) == before, "DM-11: leaving preserved() did not restore the snapshot"

    # ------------------------------------------------------------------ after every step

    @invariant()
    def matches_rebuilt(self) -> None:
        """The observed snapshot equals one rebuilt from the admitted set; the index, when on,
        equals a fresh one (see :func:`check_same_snapshot`, :func:`check_same_index`)."""
        if self.scenario is None:
            return
        observed = self.observed_snapshot()
        self._check_now(observed)
        if self.index_config is not None:
            fresh = self.rebuilt()
            check_same_index(
                observed.index_for(self.index_config), fresh.enable_index(self.index_config), fresh.cluster_queues
            )

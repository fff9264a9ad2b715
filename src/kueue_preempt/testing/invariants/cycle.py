"""Checkers of one Kueue scheduling cycle, written from kueue-scheduling-cycle.md (``SC-*``).

The checkers read a :class:`~kueue_preempt.testing.strategies.cycle.CycleScenario` and the
``heads``, ``results`` (per head: outcome, requeue reason, queue, admission, targets, status
reason and message) and ``queues`` (the queue memory after the cycle) of a
:class:`~kueue_preempt.cycle.CycleResult`; they do not read its ``cluster``, ``events`` or
metrics. Nothing here calls the cycle's own helpers: queue order (SC-QO-1),
effective priority and QOT (EP-*, POL-5, from :mod:`~kueue_preempt.testing.invariants.policy`),
the quota model (Q-5..Q-10, Q-14..Q-16 over
:class:`~kueue_preempt.testing.invariants.quota.SpecTree`), the flavor scan with the default
fungibility (FAS-6, FAS-8..FAS-10), partial admission (FAS-14), the entry order (SC-ORD-1,
SC-ORD-2), the fair-sharing tournament (SC-FS-1..SC-FS-4, FS-DRS-1..FS-DRS-4), processing
(SC-PE-1, SC-PE-2, SC-PE-4) and the requeue placement (SC-RQ-3..SC-RQ-5) are transcribed
below.

Scope: the checkers assume what :func:`~kueue_preempt.testing.strategies.cycle.cycle_scenarios`
draws — a freshly started queue state (no preemptor markers, no scan progress, no backoff),
Admission Fair Sharing off, every pod set of a pending workload requesting one resource of
one resource group with the default flavor fungibility. :func:`reference_cycle` returns
``None`` where its answer would depend on the preemption algorithm (a head that may find
targets); the other checkers then still apply.

There is no per-cohort admission limit in a cycle (SC-CY-1: "no limit on admissions per cohort
per cycle"): what keeps a second workload of a cohort from borrowing the same capacity is
the fit re-check with the earlier admissions counted (SC-PE-4), which
:func:`check_admissions_fit` replays.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from datetime import datetime
from typing import Sequence
from kueue_preempt import ClusterQueue, FlavorResource, PreemptionPolicy, Workload
from kueue_preempt.cycle import CycleResult, HeadResult, Outcome, QueueingStrategy, RequeueReason
from kueue_preempt.model.flavors import FlavorFungibility
from kueue_preempt.testing.invariants.policy import effective_priority, policy_allows, queue_order_time
from kueue_preempt.testing.invariants.quota import Node, SpecTree, workload_usage
from kueue_preempt.testing.strategies.cycle import CycleScenario

__all__ = [
    "CycleModel",
    "ReferenceEntry",
    "expected_heads",
    "check_heads",
    "check_outcome_fields",
    "check_admission_contents",
    "check_cycle_flavor_choice",
    "check_admissions_fit",
    "check_not_admitted_justified",
    "check_pending_status",
    "check_queue_state",
    "check_victims",
    "check_processing_order",
    "check_fair_sharing_order",
    "check_reference_cycle",
    "reference_cycle",
    "check_cycle",
]


# ----------------------------------------------------------------------------- quota model


class CycleModel(SpecTree):
    """:class:`SpecTree` plus what the cycle reads: heights (Q-15), the borrowing level
    (Q-16), potential available (Q-10), DRS (FS-DRS-1) and mutable ClusterQueue usage (the
    cycle's ``add_usage``, SC-CY-6, equal to recomputing Q-6 for the small amounts drawn)."""

    def add(self, cq: str, usage: dict[FlavorResource, int]) -> None:
        u = self.cq_usage[cq]
        for fr, v in usage.items():
            u[fr] = u.get(fr, 0) + v

    def remove(self, cq: str, usage: dict[FlavorResource, int]) -> None:
        self.add(cq, {fr: -v for fr, v in usage.items()})

    # FS-DRS-1 (every weight is 1: the strategies draw no fairSharing weights)
    def drs(self, n: Node) -> tuple[float, frozenset[FlavorResource]]:
        p = self.parent[n]
        if p is None:
            return 0.0, frozenset()
        borrowed_frs = frozenset(fr for fr in self.sq_keys(n) if self.u(n, fr) - self.sq(n, fr) > 0)
        borrowed: dict[str, int] = {}
        for fr in borrowed_frs:
            borrowed[fr.resource] = borrowed.get(fr.resource, 0) + self.u(n, fr) - self.sq(n, fr)
        root = self.root(n)
        ratio = 0.0
        for r, b in borrowed.items():
            lendable = sum(self.pot(p, fr) for fr in self.sq_keys(root) if fr.resource == r)
            if lendable > 0:
                ratio = max(ratio, float(b) * 1000.0 / float(lendable))
        return ratio, borrowed_frs


def _charged(scenario: CycleScenario) -> list[Workload]:
    """SC-ST-6 / DM-7: workloads holding a reservation, active and not finished."""
    out = []
    for w in scenario.cluster.workloads:
        finished = any(c.type == "Finished" and c.status == "True" for c in w.conditions)
        if w.cluster_queue and scenario.cluster.status(w.key).active and not finished:
            out.append(w)
    return out


def _model(scenario: CycleScenario, without: frozenset[str] = frozenset()) -> CycleModel:
    return CycleModel(scenario.cluster, [w for w in _charged(scenario) if w.key not in without])


def _cq(scenario: CycleScenario, name: str) -> ClusterQueue:
    return next(cq for cq in scenario.cluster.cluster_queues if cq.name == name)


def _flavors_of(cq: ClusterQueue, resource: str) -> list[str]:
    """The flavors of the first resource group covering ``resource``, in order (FAS-4, FAS-10)."""
    for g in cq.resource_groups:
        if resource in g.covered_resources:
            return [f.name for f in g.flavors]
    return []


def _can_preempt(cq: ClusterQueue) -> bool:
    """Some policy lets this ClusterQueue's heads find targets (POL-7, CL-GEN-1/2, SC-FS-6)."""
    p = cq.preemption
    bwc = p.borrow_within_cohort
    return (
        p.within_cluster_queue is not PreemptionPolicy.NEVER
        or p.reclaim_within_cohort is not PreemptionPolicy.NEVER
        or (bwc is not None and bwc.policy is not PreemptionPolicy.NEVER)
    )


def _workloads(scenario: CycleScenario) -> dict[str, Workload]:
    return {w.key: w for w in scenario.cluster.workloads}


@dataclass(frozen=True)
class _Shape:
    """The single-pod-set, single-resource request a generated pending workload makes."""

    resource: str
    per_pod: int
    count: int
    min_count: int


def _shape(w: Workload) -> _Shape | None:
    if len(w.spec_pod_sets) != 1:
        return None
    ps = w.spec_pod_sets[0]
    requested = [(r, v) for r, v in ps.requests.items() if v > 0]
    if len(requested) != 1:
        return None
    r, v = requested[0]
    return _Shape(r, v, ps.count, ps.count if ps.min_count is None else ps.min_count)


# ----------------------------------------------------------------------------- heads


def expected_heads(scenario: CycleScenario) -> list[tuple[str, str]]:
    """SC-ST-1, SC-ST-2, SC-QO-1, SC-CY-2: ``(ClusterQueue, head key)`` in
    ClusterQueue-name order. A fresh queue state holds every queueable pending workload in its
    ClusterQueue's active set; the head is the first by (higher EP, earlier QOT, smaller uid,
    smaller key). Criteria 1 (AFS) and 2 (sticky preemptor) do not apply to a fresh state."""
    cluster, pc = scenario.cluster, scenario.config.preemption
    lqs = {lq.key: lq for lq in cluster.local_queues}
    cqs = {cq.name: cq for cq in cluster.cluster_queues}
    queued: dict[str, list[Workload]] = {}
    for w in cluster.workloads:
        if w.cluster_queue or not w.local_queue or not cluster.status(w.key).active:
            continue
        lq = lqs.get(f"{w.namespace}/{w.local_queue}")
        if lq is None or lq.stop_policy.value != "None" or lq.cluster_queue not in cqs:
            continue
        queued.setdefault(lq.cluster_queue, []).append(w)
    heads = []
    for name in sorted(queued):
        if not cluster.settings(name).active:
            continue  # SC-ST-4: a stopped ClusterQueue gives no head
        best = min(
            queued[name], key=lambda w: (-effective_priority(w, pc), queue_order_time(w, pc), w.uid, w.key)
        )
        heads.append((name, best.key))
    return heads


def check_heads(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-CY-2, SC-QO-1: the heads are the first workload of every active
    ClusterQueue, in ClusterQueue-name order; SC-CY-5: every head has exactly one result and
    nothing else has one (no workload is processed, or admitted, twice)."""
    want = expected_heads(scenario)
    got = list(result.heads)
    assert got == [k for _, k in want], f"SC-QO-1/SC-CY-2: heads {got}, the spec's queue order gives {[k for _, k in want]}"
    keys = [r.key for r in result.results]
    assert sorted(keys) == sorted(got), f"SC-CY-5: results for {keys}, heads {got} (each head exactly once)"
    for (cq, key), r in zip(want, sorted(result.results, key=lambda r: got.index(r.key))):
        assert r.cluster_queue == cq, f"SC-ST-1: {key} is queued in {cq}, the result says {r.cluster_queue}"


# ----------------------------------------------------------------------------- per-result fields

_REASON_OF = {  # SC-RQ-3
    Outcome.NO_FIT: RequeueReason.NO_FIT,
    Outcome.NO_CANDIDATES: RequeueReason.PREEMPTION_NO_CANDIDATES,
    Outcome.PREEMPTING: RequeueReason.PENDING_PREEMPTION,
    Outcome.DEFERRED_FIT: RequeueReason.PENDING_PREEMPTION,
    Outcome.SKIPPED: RequeueReason.FAILED_AFTER_NOMINATION,
}
_IMMEDIATE_BEST_EFFORT = {  # SC-RQ-4
    RequeueReason.FAILED_AFTER_NOMINATION,
    RequeueReason.PENDING_PREEMPTION,
    RequeueReason.PREEMPTION_FAILED,
}


def check_outcome_fields(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-AD-1, SC-RQ-3..SC-RQ-5: an admitted head has an admission, no targets and
    leaves its queue; a pending one has the requeue reason of its outcome and waits in the
    active set when that reason is immediate for its queueing strategy (StrictFIFO: every
    reason but NamespaceMismatch; BestEffortFIFO: FailedAfterNomination, PendingPreemption,
    PreemptionFailed), else in the inadmissible set (no backoff, no scan progress left with
    pending flavors, no notify in a fresh one-shot cycle). Only a preempting head has targets."""
    for r in result.results:
        if r.outcome is Outcome.ADMITTED:
            assert r.admission is not None, f"SC-AD-1: {r.key} admitted without an admission"
            assert not r.targets, f"SC-PE-1: {r.key} admitted with preemption targets"
            assert r.queue is None and r.requeue_reason is None, f"SC-AD-1: admitted {r.key} is requeued ({r.queue})"
            continue
        assert r.admission is None, f"SC-AD-1: {r.key} ({r.outcome.value}) carries an admission"
        if r.outcome is Outcome.PREEMPTING:
            assert r.targets, f"SC-RQ-3: {r.key} is preempting without targets"
        else:
            assert not r.targets, f"SC-PR-1: {r.key} ({r.outcome.value}) lists targets it did not issue"
        if r.outcome is Outcome.REJECTED:
            continue
        want = _REASON_OF[r.outcome]
        assert r.requeue_reason is want, (
            f"SC-RQ-3: {r.key} ended {r.outcome.value}, requeue reason {r.requeue_reason}, the spec's is {want.value}"
        )
        strategy = scenario.cluster.settings(r.cluster_queue).queueing_strategy
        immediate = strategy is QueueingStrategy.STRICT_FIFO or want in _IMMEDIATE_BEST_EFFORT
        where = "active" if immediate else "inadmissible"
        assert r.queue == where, (
            f"SC-RQ-4/SC-RQ-5: {r.key} ({strategy.value}, {want.value}) waits in {r.queue}, the spec puts it in {where}"
        )


def check_admission_contents(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-AD-1, FAS-3, FAS-14: an admission has one entry per spec pod set, in spec order, with
    a count between ``minCount`` (the spec count without one) and the spec count, every
    requested resource on a flavor its ClusterQueue lists for it, and the usage per-pod
    request × assigned count."""
    workloads = _workloads(scenario)
    for r in result.results:
        if r.outcome is not Outcome.ADMITTED or r.admission is None:
            continue
        w, cq = workloads[r.key], _cq(scenario, r.cluster_queue)
        assert [p.name for p in r.admission] == [p.name for p in w.spec_pod_sets], (
            f"SC-AD-1: {r.key} admitted with pod sets {[p.name for p in r.admission]}"
        )
        for spec, got in zip(w.spec_pod_sets, r.admission):
            low = spec.count if spec.min_count is None else spec.min_count
            assert low <= got.count <= spec.count, (
                f"FAS-14: {r.key}/{spec.name} admitted with {got.count} pods, allowed {low}..{spec.count}"
            )
            for res, per_pod in spec.requests.items():
                if per_pod <= 0:
                    continue
                flavor = got.flavors.get(res)
                assert flavor in _flavors_of(cq, res), (
                    f"SC-AD-1/FAS-3: {r.key} got flavor {flavor} for {res}, {cq.name} lists {_flavors_of(cq, res)}"
                )
                assert got.usage.get(res) == per_pod * got.count, (
                    f"SC-AD-1: {r.key} charges {got.usage.get(res)} {res}, {per_pod} x {got.count} pods requested"
                )


def _fits_count(model: CycleModel, cq: ClusterQueue, s: _Shape, count: int) -> str | None:
    """FAS-10 with the default fungibility on a fresh scan: the first flavor on which ``count``
    pods fit (FAS-6 ``fit``: request <= Available), or ``None``."""
    for f in _flavors_of(cq, s.resource):
        if s.per_pod * count <= model.available(("cq", cq.name), FlavorResource(f, s.resource)):
            return f
    return None


def _default_fungibility(cq: ClusterQueue) -> bool:
    return cq.flavor_fungibility == FlavorFungibility()


def check_cycle_flavor_choice(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-NOM-2, FAS-6, FAS-10, FAS-14 on the cycle-start snapshot: an admitted head's flavor
    is the first of its ClusterQueue's flavors on which its admitted pod count fits (default
    fungibility: ``whenCanBorrow=MayStopSearch`` stops at the first fitting flavor); a reduced
    count is admitted only when the full count fits no flavor, and — when its ClusterQueue
    cannot preempt, so that success means ``Fit`` — one more pod would not fit either."""
    model = _model(scenario)
    workloads = _workloads(scenario)
    for r in result.results:
        if r.outcome is not Outcome.ADMITTED or r.admission is None:
            continue
        s, cq = _shape(workloads[r.key]), _cq(scenario, r.cluster_queue)
        if s is None or not _default_fungibility(cq):
            continue
        got = r.admission[0]
        flavor, count = got.flavors.get(s.resource), got.count
        want = _fits_count(model, cq, s, count)
        assert flavor == want, (
            f"FAS-10: {r.key} ({count} x {s.per_pod} {s.resource}) admitted on {flavor}; "
            f"the first of {_flavors_of(cq, s.resource)} it fits at cycle start is {want}"
        )
        if count < s.count:
            assert _fits_count(model, cq, s, s.count) is None, (
                f"FAS-14: {r.key} admitted with {count} of {s.count} pods although all fit at cycle start"
            )
            if not _can_preempt(cq):
                assert _fits_count(model, cq, s, count + 1) is None, (
                    f"FAS-14: {r.key} admitted with {count} pods although {count + 1} fit at cycle start"
                )


def check_admissions_fit(scenario: CycleScenario, result: CycleResult) -> None:
    """Q-14, SC-PE-1, SC-PE-4: replaying the admissions in processing order on the cycle-start
    usage with every victim of this cycle removed, each admission fits (borrowing allowed) with
    the earlier admissions of the cycle counted. (Earlier preempting or waiting entries add
    usage too, SC-CY-6; leaving them out only makes this necessary condition weaker.)"""
    victims = frozenset(t.workload.key for r in result.results for t in r.targets)
    model = _model(scenario, victims)
    for r in result.results:
        if r.outcome is not Outcome.ADMITTED or r.admission is None:
            continue
        usage = workload_usage(Workload(name="x", pod_sets=r.admission))
        assert model.fits(r.cluster_queue, usage, allow_borrowing=True), (
            f"Q-14/SC-PE-4: {r.key} admitted to {r.cluster_queue} with {dict(usage)}, which does not fit after "
            f"the cycle's earlier admissions with its victims removed"
        )
        model.add(r.cluster_queue, usage)


def _tree_of(model: CycleModel, cq: str) -> Node:
    return model.root(("cq", cq))


def check_not_admitted_justified(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-NOM-1, SC-NOM-2, SC-PE-1, SC-PE-3, SC-PE-4 on the cycle-start snapshot:

    * a head that passes the nomination checks (namespace exists and is selected, no limits
      or LimitRanges, ClusterQueue active) is not rejected (SC-NOM-1);
    * a head that ends ``NoFit``, ``NoCandidates`` or preempting did not fit: its full count
      fits none of its flavors, and for ``NoFit``/``NoCandidates`` not even ``minCount``
      (a fitting count would make the nomination ``Fit``, FAS-10, FAS-14);
    * ``NoCandidates`` needs a flavor where the request is within the potential available
      quota (FAS-6: above it the flavor is ``noFit``);
    * a skipped or deferred head needs an earlier entry of its cohort tree that changed the
      snapshot (admitted, preempted, deferred or reserved capacity): otherwise the snapshot is
      the one it was nominated on and it still fits (SC-PE-4); a ClusterQueue without a cohort
      is a tree of its own, with one head per cycle, so its head is never skipped.
    """
    model = _model(scenario)
    workloads = _workloads(scenario)
    cluster = scenario.cluster
    namespaces = {ns.name for ns in cluster.namespaces}
    changed_trees: set[Node] = set()
    for r in result.results:
        w, cq = workloads[r.key], _cq(scenario, r.cluster_queue)
        tree = _tree_of(model, cq.name)
        if r.outcome is Outcome.REJECTED:
            settings = cluster.settings(cq.name)
            plain = (
                (not namespaces or w.namespace in namespaces)
                and settings.namespace_selector is not None
                and not settings.namespace_selector.match_labels
                and not settings.namespace_selector.match_expressions
                and not cluster.limit_ranges
                and not any(cluster.status(w.key).limits)
                and not cluster.status(w.key).templates
                and (not cluster.flavors or all(
                    f in {x.name for x in cluster.flavors} for g in cq.resource_groups for f in (y.name for y in g.flavors)
                ))
            )
            assert not plain, f"SC-NOM-1: {r.key} rejected although every nomination check passes"
            continue
        s = _shape(w)
        if s is not None and _default_fungibility(cq):
            if r.outcome in (Outcome.NO_FIT, Outcome.NO_CANDIDATES, Outcome.PREEMPTING):
                f = _fits_count(model, cq, s, s.count)
                assert f is None, f"SC-NOM-2: {r.key} ended {r.outcome.value} although it fits on {f} at cycle start"
            if r.outcome in (Outcome.NO_FIT, Outcome.NO_CANDIDATES):
                f = _fits_count(model, cq, s, s.min_count)
                assert f is None, (
                    f"FAS-14: {r.key} ended {r.outcome.value} although {s.min_count} pods fit on {f} at cycle start"
                )
            if r.outcome is Outcome.NO_CANDIDATES:
                node: Node = ("cq", cq.name)
                assert any(
                    s.per_pod * s.count <= model.pot(node, FlavorResource(f, s.resource))
                    for f in _flavors_of(cq, s.resource)
                ), f"FAS-6: {r.key} ended NoCandidates although its request exceeds the potential quota of every flavor"
        if r.outcome in (Outcome.SKIPPED, Outcome.DEFERRED_FIT):
            assert tree in changed_trees, (
                f"SC-PE-4: {r.key} ended {r.outcome.value} but no earlier entry of its cohort tree changed the snapshot"
            )
        if r.outcome in (Outcome.ADMITTED, Outcome.PREEMPTING, Outcome.DEFERRED_FIT, Outcome.NO_CANDIDATES):
            changed_trees.add(tree)


_NO_LONGER_FITS = "Workload no longer fits after processing another workload"
_OVERLAPPING = "Workload has overlapping preemption targets with another workload"
_DEFERRED = _OVERLAPPING + ", but will fit after these preemptions complete"


def check_pending_status(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-MSG-1 (gate ``UnadmittedWorkloadsObservability`` on), SC-PE-1, SC-PE-3, SC-PE-4: the
    ``QuotaReserved=False`` reason and message of a head left pending — a skipped head
    ``WaitingForQuota`` with "no longer fits", or with "overlapping preemption targets" only
    when the recompute gate is off and an earlier head of its cohort tree issued preemptions; a
    deferred head ``WaitingForPreemptedWorkloads`` with the deferred-fit message after an
    earlier preempting head of its tree; a ``Preempt`` head without targets
    ``WaitingForQuota``; a preempting head ``WaitingForPreemptedWorkloads`` with
    ". Pending the preemption of N workload(s)" (N = its targets, none already evicted)."""
    if not scenario.config.unadmitted_workloads_observability:
        return
    model = _model(scenario)
    preempting_trees: set[Node] = set()
    for r in result.results:
        tree = _tree_of(model, r.cluster_queue)
        if r.outcome is Outcome.SKIPPED:
            assert r.reason == "WaitingForQuota", f"SC-MSG-1: skipped {r.key} has reason {r.reason!r}"
            allowed = [_NO_LONGER_FITS]
            if not scenario.config.recompute_on_targets_overlap and tree in preempting_trees:
                allowed.append(_OVERLAPPING)
            assert r.message in allowed, f"SC-MSG-1/SC-PE-1: skipped {r.key} says {r.message!r}, allowed {allowed}"
        elif r.outcome is Outcome.DEFERRED_FIT:
            assert scenario.config.recompute_on_targets_overlap and tree in preempting_trees, (
                f"SC-PE-3: {r.key} deferred without the recompute gate or an earlier preemption in its tree"
            )
            assert (r.reason, r.message) == ("WaitingForPreemptedWorkloads", _DEFERRED), (
                f"SC-MSG-1: deferred {r.key} has {r.reason!r}: {r.message!r}"
            )
        elif r.outcome is Outcome.NO_CANDIDATES:
            assert r.reason == "WaitingForQuota", f"SC-MSG-1: {r.key} (Preempt without targets) has reason {r.reason!r}"
        elif r.outcome is Outcome.PREEMPTING:
            assert r.reason == "WaitingForPreemptedWorkloads", f"SC-MSG-1: preempting {r.key} has reason {r.reason!r}"
            evicted = any(c.type == "Evicted" and c.status == "True" for t in r.targets for c in t.workload.conditions)
            if not evicted:
                tail = f". Pending the preemption of {len(r.targets)} workload(s)"
                assert r.message.endswith(tail), f"SC-MSG-1/SC-PR-1: preempting {r.key} says {r.message!r}"
            preempting_trees.add(tree)


def _shape_key(w: Workload, scenario: CycleScenario) -> tuple[object, ...]:
    """SC-RQ-8: EP and, per pod set in order, its scheduling shape (any injective encoding)."""
    return (
        effective_priority(w, scenario.config.preemption),
        tuple(
            (ps.name, ps.count, ps.requests, ps.min_count, ps.node_selector, ps.required_node_affinity, ps.tolerations,
             ps.pod_set_group, ps.topology_request)
            for ps in w.spec_pod_sets
        ),
    )


def check_queue_state(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-QO-1, SC-RQ-5, SC-RQ-6, SC-RQ-8, SC-AD-1 on the queue memory after the cycle: an
    admitted head is in no queue; every other head is in the set its result names; a workload
    that was not a head stays in the active set, except that a BestEffortFIFO head parked with
    ``NoFit`` or ``PreemptionNoCandidates`` moves the workloads of its shape to the
    inadmissible set (SC-RQ-8, gate on); a head requeued ``PendingPreemption`` becomes its
    ClusterQueue's preemptor marker, sticky under BestEffortFIFO (SC-RQ-6)."""
    heads = {r.key: r for r in result.results}
    head_of = {cq: key for cq, key in expected_heads(scenario)}
    workloads = _workloads(scenario)
    lqs = {lq.key: lq.cluster_queue for lq in scenario.cluster.local_queues}
    hashing = scenario.config.scheduling_equivalence_hashing
    for cq in {cq.name for cq in scenario.cluster.cluster_queues}:
        q = result.queues.queues.get(cq)
        active = q.active if q is not None else frozenset()
        parked = q.inadmissible if q is not None else frozenset()
        best_effort = scenario.cluster.settings(cq).queueing_strategy is QueueingStrategy.BEST_EFFORT_FIFO
        head = heads.get(head_of.get(cq, ""))
        bulk: object = None
        if (
            head is not None
            and hashing
            and best_effort
            and head.queue == "inadmissible"
            and head.requeue_reason in (RequeueReason.NO_FIT, RequeueReason.PREEMPTION_NO_CANDIDATES)
        ):
            bulk = _shape_key(workloads[head.key], scenario)
        for w in scenario.cluster.workloads:
            if w.cluster_queue or lqs.get(f"{w.namespace}/{w.local_queue}") != cq:
                continue
            where = "active" if w.key in active else "inadmissible" if w.key in parked else None
            assert not (w.key in active and w.key in parked), f"SC-ST-3: {w.key} is both active and inadmissible"
            r = heads.get(w.key)
            if r is not None:
                assert where == r.queue, f"SC-RQ-5/SC-AD-1: head {w.key} ({r.outcome.value}) is in {where}, its result says {r.queue}"
                continue
            want = "inadmissible" if bulk is not None and _shape_key(w, scenario) == bulk else "active"
            assert where == want, f"SC-QO-1/SC-RQ-8: {w.key}, not a head, is in {where}; the spec leaves it in {want}"
        if head is not None and head.requeue_reason is RequeueReason.PENDING_PREEMPTION:
            marker = q.preemptor if q is not None else None
            assert marker is not None and marker.key == head.key and marker.sticky == best_effort, (
                f"SC-RQ-6: {cq}'s preemptor marker is {marker}, the spec's is {head.key} (sticky={best_effort})"
            )


def check_victims(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-PE-1, GT-*, POL-1..POL-4, POL-8, POL-9: a victim is a workload charged at
    cycle start (not a head, not admitted in this cycle), claimed by one preemptor only
    (``T ∩ P = ∅`` for every issuing entry), in the preemptor's ClusterQueue with
    ``withinClusterQueue`` allowing it, or in another ClusterQueue of the same cohort tree
    with ``reclaimWithinCohort != Never`` — in classic preemption allowed by that policy or by
    ``borrowWithinCohort`` (lower priority, at most its threshold) — and it uses a flavor the
    preemptor's ClusterQueue lists for a resource the preemptor requests (POL-9)."""
    charged = {w.key: w for w in _charged(scenario)}
    workloads = _workloads(scenario)
    model = _model(scenario)
    pc = scenario.config.preemption
    fair = scenario.config.fair_sharing
    claimed: dict[str, str] = {}
    for r in result.results:
        if not r.targets:
            continue
        preemptor, cq = workloads[r.key], _cq(scenario, r.cluster_queue)
        requested = {res for ps in preemptor.spec_pod_sets for res, v in ps.requests.items() if v > 0}
        for t in r.targets:
            key = t.workload.key
            assert key in charged, f"SC-ST-6: {r.key} preempts {key}, which holds no quota at cycle start"
            assert key not in claimed, f"SC-PE-1: {key} is a target of both {claimed[key]} and {r.key}"
            claimed[key] = r.key
            victim = charged[key]
            assert t.cluster_queue == victim.cluster_queue, (
                f"DM-9: target {key} reported in {t.cluster_queue}, it is charged to {victim.cluster_queue}"
            )
            assert any(
                res in requested and f in _flavors_of(cq, res) for ps in victim.pod_sets for res, f in ps.flavors.items()
            ), f"POL-9: victim {key} of {r.key} uses no flavor-resource the preemptor could be assigned"
            if victim.cluster_queue == cq.name:
                policy = cq.preemption.within_cluster_queue
                assert policy_allows(policy, preemptor, victim, pc), (
                    f"POL-1..POL-4: withinClusterQueue={policy.value} of {cq.name} does not allow {r.key} "
                    f"(EP {effective_priority(preemptor, pc)}) to preempt {key} (EP {effective_priority(victim, pc)})"
                )
                continue
            same_tree = _tree_of(model, victim.cluster_queue) == _tree_of(model, cq.name) and cq.cohort is not None
            assert same_tree, f"CL-GEN-2: {r.key} in {cq.name} preempts {key} outside its cohort tree"
            reclaim = cq.preemption.reclaim_within_cohort
            assert reclaim is not PreemptionPolicy.NEVER, (
                f"CL-GEN-2: {cq.name} has reclaimWithinCohort=Never but {r.key} preempts {key} in {victim.cluster_queue}"
            )
            if fair:
                continue
            ep_p, ep_v = effective_priority(preemptor, pc), effective_priority(victim, pc)
            bwc = cq.preemption.borrow_within_cohort
            by_bwc = (
                bwc is not None
                and bwc.policy is PreemptionPolicy.LOWER_PRIORITY
                and ep_v < ep_p
                and (bwc.max_priority_threshold is None or ep_v <= bwc.max_priority_threshold)
            )
            assert policy_allows(reclaim, preemptor, victim, pc) or by_bwc, (
                f"POL-1..POL-4/POL-8: reclaimWithinCohort={reclaim.value} of {cq.name} does not allow {r.key} "
                f"(EP {ep_p}) to preempt {key} (EP {ep_v})"
            )


def _borrow_level(model: CycleModel, cq: str, usage: dict[FlavorResource, int]) -> int:
    """FA-5: the maximum Q-16 level over the assignment's flavor-resources."""
    return max((model.lowest_fitting_height(cq, fr, v)[0] for fr, v in usage.items()), default=0)


def check_processing_order(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-CY-5, SC-ORD-1, SC-ORD-2, SC-NOM-2: rejected heads come after every processed one;
    an admitted head reports the borrowing level of its admission on the cycle-start snapshot
    (FA-5, Q-16); without fair sharing, two admitted heads are processed in the order of
    (lower borrowing level, higher EP when ``PrioritySortingWithinCohort``, earlier QOT), equal
    ones in head order (the stable sort of SC-ORD-2). (The fair-sharing order is checked
    against :func:`reference_cycle`.)"""
    outcomes = [r.outcome for r in result.results]
    if Outcome.REJECTED in outcomes:
        first = outcomes.index(Outcome.REJECTED)
        assert all(o is Outcome.REJECTED for o in outcomes[first:]), "SC-CY-5: a processed entry comes after a rejected head"
    model = _model(scenario)
    workloads = _workloads(scenario)
    pc, sorting = scenario.config.preemption, scenario.config.priority_sorting_within_cohort
    heads = list(result.heads)
    keyed: list[tuple[tuple[int, int, datetime], int, str]] = []
    for r in result.results:
        if r.outcome is not Outcome.ADMITTED or r.admission is None:
            continue
        usage = workload_usage(Workload(name="x", pod_sets=r.admission))
        level = _borrow_level(model, r.cluster_queue, usage)
        assert r.borrowing == level, f"FA-5/Q-16: {r.key} reports borrowing level {r.borrowing}, its admission's is {level}"
        w = workloads[r.key]
        ep = effective_priority(w, pc) if sorting else 0
        keyed.append(((level, -ep, queue_order_time(w, pc)), heads.index(r.key), r.key))
    if scenario.config.fair_sharing:
        return
    for (ka, ia, a), (kb, ib, b) in zip(keyed, keyed[1:]):
        assert (ka, ia) < (kb, ib), (
            f"SC-ORD-1/SC-ORD-2: {a} (level, -EP, QOT = {ka}) is processed before {b} ({kb})"
        )


# ----------------------------------------------------------------------------- reference


@dataclass
class ReferenceEntry:
    """One nominated head of :func:`reference_cycle`, in processing order."""

    key: str
    cluster_queue: str
    outcome: Outcome
    flavor: str | None = None
    """The admitted flavor (``Admitted`` only)."""
    count: int = 0
    """The admitted pod count (``Admitted`` only)."""
    usage: dict[FlavorResource, int] = field(default_factory=dict)
    borrowing: int = 0
    mode: str = "NoFit"


def _nominate(model: CycleModel, scenario: CycleScenario, w: Workload, cq: ClusterQueue) -> ReferenceEntry | None:
    """SC-NOM-2 with FAS-6/FAS-9/FAS-10/FAS-14 for a single-resource head of a ClusterQueue
    whose heads cannot find targets; ``None`` when the answer depends on the preemption
    algorithm or on a shape these checkers do not model."""
    s = _shape(w)
    if s is None or not _default_fungibility(cq) or cq.admission_scope_usage_based:
        return None
    flavors = _flavors_of(cq, s.resource)
    node: Node = ("cq", cq.name)

    def fit_entry(count: int) -> ReferenceEntry | None:
        f = _fits_count(model, cq, s, count)
        if f is None:
            return None
        usage = {FlavorResource(f, s.resource): s.per_pod * count}
        return ReferenceEntry(w.key, cq.name, Outcome.ADMITTED, f, count, usage, _borrow_level(model, cq.name, usage), "Fit")

    full = fit_entry(s.count)
    if full is not None:
        return full
    pots = [model.pot(node, FlavorResource(f, s.resource)) for f in flavors]
    if _can_preempt(cq):
        if all(s.per_pod * s.min_count > p for p in pots):
            return ReferenceEntry(w.key, cq.name, Outcome.NO_FIT)  # no count is ever within the potential
        return None
    for count in range(s.count - 1, s.min_count - 1, -1):  # FAS-14: success is Fit, monotone in the count
        partial = fit_entry(count)
        if partial is not None:
            return partial
    # The full count's scan: every flavor examined (TryNextFlavor); FAS-9 keeps the first
    # noCandidates flavor with the lowest borrowing level.
    best: tuple[int, str] | None = None
    for f, p in zip(flavors, pots):
        fr = FlavorResource(f, s.resource)
        v = s.per_pod * s.count
        if v > p:
            continue  # FAS-6 noFit
        level, may_reclaim = model.lowest_fitting_height(cq.name, fr, v)
        nominal = cq.quotas[fr].nominal if fr in cq.quotas else 0
        if nominal >= v or may_reclaim:
            if best is None or level < best[0]:
                best = (level, f)
    if best is None:
        return ReferenceEntry(w.key, cq.name, Outcome.NO_FIT)
    level, f = best
    usage = {FlavorResource(f, s.resource): s.per_pod * s.count}
    return ReferenceEntry(w.key, cq.name, Outcome.NO_CANDIDATES, None, 0, usage, level, "Preempt")


def _reserve(model: CycleModel, cq: ClusterQueue, e: ReferenceEntry) -> None:
    """SC-PE-2: capacity reserved by a ``Preempt`` entry without targets (reclaim != Any)."""
    if cq.preemption.reclaim_within_cohort is PreemptionPolicy.ANY:
        return
    add: dict[FlavorResource, int] = {}
    for fr, u in e.usage.items():
        q = cq.quotas.get(fr)
        n = q.nominal if q is not None else 0
        c = model.cq_usage[cq.name].get(fr, 0)
        if e.borrowing > 0:
            bl = q.borrowing_limit if q is not None else None
            add[fr] = u if bl is None else min(u, n + bl - c)
        else:
            add[fr] = max(0, min(u, n - c))
    model.add(cq.name, add)


def _classic_order(scenario: CycleScenario, entries: list[ReferenceEntry], workloads: dict[str, Workload]) -> list[ReferenceEntry]:
    """SC-ORD-1 (criteria 3-5) as a stable sort over head order (SC-ORD-2)."""
    pc, sorting = scenario.config.preemption, scenario.config.priority_sorting_within_cohort

    def key(e: ReferenceEntry) -> tuple[int, int, datetime]:
        w = workloads[e.key]
        return (e.borrowing, -effective_priority(w, pc) if sorting else 0, queue_order_time(w, pc))

    return sorted(entries, key=key)


def _fair_pop(scenario: CycleScenario, model: CycleModel, remaining: list[ReferenceEntry], workloads: dict[str, Workload]) -> ReferenceEntry:
    """SC-FS-1..SC-FS-4 with FS-DRS-1/FS-DRS-4 (every weight 1)."""
    pc = scenario.config.preemption
    first = min(remaining, key=lambda e: e.cluster_queue)  # [D] smallest ClusterQueue name
    node: Node = ("cq", first.cluster_queue)
    if model.parent[node] is None:
        return first
    root = model.root(node)
    tree = [e for e in remaining if model.root(("cq", e.cluster_queue)) == root]
    drs: dict[tuple[Node, str], tuple[float, frozenset[FlavorResource]]] = {}
    for e in tree:
        model.add(e.cluster_queue, e.usage)
        n: Node = ("cq", e.cluster_queue)
        d = model.drs(n)
        for a in model.ancestors(n):
            drs[(a, e.key)] = d
            d = model.drs(a)
        model.remove(e.cluster_queue, e.usage)
    by_cq = {e.cluster_queue: e for e in tree}

    def less(a: ReferenceEntry, b: ReferenceEntry, level: Node) -> bool:
        if scenario.config.fair_sharing_prioritize_non_borrowing:
            borrow_a = any(a.usage.get(fr, 0) > 0 for fr in drs[(level, a.key)][1])
            borrow_b = any(b.usage.get(fr, 0) > 0 for fr in drs[(level, b.key)][1])
            if borrow_a != borrow_b:
                return not borrow_a
        ra, rb = drs[(level, a.key)][0], drs[(level, b.key)][0]
        if ra != rb:
            return ra < rb
        if scenario.config.priority_sorting_within_cohort:
            pa, pb = effective_priority(workloads[a.key], pc), effective_priority(workloads[b.key], pc)
            if pa != pb:
                return pa > pb
        return queue_order_time(workloads[a.key], pc) < queue_order_time(workloads[b.key], pc)

    def tournament(c: Node) -> ReferenceEntry | None:
        kids = model.children[c]
        cands: list[ReferenceEntry] = []
        for k in sorted((k for k in kids if k[0] == "cohort"), key=lambda k: k[1]):
            t = tournament(k)
            if t is not None:
                cands.append(t)
        cands += [by_cq[k[1]] for k in sorted((k for k in kids if k[0] == "cq"), key=lambda k: k[1]) if k[1] in by_cq]
        if not cands:
            return None
        best = cands[0]
        for x in cands[1:]:
            if less(x, best, c):
                best = x
        return best

    winner = tournament(root)
    assert winner is not None
    return winner


def reference_cycle(scenario: CycleScenario) -> list[ReferenceEntry] | None:
    """The spec's cycle, transcribed, for cycles whose heads cannot find preemption targets.

    Heads (SC-CY-2, SC-QO-1); each nominated on the cycle-start snapshot (SC-NOM-2: FAS-6,
    FAS-10 with the default fungibility, FAS-14 partial admission); processed in the classic
    order (SC-ORD-1, SC-ORD-2) or the fair-sharing tournament (SC-FS-1..SC-FS-4); a ``Fit``
    entry is admitted if it still fits (SC-PE-1, SC-PE-4, Q-14) and adds its usage, a
    ``Preempt`` entry without targets reserves capacity (SC-PE-2), a ``NoFit`` one changes
    nothing. Returns the processed entries in processing order with outcome, admitted flavor
    and count; ``None`` when some head's ClusterQueue may preempt (unless that head is
    ``NoFit`` whatever the victims) or a head is outside the modelled shapes.

    Cost: one quota-model walk per head and per processed entry, O(heads² · tree) with fair
    sharing (the tournament is recomputed at every pop).
    """
    model = _model(scenario)
    workloads = _workloads(scenario)
    entries: list[ReferenceEntry] = []
    for cq_name, key in expected_heads(scenario):
        e = _nominate(model, scenario, workloads[key], _cq(scenario, cq_name))
        if e is None:
            return None
        entries.append(e)
    cqs = {cq.name: cq for cq in scenario.cluster.cluster_queues}
    if scenario.config.fair_sharing:
        order: list[ReferenceEntry] = []
        remaining = list(entries)
        while remaining:
            e = _fair_pop(scenario, model, remaining, workloads)
            remaining.remove(e)
            _process(model, cqs[e.cluster_queue], e)
            order.append(e)
        return order
    order = _classic_order(scenario, entries, workloads)
    for e in order:
        _process(model, cqs[e.cluster_queue], e)
    return order


def _process(model: CycleModel, cq: ClusterQueue, e: ReferenceEntry) -> None:
    """SC-PE-1 without targets."""
    if e.outcome is Outcome.ADMITTED:
        if model.fits(cq.name, e.usage, allow_borrowing=True):
            model.add(cq.name, e.usage)
        else:
            e.outcome, e.flavor, e.count = Outcome.SKIPPED, None, 0
    elif e.outcome is Outcome.NO_CANDIDATES:
        _reserve(model, cq, e)


def check_reference_cycle(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-CY-5, SC-ORD-*, SC-FS-*, SC-PE-1/2/4, SC-NOM-2: where :func:`reference_cycle` fixes
    the answer, the processed heads, their order, outcomes, admitted flavors and counts are
    the reference's."""
    ref = reference_cycle(scenario)
    if ref is None:
        return
    got = [r for r in result.results if r.outcome is not Outcome.REJECTED]
    want_order = [e.key for e in ref]
    got_order = [r.key for r in got]
    assert got_order == want_order, f"SC-ORD-1/SC-FS-1: processing order {got_order}, the spec's is {want_order}"
    for e, r in zip(ref, got):
        assert r.outcome is e.outcome, f"SC-PE-1: {r.key} ended {r.outcome.value}, the spec's outcome is {e.outcome.value}"
        if e.outcome is Outcome.ADMITTED and r.admission is not None:
            ps = r.admission[0]
            flavors = set(ps.flavors.values())
            assert flavors == {e.flavor} and ps.count == e.count, (
                f"SC-NOM-2/FAS-10: {r.key} admitted as {ps.count} pods on {sorted(flavors)}, "
                f"the spec's admission is {e.count} pods on {e.flavor}"
            )


def _replay_entry(model: CycleModel, scenario: CycleScenario, r: HeadResult, w: Workload) -> list[ReferenceEntry] | None:
    """The possible usages ``U(e)`` (with borrowing levels) of a processed head, from the spec
    and the outcome the result reports: one, or for a preempting head that may have been
    partially admitted one per possible pod count; ``None`` when they depend on the
    preemption algorithm (a deferred head, or a skipped one that did not fit at full count)."""
    cq = _cq(scenario, r.cluster_queue)
    s = _shape(w)
    if s is None or not _default_fungibility(cq):
        return None
    if r.outcome is Outcome.ADMITTED and r.admission is not None:
        usage = workload_usage(Workload(name="x", pod_sets=r.admission))
        return [ReferenceEntry(r.key, cq.name, r.outcome, None, 0, usage, _borrow_level(model, cq.name, usage), "Fit")]
    if r.outcome is Outcome.NO_FIT:
        return [ReferenceEntry(r.key, cq.name, r.outcome)]  # no flavor assigned: U(e) is empty (SC-CY-4)
    if r.outcome is Outcome.SKIPPED:
        f = _fits_count(model, cq, s, s.count)
        if f is None:
            return None
        usage = {FlavorResource(f, s.resource): s.per_pod * s.count}
        return [ReferenceEntry(r.key, cq.name, r.outcome, None, 0, usage, _borrow_level(model, cq.name, usage), "Fit")]
    if r.outcome is Outcome.NO_CANDIDATES:
        # GetTargets on a one-resource assignment is the oracle's own call (FA-6), so no
        # candidates for the assignment means the chosen flavor was noCandidates, and then
        # every flavor was noCandidates or noFit (FAS-9: preempt/reclaim beat noCandidates).
        # FAS-9 keeps the first of the lowest borrowing level.
        fs_reclaim = scenario.config.fair_sharing and cq.preemption.reclaim_within_cohort is not PreemptionPolicy.NEVER
        bwc = cq.preemption.borrow_within_cohort
        may_borrow_preempt = fs_reclaim or (bwc is not None and bwc.policy is not PreemptionPolicy.NEVER)
        best: tuple[int, str] | None = None
        v = s.per_pod * s.count
        for f in _flavors_of(cq, s.resource):
            fr = FlavorResource(f, s.resource)
            if v > model.pot(("cq", cq.name), fr):
                continue
            level, may_reclaim = model.lowest_fitting_height(cq.name, fr, v)
            nominal = cq.quotas[fr].nominal if fr in cq.quotas else 0
            if (nominal >= v or may_reclaim or may_borrow_preempt) and (best is None or level < best[0]):
                best = (level, f)
        if best is None:
            return None
        usage = {FlavorResource(best[1], s.resource): v}
        return [ReferenceEntry(r.key, cq.name, r.outcome, None, 0, usage, best[0], "Preempt")]
    if r.outcome is Outcome.PREEMPTING:
        # The targets free the one flavor they share with the preemptor's request (POL-9,
        # FRNP = {(f, r)}); the count is the spec count, or with partial admission any count
        # from minCount (SC-NOM-2, FAS-14). The tournament reads only U(e), not the level.
        own = _flavors_of(cq, s.resource)
        used = {f for t in r.targets for ps in t.workload.pod_sets for res, f in ps.flavors.items() if res == s.resource}
        shared = [f for f in own if f in used]
        if len(shared) != 1:
            return None
        fr = FlavorResource(shared[0], s.resource)
        return [
            ReferenceEntry(r.key, cq.name, r.outcome, None, 0, {fr: s.per_pod * n}, 0, "Preempt")
            for n in range(s.count, s.min_count - 1, -1)
        ]
    return None


def _replay_tree(scenario: CycleScenario, entries: Sequence[ReferenceEntry]) -> list[str]:
    """The tournament's processing order of one cohort tree's entries (SC-FS-1..SC-FS-4), each
    applied with its reported outcome (SC-PE-1, SC-PE-2, SC-CY-6)."""
    model = _model(scenario)
    workloads = _workloads(scenario)
    cqs = {cq.name: cq for cq in scenario.cluster.cluster_queues}
    remaining = list(entries)
    order = []
    while remaining:
        e = _fair_pop(scenario, model, remaining, workloads)
        remaining.remove(e)
        order.append(e.key)
        if e.outcome in (Outcome.ADMITTED, Outcome.PREEMPTING):
            model.add(e.cluster_queue, e.usage)  # victims keep their usage in the snapshot
        elif e.outcome is Outcome.NO_CANDIDATES:
            _reserve(model, cqs[e.cluster_queue], e)
    return order


def check_fair_sharing_order(scenario: CycleScenario, result: CycleResult) -> None:
    """SC-FS-1..SC-FS-4, FS-DRS-1, FS-DRS-4, SC-PE-2: with fair sharing on, the heads of each
    cohort tree are processed in tournament order. Trees are independent (SC-FS-1), so each
    is replayed on its own on the quota model, with the outcomes the result reports
    (admissions and preemptions add their usage, ``Preempt`` entries without targets reserve
    capacity); a tree with a head whose usage is not fixed (``_replay_entry``) is not checked,
    and where a preempting head's pod count is open the order must match for one of them."""
    if not scenario.config.fair_sharing:
        return
    model = _model(scenario)
    workloads = _workloads(scenario)
    processed = [r for r in result.results if r.outcome is not Outcome.REJECTED]
    trees: dict[Node, list[list[ReferenceEntry]] | None] = {}
    for r in processed:
        tree = _tree_of(model, r.cluster_queue)
        options = _replay_entry(model, scenario, r, workloads[r.key])
        known = trees.setdefault(tree, [])
        if options is None or known is None:
            trees[tree] = None
        else:
            known.append(options)
    for tree, per_head in trees.items():
        if per_head is None or len(per_head) < 2:
            continue
        got = [r.key for r in processed if _tree_of(model, r.cluster_queue) == tree]
        orders = [_replay_tree(scenario, combo) for combo in itertools.islice(itertools.product(*per_head), 256)]
        assert got in orders, (
            f"SC-FS-1/SC-FS-3/SC-FS-4: cohort tree {tree[1]} processed {got}, the tournament gives {orders[0]}"
        )


# ----------------------------------------------------------------------------- all of them


def check_cycle(scenario: CycleScenario, result: CycleResult) -> None:
    """Every checker of this module (see each for its rule IDs)."""
    check_heads(scenario, result)
    check_outcome_fields(scenario, result)
    check_admission_contents(scenario, result)
    check_cycle_flavor_choice(scenario, result)
    check_admissions_fit(scenario, result)
    check_not_admitted_justified(scenario, result)
    check_pending_status(scenario, result)
    check_queue_state(scenario, result)
    check_victims(scenario, result)
    check_processing_order(scenario, result)
    check_fair_sharing_order(scenario, result)
    check_reference_cycle(scenario, result)


"""Independent checkers for classic preemption results, written from the spec.

Nothing here calls the library's policy, priority, ordering or classification helpers:
effective priority (EP-1..EP-6), the queue-order timestamp (POL-5), the policy predicates
(POL-1..POL-4, POL-6), resource overlap (POL-9), ``borrowWithinCohort`` (POL-8), the variant
and reason of a target (CL-VAR-1/CL-VAR-2), hierarchical advantage (CL-GEN-3/CL-GEN-4) and the
candidate-source conditions (CL-GEN-3/CL-GEN-5) are re-implemented below, together with a
small recomputing quota model (Q-3..Q-6, Q-8, Q-9, Q-12, Q-13, GT-5) over the scenario's
model objects. The library's public :class:`~kueue_preempt.Snapshot` is used only for the
fit predicate of the results (``fits``), and its answers are cross-checked against the
independent model.

:func:`reference_classic` goes further and transcribes the whole classic algorithm
(CL-GEN, CL-VAR, CL-VALID, CL-ATT, FB-2) on top of that model, for exact comparisons.

Every ``check_*`` function raises ``AssertionError`` with an explanation on a violation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Sequence

from kueue_preempt import ClusterQueue, PreemptionPolicy, Target, Workload
from kueue_preempt.testing.invariants.policy import (
    borrow_within_cohort,
    effective_priority,
    policy_allows,
    uses_frnp,
)
from kueue_preempt.testing.invariants.quota import Node, SpecTree
from kueue_preempt.testing.strategies.classic import Scenario

__all__ = [
    "Expectation",
    "WITHIN_CQ",
    "HIERARCHICAL_RECLAIM",
    "RECLAIM_WITHOUT_BORROWING",
    "RECLAIM_WHILE_BORROWING",
    "REASON_OF_VARIANT",
    "expected_variant",
    "check_target_set_shape",
    "check_targets_policy",
    "check_fits_after_removal",
    "check_minimality",
    "check_empty_result_justified",
    "ord_ties_across_queues",
    "reference_classic",
]

WITHIN_CQ = "WITHIN_CQ"
HIERARCHICAL_RECLAIM = "HIERARCHICAL_RECLAIM"
RECLAIM_WITHOUT_BORROWING = "RECLAIM_WITHOUT_BORROWING"
RECLAIM_WHILE_BORROWING = "RECLAIM_WHILE_BORROWING"

REASON_OF_VARIANT = {  # CL-VAR-2
    WITHIN_CQ: "InClusterQueue",
    HIERARCHICAL_RECLAIM: "InCohortReclamation",
    RECLAIM_WITHOUT_BORROWING: "InCohortReclamation",
    RECLAIM_WHILE_BORROWING: "InCohortReclaimWhileBorrowing",
}


# --------------------------------------------------------------------------- classification


@dataclass(frozen=True)
class Expectation:
    """What the spec says about one workload as a candidate of this scenario."""

    variant: str | None  # None: not a candidate at all
    why: str


def _cq(scenario: Scenario, name: str) -> ClusterQueue:
    return next(cq for cq in scenario.cluster_queues if cq.name == name)


def expected_variant(scenario: Scenario, entry: SpecTree, w: Workload) -> Expectation:
    """CL-VAR-1 over the CL-GEN-1/3 candidate sources, evaluated on the entry state (CL-GEN-6)."""
    pcq = _cq(scenario, scenario.cluster_queue)
    frnp = scenario.assignment.preempt
    config = scenario.config
    if not uses_frnp(w, frnp):
        return Expectation(None, "does not use any FR needing preemption (POL-9)")
    if w.cluster_queue == pcq.name:
        if not policy_allows(pcq.preemption.within_cluster_queue, scenario.preemptor, w, config):
            return Expectation(None, f"withinClusterQueue={pcq.preemption.within_cluster_queue.value} forbids it")
        return Expectation(WITHIN_CQ, "same ClusterQueue")
    # Cross-CQ (CL-GEN-2/3).
    reclaim = pcq.preemption.reclaim_within_cohort
    if pcq.cohort is None:
        return Expectation(None, "preemptor ClusterQueue has no cohort (CL-GEN-2)")
    if reclaim == PreemptionPolicy.NEVER:
        return Expectation(None, "reclaimWithinCohort=Never (CL-GEN-2)")
    p_node: Node = ("cq", pcq.name)
    c_node: Node = ("cq", w.cluster_queue)
    p_anc = entry.ancestors(p_node)
    c_anc = entry.ancestors(c_node)
    lca = next((a for a in p_anc if a in c_anc), None)
    if lca is None:
        return Expectation(None, "outside the preemptor's cohort tree")
    # CL-GEN-3 collect: the CQ and every cohort strictly between it and the LCA are over
    # their (subtree) quota on some FR of FRNP, at entry.
    if entry.within_nominal(c_node, frnp):
        return Expectation(None, "its ClusterQueue is within nominal on FRNP at entry (CL-GEN-5)")
    for a in c_anc:
        if a == lca:
            break
        if entry.within_nominal(a, frnp):
            return Expectation(None, f"cohort {a[1]} below the LCA is within its quota on FRNP (CL-GEN-3)")
    if not policy_allows(reclaim, scenario.preemptor, w, config):
        return Expectation(None, f"reclaimWithinCohort={reclaim.value} forbids it")
    # CL-GEN-3/4: hierarchical advantage at the LCA.
    adv, rem = entry.fit_probe(p_node, scenario.assignment.requests)
    for a in p_anc:
        if a == lca:
            break
        fits_a, rem = entry.fit_probe(a, rem)
        adv = adv or fits_a
    if adv:
        return Expectation(HIERARCHICAL_RECLAIM, f"hierarchical advantage below LCA {lca[1]}")
    allowed, threshold = borrow_within_cohort(pcq)
    if not allowed:
        return Expectation(RECLAIM_WITHOUT_BORROWING, "borrowWithinCohort forbidden")
    ep_c = effective_priority(w, config)
    ep_p = effective_priority(scenario.preemptor, config)
    if ep_c >= ep_p or (threshold is not None and ep_c > threshold):
        return Expectation(RECLAIM_WITHOUT_BORROWING, f"EP {ep_c} vs preemptor {ep_p}, threshold {threshold}")
    return Expectation(RECLAIM_WHILE_BORROWING, f"EP {ep_c} < preemptor {ep_p}, threshold {threshold}")


# --------------------------------------------------------------------------- checks


def _remaining(scenario: Scenario, targets: Sequence[Target]) -> list[Workload]:
    keys = {t.workload.key for t in targets}
    return [w for w in scenario.workloads if w.key not in keys]


def _fits(scenario: Scenario, workloads: Sequence[Workload], *, allow_borrowing: bool) -> bool:
    """GT-5 on a fresh library snapshot holding ``workloads``, cross-checked with SpecTree."""
    snap = scenario.snapshot(workloads)
    node = snap.cluster_queue(scenario.cluster_queue)
    got = snap.fits(node, scenario.assignment.requests, allow_borrowing=allow_borrowing)
    spec = SpecTree(scenario, workloads).fits(
        scenario.cluster_queue, scenario.assignment.requests, allow_borrowing=allow_borrowing
    )
    assert got == spec, f"Snapshot.fits(allow_borrowing={allow_borrowing}) = {got}, spec model says {spec}"
    return got


def check_target_set_shape(scenario: Scenario, targets: Sequence[Target]) -> None:
    """Targets are distinct admitted workloads of the scenario (never the preemptor)."""
    by_key = {w.key: w for w in scenario.workloads}
    keys = [t.workload.key for t in targets]
    assert len(keys) == len(set(keys)), f"duplicate targets: {keys}"
    for t in targets:
        assert t.workload.key in by_key, f"target {t.workload.key} is not an admitted workload"
        assert t.workload == by_key[t.workload.key], f"target {t.workload.key} differs from the admitted object"
        assert t.workload.key != scenario.preemptor.key, "the preemptor cannot be its own target"
        assert t.cluster_queue == t.workload.cluster_queue, (
            f"target {t.workload.key}: cluster_queue {t.cluster_queue!r} != admission {t.workload.cluster_queue!r}"
        )


def check_targets_policy(scenario: Scenario, targets: Sequence[Target]) -> None:
    """Property (c): every target is a spec candidate with the spec's reason.

    * POL-9: it uses an FR of the preempt set;
    * POL-6: the preemptor CQ's ``withinClusterQueue`` policy allows it when it is in the
      preemptor CQ, ``reclaimWithinCohort`` otherwise (EP and QOT computed here);
    * cross-CQ only when the preemptor CQ has a cohort and ``reclaimWithinCohort != Never``,
      and only from the preemptor's tree (CL-GEN-2/3), from a CQ (and intermediate cohorts)
      over quota on FRNP at entry (CL-GEN-5);
    * the reason is CL-VAR-2's for the CL-VAR-1 variant; in particular
      ``InCohortReclaimWhileBorrowing`` only with ``borrowWithinCohort`` allowed, candidate
      EP < preemptor EP and (no threshold or EP <= threshold);
    * a RECLAIM_WITHOUT_BORROWING target can only come from the no-borrow attempt
      (CL-VAR-3), so the preemptor then fits without borrowing once the targets are gone.
    """
    check_target_set_shape(scenario, targets)
    entry = SpecTree(scenario, scenario.workloads)
    pcq = _cq(scenario, scenario.cluster_queue)
    frnp = scenario.assignment.preempt
    without_borrowing = False
    for t in targets:
        w = t.workload
        reason = t.reason.value
        assert uses_frnp(w, frnp), f"{w.key} uses none of the FRs needing preemption {sorted(map(str, frnp))} (POL-9)"
        if w.cluster_queue == pcq.name:
            assert reason == "InClusterQueue", f"{w.key}: same-CQ target has reason {reason} (CL-VAR-2)"
            assert policy_allows(pcq.preemption.within_cluster_queue, scenario.preemptor, w, scenario.config), (
                f"{w.key}: withinClusterQueue={pcq.preemption.within_cluster_queue.value} does not allow it (POL-6)"
            )
        else:
            assert reason in ("InCohortReclamation", "InCohortReclaimWhileBorrowing"), (
                f"{w.key}: cross-CQ target has reason {reason} (CL-VAR-2)"
            )
            assert pcq.cohort is not None, f"{w.key}: cross-CQ target but the preemptor CQ has no cohort (CL-GEN-2)"
            assert pcq.preemption.reclaim_within_cohort != PreemptionPolicy.NEVER, (
                f"{w.key}: cross-CQ target with reclaimWithinCohort=Never (CL-GEN-2)"
            )
            assert entry.root(("cq", w.cluster_queue)) == entry.root(("cq", pcq.name)), (
                f"{w.key}: target from {w.cluster_queue}, outside the preemptor's tree"
            )
            assert policy_allows(pcq.preemption.reclaim_within_cohort, scenario.preemptor, w, scenario.config), (
                f"{w.key}: reclaimWithinCohort={pcq.preemption.reclaim_within_cohort.value} does not allow it (POL-6)"
            )
            if reason == "InCohortReclaimWhileBorrowing":
                allowed, threshold = borrow_within_cohort(pcq)
                ep_c = effective_priority(w, scenario.config)
                ep_p = effective_priority(scenario.preemptor, scenario.config)
                assert allowed, f"{w.key}: InCohortReclaimWhileBorrowing but borrowWithinCohort is forbidden"
                assert ep_c < ep_p, f"{w.key}: InCohortReclaimWhileBorrowing with EP {ep_c} >= preemptor EP {ep_p}"
                assert threshold is None or ep_c <= threshold, (
                    f"{w.key}: InCohortReclaimWhileBorrowing with EP {ep_c} above threshold {threshold}"
                )
        expected = expected_variant(scenario, entry, w)
        assert expected.variant is not None, f"{w.key} ({reason}) is not a candidate per the spec: {expected.why}"
        assert reason == REASON_OF_VARIANT[expected.variant], (
            f"{w.key}: reason {reason}, spec variant {expected.variant} ({expected.why}) gives "
            f"{REASON_OF_VARIANT[expected.variant]}"
        )
        without_borrowing = without_borrowing or expected.variant == RECLAIM_WITHOUT_BORROWING
    if without_borrowing:
        assert _fits(scenario, _remaining(scenario, targets), allow_borrowing=False), (
            "a RECLAIM_WITHOUT_BORROWING target was used, so the no-borrow attempt selected the set, "
            "yet the preemptor does not fit without borrowing after removing it (CL-VAR-3, CL-ATT-2)"
        )


def check_fits_after_removal(scenario: Scenario, targets: Sequence[Target]) -> None:
    """Property (a)/(f), GT-4: a non-empty result is complete — the preemptor fits (borrowing)."""
    if not targets:
        return
    assert _fits(scenario, _remaining(scenario, targets), allow_borrowing=True), (
        "the preemptor does not fit after removing every target (GT-4)"
    )


def _borrow_attempt_certain(scenario: Scenario, remaining: Sequence[Workload]) -> bool:
    """Whether the targets must come from the ``allow_borrow = true`` attempt.

    The no-borrow attempt returns only once ``fits(false)`` holds, and fill-back keeps it
    holding (FB-2), so a result that does not fit without borrowing is from the borrowing
    attempt. Without a cohort or with ``reclaimWithinCohort = Never`` both cohort buckets are
    empty (CL-GEN-2), so ``no_other`` holds and that attempt is the only one (CL-ATT-1).
    """
    pcq = _cq(scenario, scenario.cluster_queue)
    if pcq.cohort is None or pcq.preemption.reclaim_within_cohort == PreemptionPolicy.NEVER:
        return True
    return not _fits(scenario, remaining, allow_borrowing=False)


def check_minimality(scenario: Scenario, targets: Sequence[Target]) -> None:
    """Property (b): with the targets removed, re-adding any one target breaks the fit.

    Why this holds (FB-2, GT-6): let ``b`` be the attempt's ``allow_borrow``.

    * A target that fill-back tested and kept: re-adding it then gave ``not fits(b)``. At the
      end, the removed set is a subset of what was removed at that moment (later iterations
      only re-add workloads), and usage (hence every ``fits``) is monotone in the admitted set,
      so re-adding it to the final state still gives ``not fits(b)``.
    * The last selected target (never reconsidered, GT-6): just before its removal the
      preemptor did not fit — either an earlier removal's fit test failed, or nothing had been
      removed yet and the scenario starts with ``not fits(true)`` (hence ``not fits(false)``).
      Fill-back only re-added workloads since, so again ``not fits(b)``.

    ``not fits(true)`` implies ``not fits(false)``, so ``not fits(false)`` holds whichever
    attempt ran; when the borrowing attempt certainly ran, ``not fits(true)`` holds as well.
    """
    if not targets:
        return
    remaining = _remaining(scenario, targets)
    borrowing = _borrow_attempt_certain(scenario, remaining)
    for t in targets:
        again = [*remaining, t.workload]
        assert not _fits(scenario, again, allow_borrowing=False), (
            f"re-adding target {t.workload.key} still fits without borrowing: the set is not minimal (FB-2)"
        )
        if borrowing:
            assert not _fits(scenario, again, allow_borrowing=True), (
                f"re-adding target {t.workload.key} still fits (borrowing attempt): the set is not minimal (FB-2)"
            )


def check_empty_result_justified(scenario: Scenario, targets: Sequence[Target]) -> None:
    """An empty result means even evicting every own-CQ candidate does not make room.

    Every attempt list contains ``allow_borrow = true`` (CL-ATT-1). In that attempt own-CQ
    candidates are always valid (CL-VALID-1) and all of them are removed unless the preemptor
    fits earlier — which would give a non-empty result, since fill-back never drops the last
    target. So ``[]`` implies ``not fits(true)`` with all own-CQ candidates (and possibly more)
    removed, hence (monotonicity) with exactly the own-CQ candidates removed.
    """
    if targets:
        return
    entry = SpecTree(scenario, scenario.workloads)
    own = {
        w.key
        for w in scenario.workloads
        if w.cluster_queue == scenario.cluster_queue and expected_variant(scenario, entry, w).variant == WITHIN_CQ
    }
    if not own:
        return
    remaining = [w for w in scenario.workloads if w.key not in own]
    assert not _fits(scenario, remaining, allow_borrowing=True), (
        f"no targets, yet evicting the own-CQ candidates {sorted(own)} makes the preemptor fit (CL-ATT-2)"
    )


# --------------------------------------------------------------------------- reference


@dataclass(frozen=True)
class _Cand:
    workload: Workload
    variant: str
    lca: Node | None


def _ord_key(scenario: Scenario, w: Workload) -> tuple[int, int, int, float, str]:
    """ORD-1, ORD-2, ORD-4, ORD-5, ORD-6 as a sort key (AFS and cost are off, ORD-3/COST-2).

    Smaller sorts first: evicted, other ClusterQueue, lower EP, *later* reservation time
    (``now`` when unset), smaller uid.
    """
    reserved = w.quota_reserved_at if w.quota_reserved_at is not None else scenario.now
    return (
        0 if w.evicted else 1,
        1 if w.cluster_queue == scenario.cluster_queue else 0,
        effective_priority(w, scenario.config),
        -reserved.timestamp(),
        w.uid,
    )


def ord_ties_across_queues(scenario: Scenario) -> bool:
    """Do two workloads of different ClusterQueues tie on every ORD criterion?

    Only then does the order among candidates depend on the traversal order (CL-GEN-7a),
    which tests must not assert; ties inside one queue are broken by key in every reading.
    """
    seen: dict[tuple[int, int, int, float, str], str] = {}
    for w in scenario.workloads:
        key = _ord_key(scenario, w)
        if seen.setdefault(key, w.cluster_queue) != w.cluster_queue:
            return True
    return False


def reference_classic(scenario: Scenario) -> list[tuple[str, str]]:
    """A direct transcription of CL-GEN/CL-VAR/CL-VALID/CL-ATT/FB-2 (classic, AFS/NP/cost off).

    Returns ``(workload key, reason)`` in GT-7 order. Quota is recomputed from the admitted
    set at every step (Q-6), which equals Q-7's incremental updates for these small amounts.
    """
    config = scenario.config
    assert config.fair_sharing is None and not config.admission_fair_sharing
    assert not config.preemption_cost_enabled and not config.non_preemptible_enabled
    pcq = _cq(scenario, scenario.cluster_queue)
    p_node: Node = ("cq", pcq.name)
    frnp = scenario.assignment.preempt
    requests = scenario.assignment.requests
    entry = SpecTree(scenario, scenario.workloads)
    by_queue: dict[str, list[Workload]] = {}
    for w in sorted(scenario.workloads, key=lambda w: w.key):
        by_queue.setdefault(w.cluster_queue, []).append(w)
    ep_p = effective_priority(scenario.preemptor, config)

    def classify(w: Workload, adv: bool) -> str | None:  # CL-VAR-1
        if not uses_frnp(w, frnp):
            return None
        same = w.cluster_queue == pcq.name
        policy = pcq.preemption.within_cluster_queue if same else pcq.preemption.reclaim_within_cohort
        if not policy_allows(policy, scenario.preemptor, w, config):
            return None
        if same:
            return WITHIN_CQ
        if adv:
            return HIERARCHICAL_RECLAIM
        allowed, threshold = borrow_within_cohort(pcq)
        if not allowed:
            return RECLAIM_WITHOUT_BORROWING
        ep_c = effective_priority(w, config)
        if ep_c >= ep_p or (threshold is not None and ep_c > threshold):
            return RECLAIM_WITHOUT_BORROWING
        return RECLAIM_WHILE_BORROWING

    # CL-GEN-1
    same_queue: list[_Cand] = []
    if pcq.preemption.within_cluster_queue != PreemptionPolicy.NEVER:
        for w in by_queue.get(pcq.name, []):
            v = classify(w, False)
            if v is not None:
                same_queue.append(_Cand(w, v, None))

    # CL-GEN-2/3
    hierarchy: list[_Cand] = []
    priority: list[_Cand] = []

    def collect(node: Node, subtree_root: Node, skip: Node | None, adv: bool, bucket: list[_Cand]) -> None:
        children = sorted(entry.children[node], key=lambda n: n[1])
        for k in (n for n in children if n[0] == "cohort"):
            if k == skip or entry.within_nominal(k, frnp):
                continue
            collect(k, subtree_root, skip, adv, bucket)
        for q in (n for n in children if n[0] == "cq"):
            if q == p_node or q == skip or entry.within_nominal(q, frnp):
                continue
            for w in by_queue.get(q[1], []):
                v = classify(w, adv)
                if v is not None:
                    bucket.append(_Cand(w, v, subtree_root))

    if pcq.cohort is not None and pcq.preemption.reclaim_within_cohort != PreemptionPolicy.NEVER:
        adv, rem = entry.fit_probe(p_node, requests)
        prev = p_node
        for a in entry.ancestors(p_node):
            collect(a, a, prev, adv, hierarchy if adv else priority)
            fits_a, rem = entry.fit_probe(a, rem)
            adv = adv or fits_a
            prev = a

    # CL-GEN-7 (stable sorts; the traversal order above is CL-GEN-7a's)
    buckets = [sorted(b, key=lambda c: _ord_key(scenario, c.workload)) for b in (hierarchy, priority, same_queue)]
    ordered = [c for b in buckets for c in b if c.workload.evicted] + [
        c for b in buckets for c in b if not c.workload.evicted
    ]

    # CL-ATT-1
    no_other = not hierarchy and not priority
    no_hier = not hierarchy
    forbidden = not borrow_within_cohort(pcq)[0]
    under = all(entry.sq(p_node, fr) > entry.u(p_node, fr) for fr in frnp)
    if no_other or (forbidden and not under):
        attempts = [True]
    elif forbidden and no_hier:
        attempts = [False, True]
    else:
        attempts = [True, False]

    def tree_without(removed: Iterable[str]) -> SpecTree:
        gone = set(removed)
        return SpecTree(scenario, [w for w in scenario.workloads if w.key not in gone])

    def valid(c: _Cand, allow_borrowing: bool, tree: SpecTree) -> bool:  # CL-VALID-1
        if c.workload.cluster_queue == pcq.name:
            return True
        if allow_borrowing and c.variant == RECLAIM_WITHOUT_BORROWING:
            return False
        q: Node = ("cq", c.workload.cluster_queue)
        if tree.within_nominal(q, frnp):
            return False
        for a in tree.ancestors(q):
            if a == c.lca:
                break
            if tree.within_nominal(a, frnp):
                return False
        return True

    # CL-ATT-2 with FB-2
    for allow_borrowing in attempts:
        selected: list[_Cand] = []
        tree = entry
        for c in ordered:
            if not valid(c, allow_borrowing, tree):
                continue
            selected.append(c)
            tree = tree_without(s.workload.key for s in selected)
            if tree.fits(pcq.name, requests, allow_borrowing=allow_borrowing):
                result = list(selected)
                for i in range(len(result) - 2, -1, -1):
                    without_i = [t.workload.key for j, t in enumerate(result) if j != i]
                    if tree_without(without_i).fits(pcq.name, requests, allow_borrowing=allow_borrowing):
                        result[i] = result[-1]
                        result.pop()
                return [(c.workload.key, REASON_OF_VARIANT[c.variant]) for c in result]
    return []

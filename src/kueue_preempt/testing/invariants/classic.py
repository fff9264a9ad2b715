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

import functools
import itertools
from dataclasses import dataclass
from typing import Iterable, Sequence

from kueue_preempt import ClusterQueue, PreemptionPolicy, Target, Workload
from kueue_preempt.testing.invariants.policy import (
    ord_key,
    borrow_within_cohort,
    effective_priority,
    policy_allows,
    uses_frnp,
)
from kueue_preempt.testing.invariants.quota import Node, SpecTree
from kueue_preempt.testing.strategies.classic import ClassicScenario as Scenario

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
    "check_attempt",
    "check_matches_reference",
    "check_classic",
    "ord_ties_across_queues",
    "candidate_order_is_strict",
    "reference_classic",
    "reference_classic_answers",
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
    assert got == spec, f"GT-5/Q-9: Snapshot.fits(allow_borrowing={allow_borrowing}) = {got}, spec model says {spec}"
    return got


def check_target_set_shape(scenario: Scenario, targets: Sequence[Target]) -> None:
    """DM-9: targets are distinct admitted workloads of the scenario (never the preemptor,
    GT-1), each with its own ClusterQueue; a candidate is selected at most once (CL-ATT-2)."""
    _check_shape(scenario.workloads, scenario.preemptor, targets)


def _check_shape(workloads: Sequence[Workload], preemptor: Workload, targets: Sequence[Target]) -> None:
    """The target-set shape every preemption kind shares (classic and fair sharing)."""
    by_key = {w.key: w for w in workloads}
    keys = [t.workload.key for t in targets]
    assert len(keys) == len(set(keys)), f"CL-ATT-2: duplicate targets: {keys}"
    for t in targets:
        assert t.workload.key in by_key, f"DM-9: target {t.workload.key} is not an admitted workload"
        assert t.workload == by_key[t.workload.key], f"DM-9: target {t.workload.key} differs from the admitted object"
        assert t.workload.key != preemptor.key, "GT-1: the preemptor cannot be its own target"
        assert t.cluster_queue == t.workload.cluster_queue, (
            f"DM-9: target {t.workload.key}: cluster_queue {t.cluster_queue!r} != admission {t.workload.cluster_queue!r}"
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
        assert uses_frnp(w, frnp), f"POL-9: {w.key} uses none of the FRs needing preemption {sorted(map(str, frnp))}"
        if w.cluster_queue == pcq.name:
            assert reason == "InClusterQueue", f"CL-VAR-2: {w.key}: same-CQ target has reason {reason}"
            assert policy_allows(pcq.preemption.within_cluster_queue, scenario.preemptor, w, scenario.config), (
                f"POL-6: {w.key}: withinClusterQueue={pcq.preemption.within_cluster_queue.value} does not allow it"
            )
        else:
            assert reason in ("InCohortReclamation", "InCohortReclaimWhileBorrowing"), (
                f"CL-VAR-2: {w.key}: cross-CQ target has reason {reason}"
            )
            assert pcq.cohort is not None, f"CL-GEN-2: {w.key}: cross-CQ target but the preemptor CQ has no cohort"
            assert pcq.preemption.reclaim_within_cohort != PreemptionPolicy.NEVER, (
                f"CL-GEN-2: {w.key}: cross-CQ target with reclaimWithinCohort=Never"
            )
            assert entry.root(("cq", w.cluster_queue)) == entry.root(("cq", pcq.name)), (
                f"CL-GEN-3: {w.key}: target from {w.cluster_queue}, outside the preemptor's tree"
            )
            assert policy_allows(pcq.preemption.reclaim_within_cohort, scenario.preemptor, w, scenario.config), (
                f"POL-6: {w.key}: reclaimWithinCohort={pcq.preemption.reclaim_within_cohort.value} does not allow it"
            )
            if reason == "InCohortReclaimWhileBorrowing":
                allowed, threshold = borrow_within_cohort(pcq)
                ep_c = effective_priority(w, scenario.config)
                ep_p = effective_priority(scenario.preemptor, scenario.config)
                assert allowed, f"CL-VAR-1: {w.key}: InCohortReclaimWhileBorrowing but borrowWithinCohort is forbidden (POL-8)"
                assert ep_c < ep_p, f"CL-VAR-1: {w.key}: InCohortReclaimWhileBorrowing with EP {ep_c} >= preemptor EP {ep_p}"
                assert threshold is None or ep_c <= threshold, (
                    f"CL-VAR-1: {w.key}: InCohortReclaimWhileBorrowing with EP {ep_c} above threshold {threshold}"
                )
        expected = expected_variant(scenario, entry, w)
        assert expected.variant is not None, f"CL-GEN-1/CL-GEN-3: {w.key} ({reason}) is not a candidate per the spec: {expected.why}"
        assert reason == REASON_OF_VARIANT[expected.variant], (
            f"CL-VAR-2: {w.key}: reason {reason}, spec variant {expected.variant} ({expected.why}) gives "
            f"{REASON_OF_VARIANT[expected.variant]}"
        )
        without_borrowing = without_borrowing or expected.variant == RECLAIM_WITHOUT_BORROWING
    if without_borrowing:
        assert _fits(scenario, _remaining(scenario, targets), allow_borrowing=False), (
            "CL-VAR-3/CL-ATT-2: a RECLAIM_WITHOUT_BORROWING target was used, so the no-borrow attempt selected "
            "the set, yet the preemptor does not fit without borrowing after removing it"
        )


def check_fits_after_removal(scenario: Scenario, targets: Sequence[Target]) -> None:
    """Property (a)/(f), GT-4: a non-empty result is complete — the preemptor fits (borrowing)."""
    if not targets:
        return
    assert _fits(scenario, _remaining(scenario, targets), allow_borrowing=True), (
        "GT-4: the preemptor does not fit after removing every target"
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
            f"FB-2: re-adding target {t.workload.key} still fits without borrowing: the set is not minimal"
        )
        if borrowing:
            assert not _fits(scenario, again, allow_borrowing=True), (
                f"FB-2: re-adding target {t.workload.key} still fits (borrowing attempt): the set is not minimal"
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
        f"CL-ATT-2: no targets, yet evicting the own-CQ candidates {sorted(own)} makes the preemptor fit"
    )


# --------------------------------------------------------------------------- attempts


def _attempts(scenario: Scenario, entry: SpecTree) -> list[bool]:
    """CL-ATT-1's attempt list, with the CL-GEN-8 flags from the spec classification."""
    pcq = _cq(scenario, scenario.cluster_queue)
    variants = {expected_variant(scenario, entry, w).variant for w in scenario.workloads}
    no_hier = HIERARCHICAL_RECLAIM not in variants
    no_other = no_hier and not variants & {RECLAIM_WITHOUT_BORROWING, RECLAIM_WHILE_BORROWING}
    forbidden = not borrow_within_cohort(pcq)[0]
    p_node: Node = ("cq", pcq.name)
    under = all(entry.sq(p_node, fr) > entry.u(p_node, fr) for fr in scenario.assignment.preempt)
    if no_other or (forbidden and not under):
        return [True]
    if forbidden and no_hier:
        return [False, True]
    return [True, False]


def _surely_evicted_by_failed_attempt(scenario: Scenario, entry: SpecTree, allow_borrowing: bool) -> list[set[str]]:
    """What an attempt that fails has certainly evicted, one set per possible first candidate.

    Own-queue candidates are always valid (CL-VALID-1), so a failed attempt evicted them all.
    Every cross-queue candidate is valid at entry (CL-GEN-3/5 check the same conditions),
    validity only gets lost by removals, and removing own-queue workloads never changes the
    queues and cohorts CL-VALID-1 looks at (they lie outside the preemptor's branch). So the
    first cross-queue candidate the attempt may use (CL-VAR-3), in CL-GEN-7 order, is evicted
    too. Under ORD ties any candidate of the first tie class can be that one: one set each.
    (Without such a candidate, or when ORD is cyclic on them, just the own-queue set.)
    """
    own: set[str] = set()
    cross: dict[tuple[int, int], list[_Cand]] = {}
    for w in scenario.workloads:
        variant = expected_variant(scenario, entry, w).variant
        if variant == WITHIN_CQ:
            own.add(w.key)
        elif variant is not None and not (allow_borrowing and variant == RECLAIM_WITHOUT_BORROWING):
            # CL-GEN-7: evicted before not evicted, then the hierarchy bucket before the priority one.
            group = (0 if w.evicted else 1, 0 if variant == HIERARCHICAL_RECLAIM else 1)
            cross.setdefault(group, []).append(_Cand(w, variant, None))
    if not cross:
        return [own]
    classes = _tie_classes(scenario, cross[min(cross)])
    if classes is None:
        return [own]
    return [own | {c.workload.key} for c in classes[0]]


def _assert_attempt_can_fail(
    scenario: Scenario, entry: SpecTree, allow_borrowing: bool, attempts: list[bool], why: str
) -> None:
    options = _surely_evicted_by_failed_attempt(scenario, entry, allow_borrowing)
    if all(_fits(scenario, [w for w in scenario.workloads if w.key not in gone], allow_borrowing=allow_borrowing) for gone in options):
        assert False, (
            f"CL-ATT-2: {why}, so the allow_borrow={allow_borrowing} attempt (attempts {attempts}) failed; but "
            f"it surely evicts one of {[sorted(g) for g in options]} (own-queue candidates, then its first "
            f"cross-queue candidate, CL-VALID-1, CL-GEN-7) and the preemptor then fits"
        )


def check_attempt(scenario: Scenario, targets: Sequence[Target]) -> None:
    """CL-ATT-1/CL-ATT-2: the result is what the spec's attempt list returns.

    The attempt list follows from the entry state (CL-ATT-1, CL-GEN-8). The attempt that
    produced a non-empty set is known when a target is RECLAIM_WITHOUT_BORROWING (only the
    no-borrow attempt may use it, CL-VAR-3), when the set does not fit without borrowing
    (the no-borrow attempt returns only on ``fits(false)``, FB-2 keeps it), or when the list
    has one attempt. Then:

    * the attempt must be in the list;
    * the set is minimal in that attempt's own fit sense (FB-2, see :func:`check_minimality`
      for the argument): re-adding any target breaks ``fits(allow_borrow)``;
    * every attempt before it failed.

    An empty result means every attempt failed. An attempt that fails evicted every
    own-queue candidate and its first usable cross-queue candidate without ever fitting
    (see ``_surely_evicted_by_failed_attempt``), so by monotonicity the preemptor does not
    fit in that attempt's sense with just those evicted. If it does, the attempt would have
    returned a set.
    """
    entry = SpecTree(scenario, scenario.workloads)
    attempts = _attempts(scenario, entry)
    if not targets:
        for allow_borrowing in attempts:
            _assert_attempt_can_fail(scenario, entry, allow_borrowing, attempts, "no targets")
        return
    variants = [expected_variant(scenario, entry, t.workload).variant for t in targets]
    remaining = _remaining(scenario, targets)
    attempt: bool | None = None
    if RECLAIM_WITHOUT_BORROWING in variants:
        attempt = False
        assert False in attempts, (
            f"CL-ATT-1: a RECLAIM_WITHOUT_BORROWING target, but the attempt list is {attempts} "
            "(no no-borrow attempt runs, CL-VAR-3)"
        )
    elif attempts == [True] or not _fits(scenario, remaining, allow_borrowing=False):
        attempt = True
    if attempt is None:
        return
    for t in targets:
        assert not _fits(scenario, [*remaining, t.workload], allow_borrowing=attempt), (
            f"FB-2: re-adding target {t.workload.key} still fits with allow_borrow={attempt} "
            f"(the attempt that produced the set): it is not minimal"
        )
    for earlier in attempts[: attempts.index(attempt)]:
        _assert_attempt_can_fail(
            scenario, entry, earlier, attempts, f"the targets come from the allow_borrow={attempt} attempt"
        )


# --------------------------------------------------------------------------- reference


@dataclass(frozen=True)
class _Cand:
    workload: Workload
    variant: str
    lca: Node | None


def _ord_key(scenario: Scenario, w: Workload) -> tuple[int, int, int, float, str]:
    """ORD-1..ORD-6 (admission fair sharing and cost off) for this scenario's preemptor."""
    return ord_key(w, cluster_queue=scenario.cluster_queue, config=scenario.config, now=scenario.now)


def _ord_cmp(scenario: Scenario, a: Workload, b: Workload) -> int:
    """ORD-1..ORD-6 as a comparator: negative when ``a`` is preempted first (ORD-3 with AFS)."""
    ka, kb = _ord_key(scenario, a), _ord_key(scenario, b)
    if ka[:2] != kb[:2]:
        return -1 if ka[:2] < kb[:2] else 1
    if (
        scenario.config.admission_fair_sharing
        and a.cluster_queue == b.cluster_queue
        and a.local_queue != b.local_queue
        and a.local_queue_fs_usage is not None
        and b.local_queue_fs_usage is not None
        and a.local_queue_fs_usage != b.local_queue_fs_usage
    ):
        return -1 if a.local_queue_fs_usage > b.local_queue_fs_usage else 1  # ORD-3: higher usage first
    if ka[2:] != kb[2:]:
        return -1 if ka[2:] < kb[2:] else 1
    return 0


def ord_ties_across_queues(scenario: Scenario) -> bool:
    """Do two workloads of different ClusterQueues tie on every ORD criterion?

    Then the library's order among them follows its traversal order (CL-GEN-7a, a library
    decision). Inside one queue the library breaks ties by key, also a library decision:
    Kueue leaves them open (ORD-7), so a checker of another scheduler must accept every
    tie order — :func:`reference_classic_answers` does.
    """
    seen: dict[tuple[int, int, int, float, str], str] = {}
    for w in scenario.workloads:
        key = _ord_key(scenario, w)
        if seen.setdefault(key, w.cluster_queue) != w.cluster_queue:
            return True
    return False


def _buckets(scenario: Scenario, entry: SpecTree) -> tuple[list[_Cand], list[_Cand], list[_Cand]]:
    """CL-GEN-1..CL-GEN-3: the hierarchy, priority and same-queue buckets, in traversal order."""
    config = scenario.config
    pcq = _cq(scenario, scenario.cluster_queue)
    p_node: Node = ("cq", pcq.name)
    frnp = scenario.assignment.preempt
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
        adv, rem = entry.fit_probe(p_node, scenario.assignment.requests)
        prev = p_node
        for a in entry.ancestors(p_node):
            collect(a, a, prev, adv, hierarchy if adv else priority)
            fits_a, rem = entry.fit_probe(a, rem)
            adv = adv or fits_a
            prev = a
    return hierarchy, priority, same_queue


def _run(scenario: Scenario, entry: SpecTree, buckets: Sequence[Sequence[_Cand]], no_other: bool, no_hier: bool) -> list[tuple[str, str]]:
    """CL-GEN-7's concatenation of sorted buckets, then CL-ATT-1/CL-ATT-2 with CL-VALID-1 and FB-2."""
    pcq = _cq(scenario, scenario.cluster_queue)
    p_node: Node = ("cq", pcq.name)
    frnp = scenario.assignment.preempt
    requests = scenario.assignment.requests
    ordered = [c for b in buckets for c in b if c.workload.evicted] + [
        c for b in buckets for c in b if not c.workload.evicted
    ]

    # CL-ATT-1
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


def reference_classic(scenario: Scenario) -> list[tuple[str, str]]:
    """A direct transcription of CL-GEN/CL-VAR/CL-VALID/CL-ATT/FB-2 (classic, AFS/NP/cost off).

    Returns ``(workload key, reason)`` in GT-7 order, resolving ORD ties like the library
    (traversal order CL-GEN-7a, stable sort ORD-7). Quota is recomputed from the admitted
    set at every step (Q-6), which equals Q-7's incremental updates for these small amounts.
    """
    config = scenario.config
    assert config.fair_sharing is None and not config.admission_fair_sharing
    assert not config.preemption_cost_enabled and not config.non_preemptible_enabled
    entry = SpecTree(scenario, scenario.workloads)
    hierarchy, priority, same_queue = _buckets(scenario, entry)
    buckets = [sorted(b, key=lambda c: _ord_key(scenario, c.workload)) for b in (hierarchy, priority, same_queue)]
    return _run(scenario, entry, buckets, not hierarchy and not priority, not hierarchy)


def _tie_classes(scenario: Scenario, bucket: Sequence[_Cand]) -> list[list[_Cand]] | None:
    """The bucket sorted by ORD as classes of mutually tied candidates; ``None`` when ORD is
    not a strict weak order on it (an ORD-3 cycle, ORD-9), so the sorted order is not fixed."""
    ws = [c.workload for c in bucket]
    n = len(ws)
    cmp = [[_ord_cmp(scenario, ws[i], ws[j]) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(n):
            for k in range(n):
                # Transitivity of "before" and of "tied", the two laws a strict weak order needs.
                if cmp[i][j] < 0 and cmp[j][k] < 0 and cmp[i][k] >= 0:
                    return None
                if cmp[i][j] == 0 and cmp[j][k] == 0 and cmp[i][k] != 0:
                    return None

    def by_ord(i: int, j: int) -> int:
        return cmp[i][j]

    order = sorted(range(n), key=functools.cmp_to_key(by_ord))
    classes: list[list[_Cand]] = []
    for pos, i in enumerate(order):
        if pos and cmp[order[pos - 1]][i] == 0:
            classes[-1].append(bucket[i])
        else:
            classes.append([bucket[i]])
    return classes


def candidate_order_is_strict(scenario: Scenario) -> bool:
    """Is ORD (ORD-1..ORD-6, ORD-3 with admission fair sharing) a strict total order on every
    candidate bucket (CL-GEN-7)? Then the candidate order, hence the answer, is unique."""
    entry = SpecTree(scenario, scenario.workloads)
    for bucket in _buckets(scenario, entry):
        classes = _tie_classes(scenario, bucket)
        if classes is None or any(len(cls) > 1 for cls in classes):
            return False
    return True


def reference_classic_answers(scenario: Scenario, *, limit: int = 24) -> list[list[tuple[str, str]]] | None:
    """Every answer the spec allows: :func:`reference_classic` under each order of tied candidates.

    Kueue sorts candidates with an unstable sort (ORD-7), so candidates that tie on every
    ORD criterion (equal or empty UIDs, ORD-6) may come in any relative order; the traversal
    order (CL-GEN-7a) is only the library's choice. Each bucket is sorted by ORD-1..ORD-6
    (ORD-3 with admission fair sharing) and every permutation of each class of tied
    candidates is run through CL-VALID-1, CL-ATT-1/2 and FB-2. Returns the distinct answers
    (``(key, reason)`` lists in GT-7 order), or ``None`` when the spec does not fix the
    order (ORD is cyclic on a bucket, ORD-9), when more than ``limit`` orders would have to
    be run, or when fair sharing, preemption cost or non-preemptible workloads are on.

    Cost: one :func:`reference_classic`-sized run per order (at most ``limit``).
    """
    config = scenario.config
    if config.fair_sharing is not None or config.preemption_cost_enabled or config.non_preemptible_enabled:
        return None
    entry = SpecTree(scenario, scenario.workloads)
    hierarchy, priority, same_queue = _buckets(scenario, entry)
    per_bucket: list[list[list[_Cand]]] = []
    count = 1
    for bucket in (hierarchy, priority, same_queue):
        classes = _tie_classes(scenario, bucket)
        if classes is None:
            return None
        options = [[c for cls in classes for c in cls]]
        tied = [cls for cls in classes if len(cls) > 1]
        if tied:
            options = [
                [c for part in parts for c in part]
                for parts in itertools.product(
                    *([list(p) for p in itertools.permutations(cls)] if len(cls) > 1 else [cls] for cls in classes)
                )
            ]
        count *= len(options)
        if count > limit:
            return None
        per_bucket.append(options)
    answers: list[list[tuple[str, str]]] = []
    for buckets in itertools.product(*per_bucket):
        answer = _run(scenario, entry, buckets, not hierarchy and not priority, not hierarchy)
        if answer not in answers:
            answers.append(answer)
    return answers


def check_matches_reference(scenario: Scenario, targets: Sequence[Target], *, ordered: bool = False) -> None:
    """The result is one of the answers the spec allows (:func:`reference_classic_answers`).

    Compared as a set of ``(key, reason)`` (GT-7: callers should treat the result as a set);
    ``ordered=True`` also compares the order of selection (GT-7, FB-2's swap-removal). Does
    nothing when the spec leaves the answer open (see :func:`reference_classic_answers`).
    """
    answers = reference_classic_answers(scenario)
    if answers is None:
        return
    got = [(t.workload.key, t.reason.value) for t in targets]
    if ordered:
        assert got in answers, f"GT-7/CL-ATT-2: the result {got} is none of the spec's answers {answers}"
        return
    assert any(set(got) == set(a) and len(got) == len(a) for a in answers), (
        f"CL-ATT-2/CL-VALID-1/FB-2: the targets {sorted(got)} are none of the spec's answers "
        f"{[sorted(a) for a in answers]} (CL-GEN-7 order, lazy validity, attempts, fill-back)"
    )


def check_classic(scenario: Scenario, targets: Sequence[Target]) -> None:
    """Every classic checker, the specific rules first, then the reference answers.

    :func:`check_target_set_shape`, :func:`check_targets_policy` (POL, CL-GEN, CL-VAR-2),
    :func:`check_fits_after_removal` (GT-4), :func:`check_minimality` (FB-2),
    :func:`check_empty_result_justified`, :func:`check_attempt` (CL-ATT-1/2) and
    :func:`check_matches_reference` (the answers the spec allows, when it fixes them: no
    ORD cycle and few tie orders). The last one pins down what the others leave open —
    e.g. an empty answer where a cross-queue reclaim makes room but the attempt's first
    candidate could be a tied workload that frees nothing.

    Cost: a few quota-model recomputations per target, plus up to 24 reference runs.
    """
    check_target_set_shape(scenario, targets)
    check_targets_policy(scenario, targets)
    check_fits_after_removal(scenario, targets)
    check_minimality(scenario, targets)
    check_empty_result_justified(scenario, targets)
    check_attempt(scenario, targets)
    check_matches_reference(scenario, targets)

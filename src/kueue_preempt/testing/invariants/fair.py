"""Independent checkers for fair-sharing preemption results, written from the spec (FS-*).

Nothing here calls the library's fair-sharing, DRS, ordering or policy helpers: the dominant
resource share (FS-DRS-1..FS-DRS-4, with Q-10's potential available), the almost-LCA
(FS-LCA-1), the strategies (FS-STRAT-1/2), the candidates (FS-CAND-1..3), the target
ClusterQueue ordering (FS-ORD-2..5), the passes (FS-RUN-1..7, FS-NOM-1) and fill-back (FB-2)
are transcribed below over :class:`~kueue_preempt.testing.invariants.quota.SpecTree`, a
recomputing quota model. The library's public :class:`~kueue_preempt.Snapshot` is used only
for the fit predicate of a result, cross-checked against that model.

:func:`reference_fair` runs the transcribed algorithm; :func:`fair_answers` runs it for every
order of the candidates that ORD leaves tied (ORD-7), which gives every answer the spec
accepts. :func:`check_fair` runs every checker and raises ``AssertionError`` naming the rule.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Iterator, Sequence

from kueue_preempt import ClusterQueue, PreemptionPolicy, Target, Workload
from kueue_preempt.testing.invariants.classic import _check_shape
from kueue_preempt.testing.invariants.policy import ord_key, policy_allows, uses_frnp
from kueue_preempt.testing.invariants.quota import Node, SpecTree, potential_available, sq_keys
from kueue_preempt.testing.strategies.fair import FairScenario

__all__ = [
    "IN_CLUSTER_QUEUE",
    "IN_COHORT_RECLAMATION",
    "IN_COHORT_FAIR_SHARING",
    "Share",
    "FairStep",
    "FairRun",
    "drs",
    "compare_drs",
    "almost_lca",
    "fair_candidates",
    "nominal_ok",
    "expected_reason",
    "check_fair_target_set_shape",
    "check_fair_candidates",
    "check_fair_reasons",
    "check_fair_fits_after_removal",
    "check_fair_minimality",
    "check_fair_empty_result",
    "check_fair_strategy_steps",
    "check_fair_reference",
    "check_fair",
    "reference_fair",
    "fair_run",
    "fair_answers",
]

IN_CLUSTER_QUEUE = "InClusterQueue"
IN_COHORT_RECLAMATION = "InCohortReclamation"
IN_COHORT_FAIR_SHARING = "InCohortFairSharing"
_S2A = "LessThanOrEqualToFinalShare"
_S2B = "LessThanInitialShare"

# --------------------------------------------------------------------------- DRS (FS-DRS)


@dataclass(frozen=True)
class Share:
    """An FS-DRS-1 value: ``(ratio, weight, borrowing, borrowed_frs)``."""

    ratio: float
    weight: float
    borrowing: bool

    def weighted(self) -> float:
        """FS-DRS-3: 0 when the ratio is 0, +inf with weight 0, else ratio / weight."""
        if self.ratio == 0:
            return 0.0
        if self.weight == 0:
            return float("inf")
        return self.ratio / self.weight

    def __str__(self) -> str:
        return f"(ratio {self.ratio:g}, weight {self.weight:g}{', borrowing' if self.borrowing else ''})"


NEG = Share(-1.0, 1.0, False)
"""FS-DRS-5: below every real share."""


def _weight(scenario: FairScenario, n: Node) -> float:
    if n[0] == "cq":
        return next(cq.fair_weight for cq in scenario.cluster_queues if cq.name == n[1])
    # An implicit cohort is always a root, whose weight is irrelevant (FS-W-4).
    return next((c.fair_weight for c in scenario.cohorts if c.name == n[1]), 1.0)


def drs(scenario: FairScenario, tree: SpecTree, n: Node) -> Share:
    """FS-DRS-1 of node ``n`` in ``tree`` (lendable capacity from Q-10 at the parent)."""
    weight = _weight(scenario, n)
    parent = tree.parent[n]
    if parent is None:
        return Share(0.0, weight, False)
    borrowed: dict[str, int] = {}
    for fr in sq_keys(tree, n):
        over = tree.u(n, fr) - tree.sq(n, fr)
        if over > 0:
            borrowed[fr.resource] = borrowed.get(fr.resource, 0) + over
    if not borrowed:
        return Share(0.0, weight, False)
    root_keys = sq_keys(tree, tree.root(n))
    ratio = 0.0
    for resource, amount in borrowed.items():
        lendable = sum(potential_available(tree, parent, fr) for fr in root_keys if fr.resource == resource)
        if lendable > 0:
            ratio = max(ratio, float(amount) * 1000.0 / float(lendable))
    return Share(ratio, weight, True)


def compare_drs(a: Share, b: Share) -> int:
    """FS-DRS-4: zero-weight borrowers are +inf and compare among themselves by ratio."""
    za, zb = a.weight == 0 and a.ratio != 0, b.weight == 0 and b.ratio != 0
    if za and zb:
        x, y = a.ratio, b.ratio
    elif za or zb:
        return 1 if za else -1
    else:
        x, y = a.weighted(), b.weighted()
    return (x > y) - (x < y)


def almost_lca(tree: SpecTree, target: Node, preemptor: Node) -> tuple[Node, Node]:
    """FS-LCA-1: ``(almost(preemptor), almost(target))``, the children of the LCA on each side."""
    p_path = [preemptor, *tree.ancestors(preemptor)]
    t_path = [target, *tree.ancestors(target)]
    for i in range(1, len(t_path)):
        if t_path[i] in p_path:
            return p_path[p_path.index(t_path[i]) - 1], t_path[i - 1]
    raise AssertionError(f"FS-LCA-1: {target[1]} and {preemptor[1]} have no common ancestor")


# --------------------------------------------------------------------------- candidates


def _cq(scenario: FairScenario, name: str) -> ClusterQueue:
    return next(cq for cq in scenario.cluster_queues if cq.name == name)


def _ord_key(scenario: FairScenario, w: Workload) -> tuple[int, int, int, float, str]:
    """ORD-1..ORD-6 (admission fair sharing and cost off) for this scenario's preemptor."""
    return ord_key(w, cluster_queue=scenario.cluster_queue, config=scenario.config, now=scenario.now)


def fair_candidates(scenario: FairScenario) -> dict[str, str]:
    """FS-CAND-1/2 at entry: workload key -> why it is a candidate."""
    pcq = _cq(scenario, scenario.cluster_queue)
    frnp = scenario.assignment.preempt
    entry = SpecTree(scenario, scenario.workloads)
    root = entry.root(("cq", pcq.name))
    out: dict[str, str] = {}
    for w in scenario.workloads:
        if not uses_frnp(w, frnp):
            continue
        if w.cluster_queue == pcq.name:
            if policy_allows(pcq.preemption.within_cluster_queue, scenario.preemptor, w, scenario.config):
                out[w.key] = "FS-CAND-1"
            continue
        if pcq.cohort is None or pcq.preemption.reclaim_within_cohort == PreemptionPolicy.NEVER:
            continue
        q: Node = ("cq", w.cluster_queue)
        if entry.root(q) != root:
            continue
        if not any(entry.u(q, fr) > entry.sq(q, fr) for fr in frnp):
            continue
        if policy_allows(pcq.preemption.reclaim_within_cohort, scenario.preemptor, w, scenario.config):
            out[w.key] = "FS-CAND-2"
    return out


def nominal_ok(scenario: FairScenario) -> bool:
    """FS-NOM-1: gate on and the preemptor's queue, with the preemptor, within nominal on FRNP."""
    if not scenario.config.fair_sharing_preempt_within_nominal:
        return False
    tree = SpecTree(scenario, scenario.workloads)
    p: Node = ("cq", scenario.cluster_queue)
    requests = scenario.assignment.requests
    return all(tree.u(p, fr) + requests.get(fr, 0) <= tree.sq(p, fr) for fr in scenario.assignment.preempt)


def expected_reason(scenario: FairScenario, w: Workload) -> str:
    """MSG-1 for fair sharing: own queue, within-nominal shortcut (FS-NOM-1), strategy pass."""
    if w.cluster_queue == scenario.cluster_queue:
        return IN_CLUSTER_QUEUE
    return IN_COHORT_RECLAMATION if nominal_ok(scenario) else IN_COHORT_FAIR_SHARING


# --------------------------------------------------------------------------- the reference


@dataclass(frozen=True)
class FairStep:
    """One decision of a reference run about one workload."""

    workload: str
    cluster_queue: str
    rule: str
    taken: bool
    detail: str


@dataclass
class FairRun:
    """A reference run: its answer (GT-7 order) and every step that led to it."""

    targets: list[tuple[str, str]] = field(default_factory=list)
    steps: list[FairStep] = field(default_factory=list)


class _State:
    """Admitted workloads minus removals, optionally plus the preemptor's usage (FS-RUN-1)."""

    def __init__(self, scenario: FairScenario) -> None:
        self.scenario = scenario
        self.removed: set[str] = set()
        self.with_preemptor = False
        self._cache: dict[tuple[frozenset[str], bool], SpecTree] = {}

    def tree(self, *, extra_removed: str | None = None, with_preemptor: bool | None = None) -> SpecTree:
        removed = frozenset(self.removed if extra_removed is None else self.removed | {extra_removed})
        wp = self.with_preemptor if with_preemptor is None else with_preemptor
        key = (removed, wp)
        tree = self._cache.get(key)
        if tree is None:
            tree = SpecTree(self.scenario, [w for w in self.scenario.workloads if w.key not in removed])
            if wp:
                usage = tree.cq_usage[self.scenario.cluster_queue]
                for fr, v in self.scenario.assignment.requests.items():
                    usage[fr] = usage.get(fr, 0) + v
            self._cache[key] = tree
        return tree

    def fits(self) -> bool:
        """``fits_fs``: GT-5 with borrowing, without the simulated preemptor usage (FS-RUN-1)."""
        return self.tree(with_preemptor=False).fits(
            self.scenario.cluster_queue, self.scenario.assignment.requests, allow_borrowing=True
        )


def fair_run(scenario: FairScenario, candidate_order: Sequence[Workload] | None = None) -> FairRun:
    """FS-RUN-1 transcribed, with ``candidate_order`` as the input order of FS-CAND-3's stable sort.

    The default input order is by ``namespace/name`` key; it matters only for candidates
    that tie on every ORD criterion (ORD-7).
    """
    config = scenario.config
    assert config.fair_sharing is not None and not config.admission_fair_sharing
    assert not config.preemption_cost_enabled and not config.non_preemptible_enabled
    strategies = [s.value for s in config.fair_sharing.preemption_strategies] or [_S2A, _S2B]
    run = FairRun()
    kinds = fair_candidates(scenario)
    pool = sorted(scenario.workloads, key=lambda w: w.key) if candidate_order is None else list(candidate_order)
    cands = sorted((w for w in pool if w.key in kinds), key=lambda w: _ord_key(scenario, w))  # FS-CAND-3
    if not cands:
        return run
    state = _State(scenario)
    state.with_preemptor = True
    entry = state.tree()
    p_node: Node = ("cq", scenario.cluster_queue)
    p_ancestors = set(entry.ancestors(p_node))
    root = entry.root(p_node)
    taken: list[tuple[Workload, str]] = []

    def ordering(queues: dict[str, list[Workload]]) -> Iterator[Node]:
        """FS-ORD-2..5 over the current state; the caller pops or drops after each yield."""
        pruned: set[Node] = set()
        if entry.parent[p_node] is None:  # FS-ORD-2
            while p_node not in pruned and queues.get(p_node[1]):
                yield p_node
            return

        def next_target(c: Node) -> Node | None:  # FS-ORD-4
            tree = state.tree()
            children = sorted(tree.children[c], key=lambda n: n[1])
            best_q, d_q = None, NEG
            for q in (n for n in children if n[0] == "cq"):
                if q in pruned:
                    continue
                d = drs(scenario, tree, q)
                if (not d.borrowing and q != p_node) or not queues.get(q[1]):
                    pruned.add(q)
                elif best_q is not None and compare_drs(d, d_q) == 0:
                    if _ord_key(scenario, queues[q[1]][0]) < _ord_key(scenario, queues[best_q[1]][0]):
                        best_q = q
                elif compare_drs(d, d_q) > 0:
                    best_q, d_q = q, d
            best_k, d_k = None, NEG
            for k in (n for n in children if n[0] == "cohort"):
                if k in pruned:
                    continue
                d = drs(scenario, tree, k)
                if not d.borrowing and k not in p_ancestors:
                    pruned.add(k)
                elif compare_drs(d, d_k) >= 0:  # later equal wins (FS-ORD-5)
                    best_k, d_k = k, d
            if best_q is None and best_k is None:
                pruned.add(c)
                return None
            if best_k is not None and compare_drs(d_k, d_q) >= 0:
                return next_target(best_k)
            return best_q

        while root not in pruned:  # FS-ORD-3
            t = next_target(root)
            if t is not None:
                yield t

    def take(w: Workload, rule: str, reason: str, detail: str) -> bool:
        state.removed.add(w.key)
        taken.append((w, reason))
        run.steps.append(FairStep(w.key, w.cluster_queue, rule, True, detail))
        return state.fits()

    def shares(q: Node) -> tuple[Node, Share, Share]:
        tree = state.tree()
        p_almost, t_almost = almost_lca(tree, q, p_node)
        return t_almost, drs(scenario, tree, p_almost), drs(scenario, tree, t_almost)

    def allows(strategy: str, p_new: Share, t_old: Share, t_new: Share) -> tuple[bool, str]:
        if strategy == _S2A:  # FS-STRAT-1
            return compare_drs(p_new, t_new) <= 0, f"FS-STRAT-1: pNew {p_new} <= tNew {t_new}"
        return compare_drs(p_new, t_old) < 0, f"FS-STRAT-2: pNew {p_new} < tOld {t_old}"

    def rule_of(strategy: str) -> str:
        return "FS-STRAT-1" if strategy == _S2A else "FS-STRAT-2"

    # FS-RUN-2: the first pass
    queues: dict[str, list[Workload]] = {}
    for w in cands:
        queues.setdefault(w.cluster_queue, []).append(w)
    nom = nominal_ok(scenario)
    retry: list[Workload] = []
    ok = False
    for q in ordering(queues):
        if q == p_node:
            if take(queues[q[1]].pop(0), "FS-RUN-2", IN_CLUSTER_QUEUE, "own ClusterQueue, ORD order"):
                ok = True
                break
            continue
        if nom:
            if take(queues[q[1]].pop(0), "FS-NOM-1", IN_COHORT_RECLAMATION, "preemptor within nominal"):
                ok = True
                break
            continue
        t_almost, p_new, t_old = shares(q)
        done = False
        while queues[q[1]]:
            w = queues[q[1]].pop(0)
            t_new = drs(scenario, state.tree(extra_removed=w.key), t_almost)
            allowed, detail = allows(strategies[0], p_new, t_old, t_new)
            if allowed:
                done = take(w, rule_of(strategies[0]), IN_COHORT_FAIR_SHARING, detail)
                break
            retry.append(w)
            run.steps.append(FairStep(w.key, w.cluster_queue, rule_of(strategies[0]), False, detail))
        if done:
            ok = True
            break

    # FS-RUN-3: the second pass (always LessThanInitialShare), at most one head per queue
    if not ok and len(strategies) > 1:
        queues = {}
        for w in retry:
            queues.setdefault(w.cluster_queue, []).append(w)
        for q in ordering(queues):
            _, p_new, t_old = shares(q)
            w = queues[q[1]].pop(0)
            allowed, detail = allows(strategies[1], p_new, t_old, t_old)
            if allowed:
                if take(w, "FS-RUN-3", IN_COHORT_FAIR_SHARING, detail):
                    ok = True
                    break
            else:
                run.steps.append(FairStep(w.key, w.cluster_queue, "FS-RUN-3", False, detail))
            queues[q[1]] = []  # drop(q): at most one workload per queue
    state.with_preemptor = False
    if not ok:
        return run

    # FB-2 with allow_borrow = true, without the preemptor usage (FB-1)
    result = list(taken)
    for i in range(len(result) - 2, -1, -1):
        key = result[i][0].key
        state.removed.discard(key)
        if state.fits():
            run.steps.append(FairStep(key, result[i][0].cluster_queue, "FB-2", False, "re-admitted by fill-back"))
            result[i] = result[-1]
            result.pop()
        else:
            state.removed.add(key)
    run.targets = [(w.key, reason) for w, reason in result]
    return run


def reference_fair(scenario: FairScenario) -> list[tuple[str, str]]:
    """The spec's answer ``(workload key, reason)`` in GT-7 order (candidates in key order)."""
    return fair_run(scenario).targets


def fair_answers(scenario: FairScenario, *, limit: int = 24) -> list[FairRun] | None:
    """A reference run for every order ORD leaves open (ORD-7), or ``None`` past ``limit`` orders.

    Only ties inside one ClusterQueue change a run: FS-CAND-3 groups candidates by queue, and
    FS-ORD-4 compares queue heads with ORD itself.
    """
    kinds = fair_candidates(scenario)
    groups: dict[tuple[str, tuple[int, int, int, float, str]], list[Workload]] = {}
    for w in sorted(scenario.workloads, key=lambda w: w.key):
        if w.key in kinds:
            groups.setdefault((w.cluster_queue, _ord_key(scenario, w)), []).append(w)
    tied = [g for g in groups.values() if len(g) > 1]
    count = 1
    for g in tied:
        for i in range(2, len(g) + 1):
            count *= i
    if count > limit:
        return None
    rest = [w for g in groups.values() if len(g) == 1 for w in g]
    runs = []
    for perms in itertools.product(*(itertools.permutations(g) for g in tied)):
        order = [w for p in perms for w in p] + rest
        runs.append(fair_run(scenario, order))
    return runs


# --------------------------------------------------------------------------- checks


def _remaining(scenario: FairScenario, targets: Sequence[Target]) -> list[Workload]:
    keys = {t.workload.key for t in targets}
    return [w for w in scenario.workloads if w.key not in keys]


def _fits(scenario: FairScenario, workloads: Sequence[Workload]) -> bool:
    """GT-5 (borrowing allowed) on a fresh library snapshot, cross-checked with SpecTree."""
    snap = scenario.snapshot(workloads)
    got = snap.fits(snap.cluster_queue(scenario.cluster_queue), scenario.assignment.requests, allow_borrowing=True)
    spec = SpecTree(scenario, workloads).fits(
        scenario.cluster_queue, scenario.assignment.requests, allow_borrowing=True
    )
    assert got == spec, f"GT-5: Snapshot.fits = {got}, the spec's quota model says {spec}"
    return got


def check_fair_target_set_shape(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """GT-1/DM-9: targets are distinct admitted workloads (never the preemptor), in their queue."""
    _check_shape(scenario.workloads, scenario.preemptor, targets)


def check_fair_candidates(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """FS-CAND-1/2: every target is a candidate at entry.

    Own queue: ``withinClusterQueue`` allows it (POL-6) and it uses an FR needing preemption
    (POL-9). Another queue: the preemptor's queue has a cohort and ``reclaimWithinCohort !=
    Never``, the target's queue is in the same tree and borrows (U > nominal) on an FR of
    FRNP at entry, and ``reclaimWithinCohort`` allows it.
    """
    kinds = fair_candidates(scenario)
    pcq = _cq(scenario, scenario.cluster_queue)
    for t in targets:
        w = t.workload
        if w.key in kinds:
            continue
        rule = "FS-CAND-1" if w.cluster_queue == pcq.name else "FS-CAND-2"
        raise AssertionError(
            f"{rule}: target {w.key} of {w.cluster_queue} is not a fair-sharing candidate "
            f"(POL-6 policy, POL-9 overlap, or its queue does not borrow on FRNP in the preemptor's tree)"
        )


def check_fair_reasons(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """MSG-1/FS-NOM-1: own queue -> ``InClusterQueue``; another queue -> ``InCohortReclamation``
    when the within-nominal shortcut applies, else ``InCohortFairSharing``."""
    for t in targets:
        want = expected_reason(scenario, t.workload)
        rule = "MSG-1" if t.workload.cluster_queue == scenario.cluster_queue else "FS-NOM-1"
        assert t.reason.value == want, (
            f"{rule}: target {t.workload.key} has reason {t.reason.value}, the spec says {want}"
        )


def check_fair_fits_after_removal(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """GT-4: a non-empty result is complete: the preemptor fits (borrowing) without the targets."""
    if targets:
        assert _fits(scenario, _remaining(scenario, targets)), (
            "GT-4: the preemptor does not fit after removing every target"
        )


def check_fair_minimality(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """FB-2: with the targets removed, re-adding any single one breaks the fit.

    Fill-back re-tested every target but the last with more workloads removed than at the
    end, and the fit only gets harder as usage grows; the last one was the removal that made
    the preemptor fit (GT-6 cannot apply: the preemptor does not fit at entry).
    """
    remaining = _remaining(scenario, targets)
    for t in targets:
        assert not _fits(scenario, [*remaining, t.workload]), (
            f"FB-2: the preemptor still fits with target {t.workload.key} re-admitted: fill-back keeps it admitted"
        )


def check_fair_empty_result(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """FS-RUN-2/FS-RUN-7: with own-queue candidates only, an empty result means that even
    removing all of them leaves the preemptor unable to fit.

    Without cross-queue candidates the ordering yields the preemptor's queue until it runs
    out of candidates (FS-ORD-2; FS-ORD-4 never prunes it for not borrowing, nor its
    ancestors), and each yield takes the next own candidate with no share test (FS-RUN-2).
    """
    if targets:
        return
    kinds = fair_candidates(scenario)
    if not kinds or any(k == "FS-CAND-2" for k in kinds.values()):
        return
    remaining = [w for w in scenario.workloads if w.key not in kinds]
    assert not _fits(scenario, remaining), (
        f"FS-RUN-2: empty result, yet taking the own-queue candidates {sorted(kinds)} in ORD order "
        "makes the preemptor fit"
    )


def check_fair_strategy_steps(scenario: FairScenario, steps: Sequence[tuple[str, str]]) -> None:
    """Replays an explicit removal order ``(workload key, rule)`` and checks each step.

    The rules are those a decision trace reports: ``FS-RUN-2`` (own queue, FS-RUN-2),
    ``FS-NOM-1`` (within-nominal shortcut), ``FS-STRAT-1`` (pNew <= tNew, FS-STRAT-1) and
    ``FS-STRAT-2`` or ``FS-RUN-3`` (pNew < tOld, FS-STRAT-2), with shares of the almost-LCA nodes
    (FS-LCA-1/2) in the state after the preemptor's usage and the earlier removals (FS-RUN-1).
    """
    state = _State(scenario)
    state.with_preemptor = True
    by_key = {w.key: w for w in scenario.workloads}
    p_node: Node = ("cq", scenario.cluster_queue)
    nom = nominal_ok(scenario)
    for key, rule in steps:
        w = by_key[key]
        if rule == "FS-RUN-2":
            assert w.cluster_queue == scenario.cluster_queue, f"FS-RUN-2: {key} is not in the preemptor's queue"
        elif rule == "FS-NOM-1":
            assert nom, f"FS-NOM-1: {key} taken by the within-nominal shortcut, which does not apply"
        else:
            tree = state.tree()
            p_almost, t_almost = almost_lca(tree, ("cq", w.cluster_queue), p_node)
            p_new, t_old = drs(scenario, tree, p_almost), drs(scenario, tree, t_almost)
            t_new = drs(scenario, state.tree(extra_removed=key), t_almost)
            if rule == "FS-STRAT-1":
                assert compare_drs(p_new, t_new) <= 0, f"FS-STRAT-1: {key} taken with pNew {p_new} > tNew {t_new}"
            else:
                assert rule in ("FS-STRAT-2", "FS-RUN-3"), f"unknown rule {rule} for {key}"
                assert compare_drs(p_new, t_old) < 0, f"FS-STRAT-2: {key} taken with pNew {p_new} >= tOld {t_old}"
        state.removed.add(key)


def _explain(scenario: FairScenario, runs: Sequence[FairRun], got: set[tuple[str, str]]) -> str:
    run = runs[0]
    want = set(run.targets)
    lines = []
    for key, reason in sorted(got - want):
        seen = [s for s in run.steps if s.workload == key]
        if not seen:
            lines.append(f"{key} ({reason}) is never taken: FS-ORD-4/FS-RUN-2 reach the fit before it")
        else:
            steps = "; ".join(f"{s.rule} {'taken' if s.taken else 'refused'}: {s.detail}" for s in seen)
            lines.append(f"{key} ({reason}): {steps}")
    for key, reason in sorted(want - got):
        lines.append(f"{key} ({reason}) is a spec target the result lacks")
    if not want:
        lines.append("the spec finds no complete target set (FS-RUN-1 returns [])")
    return "; ".join(lines)


def check_fair_reference(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """FS-RUN-1..7/FB-2: the result is an answer of the transcribed algorithm for some order
    of ORD-tied candidates (ORD-7); where every such order gives one list, the order too (GT-7).

    Skipped when too many tie orders exist (:func:`fair_answers` returns ``None``).
    """
    runs = fair_answers(scenario)
    if runs is None:
        return
    got = [(t.workload.key, t.reason.value) for t in targets]
    answers = {frozenset(r.targets) for r in runs}
    assert frozenset(got) in answers, f"FS-RUN-1: result {got} is not an answer of the spec: " + _explain(
        scenario, runs, set(got)
    )
    lists = {tuple(r.targets) for r in runs}
    if len(lists) == 1:
        (want,) = lists
        assert tuple(got) == want, f"GT-7: targets in order {got}, the spec's fill-back order is {list(want)}"


def check_fair(scenario: FairScenario, targets: Sequence[Target]) -> None:
    """Every fair-sharing checker: shape, candidates, reasons, GT-4, FB-2, an empty result
    and the reference (skipped with admission fair sharing, whose ORD-3 can be cyclic)."""
    check_fair_target_set_shape(scenario, targets)
    check_fair_candidates(scenario, targets)
    check_fair_reasons(scenario, targets)
    check_fair_fits_after_removal(scenario, targets)
    check_fair_minimality(scenario, targets)
    check_fair_empty_result(scenario, targets)
    if not scenario.config.admission_fair_sharing:
        check_fair_reference(scenario, targets)

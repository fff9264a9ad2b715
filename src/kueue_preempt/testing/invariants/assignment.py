"""Independent checkers for flavor assignments, written from the spec (FAS-*, FA-1, FA-6).

Nothing here calls the library's assignment helpers (matching, modes, scan, requests): the
taint and selector rules (FAS-5, FAS-5b), the FNV resource order (FAS-19), the granular modes
(FAS-6, FAS-7a), the preference order (FAS-9), the fungibility stop rule (FAS-10), the
gate-off scan (FAS-11), the pod-set and assignment modes (FAS-13, FAS-13a) and the
partial-admission search (FAS-14) are transcribed below on top of the recomputing quota model
:class:`~kueue_preempt.testing.invariants.quota.SpecTree`, extended with potential available
(Q-10) and the lowest fitting subtree (Q-16). The preemption oracle (FA-6) and the targets of a
``Preempt`` assignment come from
:func:`~kueue_preempt.testing.invariants.classic.reference_classic`, itself a transcription of
the classic algorithm.

:func:`reference_assignment` is the whole decision; :func:`check_assignment` compares the
library's :class:`~kueue_preempt.assignment.AssignmentDecision` with it after the separate
checkers, each of which raises ``AssertionError`` naming the rule it enforces.
"""

from __future__ import annotations

import enum
import re
from typing import Iterable, Mapping, Sequence

import attrs

from kueue_preempt import Assignment, ClusterQueue, FlavorResource, ResourceGroup
from kueue_preempt.assignment import AssignmentDecision, PodSetAssignment, QuotaCheckStrategy
from kueue_preempt.model import FlavorAssignmentMode
from kueue_preempt.model.flavors import (
    FlavorFungibility,
    FlavorPreference,
    FungibilityPolicy,
    NodeSelectorTerm,
    PodSetSpec,
    ResourceFlavor,
    Taint,
    Toleration,
)
from kueue_preempt.testing.invariants.classic import reference_classic
from kueue_preempt.testing.invariants.policy import borrow_within_cohort
from kueue_preempt.testing.invariants.quota import Node, SpecTree
from kueue_preempt.testing.strategies.assignment import AssignmentScenario
from kueue_preempt.testing.strategies.classic import Scenario

__all__ = [
    "Pm",
    "fnv_order_of",
    "reference_tolerated",
    "reference_selected",
    "reference_usable",
    "pod_set_count",
    "pod_set_group_members",
    "AssignmentTree",
    "RefEntry",
    "RefPodSet",
    "RefAssignment",
    "RefDecision",
    "reference_assignment",
    "check_usable_flavors",
    "check_resource_groups",
    "check_requests_and_usage",
    "check_entry_modes",
    "check_flavor_choice",
    "check_modes",
    "check_partial_admission",
    "check_targets",
    "check_assignment",
]

FIT, PREEMPT, NO_FIT = FlavorAssignmentMode.FIT, FlavorAssignmentMode.PREEMPT, FlavorAssignmentMode.NO_FIT


class Pm(enum.IntEnum):
    """FAS-6 preemption modes in rank order ``noFit < noCandidates < preempt < reclaim < fit``."""

    NO_FIT = 0
    NO_CANDIDATES = 1
    PREEMPT = 2
    RECLAIM = 3
    FIT = 4


Granular = tuple[Pm, int]
_API_RANK = {NO_FIT: 0, PREEMPT: 1, FIT: 2}


def _api(pm: Pm) -> FlavorAssignmentMode:
    """FAS-6: fit → Fit; noCandidates, preempt, reclaim → Preempt; noFit → NoFit."""
    return FIT if pm is Pm.FIT else NO_FIT if pm is Pm.NO_FIT else PREEMPT


# --------------------------------------------------------------------------- FAS-19 order


def _fnv1a64(text: str) -> int:
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def fnv_order_of(resources: Iterable[str]) -> list[str]:
    """FAS-19: ascending FNV-1a 64 hash of the name, ties by name."""
    return sorted(resources, key=lambda r: (_fnv1a64(r), r))


# --------------------------------------------------------------------------- FAS-5 / FAS-5b

_INT = re.compile(r"0|-?[1-9][0-9]*")


def _tolerates(t: Toleration, taint: Taint) -> bool:
    if t.effect and t.effect != taint.effect:
        return False
    if t.key and t.key != taint.key:
        return False
    if t.operator in ("", "Equal"):
        return t.value == taint.value
    if t.operator == "Exists":
        return True
    if t.operator in ("Lt", "Gt") and _INT.fullmatch(taint.value) and _INT.fullmatch(t.value):
        a, b = int(taint.value), int(t.value)
        return a < b if t.operator == "Lt" else a > b
    return False


def reference_tolerated(taints: Iterable[Taint], tolerations: Iterable[Toleration]) -> bool:
    """FAS-5/FAS-5b: every ``NoSchedule``/``NoExecute`` taint is tolerated by some toleration."""
    tols = list(tolerations)
    return all(
        any(_tolerates(t, taint) for t in tols) for taint in taints if taint.effect in ("NoSchedule", "NoExecute")
    )


def reference_selected(
    selector: Mapping[str, str], affinity: Sequence[NodeSelectorTerm] | None, labels: Mapping[str, str]
) -> bool:
    """FAS-5/FAS-5b: only keys the flavor's labels define take part; terms ORed, expressions ANDed."""
    if not all(labels[k] == v for k, v in selector.items() if k in labels):
        return False
    if not affinity:
        return True
    filtered = [[e for e in term.match_expressions if e.key in labels] for term in affinity]
    if any(not exprs for exprs in filtered):
        return True  # a term left without expressions drops the whole affinity

    def holds(op: str, key: str, values: Sequence[str]) -> bool:
        present = key in labels
        if op == "In":
            return present and labels[key] in values
        if op == "NotIn":
            return not present or labels[key] not in values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        raise AssertionError(f"FAS-5b: operator {op} is not generated by the strategy")

    return any(all(holds(e.operator, e.key, e.values) for e in exprs) for exprs in filtered)


def reference_usable(spec: PodSetSpec, flavor: ResourceFlavor) -> bool:
    """FAS-5: the pod set tolerates the flavor's taints and matches its labels."""
    return reference_tolerated(flavor.node_taints, [*spec.tolerations, *flavor.tolerations]) and reference_selected(
        spec.node_selector, spec.required_node_affinity, flavor.node_labels
    )


def _ignores_undeclared(s: AssignmentScenario) -> bool:
    """FAS-3: strategy ``IgnoreUndeclared`` with gate ``QuotaCheckStrategy`` on."""
    return s.quota_check is QuotaCheckStrategy.IGNORE_UNDECLARED and s.gates.quota_check_strategy


def pod_set_count(s: AssignmentScenario, spec: PodSetSpec) -> int:
    """FAS-1a: ``count − min(reclaimable, count)`` with gate ``ReclaimablePods`` on, else ``count``."""
    if not s.gates.reclaimable_pods or spec.name not in s.workload.reclaimable_pods:
        return spec.count
    return spec.count - min(s.workload.reclaimable_pods[spec.name], spec.count)


def pod_set_group_members(specs: Sequence[PodSetSpec]) -> list[list[int]]:
    """FAS-18: spec indexes per group key (``podSetGroupName``, else the index in decimal),
    groups in the order of their first member, members in spec order."""
    groups: dict[str, list[int]] = {}
    for i, spec in enumerate(specs):
        groups.setdefault(spec.pod_set_group if spec.pod_set_group is not None else str(i), []).append(i)
    return list(groups.values())


def _covered(s: AssignmentScenario, r: str) -> bool:
    return any(r in g.covered_resources for g in s.queue.resource_groups)


# --------------------------------------------------------------------------- quota


class AssignmentTree(SpecTree):
    """:class:`SpecTree` as the assignment reads it (potential available Q-10, heights Q-15,
    the lowest fitting height Q-16: all on :class:`SpecTree`)."""


# --------------------------------------------------------------------------- the reference


@attrs.frozen
class RefEntry:
    """One resource's flavor as the spec assigns it (FAS-7a, FAS-10a)."""

    flavor: str
    mode: FlavorAssignmentMode
    borrow: int
    tried_flavor_idx: int


@attrs.frozen
class RefPodSet:
    """One pod set as the spec assigns it: count, flavors, whether its status has reasons."""

    name: str
    count: int
    flavors: Mapping[str, RefEntry]
    has_reasons: bool
    requests: Mapping[str, int]

    @property
    def mode(self) -> FlavorAssignmentMode:
        """FAS-13a (no scan error is generated)."""
        if not self.has_reasons:
            return FIT
        if not self.flavors:
            return NO_FIT
        return min((e.mode for e in self.flavors.values()), key=_API_RANK.__getitem__)


@attrs.frozen
class RefAssignment:
    """The spec's assignment (FAS-17 without messages and attempts)."""

    pod_sets: tuple[RefPodSet, ...]
    borrowing: int
    usage: Mapping[FlavorResource, int]

    @property
    def mode(self) -> FlavorAssignmentMode:
        """FAS-13: the worst pod-set mode, NoFit without pod sets."""
        return min((ps.mode for ps in self.pod_sets), key=_API_RANK.__getitem__, default=NO_FIT)


@attrs.frozen
class RefDecision:
    """FAS-13/FAS-14's answer: the assignment, its targets (key, reason) and whether it is partial."""

    assignment: RefAssignment
    targets: tuple[tuple[str, str], ...]
    partial: bool


def _preferred(a: Granular, b: Granular, preference: FlavorPreference | None) -> bool:
    """FAS-9."""
    (pa, ba), (pb, bb) = a, b
    if pa is Pm.NO_FIT:
        return False
    if pb is Pm.NO_FIT:
        return True
    if (pa is Pm.NO_CANDIDATES) != (pb is Pm.NO_CANDIDATES):
        return pb is Pm.NO_CANDIDATES
    if preference is FlavorPreference.PREEMPTION_OVER_BORROWING:
        return ba < bb if ba != bb else pa > pb
    return pa > pb if pa != pb else ba < bb


def _try_next(rep: Granular, fung: FlavorFungibility) -> bool:
    """FAS-10 (a)-(c)."""
    pm, b = rep
    if pm in (Pm.NO_FIT, Pm.NO_CANDIDATES):
        return True
    if pm in (Pm.PREEMPT, Pm.RECLAIM) and fung.when_can_preempt is FungibilityPolicy.TRY_NEXT_FLAVOR:
        return True
    return b > 0 and fung.when_can_borrow is FungibilityPolicy.TRY_NEXT_FLAVOR


class _Reference:
    """The spec's flavor assigner over one scenario (memoises oracle answers)."""

    def __init__(self, s: AssignmentScenario) -> None:
        self.s = s
        self.cq: ClusterQueue = s.queue
        self.tree = AssignmentTree(s, s.workloads)
        self.flavors = {rf.name: rf for rf in s.resource_flavors}
        self._oracle: dict[tuple[FlavorResource, int], Granular] = {}

    def group_of(self, r: str) -> ResourceGroup | None:
        """FAS-4: the first resource group covering ``r``."""
        return next((g for g in self.cq.resource_groups if r in g.covered_resources), None)

    def targets(self, requests: Mapping[FlavorResource, int], preempt: Iterable[FlavorResource]) -> list[tuple[str, str]]:
        classic = Scenario(
            cluster_queues=list(self.s.cluster_queues),
            cohorts=list(self.s.cohorts),
            workloads=list(self.s.workloads),
            preemptor=self.s.workload,
            cluster_queue=self.cq.name,
            assignment=Assignment(requests=dict(requests), preempt=frozenset(preempt)),
            now=self.s.now,
            config=self.s.config,
        )
        return reference_classic(classic)

    def oracle(self, fr: FlavorResource, v: int) -> Granular:
        """FA-6 on ``{fr: v}``."""
        key = (fr, v)
        if key not in self._oracle:
            found = self.targets({fr: v}, {fr})
            if not found:
                self._oracle[key] = (Pm.NO_CANDIDATES, self.tree.lowest_fitting_height(self.cq.name, fr, v)[0])
            else:
                gone = {k for k, _ in found}
                after = AssignmentTree(self.s, [w for w in self.s.workloads if w.key not in gone])
                h = after.lowest_fitting_height(self.cq.name, fr, v)[0]
                own = any(w.cluster_queue == self.cq.name for w in self.s.workloads if w.key in gone)
                self._oracle[key] = (Pm.PREEMPT if own else Pm.RECLAIM, h)
        return self._oracle[key]

    def granular(self, fr: FlavorResource, v: int) -> Granular:
        """FAS-6."""
        node: Node = ("cq", self.cq.name)
        if v > self.tree.pot(node, fr):
            return Pm.NO_FIT, 0
        height, may_reclaim = self.tree.lowest_fitting_height(self.cq.name, fr, v)
        if v <= self.tree.available(node, fr):
            return Pm.FIT, height
        nominal = self.tree.quotas[node].get(fr, (0, None, None))[0]
        if nominal >= v or may_reclaim or borrow_within_cohort(self.cq)[0]:
            return self.oracle(fr, v)
        return Pm.NO_FIT, height

    def judge(self, f: str, rg: Mapping[str, int], usage: Mapping[FlavorResource, int]) -> tuple[Granular, dict[str, RefEntry]]:
        """FAS-7a (``tried_flavor_idx`` filled in by the scan)."""
        preference = self.cq.flavor_fungibility.preference
        rep: Granular = (Pm.FIT, 0)
        assigned = {}
        for r in fnv_order_of(rg):
            fr = FlavorResource(f, r)
            pm, b = self.granular(fr, usage.get(fr, 0) + rg[r])
            if _preferred(rep, (pm, b), preference):
                rep = (pm, b)
            if rep[0] is not Pm.NO_FIT:
                assigned[r] = RefEntry(f, _api(pm), b, -1)
        return rep, assigned

    def scan(
        self,
        members: Sequence[PodSetSpec],
        group: ResourceGroup,
        rg: Mapping[str, int],
        usage: Mapping[FlavorResource, int],
    ) -> tuple[dict[str, RefEntry] | None, Granular]:
        """FAS-10a (gate on) or FAS-11 (gate off); offline, so every scan starts at flavor 0."""
        fungible = self.s.gates.flavor_fungibility
        fung = self.cq.flavor_fungibility
        best: dict[str, RefEntry] | None = None
        best_mode: Granular = (Pm.NO_FIT, 1 << 62)
        last = -1
        names = group.flavor_names
        for k, f in enumerate(names):
            last = k
            rf = self.flavors.get(f)
            if rf is None or not all(reference_usable(m, rf) for m in members):
                continue  # FAS-5a cases 3 and 4 (every member of the pod-set group)
            rep, assigned = self.judge(f, rg, usage)
            if fungible:
                if not _try_next(rep, fung):
                    best, best_mode = assigned, rep
                    break
                if _preferred(rep, best_mode, fung.preference):
                    best, best_mode = assigned, rep
            else:
                if rep[0] is Pm.FIT:
                    best, best_mode = assigned, rep
                    break
                if rep[0] > best_mode[0]:
                    best, best_mode = assigned, rep
        if best is None:
            return None, best_mode
        tried = (-1 if last == len(names) - 1 else last) if fungible else 0
        return {r: attrs.evolve(e, tried_flavor_idx=tried) for r, e in best.items()}, best_mode

    def assign(self, counts: Sequence[int] | None) -> RefAssignment:
        """FAS-19 over the pod-set groups of FAS-18."""
        specs = self.s.workload.spec_pod_sets
        usage: dict[FlavorResource, int] = {}
        borrowing = 0
        out = []
        ignore = _ignores_undeclared(self.s)
        covers_pods = self.group_of("pods") is not None
        counts_of: list[int] = []
        requests_of: list[dict[str, int]] = []
        for i, spec in enumerate(specs):
            n = pod_set_count(self.s, spec)  # FAS-1a
            if counts is not None and n != 0:
                n = counts[i]  # FAS-14: the probe's count replaces a non-zero count
            req = {r: v * n for r, v in spec.requests.items()}  # FAS-1, FAS-14 (per-pod × count)
            if covers_pods:
                req["pods"] = n  # FAS-1
            counts_of.append(n)
            requests_of.append(req)
        for members in pod_set_group_members(specs):
            total: dict[str, int] = {}
            for i in members:
                for r, v in requests_of[i].items():
                    total[r] = total.get(r, 0) + v
            flavors: dict[str, RefEntry] = {}
            has_reasons = False
            for r in fnv_order_of(total):
                group = self.group_of(r)
                if group is None:  # FAS-3
                    if total[r] == 0 or ignore:
                        continue
                    flavors, has_reasons = {}, True
                    break
                if r in flavors:
                    continue
                rg = {x: v for x, v in total.items() if x in group.covered_resources}
                found, mode = self.scan([specs[i] for i in members], group, rg, usage)
                if found is None:
                    flavors, has_reasons = {}, True
                    break
                flavors.update(found)
                has_reasons = has_reasons or mode[0] is not Pm.FIT
            stop = False
            for i in members:
                req = requests_of[i]
                own = {r: e for r, e in flavors.items() if r in req}
                out.append(RefPodSet(specs[i].name, counts_of[i], own, has_reasons, req))
                for r, e in own.items():
                    borrowing = max(borrowing, e.borrow)
                    fr = FlavorResource(e.flavor, r)
                    usage[fr] = usage.get(fr, 0) + req[r]
                stop = stop or (bool(req) and not own)
            if stop:
                break
        return RefAssignment(tuple(out), borrowing, usage)

    def decision_targets(self, a: RefAssignment) -> list[tuple[str, str]]:
        """FA-2/FA-3: ``get_targets`` for the Preempt FRs of the whole assignment."""
        requests: dict[FlavorResource, int] = {}
        preempt = set()
        for ps in a.pod_sets:
            for r, e in ps.flavors.items():
                fr = FlavorResource(e.flavor, r)
                if ps.requests[r]:
                    requests[fr] = requests.get(fr, 0) + ps.requests[r]
                if e.mode is PREEMPT:
                    preempt.add(fr)
        return self.targets(requests, preempt)

    def decide(self) -> RefDecision:
        """FAS-13 then FAS-14."""

        def attempt(counts: Sequence[int] | None) -> tuple[RefDecision, bool]:
            a = self.assign(counts)
            found = tuple(self.decision_targets(a)) if a.mode is PREEMPT else ()
            ok = a.mode is FIT or (a.mode is PREEMPT and bool(found))
            return RefDecision(a, found, counts is not None), ok

        full, ok = attempt(None)
        if ok or not self.s.gates.partial_admission:
            return full
        specs = self.s.workload.spec_pod_sets
        deltas = [ps.count - (ps.min_count if ps.min_count is not None else ps.count) for ps in specs]
        d = sum(deltas)
        if d == 0:
            return full
        lo, hi, last_ok = 0, d + 1, 0
        last: RefDecision | None = None
        while lo < hi:
            j = (lo + hi) // 2
            res, ok = attempt([ps.count - (delta * j) // d for ps, delta in zip(specs, deltas)])
            if ok:
                last_ok, last, hi = j, res, j
            else:
                lo = j + 1
        return last if last is not None and lo == last_ok else full


_CACHE: dict[int, tuple[AssignmentScenario, RefDecision]] = {}


def reference_assignment(scenario: AssignmentScenario) -> RefDecision:
    """The spec's whole decision (FAS-4..FAS-14 on Q-9/Q-10/Q-16, FA-6 via ``reference_classic``).

    Fixed for every generated scenario: the scan is deterministic and the candidate order of
    the oracle is strict (distinct timestamps and UIDs). Memoised per scenario object (the
    last few), because every checker and mutant of one scenario asks for it.
    """
    hit = _CACHE.get(id(scenario))
    if hit is not None and hit[0] is scenario:
        return hit[1]
    ref = _Reference(scenario).decide()
    if len(_CACHE) > 8:
        _CACHE.clear()
    _CACHE[id(scenario)] = (scenario, ref)
    return ref


# --------------------------------------------------------------------------- the checkers


def _spec(s: AssignmentScenario, ps: PodSetAssignment) -> PodSetSpec:
    specs = s.workload.spec_pod_sets
    assert 0 <= ps.spec_index < len(specs) and specs[ps.spec_index].name == ps.name, (
        f"FAS-17: pod set {ps.name!r} does not match spec index {ps.spec_index}"
    )
    return specs[ps.spec_index]


def check_usable_flavors(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-4/FAS-5/FAS-5a: each chosen flavor offers the resource and the pod set can use it."""
    cq = s.queue
    flavors = {rf.name: rf for rf in s.resource_flavors}
    for ps in decision.assignment.pod_sets:
        spec = _spec(s, ps)
        for r, choice in ps.flavors.items():
            group = next((g for g in cq.resource_groups if r in g.covered_resources), None)
            assert group is not None and choice.flavor in group.flavor_names, (
                f"FAS-4: {ps.name}/{r} got flavor {choice.flavor}, not one of the group covering {r}"
            )
            rf = flavors.get(choice.flavor)
            assert rf is not None, f"FAS-5a: {ps.name}/{r} got flavor {choice.flavor}, missing from the ResourceFlavors"
            assert reference_tolerated(rf.node_taints, [*spec.tolerations, *rf.tolerations]), (
                f"FAS-5: {ps.name} does not tolerate the taints of flavor {rf.name}"
            )
            assert reference_selected(spec.node_selector, spec.required_node_affinity, rf.node_labels), (
                f"FAS-5b: {ps.name}'s selector/affinity does not match flavor {rf.name}'s labels"
            )


def check_resource_groups(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-4: the resources of one resource group share a flavor; FAS-19: a requested covered
    resource has a flavor unless the pod set got none at all; FAS-3: an uncovered one never has
    one, and a pod set with a non-zero request of it gets no flavor unless it is ignored."""
    for ps in decision.assignment.pod_sets:
        for g in s.queue.resource_groups:
            chosen = {ps.flavors[r].flavor for r in g.covered_resources if r in ps.flavors}
            assert len(chosen) <= 1, f"FAS-4: {ps.name} got several flavors {sorted(chosen)} in one resource group"
        if ps.flavors:
            missing = [r for r in ps.requests if r not in ps.flavors and _covered(s, r)]
            assert not missing, f"FAS-19: {ps.name} got flavors but none for {missing}"
            blocked = [r for r, v in ps.requests.items() if not _covered(s, r) and v and not _ignores_undeclared(s)]
            assert not blocked, f"FAS-3: {ps.name} got flavors although {blocked} is requested and not covered"
        stray = [r for r in ps.flavors if not _covered(s, r)]
        assert not stray, f"FAS-3: {ps.name} got a flavor for uncovered {stray}"


def check_requests_and_usage(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-1/FAS-1b/FAS-14 requests = per-pod × count (``pods = count`` when covered); FAS-1a/FAS-14
    the count; FAS-13 borrowing = max borrow; usage = Σ of the chosen requests."""
    a = decision.assignment
    usage: dict[FlavorResource, int] = {}
    borrowing = 0
    covers_pods = _covered(s, "pods")
    for ps in a.pod_sets:
        spec = _spec(s, ps)
        base = pod_set_count(s, spec)
        low = spec.count if spec.min_count is None else spec.min_count
        assert ps.count == base or (decision.partial and base != 0 and low <= ps.count <= spec.count), (
            f"FAS-1a/FAS-14: {ps.name} count {ps.count}, expected {base} or, partially admitted, one in [{low}, {spec.count}]"
        )
        want = {r: v * ps.count for r, v in spec.requests.items()}
        if covers_pods:
            want["pods"] = ps.count
        assert dict(ps.requests) == want, f"FAS-1b: {ps.name} reports requests {dict(ps.requests)}, expected {want}"
        for r, choice in ps.flavors.items():
            borrowing = max(borrowing, choice.borrow)
            fr = FlavorResource(choice.flavor, r)
            usage[fr] = usage.get(fr, 0) + ps.requests[r]
    assert a.borrowing == borrowing, f"FAS-13: borrowing level {a.borrowing}, max over entries is {borrowing}"
    assert dict(a.usage) == usage, f"FAS-19: usage {dict(a.usage)} is not the chosen requests {usage}"


def check_entry_modes(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-6/FA-1 per entry, with FAS-2's cumulative request (a pod-set group's total, FAS-18):
    ``Fit`` iff it fits Available (borrow = the Q-16 level); ``Preempt`` only within potential
    available and with one of FA-1's reasons; never ``NoFit`` (FAS-7a keeps no entry of a
    noFit flavor)."""
    ref = _Reference(s)
    node: Node = ("cq", s.cluster_queue)
    assumed: dict[FlavorResource, int] = {}
    pod_sets = decision.assignment.pod_sets
    key_of = {i: k for k, members in enumerate(pod_set_group_members(s.workload.spec_pod_sets)) for i in members}
    runs: list[list[PodSetAssignment]] = []  # FAS-18: a group's members are consecutive
    for ps in pod_sets:
        if runs and key_of[runs[-1][0].spec_index] == key_of[ps.spec_index]:
            runs[-1].append(ps)
        else:
            runs.append([ps])
    for run in runs:
        group_request: dict[FlavorResource, int] = {}  # FAS-18: the group is judged as one unit
        for ps in run:
            for r, choice in ps.flavors.items():
                fr = FlavorResource(choice.flavor, r)
                group_request[fr] = group_request.get(fr, 0) + ps.requests[r]
        for ps in run:
            for r, choice in ps.flavors.items():
                fr = FlavorResource(choice.flavor, r)
                v = assumed.get(fr, 0) + group_request[fr]
                avail, pot = ref.tree.available(node, fr), ref.tree.pot(node, fr)
                height, may_reclaim = ref.tree.lowest_fitting_height(s.cluster_queue, fr, v)
                where = f"{ps.name}/{r} on {choice.flavor} (request {v}, available {avail}, potential {pot})"
                assert choice.mode is not NO_FIT, f"FAS-7a: {where} kept a NoFit entry"
                if v <= avail:
                    assert choice.mode is FIT, f"FAS-6: {where} fits Available but is {choice.mode.value}"
                    assert choice.borrow == height, f"FAS-6/Q-16: {where} borrow {choice.borrow}, expected {height}"
                else:
                    assert choice.mode is PREEMPT, f"FAS-6/FA-1: {where} exceeds Available but is {choice.mode.value}"
                    assert v <= pot, f"FA-1: {where} is Preempt above the potential available quota (Q-10)"
                    nominal = ref.tree.quotas[node].get(fr, (0, None, None))[0]
                    assert nominal >= v or may_reclaim or borrow_within_cohort(s.queue)[0], (
                        f"FA-1: {where} is Preempt without nominal, a fitting subtree or borrowWithinCohort"
                    )
        for fr, v in group_request.items():
            assumed[fr] = assumed.get(fr, 0) + v


def _counts_match(decision: AssignmentDecision, ref: RefDecision) -> bool:
    return [ps.count for ps in decision.assignment.pod_sets] == [ps.count for ps in ref.assignment.pod_sets]


def check_partial_admission(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-14: the counts are those of the smallest successful reduction step (full counts when
    the full assignment succeeds, partial admission is off, or no step succeeds)."""
    ref = reference_assignment(s)
    got = [(ps.name, ps.count) for ps in decision.assignment.pod_sets]
    want = [(ps.name, ps.count) for ps in ref.assignment.pod_sets]
    assert decision.partial == ref.partial and got == want, (
        f"FAS-14: counts {got} (partial={decision.partial}), the spec's search gives {want} (partial={ref.partial})"
    )


def check_flavor_choice(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-10/FAS-10a (FAS-11 with the gate off): each resource gets the flavor the spec's scan
    takes (order, fungibility, preference), with its ``tried_flavor_idx``; FAS-19 stops after
    the first pod set that got no flavor."""
    ref = reference_assignment(s)
    if not _counts_match(decision, ref):
        return  # check_partial_admission reports it
    got_sets = decision.assignment.pod_sets
    assert len(got_sets) == len(ref.assignment.pod_sets), (
        f"FAS-19: {len(got_sets)} pod sets assigned, the spec assigns {len(ref.assignment.pod_sets)}"
    )
    for ps, want in zip(got_sets, ref.assignment.pod_sets):
        got = {r: c.flavor for r, c in ps.flavors.items()}
        exp = {r: e.flavor for r, e in want.flavors.items()}
        rule = "FAS-10" if s.gates.flavor_fungibility else "FAS-11"
        assert got == exp, f"{rule}: {ps.name} got flavors {got}, the spec's scan picks {exp}"
        tried = {r: c.tried_flavor_idx for r, c in ps.flavors.items()}
        exp_tried = {r: e.tried_flavor_idx for r, e in want.flavors.items()}
        assert tried == exp_tried, f"FAS-10a/FAS-11: {ps.name} tried_flavor_idx {tried}, expected {exp_tried}"


def check_modes(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-6/FAS-7a entry modes and borrowing levels (the oracle's level for Preempt, FA-6),
    FAS-13a pod-set modes, FAS-13 the assignment's mode and borrowing flag."""
    ref = reference_assignment(s)
    if not _counts_match(decision, ref):
        return
    a = decision.assignment
    for ps, want in zip(a.pod_sets, ref.assignment.pod_sets):
        got = {r: (c.mode.value, c.borrow) for r, c in ps.flavors.items()}
        exp = {r: (e.mode.value, e.borrow) for r, e in want.flavors.items()}
        if set(got) == set(exp):
            assert got == exp, f"FAS-6/FAS-7a: {ps.name} entries (mode, borrow) {got}, expected {exp}"
        assert ps.mode is want.mode, f"FAS-13a: pod set {ps.name} is {ps.mode.value}, expected {want.mode.value}"
    assert a.mode is ref.assignment.mode, f"FAS-13: assignment mode {a.mode.value}, expected {ref.assignment.mode.value}"
    assert a.requires_borrowing == (ref.assignment.borrowing > 0), (
        f"FAS-13: requires_borrowing={a.requires_borrowing}, the spec's borrowing level is {ref.assignment.borrowing}"
    )


def check_targets(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """FAS-13: targets only for a Preempt assignment, exactly ``get_targets``'s (GT-7 order)."""
    ref = reference_assignment(s)
    got = [(t.workload.key, t.reason.value) for t in decision.targets]
    if decision.assignment.mode is not PREEMPT:
        assert not got, f"FAS-13: a {decision.assignment.mode.value} assignment came with targets {got}"
    assert got == list(ref.targets), f"FAS-13/FA-1: targets {got}, the spec's are {list(ref.targets)}"


def check_assignment(s: AssignmentScenario, decision: AssignmentDecision) -> None:
    """Every checker above; the reference fixes flavors, modes, counts and targets."""
    check_usable_flavors(s, decision)
    check_resource_groups(s, decision)
    check_requests_and_usage(s, decision)
    check_entry_modes(s, decision)
    check_partial_admission(s, decision)
    check_flavor_choice(s, decision)
    check_modes(s, decision)
    check_targets(s, decision)
    ref = reference_assignment(s)
    got_b = decision.assignment.borrowing
    assert got_b == ref.assignment.borrowing, f"FAS-13: borrowing level {got_b}, expected {ref.assignment.borrowing}"

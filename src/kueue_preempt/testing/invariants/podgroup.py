"""Independent checkers for PodGroup (workload-aware) preemption results, written from the spec.

Nothing here calls the library's unit, priority, PDB, placement or cluster code: the effective
priority (PG-7), the preemption units (PG-8), importance (SCORE-1), PDB coverage and budgets
(PDB-1..PDB-5), the fit rules (FIT-1 and the ``units`` rule of FIT-3), the deterministic
round-robin placement (FIT-3), the reprieve by replay (PG-27) and the KEP's level search
(spec §9.1) are re-implemented below over the scenario's model objects. The only library
facts read are the model objects' public attributes, including their quantities already
parsed to exact integers (``Node.amounts``, ``Pod.amounts``, PG-1).

:func:`reference_podgroup` transcribes the whole decision (PG-21..PG-28) on top of that model.
The spec fixes its answer except in two places, where the reference says so instead of
guessing: the KEP search when placement success is not monotone over the priority levels (the
search then only has to return a level that succeeds with the level below failing), and the
attempt order when two candidate units tie on every SCORE-1 criterion (then which one is
reprieved is open).

Every ``check_*`` function raises ``AssertionError`` whose message starts with the rule ID.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from kueue_preempt.podgroup import (
    DisruptionMode,
    NodeFilter,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodGroupPreemptionResult,
    PodPreemptionPolicy,
    PreemptionMode,
    StatusCode,
)
from kueue_preempt.testing.strategies.podgroup import PodGroupScenario

__all__ = [
    "NEVER_STARTED",
    "PodGroupUnit",
    "PodGroupReference",
    "Capacity",
    "preemptor_priority",
    "pod_priority",
    "unit_key",
    "podgroup_units",
    "attempt_order",
    "oracle_place",
    "oracle_levels",
    "replay_fits",
    "check_podgroup_victim_units",
    "check_podgroup_victim_priority",
    "check_podgroup_fits_after_removal",
    "check_podgroup_minimality",
    "check_podgroup_outcome",
    "check_podgroup_nominations",
    "check_podgroup_counters",
    "reference_podgroup",
    "check_podgroup_reference",
    "check_podgroup",
]

NEVER_STARTED = 2**64
"""Start time of a pod without one (PG-9): after every real start, equal for all such pods."""

_POD_RANK = 1
_GROUP_RANK = 2
"""SCORE-1 criterion 2: a whole PodGroup, or a pod that references a PodGroup, outranks a
standalone pod (PG-8). CompositePodGroups are not drawn by the strategy."""


# --------------------------------------------------------------------------- the model


def _group(scenario: PodGroupScenario, pod: Pod) -> PodGroup | None:
    for g in scenario.groups:
        if pod.pod_group == g.name and g.namespace == pod.namespace:
            return g
    return None


def pod_priority(scenario: PodGroupScenario, pod: Pod) -> int:
    """PG-7 (no CompositePodGroups): the PodGroup's priority if the group exists, else the pod's."""
    g = _group(scenario, pod)
    return pod.priority if g is None else g.priority


def preemptor_priority(scenario: PodGroupScenario) -> int:
    """PG-10: the pending group's own priority, never its pods'."""
    return scenario.preemptor.group.priority


@dataclass(frozen=True)
class PodGroupUnit:
    """A preemption unit (PG-8) as the spec defines it."""

    key: str
    pods: tuple[Pod, ...]
    priority: int
    rank: int
    """SCORE-1 criterion 2: 2 for a PodGroup (whole, or a pod that references one), 1 for a pod."""

    @property
    def names(self) -> frozenset[str]:
        return frozenset(p.name for p in self.pods)

    @property
    def earliest_start(self) -> int:
        """PG-8/PG-9: the minimum start time, unstarted pods at :data:`NEVER_STARTED`."""
        return min(NEVER_STARTED if p.start_time is None else p.start_time for p in self.pods)

    @property
    def order(self) -> tuple[int, int, int, int]:
        """SCORE-1 criteria 1–4 as an ascending sort key (most important first)."""
        return (-self.priority, -self.rank, -len(self.pods), self.earliest_start)

    @property
    def first_uid(self) -> str | None:
        """SCORE-1 criterion 5; the spec does not say which pod of a group unit is "first",
        so only a single-pod unit has one."""
        return self.pods[0].uid if len(self.pods) == 1 else None


def podgroup_units(scenario: PodGroupScenario) -> list[PodGroupUnit]:
    """PG-8: every running pod in exactly one unit — its ``All`` PodGroup with every running
    member on every node, or the pod alone."""
    members: dict[str, list[Pod]] = {}
    facts: dict[str, tuple[int, int]] = {}
    for pod in scenario.pods:
        g = _group(scenario, pod)
        if g is not None and g.disruption_mode is DisruptionMode.ALL:
            key = f"PodGroup/{g.namespace}/{g.name}"
        else:
            key = f"Pod/{pod.namespace}/{pod.name}"
        members.setdefault(key, []).append(pod)
        facts[key] = (pod_priority(scenario, pod), _GROUP_RANK if pod.pod_group is not None else _POD_RANK)
    return [PodGroupUnit(k, tuple(ps), *facts[k]) for k, ps in members.items()]


def _unit_by_pod(units: Iterable[PodGroupUnit]) -> dict[str, PodGroupUnit]:
    return {p.name: u for u in units for p in u.pods}


def _sorted_units(units: Iterable[PodGroupUnit]) -> tuple[list[PodGroupUnit], bool]:
    """SCORE-1, most important first, and whether the order is strict (no two units tie on
    every criterion the spec gives)."""
    ordered = sorted(units, key=lambda u: (u.order, u.first_uid or ""))
    strict = True
    for a, b in zip(ordered, ordered[1:]):
        if a.order == b.order and (a.first_uid is None or b.first_uid is None or a.first_uid == b.first_uid):
            strict = False
    return ordered, strict


def _selector_matches(pdb: PodDisruptionBudget, labels: Mapping[str, str]) -> bool:
    """PDB-1: matchLabels AND matchExpressions; an absent selector matches nothing, the empty
    one every pod of the namespace (policy/v1, the library's default reading, spec §9.3)."""
    selector = pdb.selector
    if selector is None:
        return False
    if any(labels.get(k) != v for k, v in selector.match_labels.items()):
        return False
    for r in selector.match_expressions:
        present = r.key in labels
        if r.operator == "In":
            ok = present and labels[r.key] in r.values
        elif r.operator == "NotIn":
            ok = not present or labels[r.key] not in r.values
        elif r.operator == "Exists":
            ok = present
        elif r.operator == "DoesNotExist":
            ok = not present
        else:
            return False  # an invalid requirement matches nothing
        if not ok:
            return False
    return True


def attempt_order(scenario: PodGroupScenario, units: Iterable[PodGroupUnit]) -> tuple[list[tuple[PodGroupUnit, int]], bool]:
    """PG-24, PG-25, PDB-2, PDB-3: ``(unit, violating pods)`` in reprieve-attempt order —
    violating units, then the others, each most important first — and whether SCORE-1 fixes
    that order."""
    ordered, strict = _sorted_units(units)
    budget = [pdb.disruptions_allowed for pdb in scenario.pdbs]
    violating: list[tuple[PodGroupUnit, int]] = []
    fine: list[tuple[PodGroupUnit, int]] = []
    for unit in ordered:
        count = 0
        for pod in unit.pods:
            hit = False
            for i, pdb in enumerate(scenario.pdbs):
                if pdb.namespace != pod.namespace or not _selector_matches(pdb, pod.labels):
                    continue
                if pod.name in pdb.disrupted_pods:
                    continue  # PDB-2: already accounted for by the API server
                budget[i] -= 1
                hit = hit or budget[i] < 0
            count += hit
        (violating if count else fine).append((unit, count))
    return violating + fine, strict


class Capacity:
    """Free room per node under the scenario's fit rule: FIT-1 (a pod slot and every requested
    resource) or the ``units`` rule of FIT-3 (only ``units`` summed, no slot count)."""

    def __init__(self, scenario: PodGroupScenario, present: Iterable[Pod]) -> None:
        self._units_rule = scenario.node_filter is NodeFilter.UNITS
        self.free: dict[str, dict[str, int]] = {n.name: dict(n.amounts) for n in scenario.nodes}
        self.slots: dict[str, int] = {n.name: n.amounts.get("pods", 0) for n in scenario.nodes}
        for pod in present:
            assert pod.node_name is not None
            self.take(pod, pod.node_name)

    def fits(self, pod: Pod, node: str) -> bool:
        free = self.free[node]
        if self._units_rule:
            return pod.amounts.get("units", 0) <= free.get("units", 0)
        if self.slots[node] < 1:
            return False
        return all(amount <= free.get(r, 0) for r, amount in pod.amounts.items() if amount > 0)

    def take(self, pod: Pod, node: str) -> None:
        free = self.free[node]
        for r, amount in pod.amounts.items():
            free[r] = free.get(r, 0) - amount
        self.slots[node] -= 1


def oracle_place(scenario: PodGroupScenario, present: Iterable[Pod]) -> tuple[bool, list[tuple[str, str]]]:
    """FIT-3 with FIT-2's success rule: ``(at least minCount placed, [(pod, node), ...])``.

    Nodes in scenario order; each pod, in order, tries them round-robin from the node after
    the previous placed pod's (the first pod from the first node) and takes the first that
    fits; a pod that fits nowhere is skipped.
    """
    cap = Capacity(scenario, present)
    names = [n.name for n in scenario.nodes]
    start = 0
    out: list[tuple[str, str]] = []
    for pod in scenario.preemptor.pods:
        for j in range(len(names)):
            i = (start + j) % len(names)
            if cap.fits(pod, names[i]):
                cap.take(pod, names[i])
                out.append((pod.name, names[i]))
                start = (i + 1) % len(names)
                break
    return len(out) >= scenario.preemptor.min_count, out


def _present_at(scenario: PodGroupScenario, level: int) -> list[Pod]:
    """The running pods once every unit of priority <= ``level`` is removed."""
    return [p for p in scenario.pods if pod_priority(scenario, p) > level]


def oracle_levels(scenario: PodGroupScenario) -> list[tuple[int, bool]]:
    """Every candidate priority level (PG-23), ascending, with "does placement succeed with the
    units of priority up to it removed" (FIT-2, FIT-3)."""
    top = preemptor_priority(scenario)
    levels = sorted({pod_priority(scenario, p) for p in scenario.pods if pod_priority(scenario, p) < top})
    return [(lvl, oracle_place(scenario, _present_at(scenario, lvl))[0]) for lvl in levels]


def replay_fits(scenario: PodGroupScenario, present: Iterable[Pod], nominations: Iterable[tuple[str, str]]) -> bool:
    """PG-27 step 3: do the nominated pods fit on their nodes, one after another in order?"""
    cap = Capacity(scenario, present)
    by_name = {p.name: p for p in scenario.preemptor.pods}
    for name, node in nominations:
        pod = by_name[name]
        if not cap.fits(pod, node):
            return False
        cap.take(pod, node)
    return True


# --------------------------------------------------------------------------- helpers on results


def _succeeded(result: PodGroupPreemptionResult) -> bool:
    return result.status.code is StatusCode.SUCCESS


def _victim_names(result: PodGroupPreemptionResult) -> set[str]:
    return {p.name for p in result.victims}


def _victim_units(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> list[PodGroupUnit]:
    """The spec units of the victims, in the order their first pod appears."""
    by_pod = _unit_by_pod(podgroup_units(scenario))
    out: list[PodGroupUnit] = []
    for p in result.victims:
        u = by_pod.get(p.name)
        if u is not None and u not in out:
            out.append(u)
    return out


def _remaining(scenario: PodGroupScenario, result: PodGroupPreemptionResult, *, back: PodGroupUnit | None = None) -> list[Pod]:
    gone = _victim_names(result) - (back.names if back is not None else frozenset())
    return [p for p in scenario.pods if p.name not in gone]


def _refusal(scenario: PodGroupScenario) -> tuple[str, str] | None:
    """PG-21, PG-31, PG-23: why the group preempts nothing before any placement, if it does not."""
    if scenario.preemptor.group.preemption_policy is PodPreemptionPolicy.NEVER:
        return "PG-21", "the group's preemptionPolicy is Never"
    if isinstance(scenario.preemptor.group, PodGroup) and scenario.preemptor.group.topology_keys:
        return "PG-31", "groups with topology constraints are refused"
    top = preemptor_priority(scenario)
    if not any(pod_priority(scenario, p) < top for p in scenario.pods):
        return "PG-23", "no running unit has a lower priority"
    return None


# --------------------------------------------------------------------------- checks


def check_podgroup_victim_units(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """PG-8, PDB-3, PG-28: victims are running pods, each once, forming whole units — an ``All``
    group on every node or none of it — and ``victim_units`` lists exactly those units."""
    running = {p.name for p in scenario.pods}
    names = [p.name for p in result.victims]
    assert len(names) == len(set(names)), f"PG-28: a victim is listed twice: {names}"
    for n in names:
        assert n in running, f"PG-22: victim {n} is not a running pod of the cluster"
    victims = set(names)
    for unit in podgroup_units(scenario):
        if unit.names & victims and not unit.names <= victims:
            missing = sorted(unit.names - victims)
            assert False, f"PG-8/PDB-3: {unit.key} is preempted only in part (left running: {missing})"
    listed = [frozenset(p.name for p in c.unit.pods) for c in result.victim_units]
    expected = [u.names for u in _victim_units(scenario, result)]
    assert sorted(map(sorted, listed)) == sorted(map(sorted, expected)), (
        f"PG-28: victim_units {[sorted(x) for x in listed]} are not the units of the victims {sorted(victims)}"
    )
    flat = [p.name for c in result.victim_units for p in c.unit.pods]
    assert sorted(flat) == sorted(names), "PG-28: the victims are not the pods of the victim units"


def check_podgroup_victim_priority(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """PG-23: every victim's effective priority (PG-7) is strictly below the group's (PG-10);
    in ``"kep"`` mode also at most the level ``N`` the search chose (spec §9.1)."""
    top = preemptor_priority(scenario)
    for v in result.victims:
        prio = pod_priority(scenario, v)
        assert prio < top, f"PG-23: victim {v.name} has priority {prio}, not below the preemptor's {top}"
        if scenario.mode is PreemptionMode.KEP and result.priority_threshold is not None:
            assert prio <= result.priority_threshold, (
                f"PG-30: victim {v.name} has priority {prio} above the search level N={result.priority_threshold}"
            )


def check_podgroup_fits_after_removal(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """PG-26, PG-27, FIT-1, FIT-2: on success at least ``minCount`` distinct preemptor pods are
    nominated to existing nodes, and they fit there one after another once the victims are gone."""
    if not _succeeded(result):
        return
    members = {p.name for p in scenario.preemptor.pods}
    nodes = {n.name for n in scenario.nodes}
    noms = list(result.nominations.items())
    for pod, node in noms:
        assert pod in members, f"PG-28: nomination of {pod}, which is not a pending member"
        assert node in nodes, f"PG-28: {pod} is nominated to unknown node {node!r}"
    assert len(noms) >= scenario.preemptor.min_count, (
        f"FIT-2: {len(noms)} pods nominated, the group needs minCount {scenario.preemptor.min_count}"
    )
    assert replay_fits(scenario, _remaining(scenario, result), noms), (
        f"PG-27/FIT-1: the nominated pods {noms} do not fit once the victims {sorted(_victim_names(result))} are removed"
    )


def check_podgroup_minimality(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """PG-27: no victim unit could have been reprieved — putting any one of them back breaks the
    nominated placement (fit only shrinks as pods are added, so a unit that failed when it was
    tried fails with every later reprieve too)."""
    if not _succeeded(result):
        return
    noms = list(result.nominations.items())
    for unit in _victim_units(scenario, result):
        if replay_fits(scenario, _remaining(scenario, result, back=unit), noms):
            assert False, f"PG-27: {unit.key} ({sorted(unit.names)}) could have been reprieved: the placement still fits with it"


def check_podgroup_outcome(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """PG-21, PG-23, PG-26, PG-30, spec §9.1: the status, the level ``N`` and the search.

    Refused (policy ``Never``, no lower-priority unit) or unplaceable groups are
    ``Unschedulable`` with no victim and no nomination. ``"kube"``: ``N`` is the highest
    candidate priority and success iff placement succeeds with every candidate removed.
    ``"kep"``: placement succeeds at ``N`` and fails at the level just below; every search step
    reports the placement's true outcome; failure only when even the top level fails; and when
    success is monotone over the levels, ``N`` is the lowest level that succeeds.
    """
    assert result.mode is scenario.mode, f"PG-30: result mode {result.mode} for a {scenario.mode} scenario"
    refusal = _refusal(scenario)
    code = result.status.code
    if refusal is not None:
        rule, why = refusal
        assert code is StatusCode.UNSCHEDULABLE, f"{rule}: {why}, but the status is {code.value}"
    if code is not StatusCode.SUCCESS:
        assert not result.victims and not result.nominations, (
            f"PG-26: a {code.value} result preempts nothing and nominates nothing"
        )
    if refusal is not None:
        return
    levels = oracle_levels(scenario)
    ok = dict(levels)
    if scenario.mode is PreemptionMode.KUBE:
        top = levels[-1][0]
        if ok[top]:
            assert code is StatusCode.SUCCESS, f"PG-26: the group fits with every candidate removed, status {code.value}"
            assert result.priority_threshold == top, f"PG-26: N={result.priority_threshold}, the highest candidate is {top}"
        else:
            assert code is StatusCode.UNSCHEDULABLE, f"PG-26: the group does not fit even with every candidate removed, status {code.value}"
        return
    for step in result.search_steps:
        assert step.priority in ok, f"PG-30: the search probed {step.priority}, not a candidate level"
        assert step.succeeded == ok[step.priority], (
            f"FIT-2: the search says placement at level {step.priority} {'succeeds' if step.succeeded else 'fails'}; it does not"
        )
    if code is not StatusCode.SUCCESS:
        assert code is StatusCode.UNSCHEDULABLE, f"PG-26: status {code.value}"
        assert not levels[-1][1], f"PG-30: the group fits with every candidate removed (level {levels[-1][0]}), yet the search failed"
        return
    n = result.priority_threshold
    assert n is not None and n in ok, f"PG-30: N={n} is not a candidate priority level"
    assert ok[n], f"FIT-2: placement fails at the chosen level N={n}"
    below = [lvl for lvl, _ in levels if lvl < n]
    assert not below or not ok[below[-1]], f"PG-30: placement already succeeds at level {below[-1]}, below N={n}"
    successes = [s for _, s in levels]
    if successes == sorted(successes):
        first = next(lvl for lvl, s in levels if s)
        assert n == first, f"PG-30: the lowest sufficient level is {first}, the search chose N={n}"


def check_podgroup_nominations(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """PG-26, PG-28, FIT-3: on success the nominations are exactly the placement made with the
    units up to ``N`` removed, every placed pod nominated to its node, in placement order."""
    if not _succeeded(result) or result.priority_threshold is None:
        return
    ok, expected = oracle_place(scenario, _present_at(scenario, result.priority_threshold))
    got = list(result.nominations.items())
    assert got == expected, f"PG-28/FIT-3: nominations {got}, the placement at N={result.priority_threshold} is {expected}"


def check_podgroup_counters(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """PG-28, PDB-5: ``num_podgroup_disruptions`` counts the victim units whose pods reference a
    PodGroup (an existing one or not); ``num_pdb_violations`` is the sum of the victim units'
    violating-pod counts, which (when SCORE-1 fixes the order) are those of PDB-2/PDB-3."""
    units = _victim_units(scenario, result)
    disruptions = sum(1 for u in units if u.pods[0].pod_group is not None)
    assert result.num_podgroup_disruptions == disruptions, (
        f"PG-28: {result.num_podgroup_disruptions} PodGroup disruptions reported, the victims have {disruptions}"
    )
    total = sum(c.violating_pods for c in result.victim_units)
    assert result.num_pdb_violations == total, (
        f"PDB-5: {result.num_pdb_violations} PDB violations reported, the victim units carry {total}"
    )
    if not _succeeded(result) or result.priority_threshold is None:
        return
    top = preemptor_priority(scenario)
    allowed = [u for u in podgroup_units(scenario) if u.priority < top and u.priority <= result.priority_threshold]
    order, strict = attempt_order(scenario, allowed)
    if not strict:
        return
    violating = {u.key: n for u, n in order}
    by_pod = _unit_by_pod(allowed)
    for c in result.victim_units:
        unit = by_pod.get(c.unit.pods[0].name) if c.unit.pods else None
        if unit is None:
            continue  # not a candidate: check_podgroup_victim_priority reports it
        assert c.violating_pods == violating[unit.key], (
            f"PDB-2/PDB-3: {unit.key} has {c.violating_pods} violating pods, the budgets give {violating[unit.key]}"
        )
    position = {u.key: i for i, (u, _) in enumerate(order)}
    seen = [position[u.key] for u in units if u.key in position]
    assert seen == sorted(seen), "PG-25/PG-28: the victims are not in attempt order (violating first, then by SCORE-1)"


@dataclass(frozen=True)
class PodGroupReference:
    """What the spec says the decision is (see :func:`reference_podgroup`)."""

    status: StatusCode
    rule: str
    """The rule that decided the outcome (PG-21, PG-23, PG-26, PG-27, PG-31)."""
    threshold: int | None = None
    nominations: tuple[tuple[str, str], ...] = ()
    victim_units: tuple[frozenset[str], ...] | None = ()
    """Victim units' pod names in attempt order; ``None`` when SCORE-1 ties leave it open."""
    num_pdb_violations: int | None = 0
    num_podgroup_disruptions: int | None = 0


def reference_podgroup(scenario: PodGroupScenario, *, threshold: int | None = None) -> PodGroupReference | None:
    """The decision transcribed from the spec (PG-21..PG-28, §9.1), or ``None`` where the spec
    leaves it open: in ``"kep"`` mode, when placement success is not monotone over the levels and
    no ``threshold`` is given (pass the result's ``N`` once :func:`check_podgroup_outcome`
    accepted it). Ties in the attempt order give ``victim_units=None`` (nominations and status
    stay fixed). Cost: one FIT-3 placement per priority level, one replay per candidate unit.
    """
    refusal = _refusal(scenario)
    if refusal is not None:
        return PodGroupReference(StatusCode.UNSCHEDULABLE, refusal[0])
    levels = oracle_levels(scenario)
    ok = dict(levels)
    if scenario.mode is PreemptionMode.KUBE:
        n: int | None = levels[-1][0] if ok[levels[-1][0]] else None
    elif threshold is not None:
        n = threshold
    else:
        successes = [s for _, s in levels]
        if successes != sorted(successes) and any(successes):
            return None
        n = next((lvl for lvl, s in levels if s), None)
    if n is None:
        return PodGroupReference(StatusCode.UNSCHEDULABLE, "PG-26")
    _, assignments = oracle_place(scenario, _present_at(scenario, n))
    top = preemptor_priority(scenario)
    allowed = [u for u in podgroup_units(scenario) if u.priority < top and u.priority <= n]
    order, strict = attempt_order(scenario, allowed)
    removed = {u.key for u, _ in order}
    victims: list[tuple[PodGroupUnit, int]] = []
    for unit, violating in order:
        removed.discard(unit.key)
        present = [p for p in scenario.pods if unit_key(scenario, p) not in removed]
        if not replay_fits(scenario, present, assignments):
            removed.add(unit.key)
            victims.append((unit, violating))
    if not strict:
        return PodGroupReference(StatusCode.SUCCESS, "PG-27", n, tuple(assignments), None, None, None)
    return PodGroupReference(
        StatusCode.SUCCESS,
        "PG-27",
        n,
        tuple(assignments),
        tuple(u.names for u, _ in victims),
        sum(c for _, c in victims),
        sum(1 for u, _ in victims if u.pods[0].pod_group is not None),
    )


def unit_key(scenario: PodGroupScenario, pod: Pod) -> str:
    """PG-8: the key of ``pod``'s unit (``PodGroup/<ns>/<name>`` for an ``All`` group, else
    ``Pod/<ns>/<name>``)."""
    g = _group(scenario, pod)
    if g is not None and g.disruption_mode is DisruptionMode.ALL:
        return f"PodGroup/{g.namespace}/{g.name}"
    return f"Pod/{pod.namespace}/{pod.name}"


def check_podgroup_reference(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """The result equals :func:`reference_podgroup` wherever the spec fixes it (rule of the
    step that decides: PG-21/PG-23/PG-26 for the status, PG-27/PG-28 for victims)."""
    given_n = None
    if scenario.mode is PreemptionMode.KEP and _succeeded(result):
        given_n = result.priority_threshold  # accepted by check_podgroup_outcome
    ref = reference_podgroup(scenario, threshold=given_n)
    if ref is None:
        return
    code = result.status.code
    assert code is ref.status, f"{ref.rule}: status {code.value}, the spec gives {ref.status.value}"
    if ref.status is not StatusCode.SUCCESS:
        return
    assert result.priority_threshold == ref.threshold, f"PG-30: N={result.priority_threshold}, the spec gives {ref.threshold}"
    got_noms = tuple(result.nominations.items())
    assert got_noms == ref.nominations, f"PG-28: nominations {got_noms}, the spec gives {ref.nominations}"
    if ref.victim_units is None:
        return
    got = tuple(frozenset(p.name for p in c.unit.pods) for c in result.victim_units)
    assert got == ref.victim_units, (
        f"PG-27: victim units {[sorted(u) for u in got]}, the spec gives {[sorted(u) for u in ref.victim_units]}"
    )
    flat = [p.name for p in result.victims]
    expected_flat = [n for u in ref.victim_units for n in sorted(u)]
    assert sorted(flat) == sorted(expected_flat), f"PG-28: victims {flat}, the spec gives {expected_flat}"
    assert result.num_pdb_violations == ref.num_pdb_violations, (
        f"PDB-5: {result.num_pdb_violations} PDB violations, the spec gives {ref.num_pdb_violations}"
    )
    assert result.num_podgroup_disruptions == ref.num_podgroup_disruptions, (
        f"PG-28: {result.num_podgroup_disruptions} PodGroup disruptions, the spec gives {ref.num_podgroup_disruptions}"
    )


def check_podgroup(scenario: PodGroupScenario, result: PodGroupPreemptionResult) -> None:
    """Every PodGroup invariant, then the comparison with :func:`reference_podgroup`.

    Scope: scenarios without earlier preemptions in flight (no member has a nominated node, so
    PG-20 / PG-DELAY-1 / PG-DELAY-2 do not apply) and with the default placement (FIT-3).
    Cost: O(levels) placements plus O(victim units) replays.
    """
    check_podgroup_victim_units(scenario, result)
    check_podgroup_victim_priority(scenario, result)
    check_podgroup_outcome(scenario, result)
    check_podgroup_fits_after_removal(scenario, result)
    check_podgroup_minimality(scenario, result)
    check_podgroup_nominations(scenario, result)
    check_podgroup_counters(scenario, result)
    check_podgroup_reference(scenario, result)

"""Classic per-node preemption for a single pending pod (NODE-1..NODE-13, SCORE-3).

Reading guide: :func:`preempt_pod` is the whole algorithm (kube-scheduler's
``DefaultPreemption`` post-filter): refusals (feature switches, NODE-1, NODE-2), then
:func:`dry_run_preemption` over the nodes where preemption might help (NODE-3, NODE-12),
which calls :func:`select_victims_on_node` for each node (NODE-4..NODE-11), then
:func:`select_candidate` (SCORE-3) and the nomination (NODE-13). Each step is public so that
callers (and kube-scheduler's own test cases) can use it alone.

Victims are preemption units (PG-8, NODE-11): a unit of an ``All`` group with a pod on the
node is evicted whole, its pods on other nodes count as victims, but only this node's
capacity is re-checked. Each node is evaluated on a private copy (:class:`NodeScratch`)
of the original state with fresh PDB budgets (PDB-6), sequentially from an explicit offset
(§9.10), so results are deterministic.

Hooks: ``eligibility(preemptor, victim_pod) -> bool`` narrows the potential victims (NODE-4;
a unit is eligible when every one of its pods is), ``ordering(unit) -> key`` replaces the
importance order (NODE-6; ascending key = more important, ties keep the default order), and
``score_functions`` replace SCORE-3's criteria (each maps a candidate to an int, higher is
better).
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable, Iterable, Mapping, Sequence

import attrs

from kueue_preempt._util.frozen import FrozenMap
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.podgroup.cluster import Cluster
from kueue_preempt.podgroup.features import PreemptionFeatures
from kueue_preempt.podgroup.model import Pod, PodPreemptionPolicy
from kueue_preempt.podgroup.pdb import ClassifiedUnit, PdbSelectorSemantics, classify_units
from kueue_preempt.podgroup.status import Status, StatusCode
from kueue_preempt.podgroup.units import PreemptionUnit

__all__ = [
    "EligibilityHook",
    "OrderingKey",
    "ScoreFunction",
    "NodeCandidate",
    "NodeVictims",
    "DryRunResult",
    "PodPreemptionResult",
    "DEFAULT_SCORE_FUNCTIONS",
    "pod_eligible_to_preempt_others",
    "select_victims_on_node",
    "num_candidates",
    "dry_run_preemption",
    "select_candidate",
    "preempt_pod",
]

EligibilityHook = Callable[[Pod, Pod], bool]
"""``eligibility(preemptor, victim_pod)``: may this pod be preempted by this preemptor?"""
OrderingKey = Callable[[PreemptionUnit], Any]
"""Sort key replacing the importance order of victims: ascending = more important."""

MSG_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TERMINATING = "not eligible due to a terminating pod on the nominated node."
MSG_WORKLOAD_AWARE = "not eligible due to workload aware preemption enabled"
MSG_TOPOLOGY = "not eligible due to placement-based pod group scheduling limitation"
MSG_NO_VICTIMS = "No preemption victims found for incoming pod"
MSG_NOT_HELPFUL = "Preemption is not helpful for scheduling"

_PRIORITY_SHIFT = 2**31  # SCORE-3 criterion 3: makes every shifted priority positive


@attrs.frozen
class NodeCandidate:
    """A node where evicting ``victims`` makes the preemptor fit (NODE-8, NODE-9)."""

    node: str
    victim_units: tuple[ClassifiedUnit, ...]
    """Most important first (NODE-9), under the ordering in force."""
    num_pdb_violations: int
    victims: tuple[Pod, ...] = attrs.field(init=False)
    """The pods of :attr:`victim_units`, in that order (pods on other nodes included, NODE-11)."""

    @victims.default
    def _victims(self) -> tuple[Pod, ...]:
        return tuple(p for c in self.victim_units for p in c.unit.pods)


ScoreFunction = Callable[[NodeCandidate], int]
"""SCORE-3 criterion: higher is better; candidates below the best score are dropped."""


@attrs.frozen
class NodeVictims:
    """One node's evaluation: ``Success`` with a candidate, or why the node cannot help."""

    status: Status
    candidate: NodeCandidate | None = None


@attrs.frozen
class DryRunResult:
    """Candidates of a dry run (NODE-12): non-violating ones first, then violating ones."""

    candidates: tuple[NodeCandidate, ...]
    node_statuses: FrozenMap[str, Status]
    """The outcome of every node evaluated (failures only; candidates are in ``candidates``)."""
    num_candidates: int
    """How many candidates were wanted (NODE-12)."""
    nodes_evaluated: int


@attrs.frozen
class PodPreemptionResult:
    """The decision for one pending pod (NODE-13). Nothing is actuated (PG-32)."""

    status: Status
    nominated_node_name: str | None = None
    """``None``: leave the pod's nomination as it is; ``""``: clear it; else nominate there."""
    candidate: NodeCandidate | None = None
    cleared_nominations: tuple[Pod, ...] = ()
    """Lower-priority pending pods nominated to the chosen node, whose nomination is cleared."""
    node_statuses: FrozenMap[str, Status] = attrs.field(factory=FrozenMap)

    @property
    def victims(self) -> tuple[Pod, ...]:
        return self.candidate.victims if self.candidate is not None else ()


# --------------------------------------------------------------------------- NODE-1, NODE-2


def pod_eligible_to_preempt_others(
    preemptor: Pod,
    cluster: Cluster,
    nominated_node_status: StatusCode | str | None = None,
    *,
    eligibility: EligibilityHook | None = None,
) -> Status:
    """NODE-1, NODE-2: may ``preemptor`` preempt at all right now?

    ``Success`` if yes; otherwise ``Unschedulable`` with the reason. ``nominated_node_status``
    is what the normal filters said about the preemptor's nominated node (``None`` = nothing).
    """
    if preemptor.preemption_policy is PodPreemptionPolicy.NEVER:
        return Status.of(StatusCode.UNSCHEDULABLE, MSG_NEVER)
    nominated = preemptor.nominated_node_name
    unresolvable = (
        nominated_node_status is not None
        and StatusCode(nominated_node_status) is StatusCode.UNSCHEDULABLE_AND_UNRESOLVABLE
    )
    if nominated is not None and not unresolvable:
        for pod in cluster.pods_on(nominated):
            if (
                pod.preempted_by_scheduler
                and cluster.effective_priority(pod) < preemptor.priority
                and (eligibility is None or eligibility(preemptor, pod))
            ):
                return Status.of(StatusCode.UNSCHEDULABLE, MSG_TERMINATING)
    return Status(StatusCode.SUCCESS)


# --------------------------------------------------------------------------- NODE-4..NODE-11


def select_victims_on_node(
    preemptor: Pod,
    node: str,
    cluster: Cluster,
    *,
    eligibility: EligibilityHook | None = None,
    ordering: OrderingKey | None = None,
    pdb_semantics: PdbSelectorSemantics = PdbSelectorSemantics.API,
) -> NodeVictims:
    """The fewest, least important victims on ``node`` that make ``preemptor`` fit.

    NODE-4 potential victims (lower priority, eligible), NODE-5 infeasibility, NODE-6 order,
    NODE-7 PDB split, NODE-8 reprieve, NODE-9 victim order, NODE-10 (zero victims is an
    ``Error``). The cluster is not changed. Complexity: O(v log v) for v potential victims
    plus one fit check per victim.
    """
    potential = _potential_victims(preemptor, node, cluster, eligibility)
    if not potential:
        return NodeVictims(Status.of(StatusCode.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NO_VICTIMS))
    scratch = cluster.scratch(node)
    for unit in potential:
        scratch.remove(unit)
    failures = scratch.failures(preemptor)
    if failures:
        return NodeVictims(Status(StatusCode.UNSCHEDULABLE, failures))  # NODE-5
    if ordering is not None:
        potential.sort(key=ordering)  # NODE-6 hook; stable, so ties keep SCORE-1 order
    violating, non_violating = classify_units(
        potential, cluster.pdbs, lambda pod: cluster.covering_pdbs(pod, pdb_semantics)
    )
    victims: list[ClassifiedUnit] = []
    violations = 0
    from_violating = from_non_violating = False
    for classified in violating + non_violating:  # NODE-8
        scratch.restore(classified.unit)
        if scratch.fits(preemptor):
            continue  # reprieved
        scratch.remove(classified.unit)
        victims.append(classified)
        if classified.violating:
            violations += classified.violating_pods
            from_violating = True
        else:
            from_non_violating = True
    if not victims:
        return NodeVictims(Status.of(StatusCode.ERROR, f"expected at least one victim pod on node {node!r}"))
    if from_violating and from_non_violating:  # NODE-9
        rank = {id(u): i for i, u in enumerate(potential)}
        victims.sort(key=lambda c: rank[id(c.unit)])
    return NodeVictims(Status(StatusCode.SUCCESS), NodeCandidate(node, tuple(victims), violations))


def _potential_victims(
    preemptor: Pod, node: str, cluster: Cluster, eligibility: EligibilityHook | None
) -> list[PreemptionUnit]:
    """NODE-4/NODE-11: units with a pod on ``node``, strictly lower priority, eligible,
    most important first (SCORE-1)."""
    found: dict[str, PreemptionUnit] = {}
    for pod in cluster.pods_on(node):
        unit = cluster.unit_of(pod)
        if unit.key in found or unit.priority >= preemptor.priority:
            continue
        if eligibility is not None and not all(eligibility(preemptor, p) for p in unit.pods):
            continue
        found[unit.key] = unit
    return sorted(found.values(), key=lambda u: u.importance)


# --------------------------------------------------------------------------- NODE-12


def num_candidates(num_nodes: int, percentage: int = 10, absolute: int = 100) -> int:
    """NODE-12: ``min(n, max(n * percentage // 100, absolute))``.

    Raises :class:`~kueue_preempt.ConfigurationError` outside kube-scheduler's validation
    (percentage in 0..100, absolute >= 0, not both 0).
    """
    if not 0 <= percentage <= 100 or absolute < 0 or (percentage == 0 and absolute == 0):
        raise ConfigurationError(
            f"minCandidateNodesPercentage={percentage!r} must be in 0..100 and "
            f"minCandidateNodesAbsolute={absolute!r} >= 0, not both 0 (NODE-12)"
        )
    wanted = max(num_nodes * percentage // 100, absolute)
    return min(wanted, num_nodes)


def dry_run_preemption(
    preemptor: Pod,
    cluster: Cluster,
    potential_nodes: Sequence[str] | None = None,
    *,
    offset: int = 0,
    min_candidate_nodes_percentage: int = 10,
    min_candidate_nodes_absolute: int = 100,
    eligibility: EligibilityHook | None = None,
    ordering: OrderingKey | None = None,
    pdb_semantics: PdbSelectorSemantics = PdbSelectorSemantics.API,
) -> DryRunResult:
    """NODE-12: evaluate ``potential_nodes`` (default: all, in cluster order) circularly from
    ``offset``, each against the original state, until enough candidates are found.

    Stops once there is a non-violating candidate and both bounded lists together hold
    ``num_candidates``. Sequential and deterministic (§9.10). Complexity: one
    :func:`select_victims_on_node` per node visited.
    """
    nodes = list(potential_nodes) if potential_nodes is not None else list(cluster.node_names)
    wanted = num_candidates(len(nodes), min_candidate_nodes_percentage, min_candidate_nodes_absolute)
    non_violating: list[NodeCandidate] = []
    violating: list[NodeCandidate] = []
    statuses: dict[str, Status] = {}
    evaluated = 0
    n = len(nodes)
    for step in range(n):
        node = nodes[(offset + step) % n]
        evaluated += 1
        result = select_victims_on_node(
            preemptor, node, cluster, eligibility=eligibility, ordering=ordering, pdb_semantics=pdb_semantics
        )
        if result.candidate is None:
            statuses[node] = result.status
            continue
        bucket = non_violating if result.candidate.num_pdb_violations == 0 else violating
        if len(bucket) < wanted:  # the lists are bounded; extra candidates are dropped
            bucket.append(result.candidate)
        if non_violating and len(non_violating) + len(violating) >= wanted:
            break
    return DryRunResult(tuple(non_violating + violating), FrozenMap(statuses), wanted, evaluated)


# --------------------------------------------------------------------------- SCORE-3


def _fewest_pdb_violations(c: NodeCandidate) -> int:
    return -c.num_pdb_violations


def _lowest_highest_priority(c: NodeCandidate) -> int:
    return -c.victim_units[0].unit.priority if c.victim_units else 0


def _lowest_priority_sum(c: NodeCandidate) -> int:
    # Unit priority for every victim pod (§9.6); the shift makes fewer victims win even with
    # negative priorities.
    return -sum((v.unit.priority + _PRIORITY_SHIFT) * v.unit.size for v in c.victim_units)


def _fewest_victims(c: NodeCandidate) -> int:
    return -len(c.victims)


def _latest_start_of_top_victims(c: NodeCandidate) -> int:
    if not c.victim_units:
        return 0
    top = max(v.unit.priority for v in c.victim_units)
    return min(v.unit.earliest_start for v in c.victim_units if v.unit.priority == top)


DEFAULT_SCORE_FUNCTIONS: tuple[ScoreFunction, ...] = (
    _fewest_pdb_violations,
    _lowest_highest_priority,
    _lowest_priority_sum,
    _fewest_victims,
    _latest_start_of_top_victims,
)
"""SCORE-3 criteria 1-5, in order; criterion 6 (first remaining candidate) is implicit."""


def select_candidate(
    candidates: Sequence[NodeCandidate], score_functions: Sequence[ScoreFunction] = DEFAULT_SCORE_FUNCTIONS
) -> NodeCandidate | None:
    """SCORE-3: keep the best-scoring candidates criterion by criterion; first one wins.

    ``None`` when there are no candidates. Complexity: O(c · f) for c candidates, f criteria.
    """
    remaining = list(candidates)
    for score in score_functions:
        if len(remaining) <= 1:
            break
        scores = [score(c) for c in remaining]
        best = max(scores)
        remaining = [c for c, s in zip(remaining, scores) if s == best]
    return remaining[0] if remaining else None


# --------------------------------------------------------------------------- NODE-13


def preempt_pod(
    preemptor: Pod,
    cluster: Cluster,
    node_statuses: Mapping[str, StatusCode | str],
    *,
    default_node_status: StatusCode | str | None = None,
    nominated_node_status: StatusCode | str | None = None,
    offset: int = 0,
    min_candidate_nodes_percentage: int = 10,
    min_candidate_nodes_absolute: int = 100,
    eligibility: EligibilityHook | None = None,
    ordering: OrderingKey | None = None,
    score_functions: Sequence[ScoreFunction] = DEFAULT_SCORE_FUNCTIONS,
    features: PreemptionFeatures = PreemptionFeatures(),
    pdb_semantics: PdbSelectorSemantics = PdbSelectorSemantics.API,
) -> PodPreemptionResult:
    """Classic preemption for the pending pod ``preemptor`` (NODE-1..NODE-13).

    ``node_statuses`` is what normal scheduling said about each node; only nodes with
    ``Unschedulable`` are tried (NODE-3), nodes without an entry get
    ``default_node_status`` (``None``: not tried). The result nominates the chosen node,
    lists its victims and the lower-priority pods whose nomination is cleared; without a
    candidate the nomination is cleared and the status summarises every node.
    """
    refusal = _refusal(preemptor, cluster, features)
    if refusal is not None:
        return PodPreemptionResult(refusal)
    eligible = pod_eligible_to_preempt_others(preemptor, cluster, nominated_node_status, eligibility=eligibility)
    if not eligible.is_success:
        return PodPreemptionResult(eligible)

    statuses: dict[str, Status] = {}
    potential: list[str] = []
    for name in cluster.node_names:  # NODE-3
        raw = node_statuses.get(name, default_node_status)
        if raw is not None and StatusCode(raw) is StatusCode.UNSCHEDULABLE:
            potential.append(name)
        else:
            statuses[name] = Status.of(StatusCode.UNSCHEDULABLE_AND_UNRESOLVABLE, MSG_NOT_HELPFUL)
    dry = dry_run_preemption(
        preemptor,
        cluster,
        potential,
        offset=offset,
        min_candidate_nodes_percentage=min_candidate_nodes_percentage,
        min_candidate_nodes_absolute=min_candidate_nodes_absolute,
        eligibility=eligibility,
        ordering=ordering,
        pdb_semantics=pdb_semantics,
    )
    statuses.update(dry.node_statuses)
    frozen = FrozenMap({n: statuses[n] for n in cluster.node_names if n in statuses})
    errors = [f"{n}: {s.message}" for n, s in frozen.items() if s.code is StatusCode.ERROR]
    if errors:
        return PodPreemptionResult(Status(StatusCode.ERROR, errors), node_statuses=frozen)
    chosen = select_candidate(dry.candidates, score_functions)
    if chosen is None:
        summary = _summary(len(cluster.nodes), frozen.values())
        return PodPreemptionResult(Status.of(StatusCode.UNSCHEDULABLE, summary), "", node_statuses=frozen)
    cleared = tuple(
        p
        for p in cluster.pending_pods
        if p.nominated_node_name == chosen.node
        and p.key != preemptor.key
        and cluster.effective_priority(p) < preemptor.priority
    )
    return PodPreemptionResult(
        Status(StatusCode.SUCCESS), chosen.node, chosen, cleared_nominations=cleared, node_statuses=frozen
    )


def _refusal(preemptor: Pod, cluster: Cluster, features: PreemptionFeatures) -> Status | None:
    """NODE-11: a PodGroup member is preempted through its group, not here."""
    if preemptor.pod_group is None:
        return None
    if features.topology_aware_workload_scheduling:
        group = cluster.groups.pod_group(preemptor.namespace, preemptor.pod_group)
        if group is None or group.topology_keys:
            return Status.of(StatusCode.UNSCHEDULABLE, MSG_TOPOLOGY)
    if features.workload_aware_preemption:
        return Status.of(StatusCode.UNSCHEDULABLE, MSG_WORKLOAD_AWARE)
    return None


def _summary(num_nodes: int, statuses: Iterable[Status]) -> str:
    """kube-scheduler's "0/N nodes are available: <count> <reason>, ...." line (NODE-13)."""
    histogram: Counter[str] = Counter()
    for status in statuses:
        histogram.update(status.reasons)
    entries = sorted(f"{count} {reason}" for reason, count in histogram.items())
    text = f"0/{num_nodes} nodes are available"
    return f"{text}: {', '.join(entries)}." if entries else f"{text}."

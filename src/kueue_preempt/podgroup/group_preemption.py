"""Workload-aware (PodGroup) preemption: choose victims for a whole group (PG-20..PG-31).

Reading guide: :func:`select_podgroup_victims` is the entry point. It runs, in order:

1. a member already waits for earlier victims on its nominated node (PG-20): in ``"kube"``
   mode re-issue the current nominations, nothing else; in ``"kep"`` mode check whether the
   original nomination is still feasible once those victims are gone (PG-DELAY-1: then no new
   victim) or start from scratch on the cluster without them (PG-DELAY-2), see :mod:`.delayed`;
2. PG-21 — the group's preemption policy (:func:`resolve_preemption_policy`); ``Never`` stops;
3. PG-31 — topology-constrained groups are refused;
4. PG-22..PG-24 — candidate units: every unit of lower priority, most important first
   (:func:`podgroup_candidates`, which also serves kube-scheduler's victim-generation tests);
5. the search for how far down the candidates must go —

   * mode ``"kep"`` (the default, KEP-5710 and spec §9.1): over the distinct candidate
     priorities ``p1 < ... < pk``, find the smallest ``N`` such that the group can be placed
     with only units of priority ≤ ``N`` removed; a real binary search, O(log k)
     placements (``search="exponential"`` gallops up from the lowest level, O(log N);
     ``search="linear"`` scans upwards, for comparison);
   * mode ``"kube"`` (PG-26, PG-30): kube-scheduler's shipped behaviour, no search: remove
     every candidate and place once;

6. PG-25 — PDB classification of the units that may be preempted, which fixes the order in
   which they are offered reprieve;
7. PG-27 — reprieve by replay, asking the optional reprieve filter (PG-29 for its errors);
8. PG-28 — the result: victims, counters, nominations, and the search trace.

The cluster is changed only through its exact-inverse operations, and a rollback to the
checkpoint taken at the start restores it before returning, whatever happens (an exception
included), so one :class:`Cluster` can serve many preemptors.

Binary search and monotonicity: the search assumes that removing more units never turns a
successful placement into a failed one. That holds for placements whose success depends only
on free capacity (e.g. pods of equal size), but a greedy first fit can violate it (spec FIT-3
is greedy). Whatever the placement, the result satisfies: placement succeeds at ``N`` and
fails at the level just below it; when success is monotone in the level, ``N`` is exactly
the linear scan's answer. See docs/podgroup.md.
"""

from __future__ import annotations

import enum
from typing import Iterable, Protocol, Sequence

import attrs

from kueue_preempt._util.frozen import FrozenMap
from kueue_preempt._util.checks import arg, optional_arg
from kueue_preempt.errors import ConfigurationError, InvalidArgument
from kueue_preempt.preemption.common.trace import DecisionTrace, Verdict
from kueue_preempt.podgroup.cluster import Cluster
from kueue_preempt.podgroup.delayed import in_flight_pods, in_flight_units, nomination_feasible, waiting_for_victims
from kueue_preempt.podgroup.errors import ReprieveFilterError
from kueue_preempt.podgroup.features import PreemptionFeatures
from kueue_preempt.podgroup.model import PodGroup, Pod, PodGroupPreemptor, PodPreemptionPolicy
from kueue_preempt.podgroup.pdb import ClassifiedUnit, PdbSelectorSemantics, classify_units
from kueue_preempt.podgroup.placement import Placement, PlacementOutcome, round_robin_first_fit, run_placement
from kueue_preempt.podgroup.status import Status, StatusCode
from kueue_preempt.podgroup.units import GroupIndex, PreemptionUnit

__all__ = [
    "PreemptionMode",
    "SearchStrategy",
    "ReprieveFilter",
    "SearchStep",
    "CandidateVictims",
    "PodGroupPreemptionResult",
    "resolve_preemption_policy",
    "podgroup_candidates",
    "select_podgroup_victims",
]

MSG_ONGOING = "ongoing preemption on nominated nodes"
MSG_NEVER = "not eligible due to preemptionPolicy=Never."
MSG_TOPOLOGY = "preemption is not supported with topology constraints"
MSG_NO_VICTIMS = "No preemption victims found for incoming preemptor"


class PreemptionMode(str, enum.Enum):
    """How far down the candidate units the group path is allowed to go (§9.1)."""

    KEP = "kep"
    """KEP-5710: search the smallest priority level that makes the group placeable."""
    KUBE = "kube"
    """kube-scheduler: remove every lower-priority unit, place once (PG-26, PG-30)."""

    def __str__(self) -> str:
        return self.value


class SearchStrategy(str, enum.Enum):
    """How ``"kep"`` mode finds the level ``N``."""

    BINARY = "binary"
    """The lowest possible level first, then bisection over the remaining distinct candidate
    priorities: at most 1 + ⌈log2(k)⌉ placements (the default, as spec §9.1 decides; the
    lowest level first because most preemptors need only the lowest levels). With the default
    placement under FIT-1, levels whose freed room cannot hold ``minCount`` pods are skipped
    without a placement (they cannot succeed)."""
    EXPONENTIAL = "exponential"
    """Galloping search from the lowest level (levels 0, 1, 3, 7, ... until one succeeds,
    then bisection inside the last gap): O(log N) placements for the N-th level, at most
    2⌈log2(k+1)⌉. Cheaper than bisection when N is low, because it also removes and
    restores fewer units."""
    LINEAR = "linear"
    """Try the levels from the lowest up; at most k placements (for comparison)."""

    def __str__(self) -> str:
        return self.value


class ReprieveFilter(Protocol):
    """Hook consulted during reprieve (PG-27), e.g. by a quota system such as Kueue.

    ``should_try(unit)`` says whether ``unit`` may be offered reprieve at all (``False``
    keeps it a victim without a capacity check); ``reprieved(unit)`` is told when a unit was
    reprieved. Either may raise :class:`~kueue_preempt.podgroup.ReprieveFilterError` to make
    the whole preemption fail with status ``Error`` (PG-29).
    """

    def should_try(self, unit: PreemptionUnit) -> bool: ...

    def reprieved(self, unit: PreemptionUnit) -> None: ...


@attrs.frozen
class SearchStep:
    """One placement of the ``"kep"`` search: units of priority ≤ ``priority`` removed."""

    priority: int
    succeeded: bool
    placed: int
    """How many preemptor pods the placement placed."""


@attrs.frozen
class CandidateVictims:
    """Victim candidates of a group preemptor before any placement (PG-21..PG-25)."""

    status: Status
    preemptor_priority: int
    attempt_order: tuple[ClassifiedUnit, ...] = ()
    """Violating units most important first, then non-violating units most important first
    (PG-25). kube-scheduler stores the reverse of this list."""


@attrs.frozen
class PodGroupPreemptionResult:
    """The decision for one group preemptor (PG-28). Nothing is actuated (PG-32)."""

    status: Status
    mode: PreemptionMode
    victims: tuple[Pod, ...] = ()
    """Pods to evict: the pods of every victim unit, units in attempt order (PG-28)."""
    victim_units: tuple[ClassifiedUnit, ...] = ()
    num_pdb_violations: int = 0
    """Sum of violating-pod counts over the victim units (PDB-5)."""
    num_podgroup_disruptions: int = 0
    """Victim units whose first pod references a PodGroup (PG-28)."""
    nominations: FrozenMap[str, str] = attrs.field(factory=FrozenMap)
    """Preemptor pod name -> nominated node. ``""`` = no nomination / nomination cleared; it
    appears only when earlier preemptions are in flight (PG-20, PG-DELAY-1, PG-DELAY-2), where
    every member is listed."""
    reprieved: tuple[PreemptionUnit, ...] = ()
    """Candidate units that were put back and stay running (PG-27)."""
    search_steps: tuple[SearchStep, ...] = ()
    """The ``"kep"`` search, in the order the levels were tried (empty in ``"kube"`` mode)."""
    priority_threshold: int | None = None
    """``N``: the highest priority that may be preempted (``"kep"``), or the highest
    candidate priority (``"kube"``); ``None`` when no placement was attempted."""
    placements: int = 0
    """How many times the placement function ran."""
    in_flight: tuple[Pod, ...] = ()
    """``"kep"`` mode, earlier preemptions in flight (PG-DELAY-1, PG-DELAY-2): the pods of the
    triggered preemptions, taken as already gone. Never among :attr:`victims`."""
    nomination_feasible: bool | None = None
    """``"kep"`` mode, earlier preemptions in flight: whether the original nomination still
    works once they complete (PG-DELAY-1: no new victim) or not (PG-DELAY-2: selection from
    scratch). ``None`` when nothing was in flight, and always in ``"kube"`` mode (PG-20)."""


def resolve_preemption_policy(
    preemptor: PodGroupPreemptor, *, group_policy_enabled: bool = True, groups: GroupIndex | None = None
) -> PodPreemptionPolicy:
    """PG-21: the group's policy, or ``Never`` if any unscheduled member says ``Never``.

    With ``group_policy_enabled`` (kube's ``PodGroupPreemptionPolicy``) the group's policy
    decides and members are ignored; with a CompositePodGroup hierarchy (``groups``) the
    root's policy decides, like the priority (PG-10). Without it, any member with ``Never``
    makes the group ``Never``.
    """
    if group_policy_enabled:
        if groups is not None:
            return groups.group_preemption_policy(preemptor.group)
        return preemptor.group.preemption_policy
    if any(p.preemption_policy is PodPreemptionPolicy.NEVER for p in preemptor.pods):
        return PodPreemptionPolicy.NEVER
    return PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY


def podgroup_candidates(
    preemptor: PodGroupPreemptor,
    cluster: Cluster,
    *,
    features: PreemptionFeatures = PreemptionFeatures(),
    pdb_semantics: PdbSelectorSemantics = PdbSelectorSemantics.API,
) -> CandidateVictims:
    """PG-21..PG-25 without placement: eligible units in reprieve-attempt order.

    Status ``Unschedulable`` when the policy is ``Never`` (PG-21) or no unit has a lower
    priority (PG-23). Complexity: O(u) over the cluster's u units (pre-sorted) plus the PDB
    classification.
    """
    priority, refusal, units = _candidate_units(preemptor, cluster, features)
    if refusal is not None:
        return CandidateVictims(refusal[1], priority)
    order = _attempt_order(cluster, units, pdb_semantics)
    return CandidateVictims(Status(StatusCode.SUCCESS), priority, tuple(order))


def select_podgroup_victims(
    preemptor: PodGroupPreemptor,
    cluster: Cluster,
    *,
    mode: PreemptionMode | str = PreemptionMode.KEP,
    search: SearchStrategy | str = SearchStrategy.BINARY,
    placement: Placement = round_robin_first_fit,
    reprieve_filter: ReprieveFilter | None = None,
    features: PreemptionFeatures = PreemptionFeatures(),
    pdb_semantics: PdbSelectorSemantics | str = PdbSelectorSemantics.API,
    trace: DecisionTrace | None = None,
) -> PodGroupPreemptionResult:
    """Victims that make room for the pending group ``preemptor`` (PG-20..PG-31, PG-DELAY-1, PG-DELAY-2).

    ``mode="kep"`` (default) searches the lowest sufficient priority level first (§9.1);
    ``mode="kube"`` reproduces kube-scheduler (PG-26, PG-30). When a member's nominated node
    shows that earlier preemptions are still in flight (PG-20), ``"kube"`` re-issues the
    nominations and ``"kep"`` applies PG-DELAY-1 / PG-DELAY-2. ``placement`` decides where
    pods go (default: FIT-3 round-robin first fit). ``reprieve_filter`` is the optional PG-27
    hook; its :class:`ReprieveFilterError` gives status ``Error`` (PG-29). ``cluster`` is
    left exactly as it was.

    Complexity: ``"kep"`` runs at most 1 + ⌈log2(k)⌉ placements (the lowest level, then a bisection) for k distinct candidate
    priorities (``search="exponential"``: O(log N), ``search="linear"``: up to k), ``"kube"``
    one; moving between levels applies each level's precomputed footprint, O(pods moved);
    then one check per candidate unit, replaying only the assignments on the nodes that unit
    occupies. PG-DELAY-1 costs O(units + nominated members); PG-DELAY-2 first rebuilds the
    cluster without the in-flight pods, O(nodes + pods).
    """
    fn = "select_podgroup_victims"
    arg(preemptor, PodGroupPreemptor, fn, "preemptor")
    arg(cluster, Cluster, fn, "cluster")
    if not callable(placement):
        raise InvalidArgument(fn, "placement", f"expected a Placement function, got {type(placement).__name__}")
    if reprieve_filter is not None and not (
        callable(getattr(reprieve_filter, "should_try", None)) and callable(getattr(reprieve_filter, "reprieved", None))
    ):
        raise InvalidArgument(
            fn, "reprieve_filter", f"expected a ReprieveFilter (should_try, reprieved) or None, got {type(reprieve_filter).__name__}"
        )
    arg(features, PreemptionFeatures, fn, "features")
    optional_arg(trace, DecisionTrace, fn, "trace")
    mode = _as_mode(mode)
    search = _as_search(search)
    pdb_semantics = _as_pdb_semantics(pdb_semantics)
    priority = cluster.groups.group_priority(preemptor.group)
    if trace is not None:
        trace.add(Verdict.INFO, "PG-10", f"preemptor {_group_name(preemptor)} priority {priority}, mode {mode}")
    options = _Options(mode, search, placement, reprieve_filter, features, pdb_semantics, trace)

    # PG-20: a member is already waiting for victims on its nominated node.
    if waiting_for_victims(preemptor, cluster, priority):
        if mode is PreemptionMode.KEP:
            return _delayed(preemptor, cluster, priority, options)
        if trace is not None:
            trace.add(Verdict.NO_TARGETS, "PG-20", MSG_ONGOING)
        return PodGroupPreemptionResult(
            Status.of(StatusCode.SUCCESS, MSG_ONGOING), mode, nominations=_current_nominations(preemptor)
        )
    return _from_scratch(preemptor, cluster, options)


@attrs.frozen
class _Options:
    """The caller's choices, passed on unchanged to a run from scratch."""

    mode: PreemptionMode
    search: SearchStrategy
    placement: Placement
    reprieve_filter: ReprieveFilter | None
    features: PreemptionFeatures
    pdb_semantics: PdbSelectorSemantics
    trace: DecisionTrace | None


def _delayed(
    preemptor: PodGroupPreemptor, cluster: Cluster, priority: int, options: _Options
) -> PodGroupPreemptionResult:
    """``"kep"`` mode with earlier preemptions in flight (PG-DELAY-1, PG-DELAY-2)."""
    trace = options.trace
    units = in_flight_units(cluster, priority)
    gone = in_flight_pods(units)
    if trace is not None:
        for unit in units:
            trace.add(Verdict.INFO, "PG-DELAY-1", "triggered preemption in flight: taken as completed", unit.key)
    if nomination_feasible(preemptor, cluster, units):
        # PG-DELAY-1: the room the earlier victims leave is still enough; wait for them.
        if trace is not None:
            trace.add(Verdict.NO_TARGETS, "PG-DELAY-1", "the original nomination is still feasible: no new preemption")
        return PodGroupPreemptionResult(
            Status.of(StatusCode.SUCCESS, MSG_ONGOING),
            options.mode,
            nominations=_current_nominations(preemptor),
            in_flight=gone,
            nomination_feasible=True,
        )
    # PG-DELAY-2: clear the nominations and select again, the earlier victims already gone.
    if trace is not None:
        trace.add(
            Verdict.INFO,
            "PG-DELAY-2",
            "the original nomination is no longer feasible: nominations cleared, selection from scratch",
        )
    result = _from_scratch(preemptor, cluster.without_pods(gone), options)
    placed = dict(result.nominations)
    nominations = FrozenMap({p.name: placed.get(p.name, "") for p in preemptor.pods})
    return attrs.evolve(result, nominations=nominations, in_flight=gone, nomination_feasible=False)


def _current_nominations(preemptor: PodGroupPreemptor) -> FrozenMap[str, str]:
    """Every member's nomination as it stands (``""`` = none), re-issued unchanged (PG-20)."""
    return FrozenMap({p.name: p.nominated_node_name or "" for p in preemptor.pods})


def _from_scratch(preemptor: PodGroupPreemptor, cluster: Cluster, options: _Options) -> PodGroupPreemptionResult:
    """Steps 2-8: policy, candidates, search, classification, reprieve, result."""
    mode, trace = options.mode, options.trace
    features, pdb_semantics = options.features, options.pdb_semantics
    _, refusal, units = _candidate_units(preemptor, cluster, features)
    if refusal is not None:
        rule, status = refusal
        if trace is not None:
            trace.add(Verdict.NO_TARGETS, rule, status.message)
        return PodGroupPreemptionResult(status, mode)
    run = _Run(cluster, preemptor, options.placement, trace)
    try:
        return run.execute(mode, options.search, units, pdb_semantics, options.reprieve_filter)
    finally:
        run.restore()


# --------------------------------------------------------------------------- the run


class _Run:
    """One execution of steps 5-8 on ``cluster``; :meth:`restore` undoes every change."""

    def __init__(
        self, cluster: Cluster, preemptor: PodGroupPreemptor, placement: Placement, trace: DecisionTrace | None
    ) -> None:
        self.cluster = cluster
        self.preemptor = preemptor
        self.placement = placement
        self.trace = trace
        self.levels: list[tuple[int, list[PreemptionUnit]]] = []
        self.level = -1  # index of the highest priority level currently removed
        self.steps: list[SearchStep] = []
        self.placements = 0
        self.checkpoint = cluster.checkpoint()

    def execute(
        self,
        mode: PreemptionMode,
        search: SearchStrategy,
        units: list[PreemptionUnit],
        pdb_semantics: PdbSelectorSemantics,
        reprieve_filter: ReprieveFilter | None,
    ) -> PodGroupPreemptionResult:
        buckets: dict[int, list[PreemptionUnit]] = {}
        for unit in units:
            buckets.setdefault(unit.priority, []).append(unit)
        self.levels = sorted(buckets.items())
        k = len(self.levels)
        outcome: PlacementOutcome | None
        if mode is PreemptionMode.KUBE:
            chosen, outcome = k - 1, self._place_at(k - 1, record=False)  # PG-26
            if not outcome.succeeded:
                chosen = k
        else:
            chosen, outcome = self._search(search, k)
        if outcome is None or chosen >= k:
            return self._placement_failed(mode, outcome)
        threshold = self.levels[chosen][0]
        self._set_level(chosen)
        # Drop the units above N (§9.1); in "kube" mode nothing is above.
        allowed = [u for u in units if u.priority <= threshold]
        order = _attempt_order(self.cluster, allowed, pdb_semantics)  # PG-25
        return self._reprieve(mode, order, outcome, threshold, reprieve_filter)

    # -- step 5: the search

    def _search(self, search: SearchStrategy, k: int) -> tuple[int, PlacementOutcome | None]:
        """Smallest level index whose placement succeeds (``k`` if none), and its outcome."""
        outcomes: dict[int, PlacementOutcome] = {}
        if search is SearchStrategy.LINEAR:
            for i in range(k):
                outcomes[i] = self._place_at(i, record=True)
                if outcomes[i].succeeded:
                    return i, outcomes[i]
            return k, outcomes.get(k - 1)
        lo, hi = 0, k
        if search is SearchStrategy.BINARY and k > 1:
            # Probe the lowest level that can succeed first: it is the cheapest placement (fewest
            # units removed) and, for most preemptors, already enough, where a bisection would
            # start in the middle and need about log2(k) placements to come back down. Levels
            # below it fail a capacity bound that every FIT-1 placement obeys, so they are skipped
            # without a placement.
            # If the first probe fails, bisect the rest: at most 1 + ceil(log2(k)) placements.
            first = self._first_possible(k)
            outcomes[first] = self._place_at(first, record=True)
            if outcomes[first].succeeded:
                return first, outcomes[first]
            lo = first + 1
        if search is SearchStrategy.EXPONENTIAL:
            probe, stride = 0, 1
            while True:  # gallop until a level succeeds; every level below lo fails
                outcomes[probe] = self._place_at(probe, record=True)
                if outcomes[probe].succeeded:
                    hi = probe
                    break
                lo = probe + 1
                if probe == k - 1:
                    return k, outcomes[probe]
                probe, stride = min(k - 1, probe + stride), stride * 2
        while lo < hi:  # invariant: level hi succeeds (or hi == k), level lo - 1 fails
            mid = (lo + hi) // 2
            outcomes[mid] = self._place_at(mid, record=True)
            if outcomes[mid].succeeded:
                hi = mid
            else:
                lo = mid + 1
        return lo, outcomes.get(lo if lo < k else k - 1)

    def _first_possible(self, k: int) -> int:
        """The lowest level index that the capacity bound does not rule out (at most ``k - 1``,
        so that a search that fails everywhere still ends with a real placement's outcome).

        Only for the default placement: it places a pod only where FIT-1 says it fits, which
        is what makes the bound a necessary condition. A caller's placement function may
        place pods anywhere, so it gets no pruning (the search may probe any of its levels).
        """
        if self.placement is not round_robin_first_fit:
            return 0
        priorities = [p for p, _ in self.levels]
        first = min(k - 1, self.cluster.first_roomy_level(self.preemptor.pods, self.preemptor.min_count, priorities))
        if first > 0 and self.trace is not None:
            self.trace.add(
                Verdict.INFO,
                "FIT-2",
                f"levels of priority <= {priorities[first - 1]} skipped without a placement: even with "
                f"them removed, the nodes' free room cannot hold minCount {self.preemptor.min_count} pods",
            )
        return first

    def _place_at(self, index: int, *, record: bool) -> PlacementOutcome:
        self._set_level(index)
        outcome = run_placement(self.cluster, self.placement, self.preemptor.pods, self.preemptor.min_count)
        self.placements += 1
        priority = self.levels[index][0]
        if record:
            self.steps.append(SearchStep(priority, outcome.succeeded, len(outcome.assignments)))
        if self.trace is not None:
            verdict = "succeeds" if outcome.succeeded else "fails"
            self.trace.add(
                Verdict.INFO,
                "FIT-2",
                f"placement with units of priority <= {priority} removed {verdict}: "
                f"{len(outcome.assignments)}/{len(self.preemptor.pods)} pods placed, "
                f"minCount {self.preemptor.min_count}",
            )
        return outcome

    def _set_level(self, index: int) -> None:
        """Make exactly the units of levels ``0..index`` removed (exact inverses only).

        A level holds every unit of the cluster with that priority, because the candidates
        are all units below the preemptor's priority (PG-23).
        """
        while self.level < index:
            self.level += 1
            self.cluster.remove_level(self.levels[self.level][0])
        while self.level > index:
            self.cluster.restore_level(self.levels[self.level][0])
            self.level -= 1

    def _placement_failed(self, mode: PreemptionMode, outcome: PlacementOutcome | None) -> PodGroupPreemptionResult:
        placed = len(outcome.assignments) if outcome is not None else 0
        message = (
            f"pod group placement failed even with every lower-priority unit removed: "
            f"{placed}/{len(self.preemptor.pods)} pods placed, minCount {self.preemptor.min_count}"
        )
        if self.trace is not None:
            self.trace.add(Verdict.NO_TARGETS, "PG-26", message)
        return PodGroupPreemptionResult(
            Status.of(StatusCode.UNSCHEDULABLE, message),
            mode,
            search_steps=tuple(self.steps),
            placements=self.placements,
        )

    # -- step 7: reprieve by replay (PG-27)

    def _reprieve(
        self,
        mode: PreemptionMode,
        order: list[ClassifiedUnit],
        outcome: PlacementOutcome,
        threshold: int,
        hook: ReprieveFilter | None,
    ) -> PodGroupPreemptionResult:
        cluster = self.cluster
        assignments = outcome.assignments
        per_node: dict[str, list[Pod]] = {}
        for pod, node in assignments:
            per_node.setdefault(node, []).append(pod)
        # Fit is node-local, so putting a unit back can only break the assignments on the
        # nodes it occupies; the others passed on the previous replay and are unchanged. The
        # first replay covers every node (a fixed placement need not fit at all).
        replayable = self._replay(per_node, per_node.keys())
        victims: list[ClassifiedUnit] = []
        reprieved: list[PreemptionUnit] = []
        for classified in order:
            unit = classified.unit
            try:
                if hook is not None and not hook.should_try(unit):
                    victims.append(classified)
                    self._note(Verdict.TARGET, "PG-27", "the reprieve filter refused to try", unit)
                    continue
                if replayable and not any(node in per_node for node in unit.nodes):
                    # No assignment on its nodes: the replay cannot fail. The unit stays
                    # removed in the working state (no replay ever reads its nodes); the
                    # final rollback puts it back.
                    reprieved.append(unit)
                    self._note(Verdict.READMITTED, "PG-27", "no preemptor pod is assigned to its nodes", unit)
                    if hook is not None:
                        hook.reprieved(unit)
                    continue
                cluster.restore(unit)
                if replayable and self._replay(per_node, unit.nodes):
                    reprieved.append(unit)
                    self._note(Verdict.READMITTED, "PG-27", "the placement still fits with it", unit)
                    if hook is not None:
                        hook.reprieved(unit)
                    continue
                cluster.remove(unit)
                victims.append(classified)
                self._note(Verdict.TARGET, "PG-27", "the placement breaks without its room", unit)
            except ReprieveFilterError as exc:
                message = f"reprieve filter failed: {exc}"
                self._note(Verdict.NO_TARGETS, "PG-29", message, None)
                return PodGroupPreemptionResult(
                    Status.of(StatusCode.ERROR, message),
                    mode,
                    search_steps=tuple(self.steps),
                    priority_threshold=threshold,
                    placements=self.placements,
                )
        victim_pods = tuple(p for c in victims for p in c.unit.pods)
        return PodGroupPreemptionResult(
            Status.of(StatusCode.SUCCESS, f"found a placement for podgroup, preempting {len(victim_pods)} victims"),
            mode,
            victims=victim_pods,
            victim_units=tuple(victims),
            num_pdb_violations=sum(c.violating_pods for c in victims),
            num_podgroup_disruptions=sum(1 for c in victims if c.unit.references_pod_group),
            nominations=FrozenMap({pod.name: node for pod, node in assignments}),
            reprieved=tuple(reprieved),
            search_steps=tuple(self.steps),
            priority_threshold=threshold,
            placements=self.placements,
        )

    def _replay(self, per_node: dict[str, list[Pod]], nodes: Iterable[str]) -> bool:
        """Do the fixed assignments on ``nodes`` still pass, one after another (PG-27 step 3)?"""
        return self.cluster.assignments_fit(per_node, nodes)

    def _note(self, verdict: Verdict, rule: str, detail: str, unit: PreemptionUnit | None) -> None:
        if self.trace is not None:
            self.trace.add(verdict, rule, detail, unit.key if unit is not None else None)

    def restore(self) -> None:
        """Leave the cluster exactly as the run found it (restore by value, O(nodes))."""
        self.cluster.rollback(self.checkpoint)


# --------------------------------------------------------------------------- helpers


def _candidate_units(
    preemptor: PodGroupPreemptor, cluster: Cluster, features: PreemptionFeatures
) -> tuple[int, tuple[str, Status] | None, list[PreemptionUnit]]:
    """PG-21, PG-31, PG-22..PG-24: the preemptor's priority, a refusal (rule, status) or the
    candidates.

    Candidates are the units strictly below the preemptor's priority (equal priority is never
    preemptable, §9.11), most important first (the cluster's units are pre-sorted).
    """
    priority = cluster.groups.group_priority(preemptor.group)
    policy = resolve_preemption_policy(
        preemptor, group_policy_enabled=features.pod_group_preemption_policy, groups=cluster.groups
    )
    if policy is PodPreemptionPolicy.NEVER:
        return priority, ("PG-21", Status.of(StatusCode.UNSCHEDULABLE, MSG_NEVER)), []
    if isinstance(preemptor.group, PodGroup) and preemptor.group.topology_keys:
        return priority, ("PG-31", Status.of(StatusCode.UNSCHEDULABLE, MSG_TOPOLOGY)), []
    units = [u for u in cluster.units if u.priority < priority]
    if not units:
        return priority, ("PG-23", Status.of(StatusCode.UNSCHEDULABLE, MSG_NO_VICTIMS)), []
    return priority, None, units


def _attempt_order(
    cluster: Cluster, units: Sequence[PreemptionUnit], semantics: PdbSelectorSemantics
) -> list[ClassifiedUnit]:
    """PG-25: violating units, then non-violating ones, each most important first."""
    violating, non_violating = classify_units(
        units, cluster.pdbs, lambda pod: cluster.covering_pdbs(pod, semantics)
    )
    return violating + non_violating


def _group_name(preemptor: PodGroupPreemptor) -> str:
    g = preemptor.group
    return f"{type(g).__name__} {g.namespace}/{g.name}" if g.namespace else f"{type(g).__name__} {g.name}"


def _as_mode(value: PreemptionMode | str) -> PreemptionMode:
    try:
        return PreemptionMode(value)
    except ValueError:
        raise ConfigurationError(f"select_podgroup_victims: mode={value!r} is not 'kep' or 'kube'") from None


def _as_pdb_semantics(value: PdbSelectorSemantics | str) -> PdbSelectorSemantics:
    try:
        return PdbSelectorSemantics(value)
    except ValueError:
        raise ConfigurationError(
            f"select_podgroup_victims: pdb_semantics={value!r} is not 'api' or 'kube-per-node'"
        ) from None


def _as_search(value: SearchStrategy | str) -> SearchStrategy:
    try:
        return SearchStrategy(value)
    except ValueError:
        raise ConfigurationError(
            f"select_podgroup_victims: search={value!r} is not 'binary', 'exponential' or 'linear'"
        ) from None

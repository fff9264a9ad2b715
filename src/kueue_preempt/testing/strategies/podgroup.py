"""Hypothesis strategies of PodGroup (workload-aware) preemption scenarios (KEP-5710).

A :class:`PodGroupScenario` is everything :func:`~kueue_preempt.podgroup.select_podgroup_victims`
reads: the nodes (in order: FIT-3 places round-robin in node order), the running pods, the
PodGroups with their disruption modes (PG-4, PG-8), the PDBs (PG-5), the pending group with
its unscheduled pods (PG-10), the fit rule (FIT-1 or the ``units`` model of FIT-3) and the mode
(``"kep"``: the KEP's search over priority levels, spec §9.1; ``"kube"``: kube-scheduler's
remove-all-then-place, PG-26, PG-30).

What :func:`podgroup_scenarios` draws, by default:

* 1–5 nodes of capacity 1–6 (``cpu`` with a ``pods`` slot count of 1–6 under FIT-1, or
  ``units`` only under the ``units`` rule), small enough that the group usually needs victims;
* 1–14 running pods of size 1–3 on random nodes (over-commitment allowed, PG-2), with
  priorities from a small set (so that equal priorities and several levels are frequent), start
  times 0–5 or none (PG-9), mostly unique UIDs (sometimes empty or shared, SCORE-1 ties), labels
  for the PDBs, and a PodGroup reference that may name a group in ``Single`` or ``All`` mode or a
  group that does not exist (PG-7, PG-8);
* 0–2 PDBs with a ``matchLabels`` selector and a budget of 0–2 (PDB-1, PDB-2);
* a pending group of 1–4 pods, none larger than the largest node (all of one size half of the
  time, which makes success monotone in the freed room, so that the KEP search has one right
  answer), a priority between the running ones (never equal to one by default), an optional gang
  ``minCount``, and one time in twelve ``preemptionPolicy: Never`` (PG-21).

Every drawn scenario is valid (nothing is filtered out, no warning is logged). About half of
them need victims with the default knobs (47 % of 300 measured). Cost: a few dozen small draws;
:meth:`PodGroupScenario.decide` builds a :class:`~kueue_preempt.podgroup.Cluster` (O(nodes +
pods)) and runs one decision (at most 1 + ⌈log2(k)⌉ placements for k priority levels).
"""

from __future__ import annotations

import random
from typing import Sequence

import attrs
from hypothesis import strategies as st

from kueue_preempt.podgroup import (
    Cluster,
    DisruptionMode,
    LabelSelector,
    Node,
    NodeFilter,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodGroupPreemptionResult,
    PodGroupPreemptor,
    PodPreemptionPolicy,
    PreemptionMode,
    SearchStrategy,
    select_podgroup_victims,
)
from kueue_preempt.testing.strategies.choices import Choices

__all__ = [
    "PODGROUP_PRIORITIES",
    "PREEMPTOR_PRIORITIES",
    "GROUP_NAMES",
    "MISSING_GROUP",
    "PodGroupScenario",
    "podgroup_scenarios",
]

PODGROUP_PRIORITIES = (0, 10, 20, 30, 40)
"""Default priorities of running pods and PodGroups: few values, so levels repeat."""
PREEMPTOR_PRIORITIES = (15, 25, 35, 45, 45, 50)
"""Default priorities of the pending group: between the running ones, never equal to one."""
GROUP_NAMES = ("pg0", "pg1", "pg2")
"""Names of the PodGroups that may exist."""
MISSING_GROUP = "pg-missing"
"""A PodGroup name that running pods may reference but that never exists (PG-7, PG-8)."""


@attrs.frozen
class PodGroupScenario:
    """One input of :func:`~kueue_preempt.podgroup.select_podgroup_victims`.

    ``nodes`` and ``preemptor.pods`` are ordered inputs (FIT-3 walks both in order), so
    :meth:`decide` never permutes them; every other list is a set whose order the spec does
    not read.
    """

    nodes: tuple[Node, ...]
    pods: tuple[Pod, ...]
    """Running pods (every one has a ``node_name``)."""
    groups: tuple[PodGroup, ...]
    """The PodGroups that exist (running pods may also name :data:`MISSING_GROUP`)."""
    pdbs: tuple[PodDisruptionBudget, ...]
    preemptor: PodGroupPreemptor
    mode: PreemptionMode = PreemptionMode.KEP
    node_filter: NodeFilter = NodeFilter.RESOURCE_FIT
    search: SearchStrategy = SearchStrategy.BINARY

    @property
    def resource(self) -> str:
        """The one resource pods request: ``units`` under the ``units`` rule, else ``cpu``."""
        return "units" if self.node_filter is NodeFilter.UNITS else "cpu"

    def cluster(self, pods: Sequence[Pod] | None = None, *, rng: random.Random | None = None) -> Cluster:
        """A fresh cluster of this scenario, optionally with other pods, and with the pod,
        group and PDB lists permuted by ``rng``."""
        running = list(self.pods if pods is None else pods)
        groups, pdbs = list(self.groups), list(self.pdbs)
        if rng is not None:
            rng.shuffle(running)
            rng.shuffle(groups)
            rng.shuffle(pdbs)
        return Cluster(self.nodes, running, pod_groups=groups, pdbs=pdbs, node_filter=self.node_filter)

    def decide(self, *, rng: random.Random | None = None) -> PodGroupPreemptionResult:
        """The library's answer for this scenario, on a fresh cluster.

        With ``rng`` the running pods, PodGroups and PDBs are listed in a permuted order, which
        must not change the answer (PG-22: units are a set; SCORE-1 orders them). Cost: one
        cluster build and one decision.
        """
        return select_podgroup_victims(self.preemptor, self.cluster(rng=rng), mode=self.mode, search=self.search)


def _as_modes(mode: PreemptionMode | str | None) -> tuple[PreemptionMode, ...]:
    if mode is None:
        return (PreemptionMode.KEP, PreemptionMode.KUBE)
    return (PreemptionMode(mode),)


def _as_filters(node_filter: NodeFilter | str | None) -> tuple[NodeFilter, ...]:
    if node_filter is None:
        return (NodeFilter.RESOURCE_FIT, NodeFilter.UNITS)
    found = NodeFilter(node_filter)
    if found is NodeFilter.NONE:
        raise ValueError("podgroup_scenarios: node_filter='none' makes every group fit without victims")
    return (found,)


def _check_range(name: str, low: int, high: int) -> None:
    if not 0 <= low <= high:
        raise ValueError(f"podgroup_scenarios: {name} must satisfy 0 <= min <= max, got ({low}, {high})")


_CAPACITIES = (1, 2, 3, 4, 5, 6)
"""Node capacities, drawn uniformly (Hypothesis skews small integer ranges to their ends)."""
_SIZES = (1, 2, 3)
_STARTS = (None, 0, 1, 2, 3, 4, 5)
"""Start times; ``None`` is an unstarted pod (PG-9)."""
_APPS = ("a", "b")
_POLICIES = (PodPreemptionPolicy.PREEMPT_LOWER_PRIORITY,) * 11 + (PodPreemptionPolicy.NEVER,)
"""One group in twelve has ``preemptionPolicy: Never`` (PG-21); uniform, unlike a small integer."""


@st.composite
def _scenarios(
    draw: st.DrawFn,
    *,
    modes: tuple[PreemptionMode, ...],
    filters: tuple[NodeFilter, ...],
    nodes: tuple[int, int],
    pods: tuple[int, int],
    max_groups: int,
    preemptor_pods: tuple[int, int],
    disruption_modes: tuple[DisruptionMode, ...],
    priorities: tuple[int, ...],
    preemptor_priorities: tuple[int, ...],
    pdbs: bool,
    missing_groups: bool,
    never: bool,
    equal_sizes: bool | None,
    unique_uids: bool,
) -> PodGroupScenario:
    mode = draw(st.sampled_from(modes))
    node_filter = draw(st.sampled_from(filters))
    resource = "units" if node_filter is NodeFilter.UNITS else "cpu"
    ints = st.integers
    n_nodes = draw(st.sampled_from(range(nodes[0], nodes[1] + 1)))
    node_list = []
    largest = 1
    for i in range(n_nodes):
        cap = draw(st.sampled_from(_CAPACITIES))
        largest = max(largest, cap)
        allocatable: dict[str, str | int] = {resource: str(cap)}
        if node_filter is NodeFilter.RESOURCE_FIT:
            allocatable["pods"] = str(draw(ints(1, 6)))
        node_list.append(Node(f"n{i}", allocatable))
    group_list = [
        PodGroup(
            GROUP_NAMES[i],
            uid=f"uid-{GROUP_NAMES[i]}",
            priority=draw(st.sampled_from(priorities)),
            disruption_mode=draw(st.sampled_from(disruption_modes)),
        )
        for i in range(draw(ints(0, max_groups)))
    ]
    references: list[str | None] = [None, None, *(g.name for g in group_list)]
    if missing_groups:
        references.append(MISSING_GROUP)
    pod_list = []
    node_names = [n.name for n in node_list]
    for i in range(draw(st.sampled_from(range(pods[0], pods[1] + 1)))):
        uids = (f"u{i}",) if unique_uids else (*(f"u{i}",) * 6, "", "dup")
        c = Choices(draw, uids, priorities, _SIZES, node_names, _STARTS, references, _APPS)
        pod_list.append(
            Pod(
                f"r{i}",
                uid=c.pick(uids),
                priority=c.pick(priorities),
                requests={resource: str(c.pick(_SIZES))},
                node_name=c.pick(node_names),
                start_time=c.pick(_STARTS),
                pod_group=c.pick(references),
                labels={"app": c.pick(_APPS)},
            )
        )
    pdb_list = [
        PodDisruptionBudget(
            f"pdb{i}",
            selector=LabelSelector(match_labels={"app": draw(st.sampled_from(("a", "b")))}),
            disruptions_allowed=draw(ints(0, 2)),
        )
        for i in range(draw(ints(0, 2)) if pdbs else 0)
    ]
    same = draw(st.booleans()) if equal_sizes is None else equal_sizes
    n_pre = draw(ints(*preemptor_pods))
    # No member larger than the largest node: such a group could never be placed (FIT-1).
    first = min(largest, draw(ints(1, 3)))
    sizes = [first] * n_pre if same else [first, *(min(largest, draw(ints(1, 3))) for _ in range(n_pre - 1))]
    gang = draw(st.one_of(st.none(), ints(1, n_pre)))
    policy = draw(st.sampled_from(_POLICIES if never else _POLICIES[:1]))
    group = PodGroup(
        "incoming",
        uid="uid-incoming",
        priority=draw(st.sampled_from(preemptor_priorities)),
        gang_min_count=gang,
        preemption_policy=policy,
    )
    preemptor = PodGroupPreemptor(group, [Pod(f"p{i}", uid=f"up{i}", requests={resource: str(s)}) for i, s in enumerate(sizes)])
    return PodGroupScenario(
        tuple(node_list), tuple(pod_list), tuple(group_list), tuple(pdb_list), preemptor, mode, node_filter
    )


def podgroup_scenarios(
    *,
    mode: PreemptionMode | str | None = None,
    node_filter: NodeFilter | str | None = None,
    nodes: tuple[int, int] = (1, 5),
    pods: tuple[int, int] = (1, 14),
    max_groups: int = 3,
    preemptor_pods: tuple[int, int] = (1, 4),
    disruption_modes: Sequence[DisruptionMode | str] = (DisruptionMode.SINGLE, DisruptionMode.ALL),
    priorities: Sequence[int] = PODGROUP_PRIORITIES,
    preemptor_priorities: Sequence[int] = PREEMPTOR_PRIORITIES,
    pdbs: bool = True,
    missing_groups: bool = True,
    never: bool = True,
    equal_sizes: bool | None = None,
    unique_uids: bool = False,
) -> st.SearchStrategy[PodGroupScenario]:
    """Valid :class:`PodGroupScenario` objects; every knob narrows the space.

    * ``mode`` — ``"kep"`` or ``"kube"`` (:class:`~kueue_preempt.podgroup.PreemptionMode`);
      ``None`` draws both;
    * ``node_filter`` — ``"resources"`` (FIT-1: ``cpu`` and a ``pods`` slot count) or
      ``"units"`` (the ``units`` rule of FIT-3); ``None`` draws both;
    * ``nodes``, ``pods``, ``preemptor_pods`` — (min, max) numbers of nodes, running pods and
      pending group members; ``max_groups`` — at most this many PodGroups exist (0–3);
    * ``disruption_modes`` — the modes PodGroups are drawn with (PG-4, PG-8);
    * ``priorities`` — of running pods and PodGroups; ``preemptor_priorities`` — of the group;
    * ``pdbs`` — draw 0–2 PDBs (PDB-1..PDB-5); ``missing_groups`` — let pods reference a
      PodGroup that does not exist (PG-7, PG-8); ``never`` — give one group in twelve
      ``preemptionPolicy: Never`` (PG-21);
    * ``equal_sizes`` — all members of the group of one size (``True``: success is monotone in
      the freed room, so the KEP search has a single right answer), of mixed sizes
      (``False``), or either (``None``);
    * ``unique_uids`` — every running pod its own UID, so SCORE-1 orders all single-pod units.

    Raises ``ValueError`` for an empty choice or an inverted range.
    """
    for name, bounds in (("nodes", nodes), ("pods", pods), ("preemptor_pods", preemptor_pods)):
        _check_range(name, *bounds)
    if nodes[1] < 1 or preemptor_pods[1] < 1 or preemptor_pods[0] < 1:
        raise ValueError("podgroup_scenarios: need at least one node and one preemptor pod")
    if not 0 <= max_groups <= len(GROUP_NAMES):
        raise ValueError(f"podgroup_scenarios: max_groups must be in 0..{len(GROUP_NAMES)}, got {max_groups}")
    modes = tuple(DisruptionMode(m) for m in disruption_modes)
    if not modes or not priorities or not preemptor_priorities:
        raise ValueError("podgroup_scenarios: disruption_modes, priorities and preemptor_priorities must not be empty")
    return _scenarios(
        modes=_as_modes(mode),
        filters=_as_filters(node_filter),
        nodes=(max(nodes[0], 1), nodes[1]),
        pods=pods,
        max_groups=max_groups,
        preemptor_pods=preemptor_pods,
        disruption_modes=modes,
        priorities=tuple(priorities),
        preemptor_priorities=tuple(preemptor_priorities),
        pdbs=pdbs,
        missing_groups=missing_groups,
        never=never,
        equal_sizes=equal_sizes,
        unique_uids=unique_uids,
    )

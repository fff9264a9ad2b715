"""Workload-aware (PodGroup) and per-node preemption victim selection (KEP-5710).

Reading guide, in the order data flows:

* :mod:`.model` — frozen inputs: :class:`Node`, :class:`Pod`, :class:`PodGroup`,
  :class:`CompositePodGroup`, :class:`PodDisruptionBudget`, and the pending
  :class:`PodGroupPreemptor` (PG-1..PG-6, PG-10);
* :mod:`.cluster` — :class:`Cluster`, the only mutable object: exact per-node usage, units,
  fit (FIT-1), with exact-inverse mutations;
* :mod:`.units` — effective priority (PG-7), preemption units (PG-8), unstarted pods (PG-9)
  and importance (SCORE-1); :mod:`.pdb` — PodDisruptionBudgets (PDB-1..PDB-6);
* :mod:`.placement` — where a group's pods go (FIT-2, FIT-3), injectable;
* :mod:`.node_preemption` — one pending pod: :func:`preempt_pod`, :func:`dry_run_preemption`,
  :func:`select_victims_on_node`, :func:`select_candidate` (NODE-*, SCORE-3);
* :mod:`.group_preemption` — a pending group: :func:`select_podgroup_victims` in ``"kep"``
  mode (binary search over priorities, the default) or ``"kube"`` mode (PG-20..PG-31);
  :mod:`.delayed` — a group tried again while its earlier victims are still leaving
  (PG-DELAY-1, PG-DELAY-2).

Decisions only: nothing is evicted or nominated for real (PG-32). See docs/podgroup.md.
"""

from __future__ import annotations

from kueue_preempt.podgroup.cluster import Checkpoint, Cluster, NodeFilter, NodeScratch
from kueue_preempt.podgroup.errors import InvalidPlacement, ReprieveFilterError, UnknownNode
from kueue_preempt.podgroup.features import PreemptionFeatures
from kueue_preempt.podgroup.group_preemption import (
    CandidateVictims,
    PodGroupPreemptionResult,
    PreemptionMode,
    ReprieveFilter,
    SearchStep,
    SearchStrategy,
    podgroup_candidates,
    resolve_preemption_policy,
    select_podgroup_victims,
)
from kueue_preempt.model.selectors import LabelSelector, LabelSelectorRequirement
from kueue_preempt.podgroup.model import (
    CompositePodGroup,
    DisruptionMode,
    Node,
    Pod,
    PodDisruptionBudget,
    PodGroup,
    PodGroupPreemptor,
    PodPreemptionPolicy,
    parse_timestamp_ns,
)
from kueue_preempt.podgroup.node_preemption import (
    DEFAULT_SCORE_FUNCTIONS,
    DryRunResult,
    EligibilityHook,
    NodeCandidate,
    NodeVictims,
    OrderingKey,
    PodPreemptionResult,
    ScoreFunction,
    dry_run_preemption,
    num_candidates,
    pod_eligible_to_preempt_others,
    preempt_pod,
    select_candidate,
    select_victims_on_node,
)
from kueue_preempt.podgroup.pdb import ClassifiedUnit, PdbIndex, PdbSelectorSemantics, classify_units, pdb_covers
from kueue_preempt.podgroup.placement import (
    Placement,
    PlacementContext,
    PlacementOutcome,
    fixed_placement,
    round_robin_first_fit,
    run_placement,
)
from kueue_preempt.podgroup.status import Status, StatusCode
from kueue_preempt.podgroup.units import MAX_GROUP_DEPTH, NOT_STARTED, GroupIndex, PreemptionUnit, UnitType, build_units

__all__ = [
    "CandidateVictims",
    "Checkpoint",
    "ClassifiedUnit",
    "Cluster",
    "CompositePodGroup",
    "DEFAULT_SCORE_FUNCTIONS",
    "DisruptionMode",
    "DryRunResult",
    "EligibilityHook",
    "GroupIndex",
    "InvalidPlacement",
    "LabelSelector",
    "LabelSelectorRequirement",
    "MAX_GROUP_DEPTH",
    "NOT_STARTED",
    "Node",
    "NodeCandidate",
    "NodeFilter",
    "NodeScratch",
    "NodeVictims",
    "OrderingKey",
    "PdbIndex",
    "PdbSelectorSemantics",
    "Placement",
    "PlacementContext",
    "PlacementOutcome",
    "Pod",
    "PodDisruptionBudget",
    "PodGroup",
    "PodGroupPreemptionResult",
    "PodGroupPreemptor",
    "PodPreemptionPolicy",
    "PodPreemptionResult",
    "PreemptionFeatures",
    "PreemptionMode",
    "PreemptionUnit",
    "ReprieveFilter",
    "ReprieveFilterError",
    "ScoreFunction",
    "SearchStep",
    "SearchStrategy",
    "Status",
    "StatusCode",
    "UnitType",
    "UnknownNode",
    "build_units",
    "classify_units",
    "dry_run_preemption",
    "fixed_placement",
    "num_candidates",
    "parse_timestamp_ns",
    "pdb_covers",
    "pod_eligible_to_preempt_others",
    "podgroup_candidates",
    "preempt_pod",
    "resolve_preemption_policy",
    "round_robin_first_fit",
    "run_placement",
    "select_candidate",
    "select_podgroup_victims",
    "select_victims_on_node",
]

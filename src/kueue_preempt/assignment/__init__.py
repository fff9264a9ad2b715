"""Kueue's flavor assignment as a library function (kueue-flavor-assignment.md, ``FAS-1..FAS-25``).

Contract (stable API)
=====================

``assign_flavors(workload, cluster_queue, snapshot, resource_flavors, *, config, gates,
quota_check, oracle, counts, progress, pinned, now, trace) -> FlavorAssignment``

Inputs
  * ``workload``: a :class:`~kueue_preempt.Workload` whose ``spec_pod_sets``
    (:class:`~kueue_preempt.model.flavors.PodSetSpec`: per-pod requests in amounts, ``count``,
    ``min_count``, node selector, required node affinity, tolerations, pod-set group) and
    ``reclaimable_pods`` are read; its priority/timestamps matter only to the oracle.
  * ``cluster_queue``: the ClusterQueue name in ``snapshot``; its ``resource_groups`` (flavor
    order, coveredResources; derived from ``quotas`` when absent), ``flavor_fungibility`` and
    ``preemption`` are read. ``snapshot`` supplies quota and usage; it is never changed.
  * ``resource_flavors``: the ResourceFlavors handed to the assigner (a flavor the ClusterQueue
    lists but that is missing here is skipped, ``FAS-5a``).
  * ``config``: only ``config.fair_sharing`` is read by the assigner (``FAS-6``); the default
    oracle passes ``config``/``now`` to :func:`~kueue_preempt.get_targets`.
  * ``gates``: :class:`AssignmentGates` (``FAS-16``); ``quota_check``: ``FAS-3``.
  * ``oracle``: a :class:`PreemptionOracle` (``FA-6``), default :class:`TargetsOracle`.
  * ``counts``: per spec pod set, the counts of a partial-admission probe (``FAS-14``).
  * ``progress``: scan progress of an earlier cycle (``FAS-12``): a sequence indexed by *spec*
    index of ``{resource: tried_flavor_idx}``, e.g. ``previous.tried_flavor_idx()``.
  * ``pinned``: flavor pins of a recomputation (``FAS-5a`` case 1): pod-set name ->
    ``{resource: flavor}`` as nominated, e.g. ``nominated.nomination_mapping()``.

Output: :class:`FlavorAssignment` (``FAS-17``)
  * ``pod_sets``: :class:`PodSetAssignment` in processing order (may stop early, ``FAS-19``),
    each with ``name``, ``count``, ``flavors`` (resource -> :class:`ResourceAssignment`:
    ``flavor``, ``mode`` Fit/Preempt/NoFit, ``tried_flavor_idx``, ``borrow``), ``status``
    (reasons verbatim and an optional error), ``requests`` (``FAS-1b``), ``attempts``
    (:class:`FlavorAttempt`, ``FAS-23``), ``spec_index``, and ``mode`` (``FAS-13a``);
  * ``borrowing``, ``usage`` (FlavorResource -> amount), ``no_fit_reason`` (``FAS-24``);
  * derived: ``mode`` (``FAS-13``), ``requires_borrowing``, ``message`` (``FAS-21a``),
    ``tried_flavor_idx()`` (``FAS-12`` record), ``nomination_mapping()`` (pins),
    ``preempt_flavor_resources()``,
    ``to_assignment()`` (the :class:`~kueue_preempt.Assignment` for ``get_targets``, ``FA-3``).

Around it: :func:`assign_with_targets` (``FAS-13``/``FAS-14``: assign, find targets, partial
admission) and :func:`search_counts` (Kueue's ``PodSetReducer.Search``). Granular modes and
:func:`is_preferred` (``FAS-9``) are public for callers that compare flavors themselves.

Every flavor considered (skipped and why, judged with its mode, taken) is recorded in
``trace`` when one is passed, each event naming its rule.
"""

from __future__ import annotations

from kueue_preempt.assignment.assigner import assign_flavors
from kueue_preempt.assignment.gates import AssignmentGates, QuotaCheckStrategy
from kueue_preempt.assignment.matching import first_untolerated_taint, match_selector, tolerates
from kueue_preempt.assignment.messages import format_quantity
from kueue_preempt.assignment.modes import (
    GranularMode,
    PreemptionMode,
    PreemptionPossibility,
    api_mode,
    is_preferred,
    should_try_next_flavor,
)
from kueue_preempt.assignment.oracle import OracleResult, PreemptionOracle, TargetsOracle
from kueue_preempt.assignment.partial import AssignmentDecision, TargetFinder, assign_with_targets, search_counts
from kueue_preempt.assignment.requests import fnv1a64, fnv_order
from kueue_preempt.assignment.result import (
    FlavorAssignment,
    FlavorAttempt,
    NoFitReason,
    PodSetAssignment,
    PodSetStatus,
    ResourceAssignment,
)
from kueue_preempt.assignment.scan import ALLOWED_FLAVORS_ANNOTATION

__all__ = [
    "assign_flavors",
    "assign_with_targets",
    "search_counts",
    "AssignmentDecision",
    "TargetFinder",
    "AssignmentGates",
    "QuotaCheckStrategy",
    "PreemptionOracle",
    "OracleResult",
    "TargetsOracle",
    "FlavorAssignment",
    "PodSetAssignment",
    "ResourceAssignment",
    "FlavorAttempt",
    "PodSetStatus",
    "NoFitReason",
    "GranularMode",
    "PreemptionMode",
    "PreemptionPossibility",
    "is_preferred",
    "should_try_next_flavor",
    "api_mode",
    "tolerates",
    "first_untolerated_taint",
    "match_selector",
    "format_quantity",
    "fnv1a64",
    "fnv_order",
    "ALLOWED_FLAVORS_ANNOTATION",
]

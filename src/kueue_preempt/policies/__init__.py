"""Reference controller policies (BOOST-*, COST-6) as pure functions.

Each policy maps a workload's state, a config and (where time matters) ``now`` to the write a
controller would make — an :class:`AnnotationAction` for the ``kueue.x-k8s.io/priority-boost``
annotation, a :class:`StatusAction` for ``status.preemptionCost`` — and, for time-based
policies, when to reconcile again. Applying the write and reconciling again yields no write.

* :mod:`.boost` — Kueue's time-sharing booster (BOOST-1..BOOST-11), the KEP's preemption-count
  "threshold" booster (BOOST-12), phase-based and weighted combinations.
* :mod:`.cost` — the preemption-cost controller (COST-6).
* :mod:`.settings` — :class:`PolicySettings`, which of these controllers a simulation runs.

Running them over time is the simulator's job: :func:`kueue_preempt.sim.run.simulate` with a
:class:`PolicySettings`, and :mod:`kueue_preempt.sim.output.cycles` for the A→B→A preemption
cycles a booster can cause.
"""

from __future__ import annotations

from kueue_preempt.policies.actions import (
    EVENT_BOOST_CLEARED,
    EVENT_BOOST_SET,
    PREEMPTED_EVICTION_REASON,
    ActionKind,
    AnnotationAction,
    BoostDecision,
    BoostFn,
    InvalidDuration,
    ReconcileResult,
    StatusAction,
    clamp_int32,
    preempted_count,
    wrap_int32,
)
from kueue_preempt.policies.boost import (
    DEFAULT_NEGATIVE_BOOST,
    BoostPhase,
    PhaseBoostConfig,
    ThresholdBoostConfig,
    TimeSharingConfig,
    WeightedBoostConfig,
    boost_annotation_action,
    combine_boosts,
    out_of_scope_action,
    parse_go_duration,
    parse_go_duration_ns,
    reconcile_boost,
    reconcile_phase_boost,
    reconcile_threshold,
    reconcile_time_sharing,
    time_sharing_boost,
    watch_filter,
)
from kueue_preempt.model.selectors import LabelSelector, LabelSelectorRequirement, SelectorOperator
from kueue_preempt.policies.cost import clear_cost, compute_cost, reconcile_cost
from kueue_preempt.policies.settings import PolicySettings

__all__ = [
    "ActionKind",
    "AnnotationAction",
    "BoostDecision",
    "BoostFn",
    "BoostPhase",
    "DEFAULT_NEGATIVE_BOOST",
    "EVENT_BOOST_CLEARED",
    "EVENT_BOOST_SET",
    "InvalidDuration",
    "LabelSelector",
    "LabelSelectorRequirement",
    "PREEMPTED_EVICTION_REASON",
    "PhaseBoostConfig",
    "PolicySettings",
    "ReconcileResult",
    "SelectorOperator",
    "StatusAction",
    "ThresholdBoostConfig",
    "TimeSharingConfig",
    "WeightedBoostConfig",
    "boost_annotation_action",
    "clamp_int32",
    "clear_cost",
    "combine_boosts",
    "compute_cost",
    "out_of_scope_action",
    "parse_go_duration",
    "parse_go_duration_ns",
    "preempted_count",
    "reconcile_boost",
    "reconcile_cost",
    "reconcile_phase_boost",
    "reconcile_threshold",
    "reconcile_time_sharing",
    "time_sharing_boost",
    "watch_filter",
    "wrap_int32",
]

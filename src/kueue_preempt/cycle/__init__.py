"""Kueue's scheduling cycle as a pure function (kueue-scheduling-cycle.md, rules ``SC-*``).

:func:`schedule_cycle` runs one cycle over a :class:`ClusterState` and the queue memory of
the previous cycle (:class:`QueueState`) and returns a :class:`CycleResult`: per head what
happened and why, the conditions, events and metrics Kueue writes, and the cluster and
queue state after the cycle. Modules, one concept each:

* ``config`` — gates of SC-CFG-1 (:class:`CycleConfig`);
* ``cluster`` / ``selectors`` — namespaces, LocalQueues, queueing settings, LimitRanges;
* ``queues`` — the queue memory: active/inadmissible sets, preemptor markers, scan progress;
* ``order`` / ``tournament`` — classic entry order (SC-ORD-*) and fair-sharing tournament (SC-FS-*);
* ``nominate`` — a head's assignment and targets on top of the flavor assigner (SC-NOM-2);
* ``step`` — the cycle itself (SC-CY-*, SC-PE-*, SC-AD-*, SC-PR-*, SC-RQ-*);
* ``status`` / ``validation`` — messages, conditions, events (SC-MSG-*, SC-EVT-1, SC-NOM-3);
* ``transitions`` — between cycles: notify, release, deletion (SC-IN-*, SC-EV-*);
* ``incremental`` — the same cycle over state carried between cycles (the simulator's);
* ``run`` — cycles until stable with victims released between them (SC-SIM-2, SC-T-3).
"""

from __future__ import annotations

from kueue_preempt.cycle.cluster import (
    AdmissionCheckState,
    ClusterQueueSettings,
    ClusterState,
    LimitRange,
    PodTemplateResources,
    LocalQueue,
    Namespace,
    QueueingStrategy,
    StopPolicy,
    WorkloadStatus,
)
from kueue_preempt.cycle.config import CycleConfig
from kueue_preempt.cycle.entry import Mode, Nomination, Outcome
from kueue_preempt.cycle.incremental import CycleState, StepResult
from kueue_preempt.cycle.order import classic_entry_order
from kueue_preempt.cycle.queueing import scheduling_order_key, sort_pending
from kueue_preempt.cycle.queues import ClusterQueueQueue, PreemptorMarker, QueueState, ScanProgress
from kueue_preempt.cycle.run import CycleRun, run_cycles, stability_cap
from kueue_preempt.cycle.selectors import LabelSelectorRequirement, LabelSelector
from kueue_preempt.cycle.status import Event, RequeueReason
from kueue_preempt.cycle.step import CycleResult, HeadResult, initial_queue_state, queue_of, schedule_cycle, shape_hash
from kueue_preempt.cycle.transitions import delete_workloads, notify, queue_inadmissible, release_evicted

__all__ = [
    "scheduling_order_key",
    "sort_pending",
    "AdmissionCheckState",
    "ClusterQueueQueue",
    "ClusterQueueSettings",
    "ClusterState",
    "CycleConfig",
    "CycleResult",
    "CycleRun",
    "CycleState",
    "Event",
    "HeadResult",
    "LabelSelectorRequirement",
    "LabelSelector",
    "LimitRange",
    "PodTemplateResources",
    "LocalQueue",
    "Mode",
    "Namespace",
    "Nomination",
    "Outcome",
    "PreemptorMarker",
    "QueueState",
    "QueueingStrategy",
    "RequeueReason",
    "ScanProgress",
    "StepResult",
    "StopPolicy",
    "WorkloadStatus",
    "classic_entry_order",
    "delete_workloads",
    "initial_queue_state",
    "notify",
    "queue_inadmissible",
    "queue_of",
    "release_evicted",
    "run_cycles",
    "schedule_cycle",
    "shape_hash",
    "stability_cap",
]

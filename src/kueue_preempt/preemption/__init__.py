"""Kueue's preemption (GT-*, CL-*, FS-*, ORD-*, POL-*, NP-*, MSG-*): which admitted workloads to evict.

Mirrors Kueue's ``pkg/scheduler/preemption``: :func:`get_targets` dispatches (GT-1, GT-2) to
classic preemption (:mod:`.classic`) or fair sharing (:mod:`.fairsharing`); both use the
shared rules in :mod:`.common` (candidate ordering, policy predicates, messages, the decision
trace) and minimise by fill-back (:mod:`.fill_back`). :mod:`.nonpreemptible` holds KEP-4400's
non-preemptible workloads. Step-level helpers stay in their modules.
"""

from __future__ import annotations

from kueue_preempt.preemption.targets import (
    get_targets,
)
from kueue_preempt.preemption.classic import (
    classic_targets,
)
from kueue_preempt.preemption.fairsharing import (
    ClusterQueueOrdering,
    fair_shares,
    fair_targets,
    ordering_for,
)
from kueue_preempt.preemption.nonpreemptible import (
    NonPreemptibleQuotaCheck,
    NonPreemptibleViolation,
    check_non_preemptible_quota,
    is_non_preemptible,
)
from kueue_preempt.preemption.common.ordering import (
    candidate_sort_key,
    candidates_ordering,
    sort_candidates,
)
from kueue_preempt.preemption.common.policy import (
    queue_order_timestamp,
    satisfies_preemption_policy,
)
from kueue_preempt.preemption.common.messages import (
    human_readable_reason,
    preemption_message,
)
from kueue_preempt.preemption.common.trace import (
    DecisionTrace,
    TraceEvent,
    Verdict,
)

__all__ = [
    "get_targets",
    "classic_targets",
    "ClusterQueueOrdering",
    "fair_shares",
    "fair_targets",
    "ordering_for",
    "NonPreemptibleQuotaCheck",
    "NonPreemptibleViolation",
    "check_non_preemptible_quota",
    "is_non_preemptible",
    "candidate_sort_key",
    "candidates_ordering",
    "sort_candidates",
    "queue_order_timestamp",
    "satisfies_preemption_policy",
    "human_readable_reason",
    "preemption_message",
    "DecisionTrace",
    "TraceEvent",
    "Verdict",
]

"""Human-readable preemption messages, exactly as Kueue writes them (MSG-2..MSG-4)."""

from __future__ import annotations

from kueue_preempt._util.checks import arg
from kueue_preempt.model import PreemptionReason, Workload

__all__ = ["JOB_UID_LABEL", "human_readable_reason", "preemption_message"]

JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"

_HUMAN = {
    PreemptionReason.IN_CLUSTER_QUEUE.value: "prioritization in the ClusterQueue",
    PreemptionReason.IN_COHORT_RECLAMATION.value: "reclamation within the cohort",
    PreemptionReason.IN_COHORT_FAIR_SHARING.value: "Fair Sharing within the cohort",
    PreemptionReason.IN_COHORT_RECLAIM_WHILE_BORROWING.value: "reclamation within the cohort while borrowing",
    "": "UNKNOWN",
}


def human_readable_reason(reason: str) -> str:
    """MSG-2: the phrase for a reason; ``""`` is ``"UNKNOWN"``, anything unknown is ``""``."""
    return _HUMAN.get(str(reason), "")


def _or_unknown(value: str | None) -> str:
    return value if value else "UNKNOWN"


def preemption_message(preemptor: Workload, reason: str, preemptor_path: str, preemptee_path: str) -> str:
    """MSG-3: the ``Evicted``/``Preempted`` condition message for one target."""
    arg(preemptor, Workload, "preemption_message", "preemptor")
    return (
        f"Preempted to accommodate a workload (UID: {_or_unknown(preemptor.uid)}, "
        f"JobUID: {_or_unknown(preemptor.labels.get(JOB_UID_LABEL))}) "
        f"due to {human_readable_reason(reason)}; "
        f"preemptor path: {_or_unknown(preemptor_path)}; preemptee path: {_or_unknown(preemptee_path)}"
    )

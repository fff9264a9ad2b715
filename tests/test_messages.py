"""Unit tests for reasons and messages (spec §13: MSG-1..MSG-3)."""

from __future__ import annotations

import pytest

from kueue_preempt import PreemptionReason, Workload
from kueue_preempt.preemption import human_readable_reason, preemption_message

JOB_UID = "kueue.x-k8s.io/job-uid"


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("InClusterQueue", "prioritization in the ClusterQueue"),
        ("InCohortReclamation", "reclamation within the cohort"),
        ("InCohortFairSharing", "Fair Sharing within the cohort"),
        ("InCohortReclaimWhileBorrowing", "reclamation within the cohort while borrowing"),
        ("", "UNKNOWN"),
        ("Preempted", ""),
        ("inclusterqueue", ""),  # case-sensitive
        ("InClusterQueue ", ""),
        ("UNKNOWN", ""),
    ],
)
def test_msg2_human_readable_reason(reason: str, expected: str) -> None:
    """MSG-2 table: the four reasons, "" -> "UNKNOWN", anything else -> ""."""
    assert human_readable_reason(reason) == expected


def test_msg1_reason_strings() -> None:
    """MSG-1: the four reason values, and the enum is accepted by MSG-2."""
    assert {r.value for r in PreemptionReason} == {
        "InClusterQueue",
        "InCohortReclamation",
        "InCohortFairSharing",
        "InCohortReclaimWhileBorrowing",
    }
    assert human_readable_reason(PreemptionReason.IN_COHORT_RECLAMATION) == "reclamation within the cohort"


def test_msg3_message_with_uid_and_job_uid() -> None:
    """MSG-3: exact format."""
    p = Workload(name="p", uid="uid-123", labels={JOB_UID: "job-456"})
    assert preemption_message(p, "InCohortReclamation", "/root/cq-a", "/root/cq-b") == (
        "Preempted to accommodate a workload (UID: uid-123, JobUID: job-456) due to reclamation within the "
        "cohort; preemptor path: /root/cq-a; preemptee path: /root/cq-b"
    )


def test_msg3_missing_uid_and_job_uid_are_unknown() -> None:
    """MSG-3: empty uid -> UNKNOWN; missing or empty job-uid label -> UNKNOWN."""
    expected = (
        "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to prioritization in the "
        "ClusterQueue; preemptor path: /cq; preemptee path: /cq"
    )
    assert preemption_message(Workload(name="p"), "InClusterQueue", "/cq", "/cq") == expected
    assert preemption_message(Workload(name="p", labels={JOB_UID: ""}), "InClusterQueue", "/cq", "/cq") == expected
    # Another label does not count.
    other = Workload(name="p", uid="u", labels={"job-uid": "j"})
    assert "(UID: u, JobUID: UNKNOWN)" in preemption_message(other, "InClusterQueue", "/cq", "/cq")


def test_msg3_only_job_uid_present() -> None:
    p = Workload(name="p", labels={JOB_UID: "j"})
    assert preemption_message(p, "InCohortFairSharing", "/a/b", "/a/c") == (
        "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: j) due to Fair Sharing within the "
        "cohort; preemptor path: /a/b; preemptee path: /a/c"
    )


def test_msg3_empty_paths_and_unknown_reason() -> None:
    """MSG-3: empty paths -> UNKNOWN; H follows MSG-2 ("" -> UNKNOWN, unknown -> "")."""
    p = Workload(name="p", uid="u", labels={JOB_UID: "j"})
    assert preemption_message(p, "", "", "") == (
        "Preempted to accommodate a workload (UID: u, JobUID: j) due to UNKNOWN; "
        "preemptor path: UNKNOWN; preemptee path: UNKNOWN"
    )
    assert preemption_message(p, "Bogus", "/x", "/y") == (
        "Preempted to accommodate a workload (UID: u, JobUID: j) due to ; preemptor path: /x; preemptee path: /y"
    )


def test_msg3_reclaim_while_borrowing() -> None:
    p = Workload(name="p", uid="u", labels={JOB_UID: "j"})
    assert preemption_message(p, "InCohortReclaimWhileBorrowing", "/c/a", "/c/b") == (
        "Preempted to accommodate a workload (UID: u, JobUID: j) due to reclamation within the cohort while "
        "borrowing; preemptor path: /c/a; preemptee path: /c/b"
    )

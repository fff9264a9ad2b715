"""Kueue's summary (kueue_preempt.kperf.summary) on a hand-worked two-queue timeline."""

from __future__ import annotations

import pytest

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import FlavorResource
from kueue_preempt.kperf.summary import kueue_summary, summary_json, summary_table
from kueue_preempt.sim.output.timeline import Admitted, Arrived, Event, Finished, Preempted, Released, Requeued

CPU = FlavorResource("rf", "cpu")

# Queue q-a (4 cpu) and q-b (2 cpu), both of ClusterQueue class "cq".
TIMELINE: list[Event] = [
    Arrived(0.5, "a/w1", "q-a"),
    Arrived(1.2, "b/w2", "q-b"),
    Admitted(1.5, "a/w1", "q-a", usage={CPU: 2000}),
    Admitted(2.0, "b/w2", "q-b", usage={CPU: 1000}),
    Preempted(3.5, "b/w2", "q-b", "a/w9", "InCohortReclamation"),
    Released(4.0, "b/w2", "q-b"),
    Requeued(4.0, "b/w2", "q-b", "Preempted"),
    Finished(4.5, "a/w1", "q-a"),
    Admitted(5.0, "b/w2", "q-b", usage={CPU: 1000}),
    Finished(6.2, "b/w2", "q-b"),
]
CLASSES = {"a/w1": "x", "b/w2": "y"}
QUEUES = {"q-a": ("cq", 4000), "q-b": ("cq", 2000)}


def test_two_queue_timeline_by_hand() -> None:
    s = kueue_summary(TIMELINE, CLASSES, QUEUES)
    q = s.cluster_queue_classes["cq"]
    # a/w1: 2 cpu x 3.0 s; b/w2: 1 cpu x 2.0 s until its release, then 1 cpu x 1.2 s.
    assert q.cpu_used == pytest.approx(2000 * 3000 + 1000 * 2000 + 1000 * 1200)
    assert q.nominal_quota == 6000
    assert (q.first_event_time, q.last_event_time) == (0.5, 6.2)
    # Kueue's checker: cpuUsed x 100 / (nominalQuota x span in ms).
    assert q.usage_percent == pytest.approx(9_200_000 * 100 / (6000 * 5700))
    assert q.cpu_average_usage == pytest.approx(9_200_000 / 5700)
    x, y = s.workload_classes["x"], s.workload_classes["y"]
    # Observed (the default): the runner's clock, admission seen minus the first event.
    assert s.admission_time == "observed"
    assert (x.count, x.total_evictions) == (1, 0)
    assert x.average_time_to_admission_ms == pytest.approx(1000)
    assert x.average_time_to_finish_ms == pytest.approx(4000)
    # y's *last* admission counts: 5.0 - 1.2.
    assert (y.count, y.total_evictions) == (1, 1)
    assert y.average_time_to_admission_ms == pytest.approx(3800)
    assert y.average_time_to_finish_ms == pytest.approx(5000)
    assert s.duration == 6.2


def test_decision_time_is_two_kubernetes_timestamps_in_whole_seconds() -> None:
    s = kueue_summary(TIMELINE, CLASSES, QUEUES, admission_time="decision")
    # Admitted at 1.5 -> 1, created 0.5 -> 0; y: 5.0 -> 5, created 1.2 -> 1.
    assert s.workload_classes["x"].average_time_to_admission_ms == pytest.approx(1000)
    assert s.workload_classes["y"].average_time_to_admission_ms == pytest.approx(4000)
    stamped = kueue_summary(
        TIMELINE, CLASSES, QUEUES, admission_time="decision", admitted_stamped=[("a/w1", 2.1), ("b/w2", 2.1), ("b/w2", 5.3)]
    )
    assert stamped.workload_classes["x"].average_time_to_admission_ms == pytest.approx(2000)
    with pytest.raises(ConfigurationError, match="admission_time"):
        kueue_summary(TIMELINE, CLASSES, QUEUES, admission_time="seen")


def test_queue_status_writes_give_the_span_and_the_run_end() -> None:
    s = kueue_summary(TIMELINE, CLASSES, QUEUES, queue_status_seen=[("q-a", 1.5, 5.5), ("q-b", 2.2, 7.2), ("other", 0.1, 9.0)])
    q = s.cluster_queue_classes["cq"]
    assert (q.first_event_time, q.last_event_time) == (1.5, 7.2)
    assert s.duration == 7.2


def test_without_truncation_and_with_runner_observed_admissions() -> None:
    exact = kueue_summary(TIMELINE, CLASSES, QUEUES, truncate=False, admission_time="decision")
    assert exact.workload_classes["x"].average_time_to_admission_ms == pytest.approx(1000)
    assert exact.workload_classes["y"].average_time_to_admission_ms == pytest.approx(3800)
    seen = kueue_summary(TIMELINE, CLASSES, QUEUES, admitted_seen=[("a/w1", 1.7), ("b/w2", 2.1), ("b/w2", 5.3)])
    assert seen.workload_classes["x"].average_time_to_admission_ms == pytest.approx(1200)
    assert seen.workload_classes["y"].average_time_to_admission_ms == pytest.approx(4100)


def test_still_running_counts_until_end_and_unadmitted_are_left_out() -> None:
    tl: list[Event] = [Arrived(0.0, "a/w1", "q-a"), Arrived(0.0, "a/w2", "q-a"), Admitted(1.0, "a/w1", "q-a", usage={CPU: 1000})]
    s = kueue_summary(tl, {"a/w1": "x", "a/w2": "x"}, {"q-a": ("cq", 4000)}, end=3.0)
    assert s.cluster_queue_classes["cq"].cpu_used == pytest.approx(1000 * 2000)
    x = s.workload_classes["x"]
    assert (x.count, x.admitted, x.finished) == (2, 1, 0)
    assert x.average_time_to_admission_ms == pytest.approx(1000)
    assert x.average_time_to_finish_ms is None


def test_json_uses_kueues_field_names_and_table_shows_them() -> None:
    s = kueue_summary(TIMELINE, CLASSES, QUEUES)
    doc = summary_json(s)
    assert set(doc) == {"clusterQueueClasses", "workloadClasses", "durationMs", "admissionTime"}
    assert doc["admissionTime"] == "observed"
    assert set(doc["clusterQueueClasses"]["cq"]) == {
        "cpuUsed", "cpuAverageUsage", "nominalQuota", "firstEventTime", "lastEventTime", "usagePercent"
    }
    assert doc["clusterQueueClasses"]["cq"]["firstEventTime"] == "2026-01-01T00:00:00.500Z"
    assert doc["clusterQueueClasses"]["cq"]["cpuUsed"] == 9_200_000
    assert doc["workloadClasses"]["y"] == {
        "count": 1, "totalEvictions": 1, "averageTimeToAdmissionMs": 3800.0, "averageTimeToFinishMs": 5000.0
    }
    assert doc["durationMs"] == 6200
    text = summary_table(s)
    assert "26.9" in text  # usage percent
    assert "3,800" in text
    assert "time to admission: observed" in text

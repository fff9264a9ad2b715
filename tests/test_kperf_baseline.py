"""Kueue's measured baseline: the general simulator with the API model at Kueue's test client
limits (every other parameter a fact of Kueue's code or the one documented constant, none
fitted) against Kueue's measured means. ``medium``, ``small``, the usage and the run time are
within the tolerances (± 25 %, ± 5 points, ± 5 %). ``large`` is not: the model puts it near
Kueue's measurement *without* scheduling-equivalence hashing (6,666 ms), hashing on or off.
The deterministic model runs the baseline in lockstep: every ``large`` head is nominated
``Fit`` and at worst loses its room to an earlier entry of the same cycle ("no longer fits",
straight back to the active set), so no ``large`` shape is ever parked and hashing changes
nothing; any perturbation of the lockstep (which Kueue's goroutines and random map order have,
but no fact of the model does) lets ``large`` heads fail ``PreemptionNoCandidates`` and
hashing then parks their shape (docs/howto-predict-kueue-waits.md §4, decision kp-m). The
tests pin that known gap and its cause.

The measured means are Kueue's own (range file of ``test/performance/scheduler`` at ff69552e,
5 runs, scheduling-equivalence hashing on); they are data from Kueue, not from this code.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.kperf.run import ScenarioOptions, ScenarioRun, run_scenario
from kueue_preempt.cycle.status import MSG_NO_LONGER_FITS
from kueue_preempt.sim.output.timeline import Admitted, Finished, Inadmissible, Preempted

BASELINE = Path(__file__).resolve().parent.parent / "examples" / "kueue-perf" / "baseline-generator.yaml"

KUEUE_MEASURED_MS = {"medium": 76_768, "small": 215_468}
KUEUE_LARGE_MS = 16_501
KUEUE_LARGE_WITHOUT_HASHING_MS = 6_666
KUEUE_MEASURED_USAGE = 55.9
KUEUE_MEASURED_WALL_MS = 351_116


@pytest.fixture(scope="module")
def kueue_like() -> ScenarioRun:
    return run_scenario(BASELINE, ScenarioOptions(api=ApiModel(50, 100)))


@pytest.fixture(scope="module")
def ideal() -> ScenarioRun:
    return run_scenario(BASELINE, ScenarioOptions())


@pytest.mark.parametrize("cls", sorted(KUEUE_MEASURED_MS))
def test_time_to_admission_within_25_percent_of_kueues_mean(kueue_like: ScenarioRun, cls: str) -> None:
    got = kueue_like.summary.workload_classes[cls].average_time_to_admission_ms
    assert got is not None
    assert abs(got / KUEUE_MEASURED_MS[cls] - 1) <= 0.25


def test_large_is_the_known_gap(kueue_like: ScenarioRun) -> None:
    got = kueue_like.summary.workload_classes["large"].average_time_to_admission_ms
    assert got is not None
    assert got < KUEUE_LARGE_MS
    assert abs(got / KUEUE_LARGE_WITHOUT_HASHING_MS - 1) <= 0.25


def test_large_heads_only_lose_their_room_within_a_cycle(kueue_like: ScenarioRun) -> None:
    """The cause of the gap: no ``large`` head attempt fails in a way that parks its shape
    (``NoFit``/``PreemptionNoCandidates``, SC-RQ-8); each failed attempt is a skip after an
    earlier entry of its cycle took the cohort's room (SC-PE-4), and none preempts."""
    large = {w.key for w in kueue_like.built.workloads if w.class_name == "large"}
    failed = [e for e in kueue_like.result.timeline if isinstance(e, Inadmissible) and e.workload in large]
    assert len(failed) > len(large)  # more failed attempts than large workloads: they do fail
    assert {e.message for e in failed} == {MSG_NO_LONGER_FITS}
    assert not any(isinstance(e, Preempted) and e.preemptor in large for e in kueue_like.result.timeline)


def test_cpu_usage_within_5_points_and_run_time(kueue_like: ScenarioRun) -> None:
    usage = kueue_like.summary.cluster_queue_classes["cq"].usage_percent
    assert abs(usage - KUEUE_MEASURED_USAGE) <= 5
    # Not a tolerance of the issue, but the model's main lever: the run lasts as long as
    # Kueue's writes take at 50 per second.
    assert abs(kueue_like.summary.duration * 1000 / KUEUE_MEASURED_WALL_MS - 1) <= 0.05


def test_ideal_api_is_quota_only_and_faster(kueue_like: ScenarioRun, ideal: ScenarioRun) -> None:
    """With an ideal API the waits are quota's share: never longer than with Kueue's client,
    and the run is shorter (the throughput share of item 4)."""
    for cls in KUEUE_MEASURED_MS:
        w_ideal = ideal.summary.workload_classes[cls].average_time_to_admission_ms
        w_api = kueue_like.summary.workload_classes[cls].average_time_to_admission_ms
        assert w_ideal is not None and w_api is not None
        assert w_ideal <= w_api
    assert ideal.summary.duration < kueue_like.summary.duration
    assert ideal.result.api is None
    # 15,000 admissions at 50 per second, burst 100: at least 298 s.
    assert kueue_like.summary.duration >= (15_000 - 100) / 50


def test_every_write_is_counted_and_everything_finishes(kueue_like: ScenarioRun) -> None:
    """The API model's bookkeeping on the baseline (decision kp-a): one admission write per
    admission, one eviction write per preemption, every workload finishes."""
    r = kueue_like.result
    assert r.api is not None
    finished = {e.workload for e in r.timeline if isinstance(e, Finished)}
    assert len(finished) == len(kueue_like.built.workloads)
    kinds = dict(r.api.by_kind)
    assert kinds["admission"] == sum(isinstance(e, Admitted) for e in r.timeline)
    assert kinds.get("eviction", 0) == sum(isinstance(e, Preempted) for e in r.timeline)
    assert kinds.get("workloadController", 0) == kinds.get("eviction", 0)
    # 50 requests per second with bursts of 100: the admissions alone need that long.
    assert r.end >= (kinds["admission"] - 100) / 50

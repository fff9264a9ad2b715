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

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from kueue_preempt.cycle import ClusterQueueSettings, ClusterState, CycleConfig, CycleState, LocalQueue, schedule_cycle
from kueue_preempt.cycle.queueing import queue_order_key
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import ClusterQueue, ClusterQueuePreemption, ResourceQuota, Workload
from kueue_preempt.model.config import PreemptionConfig
from kueue_preempt.model.flavors import FlavorQuotas, PodSetSpec, ResourceGroup
from kueue_preempt.sim.api_model import ApiModel, ApiRuntime
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


# -- What de-locksteps the model (decision kp-n): Kueue's random head order and the API's
# one-second timestamps. Hand-worked, no scenario run.

NOW = datetime(2026, 1, 1, tzinfo=timezone.utc)


def _two_queues_one_room(created_b: datetime = NOW - timedelta(hours=1)) -> ClusterState:
    """ClusterQueues ``a`` and ``b`` (1 cpu each, one cohort), each with a pending 2-cpu
    workload of priority 0: both heads borrow and only one fits the cohort's 2 cpu. With the
    same creation time the two entries tie on every SC-ORD-1 criterion."""
    queues = [
        ClusterQueue(
            name=n,
            cohort="co",
            preemption=ClusterQueuePreemption(within_cluster_queue="LowerPriority"),
            resource_groups=[ResourceGroup(("cpu",), [FlavorQuotas("default", {"cpu": ResourceQuota(nominal=1000)})])],
        )
        for n in ("a", "b")
    ]
    workloads = [
        Workload(
            name=f"w{n}", namespace="ns", uid=f"w{n}", local_queue=n, priority=0,
            creation_time=NOW - timedelta(hours=1) if n == "a" else created_b,
            spec_pod_sets=[PodSetSpec("main", 1, {"cpu": 2000})],
        )
        for n in ("a", "b")
    ]
    return ClusterState(
        cluster_queues=queues,
        local_queues=[LocalQueue(namespace="ns", name=n, cluster_queue=n) for n in ("a", "b")],
        queueing={n: ClusterQueueSettings(n) for n in ("a", "b")},
        workloads=workloads,
    )


def _admitted(c: ClusterState, seed: int | None) -> tuple[str, ...]:
    return schedule_cycle(c, None, config=CycleConfig(head_order_seed=seed), now=NOW).admitted


def test_head_order_seed_breaks_a_full_tie_by_seed_and_none_keeps_name_order() -> None:
    """SC-ORD-2: a full tie keeps the head order. ``None``: ClusterQueue-name order (SC-CY-2),
    so ``a`` wins. A seed shuffles the first cycle's heads with ``Random("<seed>/1")``:
    seeds 0 and 1 give [a, b], seeds 2 and 4 give [b, a] (worked out from that generator),
    and the same seed gives the same cycle."""
    c = _two_queues_one_room()
    assert _admitted(c, None) == ("ns/wa",)
    assert [_admitted(c, s) for s in (0, 1, 2, 4)] == [("ns/wa",), ("ns/wa",), ("ns/wb",), ("ns/wb",)]
    assert _admitted(c, 2) == ("ns/wb",)


def test_incremental_state_draws_the_same_head_order() -> None:
    """The simulator's incremental CycleState numbers its cycles as schedule_cycle does, so a
    seed gives the same cycle on both paths."""
    for seed, winner in ((None, "ns/wa"), (0, "ns/wa"), (2, "ns/wb"), (4, "ns/wb")):
        state = CycleState(_two_queues_one_room(), None, CycleConfig(head_order_seed=seed))
        assert state.cycle(NOW).admitted == (winner,)


def test_head_order_seed_leaves_an_ordered_entry_first() -> None:
    """The shuffle only reorders full ties: ``wb`` created a minute earlier goes first (SC-ORD-1
    criterion 5, earlier queue-order time) whatever the seed."""
    c = _two_queues_one_room(created_b=NOW - timedelta(hours=1, minutes=1))
    assert {_admitted(c, s) for s in (None, 0, 1, 2, 3, 4)} == {("ns/wb",)}


@pytest.mark.parametrize("bad", [-1, True, "1", 1.0])
def test_head_order_seed_is_validated(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="CycleConfig.head_order_seed"):
        CycleConfig(head_order_seed=bad)  # type: ignore[arg-type]


def test_second_timestamps_tie_two_workloads_created_in_the_same_second() -> None:
    """``second-timestamps``: created 0.2 s and 0.7 s into the same second, two workloads get
    the same creationTimestamp, so they tie on the queue-order time (POL-5) and the uid
    decides (SC-QO-1); the next second is a later time. Off: the exact times."""
    def workload(name: str, at: float) -> Workload:
        return Workload(name=name, namespace="ns", uid=name, local_queue="a", creation_time=NOW + timedelta(seconds=at))

    early, late, next_second = workload("x", 0.2), workload("y", 0.7), workload("z", 1.1)
    api = ApiRuntime(ApiModel(50, 100), lambda t, done, key: None)
    stamped = [api.created(w) for w in (early, late, next_second)]
    assert [w.creation_time for w in stamped] == [NOW, NOW, NOW + timedelta(seconds=1)]
    keys = [queue_order_key(w, PreemptionConfig()) for w in stamped]
    assert keys[0][1] == keys[1][1] < keys[2][1]
    assert sorted(keys)[0][2] == "x"  # the tie goes to the smaller uid
    exact = ApiRuntime(ApiModel(50, 100, disabled=["second-timestamps"]), lambda t, done, key: None)
    assert [exact.created(w) for w in (early, late)] == [early, late]

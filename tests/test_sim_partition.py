"""One simulation split by root cohort equals the whole run (kueue_preempt.sim.partition)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any, Callable, Sequence, TypeVar

import attrs
import pytest
from hypothesis import HealthCheck, assume, event, given, settings
from hypothesis import strategies as st

from kueue_preempt.cycle import CycleConfig, WorkloadStatus
from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io import RawObject
from kueue_preempt.model import Cohort
from kueue_preempt.model.config import FairSharingConfig
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.policies.boost import ThresholdBoostConfig
from kueue_preempt.policies.settings import PolicySettings
from kueue_preempt.sim.api_model import ApiModel
from kueue_preempt.sim.arrivals.model import ArrivalRow, ArrivalsFile, PodSetOverride, WorkloadOverrides
from kueue_preempt.sim.arrivals.resolve import resolve_arrivals
from kueue_preempt.sim.engine import SimulationOptions, SimulationResult
from kueue_preempt.sim.output.metrics import summarize
from kueue_preempt.sim.output.report import summary_json
from kueue_preempt.sim.output.timeline import Event
from kueue_preempt.sim.partition import (
    PartitionRun,
    merge_partitions,
    partition_inputs,
    partition_refusal,
    run_partition,
    simulate_partitioned,
)
from kueue_preempt.sim.run import simulate
from kueue_preempt.sweep import LocalBackend
from sim_partition_cluster import API, Generated, clusters, counts, differences, per_workload

T = TypeVar("T")
R = TypeVar("R")

_SETTINGS = settings(max_examples=70, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)

options_st = st.builds(
    SimulationOptions,
    inadmissible_requeue_delay=st.sampled_from([0.0, 1.0]),
    termination_time=st.sampled_from([0.0, 0.0, 2.0]),
    resume_after_preemption=st.booleans(),
)


def _summary(result: SimulationResult, g: Generated, until: float | None = None) -> Any:
    return summary_json(summarize(result.timeline, dump=g.dump, until=until), series=True)


CONFIGS = (CycleConfig(), CycleConfig.of(fair_sharing=FairSharingConfig()))


@_SETTINGS
@given(clusters(), options_st, st.sampled_from(CONFIGS))
def test_partitioned_equals_whole_event_for_event_per_workload(
    g: Generated, options: SimulationOptions, config: CycleConfig
) -> None:
    """Several root cohorts (nested cohorts, cohort-less ClusterQueues), one or two flavors
    per resource with Kueue's default gates (FlavorFungibilityPreserveScanProgress on),
    preemption policies, StrictFIFO and BestEffortFIFO, admitted workloads at the start;
    classic preemption or fair sharing."""
    whole = simulate(g.state, g.dump, g.arrivals, config=config, options=options)
    split = simulate_partitioned(g.state, g.dump, g.arrivals, config=config, options=options)
    # The cycle cap counts one tree's pending workloads in a partition (documented): a run
    # that reaches it is not comparable from then on.
    assume(not whole.livelocks and not split.livelocks)
    event(f"partitions: {len(split.partitions)}, flavors: {g.flavors}")
    event("preemptions" if counts(whole.timeline).get("Preempted") else "no preemption")
    assert differences(whole.timeline, split.result.timeline) == []
    kinds, split_kinds = counts(whole.timeline), counts(split.result.timeline)
    for kind in ("Arrived", "Admitted", "Preempted", "Released", "Requeued", "Finished"):
        assert kinds.get(kind, 0) == split_kinds.get(kind, 0), kind
    assert (split.result.instants, split.result.cycles, split.result.end) == (whole.instants, whole.cycles, whole.end)
    assert split.result.truncated == whole.truncated
    assert _summary(split.result, g) == _summary(whole, g)
    # Besides the partitions' events: the repeats of heads left failing, at the last instant.
    assert len(split.result.timeline) >= sum(p.events for p in split.partitions)


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(clusters(), st.integers(1, 12))
def test_max_instants_stops_the_merged_run_where_the_whole_run_stops(g: Generated, cap: int) -> None:
    options = SimulationOptions(max_instants=cap)
    whole = simulate(g.state, g.dump, g.arrivals, options=options)
    split = simulate_partitioned(g.state, g.dump, g.arrivals, options=options)
    assume(not whole.livelocks and not split.livelocks)
    assert (split.result.truncated, split.result.instants, split.result.cycles, split.result.end) == (
        whole.truncated, whole.instants, whole.cycles, whole.end
    )
    assert differences(whole.timeline, split.result.timeline) == []


# --------------------------------------------------------------------------- a fixed cluster


def _cq(name: str, cohort: str | None, nominal: int, strategy: str = "BestEffortFIFO") -> dict[str, Any]:
    spec: dict[str, Any] = {
        "namespaceSelector": {},
        "queueingStrategy": strategy,
        "resourceGroups": [{"coveredResources": ["cpu"], "flavors": [{"name": "f0", "resources": [{"name": "cpu", "nominalQuota": str(nominal)}]}]}],
        "preemption": {"withinClusterQueue": "LowerPriority", "reclaimWithinCohort": "Any"},
    }
    if cohort:
        spec["cohortName"] = cohort
    return {"apiVersion": API, "kind": "ClusterQueue", "metadata": {"name": name}, "spec": spec}


def _fixed() -> Generated:
    """Cohort ``left`` (a, b: 2 CPU each) and cohort-less ``solo`` (StrictFIFO, 1 CPU): an
    arrival in ``a`` borrows ``b``'s quota, ``b``'s own arrival reclaims it (a preemption),
    and ``solo``'s second arrival waits at the head of its StrictFIFO queue."""
    objects: list[dict[str, Any]] = [{"apiVersion": API, "kind": "ResourceFlavor", "metadata": {"name": "f0"}}]
    objects += [_cq("a", "left", 2), _cq("b", "left", 2), _cq("solo", None, 1, "StrictFIFO")]
    for cq in ("a", "b", "solo"):
        objects += [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": cq}},
            {"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "lq", "namespace": cq}, "spec": {"clusterQueue": cq}},
            {"apiVersion": API, "kind": "Workload", "metadata": {"name": "template", "namespace": cq},
             "spec": {"active": False, "queueName": "lq", "priority": 0, "podSets": [
                 {"name": "main", "count": 1, "template": {"spec": {"containers": [
                     {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}},
        ]

    # Namespace a also submits to solo: an arrival made from a's template, queued in another tree.
    objects.append({"apiVersion": API, "kind": "LocalQueue", "metadata": {"name": "to-solo", "namespace": "a"},
                    "spec": {"clusterQueue": "solo"}})

    def row(at: float, cq: str, name: str, cpu: int, duration: float = 10.0, queue: str | None = None) -> ArrivalRow:
        return ArrivalRow(at=at, duration=duration, template=f"{cq}/template", overrides=WorkloadOverrides(
            name=name, queue_name=queue, pod_sets=(PodSetOverride(count=1, requests={"cpu": 1000 * cpu}),)))

    rows = [row(0, "a", "big", 4), row(0, "solo", "s1", 1), row(1, "solo", "s2", 1), row(2, "b", "own", 2), row(3, "a", "late", 1),
            row(4, "a", "cross", 1, queue="to-solo")]
    state, dump = cluster_state_from_objects([RawObject("fixed", i + 1, o) for i, o in enumerate(objects)])
    return Generated(state, dump, ArrivalsFile(rows=rows), 1)


def test_the_fixed_cluster_has_two_partitions_and_equals_the_whole_run() -> None:
    g = _fixed()
    whole = simulate(g.state, g.dump, g.arrivals)
    split = simulate_partitioned(g.state, g.dump, g.arrivals)
    assert [p.root for p in split.partitions] == ["ClusterQueue/solo", "Cohort/left"]
    assert [p.cluster_queues for p in split.partitions] == [("solo",), ("a", "b")]
    assert counts(whole.timeline)["Preempted"] == 1  # "own" reclaims b's quota from "big"
    cross = [e for e in split.result.timeline if getattr(e, "workload", None) == "a/cross"]
    assert [type(e).__name__ for e in cross][:1] == ["Arrived"] and cross[0].cluster_queue == "solo"  # type: ignore[union-attr]
    assert "Admitted" in [type(e).__name__ for e in cross]
    assert differences(whole.timeline, split.result.timeline) == []
    assert _summary(split.result, g) == _summary(whole, g)
    # The whole run repeats s2's inadmissible event at every cycle the other tree causes
    # (the documented difference); collapsed, the sequences are equal.
    raw_whole = per_workload(whole.timeline, collapse_inadmissible=False)["solo/s2"]
    raw_split = per_workload(split.result.timeline, collapse_inadmissible=False)["solo/s2"]
    assert len(raw_whole) > len(raw_split)


def test_the_checker_has_teeth() -> None:
    g = _fixed()
    whole = simulate(g.state, g.dump, g.arrivals)
    parts = partition_inputs(g.state, g.dump, resolve_arrivals(g.arrivals, g.dump))
    runs = [run_partition(p) for p in parts]
    assert differences(whole.timeline, merge_partitions(runs).result.timeline) == []

    # A merge that loses a partition.
    assert differences(whole.timeline, merge_partitions(runs[1:]).result.timeline) != []

    # A merge that orders the events of one time by kind instead of keeping each partition's order.
    merged = merge_partitions(runs).result.timeline
    by_kind = sorted(merged, key=lambda e: (e.t, type(e).__name__))
    assert differences(whole.timeline, by_kind) != []

    # A partition missing a ClusterQueue of its tree: "big" cannot borrow b's quota.
    left = next(p for p in parts if p.root == "Cohort/left")
    state = attrs.evolve(left.state, cluster_queues=[cq for cq in left.state.cluster_queues if cq.name != "b"])
    wrong = attrs.evolve(left, state=state)
    broken: list[PartitionRun] = [runs[0], run_partition(wrong)]
    assert any(k.startswith("a/big:") for k in differences(whole.timeline, merge_partitions(broken).result.timeline))

    # One event dropped.
    dropped: tuple[Event, ...] = tuple(e for e in merged if not (type(e).__name__ == "Finished" and e.t == merged[-1].t))
    assert differences(whole.timeline, dropped) != []


def test_worker_processes_give_the_in_process_result() -> None:
    g = _fixed()
    here = simulate_partitioned(g.state, g.dump, g.arrivals)
    there = simulate_partitioned(g.state, g.dump, g.arrivals, mapper=LocalBackend(workers=2))
    assert there.result == here.result
    assert [attrs.evolve(p, cpu_seconds=0.0) for p in there.partitions] == [
        attrs.evolve(p, cpu_seconds=0.0) for p in here.partitions
    ]
    assert all(p.cpu_seconds >= 0 for p in there.partitions)


# --------------------------------------------------------------------------- refusals


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"options": SimulationOptions(api=ApiModel(qps=50.0, burst=100))}, "API-throughput model"),
        ({"policy": PolicySettings(cost_base=1)}, "reference controller"),
        ({"policy": PolicySettings(boost=ThresholdBoostConfig())}, "--boost"),
        ({"config": CycleConfig(head_order_seed=3)}, "seeded head order"),
    ],
)
def test_what_couples_the_trees_is_refused(kwargs: dict[str, Any], words: str) -> None:
    g = _fixed()
    with pytest.raises(ConfigurationError, match="cannot split the simulation by root cohort") as info:
        simulate_partitioned(g.state, g.dump, g.arrivals, **kwargs)
    assert words in str(info.value)


def test_a_cohort_cycle_is_refused() -> None:
    g = _fixed()
    dump = attrs.evolve(g.dump, cohorts=[Cohort("x", parent="y"), Cohort("y", parent="x")])
    assert "parent cycle" in (partition_refusal(dump) or "")


def test_held_workloads_with_two_flavors_and_scan_progress_are_refused() -> None:
    g = _fixed()
    two = attrs.evolve(
        g.dump.cluster_queues[0],
        quotas={**g.dump.cluster_queues[0].quotas, **{attrs.evolve(fr, flavor="f1"): q for fr, q in g.dump.cluster_queues[0].quotas.items()}},
        resource_groups=(),
    )
    dump = attrs.evolve(g.dump, cluster_queues=[two, *g.dump.cluster_queues[1:]])
    key = next(w.key for w in g.state.workloads)
    held = attrs.evolve(g.state, statuses={key: WorkloadStatus(requeue_at=datetime(2030, 1, 1, tzinfo=timezone.utc))})
    why = partition_refusal(dump, held)
    assert why is not None and "FlavorFungibilityPreserveScanProgress" in why and key in why
    assert partition_refusal(dump, g.state) is None  # nobody held: allowed
    gate_off = CycleConfig.of(feature_gates={"FlavorFungibilityPreserveScanProgress": False})
    assert partition_refusal(dump, held, config=gate_off) is None


def test_summary_json_of_the_fixed_cluster_is_stable() -> None:
    g = _fixed()
    split = simulate_partitioned(g.state, g.dump, g.arrivals)
    doc = json.dumps(_summary(split.result, g), sort_keys=True)
    assert '"preemptions": 1' in doc


def test_a_cluster_without_cluster_queues_is_its_start_instant() -> None:
    g = _fixed()
    empty = attrs.evolve(g.dump, cluster_queues=(), local_queues=(), workloads=())
    state = attrs.evolve(g.state, cluster_queues=(), local_queues=(), workloads=(), statuses={})
    split = simulate_partitioned(state, empty, ArrivalsFile())
    assert split.partitions == () and split.result == simulate(state, empty, ArrivalsFile())


class _Recording:
    """A mapper that records the order it was given the partitions in."""

    def __init__(self) -> None:
        self.roots: list[str] = []

    def map(self, fn: Callable[[T], R], items: Sequence[T]) -> list[R]:
        self.roots += [getattr(item, "root") for item in items]
        return [fn(item) for item in items]


def test_the_largest_partition_is_handed_out_first_and_the_result_keeps_partition_order() -> None:
    g = _fixed()
    mapper = _Recording()
    split = simulate_partitioned(g.state, g.dump, g.arrivals, mapper=mapper)
    assert mapper.roots == ["Cohort/left", "ClusterQueue/solo"]  # 3 arrivals and 2 workloads, against 3 and 1
    assert [p.root for p in split.partitions] == ["ClusterQueue/solo", "Cohort/left"]
    assert split.result == simulate_partitioned(g.state, g.dump, g.arrivals).result

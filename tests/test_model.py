"""Unit tests for the immutable model (spec §2 DM-1..DM-9, POL-7, POL-9, FS-W-2)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import attrs
import pytest

from kueue_preempt import (
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FlavorResource,
    InvalidModel,
    KueuePreemptError,
    PodSetUsage,
    PreemptionConfig,
    PreemptionPolicy,
    ResourceQuota,
    Workload,
)
from kueue_preempt.model import Condition, RequeuingTimestamp

UTC = timezone.utc
CPU = FlavorResource("default", "cpu")


def test_models_are_frozen() -> None:
    """DM: immutable value types; assignment raises FrozenInstanceError."""
    w = Workload(name="w")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(w, "name", "other")
    cq = ClusterQueue("cq")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(cq, "cohort", "c")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(ResourceQuota(1), "nominal", 2)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        setattr(FlavorResource("f", "r"), "flavor", "g")


def test_frozen_maps_cannot_be_mutated() -> None:
    """Maps stored on a model object are read-only."""
    w = Workload(name="w", labels={"a": "b"})
    with pytest.raises(TypeError):
        w.labels["a"] = "c"  # type: ignore[index]


def test_models_are_hashable_and_compare_by_value() -> None:
    """DM-2: FlavorResource is a map key; the other value types are hashable too."""
    w1 = Workload(
        name="w",
        namespace="ns",
        labels={"k": "v"},
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": 1000})],
        conditions=[Condition("Evicted", reason="Preempted", last_transition_time="2026-01-01T00:00:00Z")],
    )
    w2 = Workload(
        name="w",
        namespace="ns",
        labels={"k": "v"},
        pod_sets=[PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": 1000})],
        conditions=[Condition("Evicted", reason="Preempted", last_transition_time="2026-01-01T00:00:00Z")],
    )
    assert w1 == w2 and hash(w1) == hash(w2)
    assert len({w1, w2}) == 1
    cq = ClusterQueue("cq", cohort="c", quotas={CPU: ResourceQuota(1000)})
    assert hash(cq) == hash(ClusterQueue("cq", cohort="c", quotas={CPU: ResourceQuota(1000)}))
    d = {FlavorResource("f", "r"): 1}
    assert d[FlavorResource("f", "r")] == 1
    assert hash(Cohort("c")) == hash(Cohort("c"))


def test_enum_converters() -> None:
    """Strings are converted to enums at the edge."""
    p = ClusterQueuePreemption(
        within_cluster_queue="LowerOrNewerEqualPriority",
        reclaim_within_cohort="Any",
        borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority", max_priority_threshold=5),
    )
    assert p.within_cluster_queue is PreemptionPolicy.LOWER_OR_NEWER_EQUAL_PRIORITY
    assert p.reclaim_within_cohort is PreemptionPolicy.ANY
    assert p.borrow_within_cohort is not None
    assert p.borrow_within_cohort.policy is PreemptionPolicy.LOWER_PRIORITY
    assert PreemptionConfig(pods_ready_requeuing_timestamp="Eviction").pods_ready_requeuing_timestamp is (
        RequeuingTimestamp.EVICTION
    )


def test_pol7_defaults_are_never() -> None:
    """POL-7: every field left out defaults to Never; an explicit empty value is UNSET (POL-8)."""
    p = ClusterQueuePreemption()
    assert p.within_cluster_queue is PreemptionPolicy.NEVER
    assert p.reclaim_within_cohort is PreemptionPolicy.NEVER
    assert ClusterQueuePreemption(within_cluster_queue=None).within_cluster_queue is PreemptionPolicy.NEVER
    assert ClusterQueuePreemption(within_cluster_queue="").within_cluster_queue is PreemptionPolicy.UNSET
    assert BorrowWithinCohort().policy is PreemptionPolicy.NEVER
    assert BorrowWithinCohort(policy="").policy is PreemptionPolicy.UNSET


def test_time_converters_give_aware_utc_datetimes() -> None:
    """RFC 3339 strings (any offset) and naive datetimes become aware UTC datetimes."""
    w = Workload(
        name="w",
        creation_time="2026-01-01T01:00:00+01:00",
        quota_reserved_at="2026-01-01T00:00:00.5Z",
    )
    assert w.creation_time == datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
    assert w.creation_time is not None and w.creation_time.utcoffset() == timedelta(0)
    assert w.quota_reserved_at == datetime(2026, 1, 1, 0, 0, 0, 500000, tzinfo=UTC)
    c = Condition("QuotaReserved", last_transition_time="2026-03-04T05:06:07Z")
    assert c.last_transition_time == datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)
    naive = Workload(name="w", creation_time=datetime(2026, 1, 1, 12, 0))
    assert naive.creation_time == datetime(2026, 1, 1, 12, 0, tzinfo=UTC)
    assert naive.creation_time is not None and naive.creation_time.tzinfo is not None
    assert Workload(name="w").creation_time is None


@pytest.mark.parametrize("bad", ["yesterday", "2026-01-01", "2026-13-01T00:00:00Z", "2026-01-01T00:00:00"])
def test_time_converter_rejects_non_rfc3339(bad: str) -> None:
    with pytest.raises(KueuePreemptError):
        Workload(name="w", creation_time=bad)


def test_dicts_are_copied() -> None:
    """Mutating the caller's dict afterwards does not change the model object."""
    labels = {"kueue.x-k8s.io/job-uid": "j1"}
    annotations = {"kueue.x-k8s.io/priority-boost": "5"}
    flavors = {"cpu": "default"}
    usage = {"cpu": 1000}
    quotas = {CPU: ResourceQuota(1000)}
    ps = PodSetUsage(flavors=flavors, usage=usage)
    w = Workload(name="w", labels=labels, annotations=annotations, pod_sets=[ps])
    cq = ClusterQueue("cq", quotas=quotas)
    labels["kueue.x-k8s.io/job-uid"] = "changed"
    annotations["kueue.x-k8s.io/priority-boost"] = "abc"
    flavors["cpu"] = "other"
    usage["cpu"] = 5
    quotas[CPU] = ResourceQuota(1)
    quotas[FlavorResource("x", "y")] = ResourceQuota(2)
    assert w.labels["kueue.x-k8s.io/job-uid"] == "j1"
    assert w.annotations["kueue.x-k8s.io/priority-boost"] == "5"
    assert ps.flavors["cpu"] == "default" and ps.usage["cpu"] == 1000
    assert w.usage == {CPU: 1000}
    assert dict(cq.quotas) == {CPU: ResourceQuota(1000)}


def test_pod_sets_and_conditions_lists_are_copied() -> None:
    pod_sets = [PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": 1})]
    w = Workload(name="w", pod_sets=pod_sets)
    pod_sets.append(PodSetUsage(flavors={"cpu": "default"}, usage={"cpu": 5}))
    assert len(w.pod_sets) == 1
    assert w.usage == {CPU: 1}


# ---------------------------------------------------------------------------- POL-7


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"within_cluster_queue": "Any"}, "within_cluster_queue"),  # Any only for reclaim
        ({"reclaim_within_cohort": "LowerOrNewerEqualPriority"}, "reclaim_within_cohort"),
        # Unknown strings fail in the converter, which does not know the field name.
        ({"within_cluster_queue": "Sometimes"}, "policy"),
        ({"reclaim_within_cohort": "lowerpriority"}, "policy"),  # case-sensitive
    ],
)
def test_pol7_invalid_policy_values_rejected(kwargs: dict[str, str], field: str) -> None:
    """POL-7: within in {Never, LowerPriority, LowerOrNewerEqualPriority}; reclaim in
    {Never, LowerPriority, Any}; unknown strings are rejected at configuration time."""
    with pytest.raises(InvalidModel) as info:
        ClusterQueuePreemption(**kwargs)  # type: ignore[arg-type]
    assert isinstance(info.value, KueuePreemptError)
    assert field in str(info.value)
    assert next(iter(kwargs.values())) in str(info.value)


def test_pol7_borrow_within_cohort_policy_values() -> None:
    """POL-7: borrow_within_cohort.policy in {Never, LowerPriority}."""
    with pytest.raises(InvalidModel):
        BorrowWithinCohort(policy="Any")
    with pytest.raises(InvalidModel):
        BorrowWithinCohort(policy="LowerOrNewerEqualPriority")
    assert BorrowWithinCohort(policy="LowerPriority").policy is PreemptionPolicy.LOWER_PRIORITY


def test_pol7_reclaim_never_forbids_borrow_within_cohort() -> None:
    """POL-7: reclaim_within_cohort = Never forbids borrow_within_cohort.policy != Never."""
    with pytest.raises(InvalidModel) as info:
        ClusterQueuePreemption(
            reclaim_within_cohort="Never", borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority")
        )
    assert "borrow_within_cohort" in str(info.value)
    with pytest.raises(InvalidModel):  # the default reclaim is Never as well
        ClusterQueuePreemption(borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority"))
    # Allowed combinations.
    ClusterQueuePreemption(reclaim_within_cohort="Never", borrow_within_cohort=BorrowWithinCohort(policy="Never"))
    ClusterQueuePreemption(
        reclaim_within_cohort="LowerPriority", borrow_within_cohort=BorrowWithinCohort(policy="LowerPriority")
    )


# ---------------------------------------------------------------------------- Workload fields


@pytest.mark.parametrize("priority", [2**31, -(2**31) - 1, 10**12])
def test_workload_priority_must_be_int32(priority: int) -> None:
    """DM-6: spec.priority is an int32."""
    with pytest.raises(InvalidModel) as info:
        Workload(name="w", priority=priority)
    assert "priority" in str(info.value)
    assert str(priority) in str(info.value)


@pytest.mark.parametrize("priority", [2**31 - 1, -(2**31), 0, None])
def test_workload_priority_int32_bounds_accepted(priority: int | None) -> None:
    assert Workload(name="w", priority=priority).priority == priority


def test_workload_key() -> None:
    """DM-6: key = "namespace/name"."""
    assert Workload(name="w", namespace="ns").key == "ns/w"


# ---------------------------------------------------------------------------- FlavorResource


def test_flavor_resource_parse_splits_on_first_slash() -> None:
    """DM-2: resource names may contain "/" (extended resources)."""
    assert FlavorResource.parse("default/example.com/gpu") == FlavorResource("default", "example.com/gpu")
    assert FlavorResource.parse("default/cpu") == FlavorResource("default", "cpu")
    assert str(FlavorResource("default", "example.com/gpu")) == "default/example.com/gpu"


@pytest.mark.parametrize("text", ["cpu", "/cpu", "default/", ""])
def test_flavor_resource_parse_rejects(text: str) -> None:
    with pytest.raises(InvalidModel):
        FlavorResource.parse(text)


# ---------------------------------------------------------------------------- DM-7 usage, POL-9


def test_dm7_usage_sums_pod_sets_per_flavor_resource() -> None:
    """DM-7: usage() = per-FR sum over pod sets of requests[r] keyed by (flavors[r], r).
    (A resource without a flavor is refused at construction: tests/test_embedding_errors.py.)"""
    w = Workload(
        name="w",
        pod_sets=[
            PodSetUsage(name="a", flavors={"cpu": "default", "gpu": "t4"}, usage={"cpu": 1000, "gpu": 2}),
            PodSetUsage(name="b", flavors={"cpu": "default"}, usage={"cpu": 500}),
            PodSetUsage(name="c", flavors={"cpu": "spot", "gpu": "a100"}, usage={"cpu": 250, "gpu": 1}),
        ],
    )
    assert dict(w.usage) == {
        FlavorResource("default", "cpu"): 1500,
        FlavorResource("t4", "gpu"): 2,
        FlavorResource("spot", "cpu"): 250,
        FlavorResource("a100", "gpu"): 1,
    }
    assert all(fr.resource != "memory" for fr in w.usage)


def test_pol9_used_flavor_resources_is_flavor_based() -> None:
    """POL-9/DM-7: only the flavor map matters; zero amounts (and flavors with no amount)
    still count. (Amounts without a flavor are refused: tests/test_embedding_errors.py.)"""
    w = Workload(
        name="w",
        pod_sets=[
            PodSetUsage(flavors={"gpu": "t4", "cpu": "default"}, usage={"gpu": 0}),
        ],
    )
    assert w.used_flavor_resources == frozenset({FlavorResource("t4", "gpu"), FlavorResource("default", "cpu")})
    assert FlavorResource("t4", "gpu") in w.usage and w.usage[FlavorResource("t4", "gpu")] == 0


# ---------------------------------------------------------------------------- FS-W-2 weights


@pytest.mark.parametrize("weight", [-1, -0.5, 1e-10, 1e-9, "-1", float("nan")])
def test_fsw2_invalid_weights_rejected(weight: float | str) -> None:
    """FS-W-2: weight >= 0, and a positive weight must be > 1e-9."""
    with pytest.raises(InvalidModel) as info:
        ClusterQueue("cq", fair_weight=weight)
    assert "weight" in str(info.value)
    with pytest.raises(InvalidModel):
        Cohort("c", fair_weight=weight)


@pytest.mark.parametrize(
    ("weight", "expected"),
    [(0, 0.0), (0.0, 0.0), ("0", 0.0), ("0.99", 0.99), (2, 2.0), ("1500m", 1.5), (1e-8, 1e-8)],
)
def test_fsw2_valid_weights(weight: float | str, expected: float) -> None:
    """FS-W-1/FS-W-2: 0 is allowed (FS-W-3), strings are quantities."""
    assert ClusterQueue("cq", fair_weight=weight).fair_weight == expected
    assert Cohort("c", fair_weight=weight).fair_weight == expected


def test_fsw1_default_weight_is_one() -> None:
    assert ClusterQueue("cq").fair_weight == 1.0
    assert Cohort("c").fair_weight == 1.0


# ---------------------------------------------------------------------------- Q-17 validation


def test_q17_quota_validation() -> None:
    """Q-17: non-negative quotas; BL/LL only with a parent; CQ LL <= nominal."""
    with pytest.raises(InvalidModel):
        ResourceQuota(nominal=-1)
    with pytest.raises(InvalidModel):
        ClusterQueue("cq", quotas={CPU: ResourceQuota(5, borrowing_limit=1)})
    with pytest.raises(InvalidModel):
        ClusterQueue("cq", cohort="c", quotas={CPU: ResourceQuota(5, lending_limit=6)})
    with pytest.raises(InvalidModel):
        Cohort("c", quotas={CPU: ResourceQuota(5, lending_limit=1)})
    ClusterQueue("cq", cohort="c", quotas={CPU: ResourceQuota(5, borrowing_limit=1, lending_limit=5)})
    Cohort("c", parent="p", quotas={CPU: ResourceQuota(5, borrowing_limit=0, lending_limit=1)})

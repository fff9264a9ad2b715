"""The amount input rule of the public constructors (Q-1; issue 16 item 3, decision (w)).

A string is a Kubernetes quantity parsed exactly for the resource it belongs to, as the manifest
reader does; a number is already an amount; where the resource is unknown a string is refused;
anything else is an ``InvalidModel`` naming the object and the field.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt import (
    Assignment,
    FlavorResource,
    InvalidModel,
    InvalidQuantity,
    KueuePreemptError,
    PodSetUsage,
    ResourceQuota,
    Workload,
    request_amount,
)
from kueue_preempt.model import UNLIMITED
from kueue_preempt.io.objects import PodSetRequests

CPU = FlavorResource("f", "cpu")
MEM = FlavorResource("f", "memory")


def test_q1_usage_strings_are_quantities_of_their_resource() -> None:
    """Q-1: "500m" of cpu is 500 milli-CPU; "1Gi" of memory is 2^30 bytes; "1" of cpu is 1000."""
    ps = PodSetUsage(flavors={"cpu": "f", "memory": "f"}, usage={"cpu": "500m", "memory": "1Gi"})
    assert dict(ps.usage) == {"cpu": 500, "memory": 2**30}
    assert PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": "1"}).usage["cpu"] == 1000
    assert PodSetUsage(flavors={"nvidia.com/gpu": "f"}, usage={"nvidia.com/gpu": "1"}).usage["nvidia.com/gpu"] == 1
    # The issue's example: the Workload builds (it used to raise a raw TypeError).
    w = Workload(name="w", pod_sets=[ps])
    assert dict(w.usage) == {CPU: 500, MEM: 2**30}


def test_q1_numbers_keep_their_meaning() -> None:
    """A number is already the library's amount in the resource's units (milli-CPU for cpu)."""
    assert PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": 500}).usage["cpu"] == 500
    assert PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": 2.0}).usage["cpu"] == 2  # type: ignore[dict-item]
    assert PodSetUsage(flavors={"cpu": "f"}, usage={"cpu": Decimal("3")}).usage["cpu"] == 3  # type: ignore[dict-item]
    assert Assignment(requests={CPU: 7}, preempt=[]).requests[CPU] == 7


def test_q1_requests_strings() -> None:
    assert Assignment(requests={CPU: "1.5", MEM: "1k"}, preempt=[CPU]).requests == {CPU: 1500, MEM: 1000}
    assert PodSetRequests(requests={"cpu": "250m"}).requests["cpu"] == 250


def test_q1_resource_quota_refuses_strings_it_cannot_convert() -> None:
    """ResourceQuota does not know its resource: "1" would be 1000 for cpu and 1 otherwise."""
    with pytest.raises(InvalidModel, match="nominal") as info:
        ResourceQuota(nominal="1")  # type: ignore[arg-type]
    assert "quota_amount" in str(info.value)
    for field in ("borrowing_limit", "lending_limit"):
        with pytest.raises(InvalidModel, match=field):
            ResourceQuota(**{field: "5"})  # type: ignore[arg-type]
    assert ResourceQuota(nominal=UNLIMITED, borrowing_limit=0).nominal == UNLIMITED


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ([1], "expected a quantity, got list"),
        (None, "expected a quantity, got NoneType"),
        (True, "expected a quantity, got bool"),
        (math.nan, "finite"),
        (math.inf, "finite"),
        (Decimal("NaN"), "finite"),
        (0.5, "amounts are integers"),
        (Fraction(1, 3), "amounts are integers"),
        (2**63, "int64"),
        (-1, "must be >= 0"),
    ],
)
def test_q1_anything_else_names_object_and_field(value: object, reason: str) -> None:
    with pytest.raises(InvalidModel) as info:
        PodSetUsage(usage={"cpu": value})  # type: ignore[dict-item]
    assert "PodSetUsage" in str(info.value) and "usage['cpu']" in str(info.value) and reason in str(info.value)
    with pytest.raises(InvalidModel) as info:
        Assignment(requests={CPU: value}, preempt=[])  # type: ignore[dict-item]
    assert "Assignment" in str(info.value) and "requests[f/cpu]" in str(info.value)


@pytest.mark.parametrize("value", ["1_000", "NaN", "K", " 1", "", "-1"])
def test_q0_malformed_or_negative_strings(value: str) -> None:
    """Q-0: a malformed string is an InvalidQuantity naming the field; a negative one InvalidModel."""
    with pytest.raises(KueuePreemptError) as info:
        PodSetUsage(usage={"cpu": value})
    assert "usage['cpu']" in str(info.value)
    assert isinstance(info.value, (InvalidQuantity, InvalidModel))


def test_counts_and_maps_are_checked() -> None:
    with pytest.raises(InvalidModel, match="count"):
        PodSetUsage(count=-1)
    with pytest.raises(InvalidModel, match="flavors"):
        PodSetUsage(flavors={"cpu": 5})  # type: ignore[dict-item]
    with pytest.raises(InvalidModel, match="usage"):
        PodSetUsage(usage=["cpu"])  # type: ignore[arg-type]


_quantities = st.builds(
    lambda n, suffix: f"{n}{suffix}",
    st.integers(0, 10**6),
    st.sampled_from(["", "m", "k", "M", "Ki", "Mi", "Gi", "e2"]),
)


@given(st.sampled_from(["cpu", "memory", "nvidia.com/gpu", "pods"]), _quantities)
def test_q1_constructors_parse_exactly_like_the_reader(resource: str, quantity: str) -> None:
    """Q-1 (property): a constructor's string amount equals request_amount, the reader's path."""
    expected = request_amount(quantity, resource)
    assert PodSetUsage(flavors={resource: "f"}, usage={resource: quantity}).usage[resource] == expected
    assert Assignment(requests={FlavorResource("f", resource): quantity}, preempt=[]).requests == {
        FlavorResource("f", resource): expected
    }
    assert PodSetRequests(requests={resource: quantity}).requests[resource] == expected

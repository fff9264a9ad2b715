"""``cycle.rewrite.with_status``: the cycle's condition writes (SC-MSG-3, SC-PR-1) without
re-validating the workload must give exactly what ``attrs.evolve`` gives."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt.model.workload_writes import with_status
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model import Condition, EvictionStat, PodSetUsage, Workload

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)

conditions = st.lists(
    st.builds(
        Condition,
        type=st.sampled_from(["QuotaReserved", "Admitted", "Evicted", "Preempted", "Requeued"]),
        status=st.sampled_from(["True", "False"]),
        reason=st.text(max_size=5),
        last_transition_time=st.sampled_from([None, T0]),
        message=st.text(max_size=10),
    ),
    max_size=4,
).map(tuple)


def _admitted() -> Workload:
    return Workload(
        "w",
        namespace="ns",
        cluster_queue="cq",
        priority=5,
        pod_sets=[PodSetUsage(name="main", count=2, flavors={"cpu": "default"}, usage={"cpu": 2000})],
        conditions=[Condition("QuotaReserved", "True", "QuotaReserved", T0)],
    )


@given(conditions, st.booleans(), st.lists(st.integers(min_value=0, max_value=9), max_size=2))
def test_same_as_evolve(conds: tuple[Condition, ...], evicted: bool, counts: list[int]) -> None:
    """SC-PR-1 / SC-MSG-3 writes: equal objects, equal derived usage, the original untouched."""
    w = _admitted()
    stats = [EvictionStat("Preempted", str(i), n) for i, n in enumerate(counts)]
    got = with_status(w, conditions=conds, evicted=evicted, evictions=stats)
    want = attrs.evolve(w, conditions=conds, evicted=evicted, evictions=stats)
    assert got == want
    assert got.usage == want.usage and got.used_flavor_resources == want.used_flavor_resources
    assert w.conditions == (Condition("QuotaReserved", "True", "QuotaReserved", T0),)
    assert not w.evicted and w.evictions == ()


def test_only_conditions_keeps_the_rest() -> None:
    w = attrs.evolve(_admitted(), evicted=True, evictions=[EvictionStat("Preempted", "", 1)])
    got = with_status(w, conditions=())
    assert got.conditions == () and got.evicted and got.evictions == w.evictions


def test_rejects_what_it_did_not_build() -> None:
    """Typed errors naming the field, as the model's own converters give."""
    bad: Any = ["QuotaReserved"]
    with pytest.raises(InvalidModel, match="conditions"):
        with_status(_admitted(), conditions=bad)
    with pytest.raises(InvalidModel, match="evictions"):
        with_status(_admitted(), conditions=(), evictions=bad)


def _pod_set_usage(name: str, count: int, flavors: dict[str, str], usage: dict[str, int]) -> PodSetUsage:
    # DM-7 / SC-AD-1: an admission charges only resources that have a flavor.
    return PodSetUsage(name=name, count=count, flavors=flavors, usage={r: v for r, v in usage.items() if r in flavors})


pod_set_usages = st.lists(
    st.builds(
        _pod_set_usage,
        name=st.sampled_from(["main", "workers"]),
        count=st.integers(0, 4),
        flavors=st.dictionaries(st.sampled_from(["cpu", "gpu"]), st.sampled_from(["default", "spot"]), max_size=2),
        usage=st.dictionaries(st.sampled_from(["cpu", "gpu", "memory"]), st.integers(0, 5000), max_size=3),
    ),
    max_size=2,
).map(tuple)


@given(
    conditions,
    pod_set_usages,
    st.sampled_from(["", "cq", "other"]),
    st.sampled_from([None, T0]),
    st.none() | st.booleans(),
    st.sampled_from([{}, {"main": 1}]),
)
def test_with_admission_same_as_evolve(
    conds: tuple[Condition, ...],
    pod_sets: tuple[PodSetUsage, ...],
    cq: str,
    reserved: datetime | None,
    evicted: bool | None,
    reclaimable: dict[str, int],
) -> None:
    """SC-AD-1 reservations and SC-EV-2 releases: equal objects and equal derived usage
    (reclaimable pods included, DM-7) to ``attrs.evolve``; the original untouched."""
    from kueue_preempt.model.workload_writes import with_admission

    w = attrs.evolve(_admitted(), reclaimable_pods=reclaimable)
    before = attrs.evolve(w)
    got = with_admission(w, cluster_queue=cq, pod_sets=pod_sets, quota_reserved_at=reserved, conditions=conds, evicted=evicted)
    extra: dict[str, Any] = {} if evicted is None else {"evicted": evicted}
    want = attrs.evolve(w, cluster_queue=cq, pod_sets=pod_sets, quota_reserved_at=reserved, conditions=conds, **extra)
    assert got == want
    assert got.usage == want.usage and got.used_flavor_resources == want.used_flavor_resources
    assert w == before and w.usage == before.usage


def test_with_admission_checks_what_the_constructor_checks() -> None:
    from kueue_preempt.model.workload_writes import with_admission

    with pytest.raises(InvalidModel):
        with_admission(_admitted(), cluster_queue="cq", pod_sets=("x",), quota_reserved_at=T0, conditions=())  # type: ignore[arg-type]
    with pytest.raises(InvalidModel):
        with_admission(_admitted(), cluster_queue="cq", pod_sets=(), quota_reserved_at=T0, conditions=("x",))  # type: ignore[arg-type]


def test_with_spec_pod_sets_same_as_evolve() -> None:
    from kueue_preempt.model.workload_writes import with_spec_pod_sets
    from kueue_preempt.model.flavors import PodSetSpec

    w = _admitted()
    specs = [PodSetSpec("main", 2, {"cpu": 1000}), PodSetSpec("workers", 3, {"cpu": 500}, min_count=1)]
    assert with_spec_pod_sets(w, specs) == attrs.evolve(w, spec_pod_sets=specs)
    with pytest.raises(InvalidModel):  # duplicate pod-set names, as the constructor says
        with_spec_pod_sets(w, [PodSetSpec("main", 1, {}), PodSetSpec("main", 1, {})])

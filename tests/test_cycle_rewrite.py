"""``cycle.rewrite.with_status``: the cycle's condition writes (SC-MSG-3, SC-PR-1) without
re-validating the workload must give exactly what ``attrs.evolve`` gives."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt.cycle.rewrite import with_status
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

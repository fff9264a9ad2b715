"""The functions that each hold one concept formerly written out in several places: the root
of a cohort tree by name (DM-5, SC-IN-2/3), the release write (SC-EV-2), the queue-order key
(SC-QO-1), the backoff test (SC-RQ-2), FAS-1's pod request rule and the saturating pod-set
total (Q-2)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from fractions import Fraction
from typing import Any

import attrs
from hypothesis import given
from hypothesis import strategies as st

from kueue_preempt.cycle.queueing import queue_order_key, scheduling_order_key, sort_pending
from kueue_preempt.cycle.queues import backoff_expired, requeue_blocked
from kueue_preempt.cycle.status import released_workload
from kueue_preempt.io._fields import Ctx, Field
from kueue_preempt.io.workload import pod_requests
from kueue_preempt.model import Cohort, Condition, PodSetUsage, PreemptionConfig, Workload
from kueue_preempt.model.pod_requests import ContainerResources, effective_pod_requests, pod_request_totals
from kueue_preempt.model.quantity import UNLIMITED, amount_add, amount_mul
from kueue_preempt.model.queues import cohort_parents, root_cohort

T0 = datetime(2026, 1, 1, tzinfo=timezone.utc)


# ----------------------------------------------------------------------------- cohort roots


def test_root_cohort_follows_parents_to_the_top() -> None:
    """DM-5 / SC-IN-3: a cohort's tree is keyed by its root."""
    parents = cohort_parents([Cohort("leaf", parent="mid"), Cohort("mid", parent="top"), Cohort("top")])
    assert parents == {"leaf": "mid", "mid": "top", "top": None}
    assert [root_cohort(parents, c) for c in ("leaf", "mid", "top")] == ["top", "top", "top"]


def test_root_cohort_implicit_parent_is_a_root() -> None:
    """DM-5: a parent with no Cohort object is an implicit cohort with no parent; a cohort
    named only by a ClusterQueue is its own root."""
    parents = cohort_parents([Cohort("team", parent="org")])
    assert root_cohort(parents, "team") == "org"
    assert root_cohort(parents, "unknown") == "unknown"


def test_root_cohort_stops_on_a_cycle() -> None:
    """SC-ST-4: on a parent cycle the walk ends at the first cohort met again (it terminates,
    and cohorts entering the cycle at the same cohort share the answer)."""
    parents = cohort_parents([Cohort("a", parent="b"), Cohort("b", parent="a"), Cohort("c", parent="a"), Cohort("s", parent="s")])
    assert root_cohort(parents, "a") == "a"
    assert root_cohort(parents, "b") == "b"
    assert root_cohort(parents, "c") == "a"
    assert root_cohort(parents, "s") == "s"


# ----------------------------------------------------------------------------- SC-EV-2


def _evicted(reason: str, admitted: bool = True) -> Workload:
    conditions = [
        Condition("QuotaReserved", "True", "QuotaReserved", T0),
        Condition("Evicted", "True", reason, T0, "evicted because"),
    ]
    if admitted:
        conditions.append(Condition("Admitted", "True", "Admitted", T0))
    return Workload(
        "w",
        namespace="ns",
        local_queue="lq",
        cluster_queue="cq",
        priority=1,
        pod_sets=[PodSetUsage(name="main", count=1, flavors={"cpu": "default"}, usage={"cpu": 1000})],
        conditions=conditions,
        quota_reserved_at=T0,
    )


def test_release_clears_the_admission_and_sets_the_conditions() -> None:
    """SC-EV-2: QuotaReserved and Admitted False, Requeued True for a preemption, admission gone."""
    now = T0 + timedelta(minutes=1)
    got = released_workload(_evicted("Preempted"), now, 3)
    assert got is not None
    assert got.cluster_queue == "" and got.pod_sets == () and got.quota_reserved_at is None and not got.usage
    by_type = {c.type: c for c in got.conditions}
    assert (by_type["QuotaReserved"].status, by_type["QuotaReserved"].reason) == ("False", "Pending")
    assert by_type["QuotaReserved"].message == "evicted because"
    assert (by_type["Admitted"].status, by_type["Admitted"].reason) == ("False", "NoReservation")
    assert (by_type["Requeued"].status, by_type["Requeued"].reason) == ("True", "Preempted")
    assert all(by_type[t].observed_generation == 3 and by_type[t].last_transition_time == now for t in ("QuotaReserved", "Admitted", "Requeued"))
    # The same object attrs.evolve would build (the trusted write skips only re-validation).
    want = attrs.evolve(_evicted("Preempted"), cluster_queue="", pod_sets=(), quota_reserved_at=None, conditions=got.conditions)
    assert got == want and got.usage == want.usage


def test_release_of_another_eviction_is_not_requeued_and_keeps_admitted_absent() -> None:
    """SC-EV-2: Requeued=False for a reason other than Preempted; no Admitted condition is
    written when the workload had none True."""
    got = released_workload(_evicted("PodsReadyTimeout", admitted=False), T0, 1)
    assert got is not None
    by_type = {c.type: c for c in got.conditions}
    assert by_type["Requeued"].status == "False" and "Admitted" not in by_type


def test_release_needs_a_reservation_and_an_eviction() -> None:
    """SC-EV-2 applies only to a charged workload with Evicted=True."""
    w = _evicted("Preempted")
    assert released_workload(attrs.evolve(w, conditions=w.conditions[:1]), T0, 1) is None
    assert released_workload(attrs.evolve(w, cluster_queue="", pod_sets=()), T0, 1) is None


# ----------------------------------------------------------------------------- SC-QO-1


def _pending(name: str, priority: int, minute: int, uid: str) -> Workload:
    return Workload(name, namespace="ns", local_queue="lq", priority=priority, creation_time=T0 + timedelta(minutes=minute), uid=uid)


def test_queue_order_key_criteria() -> None:
    """SC-QO-1 #3-#6: higher EP, then earlier QOT, then smaller uid, then key."""
    config = PreemptionConfig()
    ws = [
        _pending("late-high", 10, 5, "z"),
        _pending("early-low", 1, 0, "a"),
        _pending("tie-b", 1, 3, "1"),
        _pending("tie-a", 1, 3, "2"),
    ]
    order = sorted(ws, key=lambda w: queue_order_key(w, config))
    assert [w.name for w in order] == ["late-high", "early-low", "tie-b", "tie-a"]


def test_public_scheduling_key_is_the_queue_key_without_uid() -> None:
    """scheduling_order_key = queue_order_key minus SC-QO-1 #5 (ties go by workload key)."""
    config = PreemptionConfig()
    a, b = _pending("a", 1, 3, "2"), _pending("b", 1, 3, "1")
    for w in (a, b):
        ep, qot, uid, key = queue_order_key(w, config)
        assert scheduling_order_key(w, config) == (ep, qot, key) and uid == w.uid
    assert [w.name for w in sort_pending([b, a], config)] == ["a", "b"]


# ----------------------------------------------------------------------------- FAS-1


def test_pod_request_totals_is_generic_in_the_number_type() -> None:
    """FAS-1's rule over exact quantities and over amounts gives the same numbers."""
    containers: list[dict[str, Any]] = [{"cpu": 500, "memory": 10}, {"cpu": 250}]
    inits: list[tuple[dict[str, Any], bool]] = [({"cpu": 100}, True), ({"cpu": 2000, "gpu": 1}, False)]
    pod_level = {"memory": 64, "gpu": 9}
    overhead = {"cpu": 10}
    as_int = pod_request_totals(containers, inits, pod_level, overhead, amount_add)
    exact = pod_request_totals(
        [{r: Fraction(v) for r, v in c.items()} for c in containers],
        [({r: Fraction(v) for r, v in c.items()}, s) for c, s in inits],
        {r: Fraction(v) for r, v in pod_level.items()},
        {r: Fraction(v) for r, v in overhead.items()},
        lambda a, b: a + b,
    )
    # cpu: max(750 + 100 sidecar, 2000 + 100) + 10; memory replaced by the pod level; gpu not.
    assert as_int == {"cpu": 2110, "memory": 64, "gpu": 1}
    assert exact == as_int and list(exact) == list(as_int)


_RESOURCES = ("cpu", "memory", "example.com/gpu", "hugepages-2Mi")
_amounts = st.dictionaries(st.sampled_from(_RESOURCES), st.integers(min_value=0, max_value=10**6), max_size=3)


def _text(r: str, v: int) -> str:
    return f"{v}m" if r == "cpu" else str(v)


def _resources(requests: dict[str, int], limits: dict[str, int]) -> dict[str, Any]:
    return {
        "requests": {r: _text(r, v) for r, v in requests.items()},
        "limits": {r: _text(r, v) for r, v in limits.items()},
    }


@given(
    st.lists(st.tuples(_amounts, _amounts), max_size=3),
    st.lists(st.tuples(_amounts, _amounts, st.booleans()), max_size=3),
    _amounts,
    _amounts,
)
def test_manifest_reader_and_model_agree(
    containers: list[tuple[dict[str, int], dict[str, int]]],
    inits: list[tuple[dict[str, int], dict[str, int], bool]],
    pod_level: dict[str, int],
    overhead: dict[str, int],
) -> None:
    """FAS-1 once: the manifest reader (exact quantities) and effective_pod_requests (amounts)
    give the same per-pod map, in the same order, for whole-unit quantities."""
    spec: dict[str, Any] = {
        "containers": [{"resources": _resources(req, lim)} for req, lim in containers],
        "initContainers": [
            {"resources": _resources(req, lim), **({"restartPolicy": "Always"} if side else {})} for req, lim, side in inits
        ],
        "resources": {"requests": {r: _text(r, v) for r, v in pod_level.items()}},
        "overhead": {r: _text(r, v) for r, v in overhead.items()},
    }
    got = pod_requests(Field(spec, "spec", Ctx("test", "Workload", "w")), pod_level=True)
    want = effective_pod_requests(
        [ContainerResources(req, lim) for req, lim in containers],
        [ContainerResources(req, lim, restartable=side) for req, lim, side in inits],
        overhead=overhead,
        pod_requests=pod_level,
    )
    assert got == want and list(got) == list(want)


def test_amount_mul_saturates() -> None:
    """Q-2 / FAS-1: a pod set's total saturates at the int64 bound."""
    assert amount_mul(1500, 4) == 6000
    assert amount_mul(0, 7) == 0 and amount_mul(7, 0) == 0
    assert amount_mul(UNLIMITED, 2) == UNLIMITED
    assert amount_mul(2**62, 4) == UNLIMITED


# ----------------------------------------------------------------------------- SC-RQ-2


def test_backoff_expired() -> None:
    """SC-RQ-2: Requeued=False holds a workload back whatever the time; otherwise requeueAt
    unset or reached."""
    held = (Condition("Requeued", "False", "Deactivated", T0),)
    free = (Condition("Requeued", "True", "Preempted", T0),)
    assert requeue_blocked(held) and not requeue_blocked(free) and not requeue_blocked(())
    assert not backoff_expired(held, None, T0)
    assert backoff_expired(free, None, T0) and backoff_expired((), T0, T0)
    assert not backoff_expired((), T0 + timedelta(seconds=1), T0)

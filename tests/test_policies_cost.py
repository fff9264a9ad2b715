"""Reference preemption-cost controller (COST-6, COST-1, COST-3, §18 item 17)."""

from __future__ import annotations

from decimal import Decimal

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kueue_preempt import ConfigurationError, InvalidQuantity, Workload
from kueue_preempt.model import EvictionStat, preemption_cost
from kueue_preempt.policies import ActionKind, StatusAction, clear_cost, compute_cost, reconcile_cost


def wl(*stats: tuple[str, str, int], cost: str | int | None = None) -> Workload:
    return Workload(name="w", evictions=tuple(EvictionStat(r, c, n) for r, c, n in stats), preemption_cost=cost)


def test_cost6_sums_preempted_evictions_over_every_underlying_cause() -> None:
    w = wl(
        ("Preempted", "", 2),
        ("Preempted", "InCohortFairSharing", 3),
        ("PodsReadyTimeout", "", 5),
        ("AdmissionCheck", "", 1),
    )
    assert compute_cost(w) == 5
    assert compute_cost(w, base=10) == 15
    assert compute_cost(w, base=-7) == -2  # negative costs are allowed (COST-3)


def test_cost6_writes_an_integer_quantity_string() -> None:
    action = reconcile_cost(wl(("Preempted", "", 3)))
    assert action == StatusAction.set("3")
    after = action.apply_to(wl(("Preempted", "", 3)))
    assert after.preemption_cost == Decimal(3)
    assert preemption_cost(after) == Decimal(3)
    assert reconcile_cost(wl(("Preempted", "", 1)), base=-5) == StatusAction.set("-4")


@pytest.mark.parametrize("current", ["3", "3.0", "3000m", "0.003k", 3])
def test_cost6_no_write_when_unchanged_compared_as_exact_decimal(current: str | int) -> None:
    assert reconcile_cost(wl(("Preempted", "", 3), cost=current)) == StatusAction.none()


@pytest.mark.parametrize("current", ["2", "3.001", "2999m", "-3"])
def test_cost6_write_when_changed(current: str) -> None:
    assert reconcile_cost(wl(("Preempted", "", 3), cost=current)) == StatusAction.set("3")


def test_cost6_zero_cost_leaves_unset_field_unset() -> None:
    assert reconcile_cost(wl()) == StatusAction.none()
    assert reconcile_cost(wl(("PodsReadyTimeout", "", 4))) == StatusAction.none()
    assert reconcile_cost(wl(("Preempted", "", 2)), base=-2) == StatusAction.none()


def test_cost6_zero_cost_with_a_set_field_is_written_as_zero() -> None:
    # Only the unset case is special [D]; a stale non-zero value is overwritten like any change.
    assert reconcile_cost(wl(cost="4")) == StatusAction.set("0")
    assert reconcile_cost(wl(cost="0")) == StatusAction.none()
    assert reconcile_cost(wl(cost="0.0")) == StatusAction.none()


def test_cost6_base_must_be_an_int() -> None:
    for bad in (True, 1.5, "1", Decimal(1)):
        with pytest.raises(ConfigurationError):
            reconcile_cost(wl(), base=bad)  # type: ignore[arg-type]


def test_cost6_reconcile_does_not_mutate() -> None:
    w = wl(("Preempted", "", 3), cost="1")
    before = attrs.evolve(w)
    reconcile_cost(w)
    assert w == before


@settings(max_examples=300, deadline=None)
@given(
    stats=st.lists(
        st.tuples(
            st.sampled_from(["Preempted", "PodsReadyTimeout", "InactiveWorkload"]),
            st.sampled_from(["", "InCohortFairSharing", "x"]),
            st.integers(0, 50),
        ),
        max_size=5,
    ),
    cost=st.one_of(
        st.none(),
        st.integers(-100, 100),
        st.sampled_from(["0", "1.5", "2000m", "-1", "1k", "3"]),
    ),
    base=st.integers(-50, 50),
)
def test_cost6_reconcile_is_idempotent(
    stats: list[tuple[str, str, int]], cost: int | str | None, base: int
) -> None:
    w = wl(*stats, cost=cost)
    first = reconcile_cost(w, base)
    assert first.kind in (ActionKind.NONE, ActionKind.SET)  # the reconcile never clears
    after = first.apply_to(w)
    assert reconcile_cost(after, base) == StatusAction.none()
    expected = compute_cost(w, base)
    assert preemption_cost(after) == Decimal(expected)
    if w.preemption_cost is None and expected == 0:
        assert after.preemption_cost is None
    if first.kind is ActionKind.SET:
        assert first.value == str(expected)


def test_cost6_clear_cost_for_disabling_the_controller() -> None:
    assert clear_cost(wl()) == StatusAction.none()
    action = clear_cost(wl(cost="5"))
    assert action == StatusAction.clear()
    cleared = action.apply_to(wl(cost="5"))
    assert cleared.preemption_cost is None
    assert clear_cost(cleared) == StatusAction.none()


def test_cost6_status_action_validates_its_payload() -> None:
    with pytest.raises(ValueError):
        StatusAction(ActionKind.SET)
    with pytest.raises(ValueError):
        StatusAction(ActionKind.CLEAR, "1")
    with pytest.raises(ValueError):
        StatusAction(ActionKind.DELETE)  # DELETE is for annotations
    w = wl()
    assert StatusAction.none().apply_to(w) is w
    with pytest.raises(InvalidQuantity):
        StatusAction.set("not a quantity").apply_to(w)

"""Reference preemption-cost controller as a pure function (COST-6, §18 item 17).

The cost (COST-1) breaks ties between equal-EP candidates (COST-2): a workload that has
already been preempted often is more expensive to preempt again. This controller is its
single owner: it computes ``base + (number of Preempted evictions)`` and says what to write
to ``status.preemptionCost``. It never reads the clock and never writes an unchanged value,
so running it on every watch event is cheap and converges.
"""

from __future__ import annotations

from decimal import Decimal

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.model import Workload
from kueue_preempt.policies.actions import StatusAction, preempted_count

__all__ = ["compute_cost", "reconcile_cost", "clear_cost"]


def _check_base(base: int) -> None:
    # COST-6 writes an *integer* quantity string, so the base must be an integer; negative
    # bases are allowed because negative costs are (COST-3).
    if isinstance(base, bool) or not isinstance(base, int):
        raise ConfigurationError(f"preemption cost base: must be an int, got {base!r}")


def compute_cost(workload: Workload, base: int = 0) -> int:
    """COST-6: ``base + Σ count`` over ``Preempted`` evictions, every underlying cause included."""
    _check_base(base)
    return base + preempted_count(workload)


def reconcile_cost(workload: Workload, base: int = 0) -> StatusAction:
    """COST-6: the status write that makes ``status.preemptionCost`` equal the computed cost.

    * The value is written as an integer quantity string (``"3"``, ``"-1"``).
    * No write when unchanged: the current value is compared as an exact ``Decimal``, so a
      current ``"3.0"`` (or ``"3000m"``) equals a computed 3 and is not rewritten.
    * A computed 0 with the field unset leaves it unset (unset already reads as 0, COST-1)
      [D]. A computed 0 with the field *set* to something else is written as ``"0"``, like any
      other change; ``CLEAR`` is never returned here (see :func:`clear_cost`).
    """
    cost = compute_cost(workload, base)
    current = workload.preemption_cost
    if current is None:
        return StatusAction.none() if cost == 0 else StatusAction.set(str(cost))
    if current == Decimal(cost):
        return StatusAction.none()
    return StatusAction.set(str(cost))


def clear_cost(workload: Workload) -> StatusAction:
    """``CLEAR`` when ``status.preemptionCost`` is set, else ``NONE``.

    For a caller switching the cost controller off: without its single owner the field would
    go stale, so removing it restores Kueue's ordering (COST-5).
    """
    return StatusAction.none() if workload.preemption_cost is None else StatusAction.clear()

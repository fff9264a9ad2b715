"""Preemption configuration: Kueue feature gates and the library's own switches (DM-10, FG-*)."""

from __future__ import annotations

import enum
from typing import Iterable

import attrs

from .errors import ConfigurationError

__all__ = [
    "FairSharingStrategy",
    "FairSharingConfig",
    "RequeuingTimestamp",
    "NonPreemptibleMode",
    "PreemptionConfig",
]


class FairSharingStrategy(str, enum.Enum):
    """Fair-sharing preemption strategies (FS-STRAT-1 = S2-a, FS-STRAT-2 = S2-b)."""

    LESS_THAN_OR_EQUAL_TO_FINAL_SHARE = "LessThanOrEqualToFinalShare"
    LESS_THAN_INITIAL_SHARE = "LessThanInitialShare"


_DEFAULT_STRATEGIES = (
    FairSharingStrategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,
    FairSharingStrategy.LESS_THAN_INITIAL_SHARE,
)
_VALID_STRATEGY_LISTS = {
    (FairSharingStrategy.LESS_THAN_OR_EQUAL_TO_FINAL_SHARE,),
    (FairSharingStrategy.LESS_THAN_INITIAL_SHARE,),
    _DEFAULT_STRATEGIES,
}


def _strategies(value: Iterable[FairSharingStrategy | str]) -> tuple[FairSharingStrategy, ...]:
    try:
        out = tuple(FairSharingStrategy(v) for v in value)
    except ValueError as exc:
        raise ConfigurationError(f"fairSharing.preemptionStrategies: {exc}") from None
    if not out:
        return _DEFAULT_STRATEGIES  # FS-CFG-1: empty list means Kueue's default list
    if out not in _VALID_STRATEGY_LISTS:
        names = [s.value for s in out]
        raise ConfigurationError(
            f"fairSharing.preemptionStrategies: {names} is not one of [LessThanOrEqualToFinalShare], "
            "[LessThanInitialShare], [LessThanOrEqualToFinalShare, LessThanInitialShare] (FS-CFG-1)"
        )
    return out


@attrs.frozen
class FairSharingConfig:
    """Presence of this block enables fair sharing (FS-CFG-1, FG-3)."""

    preemption_strategies: tuple[FairSharingStrategy, ...] = attrs.field(
        default=_DEFAULT_STRATEGIES, converter=_strategies
    )


class RequeuingTimestamp(str, enum.Enum):
    """``waitForPodsReady.requeuingStrategy.timestamp`` (POL-5(a))."""

    EVICTION = "Eviction"
    CREATION = "Creation"


class NonPreemptibleMode(str, enum.Enum):
    """How non-preemptible workloads are confined to nominal quota (NP-6, NP-8)."""

    ACCOUNTING = "accounting"
    """NP usage of a ClusterQueue never exceeds its nominal quota (default, NP-6)."""
    STRICT = "strict"
    """Additionally the NP preemptor itself must end within nominal (NP-8)."""


@attrs.frozen
class PreemptionConfig:
    """Everything that changes a preemption decision besides the cluster state.

    Defaults reproduce Kueue at the reference commit, with one exception recorded in
    ``docs/decisions.md``: ``priority_boost`` defaults to ``True`` because an absent
    annotation means boost 0, so the switch only matters for workloads that carry one.
    Use :meth:`kueue_defaults` for Kueue's exact gate defaults.
    """

    fair_sharing: FairSharingConfig | None = None
    admission_fair_sharing: bool = False
    """AFS ordering (ORD-3): the gate *and* the ``admissionFairSharing`` config block (FG-4)."""
    priority_boost: bool = True
    """Gate ``PriorityBoost`` (EP-2): when off the boost annotation is ignored."""
    priority_sorting_within_cohort: bool = True
    """Gate ``PrioritySortingWithinCohort`` (POL-5(c))."""
    fair_sharing_preempt_within_nominal: bool = True
    """Gate ``FairSharingPreemptWithinNominal`` (FS-NOM-1)."""
    pods_ready_requeuing_timestamp: RequeuingTimestamp | None = attrs.field(
        default=None, converter=attrs.converters.optional(RequeuingTimestamp)
    )
    preemption_cost_enabled: bool = False
    """Library-only: the COST-2 tie-breaker after effective priority (off = Kueue's order)."""
    non_preemptible_enabled: bool = False
    """Library-only: KEP-4400 non-preemptible workloads (NP-14)."""
    non_preemptible_mode: NonPreemptibleMode = attrs.field(
        default=NonPreemptibleMode.ACCOUNTING, converter=NonPreemptibleMode
    )
    """NP-6 accounting (default) or NP-8 strict."""

    @classmethod
    def kueue_defaults(cls) -> PreemptionConfig:
        """Kueue's gate defaults at the reference commit (FG-1): ``PriorityBoost`` off."""
        return cls(priority_boost=False)

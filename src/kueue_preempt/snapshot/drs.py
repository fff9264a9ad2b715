"""Dominant Resource Share, the number fair sharing compares (FS-W-*, FS-DRS-1..FS-DRS-7).

A node's DRS is how far above its own (subtree) quota it runs, relative to what its parent
could lend it, taken over the resource where that ratio is largest and divided by the node's
fair weight. Decisions use the precise float (computed in Kueue's operation order so ties
reproduce exactly, §18 item 6); :attr:`DominantResourceShare.rounded` is the integer Kueue
shows in status.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Mapping

import attrs

from kueue_preempt._util.checks import arg, arg_mapping
from kueue_preempt.errors import InvalidArgument
from kueue_preempt.model import FlavorResource
from kueue_preempt.model.quantity import UNLIMITED, amount_add, amount_sub
from kueue_preempt.snapshot.quota import QuotaNode, Snapshot

__all__ = [
    "DominantResourceShare",
    "dominant_resource_share",
    "compare_drs",
    "is_borrowing",
    "is_borrowing_on",
    "format_share",
    "NEGATIVE_SHARE",
]


@attrs.frozen
class DominantResourceShare:
    """The DRS of one node (FS-DRS-1).

    ``ratio`` is the unweighted per-mille share of the dominant resource; ``borrowing`` is true
    when usage exceeds subtree quota on any FlavorResource, even if ``ratio`` is 0 (FS-DRS-2).
    """

    ratio: float
    weight: float
    borrowing: bool = False
    dominant_resource: str = ""

    @property
    def zero_weight_borrowing(self) -> bool:
        """FS-DRS-4's ``z(x)``: weight 0 with a non-zero ratio, i.e. an infinite share."""
        return self.weight == 0 and self.ratio != 0

    @property
    def precise(self) -> float:
        """FS-DRS-3: ``0`` if ratio is 0, ``+inf`` if weight is 0, else ``ratio / weight``."""
        if self.ratio == 0:
            return 0.0
        if self.weight == 0:
            return math.inf
        return self.ratio / self.weight

    @property
    def rounded(self) -> int:
        """FS-DRS-6: Kueue's status value, ``ceil(precise)``; int64 max for an infinite share."""
        if self.zero_weight_borrowing:
            return UNLIMITED
        return math.ceil(self.precise)


_PLAIN = 2**61
"""Below this magnitude a difference of two amounts cannot leave the int64 range (Q-2)."""

NEGATIVE_SHARE = DominantResourceShare(ratio=-1.0, weight=1.0)
"""FS-DRS-5: a sentinel below every real DRS."""


def compare_drs(a: DominantResourceShare, b: DominantResourceShare) -> int:
    """FS-DRS-4: -1, 0 or 1. Infinite shares compare by their unweighted ratios."""
    arg(a, DominantResourceShare, "compare_drs", "a")
    arg(b, DominantResourceShare, "compare_drs", "b")
    za, zb = a.zero_weight_borrowing, b.zero_weight_borrowing
    if za and zb:
        x, y = a.ratio, b.ratio
    elif za:
        return 1
    elif zb:
        return -1
    else:
        x, y = a.precise, b.precise
    return (x > y) - (x < y)


def dominant_resource_share(
    snapshot: Snapshot,
    node: QuotaNode,
    extra: Mapping[FlavorResource, int] | None = None,
    *,
    removed: Mapping[FlavorResource, int] | None = None,
) -> DominantResourceShare:
    """FS-DRS-1 for ``node`` (a ClusterQueue or cohort), optionally with ``extra`` usage (FS-DRS-1a).

    ``removed``: the share as if that usage were removed from ``node`` itself, with the same
    saturating subtraction ``Snapshot.remove_usage`` applies to the node (FS-LCA-2's ``tNew``
    for a ClusterQueue, without a what-if block). O(F) for F FlavorResources; the lendable
    capacity is cached per snapshot.
    """
    arg(snapshot, Snapshot, "dominant_resource_share", "snapshot")
    arg(node, QuotaNode, "dominant_resource_share", "node")
    if extra is not None:
        _amount_map(extra, "dominant_resource_share", "extra")
    if removed is not None:
        _amount_map(removed, "dominant_resource_share", "removed")
    return drs_of(snapshot, node, extra, removed)


def drs_of(
    snapshot: Snapshot,
    node: QuotaNode,
    extra: Mapping[FlavorResource, int] | None = None,
    removed: Mapping[FlavorResource, int] | None = None,
) -> DominantResourceShare:
    """:func:`dominant_resource_share` without the argument checks, for the algorithms' inner
    loops (their arguments are checked once per decision)."""
    parent = node.parent
    if parent is None:
        return DominantResourceShare(0.0, node.fair_weight)  # FS-W-4
    borrowed: dict[str, int] | None = None  # built only for a node that borrows (the queues
    usage = node.usage  # a fair-sharing decision visits all do: positional calls, no kwargs)
    adjust = bool(extra) or bool(removed)
    for fr, quota in node.subtree_quota.items():
        used = usage.get(fr, 0)
        if adjust:
            if extra:
                used = amount_add(used, extra.get(fr, 0))
            if removed:
                used = amount_sub(used, removed.get(fr, 0))
        # amount_sub(used, quota) > 0 exactly when used > quota (saturation keeps the sign),
        # and most FlavorResources are within quota: test before calling.
        if used > quota:
            # Q-2's saturation cannot apply while both are far from the bounds (the usual case;
            # a fair-sharing decision computes this for every queue of the cohorts it visits).
            over = used - quota if used < _PLAIN and quota > -_PLAIN else amount_sub(used, quota)
            if borrowed is None:
                borrowed = {}
            resource = fr.resource
            before = borrowed.get(resource)
            borrowed[resource] = over if before is None else amount_add(before, over)
    if borrowed is None:
        return DominantResourceShare(0.0, node.fair_weight)
    best_ratio = 0.0
    best_resource = ""
    # Ties go to the alphabetically smaller name.
    cache = snapshot._lendable  # FS-DRS-1's lendable depends on quotas only: cached per snapshot
    for resource in sorted(borrowed) if len(borrowed) > 1 else borrowed:
        lendable = cache.get((parent, resource))
        if lendable is None:
            lendable = snapshot.lendable(parent, resource)
        if lendable <= 0:
            continue
        ratio = float(borrowed[resource]) * 1000.0 / float(lendable)
        if ratio > best_ratio:
            best_ratio, best_resource = ratio, resource
    return DominantResourceShare(best_ratio, node.fair_weight, True, best_resource)


def _amount_map(value: object, function: str, param: str) -> None:
    """A ``FlavorResource -> int`` amount map, checked entry by entry."""
    for fr, amount in arg_mapping(value, function, param).items():
        if not isinstance(fr, FlavorResource):
            raise InvalidArgument(function, param, f"keys must be FlavorResource, got {type(fr).__name__}")
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise InvalidArgument(function, f"{param}[{fr}]", f"expected an int amount, got {type(amount).__name__}")


def is_borrowing(snapshot: Snapshot, node: QuotaNode) -> bool:
    """FS-DRS-7 ``IsBorrowing``: usage above subtree quota on some FlavorResource."""
    return dominant_resource_share(snapshot, node).borrowing


def is_borrowing_on(node: QuotaNode, requested: Mapping[FlavorResource, int]) -> bool:
    """FS-DRS-7 ``IsBorrowingOn``: borrowing on a FlavorResource requested with a quantity > 0."""
    arg(node, QuotaNode, "is_borrowing_on", "node")
    _amount_map(requested, "is_borrowing_on", "requested")
    return any(
        v > 0 and fr in node.subtree_quota and node.usage.get(fr, 0) > node.subtree_quota[fr]
        for fr, v in requested.items()
    )


def format_share(share: DominantResourceShare) -> str:
    """The precise share as Go's ``FormatFloat(x, 'f', -1, 64)``: ``"1000"``, ``"2.5"``, ``"+Inf"``."""
    value = share.precise
    if math.isinf(value):
        return "+Inf"
    text = format(Decimal(repr(value)), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text

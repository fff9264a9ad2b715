"""The quota snapshot (Q-*, DM-11): the only mutable object of a decision.

:class:`Snapshot` holds the quota tree of cohorts and ClusterQueues, every usage number
(:mod:`.quota`), the candidates' precomputed facts (:mod:`.entries`) and the maintained candidate
index (:mod:`.index`); algorithms ask it questions through its methods. :mod:`.drs` computes
fair sharing's Dominant Resource Share over it (FS-DRS-*).
"""

from __future__ import annotations

from kueue_preempt.snapshot.quota import (
    Snapshot,
)
from kueue_preempt.snapshot.drs import (
    DominantResourceShare,
    compare_drs,
    dominant_resource_share,
    is_borrowing,
)

__all__ = [
    "Snapshot",
    "DominantResourceShare",
    "compare_drs",
    "dominant_resource_share",
    "is_borrowing",
]

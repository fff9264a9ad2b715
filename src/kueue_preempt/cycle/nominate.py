"""A head's nomination on top of the flavor assigner (SC-NOM-2). Placeholder until fa lands."""

from __future__ import annotations

from datetime import datetime
from typing import Mapping

from ..model import Workload
from ..quota import Snapshot
from .config import CycleConfig
from .entry import Nomination
from .queues import ScanProgress

__all__ = ["nominate"]


def nominate(
    workload: Workload,
    cluster_queue: str,
    snapshot: Snapshot,
    config: CycleConfig,
    now: datetime,
    *,
    progress: ScanProgress | None = None,
    pins: Mapping[tuple[int, str], str] | None = None,
) -> Nomination:
    raise NotImplementedError

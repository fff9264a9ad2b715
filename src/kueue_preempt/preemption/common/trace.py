"""Decision traces: why each candidate was filtered, skipped, taken or re-admitted.

A caller who wants the reasons passes a :class:`DecisionTrace` to an algorithm; the algorithm
appends one :class:`TraceEvent` per step, in order, each naming the rule that decided it
(``POL-1``, ``CL-VALID-1``, ``FB-2``, ``FS-STRAT-2``...). When no trace is passed the
algorithms skip every tracing branch, so tracing costs nothing when off.
"""

from __future__ import annotations

import enum
from typing import Iterator

import attrs

__all__ = ["Verdict", "TraceEvent", "DecisionTrace"]


class Verdict(str, enum.Enum):
    """What a step decided."""

    INFO = "info"
    """Context: configuration, attempt start, shares, the fit check."""
    FILTERED = "filtered"
    """Not a candidate at all (policy, resources, protection)."""
    CANDIDATE = "candidate"
    """Eligible; queued in a bucket / ClusterQueue."""
    SKIPPED = "skipped"
    """A candidate passed over at this point of the run (no longer valid, strategy refused)."""
    TAKEN = "taken"
    """Removed from the snapshot as a tentative target."""
    READMITTED = "re-admitted"
    """Fill-back put it back: the preemptor fits without it."""
    TARGET = "target"
    """Final target."""
    NO_TARGETS = "no-targets"
    """The decision ended without a complete target set."""

    def __str__(self) -> str:
        return self.value


@attrs.frozen
class TraceEvent:
    """One step of a decision."""

    verdict: Verdict
    rule: str
    """The rule ID that decided this step (see docs/semantics.md)."""
    detail: str
    """A human-readable sentence."""
    workload: str | None = None
    """``namespace/name`` of the workload concerned, if any."""
    cluster_queue: str | None = None

    def as_dict(self) -> dict[str, str | None]:
        return {
            "verdict": self.verdict.value,
            "rule": self.rule,
            "workload": self.workload,
            "clusterQueue": self.cluster_queue,
            "detail": self.detail,
        }


@attrs.define
class DecisionTrace:
    """An ordered, append-only list of :class:`TraceEvent` filled by an algorithm."""

    events: list[TraceEvent] = attrs.field(factory=list)

    def add(
        self,
        verdict: Verdict,
        rule: str,
        detail: str,
        workload: str | None = None,
        cluster_queue: str | None = None,
    ) -> None:
        self.events.append(TraceEvent(verdict, rule, detail, workload, cluster_queue))

    def __iter__(self) -> Iterator[TraceEvent]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)

    def for_workload(self, key: str) -> list[TraceEvent]:
        """Every event about workload ``namespace/name``, in order."""
        return [e for e in self.events if e.workload == key]

    def as_dicts(self) -> list[dict[str, str | None]]:
        return [e.as_dict() for e in self.events]

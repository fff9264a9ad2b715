"""Errors specific to PodGroup and per-node preemption.

They subclass the library's base classes (:mod:`kueue_preempt.errors`), so ``except
KueuePreemptError`` still catches everything. Each message names the object and the field a
reader has to fix.
"""

from __future__ import annotations

from kueue_preempt.errors import KueuePreemptError, UnknownReference

__all__ = ["UnknownNode", "InvalidPlacement", "ReprieveFilterError"]


class UnknownNode(UnknownReference):
    """A pod (or a lookup) names a node that is not part of the cluster."""

    def __init__(self, obj: str, field: str, missing: str) -> None:
        super().__init__(obj, field, missing, "Node")


class InvalidPlacement(KueuePreemptError, ValueError):
    """A placement function returned something the algorithm cannot use.

    For example a node that does not exist, a pod that is not a member of the preemptor, or
    the same pod twice. Raised, not reported as a status: it is a bug in the injected
    function, not a scheduling outcome.
    """

    def __init__(self, placement: str, reason: str) -> None:
        self.placement = placement
        self.reason = reason
        super().__init__(f"placement {placement}: {reason}")


class ReprieveFilterError(KueuePreemptError, RuntimeError):
    """Raised by a reprieve-filter hook to make the whole preemption fail (PG-29).

    :func:`~kueue_preempt.podgroup.select_podgroup_victims` turns it into a result with
    status ``Error`` and no victims. Any other exception escaping a hook is a bug in the hook
    and propagates unchanged.
    """

"""The library's exception hierarchy.

Every error the library raises on bad input derives from :class:`KueuePreemptError`, so
callers embedding the library can catch one type. Messages name the offending object and
field, because inputs are often dumps from someone else's cluster and the reader needs to
find the line to fix.
"""

from __future__ import annotations

__all__ = [
    "KueuePreemptError",
    "InvalidQuantity",
    "InvalidModel",
    "InvalidArgument",
    "UnknownReference",
    "UnknownClusterQueue",
    "UnknownCohort",
    "UnknownWorkload",
    "CohortCycle",
    "DuplicateName",
    "ConfigurationError",
    "UnsupportedConfiguration",
    "InputTooLarge",
    "InvalidBoost",
]


class KueuePreemptError(Exception):
    """Base class of every error raised by ``kueue_preempt``."""


class InvalidQuantity(KueuePreemptError, ValueError):
    """A string is not a Kubernetes quantity (Q-0), e.g. ``"1_000"``, ``"NaN"``, ``"K"``."""

    def __init__(self, value: object, reason: str, *, where: str = "") -> None:
        self.value = value
        self.reason = reason
        self.where = where
        loc = f" at {where}" if where else ""
        super().__init__(f"invalid quantity {value!r}{loc}: {reason}")


class InvalidModel(KueuePreemptError, ValueError):
    """A model object has a field whose value the semantics do not allow."""

    def __init__(self, obj: str, field: str, reason: str) -> None:
        self.obj = obj
        self.field = field
        self.reason = reason
        super().__init__(f"{obj}: field {field!r}: {reason}")


class InvalidArgument(InvalidModel, TypeError):
    """A public function got an argument of the wrong type, e.g. a dict where a ``Workload`` goes.

    ``obj`` is the function, ``field`` the parameter. It is also a :class:`TypeError`, so code
    that already guards calls with ``except TypeError`` keeps working.
    """


class UnknownReference(KueuePreemptError, LookupError):
    """An object names another object that does not exist."""

    def __init__(self, obj: str, field: str, missing: str, kind: str) -> None:
        self.obj = obj
        self.field = field
        self.missing = missing
        self.kind = kind
        super().__init__(f"{obj}: field {field!r} refers to unknown {kind} {missing!r}")


class UnknownClusterQueue(UnknownReference):
    """A workload, the preemptor or a lookup names a ClusterQueue that is not in the snapshot."""

    def __init__(self, obj: str, field: str, missing: str) -> None:
        super().__init__(obj, field, missing, "ClusterQueue")


class UnknownCohort(UnknownReference):
    """A lookup names a cohort that is not in the snapshot."""

    def __init__(self, obj: str, field: str, missing: str) -> None:
        super().__init__(obj, field, missing, "Cohort")


class UnknownWorkload(UnknownReference):
    """A call names a workload (by ``namespace/name``) that is not admitted where it says (DM-11).

    ``cluster_queue`` is the ClusterQueue the call looked in; ``admitted_in`` the one that holds
    the workload, if another one does.
    """

    def __init__(self, obj: str, key: str, cluster_queue: str, admitted_in: str | None = None) -> None:
        super().__init__(obj, "namespace/name", key, "Workload")
        self.cluster_queue = cluster_queue
        self.admitted_in = admitted_in
        where = f"; it is admitted in ClusterQueue {admitted_in!r}" if admitted_in is not None else ""
        self.args = (
            f"{obj}: Workload {key!r} (field 'namespace/name') is not admitted in ClusterQueue {cluster_queue!r}{where}",
        )


class CohortCycle(KueuePreemptError, ValueError):
    """The cohort parent links form a cycle; the quota tree would have no root."""

    def __init__(self, cycle: list[str]) -> None:
        self.cycle = list(cycle)
        super().__init__("cohort cycle: " + " -> ".join(cycle) + " (field 'parent')")


class DuplicateName(KueuePreemptError, ValueError):
    """Two objects of the same kind share a name (or two workloads share a key)."""

    def __init__(self, kind: str, name: str) -> None:
        self.kind = kind
        self.name = name
        field = "namespace/name" if kind == "Workload" else "name"
        super().__init__(f"duplicate {kind} {name!r} (field {field!r} must be unique)")


class ConfigurationError(KueuePreemptError, ValueError):
    """A preemption configuration value is invalid (POL-7, FS-CFG-1)."""


class UnsupportedConfiguration(KueuePreemptError, NotImplementedError):
    """The configuration asks for an algorithm this version does not provide."""


class InputTooLarge(KueuePreemptError, ValueError):
    """An input exceeds a safety bound (absurd sizes from untrusted dumps)."""


class InvalidBoost(KueuePreemptError, ValueError):
    """A ``kueue.x-k8s.io/priority-boost`` annotation fails admission validation (EP-7).

    Only :func:`kueue_preempt.model.priority.validate_boost` raises it; the scheduling path
    treats an invalid boost as 0 and logs a warning (EP-5).
    """

    def __init__(self, workload: str, value: str, reason: str) -> None:
        self.workload = workload
        self.value = value
        super().__init__(
            f"Workload {workload}: annotation 'kueue.x-k8s.io/priority-boost'={value!r}: {reason}"
        )

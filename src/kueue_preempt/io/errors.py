"""Errors of the manifest loader; every one is a :class:`~kueue_preempt.errors.KueuePreemptError`.

Dumps come from someone else's cluster, so a message names the file, the object (kind and
``namespace/name``) and the field path, e.g.
``dump.yaml: ClusterQueue team-a: spec.resourceGroups[0].flavors[1].resources[0].nominalQuota:
invalid quantity '1_000': does not match the Kubernetes quantity grammar``.
"""

from __future__ import annotations

from kueue_preempt.errors import InputTooLarge, KueuePreemptError, UnknownReference

__all__ = [
    "ManifestError",
    "ManifestSyntaxError",
    "ManifestTooLarge",
    "YamlUnavailable",
    "ObjectNotFound",
    "WorkloadNotFound",
    "NotPending",
]


class ManifestError(KueuePreemptError, ValueError):
    """A manifest is malformed: a field has the wrong type, a bad value, or is missing.

    ``source`` is the file (or ``<stdin>``), ``kind`` and ``name`` identify the object (``name``
    is ``namespace/name`` for namespaced objects, ``#<n>`` when the object has no usable name),
    ``path`` is the field path inside the object (``""`` for the object as a whole).
    """

    def __init__(self, source: str, kind: str, name: str, path: str, reason: str) -> None:
        self.source = source
        self.kind = kind
        self.name = name
        self.path = path
        self.reason = reason
        parts = [p for p in (source, " ".join(x for x in (kind, name) if x), path) if p]
        super().__init__(": ".join(parts + [reason]))


class ManifestSyntaxError(ManifestError):
    """The input is not valid YAML/JSON, or not UTF-8 text."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(source, "", "", "", reason)


class ManifestTooLarge(InputTooLarge):
    """An input exceeds a :class:`~kueue_preempt.io.Limits` bound (bytes, documents, objects,
    nesting depth or YAML alias expansion)."""

    def __init__(self, source: str, reason: str) -> None:
        self.source = source
        self.reason = reason
        super().__init__(f"{source}: {reason}" if source else reason)


class YamlUnavailable(KueuePreemptError, ImportError):
    """A YAML input was given but PyYAML (the optional ``yaml`` extra) is not installed."""

    def __init__(self, source: str) -> None:
        self.source = source
        super().__init__(
            f"{source}: reading YAML needs PyYAML; install it with "
            "`python3 -m pip install 'kueue-preempt[yaml]'` (from a checkout: `python3 -m pip install '.[yaml]'`) "
            "or give the dump as JSON (kubectl -o json)"
        )


class ObjectNotFound(UnknownReference):
    """A lookup by ``NS/NAME`` names no object of that kind in the dump."""

    def __init__(self, kind: str, key: str) -> None:
        super().__init__("dump", kind, key, kind)
        self.args = (f"no {kind} {key!r} in the dump",)

    def __str__(self) -> str:
        return str(self.args[0])


class WorkloadNotFound(ObjectNotFound):
    """``NS/NAME`` names no Workload of the dump."""

    def __init__(self, key: str) -> None:
        super().__init__("Workload", key)


class NotPending(KueuePreemptError, ValueError):
    """The object exists but is not pending: a Workload that holds quota, is finished or
    inactive; a PodGroup without unscheduled pods."""

    def __init__(self, key: str, state: str, kind: str = "Workload") -> None:
        self.key = key
        self.state = state
        self.kind = kind
        super().__init__(f"{kind} {key} is not pending: it {state}")

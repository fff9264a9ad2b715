"""An explicit flavor assignment (``explain --assignment FILE``) and FA-3.

``explain`` runs Kueue's flavor assignment (:mod:`kueue_preempt.assignment`) unless the user
passes an assignment file: :func:`parse_assignment` / :func:`load_assignment` read it,
:func:`total_requests_for` is FA-3 (``TotalRequestsFor``) and :func:`to_assignment` turns it
into the :class:`~kueue_preempt.Assignment` that ``get_targets`` takes.
"""

from __future__ import annotations

import os
from typing import Iterable, Mapping, Sequence

import attrs

from kueue_preempt._util.checks import path_arg
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model import Assignment, FlavorAssignmentMode, FlavorResource
from kueue_preempt.model.quantity import amount_add, amount_mul
from kueue_preempt.io._fields import Ctx, Field
from kueue_preempt.io.errors import ManifestError
from kueue_preempt.io.objects import PodSetRequests
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, parse_documents, read_bytes

__all__ = [
    "FlavorChoice",
    "PodSetAssignment",
    "WorkloadAssignment",
    "total_requests_for",
    "to_assignment",
    "parse_assignment",
    "load_assignment",
]

_MODE_RANK = {FlavorAssignmentMode.FIT: 0, FlavorAssignmentMode.PREEMPT: 1, FlavorAssignmentMode.NO_FIT: 2}


@attrs.frozen
class FlavorChoice:
    """The flavor chosen for one resource of a pod set, and how it fits (FA-1)."""

    flavor: str
    mode: FlavorAssignmentMode = attrs.field(converter=FlavorAssignmentMode)


def _choices(value: Mapping[str, FlavorChoice]) -> FrozenMap[str, FlavorChoice]:
    return frozen_map(value)


@attrs.frozen
class PodSetAssignment:
    """One pod set of an assignment: ``count`` pods, ``flavors`` per resource (DM-8)."""

    name: str
    count: int
    flavors: FrozenMap[str, FlavorChoice] = attrs.field(factory=FrozenMap, converter=_choices)


def _pod_set_assignments(value: Iterable[PodSetAssignment]) -> tuple[PodSetAssignment, ...]:
    return tuple(value)


def _strings(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class WorkloadAssignment:
    """A flavor assignment for every pod set, with the reasons of any ``NoFit``."""

    pod_sets: tuple[PodSetAssignment, ...] = attrs.field(converter=_pod_set_assignments)
    no_fit: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    """Why a pod set could not be placed (empty when every pod set has a flavor)."""

    @property
    def mode(self) -> FlavorAssignmentMode:
        """The worst mode over all pod sets and resources (``Fit`` < ``Preempt`` < ``NoFit``)."""
        if self.no_fit:
            return FlavorAssignmentMode.NO_FIT
        modes = [c.mode for ps in self.pod_sets for c in ps.flavors.values()]
        return max(modes, key=_MODE_RANK.__getitem__, default=FlavorAssignmentMode.FIT)

    def preempt_flavor_resources(self) -> frozenset[FlavorResource]:
        """FA-2: the flavor/resources in ``Preempt`` mode."""
        return frozenset(
            FlavorResource(c.flavor, r)
            for ps in self.pod_sets
            for r, c in ps.flavors.items()
            if c.mode is FlavorAssignmentMode.PREEMPT
        )

    def as_dict(self) -> dict[str, object]:
        """The ``--assignment`` file shape: ``{podSets: [{name, count, flavors: {r: {name, mode}}}]}``."""
        return {
            "podSets": [
                {
                    "name": ps.name,
                    "count": ps.count,
                    "flavors": {r: {"name": c.flavor, "mode": c.mode.value} for r, c in ps.flavors.items()},
                }
                for ps in self.pod_sets
            ]
        }


def total_requests_for(pod_sets: Sequence[PodSetRequests], assignment: WorkloadAssignment) -> dict[FlavorResource, int]:
    """FA-3 ``TotalRequestsFor``: per flavor/resource total of the pod sets (paired by index).

    A pod set's total (per-pod x spec count) is rescaled to the assignment's count when they
    differ: ``(total div count) x assigned count``. Zero requests are skipped; a requested
    resource without a flavor is a :class:`ManifestError`.
    """
    if len(pod_sets) != len(assignment.pod_sets):
        raise ManifestError(
            "", "assignment", "", "podSets", f"has {len(assignment.pod_sets)} pod sets, the workload {len(pod_sets)}"
        )
    out: dict[FlavorResource, int] = {}
    for i, (ps, psa) in enumerate(zip(pod_sets, assignment.pod_sets)):
        for r, per_pod in ps.requests.items():
            total = amount_mul(per_pod, ps.count)
            if ps.count != 0 and ps.count != psa.count:
                total = amount_mul(total // ps.count, psa.count)
            if total == 0:
                continue
            choice = psa.flavors.get(r)
            if choice is None:
                raise ManifestError(
                    "", "assignment", "", f"podSets[{i}].flavors", f"no flavor for requested resource {r!r}"
                )
            fr = FlavorResource(choice.flavor, r)
            out[fr] = amount_add(out.get(fr, 0), total)
    return out


def to_assignment(pod_sets: Sequence[PodSetRequests], assignment: WorkloadAssignment) -> Assignment:
    """The :class:`~kueue_preempt.Assignment` of ``get_targets``: FA-3 requests and FA-2 FRNP."""
    return Assignment(
        requests=total_requests_for(pod_sets, assignment), preempt=assignment.preempt_flavor_resources()
    )


# --------------------------------------------------------------------------- assignment files

_MODES = tuple(m.value for m in FlavorAssignmentMode)


def parse_assignment(
    data: bytes | str | Mapping[str, object],
    pod_sets: Sequence[PodSetRequests] | None = None,
    *,
    source: str = "<assignment>",
    format: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> WorkloadAssignment:
    """An explicit assignment: ``{podSets: [{name, count, flavors: {cpu: {name, mode}}}]}``.

    With ``pod_sets`` (the workload's spec pod sets) the names must match them in order,
    ``count`` defaults to the spec count, and every requested resource needs a flavor.
    """
    if isinstance(data, Mapping):
        doc: object = dict(data)
    else:
        objects = parse_documents(data, source=source, format=format, limits=limits)
        if len(objects) != 1:
            raise ManifestError(source, "assignment", "", "", f"expected one document, found {len(objects)}")
        doc = objects[0].data
    root = Field(doc, "", Ctx(source, "assignment", ""))
    items = root.get("podSets").list(required=True)
    if pod_sets is not None and len(items) != len(pod_sets):
        root.get("podSets").fail(f"has {len(items)} pod sets, the workload has {len(pod_sets)}")
    out: list[PodSetAssignment] = []
    for i, item in enumerate(items):
        spec = pod_sets[i] if pod_sets is not None else None
        name_field = item.get("name")
        name = name_field.string() or (spec.name if spec is not None else "main")
        if spec is not None and name != spec.name:
            name_field.fail(f"{name!r} does not match the workload's pod set {i}, {spec.name!r}")
        count = item.get("count").integer(low=0)
        if count is None:
            count = spec.count if spec is not None else 1
        flavors: dict[str, FlavorChoice] = {}
        for resource, choice in item.get("flavors").items():
            choice.mapping()
            mode = choice.get("mode")
            mode.string(required=True)
            flavors[resource] = FlavorChoice(choice.get("name").string(required=True), mode.choice(_MODES, ""))
        if spec is not None:
            for r, v in spec.requests.items():
                if v > 0 and r not in flavors:
                    item.get("flavors").fail(f"no flavor for requested resource {r!r}")
        out.append(PodSetAssignment(name=name, count=count, flavors=flavors))
    return WorkloadAssignment(pod_sets=out)


def load_assignment(
    path: str | os.PathLike[str],
    pod_sets: Sequence[PodSetRequests] | None = None,
    *,
    limits: Limits = DEFAULT_LIMITS,
) -> WorkloadAssignment:
    """Read an assignment file (YAML or JSON); see :func:`parse_assignment`."""
    name = path_arg(path, "load_assignment", "path")
    return parse_assignment(read_bytes(path, limits), pod_sets, source=name, limits=limits)

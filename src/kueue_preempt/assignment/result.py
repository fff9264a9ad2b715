"""The flavor assigner's output (FAS-17) and what is derived from it (FAS-13, FAS-21a, FAS-24).

Everything is immutable. :class:`FlavorAssignment` is Kueue's ``flavorassigner.Assignment``:
per pod set the flavor of every resource (mode, borrowing level, ``triedFlavorIdx``), the
status reasons verbatim, the reported requests and the flavor attempts; plus the assignment's
borrowing level, quota usage and no-fit reason. :meth:`FlavorAssignment.to_assignment` turns it
into the :class:`~kueue_preempt.Assignment` that :func:`~kueue_preempt.get_targets` takes (FA-3).
"""

from __future__ import annotations

from functools import cached_property
from typing import Iterable, Mapping

import attrs

from kueue_preempt._util.checks import model_int, model_iterable, str_field
from kueue_preempt._util.frozen import FrozenMap, frozen_map, intern, owned_map
from kueue_preempt.errors import InvalidModel
from kueue_preempt.model import Assignment, FlavorAssignmentMode, FlavorResource
from kueue_preempt.model.quantity import UNLIMITED, amount_add, amount_input
from kueue_preempt.assignment.modes import PreemptionPossibility

__all__ = [
    "NoFitReason",
    "ResourceAssignment",
    "FlavorAttempt",
    "PodSetStatus",
    "PodSetAssignment",
    "FlavorAssignment",
    "most_severe",
    "mode_rank",
    "assignment_mode",
    "flavor_resource",
]


# (flavor, resource) -> the shared FlavorResource. The snapshot's usage and quota maps are keyed
# by interned instances, so the scan's lookups (and the Assignment built from a result) with the
# shared instance hit by identity instead of calling FlavorResource.__eq__; and the pairs of a
# run are few. Bounded like the model's
# interning table (a pair past the bound is still correct, just built and interned per call).
_FRS: dict[tuple[str, str], FlavorResource] = {}
_FRS_LIMIT = 4096


def flavor_resource(flavor: str, resource: str) -> FlavorResource:
    """``FlavorResource(flavor, resource)``, the interned instance."""
    fr = _FRS.get((flavor, resource))
    if fr is None:
        fr = intern(FlavorResource(flavor, resource))
        if len(_FRS) < _FRS_LIMIT:
            _FRS[(flavor, resource)] = fr
    return fr


class NoFitReason:
    """FAS-24's no-fit reasons (plain strings, as Kueue writes them) and their severity."""

    NONE = ""
    NO_MATCHING_FLAVOR = "NoMatchingFlavor"
    EXCEEDS_MAX_QUOTA = "ExceedsMaxQuota"
    WAITING_FOR_QUOTA = "WaitingForQuota"
    TOPOLOGY_PLACEMENT_FAILED = "TopologyPlacementFailed"


_SEVERITY = {
    NoFitReason.NO_MATCHING_FLAVOR: 4,
    NoFitReason.EXCEEDS_MAX_QUOTA: 3,
    NoFitReason.WAITING_FOR_QUOTA: 2,
    NoFitReason.TOPOLOGY_PLACEMENT_FAILED: 1,
}


def severity(reason: str) -> int:
    """FAS-24 severity; unknown reasons (and ``""``) are 0."""
    return _SEVERITY.get(reason, 0)


def most_severe(a: str, b: str) -> str:
    """FAS-24 ``most_severe``: ``a`` unless ``b`` is strictly more severe."""
    return a if severity(a) >= severity(b) else b


# FAS-13 / FAS-23 order, lowest first. ``DeferredFit`` is set only by Kueue's scheduler.
_MODE_RANK = {FlavorAssignmentMode.NO_FIT: 0, FlavorAssignmentMode.PREEMPT: 1, FlavorAssignmentMode.FIT: 3}


def mode_rank(mode: FlavorAssignmentMode) -> int:
    """Rank of an API mode: ``NoFit < Preempt < (DeferredFit) < Fit`` (FAS-13, FAS-23)."""
    return _MODE_RANK.get(mode, 2)


def _api_mode(value: FlavorAssignmentMode | str) -> FlavorAssignmentMode:
    # The converter of the ``mode`` fields. The assigner passes members, built several times
    # per assignment; calling the enum class on a member goes through EnumType.__call__.
    if type(value) is FlavorAssignmentMode:
        return value
    return FlavorAssignmentMode(value)


@attrs.frozen
class ResourceAssignment:
    """The flavor chosen for one resource of a pod set (FAS-7a, FAS-10a).

    ``tried_flavor_idx`` is the index of the last flavor the scan examined in the resource
    group, or -1 when that was the group's last flavor (FAS-10a, FAS-12). ``borrow`` is this
    resource's own borrowing level (FAS-6).
    """

    flavor: str
    mode: FlavorAssignmentMode = attrs.field(converter=_api_mode)
    tried_flavor_idx: int = -1
    borrow: int = 0


def _sorted_unique(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(value)))


@attrs.frozen
class FlavorAttempt:
    """One flavor the scan examined for a pod-set group (FAS-23, Kueue's FlavorAssignmentAttempt)."""

    flavor: str
    mode: FlavorAssignmentMode = attrs.field(converter=_api_mode)
    borrow: int = 0
    preemption_possibility: PreemptionPossibility | None = None
    reasons: tuple[str, ...] = attrs.field(default=(), converter=_sorted_unique)
    no_fit_reason: str = ""


def _strings(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class PodSetStatus:
    """Why a pod set did not simply fit: reasons (verbatim, FAS-21) and an optional error."""

    reasons: tuple[str, ...] = attrs.field(default=(), converter=_strings)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return not self.reasons and self.error is None


def _flavors(value: Mapping[str, ResourceAssignment]) -> FrozenMap[str, ResourceAssignment]:
    return frozen_map(value)


def _amounts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


def _attempts(value: Iterable[FlavorAttempt]) -> tuple[FlavorAttempt, ...]:
    return tuple(value)


@attrs.frozen
class PodSetAssignment:
    """One pod set of a :class:`FlavorAssignment` (FAS-17).

    ``requests`` are the pod set's totals as they entered the assignment (FAS-1b): every
    resource, uncovered ones, zeros and ``pods`` included. ``spec_index`` is the pod set's
    index in ``spec.podSets`` (it differs from the position in ``pod_sets`` only when pod-set
    groups interleave, FAS-18).
    """

    name: str
    count: int
    flavors: FrozenMap[str, ResourceAssignment] = attrs.field(factory=FrozenMap, converter=_flavors)
    status: PodSetStatus = attrs.field(factory=PodSetStatus)
    requests: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    attempts: tuple[FlavorAttempt, ...] = attrs.field(default=(), converter=_attempts)
    spec_index: int = 0

    # Immutable, and read several times per decision (FAS-13 and the scheduler's SC rules).
    @cached_property
    def mode(self) -> FlavorAssignmentMode:
        """FAS-13a: Fit without reasons/error; NoFit on error or no flavor; else the lowest mode."""
        return _pod_set_mode(self.status, self.flavors)


def _pod_set_mode(status: PodSetStatus, flavors: Mapping[str, ResourceAssignment]) -> FlavorAssignmentMode:
    """FAS-13a of a pod set's status and flavors (:attr:`PodSetAssignment.mode`)."""
    if not status.reasons and status.error is None:
        return FlavorAssignmentMode.FIT
    if status.error is not None or not flavors:
        return FlavorAssignmentMode.NO_FIT
    return min((f.mode for f in flavors.values()), key=mode_rank)


def assignment_mode(pod_sets: Iterable[PodSetAssignment]) -> FlavorAssignmentMode:
    """FAS-13: the worst pod-set mode; NoFit when there is no pod set."""
    return min((ps.mode for ps in pod_sets), key=mode_rank, default=FlavorAssignmentMode.NO_FIT)


# FlavorAssignment is built once per assign_flavors call (not per flavor), so checking its
# fields here costs O(pod sets + flavor-resources) per decision.
def _pod_sets(value: Iterable[PodSetAssignment]) -> tuple[PodSetAssignment, ...]:
    if type(value) is list and all(type(ps) is PodSetAssignment for ps in value):
        return tuple(value)  # the assigner's own list: the check below, without its ABC tests
    return model_iterable(value, PodSetAssignment, "FlavorAssignment", "pod_sets")


def _usage(value: Mapping[FlavorResource, int | str]) -> FrozenMap[FlavorResource, int]:
    # A dict (the assigner's) skips the Mapping ABC test, the slow part of isinstance here.
    if type(value) is not dict and not isinstance(value, Mapping):
        raise InvalidModel(
            "FlavorAssignment", "usage", f"expected a mapping of FlavorResource to amount, got {type(value).__name__}"
        )
    out: dict[FlavorResource, int] = {}
    for fr, v in value.items():
        if not isinstance(fr, FlavorResource):
            raise InvalidModel("FlavorAssignment", "usage", f"keys must be FlavorResource, got {type(fr).__name__}")
        if type(v) is int and 0 <= v <= UNLIMITED:
            # The assigner's own amounts: what amount_input would return, without building
            # its error-context strings for every entry of every decision.
            out[fr] = v
        else:
            out[fr] = amount_input(v, fr.resource, obj="FlavorAssignment", field=f"usage[{fr}]")
    return owned_map(out)  # built here: frozen without another copy


def _borrowing(inst: object, attr: attrs.Attribute[int], value: int) -> None:
    # FAS-6: a borrowing level is a height in the cohort tree, never negative.
    model_int(value, "FlavorAssignment", attr.name, minimum=0)


@attrs.frozen
class FlavorAssignment:
    """A workload's flavor assignment (FAS-17): Kueue's ``flavorassigner.Assignment``.

    ``pod_sets`` may be shorter than the workload's pod sets: a failing pod-set group ends
    the assignment (FAS-19). ``usage`` is the quota the assignment would take per
    FlavorResource (zero entries included). ``no_fit_reason`` is FAS-24's.
    """

    pod_sets: tuple[PodSetAssignment, ...] = attrs.field(converter=_pod_sets)
    borrowing: int = attrs.field(default=0, validator=_borrowing)
    usage: FrozenMap[FlavorResource, int] = attrs.field(factory=FrozenMap, converter=_usage)
    no_fit_reason: str = attrs.field(default="", validator=str_field("FlavorAssignment"))

    @cached_property
    def mode(self) -> FlavorAssignmentMode:
        """FAS-13: the worst pod-set mode; NoFit when no pod set was assigned."""
        return assignment_mode(self.pod_sets)

    @property
    def requires_borrowing(self) -> bool:
        """FAS-13: the borrowing level is above 0."""
        return self.borrowing > 0

    @property
    def message(self) -> str:
        """FAS-21a: the message Kueue writes for this assignment (``""`` when it fits)."""
        if self.mode is FlavorAssignmentMode.FIT:
            return ""
        parts = []
        for ps in self.pod_sets:
            if ps.status.error is not None:
                return f"failed to assign flavors to pod set {ps.name}: {ps.status.error}"
            if ps.status.reasons:
                # Byte order, as Go's sort.Strings compares UTF-8 bytes.
                reasons = sorted(ps.status.reasons, key=lambda s: s.encode())
                parts.append(f"couldn't assign flavors to pod set {ps.name}: " + ", ".join(reasons))
        return "; ".join(parts)

    def tried_flavor_idx(self) -> tuple[FrozenMap[str, int], ...]:
        """The scan progress record (FAS-12): per pod set in ``pod_sets`` order,
        resource -> ``tried_flavor_idx``. Pass it back as ``progress`` to resume the scans."""
        return tuple(owned_map({r: f.tried_flavor_idx for r, f in ps.flavors.items()}) for ps in self.pod_sets)

    def nomination_mapping(self) -> dict[str, dict[str, str]]:
        """Per pod-set name, resource -> chosen flavor: the pins of a recomputation (FAS-5a case 1)."""
        return {ps.name: {r: f.flavor for r, f in ps.flavors.items()} for ps in self.pod_sets}

    def preempt_flavor_resources(self) -> frozenset[FlavorResource]:
        """FA-2: the FlavorResources whose mode is ``Preempt``."""
        return frozenset(
            flavor_resource(f.flavor, r)
            for ps in self.pod_sets
            for r, f in ps.flavors.items()
            if f.mode is FlavorAssignmentMode.PREEMPT
        )

    def total_requests(self) -> dict[FlavorResource, int]:
        """FA-3 ``TotalRequestsFor``: the pod sets' requests per chosen FlavorResource.

        Zero quantities are dropped; a resource without a flavor (ignored undeclared, FAS-3)
        is not quota and is skipped. The reported requests are already at the assignment's
        counts, so FA-3's rescaling is the identity here.
        """
        out: dict[FlavorResource, int] = {}
        for ps in self.pod_sets:
            for r, q in ps.requests.items():
                choice = ps.flavors.get(r)
                if q == 0 or choice is None:
                    continue
                fr = flavor_resource(choice.flavor, r)
                out[fr] = amount_add(out.get(fr, 0), q)
        return out

    def to_assignment(self) -> Assignment:
        """The :class:`~kueue_preempt.Assignment` :func:`~kueue_preempt.get_targets` takes (FA-1..FA-3)."""
        return Assignment(requests=self.total_requests(), preempt=self.preempt_flavor_resources())


# The assigner builds one PodSetAssignment per pod set and one FlavorAssignment per decision
# from values it made itself, already in their stored form (frozen maps, tuples, int amounts
# in range, a non-negative borrowing level): the converters and validators above would return
# them unchanged. These build the same objects without running them.
_set = object.__setattr__


def stored_pod_set(
    name: str,
    count: int,
    flavors: FrozenMap[str, ResourceAssignment],
    status: PodSetStatus,
    requests: FrozenMap[str, int],
    attempts: tuple[FlavorAttempt, ...],
    spec_index: int,
) -> PodSetAssignment:
    """``PodSetAssignment(...)`` of fields already in their stored form (equal to it)."""
    ps: PodSetAssignment = object.__new__(PodSetAssignment)
    _set(ps, "name", name)
    _set(ps, "count", count)
    _set(ps, "flavors", flavors)
    _set(ps, "status", status)
    _set(ps, "requests", requests)
    _set(ps, "attempts", attempts)
    _set(ps, "spec_index", spec_index)
    _set(ps, "mode", _pod_set_mode(status, flavors))  # the cached FAS-13a mode, as first read
    return ps


def stored_assignment(
    pod_sets: tuple[PodSetAssignment, ...],
    borrowing: int,
    usage: FrozenMap[FlavorResource, int],
    no_fit_reason: str,
    mode: FlavorAssignmentMode,
) -> FlavorAssignment:
    """``FlavorAssignment(...)`` of fields already in their stored form (equal to it):
    ``usage`` amounts are ints in [0, UNLIMITED], ``borrowing`` is >= 0, and ``mode`` is
    :func:`assignment_mode` of ``pod_sets`` (the cached FAS-13 mode, as first read)."""
    a: FlavorAssignment = object.__new__(FlavorAssignment)
    _set(a, "pod_sets", pod_sets)
    _set(a, "borrowing", borrowing)
    _set(a, "usage", usage)
    _set(a, "no_fit_reason", no_fit_reason)
    _set(a, "mode", mode)
    return a

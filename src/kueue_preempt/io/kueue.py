"""Kueue manifests (``kueue.x-k8s.io/v1beta1`` and ``v1beta2``) to model objects.

One function per kind; each validates what the algorithms read and raises a
:class:`~kueue_preempt.io.errors.ManifestError` naming the field path. Version differences:

========================  ==============================  =============================
field                     v1beta1                         v1beta2
========================  ==============================  =============================
ClusterQueue's cohort     ``spec.cohort``                 ``spec.cohortName``
Cohort's parent           ``spec.parentName``             ``spec.parentName``
                          (v1alpha1: ``spec.parent``)
Workload's class          ``spec.priorityClassName`` +    ``spec.priorityClassRef``
                          ``spec.priorityClassSource``    ``{group, kind, name}``
========================  ==============================  =============================

A field of the other version is an error rather than silently ignored: a ClusterQueue whose
cohort is dropped would give wrong answers without a word. Workloads are read by
:mod:`.workload` (re-exported here); fields the model has no place for by
:mod:`.kueue_settings`. Field tables per kind and version: docs/manifests.md.
"""

from __future__ import annotations

import sys
from fractions import Fraction

from kueue_preempt.model import (
    BorrowWithinCohort,
    ClusterQueue,
    ClusterQueuePreemption,
    Cohort,
    FlavorResource,
    ResourceQuota,
    WorkloadPriorityClass,
)
from kueue_preempt.model.quantity import quota_amount
from kueue_preempt.io._fields import Field, Meta, ParseContext, open_object
from kueue_preempt.io.kueue_settings import check_resource_group_shape, cluster_queue_settings, resource_flavor_spec
from kueue_preempt.io.objects import LocalQueue, ResourceFlavorSpec
from kueue_preempt.model.queues import ClusterQueueSettings
from kueue_preempt.io.read import RawObject
from kueue_preempt.io.workload import parse_workload, pod_requests

__all__ = [
    "KUEUE_GROUP",
    "KUEUE_VERSIONS",
    "parse_cluster_queue",
    "parse_cohort",
    "parse_local_queue",
    "parse_resource_flavor",
    "parse_workload_priority_class",
    "parse_workload",
    "pod_requests",
    "read_cluster_queue",
    "read_resource_flavor",
]

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_VERSIONS = ("v1beta1", "v1beta2")

_WITHIN_CQ = ("Never", "LowerPriority", "LowerOrNewerEqualPriority")
_RECLAIM = ("Never", "LowerPriority", "Any")
_BORROW = ("Never", "LowerPriority")
_ADMISSION_MODES = ("UsageBasedAdmissionFairSharing", "NoAdmissionFairSharing")


def _version_field(spec: Field, version: str, fields: dict[str, str], shown: str = "") -> str | None:
    """Read the field that ``version`` names in ``fields`` (version -> key); reject the others."""
    own = fields[version]
    for other_version, key in fields.items():
        if key != own and spec.has(key):
            spec.get(key).fail(f"is the {other_version} name of this field; in {shown or version} it is spec.{own}")
    return spec.get(own).optional_string()


# --------------------------------------------------------------------------- quota


def _resource_groups(groups: Field, has_parent: bool, cohort: bool = False) -> dict[FlavorResource, ResourceQuota]:
    """``spec.resourceGroups`` to quotas, in declaration order (flavor order is FA-1's order)."""
    quotas: dict[FlavorResource, ResourceQuota] = {}
    covered_by: dict[str, int] = {}
    flavor_group: dict[str, int] = {}
    for gi, group in enumerate(groups.list()):
        covered_field = group.get("coveredResources")
        covered: list[str] = []
        for c in covered_field.list(required=True):
            resource = c.string(required=True)
            if resource in covered:
                c.fail(f"resource {resource!r} is listed twice")
            if resource in covered_by:
                c.fail(f"resource {resource!r} is already covered by resourceGroups[{covered_by[resource]}]")
            covered.append(resource)
            covered_by[resource] = gi
        for flavor in group.get("flavors").list(required=True):
            fname_field = flavor.get("name")
            fname = fname_field.string(required=True)
            if fname in flavor_group:
                where = "this group" if flavor_group[fname] == gi else f"resourceGroups[{flavor_group[fname]}]"
                fname_field.fail(f"flavor {fname!r} already appears in {where}")
            flavor_group[fname] = gi
            seen: list[str] = []
            resources = flavor.get("resources")
            for res in resources.list():
                rname_field = res.get("name")
                rname = rname_field.string(required=True)
                if rname not in covered:
                    rname_field.fail(f"resource {rname!r} is not in this group's coveredResources")
                if rname in seen:
                    rname_field.fail(f"resource {rname!r} is listed twice")
                seen.append(rname)
                quotas[FlavorResource(fname, rname)] = _quota(res, rname, has_parent, cohort)
            missing = [r for r in covered if r not in seen]
            if missing:
                resources.fail(f"missing {', '.join(map(repr, missing))} from coveredResources")
    return quotas


def _quota(res: Field, resource: str, has_parent: bool, cohort: bool = False) -> ResourceQuota:
    nominal_q = res.get("nominalQuota").non_negative_quantity(required=True)
    assert nominal_q is not None
    nominal = quota_amount(nominal_q, resource)
    limits: dict[str, int | None] = {}
    for key in ("borrowingLimit", "lendingLimit"):
        f = res.get(key)
        q = f.non_negative_quantity()
        if q is not None and not has_parent:
            f.fail("a limit needs a parent cohort (Q-17)")
        limits[key] = None if q is None else quota_amount(q, resource)
    lending = limits["lendingLimit"]
    if lending is not None and lending > nominal and not cohort:  # API-13: ClusterQueues only
        res.get("lendingLimit").fail("must be <= nominalQuota (Q-17, API-13)")
    return ResourceQuota(nominal=nominal, borrowing_limit=limits["borrowingLimit"], lending_limit=lending)


_MAX_WEIGHT = Fraction(sys.float_info.max)


def _float_weight(f: Field, q: Fraction) -> float:
    """FS-W-1 takes the weight as a float: a quantity beyond the float range cannot be one."""
    if abs(q) > _MAX_WEIGHT:
        f.fail(f"must be at most {sys.float_info.max:.6g} (a float64), got {f.value}")
    return float(q)


def _weight(spec: Field) -> float:
    f = spec.get("fairSharing").get("weight")
    q = f.quantity()
    if q is None:
        return 1.0
    weight = _float_weight(f, q)
    if q < 0 or (0 < q and weight <= 1e-9):  # FS-W-2
        f.fail(f"must be 0 or greater than 1e-9, got {f.value}")
    return weight


# --------------------------------------------------------------------------- kinds


def parse_cluster_queue(raw: RawObject, version: str, load: ParseContext | None = None) -> ClusterQueue:
    """A ClusterQueue (DM-4): cohort, resource groups, preemption, fair-sharing weight."""
    return read_cluster_queue(raw, version, load)[0]


def read_cluster_queue(
    raw: RawObject, version: str, load: ParseContext | None = None
) -> tuple[ClusterQueue, ClusterQueueSettings]:
    """A ClusterQueue (DM-4, with its flavor fungibility) and its queueing settings (queueing
    strategy, stop policy, namespace selector, admission checks, deletion), every field of
    kueue-api-fields.md §1.3 defaulted (API-2) and validated (API-8..API-17)."""
    meta = open_object(raw.source, raw.index, raw.data, "ClusterQueue", namespaced=False, load=load)
    spec = meta.root.get("spec")
    spec.mapping()
    cohort = _version_field(spec, version, {"v1beta1": "cohort", "v1beta2": "cohortName"})
    groups = spec.get("resourceGroups")
    check_resource_group_shape(groups, cluster_queue=True)
    quotas = _resource_groups(groups, cohort is not None)
    preemption = _preemption(meta, spec.get("preemption"))
    weight = _weight(spec)
    modes = _ADMISSION_MODES if version == "v1beta2" else ()
    mode_field = spec.get("admissionScope").get("admissionMode")
    mode = mode_field.choice(modes, "NoAdmissionFairSharing") if modes else mode_field.string()
    settings, fungibility = cluster_queue_settings(meta, spec, version, list(dict.fromkeys(fr.flavor for fr in quotas)))
    cq = meta.build(
        "spec",
        lambda: ClusterQueue(
            name=meta.name,
            cohort=cohort,
            quotas=quotas,
            preemption=preemption,
            fair_weight=weight,
            admission_scope_usage_based=mode == "UsageBasedAdmissionFairSharing",
            flavor_fungibility=fungibility,  # FAS-8: what the assigner reads
        ),
    )
    return cq, settings


def _preemption(meta: Meta, p: Field) -> ClusterQueuePreemption:
    within = p.get("withinClusterQueue").choice(_WITHIN_CQ, "Never")
    reclaim = p.get("reclaimWithinCohort").choice(_RECLAIM, "Never")
    bwc_field = p.get("borrowWithinCohort")
    bwc = None
    if bwc_field.present:
        bwc_field.mapping()
        policy = bwc_field.get("policy").choice(_BORROW, "Never")
        threshold = bwc_field.get("maxPriorityThreshold").integer()
        if policy != "Never" and reclaim == "Never":
            bwc_field.get("policy").fail("borrowWithinCohort needs reclaimWithinCohort other than Never (POL-7)")
        bwc = BorrowWithinCohort(policy=policy, max_priority_threshold=threshold)
    return meta.build(
        p.path,
        lambda: ClusterQueuePreemption(within_cluster_queue=within, reclaim_within_cohort=reclaim, borrow_within_cohort=bwc),
    )


def parse_cohort(raw: RawObject, version: str, load: ParseContext | None = None) -> Cohort:
    """A Cohort (DM-5): parent, its own resource groups, fair-sharing weight."""
    meta = open_object(raw.source, raw.index, raw.data, "Cohort", namespaced=False, load=load)
    spec = meta.root.get("spec")
    spec.mapping()
    # The parent is ``parentName`` in both beta versions; only the old v1alpha1 (Kueue <= 0.12)
    # spelled it ``parent``, which reads as parentName (API-31, docs/decisions.md).
    parent = _version_field(
        spec,
        "v1alpha1" if version == "v1alpha1" else "v1beta2",
        {"v1alpha1": "parent", "v1beta2": "parentName"},
        shown=version,
    )
    groups = spec.get("resourceGroups")
    check_resource_group_shape(groups, cluster_queue=False)
    quotas = _resource_groups(groups, parent is not None, cohort=True)
    weight = _weight(spec)
    return meta.build("spec", lambda: Cohort(name=meta.name, parent=parent, quotas=quotas, fair_weight=weight))


def parse_local_queue(raw: RawObject, version: str, load: ParseContext | None = None) -> LocalQueue:
    """A LocalQueue: ``namespace/name`` to ``spec.clusterQueue``."""
    meta = open_object(raw.source, raw.index, raw.data, "LocalQueue", namespaced=True, load=load)
    spec = meta.root.get("spec")
    spec.mapping()
    cq = spec.get("clusterQueue").string(required=True)
    stop = spec.get("stopPolicy").choice(("None", "Hold", "HoldAndDrain"), "None")
    weight_field = spec.get("fairSharing").get("weight")
    weight = weight_field.quantity()  # not validated by Kueue (API-16)
    return LocalQueue(
        name=meta.name,
        namespace=meta.namespace,
        cluster_queue=cq,
        stop_policy=stop,
        fair_weight=1.0 if weight is None else _float_weight(weight_field, weight),
    )


def parse_resource_flavor(raw: RawObject, version: str, load: ParseContext | None = None) -> str:
    """A ResourceFlavor: only its name matters to preemption (the spec is validated)."""
    return read_resource_flavor(raw, version, load).name


def read_resource_flavor(raw: RawObject, version: str, load: ParseContext | None = None) -> ResourceFlavorSpec:
    """A ResourceFlavor with its node labels, taints, tolerations and topology (API-18)."""
    return resource_flavor_spec(open_object(raw.source, raw.index, raw.data, "ResourceFlavor", namespaced=False, load=load))


def parse_workload_priority_class(raw: RawObject, version: str, load: ParseContext | None = None) -> WorkloadPriorityClass:
    """A WorkloadPriorityClass: ``value`` and the KEP-4400 ``preemptionPolicy``."""
    meta = open_object(raw.source, raw.index, raw.data, "WorkloadPriorityClass", namespaced=False, load=load)
    value = meta.root.get("value").integer(required=True)
    assert value is not None
    description = meta.root.get("description").string()
    if version == "v1beta2" and len(description) > 2048:
        meta.root.get("description").fail(f"longer than 2048 characters (API-20)")
    policy = meta.root.get("preemptionPolicy").choice(("Always", "Never"), "Always")
    return WorkloadPriorityClass(name=meta.name, value=value, preemption_policy=policy)

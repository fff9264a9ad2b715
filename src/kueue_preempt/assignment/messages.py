"""Kueue's flavor-assignment messages, verbatim (FAS-21), and its quantity formatting (FAS-22).

The texts are what Kueue writes into a pending workload's ``QuotaReserved=False`` condition,
so they are reproduced byte for byte; users grep for them.
"""

from __future__ import annotations

from kueue_preempt.model.flavors import Taint
from kueue_preempt.model.quantity import UNLIMITED

__all__ = [
    "format_quantity",
    "insufficient_quota",
    "insufficient_unused_quota",
    "resource_unavailable",
    "flavor_not_found",
    "untolerated_taint",
    "affinity_mismatch",
    "not_allowed_by_annotation",
    "not_in_nomination",
    "does_not_provide",
    "tas_only",
]

_SUFFIX = {-9: "n", -6: "u", -3: "m", 0: "", 3: "k", 6: "M", 9: "G", 12: "T", 15: "P", 18: "E"}
_BINARY = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")


def _dec(m: int, e: int) -> str:
    """``dec(m, e)`` of FAS-22: ``m * 10^e`` in Kubernetes' canonical decimal form."""
    if m == 0:
        return "0"
    while m % 10 == 0:
        m //= 10
        e += 1
    while e % 3 != 0:
        # Lower the exponent to the multiple of 3 just below (m absorbs the factor).
        m *= 10
        e -= 1
    while e > 18:  # beyond the largest suffix (cannot happen for int64 amounts)
        m *= 1000
        e -= 3
    return f"{m}{_SUFFIX[e]}"


def _binary_resource(resource: str) -> bool:
    return resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-")


def format_quantity(v: int, resource: str, *, quota_side: bool = True) -> str:
    """FAS-22: an amount of ``resource`` as Kueue prints it in messages.

    ``quota_side`` amounts (``%A``, ``%P``, ``%N``) print UNLIMITED as ``<unlimited>``;
    a request (``%Q``) is always a number.
    """
    if quota_side and v == UNLIMITED:
        return "<unlimited>"
    if resource == "cpu":
        return _dec(v, -3)
    if _binary_resource(resource) and abs(v) >= 1024 and v % 1024 == 0:
        m, k = v, 0
        while abs(m) >= 1024 and m % 1024 == 0 and k < 6:
            m //= 1024
            k += 1
        return f"{m}{_BINARY[k]}"
    return _dec(v, 0)


def insufficient_quota(resource: str, flavor: str, assumed: int, request: int, potential: int) -> str:
    """FAS-6a capacity reason: the request can never fit (FAS-21)."""
    return (
        f"insufficient quota for {resource} in flavor {flavor}, previously considered podsets requests "
        f"({format_quantity(assumed, resource)}) + current podset request "
        f"({format_quantity(request, resource, quota_side=False)}) > maximum capacity "
        f"({format_quantity(potential, resource)})"
    )


def insufficient_unused_quota(resource: str, flavor: str, needed: int) -> str:
    """FAS-6a: the request fits the capacity but not what is unused now (FAS-21)."""
    return f"insufficient unused quota for {resource} in flavor {flavor}, {format_quantity(needed, resource)} more needed"


def resource_unavailable(resource: str) -> str:
    """FAS-3: a non-zero request for a resource no resource group covers."""
    return f"resource {resource} unavailable in ClusterQueue"


def flavor_not_found(flavor: str) -> str:
    """FAS-5a case 3: the ClusterQueue lists a flavor the assigner was not given."""
    return f"flavor {flavor} not found"


def untolerated_taint(taint: Taint, flavor: str) -> str:
    """FAS-5a case 4: Go's ``%v`` of a Taint struct (``timeAdded`` unset prints ``<nil>``)."""
    return f"untolerated taint {{{taint.key} {taint.value} {taint.effect} <nil>}} in flavor {flavor}"


def affinity_mismatch(flavor: str) -> str:
    """FAS-5a case 4: node selector / required affinity does not match the flavor's labels."""
    return f"flavor {flavor} doesn't match node affinity"


def not_allowed_by_annotation(flavor: str) -> str:
    """FAS-20: the allowed-flavors annotation excludes the flavor."""
    return f"skipping flavor {flavor} due to WorkloadAllowedResourceFlavorAnnotation annotation"


def not_in_nomination(flavor: str, resource: str) -> str:
    """FAS-5a case 1: a pinned scan (flavor pins of a recomputation) skips other flavors."""
    return f"skipping flavor {flavor} as it is not found in the nomination mapping for resource {resource}"


def does_not_provide(flavor: str, resource: str) -> str:
    """FAS-23 (attempts only): a flavor from an earlier scan not examined for ``resource``."""
    return f"flavor {flavor} does not provide resource {resource}"


def tas_only(flavor: str) -> str:
    """FAS-15: a TAS flavor skipped for a pod set without a topology request."""
    return f'Flavor "{flavor}" supports only TopologyAwareScheduling'

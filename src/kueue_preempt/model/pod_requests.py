"""A pod's effective requests, computed the Kubernetes way (FAS-1).

The flavor assigner takes per-pod requests ready-made (:attr:`PodSetSpec.requests`); this module
computes them from a pod template's containers, so that a manifest reader (or a caller with a
raw pod spec) gets exactly what Kueue charges: app containers summed; init containers run one
at a time before them, so the pod needs at least the largest one; "sidecar" init containers
(``restartPolicy: Always``) keep running, so they add to both; pod-level requests replace the
container sum for the resources they name; the RuntimeClass overhead comes on top.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable, Mapping, TypeVar

import attrs

from kueue_preempt._util.checks import arg_iterable, bool_field
from kueue_preempt.model.quantity import model_amount_map
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model.quantity import amount_add

__all__ = ["ContainerResources", "effective_pod_requests", "pod_request_totals", "POD_LEVEL_RESOURCES"]


# Q-1 input rule: a string is a quantity of its resource ("500m" cpu = 500), an int the amount.
# Negative amounts pass: Kubernetes validation refuses them, but FAS-1 clamps the pod's total
# at 0 the way Kueue does, and the manifest reader hands over what the manifest says.
def _requests(value: Mapping[str, int | str]) -> FrozenMap[str, int]:
    return frozen_map(model_amount_map(value, "ContainerResources", "requests", allow_negative=True))


def _limits(value: Mapping[str, int | str]) -> FrozenMap[str, int]:
    return frozen_map(model_amount_map(value, "ContainerResources", "limits", allow_negative=True))


@attrs.frozen
class ContainerResources:
    """One container's ``resources`` (amounts, Q-1) and whether it is a restartable init container."""

    requests: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_requests)
    limits: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_limits)
    restartable: bool = attrs.field(default=False, validator=bool_field("ContainerResources"))
    """An init container with ``restartPolicy: Always`` (a sidecar); ignored for app containers."""

    def effective(self) -> dict[str, int]:
        """Requests, with the limit standing in for a resource that only has a limit (FAS-1)."""
        out = dict(self.requests)
        for resource, limit in self.limits.items():
            out.setdefault(resource, limit)
        return out


POD_LEVEL_RESOURCES = ("cpu", "memory")
"""Resources pod-level ``resources.requests`` may set (plus every ``hugepages-*``)."""


def _pod_level(resource: str) -> bool:
    return resource in POD_LEVEL_RESOURCES or resource.startswith("hugepages-")


_N = TypeVar("_N", int, Fraction)


def pod_request_totals(
    containers: Iterable[Mapping[str, _N]],
    init_containers: Iterable[tuple[Mapping[str, _N], bool]],
    pod_level: Mapping[str, _N],
    overhead: Mapping[str, _N],
    add: Callable[[_N, _N], _N],
) -> dict[str, _N]:
    """FAS-1's combination rule, the one both readers use: the per-pod request of a pod from
    its containers' effective requests (a limit already standing in for a missing request).

    ``init_containers`` are ``(requests, restartable)`` in spec order. App containers are
    summed; init containers run one at a time before them, so the pod needs at least the
    largest one plus the sidecars started before it; sidecars (``restartable``) keep running,
    so they add to the sum too. ``pod_level`` requests replace the result for the resources
    Kubernetes lets them set (``cpu``, ``memory``, ``hugepages-*``); ``overhead`` comes on top.
    ``add`` is the sum of the number type: :func:`amount_add` for amounts (Q-2 saturation),
    ``+`` for exact quantities. No clamping: negative results are the caller's to handle.
    """
    total: dict[str, _N] = {}
    for reqs in containers:
        _add(total, reqs, add)
    sidecars: dict[str, _N] = {}
    init_peak: dict[str, _N] = {}
    for reqs, restartable in init_containers:
        if restartable:
            # A sidecar keeps running next to the app containers and later init containers.
            _add(total, reqs, add)
            _add(sidecars, reqs, add)
            peak = dict(sidecars)
        else:
            peak = dict(reqs)
            _add(peak, sidecars, add)
        for r, v in peak.items():
            init_peak[r] = max(init_peak.get(r, v), v)
    for r, v in init_peak.items():
        total[r] = max(total.get(r, v), v)
    for r, v in pod_level.items():
        if _pod_level(r):
            total[r] = v
    _add(total, overhead, add)
    return total


def _add(total: dict[str, _N], extra: Mapping[str, _N], add: Callable[[_N, _N], _N]) -> None:
    for r, v in extra.items():
        before = total.get(r)
        total[r] = v if before is None else add(before, v)


def _optional_amounts(value: Mapping[str, int | str] | None, param: str) -> dict[str, int] | None:
    if value is None:
        return None
    return model_amount_map(value, "effective_pod_requests", param, allow_negative=True)


def effective_pod_requests(
    containers: Iterable[ContainerResources],
    init_containers: Iterable[ContainerResources] = (),
    overhead: Mapping[str, int | str] | None = None,
    pod_requests: Mapping[str, int | str] | None = None,
) -> dict[str, int]:
    """FAS-1: the per-pod request map Kubernetes (and so Kueue) computes for a pod template.

    Negative results become 0, as Kueue clamps them. Amounts saturate (Q-2). ``overhead`` and
    ``pod_requests`` follow the Q-1 input rule (a string is a quantity of its resource).
    """
    fn = "effective_pod_requests"
    containers = arg_iterable(containers, ContainerResources, fn, "containers")
    init_containers = arg_iterable(init_containers, ContainerResources, fn, "init_containers")
    overhead = _optional_amounts(overhead, "overhead")
    pod_requests = _optional_amounts(pod_requests, "pod_requests")
    total = pod_request_totals(
        [c.effective() for c in containers],
        [(c.effective(), c.restartable) for c in init_containers],
        pod_requests or {},
        overhead or {},
        amount_add,
    )
    return {r: max(0, v) for r, v in total.items()}

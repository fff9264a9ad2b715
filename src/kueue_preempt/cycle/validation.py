"""Nomination checks 3c and 3d: requests within limits and LimitRanges (SC-NOM-1, SC-NOM-3).

Two inputs: a workload whose status carries its pod templates
(:attr:`WorkloadStatus.templates`, what the dump reader gives) is checked container by
container; otherwise the model has one container per pod set (its per-pod requests,
:class:`PodSetSpec`, plus the limits in :class:`WorkloadStatus`), and every item path names
``containers[0]``.
"""

from __future__ import annotations

import json
from typing import Mapping, Sequence

import attrs

from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.model import Workload
from kueue_preempt.model.flavors import PodSetSpec
from kueue_preempt.model.pod_requests import ContainerResources, effective_pod_requests
from kueue_preempt.cycle.cluster import ClusterState, LimitRange, PodTemplateResources, WorkloadStatus

__all__ = [
    "LimitRangeSummary",
    "adjust_template",
    "limit_range_summary",
    "limit_range_violation",
    "limits_violation",
    "resources_violation",
    "template_limit_range_violation",
    "template_limits_violation",
    "template_requests",
]


def _names(names: Sequence[str]) -> str:
    return json.dumps(sorted(names), separators=(",", ":"))


def _container_path(i: int) -> str:
    return f"spec.podSets[{i}].template.spec.containers[0]"


def _join(prefix: str, items: list[str]) -> str | None:
    if not items:
        return None
    distinct = list(dict.fromkeys(items))
    body = distinct[0] if len(distinct) == 1 else "[" + ", ".join(distinct) + "]"
    return prefix + body


def limits_violation(pod_sets: Sequence[PodSetSpec], limits: Sequence[Mapping[str, int] | None]) -> str | None:
    """SC-NOM-3 (3c): the ``resources validation failed`` message, or ``None``."""
    items = []
    for i, ps in enumerate(pod_sets):
        lim = limits[i] if i < len(limits) else None
        if not lim:
            continue
        over = [r for r, v in ps.requests.items() if r in lim and v > lim[r]]
        if over:
            items.append(f"{_container_path(i)}: Invalid value: {_names(over)}: requests must not exceed its limits")
    return _join("resources validation failed: ", items)


def _summary(ranges: Sequence[LimitRange], type_: str) -> tuple[dict[str, int], dict[str, int]] | None:
    chosen = sorted((r for r in ranges if r.type == type_), key=lambda r: r.name)  # [D] name order
    if not chosen:
        return None
    mx: dict[str, int] = {}
    mn: dict[str, int] = {}
    for r in chosen:
        for k, v in r.max.items():
            mx[k] = min(mx.get(k, v), v)  # smallest max
        for k, v in r.min.items():
            mn[k] = max(mn.get(k, v), v)  # largest min
    return mx, mn


def limit_range_violation(
    pod_sets: Sequence[PodSetSpec], limits: Sequence[Mapping[str, int] | None], ranges: Sequence[LimitRange]
) -> str | None:
    """SC-NOM-3 (3d): the ``resources didn't satisfy LimitRange constraints`` message, or ``None``."""
    container = _summary(ranges, "Container")
    pod = _summary(ranges, "Pod")
    if container is None and pod is None:
        return None
    items: list[str] = []
    for i, ps in enumerate(pod_sets):
        lim = (limits[i] if i < len(limits) else None) or {}
        hi = {r: max(ps.requests.get(r, v), v) for r, v in lim.items()}
        lo = {r: min(ps.requests.get(r, v), v) for r, v in lim.items()}
        for r, v in ps.requests.items():
            hi.setdefault(r, v)
            lo.setdefault(r, v)
        for summary, path in ((container, _container_path(i)), (pod, f"spec.podSets[{i}].template.spec")):
            if summary is None:
                continue
            mx, mn = summary
            above = [r for r in hi if r in mx and hi[r] > mx[r]]
            if above:
                items.append(f"{path}: Invalid value: {_names(above)}: requests must not be above the limitRange max")
            below = [r for r in lo if r in mn and mn[r] > lo[r]]
            if below:
                items.append(f"{path}: Invalid value: {_names(below)}: requests must not be below the limitRange min")
    return _join("resources didn't satisfy LimitRange constraints: ", items)


def _amounts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


@attrs.frozen
class LimitRangeSummary:
    """A namespace's LimitRange summary for one item type (SC-NOM-3): per resource the smallest
    ``max``, the largest ``min``, the first ``default`` and ``defaultRequest`` met (LimitRanges
    in name order)."""

    max: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    min: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    default: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    default_request: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)


def limit_range_summary(ranges: Sequence[LimitRange], type_: str) -> LimitRangeSummary | None:
    """The summary of the ``type_`` (``Container`` or ``Pod``) items of ``ranges``; ``None``
    when there is none."""
    chosen = sorted((r for r in ranges if r.type == type_), key=lambda r: r.name)  # [D] name order
    if not chosen:
        return None
    mx: dict[str, int] = {}
    mn: dict[str, int] = {}
    default: dict[str, int] = {}
    default_request: dict[str, int] = {}
    for r in chosen:
        for k, v in r.max.items():
            mx[k] = min(mx.get(k, v), v)
        for k, v in r.min.items():
            mn[k] = max(mn.get(k, v), v)
        for k, v in r.default.items():
            default.setdefault(k, v)
        for k, v in r.default_request.items():
            default_request.setdefault(k, v)
    return LimitRangeSummary(mx, mn, default, default_request)


def _defaulted(c: ContainerResources, summary: LimitRangeSummary | None) -> ContainerResources:
    limits = dict(c.limits)
    requests = dict(c.requests)
    if summary is not None:
        for r, v in summary.default.items():
            limits.setdefault(r, v)
        for r, v in summary.default_request.items():
            requests.setdefault(r, v)
    for r, v in limits.items():
        requests.setdefault(r, v)  # a request still missing takes the limit
    if requests == c.requests and limits == c.limits:
        return c
    return ContainerResources(requests=requests, limits=limits, restartable=c.restartable)


def adjust_template(template: PodTemplateResources, ranges: Sequence[LimitRange]) -> PodTemplateResources:
    """SC-NOM-3 *Adjustment*: the copy Kueue's queue keeps of one pod set's template, with the
    namespace's LimitRange defaults applied (``ranges``: that namespace's items; pod-level
    defaults only to a template that has a pod-level ``resources`` block) and every request
    still missing taking the container's limit."""
    container = limit_range_summary(ranges, "Container")
    pod = limit_range_summary(ranges, "Pod")
    return PodTemplateResources(
        containers=[_defaulted(c, container) for c in template.containers],
        init_containers=[_defaulted(c, container) for c in template.init_containers],
        pod=None if template.pod is None else _defaulted(template.pod, pod),
        overhead=template.overhead,
    )


def template_requests(template: PodTemplateResources) -> dict[str, int]:
    """The per-pod request (FAS-1) of an adjusted template."""
    return effective_pod_requests(
        template.containers,
        template.init_containers,
        overhead=template.overhead,
        pod_requests=None if template.pod is None else template.pod.effective(),
    )


def _template_paths(i: int, t: PodTemplateResources) -> list[tuple[str, ContainerResources]]:
    base = f"spec.podSets[{i}].template.spec"
    out = [(f"{base}.initContainers[{j}]", c) for j, c in enumerate(t.init_containers)]
    out += [(f"{base}.containers[{j}]", c) for j, c in enumerate(t.containers)]
    return out


def template_limits_violation(templates: Sequence[PodTemplateResources]) -> str | None:
    """SC-NOM-3 (3c) over every container of adjusted templates."""
    items = []
    for i, t in enumerate(templates):
        holders = _template_paths(i, t)
        if t.pod is not None:
            holders.append((f"spec.podSets[{i}].template.spec.resources", t.pod))
        for path, c in holders:
            over = [r for r, v in c.requests.items() if r in c.limits and v > c.limits[r]]
            if over:
                items.append(f"{path}: Invalid value: {_names(over)}: requests must not exceed its limits")
    return _join("resources validation failed: ", items)


def _bound_items(path: str, hi: Mapping[str, int], lo: Mapping[str, int], s: LimitRangeSummary) -> list[str]:
    items = []
    above = [r for r in hi if r in s.max and hi[r] > s.max[r]]
    if above:
        items.append(f"{path}: Invalid value: {_names(above)}: requests must not be above the limitRange max")
    below = [r for r in lo if r in s.min and s.min[r] > lo[r]]
    if below:
        items.append(f"{path}: Invalid value: {_names(below)}: requests must not be below the limitRange min")
    return items


def template_limit_range_violation(
    templates: Sequence[PodTemplateResources], ranges: Sequence[LimitRange]
) -> str | None:
    """SC-NOM-3 (3d) over every container of adjusted templates, then each pod's FAS-1 request
    against the ``Pod`` summary."""
    container = limit_range_summary(ranges, "Container")
    pod = limit_range_summary(ranges, "Pod")
    if container is None and pod is None:
        return None
    items: list[str] = []
    for i, t in enumerate(templates):
        if container is not None:
            for path, c in _template_paths(i, t):
                hi = {r: max(c.requests.get(r, v), v) for r, v in c.limits.items()}
                lo = {r: min(c.requests.get(r, v), v) for r, v in c.limits.items()}
                for r, v in c.requests.items():
                    hi.setdefault(r, v)
                    lo.setdefault(r, v)
                items += _bound_items(path, hi, lo, container)
        if pod is not None:
            per_pod = template_requests(t)
            items += _bound_items(f"spec.podSets[{i}].template.spec", per_pod, per_pod, pod)
    return _join("resources didn't satisfy LimitRange constraints: ", items)


def resources_violation(state: ClusterState, w: Workload, status: WorkloadStatus | None = None) -> str | None:
    """SC-NOM-1 steps 3c and 3d for a pending workload of ``state``: the ``Misconfigured``
    message, or ``None``. Every container when the workload's status carries its templates,
    else the one-container model (``WorkloadStatus.limits``). ``status`` replaces the one
    ``state`` holds for ``w`` (a workload that is not in ``state``)."""
    if status is None:
        status = state.status(w.key)
    ranges = [r for r in state.limit_ranges if r.namespace == w.namespace]
    if status.templates:
        msg = template_limits_violation(status.templates)
        return msg if msg is not None or not ranges else template_limit_range_violation(status.templates, ranges)
    msg = limits_violation(w.spec_pod_sets, status.limits)
    if msg is None and ranges:
        msg = limit_range_violation(w.spec_pod_sets, status.limits, ranges)
    return msg

"""Nomination checks 3c and 3d: requests within limits and LimitRanges (SC-NOM-1, SC-NOM-3).

The model has one container per pod set (its per-pod requests, :class:`PodSetSpec`, plus the
limits in :class:`WorkloadStatus`), so every item path names ``containers[0]``.
"""

from __future__ import annotations

import json
from typing import Mapping, Sequence

from kueue_preempt.model.flavors import PodSetSpec
from kueue_preempt.cycle.cluster import LimitRange

__all__ = ["limits_violation", "limit_range_violation"]


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

"""Kubernetes label selectors, as a ClusterQueue's ``namespaceSelector`` uses them (SC-CFG-3).

``None`` selects no namespace and an empty selector selects every namespace (SC-CFG-3,
surprise 12 of §17). Expressions follow Kubernetes: ``In``, ``NotIn``, ``Exists``,
``DoesNotExist``; an unknown operator is rejected when the selector is built.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import attrs

from .._frozen import FrozenMap, frozen_map
from ..errors import InvalidModel

__all__ = ["LabelRequirement", "LabelSelector", "selects"]

_OPERATORS = ("In", "NotIn", "Exists", "DoesNotExist")


def _values(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class LabelRequirement:
    """One ``matchExpressions`` entry."""

    key: str
    operator: str
    values: tuple[str, ...] = attrs.field(default=(), converter=_values)

    def __attrs_post_init__(self) -> None:
        if self.operator not in _OPERATORS:
            raise InvalidModel("LabelSelector", "matchExpressions.operator", f"unknown operator {self.operator!r}")
        if self.operator in ("In", "NotIn") and not self.values:
            raise InvalidModel("LabelSelector", "matchExpressions.values", f"{self.operator} needs values")

    def matches(self, labels: Mapping[str, str]) -> bool:
        present = self.key in labels
        if self.operator == "In":
            return present and labels[self.key] in self.values
        if self.operator == "NotIn":
            return not present or labels[self.key] not in self.values
        if self.operator == "Exists":
            return present
        return not present  # DoesNotExist


def _labels(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(value)


def _reqs(value: Iterable[LabelRequirement]) -> tuple[LabelRequirement, ...]:
    return tuple(value)


@attrs.frozen
class LabelSelector:
    """``matchLabels`` and ``matchExpressions``, ANDed; empty = everything."""

    match_labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_labels)
    match_expressions: tuple[LabelRequirement, ...] = attrs.field(default=(), converter=_reqs)

    def matches(self, labels: Mapping[str, str]) -> bool:
        for k, v in self.match_labels.items():
            if labels.get(k) != v:
                return False
        return all(r.matches(labels) for r in self.match_expressions)


def selects(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """SC-CFG-3: a null selector selects nothing."""
    return selector is not None and selector.matches(labels)

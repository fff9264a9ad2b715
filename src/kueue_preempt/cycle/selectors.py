"""A ClusterQueue's ``namespaceSelector`` (SC-CFG-3, SC-NOM-1 3b).

The selector type is the project's Kubernetes ``LabelSelector`` (:mod:`kueue_preempt.podgroup`,
also what the manifest loader builds). What is particular to a namespace selector: ``None``
selects no namespace, the empty selector selects every namespace, and an invalid selector
(which the API server would reject) selects nothing.
"""

from __future__ import annotations

from typing import Mapping

from kueue_preempt.podgroup import LabelSelector, LabelSelectorRequirement

__all__ = ["LabelSelector", "LabelSelectorRequirement", "selects"]


def selects(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """SC-CFG-3: a null selector selects nothing."""
    return selector is not None and selector.is_valid and selector.matches(labels)

"""A ClusterQueue's ``namespaceSelector`` (SC-CFG-3, SC-NOM-1 3b).

The selector type is the model's Kubernetes :class:`~kueue_preempt.model.selectors.LabelSelector`
(the empty selector selects every namespace, an invalid one none). What is particular to a
namespace selector: ``None`` (absent) selects no namespace.
"""

from __future__ import annotations

from typing import Mapping

from kueue_preempt.model.selectors import LabelSelector, LabelSelectorRequirement

__all__ = ["LabelSelector", "LabelSelectorRequirement", "selects"]


def selects(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """SC-CFG-3: a null selector selects nothing."""
    return selector is not None and selector.matches(labels)

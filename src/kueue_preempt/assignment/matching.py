"""Does a pod set fit a flavor's nodes at all? Taints, tolerations and selectors (FAS-5, FAS-5b).

Kubernetes semantics, restricted as Kueue restricts them: only the keys a flavor's
``nodeLabels`` define take part in the selector match, because a flavor describes a set of
nodes only through those labels (other keys are the scheduler's business, not the quota's).
"""

from __future__ import annotations

import re
from typing import Iterable, Mapping

import attrs

from kueue_preempt.model.flavors import NodeSelectorRequirement, NodeSelectorTerm, PodSetSpec, ResourceFlavor, Taint, Toleration

__all__ = ["SelectorResult", "first_untolerated_taint", "tolerates", "match_selector"]

_SCHEDULING_EFFECTS = ("NoSchedule", "NoExecute")
# Kubernetes' strict int64 form for Lt/Gt toleration values (FAS-5b).
_CANONICAL_INT = re.compile(r"0|-?[1-9][0-9]*")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _int64(text: str) -> int | None:
    if not _CANONICAL_INT.fullmatch(text):
        return None
    v = int(text)
    return v if _INT64_MIN <= v <= _INT64_MAX else None


def tolerates(toleration: Toleration, taint: Taint) -> bool:
    """FAS-5b: Kubernetes' ``Toleration.ToleratesTaint``."""
    if toleration.effect and toleration.effect != taint.effect:
        return False
    if toleration.key and toleration.key != taint.key:
        return False
    op = toleration.operator
    if op in ("", "Equal"):
        return toleration.value == taint.value
    if op == "Exists":
        return True
    if op in ("Lt", "Gt"):
        tv, tl = _int64(taint.value), _int64(toleration.value)
        if tv is None or tl is None:
            return False
        return tv < tl if op == "Lt" else tv > tl
    return False  # unknown operators never match


def first_untolerated_taint(taints: Iterable[Taint], tolerations: Iterable[Toleration]) -> Taint | None:
    """FAS-5: the first ``NoSchedule``/``NoExecute`` taint (list order) nothing tolerates."""
    tols = tuple(tolerations)
    for taint in taints:
        if taint.effect not in _SCHEDULING_EFFECTS:
            continue
        if not any(tolerates(t, taint) for t in tols):
            return taint
    return None


@attrs.frozen
class SelectorResult:
    """Outcome of the selector check: a match, or no match, possibly with a parse error."""

    matches: bool
    error: str | None = None


def _requirement_error(req: NodeSelectorRequirement) -> str | None:
    """Why Kubernetes cannot turn ``req`` into a label requirement (``None`` = it can)."""
    op, values = req.operator, req.values
    if op in ("In", "NotIn"):
        if not values:
            return f"values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty"
        return None
    if op in ("Exists", "DoesNotExist"):
        if values:
            return f"values: Invalid value: {list(values)!r}: values set must be empty for exists and does not exist"
        return None
    if op in ("Gt", "Lt"):
        if len(values) != 1 or not _is_int(values[0]):
            return f"values: Invalid value: {list(values)!r}: for 'Gt', 'Lt' operators, exactly one value is required"
        return None
    return f"{op!r} is not a valid node selector operator"


_GO_INT = re.compile(r"[+-]?[0-9]+")


def _is_int(text: str) -> bool:
    """Go's ``strconv.ParseInt(text, 10, 64)`` succeeds."""
    return bool(_GO_INT.fullmatch(text)) and _INT64_MIN <= int(text) <= _INT64_MAX


def _requirement_matches(req: NodeSelectorRequirement, labels: Mapping[str, str]) -> bool:
    op = req.operator
    present = req.key in labels
    if op == "In":
        return present and labels[req.key] in req.values
    if op == "NotIn":
        return not present or labels[req.key] not in req.values
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    # Gt / Lt: both sides read as integers; a label that is not one never matches.
    if not present:
        return False
    if not _is_int(labels[req.key]):
        return False
    label, bound = int(labels[req.key]), int(req.values[0])
    return label > bound if op == "Gt" else label < bound


def _affinity(terms: tuple[NodeSelectorTerm, ...] | None, labels: Mapping[str, str]) -> SelectorResult:
    if terms is None:
        return SelectorResult(True)
    # FAS-5b: expressions on keys the flavor does not define are dropped; a term left empty
    # (or no term at all) drops the whole affinity, which then matches.
    filtered = [tuple(r for r in t.match_expressions if r.key in labels) for t in terms]
    if not filtered or any(not exprs for exprs in filtered):
        return SelectorResult(True)
    errors: list[str] = []
    for exprs in filtered:
        bad = [e for e in (_requirement_error(r) for r in exprs) if e is not None]
        if bad:
            errors.extend(bad)  # a term Kubernetes cannot parse never matches
            continue
        if all(_requirement_matches(r, labels) for r in exprs):
            return SelectorResult(True)
    return SelectorResult(False, "; ".join(errors) if errors else None)


def match_selector(pod_set: PodSetSpec, flavor: ResourceFlavor) -> SelectorResult:
    """FAS-5/FAS-5b: the pod set's node selector and required affinity against ``flavor``."""
    labels = flavor.node_labels
    for key, value in pod_set.node_selector.items():
        if key in labels and labels[key] != value:
            return SelectorResult(False)
    return _affinity(pod_set.required_node_affinity, labels)

"""Kubernetes label selectors (``metav1.LabelSelector``): the one type every layer uses.

A ClusterQueue's ``namespaceSelector`` (SC-CFG-3, SC-NOM-1 3b), a PodDisruptionBudget's
selector (PDB-1) and the time-sharing booster's ``workloadSelector`` (BOOST-1, BOOST-2) are all
this type. Semantics, as Kubernetes' ``LabelSelectorAsSelector`` and ``labels.Selector``:

* every ``matchLabels`` pair AND every ``matchExpressions`` requirement must hold;
* ``In``: the label is present with one of the values; ``NotIn``: absent, or present with none
  of them; ``Exists`` / ``DoesNotExist``: present / absent;
* the empty selector ``{}`` matches everything;
* an *invalid* selector — an empty key, an unknown operator, ``In``/``NotIn`` without values,
  ``Exists``/``DoesNotExist`` with values — matches nothing (Kubernetes refuses to convert it,
  and the API server would have refused the object).

Where a selector is optional, what ``None`` means belongs to the field, not to this type: a
ClusterQueue's absent ``namespaceSelector`` selects no namespace (SC-CFG-3), an absent PDB
selector covers no pod (PDB-1), an absent ``workloadSelector`` selects every workload (BOOST-2).

A selector may be built invalid, because a manifest can hold one; configuration readers that
must refuse it check :attr:`LabelSelector.problem` (:meth:`LabelSelector.from_mapping` does).
"""

from __future__ import annotations

import enum
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt._util.checks import model_iterable, model_str_iterable, model_str_map, str_field
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import ConfigurationError, InvalidModel

__all__ = ["SelectorOperator", "LabelSelectorRequirement", "LabelSelector"]


class SelectorOperator(str, enum.Enum):
    """``matchExpressions[].operator`` of a Kubernetes label selector."""

    IN = "In"
    NOT_IN = "NotIn"
    EXISTS = "Exists"
    DOES_NOT_EXIST = "DoesNotExist"

    def __str__(self) -> str:
        return self.value


_OPERATORS = frozenset(op.value for op in SelectorOperator)


def _operator(value: SelectorOperator | str) -> str:
    if isinstance(value, SelectorOperator):
        return value.value
    if not isinstance(value, str):
        raise InvalidModel("LabelSelectorRequirement", "operator", f"must be a string, got {value!r}")
    return value


def _values(value: Iterable[str]) -> tuple[str, ...]:
    if isinstance(value, str):
        # A bare string would iterate as characters; Kubernetes requires a list.
        raise InvalidModel("LabelSelectorRequirement", "values", f"must be a list of strings, got {value!r}")
    return model_str_iterable(value, "LabelSelectorRequirement", "values")


@attrs.frozen
class LabelSelectorRequirement:
    """One ``matchExpressions`` entry. ``operator`` is kept as written (a
    :class:`SelectorOperator` is stored as its string), so an invalid one can be represented;
    it then matches nothing."""

    key: str = attrs.field(validator=str_field("LabelSelectorRequirement"))
    operator: str = attrs.field(converter=_operator)
    values: tuple[str, ...] = attrs.field(default=(), converter=_values)

    @property
    def problem(self) -> str | None:
        """Why the API server would refuse this requirement, ``None`` when it is valid."""
        if not self.key:
            return "key must not be empty"
        if self.operator not in _OPERATORS:
            return f"unknown operator {self.operator!r}"
        needs_values = self.operator in (SelectorOperator.IN.value, SelectorOperator.NOT_IN.value)
        if needs_values and not self.values:
            return f"{self.operator} needs at least one value"
        if not needs_values and self.values:
            return f"{self.operator} takes no values"
        return None

    @property
    def is_valid(self) -> bool:
        return self.problem is None

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Kubernetes semantics: ``NotIn`` matches a missing label, ``In`` does not; an invalid
        requirement matches nothing."""
        if not self.is_valid:
            return False
        present = self.key in labels
        op = self.operator
        if op == SelectorOperator.IN.value:
            return present and labels[self.key] in self.values
        if op == SelectorOperator.NOT_IN.value:
            return not present or labels[self.key] not in self.values
        if op == SelectorOperator.EXISTS.value:
            return present
        return not present


def _labels(value: Mapping[str, str] | None) -> FrozenMap[str, str]:
    return frozen_map(None if value is None else model_str_map(value, "LabelSelector", "match_labels"))


def _requirements(value: Iterable[LabelSelectorRequirement]) -> tuple[LabelSelectorRequirement, ...]:
    return model_iterable(value, LabelSelectorRequirement, "LabelSelector", "match_expressions")


@attrs.frozen
class LabelSelector:
    """A ``metav1.LabelSelector``: ``matchLabels`` ANDed with ``matchExpressions``; the empty
    selector matches everything, an invalid one nothing (see the module docstring)."""

    match_labels: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_labels)
    match_expressions: tuple[LabelSelectorRequirement, ...] = attrs.field(default=(), converter=_requirements)

    @property
    def is_empty(self) -> bool:
        """``{}``: no labels and no expressions (PDB-1 treats it specially for one PDB reading)."""
        return not self.match_labels and not self.match_expressions

    @property
    def problem(self) -> str | None:
        """The first invalid requirement, as ``matchExpressions[KEY]: reason``; ``None`` when valid."""
        for r in self.match_expressions:
            reason = r.problem
            if reason is not None:
                return f"matchExpressions[{r.key}]: {reason}"
        return None

    @property
    def is_valid(self) -> bool:
        return self.problem is None

    def matches(self, labels: Mapping[str, str]) -> bool:
        """Whether ``labels`` satisfy every term; ``False`` for an invalid selector."""
        if not self.is_valid:
            return False
        for key, value in self.match_labels.items():
            if labels.get(key) != value:
                return False
        return all(r.matches(labels) for r in self.match_expressions)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], *, where: str = "labelSelector") -> LabelSelector:
        """Read ``{matchLabels: {...}, matchExpressions: [{key, operator, values}]}`` from a
        configuration already loaded into a mapping; other keys are ignored. A wrong shape or
        an invalid requirement raises :class:`~kueue_preempt.errors.ConfigurationError`
        naming ``where``."""
        if not isinstance(data, Mapping):
            raise ConfigurationError(f"{where}: must be a mapping, got {data!r}")
        raw_labels = data.get("matchLabels") or {}
        if not isinstance(raw_labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in raw_labels.items()
        ):
            raise ConfigurationError(f"{where}.matchLabels: must map strings to strings, got {raw_labels!r}")
        raw_exprs = data.get("matchExpressions") or []
        if not isinstance(raw_exprs, list):
            raise ConfigurationError(f"{where}.matchExpressions: must be a list, got {raw_exprs!r}")
        exprs = []
        for item in raw_exprs:
            if not isinstance(item, Mapping):
                raise ConfigurationError(f"{where}.matchExpressions: entry {item!r} is not a mapping")
            values = item.get("values") or []
            if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
                raise ConfigurationError(f"{where}.matchExpressions: values must be a list of strings, got {values!r}")
            exprs.append(LabelSelectorRequirement(key=str(item.get("key", "")), operator=str(item.get("operator", "")), values=values))
        selector = cls(match_labels=raw_labels, match_expressions=exprs)
        problem = selector.problem
        if problem is not None:
            raise ConfigurationError(f"{where}.{problem}")
        return selector

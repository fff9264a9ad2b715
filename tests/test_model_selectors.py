"""The one Kubernetes label selector (kueue_preempt.model.selectors) and where its users differ:
a ClusterQueue's namespaceSelector (SC-CFG-3), a PDB's selector (PDB-1) and the time-sharing
booster's workloadSelector (BOOST-1, BOOST-2)."""

from __future__ import annotations

import pytest

from kueue_preempt.cycle.selectors import selects
from kueue_preempt.errors import ConfigurationError, InvalidModel, KueuePreemptError
from kueue_preempt.model import LabelSelector, LabelSelectorRequirement, SelectorOperator
from kueue_preempt.policies import TimeSharingConfig
from kueue_preempt.podgroup import PodDisruptionBudget
from kueue_preempt.podgroup.pdb import pdb_covers
from kueue_preempt.podgroup import Pod


def req(key: str, op: str, *values: str) -> LabelSelectorRequirement:
    return LabelSelectorRequirement(key, op, values)


@pytest.mark.parametrize(
    ("selector", "labels", "expected"),
    [
        (LabelSelector(), {}, True),  # the empty selector matches everything
        (LabelSelector(), {"a": "1"}, True),
        (LabelSelector({"a": "1"}), {"a": "1", "b": "2"}, True),
        (LabelSelector({"a": "1"}), {"a": "2"}, False),
        (LabelSelector({"a": "1"}), {}, False),
        (LabelSelector(match_expressions=[req("a", "In", "1", "2")]), {"a": "2"}, True),
        (LabelSelector(match_expressions=[req("a", "In", "1")]), {}, False),
        (LabelSelector(match_expressions=[req("a", "NotIn", "1")]), {}, True),  # a missing label is "not in"
        (LabelSelector(match_expressions=[req("a", "NotIn", "1")]), {"a": "1"}, False),
        (LabelSelector(match_expressions=[req("a", "Exists")]), {"a": ""}, True),
        (LabelSelector(match_expressions=[req("a", "DoesNotExist")]), {"a": ""}, False),
        # matchLabels AND matchExpressions
        (LabelSelector({"a": "1"}, [req("b", "Exists")]), {"a": "1"}, False),
        (LabelSelector({"a": "1"}, [req("b", "Exists")]), {"a": "1", "b": "x"}, True),
    ],
)
def test_kubernetes_semantics(selector: LabelSelector, labels: dict[str, str], expected: bool) -> None:
    assert selector.matches(labels) is expected


@pytest.mark.parametrize(
    "bad",
    [
        req("a", "Gt", "1"),  # not a label-selector operator
        req("a", "In"),  # In/NotIn need values
        req("a", "NotIn"),
        req("a", "Exists", "x"),  # Exists/DoesNotExist take none
        req("", "Exists"),
    ],
)
def test_an_invalid_selector_matches_nothing(bad: LabelSelectorRequirement) -> None:
    """Kubernetes refuses to convert an invalid selector, so it selects nothing (PDB-1,
    SC-CFG-3). The PodGroup package's former selector, called directly, fell back to the
    ``NotIn`` branch for an unknown operator and matched a pod without the label, let a
    value-less ``NotIn`` match everything and an ``Exists`` with values match presence;
    only its callers' separate ``is_valid`` check hid that."""
    selector = LabelSelector(match_expressions=[bad])
    assert selector.problem is not None and not selector.is_valid
    assert not bad.matches({}) and not bad.matches({"a": "x"})
    assert not selector.matches({}) and not selector.matches({"a": "x"})
    assert not selects(selector, {"a": "x"})


def test_an_invalid_selector_can_be_built_but_the_booster_refuses_it() -> None:
    """A manifest can hold an invalid selector, so the model type represents it (the booster's
    former selector raised at construction); the booster's configuration still refuses it, as
    Kueue's booster does at start-up."""
    selector = LabelSelector(match_expressions=[req("a", "Gt", "1")])
    with pytest.raises(ConfigurationError, match=r"workloadSelector\.matchExpressions\[a\]: unknown operator"):
        TimeSharingConfig(interval="10s", workload_selector=selector)
    with pytest.raises(ConfigurationError):
        TimeSharingConfig.from_mapping({"workloadSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}})


def test_values_must_be_a_list() -> None:
    """A bare string would iterate as characters; the PodGroup selector used to wrap it into a
    one-value list silently."""
    with pytest.raises(InvalidModel):
        LabelSelectorRequirement("a", "In", "x")
    with pytest.raises(KueuePreemptError):
        LabelSelectorRequirement("a", "In", [1])  # type: ignore[list-item]


def test_operator_enum_and_string_are_one_value() -> None:
    assert LabelSelectorRequirement("a", SelectorOperator.IN, ("x",)) == req("a", "In", "x")
    assert req("a", "In", "x").operator == SelectorOperator.IN


def test_none_means_what_the_field_says() -> None:
    """namespaceSelector: absent selects no namespace (SC-CFG-3); PDB: absent covers no pod
    (PDB-1); workloadSelector: absent selects every workload (BOOST-2)."""
    assert not selects(None, {})
    assert selects(LabelSelector(), {})
    pod = Pod("p", namespace="ns", labels={"app": "a"})
    assert not pdb_covers(PodDisruptionBudget("none", namespace="ns", selector=None), pod)
    assert pdb_covers(PodDisruptionBudget("all", namespace="ns", selector=LabelSelector()), pod)
    assert TimeSharingConfig(interval="10s").workload_selector is None

"""The table of decision kinds (kueue_preempt.testing.kinds) is coherent and usable as documented."""

from __future__ import annotations

import pytest

from kueue_preempt.errors import KueuePreemptError
from kueue_preempt.testing.kinds import KINDS, measure_kind


def test_every_kind_is_listed() -> None:
    assert list(KINDS) == ["classic", "fair", "assignment", "cycle", "podgroup"]


@pytest.mark.parametrize("name", list(KINDS))
def test_kind_measures_its_declared_operators(name: str) -> None:
    """A short measurement per kind: the library's answers pass, every declared operator
    applies somewhere and its mutants are rejected (the per-kind test files measure more)."""
    m = measure_kind(name, examples=40, random_seed=1)
    assert m.examples == 40
    assert 0 < m.nonempty < m.examples, m.as_dict()
    for operator in KINDS[name].operators:
        rate = m.rate(operator)
        assert rate.applicable > 0, (name, operator, m.as_dict())
        assert rate.rate >= 0.8, (name, operator, rate)


def test_unknown_kind_is_a_typed_error() -> None:
    with pytest.raises(KueuePreemptError, match="bogus"):
        measure_kind("bogus")

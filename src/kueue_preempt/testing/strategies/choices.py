"""Packing many small choices into one Hypothesis draw."""

from __future__ import annotations

import math
from typing import Sequence, TypeVar

from hypothesis import strategies as st

__all__ = ["Choices"]

T = TypeVar("T")


class Choices:
    """Several independent choices decoded from ONE draw (mixed radix).

    Every Hypothesis draw has a fixed cost, and a scenario needs a few hundred small choices;
    packing them keeps 500 examples per property fast. The draw is a fixed-size byte string
    (Hypothesis generates those close to uniformly, unlike wide integer ranges, which are
    skewed towards small values) with two spare bytes so that every digit is near-uniform.
    Shrinking still works: the bytes shrink towards zero, i.e. towards the *first* option of
    every choice, so option lists put the simplest value first.
    """

    def __init__(self, draw: st.DrawFn, *options: Sequence[object]) -> None:
        self._sizes = [len(o) for o in options]
        n_bytes = (math.prod(self._sizes).bit_length() + 7) // 8 + 2
        # Hypothesis caches strategy objects built with the same arguments itself.
        self._value = int.from_bytes(draw(st.binary(min_size=n_bytes, max_size=n_bytes)), "big")

    def pick(self, options: Sequence[T]) -> T:
        size = self._sizes.pop(0)
        assert size == len(options), "options must be picked in declaration order"
        self._value, i = divmod(self._value, size)
        return options[i]

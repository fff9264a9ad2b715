"""A bounded memo keyed by object identity, for values computed from immutable objects.

The scheduler asks the same question of the same frozen object many times per run (the
``resourceRequests`` of one pod-set tuple), and hashing the object by value would cost as much
as the answer. Keyed by ``id``: the key object is kept alive in the entry, so its id cannot be
reused while the entry exists, and being immutable it cannot change. Bounded: when full, the
table is dropped and refills on demand. An instance belongs to the object whose lifetime it
shares (the scheduling run's ``CycleMemo``), never to a module.
"""

from __future__ import annotations

from typing import Callable, Generic, TypeVar

__all__ = ["IdentityMemo"]

K = TypeVar("K")
V = TypeVar("V")


class IdentityMemo(Generic[K, V]):
    """``compute(obj)`` remembered per object (identity), for at most ``limit`` objects.

    Only for immutable ``obj``: a mutated object would keep its stale answer."""

    __slots__ = ("_compute", "_entries", "_limit")

    def __init__(self, compute: Callable[[K], V], limit: int) -> None:
        self._compute = compute
        self._entries: dict[int, tuple[K, V]] = {}
        self._limit = limit

    def __call__(self, obj: K) -> V:
        hit = self._entries.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        value = self._compute(obj)
        if len(self._entries) >= self._limit:
            self._entries.clear()
        self._entries[id(obj)] = (obj, value)
        return value

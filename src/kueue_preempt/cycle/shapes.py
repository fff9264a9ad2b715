"""The scheduling-equivalence shapes of pending workloads (SC-RQ-8), cached for a run.

A failed head parks every workload of its queue's active set with the same shape. Finding them
by testing each active key was Python work per key, once per failed head; the table keeps,
per distinct shape, the keys whose cached shape it is, so the bulk move is a set intersection
(in C) plus the shapes of the few active keys not cached yet.

Each distinct shape value is stored as one object (interned), so shapes compare by identity
and the per-shape key sets are keyed by that object's identity without hashing deep tuples.
"""

from __future__ import annotations

from typing import AbstractSet, Hashable

__all__ = ["ShapeTable"]

_NO_KEYS: frozenset[str] = frozenset()


class ShapeTable:
    """Workload key -> its SC-RQ-8 shape (one interned object per value), and the reverse.

    A key's shape is valid until its workload object changes (:meth:`forget`); the owner
    drops a key whose object it replaced. Invariant: ``key in keys_of(s)`` exactly when
    ``get(key) is s``. O(1) per operation; :meth:`trim` bounds the memory.
    """

    __slots__ = ("_by_key", "_interned", "_keys")

    def __init__(self) -> None:
        self._by_key: dict[str, Hashable] = {}
        self._interned: dict[Hashable, Hashable] = {}
        # id(interned shape) -> keys whose cached shape it is. Keyed by identity: the
        # interned objects live as long as the table (trim clears all three maps at once).
        self._keys: dict[int, set[str]] = {}

    def get(self, key: str) -> Hashable | None:
        return self._by_key.get(key)

    def put(self, key: str, shape: Hashable) -> Hashable:
        """Cache ``shape`` (a fresh value) for ``key``; returns the interned object."""
        interned = self._interned.setdefault(shape, shape)
        old = self._by_key.get(key)
        if old is not None and old is not interned:
            self._keys[id(old)].discard(key)
        self._by_key[key] = interned
        keys = self._keys.get(id(interned))
        if keys is None:
            keys = self._keys[id(interned)] = set()
        keys.add(key)
        return interned

    def forget(self, key: str) -> None:
        """``key``'s workload object changed or left: its cached shape is dropped."""
        old = self._by_key.pop(key, None)
        if old is not None:
            self._keys[id(old)].discard(key)

    def keys_of(self, shape: Hashable) -> AbstractSet[str]:
        """The keys whose cached shape is ``shape`` (an object :meth:`put` returned)."""
        return self._keys.get(id(shape), _NO_KEYS)

    def uncached(self, keys: frozenset[str]) -> AbstractSet[str]:
        """The keys of ``keys`` with no cached shape (one pass in C)."""
        return keys.difference(self._by_key)  # O(len(keys)): a dict argument is probed, not iterated

    def trim(self, limit: int) -> None:
        """Drop everything once ``limit`` distinct shapes are interned (refilled on demand).
        Only between cycles: within one, a cached shape must stay the interned object."""
        if len(self._interned) >= limit:
            self._by_key.clear()
            self._interned.clear()
            self._keys.clear()

    def __len__(self) -> int:
        return len(self._by_key)

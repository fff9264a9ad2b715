"""A hashable, immutable mapping used inside the frozen model classes.

``attrs`` frozen classes are hashable only if every field is; a plain ``dict`` is not,
and a ``MappingProxyType`` still exposes the caller's dict to mutation. ``FrozenMap`` copies
its input once, so a caller mutating their dict afterwards cannot change a model object.
"""

from __future__ import annotations

from typing import Generic, ItemsView, Iterator, KeysView, Mapping, TypeVar, ValuesView, overload

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")

__all__ = ["FrozenMap", "frozen_map", "owned_map", "interned_map", "intern"]


class FrozenMap(Mapping[K, V], Generic[K, V]):
    """Immutable, hashable mapping. Iteration follows insertion order of the source."""

    __slots__ = ("_data", "_hash")

    def __init__(self, data: Mapping[K, V] | None = None) -> None:
        self._data: dict[K, V] = dict(data) if data else {}
        self._hash: int | None = None

    def __getitem__(self, key: K) -> V:
        return self._data[key]

    def __iter__(self) -> Iterator[K]:
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: object) -> bool:
        return key in self._data

    # The dict's own views: Mapping's generic ones iterate in Python through __getitem__,
    # and quota arithmetic iterates usage maps on every workload removal and fit test.
    def items(self) -> ItemsView[K, V]:
        return self._data.items()

    def keys(self) -> KeysView[K]:
        return self._data.keys()

    def values(self) -> ValuesView[V]:
        return self._data.values()

    @overload
    def get(self, key: K, /) -> V | None: ...

    @overload
    def get(self, key: K, /, default: V | D) -> V | D: ...

    def get(self, key: K, /, default: object = None) -> object:
        # Direct dict lookup: Mapping.get would go through __getitem__ and an exception.
        return self._data.get(key, default)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(frozenset(self._data.items()))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenMap):
            return self._data == other._data
        if isinstance(other, Mapping):
            return self._data == dict(other)
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenMap({self._data!r})"


_EMPTY: FrozenMap[object, object] = FrozenMap()


def frozen_map(data: Mapping[K, V] | None = None) -> FrozenMap[K, V]:
    """attrs converter: return ``data`` unchanged if already frozen, else a frozen copy.

    Every empty map is one shared instance: most workloads have no annotations or labels.
    """
    # Exact-type tests first: isinstance against a Mapping ABC subclass goes through the ABC
    # machinery, and this converter runs for every map field of every model object built.
    t = type(data)
    if t is FrozenMap:
        return data  # type: ignore[return-value]
    if t is not dict and isinstance(data, FrozenMap):
        return data
    if not data:
        return _EMPTY  # type: ignore[return-value]
    return FrozenMap(data)


def owned_map(data: dict[K, V]) -> FrozenMap[K, V]:
    """:func:`frozen_map` of a dict the caller built for it and never touches again: wrapped
    without the copy (the copy only guards against later mutation by the caller)."""
    if not data:
        return _EMPTY  # type: ignore[return-value]
    m: FrozenMap[K, V] = FrozenMap.__new__(FrozenMap)
    m._data = data
    m._hash = None
    return m


# Interning: tens of thousands of workloads share a handful of distinct flavor maps, usage
# shapes and FlavorResource sets. Sharing one immutable instance per distinct value keeps a
# snapshot's memory per workload small. The table is bounded so hostile input with millions
# of distinct values cannot grow it without limit (values beyond the bound are not shared).
_INTERN_LIMIT = 65536
_interned: dict[object, object] = {}

T = TypeVar("T")


def intern(value: T) -> T:
    """Return the shared instance equal to ``value`` (hashable, immutable), adding it if room."""
    shared = _interned.get(value)
    if shared is not None:
        return shared  # type: ignore[return-value]
    if len(_interned) < _INTERN_LIMIT:
        _interned[value] = value
    return value


def interned_map(data: Mapping[K, V] | None = None) -> FrozenMap[K, V]:
    """Like :func:`frozen_map`, sharing one instance per distinct content."""
    return intern(frozen_map(data))

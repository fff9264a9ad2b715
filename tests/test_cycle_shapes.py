"""The shape table of SC-RQ-8's bulk move: key -> interned shape, and shape -> keys."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from kueue_preempt.cycle.shapes import ShapeTable

_keys = st.sampled_from(["a", "b", "c", "d"])
_shapes = st.sampled_from([(1, "x"), (1, "y"), (2, "x")])
_ops = st.lists(
    st.one_of(
        st.tuples(st.just("put"), _keys, _shapes),
        st.tuples(st.just("forget"), _keys, st.none()),
        st.tuples(st.just("trim"), st.none(), st.integers(1, 4)),
    ),
    max_size=30,
)


@settings(max_examples=200, deadline=None)
@given(_ops)
def test_reverse_index_matches_the_cache_after_any_operations(ops: list[tuple[str, object, object]]) -> None:
    """Against a plain dict model: ``get`` is the shape last put (equal value, one object per
    value), ``keys_of`` is exactly the keys whose cached shape it is, ``uncached`` the rest."""
    table = ShapeTable()
    model: dict[str, object] = {}
    seen: set[object] = set()  # values interned since the last trim (trim counts them all)
    for op, key, arg in ops:
        if op == "put":
            assert isinstance(key, str)
            table.put(key, tuple(arg))  # type: ignore[arg-type]  # a fresh, equal tuple each time
            model[key] = arg
            seen.add(arg)
        elif op == "forget":
            assert isinstance(key, str)
            table.forget(key)
            model.pop(key, None)
        else:
            assert isinstance(arg, int)
            table.trim(arg)
            if len(seen) >= arg:
                model.clear()
                seen.clear()
        for k in "abcd":
            assert table.get(k) == model.get(k)
        interned = {table.get(k) for k in model}
        for shape in interned:
            assert set(table.keys_of(shape)) == {k for k in model if table.get(k) is shape}
        assert len(interned) == len({v for v in model.values()})  # one object per value
        assert set(table.uncached(frozenset("abcd"))) == set("abcd") - model.keys()

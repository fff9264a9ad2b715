"""YAML text to plain Python objects, built straight from the safe parser's event stream.

Why not ``yaml.safe_load_all``: PyYAML's composer first builds a node graph for the whole
document and its constructor then walks that graph recursively. On a 36 MB ``kubectl get -o
yaml`` dump that costs 1-1.5 GB and half a minute even with libyaml, and a 200 KB document of
100,000 nested ``[`` crashes the interpreter (the recursion runs in C). The parser itself
(libyaml's, or PyYAML's pure-Python one as the fallback) is a state machine that emits events
without recursing, so this module consumes those events with an explicit stack and builds the
dicts and lists directly. The guards act *as the events arrive*: a container deeper than
``max_depth`` or an alias that would expand the document beyond ``max_nodes`` is an error
before anything deeper or bigger is built.

The result is what ``safe_load`` makes, with these deliberate differences (docs/manifests.md):

* the same types only: ``str``, ``int``, ``bool``, ``None``, ``datetime``/``date``, lists and
  dicts; plain scalars are resolved by PyYAML's own YAML 1.1 resolver and built by
  ``SafeConstructor``'s scalar constructors, so ``yes``, ``0x1F``, ``1_000`` and unquoted
  timestamps mean what they mean to ``safe_load``;
* a float is kept as the exact :class:`~decimal.Decimal` it spells (as the JSON reader does),
  so ``1.0e+400`` is a huge number, not ``inf``; ``.inf`` and ``.nan`` become the non-finite
  Decimals that every numeric field rejects;
* a key repeated in one mapping is an error (``safe_load`` silently keeps the last value, JSON
  rejects it: one rule for both formats); merge keys ``<<`` work as in ``safe_load``;
* a number literal longer than :data:`MAX_NUMBER_DIGITS` characters is an error;
* tags other than the standard scalar, ``!!seq`` and ``!!map`` tags (``!!binary``, ``!!set``,
  ``!!omap``, ``!!pairs``, ``!!python/...``, local ``!tags``) are errors, and so is an alias to
  a node that is still open (a recursive structure) or to an anchor never defined.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any, Callable, Iterator

__all__ = ["MAX_NUMBER_DIGITS", "YamlEventError", "YamlLimitError", "load_all", "has_libyaml"]

MAX_NUMBER_DIGITS = 1000
"""Longest number literal (in characters) either reader accepts; JSON uses the same bound."""

_TAG = "tag:yaml.org,2002:"
_STR = _TAG + "str"
_NULL = _TAG + "null"
_BOOL = _TAG + "bool"
_INT = _TAG + "int"
_FLOAT = _TAG + "float"
_TIMESTAMP = _TAG + "timestamp"
_MERGE = _TAG + "merge"
_VALUE = _TAG + "value"
_SEQ = _TAG + "seq"
_MAP = _TAG + "map"
_CACHE_LIMIT = 65536


class YamlEventError(Exception):
    """Invalid YAML content found while building (the reader turns it into ManifestSyntaxError)."""

    def __init__(self, reason: str, mark: Any) -> None:
        self.reason = reason
        self.line = None if mark is None else mark.line + 1
        self.column = None if mark is None else mark.column + 1
        where = "" if mark is None else f" at line {self.line}, column {self.column}"
        super().__init__(f"YAML error{where}: {reason}")


class YamlLimitError(Exception):
    """A size guard tripped (the reader turns it into ManifestTooLarge)."""


def has_libyaml() -> bool:
    """Whether PyYAML was built with libyaml (the fast C parser)."""
    import yaml

    return bool(getattr(yaml, "__with_libyaml__", False)) and hasattr(yaml, "CSafeLoader")


class _Frame:
    """An open sequence or mapping."""

    __slots__ = ("value", "is_map", "anchor", "start", "depth", "deep", "key", "key_mark", "has_key", "key_merges", "merge")

    def __init__(self, value: Any, is_map: bool, anchor: str | None, start: int, depth: int) -> None:
        self.value = value
        self.is_map = is_map
        self.anchor = anchor
        self.start = start  # node counter when the container opened (its subtree size at close)
        self.depth = depth
        self.deep = depth  # deepest container level inside, aliases included
        self.key: Any = None
        self.key_mark: Any = None  # the key's event (its start_mark locates errors)
        self.has_key = False
        self.key_merges = False  # the pending key is a plain ``<<`` (resolved to !!merge)
        self.merge: list[dict[Any, Any]] | None = None


class _Builder:
    """Event consumer for one input: anchors, guards, scalar resolution."""

    def __init__(self, loader: Any, max_depth: int, max_nodes: int) -> None:
        import yaml

        self.loader = loader
        self.max_depth = max_depth
        self.max_nodes = max_nodes
        self.nodes = 0
        self.scalar_node = yaml.ScalarNode
        self.constructor = yaml.constructor.SafeConstructor()
        self.resolve: Callable[..., str] = loader.resolve
        self.cache: dict[str, Any] = {}
        # anchor -> (value, subtree node count, subtree height); ``None`` value slot while open.
        self.anchors: dict[str, tuple[Any, int, int]] = {}
        self.open_anchors: set[str] = set()

    # ------------------------------------------------------------------ scalars

    def scalar(self, event: Any) -> Any:
        tag = event.tag
        value: str = event.value
        if tag is None or tag == "!":
            implicit = event.implicit
            if not implicit[0]:
                return value  # quoted: always a string
            if tag is None:
                cached = self.cache.get(value, self)
                if cached is not self:
                    return cached
            tag = self.resolve(self.scalar_node, value, implicit)
            result = self.construct(tag, value, event)
            if event.tag is None:
                if len(self.cache) >= _CACHE_LIMIT:
                    self.cache.clear()
                self.cache[value] = result  # every value built here is immutable
            return result
        return self.construct(tag, value, event)

    def construct(self, tag: str, value: str, event: Any) -> Any:
        if tag == _STR or tag == _VALUE or tag == _MERGE:
            # ``=`` (the YAML 1.1 "value" key) is an ordinary string here; safe_load rejects it
            # as a value. A merge key is recognised by the mapping, not here.
            return value
        if tag == _NULL:
            return None
        if tag == _BOOL:
            return self._call(tag, value, event)
        if tag == _INT or tag == _FLOAT:
            if len(value) > MAX_NUMBER_DIGITS:
                raise YamlEventError(
                    f"number with {len(value)} characters is too long (at most {MAX_NUMBER_DIGITS})", event.start_mark
                )
            if tag == _INT:
                return self._call(tag, value, event)
            return self._decimal(value, event)
        if tag == _TIMESTAMP:
            return self._call(tag, value, event)
        raise YamlEventError(f"tag {_short(tag)} is not supported in manifests", event.start_mark)

    def _call(self, tag: str, value: str, event: Any) -> Any:
        build = self.constructor.yaml_constructors[tag]
        try:
            return build(self.constructor, self.scalar_node(tag, value, event.start_mark, event.end_mark))
        except (ValueError, OverflowError, TypeError) as exc:  # e.g. a timestamp with month 13
            text = value if len(value) <= 40 else value[:37] + "..."
            raise YamlEventError(f"invalid {_short(tag)} {text!r}: {_first_line(str(exc))}", event.start_mark) from None

    def _decimal(self, value: str, event: Any) -> Decimal:
        """A YAML 1.1 float as the exact decimal it spells (``.inf``/``.nan`` non-finite)."""
        text = value.replace("_", "").lower()
        if text in (".inf", "+.inf"):
            return Decimal("Infinity")
        if text == "-.inf":
            return Decimal("-Infinity")
        if text == ".nan":
            return Decimal("NaN")
        if ":" not in text:
            try:
                return Decimal(text)
            except InvalidOperation:
                pass
        # Base 60 (``1:30.5``) or anything Decimal does not read: safe_load's float, exactly.
        return Decimal(repr(self._call(_FLOAT, value, event)))

    # ------------------------------------------------------------------ guards

    def count(self, n: int) -> None:
        self.nodes += n
        if self.nodes > self.max_nodes:
            raise YamlLimitError(f"more than {self.max_nodes} nodes (too large, or YAML aliases expanding it)")

    def too_deep(self) -> YamlLimitError:
        return YamlLimitError(f"nesting deeper than {self.max_depth} levels")

    # ------------------------------------------------------------------ documents

    def documents(self) -> Iterator[Any]:
        import yaml.events as ev

        scalar_event = ev.ScalarEvent
        mapping_start = ev.MappingStartEvent
        sequence_start = ev.SequenceStartEvent
        alias_event = ev.AliasEvent
        collection_end = (ev.MappingEndEvent, ev.SequenceEndEvent)
        document_start = ev.DocumentStartEvent
        document_end = ev.DocumentEndEvent
        get_event = self.loader.get_event
        cache = self.cache
        anchors = self.anchors
        scalar = self.scalar
        stack: list[_Frame] = []
        root: Any = None
        max_depth = self.max_depth
        max_nodes = self.max_nodes
        # The hot loop: one iteration per event (about 100 per workload of a real dump), so the
        # common cases (plain or quoted scalar, container start/end) avoid calls and lookups.
        while True:
            event = get_event()
            if event is None:
                return
            cls = type(event)
            merge_key = False
            if cls is scalar_event:
                self.nodes += 1
                if self.nodes > max_nodes:
                    self.count(0)
                if event.tag is None:
                    if event.implicit[0]:
                        done = cache.get(event.value, cache)
                        if done is cache:
                            done = scalar(event)
                        merge_key = done == "<<"
                    else:
                        done = event.value
                else:
                    done = scalar(event)
                if event.anchor is not None:
                    anchors[event.anchor] = (done, 1, 0)
                height = 0
            elif cls is mapping_start or cls is sequence_start:
                is_map = cls is mapping_start
                tag = event.tag
                if tag is not None and tag != "!" and tag != (_MAP if is_map else _SEQ):
                    raise YamlEventError(f"tag {_short(tag)} is not supported in manifests", event.start_mark)
                if stack and stack[-1].is_map and not stack[-1].has_key:
                    raise YamlEventError("a mapping key must be a scalar, not a list or mapping", event.start_mark)
                depth = len(stack) + 1
                if depth > max_depth:
                    raise self.too_deep()
                self.count(1)
                frame = _Frame({} if is_map else [], is_map, event.anchor, self.nodes, depth)
                if event.anchor is not None:
                    self.open_anchors.add(event.anchor)
                    anchors.pop(event.anchor, None)
                stack.append(frame)
                continue
            elif cls in collection_end:
                frame = stack.pop()
                if frame.merge is not None:
                    _apply_merge(frame.value, frame.merge)
                done, height = frame.value, frame.deep - frame.depth + 1
                if frame.anchor is not None:
                    self.open_anchors.discard(frame.anchor)
                    anchors[frame.anchor] = (done, self.nodes - frame.start + 1, height)
                if stack:
                    parent = stack[-1]
                    if parent.deep < frame.deep:
                        parent.deep = frame.deep
            elif cls is alias_event:
                name = event.anchor
                if name in self.open_anchors:
                    raise YamlEventError(f"alias *{name} refers to a node that contains it (recursive)", event.start_mark)
                found = anchors.get(name)
                if found is None:
                    raise YamlEventError(f"found undefined alias *{name}", event.start_mark)
                done, size, height = found
                if len(stack) + height > max_depth:
                    raise self.too_deep()
                self.count(size)
                if height and stack:
                    parent = stack[-1]
                    if parent.is_map and not parent.has_key:
                        raise YamlEventError("a mapping key must be a scalar, not a list or mapping", event.start_mark)
                    if parent.deep < parent.depth + height:
                        parent.deep = parent.depth + height
            elif cls is document_start:
                anchors.clear()  # anchors are local to a document
                root = None
                continue
            elif cls is document_end:
                yield root
                root = None
                continue
            else:  # stream start / end
                continue
            # ``done`` is a finished node: attach it to its parent.
            if not stack:
                root = done
                continue
            parent = stack[-1]
            if not parent.is_map:
                parent.value.append(done)
            elif not parent.has_key:
                parent.key = done
                parent.key_mark = event
                parent.key_merges = merge_key
                parent.has_key = True
            else:
                key = parent.key
                parent.has_key = False
                target = parent.value
                if parent.key_merges:
                    if parent.merge is not None:
                        raise YamlEventError("duplicate key '<<' (merge) in one mapping", parent.key_mark.start_mark)
                    parent.merge = _merge_sources(done, parent.key_mark.start_mark)
                    continue
                try:
                    duplicate = key in target
                except TypeError:  # unhashable: only an alias to a list/mapping gets here
                    raise YamlEventError(
                        "a mapping key must be a scalar, not a list or mapping", parent.key_mark.start_mark
                    ) from None
                if duplicate:
                    raise YamlEventError(f"duplicate key {_shown(key)} in one mapping", parent.key_mark.start_mark)
                target[key] = done


def _merge_sources(value: Any, mark: Any) -> list[dict[Any, Any]]:
    if type(value) is dict:
        return [value]
    if type(value) is list and all(type(v) is dict for v in value):
        # safe_load: earlier mappings in the list win, so apply them last.
        return list(reversed(value))
    raise YamlEventError("a merge key '<<' needs a mapping or a list of mappings", mark)


def _apply_merge(target: dict[Any, Any], sources: list[dict[Any, Any]]) -> None:
    """Merged keys first (later sources override earlier), then the mapping's own keys."""
    own = dict(target)
    target.clear()
    for source in sources:
        target.update(source)
    target.update(own)


def _short(tag: str) -> str:
    return "!!" + tag[len(_TAG) :] if tag.startswith(_TAG) else tag


def _shown(key: Any) -> str:
    text = repr(key)
    return text if len(text) <= 60 else text[:57] + "..."


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "invalid value"


def load_all(text: str, *, max_depth: int, max_nodes: int, pure: bool = False) -> Iterator[Any]:
    """Yield each document of ``text`` as plain objects (``None`` for an empty document).

    Uses libyaml's parser when PyYAML has it (unless ``pure``), else PyYAML's pure-Python
    parser. Raises ``yaml.YAMLError`` for syntax errors, :class:`YamlEventError` for content
    this reader rejects and :class:`YamlLimitError` when a guard trips.
    """
    import yaml

    loader_class = yaml.SafeLoader if pure or not has_libyaml() else yaml.CSafeLoader
    loader = loader_class(text)
    try:
        yield from _Builder(loader, max_depth, max_nodes).documents()
    finally:
        loader.dispose()

"""Typed, path-aware access to a raw object's fields.

A :class:`Field` is a value plus its path (``spec.resourceGroups[0].flavors[1].name``) and the
object it belongs to; every accessor checks the type and raises a
:class:`~kueue_preempt.io.errors.ManifestError` naming the path. Numbers that YAML or JSON
turned into ``int``/``float``/``Decimal`` become quantity strings through ``str``/``repr`` and
the exact quantity grammar, never through float arithmetic.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, datetime, timezone
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable, NoReturn, TypeVar

from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.model.time import parse_time
from kueue_preempt.errors import InvalidModel, InvalidQuantity, KueuePreemptError
from kueue_preempt.model.quantity import parse_quantity
from kueue_preempt.io.errors import ManifestError

__all__ = ["Ctx", "Field", "ParseContext", "describe"]

T = TypeVar("T")
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


_QUANTITIES_LIMIT = 4096  # distinct quantity strings one ParseContext keeps


class ParseContext:
    """What the objects of one load share: built by the loader for one call
    (:func:`~kueue_preempt.io.dump_from_objects`) and dropped with it.

    Dumps repeat the same few quantity strings ("1", "4Gi") thousands of times; a parsed
    quantity is an immutable ``Fraction`` and a pure function of its string, so each distinct
    string is parsed once per load. Bounded: strings past the bound are parsed each time.
    """

    __slots__ = ("quantities",)

    def __init__(self) -> None:
        self.quantities: dict[str, Fraction] = {}

    def quantity(self, text: str) -> Fraction:
        """:func:`~kueue_preempt.model.quantity.parse_quantity` of ``text``, once per load."""
        q = self.quantities.get(text)
        if q is None:
            q = parse_quantity(text)  # an invalid string raises, and is not remembered
            if len(self.quantities) < _QUANTITIES_LIMIT:
                self.quantities[text] = q
        return q


class Ctx:
    """The object a field belongs to, for error messages, and the load it is part of."""

    __slots__ = ("source", "kind", "name", "load")

    def __init__(self, source: str, kind: str, name: str, load: ParseContext | None = None) -> None:
        self.source = source
        self.kind = kind
        self.name = name
        self.load = load

    def error(self, path: str, reason: str) -> ManifestError:
        return ManifestError(self.source, self.kind, self.name, path, reason)


def describe(value: object) -> str:
    """``"integer 5"``, ``"boolean true"``, ``"a list"``...: what was found instead."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int):
        text = str(value) if value.bit_length() < 200 else "(a very long integer)"
        return f"integer {text}"
    if isinstance(value, (float, Decimal)):
        return f"number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {shown!r}"
    if isinstance(value, datetime):
        return f"unquoted timestamp {value.isoformat()}"
    if isinstance(value, date):
        return f"unquoted date {value.isoformat()}"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"a {type(value).__name__}"


def _join(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key)}]"


class Field:
    """A raw value at a path of an object.

    The path string is built only when an error needs it: a field keeps its parent and key,
    so reading a large dump does no string formatting for fields that are fine.
    """

    __slots__ = ("value", "ctx", "_base", "_parent", "_key")

    def __init__(self, value: Any, path: str, ctx: Ctx, parent: Field | None = None, key: str | int = "") -> None:
        self.value = value
        self.ctx = ctx
        self._base = path
        self._parent = parent
        self._key = key

    @property
    def path(self) -> str:
        """``spec.resourceGroups[0].flavors[1].name``-style path of this field."""
        keys: list[str | int] = []
        node: Field = self
        while node._parent is not None:
            keys.append(node._key)
            node = node._parent
        path = node._base
        for key in reversed(keys):
            path = _join(path, key)
        return path

    # ------------------------------------------------------------------ structure

    @property
    def present(self) -> bool:
        return self.value is not None

    def fail(self, reason: str) -> NoReturn:
        raise self.ctx.error(self.path, reason)

    def _expected(self, what: str) -> NoReturn:
        self.fail(f"expected {what}, got {describe(self.value)}")

    def _child(self, value: Any, key: str | int) -> Field:
        return Field(value, "", self.ctx, self, key)

    def mapping(self) -> dict[str, Any]:
        """The value as a mapping with string keys (``{}`` when absent)."""
        value = self.value
        if value is None:
            return {}
        if type(value) is not dict:
            self._expected("a mapping")
        for key in value:
            if type(key) is not str:
                self.fail(f"mapping key {describe(key)} is not a string")
        return value

    def get(self, key: str) -> Field:
        """The field ``key`` of this mapping (a field with value ``None`` when absent)."""
        value = self.value
        if value is None:
            return self._child(None, key)
        if type(value) is not dict:
            self._expected("a mapping")
        return self._child(value.get(key), key)

    def has(self, key: str) -> bool:
        return self.get(key).value is not None

    def items(self) -> list[tuple[str, Field]]:
        return [(k, self._child(v, k)) for k, v in self.mapping().items()]

    def list(self, *, required: bool = False) -> list[Field]:
        """The value as a list of fields (``[]`` when absent, unless ``required``)."""
        if self.value is None:
            if required:
                self.fail("required field is missing")
            return []
        if type(self.value) is not list:
            self._expected("a list")
        return [self._child(v, i) for i, v in enumerate(self.value)]

    # ------------------------------------------------------------------ scalars

    def string(self, *, required: bool = False) -> str:
        """A string; ``""`` when absent (or an error when ``required``; ``""`` counts as absent)."""
        if self.value is None:
            if required:
                self.fail("required field is missing")
            return ""
        if not isinstance(self.value, str):
            self._expected("a string" + (" (quote it)" if isinstance(self.value, (bool, int, float)) else ""))
        if required and not self.value:
            self.fail("must not be empty")
        return self.value

    def optional_string(self) -> str | None:
        """A string, ``None`` when absent or empty."""
        return self.string() or None

    def choice(self, allowed: tuple[str, ...], default: str) -> str:
        value = self.string()
        if not value:
            return default
        if value not in allowed:
            self.fail(f"{value!r} is not one of {', '.join(allowed)}")
        return value

    def integer(self, *, low: int = INT32_MIN, high: int = INT32_MAX, required: bool = False) -> int | None:
        """An integer in ``[low, high]`` (int32 by default); ``None`` when absent."""
        value = self.value
        if value is None:
            if required:
                self.fail("required field is missing")
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self._expected("an integer")
        if not low <= value <= high:
            self.fail(f"{value} is out of range [{low}, {high}]")
        return value

    def boolean(self, default: bool) -> bool:
        if self.value is None:
            return default
        if not isinstance(self.value, bool):
            self._expected("a boolean (true or false)")
        return self.value

    def quantity(self, *, required: bool = False) -> Fraction | None:
        """A Kubernetes quantity (Q-0), exactly; ``None`` when absent."""
        value = self.value
        if value is None:
            if required:
                self.fail("required field is missing")
            return None
        if isinstance(value, bool):
            self._expected("a quantity")
        if isinstance(value, int):
            text = str(value) if value.bit_length() < 512 else ""
            if not text:
                self.fail("invalid quantity: integer too large")
        elif isinstance(value, float):
            if not math.isfinite(value):
                self.fail(f"invalid quantity {value!r}: not a finite number")
            text = repr(value)  # shortest string that round-trips: what the input said
        elif isinstance(value, Decimal):
            if not value.is_finite():
                self.fail(f"invalid quantity {str(value)!r}: not a finite number")
            text = str(value)
        elif isinstance(value, str):
            text = value
        else:
            self._expected("a quantity")
        try:
            load = self.ctx.load
            return parse_quantity(text) if load is None else load.quantity(text)
        except InvalidQuantity as exc:
            shown = text if len(text) <= 40 else text[:37] + "..."
            self.fail(f"invalid quantity {shown!r}: {exc.reason}")

    def non_negative_quantity(self, *, required: bool = False) -> Fraction | None:
        q = self.quantity(required=required)
        if q is not None and q < 0:
            self.fail(f"must not be negative, got {self.value}")
        return q

    def time(self, *, required: bool = False) -> datetime | None:
        """An RFC 3339 timestamp as an aware UTC datetime; ``None`` when absent."""
        value = self.value
        if value is None:
            if required:
                self.fail("required field is missing")
            return None
        if isinstance(value, datetime):  # an unquoted YAML timestamp
            return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)
        if not isinstance(value, str):
            self._expected("an RFC 3339 timestamp")
        try:
            return parse_time(value)
        except InvalidModel:
            shown = value if len(value) <= 40 else value[:37] + "..."
            self.fail(f"{shown!r} is not an RFC 3339 timestamp")

    def string_map(self) -> dict[str, str]:
        """A ``string -> string`` mapping (labels, annotations, flavors)."""
        return {key: f.string() for key, f in self.items()}

    def quantity_map(self) -> dict[str, Fraction]:
        """A ``resource -> quantity`` mapping with non-negative quantities (requests, usage)."""
        out: dict[str, Fraction] = {}
        for key, f in self.items():
            q = f.non_negative_quantity(required=True)
            assert q is not None
            out[key] = q
        return out


# --------------------------------------------------------------------------- metadata

_BAD_NAME = re.compile(r"[/\s\x00-\x1f\x7f]")
MAX_NAME_LENGTH = 253


class Meta:
    """An object's root field, context and validated ``metadata`` essentials."""

    __slots__ = ("root", "ctx", "name", "namespace", "metadata")

    def __init__(self, root: Field, ctx: Ctx, name: str, namespace: str) -> None:
        self.root = root
        self.ctx = ctx
        self.name = name
        self.namespace = namespace
        self.metadata = root.get("metadata")

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}"

    def build(self, path: str, factory: Callable[[], T]) -> T:
        """Run a model constructor; a model error becomes a ManifestError at ``path``."""
        try:
            return factory()
        except ManifestError:
            raise
        except KueuePreemptError as exc:
            raise self.ctx.error(path, str(exc)) from None


def open_object(
    source: str, index: int, data: dict[str, Any], kind: str, *, namespaced: bool, load: ParseContext | None = None
) -> Meta:
    """Check ``metadata.name`` (and ``metadata.namespace``) and give typed access to the object.

    ``load`` is the :class:`ParseContext` of the load the object is read in (``None``: the
    object is read on its own).

    Names are not checked against the DNS grammar (Kueue's own tests use ``a_standard``), only
    for what would break a ``namespace/name`` key: empty, ``/``, whitespace, control characters,
    more than 253 characters. An absent namespace is ``""`` (no defaulting).
    """
    metadata = data.get("metadata")
    raw_name = metadata.get("name") if isinstance(metadata, dict) else None
    raw_ns = metadata.get("namespace") if isinstance(metadata, dict) and namespaced else None
    shown = raw_name if isinstance(raw_name, str) and raw_name and not _BAD_NAME.search(raw_name) else f"#{index}"
    if namespaced and isinstance(raw_ns, str) and raw_ns and shown != f"#{index}":
        shown = f"{raw_ns}/{shown}"
    ctx = Ctx(source, kind, shown, load)
    root = Field(data, "", ctx)
    meta = root.get("metadata")
    if not meta.present:
        meta.fail("required field is missing")
    meta.mapping()
    name = _name(meta.get("name"))
    namespace = _name(meta.get("namespace"), required=False) if namespaced else ""
    return Meta(root, ctx, name, namespace)


def _name(f: Field, *, required: bool = True) -> str:
    value = f.string(required=required)
    if len(value) > MAX_NAME_LENGTH:
        f.fail(f"longer than {MAX_NAME_LENGTH} characters")
    bad = _BAD_NAME.search(value)
    if bad is not None:
        f.fail(f"{value[:40]!r} contains {bad.group()!r}, which a name cannot contain")
    return value

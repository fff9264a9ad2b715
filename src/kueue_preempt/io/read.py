"""Bytes to raw Kubernetes objects: YAML or JSON, multi-document streams, ``kind: List``.

Input is untrusted (a dump of someone else's cluster), so reading is bounded by
:class:`Limits`: bytes per input, documents per input, objects in total, nesting depth, and
the number of nodes a document may expand to through YAML aliases (a "billion laughs"
document is rejected after a walk proportional to its size). YAML is built straight from the
safe parser's events by :mod:`._yaml` (no arbitrary tags, no code, no node graph), which applies
those bounds while the events arrive; JSON goes through :mod:`json` with floats kept as exact
:class:`~decimal.Decimal` values, and the same bounds checked by an iterative walk. The two
formats share one rule per mistake: duplicate keys, number literals over
:data:`~._yaml.MAX_NUMBER_DIGITS` characters and ``NaN``/``Infinity`` are rejected.
"""

from __future__ import annotations

import json
import os
import sys
from decimal import Decimal
from typing import Any, BinaryIO, Iterator

import attrs

from kueue_preempt._util.checks import path_arg, text_arg
from kueue_preempt.io._yaml import MAX_NUMBER_DIGITS
from kueue_preempt.io.errors import ManifestError, ManifestSyntaxError, ManifestTooLarge, YamlUnavailable

__all__ = ["Limits", "RawObject", "read_bytes", "parse_documents", "detect_format"]


@attrs.frozen
class Limits:
    """Safety bounds for one load. The defaults fit a large real cluster's dump."""

    max_bytes: int = 64 * 1024 * 1024
    """Largest input, per file."""
    max_documents: int = 100_000
    """Most YAML documents / JSON values in one input."""
    max_objects: int = 1_000_000
    """Most Kubernetes objects in one load (all inputs, after flattening lists)."""
    max_depth: int = 100
    """Deepest nesting of mappings and lists (Kubernetes objects are about 20 deep)."""
    max_nodes: int = 20_000_000
    """Most nodes (scalars, lists, mappings) in one input. An input may also never hold more
    nodes than it has bytes (plus a small allowance), which only YAML aliases can break."""


DEFAULT_LIMITS = Limits()


@attrs.frozen
class RawObject:
    """One Kubernetes object as parsed, before any validation.

    ``index`` is its 1-based position among the objects of ``source`` (after flattening
    lists): error messages use ``#<index>`` for objects without a usable name.
    """

    source: str
    index: int
    data: dict[str, Any] = attrs.field(eq=False)


def read_bytes(path: str | os.PathLike[str], limits: Limits = DEFAULT_LIMITS) -> bytes:
    """Read a file (``"-"`` is standard input), refusing more than ``limits.max_bytes``.

    Raises :class:`OSError` for I/O failures and :class:`ManifestTooLarge` for a too-large input.
    """
    name = path_arg(path, "read_bytes", "path")
    if name == "-":
        return _read_bounded(sys.stdin.buffer, "<stdin>", limits)
    if os.path.isdir(name):
        raise IsADirectoryError(21, "Is a directory", name)
    with open(name, "rb") as f:
        return _read_bounded(f, name, limits)


def _read_bounded(stream: BinaryIO, source: str, limits: Limits) -> bytes:
    data = stream.read(limits.max_bytes + 1)
    if len(data) > limits.max_bytes:
        raise ManifestTooLarge(source, f"input larger than {limits.max_bytes} bytes")
    return data


def detect_format(data: str, source: str = "") -> str:
    """``"json"`` or ``"yaml"``: by file suffix, else JSON when the text starts with ``{``/``[``."""
    lower = source.lower()
    if lower.endswith(".json"):
        return "json"
    if lower.endswith((".yaml", ".yml")):
        return "yaml"
    stripped = data.lstrip()
    return "json" if stripped[:1] in ("{", "[") else "yaml"


def parse_documents(
    data: bytes | str,
    *,
    source: str = "<input>",
    format: str | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> list[RawObject]:
    """Parse YAML or JSON text into raw objects, flattening ``kind: List`` (and ``<Kind>List``).

    ``format`` is ``"yaml"``, ``"json"`` or ``None`` (detect, see :func:`detect_format`).
    Empty documents are skipped. Raises :class:`ManifestSyntaxError`, :class:`ManifestError`
    (a document that is not an object), :class:`ManifestTooLarge` or :class:`YamlUnavailable`.
    """
    data = text_arg(data, "parse_documents", "data")
    if isinstance(data, bytes):
        if len(data) > limits.max_bytes:
            raise ManifestTooLarge(source, f"input larger than {limits.max_bytes} bytes")
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ManifestSyntaxError(source, f"not UTF-8 text (byte {exc.start})") from None
    else:
        text = data
        if len(text) > limits.max_bytes:
            raise ManifestTooLarge(source, f"input larger than {limits.max_bytes} bytes")
    fmt = format or detect_format(text, source)
    if fmt not in ("json", "yaml"):
        raise ValueError(f"format must be 'json' or 'yaml', not {fmt!r}")
    max_nodes = min(limits.max_nodes, len(text) + 1024)
    budget = _NodeBudget(source, max_nodes, limits.max_depth)
    if fmt == "json":
        documents = _json_documents(text, source)
    else:
        documents = _yaml_documents(text, source, limits, max_nodes)
    objects: list[RawObject] = []
    count = 0
    try:
        for doc in documents:
            count += 1
            if count > limits.max_documents:
                raise ManifestTooLarge(source, f"more than {limits.max_documents} documents")
            if doc is None:
                continue
            if fmt == "json" and (type(doc) is dict or type(doc) is list):
                budget.walk(doc)  # the YAML builder enforces the same bounds as it goes
            _flatten(doc, source, count, objects, limits)
    except RecursionError:
        raise ManifestTooLarge(source, f"nesting deeper than {limits.max_depth} levels") from None
    return objects


# --------------------------------------------------------------------------- JSON


class _JsonValueError(Exception):
    pass


def _no_constant(name: str) -> Any:
    raise _JsonValueError(f"{name} is not valid JSON")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _JsonValueError(f"duplicate key {key!r} in one object")
        out[key] = value
    return out


def _number_text(text: str) -> str:
    if len(text) > MAX_NUMBER_DIGITS:
        raise _JsonValueError(f"number with {len(text)} characters is too long (at most {MAX_NUMBER_DIGITS})")
    return text


def _json_int(text: str) -> int:
    return int(_number_text(text))


def _json_float(text: str) -> Decimal:
    return Decimal(_number_text(text))


_DECODER = json.JSONDecoder(
    parse_float=_json_float, parse_int=_json_int, parse_constant=_no_constant, object_pairs_hook=_pairs
)
_WS = " \t\n\r"


def _json_documents(text: str, source: str) -> Iterator[Any]:
    """A JSON value, or a stream of concatenated values (``kubectl get -o json`` twice)."""
    pos = 0
    end = len(text)
    while True:
        while pos < end and text[pos] in _WS:
            pos += 1
        if pos >= end:
            return
        try:
            value, pos = _DECODER.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise ManifestSyntaxError(
                source, f"JSON syntax error at line {exc.lineno}, column {exc.colno}: {exc.msg}"
            ) from None
        except _JsonValueError as exc:
            raise ManifestSyntaxError(source, f"JSON error: {exc}") from None
        except ValueError as exc:  # e.g. an integer longer than Python's digit limit
            raise ManifestSyntaxError(source, f"JSON error: {_first_line(str(exc))}") from None
        yield value


# --------------------------------------------------------------------------- YAML


def _yaml_documents(text: str, source: str, limits: Limits, budget: int) -> Iterator[Any]:
    """Documents built from the safe parser's events (see :mod:`._yaml`), guards included."""
    try:
        import yaml
    except ImportError:
        raise YamlUnavailable(source) from None
    from kueue_preempt.io._yaml import YamlEventError, YamlLimitError, load_all

    stream = load_all(text, max_depth=limits.max_depth, max_nodes=budget, pure=_FORCE_PURE_YAML)
    while True:
        try:
            doc = next(stream)
        except StopIteration:
            return
        except YamlLimitError as exc:
            raise ManifestTooLarge(source, str(exc)) from None
        except YamlEventError as exc:
            raise ManifestSyntaxError(source, str(exc)) from None
        except yaml.MarkedYAMLError as exc:
            if "maximum nesting depth" in str(exc.problem or ""):
                # libyaml >= 0.2.6 (PyYAML 6.0.4 wheels) stops at 1,000 levels while scanning
                # ahead, before our event-level guard sees the 101st level: the same mistake,
                # so the same answer as with older libyaml and the pure parser.
                if limits.max_depth < _LIBYAML_MAX_DEPTH:
                    raise ManifestTooLarge(source, f"nesting deeper than {limits.max_depth} levels") from None
                raise ManifestTooLarge(source, f"nesting deeper than {_LIBYAML_MAX_DEPTH} levels (libyaml's own limit)") from None
            raise ManifestSyntaxError(source, _yaml_message(exc)) from None
        except yaml.YAMLError as exc:
            raise ManifestSyntaxError(source, f"YAML error: {_first_line(str(exc))}") from None
        yield doc


_LIBYAML_MAX_DEPTH = 1000
"""libyaml's own nesting bound (0.2.6 and later)."""

_FORCE_PURE_YAML = False
"""Tests set this to exercise the pure-Python parser (the fallback without libyaml)."""


def _yaml_message(exc: Any) -> str:
    mark = exc.problem_mark or exc.context_mark
    where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    what = exc.problem or exc.context or "invalid YAML"
    return f"YAML syntax error{where}: {_first_line(str(what))}"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else "invalid input"


# --------------------------------------------------------------------------- structure


class _NodeBudget:
    """Iterative walk bounding depth and total node count (YAML alias expansion)."""

    def __init__(self, source: str, max_nodes: int, max_depth: int) -> None:
        self.source = source
        self.left = max_nodes
        self.max_nodes = max_nodes
        self.max_depth = max_depth

    def walk(self, doc: Any) -> None:
        # Only containers go on the stack; scalars are counted with their parent.
        stack: list[tuple[Any, int]] = [(doc, 1)]
        left = self.left - 1
        while stack:
            value, depth = stack.pop()
            children = value.values() if type(value) is dict else value
            left -= len(children)
            if left < 0:
                raise ManifestTooLarge(
                    self.source,
                    f"more than {self.max_nodes} nodes (too large, or YAML aliases expanding it)",
                )
            for child in children:
                if type(child) is dict or type(child) is list:
                    if depth >= self.max_depth:
                        raise ManifestTooLarge(self.source, f"nesting deeper than {self.max_depth} levels")
                    stack.append((child, depth + 1))
        self.left = left


def _flatten(doc: Any, source: str, doc_number: int, out: list[RawObject], limits: Limits) -> None:
    """Append the objects of one document, expanding (nested) lists in order."""
    stack: list[tuple[Any, str, str]] = [(doc, "", "")]
    while stack:
        value, list_kind, list_version = stack.pop()
        where = f"document {doc_number}"
        if not isinstance(value, dict):
            raise ManifestError(
                source, "", f"#{len(out) + 1}", "", f"{where}: expected an object (a mapping), got {_type_name(value)}"
            )
        kind = value.get("kind")
        items = value.get("items")
        if isinstance(kind, str) and kind.endswith("List") and "items" in value:
            if not isinstance(items, list):
                raise ManifestError(source, kind, f"#{len(out) + 1}", "items", f"expected a list, got {_type_name(items)}")
            version = value.get("apiVersion")
            item_kind = kind[: -len("List")] if kind != "List" else ""
            # Typed lists (ClusterQueueList) may omit kind/apiVersion on items: inherit them.
            version = version if isinstance(version, str) else ""
            stack.extend((item, item_kind, version) for item in reversed(items))
            continue
        if list_kind and isinstance(value, dict) and "kind" not in value:
            value = {**value, "kind": list_kind}
            if list_version and "apiVersion" not in value:
                value["apiVersion"] = list_version
        out.append(RawObject(source, len(out) + 1, value))
        if len(out) > limits.max_objects:
            raise ManifestTooLarge(source, f"more than {limits.max_objects} objects")


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, Decimal)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__

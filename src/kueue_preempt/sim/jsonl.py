"""Strict JSON Lines reading shared by the arrivals and timeline readers.

Inputs are untrusted text: numbers with a fraction stay exact (:class:`~decimal.Decimal`, as
the manifest reader keeps them), ``NaN``/``Infinity`` and duplicate keys are rejected, and
nesting is bounded without recursion so a hostile line cannot exhaust the stack.
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any, Iterator

__all__ = ["JsonLineError", "json_lines", "MAX_DEPTH", "number"]

MAX_DEPTH = 100
"""Deepest nesting of one line (a Workload manifest is about 20 deep)."""


class JsonLineError(Exception):
    """Internal: a line is not acceptable JSON; callers turn it into their typed error."""

    def __init__(self, line: int, reason: str) -> None:
        self.line = line
        self.reason = reason
        super().__init__(reason)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


MAX_NUMBER_CHARS = 1000
"""Longest number literal of a line; Python's ``int()`` itself refuses more than 4,300 digits
with a message about its own settings."""


def _number_text(text: str) -> str:
    if len(text) > MAX_NUMBER_CHARS:
        raise ValueError(f"number with {len(text)} characters is too long (at most {MAX_NUMBER_CHARS})")
    return text


def _int(text: str) -> int:
    return int(_number_text(text))


def _decimal(text: str) -> Decimal:
    return Decimal(_number_text(text))


_DECODER = json.JSONDecoder(parse_float=_decimal, parse_int=_int, parse_constant=_no_constant, object_pairs_hook=_pairs)


def _check_depth(value: Any, line: int) -> None:
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise JsonLineError(line, f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def json_lines(text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, object)`` for every non-blank line; blank lines and lines starting with
    ``#`` are skipped. Raises :class:`JsonLineError` for a line that is not a JSON object."""
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            value = _DECODER.decode(stripped)
        except json.JSONDecodeError as exc:
            raise JsonLineError(number, f"JSON syntax error at column {exc.colno}: {exc.msg}") from None
        except RecursionError:
            raise JsonLineError(number, f"nested deeper than {MAX_DEPTH} levels") from None
        except ValueError as exc:
            raise JsonLineError(number, f"JSON error: {str(exc).splitlines()[0]}") from None
        if not isinstance(value, dict):
            raise JsonLineError(number, "expected a JSON object on each line")
        _check_depth(value, number)
        yield number, value


def number(value: object) -> float | None:
    """A JSON number as a float (``None`` for anything else, booleans included)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, Decimal, float)):
        try:
            return float(value)
        except OverflowError:
            return None
    return None

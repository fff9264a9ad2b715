"""Argument checks for the public API: wrong types become the library's errors, naming the field.

Inputs are often built from someone else's cluster dump, so a ``None`` where a ``Workload`` goes
must fail with "``get_targets``: field 'preemptor': expected a Workload, got NoneType", not with
an ``AttributeError`` three calls deep. Each helper checks one thing and says which; there is no
blanket ``except Exception`` anywhere: a library bug must not pass for bad input. Constructors raise
:class:`InvalidModel` (the object is the class), functions :class:`InvalidArgument` (the object
is the function).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timezone
from os import PathLike
from typing import Any, Callable, TypeVar

from kueue_preempt.errors import InvalidArgument, InvalidModel

__all__ = [
    "arg",
    "optional_arg",
    "time_arg",
    "arg_iterable",
    "iter_args",
    "arg_mapping",
    "text_arg",
    "path_arg",
    "model_iterable",
    "model_str_map",
    "model_int",
    "model_str",
    "model_optional_str",
    "model_bool",
    "model_instance",
    "model_str_iterable",
    "Validator",
    "str_field",
    "optional_str_field",
    "bool_field",
]

T = TypeVar("T")


def _what(types: type | tuple[type, ...]) -> str:
    if isinstance(types, tuple):
        return " or ".join(t.__name__ for t in types)
    return types.__name__


def arg(value: object, types: type[T], function: str, param: str) -> T:
    """``value`` if it is an instance of ``types``, else :class:`InvalidArgument`."""
    if not isinstance(value, types) or (isinstance(value, bool) and types is not bool):
        raise InvalidArgument(function, param, f"expected {_what(types)}, got {type(value).__name__}")
    return value


def optional_arg(value: object, types: type[T], function: str, param: str) -> T | None:
    """Like :func:`arg`, accepting ``None``."""
    return None if value is None else arg(value, types, function, param)


def time_arg(value: object, function: str, param: str) -> datetime:
    """A ``datetime`` argument as an aware UTC time: a naive one is taken to be UTC, as the
    model's times are (comparing naive with aware times would raise ``TypeError`` later)."""
    when = arg(value, datetime, function, param)
    return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when


def _iterable(value: Any) -> bool:
    # A string is iterable but never a list of objects here; a mapping iterates its keys only.
    return isinstance(value, Iterable) and not isinstance(value, (str, bytes, bytearray, Mapping))


def arg_iterable(value: Any, types: type[T], function: str, param: str) -> list[T]:
    """The items of an iterable argument, each an instance of ``types``."""
    if not _iterable(value):
        raise InvalidArgument(function, param, f"expected an iterable of {types.__name__}, got {type(value).__name__}")
    items = list(value)
    for i, item in enumerate(items):
        if not isinstance(item, types):
            raise InvalidArgument(function, f"{param}[{i}]", f"expected {types.__name__}, got {type(item).__name__}")
    return items


def iter_args(value: Any, types: type[T], function: str, param: str) -> Iterator[T]:
    """Like :func:`arg_iterable`, but lazily: a size-bounded consumer can stop early on huge input."""
    if not _iterable(value):
        raise InvalidArgument(function, param, f"expected an iterable of {types.__name__}, got {type(value).__name__}")
    for i, item in enumerate(value):
        if not isinstance(item, types):
            raise InvalidArgument(function, f"{param}[{i}]", f"expected {types.__name__}, got {type(item).__name__}")
        yield item


def arg_mapping(value: Any, function: str, param: str) -> Mapping[Any, Any]:
    """A mapping argument (its keys and values are checked by the caller, which knows their meaning)."""
    if not isinstance(value, Mapping):
        raise InvalidArgument(function, param, f"expected a mapping, got {type(value).__name__}")
    return value


def text_arg(value: object, function: str, param: str, *, binary: bool = True) -> str | bytes:
    """The text a parser reads: a ``str`` (or ``bytes`` where the parser decodes them itself)."""
    if isinstance(value, str) or (binary and isinstance(value, (bytes, bytearray))):
        return value if not isinstance(value, bytearray) else bytes(value)
    raise InvalidArgument(function, param, f"expected {'str or bytes' if binary else 'str'} text, got {type(value).__name__}")


def path_arg(value: object, function: str, param: str) -> str:
    """A file name as ``str`` (``"-"`` is standard input), from a ``str`` or an ``os.PathLike``
    of ``str``; ``bytes`` names are refused, as the error messages print names as text."""
    if isinstance(value, str):
        return value
    if isinstance(value, PathLike):
        name = value.__fspath__()
        if isinstance(name, str):
            return name
    raise InvalidArgument(function, param, f"expected a file name (str or os.PathLike), got {type(value).__name__}")


def model_iterable(value: Any, types: type[T], obj: str, field: str) -> tuple[T, ...]:
    """attrs converter body: a tuple of ``types`` from any iterable, else :class:`InvalidModel`."""
    if not _iterable(value):
        raise InvalidModel(obj, field, f"expected an iterable of {types.__name__}, got {type(value).__name__}")
    items = tuple(value)
    for i, item in enumerate(items):
        if not isinstance(item, types):
            raise InvalidModel(obj, f"{field}[{i}]", f"expected {types.__name__}, got {type(item).__name__}")
    return items


def model_str_map(value: Any, obj: str, field: str) -> dict[str, str]:
    """attrs converter body: a ``str -> str`` mapping (labels, annotations, flavors)."""
    if not isinstance(value, Mapping):
        raise InvalidModel(obj, field, f"expected a mapping of str to str, got {type(value).__name__}")
    out: dict[str, str] = {}
    for k, v in value.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise InvalidModel(obj, f"{field}[{k!r}]", f"keys and values must be str, got {type(k).__name__}: {type(v).__name__}")
        out[k] = v
    return out


def model_int(value: Any, obj: str, field: str, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """An ``int`` (not a bool) within ``[minimum, maximum]``, else :class:`InvalidModel`."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidModel(obj, field, f"expected an int, got {type(value).__name__}")
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        lo = "" if minimum is None else f">= {minimum}"
        hi = "" if maximum is None else f"<= {maximum}"
        raise InvalidModel(obj, field, f"must be {' and '.join(x for x in (lo, hi) if x)}, got {value}")
    return value


def model_str(value: Any, obj: str, field: str, *, empty: bool = True) -> str:
    """A ``str`` (non-empty unless ``empty``), else :class:`InvalidModel`."""
    if not isinstance(value, str):
        raise InvalidModel(obj, field, f"expected a str, got {type(value).__name__}")
    if not empty and not value:
        raise InvalidModel(obj, field, "must not be empty")
    return value


def model_optional_str(value: Any, obj: str, field: str) -> str | None:
    """Like :func:`model_str`, accepting ``None`` (an unset optional name)."""
    return None if value is None else model_str(value, obj, field)


def model_bool(value: Any, obj: str, field: str) -> bool:
    """A real ``bool``: ``0``/``"false"`` would silently read as a switch position."""
    if not isinstance(value, bool):
        raise InvalidModel(obj, field, f"expected a bool, got {type(value).__name__}")
    return value


def model_instance(value: Any, types: type[T], obj: str, field: str) -> T:
    """``value`` if it is an instance of ``types``, else :class:`InvalidModel` (constructor fields)."""
    if not isinstance(value, types):
        raise InvalidModel(obj, field, f"expected {types.__name__}, got {type(value).__name__}")
    return value


def model_str_iterable(value: Any, obj: str, field: str) -> tuple[str, ...]:
    """A tuple of ``str`` from a list; a bare string is refused (it would become its characters)."""
    if isinstance(value, str):
        raise InvalidModel(obj, field, f"expected a list of strings, got the string {value[:32]!r}")
    return model_iterable(value, str, obj, field)


# attrs validators built from the checks above: the field's annotation keeps its type for mypy
# (a converter built by a factory would not), and the attribute supplies the field name.
Validator = Callable[[Any, Any, Any], None]


def str_field(obj: str, *, empty: bool = True) -> Validator:
    """An attrs validator: the field is a ``str`` (non-empty unless ``empty``)."""

    def check(inst: object, attr: Any, value: object) -> None:
        model_str(value, obj, attr.name, empty=empty)

    return check


def optional_str_field(obj: str) -> Validator:
    """An attrs validator: the field is ``None`` or a ``str``."""

    def check(inst: object, attr: Any, value: object) -> None:
        model_optional_str(value, obj, attr.name)

    return check


def bool_field(obj: str) -> Validator:
    """An attrs validator: the field is a real ``bool``."""

    def check(inst: object, attr: Any, value: object) -> None:
        model_bool(value, obj, attr.name)

    return check

"""Field validators shared by the model's value types (DM-2..DM-6); private to :mod:`kueue_preempt.model`."""

from __future__ import annotations

from typing import Any, Callable

import attrs

from kueue_preempt.errors import InvalidModel

_Validator = Callable[[Any, "attrs.Attribute[Any]", Any], None]


def _who(inst: object) -> str:
    """The object an error names: its kind, and its name (a workload's ``namespace/name``) once
    that is a string. Validators run after every field is set, so the name is readable."""
    kind = type(inst).__name__
    name = getattr(inst, "name", None)
    if not isinstance(name, str):
        return kind
    namespace = getattr(inst, "namespace", None) if kind == "Workload" else None
    return f"{kind} {namespace}/{name}" if isinstance(namespace, str) else f"{kind} {name!r}"


def _str(empty: bool = True) -> _Validator:
    """A field that must be a ``str`` (non-empty unless ``empty``): a list or a number as a name
    would never equal the name it was meant to be (DM-2..DM-6)."""

    def check(inst: object, attr: attrs.Attribute[Any], value: object) -> None:
        if type(value) is not str and not isinstance(value, str):
            raise InvalidModel(_who(inst), attr.name, f"expected a str, got {type(value).__name__}")
        if not empty and not value:
            raise InvalidModel(_who(inst), attr.name, "must not be empty")

    return check


def _bool(optional: bool = False) -> _Validator:
    """A real ``bool`` (``None`` too if ``optional``): ``"false"`` or ``1`` would read as a switch position."""

    def check(inst: object, attr: attrs.Attribute[Any], value: object) -> None:
        if not isinstance(value, bool) and not (optional and value is None):
            raise InvalidModel(_who(inst), attr.name, f"expected a bool{' or None' if optional else ''}, got {type(value).__name__}")

    return check


def _number() -> _Validator:
    """A finite ``int`` or ``float`` (not a bool): a string or NaN weight would fail only when
    compared, far from where it was given."""

    def check(inst: object, attr: attrs.Attribute[Any], value: object) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InvalidModel(_who(inst), attr.name, f"expected a number, got {type(value).__name__}")
        if value != value or value in (float("inf"), float("-inf")):
            raise InvalidModel(_who(inst), attr.name, f"must be finite, got {value!r}")

    return check

"""``--vary PATH=V1,V2,...`` and the combinations a sweep runs.

Combinations are the cartesian product in the order the ``--vary`` options were given, the
first varying slowest (like nested loops). Every combination is applied before anything
runs, so a bad value fails the whole sweep at once rather than after an hour of runs.
"""

from __future__ import annotations

import itertools
from typing import Iterable, Sequence

import attrs

from kueue_preempt.sweep.scenario import Scenario, SweepPath, SweepPathError, apply_value, parse_path

__all__ = ["Vary", "Combination", "parse_vary", "expand", "MAX_COMBINATIONS"]

MAX_COMBINATIONS = 10_000
"""More combinations than this is almost certainly a typo (and hours of runs): refused."""


def _values(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@attrs.frozen
class Vary:
    path: SweepPath
    values: tuple[str, ...] = attrs.field(converter=_values)


def parse_vary(text: str) -> Vary:
    """``PATH=V1,V2,...`` -> :class:`Vary` (values are stripped; empty values are refused)."""
    path_text, sep, values_text = text.partition("=")
    if not sep:
        raise SweepPathError(text, "expected PATH=V1,V2,...")
    path = parse_path(path_text.strip())
    values = [v.strip() for v in values_text.split(",")]
    if not values or any(v == "" for v in values):
        raise SweepPathError(path.text, f"expected comma-separated values, got {values_text!r}")
    if len(set(values)) != len(values):
        raise SweepPathError(path.text, "a value is listed twice")
    return Vary(path, values)


def _settings(value: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    return tuple(value)


@attrs.frozen
class Combination:
    """One point of the sweep: ``settings`` as (path, value) pairs and the resulting scenario."""

    index: int
    settings: tuple[tuple[str, str], ...] = attrs.field(converter=_settings)
    scenario: Scenario = attrs.field(eq=False, repr=False)


def expand(base: Scenario, varies: Sequence[Vary]) -> list[Combination]:
    """Every combination of the values, applied to ``base`` (which is not changed)."""
    paths = [v.path.text for v in varies]
    if len(set(paths)) != len(paths):
        raise SweepPathError(next(p for p in paths if paths.count(p) > 1), "is varied twice")
    total = 1
    for v in varies:
        total *= len(v.values)
    if total > MAX_COMBINATIONS:
        raise SweepPathError(", ".join(paths), f"{total} combinations (more than {MAX_COMBINATIONS})")
    out: list[Combination] = []
    for index, values in enumerate(itertools.product(*(v.values for v in varies))):
        scenario = base
        for vary, value in zip(varies, values):
            scenario = apply_value(scenario, vary.path, value)
        out.append(Combination(index, list(zip(paths, values)), scenario))
    return out

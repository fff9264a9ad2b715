"""A seeded generator of arrivals files: Poisson arrivals per class (``--generate``).

Each :class:`ArrivalClass` is a Poisson process (exponential inter-arrival times with mean
``1 / rate``) instantiating a template of the dump, with a priority and a size drawn uniformly
from its lists and a duration that is fixed or exponential around its mean. The classes are
merged by time (ties: class order). Every random number comes from ``random.Random`` seeded
per class from the spec's ``seed`` (so adding a class does not change the others' streams);
equal specs give byte-identical files. The seed only drives this generator: the simulation
itself has no randomness.

Spec file (JSON)::

    {"seed": 7, "horizon": 86400,
     "classes": [{"template": "team-a/train", "rate": 0.01, "name": "train",
                  "priorities": [10, 100], "queueName": "lq-a",
                  "sizes": [{"count": 1, "requests": {"cpu": "2"}}, {"count": 4}],
                  "duration": {"mean": 1800, "distribution": "exponential"}}]}

``horizon`` (seconds) and/or ``count`` (total arrivals) bound the output; one is required.
"""

from __future__ import annotations

import heapq
import json
import math
import os
import random
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt.errors import ConfigurationError
from kueue_preempt.io.read import DEFAULT_LIMITS, read_bytes
from kueue_preempt.io.text import MAX_SECONDS, MIN_RATE
from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.sim.arrivals.model import ArrivalRow, ArrivalsFile, PodSetOverride, WorkloadOverrides
from kueue_preempt.sim.arrivals.read import MAX_ARRIVAL_ROWS, pod_set_overrides
from kueue_preempt.sim.errors import ArrivalError
from kueue_preempt._util.checks import path_arg

__all__ = ["MAX_ARRIVALS", "ArrivalClass", "GeneratorSpec", "generate_arrivals", "parse_generator_spec", "load_generator_spec"]

_DISTRIBUTIONS = ("fixed", "exponential")
MAX_ARRIVALS = MAX_ARRIVAL_ROWS
"""Most arrivals a spec may ask for: what the arrivals reader reads back (a larger file could
be written but never simulated), about 450 MB once read and resolved."""
_RESOLUTION = 1000  # times and durations are rounded to milliseconds: readable files, exact round trips


def _ints(value: Iterable[int]) -> tuple[int, ...]:
    return tuple(value)


def _sizes(value: Iterable[PodSetOverride]) -> tuple[PodSetOverride, ...]:
    return tuple(value)


MAX_RATE = 1e9
"""Most arrivals per second of one class (times are rounded to milliseconds anyway)."""


def _positive(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ConfigurationError(f"{type(inst).__name__}.{attr.name}: must be a finite number > 0, got {value!r}")


def _rate(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    _positive(inst, attr, value)
    if not MIN_RATE <= value <= MAX_RATE:  # 1 / rate is a mean gap in seconds: at most MAX_SECONDS
        raise ConfigurationError(
            f"{type(inst).__name__}.{attr.name}: must be between {MIN_RATE:.3g} and {MAX_RATE:.3g} per second, got {value!r}"
        )


def _seconds(inst: object, attr: attrs.Attribute[float], value: float) -> None:
    _positive(inst, attr, value)
    if value > MAX_SECONDS:
        raise ConfigurationError(
            f"{type(inst).__name__}.{attr.name}: must be at most {MAX_SECONDS:.6g} seconds (about 292 years), got {value!r}"
        )


def _distribution(inst: object, attr: attrs.Attribute[str], value: str) -> None:
    if value not in _DISTRIBUTIONS:
        raise ConfigurationError(f"ArrivalClass.{attr.name}: must be one of {', '.join(_DISTRIBUTIONS)}, got {value!r}")


@attrs.frozen
class ArrivalClass:
    """One stream of arrivals: ``rate`` per second of ``template`` instances."""

    template: str
    rate: float = attrs.field(validator=_rate)
    duration: float = attrs.field(validator=_seconds)
    """Mean run time in seconds."""
    duration_distribution: str = attrs.field(default="exponential", validator=_distribution)
    name: str = ""
    """Name prefix of the generated workloads (default: the template's name)."""
    queue_name: str | None = None
    priorities: tuple[int, ...] = attrs.field(default=(), converter=_ints)
    """Drawn uniformly; empty keeps the template's priority."""
    sizes: tuple[PodSetOverride, ...] = attrs.field(default=(), converter=_sizes)
    """Pod-set overrides drawn uniformly; empty keeps the template's size."""


def _classes(value: Iterable[ArrivalClass]) -> tuple[ArrivalClass, ...]:
    return tuple(value)


@attrs.frozen
class GeneratorSpec:
    classes: tuple[ArrivalClass, ...] = attrs.field(converter=_classes)
    seed: int = 0
    horizon: float | None = None
    count: int | None = None

    def __attrs_post_init__(self) -> None:
        if not self.classes:
            raise ConfigurationError("GeneratorSpec.classes: at least one class is needed")
        if self.horizon is None and self.count is None:
            raise ConfigurationError("GeneratorSpec: give horizon (seconds) or count (arrivals), or both")
        if self.horizon is not None and (not math.isfinite(self.horizon) or not 0 <= self.horizon <= MAX_SECONDS):
            raise ConfigurationError(
                f"GeneratorSpec.horizon: must be a finite number >= 0 and at most {MAX_SECONDS:.6g} seconds, got {self.horizon!r}"
            )
        if self.count is not None and (isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 0):
            raise ConfigurationError(f"GeneratorSpec.count: must be an int >= 0, got {self.count!r:.40}")
        # Untrusted specs: refuse a file that would not fit in memory rather than try.
        expected = self.count if self.count is not None else 0
        if self.count is None and self.horizon is not None:
            expected = int(self.horizon * sum(c.rate for c in self.classes))
        elif self.horizon is not None:
            expected = min(expected, int(self.horizon * sum(c.rate for c in self.classes)))
        if expected > MAX_ARRIVALS:
            raise ConfigurationError(
                f"GeneratorSpec: about {expected:,} arrivals (horizon x rates or count); an arrivals file holds at most "
                f"{MAX_ARRIVALS:,} rows (docs/cli.md, Limits): lower count, horizon or the rates"
            )


def _ms(value: float) -> float:
    return round(value * _RESOLUTION) / _RESOLUTION


def generate_arrivals(spec: GeneratorSpec) -> ArrivalsFile:
    """The arrivals of ``spec``, in time order; deterministic per spec (seed included)."""
    streams = [random.Random(f"kueue-preempt/{spec.seed}/{i}") for i in range(len(spec.classes))]
    heap: list[tuple[float, int]] = []
    for i, cls in enumerate(spec.classes):
        heapq.heappush(heap, (_ms(streams[i].expovariate(cls.rate)), i))
    rows: list[ArrivalRow] = []
    # Every time an input may give is at most MAX_SECONDS, so a count-only spec of slow classes
    # stops there too (and a drawn duration is capped at it).
    horizon = MAX_SECONDS if spec.horizon is None else spec.horizon
    while heap:
        at, i = heapq.heappop(heap)
        if at > horizon:
            break
        if spec.count is not None and len(rows) >= spec.count:
            break
        if len(rows) >= MAX_ARRIVALS:  # a Poisson draw above the expected count, near the limit
            raise ConfigurationError(
                f"GeneratorSpec: the draw exceeds {MAX_ARRIVALS:,} arrivals, the most an arrivals file holds: "
                "give count, or lower horizon or the rates"
            )
        cls, rng = spec.classes[i], streams[i]
        priority = rng.choice(cls.priorities) if cls.priorities else None
        size = rng.choice(cls.sizes) if cls.sizes else None
        if cls.duration_distribution == "fixed":
            duration = cls.duration
        else:
            duration = rng.expovariate(1 / cls.duration)
        prefix = cls.name or cls.template.rsplit("/", 1)[-1]
        rows.append(
            ArrivalRow(
                at=at,
                duration=min(max(_ms(duration), 1 / _RESOLUTION), MAX_SECONDS),
                template=cls.template,
                overrides=WorkloadOverrides(
                    name=f"{prefix}-{len(rows) + 1:06d}",
                    queue_name=cls.queue_name,
                    priority=priority,
                    pod_sets=() if size is None else (size,),
                ),
            )
        )
        heapq.heappush(heap, (_ms(at + rng.expovariate(cls.rate)), i))
    return ArrivalsFile(rows=rows)


# --------------------------------------------------------------------------- spec files


def _fail(source: str, field: str, reason: str) -> ConfigurationError:
    return ConfigurationError(f"{source}: field {field!r}: {reason}")


def _class(source: str, i: int, raw: object) -> ArrivalClass:
    where = f"classes[{i}]"
    if not isinstance(raw, dict):
        raise _fail(source, where, "expected a mapping")
    allowed = ("template", "rate", "duration", "name", "queueName", "priorities", "sizes")
    for key in raw:
        if key not in allowed:
            raise _fail(source, f"{where}.{key}", f"unknown field (allowed: {', '.join(allowed)})")
    duration = raw.get("duration")
    if not isinstance(duration, dict):
        raise _fail(source, f"{where}.duration", 'expected {"mean": seconds, "distribution": "exponential"|"fixed"}')
    sizes: tuple[PodSetOverride, ...] = ()
    if raw.get("sizes") is not None:
        try:
            # Each size is one alternative for the template's pod sets, so names may repeat.
            sizes = pod_set_overrides(raw["sizes"], source=source, field=f"{where}.sizes")
        except ArrivalError as exc:
            raise _fail(source, exc.field, exc.reason) from None
    priorities = raw.get("priorities", [])
    if not isinstance(priorities, list) or any(isinstance(p, bool) or not isinstance(p, int) for p in priorities):
        raise _fail(source, f"{where}.priorities", "expected a list of integers")
    for j, p in enumerate(priorities):
        if not INT32_MIN <= p <= INT32_MAX:
            raise _fail(source, f"{where}.priorities[{j}]", f"must be an int32 (between {INT32_MIN} and {INT32_MAX})")
    for field, value in (("template", raw.get("template")), ("name", raw.get("name", "")), ("queueName", raw.get("queueName", ""))):
        if not isinstance(value, str):
            raise _fail(source, f"{where}.{field}", "expected a string")
    try:
        return ArrivalClass(
            template=raw["template"],
            rate=_float(raw.get("rate")),
            duration=_float(duration.get("mean")),
            duration_distribution=duration.get("distribution", "exponential"),
            name=raw.get("name", ""),
            queue_name=raw.get("queueName") or None,
            priorities=priorities,
            sizes=sizes,
        )
    except ConfigurationError as exc:
        raise ConfigurationError(f"{source}: {where}: {exc}") from None


def _float(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return math.nan  # rejected by the validators with the field's name
    try:
        return float(value)
    except OverflowError:  # an integer of hundreds of digits: out of every range, refused by name
        return math.inf


def parse_generator_spec(data: Mapping[str, Any], *, source: str = "<spec>") -> GeneratorSpec:
    """A :class:`GeneratorSpec` from its JSON form; :class:`ConfigurationError` naming the field."""
    allowed = ("seed", "horizon", "count", "classes")
    for key in data:
        if key not in allowed:
            raise _fail(source, key, f"unknown field (allowed: {', '.join(allowed)})")
    classes = data.get("classes")
    if not isinstance(classes, list):
        raise _fail(source, "classes", "expected a list of classes")
    seed = data.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise _fail(source, "seed", "expected an integer")
    horizon = data.get("horizon")
    count = data.get("count")
    if count is not None and (isinstance(count, bool) or not isinstance(count, int)):
        raise _fail(source, "count", "expected an integer")
    parsed = [_class(source, i, c) for i, c in enumerate(classes)]
    try:
        return GeneratorSpec(classes=parsed, seed=seed, horizon=None if horizon is None else _float(horizon), count=count)
    except ConfigurationError as exc:
        raise ConfigurationError(f"{source}: {exc}") from None


def _json_int(text: str) -> int:
    if len(text) > 1000:  # int() refuses more than 4,300 digits with a message about Python itself
        raise ValueError(f"an integer with {len(text)} digits is too long (at most 1000)")
    return int(text)


def load_generator_spec(path: str | os.PathLike[str]) -> GeneratorSpec:
    name = path_arg(path, "load_generator_spec", "path")
    try:
        data = json.loads(read_bytes(path, DEFAULT_LIMITS).decode("utf-8"), parse_int=_json_int)
    except (ValueError, RecursionError) as exc:
        raise ConfigurationError(f"{name}: not a JSON generator spec: {str(exc).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ConfigurationError(f"{name}: expected a JSON object")
    return parse_generator_spec(data, source=name)

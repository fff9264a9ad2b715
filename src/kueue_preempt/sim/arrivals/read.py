"""Reading arrivals files: JSON Lines or the simple CSV form, one row at a time.

Each row is checked on its own (types, ranges, quantities, unknown fields); a bad one raises
:class:`~kueue_preempt.sim.errors.ArrivalError` naming the file, the line and the field. Rows
are checked against the dump afterwards, by :mod:`~kueue_preempt.sim.arrivals.resolve`. The
format is described in :mod:`~kueue_preempt.sim.arrivals.model` and ``docs/simulation.md``.
"""

from __future__ import annotations

import csv
import io as _io
import math
import os
import re
from decimal import Decimal
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt._util.checks import path_arg, text_arg
from kueue_preempt.model.quantity import INT32_MAX, INT32_MIN
from kueue_preempt.errors import InvalidQuantity, KueuePreemptError
from kueue_preempt.io import LoadedWorkload, ManifestError
from kueue_preempt.io.cycle_state import cluster_state_from_objects
from kueue_preempt.io.jobs import JobWorkload, is_job, read_job
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, RawObject, read_bytes
from kueue_preempt.io.text import NumberTextError, check_seconds, int_text, shown
from kueue_preempt.model.quantity import request_amount
from kueue_preempt.sim.jsonl import JsonLineError, json_lines, number
from kueue_preempt.sim.arrivals.model import ArrivalRow, ArrivalsFile, PodSetOverride, RunningRow, WorkloadOverrides
from kueue_preempt.sim.errors import ArrivalError

__all__ = ["MAX_ARRIVAL_ROWS", "parse_arrivals", "parse_arrivals_csv", "load_arrivals", "pod_set_overrides"]

MAX_ARRIVAL_ROWS = 200_000
"""Most rows (arrivals and ``running`` rows) one arrivals file may hold. Reading and resolving
keep every row and its pending workload in memory, about 2.2 KB per row (tracemalloc peak of
``parse_arrivals`` + ``resolve_arrivals``), so the cap bounds that to about 450 MB; the
generator refuses a spec that would write more (docs/cli.md, "Limits")."""

_INT32 = (INT32_MIN, INT32_MAX)
_ARRIVAL_KEYS = ("at", "duration", "template", "workload", "name", "queueName", "priority",
                 "priorityClassName", "podSets", "annotations")
_OVERRIDE_KEYS = ("name", "queueName", "priority", "priorityClassName", "podSets", "annotations")
_RUNNING_KEYS = ("running", "remaining")
_POD_SET_KEYS = ("name", "count", "requests")


class _Row:
    """One row's fields with error messages that name the file, line and field."""

    def __init__(self, source: str, line: int, data: Mapping[str, Any]) -> None:
        self.source = source
        self.line = line
        self.data = data

    def fail(self, field: str, reason: str) -> ArrivalError:
        return ArrivalError(self.source, self.line, field, reason)

    def check_keys(self, allowed: tuple[str, ...], where: str = "", data: Mapping[str, Any] | None = None) -> None:
        for key in (self.data if data is None else data):
            if key not in allowed:
                raise self.fail(f"{where}{key}", f"unknown field (allowed: {', '.join(allowed)})")

    def seconds(self, field: str, *, positive: bool) -> float:
        raw = self.data.get(field)
        if raw is None:
            raise self.fail(field, "required field is missing")
        value = number(raw)
        if value is None or not math.isfinite(value):
            raise self.fail(field, f"expected a finite number of seconds, got {_show(raw)}")
        if value < 0 or (positive and value == 0):
            raise self.fail(field, f"must be {'> 0' if positive else '>= 0'}, got {_show(raw)}")
        try:
            return check_seconds(value, positive=positive)
        except NumberTextError as exc:
            raise self.fail(field, exc.reason) from None

    def string(self, field: str, value: object) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(field, f"expected a non-empty string, got {_show(value)}")
        if len(value) > 253 or any(c.isspace() or ord(c) < 32 for c in value):
            raise self.fail(field, f"{value[:40]!r} is not a valid name")
        return value

    def optional_string(self, field: str) -> str | None:
        value = self.data.get(field)
        return None if value is None else self.string(field, value)

    def integer(self, field: str, value: object, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, Decimal) and value.is_finite() and value == value.to_integral_value():
                if not low <= value <= high:  # compared as a Decimal: int() of 1e999999999 would not end
                    raise self.fail(field, f"must be between {low} and {high}, got {value}")
                value = int(value)
            elif isinstance(value, str):
                try:  # ASCII digits only, range-checked before int() sees thousands of digits
                    value = int_text(value, low=low, high=high)
                except NumberTextError as exc:
                    raise self.fail(field, f"expected an integer: {exc.reason}") from None
            else:
                raise self.fail(field, f"expected an integer, got {_show(value)}")
        assert isinstance(value, int)
        if not low <= value <= high:
            raise self.fail(field, f"must be between {low} and {high}, got {value}")
        return value


def _show(value: object) -> str:
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return str(value)


def pod_set_overrides(raw: object, *, source: str = "", line: int = 0, field: str = "podSets") -> tuple[PodSetOverride, ...]:
    """Parse a ``podSets`` override list (``name``, ``count``, ``requests``); errors are
    :class:`ArrivalError` naming ``field`` (the generator spec reuses this for its sizes)."""
    return _pod_sets(_Row(source, line, {}), raw, field)


def _pod_sets(row: _Row, raw: object, field: str = "podSets") -> tuple[PodSetOverride, ...]:
    if not isinstance(raw, list) or not raw:
        raise row.fail(field, f"expected a non-empty list, got {_show(raw)}")
    out: list[PodSetOverride] = []
    for i, item in enumerate(raw):
        where = f"{field}[{i}]"
        if not isinstance(item, dict):
            raise row.fail(where, f"expected a mapping, got {_show(item)}")
        row.check_keys(_POD_SET_KEYS, f"{where}.", item)
        name = None if item.get("name") is None else row.string(f"{where}.name", item["name"])
        count = None if item.get("count") is None else row.integer(f"{where}.count", item["count"], 0, _INT32[1])
        requests = _requests(row, f"{where}.requests", item.get("requests", {}))
        out.append(PodSetOverride(name=name, count=count, requests=requests))
    if len(out) > 1 and any(ps.name is None for ps in out) and field == "podSets":
        raise row.fail(field, "with several pod sets, each needs a name")
    names = [ps.name for ps in out]
    if field == "podSets" and len(set(names)) != len(names):
        raise row.fail(field, "a pod set is listed twice")
    return tuple(out)


def _requests(row: _Row, where: str, raw: object) -> dict[str, int]:
    if not isinstance(raw, dict):
        raise row.fail(where, f"expected a mapping of resource to quantity, got {_show(raw)}")
    out: dict[str, int] = {}
    for resource, value in raw.items():
        field = f"{where}.{resource}"
        if isinstance(value, bool) or not isinstance(value, (str, int, Decimal)):
            raise row.fail(field, f"expected a quantity, got {_show(value)}")
        text = str(value) if not isinstance(value, str) else value
        try:
            amount = request_amount(text, resource)
        except InvalidQuantity as exc:
            raise row.fail(field, f"invalid quantity {_show(text)}: {exc.reason}") from None
        if amount < 0:
            raise row.fail(field, f"must not be negative, got {_show(text)}")
        out[resource] = amount
    return out


def _annotations(row: _Row, raw: object) -> dict[str, str]:
    if not isinstance(raw, dict):
        raise row.fail("annotations", f"expected a mapping of strings, got {_show(raw)}")
    for key, value in raw.items():
        if not isinstance(value, str):
            raise row.fail(f"annotations.{key}", f"expected a string, got {_show(value)}")
    return dict(raw)


def _overrides(row: _Row) -> WorkloadOverrides:
    d = row.data
    priority = None if d.get("priority") is None else row.integer("priority", d["priority"], *_INT32)
    class_name = row.optional_string("priorityClassName")
    if priority is not None and class_name is not None:
        raise row.fail("priorityClassName", "give either priority or priorityClassName, not both")
    return WorkloadOverrides(
        name=row.optional_string("name"),
        queue_name=row.optional_string("queueName"),
        priority=priority,
        priority_class_name=class_name,
        pod_sets=() if d.get("podSets") is None else _pod_sets(row, d["podSets"]),
        annotations={} if d.get("annotations") is None else _annotations(row, d["annotations"]),
    )


def _job(row: _Row, raw: dict[str, Any]) -> JobWorkload:
    """A Job, JobSet or Pod, read on its own; its queue and priority are resolved against the dump."""
    try:
        return read_job(RawObject(row.source, row.line, raw))
    except ManifestError as exc:
        raise row.fail("workload" + (f".{exc.path}" if exc.path else ""), exc.reason) from None
    except KueuePreemptError as exc:
        raise row.fail("workload", str(exc)) from None


def _manifest(row: _Row, raw: object) -> LoadedWorkload:
    if not isinstance(raw, dict):
        raise row.fail("workload", f"expected a Workload manifest (a mapping), got {_show(raw)}")
    if raw.get("kind") != "Workload":
        raise row.fail("workload.kind", f"expected 'Workload', 'Job', 'JobSet' or 'Pod', got {_show(raw.get('kind'))}")
    try:
        # Through the cycle's reader: it also keeps the pod sets' scheduling fields
        # (minCount, nodeSelector, tolerations) that flavor assignment reads.
        state, dump = cluster_state_from_objects([RawObject(row.source, row.line, raw)])
    except ManifestError as exc:
        raise row.fail("workload" + (f".{exc.path}" if exc.path else ""), exc.reason) from None
    except KueuePreemptError as exc:
        raise row.fail("workload", str(exc)) from None
    return attrs.evolve(dump.workloads[0], workload=state.workloads[0])


def _arrival_row(row: _Row) -> ArrivalRow:
    row.check_keys(_ARRIVAL_KEYS)
    at = row.seconds("at", positive=False)
    duration = row.seconds("duration", positive=True)
    has_template = row.data.get("template") is not None
    has_workload = row.data.get("workload") is not None
    if has_template == has_workload:
        raise row.fail("template", "give exactly one of template (a Workload of the dump) or workload (a manifest)")
    if has_workload:
        for key in _OVERRIDE_KEYS:
            if row.data.get(key) is not None:
                raise row.fail(key, "overrides apply to template rows; edit the workload manifest instead")
        raw = row.data["workload"]
        if isinstance(raw, dict) and is_job(RawObject(row.source, row.line, raw)):
            job = _job(row, raw)
            return ArrivalRow(at=at, duration=duration, workload=job.workload, line=row.line, job=job, job_manifest=raw)
        return ArrivalRow(at=at, duration=duration, workload=_manifest(row, raw), line=row.line)
    template = row.string("template", row.data["template"])
    return ArrivalRow(at=at, duration=duration, template=template, overrides=_overrides(row), line=row.line)


def _running_row(row: _Row) -> RunningRow:
    row.check_keys(_RUNNING_KEYS)
    key = row.string("running", row.data.get("running"))
    if key.count("/") != 1:
        raise row.fail("running", f"expected NAMESPACE/NAME, got {key!r}")
    return RunningRow(workload=key, remaining=row.seconds("remaining", positive=True), line=row.line)


def _file(source: str, rows: Iterable[_Row]) -> ArrivalsFile:
    arrivals: list[ArrivalRow] = []
    running: list[RunningRow] = []
    for count, row in enumerate(rows, start=1):
        if count > MAX_ARRIVAL_ROWS:
            raise ArrivalError(
                source, row.line, "", f"more than {MAX_ARRIVAL_ROWS:,} rows, the limit of one arrivals file (about 450 MB once resolved)"
            )
        if "running" in row.data:
            running.append(_running_row(row))
        else:
            arrivals.append(_arrival_row(row))
    return ArrivalsFile(rows=arrivals, running=running, source=source)


def parse_arrivals(text: str, *, source: str = "<arrivals>") -> ArrivalsFile:
    """Parse JSON Lines text: one JSON object per line; blank lines and ``#`` comments skipped."""
    text = str(text_arg(text, "parse_arrivals", "text", binary=False))

    def rows() -> Iterable[_Row]:
        try:
            for line, data in json_lines(text):
                yield _Row(source, line, data)
        except JsonLineError as exc:
            raise ArrivalError(source, exc.line, "", exc.reason) from None

    return _file(source, rows())


_CSV_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_MAX_CELL_NUMBER = 1000  # characters, as for a number in a dump
_CSV_PLAIN = ("at", "duration", "template", "name", "queueName", "priority", "priorityClassName", "count", "podSet")
_CSV_PREFIXES = ("requests.", "annotations.")


def parse_arrivals_csv(text: str, *, source: str = "<arrivals>") -> ArrivalsFile:
    """Parse the simple CSV form: a header, then one template arrival per line.

    Columns: ``at``, ``duration``, ``template`` (required), ``name``, ``queueName``,
    ``priority``, ``priorityClassName``, ``count`` and ``requests.RESOURCE`` (applied to
    the pod set ``podSet``, default the template's only one), ``annotations.KEY``. An empty
    cell keeps the template's value.
    """
    text = str(text_arg(text, "parse_arrivals_csv", "text", binary=False))
    reader = csv.reader(_io.StringIO(text))
    try:
        header = next(reader)
    except StopIteration:
        return ArrivalsFile(source=source)
    except csv.Error as exc:
        raise ArrivalError(source, 1, "", f"CSV error: {exc}") from None
    header = [h.strip() for h in header]
    for column in header:
        if column not in _CSV_PLAIN and not (column.startswith(_CSV_PREFIXES) and "." in column[:-1]):
            raise ArrivalError(source, 1, column, "unknown column (see docs/simulation.md for the CSV columns)")
    if len(set(header)) != len(header):
        raise ArrivalError(source, 1, "", "a column is listed twice")

    def rows() -> Iterable[_Row]:
        try:
            for cells in reader:
                line = reader.line_num
                if not any(c.strip() for c in cells):
                    continue
                if len(cells) != len(header):
                    raise ArrivalError(source, line, "", f"expected {len(header)} cells, got {len(cells)}")
                yield _Row(source, line, _csv_row(source, line, dict(zip(header, (c.strip() for c in cells)))))
        except csv.Error as exc:
            raise ArrivalError(source, reader.line_num, "", f"CSV error: {exc}") from None

    return _file(source, rows())


def _csv_row(source: str, line: int, cells: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pod_set: dict[str, Any] = {}
    requests: dict[str, str] = {}
    annotations: dict[str, str] = {}
    for column, cell in cells.items():
        if cell == "":
            continue
        if column in ("at", "duration"):
            # Decimal() alone would take "sNaN", "٣" and "1_0"; the grammar is JSON's number.
            if len(cell) > _MAX_CELL_NUMBER or not _CSV_NUMBER.fullmatch(cell):
                raise ArrivalError(source, line, column, f"expected a number of seconds, got {shown(cell)}")
            out[column] = Decimal(cell)
        elif column == "count":
            pod_set["count"] = cell
        elif column == "podSet":
            pod_set["name"] = cell
        elif column.startswith("requests."):
            requests[column.split(".", 1)[1]] = cell
        elif column.startswith("annotations."):
            annotations[column.split(".", 1)[1]] = cell
        else:
            out[column] = cell
    if requests:
        pod_set["requests"] = requests
    if pod_set:
        out["podSets"] = [pod_set]
    if annotations:
        out["annotations"] = annotations
    return out


def load_arrivals(path: str | os.PathLike[str], *, limits: Limits = DEFAULT_LIMITS) -> ArrivalsFile:
    """Read an arrivals file (``"-"`` is standard input): CSV if its name ends in ``.csv``,
    JSON Lines otherwise. Size is bounded by ``limits.max_bytes``."""
    name = path_arg(path, "load_arrivals", "path")
    name = "<stdin>" if name == "-" else name
    data = read_bytes(path, limits)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArrivalError(name, data[: exc.start].count(b"\n") + 1, "", "not UTF-8 text") from None
    if name.lower().endswith(".csv"):
        return parse_arrivals_csv(text, source=name)
    return parse_arrivals(text, source=name)

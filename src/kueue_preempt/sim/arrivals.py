"""Arrivals: the workloads a simulation feeds in over time, read from JSONL or CSV.

One row per arrival (``docs/simulation.md`` has the full format)::

    {"at": 0, "duration": 600, "template": "team-a/train", "name": "job-1", "priority": 100,
     "podSets": [{"count": 4, "requests": {"cpu": "2"}}]}
    {"at": 30, "duration": 60, "workload": {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", ...}}
    {"running": "team-b/etl", "remaining": 120}

* ``at`` (seconds from the start, >= 0) and ``duration`` (seconds of run time once admitted,
  > 0; SC-SIM-6) are required on an arrival row.
* The workload is either a full Workload manifest (``workload``) or ``template``: the
  ``NAMESPACE/NAME`` (or a unique ``NAME``) of a Workload in the dump, with overrides
  ``name``, ``queueName``, ``priority`` *or* ``priorityClassName``, ``podSets`` (``name``,
  ``count``, ``requests``) and ``annotations``.
* A ``running`` row gives the ``remaining`` run time of a workload the dump shows admitted;
  without one it runs until the end of the simulation (SC-SIM-13 item 2).

Reading is two steps: :func:`parse_arrivals` / :func:`load_arrivals` check each row on its own
(an :class:`ArrivalsFile`), :func:`resolve_arrivals` checks them against a
:class:`~kueue_preempt.io.ClusterDump` and builds the pending workloads (:class:`Arrivals`).
Any bad row raises :class:`~kueue_preempt.sim.errors.ArrivalError` naming the file, line and
field, so nothing is simulated from a half-read file. :func:`arrivals_text` writes a file back.
"""

from __future__ import annotations

import csv
import io as _io
import json
import math
import os
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any, Iterable, Mapping

import attrs

from .._frozen import FrozenMap, frozen_map
from ..errors import InvalidQuantity, KueuePreemptError
from ..io import ClusterDump, LoadedWorkload, ManifestError, PodSetRequests
from ..io.cycle_state import cluster_state_from_objects
from ..io._format import quantity_text
from ..io.dump import resolve_priorities
from ..io.read import DEFAULT_LIMITS, Limits, RawObject, read_bytes
from ..io.write import workload_manifest
from ..model import PriorityClassRef
from ..quantity import request_amount
from ._jsonl import JsonLineError, json_lines, number
from .errors import ArrivalError

__all__ = [
    "PodSetOverride",
    "WorkloadOverrides",
    "ArrivalRow",
    "RunningRow",
    "ArrivalsFile",
    "Arrival",
    "Arrivals",
    "SIM_START",
    "parse_arrivals",
    "parse_arrivals_csv",
    "load_arrivals",
    "resolve_arrivals",
    "arrivals_text",
    "write_arrivals",
    "pod_set_overrides",
]

SIM_START = datetime.fromisoformat("2026-01-01T00:00:00+00:00")
"""Default wall-clock time of simulated second 0 (creation times are derived from it)."""

_INT32 = (-(2**31), 2**31 - 1)
_ARRIVAL_KEYS = ("at", "duration", "template", "workload", "name", "queueName", "priority",
                 "priorityClassName", "podSets", "annotations")
_OVERRIDE_KEYS = ("name", "queueName", "priority", "priorityClassName", "podSets", "annotations")
_RUNNING_KEYS = ("running", "remaining")
_POD_SET_KEYS = ("name", "count", "requests")


def _amounts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    return frozen_map(value)


def _strings(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return frozen_map(value)


@attrs.frozen
class PodSetOverride:
    """Changes to one pod set of a template: ``name`` ``None`` means the template's only pod set."""

    name: str | None = None
    count: int | None = None
    requests: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    """Per-pod request amounts (Q-1) that replace the template's for these resources."""


def _pod_set_overrides(value: Iterable[PodSetOverride]) -> tuple[PodSetOverride, ...]:
    return tuple(value)


@attrs.frozen
class WorkloadOverrides:
    """What a template row changes; ``None`` / empty keeps the template's value."""

    name: str | None = None
    queue_name: str | None = None
    priority: int | None = None
    priority_class_name: str | None = None
    pod_sets: tuple[PodSetOverride, ...] = attrs.field(default=(), converter=_pod_set_overrides)
    annotations: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_strings)


@attrs.frozen
class ArrivalRow:
    """One arrival as written in the file: a ``template`` with ``overrides``, or a full
    ``workload`` manifest (already parsed)."""

    at: float
    duration: float
    template: str | None = None
    workload: LoadedWorkload | None = None
    overrides: WorkloadOverrides = attrs.field(factory=WorkloadOverrides)
    line: int = attrs.field(default=0, eq=False)


@attrs.frozen
class RunningRow:
    """``workload`` (``NAMESPACE/NAME``, admitted in the dump) finishes after ``remaining`` seconds."""

    workload: str
    remaining: float
    line: int = attrs.field(default=0, eq=False)


def _rows(value: Iterable[ArrivalRow]) -> tuple[ArrivalRow, ...]:
    return tuple(value)


def _running(value: Iterable[RunningRow]) -> tuple[RunningRow, ...]:
    return tuple(value)


@attrs.frozen
class ArrivalsFile:
    """The rows of an arrivals file, in file order, each checked on its own."""

    rows: tuple[ArrivalRow, ...] = attrs.field(default=(), converter=_rows)
    running: tuple[RunningRow, ...] = attrs.field(default=(), converter=_running)
    source: str = attrs.field(default="", eq=False)


@attrs.frozen
class Arrival:
    """A resolved arrival: a pending workload (uid in arrival order, creation time = arrival
    time, SC-SIM-13 item 7) queued for ``cluster_queue``, arriving ``at`` seconds after the
    start and running ``duration`` seconds once admitted."""

    at: float
    duration: float
    workload: LoadedWorkload
    cluster_queue: str
    template: str | None = None
    """``NAMESPACE/NAME`` of the dump workload it was made from (``None``: a full manifest)."""
    line: int = attrs.field(default=0, eq=False)

    @property
    def key(self) -> str:
        return self.workload.key


def _arrivals(value: Iterable[Arrival]) -> tuple[Arrival, ...]:
    return tuple(value)


def _floats(value: Mapping[str, float]) -> FrozenMap[str, float]:
    return frozen_map(value)


@attrs.frozen
class Arrivals:
    """Everything a simulation needs from an arrivals file, checked against the dump.

    ``arrivals`` are in arrival order (by ``at``; equal times keep file order, SC-T-2);
    ``remaining`` maps admitted dump workloads to their remaining run time.
    """

    arrivals: tuple[Arrival, ...] = attrs.field(default=(), converter=_arrivals)
    remaining: FrozenMap[str, float] = attrs.field(factory=FrozenMap, converter=_floats)
    start: datetime = SIM_START


# --------------------------------------------------------------------------- row parsing


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
        return value

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
            if isinstance(value, Decimal) and value == value.to_integral_value():
                value = int(value)
            elif isinstance(value, str) and value.strip().lstrip("+-").isdigit():
                value = int(value)
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


def _manifest(row: _Row, raw: object) -> LoadedWorkload:
    if not isinstance(raw, dict):
        raise row.fail("workload", f"expected a Workload manifest (a mapping), got {_show(raw)}")
    if raw.get("kind") != "Workload":
        raise row.fail("workload.kind", f"expected 'Workload', got {_show(raw.get('kind'))}")
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
        return ArrivalRow(at=at, duration=duration, workload=_manifest(row, row.data["workload"]), line=row.line)
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
    for row in rows:
        if "running" in row.data:
            running.append(_running_row(row))
        else:
            arrivals.append(_arrival_row(row))
    return ArrivalsFile(rows=arrivals, running=running, source=source)


def parse_arrivals(text: str, *, source: str = "<arrivals>") -> ArrivalsFile:
    """Parse JSON Lines text: one JSON object per line; blank lines and ``#`` comments skipped."""

    def rows() -> Iterable[_Row]:
        try:
            for line, data in json_lines(text):
                yield _Row(source, line, data)
        except JsonLineError as exc:
            raise ArrivalError(source, exc.line, "", exc.reason) from None

    return _file(source, rows())


_CSV_PLAIN = ("at", "duration", "template", "name", "queueName", "priority", "priorityClassName", "count", "podSet")
_CSV_PREFIXES = ("requests.", "annotations.")


def parse_arrivals_csv(text: str, *, source: str = "<arrivals>") -> ArrivalsFile:
    """Parse the simple CSV form: a header, then one template arrival per line.

    Columns: ``at``, ``duration``, ``template`` (required), ``name``, ``queueName``,
    ``priority``, ``priorityClassName``, ``count`` and ``requests.RESOURCE`` (applied to
    the pod set ``podSet``, default the template's only one), ``annotations.KEY``. An empty
    cell keeps the template's value.
    """
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
            try:
                out[column] = Decimal(cell)
            except ArithmeticError:
                raise ArrivalError(source, line, column, f"expected a number of seconds, got {cell!r}") from None
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
    name = "<stdin>" if os.fspath(path) == "-" else os.fspath(path)
    data = read_bytes(path, limits)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ArrivalError(name, data[: exc.start].count(b"\n") + 1, "", "not UTF-8 text") from None
    if name.lower().endswith(".csv"):
        return parse_arrivals_csv(text, source=name)
    return parse_arrivals(text, source=name)


# --------------------------------------------------------------------------- resolving


def _template(dump: ClusterDump, row: ArrivalRow, source: str) -> LoadedWorkload:
    assert row.template is not None
    ref = row.template
    if "/" in ref:
        found = [lw for lw in dump.workloads if lw.key == ref]
    else:
        found = [lw for lw in dump.workloads if lw.workload.name == ref]
    if not found:
        raise ArrivalError(source, row.line, "template", f"no Workload {ref!r} in the dump")
    if len(found) > 1:
        keys = ", ".join(lw.key for lw in found[:3])
        raise ArrivalError(source, row.line, "template", f"{ref!r} is ambiguous ({keys}); use NAMESPACE/NAME")
    return found[0]


def _apply_pod_sets(
    pod_sets: tuple[PodSetRequests, ...], overrides: tuple[PodSetOverride, ...], source: str, line: int
) -> tuple[PodSetRequests, ...]:
    by_name = {ps.name: ps for ps in pod_sets}
    out = dict(by_name)
    for i, o in enumerate(overrides):
        if o.name is None:
            if len(pod_sets) != 1:
                raise ArrivalError(source, line, f"podSets[{i}].name", f"the template has {len(pod_sets)} pod sets; name one")
            name = pod_sets[0].name
        else:
            name = o.name
        if name not in by_name:
            raise ArrivalError(
                source, line, f"podSets[{i}].name", f"the template has no pod set {name!r} (it has {', '.join(by_name)})"
            )
        base = out[name]
        out[name] = PodSetRequests(
            name=name,
            count=base.count if o.count is None else o.count,
            requests={**base.requests, **o.requests},
        )
    return tuple(out[ps.name] for ps in pod_sets)


def _instantiate(dump: ClusterDump, row: ArrivalRow, index: int, source: str) -> tuple[LoadedWorkload, str | None]:
    """The row's workload as a fresh pending object (status dropped: it has not run yet), and
    the key of its template."""
    template: str | None = None
    if row.workload is not None:
        lw = row.workload
        if not lw.is_pending:
            raise ArrivalError(source, row.line, "workload", f"an arriving workload must be pending, but it {lw.state}")
        w = lw.workload
        pod_sets = lw.pod_sets
    else:
        lw = _template(dump, row, source)
        template = lw.key
        o = row.overrides
        w = lw.workload
        name = o.name if o.name is not None else f"{w.name}-{index}"
        class_ref = w.priority_class
        priority = w.priority
        if o.priority is not None:
            priority = o.priority
        elif o.priority_class_name is not None:
            class_ref, priority = _priority_class(dump, o.priority_class_name, source, row.line)
        w = attrs.evolve(
            w,
            name=name,
            local_queue=o.queue_name if o.queue_name is not None else w.local_queue,
            priority=priority,
            priority_class=class_ref,
            annotations={**w.annotations, **o.annotations},
        )
        pod_sets = _apply_pod_sets(lw.pod_sets, o.pod_sets, source, row.line)
    fresh = attrs.evolve(
        w,
        uid="",
        cluster_queue="",
        creation_time=None,
        quota_reserved_at=None,
        evicted=False,
        conditions=(),
        pod_sets=(),
        evictions=(),
        preemption_cost=None,
        local_queue_fs_usage=None,
    )
    return LoadedWorkload(workload=fresh, pod_sets=pod_sets, active=True), template


def _priority_class(dump: ClusterDump, name: str, source: str, line: int) -> tuple[PriorityClassRef, int]:
    for wpc in dump.workload_priority_classes:
        if wpc.name == name:
            return PriorityClassRef(name=name), wpc.value
    for pc in dump.priority_classes:
        if pc.name == name:
            return PriorityClassRef(name=name, kind="PriorityClass", group="scheduling.k8s.io"), pc.value
    raise ArrivalError(
        source, line, "priorityClassName", f"no WorkloadPriorityClass or PriorityClass {name!r} in the dump"
    )


def resolve_arrivals(file: ArrivalsFile, dump: ClusterDump, *, start: datetime = SIM_START) -> Arrivals:
    """Check every row against ``dump`` and build the pending workloads.

    Each arrival gets a uid in arrival order (``sim-00000001``...) and its arrival time as
    creation time (SC-SIM-13 item 7, SC-T-4). Errors (unknown template, LocalQueue or
    priority class, a name used twice or already in the dump, a ``running`` row for a
    workload that is not admitted) raise :class:`ArrivalError` for the first bad row.
    """
    source = file.source
    taken = {lw.key for lw in dump.workloads}
    resolved: list[tuple[ArrivalRow, LoadedWorkload, str, str | None]] = []
    for index, row in enumerate(file.rows, start=1):
        lw, template = _instantiate(dump, row, index, source)
        field = "name" if row.workload is None else "workload.metadata.name"
        if lw.key in taken:
            where = "the dump" if any(d.key == lw.key for d in dump.workloads) else "an earlier row"
            raise ArrivalError(source, row.line, field, f"Workload {lw.key} already exists in {where}")
        taken.add(lw.key)
        field = "queueName" if row.workload is None else "workload.spec.queueName"
        try:
            cluster_queue = dump.cluster_queue_for(lw)
        except ManifestError as exc:
            raise ArrivalError(source, row.line, field, exc.reason) from None
        resolved.append((row, lw, cluster_queue, template))
    resolved.sort(key=lambda item: item[0].at)  # stable: equal times keep file order (SC-T-2)
    arrivals: list[Arrival] = []
    for seq, (row, lw, cluster_queue, template) in enumerate(resolved, start=1):
        w = attrs.evolve(lw.workload, uid=f"sim-{seq:08d}", creation_time=start + timedelta(seconds=row.at))
        (w_resolved,) = resolve_priorities([attrs.evolve(lw, workload=w)], dump.workload_priority_classes, dump.priority_classes)
        arrivals.append(Arrival(row.at, row.duration, w_resolved, cluster_queue, template, line=row.line))
    remaining: dict[str, float] = {}
    for r in file.running:
        found = next((lw for lw in dump.workloads if lw.key == r.workload), None)
        if found is None:
            raise ArrivalError(source, r.line, "running", f"no Workload {r.workload!r} in the dump")
        if not found.holds_quota:
            raise ArrivalError(source, r.line, "running", f"Workload {r.workload} is not admitted: it {found.state}")
        if r.workload in remaining:
            raise ArrivalError(source, r.line, "running", f"Workload {r.workload} has a running row already")
        remaining[r.workload] = r.remaining
    return Arrivals(arrivals=arrivals, remaining=remaining, start=start)


# --------------------------------------------------------------------------- writing


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _row_json(row: ArrivalRow) -> dict[str, Any]:
    out: dict[str, Any] = {"at": _num(row.at), "duration": _num(row.duration)}
    if row.workload is not None:
        out["workload"] = workload_manifest(row.workload)
        return out
    out["template"] = row.template
    o = row.overrides
    for key, value in (
        ("name", o.name),
        ("queueName", o.queue_name),
        ("priority", o.priority),
        ("priorityClassName", o.priority_class_name),
    ):
        if value is not None:
            out[key] = value
    if o.pod_sets:
        pod_sets = []
        for ps in o.pod_sets:
            item: dict[str, Any] = {}
            if ps.name is not None:
                item["name"] = ps.name
            if ps.count is not None:
                item["count"] = ps.count
            if ps.requests:
                item["requests"] = {r: quantity_text(v, r) for r, v in ps.requests.items()}
            pod_sets.append(item)
        out["podSets"] = pod_sets
    if o.annotations:
        out["annotations"] = dict(o.annotations)
    return out


def arrivals_text(file: ArrivalsFile) -> str:
    """The file as JSON Lines (arrival rows first, then ``running`` rows); reads back equal."""
    lines = [json.dumps(_row_json(row), sort_keys=False, separators=(",", ":")) for row in file.rows]
    lines += [
        json.dumps({"running": r.workload, "remaining": _num(r.remaining)}, separators=(",", ":")) for r in file.running
    ]
    return "".join(line + "\n" for line in lines)


def write_arrivals(file: ArrivalsFile, path: str | os.PathLike[str]) -> None:
    """Write :func:`arrivals_text` to ``path``."""
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(arrivals_text(file))

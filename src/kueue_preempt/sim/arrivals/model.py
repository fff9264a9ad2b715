"""Arrivals: the workloads a simulation feeds in over time, read from JSONL or CSV.

One row per arrival (``docs/simulation.md`` has the full format)::

    {"at": 0, "duration": 600, "template": "team-a/train", "name": "job-1", "priority": 100,
     "podSets": [{"count": 4, "requests": {"cpu": "2"}}]}
    {"at": 30, "duration": 60, "workload": {"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload", ...}}
    {"running": "team-b/etl", "remaining": 120}

* ``at`` (seconds from the start, >= 0) and ``duration`` (seconds of run time once admitted,
  > 0; SC-SIM-6) are required on an arrival row.
* The workload is either a full manifest (``workload``: a Workload, or a ``batch/v1`` Job,
  ``jobset.x-k8s.io/v1alpha2`` JobSet or ``v1`` Pod, built into the Workload Kueue's job
  integration creates, :mod:`kueue_preempt.io.jobs`) or ``template``: the
  ``NAMESPACE/NAME`` (or a unique ``NAME``) of a Workload in the dump, with overrides
  ``name``, ``queueName``, ``priority`` *or* ``priorityClassName``, ``podSets`` (``name``,
  ``count``, ``requests``) and ``annotations``.
* A ``running`` row gives the ``remaining`` run time of a workload the dump shows admitted;
  without one it runs until the end of the simulation (SC-SIM-13 item 2).

This module holds the rows and the resolved arrivals, and writes files back
(:func:`arrivals_text`). Reading is two steps: :mod:`~kueue_preempt.sim.arrivals.read` checks
each row on its own (an :class:`ArrivalsFile`), :mod:`~kueue_preempt.sim.arrivals.resolve`
checks them against a :class:`~kueue_preempt.io.ClusterDump` and builds the pending workloads
(:class:`Arrivals`). Any bad row raises :class:`~kueue_preempt.sim.errors.ArrivalError` naming
the file, line and field, so nothing is simulated from a half-read file.
"""

from __future__ import annotations

import json
import os
from datetime import datetime
from typing import Any, Iterable, Mapping

import attrs

from kueue_preempt._util.checks import arg, model_iterable, model_str_map, path_arg, str_field
from kueue_preempt._util.frozen import FrozenMap, frozen_map
from kueue_preempt.errors import InvalidModel
from kueue_preempt.io import LoadedWorkload
from kueue_preempt.io.jobs import JobWorkload
from kueue_preempt.io.text import quantity_text
from kueue_preempt.io.write import workload_manifest

__all__ = [
    "PodSetOverride",
    "WorkloadOverrides",
    "ArrivalRow",
    "RunningRow",
    "ArrivalsFile",
    "Arrival",
    "Arrivals",
    "SIM_START",
    "arrivals_text",
    "write_arrivals",
]

SIM_START = datetime.fromisoformat("2026-01-01T00:00:00+00:00")
"""Default wall-clock time of simulated second 0 (creation times are derived from it)."""



def _amounts(value: Mapping[str, int]) -> FrozenMap[str, int]:
    if type(value) is not FrozenMap:
        for resource, amount in _mapping(value, "PodSetOverride", "requests").items():
            if not isinstance(resource, str) or isinstance(amount, bool) or not isinstance(amount, int):
                raise InvalidModel("PodSetOverride", f"requests[{resource!r}]", f"expected str: int, got {type(resource).__name__}: {type(amount).__name__}")
    return frozen_map(value)


def _strings(value: Mapping[str, str]) -> FrozenMap[str, str]:
    return value if type(value) is FrozenMap else frozen_map(model_str_map(value, "WorkloadOverrides", "annotations"))


def _mapping(value: object, obj: str, field: str) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise InvalidModel(obj, field, f"expected a mapping, got {type(value).__name__}")
    return value


def _check_types(obj: str, fields: Mapping[str, object], optional_str: tuple[str, ...], numbers: tuple[str, ...] = ()) -> None:
    """One pass over a row's fields: a list as a name or a string as a time would otherwise
    fail later as ``unhashable type`` or ``'<' not supported``."""
    for field in optional_str:
        value = fields[field]
        if value is not None and not isinstance(value, str):
            raise InvalidModel(obj, field, f"expected a str or None, got {type(value).__name__}")
    for field in numbers:
        value = fields[field]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            raise InvalidModel(obj, field, f"expected a number, got {value!r}")


@attrs.frozen
class PodSetOverride:
    """Changes to one pod set of a template: ``name`` ``None`` means the template's only pod set."""

    name: str | None = None
    count: int | None = None
    requests: FrozenMap[str, int] = attrs.field(factory=FrozenMap, converter=_amounts)
    """Per-pod request amounts (Q-1) that replace the template's for these resources."""

    def __attrs_post_init__(self) -> None:
        _check_types("PodSetOverride", {"name": self.name}, ("name",))
        if self.count is not None and (isinstance(self.count, bool) or not isinstance(self.count, int)):
            raise InvalidModel("PodSetOverride", "count", f"expected an int or None, got {type(self.count).__name__}")


def _pod_set_overrides(value: Iterable[PodSetOverride]) -> tuple[PodSetOverride, ...]:
    return model_iterable(value, PodSetOverride, "WorkloadOverrides", "pod_sets")


@attrs.frozen
class WorkloadOverrides:
    """What a template row changes; ``None`` / empty keeps the template's value."""

    name: str | None = None
    queue_name: str | None = None
    priority: int | None = None
    priority_class_name: str | None = None
    pod_sets: tuple[PodSetOverride, ...] = attrs.field(default=(), converter=_pod_set_overrides)
    annotations: FrozenMap[str, str] = attrs.field(factory=FrozenMap, converter=_strings)

    def __attrs_post_init__(self) -> None:
        _check_types(
            "WorkloadOverrides",
            {"name": self.name, "queue_name": self.queue_name, "priority_class_name": self.priority_class_name},
            ("name", "queue_name", "priority_class_name"),
        )
        if self.priority is not None and (isinstance(self.priority, bool) or not isinstance(self.priority, int)):
            raise InvalidModel("WorkloadOverrides", "priority", f"expected an int or None, got {type(self.priority).__name__}")


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
    job: JobWorkload | None = None
    """When ``workload`` was given as a Job, JobSet or Pod: the job as read, whose queue and
    priority are resolved against the dump (``workload`` is then its unresolved Workload)."""
    job_manifest: Mapping[str, Any] | None = attrs.field(default=None, eq=False, repr=False)
    """The job's manifest as written, for writing the row back."""

    def __attrs_post_init__(self) -> None:
        _check_types("ArrivalRow", {"template": self.template, "at": self.at, "duration": self.duration}, ("template",), ("at", "duration"))
        if self.workload is not None and not isinstance(self.workload, LoadedWorkload):
            raise InvalidModel("ArrivalRow", "workload", f"expected a LoadedWorkload or None, got {type(self.workload).__name__}")
        if not isinstance(self.overrides, WorkloadOverrides):
            raise InvalidModel("ArrivalRow", "overrides", f"expected WorkloadOverrides, got {type(self.overrides).__name__}")


@attrs.frozen
class RunningRow:
    """``workload`` (``NAMESPACE/NAME``, admitted in the dump) finishes after ``remaining`` seconds."""

    workload: str
    remaining: float
    line: int = attrs.field(default=0, eq=False)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.workload, str):
            raise InvalidModel("RunningRow", "workload", f"expected a str, got {type(self.workload).__name__}")
        _check_types("RunningRow", {"remaining": self.remaining}, (), ("remaining",))


def _rows(value: Iterable[ArrivalRow]) -> tuple[ArrivalRow, ...]:
    return model_iterable(value, ArrivalRow, "ArrivalsFile", "rows")


def _running(value: Iterable[RunningRow]) -> tuple[RunningRow, ...]:
    return model_iterable(value, RunningRow, "ArrivalsFile", "running")


@attrs.frozen
class ArrivalsFile:
    """The rows of an arrivals file, in file order, each checked on its own."""

    rows: tuple[ArrivalRow, ...] = attrs.field(default=(), converter=_rows)
    running: tuple[RunningRow, ...] = attrs.field(default=(), converter=_running)
    source: str = attrs.field(default="", eq=False, validator=str_field("ArrivalsFile"))


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


# --------------------------------------------------------------------------- writing


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def _row_json(row: ArrivalRow) -> dict[str, Any]:
    out: dict[str, Any] = {"at": _num(row.at), "duration": _num(row.duration)}
    if row.job_manifest is not None:
        out["workload"] = dict(row.job_manifest)
        return out
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
    arg(file, ArrivalsFile, "arrivals_text", "file")
    lines = [json.dumps(_row_json(row), sort_keys=False, separators=(",", ":")) for row in file.rows]
    lines += [
        json.dumps({"running": r.workload, "remaining": _num(r.remaining)}, separators=(",", ":")) for r in file.running
    ]
    return "".join(line + "\n" for line in lines)


def write_arrivals(file: ArrivalsFile, path: str | os.PathLike[str]) -> None:
    """Write :func:`arrivals_text` to ``path``."""
    arg(file, ArrivalsFile, "write_arrivals", "file")
    path = path_arg(path, "write_arrivals", "path")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(arrivals_text(file))

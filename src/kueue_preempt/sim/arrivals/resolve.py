"""Resolving arrivals against a dump: templates, overrides, LocalQueues and priority classes.

:func:`resolve_arrivals` turns the rows of an :class:`~kueue_preempt.sim.arrivals.model.ArrivalsFile`
into pending workloads (:class:`~kueue_preempt.sim.arrivals.model.Arrivals`) or raises
:class:`~kueue_preempt.sim.errors.ArrivalError` for the first row that does not resolve.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import attrs

from kueue_preempt._util.checks import arg, time_arg

from kueue_preempt.io import ClusterDump, LoadedWorkload, ManifestError, PodSetRequests
from kueue_preempt.cycle import PodTemplateResources, WorkloadStatus
from kueue_preempt.io.dump import apply_limit_ranges, resolve_priorities
from kueue_preempt.model import PriorityClassRef
from kueue_preempt.sim.arrivals.model import SIM_START, Arrival, ArrivalRow, Arrivals, ArrivalsFile, PodSetOverride
from kueue_preempt.errors import InputTooLarge
from kueue_preempt.sim.arrivals.read import MAX_ARRIVAL_ROWS
from kueue_preempt.sim.errors import ArrivalError

__all__ = ["resolve_arrivals"]


class _Templates:
    """The dump's workloads by ``NAMESPACE/NAME`` and by ``NAME``, built once per resolve (a
    large dump has tens of thousands of workloads and a file up to millions of rows)."""

    def __init__(self, dump: ClusterDump) -> None:
        self.by_key: dict[str, LoadedWorkload] = {}
        self.by_name: dict[str, list[LoadedWorkload]] = {}
        for lw in dump.workloads:
            self.by_key[lw.key] = lw
            self.by_name.setdefault(lw.workload.name, []).append(lw)

    def find(self, ref: str) -> list[LoadedWorkload]:
        if "/" in ref:
            found = self.by_key.get(ref)
            return [] if found is None else [found]
        return self.by_name.get(ref, [])


def _template(templates: _Templates, row: ArrivalRow, source: str) -> LoadedWorkload:
    assert row.template is not None
    ref = row.template
    found = templates.find(ref)
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


def _instantiate(
    dump: ClusterDump, templates: _Templates, row: ArrivalRow, index: int, source: str
) -> tuple[LoadedWorkload, str | None]:
    """The row's workload as a fresh pending object (status dropped: it has not run yet), and
    the key of its template."""
    template: str | None = None
    pod_templates: tuple[PodTemplateResources, ...] = ()
    # The status is dropped (it has not run yet): one ``evolve`` per row, with the template's
    # overrides folded in (a large file has hundreds of thousands of rows).
    fresh_fields: dict[str, Any] = dict(
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
    if row.job is not None:
        try:
            lw = row.job.resolve(dump)
        except ManifestError as exc:
            raise ArrivalError(source, row.line, "workload" + (f".{exc.path}" if exc.path else ""), exc.reason) from None
        lw = apply_limit_ranges(lw, dump.limit_ranges)  # SC-NOM-3, as for the dump's workloads
        w = lw.workload
        pod_sets = lw.pod_sets
        pod_templates = lw.status.templates
    elif row.workload is not None:
        lw = row.workload
        if not lw.is_pending:
            raise ArrivalError(source, row.line, "workload", f"an arriving workload must be pending, but it {lw.state}")
        lw = apply_limit_ranges(lw, dump.limit_ranges)
        w = lw.workload
        pod_sets = lw.pod_sets
        pod_templates = lw.status.templates
    else:
        lw = _template(templates, row, source)
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
        fresh_fields.update(
            name=name,
            local_queue=o.queue_name if o.queue_name is not None else w.local_queue,
            priority=priority,
            priority_class=class_ref,
            annotations={**w.annotations, **o.annotations} if o.annotations else w.annotations,
        )
        pod_sets = _apply_pod_sets(lw.pod_sets, o.pod_sets, source, row.line)
        # The template's containers (SC-NOM-3) hold only while the row keeps its requests.
        pod_templates = () if o.pod_sets else lw.status.templates
    fresh = attrs.evolve(w, **fresh_fields)
    status = WorkloadStatus(templates=pod_templates) if pod_templates else _FRESH
    return LoadedWorkload(workload=fresh, pod_sets=pod_sets, status=status), template


_FRESH = WorkloadStatus()


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
    arg(file, ArrivalsFile, "resolve_arrivals", "file")
    arg(dump, ClusterDump, "resolve_arrivals", "dump")
    start = time_arg(start, "resolve_arrivals", "start")
    if len(file.rows) + len(file.running) > MAX_ARRIVAL_ROWS:
        raise InputTooLarge(
            f"resolve_arrivals: {len(file.rows) + len(file.running):,} rows, more than {MAX_ARRIVAL_ROWS:,} "
            "(the arrivals limit, about 450 MB once resolved)"
        )
    source = file.source
    templates = _Templates(dump)
    taken = set(templates.by_key)
    resolved: list[tuple[ArrivalRow, LoadedWorkload, str, str | None]] = []
    for index, row in enumerate(file.rows, start=1):
        lw, template = _instantiate(dump, templates, row, index, source)
        field = "name" if row.workload is None else "workload.metadata.name"
        if lw.key in taken:
            where = "the dump" if lw.key in templates.by_key else "an earlier row"
            raise ArrivalError(source, row.line, field, f"Workload {lw.key} already exists in {where}")
        taken.add(lw.key)
        field = "queueName" if row.workload is None else "workload.spec.queueName"
        if row.job is not None:
            field = "workload." + row.job.queue_path
        try:
            cluster_queue = dump.cluster_queue_for(lw)
        except ManifestError as exc:
            raise ArrivalError(source, row.line, field, exc.reason) from None
        resolved.append((row, lw, cluster_queue, template))
    resolved.sort(key=lambda item: item[0].at)  # stable: equal times keep file order (SC-T-2)
    stamped = [
        attrs.evolve(lw, workload=attrs.evolve(lw.workload, uid=f"sim-{seq:08d}", creation_time=start + timedelta(seconds=row.at)))
        for seq, (row, lw, _, _) in enumerate(resolved, start=1)
    ]
    priorities = resolve_priorities(stamped, dump.workload_priority_classes, dump.priority_classes)
    arrivals = [
        Arrival(row.at, row.duration, w_resolved, cluster_queue, template, line=row.line)
        for (row, _, cluster_queue, template), w_resolved in zip(resolved, priorities)
    ]
    remaining: dict[str, float] = {}
    for r in file.running:
        found = templates.by_key.get(r.workload)
        if found is None:
            raise ArrivalError(source, r.line, "running", f"no Workload {r.workload!r} in the dump")
        if not found.holds_quota:
            raise ArrivalError(source, r.line, "running", f"Workload {r.workload} is not admitted: it {found.state}")
        if r.workload in remaining:
            raise ArrivalError(source, r.line, "running", f"Workload {r.workload} has a running row already")
        remaining[r.workload] = r.remaining
    return Arrivals(arrivals=arrivals, remaining=remaining, start=start)

"""The jobs users submit (``batch/v1`` Job, ``jobset.x-k8s.io/v1alpha2`` JobSet, ``v1`` Pod) to
the Workload Kueue's job integration would create for them.

Reading is two steps, because the second needs the cluster: :func:`read_job` reads the object
on its own (pod sets, queue name, the priority class it names) into a :class:`JobWorkload`;
:meth:`JobWorkload.resolve` then takes a :class:`~kueue_preempt.io.ClusterDump` for what
Kueue looks up when it creates the Workload — the priority (WorkloadPriorityClass label, else
the pod template's ``priorityClassName``, else the ``globalDefault`` PriorityClass, else 0;
§1.8 of the API field reference) and the ``default`` LocalQueue a job without a queue name is
given. :func:`workload_from_job` does both.

What each integration builds (Kueue's ``PodSets()``):

* Job: one pod set ``main`` with ``min(parallelism, completions)`` pods (both default 1), and
  ``minCount`` from the annotation ``kueue.x-k8s.io/job-min-parallelism`` (partial admission);
* JobSet: one pod set per ``spec.replicatedJobs[]``, named after it, with ``replicas`` (default 1)
  times its Job template's ``min(parallelism, completions)`` pods;
* Pod: one pod set ``main`` of 1 pod, the pod's own spec being the template.

Per-pod requests are FAS-1's, read from the pod template as ``spec.podSets[].template`` is
(:func:`~kueue_preempt.io.workload.template_pod_set`). Kinds other Kueue integrations manage
(RayJob, MPIJob, PyTorchJob...) are refused by name. Field table: docs/manifests.md.
"""

from __future__ import annotations

import hashlib
import json
import attrs

from kueue_preempt.model import PriorityClassRef, Workload
from kueue_preempt.model.quantity import INT32_MAX
from kueue_preempt.io._fields import Field, Meta, ParseContext, open_object
from kueue_preempt.io.dump import ClusterDump
from kueue_preempt.io.errors import ManifestError
from kueue_preempt.io.kueue_settings import MAX_POD_SETS
from kueue_preempt.io.objects import LoadedWorkload, PodSetRequests
from kueue_preempt.io.read import RawObject
from kueue_preempt.io.workload import template_pod_set

__all__ = [
    "JOB_KINDS",
    "MIN_PARALLELISM_ANNOTATION",
    "PRIORITY_CLASS_LABEL",
    "QUEUE_NAME_LABEL",
    "UNSUPPORTED_JOB_KINDS",
    "JobWorkload",
    "is_job",
    "read_job",
    "workload_from_job",
    "workload_name",
]

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"
"""The LocalQueue a job is submitted to: a label, or (deprecated, read as a fallback) an annotation."""
PRIORITY_CLASS_LABEL = "kueue.x-k8s.io/priority-class"
"""The WorkloadPriorityClass of a job."""
MIN_PARALLELISM_ANNOTATION = "kueue.x-k8s.io/job-min-parallelism"
"""A Job's partial admission: the fewest pods it may run with (the pod set's ``minCount``)."""
DEFAULT_LOCAL_QUEUE = "default"
DEFAULT_WORKLOAD_PRIORITY_CLASS = "default"
DEFAULT_NAMESPACE = "default"

JOB_KINDS: dict[tuple[str, str], tuple[str, ...]] = {
    ("batch", "Job"): ("v1",),
    ("jobset.x-k8s.io", "JobSet"): ("v1alpha2",),
    ("", "Pod"): ("v1",),
}
"""``(group, kind) -> apiVersions`` this module turns into Workloads."""

UNSUPPORTED_JOB_KINDS: dict[str, tuple[str, ...]] = {
    "ray.io": ("RayJob", "RayCluster", "RayService"),
    "kubeflow.org": ("MPIJob", "PyTorchJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob"),
    "trainer.kubeflow.org": ("TrainJob",),
    "workload.codeflare.dev": ("AppWrapper",),
    "leaderworkerset.x-k8s.io": ("LeaderWorkerSet",),
    "apps": ("Deployment", "StatefulSet"),
    "sparkoperator.k8s.io": ("SparkApplication",),
}
"""Kinds Kueue's other integrations manage, refused with a message naming them."""

_SUPPORTED_TEXT = "batch/v1 Job, jobset.x-k8s.io/v1alpha2 JobSet and v1 Pod"
_POD_GROUP_LABEL = "kueue.x-k8s.io/pod-group-name"
_JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"
# Field paths as the readers spell them (a key with dots or slashes in JSON quotes).
_QUEUE_LABEL_PATH = f"metadata.labels[{json.dumps(QUEUE_NAME_LABEL)}]"
_CLASS_LABEL_PATH = f"metadata.labels[{json.dumps(PRIORITY_CLASS_LABEL)}]"
_HASH_LENGTH = 5
_MAX_PREFIX_LENGTH = 252 - _HASH_LENGTH  # a name is at most 253 characters: prefix, "-", hash


def _group_version(raw: RawObject) -> tuple[str, str]:
    api_version = raw.data.get("apiVersion")
    text = api_version if isinstance(api_version, str) else ""
    group, _, version = text.rpartition("/")
    return group, version


def is_job(raw: RawObject) -> bool:
    """Whether ``raw`` is a kind a Kueue job integration manages (supported here or not)."""
    kind = raw.data.get("kind")
    if not isinstance(kind, str):
        return False
    group, _ = _group_version(raw)
    return (group, kind) in JOB_KINDS or kind in UNSUPPORTED_JOB_KINDS.get(group, ())


def workload_name(kind: str, group: str, name: str, uid: str = "") -> str:
    """The name Kueue gives the Workload of a job: ``<kind>-<name>-<hash>``, lower-case kind,
    the prefix cut to fit 253 characters, the hash the first 5 hex digits of the SHA-1 of
    ``kind, group, name, uid`` (one per line). A manifest not yet submitted has no UID, so its
    name differs from the one Kueue will give it; the name only labels the output."""
    prefix = f"{kind.lower()}-{name}"[:_MAX_PREFIX_LENGTH]
    digest = hashlib.sha1("\n".join((kind, group, name, uid)).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:_HASH_LENGTH]}"


@attrs.frozen
class JobWorkload:
    """A job read on its own: the Workload its integration builds, before the cluster lookups.

    ``workload`` has no priority yet; :meth:`resolve` sets it. ``priority_class_label`` is the
    job's ``kueue.x-k8s.io/priority-class`` label (``""``: none), ``pod_priority_class`` the
    first pod template's ``priorityClassName`` that is set (``""``: none). ``queue_name`` is
    ``""`` when the job names no LocalQueue.
    """

    kind: str
    """``Job``, ``JobSet`` or ``Pod``."""
    source: str = attrs.field(eq=False)
    name: str
    """``namespace/name`` of the job (``#<n>`` without a usable name), for messages."""
    workload: LoadedWorkload
    queue_name: str
    queue_path: str
    """Where the queue name was read (label or annotation), for messages."""
    priority_class_label: str
    pod_priority_class: str
    pod_priority_path: str

    @property
    def origin(self) -> str:
        """``Job team-a/train``: the object the Workload stands for."""
        return f"{self.kind} {self.name}"

    def _error(self, path: str, reason: str) -> ManifestError:
        return ManifestError(self.source, self.kind, self.name, path, reason)

    def resolve(self, dump: ClusterDump, *, workload_priority_class_defaulting: bool = True) -> LoadedWorkload:
        """The pending Workload Kueue creates for the job in the cluster of ``dump``.

        Queue: the job's queue name; without one, the LocalQueue ``default`` of its namespace
        if the dump has it (Kueue's LocalQueue defaulting); otherwise Kueue does not manage
        the job and this raises :class:`ManifestError` (with ``manageJobsWithoutQueueName``
        Kueue would create a Workload without a queue, which no ClusterQueue ever admits).

        Priority, as Kueue sets it at creation: the WorkloadPriorityClass of the label; without
        a label and with gate ``WorkloadPriorityClassDefaulting`` (on), the WorkloadPriorityClass
        ``default`` if the dump has it; else the PriorityClass the pod template names; else the
        ``globalDefault`` PriorityClass (the lowest value if several); else 0. A class named but
        missing from the dump raises :class:`ManifestError` (Kueue does not create the Workload).
        """
        w = self.workload.workload
        queue = self.queue_name
        if not queue:
            if f"{w.namespace}/{DEFAULT_LOCAL_QUEUE}" not in {q.key for q in dump.local_queues}:
                raise self._error(
                    _QUEUE_LABEL_PATH,
                    f"missing: Kueue does not manage a {self.kind} without a queue name (the label, or the "
                    f"annotation of that name) when namespace {w.namespace!r} has no LocalQueue "
                    f"{DEFAULT_LOCAL_QUEUE!r}; with manageJobsWithoutQueueName Kueue would create a Workload "
                    "without a queue, which no ClusterQueue admits. Add the label",
                )
            queue = DEFAULT_LOCAL_QUEUE
        ref, priority = self._priority(dump, workload_priority_class_defaulting)
        workload = attrs.evolve(w, local_queue=queue, priority=priority, priority_class=ref)
        return attrs.evolve(self.workload, workload=workload)

    def _priority(self, dump: ClusterDump, defaulting: bool) -> tuple[PriorityClassRef | None, int]:
        wpcs = {c.name: c.value for c in dump.workload_priority_classes}
        label = self.priority_class_label
        if not label and defaulting and DEFAULT_WORKLOAD_PRIORITY_CLASS in wpcs:
            label = DEFAULT_WORKLOAD_PRIORITY_CLASS
        if label:
            if label not in wpcs:
                raise self._error(
                    _CLASS_LABEL_PATH,
                    f"WorkloadPriorityClass {label!r} is not in the dump (Kueue does not create the "
                    "Workload while it is missing)",
                )
            return PriorityClassRef(name=label), wpcs[label]
        pcs = {c.name: c for c in dump.priority_classes}
        name = self.pod_priority_class
        if name:
            pc = pcs.get(name)
            if pc is None:
                raise self._error(
                    self.pod_priority_path,
                    f"PriorityClass {name!r} is not in the dump (Kueue does not create the Workload while it is missing)",
                )
            return PriorityClassRef(name=name, kind="PriorityClass", group="scheduling.k8s.io"), pc.value
        defaults = sorted((c for c in dump.priority_classes if c.global_default), key=lambda c: (c.value, c.name))
        if defaults:
            pc = defaults[0]
            return PriorityClassRef(name=pc.name, kind="PriorityClass", group="scheduling.k8s.io"), pc.value
        return None, 0


def read_job(raw: RawObject, load: ParseContext | None = None) -> JobWorkload:
    """Read a Job, JobSet or Pod into the Workload Kueue's integration builds (see the module
    doc). Any other kind, a kind of another integration (RayJob, MPIJob...) or another
    apiVersion is a :class:`ManifestError` naming it."""
    kind = raw.data.get("kind")
    group, version = _group_version(raw)
    shown_kind = kind if isinstance(kind, str) else ""
    versions = JOB_KINDS.get((group, shown_kind))
    if versions is None:
        where = f"{group}/{version}" if group else (version or "no apiVersion")
        raise ManifestError(
            raw.source, shown_kind, f"#{raw.index}", "kind",
            f"{shown_kind or 'no kind'} ({where}) is not a kind kueue-preempt turns into a Workload; it reads "
            f"{_SUPPORTED_TEXT}. Give the Workload Kueue created for it instead "
            "(kubectl get workloads -n NAMESPACE -o yaml)",
        )  # fmt: skip
    if version not in versions:
        wanted = ", ".join((group + "/" if group else "") + v for v in versions)
        given = f"{group + '/' if group else ''}{version} is not read" if version else "missing"
        raise ManifestError(raw.source, shown_kind, f"#{raw.index}", "apiVersion", f"{given}; use {wanted}")
    meta = open_object(raw.source, raw.index, raw.data, shown_kind, namespaced=True, load=load)
    spec = meta.root.get("spec")
    spec.mapping()
    if shown_kind == "Job":
        pod_sets, templates = _job_pod_sets(meta, spec)
    elif shown_kind == "JobSet":
        pod_sets, templates = _jobset_pod_sets(spec)
    else:
        if not spec.present:
            spec.fail("required field is missing")
        labels = meta.metadata.get("labels").string_map()
        if _POD_GROUP_LABEL in labels:
            meta.metadata.get("labels").get(_POD_GROUP_LABEL).fail(
                "a Pod of a Kueue pod group becomes a Workload only with its whole group, which kueue-preempt "
                "does not build; give the group's Workload instead"
            )
        pod_sets, templates = [template_pod_set("main", 1, None, spec)], [spec]
    return _job_workload(meta, shown_kind, group, pod_sets, templates)


def workload_from_job(
    raw: RawObject, dump: ClusterDump, *, workload_priority_class_defaulting: bool = True
) -> LoadedWorkload:
    """:func:`read_job` then :meth:`JobWorkload.resolve` against ``dump``."""
    return read_job(raw).resolve(dump, workload_priority_class_defaulting=workload_priority_class_defaulting)


# --------------------------------------------------------------------------- pod sets


def _pods_count(job_spec: Field) -> int:
    """Kueue's pods of one Job: ``parallelism`` (default 1), or ``completions`` when fewer."""
    parallelism = job_spec.get("parallelism").integer(low=0)
    completions = job_spec.get("completions").integer(low=0)
    count = 1 if parallelism is None else parallelism
    return count if completions is None else min(count, completions)


def _pod_template_spec(job_spec: Field) -> Field:
    template = job_spec.get("template")
    if not template.present:
        template.fail("required field is missing")
    pod_spec = template.get("spec")
    if not pod_spec.present:
        pod_spec.fail("required field is missing")
    return pod_spec


def _job_pod_sets(meta: Meta, spec: Field) -> tuple[list[PodSetRequests], list[Field]]:
    count = _pods_count(spec)
    min_count = _min_parallelism(meta.metadata.get("annotations"), count)
    pod_spec = _pod_template_spec(spec)
    return [template_pod_set("main", count, min_count, pod_spec)], [pod_spec]


def _min_parallelism(annotations: Field, count: int) -> int | None:
    """The partial-admission annotation, validated as Kueue's Job webhook does: an integer
    from 1 to the pod count less one."""
    field = annotations.get(MIN_PARALLELISM_ANNOTATION)
    if not field.present:
        return None
    text = field.string()
    if not (text.isascii() and text.isdigit()) or len(text) > 10:
        field.fail(f"{text[:20]!r} is not a positive integer")
    value = int(text)
    if not 1 <= value < count:
        field.fail(f"{value} is not between 1 and {count - 1} (the Job's pod count {count} less one)")
    return value


def _jobset_pod_sets(spec: Field) -> tuple[list[PodSetRequests], list[Field]]:
    replicated = spec.get("replicatedJobs")
    items = replicated.list(required=True)
    if not items:
        replicated.fail("must hold at least one replicated job")
    if len(items) > MAX_POD_SETS:
        replicated.fail(f"has {len(items)} replicated jobs; a Workload has at most {MAX_POD_SETS} pod sets (API-21)")
    out: list[PodSetRequests] = []
    templates: list[Field] = []
    seen: set[str] = set()
    for rj in items:
        name_field = rj.get("name")
        name = name_field.string(required=True)
        if name in seen:
            name_field.fail(f"replicated job {name!r} is listed twice")
        seen.add(name)
        replicas = rj.get("replicas").integer(low=0)
        job_spec = rj.get("template").get("spec")
        if not job_spec.present:
            job_spec.fail("required field is missing")
        pods = _pods_count(job_spec)
        count = (1 if replicas is None else replicas) * pods
        if count > INT32_MAX:  # a Workload's pod-set count is an int32
            rj.get("replicas").fail(f"{replicas} replicas of {pods} pods is {count} pods, more than a pod set holds ({INT32_MAX})")
        pod_spec = _pod_template_spec(job_spec)
        out.append(template_pod_set(name, count, None, pod_spec))
        templates.append(pod_spec)
    return out, templates


# --------------------------------------------------------------------------- the workload


def _queue(meta: Meta) -> tuple[str, str]:
    """Kueue's queue name of a job: the label, else the (deprecated) annotation."""
    label = meta.metadata.get("labels").get(QUEUE_NAME_LABEL)
    if label.string():
        return label.string(), label.path
    annotation = meta.metadata.get("annotations").get(QUEUE_NAME_LABEL)
    return annotation.string(), annotation.path


def _job_workload(
    meta: Meta, kind: str, group: str, pod_sets: list[PodSetRequests], templates: list[Field]
) -> JobWorkload:
    md = meta.metadata
    md.get("labels").string_map()
    md.get("annotations").string_map()
    queue, queue_path = _queue(meta)
    class_label = md.get("labels").get(PRIORITY_CLASS_LABEL).string()
    pod_class, pod_path = "", ""
    for pod_spec in templates:  # Kueue takes the first pod set whose template names a class
        field = pod_spec.get("priorityClassName")
        if field.string():
            pod_class, pod_path = field.string(), field.path
            break
    namespace = meta.namespace or DEFAULT_NAMESPACE
    uid = md.get("uid").string()
    name = workload_name(kind, group, meta.name, uid)
    shown = f"{namespace}/{meta.name}"
    workload = meta.build(
        "",
        lambda: Workload(
            name=name,
            namespace=namespace,
            local_queue=queue,
            # Kueue labels a job's Workload with the job's UID (messages show it as JobUID).
            labels={_JOB_UID_LABEL: uid} if uid else {},
            creation_time=md.get("creationTimestamp").time(),
            spec_pod_sets=[ps.spec() for ps in pod_sets],
        ),
    )
    return JobWorkload(
        kind=kind,
        source=meta.ctx.source,
        name=shown,
        workload=LoadedWorkload(workload=workload, pod_sets=pod_sets),
        queue_name=queue,
        queue_path=queue_path,
        priority_class_label=class_label,
        pod_priority_class=pod_class,
        pod_priority_path=pod_path,
    )

"""The live cluster as an input: the objects a dump would hold, read through ``kubectl``.

Reading goes through the user's own ``kubectl`` (``kubectl get TYPE -o json``, one resource
type at a time), so every authentication kubectl supports works and this library never sees a
credential: it passes ``--context``/``--kubeconfig``/``--namespace`` through and reads what
kubectl prints. kubectl runs as a subprocess with an argument list (no shell), standard input
closed, a timeout, and its output bounded by the same :class:`~kueue_preempt.io.Limits` the
file loaders apply (``max_bytes`` per type, like one file; ``max_objects`` in total).

The result is the raw object list the dump loader consumes
(:func:`~kueue_preempt.io.dump.dump_from_objects`), so a live read is validated exactly like
a dump file.

Why one type at a time: ``kubectl get a,b,c`` aborts the whole command when the server lacks
one of the types, and Kueue releases differ in their CRDs (Cohort and WorkloadPriorityClass are
not in every release). A type marked ``optional`` that the server does not have is skipped and
reported in :attr:`ClusterRead.missing`; any other failure is one :class:`ClusterReadError`.
"""

from __future__ import annotations

import os
import re
import subprocess
import threading
from typing import IO, Sequence

import attrs

from kueue_preempt.errors import KueuePreemptError
from kueue_preempt.io.dump import ClusterDump, dump_from_objects
from kueue_preempt.io.errors import ManifestTooLarge
from kueue_preempt.io.read import DEFAULT_LIMITS, Limits, RawObject, parse_documents

__all__ = [
    "ResourceType",
    "KUEUE_RESOURCES",
    "POD_GROUP_RESOURCES",
    "KubectlSource",
    "ClusterRead",
    "ClusterReadError",
    "KubectlNotFound",
    "read_cluster",
    "load_cluster",
]


class ClusterReadError(KueuePreemptError):
    """kubectl could not read the cluster: no context or cluster, unreachable, forbidden (403),
    a required type missing, a timeout. The message is one line naming the command."""

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)

    def __str__(self) -> str:
        return self.message


class KubectlNotFound(ClusterReadError):
    """The ``kubectl`` executable is not on ``PATH`` (or the given path does not exist)."""


@attrs.frozen
class ResourceType:
    """One type to read: its ``kubectl get`` name (fully qualified, so an aggregated API with
    the same plural cannot be picked instead), whether it is namespaced, and whether a cluster
    may lack it (then it is skipped, not an error)."""

    kind: str
    resource: str
    namespaced: bool
    optional: bool = False


KUEUE_RESOURCES: tuple[ResourceType, ...] = (
    ResourceType("ResourceFlavor", "resourceflavors.kueue.x-k8s.io", namespaced=False),
    ResourceType("ClusterQueue", "clusterqueues.kueue.x-k8s.io", namespaced=False),
    # Not every Kueue release serves these two CRDs.
    ResourceType("Cohort", "cohorts.kueue.x-k8s.io", namespaced=False, optional=True),
    ResourceType("WorkloadPriorityClass", "workloadpriorityclasses.kueue.x-k8s.io", namespaced=False, optional=True),
    ResourceType("LocalQueue", "localqueues.kueue.x-k8s.io", namespaced=True),
    ResourceType("Workload", "workloads.kueue.x-k8s.io", namespaced=True),
    # A Workload may name a Kubernetes PriorityClass; Namespace labels feed namespaceSelector;
    # LimitRanges default and bound pending workloads' requests (SC-NOM-3).
    ResourceType("PriorityClass", "priorityclasses.scheduling.k8s.io", namespaced=False),
    ResourceType("Namespace", "namespaces", namespaced=False),
    ResourceType("LimitRange", "limitranges", namespaced=True),
)
"""What the Kueue commands (explain, check, cycle, simulate, sweep) read."""

POD_GROUP_RESOURCES: tuple[ResourceType, ...] = (
    ResourceType("Node", "nodes", namespaced=False),
    ResourceType("Pod", "pods", namespaced=True),
    ResourceType("PriorityClass", "priorityclasses.scheduling.k8s.io", namespaced=False),
    ResourceType("PodDisruptionBudget", "poddisruptionbudgets.policy", namespaced=True),
    # Alpha APIs: absent unless the cluster enables them.
    ResourceType("PodGroup", "podgroups.scheduling.k8s.io", namespaced=True, optional=True),
    ResourceType("CompositePodGroup", "compositepodgroups.scheduling.k8s.io", namespaced=True, optional=True),
)
"""What ``podgroup`` reads."""


@attrs.frozen
class KubectlSource:
    """Where and how to read: kubectl's own selection flags, passed through unchanged.

    ``namespace`` ``None`` reads namespaced types in all namespaces (a ClusterQueue's usage is
    charged by workloads of every namespace); a name restricts them to that namespace.
    ``timeout`` bounds each kubectl call, in seconds.
    """

    context: str | None = None
    kubeconfig: str | None = None
    namespace: str | None = None
    kubectl: str = "kubectl"
    timeout: float = 60.0

    @property
    def label(self) -> str:
        """The source name objects carry (error messages, ``check``'s "loaded from")."""
        return f"cluster (context {self.context})" if self.context else "cluster (current context)"

    def command(self, resource: ResourceType) -> list[str]:
        # ``--flag=value``: a value starting with "-" stays a value, never another flag.
        args = [self.kubectl, "get", resource.resource, "--output=json"]
        if self.kubeconfig is not None:
            args.append(f"--kubeconfig={self.kubeconfig}")
        if self.context is not None:
            args.append(f"--context={self.context}")
        if resource.namespaced:
            args.append(f"--namespace={self.namespace}" if self.namespace is not None else "--all-namespaces")
        return args


@attrs.frozen
class ClusterRead:
    """The raw objects read, and the optional types the server does not have."""

    objects: tuple[RawObject, ...]
    missing: tuple[str, ...] = ()


_MISSING_TYPE = "the server doesn't have a resource type"
_KLOG_LINE = re.compile(r"^[IWEF]\d{4} \d")
_STDERR_LIMIT = 64 * 1024
_DRAIN_SECONDS = 5.0
_SHOWN = 300


def read_cluster(
    source: KubectlSource = KubectlSource(),
    resources: Sequence[ResourceType] = KUEUE_RESOURCES,
    *,
    limits: Limits = DEFAULT_LIMITS,
) -> ClusterRead:
    """Run ``kubectl get TYPE -o json`` once per type and parse each output with the file
    loaders' guards. Raises :class:`KubectlNotFound`, :class:`ClusterReadError`, and for the
    content the errors the dump reader raises (:class:`~kueue_preempt.io.ManifestTooLarge`,
    :class:`~kueue_preempt.io.ManifestSyntaxError`)."""
    objects: list[RawObject] = []
    missing: list[str] = []
    for resource in resources:
        code, out, err = _run(source, resource, limits)
        if code != 0:
            message = _message(err)
            if _MISSING_TYPE in message:
                if resource.optional:
                    missing.append(resource.kind)
                    continue
                raise ClusterReadError(
                    f"kubectl get {resource.resource}: the server does not serve {resource.kind} "
                    f"(is {'Kueue' if 'kueue' in resource.resource else 'this API'} installed?)"
                )
            raise ClusterReadError(_failure(resource, message, code))
        for raw in parse_documents(out, source=source.label, format="json", limits=limits):
            objects.append(RawObject(source.label, len(objects) + 1, raw.data))
        if len(objects) > limits.max_objects:
            raise ManifestTooLarge(source.label, f"more than {limits.max_objects} objects in total")
    return ClusterRead(tuple(objects), tuple(missing))


def load_cluster(
    source: KubectlSource = KubectlSource(),
    resources: Sequence[ResourceType] = KUEUE_RESOURCES,
    *,
    limits: Limits = DEFAULT_LIMITS,
) -> ClusterDump:
    """:func:`read_cluster` then the dump loader: the cluster as a :class:`ClusterDump`."""
    return dump_from_objects(read_cluster(source, resources, limits=limits).objects)


def _run(source: KubectlSource, resource: ResourceType, limits: Limits) -> tuple[int, bytes, bytes]:
    """kubectl's exit code, standard output (at most ``limits.max_bytes``) and standard error."""
    command = source.command(resource)
    try:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, shell=False
        )
    except FileNotFoundError:
        raise KubectlNotFound(
            f"{source.kubectl}: not found; install kubectl to read the cluster, or give DUMP files"
        ) from None
    except OSError as exc:
        raise ClusterReadError(f"{source.kubectl}: cannot run: {exc.strerror or exc}") from None
    assert process.stdout is not None and process.stderr is not None
    out = _Reader(process, process.stdout, limits.max_bytes, stop=True)
    err = _Reader(process, process.stderr, _STDERR_LIMIT, stop=False)
    try:
        code = process.wait(timeout=source.timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise ClusterReadError(
            f"kubectl get {resource.resource}: no answer within {source.timeout:g} s (is the cluster reachable?)"
        ) from None
    finally:
        # A credential helper kubectl started may still hold the pipes open: do not wait on it.
        out.join(_DRAIN_SECONDS)
        err.join(_DRAIN_SECONDS)
    if out.overflow:
        raise ManifestTooLarge(source.label, f"kubectl get {resource.resource}: output larger than {limits.max_bytes} bytes")
    return code, out.data(), err.data()


class _Reader:
    """Drain one pipe on a thread (one per pipe, so neither can fill up and block kubectl, on
    every platform). Past ``limit`` bytes: with ``stop``, kill kubectl (its output is too large
    to load); without, keep only the last ``limit`` bytes (kubectl's error line comes last)."""

    def __init__(self, process: subprocess.Popen[bytes], stream: IO[bytes], limit: int, *, stop: bool) -> None:
        self.process = process
        self.stream = stream
        self.limit = limit
        self.stop = stop
        self.chunks: list[bytes] = []
        self.size = 0
        self.overflow = False
        self.thread = threading.Thread(target=self._drain, daemon=True)
        self.thread.start()

    def _drain(self) -> None:
        with self.stream:
            while True:
                chunk = self.stream.read(65536)
                if not chunk:
                    return
                if self.size + len(chunk) > self.limit:
                    if self.stop:
                        self.overflow = True
                        self.process.kill()
                        return
                    kept = (b"".join(self.chunks) + chunk)[-self.limit :]
                    self.chunks, self.size = [kept], len(kept)
                    continue
                self.chunks.append(chunk)
                self.size += len(chunk)

    def join(self, timeout: float) -> None:
        self.thread.join(timeout)

    def data(self) -> bytes:
        return b"".join(list(self.chunks))


def _message(stderr: bytes) -> str:
    """kubectl's own error: its last non-log line (client-go log lines come first)."""
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines()]
    useful = [line for line in lines if line and not _KLOG_LINE.match(line)]
    text = useful[-1] if useful else (lines[-1] if lines and lines[-1] else "")
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _failure(resource: ResourceType, message: str, code: int) -> str:
    text = message.removeprefix("error: ") or f"kubectl exited with code {code}"
    hint = ""
    if "localhost:8080" in text:
        # kubectl's fallback server when no kubeconfig/context names one.
        hint = " (no cluster configured: set a current context, or use --context/--kubeconfig)"
    return f"kubectl get {resource.resource}: {text}{hint}"

"""The jobs users submit (Job, JobSet, Pod) built into the Workload Kueue's job integration
creates: pod sets, counts, per-pod requests (FAS-1), queue and priority; ``explain --incoming``
and the simulator's arrivals read them; other integrations' kinds are refused by name."""

from __future__ import annotations

import copy
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
import yaml

from cli_helpers import run_cli
from kueue_preempt.io import ClusterDump, LoadedWorkload, ManifestError, PriorityClass, RawObject, load_dump, parse_documents
from kueue_preempt.io.kueue_settings import MAX_POD_SETS
from kueue_preempt.io.jobs import JobWorkload, is_job, read_job, workload_from_job, workload_name
from kueue_preempt.model import PriorityClassRef, WorkloadPriorityClass
from kueue_preempt.sim.arrivals.model import arrivals_text
from kueue_preempt.sim.arrivals.read import parse_arrivals
from kueue_preempt.sim.arrivals.resolve import resolve_arrivals
from kueue_preempt.sim.errors import ArrivalError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "jobs"
CLASSIC = str(ROOT / "examples" / "classic.yaml")
WHAT_IF_JOB = str(ROOT / "examples" / "what-if-job.yaml")
WHAT_IF_WORKLOAD = str(ROOT / "examples" / "what-if-workload.yaml")
Obj = dict[str, Any]
GI = 1024**3
MI = 1024**2


@pytest.fixture(scope="module")
def classic() -> ClusterDump:
    return load_dump(CLASSIC)


def fixture(name: str) -> Obj:
    data = yaml.safe_load((FIXTURES / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def raw(data: Obj, source: str = "job.yaml") -> RawObject:
    return RawObject(source, 1, data)


def with_classes(dump: ClusterDump, *pcs: PriorityClass, wpcs: tuple[WorkloadPriorityClass, ...] = ()) -> ClusterDump:
    return attrs.evolve(
        dump, priority_classes=(*dump.priority_classes, *pcs), workload_priority_classes=(*dump.workload_priority_classes, *wpcs)
    )


QUEUE = "kueue.x-k8s.io/queue-name"
CLASS = "kueue.x-k8s.io/priority-class"


def edited(data: Obj, labels: dict[str, str | None]) -> Obj:
    """A copy with ``labels`` set (``None`` removes one)."""
    out = copy.deepcopy(data)
    md = out["metadata"].setdefault("labels", {})
    for key, value in labels.items():
        if value is None:
            md.pop(key, None)
        else:
            md[key] = value
    return out


# --------------------------------------------------------------------------- Job


def test_a_job_becomes_one_pod_set_main_with_fas_1_requests(classic: ClusterDump) -> None:
    lw = workload_from_job(raw(fixture("job.yaml")), classic)
    (ps,) = lw.pod_sets
    # count = min(parallelism 4, completions 8); minCount from the partial-admission annotation.
    assert (ps.name, ps.count, ps.min_count) == ("main", 4, 2)
    # FAS-1: containers 3 cpu / 12Gi; the 6-cpu init container raises cpu; the sidecar adds
    # 500m/256Mi to the sum; the gpu limit stands in for its request; the overhead comes on top.
    assert dict(ps.requests) == {"cpu": 6250, "memory": 12 * GI + 384 * MI, "nvidia.com/gpu": 1}
    w = lw.workload
    assert (w.namespace, w.local_queue, w.priority) == ("research", "research-queue", 500)
    assert w.priority_class == PriorityClassRef(name="research-high")
    assert lw.is_pending and w.uid == "" and w.quota_reserved_at is None
    assert [s.name for s in w.spec_pod_sets] == ["main"]


@pytest.mark.parametrize(
    ("spec", "count"),
    [({}, 1), ({"parallelism": 5}, 5), ({"completions": 3}, 1), ({"parallelism": 6, "completions": 2}, 2), ({"parallelism": 0}, 0)],
)
def test_job_pod_count_is_parallelism_capped_by_completions(classic: ClusterDump, spec: Obj, count: int) -> None:
    data = fixture("job.yaml")
    del data["metadata"]["annotations"]
    data["spec"] = {**{k: v for k, v in data["spec"].items() if k not in ("parallelism", "completions")}, **spec}
    (ps,) = workload_from_job(raw(data), classic).pod_sets
    assert (ps.count, ps.min_count) == (count, None)


@pytest.mark.parametrize(
    ("value", "reason"),
    [("0", "0 is not between 1 and 3"), ("4", "4 is not between 1 and 3"), ("two", "'two' is not a positive integer"),
     ("-1", "'-1' is not a positive integer"), ("", "'' is not a positive integer")],
)  # fmt: skip
def test_an_invalid_min_parallelism_annotation_names_it(value: str, reason: str) -> None:
    data = fixture("job.yaml")
    data["metadata"]["annotations"]["kueue.x-k8s.io/job-min-parallelism"] = value
    with pytest.raises(ManifestError) as info:
        read_job(raw(data))
    assert (info.value.kind, info.value.name) == ("Job", "research/train-resnet")
    assert info.value.path == 'metadata.annotations["kueue.x-k8s.io/job-min-parallelism"]'
    assert reason in info.value.reason


def test_the_workload_name_follows_kueues_scheme() -> None:
    job = read_job(raw(fixture("job.yaml")))
    name = job.workload.workload.name
    assert re.fullmatch(r"job-train-resnet-[0-9a-f]{5}", name)
    expected = hashlib.sha1(b"Job\nbatch\ntrain-resnet\n").hexdigest()[:5]
    assert name == f"job-train-resnet-{expected}"
    assert workload_name("Job", "batch", "train-resnet", "uid-1") != name  # the UID is hashed too
    long = workload_name("Job", "batch", "x" * 300)
    assert len(long) == 253 and long.startswith("job-xxx")
    assert job.origin == "Job research/train-resnet"


def test_a_job_uid_labels_the_workload(classic: ClusterDump) -> None:
    data = fixture("job.yaml")
    data["metadata"]["uid"] = "6f1c1c36-55aa-4c43-9f1e-6a5f1e0f0e01"
    w = workload_from_job(raw(data), classic).workload
    assert w.labels["kueue.x-k8s.io/job-uid"] == "6f1c1c36-55aa-4c43-9f1e-6a5f1e0f0e01"
    assert w.name == workload_name("Job", "batch", "train-resnet", "6f1c1c36-55aa-4c43-9f1e-6a5f1e0f0e01")


def test_a_job_without_namespace_goes_to_default(classic: ClusterDump) -> None:
    data = fixture("job.yaml")
    del data["metadata"]["namespace"]
    job = read_job(raw(data))
    assert job.workload.workload.namespace == "default" and job.name == "default/train-resnet"


# --------------------------------------------------------------------------- JobSet and Pod


def test_a_jobset_has_one_pod_set_per_replicated_job(classic: ClusterDump) -> None:
    dump = with_classes(classic, PriorityClass("batch-high", 2000))
    lw = workload_from_job(raw(fixture("jobset.yaml")), dump)
    assert [(ps.name, ps.count) for ps in lw.pod_sets] == [("driver", 1), ("workers", 6)]
    assert dict(lw.pod_sets[1].requests) == {"cpu": 2000, "memory": 8 * GI, "nvidia.com/gpu": 1}
    w = lw.workload
    assert re.fullmatch(r"jobset-llm-finetune-[0-9a-f]{5}", w.name)
    # No class label: the first pod template naming a PriorityClass gives the priority.
    assert (w.priority, w.priority_class) == (2000, PriorityClassRef("batch-high", kind="PriorityClass", group="scheduling.k8s.io"))


def test_jobset_shape_errors_name_the_field() -> None:
    data = fixture("jobset.yaml")
    data["spec"]["replicatedJobs"][1]["name"] = "driver"
    with pytest.raises(ManifestError, match=r"spec\.replicatedJobs\[1\]\.name: replicated job 'driver' is listed twice"):
        read_job(raw(data))
    data = fixture("jobset.yaml")
    data["spec"]["replicatedJobs"] = [dict(data["spec"]["replicatedJobs"][0], name=f"r{i}") for i in range(MAX_POD_SETS + 1)]
    too_many = f"spec\\.replicatedJobs: has {MAX_POD_SETS + 1} replicated jobs; a Workload has at most {MAX_POD_SETS} pod sets"
    with pytest.raises(ManifestError, match=too_many):
        read_job(raw(data))
    data = fixture("jobset.yaml")
    del data["spec"]["replicatedJobs"][0]["template"]["spec"]["template"]
    with pytest.raises(ManifestError, match=r"spec\.replicatedJobs\[0\]\.template\.spec\.template: required field is missing"):
        read_job(raw(data))


def test_a_jobset_pod_set_count_must_fit_an_int32() -> None:
    data = fixture("jobset.yaml")
    data["spec"]["replicatedJobs"][1]["replicas"] = 2**30
    with pytest.raises(ManifestError, match=r"spec\.replicatedJobs\[1\]\.replicas: 1073741824 replicas of 3 pods is 3221225472 pods"):
        read_job(raw(data))


def test_a_pod_is_one_pod_set_main_of_one_pod_queue_from_the_annotation(classic: ClusterDump) -> None:
    lw = workload_from_job(raw(fixture("pod.yaml")), classic)
    (ps,) = lw.pod_sets
    assert (ps.name, ps.count, dict(ps.requests)) == ("main", 1, {"cpu": 2000, "memory": 8 * GI})
    assert lw.workload.local_queue == "research-queue"
    assert re.fullmatch(r"pod-notebook-[0-9a-f]{5}", lw.workload.name)
    assert (lw.workload.priority, lw.workload.priority_class) == (0, None)


def test_a_pod_of_a_kueue_pod_group_is_refused() -> None:
    data = edited(fixture("pod.yaml"), {"kueue.x-k8s.io/pod-group-name": "g1"})
    with pytest.raises(ManifestError, match="becomes a Workload only with its whole group"):
        read_job(raw(data))


# --------------------------------------------------------------------------- queue name


def test_the_queue_label_wins_over_the_annotation(classic: ClusterDump) -> None:
    data = edited(fixture("pod.yaml"), {QUEUE: "prod-queue"})
    assert read_job(raw(data)).queue_name == "prod-queue"


def test_a_job_without_queue_name_is_not_managed(classic: ClusterDump) -> None:
    data = edited(fixture("job.yaml"), {QUEUE: None})
    with pytest.raises(ManifestError) as info:
        workload_from_job(raw(data), classic)
    assert info.value.path == 'metadata.labels["kueue.x-k8s.io/queue-name"]'
    assert "Kueue does not manage a Job without a queue name" in info.value.reason
    assert "manageJobsWithoutQueueName" in info.value.reason


def test_a_job_without_queue_name_takes_the_default_local_queue(classic: ClusterDump) -> None:
    default_lq = attrs.evolve(classic.local_queues[0], namespace="research", name="default")
    dump = attrs.evolve(classic, local_queues=(*classic.local_queues, default_lq))
    lw = workload_from_job(raw(edited(fixture("job.yaml"), {QUEUE: None})), dump)
    assert lw.workload.local_queue == "default"


# --------------------------------------------------------------------------- priority


def test_a_missing_workload_priority_class_is_an_error(classic: ClusterDump) -> None:
    data = edited(fixture("job.yaml"), {CLASS: "gold"})
    with pytest.raises(ManifestError, match=r"metadata\.labels\[\"kueue\.x-k8s\.io/priority-class\"\]: WorkloadPriorityClass 'gold' is not in the dump"):
        workload_from_job(raw(data), classic)


def test_priority_falls_back_to_the_pod_templates_priority_class(classic: ClusterDump) -> None:
    data = edited(fixture("job.yaml"), {CLASS: None})
    data["spec"]["template"]["spec"]["priorityClassName"] = "high"
    with pytest.raises(ManifestError) as info:
        workload_from_job(raw(data), classic)
    assert info.value.path == "spec.template.spec.priorityClassName"
    w = workload_from_job(raw(data), with_classes(classic, PriorityClass("high", 7000))).workload
    assert (w.priority, w.priority_class) == (7000, PriorityClassRef("high", kind="PriorityClass", group="scheduling.k8s.io"))


def test_priority_falls_back_to_the_lowest_global_default_then_zero(classic: ClusterDump) -> None:
    data = edited(fixture("job.yaml"), {CLASS: None})
    assert workload_from_job(raw(data), classic).workload.priority == 0
    dump = with_classes(classic, PriorityClass("a", 300, global_default=True), PriorityClass("b", 100, global_default=True), PriorityClass("c", 5))
    w = workload_from_job(raw(data), dump).workload
    assert (w.priority, w.priority_class) == (100, PriorityClassRef("b", kind="PriorityClass", group="scheduling.k8s.io"))


def test_workload_priority_class_defaulting_picks_default(classic: ClusterDump) -> None:
    data = edited(fixture("job.yaml"), {CLASS: None})
    data["spec"]["template"]["spec"]["priorityClassName"] = "high"
    dump = with_classes(classic, PriorityClass("high", 7000), wpcs=(WorkloadPriorityClass("default", 42),))
    assert workload_from_job(raw(data), dump).workload.priority == 42
    assert workload_from_job(raw(data), dump, workload_priority_class_defaulting=False).workload.priority == 7000


# --------------------------------------------------------------------------- kinds


@pytest.mark.parametrize(
    ("api_version", "kind"),
    [("ray.io/v1", "RayJob"), ("kubeflow.org/v2beta1", "MPIJob"), ("kubeflow.org/v1", "PyTorchJob"), ("apps/v1", "Deployment")],
)
def test_other_integrations_kinds_are_refused_by_name(api_version: str, kind: str) -> None:
    data = {**fixture("rayjob.yaml"), "apiVersion": api_version, "kind": kind}
    assert is_job(raw(data))
    with pytest.raises(ManifestError) as info:
        read_job(raw(data))
    assert info.value.kind == kind and info.value.path == "kind"
    assert f"{kind} ({api_version}) is not a kind kueue-preempt turns into a Workload" in info.value.reason
    assert "batch/v1 Job, jobset.x-k8s.io/v1alpha2 JobSet and v1 Pod" in info.value.reason


def test_another_api_version_is_refused() -> None:
    data = {**fixture("job.yaml"), "apiVersion": "batch/v2"}
    with pytest.raises(ManifestError, match="apiVersion: batch/v2 is not read; use batch/v1"):
        read_job(raw(data))


def test_kinds_that_are_not_jobs() -> None:
    assert not is_job(raw({"apiVersion": "v1", "kind": "ConfigMap"}))
    assert not is_job(raw({"apiVersion": "kueue.x-k8s.io/v1beta2", "kind": "Workload"}))
    assert is_job(raw({"apiVersion": "v1", "kind": "Pod"}))
    assert not is_job(raw({"apiVersion": "batch/v1", "kind": ["Job"]}))  # a hostile kind is no job


def test_a_pod_needs_a_spec() -> None:
    data = fixture("pod.yaml")
    del data["spec"]
    with pytest.raises(ManifestError, match=r"Pod research/notebook: spec: required field is missing"):
        read_job(raw(data))


def test_a_job_and_its_hand_written_workload_are_the_same_workload(classic: ClusterDump) -> None:
    """examples/what-if-job.yaml is the Job behind examples/what-if-workload.yaml."""
    (job_raw,) = parse_documents(Path(WHAT_IF_JOB).read_text(encoding="utf-8"), source="job")
    from_job = workload_from_job(job_raw, classic)
    from_manifest = load_dump(WHAT_IF_WORKLOAD).workloads[0]
    assert from_job.pod_sets == from_manifest.pod_sets
    assert (from_job.workload.priority, from_job.workload.local_queue) == (1000, from_manifest.workload.local_queue)
    assert from_job.workload.priority_class == from_manifest.workload.priority_class


def test_bad_requests_in_the_template_name_the_jobs_field() -> None:
    data = fixture("job.yaml")
    data["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "lots"
    with pytest.raises(ManifestError) as info:
        read_job(raw(data))
    assert (info.value.kind, info.value.path) == ("Job", "spec.template.spec.containers[0].resources.requests.cpu")
    data = fixture("job.yaml")
    data["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["pods"] = "1"
    with pytest.raises(ManifestError, match="the resource 'pods' cannot be requested"):
        read_job(raw(data))


# --------------------------------------------------------------------------- CLI


def explain_json(*args: str) -> Obj:
    result = run_cli("explain", CLASSIC, *args, "-o", "json", "--now", "2026-03-01T00:00:00Z")
    assert result.returncode in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    assert isinstance(doc, dict)
    return doc


def test_cli_explain_incoming_job_decides_as_its_workload() -> None:
    from_job = explain_json("--incoming", WHAT_IF_JOB)
    from_workload = explain_json("--incoming", WHAT_IF_WORKLOAD)
    assert from_job["incomingFrom"] == {"kind": "Job", "name": "prod/quarterly-forecast"}
    assert re.fullmatch(r"prod/job-quarterly-forecast-[0-9a-f]{5}", from_job["workload"])
    assert [t["workload"] for t in from_job["targets"]] == [t["workload"] for t in from_workload["targets"]]
    assert len(from_job["targets"]) == 2
    for key in ("clusterQueue", "priority", "outcome"):
        assert from_job.get(key) == from_workload.get(key)


def test_cli_explain_incoming_job_table_names_the_job() -> None:
    result = run_cli("explain", CLASSIC, "--incoming", WHAT_IF_JOB, "--no-trace")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[1] == "Built from:    Job prod/quarterly-forecast (the Workload Kueue's job integration creates for it)"
    assert "via LocalQueue prod/prod-queue" in lines[2]


def test_cli_explain_incoming_jobset(tmp_path: Path) -> None:
    result = run_cli("explain", CLASSIC, "--incoming", str(FIXTURES / "jobset.yaml"), "-o", "json")
    # The workers' template names PriorityClass batch-high, which classic.yaml does not have.
    assert result.returncode == 3
    assert "JobSet research/llm-finetune: spec.replicatedJobs[1].template.spec.template.spec.priorityClassName" in result.stderr
    assert "PriorityClass 'batch-high' is not in the dump" in result.stderr
    pc = tmp_path / "pc.yaml"
    pc.write_text(yaml.safe_dump({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch-high"}, "value": 2000}))
    result = run_cli("explain", CLASSIC, str(pc), "--incoming", str(FIXTURES / "jobset.yaml"), "-o", "json")
    assert result.returncode in (0, 1), result.stderr
    doc = json.loads(result.stdout)
    assert doc["incomingFrom"] == {"kind": "JobSet", "name": "research/llm-finetune"}
    assert [p["name"] for p in doc["assignment"]["podSets"]] == ["driver", "workers"]


def test_cli_explain_incoming_refuses_a_rayjob() -> None:
    result = run_cli("explain", CLASSIC, "--incoming", str(FIXTURES / "rayjob.yaml"))
    assert result.returncode == 3 and result.stdout == ""
    assert "RayJob (ray.io/v1) is not a kind kueue-preempt turns into a Workload" in result.stderr


def test_cli_explain_incoming_job_without_queue(tmp_path: Path) -> None:
    path = tmp_path / "job.yaml"
    path.write_text(yaml.safe_dump(edited(fixture("job.yaml"), {QUEUE: None})))
    result = run_cli("explain", CLASSIC, "--incoming", str(path))
    assert result.returncode == 3
    assert "Kueue does not manage a Job without a queue name" in result.stderr


def test_cli_explain_incoming_counts_workloads_and_jobs(tmp_path: Path) -> None:
    path = tmp_path / "cm.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x"}}))
    result = run_cli("explain", CLASSIC, "--incoming", str(path))
    assert result.returncode == 3
    assert "--incoming needs exactly one Workload, Job, JobSet or Pod, found 0; not read: ConfigMap (v1)" in result.stderr
    both = tmp_path / "both.yaml"
    both.write_text(Path(WHAT_IF_JOB).read_text(encoding="utf-8") + "\n---\n" + Path(WHAT_IF_WORKLOAD).read_text(encoding="utf-8"))
    result = run_cli("explain", CLASSIC, "--incoming", str(both))
    assert result.returncode == 3 and "found 2" in result.stderr


# --------------------------------------------------------------------------- arrivals

SIM_CLUSTER = str(ROOT / "examples" / "sim-cluster.yaml")


def gpu_job(name: str, namespace: str, queue: str, cls: str, gpus: int, parallelism: int) -> Obj:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace, "labels": {"kueue.x-k8s.io/queue-name": queue, "kueue.x-k8s.io/priority-class": cls}},
        "spec": {"parallelism": parallelism, "template": {"spec": {"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "ghcr.io/example/train:1", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]}}},
    }  # fmt: skip


def test_arrivals_accept_a_job_and_resolve_it_against_the_dump() -> None:
    rows = [
        {"at": 5, "duration": 60, "workload": gpu_job("sweep", "research", "research", "research-batch", 1, 3)},
        {"at": 0, "duration": 60, "workload": {**fixture("pod.yaml"), "metadata": {"name": "nb", "namespace": "prod",
                                                 "labels": {"kueue.x-k8s.io/queue-name": "prod"}}}},
    ]  # fmt: skip
    text = "".join(json.dumps(r) + "\n" for r in rows)
    file = parse_arrivals(text, source="arrivals.jsonl")
    assert parse_arrivals(arrivals_text(file), source="again.jsonl") == file  # writes back as written
    arrivals = resolve_arrivals(file, load_dump(SIM_CLUSTER)).arrivals
    by_name = {a.workload.workload.name.rsplit("-", 1)[0]: a for a in arrivals}
    sweep, nb = by_name["job-sweep"], by_name["pod-nb"]
    assert sweep.cluster_queue == "research" and nb.cluster_queue == "prod"
    assert (sweep.workload.workload.priority, [(p.name, p.count) for p in sweep.workload.pod_sets]) == (100, [("main", 3)])
    assert dict(sweep.workload.pod_sets[0].requests) == {"nvidia.com/gpu": 1}
    assert nb.workload.workload.priority == 0
    assert [a.at for a in arrivals] == [0, 5]


def test_cli_simulate_with_job_arrivals(tmp_path: Path) -> None:
    path = tmp_path / "arrivals.jsonl"
    rows = [{"at": 0, "duration": 60, "workload": gpu_job("a", "research", "research", "research-batch", 1, 2)},
            {"at": 10, "duration": 60, "workload": gpu_job("b", "prod", "prod", "prod-critical", 2, 2)}]  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    timeline = tmp_path / "timeline.jsonl"
    result = run_cli("simulate", SIM_CLUSTER, "--arrivals", str(path), "--timeline", str(timeline))
    assert result.returncode == 0, result.stderr
    events = [json.loads(line) for line in timeline.read_text().splitlines()]
    admitted = {e["workload"].rsplit("-", 1)[0] for e in events if e["event"] == "admitted" and not e.get("initial")}
    assert admitted == {"research/job-a", "prod/job-b"}


@pytest.mark.parametrize(
    ("workload", "field", "reason"),
    [
        ({**gpu_job("a", "research", "research", "gold", 1, 1)}, 'workload.metadata.labels["kueue.x-k8s.io/priority-class"]', "WorkloadPriorityClass 'gold' is not in the dump"),
        ({**gpu_job("a", "research", "nope", "research-batch", 1, 1)}, 'workload.metadata.labels["kueue.x-k8s.io/queue-name"]', "LocalQueue research/nope is not in the dump"),
        ({"apiVersion": "ray.io/v1", "kind": "RayJob", "metadata": {"name": "r"}}, "workload.kind", "RayJob (ray.io/v1) is not a kind"),
    ],
)  # fmt: skip
def test_arrival_errors_name_the_line_and_the_jobs_field(workload: Obj, field: str, reason: str) -> None:
    text = json.dumps({"at": 0, "duration": 1, "workload": workload}) + "\n"
    with pytest.raises(ArrivalError) as info:
        resolve_arrivals(parse_arrivals(text, source="a.jsonl"), load_dump(SIM_CLUSTER))
    assert (info.value.line, info.value.field) == (1, field)
    assert reason in str(info.value)


def test_job_workload_is_a_frozen_value() -> None:
    job = read_job(raw(fixture("job.yaml")))
    assert isinstance(job, JobWorkload) and isinstance(job.workload, LoadedWorkload)
    assert read_job(raw(fixture("job.yaml"), source="other.yaml")) == job
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        job.queue_name = "x"  # type: ignore[misc]

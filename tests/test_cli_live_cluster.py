"""The live cluster as an input: the real ``kubectl`` against a local fake API server.

Every command that takes DUMP files reads the cluster through ``kubectl get TYPE -o json`` when
none is given; the answers must be the ones the same objects give as a dump file.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any, Iterator

import pytest

from kueue_preempt.cli.main import main
from kueue_preempt.cli.plugin import PLUGIN_PROG
from kueue_preempt.io import ManifestTooLarge, parse_documents
from kueue_preempt.io.kubectl import (
    KUEUE_RESOURCES,
    ClusterReadError,
    KubectlNotFound,
    KubectlSource,
    load_cluster,
    read_cluster,
)
from kueue_preempt.io.read import Limits

from kube_api_server import FakeApiServer, write_kubeconfig

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl is not on PATH (these tests run the real kubectl)")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NOW = "2026-03-02T10:00:00Z"
CLASSIC_WORKLOAD = "prod/job-fraud-model-retrain-f737f"


def _objects(name: str) -> list[dict[str, Any]]:
    pytest.importorskip("yaml")
    return [raw.data for raw in parse_documents((EXAMPLES / name).read_bytes(), source=name)]


@pytest.fixture(autouse=True)
def _kube_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # kubectl's discovery cache in the test's directory: nothing read from or written to ~/.kube.
    monkeypatch.setenv("KUBECACHEDIR", str(tmp_path / "kube-cache"))
    monkeypatch.delenv("KUBECONFIG", raising=False)


@pytest.fixture
def classic(tmp_path: Path) -> Iterator[tuple[FakeApiServer, Path]]:
    with FakeApiServer(_objects("classic.yaml"), missing={"Cohort"}) as server:
        yield server, write_kubeconfig(tmp_path / "kubeconfig", server.url)


def _run(capsys: pytest.CaptureFixture[str], *argv: str, prog: str | None = None) -> tuple[int, str, str]:
    code = main(list(argv)) if prog is None else main(list(argv), prog=prog)
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- same answers


@needs_kubectl
def test_explain_cycle_check_live_match_the_dump_file(
    classic: tuple[FakeApiServer, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    server, kubeconfig = classic
    dump = str(EXAMPLES / "classic.yaml")
    explain = ["explain", "--workload", CLASSIC_WORKLOAD, "--now", NOW, "-o", "json"]
    live = _run(capsys, *explain, "--kubeconfig", str(kubeconfig))
    from_file = _run(capsys, *explain[:1], dump, *explain[1:])
    assert live[0] == from_file[0] == 0
    assert json.loads(live[1]) == json.loads(from_file[1])
    assert json.loads(live[1])["targets"], "the classic example preempts something"

    table = _run(capsys, "explain", "--workload", CLASSIC_WORKLOAD, "--now", NOW, "--kubeconfig", str(kubeconfig))
    assert table[1] == _run(capsys, "explain", dump, "--workload", CLASSIC_WORKLOAD, "--now", NOW)[1]

    cycle = ["cycle", "--now", NOW, "-o", "json"]
    live = _run(capsys, *cycle, "--kubeconfig", str(kubeconfig))
    from_file = _run(capsys, cycle[0], dump, *cycle[1:])
    assert live[0] == from_file[0]
    assert json.loads(live[1]) == json.loads(from_file[1])

    live = _run(capsys, "check", "-o", "json", "--kubeconfig", str(kubeconfig))
    from_file = _run(capsys, "check", dump, "-o", "json")
    assert live[0] == from_file[0] == 0
    live_doc, file_doc = json.loads(live[1]), json.loads(from_file[1])
    assert live_doc["sources"] == ["cluster (current context)"]
    assert file_doc["skipped"] == {"ConfigMap (v1)": 1}  # the file holds a ConfigMap; kubectl reads none
    assert live_doc["skipped"] == {}
    for doc in (live_doc, file_doc):
        del doc["sources"], doc["skipped"]
    assert live_doc == file_doc
    # Each type is listed exactly once, in all namespaces; the missing Cohort CRD is skipped.
    lists = sorted(server.list_requests())
    assert len(lists) == 4 * (len(KUEUE_RESOURCES) - 1)
    assert "/apis/kueue.x-k8s.io/v1beta1/workloads?limit=500" in lists
    assert not any("cohorts" in p for p in server.requests)


@needs_kubectl
def test_cohorts_are_read_when_served(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeApiServer(_objects("fair-sharing.yaml")) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        live = _run(capsys, "check", "-o", "json", "--kubeconfig", str(kubeconfig))
    from_file = _run(capsys, "check", str(EXAMPLES / "fair-sharing.yaml"), "-o", "json")
    assert live[0] == from_file[0] == 0
    live_doc, file_doc = json.loads(live[1]), json.loads(from_file[1])
    assert live_doc["counts"]["Cohort"] == 3
    del live_doc["sources"], file_doc["sources"]
    assert live_doc == file_doc


@needs_kubectl
def test_podgroup_live_matches_the_dump_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["podgroup", "--group", "ml/llm-train", "-o", "json"]
    with FakeApiServer(_objects("podgroup.yaml"), missing={"CompositePodGroup"}) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        live = _run(capsys, *args, "--kubeconfig", str(kubeconfig))
    from_file = _run(capsys, args[0], str(EXAMPLES / "podgroup.yaml"), *args[1:])
    assert live[0] == from_file[0] == 0
    assert json.loads(live[1]) == json.loads(from_file[1])
    assert any(p.startswith("/api/v1/pods?") for p in server.requests)


@needs_kubectl
def test_namespace_and_context_flags(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    with FakeApiServer(_objects("classic.yaml"), missing={"Cohort", "WorkloadPriorityClass"}) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url, context="kind-test")
        code, out, err = _run(
            capsys, "check", "-o", "json", "--kubeconfig", str(kubeconfig), "--context", "kind-test", "-n", "prod", "-v"
        )
        assert code == 0, err
        doc = json.loads(out)
        assert doc["sources"] == ["cluster (context kind-test)"]
        assert "WorkloadPriorityClass" not in doc["counts"]
        assert {p["workload"].split("/")[0] for p in doc["pending"]} == {"prod"}
        assert "the cluster does not serve Cohort, WorkloadPriorityClass (read as none)" in err
        assert "namespace prod only" in err
        assert "/apis/kueue.x-k8s.io/v1beta1/namespaces/prod/workloads?limit=500" in server.requests
        # KUBECONFIG works as in kubectl, and -A is the default spelled out.
        monkeypatch.setenv("KUBECONFIG", str(kubeconfig))
        code, out, err = _run(capsys, "check", "-A", "-o", "json")
        assert code == 0, err
        assert json.loads(out)["sources"] == ["cluster (current context)"]


# --------------------------------------------------------------------------- one error line


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@needs_kubectl
def test_forbidden_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeApiServer(_objects("classic.yaml"), forbidden={"Workload"}) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        code, out, err = _run(capsys, "explain", "--workload", CLASSIC_WORKLOAD, "--kubeconfig", str(kubeconfig))
    assert (code, out) == (4, "")
    line = _one_line(err)
    assert line.startswith("kueue-preempt: error: kubectl get workloads.kueue.x-k8s.io: ")
    assert "Forbidden" in line and "cannot list resource" in line


@needs_kubectl
def test_kueue_not_installed_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with FakeApiServer([], missing={"ClusterQueue"}) as server:
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", server.url)
        code, out, err = _run(capsys, "cycle", "--kubeconfig", str(kubeconfig))
    assert (code, out) == (4, "")
    assert _one_line(err) == (
        "kueue-preempt: error: kubectl get clusterqueues.kueue.x-k8s.io: "
        "the server does not serve ClusterQueue (is Kueue installed?)"
    )


@needs_kubectl
def test_no_context_is_one_error_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kubeconfig = tmp_path / "kubeconfig"
    write_kubeconfig(kubeconfig, "http://127.0.0.1:1")
    code, out, err = _run(capsys, "check", "--kubeconfig", str(kubeconfig), "--context", "nope")
    assert (code, out) == (4, "")
    assert "context was not found for specified context: nope" in _one_line(err)

    empty = tmp_path / "empty-kubeconfig"
    empty.write_text("apiVersion: v1\nkind: Config\n")
    code, out, err = _run(capsys, "check", "--kubeconfig", str(empty))
    assert (code, out) == (4, "")
    assert "no cluster configured" in _one_line(err)


def test_kubectl_missing_is_one_error_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = _run(capsys, "check")
    assert (code, out) == (5, "")
    assert _one_line(err) == (
        "kueue-preempt: error: kubectl: not found; install kubectl to read the cluster, or give DUMP files"
    )
    with pytest.raises(KubectlNotFound):
        read_cluster(KubectlSource(kubectl=str(tmp_path / "kubectl")))


def test_cluster_flags_with_dump_files_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "check", str(EXAMPLES / "spot-on-demand.yaml"), "--context", "prod")
    assert (code, out) == (3, "")
    assert "--context select the cluster to read: give them without DUMP files" in _one_line(err)


# --------------------------------------------------------------------------- bounds


@needs_kubectl
def test_output_size_and_time_are_bounded(classic: tuple[FakeApiServer, Path], tmp_path: Path) -> None:
    server, kubeconfig = classic
    source = KubectlSource(kubeconfig=str(kubeconfig))
    with pytest.raises(ManifestTooLarge, match="output larger than 2000 bytes"):
        read_cluster(source, limits=Limits(max_bytes=2000))
    with pytest.raises(ManifestTooLarge, match="more than 5 objects"):
        read_cluster(source, limits=Limits(max_objects=5))
    dump = load_cluster(source)
    assert len(dump.workloads) == 7 and len(dump.cluster_queues) == 2

    with FakeApiServer([], slow={"ResourceFlavor"}, slow_seconds=2.0) as slow:
        config = write_kubeconfig(tmp_path / "slow-kubeconfig", slow.url)
        with pytest.raises(ClusterReadError, match=r"no answer within 0.5 s"):
            read_cluster(KubectlSource(kubeconfig=str(config), timeout=0.5))


# --------------------------------------------------------------------------- the kubectl plugin


def test_plugin_program_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "explain", "--help", prog=PLUGIN_PROG)
    assert code == 0 and out.startswith("usage: kubectl kueue-preempt explain ")
    code, out, err = _run(capsys, "explain", prog=PLUGIN_PROG)
    assert code == 2 and _one_line(err).startswith("kubectl kueue-preempt: error: ")
    assert err.rstrip().endswith("(see kubectl kueue-preempt explain --help)")
    code, out, err = _run(capsys, "check", "/nonexistent/dump.yaml", prog=PLUGIN_PROG)
    assert code == 4 and _one_line(err).startswith("kubectl kueue-preempt: error: ")


def test_plugin_entry_point_is_declared() -> None:
    tomllib = pytest.importorskip("tomllib")
    pyproject = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())
    assert pyproject["project"]["scripts"]["kubectl-kueue_preempt"] == "kueue_preempt.cli.plugin:main"


@needs_kubectl
def test_kubectl_finds_the_plugin(tmp_path: Path, classic: tuple[FakeApiServer, Path]) -> None:
    """``kubectl kueue-preempt ...`` through kubectl's own plugin discovery on PATH."""
    _, kubeconfig = classic
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    plugin = bin_dir / "kubectl-kueue_preempt"
    # What the [project.scripts] entry installs: a launcher calling kueue_preempt.cli.plugin:main.
    plugin.write_text(
        f"#!{sys.executable}\nimport sys\nfrom kueue_preempt.cli.plugin import main\nsys.exit(main())\n"
    )
    plugin.chmod(plugin.stat().st_mode | stat.S_IXUSR)
    src = str(Path(__file__).resolve().parent.parent / "src")
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": os.pathsep.join(p for p in (src, os.environ.get("PYTHONPATH")) if p),
    }
    assert KUBECTL is not None
    listed = subprocess.run([KUBECTL, "plugin", "list"], env=env, capture_output=True, text=True, timeout=30)
    assert str(plugin) in listed.stdout
    done = subprocess.run(
        [KUBECTL, "kueue-preempt", "explain", "--workload", CLASSIC_WORKLOAD, "--now", NOW, "--kubeconfig", str(kubeconfig)],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "job-fraud-model-retrain" in done.stdout
    bad = subprocess.run([KUBECTL, "kueue-preempt", "bogus"], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and bad.stderr.startswith("kubectl kueue-preempt: error: ")


def test_kubectl_command_lines() -> None:
    """An argument list (no shell); every value in ``--flag=value`` form, so a value that starts
    with a dash can never become another flag."""
    cq, workloads = KUEUE_RESOURCES[1], KUEUE_RESOURCES[5]
    source = KubectlSource(context="-v=9", kubeconfig="/tmp/k config", namespace="--all-namespaces")
    assert source.command(cq) == [
        "kubectl", "get", "clusterqueues.kueue.x-k8s.io", "--output=json", "--kubeconfig=/tmp/k config", "--context=-v=9"
    ]
    assert source.command(workloads)[-1] == "--namespace=--all-namespaces"
    assert KubectlSource().command(workloads) == ["kubectl", "get", "workloads.kueue.x-k8s.io", "--output=json", "--all-namespaces"]


def test_kubectl_stderr_flood_keeps_the_last_line(tmp_path: Path) -> None:
    """kubectl's own error line comes after its log lines: a flood of them is bounded, not fatal."""
    fake = tmp_path / "kubectl"
    fake.write_text(
        f"#!{sys.executable}\nimport sys\n"
        "for i in range(20000):\n"
        "    sys.stderr.write('E1127 10:00:00.000000   1 memcache.go:265] noise %d\\n' % i)\n"
        "sys.stderr.write('error: the final word\\n')\nsys.exit(1)\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(ClusterReadError) as caught:
        read_cluster(KubectlSource(kubectl=str(fake)))
    assert str(caught.value) == "kubectl get resourceflavors.kueue.x-k8s.io: the final word"

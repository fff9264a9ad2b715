"""A tiny Kubernetes API server for tests: discovery and list endpoints served from a dump.

Real ``kubectl`` talks to it over plain HTTP on 127.0.0.1 (a random port), so the live-cluster
reader is tested end to end against kubectl's own discovery, URL building and error messages.
It serves what ``kubectl get TYPE -o json`` needs: ``/version``, legacy discovery (``/api``,
``/api/v1``, ``/apis``, ``/apis/GROUP/VERSION``) and the list endpoints (cluster-wide and per
namespace). Kinds in ``missing`` are left out of discovery (a CRD the release does not have,
404 on its list path); kinds in ``forbidden`` answer 403 as RBAC does; kinds in ``slow`` answer
after ``slow_seconds``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterable

__all__ = ["RESOURCES", "FakeApiServer", "write_kubeconfig"]

# kind -> (group, default version, plural, namespaced)
RESOURCES: dict[str, tuple[str, str, str, bool]] = {
    "ResourceFlavor": ("kueue.x-k8s.io", "v1beta2", "resourceflavors", False),
    "ClusterQueue": ("kueue.x-k8s.io", "v1beta2", "clusterqueues", False),
    "Cohort": ("kueue.x-k8s.io", "v1beta2", "cohorts", False),
    "WorkloadPriorityClass": ("kueue.x-k8s.io", "v1beta2", "workloadpriorityclasses", False),
    "LocalQueue": ("kueue.x-k8s.io", "v1beta2", "localqueues", True),
    "Workload": ("kueue.x-k8s.io", "v1beta2", "workloads", True),
    "PriorityClass": ("scheduling.k8s.io", "v1", "priorityclasses", False),
    "Namespace": ("", "v1", "namespaces", False),
    "LimitRange": ("", "v1", "limitranges", True),
    "Node": ("", "v1", "nodes", False),
    "Pod": ("", "v1", "pods", True),
    "PodDisruptionBudget": ("policy", "v1", "poddisruptionbudgets", True),
    "PodGroup": ("scheduling.k8s.io", "v1alpha2", "podgroups", True),
    "CompositePodGroup": ("scheduling.k8s.io", "v1alpha2", "compositepodgroups", True),
}


class FakeApiServer:
    """Serve ``objects`` (dicts with apiVersion/kind/metadata) on 127.0.0.1, a free port."""

    def __init__(
        self,
        objects: Iterable[dict[str, Any]],
        *,
        missing: Iterable[str] = (),
        forbidden: Iterable[str] = (),
        slow: Iterable[str] = (),
        slow_seconds: float = 3.0,
    ) -> None:
        self.objects = list(objects)
        self.missing = set(missing)
        self.forbidden = set(forbidden)
        self.slow = set(slow)
        self.slow_seconds = slow_seconds
        self.requests: list[str] = []
        # kind -> served version: the objects' own version, else the default.
        self.versions = {kind: spec[1] for kind, spec in RESOURCES.items()}
        for obj in self.objects:
            kind = obj.get("kind")
            if kind in RESOURCES:
                self.versions[kind] = str(obj["apiVersion"]).rpartition("/")[2]
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> "FakeApiServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    def list_requests(self) -> list[str]:
        """The list calls received (discovery left out), paths without the query."""
        return [p for p in self.requests if "limit=" in p]  # kubectl pages lists, never discovery

    # ------------------------------------------------------------------ discovery

    def _served(self) -> dict[str, tuple[str, str, str, bool]]:
        return {
            kind: (group, self.versions[kind], plural, namespaced)
            for kind, (group, _, plural, namespaced) in RESOURCES.items()
            if kind not in self.missing
        }

    def _group_versions(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for group, version, _, _ in self._served().values():
            if group and version not in out.setdefault(group, []):
                out[group].append(version)
        return out

    def _resource_list(self, group: str, version: str) -> dict[str, Any] | None:
        resources = [
            {
                "name": plural,
                "singularName": kind.lower(),
                "namespaced": namespaced,
                "kind": kind,
                "verbs": ["get", "list", "watch"],
            }
            for kind, (g, v, plural, namespaced) in self._served().items()
            if g == group and v == version
        ]
        if not resources:
            return None
        gv = f"{group}/{version}" if group else version
        return {"kind": "APIResourceList", "apiVersion": "v1", "groupVersion": gv, "resources": resources}

    def answer(self, path: str) -> tuple[int, dict[str, Any]]:
        if path == "/version":
            return 200, {"major": "1", "minor": "32", "gitVersion": "v1.32.0"}
        if path == "/api":
            return 200, {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        if path == "/apis":
            groups = [
                {
                    "name": group,
                    "versions": [{"groupVersion": f"{group}/{v}", "version": v} for v in versions],
                    "preferredVersion": {"groupVersion": f"{group}/{versions[0]}", "version": versions[0]},
                }
                for group, versions in self._group_versions().items()
            ]
            return 200, {"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}
        parts = path.strip("/").split("/")
        if parts[0] == "api":
            group, rest = "", parts[1:]
        elif parts[0] == "apis" and len(parts) >= 3:
            group, rest = parts[1], parts[2:]
        else:
            return _not_found(path)
        version, rest = rest[0], rest[1:]
        if not rest:
            found = self._resource_list(group, version)
            return (200, found) if found is not None else _not_found(path)
        namespace = None
        if len(rest) == 3 and rest[0] == "namespaces":
            namespace, rest = rest[1], rest[2:]
        if len(rest) != 1:
            return _not_found(path)
        for kind, (g, v, plural, namespaced) in self._served().items():
            if (g, v, plural) == (group, version, rest[0]) and (namespace is None or namespaced):
                return self._list(kind, g, v, plural, namespace)
        return _not_found(path)

    def _list(self, kind: str, group: str, version: str, plural: str, namespace: str | None) -> tuple[int, dict[str, Any]]:
        if kind in self.slow:
            time.sleep(self.slow_seconds)
        if kind in self.forbidden:
            scope = f'in the namespace "{namespace}"' if namespace else "at the cluster scope"
            qualified = f"{plural}.{group}" if group else plural
            message = (
                f'{qualified} is forbidden: User "system:anonymous" cannot list resource "{plural}" '
                f'in API group "{group}" {scope}'
            )
            return 403, {
                "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": message, "reason": "Forbidden", "details": {"group": group, "kind": plural}, "code": 403,
            }
        items = [
            o for o in self.objects
            if o.get("kind") == kind
            and (namespace is None or o.get("metadata", {}).get("namespace") == namespace)
        ]
        gv = f"{group}/{version}" if group else version
        # As the API server lists built-in types: items without kind/apiVersion (kubectl adds them).
        items = [{k: v for k, v in o.items() if k not in ("kind", "apiVersion")} for o in items]
        return 200, {"kind": f"{kind}List", "apiVersion": gv, "metadata": {"resourceVersion": "1"}, "items": items}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the http.server API
                server.requests.append(self.path)
                code, body = server.answer(self.path.split("?", 1)[0])
                data = json.dumps(body).encode()
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a test of kubectl's timeout)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler


def _not_found(path: str) -> tuple[int, dict[str, Any]]:
    return 404, {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": f"the server could not find the requested resource ({path})", "reason": "NotFound", "code": 404,
    }


def write_kubeconfig(path: Path, url: str, *, context: str = "test", namespace: str = "default") -> Path:
    """A kubeconfig whose current context points at ``url`` (plain HTTP, no credentials)."""
    path.write_text(
        json.dumps(
            {
                "apiVersion": "v1",
                "kind": "Config",
                "clusters": [{"name": "fake", "cluster": {"server": url, "insecure-skip-tls-verify": True}}],
                "users": [{"name": "nobody", "user": {}}],
                "contexts": [{"name": context, "context": {"cluster": "fake", "user": "nobody", "namespace": namespace}}],
                "current-context": context,
            }
        )
    )
    return path

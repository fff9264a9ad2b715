"""The architecture, checked: folders are layers, no import circles, private names stay home.

The contracts live in pyproject.toml (``[tool.importlinter]``) so that ``lint-imports`` (and
``nox -s lint``) and this test check the same rules. Two rules import-linter cannot express are
checked here with ``ast``: a single-underscore *name* (not only a module) is imported only inside
the folder that holds it, and the root namespace stays small.

A contract that the code breaks today is marked ``xfail(strict=True)`` with the violations in its
reason; when they are fixed the test XPASSes, fails, and the mark must be removed.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kueue_preempt

ROOT = Path(__file__).resolve().parent.parent
PACKAGE_DIR = Path(kueue_preempt.__file__).resolve().parent
PACKAGE = "kueue_preempt"
ROOT_NAMESPACE_LIMIT = 40
# import-linter (with ``acyclic_siblings`` and contract ids) and grimp need Python >= 3.11; the
# test extra installs them there only. The ast checks below run everywhere.
needs_linter = pytest.mark.skipif(
    importlib.util.find_spec("importlinter") is None or importlib.util.find_spec("grimp") is None,
    reason="import-linter >= 2.17 and grimp need Python >= 3.11",
)


def _lint_imports(contract: str) -> subprocess.CompletedProcess[str]:
    """Run ``lint-imports`` for one contract of pyproject.toml against the package under test."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(PACKAGE_DIR.parent), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    return subprocess.run(
        [sys.executable, "-c", code, "--no-cache", "--no-logo", "--contract", contract, str(ROOT / "pyproject.toml")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )


@pytest.mark.parametrize(
    "contract",
    [
        "layers",
        "acyclic",
        "library-not-testing",
        "private-modules",
    ],
)
@needs_linter
def test_import_contract(contract: str) -> None:
    result = _lint_imports(contract)
    assert result.returncode == 0, result.stdout + result.stderr


@needs_linter
def test_no_import_cycle_between_modules() -> None:
    """No strongly connected set of modules (a package's ``__init__`` counts as a module).

    ``acyclic_siblings`` covers circles between sibling folders and modules; this also catches a
    circle through a package's ``__init__`` (a child importing its parent's re-exports).
    """
    import grimp

    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m)) for m in sorted(graph.modules)}
    cycles = _strongly_connected(edges)
    assert cycles == []


@needs_linter
def test_no_import_cycle_between_folders() -> None:
    """Collapse every module to its folder (package); the folder graph has no circle either."""
    import grimp

    graph = grimp.build_graph(PACKAGE, cache_dir=None)
    packages = {m for m in graph.modules if graph.find_children(m)}

    def folder(module: str) -> str:
        return module if module in packages else module.rpartition(".")[0]

    edges: dict[str, set[str]] = {folder(m): set() for m in graph.modules}
    for m in graph.modules:
        for imported in graph.find_modules_directly_imported_by(m):
            a, b = folder(m), folder(imported)
            # A package uses its own subfolders (its __init__ re-exports them): not a circle.
            if a != b and not b.startswith(a + "."):
                edges[a].add(b)
    assert _strongly_connected({k: sorted(v) for k, v in edges.items()}) == []


def _strongly_connected(edges: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative; the components with more than one node, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in edges:
        if start in index:
            continue
        work: list[tuple[str, int]] = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            targets = edges.get(node, [])
            if i < len(targets):
                work.append((node, i + 1))
                child = targets[i]
                if child not in index:
                    work.append((child, 0))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return sorted(found)


def _module_name(path: Path) -> tuple[str, bool]:
    """The dotted name of a source file and whether it is a package's ``__init__``."""
    parts = list(path.relative_to(PACKAGE_DIR.parent).with_suffix("").parts)
    is_package = parts[-1] == "__init__"
    if is_package:
        parts.pop()
    return ".".join(parts), is_package


def _is_private(component: str) -> bool:
    return component.startswith("_") and not (component.startswith("__") and component.endswith("__"))


def _is_package(dotted: str) -> bool:
    return (PACKAGE_DIR.parent / dotted.replace(".", "/") / "__init__.py").is_file()


def _private_import_violations() -> list[str]:
    """Every import of a ``_private`` module or name from outside the folder that holds it.

    For ``a.b._c`` (a module, or a name defined in ``a.b``) the holding folder is ``a.b`` when
    ``a.b`` is a package, else the package of the module ``a.b``; the importer must live in that
    folder or below it.
    """
    violations: list[str] = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        importer, is_package = _module_name(path)
        importer_folder = importer if is_package else importer.rpartition(".")[0]
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            dotted: list[str] = []
            lineno = getattr(node, "lineno", 0)
            if isinstance(node, ast.Import):
                dotted = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = importer_folder.split(".")
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                if base == "__future__":
                    continue
                dotted = [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
            for name in dotted:
                parts = name.split(".")
                if parts[0] != PACKAGE:
                    continue
                for i, component in enumerate(parts):
                    if not _is_private(component):
                        continue
                    holder = ".".join(parts[:i])
                    if not _is_package(holder):
                        holder = holder.rpartition(".")[0]
                    if importer_folder != holder and not importer_folder.startswith(holder + "."):
                        violations.append(f"{importer} (l.{lineno}) imports {name}")
                    break
    return violations


def test_private_checker_sees_a_violation() -> None:
    """The checker's own rule, on the names it resolves (guards against a vacuous pass)."""
    assert _is_private("_format") and not _is_private("__version__") and not _is_private("public")
    assert _is_package(f"{PACKAGE}.io") and not _is_package(f"{PACKAGE}.errors")


def test_no_single_underscore_name_imported_across_folders() -> None:
    assert _private_import_violations() == []


def test_root_namespace_is_small() -> None:
    """``kueue_preempt.__all__`` holds the everyday API; the rest is imported from its folder."""
    assert len(kueue_preempt.__all__) <= ROOT_NAMESPACE_LIMIT, sorted(kueue_preempt.__all__)

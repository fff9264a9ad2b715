"""Packaging facts that must stay true (issue 16 item 1, decision (t))."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

import pytest

import kueue_preempt

tomllib: Any = pytest.importorskip("tomllib")  # Python >= 3.11; the metadata is the same on 3.10

ROOT = Path(__file__).resolve().parent.parent


def _pyproject() -> dict[str, Any]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        data: dict[str, Any] = tomllib.load(f)
    return data


def test_license_file_is_the_apache_2_text_the_metadata_names() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION" in text
    assert "END OF TERMS AND CONDITIONS" in text
    project = _pyproject()["project"]
    assert project["license"] == {"text": "Apache-2.0"}
    assert "License :: OSI Approved :: Apache Software License" in project["classifiers"]


def test_the_version_is_written_once() -> None:
    """Single source: pyproject reads ``__version__`` from the package (hatchling's version source)."""
    data = _pyproject()
    assert "version" not in data["project"] and "version" in data["project"]["dynamic"]
    source = data["tool"]["hatch"]["version"]["path"]
    text = (ROOT / source).read_text(encoding="utf-8")
    assert re.findall(r'^__version__ = "([^"]+)"$', text, re.M) == [kueue_preempt.__version__]


def test_changelog_has_a_section_for_the_current_version_and_unreleased() -> None:
    """Keep a Changelog: ``[Unreleased]`` first, then a dated section for the released version."""
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.M)
    assert headings[0] == ("Unreleased", "")
    released = dict(headings[1:])
    assert kueue_preempt.__version__ in released and released[kueue_preempt.__version__]


def test_classifiers_state_status_and_python_versions() -> None:
    project = _pyproject()["project"]
    classifiers = set(project["classifiers"])
    assert any(c.startswith("Development Status ::") for c in classifiers)
    minimum = re.fullmatch(r">=3\.(\d+)", project["requires-python"])
    assert minimum is not None
    assert f"Programming Language :: Python :: 3.{minimum.group(1)}" in classifiers
    assert "Typing :: Typed" in classifiers


def test_docs_extra_and_module_entry_point() -> None:
    project = _pyproject()["project"]
    assert any(req.startswith("mkdocs") for req in project["optional-dependencies"]["docs"])
    assert project["scripts"]["kueue-preempt"] == "kueue_preempt.cli:main"
    assert (ROOT / "src" / "kueue_preempt" / "__main__.py").is_file()


def test_no_placeholder_project_urls() -> None:
    """Every project URL is absolute and no placeholder."""
    for url in _pyproject()["project"].get("urls", {}).values():
        assert url.startswith("https://") and "example" not in url and "xx" not in url


def test_project_urls_name_one_repository() -> None:
    """``pip show`` lists Homepage, Documentation, Changelog and Issues, all in the Homepage's
    repository (docs/decisions.md, "Project URLs and supported Pythons")."""
    urls = _pyproject()["project"]["urls"]
    assert set(urls) == {"Homepage", "Documentation", "Changelog", "Issues"}
    home = urls["Homepage"]
    assert re.fullmatch(r"https://github\.com/[a-z0-9-]+/kueue-preempt", home)
    assert urls["Documentation"] == home + "/tree/main/docs"
    assert urls["Changelog"] == home + "/blob/main/CHANGELOG.md"
    assert urls["Issues"] == home + "/issues"
    assert (ROOT / "docs").is_dir() and (ROOT / "CHANGELOG.md").is_file()


def test_classifiers_name_the_python_running_the_tests() -> None:
    """CI runs the suite on the machine's Python; it must be a declared version, and every
    declared version is at or above ``requires-python``."""
    project = _pyproject()["project"]
    declared = {
        int(m.group(1)) for c in project["classifiers"] if (m := re.fullmatch(r"Programming Language :: Python :: 3\.(\d+)", c))
    }
    assert sys.version_info.minor in declared
    minimum = re.fullmatch(r">=3\.(\d+)", project["requires-python"])
    assert minimum is not None and min(declared) == int(minimum.group(1))
    assert declared == set(range(min(declared), max(declared) + 1))


def test_summary_names_what_the_package_does() -> None:
    summary = _pyproject()["project"]["description"]
    for words in ("preemption", "fair sharing", "flavor assignment", "scheduling cycle", "PodGroup", "simulator", "CLI"):
        assert words in summary, words
    assert len(summary) < 300 and "\n" not in summary


_PUBLISHED = re.compile(r"pip install '?kueue-preempt\[(\w+)\]'?")


def _install_texts() -> dict[str, str]:
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "src").rglob("*.py")), ROOT / "examples" / "README.md"]
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


def test_every_published_install_command_has_the_checkout_form_beside_it() -> None:
    """``pip install 'kueue-preempt[X]'`` fails from a checkout before the package is published:
    wherever a doc or a message says it, ``pip install '.[X]'`` is said within the next lines."""
    found = 0
    for name, text in _install_texts().items():
        if name == "docs/decisions.md":
            continue
        for m in _PUBLISHED.finditer(text):
            found += 1
            nearby = text[max(0, m.start() - 300) : m.end() + 300]
            assert f"'.[{m.group(1)}]'" in nearby, f"{name}: {m.group(0)} without the checkout form"
    assert found >= 5


def test_missing_extra_errors_give_both_install_forms() -> None:
    from kueue_preempt.io import YamlUnavailable
    from kueue_preempt.sim.errors import ExtraUnavailable

    yaml_message = str(YamlUnavailable("dump.yaml"))
    assert "pip install 'kueue-preempt[yaml]'" in yaml_message and "pip install '.[yaml]'" in yaml_message
    plot_message = str(ExtraUnavailable("--plots", "plot", "matplotlib"))
    assert "pip install 'kueue-preempt[plot]'" in plot_message and "pip install '.[plot]'" in plot_message

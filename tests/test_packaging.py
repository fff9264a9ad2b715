"""Packaging facts that must stay true (issue 16 item 1, decision (t))."""

from __future__ import annotations

import re
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
    """Decision (t): no URLs until a public home exists; any URL added must be absolute."""
    for url in _pyproject()["project"].get("urls", {}).values():
        assert url.startswith("https://") and "example" not in url and "xx" not in url

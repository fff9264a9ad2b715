"""The README's library example runs and prints what the README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks, "README has a python example"
    for block in blocks:
        expected = re.findall(r"print\(.*\)\s+#\s*(.*)", block)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "README.md", "exec"), {})  # the project's own README, not input
        assert out.getvalue().split("\n")[: len(expected)] == expected


def test_ci_runs_the_readme_test_command() -> None:
    """`.ci/run` calls exactly the README's quick-start command 2."""
    readme = README.read_text()
    command = re.search(r"# 2\.[^\n]*\n(.*)\n", readme)
    assert command is not None
    ci = (README.parent / ".ci" / "run").read_text()
    assert command.group(1).strip() in ci.splitlines()

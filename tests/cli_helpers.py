"""Run the installed ``kueue-preempt`` console script in a subprocess (tests of the CLI)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

__all__ = ["CLI", "run_cli"]


def _find_cli() -> str:
    """The console script next to the running interpreter (the test venv), else on PATH."""
    for name in ("kueue-preempt", "kueue-preempt.exe"):
        candidate = Path(sys.executable).parent / name
        if candidate.exists():
            return str(candidate)
    found = shutil.which("kueue-preempt")
    if found is None:
        raise RuntimeError("the kueue-preempt console script is not installed (pip install -e '.[test]')")
    return found


CLI = _find_cli()


def run_cli(
    *args: str, stdin: str | None = None, cwd: str | Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``kueue-preempt ARGS`` and capture its exit code, stdout and stderr (as text)."""
    full_env = {**os.environ, "PYTHONIOENCODING": "utf-8", **(env or {})}
    return subprocess.run(
        [CLI, *args],
        input=stdin,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=cwd,
        env=full_env,
        timeout=120,
        check=False,
    )

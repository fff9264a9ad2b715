"""docs/tutorial-simulation.md: every ```console command runs and prints what the page shows.

The commands name ``kueue-preempt``; here it is a shim running this checkout's sources
(``python -m kueue_preempt``), so the page is checked against the code under test.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from test_tutorial import Command, console_commands, matches

ROOT = Path(__file__).resolve().parent.parent
PAGE = "docs/tutorial-simulation.md"
COMMANDS = console_commands(PAGE)


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    bindir = tmp_path_factory.mktemp("bin")
    script = bindir / "kueue-preempt"
    script.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m kueue_preempt "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return bindir


def test_the_page_has_commands() -> None:
    assert len(COMMANDS) >= 4


@pytest.mark.parametrize("command", [pytest.param(c, id=f"line {c.line}") for c in COMMANDS])
def test_documented_command(command: Command, shim: Path) -> None:
    src = str(ROOT / "src")
    env = {
        **os.environ,
        "PATH": str(shim) + os.pathsep + os.environ.get("PATH", ""),
        "PYTHONPATH": src + os.pathsep + os.environ.get("PYTHONPATH", ""),
        "PYTHONIOENCODING": "utf-8",
    }
    result = subprocess.run(
        command.command, shell=True, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, timeout=300, check=False,
    )
    actual = result.stdout.splitlines()
    while actual and not actual[-1].strip():
        actual.pop()
    expected = list(command.expected)
    while expected and not expected[-1].strip():
        expected.pop()
    assert result.returncode == 0, f"{PAGE}:{command.line}: exit {result.returncode}\n{result.stdout}"
    assert matches(tuple(expected), actual), f"{PAGE}:{command.line}\n--- expected\n" + "\n".join(expected) + "\n--- actual\n" + "\n".join(actual)


def test_bundled_arrivals_are_the_generators_output(tmp_path: Path) -> None:
    from kueue_preempt.sim import arrivals_text
    from kueue_preempt.sim.arrivals.generate import generate_arrivals, load_generator_spec

    spec = load_generator_spec(ROOT / "examples/sim-generator.json")
    assert arrivals_text(generate_arrivals(spec)) == (ROOT / "examples/sim-arrivals.jsonl").read_text()

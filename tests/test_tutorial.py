"""The documentation's commands are executed: every ```console block of the pages below.

In a block, a line starting with ``$ `` is a command (run by the shell from the repository
root, with the installed ``kueue-preempt`` first on ``PATH``); the lines up to the next command
are its expected output (stdout and stderr together). A line ``...`` stands for any number of
lines. Trailing spaces are ignored. A command's exit code must be 0: pages show other exit codes
with ``; echo "exit code $?"``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import attrs
import pytest

from cli_helpers import CLI

ROOT = Path(__file__).resolve().parent.parent
PAGES = ("docs/tutorial.md", "docs/howto-why-preempted.md", "docs/cli.md")
_FENCE = re.compile(r"^```(\w*)\s*$")


@attrs.frozen
class Command:
    page: str
    line: int
    command: str
    expected: tuple[str, ...]


def console_commands(page: str) -> list[Command]:
    """The commands of every ```console block of ``page`` with their expected output."""
    commands: list[Command] = []
    in_console = False
    current: tuple[int, str] | None = None
    output: list[str] = []

    def flush() -> None:
        nonlocal current, output
        if current is not None:
            commands.append(Command(page, current[0], current[1], tuple(output)))
        current, output = None, []

    for number, line in enumerate((ROOT / page).read_text().splitlines(), start=1):
        fence = _FENCE.match(line)
        if fence is not None:
            if in_console:
                flush()
                in_console = False
            elif fence.group(1) == "console":
                in_console = True
            continue
        if not in_console:
            continue
        if line.startswith("$ "):
            flush()
            current = (number, line[2:])
        elif current is not None:
            output.append(line)
    return commands


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """``expected`` equals ``actual``, where a ``...`` line matches any run of lines."""
    if not expected:
        return not actual
    head, rest = expected[0], expected[1:]
    if head == "...":
        return any(matches(rest, actual[i:]) for i in range(len(actual) + 1))
    return bool(actual) and actual[0].rstrip() == head.rstrip() and matches(rest, actual[1:])


ALL = [c for page in PAGES for c in console_commands(page)]


def test_the_pages_have_commands() -> None:
    for page in PAGES:
        assert console_commands(page), f"{page} has no console commands"


@pytest.mark.parametrize("command", [pytest.param(c, id=f"{c.page}:{c.line}") for c in ALL])
def test_documented_command(command: Command) -> None:
    env = {**os.environ, "PATH": str(Path(CLI).parent) + os.pathsep + os.environ.get("PATH", ""), "PYTHONIOENCODING": "utf-8"}
    result = subprocess.run(
        command.command,
        shell=True,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )
    actual = result.stdout.splitlines()
    while actual and not actual[-1].strip():
        actual.pop()
    expected = list(command.expected)
    while expected and not expected[-1].strip():
        expected.pop()
    assert result.returncode == 0, f"{command.page}:{command.line}: exit {result.returncode}\n{result.stdout}"
    assert matches(tuple(expected), actual), (
        f"{command.page}:{command.line}: output differs\n--- expected\n"
        + "\n".join(expected)
        + "\n--- actual\n"
        + "\n".join(actual)
    )

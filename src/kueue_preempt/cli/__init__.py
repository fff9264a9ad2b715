"""The ``kueue-preempt`` command line: argument parsing, formatting and exit codes, no decision logic."""

from __future__ import annotations

from kueue_preempt.cli.main import main

__all__ = ["main"]

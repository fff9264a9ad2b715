"""The kubectl plugin ``kubectl-kueue_preempt``: the same CLI, named as kubectl users call it.

kubectl finds an executable named ``kubectl-kueue_preempt`` on ``PATH`` and runs it for
``kubectl kueue-preempt ...`` (a dash in the command is an underscore in the file name), so
help and messages say ``kubectl kueue-preempt``.
"""

from __future__ import annotations

import sys

from kueue_preempt.cli.main import main as _main

__all__ = ["PLUGIN_PROG", "main"]

PLUGIN_PROG = "kubectl kueue-preempt"


def main() -> int:
    """Entry point of the ``kubectl-kueue_preempt`` console script."""
    return _main(sys.argv[1:], prog=PLUGIN_PROG)

"""``python -m kueue_preempt``: the same entry point as the ``kueue-preempt`` console script."""

from __future__ import annotations

import sys

from kueue_preempt.cli.main import main

if __name__ == "__main__":  # pragma: no cover - run in a subprocess by tests/test_packaging.py
    sys.exit(main())

#!/usr/bin/env python3
"""Classic-preemption benchmark at the S/M/L scales.

Builds a synthetic but realistic cluster state per scale (fixed seed), then times
``kueue_preempt.get_targets`` for one preemptor that needs preemption, and compares the
median decision time with the median time of ``sorted()`` over the same candidates keyed by
``kueue_preempt.candidate_sort_key`` (the headline ratio). It also records the snapshot build
time and the peak memory (tracemalloc) of building the snapshot, per admitted workload.

Usage::

    python benchmarks/bench_classic.py [--scales S,M,L] [--quick] [--out benchmarks/results]
    python benchmarks/bench_classic.py --scales L --profile 20   # cProfile of the L decision

Writes ``<out>/classic.json`` and ``<out>/classic.md`` and prints the markdown table.
Needs only the ``kueue_preempt`` package and ``_scenarios.py`` beside this file (which holds
the states, the timing and the output shared with ``bench_fair.py`` and ``bench_scale.py``;
no pytest). See benchmarks/README.md.
"""

from __future__ import annotations

import sys

from _scenarios import CLASSIC, decision_cli


def main(argv: list[str] | None = None) -> int:
    return decision_cli(argv, __doc__, CLASSIC)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Fair-sharing preemption benchmark at the S/M/L scales (issue 3).

The same synthetic states as ``bench_classic.py`` (same shapes, seeds and random draws),
built for fair sharing: ``PreemptionConfig(fair_sharing=FairSharingConfig())`` with Kueue's
default strategies (``LessThanOrEqualToFinalShare``, then ``LessThanInitialShare``), and a
preemptor whose ClusterQueue runs at its nominal quota and asks for more than is available,
so that it ends above nominal: the share comparisons run (FS-NOM-1's within-nominal shortcut
does not apply) and the targets carry the reason ``InCohortFairSharing``. Times
``kueue_preempt.get_targets`` (which dispatches to ``fair_targets``) and compares the median
with ``sorted()`` over the candidates keyed by ``candidate_sort_key``, exactly as
``bench_classic.py`` does; see docs/performance.md.

Usage::

    python benchmarks/bench_fair.py [--scales S-b10,S-b100,M,L] [--quick] [--out benchmarks/results]
    python benchmarks/bench_fair.py --scales L --profile 25   # cProfile of the L decision

Writes ``<out>/fair.json`` and ``<out>/fair.md`` and prints the markdown table. Needs only
the ``kueue_preempt`` package and ``_scenarios.py`` beside this file; ``mypy --strict`` clean.
"""

from __future__ import annotations

import sys

from _scenarios import FAIR, decision_cli


def main(argv: list[str] | None = None) -> int:
    return decision_cli(argv, __doc__, FAIR)


if __name__ == "__main__":
    sys.exit(main())

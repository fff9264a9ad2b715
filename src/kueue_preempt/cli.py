"""Command-line interface: ``kueue-preempt demo`` runs a classic decision on a bundled cohort.

The CLI is an edge: it formats results and never holds algorithm logic (it imports the
public API only). Exit codes: 0 success, 2 usage error, 3 invalid input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from . import __version__
from .demo import demo_scenario
from .errors import KueuePreemptError
from .preemption import get_targets
from .priority import priority_info

__all__ = ["main"]

EXIT_OK = 0
EXIT_USAGE = 2
EXIT_INVALID_INPUT = 3


def _demo(args: argparse.Namespace) -> int:
    scenario = demo_scenario()
    snap = scenario.snapshot
    print(scenario.description)
    print()
    p = priority_info(scenario.preemptor)
    print(
        f"Incoming: {scenario.preemptor.key} (priority {p.effective}) into ClusterQueue "
        f"{scenario.cluster_queue} path {snap.path(snap.cluster_queue(scenario.cluster_queue))}"
    )
    reqs = ", ".join(f"{fr}={v}" for fr, v in sorted(scenario.assignment.requests.items()))
    print(f"Requests: {reqs}")
    targets = get_targets(
        scenario.preemptor, scenario.cluster_queue, scenario.assignment, snap, scenario.config, scenario.now
    )
    print()
    if not targets:
        print("No preemption possible: the incoming workload stays pending.")
        return EXIT_OK
    print(f"{len(targets)} target(s):")
    for t in targets:
        info = priority_info(t.workload)
        print(f"  - {t.workload.key:<24} cq={t.cluster_queue:<10} priority={info.effective:<5} reason={t.reason.value}")
        print(f"    {t.message}")
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kueue-preempt", description="Explain Kueue preemption decisions.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", help="run a classic preemption decision on a bundled example cohort")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kueue-preempt`` console script."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code) if isinstance(exc.code, int) else EXIT_USAGE
    try:
        code: int = args.func(args)
    except KueuePreemptError as exc:
        print(f"kueue-preempt: error: {exc}", file=sys.stderr)
        return EXIT_INVALID_INPUT
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

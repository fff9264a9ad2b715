#!/usr/bin/env python3
"""How strong the property-testing helpers are, per decision kind.

For every decision kind of :mod:`kueue_preempt.testing` (classic, fair, assignment, cycle,
podgroup) it draws scenarios from ``<kind>_scenarios()``, decides each with the library, checks
the answer with ``check_<kind>`` and tries one mutant per operator of ``<kind>_mutants``
(:func:`kueue_preempt.testing.mutations.measure`). It reports the share of scenarios with a
non-empty answer, the share of draws the strategy discarded, and the kill rate of every
mutation operator, as ``testing_rates.json`` and a markdown table.

Usage::

    python benchmarks/testing_rates.py [--examples 300] [--kinds classic,fair] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

from kueue_preempt.testing.kinds import KINDS, measure_kind


def run(kinds: list[str], examples: int) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for kind in kinds:
        start = time.perf_counter()
        m = measure_kind(kind, examples=examples)
        out[kind] = {**m.as_dict(), "answer": KINDS[kind].answer, "seconds": round(time.perf_counter() - start, 1)}
        print(f"{kind}: {m.examples} examples in {out[kind]['seconds']} s", file=sys.stderr)
    return out


def markdown(report: dict[str, dict[str, Any]]) -> str:
    lines = [
        "| kind | examples | non-empty answer (what counts) | discarded draws | operator | applied in | killed |",
        "|---|---:|---|---:|---|---:|---:|",
    ]
    for kind, r in report.items():
        first = True
        for op, o in r["operators"].items():
            head = (
                f"| {kind} | {r['examples']} | {r['nonempty_share']:.0%} ({r['answer']}) | {r['discard_rate']:.0%} "
                if first
                else "| | | | "
            )
            lines.append(f"{head}| {op} | {o['applicable']} | {o['killed']} ({o['rate']:.0%}) |")
            first = False
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=300, help="scenarios per kind (default 300)")
    parser.add_argument("--kinds", default=",".join(KINDS), help="comma-separated kinds (default: all)")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"), help="directory of the report")
    args = parser.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        parser.error(f"unknown kinds {unknown}; choose from {', '.join(KINDS)}")
    report = run(kinds, args.examples)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "testing_rates.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    table = markdown(report)
    (args.out / "testing_rates.md").write_text(table, encoding="utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())

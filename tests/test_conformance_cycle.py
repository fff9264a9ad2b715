"""Kueue's scheduler unit tests (kinds ``cycle`` and ``entry_ordering``) through the public API.

Every case of those kinds in every vendored file under tests/conformance/kueue/ is one pytest
case; a case is skipped only where its ``skip`` field says so. Rules exercised: SC-CY-*,
SC-NOM-*, SC-ORD-1/2, SC-FS-1..5, SC-PE-1..5, SC-PR-1, SC-RQ-3..5, SC-FR-1..6, SC-MSG-1..3,
SC-EVT-1, SC-MET-1/2 (see the file-level ``notes`` of each case file).
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest

from cycle_cases import CASES_DIR, KINDS, cycle_config, iter_cases, run_cycle_case, _condition
from kueue_preempt import Workload
from kueue_preempt.model.time import parse_time
from kueue_preempt.cycle import classic_entry_order

Case = dict[str, Any]


@attrs.frozen
class _OrderEntry:
    workload: Workload
    borrowing: int
    is_preemptor: bool
    has_reservation: bool


def run_entry_ordering(case: Case) -> None:
    """SC-ORD-1/2: the classic comparator over the given entries, ties in input order."""
    config = cycle_config(case)
    entries = [
        _OrderEntry(
            Workload(
                name=e["name"],
                priority=e.get("priority"),
                creation_time=None if e.get("creationTimestamp") is None else parse_time(e["creationTimestamp"]),
                conditions=[_condition(c) for c in e.get("conditions") or ()],
            ),
            e["borrowing"],
            e["isPreemptor"],
            e["hasQuotaReservation"],
        )
        for e in case["entries"]
    ]
    got = [e.workload.name for e in classic_entry_order(entries, config)]
    assert got == case["expected"]["order"]


@pytest.mark.parametrize("source,case", list(iter_cases()))
def test_scheduler_case(source: str, case: Case) -> None:
    kind = case["kind"]
    if kind == "entry_ordering":
        run_entry_ordering(case)
    elif kind == "cycle":
        run_cycle_case(case)
    else:  # pragma: no cover - iter_cases yields only KINDS
        raise AssertionError(f"unknown kind {kind!r}")


def test_unknown_kinds_fail() -> None:
    """Every case kind in the vendored files is run by some conformance module: an unknown kind fails."""
    known = set(KINDS) | {
        "targets", "ordering", "policy", "fair_ordering", "message", "priority_info", "drs", "drs_borrowing",
        "fair_strategy_shares", "assignment", "is_preferred", "requires_borrowing", "partial_admission_search",
    }
    for path in sorted(CASES_DIR.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            assert case.get("kind") in known, f"{path.name}: unknown kind {case.get('kind')!r}"

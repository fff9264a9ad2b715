"""Every Python block of docs/testing-guide.md runs as written.

Each block is executed in a fresh namespace; the ``test_*`` functions it defines are called
(Hypothesis-decorated ones run their examples), so a guide example that stops working fails
here.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "testing-guide.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _blocks() -> list[str]:
    return BLOCK.findall(GUIDE.read_text(encoding="utf-8"))


def test_the_guide_has_examples() -> None:
    assert _blocks(), "docs/testing-guide.md has no Python example"


@pytest.mark.parametrize("index", range(len(_blocks())))
def test_guide_example_runs(index: int) -> None:
    code = _blocks()[index]
    namespace: dict[str, object] = {"__name__": f"testing_guide_block_{index}"}
    exec(compile(code, f"{GUIDE.name}[block {index}]", "exec"), namespace)
    tests = [f for name, f in namespace.items() if name.startswith("test_") and callable(f)]
    for test in tests:
        test()

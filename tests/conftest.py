from __future__ import annotations

import sys
from pathlib import Path

# Test helpers (adapters, strategies) live next to the tests.
sys.path.insert(0, str(Path(__file__).parent))

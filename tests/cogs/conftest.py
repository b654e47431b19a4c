"""The ``harness`` fixture: the real bot booted on a fresh database, talking to a fake Discord."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # `tests.harness` is imported from the repository root
    sys.path.insert(0, str(ROOT))

from tests.harness import Harness  # noqa: E402


@pytest.fixture
async def harness(db_target: Path | str):
    h = await Harness.boot(db_target)
    try:
        yield h
    finally:
        await h.close()

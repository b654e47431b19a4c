"""A test that hangs fails by itself and the run says where it hung (pytest-timeout, ``timeout`` in pyproject.toml,
and the hang report of tests/conftest.py): a tiny suite with a test parked on an event that nobody sets, run the way
CI runs ours (xdist workers, the thread method), ends, fails that test, passes the other, and prints the parked
task's stack."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

HANGING = '''
import asyncio
import gc

async def test_waits_for_ever():
    gc.freeze()  # as a bot's start-up does (bot.app.freeze_startup): the event loop too
    async def parked_here():
        await asyncio.Event().wait()
    await asyncio.create_task(parked_here(), name="the-parked-task")

def test_fine():
    pass
'''


def test_a_hanging_test_fails_and_the_run_prints_where_it_hung(tmp_path: Path) -> None:
    (tmp_path / "test_hang.py").write_text(HANGING, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "MJBOT_TEST_HANG_DIR"}  # (this run's own, not ours)
    env["PYTHONPATH"] = str(ROOT)
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider", "-n", "2", "-q",
         "-o", "timeout=3", "-o", "timeout_method=thread", "-o", "asyncio_mode=auto", "--rootdir", str(tmp_path),
         str(tmp_path / "test_hang.py")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    out = p.stdout + p.stderr
    assert p.returncode == 1, out
    assert "1 failed, 1 passed" in out, out
    assert "test_waits_for_ever" in out and "a test that timed out" in out, out
    # the parked task, with the line it waits on
    assert "the-parked-task" in out and "await asyncio.Event().wait()" in out, out

"""Crash safety of the bot's real write path: the bot, playing tables under the harness in its own process, is
SIGKILLed at random moments, over and over (tests/bot/crash_worker.py forks it from a fork server, so that each
life costs a boot, not an interpreter start).

After every kill the database is reopened and checked (tests/bot/store_checks.py): integrity; every finished hand's
ledger complete (one row per seat) and zero-sum; no action recorded twice or missing (seq 0..n-1); running totals
and leaderboard roll-ups equal to the ledger's sums; every settled hand equal, field by field, to what the engine
computes by replaying the recorded actions; no match aborted; and every unfinished game resumes to its stored state
hash. The next life of the bot resumes from that state (through ``resume_tables``), so games run across many kills.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.store import Store  # noqa: E402
from tests.bot.store_checks import Replays, check_sql  # noqa: E402
from tests.harness import GUILD_ID  # noqa: E402

WORKER = Path(__file__).with_name("crash_worker.py")
LANES = 3  # independent databases killed in parallel
KILLS_PER_LANE = 67
TABLES = 3  # tables each life of the bot plays at once


class ForkServer:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def line(self, prefix: str | None = None, timeout: float = 60) -> str:
        """The next line (skipping stale ``a`` lines of a killed child when ``prefix`` is given)."""
        while True:
            raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout=timeout)  # type: ignore[union-attr]
            assert raw, "the fork server ended"
            text = raw.decode().strip()
            if prefix is None or text.startswith(prefix):
                return text

    def send(self, text: str) -> None:
        self.proc.stdin.write((text + "\n").encode())  # type: ignore[union-attr]


async def lane(db: Path | str, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    replays = Replays(GUILD_ID)
    totals = {"kills": 0, "kills_before_ready": 0, "settle_lag": 0, "max_unfinished": 0}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(WORKER), stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd=str(ROOT),
    )
    server = ForkServer(proc)
    try:
        for i in range(KILLS_PER_LANE):
            server.send(f"go {db} {seed * 1000 + i} {TABLES}")
            pid = int((await server.line("pid ")).split()[1])
            if rng.random() < 0.2:
                # anywhere from start-up through resuming and catching up
                await asyncio.sleep(rng.uniform(0.0, 0.3))
                totals["kills_before_ready"] += 1
            else:
                await server.line("ready")
                # after a random number of recorded actions, then a random moment inside the following work
                for _ in range(rng.randint(0, 40)):
                    assert await server.line() == "a"
                await asyncio.sleep(rng.uniform(0.0, 0.02))
            os.kill(pid, signal.SIGKILL)
            server.send(f"wait {pid}")
            dead = await server.line(f"dead {pid} ")
            assert dead.split()[2] == str(int(signal.SIGKILL)), f"the bot died by itself: {dead}"
            totals["kills"] += 1
            check_sql(db)
            store = await Store.open(db)
            try:
                r = await replays.check(store)
            finally:
                await store.close()
            totals["settle_lag"] += r["settle_lag"]
            totals["max_unfinished"] = max(totals["max_unfinished"], r["unfinished"])
    finally:
        proc.stdin.close()  # type: ignore[union-attr]  # the fork server kills a child still playing, then ends
        try:
            await asyncio.wait_for(proc.wait(), timeout=60)
        except TimeoutError:
            proc.kill()
            raise
    totals.update(check_sql(db))
    return totals


pytestmark = pytest.mark.both_backends


async def test_killing_the_bot_at_random_points_loses_and_duplicates_nothing(new_db_target) -> None:
    results = await asyncio.gather(*(lane(new_db_target(f"lane{k}"), 7 + k) for k in range(LANES)))
    kills = sum(r["kills"] for r in results)
    assert kills >= 200
    # the games really progressed across the kills: hands were settled, matches stayed open across kills
    assert sum(r["hands_finished"] for r in results) >= 15, results
    assert all(r["max_unfinished"] >= 1 for r in results), results
    if os.environ.get("STORE_CRASH_VERBOSE"):
        print(results, file=sys.__stderr__)

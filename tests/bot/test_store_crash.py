"""Crash safety: a separate process plays and records games and is SIGKILLed at random moments, over and over.

After every kill the database is reopened and checked (tests/bot/store_checks.py): integrity; every finished
hand's ledger complete (one row per seat) and zero-sum; no action recorded twice or missing (seq 0..n-1); running
totals and leaderboard roll-ups equal to the ledger's sums; every settled hand equal to what the engine computes
by replaying the recorded actions; and every unfinished game resumes to its stored state hash. The next worker
starts from that state, so games run across many kills.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.store import Store  # noqa: E402
from tests.bot.store_checks import Replays, check_sql  # noqa: E402

WORKER = Path(__file__).with_name("crash_worker.py")
LANES = 3  # independent databases killed in parallel
KILLS_PER_LANE = 67


async def lane(db: Path, seed: int) -> dict[str, int]:
    rng = random.Random(seed)
    replays = Replays()
    totals = {"kills": 0, "kills_before_ready": 0, "settle_lag": 0, "max_unfinished": 0}
    for i in range(KILLS_PER_LANE):
        proc = await asyncio.create_subprocess_exec(
            sys.executable, str(WORKER), str(db), str(seed * 1000 + i), "3",
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=str(ROOT),
        )
        if rng.random() < 0.2:
            # anywhere from start-up through resuming and catching up
            await asyncio.sleep(rng.uniform(0.0, 0.4))
            totals["kills_before_ready"] += 1
        else:
            line = await asyncio.wait_for(proc.stdout.readline(), timeout=30)
            assert line.strip() == b"ready", (line, await proc.stderr.read())
            # after a random number of recorded actions (so that games progress however busy the machine is),
            # then a random moment inside the following actions' work
            for _ in range(rng.randint(0, 50)):
                line = await asyncio.wait_for(proc.stdout.readline(), timeout=30)
                assert line.strip() == b"a", (line, await proc.stderr.read())
            await asyncio.sleep(rng.uniform(0.0, 0.02))
        assert proc.returncode is None, (proc.returncode, (await proc.stderr.read()).decode())
        proc.send_signal(signal.SIGKILL)
        await proc.wait()
        assert proc.returncode == -signal.SIGKILL
        totals["kills"] += 1
        check_sql(db)
        store = await Store.open(db)
        try:
            r = await replays.check(store)
        finally:
            await store.close()
        totals["settle_lag"] += r["settle_lag"]
        totals["max_unfinished"] = max(totals["max_unfinished"], r["unfinished"])
    totals.update(check_sql(db))
    return totals


async def test_kill_at_random_points_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    results = await asyncio.gather(*(lane(tmp_path / f"lane{k}" / "mj.db", 7 + k) for k in range(LANES)))
    kills = sum(r["kills"] for r in results)
    assert kills >= 200
    # the games really progressed across the kills: hands were settled (matches finish now and then too)
    assert sum(r["hands_finished"] for r in results) >= 15, results
    assert all(r["max_unfinished"] >= 1 for r in results), results
    if os.environ.get("STORE_CRASH_VERBOSE"):
        print(results, file=sys.__stderr__)

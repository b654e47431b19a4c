"""kill -9 while records are being settled: each record is either still waiting with nothing of it in the ledger, or
confirmed with its whole hand (match, hand, four ledger rows, board roll-ups, audit); never half of one."""

from __future__ import annotations

import asyncio
import random
import signal
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from bot.store import Store
from bot.store import records as rstore

G, CH = 10, 20
PLAYERS = (1, 2, 3, 4)
RECORDS = 300

#: The child: opens the store as the bot does and settles every waiting record (a manager's press), one after
#: the other, printing each id once its transaction returned.
CHILD = """
import asyncio, os, sys
from datetime import datetime, UTC
sys.path.insert(0, {root!r})
from bot.store import Store
from bot.store import records as rstore

async def main():
    store = await Store.open({db!r})
    os.write(1, b"ready\\n")
    for rid in range(1, {n} + 1):
        out = await rstore.confirm(store, {g}, rid, 99, manager=True, at=datetime.now(UTC))
        os.write(1, f"{{out.outcome}} {{rid}}\\n".encode())
    await store.close()

asyncio.run(main())
"""


async def _seed(db: Path) -> None:
    store = await Store.open(db)
    try:
        for i in range(RECORDS):
            await rstore.propose(
                store, guild_id=G, channel_id=CH, proposer_id=1, hand_text=f"hand{i}", variant="hefei", rules={},
                situation={"winner": 1, "discarder": None}, hand_value=30, lang="en",
                seats=[rstore.SeatProposal(p, f"p{p}", a) for p, a in zip(PLAYERS, (-10, 30, -10, -10),
                                                                          strict=True)], at=datetime.now(UTC))
    finally:
        await store.close()


def _check(db: Path) -> tuple[int, int]:
    """Every record whole or untouched; returns (confirmed, pending)."""
    conn = sqlite3.connect(db)
    try:
        confirmed = pending = 0
        for rid, status, match_id, hand_id in conn.execute("SELECT id, status, match_id, hand_id FROM records"):
            seed = f"in-person:{rid}"
            matches = conn.execute("SELECT id FROM matches WHERE seed = ?", (seed,)).fetchall()
            confirms = conn.execute("SELECT COUNT(*) FROM record_seats WHERE record_id = ? AND confirmed_at IS NOT "
                                    "NULL", (rid,)).fetchone()[0]
            settled = conn.execute("SELECT COUNT(*) FROM settings_audit WHERE field = 'record_confirm' AND "
                                   "new_value LIKE ?", (f"\"#{rid} confirmed:%",)).fetchone()[0]
            if status == "pending":
                pending += 1
                assert matches == [] and confirms == 0 and settled == 0, rid
                continue
            confirmed += 1
            assert status == "confirmed" and [(match_id,)] == matches and confirms == 3 and settled == 1, rid
            rows = conn.execute("SELECT player_id, amount, source FROM ledger WHERE hand_id = ? ORDER BY seat",
                                (hand_id,)).fetchall()
            assert rows == [(1, -10, "in_person"), (2, 30, "in_person"), (3, -10, "in_person"),
                            (4, -10, "in_person")], rid
        ledger = conn.execute("SELECT COUNT(*), COALESCE(SUM(amount), 0) FROM ledger").fetchone()
        assert ledger == (4 * confirmed, 0)
        board = dict(conn.execute("SELECT player_id, SUM(net) FROM board_totals GROUP BY player_id").fetchall())
        assert board == ({1: -10 * confirmed, 2: 30 * confirmed, 3: -10 * confirmed, 4: -10 * confirmed}
                         if confirmed else {})
        return confirmed, pending
    finally:
        conn.close()


async def test_kill_9_while_settling_records(tmp_path: Path) -> None:
    db = tmp_path / "bot.db"
    await _seed(db)
    root = str(Path(__file__).resolve().parents[2])
    rng = random.Random(14)
    done_before = 0
    for _ in range(4):
        child = subprocess.Popen([sys.executable, "-c", CHILD.format(root=root, db=str(db), n=RECORDS, g=G)],
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert child.stdout is not None
        assert child.stdout.readline().strip() == b"ready"
        # after a random number of settlements (counted, so that how fast the machine settles does not matter: at
        # most a fifth of the records per life), at a random moment of the next one
        heard = [child.stdout.readline() for _ in range(rng.randint(1, RECORDS // 5))]
        assert all(heard), "the child stopped settling by itself"
        await asyncio.sleep(rng.uniform(0.0, 0.005))
        child.send_signal(signal.SIGKILL)
        child.wait()
        said = (b"".join(heard) + child.stdout.read()).decode().split()
        confirmed, pending = _check(db)
        assert confirmed + pending == RECORDS
        assert confirmed >= done_before + said.count("settled")  # every settlement the child saw is kept
        done_before = confirmed
    assert 0 < done_before < RECORDS, done_before  # the kills landed mid-way

"""A bot stand-in for the crash test: plays and records games with the real engine table until it is killed.

``python tests/bot/crash_worker.py DB SEED [TABLES]``: opens the store at DB, resumes every unfinished match
(``resume_all`` + ``TableRecorder.resume``, exactly what the bot does on start), prints ``ready``, then keeps
TABLES matches playing at once, printing a line after each recorded action (a simple player for every seat, asyncio.gather), starting a new match whenever one
ends. It never stops by itself; the test SIGKILLs it at random moments. Exit code 3 means a game failed to resume.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bot.store import SeatSpec, Store, resume_all  # noqa: E402
from bot.store.tables import TableRecorder, rebuild_table  # noqa: E402
from tests.bot.simple_player import next_action  # noqa: E402

VARIANTS = ("wuhu", "hefei", "chizhou")
#: Short matches so that many of them finish across the kills.
SETTINGS = {"wuhu": {"di_per_match": 1}, "hefei": {"quan_per_match": 1}, "chizhou": {"quan_per_match": 1}}
GUILD = 1
HUMANS = tuple(range(101, 109))


def now() -> datetime:
    return datetime.now(UTC)


async def new_match(store: Store, rng: random.Random) -> TableRecorder:
    variant = rng.choice(VARIANTS)
    humans = rng.sample(HUMANS, rng.randint(1, 4))
    seats = [SeatSpec.human(p, f"player {p}") for p in humans] + [SeatSpec.bot("normal")] * (4 - len(humans))
    rng.shuffle(seats)
    return await TableRecorder.start(
        store, guild_id=GUILD, channel_id=rng.randrange(1, 4), variant=variant, seed=rng.getrandbits(48),
        settings=SETTINGS[variant], seats=seats, at=now(),
    )


async def play(store: Store, rec: TableRecorder | None, rng: random.Random) -> None:
    while True:
        if rec is None or rec.over:
            rec = await new_match(store, rng)
        await rec.apply(next_action(rec.table, rng), now())
        print("a", flush=True)  # one line per recorded action: the test kills after a random number of them
        await asyncio.sleep(0)  # let the other tables interleave between actions


async def main(db: str, seed: int, tables: int) -> int:
    rng = random.Random(f"{seed}|{os.getpid()}")
    store = await Store.open(db)
    report = await resume_all(store, rebuild_table, now())
    if report.aborted:
        for a in report.aborted:
            print(f"match {a.game.match_id}: {a.reason}", file=sys.stderr)
        return 3
    recs: list[TableRecorder | None] = [await TableRecorder.resume(store, r.game, r.table, now()) for r in report.resumed]
    recs += [None] * max(0, tables - len(recs))
    print("ready", flush=True)
    await asyncio.gather(*(play(store, r, random.Random(rng.getrandbits(64))) for r in recs))
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 3)))

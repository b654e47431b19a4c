"""Store figures, run by hand: ``python benchmarks/bench_store.py [--json] [--hands 100000]``.

- ``record_action_ms``: median time of ``Store.record_action`` (one committed, durable transaction) while one
  table plays, on a database file in a temporary folder.
- ``leaderboard_*_ms``: median time of ``bot.store.group.board`` (the one leaderboard path, corrections included)
  for one server and variant over ``--hands`` recorded hands (all time, this month, this week, since the first
  hour); ``player_stats_ms``: ``bot.store.group.player_record`` of one player with the series. The hands are bulk-loaded into the real schema with sqlite3 (going through
  ``finish_hand`` 100,000 times would only measure fsync); a few thousand more go through ``finish_hand`` so the
  store's own write path is in the mix.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.store import LedgerRow, SeatSpec, Store, dialect, period_start  # noqa: E402
from bot.store.group import board, player_record  # noqa: E402
from bot.store.migrate import load_migrations, migrate  # noqa: E402

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def random_rows(rng: random.Random) -> list[LedgerRow]:
    if rng.random() < 0.1:
        return [LedgerRow(s, 0, drawn=True) for s in range(4)]
    winner = rng.randrange(4)
    value = rng.choice([10, 20, 30, 60, 90, 120])
    if rng.random() < 0.4:
        pays = {s: value for s in range(4) if s != winner}
        rows = [LedgerRow(s, -value, -value) for s in range(4) if s != winner]
        rows.append(LedgerRow(winner, 3 * value, 3 * value, won=True, self_draw=True, hand_value=3 * value))
    else:
        loser = rng.choice([s for s in range(4) if s != winner])
        pays = {loser: value}
        rows = [LedgerRow(s, 0) for s in range(4) if s not in (winner, loser)]
        rows.append(LedgerRow(loser, -value, -value, deal_in=True))
        rows.append(LedgerRow(winner, value, value, won=True, hand_value=value))
    del pays
    return rows


async def bench_actions(path: Path, n: int) -> float:
    store = await Store.open(path)
    seats = [SeatSpec.human(1000 + i, f"p{i}") for i in range(4)]
    match = await store.start_match(1, 1, "wuhu", {"mode": 315}, 1, seats)
    hand = await store.start_hand(match, 1, 1, "c")
    times = []
    for seq in range(n):
        action = json.dumps({"type": "discard", "seat": seq % 4, "tile": seq % 34})
        t = time.perf_counter()
        await store.record_action(match, seq, action, T0, hand_id=hand, state_hash=f"{seq:064x}")
        times.append(time.perf_counter() - t)
    await store.close()
    return statistics.median(times) * 1000


def bulk_load(path: Path, hands: int, players: int, rng: random.Random) -> None:
    """``hands`` finished hands in guild 1 / wuhu over the last year, plus other guilds' noise."""
    db = sqlite3.connect(path)
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, 0) ON CONFLICT DO NOTHING",
        [(p, f"player {p}") for p in range(1, players + 1)],
    )
    hand_id = db.execute("SELECT COALESCE(MAX(id), 0) FROM hands").fetchone()[0]
    match_id = db.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()[0]
    per_match = 16
    for start in range(0, hands, per_match):
        match_id += 1
        guild = 1 if rng.random() < 0.5 else rng.randrange(2, 50)
        seat_players = rng.sample(range(1, players + 1), 4)
        ms = int((T0 + timedelta(minutes=start * 3)).timestamp() * 1000)
        db.execute(
            "INSERT INTO matches (id, guild_id, channel_id, variant, settings, seed, status, started_at) "
            "VALUES (?, ?, 1, 'wuhu', '{}', '1', 'finished', ?)",
            (match_id, guild, ms),
        )
        db.executemany(
            "INSERT INTO match_seats (match_id, seat, player_id) VALUES (?, ?, ?)",
            [(match_id, s, p) for s, p in enumerate(seat_players)],
        )
        for k in range(per_match):
            hand_id += 1
            at = ms + k * 180_000
            db.execute(
                "INSERT INTO hands (id, match_id, number, seed, status, started_at, ended_at) "
                "VALUES (?, ?, ?, '1', 'finished', ?, ?)",
                (hand_id, match_id, k + 1, at, at),
            )
            db.executemany(
                "INSERT INTO ledger (hand_id, seat, match_id, guild_id, variant, player_id, amount, stack_amount, "
                "jiao_amount, won, self_draw, deal_in, drawn, hand_value, at) "
                "VALUES (?, ?, ?, ?, 'wuhu', ?, ?, ?, 0, ?, ?, ?, ?, ?, ?)",
                [
                    (hand_id, r.seat, match_id, guild, seat_players[r.seat], r.amount, r.stack_amount, int(r.won),
                     int(r.self_draw), int(r.deal_in), int(r.drawn), r.hand_value, at)
                    for r in random_rows(rng)
                ],
            )
    db.execute("COMMIT")
    db.execute("ANALYZE")
    db.close()


async def bench_board(path: Path, hands: int, players: int, reps: int) -> dict[str, float]:
    rng = random.Random(5)
    # Schema version 1 (ledger only), bulk load, then Store.open applies 0002, which backfills the roll-ups the
    # leaderboard reads: the same path an existing database takes when the bot is upgraded.
    conn = await dialect.connect(str(path))
    await migrate(conn, load_migrations(), upto=1)
    await conn.close()
    bulk_load(path, hands * 2, players, rng)  # about half of them land in guild 1
    store = await Store.open(path)
    # a few through the real write path
    for _ in range(20):
        seats = [SeatSpec.human(p, f"player {p}") for p in rng.sample(range(1, players + 1), 4)]
        m = await store.start_match(1, 1, "wuhu", {}, 1, seats, at=T0)
        for n in range(1, 17):
            h = await store.start_hand(m, n, n, None, at=T0)
            await store.finish_hand(h, random_rows(rng), at=T0 + timedelta(days=rng.randrange(365)))
        await store.finish_match(m, at=T0)
    async with store.transaction(write=False) as conn:
        guild_hands = (await conn.all("SELECT COUNT(DISTINCT hand_id) FROM ledger WHERE guild_id = 1"))[0][0]
    out = {"guild_hands": guild_hands}
    async with store.transaction(write=False) as conn:
        now = datetime.fromtimestamp((await conn.all("SELECT MAX(at) FROM ledger"))[0][0] / 1000, UTC)
    periods = (
        ("all", None),
        ("month", period_start("month", now)),
        ("week", period_start("week", now)),
        ("since_first_hour", T0 + timedelta(hours=1)),  # worst case: every day row plus a partial first day
    )
    for label, since in periods:
        times = []
        for _ in range(reps):
            t = time.perf_counter()
            rows = await board(store, 1, "wuhu", since, limit=10)
            times.append(time.perf_counter() - t)
        assert rows
        out[f"leaderboard_{label}_ms"] = statistics.median(times) * 1000
    times = []
    for p in range(1, 21):
        t = time.perf_counter()
        await player_record(store, 1, p, "wuhu")
        times.append(time.perf_counter() - t)
    out["player_stats_ms"] = statistics.median(times) * 1000
    await store.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--hands", type=int, default=100_000, help="hands in the measured server (default 100000)")
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--actions", type=int, default=2000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        record_ms = asyncio.run(bench_actions(Path(tmp) / "actions.db", args.actions))
        board = asyncio.run(bench_board(Path(tmp) / "board.db", args.hands, args.players, 15))
    result = {"record_action_ms": round(record_ms, 3), **{k: round(v, 3) for k, v in board.items()}}
    if not args.json:
        for k, v in result.items():
            print(f"{k:>24}: {v}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

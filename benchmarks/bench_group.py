"""Group figures, run by hand: ``python benchmarks/bench_group.py [--json] [--hands 100000]``.

The leaderboard with corrections (:func:`bot.store.group.board`) over ``--hands`` bulk-loaded hands (as
``bench_store.py`` loads them) after ``--voids`` voided hands and as many adjustments: all time, a month, a season
range ``[since, until)`` (partial first and last days), plus a player's record, a head to head and a weekly summary.
Medians in milliseconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_store import T0, bulk_load  # noqa: E402
from bot.store import Store, dialect, period_start  # noqa: E402
from bot.store import group as gstore  # noqa: E402
from bot.store.migrate import load_migrations, migrate  # noqa: E402
from bot.store.models import from_ms  # noqa: E402


async def median_ms(reps: int, make) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        await make()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


async def bench(path: Path, hands: int, players: int, voids: int, reps: int) -> dict[str, float]:
    rng = random.Random(11)
    conn = await dialect.connect(str(path))
    await migrate(conn, load_migrations(), upto=1)
    await conn.close()
    bulk_load(path, hands * 2, players, rng)
    store = await Store.open(path)
    async with store.transaction(write=False) as conn:
        ids = [r[0] for r in await conn.all(
            "SELECT DISTINCT hand_id FROM ledger WHERE guild_id = 1 AND variant = 'wuhu'")]
        last = (await conn.all("SELECT MAX(at) FROM ledger"))[0][0]
    for hid in rng.sample(ids, voids):
        await gstore.void_hand(store, 1, 9, hid, "bench")
    for _ in range(voids):
        a, b = rng.sample(range(1, players + 1), 2)
        await gstore.adjust(store, 1, 9, a, b, rng.randrange(1, 50), "wuhu", "bench", at=T0 + timedelta(days=200))
    end = from_ms(last)
    month = period_start("month", end)
    season = (T0 + timedelta(days=40, hours=5), T0 + timedelta(days=220, hours=7))
    out: dict[str, float] = {"guild_hands": len(ids), "corrections": 2 * voids}
    out["board_all_ms"] = await median_ms(reps, lambda: gstore.board(store, 1, "wuhu", limit=10))
    out["board_month_ms"] = await median_ms(reps, lambda: gstore.board(store, 1, "wuhu", month, limit=10))
    out["board_season_ms"] = await median_ms(reps, lambda: gstore.board(store, 1, "wuhu", *season, limit=10))
    out["player_record_ms"] = await median_ms(reps, lambda: gstore.player_record(store, 1, 7, "wuhu"))
    out["head_to_head_ms"] = await median_ms(reps, lambda: gstore.head_to_head(store, 1, 7, 8))
    out["week_summary_ms"] = await median_ms(reps, lambda: gstore.week_summary(store, 1, end - timedelta(days=7),
                                                                                  end))
    await store.close()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--hands", type=int, default=100_000)
    ap.add_argument("--players", type=int, default=200)
    ap.add_argument("--voids", type=int, default=200)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        result = asyncio.run(bench(Path(tmp) / "group.db", args.hands, args.players, args.voids, 9))
    result = {k: round(v, 3) for k, v in result.items()}
    if not args.json:
        for k, v in result.items():
            print(f"{k:>20}: {v}")
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

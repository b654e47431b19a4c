"""The lease connection killed at random moments: is every loss noticed at once? (run by hand; bot.cluster)

    python benchmarks/stress_lease_loss.py [--runs 400] [--modes idle,step,drain,queries] [--seed 1] [--json]

Each run opens a :class:`bot.cluster.Cluster` holding shards 0 and 1 of 2 on a throw-away PostgreSQL database
(tests/harness/pg.py), sets its connection to work (``step``: a lease check; ``drain``: a take of routed clicks;
``queries``: five owner lookups at once; ``idle``: nothing), waits a random 0-3 ms, has the server end the session
(``pg_terminate_backend``) and gives the process 2 s of polls to drop its shards without a lease check of its own
(the checks every ``tick`` are off). A run that still holds a shard then is a **miss**: the process would keep
driving tables whose lease the server has already freed until its next check.

Before 2026-12-04 the misses were about 3 in 400 ``step`` runs: asyncpg ends a connection that fails while a
statement is being sent without calling its termination listeners. The statements now notice a closed connection
(``Cluster._session``); this script is how that was found, and how a newer asyncpg can be checked.

With ``--json`` the last line is one object: {"runs": N, "misses": M, "by_mode": {mode: [runs, misses]}}. Run it
niced: a run takes about 0.1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.cluster import Cluster  # noqa: E402
from bot.shards import ShardPlan  # noqa: E402

MODES = ("idle", "step", "drain", "queries")


async def run(server: Any, url: str, runs: int, modes: list[str], seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    by_mode: dict[str, list[int]] = {m: [0, 0] for m in modes}
    Cluster.tick = 3600.0  # no lease check but the ones a run starts
    for i in range(runs):
        c = await Cluster.open(url, ShardPlan((0, 1), 2), lease_wait=0.0)

        async def nothing(_shards: set[int]) -> None:
            return None

        c.on_lose = c.on_gain = nothing
        mode = rng.choice(modes)
        work: list[asyncio.Future[Any]] = []
        if mode == "step":
            work.append(asyncio.ensure_future(c.step()))
        elif mode == "drain":
            c._kick_drain()
        elif mode == "queries":
            work += [asyncio.ensure_future(c.owner_alive(1)) for _ in range(5)]
        await asyncio.sleep(rng.random() * 0.003)
        await asyncio.to_thread(server.psql, f"SELECT pg_terminate_backend({c.backend_pid})")
        for _ in range(200):
            if not c.held:
                break
            await asyncio.sleep(0.01)
        by_mode[mode][0] += 1
        if c.held:
            by_mode[mode][1] += 1
            print(f"miss: run {i}, {mode}, the connection closed: {c.conn is not None and c.conn.is_closed()}",
                  flush=True)
        await asyncio.gather(*work, return_exceptions=True)
        await c.close()
    return {"runs": runs, "misses": sum(x[1] for x in by_mode.values()), "by_mode": by_mode}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=400)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in MODES for m in modes):
        ap.error(f"--modes: a comma-separated list of {', '.join(MODES)}")
    logging.basicConfig(level=logging.CRITICAL)  # the losses' own log lines are expected here
    from tests.harness.pg import PgServer

    server = PgServer.start()
    try:
        server.make_template()
        out = asyncio.run(run(server, server.create_database(), args.runs, modes, args.seed))
    finally:
        server.stop()
    if args.json:
        print(json.dumps(out))
    else:
        print(f"runs {out['runs']}, misses {out['misses']}: " + ", ".join(
            f"{m} {r} runs {x} missed" for m, (r, x) in out["by_mode"].items()))


if __name__ == "__main__":
    main()

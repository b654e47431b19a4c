"""Tables over several bot processes on PostgreSQL, against one process on SQLite (run by hand; issue 20).

    python benchmarks/bench_cluster.py [--tables 1000] [--clicks 2] [--rate 40] [--processes 1 2 4] [--json]

Every configuration plays the same number of tables (one human and three AI seats each, PNG drawing stubbed, as
``bench_bot.py``), each process a real process running the bot under the harness with its own fake Discord:

- ``sqlite``: one process, a SQLite file, every shard (the default set-up);
- ``pg-N``: N processes on one PostgreSQL database, shards 0..N-1 of N, the tables spread over the shards' servers.
  Each process's players click the DMs of its own tables (``routed: no``);
- ``pg-2-routed``: 2 processes, and the DM clicks of process 1's tables are delivered to process 0 (shard 0, as
  Discord does), which defers them and routes them through ``routed_clicks`` to process 1 (bot.cluster). The click
  travels from process 1's player to process 0 through this script (standing in for Discord's gateway; it adds a
  pipe hop, so the routing cost measured is an upper bound).

Per click: from handing the interaction over (to the process that receives it) to the last request the owner made
for that table in answer, on the wall clock (one machine). Moves per second: every action recorded (human and AI)
during the clicking, per second. Requests counted against Discord's global limit (the bot token's, not interaction
responses or webhook follow-ups) per second, all processes together, against the 50/s limit.

With ``--json`` the last line is one object: {"configs": {name: {...}}, ...}. A throw-away PostgreSQL server is
started for the run (tests/harness/pg.py); run it niced: ``nice -n 10 python benchmarks/bench_cluster.py``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

GUILD0 = 1_270_000_000_000_000_000
CHANNEL0 = 1_280_000_000_000_000_000
USER0 = 1_290_000_000_000_000_000
GLOBAL_LIMIT = 50


def say(obj: dict[str, Any]) -> None:
    os.write(1, (json.dumps(obj) + "\n").encode())


# ------------------------------------------------------------------------------------------------ one process


async def node(args: argparse.Namespace) -> None:
    """One bot process: boots, opens its tables, then clicks when told, and reports."""
    import itertools

    import tests.harness.fake as fake_module
    from bot.cluster import Cluster
    from bot.config import Config
    from bot.shards import parse_shards
    from bot.store.paths import db_target
    from bot.tables import TIMER_TASK_NAME, Timers
    from tests.harness import APPLICATION_ID, Harness, stdin_lines
    from tests.harness.fake import FakeDiscord, InteractionRecord, user_payload

    fake_module._snowflakes = itertools.count(args.base)
    Cluster.tick = 1.0
    plan = parse_shards(args.ids, args.count) if args.ids else parse_shards(None, None)
    target = db_target(args.db)

    def prepare(bot: Any) -> None:
        bot.tables.timers = Timers(turn=3600, claim=3600, next_hand=3600)
        bot.tables.render_images = False
        bot.tables.new_seed = lambda: f"bench-{next(seeds)}"

    seeds = itertools.count(args.base)
    fake = FakeDiscord(APPLICATION_ID, user_payload(APPLICATION_ID, "mjbot", bot=True))
    h = await Harness.boot(target, config=Config(token=None, db_path=target, shards=plan), fake=fake,
                           prepare=prepare)
    h.ignored_task_names.add(TIMER_TASK_NAME)
    h.bot.observers.detach(h.seen)
    h.bot.tables.publisher.min_interval, h.bot.tables.publisher.channel_limit = 0.0, None
    if args.limited:  # this process's share of Discord's global limit, as a real run keeps it (bot.ratelimit)
        from bot.ratelimit import share

        h.bot.limiter.rate = share(len(plan.ids), plan.count) if plan.ids and plan.count else share()
    mgr = h.bot.tables
    tables = json.loads(args.tables_json)  # [[guild, channel, user], ...]
    for g, ch, u in tables:
        h.add_channel(ch, guild_id=g)
        await h.slash("table new", variant="hefei", user=u, guild=g, channel=ch)
        for _ in range(3):
            await h.slash("table addbot", user=u, guild=g, channel=ch)
        await h.slash("table start", user=u, guild=g, channel=ch)
    await h.settle(timeout=600)
    await mgr.wait_idle()

    # requests attributed to a player: their DM channel, their table's channel, their interactions' tokens
    user_of_channel = {ch: u for _, ch, u in tables}
    token_user: dict[str, int] = {}
    requests_of: dict[int, list[float]] = {u: [] for _, _, u in tables}
    counted: list[float] = []
    answered: set[str] = set()

    def on_request(req: Any) -> None:
        now = time.time()
        seg = req.path.strip("/").split("/")
        who = None
        if seg[0] == "channels" and len(seg) > 1:
            cid = int(seg[1])
            who = user_of_channel.get(cid) or next((u for u, c in h.fake.dm_by_user.items() if c == cid), None)
        elif seg[0] in ("interactions", "webhooks") and len(seg) > 2:
            who = token_user.get(seg[2])
            answered.add(seg[2])
        if req.transport == "http":
            counted.append(now)
        if who is not None and who in requests_of:
            requests_of[who].append(now)

    h.fake.on_request.append(on_request)
    lines = stdin_lines()

    async def feeder() -> None:
        """Clicks another process's players made, delivered here (shard 0): fed as Discord would."""
        while True:
            line = await lines.get()
            if not line:
                return
            cmd = json.loads(line)
            if cmd.get("op") == "route":
                m = fake.adopt_dm(cmd["message"], cmd["user"])
                rec = InteractionRecord(id=int(cmd["data"]["id"]), token=cmd["data"]["token"], type=3,
                                        channel_id=m.channel_id, guild_id=None, user_id=cmd["user"],
                                        message_id=m.id)
                fake.interactions[rec.token] = rec
                h.bot._connection.parse_interaction_create(cmd["data"])
            elif cmd.get("op") == "go":
                go.set()
            elif cmd.get("op") == "quit":
                stop.set()
                return

    go, stop = asyncio.Event(), asyncio.Event()
    feed_task = asyncio.get_running_loop().create_task(feeder())
    say({"ready": True, "tables": len(tables)})
    await go.wait()

    own = sorted(mgr.by_id)
    actions0 = await count_actions(h, own)
    clicked: dict[int, list[float]] = {u: [] for _, _, u in tables}
    pending: dict[int, str] = {}
    gap = 1.0 / args.rate if args.rate > 0 else 0.0
    clicks = 0
    t_start = time.time()
    counted.clear()
    order = [(ch, u) for _, ch, u in tables]
    i = 0
    idle_rounds = 0
    while clicks < args.clicks * len(tables) and time.time() - t_start < args.max_seconds and tables:
        ch, u = order[i % len(order)]
        i += 1
        if i % len(order) == 0:
            idle_rounds += 1
            if idle_rounds > 10000:
                break
        if u in pending:
            lt = mgr.by_channel.get(ch)
            if pending[u] not in answered or (lt is not None and lt.lock.locked()):
                await asyncio.sleep(0)
                continue
            del pending[u]
        lt = mgr.by_channel.get(ch)
        if lt is None or lt.table is None:
            continue
        tb = lt.table
        if tb.phase == "ended":
            msg = h.fake.find_message(lt.message_id)
            nxt = [c["custom_id"] for c in msg.buttons() if c["custom_id"].endswith(":next")]
            if not nxt:
                continue
            data, rec = h.click_payload(msg, custom_id=nxt[0], user=u)
            routed = False
        else:
            dms = h.dms(u)
            seat = lt.seat_of(u)
            if not dms or seat is None or seat not in tb.awaited():
                continue
            msg = dms[-1]
            cids = [c["custom_id"] for c in msg.buttons() if c.get("custom_id", "").startswith("mjt:")
                    and c["custom_id"].split(":")[2] != "9"]
            if not cids:
                continue
            ops = {c.split(":")[4]: c for c in cids}
            cid = ops.get("w") or next((c for c in reversed(cids) if c.split(":")[4] == "d"), None) or ops.get("x")
            if cid is None:
                continue
            data, rec = h.click_payload(msg, custom_id=cid, user=u)
            routed = args.route
        token_user[rec.token] = u
        pending[u] = rec.token
        clicked[u].append(time.time())
        if routed:  # delivered to shard 0's process, which defers it and routes it here
            rec.callbacks.append({"type": 6})
            rec.original = msg
            say({"route": {"op": "route", "data": data, "message": msg.payload(), "user": u}})
        else:
            h.bot._connection.parse_interaction_create(data)
        clicks += 1
        if gap:
            await asyncio.sleep(gap)
    t_end = time.time()
    await h.settle(timeout=600, raise_on_timeout=False)
    await mgr.wait_idle()
    t_settled = time.time()
    actions1 = await count_actions(h, own)
    latencies: list[float] = []
    for u, times in clicked.items():
        reqs = requests_of[u]
        for k, t0 in enumerate(times):
            t1 = times[k + 1] if k + 1 < len(times) else float("inf")
            inside = [r for r in reqs if t0 <= r < t1]
            latencies.append(((max(inside) if inside else t0) - t0) * 1000)
    say({"done": True, "clicks": clicks, "latencies": latencies, "seconds": t_end - t_start,
         "settled_seconds": t_settled - t_start, "counted": [c - t_start for c in counted],
         "moves": actions1 - actions0})
    await stop.wait()
    feed_task.cancel()
    await h.close()


async def count_actions(h: Any, ids: list[int]) -> int:
    """The actions recorded in the matches ``ids`` (this process's own: the database is shared)."""
    if not ids:
        return 0
    async with h.bot.open_store.transaction(write=False) as conn:
        found = await conn.all(f"SELECT COUNT(*) FROM actions WHERE match_id IN ({', '.join('?' * len(ids))})", ids)
        return int(found[0][0])


# ------------------------------------------------------------------------------------------------ the run


class Node:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.result: dict[str, Any] = {}

    async def line(self) -> dict[str, Any]:
        raw = await self.proc.stdout.readline()  # type: ignore[union-attr]
        if not raw:
            raise RuntimeError("a node ended")
        return dict(json.loads(raw))

    def send(self, obj: dict[str, Any]) -> None:
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())  # type: ignore[union-attr]


def pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    s = sorted(values)
    return round(s[min(len(s) - 1, int(len(s) * q))], 2)


async def run_config(name: str, db: str, processes: int, sharded: bool, route: bool, args: argparse.Namespace,
                     log_dir: Path) -> dict[str, Any]:
    from bot.shards import shard_of

    count = max(1, processes)
    spread: list[list[list[int]]] = [[] for _ in range(processes)]
    g = GUILD0
    for i in range(args.tables):
        k = shard_of(g, count) if sharded else 0
        spread[k].append([g, CHANNEL0 + i, USER0 + i])
        g += 1 << 22
    nodes: list[Node] = []
    t0 = time.time()
    for k in range(processes):
        argv = [sys.executable, str(Path(__file__).resolve()), "--node", "--db", db, "--base",
                str(1_300_000_000_000_000_000 + (k + 1) * 10**14), "--tables-json", json.dumps(spread[k]),
                "--clicks", str(args.clicks), "--rate", str(args.rate / processes), "--max-seconds",
                str(args.max_seconds)]
        if sharded:
            argv += ["--ids", str(k), "--count", str(count)]
        if route and k != 0:
            argv.append("--route")
        if args.limited:
            argv.append("--limited")
        with (log_dir / f"{name}-{k}.log").open("wb") as err:
            proc = await asyncio.create_subprocess_exec(*argv, stdin=asyncio.subprocess.PIPE,
                                                        stdout=asyncio.subprocess.PIPE, stderr=err, cwd=str(ROOT),
                                                        limit=2**26)
        nodes.append(Node(proc))
    for ready in await asyncio.gather(*(n.line() for n in nodes)):  # each opens its own tables meanwhile
        assert ready.get("ready"), ready
    opened = time.time() - t0
    for n in nodes:
        n.send({"op": "go"})

    async def relay(n: Node) -> None:
        while True:
            msg = await n.line()
            if "route" in msg:
                nodes[0].send(msg["route"])
            elif msg.get("done"):
                n.result = msg
                return

    await asyncio.gather(*(relay(n) for n in nodes))
    for n in nodes:
        n.send({"op": "quit"})
    for n in nodes:
        await n.proc.wait()
    lat = [x for n in nodes for x in n.result["latencies"]]
    seconds = max(n.result["seconds"] for n in nodes)
    settled = max(n.result["settled_seconds"] for n in nodes)
    counted = sorted(c for n in nodes for c in n.result["counted"])
    peak = 0
    j = 0
    for i, c in enumerate(counted):  # most counted requests in any 1 s window, all processes together
        while counted[j] <= c - 1.0:  # the window (c - 1, c]: one second, as the limiter counts it
            j += 1
        peak = max(peak, i - j + 1)
    return {
        "processes": processes, "tables": args.tables, "routed": route, "clicks": len(lat),
        "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99), "max_ms": pct(lat, 1.0),
        "moves_per_s": round(sum(n.result["moves"] for n in nodes) / settled, 1) if settled else None,
        "counted_requests_per_s": round(len(counted) / settled, 1) if settled else None,
        "counted_peak_1s": peak, "global_limit": GLOBAL_LIMIT, "open_seconds": round(opened, 1),
        "click_seconds": round(seconds, 1),
    }


async def main(args: argparse.Namespace) -> dict[str, Any]:
    from tests.harness.pg import PgServer

    log_dir = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    out: dict[str, Any] = {"configs": {}, "logs": str(log_dir), "load_before": os.getloadavg()[0]}
    if not args.skip_sqlite:
        out["configs"]["sqlite-1"] = await run_config("sqlite-1", str(log_dir / "bench.sqlite3"), 1, False, False,
                                                      args, log_dir)
    server = PgServer.start()
    try:
        await asyncio.to_thread(server.make_template)
        for n in args.processes:
            url = server.create_database()
            out["configs"][f"pg-{n}"] = await run_config(f"pg-{n}", url, n, True, False, args, log_dir)
            server.drop_database(url)
        if args.routed:
            url = server.create_database()
            out["configs"]["pg-2-routed"] = await run_config("pg-2-routed", url, 2, True, True, args, log_dir)
            server.drop_database(url)
    finally:
        server.stop()
    out["load_after"] = os.getloadavg()[0]
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=1000)
    ap.add_argument("--clicks", type=int, default=2, help="clicks per table")
    ap.add_argument("--rate", type=float, default=40.0, help="clicks per second over all processes")
    ap.add_argument("--max-seconds", type=float, default=600.0)
    ap.add_argument("--processes", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--no-routed", dest="routed", action="store_false", help="skip the routed run")
    ap.add_argument("--skip-sqlite", action="store_true")
    ap.add_argument("--limited", action="store_true",
                    help="each process keeps to its share of Discord's 50 requests/s (the harness runs without it)")
    ap.add_argument("--json", action="store_true")
    # one process of a run (started by this script)
    ap.add_argument("--node", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--db", help=argparse.SUPPRESS)
    ap.add_argument("--ids", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--count", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--base", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--tables-json", default="[]", help=argparse.SUPPRESS)
    ap.add_argument("--route", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.node:
        asyncio.run(node(a))
        sys.exit(0)
    res = asyncio.run(main(a))
    if a.json:
        print(json.dumps(res))
    else:
        for name, r in res["configs"].items():
            print(name + ": " + ", ".join(f"{k} {v}" for k, v in r.items()))
        print(f"logs: {res['logs']}")

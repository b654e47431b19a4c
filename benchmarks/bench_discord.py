"""Discord requests per move: plays hands through the test harness under a simulated clock (run by hand).

    python benchmarks/bench_discord.py [--hands 2] [--rates 1,3,10] [--variant hefei] [--seed 1] [--kinds]
                                       [--share 50] [--json]

Two tables are played with real images: four humans (every click of every human is a move) and one human with
three AI seats (a move is the human's click; the AI's moves ride on it). Each request the bot makes is captured at
the transport (tests/harness) and classed as *counted* against Discord's global budget (everything with the bot
token) or *exempt* (interaction callbacks and follow-ups, on the interaction token). Bytes uploaded are the
attachments' bytes. Time is simulated: the publisher's clock and sleeper are a :class:`SimClock`, moves come
``1/rate`` simulated seconds apart, and the most writes (POST/PATCH/DELETE) to one channel (the table's or a DM)
in any 5 simulated seconds are reported per rate; ``peak_channel_writes_5s`` is the figure at the fastest rate.

Last line with ``--json``: the keys of docs/interfaces.md (``counted_per_move_4h``,
``counted_per_click_1h``, ``exempt_per_move_4h``, ``peak_channel_writes_5s``, ``upload_bytes_per_move_4h``) plus
per-rate counts and peaks, the table channel's and the busiest DM channel's apart (``peak_table_channel_5s_at_R``,
``peak_dm_channel_5s_at_R``), ``reupload_bytes_per_move_4h`` (pictures sent again to a channel that already had
exactly that picture), Discord's global limit (bot/ratelimit.py, on the simulated clock, at this process's
``--share``, default the whole 50 requests/s): ``global_share``, ``peak_counted_per_s`` (the most counted requests
Discord received in any one second, at the fastest rate; per rate ``peak_counted_per_s_at_R``) and
``limiter_waits`` (counted requests that waited for a slot) and, with ``--kinds``, the requests and the bytes uploaded by route and file. Deals are known
(``--seed``), so two runs of the same code play the same hands.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ratelimit import GLOBAL_LIMIT  # noqa: E402
from bot.tables import TIMER_TASK_NAME  # noqa: E402
from bot.tables.publisher import CHANNEL_WRITES, TABLE_EDIT_INTERVAL  # noqa: E402
from tests.harness import Harness  # noqa: E402
from tests.harness.simclock import SimClock  # noqa: E402

USERS = [8_100_001, 8_100_002, 8_100_003, 8_100_004]
WINDOW = 5.0  # seconds: Discord's per-channel write limit is about 5 per 5 s


def _controls(msg: Any) -> list[str]:
    return [c["custom_id"] for c in msg.buttons()
            if c.get("custom_id", "").startswith("mjt:") and c["custom_id"].split(":")[2] != "9"]


def _pick(cids: list[str]) -> str:
    ops = {c.split(":")[4]: c for c in cids}
    if "w" in ops:
        return ops["w"]
    ds = [c for c in cids if c.split(":")[4] == "d"]
    return ds[-1] if ds else ops["x"]


def peak_per_second(times: list[float]) -> int:
    """The most of ``times`` in any one second ``[t, t + 1)``.

    >>> peak_per_second([0.0, 0.5, 0.99, 1.0, 1.2])
    3
    """
    ts = sorted(times)
    best, j = 0, 0
    for i, t in enumerate(ts):
        while ts[j] <= t - 1.0:
            j += 1
        best = max(best, i - j + 1)
    return best


def peak_writes(writes: list[tuple[float, int]], window: float = WINDOW) -> int:
    """The most writes to one channel within any ``window`` seconds (inclusive of both ends).

    >>> peak_writes([(0.0, 1), (1.0, 1), (5.0, 1), (5.1, 1), (0.5, 2)])
    3
    """
    by: dict[int, list[float]] = {}
    for t, ch in writes:
        by.setdefault(ch, []).append(t)
    best = 0
    for ts in by.values():
        ts.sort()
        j = 0
        for i, t in enumerate(ts):
            while ts[j] < t - window + 1e-9:
                j += 1
            best = max(best, i - j + 1)
    return best


async def play(humans: int, rate: float, hands: int, variant: str, db_dir: str | None, seed: int = 1,
               share: float = GLOBAL_LIMIT) -> dict[str, Any]:
    tmp = Path(tempfile.mkdtemp(dir=db_dir))
    h = await Harness.boot(tmp / "bench.db")
    h.ignored_task_names.add(TIMER_TASK_NAME)
    clock = SimClock()
    mgr = h.bot.tables
    mgr.new_seed = lambda: f"{seed:016x}"  # known deals: every run plays the same hands
    mgr.publisher.clock, mgr.publisher.sleep = clock.time, clock.sleep
    # the product's pacing (the harness turns it off for tests)
    mgr.publisher.min_interval, mgr.publisher.channel_limit = TABLE_EDIT_INTERVAL, CHANNEL_WRITES
    mgr.render_images = True
    limiter = h.bot.limiter  # Discord's global limit, this process's share (the harness turns it off for tests)
    limiter.clock, limiter.sleep, limiter.rate = clock.time, clock.sleep, share
    h.bot.observers.detach(h.seen)  # keep no scenes (the harness's listener is for tests)
    mgr.timers.turn = mgr.timers.claim = mgr.timers.next_hand = 3600.0  # nobody times out during the run
    ch = h.add_channel()
    users = USERS[:humans]
    r = await h.slash("table new", variant=variant, user=users[0], channel=ch)
    for u in users[1:]:
        await h.slash("table join", user=u, channel=ch)
    for _ in range(4 - humans):
        await h.slash("table addbot", user=users[0], channel=ch)
    start = next(c["custom_id"] for c in r.reply.buttons() if c["custom_id"].endswith(":start"))
    await h.click(h.fake.find_message(r.reply.id), custom_id=start, user=users[0])
    await clock.advance(5.0, h.settle)
    lt = mgr.by_channel[ch]
    dm_user = {cid: uid for uid, cid in h.fake.dm_by_user.items()}
    stats = {"counted": 0, "exempt": 0, "upload": 0, "reupload": 0}
    uploaded: set[tuple[str, bytes]] = set()
    writes: list[tuple[float, int]] = []
    dm_writes: list[tuple[float, int]] = []
    table_writes: list[tuple[float, int]] = []
    counted_at: list[float] = []  # when Discord received each counted request (a 429 refused is not counted)
    kinds: dict[str, int] = {}
    upload_by: dict[str, int] = {}  # bytes uploaded by route and file name
    reupload_by: dict[str, int] = {}  # the same, of pictures the channel already had

    def on_request(req: Any) -> None:
        if req.transport == "webhook":
            stats["exempt"] += 1
        else:
            stats["counted"] += 1
            if req.status != 429:
                counted_at.append(clock.now)
        stats["upload"] += sum(len(a.data) for a in req.files)
        seg = req.path.strip("/").split("/")
        key = f"{req.method} {seg[0]}{'/dm' if seg[0] == 'channels' and int(seg[1]) in dm_user else ''}"
        key += "/" + "/".join(s for s in seg[2:] if not s.isdigit()) if seg[0] == "channels" else ""
        kinds[key] = kinds.get(key, 0) + 1
        for a in req.files:
            where = f"{seg[0]}/{seg[1]}" if seg[0] == "channels" else "interactions"
            if (where, a.data) in uploaded:  # the same picture sent to the same channel before
                stats["reupload"] += len(a.data)
                name = re.sub(r"-?\d+", "", a.filename)
                reupload_by[f"{key} {name}"] = reupload_by.get(f"{key} {name}", 0) + len(a.data)
            uploaded.add((where, a.data))
            name = re.sub(r"-?\d+", "", a.filename)
            upload_by[f"{key} {name}"] = upload_by.get(f"{key} {name}", 0) + len(a.data)
        if seg[0] == "channels" and req.method in ("POST", "PATCH", "DELETE", "PUT"):
            writes.append((clock.now, int(seg[1])))
            (dm_writes if int(seg[1]) in dm_user else table_writes).append((clock.now, int(seg[1])))

    h.fake.on_request.append(on_request)
    moves = 0
    ended: set[int] = set()  # the hands seen finished (the engine's hand number may move on at a hand's end)
    stuck = 0
    while not lt.closed and lt.table is not None and len(ended) < hands and stuck < 50:
        tb = lt.table
        clicked = False
        if tb.phase != "ended" and tb.phase not in ("play", "claim", "rob"):
            break  # the match is over
        if tb.phase == "ended":
            ended.add(tb.hand_no)
            if len(ended) >= hands:
                break
            msg = h.fake.find_message(lt.message_id)  # type: ignore[arg-type]
            cid = next((c["custom_id"] for c in msg.buttons() if c["custom_id"].endswith(":next")), None)
            if cid is not None:  # (None: the result card is still waiting for the channel's pacing)
                await h.click(msg, custom_id=cid, user=users[0])
                clicked = True
        else:
            for u in users:
                seat = lt.seat_of(u)
                if seat not in tb.awaited():
                    continue
                for msg in reversed(h.dms(u)):
                    cids = [c for c in _controls(msg) if int(c.split(":")[3]) == lt.since[seat]]  # type: ignore
                    if cids:
                        await h.click(msg, custom_id=_pick(cids), user=u)
                        clicked = True
                        break
                if clicked:
                    break
        if clicked:
            moves += 1
            stuck = 0
        else:
            stuck += 1
        await clock.advance(1.0 / rate, h.settle)
    await clock.advance(30.0, h.settle)  # the last coalesced writes land
    await h.close()
    return {"moves": moves, "counted": stats["counted"], "exempt": stats["exempt"], "upload": stats["upload"], "reupload": stats["reupload"],
            "peak_5s": peak_writes(writes), "peak_table_5s": peak_writes(table_writes),
            "peak_dm_5s": peak_writes(dm_writes), "peak_counted_1s": peak_per_second(counted_at),
            "limiter_waits": limiter.delayed, "kinds": kinds, "upload_by": upload_by, "reupload_by": reupload_by}


async def main(args: argparse.Namespace) -> dict[str, Any]:
    rates = [float(x) for x in args.rates.split(",")]
    out: dict[str, Any] = {}
    four: dict[float, dict[str, Any]] = {}
    for rate in rates:
        four[rate] = await play(4, rate, args.hands, args.variant, args.db_dir, args.seed, args.share)
    one = await play(1, rates[0], args.hands, args.variant, args.db_dir, args.seed, args.share)
    base = four[rates[0]]
    out["counted_per_move_4h"] = round(base["counted"] / max(1, base["moves"]), 3)
    out["counted_per_click_1h"] = round(one["counted"] / max(1, one["moves"]), 3)
    out["exempt_per_move_4h"] = round(base["exempt"] / max(1, base["moves"]), 3)
    out["peak_channel_writes_5s"] = max(four[r]["peak_5s"] for r in rates[-1:])
    out["upload_bytes_per_move_4h"] = round(base["upload"] / max(1, base["moves"]))
    out["reupload_bytes_per_move_4h"] = round(base["reupload"] / max(1, base["moves"]))
    out["exempt_per_click_1h"] = round(one["exempt"] / max(1, one["moves"]), 3)
    out["upload_bytes_per_click_1h"] = round(one["upload"] / max(1, one["moves"]))
    for r in rates:
        out[f"peak_channel_writes_5s_at_{r:g}"] = four[r]["peak_5s"]
        out[f"peak_table_channel_5s_at_{r:g}"] = four[r]["peak_table_5s"]
        out[f"peak_dm_channel_5s_at_{r:g}"] = four[r]["peak_dm_5s"]
        out[f"counted_per_move_4h_at_{r:g}"] = round(four[r]["counted"] / max(1, four[r]["moves"]), 3)
    out["global_share"] = args.share
    out["peak_counted_per_s"] = max(four[r]["peak_counted_1s"] for r in rates[-1:])
    out["limiter_waits"] = sum(four[r]["limiter_waits"] for r in rates) + one["limiter_waits"]
    for r in rates:
        out[f"peak_counted_per_s_at_{r:g}"] = four[r]["peak_counted_1s"]
    out["peak_channel_writes_5s_1h"] = one["peak_5s"]
    out["moves_4h"] = base["moves"]
    out["clicks_1h"] = one["moves"]
    out["rates"] = rates
    if args.kinds:
        out["requests_4h"] = base["kinds"]
        out["requests_1h"] = one["kinds"]
        out["upload_by_4h"] = base["upload_by"]
        out["upload_by_1h"] = one["upload_by"]
        out["reupload_by_4h"] = base["reupload_by"]
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2, help="hands played per run")
    ap.add_argument("--rates", default="1,3,10", help="moves per second tried (simulated), slowest first")
    ap.add_argument("--variant", default="hefei", choices=["wuhu", "hefei", "chizhou"])
    ap.add_argument("--db-dir", default=None)
    ap.add_argument("--seed", type=int, default=1, help="the match seed (the same deals every run)")
    ap.add_argument("--kinds", action="store_true", help="also list the requests by method and route")
    ap.add_argument("--share", type=float, default=GLOBAL_LIMIT,
                    help="this process's share of Discord's global limit, requests/s (bot.ratelimit.share)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    res = asyncio.run(main(a))
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>32}: {v}")

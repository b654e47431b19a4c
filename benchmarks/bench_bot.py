"""The bot under load: many tables in play in one process, driven through the test harness (run by hand).

    python benchmarks/bench_bot.py [--tables 200] [--clicks 10] [--images] [--ai strong] [--inline-ai] [--json]

Each table has one human and three AI seats (the human's clicks make the AI seats play too, as in a real game).
In waves, every table's human presses their current control at about the same moment; for each click we measure
the time from feeding the interaction to the LAST request the bot made for that table in answer (channel edits,
announcements, DMs, the interaction callback), all on one event loop. PNG drawing is off unless ``--images``
(the goal excludes image encoding; a 1x1 stub PNG is sent instead). Memory per active table: traced Python
allocations after opening and starting the first ``--memory-tables`` tables (30), divided by their number; the
other tables are opened and every click is timed with tracing off, so that tracing does not slow what is timed.

Loop lag: a probe task on the same loop asks to wake every ``--probe-ms`` (1 ms) and records how late it wakes
while the clicks run; a late wake-up is the loop held by something that did not await (an AI decision made inline,
the engine inside a table's lock, building messages ...). ``loop_block_max_ms`` is the longest such block,
``loop_block_p99_ms`` the 99th percentile of the wake-ups' lateness. On a shared machine a wake-up is also late when
the process waits for a core: ``loop_cpu_block_max_ms`` / ``_p99_ms`` count only the loop thread's own CPU time
over each wait (``time.thread_time``), the work that really held the loop; ``gc_full_max_ms`` is the longest full
(generation 2) garbage collection over the same time (CPU ms), ``gc_full_collections`` how many ran;
``ai_loop_max_ms`` the most CPU time one AI decision took on the loop's thread over the whole run (pooled: handing
the view to a worker and taking the answer back; with ``--inline-ai``: the whole decision); ``ai_answer_p50_ms`` / ``_p99_ms`` the time from asking the pool for a
decision to its answer (queue included: compare it with the claim window, 15 s by default, and with the pool's
bound ``aipool.TIMEOUT``, 2.5 s), ``ai_answer_max_ms`` the slowest, ``ai_timeouts`` how many decisions waited that long
on a worker that answered nothing meanwhile (the pool then took its workers for hung), ``ai_waited_busy`` how many
waited that long on a worker busy with the decisions queued before them (the pool saturated, not hung). The AI seats decide in the AI pool's worker
processes, as in the product (``--inline-ai``: on the loop, to compare).

The fake Discord keeps every request and interaction record (tests read them); the benchmark drops those of each
click once it is timed (and those of the tables' opening), as the product keeps none of them: kept, they more than
doubled the objects a full collection walks (``--keep-harness-records``: the benchmark before 2026-12-02).
``harness_requests_refused`` counts the requests the fake Discord refused (should be 0); ``gc_frozen`` the objects
of the start-up that ``setup_hook`` moved out of the collector's reach (``bot.app.freeze_startup``).

Last line with ``--json``: {"tables", "clicks", "p50_ms", "p99_ms", "max_ms", "kb_per_table", "memory_tables",
"loop_block_max_ms", "loop_block_p99_ms", "loop_cpu_block_max_ms", "loop_cpu_block_p99_ms", "gc_full_max_ms",
"ai_pooled", "ai_fallbacks", "ai_loop_max_ms", "ai_answer_p50_ms", "ai_answer_p99_ms", "ai_answer_max_ms",
"ai_timeouts", "ai_waited_busy", "ai_worker_cpu_ms_per_decision", "ai_worker_processes", ...}.
``ai_worker_cpu_ms_per_decision``: the AI worker processes' CPU time over the clicks (user + system, Linux ``/proc``,
sampled every quarter second, so a pool retired during the run still counts; None elsewhere) divided by the decisions
they made meanwhile (compare it between runs of one pool design only: docs/benchmarks.md#ai-pool);
``ai_worker_processes`` the worker processes seen (more than the pool's size when a pool was retired and replaced).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.tables import TIMER_TASK_NAME  # noqa: E402
from tests.harness import Harness  # noqa: E402

USER0 = 9_000_000


def _controls(msg) -> list[dict]:
    return [c for c in msg.buttons() if c.get("custom_id", "").startswith("mjt:") and c["custom_id"].split(":")[2] != "9"]


def _pick(msg) -> str:
    cs = _controls(msg)
    ops = {c["custom_id"].split(":")[4]: c["custom_id"] for c in cs}
    if "w" in ops:
        return ops["w"]
    ds = [c["custom_id"] for c in cs if c["custom_id"].split(":")[4] == "d"]
    return ds[-1] if ds else ops["x"]


def _workers_cpu(pool) -> dict[int, float]:
    """CPU seconds (user + system) each AI worker process has used so far, by pid (Linux: /proc; else empty)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    for pid in list((getattr(pool._pool, "_processes", None) or {}) if pool._pool is not None else ()):
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[pid] = (int(fields[11]) + int(fields[12])) / tick
        except (OSError, ValueError, IndexError):
            pass
    return out


def _click_task(bot, custom_id: str) -> asyncio.Task:
    """The task discord.py started for a click just dispatched: a dynamic item's callback, named after its custom id.

    Looked for among the view store's few tasks in flight, once a click. Until 2026-12-03 the benchmark asked, at every
    turn of its loop, whether any task of the whole loop (some 500 at 200 tables) was still that callback: those
    scans, on the loop the bot runs on, took more of the loop's time than the bot's own clicks in a run whose AI pool
    was saturated (27 s of a 92 s profile, against 11 s for the clicks) and slowed what they timed."""
    store = getattr(bot._connection, "_view_store", None)
    for t in getattr(store, "_ViewStore__tasks", ()):  # discord.py's in-flight item tasks
        if not t.done() and t.get_name().endswith(custom_id):
            return t
    found = next((t for t in asyncio.all_tasks() if not t.done() and t.get_name().endswith(custom_id)), None)
    if found is None:  # without it the next click of the table could be fed before this one took the table's lock
        raise RuntimeError(f"no task of discord.py runs the click {custom_id}")
    return found


async def main(args: argparse.Namespace) -> dict:
    tmp = Path(tempfile.mkdtemp(dir=args.db_dir))
    h = await Harness.boot(tmp / "bench.db")
    h.ignored_task_names.add(TIMER_TASK_NAME)
    mgr = h.bot.tables
    mgr.render_images = args.images
    mgr.ai.inline = args.inline_ai  # the harness decides inline by default; the product uses the worker processes
    h.bot.observers.detach(h.seen)  # keep no scenes: memory per table is measured
    mgr.timers.turn = mgr.timers.claim = mgr.timers.next_hand = 3600.0  # nobody times out during the run
    channels = [h.add_channel() for _ in range(args.tables)]
    users = [USER0 + i for i in range(args.tables)]
    by_channel = dict(zip(channels, users, strict=True))
    # one table started before measuring: what the first table loads once for the whole process (the string
    # catalogues, Babel's locale data, caches) is not a cost per table
    warm_ch, warm_u = h.add_channel(), USER0 + args.tables
    r = await h.slash("table new", variant=args.variant, user=warm_u, channel=warm_ch)
    for _ in range(3):
        await h.slash("table addbot", user=warm_u, channel=warm_ch, difficulty=args.ai)
    start = next(c["custom_id"] for c in r.reply.buttons() if c["custom_id"].endswith(":start"))
    # the first click with AI seats starts the AI pool: spawn and imports may take more than the harness's usual
    # 10 s on a busy machine, so this one click is given two minutes
    await h.click(h.fake.find_message(r.reply.id), custom_id=start, user=warm_u, timeout=120)
    await mgr.ai.warm()  # the AI pool's worker processes are started once, not timed
    gc.collect()

    async def open_and_start(ch: int, u: int) -> None:
        r = await h.slash("table new", variant=args.variant, user=u, channel=ch)
        for _ in range(3):
            await h.slash("table addbot", user=u, channel=ch, difficulty=args.ai)
        lobby = r.reply
        start = next(c["custom_id"] for c in lobby.buttons() if c["custom_id"].endswith(":start"))
        await h.click(h.fake.find_message(lobby.id), custom_id=start, user=u)

    # memory: traced on the first --memory-tables tables only (tracing every allocation slows Python several
    # times; the clicks below are timed with tracing off). Only what the bot keeps counts: allocations made inside
    # the harness's fake Discord are left out.
    items = list(by_channel.items())
    sample = items[:max(1, min(args.memory_tables, len(items)))]
    tracemalloc.start(12)
    base = tracemalloc.take_snapshot()
    for ch, u in sample:
        await open_and_start(ch, u)
    gc.collect()
    after = tracemalloc.take_snapshot()
    keep = [tracemalloc.Filter(False, "*tests/harness/*", all_frames=True)]
    grown = sum(s.size_diff for s in after.filter_traces(keep).compare_to(base.filter_traces(keep), "filename"))
    tracemalloc.stop()
    del base, after
    for ch, u in items[len(sample):]:
        await open_and_start(ch, u)
    await h.bot.tables.wait_idle()
    # requests are attributed to a table by channel, by DM channel (user) and by interaction token
    dm_user = {cid: uid for uid, cid in h.fake.dm_by_user.items()}
    user_of_channel = dict(by_channel)
    requests_of: dict[int, list[float]] = {u: [] for u in users}
    token_user: dict[str, int] = {}

    def on_request(req) -> None:
        seg = req.path.strip("/").split("/")
        who = None
        if seg[0] == "channels" and len(seg) > 1:
            cid = int(seg[1])
            who = user_of_channel.get(cid) or dm_user.get(cid) or next(
                (u for u, c in h.fake.dm_by_user.items() if c == cid), None)
        elif seg[0] in ("interactions", "webhooks") and len(seg) > 2:
            who = token_user.get(seg[2])
        if who is not None:
            requests_of[who].append(time.perf_counter())

    h.fake.on_request.append(on_request)
    dropped, refused = [0], [0]

    def drop_requests() -> None:
        """The fake Discord's log of requests, already timed (``on_request``): counted (and those Discord refused,
        which should stay 0) and dropped."""
        dropped[0] += len(h.fake.requests)
        refused[0] += sum(1 for r in h.fake.requests if r.status >= 400)
        h.fake.requests.clear()

    if not args.keep_harness_records:  # the opening of the tables is over (settled): its records too
        drop_requests()
        h.fake.interactions.clear()
    lags: list[float] = []
    cpu: list[float] = []
    probing = True

    async def probe() -> None:
        """How late the loop wakes a task that asked to sleep ``--probe-ms``: the time the loop was held."""
        want = args.probe_ms / 1000
        while probing:
            t0, c0 = time.perf_counter(), time.thread_time()
            await asyncio.sleep(want)
            late = max(0.0, time.perf_counter() - t0 - want) * 1000
            lags.append(late)
            # the loop thread's own CPU time over the same wait: work done on the loop (a late wake-up with little
            # CPU is the process waiting for a core on a busy machine, or for the GIL, not the loop held by work)
            cpu.append((time.thread_time() - c0) * 1000)

    gc_pauses: list[float] = []
    gc_t0 = [0.0]

    def on_gc(phase: str, info: dict) -> None:  # the garbage collector's pauses, also on the loop thread
        if phase == "start":
            gc_t0[0] = time.thread_time()
        elif info.get("generation") == 2:
            gc_pauses.append((time.thread_time() - gc_t0[0]) * 1000)

    gc.callbacks.append(on_gc)
    # each worker's CPU from its first sample to its last: a pool retired during the run (its processes killed) and
    # the one started after it both count, each from the first time it is seen (a new pool's imports may partly fall
    # before that sample, and a killed one's last quarter second after its last: the figure is a little low then)
    worker_cpu_first: dict[int, float] = {}
    worker_cpu_last: dict[int, float] = {}

    def sample_workers() -> None:
        for pid, used in _workers_cpu(mgr.ai).items():
            worker_cpu_first.setdefault(pid, used)
            worker_cpu_last[pid] = used

    async def sample_workers_often() -> None:
        while probing:
            sample_workers()
            await asyncio.sleep(0.25)

    sample_workers()
    pooled0 = mgr.ai.pooled
    prober = asyncio.get_running_loop().create_task(probe(), name="bench-loop-probe")
    h.ignored_task_names.add("bench-loop-probe")
    sampler = asyncio.get_running_loop().create_task(sample_workers_often(), name="bench-worker-cpu")
    h.ignored_task_names.add("bench-worker-cpu")
    clicks = 0
    clicked: dict[int, list[float]] = {u: [] for u in users}
    running: dict[int, asyncio.Task] = {}  # user -> the callback of their last click
    tokens: dict[int, str] = {}  # user -> interaction token of that click
    order = list(by_channel.items())
    loop_start = time.perf_counter()
    gap = 1.0 / args.rate
    i = 0
    passed = 0  # tables looked at since the last click
    while clicks < args.clicks * args.tables and time.perf_counter() - loop_start < args.max_seconds:
        if passed >= len(order):  # a whole round without a table to click: let the loop rest a moment, not spin
            passed = 0
            await asyncio.sleep(0.001)
        ch, u = order[i % len(order)]
        i += 1
        passed += 1
        if u in running:
            task = running[u]
            if not task.done() or mgr.by_channel[ch].lock.locked():
                await asyncio.sleep(0)
                continue
            del running[u]
            # what the fake Discord keeps of a finished click (its interaction record, the requests it caused:
            # timed above, by on_request) is dropped: the product keeps none of it, and a heap swollen by the
            # harness makes every full garbage collection (a pause of the whole loop) longer than the bot's own
            if not args.keep_harness_records:
                h.fake.interactions.pop(tokens.pop(u), None)
                drop_requests()
        lt = mgr.by_channel.get(ch)
        if lt is None or lt.table is None:
            continue
        tb = lt.table
        if tb.phase == "ended":  # next hand by the table's button
            msg = h.fake.find_message(lt.message_id)
            cid = next(c["custom_id"] for c in msg.buttons() if c["custom_id"].endswith(":next"))
        else:
            dms = h.dms(u)
            if not dms or not _controls(dms[-1]) or lt.seat_of(u) not in tb.awaited():
                continue
            msg = dms[-1]
            cid = _pick(msg)
        data, rec = h.click_payload(msg, custom_id=cid, user=u)
        token_user[rec.token] = u
        tokens[u] = rec.token
        clicked[u].append(time.perf_counter())
        h.bot._connection.parse_interaction_create(data)
        running[u] = _click_task(h.bot, cid)
        clicks += 1
        passed = 0
        await asyncio.sleep(gap)
    # the last clicks: their callbacks, then their messages, before the harness's settle (which looks at every task
    # of the loop at every turn: it would slow the last clicks it waits for)
    await asyncio.gather(*running.values(), return_exceptions=True)
    await mgr.wait_idle()
    await h.settle(timeout=120)
    sample_workers()
    pooled1 = mgr.ai.pooled
    probing = False
    await prober
    await sampler
    gc.callbacks.remove(on_gc)
    latencies: list[float] = []
    for u, times in clicked.items():
        reqs = requests_of[u]
        for k, t0 in enumerate(times):
            t1 = times[k + 1] if k + 1 < len(times) else float("inf")
            inside = [r for r in reqs if t0 <= r < t1]
            latencies.append(((max(inside) if inside else t0) - t0) * 1000)
    active = sum(1 for ch in by_channel if (lt := mgr.by_channel.get(ch)) is not None and lt.table is not None)
    frozen = gc.get_freeze_count()  # before the harness closes the bot (and unfreezes what it froze)
    await h.close()
    lat = sorted(latencies)
    out = {
        "tables": args.tables,
        "active_tables": active,
        "clicks": clicks,
        "images": args.images,
        "ai": args.ai,
        "p50_ms": round(statistics.median(lat), 2) if lat else None,
        "p99_ms": round(lat[min(len(lat) - 1, int(len(lat) * 0.99))], 2) if lat else None,
        "max_ms": round(lat[-1], 2) if lat else None,
        "kb_per_table": round(grown / 1024 / len(sample), 1),
        "loop_block_max_ms": round(max(lags), 2) if lags else None,
        "loop_block_p99_ms": round(sorted(lags)[min(len(lags) - 1, int(len(lags) * 0.99))], 2) if lags else None,
        "loop_cpu_block_max_ms": round(max(cpu), 2) if cpu else None,
        "loop_cpu_block_p99_ms": round(sorted(cpu)[min(len(cpu) - 1, int(len(cpu) * 0.99))], 2) if cpu else None,
        "gc_full_collections": len(gc_pauses),
        "gc_full_max_ms": round(max(gc_pauses), 2) if gc_pauses else None,
        "gc_frozen": frozen,
        "harness_requests_dropped": dropped[0],
        "harness_requests_refused": refused[0] + sum(1 for r in h.fake.requests if r.status >= 400),
        "ai_inline": args.inline_ai,
        "ai_pooled": mgr.ai.pooled,
        "ai_fallbacks": mgr.ai.fallbacks,
        "ai_loop_max_ms": round(mgr.ai.loop_ms_max, 3),
        "ai_answer_p50_ms": round(statistics.median(mgr.ai.answer_ms), 2) if mgr.ai.answer_ms else None,
        "ai_answer_p99_ms": (round(sorted(mgr.ai.answer_ms)[int(len(mgr.ai.answer_ms) * 0.99)], 2)
                             if mgr.ai.answer_ms else None),
        # the slowest answer (the pool takes a worker for hung past ``aipool.TIMEOUT``), and how often that happened
        "ai_answer_max_ms": round(max(mgr.ai.answer_ms), 2) if mgr.ai.answer_ms else None,
        "ai_timeouts": mgr.ai.timeouts,
        "ai_waited_busy": mgr.ai.waited_busy,
        # the AI workers' own CPU time over the clicks (user + system, from /proc: a loaded machine inflates it
        # little), per decision they made meanwhile: what the decisions cost, apart from the queue for a core
        "ai_asked_ahead": mgr.asked_ahead,  # decisions asked while the action before them was being written
        "ai_worker_cpu_ms_per_decision": (round(sum(worker_cpu_last[p] - worker_cpu_first[p] for p in worker_cpu_last)
                                                * 1000 / (pooled1 - pooled0), 3)
                                          if worker_cpu_last and pooled1 > pooled0 else None),
        "ai_worker_processes": len(worker_cpu_last),
        "memory_tables": len(sample),
        "rate_per_s": args.rate,
        "db_dir": str(tmp),
    }
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--clicks", type=int, default=5, help="clicks per table")
    ap.add_argument("--rate", type=float, default=40.0, help="clicks per second over all tables (default: "
                    "each of 200 tables clicks every 5 s)")
    ap.add_argument("--max-seconds", type=float, default=120.0)
    ap.add_argument("--memory-tables", type=int, default=30, help="tables opened with allocation tracing on, to "
                    "measure memory per table (the others, and every click, run untraced)")
    ap.add_argument("--variant", default="hefei", choices=["wuhu", "hefei", "chizhou"])
    ap.add_argument("--images", action="store_true", help="draw and encode the real PNGs")
    ap.add_argument("--ai", default="normal", choices=["easy", "normal", "strong"],
                    help="the AI seats' difficulty")
    ap.add_argument("--inline-ai", action="store_true", help="decide the AI seats on the event loop (the tests' "
                    "way) instead of in the AI pool's worker processes")
    ap.add_argument("--keep-harness-records", action="store_true", help="keep every request and interaction "
                    "record in the fake Discord (before 2026-12-02 the benchmark did: a heap the product does not have, "
                    "and longer full garbage collections)")
    ap.add_argument("--probe-ms", type=float, default=1.0, help="the loop-lag probe's sleep")
    ap.add_argument("--db-dir", default=None, help="folder for the database file (default: the system temp folder)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    res = asyncio.run(main(a))
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>14}: {v}")

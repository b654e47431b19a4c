"""A no-op's round trip to a worker process while the event loop is half busy, by the interpreter's switch interval
and by the way the call crosses.

    python benchmarks/bench_handoff.py [--intervals 0.005,0.001] [--ways executor,pipe,bot] [--rounds 2]
                                       [--calls 400] [--json]

The bot sends every AI decision to a worker process (``bot/tables/aipool.py``). Until 2026-12-04 it went through a
``ProcessPoolExecutor``, whose call crosses two threads of the bot's process on the way out (the executor's manager
thread, the call queue's feeder thread) and the manager thread again on the way back. Each of them must take the
interpreter lock from the event loop's thread, which holds it while it serves the other tables: up to the switch
interval each time (``sys.setswitchinterval``; Python's default 5 ms, which the bot keeps: docs/benchmarks.md).
Here the loop is kept half busy (3 ms of work, 3 ms asleep, over and over) while ``--calls`` no-ops go to a worker
one after another; each interval is run ``--rounds`` times, in turn.

``--ways``: ``executor`` is the executor (the bot's way before); ``pipe`` a worker process reading its calls from a
pipe, whose other end the event loop writes itself and watches with ``loop.add_reader``: no thread of the bot's
process between them; ``bot`` the bot's way now (``bot.tables.workers.Workers``: a socket per worker, which the loop writes and
reads itself through an asyncio transport). Last line with ``--json``: a list of {"way", "interval_ms", "round",
"p50_ms", "p90_ms", "p99_ms", "mean_ms"}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import pickle
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repository this file is in, not another checkout's installed copy


def _echo(x: object) -> object:
    return x


def _serve(conn: Connection) -> None:
    """The pipe way's worker: a call (a pickled function and argument) in, its pickled answer out, until EOF."""
    while True:
        try:
            fn, arg = pickle.loads(conn.recv_bytes())
        except EOFError:
            return
        conn.send_bytes(pickle.dumps(fn(arg)))


class _Piped:
    """The pipe way: one worker process; the loop writes a call to the pipe and wakes when the answer is there."""

    def __init__(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child,), daemon=True)
        self.proc.start()
        child.close()
        self.waiting: asyncio.Future[Any] | None = None
        asyncio.get_running_loop().add_reader(self.conn.fileno(), self._answer)

    def _answer(self) -> None:
        out = pickle.loads(self.conn.recv_bytes())
        if self.waiting is not None and not self.waiting.done():
            self.waiting.set_result(out)

    def submit(self, fn: Any, arg: object) -> asyncio.Future[Any]:
        self.waiting = asyncio.get_running_loop().create_future()
        self.conn.send_bytes(pickle.dumps((fn, arg)))
        return self.waiting

    def close(self) -> None:
        asyncio.get_running_loop().remove_reader(self.conn.fileno())
        self.conn.close()
        self.proc.join(5)


async def _round(interval: float, calls: int, way: str = "executor") -> dict[str, float]:
    before = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    if way == "bot":
        from bot.tables.aipool import AiPool

        pool = AiPool(workers=1)
        await pool.warm()
        workers = pool._pool
        assert workers is not None and workers.ready == [True], "the AI pool did not start"

        def send(arg: object) -> asyncio.Future[Any]:
            return workers.submit(0, _echo, arg)

        def end() -> None:
            pool.close()
    elif way == "pipe":
        piped = _Piped()

        def send(arg: object) -> asyncio.Future[Any]:
            return piped.submit(_echo, arg)

        def end() -> None:
            piped.close()
    else:
        ex = ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))

        def send(arg: object) -> asyncio.Future[Any]:
            return asyncio.wrap_future(ex.submit(_echo, arg))

        def end() -> None:
            ex.shutdown()
    try:
        await send(0)  # the process started and warm
        busy = True

        async def half_busy() -> None:
            while busy:
                t0 = time.perf_counter()
                while time.perf_counter() - t0 < 0.003:
                    pass
                await asyncio.sleep(0.003)

        task = asyncio.create_task(half_busy())
        times = []
        payload = {"view": list(range(300))}  # about the size of a seat's view
        for _ in range(calls):
            t0 = time.perf_counter()
            await send(payload)
            times.append((time.perf_counter() - t0) * 1000)
        busy = False
        await task
    finally:
        end()
        sys.setswitchinterval(before)
    times.sort()
    return {"p50_ms": round(statistics.median(times), 2), "p90_ms": round(times[int(0.9 * len(times))], 2),
            "p99_ms": round(times[int(0.99 * len(times))], 2), "mean_ms": round(statistics.mean(times), 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--intervals", default="0.005,0.001", help="switch intervals to compare, in seconds")
    ap.add_argument("--ways", default="executor,bot", help="any of executor (the bot's before), pipe, bot (the bot's)")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--calls", type=int, default=400)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    out = []
    for r in range(1, args.rounds + 1):
        for interval in (float(x) for x in args.intervals.split(",")):
            for way in args.ways.split(","):
                row = {"way": way, "interval_ms": interval * 1000, "round": r,
                       **asyncio.run(_round(interval, args.calls, way))}
                out.append(row)
                if not args.json:
                    print(f"{way}, interval {row['interval_ms']:.1f} ms, round {r}: p50 {row['p50_ms']} / p90 "
                          f"{row['p90_ms']} / p99 {row['p99_ms']} ms, mean {row['mean_ms']} ms")
    if args.json:
        print(json.dumps(out))


if __name__ == "__main__":
    main()

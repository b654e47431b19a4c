"""AI decisions off the event loop: every AI decision runs in a small pool of worker processes.

An AI decision is pure Python: a strong one (:mod:`engine.strong`) takes milliseconds to tens of milliseconds, a
normal one measured up to ~120 ms on a loaded machine. At many tables that would hold the event loop (every click,
every Discord event) behind it. So the table manager asks this pool: the decision is sent to a worker process
(``loop.run_in_executor`` on a ``ProcessPoolExecutor``), the loop awaits it and serves everything else meanwhile.
What stays on the loop is the view (a plain dict) and the legal actions crossing to the worker, well under a
millisecond.

**The same decisions wherever they run.** A decision is a pure function of the seat's view, the legal actions and,
for the easy AI, a generator seeded by the match's seed and the table's position (:func:`engine.ai.decision_rng`),
whose state goes to the worker with the view. Inline, in a worker, after a fallback, asked ahead or asked again
after a failed write or a restart: the same seed and actions give the same game, and a replay reproduces every AI
action (``tests/cogs/test_ai_pool.py``).

- The pool starts when a table with AI seats starts (:meth:`warm`) or on the first decision (a bot without AI
  seats never starts a process), with ``workers`` processes (default 2) started by ``spawn`` (never ``fork`` a
  process that runs threads and a loop); the submits that start processes run in a thread (a process takes tens
  of milliseconds to start).
- One table's decisions go to the same process while it is free, another process when it is busy and another is
  idle (:class:`Workers`): a strong decision is cheaper where the table's earlier decisions were made (the scored
  ready hands each process keeps come back), and no decision waits while a process is idle.
- ``inline=True`` decides in the calling thread instead (the test harness's default: tests that only need the
  decisions, not the processes; the pool's own tests turn it off).
- **A broken pool** (a worker killed, or one that cannot start): logged, the pool is replaced and the decision is
  tried once more in the new one; if that fails too, it is decided in a thread (``asyncio.to_thread``: the loop
  still runs between the thread's slices) and the next decision starts a new pool. A worker that does not answer
  within ``timeout`` seconds (hung) is treated the same way. The table goes on either way and the log says which.
- :meth:`close` shuts the processes down (the manager's close); a worker whose bot process was killed ends by
  itself within a second.
- ``pooled`` / ``fallbacks`` count the decisions made in the workers / by a fallback; ``loop_ms_max`` is the most
  CPU one decision took on the loop's thread, ``answer_ms`` the latest decisions' time from asking to the answer
  (tests and ``benchmarks/bench_bot.py`` read them).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import random
import threading
import time
from collections import deque
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

from engine.ai import choose
from engine.table import Action

log = logging.getLogger(__name__)

TIMEOUT = 30.0
"""Seconds one decision may wait for a worker (queue included) before the pool is taken for hung; a decision takes
milliseconds, so only a stuck worker gets near it."""
WORKER_NICE = 10
"""The workers run this much nicer than the bot: on a machine with no core to spare (two cores, both workers busy
with strong AI seats) the event loop, which answers the players' clicks, gets the CPU first and the AI waits."""


def decide(view: Mapping[str, Any], seat: int, legal: Sequence[Mapping[str, Any]], difficulty: str,
           rng_state: Any = None) -> tuple[dict[str, Any], Any]:
    """One decision in a worker: plain data in, plain data out (an action as JSON, and the generator's state after
    the decision when one was given)."""
    rng = None
    if rng_state is not None:
        rng = random.Random()
        rng.setstate(rng_state)
    act = choose(view, seat, [Action.from_json(a) for a in legal], difficulty, rng)
    return act.to_json(), (rng.getstate() if rng is not None else None)


def _start_worker(parent: int) -> None:
    """Run in each worker as it starts: import the engine (and its caches) before the first real decision, and
    end the worker when the bot's process is gone (killed: nothing else would end it, as a worker holds both ends of
    its queue and never sees it close)."""
    import engine.strong  # noqa: F401

    with contextlib.suppress(OSError, AttributeError):  # (AttributeError: no os.nice on Windows)
        os.nice(WORKER_NICE)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="mjbot-ai-parent-watch", daemon=True).start()


def _warm() -> int:
    """A no-op task: the worker that runs it has started (warm)."""
    return 0


class Workers:
    """The pool's worker processes, each with its own queue (a one-process ``ProcessPoolExecutor``), so that the
    decisions of one table go to the same process while it is free: each process keeps what it has priced (the
    strong AI's scored ready hands, :mod:`engine.strong.lookahead`), and the same table's next decisions find much
    of it there. A decision goes to its table's process (``key`` modulo the count) unless that one is busy and
    another is idle (then to the idle one), so no decision waits while a process has nothing to do. Broken as a whole:
    when one process dies, the AI pool replaces them all."""

    def __init__(self, workers: int, parent: int) -> None:
        ctx = multiprocessing.get_context("spawn")
        self.executors = [ProcessPoolExecutor(max_workers=1, mp_context=ctx, initializer=_start_worker,
                                              initargs=(parent,)) for _ in range(workers)]
        self.busy = [0] * workers  # decisions submitted and not yet answered, per process (counted on the loop)
        self.retired = False  # dropped by the AI pool after a failure (not by its close): its decisions try again

    @property
    def _processes(self) -> dict[int, Any]:
        """Every worker process by pid (as ``ProcessPoolExecutor._processes``: started ones only)."""
        out: dict[int, Any] = {}
        for ex in self.executors:
            out.update(getattr(ex, "_processes", None) or {})
        return out

    def pick(self, key: int | None) -> int:
        """The process for a decision of table ``key`` (None: the least busy)."""
        n = len(self.executors)
        if key is None:
            return min(range(n), key=lambda i: self.busy[i])
        i = key % n
        if self.busy[i]:
            idle = next((j for j in range(n) if not self.busy[j]), None)
            if idle is not None:
                return idle
        return i

    def started(self, i: int) -> bool:
        """Whether process ``i`` has started (its first submit starts it: tens of milliseconds)."""
        return bool(getattr(self.executors[i], "_processes", None))

    def submit(self, i: int, fn: Any, *args: Any) -> Any:
        return self.executors[i].submit(fn, *args)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        for ex in self.executors:
            ex.shutdown(wait=wait, cancel_futures=cancel_futures)


class AiPool:
    def __init__(self, workers: int = 2, *, inline: bool = False, timeout: float = TIMEOUT) -> None:
        self.workers = workers
        self.inline = inline
        self.timeout = timeout
        self._pool: Workers | None = None
        self.pooled = 0  # decisions made in the workers (tests check the path was taken)
        self.fallbacks = 0  # decisions made in a thread because the pool failed twice
        self.loop_ms_max = 0.0  # the most CPU one decision took on the event loop's thread (benchmarks read it)
        self.answer_ms: deque[float] = deque(maxlen=10_000)  # the latest decisions' time from asking to the answer

    def _executor(self) -> Workers:
        if self._pool is None:
            self._pool = Workers(self.workers, os.getpid())
        return self._pool

    async def warm(self) -> None:
        """Start the worker processes now and wait until each has imported the engine (a table with AI seats
        starting), so that the first decision does not wait for a process to start. Never raises: a pool that
        fails here is replaced on the first decision."""
        if self.inline or self._pool is not None:
            return
        try:
            pool = self._executor()
            # starting a process costs tens of milliseconds: the submits that start them run in a thread
            futs = await asyncio.to_thread(lambda: [pool.submit(i, _warm) for i in range(self.workers)])
            await asyncio.gather(*map(asyncio.wrap_future, futs))
        except Exception as e:
            log.warning("AI pool: the workers did not start (%r); the first decision tries again", e)

    async def choose(self, view: Mapping[str, Any], seat: int, legal: Sequence[Action], difficulty: str,
                     rng: random.Random | None = None, key: int | None = None) -> Action:
        """The AI's action for ``seat`` from its view, decided in a worker process (see the module docstring);
        ``key``: the table's, whose decisions go to the same process while it is free (:class:`Workers`)."""
        if len(legal) == 1:
            return legal[0]
        if self.inline:
            t0 = time.thread_time()
            act = choose(view, seat, legal, difficulty, rng)
            self._on_loop(t0)  # all of it on the loop
            return act
        t0 = time.thread_time()  # CPU time of the loop's thread: what the decision costs the loop, not the wait
        w0 = time.perf_counter()
        args = (dict(view), seat, [a.to_json() for a in legal], difficulty,
                rng.getstate() if rng is not None else None)
        for attempt in (1, 2):
            pool = None
            i = 0
            try:
                pool = self._executor()
                i = pool.pick(key)
                fresh = not pool.started(i)
                pool.busy[i] += 1
                try:
                    try:
                        if fresh:  # its process starts with this submit: in a thread, not on the loop
                            submitted = await asyncio.to_thread(partial(pool.submit, i, decide, *args))
                        else:
                            submitted = pool.submit(i, decide, *args)
                            self._on_loop(t0)
                    except RuntimeError as e:  # "cannot schedule new futures after shutdown"
                        if not pool.retired:
                            raise
                        # another table's decision retired the pool while this submit was on its way (in a thread)
                        raise BrokenProcessPool(f"the pool was retired meanwhile ({e})") from e
                    try:
                        out, state = await asyncio.wait_for(asyncio.wrap_future(submitted), self.timeout)
                    except asyncio.CancelledError:
                        task = asyncio.current_task()
                        if task is None or task.cancelling() or not pool.retired:
                            raise  # this decision is cancelled (one asked ahead and dropped), or the pool closed
                        # the decision waited in the queue of a pool that another table retired (its other process
                        # died or hung): that pool's shutdown cancelled it; decided again like a broken pool's
                        raise BrokenProcessPool("the decision was cancelled with its retired pool") from None
                finally:
                    pool.busy[i] -= 1
                self.answer_ms.append((time.perf_counter() - w0) * 1000)
                t0 = time.thread_time()
            except (BrokenProcessPool, TimeoutError, OSError) as e:
                what = "did not answer in time" if isinstance(e, TimeoutError) else f"is broken ({e!r})"
                self._retire(pool)
                if attempt == 1:
                    log.warning("AI pool: the worker pool %s; starting a new pool and deciding again "
                                "(seat %d, %s)", what, seat, difficulty)
                else:
                    log.warning("AI pool: the new pool %s too; deciding this one in a thread (seat %d, %s)",
                                what, seat, difficulty)
                continue
            self.pooled += 1
            if rng is not None and state is not None:
                rng.setstate(state)
            act = Action.from_json(out)
            self._on_loop(t0)
            return act
        self.fallbacks += 1
        return await asyncio.to_thread(choose, view, seat, legal, difficulty, rng)

    def _on_loop(self, since: float) -> None:
        self.loop_ms_max = max(self.loop_ms_max, (time.thread_time() - since) * 1000)

    def _retire(self, pool: Workers | None) -> None:
        """A pool that failed is dropped (only if it is still the current one: when a worker dies, every table
        waiting on that pool gets here, and the first one may already have started a new pool) and its processes
        are ended, not waited for."""
        if pool is None or self._pool is not pool:
            return
        self._pool = None
        pool.retired = True
        for p in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):  # already gone
                p.kill()
        pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the worker processes (started again by a later decision)."""
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

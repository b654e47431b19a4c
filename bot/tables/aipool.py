"""AI decisions off the event loop: every AI decision runs in a small pool of worker processes.

An AI decision is pure Python: a strong one (:mod:`engine.strong`) takes milliseconds to tens of milliseconds, a
normal one measured up to ~120 ms on a loaded machine. At many tables that would hold the event loop (every click,
every Discord event) behind it. So the table manager asks this pool: the decision is sent to a worker process over
a socket the event loop writes and reads itself (:class:`Workers`), the loop awaits the answer and serves everything
else meanwhile. What stays on the loop is the view (a plain dict) and the legal actions pickled for the worker and
the answer read back, well under a millisecond.

**The same decisions wherever they run.** A decision is a pure function of the seat's view, the legal actions and,
for the easy AI, a generator seeded by the match's seed and the table's position (:func:`engine.ai.decision_rng`),
whose state goes to the worker with the view. Inline, in a worker, after a fallback, asked ahead or asked again
after a failed write or a restart: the same seed and actions give the same game, and a replay reproduces every AI
action (``tests/cogs/test_ai_pool.py``).

- The pool starts when a table with AI seats starts (:meth:`warm`) or with the first decision (a bot without AI
  seats never starts a process), with ``workers`` processes (default 2) started by ``spawn`` (never ``fork`` a
  process that runs threads and a loop), in the background: they are started in a thread (a process takes tens of
  milliseconds to start) and each is used once it has imported the engine (its start's no-op task answered). **No
  decision waits for a process to start**: one asked while no process of the pool is ready is decided in a thread at
  once (``asyncio.to_thread``: the loop still runs between the thread's slices). A start can
  take seconds on a busy two-core machine (spawn, imports); it is not counted against the decision's bound, and one
  that has not finished within ``start_timeout`` (60 s) is taken for broken.
- One table's decisions go to the same process while it is free, another process when it is busy and another is
  idle (:class:`Workers`): a strong decision is cheaper where the table's earlier decisions were made (the scored
  ready hands each process keeps come back), and no decision waits while a process is idle.
- ``inline=True`` decides in the calling thread instead (the test harness's default: tests that only need the
  decisions, not the processes; the pool's own tests turn it off).
- **A hung or broken pool never holds a table.** A decision waits for its worker's answer while that worker answers
  something at least every ``timeout`` seconds (:data:`TIMEOUT`, 2.5 s); a worker that answers nothing for a whole
  ``timeout`` while a decision waits on it is taken for hung. A busy worker is not hung: at many tables on a machine
  with no core to spare, a decision may wait in its worker's queue longer than ``timeout`` while the worker answers the
  decisions ahead of it, and moving it to a thread of the bot's own process would only take the CPU from the event
  loop and from the workers (a bound that counted the queue retired a busy pool, and hundreds of decisions then ran
  in threads: ``docs/benchmarks.md#ai-pool``). Then, as when a worker died (killed, or it cannot start),
  the pool is retired - its processes killed (a hung process would otherwise run on, and hold the bot's exit) - and
  that decision is made at once in a thread; the next decision starts a new pool. One warning in the log says what
  happened (the other decisions that were waiting on the same pool are decided in threads too, logged at INFO). An AI
  seat thus answers within about 2.5 s even with a hung worker, well inside the shortest claim window a server may
  set (5 s; 15 s by default), and the table goes on with the AI's own decision.
- Why 2.5 s: a decision takes milliseconds (strong: ~2.4 ms mean, ~10 ms at the 99th percentile; the worst seen
  ~260 ms on a loaded machine), and the answer, queue included, at 200 busy tables 12-15 ms at the 99th percentile
  on a quiet machine, 523 ms with load averages of 16-20 on two cores (docs/benchmarks.md#ai-pool). 2.5 s is about
  five times that loaded p99 and ten times the worst decision, so only a stuck worker (or one decision that runs
  for seconds) gets there, and half the
  shortest claim window, so the table still answers well inside it. A false alarm costs little: a pool restart
  (each process's start in the background) and a few decisions in a thread meanwhile.
- The deadline is awaited with ``sleep`` (``asyncio.sleep``; tests inject a clock they move on themselves).
- :meth:`close` ends the processes (the manager's close), killing them: a hung one would never read its socket's
  close, and a restart would wait for it; a worker whose bot process was killed ends by itself (its socket closes, or
  within a second its parent watch sees the bot gone).
- ``pooled`` / ``fallbacks`` count the decisions made in the workers / in a thread (the pool broken, hung or still
  starting), ``timeouts`` the decisions whose worker answered nothing for a whole ``timeout``, ``waited_busy`` those
  that waited longer than ``timeout`` on a worker busy with the decisions before them; ``loop_ms_max`` is the most CPU one
  decision took on the loop's thread, ``answer_ms`` the latest decisions' time from asking to the answer (tests and
  ``benchmarks/bench_bot.py`` read them).
"""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from typing import Any

from engine.ai import choose
from engine.table import Action

from .workers import Workers, in_worker, noop

log = logging.getLogger(__name__)

TIMEOUT = 2.5
"""Seconds a worker may answer nothing while a decision waits on it before the pool is taken for hung and the
decision is made in a thread: see the module docstring for why this number."""
START_TIMEOUT = 60.0
"""Seconds a pool's processes may take to start (spawn, imports) before the pool is taken for broken. Decisions do
not wait for it (they are made in a thread meanwhile): it only bounds how long a start that never ends is waited for."""


def decide(view: Mapping[str, Any], seat: int, legal: Sequence[Mapping[str, Any]], difficulty: str,
           rng_state: Any = None) -> tuple[dict[str, Any], Any]:
    """One decision in a worker: plain data in, plain data out (an action as JSON, and the generator's state after
    the decision when one was given)."""
    rng = None
    if rng_state is not None:
        rng = random.Random()
        rng.setstate(rng_state)
    act = choose(view, seat, [Action.from_json(a) for a in legal], difficulty, rng)
    if in_worker():
        # what this decision left (the strong AI's caches of scored hands and shapes) moves out of the garbage
        # collector's generations: a full collection no longer walks it (see workers._start_worker)
        gc.freeze()
    return act.to_json(), (rng.getstate() if rng is not None else None)


def _choose_in_thread(view: Mapping[str, Any], seat: int, legal: Sequence[Action], difficulty: str,
                      rng: random.Random | None) -> Action:
    """The AI's decision in a thread of the bot's process (a fallback): a StopIteration out of the AI (a bug) is
    raised as a RuntimeError, which the thread's future can carry (asyncio refuses StopIteration on a future, and
    the decision would wait for ever)."""
    try:
        return choose(view, seat, legal, difficulty, rng)
    except StopIteration as e:
        raise RuntimeError(f"the AI raised {e!r}") from e


class AiPool:
    def __init__(self, workers: int = 2, *, inline: bool = False, timeout: float = TIMEOUT,
                 start_timeout: float = START_TIMEOUT) -> None:
        self.workers = workers
        self.inline = inline
        self.timeout = timeout
        self.start_timeout = start_timeout
        # how a decision waits for its deadline (tests inject a clock they move on themselves)
        self.sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        self._pool: Workers | None = None
        self._starting: asyncio.Task[None] | None = None  # the current pool's start, in the background
        self.pooled = 0  # decisions made in the workers (tests check the path was taken)
        self.fallbacks = 0  # decisions made in a thread: the pool broken, hung, or its processes still starting
        self.timeouts = 0  # decisions whose worker answered nothing for a whole ``timeout`` (each retired its pool)
        self.waited_busy = 0  # decisions that waited past ``timeout`` on a worker busy with the ones before them
        self.loop_ms_max = 0.0  # the most CPU one decision took on the event loop's thread (benchmarks read it)
        self.answer_ms: deque[float] = deque(maxlen=10_000)  # the latest decisions' time from asking to the answer

    def _current(self) -> Workers:
        """The current pool; a new one, its processes starting in the background, when there is none (or the
        current one broke while no decision waited on it, or belongs to an event loop that is no longer running)."""
        old = self._pool
        if old is not None and (old.broken or old.loop is not asyncio.get_running_loop()):
            log.warning("AI pool: the worker pool is broken (%s): its processes are ended and a new pool is "
                        "started", old.broken or "its event loop is gone")
            self._retire(old)
        if self._pool is None:
            pool = self._pool = Workers(self.workers, os.getpid())
            self._starting = asyncio.get_running_loop().create_task(self._start(pool), name="mjbot-ai-start")
        return self._pool

    async def _start(self, pool: Workers) -> None:
        """Start ``pool``'s processes and mark each ready once it has imported the engine. A start that fails, or
        has not finished within ``start_timeout``, retires the pool (the next decision starts a new one)."""
        try:
            loop = asyncio.get_running_loop()
            until = loop.time() + self.start_timeout
            # starting a process costs tens of milliseconds: they are started in a thread
            await asyncio.wait_for(asyncio.to_thread(pool.spawn), self.start_timeout)
            await pool.connect()
            waits = [pool.submit(i, noop) for i in range(self.workers)]
            for i, w in enumerate(waits):
                w.add_done_callback(partial(_mark_ready, pool, i))
            _done, pending = await asyncio.wait(waits, timeout=max(0.0, until - loop.time()))
            if pending:
                for w in pending:
                    w.cancel()
                raise TimeoutError(f"not started within {self.start_timeout:g} s")
            if pool.retired:  # retired meanwhile: its calls were cancelled
                return
            for w in waits:
                w.result()
        except Exception as e:
            if pool.retired:  # retired meanwhile (a decision found it broken, or the pool closed): nothing to say
                return
            self._not_started(e)
            self._retire(pool)

    @staticmethod
    def _not_started(e: BaseException) -> None:
        """Say that a pool's processes could not be started (its start failed or timed out, or no process could be
        made), and what happens meanwhile."""
        log.warning("AI pool: the workers did not start (%r); decisions are made in a thread until a new pool "
                    "has started", e)

    async def warm(self) -> None:
        """Start the worker processes now and wait until each has imported the engine (a table with AI seats
        starting), so that the table's decisions find them ready. Never raises: a pool that fails here is
        replaced on a later decision."""
        if self.inline:
            return
        try:
            self._current()
        except Exception as e:
            self._not_started(e)
            return
        task = self._starting
        if task is not None and not task.done():
            try:
                await asyncio.shield(task)
            except asyncio.CancelledError:  # the start was cancelled (the pool closed), not this caller
                current = asyncio.current_task()
                if current is not None and current.cancelling():
                    raise

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
        pool = None
        try:
            pool = self._current()
            i = pool.pick(key)
            if i is None:  # its processes are still starting: no decision waits for that
                return await self._in_thread(view, seat, legal, difficulty, rng, w0)
            args = (dict(view), seat, [a.to_json() for a in legal], difficulty,
                    rng.getstate() if rng is not None else None)
            out, state = await self._ask(pool, i, args, t0)
        except (BrokenProcessPool, TimeoutError, OSError) as e:  # (an error of the AI itself is raised: a bug)
            self._failed(pool, e, seat, difficulty)
            return await self._in_thread(view, seat, legal, difficulty, rng, w0)
        t0 = time.thread_time()
        self.answer_ms.append((time.perf_counter() - w0) * 1000)
        self.pooled += 1
        if rng is not None and state is not None:
            rng.setstate(state)
        act = Action.from_json(out)
        self._on_loop(t0)
        return act

    async def _ask(self, pool: Workers, i: int, args: tuple[Any, ...], t0: float) -> tuple[Any, Any]:
        """One decision in process ``i`` of ``pool``, waited for while the process answers something at least every
        ``timeout`` seconds (TimeoutError when it answered nothing for a whole ``timeout``)."""
        pool.busy[i] += 1
        try:
            answer = pool.submit(i, decide, *args)
            self._on_loop(t0)
            seen, waited = pool.answered[i], False
            while True:
                deadline = asyncio.ensure_future(self.sleep(self.timeout))
                try:
                    await asyncio.wait((answer, deadline), return_when=asyncio.FIRST_COMPLETED)
                except asyncio.CancelledError:  # this decision is dropped (asked ahead), or the bot stops
                    answer.cancel()
                    raise
                finally:
                    deadline.cancel()
                if answer.done():
                    break
                if pool.answered[i] == seen:  # nothing answered for a whole timeout: hung
                    answer.cancel()
                    raise TimeoutError(f"the worker answered nothing within {self.timeout:g} s")
                if not waited:
                    waited = True
                    self.waited_busy += 1
                seen = pool.answered[i]  # busy with the decisions queued before this one: wait on
            if answer.cancelled():  # its pool was retired (by another table's decision) while it waited there
                raise BrokenProcessPool("the decision was cancelled with its retired pool")
            out, state = answer.result()
            return out, state
        finally:
            pool.busy[i] -= 1

    def _failed(self, pool: Workers | None, e: BaseException, seat: int, difficulty: str) -> None:
        """Say why a decision is made in a thread, and retire its pool: one warning per failed pool (the other
        decisions waiting on it are told at INFO)."""
        timed_out = isinstance(e, TimeoutError)
        if timed_out:
            self.timeouts += 1
        if pool is None:  # the pool could not even be made (no process to start: the system's limits)
            log.warning("AI pool: the workers did not start (%r); deciding this one in a thread (seat %d, %s)",
                        e, seat, difficulty)
            return
        if pool.retired:
            log.info("AI pool: the pool was retired meanwhile (%r); deciding this one in a thread (seat %d, %s)",
                     e, seat, difficulty)
            return
        what = f"did not answer in time ({self.timeout:g} s)" if timed_out else f"is broken ({e!r})"
        log.warning("AI pool: the worker pool %s: its processes are ended and this decision is made in a thread; "
                    "the next one starts a new pool (seat %d, %s)", what, seat, difficulty)
        self._retire(pool)

    async def _in_thread(self, view: Mapping[str, Any], seat: int, legal: Sequence[Action], difficulty: str,
                         rng: random.Random | None, w0: float) -> Action:
        """The decision in a thread (``asyncio.to_thread``: the loop runs between the thread's slices), the same as
        in a worker."""
        self.fallbacks += 1
        act = await asyncio.to_thread(_choose_in_thread, view, seat, legal, difficulty, rng)
        self.answer_ms.append((time.perf_counter() - w0) * 1000)
        return act

    def _on_loop(self, since: float) -> None:
        self.loop_ms_max = max(self.loop_ms_max, (time.thread_time() - since) * 1000)

    def _retire(self, pool: Workers | None) -> None:
        """A pool that failed is dropped (only if it is still the current one: when a worker dies, every table
        waiting on that pool gets here, and the first one may already have started a new pool) and its processes
        are killed, not waited for."""
        if pool is None or self._pool is not pool:
            return
        self._pool = None
        pool.kill()

    def close(self) -> None:
        """Stop the worker processes, killing them (a hung one would hold the bot's exit); started again by a later
        decision."""
        pool, self._pool = self._pool, None
        task, self._starting = self._starting, None
        if task is not None and not task.done():
            task.cancel()
        if pool is not None:
            pool.kill()


def _mark_ready(pool: Workers, i: int, fut: asyncio.Future[Any]) -> None:
    """Process ``i`` of ``pool`` answered its start's no-op task: decisions may go to it."""
    if not fut.cancelled() and fut.exception() is None and not pool.retired:
        pool.ready[i] = True

"""AI decisions off the event loop: strong decisions run in a small pool of worker processes.

A strong decision (:mod:`engine.strong`) takes milliseconds to tens of milliseconds of pure Python; at many tables
that would hold the event loop (every click, every Discord event) behind it. So the table manager asks this pool:
a strong decision is sent to a worker process (``loop.run_in_executor`` on a ``ProcessPoolExecutor``), the loop
awaits it and serves everything else meanwhile. The decision is a pure function of the seat's view (a plain dict)
and the legal actions, so it is the same in a worker as inline, and a replay reproduces it.

- The pool starts on the first strong decision (a bot without strong seats never starts a process), with
  ``workers`` processes (default 2) started by ``spawn`` (never ``fork`` a process that runs threads and a loop).
- ``inline=True`` decides in the calling thread instead (tests that only need the decisions, not the processes).
- Easy and normal decisions are fast (well under a millisecond on average) and the easy AI draws from the table's
  seeded generator: they are decided inline, as before.
- A broken pool (a worker killed) is replaced on the next decision; that one decision is made inline.
- :meth:`close` shuts the processes down (the manager's close).
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import random
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from engine.ai import choose
from engine.table import Action

log = logging.getLogger(__name__)

POOLED = frozenset({"strong"})
"""Difficulties decided in the worker processes."""


def decide(view: Mapping[str, Any], seat: int, legal: Sequence[Mapping[str, Any]], difficulty: str
           ) -> dict[str, Any]:
    """One decision in a worker: plain data in, plain data out (an action as JSON)."""
    return choose(view, seat, [Action.from_json(a) for a in legal], difficulty).to_json()


def _warm() -> int:
    """Run in each worker as it starts: import the engine (and its caches) before the first real decision."""
    import engine.strong  # noqa: F401

    return 0


class AiPool:
    def __init__(self, workers: int = 2, *, inline: bool = False) -> None:
        self.workers = workers
        self.inline = inline
        self._pool: ProcessPoolExecutor | None = None
        self.pooled = 0  # decisions made in the workers (tests check the path was taken)

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers,
                                             mp_context=multiprocessing.get_context("spawn"), initializer=_warm)
        return self._pool

    async def choose(self, view: Mapping[str, Any], seat: int, legal: Sequence[Action], difficulty: str,
                     rng: random.Random | None = None) -> Action:
        """The AI's action for ``seat`` from its view: strong in a worker process, the others inline."""
        if len(legal) == 1:
            return legal[0]
        if self.inline or difficulty not in POOLED:
            return choose(view, seat, legal, difficulty, rng)
        loop = asyncio.get_running_loop()
        try:
            out = await loop.run_in_executor(self._executor(), decide, dict(view), seat,
                                             [a.to_json() for a in legal], difficulty)
        except BrokenProcessPool:
            log.warning("AI pool: a worker died; starting a new pool, deciding this one inline")
            self._shutdown()
            return choose(view, seat, legal, difficulty, rng)
        self.pooled += 1
        return Action.from_json(out)

    def _shutdown(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the worker processes (started again by a later decision)."""
        self._shutdown()

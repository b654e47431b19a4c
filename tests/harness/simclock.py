"""Simulated time for the bot's injectable clocks and sleeps (the publisher's, the global limiter's): a sleeper
parks on an Event, which the harness sees as an idle task, until :meth:`SimClock.advance` passes its deadline.
Nothing that uses it depends on the machine's speed."""

from __future__ import annotations

import asyncio
import heapq
import itertools
from collections.abc import Awaitable, Callable


class SimClock:
    """Simulated seconds from 0: ``time`` and ``sleep`` for the bot, :meth:`advance` for the test."""

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, asyncio.Event]] = []
        self._n = itertools.count()

    def time(self) -> float:
        return self.now

    @property
    def sleepers(self) -> int:
        """Sleeps not woken yet."""
        return len(self._heap)

    async def sleep(self, delay: float) -> None:
        if delay <= 0:
            await asyncio.sleep(0)
            return
        ev = asyncio.Event()
        heapq.heappush(self._heap, (self.now + delay, next(self._n), ev))
        await ev.wait()

    async def advance(self, dt: float, settle: Callable[[], Awaitable[object]]) -> None:
        """Move time on by ``dt``, waking each sleeper at its deadline and letting the bot settle after it."""
        target = self.now + dt
        while self._heap and self._heap[0][0] <= target:
            when, _, ev = heapq.heappop(self._heap)
            self.now = max(self.now, when)
            ev.set()
            await settle()
        self.now = target

"""Whose turn it is on the lease connection of :mod:`bot.cluster` (asyncpg runs one statement at a time on a
connection): the lease's own statements first.

The lease's beat and its checks are bounded (``Cluster.check_timeout``, the wait for the connection included: past it
the process gives its shards up). The routed clicks use the same connection (their owner lookups, the queue), and a
burst of them queued for it ahead of a beat held the beat past its bound: the process gave up its shards though
nothing was wrong with it. So a lease statement waiting for the connection goes before every routed click waiting for
it: it waits for the one statement under way at most (a statement hung on a silent network among them: that is what
the bound is for).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator
from typing import Any


class Turns:
    """One user of the connection at a time; ``turn(first=True)`` (the lease's statements) goes before every
    ``turn()`` waiting (the routed clicks'), each kind in the order it came. ``async with turns`` is a ``turn()``."""

    def __init__(self) -> None:
        self._busy = False
        self._first: deque[asyncio.Future[None]] = deque()
        self._later: deque[asyncio.Future[None]] = deque()

    def locked(self) -> bool:
        return self._busy

    def waiting(self) -> tuple[int, int]:
        """(lease statements, others) waiting for their turn."""
        return (sum(not f.done() for f in self._first), sum(not f.done() for f in self._later))

    @contextlib.asynccontextmanager
    async def turn(self, first: bool = False) -> AsyncIterator[None]:
        await self._acquire(first)
        try:
            yield
        finally:
            self._release()

    async def __aenter__(self) -> None:
        await self._acquire(False)

    async def __aexit__(self, *exc: Any) -> None:
        self._release()

    async def _acquire(self, first: bool) -> None:
        if not self._busy:
            self._busy = True
            return
        fut = asyncio.get_running_loop().create_future()
        queue = self._first if first else self._later
        queue.append(fut)
        try:
            await fut
        except BaseException:
            if fut.done() and not fut.cancelled():  # the turn was handed over as the waiter was cancelled: pass it on
                self._release()
            else:
                with contextlib.suppress(ValueError):
                    queue.remove(fut)
            raise

    def _release(self) -> None:
        """Hand the connection to the next waiter (the lease's first), or free it."""
        for queue in (self._first, self._later):
            while queue:
                fut = queue.popleft()
                if not fut.done():
                    fut.set_result(None)
                    return
        self._busy = False

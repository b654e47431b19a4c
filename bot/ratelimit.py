"""Discord's global limit, shared by all the bot's processes: each keeps its own requests under its share.

Discord allows a bot 50 requests per second in all (its *global* limit), whichever process or shard sends them;
interaction responses and follow-ups (requests on an interaction's token) are not counted. A bot run as several
processes (``mjbot run --shard-ids 0-3 --shard-count 8``) splits the 50 between them by their shards: a process
keeps at most :func:`share` requests in any one second, so that the processes together never pass the limit::

    rate = share(shards=4, shard_count=8)          # 25.0: this process runs half the shards
    limiter = GlobalLimiter(rate)                   # clock and sleep injectable (tests, benchmarks)
    bot = commands.Bot(..., http_trace=limiter.trace_config())  # every request on the bot's token takes a slot

Why a configured share rather than a limiter in PostgreSQL: a slot taken in the database would cost a round trip on
every request (more than the requests themselves at 50 per second), the processes of one bot run the shards Discord
spreads its servers over evenly, and a share is plain to check (``MJBOT_GLOBAL_RATE`` overrides it for a process
whose servers are busier than the others').

The limiter counts what Discord counts: every request sent on the bot's token (the ``Authorization: Bot ...``
header), each try of it (discord.py tries a request again after a 429 or a 5xx), at the moment it is sent. It sits in
the aiohttp session's ``on_request_start`` signal (a ``TraceConfig``, discord.py's public ``http_trace`` option),
which aiohttp awaits just before each request goes out: after discord.py's own per-route and global waits, so a
request held there does not spend a slot it is not using. Interaction responses and follow-ups (on the
interaction's token, no ``Authorization`` header), webhooks used by their token, the gateway's connection and the
CDN never wait here. A 429 from Discord (per route, or ``global: true``) is still discord.py's to wait out and retry.

A slot is counted when the request really goes, not when it was planned: a waiter the event loop wakes late (a busy
loop) takes its slot at that later time, and the requests behind it wait from there, so that no second of the
requests as sent holds more than the rate.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import math
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import aiohttp

log = logging.getLogger(__name__)

#: Discord's global limit: requests per second for the whole bot (all its processes)
GLOBAL_LIMIT = 50.0


def share(shards: int | None = None, shard_count: int | None = None, *, limit: float = GLOBAL_LIMIT) -> float:
    """This process's part of the bot's ``limit``: ``limit x shards / shard_count`` when it runs ``shards`` of
    ``shard_count`` shards (the rest run elsewhere), the whole ``limit`` when it runs them all (no shard flags).

    >>> share(), share(4, 8), share(1, 3)
    (50.0, 25.0, 16.666666666666668)
    """
    if shards is None or shard_count is None:
        return limit
    if not 0 < shards <= shard_count:
        raise ValueError(f"a process runs 1 to {shard_count} of the {shard_count} shards, not {shards}")
    return limit * shards / shard_count


class _Waiter:
    """A request waiting for its slot: woken when it is granted one, or when it comes first in the queue."""

    __slots__ = ("granted", "woken")

    def __init__(self) -> None:
        self.granted = False
        self.woken = asyncio.Event()


class GlobalLimiter:
    """At most ``rate`` counted requests in any window of one second (with ``rate`` below 1: one request per
    ``1 / rate`` seconds), in the order they asked. ``rate = None``: no limit (tests that are not about it).

    The times the last ``rate`` requests went out are kept; a request goes when the one ``rate`` places before it is
    a second old. Requests that must wait queue up; the first of them sleeps (on the injected ``sleep``) until a
    slot is free, then takes it and gives every free slot to those behind it in order, in the same turn of the
    event loop; the next one left becomes the first. A waiter cancelled before its turn takes no slot."""

    def __init__(self, rate: float | None, *, clock: Callable[[], float] | None = None,
                 sleep: Callable[[float], Awaitable[Any]] | None = None) -> None:
        self.clock: Callable[[], float] = clock or (lambda: asyncio.get_running_loop().time())
        self.sleep: Callable[[float], Awaitable[Any]] = sleep or asyncio.sleep
        self._sent: collections.deque[float] = collections.deque()
        self._queue: collections.deque[_Waiter] = collections.deque()
        self.rate = rate
        #: counted requests so far, and how many of them waited for a slot
        self.counted = 0
        self.delayed = 0

    @property
    def rate(self) -> float | None:
        return self._rate

    @rate.setter
    def rate(self, rate: float | None) -> None:
        if rate is not None and not rate > 0:
            raise ValueError(f"a rate is above 0 requests per second, not {rate}")
        self._rate = rate
        if rate is None or math.isinf(rate):
            self._per, self._window = 0, 0.0
        elif rate >= 1:
            self._per, self._window = math.floor(rate), 1.0
        else:
            self._per, self._window = 1, 1.0 / rate
        self._sent = collections.deque(self._sent, maxlen=self._per or None)

    def _wait(self) -> float:
        """How long the next request must still wait (0 or less: it may go now)."""
        sent = self._sent
        return -1.0 if len(sent) < self._per else sent[0] + self._window - self.clock()

    async def acquire(self) -> None:
        """Wait for a slot, and take it."""
        self.counted += 1
        if not self._per:
            return
        if not self._queue and self._wait() <= 0:
            self._sent.append(self.clock())
            return
        me = _Waiter()
        self._queue.append(me)
        self.delayed += 1
        try:
            while not me.granted:
                if self._queue[0] is me:
                    wait = self._wait()
                    if wait > 0:
                        await self.sleep(wait)
                        continue
                    self._grant()  # this one first, then those behind it while slots are free
                else:
                    await me.woken.wait()
                    me.woken.clear()
        except asyncio.CancelledError:
            if not me.granted:
                first = self._queue[0] is me
                self._queue.remove(me)
                if first and self._queue:
                    self._queue[0].woken.set()
            raise

    def _grant(self) -> None:
        """Give the free slots to the waiters in order (the time each goes: now), and wake the new first one."""
        queue = self._queue
        while queue and self._wait() <= 0:
            w = queue.popleft()
            w.granted = True
            self._sent.append(self.clock())
            w.woken.set()
        if queue:
            queue[0].woken.set()

    def trace_config(self) -> aiohttp.TraceConfig:
        """An aiohttp ``TraceConfig`` for discord.py's ``http_trace`` option: every request on the bot's token takes
        a slot just before it is sent."""
        trace = aiohttp.TraceConfig()

        async def on_request_start(_session: Any, _ctx: Any, params: aiohttp.TraceRequestStartParams) -> None:
            if counted(params.headers, params.url.path):
                await self.acquire()

        trace.on_request_start.append(on_request_start)
        return trace


def counted(headers: Mapping[str, str], path: str = "") -> bool:
    """Whether a request counts against the bot's global limit: it is sent on the bot's token and is not an
    interaction endpoint. Interaction responses, follow-ups and webhooks used by their token carry no
    ``Authorization`` header.

    >>> counted({"Authorization": "Bot abc"}, "/api/v10/channels/1/messages"), counted({"User-Agent": "x"})
    (True, False)
    >>> counted({"Authorization": "Bot abc"}, "/api/v10/interactions/1/tok/callback")
    False
    """
    return str(headers.get("Authorization", "")).startswith("Bot ") and "/interactions/" not in path

"""Discord's global limit, shared by all the bot's processes: each keeps its own requests under its share.

Discord allows a bot 50 requests per second in all (its *global* limit), whichever process or shard sends them;
interaction responses and follow-ups (requests on an interaction's token) are not counted. A bot run as several
processes (``mjbot run --shard-ids 0-3 --shard-count 8``) splits the 50 between them by their shards: a process
keeps at most :func:`share` requests in any one second, so that the processes together never pass the limit::

    rate = share(shards=4, shard_count=8)          # 25.0: this process runs half the shards
    limiter = GlobalLimiter(rate)                   # clock and sleep injectable (tests, benchmarks)
    limiter.install(bot.http)                       # every request of discord.py's HTTPClient takes a slot first

Why a configured share rather than a limiter in PostgreSQL: a slot taken in the database would cost a round trip on
every request (more than the requests themselves at 50 per second), the processes of one bot run the shards Discord
spreads its servers over evenly, and a share is plain to check (``MJBOT_GLOBAL_RATE`` overrides it for a process
whose servers are busier than the others').

The limiter counts what discord.py's ``HTTPClient.request`` sends: everything on the bot's token. Interaction
responses and follow-ups go through discord.py's webhook adapter, on the interaction's token, and never wait here
(nor would a route carrying a webhook or interaction token). A request takes its slot before discord.py's own
per-route wait; a 429 from Discord (per route, or ``global: true``) is still discord.py's to wait out and retry.
"""

from __future__ import annotations

import asyncio
import collections
import functools
import logging
import math
from collections.abc import Awaitable, Callable
from typing import Any

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


class GlobalLimiter:
    """At most ``rate`` counted requests in any window of one second (with ``rate`` below 1: one request per
    ``1 / rate`` seconds), in the order they asked. ``rate = None``: no limit (tests that are not about it).

    Each request reserves the earliest time that keeps every window within the rate (at least one second after the
    request ``rate`` places before it) and sleeps until then: no lock, a waiter parked on the injected ``sleep``.
    A cancelled waiter's slot stays taken (a little slower, never over)."""

    def __init__(self, rate: float | None, *, clock: Callable[[], float] | None = None,
                 sleep: Callable[[float], Awaitable[Any]] | None = None) -> None:
        self.clock: Callable[[], float] = clock or (lambda: asyncio.get_running_loop().time())
        self.sleep: Callable[[float], Awaitable[Any]] = sleep or asyncio.sleep
        self._slots: collections.deque[float] = collections.deque()
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
        self._slots = collections.deque(self._slots, maxlen=self._per or None)

    def reserve(self) -> float:
        """Take the next slot: how long to wait for it (0: now)."""
        self.counted += 1
        if not self._per:
            return 0.0
        now = self.clock()
        slots = self._slots
        at = now if len(slots) < self._per else max(now, slots[0] + self._window)
        slots.append(at)  # the deque keeps the last ``per`` slots: slots[0] is the one ``per`` places back
        return at - now

    async def acquire(self) -> None:
        """Wait for a slot."""
        wait = self.reserve()
        if wait > 0:
            self.delayed += 1
            await self.sleep(wait)

    def install(self, http: Any) -> None:
        """Make every request of discord.py's ``HTTPClient`` (``http.request``: the bot's token) take a slot first,
        except a route on a webhook's or an interaction's token."""
        original = http.request

        @functools.wraps(original)
        async def request(route: Any, **kwargs: Any) -> Any:
            if not exempt(route):
                await self.acquire()
            return await original(route, **kwargs)

        http.request = request
        http.global_limiter = self


def exempt(route: Any) -> bool:
    """Whether a discord.py ``Route`` is authorised by a token of its own (a webhook's or an interaction's): not
    counted against the bot's global limit."""
    return getattr(route, "webhook_token", None) is not None or str(getattr(route, "path", "")).startswith(
        ("/interactions/", "/webhooks/{webhook_id}/{webhook_token}"))

"""The store's one front door to its database: transactions under a lock, writes that complete once started.

:class:`Database` is what every topic of the store writes through (the :class:`~bot.store.Store` methods, and the
functions of :mod:`bot.store.group`, :mod:`bot.store.records`, :mod:`bot.store.history` ...)::

    async with store.transaction() as conn:                  # a write: BEGIN ... COMMIT, ROLLBACK on any error
        n = await conn.execute("UPDATE ... WHERE id = ?", (x,))
    async with store.transaction(write=False) as conn:       # a read: one consistent snapshot
        rows = await conn.all("SELECT ...", params)

    @completes                                               # on a method, or a function taking the store first
    async def set_something(store, ...): ...

One connection per store; every transaction holds the store's asyncio lock, so concurrent coroutines (many tables
writing at once) never see or interleave each other's half-done work. The connection comes from a backend
(:mod:`bot.store.backend`: SQLite or PostgreSQL), which translates the ``?`` placeholders for its database.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from .backend import Backend, Connection
from .errors import StoreError

#: the name of every write task :func:`completes` starts begins with this (its error goes to its caller)
WRITE_TASK_PREFIX = "mjbot.store.write:"

T = TypeVar("T")
P = ParamSpec("P")
D = TypeVar("D", bound="Database")


def completes(method: Callable[Concatenate[D, P], Awaitable[T]]) -> Callable[Concatenate[D, P], Coroutine[Any, Any, T]]:
    """A write that, once started, completes even if the caller is cancelled (a shutdown, a timed-out
    interaction): the caller gets its CancelledError, the transaction still commits or rolls back as a whole, and
    ``close()`` waits for it. Decorates a method of the store or a function whose first argument is the store."""

    @functools.wraps(method)
    async def wrapper(store: D, *args: P.args, **kwargs: P.kwargs) -> T:
        task = asyncio.ensure_future(method(store, *args, **kwargs))
        task.set_name(f"{WRITE_TASK_PREFIX}{method.__qualname__}")
        store.pending.add(task)

        def done(t: asyncio.Future[T]) -> None:
            store.pending.discard(t)
            if not t.cancelled():
                t.exception()  # retrieved: never "exception was never retrieved"

        task.add_done_callback(done)
        return await asyncio.shield(task)

    return cast(Callable[Concatenate[D, P], Coroutine[Any, Any, T]], wrapper)


class Database:
    """An open backend with the store's lock and its pending writes."""

    def __init__(self, backend: Backend) -> None:
        self.backend: Backend | None = backend
        self.path: Path | str = backend.path
        self.schema_version = backend.schema_version
        self.dialect = backend.name
        self._lock = asyncio.Lock()
        self.pending: set[asyncio.Future[Any]] = set()

    async def close(self) -> None:
        """Finish pending writes and close. Safe to call twice."""
        while self.pending:
            await asyncio.gather(*list(self.pending), return_exceptions=True)
        backend, self.backend = self.backend, None
        if backend is None:
            return
        async with self._lock:
            await backend.close()

    async def kill(self) -> None:
        """As a killed process: the connection is dropped where it is, nothing is waited for (tests)."""
        backend, self.backend = self.backend, None
        if backend is not None:
            await backend.kill()

    @property
    def closed(self) -> bool:
        return self.backend is None

    @asynccontextmanager
    async def transaction(self, write: bool = True, *, durable: bool = True) -> AsyncIterator[Connection]:
        """One transaction under the store's lock. ``durable=False`` commits without waiting for the disk: still
        safe against a killed process, and made durable by the next durable commit (see ``docs/store.md``)."""
        async with self._lock:
            backend = self.backend
            if backend is None:
                raise StoreError("closed")
            conn = backend.conn
            try:
                await conn.begin(write, durable)
                yield conn
            except BaseException:
                # the connection runs requests in order, so this comes after whatever was sent (even a BEGIN whose
                # await was cancelled); with nothing open it does nothing
                await conn.rollback()
                raise
            else:
                await conn.commit()

"""The store's one front door to its database: transactions under a lock, writes that complete once started.

:class:`Database` is what every topic of the store writes through (the :class:`~bot.store.Store` methods, and the
functions of :mod:`bot.store.group`, :mod:`bot.store.records`, :mod:`bot.store.history` ...)::

    async with store.transaction() as conn:                  # a write: BEGIN ... COMMIT, ROLLBACK on any error
        n = await conn.execute("UPDATE ... WHERE id = ?", (x,))
    async with store.transaction(write=False) as conn:       # a read: one consistent snapshot
        rows = await conn.all("SELECT ...", params)

    @completes                                               # on a method, or a function taking the store first
    async def set_something(store, ...): ...

The connection comes from a backend (:mod:`bot.store.backend`: SQLite or PostgreSQL), which translates the ``?``
placeholders for its database. SQLite has one connection and one writer: every transaction holds the store's asyncio
lock, in the order they asked. PostgreSQL lends each transaction a connection of its pool, so many tables' writes
run at once; its row locks and the keys (an action's ``(match, seq)``, a ledger row's ``(hand, seat)``) keep them
apart, and a transaction never sees another's half-done work either way.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager, nullcontext
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from .backend import Backend, Connection
from .errors import StoreError
from .fence import Fence

#: the name of every write task :func:`completes` starts begins with this (its error goes to its caller)
WRITE_TASK_PREFIX = "mjbot.store.write:"

#: how many times a write that collided with others (PostgreSQL) is tried in all
ATTEMPTS = 12

T = TypeVar("T")
P = ParamSpec("P")
D = TypeVar("D", bound="Database")


def completes(method: Callable[Concatenate[D, P], Awaitable[T]]) -> Callable[Concatenate[D, P], Coroutine[Any, Any, T]]:
    """A write that, once started, completes even if the caller is cancelled (a shutdown, a timed-out
    interaction): the caller gets its CancelledError, the transaction still commits or rolls back as a whole, and
    ``close()`` waits for it. Decorates a method of the store or a function whose first argument is the store.

    On PostgreSQL, whose writes run at once at ``SERIALIZABLE``, a call that collided with another transaction
    (the server's serialisation failure or deadlock: nothing of it was written) runs again from the start, so every
    call behaves as if the calls had run one after the other, as they do on SQLite. Such a call must therefore be one
    transaction (every write of the store is)."""

    @functools.wraps(method)
    async def wrapper(store: D, *args: P.args, **kwargs: P.kwargs) -> T:
        task = asyncio.ensure_future(store.again(method, store, *args, **kwargs))
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
        #: SQLite: the lock each transaction holds; PostgreSQL: none (the pool lends a connection per transaction)
        self._serial = backend.concurrency == 1
        self.pending: set[asyncio.Future[Any]] = set()
        #: several processes over PostgreSQL: the leases every write of a table checks (bot.store.fence); None
        #: with one process
        self.fence: Fence | None = None

    async def close(self) -> None:
        """Finish pending writes and close. Safe to call twice."""
        while self.pending:
            await asyncio.gather(*list(self.pending), return_exceptions=True)
        backend, self.backend = self.backend, None
        if backend is None:
            return
        async with self._lock:  # a pool's close waits for its lent connections too
            await backend.close()

    async def kill(self) -> None:
        """As a killed process: the connection is dropped where it is, nothing is waited for (tests)."""
        backend, self.backend = self.backend, None
        if backend is not None:
            await backend.kill()

    async def again(self, method: Callable[..., Awaitable[T]], *args: Any, **kwargs: Any) -> T:
        """``await method(*args, **kwargs)``, run again after a collision with another transaction (the backend's
        ``conflicts``), a few milliseconds later each time, at most :data:`ATTEMPTS` times in all."""
        conflicts = () if self.backend is None else self.backend.conflicts
        attempt = 1
        while True:
            try:
                return await method(*args, **kwargs)
            except conflicts:
                if attempt >= ATTEMPTS:
                    raise  # "busy": the caller says try again (bot.store.failures)
            await asyncio.sleep(random.uniform(0, min(0.002 * 2 ** attempt, 0.2)))
            attempt += 1

    @property
    def closed(self) -> bool:
        return self.backend is None

    @asynccontextmanager
    async def transaction(self, write: bool = True, *, durable: bool = True, keyed: bool = False,
                          single: bool = False) -> AsyncIterator[Connection]:
        """One transaction (SQLite: under the store's lock). ``durable=False`` commits without waiting for the disk:
        still safe against a killed process, and made durable by the next durable commit (see ``docs/store.md``).

        ``keyed=True`` says that what the write checks before it writes is guarded by the rows it changes and by
        keys (an action's ``(match, seq)``, a ledger row's ``(hand, seat)``), so that it only needs other writes kept
        off its rows: PostgreSQL runs it at ``REPEATABLE READ`` (a row changed by another transaction since it began
        fails it, and ``completes`` runs it again) instead of ``SERIALIZABLE``, with no false collisions between
        tables. For the writes of every move; SQLite (one writer at a time) ignores it.

        ``single=True`` promises that the body runs one statement: SQLite runs it as its own transaction (autocommit:
        the statement takes the write lock as it starts and commits as it ends), one round trip to the database's
        thread instead of three (BEGIN, the statement, COMMIT); PostgreSQL ignores it. The hottest write, an action's
        (:meth:`~bot.store.games.GameTopic.record_action`), is one statement in the usual case."""
        serial: AbstractAsyncContextManager[Any] = self._lock if self._serial else nullcontext()
        async with serial:
            backend = self.backend
            if backend is None:
                raise StoreError("closed")
            async with backend.lend() as conn:
                try:
                    await conn.begin(write, durable, keyed, single)
                    yield conn
                except BaseException:
                    # the connection runs requests in order, so this comes after whatever was sent (even a BEGIN
                    # whose await was cancelled); with nothing open it does nothing
                    await conn.rollback()
                    raise
                else:
                    await conn.commit()

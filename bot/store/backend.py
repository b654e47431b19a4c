"""The seam between the store and a database: a backend (SQLite or PostgreSQL) and the connection it lends.

Everything above this seam (:mod:`bot.store.database`, the topic modules) speaks one SQL with ``?`` placeholders
through :class:`Connection`; a backend translates it for its database (PostgreSQL's ``$1, $2 ...``), runs the
transactions the store asks for, and knows how to open, migrate and probe its database.

    backend = await open_backend("mjbot.sqlite3")                  # bot.store.store; or "postgresql://..."
    async with backend.lend() as conn:                              # a connection for one transaction
        await conn.begin(write=True, durable=True)
        await conn.execute("UPDATE ... WHERE id = ?", (1,))         # -> rows changed
        new_id = await conn.insert("INSERT INTO ... VALUES (?)", (x,))   # -> the new row's ``id``
        await conn.commit()                                         # or rollback()

SQLite has one connection (``concurrency`` 1): the store runs one transaction at a time on it, under its lock.
PostgreSQL lends the connections of a pool (``concurrency`` = the pool's size): the store's transactions run at
once, up to that many, and the server keeps them apart.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Protocol

#: A result row: indexable and iterable (a tuple from SQLite, an ``asyncpg.Record`` from PostgreSQL); typed ``Any``
#: because its columns are whatever the query selected.
Row = Any


class Connection(Protocol):
    """What the store asks of a database connection. SQL uses ``?`` placeholders; ids come back from ``insert``."""

    async def begin(self, write: bool, durable: bool, keyed: bool = False, single: bool = False) -> None:
        """Start a transaction: ``write`` takes the write lock at once; ``durable=False`` lets the commit return
        before the disk has it (safe against a killed process, not against a power cut); ``keyed``: a write whose
        checks its rows and keys guard (PostgreSQL: ``REPEATABLE READ`` rather than ``SERIALIZABLE``); ``single``:
        a write of one statement, which a backend may run as its own transaction (SQLite: no BEGIN, and ``commit``
        then has nothing to do)."""

    async def commit(self) -> None: ...

    async def rollback(self) -> None:
        """Roll back whatever is open; harmless when nothing is."""

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one statement; the number of rows it changed."""

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None: ...

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        """Run one ``INSERT`` into a table with an ``id`` key; the new row's id."""

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row:
        """The first row of a query, or None (``Row`` is ``Any``)."""

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]: ...


class Backend(Protocol):
    """An open database: the connections it lends, what it is called in messages, and its schema version."""

    #: ``sqlite`` or ``postgresql``
    name: str
    #: how many transactions may run at once: 1 (SQLite: the store serialises them under its lock) or the size of
    #: PostgreSQL's pool
    concurrency: int
    #: what a write transaction raises when it collided with another one running at once (PostgreSQL's
    #: serialisation failure and deadlock; none for SQLite): nothing was written, and the whole call runs again
    conflicts: tuple[type[BaseException], ...]
    #: applied to every connection lent (a test's faults: ``tests/harness/faults.py``); None in the bot
    wrap: Callable[[Connection], Connection] | None
    #: what the operator configured: the SQLite file, or the PostgreSQL URL (password hidden)
    path: Path | str
    schema_version: int

    def lend(self) -> AbstractAsyncContextManager[Connection]:
        """A connection for one transaction (``async with``); back to the backend at the end."""

    async def close(self) -> None:
        """Close the connections (the store has waited for its writes)."""

    async def kill(self) -> None:
        """Drop the connections as a killed process would: an open transaction is rolled back by the database."""

    async def probe_write(self) -> None:
        """Create a table and insert a row in a transaction that is rolled back (``mjbot check``)."""


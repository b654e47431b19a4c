"""The seam between the store and a database: a backend (SQLite or PostgreSQL) and the connection it lends.

Everything above this seam (:mod:`bot.store.database`, the topic modules) speaks one SQL with ``?`` placeholders
through :class:`Connection`; a backend translates it for its database (PostgreSQL's ``$1, $2 ...``), runs the
transactions the store asks for, and knows how to open, migrate and probe its database.

    backend = await open_backend("mjbot.sqlite3")                  # bot.store.store; or "postgresql://..."
    await backend.conn.begin(write=True, durable=True)
    await backend.conn.execute("UPDATE ... WHERE id = ?", (1,))     # -> rows changed
    new_id = await backend.conn.insert("INSERT INTO ... VALUES (?)", (x,))   # -> the new row's ``id``
    await backend.conn.commit()                                     # or rollback()

The store runs one transaction at a time on a backend (under its lock): a backend holds one connection.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

#: A result row: indexable and iterable (a tuple from SQLite, an ``asyncpg.Record`` from PostgreSQL); typed ``Any``
#: because its columns are whatever the query selected.
Row = Any


class Connection(Protocol):
    """What the store asks of a database connection. SQL uses ``?`` placeholders; ids come back from ``insert``."""

    async def begin(self, write: bool, durable: bool) -> None:
        """Start a transaction: ``write`` takes the write lock at once; ``durable=False`` lets the commit return
        before the disk has it (safe against a killed process, not against a power cut)."""

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
    """An open database: its connection, what it is called in messages, and its schema version."""

    #: ``sqlite`` or ``postgresql``
    name: str
    #: the connection the store's transactions run on (a test may wrap it: ``tests/harness/faults.py``)
    conn: Connection
    #: what the operator configured: the SQLite file, or the PostgreSQL URL (password hidden)
    path: Path | str
    schema_version: int

    async def close(self) -> None:
        """Close the connection (the store has waited for its writes)."""

    async def kill(self) -> None:
        """Drop the connection as a killed process would: an open transaction is rolled back by the database."""

    async def probe_write(self) -> None:
        """Create a table and insert a row in a transaction that is rolled back (``mjbot check``)."""


"""The PostgreSQL backend (asyncpg): ``MJBOT_DB=postgresql://user:password@host:5432/dbname``.

The same store over PostgreSQL: the queries of the topic modules unchanged (``?`` placeholders become ``$1, $2
...`` here), the migrations of ``bot/migrations/postgresql`` (the SQLite ones with ``BIGINT`` ids and times and
identity columns), and the same guarantees: one transaction per store call, primary keys that refuse a second copy
of an action or a ledger row, settlements in one transaction.

- Transactions run on a pool of connections (``asyncpg.create_pool``; at most ``MJBOT_DB_POOL`` of them, default
  :data:`DEFAULT_POOL`, opened as needed): many tables' writes run at once, each in its own transaction (a table's
  own writes stay in order: its recorder awaits each, even one whose caller was cancelled). A connection the server
  dropped fails the call that was using it (a database failure, "try again"); the pool replaces it at the next
  transaction.
- A write is ``BEGIN ISOLATION LEVEL SERIALIZABLE``: the outcome is always one the store's calls would have had one
  after the other (as on SQLite, where they are). The writes of every move (``transaction(keyed=True)``: an action,
  the tables' message ids), whose checks the rows they change and the keys guard, run at ``REPEATABLE READ``: a row
  another transaction changed since they began fails them, without the false collisions of ``SERIALIZABLE``'s
  predicate locks between tables (the recent actions of every table share index pages). A write that collided with
  another (a serialisation failure, a deadlock) is rolled back whole and the store runs the call again
  (:func:`bot.store.database.completes`). One that may wait for the disk (``durable=False``) also sets
  ``synchronous_commit = off`` for its own transaction: PostgreSQL's equivalent of SQLite's ``synchronous=NORMAL``
  (a crash of the server may lose the last such commits, never corrupts, and a later durable commit flushes them).
- A read is ``BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY``: one snapshot, as SQLite's read transaction.
- The schema version is the one row of ``schema_version``; migrations run under an advisory lock, each in its own
  transaction with its version, so two processes starting at once never migrate twice.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg

from .backend import Connection, Row
from .errors import StoreError
from .migrate import MIGRATIONS_DIR, Migration, load_migrations
from .paths import shown

#: where the PostgreSQL migrations are: the same numbers and names as SQLite's, PostgreSQL's types
PG_MIGRATIONS_DIR = MIGRATIONS_DIR.joinpath("postgresql")
#: how long opening waits for the server (seconds)
CONNECT_TIMEOUT = 10
#: the most connections one process keeps to the server (``MJBOT_DB_POOL``): several processes of one bot each have
#: their own pool, so processes x pool must stay under the server's ``max_connections`` (100 by default)
DEFAULT_POOL = 10
#: the advisory lock key migrations hold (any constant: "mjbot" in ASCII)
_MIGRATION_LOCK = 0x6D6A626F74

_QUOTED_OR_MARK = re.compile(r"'(?:[^']|'')*'|\?")


@functools.lru_cache(maxsize=2048)
def numbered(sql: str) -> str:
    """``?`` placeholders as PostgreSQL's ``$1, $2 ...`` (a ``?`` inside a quoted string is left alone).

    >>> numbered("SELECT ? WHERE a = '?' AND b IN (?, ?)")
    "SELECT $1 WHERE a = '?' AND b IN ($2, $3)"
    """
    n = 0

    def mark(m: re.Match[str]) -> str:
        nonlocal n
        if m.group(0) != "?":
            return m.group(0)
        n += 1
        return f"${n}"

    return _QUOTED_OR_MARK.sub(mark, sql)


def _rowcount(status: str) -> int:
    """The rows an ``UPDATE 3`` / ``INSERT 0 1`` / ``DELETE 0`` changed."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


_SERVER_SETTINGS = {"application_name": "mjbot"}


async def _connect(url: str) -> asyncpg.Connection:
    return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT, server_settings=_SERVER_SETTINGS)


class PostgresConnection:
    """:class:`bot.store.backend.Connection` over one asyncpg connection, lent by the pool for one transaction.

    A connection the server dropped (a restart, a fail-over, an idle timeout) fails the transaction it was in (the
    caller is told, nothing half-written); the pool connects again for a later transaction."""

    def __init__(self, raw: asyncpg.Connection) -> None:
        self.raw = raw

    async def begin(self, write: bool, durable: bool, keyed: bool = False, single: bool = False) -> None:
        if not write:
            await self.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            return
        level = "REPEATABLE READ" if keyed else "SERIALIZABLE"
        if durable:
            await self.raw.execute(f"BEGIN ISOLATION LEVEL {level}")
        else:
            await self.raw.execute(f"BEGIN ISOLATION LEVEL {level}; SET LOCAL synchronous_commit = off")

    async def commit(self) -> None:
        await self.raw.execute("COMMIT")

    async def rollback(self) -> None:
        if self.raw.is_closed():
            return
        with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
            await self.raw.execute("ROLLBACK")

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _rowcount(await self.raw.execute(numbered(sql), *params))

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self.raw.executemany(numbered(sql), rows)

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        return int(await self.raw.fetchval(numbered(sql + " RETURNING id"), *params))

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row:
        row: Row = await self.raw.fetchrow(numbered(sql), *params)
        return row

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self.raw.fetch(numbered(sql), *params))


def _cannot(url: str, exc: BaseException) -> StoreError:
    text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
    if isinstance(exc, OSError | TimeoutError):  # nothing answered at that address
        text += " (no PostgreSQL server answers there: is it running, and are the host and port right?)"
    return StoreError("db_pg_unavailable", path=shown(url), error=text)


async def _schema_version(raw: asyncpg.Connection) -> int:
    await raw.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    found = await raw.fetchval("SELECT MAX(version) FROM schema_version")
    return int(found or 0)


async def migrate_pg(raw: asyncpg.Connection, migrations: list[Migration], url: str, upto: int | None = None) -> int:
    """Apply every migration above the database's version (up to ``upto``), each in one transaction with its
    version; a database newer than the code is refused. Returns the version."""
    latest = migrations[-1].version if migrations else 0
    target = latest if upto is None else upto
    await raw.execute("SELECT pg_advisory_lock($1)", _MIGRATION_LOCK)
    try:
        current = await _schema_version(raw)
        if current > latest:
            raise StoreError("schema_too_new", path=shown(url), found=current, known=latest)
        for mig in migrations:
            if mig.version <= current or mig.version > target:
                continue
            try:
                async with raw.transaction():
                    await raw.execute(mig.sql)
                    await raw.execute("DELETE FROM schema_version")
                    await raw.execute("INSERT INTO schema_version (version) VALUES ($1)", mig.version)
            except asyncpg.PostgresError as exc:
                raise StoreError("migration_failed", name=mig.name, error=str(exc)) from exc
            current = mig.version
        return current
    finally:
        if not raw.is_closed():
            await raw.execute("SELECT pg_advisory_unlock($1)", _MIGRATION_LOCK)


class PostgresBackend:
    """A PostgreSQL database, migrated and probed, and the pool of connections the store's transactions run on."""

    name = "postgresql"
    conflicts: tuple[type[BaseException], ...] = (asyncpg.exceptions.SerializationError,
                                                  asyncpg.exceptions.DeadlockDetectedError)

    def __init__(self, pool: asyncpg.Pool, url: str, schema_version: int) -> None:
        self.pool = pool
        self.url = url
        self.path: Path | str = shown(url)
        self.schema_version = schema_version
        self.concurrency = pool.get_max_size()
        self.wrap: Callable[[Connection], Connection] | None = None

    @classmethod
    async def open(cls, url: str, *, migrations_dir: str | os.PathLike[str] | None = None,
                   pool: int | None = None) -> PostgresBackend:
        """Connect, bring the schema up to date, check a write commits (a read-only server or a missing privilege
        is found here, at start-up), then open the pool of at most ``pool`` connections (default
        :data:`DEFAULT_POOL`). Every failure is a :class:`StoreError` naming the database (its password hidden)
        and the problem."""
        migrations = load_migrations(Path(migrations_dir) if migrations_dir else PG_MIGRATIONS_DIR)
        size = DEFAULT_POOL if pool is None else pool
        if size < 1:
            raise ValueError(f"a pool needs at least one connection, not {size}")
        try:
            raw = await _connect(url)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError, ValueError) as e:
            raise _cannot(url, e) from None
        try:
            version = await migrate_pg(raw, migrations, url)
            async with raw.transaction():
                await raw.execute("UPDATE schema_version SET version = version")
        except StoreError:
            await raw.close()
            raise
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as e:
            raw.terminate()
            raise _cannot(url, e) from None
        except BaseException:
            raw.terminate()
            raise
        await raw.close()
        try:
            conns = await asyncpg.create_pool(url, min_size=1, max_size=size, timeout=CONNECT_TIMEOUT,
                                              server_settings=_SERVER_SETTINGS)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as e:
            raise _cannot(url, e) from None
        return cls(conns, url, version)

    @asynccontextmanager
    async def lend(self) -> AsyncIterator[Connection]:
        """A connection of the pool for one transaction (waiting while all are lent); back to the pool after (a
        transaction left open is rolled back there; a dropped connection is replaced)."""
        async with self.pool.acquire() as raw:
            conn: Connection = PostgresConnection(raw)
            yield conn if self.wrap is None else self.wrap(conn)

    async def close(self) -> None:
        await self.pool.close()

    async def kill(self) -> None:
        self.pool.terminate()  # every connection dropped: the server rolls back whatever was open

    async def probe_write(self) -> None:
        async with self.pool.acquire() as raw:
            tx = raw.transaction()
            await tx.start()
            try:
                await raw.execute("CREATE TABLE mjbot_check_probe (x INTEGER)")
                await raw.execute("INSERT INTO mjbot_check_probe VALUES (1)")
            finally:
                await tx.rollback()

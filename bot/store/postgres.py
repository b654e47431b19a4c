"""The PostgreSQL backend (asyncpg): ``MJBOT_DB=postgresql://user:password@host:5432/dbname``.

The same store over PostgreSQL: the queries of the topic modules unchanged (``?`` placeholders become ``$1, $2
...`` here), the migrations of ``bot/migrations/postgresql`` (the SQLite ones with ``BIGINT`` ids and times and
identity columns), and the same guarantees: one transaction per store call under the store's lock, primary keys
that refuse a second copy of an action or a ledger row, settlements in one transaction.

- A write is ``BEGIN`` (read committed); one that may wait for the disk (``durable=False``) also sets
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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import asyncpg

from .backend import Row
from .errors import StoreError
from .migrate import MIGRATIONS_DIR, Migration, load_migrations
from .paths import shown

#: where the PostgreSQL migrations are: the same numbers and names as SQLite's, PostgreSQL's types
PG_MIGRATIONS_DIR = MIGRATIONS_DIR.joinpath("postgresql")
#: how long opening waits for the server (seconds)
CONNECT_TIMEOUT = 10
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


async def _connect(url: str) -> asyncpg.Connection:
    return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT, server_settings={"application_name": "mjbot"})


class PostgresConnection:
    """:class:`bot.store.backend.Connection` over one asyncpg connection.

    A connection the server dropped (a restart, a fail-over, an idle timeout) fails the transaction it was in (the
    caller is told, nothing half-written); the next transaction connects again."""

    def __init__(self, raw: asyncpg.Connection, url: str) -> None:
        self.raw = raw
        self.url = url

    async def begin(self, write: bool, durable: bool) -> None:
        if self.raw.is_closed():
            self.raw = await _connect(self.url)
        if not write:
            await self.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        elif durable:
            await self.raw.execute("BEGIN")
        else:
            await self.raw.execute("BEGIN; SET LOCAL synchronous_commit = off")

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
    """A PostgreSQL database, connected, migrated and probed."""

    name = "postgresql"

    def __init__(self, raw: asyncpg.Connection, url: str, schema_version: int) -> None:
        self.url = url
        self.conn: Any = PostgresConnection(raw, url)
        self.path: Path | str = shown(url)
        self.schema_version = schema_version

    @classmethod
    async def open(cls, url: str, *, migrations_dir: str | os.PathLike[str] | None = None) -> PostgresBackend:
        """Connect, bring the schema up to date and check a write commits (a read-only server or a missing
        privilege is found here, at start-up). Every failure is a :class:`StoreError` naming the database (its
        password hidden) and the problem."""
        migrations = load_migrations(Path(migrations_dir) if migrations_dir else PG_MIGRATIONS_DIR)
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
        return cls(raw, url, version)

    @property
    def raw(self) -> asyncpg.Connection:
        """The connection in use (a new one after the server dropped the last)."""
        return self._pg.raw

    @property
    def _pg(self) -> PostgresConnection:
        conn = self.conn
        while not isinstance(conn, PostgresConnection):  # a test's wrapper (tests/harness/faults.py)
            conn = conn._conn
        return conn

    async def close(self) -> None:
        await self.raw.close()

    async def kill(self) -> None:
        self.raw.terminate()  # the server rolls back whatever was open

    async def probe_write(self) -> None:
        raw = self.raw
        tx = raw.transaction()
        await tx.start()
        try:
            await raw.execute("CREATE TABLE mjbot_check_probe (x INTEGER)")
            await raw.execute("INSERT INTO mjbot_check_probe VALUES (1)")
        finally:
            await tx.rollback()

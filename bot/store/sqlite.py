"""The SQLite backend (aiosqlite, WAL, foreign keys): opening a file, migrating it, probing it, and its connection.

Opening says in one line what is wrong with a database file (not a database, damaged, locked, read-only, a folder
that cannot be made ...). The SQLite-only statements (PRAGMAs, ``BEGIN IMMEDIATE``, ``PRAGMA user_version``) live in
:mod:`bot.store.dialect`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiosqlite

from . import dialect
from .backend import Connection, Row
from .errors import StoreError
from .migrate import MIGRATIONS_DIR, Migration, load_migrations, migrate


def _folder_writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def db_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """The start-up error for an SQLite failure while opening or probing ``path``."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name.startswith("SQLITE_NOTADB") or "not a database" in text:
        return StoreError("db_not_database", path=path)
    if name.startswith("SQLITE_CORRUPT") or "malformed" in text:
        return StoreError("db_corrupt", path=path, error=text)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return StoreError("db_locked", path=path, seconds=dialect.BUSY_TIMEOUT_MS // 1000)
    if name.startswith("SQLITE_READONLY") or "readonly" in text:
        if not _folder_writable(path.parent) or name in ("SQLITE_READONLY_CANTINIT", "SQLITE_READONLY_DIRECTORY"):
            return StoreError("db_folder_read_only", path=path)
        return StoreError("db_read_only", path=path)
    if name.startswith("SQLITE_CANTOPEN") and not _folder_writable(path.parent):
        return StoreError("db_folder_read_only", path=path)
    return StoreError("db_cannot_open", path=path, error=text)


#: SQLite result codes that describe the file or its surroundings rather than the SQL that was run.
_ENVIRONMENTAL = ("SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_READONLY",
                  "SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_PERM")


def _is_environmental(exc: sqlite3.Error) -> bool:
    return (getattr(exc, "sqlite_errorname", "") or "").startswith(_ENVIRONMENTAL)


async def _connect_checked(path: Path) -> aiosqlite.Connection:
    """A connection to ``path`` (its folder created if missing), or the :class:`StoreError` that says why not."""
    try:
        if path.is_dir():
            raise StoreError("db_is_directory", path=path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError("db_no_folder", path=path, error=e.strerror or e) from None
        if path.exists() and not os.access(path, os.R_OK):
            raise StoreError("db_cannot_open", path=path, error="permission denied")
    except OSError as e:  # e.g. a folder on the way that we may not enter
        raise StoreError("db_cannot_open", path=path, error=e.strerror or e) from None
    try:
        return await dialect.connect(str(path))
    except sqlite3.Error as e:
        raise db_error(path, e) from None


async def _migrate_checked(conn: aiosqlite.Connection, path: Path, migrations: list[Migration]) -> int:
    try:
        return await migrate(conn, migrations)
    except sqlite3.Error as e:
        raise db_error(path, e) from None
    except StoreError as e:
        if e.code == "schema_too_new":
            raise StoreError("schema_too_new", path=path, **{k: v for k, v in e.params.items() if k != "path"}) from None
        cause = e.__cause__
        if isinstance(cause, sqlite3.Error) and _is_environmental(cause):  # the file, not the migration's SQL
            raise db_error(path, cause) from None
        raise


async def _probe(conn: aiosqlite.Connection, path: Path, version: int) -> None:
    """Check that the whole file reads back sound and that a write commits (a read-only file or folder is found
    here, at start-up, not at the first click). The write rewrites the schema version with its own value."""
    try:
        rows = await conn.execute_fetchall("PRAGMA quick_check")
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        if problems:
            raise StoreError("db_corrupt", path=path, error=problems[0])
        await conn.execute(dialect.BEGIN_WRITE)
        try:
            await conn.execute(dialect.set_schema_version_sql(version))
            await conn.commit()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                await conn.execute("ROLLBACK")
            raise
    except sqlite3.Error as e:
        raise db_error(path, e) from None


class SqliteConnection:
    """:class:`bot.store.backend.Connection` over one aiosqlite connection.

    The connection keeps its ``synchronous`` level between transactions and switches it only when a write needs
    the other one (one round trip to the database's thread less per write, two for a run of relaxed ones such as
    a click's actions). A write of one statement (``single``) runs as its own transaction: the connection is in
    autocommit mode (:func:`dialect.connect`), so the statement takes the write lock as it starts, as ``BEGIN
    IMMEDIATE`` would, and commits as it ends; no BEGIN, no COMMIT, one round trip in all."""

    def __init__(self, raw: aiosqlite.Connection) -> None:
        self.raw = raw
        # the connection's ``synchronous`` level: False = FULL (dialect.PRAGMAS), True = NORMAL, None = not known
        self._relaxed: bool | None = False
        self._single = False  # the transaction begun is one statement in autocommit: nothing to commit

    async def begin(self, write: bool, durable: bool, keyed: bool = False, single: bool = False) -> None:
        if write and self._relaxed is not (not durable):
            self._relaxed = None  # unknown until the pragma has surely run (an await may be cancelled)
            await self.raw.execute(dialect.RELAXED if not durable else dialect.DURABLE)
            self._relaxed = not durable
        self._single = write and single
        if not self._single:
            await self.raw.execute(dialect.BEGIN_WRITE if write else dialect.BEGIN_READ)

    async def commit(self) -> None:
        if self._single:  # committed as it ran
            self._single = False
            return
        await self.raw.commit()

    async def rollback(self) -> None:
        if self._single:  # a statement in autocommit that failed was undone by itself: nothing is open
            self._single = False
            return
        with contextlib.suppress(sqlite3.Error):
            await self.raw.execute("ROLLBACK")

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        cur = await self.raw.execute(sql, params)
        return int(cur.rowcount)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        await self.raw.executemany(sql, rows)

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        cur = await self.raw.execute(sql, params)
        return int(cur.lastrowid)  # type: ignore[arg-type]  # an INSERT always sets it

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row:
        rows = await self.raw.execute_fetchall(sql, params)  # one round trip to the connection's thread
        return next(iter(rows), None)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self.raw.execute_fetchall(sql, params))


class SqliteBackend:
    """An SQLite file, open, migrated and probed: one connection, one transaction at a time (SQLite has one writer;
    the store's lock orders its transactions)."""

    name = "sqlite"
    concurrency = 1
    conflicts: tuple[type[BaseException], ...] = ()

    def __init__(self, raw: aiosqlite.Connection, path: Path, schema_version: int) -> None:
        self.raw = raw
        self.conn: Connection = SqliteConnection(raw)
        self.path: Path | str = path
        self.schema_version = schema_version
        self.wrap: Callable[[Connection], Connection] | None = None

    @asynccontextmanager
    async def lend(self) -> AsyncIterator[Connection]:
        """The one connection (the caller holds the store's lock)."""
        yield self.conn if self.wrap is None else self.wrap(self.conn)

    @classmethod
    async def open(cls, path: Path, *, migrations_dir: str | os.PathLike[str] | None = None) -> SqliteBackend:
        """Open (creating the file and its folder if needed), bring the schema up to date, and check that the
        database can really be used: readable, not damaged (``PRAGMA quick_check``), writable. Migrations are
        loaded first, so a broken migration file is reported as itself, with no connection opened at all; a
        database that cannot be used leaves no connection (no thread) behind."""
        migrations = load_migrations(Path(migrations_dir) if migrations_dir else MIGRATIONS_DIR)
        conn = await _connect_checked(path)
        try:
            version = await _migrate_checked(conn, path, migrations)
            await _probe(conn, path, version)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, path, version)

    async def close(self) -> None:
        await self.raw.close()

    async def kill(self) -> None:
        await self.raw.close()  # an open transaction is rolled back with its connection

    async def probe_write(self) -> None:
        conn = await dialect.connect(str(self.path))
        try:
            await conn.execute(dialect.BEGIN_WRITE)
            await conn.execute("CREATE TABLE mjbot_check_probe (x INTEGER)")
            await conn.execute("INSERT INTO mjbot_check_probe VALUES (1)")
        finally:
            if conn.in_transaction:
                await conn.rollback()
            await conn.close()

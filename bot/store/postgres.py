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
  transaction with its version, so two processes starting at once never migrate twice. A process waits for that
  lock at most :attr:`Limits.migration_wait`, then fails its start (``migration_lock_held``, naming the session that
  holds it).
- Every wait has a bound (:class:`Limits`, ``docs/store.md``): each connection sets the server's
  ``statement_timeout``, ``lock_timeout`` and ``idle_in_transaction_session_timeout`` and turns on TCP keep-alives,
  a reply that never comes (the network to the server gone) is given up on the client too, and waiting for a
  connection of the pool is bounded. A transaction of a process that vanished or hangs therefore ends within
  seconds with its row locks, and a call that hits a bound fails as a database failure (the table says the database
  is not answering and tries again), never hangs.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import math
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import asyncpg

from .backend import Connection, Row
from .errors import StoreError
from .failures import ConnectionDropped, NoAnswer, NoConnection
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
MIGRATION_LOCK = 0x6D6A626F74

T = TypeVar("T")

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


#: the longest a store's close waits for the connections it lent (:meth:`PostgresBackend.close`)
CLOSE_WAIT = 10.0


@dataclass(frozen=True, slots=True)
class Limits:
    """How long the store waits on PostgreSQL, in seconds (``docs/store.md``, "Time limits").

    >>> session_settings(Limits())["lock_timeout"], Limits().reply, Limits(statement=math.inf).reply is None
    ('5000', 20.0, True)
    """

    #: the longest one statement runs (the server's ``statement_timeout``; ``MJBOT_DB_TIMEOUT``; ``inf``: no
    #: limit, for ``mjbot db copy``)
    statement: float = 15.0
    #: the longest a statement waits for a lock another transaction holds (``lock_timeout``): a row of a table
    #: whose last write is stuck in another session
    lock: float = 5.0
    #: the longest a transaction stays open with nothing sent (``idle_in_transaction_session_timeout``): the server
    #: then ends the session and its locks, so a process that vanished or hangs in the middle of a write holds no row
    #: for longer than this (the store's transactions send their statements one after the other, in milliseconds)
    idle_in_transaction: float = 20.0
    #: the longest a process waits at start-up for another one's migrations (the advisory lock they hold)
    migration_wait: float = 300.0
    #: the server's TCP keep-alives (idle, interval, probes), as the lease connection's: a session whose machine
    #: vanished ends in about 40 s
    keepalives: tuple[int, int, int] = (20, 5, 4)
    #: how much longer than a statement the bot waits for its reply (the server's own limits answer first)
    margin: float = 5.0

    @property
    def reply(self) -> float | None:
        """How long the bot waits for any reply (past the server's limits: the network to it is gone), None without
        a statement limit."""
        return None if math.isinf(self.statement) else self.statement + self.margin

    @property
    def acquire(self) -> float | None:
        """How long a transaction waits for a connection of the pool (a lent one comes back within a reply), None
        without a statement limit."""
        return self.reply

    def with_statement(self, seconds: float | None) -> Limits:
        """These limits with ``statement = seconds`` (None: unchanged); a lock wait never outlasts a statement."""
        if seconds is None:
            return self
        return dataclasses.replace(self, statement=seconds, lock=min(self.lock, seconds))


def _ms(seconds: float) -> str:
    return "0" if math.isinf(seconds) else str(max(1, round(seconds * 1000)))


def session_settings(limits: Limits, *, store: bool = True) -> dict[str, str]:
    """The settings a connection opens with: its name, the keep-alives, the idle-in-transaction limit and (``store``:
    the pool's connections, not the one that migrates) the statement and lock limits."""
    idle, interval, count = limits.keepalives
    settings = {"application_name": "mjbot", "tcp_keepalives_idle": str(idle),
                "tcp_keepalives_interval": str(interval), "tcp_keepalives_count": str(count),
                "idle_in_transaction_session_timeout": _ms(limits.idle_in_transaction)}
    if store:
        settings.update(statement_timeout=_ms(limits.statement), lock_timeout=_ms(limits.lock))
    return settings


async def _connect(url: str, limits: Limits) -> asyncpg.Connection:
    return await asyncpg.connect(url, timeout=CONNECT_TIMEOUT, server_settings=session_settings(limits, store=False))


class PostgresConnection:
    """:class:`bot.store.backend.Connection` over one asyncpg connection, lent by the pool for one transaction.

    A connection the server dropped (a restart, a fail-over, an idle timeout) fails the transaction it was in (the
    caller is told, nothing half-written); the pool connects again for a later transaction."""

    def __init__(self, raw: asyncpg.Connection, reply: float | None = None) -> None:
        self.raw = raw
        self.reply = reply  # the longest wait for a reply (Limits.reply)
        self.ended = False  # ended here after a reply that did not come

    async def _answer(self, request: Awaitable[T]) -> T:
        """``request``'s reply; none within :attr:`reply` (the network to the server gone): the connection is ended
        here, as a dropped one (the server rolls back what was open; the pool connects again), and asyncpg's
        TimeoutError raised (:class:`~bot.store.failures.NoAnswer` by :meth:`PostgresBackend.lend`). Cancelling
        the statement instead would wait for the server's answer to the cancel, on the same silent network."""
        try:
            return await request
        except TimeoutError:
            self.ended = True
            self.raw.terminate()
            raise

    async def begin(self, write: bool, durable: bool, keyed: bool = False, single: bool = False) -> None:
        if not write:
            await self._answer(self.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", timeout=self.reply))
            return
        level = "REPEATABLE READ" if keyed else "SERIALIZABLE"
        if durable:
            await self._answer(self.raw.execute(f"BEGIN ISOLATION LEVEL {level}", timeout=self.reply))
        else:
            await self._answer(self.raw.execute(f"BEGIN ISOLATION LEVEL {level}; SET LOCAL synchronous_commit = off",
                                                timeout=self.reply))

    async def commit(self) -> None:
        await self._answer(self.raw.execute("COMMIT", timeout=self.reply))

    async def rollback(self) -> None:
        if self.ended or self.raw.is_closed():
            return
        with contextlib.suppress(asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError):
            await self._answer(self.raw.execute("ROLLBACK", timeout=self.reply))

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        return _rowcount(await self._answer(self.raw.execute(numbered(sql), *params, timeout=self.reply)))

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            await self._answer(self.raw.executemany(numbered(sql), rows, timeout=self.reply))

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        return int(await self._answer(self.raw.fetchval(numbered(sql + " RETURNING id"), *params,
                                                        timeout=self.reply)))

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Row:
        row: Row = await self._answer(self.raw.fetchrow(numbered(sql), *params, timeout=self.reply))
        return row

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        return list(await self._answer(self.raw.fetch(numbered(sql), *params, timeout=self.reply)))


def _closed(raw: Any) -> bool | None:
    """Whether a lent connection is closed; None: no longer lent (asyncpg gave its slot back when it cleaned up
    after the connection, and its lent handle refuses every call)."""
    try:
        return bool(raw.is_closed())
    except asyncpg.InterfaceError:
        return None


def _cannot(url: str, exc: BaseException) -> StoreError:
    text = (str(exc).strip() or type(exc).__name__).splitlines()[0]
    if isinstance(exc, OSError | TimeoutError):  # nothing answered at that address
        text += " (no PostgreSQL server answers there: is it running, and are the host and port right?)"
    return StoreError("db_pg_unavailable", path=shown(url), error=text)


async def _schema_version(raw: asyncpg.Connection) -> int:
    await raw.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
    found = await raw.fetchval("SELECT MAX(version) FROM schema_version")
    return int(found or 0)


async def _lock_migrations(raw: asyncpg.Connection, url: str, wait: float) -> None:
    """Take the migrations' advisory lock, waiting at most ``wait`` seconds for a process that holds it (migrating,
    or hung or gone while migrating); ``migration_lock_held`` naming that session otherwise."""
    await raw.execute(f"SET lock_timeout = {_ms(wait)}")
    try:
        await raw.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    except asyncpg.exceptions.LockNotAvailableError:
        held = await raw.fetchrow(
            "SELECT a.pid, COALESCE(host(a.client_addr), 'local') AS client, a.state FROM pg_locks l "
            "JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted "
            "AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 1",
            MIGRATION_LOCK >> 32, MIGRATION_LOCK & 0xFFFFFFFF)
        pid, client, state = (held["pid"], held["client"], held["state"]) if held else ("?", "?", "?")
        raise StoreError("migration_lock_held", path=shown(url), seconds=round(wait), pid=pid, client=client,
                         state=state) from None
    finally:
        if not raw.is_closed():
            await raw.execute("RESET lock_timeout")


async def migrate_pg(raw: asyncpg.Connection, migrations: list[Migration], url: str, upto: int | None = None,
                     wait: float = math.inf) -> int:
    """Apply every migration above the database's version (up to ``upto``), each in one transaction with its
    version; a database newer than the code is refused. Returns the version. Another process's migrations are
    waited for at most ``wait`` seconds (``migration_lock_held`` past it)."""
    latest = migrations[-1].version if migrations else 0
    target = latest if upto is None else upto
    await _lock_migrations(raw, url, wait)
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
            await raw.execute("SELECT pg_advisory_unlock($1)", MIGRATION_LOCK)


class PostgresBackend:
    """A PostgreSQL database, migrated and probed, and the pool of connections the store's transactions run on."""

    name = "postgresql"
    conflicts: tuple[type[BaseException], ...] = (asyncpg.exceptions.SerializationError,
                                                  asyncpg.exceptions.DeadlockDetectedError)

    #: the bounds of every wait (tests set smaller ones)
    limits = Limits()

    def __init__(self, pool: asyncpg.Pool, url: str, schema_version: int, limits: Limits | None = None) -> None:
        self.pool = pool
        self.limits = limits or type(self).limits
        self.url = url
        self.path: Path | str = shown(url)
        self.schema_version = schema_version
        self.concurrency = pool.get_max_size()
        self.wrap: Callable[[Connection], Connection] | None = None

    @classmethod
    async def open(cls, url: str, *, migrations_dir: str | os.PathLike[str] | None = None,
                   pool: int | None = None, timeout: float | None = None) -> PostgresBackend:
        """Connect, bring the schema up to date, check a write commits (a read-only server or a missing privilege
        is found here, at start-up), then open the pool of at most ``pool`` connections (default
        :data:`DEFAULT_POOL`). ``timeout``: the longest a statement runs (``MJBOT_DB_TIMEOUT``; default
        :attr:`Limits.statement`; ``math.inf``: no limit). Every failure is a :class:`StoreError` naming the
        database (its password hidden) and the problem."""
        limits = cls.limits.with_statement(timeout)
        migrations = load_migrations(Path(migrations_dir) if migrations_dir else PG_MIGRATIONS_DIR)
        size = DEFAULT_POOL if pool is None else pool
        if size < 1:
            raise ValueError(f"a pool needs at least one connection, not {size}")
        try:
            raw = await _connect(url, limits)
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError, ValueError) as e:
            raise _cannot(url, e) from None
        try:
            version = await migrate_pg(raw, migrations, url, wait=limits.migration_wait)
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
                                              server_settings=session_settings(limits))
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, TimeoutError) as e:
            raise _cannot(url, e) from None
        return cls(conns, url, version, limits)

    @asynccontextmanager
    async def lend(self) -> AsyncIterator[Connection]:
        """A connection of the pool for one transaction (waiting while all are lent, at most :attr:`Limits.acquire`:
        :class:`NoConnection`); back to the pool after (a transaction left open is rolled back there; a dropped
        connection is replaced). A reply that did not come within :attr:`Limits.reply` is :class:`NoAnswer`."""
        try:
            raw = await self.pool.acquire(timeout=self.limits.acquire)
        except TimeoutError:
            raise NoConnection(f"no connection of the pool came free within {self.limits.acquire} s") from None
        try:
            conn: Connection = PostgresConnection(raw, self.limits.reply)
            yield conn if self.wrap is None else self.wrap(conn)
        except TimeoutError as e:  # asyncpg's command_timeout: the server never answered
            raise NoAnswer(f"the database did not answer within {self.limits.reply} s") from e
        except asyncpg.InternalClientError as e:
            if _closed(raw) is False:  # asyncpg's own fault (the connection still open): a bug, not the database
                raise
            raise ConnectionDropped(f"the database ended the connection in the middle of an exchange ({e})") from e
        finally:
            await self._give_back(raw)

    async def _give_back(self, raw: Any) -> None:
        """Return a lent connection's slot to the pool, whatever became of the connection.

        - Already given back (ended here by :meth:`PostgresConnection._answer`, or lost while asyncpg was not
          closing it: its own clean-up returned the slot): nothing to do.
        - Dropped in the middle of an exchange: asyncpg met the server's last message where it expected another,
          raised ``InternalClientError`` and aborted the connection itself. Its clean-up, which returns the slot,
          then never runs (the protocol was already closing when the socket closed), and ``Pool.release`` skips a
          closed connection, so the slot would stay lent for good. ``terminate()`` on a closed connection sends
          nothing and runs that clean-up: the slot is free, and the pool connects again for the next transaction.
        - Open: released; the pool rolls back what is left open. One that does not come back clean in time (its
          cancelled statement unanswered, say) is ended by the pool, which connects again for a later one."""
        closed = _closed(raw)
        if closed is None:  # the slot is back already
            return
        if closed:
            raw.terminate()
            return
        with contextlib.suppress(TimeoutError, OSError, asyncpg.PostgresError, asyncpg.InterfaceError):
            await self.pool.release(raw)

    async def close(self) -> None:
        """Close the pool, waiting for its lent connections at most :data:`CLOSE_WAIT` s: a call still holding one
        (waiting on a server that went away, say) must not hang the close; what is left is dropped. (A connection
        the server ended while it was lent is given back by :meth:`lend` all the same: :meth:`_give_back`.)"""
        try:
            await asyncio.wait_for(self.pool.close(), CLOSE_WAIT)
        except TimeoutError:
            self.pool.terminate()

    async def kill(self) -> None:
        self.pool.terminate()  # every connection dropped: the server rolls back whatever was open

    async def probe_write(self) -> None:
        async with self.pool.acquire(timeout=self.limits.acquire) as raw:
            tx = raw.transaction()
            await tx.start()
            try:
                await raw.execute("CREATE TABLE mjbot_check_probe (x INTEGER)")
                await raw.execute("INSERT INTO mjbot_check_probe VALUES (1)")
            finally:
                await tx.rollback()

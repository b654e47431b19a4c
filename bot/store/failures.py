"""Failures of the database itself (not refusals of the store): which ones pass by themselves.

A cog answers ``busy`` ("try again in a moment") or ``unavailable`` ("the bot's storage is failing") and logs a
warning without a traceback; such a failure changed nothing (the store's transaction rolled back). The same words
for SQLite and PostgreSQL.

>>> import sqlite3
>>> failure_kind(sqlite3.OperationalError("database is locked")), failure_kind(ValueError("x"))
('busy', None)
>>> failure_kind(sqlite3.OperationalError("disk I/O error")), failure_kind(sqlite3.OperationalError("no such table: x"))
('unavailable', None)
>>> import asyncpg
>>> failure_kind(asyncpg.exceptions.LockNotAvailableError("lock timeout"))
'busy'
>>> failure_kind(asyncpg.exceptions.AdminShutdownError("shutting down"))
'unavailable'
>>> failure_kind(NoConnection("all lent")), failure_kind(NoAnswer("no reply")), failure_kind(TimeoutError())
('busy', 'unavailable', None)
>>> failure_kind(ConnectionDropped("dropped mid-exchange")), failure_kind(asyncpg.InternalClientError("a bug"))
('unavailable', None)
"""

from __future__ import annotations

import sqlite3

import asyncpg


class NoAnswer(TimeoutError):
    """PostgreSQL sent no reply within the store's bound (:class:`bot.store.postgres.Limits`): the network to the
    server is gone. The call failed as a whole (a commit whose reply was lost may have landed, as when the connection
    drops: the table's recorder checks)."""


class NoConnection(NoAnswer):
    """No connection of the store's pool came free within its bound (every one is busy or stuck): nothing was sent."""


class ConnectionDropped(asyncpg.exceptions.ConnectionDoesNotExistError):
    """The server ended the connection in the middle of an exchange (a restart, a fail-over, an administrator's
    ``pg_terminate_backend``), at a moment where asyncpg met the server's last message where it expected another:
    asyncpg raises ``InternalClientError`` and closes the connection itself. :meth:`bot.store.postgres.PostgresBackend.lend`
    tells that apart from a fault of asyncpg's own (after which the connection stays open) and raises this instead:
    the dropped connection it is, "unavailable" as any other (the transaction rolled back on the server; a commit
    whose reply was lost may have landed, as when the connection drops)."""


#: what a database call may raise when the database fails (catch these, never ``Exception``)
DATABASE_ERRORS: tuple[type[BaseException], ...] = (sqlite3.Error, asyncpg.PostgresError, asyncpg.InterfaceError,
                                                    NoAnswer)

#: PostgreSQL's "try again": a lock not granted in time (``lock_timeout``), a deadlock or a serialisation failure,
#: too many connections, a statement past ``statement_timeout``, no connection of the pool free in time
_PG_BUSY = (asyncpg.exceptions.LockNotAvailableError, asyncpg.exceptions.DeadlockDetectedError,
            asyncpg.exceptions.SerializationError, asyncpg.exceptions.TooManyConnectionsError,
            asyncpg.exceptions.QueryCanceledError, NoConnection)
#: PostgreSQL's "the storage is failing": the server going away or ending the session (a transaction left idle past
#: ``idle_in_transaction_session_timeout``), no reply in time, out of disk, I/O errors, a read-only server
_PG_UNAVAILABLE = (asyncpg.exceptions.OperatorInterventionError, asyncpg.exceptions.InsufficientResourcesError,
                   asyncpg.exceptions.PostgresSystemError, asyncpg.exceptions.PostgresConnectionError,
                   asyncpg.exceptions.ReadOnlySQLTransactionError, asyncpg.InterfaceError,
                   asyncpg.exceptions.IdleInTransactionSessionTimeoutError, NoAnswer)

#: what a retry may cure: SQLite's operational errors (locked, busy, I/O), PostgreSQL's busy and unavailable ones,
#: the network and time-outs
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (sqlite3.OperationalError, *_PG_BUSY, *_PG_UNAVAILABLE, OSError,
                                                     TimeoutError)


def failure_kind(error: BaseException) -> str | None:
    """``busy`` (another writer holds the database), ``unavailable`` (disk, permissions, the server gone) or None
    (anything else: a bug, logged with its traceback)."""
    if isinstance(error, sqlite3.OperationalError):
        name = getattr(error, "sqlite_errorname", "") or ""
        if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in str(error) or "busy" in str(error):
            return "busy"
        if name.startswith(("SQLITE_IOERR", "SQLITE_FULL", "SQLITE_READONLY", "SQLITE_CANTOPEN")) or any(
                w in str(error) for w in ("disk I/O error", "disk is full", "readonly database", "unable to open")):
            return "unavailable"
        return None
    if isinstance(error, _PG_BUSY):
        return "busy"
    if isinstance(error, _PG_UNAVAILABLE):
        return "unavailable"
    return None

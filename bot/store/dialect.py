"""Everything SQLite-specific the SQLite backend (:mod:`bot.store.sqlite`) needs, in one place.

The rest of the store speaks one SQL with ``?`` placeholders (``INSERT ... ON CONFLICT ... DO NOTHING`` and
``DO UPDATE`` are understood by SQLite >= 3.24 and PostgreSQL alike). PostgreSQL's counterparts (``BEGIN`` instead of
``BEGIN IMMEDIATE``, a ``schema_version`` row instead of ``PRAGMA user_version``, ``$n`` placeholders) are in
:mod:`bot.store.postgres`.
"""

from __future__ import annotations

import asyncio

import aiosqlite

#: Connection set-up: write-ahead log (readers never block the writer, a killed process loses nothing that was
#: committed), foreign keys enforced, a busy timeout so that a second process waits instead of failing.
#: ``synchronous=FULL`` makes every commit durable even against power loss, not only against a crashed process.
BUSY_TIMEOUT_MS = 5000
PRAGMAS = (
    "PRAGMA journal_mode = WAL",
    "PRAGMA foreign_keys = ON",
    f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}",
    "PRAGMA synchronous = FULL",
)

#: Recording one action (many a click) commits with ``synchronous=NORMAL``: in WAL mode that is safe against a
#: killed process and never corrupts, and the next ``FULL`` commit (a hand's settlement, a match's start or end)
#: syncs the whole log, actions before it included. A power cut can lose at most the unsettled actions of a hand in
#: play; never a settled hand. An fsync per action is what made clicks slow when the disk is busy.
RELAXED = "PRAGMA synchronous = NORMAL"
DURABLE = "PRAGMA synchronous = FULL"

#: Start of a write transaction: take the write lock at once, so that two processes never deadlock on upgrade.
BEGIN_WRITE = "BEGIN IMMEDIATE"
BEGIN_READ = "BEGIN"


async def connect(path: str) -> aiosqlite.Connection:
    """Open a connection in autocommit mode (the store issues BEGIN / COMMIT itself) with :data:`PRAGMAS` applied."""
    pending = aiosqlite.connect(path, isolation_level=None)
    try:
        conn = await pending
    except BaseException:
        # the file cannot be opened: aiosqlite stops its worker thread with a future nobody awaits, and the thread
        # then posts the result to the event loop; were the loop closed by then (``asyncio.run`` of a start-up
        # check returning), that post printed a "RuntimeError: Event loop is closed" traceback around the one-line
        # message. Wait for the thread to end while the loop still runs.
        worker = getattr(pending, "_thread", None)
        if worker is not None and worker.is_alive():
            await asyncio.to_thread(worker.join, 5)
        raise
    try:
        for pragma in PRAGMAS:
            await conn.execute(pragma)
    except BaseException:  # not a database, locked, read-only ...: never leave the connection's thread running
        await conn.close()
        raise
    return conn


async def schema_version(conn: aiosqlite.Connection) -> int:
    async with conn.execute("PRAGMA user_version") as cur:
        row = await cur.fetchone()
    assert row is not None, "PRAGMA user_version always answers one row"
    return int(row[0])


def set_schema_version_sql(version: int) -> str:
    """The statement that records ``version``; it runs inside the migration's transaction (SQLite keeps
    ``user_version`` in the database header, which is part of the transaction)."""
    return f"PRAGMA user_version = {int(version)}"

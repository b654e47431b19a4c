"""The lease statements of :mod:`bot.cluster`, run on its lease connection: which locks are leases, taking one (and
bumping its shard's epoch, the fence every write of a table checks: :mod:`bot.store.fence`), and the ones held.

A lease is a session-level advisory lock ``(LEASE_CLASS, count * MAX_SHARDS + shard)``; ``(LEASE_CLASS, 0)``
serialises taking them (no count is 0, so no lease has that key).
"""

from __future__ import annotations

import logging

import asyncpg

from .shards import MAX_SHARDS

log = logging.getLogger(__name__)

#: what a statement on the lease connection raises when the connection or the server fails (asyncpg's
#: InternalClientError included: a statement started as the connection broke can meet the protocol mid-way)
DB_ERRORS = (OSError, asyncpg.PostgresError, asyncpg.InterfaceError, asyncpg.exceptions.InternalClientError,
             TimeoutError)
#: the first key of every lease lock ("mjls"); the second is ``count * MAX_SHARDS + shard``
LEASE_CLASS = 0x6D6A6C73
#: the key (LEASE_CLASS, 0) serialises taking leases: no count is 0, so no lease has it
SETUP_KEY = 0
#: advisory locks are per database, but pg_locks lists every database's: only this one's are ours
THIS_DB = "database = (SELECT oid FROM pg_database WHERE datname = current_database())"


def lease_key(count: int, shard: int) -> int:
    return count * MAX_SHARDS + shard


async def other_counts(conn: asyncpg.Connection, count: int) -> list[int]:
    """The shard counts of the other processes' leases on this database, other than ``count``."""
    rows = await conn.fetch(
        "SELECT DISTINCT (objid::bigint / $2) AS n FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 "
        f"AND objsubid = 2 AND granted AND pid <> pg_backend_pid() AND objid::bigint >= $2 AND {THIS_DB}",
        LEASE_CLASS, MAX_SHARDS)
    return [int(r["n"]) for r in rows if int(r["n"]) != count]


async def take(conn: asyncpg.Connection, count: int, shard: int, wait_ms: int) -> int | None:
    """Take the shard's lease if it is free (in the taking transaction), and bump the shard's epoch: the new epoch,
    None when another session holds the lease. The bump waits for the writes that checked the old epoch (a
    previous holder's, under way) to end, and comes before this process reads the shard's tables from the store, so
    that every write of the previous holder is either in what it reads or refused.

    The bump waits at most ``wait_ms`` for such a write: the lease connection carries every routed click too, and a
    previous holder's write may last a while (its statement 15 s, its transaction idle 20 s). Past it the lease is
    let go again and the answer is None: a later round takes it, once the write is over. The server answered
    throughout (it is a lock's wait, not a lost session): nothing else of this process's is given up."""
    key = lease_key(count, shard)
    if not await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", LEASE_CLASS, key):
        return None
    try:
        async with conn.transaction():  # a savepoint: a bump that waited too long leaves the taking transaction whole
            await conn.execute(f"SET LOCAL lock_timeout = {max(1, int(wait_ms))}")
            return int(await conn.fetchval(
                "INSERT INTO lease_epochs (shard_count, shard, epoch) VALUES ($1, $2, 1) ON CONFLICT (shard_count, "
                "shard) DO UPDATE SET epoch = lease_epochs.epoch + 1 RETURNING epoch", count, shard))
    except asyncpg.LockNotAvailableError:
        # (a session-level lock outlives the rolled-back savepoint: it is let go by hand)
        await conn.fetchval("SELECT pg_advisory_unlock($1, $2)", LEASE_CLASS, key)
        log.warning("shard %s: its previous holder's write is still under way: the lease is taken at a later round",
                    shard)
        return None


async def held_shards(conn: asyncpg.Connection, count: int) -> set[int]:
    """The shards whose lease this session holds."""
    rows = await conn.fetch(
        "SELECT objid::bigint AS k FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 "
        "AND objsubid = 2 AND granted AND pid = pg_backend_pid()", LEASE_CLASS)
    return {int(r["k"]) - count * MAX_SHARDS for r in rows}


class HungOwners:
    """A standby's watch over the sessions that hold the leases it waits for. A live holder runs a statement on its
    lease connection every ``tick`` (its beat: :meth:`bot.cluster.Cluster.beat`), which moves the session's
    ``state_change`` in ``pg_stat_activity``; a hung one (stopped, frozen, its event loop blocked) runs none, while
    its kernel keeps the socket and its keep-alives going, so the server never frees its locks. A holder whose mark
    (its session and its last state change) has not moved for ``grace`` seconds of the standby's own clock is hung.
    No clocks are compared across machines: the standby only times how long it has seen the same mark."""

    def __init__(self) -> None:
        self.seen: dict[int, tuple[tuple[int, object], float]] = {}  # shard -> (holder's mark, first seen at)

    def hung(self, marks: dict[int, tuple[int, object]], now: float, grace: float) -> dict[int, object]:
        """The holders' sessions (pid -> their last state change) whose mark has stayed the same for ``grace``."""
        self.seen = {s: v for s, v in self.seen.items() if s in marks}
        out: dict[int, object] = {}
        for shard, mark in marks.items():
            before = self.seen.get(shard)
            if before is None or before[0] != mark:
                self.seen[shard] = (mark, now)
            elif mark[1] is not None and now - before[1] >= grace:  # (None: the session's activity is not shown)
                out[mark[0]] = mark[1]
        return out


async def holders(conn: asyncpg.Connection, count: int, shards: set[int]) -> dict[int, tuple[int, object]]:
    """The other sessions holding these shards' leases: shard -> (pid, its last state change)."""
    rows = await conn.fetch(
        "SELECT l.objid::bigint - $2::bigint AS shard, l.pid, a.state_change FROM pg_locks l "
        "LEFT JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.classid = $1 "
        f"AND l.objsubid = 2 AND l.granted AND l.pid <> pg_backend_pid() AND l.{THIS_DB} "
        "AND l.objid::bigint = ANY($3::bigint[])", LEASE_CLASS, count * MAX_SHARDS, [lease_key(count, s) for s in shards])
    return {int(r["shard"]): (int(r["pid"]), r["state_change"]) for r in rows}


async def end_session(conn: asyncpg.Connection, pid: int, mark: object, wait_ms: int, grace: float) -> None:
    """End a hung holder's session (its leases go with it), unless it has moved since it was seen; on PostgreSQL 14
    and later, waits up to ``wait_ms`` for it to be gone (its locks are free then; if not yet, a later check takes
    them)."""
    wait = ", $3::bigint" if conn.get_server_version().major >= 14 else ""
    try:
        gone = await conn.fetchval(
            f"SELECT pg_terminate_backend(pid{wait}) FROM pg_stat_activity WHERE pid = $1 AND state_change = $2",
            pid, mark, *([wait_ms] if wait else []))
    except asyncpg.InsufficientPrivilegeError as e:  # (a process of another database role)
        log.warning("the lease holder %s is silent, and cannot be ended from here: %s", pid, e)
        return
    if gone is not None:
        log.error("the lease holder %s has been silent for %.0f s: its session is ended%s", pid, grace,
                  "" if gone else " (not gone yet)")

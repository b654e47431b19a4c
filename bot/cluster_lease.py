"""The lease statements of :mod:`bot.cluster`, run on its lease connection: which locks are leases, taking one (and
bumping its shard's epoch, the fence every write of a table checks: :mod:`bot.store.fence`), and the ones held.

A lease is a session-level advisory lock ``(LEASE_CLASS, count * MAX_SHARDS + shard)``; ``(LEASE_CLASS, 0)``
serialises taking them (no count is 0, so no lease has that key).
"""

from __future__ import annotations

import asyncpg

from .shards import MAX_SHARDS

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


async def take(conn: asyncpg.Connection, count: int, shard: int) -> int | None:
    """Take the shard's lease if it is free (in the taking transaction), and bump the shard's epoch: the new epoch,
    None when another session holds the lease. The bump waits for the writes that checked the old epoch (a
    previous holder's, under way) to end, and comes before this process reads the shard's tables from the store, so
    that every write of the previous holder is either in what it reads or refused."""
    if not await conn.fetchval("SELECT pg_try_advisory_lock($1, $2)", LEASE_CLASS, lease_key(count, shard)):
        return None
    return int(await conn.fetchval(
        "INSERT INTO lease_epochs (shard_count, shard, epoch) VALUES ($1, $2, 1) ON CONFLICT (shard_count, shard) "
        "DO UPDATE SET epoch = lease_epochs.epoch + 1 RETURNING epoch", count, shard))


async def held_shards(conn: asyncpg.Connection, count: int) -> set[int]:
    """The shards whose lease this session holds."""
    rows = await conn.fetch(
        "SELECT objid::bigint AS k FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 "
        "AND objsubid = 2 AND granted AND pid = pg_backend_pid()", LEASE_CLASS)
    return {int(r["k"]) - count * MAX_SHARDS for r in rows}

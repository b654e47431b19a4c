"""The statements of the routed clicks' queue (``routed_clicks``, migration 0008) that :mod:`bot.cluster` runs: a DM
click queued for its table's owner (with a ``NOTIFY``), taken by the owner (one taker), answered, dropped when no
owner took it in time, and told apart when its taker died before answering. docs/sharding.md says how they fit.
"""

from __future__ import annotations

import json
from typing import Any

import asyncpg

from .cluster_lease import LEASE_CLASS, THIS_DB
from .shards import MAX_SHARDS

CHANNEL = "mjbot_clicks"
#: rows older than this are deleted (an interaction's token lives 15 minutes)
KEEP_ROWS_MS = 30 * 60 * 1000
#: the database server's clock in Unix ms: the one clock every process's queue times are read against
DB_NOW_MS = "(extract(epoch FROM clock_timestamp()) * 1000)::bigint"


async def queue_click(conn: asyncpg.Connection, interaction_id: int, count: int, shard: int, match_id: int,
                      payload: dict[str, Any]) -> bool:
    """Queue a click for the shard's owner and notify it, in one transaction; False when it was queued already."""
    async with conn.transaction():
        status = await conn.execute(
            "INSERT INTO routed_clicks (interaction_id, shard_count, shard, match_id, payload, queued_at) "
            f"VALUES ($1, $2, $3, $4, $5, {DB_NOW_MS}) ON CONFLICT (interaction_id) DO NOTHING",
            interaction_id, count, shard, match_id, json.dumps(payload))
        queued = status.endswith(" 1")
        if queued:
            await conn.execute("SELECT pg_notify($1, $2)", CHANNEL, f"{count}:{shard}")
    return queued


async def verdict(conn: asyncpg.Connection, interaction_id: int) -> tuple[bool, bool]:
    """(dropped now, or already: no owner took it; orphaned: taken by a process whose lease session has ended since,
    never answered)."""
    # dropped here, or already: by an owner's poll (it drops a click older than route_timeout, which a click looked
    # at again after a lost connection always is), or by this statement of a router's earlier look whose answer
    # the connection lost. Nobody plays a dropped click, and its router's watch is its only answer
    dropped = bool(await conn.fetchval(
        "UPDATE routed_clicks SET state = 'dropped', payload = '' WHERE interaction_id = $1 "
        "AND state IN ('queued', 'dropped') RETURNING 1", interaction_id))
    # taken, not answered yet, by a process whose lease session has ended since (killed, or its connection lost,
    # before it could apply the click): nobody will answer it
    orphaned = not dropped and bool(await conn.fetchval(
        "SELECT NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.classid = $2 "
        "AND l.objid::bigint = r.shard_count::bigint * $3 + r.shard AND l.objsubid = 2 AND l.granted "
        f"AND l.pid = split_part(r.taken_by, '@', 2)::int AND l.{THIS_DB}) "
        f"FROM routed_clicks r WHERE r.interaction_id = $1 AND r.state = 'taken' AND r.payload = '' "
        "AND r.taken_by LIKE '%@%'", interaction_id, LEASE_CLASS, MAX_SHARDS))
    return dropped, orphaned


async def mark_answered(conn: asyncpg.Connection, interaction_id: int) -> None:
    """A taken click has been handled: its router has nothing to make good."""
    await conn.execute("UPDATE routed_clicks SET payload = 'answered' WHERE interaction_id = $1 AND state = 'taken'",
                       interaction_id)


async def take_clicks(conn: asyncpg.Connection, count: int, shards: list[int], max_age_ms: int, now_ms: int,
                      taker: str) -> list[tuple[int, dict[str, Any]]]:
    """Take the queued clicks of these shards (up to 100, oldest first; ``SKIP LOCKED``: one taker each), after
    dropping those queued longer ago than ``max_age_ms`` (their router died before it could drop them, and no
    owner ran meanwhile: never played late, the player has long been waiting on nothing)."""
    oldest = f"{DB_NOW_MS} - {int(max_age_ms)}"
    await conn.execute(
        "UPDATE routed_clicks SET state = 'dropped', payload = '' WHERE state = 'queued' AND shard_count = $1 "
        f"AND shard = ANY($2::int[]) AND queued_at < {oldest}", count, shards)
    rows = await conn.fetch(
        "UPDATE routed_clicks r SET state = 'taken', taken_at = $3, taken_by = $4, payload = '' "
        "FROM (SELECT interaction_id, payload FROM routed_clicks WHERE state = 'queued' AND shard_count = $1 "
        f"AND shard = ANY($2::int[]) AND queued_at >= {oldest} ORDER BY queued_at LIMIT 100 "
        "FOR UPDATE SKIP LOCKED) old WHERE r.interaction_id = old.interaction_id RETURNING r.shard, old.payload",
        count, shards, now_ms, taker)
    return [(int(r["shard"]), json.loads(r["payload"])) for r in rows]


async def clear_old(conn: asyncpg.Connection, now_ms: int) -> None:
    await conn.execute("DELETE FROM routed_clicks WHERE queued_at < $1", now_ms - KEEP_ROWS_MS)

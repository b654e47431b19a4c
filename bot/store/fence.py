"""The fence of a table's writes when several processes share one PostgreSQL database (docs/sharding.md).

A process drives a shard's tables while it holds the shard's lease (:mod:`bot.cluster`). Taking the lease bumps the
shard's epoch in ``lease_epochs`` (migration 0012) before the shard's tables are read from the store, and the
process remembers the epoch it got. Every write of a table (an action, a hand, a settlement, a match's start and
end) checks in its own transaction, with a row lock the bump waits for (``FOR SHARE``), that the epoch is still the
one its process holds: so a process that lost the lease and has not noticed yet cannot write behind the new owner's
back. Its write either commits before the new owner reads the store (the bump waits for it), or is refused with
:class:`Fenced` (the bump came first: a write that began before it meets the changed row and is run again by
``completes``, and then sees the new epoch). A fenced table is not this process's any more: it stops here quietly.

One process on SQLite has no fence (``Database.fence`` is None).

A DM click routed to the owner (:mod:`bot.cluster`) is applied with :data:`ROUTED_CLICK` set: the action it records
marks the queued click handled in the same transaction, so that its router never tells the player "nothing was
played" about a move that is in the store (the owner died after writing it, before it could answer).
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol

from bot.shards import shard_of

from .backend import Connection
from .errors import StoreError

#: the interaction id of the routed click being applied in this context (``bot.cluster_dispatch.dispatch_routed``)
ROUTED_CLICK: ContextVar[int | None] = ContextVar("mjbot_routed_click", default=None)


async def mark_applied(conn: Connection, click: int | None) -> None:
    """In the transaction that recorded a routed click's move: the click reads handled (``answered``)."""
    if click is not None:
        await conn.execute("UPDATE routed_clicks SET payload = 'answered' WHERE interaction_id = ? AND state = 'taken' "
                           "AND payload <> 'answered'", (click,))


class Fence(Protocol):
    """What the store asks of the process's leases (:class:`bot.cluster.Cluster`)."""

    #: the shard count of the leases (a shard is ``(guild_id >> 22) % count``)
    count: int

    def epoch(self, shard: int) -> int | None:
        """The epoch this process took with the shard's lease, None when it does not hold the lease now."""
        ...


class Fenced(StoreError):
    """The write was refused: another process holds the table's shard now (nothing was written)."""

    def __init__(self, shard: int) -> None:
        super().__init__("fenced", shard=shard)


async def check_guild(fence: Fence | None, conn: Connection, guild_id: int) -> None:
    """In a write's transaction: the server's shard is still this process's (:class:`Fenced` otherwise)."""
    if fence is None:
        return
    shard = shard_of(guild_id, fence.count)
    mine = fence.epoch(shard)
    if mine is None:
        raise Fenced(shard)
    row = await conn.one("SELECT epoch FROM lease_epochs WHERE shard_count = ? AND shard = ? FOR SHARE",
                         (fence.count, shard))
    if row is None or int(row[0]) != mine:
        raise Fenced(shard)


async def check_match(fence: Fence | None, conn: Connection, match_id: int) -> None:
    """In a write's transaction: the match's server's shard is still this process's (:class:`Fenced` otherwise; a
    match that does not exist is left to the write, which says so). One statement in the usual case."""
    if fence is None:
        return
    row = await conn.one(
        "SELECT e.shard, e.epoch FROM matches m JOIN lease_epochs e ON e.shard_count = ? "
        "AND e.shard = (m.guild_id >> 22) % ? WHERE m.id = ? FOR SHARE OF e", (fence.count, fence.count, match_id))
    if row is not None:
        if fence.epoch(int(row[0])) != int(row[1]):
            raise Fenced(int(row[0]))
        return
    found = await conn.one("SELECT guild_id FROM matches WHERE id = ?", (match_id,))
    if found is not None:  # no epoch row for its shard: this process never took that lease
        await check_guild(fence, conn, int(found[0]))

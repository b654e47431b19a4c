"""Lobbies and dissolve votes kept across a restart (issue 10; schema in ``migrations/0007_lobbies.sql``).

A lobby is one row per channel, replaced whole at every change (seats, host, its message) and deleted when the lobby
starts or closes; a match's dissolve (解散) vote is one row per match: how many votes were held and the open one
(``None`` when there is none). The JSON is the table layer's own (``bot.tables``); the store does not read it.
Every write is durable: it is made before the change it records is shown to anyone.

A player sits at one table at a time, whatever the deployment (``migrations/0015_seated_players.sql``): a lobby's
write is given its players and makes the channel's ``seated_players`` rows exactly them, in the same transaction; a
player whose row names another channel that still has a lobby or an active match is refused
(``StoreError('seated_elsewhere', channel=..., user=...)``, nothing written) - but only a player the write *adds*
(``adding``): a player already in the lobby who sits elsewhere (a lobby stored before 0015, when two processes could
seat one player twice) keeps the lobby as it is and is seated at it once their other table is gone, so that a Leave,
a kick or an AI added is never refused for someone else's seat. The match started from a lobby keeps its
rows; a row whose channel has neither any more (the table ended, was dissolved, aborted or deleted, even by a process
killed before it said so) is stale and gives way to the player's next seat. Two processes seating one player at once
meet on the row's primary key: the second waits for the first's transaction and, run again after it (PostgreSQL's
serialization failure, :func:`~bot.store.database.completes`), finds the player seated.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from .database import completes
from .errors import StoreError
from .models import Shards, on_shards, to_ms
from .sql import dumps
from .store import Store


async def write_lobby(conn: Any, guild_id: int, channel_id: int, state: Mapping[str, Any] | None,
                      at: datetime | None = None, players: Collection[int] | None = None,
                      adding: Collection[int] | None = None) -> None:
    """Inside a transaction: store (or replace) the lobby of ``channel_id``; ``state`` None deletes it (its
    players' rows go stale with it, unless a match in the channel keeps them). ``players``: the lobby's human
    players, who then sit at it and no one else; ``adding``: those of them this write seats (None: all of them),
    ``seated_elsewhere`` for one who sits at another table."""
    if state is None:
        await conn.execute("DELETE FROM lobbies WHERE channel_id = ?", (channel_id,))
        return
    await conn.execute(
        "INSERT INTO lobbies (channel_id, guild_id, state, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id, state = excluded.state, "
        "updated_at = excluded.updated_at",
        (channel_id, guild_id, dumps(dict(state)), to_ms(at)))
    if players is not None:
        await seat_players(conn, channel_id, players, adding)


async def seat_players(conn: Any, channel_id: int, players: Collection[int],
                       adding: Collection[int] | None = None) -> None:
    """Inside a transaction: the players seated at the table of ``channel_id`` are ``players`` (the rows of others
    there are deleted). Raises ``StoreError('seated_elsewhere')`` when one of ``adding`` (None: of ``players``) sits
    at another live table; another player who does keeps that row (see the module)."""
    ids = sorted(set(players))
    judged = set(ids) if adding is None else set(adding)
    others = f" AND user_id NOT IN ({', '.join('?' for _ in ids)})" if ids else ""
    await conn.execute(f"DELETE FROM seated_players WHERE channel_id = ?{others}", (channel_id, *ids))
    for user_id in ids:
        # a row of a table that is gone (no lobby and no active match in its channel) gives way
        await conn.execute(
            "DELETE FROM seated_players WHERE user_id = ? AND channel_id <> ? "
            "AND NOT EXISTS (SELECT 1 FROM lobbies l WHERE l.channel_id = seated_players.channel_id) "
            "AND NOT EXISTS (SELECT 1 FROM matches m WHERE m.channel_id = seated_players.channel_id "
            "AND m.status = 'active')", (user_id, channel_id))
        await conn.execute("INSERT INTO seated_players (user_id, channel_id) VALUES (?, ?) "
                           "ON CONFLICT (user_id) DO NOTHING", (user_id, channel_id))
        row = await conn.all("SELECT channel_id FROM seated_players WHERE user_id = ?", (user_id,))
        if row and int(row[0][0]) != channel_id and user_id in judged:
            raise StoreError("seated_elsewhere", channel=int(row[0][0]), user=user_id)


@completes
async def save_lobby(store: Store, guild_id: int, channel_id: int, state: Mapping[str, Any],
                     at: datetime | None = None, players: Collection[int] | None = None,
                     adding: Collection[int] | None = None) -> None:
    """Store (or replace) the lobby of ``channel_id``; ``players``: its human players, seated at it (see the module:
    ``seated_elsewhere`` when one of ``adding``, None: of them all, sits at another table, nothing written then)."""
    async with store.transaction() as conn:
        await write_lobby(conn, guild_id, channel_id, state, at, players, adding)


@completes
async def delete_lobby(store: Store, channel_id: int) -> None:
    """Forget the lobby of ``channel_id`` (it started or closed). Deleting a lobby that is not stored is fine."""
    async with store.transaction() as conn:
        await write_lobby(conn, 0, channel_id, None)


async def lobbies(store: Store, shards: Shards | None = None) -> list[tuple[int, int, dict[str, Any]]]:
    """Every stored lobby: ``(guild_id, channel_id, state)``, oldest first; with ``shards``, only those of their
    servers."""
    cond, params = on_shards(shards, "guild_id")
    async with store.transaction(write=False) as conn:
        rows = await conn.all(
            f"SELECT guild_id, channel_id, state FROM lobbies WHERE {cond} ORDER BY updated_at, channel_id", params)
    return [(int(g), int(c), json.loads(s)) for g, c, s in rows]


@completes
async def save_vote(store: Store, match_id: int, held: int, vote: Mapping[str, Any] | None) -> None:
    """Store a match's vote count and its open vote (``None``: no vote is open)."""
    async with store.transaction() as conn:
        await conn.execute(
            "INSERT INTO match_votes (match_id, held, vote) VALUES (?, ?, ?) "
            "ON CONFLICT (match_id) DO UPDATE SET held = excluded.held, vote = excluded.vote",
            (match_id, held, None if vote is None else dumps(dict(vote))))


async def open_votes(store: Store) -> dict[int, tuple[int, dict[str, Any] | None]]:
    """``match id -> (votes held, the open vote or None)`` of every match with a stored vote."""
    async with store.transaction(write=False) as conn:
        rows = await conn.all("SELECT match_id, held, vote FROM match_votes")
    return {int(m): (int(h), json.loads(v) if v is not None else None) for m, h, v in rows}

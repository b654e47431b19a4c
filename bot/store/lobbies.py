"""Lobbies and dissolve votes kept across a restart (issue 10; schema in ``migrations/0007_lobbies.sql``).

A lobby is one row per channel, replaced whole at every change (seats, host, its message) and deleted when the lobby
starts or closes; a match's dissolve (解散) vote is one row per match: how many votes were held and the open one
(``None`` when there is none). The JSON is the table layer's own (``bot.tables``); the store does not read it.
Every write is durable: it is made before the change it records is shown to anyone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .database import completes
from .models import Shards, on_shards, to_ms
from .sql import dumps
from .store import Store


async def write_lobby(conn: Any, guild_id: int, channel_id: int, state: Mapping[str, Any] | None,
                      at: datetime | None = None) -> None:
    """Inside a transaction: store (or replace) the lobby of ``channel_id``; ``state`` None deletes it."""
    if state is None:
        await conn.execute("DELETE FROM lobbies WHERE channel_id = ?", (channel_id,))
        return
    await conn.execute(
        "INSERT INTO lobbies (channel_id, guild_id, state, updated_at) VALUES (?, ?, ?, ?) "
        "ON CONFLICT (channel_id) DO UPDATE SET guild_id = excluded.guild_id, state = excluded.state, "
        "updated_at = excluded.updated_at",
        (channel_id, guild_id, dumps(dict(state)), to_ms(at)))


@completes
async def save_lobby(store: Store, guild_id: int, channel_id: int, state: Mapping[str, Any],
                     at: datetime | None = None) -> None:
    """Store (or replace) the lobby of ``channel_id``."""
    async with store.transaction() as conn:
        await write_lobby(conn, guild_id, channel_id, state, at)


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

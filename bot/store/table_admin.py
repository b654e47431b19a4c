"""Table management (issue 15): a match's seat changes made by people, stored with their audit row.

One function, one transaction: the match's bot metadata (``match_meta.meta``, the same JSON the table manager
writes when it starts a match) is replaced and a ``settings_audit`` row names who did what (field
``table.<action>``: ``table.replace``, ``table.restore``, ``table.autoplay``, ``table.kick``, ``table.dissolve``),
so a restart sees the seats as they were left and a server's audit keeps every table-management action beside its
settings changes (the ``/settings`` panel lists only the settings: ``cogs.settings_audit``). No new schema: ``settings_audit`` already has (guild, user, field, old, new, when).

The ledger is not touched: a match's seats are fixed when it is recorded, so a seat played by the AI for a while
still pays and collects for the member who sits in it (the seat's owner).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from .database import completes
from .lobbies import write_lobby
from .models import to_ms
from .sql import dumps
from .store import Store


@completes
async def record_table_action(store: Store, guild_id: int, user_id: int, action: str, *, match_id: int | None,
                              detail: Mapping[str, Any], meta: Mapping[str, Any] | None = None,
                              at: datetime | None = None,
                              lobby: tuple[int, Mapping[str, Any] | None] | None = None,
                              players: Collection[int] | None = None,
                              adding: Collection[int] | None = None) -> None:
    """Audit a table-management ``action`` by ``user_id`` (``detail``: whom and where) and, for a match in play,
    store its new ``meta`` in the same transaction; ``lobby``: ``(channel, state or None)`` of a lobby changed by
    the action (stored or deleted in the same transaction, see :mod:`bot.store.lobbies`), ``players`` its human
    players then (the ones seated at it), ``adding`` those of them the action seats (None: all)."""
    ms = to_ms(at)
    async with store.transaction() as conn:
        if lobby is not None:
            await write_lobby(conn, guild_id, lobby[0], lobby[1], at, players, adding)
        if match_id is not None and meta is not None:
            await conn.execute(
                "INSERT INTO match_meta (match_id, meta) VALUES (?, ?) "
                "ON CONFLICT (match_id) DO UPDATE SET meta = excluded.meta",
                (match_id, dumps(dict(meta))))
        await conn.execute(
            "INSERT INTO settings_audit (guild_id, user_id, field, old_value, new_value, changed_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (guild_id, user_id, f"table.{action}", None, dumps({"match": match_id, **dict(detail)}), ms))

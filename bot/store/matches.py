"""Reading games: a match with its seats and totals, hands, actions, a hand's ledger, the unfinished games to
resume (the :class:`~bot.store.Store` methods of this topic)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .backend import Connection
from .database import Database
from .errors import StoreError
from .models import (
    HandInfo,
    LedgerRow,
    MatchInfo,
    RecordedAction,
    SeatTotals,
    Shards,
    UnfinishedGame,
    from_ms,
    on_shards,
)

MATCH_COLS = (
    "id, guild_id, channel_id, variant, settings, seed, status, start_hash, final_hash, reason, "
    "started_at, ended_at"
)
HAND_COLS = "id, match_id, number, seed, wall_commitment, status, state_hash, started_at, ended_at"


def _hand(r: Sequence[Any]) -> HandInfo:
    return HandInfo(r[0], r[1], r[2], r[3], r[4], r[5], r[6], from_ms(r[7]), from_ms(r[8]))


async def _match_info(conn: Connection, row: Sequence[Any]) -> MatchInfo:
    seats = await conn.all(
        "SELECT s.seat, s.player_id, s.ai, p.display_name, s.total, s.stack_total, s.jiao_total "
        "FROM match_seats s LEFT JOIN players p ON p.user_id = s.player_id "
        "WHERE s.match_id = ? ORDER BY s.seat",
        (row[0],),
    )
    return MatchInfo(
        match_id=row[0], guild_id=row[1], channel_id=row[2], variant=row[3], settings=json.loads(row[4]),
        seed=row[5], status=row[6], start_hash=row[7], final_hash=row[8], reason=row[9],
        started_at=from_ms(row[10]), ended_at=from_ms(row[11]),
        seats=tuple(SeatTotals(*s) for s in seats),
    )


async def read_actions(conn: Connection, match_id: int) -> list[RecordedAction]:
    rows = await conn.all(
        "SELECT seq, hand_id, action, state_hash, at FROM actions WHERE match_id = ? ORDER BY seq",
        (match_id,),
    )
    return [RecordedAction(r[0], r[1], r[2], r[3], from_ms(r[4])) for r in rows]


class MatchTopic(Database):
    """Reading matches, hands, actions and the ledger."""

    # ------------------------------------------------------------------ reading games

    async def match(self, match_id: int) -> MatchInfo:
        """A match with its seats and running totals."""
        async with self.transaction(write=False) as conn:
            row = await conn.one(f"SELECT {MATCH_COLS} FROM matches WHERE id = ?", (match_id,))
            if row is None:
                raise StoreError("no_match", match_id=match_id)
            return await _match_info(conn, row)

    async def matches(self, guild_id: int, status: str | None = None, limit: int = 50) -> list[MatchInfo]:
        """A server's matches, newest first (optionally only those with ``status``)."""
        async with self.transaction(write=False) as conn:
            sql = f"SELECT {MATCH_COLS} FROM matches WHERE guild_id = ?"
            params: list[Any] = [guild_id]
            if status is not None:
                sql += " AND status = ?"
                params.append(status)
            rows = await conn.all(sql + " ORDER BY started_at DESC, id DESC LIMIT ?", [*params, limit])
            return [await _match_info(conn, r) for r in rows]

    async def hands(self, match_id: int) -> list[HandInfo]:
        async with self.transaction(write=False) as conn:
            rows = await conn.all(f"SELECT {HAND_COLS} FROM hands WHERE match_id = ? ORDER BY number", (match_id,))
        return [_hand(r) for r in rows]

    async def actions(self, match_id: int) -> list[RecordedAction]:
        """A match's actions in order."""
        async with self.transaction(write=False) as conn:
            return await read_actions(conn, match_id)

    async def hand_ledger(self, hand_id: int) -> list[LedgerRow]:
        """A settled hand's rows by seat (empty while it is in play or if it was aborted)."""
        async with self.transaction(write=False) as conn:
            rows = await conn.all(
                "SELECT seat, amount, stack_amount, jiao_amount, won, self_draw, deal_in, drawn, hand_value "
                "FROM ledger WHERE hand_id = ? ORDER BY seat",
                (hand_id,),
            )
        return [
            LedgerRow(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5]), bool(r[6]), bool(r[7]), r[8]) for r in rows
        ]

    async def unfinished_games(self, shards: Shards | None = None) -> list[UnfinishedGame]:
        """Every active match with what it takes to rebuild it (see :class:`UnfinishedGame`), oldest first; with
        ``shards``, only those of their servers (what one process of several resumes, filtered in SQL)."""
        where, params = _on(shards)
        async with self.transaction(write=False) as conn:
            rows = await conn.all(f"SELECT {MATCH_COLS} FROM matches m WHERE status = 'active'{where} ORDER BY id",
                                  params)
            return [await _game(conn, row) for row in rows]

    async def games_left_open(self, shards: Shards | None = None) -> list[UnfinishedGame]:
        """Every match that is over (finished or aborted) whose Discord messages the bot has not closed yet
        (``match_meta.messages`` still lists them: it stopped before it had removed their controls and said the end,
        which empties the list), with what it takes to rebuild it, oldest first; with ``shards``, only those of
        their servers."""
        where, params = _on(shards)
        async with self.transaction(write=False) as conn:
            rows = await conn.all(
                f"SELECT {MATCH_COLS} FROM matches m WHERE status <> 'active'{where} AND EXISTS "
                "(SELECT 1 FROM match_meta x WHERE x.match_id = m.id AND x.messages <> '{}') ORDER BY id", params)
            return [await _game(conn, row) for row in rows]


def _on(shards: Shards | None) -> tuple[str, list[int]]:
    """`` AND`` the matches' servers are on ``shards`` (every server for None)."""
    cond, params = on_shards(shards, "m.guild_id")
    return f" AND {cond}", params


async def _game(conn: Connection, row: Sequence[Any]) -> UnfinishedGame:
    info = await _match_info(conn, row)
    hands = await conn.all(f"SELECT {HAND_COLS} FROM hands WHERE match_id = ? ORDER BY number", (row[0],))
    actions = await read_actions(conn, row[0])
    state_hash, hash_seq = info.start_hash, None
    for a in reversed(actions):
        if a.state_hash is not None:
            state_hash, hash_seq = a.state_hash, a.seq
            break
    return UnfinishedGame(info, tuple(_hand(h) for h in hands), tuple(actions), state_hash, hash_seq)

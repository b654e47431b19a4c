"""What several topics of the store write or filter the same way: JSON text, audit rows, players, the
leaderboard roll-ups, and :class:`Where`, the one builder of the period / variant / source filters.

Every function here runs inside a transaction the caller holds (``async with store.transaction() as conn``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from .backend import Connection
from .errors import StoreError
from .models import LedgerRow, to_ms

#: milliseconds in a UTC day: ``board_days.day`` is ``at // DAY_MS``
DAY_MS = 86_400_000
#: the ``source`` filter of the boards and records: every hand, those played on Discord, those recorded in person
SOURCE_FILTERS = ("all", "played", "in_person")


def dumps(value: Any) -> str:
    """JSON as the store keeps it: compact, keys sorted, Chinese kept as such."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def ms_or_none(at: datetime | None) -> int | None:
    return None if at is None else to_ms(at)


def check_source(source: str) -> None:
    if source not in SOURCE_FILTERS:
        raise StoreError("bad_setting_value", field="source", value=source, allowed=", ".join(SOURCE_FILTERS))


class Where:
    """A conjunction of conditions and their parameters, only for the bounds there are (an open end adds nothing,
    so the database ranges over its indexes and no parameter appears untyped)::

        w = Where().eq("l.guild_id", g).opt_eq("l.variant", variant).range("l.at", lo, hi).source("l.", source)
        await conn.all(f"SELECT ... FROM ledger l WHERE {w}", w.params)

    >>> w = Where().eq("guild_id", 1).opt_eq("variant", None).range("at", 5, None).source("", "played")
    >>> str(w), w.params
    ('guild_id = ? AND at >= ? AND source = ?', [1, 5, 'played'])
    >>> str(Where())
    '1 = 1'
    """

    def __init__(self) -> None:
        self.conds: list[str] = []
        self.params: list[Any] = []

    def add(self, cond: str, *params: Any) -> Where:
        self.conds.append(cond)
        self.params.extend(params)
        return self

    def eq(self, column: str, value: Any) -> Where:
        return self.add(f"{column} = ?", value)

    def opt_eq(self, column: str, value: Any) -> Where:
        """``column = value``, or nothing when ``value`` is None (every value)."""
        return self if value is None else self.eq(column, value)

    def range(self, column: str, lo: int | None, hi: int | None) -> Where:
        """``[lo, hi)`` in milliseconds; None is open-ended."""
        if lo is not None:
            self.add(f"{column} >= ?", lo)
        if hi is not None:
            self.add(f"{column} < ?", hi)
        return self

    def source(self, prefix: str, source: str) -> Where:
        """The ledger rows of one source (``prefix``: the ledger's alias with its dot, or ``""``); ``all``: every
        row."""
        return self if source == "all" else self.add(f"{prefix}source = ?", source)

    def correction_source(self, source: str) -> Where:
        """Correction rows kept by a source filter: ``all`` keeps every row; ``played`` / ``in_person`` keep the
        voids of hands of that source (an adjustment belongs to no hand: ``all`` only)."""
        if source == "all":
            return self
        return self.add("correction_id IN (SELECT c.id FROM corrections c JOIN ledger l ON l.hand_id = c.hand_id "
                        "AND l.seat = 0 WHERE l.source = ?)", source)

    def __str__(self) -> str:
        return " AND ".join(self.conds) if self.conds else "1 = 1"


async def audit(conn: Connection, guild_id: int, user_id: int, field: str, old: Any, new: Any, ms: int) -> None:
    """One ``settings_audit`` row: who changed ``field`` from ``old`` to ``new`` (JSON, None kept as NULL)."""
    await conn.execute(
        "INSERT INTO settings_audit (guild_id, user_id, field, old_value, new_value, changed_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (guild_id, user_id, field, None if old is None else dumps(old), None if new is None else dumps(new), ms),
    )


async def upsert_player(conn: Connection, user_id: int, name: str, ms: int) -> None:
    """Remember (or refresh) a Discord user's display name."""
    await conn.execute(
        "INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, "
        "updated_at = excluded.updated_at",
        (user_id, name, ms),
    )


async def upsert_player_seen(conn: Connection, user_id: int, name: str, seen_ms: int) -> None:
    """Remember a display name as Discord showed it at ``seen_ms`` (earlier than now: a record's names are taken when
    it is proposed): it replaces a name the store saw before then, never one it learnt since (a rename meanwhile)."""
    await conn.execute(
        "INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, ?) "
        "ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, "
        "updated_at = excluded.updated_at WHERE players.updated_at < excluded.updated_at",
        (user_id, name, seen_ms),
    )


async def ensure_player(conn: Connection, user_id: int, ms: int) -> None:
    """A row for a player whose name is not known (their id stands in for it); an existing name is kept."""
    await conn.execute(
        "INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, ?) ON CONFLICT (user_id) DO NOTHING",
        (user_id, str(user_id), ms),
    )


async def add_to_boards(conn: Connection, guild_id: int, variant: str, ms: int,
                        rows: Sequence[tuple[int | None, LedgerRow]]) -> None:
    """Add the human seats' results to the leaderboard roll-ups (all time, and the UTC day of ``ms``). The rows are
    taken in the order of the players' ids, so two settlements sharing players (PostgreSQL runs them at once) lock
    those rows in the same order and never wait on each other in a circle."""
    stats = sorted(
        (player, 1, int(r.won), int(r.self_draw), int(r.deal_in), int(r.drawn), r.hand_value if r.won else 0,
         r.amount)
        for player, r in rows
        if player is not None
    )
    add = (
        "hands = {t}.hands + excluded.hands, wins = {t}.wins + excluded.wins, "
        "self_draws = {t}.self_draws + excluded.self_draws, deal_ins = {t}.deal_ins + excluded.deal_ins, "
        "draws = {t}.draws + excluded.draws, net = {t}.net + excluded.net, "
        "biggest = CASE WHEN excluded.biggest > {t}.biggest THEN excluded.biggest ELSE {t}.biggest END"
    )
    await conn.executemany(
        "INSERT INTO board_totals (guild_id, variant, player_id, hands, wins, self_draws, deal_ins, draws, "
        "biggest, net) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, variant, player_id) "
        "DO UPDATE SET " + add.format(t="board_totals"),
        [(guild_id, variant, *st) for st in stats],
    )
    await conn.executemany(
        "INSERT INTO board_days (guild_id, variant, day, player_id, hands, wins, self_draws, deal_ins, draws, "
        "biggest, net) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, variant, day, player_id) "
        "DO UPDATE SET " + add.format(t="board_days"),
        [(guild_id, variant, ms // DAY_MS, *st) for st in stats],
    )

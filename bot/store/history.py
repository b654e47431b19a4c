"""A player's hand history on a server and loading a stored hand as a replay (issue 14, read side).

- :func:`player_hands` / :func:`count_player_hands`: the settled hands a member sat in on one server, newest first,
  with their own result (from the ledger: the one place results are written).
- :func:`load_hand`: a replay code -> the match it names and the :class:`engine.replay.HandReplay` of that hand.
  A hand played in person (``/record``) has no replay (``in_person``). A code of another server is refused as if it did not exist (``replay_unknown``), so a code tells nothing about
  other servers; a hand still in play is refused by the engine (``hand_in_play``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from engine.replay import HandReplay, encode_code

from .errors import StoreError
from .models import MatchInfo, from_ms, to_ms
from .sqlite import Store, _completes
from .tables import engine_settings, players_for


class HandUnavailable(Exception):
    """A replay code the viewer cannot open: ``reason`` ``unknown`` (no such hand on this server, or aborted) or
    ``in_play`` (not over yet). The cogs word it (``bot.i18n``)."""

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(f"{reason}: {code}")
        self.reason = reason
        self.code = code


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One settled hand of a player: the hand, when it ended, the variant and the player's own ledger row."""

    hand_id: int
    match_id: int
    number: int  # 0-based hand number in its match
    variant: str
    at: datetime
    seat: int
    amount: int
    won: bool
    self_draw: bool
    deal_in: bool
    drawn: bool
    hand_value: int
    source: str = "played"  # 'in_person': recorded with /record (no replay)

    @property
    def code(self) -> str:
        """The hand's replay code."""
        return encode_code(self.match_id, self.number)


_WHERE = "FROM ledger l JOIN hands h ON h.id = l.hand_id WHERE l.guild_id = ? AND l.player_id = ?"


async def player_hands(store: Store, guild_id: int, player_id: int, limit: int = 10, offset: int = 0
                       ) -> list[HistoryRow]:
    """``player_id``'s settled hands on ``guild_id``, newest first (``limit`` from ``offset``)."""
    async with store._tx(write=False) as conn:
        cur = await conn.execute(
            "SELECT h.id, h.match_id, h.number, l.variant, COALESCE(h.ended_at, l.at), l.seat, l.amount, l.won, "
            f"l.self_draw, l.deal_in, l.drawn, l.hand_value, l.source {_WHERE} "
            "ORDER BY COALESCE(h.ended_at, l.at) DESC, h.id DESC LIMIT ? OFFSET ?",
            (guild_id, player_id, limit, offset))
        rows = await cur.fetchall()
    return [HistoryRow(r[0], r[1], r[2], r[3], from_ms(r[4]), r[5], r[6], bool(r[7]), bool(r[8]), bool(r[9]),
                       bool(r[10]), r[11], r[12]) for r in rows]  # type: ignore[arg-type]


async def count_player_hands(store: Store, guild_id: int, player_id: int) -> int:
    async with store._tx(write=False) as conn:
        cur = await conn.execute(f"SELECT COUNT(*) {_WHERE}", (guild_id, player_id))
        row = await cur.fetchone()
    return int(row[0]) if row else 0


def is_in_person(match: MatchInfo) -> bool:
    """A match written by a confirmed ``/record`` (bot.store.records): its seed names the record."""
    return str(match.seed).startswith("in-person:")


async def load_hand(store: Store, guild_id: int, match_id: int, hand_no: int, code: str
                    ) -> tuple[MatchInfo, HandReplay]:
    """The match named by a decoded replay code and the replay of its hand, for a viewer on ``guild_id``."""
    try:
        match = await store.match(match_id)
    except StoreError:
        raise HandUnavailable("unknown", code) from None
    if match.guild_id != guild_id:
        raise HandUnavailable("unknown", code)
    if is_in_person(match):
        raise HandUnavailable("in_person", code)  # recorded with /record: no actions, nothing to replay
    hands = {h.number: h for h in await store.hands(match_id)}
    hand = hands.get(hand_no)
    if hand is None or hand.status == "aborted":
        raise HandUnavailable("unknown", code)
    if hand.status != "finished":
        raise HandUnavailable("in_play", code)
    settings, legacy = engine_settings(match.settings)
    actions = [json.loads(a.action) for a in await store.actions(match_id)]
    replay = HandReplay.build(match.variant, match.seed, settings, actions, hand_no,
                              legacy or players_for(match.seats))
    return match, replay


# ---------------------------------------------------------------------------------------------------------------
# the replay setting (migration 0005): audited in settings_audit like every other setting


async def replays_show_all_hands(store: Store, guild_id: int) -> bool:
    """``replays_show_all_hands`` of the server (the declared default when never set)."""
    from bot.settings import REPLAYS_SHOW_ALL_HANDS_DEFAULT

    async with store._tx(write=False) as conn:
        cur = await conn.execute("SELECT replays_show_all_hands FROM memory_settings WHERE guild_id = ?",
                                 (guild_id,))
        row = await cur.fetchone()
    return REPLAYS_SHOW_ALL_HANDS_DEFAULT if row is None else bool(row[0])


@_completes
async def set_replays_show_all_hands(store: Store, guild_id: int, user_id: int, value: bool,
                                     at: datetime | None = None) -> bool:
    """Set ``replays_show_all_hands``; one ``settings_audit`` row when it changes. Returns the value in force."""
    from .group import _audit

    if not isinstance(value, bool):
        raise StoreError("bad_setting_value", field="replays_show_all_hands", value=value, allowed="true, false")
    old = await replays_show_all_hands(store, guild_id)
    if old == value:
        return old
    ms = to_ms(at)
    async with store._tx() as conn:
        await conn.execute(
            "INSERT INTO memory_settings (guild_id, replays_show_all_hands, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (guild_id) DO UPDATE SET replays_show_all_hands = excluded.replays_show_all_hands, "
            "updated_at = excluded.updated_at", (guild_id, int(value), ms))
        await _audit(conn, guild_id, user_id, "replays_show_all_hands", old, value, ms)
    return value

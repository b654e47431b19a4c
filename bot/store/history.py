"""A player's hand history on a server and loading a stored hand as a replay (issue 14, read side).

- :func:`player_hands` / :func:`count_player_hands`: the settled hands a member sat in on one server, newest first,
  with their own result (from the ledger: the one place results are written), together with the corrections
  (issue 15): a voided hand carries its void (reason, who, when), and an adjustment between members is an entry of
  its own. Paging and counts include the adjustments (:func:`history_counts` breaks the count down).
- :func:`load_hand`: a replay code -> the match it names and the :class:`engine.replay.HandReplay` of that hand.
  A hand played in person (``/record``) has no replay (``in_person``). A code of another server is refused as if it did not exist (``replay_unknown``), so a code tells nothing about
  other servers; a hand still in play is refused by the engine (``hand_in_play``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from bot.settings import REPLAYS_SHOW_ALL_HANDS_DEFAULT
from engine.replay import HandReplay, encode_code

from .database import completes
from .errors import StoreError
from .models import MatchInfo, from_ms, to_ms
from .sql import audit
from .store import Store
from .tables import bot_meta, engine_settings, players_for


class HandUnavailable(Exception):
    """A replay code the viewer cannot open: ``reason`` ``unknown`` (no such hand on this server, or aborted) or
    ``in_play`` (not over yet). The cogs word it (``bot.i18n``)."""

    def __init__(self, reason: str, code: str) -> None:
        super().__init__(f"{reason}: {code}")
        self.reason = reason
        self.code = code


@dataclass(frozen=True, slots=True)
class Voided:
    """The correction that voided a hand (``/correct void``): why, who posted it and when."""

    correction_id: int
    reason: str
    user_id: int
    posted_at: datetime


@dataclass(frozen=True, slots=True)
class HistoryRow:
    """One settled hand of a player: the hand, when it ended, the variant and the player's own ledger row;
    ``voided`` when a correction cancelled it (its 子 then count for nothing)."""

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
    voided: Voided | None = None

    @property
    def code(self) -> str:
        """The hand's replay code."""
        return encode_code(self.match_id, self.number)


@dataclass(frozen=True, slots=True)
class AdjustmentRow:
    """An adjustment (``/correct adjust``) that moved ``amount`` 子 to (positive) or from (negative) the player:
    its own entry in the player's history."""

    correction_id: int
    variant: str
    at: datetime
    amount: int
    other_id: int | None  # the member on the other side
    reason: str
    user_id: int  # who posted it


HistoryEntry = HistoryRow | AdjustmentRow


@dataclass(frozen=True, slots=True)
class HistoryCount:
    """How many entries a player's history has: settled hands (``voided`` of them cancelled) and adjustments."""

    hands: int
    voided: int
    adjustments: int

    @property
    def total(self) -> int:
        return self.hands + self.adjustments


# A player's history is their ledger rows (each with the void that cancelled it, if any) and their rows of
# adjustments, in one time order. A void is not an entry of its own: it shows on the hand it cancels.
_HANDS = ("SELECT 0 AS kind, h.id AS id, h.match_id, h.number, l.variant, COALESCE(h.ended_at, l.at) AS at, l.seat, "
          "l.amount, l.won, l.self_draw, l.deal_in, l.drawn, l.hand_value, c.id, c.reason, c.user_id, c.posted_at, "
          "NULL, l.source FROM ledger l JOIN hands h ON h.id = l.hand_id LEFT JOIN corrections c ON c.hand_id = l.hand_id "
          "WHERE l.guild_id = ? AND l.player_id = ?")
_ADJUSTMENTS = ("SELECT 1, c.id, NULL, NULL, c.variant, c.at, r.seat, r.amount, 0, 0, 0, 0, 0, c.id, c.reason, "
                "c.user_id, c.posted_at, (SELECT o.player_id FROM correction_rows o WHERE o.correction_id = c.id "
                "AND o.seat <> r.seat), 'played' FROM correction_rows r JOIN corrections c ON c.id = r.correction_id "
                "WHERE c.kind = 'adjust' AND r.guild_id = ? AND r.player_id = ?")


def _entry(r: Any) -> HistoryEntry:
    if r[0] == 1:
        return AdjustmentRow(r[1], r[4], from_ms(r[5]), r[7], r[17], r[14], r[15])
    voided = Voided(r[13], r[14], r[15], from_ms(r[16])) if r[13] is not None else None
    return HistoryRow(r[1], r[2], r[3], r[4], from_ms(r[5]), r[6], r[7], bool(r[8]), bool(r[9]), bool(r[10]),
                      bool(r[11]), r[12], source=r[18], voided=voided)


async def player_hands(store: Store, guild_id: int, player_id: int, limit: int = 10, offset: int = 0
                       ) -> list[HistoryEntry]:
    """``player_id``'s history on ``guild_id``, newest first (``limit`` from ``offset``): their settled hands
    (:class:`HistoryRow`, with ``voided`` set on a hand a correction cancelled) and the adjustments that moved 子
    to or from them (:class:`AdjustmentRow`)."""
    async with store.transaction(write=False) as conn:
        rows = await conn.all(
            f"SELECT * FROM ({_HANDS} UNION ALL {_ADJUSTMENTS}) AS entries ORDER BY 6 DESC, 1 DESC, 2 DESC "
            "LIMIT ? OFFSET ?", (guild_id, player_id, guild_id, player_id, limit, offset))
    return [_entry(r) for r in rows]


async def history_counts(store: Store, guild_id: int, player_id: int) -> HistoryCount:
    """How many hands (and voided hands) and adjustments ``player_id`` has on ``guild_id``."""
    async with store.transaction(write=False) as conn:
        hands = await conn.one(
            "SELECT COUNT(*), COUNT(c.id) FROM ledger l LEFT JOIN corrections c ON c.hand_id = l.hand_id "
            "WHERE l.guild_id = ? AND l.player_id = ?", (guild_id, player_id))
        adjustments = await conn.one(
            "SELECT COUNT(*) FROM correction_rows r JOIN corrections c ON c.id = r.correction_id "
            "WHERE c.kind = 'adjust' AND r.guild_id = ? AND r.player_id = ?", (guild_id, player_id))
    assert hands is not None and adjustments is not None  # COUNT(*) always answers one row
    return HistoryCount(int(hands[0]), int(hands[1]), int(adjustments[0]))


async def count_player_hands(store: Store, guild_id: int, player_id: int) -> int:
    """How many entries :func:`player_hands` pages through: hands and adjustments."""
    return (await history_counts(store, guild_id, player_id)).total


async def hand_voided(store: Store, match_id: int, hand_no: int) -> Voided | None:
    """The correction that voided hand ``hand_no`` of a match, if one did (a replay says so)."""
    async with store.transaction(write=False) as conn:
        row = await conn.one(
            "SELECT c.id, c.reason, c.user_id, c.posted_at FROM corrections c JOIN hands h ON h.id = c.hand_id "
            "WHERE h.match_id = ? AND h.number = ?", (match_id, hand_no))
    return None if row is None else Voided(row[0], row[1], row[2], from_ms(row[3]))


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
    match = await _ai_seats_named(store, match)
    settings, legacy = engine_settings(match.settings)
    actions = [json.loads(a.action) for a in await store.actions(match_id)]
    replay = HandReplay.build(match.variant, match.seed, settings, actions, hand_no,
                              legacy or players_for(match.seats))
    return match, replay


async def _ai_seats_named(store: Store, match: MatchInfo) -> MatchInfo:
    """``match`` with its AI seats named as its table named them (电脑1, 电脑2 ...: the match's metadata, stored when
    it started), so that a replay tells them apart as the players did; as it was when nothing names them."""
    if all(s.display_name is not None for s in match.seats if s.player_id is None):
        return match
    try:
        meta, _ = await store.match_meta(match.match_id)
    except StoreError:
        return match
    names = kept_seat_names(meta, match.settings, len(match.seats))
    if not any(names):
        return match
    return replace(match, seats=tuple(
        replace(s, display_name=names[i]) if s.player_id is None and s.display_name is None and names[i] else s
        for i, s in enumerate(match.seats)))


def kept_seat_names(meta: dict[str, Any], settings: dict[str, Any], n: int) -> list[str | None]:
    """The names the match's table gave its ``n`` seats (its metadata, stored when it started: 电脑1 ... for the AI
    seats), None where it kept none (all None when it kept no list of that length).

    >>> kept_seat_names({"seats": [{"name": "AI 1"}, {}]}, {}, 2), kept_seat_names({}, {"bot": {"seats": []}}, 2)
    (['AI 1', None], [None, None])
    """
    seats = bot_meta(meta, settings).get("seats")
    if not isinstance(seats, list) or len(seats) != n:
        return [None] * n
    return [str(sm["name"]) if isinstance(sm, dict) and sm.get("name") else None for sm in seats]


@dataclass(frozen=True, slots=True)
class AiSeat:
    """An AI seat of a match, for a text that names it as its table did."""

    name: str | None  # the name its table gave it (电脑1, AI 2 ...: the match's metadata); None: the match kept none
    number: int  # its number among the match's AI seats in seat order (a table's numbering: ``tables.ai_name``)


async def ai_seats(store: Store, match_id: int | None = None, *, hand_id: int | None = None) -> dict[int, AiSeat]:
    """The AI seats of a match (or of the match ``hand_id`` was played in): seat -> :class:`AiSeat`. An AI seat's
    difficulty (``ledger.ai``) is no name: a text names the seat by this."""
    async with store.transaction(write=False) as conn:
        if match_id is None:
            row = await conn.one("SELECT match_id FROM hands WHERE id = ?", (hand_id,))
            if row is None:
                return {}
            match_id = row[0]
        seats = await conn.all("SELECT seat, player_id FROM match_seats WHERE match_id = ? ORDER BY seat", (match_id,))
        meta = await conn.one("SELECT meta FROM match_meta WHERE match_id = ?", (match_id,))
        settings = await conn.one("SELECT settings FROM matches WHERE id = ?", (match_id,))
    names = kept_seat_names(json.loads(meta[0]) if meta else {}, json.loads(settings[0]) if settings else {},
                            len(seats))
    out: dict[int, AiSeat] = {}
    for i, (seat, player) in enumerate(seats):
        if player is None:
            out[seat] = AiSeat(names[i], len(out) + 1)
    return out


@dataclass(frozen=True)
class MatchActions:
    """What a match review replays: the match's engine settings, players, actions and the numbers of its finished
    hands (a hand still in play or aborted is left out)."""

    settings: dict[str, Any]
    players: tuple[str, ...]
    actions: list[Any]
    finished: frozenset[int]

    def hands(self, match: MatchInfo) -> list[HandReplay]:
        """The finished hands, replayed in one pass (CPU work: call it in a thread)."""
        return [r for r in HandReplay.each(match.variant, match.seed, self.settings, self.actions, self.players)
                if r.hand_no in self.finished]


async def load_match_actions(store: Store, match: MatchInfo) -> MatchActions:
    """The stored actions of ``match`` (checked by the caller: its server, not played in person) for a review."""
    finished = frozenset(h.number for h in await store.hands(match.match_id) if h.status == "finished")
    settings, legacy = engine_settings(match.settings)
    actions = [json.loads(a.action) for a in await store.actions(match.match_id)]
    return MatchActions(settings, tuple(legacy or players_for(match.seats)), actions, finished)


# ---------------------------------------------------------------------------------------------------------------
# the replay setting (migration 0005): audited in settings_audit like every other setting


async def replays_show_all_hands(store: Store, guild_id: int) -> bool:
    """``replays_show_all_hands`` of the server (the declared default when never set)."""
    async with store.transaction(write=False) as conn:
        row = await conn.one("SELECT replays_show_all_hands FROM memory_settings WHERE guild_id = ?", (guild_id,))
    return REPLAYS_SHOW_ALL_HANDS_DEFAULT if row is None else bool(row[0])


@completes
async def set_replays_show_all_hands(store: Store, guild_id: int, user_id: int, value: bool,
                                     at: datetime | None = None) -> bool:
    """Set ``replays_show_all_hands``; one ``settings_audit`` row when it changes. Returns the value in force."""
    if not isinstance(value, bool):
        raise StoreError("bad_setting_value", field="replays_show_all_hands", value=value, allowed="true, false")
    old = await replays_show_all_hands(store, guild_id)
    if old == value:
        return old
    await write_memory_setting(store, guild_id, user_id, "replays_show_all_hands", old, value, at)
    return value


# the columns of memory_settings (migrations 0005, 0006); a missing row or column value is the declared default
_MEMORY_COLUMNS = ("replays_show_all_hands", "record_expiry_hours")


async def write_memory_setting(store: Store, guild_id: int, user_id: int, column: str, old: Any, value: Any,
                               at: datetime | None = None) -> None:
    """Store one ``memory_settings`` value of a server (the other columns keep theirs, or their defaults) with its
    ``settings_audit`` row, in one transaction. ``column`` is one of :data:`_MEMORY_COLUMNS`; the caller checked
    ``value``."""
    if column not in _MEMORY_COLUMNS:
        raise ValueError(column)
    ms = to_ms(at)
    async with store.transaction() as conn:
        await conn.execute(
            f"INSERT INTO memory_settings (guild_id, {column}, updated_at) VALUES (?, ?, ?) "
            f"ON CONFLICT (guild_id) DO UPDATE SET {column} = excluded.{column}, updated_at = excluded.updated_at",
            (guild_id, int(value), ms))
        await audit(conn, guild_id, user_id, column, old, value, ms)

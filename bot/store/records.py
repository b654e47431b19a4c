"""Hands played in person and recorded with ``/record`` (issue 14, migration 0006_in_person).

A record is a proposal: the hand as typed, scored by the engine with the server's variant and house rules, the four
players by seat (0-3 = E S W N, E the dealer) and what each would pay or get. Nothing reaches the ledger until every
paying player has confirmed (or a Manage Server member confirmed for them); then ONE transaction writes a finished
match of one hand, its ledger rows with ``source = 'in_person'`` (so every ledger reader counts it: boards, stats,
history, export, corrections), the leaderboard roll-ups and the record's status. A rejection or the expiry changes
nothing but the record::

    rec = await records.propose(store, guild_id=g, channel_id=c, proposer_id=u, hand_text="...", variant="hefei",
                                rules={...}, situation={...}, hand_value=12, lang="en",
                                seats=[SeatProposal(player, name, amount, stack, jiao), ...], at=now)
    await records.set_message(store, rec.record_id, message_id)
    out = await records.confirm(store, g, rec.record_id, user, manager=False, at=now)   # out.outcome: see Outcome
    out = await records.reject(store, g, rec.record_id, user, manager=False, at=now)
    expired = await records.expire_due(store, at=now)        # pending records past expires_at -> 'expired'

A hand recorded wrongly is fixed by voiding it (``/correct void``) and recording it again *in place of* the voided
hand (``replaces_hand``, migration 0014_record_replaces): once confirmed, such a record is dated at the voided hand's
time, so it counts in the season and week the hand was played in, whenever the mistake is noticed.

The proposal, each confirmation, a rejection and an expiry each write a ``settings_audit`` row (field ``record``,
``record_confirm``, ``record_reject``, ``record_expire``) in the same transaction. A record of another server is
"unknown" (``StoreError('unknown_record')``): a forged id tells nothing about other servers.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from bot.settings import RECORD_EXPIRY_HOURS, RECORD_EXPIRY_HOURS_DEFAULT
from engine.errors import EngineError
from engine.tiles import format_tiles, parse_hand, tile_name

from .backend import Connection
from .database import completes
from .errors import StoreError
from .history import Voided, write_memory_setting
from .models import LedgerRow, Shards, from_ms, on_shards, splits_jiao, to_ms
from .sql import add_to_boards, audit, dumps, upsert_player_seen
from .store import Store

#: Ledger sources (``ledger.source``) and the filter values of ``/leaderboard`` and ``/stats``.
SOURCES = ("played", "in_person")
SOURCE_FILTERS = ("all", "played", "in_person")
#: The bot's own id in audit rows it writes by itself (an expiry).
SYSTEM_USER = 0
#: A pending record whose card is not posted that long after it was proposed lost its card (the bot stopped between
#: storing it and posting the card): the scheduler posts the card (:func:`cardless`), and a new proposal of the same
#: hand replaces the record instead of being refused. Longer than posting a card takes, with discord.py's retries.
CARD_GRACE = timedelta(minutes=2)


@dataclass(frozen=True, slots=True)
class SeatProposal:
    player_id: int
    display_name: str
    amount: int
    stack_amount: int = 0
    jiao_amount: int = 0


@dataclass(frozen=True, slots=True)
class RecordSeat:
    seat: int
    player_id: int
    display_name: str
    amount: int
    stack_amount: int
    jiao_amount: int
    confirmed_by: int | None
    confirmed_at: datetime | None

    @property
    def confirmed(self) -> bool:
        return self.confirmed_at is not None


@dataclass(frozen=True, slots=True)
class Replaced:
    """The voided hand a record is made in place of, and when that hand was played (where the record counts)."""

    hand_id: int
    at: datetime


@dataclass(frozen=True, slots=True)
class Replacement:
    """The confirmed record made in place of a voided hand, and the hand it wrote."""

    record_id: int
    hand_id: int


@dataclass(frozen=True, slots=True)
class Record:
    record_id: int
    guild_id: int
    channel_id: int
    message_id: int | None
    proposer_id: int
    hand_text: str
    variant: str
    rules: dict[str, Any]
    situation: dict[str, Any]
    hand_value: int
    lang: str
    status: str
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None
    decided_by: int | None
    match_id: int | None
    hand_id: int | None
    seats: tuple[RecordSeat, ...]
    voided: Voided | None = None  # the correction that voided the hand it wrote (``/correct void``)
    replaces: Replaced | None = None  # the voided hand this record is made in place of (``/record replaces:``)
    replaced_by: Replacement | None = None  # the confirmed record made in place of its own hand, once voided

    @property
    def winner(self) -> int:
        return int(self.situation["winner"])

    @property
    def discarder(self) -> int | None:
        d = self.situation.get("discarder")
        return None if d is None else int(d)

    @property
    def payer_seats(self) -> tuple[int, ...]:
        """The seats whose confirmation is needed: every seat that pays (the winner when nobody pays)."""
        paying = tuple(s.seat for s in self.seats if s.amount < 0)
        return paying or (self.winner,)

    @property
    def waiting(self) -> tuple[RecordSeat, ...]:
        """Payers who have not confirmed yet."""
        return tuple(s for s in self.seats if s.seat in self.payer_seats and not s.confirmed)

    def seat_of(self, player_id: int) -> int | None:
        return next((s.seat for s in self.seats if s.player_id == player_id), None)

    def involves(self, player_id: int) -> bool:
        return self.seat_of(player_id) is not None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a press did. ``outcome``: ``confirmed`` (this press counted; others still wait), ``settled`` (the last
    confirmation: written to the ledger), ``already`` (this player had confirmed), ``not_payer`` (not a paying player
    and not a manager), ``rejected`` (this press rejected it), ``not_involved`` (not one of the four, not a manager),
    ``closed`` (the record is no longer pending: see ``record.status``)."""

    outcome: str
    record: Record
    seats: tuple[int, ...] = ()  # the seats this press confirmed


_COLS = ("id, guild_id, channel_id, message_id, proposer_id, hand_text, variant, rules, situation, hand_value, lang, "
         "status, created_at, expires_at, decided_at, decided_by, match_id, hand_id, replaces_hand")


async def _load(conn: Connection, guild_id: int, record_id: int) -> Record:
    rows = await conn.all(f"SELECT {_COLS} FROM records WHERE id = ? AND guild_id = ?",
                                       (record_id, guild_id))
    if not rows:
        raise StoreError("unknown_record", record_id=record_id)
    r = list(rows)[0]
    seats = await conn.all(
        "SELECT seat, player_id, display_name, amount, stack_amount, jiao_amount, confirmed_by, confirmed_at "
        "FROM record_seats WHERE record_id = ? ORDER BY seat", (record_id,))
    void = by = None
    if r[17] is not None:
        void = await conn.one("SELECT id, reason, user_id, posted_at FROM corrections WHERE hand_id = ?", (r[17],))
        by = await _replacement(conn, r[17])
    replaces = None if r[18] is None else Replaced(r[18], from_ms(await _played_at(conn, r[18])))
    return Record(r[0], r[1], r[2], r[3], r[4], r[5], r[6], json.loads(r[7]), json.loads(r[8]), r[9], r[10], r[11],
                  from_ms(r[12]), from_ms(r[13]), from_ms(r[14]), r[15], r[16], r[17],
                  tuple(RecordSeat(s[0], s[1], s[2], s[3], s[4], s[5], s[6], from_ms(s[7])) for s in seats),
                  None if void is None else Voided(void[0], void[1], void[2], from_ms(void[3])), replaces, by)


async def _played_at(conn: Connection, hand_id: int) -> int:
    """When a settled hand counts: its ledger rows' time (a void is dated there too)."""
    row = await conn.one("SELECT at FROM ledger WHERE hand_id = ? ORDER BY seat LIMIT 1", (hand_id,))
    assert row is not None  # a record names a settled hand only (checked when it is proposed)
    return int(row[0])


async def _replacement(conn: Connection, hand_id: int) -> Replacement | None:
    """The confirmed record made in place of ``hand_id``, if there is one."""
    row = await conn.one("SELECT id, hand_id FROM records WHERE replaces_hand = ? AND status = 'confirmed'",
                         (hand_id,))
    return None if row is None else Replacement(int(row[0]), int(row[1]))


# ---------------------------------------------------------------------------------------------------------------
# the expiry setting (memory_settings.record_expiry_hours): audited in settings_audit like every other setting


async def record_expiry_hours(store: Store, guild_id: int) -> int:
    """How many hours a record of this server waits for its confirmations (the declared default when never set)."""
    async with store.transaction(write=False) as conn:
        rows = list(await conn.all(
            "SELECT record_expiry_hours FROM memory_settings WHERE guild_id = ?", (guild_id,)))
    return RECORD_EXPIRY_HOURS_DEFAULT if not rows else int(rows[0][0])


@completes
async def set_record_expiry_hours(store: Store, guild_id: int, user_id: int, hours: int,
                                  at: datetime | None = None) -> int:
    """Set ``record_expiry_hours`` (checked against :data:`bot.settings.RECORD_EXPIRY_HOURS`); one audit row when it
    changes. Returns the value in force. Records already proposed keep their expiry."""
    if hours not in RECORD_EXPIRY_HOURS:
        raise StoreError("bad_setting_value", field="record_expiry_hours", value=hours,
                         allowed=str(RECORD_EXPIRY_HOURS))
    old = await record_expiry_hours(store, guild_id)
    if old == hours:
        return old
    await write_memory_setting(store, guild_id, user_id, "record_expiry_hours", old, hours, at)
    return hours


# ---------------------------------------------------------------------------------------------------------------
# proposing


def hand_key(text: str) -> str:
    """The hand in one notation however it was typed (Chinese numerals, spaces, tile order), to tell whether two
    records are of the same hand.

    >>> hand_key("二二二万 555m 888m 9m [777z:W] +9m") == hand_key("9m888m555m222m[777z:W]+9m")
    True
    """
    try:
        hand = parse_hand(text)
    except EngineError:
        return "".join(text.split())
    assert hand.win_tile is not None
    return format_tiles(hand.concealed) + "".join(m.notation() for m in hand.melds) + "+" + tile_name(hand.win_tile)


@dataclass(frozen=True, slots=True)
class Duplicate:
    """A record still waiting for confirmations of the same hand: its id, whether its card was posted, and when it
    was proposed."""

    record_id: int
    card: bool
    created_ms: int

    def orphan(self, ms: int) -> bool:
        """Without a card past :data:`CARD_GRACE` at ``ms``: its card was lost, and a new proposal replaces it."""
        return not self.card and self.created_ms <= ms - int(CARD_GRACE.total_seconds() * 1000)


async def _pending_duplicate(conn: Connection, guild_id: int, variant: str, hand_text: str,
                             situation: dict[str, Any], players: Sequence[int], ms: int) -> Duplicate | None:
    """A record of this server still waiting for confirmations of the same hand: the same variant, players in the
    same seats, hand, winner, discarder and situation (two players recording the hand they just played, a form
    sent twice; the other seats' melds, ``others``, are not part of it). None if there is none."""
    rows = await conn.all(
        "SELECT id, hand_text, situation, message_id, created_at FROM records WHERE guild_id = ? "
        "AND status = 'pending' AND expires_at > ? AND variant = ? ORDER BY id", (guild_id, ms, variant))
    key = hand_key(hand_text)
    same = {k: v for k, v in json.loads(dumps(situation)).items() if k != "others"}  # with the melds or without
    for rid, text, sit, message_id, created in rows:
        if {k: v for k, v in json.loads(sit).items() if k != "others"} != same or hand_key(text) != key:
            continue
        seated = await conn.all("SELECT player_id FROM record_seats WHERE record_id = ? ORDER BY seat",
                                             (rid,))
        if [p for (p,) in seated] == list(players):
            return Duplicate(int(rid), message_id is not None, int(created))
    return None


async def pending_duplicate(store: Store, *, guild_id: int, variant: str, hand_text: str, situation: dict[str, Any],
                            players: Sequence[int], at: datetime | None = None) -> Duplicate | None:
    """A record of this server still waiting for confirmations of the same hand (see :func:`propose`); a record
    whose card was lost (:meth:`Duplicate.orphan`) is none: the new proposal replaces it."""
    ms = to_ms(at)
    async with store.transaction(write=False) as conn:
        dup = await _pending_duplicate(conn, guild_id, variant, hand_text, situation, players, ms)
    return None if dup is None or dup.orphan(ms) else dup


async def _check_replaceable(conn: Connection, guild_id: int, hand_id: int, ms: int) -> None:
    """Refuse (``StoreError``) a hand that a new record cannot be made in place of: not a hand of this server
    (``unknown_hand``), a hand that still counts (``replaces_not_void``: it would count twice), a hand already made
    again (``replaces_done``) or whose record made again still waits (``replaces_waiting``)."""
    h = await conn.one("SELECT m.guild_id FROM hands h JOIN matches m ON m.id = h.match_id WHERE h.id = ?", (hand_id,))
    if h is None or h[0] != guild_id:  # another server's hand is "unknown" here, as /correct void says
        raise StoreError("unknown_hand", hand_id=hand_id)
    if await conn.one("SELECT id FROM corrections WHERE hand_id = ?", (hand_id,)) is None:
        raise StoreError("replaces_not_void", hand_id=hand_id)
    done = await _replacement(conn, hand_id)
    if done is not None:
        raise StoreError("replaces_done", hand_id=hand_id, record_id=done.record_id, new_hand=done.hand_id)
    waiting = await conn.one("SELECT id FROM records WHERE replaces_hand = ? AND status = 'pending' AND expires_at > ? "
                             "ORDER BY id LIMIT 1", (hand_id, ms))
    if waiting is not None:
        raise StoreError("replaces_waiting", hand_id=hand_id, record_id=waiting[0])


async def check_replaceable(store: Store, guild_id: int, hand_id: int, at: datetime | None = None) -> None:
    """What :func:`propose` checks of ``replaces_hand`` (see :func:`_check_replaceable`), read only: ``/record``
    refuses a wrong hand before it answers; the proposal checks again under the lock."""
    async with store.transaction(write=False) as conn:
        await _check_replaceable(conn, guild_id, hand_id, to_ms(at))


@completes
async def propose(store: Store, *, guild_id: int, channel_id: int, proposer_id: int, hand_text: str, variant: str,
                  rules: dict[str, Any], situation: dict[str, Any], hand_value: int, lang: str,
                  seats: Sequence[SeatProposal], at: datetime | None = None,
                  replaces_hand: int | None = None) -> Record:
    """Store a pending record (audited); every paying seat still has to confirm, the proposer's too. Refused (nothing
    written): not four seats, a player twice, amounts not zero-sum, in Wuhu an amount that is not its stack + 交
    amounts, and the same hand of the same players still waiting as another record
    (``StoreError('record_duplicate', record_id=..., card=...)``: two proposals at once are told apart under the
    lock). A record of the same hand whose card was lost (:meth:`Duplicate.orphan`) is withdrawn in the same
    transaction (audited as by the bot) and replaced by this one.

    ``replaces_hand``: a voided hand of this server this record is made in place of (refused as
    :func:`check_replaceable` says); once confirmed, the record counts at that hand's time, not at its own."""
    if len(seats) != 4:
        raise StoreError("bad_seats", detail=f"{len(seats)} seats")
    if len({s.player_id for s in seats}) != 4:
        raise StoreError("bad_seats", detail="a player sits twice")
    for column in ("amount", "stack_amount", "jiao_amount"):
        values = [getattr(s, column) for s in seats]
        if sum(values) != 0:
            raise StoreError("not_zero_sum", column=column, values=values)
    if splits_jiao(variant) and any(s.amount != s.stack_amount + s.jiao_amount for s in seats):
        raise StoreError("wuhu_split", seat=0, amount=0, stack=0, jiao=0)
    ms = to_ms(at)
    hours = await record_expiry_hours(store, guild_id)
    expires = ms + int(timedelta(hours=hours).total_seconds() * 1000)
    async with store.transaction() as conn:
        dup = await _pending_duplicate(conn, guild_id, variant, hand_text, situation, [s.player_id for s in seats], ms)
        if dup is not None and not dup.orphan(ms):
            raise StoreError("record_duplicate", record_id=dup.record_id, card=dup.card)
        if replaces_hand is not None:
            await _check_replaceable(conn, guild_id, replaces_hand, ms)
        if dup is not None:
            await _withdraw(conn, guild_id, dup.record_id, ms, "its card was lost; the hand was recorded again")
        rid = await conn.insert(
            "INSERT INTO records (guild_id, channel_id, proposer_id, hand_text, variant, rules, situation, hand_value, "
            "lang, status, created_at, expires_at, replaces_hand) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)",
            (guild_id, channel_id, proposer_id, hand_text, variant, dumps(rules), dumps(situation), hand_value,
             lang, ms, expires, replaces_hand))
        await conn.executemany(
            "INSERT INTO record_seats (record_id, seat, player_id, display_name, amount, stack_amount, jiao_amount, "
            "confirmed_by, confirmed_at) VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL)",
            [(rid, i, s.player_id, s.display_name, s.amount, s.stack_amount, s.jiao_amount)
             for i, s in enumerate(seats)])
        amounts = " ".join(f"<@{s.player_id}> {s.amount:+d}" for s in seats)
        instead = "" if replaces_hand is None else f" (in place of hand #{replaces_hand})"
        await audit(conn, guild_id, proposer_id, "record", None, f"#{rid} {variant} {hand_text}: {amounts}{instead}",
                    ms)
        return await _load(conn, guild_id, rid)


@completes
async def set_message(store: Store, guild_id: int, record_id: int, message_id: int, *, shown: Record | None = None,
                      stale: bool = False) -> int | None:
    """Remember the public card of a record (its buttons are edited away when it closes), unless one is remembered
    already (a press on a card Discord took whose id was not stored remembers that card first): the card remembered,
    None for an unknown record. ``shown``: the record as this card was drawn; the card is marked stale (the scheduler
    redraws it) when the record changed meanwhile, as :func:`mark_card` does; ``stale``: marked stale in any case (a
    card found again, whose state is not known)."""
    async with store.transaction(durable=False) as conn:
        stale = stale or await _changed_since(conn, guild_id, record_id, shown)
        mark = ", card_stale = 1" if stale else ""
        await conn.execute(f"UPDATE records SET message_id = ?{mark} WHERE id = ? AND guild_id = ? "
                           "AND message_id IS NULL", (message_id, record_id, guild_id))
        row = await conn.one("SELECT message_id FROM records WHERE id = ? AND guild_id = ?",
                                     (record_id, guild_id))
        return None if row is None else row[0]


async def get(store: Store, guild_id: int, record_id: int) -> Record:
    """A record of this server (``StoreError('unknown_record')`` for anything else)."""
    async with store.transaction(write=False) as conn:
        return await _load(conn, guild_id, record_id)


async def for_match(store: Store, match_id: int) -> Record | None:
    """The confirmed record that wrote ``match_id`` (None: a match played on Discord)."""
    async with store.transaction(write=False) as conn:
        rows = list(await conn.all("SELECT guild_id, id FROM records WHERE match_id = ?", (match_id,)))
        return await _load(conn, rows[0][0], rows[0][1]) if rows else None


# ---------------------------------------------------------------------------------------------------------------
# confirming, rejecting, expiring


def _closed(rec: Record, ms: int) -> bool:
    return rec.status != "pending" or to_ms(rec.expires_at) <= ms


@completes
async def confirm(store: Store, guild_id: int, record_id: int, user_id: int, *, manager: bool,
                  at: datetime | None = None) -> Outcome:
    """A press of Confirm. A paying player confirms their own payment; a Manage Server member confirms every
    payment still waiting. The press that completes the confirmations writes the hand to the ledger in the same
    transaction (all or nothing: a failure leaves the record pending, as it was before the press)."""
    ms = to_ms(at)
    async with store.transaction() as conn:
        rec = await _load(conn, guild_id, record_id)
        if _closed(rec, ms):
            return Outcome("closed", rec)
        mine = [s.seat for s in rec.waiting if s.player_id == user_id]
        seats = [s.seat for s in rec.waiting] if manager else mine
        if not seats:
            own = rec.seat_of(user_id)
            if own is not None and own in rec.payer_seats:
                return Outcome("already", rec)
            return Outcome("not_payer", rec)
        for seat in seats:
            await conn.execute("UPDATE record_seats SET confirmed_by = ?, confirmed_at = ? WHERE record_id = ? "
                               "AND seat = ? AND confirmed_at IS NULL", (user_id, ms, record_id, seat))
            player = rec.seats[seat].player_id
            how = "self" if player == user_id else "for"
            await audit(conn, guild_id, user_id, "record_confirm", None, f"#{record_id} seat {seat} <@{player}> "
                                                                            f"({how})", ms)
        await conn.execute("UPDATE records SET card_stale = 1 WHERE id = ?", (record_id,))  # see mark_card
        rec = await _load(conn, guild_id, record_id)
        if rec.waiting:
            return Outcome("confirmed", rec, tuple(seats))
        await _settle(store, conn, rec, user_id, ms)
        return Outcome("settled", await _load(conn, guild_id, record_id), tuple(seats))


async def _settle(store: Store, conn: Connection, rec: Record, user_id: int, ms: int) -> None:
    """Write the confirmed record as a finished match of one hand with its ledger rows (source ``in_person``). A
    record made in place of a voided hand is dated at that hand's time, and the voided hand's card (if it was
    recorded too) is redrawn to name it."""
    # the hand counts when it was played (proposed), like a played hand at its end; made again in place of a voided
    # hand, where that hand counted (its season, its week: a correction does not move a hand to the day it was made)
    at = to_ms(rec.created_at)
    if rec.replaces is not None:
        done = await _replacement(conn, rec.replaces.hand_id)  # one record in place of a hand, never two
        if done is not None:
            raise StoreError("replaces_done", hand_id=rec.replaces.hand_id, record_id=done.record_id,
                             new_hand=done.hand_id)
        at = to_ms(rec.replaces.at)
        await conn.execute("UPDATE records SET card_stale = 1 WHERE hand_id = ? AND guild_id = ?",
                           (rec.replaces.hand_id, rec.guild_id))
    for s in rec.seats:  # the names as proposed, unless the store learnt a newer one since
        await upsert_player_seen(conn, s.player_id, s.display_name, to_ms(rec.created_at))
    match_id = await conn.insert(
        "INSERT INTO matches (guild_id, channel_id, variant, settings, seed, status, started_at, ended_at) "
        "VALUES (?, ?, ?, ?, ?, 'finished', ?, ?)",
        (rec.guild_id, rec.channel_id, rec.variant, dumps({"in_person": rec.record_id, "rules": rec.rules}),
         f"in-person:{rec.record_id}", at, at))
    await conn.executemany(
        "INSERT INTO match_seats (match_id, seat, player_id, ai, total, stack_total, jiao_total) "
        "VALUES (?, ?, ?, NULL, ?, ?, ?)",
        [(match_id, s.seat, s.player_id, s.amount, s.stack_amount, s.jiao_amount) for s in rec.seats])
    hand_id = await conn.insert(
        "INSERT INTO hands (match_id, number, seed, status, started_at, ended_at) VALUES (?, 0, ?, 'finished', ?, ?)",
        (match_id, f"in-person:{rec.record_id}", at, at))
    rows = [LedgerRow(seat=s.seat, amount=s.amount, stack_amount=s.stack_amount, jiao_amount=s.jiao_amount,
                      won=s.seat == rec.winner, self_draw=s.seat == rec.winner and rec.discarder is None,
                      deal_in=s.seat == rec.discarder, drawn=False,
                      hand_value=rec.hand_value if s.seat == rec.winner else 0) for s in rec.seats]
    await conn.executemany(
        "INSERT INTO ledger (hand_id, seat, match_id, guild_id, variant, player_id, ai, amount, stack_amount, "
        "jiao_amount, won, self_draw, deal_in, drawn, hand_value, at, source) "
        "VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'in_person')",
        [(hand_id, r.seat, match_id, rec.guild_id, rec.variant, rec.seats[r.seat].player_id, r.amount,
          r.stack_amount, r.jiao_amount, int(r.won), int(r.self_draw), int(r.deal_in), int(r.drawn), r.hand_value,
          at) for r in rows])
    await add_to_boards(conn, rec.guild_id, rec.variant, at,
                               [(rec.seats[r.seat].player_id, r) for r in rows])
    changed = await conn.execute(
        "UPDATE records SET status = 'confirmed', decided_at = ?, decided_by = ?, match_id = ?, hand_id = ? "
        "WHERE id = ? AND status = 'pending'", (ms, user_id, match_id, hand_id, rec.record_id))
    if changed != 1:  # cannot happen (one writer at a time, or SERIALIZABLE); never write a hand twice
        raise StoreError("record_closed", record_id=rec.record_id)
    instead = "" if rec.replaces is None else f", in place of hand #{rec.replaces.hand_id}"
    await audit(conn, rec.guild_id, user_id, "record_confirm", None,
                 f"#{rec.record_id} confirmed: hand #{hand_id} (match {match_id}) in the ledger{instead}", ms)


@completes
async def reject(store: Store, guild_id: int, record_id: int, user_id: int, *, manager: bool,
                 at: datetime | None = None) -> Outcome:
    """A press of Reject by one of the four players (or a Manage Server member): the record closes, nothing is
    written to the ledger."""
    ms = to_ms(at)
    async with store.transaction() as conn:
        rec = await _load(conn, guild_id, record_id)
        if _closed(rec, ms):
            return Outcome("closed", rec)
        if not (manager or rec.involves(user_id)):
            return Outcome("not_involved", rec)
        await conn.execute("UPDATE records SET status = 'rejected', decided_at = ?, decided_by = ?, card_stale = 1 "
                           "WHERE id = ? AND status = 'pending'", (ms, user_id, record_id))
        await audit(conn, guild_id, user_id, "record_reject", None, f"#{record_id} rejected", ms)
        return Outcome("rejected", await _load(conn, guild_id, record_id))


async def _withdraw(conn: Connection, guild_id: int, record_id: int, ms: int, why: str) -> None:
    """Close a pending record as rejected by the bot (:data:`SYSTEM_USER`), audited with ``why``."""
    await conn.execute("UPDATE records SET status = 'rejected', decided_at = ?, decided_by = ?, card_stale = 1 "
                       "WHERE id = ? AND status = 'pending'", (ms, SYSTEM_USER, record_id))
    await audit(conn, guild_id, SYSTEM_USER, "record_reject", None, f"#{record_id} withdrawn: {why}", ms)


@completes
async def expire_due(store: Store, at: datetime | None = None) -> list[Record]:
    """Close every pending record whose time is up (status ``expired``, audited as by the bot); returns them."""
    ms = to_ms(at)
    async with store.transaction(write=False) as conn:  # the common case, nothing due, takes no write lock
        if not list(await conn.all(
                "SELECT 1 FROM records WHERE status = 'pending' AND expires_at <= ? LIMIT 1", (ms,))):
            return []
    async with store.transaction() as conn:
        due = list(await conn.all(
            "SELECT guild_id, id FROM records WHERE status = 'pending' AND expires_at <= ? ORDER BY id", (ms,)))
        out = []
        for guild_id, rid in due:
            await conn.execute("UPDATE records SET status = 'expired', decided_at = ?, card_stale = 1 WHERE id = ?",
                               (ms, rid))
            await audit(conn, guild_id, SYSTEM_USER, "record_expire", None, f"#{rid} expired", ms)
            out.append(await _load(conn, guild_id, rid))
        return out



def card_state(rec: Record) -> tuple[str, tuple[bool, ...], bool, bool]:
    """What a record's card shows that a press, the expiry or a correction changes: its status, who has confirmed,
    whether its hand was voided and whether it was made again."""
    return rec.status, tuple(s.confirmed for s in rec.seats), rec.voided is not None, rec.replaced_by is not None


@completes
async def mark_card(store: Store, guild_id: int, record_id: int, *, stale: bool, shown: Record | None = None,
                    message_id: int | None = None) -> None:
    """Remember whether a record's card shows an older state (``stale``: the scheduler redraws it).

    Every change of a record marks its card stale in the change's own transaction (a press, the expiry, a void of
    its hand: ``bot.store.group.void_hand``, a record made in its hand's place), so a bot killed before the card is
    edited redraws it after the restart. ``stale=False`` with ``shown`` (the record as
    the card was just drawn) clears the mark only if the record is still in that state: an edit that Discord
    applied after a newer one (two presses at once, a press racing the scheduler) leaves the card to the next
    tick. ``message_id``: the card's message, remembered if the record has none yet (its id could not be stored
    when it was posted)."""
    async with store.transaction(durable=False) as conn:
        stale = stale or await _changed_since(conn, guild_id, record_id, shown)
        await conn.execute("UPDATE records SET card_stale = ?, message_id = COALESCE(message_id, ?) "
                           "WHERE id = ? AND guild_id = ?", (int(stale), message_id, record_id, guild_id))


async def _changed_since(conn: Connection, guild_id: int, record_id: int, shown: Record | None) -> bool:
    """Whether the record is no longer in the state ``shown`` (a card drawn from it); False without ``shown``."""
    return shown is not None and card_state(await _load(conn, guild_id, record_id)) != card_state(shown)


async def waiting_before(store: Store, guild_id: int, before: datetime, limit: int = 1, *,
                         since: datetime | None = None) -> list[int]:
    """The ids of (at most ``limit``) records of the server waiting for confirmations that, once confirmed, count
    before ``before`` (and from ``since`` on: a season, a week), oldest first; a record counts when proposed, or at the
    voided hand's time when made in its place (``_settle``). The weekly report and a final board wait for them."""
    lo = -(2**62) if since is None else to_ms(since)
    async with store.transaction(write=False) as conn:
        return [r[0] for r in await conn.all(
            "SELECT id FROM (SELECT r.id, COALESCE((SELECT l.at FROM ledger l WHERE l.hand_id = r.replaces_hand "
            "ORDER BY l.seat LIMIT 1), r.created_at) AS counts_at FROM records r "
            "WHERE r.guild_id = ? AND r.status = 'pending') w WHERE counts_at >= ? AND counts_at < ? "
            "ORDER BY id LIMIT ?", (guild_id, lo, to_ms(before), limit))]


async def stale_cards(store: Store, shards: Shards | None = None) -> list[Record]:
    """Records whose card shows an older state, oldest first; with ``shards``, only their servers' (the process
    holding a shard's lease redraws its cards, no other)."""
    where, args = on_shards(shards, "guild_id")
    async with store.transaction(write=False) as conn:
        rows = list(await conn.all(
            f"SELECT guild_id, id FROM records WHERE card_stale = 1 AND message_id IS NOT NULL AND {where} "
            "ORDER BY id", args))
        return [await _load(conn, g, r) for g, r in rows]


async def cardless(store: Store, *, before: datetime | None, shards: Shards | None = None) -> list[Record]:
    """Pending records whose card was never posted (or whose card's id was never stored), proposed before
    ``before`` (None: any), oldest first: the scheduler posts their cards. With ``shards``, only their servers'."""
    where, args = on_shards(shards, "guild_id")
    async with store.transaction(write=False) as conn:
        rows = list(await conn.all(
            "SELECT guild_id, id FROM records WHERE status = 'pending' AND message_id IS NULL AND created_at < ? "
            f"AND {where} ORDER BY id", (2**62 if before is None else to_ms(before), *args)))
        return [await _load(conn, g, r) for g, r in rows]

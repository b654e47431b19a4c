"""Running a group: time zone, weekly report, seasons, corrections, exports and head-to-head (migration 0003_group).

Functions of an open :class:`~bot.store.Store` (its connection, lock and transactions), kept in their own module::

    gs = await group.group_settings(store, guild_id)                  # time zone, weekly report, walk-through
    await group.set_timezone(store, guild_id, user_id, "Europe/Paris")  # audited; unknown zone: StoreError
    new, ended = await group.start_season(store, guild_id, user_id, "Spring", ends_at=None, channel_id=c)
    c = await group.void_hand(store, guild_id, user_id, hand_id, "misclick")
    c = await group.adjust(store, guild_id, user_id, payer, payee, 20, "wuhu", "side bet")
    rows = await group.board(store, guild_id, "wuhu", since, until)   # the ledger + corrections, any range
    stats = await group.player_record(store, guild_id, player_id, variant, since, until)

Every admin action writes a ``settings_audit`` row (field ``timezone``, ``weekly_report``, ``season``, ``void``,
``adjust``, ``export``) in the same transaction as the change.

**Corrections** never edit a ledger row. A correction is a row of ``corrections`` (who, why, when) with rows of
``correction_rows`` that sum to zero: a void negates its hand's rows (counters too: hands -1, wins -won ...), an
adjustment moves ``amount`` 子 from one member to another (no hand counted). Every reader below adds them to the
ledger, so a voided hand counts for nothing and an adjustment moves the net. A void counts at its hand's time (the
hand nets to nothing in every period that held it); an adjustment at the moment it was posted.

**Ranges** are half-open ``[since, until)``; ``None`` is open-ended. Seasons are ``[started_at, ended_at)``.
"""

from __future__ import annotations

import zoneinfo
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Any

import aiosqlite

from bot.zones import known_zone, zone_or_default

from .errors import StoreError
from .models import BoardRow, PlayerStats, from_ms, to_ms
from .sqlite import DAY_MS, Store, _completes, _dumps

#: The default time zone of a server: the bot's players are in Anhui.
DEFAULT_TIMEZONE = "Asia/Shanghai"
MAX_NAME = 100  # a season's name
MAX_REASON = 200  # a correction's reason
MAX_ADJUSTMENT = 1_000_000  # 子: a typo guard


# ---------------------------------------------------------------------------------------------------------------
# records


@dataclass(frozen=True, slots=True)
class GroupSettings:
    guild_id: int
    timezone: str = DEFAULT_TIMEZONE
    report_channel: int | None = None  # None = no weekly report
    report_weekday: int = 0  # 0 = Monday
    last_report_week: int | None = None  # date ordinal of the report day last posted
    welcomed_at: datetime | None = None

    @property
    def tz(self) -> tzinfo:
        """The server's zone; the default one if this host does not know the stored name (bot.zones)."""
        return zone_or_default(self.timezone, DEFAULT_TIMEZONE)


@dataclass(frozen=True, slots=True)
class Season:
    season_id: int
    guild_id: int
    number: int
    name: str
    channel_id: int | None
    started_at: datetime
    ends_at: datetime | None
    ended_at: datetime | None
    final_posted_at: datetime | None
    created_by: int

    @property
    def open(self) -> bool:
        return self.ended_at is None

    @property
    def until(self) -> datetime | None:
        """The end of its range: when it ended, else its planned end (None: open-ended)."""
        return self.ended_at or self.ends_at


@dataclass(frozen=True, slots=True)
class CorrectionRow:
    seat: int
    player_id: int | None
    ai: str | None
    amount: int
    stack_amount: int
    jiao_amount: int
    hands: int
    wins: int


@dataclass(frozen=True, slots=True)
class Correction:
    correction_id: int
    guild_id: int
    kind: str  # 'void' | 'adjust'
    hand_id: int | None
    variant: str
    reason: str
    user_id: int
    at: datetime
    posted_at: datetime
    rows: tuple[CorrectionRow, ...]


@dataclass(frozen=True, slots=True)
class HandSummary:
    """A settled hand, for pickers (autocomplete) and reports."""

    hand_id: int
    match_id: int
    number: int
    variant: str
    at: datetime
    winner: str | None  # display name of the winner (None: a draw or an AI)
    value: int
    voided: bool


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two players' hands together: ``hands`` settled hands (not voided) where both sat; ``a_net`` / ``b_net`` what
    each won or lost over them; ``a_to_b`` / ``b_to_a`` the 子 that passed between them (see :func:`pair_flow`),
    adjustments between them included; ``a_wins`` / ``b_wins`` their wins in those hands."""

    hands: int
    a_wins: int
    b_wins: int
    a_net: int
    b_net: int
    a_to_b: int
    b_to_a: int

    @property
    def net_to_a(self) -> int:
        return self.b_to_a - self.a_to_b


@dataclass(frozen=True, slots=True)
class ExportRow:
    """One line of the ledger export: a seat of a hand, or a row of a correction."""

    kind: str  # 'hand' | 'void' | 'adjust'
    entry_id: int  # the hand id, or the correction id
    hand_id: int | None
    match_id: int | None
    variant: str
    at: datetime
    player_id: int | None
    player_name: str | None
    ai: str | None
    seat: int
    amount: int
    stack_amount: int
    jiao_amount: int
    won: bool
    self_draw: bool
    deal_in: bool
    drawn: bool
    hand_value: int
    reason: str
    posted_by: int | None
    source: str = "played"  # 'played' | 'in_person' (a correction: the source of the hand it voids, else '')


@dataclass(frozen=True, slots=True)
class WeekSummary:
    """What the weekly report shows: the board (all variants together), the biggest hand, and who paid or took the
    most 交 (Wuhu) and who won the biggest total of 番/子 values."""

    board: tuple[BoardRow, ...]
    hands: int
    biggest: HandSummary | None
    most_jiao: tuple[int, str | None, int] | None  # (player, name, 交 taken)
    most_value: tuple[int, str | None, int] | None  # (player, name, sum of winning hand values)


# ---------------------------------------------------------------------------------------------------------------
# helpers


def zone(name: str) -> tzinfo:
    """The ``zoneinfo`` zone for an IANA name; ``StoreError('bad_timezone')`` for anything else.

    >>> zone("Asia/Shanghai").key
    'Asia/Shanghai'
    >>> try:
    ...     zone("Mars/Olympus")
    ... except StoreError as e:
    ...     print(e.code)
    bad_timezone
    """
    if not known_zone(name):  # only the portable IANA names (bot.zones), not a host's posix/ or right/ files
        raise StoreError("bad_timezone", name=name)
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError) as exc:
        raise StoreError("bad_timezone", name=name) from exc


def pair_flow(amounts: dict[Any, int], a: Any, b: Any) -> int:
    """子 that passed from ``a`` to ``b`` in one zero-sum hand whose ledger holds only each seat's total.

    The ledger keeps one total per seat, not who paid whom. Definition: every loser pays each winner in proportion
    to that winner's share of all the gains, ``flow(a->b) = loss(a) * gain(b) / total gains`` (rounded to the
    nearest 子). With one winner (every ordinary hand) this is exactly what ``a`` paid ``b``.

    >>> pair_flow({1: -8, 2: 8, 3: 0, 4: 0}, 1, 2), pair_flow({1: -8, 2: 8, 3: 0, 4: 0}, 2, 1)
    (8, 0)
    >>> pair_flow({1: -6, 2: 4, 3: 4, 4: -2}, 1, 2)
    3
    """
    loss = -amounts.get(a, 0)
    gain = amounts.get(b, 0)
    gains = sum(v for v in amounts.values() if v > 0)
    if loss <= 0 or gain <= 0 or gains == 0:
        return 0
    return (2 * loss * gain + gains) // (2 * gains)


def _ms(at: datetime | None) -> int | None:
    return None if at is None else to_ms(at)


async def _audit(conn: aiosqlite.Connection, guild_id: int, user_id: int, field: str, old: Any, new: Any,
                 ms: int) -> None:
    await conn.execute(
        "INSERT INTO settings_audit (guild_id, user_id, field, old_value, new_value, changed_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        (guild_id, user_id, field, None if old is None else _dumps(old), None if new is None else _dumps(new), ms),
    )


async def _one(conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
    rows = await conn.execute_fetchall(sql, params)
    return rows[0] if rows else None


async def _all(conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
    return list(await conn.execute_fetchall(sql, params))


# ---------------------------------------------------------------------------------------------------------------
# group settings


async def _group_settings(conn: aiosqlite.Connection, guild_id: int) -> GroupSettings:
    row = await _one(conn, "SELECT timezone, report_channel, report_weekday, last_report_week, welcomed_at "
                           "FROM group_settings WHERE guild_id = ?", (guild_id,))
    if row is None:
        return GroupSettings(guild_id)
    return GroupSettings(guild_id, row[0], row[1], row[2], row[3], from_ms(row[4]))


async def _ensure_row(conn: aiosqlite.Connection, guild_id: int, ms: int) -> None:
    await conn.execute("INSERT INTO group_settings (guild_id, updated_at) VALUES (?, ?) "
                       "ON CONFLICT (guild_id) DO NOTHING", (guild_id, ms))


async def group_settings(store: Store, guild_id: int) -> GroupSettings:
    """The server's group settings (defaults when never changed)."""
    async with store._tx(write=False) as conn:
        return await _group_settings(conn, guild_id)


@_completes
async def set_timezone(store: Store, guild_id: int, user_id: int, name: str,
                       at: datetime | None = None) -> GroupSettings:
    """Set the server's time zone (an IANA name, checked with ``zoneinfo``); audited when it changes."""
    zone(name)
    ms = to_ms(at)
    async with store._tx() as conn:
        old = await _group_settings(conn, guild_id)
        if old.timezone == name:
            return old
        await _ensure_row(conn, guild_id, ms)
        await conn.execute("UPDATE group_settings SET timezone = ?, updated_at = ? WHERE guild_id = ?",
                           (name, ms, guild_id))
        await _audit(conn, guild_id, user_id, "timezone", old.timezone, name, ms)
        return await _group_settings(conn, guild_id)


@_completes
async def set_weekly_report(store: Store, guild_id: int, user_id: int, channel_id: int | None, weekday: int,
                            first_week: int | None, at: datetime | None = None) -> GroupSettings:
    """Turn the weekly report on (a channel and a weekday, 0 = Monday) or off (``channel_id=None``); audited.

    ``first_week`` (a report day's date ordinal) is recorded as already posted, so that turning the report on never
    posts a week that ended before it was asked for."""
    if not isinstance(weekday, int) or not 0 <= weekday <= 6:
        raise StoreError("bad_weekday", weekday=weekday)
    ms = to_ms(at)
    async with store._tx() as conn:
        old = await _group_settings(conn, guild_id)
        before = {"channel": old.report_channel, "weekday": old.report_weekday}
        after = {"channel": channel_id, "weekday": weekday}
        if before == after:
            return old
        await _ensure_row(conn, guild_id, ms)
        last = old.last_report_week
        if channel_id is not None and first_week is not None:
            last = max(last or first_week, first_week)
        await conn.execute("UPDATE group_settings SET report_channel = ?, report_weekday = ?, last_report_week = ?, "
                           "updated_at = ? WHERE guild_id = ?", (channel_id, weekday, last, ms, guild_id))
        await _audit(conn, guild_id, user_id, "weekly_report", before, after, ms)
        return await _group_settings(conn, guild_id)


async def report_servers(store: Store) -> list[GroupSettings]:
    """Every server with the weekly report on."""
    async with store._tx(write=False) as conn:
        rows = await _all(conn, "SELECT guild_id FROM group_settings WHERE report_channel IS NOT NULL "
                                "ORDER BY guild_id")
        return [await _group_settings(conn, r[0]) for r in rows]


@_completes
async def claim_report_week(store: Store, guild_id: int, week: int) -> bool:
    """Record that the report of ``week`` (its report day's date ordinal) is being posted. False when that week or
    a later one was already claimed: a week is never posted twice."""
    async with store._tx() as conn:
        cur = await conn.execute(
            "UPDATE group_settings SET last_report_week = ? WHERE guild_id = ? AND report_channel IS NOT NULL "
            "AND (last_report_week IS NULL OR last_report_week < ?)", (week, guild_id, week))
        return cur.rowcount == 1


@_completes
async def mark_welcomed(store: Store, guild_id: int, at: datetime | None = None) -> bool:
    """Record that the first-time walk-through was posted; False if it already had been."""
    ms = to_ms(at)
    async with store._tx() as conn:
        await _ensure_row(conn, guild_id, ms)
        cur = await conn.execute("UPDATE group_settings SET welcomed_at = ? WHERE guild_id = ? "
                                 "AND welcomed_at IS NULL", (ms, guild_id))
        return cur.rowcount == 1


@_completes
async def unmark_welcomed(store: Store, guild_id: int) -> None:
    """Forget a walk-through that could not be posted after all (so that a later join may post it)."""
    async with store._tx() as conn:
        await conn.execute("UPDATE group_settings SET welcomed_at = NULL WHERE guild_id = ?", (guild_id,))


# ---------------------------------------------------------------------------------------------------------------
# seasons

_SEASON_COLS = "id, guild_id, number, name, channel_id, started_at, ends_at, ended_at, final_posted_at, created_by"


def _season(r: Sequence[Any]) -> Season:
    return Season(r[0], r[1], r[2], r[3], r[4], from_ms(r[5]), from_ms(r[6]), from_ms(r[7]), from_ms(r[8]), r[9])


async def seasons(store: Store, guild_id: int) -> list[Season]:
    """A server's seasons, newest first."""
    async with store._tx(write=False) as conn:
        rows = await _all(conn, f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? ORDER BY number DESC",
                          (guild_id,))
    return [_season(r) for r in rows]


async def season(store: Store, guild_id: int, number: int) -> Season | None:
    async with store._tx(write=False) as conn:
        row = await _one(conn, f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? AND number = ?",
                         (guild_id, number))
    return _season(row) if row else None


async def current_season(store: Store, guild_id: int, at: datetime | None = None) -> Season | None:
    """The season in play at ``at``: open, and its planned end (if any) not yet reached."""
    ms = to_ms(at)
    async with store._tx(write=False) as conn:
        row = await _one(conn, f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? AND ended_at IS NULL "
                               "AND (ends_at IS NULL OR ends_at > ?) ORDER BY number DESC", (guild_id, ms))
    return _season(row) if row else None


@_completes
async def start_season(store: Store, guild_id: int, user_id: int, name: str, *, ends_at: datetime | None,
                       channel_id: int | None, at: datetime | None = None) -> tuple[Season, Season | None]:
    """Start season N+1 now, ending the open one (if any) at the same instant; returns (new, ended). Audited.

    Refused (nothing written): an empty or too long name, an end date not after now."""
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME:
        raise StoreError("bad_season_name", name=name)
    ms = to_ms(at)
    end_ms = _ms(ends_at)
    if end_ms is not None and end_ms <= ms:
        raise StoreError("season_end_past", ends_at=ends_at)
    async with store._tx() as conn:
        open_row = await _one(conn, f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? AND ended_at IS NULL",
                              (guild_id,))
        ended = None
        if open_row is not None:
            # an open season whose planned end has passed ends then; otherwise now
            stop = open_row[6] if open_row[6] is not None and open_row[6] <= ms else ms
            await conn.execute("UPDATE seasons SET ended_at = ? WHERE id = ?", (stop, open_row[0]))
            ended = _season((*open_row[:7], stop, *open_row[8:]))
        top = await _one(conn, "SELECT COALESCE(MAX(number), 0) FROM seasons WHERE guild_id = ?", (guild_id,))
        cur = await conn.execute(
            "INSERT INTO seasons (guild_id, number, name, channel_id, started_at, ends_at, created_by) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", (guild_id, top[0] + 1, name, channel_id, ms, end_ms, user_id))
        row = await _one(conn, f"SELECT {_SEASON_COLS} FROM seasons WHERE id = ?", (cur.lastrowid,))
        new = _season(row)
        await _audit(conn, guild_id, user_id, "season", ended.name if ended else None,
                     f"{new.number}. {new.name}", ms)
    return new, ended


@_completes
async def end_due_seasons(store: Store, at: datetime | None = None) -> list[Season]:
    """Close every open season whose planned end has passed (at its planned end); returns them."""
    ms = to_ms(at)
    async with store._tx() as conn:
        rows = await _all(conn, f"SELECT {_SEASON_COLS} FROM seasons WHERE ended_at IS NULL AND ends_at IS NOT NULL "
                                "AND ends_at <= ? ORDER BY id", (ms,))
        for r in rows:
            await conn.execute("UPDATE seasons SET ended_at = ends_at WHERE id = ?", (r[0],))
    return [_season((*r[:7], r[6], *r[8:])) for r in rows]


async def seasons_to_announce(store: Store) -> list[Season]:
    """Ended seasons whose final board has not been posted yet, oldest first."""
    async with store._tx(write=False) as conn:
        rows = await _all(conn, f"SELECT {_SEASON_COLS} FROM seasons WHERE ended_at IS NOT NULL "
                                "AND final_posted_at IS NULL ORDER BY id")
    return [_season(r) for r in rows]


@_completes
async def mark_season_announced(store: Store, season_id: int, at: datetime | None = None) -> bool:
    """Record that a season's final board was posted; False when it already was (never posted twice)."""
    async with store._tx() as conn:
        cur = await conn.execute("UPDATE seasons SET final_posted_at = ? WHERE id = ? AND final_posted_at IS NULL",
                                 (to_ms(at), season_id))
        return cur.rowcount == 1


# ---------------------------------------------------------------------------------------------------------------
# corrections


async def _correction(conn: aiosqlite.Connection, correction_id: int) -> Correction:
    c = await _one(conn, "SELECT id, guild_id, kind, hand_id, variant, reason, user_id, at, posted_at "
                         "FROM corrections WHERE id = ?", (correction_id,))
    rows = await _all(conn, "SELECT seat, player_id, ai, amount, stack_amount, jiao_amount, hands, wins "
                            "FROM correction_rows WHERE correction_id = ? ORDER BY seat", (correction_id,))
    return Correction(c[0], c[1], c[2], c[3], c[4], c[5], c[6], from_ms(c[7]), from_ms(c[8]),
                      tuple(CorrectionRow(*r) for r in rows))


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason or len(reason) > MAX_REASON:
        raise StoreError("bad_reason", length=len(reason))
    return reason


@_completes
async def void_hand(store: Store, guild_id: int, user_id: int, hand_id: int, reason: str,
                    at: datetime | None = None) -> Correction:
    """Void a settled hand of this server: a correction whose rows negate the hand's ledger rows (dated at the
    hand's time). Audited. Refused (nothing written): an unknown hand, a hand of another server, a hand not
    settled, a hand already voided, an empty reason."""
    reason = _reason(reason)
    ms = to_ms(at)
    async with store._tx() as conn:
        h = await _one(conn, "SELECT h.status, m.guild_id, m.variant, h.number, h.match_id FROM hands h "
                             "JOIN matches m ON m.id = h.match_id WHERE h.id = ?", (hand_id,))
        if h is None or h[1] != guild_id:  # another server's hand is "unknown" here: say nothing about it
            raise StoreError("unknown_hand", hand_id=hand_id)
        if h[0] != "finished":
            raise StoreError("hand_not_settled", hand_id=hand_id)
        if await _one(conn, "SELECT id FROM corrections WHERE hand_id = ?", (hand_id,)) is not None:
            raise StoreError("hand_already_void", hand_id=hand_id)
        rows = await _all(conn, "SELECT seat, player_id, ai, amount, stack_amount, jiao_amount, won, self_draw, "
                                "deal_in, drawn, at FROM ledger WHERE hand_id = ? ORDER BY seat", (hand_id,))
        when = rows[0][10]
        cur = await conn.execute(
            "INSERT INTO corrections (guild_id, kind, hand_id, variant, reason, user_id, at, posted_at) "
            "VALUES (?, 'void', ?, ?, ?, ?, ?, ?)", (guild_id, hand_id, h[2], reason, user_id, when, ms))
        cid = int(cur.lastrowid)
        await conn.executemany(
            "INSERT INTO correction_rows (correction_id, seat, guild_id, variant, player_id, ai, amount, stack_amount, "
            "jiao_amount, hands, wins, self_draws, deal_ins, draws, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?)",
            [(cid, r[0], guild_id, h[2], r[1], r[2], -r[3], -r[4], -r[5], -1, -r[6], -r[7], -r[8], -r[9], when)
             for r in rows])
        await _audit(conn, guild_id, user_id, "void", None, f"#{hand_id} ({h[4]}/{h[3] + 1}): {reason}", ms)
        return await _correction(conn, cid)


@_completes
async def adjust(store: Store, guild_id: int, user_id: int, payer: int, payee: int, amount: int, variant: str,
                 reason: str, *, names: dict[int, str] | None = None, at: datetime | None = None) -> Correction:
    """Move ``amount`` 子 from ``payer`` to ``payee`` (members of this server) in ``variant``'s board: a
    correction of two rows, -amount and +amount. Audited. Refused (nothing written): a zero, negative or huge
    amount, the same member twice, an empty reason. ``names`` refreshes the players' cached display names."""
    reason = _reason(reason)
    if not isinstance(amount, int) or isinstance(amount, bool) or not 0 < amount <= MAX_ADJUSTMENT:
        raise StoreError("bad_amount", amount=amount)
    if payer == payee:
        raise StoreError("same_player", player=payer)
    ms = to_ms(at)
    async with store._tx() as conn:
        for p in (payer, payee):
            name = (names or {}).get(p)
            if name:
                await store._upsert_player(conn, p, name, ms)
            else:
                await conn.execute("INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, ?) "
                                   "ON CONFLICT (user_id) DO NOTHING", (p, str(p), ms))
        cur = await conn.execute(
            "INSERT INTO corrections (guild_id, kind, hand_id, variant, reason, user_id, at, posted_at) "
            "VALUES (?, 'adjust', NULL, ?, ?, ?, ?, ?)", (guild_id, variant, reason, user_id, ms, ms))
        cid = int(cur.lastrowid)
        await conn.executemany(
            "INSERT INTO correction_rows (correction_id, seat, guild_id, variant, player_id, amount, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(cid, 0, guild_id, variant, payer, -amount, ms), (cid, 1, guild_id, variant, payee, amount, ms)])
        await _audit(conn, guild_id, user_id, "adjust", None,
                     f"{amount} 子 <@{payer}> → <@{payee}> ({variant}): {reason}", ms)
        return await _correction(conn, cid)


async def corrections(store: Store, guild_id: int, limit: int = 50) -> list[Correction]:
    """A server's corrections, newest first."""
    async with store._tx(write=False) as conn:
        ids = await _all(conn, "SELECT id FROM corrections WHERE guild_id = ? ORDER BY posted_at DESC, id DESC "
                               "LIMIT ?", (guild_id, limit))
        return [await _correction(conn, r[0]) for r in ids]


async def recent_hands(store: Store, guild_id: int, limit: int = 25, *, hand_id: int | None = None) -> list[HandSummary]:
    """The server's latest settled hands (or the one ``hand_id``), newest first, for a picker."""
    async with store._tx(write=False) as conn:
        rows = await _all(
            conn,
            "SELECT h.id, h.match_id, h.number, m.variant, h.ended_at, "
            " (SELECT COALESCE(p.display_name, l.ai) FROM ledger l LEFT JOIN players p ON p.user_id = l.player_id "
            "  WHERE l.hand_id = h.id AND l.won = 1 ORDER BY l.seat LIMIT 1), "
            " (SELECT MAX(l.hand_value) FROM ledger l WHERE l.hand_id = h.id AND l.won = 1), "
            " (SELECT COUNT(*) FROM corrections c WHERE c.hand_id = h.id) "
            "FROM hands h JOIN matches m ON m.id = h.match_id "
            "WHERE m.guild_id = ? AND h.status = 'finished' AND (? IS NULL OR h.id = ?) "
            "ORDER BY h.ended_at DESC, h.id DESC LIMIT ?",
            (guild_id, hand_id, hand_id, limit))
    return [HandSummary(r[0], r[1], r[2], r[3], from_ms(r[4]), r[5], r[6] or 0, bool(r[7])) for r in rows]


# ---------------------------------------------------------------------------------------------------------------
# boards and stats over any range, corrections included

#: Correction rows kept by a source filter (two parameters: the filter twice): ``all`` keeps every row; ``played`` /
#: ``in_person`` keep the voids of hands of that source (an adjustment belongs to no hand: ``all`` only).
_CORR_SOURCE = (" AND (? = 'all' OR correction_id IN (SELECT c.id FROM corrections c JOIN ledger l "
                "ON l.hand_id = c.hand_id AND l.seat = 0 WHERE l.source = ?))")
_ROLLUP_COLS = "player_id, hands, wins, self_draws, deal_ins, draws, biggest, net"
_RAW_COLS = ("player_id, 1 AS hands, won AS wins, self_draw AS self_draws, deal_in AS deal_ins, drawn AS draws, "
             "CASE WHEN won = 1 THEN hand_value ELSE 0 END AS biggest, amount AS net")


def _range(since: datetime | None, until: datetime | None) -> tuple[int | None, int | None]:
    return _ms(since), _ms(until)


def _check_source(source: str) -> None:
    if source not in ("all", "played", "in_person"):
        raise StoreError("bad_setting_value", field="source", value=source, allowed="all, played, in_person")


async def board(store: Store, guild_id: int, variant: str, since: datetime | None = None,
                until: datetime | None = None, *, limit: int = 10, source: str = "all") -> list[BoardRow]:
    """The leaderboard of ``variant`` over ``[since, until)`` with corrections: players ranked by net 子, then
    wins, then id; AI seats left out; a player whose every hand was voided and who has no adjustment drops out.

    Whole UTC days come from the roll-ups ``finish_hand`` keeps; the partial first and last days from the raw
    ledger; corrections from their rows. The biggest hand ignores voided hands.

    ``source`` ``played`` / ``in_person`` keeps only the hands of that source (and the voids of those hands; an
    adjustment is no hand and counts only in ``all``): read from the raw ledger, as the roll-ups mix both."""
    _check_source(source)
    lo, hi = _range(since, until)
    parts: list[str] = []
    params: list[Any] = []
    if source != "all":
        parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE guild_id = ? AND variant = ? AND source = ? "
                     "AND (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?) AND player_id IS NOT NULL")
        params += [guild_id, variant, source, lo, lo, hi, hi]
    elif lo is None and hi is None:
        parts.append(f"SELECT {_ROLLUP_COLS} FROM board_totals WHERE guild_id = ? AND variant = ?")
        params += [guild_id, variant]
    else:
        first_day = None if lo is None else -(-lo // DAY_MS)
        last_day = None if hi is None else hi // DAY_MS
        if first_day is not None and last_day is not None and first_day >= last_day:
            parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE guild_id = ? AND variant = ? AND at >= ? AND at < ? "
                         "AND player_id IS NOT NULL")
            params += [guild_id, variant, lo, hi]
        else:
            # only the bounds there are, so that SQLite ranges over the primary key (guild, variant, day)
            days = [(" AND day >= ?", first_day), (" AND day < ?", last_day)]
            parts.append(f"SELECT {_ROLLUP_COLS} FROM board_days WHERE guild_id = ? AND variant = ?"
                         + "".join(cond for cond, v in days if v is not None))
            params += [guild_id, variant, *(v for _, v in days if v is not None)]
            if lo is not None:
                parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE guild_id = ? AND variant = ? AND at >= ? "
                             "AND at < ? AND player_id IS NOT NULL")
                params += [guild_id, variant, lo, first_day * DAY_MS]
            if hi is not None:
                parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE guild_id = ? AND variant = ? AND at >= ? "
                             "AND at < ? AND player_id IS NOT NULL")
                params += [guild_id, variant, max(last_day * DAY_MS, lo if lo is not None else -(2**62)), hi]
    parts.append("SELECT player_id, hands, wins, self_draws, deal_ins, draws, 0, amount FROM correction_rows "
                 "WHERE guild_id = ? AND variant = ? AND (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?) "
                 f"AND player_id IS NOT NULL{_CORR_SOURCE}")
    params += [guild_id, variant, lo, lo, hi, hi, source, source]
    union = " UNION ALL ".join(parts)
    async with store._tx(write=False) as conn:
        rows = await _all(
            conn,
            "SELECT b.player_id, p.display_name, b.hands, b.wins, b.self_draws, b.deal_ins, b.draws, b.biggest, b.net "
            "FROM (SELECT player_id, SUM(hands) AS hands, SUM(wins) AS wins, SUM(self_draws) AS self_draws, "
            f"  SUM(deal_ins) AS deal_ins, SUM(draws) AS draws, MAX(biggest) AS biggest, SUM(net) AS net FROM ({union}) u "
            "  GROUP BY player_id) b LEFT JOIN players p ON p.user_id = b.player_id "
            "WHERE b.hands <> 0 OR b.net <> 0 ORDER BY b.net DESC, b.wins DESC, b.player_id LIMIT ?",
            [*params, limit])
        # The roll-ups' MAX cannot forget a voided hand: a player's biggest hand is looked up again (through the
        # per-player index) only when one of their voided wins in the range was as big as the roll-ups say.
        voided: dict[int, int] = {}
        for player, value in await _all(
                conn, "SELECT l.player_id, l.hand_value FROM corrections c JOIN ledger l ON l.hand_id = c.hand_id "
                      "WHERE c.guild_id = ? AND c.variant = ? AND l.won = 1 AND l.player_id IS NOT NULL "
                      "AND (? IS NULL OR l.at >= ?) AND (? IS NULL OR l.at < ?) AND (? = 'all' OR l.source = ?)",
                      (guild_id, variant, lo, lo, hi, hi, source, source)):
            voided[player] = max(voided.get(player, 0), value)
        out = []
        for r in rows:
            row = list(r)
            if row[0] in voided and voided[row[0]] >= row[7]:
                # "+guild_id": not the (guild, variant, at) index, which would scan the whole server's ledger for
                # one player, but the per-player one (player_id, guild_id, at)
                best = await _one(
                    conn, "SELECT MAX(hand_value) FROM ledger WHERE player_id = ? AND +guild_id = ? AND variant = ? "
                          "AND won = 1 AND (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?) AND hand_id NOT IN "
                          "(SELECT hand_id FROM corrections WHERE hand_id IS NOT NULL) AND (? = 'all' OR source = ?)",
                    (row[0], guild_id, variant, lo, lo, hi, hi, source, source))
                row[7] = best[0] or 0
            out.append(BoardRow(*row))
    return out


async def player_record(store: Store, guild_id: int, player_id: int, variant: str | None = None,
                        since: datetime | None = None, until: datetime | None = None, *,
                        source: str = "all") -> PlayerStats:
    """One player's record over ``[since, until)`` (one variant, or all with None) with corrections, and the
    running net after each hand or correction (in time order) for a chart. Voided hands count for nothing.
    ``source``: as for :func:`board`."""
    _check_source(source)
    lo, hi = _range(since, until)
    async with store._tx(write=False) as conn:
        rows = await _all(
            conn,
            "SELECT at, 0, hand_id, amount, 1, won, self_draw, deal_in, drawn, hand_value, "
            "  (SELECT COUNT(*) FROM corrections c WHERE c.hand_id = ledger.hand_id) FROM ledger "
            "WHERE player_id = ? AND guild_id = ? AND (? IS NULL OR variant = ?) AND (? IS NULL OR at >= ?) "
            "AND (? IS NULL OR at < ?) AND (? = 'all' OR source = ?) "
            "UNION ALL SELECT at, 1, correction_id, amount, hands, wins, self_draws, deal_ins, draws, 0, 0 "
            "FROM correction_rows WHERE player_id = ? AND guild_id = ? AND (? IS NULL OR variant = ?) "
            f"AND (? IS NULL OR at >= ?) AND (? IS NULL OR at < ?){_CORR_SOURCE} ORDER BY 1, 2, 3",
            (player_id, guild_id, variant, variant, lo, lo, hi, hi, source, source,
             player_id, guild_id, variant, variant, lo, lo, hi, hi, source, source))
        name = await _one(conn, "SELECT display_name FROM players WHERE user_id = ?", (player_id,))
    running = 0
    series = []
    for r in rows:
        running += r[3]
        series.append((from_ms(r[0]), running))
    return PlayerStats(
        player_id=player_id, display_name=name[0] if name else None,
        hands=sum(r[4] for r in rows), wins=sum(r[5] for r in rows), self_draws=sum(r[6] for r in rows),
        deal_ins=sum(r[7] for r in rows), draws=sum(r[8] for r in rows),
        biggest_hand=max((r[9] for r in rows if r[1] == 0 and r[5] and not r[10]), default=0),
        net=running, series=tuple(series))


async def head_to_head(store: Store, guild_id: int, a: int, b: int, variant: str | None = None,
                       since: datetime | None = None, until: datetime | None = None, *,
                       source: str = "all") -> HeadToHead:
    """``a`` and ``b`` together over ``[since, until)``: the settled, not voided hands where both sat, and the 子
    that passed between them (:func:`pair_flow` per hand, plus the adjustments posted between the two).
    ``source``: as for :func:`board` (adjustments count only in ``all``)."""
    _check_source(source)
    lo, hi = _range(since, until)
    async with store._tx(write=False) as conn:
        rows = await _all(
            conn,
            "SELECT l.hand_id, l.player_id, l.seat, l.amount, l.won FROM ledger l WHERE l.hand_id IN ("
            " SELECT x.hand_id FROM ledger x JOIN ledger y ON y.hand_id = x.hand_id AND y.player_id = ? "
            " WHERE x.player_id = ? AND x.guild_id = ? AND (? IS NULL OR x.variant = ?) "
            " AND (? IS NULL OR x.at >= ?) AND (? IS NULL OR x.at < ?) AND (? = 'all' OR x.source = ?)"
            " AND x.hand_id NOT IN (SELECT hand_id FROM corrections WHERE hand_id IS NOT NULL)) "
            "ORDER BY l.hand_id, l.seat",
            (b, a, guild_id, variant, variant, lo, lo, hi, hi, source, source))
        adjustments = await _all(
            conn,
            "SELECT f.player_id, f.amount FROM correction_rows f JOIN correction_rows g "
            "ON g.correction_id = f.correction_id AND g.seat <> f.seat JOIN corrections c ON c.id = f.correction_id "
            "WHERE c.kind = 'adjust' AND c.guild_id = ? AND f.amount > 0 AND ((f.player_id = ? AND g.player_id = ?) "
            "OR (f.player_id = ? AND g.player_id = ?)) AND (? IS NULL OR c.variant = ?) "
            "AND (? IS NULL OR f.at >= ?) AND (? IS NULL OR f.at < ?) AND ? = 'all'",
            (guild_id, a, b, b, a, variant, variant, lo, lo, hi, hi, source))
    hands: dict[int, dict[Any, int]] = defaultdict(dict)
    wins = {a: 0, b: 0}
    net = {a: 0, b: 0}
    for hand_id, player, seat, amount, won in rows:
        key = player if player in (a, b) else ("seat", seat)
        hands[hand_id][key] = amount
        if player in (a, b):
            net[player] += amount
            wins[player] += won
    a_to_b = sum(pair_flow(h, a, b) for h in hands.values())
    b_to_a = sum(pair_flow(h, b, a) for h in hands.values())
    for receiver, amount in adjustments:
        if receiver == b:
            a_to_b += amount
        else:
            b_to_a += amount
    return HeadToHead(len(hands), wins[a], wins[b], net[a], net[b], a_to_b, b_to_a)


# ---------------------------------------------------------------------------------------------------------------
# export and the weekly report


async def ledger_rows(store: Store, guild_id: int, since: datetime | None = None,
                      until: datetime | None = None) -> list[ExportRow]:
    """Every ledger row and correction row of a server over ``[since, until)``, in time order (corrections after
    the hand they void)."""
    lo, hi = _range(since, until)
    async with store._tx(write=False) as conn:
        rows = await _all(
            conn,
            "SELECT 'hand', l.hand_id, l.hand_id, l.match_id, l.variant, l.at, l.player_id, p.display_name, l.ai, "
            " l.seat, l.amount, l.stack_amount, l.jiao_amount, l.won, l.self_draw, l.deal_in, l.drawn, l.hand_value, "
            " '', NULL, 0, l.source FROM ledger l LEFT JOIN players p ON p.user_id = l.player_id "
            "WHERE l.guild_id = ? AND (? IS NULL OR l.at >= ?) AND (? IS NULL OR l.at < ?) "
            "UNION ALL "
            "SELECT c.kind, c.id, c.hand_id, (SELECT h.match_id FROM hands h WHERE h.id = c.hand_id), c.variant, r.at, "
            " r.player_id, p.display_name, r.ai, r.seat, r.amount, r.stack_amount, r.jiao_amount, 0, 0, 0, 0, 0, "
            " c.reason, c.user_id, 1, COALESCE((SELECT x.source FROM ledger x WHERE x.hand_id = c.hand_id AND x.seat = 0), '') "
            "FROM correction_rows r JOIN corrections c ON c.id = r.correction_id "
            "LEFT JOIN players p ON p.user_id = r.player_id "
            "WHERE c.guild_id = ? AND (? IS NULL OR r.at >= ?) AND (? IS NULL OR r.at < ?) "
            "ORDER BY 6, 21, 2, 10",
            (guild_id, lo, lo, hi, hi, guild_id, lo, lo, hi, hi))
    return [ExportRow(r[0], r[1], r[2], r[3], r[4], from_ms(r[5]), r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                      bool(r[13]), bool(r[14]), bool(r[15]), bool(r[16]), r[17], r[18], r[19], r[21]) for r in rows]


@_completes
async def audit_export(store: Store, guild_id: int, user_id: int, what: str, rows: int,
                       at: datetime | None = None) -> None:
    """Record that someone exported the ledger (what and how many rows)."""
    async with store._tx() as conn:
        await _audit(conn, guild_id, user_id, "export", None, f"{what}: {rows}", to_ms(at))


async def week_summary(store: Store, guild_id: int, since: datetime, until: datetime) -> WeekSummary:
    """The weekly report's figures over ``[since, until)``: every variant's hands together, corrections included,
    voided hands left out."""
    lo, hi = _range(since, until)
    async with store._tx(write=False) as conn:
        # the server's variants (from the roll-ups: cheap), so that every query below ranges over the
        # (guild_id, variant, at) index instead of scanning the server's ledger
        variants = [r[0] for r in await _all(
            conn, "SELECT DISTINCT variant FROM board_totals WHERE guild_id = ? UNION "
                  "SELECT DISTINCT variant FROM correction_rows WHERE guild_id = ? UNION "
                  "SELECT DISTINCT variant FROM matches WHERE guild_id = ? AND status = 'active'",
            (guild_id, guild_id, guild_id))]
        if not variants:
            return WeekSummary((), 0, None, None, None)
        marks = ", ".join("?" * len(variants))
        live = f"variant IN ({marks}) AND hand_id NOT IN (SELECT hand_id FROM corrections WHERE hand_id IS NOT NULL)"
        big = await _one(conn, f"SELECT hand_id FROM ledger WHERE guild_id = ? AND at >= ? AND at < ? AND won = 1 "
                               f"AND {live} ORDER BY hand_value DESC, at, hand_id LIMIT 1", (guild_id, lo, hi, *variants))
        count = await _one(conn, f"SELECT COUNT(DISTINCT hand_id) FROM ledger WHERE guild_id = ? AND at >= ? "
                                 f"AND at < ? AND {live}", (guild_id, lo, hi, *variants))
        jiao = await _one(conn, "SELECT l.player_id, p.display_name, SUM(l.jiao_amount) AS j FROM ledger l "
                                "LEFT JOIN players p ON p.user_id = l.player_id WHERE l.guild_id = ? AND l.at >= ? "
                                f"AND l.at < ? AND l.player_id IS NOT NULL AND l.{live} GROUP BY l.player_id, "
                                "p.display_name HAVING SUM(l.jiao_amount) > 0 ORDER BY j DESC, l.player_id LIMIT 1",
                          (guild_id, lo, hi, *variants))
        value = await _one(conn, "SELECT l.player_id, p.display_name, SUM(l.hand_value) AS v FROM ledger l "
                                 "LEFT JOIN players p ON p.user_id = l.player_id WHERE l.guild_id = ? AND l.at >= ? "
                                 f"AND l.at < ? AND l.won = 1 AND l.player_id IS NOT NULL AND l.{live} "
                                 "GROUP BY l.player_id, p.display_name ORDER BY v DESC, l.player_id LIMIT 1",
                           (guild_id, lo, hi, *variants))
    merged: dict[int, list[Any]] = {}
    for v in variants:
        for r in await board(store, guild_id, v, since, until, limit=100_000):
            m = merged.setdefault(r.player_id, [r.player_id, r.display_name, 0, 0, 0, 0, 0, 0, 0])
            for i, f in enumerate(("hands", "wins", "self_draws", "deal_ins", "draws"), start=2):
                m[i] += getattr(r, f)
            m[7] = max(m[7], r.biggest_hand)
            m[8] += r.net
    ranked = sorted((BoardRow(*m) for m in merged.values()), key=lambda r: (-r.net, -r.wins, r.player_id))
    biggest = (await recent_hands(store, guild_id, 1, hand_id=big[0]))[0] if big else None
    return WeekSummary(tuple(ranked), count[0] if count else 0, biggest,
                       tuple(jiao) if jiao else None, tuple(value) if value else None)


# the store's refusals for this module: catalogue keys store.bad_timezone ... store.same_player (data/locale)


@_completes
async def release_report_week(store: Store, guild_id: int, week: int, previous: int | None) -> None:
    """Give back a claimed week that could not be posted (a transient failure), so the next round retries it."""
    async with store._tx() as conn:
        await conn.execute("UPDATE group_settings SET last_report_week = ? WHERE guild_id = ? "
                           "AND last_report_week = ?", (previous, guild_id, week))


@_completes
async def unmark_season_announced(store: Store, season_id: int) -> None:
    """Give back the claim on a final board that could not be posted (a transient failure)."""
    async with store._tx() as conn:
        await conn.execute("UPDATE seasons SET final_posted_at = NULL WHERE id = ?", (season_id,))

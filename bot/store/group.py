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

**Posts made once** (a season's final board, a week's report) are claimed (``claim_final_board``,
``claim_report_week``), posted, and only then noted as posted (``mark_season_announced``, ``confirm_report_week``). A
claim that was never confirmed (the bot stopped while the post was in flight, or failed to give the claim back) is
taken over by the scheduler after a restart or once it is old (``retake_before``): the post is looked for in its
channel (``cogs``: a post Discord took before a kill) and posted again only if not found, with the same Discord nonce
(which Discord makes the same message for a few minutes). A post Discord took whose note failed is noted later from
the bot's memory (``cogs.post_claims.note_posted``), never posted again.

**Ranges** are half-open ``[since, until)``; ``None`` is open-ended. Seasons are ``[started_at, ended_at)``.
"""

from __future__ import annotations

import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from typing import Any

from bot.zones import known_zone, zone_or_default

from .backend import Connection
from .boards import (  # the group's readers, reached as group.board(...) etc.
    ExportRow,
    HandSummary,
    HandWin,
    HeadToHead,
    WeekSummary,
    board,
    head_to_head,
    ledger_rows,
    pair_flow,
    player_record,
    recent_hands,
    week_summary,
)
from .database import completes
from .errors import StoreError
from .models import Shards, from_ms, on_shards, to_ms
from .sql import audit, ms_or_none, upsert_player
from .store import Store

#: The default time zone of a server: the bot's players are in Anhui.
DEFAULT_TIMEZONE = "Asia/Shanghai"
MAX_NAME = 100  # a season's name
MAX_REASON = 200  # a correction's reason
MAX_ADJUSTMENT = 1_000_000  # 子: a typo guard
# An admin who repeats a correction or a season start within this time, word for word, is refused: the first one is
# stored (its answer may not have reached them: Discord failing, the bot restarting), so a repeat would count twice.
REPEAT_MS = 10 * 60 * 1000

__all__ = [
    "Correction", "CorrectionRow", "ExportRow", "GroupSettings", "HandSummary", "HandWin", "HeadToHead", "Season",
    "WeekSummary", "adjust", "audit_export", "board", "claim_final_board", "claim_report_week", "confirm_report_week",
    "corrections", "current_season", "end_due_seasons", "group_settings", "head_to_head", "ledger_rows",
    "mark_season_announced", "mark_welcomed", "pair_flow", "player_record", "recent_hands", "release_final_board",
    "release_report_week", "report_servers", "season", "seasons", "seasons_to_announce", "set_timezone",
    "set_weekly_report", "start_season", "unmark_welcomed", "void_hand", "week_summary", "zone",
]

#: ``retake_before`` that takes over every claim in flight, however recent (a bot's first round after its start: a
#: claim it finds was left by a bot that stopped, or is one that another process is posting, which the post's nonce
#: makes the same message)
ANY_CLAIM = datetime.max.replace(tzinfo=UTC)


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
    report_claim_week: int | None = None  # a week whose report is being posted (claimed, not yet noted as posted)
    report_claimed_at: datetime | None = None  # when it was claimed

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
    final_posted_at: datetime | None  # its final board was posted (or never can be: no channel, no permission)
    created_by: int
    final_claimed_at: datetime | None = None  # a post of its final board is in flight since then
    final_channel: int | None = None  # the channel of that post (a retry posts there, with the same nonce)

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


# ---------------------------------------------------------------------------------------------------------------
# group settings


_SETTINGS_COLS = ("timezone, report_channel, report_weekday, last_report_week, welcomed_at, report_claim_week, "
                  "report_claimed_at")


def _settings(guild_id: int, row: Sequence[Any] | None) -> GroupSettings:
    if row is None:
        return GroupSettings(guild_id)
    return GroupSettings(guild_id, row[0], row[1], row[2], row[3], from_ms(row[4]), row[5], from_ms(row[6]))


async def _group_settings(conn: Connection, guild_id: int) -> GroupSettings:
    return _settings(guild_id, await conn.one(f"SELECT {_SETTINGS_COLS} FROM group_settings WHERE guild_id = ?",
                                              (guild_id,)))


async def _ensure_row(conn: Connection, guild_id: int, ms: int) -> None:
    await conn.execute("INSERT INTO group_settings (guild_id, updated_at) VALUES (?, ?) "
                       "ON CONFLICT (guild_id) DO NOTHING", (guild_id, ms))


async def group_settings(store: Store, guild_id: int) -> GroupSettings:
    """The server's group settings (defaults when never changed)."""
    async with store.transaction(write=False) as conn:
        return await _group_settings(conn, guild_id)


@completes
async def set_timezone(store: Store, guild_id: int, user_id: int, name: str,
                       at: datetime | None = None) -> GroupSettings:
    """Set the server's time zone (an IANA name, checked with ``zoneinfo``); audited when it changes."""
    zone(name)
    ms = to_ms(at)
    async with store.transaction() as conn:
        old = await _group_settings(conn, guild_id)
        if old.timezone == name:
            return old
        await _ensure_row(conn, guild_id, ms)
        await conn.execute("UPDATE group_settings SET timezone = ?, updated_at = ? WHERE guild_id = ?",
                           (name, ms, guild_id))
        await audit(conn, guild_id, user_id, "timezone", old.timezone, name, ms)
        return await _group_settings(conn, guild_id)


@completes
async def set_weekly_report(store: Store, guild_id: int, user_id: int, channel_id: int | None, weekday: int,
                            first_week: int | None, at: datetime | None = None) -> GroupSettings:
    """Turn the weekly report on (a channel and a weekday, 0 = Monday) or off (``channel_id=None``); audited.

    ``first_week`` (a report day's date ordinal) is recorded as already posted, so that turning the report on never
    posts a week that ended before it was asked for."""
    if not isinstance(weekday, int) or not 0 <= weekday <= 6:
        raise StoreError("bad_weekday", weekday=weekday)
    ms = to_ms(at)
    async with store.transaction() as conn:
        old = await _group_settings(conn, guild_id)
        before = {"channel": old.report_channel, "weekday": old.report_weekday}
        after = {"channel": channel_id, "weekday": weekday}
        if before == after:
            return old
        await _ensure_row(conn, guild_id, ms)
        last = old.last_report_week
        if channel_id is not None and first_week is not None:
            last = max(last or first_week, first_week)
        # a claim in flight belonged to the report as it was set: forgotten (a post that completes still notes its
        # week as posted)
        await conn.execute("UPDATE group_settings SET report_channel = ?, report_weekday = ?, last_report_week = ?, "
                           "report_claim_week = NULL, report_claimed_at = NULL, updated_at = ? WHERE guild_id = ?",
                           (channel_id, weekday, last, ms, guild_id))
        await audit(conn, guild_id, user_id, "weekly_report", before, after, ms)
        return await _group_settings(conn, guild_id)


async def report_servers(store: Store, *, shards: Shards | None = None,
                         due: Sequence[int] | None = None) -> list[GroupSettings]:
    """The servers with the weekly report on, in one statement. With ``shards``, only their servers' (the process
    holding a shard's lease posts its reports); with ``due`` (for each weekday, 0 = Monday, a report day's date
    ordinal: the latest any time zone has reached), only those that may have a report due: a claim in flight, or no
    week posted from that day of their weekday on."""
    where, args = on_shards(shards, "guild_id")
    if due is not None:
        days = " ".join(f"WHEN {w} THEN CAST(? AS BIGINT)" for w in range(7))
        where += (" AND (report_claim_week IS NOT NULL OR last_report_week IS NULL "
                  f"OR last_report_week < CASE report_weekday {days} END)")
        args = [*args, *due]
    async with store.transaction(write=False) as conn:
        rows = await conn.all(f"SELECT guild_id, {_SETTINGS_COLS} FROM group_settings "
                              f"WHERE report_channel IS NOT NULL AND {where} ORDER BY guild_id", args)
    return [_settings(r[0], r[1:]) for r in rows]


@completes
async def claim_report_week(store: Store, guild_id: int, week: int, at: datetime | None = None, *,
                            retake_before: datetime | None = None) -> bool:
    """Claim the post of the report of ``week`` (its report day's date ordinal): True when this caller is to post
    it, then :func:`confirm_report_week` once Discord took it (or :func:`release_report_week` if it failed). False
    when that week or a later one was posted, or another post is in flight: a claim made before ``retake_before``
    (a bot stopped while posting it, or one that failed to give it back) is taken over, for its own week only, so
    that the retry is the same post with the same nonce."""
    stale = to_ms(retake_before) if retake_before is not None else -(2**62)
    async with store.transaction() as conn:
        changed = await conn.execute(
            "UPDATE group_settings SET report_claim_week = ?, report_claimed_at = ? WHERE guild_id = ? "
            "AND report_channel IS NOT NULL AND (last_report_week IS NULL OR last_report_week < ?) "
            "AND (report_claim_week IS NULL OR (report_claim_week = ? AND report_claimed_at < ?))",
            (week, to_ms(at), guild_id, week, week, stale))
        return changed == 1


@completes
async def confirm_report_week(store: Store, guild_id: int, week: int) -> None:
    """Note the report of ``week`` as posted (or as one that never can be: no permission, no channel): the claim
    ends and the week is never posted again."""
    async with store.transaction() as conn:
        await conn.execute("UPDATE group_settings SET last_report_week = ? WHERE guild_id = ? "
                           "AND (last_report_week IS NULL OR last_report_week < ?)", (week, guild_id, week))
        await conn.execute("UPDATE group_settings SET report_claim_week = NULL, report_claimed_at = NULL "
                           "WHERE guild_id = ? AND report_claim_week = ?", (guild_id, week))


@completes
async def mark_welcomed(store: Store, guild_id: int, at: datetime | None = None) -> bool:
    """Record that the first-time walk-through was posted; False if it already had been."""
    ms = to_ms(at)
    async with store.transaction() as conn:
        await _ensure_row(conn, guild_id, ms)
        changed = await conn.execute("UPDATE group_settings SET welcomed_at = ? WHERE guild_id = ? "
                                 "AND welcomed_at IS NULL", (ms, guild_id))
        return changed == 1


@completes
async def unmark_welcomed(store: Store, guild_id: int) -> None:
    """Forget a walk-through that could not be posted after all (so that a later join may post it)."""
    async with store.transaction() as conn:
        await conn.execute("UPDATE group_settings SET welcomed_at = NULL WHERE guild_id = ?", (guild_id,))


# ---------------------------------------------------------------------------------------------------------------
# seasons

_SEASON_COLS = ("id, guild_id, number, name, channel_id, started_at, ends_at, ended_at, final_posted_at, created_by, "
                "final_claimed_at, final_channel")


def _season(r: Sequence[Any]) -> Season:
    return Season(r[0], r[1], r[2], r[3], r[4], from_ms(r[5]), from_ms(r[6]), from_ms(r[7]), from_ms(r[8]), r[9],
                  from_ms(r[10]), r[11])


async def seasons(store: Store, guild_id: int) -> list[Season]:
    """A server's seasons, newest first."""
    async with store.transaction(write=False) as conn:
        rows = await conn.all(f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? ORDER BY number DESC",
                          (guild_id,))
    return [_season(r) for r in rows]


async def season(store: Store, guild_id: int, number: int) -> Season | None:
    async with store.transaction(write=False) as conn:
        row = await conn.one(f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? AND number = ?",
                         (guild_id, number))
    return _season(row) if row else None


async def current_season(store: Store, guild_id: int, at: datetime | None = None) -> Season | None:
    """The season in play at ``at``: open, and its planned end (if any) not yet reached."""
    ms = to_ms(at)
    async with store.transaction(write=False) as conn:
        row = await conn.one(f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? AND ended_at IS NULL "
                               "AND (ends_at IS NULL OR ends_at > ?) ORDER BY number DESC", (guild_id, ms))
    return _season(row) if row else None


@completes
async def start_season(store: Store, guild_id: int, user_id: int, name: str, *, ends_at: datetime | None,
                       channel_id: int | None, at: datetime | None = None) -> tuple[Season, Season | None]:
    """Start season N+1 now, ending the open one (if any) at the same instant; returns (new, ended). Audited.

    Refused (nothing written): an empty or too long name, an end date not after now, the open
    season's start repeated by the admin who made it (same name and end) within ``REPEAT_MS``."""
    name = (name or "").strip()
    if not name or len(name) > MAX_NAME:
        raise StoreError("bad_season_name", name=name)
    ms = to_ms(at)
    end_ms = ms_or_none(ends_at)
    if end_ms is not None and end_ms <= ms:
        raise StoreError("season_end_past", ends_at=ends_at)
    async with store.transaction() as conn:
        open_row = await conn.one(f"SELECT {_SEASON_COLS} FROM seasons WHERE guild_id = ? AND ended_at IS NULL",
                              (guild_id,))
        if (open_row is not None and open_row[3] == name and open_row[9] == user_id
                and abs(ms - open_row[5]) < REPEAT_MS and open_row[6] == end_ms):  # the same start, again
            ago = abs(ms - open_row[5])
            if ago < 60_000:  # (a double submit: "1 min ago" for a season started that second read as a clock fault)
                raise StoreError("season_repeated_now", number=open_row[2], name=name)
            raise StoreError("season_repeated", number=open_row[2], name=name, minutes=_minutes(ago))
        ended = None
        if open_row is not None:
            # an open season whose planned end has passed ends then; otherwise now
            stop = open_row[6] if open_row[6] is not None and open_row[6] <= ms else ms
            stop = max(stop, open_row[5])  # a clock behind the one that started it: it ends as it starts, not before
            await conn.execute("UPDATE seasons SET ended_at = ? WHERE id = ?", (stop, open_row[0]))
            ended = _season((*open_row[:7], stop, *open_row[8:]))
        top = await conn.one("SELECT COALESCE(MAX(number), 0) FROM seasons WHERE guild_id = ?", (guild_id,))
        new_id = await conn.insert(
            "INSERT INTO seasons (guild_id, number, name, channel_id, started_at, ends_at, created_by) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)", (guild_id, top[0] + 1, name, channel_id, ms, end_ms, user_id))
        row = await conn.one(f"SELECT {_SEASON_COLS} FROM seasons WHERE id = ?", (new_id,))
        new = _season(row)
        await audit(conn, guild_id, user_id, "season", ended.name if ended else None,
                     f"{new.number}. {new.name}", ms)
    return new, ended


@completes
async def end_due_seasons(store: Store, at: datetime | None = None) -> list[Season]:
    """Close every open season whose planned end has passed (at its planned end); returns them."""
    ms = to_ms(at)
    async with store.transaction() as conn:
        rows = await conn.all(f"SELECT {_SEASON_COLS} FROM seasons WHERE ended_at IS NULL AND ends_at IS NOT NULL "
                                "AND ends_at <= ? ORDER BY id", (ms,))
        for r in rows:
            await conn.execute("UPDATE seasons SET ended_at = ends_at WHERE id = ?", (r[0],))
    return [_season((*r[:7], r[6], *r[8:])) for r in rows]


async def seasons_to_announce(store: Store, shards: Shards | None = None) -> list[Season]:
    """Ended seasons whose final board has not been posted yet, oldest first; with ``shards``, their servers'."""
    where, args = on_shards(shards, "guild_id")
    async with store.transaction(write=False) as conn:
        rows = await conn.all(f"SELECT {_SEASON_COLS} FROM seasons WHERE ended_at IS NOT NULL "
                              f"AND final_posted_at IS NULL AND {where} ORDER BY id", args)
    return [_season(r) for r in rows]


@completes
async def claim_final_board(store: Store, season_id: int, channel_id: int | None, at: datetime | None = None, *,
                            retake_before: datetime | None = None) -> Season | None:
    """Claim the post of an ended season's final board in ``channel_id``: the season as claimed (its
    ``final_channel``: where to post) when this caller is to post it, then :func:`mark_season_announced` once
    Discord took it (or :func:`release_final_board` if it failed); None when it was posted or another post is in
    flight. A claim made before ``retake_before`` (a bot stopped while posting it, or one that failed to give it
    back) is taken over in its own channel, so that the retry is the same post with the same nonce."""
    stale = to_ms(retake_before) if retake_before is not None else -(2**62)
    async with store.transaction() as conn:
        changed = await conn.execute(
            "UPDATE seasons SET final_claimed_at = ?, final_channel = COALESCE(final_channel, ?) WHERE id = ? "
            "AND final_posted_at IS NULL AND (final_claimed_at IS NULL OR final_claimed_at < ?)",
            (to_ms(at), channel_id, season_id, stale))
        if changed != 1:
            return None
        row = await conn.one(f"SELECT {_SEASON_COLS} FROM seasons WHERE id = ?", (season_id,))
        return _season(row)


@completes
async def mark_season_announced(store: Store, season_id: int, at: datetime | None = None) -> bool:
    """Record that a season's final board was posted (or never can be: no channel, no permission), ending its claim;
    False when it already was (never posted twice)."""
    async with store.transaction() as conn:
        changed = await conn.execute("UPDATE seasons SET final_posted_at = ?, final_claimed_at = NULL WHERE id = ? "
                                     "AND final_posted_at IS NULL", (to_ms(at), season_id))
        return changed == 1


# ---------------------------------------------------------------------------------------------------------------
# corrections


async def _correction(conn: Connection, correction_id: int) -> Correction:
    c = await conn.one("SELECT id, guild_id, kind, hand_id, variant, reason, user_id, at, posted_at "
                         "FROM corrections WHERE id = ?", (correction_id,))
    rows = await conn.all("SELECT seat, player_id, ai, amount, stack_amount, jiao_amount, hands, wins "
                            "FROM correction_rows WHERE correction_id = ? ORDER BY seat", (correction_id,))
    return Correction(c[0], c[1], c[2], c[3], c[4], c[5], c[6], from_ms(c[7]), from_ms(c[8]),
                      tuple(CorrectionRow(*r) for r in rows))


def _minutes(ms: int) -> int:
    """Whole minutes ago, at least 1 (a refusal says "saved 1 min ago", not 0)."""
    return max(1, ms // 60_000)


def _reason(reason: str) -> str:
    reason = (reason or "").strip()
    if not reason or len(reason) > MAX_REASON:
        raise StoreError("bad_reason", length=len(reason))
    return reason


@completes
async def void_hand(store: Store, guild_id: int, user_id: int, hand_id: int, reason: str,
                    at: datetime | None = None) -> Correction:
    """Void a settled hand of this server: a correction whose rows negate the hand's ledger rows (dated at the
    hand's time). Audited. The card of the record that wrote it, if any, is marked stale (the scheduler redraws it). Refused (nothing written): an unknown hand, a hand of another server, a hand not
    settled, a hand already voided, an empty reason."""
    reason = _reason(reason)
    ms = to_ms(at)
    async with store.transaction() as conn:
        h = await conn.one("SELECT h.status, m.guild_id, m.variant, h.number, h.match_id FROM hands h "
                             "JOIN matches m ON m.id = h.match_id WHERE h.id = ?", (hand_id,))
        if h is None or h[1] != guild_id:  # another server's hand is "unknown" here: say nothing about it
            raise StoreError("unknown_hand", hand_id=hand_id)
        if h[0] != "finished":
            raise StoreError("hand_not_settled", hand_id=hand_id)
        if await conn.one("SELECT id FROM corrections WHERE hand_id = ?", (hand_id,)) is not None:
            raise StoreError("hand_already_void", hand_id=hand_id)
        rows = await conn.all("SELECT seat, player_id, ai, amount, stack_amount, jiao_amount, won, self_draw, "
                                "deal_in, drawn, at FROM ledger WHERE hand_id = ? ORDER BY seat", (hand_id,))
        when = rows[0][10]
        cid = await conn.insert(
            "INSERT INTO corrections (guild_id, kind, hand_id, variant, reason, user_id, at, posted_at) "
            "VALUES (?, 'void', ?, ?, ?, ?, ?, ?)", (guild_id, hand_id, h[2], reason, user_id, when, ms))
        await conn.executemany(
            "INSERT INTO correction_rows (correction_id, seat, guild_id, variant, player_id, ai, amount, stack_amount, "
            "jiao_amount, hands, wins, self_draws, deal_ins, draws, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?)",
            [(cid, r[0], guild_id, h[2], r[1], r[2], -r[3], -r[4], -r[5], -1, -r[6], -r[7], -r[8], -r[9], when)
             for r in rows])
        await audit(conn, guild_id, user_id, "void", None, f"#{hand_id} ({h[4]}/{h[3] + 1}): {reason}", ms)
        # a hand recorded in person: its card (the hand's only public trace) is redrawn to say it was voided
        await conn.execute("UPDATE records SET card_stale = 1 WHERE hand_id = ? AND guild_id = ?", (hand_id, guild_id))
        return await _correction(conn, cid)


@completes
async def adjust(store: Store, guild_id: int, user_id: int, payer: int, payee: int, amount: int, variant: str,
                 reason: str, *, names: dict[int, str] | None = None, at: datetime | None = None) -> Correction:
    """Move ``amount`` 子 from ``payer`` to ``payee`` (members of this server) in ``variant``'s board: a
    correction of two rows, -amount and +amount. Audited. Refused (nothing written): a zero, negative or huge
    amount, the same member twice, an empty reason, the same adjustment by the same admin within ``REPEAT_MS``.
    ``names`` refreshes the players' cached display names."""
    reason = _reason(reason)
    if not isinstance(amount, int) or isinstance(amount, bool) or not 0 < amount <= MAX_ADJUSTMENT:
        raise StoreError("bad_amount", amount=amount)
    if payer == payee:
        raise StoreError("same_player", player=payer)
    ms = to_ms(at)
    async with store.transaction() as conn:
        same = await conn.one(
            "SELECT c.id, c.at FROM corrections c "
            "JOIN correction_rows r0 ON r0.correction_id = c.id AND r0.seat = 0 "
            "JOIN correction_rows r1 ON r1.correction_id = c.id AND r1.seat = 1 "
            "WHERE c.guild_id = ? AND c.kind = 'adjust' AND c.variant = ? AND c.reason = ? AND c.user_id = ? "
            "AND c.at > ? AND c.at < ? AND r0.player_id = ? AND r0.amount = ? AND r1.player_id = ? "
            "ORDER BY c.at DESC LIMIT 1",  # either side of now: another process's clock may run a little ahead
            (guild_id, variant, reason, user_id, ms - REPEAT_MS, ms + REPEAT_MS, payer, -amount, payee))
        if same is not None:
            raise StoreError("adjust_repeated", id=same[0], minutes=_minutes(abs(ms - same[1])))
        for p in (payer, payee):
            name = (names or {}).get(p)
            if name:
                await upsert_player(conn, p, name, ms)
            else:
                await conn.execute("INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, ?) "
                                   "ON CONFLICT (user_id) DO NOTHING", (p, str(p), ms))
        cid = await conn.insert(
            "INSERT INTO corrections (guild_id, kind, hand_id, variant, reason, user_id, at, posted_at) "
            "VALUES (?, 'adjust', NULL, ?, ?, ?, ?, ?)", (guild_id, variant, reason, user_id, ms, ms))
        await conn.executemany(
            "INSERT INTO correction_rows (correction_id, seat, guild_id, variant, player_id, amount, at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(cid, 0, guild_id, variant, payer, -amount, ms), (cid, 1, guild_id, variant, payee, amount, ms)])
        await audit(conn, guild_id, user_id, "adjust", None,
                     f"{amount} 子 <@{payer}> → <@{payee}> ({variant}): {reason}", ms)
        return await _correction(conn, cid)


async def corrections(store: Store, guild_id: int, limit: int = 50) -> list[Correction]:
    """A server's corrections, newest first."""
    async with store.transaction(write=False) as conn:
        ids = await conn.all("SELECT id FROM corrections WHERE guild_id = ? ORDER BY posted_at DESC, id DESC "
                               "LIMIT ?", (guild_id, limit))
        return [await _correction(conn, r[0]) for r in ids]


@completes
async def audit_export(store: Store, guild_id: int, user_id: int, what: str, rows: int,
                       at: datetime | None = None) -> None:
    """Record that someone exported the ledger (what and how many rows)."""
    async with store.transaction() as conn:
        await audit(conn, guild_id, user_id, "export", None, f"{what}: {rows}", to_ms(at))


# the store's refusals for this module: catalogue keys store.bad_timezone ... store.same_player (data/locale)


@completes
async def release_report_week(store: Store, guild_id: int, week: int) -> None:
    """Give back the claim on a week whose report could not be posted (a transient failure): the next round claims
    the latest week again."""
    async with store.transaction() as conn:
        await conn.execute("UPDATE group_settings SET report_claim_week = NULL, report_claimed_at = NULL "
                           "WHERE guild_id = ? AND report_claim_week = ?", (guild_id, week))


@completes
async def release_final_board(store: Store, season_id: int, *, channel_too: bool = False) -> None:
    """Give back the claim on a final board that could not be posted (a transient failure); ``channel_too``: the
    next try may post it elsewhere (the season's channel), as nothing was posted where this one tried."""
    extra = ", final_channel = NULL" if channel_too else ""
    async with store.transaction() as conn:
        await conn.execute(f"UPDATE seasons SET final_claimed_at = NULL{extra} WHERE id = ? "
                           "AND final_posted_at IS NULL", (season_id,))

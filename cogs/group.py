"""Running a group (Manage Server): ``/season start|list``, ``/correct void|adjust`` and ``/export``.

Every command is hidden from other members by Discord (``default_permissions(manage_guild)``) and checked again in
code (:func:`cogs.checks.check_manager`). Every change goes through :mod:`bot.store.group`, which writes it and its
``settings_audit`` row in one transaction; bad input (an unknown season or hand, a hand of another server, a zero or
negative amount, the same member twice, a bot, a date in the past) is refused with a message and writes nothing.

- ``/season start name [ends]``: season N+1 starts now; the open season ends at the same instant and its final board
  is posted right away in the channel (:func:`post_final_board`: at least once, and once; as the command's
  follow-up if the bot may not post there). ``ends`` is the season's last day (YYYY-MM-DD) in the
  server's time zone: it ends at the following midnight there, and the scheduler (:mod:`cogs.report`) posts its
  final board in the channel where it was started (once the season's hands recorded with /record are confirmed,
  a day at most). The answer and the final board name the records of the ended season still waiting.
- ``/correct void hand reason``: the hand counts for nothing from now on (its rows stay; a correction negates
  them). ``/correct adjust payer payee amount reason [variant]``: ``amount`` 子 from one member to the other.
- ``/export [season]``: the ledger (hands, voids, adjustments) as CSV, UTF-8 with a BOM so that Excel reads the
  Chinese names; an ephemeral reply with the file attached.
"""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import logging
import re
import unicodedata
import zipfile
from collections.abc import Awaitable, Callable
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.app import MjBot
from bot.errors import UserError
from bot.i18n import locale_str, t, variant_name
from bot.ids import parse_id, require_id
from bot.interactions import lang_of
from bot.names import player_name
from bot.options import typed_text
from bot.posting import MESSAGE_LIMIT
from bot.store import group as gstore
from bot.store.errors import StoreError
from bot.store.failures import DATABASE_ERRORS
from bot.store.history import ai_seats, history_counts
from bot.store.records import waiting_before
from cogs.checks import check_manager, guild_of
from cogs.choices import variant_choices
from cogs.errors import saved
from cogs.leaderboard import (
    TOP,
    VariantBoard,
    _board_png,
    board_text,
    day_text,
    display,
    resolve_scope,
    safe,
    season_autocomplete,
    season_label,
    seat_display,
    server_tz,
    signed,
    variant_board,
)
from cogs.post_claims import given_back, maybe_posted, note_posted, noted, posted_before, unnoted
from engine.variants import VARIANT_KEYS

log = logging.getLogger(__name__)

_NO_PINGS = discord.AllowedMentions.none()
#: A day as :func:`parse_day` reads it once normalised: year, month, day.
_DAY = re.compile(r"([0-9]{4})\s*[-/.年]\s*([0-9]{1,2})\s*[-/.月]\s*([0-9]{1,2})\s*日?")

#: The CSV's columns, in order.
CSV_COLUMNS = ("kind", "entry_id", "hand_id", "match_id", "variant", "time_local", "time_utc", "season", "player_id",
               "player_name", "ai", "seat", "amount", "stack_amount", "jiao_amount", "hands", "won", "self_draw",
               "deal_in", "drawn", "hand_value", "reason", "posted_by", "source")


def parse_day(text: str) -> date:
    """A date typed as ``YYYY-MM-DD``, also as a Chinese keyboard or a paste gives it: full-width digits and dashes,
    ``/`` or ``.`` between the parts, ``2027年3月31日``, invisible characters around or inside; a clear refusal
    otherwise.

    >>> parse_day(" 2027-03-31 "), parse_day("２０２７－０３－３１"), parse_day("2027/3/31\u200b"), parse_day("2027年3月31日")
    (datetime.date(2027, 3, 31), datetime.date(2027, 3, 31), datetime.date(2027, 3, 31), datetime.date(2027, 3, 31))
    """
    plain = "".join(c for c in unicodedata.normalize("NFKC", text) if unicodedata.category(c) != "Cf").strip()
    m = _DAY.fullmatch(plain)
    if m is not None:
        try:
            return date(int(m[1]), int(m[2]), int(m[3]))
        except ValueError:
            pass
    raise UserError("season.bad_date", value=safe(text[:30]))  # (quoted as typed: its markdown shown, not applied)


def day_end(day: date, tz: tzinfo) -> datetime:
    """The instant a day ends in ``tz`` (the next midnight there); the last day a calendar has is refused as too far.

    >>> day_end(date(9999, 12, 31), UTC)
    Traceback (most recent call last):
    bot.errors.UserError: That end date is too far in the future.
    """
    if day >= date.max:
        raise UserError("store.season_end_far")
    return datetime.combine(day + timedelta(days=1), time(0), tzinfo=tz)


def record_ids(ids: list[int], shown: int = 5) -> str:
    """Records named in a message: the first ``shown`` (the oldest), and "…" for more.

    >>> record_ids([3, 4]), record_ids(list(range(1, 8)))
    ('#3, #4', '#1, #2, #3, #4, #5, …')
    """
    return ", ".join([f"#{i}" for i in ids[:shown]] + (["…"] if len(ids) > shown else []))


async def season_waiting(bot: MjBot, season: gstore.Season, limit: int = 6) -> list[int]:
    """The records still waiting for their confirmations that, once confirmed, count in an ended season
    (``[started_at, until)``): proposed during it, or made in place of a voided hand of it, whenever (docs/record.md,
    *When it counts*)."""
    if season.until is None:
        return []
    return await waiting_before(bot.open_store, season.guild_id, season.until, limit, since=season.started_at)


async def final_board(bot: MjBot, season: gstore.Season, lang: str) -> tuple[str, bytes | None]:
    """The final board of an ended season: the top of every variant played in it (text), and the image (PNG) of the
    variant with the most hands. Each variant's list is headed by its name only (the season's label is the first
    line); when the top ten of every variant would not fit one message, every variant keeps the same, smaller number
    of places (a cut at the end dropped the last variant's). Records of the season still waiting for their
    confirmations (the scheduler waits for them a while: :data:`cogs.report.LATE_RECORD_WAIT`; ``/season start``
    does not) are named at the end: once confirmed they count in the season, not on this board."""
    tz = await server_tz(bot, season.guild_id)
    label = season_label(season, lang, tz)
    head = t("season.final_title", lang, label=safe(label))
    waiting = await season_waiting(bot, season)
    tail = [t("season.final_waiting", lang, ids=record_ids(waiting), number=season.number)] if waiting else []
    boards: list[VariantBoard] = []
    best: tuple[int, VariantBoard] | None = None
    for key in VARIANT_KEYS:
        b = await variant_board(bot, season.guild_id, key, season.started_at, season.until, label, lang)
        if b is None:
            continue
        boards.append(b)
        hands = sum(r.hands for r in b.rows)
        if best is None or hands > best[0]:
            best = (hands, b)
    if best is None:
        empty = t("season.final_none_confirmed" if waiting else "season.final_empty", lang)  # never "nobody played"
        return "\n\n".join([head, empty, *tail]), None
    for top in range(TOP, 0, -1):
        text = "\n\n".join([head, *(board_text(b.title, "", b.lines[:top], len(b.rows), lang, None) for b in boards),
                             *tail])
        if len(text) <= MESSAGE_LIMIT:
            break
    text = fit_message(text)
    try:
        data = await asyncio.to_thread(_board_png, best[1].title, label, best[1].lines, None, lang, "", season.name)
    except Exception:
        log.exception("final board image failed")
        return text, None
    return text, data


def final_nonce(season_id: int) -> str:
    """The nonce of a season's final board (Discord takes at most 25 characters): every try posts with it, so that
    Discord makes a retry the same message (``enforce_nonce``, for a few minutes).

    >>> final_nonce(42)
    'mjs42'
    """
    return f"mjs{season_id}"[:25]


Send = Callable[[str, bytes | None], Awaitable[Any]]


async def post_final_board(bot: MjBot, season: gstore.Season, lang: str, channel_id: int | None, *,
                           at: datetime | None = None, retake_before: datetime | None = None,
                           fallback: Send | None = None) -> bool:
    """Post an ended season's final board in ``channel_id`` (where ``/season start`` ran, or the season's channel),
    once and only once: claimed in the database, posted with the season's nonce (:func:`final_nonce`), then
    noted as posted (:func:`note_posted`: a note that fails is kept in memory and the board is never posted again).
    A claim already in flight is left alone unless made before ``retake_before``: then the board is looked for in
    the claim's channel (:func:`bot.own_posts.own_post`, one request: a bot killed after Discord took it) and
    noted if found, else posted again there with the same nonce. When the post fails, Discord may have taken it
    (:func:`cogs.post_claims.maybe_posted`: the claim is kept and taken over so) or refused the body (the claim is
    given back and the scheduler posts it on its next round); a missing permission or channel moves it to the season's own
    channel (with ``fallback``: the command's follow-up posts it), and ends it only there. Never raises after the
    claim (a command that led here has done its work). True when it was posted here."""
    store = bot.open_store
    if unnoted(bot, ("final", season.season_id, 0)):  # posted; its note is waiting
        return False
    claimed = await gstore.claim_final_board(store, season.season_id, channel_id, at, retake_before=retake_before)
    if claimed is None:
        return False
    what = f"guild {season.guild_id}: final board of season {season.number}"
    if claimed.final_channel is None:  # nowhere to post it
        await noted(what, gstore.mark_season_announced(store, season.season_id, at))
        return False
    try:
        text, png = await final_board(bot, claimed, lang)
    except Exception as e:  # nothing posted: given back, the next round tries again
        log.warning("%s could not be drawn (%r); will retry", what, e)
        await noted(what, gstore.release_final_board(store, season.season_id))
        return False
    key = ("final", season.season_id, 0)
    posted = lambda: gstore.mark_season_announced(store, season.season_id, at)  # noqa: E731
    if season.final_claimed_at is not None:  # a claim taken over: Discord may have the post
        found = await posted_before(bot, what, claimed.final_channel, season.guild_id, season.final_claimed_at, text,
                                    final_file(season))
        if found is None:
            return False
        if found:
            await note_posted(bot, key, what, posted)
            return True
    channel = bot.get_partial_messageable(claimed.final_channel, guild_id=season.guild_id)
    try:
        await channel.send(text, file=_png_file(png, season), allowed_mentions=_NO_PINGS,
                           nonce=final_nonce(season.season_id))  # discord.py sends enforce_nonce
    except Exception as e:
        if fallback is not None and isinstance(e, discord.Forbidden | discord.NotFound):
            return await _fall_back(bot, what, claimed, fallback, text, png, at)
        if maybe_posted(e):  # the claim stays: taken over after CLAIM_LEASE, looked for in the channel first
            log.warning("%s: Discord may have taken it (%r); looked for before it is posted again", what, e)
        elif given_back(e):
            log.warning("%s not posted, will retry: %s", what, e)
            await noted(what, gstore.release_final_board(store, season.season_id))
        elif claimed.channel_id is not None and claimed.final_channel != claimed.channel_id:
            # refused where a command put it: the season's own channel is tried before the board is given up
            log.warning("%s cannot be posted in channel %s (%s); trying the season's channel", what,
                        claimed.final_channel, e)
            try:
                await gstore.release_final_board(store, season.season_id, channel_too=True)
            except Exception as e2:
                log.warning("%s: could not be given back (%r); the scheduler takes the claim over later", what, e2)
                return False
            return await post_final_board(bot, dataclasses.replace(claimed, final_claimed_at=None), lang,
                                          claimed.channel_id, at=at)
        else:
            log.warning("%s cannot be posted: %s", what, e)
            await noted(what, gstore.mark_season_announced(store, season.season_id, at))
        return False
    await note_posted(bot, key, what, posted)
    return True


def _png_file(png: bytes | None, season: gstore.Season) -> discord.File:
    return discord.File(io.BytesIO(png), filename=final_file(season)) if png is not None else discord.utils.MISSING


def final_file(season: gstore.Season) -> str:
    """The final board image's file name: the season's number, so that a board Discord took is found again (in the
    language the command or the scheduler drew it in: :func:`own_post`)."""
    return f"season-{season.number}-final.png"


async def _fall_back(bot: MjBot, what: str, season: gstore.Season, fallback: Send, text: str, png: bytes | None,
                     at: datetime | None) -> bool:
    """The bot may not post in the command's channel: the command's follow-up (which needs no permission) posts
    the board instead. It takes no nonce; a failure leaves the board to the scheduler, in the season's own channel
    (given up only when that is the channel that refused)."""
    store = bot.open_store
    try:
        await fallback(text, png)
    except Exception as e:
        log.warning("%s not posted as a follow-up either (%r)", what, e)
        if maybe_posted(e):  # the claim stays: its take-over looks in the command's channel, where a follow-up is
            return False
        if given_back(e) or (season.channel_id is not None and season.channel_id != season.final_channel):
            await noted(what, gstore.release_final_board(store, season.season_id, channel_too=True))
        else:
            await noted(what, gstore.mark_season_announced(store, season.season_id, at))
        return False
    await note_posted(bot, ("final", season.season_id, 0), what,
                      lambda: gstore.mark_season_announced(store, season.season_id, at))
    return True


def fit_message(text: str, limit: int = MESSAGE_LIMIT) -> str:
    r"""``text`` cut at a line boundary (with a ``…`` line) so that it fits a Discord message.

    >>> fit_message("a\nbb\ncc", 6), fit_message("a\nbb\ncc", 5)
    ('a\nbb\n…', 'a\n…')
    """
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    while lines and len("\n".join(lines)) + 2 > limit:
        lines.pop()
    return "\n".join([*lines, "…"])


async def hand_autocomplete(interaction: discord.Interaction[MjBot], current: str) -> list[Choice[int]]:
    """The server's latest settled hands (or the one whose number is typed), newest first; nothing for a member
    without Manage Server (the command is theirs only)."""
    bot = interaction.client
    store = getattr(bot, "store", None)
    if interaction.guild_id is None or store is None or not interaction.permissions.manage_guild:
        return []
    lang = await lang_of(interaction)
    tz = await server_tz(bot, interaction.guild_id)
    typed = typed_text(current).strip().lstrip("#")
    hand_id = parse_id(typed) if typed else None
    if typed and hand_id is None:  # not a hand number the database can hold: no hand matches
        return []
    hands = await gstore.recent_hands(store, interaction.guild_id, 25, hand_id=hand_id)
    out = []
    for h in hands:
        local = h.at.astimezone(tz)
        # every win of the hand, in seat order, each with its own value (Hefei: several may win on one discard)
        who = ", ".join(f"{seat_display(w.name, w.player_id, w.ai_number, lang)} +{w.value}" for w in h.wins) \
            or t("correct.hand_draw", lang)
        if h.voided:
            who += f" ({t('correct.hand_void', lang)})"
        name = t("correct.hand_choice", lang, hand=h.hand_id, when=f"{day_text(local, lang)} {local:%H:%M}",
                 variant=variant_name(h.variant, lang), who=who)
        out.append(Choice(name=name[:100], value=h.hand_id))
    return out


#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV injection"): such a text cell gets a leading quote.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet runs: a text starting with ``=``, ``+``, ``-``, ``@``, a tab or a carriage
    return is written after a single quote (Excel and LibreOffice then show it as text); numbers stay numbers.

    >>> cell("=cmd|' /C calc'!A0"), cell("-2+3"), cell("@HYPERLINK(1)"), cell("Bob"), cell(-25), cell("")
    ("'=cmd|' /C calc'!A0", "'-2+3", "'@HYPERLINK(1)", 'Bob', -25, '')
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def member_cell(user_id: int | None) -> str:
    """A Discord id in the export: Discord's mention form, text that no spreadsheet turns into a number. A bare
    19-digit id is read as a number by Excel and Google Sheets, which keep 15 significant digits (1.2E+18; saved
    back as 1200000000000000000): every player's id would be lost and several would share one. A script reads the
    id as the digits between ``<@`` and ``>``.

    >>> member_cell(1200000000000001001), member_cell(None)
    ('<@1200000000000001001>', '')
    """
    return "" if user_id is None else f"<@{user_id}>"


def csv_bytes(rows: list[gstore.ExportRow], tz: tzinfo, seasons: list[gstore.Season]) -> bytes:
    """The export as CSV bytes: UTF-8 with a byte-order mark (Excel then reads Chinese names), one line per row of
    the ledger or of a correction, times in the server's zone and in UTC, the season each row falls in, Discord ids
    as text (:func:`member_cell`)."""

    def season_of(at: datetime) -> str:
        for s in seasons:
            if s.started_at <= at and (s.until is None or at < s.until):
                return f"{s.number}. {s.name}"
        return ""

    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow(CSV_COLUMNS)
    for r in rows:
        w.writerow([cell(v) for v in (
            r.kind, r.entry_id, r.hand_id if r.hand_id is not None else "", r.match_id if r.match_id is not None else "",
            r.variant, r.at.astimezone(tz).isoformat(timespec="seconds"),
            r.at.astimezone(UTC).isoformat(timespec="seconds"),
            season_of(r.at), member_cell(r.player_id), r.player_name or "", r.ai or "",
            r.seat, r.amount, r.stack_amount, r.jiao_amount, r.hands, r.won, r.self_draw, r.deal_in,
            r.drawn, r.hand_value, r.reason, member_cell(r.posted_by), r.source,
        )])
    return ("\ufeff" + out.getvalue()).encode("utf-8")


class Group(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot

    season = app_commands.Group(name=locale_str("season.name"), description=locale_str("season.desc"),
                                guild_only=True, default_permissions=discord.Permissions(manage_guild=True))
    correct = app_commands.Group(name=locale_str("correct.name"), description=locale_str("correct.desc"),
                                 guild_only=True, default_permissions=discord.Permissions(manage_guild=True))

    async def _manager(self, interaction: discord.Interaction[MjBot]) -> tuple[Any, str]:
        settings = await check_manager(self.bot, interaction)
        return settings, await lang_of(interaction)

    # ---- seasons

    @season.command(name=locale_str("season.start.name"), description=locale_str("season.start.desc"))
    @app_commands.rename(title=locale_str("season.title.name"), ends=locale_str("season.ends.name"))
    @app_commands.describe(title=locale_str("season.title.desc"), ends=locale_str("season.ends.desc"))
    async def season_start(self, interaction: discord.Interaction[MjBot], title: app_commands.Range[str, 1, 100],
                           ends: str | None = None) -> None:
        _settings, lang = await self._manager(interaction)
        tz = await server_tz(self.bot, interaction.guild_id)
        ends_at = day_end(parse_day(ends), tz) if ends else None
        try:
            new, ended = await gstore.start_season(self.bot.open_store, guild_of(interaction), interaction.user.id,
                                                   title, ends_at=ends_at, channel_id=interaction.channel_id)
        except StoreError as e:  # a repeat names the season's title: as typed, as every other answer shows it
            if "name" in e.params:
                e.params["name"] = safe(str(e.params["name"]))
            raise
        log.info("guild %s: user %s started season %s", interaction.guild_id, interaction.user.id, new.number)
        text = t("season.started", lang, label=safe(season_label(new, lang, tz)))
        if ends_at is not None:
            text += " " + t("season.started_ends", lang, end=day_text(ends_at - timedelta(days=1), lang))
        # the records of the season that ended (counting within its range: one made in place of a voided hand counts
        # at that hand's time; an older one counts in an earlier season or in none)
        if ended is not None and (waiting := await season_waiting(self.bot, ended)):
            text += "\n" + t("season.records_waiting", lang, ids=record_ids(waiting), number=ended.number)
        await interaction.response.send_message(saved(interaction, text), allowed_mentions=_NO_PINGS)
        if ended is not None:
            async def send(text: str, png: bytes | None) -> None:
                await interaction.followup.send(text, file=_png_file(png, ended), allowed_mentions=_NO_PINGS)

            try:  # posted below the announcement, in this channel; the scheduler does it if this fails
                await post_final_board(self.bot, ended, lang, interaction.channel_id, fallback=send)
            except Exception as e:  # the season started (and was told so): nothing here may say otherwise
                log.warning("guild %s: final board of season %s left to the scheduler (%r)", interaction.guild_id,
                            ended.number, e)

    @season.command(name=locale_str("season.list.name"), description=locale_str("season.list.desc"))
    async def season_list(self, interaction: discord.Interaction[MjBot]) -> None:
        _settings, lang = await self._manager(interaction)
        tz = await server_tz(self.bot, interaction.guild_id)
        seasons = await gstore.seasons(self.bot.open_store, guild_of(interaction))
        if not seasons:
            await interaction.response.send_message(t("season.list_empty", lang), ephemeral=True)
            return
        current = await gstore.current_season(self.bot.open_store, guild_of(interaction))
        lines = [f"**{t('season.list_title', lang)}**"]
        for s in seasons:
            mark = f" · {t('season.current_mark', lang)}" if current and s.season_id == current.season_id else ""
            lines.append(f"• {safe(season_label(s, lang, tz))}{mark}")
        # newest first: a server with years of seasons sees its latest ones and a "…" for the rest
        await interaction.response.send_message(fit_message("\n".join(lines)), ephemeral=True,
                                                allowed_mentions=_NO_PINGS)

    # ---- corrections

    @correct.command(name=locale_str("correct.void.name"), description=locale_str("correct.void.desc"))
    @app_commands.rename(hand=locale_str("correct.hand.name"), reason=locale_str("correct.reason.name"))
    @app_commands.describe(hand=locale_str("correct.hand.desc"), reason=locale_str("correct.reason.desc"))
    @app_commands.autocomplete(hand=hand_autocomplete)
    async def correct_void(self, interaction: discord.Interaction[MjBot], hand: int,
                           reason: app_commands.Range[str, 1, 200]) -> None:
        _settings, lang = await self._manager(interaction)
        require_id(hand, "store.unknown_hand", hand_id=str(hand)[:40])  # past the database's integers: no such hand
        tz = await server_tz(self.bot, interaction.guild_id)
        c = await gstore.void_hand(self.bot.open_store, guild_of(interaction), interaction.user.id, hand, reason)
        log.info("guild %s: user %s voided hand %s", interaction.guild_id, interaction.user.id, hand)
        local = c.at.astimezone(tz)
        text = saved(interaction, t("correct.voided", lang, hand=hand, variant=variant_name(c.variant, lang),
                                    when=f"{day_text(local, lang)} {local:%H:%M}", reason=safe(c.reason)))
        ais = await ai_seats(self.bot.open_store, hand_id=hand) if any(r.player_id is None for r in c.rows) else {}
        names = {}
        for r in c.rows:
            if r.player_id is not None:
                names[r.seat] = display(await self.bot.open_store.display_name(r.player_id), r.player_id, lang)
            else:  # as its table named it, never by its difficulty
                ai = ais.get(r.seat)
                names[r.seat] = seat_display(ai.name if ai else None, None, ai.number if ai else None, lang)
        moved = ", ".join(f"{safe(names[r.seat])} {signed(r.amount)}" for r in c.rows)
        text += "\n" + t("correct.void_rows", lang, rows=moved)
        # a hand recorded wrongly is put right by recording it again in its place (docs/record.md)
        text += "\n" + t("correct.void_replace_hint", lang, command="/" + t("record.name", lang),
                          option=t("record.replaces.name", lang), hand=hand)
        await interaction.response.send_message(saved(interaction, text), allowed_mentions=_NO_PINGS)

    @correct.command(name=locale_str("correct.adjust.name"), description=locale_str("correct.adjust.desc"))
    @app_commands.rename(payer=locale_str("correct.payer.name"), payee=locale_str("correct.payee.name"),
                         amount=locale_str("correct.amount.name"), reason=locale_str("correct.reason.name"),
                         variant=locale_str("correct.variant.name"))
    @app_commands.describe(payer=locale_str("correct.payer.desc"), payee=locale_str("correct.payee.desc"),
                           amount=locale_str("correct.amount.desc"), reason=locale_str("correct.reason.desc"),
                           variant=locale_str("correct.variant.desc"))
    @app_commands.choices(variant=variant_choices())
    async def correct_adjust(self, interaction: discord.Interaction[MjBot], payer: discord.User, payee: discord.User,
                             amount: int, reason: app_commands.Range[str, 1, 200], variant: str | None = None) -> None:
        # discord.User, not Member: a player who has left the server (Discord then sends no member) can be settled
        settings, lang = await self._manager(interaction)
        store = self.bot.open_store
        shown: dict[int, str] = {}
        for m in (payer, payee):
            if m.bot:
                raise UserError("correct.bot_member", name=safe(m.display_name))
            if isinstance(m, discord.Member):
                shown[m.id] = m.display_name
                continue
            # a former member: the name this server knew them by, and only if they have played or settled here
            known = await store.display_name(m.id)
            if known is None or not (await history_counts(store, guild_of(interaction), m.id)).total:
                raise UserError("correct.not_member", name=safe(m.display_name))
            shown[m.id] = known
        key = variant or settings.default_variant
        # a member's name is refreshed; a former member keeps the one the server knew (their Discord-wide name is not
        # the one the board showed)
        names = {m.id: player_name(m) for m in (payer, payee) if isinstance(m, discord.Member)}
        c = await gstore.adjust(store, guild_of(interaction), interaction.user.id, payer.id, payee.id, amount,
                                key, reason, names=names)
        log.info("guild %s: user %s adjusted %s from %s to %s", interaction.guild_id, interaction.user.id, amount,
                 payer.id, payee.id)
        text = t("correct.adjusted", lang, amount=amount, payer=safe(shown[payer.id]),
                 payee=safe(shown[payee.id]), variant=variant_name(c.variant, lang), reason=safe(c.reason))
        await interaction.response.send_message(saved(interaction, text), allowed_mentions=_NO_PINGS)

    # ---- export

    @app_commands.command(name=locale_str("export.name"), description=locale_str("export.desc"))
    @app_commands.guild_only()
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.rename(season=locale_str("export.season.name"))
    @app_commands.describe(season=locale_str("export.season.desc"))
    @app_commands.autocomplete(season=season_autocomplete)
    async def export(self, interaction: discord.Interaction[MjBot], season: str | None = None) -> None:
        _settings, lang = await self._manager(interaction)
        scope = await resolve_scope(self.bot, guild_of(interaction), season or "all", None, lang)
        what = safe(scope.text) if scope.season is not None else t("export.scope_all", lang)
        # a large ledger takes longer to read and write than the three seconds Discord waits for a first answer
        await interaction.response.defer(ephemeral=True, thinking=True)
        tz = await server_tz(self.bot, interaction.guild_id)
        rows = await gstore.ledger_rows(self.bot.open_store, guild_of(interaction), scope.since, scope.until)
        if not rows:
            await interaction.followup.send(t("export.empty", lang, scope=what), ephemeral=True)
            return
        seasons = await gstore.seasons(self.bot.open_store, guild_of(interaction))
        name = f"mjbot-ledger-{interaction.guild_id}" + (f"-season{scope.season.number}" if scope.season else "")
        limit = interaction.filesize_limit
        data = await asyncio.to_thread(csv_bytes, rows, tz, seasons)
        data, filename = await asyncio.to_thread(fit_upload, data, name, limit)
        if len(data) > limit:
            await interaction.followup.send(t("export.too_large", lang, scope=what, size=file_size(len(data)),
                                              limit=file_size(limit)), ephemeral=True, allowed_mentions=_NO_PINGS)
            return
        text = t("export.done", lang, scope=what, rows=len(rows))
        if filename.endswith(".zip"):
            text += "\n" + t("export.zipped", lang)
        await interaction.followup.send(text, file=discord.File(io.BytesIO(data), filename=filename),
                                        ephemeral=True, allowed_mentions=_NO_PINGS)
        # audited once Discord took the file (an export nobody received is no export); the file is out, so a
        # database failing here is logged, not told as if the export had failed
        try:
            await gstore.audit_export(self.bot.open_store, guild_of(interaction), interaction.user.id,
                                      f"season {scope.season.number}" if scope.season else "all", len(rows))
        except DATABASE_ERRORS as e:
            log.error("guild %s: the export by user %s went out but its audit row was not written: %r",
                      interaction.guild_id, interaction.user.id, e)


def fit_upload(data: bytes, name: str, limit: int) -> tuple[bytes, str]:
    """The export's file and its name: the CSV ``name``.csv, or, when it is more than Discord takes (``limit``
    bytes), the CSV zipped (about a tenth; Windows and phones open a .zip as they are).

    >>> data, filename = fit_upload(b"x" * 5000, "ledger", 1000)
    >>> filename, len(data) < 1000, zipfile.ZipFile(io.BytesIO(data)).read("ledger.csv") == b"x" * 5000
    ('ledger.zip', True, True)
    """
    if len(data) <= limit:
        return data, name + ".csv"
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(name + ".csv", data)
    return out.getvalue(), name + ".zip"


def file_size(n: int) -> str:
    """A file's size as Discord states its limits (MB of 1,024 × 1,024 bytes; KB below one MB).

    >>> file_size(10 * 1024 * 1024), file_size(11_300_000), file_size(300)
    ('10 MB', '10.8 MB', '1 KB')
    """
    if n < 1024 * 1024:
        return f"{max(1, round(n / 1024))} KB"
    return f"{n / 1024 / 1024:.1f}".removesuffix(".0") + " MB"


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Group(bot))

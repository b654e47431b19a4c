"""``/leaderboard`` and ``/stats``: the server's ranking by net 子 and one player's record, from the store's ledger.

``/leaderboard [variant] [period]`` ranks the server's human players (AI seats are never ranked: the store leaves
them out) by net 子 in one variant - the server's default unless named - over this week, this month or all time
(the default). The answer is public: the top ten as text and as an image, plus the caller's own line when they
are further down. An empty board is answered privately in a plain sentence.

``/stats [player] [variant] [period]`` shows a player's hands, wins, self-draws, deal-ins, draws, biggest hand and
net 子 - over every variant unless one is named - with a chart of their running net after each hand. The default
player is the caller. A player with no hands and no net, or a user who is not a member of the server and has no
record here, gets a private plain message; a player without hands whose net comes from adjustments alone
(``/correct adjust``: the board ranks them, "played 0") is shown that net and told where it comes from.

Weeks start on Monday 00:00 and months on the 1st in the server's time zone (``/settings timezone``; default
Asia/Shanghai, :data:`SERVER_TZ`). Names come from the store's cached display names (refreshed whenever a player sits
at a table). Both commands only read: nothing is written, whatever the input.

Seasons (``/season start``): both commands cover the current season by default; the ``season`` option (autocomplete)
picks all time or an earlier season. A period (this week / this month) is intersected with the season. Corrections
(voided hands, adjustments: ``/correct``) are counted: the figures are sums over the ledger plus the corrections.

Both take ``source`` (issue 14): ``all`` (default), ``played`` (hands played on Discord) or ``in_person`` (hands
recorded with ``/record``); a filtered view counts the voids of its hands but no adjustment (docs/record.md).

``/stats player other_player`` shows the two players head to head: the settled hands where both sat (voided ones
left out), each one's wins and net over them, and the 子 that passed between them (see
:func:`bot.store.group.pair_flow`: per hand, each loser pays each winner in proportion to that winner's share of the
gains - exact whenever a hand has one winner - plus the adjustments posted between the two).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any

import discord
from babel.dates import format_skeleton
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.app import MjBot
from bot.errors import UserError
from bot.i18n import locale_str, t, variant_name
from bot.ids import parse_id
from bot.interactions import lang_of, settings_of
from bot.names import drawn_name, player_name
from bot.options import typed_text
from bot.store import BoardRow, PlayerStats, period_start
from bot.store import group as gstore
from bot.tables.strings import shown_name
from cogs.checks import guild_of
from cogs.choices import variant_choices
from text.lang import resolve

log = logging.getLogger(__name__)

#: Leaderboard periods start in China time (no daylight saving): Monday 00:00 for a week, the 1st for a month.
SERVER_TZ = timezone(timedelta(hours=8), "UTC+8")
PERIODS = ("week", "month", "all")
TOP = 10  # lines shown; the caller's own line is added below when they rank lower
MAX_PLAYERS = 100_000  # how far down the board we look for the caller

PERIOD_CHOICES = [Choice(name=locale_str(f"choice.period.{p}"), value=p) for p in PERIODS]
#: Which hands count (issue 14): every hand, those played on Discord, or those played in person (``/record``).
SOURCES = ("all", "played", "in_person")
SOURCE_CHOICES = [Choice(name=locale_str(f"choice.source.{s}"), value=s) for s in SOURCES]


def check_source(source: str | None, lang: str) -> str:
    """The source filter (default ``all``); a value the client would never send is refused with a message."""
    if source is None:
        return "all"
    if source not in SOURCES:
        raise UserError("board.bad_source", value=str(source)[:20],
                        allowed=" / ".join(t(f"choice.source.{s}", lang) for s in SOURCES))
    return source


def with_source(text: str, source: str, lang: str) -> str:
    """A board's or a record's subtitle with the source filter when it is not ``all``."""
    return text if source == "all" else f"{text} · {t(f'choice.source.{source}', lang)}"
_BABEL_LOCALE = {"en": "en", "zh": "zh_CN", "zh-TW": "zh_TW"}  # dates are written by Babel's CLDR patterns
_NO_PINGS = discord.AllowedMentions.none()


def signed(n: int) -> str:
    """``+35``, ``-20``, ``0``."""
    return f"{n:+d}" if n else "0"


def win_rate(wins: int, hands: int) -> str:
    return f"{round(100 * wins / hands)}%" if hands else "—"


def tz_label(tz: tzinfo | None, lang: str) -> str:
    """How a time zone is named to players: China time for Asia/Shanghai (and the fixed UTC+8), else its IANA name.

    >>> tz_label(SERVER_TZ, "zh"), tz_label(SERVER_TZ, "en")
    ('北京时间', 'UTC+8')
    """
    key = getattr(tz, "key", None)
    if tz is None or tz is SERVER_TZ or key in ("Asia/Shanghai", "PRC", "Asia/Chongqing"):
        return t("board.tz.china", lang)
    return key or str(tz)


def day_text(when: datetime, lang: str, *, year: bool = False) -> str:
    """``Nov 23`` / ``11月23日`` (``Nov 23, 2026`` / ``2026年11月23日`` with ``year``).

    >>> day_text(datetime(2026, 11, 23), "en", year=True), day_text(datetime(2026, 11, 23), "zh", year=True)
    ('Nov 23, 2026', '2026年11月23日')
    """
    return format_skeleton("yMMMd" if year else "MMMd", when, locale=_BABEL_LOCALE[resolve(lang)])


def period_text(period: str, since: datetime | None, lang: str) -> str:
    """``all time`` / ``this week (from Nov 23, UTC+8)`` in ``lang`` (``since`` in the server's time zone).

    >>> period_text("week", datetime(2026, 11, 23, tzinfo=SERVER_TZ), "zh")
    '本周（11月23日起，北京时间）'
    >>> period_text("month", datetime(2026, 11, 1, tzinfo=SERVER_TZ), "en")
    'this month (from Nov 1, UTC+8)'
    """
    if since is None:
        return t("board.period.all", lang)
    return t(f"board.period.{period}", lang, date=day_text(since, lang), tz=tz_label(since.tzinfo, lang))


async def server_tz(bot: MjBot, guild_id: int | None) -> tzinfo:
    """The server's time zone (``/settings timezone``); China time in DMs or without a store."""
    store = getattr(bot, "store", None)
    if guild_id is None or store is None:
        return SERVER_TZ
    return (await gstore.group_settings(store, guild_id)).tz


def season_label(s: gstore.Season, lang: str, tz: tzinfo, now: datetime | None = None) -> str:
    """``Season 2 · Spring (Mar 1 – May 31)``; an open season says since when. Years are written when the season
    is not all within the current year."""
    first = s.started_at.astimezone(tz)
    last = s.until.astimezone(tz) - timedelta(milliseconds=1) if s.until is not None else None
    this_year = (now or datetime.now(tz)).astimezone(tz).year
    year = first.year != this_year or (last is not None and last.year != this_year)
    start = day_text(first, lang, year=year)
    if last is None:
        span = t("season.span.open", lang, start=start)
    else:
        span = t("season.span", lang, start=start, end=day_text(last, lang, year=year))
    return t("season.label", lang, number=s.number, name=s.name, span=span)


async def season_autocomplete(interaction: discord.Interaction[MjBot], current: str) -> list[Choice[str]]:
    """All time, then the server's seasons newest first, filtered by what was typed."""
    bot = interaction.client
    store = getattr(bot, "store", None)
    if interaction.guild_id is None or store is None:
        return []
    lang = await lang_of(interaction)
    tz = await server_tz(bot, interaction.guild_id)
    options = [Choice(name=t("season.all_time", lang), value="all")]
    for s in await gstore.seasons(store, interaction.guild_id):
        options.append(Choice(name=season_label(s, lang, tz)[:100], value=str(s.number)))
    typed = typed_text(current).strip().lower()
    return [c for c in options if not typed or typed in c.name.lower() or typed == c.value][:25]


class Scope:
    """What a board or a record covers: ``[since, until)``, and how to say it: ``text``, which is ``head`` (the
    season's label, or the period when no season is chosen) and ``detail`` (the period within the season, or "")."""

    def __init__(self, since: datetime | None, until: datetime | None, text: str, season: gstore.Season | None,
                 period: str, period_since: datetime | None, head: str = "", detail: str = "") -> None:
        self.since, self.until, self.text, self.season = since, until, text, season
        self.period, self.period_since = period, period_since
        self.head, self.detail = head or text, detail

    def image_subtitle(self, source: str, lang: str, prefix: str = "") -> tuple[str, str, str]:
        """An image's subtitle as :func:`render.board.subtitle_lines` takes it: the first line (``prefix``, then the
        season), the detail (the period, the source: on a second line when the whole does not fit one), and the
        season's name, which gives way first (its dates stay)."""
        head = f"{prefix} · {self.head}" if prefix else self.head
        detail = [self.detail] if self.detail else []
        if source != "all":
            detail.append(t(f"choice.source.{source}", lang))
        return head, " · ".join(detail), self.season.name if self.season is not None else ""


async def resolve_scope(bot: MjBot, guild_id: int, season_value: str | None, period: str | None, lang: str,
                        now: datetime | None = None) -> Scope:
    """The range of ``season_value`` (``None``: the current season, or all time when none is in play; ``"all"``;
    a season number) intersected with ``period`` (week / month / all) in the server's time zone. An unknown
    season is refused with a message."""
    store = bot.open_store
    tz = await server_tz(bot, guild_id)
    now = (now or datetime.now(tz)).astimezone(tz)
    period = period or "all"
    p_since = period_start(period, now)
    season = None
    if season_value is None:
        season = await gstore.current_season(store, guild_id, now)
    elif season_value.strip().lower() not in ("all", ""):
        number = parse_id(season_value)  # a number the database cannot hold names no season
        season = await gstore.season(store, guild_id, number) if number is not None else None
        if season is None:
            raise UserError("season.unknown", season=season_value[:50])
    since, until = p_since, None
    detail = ""
    if season is not None:
        since = max(season.started_at, p_since) if p_since is not None else season.started_at
        until = season.until
        head = season_label(season, lang, tz)
        if period != "all":
            detail = period_text(period, p_since, lang)
    else:
        head = period_text(period, p_since, lang)
    return Scope(since, until, " · ".join(x for x in (head, detail) if x), season, period, p_since, head, detail)


def display(name: str | None, player_id: int, lang: str) -> str:
    """A player's name as the store knows it; a short stand-in when it never learnt one."""
    return name or t("board.unknown_player", lang, tail=str(player_id)[-4:])


def seat_display(name: str | None, player_id: int | None, ai_number: int | None, lang: str) -> str:
    """A seat's name in a text: a member's as :func:`display` gives it; an AI seat's as its table named it
    (``name``: 电脑1 ...), or numbered as a table numbers them (``ai_number``) when the match kept no name. Never the
    AI's difficulty, which is no name.

    >>> seat_display(None, None, 2, "en"), seat_display("电脑1", None, 1, "en"), seat_display("Bob", 7, None, "en")
    ('AI 2', '电脑1', 'Bob')
    """
    if player_id is None:
        return name or t("tables.ai_name", lang, n=ai_number or 1)
    return display(name, player_id, lang)


def safe(name: str) -> str:
    """A name for message text: markdown and mentions neutralised (:func:`bot.tables.strings.shown_name`)."""
    return shown_name(name)


def shared_ranks(rows: Sequence[BoardRow]) -> list[int]:
    """The rank of each row of a board (ordered by net, then wins): players with the same net and the same wins
    share a rank (and its medal), and the next rank counts them all (1, 2, 2, 4).

    >>> from bot.store.models import BoardRow
    >>> shared_ranks([BoardRow(p, None, 5, w, 0, 0, 0, 0, net) for p, net, w in
    ...               [(1, 30, 2), (2, 10, 1), (3, 10, 1), (4, 10, 0), (5, -50, 0)]])
    [1, 2, 2, 4, 5]
    """
    ranks: list[int] = []
    for i, r in enumerate(rows):
        tied = i > 0 and (r.net, r.wins) == (rows[i - 1].net, rows[i - 1].wins)
        ranks.append(ranks[-1] if tied else i + 1)
    return ranks


def board_text(title: str, subtitle: str, lines: list[tuple[int, BoardRow]], total: int, lang: str,
               caller: int | None) -> str:
    """The leaderboard as text: a heading, one line per ``(rank, row)`` (a ``…`` line before a jump in rank) and
    how many players are ranked."""
    from render.board import gaps_before

    out = [f"**{title}** · {safe(subtitle)}" if subtitle else f"**{title}**"]
    for (rank, row), gap in zip(lines, gaps_before([rank for rank, _ in lines]), strict=True):
        if gap:
            out.append("…")
        text = t("board.line", lang, rank=rank, name=safe(display(row.display_name, row.player_id, lang)),
                 net=signed(row.net), hands=row.hands, wins=row.wins)
        out.append(f"__{text}__" if row.player_id == caller else text)
    out.append(f"-# {t('board.players', lang, n=total)}")
    return "\n".join(out)


class VariantBoard:
    """One variant's board over a range, as ``/leaderboard`` and a season's final board show it: every ranked row,
    the lines shown (the top :data:`TOP`, plus the caller's own line when lower), the title and the text."""

    def __init__(self, rows: list[BoardRow], lines: list[tuple[int, BoardRow]], title: str, text: str) -> None:
        self.rows, self.lines, self.title, self.text = rows, lines, title, text


async def variant_board(bot: MjBot, guild_id: int, variant: str, since: datetime | None, until: datetime | None,
                        subtitle: str, lang: str, caller: int | None = None, source: str = "all"
                        ) -> VariantBoard | None:
    """The board of ``variant`` over ``[since, until)`` (corrections included: :func:`bot.store.group.board`);
    None when nobody has played it there."""
    rows: list[BoardRow] = await gstore.board(bot.open_store, guild_id, variant, since, until, limit=MAX_PLAYERS,
                                              source=source)
    if not rows:
        return None
    ranks = shared_ranks(rows)
    lines = list(zip(ranks[:TOP], rows[:TOP], strict=True))
    mine = next((i for i, r in enumerate(rows, start=1) if r.player_id == caller), None) if caller else None
    if mine is not None and mine > TOP:
        lines.append((ranks[mine - 1], rows[mine - 1]))
    title = t("board.title", lang, variant=variant_name(variant, lang))
    return VariantBoard(rows, lines, title, board_text(title, subtitle, lines, len(rows), lang, caller))


def stats_text(name: str, scope: str, s: PlayerStats, lang: str) -> str:
    """A player's figures as text, with how much of the net came from adjustments (``/correct adjust``) when any
    did; for a player without hands (ranked on the board with "played 0"), their net and where it comes from."""
    title = t("stats.title", lang, name=safe(name), scope=safe(scope))
    if s.hands == 0:
        return "\n".join([title, t("stats.adjust_only", lang, net=signed(s.net))])
    lines = [
        title,
        t("stats.line1", lang, hands=s.hands, wins=s.wins, rate=win_rate(s.wins, s.hands), self_draws=s.self_draws,
          deal_ins=s.deal_ins, draws=s.draws),
        t("stats.line2", lang, biggest=s.biggest_hand, net=signed(s.net)),
    ]
    if s.adjustments:
        lines.append(f"-# {t('stats.adjusted', lang, amount=signed(s.adjustments))}")
    return "\n".join(lines)


def _board_png(title: str, subtitle: str, lines: list[tuple[int, BoardRow]], caller: int | None,
               lang: str, detail: str = "", shorten: str = "") -> bytes:
    """The board's image; ``subtitle``, ``detail`` and ``shorten`` as :meth:`Scope.image_subtitle` gives them."""
    from render.board import BoardLine, BoardScene, render_board

    scene = BoardScene(title, subtitle, tuple(
        BoardLine(rank, display(drawn_name(r.display_name), r.player_id, lang), r.net, r.hands, r.wins,
                  highlight=r.player_id == caller)
        for rank, r in lines
    ), detail=detail, shorten=shorten)
    return render_board(scene, "dark", lang)


def _stats_png(name: str, subtitle: tuple[str, str, str], s: PlayerStats, lang: str) -> bytes:
    from render.board import StatsScene, render_stats

    head, detail, shorten = subtitle
    scene = StatsScene(name, head, hands=s.hands, wins=s.wins, self_draws=s.self_draws, deal_ins=s.deal_ins,
                       draws=s.draws, biggest_hand=s.biggest_hand, net=s.net, series=tuple(v for _, v in s.series),
                       start=s.series_start, adjusted=s.adjustments, detail=detail, shorten=shorten)
    return render_stats(scene, "dark", lang)


async def _send(interaction: discord.Interaction[MjBot], text: str, render: Any, *args: Any, filename: str) -> None:
    """Defer, draw the image in a thread, then answer with the text and the image (the text alone if drawing
    failed: the figures matter more than the picture)."""
    await interaction.response.defer(thinking=True)
    try:
        data = await asyncio.to_thread(render, *args)
    except Exception:
        log.exception("%s image failed", filename)
        await interaction.followup.send(text, allowed_mentions=_NO_PINGS)
        return
    await interaction.followup.send(text, file=discord.File(io.BytesIO(data), filename=filename),
                                    allowed_mentions=_NO_PINGS)


class Leaderboard(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot

    async def _context(self, interaction: discord.Interaction[MjBot], period: str | None,
                       season: str | None = None) -> tuple[Any, Any, str, Scope]:
        """(store, settings, lang, scope); refuses DMs, a closed store and an unknown season."""
        settings = await settings_of(interaction)
        lang = await lang_of(interaction)
        if interaction.guild_id is None:
            raise UserError("error.guild_only")
        store = getattr(self.bot, "store", None)
        if store is None:
            raise UserError("error.store_unavailable")
        scope = await resolve_scope(self.bot, interaction.guild_id, season, period, lang)
        return store, settings, lang, scope

    @app_commands.command(name=locale_str("leaderboard.name"), description=locale_str("leaderboard.desc"))
    @app_commands.guild_only()
    @app_commands.rename(variant=locale_str("leaderboard.variant.name"), period=locale_str("leaderboard.period.name"),
                         season=locale_str("leaderboard.season.name"), source=locale_str("leaderboard.source.name"))
    @app_commands.describe(variant=locale_str("leaderboard.variant.desc"),
                           period=locale_str("leaderboard.period.desc"), season=locale_str("leaderboard.season.desc"),
                           source=locale_str("leaderboard.source.desc"))
    @app_commands.choices(variant=variant_choices(), period=PERIOD_CHOICES, source=SOURCE_CHOICES)
    @app_commands.autocomplete(season=season_autocomplete)
    async def leaderboard(self, interaction: discord.Interaction[MjBot], variant: str | None = None,
                          period: str | None = None, season: str | None = None, source: str | None = None) -> None:
        store, settings, lang, scope = await self._context(interaction, period, season)
        src = check_source(source, lang)
        key = variant or settings.default_variant
        subtitle = with_source(scope.text, src, lang)
        caller = interaction.user.id
        b = await variant_board(self.bot, guild_of(interaction), key, scope.since, scope.until, subtitle, lang, caller,
                                source=src)
        if b is None:
            await interaction.response.send_message(
                t("board.empty", lang, variant=variant_name(key, lang), period=safe(subtitle)), ephemeral=True)
            return
        head, detail, shorten = scope.image_subtitle(src, lang)  # the season's dates stay on the image
        await _send(interaction, b.text, _board_png, b.title, head, b.lines, caller, lang, detail, shorten,
                    filename="leaderboard.png")

    @app_commands.command(name=locale_str("stats.name"), description=locale_str("stats.desc"))
    @app_commands.guild_only()
    @app_commands.rename(player=locale_str("stats.player.name"), variant=locale_str("stats.variant.name"),
                         period=locale_str("stats.period.name"), season=locale_str("stats.season.name"),
                         other_player=locale_str("stats.other.name"), source=locale_str("stats.source.name"))
    @app_commands.describe(player=locale_str("stats.player.desc"), variant=locale_str("stats.variant.desc"),
                           period=locale_str("stats.period.desc"), season=locale_str("stats.season.desc"),
                           other_player=locale_str("stats.other.desc"), source=locale_str("stats.source.desc"))
    @app_commands.choices(variant=variant_choices(), period=PERIOD_CHOICES, source=SOURCE_CHOICES)
    @app_commands.autocomplete(season=season_autocomplete)
    async def stats(self, interaction: discord.Interaction[MjBot], player: discord.User | None = None,
                    variant: str | None = None, period: str | None = None, season: str | None = None,
                    other_player: discord.User | None = None, source: str | None = None) -> None:
        store, _settings, lang, where = await self._context(interaction, period, season)
        src = check_source(source, lang)
        who: discord.abc.User = player or interaction.user
        what = variant_name(variant, lang) if variant else t("stats.all_variants", lang)
        scope = with_source(what + " · " + where.text, src, lang)
        if other_player is not None:
            await self._head_to_head(interaction, store, lang, who, other_player, variant, where, scope, src)
            return
        s: PlayerStats = await gstore.player_record(store, guild_of(interaction), who.id, variant, where.since,
                                                    where.until, source=src)
        name = s.display_name or who.display_name
        if s.hands == 0 and s.net == 0:  # nothing here (the board, too, ranks a player with hands or a net)
            key = "stats.not_member" if not isinstance(who, discord.Member) else "stats.none"
            await interaction.response.send_message(t(key, lang, name=safe(name), scope=safe(scope)), ephemeral=True,
                                                    allowed_mentions=_NO_PINGS)
            return
        if s.hands == 0:  # a net made by adjustments alone: said in text (a chart of hands would have no point)
            await interaction.response.send_message(stats_text(name, scope, s, lang), allowed_mentions=_NO_PINGS)
            return
        await _send(interaction, stats_text(name, scope, s, lang), _stats_png, drawn_name(name) or player_name(who),
                    where.image_subtitle(src, lang, what), s, lang, filename="stats.png")


    async def _head_to_head(self, interaction: discord.Interaction[MjBot], store: Any, lang: str, a: discord.abc.User,
                            b: discord.abc.User, variant: str | None, where: Scope, scope: str,
                            source: str = "all") -> None:
        if a.id == b.id:
            raise UserError("h2h.same")
        h = await gstore.head_to_head(store, guild_of(interaction), a.id, b.id, variant, where.since, where.until,
                                      source=source)
        name_a = await store.display_name(a.id) or a.display_name
        name_b = await store.display_name(b.id) or b.display_name
        if h.hands == 0 and h.a_to_b == 0 and h.b_to_a == 0:
            await interaction.response.send_message(
                t("h2h.none", lang, a=safe(name_a), b=safe(name_b), scope=safe(scope)), ephemeral=True,
                allowed_mentions=_NO_PINGS)
            return
        text = "\n".join([
            t("h2h.title", lang, a=safe(name_a), b=safe(name_b), scope=safe(scope)),
            t("h2h.hands", lang, hands=h.hands, a=safe(name_a), b=safe(name_b), a_wins=h.a_wins, b_wins=h.b_wins),
            t("h2h.net", lang, a=safe(name_a), b=safe(name_b), a_net=signed(h.a_net), b_net=signed(h.b_net)),
            t("h2h.flow", lang, a=safe(name_a), b=safe(name_b), a_to_b=h.a_to_b, b_to_a=h.b_to_a,
              net=signed(h.net_to_a)),
            f"-# {t('h2h.definition', lang)}",
        ])
        await interaction.response.send_message(text, allowed_mentions=_NO_PINGS)


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Leaderboard(bot))

"""``/leaderboard`` and ``/stats``: the server's ranking by net 子 and one player's record, from the store's ledger.

``/leaderboard [variant] [period]`` ranks the server's human players (AI seats are never ranked: the store leaves
them out) by net 子 in one variant - the server's default unless named - over this week, this month or all time
(the default). The answer is public: the top ten as text and as an image, plus the caller's own line when they
are further down. An empty board is answered privately in a plain sentence.

``/stats [player] [variant] [period]`` shows a player's hands, wins, self-draws, deal-ins, draws, biggest hand and
net 子 - over every variant unless one is named - with a chart of their running net after each hand. The default
player is the caller. A player with no hands, or a user who is not a member of the server and has no record here,
gets a private plain message.

Weeks start on Monday 00:00 and months on the 1st, China time (UTC+8, :data:`SERVER_TZ`): the servers this bot is
for play in Anhui. Names come from the store's cached display names (refreshed whenever a player sits at a table).
Both commands only read: nothing is written, whatever the input.
"""

from __future__ import annotations

import asyncio
import io
import logging
from datetime import datetime, timedelta, timezone
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.i18n import COMMANDS, MESSAGES, lang_for, locale_str, t, variant_name
from bot.store import BoardRow, PlayerStats, period_start
from cogs.errors import UserError
from cogs.settings import guild_settings
from engine.variants import VARIANT_KEYS

log = logging.getLogger(__name__)

#: Leaderboard periods start in China time (no daylight saving): Monday 00:00 for a week, the 1st for a month.
SERVER_TZ = timezone(timedelta(hours=8), "UTC+8")
PERIODS = ("week", "month", "all")
TOP = 10  # lines shown; the caller's own line is added below when they rank lower
MAX_PLAYERS = 100_000  # how far down the board we look for the caller

COMMANDS.update({
    "leaderboard.name": ("leaderboard", "排行榜", "排行榜"),
    "leaderboard.desc": ("This server's ranking by net 子, with hands played and wins",
                         "本服务器按净输赢（子）排名，附局数与和牌数", "本伺服器按淨輸贏（子）排名，附局數與和牌數"),
    "leaderboard.variant.name": ("variant", "玩法", "玩法"),
    "leaderboard.variant.desc": ("Rule set (default: this server's)", "玩法（默认：本服务器的设置）",
                                 "玩法（預設：本伺服器的設定）"),
    "leaderboard.period.name": ("period", "时段", "時段"),
    "leaderboard.period.desc": ("This week, this month or all time (default: all time)",
                                "本周、本月或全部时间（默认：全部）", "本週、本月或全部時間（預設：全部）"),
    "choice.period.week": ("this week", "本周", "本週"),
    "choice.period.month": ("this month", "本月", "本月"),
    "choice.period.all": ("all time", "全部时间", "全部時間"),
    "stats.name": ("stats", "战绩", "戰績"),
    "stats.desc": ("A player's record on this server, with a chart of their net 子",
                   "玩家在本服务器的战绩和输赢走势图", "玩家在本伺服器的戰績和輸贏走勢圖"),
    "stats.player.name": ("player", "玩家", "玩家"),
    "stats.player.desc": ("Whose record (default: yours)", "看谁的战绩（默认：自己）", "看誰的戰績（預設：自己）"),
    "stats.variant.name": ("variant", "玩法", "玩法"),
    "stats.variant.desc": ("Rule set (default: all of them)", "玩法（默认：全部玩法）", "玩法（預設：全部玩法）"),
    "stats.period.name": ("period", "时段", "時段"),
    "stats.period.desc": ("This week, this month or all time (default: all time)",
                          "本周、本月或全部时间（默认：全部）", "本週、本月或全部時間（預設：全部）"),
})

MESSAGES.update({
    "board.title": ("{variant} leaderboard", "{variant}排行榜", "{variant}排行榜"),
    "board.period.all": ("all time", "全部时间", "全部時間"),
    "board.period.week": ("this week (from {date}, UTC+8)", "本周（{date}起，北京时间）", "本週（{date}起，北京時間）"),
    "board.period.month": ("this month (from {date}, UTC+8)", "本月（{date}起，北京时间）", "本月（{date}起，北京時間）"),
    "board.line": ("{rank}. **{name}** · {net} 子 · played {hands} · won {wins}",
                   "{rank}. **{name}** · {net} 子 · 打了 {hands} 局 · 和了 {wins} 次",
                   "{rank}. **{name}** · {net} 子 · 打了 {hands} 局 · 和了 {wins} 次"),
    "board.players": ("{n} players ranked · AI seats are not ranked", "共 {n} 名玩家上榜 · 电脑玩家不计入",
                      "共 {n} 名玩家上榜 · 電腦玩家不計入"),
    "board.empty": ("Nobody has played {variant} on this server yet ({period}): the leaderboard is empty.",
                    "本服务器还没有人打过{variant}（{period}），排行榜是空的。",
                    "本伺服器還沒有人打過{variant}（{period}），排行榜是空的。"),
    "board.unknown_player": ("Player …{tail}", "玩家…{tail}", "玩家…{tail}"),
    "stats.all_variants": ("all variants", "全部玩法", "全部玩法"),
    "stats.title": ("**{name}** · {scope}", "**{name}** · {scope}", "**{name}** · {scope}"),
    "stats.line1": ("Hands {hands} · Wins {wins} ({rate}) · Self-draws {self_draws} · Deal-ins {deal_ins} · "
                    "Draws {draws}",
                    "局数 {hands} · 和牌 {wins}（{rate}） · 自摸 {self_draws} · 点炮 {deal_ins} · 流局 {draws}",
                    "局數 {hands} · 和牌 {wins}（{rate}） · 自摸 {self_draws} · 放槍 {deal_ins} · 流局 {draws}"),
    "stats.line2": ("Biggest hand {biggest} 子 · Net {net} 子", "最大一手 {biggest} 子 · 净输赢 {net} 子",
                    "最大一手 {biggest} 子 · 淨輸贏 {net} 子"),
    "stats.none": ("{name} has no hands on this server yet ({scope}).", "{name}在本服务器还没有对局记录（{scope}）。",
                   "{name}在本伺服器還沒有對局記錄（{scope}）。"),
    "stats.not_member": ("{name} is not a member of this server and has no record here.",
                         "{name}不是本服务器的成员，这里也没有他的记录。", "{name}不是本伺服器的成員，這裡也沒有他的記錄。"),
})

VARIANT_CHOICES = [Choice(name=locale_str(f"choice.variant.{k}"), value=k) for k in VARIANT_KEYS]
PERIOD_CHOICES = [Choice(name=locale_str(f"choice.period.{p}"), value=p) for p in PERIODS]
_MONTHS_EN = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_NO_PINGS = discord.AllowedMentions.none()


def signed(n: int) -> str:
    """``+35``, ``-20``, ``0``."""
    return f"{n:+d}" if n else "0"


def win_rate(wins: int, hands: int) -> str:
    return f"{round(100 * wins / hands)}%" if hands else "—"


def period_text(period: str, since: datetime | None, lang: str) -> str:
    """``all time`` / ``this week (from Nov 23, UTC+8)`` in ``lang``.

    >>> period_text("week", datetime(2026, 11, 23, tzinfo=SERVER_TZ), "zh")
    '本周（11月23日起，北京时间）'
    >>> period_text("month", datetime(2026, 11, 1, tzinfo=SERVER_TZ), "en")
    'this month (from Nov 1, UTC+8)'
    """
    if since is None:
        return t("board.period.all", lang)
    date = f"{_MONTHS_EN[since.month - 1]} {since.day}" if lang == "en" else f"{since.month}月{since.day}日"
    return t(f"board.period.{period}", lang, date=date)


def display(name: str | None, player_id: int, lang: str) -> str:
    """A player's name as the store knows it; a short stand-in when it never learnt one."""
    return name or t("board.unknown_player", lang, tail=str(player_id)[-4:])


def safe(name: str) -> str:
    """A name for message text: markdown and mentions neutralised."""
    return discord.utils.escape_markdown(discord.utils.escape_mentions(name))


def board_text(title: str, subtitle: str, lines: list[tuple[int, BoardRow]], total: int, lang: str,
               caller: int | None) -> str:
    """The leaderboard as text: a heading, one line per ``(rank, row)`` (a ``…`` line before a jump in rank) and
    how many players are ranked."""
    out = [f"**{title}** · {subtitle}"]
    prev = 0
    for rank, row in lines:
        if rank > prev + 1:
            out.append("…")
        prev = rank
        text = t("board.line", lang, rank=rank, name=safe(display(row.display_name, row.player_id, lang)),
                 net=signed(row.net), hands=row.hands, wins=row.wins)
        out.append(f"__{text}__" if row.player_id == caller else text)
    out.append(f"-# {t('board.players', lang, n=total)}")
    return "\n".join(out)


def stats_text(name: str, scope: str, s: PlayerStats, lang: str) -> str:
    return "\n".join([
        t("stats.title", lang, name=safe(name), scope=scope),
        t("stats.line1", lang, hands=s.hands, wins=s.wins, rate=win_rate(s.wins, s.hands), self_draws=s.self_draws,
          deal_ins=s.deal_ins, draws=s.draws),
        t("stats.line2", lang, biggest=s.biggest_hand, net=signed(s.net)),
    ])


def _board_png(title: str, subtitle: str, lines: list[tuple[int, BoardRow]], caller: int | None,
               lang: str) -> bytes:
    from render.board import BoardLine, BoardScene, render_board

    scene = BoardScene(title, subtitle, tuple(
        BoardLine(rank, display(r.display_name, r.player_id, lang), r.net, r.hands, r.wins,
                  highlight=r.player_id == caller)
        for rank, r in lines
    ))
    return render_board(scene, "dark", lang)


def _stats_png(name: str, scope: str, s: PlayerStats, lang: str) -> bytes:
    from render.board import StatsScene, render_stats

    scene = StatsScene(name, scope, hands=s.hands, wins=s.wins, self_draws=s.self_draws, deal_ins=s.deal_ins,
                       draws=s.draws, biggest_hand=s.biggest_hand, net=s.net, series=tuple(v for _, v in s.series))
    return render_stats(scene, "dark", lang)


async def _send(interaction: discord.Interaction, text: str, render: Any, *args: Any, filename: str) -> None:
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
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    async def _context(self, interaction: discord.Interaction, period: str | None) -> tuple[Any, Any, str, str,
                                                                                            datetime | None]:
        """(store, settings, lang, period, period start); refuses DMs and a closed store."""
        settings = await guild_settings(self.bot, interaction.guild_id)
        lang = lang_for(interaction, settings.language if interaction.guild_id else None)
        if interaction.guild_id is None:
            raise UserError("error.guild_only")
        store = getattr(self.bot, "store", None)
        if store is None:
            raise UserError("error.store_unavailable")
        period = period or "all"
        since = period_start(period, datetime.now(SERVER_TZ))
        return store, settings, lang, period, since

    @app_commands.command(name=locale_str("leaderboard.name"), description=locale_str("leaderboard.desc"))
    @app_commands.guild_only()
    @app_commands.rename(variant=locale_str("leaderboard.variant.name"), period=locale_str("leaderboard.period.name"))
    @app_commands.describe(variant=locale_str("leaderboard.variant.desc"),
                           period=locale_str("leaderboard.period.desc"))
    @app_commands.choices(variant=VARIANT_CHOICES, period=PERIOD_CHOICES)
    async def leaderboard(self, interaction: discord.Interaction, variant: str | None = None,
                          period: str | None = None) -> None:
        store, settings, lang, period, since = await self._context(interaction, period)
        key = variant or settings.default_variant
        rows: list[BoardRow] = await store.leaderboard(interaction.guild_id, key, since, limit=MAX_PLAYERS)
        subtitle = period_text(period, since, lang)
        if not rows:
            await interaction.response.send_message(
                t("board.empty", lang, variant=variant_name(key, lang), period=subtitle), ephemeral=True)
            return
        caller = interaction.user.id
        lines = list(enumerate(rows[:TOP], start=1))
        mine = next((i for i, r in enumerate(rows, start=1) if r.player_id == caller), None)
        if mine is not None and mine > TOP:
            lines.append((mine, rows[mine - 1]))
        title = t("board.title", lang, variant=variant_name(key, lang))
        text = board_text(title, subtitle, lines, len(rows), lang, caller)
        await _send(interaction, text, _board_png, title, subtitle, lines, caller, lang, filename="leaderboard.png")

    @app_commands.command(name=locale_str("stats.name"), description=locale_str("stats.desc"))
    @app_commands.guild_only()
    @app_commands.rename(player=locale_str("stats.player.name"), variant=locale_str("stats.variant.name"),
                         period=locale_str("stats.period.name"))
    @app_commands.describe(player=locale_str("stats.player.desc"), variant=locale_str("stats.variant.desc"),
                           period=locale_str("stats.period.desc"))
    @app_commands.choices(variant=VARIANT_CHOICES, period=PERIOD_CHOICES)
    async def stats(self, interaction: discord.Interaction, player: discord.User | None = None,
                    variant: str | None = None, period: str | None = None) -> None:
        store, _settings, lang, period, since = await self._context(interaction, period)
        who: discord.abc.User = player or interaction.user
        s: PlayerStats = await store.player_stats(interaction.guild_id, who.id, variant, since)
        name = s.display_name or who.display_name
        scope = (variant_name(variant, lang) if variant else t("stats.all_variants", lang)) + " · " + \
            period_text(period, since, lang)
        if s.hands == 0:
            key = "stats.not_member" if not isinstance(who, discord.Member) else "stats.none"
            await interaction.response.send_message(t(key, lang, name=safe(name), scope=scope), ephemeral=True,
                                                    allowed_mentions=_NO_PINGS)
            return
        await _send(interaction, stats_text(name, scope, s, lang), _stats_png, name, scope, s, lang,
                    filename="stats.png")


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Leaderboard(bot))

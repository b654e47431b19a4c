"""The scheduler: seasons that reach their end date, and the weekly report (战报), on a ``discord.ext.tasks`` loop.

Every :data:`TICK_MINUTES` the loop runs :meth:`Report.tick` with the time from ``self.clock`` (tests set the clock
and call ``tick``; nothing sleeps):

- seasons whose end date has passed are closed, and every ended season whose final board was not posted yet gets it
  posted in the channel where it was started (``mark_season_announced`` first: never twice);
- for each server with the weekly report on, the latest report day (its weekday, at :data:`REPORT_HOUR` local time)
  that has come: if that week was not posted yet it is claimed in the database, then posted. After downtime only
  the latest missed week is posted (the claim moves past the earlier ones). The week reported is the seven local
  days before the report day's midnight. A transient Discord failure (5xx, 429 after retries, a network error)
  releases the claim so the next tick tries again; a missing channel or permission (403 / 404) does not.

Turning the report on never posts a week that ended before it was asked for (see
:func:`bot.store.group.set_weekly_report`).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

import discord
from discord.ext import commands, tasks

from bot.app import MjBot
from bot.i18n import t, variant_name
from bot.settings import SERVER_LANGUAGE
from bot.store import group as gstore
from cogs.group import passing, post_final_board
from cogs.leaderboard import day_text, display
from text.lang import lang_of_locale

log = logging.getLogger(__name__)

TICK_MINUTES = 5
REPORT_HOUR = 10  # local time of the report day at which the weekly report is due
_NO_PINGS = discord.AllowedMentions.none()


def latest_report_day(now_local: datetime, weekday: int) -> date:
    """The latest day with ``weekday`` (0 = Monday) whose :data:`REPORT_HOUR` has come by ``now_local``.

    >>> latest_report_day(datetime(2026, 11, 30, 9, 0), 0)   # Monday 09:00: last Monday's report
    datetime.date(2026, 11, 23)
    >>> latest_report_day(datetime(2026, 11, 30, 10, 0), 0)  # Monday 10:00: today's
    datetime.date(2026, 11, 30)
    """
    today = now_local.date()
    back = (today.weekday() - weekday) % 7
    day = today - timedelta(days=back)
    if back == 0 and now_local.time() < time(REPORT_HOUR):
        day -= timedelta(days=7)
    return day


def week_range(report_day: date, tz: Any) -> tuple[datetime, datetime]:
    """The seven local days before ``report_day``'s midnight: ``[start, end)``."""
    end = datetime.combine(report_day, time(0), tzinfo=tz)
    return datetime.combine(report_day - timedelta(days=7), time(0), tzinfo=tz), end


async def report_message(bot: MjBot, guild_id: int, day: date, lang: str) -> tuple[str, discord.File]:
    """The weekly report for the week before ``day``: a line of text and the 战报 image."""
    from render.report import render_report

    text, scene = await report_scene(bot, guild_id, day, lang)
    data = await asyncio.to_thread(render_report, scene)
    return text, discord.File(io.BytesIO(data), filename="weekly-report.png")


async def report_scene(bot: MjBot, guild_id: int, day: date, lang: str) -> tuple[str, Any]:
    """The weekly report's text line and its :class:`render.report.ReportScene` (what the image shows)."""
    from render.report import ReportLine, ReportScene

    tz = (await gstore.group_settings(bot.open_store, guild_id)).tz
    start, end = week_range(day, tz)
    s = await gstore.week_summary(bot.open_store, guild_id, start, end)
    week = t("report.week", lang, start=day_text(start, lang), end=day_text(end - timedelta(days=1), lang))
    count = t("report.hands", lang, n=s.hands)
    records = []
    if s.biggest is not None:
        records.append((t("report.biggest", lang),
                        t("report.biggest_line", lang, winner=s.biggest.winner or "?", value=s.biggest.value,
                          variant=variant_name(s.biggest.variant, lang))))
    if s.most_jiao is not None:
        records.append((t("report.most_jiao", lang), f"{display(s.most_jiao[1], s.most_jiao[0], lang)} · "
                                                     f"+{s.most_jiao[2]}"))
    if s.most_value is not None:
        records.append((t("report.most_value", lang), f"{display(s.most_value[1], s.most_value[0], lang)} · "
                                                      f"{s.most_value[2]}"))
    lines = tuple(ReportLine(i, display(r.display_name, r.player_id, lang), r.net, r.hands, r.wins)
                  for i, r in enumerate(s.board[:5], start=1))
    scene = ReportScene(t("report.title", lang), week, count, t("report.top", lang), lines, tuple(records),
                        empty=t("report.none", lang), wins_label=t("report.wins_hands", lang))
    return t("report.text", lang, week=week, hands=count), scene


class Report(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)

    async def cog_load(self) -> None:
        self.loop.start()

    async def cog_unload(self) -> None:
        self.loop.cancel()

    @tasks.loop(minutes=TICK_MINUTES)
    async def loop(self) -> None:
        try:
            await self.tick()
        except Exception:  # one bad tick never stops the schedule
            log.exception("scheduler tick failed")

    @loop.before_loop
    async def _ready(self) -> None:
        await self.bot.wait_until_ready()

    async def _lang(self, guild_id: int) -> str:
        settings = await self.bot.open_store.guild_settings(guild_id)
        guild = self.bot.get_guild(guild_id)
        if settings.updated_at is None and guild is not None:
            return lang_of_locale(guild.preferred_locale) or settings.language
        return lang_of_locale(settings.language) or SERVER_LANGUAGE

    async def tick(self) -> None:
        """One round of the schedule at ``self.clock()``."""
        store = getattr(self.bot, "store", None)
        if store is None:
            return
        now = self.clock()
        await gstore.end_due_seasons(store, now)
        for season in await gstore.seasons_to_announce(store):
            await self._announce(season, now)
        for gs in await gstore.report_servers(store):
            day = latest_report_day(now.astimezone(gs.tz), gs.report_weekday)
            week = day.toordinal()
            if gs.last_report_week is not None and gs.last_report_week >= week:
                continue
            if not await gstore.claim_report_week(store, gs.guild_id, week):
                continue
            try:
                lang = await self._lang(gs.guild_id)
                text, file = await report_message(self.bot, gs.guild_id, day, lang)
                assert gs.report_channel is not None  # report_servers: the servers with a report channel
                await self.bot.get_partial_messageable(gs.report_channel).send(text, file=file,
                                                                               allowed_mentions=_NO_PINGS)
                log.info("guild %s: weekly report of %s posted", gs.guild_id, day)
            except Exception as e:
                if passing(e):
                    await gstore.release_report_week(store, gs.guild_id, week, gs.last_report_week)
                    log.warning("guild %s: weekly report of %s not posted, will retry: %s", gs.guild_id, day, e)
                else:
                    log.warning("guild %s: weekly report of %s cannot be posted: %s", gs.guild_id, day, e)

    async def _announce(self, season: gstore.Season, now: datetime) -> None:
        """Post an ended season's final board in the channel where it was started (:func:`post_final_board`: never
        twice, retried after a failure in passing)."""
        if season.channel_id is None:  # nowhere to post it
            await gstore.mark_season_announced(self.bot.open_store, season.season_id, now)
            return
        channel = self.bot.get_partial_messageable(season.channel_id)

        async def send(text: str, file: discord.File | None) -> None:
            await channel.send(text, file=file or discord.utils.MISSING, allowed_mentions=_NO_PINGS)

        await post_final_board(self.bot, season, await self._lang(season.guild_id), send, now)


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Report(bot))

"""The scheduler: seasons that reach their end date, and the weekly report (战报), on a ``discord.ext.tasks`` loop.

Every :data:`TICK_MINUTES` the loop runs :meth:`Report.tick` with the time from ``self.clock`` (tests set the clock
and call ``tick``; nothing sleeps):

- seasons whose end date has passed are closed, and every ended season whose final board was not posted yet gets it
  posted in the channel where it was started (:func:`cogs.group.post_final_board`; the seasons of the shards
  whose leases this process holds). While a hand of the season recorded with /record still waits for its
  confirmations the board waits too, :data:`LATE_RECORD_WAIT` past the season's end at most (then it names the
  records still waiting): the records are read from the store at every tick, so a restart changes nothing;
- for each server with the weekly report on (of the shards whose leases this process holds, those that may have
  one due: :func:`due_bounds`, read in one statement), the latest report day (its weekday, at :data:`REPORT_HOUR` local time)
  that has come: if that week was not posted yet it is claimed in the database, posted, then noted as posted. After
  downtime only the latest missed week is posted. The week reported is the seven local days before the report day's
  midnight. A failure that leaves it unknown whether Discord took the post (a network error, a time-out, a 5xx,
  a 429) keeps the claim: the next tick past :data:`cogs.post_claims.CLAIM_LEASE` looks for it in the channel, then
  posts it. A refusal of the body (another 4xx) gives the claim back so the next tick tries again; a missing
  channel or permission (403 / 404) ends it (:mod:`cogs.post_claims`).

Both are posted at least once, and once (the limits: docs/discord.md): each post carries a nonce made of what it is
(the season, the server and week) with ``enforce_nonce``, and is noted as posted only once Discord took it; a note
that fails is kept in memory (:func:`cogs.post_claims.note_posted`), written at the next ticks, and its post is never made
again. A claim never noted (the bot was stopped while the post was in flight, or the database failed to give a claim
back) is taken over at the first tick after a start, or by any tick once it is older than
:data:`cogs.post_claims.CLAIM_LEASE`: the post is first looked for in its channel (one request; by its first line or its
image's file name) and noted if Discord has it, else posted again with the same nonce (Discord returns the message
it already has if it still remembers the nonce: a few minutes).

Turning the report on never posts a week that ended before it was asked for (see
:func:`bot.store.group.set_weekly_report`).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta, timezone
from typing import Any

import discord
from discord.ext import commands, tasks

from bot.app import MjBot
from bot.i18n import t, variant_name
from bot.names import drawn_name
from bot.settings import SERVER_LANGUAGE, server_language
from bot.store import group as gstore
from bot.store import records as rstore
from cogs.group import post_final_board, season_waiting
from cogs.leaderboard import day_text, display, seat_display, shared_ranks
from cogs.post_claims import (
    CLAIM_LEASE,
    given_back,
    maybe_posted,
    note_posted,
    noted,
    posted_before,
    retry_notes,
    unnoted,
)

log = logging.getLogger(__name__)

TICK_MINUTES = 5
REPORT_HOUR = 10  # local time of the report day at which the weekly report is due
LATE_RECORD_WAIT = timedelta(hours=24)
"""How long past :data:`REPORT_HOUR` the report waits while a hand of its week recorded with /record still waits for
its confirmations (it counts at the time it was proposed, or made in place of a voided hand at that hand's time:
confirmed after the report, it would be in none), and how
long past its end a season's final board waits so for a hand of the season. Records expire after a day by default (a
server may set up to a week): past this the report goes out without them, and the final board names them."""
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


def due_bounds(now: datetime) -> list[int]:
    """For each weekday (0 = Monday), the latest report day (its date ordinal) any time zone has reached at ``now``:
    the zone 14 hours ahead of UTC, the furthest ahead there is. A server whose week of that day is posted has no
    report due, wherever it is (:func:`bot.store.group.report_servers` leaves it out in SQL).

    >>> [date.fromordinal(d).isoformat() for d in due_bounds(datetime(2030, 1, 14, 19, 59, tzinfo=UTC))][:2]
    ['2030-01-14', '2030-01-08']
    >>> date.fromordinal(due_bounds(datetime(2030, 1, 14, 20, 0, tzinfo=UTC))[1]).isoformat()
    '2030-01-15'
    """
    ahead = now.astimezone(timezone(timedelta(hours=14)))
    return [latest_report_day(ahead, weekday).toordinal() for weekday in range(7)]


def report_nonce(guild_id: int, week: int) -> str:
    """The nonce of a server's report of ``week`` (its report day's ordinal), in Discord's 25 characters: every try
    posts with it, so that Discord makes a retry the same message (``enforce_nonce``, for a few minutes).

    >>> report_nonce(1_200_000_000_000_000_100, 741_000), report_nonce(2**64 - 1, 741_000)
    ('mjw741000947ohxli5i04', 'mjw7410003w5e11264sgsf')
    """
    digits, n = "", guild_id
    while True:
        n, r = divmod(n, 36)
        digits = "0123456789abcdefghijklmnopqrstuvwxyz"[r] + digits
        if n == 0:
            break
    return f"mjw{week}{digits}"[:25]


def week_range(report_day: date, tz: Any) -> tuple[datetime, datetime]:
    """The seven local days before ``report_day``'s midnight: ``[start, end)``."""
    end = datetime.combine(report_day, time(0), tzinfo=tz)
    return datetime.combine(report_day - timedelta(days=7), time(0), tzinfo=tz), end


async def report_message(bot: MjBot, guild_id: int, day: date, lang: str) -> tuple[str, discord.File]:
    """The weekly report for the week before ``day``: a line of text and the 战报 image."""
    from render.report import render_report

    text, scene = await report_scene(bot, guild_id, day, lang)
    data = await asyncio.to_thread(render_report, scene)
    return text, discord.File(io.BytesIO(data), filename=report_file(day))


def report_file(day: date) -> str:
    """The image's file name: the report day, so that a report Discord took is found again
    (:func:`cogs.post_claims.posted_before`).

    >>> report_file(date(2030, 1, 14))
    'weekly-report-2030-01-14.png'
    """
    return f"weekly-report-{day.isoformat()}.png"


async def report_scene(bot: MjBot, guild_id: int, day: date, lang: str) -> tuple[str, Any]:
    """The weekly report's text line and its :class:`render.report.ReportScene` (what the image shows)."""
    from render.report import ReportLine, ReportScene

    tz = (await gstore.group_settings(bot.open_store, guild_id)).tz
    start, end = week_range(day, tz)
    s = await gstore.week_summary(bot.open_store, guild_id, start, end)
    week = t("report.week", lang, start=day_text(start, lang), end=day_text(end - timedelta(days=1), lang))
    count = t("report.hands", lang, n=s.hands)
    records = []
    win = s.biggest.biggest if s.biggest is not None else None
    if s.biggest is not None and win is not None:  # the player whose win it was (several may win on one discard)
        records.append((t("report.biggest", lang),
                        t("report.biggest_line", lang, winner=seat_display(win.name, win.player_id, win.ai_number, lang), value=win.value,
                          variant=variant_name(s.biggest.variant, lang))))
    if s.most_jiao is not None:
        records.append((t("report.most_jiao", lang), f"{display(s.most_jiao[1], s.most_jiao[0], lang)} · "
                                                     f"+{s.most_jiao[2]}"))
    if s.most_value is not None:
        records.append((t("report.most_value", lang), f"{display(s.most_value[1], s.most_value[0], lang)} · "
                                                      f"{s.most_value[2]}"))
    lines = tuple(ReportLine(rank, display(drawn_name(r.display_name), r.player_id, lang), r.net, r.hands, r.wins)
                  for rank, r in zip(shared_ranks(s.board), s.board[:5], strict=False))
    scene = ReportScene(t("report.title", lang), week, count, t("report.top", lang), lines, tuple(records),
                        empty=t("report.none", lang), wins_label=t("report.wins_hands", lang))
    return t("report.text", lang, week=week, hands=count), scene


class Report(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        self.first_round = True  # the first tick after a start takes over every claim it finds

    async def cog_load(self) -> None:
        self.loop.start()

    async def cog_unload(self) -> None:
        self.loop.cancel()
        await retry_notes(self.bot)  # the posts Discord took are noted before the bot stops, if the database lets it

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
        """The language of a scheduled post: the server's ``/settings`` language, as its tables speak (never its
        Discord locale, which Discord sets only for Community servers: en-US for most others)."""
        return await server_language(self.bot, guild_id) or SERVER_LANGUAGE

    async def tick(self) -> None:
        """One round of the schedule at ``self.clock()``."""
        store = getattr(self.bot, "store", None)
        if store is None:
            return
        now = self.clock()
        # a claim older than the lease was left by a bot that stopped (or could not give it back); at the first round
        # after a start every claim found is: posted again with its nonce, which Discord makes the same message
        retake_before = gstore.ANY_CLAIM if self.first_round else now - CLAIM_LEASE
        await retry_notes(self.bot)  # posts Discord took, noted now (their claims are left alone until then)
        await gstore.end_due_seasons(store, now)
        held = self.bot.tables.own_shards()  # the servers of the shards whose leases this process holds (None: all)
        for season in await gstore.seasons_to_announce(store, held):
            if not await self._held_back(season, now):
                await self._announce(season, now, retake_before)
        for gs in await gstore.report_servers(store, shards=held, due=due_bounds(now)):  # one statement
            await self._report(gs, now, retake_before)
        self.first_round = False

    async def _report(self, gs: gstore.GroupSettings, now: datetime, retake_before: datetime) -> None:
        """The weekly report of one server, if one is due: a claim in flight (its own week) first, else the latest
        week not posted yet. Claimed, posted with the week's nonce (:func:`report_nonce`), then noted as posted."""
        store = self.bot.open_store
        if gs.report_claim_week is not None:
            week = gs.report_claim_week
        else:
            week = latest_report_day(now.astimezone(gs.tz), gs.report_weekday).toordinal()
            if gs.last_report_week is not None and gs.last_report_week >= week:
                return
            due = datetime.combine(date.fromordinal(week), time(REPORT_HOUR), tzinfo=gs.tz)
            start, end = week_range(date.fromordinal(week), gs.tz)
            if now < due + LATE_RECORD_WAIT and await rstore.waiting_before(store, gs.guild_id, end, since=start):
                return  # a hand of the week recorded but not confirmed yet: the report waits for it (a while at most)
        key = ("report", gs.guild_id, week)
        if unnoted(self.bot, key):  # posted; its note is waiting
            return
        if not await gstore.claim_report_week(store, gs.guild_id, week, now, retake_before=retake_before):
            return
        day = date.fromordinal(week)
        what = f"guild {gs.guild_id}: weekly report of {day}"
        try:
            lang = await self._lang(gs.guild_id)
            text, file = await report_message(self.bot, gs.guild_id, day, lang)
        except Exception as e:  # nothing posted: given back, the next round tries again
            log.warning("%s could not be drawn (%r); will retry", what, e)
            await noted(what, gstore.release_report_week(store, gs.guild_id, week))
            return
        assert gs.report_channel is not None  # report_servers: the servers with a report channel
        posted = lambda: gstore.confirm_report_week(store, gs.guild_id, week)  # noqa: E731
        if gs.report_claim_week == week:  # a claim taken over: Discord may have the post
            found = await posted_before(self.bot, what, gs.report_channel, gs.guild_id, gs.report_claimed_at, text,
                                        report_file(day))
            if found is None:
                return
            if found:
                await note_posted(self.bot, key, what, posted)
                return
        try:
            await self.bot.get_partial_messageable(gs.report_channel, guild_id=gs.guild_id).send(
                text, file=file, allowed_mentions=_NO_PINGS, nonce=report_nonce(gs.guild_id, week))  # with enforce_nonce
        except Exception as e:
            if maybe_posted(e):  # the claim stays: taken over after CLAIM_LEASE, looked for in the channel first
                log.warning("%s: Discord may have taken it (%r); looked for before it is posted again", what, e)
            elif given_back(e):
                log.warning("%s not posted, will retry: %s", what, e)
                await noted(what, gstore.release_report_week(store, gs.guild_id, week))
            else:
                log.warning("%s cannot be posted: %s", what, e)
                await noted(what, gstore.confirm_report_week(store, gs.guild_id, week))
            return
        log.info("%s posted", what)
        await note_posted(self.bot, key, what, posted)

    async def _held_back(self, season: gstore.Season, now: datetime) -> bool:
        """Whether an ended season's final board waits: a hand of the season recorded with /record still waits for
        its confirmations (it will count in the season), and the season ended less than :data:`LATE_RECORD_WAIT`
        ago. Past that the board goes out naming the records still waiting (:func:`cogs.group.final_board`). A post
        in flight (a claim) is never held back: Discord may have it already."""
        if season.final_claimed_at is not None or season.until is None or now >= season.until + LATE_RECORD_WAIT:
            return False
        return bool(await season_waiting(self.bot, season, 1))

    async def _announce(self, season: gstore.Season, now: datetime, retake_before: datetime) -> None:
        """Post an ended season's final board in the channel where it was started, or where a claim in flight
        posts it (:func:`post_final_board`: at least once, and once)."""
        await post_final_board(self.bot, season, await self._lang(season.guild_id), season.channel_id, at=now,
                               retake_before=retake_before)


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Report(bot))
